// Multi-XPU system testbench `system` (label `system`, docs/system.md "Test plan"):
// N XPUs x M SUE instances (C++ models, XPU 0 as RTL in lockstep in one test)
// over switch planes or a mesh; wire faults with and without LLR on the NIC <->
// switch links, RTL LLR partners in lockstep. Every scenario must end with every command
// delivered exactly once, byte-exact, at the right XPU, in order per {src, dst,
// VC} in strict mode, no switch drop, no CBFC error, every frame decoding with
// sue::decode, and the figures the pattern calls for. Each TEST runs in its own
// process (SystemC elaborates once per process); each takes well under 5 s.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "common/gtkw_check.hpp"
#include "system/system_run.hpp"

namespace {

using system_test::run;
using system_test::u;

// The scoreboard clean (exactly once, in order), drained; no switch drop, no CBFC or frame error;
// every command sue_tx took left a sue_rx. Holds with lossy links too (SUE or LLR recovers).
void expect_delivered(const tb::RunResult& r, uint64_t min_cmds) {
  ASSERT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front()) << "\n" << r.summary;
  EXPECT_FALSE(r.has_mismatch);
  for (const char* k : {"lost", "duplicated", "corrupted", "reordered", "unexpected"}) EXPECT_EQ(u(r, "scoreboard", k), 0u) << k;
  EXPECT_GT(u(r, "scoreboard", "matched"), min_cmds);
  EXPECT_EQ(u(r, "scoreboard", "matched"), u(r, "scoreboard", "expected"));
  EXPECT_TRUE(r.json["drained"].get<bool>());
  EXPECT_EQ(u(r, "drops", "lossless"), 0u);
  EXPECT_EQ(u(r, "drops", "other"), 0u);
  EXPECT_EQ(r.json["cbfc_errors"].get<uint64_t>(), 0u);
  EXPECT_EQ(u(r, "frames", "decode_errors"), 0u);
  EXPECT_EQ(u(r, "tx", "cmds_in"), u(r, "rx", "cmds_out"));
}

// ... and no faults, so nothing to recover.
void expect_clean(const tb::RunResult& r, uint64_t min_cmds) {
  expect_delivered(r, min_cmds);
  EXPECT_EQ(u(r, "tx", "nack_sent"), 0u);
  EXPECT_EQ(u(r, "rx", "drop_rcrc"), 0u);
}

double sent(const tb::RunResult& r, unsigned x) { return r.json["throughput_gbps"]["sent"][x].get<double>(); }
double received(const tb::RunResult& r, unsigned x) { return r.json["throughput_gbps"]["received"][x].get<double>(); }

// Uniform random, 8 XPUs x one 4 x 200G instance over 4 planes of 8-port switches; reads make
// responses on VC 1, and every read request gets exactly one response.
TEST(System, UniformPlanesClean) {
  auto r = run(1, 4000, {"xpus=8", "read_ratio=0.5"});
  expect_clean(r, 2000);
  EXPECT_EQ(r.json["planes"].get<unsigned>(), 4u);
  EXPECT_GT(u(r, "commands", "reads"), 500u);
  EXPECT_EQ(u(r, "commands", "responses"), u(r, "commands", "reads"));
  EXPECT_EQ(r.json["latency_ns"]["responses"]["count"].get<uint64_t>(), u(r, "commands", "reads"));
  EXPECT_GT(r.json["latency_ns"]["requests"]["p50"].get<double>(), 300.0);  // NIC PHYs, cables, 250 ns switch
  EXPECT_GT(r.json["jain"].get<double>(), 0.95);
  for (unsigned x = 0; x < 8; ++x) EXPECT_GT(received(r, x), 50.0) << x;
  EXPECT_GT(r.json["flit_hops"].get<uint64_t>(), 5000u);
}

// A fixed random derangement: every XPU sends to one XPU and receives from one.
TEST(System, PermutationClean) {
  auto r = run(2, 4000, {"pattern=permutation", "read_ratio=0"});
  expect_clean(r, 500);
  for (unsigned x = 0; x < 8; ++x) {
    EXPECT_GT(sent(r, x), 20.0) << x;
    EXPECT_GT(received(r, x), 20.0) << x;
  }
}

// The wire-limited command goodput into one 4 x 200G instance (docs/system.md "Findings"): per frame
// preamble 8 + IFG 12 + FCS 4 + header 14 + RH 8 + R-CRC 4 = 50 bytes, per command 2 + 18 + dlen,
// with n commands per PDU (here: every data PDU goes to XPU 0, so n = cmds_sent / pdus_new).
double incast_wire_limit(const tb::RunResult& r, double dlen) {
  const double n = static_cast<double>(u(r, "tx", "cmds_sent")) / static_cast<double>(u(r, "tx", "pdus_new"));
  return 4 * 200.0 * (20 + dlen) * n / (50 + (20 + dlen) * n);
}

