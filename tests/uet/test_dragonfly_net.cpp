// Unit tests of uet::DragonflyNet (uet/dragonfly_net.hpp, docs/ordering.md "Fabrics"):
// the ordering-protocol endpoints over the Dragonfly fabric. Exactly-once delivery of
// endpoint packets, the endpoint link's serialization, the placement and parameter
// checks, and OrderingSystem workloads with a clean scoreboard (no faults and with loss).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "uet/dragonfly_net.hpp"
#include "uet/ordering.hpp"

namespace {

using namespace uet;

// A small Dragonfly: 5 groups of 2 routers, 2 endpoints and 2 global channels per router
// (20 endpoints), the paper's channel latencies.
sw::DragonflyParams small_df(sw::DfRouting r = sw::DfRouting::ugal) {
  sw::DragonflyParams d;
  d.g = 5;
  d.a = 2;
  d.p = 2;
  d.h = 2;
  d.load = 0;
  d.min_flits = 1;
  d.max_flits = 16;
  d.routing = r;
  d.seed = 3;
  return d;
}

// uet endpoint i on Dragonfly endpoint 19 - i (sources at the end, targets at the start).
std::vector<unsigned> reverse_placement(unsigned n) {
  std::vector<unsigned> v;
  for (unsigned i = 0; i < n; ++i) v.push_back(19 - i);
  return v;
}

TEST(UetDragonflyNet, EveryPacketDeliveredExactlyOnceToItsEndpoint) {
  NetParams np;
  DragonflyNet net(np, small_df(), reverse_placement(20), 1);
  std::map<uint32_t, Packet> sent;  // token -> packet
  std::map<uint32_t, unsigned> got;
  uint32_t token = 1;
  core::Rng rng(7, "test");
  uint64_t now = 0;
  for (; now < 20000; ++now) {
    net.advance(now);
    if (now < 8000)
      for (uint32_t e = 0; e < 20; ++e)
        if (net.can_send(e, now) && rng.chance(0.3)) {
          Packet p;
          p.type = rng.chance(0.5) ? PktType::Req : PktType::Ack;
          p.src = e;
          p.dst = static_cast<uint32_t>(rng.uniform(0, 18));
          if (p.dst >= e) ++p.dst;
          p.token = token++;
          sent[p.token] = p;
          net.send(p, now);
        }
    for (uint32_t e = 0; e < 20; ++e) {
      Packet q;
      while (net.poll(e, now, q)) {
        ASSERT_EQ(q.dst, e) << to_string(q);
        ASSERT_TRUE(sent.count(q.token)) << to_string(q);
        EXPECT_EQ(sent[q.token].src, q.src);
        EXPECT_EQ(sent[q.token].type, q.type);
        ++got[q.token];
      }
    }
    if (now > 8000 && net.in_flight() == 0) break;
  }
  EXPECT_EQ(net.in_flight(), 0u);
  ASSERT_GT(sent.size(), 1000u);
  EXPECT_EQ(got.size(), sent.size());
  for (auto& [t, n] : got) EXPECT_EQ(n, 1u) << "token " << t;
  const FabricStats& s = net.stats();
  uint64_t tx = 0, rx = 0;
  for (unsigned i = 0; i < kNumPktTypes; ++i) {
    tx += s.sent[i];
    rx += s.delivered[i];
    EXPECT_EQ(s.dropped[i], 0u);
  }
  EXPECT_EQ(tx, sent.size());
  EXPECT_EQ(rx, sent.size());
  EXPECT_EQ(s.expired, 0u);
  // the Dragonfly saw the same packets, no drop, and some of them took non-minimal routes
  const sw::DfStats d = net.dragonfly().stats();
  EXPECT_EQ(d.delivered_pkts, sent.size());
  EXPECT_EQ(d.drops, 0u);
  EXPECT_TRUE(net.dragonfly().scoreboard().finish().clean());
}

TEST(UetDragonflyNet, LinkSerializesAndZeroLoadLatencyIsTheFabrics) {
  NetParams np;
  np.flits = 16;
  np.ctrl_flits = 1;
  auto df = small_df(sw::DfRouting::minimal);
  // uet 0 on router 0 (group 0), uet 1 on router 2 (group 1): local? no: group 0 -> group 1.
  DragonflyNet net(np, df, {0, 4}, 1);
  std::vector<uint64_t> arrivals;
  Packet p;
  p.type = PktType::Req;
  p.src = 0;
  p.dst = 1;
  uint64_t sent_at = 0, sends = 0;
  for (uint64_t now = 0; now < 5000; ++now) {
    net.advance(now);
    if (sends < 3 && net.can_send(0, now)) {
      if (sends == 0) sent_at = now;
      p.token = static_cast<uint32_t>(++sends);
      net.send(p, now);
      EXPECT_FALSE(net.can_send(0, now));
    }
    Packet q;
    while (net.poll(1, now, q)) arrivals.push_back(now);
  }
  ASSERT_EQ(arrivals.size(), 3u);
  // back to back on the 1-flit/cycle channel: one REQ every 16 cycles
  EXPECT_EQ(arrivals[1] - arrivals[0], 16u);
  EXPECT_EQ(arrivals[2] - arrivals[1], 16u);
  // zero-load latency: the Dragonfly's formula (2 E + channels + F) plus one cycle from
  // the endpoint's send to the Dragonfly's injection tick.
  const unsigned hops = net.dragonfly().path_hops(0, -1, 4);
  uint64_t chan = 0;
  if (hops == 1) chan = df.global_cycles;
  if (hops == 2) chan = df.global_cycles + df.local_cycles;
  if (hops == 3) chan = df.global_cycles + 2 * df.local_cycles;
  EXPECT_EQ(arrivals[0] - sent_at, 1 + 2 * df.endpoint_cycles + chan + 16) << hops << " hops";
}

TEST(UetDragonflyNet, ValidateNamesTheParameter) {
  NetParams np;
  auto df = small_df();
  EXPECT_EQ(DragonflyNet::validate(np, df, {0, 1}), "");
  EXPECT_NE(DragonflyNet::validate(np, df, {0, 20}).find("placement[1]=20 out of range (allowed 0..19)"),
            std::string::npos);
  EXPECT_NE(DragonflyNet::validate(np, df, {3, 3}).find("placement[1]=3 used twice"), std::string::npos);
  np.flits = 32;
  EXPECT_NE(DragonflyNet::validate(np, df, {0, 1}).find("net.flits=32 longer than the Dragonfly's max_flits=16"),
            std::string::npos);
  np.flits = 16;
  np.p_dup = 0.1;
  EXPECT_NE(DragonflyNet::validate(np, df, {0, 1}).find("net.p_dup=0.1 not supported"), std::string::npos);
  np.p_dup = 0;
  df.g = 6;
  EXPECT_EQ(DragonflyNet::validate(np, df, {0, 1}).rfind("dragonfly: g=6", 0), 0u);
  EXPECT_THROW(DragonflyNet(np, df, {0, 1}, 1), std::invalid_argument);
}

// OrderingSystem over the Dragonfly: sources in one half, targets in the other.
SystemParams df_system(uint64_t seed) {
  SystemParams p;
  p.seed = seed;
  p.sources = 8;
  p.targets = 4;
  p.tgt.rob.num_conn = 4;
  p.tgt.rob.capacity = 16;
  p.src.num_cids = 3;
  p.src.max_active = 3;
  p.src.max_outstanding = 12;
  p.tgt.window = 12;
  p.net.flits = 16;
  p.net.lifetime = 20000;
  p.src.req_timeout = p.src.fin_timeout = 2 * p.net.lifetime + p.tgt.mem_latency + 1;
  p.work.transfers_per_source = 6;
  p.work.len_min = 1;
  p.work.len_max = 40;
  p.work.p_slow = 0.15;
  p.work.p_sync = 0.2;
  p.work.p_eod = 0.4;
  p.max_cycles = 3000000;
  return p;
}

OrderingSystem::FabricFactory df_fabric(DragonflyNet** out) {
  return [out](const SystemParams& p) {
    std::vector<unsigned> place;
    for (unsigned i = 0; i < p.sources + p.targets; ++i) place.push_back(i < p.sources ? i : 19 - (i - p.sources));
    auto n = std::make_unique<DragonflyNet>(p.net, small_df(), place, p.seed);
    if (out) *out = n.get();
    return n;
  };
}

class UetDragonflyWorkload : public ::testing::TestWithParam<uint64_t> {};

TEST_P(UetDragonflyWorkload, ScoreboardCleanNoTimeouts) {
  DragonflyNet* net = nullptr;
  OrderingSystem sys(df_system(GetParam()), nullptr, df_fabric(&net));
  ASSERT_NE(net, nullptr);
  EXPECT_THROW(sys.network(), std::logic_error);  // not a uet::Network
  sys.generate();
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_EQ(r.transfers, 48u);
  EXPECT_EQ(r.src.req_timeouts, 0u);
  EXPECT_EQ(r.src.fin_timeouts, 0u);
  EXPECT_EQ(r.net.expired, 0u);
  EXPECT_EQ(r.slow_duplicate_deliveries, 0u);
  EXPECT_GT(r.tgt.held, 0u);  // the Dragonfly reorders (adaptive routing)
  EXPECT_EQ(net->in_flight(), 0u);
  EXPECT_EQ(net->dragonfly().stats().drops, 0u);
  EXPECT_TRUE(net->dragonfly().scoreboard().finish().clean());
}

TEST_P(UetDragonflyWorkload, LossRepairedExactlyOnceEod) {
  SystemParams p = df_system(GetParam());
  for (auto& d : p.net.drop) d = 0.02;
  p.net.lifetime = 3000;
  p.src.req_timeout = p.src.fin_timeout = 2 * p.net.lifetime + p.tgt.mem_latency + 1;
  OrderingSystem sys(p, nullptr, df_fabric(nullptr));
  sys.generate();
  const Report r = sys.run();
  ASSERT_TRUE(r.ok()) << r.summary();
  EXPECT_GT(r.src.req_timeouts, 0u);
  uint64_t dropped = 0;
  for (auto d : r.net.dropped) dropped += d;
  EXPECT_GT(dropped, 0u);
}
INSTANTIATE_TEST_SUITE_P(Seeds, UetDragonflyWorkload, ::testing::Values(1, 2, 3));

}  // namespace
