// sue::Nic, the flit NIC model (label unit; docs/system.md "The flit NIC model"): two Nics back to
// back through a delay line per port (lossless, or losing / damaging frames): exactly-once in-order
// delivery, packing counts, the zero-load pipeline figures of the cycle-exact blocks, Window and
// QDepth limits, NACK and RTO recovery, receive-credit and CBFC stalls, and next_event() never
// skipping work (the event-driven run equals a run that visits every edge).
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "core/rng.hpp"
#include "sue/encap.hpp"
#include "sue/nic.hpp"

namespace {

using sue::Edge;
using sue::Nic;
using sue::NicCmd;
using sue::NicConfig;
using sue::NicFrame;
using sue::RxCnt;
using sue::TxCnt;

// An instance of XPU `own` that addresses XPU ids 0..max(1, peer) (no peer table: peer index = XPU id;
// its own id need not be among them).
NicConfig cfg_for(uint32_t own, uint32_t peer, unsigned ports = 1) {
  NicConfig c;
  c.tp.num_ports = ports;
  c.tp.num_xpus = std::max(2u, peer + 1);
  c.tp.data_w = 512;
  c.own_xpuid = own;
  c.strict = true;
  c.port_gbps = 200;
  return c;
}

// XPU 0's queue {XPU 1, VC 0} (queue {x, v} = x*4 + v).
constexpr unsigned kQ1 = 4;

// Two NICs (XPU 0 and XPU 1) through a line of `delay` edges (eof at the far MAC = eof + delay).
struct Pair {
  std::array<Nic, 2> n;
  Edge delay = 100;
  // The line: drop(frame) / damage(frame) decide a frame's fate.
  std::function<bool(const NicFrame&)> drop, damage;
  // XPU side
  std::array<std::vector<uint32_t>, 2> qcred;
  struct Sent {
    unsigned src;
    uint64_t tag;
    Edge done;
  };
  std::vector<Sent> sent;
  struct Got {
    unsigned at;
    uint64_t tag, digest;
    uint8_t vc;
    Edge first, last;
  };
  std::vector<Got> got;
  std::vector<NicFrame> frames[2];  // every frame each NIC started (copies)
  Edge sink_delay = 0;
  bool every_edge = false;  // visit every edge instead of jumping to next_event()
  uint64_t visits = 0;      // loop iterations (edges the harness visited)
  Edge now = 0;
  // CBFC: credits return to the sender when the receiver takes a frame
  bool gate = false;
  std::array<std::array<uint32_t, 4>, 2> rx_limit{};
  uint64_t max_cells_unreturned = 0;
  std::array<uint64_t, 2> cells_unreturned{};

