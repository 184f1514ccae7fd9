// System tests (label `system`): CBFC sender and receiver over the link.
// Lossless under a receiver that drains slower than the sender sends, RTL and
// model mixed per side, throughput against the buffer's credit round trip,
// and the wave file. Each TEST runs in its own process.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "cbfc/cbfc_tb.hpp"
#include "common/gtkw_check.hpp"
#include "common/tb_run.hpp"
#include "common/testbench.hpp"

namespace {

tb::RunConfig link_cfg(uint64_t seed, uint64_t cycles, std::vector<std::string> sets) {
  return tb_test::run_config("cbfc_link", seed, cycles, sets);
}

void expect_lossless(const tb::RunResult& r) {
  EXPECT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
  const auto& sb = r.json["scoreboard"];
  EXPECT_GT(sb["expected"].get<uint64_t>(), 100u);
  EXPECT_EQ(sb["matched"], sb["expected"]);
  EXPECT_EQ(sb["lost"].get<uint64_t>(), 0u);
  EXPECT_EQ(sb["duplicated"].get<uint64_t>(), 0u);
  EXPECT_EQ(sb["corrupted"].get<uint64_t>(), 0u);
  EXPECT_EQ(sb["reordered"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.json["buffer_overflows"].get<uint64_t>(), 0u);
  for (auto& c : r.json["classes"])
    EXPECT_LE(c["max_occupancy_bytes"].get<double>(), c["buffer_bytes"].get<double>());
}

TEST(CbfcLink, DefaultRtlBothSidesLosslessAtDrainRate) {
  auto r = tb::run_testbench(link_cfg(1, 100000, {"sweep=false"}));
  expect_lossless(r);
  // the receiver drains at half the line rate: the sender must be held back by
  // credits (stalls) and the delivered rate must reach the drain rate
  uint64_t stalls = 0;
  for (auto& c : r.json["classes"]) stalls += c["stall_cycles"].get<uint64_t>();
  EXPECT_GT(stalls, 1000u);
  EXPECT_GT(r.json["throughput_gbps"].get<double>(), 0.97 * r.json["drain_gbps"].get<double>());
  EXPECT_LE(r.json["throughput_gbps"].get<double>(), 1.01 * r.json["drain_gbps"].get<double>());
}

TEST(CbfcLink, ModelSenderRtlReceiver) {
  expect_lossless(tb::run_testbench(link_cfg(2, 100000, {"tx=model", "rx=rtl", "sweep=false"})));
}

TEST(CbfcLink, RtlSenderModelReceiver) {
  expect_lossless(tb::run_testbench(link_cfg(3, 100000, {"tx=rtl", "rx=model", "sweep=false"})));
}

TEST(CbfcLink, TightBufferVerySlowDrain32Classes) {
  // buffer of two max frames per class, drain at 10%: heavy back-pressure
  auto r = tb::run_testbench(link_cfg(4, 100000, {"rtl_config=c32", "buffer_bytes=4096", "len_max=2048",
                                                  "len_min=64", "drain_ratio=0.1", "sweep=false"}));
  expect_lossless(r);
  EXPECT_EQ(r.json["classes"].size(), 32u);
}

TEST(CbfcLink, TimerOnlyReturnsAndLongFiber) {
  // threshold above any frame: credits come back only through the timer
  auto r = tb::run_testbench(link_cfg(5, 100000, {"threshold=60000", "timer=20", "cable=smf", "length_m=100",
                                                  "buffer_bytes=262144", "sweep=false"}));
  expect_lossless(r);
}

TEST(CbfcLink, NarrowCountersWrapManyTimes) {
  // c1: 8-bit counters, 64 B credits: the cumulative limit wraps every 256 credits
  auto r = tb::run_testbench(link_cfg(6, 100000, {"rtl_config=c1", "buffer_bytes=4096", "len_max=1024",
                                                  "drain_ratio=0.9", "sweep=false"}));
  expect_lossless(r);
  uint64_t credits = r.json["classes"][0]["bytes_sent"].get<uint64_t>() / 64;
  EXPECT_GT(credits, 20u * 256u);
}

// Credit updates lost on the reverse channel (cu_loss). A lost update is
// repaired by the next update of its class; the last one of a class (buffer
// empty, nothing more to free) only by the refresh. A buffer of two largest
// frames and a drain at line rate: the sender keeps running out of credits and
// the receiver's buffer keeps emptying, so many lost updates are last ones.
std::vector<std::string> lossy(std::vector<std::string> more) {
  std::vector<std::string> s = {"cu_loss=0.2", "buffer_bytes=4096", "drain_ratio=1", "sweep=false"};
  s.insert(s.end(), more.begin(), more.end());
  return s;
}

void expect_no_stall_forever(const tb::RunResult& r) {
  expect_lossless(r);
  EXPECT_FALSE(r.has_mismatch);  // RTL and model in lockstep on both sides
  EXPECT_EQ(r.json["stalled_classes"].get<uint64_t>(), 0u);
  const auto& cu = r.json["credit_updates"];
  EXPECT_GT(cu["lost"].get<uint64_t>(), 100u);
  EXPECT_GT(cu["refreshes"].get<uint64_t>(), 0u);
  // every lost update was repaired, by a later update or by a refresh (or
  // carried nothing the sender lacked: a lost refresh of an up-to-date limit)
  EXPECT_EQ(cu["recovery_ns"]["count"].get<uint64_t>() + cu["lost_redundant"].get<uint64_t>(),
            cu["lost"].get<uint64_t>());
  for (auto& c : r.json["classes"]) {
    EXPECT_EQ(c["credits_missing"].get<int64_t>(), 0);
    EXPECT_GT(c["frames_sent"].get<uint64_t>(), 100u);
  }
}

TEST(CbfcLink, LostCreditUpdatesRepairedByRefresh) {
  auto r = tb::run_testbench(link_cfg(21, 100000, lossy({})));
  expect_no_stall_forever(r);
  // a lost last update waits for the refresh: refresh + 1 cycles, plus the
  // losses of the refreshes themselves (20% each), never forever
  const double period_ns = (r.json["credit_updates"]["refresh_cycles"].get<double>() + 1) * 1.0;
  const double max_rec = r.json["credit_updates"]["recovery_ns"]["max"].get<double>();
  EXPECT_GT(max_rec, period_ns);   // some losses were last updates, repaired by a refresh only
  EXPECT_LT(max_rec, 8 * period_ns);
}

TEST(CbfcLink, LostCreditUpdatesStallForeverWithoutRefresh) {
  // The same run with the refresh off: classes stall for good and the run
  // says so (this is what the refresh fixes).
  auto r = tb::run_testbench(link_cfg(21, 100000, lossy({"refresh=0", "drain_cycles=20000"})));
  EXPECT_FALSE(r.pass);
  EXPECT_FALSE(r.has_mismatch);
  EXPECT_GT(r.json["stalled_classes"].get<uint64_t>(), 0u);
  bool named = false;
  for (auto& f : r.failures) named = named || f.find("stalled for good") != std::string::npos;
  EXPECT_TRUE(named) << (r.failures.empty() ? "" : r.failures.front());
  EXPECT_EQ(r.json["scoreboard"]["lost"].get<uint64_t>(), 0u);  // nothing lost: frames just stop being sent
}

TEST(CbfcLink, LostCreditUpdates32ClassesMostlyIdle) {
  // 32 classes, 8 carry traffic: 24 idle classes refresh all the time and
  // contend with the updates of the busy ones; byte credits.
  auto r = tb::run_testbench(link_cfg(22, 60000, lossy({"rtl_config=c32", "classes=8", "buffer_bytes=8192",
                                                         "refresh=500", "cu_loss=0.1"})));
  expect_no_stall_forever(r);
  const auto& cu = r.json["credit_updates"];
  // idle classes: one refresh each per refresh + 1 cycles (1 ns)
  const double idle_refreshes = 24.0 * r.json["cycles"].get<double>() / 501.0;
  EXPECT_GT(cu["refreshes"].get<double>(), 0.9 * idle_refreshes);
  // the cost with every class idle: 32 classes x 64 bit per 501 ns = 4.09 Gb/s, 0.51% of 800 Gb/s
  EXPECT_NEAR(cu["idle_refresh_gbps"].get<double>(), 32 * 64 / 501.0, 1e-6);
}

TEST(CbfcLink, NoLossNoRefreshNeededUnderLoad) {
  // Busy classes send updates all the time: the refresh (default on) never
  // fires while traffic flows, only in the drain tail.
  auto r = tb::run_testbench(link_cfg(1, 100000, {"sweep=false"}));
  expect_lossless(r);
  EXPECT_EQ(r.json["credit_updates"]["lost"].get<uint64_t>(), 0u);
  EXPECT_LE(r.json["credit_updates"]["refreshes"].get<uint64_t>(), 2u * 4u);
}

// Full rate needs buffer >= rate x credit round trip: below it throughput
// falls in proportion, above it the link is full.
TEST(CbfcLink, BufferSweepFollowsRoundTrip) {
  core::Settings s = link_cfg(1, 0, {}).settings;
  auto e = tb::cbfc_tb::env_from_settings(s, 7, false);
  const double rtt = tb::cbfc_tb::estimate_rtt_ns(e);
  EXPECT_NEAR(tb::cbfc_tb::required_buffer_bytes(e), 800.0 / 8 * rtt, 1.0);
  auto pts = tb::cbfc_tb::buffer_sweep(e, {0.25, 0.5, 1.1, 1.5, 2.0}, 20000);
  ASSERT_EQ(pts.size(), 5u);
  EXPECT_NEAR(pts[0].efficiency, 0.25, 0.06);
  EXPECT_NEAR(pts[1].efficiency, 0.50, 0.06);
  for (size_t i = 2; i < pts.size(); ++i) EXPECT_GT(pts[i].efficiency, 0.97) << "ratio " << pts[i].ratio;
  // the measured zero-queue credit loop agrees with the estimate within 3 cycles
  EXPECT_NEAR(pts.back().loop_p50_ns, rtt, 3.0);
}

TEST(CbfcLink, LongerCableNeedsMoreBuffer) {
  core::Settings s = link_cfg(1, 0, {}).settings;
  auto short_e = tb::cbfc_tb::env_from_settings(s, 1, false);
  s.set("length_m", "10");
  s.set("cable", "smf");
  auto long_e = tb::cbfc_tb::env_from_settings(s, 1, false);
  // 2 x (10 m x 4.96 - 2 m x 4.6) ns more round trip, at 100 B/ns
  double extra = 2 * (10 * 4.96 - 2 * 4.6) * 100;
  EXPECT_NEAR(tb::cbfc_tb::required_buffer_bytes(long_e) - tb::cbfc_tb::required_buffer_bytes(short_e), extra, 2.0);
}

TEST(CbfcLink, InconsistentSettingsRejectedBeforeSimulation) {
  core::Settings s = link_cfg(1, 0, {}).settings;
  s.set("buffer_bytes", "1024");  // smaller than one 2048 B frame
  EXPECT_THROW(tb::cbfc_tb::env_from_settings(s, 1, false), core::UsageError);
  s = link_cfg(1, 0, {}).settings;
  s.set("rtl_config", "c1");
  s.set("classes", "4");
  EXPECT_THROW(tb::cbfc_tb::env_from_settings(s, 1, false), core::UsageError);
  s = link_cfg(1, 0, {}).settings;
  s.set("rtl_config", "c1");
  s.set("buffer_bytes", "4096");
  s.set("len_max", "1024");
  s.set("refresh", "5000");  // c1's refresh counter has 12 bits
  try {
    tb::cbfc_tb::env_from_settings(s, 1, false);
    FAIL() << "refresh=5000 accepted for a 12-bit counter";
  } catch (const core::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'refresh'=5000"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0..4095"), std::string::npos) << e.what();
  }
  s = link_cfg(1, 0, {}).settings;
  EXPECT_THROW(s.assign("cu_loss=1.5"), core::UsageError);
  EXPECT_THROW(s.assign("cu_loss=-0.1"), core::UsageError);
  s = link_cfg(1, 0, {}).settings;
  s.set("rtl_config", "c3");
  s.set("mutant", "true");
  try {
    tb::cbfc_tb::env_from_settings(s, 1, false);
    FAIL() << "mutant with c3 accepted";
  } catch (const core::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("rtl_config=c4"), std::string::npos) << e.what();
  }
}

// --waves writes an FST with the RTL signals the GTKWave layout shows.
TEST(CbfcLink, WavesHoldTheLayoutSignals) {
  std::string path = "waves-test/cbfc_link-11.fst";
  std::filesystem::remove(path);
  auto cfg = link_cfg(11, 2000, {"sweep=false"});
  cfg.waves_path = path;
  auto r = tb::run_testbench(cfg);
  EXPECT_TRUE(r.pass);
  expect_layout_matches_dump(std::string(COSIM_SOURCE_DIR) + "/waves/cbfc_link.gtkw", path);
}

}  // namespace
