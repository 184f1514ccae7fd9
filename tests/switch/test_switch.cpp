// Unit tests of the flit-level switch model (switch/), per docs/switch.md "Test plan".
// Every expectation is a concrete number derived from the parameters.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "switch/harness.hpp"
#include "switch/switch.hpp"

namespace {

using core::Ps;
using sw::FlowControl;
using sw::Forwarding;
using sw::Harness;
using sw::HarnessParams;
using sw::Packet;
using sw::Params;
using sw::Switch;

constexpr Ps kNs = 1000;

// Payload Gb/s of a port at line rate with `bytes` packets (preamble + IFG cost 20 B).
double line_payload_gbps(const Params& p, uint32_t bytes) {
  return p.port_gbps * static_cast<double>(bytes) / (bytes + p.overhead_bytes);
}
double gbps(uint64_t bytes, Ps window) { return static_cast<double>(bytes) * 8000.0 / static_cast<double>(window); }

// One packet through an idle switch; returns its departure record.
Packet one_packet(const Params& p, uint32_t bytes, Ps t_in = 0) {
  Switch s(p);
  s.set_route(5, 7);
  Packet pk;
  pk.id = 1;
  pk.dst_xpu = 5;
  pk.bytes = bytes;
  pk.cls = 1;
  pk.t_in = t_in;
  s.inject(3, pk);
  std::vector<Packet> out;
  while (out.empty() && s.now() < t_in + 10000 * kNs) {
    s.tick();
    for (const Packet& d : s.departures()) out.push_back(d);
  }
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? Packet{} : out[0];
}

// ------------------------------------------------------------------ parameters

TEST(SwitchParams, DefaultsValidAndBreakdownSumsTo250ns) {
  Params p;
  EXPECT_EQ(p.validate(), "");
  double sum = 0;
  for (const auto& st : p.breakdown()) sum += st.ns;
  EXPECT_DOUBLE_EQ(sum, 250.0);
  EXPECT_EQ(p.breakdown().size(), 10u);
  EXPECT_EQ(p.zero_load_latency(), 250 * kNs);
  EXPECT_EQ(p.ingress_ready_delay(), 85 * kNs);
  EXPECT_EQ(p.egress_delay(), 135 * kNs);
  EXPECT_EQ(p.lanes(), 4u);
  EXPECT_EQ(p.period(), 1000);
  EXPECT_EQ(p.serialization(1000), 10 * kNs);   // 800G
  EXPECT_EQ(p.pause_time(0xffff), 41942400);    // 65535 x 512 bit / 800G
  EXPECT_NE(p.breakdown_table().find("  total        250.0 ns"), std::string::npos) << p.breakdown_table();
}

TEST(SwitchParams, ValidationNamesFieldAndAllowedValues) {
  Params p;
  p.port_gbps = 300;
  EXPECT_EQ(p.validate(), "port_gbps=300 not allowed (allowed 800|400|200|100)");
  p = Params();
  p.lane_gbps = 100;  // 800G from 100G lanes: 8 lanes, not in tables 6/7
  EXPECT_EQ(p.validate().rfind("lane_gbps=100 with port_gbps=800 gives 8 lanes (allowed 1|2|4 lanes per port", 0), 0u)
      << p.validate();
  p = Params();
  p.port_gbps = 400;
  p.lane_gbps = 100;  // 4 x 100G: allowed
  EXPECT_EQ(p.validate(), "");
  p = Params();
  p.flit_bytes = 64;  // 64 B x 1 GHz = 512 Gb/s < 800G
  EXPECT_EQ(p.validate().rfind("flit_bytes=64 x core_mhz=1000 carries 512 Gb/s per output, below port_gbps=800", 0), 0u)
      << p.validate();
  p = Params();
  p.flit_bytes = 100;
  EXPECT_EQ(p.validate(), "flit_bytes=100 not allowed (allowed 32|64|128|256|512|1024)");
  p = Params();
  p.radix = 0;
  EXPECT_EQ(p.validate(), "radix=0 out of range (allowed 1..1024)");
  p = Params();
  p.num_classes = 9;
  EXPECT_EQ(p.validate(), "num_classes=9 out of range (allowed 1..8)");
  p = Params();
  p.classes[1].weight = 0;
  EXPECT_EQ(p.validate(), "classes[1].weight=0 out of range (allowed 1..1000)");
  p = Params();
  p.tx_phy_ns = -1;
  EXPECT_EQ(p.validate(), "tx_phy_ns=-1 out of range (allowed 0..100000)");
  p = Params();
  p.cbfc_buf_cells = 40000;
  EXPECT_EQ(p.validate(), "cbfc_buf_cells=40000 out of range (allowed 32..32767: at least one MTU, counters are 16 bits)");
  p = Params();
  p.ecn_kmin_bytes = p.ecn_kmax_bytes;
  EXPECT_EQ(p.validate(), "ecn_kmin_bytes=262144 out of range (allowed < ecn_kmax_bytes=262144)");
  p = Params();
  p.buffer_bytes = 8 << 20;  // 64 ports x 2 classes x 512 cells x 128 B = 8 MiB reserved, no shared pool left
  EXPECT_EQ(p.validate().rfind("buffer_bytes=8388608 too small (allowed >= 8650752", 0), 0u) << p.validate();
  p = Params();
  p.fc = FlowControl::pfc;
  p.pfc_resume_offset_cells = 256;
  EXPECT_EQ(p.validate(), "pfc_resume_offset_cells=256 out of range (allowed 0..pfc_xoff_cells-1=255)");
  p = Params();
  p.port_gbps = 500;
  try {
    Switch s(p);
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "switch: port_gbps=500 not allowed (allowed 800|400|200|100)");
  }
}

