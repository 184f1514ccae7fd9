// Block tests (label `block`) of sue_tx: the RTL of every compiled
// parameterization against its C++ model sue::TxModel, every output on every
// cycle, under the constrained-random environment of sue_tx_harness.hpp
// (commands of every length, bad transfers, random MAC ready and credit_ok,
// feedback with loss, go-back-N, RTOs, port deaths and failover, mid-run
// resets), with its independent frame checks (every frame decodes with
// sue::decode to the commands sent); the worked example of docs/sue.md byte
// for byte and cycle for cycle; and the mutant RTL (SUE_MUTANT) caught.
// SUE_TX_TRACE=1 prints one line per cycle (inputs, RTL/model queues, credits, PSNs) for debugging.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "common/vcontext.hpp"
#include "sue/sue_tx_block.hpp"
#include "sue/sue_tx_harness.hpp"
#include "sue/sue_tx_linerate.hpp"
#include "verilated.h"

namespace {

using namespace tb::sue_tb;

// SUE_TX_TRACE=1: one line per cycle (inputs, RTL and model queue/credit state).
class TraceBlock : public TxBlock {
 public:
  explicit TraceBlock(LockTx& l) : l_(l), on_(std::getenv("SUE_TX_TRACE") != nullptr) {}
  void drive(const sue::TxIn& in) override {
    in_ = in;
    l_.drive(in);
  }
  void posedge() override {
    l_.posedge();
    ++n_;
    if (!on_) return;
    const sue::TxOut r = l_.outputs(), m = l_.model().outputs();
    std::printf("%llu rst%d v%u c%u vc%u x%u err%d rdy%x cok%x up%x |", (unsigned long long)n_, in_.rst_n,
                in_.tx_valid, in_.tx_cycle, in_.tx_vc, in_.tx_xpuid, in_.tx_err, in_.mac_tx_ready, in_.credit_ok,
                in_.port_up);
    for (unsigned p = 0; p < sue::kMaxPorts; ++p)
      if (in_.fb[p].valid)
        std::printf(" fb%u{pe%u vc%u owe%u/%u rop%u/%u fo%u/%u}", p, in_.fb[p].peer, in_.fb[p].vc, in_.fb[p].owe,
                    in_.fb[p].owe_psn, in_.fb[p].rop, in_.fb[p].rapsn, in_.fb[p].fo, in_.fb[p].fo_port);
    std::printf(" | used %u/%u cr", r.pool_used, m.pool_used);
    for (size_t q = 0; q < r.tx_credit.size(); ++q)
      if (r.tx_credit[q] || m.tx_credit[q]) std::printf(" %zu:%u/%u", q, r.tx_credit[q], m.tx_credit[q]);
    std::printf(" | q%u %u/%u | c%u ack %u/%u npsn %u/%u inflight %u/%u", in_.dbg_q, r.dbg_q_count, m.dbg_q_count,
                in_.dbg_conn, r.dbg_ack_psn, m.dbg_ack_psn, r.dbg_npsn, m.dbg_npsn, r.dbg_inflight, m.dbg_inflight);
    std::printf("\n");
  }
  sue::TxOut outputs() const override { return l_.outputs(); }
  /// The twin (the harness reads every queue and connection from it; the RTL shows one on its debug ports).
  const sue::TxModel& model() const { return l_.model(); }