// One {peer, VC} queue per XPU at load 1, compiled defaults (QDepth 32, Window 8). The queue
// credits come back at PDU formation and the store (8 x QDepth slots) covers the round trip
// (docs/sue.md "Retransmit store and sizing"): unordered, one flow fills what the receiving sue_rx
// unpacks (measured 384 Gb/s per XPU; with the credits held to the ACK it was ~44); strict, one
// 200G port (197).
TEST(System, PermutationOneQueueAtLineRate) {
  const std::vector<std::string> base = {"pattern=permutation", "load=1",       "read_ratio=0",
                                         "dlen_min=256",        "dlen_max=256", "warmup_cycles=2000"};
  for (const char* mode : {"mode=unordered", "mode=strict"}) {
    std::vector<std::string> sets = base;
    sets.push_back(mode);
    auto r = run(1, 10000, sets);
    expect_clean(r, 1000);
    EXPECT_EQ(u(r, "tx", "rto"), 0u) << mode;
    const double floor = mode[5] == 'u' ? 300.0 : 180.0;
    for (unsigned x = 0; x < 8; ++x) EXPECT_GT(received(r, x), floor) << mode << " XPU " << x;
  }
}

// 7:1 incast into XPU 0 with deep SUE queues (models: QDepth 256, Window 64), unordered (every
// port) and small switch credits (48 cells per NIC per class): CBFC holds the senders at the
// switch ingress (NIC gates closed), the switch queues toward XPU 0, nothing is dropped, XPU 0
// receives at its ports' line rate (sue_rx unpacks every port at line rate; the old unpacker, one
// 32-byte row per cycle, gave 390 Gb/s here), the senders share it.
TEST(System, IncastSevenToOneLosslessAndFair) {
  auto r = run(3, 8000, {"pattern=incast", "read_ratio=0", "dlen_min=256", "warmup_cycles=2000", "mode=unordered",
                         "qdepth=256", "window=64", "switch_credits=48"});
  expect_clean(r, 1000);
  const double lim = incast_wire_limit(r, 256);  // 783.6 Gb/s at 8.68 commands per PDU
  EXPECT_GT(received(r, 0), 0.95 * lim);         // measured 790.5
  EXPECT_LT(received(r, 0), 1.03 * lim);         // (a window of 5 us cuts PDUs of ~2.4 KB)
  for (unsigned x = 1; x < 8; ++x) EXPECT_LT(received(r, x), 1.0) << x;  // nothing but ACKs flow back
  EXPECT_GT(r.json["jain"].get<double>(), 0.9);
  EXPECT_GT(r.json["nic_credit_stall_us"][0].get<double>(), 10.0);  // senders held by the switch's credits
  double qmax = 0;
  for (auto& s : r.json["switches"]) qmax = std::max(qmax, s["queue_max_kib"].get<double>());
  EXPECT_GT(qmax, 16.0);  // the incast queues in the switch
}

// The same incast with the default switch credits (512 cells): fewer commands per PDU (1.61), XPU 0
// still receives close to its wire limit (measured 740.1 Gb/s; 357.5 with the old unpacker).
TEST(System, IncastIntoOneS4AtLineRate) {
  auto r = run(1, 10000, {"pattern=incast", "mode=unordered", "qdepth=256", "window=64", "read_ratio=0",
                          "dlen_min=256", "load=1", "warmup_cycles=2000"});
  expect_clean(r, 1000);
  EXPECT_GT(received(r, 0), 0.95 * incast_wire_limit(r, 256));  // 0.95 x 719.0
  EXPECT_LT(received(r, 0), 800.0);
}

// Strict mode at the defaults (QDepth, Window compiled): 7:1 incast into XPU 0. The pin hashes both
// XPU ids (docs/sue.md "port_sel"), so the seven senders' flows to XPU 0 spread over its four ports.
// (The pin by peer index put them all on port 0: plane imbalance ~4, XPU 0 below one 200G port.)
TEST(System, StrictIncastSpreadsOverThePlanes) {
  auto r = run(3, 8000, {"pattern=incast", "read_ratio=0", "dlen_min=256", "warmup_cycles=2000", "load=1"});
  expect_clean(r, 1000);
  EXPECT_NE(r.summary.find("; strict mode"), std::string::npos);  // the default mode
  EXPECT_LT(r.json["plane_imbalance"].get<double>(), 1.3);
  const auto& pl = r.json["plane_gbps"];
  ASSERT_EQ(pl.size(), 4u);
  for (unsigned k = 0; k < 4; ++k) EXPECT_GT(pl[k].get<double>(), 60.0) << "plane " << k;
  EXPECT_GT(received(r, 0), 250.0);
}

// Each XPU cycles over every other; with 2 instances of 1 port and 12 XPUs every instance addresses
// every XPU (NumXpus 12, no peer tables) and a flow {src, dst, VC} takes instance (src + dst + VC) mod 2:
// every ordered pair carries traffic, and both planes their share.
TEST(System, AllToAllOverTwoInstancesClean) {
  auto r = run(4, 4000, {"pattern=alltoall", "xpus=12", "sue_config=s1", "instances=2", "read_ratio=0.2"});
  expect_clean(r, 2000);
  EXPECT_EQ(r.json["planes"].get<unsigned>(), 2u);
  EXPECT_EQ(r.json["num_xpus"].get<unsigned>(), 12u);
  EXPECT_EQ(r.json["pairs_reached"].get<uint64_t>(), 12u * 11u);
  EXPECT_LT(r.json["plane_imbalance"].get<double>(), 1.3);
}