TEST(SwitchParams, BadPacketsAreRejected) {
  Switch s{Params()};
  Packet pk;
  pk.bytes = 5000;
  EXPECT_THROW(s.inject(0, pk), std::invalid_argument);  // above MTU
  pk.bytes = 100;
  pk.cls = 2;
  EXPECT_THROW(s.inject(0, pk), std::invalid_argument);  // class out of range
  pk.cls = 0;
  EXPECT_THROW(s.inject(64, pk), std::invalid_argument);  // port out of range
  pk.t_in = 100 * kNs;
  s.inject(0, pk);
  pk.t_in = 100 * kNs;  // overlaps the previous packet on the same port
  EXPECT_THROW(s.inject(0, pk), std::invalid_argument);
  EXPECT_THROW(s.set_route(1024, 0), std::invalid_argument);
}

// ------------------------------------------------------------------ zero-load latency

TEST(SwitchLatency, CutThroughZeroLoadIsSumOfStages) {
  for (unsigned gbps : {800u, 400u, 200u, 100u}) {
    Params p;
    p.port_gbps = gbps;
    p.lane_gbps = gbps >= 200 ? 200 : 100;
    const Packet d = one_packet(p, 1000, 7 * kNs);
    EXPECT_EQ(d.egress_port, 7);
    EXPECT_EQ(d.t_head_out - d.t_in, 250 * kNs) << gbps;
    EXPECT_EQ(d.t_ready - d.t_in, 85 * kNs);           // rx_phy + rx_mac + parse + lookup
    EXPECT_EQ(d.t_buffered - d.t_ready, 20 * kNs);     // admit
    EXPECT_EQ(d.t_scheduled - d.t_buffered, 10 * kNs); // sched
    EXPECT_EQ(d.t_head_out - d.t_scheduled, 135 * kNs);// xbar + egress + tx_mac + tx_phy
    EXPECT_EQ(d.t_tail_out - d.t_head_out, p.serialization(1000));
    EXPECT_FALSE(d.ecn);
  }
}

TEST(SwitchLatency, StoreAndForwardAddsSerialization) {
  for (unsigned gbps : {800u, 200u}) {
    Params p;
    p.forwarding = Forwarding::store_and_forward;
    p.port_gbps = gbps;
    const Ps ser = p.serialization(1000);  // 10 ns at 800G, 40 ns at 200G
    const Packet d = one_packet(p, 1000);
    EXPECT_EQ(d.t_head_out - d.t_in, 250 * kNs + ser) << gbps;
    EXPECT_EQ(d.t_ready - d.t_in, 85 * kNs);
    EXPECT_EQ(d.t_buffered - d.t_ready, 20 * kNs + ser);  // the whole packet is written
    EXPECT_EQ(d.t_scheduled - d.t_buffered, 10 * kNs);
    EXPECT_EQ(d.t_head_out - d.t_scheduled, 135 * kNs);
  }
}

TEST(SwitchLatency, StageParametersAreHonoured) {
  Params p;
  p.rx_phy_ns = 100;
  p.lookup_ns = 5;
  p.xbar_ns = 0;
  p.tx_phy_ns = 40;
  EXPECT_EQ(p.zero_load_latency(), 230 * kNs);
  const Packet d = one_packet(p, 64);
  EXPECT_EQ(d.t_head_out - d.t_in, 230 * kNs);
  EXPECT_EQ(d.t_ready - d.t_in, 125 * kNs);
  EXPECT_EQ(d.t_head_out - d.t_scheduled, 75 * kNs);  // 0 + 25 + 10 + 40
}