 private:
  LockTx& l_;
  bool on_;
  sue::TxIn in_;
  uint64_t n_ = 0;
};

struct Run {
  std::string fail;
  suetx::HarnessStats st;
  std::optional<tb::Mismatch> mismatch;
  uint64_t compared = 0;
  uint64_t pool_full_cycles = 0;  // edges after which the pool had no slack (no NEW PDU may form, no early credit)
  uint64_t rto_late = 0;          // RTOs one or more edges after their deadline (one per port and edge)
  uint64_t ack_by_count = 0;      // ACK-only jobs started by cfg_ack_count before cfg_ack_delay (RTL and twin agreeing)
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
  TraceBlock tr(*ls);
  suetx::Harness<TraceBlock> h(v->params, hc, tr);
  uint64_t cyc = 0;
  h.after_edge = [&]() {
    l->set_time(++cyc, 0);
    if (l->mismatch()) return false;
    if (ctx->gotError()) return false;
    if (!l->model().assertion().empty()) return false;
    ++r.compared;
    if (l->model().pool_slack() <= 0) ++r.pool_full_cycles;
    return true;
  };
  r.fail = h.run();
  r.st = h.stats();
  r.mismatch = l->mismatch();
  r.ack_by_count = l->model().ack_by_count();
  r.rto_late = l->model().rto_late();
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
              "window_full_cycles %llu window_bytes_full_cycles %llu max_inbytes %llu pool_full_cycles %llu ack_by_count %llu "
              "rto_late %llu\n",
              variant.c_str(), (unsigned long long)hc.seed, (unsigned long long)s.cycles,
              (unsigned long long)r.compared, (unsigned long long)s.frames, (unsigned long long)s.data_frames,
              (unsigned long long)s.new_pdus, (unsigned long long)s.rtx_pdus, (unsigned long long)s.mig_pdus,
              (unsigned long long)s.ack_only, (unsigned long long)s.fo_req, (unsigned long long)s.fo_ack,
              (unsigned long long)s.accepted, (unsigned long long)s.delivered, (unsigned long long)s.resets,
              (unsigned long long)s.deaths, (unsigned long long)s.lost_frames, (unsigned long long)s.max_inflight,
              (unsigned long long)s.window_full_cycles, (unsigned long long)s.window_bytes_full_cycles,
              (unsigned long long)s.max_inbytes, (unsigned long long)r.pool_full_cycles,
              (unsigned long long)r.ack_by_count, (unsigned long long)r.rto_late);
  return r;
}

// Where the lockstep caught a mutant.
[[maybe_unused]] void print_caught(const char* what, const Run& r) {
  std::printf("%s caught: cycle %llu signal %s rtl %llu model %llu\n", what, (unsigned long long)r.mismatch->cycle,
              r.mismatch->signal.c_str(), (unsigned long long)r.mismatch->rtl, (unsigned long long)r.mismatch->model);
}

[[maybe_unused]] void expect_busy(const Run& r, bool sue) {
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
  c.cycles = 150000;
  c.p_reset = 0.00003;
  return c;
}

// One connection per port (every command to peer 0, VC 0), commands of 0..40 bytes, 3 % of the DATA
// frames lost, feedback up to fb_delay edges late: the windows fill.
[[maybe_unused]] suetx::HarnessCfg narrow_lossy(uint64_t seed, unsigned fb_delay) {
  auto c = faults(seed);
  c.dlen_max = 40;
  c.p_loss = 0.03;
  c.fb_delay_max = fb_delay;
  c.narrow = true;
  return c;
}

#ifndef SUE_TX_LOCKSTEP_NIGHTLY
TEST(SueTxLockstep, S1) {
  auto c = faults(11);
  c.ack_count = 2;  // the count trigger on (the seed's draw, hop_count % 9, may be 0: off)
  auto r = run_lockstep("s1", c);
  EXPECT_EQ(r.fail, "");
  expect_busy(r, true);
  EXPECT_GT(r.ack_by_count, 0u);  // ACK-only frames sent by cfg_ack_count before their age, RTL = twin
  EXPECT_GT(r.rto_late, 0u);      // RTOs due together on the port fired one per edge, RTL = twin
}

TEST(SueTxLockstep, S1OneConnectionWindowFull) {
  auto c = narrow_lossy(12, 200);  // long feedback and one connection: the window fills
  c.ack_count = 0;  // the age alone (with the count drawn from this seed the window never fills)
  c.win_bytes = 0;  // the PDU window, not the byte window
  auto r = run_lockstep("s1", c);
  EXPECT_EQ(r.fail, "");
  expect_busy(r, true);
  EXPECT_GT(r.st.window_full_cycles, 0u);
}

