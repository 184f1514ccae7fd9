// Nightly (label `nightly`): long seeded sue_system runs, every sue_tx / sue_rx
// RTL in lockstep with its model, across fault mixes and the compiled
// configurations: exactly once, byte-exact, in order where strict, no lockstep
// mismatch, every frame decodable. Long enough that the 16-bit PSNs of the
// busiest connections wrap (about 65536 PDUs per connection needs ~2M cycles at
// full load on 2 nodes; the wrap itself is covered by the models' unit tests).
// Frames are lost where CBFC survives it: inside the switch (switch_drop: the frame was received, its
// ingress buffer is freed), by bit errors (the receiver takes and discards the frame), or on the wire
// under LLR. A frame lost whole on the wire without LLR keeps its CBFC credits (the receiver never saw
// it: SueSystem.LostFramesKeepTheirCbfcCreditsAndTheRunSaysSo), so such a mix starves a VC in a long run.
#include <gtest/gtest.h>

#include <tuple>

#include "common/tb_run.hpp"
#include "common/testbench.hpp"

namespace {

tb::RunResult run(uint64_t seed, uint64_t cycles, std::vector<std::string> sets) {
  return tb_test::run("sue_system", seed, cycles, sets);
}

const std::vector<std::vector<std::string>> kMixes = {
    {"switch_drop=0.002"},
    {"ber=1e-6", "rcrc_corrupt=0.002"},
    {"switch_drop=0.01", "rcrc_corrupt=0.01", "pattern=incast"},
    {"switch_drop=0.005", "size_dist=bimodal", "dlen_min=0", "dlen_max=256", "load=1"},
    {"drop_frame=100", "rto=2000", "ack_delay=64"},
    {"switch_drop=0.002", "hold_vc=1", "hold_from=20000", "hold_cycles=20000", "rx_credits=4"},
    {"drop_prob=0.003", "switch_drop=0.002", "llr=true", "cable_ns=200", "switch_ns=500"},
    {"ber=2e-6", "topology=cable", "nodes=2"},
};
const std::vector<std::vector<std::string>> kConfigs = {
    {"sue_config=s1", "nodes=3", "mode=strict"},
    {"sue_config=s2", "nodes=3", "mode=strict"},
    {"sue_config=s4", "nodes=3", "mode=unordered"},
};

class SueSweep : public testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(SueSweep, ExactlyOnce) {
  auto [cfg, mix, seed] = GetParam();
  std::vector<std::string> sets = kConfigs[cfg];
  sets.insert(sets.end(), kMixes[mix].begin(), kMixes[mix].end());
  auto r = run(5000 + seed * 31 + mix * 7 + cfg, 300000, sets);
  EXPECT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
  for (const char* k : {"lost", "duplicated", "corrupted", "reordered", "unexpected"})
    EXPECT_EQ(r.json["scoreboard"][k].get<uint64_t>(), 0u) << k;
  EXPECT_FALSE(r.has_mismatch);
}

INSTANTIATE_TEST_SUITE_P(Mixes, SueSweep, testing::Combine(testing::Range(0, 3), testing::Range(0, 8), testing::Range(1, 3)));

// Failover under load with drops, in unordered mode, on 2 and 4 ports.
class SueFailover : public testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(SueFailover, ExactlyOnce) {
  auto [cfg, seed] = GetParam();
  const char* conf = cfg == 0 ? "sue_config=s2" : "sue_config=s4";
  auto r = run(7000 + seed, 200000, {conf, "nodes=3", "mode=unordered", "switch_drop=0.002", "fail_port=1@50000"});
  EXPECT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
  EXPECT_GT(r.json["tx"]["fo_ack_rcvd"].get<uint64_t>(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Ports, SueFailover, testing::Combine(testing::Range(0, 2), testing::Range(1, 4)));

}  // namespace
