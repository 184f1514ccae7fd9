// Unit tests of the Dragonfly fabric on the switch engine (switch/dragonfly.*),
// per docs/switch.md "Dragonfly".
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>

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

}  // namespace