// No peer tables with the cycle-exact twins either: 20 XPUs (more than the 16 peers an instance held
// before) take NumXpus 20, and uniform traffic reaches every ordered pair: every XPU receives from
// every other (a pair left out or a command at the wrong XPU fails), the scoreboard clean.
TEST(System, UniformReachesEveryPairBeyondSixteenXpus) {
  auto r = run(3, 4000, {"xpus=20"});
  expect_clean(r, 5000);
  EXPECT_EQ(r.json["num_xpus"].get<unsigned>(), 20u);
  EXPECT_FALSE(r.json.contains("pairs_missing"));
  EXPECT_EQ(r.json["pairs_reached"].get<uint64_t>(), 20u * 19u);
  EXPECT_NE(r.summary.find("reach: 380 of the 380 ordered XPU pairs"), std::string::npos);
  EXPECT_NE(r.summary.find("addressing: no peer tables, every instance addresses XPU ids 0..19 directly"), std::string::npos);
  for (unsigned x = 0; x < 20; ++x) EXPECT_GT(received(r, x), 50.0) << x;
}

// Ring all-reduce: 2(N-1) = 14 steps, each 2 KiB per XPU to its successor; a step starts when the
// predecessor's chunk of the previous step is in. Every step's data arrives, the run ends by itself.
TEST(System, AllReduceRingCompletes) {
  auto r = run(5, 40000, {"pattern=allreduce", "chunk_bytes=2048", "dlen_max=256", "mode=unordered"});
  expect_clean(r, 400);
  EXPECT_EQ(r.json["allreduce"]["steps"].get<unsigned>(), 14u);
  EXPECT_GT(r.json["allreduce"]["done_cycle"].get<uint64_t>(), 0u);
  EXPECT_EQ(u(r, "scoreboard", "matched"), 8u * 14u * 8u);  // 8 XPUs x 14 steps x 2048/256 commands
  EXPECT_GT(r.json["allreduce"]["algbw_gbps"].get<double>(), 10.0);
}

// Unordered mode sprays each queue over the least-loaded port: the planes carry the same load.
TEST(System, UnorderedBalancesPlanes) {
  auto r = run(6, 4000, {"mode=unordered", "load=0.6"});
  expect_clean(r, 2000);
  EXPECT_LT(r.json["plane_imbalance"].get<double>(), 1.05);
}

// Mesh (figure 2): 6 XPUs, 5 instances each, instance m cabled to the partner of matching m.
TEST(System, MeshClean) {
  auto r = run(7, 3000, {"topology=mesh", "xpus=6", "instances=5", "sue_config=s2", "read_ratio=0.3"});
  expect_clean(r, 2000);
  EXPECT_EQ(r.json["planes"].get<unsigned>(), 0u);
  EXPECT_EQ(r.json["switches"].size(), 0u);
  EXPECT_GT(r.json["flit_hops"].get<uint64_t>(), 1000u);
  for (unsigned x = 0; x < 6; ++x) EXPECT_GT(received(r, x), 50.0) << x;
}

// Mixed: XPU 0's sue_tx and sue_rx (every instance) as verilated RTL in lockstep with their models,
// the other XPUs C++ models. Zero mismatches and a clean scoreboard; the wave holds every signal of
// waves/system.gtkw.
TEST(System, MixedRtlLockstepXpu0) {
  const std::string w = "waves-test/system-8.fst";
  auto r = run(8, 3000, {"xpus=5", "rtl=x0.tx,x0.rx", "lockstep=true", "read_ratio=0.3"}, w);
  expect_layout_matches_dump(std::string(COSIM_SOURCE_DIR) + "/waves/system.gtkw", w);
  expect_clean(r, 1000);
  EXPECT_FALSE(r.json.contains("mismatch"));
  EXPECT_EQ(r.json["num_xpus"].get<unsigned>(), 8u);  // the compiled s4 (every block follows it, the models too)
  EXPECT_GT(sent(r, 0), 50.0);
  EXPECT_GT(received(r, 0), 50.0);
}

// The scoreboard with lossy links: clean, exactly once, in order; no switch drop, no CBFC or frame error.
void expect_clean_lossy(const tb::RunResult& r, uint64_t min_cmds) {
  expect_delivered(r, min_cmds);
  ASSERT_TRUE(r.json.contains("links")) << r.summary;
}

// Frame errors on every NIC <-> switch wire (both directions) without LLR: each corrupted frame is
// forwarded and dropped by the receiving NIC's MAC (bad FCS), and SUE recovers it (NACK and
// go-back-N, or the RTO): every command exactly once and in order, with retransmissions.
TEST(System, LinkFaultsWithoutLlrRecoveredBySue) {
  auto r = run(11, 4000, {"fer=2e-3", "read_ratio=0.3"});
  expect_clean_lossy(r, 2000);
  const auto& l = r.json["links"];
  EXPECT_FALSE(l["llr"].get<bool>());
  EXPECT_GT(l["frames_lost"].get<uint64_t>(), 3u) << r.summary;
  EXPECT_EQ(l["frames_lost"].get<uint64_t>(), l["corrupted"].get<uint64_t>() + l["dropped"].get<uint64_t>());
  EXPECT_GT(u(r, "rx", "drop_mac"), 0u);         // the NIC MAC saw the bad FCS
  EXPECT_LE(u(r, "rx", "drop_mac"), l["corrupted"].get<uint64_t>());
  EXPECT_GT(u(r, "tx", "pdus_rtx"), 0u);         // SUE retransmitted
  EXPECT_EQ(l["sue_retransmitted_pdus"].get<uint64_t>(), u(r, "tx", "pdus_rtx"));
}

