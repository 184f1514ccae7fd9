// Block tests (label `block`) of sue_tx: the RTL of every compiled
// parameterization against its C++ model sue::TxModel, every output on every
// cycle, under the constrained-random environment of sue_tx_harness.hpp
// (commands of every length, bad transfers, random MAC ready and credit_ok,
// feedback with loss, go-back-N, RTOs, port deaths and failover, mid-run
// resets), with its independent frame checks (every frame decodes with
// sue::decode to the commands sent); the worked example of docs/sue.md byte
// for byte and cycle for cycle; and the mutant RTL (SUE_MUTANT) caught.
#include <gtest/gtest.h>

#include <cstdio>

#include "common/vcontext.hpp"
#include "sue/sue_tx_block.hpp"
#include "sue/sue_tx_harness.hpp"
#include "verilated.h"

namespace {

using namespace tb::sue_tb;

struct Run {
  std::string fail;
  suetx::HarnessStats st;
  std::optional<tb::Mismatch> mismatch;
  uint64_t compared = 0;
};

Run run_lockstep(const std::string& variant, suetx::HarnessCfg hc) {
  const TxVariant* v = find_tx_variant(variant);
  EXPECT_NE(v, nullptr) << variant;
  Run r;
  if (!v) return r;
  VerilatedContext* ctx = tb::shared_context();
  ctx->assertOn(true);
  auto ls = make_tx_lockstep(make_tx_rtl(*v, ctx, "tx", nullptr), v->params, "tx");
  LockTx* l = ls.get();
  suetx::Harness<TxBlock> h(v->params, hc, *ls);
  uint64_t cyc = 0;
  h.after_edge = [&]() {
    l->set_time(++cyc, 0);
    if (l->mismatch()) return false;
    if (ctx->gotError()) return false;
    if (!l->model().assertion().empty()) return false;
    ++r.compared;
    return true;
  };
  r.fail = h.run();
  r.st = h.stats();
  r.mismatch = l->mismatch();
  if (ctx->gotError()) r.fail = "RTL assertion failed (see stderr)";
  if (!l->model().assertion().empty()) r.fail = l->model().assertion();
  if (r.mismatch) {
    const auto& m = *r.mismatch;
    r.fail = "lockstep mismatch at cycle " + std::to_string(m.cycle) + ": " + m.signal + " rtl=" +
             std::to_string(m.rtl) + " model=" + std::to_string(m.model);
  }
  const auto& s = r.st;
  std::printf("[%s seed %llu] cycles %llu compared %llu frames %llu data %llu new %llu rtx %llu mig %llu ack_only %llu "
              "fo_req %llu fo_ack %llu accepted %llu delivered %llu resets %llu deaths %llu lost %llu max_inflight %llu "
              "window_full_cycles %llu\n",
              variant.c_str(), (unsigned long long)hc.seed, (unsigned long long)s.cycles,
              (unsigned long long)r.compared, (unsigned long long)s.frames, (unsigned long long)s.data_frames,
              (unsigned long long)s.new_pdus, (unsigned long long)s.rtx_pdus, (unsigned long long)s.mig_pdus,
              (unsigned long long)s.ack_only, (unsigned long long)s.fo_req, (unsigned long long)s.fo_ack,
              (unsigned long long)s.accepted, (unsigned long long)s.delivered, (unsigned long long)s.resets,
              (unsigned long long)s.deaths, (unsigned long long)s.lost_frames, (unsigned long long)s.max_inflight,
              (unsigned long long)s.window_full_cycles);
  return r;
}

void expect_busy(const Run& r, bool sue) {
  EXPECT_GT(r.st.new_pdus, 500u);
  EXPECT_GT(r.st.delivered, 1000u);
  if (sue) {
    EXPECT_GT(r.st.rtx_pdus, 10u);
    EXPECT_GT(r.st.ack_only, 10u);
  }
}

suetx::HarnessCfg faults(uint64_t seed) {
  suetx::HarnessCfg c;
  c.seed = seed;
  c.cycles = 60000;
  c.p_reset = 0.00005;
  return c;
}

TEST(SueTxLockstep, S1) {
  auto r = run_lockstep("s1", faults(11));
  EXPECT_EQ(r.fail, "");
  expect_busy(r, true);
}

TEST(SueTxLockstep, S1ShortTimersSmallCommands) {
  auto c = faults(12);
  c.dlen_max = 40;
  c.p_loss = 0.03;
  c.fb_delay_max = 200;  // long feedback: the window fills
  auto r = run_lockstep("s1", c);
  EXPECT_EQ(r.fail, "");
  expect_busy(r, true);
  EXPECT_GT(r.st.window_full_cycles, 0u);
}

TEST(SueTxLockstep, S2Failover) {
  auto c = faults(21);
  c.p_death = 0.00005;
  auto r = run_lockstep("s2", c);
  EXPECT_EQ(r.fail, "");
  expect_busy(r, true);
  EXPECT_GT(r.st.deaths, 0u);
  EXPECT_GT(r.st.fo_req, 0u);
}

TEST(SueTxLockstep, S4Failover) {
  auto c = faults(41);
  c.p_death = 0.00008;
  auto r = run_lockstep("s4", c);
  EXPECT_EQ(r.fail, "");
  expect_busy(r, true);
  EXPECT_GT(r.st.deaths, 0u);
  EXPECT_GT(r.st.mig_pdus, 0u);
}

TEST(SueTxLockstep, Lite) {
  auto r = run_lockstep("lite", faults(51));
  EXPECT_EQ(r.fail, "");
  expect_busy(r, false);
}

// The deliberately broken RTL: a NACK(e) resends from e+1. Lockstep must catch it
// and name the cycle and the first differing output.
TEST(SueMutant, CaughtWithCycleAndSignal) {
  auto c = faults(61);
  c.p_reset = 0;
  c.p_loss = 0.03;
  auto r = run_lockstep("s1_mutant", c);
  ASSERT_TRUE(r.mismatch.has_value()) << "the mutant passed lockstep";
  EXPECT_GT(r.mismatch->cycle, 0u);
  EXPECT_FALSE(r.mismatch->signal.empty());
  EXPECT_EQ(r.mismatch->block, "tx");
  std::printf("mutant caught: cycle %llu signal %s rtl %llu model %llu\n", (unsigned long long)r.mismatch->cycle,
              r.mismatch->signal.c_str(), (unsigned long long)r.mismatch->rtl, (unsigned long long)r.mismatch->model);
}

}  // namespace
