// Unit tests of the cycle-exact sue_tx model (models/sue/sue_tx_model.*), per
// docs/sue.md "Transport". Directed scenarios with values derived by hand from
// the document, plus the constrained-random environment of sue_tx_harness.hpp
// with its independent frame checks, model only. Edge n is the n-th call of
// tick() after the reset edge; "after edge n" means outputs() then.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "sue/sue_tx_harness.hpp"
#include "sue/sue_tx_linerate.hpp"

namespace {

using Bytes = std::vector<uint8_t>;
using sue::TxCnt;
using sue::TxIn;
using sue::TxModel;
using sue::TxOut;
using sue::TxParams;

// ------------------------------------------------------------------ directed bench
// One model; every call of edge() is one rising edge. Frames are collected as
// the MAC would take them (valid && ready at the edge) and decoded.
struct Frm {
  unsigned port = 0;
  uint64_t eof_edge = 0;  // the edge that transferred the eof beat
  Bytes raw;              // network header + SUE PDU (no pad, no FCS)
  sue::Frame f;
};

struct Bench {
  TxParams p;
  TxModel m;
  TxIn in;  // inputs held between edges (the XPU fields are cleared after each edge)
  uint64_t n = 0;  // edges since the reset
  std::vector<Bytes> cur;
  std::vector<Frm> frames;
  explicit Bench(TxParams pp) : p(pp), m(pp) {
    in.cfg.own_xpuid = 1023;  // above every addressable id: peer i is the XPU id i for every i < NumXpus
    in.cfg.rto = 100000;
    in.cfg.ack_delay = 1000;
    in.cfg.fo_retry = 1000;
    in.port_up = (1u << p.num_ports) - 1;
    in.mac_tx_ready = in.port_up;
    in.credit_ok = (1u << (4 * p.num_ports)) - 1;
    cur.assign(p.num_ports, {});
  }
  void reset() {
    TxIn r = in;
    r.rst_n = false;
    m.tick(r);
    n = 0;
    frames.clear();
  }
  const TxOut& o() const { return m.outputs(); }
  void edge() {
    const TxOut& out = m.outputs();
    for (unsigned q = 0; q < p.num_ports; ++q) {
      if (!((out.mac_tx_valid >> q) & 1u) || !((in.mac_tx_ready >> q) & 1u)) continue;
      if ((out.mac_tx_sof >> q) & 1u) cur[q].clear();
      cur[q].insert(cur[q].end(), out.mac_tx_data[q].begin(), out.mac_tx_data[q].begin() + out.mac_tx_nbytes[q]);
      if ((out.mac_tx_eof >> q) & 1u) {
        Frm f;
        f.port = q, f.eof_edge = n + 1, f.raw = cur[q];
        Bytes w = cur[q];
        if (w.size() < 60) w.resize(60, 0);
        const uint32_t c = sue::fcs32(w.data(), w.size());
        for (int k = 0; k < 4; ++k) w.push_back(static_cast<uint8_t>(c >> (8 * k)));
        sue::DecodeOptions opt;
        opt.profile = p.lite() ? sue::Profile::SueLite : sue::Profile::Sue;
        opt.encap = p.lite() ? sue::Encap::AfhGen2_6 : sue::Encap::AfhGen2_12;
        auto d = sue::decode(w, opt);
        EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().message());
        if (d.ok()) f.f = d.value().frame;
        frames.push_back(f);
      }
    }
    TxIn x = in;
    x.rst_n = true;
    m.tick(x);
    ++n;
    EXPECT_EQ(m.assertion(), "");
    in.tx_valid = 0, in.tx_err = false;
    for (auto& f : in.fb) f = sue::Feedback{};
  }
  void run(uint64_t k) {
    for (uint64_t i = 0; i < k; ++i) edge();
  }
  /// One command (all its beats, one edge each). Control byte 0 = op, bytes 3.. = tag.
  void cmd(unsigned peer, unsigned vc, unsigned dlen, uint8_t tag = 0, bool err = false) {
    const unsigned DB = p.db(), nb = dlen ? (dlen + DB - 1) / DB : 1;
    for (unsigned k = 0; k < nb; ++k) {
      in.tx_valid = dlen ? 2 : 1;
      in.tx_cycle = k;
      in.tx_vc = vc;
      in.tx_xpuid = peer;
      in.tx_control = {};
      in.tx_control[0] = 0x40;
      in.tx_control[1] = static_cast<uint8_t>(dlen >> 4);
      in.tx_control[2] = static_cast<uint8_t>((dlen & 0xf) << 4);
      in.tx_control[3] = tag;
      for (unsigned j = 0; j < 64; ++j) in.tx_data[j] = static_cast<uint8_t>(k * DB + j);
      in.tx_err = err && k + 1 == nb;
      edge();
    }
  }
  /// n commands to peer 0, VC 0 (tags tag0, tag0 + 1, ...), then `edges` edges; the frames seen.
  size_t send_run(unsigned n, unsigned dlen, uint8_t tag0, uint64_t edges) {
    for (unsigned k = 0; k < n; ++k) cmd(0, 0, dlen, static_cast<uint8_t>(tag0 + k));
    run(edges);
    return frames.size();
  }
  void fb(unsigned port, sue::Feedback f) {
    f.valid = true;
    in.fb[port] = f;
  }
  static sue::Feedback ack(unsigned peer, unsigned vc, uint32_t a) {
    sue::Feedback f;
    f.peer = peer, f.vc = vc, f.rop = 1, f.rapsn = a;
    return f;
  }
  static sue::Feedback nack(unsigned peer, unsigned vc, uint32_t e) {
    sue::Feedback f;
    f.peer = peer, f.vc = vc, f.rop = 2, f.rapsn = e;
    return f;
  }
  unsigned c(unsigned port, unsigned peer, unsigned vc) const { return (port * p.num_xpus + peer) * 4 + vc; }
  uint64_t cnt(unsigned k) const { return o().cnt[k]; }
};


// ------------------------------------------------------------------ random environment, model only
suetx::HarnessStats run_model(TxParams p, suetx::HarnessCfg c) {
  suetx::ModelDut dut(p);
  suetx::Harness<suetx::ModelDut> h(p, c, dut);
  h.after_edge = [&]() { return dut.model().assertion().empty(); };
  const std::string f = h.run();
  EXPECT_EQ(f, "");
  EXPECT_EQ(dut.model().assertion(), "");
  const auto& s = h.stats();
  std::printf("cycles %llu frames %llu new %llu rtx %llu mig %llu ack_only %llu fo_req %llu fo_ack %llu delivered %llu "
              "resets %llu deaths %llu\n",
              (unsigned long long)s.cycles, (unsigned long long)s.frames, (unsigned long long)s.new_pdus,
              (unsigned long long)s.rtx_pdus, (unsigned long long)s.mig_pdus, (unsigned long long)s.ack_only,
              (unsigned long long)s.fo_req, (unsigned long long)s.fo_ack, (unsigned long long)s.delivered,
              (unsigned long long)s.resets, (unsigned long long)s.deaths);
  return s;
}

TxParams params(unsigned profile, unsigned ports, unsigned data_w = 256) {
  TxParams p;
  p.profile = profile;
  p.num_ports = ports;
  p.data_w = data_w;
  p.max_pack = profile ? 1024 : 4096;
  return p;
}

TEST(SueTxRandom, OnePort) {
  suetx::HarnessCfg c;
  c.seed = 1;
  c.cycles = 40000;
  c.p_reset = 0.00005;
  TxParams p = params(0, 1);
  p.window = 8;  // the figures of the old defaults (Window 8, QDepth 32): window-full stalls and go-back-N
  p.qdepth = 32;
  auto s = run_model(p, c);
  EXPECT_GT(s.rtx_pdus, 10u);
}

TEST(SueTxRandom, FourPortsFailover) {
  suetx::HarnessCfg c;
  c.seed = 2;
  c.cycles = 40000;
  c.p_death = 0.0002;
  c.p_reset = 0.00003;
  auto s = run_model(params(0, 4, 512), c);
  EXPECT_GT(s.deaths, 0u);
  EXPECT_GT(s.mig_pdus, 0u);
}

// The random harness at DataW 1024 (DB 128: command chunks of up to 148 bytes, the first chunk 170) on
// four ports with failover, and on one port with MaxData 2048 (16 data beats of 128 bytes).
TEST(SueTxRandom, DataW1024) {
  suetx::HarnessCfg c;
  c.seed = 4;
  c.cycles = 40000;
  c.p_death = 0.0002;
  c.p_reset = 0.00003;
  auto s = run_model(params(0, 4, 1024), c);
  EXPECT_GT(s.deaths, 0u);
  EXPECT_GT(s.mig_pdus, 0u);
  EXPECT_GT(s.delivered, 1000u);
  suetx::HarnessCfg c1;
  c1.seed = 5;
  c1.cycles = 30000;
  // 16 queues of up to QCap commands of up to 2 KB on one port: at QDepth 64 the 20,000-cycle drain was too
  // short to send them all (measured: done by 40,000); at QCap 256 (shared-buffer credits) the backlog is
  // up to four times that. It is not a stall.
  c1.drain = 160000;
  TxParams p = params(0, 1, 1024);
  p.max_data = 2048;
  p.num_xpus = 4;  // 16 queues (at 8 XPUs, 32: twice the backlog for the drain)
  auto s1 = run_model(p, c1);
  EXPECT_GT(s1.delivered, 300u);
}

TEST(SueTxRandom, Lite) {
  suetx::HarnessCfg c;
  c.seed = 3;
  c.cycles = 40000;
  run_model(params(1, 1), c);
}


TxParams small_pack(unsigned max_data = 16) {  // one dlen <= MaxData command per PDU
  TxParams p;
  p.max_data = max_data;
  p.max_pack = 20 + max_data;
  return p;
}