  Pair(const NicConfig& a, const NicConfig& b) : n{Nic(a), Nic(b)} {
    qcred[0].assign(a.tp.nq(), a.tp.qdepth);
    qcred[1].assign(b.tp.nq(), b.tp.qdepth);
    for (auto& l : rx_limit) l.fill(a.gate_init_cells);
  }
  static uint64_t digest_of(uint64_t tag) { return core::mix64(tag * 77 + 1); }
  bool send(unsigned s, unsigned vc, uint16_t dlen, uint64_t tag, Edge done) {
    const int q = n[s].queue_of(s == 0 ? 1 : 0, vc);
    if (q < 0 || !qcred[s][static_cast<unsigned>(q)]) return false;
    --qcred[s][static_cast<unsigned>(q)];
    NicCmd c;
    c.tag = tag;
    c.digest = digest_of(tag);
    c.dlen = dlen;
    c.vc = static_cast<uint8_t>(vc);
    EXPECT_TRUE(n[s].submit(static_cast<unsigned>(q), c, done));
    sent.push_back({s, tag, done});
    return true;
  }
  void drain(unsigned k) {
    Nic& me = n[k];
    Nic& other = n[1 - k];
    for (NicFrame& f : me.frames()) {
      frames[k].push_back(f);
      if (drop && drop(f)) continue;
      if (damage && damage(f)) f.bad = true;
      const Edge at = f.eof + delay;
      const unsigned p = f.port;
      if (gate) cells_unreturned[k] += (f.bytes + 127) / 128;
      max_cells_unreturned = std::max(max_cells_unreturned, cells_unreturned[k]);
      other.receive(p, std::move(f), at);
    }
    for (auto& d : me.deliveries()) {
      got.push_back({k, d.cmd.tag, d.cmd.digest, d.cmd.vc, d.first, d.last});
      me.rx_credit(d.cmd.vc, d.first + sink_delay);
    }
    for (auto& t : me.taken())
      if (gate) {
        rx_limit[k][t.vc] = (rx_limit[k][t.vc] + (t.bytes + 127) / 128) & 0xffffu;
        cells_unreturned[1 - k] -= (t.bytes + 127) / 128;
        other.credit_limit(t.port, t.vc, rx_limit[k][t.vc], t.at + delay);
      }
    for (auto& c : me.credits()) ++qcred[k][c.q];
    me.clear_outputs();
  }
  // Run to edge `until`, calling feed(edge) at every edge the XPUs may act (every edge here).
  void run(Edge until, const std::function<void(Edge)>& feed = nullptr) {
    while (now <= until) {
      Edge t = std::min(n[0].next_event(), n[1].next_event());
      if (every_edge || feed) t = now;
      if (t == sue::kNoEdge || t > until) break;
      t = std::max(t, now);
      if (feed) feed(t);
      for (unsigned k = 0; k < 2; ++k) {
        n[k].advance(t);
        drain(k);
      }
      now = t + 1;
    }
  }
  bool in_order_exactly_once() const {
    std::map<uint64_t, int> seen;
    std::map<std::pair<unsigned, unsigned>, uint64_t> last;  // (receiver, vc) -> last tag
    for (auto& g : got) {
      if (++seen[g.tag] > 1) return false;
      if (g.digest != digest_of(g.tag)) return false;
      auto key = std::make_pair(g.at, static_cast<unsigned>(g.vc));
      if (last.count(key) && last[key] >= g.tag) return false;
      last[key] = g.tag;
    }
    return seen.size() == sent.size();
  }
};

// Tags grow per (sender, vc) so "in order" is tag order.
uint64_t tag_of(unsigned s, unsigned vc, uint64_t k) { return (static_cast<uint64_t>(s) << 40) | (static_cast<uint64_t>(vc) << 32) | k; }

// A random two-way load: both XPUs send on VCs 0 and 1, sizes 0..256, as fast as credits allow.
void random_load(Pair& h, uint64_t cmds, uint64_t seed, Edge limit) {
  core::Rng r(seed, "nic.test");
  std::array<std::array<uint64_t, 2>, 2> k{};
  uint64_t issued = 0;
  h.run(limit, [&](Edge t) {
    for (unsigned s = 0; s < 2 && issued < cmds; ++s) {
      const unsigned vc = static_cast<unsigned>(r.uniform(0, 1));
      if (r.chance(0.3) && h.send(s, vc, static_cast<uint16_t>(r.uniform(0, 256)), tag_of(s, vc, k[s][vc] + 1), t)) {
        ++k[s][vc];
        ++issued;
      }
    }
  });
}

// sue::Ring keeps a pointer into its storage: a copy must use its own, a move must leave the source
// empty and usable, and both must survive growth with the head wrapped around.
TEST(SueNic, RingCopiesAndMovesKeepTheirOwnStorage) {
  sue::Ring<int> a;
  for (int i = 0; i < 6; ++i) a.push_back(i);
  for (int i = 0; i < 4; ++i) a.pop_front();  // head at 4: the next pushes wrap around
  for (int i = 6; i < 12; ++i) a.push_back(i);
  sue::Ring<int> b = a;
  b.push_back(100);
  b[0] = -1;
  ASSERT_EQ(a.size(), 8u);
  for (size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k], static_cast<int>(k) + 4);
  sue::Ring<int> c = std::move(b);
  EXPECT_TRUE(b.empty());
  b.push_back(7);  // the moved-from ring takes new storage
  EXPECT_EQ(b.front(), 7);
  for (int i = 0; i < 20; ++i) c.push_back(200 + i);  // grows
  EXPECT_EQ(c.front(), -1);
  EXPECT_EQ(c[8], 100);
  EXPECT_EQ(c.back(), 219);
  a = c;
  c.pop_front();
  EXPECT_EQ(a.front(), -1);
  EXPECT_EQ(a.size(), c.size() + 1);
  c = std::move(a);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(c.front(), -1);
}

TEST(SueNic, RefusesLiteAndBadConfig) {
  NicConfig c = cfg_for(0, 1);
  c.tp.profile = 1;
  c.tp.max_pack = 1024;
  EXPECT_NE(c.validate().find("SUE Lite is not modelled"), std::string::npos);
  EXPECT_THROW(Nic{c}, std::invalid_argument);
  NicConfig d = cfg_for(0, 1);
  d.tp.qdepth = 24;
  EXPECT_NE(d.validate().find("QDepth"), std::string::npos);
  EXPECT_EQ(cfg_for(0, 1).validate(), "");
}

