// Block tests (label `block`): CBFC RTL against its C++ model, every output on
// every cycle, under constrained-random stress with protocol violations and
// mid-run resets, for every compiled RTL parameterization. Each TEST runs in
// its own process (one SystemC elaboration per process).
#include <gtest/gtest.h>

#include "common/tb_run.hpp"
#include "common/testbench.hpp"

namespace {

tb::RunResult run_block(uint64_t seed, uint64_t cycles, std::vector<std::string> sets) {
  return tb_test::run("cbfc_block", seed, cycles, sets);
}

// The stimulus must reach what it claims to test, or a pass means nothing.
void expect_exercised(const tb::RunResult& r, bool errors) {
  const auto& j = r.json;
  EXPECT_GT(j["frames_sent"].get<uint64_t>(), 1000u);
  EXPECT_GT(j["credit_updates"].get<uint64_t>(), 500u);
  EXPECT_GT(j["resets"].get<uint64_t>(), 3u);
  // random configurations turn the refresh on (short, long, counter maximum)
  // and off: refreshes of idle classes contend with normal updates
  EXPECT_GT(j["refresh_updates"].get<uint64_t>(), 500u);
  EXPECT_EQ(j["compared_cycles"].get<uint64_t>(), r.cycles);
  if (errors) {  // injected violations must show on the sticky error outputs
    const auto& e = j["error_cycles"];
    EXPECT_GT(e["tx_underflow"].get<uint64_t>(), 0u);
    EXPECT_GT(e["tx_overflow"].get<uint64_t>(), 0u);
    EXPECT_GT(e["rx_overflow"].get<uint64_t>(), 0u);
    EXPECT_GT(e["rx_underflow"].get<uint64_t>(), 0u);
  }
}

void expect_pass(const tb::RunResult& r) {
  EXPECT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
  EXPECT_FALSE(r.has_mismatch);
}

TEST(CbfcLockstep, C4WithViolations) {
  auto r = run_block(1, 400000, {"rtl_config=c4"});
  expect_pass(r);
  expect_exercised(r, true);
}

TEST(CbfcLockstep, C4Clean) {
  auto r = run_block(2, 400000, {"rtl_config=c4", "errors=false"});
  expect_pass(r);
  expect_exercised(r, false);
  // no violation injected: the sticky error outputs stay clear
  const auto& e = r.json["error_cycles"];
  EXPECT_EQ(e["tx_underflow"].get<uint64_t>(), 0u);
  EXPECT_EQ(e["tx_overflow"].get<uint64_t>(), 0u);
  EXPECT_EQ(e["rx_overflow"].get<uint64_t>(), 0u);
  EXPECT_EQ(e["rx_underflow"].get<uint64_t>(), 0u);
}

TEST(CbfcLockstep, C32ByteCredits) {
  auto r = run_block(3, 400000, {"rtl_config=c32"});
  expect_pass(r);
  expect_exercised(r, true);
}

TEST(CbfcLockstep, C1NarrowCountersWrap) {
  auto r = run_block(4, 400000, {"rtl_config=c1"});
  expect_pass(r);
  expect_exercised(r, true);
}

TEST(CbfcLockstep, C3OddClassesSaturatingTimer) {
  auto r = run_block(5, 400000, {"rtl_config=c3"});
  expect_pass(r);
  expect_exercised(r, true);
  EXPECT_GT(r.json["error_cycles"]["tx_class"].get<uint64_t>(), 0u);  // 3 classes: index 3 is out of range
}

TEST(CbfcLockstep, SlowDrain) {
  auto r = run_block(6, 400000, {"rtl_config=c4", "p_drain=0.05"});
  expect_pass(r);
}

// The deliberately broken RTL (CBFC_MUTANT: freed credits lost when a grant
// coincides with a free) must be caught, with cycle and signal named.
TEST(CbfcMutant, CaughtWithCycleAndSignal) {
  auto r = run_block(1, 400000, {"mutant=true"});
  ASSERT_FALSE(r.pass);
  ASSERT_TRUE(r.has_mismatch);
  EXPECT_EQ(r.mismatch.block, "rx");
  EXPECT_TRUE(r.mismatch.signal.rfind("pend_o[", 0) == 0 || r.mismatch.signal == "cu_limit_o")
      << r.mismatch.signal;
  EXPECT_NE(r.mismatch.rtl, r.mismatch.model);
  EXPECT_GT(r.mismatch.cycle, 0u);
  EXPECT_LT(r.mismatch.cycle, 400000u);
  EXPECT_LT(r.cycles, 400000u);  // the run stopped at the mismatch
  ASSERT_FALSE(r.failures.empty());
  const std::string& line = r.failures.front();
  EXPECT_NE(line.find("cycle " + std::to_string(r.mismatch.cycle)), std::string::npos) << line;
  EXPECT_NE(line.find(r.mismatch.signal), std::string::npos) << line;
  EXPECT_NE(line.find("seed 1"), std::string::npos) << line;
  EXPECT_EQ(r.json["mismatch"]["signal"], r.mismatch.signal);
}

TEST(CbfcMutant, CaughtWithoutViolations) {
  auto r = run_block(9, 400000, {"mutant=true", "errors=false"});
  ASSERT_TRUE(r.has_mismatch);
  EXPECT_EQ(r.mismatch.block, "rx");
}

}  // namespace