// ------------------------------------------------------------------ parameters
TEST(SueTxModel, ParamsValidated) {
  TxParams p;
  EXPECT_EQ(p.validate(), "");
  p.num_ports = 3;
  EXPECT_NE(p.validate().find("NumPorts=3"), std::string::npos);
  p = TxParams{};
  p.max_pack = 4097;
  EXPECT_NE(p.validate().find("MaxPack=4097"), std::string::npos);
  p = TxParams{};
  p.profile = 1;  // Lite with the SUE default MaxPack
  EXPECT_NE(p.validate().find("MaxPack=4096"), std::string::npos);
  p = TxParams{};
  p.window = 6;
  EXPECT_NE(p.validate().find("Window=6"), std::string::npos);
  p = TxParams{};
  p.max_data = 300;  // > MaxPack - 20 is fine, > 16*DB (512) not: 300 is allowed
  EXPECT_EQ(p.validate(), "");
  p.data_w = 128;  // 16*DB = 256 < 300
  EXPECT_NE(p.validate().find("MaxData=300"), std::string::npos);
  EXPECT_THROW(TxModel{p}, std::invalid_argument);
  p = TxParams{};
  p.data_w = 1024;  // DB 128: MaxData up to min(16*128, MaxPack-20) = 2048
  p.max_data = 2048;
  EXPECT_EQ(p.validate(), "");
  EXPECT_EQ(p.acc_bytes(), 64u + 20u + 128u);
  p.max_data = 2049;
  EXPECT_NE(p.validate().find("MaxData=2049"), std::string::npos);
  p = TxParams{};
  p.data_w = 2048;
  EXPECT_NE(p.validate().find("DataW=2048"), std::string::npos);
  EXPECT_THROW(TxModel{p}, std::invalid_argument);
  // Pool: 0 = default NQ*QDepth + 3072 rounded up to a power of 2; else a power of 2 >= NQ*QDepth +
  // min(QDepth, MaxPack/20).
  p = TxParams{};
  EXPECT_EQ(p.qdepth, 64u);
  EXPECT_EQ(p.window, 64u);
  EXPECT_EQ(p.num_xpus, 8u);
  EXPECT_EQ(p.pool_slots(), 8192u);  // 2048 + 3072 -> 8192
  EXPECT_EQ(p.held_max(), 6144u);
  EXPECT_EQ(p.pool_min(), 32u * 64u + 64u);
  p.num_xpus = 2;  // 512 + 3072 -> 4096: few XPUs keep the in-flight allowance
  EXPECT_EQ(p.pool_slots(), 4096u);
  p.num_xpus = 16;  // 4096 + 3072 -> 8192
  EXPECT_EQ(p.pool_slots(), 8192u);
  p.num_xpus = 1024;  // 262144 + 3072 -> 524288: the credited commands of 4,096 queues dominate
  EXPECT_EQ(p.pool_slots(), 524288u);
  p = TxParams{};
  p.pool = 1000;
  EXPECT_NE(p.validate().find("Pool=1000"), std::string::npos);
  p.pool = 2048;  // < 2112
  EXPECT_NE(p.validate().find("Pool=2048"), std::string::npos);
  p.pool = 4096;
  EXPECT_EQ(p.validate(), "");
  p.num_xpus = 1;
  EXPECT_NE(p.validate().find("NumXpus=1 "), std::string::npos);
  p.num_xpus = 1025;
  EXPECT_NE(p.validate().find("NumXpus=1025"), std::string::npos);
}

// ------------------------------------------------------------------ the worked example (docs/sue.md)
TEST(SueTxModel, WorkedExampleCycleAndByteExact) {
  Bench b(TxParams{});
  b.in.credit_ok = 0;
  b.in.cfg.own_xpuid = 1;  // own XPU 1, destination XPU 2: queue q8 = 2*4 + VC 0, connection 8
  b.reset();
  // table edge e = the (e+1)-th edge after the reset
  b.in.tx_valid = 1, b.in.tx_cycle = 0, b.in.tx_vc = 0, b.in.tx_xpuid = 2;
  b.in.tx_control = {};
  b.in.tx_control[0] = 0x01, b.in.tx_control[17] = 0xaa;
  b.edge();  // edge 0: A -> slot 0
  EXPECT_EQ(b.cnt(TxCnt::cmds_in), 1u);
  EXPECT_EQ(b.m.q_unsent(8), 1u);
  b.in.tx_valid = 2, b.in.tx_xpuid = 2;
  b.in.tx_control = {};
  b.in.tx_control[0] = 0x02, b.in.tx_control[1] = 0x02, b.in.tx_control[17] = 0xbb;
  for (unsigned j = 0; j < 32; ++j) b.in.tx_data[j] = static_cast<uint8_t>(j);
  b.edge();  // edge 1: B -> slot 1, no credit: no job
  EXPECT_EQ(b.cnt(TxCnt::cmds_in), 2u);
  EXPECT_EQ(b.m.q_unsent(8), 2u);
  EXPECT_EQ(b.m.conn_npsn(8), 0u);
  b.in.credit_ok = 0xf;
  b.edge();  // edge 2: NEW, n_cmd 2, P 72, PSN 0
  EXPECT_EQ(b.m.conn_npsn(8), 1u);
  EXPECT_EQ(b.m.q_unsent(8), 0u);
  EXPECT_EQ(b.o().out_bytes[0], 72u);
  EXPECT_EQ(b.cnt(TxCnt::pdus_new), 1u);
  EXPECT_EQ(b.cnt(TxCnt::payload_bytes), 68u);
  b.edge();  // edge 3: the first chunk, header + A's command chunk (42 bytes)
  EXPECT_EQ(b.o().mac_tx_valid, 0u);
  b.edge();  // edge 4: beat 0; B's command chunk (20 + 32 bytes)
  EXPECT_EQ(b.o().mac_tx_valid, 1u);
  EXPECT_EQ(b.o().mac_tx_sof, 1u);
  EXPECT_EQ(b.o().mac_tx_eof, 0u);
  EXPECT_EQ(b.o().mac_tx_nbytes[0], 32u);
  const Bytes head = {0x02, 0x08, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x88, 0xb6, 0, 0x01, 0, 0, 0, 0, 0, 0,
                      0x00, 0x12, 0x01};
  for (size_t k = 0; k < head.size(); ++k) EXPECT_EQ(b.o().mac_tx_data[0][k], head[k]) << "byte " << k;
  b.edge();  // edge 5: beat 0 transferred, beat 1; the trailer
  EXPECT_EQ(b.o().mac_tx_valid, 1u);
  EXPECT_EQ(b.o().mac_tx_sof, 0u);
  EXPECT_EQ(b.cnt(TxCnt::bytes_out), 32u);
  b.edge();  // edge 6: beat 2, not eof
  EXPECT_EQ(b.o().mac_tx_valid, 1u);
  EXPECT_EQ(b.o().mac_tx_eof, 0u);
  EXPECT_EQ(b.o().mac_tx_nbytes[0], 32u);
  b.edge();  // edge 7: beat 3, 2 bytes, eof
  EXPECT_EQ(b.o().mac_tx_valid, 1u);
  EXPECT_EQ(b.o().mac_tx_eof, 1u);
  EXPECT_EQ(b.o().mac_tx_nbytes[0], 2u);
  EXPECT_EQ(b.cnt(TxCnt::frames_out), 0u);
  b.edge();  // edge 8
  EXPECT_EQ(b.o().mac_tx_valid, 0u);
  EXPECT_EQ(b.o().mac_tx_eof, 1u);  // data fields hold while valid is low
  EXPECT_EQ(b.o().mac_tx_nbytes[0], 2u);
  EXPECT_EQ(b.cnt(TxCnt::frames_out), 1u);
  EXPECT_EQ(b.cnt(TxCnt::bytes_out), 98u);
  ASSERT_EQ(b.frames.size(), 1u);
  const Frm& f = b.frames[0];
  EXPECT_EQ(f.eof_edge, 9u);  // the 9th edge after the reset is table edge 8
  EXPECT_EQ(f.raw.size(), 98u);
  EXPECT_EQ(f.f.rh.npsn, 0u);
  EXPECT_EQ(f.f.rh.op, 0u);
  ASSERT_EQ(f.f.cmds.size(), 2u);
  EXPECT_EQ(f.f.cmds[0].size(), 18u);
  EXPECT_EQ(f.f.cmds[1].size(), 50u);
  EXPECT_EQ(f.f.afh2.dst_xpu, 2u);
  EXPECT_EQ(f.f.afh2.src_xpu, 1u);
  EXPECT_EQ(f.f.afh2.tc, 0u);
  EXPECT_EQ(f.f.afh2.entropy, 8u);
  for (unsigned j = 0; j < 32; ++j) EXPECT_EQ(f.f.cmds[1][18 + j], j);
  // the R-CRC over bytes 14..93, MSB first
  const uint32_t rc = sue::rcrc32(f.raw.data() + 14, 80);
  EXPECT_EQ(f.raw[94], rc >> 24);
  EXPECT_EQ(f.raw[97], rc & 0xff);
  EXPECT_EQ(b.o().pool_used, 2u);  // both commands are held until acknowledged
  // the debug read ports show one queue and one connection, after the edge; 0 at an index >= NQ / NC
  b.in.credit_ok = 0;
  b.in.tx_valid = 0;
  b.in.dbg_q = 8, b.in.dbg_conn = 8;
  b.edge();
  EXPECT_EQ(b.o().dbg_q_count, 2u);
  EXPECT_EQ(b.o().dbg_q_unsent, 0u);
  EXPECT_EQ(b.o().dbg_npsn, 1u);
  EXPECT_EQ(b.o().dbg_ack_psn, 0u);
  EXPECT_EQ(b.o().dbg_inflight, 1u);
  EXPECT_EQ(b.o().dbg_state, uint32_t{sue::kConnLive});
  b.in.dbg_q = 9, b.in.dbg_conn = 9 + 32;  // connection 9 of port 0 (dbg_conn_i has clog2(NC) = 5 bits)
  b.edge();
  EXPECT_EQ(b.o().dbg_q_count, 0u);
  EXPECT_EQ(b.o().dbg_npsn, 0u);
  EXPECT_EQ(b.o().pool_used, 2u);
  b.in.dbg_q = b.in.dbg_conn = 0;
}

TEST(SueTxModel, ZeroLoadLatencyFourCycles) {
  Bench b(TxParams{});
  b.reset();
  b.cmd(0, 0, 0);  // edge 0: A complete
  for (int e = 1; e <= 2; ++e) {  // edge 1: the job; edge 2: its first chunk
    b.edge();
    EXPECT_EQ(b.o().mac_tx_valid, 0u) << "edge " << e;
  }
  b.edge();  // edge 3: first beat loaded, valid in cycle 4
  EXPECT_EQ(b.o().mac_tx_valid, 1u);
  EXPECT_EQ(b.o().mac_tx_sof, 1u);
}

