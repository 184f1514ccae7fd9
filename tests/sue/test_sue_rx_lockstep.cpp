// sue_rx RTL against its C++ model, every output every cycle (label `block`),
// for each compiled configuration, under constrained-random frames (good and
// damaged in every checked field, gaps, duplicates, FO frames, cuts, stray
// beats), random XPU credits with hold phases, port deaths and mid-run resets.
// Beside the lockstep an independent reference (tests/sue/sue_rx_scenario.hpp)
// predicts every verdict, feedback pulse, counter and XPU command. The mutant
// (SUE_MUTANT: a NACK for every out-of-order PDU) must be caught.
#include <gtest/gtest.h>

#include "common/vcontext.hpp"
#include "sue/sue_rx_block.hpp"
#include "sue_rx_linerate.hpp"
#include "sue_rx_scenario.hpp"
#include "verilated.h"

namespace {

using tb::sue_tb::LockRx;

// The lockstep pair with the cycle stamped before each edge.
struct Stamped {
  LockRx& l;
  uint64_t cycle = 0;
  void drive(const sue::RxIn& in) { l.drive(in); }
  void posedge() {
    l.set_time(cycle, static_cast<core::Ps>(cycle * 625));
    ++cycle;
    l.posedge();
  }
  sue::RxOut outputs() const { return l.outputs(); }
};

struct RxRun {
  rxstim::Outcome out;
  std::optional<tb::Mismatch> mismatch;
  bool rtl_error = false;
};

RxRun run(const std::string& variant, uint64_t seed, const rxstim::Knobs& k) {
  RxRun r;
  const tb::sue_tb::RxVariant* v = tb::sue_tb::find_rx_variant(variant);
  EXPECT_NE(v, nullptr) << variant;
  if (!v) return r;
  VerilatedContext* ctx = tb::shared_context();
  auto lock = tb::sue_tb::make_rx_lockstep(tb::sue_tb::make_rx_rtl(*v, ctx, "rx", nullptr), v->params, "rx");
  Stamped s{*lock};
  r.out = rxstim::run_scenario(s, v->params, seed, k, [&](uint64_t) {
    return !lock->mismatch() && !ctx->gotError();
  });
  r.mismatch = lock->mismatch();
  r.rtl_error = ctx->gotError();
  return r;
}

std::string describe(const RxRun& r) {
  std::string s;
  if (r.mismatch)
    s += fmt::format("mismatch at cycle {}: {} rtl {} model {}\n", r.mismatch->cycle, r.mismatch->signal,
                     r.mismatch->rtl, r.mismatch->model);
  if (r.rtl_error) s += "RTL assertion failed (see the %Error line)\n";
  for (auto& e : r.out.errors) s += e + "\n";
  return s;
}

void expect_clean(const RxRun& r) {
  EXPECT_FALSE(r.mismatch) << describe(r);
  EXPECT_FALSE(r.rtl_error) << describe(r);
  EXPECT_TRUE(r.out.errors.empty()) << describe(r);
  EXPECT_GT(r.out.dbg_checked, 0u) << "the debug read port was never checked";
  std::printf("  %s\n", fmt::format("{} cycles in lockstep, {} frames, {} accepted, {} commands checked, {} NACKs, "
                                     "{} FO answers, {} resets, {} deaths, {} ready-low beat cycles, {} debug reads "
                                     "checked ({} with exp != 0)",
                                     r.out.cycles, r.out.frames, r.out.accepted, r.out.cmds_checked, r.out.nacks,
                                     r.out.fo_answered, r.out.resets, r.out.deaths, r.out.ready_low, r.out.dbg_checked,
                                     r.out.dbg_nonzero)
                             .c_str());
}

// Every verdict path was taken at least once.
void expect_coverage(const RxRun& r, bool lite) {
  using K = sue::RxCnt;
  std::vector<unsigned> must = {K::frames_in, K::drop_mac, K::drop_malformed, K::drop_hdr, K::stray_beats, K::cmds_out};
  if (lite) {
    must.push_back(K::lite_ok);
  } else {
    for (unsigned k : {K::pdus_ok, K::ack_frames, K::fo_frames, K::drop_rcrc, K::drop_psn, K::drop_dup, K::nack_owed})
      must.push_back(k);
  }
  for (unsigned k : must) EXPECT_GT(r.out.cnt[k], 0u) << "never counted: " << sue::rx_counter_name(k);
  if (!lite) EXPECT_GT(r.out.dbg_nonzero, 0u) << "the debug port never showed a connection with exp != 0";
}

rxstim::Knobs stress(uint64_t cycles) {
  rxstim::Knobs k;
  k.cycles = cycles;
  return k;
}

TEST(SueRxLockstep, S1) {
  RxRun r = run("s1", 1, stress(600000));
  expect_clean(r);
  expect_coverage(r, false);
}

TEST(SueRxLockstep, S1OtherSeeds) {
  for (uint64_t seed : {2, 3, 4, 5}) {
    rxstim::Knobs k = stress(150000);
    k.max_cmds = seed == 3 ? 20 : 6;  // long PDUs too
    RxRun r = run("s1", seed, k);
    expect_clean(r);
  }
}

TEST(SueRxLockstep, S2) {
  RxRun r = run("s2", 5, stress(400000));
  expect_clean(r);
  expect_coverage(r, false);
  EXPECT_GT(r.out.cnt[sue::RxCnt::fo_req_deferred], 0u);
  EXPECT_GT(r.out.fo_answered, 0u);
}

TEST(SueRxLockstep, S4) {
  RxRun r = run("s4", 6, stress(300000));
  expect_clean(r);
  expect_coverage(r, false);
  EXPECT_GT(r.out.fo_answered, 0u);
}

// The spec's scale: 1,024 XPUs on 4 ports (16,384 connections in the connection memory, 16 per
// XPU), frames from every XPU id but the own one, the debug port read against the reference every cycle.
TEST(SueRxLockstep, X1024) {
  rxstim::Knobs k = stress(300000);
  RxRun r = run("x1024", 8, k);
  expect_clean(r);
  expect_coverage(r, false);
}

TEST(SueRxLockstep, Lite) {
  RxRun r = run("lite", 7, stress(400000));
  expect_clean(r);
  expect_coverage(r, true);
  for (unsigned k : {sue::RxCnt::pdus_ok, sue::RxCnt::drop_psn, sue::RxCnt::fo_frames, sue::RxCnt::ack_frames})
    EXPECT_EQ(r.out.cnt[k], 0u) << sue::rx_counter_name(k);
}

// The XPU holds its credits for long stretches at full load: buffer and records fill,
// mac_rx_ready falls, nothing is lost.
TEST(SueRxLockstep, XpuBackpressure) {
  rxstim::Knobs k = stress(60000);
  k.load = 1.0;
  k.gap = 0.0;
  k.hold = 0.002;
  k.credit_ret = 0.05;
  k.credits = 2;
  k.deaths = false;
  RxRun r = run("s2", 8, k);
  expect_clean(r);
  EXPECT_GT(r.out.cmds_checked, 500u);
  EXPECT_GT(r.out.ready_low, 1000u);  // mac_rx_ready fell: the MAC was backpressured
}

// 70,000 in-order PDUs on one connection: the expected PSN wraps at 2^16.
TEST(SueRxLockstep, PsnWrap) {
  rxstim::Knobs k;
  k.cycles = 420000;
  k.only_good = true;
  k.one_conn = true;
  k.max_cmds = 1;
  k.gap = 0.0;
  k.load = 1.0;
  k.credit_ret = 1.0;
  k.hold = 0.0;
  k.deaths = false;
  k.resets = false;
  RxRun r = run("s1", 9, k);
  expect_clean(r);
  EXPECT_GT(r.out.accepted, 65536u);
}

// Line rate in lockstep (docs/sue.md "Unpacker"): back-to-back one-command frames on every port at one
// MAC beat per cycle; the RTL and the model agree every cycle and the XPU interface carries what the
// ports offer, a beat every cycle where they offer more (s4, s2 with 128/256-byte commands).
TEST(SueRxLockstep, LineRate) {
  for (const char* name : {"s4", "s1", "s2"}) {
    const tb::sue_tb::RxVariant* v = tb::sue_tb::find_rx_variant(name);
    ASSERT_NE(v, nullptr) << name;
    for (unsigned dlen : {64u, 128u, 256u}) {
      VerilatedContext* ctx = tb::shared_context();
      auto lock = tb::sue_tb::make_rx_lockstep(tb::sue_tb::make_rx_rtl(*v, ctx, "rx", nullptr), v->params, "rx");
      Stamped s{*lock};
      rxstim::LineRate r = rxstim::run_linerate(s, v->params, dlen, 1500, 4000,
                                                [&] { return !lock->mismatch() && !ctx->gotError(); });
      RxRun rr;
      rr.mismatch = lock->mismatch();
      rr.rtl_error = ctx->gotError();
      EXPECT_FALSE(rr.mismatch) << name << " " << dlen << ": " << describe(rr);
      EXPECT_FALSE(rr.rtl_error) << name << " " << dlen;
      EXPECT_TRUE(r.error.empty()) << name << " " << dlen << ": " << r.error;
      EXPECT_GE(r.util, r.need - 0.005) << name << " dlen " << dlen << ": " << r.beats_out << " XPU beats in "
                                        << r.window << " cycles, the ports offer " << r.offered << " a cycle";
      if (r.offered >= 1) EXPECT_GE(r.util, 0.995) << name << " " << dlen;
      EXPECT_GT(r.cmds, 300u);
      std::printf("  %s dlen %u: %.4f XPU beats/cycle in lockstep (ports offer %.3f)\n", name, dlen, r.util, r.offered);
    }
  }
}

// The deliberately broken RTL (SUE_MUTANT: a NACK for every out-of-order PDU, not one per gap) is
// caught by the lockstep, naming the cycle and the port.
TEST(SueMutant, RxCaughtWithCycleAndSignal) {
  rxstim::Knobs k = stress(40000);
  k.ahead = 0.4;
  RxRun r = run("s1_rx_mutant", 10, k);
  ASSERT_TRUE(r.mismatch) << "the mutant passed lockstep";
  EXPECT_GT(r.mismatch->cycle, 0u);
  EXPECT_EQ(r.mismatch->block, "rx");
  EXPECT_EQ(r.mismatch->signal, "fb_owe_o[0]") << describe(r);
  EXPECT_EQ(r.mismatch->rtl, 2u);  // NACK
  EXPECT_EQ(r.mismatch->model, 0u);
}

}  // namespace
