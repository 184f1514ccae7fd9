// Long seeded sweeps of the `system` testbench (label nightly, docs/system.md "Test plan"): a plane
// (or a mesh cable) fails under load at a random cycle, in strict or unordered mode, with and without
// lossy wires and LLR, over three plane fabrics and a mesh. Every run must end with every command delivered
// exactly once, byte-exact (in order per {src, dst, VC} in strict mode), every
// read answered, the run drained (nothing left in the dead plane), no switch drop, no CBFC or frame
// error, and the failover protocol run (FO-REQs answered by FO-ACKs).
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "core/rng.hpp"
#include "system/system_run.hpp"

namespace {

using system_test::run;
using system_test::u;

struct Shape {
  const char* name;
  std::vector<std::string> sets;
  unsigned planes;  // 0: a mesh of 6 XPUs x 5 instances (a cable fails instead of a plane)
};

const std::vector<Shape> kShapes = {
    {"x8_s4", {"xpus=8"}, 4},
    {"x16_2xs2", {"xpus=16", "instances=2", "sue_config=s2", "port_gbps=400"}, 4},
    {"x64_s4", {"xpus=64"}, 4},
    {"mesh_x6_s2", {"topology=mesh", "xpus=6", "instances=5", "sue_config=s2"}, 0},
};

// (shape, seed): the plane (mesh: the XPU and instance of the cable of port 0), the failure cycle, the
// mode, LLR (planes) and the wire faults drawn from the seed.
class SystemFailoverSweep : public testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(SystemFailoverSweep, ExactlyOnce) {
  const Shape& sh = kShapes[static_cast<size_t>(std::get<0>(GetParam()))];
  const uint64_t seed = 9100 + static_cast<uint64_t>(std::get<1>(GetParam()));
  core::Rng rng(seed, "nightly.failover");
  const bool mesh = sh.planes == 0;
  const unsigned plane = static_cast<unsigned>(rng.uniform(0, mesh ? 29 : sh.planes - 1));  // mesh: XPU * 5 + instance
  const uint64_t at = 500 + rng.uniform(0, 7000);
  const bool lossy = rng.uniform(0, 1) == 1, llr = !mesh && rng.uniform(0, 1) == 1, strict = rng.uniform(0, 1) == 1;
  std::vector<std::string> sets = sh.sets;
  for (std::string s : {"load=0.8", "read_ratio=0.4"}) sets.push_back(s);
  sets.push_back(strict ? "mode=strict" : "mode=unordered");
  sets.push_back(mesh ? "fail_link=x" + std::to_string(plane / 5) + ".i" + std::to_string(plane % 5) + ".p0@" + std::to_string(at)
                      : "fail_plane=" + std::to_string(plane) + "@" + std::to_string(at));
  if (lossy) sets.push_back(llr ? "fer=0.002" : "drop_prob=0.0005");
  if (llr) sets.push_back("llr=true");
  std::string what = std::string(sh.name) + " seed " + std::to_string(seed);
  for (auto& s : sets) what += " " + s;
  auto r = run(seed, 8000, sets);
  ASSERT_TRUE(r.pass) << what << "\n" << (r.failures.empty() ? "" : r.failures.front()) << "\n" << r.summary;
  for (const char* k : {"lost", "duplicated", "corrupted", "reordered", "unexpected"}) EXPECT_EQ(u(r, "scoreboard", k), 0u) << k;
  EXPECT_EQ(u(r, "scoreboard", "matched"), u(r, "scoreboard", "expected")) << what;
  EXPECT_TRUE(r.json["drained"].get<bool>()) << what;
  EXPECT_EQ(u(r, "commands", "responses"), u(r, "commands", "reads")) << what;
  EXPECT_EQ(u(r, "drops", "lossless"), 0u) << what;
  EXPECT_EQ(r.json["cbfc_errors"].get<uint64_t>(), 0u) << what;
  EXPECT_EQ(u(r, "frames", "decode_errors"), 0u) << what;
  const auto& fp = r.json[mesh ? "fail_link" : "fail_plane"];
  EXPECT_GT(fp["fo_req_sent"].get<uint64_t>(), 0u) << what;
  EXPECT_GT(fp["fo_ack_rcvd"].get<uint64_t>(), 0u) << what;
  EXPECT_GE(fp["fo_req_sent"].get<uint64_t>(), fp["fo_ack_rcvd"].get<uint64_t>()) << what;  // a lost one is asked again
}

INSTANTIATE_TEST_SUITE_P(Shapes, SystemFailoverSweep, testing::Combine(testing::Range(0, 4), testing::Range(0, 8)));

}  // namespace