// ------------------------------------------------------------------ ingress
TEST(SueTxModel, IngressRulesCountersAndCredits) {
  Bench b(TxParams{});
  b.in.credit_ok = 0;  // nothing leaves: the queues only fill
  b.reset();
  // bad first cycles: tx_cycle != 0, valid 1 with dlen, valid 2 with dlen 0, dlen > MaxData
  b.in.tx_valid = 1, b.in.tx_cycle = 1, b.in.tx_xpuid = 0;
  b.edge();
  b.in.tx_valid = 1, b.in.tx_cycle = 0, b.in.tx_control = {}, b.in.tx_control[2] = 0x50;  // dlen 5
  b.edge();
  b.in.tx_valid = 2, b.in.tx_control = {};
  b.edge();
  b.in.tx_valid = 2, b.in.tx_control = {}, b.in.tx_control[1] = 0x10, b.in.tx_control[2] = 0x10;  // dlen 257
  b.edge();
  EXPECT_EQ(b.cnt(TxCnt::cmd_bad), 4u);
  EXPECT_TRUE(b.o().err_cmd);
  EXPECT_FALSE(b.o().err_dest);
  EXPECT_EQ(b.m.q_count(0), 0u);
  // unknown destination, 4 beats: one cmd_bad, its other beats skipped
  const uint32_t bad_xpu = 999;  // >= NumXpus (8)
  for (unsigned k = 0; k < 4; ++k) {
    b.in.tx_valid = 2, b.in.tx_cycle = k, b.in.tx_xpuid = bad_xpu, b.in.tx_control = {};
    b.in.tx_control[1] = 0x06, b.in.tx_control[2] = 0x40;  // dlen 100
    b.edge();
    for (auto x : b.o().tx_credit) EXPECT_EQ(x, 0u);
  }
  EXPECT_EQ(b.cnt(TxCnt::cmd_bad), 5u);
  EXPECT_TRUE(b.o().err_dest);
  // tx_err on the last beat of a 3-beat command: dropped, one credit back
  b.cmd(1, 2, 70, 0, true);
  EXPECT_EQ(b.cnt(TxCnt::cmd_err), 1u);
  EXPECT_EQ(b.o().tx_credit[1 * 4 + 2], 1u);
  EXPECT_EQ(b.m.q_count(1 * 4 + 2), 0u);
  // aborted: beat 0 of 3, then an idle cycle
  b.cmd(1, 2, 0);  // a good one first
  EXPECT_EQ(b.m.q_count(6), 1u);
  b.in.tx_valid = 2, b.in.tx_cycle = 0, b.in.tx_vc = 2, b.in.tx_xpuid = 1, b.in.tx_control = {};
  b.in.tx_control[1] = 0x04, b.in.tx_control[2] = 0x60;  // dlen 70: 3 beats
  b.edge();
  b.edge();  // idle: aborts
  EXPECT_EQ(b.cnt(TxCnt::cmd_bad), 6u);
  EXPECT_EQ(b.o().tx_credit[6], 1u);
  EXPECT_EQ(b.m.q_count(6), 1u);
  // stray cycle
  b.in.tx_valid = 3;
  b.edge();
  EXPECT_EQ(b.cnt(TxCnt::stray_cycles), 1u);
  // overflow: QCap (256) commands fit (the first 192 credited back at once: shared-buffer credits, then
  // QDepth deferred), the next one is dropped without a credit
  const unsigned Q = TxParams{}.q_cap();
  ASSERT_EQ(Q, 256u);
  for (unsigned k = 0; k + 1 < Q; ++k) b.cmd(1, 2, 0);
  EXPECT_EQ(b.m.q_count(6), Q);
  EXPECT_FALSE(b.o().err_overflow);
  b.cmd(1, 2, 0);
  EXPECT_EQ(b.cnt(TxCnt::cmd_overflow), 1u);
  EXPECT_TRUE(b.o().err_overflow);
  EXPECT_EQ(b.o().tx_credit[6], 0u);
  EXPECT_EQ(b.m.q_count(6), Q);
  EXPECT_EQ(b.cnt(TxCnt::cmds_in), Q);
  EXPECT_EQ(b.m.early_credits(), Q - TxParams{}.qdepth);
}

TEST(SueTxModel, CreditsAtFormationSlotsAtAck) {
  Bench b(small_pack());
  b.reset();
  unsigned credits = 0;
  for (unsigned k = 0; k < 3; ++k) {
    b.cmd(0, 0, 0, static_cast<uint8_t>(k));
    credits += b.o().tx_credit[0];
  }
  for (int e = 0; e < 40; ++e) {
    b.edge();
    EXPECT_LE(b.o().tx_credit[0], 1u);
    credits += b.o().tx_credit[0];
  }
  ASSERT_EQ(b.frames.size(), 3u);
  EXPECT_EQ(credits, 3u);               // back once formed into PDUs, not at the ACK
  EXPECT_EQ(b.m.q_count(0), 3u);      // the store holds them until acknowledged
  EXPECT_EQ(b.m.q_unsent(0), 0u);
  b.fb(0, Bench::ack(0, 0, 2));         // ACK(2): PSNs 0..2
  b.edge();                              // ack_psn = 3
  EXPECT_EQ(b.m.conn_ack_psn(0), 3u);
  for (int e = 0; e < 8; ++e) {
    b.edge();
    EXPECT_EQ(b.o().tx_credit[0], 0u);  // no second credit at the slot free
  }
  EXPECT_EQ(b.m.q_count(0), 0u);
  EXPECT_EQ(b.m.conn_inflight(0), 0u);
  EXPECT_EQ(b.o().out_bytes[0], 0u);
}

// The XPU spends every credit it holds on queue 4 {peer 1, VC 0} (0-byte commands) for `edges` steps and
// takes back every credit returned; the credits it holds at the end (same_edge: those back at the
// command's own edge).
unsigned spend_credits(Bench& b, unsigned credits, int edges, unsigned* same_edge = nullptr) {
  unsigned tag = 0;
  for (int e = 0; e < edges; ++e) {
    if (credits) {
      --credits;
      b.cmd(1, 0, 0, static_cast<uint8_t>(++tag));
      if (same_edge) *same_edge += b.o().tx_credit[4];
    } else {
      b.edge();
    }
    credits += b.o().tx_credit[4];
  }
  return credits;
}
// Credits of queue 4 returned over `edges` edges.
unsigned collect_credits(Bench& b, int edges) {
  unsigned n = 0;
  for (int e = 0; e < edges; ++e) {
    b.edge();
    n += b.o().tx_credit[4];
  }
  return n;
}

// Shared-buffer credits (docs/sue.md "Shared-buffer credits"): with the port's gate closed nothing forms,
// and an XPU that spends every credit it gets fills one queue far beyond its QDepth credits. Each credit
// comes back at the edge the command joins its queue while the ring has room for all QDepth the XPU may
// then send (QCap - QDepth = 192 early), the last QDepth are deferred; the XPU never overflows. Once the
// gate opens the PDUs form, the deferred credits come back with them, and every credit returns.
TEST(SueTxModel, SharedBufferCreditsComeBackAtTheIngress) {
  TxParams p;
  p.num_xpus = 2;
  ASSERT_EQ(p.q_cap(), 4 * p.qdepth);
  Bench b(p);
  b.in.credit_ok = 0;  // every gate closed: no PDU forms
  b.reset();
  unsigned same_edge = 0;
  unsigned credits = spend_credits(b, p.qdepth, 600, &same_edge);
  EXPECT_EQ(b.cnt(TxCnt::cmd_overflow), 0u);
  EXPECT_EQ(b.cnt(TxCnt::cmds_in), p.q_cap());         // 256 queued, 4 x QDepth
  EXPECT_EQ(b.m.q_unsent(4), p.q_cap());
  EXPECT_EQ(b.m.early_credits(), p.q_cap() - p.qdepth);  // 192 back at the ingress
  EXPECT_EQ(same_edge, p.q_cap() - p.qdepth);
  EXPECT_EQ(b.m.credits_deferred(), p.qdepth);           // the last 64 wait for their PDUs
  EXPECT_EQ(credits, 0u);
  EXPECT_EQ(b.cnt(TxCnt::pdus_new), 0u);
  // The gate opens: everything forms (PDUs of up to 204 commands of 20 B), every credit comes back.
  b.in.credit_ok = 0xf;
  credits += collect_credits(b, 400);
  EXPECT_EQ(b.cnt(TxCnt::cmds_sent), p.q_cap());
  EXPECT_EQ(b.m.q_unsent(4), 0u);
  EXPECT_EQ(b.m.credits_deferred(), 0u);
  EXPECT_EQ(credits, p.qdepth);
  EXPECT_EQ(b.frames.size(), 2u);                        // 204 + 52 commands: MaxPack / 20 per PDU
  EXPECT_EQ(b.m.assertion(), "");
}

// QCap == QDepth is the old contract: a queue holds at most QDepth unsent commands and every credit
// comes back only as its command forms into a PDU.
TEST(SueTxModel, QCapEqualToQDepthDefersEveryCredit) {
  TxParams p;
  p.num_xpus = 2;
  p.qcap = p.qdepth;
  Bench b(p);
  b.in.credit_ok = 0;
  b.reset();
  unsigned credits = spend_credits(b, p.qdepth, 300);
  EXPECT_EQ(b.cnt(TxCnt::cmds_in), p.qdepth);
  EXPECT_EQ(b.m.early_credits(), 0u);
  EXPECT_EQ(b.m.credits_deferred(), p.qdepth);
  EXPECT_EQ(credits, 0u);
  b.in.credit_ok = 0xf;
  credits += collect_credits(b, 200);
  EXPECT_EQ(credits, p.qdepth);
  EXPECT_EQ(b.m.credits_deferred(), 0u);
  EXPECT_EQ(b.m.assertion(), "");
}

// The pool bounds the early credits: with a pool of exactly NQ*QDepth + 64 slots (QCap 1,024), one
// queue gets only as many credits back at the ingress as there are slots beyond the ones every XPU
// credit needs (the slack), then defers; the XPU never overflows and the pool never overdraws.
TEST(SueTxModel, SharedBufferCreditsStopAtThePoolSlack) {
  TxParams p;
  p.num_xpus = 2;   // NQ 8
  p.qdepth = 16;    // NQ*QDepth 128
  p.qcap = 1024;
  p.pool = 256;     // slack 128 at reset
  Bench b(p);
  b.in.credit_ok = 0;
  b.reset();
  spend_credits(b, p.qdepth, 600);
  EXPECT_EQ(b.cnt(TxCnt::cmd_overflow), 0u);
  EXPECT_EQ(b.m.early_credits(), 128u);       // Pool - NQ*QDepth
  EXPECT_EQ(b.cnt(TxCnt::cmds_in), 128u + 16u);
  EXPECT_EQ(b.m.credits_deferred(), 16u);
  EXPECT_EQ(b.o().pool_used, 144u);
  EXPECT_EQ(b.m.assertion(), "");
}