// The byte window (cfg_win_bytes) binds before the PDU window: one connection per port, long feedback;
// s1 with 1,000 bytes, and s4 with 2,000 bytes, port deaths and MIGRATEs (a migrated PDU's P moves to the
// new port's connection). RTL = twin every cycle (dbg_inbytes_o included), no connection ever holds
// win_bytes + MaxPack bytes, every SUE_ASSERT check holds.
TEST(SueTxLockstep, ByteWindowBindsBeforeThePduWindow) {
  auto c = narrow_lossy(12, 200);
  c.ack_count = 0;
  c.win_bytes = 1000;
  auto r = run_lockstep("s1", c);
  EXPECT_EQ(r.fail, "");
  expect_busy(r, true);
  EXPECT_GT(r.st.window_bytes_full_cycles, 1000u);
  EXPECT_GE(r.st.max_inbytes, 1000u);
  EXPECT_EQ(r.st.window_full_cycles, 0u);  // the 64 PDUs of the PDU window never fill
  auto c4 = narrow_lossy(52, 300);  // seed 48 drew no MIGRATE once credits went back at the ingress
  c4.cycles = 60000;
  c4.p_death = 0.00008;
  c4.win_bytes = 2000;
  auto r4 = run_lockstep("s4", c4);
  EXPECT_EQ(r4.fail, "");
  EXPECT_GT(r4.st.window_bytes_full_cycles, 1000u);
  EXPECT_GT(r4.st.mig_pdus, 0u);
  EXPECT_GT(r4.st.deaths, 0u);
}

// Port deaths and failover on 2 ports; and NACKs(e) naming the connection's next unsent PSN (a receiver
// that saw every PDU, e.g. a stale NACK): in range, such a NACK acknowledges every PDU sent and starts no
// go-back-N (docs/sue.md "Feedback"); RTL = twin throughout.
TEST(SueTxLockstep, S2Failover) {
  auto c = faults(26);  // seed 21 drew no count-triggered ACK once credits went back at the ingress
  c.p_death = 0.00005;
  c.p_nack_next = 0.05;
  auto r = run_lockstep("s2", c);
  EXPECT_EQ(r.fail, "");
  expect_busy(r, true);
  EXPECT_GT(r.st.deaths, 0u);
  EXPECT_GT(r.st.fo_req, 0u);
  EXPECT_GT(r.ack_by_count, 0u);  // ACK-only frames sent by cfg_ack_count before their age, RTL = twin
  EXPECT_GT(r.st.nack_next, 50u);
}

TEST(SueTxLockstep, S4Failover) {
  auto c = faults(44);  // seed 41 drew no MIGRATE once s4 went to DataW 1024
  c.p_death = 0.00008;
  auto r = run_lockstep("s4", c);
  EXPECT_EQ(r.fail, "");
  expect_busy(r, true);
  EXPECT_GT(r.st.deaths, 0u);
  EXPECT_GT(r.st.mig_pdus, 0u);
  EXPECT_GT(r.ack_by_count, 0u);  // ACK-only frames sent by cfg_ack_count before their age, RTL = twin
}

// The ACK-delay lists of sue_tx at the largest delay, 65,535 edges (the 17-bit restart stamps wrap
// while entries wait), the count trigger off and no resets: owed ACKs wait in the lists through the
// traffic and leave by age in the long drain, RTL = twin every edge, and the RTL's assertion that
// each list holds exactly its port's owed ACKs not yet due holds every edge.
TEST(SueTxLockstep, S4AckDelayLongest) {
  auto c = faults(46);
  c.cycles = 100000;
  c.drain = 90000;
  c.full_drain = true;
  c.p_reset = 0.0;
  c.random_cfg = false;
  c.ack_count = 0;
  c.ack_delay = 65535;
  auto r = run_lockstep("s4", c);
  EXPECT_EQ(r.fail, "");
  EXPECT_GT(r.st.new_pdus, 500u);
  EXPECT_GT(r.st.ack_only_acks, 10u);  // ACKs (not NACKs) leave alone by age only: the count trigger is off
  EXPECT_EQ(r.ack_by_count, 0u);
  std::printf("  %llu ACK-only frames carrying an ACK after 65,535 edges owed\n",
              static_cast<unsigned long long>(r.st.ack_only_acks));
}

