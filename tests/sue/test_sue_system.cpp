// SUE system scenarios (label `system`): sue_system with N XPU nodes, every
// sue_tx / sue_rx RTL in lockstep with its model unless a test says otherwise.
// Every scenario must end with every command delivered exactly once, byte for
// byte, at the right XPU (in order per {src, dst, VC} in strict mode), every
// frame on the wire decoding with sue::decode, no lockstep mismatch, and the
// recovery counters that the injected faults call for. docs/sue.md "Testbench".
// Each TEST runs in its own process.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/gtkw_check.hpp"
#include "common/tb_run.hpp"
#include "common/testbench.hpp"

namespace {

tb::RunResult run(uint64_t seed, uint64_t cycles, std::vector<std::string> sets, const std::string& waves = "") {
  return tb_test::run("sue_system", seed, cycles, sets, waves);
}

uint64_t tx(const tb::RunResult& r, const char* name) { return r.json["tx"][name].get<uint64_t>(); }
uint64_t rx(const tb::RunResult& r, const char* name) { return r.json["rx"][name].get<uint64_t>(); }
uint64_t sb(const tb::RunResult& r, const char* what) { return r.json["scoreboard"][what].get<uint64_t>(); }

// Frames lost on links without LLR keep the CBFC credits they took (the receiver never sees them): with an
// 8 KiB buffer per VC and 30 % loss the VCs of port 0 run dry, the run cannot settle, and it names the
// cause, the node, the slots held and the port/VC without credit.
TEST(SueSystem, LostFramesKeepTheirCbfcCreditsAndTheRunSaysSo) {
  const std::vector<std::string> lossy = {"drop_prob=0.3", "cbfc_buffer_kib=8", "drain_cycles=20000", "tx=model",
                                          "rx=model"};
  tb::RunResult r = run(1, 20000, lossy);
  EXPECT_FALSE(r.pass);
  std::string all;
  for (const std::string& f : r.failures) all += f + "\n";
  EXPECT_NE(all.find("did not settle"), std::string::npos) << all;
  EXPECT_NE(all.find("command slots"), std::string::npos) << all;
  EXPECT_NE(all.find("no CBFC credit on port 0 VC"), std::string::npos) << all;
  EXPECT_NE(all.find("frames lost on a link without LLR keep their credits"), std::string::npos) << all;
}

// The same links with LLR (each SystemC run in its own process: one test each). With shared-buffer
// credits a queue holds up to QCap (256) commands, so the backlog the 30 % loss leaves takes longer than
// 20,000 cycles to drain (measured: settled by 100,000).
TEST(SueSystem, LostFramesWithLlrAreReplayedAndTheRunSettles) {
  tb::RunResult l = run(1, 20000, {"drop_prob=0.3", "cbfc_buffer_kib=8", "drain_cycles=100000", "tx=model", "rx=model",
                                   "llr=true"});
  EXPECT_TRUE(l.pass) << (l.failures.empty() ? "" : l.failures.front());
  EXPECT_EQ(sb(l, "lost"), 0u);
  EXPECT_GT(sb(l, "matched"), 100u);
}

void expect_clean(const tb::RunResult& r, uint64_t min_cmds = 500) {
  ASSERT_TRUE(r.pass) << (r.failures.empty() ? "" : r.failures.front()) << "\n" << r.summary;
  EXPECT_FALSE(r.has_mismatch);
  EXPECT_EQ(sb(r, "lost"), 0u);
  EXPECT_EQ(sb(r, "duplicated"), 0u);
  EXPECT_EQ(sb(r, "corrupted"), 0u);
  EXPECT_EQ(sb(r, "reordered"), 0u);
  EXPECT_EQ(sb(r, "unexpected"), 0u);
  EXPECT_GT(sb(r, "matched"), min_cmds);
  EXPECT_EQ(r.json["frames"]["decode_errors"].get<uint64_t>(), 0u);
  EXPECT_TRUE(r.json["drained"].get<bool>());
  EXPECT_EQ(r.json["cbfc_errors"].get<uint64_t>(), 0u);
  // every command a sue_tx accepted left a sue_rx
  EXPECT_EQ(tx(r, "cmds_in"), rx(r, "cmds_out") + sb(r, "discarded"));
}

// Frames dropped inside the switch were received: their ingress buffer is freed and the hop's CBFC credits
// come back, so 8 KiB buffers and 2 % loss settle with SUE's go-back-N alone (no LLR), and the summary counts
// the drops apart from wire losses. (The same 2 % lost on the wire, drop_prob, leaks the credits and fails:
// 487 commands never delivered at seed 1.)
TEST(SueSystem, SwitchDropsFreeTheirCbfcCreditsAndSueRecoversThem) {
  tb::RunResult r = run(1, 20000, {"switch_drop=0.02", "cbfc_buffer_kib=8", "drain_cycles=200000", "tx=model",
                                   "rx=model"});
  expect_clean(r, 100);
  EXPECT_GT(r.json["frames"]["switch_dropped"].get<uint64_t>(), 20u);
  EXPECT_EQ(r.json["frames"]["lost_link"].get<uint64_t>(), 0u);
  EXPECT_GT(tx(r, "pdus_rtx"), 0u);
  EXPECT_EQ(r.json["llr"]["on"].get<bool>(), false);
  EXPECT_NE(r.summary.find("dropped in the switch"), std::string::npos);
}

void expect_no_recovery(const tb::RunResult& r) {
  for (const char* c : {"pdus_rtx", "nack_sent", "nack_rcvd", "gbn", "pdus_mig", "fo_req_sent"}) EXPECT_EQ(tx(r, c), 0u) << c;
  for (const char* c : {"drop_mac", "drop_malformed", "drop_rcrc", "drop_hdr", "drop_psn", "drop_dup", "drop_dead"})
    EXPECT_EQ(rx(r, c), 0u) << c;
}

// SUE, one port, strict: random frame drops and corruption after the FCS check
// (only the R-CRC sees it): NACK, go-back-N and R-CRC drops, nothing lost.
TEST(SueSystem, S1StrictDropsAndRcrc) {
  auto r = run(1, 20000, {"sue_config=s1", "nodes=3", "mode=strict", "drop_prob=0.01", "rcrc_corrupt=0.01"});
  expect_clean(r);
  EXPECT_GT(r.json["frames"]["lost_link"].get<uint64_t>(), 0u);
  EXPECT_GT(r.json["frames"]["rcrc_corrupted"].get<uint64_t>(), 0u);
  EXPECT_GT(rx(r, "drop_rcrc"), 0u);
  EXPECT_GT(rx(r, "drop_psn"), 0u);
  EXPECT_GT(tx(r, "nack_sent"), 0u);
  EXPECT_GT(tx(r, "nack_rcvd"), 0u);
  EXPECT_GT(tx(r, "gbn"), 0u);
  EXPECT_GT(tx(r, "pdus_rtx"), 0u);
  EXPECT_EQ(rx(r, "drop_mac"), 0u);  // no bit errors on the links: every R-CRC drop is the switch's corruption
}

// FCS-detected bit errors: sue_rx drops them (drop_mac) and go-back-N repairs.
TEST(SueSystem, S1BitErrors) {
  auto r = run(2, 20000, {"sue_config=s1", "nodes=2", "ber=2e-6"});
  expect_clean(r);
  EXPECT_GT(r.json["frames"]["fcs_bad"].get<uint64_t>(), 0u);
  EXPECT_GT(rx(r, "drop_mac"), 0u);
  EXPECT_GT(tx(r, "pdus_rtx"), 0u);
  EXPECT_EQ(rx(r, "drop_rcrc"), 0u);
}

// Two ports, strict, no faults: clean, no recovery at all, both ports carry traffic.
TEST(SueSystem, S2Strict) {
  auto r = run(3, 15000, {"sue_config=s2", "nodes=3", "mode=strict", "load=0.6"});
  expect_clean(r);
  expect_no_recovery(r);
  for (auto& p : r.json["ports"]) EXPECT_GT(p["frames"].get<uint64_t>(), 0u) << p.dump();
}

// Four ports, unordered: plane 1 fails under load; failover (FO-REQ, FO-ACK,
// migration) delivers every command exactly once.
TEST(SueSystem, S4UnorderedPortFailure) {
  // (With sue_rx at line rate, a failure at cycle 6000 catches no unacknowledged PDU on plane 1 (43
  // frames lost, nothing to migrate or retransmit); at 7000, 117 PDUs are migrated.)
  auto r = run(4, 15000, {"sue_config=s4", "nodes=3", "mode=unordered", "load=0.6", "fail_port=1@7000"});
  expect_clean(r);
  EXPECT_GT(tx(r, "fo_req_sent"), 0u);
  EXPECT_GT(tx(r, "fo_ack_sent"), 0u);
  EXPECT_GT(tx(r, "fo_ack_rcvd"), 0u);
  EXPECT_GT(r.json["frames"]["fo_req"].get<uint64_t>(), 0u);
  EXPECT_GT(r.json["frames"]["lost_dead"].get<uint64_t>(), 0u);
  EXPECT_GT(tx(r, "pdus_mig"), 0u);
}

// SUE Lite without faults: clean, no RH/R-CRC machinery (SUE-only counters 0).
TEST(SueSystem, LiteNoFaults) {
  auto r = run(5, 15000, {"sue_config=lite", "nodes=3"});
  expect_clean(r);
  expect_no_recovery(r);
  for (const char* c : {"ack_only", "ack_sent", "rto", "fo_ack_rcvd"}) EXPECT_EQ(tx(r, c), 0u) << c;
  for (const char* c : {"pdus_ok", "ack_frames", "fo_frames", "nack_owed"}) EXPECT_EQ(rx(r, c), 0u) << c;
  EXPECT_GT(rx(r, "lite_ok"), 0u);
  EXPECT_EQ(sb(r, "discarded"), 0u);
}

// SUE Lite with FCS-detected bit errors: Lite has no recovery in this testbench
// (no LLR below it): the commands of the frames sue_rx drops are lost and
// accounted (discarded); every other command arrives exactly once, in order.
TEST(SueSystem, LiteFcsErrorsAccounted) {
  auto r = run(6, 15000, {"sue_config=lite", "nodes=2", "ber=2e-6"});
  expect_clean(r);
  EXPECT_GT(rx(r, "drop_mac"), 0u);
  EXPECT_GT(sb(r, "discarded"), 0u);
  EXPECT_EQ(sb(r, "discarded"), r.json["lite_lost_cmds"].get<uint64_t>());
  EXPECT_EQ(tx(r, "pdus_rtx"), 0u);
}

// RTL and model mixed: node 0 runs its sue_tx as RTL (no lockstep) and its
// sue_rx as the C++ model; the other nodes are RTL in lockstep.
TEST(SueSystem, MixedRtlTxModelRx) {
  auto r = run(7, 15000, {"sue_config=s1", "nodes=3", "node0_tx=rtl", "node0_rx=model", "drop_prob=0.005"});
  expect_clean(r);
  EXPECT_NE(r.json["blocks"][0]["tx"].get<std::string>().find("rtl"), std::string::npos);
  EXPECT_EQ(r.json["blocks"][0]["rx"].get<std::string>(), "model");
  EXPECT_NE(r.json["blocks"][1]["tx"].get<std::string>().find("lockstep"), std::string::npos);
}

// The receiving XPUs hold VC 0's credits for a while: sue_rx stops taking beats
// (mac_rx_ready_o falls), CBFC holds the senders; nothing is lost, no recovery.
// The hold (5000 cycles) stays well under the RTO (8192) plus the drain of what queued behind it: with
// the line-rate builder (docs/sue.md "Builders") the senders queue more during a hold, and a 5500-cycle
// hold already gives RTOs here (the slower builder before it had none up to 7000).
// A receiving XPU that withholds its VC 0 credits for 5,000 cycles: sue_rx holds the PDUs (no ACK for
// them meanwhile), nothing is retransmitted, nothing lost.
TEST(SueSystem, XpuBackpressure) {
  auto r = run(10, 15000, {"nodes=3", "hold_vc=0", "hold_from=3000", "hold_cycles=5000", "rx_credits=4", "load=0.8"});
  expect_clean(r);
  expect_no_recovery(r);
  EXPECT_GT(r.json["rx_backpressure"].get<uint64_t>(), 0u);
}

// Held longer than the RTO (8,192 cycles, set: the default is 65,536) less the backlog's drain: the senders' RTOs fire while the PDUs
// wait in sue_rx, the go-back-N copies arrive as duplicates and are dropped and re-ACKed; still exactly
// once, nothing lost. (With the line-rate builder the senders queue more in the hold, so the drain is
// longer: 6,000 cycles already crosses it at this load; the XpuBackpressure test above stays below.)
TEST(SueSystem, XpuBackpressureBeyondTheRtoIsRecoveredExactlyOnce) {
  auto r = run(10, 20000, {"nodes=3", "hold_vc=0", "hold_from=3000", "hold_cycles=9000", "rx_credits=4", "load=0.8",
                     "rto=8192"});
  expect_clean(r);
  EXPECT_GT(r.json["rx_backpressure"].get<uint64_t>(), 0u);
  EXPECT_GT(tx(r, "rto"), 0u);
  EXPECT_GT(tx(r, "pdus_rtx"), 0u);
}

// Frame 40 of every link dropped at low load: each loss is seen as a gap
// (NACK, go-back-N) or, at the tail, by the RTO; nothing lost.
TEST(SueSystem, ChosenDropsNackGoBackN) {
  auto r = run(11, 15000, {"nodes=2", "drop_frame=40", "load=0.2"});
  expect_clean(r);
  EXPECT_EQ(r.json["frames"]["lost_link"].get<uint64_t>(), 4u);  // 2 nodes x (up + down link)
  EXPECT_GT(tx(r, "nack_sent") + tx(r, "rto"), 0u);
  EXPECT_GT(tx(r, "pdus_rtx"), 0u);
}

// Zero load: the contract's pipeline figures (TX 4 cycles command -> first beat,
// RX 5 cycles eof taken -> first command out) measured through the whole system;
// the wave holds every signal of waves/sue_system.gtkw.
TEST(SueSystem, ZeroLoadPipelineAndWaves) {
  const std::string w = "waves-test/sue_system-8.fst";
  std::filesystem::remove(w);
  auto r = run(8, 4000, {"load=0.01", "dlen_max=0"}, w);
  expect_clean(r, 20);
  EXPECT_EQ(r.json["pipeline_cycles"]["tx_min"].get<double>(), 4.0);
  EXPECT_EQ(r.json["pipeline_cycles"]["rx_min"].get<double>(), 5.0);
  expect_layout_matches_dump(std::string(COSIM_SOURCE_DIR) + "/waves/sue_system.gtkw", w);
}

// No peer tables: node n is XPU n, and every instance addresses XPU ids 0..NumXpus-1 directly. With the
// RTL (lockstep) the compiled NumXpus = 8 bounds the nodes: 8 nodes use every id the RTL addresses, 0
// and 7 included; every node receives, nothing is dropped as from an unknown peer (drop_hdr) or refused
// (err_dest would fail the run), the scoreboard is clean.
TEST(SueSystem, EightNodesAreXpuIdsZeroToSevenOnTheRtl) {
  auto r = run(12, 4000, {"nodes=8"});
  expect_clean(r, 2000);
  expect_no_recovery(r);
  EXPECT_EQ(r.json["num_xpus"].get<unsigned>(), 8u);
  EXPECT_NE(r.summary.find("node 0 (XPU 0): sue_tx rtl s1 + lockstep model"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("node 7 (XPU 7): sue_tx rtl s1 + lockstep model"), std::string::npos) << r.summary;
  ASSERT_EQ(r.json["delivered_per_node"].size(), 8u);
  for (unsigned n = 0; n < 8; ++n) EXPECT_GT(r.json["delivered_per_node"][n].get<uint64_t>(), 100u) << "node " << n;
}

// C++ models alone take NumXpus = nodes, beyond the compiled 8; with an RTL block more nodes than the
// compiled NumXpus are refused, one line naming the setting, the variant and the allowed range.
TEST(SueSystem, ModelsAloneTakeNumXpusNodes) {
  auto r = run(13, 4000, {"nodes=12", "tx=model", "rx=model"});
  expect_clean(r, 2000);
  expect_no_recovery(r);
  EXPECT_EQ(r.json["num_xpus"].get<unsigned>(), 12u);
  ASSERT_EQ(r.json["delivered_per_node"].size(), 12u);
  for (unsigned n = 0; n < 12; ++n) EXPECT_GT(r.json["delivered_per_node"][n].get<uint64_t>(), 100u) << "node " << n;
  for (const auto& sets : std::vector<std::vector<std::string>>{{"nodes=9"}, {"nodes=9", "tx=model", "node0_rx=rtl"}}) {
    try {
      run(1, 1000, sets);
      ADD_FAILURE() << "no error for " << sets.back();
    } catch (const std::exception& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("setting 'nodes'=9 with RTL blocks: sue_config=s1 addresses NumXpus=8 XPU ids (allowed: nodes 2..8"),
                std::string::npos) << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  }
}

}  // namespace

// SUE Lite's reliability comes from LLR only: with llr=true, bit errors and drops on
// the wire are replayed below SUE, every command arrives exactly once, nothing discarded.
TEST(SueSystem, LiteOverLlrNoLoss) {
  auto r = run(3, 20000, {"sue_config=lite", "llr=true", "ber=2e-6", "drop_prob=0.01"});
  expect_clean(r);
  EXPECT_EQ(sb(r, "discarded"), 0u);
  EXPECT_EQ(r.json["lite_lost_cmds"].get<uint64_t>(), 0u);
  EXPECT_GT(r.json["llr"]["replays"].get<uint64_t>(), 0u);
  EXPECT_GT(r.json["llr"]["frames_replayed"].get<uint64_t>(), 0u);
  EXPECT_GT(r.json["llr"]["bad_frames"].get<uint64_t>(), 0u);
  EXPECT_GT(r.json["llr"]["dropped_frames"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.json["llr"]["flushes"].get<uint64_t>(), 0u);
  EXPECT_EQ(rx(r, "drop_mac"), 0u);  // no FCS-bad frame reaches sue_rx
}

// SUE over LLR with wire bit errors (same seed and rate as S1BitErrors, which without
// LLR needs 100+ retransmitted PDUs): LLR repairs every FCS error, SUE never retransmits.
TEST(SueSystem, S1OverLlrNoSueRetransmits) {
  auto r = run(2, 20000, {"sue_config=s1", "nodes=2", "ber=2e-6", "llr=true"});
  expect_clean(r);
  expect_no_recovery(r);
  EXPECT_EQ(tx(r, "rto"), 0u);
  EXPECT_GT(r.json["llr"]["bad_frames"].get<uint64_t>(), 0u);
  EXPECT_GT(r.json["llr"]["replays"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.json["llr"]["flushes"].get<uint64_t>(), 0u);
}

// CBFC buffers of 8 KiB per VC (less than two largest frames) at full load:
// sue_tx may start a frame before the MAC has taken (and the gate charged) the
// previous one of the same VC, so the gate must keep room for both, or the
// sender overdraws its credits (the gate's underflow flag, then a stall). RTL
// in lockstep. Seed 3 also catches a gate that only counts the frame in
// progress and not one whose first beat sue_tx presents but the MAC has not
// taken (one SystemC run per process: one seed).
TEST(SueSystem, TinyCbfcBufferNeverOverdrawn) {
  auto r = run(3, 20000, {"nodes=5", "vcs=2", "load=1.0", "size_dist=bimodal", "cbfc_buffer_kib=8"});
  expect_clean(r);
  EXPECT_GT(r.json["cbfc_credit_stall"].get<uint64_t>(), 10000u) << "the buffer is not tight: the test proves nothing";
}