// The same wire faults (same seed and settings) with LLR on every link: the LLR partners replay every
// corrupted frame below SUE, so SUE sees no loss: no MAC drop, no NACK, no retransmission.
TEST(System, LinkFaultsWithLlrRepairedBelowSue) {
  auto r = run(11, 4000, {"fer=2e-3", "read_ratio=0.3", "llr=true"});
  expect_clean_lossy(r, 2000);
  const auto& l = r.json["links"];
  EXPECT_TRUE(l["llr"].get<bool>());
  EXPECT_EQ(l["llr_links"].get<unsigned>(), 8u * 4u);  // 8 XPUs x 4 ports
  EXPECT_GT(l["bad_frames"].get<uint64_t>(), 3u) << r.summary;
  EXPECT_GT(l["replays"].get<uint64_t>(), 3u);
  EXPECT_GE(l["frames_replayed"].get<uint64_t>(), l["replays"].get<uint64_t>());
  EXPECT_EQ(l["frames_lost"].get<uint64_t>(), 0u);
  EXPECT_EQ(l["flushes"].get<uint64_t>(), 0u);
  EXPECT_EQ(u(r, "rx", "drop_mac"), 0u);
  EXPECT_EQ(u(r, "tx", "nack_sent"), 0u);
  EXPECT_EQ(u(r, "tx", "pdus_rtx"), 0u);
  EXPECT_GT(l["buf_frames_max"].get<uint64_t>(), 0u);
}

// A burst error: every wire, both directions, drops 4 consecutive frames from its frame 50 (mid-run).
// Without LLR, SUE recovers every lost PDU (NACK at the gap, or the RTO when a tail is lost);
// with LLR the bursts are replayed below SUE and SUE sees nothing.
TEST(System, BurstOnEveryWireRecoveredBySueOrLlr) {
  auto r = run(3, 4000, {"burst=50+4", "read_ratio=0.3"});
  expect_clean_lossy(r, 2000);
  const auto& l = r.json["links"];
  EXPECT_GE(l["dropped"].get<uint64_t>(), 4u * 24u) << r.summary;  // most of the 32 wires reach frame 54
  EXPECT_EQ(l["dropped"].get<uint64_t>() % 4u, 0u);                 // whole bursts only
  EXPECT_EQ(l["corrupted"].get<uint64_t>(), 0u);
  EXPECT_GT(u(r, "tx", "pdus_rtx"), 0u);
  EXPECT_GT(u(r, "tx", "nack_sent") + u(r, "tx", "rto"), 0u);

  // With LLR the burst can also hit the replays on a wire that went quiet (its frames 50..53 are then
  // replays, each round one LLR replay timer later), so repairing a tail can take longer than SUE's
  // default RTO (5.1 us): SUE's timer is set above that here, and SUE must then see nothing.
  auto q = run(3, 4000, {"burst=50+4", "read_ratio=0.3", "llr=true", "rto=32768"});
  expect_clean_lossy(q, 2000);
  const auto& m = q.json["links"];
  EXPECT_GE(m["dropped"].get<uint64_t>(), 4u * 24u) << q.summary;
  EXPECT_EQ(m["frames_lost"].get<uint64_t>(), 0u);
  EXPECT_GE(m["frames_replayed"].get<uint64_t>(), m["dropped"].get<uint64_t>());
  EXPECT_EQ(u(q, "tx", "pdus_rtx"), 0u);
  EXPECT_EQ(u(q, "tx", "nack_sent"), 0u);
}

// Frames dropped on wires without LLR keep the CBFC credits they were charged (no credit resync):
// with small CBFC buffers a class starves. The run must fail loudly and name that cause; the same
// run with LLR loses nothing and passes.
TEST(System, DroppedFramesStarveCreditsLoudlyWithoutLlr) {
  const std::vector<std::string> sets = {"drop_prob=0.05", "switch_credits=40", "nic_buf_cells=40", "drain_cycles=5000"};
  auto r = run(1, 4000, sets);
  ASSERT_FALSE(r.pass) << r.summary;
  bool named = false;
  for (const auto& f : r.failures) named |= f.find("took their CBFC credits with them") != std::string::npos;
  EXPECT_TRUE(named) << r.summary;

  auto q = run(1, 4000, {"drop_prob=0.05", "switch_credits=40", "nic_buf_cells=40", "llr=true"});
  expect_clean_lossy(q, 1000);
  EXPECT_GT(q.json["links"]["dropped"].get<uint64_t>(), 20u) << q.summary;
  EXPECT_EQ(q.json["links"]["frames_lost"].get<uint64_t>(), 0u);
}