// Strict mode on 4 ports without failures: the harness checks every NEW PDU against the pin
// (own + peer XPU id + VC) mod 4, and the queues' pins spread over all four ports.
TEST(SueTxLockstep, S4StrictPinsSpread) {
  auto c = faults(42);
  c.cycles = 40000;
  c.random_cfg = false;
  c.strict = true;
  c.ack_count = 2;  // the count trigger on (the seed's draw may be 0: off)
  auto r = run_lockstep("s4", c);
  EXPECT_EQ(r.fail, "");
  EXPECT_GT(r.st.new_pdus, 500u);
  EXPECT_EQ(r.st.strict_new_ports, 0xfu);
  EXPECT_GT(r.ack_by_count, 0u);  // ACK-only frames sent by cfg_ack_count before their age, RTL = twin
}

// The shared command pool: one connection per port (all commands to peer 0, VC 0), short commands
// (many per PDU), long and lossy feedback and port deaths, so each queue's list through the pool is long,
// go-back-N and RTO resend PDUs by walking it, failover MIGRATEs walk it on the new port, and frees
// return slots out of allocation order (the lists interleave in the pool after the first resets).
TEST(SueTxLockstep, S4PoolListsGoBackNAndMigrate) {
  auto c = narrow_lossy(48, 300);  // seeds 43 (Window 64) and 46 (DataW 1024) drew no MIGRATE
  c.cycles = 100000;
  c.p_death = 0.00008;
  c.win_bytes = 0;  // the PDU window
  auto r = run_lockstep("s4", c);
  EXPECT_EQ(r.fail, "");
  EXPECT_GT(r.st.new_pdus, 500u);
  EXPECT_GT(r.st.rtx_pdus, 10u);
  EXPECT_GT(r.st.deaths, 0u);
  EXPECT_GT(r.st.mig_pdus, 0u);
  EXPECT_GT(r.st.window_full_cycles, 0u);  // the 64-PDU window fills too
}

// Commands to random XPUs of all the variant's XPU ids, lossy feedback, RTOs, port deaths and failover,
// resets with new random configurations: RTL = twin every cycle and every SUE_ASSERT check holds.
Run run_all_xpus(const std::string& variant, unsigned seed, uint64_t cycles = 40000) {
  auto c = faults(seed);
  c.cycles = cycles;
  c.p_death = 0.0001;
  auto r = run_lockstep(variant, c);
  EXPECT_EQ(r.fail, "");
  EXPECT_GT(r.st.new_pdus, 500u);
  EXPECT_GT(r.st.rtx_pdus, 10u);
  EXPECT_GT(r.st.deaths, 0u);
  return r;
}

// sue_tx at the spec's scale (variant x1024: 1,024 XPUs, 4 ports, 16,384 connections in the connection
// memory, DataW 1024); the RTO and ACK-delay lists and the flags against the memory on the debug port
// hold (SUE_ASSERT).
TEST(SueTxLockstep, X1024) {
  // (QCap 16: with shared-buffer credits the 4,096 queues hold up to the pool's slack of 16,384 commands,
  // nearly all to different XPUs, one command per PDU: the drain takes longer than 20,000 cycles)
  auto r = run_all_xpus("x1024", 81, 30000);
  EXPECT_GT(r.st.ack_only, 10u);
}

// An XPU count that is not a power of 2 (variant x12: 12 XPUs on 2 ports, 48 queues, 96 connections):
// the debug read ports are swept over all 64 queue and 128 connection indices their widths allow, the
// ones >= NQ, NC reading 0 in RTL and twin.
TEST(SueTxLockstep, X12NotPowerOfTwo) { run_all_xpus("x12", 12); }

