// sue::RxModel directed scenarios (label unit), docs/sue.md test plan "SueRxModel.*": each verdict
// path and its counter, one NACK per gap, duplicate re-ACK, FO-REQ answered/deferred, FO-ACK, Lite
// byte order, unpacker beats and credits, ready from rows and records, the worked example to the
// cycle; then the constrained-random scenario against the independent reference, model alone.
#include <gtest/gtest.h>

#include <deque>
#include <functional>

#include "sue/crc.hpp"
#include "sue_rx_linerate.hpp"
#include "sue_rx_scenario.hpp"

namespace {

using rxstim::Bytes;
using sue::RxCnt;

sue::RxParams sue_p(unsigned ports = 1, unsigned dw = 256) {
  sue::RxParams p;
  p.num_ports = ports, p.data_w = dw;
  return p;
}
sue::RxParams lite_p() {
  sue::RxParams p;
  p.profile = 1, p.max_pack = 1024, p.rx_buf_beats = 64;
  return p;
}

// One model, fed by per-port MAC feeders without gaps, with the outputs of every cycle kept.
struct H {
  sue::RxParams p;
  sue::RxModel m;
  sue::RxCfg cfg;
  sue::RxIn in;
  uint64_t cyc = 0;  // edges so far; outputs after edge n are "cycle n+1" (docs/sue.md numbering)
  std::vector<rxstim::Feeder> feed;
  rxstim::Collector col;
  struct Ev {
    uint64_t cycle;
    sue::Feedback f;
  };
  std::vector<std::vector<Ev>> fb;
  struct Cmd {
    uint64_t cycle;  // cycle in which its first beat is on the XPU interface
    rxstim::XpuCmd c;
  };
  std::vector<Cmd> cmds;
  std::vector<uint64_t> eof_cycles;  // per port: cycles in which an eof beat was taken
  bool auto_credit = true;
  uint64_t first_beat_cycle = 0, cmd_start = 0;
  std::string xpu_err;

  explicit H(const sue::RxParams& pp, uint32_t credits = 8) : p(pp), m(pp), col(pp.db()), fb(pp.num_ports) {
    cfg = rxstim::default_cfg(p, credits);
    for (unsigned q = 0; q < p.num_ports; ++q) feed.emplace_back(100 + q, 0.0);
    reset();
  }
  void reset() {
    in = sue::RxIn{};
    in.cfg = cfg;
    in.rst_n = false;
    in.port_up = (1u << p.num_ports) - 1;
    m.tick(in);
    m.tick(in);
    in.rst_n = true;
    cyc = 0;
  }
  const sue::RxOut& o() const { return m.outputs(); }
  void send(unsigned q, Bytes b, bool err = false, unsigned bad_nbytes = 0) {
    rxstim::TxFrame f;
    f.bytes = std::move(b);
    f.err = err;
    f.bad_nbytes = bad_nbytes;
    feed[q].push(std::move(f));
  }
  void push(unsigned q, rxstim::TxFrame f) { feed[q].push(std::move(f)); }
  void step() {
    const sue::RxOut before = m.outputs();
    for (unsigned q = 0; q < p.num_ports; ++q) in.mac[q] = feed[q].beat();
    in.rx_credit = 0;
    if (auto_credit)
      for (unsigned v = 0; v < 4; ++v)
        if (before.cred[v] < cfg.rx_credits[v]) in.rx_credit |= 1u << v;
    m.tick(in);
    ++cyc;
    for (unsigned q = 0; q < p.num_ports; ++q) {
      bool taken = in.mac[q].valid && ((before.mac_rx_ready >> q) & 1) && ((in.port_up >> q) & 1) &&
                   !((before.port_dead >> q) & 1);
      bool was_eof;
      feed[q].after_edge(taken, &was_eof);
      if (taken && in.mac[q].eof) eof_cycles.push_back(cyc - 1);
      if (taken && in.mac[q].sof && !first_beat_cycle) first_beat_cycle = cyc - 1;
      if (o().fb[q].valid) fb[q].push_back({cyc, o().fb[q]});
    }
    rxstim::XpuCmd c;
    if (o().rx_valid && o().rx_cycle == 0) cmd_start = cyc;
    if (col.feed(o(), c, xpu_err)) cmds.push_back({cmd_start, c});
  }
  void run(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) step();
  }
  // until every feeder is idle and the unpacker has nothing left (or a limit)
  void drain(uint64_t limit = 20000) {
    for (uint64_t i = 0; i < limit; ++i) {
      bool idle = !col.active() && o().rx_valid == 0;
      for (unsigned q = 0; q < p.num_ports; ++q) idle = idle && feed[q].idle() && o().rec_count[q] == 0;
      if (idle && i > 2) return;
      step();
    }
  }
  uint64_t cnt(unsigned k) const { return o().cnt[k]; }
  unsigned conn(unsigned port, unsigned peer, unsigned vc) const { return (port * p.num_xpus + peer) * 4 + vc; }
  // a good frame from peer i on VC v (SUE: data PDU with this PSN)
  sue::Frame frame(unsigned i, unsigned v, uint16_t psn, std::vector<Bytes> cmds) const {
    sue::Frame f = rxstim::base_frame(p, cfg, i, v);
    f.rh.npsn = psn;
    f.cmds = std::move(cmds);
    return f;
  }
};

Bytes cmd(unsigned dlen, uint8_t seed = 1) {
  core::Rng r(seed, "cmd");
  return rxstim::make_cmd(r, dlen);
}