// The pool (Pool command slots shared by all queues) holds at most Pool - NQ*QDepth sent commands, so
// the QDepth commands each queue's XPU credits cover always find a slot; an XPU that spends every credit
// it gets back never overflows, and NEW PDUs resume when an ACK frees slots. (Before the shared pool,
// each queue was a ring of Store = 8*QDepth slots holding at most Store - QDepth = 28 sent commands
// here; one queue now holds Pool - NQ*QDepth = 128 - 32 = 96.)
TEST(SueTxModel, StoreBoundsSentCommandsAndXpuNeverOverflows) {
  TxParams p = small_pack();
  p.qcap = 4;       // QCap = QDepth: credits back only at formation (the pool bound on sent commands)
  p.num_xpus = 2;  // NQ 8
  p.qdepth = 4;     // Pool 128: 96 sent + 4 queued per queue reserved
  p.pool = 128;
  p.window = 256;   // the window does not bind here
  ASSERT_EQ(p.pool_slots(), 128u);
  ASSERT_EQ(p.held_max(), 96u);
  Bench b(p);
  b.reset();
  unsigned credits = p.qdepth, sent = 0;
  uint32_t max_count = 0;
  auto step = [&] {
    if (credits) {
      --credits, ++sent;
      b.cmd(0, 0, 0, static_cast<uint8_t>(sent));
    } else {
      b.edge();
    }
    credits += b.o().tx_credit[0];
    max_count = std::max(max_count, b.m.q_count(0));
  };
  for (int e = 0; e < 1000; ++e) step();
  EXPECT_EQ(b.cnt(TxCnt::cmd_overflow), 0u);
  EXPECT_EQ(b.cnt(TxCnt::cmds_sent), 96u);    // Pool - NQ*QDepth (was Store - QDepth = 28 per queue)
  EXPECT_EQ(b.cnt(TxCnt::cmds_in), 100u);      // + QDepth queued
  EXPECT_EQ(b.m.q_count(0), 100u);
  EXPECT_EQ(b.m.q_unsent(0), 4u);
  EXPECT_EQ(max_count, 100u);
  EXPECT_EQ(b.m.conn_npsn(0), 96u);
  b.fb(0, Bench::ack(0, 0, 27));
  for (int e = 0; e < 1000; ++e) step();
  EXPECT_EQ(b.cnt(TxCnt::cmd_overflow), 0u);
  EXPECT_EQ(b.cnt(TxCnt::cmds_sent), 124u);    // 28 more after the ACK freed 28 slots
  EXPECT_LE(max_count, 100u);
}

// One {peer, VC} queue (QDepth 32, NumXpus 2: Pool 1,024) holds far more than the old
// per-queue limit of Store - QDepth = 224 sent commands: exactly Pool - NQ*QDepth = 768 with the ACKs
// withheld, while the XPU spends every credit it gets and never overflows. The output is throttled
// (ready one edge in four) so PDUs pack many commands and the window (256) does not bind.
TEST(SueTxModel, PoolLetsOneQueueHoldMoreThanTheOldRing) {
  TxParams p;
  p.num_xpus = 2;
  p.qdepth = 32;
  p.pool = 1024;
  p.window = 256;
  ASSERT_EQ(p.pool_slots(), 1024u);
  ASSERT_EQ(p.held_max(), 768u);
  Bench b(p);
  b.reset();
  unsigned credits = p.qdepth, tag = 0;
  uint32_t max_count = 0;
  for (int e = 0; e < 20000; ++e) {
    b.in.mac_tx_ready = (e % 4 == 0) ? 1u : 0u;
    if (credits) {
      --credits;
      b.cmd(0, 0, 16, static_cast<uint8_t>(++tag));
    } else {
      b.edge();
    }
    credits += b.o().tx_credit[0];
    max_count = std::max(max_count, b.m.q_count(0));
  }
  EXPECT_EQ(b.cnt(TxCnt::cmd_overflow), 0u);
  EXPECT_GT(b.cnt(TxCnt::cmds_sent), 224u);     // more than the old per-queue ring allowed
  EXPECT_EQ(b.cnt(TxCnt::cmds_sent), 768u);     // exactly Pool - NQ*QDepth
  EXPECT_EQ(b.cnt(TxCnt::cmds_in), 768u + 32u); // + QDepth queued
  EXPECT_EQ(max_count, 800u);
  EXPECT_LE(b.m.conn_npsn(0), 256u);
  EXPECT_EQ(b.m.assertion(), "");
}

// All 16 queues compete for the pool (4 peers, QDepth 4: Pool 512, 448 sent held at most, 64 reserved
// for credited commands). The XPU round-robins over every queue and spends every credit it gets; with
// the ACKs withheld the pool fills exactly (448 sent + 64 queued = Pool) and no command overflows. ACKs
// for every connection then free the slots (one per edge for the instance) and sending resumes.
TEST(SueTxModel, PoolSharedByAllQueuesNeverOverflows) {
  TxParams p = small_pack();
  p.qcap = 4;       // QCap = QDepth: credits back only at formation (the pool bound on sent commands)
  p.num_xpus = 4;
  p.qdepth = 4;
  p.pool = 512;
  p.num_ports = 2;
  p.window = 256;
  ASSERT_EQ(p.pool_slots(), 512u);
  ASSERT_EQ(p.held_max(), 448u);
  Bench b(p);
  b.reset();
  const unsigned NQ = p.nq();
  std::vector<unsigned> credits(NQ, p.qdepth);
  unsigned rr = 0, tag = 0;
  auto step = [&] {
    bool sent = false;
    for (unsigned k = 0; k < NQ && !sent; ++k) {
      const unsigned q = (rr + k) % NQ;
      if (!credits[q]) continue;
      --credits[q];
      rr = q + 1;
      b.cmd(q / 4, q % 4, 0, static_cast<uint8_t>(++tag));
      sent = true;
    }
    if (!sent) b.edge();
    for (unsigned q = 0; q < NQ; ++q) credits[q] += b.o().tx_credit[q];
  };
  for (int e = 0; e < 3000; ++e) step();
  EXPECT_EQ(b.cnt(TxCnt::cmd_overflow), 0u);
  EXPECT_EQ(b.cnt(TxCnt::cmds_sent), 448u);
  EXPECT_EQ(b.cnt(TxCnt::cmds_in), 512u);
  uint32_t held = 0;
  for (unsigned q = 0; q < NQ; ++q) {
    EXPECT_EQ(b.m.q_unsent(q), p.qdepth) << "queue " << q;
    held += b.m.q_count(q);
  }
  EXPECT_EQ(held, 512u);  // every slot of the pool
  // Acknowledge everything sent on every connection: the pool drains and the queued commands go.
  for (int round = 0; round < 40; ++round) {
    for (unsigned port = 0; port < p.num_ports; ++port) {
      for (unsigned q = 0; q < NQ; ++q) {
        const unsigned c = b.c(port, q / 4, q % 4);
        const uint32_t np = b.m.conn_npsn(c), ap = b.m.conn_ack_psn(c);
        if (np == ap) continue;
        b.fb(port, Bench::ack(q / 4, q % 4, (np - 1) & 0xffff));
        break;
      }
    }
    for (int e = 0; e < 40; ++e) step();
  }
  EXPECT_EQ(b.cnt(TxCnt::cmd_overflow), 0u);
  EXPECT_GT(b.cnt(TxCnt::cmds_sent), 448u);
  EXPECT_EQ(b.m.assertion(), "");
}

// A go-back-N resends from the store: the queue's credits came back at formation and the XPU has
// refilled the ring behind the sent commands, yet the retransmitted PDUs carry the same bytes.
TEST(SueTxModel, RetransmitFromTheStoreAfterTheXpuRefilled) {
  Bench b(small_pack());
  b.reset();
  ASSERT_EQ(b.send_run(4, 16, 10, 60), 4u);
  b.in.credit_ok = 0;  // hold the refill in the queue
  for (unsigned k = 0; k < 32; ++k) b.cmd(0, 0, 16, static_cast<uint8_t>(50 + k));  // the credits came back
  EXPECT_EQ(b.cnt(TxCnt::cmd_overflow), 0u);
  EXPECT_EQ(b.m.q_count(0), 36u);
  b.fb(0, Bench::nack(0, 0, 1));  // PSN 0 accepted, 1 lost
  b.edge();
  b.in.credit_ok = 0xf;  // the go-back-N has started: its RTX goes before any NEW
  b.run(60);
  ASSERT_GE(b.frames.size(), 7u);
  for (unsigned k = 0; k < 3; ++k) {
    const Frm& o = b.frames[1 + k];
    const Frm& r = b.frames[4 + k];
    EXPECT_EQ(r.f.rh.npsn, 1u + k);
    EXPECT_EQ(r.f.cmds, o.f.cmds);
    EXPECT_EQ(r.raw, o.raw);  // nothing owed: the same RH op/apsn, so the same bytes and R-CRC
  }
  EXPECT_EQ(b.cnt(TxCnt::pdus_rtx), 3u);
}

// ------------------------------------------------------------------ packing
TEST(SueTxModel, PackingStopsExactlyAtMaxPack) {
  TxParams p;
  p.max_data = 64;
  p.max_pack = 168;  // two 84-byte commands
  Bench b(p);
  b.in.credit_ok = 0;
  b.reset();
  for (unsigned k = 0; k < 3; ++k) b.cmd(0, 0, 64, static_cast<uint8_t>(k));  // 84 + 84 = 168 fits, 252 not
  b.cmd(0, 1, 64, 10);
  for (unsigned k = 0; k < 4; ++k) b.cmd(0, 1, 0, static_cast<uint8_t>(11 + k));  // 84 + 4*20 = 164
  b.cmd(0, 1, 0, 15);                                                              // 184: next PDU
  b.in.credit_ok = 0xf;
  b.run(100);
  std::vector<size_t> n0, n1;
  for (auto& f : b.frames) (f.f.rh.vc == 0 ? n0 : n1).push_back(f.f.cmds.size());
  EXPECT_EQ(n0, (std::vector<size_t>{2, 1}));
  EXPECT_EQ(n1, (std::vector<size_t>{5, 1}));
}

