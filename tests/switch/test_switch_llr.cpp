// Link layer retry on the switch's host links (sw::Harness with HarnessParams::llr), per
// docs/switch.md "LLR on links": lossless, in order, exactly once at a frame error rate of
// 1e-3 and with bursts; the same errors without LLR lose packets; at zero errors LLR on and
// off deliver the same packets and differ in latency by exactly the LLR pipeline cost;
// bad settings are one line naming the field.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "switch/harness.hpp"
#include "switch/llr_link.hpp"
#include "switch/switch.hpp"

namespace {

using core::Ps;
using sw::Harness;
using sw::HarnessParams;
using sw::LinkStats;
using sw::Params;

constexpr Ps kNs = 1000;

Params small(unsigned radix = 16) {
  Params p;
  p.radix = radix;
  return p;
}

HarnessParams llr_params(bool llr, double fer) {
  HarnessParams hp;
  hp.llr = llr;
  hp.fer = fer;
  return hp;
}

// Sum of both directions of every port.
using Totals = LinkStats;
Totals totals(const Harness& h) {
  Totals t;
  for (unsigned p = 0; p < h.sw().params().radix; ++p) {
    const sw::PortLinkStats s = h.link_stats(p);
    t += s.up;
    t += s.down;
  }
  return t;
}

// Uniform random traffic between all ports, two lossless classes, 1024 B.
void uniform(Harness& h, double load) {
  const unsigned R = h.sw().params().radix;
  for (unsigned s = 0; s < R; ++s) {
    std::vector<uint32_t> d;
    for (uint32_t x = 0; x < R; ++x)
      if (x != s) d.push_back(x);
    for (unsigned c = 0; c < 2; ++c) h.add_source(s, d, c, load / 2, 1024);
  }
}

// ------------------------------------------------------------------ the link alone (reusable: switch <-> switch)

TEST(SwitchLlrLink, BothWaysExactlyOnceInOrderUnderErrorsAndBursts) {
  sw::LlrLinkParams lp;  // 800G, 60 ns FEC + 2 m twinax, docs/llr.md defaults
  lp.faults.fer = 2e-3;
  lp.faults.bursts = {{3000, 30}};
  lp.faults.ctl_drop_prob = 0.01;  // lost ACKs/NACKs too (repaired by the next one or the replay timer)
  sw::LlrLink k(lp, 7, "t");
  std::array<uint64_t, 2> next{1, 1000001}, got_next{1, 1000001};
  std::array<uint64_t, 2> sent{}, got{};
  core::Rng rng(7, "sizes");
  Ps T = 0;
  const uint64_t N = 8000;
  for (; T < 400000 * kNs; T += lp.period) {
    for (sw::LlrLink::Side s : {sw::LlrLink::A, sw::LlrLink::B}) {
      if (sent[s] < N && k.can_take(s)) {
        sw::Packet p;
        p.id = next[s]++;
        p.cls = static_cast<uint8_t>(p.id % 2);
        p.bytes = static_cast<uint32_t>(rng.uniform(64, 1500));
        k.offer(s, p);
        ++sent[s];
      }
    }
    k.edge(T);
    for (sw::LlrLink::Side to : {sw::LlrLink::A, sw::LlrLink::B}) {
      const unsigned from = to == sw::LlrLink::A ? 1 : 0;
      for (const auto& d : k.delivered(to)) {
        ASSERT_EQ(d.p.id, got_next[from]) << "side " << from << ": out of order, lost or duplicated";
        ++got_next[from];
        ++got[from];
      }
      EXPECT_TRUE(k.lost(to).empty());
    }
    if (got[0] == N && got[1] == N && k.in_flight() == 0) break;
  }
  EXPECT_EQ(got[0], N);
  EXPECT_EQ(got[1], N);
  EXPECT_TRUE(k.up());
  for (sw::LlrLink::Side s : {sw::LlrLink::A, sw::LlrLink::B}) {
    const sw::LinkStats st = k.stats(s);
    EXPECT_EQ(st.frames, N);
    EXPECT_EQ(st.delivered_pkts, N);
    EXPECT_GT(st.bad_frames, 5u);
    EXPECT_EQ(st.dropped_frames, 30u);  // the burst
    EXPECT_GT(st.replays, 5u);
    EXPECT_GT(st.frames_replayed, 30u);
    EXPECT_EQ(st.flushes, 0u);
    EXPECT_LE(st.buf_frames_max, 32u);
  }
}

// ------------------------------------------------------------------ settings

TEST(SwitchLlr, ValidationNamesFieldAndAllowedValues) {
  const Params sp;
  auto msg = [&](auto set) {
    HarnessParams hp;
    hp.llr = true;
    set(hp);
    return hp.validate(sp);
  };
  EXPECT_EQ(msg([](HarnessParams&) {}), "");
  EXPECT_EQ(msg([](HarnessParams& h) { h.fer = 2; }), "fer=2 not allowed (allowed 0..1)");
  EXPECT_EQ(msg([](HarnessParams& h) { h.fer = -1e-3; }), "fer=-0.001 not allowed (allowed 0..1)");
  EXPECT_EQ(msg([](HarnessParams& h) { h.fer = std::nan(""); }), "fer=nan not allowed (allowed 0..1)");
  EXPECT_EQ(msg([](HarnessParams& h) { h.link_ns = -1; }), "link_ns=-1 not allowed (allowed 0..10000)");
  EXPECT_EQ(msg([](HarnessParams& h) { h.faults.drop_prob = 1.5; }), "faults drop_prob=1.5 out of range (allowed 0..1)");
  EXPECT_EQ(msg([](HarnessParams& h) { h.llr_params.seq_bits = 3; }),
            "llr_params.seq_bits=3 out of range (allowed 4..31)");
  EXPECT_EQ(msg([](HarnessParams& h) { h.llr_params.len_width = 12; }),
            "llr_params.len_width=12 cannot carry mtu_bytes=4096 (allowed 13..16)");
  EXPECT_EQ(msg([](HarnessParams& h) { h.llr_cfg.frames_max = 0; }),
            "llr_cfg.frames_max=0 not allowed (allowed 1..64: min(2^buf_log2, 2^(seq_bits-1)-1))");
  EXPECT_EQ(msg([](HarnessParams& h) { h.llr_cfg.frames_max = 65; }),
            "llr_cfg.frames_max=65 not allowed (allowed 1..64: min(2^buf_log2, 2^(seq_bits-1)-1))");
  EXPECT_EQ(msg([](HarnessParams& h) {
              h.llr_params.seq_bits = 5;
              h.llr_cfg.frames_max = 16;
            }),
            "llr_cfg.frames_max=16 not allowed (allowed 1..15: min(2^buf_log2, 2^(seq_bits-1)-1))");
  EXPECT_EQ(msg([](HarnessParams& h) { h.llr_cfg.bytes_max = 2000; }),
            "llr_cfg.bytes_max=2000 not allowed (allowed 4096..16777215: at least one mtu_bytes frame)");
  EXPECT_EQ(msg([](HarnessParams& h) { h.llr_cfg.replay_timer = 0; }),
            "llr_cfg.replay_timer=0 not allowed (allowed 1..1048575 LLR cycles)");
  EXPECT_EQ(msg([](HarnessParams& h) { h.llr_cfg.replay_count_max = 0; }),
            "llr_cfg.replay_count_max=0 not allowed (allowed 1..255)");
  EXPECT_EQ(msg([](HarnessParams& h) { h.llr_cfg.ack_spacing = 0; }),
            "llr_cfg.ack_spacing=0 not allowed (allowed 1..65535)");
  Params eight;
  eight.num_classes = 8;
  HarnessParams hp;
  hp.llr = true;
  hp.llr_params.class_width = 2;
  EXPECT_EQ(hp.validate(eight), "llr_params.class_width=2 cannot carry num_classes=8 (allowed 3..3)");
  // the LLR settings are not checked without LLR; the wire settings are
  hp.llr = false;
  EXPECT_EQ(hp.validate(eight), "");
  hp.fer = 7;
  EXPECT_EQ(hp.validate(eight), "fer=7 not allowed (allowed 0..1)");
  // the harness refuses them with the same line
  try {
    Harness h(small(4), hp);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "harness: fer=7 not allowed (allowed 0..1)");
  }
}