// The retransmit store full (cover point c_pool_full): a pool of 256 slots, 128 of them for sent
// commands (QDepth 8 x 16 queues reserved for the credited ones), long and lossy feedback, so the
// unacknowledged commands reach the limit and NEW PDUs wait for frees; RTL and twin agree throughout.
TEST(SueTxLockstep, S1SmallPoolFills) {
  auto c = faults(71);
  c.cycles = 60000;
  c.dlen_max = 40;
  c.p_loss = 0.03;
  c.fb_delay_max = 400;
  auto r = run_lockstep("s1_pool256", c);
  EXPECT_EQ(r.fail, "");
  expect_busy(r, true);
  EXPECT_GT(r.pool_full_cycles, 100u);
}

// Shared-buffer credits at the pool's limit (docs/sue.md "Shared-buffer credits"), directed, on the small
// pool (s1_pool256: Pool 256, QDepth 8, QCap 32, 16 queues; slack 128 at reset): with the gate closed the
// XPU fills queue {XPU 0, VC 0} (24 credits back at once, 8 deferred), then other queues until the slack is
// 2. When the gate opens, that queue's PDU packs only n <= slack + u - df = 2 + 32 - 8 = 26 of its 32
// commands and takes back exactly the 2 deferred credits it must (max(0, n + df - u) = 2: the slack bounds
// min(n, df) = 8). RTL = twin every cycle.
TEST(SueTxLockstep, SlackBoundsThePackingAndTheCreditsAPduTakesBack) {
  const TxVariant* v = find_tx_variant("s1_pool256");
  ASSERT_NE(v, nullptr);
  ASSERT_EQ(v->params.q_cap(), 32u);
  VerilatedContext* ctx = tb::shared_context();
  ctx->assertOn(true);
  auto ls = make_tx_lockstep(make_tx_rtl(*v, ctx, "tx", nullptr), v->params, "tx");
  const sue::TxModel& m = ls->model();
  sue::TxIn in;
  in.cfg.own_xpuid = 3;
  in.cfg.rto = 100000, in.cfg.ack_delay = 1000, in.cfg.fo_retry = 1000;
  in.port_up = 1, in.mac_tx_ready = 1, in.credit_ok = 0;
  in.rst_n = false;
  ls->drive(in);
  ls->posedge();
  in.rst_n = true;
  std::vector<unsigned> credits(v->params.nq(), v->params.qdepth);
  auto edge = [&](int q) {  // one edge; a 0-byte command to queue q if q >= 0
    sue::TxIn x = in;
    if (q >= 0) x.tx_valid = 1, x.tx_xpuid = static_cast<uint32_t>(q / 4), x.tx_vc = static_cast<uint32_t>(q % 4);
    ls->drive(x);
    ls->posedge();
    for (unsigned k = 0; k < credits.size(); ++k) credits[k] += ls->outputs().tx_credit[k];
  };
  ASSERT_EQ(m.pool_slack(), 128);
  // queue 0 first, then queues 1, 2, ... until the slack is 2 (each early credit takes one)
  for (unsigned q = 0; q < 12 && m.pool_slack() > 2; ++q) {
    while (credits[q] && m.pool_slack() > 2) {
      --credits[q];
      edge(static_cast<int>(q));
    }
  }
  ASSERT_EQ(m.pool_slack(), 2);
  ASSERT_EQ(m.q_unsent(0), 32u);
  ASSERT_EQ(credits[0], 0u);
  const unsigned sdf0 = m.credits_deferred();
  // the gate opens: queue 0's PDU (WRR from VC 0, peer 0) packs 26 commands and takes back 2 credits
  in.credit_ok = 0xf;
  edge(-1);
  EXPECT_EQ(m.q_unsent(0), 32u - 26u);
  EXPECT_EQ(ls->outputs().cnt[sue::TxCnt::cmds_sent], 26u);
  EXPECT_EQ(m.credits_deferred(), sdf0 - 2);
  EXPECT_EQ(m.pool_slack(), 0);
  for (int e = 0; e < 200; ++e) edge(-1);  // nothing more forms: no slack until an ACK frees slots
  EXPECT_EQ(ls->outputs().cnt[sue::TxCnt::pdus_new], 1u);
  EXPECT_EQ(credits[0], 2u);
  EXPECT_FALSE(ls->mismatch().has_value()) << ls->mismatch()->signal << " at cycle " << ls->mismatch()->cycle;
  EXPECT_FALSE(ctx->gotError());
}