// A SUE frame built by hand (for what sue::encode refuses): AFH Gen2 12-byte header, RH, the given op
// headers and command bytes, R-CRC, pad to 60.
Bytes raw_sue(const H& h, unsigned peer, unsigned vc, uint16_t psn, const std::vector<Bytes>& cmds) {
  Bytes b = {0x02, 0, 0, 0, static_cast<uint8_t>(h.cfg.own_xpuid >> 8), static_cast<uint8_t>(h.cfg.own_xpuid),
             static_cast<uint8_t>(vc << 4 | 2), 0, 0, 0, static_cast<uint8_t>(peer >> 8),
             static_cast<uint8_t>(peer), 0x88, 0xb6};
  const uint32_t x = peer;
  b.push_back(static_cast<uint8_t>(x >> 8));
  b.push_back(static_cast<uint8_t>(x));
  b.push_back(static_cast<uint8_t>(psn >> 8));
  b.push_back(static_cast<uint8_t>(psn));
  b.push_back(static_cast<uint8_t>(vc << 6 | h.cfg.partition >> 8));
  b.push_back(static_cast<uint8_t>(h.cfg.partition));
  b.push_back(0);
  b.push_back(0);
  for (size_t i = 0; i < cmds.size(); ++i) {
    uint16_t hd = static_cast<uint16_t>((i + 1 == cmds.size() ? 0x8000 : 0) | cmds[i].size());
    b.push_back(static_cast<uint8_t>(hd >> 8));
    b.push_back(static_cast<uint8_t>(hd));
    b.insert(b.end(), cmds[i].begin(), cmds[i].end());
  }
  uint32_t c = sue::rcrc32(b.data() + 14, b.size() - 14);
  for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<uint8_t>(c >> s));
  if (b.size() < 60) b.resize(60, 0);
  return b;
}

// ---------------------------------------------------------------- parameters

TEST(SueRxModel, ParamsValidated) {
  EXPECT_EQ(sue_p().validate(), "");
  EXPECT_EQ(lite_p().validate(), "");
  struct Bad {
    std::function<void(sue::RxParams&)> f;
    const char* name;
  };
  std::vector<Bad> bad = {
      {[](sue::RxParams& p) { p.profile = 2; }, "Profile="},
      {[](sue::RxParams& p) { p.num_ports = 3; }, "NumPorts="},
      {[](sue::RxParams& p) { p.num_xpus = 1; }, "NumXpus="},
      {[](sue::RxParams& p) { p.num_xpus = 1025; }, "NumXpus="},
      {[](sue::RxParams& p) { p.data_w = 64; }, "DataW="},
      {[](sue::RxParams& p) { p.data_w = 2048; }, "DataW="},
      {[](sue::RxParams& p) { p.data_w = 1024, p.max_data = 2049; }, "MaxData="},
      {[](sue::RxParams& p) { p.max_pack = 4097; }, "MaxPack="},
      {[](sue::RxParams& p) { p.profile = 1, p.max_pack = 2048; }, "MaxPack="},
      {[](sue::RxParams& p) { p.max_data = 0; }, "MaxData="},
      {[](sue::RxParams& p) { p.data_w = 128, p.max_data = 257; }, "MaxData="},
      {[](sue::RxParams& p) { p.qdepth = 6; }, "QDepth="},
      {[](sue::RxParams& p) { p.window = 6; }, "Window="},
      {[](sue::RxParams& p) { p.rx_buf_beats = 100; }, "RxBufBeats="},
      {[](sue::RxParams& p) { p.rx_buf_beats = 128; }, "RxBufBeats="},  // 128 < MaxFrameBeats 129
      {[](sue::RxParams& p) { p.rx_frames = 0; }, "RxFrames="},
      {[](sue::RxParams& p) { p.rx_frames = 65; }, "RxFrames="},
      {[](sue::RxParams& p) { p.cnt_w = 15; }, "CntW="},
  };
  for (auto& b : bad) {
    sue::RxParams p = sue_p();
    b.f(p);
    std::string e = p.validate();
    EXPECT_EQ(e.rfind(b.name, 0), 0u) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos);
    EXPECT_NE(e.find("allowed"), std::string::npos) << e;
    EXPECT_THROW(sue::RxModel m(p), std::invalid_argument);
  }
  EXPECT_EQ(sue_p().max_frame_beats(), 129u);
  EXPECT_EQ(lite_p().max_frame_beats(), 33u);
  sue::RxParams w = sue_p(4, 1024);  // DB 128: MaxData up to 2048, 6 rows read per edge (4 up to DB 64)
  w.max_data = 2048;
  EXPECT_EQ(w.validate(), "");
  EXPECT_EQ(w.read_rows(), 6u);
  EXPECT_EQ(w.accr(), 20u + 128u + 192u);
  for (unsigned dw : {128u, 256u, 512u}) EXPECT_EQ(sue_p(1, dw).read_rows(), 4u) << dw;
}

TEST(SueRxModel, ResetState) {
  H h(sue_p(2));
  const sue::RxOut& o = h.o();
  EXPECT_EQ(o.mac_rx_ready, 0u);  // 0 in reset
  for (unsigned v = 0; v < 4; ++v) EXPECT_EQ(o.cred[v], 8u);
  for (unsigned c = 0; c < h.p.nc(); ++c) EXPECT_EQ(h.m.conn_exp(c), 0u);
  EXPECT_EQ(o.dbg_exp, 0u);
  h.step();
  EXPECT_EQ(h.o().mac_rx_ready, 3u);  // ready from the first edge after reset
}

// ---------------------------------------------------------------- the worked example of docs/sue.md

TEST(SueRxModel, WorkedExampleToTheCycle) {
  sue::RxParams p = sue_p();
  H h(p);
  // the far node of the example: own XPU 2, the peer XPU 1
  h.cfg.own_xpuid = 2;
  h.cfg.partition = 0;
  h.reset();
  Bytes a(18, 0), b(18 + 32, 0);
  a[0] = 0x01, a[17] = 0xaa;
  b[0] = 0x02, b[1] = 0x02, b[17] = 0xbb;
  for (unsigned j = 0; j < 32; ++j) b[18 + j] = static_cast<uint8_t>(j);
  sue::Frame f = h.frame(1, 0, 0, {a, b});
  Bytes w = rxstim::wire(f);
  ASSERT_EQ(w.size(), 98u);
  h.step();  // ready rises
  const uint64_t u = h.cyc;
  h.send(0, w);
  h.run(12);
  ASSERT_EQ(h.eof_cycles.size(), 1u);
  EXPECT_EQ(h.eof_cycles[0], u + 3);
  ASSERT_EQ(h.fb[0].size(), 1u);
  EXPECT_EQ(h.fb[0][0].cycle, u + 4);  // verdict at edge u+3, visible in cycle u+4
  EXPECT_EQ(h.fb[0][0].f.owe, sue::kOweAck);
  EXPECT_EQ(h.fb[0][0].f.owe_psn, 0u);
  ASSERT_EQ(h.cmds.size(), 2u);
  EXPECT_EQ(h.cmds[0].cycle, u + 8);  // A
  EXPECT_EQ(h.cmds[0].c.bytes, a);
  EXPECT_EQ(h.cmds[1].cycle, u + 9);  // B, one beat, ends the frame and frees its 4 rows
  EXPECT_EQ(h.cmds[1].c.bytes, b);
  EXPECT_EQ(h.cmds[1].c.xpuid, 1u);
  EXPECT_EQ(h.o().buf_rows[0], 0u);
  EXPECT_EQ(h.o().rec_count[0], 0u);
  EXPECT_EQ(h.cnt(RxCnt::pdus_ok), 1u);
  EXPECT_EQ(h.cnt(RxCnt::cmds_out), 2u);
  EXPECT_EQ(h.cnt(RxCnt::bytes_in), 98u);
  EXPECT_EQ(h.cnt(RxCnt::frames_in), 1u);
  EXPECT_EQ(h.m.conn_exp(h.conn(0, 1, 0)), 1u);
  EXPECT_TRUE(h.xpu_err.empty()) << h.xpu_err;
}