TEST(SwitchLatency, UnroutedPacketIsDroppedAndCounted) {
  Switch s{Params()};
  Packet pk;
  pk.dst_xpu = 9;
  pk.bytes = 64;
  s.inject(2, pk);
  s.run_until(200 * kNs);
  EXPECT_EQ(s.stats(2, 0).drops_no_route, 1u);
  EXPECT_EQ(s.lossless_drops(), 0u);
}

// held(): exactly the packets injected and neither departed nor dropped, at every edge of a 6:1
// incast that queues dozens of them (what tb/system loses with a failed plane).
TEST(SwitchLatency, HeldIsWhatWasInjectedAndIsNotOutOrDropped) {
  Params p;
  p.fc = FlowControl::pfc;  // no downstream credits to hand back: nothing pauses the egress
  Switch s(p);
  for (uint32_t x = 0; x < 8; ++x) s.set_route(x, x);
  std::set<uint64_t> live;
  uint64_t id = 0;
  const Ps gap = static_cast<Ps>((1024 + p.overhead_bytes) * 8000 / p.port_gbps) + 1;
  for (unsigned port = 1; port <= 6; ++port)
    for (unsigned k = 0; k < 20; ++k) {
      Packet pk;
      pk.id = ++id;
      pk.dst_xpu = k == 7 && port == 3 ? 9 : 0;  // one without a route: dropped
      pk.bytes = 1024;
      pk.t_in = k * gap;
      s.inject(port, pk);
      live.insert(pk.id);
    }
  size_t most = 0;
  uint64_t dropped = 0;
  while (!live.empty() && s.now() < 100000 * kNs) {
    s.tick();
    for (const Packet& d : s.departures()) EXPECT_EQ(live.erase(d.id), 1u) << d.id;
    for (const auto& d : s.drops()) dropped += live.erase(d.first.id);
    std::set<uint64_t> held;
    for (const Packet& h : s.held()) EXPECT_TRUE(held.insert(h.id).second) << h.id;
    ASSERT_EQ(held, live) << "at " << s.now();
    ASSERT_EQ(s.in_flight(), live.size());
    most = std::max(most, live.size());
  }
  EXPECT_TRUE(live.empty());
  EXPECT_TRUE(s.held().empty());
  EXPECT_EQ(dropped, 1u);
  EXPECT_GT(most, 50u);
}

// A route hook may pick the egress class (output VC, as the Dragonfly's PAR-6/2 does):
// the packet leaves on the new class and takes its downstream credits, while its
// ingress buffer and the credits returned upstream stay on the class it arrived in.
TEST(SwitchRouteHook, EgressClassChosenByHookKeepsIngressAccountingOnArrivalClass) {
  Params p;  // CBFC, classes 0 and 1 lossless
  Switch s(p);
  s.set_route_fn([](Switch&, Packet& pk) {
    pk.cls = 1;
    return 7;
  });
  Packet pk;
  pk.id = 1;
  pk.dst_xpu = 5;
  pk.bytes = 1024;  // 8 cells
  pk.cls = 0;
  s.inject(3, pk);
  const uint32_t avail0 = s.egress_avail_credits(7, 0), avail1 = s.egress_avail_credits(7, 1);
  std::vector<Packet> out;
  std::vector<unsigned> credit_cls;
  while (s.now() < 2000 * kNs) {
    s.tick();
    for (const Packet& d : s.departures()) out.push_back(d);
    for (const sw::FcMsg& m : s.fc_out())
      if (m.kind == sw::FcMsg::Kind::credit && m.port == 3) credit_cls.push_back(m.cls);
  }
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].cls, 1u);
  EXPECT_EQ(out[0].egress_port, 7);
  EXPECT_EQ(s.stats(3, 0).rx_pkts, 1u);
  EXPECT_EQ(s.stats(7, 1).tx_pkts, 1u);
  EXPECT_EQ(s.stats(7, 0).tx_pkts, 0u);
  EXPECT_EQ(s.stats(3, 0).ing_cells, 0u);  // freed on the arrival class
  EXPECT_EQ(s.egress_avail_credits(7, 0), avail0);
  EXPECT_EQ(s.egress_avail_credits(7, 1), avail1 - 8);  // no credits come back from downstream here
  ASSERT_FALSE(credit_cls.empty());
  for (unsigned c : credit_cls) EXPECT_EQ(c, 0u);
  // a class that does not exist is a bug in the hook
  Switch t(p);
  t.set_route_fn([](Switch&, Packet& q) {
    q.cls = 5;
    return 7;
  });
  t.inject(3, pk);
  EXPECT_THROW(t.run_until(1000 * kNs), std::logic_error);
}