TEST(SueTxLockstep, Lite) {
  auto r = run_lockstep("lite", faults(51));
  EXPECT_EQ(r.fail, "");
  expect_busy(r, false);
}

// docs/sue.md "Worked example": the RTL, cycle for cycle and byte for byte (the model is compared
// alongside on every output).
TEST(SueTxFrames, WorkedExampleRtl) {
  const TxVariant* v = find_tx_variant("s1");
  ASSERT_NE(v, nullptr);
  VerilatedContext* ctx = tb::shared_context();
  auto ls = make_tx_lockstep(make_tx_rtl(*v, ctx, "tx", nullptr), v->params, "tx");
  sue::TxIn in;
  in.cfg.own_xpuid = 1;
  in.port_up = 1, in.mac_tx_ready = 1;
  in.rst_n = false;
  ls->drive(in);
  ls->posedge();
  in.rst_n = true;
  // per table edge 0..10: mac_tx valid, sof, eof, nbytes after the edge
  struct Row { unsigned valid, sof, eof, nbytes; };
  const Row rows[11] = {{0, 0, 0, 0},  {0, 0, 0, 0},  {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 1, 0, 32}, {1, 0, 0, 32},
                        {1, 0, 0, 32}, {1, 0, 1, 2},  {0, 0, 1, 2}, {0, 0, 1, 2}, {0, 0, 1, 2}};
  std::vector<uint8_t> frame;
  for (unsigned e = 0; e <= 10; ++e) {
    sue::TxIn x = in;
    x.credit_ok = e >= 2 ? 1 : 0;
    if (e == 0) {
      x.tx_valid = 1, x.tx_xpuid = 2, x.tx_control[0] = 0x01, x.tx_control[17] = 0xaa;
    } else if (e == 1) {
      x.tx_valid = 2, x.tx_xpuid = 2, x.tx_control[0] = 0x02, x.tx_control[1] = 0x02, x.tx_control[17] = 0xbb;
      for (unsigned j = 0; j < 32; ++j) x.tx_data[j] = static_cast<uint8_t>(j);
    }
    x.dbg_q = 8, x.dbg_conn = 8;  // the debug read ports show queue {XPU 2, VC 0} and its connection on port 0
    const sue::TxOut before = ls->outputs();
    if (before.mac_tx_valid & 1)
      frame.insert(frame.end(), before.mac_tx_data[0].begin(), before.mac_tx_data[0].begin() + before.mac_tx_nbytes[0]);
    ls->drive(x);
    ls->posedge();
    const sue::TxOut o = ls->outputs();
    EXPECT_EQ(o.mac_tx_valid, rows[e].valid) << "edge " << e;
    EXPECT_EQ(o.mac_tx_sof, rows[e].sof) << "edge " << e;
    EXPECT_EQ(o.mac_tx_eof, rows[e].eof) << "edge " << e;
    EXPECT_EQ(o.mac_tx_nbytes[0], rows[e].nbytes) << "edge " << e;
    if (e == 1) {
      EXPECT_EQ(o.dbg_q_unsent, 2u);  // queue {XPU 2, VC 0}
      EXPECT_EQ(o.dbg_q_count, 2u);
      EXPECT_EQ(o.pool_used, 2u);
    }
    if (e == 2) {
      EXPECT_EQ(o.dbg_npsn, 1u);
      EXPECT_EQ(o.out_bytes[0], 72u);
    }
  }
  EXPECT_FALSE(ls->mismatch().has_value());
  EXPECT_FALSE(ctx->gotError());
  EXPECT_EQ(ls->outputs().cnt[sue::TxCnt::frames_out], 1u);
  EXPECT_EQ(ls->outputs().cnt[sue::TxCnt::bytes_out], 98u);
  ASSERT_EQ(frame.size(), 98u);
  const std::vector<uint8_t> head = {0x02, 0x08, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x88, 0xb6,
                                     0,    0x01, 0, 0, 0, 0, 0, 0, 0x00, 0x12, 0x01};
  EXPECT_EQ(std::vector<uint8_t>(frame.begin(), frame.begin() + 25), head);
  EXPECT_EQ(frame[42], 0x80);
  EXPECT_EQ(frame[43], 0x32);
  const uint32_t rc = sue::rcrc32(frame.data() + 14, 80);
  EXPECT_EQ(frame[94], rc >> 24);
  EXPECT_EQ(frame[95], (rc >> 16) & 0xff);
  EXPECT_EQ(frame[96], (rc >> 8) & 0xff);
  EXPECT_EQ(frame[97], rc & 0xff);
  std::vector<uint8_t> w = frame;
  w.resize(w.size() + 4);
  const uint32_t fcs = sue::fcs32(frame.data(), frame.size());
  for (int k = 0; k < 4; ++k) w[98 + k] = static_cast<uint8_t>(fcs >> (8 * k));
  sue::DecodeOptions opt;
  opt.encap = sue::Encap::AfhGen2_12;
  auto d = sue::decode(w, opt);
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(d.value().frame.rh.npsn, 0u);
  ASSERT_EQ(d.value().frame.cmds.size(), 2u);
  EXPECT_EQ(d.value().frame.cmds[1].size(), 50u);
}

