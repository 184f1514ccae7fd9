// Unit tests of the Dragonfly fabric on the switch engine (switch/dragonfly.*),
// per docs/switch.md "Dragonfly".
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "switch/dragonfly.hpp"

namespace {

using sw::DfRouting;
using sw::DfStats;
using sw::Dragonfly;
using sw::DragonflyParams;

DragonflyParams small(DfRouting r, double load) {
  DragonflyParams d;
  d.g = 9;
  d.a = 4;
  d.p = 2;
  d.h = 2;
  d.routing = r;
  d.load = load;
  return d;
}

TEST(DragonflyTopology, PaperSizeCountsAndGlobalLinksOncePerGroupPair) {
  DragonflyParams d;  // paper: 33 groups x 8 routers x 4 endpoints, h = 4
  ASSERT_EQ(d.validate(), "");
  d.load = 0;
  Dragonfly df(d);
  EXPECT_EQ(d.routers(), 264u);
  EXPECT_EQ(d.endpoints(), 1056u);
  EXPECT_EQ(d.radix(), 15u);
  EXPECT_EQ(df.router(0).params().radix, 15u);
  EXPECT_EQ(df.links_per_pair(), 1u);
  std::map<std::pair<unsigned, unsigned>, unsigned> pairs;
  unsigned global = 0, local = 0;
  for (unsigned r = 0; r < d.routers(); ++r)
    for (unsigned port = d.p; port < d.radix(); ++port) {
      const auto pr = df.peer(r, port);
      // every channel is bidirectional: the peer's peer is us
      const auto back = df.peer(pr.router, pr.port);
      ASSERT_EQ(back.router, r);
      ASSERT_EQ(back.port, port);
      const unsigned G = df.group_of(r), H = df.group_of(pr.router);
      if (port < d.p + d.a - 1) {
        ++local;
        EXPECT_EQ(G, H);
        EXPECT_NE(pr.router, r);
      } else {
        ++global;
        EXPECT_NE(G, H);
        ++pairs[{std::min(G, H), std::max(G, H)}];
      }
    }
  EXPECT_EQ(local, 264u * 7);
  EXPECT_EQ(global, 264u * 4);
  EXPECT_EQ(pairs.size(), 33u * 32 / 2);  // every group pair ...
  for (const auto& kv : pairs) EXPECT_EQ(kv.second, 2u);  // ... by exactly one channel (seen from both ends)
  // palm tree: router 0 port p+a-1 (link 0) of group 0 goes to group 1, arriving as its last link
  const auto pr = df.peer(0, d.p + d.a - 1);
  EXPECT_EQ(pr.router, 1u * 8 + 7);
  EXPECT_EQ(pr.port, d.radix() - 1);
}

TEST(DragonflyTopology, ValidationIsOneLine) {
  DragonflyParams d;
  d.g = 20;
  EXPECT_EQ(d.validate(), "g=20 not allowed with a*h=32 global links per group (allowed: g-1 divides a*h, e.g. g=33)");
  d = DragonflyParams{};
  d.vc_buf_flits = 8;
  EXPECT_EQ(d.validate(), "vc_buf_flits=8 out of range (allowed 16..32767)");
  d = DragonflyParams{};
  d.load = 1.5;
  EXPECT_EQ(d.validate(), "load=1.5 out of range (allowed 0..1 flits/endpoint/cycle)");
  d = small(DfRouting::valiant, 0.1);
  d.g = 2;
  d.a = 1;
  d.h = 1;
  EXPECT_EQ(d.validate(), "routing=valiant needs g >= 3 (an intermediate group), got g=2");
  EXPECT_THROW(Dragonfly{d}, std::invalid_argument);
  EXPECT_EQ(small(DfRouting::ugal, 0.3).validate(), "");
}

TEST(DragonflyTopology, MinimalPathsAtMostThreeHopsValiantLonger) {
  DragonflyParams d;
  d.load = 0;
  Dragonfly df(d);
  unsigned hmax = 0, vmax = 0;
  double msum = 0, vsum = 0;
  unsigned n = 0;
  for (unsigned r = 0; r < d.routers(); r += 7)
    for (unsigned dst = 0; dst < d.endpoints(); dst += 5) {
      const unsigned hm = df.path_hops(r, -1, dst);
      hmax = std::max(hmax, hm);
      const unsigned Gd = dst / d.p / d.a, G = r / d.a;
      if (G == Gd) {
        EXPECT_LE(hm, 1u);
        continue;
      }
      const unsigned I = (std::max(G, Gd) + 1) % d.g == std::min(G, Gd) ? (std::max(G, Gd) + 2) % d.g
                                                                           : (std::max(G, Gd) + 1) % d.g;
      const unsigned hv = df.path_hops(r, static_cast<int>(I), dst);
      EXPECT_GE(hm, 1u);
      EXPECT_GE(hv, 2u);  // two global channels (can be fewer hops than an l-g-l minimal path)
      vmax = std::max(vmax, hv);
      msum += hm;
      vsum += hv;
      ++n;
    }
  EXPECT_EQ(hmax, 3u);
  EXPECT_EQ(vmax, 5u);
  EXPECT_GT(vsum / n, msum / n + 1.0);
}

// path_hops() is a closed form; check it against walking the route hop by hop
// (minimal in every group: to the owner of the channel toward the target group).
TEST(DragonflyTopology, PathHopsMatchesWalkingTheRoute) {
  for (DragonflyParams d : {DragonflyParams{}, small(DfRouting::minimal, 0)}) {
    d.load = 0;
    if (d.g == 9) d.h = 4;  // a*h = 16 links per group: 2 parallel channels per group pair
    Dragonfly df(d);
    const unsigned copies = df.links_per_pair();
    auto walk = [&](unsigned r, int inter, unsigned dst) {
      const unsigned Rd = dst / d.p, Gd = Rd / d.a;
      unsigned hops = 0;
      for (;;) {
        const unsigned G = r / d.a;
        if (inter >= 0 && G == static_cast<unsigned>(inter)) inter = -1;
        const unsigned tg = inter >= 0 ? static_cast<unsigned>(inter) : Gd;
        if (G == tg && r == Rd) return hops;
        unsigned port;
        if (G == tg) {
          port = df.local_port(r, Rd);
        } else {
          const auto own = df.global_owner(G, tg, dst % copies);
          port = own.router == r ? d.p + d.a - 1 + own.port : df.local_port(r, own.router);
        }
        r = df.peer(r, port).router;
        ++hops;
      }
    };
    unsigned n = 0;
    for (unsigned r = 0; r < d.routers(); r += 3)
      for (unsigned dst = 0; dst < d.endpoints(); dst += 7)
        for (int inter : {-1, 0, 2, static_cast<int>(d.g) - 1}) {
          ASSERT_EQ(df.path_hops(r, inter, dst), walk(r, inter, dst)) << r << " " << inter << " " << dst;
          ++n;
        }
    EXPECT_GT(n, 100u);
  }
}

// One packet through an idle fabric: latency = 2 x endpoint channel + router
// pipeline x (hops + 1) + sum of channel latencies + serialization (flits).
TEST(DragonflyLatency, ZeroLoadIsSumOfChannelsPlusRouterPipeline) {
  for (unsigned rc : {0u, 3u}) {
    DragonflyParams d;
    d.load = 0;
    d.router_cycles = rc;
    d.min_flits = 8;
    d.max_flits = 32;
    Dragonfly df(d);
    df.keep_log(true);
    // src endpoint 0 (router 0, group 0); dst in group 5 on router 5*8+6.
    const unsigned dst = (5 * 8 + 6) * 4 + 1;
    df.offer(0, dst, 16);
    ASSERT_TRUE(df.drain(5000));
    ASSERT_EQ(df.log().size(), 1u);
    const auto& l = df.log()[0];
    // group 0 -> group 5: link k = 4 owned by router 1 (port j = 0); it lands in group 5 as
    // link 32-1-4 = 27 = router 6, port 3 -> the destination router itself.
    const auto own = df.global_owner(0, 5, 0);
    EXPECT_EQ(own.router, 1u);
    EXPECT_EQ(df.peer(1, d.p + d.a - 1 + own.port).router, 5u * 8 + 6);
    EXPECT_EQ(l.hops, 2u);  // local + global
    const uint64_t expect = 2 * d.endpoint_cycles + 3 * rc + d.local_cycles + d.global_cycles + 16;
    EXPECT_EQ(l.latency, expect) << "router_cycles " << rc;
    // 3 hops: dst in group 5 router 5*8+0 (one more local channel).
    df.offer(0, (5 * 8 + 0) * 4, 8);
    ASSERT_TRUE(df.drain(5000));
    EXPECT_EQ(df.log()[1].hops, 3u);
    EXPECT_EQ(df.log()[1].latency, 2 * d.endpoint_cycles + 4 * rc + 2 * d.local_cycles + d.global_cycles + 8);
    EXPECT_TRUE(df.scoreboard().finish().clean());
  }
}

TEST(DragonflyLatency, ValiantZeroLoadPathIsLonger) {
  DragonflyParams d;
  d.load = 0;
  d.routing = DfRouting::valiant;
  Dragonfly df(d);
  df.keep_log(true);
  for (unsigned i = 0; i < 20; ++i) df.offer(0, (5 * 8 + 6) * 4 + 1, 16);
  ASSERT_TRUE(df.drain(20000));
  for (const auto& l : df.log()) {
    EXPECT_TRUE(l.nonminimal);
    EXPECT_GE(l.hops, 2u);
    EXPECT_GE(l.latency, 2 * d.endpoint_cycles + 2 * d.global_cycles + 16);  // two global channels
  }
  EXPECT_EQ(df.stats().hops_max, 5u);
}

void run_load(DfRouting r, double load, DfStats* out, bool* clean, bool* drained) {
  Dragonfly df(small(r, load));
  df.run(3000);  // warm-up
  df.reset_stats();
  df.run(20000);
  *out = df.stats();
  *drained = df.drain(50000);
  *clean = df.scoreboard().finish().clean() && df.scoreboard().counts().matched > 0;
}

TEST(DragonflyLoad, NoLossNoDeadlockAt03AndAcceptedEqualsOffered) {
  for (DfRouting r : {DfRouting::minimal, DfRouting::valiant, DfRouting::ugal}) {
    DfStats s;
    bool clean = false, drained = false;
    run_load(r, 0.3, &s, &clean, &drained);
    SCOPED_TRACE(sw::to_string(r));
    EXPECT_TRUE(drained);  // no deadlock: everything out after the generators stop
    EXPECT_TRUE(clean);    // exactly once
    EXPECT_EQ(s.drops, 0u);
    EXPECT_NEAR(s.offered_rate, 0.3, 0.02);
    EXPECT_NEAR(s.accepted_rate, s.offered_rate, 0.02 * s.offered_rate);
    EXPECT_GE(s.hops_min, 0u);
    if (r == DfRouting::minimal) {
      EXPECT_LE(s.hops_max, 3u);
      EXPECT_EQ(s.nonminimal_share, 0.0);
    }
    if (r == DfRouting::valiant) {
      EXPECT_GT(s.nonminimal_share, 0.8);  // all inter-group packets (7/8 of destinations)
      EXPECT_LE(s.hops_max, 5u);
    }
    if (r == DfRouting::ugal) {
      EXPECT_LT(s.nonminimal_share, 0.5);  // uniform traffic: mostly minimal
      EXPECT_LE(s.hops_max, 5u);
    }
    std::printf("%s: offered %.4f accepted %.4f lat mean %.1f p99 %.1f hops %u..%u nonmin %.3f\n",
                sw::to_string(r), s.offered_rate, s.accepted_rate, s.lat_mean, s.lat_p99, s.hops_min, s.hops_max,
                s.nonminimal_share);
  }
}

TEST(DragonflyLoad, ValiantLatencyAboveMinimal) {
  DfStats m, v;
  bool c1, d1, c2, d2;
  run_load(DfRouting::minimal, 0.1, &m, &c1, &d1);
  run_load(DfRouting::valiant, 0.1, &v, &c2, &d2);
  EXPECT_TRUE(c1 && d1 && c2 && d2);
  EXPECT_GT(v.lat_mean, m.lat_mean + 400);  // about one extra global channel (500) on 7/8 of packets
}

// ------------------------------------------------------------------ PAR-6/2

namespace par {

// Rank of (channel, VC) in the PAR-6/2 ladder l0 < l1 < g0 < l2 < l3 < g1 < l4 < l5
// (docs/switch.md "Dragonfly", VC assignment): every hop must climb it.
int rank(bool global, unsigned vc) { return global ? 3 * static_cast<int>(vc) + 2 : static_cast<int>(vc + vc / 2); }

struct HopCheck {
  std::map<uint64_t, int> last_rank;
  unsigned local_vc_max = 0, global_vc_max = 0, hops_max = 0, bad_order = 0, bad_budget = 0;
  uint64_t hops = 0;
  void attach(Dragonfly& df) {
    df.set_hop_hook([this](const sw::DfHop& h) {
      ++hops;
      hops_max = std::max(hops_max, h.hop);
      if (h.global) {
        global_vc_max = std::max(global_vc_max, h.vc);
        bad_budget += h.vc >= 2;
      } else {
        local_vc_max = std::max(local_vc_max, h.vc);
        bad_budget += h.vc >= 6;
      }
      const int r = rank(h.global, h.vc);
      auto it = last_rank.find(h.id);
      if (it != last_rank.end() && r <= it->second) ++bad_order;
      last_rank[h.id] = r;
    });
  }
};

struct Run {
  DfStats s;
  bool drained = false, clean = false;
};

Run run(DragonflyParams d, uint64_t warm, uint64_t window, HopCheck* hc = nullptr, uint64_t drain = 50000) {
  Dragonfly df(d);
  if (hc) hc->attach(df);
  df.run(warm);
  df.reset_stats();
  df.run(window);
  Run r;
  r.s = df.stats();
  if (drain) {
    r.drained = df.drain(drain);
    r.clean = df.scoreboard().finish().clean() && df.scoreboard().counts().matched > 0;
  }
  return r;
}

}  // namespace par

TEST(DragonflyPar, NameParsesEverywhere) {
  EXPECT_STREQ(sw::to_string(DfRouting::par), "par");
  DfRouting r = DfRouting::minimal;
  EXPECT_TRUE(sw::parse_routing("par", &r));
  EXPECT_EQ(r, DfRouting::par);
  EXPECT_TRUE(sw::parse_routing("ugal", &r));
  EXPECT_EQ(r, DfRouting::ugal);
  EXPECT_TRUE(sw::parse_routing("ugal-l", &r));
  EXPECT_FALSE(sw::parse_routing("par62", &r));
  DragonflyParams d = small(DfRouting::par, 0.1);
  EXPECT_EQ(d.validate(), "");
  d.g = 2;
  d.a = 1;
  d.h = 1;
  EXPECT_EQ(d.validate(), "routing=par needs g >= 3 (an intermediate group), got g=2");
}

// Idle fabric: every queue is empty, so PAR never diverts and a packet has the
// minimal path's zero-load latency (same formula as minimal routing).
TEST(DragonflyPar, ZeroLoadIsMinimal) {
  DragonflyParams d;
  d.load = 0;
  d.routing = DfRouting::par;
  Dragonfly df(d);
  df.keep_log(true);
  df.offer(0, (5 * 8 + 0) * 4, 16);  // l g l
  ASSERT_TRUE(df.drain(5000));
  ASSERT_EQ(df.log().size(), 1u);
  EXPECT_FALSE(df.log()[0].nonminimal);
  EXPECT_EQ(df.log()[0].hops, 3u);
  EXPECT_EQ(df.log()[0].latency, 2 * d.endpoint_cycles + 2 * d.local_cycles + d.global_cycles + 16);
}

// 0.3 uniform on the reduced fabric: exactly once, no drops, no deadlock, accepted =
// offered; paths within the derived bound (6 hops: l l g l g l) and every hop on a
// VC of its channel's budget (6 local, 2 global), climbing the ladder.
TEST(DragonflyPar, DeliversEverythingOnceAt03WithinHopAndVcBudget) {
  par::HopCheck hc;
  const par::Run r = par::run(small(DfRouting::par, 0.3), 3000, 15000, &hc);
  EXPECT_TRUE(r.drained);
  EXPECT_TRUE(r.clean);
  EXPECT_EQ(r.s.drops, 0u);
  EXPECT_NEAR(r.s.offered_rate, 0.3, 0.02);
  EXPECT_NEAR(r.s.accepted_rate, r.s.offered_rate, 0.02 * r.s.offered_rate);
  EXPECT_LE(r.s.hops_max, 6u);
  EXPECT_LT(r.s.nonminimal_share, 0.3);  // uniform: mostly minimal
  EXPECT_GT(hc.hops, 0u);
  EXPECT_EQ(hc.bad_budget, 0u);
  EXPECT_EQ(hc.bad_order, 0u);
  EXPECT_LE(hc.local_vc_max, 5u);
  EXPECT_LE(hc.global_vc_max, 1u);
  EXPECT_LE(hc.hops_max, 6u);
  std::printf("par 0.3: offered %.4f accepted %.4f lat mean %.1f p99 %.1f hops %u..%u nonmin %.3f\n",
              r.s.offered_rate, r.s.accepted_rate, r.s.lat_mean, r.s.lat_p99, r.s.hops_min, r.s.hops_max,
              r.s.nonminimal_share);
}

TEST(DragonflyPar, LowLoadTakesMinimalPaths) {
  const par::Run r = par::run(small(DfRouting::par, 0.05), 2000, 10000, nullptr, 20000);
  EXPECT_TRUE(r.drained && r.clean);
  EXPECT_LT(r.s.nonminimal_share, 0.02);
  std::printf("par 0.05: nonmin %.4f lat mean %.1f\n", r.s.nonminimal_share, r.s.lat_mean);
}

// Adversarial group shift (group i -> group i+1): minimal routing funnels a whole
// group into one global channel (1 flit/cycle for a*p = 8 endpoints: <= 0.125 each);
// UGAL-L and PAR spread it over intermediate groups. PAR's re-evaluation at the
// owner of the congested channel takes the longest path, l l g l g l, and stays on the ladder.
TEST(DragonflyPar, AdversarialShiftAcceptsMoreThanMinimal) {
  std::map<DfRouting, par::Run> res;
  par::HopCheck hc;
  for (DfRouting rt : {DfRouting::minimal, DfRouting::ugal, DfRouting::par}) {
    DragonflyParams d = small(rt, 0.4);
    d.traffic = sw::DfTraffic::shift;
    res[rt] = par::run(d, 3000, 10000, rt == DfRouting::par ? &hc : nullptr, 0);
    const DfStats& s = res[rt].s;
    EXPECT_EQ(s.drops, 0u) << sw::to_string(rt);
    std::printf("shift 0.4 %s: offered %.4f accepted %.4f lat mean %.1f hops %u..%u nonmin %.3f\n", sw::to_string(rt),
                s.offered_rate, s.accepted_rate, s.lat_mean, s.hops_min, s.hops_max, s.nonminimal_share);
  }
  const double m = res[DfRouting::minimal].s.accepted_rate;
  EXPECT_LT(m, 0.13);  // one global channel per group pair
  EXPECT_GT(res[DfRouting::ugal].s.accepted_rate, 2.5 * m);  // measured 3.1x (0.391 vs 0.125)
  EXPECT_GT(res[DfRouting::par].s.accepted_rate, 2.5 * m);   // measured 3.2x (0.398)
  EXPECT_GT(res[DfRouting::par].s.nonminimal_share, 0.5);
  EXPECT_EQ(res[DfRouting::par].s.hops_max, 6u);  // the bound is reached
  EXPECT_EQ(hc.bad_budget, 0u);
  EXPECT_EQ(hc.bad_order, 0u);
  EXPECT_LE(hc.local_vc_max, 5u);
  EXPECT_LE(hc.global_vc_max, 1u);
}

// PAR's congestion estimate (par_signal): names, default, validation.
TEST(DragonflyPar, SignalParsesAndValidates) {
  EXPECT_STREQ(sw::to_string(sw::DfParSignal::queue), "queue");
  EXPECT_STREQ(sw::to_string(sw::DfParSignal::credits), "credits");
  sw::DfParSignal s = sw::DfParSignal::queue;
  EXPECT_TRUE(sw::parse_par_signal("credits", &s));
  EXPECT_EQ(s, sw::DfParSignal::credits);
  EXPECT_TRUE(sw::parse_par_signal("queue", &s));
  EXPECT_EQ(s, sw::DfParSignal::queue);
  EXPECT_FALSE(sw::parse_par_signal("occupancy", &s));
  EXPECT_FALSE(sw::parse_par_signal("", &s));
  EXPECT_STREQ(sw::par_signal_choices(), "queue, credits");
  EXPECT_EQ(DragonflyParams().par_signal, sw::DfParSignal::queue);  // the Dragonfly's default
  DragonflyParams d = small(DfRouting::par, 0.1);
  d.par_signal = sw::DfParSignal::credits;
  d.par_threshold = 750;
  EXPECT_EQ(d.validate(), "");
  d.par_signal = static_cast<sw::DfParSignal>(7);
  EXPECT_EQ(d.validate(), "par_signal=7 not allowed (allowed queue, credits)");
}

// The credits signal (egress queue + credits in use, UGAL-L's measure) keeps every
// guarantee: exactly once, no drops, drains, accepted = offered at 0.3 uniform; under
// shift traffic it reaches the 6-hop bound; every hop within the 6/2 VC budget, climbing the ladder.
TEST(DragonflyPar, CreditsSignalDeliversEverythingOnceWithinHopAndVcBudget) {
  for (unsigned thr : {0u, 750u}) {
    par::HopCheck hc;
    DragonflyParams d = small(DfRouting::par, 0.3);
    d.par_signal = sw::DfParSignal::credits;
    d.par_threshold = thr;
    const par::Run r = par::run(d, 3000, 10000, &hc);
    EXPECT_TRUE(r.drained) << thr;
    EXPECT_TRUE(r.clean) << thr;
    EXPECT_EQ(r.s.drops, 0u) << thr;
    EXPECT_NEAR(r.s.accepted_rate, r.s.offered_rate, 0.02 * r.s.offered_rate) << thr;
    EXPECT_LE(r.s.hops_max, 6u);
    EXPECT_GT(hc.hops, 0u);
    EXPECT_EQ(hc.bad_budget, 0u);
    EXPECT_EQ(hc.bad_order, 0u);
    EXPECT_LE(hc.local_vc_max, 5u);
    EXPECT_LE(hc.global_vc_max, 1u);
    std::printf("par credits threshold %u, 0.3: offered %.4f accepted %.4f lat mean %.1f hops %u..%u nonmin %.3f\n",
                thr, r.s.offered_rate, r.s.accepted_rate, r.s.lat_mean, r.s.hops_min, r.s.hops_max,
                r.s.nonminimal_share);
  }
  par::HopCheck hc;
  DragonflyParams d = small(DfRouting::par, 0.4);
  d.traffic = sw::DfTraffic::shift;
  d.par_signal = sw::DfParSignal::credits;
  const par::Run r = par::run(d, 2000, 8000, &hc);
  EXPECT_TRUE(r.drained && r.clean);
  EXPECT_EQ(r.s.drops, 0u);
  EXPECT_GT(r.s.accepted_rate, 0.3);  // minimal: <= 0.125
  EXPECT_GT(r.s.nonminimal_share, 0.5);
  EXPECT_EQ(r.s.hops_max, 6u);
  EXPECT_EQ(hc.bad_budget, 0u);
  EXPECT_EQ(hc.bad_order, 0u);
  EXPECT_LE(hc.local_vc_max, 5u);
  EXPECT_LE(hc.global_vc_max, 1u);
  std::printf("par credits shift 0.4: accepted %.4f lat mean %.1f nonmin %.3f\n", r.s.accepted_rate, r.s.lat_mean,
              r.s.nonminimal_share);
}

// What the two signals see differently: one endpoint streaming at link rate into a
// remote group on an otherwise idle fabric builds no queue on the cut-through routers,
// so `queue` keeps every packet minimal; its credits in use (the flits and credits in
// flight on the 500-cycle global channel) reach the threshold, so `credits` diverts
// part of the stream (the ordering paper's "buffer levels ... reaching the threshold").
// The first packet sees an idle fabric and goes minimal with either signal.
TEST(DragonflyPar, OneSourceAtLinkRateDivertsOnlyWithCredits) {
  auto stream = [](sw::DfParSignal sig, unsigned thr) {
    DragonflyParams d = small(DfRouting::par, 0.0);
    d.par_signal = sig;
    d.par_threshold = thr;
    Dragonfly df(d);
    df.keep_log(true);
    const unsigned dst0 = 4 * d.a * d.p;  // group 4
    for (unsigned i = 0; i < 300; ++i) df.offer(0, dst0 + i % (d.a * d.p), 16);
    EXPECT_TRUE(df.drain(100000));
    EXPECT_TRUE(df.scoreboard().finish().clean());
    unsigned nm = 0;
    for (const auto& x : df.log()) nm += x.nonminimal;
    EXPECT_EQ(df.log().size(), 300u);
    return std::make_pair(static_cast<double>(nm) / 300.0, df.log().empty() ? true : !df.log()[0].nonminimal);
  };
  const auto q = stream(sw::DfParSignal::queue, 0);
  const auto c = stream(sw::DfParSignal::credits, 0);
  const auto c750 = stream(sw::DfParSignal::credits, 750);
  const auto c5000 = stream(sw::DfParSignal::credits, 5000);  // above credits in use x hops of any first output here
  EXPECT_EQ(q.first, 0.0);
  EXPECT_GT(c.first, 0.5);
  EXPECT_GT(c750.first, 0.1);
  EXPECT_LT(c750.first, c.first);
  EXPECT_EQ(c5000.first, 0.0);
  EXPECT_TRUE(q.second && c.second && c750.second && c5000.second);
  std::printf("one source at link rate, non-minimal: queue %.3f, credits %.3f, credits+750 %.3f, credits+5000 %.3f\n",
              q.first, c.first, c750.first, c5000.first);
}

// The hop-count VCs of the other routings: the VC of hop k is k (1-based).
TEST(DragonflyPar, HopCountVcsOfUgalUnchanged) {
  Dragonfly df(small(DfRouting::ugal, 0.3));
  unsigned bad = 0, n = 0;
  df.set_hop_hook([&](const sw::DfHop& h) {
    ++n;
    bad += h.vc != h.hop;
  });
  df.run(3000);
  EXPECT_GT(n, 0u);
  EXPECT_EQ(bad, 0u);
}

}  // namespace