// eof taken in cycle e -> first command on the XPU interface in cycle e+5 (zero load), for every first
// beat up to 20 + DB bytes: 84 at DB 64 (the first four rows hold 106 bytes of ops after the RH), 148 at
// DB 128 (DataW 1024 reads six rows, 170 bytes of ops)
TEST(SueRxModel, PipelineLatencyFiveCycles) {
  for (unsigned dw : {256u, 512u, 1024u}) {
    for (unsigned dlen : {0u, 22u, 23u, 64u, 86u, 87u, 128u, 129u, 256u}) {
      H h(sue_p(dw >= 512 ? 4 : 1, dw));
      h.step();
      h.send(0, rxstim::wire(h.frame(1, 2, 0, {cmd(dlen), cmd(8)})));
      h.drain();
      ASSERT_EQ(h.cmds.size(), 2u);
      EXPECT_EQ(h.cmds[0].cycle, h.eof_cycles[0] + 5) << dw << " " << dlen;
    }
  }
}

// ---------------------------------------------------------------- accept, NACK, DUP, piggyback

TEST(SueRxModel, AcceptAheadOneNackPerGapDuplicate) {
  H h(sue_p());
  h.step();
  const unsigned c = h.conn(0, 1, 3);
  auto data = [&](uint16_t psn, uint8_t op, uint16_t apsn) {
    sue::Frame f = h.frame(1, 3, psn, {cmd(4, static_cast<uint8_t>(psn))});
    f.rh.op = op, f.rh.apsn = apsn;
    h.send(0, rxstim::wire(f));
    h.drain();
    return h.fb[0].back().f;
  };
  sue::Feedback f = data(0, 1, 77);
  EXPECT_EQ(f.owe, sue::kOweAck);
  EXPECT_EQ(f.owe_psn, 0u);
  EXPECT_EQ(f.rop, 1u);
  EXPECT_EQ(f.rapsn, 77u);
  EXPECT_EQ(f.peer, 1u);
  EXPECT_EQ(f.vc, 3u);
  EXPECT_EQ(h.m.conn_exp(c), 1u);
  // a gap: 2, 3, 4 are ahead of exp 1: one NACK(1), then nothing owed
  f = data(2, 2, 5);
  EXPECT_EQ(f.owe, sue::kOweNack);
  EXPECT_EQ(f.owe_psn, 1u);
  EXPECT_EQ(f.rop, 2u);
  EXPECT_EQ(f.rapsn, 5u);
  EXPECT_EQ(uint32_t(h.m.conn_nacked(c)), 1u);
  // the debug read port shows the connection memory one word at a time, after the edge
  h.in.dbg_conn = c;
  h.step();
  EXPECT_EQ(h.o().dbg_exp, 1u);
  EXPECT_TRUE(h.o().dbg_nacked);
  h.in.dbg_conn = h.conn(0, 1, 2);  // never written: reads 0
  h.step();
  EXPECT_EQ(h.o().dbg_exp, 0u);
  EXPECT_FALSE(h.o().dbg_nacked);
  h.in.dbg_conn = c + 1024;  // only clog2(NC) bits of dbg_conn_i exist: c again
  h.step();
  EXPECT_EQ(h.o().dbg_exp, 1u);
  h.in.dbg_conn = 0;
  f = data(3, 0, 0);
  EXPECT_TRUE(f.valid);
  EXPECT_EQ(f.owe, sue::kOweNone);
  f = data(4, 0, 0);
  EXPECT_EQ(f.owe, sue::kOweNone);
  EXPECT_EQ(h.cnt(RxCnt::drop_psn), 3u);
  EXPECT_EQ(h.cnt(RxCnt::nack_owed), 1u);
  // the expected PSN arrives: accepted, the gap closes
  f = data(1, 0, 0);
  EXPECT_EQ(f.owe, sue::kOweAck);
  EXPECT_EQ(f.owe_psn, 1u);
  EXPECT_EQ(uint32_t(h.m.conn_nacked(c)), 0u);
  EXPECT_EQ(h.m.conn_exp(c), 2u);
  // a new gap: a new NACK
  f = data(3, 0, 0);
  EXPECT_EQ(f.owe, sue::kOweNack);
  EXPECT_EQ(f.owe_psn, 2u);
  EXPECT_EQ(h.cnt(RxCnt::nack_owed), 2u);
  // duplicates (behind): re-ACK exp-1, counted
  f = data(0, 0, 0);
  EXPECT_EQ(f.owe, sue::kOweDup);
  EXPECT_EQ(f.owe_psn, 1u);
  f = data(static_cast<uint16_t>(2 - 0x8000), 0, 0);  // exactly 2^15 behind counts as behind
  EXPECT_EQ(f.owe, sue::kOweDup);
  EXPECT_EQ(h.cnt(RxCnt::drop_dup), 2u);
  f = data(static_cast<uint16_t>(2 + 0x7fff), 0, 0);  // 2^15-1 ahead: ahead, inside the NACKed gap
  EXPECT_EQ(f.owe, sue::kOweNone);
  EXPECT_EQ(h.cnt(RxCnt::drop_psn), 5u);
  EXPECT_EQ(h.cnt(RxCnt::pdus_ok), 2u);
  // only accepted PDUs reached the XPU
  EXPECT_EQ(h.cmds.size(), 2u);
  // other connections untouched
  for (unsigned x = 0; x < h.p.nc(); ++x)
    if (x != c) {
      EXPECT_EQ(h.m.conn_exp(x), 0u);
    }
}