// Frame sizes are what sue::encode produces for the same PDU (AFH Gen2 12-byte header, RH, op headers,
// R-CRC, pad, FCS), for data PDUs of several packings and for the empty PDU of an ACK-only frame.
TEST(SueNic, FrameSizesAreSueEncodes) {
  auto encoded = [](const std::vector<uint16_t>& dlens) {
    sue::Frame f;
    f.profile = sue::Profile::Sue;
    f.encap = sue::Encap::AfhGen2_12;
    f.afh2.src_xpu = 0;
    f.afh2.dst_xpu = 1;
    for (uint16_t d : dlens) f.cmds.push_back(sue::Bytes(18 + d, 0x5a));
    auto r = sue::encode(f);
    EXPECT_TRUE(r.ok());
    return r.ok() ? r.value().size() : 0;
  };
  for (const std::vector<uint16_t>& dl : std::vector<std::vector<uint16_t>>{{0}, {1}, {13}, {256}, {0, 0, 0}, {100, 7},
                                                                             std::vector<uint16_t>(14, 256)}) {
    Pair h(cfg_for(0, 1), cfg_for(1, 0));
    for (size_t k = 0; k < dl.size(); ++k) h.send(0, 0, dl[k], tag_of(0, 0, k + 1), 5);
    h.run(5000);
    ASSERT_GE(h.frames[0].size(), 1u);
    EXPECT_EQ(h.frames[0][0].cmds.size(), dl.size());
    EXPECT_EQ(h.frames[0][0].bytes, encoded(dl)) << dl.size() << " commands, first " << dl[0];
    ASSERT_EQ(h.frames[1].size(), 1u);  // the ACK-only answer: the empty PDU
    EXPECT_TRUE(h.frames[1][0].ack_only);
    EXPECT_EQ(h.frames[1][0].bytes, encoded({}));
  }
}

TEST(SueNic, ZeroLoadPipelineEqualsCycleExactFigures) {
  // docs/sue.md "Clock and rates": command complete (edge a) -> first beat at the MAC in a + 4; eof
  // beat taken (edge e) -> first command in cycle e + 5 (rows 0..3 read in one edge).
  Pair h(cfg_for(0, 1), cfg_for(1, 0));
  h.send(0, 0, 0, tag_of(0, 0, 1), 100);
  h.run(6000);  // past the ACK delay (4,096 cycles)
  ASSERT_EQ(h.frames[0].size(), 1u);
  const NicFrame& f = h.frames[0][0];
  EXPECT_EQ(f.sof, 104u);
  EXPECT_EQ(f.bytes, 64u);  // 14 + 8 + 20 + 4 = 46, padded to 60, + FCS
  ASSERT_EQ(h.got.size(), 1u);
  EXPECT_EQ(h.got[0].first, f.eof + h.delay + 5);
  // A 64-byte command needs rows 0..3 before its first beat: read in one edge, the same 5 cycles.
  Pair g(cfg_for(0, 1), cfg_for(1, 0));
  g.send(0, 0, 64, tag_of(0, 0, 1), 100);
  g.run(2000);
  ASSERT_EQ(g.got.size(), 1u);
  EXPECT_EQ(g.got[0].first, g.frames[0][0].eof + g.delay + 5);
  EXPECT_EQ(g.frames[0][0].bytes, 14u + 8 + 84 + 4 + 4);
  // The ACK comes back alone after ack_delay (the peer has no data to carry it).
  EXPECT_EQ(h.frames[1].size(), 1u);
  EXPECT_TRUE(h.frames[1][0].ack_only);
  EXPECT_EQ(h.frames[1][0].op, 1);
  EXPECT_EQ(h.n[0].q_count(kQ1), 0u);  // the slot came back
  EXPECT_EQ(h.qcred[0][kQ1], sue::TxParams{}.qdepth);  // every credit back (QDepth, 64)
}

// DataW 1024 (DB 128, the s2/s4 bus): sue_rx reads 6 rows an edge, so a command's first beat (up to
// 148 op bytes, rows 0..5) still goes out 5 cycles after the eof beat, and a 256-byte command takes two
// XPU beats on each side.
TEST(SueNic, ZeroLoadPipelineAtDataW1024) {
  for (uint32_t dlen : {64u, 128u, 256u}) {
    NicConfig a = cfg_for(0, 1), b = cfg_for(1, 0);
    a.tp.data_w = b.tp.data_w = 1024;
    Pair h(a, b);
    h.send(0, 0, static_cast<uint16_t>(dlen), tag_of(0, 0, 1), 100);
    h.run(2000);
    ASSERT_EQ(h.frames[0].size(), 1u) << dlen;
    EXPECT_EQ(h.frames[0][0].sof, 104u) << dlen;
    EXPECT_EQ(h.frames[0][0].bytes, 14u + 8 + 20 + dlen + 4 + 4) << dlen;
    ASSERT_EQ(h.got.size(), 1u) << dlen;
    EXPECT_EQ(h.got[0].first, h.frames[0][0].eof + h.delay + 5) << dlen;
    EXPECT_EQ(h.got[0].last, h.got[0].first + (dlen + 127) / 128 - 1) << dlen;
  }
}