// ------------------------------------------------------------------ throughput

TEST(SwitchThroughput, OnePortToOnePortReachesLineRate) {
  for (Forwarding f : {Forwarding::cut_through, Forwarding::store_and_forward}) {
    Params p;
    p.forwarding = f;
    Harness h(p);
    h.add_source(0, {1}, 0, 1.0, 1024);
    h.run_for(2000 * kNs);
    h.reset_stats();
    h.run_for(20000 * kNs);
    const double g = gbps(h.host(1).recv_bytes, h.window());
    const double line = line_payload_gbps(p, 1024);  // 784.67 Gb/s
    EXPECT_GT(g, 0.999 * line) << sw::to_string(f);
    EXPECT_LT(g, 1.001 * line);
    EXPECT_EQ(h.host(0).credit_stall[0], 0);  // 64 KiB of credits cover the credit round trip
    EXPECT_TRUE(h.drain(5000 * kNs));
    EXPECT_TRUE(h.scoreboard().finish().clean());
  }
}

TEST(SwitchThroughput, UniformRandom64PortsAt08Load) {
  Params p;
  Harness h(p);
  for (unsigned s = 0; s < 64; ++s) {
    std::vector<uint32_t> d;
    for (uint32_t x = 0; x < 64; ++x)
      if (x != s) d.push_back(x);
    h.add_source(s, d, 0, 0.4, 1024);
    h.add_source(s, d, 1, 0.4, 1024);
  }
  h.run_for(3000 * kNs);
  h.reset_stats();
  h.run_for(40000 * kNs);
  uint64_t offered = 0, recv = 0;
  for (unsigned x = 0; x < 64; ++x) offered += h.host(x).offered_bytes, recv += h.host(x).recv_bytes;
  const double off_g = gbps(offered, h.window()), got_g = gbps(recv, h.window());
  EXPECT_NEAR(off_g / (64 * line_payload_gbps(p, 1024)), 0.8, 0.01);
  EXPECT_NEAR(got_g / off_g, 1.0, 0.005);
  const sw::Summary m = h.sw().summary();
  EXPECT_EQ(m.drops_lossless + m.drops_lossy + m.drops_no_route, 0u);
  EXPECT_GT(m.jain_ingress, 0.998);
  EXPECT_GT(m.jain_egress, 0.998);
  EXPECT_LT(m.imbalance_egress, 1.1);
  EXPECT_LT(m.q_bytes_p95_max, 32 * 1024.0);  // 0.8 load: queues stay short
  EXPECT_TRUE(h.drain(10000 * kNs));
  const auto& c = h.scoreboard().finish();
  EXPECT_TRUE(c.clean());
  EXPECT_GT(c.matched, 150000u);
}

// ------------------------------------------------------------------ incast and flow control

struct IncastResult {
  double egress_gbps;
  uint64_t lossless_drops;
  uint32_t max_ing_cells;
  uint32_t max_hdrm_cells;
  uint64_t q_max;
  Ps min_host_stall;
  uint64_t pause_sent;
  uint64_t pauses_rcvd_min;
  double jain;
  bool clean;
};

IncastResult incast(const Params& p, unsigned n) {
  Harness h(p);
  for (unsigned s = 1; s <= n; ++s) h.add_source(s, {0}, 0, 1.0, 1024);
  h.run_for(2000 * kNs);
  h.reset_stats();
  h.run_for(30000 * kNs);
  IncastResult r{};
  r.egress_gbps = gbps(h.host(0).recv_bytes, h.window());
  r.lossless_drops = h.sw().lossless_drops();
  r.min_host_stall = INT64_MAX;
  r.pauses_rcvd_min = UINT64_MAX;
  for (unsigned s = 1; s <= n; ++s) {
    const sw::PortClassStats& st = h.sw().stats(s, 0);
    r.max_ing_cells = std::max(r.max_ing_cells, st.ing_cells_max);
    r.max_hdrm_cells = std::max(r.max_hdrm_cells, st.hdrm_cells_max);
    r.pause_sent += st.pause_sent;
    r.min_host_stall = std::min(r.min_host_stall, p.fc == FlowControl::cbfc ? h.host(s).credit_stall[0]
                                                                            : h.host(s).pause_stall[0]);
    r.pauses_rcvd_min = std::min(r.pauses_rcvd_min, h.host(s).pauses_rcvd[0]);
  }
  r.q_max = h.sw().stats(0, 0).q_bytes_max;
  r.jain = h.sw().summary().jain_ingress;
  r.clean = h.drain(200000 * kNs) && h.scoreboard().finish().clean();
  return r;
}