TEST(SueTxModel, PackingNeverWaitsForACommandStillArriving) {
  Bench b(TxParams{});
  b.reset();
  b.cmd(0, 0, 0, 1);    // A complete at edge 0
  b.cmd(0, 0, 200, 2);  // B: 7 beats, edges 1..7; A's job starts at edge 1
  b.run(40);
  ASSERT_EQ(b.frames.size(), 2u);
  EXPECT_EQ(b.frames[0].f.cmds.size(), 1u);
  EXPECT_EQ(b.frames[0].f.cmds[0][3], 1u);
  EXPECT_EQ(b.frames[1].f.rh.npsn, 1u);
}

// ------------------------------------------------------------------ scheduler
// Feeds a queue so that it never runs dry and acknowledges every frame at once.
struct Feeder {
  Bench& b;
  std::vector<std::pair<unsigned, unsigned>> queues;  // (peer, vc)
  size_t next = 0, acked = 0;
  void step() {
    // one dlen-0 command per edge, round robin over the queues that are not full
    auto [i, v] = queues[next++ % queues.size()];
    if (b.m.q_count(i * 4 + v) < b.p.qdepth) {
      b.in.tx_valid = 1, b.in.tx_cycle = 0, b.in.tx_vc = v, b.in.tx_xpuid = i;
      b.in.tx_control = {};
    }
    if (acked < b.frames.size()) {
      const auto& f = b.frames[acked++];
      b.fb(f.port, Bench::ack((f.f.afh2.entropy) / 4, f.f.rh.vc, f.f.rh.npsn));
    }
    b.edge();
  }
};

TEST(SueTxModel, WrrSharesFollowTheWeights) {
  Bench b(small_pack());
  b.in.cfg.vc_weight = {1, 2, 4, 8};
  b.reset();
  Feeder fd{b, {{0, 0}, {0, 1}, {0, 2}, {0, 3}}};
  for (int k = 0; k < 200; ++k) fd.step();  // fill all four queues
  const size_t skip = b.frames.size();
  while (b.frames.size() < skip + 10000) fd.step();
  // after the start-up, every round of 15 PDUs is 1 x VC0, 2 x VC1, 4 x VC2, 8 x VC3, in that order
  std::vector<unsigned> vcs;
  for (size_t k = skip; k < b.frames.size(); ++k) vcs.push_back(b.frames[k].f.rh.vc);
  const unsigned pat[15] = {0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3};
  size_t start = 0;  // align to a round
  while (start < 15 && !(vcs[start] == 0 && vcs[start + 1] == 1)) ++start;
  for (size_t k = start; k + 15 <= vcs.size(); ++k)
    ASSERT_EQ(vcs[k], pat[(k - start) % 15]) << "PDU " << k;
  std::array<unsigned, 4> share{};
  for (unsigned v : vcs) ++share[v];
  const double rounds = vcs.size() / 15.0;
  for (unsigned v = 0; v < 4; ++v) EXPECT_NEAR(share[v], rounds * (1u << v), 1.0 * (1u << v) + 1);
  EXPECT_EQ(b.cnt(TxCnt::pdus_rtx), 0u);
}

TEST(SueTxModel, WeightZeroBehavesAsOneAndPeersRoundRobin) {
  Bench b(small_pack());
  b.in.cfg.vc_weight = {0, 0, 0, 0};
  b.reset();
  Feeder fd{b, {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}, {1, 1}}};
  for (int k = 0; k < 100; ++k) fd.step();
  const size_t skip = b.frames.size();
  while (b.frames.size() < skip + 600) fd.step();
  // VC 0 and VC 1 alternate; within VC 0 the peers go 0,1,2,3, within VC 1 0,1
  std::vector<unsigned> p0, p1;
  for (size_t k = skip; k + 1 < b.frames.size(); ++k) {
    const auto& f = b.frames[k].f;
    EXPECT_NE(f.rh.vc, b.frames[k + 1].f.rh.vc) << "PDU " << k;
    (f.rh.vc == 0 ? p0 : p1).push_back(f.afh2.entropy / 4);
  }
  for (size_t k = 1; k < p0.size(); ++k) EXPECT_EQ(p0[k], (p0[k - 1] + 1) % 4);
  for (size_t k = 1; k < p1.size(); ++k) EXPECT_EQ(p1[k], (p1[k - 1] + 1) % 2);
}

TEST(SueTxModel, VcWithoutCreditIsSkippedOthersGoOn) {
  Bench b(small_pack());
  b.reset();
  b.in.credit_ok = 0xf & ~0x2u;  // VC 1 stalled by CBFC
  Feeder fd{b, {{0, 0}, {0, 1}, {0, 2}}};
  for (int k = 0; k < 600; ++k) fd.step();
  std::array<unsigned, 4> n{};
  for (auto& f : b.frames) ++n[f.f.rh.vc];
  EXPECT_EQ(n[1], 0u);
  EXPECT_GT(n[0], 30u);
  EXPECT_GT(n[2], 30u);
  EXPECT_GT(b.m.q_unsent(1), 0u);
  b.in.credit_ok = 0xf;
  const size_t before = b.frames.size();
  for (int k = 0; k < 200; ++k) fd.step();
  unsigned n1 = 0;
  for (size_t k = before; k < b.frames.size(); ++k) n1 += b.frames[k].f.rh.vc == 1;
  EXPECT_GT(n1, 10u);
  EXPECT_EQ(b.cnt(TxCnt::pdus_rtx), 0u);
  EXPECT_EQ(b.cnt(TxCnt::gbn), 0u);
}

// ------------------------------------------------------------------ port choice
TEST(SueTxModel, StrictPinsQueuesAndFallsBack) {
  TxParams p;
  p.num_ports = 4;
  p.data_w = 512;
  Bench b(p);
  b.in.cfg.strict = true;
  b.reset();
  for (unsigned i = 0; i < 4; ++i)
    for (unsigned v = 0; v < 4; ++v) b.cmd(i, v, 0);
  b.run(100);
  ASSERT_EQ(b.frames.size(), 16u);
  // pin base = (own 1 + peer XPU id (2 + i) + v) mod 4
  for (auto& f : b.frames) EXPECT_EQ(f.port, (1 + 2 + f.f.afh2.entropy / 4 + f.f.rh.vc) % 4);
  unsigned vc0_ports = 0;  // the 4 peers' VC 0 flows use all 4 ports
  for (auto& f : b.frames)
    if (f.f.rh.vc == 0) vc0_ports |= 1u << f.port;
  EXPECT_EQ(vc0_ports, 0xfu);
  for (auto& f : b.frames) b.fb(f.port, Bench::ack(f.f.afh2.entropy / 4, f.f.rh.vc, 0)), b.edge();
  b.in.port_up &= ~0x2u;  // port 1 dies: b = 1 moves to port 2
  b.edge();
  EXPECT_EQ(b.o().port_dead, 0x2u);
  b.frames.clear();
  for (unsigned i = 0; i < 4; ++i)
    for (unsigned v = 0; v < 4; ++v) b.cmd(i, v, 0);
  b.run(100);
  unsigned n = 0;
  for (auto& f : b.frames) {
    if (f.f.rh.rsvd & 8) continue;
    ++n;
    unsigned want = (1 + 2 + f.f.afh2.entropy / 4 + f.f.rh.vc) % 4;
    if (want == 1) want = 2;
    EXPECT_EQ(f.port, want);
  }
  EXPECT_EQ(n, 16u);
  b.in.port_up |= 0x2u;  // back up: stays dead until reset
  b.run(5);
  EXPECT_EQ(b.o().port_dead, 0x2u);
}

// An incast: four senders (own ids 1..4) to one target (XPU 0, peer index 0 at each) pin to four
// different ports (the old pin by peer index put all of them on port 0), and so do a sender's VCs.
TEST(SueTxModel, StrictPinSpreadsIncastSendersOverThePorts) {
  TxParams p;
  p.num_ports = 4;
  p.data_w = 512;
  unsigned ports = 0;
  for (uint32_t own = 1; own <= 4; ++own) {
    Bench b(p);
    b.in.cfg.strict = true;
    b.in.cfg.own_xpuid = own;
    b.reset();
    for (unsigned v = 0; v < 4; ++v) b.cmd(0, v, 0);
    b.run(60);
    ASSERT_EQ(b.frames.size(), 4u);
    unsigned vcs = 0;
    for (auto& f : b.frames) {
      EXPECT_EQ(f.port, (own + f.f.rh.vc) % 4);
      vcs |= 1u << f.port;
      if (f.f.rh.vc == 0) ports |= 1u << f.port;
    }
    EXPECT_EQ(vcs, 0xfu) << "own " << own;
  }
  EXPECT_EQ(ports, 0xfu);
}