// Mixed RTL with LLR: XPU 0's sue_tx and sue_rx, the LLR partner at port 3 of plane 0's switch and
// the NIC-side LLR partners of XPU 3 (its 4 ports) as verilated RTL in lockstep with their models
// (the link sw0.p3 <-> XPU 3 port 0 is RTL at both ends), frame errors on every wire. Zero
// mismatches, every RTL partner carried frames both ways, the RTL detected bad frames and replayed,
// the RTL <-> RTL link delivered every frame either end sent, the scoreboard clean, no SUE
// retransmission; the wave holds every signal of waves/system.gtkw and waves/system_llr.gtkw.
TEST(System, MixedRtlWithRtlLlrPartners) {
  const std::string w = "waves-test/system-12.fst";
  auto r = run(12, 6000, {"xpus=5", "rtl=x0.tx,x0.rx,sw0.p3.llr,x3.llr", "llr=true", "fer=0.01", "load=0.8", "read_ratio=0.3"},
               w);
  expect_layout_matches_dump(std::string(COSIM_SOURCE_DIR) + "/waves/system.gtkw", w);
  expect_layout_matches_dump(std::string(COSIM_SOURCE_DIR) + "/waves/system_llr.gtkw", w);
  expect_clean_lossy(r, 1000);
  EXPECT_FALSE(r.json.contains("mismatch"));
  const auto& l = r.json["links"];
  ASSERT_EQ(l["rtl"].size(), 5u);
  std::map<std::string, nlohmann::json> by;
  uint64_t replayed = 0, bad = 0;
  for (const auto& e : l["rtl"]) {
    const std::string n = e["name"].get<std::string>();
    by[n] = e;
    EXPECT_TRUE(e["lockstep"].get<bool>()) << n;
    EXPECT_FALSE(e["mismatch"].get<bool>()) << n;
    EXPECT_GT(e["edges"].get<uint64_t>(), 5000u) << n;  // 1 GHz switch clock over ~6 us
    EXPECT_GT(e["tx_ok"].get<uint64_t>(), 10u) << n;     // frames it sent
    EXPECT_GT(e["rx_ok"].get<uint64_t>(), 10u) << n;     // frames it received
    replayed += e["tx_replay"].get<uint64_t>();
    bad += e["rx_bad"].get<uint64_t>();
  }
  for (const char* n : {"sw0.p3.llr", "x3i0p0.llr", "x3i0p1.llr", "x3i0p2.llr", "x3i0p3.llr"}) EXPECT_EQ(by.count(n), 1u) << n;
  EXPECT_GT(replayed, 0u);  // the RTL ran its replay path in lockstep
  EXPECT_GT(bad, 0u);
  EXPECT_EQ(by["sw0.p3.llr"]["tx_ok"], by["x3i0p0.llr"]["rx_ok"]);
  EXPECT_EQ(by["x3i0p0.llr"]["tx_ok"], by["sw0.p3.llr"]["rx_ok"]);
  EXPECT_GT(l["replays"].get<uint64_t>(), 0u);
  EXPECT_EQ(u(r, "tx", "pdus_rtx"), 0u);
}

// Zero load: a dlen-0 command crosses the TX pipeline (4 cycles), NIC PHY 23 ns, preamble, cable
// 9.2 ns, switch 250 ns (its grant on the switch's own clock edge), cable, NIC PHY 60 ns, the
// 64-byte frame's serialization (2.56 ns at 200G) and the RX pipeline (5 cycles): 360.375 ns plus
// less than one edge of each clock. Both clocks are on one picosecond time line: another switch
// clock moves the fastest command by less than its period.
TEST(System, ZeroLoadLatencyOnTwoClocks) {
  auto lat = [](const std::string& mhz) {
    auto r = run(9, 20000, {"xpus=2", "load=0.01", "dlen_max=0", "read_ratio=0", "core_mhz=" + mhz});
    EXPECT_TRUE(r.pass) << r.summary;
    return r.json["latency_ns"]["requests"]["min"].get<double>();
  };
  const double a = lat("1000"), b = lat("800");
  EXPECT_GE(a, 360.375);
  EXPECT_LE(a, 360.375 + 0.625 + 1.0);
  EXPECT_GE(b, 360.375);
  EXPECT_LE(b, 360.375 + 0.625 + 1.25);
}

// The lockstep guards the RTL LLR partners as it does the SUE blocks: the planted bug of the
// l20_mutant variant (a NACK replays from the frame after the NACKed one) is a mismatch at the first
// replay of an RTL partner, which stops and fails the run naming the block and the port.
TEST(System, RtlLlrMutantCaughtByLockstep) {
  auto r = run(12, 6000, {"xpus=5", "rtl=sw0.p3.llr,x3.llr", "llr=true", "llr_variant=l20_mutant", "fer=0.01", "load=0.8",
                          "read_ratio=0.3"});
  EXPECT_FALSE(r.pass);
  ASSERT_TRUE(r.has_mismatch) << r.summary;
  EXPECT_NE(r.mismatch.block.find("_llr"), std::string::npos) << r.mismatch.block;
  EXPECT_EQ(r.mismatch.signal.rfind("w_", 0), 0u) << r.mismatch.signal;  // the replayed frame on the wire
  ASSERT_FALSE(r.failures.empty());
  EXPECT_NE(r.failures.front().find("lockstep mismatch"), std::string::npos) << r.failures.front();
  bool flagged = false;
  for (const auto& e : r.json["links"]["rtl"]) flagged |= e["mismatch"].get<bool>();
  EXPECT_TRUE(flagged);
}