// ------------------------------------------------------------------ zero errors: LLR costs only its pipeline

// One 1024 B packet at a time from host 1 to host 2 on an idle switch, LLR off and on.
std::vector<double> single_packets(bool llr, std::vector<double>* switch_ns) {
  Harness h(small(4), llr_params(llr, 0));
  h.run_for(200 * kNs);  // the LLR INIT handshakes
  EXPECT_TRUE(h.links_up());
  for (int k = 0; k < 5; ++k) {
    h.offer(1, 2, k % 2, 1024);
    h.run_for(2000 * kNs);  // idle again (also past the 250-cycle ACK idle timer)
  }
  EXPECT_TRUE(h.idle());
  EXPECT_TRUE(h.scoreboard().finish().clean());
  // min and max of each class (they must agree: every packet sees the same idle system)
  std::vector<double> v;
  for (unsigned c = 0; c < 2; ++c) {
    EXPECT_EQ(h.e2e_latency_ns(c).count(), c == 0 ? 3u : 2u);
    v.push_back(h.e2e_latency_ns(c).min());
    v.push_back(h.e2e_latency_ns(c).max());
    switch_ns->push_back(h.latency_ns(c).min());
    switch_ns->push_back(h.latency_ns(c).max());
  }
  return v;
}

TEST(SwitchLlr, ZeroLoadLatencyIsLlrOffPlusThePipelineCost) {
  std::vector<double> sw_off, sw_on;
  const std::vector<double> off = single_packets(false, &sw_off), on = single_packets(true, &sw_on);
  ASSERT_EQ(off.size(), 4u);
  ASSERT_EQ(on.size(), 4u);
  // Without LLR: first bit on the wire -> last byte at the host: link + switch + serialization + link.
  const double ser = 1024 * 8 / 800.0;  // 10.24 ns
  for (double x : off) EXPECT_NEAR(x, 10 + 250 + ser + 10, 1e-9);
  // With LLR, per direction: the hand-off edge loads the LLR TX holding register, the next edge its
  // wire register, the wire takes it at the edge after (2 cycles from hand-off to the first bit); the
  // LLR RX checks the FCS, so it delivers once the whole frame (with preamble and IFG: 1044 B =
  // 10.44 ns) is in plus the link, at the next LLR edge (1 GHz). Into the switch the frame enters
  // whole at that edge; out of it the departure edge (= head at the egress pin at zero load) hands
  // it to the port's LLR TX. The end-to-end latency counts from the first bit on the source wire.
  const double P = 1.0, S = 1044 * 8 / 800.0, L = 10.0;
  const double up = std::ceil(2 * P + S + L - 1e-9);                  // hand-off -> into the switch: 23 ns
  const double total = std::ceil(up + 250 + 2 * P + S + L - 1e-9) - 2 * P;  // first bit -> host: 294 ns
  for (double x : on) EXPECT_NEAR(x, total, 1e-9);
  // the LLR pipeline cost at zero load: 10.44 ns store-and-forward of the frame at the switch's LLR
  // RX, 2 x 0.56 ns to the next LLR edge, 2 cycles of the switch port's LLR TX, 0.2 ns of preamble
  // and IFG before the host's LLR RX has the last byte (and 2 more cycles at the source host before
  // the first bit, outside this measure)
  EXPECT_NEAR(total - (10 + 250 + ser + 10), 13.76, 1e-9);
  // the switch itself is untouched: 250 ns pin to pin either way
  for (double x : sw_off) EXPECT_NEAR(x, 250, 1e-9);
  for (double x : sw_on) EXPECT_NEAR(x, 250, 1e-9);
}

