// Nightly (label `nightly`): long seeded ordering-protocol runs with RTL reorder buffers.
#include <gtest/gtest.h>

#include <tuple>

#include "common/testbench.hpp"

namespace {

const std::vector<std::vector<std::string>> kMixes = {
    {"transfers=40"},
    {"transfers=40", "p_drop_req=0.01", "p_drop_ack=0.02", "p_dup=0.01"},
    {"transfers=30", "rob_config=r8", "targets=2", "cids=4", "max_outstanding=16"},
    {"transfers=30", "sources=32", "targets=8", "p_sync=0.5", "p_eod=0.5", "p_drop_ack=0.01"},
};

class OrderingSweep : public testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(OrderingSweep, CompletesInOrderExactlyOnce) {
  auto [mix, seed] = GetParam();
  const tb::Testbench* t = tb::find_testbench("ordering");
  tb::RunConfig cfg;
  cfg.testbench = "ordering";
  cfg.seed = 7000 + seed * 13 + mix;
  cfg.settings = tb::default_settings(*t);
  for (auto& s : kMixes[mix]) cfg.settings.assign(s);
  auto r = tb::run_testbench(cfg);
  EXPECT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
}

INSTANTIATE_TEST_SUITE_P(Mixes, OrderingSweep, testing::Combine(testing::Range(0, 4), testing::Range(1, 5)));

}  // namespace