TEST(SueRxModel, AckOnlyFrame) {
  H h(sue_p());
  h.step();
  sue::Frame f = h.frame(2, 1, 999, {});
  f.rh.op = 2, f.rh.apsn = 0x1234;
  h.send(0, rxstim::wire(f));
  h.drain();
  ASSERT_EQ(h.fb[0].size(), 1u);
  sue::Feedback e = h.fb[0][0].f;
  EXPECT_EQ(e.owe, 0u);
  EXPECT_EQ(e.rop, 2u);
  EXPECT_EQ(e.rapsn, 0x1234u);
  EXPECT_EQ(e.peer, 2u);
  EXPECT_EQ(e.vc, 1u);
  EXPECT_EQ(e.fo, 0u);
  EXPECT_EQ(h.cnt(RxCnt::ack_frames), 1u);
  EXPECT_EQ(h.m.conn_exp(h.conn(0, 2, 1)), 0u);  // npsn of an ACK-only frame is not consumed
  EXPECT_EQ(h.o().rec_count[0], 0u);
  EXPECT_TRUE(h.cmds.empty());
}

TEST(SueRxModel, FeedbackIsOneCyclePulseAndFieldsHold) {
  H h(sue_p());
  h.step();
  sue::Frame f = h.frame(1, 2, 0, {cmd(0)});
  f.rh.op = 1, f.rh.apsn = 9;
  h.send(0, rxstim::wire(f));
  h.drain();
  ASSERT_EQ(h.fb[0].size(), 1u);
  const sue::Feedback& now = h.o().fb[0];
  EXPECT_FALSE(now.valid);
  EXPECT_EQ(now.peer, 1u);  // the fields hold
  EXPECT_EQ(now.owe, sue::kOweAck);
  EXPECT_EQ(now.rapsn, 9u);
}

// ---------------------------------------------------------------- drops, each counter, priorities

TEST(SueRxModel, MacErrorFirst) {
  H h(sue_p());
  h.step();
  Bytes w = rxstim::wire(h.frame(0, 0, 0, {cmd(8)}));
  w.resize(w.size() - 3);  // malformed too, but the MAC error wins
  h.send(0, w, true);
  h.drain();
  EXPECT_EQ(h.cnt(RxCnt::drop_mac), 1u);
  EXPECT_EQ(h.cnt(RxCnt::drop_malformed), 0u);
  EXPECT_TRUE(h.fb[0].empty());
  EXPECT_EQ(h.o().buf_rows[0], 0u);
}

TEST(SueRxModel, MalformedCases) {
  sue::RxParams p = sue_p();
  H h(p);
  h.step();
  std::vector<std::pair<std::string, rxstim::TxFrame>> cases;
  auto good = [&] { return rxstim::wire(h.frame(0, 0, 0, {cmd(8), cmd(30)})); };
  auto add = [&](std::string n, Bytes b, unsigned bad_nb = 0) {
    rxstim::TxFrame f;
    f.bytes = std::move(b);
    f.bad_nbytes = bad_nb;
    cases.emplace_back(std::move(n), std::move(f));
  };
  { Bytes b = good(); b.pop_back(); add("one byte short", b); }
  { Bytes b = good(); b.push_back(0); add("one byte long", b); }
  { Bytes b = rxstim::wire(h.frame(0, 0, 0, {cmd(0)})); b.resize(59); add("runt below 60 with pad", b); }
  { Bytes b = rxstim::wire(h.frame(0, 0, 0, {cmd(0)})); b.push_back(0); add("pad beyond 60", b); }
  { Bytes b = good(); b[22] |= 0x40; add("op reserved bit 14", b); }
  { Bytes b = good(); b[22] |= 0x10; add("op reserved bit 12", b); }
  { Bytes b = good(); b[22] = 0x00, b[23] = 17; add("length 17", b); }
  { Bytes b = good(); b[22] = 0x01, b[23] = 19; add("length 18+MaxData+1", b); }
  { Bytes b = good(); b[22 + 28] = 0x00; add("no LAST: the walk runs off the frame", b); }
  { Bytes b = good(); add("eof nbytes 33", b, 33); }
  { Bytes b = good(); add("eof nbytes 63", b, 63); }
  { Bytes b(32 * 130, 0); Bytes g = good(); std::copy(g.begin(), g.end(), b.begin()); add("130 beats", b); }
  {  // second op header 0x8000: the empty PDU only as the first header
    Bytes b = raw_sue(h, 0, 0, 0, {cmd(0)});
    b[22] = 0x00;  // first op not LAST
    Bytes t(b.begin(), b.begin() + 42);
    t.push_back(0x80), t.push_back(0x00);
    uint32_t c = sue::rcrc32(t.data() + 14, t.size() - 14);
    for (int s = 24; s >= 0; s -= 8) t.push_back(static_cast<uint8_t>(c >> s));
    t.resize(60, 0);
    add("0x8000 after a command", t);
  }
  {  // packed bytes MaxPack+2 (within MaxFrameBeats): 14 x 276 + 234 = 4098
    std::vector<Bytes> cs(14, cmd(256));
    cs.push_back(cmd(214));
    Bytes b = raw_sue(h, 0, 0, 0, cs);
    ASSERT_LE(b.size(), 129u * 32);
    add("packed MaxPack+2", b);
  }
  for (auto& [name, f] : cases) {
    uint64_t before = h.cnt(RxCnt::drop_malformed);
    h.push(0, f);
    h.drain();
    EXPECT_EQ(h.cnt(RxCnt::drop_malformed), before + 1) << name;
    EXPECT_EQ(h.o().buf_rows[0], 0u) << name;
  }
  EXPECT_TRUE(h.fb[0].empty());
  EXPECT_EQ(h.cnt(RxCnt::frames_in), cases.size());
  // exactly MaxPack packed bytes is fine: 14 x 276 + 232 = 4096
  std::vector<Bytes> cs(14, cmd(256));
  cs.push_back(cmd(212));
  h.send(0, raw_sue(h, 0, 0, 0, cs));
  h.drain();
  EXPECT_EQ(h.cnt(RxCnt::pdus_ok), 1u);
  EXPECT_EQ(h.cmds.size(), 15u);
}