TEST(SwitchLlr, ZeroErrorsOnAndOffDeliverTheSamePackets) {
  std::vector<std::unique_ptr<Harness>> hs;
  for (bool llr : {false, true}) {
    auto h = std::make_unique<Harness>(small(), llr_params(llr, 0));
    h->run_for(200 * kNs);
    uniform(*h, 0.6);
    h->reset_stats();
    h->run_for(15000 * kNs);
    ASSERT_TRUE(h->drain(200000 * kNs));
    hs.push_back(std::move(h));
  }
  const core::Scoreboard::Counts a = hs[0]->scoreboard().finish(), b = hs[1]->scoreboard().finish();
  EXPECT_TRUE(a.clean());
  EXPECT_TRUE(b.clean());
  EXPECT_GT(a.matched, 10000u);
  EXPECT_EQ(a.expected, b.expected);  // the same packets offered (the sources do not see the links)...
  EXPECT_EQ(a.matched, b.matched);    // ...and every one delivered, in order, in both runs
  const Totals t = totals(*hs[1]);
  EXPECT_EQ(t.replays, 0u);
  EXPECT_EQ(t.nacks, 0u);
  EXPECT_EQ(t.bad_frames, 0u);
  EXPECT_GT(t.buf_frames_max, 0u);
  // Latency: LLR adds its pipeline (13.76 ns at zero load from the first bit on the wire, see
  // ZeroLoadLatencyIsLlrOffPlusThePipelineCost) and the wire time of its ACK words; nothing else.
  for (unsigned c = 0; c < 2; ++c) {
    const double d = hs[1]->e2e_latency_ns(c).mean() - hs[0]->e2e_latency_ns(c).mean();
    EXPECT_GT(d, 13.0) << c;
    EXPECT_LT(d, 15.0) << c;
    EXPECT_NEAR(hs[1]->latency_ns(c).percentile(50), hs[0]->latency_ns(c).percentile(50), 2.0) << c;
  }
}