TEST(SueNic, PacksCompleteCommandsOnlyUpToMaxPack) {
  Pair h(cfg_for(0, 1), cfg_for(1, 0));
  // Ten 0-byte commands complete at edges 10..19: the first PDU takes what is present at its start
  // (the command of edge 10), the port's next job the ones present then.
  h.run(40, [&](Edge t) {
    if (t >= 10 && t < 20) h.send(0, 0, 0, tag_of(0, 0, t), t);
  });
  h.run(3000);
  uint64_t cmds = 0;
  for (auto& f : h.frames[0]) cmds += f.cmds.size();
  EXPECT_EQ(cmds, 10u);
  ASSERT_GE(h.frames[0].size(), 2u);
  EXPECT_EQ(h.frames[0][0].cmds.size(), 1u);  // never waits to fill
  EXPECT_GT(h.frames[0][1].cmds.size(), 1u);
  // Twenty 256-byte commands present at once: 4096 / 276 = 14 per PDU, then 6.
  Pair g(cfg_for(0, 1), cfg_for(1, 0));
  for (unsigned k = 1; k <= 20; ++k) g.send(0, 0, 256, tag_of(0, 0, k), 5);
  g.run(5000);
  ASSERT_EQ(g.frames[0].size() - [&] { size_t a = 0; for (auto& f : g.frames[0]) a += f.ack_only; return a; }(), 2u);
  EXPECT_EQ(g.frames[0][0].cmds.size(), 14u);
  EXPECT_EQ(g.frames[0][0].packed, 14u * 276);
  EXPECT_EQ(g.frames[0][0].bytes, 14u + 8 + 14 * 276 + 4 + 4);
  EXPECT_EQ(g.frames[0][1].cmds.size(), 6u);
  EXPECT_TRUE(g.in_order_exactly_once());
  EXPECT_EQ(g.n[0].tx_cnt()[TxCnt::cmds_sent], 20u);
  EXPECT_EQ(g.n[1].rx_cnt()[RxCnt::cmds_out], 20u);
}

TEST(SueNic, ExactlyOnceInOrderBothWaysTwoPorts) {
  NicConfig a = cfg_for(0, 1, 2), b = cfg_for(1, 0, 2);
  Pair h(a, b);
  random_load(h, 3000, 1, 200000);
  h.run(400000);
  EXPECT_TRUE(h.in_order_exactly_once());
  EXPECT_EQ(h.got.size(), 3000u);
  EXPECT_TRUE(h.n[0].idle() && h.n[1].idle());
  // Strict mode pins (own XPU id + peer XPU id + VC) mod 2 = (0 + 1 + VC) mod 2 at both ends: VC 0 on
  // port 1, VC 1 on port 0; both VCs are used.
  for (unsigned x = 0; x < 2; ++x) {
    unsigned vcs = 0;
    for (auto& f : h.frames[x])
      if (!f.ack_only) {
        EXPECT_EQ(f.port, (1 + f.vc) % 2);
        vcs |= 1u << f.vc;
      }
    EXPECT_EQ(vcs, 3u) << "NIC " << x;
  }
  EXPECT_GT(h.n[0].tx_cnt()[TxCnt::ack_sent], 0u);  // piggybacked ACKs
  EXPECT_EQ(h.n[0].tx_cnt()[TxCnt::pdus_rtx], 0u);
}

TEST(SueNic, UnorderedSpreadsOverPortsAndStaysExactlyOnce) {
  NicConfig a = cfg_for(0, 1, 4), b = cfg_for(1, 0, 4);
  a.strict = b.strict = false;
  Pair h(a, b);
  random_load(h, 3000, 2, 200000);
  h.run(400000);
  std::array<unsigned, 4> per{};
  for (auto& f : h.frames[0])
    if (!f.ack_only) ++per[f.port];
  for (unsigned p = 0; p < 4; ++p) EXPECT_GT(per[p], 0u) << "port " << p;
  std::map<uint64_t, int> seen;
  for (auto& g : h.got) EXPECT_EQ(++seen[g.tag], 1);
  EXPECT_EQ(seen.size(), 3000u);
}

TEST(SueNic, WindowAndQDepthBound) {
  NicConfig a = cfg_for(0, 1), b = cfg_for(1, 0);
  a.rto = 1000000;  // no RTO in this test
  a.tp.window = 4;
  Pair h(a, b);
  h.drop = [](const NicFrame& f) { return f.src == 1; };  // no ACK ever comes back
  unsigned ok = 0;
  h.run(20000, [&](Edge t) {
    if (t % 50 == 0 && h.send(0, 0, 0, tag_of(0, 0, t + 1), t)) ++ok;
  });
  // The queue fills to QCap unsent (QCap - QDepth credits back at submit: shared-buffer credits, then
  // QDepth deferred), plus one back for each command formed into a PDU (its bytes are in the store)
  EXPECT_EQ(h.n[0].tx_cnt()[TxCnt::pdus_new], 4u);  // Window PDUs in flight
  EXPECT_EQ(h.n[0].tx_cnt()[TxCnt::cmds_sent], 4u);
  const unsigned Q = a.tp.q_cap();  // 256
  EXPECT_EQ(ok, Q + 4u);
  EXPECT_EQ(h.n[0].q_count(kQ1), Q + 4u);  // the store holds the sent ones until acknowledged
  EXPECT_EQ(h.n[0].q_unsent(kQ1), Q);
  EXPECT_EQ(h.n[0].early_credits(), Q - a.tp.qdepth + 4u);  // the 4 sent ones were credited at submit too
  EXPECT_EQ(h.n[0].credits_deferred(), a.tp.qdepth);
}