TEST(SueRxModel, SofCutsAFrame) {
  H h(sue_p());
  h.step();
  rxstim::TxFrame cut;
  cut.bytes = rxstim::wire(h.frame(0, 0, 0, {cmd(100)}));
  cut.abandon_after = 2;
  h.push(0, cut);
  h.send(0, rxstim::wire(h.frame(0, 0, 0, {cmd(5)})));
  h.drain();
  EXPECT_EQ(h.cnt(RxCnt::drop_malformed), 1u);
  EXPECT_EQ(h.cnt(RxCnt::pdus_ok), 1u);
  EXPECT_EQ(h.cnt(RxCnt::frames_in), 1u);
  ASSERT_EQ(h.cmds.size(), 1u);
  EXPECT_EQ(h.cmds[0].c.bytes, cmd(5));
}

TEST(SueRxModel, StrayBeats) {
  H h(sue_p());
  h.step();
  rxstim::TxFrame s;
  s.stray = true;
  s.bytes.assign(64, 0x11);
  h.push(0, s);
  h.drain();
  EXPECT_EQ(h.cnt(RxCnt::stray_beats), 2u);
  EXPECT_EQ(h.cnt(RxCnt::frames_in), 0u);
  EXPECT_EQ(h.cnt(RxCnt::bytes_in), 0u);
}

TEST(SueRxModel, RcrcAfterMalformedBeforeHeader) {
  H h(sue_p());
  h.step();
  Bytes b = rxstim::wire(h.frame(0, 0, 0, {cmd(8)}));
  b[30] ^= 0x01;  // a control byte
  h.send(0, b);
  Bytes r = rxstim::wire(h.frame(0, 0, 0, {cmd(8)}));
  r[22 + 28] ^= 0x80;  // the R-CRC itself
  h.send(0, r);
  sue::Frame f = h.frame(0, 0, 0, {cmd(8)});
  f.rh.partition ^= 1;
  Bytes hb = rxstim::wire(f);
  hb[22 + 28 + 3] ^= 1;  // bad header and bad R-CRC: R-CRC first
  h.send(0, hb);
  h.drain();
  EXPECT_EQ(h.cnt(RxCnt::drop_rcrc), 3u);
  EXPECT_EQ(h.cnt(RxCnt::drop_hdr), 0u);
  EXPECT_TRUE(h.fb[0].empty());
}

TEST(SueRxModel, EachHeaderField) {
  sue::RxParams p = sue_p(2);
  H h(p);
  h.step();
  using Edit = std::function<void(sue::Frame&)>;
  std::vector<std::pair<std::string, Edit>> enc = {
      {"M", [](sue::Frame& f) { f.afh2.m = 1; }},
      {"V", [](sue::Frame& f) { f.afh2.v = 1; }},
      {"destination", [&](sue::Frame& f) { f.afh2.dst_xpu = h.cfg.own_xpuid + 1; }},
      {"destination high bits", [&](sue::Frame& f) { f.afh2.dst_xpu = h.cfg.own_xpuid | 0x400; }},
      {"T[3:2]", [](sue::Frame& f) { f.afh2.tc = 4; }},
      {"source not in table", [](sue::Frame& f) { f.afh2.src_xpu = f.rh.xpuid = 0x3ff; }},
      {"source high bits", [](sue::Frame& f) { f.afh2.src_xpu |= 0x100000; }},
      {"ver", [](sue::Frame& f) { f.rh.ver = 1; }},
      {"op 3", [](sue::Frame& f) { f.rh.op = 3; }},
      {"xpuid != source", [](sue::Frame& f) { f.rh.xpuid ^= 2; }},
      {"vc != T", [](sue::Frame& f) { f.rh.vc = 1; }},
      {"partition", [](sue::Frame& f) { f.rh.partition ^= 0x200; }},
      {"FO bit on data", [](sue::Frame& f) { f.rh.rsvd = 8; }},
      {"FO with op NACK", [](sue::Frame& f) { f.cmds.clear(), f.rh.rsvd = 8, f.rh.op = 2; }},
      {"FO with rsvd[2]", [](sue::Frame& f) { f.cmds.clear(), f.rh.rsvd = 0xc; }},
      {"FO about port 2 of 2", [](sue::Frame& f) { f.cmds.clear(), f.rh.rsvd = 0xa; }},
  };
  unsigned n = 0;
  for (auto& [name, e] : enc) {
    sue::Frame f = h.frame(0, 0, 0, {cmd(3)});
    e(f);
    Bytes b = rxstim::wire(f);
    ASSERT_FALSE(b.empty()) << name;
    h.send(0, b);
    h.drain();
    EXPECT_EQ(h.cnt(RxCnt::drop_hdr), ++n) << name;
  }
  // bytes the library will not build wrong: patched (outside the R-CRC)
  std::vector<std::pair<std::string, std::pair<unsigned, uint8_t>>> patch = {
      {"byte 0 spare bits", {0, 0x42}}, {"byte 0 W", {0, 0x22}}, {"SA low nibble", {6, 0x03}},
      {"Ethertype", {13, 0xb5}}, {"destination byte 2", {2, 0x01}}};
  for (auto& [name, pv] : patch) {
    Bytes b = rxstim::wire(h.frame(0, 0, 0, {cmd(3)}));
    b[pv.first] = pv.second;
    h.send(0, b);
    h.drain();
    EXPECT_EQ(h.cnt(RxCnt::drop_hdr), ++n) << name;
  }
  EXPECT_TRUE(h.fb[0].empty());
  EXPECT_EQ(h.cnt(RxCnt::pdus_ok), 0u);
  // the own id as a source is just an unknown source; `rsv` and `rsvd[2:0]` of data PDUs are not checked
  sue::Frame f = h.frame(0, 0, 0, {cmd(3)});
  f.rh.rsv = 3, f.rh.rsvd = 7;
  f.afh2.entropy = 0xee, f.afh2.hop_count = 0x77;
  h.send(0, rxstim::wire(f));
  h.drain();
  EXPECT_EQ(h.cnt(RxCnt::pdus_ok), 1u);
}