// LLR at zero load: each hop's LLR RX delivers a frame once it is wholly in and its FCS checked, and
// each LLR TX adds its pipeline cycles at the switch clock: the fastest command is later than without
// LLR by at least the two 64-byte frames' wire time (2 x 2.56 ns at 200G; measured +9.4 ns), but by
// less than 20 ns (a lost stage, a flight counted twice or a replay would exceed it).
TEST(System, LlrZeroLoadCost) {
  auto lat = [](bool llr) {
    auto r = run(9, 20000, {"xpus=2", "load=0.01", "dlen_max=0", "read_ratio=0", llr ? "llr=true" : "llr=false"});
    EXPECT_TRUE(r.pass) << r.summary;
    return r.json["latency_ns"]["requests"]["min"].get<double>();
  };
  const double off = lat(false), on = lat(true);
  EXPECT_GE(on - off, 2 * 2.56);
  EXPECT_LT(on - off, 20.0);
}

// Same (seed, settings): the same run, bit for bit (wall time aside); also with wire faults, with
// and without LLR.
TEST(System, Reproducible) {
  for (const auto& sets : std::vector<std::vector<std::string>>{
           {"xpus=6"}, {"xpus=6", "fer=5e-3", "drop_prob=1e-3"}, {"xpus=6", "llr=true", "fer=5e-3", "ctl_drop_prob=0.01"}}) {
    auto a = run(10, 2000, sets);
    auto b = run(10, 2000, sets);
    a.json.erase("wall_s");
    b.json.erase("wall_s");
    EXPECT_EQ(a.json.dump(), b.json.dump()) << sets.back();
    EXPECT_TRUE(a.pass) << sets.back() << "\n" << a.summary;
  }
}

// Bad settings: one line naming the setting and the allowed values, before anything runs.
TEST(System, BadSettingsAreOneLine) {
  auto bad = [](const std::vector<std::string>& sets, const std::string& want) {
    try {
      run(1, 1000, sets);
      ADD_FAILURE() << "no error for " << sets.front();
    } catch (const core::UsageError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(want), std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      EXPECT_NE(m.find("allowed"), std::string::npos) << m;
    }
  };
  bad({"topology=mesh"}, "'instances'=1 with topology=mesh");
  bad({"xpus=1025"}, "'xpus'");
  bad({"rtl=x9.tx"}, "names XPU 9 but xpus=8");
  bad({"rtl=x0.tx", "xpus=9"}, "'xpus'=9 with RTL blocks: the compiled sue_config=s4 addresses NumXpus=8 XPU ids (allowed: xpus 2..8");
  bad({"rtl=x0.rx", "xpus=9", "sue_config=s1"}, "'xpus'=9 with RTL blocks: the compiled sue_config=s1 addresses NumXpus=8");
  bad({"peers=8"}, "unknown setting 'peers'");  // no peer tables
  bad({"dlen_max=300"}, "'dlen_max'=300 exceeds MaxData=256");
  bad({"pattern=incast", "fan_in=9"}, "'fan_in'=9 needs 9 XPUs");
  bad({"pattern=ring"}, "'ring' is not a choice");
  bad({"llr=true", "rtl=sw9.p3.llr"}, "names plane 9 but there are 4 planes");
  bad({"llr=true", "rtl=sw0.p8.llr"}, "names port 8 but the switches have 8 ports");
  bad({"rtl=sw0.p3.llr"}, "names the LLR partner sw0.p3.llr but llr=false");
  bad({"rtl=x1.llr"}, "names the LLR partner x1.llr but llr=false");
  bad({"fer=2"}, "'fer'");
  bad({"drop_prob=-0.1"}, "'drop_prob'");
  bad({"ctl_drop_prob=0.01"}, "'ctl_drop_prob'=0.01 needs llr=true");
  bad({"llr=true", "topology=mesh", "xpus=6", "instances=5"}, "'llr'=true with topology=mesh");
  // fail_plane: only where SUE failover and the testbench model it.
  bad({"fail_plane=4@3000"}, "names plane 4 but there are 4 planes");
  bad({"fail_plane=0@3000", "mode=unordered", "sue_config=s1"}, "needs a second port");
  bad({"fail_plane=0@3000", "mode=unordered", "sue_config=lite"}, "SUE Lite has no failover");
  bad({"fail_plane=0@3000", "mode=unordered", "nic=flit"}, "with nic=flit");
  bad({"fail_plane=0@3000", "mode=unordered", "topology=mesh", "xpus=6", "instances=5"}, "with topology=mesh");
  bad({"fail_plane=0@2", "mode=unordered"}, "inside reset");
  bad({"fail_plane=0@"}, "'fail_plane'");
  bad({"fail_link=x0.i0.p1@300"}, "'fail_link'=x0.i0.p1@300 with topology=planes");
  const std::vector<std::string> mesh = {"topology=mesh", "xpus=5", "instances=5"};
  auto with = [&](std::vector<std::string> v, const std::string& x) {
    v.push_back(x);
    return v;
  };
  bad(with(mesh, "fail_link=x5.i0.p1@300"), "names XPU 5 instance 0 port 1");
  bad(with(mesh, "fail_link=x0.i0.p4@300"), "names XPU 0 instance 0 port 4");
  bad(with(mesh, "fail_link=x0.i0.p1@300"), "instance 0 of XPU 0 has no partner");
  bad(with(mesh, "fail_link=x0.i1.p1@3"), "inside reset");
  bad(with(mesh, "fail_plane=0@300"), "'fail_plane'=0@300 with topology=mesh");
}