// The strict pin over whole patterns (ids first..first+N-1, N a multiple of 4, any first id; 2 and 4
// ports), the properties docs/sue.md "port_sel" chooses (own + peer + VC) mod NumPorts for:
// - symmetric: XPU a's flow to b and b's flow to a share a port, so each side's ACKs ride on its data
//   (strict mode owes an ACK on the connection of the data's arrival port);
// - a node's 4 next peers (a shift pattern, mod N) and the 4 senders before a target (an incast) take
//   every port (each port twice of 4 with 2 ports), and the 4 VCs of a pair take 4 ports;
// - the price, exactly: uniform traffic pins N^2/P - N/2 flows of a VC to each even port residue
//   (0 and 2 with 4 ports, 0 with 2) and N^2/P to the others, because the missing pairs own = peer all
//   have an even sum (8 XPUs on 4 ports: 12/16/12/16, imbalance 1.14). A symmetric Latin square of
//   even order cannot have a transversal diagonal, so no pin keeps the first two and removes the third;
//   a GF(4) Latin square with a transversal diagonal (balanced, not symmetric) measured worse.
TEST(SueTxModel, StrictPinIsSymmetricSpreadsShiftsAndIncastsAndItsImbalanceIsKnown) {
  for (unsigned ports : {2u, 4u})
    for (uint32_t first : {0u, 1u, 5u, 1000u})
      for (uint32_t n : {8u, 12u, 16u, 64u, 1024u}) {
        if (first + n > 1024) continue;
        for (unsigned v = 0; v < 4; ++v) {
          std::array<uint32_t, 4> flows{};
          for (uint32_t own = first; own < first + n; ++own)
            for (uint32_t peer = first; peer < first + n; ++peer) {
              if (peer == own) continue;
              ASSERT_EQ(sue::pin_base(own, peer, v, ports), sue::pin_base(peer, own, v, ports)) << own << " " << peer;
              ++flows[sue::pin_base(own, peer, v, ports)];
            }
          for (unsigned p = 0; p < ports; ++p) {
            // the pairs own = peer would pin to (2 own + v) mod ports: N/2 of them on each residue v, v + 2
            const bool short_by_diag = ports == 4 ? ((p + 4 - v) % 2 == 0) : ((p + 2 - v % 2) % 2 == 0);
            const uint32_t diag = ports == 4 ? n / 2 : n;
            ASSERT_EQ(flows[p], n * n / ports - (short_by_diag ? diag : 0))
                << "ids " << first << ".." << first + n - 1 << " ports " << ports << " vc " << v << " port " << p;
          }
        }
        for (uint32_t x = 0; x < n; ++x) {
          std::array<unsigned, 4> shift{}, incast{};
          for (uint32_t k = 1; k <= 4; ++k) {
            ++shift[sue::pin_base(first + x, first + (x + k) % n, 0, ports)];
            ++incast[sue::pin_base(first + (x + n - k) % n, first + x, 0, ports)];
          }
          for (unsigned p = 0; p < ports; ++p) {
            ASSERT_EQ(shift[p], 4 / ports) << "node " << first + x << " of " << n;
            ASSERT_EQ(incast[p], 4 / ports) << "target " << first + x << " of " << n;
          }
        }
      }
  for (uint32_t own : {0u, 7u})
    for (uint32_t peer : {3u, 9u}) {
      unsigned seen = 0;
      for (unsigned v = 0; v < 4; ++v) seen |= 1u << sue::pin_base(own, peer, v, 4);
      EXPECT_EQ(seen, 0xfu);
      EXPECT_EQ(sue::pin_base(own, peer, 2, 1), 0u);
    }
}

TEST(SueTxModel, UnorderedPicksFewestOutBytesTiesToLowest) {
  TxParams p;
  p.num_ports = 2;
  p.data_w = 512;
  Bench b(p);
  b.in.cfg.strict = false;
  b.reset();
  b.cmd(0, 0, 200, 1);  // tie: port 0, P = 220
  b.run(30);
  b.cmd(0, 0, 100, 2);  // port 1 has fewer: P = 120
  b.run(30);
  b.cmd(0, 0, 0, 3);    // port 1 (120 < 220)
  b.run(30);
  b.cmd(0, 0, 150, 4);  // port 1 (140 < 220)
  b.run(30);
  b.cmd(0, 0, 0, 5);    // port 0 (220 < 310)
  b.run(30);
  ASSERT_EQ(b.frames.size(), 5u);
  std::vector<unsigned> ports;
  for (auto& f : b.frames) ports.push_back(f.port);
  EXPECT_EQ(ports, (std::vector<unsigned>{0, 1, 1, 1, 0}));
  EXPECT_EQ(b.o().out_bytes[0], 240u);
  EXPECT_EQ(b.o().out_bytes[1], 310u);
  // PSNs per connection {port, peer, VC}
  EXPECT_EQ(b.frames[4].f.rh.npsn, 1u);
  EXPECT_EQ(b.frames[3].f.rh.npsn, 2u);
}

// ------------------------------------------------------------------ ACK / NACK
TEST(SueTxModel, AckOnlyAfterAckDelayNackAtOnce) {
  Bench b(TxParams{});
  b.in.cfg.ack_delay = 50;
  b.reset();
  sue::Feedback f;
  f.peer = 1, f.vc = 2, f.owe = sue::kOweAck, f.owe_psn = 77;
  b.fb(0, f);
  b.edge();  // owe = ACK, owe_age = 0
  const uint64_t n0 = b.n;
  // a job starts at the edge where owe_age_q >= 50: the 51st edge after the owe (it waited 50 cycles more than
  // the one cycle any job takes to start)
  while (b.cnt(TxCnt::ack_only) == 0 && b.n < n0 + 100) b.edge();
  EXPECT_EQ(b.n - n0, 51u);
  b.run(10);
  ASSERT_EQ(b.frames.size(), 1u);
  const auto& fa = b.frames[0].f;
  EXPECT_TRUE(fa.cmds.empty());
  EXPECT_EQ(fa.rh.op, 1u);
  EXPECT_EQ(fa.rh.apsn, 77u);
  EXPECT_EQ(fa.rh.npsn, 0u);
  EXPECT_EQ(fa.rh.vc, 2u);
  EXPECT_EQ(fa.afh2.entropy, 6u);
  EXPECT_EQ(fa.rh.rsvd, 0u);
  EXPECT_EQ(b.frames[0].raw.size(), 14u + 8 + 2 + 4);
  EXPECT_EQ(b.cnt(TxCnt::ack_sent), 1u);
  // NACK: at the next edge
  f.owe = sue::kOweNack, f.owe_psn = 78;
  b.fb(0, f);
  b.edge();
  b.edge();
  EXPECT_EQ(b.cnt(TxCnt::ack_only), 2u);
  EXPECT_EQ(b.cnt(TxCnt::nack_sent), 1u);
  // a DUP does not override an owed NACK
  f.owe = sue::kOweNack, f.owe_psn = 90;
  b.in.credit_ok = 0;  // hold it
  b.fb(0, f);
  b.edge();
  f.owe = sue::kOweDup, f.owe_psn = 91;
  b.fb(0, f);
  b.edge();
  b.in.credit_ok = 0xf;
  b.run(20);
  ASSERT_EQ(b.frames.size(), 3u);
  EXPECT_EQ(b.frames[2].f.rh.op, 2u);
  EXPECT_EQ(b.frames[2].f.rh.apsn, 90u);
}

// cfg_ack_count: an owed ACK goes alone at the edge after the ack_count-th owed event, long before its age
// reaches ack_delay; a count of 0 leaves the age alone to decide; the count starts again after the ACK.
TEST(SueTxModel, AckOnlyAfterAckCountEventsWhateverTheAge) {
  for (const uint32_t count : {3u, 0u}) {
    Bench b(TxParams{});
    b.in.cfg.ack_delay = 1000;
    b.in.cfg.ack_count = count;
    b.reset();
    sue::Feedback f;
    f.peer = 1, f.vc = 0, f.owe = sue::kOweAck;
    const uint64_t n0 = b.n;
    for (uint32_t k = 0; k < 3; ++k) {  // three accepted PDUs owed, ten edges apart
      f.owe_psn = 10 + k;
      b.fb(0, f);
      b.edge();
      if (k < 2) b.run(9);
    }
    const uint64_t third = b.n;  // the edge after the third event was applied
    while (b.cnt(TxCnt::ack_only) == 0 && b.n < n0 + 1100) b.edge();
    if (count == 3) {
      EXPECT_EQ(b.n - third, 1u) << "the ACK-only job starts at the edge after the third event";
    } else {
      EXPECT_EQ(b.n - (n0 + 1), 1001u) << "without a count the age decides (1,000 cycles after the first)";
    }
    b.run(10);
    ASSERT_EQ(b.frames.size(), 1u) << count;
    EXPECT_EQ(b.frames[0].f.rh.op, 1u);
    EXPECT_EQ(b.frames[0].f.rh.apsn, 12u);  // the newest owed PSN
    // the count restarts: two more events are not enough, the third sends the next ACK-only
    if (count == 3) {
      for (uint32_t k = 0; k < 2; ++k) {
        f.owe_psn = 20 + k;
        b.fb(0, f);
        b.edge();
      }
      b.run(20);
      EXPECT_EQ(b.cnt(TxCnt::ack_only), 1u);
      f.owe_psn = 22;
      b.fb(0, f);
      b.edge();
      b.run(10);
      EXPECT_EQ(b.cnt(TxCnt::ack_only), 2u);
      EXPECT_EQ(b.frames.back().f.rh.apsn, 22u);
    }
  }
}

TEST(SueTxModel, PiggybackConsumesWhatIsOwed) {
  Bench b(TxParams{});
  b.in.cfg.ack_delay = 200;
  b.reset();
  sue::Feedback f;
  f.peer = 0, f.vc = 0, f.owe = sue::kOweAck, f.owe_psn = 5;
  b.fb(0, f);
  b.edge();
  b.cmd(0, 0, 0);  // a DATA PDU on the same connection carries it
  b.run(300);
  ASSERT_EQ(b.frames.size(), 1u);  // and no ACK-only follows
  EXPECT_EQ(b.frames[0].f.rh.op, 1u);
  EXPECT_EQ(b.frames[0].f.rh.apsn, 5u);
  EXPECT_EQ(b.cnt(TxCnt::ack_sent), 1u);
  EXPECT_EQ(b.cnt(TxCnt::ack_only), 0u);
  // owed on another connection (VC 1): not taken by a VC 0 PDU
  f.vc = 1, f.owe_psn = 6;
  b.fb(0, f);
  b.edge();
  b.cmd(0, 0, 0);
  b.run(20);
  ASSERT_EQ(b.frames.size(), 2u);
  EXPECT_EQ(b.frames[1].f.rh.op, 0u);
  EXPECT_EQ(b.frames[1].f.rh.apsn, 0u);
}