// No peer table: the source XPU id is the peer index. A frame from id x < NumXpus (not the own id) lands on
// connection {port, x, VC} and its feedback names x; from the own id or an id >= NumXpus it is a header drop.
TEST(SueRxModel, SourceXpuIdIsThePeerIndex) {
  sue::RxParams p = sue_p();
  H h(p);
  h.cfg.own_xpuid = 4;
  h.reset();
  h.step();
  h.send(0, rxstim::wire(h.frame(3, 0, 0, {cmd(1)})));
  h.drain();
  ASSERT_EQ(h.fb[0].size(), 1u);
  EXPECT_EQ(h.fb[0][0].f.peer, 3u);
  EXPECT_EQ(h.m.conn_exp(h.conn(0, 3, 0)), 1u);
  ASSERT_EQ(h.cmds.size(), 1u);
  EXPECT_EQ(h.cmds[0].c.xpuid, 3u);
  for (unsigned bad : {4u, p.num_xpus, 1023u}) {  // own, the first id out of range, the last id
    const uint64_t before = h.cnt(RxCnt::drop_hdr);
    h.send(0, rxstim::wire(rxstim::base_frame(p, h.cfg, bad, 0)));
    h.drain();
    EXPECT_EQ(h.cnt(RxCnt::drop_hdr), before + 1) << bad;
  }
  EXPECT_EQ(h.fb[0].size(), 1u);
  EXPECT_EQ(h.cnt(RxCnt::pdus_ok), 1u);
}

// ---------------------------------------------------------------- failover

TEST(SueRxModel, FoReqAnsweredOnlyWhenDeadAndDrainedFoAck) {
  sue::RxParams p = sue_p(2);
  H h(p);
  h.step();
  // three PDUs accepted on port 1 from peer 2, VC 1: exp = 3
  for (uint16_t s = 0; s < 3; ++s) h.send(1, rxstim::wire(h.frame(2, 1, s, {cmd(40)})));
  h.drain();
  ASSERT_EQ(h.m.conn_exp(h.conn(1, 2, 1)), 3u);
  auto fo_req = [&] {
    h.send(0, rxstim::wire(rxstim::fo_frame(p, h.cfg, 2, 1, 1, false, 0)));
    for (int i = 0; i < 5; ++i) h.step();
  };
  // port 1 still up here: deferred
  fo_req();
  EXPECT_EQ(h.cnt(RxCnt::fo_req_deferred), 1u);
  EXPECT_TRUE(h.fb[0].empty());
  // a PDU committed on port 1, the XPU holds credits, then port 1 dies: still deferred
  h.auto_credit = false;
  for (uint16_t s = 3; s < 12; ++s) h.send(1, rxstim::wire(h.frame(2, 1, s, {cmd(0)})));
  h.run(40);
  ASSERT_GT(h.o().rec_count[1], 0u);
  h.in.port_up = 1;
  h.step();
  EXPECT_EQ(h.o().port_dead, 2u);
  EXPECT_EQ(h.o().mac_rx_ready & 2, 0u);
  fo_req();
  EXPECT_EQ(h.cnt(RxCnt::fo_req_deferred), 2u);
  EXPECT_TRUE(h.fb[0].empty());
  // the XPU drains: the answer is exp-1 of connection (1, 2, 1), repeated for every request
  h.auto_credit = true;
  h.drain();
  const uint32_t exp = h.m.conn_exp(h.conn(1, 2, 1));
  EXPECT_EQ(exp, 12u);
  fo_req();
  fo_req();
  ASSERT_EQ(h.fb[0].size(), 2u);
  for (auto& ev : h.fb[0]) {
    EXPECT_EQ(ev.f.fo, sue::kFoReq);
    EXPECT_EQ(ev.f.fo_port, 1u);
    EXPECT_EQ(ev.f.owe_psn, exp - 1);
    EXPECT_EQ(ev.f.peer, 2u);
    EXPECT_EQ(ev.f.vc, 1u);
    EXPECT_EQ(ev.f.owe, 0u);
    EXPECT_EQ(ev.f.rop, 0u);
  }
  EXPECT_EQ(h.cnt(RxCnt::fo_frames), 4u);
  // FO-ACK: fb_fo=2, the answer in fb_rapsn
  h.send(0, rxstim::wire(rxstim::fo_frame(p, h.cfg, 3, 2, 1, true, 0xabcd)));
  h.drain();
  ASSERT_EQ(h.fb[0].size(), 3u);
  EXPECT_EQ(h.fb[0][2].f.fo, sue::kFoAck);
  EXPECT_EQ(h.fb[0][2].f.fo_port, 1u);
  EXPECT_EQ(h.fb[0][2].f.rapsn, 0xabcdu);
  EXPECT_EQ(h.fb[0][2].f.rop, 0u);
  EXPECT_EQ(h.cnt(RxCnt::fo_frames), 5u);
  // every PDU accepted before the death was delivered
  EXPECT_EQ(h.cmds.size(), 12u);
}

TEST(SueRxModel, DeathDropsTheFrameInProgressKeepsCommitted) {
  H h(sue_p());
  h.step();
  h.auto_credit = false;
  h.cfg.rx_credits = {1, 1, 1, 1};
  h.reset();
  h.step();
  h.send(0, rxstim::wire(h.frame(0, 0, 0, {cmd(0)})));
  h.send(0, rxstim::wire(h.frame(0, 0, 1, {cmd(0)})));
  h.send(0, rxstim::wire(h.frame(0, 0, 2, {cmd(200)})));
  h.run(9);  // the first delivered (one credit), the second committed, the third in progress
  ASSERT_EQ(h.o().rec_count[0], 1u);
  h.in.port_up = 0;
  h.step();
  EXPECT_EQ(h.cnt(RxCnt::drop_dead), 1u);
  EXPECT_EQ(h.o().port_dead, 1u);
  EXPECT_EQ(h.o().mac_rx_ready, 0u);
  h.in.port_up = 1;  // back up: stays dead until reset
  h.auto_credit = true;
  h.feed[0].clear();
  h.drain();
  EXPECT_EQ(h.o().port_dead, 1u);
  EXPECT_EQ(h.cmds.size(), 2u);
  EXPECT_TRUE(h.fb[0].size() == 2u);
}