TEST(SwitchFlowControl, Incast16to1CbfcIsLosslessAndBoundedByCredits) {
  Params p;
  const IncastResult r = incast(p, 16);
  EXPECT_EQ(r.lossless_drops, 0u);
  EXPECT_LE(r.max_ing_cells, p.cbfc_buf_cells);           // never above the credits granted
  EXPECT_GE(r.max_ing_cells, p.cbfc_buf_cells - 8);       // ... and the credits are used
  EXPECT_LE(r.q_max, 16ull * p.cbfc_buf_cells * 128);     // egress queue bounded by 16 x credits
  EXPECT_GT(r.q_max, 15ull * p.cbfc_buf_cells * 128 - 16 * 1024);
  EXPECT_GT(r.min_host_stall, 25000 * kNs);               // every upstream mostly credit-stalled (15/16)
  EXPECT_GT(r.egress_gbps, 0.999 * line_payload_gbps(p, 1024));
  EXPECT_GT(r.jain, 0.9999);
  EXPECT_TRUE(r.clean);
}

TEST(SwitchFlowControl, Incast16to1PfcIsLosslessAndBelowXoffPlusHeadroom) {
  Params p;
  p.fc = FlowControl::pfc;
  const IncastResult r = incast(p, 16);
  EXPECT_EQ(r.lossless_drops, 0u);
  EXPECT_GT(r.pause_sent, 16u);
  EXPECT_GE(r.pauses_rcvd_min, 1u);
  EXPECT_LE(r.max_ing_cells, p.pfc_xoff_cells + p.pfc_headroom_cells);
  EXPECT_GT(r.max_hdrm_cells, 0u);                        // in-flight data landed in headroom
  EXPECT_GT(r.min_host_stall, 10000 * kNs);               // upstreams spent time paused
  EXPECT_GT(r.egress_gbps, 0.999 * line_payload_gbps(p, 1024));
  EXPECT_GT(r.jain, 0.99);
  EXPECT_TRUE(r.clean);
}

// Requests (class 0) blocked downstream must not block responses (class 1).
TEST(SwitchFlowControl, PausedRequestsDoNotBlockResponses) {
  for (FlowControl fc : {FlowControl::cbfc, FlowControl::pfc}) {
    Params p;
    p.fc = fc;
    HarnessParams hp;
    hp.block_classes = 1u << 0;
    Harness h(p, hp);
    for (unsigned s = 1; s <= 4; ++s) {
      h.add_source(s, {0}, 0, 1.0, 1024);
      h.add_source(s, {0}, 1, 1.0, 1024);
    }
    h.run_for(2000 * kNs);
    h.reset_stats();
    h.run_for(20000 * kNs);
    const sw::PortClassStats& req = h.sw().stats(0, 0);
    const sw::PortClassStats& rsp = h.sw().stats(0, 1);
    // CBFC: class 0 got exactly the downstream's initial credits (512 cells = 64 packets of 8
    // cells) before the window; PFC: class 0 was paused before its first packet was eligible.
    EXPECT_EQ(req.tx_pkts, 0u) << sw::to_string(fc);
    EXPECT_GT(gbps(rsp.tx_bytes, h.window()), 0.999 * line_payload_gbps(p, 1024)) << sw::to_string(fc);
    EXPECT_EQ(h.sw().lossless_drops(), 0u);
    for (unsigned s = 1; s <= 4; ++s) {
      EXPECT_LE(h.sw().stats(s, 0).ing_cells_max,
                fc == FlowControl::cbfc ? p.cbfc_buf_cells : p.pfc_xoff_cells + p.pfc_headroom_cells);
      // the upstream's requests are held back the whole window, its responses flow
      const Ps held = fc == FlowControl::cbfc ? h.host(s).credit_stall[0] : h.host(s).pause_stall[0];
      EXPECT_GT(held, 15000 * kNs);
      EXPECT_GT(h.host(s).sent_bytes, 0.24 * 20000 * 100);  // a quarter of the egress line each
    }
    if (fc == FlowControl::cbfc) {
      EXPECT_EQ(h.sw().egress_avail_credits(0, 0), 0u);
      EXPECT_GT(req.credit_stall, 0);
    } else {
      EXPECT_EQ(req.paused_time, 20000 * kNs);
      EXPECT_GT(req.pause_stall, 0);
    }
  }
}

