// Unit tests of the ordering-protocol endpoints (uet/, docs/ordering.md): directed
// scenarios of the paper's sequence diagrams with exact values, then randomized
// multi-source runs with faults that prove the checker's invariants.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "uet/ordering.hpp"

namespace {

using namespace uet;

// One source, one target, a deterministic network (no jitter, no long path).
SystemParams directed(unsigned sources = 1, unsigned targets = 1) {
  SystemParams p;
  p.sources = sources;
  p.targets = targets;
  p.net.base_latency = 100;
  p.net.jitter = 0;
  p.net.skew = 0;
  p.net.p_long = 0;
  p.net.flits = 16;
  p.net.ctrl_flits = 1;
  p.tgt.mem_latency = 20;
  p.src.req_timeout = 5000;
  p.src.fin_timeout = 5000;
  p.net.lifetime = 2000;
  p.src.retry_delay = 200;
  p.work.transfers_per_source = 0;
  p.max_cycles = 200000;
  return p;
}

// Round trip of one REQ and its ACK on the directed network:
// REQ 16 + 100 + 16 (target link), memory 20, ACK 1 + 100 + 1.
constexpr uint64_t kRtt = 16 + 100 + 16 + 20 + 1 + 100 + 1;

struct Trace {
  std::vector<std::pair<uint64_t, Packet>> sent, delivered, dropped;
  void attach(Network& n) {
    n.observer = [this](uint64_t now, const Packet& p, Network::Event e) {
      if (e == Network::Event::Sent) sent.push_back({now, p});
      if (e == Network::Event::Delivered) delivered.push_back({now, p});
      if (e == Network::Event::Dropped) dropped.push_back({now, p});
    };
  }
  std::vector<uint64_t> sent_at(PktType t) const {
    std::vector<uint64_t> v;
    for (auto& [c, p] : sent)
      if (p.type == t) v.push_back(c);
    return v;
  }
  std::vector<uint32_t> delivered_seqs(PktType t) const {
    std::vector<uint32_t> v;
    for (auto& [c, p] : delivered)
      if (p.type == t) v.push_back(p.seq);
    return v;
  }
};

std::vector<unsigned> exec_indices(const OrderingSystem& s, uint64_t tid) {
  std::vector<unsigned> v;
  for (const auto& e : s.executions())
    if (e.transfer == tid) v.push_back(e.index);
  return v;
}

// ------------------------------------------------------------------ slow mode

TEST(UetSlow, OneAtATimeNeverTwoOutstanding) {
  OrderingSystem sys(directed());
  Trace tr;
  tr.attach(sys.network());
  const uint64_t t = sys.add_transfer(0, 0, XferKind::Ordered, /*fast=*/false, false, 5);
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(r.src.max_inflight_slow, 1u);
  EXPECT_EQ(r.src.slow_started, 1u);
  EXPECT_EQ(r.src.fins_sent, 0u);  // no connection, nothing to close
  EXPECT_EQ(r.tgt.direct, 5u);
  EXPECT_EQ(r.tgt.delivered + r.tgt.held, 0u);  // the ROB is not involved
  EXPECT_EQ(exec_indices(sys, t), (std::vector<unsigned>{0, 1, 2, 3, 4}));
  // REQ i+1 leaves exactly when the ACK of REQ i arrives: one round trip apart.
  EXPECT_EQ(tr.sent_at(PktType::Req), (std::vector<uint64_t>{0, kRtt, 2 * kRtt, 3 * kRtt, 4 * kRtt}));
  EXPECT_EQ(sys.completed_at(t), 5 * kRtt);
  EXPECT_EQ(r.src.req_timeouts, 0u);
  for (const auto& [c, p] : tr.sent)
    if (p.type == PktType::Req) {
      EXPECT_EQ(p.cid, kNoCid);
      EXPECT_FALSE(p.con());
    }
}

TEST(UetSlow, LostAckTimeoutResendDeliveredTwice) {
  OrderingSystem sys(directed());
  bool dropped = false;
  sys.network().drop_hook = [&](const Packet& p) {
    if (p.type == PktType::Ack && p.seq == 1 && !dropped) return dropped = true;
    return false;
  };
  Trace tr;
  tr.attach(sys.network());
  const uint64_t t = sys.add_transfer(0, 0, XferKind::Ordered, false, false, 3);
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(r.src.req_timeouts, 1u);
  EXPECT_EQ(r.src.reqs_resent, 1u);
  // REQ 1 reaches the target memory twice: allowed without EOD (Fig. 4).
  EXPECT_EQ(exec_indices(sys, t), (std::vector<unsigned>{0, 1, 1, 2}));
  EXPECT_EQ(r.slow_duplicate_deliveries, 1u);
  const auto reqs = tr.sent_at(PktType::Req);
  ASSERT_EQ(reqs.size(), 4u);
  EXPECT_EQ(reqs[2], reqs[1] + 5000);  // the resend, one req_timeout after REQ 1
  EXPECT_EQ(reqs[3], reqs[2] + kRtt);
}

// ------------------------------------------------------------------ fast mode

TEST(UetFast, BurstReorderInOrderDeliveryFinFreesState) {
  OrderingSystem sys(directed());
  // REQ 0 takes a long path: REQs 1..7 arrive first and wait in the ROB.
  // ACK 1 is slow: ACKs arrive out of order at the source.
  sys.network().delay_hook = [](const Packet& p) -> uint64_t {
    if (p.type == PktType::Req && p.seq == 0) return 400;
    if (p.type == PktType::Ack && p.seq == 1) return 300;
    return 0;
  };
  Trace tr;
  tr.attach(sys.network());
  uint64_t fin_at = 0;
  std::vector<std::string> events;
  sys.source(0).on_event = [&](const Transfer&, const std::string& what, uint64_t now) {
    events.push_back(what);
    if (what == "fin") fin_at = now;
  };
  const uint64_t t = sys.add_transfer(0, 0, XferKind::Ordered, true, false, 8);
  // Mid-run: all 8 REQs are out before the first ACK returns (a burst).
  while (sys.now() < 200) sys.step();
  EXPECT_EQ(tr.sent_at(PktType::Req), (std::vector<uint64_t>{0, 16, 32, 48, 64, 80, 96, 112}));
  EXPECT_EQ(sys.source(0).cids_in_use(), 1u);
  EXPECT_EQ(sys.target(0).conns_open(), 1u);  // opened by REQ 1 (no SYN): speculative
  // REQ i >= 1 reaches the ROB at 16 i + 132: REQs 1..4 by cycle 199, all held.
  EXPECT_EQ(sys.target(0).rob_outputs().occupancy, 4u);
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(exec_indices(sys, t), (std::vector<unsigned>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(r.tgt.delivered, 1u);
  EXPECT_EQ(r.tgt.held, 7u);
  EXPECT_EQ(r.tgt.released, 7u);
  // ACKs: 0 first, then 2..7, then 1.
  EXPECT_EQ(tr.delivered_seqs(PktType::Ack), (std::vector<uint32_t>{0, 2, 3, 4, 5, 6, 7, 1}));
  EXPECT_GE(r.src.acks_out_of_order, 1u);
  // FIN only after the last ACK (ACK 1) was paired, not after ACK 7.
  uint64_t last_ack = 0;
  for (auto& [c, p] : tr.delivered)
    if (p.type == PktType::Ack) last_ack = std::max(last_ack, c);
  EXPECT_EQ(fin_at, last_ack);
  EXPECT_EQ(r.src.fins_sent, 1u);
  EXPECT_EQ(r.src.fin_acks, 1u);
  EXPECT_EQ(r.tgt.fin_done, 1u);
  // FIN-ACK freed the CID and the target connection.
  EXPECT_EQ(sys.source(0).cids_in_use(), 0u);
  EXPECT_EQ(sys.target(0).conns_open(), 0u);
  EXPECT_EQ(sys.target(0).rob_outputs().conns, 0u);
  EXPECT_EQ(r.src.req_timeouts, 0u);
  EXPECT_EQ(events.front(), "start fast cid=0");
  EXPECT_EQ(events.back(), "done");
  // SYN on the first REQ only, CON on all.
  for (auto& [c, p] : tr.sent)
    if (p.type == PktType::Req) {
      EXPECT_EQ(p.syn(), p.seq == 0);
      EXPECT_TRUE(p.con());
      EXPECT_EQ(p.cid, 0u);
    }
}

TEST(UetFast, LostAckNeverDeliveredTwice) {
  OrderingSystem sys(directed());
  bool dropped = false;
  sys.network().drop_hook = [&](const Packet& p) {
    if (p.type == PktType::Ack && p.seq == 2 && !dropped) return dropped = true;
    return false;
  };
  const uint64_t t = sys.add_transfer(0, 0, XferKind::Ordered, true, false, 4);
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(r.src.req_timeouts, 1u);
  EXPECT_EQ(r.tgt.duplicates, 1u);
  EXPECT_EQ(r.tgt.dup_reacked, 1u);  // acknowledged again, not executed again
  EXPECT_EQ(exec_indices(sys, t), (std::vector<unsigned>{0, 1, 2, 3}));
  EXPECT_EQ(r.slow_duplicate_deliveries, 0u);
}

TEST(UetFast, OutstandingLimitRespected) {
  SystemParams p = directed();
  p.src.max_outstanding = 4;
  OrderingSystem sys(p);
  Trace tr;
  tr.attach(sys.network());
  const uint64_t t = sys.add_transfer(0, 0, XferKind::Ordered, true, false, 20);
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(r.src.max_outstanding, 4u);
  // REQs 0..3 go out back to back, REQ 4 only when ACK 0 is back (one round trip plus
  // the cycle the ROB takes to answer: its outputs are registers).
  const auto reqs = tr.sent_at(PktType::Req);
  ASSERT_EQ(reqs.size(), 20u);
  EXPECT_EQ(reqs[3], 48u);
  EXPECT_EQ(reqs[4], kRtt + 1);
  EXPECT_EQ(exec_indices(sys, t).size(), 20u);
}

TEST(UetFast, NoTimeoutsWithoutFaults) {
  SystemParams p;
  p.sources = 8;
  p.targets = 4;
  p.seed = 11;
  p.work.transfers_per_source = 6;
  p.work.len_min = 1;
  p.work.len_max = 48;
  p.work.p_slow = 0.2;
  p.work.p_sync = 0.2;
  p.work.p_eod = 0.3;
  OrderingSystem sys(p);
  sys.generate();
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(r.transfers, 48u);
  EXPECT_EQ(r.src.req_timeouts, 0u);
  EXPECT_EQ(r.src.fin_timeouts, 0u);
  EXPECT_EQ(r.net.expired, 0u);
  // Skewed bursts overflow the 50-packet ROBs: every resend answers exactly one NACK,
  // none is a timeout.
  EXPECT_GT(r.src.nacks_overflow, 0u);
  EXPECT_EQ(r.src.reqs_resent, r.src.nacks_no_conn + r.src.nacks_overflow + r.src.nacks_replay_full);
  EXPECT_EQ(r.slow_duplicate_deliveries, 0u);
  EXPECT_EQ(r.tgt.duplicates, 0u);
  EXPECT_GT(r.tgt.held, 0u);  // reordering happened
}

// ------------------------------------------------------------------ fallback and NACK

TEST(UetFallback, SourceCidPoolExhaustedRunsSlow) {
  SystemParams p = directed();
  p.src.num_cids = 1;
  p.src.max_active = 2;
  OrderingSystem sys(p);
  const uint64_t a = sys.add_transfer(0, 0, XferKind::Ordered, true, false, 6);
  const uint64_t b = sys.add_transfer(0, 0, XferKind::Ordered, true, false, 4);
  sys.step();
  EXPECT_EQ(sys.source(0).cid_of(a), 0u);
  EXPECT_EQ(sys.source(0).cid_of(b), kNoCid);
  EXPECT_EQ(sys.source(0).phase_of(b), SourceEndpoint::Phase::Slow);
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(r.src.slow_no_cid, 1u);
  EXPECT_EQ(r.src.max_inflight_slow, 1u);
  EXPECT_EQ(r.src.fins_sent, 1u);  // only the transfer with a connection closes one
  EXPECT_EQ(r.tgt.direct, 4u);
  EXPECT_EQ(exec_indices(sys, b), (std::vector<unsigned>{0, 1, 2, 3}));
  // b's first REQ waits one REQ time behind a's REQ 0 on the source link.
  EXPECT_EQ(sys.completed_at(b), 16 + 4 * kRtt);
}

TEST(UetFallback, TargetNoConnFallsBackToSlowAndCompletes) {
  SystemParams p = directed(2, 1);
  p.tgt.rob.num_conn = 1;
  OrderingSystem sys(p);
  // Source 1's REQs arrive after source 0 took the only target connection.
  sys.network().delay_hook = [](const Packet& q) -> uint64_t {
    return (q.type == PktType::Req && q.src == 1) ? 50 : 0;
  };
  Trace tr;
  tr.attach(sys.network());
  const uint64_t a = sys.add_transfer(0, 0, XferKind::Ordered, true, false, 24);
  const uint64_t b = sys.add_transfer(1, 0, XferKind::Ordered, true, false, 6);
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(r.src.fallbacks, 1u);
  EXPECT_GE(r.src.nacks_no_conn, 1u);
  EXPECT_EQ(exec_indices(sys, a).size(), 24u);
  EXPECT_EQ(exec_indices(sys, b), (std::vector<unsigned>{0, 1, 2, 3, 4, 5}));
  unsigned direct_b = 0;
  for (const auto& e : sys.executions())
    if (e.transfer == b && !e.via_conn) ++direct_b;
  EXPECT_EQ(direct_b, 6u);                  // all of b delivered in slow mode, without a connection
  EXPECT_EQ(r.src.max_inflight_slow, 1u);   // one at a time
  EXPECT_EQ(r.tgt.fin_unknown, 1u);         // b's FIN: the target never held its connection
  EXPECT_EQ(r.src.req_timeouts, 0u);
  for (auto& [c, q] : tr.sent)  // slow-mode REQs carry the CID but not CON
    if (q.type == PktType::Req && q.src == 1 && !q.con()) {
      EXPECT_EQ(q.cid, 0u);
    }
}

TEST(UetNack, RobOverflowNackResendCompletes) {
  SystemParams p = directed();
  p.tgt.rob.capacity = 2;
  OrderingSystem sys(p);
  sys.network().delay_hook = [](const Packet& q) -> uint64_t {
    return (q.type == PktType::Req && q.seq == 0) ? 300 : 0;
  };
  Trace tr;
  tr.attach(sys.network());
  const uint64_t t = sys.add_transfer(0, 0, XferKind::Ordered, true, false, 10);
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  // REQs 1, 2 held; 3..9 rejected (OVERFLOW_FULL) and sent again.
  EXPECT_EQ(r.src.nacks_overflow, 7u);
  EXPECT_EQ(sys.target(0).rob_outputs().cnt[rob::overflow_full], 7u);
  EXPECT_EQ(r.src.reqs_resent, 7u);
  EXPECT_EQ(r.src.fallbacks, 0u);
  EXPECT_EQ(exec_indices(sys, t), (std::vector<unsigned>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(r.src.req_timeouts, 0u);
}

// ------------------------------------------------------------------ exactly-once delivery

TEST(UetEod, LostAckReplaysSameResultExecutedOnce) {
  OrderingSystem sys(directed());
  bool dropped = false;
  sys.network().drop_hook = [&](const Packet& q) {
    if (q.type == PktType::Ack && q.seq == 1 && !dropped) return dropped = true;
    return false;
  };
  Trace tr;
  tr.attach(sys.network());
  const uint64_t t = sys.add_transfer(0, 0, XferKind::Ordered, true, /*eod=*/true, 3);
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(r.src.req_timeouts, 1u);
  EXPECT_EQ(r.tgt.duplicates, 1u);
  EXPECT_EQ(r.tgt.replays, 1u);
  // Fetch-and-add of 1, 2, 3 on one counter: results 0, 1, 3, each executed once.
  EXPECT_EQ(exec_indices(sys, t), (std::vector<unsigned>{0, 1, 2}));
  std::vector<uint64_t> res;
  for (const auto& e : sys.executions()) res.push_back(e.result);
  EXPECT_EQ(res, (std::vector<uint64_t>{0, 1, 3}));
  EXPECT_EQ(sys.target(0).memory((uint64_t{1} << 48) | 0), 6u);
  // The replayed ACK carries the original result (the checker compares every paired ACK).
  std::vector<uint64_t> ack1;
  for (auto& [c, q] : tr.delivered)
    if (q.type == PktType::Ack && q.seq == 1) ack1.push_back(q.result);
  EXPECT_EQ(ack1, (std::vector<uint64_t>{1}));
  EXPECT_EQ(r.tgt.replay_freed_fin, 3u);
  EXPECT_EQ(sys.target(0).replay_used(), 0u);
}

TEST(UetEod, ReplayBufferFreedOnFin) {
  OrderingSystem sys(directed());
  std::size_t at_fin = 99, after = 99;
  sys.source(0).on_event = [&](const Transfer&, const std::string& what, uint64_t) {
    if (what == "fin") at_fin = sys.target(0).replay_used(0, 0);
    if (what == "fin-ack") after = sys.target(0).replay_used(0, 0);
  };
  sys.add_transfer(0, 0, XferKind::Ordered, true, true, 4);
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(at_fin, 4u);  // every result kept until the FIN
  EXPECT_EQ(after, 0u);
  EXPECT_EQ(r.tgt.replay_freed_fin, 4u);
  EXPECT_EQ(r.tgt.replay_max, 4u);
}

TEST(UetEod, WindowRuleBoundsTheReplayBuffer) {
  SystemParams p = directed();
  p.src.max_outstanding = 4;
  p.tgt.window = 4;
  OrderingSystem sys(p);
  sys.add_transfer(0, 0, XferKind::Ordered, true, true, 30);
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_LE(r.tgt.replay_max, 5u);
  EXPECT_EQ(r.tgt.replay_freed_window + r.tgt.replay_freed_fin, 30u);
}

// ------------------------------------------------------------------ synchronized transfer

TEST(UetSync, DataOutOfOrderSyncHeldUntilCntAcks) {
  OrderingSystem sys(directed());
  // Data REQ 0 is late: data 1..3 and the sync REQ arrive before it.
  sys.network().delay_hook = [](const Packet& q) -> uint64_t {
    return (q.type == PktType::Req && q.seq == 0) ? 300 : 0;
  };
  const uint64_t t = sys.add_transfer(0, 0, XferKind::Sync, true, true, 5);
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(exec_indices(sys, t), (std::vector<unsigned>{1, 2, 3, 0, 4}));
  const auto& ex = sys.executions();
  ASSERT_EQ(ex.size(), 5u);
  // Data on arrival (one per 16-cycle REQ), the sync once the memory acknowledged data 0.
  EXPECT_EQ(ex[0].cycle, 16 + 100 + 16 + 16u);
  EXPECT_EQ(ex[4].cycle, ex[3].cycle + 20);
  EXPECT_EQ(r.tgt.sync_held, 1u);
  EXPECT_EQ(r.tgt.sync_released, 1u);
  EXPECT_EQ(r.tgt.sync_counted, 4u);
  EXPECT_EQ(sys.target(0).memory((uint64_t{2} << 48) | t), 1u);  // the sync operation ran once
  EXPECT_EQ(r.src.fins_sent, 1u);
  EXPECT_EQ(sys.target(0).sync_conns_open(), 0u);
  EXPECT_EQ(sys.target(0).replay_used(), 0u);
}

TEST(UetSync, LostSyncAckReplayed) {
  OrderingSystem sys(directed());
  bool dropped = false;
  sys.network().drop_hook = [&](const Packet& q) {
    if (q.type == PktType::Ack && q.seq == 3 && !dropped) return dropped = true;
    return false;
  };
  const uint64_t t = sys.add_transfer(0, 0, XferKind::Sync, true, true, 4);
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(r.tgt.replays, 1u);
  EXPECT_EQ(sys.target(0).memory((uint64_t{2} << 48) | t), 1u);
}

// ------------------------------------------------------------------ parameters

TEST(UetParams, ValidateNamesTheField) {
  SystemParams p;
  EXPECT_EQ(p.validate(), "");
  p.src.max_outstanding = 200;
  EXPECT_EQ(p.validate(), "src.max_outstanding=200 out of range (allowed 1..tgt.window=25)");
  p = SystemParams{};
  p.net.p_long = 1.5;
  EXPECT_EQ(p.validate(), "net.p_long=1.5 out of range (allowed 0..1)");
  p = SystemParams{};
  p.src.req_timeout = 100;
  EXPECT_EQ(p.validate(), "src.req_timeout=100 out of range (allowed above the round trip bound 20020)");
  p = SystemParams{};
  p.tgt.window = 200;
  EXPECT_EQ(p.validate(), "tgt.window=200 out of range (allowed 1..127: below 2^(seq_bits-1))");
  EXPECT_THROW(OrderingSystem{p}, std::invalid_argument);
}

// ------------------------------------------------------------------ randomized with faults

class UetRandom : public ::testing::TestWithParam<uint64_t> {};

TEST_P(UetRandom, FaultsKeepTheInvariants) {
  SystemParams p;
  p.seed = GetParam();
  p.sources = 8;
  p.targets = 3;
  p.tgt.rob.num_conn = 3;   // NO_CONN and fallback
  p.tgt.rob.capacity = 12;  // overflow NACKs
  p.src.num_cids = 2;       // source CID pool exhaustion
  p.src.max_outstanding = 8;
  p.tgt.window = 8;
  p.src.max_active = 3;
  p.src.req_timeout = 3000;
  p.src.fin_timeout = 3000;
  p.net.lifetime = 1200;
  p.work.transfers_per_source = 8;
  p.work.len_min = 1;
  p.work.len_max = 40;
  p.work.p_slow = 0.15;
  p.work.p_sync = 0.2;
  p.work.p_eod = 0.4;
  const double f = p.seed > 10 ? 0.05 : 0.01;  // seeds 11..20: heavy faults
  for (auto& d : p.net.drop) d = f;
  p.net.p_dup = f;
  p.max_cycles = 3000000;
  OrderingSystem sys(p);
  sys.generate();
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(r.transfers, 64u);
  EXPECT_GT(r.src.req_timeouts, 0u);
  EXPECT_GT(r.src.nacks_no_conn + r.src.nacks_overflow, 0u);
  EXPECT_GT(r.tgt.duplicates, 0u);
  EXPECT_GT(r.net.dropped[static_cast<unsigned>(PktType::Ack)], 0u);

}

INSTANTIATE_TEST_SUITE_P(Seeds, UetRandom, ::testing::Range<uint64_t>(1, 21));

}  // namespace

namespace {

using namespace uet;

// A broken reorder buffer behind the same interface (as an RTL adapter would sit):
// it forwards every REQ on arrival, in arrival order. The checker must catch it.
class NoReorder final : public ReorderBuffer {
 public:
  explicit NoReorder(const rob::Params& p) : p_(p) { out_.in_ready = true; }
  void tick(const rob::In& in) override {
    out_.rel_valid = out_.resp_valid = false;
    if (!in.in_valid) return;
    out_.resp_valid = true;
    out_.resp_src = in.in_src;
    out_.resp_cid = in.in_cid;
    out_.resp_seq = in.in_seq;
    out_.resp_kind = in.in_fin ? rob::kFinDone : rob::kDelivered;
    if (!in.in_fin) {
      out_.rel_valid = true;
      out_.rel_src = in.in_src;
      out_.rel_cid = in.in_cid;
      out_.rel_seq = in.in_seq;
      out_.rel_token = in.in_token;
    }
  }
  rob::Out outputs() const override { return out_; }
  const rob::Params& params() const override { return p_; }

 private:
  rob::Params p_;
  rob::Out out_;
};

TEST(UetChecker, CatchesAReorderBufferThatDoesNotReorder) {
  SystemParams p = directed();
  OrderingSystem sys(p, [](unsigned, const rob::Params& rp) { return std::make_unique<NoReorder>(rp); });
  sys.network().delay_hook = [](const Packet& q) -> uint64_t {
    return (q.type == PktType::Req && q.seq == 0) ? 400 : 0;
  };
  sys.add_transfer(0, 0, XferKind::Ordered, true, false, 4);
  const Report r = sys.run();
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors.front().find("transfer 1 REQ 1 delivered out of order (expected REQ 0)"), std::string::npos)
      << r.errors.front();
}

// Scarce connections and no faults: fallbacks and NACKs, but never a timeout.
class UetScarce : public ::testing::TestWithParam<uint64_t> {};

TEST_P(UetScarce, NoFaultsNoTimeouts) {
  SystemParams p;
  p.seed = GetParam();
  p.sources = 8;
  p.targets = 2;
  p.tgt.rob.num_conn = 1;
  p.tgt.rob.capacity = 6;
  p.tgt.sync_conns = 1;
  p.src.num_cids = 2;
  p.src.max_outstanding = 8;
  p.tgt.window = 8;
  p.work.transfers_per_source = 6;
  p.work.len_max = 32;
  p.work.p_slow = 0.1;
  p.work.p_sync = 0.2;
  p.work.p_eod = 0.4;
  OrderingSystem sys(p);
  sys.generate();
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(r.src.req_timeouts, 0u);
  EXPECT_EQ(r.net.expired, 0u);
  EXPECT_GT(r.src.fallbacks, 0u);
  EXPECT_GT(r.tgt.direct, 0u);
  EXPECT_EQ(r.tgt.duplicates, 0u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, UetScarce, ::testing::Range<uint64_t>(1, 11));

}  // namespace
