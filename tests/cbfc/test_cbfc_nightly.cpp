// Nightly (label `nightly`, `make nightly`): long seeded sweeps of the CBFC
// lockstep and link testbenches. Each (configuration, seed) is its own CTest
// test and process.
#include <gtest/gtest.h>

#include <tuple>

#include "common/testbench.hpp"

namespace {

tb::RunResult run(const std::string& tb_name, uint64_t seed, uint64_t cycles, std::vector<std::string> sets) {
  const tb::Testbench* t = tb::find_testbench(tb_name);
  tb::RunConfig cfg;
  cfg.testbench = tb_name;
  cfg.seed = seed;
  cfg.cycles = cycles;
  cfg.settings = tb::default_settings(*t);
  for (auto& s : sets) cfg.settings.assign(s);
  return tb::run_testbench(cfg);
}

class CbfcLockstepSweep : public testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(CbfcLockstepSweep, NoMismatch) {
  auto [variant, seed] = GetParam();
  auto r = run("cbfc_block", 1000 + seed, 5'000'000, {"rtl_config=" + variant});
  EXPECT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
}

INSTANTIATE_TEST_SUITE_P(Seeds, CbfcLockstepSweep,
                         testing::Combine(testing::Values("c4", "c32", "c1", "c3"), testing::Range(1, 11)));

class CbfcLinkSweep : public testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(CbfcLinkSweep, Lossless) {
  auto [drain, seed] = GetParam();
  auto r = run("cbfc_link", 2000 + seed, 500'000, {"drain_ratio=" + drain, "len_min=64", "len_max=4096",
                                                   "buffer_bytes=16384", "sweep=false"});
  EXPECT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
  EXPECT_EQ(r.json["scoreboard"]["lost"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.json["scoreboard"]["matched"], r.json["scoreboard"]["expected"]);
}

INSTANTIATE_TEST_SUITE_P(Seeds, CbfcLinkSweep,
                         testing::Combine(testing::Values("0.05", "0.3", "0.7", "1"), testing::Range(1, 6)));

// Lost credit updates: the refresh repairs every one, no class stalls for good.
class CbfcLinkLossSweep : public testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(CbfcLinkLossSweep, NoStallForever) {
  auto [loss, seed] = GetParam();
  auto r = run("cbfc_link", 3000 + seed, 500'000, {"cu_loss=" + loss, "refresh=256", "len_min=64", "len_max=4096",
                                                   "buffer_bytes=8192", "drain_ratio=0.7", "sweep=false"});
  EXPECT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
  EXPECT_EQ(r.json["stalled_classes"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.json["scoreboard"]["matched"], r.json["scoreboard"]["expected"]);
}

INSTANTIATE_TEST_SUITE_P(Seeds, CbfcLinkLossSweep,
                         testing::Combine(testing::Values("0.01", "0.1", "0.3"), testing::Range(1, 6)));

}  // namespace