// Uniform traffic over all 64 XPUs at full load, the flit NIC at the defaults (s4, 4 x 200G), 60,000 cycles
// of warm-up and 40,000 measured (the per-destination queues take ~30 us to fill at 64 XPUs). Every XPU pair
// carries traffic, nothing is lost or resent (the RTO of 65,536 cycles sits above the lossless fabric's
// queueing; at 8,192 the 256-byte run took 3,706 spurious RTOs and fell to 82 %), and the goodput keeps the
// figures of 2026-11-28 (docs/system.md "64 and 1,024 XPUs"; docs/sue.md "ACK count"): with ack_delay 4,096
// and ack_count 4, 256-byte writes 95.8 % (93.3 % at ack_delay 512: ACK-only frames took the wire), held at
// the 95 % target; the default mix 92.7 % (88.6 %), one point under: one destination per PDU packs ~5
// commands at 64 XPUs.
// Mean goodput sent per XPU in % of the wire-limited goodput (the summary's "sent per sending XPU").
double sent_pct(const tb::RunResult& r) {
  const auto& g = r.json["goodput"];
  double sent = 0;
  for (const auto& x : g["sent"]) sent += x.get<double>();
  return 100.0 * sent / static_cast<double>(g["sent"].size()) / g["wire_limited_gbps"].get<double>();
}

struct Uniform64 {
  const char* name;
  std::vector<std::string> sets;
  double floor_pct;
};

class SystemUniform64 : public testing::TestWithParam<int> {};

TEST_P(SystemUniform64, AllPairsCleanNoRtoAndKeepsItsGoodput) {
  static const Uniform64 kCases[] = {
      {"256-byte writes", {"read_ratio=0", "dlen_min=256", "dlen_max=256"}, 95.0},
      {"default mix", {}, 95.0},  // 92.7 % before shared-buffer credits (qcap=64), 95.8 % with them
  };
  const Uniform64& c = kCases[GetParam()];
  std::vector<std::string> sets = {"xpus=64", "nic=flit", "load=1", "warmup_cycles=60000"};
  sets.insert(sets.end(), c.sets.begin(), c.sets.end());
  auto r = run(1, 100000, sets);
  ASSERT_TRUE(r.pass) << c.name << "\n" << (r.failures.empty() ? "" : r.failures.front());
  for (const char* k : {"lost", "duplicated", "corrupted", "reordered", "unexpected"}) EXPECT_EQ(u(r, "scoreboard", k), 0u) << k;
  EXPECT_EQ(r.json["pairs_reached"].get<uint64_t>(), 64u * 63u) << c.name;
  EXPECT_EQ(u(r, "tx", "rto"), 0u) << c.name;
  EXPECT_EQ(u(r, "tx", "pdus_rtx"), 0u) << c.name;
  EXPECT_GE(r.json["jain"].get<double>(), 0.99) << c.name;
  const double pct = sent_pct(r);
  EXPECT_GE(pct, c.floor_pct) << c.name;
  EXPECT_LE(pct, 100.5) << c.name;
}

INSTANTIATE_TEST_SUITE_P(Sizes, SystemUniform64, testing::Range(0, 2));

// Uniform traffic over all 1,024 XPUs at full load (flit NICs, defaults, 10,000 warm-up cycles; ~3 min and
// ~2.7 GiB): exactly once, fair, no RTO (8,192 cycles took 821,371 spurious ones), and the goodput of
// 2026-11-28 (72.9 % at ack_delay 512; 73.6 % over 20,000 cycles at ack_delay 4,096 / ack_count 4, 2.02
// commands per PDU and an ACK-only frame for ~0.54 of the data PDUs: a connection {port, XPU, VC} carries
// ~1/1,023 of an XPU's traffic, so few commands share a PDU and few ACKs ride on one).
TEST(SystemUniform1024, CleanFairNoRtoAndKeepsItsGoodput) {
  auto r = run(1, 30000, {"xpus=1024", "nic=flit", "load=1", "warmup_cycles=10000"});
  ASSERT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front());
  for (const char* k : {"lost", "duplicated", "corrupted", "reordered", "unexpected"}) EXPECT_EQ(u(r, "scoreboard", k), 0u) << k;
  EXPECT_EQ(u(r, "tx", "rto"), 0u);
  EXPECT_EQ(u(r, "tx", "pdus_rtx"), 0u);
  EXPECT_GE(r.json["jain"].get<double>(), 0.99);
  const double pct = sent_pct(r);
  EXPECT_GE(pct, 71.9);
  EXPECT_LE(pct, 100.5);
}