// ---------------------------------------------------------------- Lite

TEST(SueRxModel, LiteByteOrderAndNoTransport) {
  sue::RxParams p = lite_p();
  p.num_xpus = 1024;
  H h(p);
  h.step();
  // the golden frame of docs/sue.md: dst 0x0102, src 0x0304, tc 5 (T[3:2]=1: a header drop), so use tc 1
  h.cfg.own_xpuid = 0x102;
  h.reset();
  h.step();
  Bytes c0 = cmd(0, 3), c1 = cmd(40, 4), c2 = cmd(256, 5);
  sue::Frame f = h.frame(0x304, 1, 0, {c0, c1, c2});  // the peer is XPU 0x304 (NumXpus 1024 here)
  Bytes w = rxstim::wire(f);
  EXPECT_EQ(w[0], 0x22);
  EXPECT_EQ(w[1], 0x00);  // payload byte 0 = op header hi
  EXPECT_EQ(w[2], 18);    // payload byte 1 = op header lo (length 18)
  h.send(0, w);
  sue::Frame t5 = f;
  t5.afh2.tc = 5;
  h.send(0, rxstim::wire(t5));
  h.drain();
  EXPECT_EQ(h.cnt(RxCnt::lite_ok), 1u);
  EXPECT_EQ(h.cnt(RxCnt::drop_hdr), 1u);
  ASSERT_EQ(h.cmds.size(), 3u);
  EXPECT_EQ(h.cmds[0].c.bytes, c0);
  EXPECT_EQ(h.cmds[1].c.bytes, c1);
  EXPECT_EQ(h.cmds[2].c.bytes, c2);
  EXPECT_EQ(h.cmds[0].c.xpuid, 0x304u & 0x3ff);
  EXPECT_EQ(h.cmds[0].c.vc, 1u);
  for (unsigned c = 0; c < h.p.nc(); ++c) EXPECT_EQ(h.m.conn_exp(c), 0u);
  EXPECT_TRUE(h.fb[0].empty());
  // the empty PDU 80 00 is malformed in Lite (built by hand: hdr6 | 80 00, permuted, padded)
  Bytes e = {0x22, 0x80, 0x00, 0x00, 0x01, 0x02, 0x12, 0, 0, 0, 0x03, 0x04};
  e.resize(60, 0);
  h.send(0, e);
  h.drain();
  EXPECT_EQ(h.cnt(RxCnt::drop_malformed), 1u);
  EXPECT_EQ(h.cnt(RxCnt::pdus_ok) + h.cnt(RxCnt::ack_frames) + h.cnt(RxCnt::fo_frames), 0u);
}

// ---------------------------------------------------------------- unpacker, credits, ready

TEST(SueRxModel, UnpackerBeatsAndCycles) {
  for (unsigned dw : {128u, 256u, 512u, 1024u}) {
    sue::RxParams p = sue_p(1, dw);
    H h(p);
    h.step();
    const unsigned db = dw / 8;
    std::vector<Bytes> cs = {cmd(0), cmd(db), cmd(db + 1), cmd(256), cmd(1)};
    h.send(0, rxstim::wire(h.frame(0, 0, 0, cs)));
    h.drain();
    ASSERT_EQ(h.cmds.size(), cs.size()) << dw;
    for (size_t i = 0; i < cs.size(); ++i) EXPECT_EQ(h.cmds[i].c.bytes, cs[i]) << dw << " " << i;
    EXPECT_TRUE(h.xpu_err.empty()) << h.xpu_err;
  }
}

TEST(SueRxModel, CreditsHoldTheUnpackerAndOverReturnIsAnError) {
  H h(sue_p(), 2);
  h.auto_credit = false;
  h.step();
  h.send(0, rxstim::wire(h.frame(0, 2, 0, {cmd(0), cmd(0), cmd(0)})));
  h.run(30);
  EXPECT_EQ(h.cmds.size(), 2u);  // two credits on VC 2
  EXPECT_EQ(h.o().cred[2], 0u);
  EXPECT_EQ(h.o().cred[0], 2u);
  h.in.rx_credit = 0;
  h.auto_credit = true;
  h.drain();
  EXPECT_EQ(h.cmds.size(), 3u);
  EXPECT_EQ(h.o().cred[2], 2u);
  EXPECT_FALSE(h.o().err_credit);
  // a return with every credit home: ignored, err_credit sticky
  h.auto_credit = false;
  sue::RxIn in = h.in;
  in.rx_credit = 4;
  h.m.tick(in);
  EXPECT_TRUE(h.o().err_credit);
  EXPECT_EQ(h.o().cred[2], 2u);
  in.rx_credit = 0;
  h.m.tick(in);
  EXPECT_TRUE(h.o().err_credit);
}

TEST(SueRxModel, ReadyFallsOnRecordsAndRows) {
  sue::RxParams p = sue_p();
  p.rx_frames = 2;
  H h(p, 1);
  h.auto_credit = false;
  h.step();
  for (uint16_t s = 0; s < 4; ++s) h.send(0, rxstim::wire(h.frame(0, 0, s, {cmd(0)})));
  h.run(40);
  // one command out (1 credit), its frame still open: 2 records, ready low
  EXPECT_EQ(h.o().rec_count[0], 2u);
  EXPECT_EQ(h.o().mac_rx_ready, 0u);
  EXPECT_EQ(h.cnt(RxCnt::pdus_ok), 3u);  // the first was delivered and freed its record
  h.auto_credit = true;
  h.drain();
  EXPECT_EQ(h.cnt(RxCnt::pdus_ok), 4u);
  EXPECT_EQ(h.o().mac_rx_ready, 1u);
  // rows: RxBufBeats 256, 2-row frames with 4 records max -> records bind first; big frames bind rows
  sue::RxParams q = sue_p();
  q.rx_buf_beats = 256;
  q.rx_frames = 64;
  H g(q, 1);
  g.auto_credit = false;
  g.step();
  for (uint16_t s = 0; s < 4; ++s) {
    std::vector<Bytes> cs(14, cmd(256, static_cast<uint8_t>(s)));  // 122 rows each
    g.send(0, rxstim::wire(g.frame(0, 0, s, cs)));
  }
  g.run(600);
  EXPECT_EQ(g.o().mac_rx_ready, 0u);
  EXPECT_LE(g.o().buf_rows[0], 256u);
  EXPECT_GE(g.o().buf_rows[0], 255u);
  g.auto_credit = true;
  g.drain();
  EXPECT_EQ(g.cnt(RxCnt::pdus_ok), 4u);
  EXPECT_EQ(g.cmds.size(), 56u);
}

