// LLR scenarios (label `block`): two link partners, each an RTL block in
// lockstep with its model, over the faulty link. Every scenario must end with
// every eligible frame delivered exactly once, in order, intact (or
// accounted to a flush), and counters that agree with the injected faults.
// Each TEST runs in its own process.
#include <gtest/gtest.h>

#include "common/gtkw_check.hpp"
#include "common/tb_run.hpp"
#include "common/testbench.hpp"

namespace {

tb::RunResult run(uint64_t seed, uint64_t cycles, std::vector<std::string> sets) {
  return tb_test::run("llr_link", seed, cycles, sets);
}

uint64_t cnt(const tb::RunResult& r, const char* side, const char* name) {
  return r.json["counters"][side][name].get<uint64_t>();
}
uint64_t sb(const tb::RunResult& r, const char* dir, const char* what) {
  return r.json["scoreboard"][dir][what].get<uint64_t>();
}

void expect_clean(const tb::RunResult& r) {
  ASSERT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
  EXPECT_FALSE(r.has_mismatch);
  for (const char* d : {"a_to_b", "b_to_a"}) {
    EXPECT_EQ(sb(r, d, "lost"), 0u) << d;
    EXPECT_EQ(sb(r, d, "duplicated"), 0u) << d;
    EXPECT_EQ(sb(r, d, "corrupted"), 0u) << d;
    EXPECT_EQ(sb(r, d, "reordered"), 0u) << d;
  }
  EXPECT_GT(sb(r, "a_to_b", "matched"), 100u);
}

bool saw_state(const tb::RunResult& r, const std::string& side, const std::string& to) {
  for (auto& e : r.json["events"])
    if (e["side"] == side && e["to"] == to) return true;
  return false;
}

TEST(LlrLink, CleanTraffic) {
  auto r = run(1, 20000, {});
  expect_clean(r);
  for (const char* s : {"a", "b"}) {
    EXPECT_EQ(cnt(r, s, "tx_replay"), 0u);
    EXPECT_EQ(cnt(r, s, "rx_bad"), 0u);
    EXPECT_EQ(cnt(r, s, "rx_missing_seq"), 0u);
    EXPECT_EQ(cnt(r, s, "tx_nack_ctlos"), 0u);
    EXPECT_GE(cnt(r, s, "tx_init_ctlos"), 1u);
    EXPECT_GE(cnt(r, s, "tx_init_echo_ctlos"), 1u);
    EXPECT_GT(cnt(r, s, "tx_ack_ctlos"), 100u);
  }
  // every frame A sent arrived; B's counters say so too
  EXPECT_EQ(cnt(r, "a", "tx_ok"), cnt(r, "b", "rx_ok"));
  EXPECT_EQ(cnt(r, "b", "rx_expected_seq_good"), sb(r, "a_to_b", "matched"));
  EXPECT_TRUE(saw_state(r, "A", "ADVANCE"));
  // full load both ways: goodput near the line rate minus overheads
  EXPECT_GT(r.json["goodput_gbps"]["a_to_b"].get<double>(), 600.0);
}

TEST(LlrLink, RandomDrops) {
  auto r = run(2, 60000, {"drop_prob=0.002"});
  expect_clean(r);
  EXPECT_GT(cnt(r, "a", "tx_replay"), 0u);
  EXPECT_GT(cnt(r, "b", "rx_missing_seq"), 0u);
  EXPECT_GT(cnt(r, "b", "tx_nack_ctlos"), 0u);
  EXPECT_GT(cnt(r, "b", "rx_replay"), 0u);
  EXPECT_EQ(cnt(r, "a", "tx_flush"), 0u);
}

TEST(LlrLink, BitErrors) {
  auto r = run(3, 60000, {"ber=2e-6"});
  expect_clean(r);
  EXPECT_GT(cnt(r, "b", "rx_bad"), 0u);
  EXPECT_GT(cnt(r, "b", "rx_expected_seq_bad"), 0u);
  EXPECT_GT(cnt(r, "a", "tx_replay"), 0u);
}

TEST(LlrLink, OneChosenFrameDropped) {
  auto r = run(4, 20000, {"drop_frame=500", "bidir=false", "load=0.5"});
  expect_clean(r);
  EXPECT_EQ(cnt(r, "b", "rx_missing_seq"), 1u);
  EXPECT_EQ(cnt(r, "b", "tx_nack_ctlos"), 1u);
  EXPECT_EQ(cnt(r, "a", "rx_nack_ctlos"), 1u);
  EXPECT_GE(cnt(r, "a", "tx_replay"), 1u);
  EXPECT_EQ(cnt(r, "b", "rx_duplicate_seq"), 0u);
  EXPECT_EQ(r.json["faults"]["a_to_b"]["frames_dropped"].get<uint64_t>(), 1u);
  EXPECT_GE(r.json["latency_ns"]["a_to_b_replayed"]["count"].get<uint64_t>(), 1u);
}

TEST(LlrLink, BurstOf100Drops) {
  // 100 consecutive frames lost: the buffer holds them all, so the partner
  // sees one gap of exactly 100 sequence numbers and NACKs once.
  auto r = run(5, 40000, {"burst_start=1000", "burst_len=100", "bidir=false", "replay_timer_max=20000",
                          "len_max=512", "outstanding_frames_max=200"});
  expect_clean(r);
  EXPECT_EQ(cnt(r, "b", "rx_missing_seq"), 100u);
  EXPECT_EQ(cnt(r, "b", "tx_nack_ctlos"), 1u);
  EXPECT_GE(cnt(r, "a", "tx_replay"), 100u);
  EXPECT_GE(cnt(r, "b", "rx_replay"), 100u);
  EXPECT_EQ(r.json["faults"]["a_to_b"]["frames_dropped"].get<uint64_t>(), 100u);
  EXPECT_EQ(cnt(r, "a", "tx_flush"), 0u);
}

TEST(LlrLink, AcksSuppressedTimerReplays) {
  auto r = run(6, 30000, {"ack_loss_start_ns=3000", "ack_loss_ns=4000", "replay_timer_max=500",
                          "replay_count_max=30", "bidir=false"});
  expect_clean(r);
  EXPECT_GT(cnt(r, "a", "tx_replay"), 0u);
  EXPECT_GT(cnt(r, "b", "rx_duplicate_seq"), 0u);
  EXPECT_EQ(cnt(r, "a", "tx_flush"), 0u);
  EXPECT_EQ(cnt(r, "b", "tx_nack_ctlos"), 0u);  // nothing was lost, only ACKs
}

TEST(LlrLink, RetryLimitFlushAndReinit) {
  auto r = run(7, 30000, {"ack_loss_start_ns=3000", "ack_loss_ns=20000", "replay_timer_max=500",
                          "replay_count_max=3", "bidir=false"});
  ASSERT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
  EXPECT_GE(cnt(r, "a", "tx_flush"), 1u);
  EXPECT_GT(cnt(r, "a", "tx_discard"), 0u);
  EXPECT_GE(cnt(r, "a", "tx_init_ctlos"), 2u);  // the handshake ran again
  EXPECT_TRUE(saw_state(r, "A", "FLUSH"));
  EXPECT_TRUE(saw_state(r, "A", "INIT"));
  EXPECT_EQ(sb(r, "a_to_b", "lost"), 0u);
  EXPECT_EQ(sb(r, "a_to_b", "duplicated"), 0u);
  EXPECT_EQ(sb(r, "a_to_b", "reordered"), 0u);
}

TEST(LlrLink, RetryLimitWithoutReinitTakesTheLinkDown) {
  auto r = run(8, 20000, {"ack_loss_start_ns=3000", "ack_loss_ns=100000", "replay_timer_max=500",
                          "replay_count_max=2", "re_init_on_flush=false", "bidir=false", "drain_cycles=5000"});
  ASSERT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
  EXPECT_EQ(cnt(r, "a", "tx_flush"), 1u);
  EXPECT_EQ(cnt(r, "a", "tx_init_ctlos"), 1u);  // only the first handshake
  EXPECT_TRUE(saw_state(r, "A", "FLUSH"));
}

TEST(LlrLink, ReplayBufferFullStalls) {
  auto r = run(9, 30000, {"outstanding_frames_max=4", "cable=smf", "length_m=50", "bidir=false"});
  expect_clean(r);
  EXPECT_EQ(r.json["replay_buffer_max"]["a"]["frames"].get<uint64_t>(), 4u);
  EXPECT_EQ(cnt(r, "a", "tx_best_effort"), 0u);
  // 4 frames per 0.6 us round trip: far below the line rate
  EXPECT_LT(r.json["goodput_gbps"]["a_to_b"].get<double>(), 200.0);
}

TEST(LlrLink, ReplayBufferFullBestEffort) {
  auto r = run(10, 30000, {"outstanding_frames_max=4", "cable=smf", "length_m=50", "bidir=false",
                           "full_action=best_effort", "drop_prob=0.001"});
  ASSERT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
  EXPECT_GT(cnt(r, "a", "tx_best_effort"), 100u);
  EXPECT_EQ(r.json["demoted_best_effort"]["a_to_b"].get<uint64_t>(), cnt(r, "a", "tx_best_effort"));
  EXPECT_LE(r.json["replay_buffer_max"]["a"]["frames"].get<uint64_t>(), 4u);
}

TEST(LlrLink, SequenceWrapAround) {
  auto r = run(11, 60000, {"seq_bits=7", "drop_prob=0.001", "outstanding_frames_max=32", "outstanding_bytes_max=65536"});
  expect_clean(r);
  EXPECT_GT(sb(r, "a_to_b", "matched"), 20u * 128u);  // wrapped many times
  EXPECT_GT(cnt(r, "a", "tx_replay"), 0u);
}

TEST(LlrLink, MixedEligibleAndIneligible) {
  auto r = run(12, 60000, {"eligible_ratio=0.5", "drop_prob=0.002"});
  expect_clean(r);
  const auto& be = r.json["best_effort"]["a_to_b"];
  EXPECT_GT(be["matched"].get<uint64_t>(), 100u);
  EXPECT_GT(be["lost"].get<uint64_t>(), 0u);  // ineligible frames are not replayed
  EXPECT_EQ(be["duplicated"].get<uint64_t>(), 0u);
}

TEST(LlrLink, PfcPauseDuringErrors) {
  auto r = run(13, 40000, {"pause_class=0", "pause_at_ns=5000", "pause_ns=10000", "drop_prob=0.002"});
  expect_clean(r);
  EXPECT_GT(cnt(r, "a", "tx_replay"), 0u);
}

TEST(LlrLink, LinkDownAndUp) {
  auto r = run(14, 40000, {"link_down_at_ns=8000", "link_down_ns=2500", "replay_timer_max=1000"});
  expect_clean(r);
  EXPECT_GT(cnt(r, "a", "tx_replay"), 0u);
  EXPECT_EQ(cnt(r, "a", "tx_flush"), 0u);
}

TEST(LlrLink, LongLinkDownFlushesAndRecovers) {
  auto r = run(15, 40000, {"link_down_at_ns=8000", "link_down_ns=20000", "replay_timer_max=1000",
                           "replay_count_max=4"});
  ASSERT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
  EXPECT_GE(cnt(r, "a", "tx_flush"), 1u);
  EXPECT_EQ(sb(r, "a_to_b", "lost"), 0u);
  EXPECT_GT(sb(r, "a_to_b", "matched"), 100u);
}

TEST(LlrLink, CorruptedAndLostControlWords) {
  auto r = run(16, 60000, {"ctl_corrupt_prob=0.02", "ctl_drop_prob=0.02", "drop_prob=0.001"});
  expect_clean(r);
  EXPECT_GT(cnt(r, "a", "rx_bad_ctlos") + cnt(r, "b", "rx_bad_ctlos"), 0u);
}

TEST(LlrLink, ModelAndRtlPartners) {
  auto r = run(17, 40000, {"a=model", "b=rtl", "drop_prob=0.002"});
  expect_clean(r);
}

TEST(LlrLink, AckSpacingInBytes) {
  auto r = run(18, 30000, {"ctlos_target_spacing=4096", "ctlos_spacing_unit=bytes", "drop_prob=0.001"});
  expect_clean(r);
}

// --waves writes an FST with the RTL signals the GTKWave layout shows.
TEST(LlrLink, WavesHoldTheLayoutSignals) {
  const tb::Testbench* t = tb::find_testbench("llr_link");
  tb::RunConfig cfg;
  cfg.testbench = "llr_link";
  cfg.seed = 3;
  cfg.cycles = 2000;
  cfg.settings = tb::default_settings(*t);
  cfg.waves_path = "waves-test/llr_link-3.fst";
  std::filesystem::remove(cfg.waves_path);
  auto r = tb::run_testbench(cfg);
  EXPECT_TRUE(r.pass);
  expect_layout_matches_dump(std::string(COSIM_SOURCE_DIR) + "/waves/llr_link.gtkw", cfg.waves_path);
}

TEST(LlrMutant, CaughtWithCycleAndSignal) {
  auto r = run(19, 60000, {"mutant=true", "drop_prob=0.002"});
  ASSERT_FALSE(r.pass);
  ASSERT_TRUE(r.has_mismatch);
  EXPECT_FALSE(r.mismatch.signal.empty());
  EXPECT_GT(r.mismatch.cycle, 0u);
  EXPECT_NE(r.failures.front().find(r.mismatch.signal), std::string::npos);
}

}  // namespace