TEST(SueNic, NackRecoversALostPdu) {
  Pair h(cfg_for(0, 1), cfg_for(1, 0));
  int data = 0;
  h.drop = [&](const NicFrame& f) { return f.src == 0 && !f.ack_only && !f.rtx && ++data == 3; };
  uint64_t k = 0;
  h.run(30000, [&](Edge t) {
    if (t % 40 == 0 && k < 40 && h.send(0, 0, 32, tag_of(0, 0, k + 1), t)) ++k;
  });
  h.run(100000);
  EXPECT_TRUE(h.in_order_exactly_once());
  EXPECT_EQ(h.got.size(), 40u);
  EXPECT_EQ(h.n[1].rx_cnt()[RxCnt::nack_owed], 1u);   // one NACK per gap
  EXPECT_GE(h.n[1].rx_cnt()[RxCnt::drop_psn], 1u);
  EXPECT_EQ(h.n[0].tx_cnt()[TxCnt::nack_rcvd], 1u);
  EXPECT_EQ(h.n[0].tx_cnt()[TxCnt::gbn], 1u);
  EXPECT_GE(h.n[0].tx_cnt()[TxCnt::pdus_rtx], 1u);
  EXPECT_EQ(h.n[0].tx_cnt()[TxCnt::rto], 0u);
}

TEST(SueNic, RtoRecoversALostTail) {
  NicConfig a = cfg_for(0, 1), b = cfg_for(1, 0);
  a.rto = 3000;
  b.ack_delay = 512;  // the ACK of the resent PDU within the RTO (a single PDU owes 1 < ack_count)
  Pair h(a, b);
  bool dropped = false;
  h.drop = [&](const NicFrame& f) {
    if (f.src == 0 && !f.ack_only && !dropped) return dropped = true;
    return false;
  };
  h.send(0, 1, 100, tag_of(0, 1, 1), 10);
  h.run(100000);
  ASSERT_EQ(h.got.size(), 1u);
  EXPECT_EQ(h.n[0].tx_cnt()[TxCnt::rto], 1u);
  EXPECT_EQ(h.n[0].tx_cnt()[TxCnt::pdus_rtx], 1u);
  EXPECT_GE(h.got[0].first, 10u + 3000);  // only after the timeout
  EXPECT_EQ(h.n[0].q_count(kQ1 + 1), 0u);  // queue {XPU 1, VC 1} empty again
}

// A stale RTO timer never fires. Connection B (VC 1) loses its only PDU, so its timer stays at the
// head of the timer FIFO for the whole RTO; meanwhile connection A (VC 0) carries a steady load, and
// each ACK re-arms its timer and leaves a stale one behind B's, hundreds of them. Then A's PDUs are
// lost too, from edge 19,000: A stalls with PDUs outstanding, last progress about then. When B's
// timer fires (~edge 20,000), A's stale timers come to the head: one whose arm count matched A's
// modulo 256 (timers kept 8 bits of it once) fired A's RTO there, ~19,000 edges early, instead
// of RTO cycles after A's last progress.
TEST(SueNic, StaleRtoTimersBehindALiveOneNeverFire) {
  NicConfig a = cfg_for(0, 1);
  a.rto = 20000;
  a.tp.max_data = 128, a.tp.max_pack = 256;  // two commands per PDU: many PDUs, so many ACKs
  NicConfig b = cfg_for(1, 0);
  b.ack_delay = 2;  // an ACK for (almost) every PDU: a re-arm of A's timer every few edges
  Pair h(a, b);
  bool dropped = false;
  constexpr Edge kLoss = 19000, kLossEnd = 30000;
  h.drop = [&](const NicFrame& f) {
    if (f.src != 0 || f.ack_only) return false;
    if (f.vc == 1 && !dropped) return dropped = true;
    return f.vc == 0 && f.sof >= kLoss && f.sof < kLossEnd;
  };
  uint64_t k = 0;
  h.run(kLoss + 500, [&](Edge t) {
    if (t == 10) h.send(0, 1, 64, tag_of(0, 1, 1), t);
    if (t > 10 && h.send(0, 0, 100, tag_of(0, 0, k + 1), t)) ++k;
  });
  h.run(200000);
  EXPECT_GT(h.n[1].tx_cnt()[TxCnt::ack_sent], 256u);  // each a re-arm of A's timer
  EXPECT_EQ(h.n[0].tx_cnt()[TxCnt::rto], 2u);         // B's, then A's
  Edge first_rtx_a = sue::kNoEdge;
  for (const NicFrame& f : h.frames[0])
    if (f.vc == 0 && f.rtx && !f.ack_only) first_rtx_a = std::min(first_rtx_a, f.sof);
  EXPECT_GE(first_rtx_a, kLoss + a.rto) << "A's RTO fired before RTO cycles without progress";
  EXPECT_TRUE(h.in_order_exactly_once());
}