// ------------------------------------------------------------------ errors: LLR repairs them

struct ErrRun {
  core::Scoreboard::Counts sb;
  Totals t;
  bool drained = false;
  uint64_t wire_losses = 0;
  double p50 = 0, p99 = 0, max = 0, replayed_p50 = 0;
  size_t replayed_n = 0;
  double goodput0 = 0;  // port 0 downlink (incast)
};

ErrRun uniform_run(bool llr, double fer, const sw::HarnessParams* base = nullptr) {
  HarnessParams hp = base ? *base : HarnessParams{};
  hp.llr = llr;
  hp.fer = fer;
  Harness h(small(), hp);
  h.run_for(200 * kNs);
  uniform(h, 0.6);
  h.reset_stats();
  h.run_for(20000 * kNs);
  ErrRun r;
  r.drained = h.drain(200000 * kNs);
  r.sb = h.scoreboard().finish();
  r.t = totals(h);
  r.wire_losses = h.wire_losses();
  r.p50 = h.e2e_latency_ns(0).percentile(50);
  r.p99 = h.e2e_latency_ns(0).percentile(99);
  r.max = h.e2e_latency_ns(0).max();
  r.replayed_n = h.e2e_latency_replayed_ns().count();
  if (r.replayed_n) r.replayed_p50 = h.e2e_latency_replayed_ns().percentile(50);
  return r;
}

TEST(SwitchLlr, Fer1e3UniformIsLosslessInOrderExactlyOnce) {
  const ErrRun on = uniform_run(true, 1e-3);
  EXPECT_TRUE(on.drained);
  EXPECT_TRUE(on.sb.clean()) << on.sb.lost << " lost " << on.sb.duplicated << " dup " << on.sb.reordered << " reord";
  EXPECT_GT(on.sb.matched, 15000u);
  EXPECT_EQ(on.wire_losses, 0u);
  EXPECT_EQ(on.t.lost_pkts, 0u);
  EXPECT_EQ(on.t.flushes, 0u);
  // ~2 x 15,000 frames on the wires at 1e-3: tens of bad frames, each answered by a NACK and a replay
  EXPECT_GT(on.t.bad_frames, 10u);
  EXPECT_GT(on.t.replays, 10u);
  EXPECT_GE(on.t.nacks, on.t.replays / 2);
  EXPECT_GE(on.t.frames_replayed, on.t.replays);
  EXPECT_LE(on.t.buf_frames_max, 32u);  // llr_cfg.frames_max
  // a replay costs a round trip: the replayed packets sit in the latency tail
  EXPECT_GT(on.replayed_n, 10u);
  EXPECT_GT(on.replayed_p50, on.p50 + 20.0);
  EXPECT_GE(on.max, on.replayed_p50);
}

TEST(SwitchLlr, Fer1e3WithoutLlrLosesPackets) {
  const ErrRun off = uniform_run(false, 1e-3);
  // the same error rate without LLR: every corrupted frame is a lost packet, and the scoreboard sees it
  EXPECT_GT(off.wire_losses, 10u);
  EXPECT_EQ(off.t.lost_pkts, off.wire_losses);
  EXPECT_EQ(off.sb.lost, off.wire_losses);
  EXPECT_FALSE(off.sb.clean());
  EXPECT_EQ(off.t.replays, 0u);
}

