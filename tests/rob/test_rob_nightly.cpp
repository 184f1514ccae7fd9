// Nightly (label `nightly`): long seeded reorder-buffer runs, RTL in lockstep.
#include <gtest/gtest.h>

#include <tuple>

#include "common/testbench.hpp"

namespace {

const std::vector<std::vector<std::string>> kMixes = {
    {},
    {"sources=16", "stream_len=32"},
    {"rob_config=r8", "sources=8", "max_outstanding=20", "p_long=0.5"},
    {"rob_config=r8", "sources=3", "streams_per_source=2", "stream_len=3000", "max_outstanding=31", "p_dup=0.02"},
    {"sources=2", "load=1.0", "p_long=0.1", "max_outstanding=60", "flits=8"},
};

class RobSweep : public testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(RobSweep, ExactlyOnceInOrder) {
  auto [mix, seed] = GetParam();
  const tb::Testbench* t = tb::find_testbench("rob_stream");
  tb::RunConfig cfg;
  cfg.testbench = "rob_stream";
  cfg.seed = 5000 + seed * 31 + mix;
  cfg.cycles = 3000000;
  cfg.settings = tb::default_settings(*t);
  for (auto& s : kMixes[mix]) cfg.settings.assign(s);
  auto r = tb::run_testbench(cfg);
  EXPECT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
}

INSTANTIATE_TEST_SUITE_P(Mixes, RobSweep, testing::Combine(testing::Range(0, 5), testing::Range(1, 5)));

}  // namespace