TEST(SueNic, LossyLineDeliversExactlyOnceInOrder) {
  NicConfig a = cfg_for(0, 1, 2), b = cfg_for(1, 0, 2);
  a.rto = b.rto = 4000;
  Pair h(a, b);
  core::Rng r(7, "line");
  h.drop = [&](const NicFrame&) { return r.chance(0.03); };
  h.damage = [&](const NicFrame&) { return r.chance(0.02); };
  random_load(h, 2000, 3, 400000);
  h.run(2000000);
  EXPECT_TRUE(h.in_order_exactly_once());
  EXPECT_EQ(h.got.size(), 2000u);
  EXPECT_GT(h.n[0].tx_cnt()[TxCnt::gbn] + h.n[1].tx_cnt()[TxCnt::gbn], 0u);
  EXPECT_GT(h.n[0].rx_cnt()[RxCnt::drop_mac] + h.n[1].rx_cnt()[RxCnt::drop_mac], 0u);
}

TEST(SueNic, ReceiveCreditsPaceTheUnpacker) {
  NicConfig a = cfg_for(0, 1), b = cfg_for(1, 0);
  b.rx_credits = {{2, 2, 2, 2}};
  Pair h(a, b);
  h.sink_delay = 200;  // the XPU sink returns a credit 200 cycles after the command
  for (unsigned k = 1; k <= 12; ++k) h.send(0, 0, 0, tag_of(0, 0, k), 5);
  h.run(50000);
  ASSERT_EQ(h.got.size(), 12u);
  EXPECT_TRUE(h.in_order_exactly_once());
  // At most 2 commands per sink_delay window: command k+2 no earlier than command k's credit returns.
  for (size_t k = 2; k < h.got.size(); ++k) EXPECT_GE(h.got[k].first, h.got[k - 2].first + 200);
}

TEST(SueNic, CbfcGateHoldsFramesWithoutCredit) {
  NicConfig a = cfg_for(0, 1), b = cfg_for(1, 0);
  for (NicConfig* c : {&a, &b}) {
    c->gate_classes = 2;
    c->gate_init_cells = 40;  // 40 cells of 128 B
    c->gate_mtu_cells = 34;   // the largest frame (4,126 B)
  }
  Pair h(a, b);
  h.gate = true;
  h.delay = 2000;  // a long line: credits come back late
  for (unsigned k = 1; k <= 30; ++k) h.send(0, 0, 256, tag_of(0, 0, k), 5);
  h.run(200000);
  EXPECT_EQ(h.got.size(), 30u);
  EXPECT_TRUE(h.in_order_exactly_once());
  EXPECT_LE(h.max_cells_unreturned, 40u + 34u);  // never more in flight than the grant (+ the frame it admitted)
  // The gate made the sender wait: with 40 cells only one 14-command PDU fits at a time.
  ASSERT_GE(h.frames[0].size(), 2u);
  EXPECT_GE(h.frames[0][1].sof, h.frames[0][0].eof + 2 * h.delay);
}

TEST(SueNic, NextEventNeverSkipsWork) {
  // The same lossy two-way run, once jumping from event to event and once polling every edge
  // (NicConfig::poll: the scheduler, the receiver and the unpacker look at each edge): identical
  // frames (times, PSNs, commands) and deliveries, so no event the NIC needs is ever skipped.
  auto once = [](bool every) {
    NicConfig a = cfg_for(0, 1, 4), b = cfg_for(1, 0, 4);
    a.rto = b.rto = 2000;
    a.ack_delay = b.ack_delay = 37;
    a.poll = b.poll = every;  // every edge: the scheduler looks at each one, whether or not an event is due
    Pair h(a, b);
    h.every_edge = every;
    core::Rng r(11, "line");
    h.drop = [&](const NicFrame&) { return r.chance(0.02); };
    core::Rng g(5, "load");
    std::array<uint64_t, 2> k{};
    // Commands at fixed edges, decided up front (the feed must not depend on how often it is called).
    std::map<Edge, std::vector<std::pair<unsigned, uint16_t>>> plan;
    for (unsigned i = 0; i < 600; ++i)
      plan[g.uniform(0, 30000)].push_back({static_cast<unsigned>(g.uniform(0, 1)), static_cast<uint16_t>(g.uniform(0, 256))});
    std::vector<std::pair<unsigned, uint16_t>> backlog;
    auto feed = [&](Edge t) {
      auto it = plan.find(t);
      if (it != plan.end()) backlog.insert(backlog.end(), it->second.begin(), it->second.end());
      for (size_t j = 0; j < backlog.size();) {
        const unsigned s = backlog[j].first;
        if (h.send(s, 0, backlog[j].second, tag_of(s, 0, k[s] + 1), t)) {
          ++k[s];
          backlog.erase(backlog.begin() + static_cast<std::ptrdiff_t>(j));
        } else {
          ++j;
        }
      }
    };
    // The feed runs only at the edges where commands are planned or waiting (both runs visit those).
    Edge t = 0;
    while (t <= 400000) {
      Edge nx = std::min(h.n[0].next_event(), h.n[1].next_event());
      auto it = plan.lower_bound(t);
      if (!backlog.empty()) nx = t;
      if (it != plan.end()) nx = std::min(nx, it->first);
      if (every) nx = t;
      if (nx == sue::kNoEdge) break;
      nx = std::max(nx, t);  // a NIC that was not advanced lately may report an edge already passed
      ++h.visits;
      feed(nx);
      for (unsigned s = 0; s < 2; ++s) {
        h.n[s].advance(nx);
        h.drain(s);
      }
      t = nx + 1;
    }
    return h;
  };
  Pair ev = once(false), all = once(true);
  ASSERT_EQ(ev.got.size(), 600u);
  ASSERT_EQ(all.got.size(), 600u);
  for (unsigned s = 0; s < 2; ++s) {
    ASSERT_EQ(ev.frames[s].size(), all.frames[s].size());
    for (size_t i = 0; i < ev.frames[s].size(); ++i) {
      const NicFrame &x = ev.frames[s][i], &y = all.frames[s][i];
      ASSERT_EQ(x.sof, y.sof) << "frame " << i;
      ASSERT_EQ(x.eof, y.eof);
      ASSERT_EQ(x.psn, y.psn);
      ASSERT_EQ(x.port, y.port);
      ASSERT_EQ(x.cmds.size(), y.cmds.size());
    }
  }
  for (size_t i = 0; i < ev.got.size(); ++i) {
    EXPECT_EQ(ev.got[i].tag, all.got[i].tag);
    EXPECT_EQ(ev.got[i].first, all.got[i].first);
  }
  EXPECT_TRUE(ev.in_order_exactly_once());
  EXPECT_LT(ev.n[0].events() * 5, all.n[0].events());  // the event-driven NIC skipped most edges
  EXPECT_LT(ev.visits * 5, all.visits);
}