// ------------------------------------------------------------------ ECN

TEST(SwitchEcn, RedMarksOnlyAboveKminAndAlwaysAboveKmax) {
  Params p;
  p.ecn_kmin_bytes = 32 << 10;
  p.ecn_kmax_bytes = 96 << 10;
  p.ecn_pmax = 0.5;
  Harness h(p);
  h.keep_log(true);
  for (int burst = 0; burst < 6; ++burst) {
    for (unsigned s = 1; s <= 4; ++s)
      for (int k = 0; k < 60; ++k) h.offer(s, 0, 0, 1024);
    ASSERT_TRUE(h.drain(100000 * kNs));
  }
  uint64_t below = 0, below_marked = 0, mid = 0, mid_marked = 0, above = 0, above_marked = 0, marked = 0;
  for (const Packet& d : h.delivered_log()) {
    marked += d.ecn;
    if (d.ecn_depth <= p.ecn_kmin_bytes) {
      ++below;
      below_marked += d.ecn;
    } else if (d.ecn_depth <= p.ecn_kmax_bytes) {
      ++mid;
      mid_marked += d.ecn;
    } else {
      ++above;
      above_marked += d.ecn;
    }
  }
  EXPECT_EQ(h.delivered_log().size(), 6u * 4 * 60);
  EXPECT_GT(below, 100u);
  EXPECT_EQ(below_marked, 0u);
  EXPECT_GT(mid, 100u);
  EXPECT_GT(mid_marked, 0u);
  EXPECT_LT(mid_marked, mid);
  EXPECT_GT(above, 100u);
  EXPECT_EQ(above_marked, above);
  EXPECT_EQ(h.sw().stats(0, 0).ecn_marks, marked);
}

// ------------------------------------------------------------------ scheduling

TEST(SwitchScheduling, StrictPriorityServesHighClassFirst) {
  Params p;
  p.classes[1].priority = 1;  // responses above requests
  Harness h(p);
  h.add_source(1, {0}, 0, 1.0, 1024);  // requests: backlogged
  h.add_source(2, {0}, 0, 1.0, 1024);
  h.add_source(3, {0}, 1, 0.4, 1024);  // responses: 40% of the port
  h.run_for(3000 * kNs);
  h.reset_stats();
  h.run_for(60000 * kNs);
  const double line = line_payload_gbps(p, 1024);
  const double hi = gbps(h.sw().stats(0, 1).tx_bytes, h.window()) / line;
  const double lo = gbps(h.sw().stats(0, 0).tx_bytes, h.window()) / line;
  const double offered_hi = gbps(h.host(3).offered_bytes, h.window()) / line;
  EXPECT_NEAR(offered_hi, 0.4, 0.02);
  EXPECT_NEAR(hi, offered_hi, 0.01);      // the high class gets all it offers
  EXPECT_NEAR(lo, 1.0 - hi, 0.005);       // the low class gets exactly the rest
  // A response waits at most for the packet on the wire and the one granted behind it.
  EXPECT_LT(h.latency_ns(1).percentile(50), 250.0 + 2 * 10.44 + 1);
}

TEST(SwitchScheduling, WeightedRoundRobinSharesBytes) {
  struct Case {
    unsigned w0, w1;
    uint32_t b0, b1;
    double share0;
  };
  for (const Case& k : {Case{3, 1, 1024, 1024, 0.75}, Case{1, 1, 256, 2048, 0.5}, Case{1, 4, 512, 1024, 0.2}}) {
    Params p;
    p.classes[0].weight = k.w0;
    p.classes[1].weight = k.w1;
    Harness h(p);
    h.add_source(1, {0}, 0, 1.0, k.b0);
    h.add_source(2, {0}, 1, 1.0, k.b1);
    h.run_for(3000 * kNs);
    h.reset_stats();
    h.run_for(40000 * kNs);
    const double b0 = static_cast<double>(h.sw().stats(0, 0).tx_bytes);
    const double b1 = static_cast<double>(h.sw().stats(0, 1).tx_bytes);
    EXPECT_NEAR(b0 / (b0 + b1), k.share0, 0.01) << k.w0 << ":" << k.w1;
  }
}

}  // namespace