// A plane fails under load (docs/system.md "Plane failure"): its switch and every link to it die
// at cycle 3000, with what they hold; every NIC's port on it goes down and SUE fails over to the
// other three ports (FO-REQ / FO-ACK per connection, unacknowledged PDUs migrated). Every command
// is still delivered exactly once (reads answered), nothing is left in the dead plane, and the
// measurement window after the failure sees no byte on that plane and traffic on the others.
TEST(SystemFailover, PlaneFailsUnderLoad) {
  auto r = run(3, 6000, {"xpus=8", "mode=unordered", "load=0.8", "read_ratio=0.5", "fail_plane=1@3000",
                         "warmup_cycles=3500"});
  expect_clean(r, 4000);
  const auto& fp = r.json["fail_plane"];
  EXPECT_EQ(fp["plane"].get<unsigned>(), 1u);
  EXPECT_TRUE(fp["happened"].get<bool>());
  EXPECT_GT(fp["frames_lost"].get<uint64_t>(), 50u);  // it was carrying a quarter of the load
  EXPECT_GT(fp["fo_req_sent"].get<uint64_t>(), 20u);
  EXPECT_EQ(fp["fo_ack_rcvd"].get<uint64_t>(), fp["fo_req_sent"].get<uint64_t>());
  EXPECT_EQ(fp["fo_ack_sent"].get<uint64_t>(), fp["fo_req_sent"].get<uint64_t>());
  EXPECT_GT(u(r, "tx", "pdus_mig"), 0u);
  EXPECT_EQ(u(r, "commands", "responses"), u(r, "commands", "reads"));
  const auto& pg = r.json["plane_gbps"];
  EXPECT_EQ(pg[1].get<double>(), 0.0);
  for (unsigned k : {0u, 2u, 3u}) EXPECT_GT(pg[k].get<double>(), 200.0) << k;
  for (unsigned x = 0; x < 8; ++x) EXPECT_GT(received(r, x), 100.0) << x;
}

// A failure set after the run's end does not happen, and the summary says so (no failover figures).
TEST(SystemFailover, FailureAfterTheRunIsReportedAsNotHappened) {
  auto r = run(3, 1000, {"xpus=4", "fail_plane=1@100000"});
  expect_clean(r, 100);
  EXPECT_FALSE(r.json["fail_plane"]["happened"].get<bool>());
  EXPECT_EQ(r.json["fail_plane"]["frames_lost"].get<uint64_t>(), 0u);
  EXPECT_NE(r.summary.find("did NOT fail: the run ended at cycle"), std::string::npos) << r.summary;
}

// The same with XPU 0's sue_tx and sue_rx as RTL in lockstep with their models: the RTL sees its
// port go down, runs the failover protocol and agrees with the model every cycle.
TEST(SystemFailover, RtlInLockstepFailsOver) {
  auto r = run(5, 5000, {"xpus=4", "mode=unordered", "load=0.7", "fail_plane=2@2500", "rtl=x0.tx,x0.rx"});
  expect_clean(r, 1000);
  EXPECT_GT(r.json["fail_plane"]["frames_lost"].get<uint64_t>(), 0u);
  EXPECT_GT(r.json["fail_plane"]["fo_req_sent"].get<uint64_t>(), 0u);
  EXPECT_NE(r.summary.find("sue_tx rtl s4 + lockstep model"), std::string::npos);
}