TEST(SwitchLlr, BurstsAndRandomDropsAreRepaired) {
  HarnessParams hp;
  hp.faults.bursts = {{200, 20}, {900, 5}};  // 20 and 5 consecutive frames lost on every wire
  hp.faults.drop_prob = 2e-4;
  const ErrRun on = uniform_run(true, 5e-4, &hp);
  EXPECT_TRUE(on.drained);
  EXPECT_TRUE(on.sb.clean()) << on.sb.lost << " lost " << on.sb.duplicated << " dup " << on.sb.reordered << " reord";
  EXPECT_EQ(on.t.flushes, 0u);
  EXPECT_GT(on.t.replays, 32u);  // at least one per burst on every wire that saw one
  EXPECT_EQ(on.wire_losses, 0u);
}

TEST(SwitchLlr, LossyClassFramesAreNotReplayed) {
  // class 1 lossy: its frames are LLR-ineligible, so a bad one is dropped for good; class 0 is repaired
  Params p = small();
  p.classes[1].lossless = false;
  Harness h(p, llr_params(true, 2e-3));
  h.run_for(200 * kNs);
  uniform(h, 0.6);
  h.run_for(20000 * kNs);
  EXPECT_TRUE(h.drain(200000 * kNs));  // the lost ones are accounted, nothing hangs
  const core::Scoreboard::Counts sb = h.scoreboard().finish();
  const Totals t = totals(h);
  EXPECT_GT(h.wire_losses(), 5u);
  EXPECT_EQ(t.lost_pkts, h.wire_losses());
  EXPECT_EQ(sb.lost, h.wire_losses());  // every loss is a lossy-class packet the wire corrupted...
  EXPECT_EQ(h.sw().summary().drops_lossy, 0u);
  EXPECT_GT(t.replays, 5u);             // ...while the lossless class's bad frames are replayed
  EXPECT_LT(t.replays, t.bad_frames);
}

// Many to one: 8 backlogged senders into port 0, CBFC; FER 1e-3 on every wire.
struct IncastRun {
  core::Scoreboard::Counts sb;
  Totals t;
  bool drained;
  double goodput0, line;
};
IncastRun incast(bool llr, double fer, sw::FlowControl fc) {
  Params p = small();
  p.fc = fc;
  Harness h(p, llr_params(llr, fer));
  h.run_for(200 * kNs);
  for (unsigned s = 1; s <= 8; ++s) h.add_source(s, {0}, 0, 1.0, 1024);
  h.run_for(3000 * kNs);
  h.reset_stats();
  h.run_for(50000 * kNs);
  IncastRun r;
  r.goodput0 = h.goodput_gbps(h.link_stats(0).down);
  r.line = 800.0 * 1024 / 1044;
  r.drained = h.drain(500000 * kNs);
  r.sb = h.scoreboard().finish();
  r.t = totals(h);
  return r;
}

TEST(SwitchLlr, Fer1e3IncastCbfcAndPfcAreLossless) {
  for (sw::FlowControl fc : {sw::FlowControl::cbfc, sw::FlowControl::pfc}) {
    const IncastRun r = incast(true, 1e-3, fc);
    EXPECT_TRUE(r.drained) << sw::to_string(fc);
    EXPECT_TRUE(r.sb.clean()) << sw::to_string(fc) << ": " << r.sb.lost << " lost " << r.sb.duplicated << " dup "
                              << r.sb.reordered << " reord";
    // ~4,800 frames into port 0 and ~600 from each sender in 50 us: ~10 bad frames expected at 1e-3
    EXPECT_GE(r.t.replays, 3u) << sw::to_string(fc);
    EXPECT_EQ(r.t.lost_pkts, 0u) << sw::to_string(fc);
    // port 0's downlink: the bottleneck keeps running; each replay costs the frames in flight
    EXPECT_GT(r.goodput0, 0.97 * r.line) << sw::to_string(fc);
    EXPECT_LE(r.goodput0, r.line * 1.0001) << sw::to_string(fc);
  }
  const IncastRun off = incast(false, 1e-3, sw::FlowControl::cbfc);
  EXPECT_GT(off.sb.lost, 0u);
}

}  // namespace