// One instance addresses any of 1,024 XPUs (docs/system.md "The flit NIC model": NumXpus up to
// kNicMaxXpus, no peer table): XPU 0 with NumXpus 1,024 sends to every other XPU (queue {x, VC} = x*4 + VC;
// several commands to a few queues, beyond the first slot blocks, across both VCs and all 4 ports in
// strict and unordered mode); 1,023 receivers answer with ACKs. Every command arrives once, in order per
// {src, VC}, at the XPU its frame's AFH destination names, and XPU 0 ends with nothing queued or
// unacknowledged.
TEST(SueNic, OneInstanceReachesEveryOneOf1024Xpus) {
  for (bool strict : {true, false}) {
    constexpr unsigned kN = 1024;
    NicConfig a = cfg_for(0, 1, 4);
    a.strict = strict;
    a.tp.num_xpus = kN;
    ASSERT_EQ(a.validate(), "");
    std::vector<Nic> nic;
    nic.reserve(kN);
    nic.emplace_back(a);
    for (uint32_t x = 1; x < kN; ++x) nic.emplace_back(cfg_for(x, 0, 4));
    Nic& A = nic[0];
    std::vector<unsigned> qcred(a.tp.nq(), a.tp.qdepth);
    std::vector<std::vector<uint64_t>> want(kN * 2), got(kN * 2);  // [dst * 2 + vc]: tags
    uint64_t tag = 0;
    auto submit = [&](uint32_t dst, unsigned vc, uint16_t dlen, Edge at) {
      const int q = A.queue_of(dst, vc);
      ASSERT_EQ(q, static_cast<int>(dst * 4 + vc));
      ASSERT_GT(qcred[static_cast<unsigned>(q)], 0u);
      --qcred[static_cast<unsigned>(q)];
      NicCmd c;
      c.tag = ++tag;
      c.digest = core::mix64(tag);
      c.dlen = dlen;
      c.vc = static_cast<uint8_t>(vc);
      ASSERT_TRUE(A.submit(static_cast<unsigned>(q), c, at));
      want[dst * 2 + vc].push_back(tag);
    };
    for (uint32_t x = 1; x < kN; ++x) submit(x, x & 1u, static_cast<uint16_t>(x % 257), 0);
    for (uint32_t x : {2u, 511u, 1000u, 1023u})  // queues that grow past their first blocks (4, 8, 16 slots)
      for (unsigned k = 0; k < 20; ++k) submit(x, 0, 64, 1 + k);
    uint64_t frames_out = 0, bad_dst = 0;
    Edge now = 0;
    for (unsigned guard = 0; guard < 2000000; ++guard) {
      Edge t = sue::kNoEdge;
      for (Nic& n : nic) t = std::min(t, n.next_event());
      if (t == sue::kNoEdge) break;
      t = std::max(t, now);
      for (uint32_t k = 0; k < kN; ++k) {
        Nic& n = nic[k];
        if (n.next_event() > t) continue;
        n.advance(t);
        for (NicFrame& f : n.frames()) {
          ++frames_out;
          if (f.dst >= kN || f.src != k || (k != 0 && f.dst != 0)) {
            ++bad_dst;
            continue;
          }
          const unsigned port = f.port;
          const Edge at = f.eof + 50;
          Nic& to = nic[f.dst];
          to.receive(port, std::move(f), at);
        }
        for (const auto& d : n.deliveries()) {
          got[k * 2 + d.cmd.vc].push_back(d.cmd.tag);
          EXPECT_EQ(d.src, 0u);
          EXPECT_EQ(d.cmd.digest, core::mix64(d.cmd.tag));
          n.rx_credit(d.cmd.vc, d.first);
        }
        for (const auto& c : n.credits()) ++qcred[c.q];
        n.clear_outputs();
      }
      now = t + 1;
    }
    EXPECT_EQ(bad_dst, 0u);
    EXPECT_GT(frames_out, 2 * (kN - 1));  // a data frame to each and an ACK back at least
    for (uint32_t x = 1; x < kN; ++x)
      for (unsigned vc = 0; vc < 2; ++vc) ASSERT_EQ(got[x * 2 + vc], want[x * 2 + vc]) << "XPU " << x << " VC " << vc;
    EXPECT_TRUE(A.idle());
    for (unsigned q = 0; q < a.tp.nq(); ++q) {
      ASSERT_EQ(A.q_count(q), 0u) << "queue " << q;
      ASSERT_EQ(qcred[q], a.tp.qdepth) << "queue " << q;
    }
    EXPECT_EQ(A.tx_cnt()[TxCnt::cmds_sent], tag);
    EXPECT_EQ(A.tx_cnt()[TxCnt::pdus_rtx], 0u);
  }
}