// With LLR on every link and frame errors: the failed plane's links die with what their FIFOs,
// replay buffers and wires hold (the frames toward the NICs leave the NIC buffer counts), the LLR
// partners on it stop (one of them RTL in lockstep), the others keep repairing below SUE.
TEST(SystemFailover, WithLlrOnEveryLink) {
  auto r = run(4, 5000, {"xpus=5", "mode=unordered", "llr=true", "fer=5e-3", "fail_plane=1@2500",
                         "rtl=sw1.p3.llr,sw0.p3.llr"});
  expect_delivered(r, 1000);
  EXPECT_GT(r.json["fail_plane"]["frames_lost"].get<uint64_t>(), 0u);
  EXPECT_GT(r.json["fail_plane"]["fo_req_sent"].get<uint64_t>(), 0u);
  EXPECT_GT(r.json["links"]["replays"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.json["links"]["frames_lost"].get<uint64_t>(), 0u);  // LLR lost nothing to SUE on the live planes
  const auto& rtl = r.json["links"]["rtl"];
  ASSERT_EQ(rtl.size(), 2u);
  for (const auto& e : rtl) EXPECT_FALSE(e["mismatch"].get<bool>()) << e["name"];
  // The partner on the dead plane stopped at the failure (2500 SUE cycles = 1562.5 ns of 1 ns edges);
  // the live one ran to the end.
  const uint64_t dead = rtl[0]["name"] == "sw1.p3.llr" ? rtl[0]["edges"].get<uint64_t>() : rtl[1]["edges"].get<uint64_t>();
  const uint64_t live = rtl[0]["name"] == "sw1.p3.llr" ? rtl[1]["edges"].get<uint64_t>() : rtl[0]["edges"].get<uint64_t>();
  EXPECT_LE(dead, 1564u);
  EXPECT_GT(live, 3000u);
}

// Strict mode: the queues pinned to the dead port wait for their connection's FO-ACK, migrate the
// PDUs the peer never accepted, and move to the next live port; order per {src, dst, VC} holds
// across the failover (the scoreboard checks it), reads are answered in order too.
TEST(SystemFailover, StrictOrderHoldsAcrossFailover) {
  auto r = run(3, 6000, {"xpus=8", "mode=strict", "load=0.8", "read_ratio=0.5", "fail_plane=2@3000",
                         "warmup_cycles=3500"});
  expect_clean(r, 4000);
  EXPECT_EQ(u(r, "scoreboard", "reordered"), 0u);
  EXPECT_GT(r.json["fail_plane"]["fo_req_sent"].get<uint64_t>(), 10u);
  EXPECT_GT(r.json["fail_plane"]["pdus_migrated"].get<uint64_t>(), 0u);
  EXPECT_EQ(u(r, "tx", "pdus_rtx"), 0u);  // migrated, not retransmitted by an RTO
  EXPECT_EQ(u(r, "commands", "responses"), u(r, "commands", "reads"));
  EXPECT_EQ(r.json["plane_gbps"][2].get<double>(), 0.0);
}

// Mesh (figure 2): one cable (port 0 of instance 0 between XPU 1 and its partner) fails; both ends go
// down, the pair's connections on it fail over to the instance's other port, in both modes.
TEST(SystemFailover, MeshCableFails) {
  for (const char* mode : {"mode=unordered", "mode=strict"}) {
    auto r = run(2, 5000, {"topology=mesh", "xpus=6", "instances=5", "sue_config=s2", mode, "load=0.9", "read_ratio=0.5",
                           "fail_link=x1.i0.p0@2500"});
    expect_clean(r, 4000);
    const auto& fl = r.json["fail_link"];
    EXPECT_EQ(fl["xpu"].get<int>(), 1) << mode;
    EXPECT_GT(fl["frames_lost"].get<uint64_t>(), 0u) << mode;
    EXPECT_GE(fl["fo_req_sent"].get<uint64_t>(), 2u) << mode;  // each end fails over its connections on the cable
    EXPECT_EQ(fl["fo_ack_rcvd"].get<uint64_t>(), fl["fo_req_sent"].get<uint64_t>()) << mode;
    EXPECT_GT(fl["pdus_migrated"].get<uint64_t>(), 0u) << mode;
    EXPECT_NE(r.summary.find("Link failure: the cable of port 0 between instance 0 of XPU 1 and of XPU"), std::string::npos);
  }
}

// Two instances of 2 x 400G: plane 3 is port 1 of instance 1; instance 0 keeps both its planes.
TEST(SystemFailover, SecondInstancePlane) {
  auto r = run(7, 5000, {"xpus=6", "instances=2", "sue_config=s2", "port_gbps=400", "mode=unordered", "load=0.7",
                         "fail_plane=3@2000", "warmup_cycles=2500"});
  expect_clean(r, 1000);
  EXPECT_NE(r.summary.find("port 1 of instance 1 of every XPU"), std::string::npos);
  const auto& pg = r.json["plane_gbps"];
  EXPECT_EQ(pg[3].get<double>(), 0.0);
  for (unsigned k : {0u, 1u, 2u}) EXPECT_GT(pg[k].get<double>(), 100.0) << k;
}

// A setting that cannot carry the wire limit is allowed, and the summary names it with its bound: one
// PDU in flight per connection holds a permutation's one strict flow far below its port, and so does a
// byte window of 1,000 bytes (fewer than ack_count 4 full PDUs: every ACK waits ack_delay, which the
// bound counts); the defaults of uniform traffic print no window bound.
TEST(System, SummaryNamesASettingThatBoundsTheRate) {
  auto r = run(1, 4000, {"pattern=permutation", "window=1", "load=1", "read_ratio=0"});
  expect_clean(r, 100);
  const auto at = r.summary.find("bound: setting 'window'=1 keeps 1 PDUs of at most 4096 B per connection");
  ASSERT_NE(at, std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("1 connection(s) per XPU allow", at), std::string::npos);
  for (unsigned x = 0; x < 8; ++x) EXPECT_LT(received(r, x), 60.0) << x;  // the bound holds: 4096 B per round trip
  // the byte window: 1,000 bytes (+ a PDU of at most MaxPack) per connection
  auto b = run(1, 4000, {"pattern=permutation", "window_bytes=1000", "load=1", "read_ratio=0"});
  expect_clean(b, 100);
  const auto bt = b.summary.find("bound: setting 'window_bytes'=1000 keeps fewer than 1000 + 4096 (MaxPack) bytes");
  ASSERT_NE(bt, std::string::npos) << b.summary;
  EXPECT_NE(b.summary.find("allow 12.5 of the"), std::string::npos) << b.summary;  // its ACKs wait ack_delay
  for (unsigned x = 0; x < 8; ++x) EXPECT_LT(received(b, x), 12.5) << x;           // the bound holds
  auto d = run(1, 4000, {"load=1"});
  EXPECT_EQ(d.summary.find("bound: setting 'window'"), std::string::npos) << d.summary;
}

}  // namespace