TEST(SueRxModel, PsnWrapsAt65536) {
  H h(sue_p());
  h.step();
  const unsigned c = h.conn(0, 0, 0);
  Bytes small = cmd(0);
  for (uint32_t s = 0; s < 65540; ++s) {
    h.send(0, rxstim::wire(h.frame(0, 0, static_cast<uint16_t>(s), {small})));
    if (h.feed[0].queued() > 4) h.run(8);
  }
  h.drain(100000);
  EXPECT_EQ(h.cnt(RxCnt::pdus_ok), 65540u);
  EXPECT_EQ(h.m.conn_exp(c), 4u);
  EXPECT_EQ(h.cnt(RxCnt::drop_psn) + h.cnt(RxCnt::drop_dup), 0u);
}

TEST(SueRxModel, ResetClearsAndResamplesCfg) {
  H h(sue_p());
  h.step();
  h.send(0, rxstim::wire(h.frame(0, 0, 0, {cmd(256)})));
  h.run(4);
  h.cfg.partition = 7;
  h.cfg.rx_credits = {3, 3, 3, 3};
  h.feed[0].clear();
  h.reset();
  EXPECT_EQ(h.o().buf_rows[0], 0u);
  EXPECT_EQ(h.cnt(RxCnt::frames_in), 0u);
  EXPECT_EQ(h.o().cred[1], 3u);
  h.step();
  h.send(0, rxstim::wire(h.frame(0, 0, 0, {cmd(1)})));
  h.drain();
  EXPECT_EQ(h.cnt(RxCnt::pdus_ok), 1u);  // partition 7 accepted now
}

// ---------------------------------------------------------------- the random scenario, model alone

struct ModelOnly {
  sue::RxModel m;
  sue::RxIn in;
  void drive(const sue::RxIn& i) { in = i; }
  void posedge() { m.tick(in); }
  sue::RxOut outputs() const { return m.outputs(); }
};

TEST(SueRxModel, RandomScenarioMatchesReference) {
  struct V {
    sue::RxParams p;
    uint64_t seed;
  };
  std::vector<V> vs = {{sue_p(1), 11}, {sue_p(2, 512), 12}, {sue_p(4, 512), 13}, {lite_p(), 14}, {sue_p(1, 128), 15},
                       {sue_p(4, 1024), 16}, {sue_p(2, 1024), 17}};
  for (auto& v : vs) {
    ModelOnly mo{sue::RxModel(v.p), {}};
    rxstim::Knobs k;
    k.cycles = 30000;
    rxstim::Outcome r = rxstim::run_scenario(mo, v.p, v.seed, k, [](uint64_t) { return true; });
    std::string all;
    for (auto& e : r.errors) all += e + "\n";
    EXPECT_TRUE(r.errors.empty()) << "ports " << v.p.num_ports << " profile " << v.p.profile << "\n" << all;
    EXPECT_GT(r.cmds_checked, 500u);
  }
}

// ---------------------------------------------------------------- line rate

struct ModelBlock {
  sue::RxModel m;
  sue::RxIn in;
  void drive(const sue::RxIn& i) { in = i; }
  void posedge() { m.tick(in); }
  const sue::RxOut& outputs() const { return m.outputs(); }
};

// Back-to-back one-command frames on every port at one MAC beat per cycle: the unpacker keeps up
// with what the ports offer, up to a beat every cycle on the XPU interface (s4/s2: 4 x 200G / 2 x 400G
// at DataW 512 need it; s1/lite: the ports bind). At DataW 1024 (DB 128) the reads bind first: 6 rows
// of one frame per edge (4 would give s4 0.667 XPU beats a cycle for 256-byte commands against 0.8). The old unpacker (one row per cycle, a pick cycle
// per frame), measured with this stimulus: s4 0.167 / 0.250 / 0.333 beats per cycle for 64 / 128 /
// 256 bytes, s1 0.333 / 0.500 / 0.667 against the 0.5 / 0.667 / 0.8 its port offers.
TEST(SueRxModel, LineRateEveryPortBeatEveryCycle) {
  struct Cfg {
    const char* name;
    sue::RxParams p;
  };
  sue::RxParams s2 = sue_p(2, 512), s4 = sue_p(4, 512), s1 = sue_p(1, 256), lite = lite_p();
  sue::RxParams s2w = sue_p(2, 1024), s4w = sue_p(4, 1024);
  for (const Cfg& c : {Cfg{"s1", s1}, Cfg{"s2", s2}, Cfg{"s4", s4}, Cfg{"lite", lite}, Cfg{"s2 DataW 1024", s2w},
                       Cfg{"s4 DataW 1024", s4w}}) {
    for (unsigned dlen : {64u, 128u, 256u}) {
      ModelBlock b{sue::RxModel(c.p), {}};
      rxstim::LineRate r = rxstim::run_linerate(b, c.p, dlen, 2000, 6000);
      EXPECT_TRUE(r.error.empty()) << c.name << " " << dlen << ": " << r.error;
      EXPECT_TRUE(b.m.assertion().empty()) << b.m.assertion();
      EXPECT_GE(r.util, r.need - 0.005) << c.name << " dlen " << dlen << ": " << r.beats_out << " XPU beats in "
                                         << r.window << " cycles, the ports offer " << r.offered << " a cycle";
      if (r.offered >= 1) EXPECT_GE(r.util, 0.995) << c.name << " " << dlen;  // output-bound: a beat every cycle
      EXPECT_GT(r.cmds, 500u);
      std::printf("  %s dlen %u: %.4f XPU beats/cycle (ports offer %.3f)\n", c.name, dlen, r.util, r.offered);
      if (c.p.data_w == 1024) EXPECT_GT(r.cmds, 1000u) << c.name << " " << dlen;
    }
  }
}

}  // namespace