TEST(SueNic, NumXpusOutside2To1024IsRefused) {
  for (unsigned k : {0u, 1u, 1025u}) {
    NicConfig c = cfg_for(0, 1);
    c.tp.num_xpus = k;
    const std::string e = c.validate();
    EXPECT_NE(e.find("sue::Nic: NumXpus=" + std::to_string(k) + " (allowed: 2..1024)"), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    EXPECT_THROW(Nic{c}, std::invalid_argument);
  }
  for (unsigned k : {2u, 1024u}) {
    NicConfig c = cfg_for(0, 1);
    c.tp.num_xpus = k;
    EXPECT_EQ(c.validate(), "") << k;
  }
}

// No peer table: the XPU id is the peer index. A command to the own id or to an id >= NumXpus is
// refused (cmd_bad, as the twin's err_dest) and leaves no trace; a frame from such a source, or not
// addressed to this XPU, is dropped as from an unknown peer (drop_hdr), a frame of XPU 0 is taken.
TEST(SueNic, OwnOrOutOfRangeXpuIsNoPeer) {
  Nic a(cfg_for(1, 2));  // XPU 1 addresses ids 0..2
  EXPECT_EQ(a.queue_of(0, 0), 0);
  EXPECT_EQ(a.queue_of(2, 3), 11);
  EXPECT_EQ(a.queue_of(1, 0), -1);  // the own id
  EXPECT_EQ(a.queue_of(3, 0), -1);  // beyond NumXpus
  EXPECT_EQ(a.queue_of(0, 4), -1);
  NicCmd c;
  c.dlen = 8;
  EXPECT_FALSE(a.submit(1 * 4 + 0, c, 0));  // the own id
  EXPECT_FALSE(a.submit(3 * 4 + 0, c, 0));  // beyond NumXpus
  EXPECT_EQ(a.tx_cnt()[TxCnt::cmd_bad], 2u);
  EXPECT_EQ(a.tx_cnt()[TxCnt::cmds_in], 0u);
  EXPECT_TRUE(a.idle());
  EXPECT_TRUE(a.submit(2 * 4 + 1, c, 0));
  EXPECT_EQ(a.tx_cnt()[TxCnt::cmds_in], 1u);
  a.advance(200);
  ASSERT_EQ(a.frames().size(), 1u);
  EXPECT_EQ(a.frames()[0].dst, 2u);
  EXPECT_EQ(a.frames()[0].src, 1u);
  a.clear_outputs();

  Nic b(cfg_for(1, 2));
  auto ack_from = [](uint32_t src, uint32_t dst) {
    NicFrame f;
    f.src = src;
    f.dst = dst;
    f.ack_only = true;
    f.packed = 2;
    f.bytes = 64;
    return f;
  };
  b.receive(0, ack_from(3, 1), 10);  // beyond NumXpus
  b.receive(0, ack_from(1, 1), 20);  // the own id
  b.receive(0, ack_from(0, 2), 30);  // not to this XPU
  b.receive(0, ack_from(0, 1), 40);  // XPU 0: a peer
  b.advance(1000);
  EXPECT_EQ(b.rx_cnt()[RxCnt::frames_in], 4u);
  EXPECT_EQ(b.rx_cnt()[RxCnt::drop_hdr], 3u);
  EXPECT_EQ(b.rx_cnt()[RxCnt::ack_frames], 1u);
}

}  // namespace
