// `cosim report throughput` (tb/report, docs/system.md "Throughput report"): the rows it plans, that each
// row's figures are its run's (goodput against sue::wire_limited, efficiency, PASS at the threshold), the
// latency rows against the unloaded run, the files it writes, and bad settings refused before any run.
// Label `system`; short runs (the report's figures themselves are the line-rate tests' business).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/settings.hpp"
#include "report/throughput_report.hpp"
#include "sue/goodput.hpp"
#include "system/system_run.hpp"

namespace {

using tb::report::Options;

Options quick(std::vector<std::string> sets) {
  Options o;
  o.sets = std::move(sets);
  o.cycles = 2500;
  o.warmup = 1000;
  o.quick = true;
  o.out_dir = "";
  o.plot = false;
  return o;
}

TEST(ThroughputReport, PlansEveryShapeSizeAndDirection) {
  Options o = quick({});
  o.quick = false;
  const auto rows = tb::report::plan(o);
  // 4 sizes x (2 directions x {1 peer, 4 peers, all peers} + incast)
  ASSERT_EQ(rows.size(), 28u);
  unsigned uni = 0, incast = 0, unordered = 0;
  for (const auto& r : rows) {
    uni += r.direction == "uni" && r.shape.rfind("incast", 0) != 0;
    incast += r.shape == "incast 7:1";
    unordered += r.mode == "unordered";
    EXPECT_EQ(r.mode == "unordered", r.shape == "1 peer") << r.shape;
  }
  EXPECT_EQ(uni, 12u);
  EXPECT_EQ(incast, 4u);
  EXPECT_EQ(unordered, 8u);
  // An odd XPU count has no one-way half; 4 XPUs have 3 peers at most (2 in one-way traffic).
  EXPECT_EQ(tb::report::plan(quick({"xpus=5"})).size(), 8u);
  o.sets = {"xpus=4"};
  for (const auto& r : tb::report::plan(o)) EXPECT_TRUE(r.shape != "4 peers") << r.shape << " " << r.direction;
}

TEST(ThroughputReport, RowsAreTheirRunsFigures) {
  const Options o = quick({"xpus=4", "nic=flit"});
  const auto rep = tb::report::run(o, nullptr);
  ASSERT_EQ(rep.rows.size(), 8u);
  for (const auto& r : rep.rows) {
    EXPECT_TRUE(r.clean) << r.shape << " " << r.sizes;
    EXPECT_GT(r.sent, 10.0) << r.shape << " " << r.sizes;
    EXPECT_GT(r.received, 10.0) << r.shape << " " << r.sizes;
    EXPECT_LE(r.efficiency, 100.5) << r.shape << " " << r.sizes;
    const bool incast = r.shape.rfind("incast", 0) == 0;
    EXPECT_NEAR(r.efficiency, 100 * (incast ? r.received : r.sent) / r.limit, 1e-9);
    EXPECT_EQ(r.pass, r.clean && r.efficiency >= o.pass_pct);
    if (r.sizes == "256") {  // writes of 256 B only: the formula at exactly 256
      EXPECT_NEAR(r.limit, sue::wire_limited({false, 14, 4096}, 800, 256).gbps, 1e-6) << r.shape;
    }
    // The row is the run it names: the same settings through the testbench give the same goodput.
    std::vector<std::string> sets = o.sets;
    sets.insert(sets.end(), r.sets.begin(), r.sets.end());
    const tb::RunResult again = system_test::run(o.seed, o.cycles, sets);
    const auto& g = again.json["goodput"];
    EXPECT_DOUBLE_EQ(g["wire_limited_gbps"].get<double>(), r.limit);
    if (incast) {
      EXPECT_DOUBLE_EQ(g["received"][0].get<double>(), r.received);
    }
  }
  // Everything passes at 0 %, nothing at 100 % (overheads keep every run below the limit's ideal).
  EXPECT_EQ(rep.pass, std::all_of(rep.rows.begin(), rep.rows.end(), [](const auto& r) { return r.pass; }) &&
                          std::all_of(rep.latency.begin(), rep.latency.end(), [](const auto& l) { return l.clean; }));
  // Latency: unloaded first, factors against it, latency grows with load.
  ASSERT_EQ(rep.latency.size(), 4u);
  EXPECT_DOUBLE_EQ(rep.latency[0].load, 0.01);
  EXPECT_DOUBLE_EQ(rep.latency[0].factor_p50, 1.0);
  for (size_t k = 1; k < 4; ++k) {
    EXPECT_NEAR(rep.latency[k].factor_p50, rep.latency[k].p50 / rep.latency[0].p50, 1e-9);
    EXPECT_GE(rep.latency[k].p99, rep.latency[0].p99 * 0.99);
    EXPECT_LE(rep.latency[k].min, rep.latency[k].p50);
    EXPECT_LE(rep.latency[k].p50, rep.latency[k].p99);
    EXPECT_LE(rep.latency[k].p99, rep.latency[k].max);
  }
  // Text, Markdown, CSV, JSON agree on the rows and the verdict.
  const std::string t = rep.text(), m = rep.markdown(), c = rep.csv();
  EXPECT_NE(t.find(rep.pass ? "RESULT: PASS" : "RESULT: FAIL"), std::string::npos);
  EXPECT_EQ(std::count(c.begin(), c.end(), '\n'), 9);
  EXPECT_EQ(rep.json()["rows"].size(), 8u);
  EXPECT_NE(m.find("| incast 3:1 |"), std::string::npos);
}

TEST(ThroughputReport, WritesItsFilesAndThePlot) {
  Options o = quick({"xpus=2", "nic=flit"});
  o.out_dir = "report-test-out";
  o.plot = true;
  std::filesystem::remove_all(o.out_dir);
  const auto rep = tb::report::run(o, nullptr);
  tb::report::write(rep, o);
  for (const char* f : {"throughput.txt", "throughput.json", "throughput.csv", "throughput.md", "throughput.png"})
    EXPECT_GT(std::filesystem::file_size(std::filesystem::path(o.out_dir) / f), 100u) << f;
  std::ifstream png(std::filesystem::path(o.out_dir) / "throughput.png", std::ios::binary);
  char sig[4] = {};
  png.read(sig, 4);
  EXPECT_EQ(std::string(sig + 1, 3), "PNG");
}

TEST(ThroughputReport, RefusesBadSettingsBeforeRunning) {
  EXPECT_THROW(tb::report::run(quick({"bogus=1"}), nullptr), core::UsageError);
  EXPECT_THROW(tb::report::run(quick({"xpus=4000"}), nullptr), core::UsageError);
  // Valid alone, not with a row's settings: dlen_max above SUE Lite's MaxData is caught before any run.
  EXPECT_THROW(tb::report::run(quick({"sue_config=lite", "dlen_min=300"}), nullptr), core::UsageError);
}

// The report at the defaults (8 XPUs, s4 = 4 x 200G, cycle-exact twins): the rows that reach the 95 % target
// must keep it; every other row keeps at least today's figure less a margin (measured 2026-11-28, after
// the line-rate unpacker, the strict pin hash and credits at PDU formation; docs/system.md "Throughput
// report" lists them; the 1-peer 64-byte rows went from 20.1 to 18.8 with the line-rate builder; with the shared command pool the 1-peer rows rose to 59-61 % at 64 B, 82-87 % at 128 B, 97-98 % at 256 B and 59-69 % for the mix, incast 64 B to 96.7 %; with s4 at DataW 1024 the mix rows rose to 71-80 % and the mix incast to 98.1 %). A regression anywhere in the transport shows here; raise the floors as the
// design improves, until every row is 95.
TEST(ThroughputReport, DefaultsKeepTheirEfficiency) {
  struct Floor {
    const char *traffic, *dir, *size;
    double pct;
  };
  const Floor floors[] = {
      {"1 peer", "uni", "64", 57},     {"4 peers", "uni", "64", 50},    {"all peers", "uni", "64", 47},
      {"1 peer", "bi", "64", 58},      {"4 peers", "bi", "64", 41},     {"all peers", "bi", "64", 49},
      {"incast 7:1", "uni", "64", 94}, {"1 peer", "uni", "128", 84},    {"4 peers", "uni", "128", 86},
      {"all peers", "uni", "128", 87}, {"1 peer", "bi", "128", 82},     {"4 peers", "bi", "128", 77},
      {"all peers", "bi", "128", 72},  {"incast 7:1", "uni", "128", 95}, {"1 peer", "uni", "256", 95},
      {"4 peers", "uni", "256", 95},   {"all peers", "uni", "256", 95}, {"1 peer", "bi", "256", 95},
      {"4 peers", "bi", "256", 89},    {"all peers", "bi", "256", 77},  {"incast 7:1", "uni", "256", 95},
      {"1 peer", "uni", "mix", 68},    {"4 peers", "uni", "mix", 71},   {"all peers", "uni", "mix", 70},
      {"1 peer", "bi", "mix", 77},     {"4 peers", "bi", "mix", 71},    {"all peers", "bi", "mix", 75},
      {"incast 7:1", "uni", "mix", 95}};
  Options o;
  o.out_dir = "";
  o.plot = false;
  const auto rep = tb::report::run(o, nullptr);
  ASSERT_EQ(rep.rows.size(), std::size(floors));
  for (size_t k = 0; k < rep.rows.size(); ++k) {
    const auto& r = rep.rows[k];
    ASSERT_EQ(r.shape, floors[k].traffic);
    ASSERT_EQ(r.direction, floors[k].dir);
    ASSERT_EQ(r.sizes, floors[k].size);
    EXPECT_TRUE(r.clean) << r.shape << " " << r.direction << " " << r.sizes;
    EXPECT_GE(r.efficiency, floors[k].pct) << r.shape << " " << r.direction << " " << r.sizes;
    if (floors[k].pct >= 95) {
      EXPECT_TRUE(r.pass) << r.shape << " " << r.direction << " " << r.sizes;
    }
  }
}

}  // namespace
