// Nightly (label `nightly`): long seeded LLR runs, RTL in lockstep with the
// model on both partners, across fault mixes and both sequence widths.
#include <gtest/gtest.h>

#include <tuple>

#include "common/tb_run.hpp"
#include "common/testbench.hpp"

namespace {

tb::RunResult run(uint64_t seed, uint64_t cycles, std::vector<std::string> sets) {
  return tb_test::run("llr_link", seed, cycles, sets);
}

const std::vector<std::vector<std::string>> kMixes = {
    {"drop_prob=0.001"},
    {"ber=5e-6", "ctl_corrupt_prob=0.01"},
    {"drop_prob=0.01", "ctl_drop_prob=0.05", "eligible_ratio=0.8"},
    {"seq_bits=7", "outstanding_frames_max=32", "outstanding_bytes_max=65536", "drop_prob=0.003"},
    {"full_action=best_effort", "outstanding_frames_max=8", "cable=smf", "length_m=20", "drop_prob=0.002"},
    {"ack_loss_start_ns=20000", "ack_loss_ns=30000", "replay_timer_max=800", "replay_count_max=5", "drop_prob=0.001"},
    {"link_down_at_ns=50000", "link_down_ns=40000", "replay_count_max=3", "drop_prob=0.001"},
    {"ctlos_spacing_unit=bytes", "ctlos_target_spacing=8192", "len_min=64", "len_max=9000",
     "outstanding_bytes_max=262144", "ber=1e-6"},
};

class LlrSweep : public testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(LlrSweep, ExactlyOnceInOrder) {
  auto [mix, seed] = GetParam();
  auto r = run(3000 + seed * 17 + mix, 2000000, kMixes[mix]);
  EXPECT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
  for (const char* d : {"a_to_b", "b_to_a"}) {
    EXPECT_EQ(r.json["scoreboard"][d]["lost"].get<uint64_t>(), 0u);
    EXPECT_EQ(r.json["scoreboard"][d]["duplicated"].get<uint64_t>(), 0u);
    EXPECT_EQ(r.json["scoreboard"][d]["reordered"].get<uint64_t>(), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Mixes, LlrSweep, testing::Combine(testing::Range(0, 8), testing::Range(1, 5)));

}  // namespace