// One run of the line-rate stimulus (tests/sue/sue_tx_linerate.hpp) on variant v in lockstep: the RTL and
// the model agree every cycle and no assertion fires; returns what the ports sent.
txstim::LineRate linerate_lockstep(const TxVariant& v, unsigned dlen, const std::string& what) {
  VerilatedContext* ctx = tb::shared_context();
  ctx->assertOn(true);
  auto ls = make_tx_lockstep(make_tx_rtl(v, ctx, "tx", nullptr), v.params, "tx");
  LockTx* l = ls.get();
  uint64_t cyc = 0;
  const txstim::LineRate r = txstim::run_linerate(*ls, v.params, dlen, 4, 1500, 4000, [&] {
    l->set_time(++cyc, 0);
    return !l->mismatch() && !ctx->gotError() && l->model().assertion().empty();
  });
  EXPECT_FALSE(l->mismatch().has_value()) << what << ": " << l->mismatch()->signal << " at cycle "
                                          << l->mismatch()->cycle;
  EXPECT_FALSE(ctx->gotError()) << what;
  EXPECT_TRUE(r.error.empty()) << what << ": " << r.error;
  EXPECT_GT(r.cmds, 400u) << what;
  return r;
}

// The line-rate stimulus of SueTxModel.LineRateOnePort400G in lockstep (docs/sue.md step 5
// "Builders"): one port at 400 Gb/s, s1 and Lite; the RTL and the model agree every cycle and what
// the port sends takes at least the 31.25 wire bytes per edge of 400 Gb/s.
TEST(SueTxLockstep, LineRateOnePort400G) {
  for (const char* name : {"s1", "lite"}) {
    const TxVariant* v = find_tx_variant(name);
    ASSERT_NE(v, nullptr) << name;
    for (unsigned dlen : {64u, 128u, 256u, txstim::kMix}) {
      const std::string what = std::string(name) + " " + (dlen ? std::to_string(dlen) : "mix");
      const txstim::LineRate r = linerate_lockstep(*v, dlen, what);
      EXPECT_GE(r.per_edge, txstim::kWire400GBytesPerEdge)
          << what << ": " << r.wire << " wire bytes in " << r.window << " edges";
      std::printf("  %s: %.2f wire bytes per edge in lockstep (400 Gb/s: 31.25)\n", what.c_str(), r.per_edge);
    }
  }
}