TEST(SueTxModel, NackGoBackNFromTheNackedPsn) {
  Bench b(small_pack());
  b.reset();
  ASSERT_EQ(b.send_run(5, 0, 10, 40), 5u);
  EXPECT_EQ(b.m.conn_npsn(0), 5u);
  b.fb(0, Bench::nack(0, 0, 2));  // PSNs 0, 1 accepted, 2 lost
  b.edge();
  EXPECT_EQ(b.cnt(TxCnt::nack_rcvd), 1u);
  EXPECT_EQ(b.cnt(TxCnt::gbn), 1u);
  EXPECT_EQ(b.m.conn_ack_psn(0), 2u);
  EXPECT_EQ(b.m.conn_state(0), uint32_t{sue::kConnRtx});
  b.run(40);
  ASSERT_EQ(b.frames.size(), 8u);
  for (unsigned k = 0; k < 3; ++k) {
    const auto& f = b.frames[5 + k].f;
    EXPECT_EQ(f.rh.npsn, 2u + k);
    EXPECT_EQ(f.cmds[0][3], 12u + k);
    EXPECT_EQ(f.cmds, b.frames[2 + k].f.cmds);  // same commands, same grouping
  }
  EXPECT_EQ(b.cnt(TxCnt::pdus_rtx), 3u);
  EXPECT_EQ(b.m.conn_state(0), uint32_t{sue::kConnLive});
  // a stale NACK (behind ack_psn) is ignored but counted
  b.fb(0, Bench::nack(0, 0, 1));
  b.edge();
  EXPECT_EQ(b.cnt(TxCnt::nack_rcvd), 2u);
  EXPECT_EQ(b.cnt(TxCnt::gbn), 1u);
  // NACK(npsn): progress to npsn, no go-back-N
  b.fb(0, Bench::nack(0, 0, 5));
  b.edge();
  EXPECT_EQ(b.m.conn_ack_psn(0), 5u);
  EXPECT_EQ(b.cnt(TxCnt::gbn), 1u);
}

TEST(SueTxModel, RtoAfterExactlyCfgRtoCycles) {
  Bench b(small_pack());
  b.in.cfg.rto = 300;
  b.reset();
  b.cmd(0, 0, 0, 1);
  b.edge();  // NEW at this edge
  ASSERT_EQ(b.cnt(TxCnt::pdus_new), 1u);
  const uint64_t n0 = b.n;
  b.run(299);
  EXPECT_EQ(b.cnt(TxCnt::rto), 0u);
  b.edge();  // edge n0 + 300
  EXPECT_EQ(b.cnt(TxCnt::rto), 1u);
  EXPECT_EQ(b.n - n0, 300u);
  EXPECT_EQ(b.cnt(TxCnt::gbn), 1u);
  b.run(20);
  ASSERT_EQ(b.frames.size(), 2u);
  EXPECT_EQ(b.frames[1].f.rh.npsn, 0u);
  EXPECT_EQ(b.frames[1].f.cmds, b.frames[0].f.cmds);
  // progress restarts the timer; everything acknowledged stops it
  b.fb(0, Bench::ack(0, 0, 0));
  b.run(1000);
  EXPECT_EQ(b.cnt(TxCnt::rto), 1u);
}

TEST(SueTxModel, WindowFullStallsOnlyItsConnection) {
  TxParams p = small_pack();
  p.window = 2;
  Bench b(p);
  b.reset();
  for (unsigned k = 0; k < 3; ++k) b.cmd(0, 0, 0, static_cast<uint8_t>(k));
  b.cmd(1, 0, 0, 9);
  b.run(60);
  ASSERT_EQ(b.frames.size(), 3u);
  EXPECT_EQ(b.m.conn_inflight(0), 2u);
  EXPECT_EQ(b.m.q_unsent(0), 1u);
  unsigned peer1 = 0;  // peer 1 was not held up
  for (auto& f : b.frames) peer1 += f.f.afh2.entropy == 4;
  EXPECT_EQ(peer1, 1u);
  b.fb(0, Bench::ack(0, 0, 0));
  b.edge();  // ack_psn 1
  b.edge();  // walker frees PSN 0: inflight 1
  EXPECT_EQ(b.m.conn_inflight(0), 1u);
  b.run(20);
  ASSERT_EQ(b.frames.size(), 4u);
  EXPECT_EQ(b.frames[3].f.rh.npsn, 2u);
  EXPECT_EQ(b.frames[3].f.cmds[0][3], 2u);
}

// cfg_win_bytes: a connection starts a PDU only while the P of its unfreed PDUs is below the byte window, so
// it may hold fewer than Window PDUs; the walker's free gives the bytes back; other connections go on.
TEST(SueTxModel, ByteWindowStallsItsConnectionBelowThePduWindow) {
  TxParams p = small_pack();  // one command per PDU: a 0-byte command is a PDU of P = 20 bytes
  p.window = 8;
  Bench b(p);
  b.in.cfg.win_bytes = 50;
  b.reset();
  for (unsigned k = 0; k < 5; ++k) {
    b.cmd(0, 0, 0, static_cast<uint8_t>(k));
    b.run(10);
  }
  b.cmd(1, 0, 0, 9);
  b.run(30);
  // 0, 20 and 40 bytes in flight are below 50: three PDUs start; at 60 the connection waits (3 < Window 8)
  ASSERT_EQ(b.frames.size(), 4u);
  EXPECT_EQ(b.m.conn_inflight(b.c(0, 0, 0)), 3u);
  EXPECT_EQ(b.m.conn_inbytes(b.c(0, 0, 0)), 60u);
  EXPECT_EQ(b.o().dbg_inbytes, 60u);  // dbg_conn 0 is that connection
  EXPECT_EQ(b.m.q_unsent(0), 2u);
  EXPECT_EQ(b.frames[3].f.afh2.entropy, 4u);  // peer 1 was not held up
  EXPECT_EQ(b.m.conn_inbytes(b.c(0, 1, 0)), 20u);
  b.fb(0, Bench::ack(0, 0, 0));
  b.edge();  // ack_psn 1
  b.edge();  // the walker frees PSN 0: 40 bytes
  EXPECT_EQ(b.m.conn_inbytes(b.c(0, 0, 0)), 40u);
  b.run(20);  // one more PDU (40 < 50), then 60 again
  ASSERT_EQ(b.frames.size(), 5u);
  EXPECT_EQ(b.frames[4].f.rh.npsn, 3u);
  EXPECT_EQ(b.m.conn_inbytes(b.c(0, 0, 0)), 60u);
  EXPECT_EQ(b.m.q_unsent(0), 1u);
  // everything acknowledged and freed: no byte in flight
  b.fb(0, Bench::ack(0, 0, 3));
  b.run(30);
  EXPECT_EQ(b.frames.size(), 6u);
  b.fb(0, Bench::ack(0, 0, 4));
  b.run(30);
  EXPECT_EQ(b.m.conn_inflight(b.c(0, 0, 0)), 0u);
  EXPECT_EQ(b.m.conn_inbytes(b.c(0, 0, 0)), 0u);
}

TEST(SueTxModel, PsnWrapsAt65536) {
  Bench b(small_pack());
  b.reset();
  Feeder fd{b, {{0, 0}}};
  while (b.frames.size() < 65536 + 20) fd.step();
  for (size_t k = 1; k < b.frames.size(); ++k)
    ASSERT_EQ(b.frames[k].f.rh.npsn, (b.frames[k - 1].f.rh.npsn + 1) & 0xffff) << k;
  EXPECT_EQ(b.frames[65536].f.rh.npsn, 0u);
  EXPECT_EQ(b.cnt(TxCnt::pdus_rtx), 0u);
}

// ------------------------------------------------------------------ failover
TEST(SueTxModel, FailoverWaitRetryMigrateRetired) {
  TxParams p;
  p.num_ports = 2;
  p.data_w = 512;
  Bench b(p);
  b.in.cfg.strict = true;
  b.in.cfg.fo_retry = 200;
  b.in.cfg.own_xpuid = 2;  // queue (0, 0) (XPU 0) pins to port (2 + 0 + 0) mod 2 = 0
  b.reset();
  for (unsigned k = 0; k < 3; ++k) {  // PSNs 0, 1, 2 on connection (0, 0, 0)
    b.cmd(0, 0, 0, static_cast<uint8_t>(k));
    b.run(10);
  }
  ASSERT_EQ(b.frames.size(), 3u);
  b.fb(0, Bench::ack(0, 0, 0));
  b.edge();
  EXPECT_EQ(b.m.conn_ack_psn(0), 1u);
  b.in.port_up = 0x2;  // port 0 dies
  b.edge();
  const unsigned c0 = b.c(0, 0, 0), c1 = b.c(1, 0, 0);
  EXPECT_EQ(b.m.conn_state(c0), uint32_t{sue::kConnWait});
  EXPECT_EQ(b.m.conn_state(b.c(0, 1, 0)), uint32_t{sue::kConnRetired});  // nothing in flight
  b.cmd(0, 0, 0, 9);  // queue (0, 0) is blocked while a connection of it waits
  b.run(20);
  ASSERT_EQ(b.frames.size(), 4u);
  const auto& req = b.frames[3];
  EXPECT_EQ(req.port, 1u);
  EXPECT_TRUE(req.f.cmds.empty());
  EXPECT_EQ(req.f.rh.rsvd, 8u);  // 8 | f, f = 0
  EXPECT_EQ(req.f.rh.op, 0u);
  EXPECT_EQ(req.f.rh.npsn, 0u);
  EXPECT_EQ(b.cnt(TxCnt::fo_req_sent), 1u);
  b.run(200);  // retried after cfg_fo_retry cycles
  EXPECT_EQ(b.cnt(TxCnt::fo_req_sent), 2u);
  EXPECT_EQ(b.m.q_unsent(0), 1u);
  // FO-ACK(answer 1): PSNs 0 and 1 were accepted, PSN 2 migrates
  sue::Feedback fa;
  fa.peer = 0, fa.vc = 0, fa.fo = sue::kFoAck, fa.fo_port = 0, fa.rapsn = 1;
  b.fb(1, fa);
  b.edge();
  EXPECT_EQ(b.cnt(TxCnt::fo_ack_rcvd), 1u);
  EXPECT_EQ(b.m.conn_ack_psn(c0), 2u);
  EXPECT_EQ(b.m.conn_state(c0), uint32_t{sue::kConnMigrate});
  b.run(30);
  EXPECT_EQ(b.m.conn_state(c0), uint32_t{sue::kConnRetired});
  EXPECT_EQ(b.cnt(TxCnt::pdus_mig), 1u);
  ASSERT_EQ(b.frames.size(), 7u);
  const auto& mig = b.frames[5];
  EXPECT_EQ(mig.port, 1u);
  EXPECT_EQ(mig.f.rh.npsn, 0u);  // a new PDU of connection (1, 0, 0)
  EXPECT_EQ(mig.f.cmds, b.frames[2].f.cmds);
  const auto& nw = b.frames[6];  // the queue resumed after the migration
  EXPECT_EQ(nw.port, 1u);
  EXPECT_EQ(nw.f.rh.npsn, 1u);
  EXPECT_EQ(nw.f.cmds[0][3], 9u);
  EXPECT_EQ(b.m.conn_npsn(c1), 2u);
  // a late FO-ACK is ignored (counted)
  b.fb(1, fa);
  b.edge();
  EXPECT_EQ(b.cnt(TxCnt::fo_ack_rcvd), 2u);
  EXPECT_EQ(b.m.conn_state(c0), uint32_t{sue::kConnRetired});
}

