// ROB scenarios (label `block`): ordered transfers through a reordering
// network into the reorder buffer RTL, in lockstep with its model. Every REQ
// must be released exactly once, in order per transfer, whatever the buffer
// rejects (rejected REQs are sent again). Each TEST runs in its own process.
// The block tests run with early_fin=0.25 unless they set it: a quarter of the
// transfers whose last REQ is held send their FIN at once, while REQs of the
// connection are still held (the delayed close of the connection).
#include <gtest/gtest.h>

#include "common/gtkw_check.hpp"
#include "common/tb_run.hpp"
#include "common/testbench.hpp"

namespace {

tb::RunResult run(uint64_t seed, uint64_t cycles, std::vector<std::string> sets, std::string waves = "") {
  sets.insert(sets.begin(), "early_fin=0.25");
  return tb_test::run("rob_stream", seed, cycles, sets, waves);
}

uint64_t cnt(const tb::RunResult& r, const char* name) { return r.json["counters"][name].get<uint64_t>(); }

void expect_clean(const tb::RunResult& r) {
  ASSERT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
  const auto& sb = r.json["scoreboard"];
  EXPECT_GT(sb["expected"].get<uint64_t>(), 500u);
  EXPECT_EQ(sb["released"], sb["expected"]);
  for (const char* k : {"lost", "duplicated", "corrupted", "reordered", "unexpected"}) EXPECT_EQ(sb[k].get<uint64_t>(), 0u) << k;
  EXPECT_LE(r.json["occupancy"]["max"].get<uint64_t>(), r.json["occupancy"]["capacity"].get<uint64_t>());
  // every REQ that entered the buffer left it
  EXPECT_EQ(cnt(r, "held"), cnt(r, "released"));
}

TEST(RobStream, PaperFourSources) {
  auto r = run(1, 100000, {});
  expect_clean(r);
  EXPECT_GT(r.json["out_of_order_share"].get<double>(), 0.1);  // the network does reorder
  EXPECT_GT(cnt(r, "held"), 100u);
  EXPECT_GT(r.json["streams_done"].get<uint64_t>(), 5u);
}

TEST(RobStream, PaperSixteenSources) {
  auto r = run(2, 100000, {"sources=16", "stream_len=32"});
  expect_clean(r);
  EXPECT_GE(r.json["connections"]["max"].get<double>(), 8.0);
}

TEST(RobStream, SmallBufferOverflowsAndRecovers) {
  auto r = run(3, 100000, {"rob_config=r8", "sources=8", "max_outstanding=20", "p_long=0.5"});
  expect_clean(r);
  EXPECT_GT(cnt(r, "no_conn"), 0u);        // 8 sources, 4 connections
  EXPECT_GT(cnt(r, "overflow_full") + cnt(r, "overflow_collision"), 0u);
  EXPECT_GT(r.json["resent"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.json["occupancy"]["max"].get<uint64_t>(), 8u);
}

TEST(RobStream, HashCollisionsUseTheCache) {
  auto r = run(4, 100000, {"rob_config=r8", "sources=4", "streams_per_source=1", "max_outstanding=31", "p_long=0.5"});
  expect_clean(r);
  EXPECT_GT(cnt(r, "cam_inserts"), 0u);
}

TEST(RobStream, SequenceWraps) {
  auto r = run(5, 100000, {"rob_config=r8", "sources=2", "stream_len=2000", "max_outstanding=16"});
  expect_clean(r);
  EXPECT_GT(r.json["scoreboard"]["released"].get<uint64_t>(), 3u * 64u);  // 6-bit SEQ wrapped
}

TEST(RobStream, NetworkDuplicatesAreDroppedOnce) {
  auto r = run(6, 100000, {"p_dup=0.05"});
  expect_clean(r);
  EXPECT_GT(cnt(r, "duplicate"), 0u);
  EXPECT_GT(r.json["duplicates_injected"].get<uint64_t>(), 0u);
}

TEST(RobStream, ModelOnly) {
  auto r = run(7, 100000, {"rob=model", "sources=8"});
  expect_clean(r);
}

void expect_delayed_closes(const tb::RunResult& r) {
  expect_clean(r);
  EXPECT_FALSE(r.has_mismatch);
  EXPECT_GT(r.json["early_fins"].get<uint64_t>(), 0u);
  EXPECT_GT(r.json["fin_while_held"].get<uint64_t>(), 0u);  // a FIN reached the block while REQs were held
  // every such connection closed at the release of its last held REQ
  EXPECT_EQ(r.json["delayed_closes"], r.json["fin_while_held"]);
}

TEST(RobStream, FinWhileHeldClosesAfterRelease) {
  expect_delayed_closes(run(10, 100000, {"stream_len=32", "early_fin=1"}));
}

TEST(RobStream, FinWhileHeldWithOverflowAndResends) {
  // small buffer (r8): overflow rejects and resends in the same run as the early FINs
  auto r = run(11, 100000, {"rob_config=r8", "sources=8", "max_outstanding=20", "p_long=0.5", "stream_len=32", "early_fin=1"});
  expect_delayed_closes(r);
  EXPECT_GT(cnt(r, "overflow_full") + cnt(r, "overflow_collision"), 0u);
}

TEST(RobStream, WavesHoldTheLayoutSignals) {
  auto r = run(8, 3000, {}, "waves-test/rob_stream-8.fst");
  EXPECT_TRUE(r.pass);
  expect_layout_matches_dump(std::string(COSIM_SOURCE_DIR) + "/waves/rob_stream.gtkw", "waves-test/rob_stream-8.fst");
}

TEST(RobMutant, CaughtWithCycleAndSignal) {
  auto r = run(9, 100000, {"rob_config=r8", "mutant=true", "sources=4"});
  ASSERT_FALSE(r.pass);
  ASSERT_TRUE(r.has_mismatch);
  EXPECT_EQ(r.mismatch.block, "rob");
  EXPECT_NE(r.failures.front().find(r.mismatch.signal), std::string::npos);
}

}  // namespace