// The 800G instance s2 (two 400G ports, DataW 1024: DB = 128 bytes per XPU beat) at line rate in
// lockstep (SueTxModel.LineRateTwoPorts800GDataW1024): command chunks of up to 148 bytes and first
// chunks of 170 go through the RTL builder byte-exact, every cycle equal to the model, both ports at
// 400 Gb/s with 64, 128, 256-byte commands and the mix.
TEST(SueTxLockstep, LineRateTwoPorts800GDataW1024) {
  const TxVariant* v = find_tx_variant("s2");
  ASSERT_NE(v, nullptr);
  ASSERT_EQ(v->params.data_w, 1024u);
  for (unsigned dlen : {64u, 128u, 256u, txstim::kMix}) {
    const std::string what = std::string("s2 ") + (dlen ? std::to_string(dlen) : "mix");
    const txstim::LineRate r = linerate_lockstep(*v, dlen, what);
    EXPECT_GE(r.per_edge, txstim::kWire400GBytesPerEdge) << what << ": " << r.wire << " wire bytes in " << r.window
                                                          << " edges on 2 ports";
    if (dlen == txstim::kMix) {
      EXPECT_GE(r.goodput, 29.5) << what;
    }
    std::printf("  %s: %.2f wire bytes, %.2f command bytes per edge and port in lockstep (400 Gb/s: 31.25)\n",
                what.c_str(), r.per_edge, r.goodput);
  }
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
  print_caught("mutant", r);
}

// The timer lists' mutants (RTL only; the twin is right): an owed ACK due one edge late, and the failover
// retry one edge late. The lockstep catches each, naming the cycle and the output.
TEST(SueMutant, AckDelayListCaught) {
  auto c = faults(11);
  c.p_reset = 0;
  c.ack_count = 0;  // ACK-only frames by age only
  auto r = run_lockstep("s1_ack_mutant", c);
  ASSERT_TRUE(r.mismatch.has_value()) << "the ACK-delay mutant passed lockstep";
  EXPECT_EQ(r.mismatch->block, "tx");
  print_caught("ACK-delay mutant", r);
}

// The RTO lists: a head due one edge late (SUE_MUTANT_RTO) must be caught. Lossy feedback and the
// harness's RTO draws (1..3 edges at times) make RTOs frequent.
TEST(SueMutant, RtoListCaught) {
  auto c = faults(13);
  c.p_loss = 0.05;
  auto r = run_lockstep("s1_rto_mutant", c);
  ASSERT_TRUE(r.mismatch.has_value()) << "the RTO-list mutant passed lockstep";
  EXPECT_EQ(r.mismatch->block, "tx");
  print_caught("RTO-list mutant", r);
}

TEST(SueMutant, FoRetryFifoCaught) {
  auto c = faults(44);
  c.p_reset = 0.0001;  // each reset brings the dead port back, so ports die again and again
  c.p_death = 0.0005;
  c.p_fo_loss = 0.7;   // most FO-ACK answers lost: FO-REQs are retried
  auto r = run_lockstep("s2_fo_mutant", c);
  ASSERT_TRUE(r.mismatch.has_value()) << "the failover-retry mutant passed lockstep";
  EXPECT_EQ(r.mismatch->block, "tx");
  EXPECT_GT(r.st.deaths, 0u);
  print_caught("failover-retry mutant", r);
}

#else
// Nightly (test_sue_tx_lockstep_nightly, label nightly): 20 seeds of each multi-purpose variant with every
// fault the harness has at once: lossy frames and feedback, RTOs, port deaths and failover (2 and 4 ports),
// NACKs naming the next unsent PSN, random byte windows, mid-run resets with new configurations. RTL = twin
// every cycle, every SUE_ASSERT check, and the drain leaves nothing behind.
class SueTxLockstepSweep : public testing::TestWithParam<std::tuple<const char*, int>> {};

TEST_P(SueTxLockstepSweep, AllFaultsRtlEqualsTwinAndNothingLeft) {
  const std::string v = std::get<0>(GetParam());
  auto c = faults(1000 + static_cast<uint64_t>(std::get<1>(GetParam())));
  c.p_death = v == "s1" ? 0.0 : 0.00005;
  c.p_nack_next = 0.05;
  auto r = run_lockstep(v, c);
  EXPECT_EQ(r.fail, "");
  EXPECT_GT(r.st.new_pdus, 500u);
  EXPECT_GT(r.st.nack_next, 0u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, SueTxLockstepSweep,
                         testing::Combine(testing::Values("s1", "s2", "s4"), testing::Range(0, 20)));
#endif

}  // namespace