TEST(SueTxModel, FoReqReceivedIsAnsweredOnTheLowestLivePort) {
  TxParams p;
  p.num_ports = 2;
  p.data_w = 512;
  Bench b(p);
  b.reset();
  b.in.port_up = 0x2;
  b.edge();
  sue::Feedback f;
  f.peer = 2, f.vc = 3, f.fo = sue::kFoReq, f.fo_port = 0, f.owe_psn = 77;
  b.fb(1, f);
  b.edge();
  b.run(20);
  ASSERT_EQ(b.frames.size(), 1u);
  const auto& a = b.frames[0];
  EXPECT_EQ(a.port, 1u);
  EXPECT_EQ(a.f.rh.rsvd, 8u);
  EXPECT_EQ(a.f.rh.op, 1u);
  EXPECT_EQ(a.f.rh.apsn, 77u);
  EXPECT_EQ(a.f.rh.vc, 3u);
  EXPECT_EQ(a.f.afh2.dst_xpu, 2u);  // fb_peer is the XPU id
  EXPECT_EQ(b.cnt(TxCnt::fo_ack_sent), 1u);
}

TEST(SueTxModel, NoLivePortSetsErrNoPort) {
  TxParams p;
  p.num_ports = 2;
  p.data_w = 512;
  Bench b(p);
  b.reset();
  b.edge();
  EXPECT_FALSE(b.o().err_no_port);
  b.in.port_up = 0;
  b.edge();
  EXPECT_TRUE(b.o().err_no_port);
}

// ------------------------------------------------------------------ SUE Lite
TEST(SueTxModel, LiteFrameAndNoTransport) {
  TxParams p;
  p.profile = 1;
  p.max_pack = 1024;
  p.num_xpus = 1024;
  Bench b(p);
  b.in.cfg.own_xpuid = 0x304 & 0x3ff;
  b.reset();
  b.cmd(0x102, 1, 4, 0x5a);  // the peer is XPU 0x102 (NumXpus 1024 here)
  b.run(20);
  ASSERT_EQ(b.frames.size(), 1u);
  // the library's encoding of the same frame, without pad and FCS
  sue::Frame f = sue::make_frame(sue::Profile::SueLite, sue::Encap::AfhGen2_6);
  f.afh2.dst_xpu = 0x102, f.afh2.src_xpu = 0x304, f.afh2.tc = 1;
  Bytes cmd(22, 0);
  cmd[0] = 0x40, cmd[2] = 0x40, cmd[3] = 0x5a;
  for (unsigned j = 0; j < 4; ++j) cmd[18 + j] = static_cast<uint8_t>(j);
  f.cmds = {cmd};
  auto e = sue::encode(f);
  ASSERT_TRUE(e.ok());
  const Bytes& want = e.value();
  ASSERT_EQ(b.frames[0].raw.size(), 6u + 24);
  EXPECT_EQ(b.frames[0].raw, Bytes(want.begin(), want.begin() + 30));
  // slots freed when the last beat is loaded: no feedback needed
  EXPECT_EQ(b.m.q_count(1), 0u);
  // feedback is ignored, SUE-only outputs stay 0
  sue::Feedback fb;
  fb.rop = 2, fb.fo = 1;
  b.fb(0, fb);
  b.edge();
  for (unsigned k : {TxCnt::pdus_rtx, TxCnt::pdus_mig, TxCnt::ack_only, TxCnt::ack_sent, TxCnt::nack_sent,
                     TxCnt::nack_rcvd, TxCnt::gbn, TxCnt::rto, TxCnt::fo_req_sent, TxCnt::fo_ack_sent,
                     TxCnt::fo_ack_rcvd})
    EXPECT_EQ(b.cnt(k), 0u) << sue::tx_counter_name(k);
  for (unsigned c = 0; c < b.p.nc(); ++c) EXPECT_EQ(b.m.conn_npsn(c), 0u);
  EXPECT_EQ(b.o().out_bytes[0], 0u);
}

// ------------------------------------------------------------------ line rate
// One port at 400 Gb/s (docs/sue.md step 5 "Builders"): the XPU keeps the VC 0 queues of the four
// peers full of 64, 128 or 256-byte commands or the default mix, the MAC is always ready, the far
// end ACKs every PDU: what the port sends takes at least the 31.25 wire bytes per edge of 400 Gb/s
// (frame, pad, FCS, preamble and IPG), in SUE and SUE Lite. The old builder (a header chunk, an op
// chunk and then 32-byte data chunks, one per edge, and two idle edges between jobs) fails every
// case: s1 27.38 / 29.10 / 30.11 / 26.21 and Lite 25.95 / 27.00 / 27.68 / 25.00 wire bytes per edge
// for 64 / 128 / 256 bytes / the mix (measured with this stimulus).
TEST(SueTxModel, LineRateOnePort400G) {
  for (unsigned profile : {0u, 1u}) {
    const TxParams p = params(profile, 1);
    for (unsigned dlen : {64u, 128u, 256u, txstim::kMix}) {
      const std::string what = std::string(profile ? "lite" : "s1") + " " + (dlen ? std::to_string(dlen) : "mix");
      suetx::ModelDut b(p);
      const txstim::LineRate r =
          txstim::run_linerate(b, p, dlen, 4, 2000, 8000, [&] { return b.model().assertion().empty(); });
      EXPECT_TRUE(r.error.empty()) << what << ": " << r.error;
      EXPECT_EQ(b.model().assertion(), "") << what;
      EXPECT_GE(r.per_edge, txstim::kWire400GBytesPerEdge)
          << what << ": " << r.wire << " wire bytes in " << r.window << " edges";
      EXPECT_GT(r.cmds, 800u) << what;
      std::printf("  %s: %.2f wire bytes per edge (400 Gb/s: 31.25), %.1f commands per frame\n", what.c_str(),
                  r.per_edge, r.cmds_per_frame);
    }
  }
}

// DataW 1024 (DB = 128 bytes per XPU beat; docs/sue.md "Clock and rates"), one port at 400 Gb/s: command
// chunks of 20 + min(128, dlen) bytes (148 at most, the first chunk 170) go through the builder byte-exact
// at line rate for 64, 128 and 256-byte commands, the mix, and 1000 / 2048-byte commands (MaxData 2048:
// 8 and 16 data beats), SUE and Lite. A builder that assumed DB <= 64 (7-bit chunk sizes, a 128-byte
// chunk buffer) loses or garbles every command above 64 bytes here.
TEST(SueTxModel, LineRateOnePort400GDataW1024) {
  for (unsigned profile : {0u, 1u}) {
    for (unsigned dlen : {64u, 128u, 256u, txstim::kMix, 1000u, 2048u}) {
      TxParams p = params(profile, 1, 1024);
      if (dlen > 256) p.max_data = profile ? 1000 : 2048;
      if (dlen > p.max_data) continue;  // Lite: MaxPack 1024 holds at most 1004 data bytes
      const std::string what = std::string(profile ? "lite" : "s1") + " DataW 1024 " + (dlen ? std::to_string(dlen) : "mix");
      suetx::ModelDut b(p);
      const txstim::LineRate r =
          txstim::run_linerate(b, p, dlen, 4, 2000, 8000, [&] { return b.model().assertion().empty(); });
      EXPECT_TRUE(r.error.empty()) << what << ": " << r.error;
      EXPECT_EQ(b.model().assertion(), "") << what;
      EXPECT_GE(r.per_edge, txstim::kWire400GBytesPerEdge)
          << what << ": " << r.wire << " wire bytes in " << r.window << " edges";
      EXPECT_GT(r.cmds, dlen > 256 ? 100u : 800u) << what;
      std::printf("  %s: %.2f wire bytes per edge (400 Gb/s: 31.25), %.1f commands per frame\n", what.c_str(),
                  r.per_edge, r.cmds_per_frame);
    }
  }
}

// The 800G instance of two 400G ports (s2): the XPU bus must carry what 2 x 31.25 wire bytes per edge
// hold. At DataW 1024 both ports run at line rate with 64, 128, 256-byte commands and the mix, and the
// mix's goodput (control + data bytes) is that of full frames, ~30 bytes per edge and port. At DataW 512
// a command takes max(1, ceil(dlen/64)) beats, 2.12 for the mix's ~114 command bytes: the bus carries
// ~54 bytes per edge, 27 per port, and the ports, still busy, send frames of ~2 commands (more header,
// pad and FCS per command). That is why s2 and s4 use 1024. Queues pinned (strict), peers spread over
// both ports.
TEST(SueTxModel, LineRateTwoPorts800GDataW1024) {
  for (unsigned dw : {1024u, 512u}) {
    for (unsigned dlen : {64u, 128u, 256u, txstim::kMix}) {
      if (dw == 512 && dlen != txstim::kMix) continue;
      const TxParams p = params(0, 2, dw);
      const std::string what = fmt::format("s2 DataW {} {}", dw, dlen ? std::to_string(dlen) : "mix");
      suetx::ModelDut b(p);
      const txstim::LineRate r =
          txstim::run_linerate(b, p, dlen, 4, 2000, 8000, [&] { return b.model().assertion().empty(); });
      EXPECT_TRUE(r.error.empty()) << what << ": " << r.error;
      EXPECT_EQ(b.model().assertion(), "") << what;
      if (dw == 1024) {
        EXPECT_GE(r.per_edge, txstim::kWire400GBytesPerEdge) << what << ": " << r.wire << " wire bytes in " << r.window
                                                              << " edges on 2 ports";
        if (dlen == txstim::kMix) {
          EXPECT_GE(r.goodput, 29.5) << what;
        }
      } else {
        EXPECT_LT(r.goodput, 28.0) << what << ": the 512-bit bus binds";
      }
      EXPECT_GT(r.cmds, 800u) << what;
      std::printf("  %s: %.2f wire bytes, %.2f command bytes per edge and port (400 Gb/s: 31.25), %.1f commands per "
                  "frame\n", what.c_str(), r.per_edge, r.goodput, r.cmds_per_frame);
    }
  }
}

}  // namespace
