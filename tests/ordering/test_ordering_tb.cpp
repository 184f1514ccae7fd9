// Ordering-protocol system tests (label `system`): source and target
// endpoints (uet/) over a reordering network, every target's reorder buffer
// the RTL in lockstep with its model. The checker proves order, exactly-once
// where promised, synchronization, completion, and no leaked state.
#include <gtest/gtest.h>

#include "common/testbench.hpp"

namespace {

tb::RunResult run(uint64_t seed, std::vector<std::string> sets) {
  const tb::Testbench* t = tb::find_testbench("ordering");
  EXPECT_NE(t, nullptr);
  tb::RunConfig cfg;
  cfg.testbench = "ordering";
  cfg.seed = seed;
  cfg.settings = tb::default_settings(*t);
  for (auto& s : sets) cfg.settings.assign(s);
  return tb::run_testbench(cfg);
}

void expect_done(const tb::RunResult& r) {
  ASSERT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
  EXPECT_EQ(r.json["completed"], r.json["transfers"]);
  EXPECT_TRUE(r.json["errors"].empty());
  EXPECT_FALSE(r.has_mismatch);
}

TEST(Ordering, FaultFreeNeedsNoTimeouts) {
  auto r = run(1, {});
  expect_done(r);
  EXPECT_EQ(r.json["source"]["req_timeouts"].get<uint64_t>(), 0u);  // the paper: no timeouts without errors
  EXPECT_GT(r.json["target"]["held"].get<uint64_t>(), 100u);          // the network did reorder
  EXPECT_GT(r.json["target"]["sync_released"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.json["slow_duplicate_deliveries"].get<uint64_t>(), 0u);
}

TEST(Ordering, LostRequestsAndAcksAndDuplicates) {
  auto r = run(2, {"p_drop_req=0.01", "p_drop_ack=0.02", "p_dup=0.01"});
  expect_done(r);
  EXPECT_GT(r.json["source"]["req_timeouts"].get<uint64_t>(), 0u);
  EXPECT_GT(r.json["target"]["replays"].get<uint64_t>(), 0u);     // EOD: replayed ACK results
  EXPECT_GT(r.json["target"]["duplicates"].get<uint64_t>(), 0u);
}

TEST(Ordering, ExhaustedConnectionsFallBackToSlowMode) {
  auto r = run(3, {"rob_config=r8", "sources=8", "targets=1", "cids=4", "max_outstanding=16", "p_sync=0", "p_eod=0"});
  expect_done(r);
  EXPECT_GT(r.json["source"]["fallbacks"].get<uint64_t>() + r.json["source"]["nacks_no_conn"].get<uint64_t>(), 0u);
  EXPECT_GT(r.json["target"]["direct"].get<uint64_t>(), 0u);
}

TEST(Ordering, ModelReorderBuffers) {
  expect_done(run(4, {"rob=model", "sources=16", "targets=4"}));
}

}  // namespace
