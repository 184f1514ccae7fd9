// Unit tests of the cycle-exact LLR model (models/llr), per docs/llr.md.
// Every expectation below is a concrete value derived by hand from the
// document ("One rising edge", steps 1-8). Edges are numbered from 1 after
// the reset edge(s); "after edge k" means Model::outputs() once tick() has
// run k times with rst_n = 1.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "llr/llr.hpp"

namespace {

using llr::Cfg;
using llr::In;
using llr::Model;
using llr::Out;
using llr::Params;

// ------------------------------------------------------------ single model bench
// Drives one Model; every helper performs exactly one edge.
struct Bench {
  Model m;
  Cfg cfg;
  explicit Bench(const Params& p = Params{}, const Cfg& c = Cfg{}) : m(p), cfg(c) {}

  void reset(int edges = 1) {
    In in;
    in.rst_n = false;
    in.cfg = cfg;
    for (int i = 0; i < edges; ++i) m.tick(in);
  }
  In idle() const {
    In in;
    in.rst_n = true;
    in.cfg = cfg;
    in.w_ready = true;
    return in;
  }
  Out edge(const In& in) {
    m.tick(in);
    return m.outputs();
  }
  Out edge() { return edge(idle()); }
  static In ctl(In in, uint32_t type, uint32_t seq, bool ok = true) {
    in.r_valid = true;
    in.r_is_ctl = true;
    in.r_ok = ok;
    in.r_ctl_type = type;
    in.r_ctl_seq = seq;
    return in;
  }
  Out ctl_edge(uint32_t type, uint32_t seq, bool ok = true) { return edge(ctl(idle(), type, seq, ok)); }
  static In frame(In in, bool eligible, uint32_t seq, uint32_t len, uint64_t token, bool ok = true,
                  bool replay = false, uint32_t cls = 0) {
    in.r_valid = true;
    in.r_is_ctl = false;
    in.r_ok = ok;
    in.r_eligible = eligible;
    in.r_replay = replay;
    in.r_seq = seq;
    in.r_len = len;
    in.r_token = token;
    in.r_class = cls;
    return in;
  }
  Out frame_edge(bool eligible, uint32_t seq, uint32_t len, uint64_t token, bool ok = true, bool replay = false) {
    return edge(frame(idle(), eligible, seq, len, token, ok, replay));
  }
  // Reset, then INIT (edge 1) and INIT_ECHO received (edge 2): ADVANCE after edge 2.
  void to_advance() {
    reset();
    edge();
    const Out o = ctl_edge(llr::kInitEcho, 0);
    ASSERT_EQ(o.tx_state, llr::kAdvance);
    ASSERT_TRUE(o.c_ready);
  }
  // Offers one eligible frame: taken at the first edge (c_ready must be 1),
  // loaded on the wire at the second. Returns the outputs after the second edge.
  Out send(uint32_t len, uint64_t token, bool eligible = true, uint32_t cls = 0) {
    In in = idle();
    in.c_valid = true;
    in.c_eligible = eligible;
    in.c_len = len;
    in.c_token = token;
    in.c_class = cls;
    EXPECT_TRUE(m.outputs().c_ready);
    edge(in);
    return edge();
  }
};

uint32_t C(const Out& o, llr::Counter c) { return o.cnt[c]; }

// ------------------------------------------------------------ two partners
struct Frame {
  bool eligible = true;
  uint32_t cls = 0, len = 64;
  uint64_t token = 0;
};

struct Delivery {
  uint64_t edge;
  bool eligible;
  uint32_t len, cls;
  uint64_t token;
  uint32_t rx_state;  // of the receiver after the delivering edge
};

enum class Fault { kNone, kDrop, kCorrupt };

// A.w_* -> queue of `delay` edges -> B.r_* and back. An item taken by the wire
// at edge k (w_valid && w_ready) is presented on the partner's r_* for edge
// k + delay. One item per edge in each direction.
struct Pair {
  Model m[2];
  Cfg cfg[2];
  int delay;
  uint64_t edge = 0;
  struct InFlight {
    uint64_t due;  // the edge at which the partner sees it on r_*
    Out w;         // the wire register as it was taken
    bool ok;       // false: corrupted (r_ok = 0)
  };
  std::deque<InFlight> link[2];  // link[i]: from side i to side 1-i
  std::deque<Frame> src[2];
  std::vector<Out> sent[2];  // items taken by the wire from side i (before faults), if record
  std::vector<uint64_t> sent_edge[2];
  std::vector<Delivery> got[2];
  bool record = true;
  std::function<Fault(int side, const Out& w, uint64_t edge)> fault;
  std::function<bool(int side, uint64_t edge)> w_ready;
  std::function<uint32_t(int side, uint64_t edge)> pause;
  std::function<void(int side, const In& in, const Out& before)> on_tick;  // observer

  explicit Pair(const Params& p = Params{}, const Cfg& ca = Cfg{}, const Cfg& cb = Cfg{}, int d = 3)
      : m{Model(p), Model(p)}, cfg{ca, cb}, delay(d) {
    In in;
    in.rst_n = false;
    for (int i = 0; i < 2; ++i) {
      in.cfg = cfg[i];
      m[i].tick(in);
    }
  }
  Out out(int i) const { return m[i].outputs(); }
  uint32_t cnt(int i, llr::Counter c) const { return m[i].outputs().cnt[c]; }

  void step() {
    ++edge;
    In in[2];
    for (int i = 0; i < 2; ++i) {
      in[i].rst_n = true;
      in[i].cfg = cfg[i];
      if (!src[i].empty()) {
        const Frame& f = src[i].front();
        in[i].c_valid = true;
        in[i].c_eligible = f.eligible;
        in[i].c_class = f.cls;
        in[i].c_len = f.len;
        in[i].c_token = f.token;
      }
      in[i].pause = pause ? pause(i, edge) : 0u;
      in[i].w_ready = w_ready ? w_ready(i, edge) : true;
      auto& lq = link[1 - i];
      if (!lq.empty() && lq.front().due <= edge) {
        const Out& w = lq.front().w;
        in[i].r_valid = true;
        in[i].r_is_ctl = w.w_is_ctl;
        in[i].r_ok = lq.front().ok;
        in[i].r_eligible = w.w_eligible;
        in[i].r_replay = w.w_replay;
        in[i].r_seq = w.w_seq;
        in[i].r_len = w.w_len;
        in[i].r_token = w.w_token;
        in[i].r_class = w.w_class;
        in[i].r_ctl_type = w.w_ctl_type;
        in[i].r_ctl_seq = w.w_ctl_seq;
        lq.pop_front();
      }
    }
    for (int i = 0; i < 2; ++i) {
      const Out o = m[i].outputs();
      if (o.c_ready && in[i].c_valid) src[i].pop_front();
      if (o.w_valid && in[i].w_ready) {
        if (record) {
          sent[i].push_back(o);
          sent_edge[i].push_back(edge);
        }
        const Fault f = fault ? fault(i, o, edge) : Fault::kNone;
        if (f != Fault::kDrop) link[i].push_back(InFlight{edge + delay, o, f != Fault::kCorrupt});
      }
      if (on_tick) on_tick(i, in[i], o);
      m[i].tick(in[i]);
      const Out n = m[i].outputs();
      if (n.d_valid) got[i].push_back(Delivery{edge, n.d_eligible, n.d_len, n.d_class, n.d_token, n.rx_state});
    }
  }
  void run(uint64_t n) {
    for (uint64_t k = 0; k < n; ++k) step();
  }
  void run_to(uint64_t e) {
    while (edge < e) step();
  }
  // Frames side i sent on the wire (is_ctl == 0).
  std::vector<Out> frames(int i) const {
    std::vector<Out> v;
    for (const Out& o : sent[i])
      if (!o.w_is_ctl) v.push_back(o);
    return v;
  }
  std::vector<Out> ctls(int i, uint32_t type) const {
    std::vector<Out> v;
    for (const Out& o : sent[i])
      if (o.w_is_ctl && o.w_ctl_type == type) v.push_back(o);
    return v;
  }
  std::vector<uint64_t> tokens(int i) const {
    std::vector<uint64_t> v;
    for (const Delivery& d : got[i]) v.push_back(d.token);
    return v;
  }
};

void offer(Pair& pr, int side, unsigned n, uint32_t len = 64, uint64_t base = 0x100, bool eligible = true,
           uint32_t cls = 0) {
  for (unsigned k = 0; k < n; ++k) pr.src[side].push_back(Frame{eligible, cls, len, base + k});
}

std::vector<uint64_t> seq_tokens(uint64_t base, unsigned n) {
  std::vector<uint64_t> v;
  for (unsigned k = 0; k < n; ++k) v.push_back(base + k);
  return v;
}

// ============================================================ parameters and names

TEST(LlrModelParams, DefaultsValid) {
  EXPECT_EQ(Params{}.validate(), "");
  EXPECT_NO_THROW(Model(Params{}));
}

TEST(LlrModelParams, InvalidRejected) {
  Params p;
  p.seq_bits = 3;
  EXPECT_NE(p.validate(), "");
  EXPECT_THROW(Model{p}, std::invalid_argument);
  p = Params{};
  p.buf_log2 = 0;
  EXPECT_THROW(Model{p}, std::invalid_argument);
  p = Params{};
  p.cnt_width = 33;
  EXPECT_THROW(Model{p}, std::invalid_argument);
}

TEST(LlrModelParams, CounterNames) {
  EXPECT_STREQ(llr::counter_name(llr::tx_ok), "tx_ok");
  EXPECT_STREQ(llr::counter_name(llr::tx_discard), "tx_discard");
  EXPECT_STREQ(llr::counter_name(llr::rx_expected_seq_bad), "rx_expected_seq_bad");
  EXPECT_STREQ(llr::counter_name(llr::rx_bad_ctlos), "rx_bad_ctlos");
  EXPECT_STREQ(llr::counter_name(llr::kNumCounters), "?");
}

// ============================================================ reset and INIT

TEST(LlrModelReset, ResetValuesAndInitFirst) {
  Bench b;
  b.reset();
  Out o = b.m.outputs();
  EXPECT_EQ(o.tx_state, llr::kInit);
  EXPECT_EQ(o.rx_state, llr::kSendAcks);
  EXPECT_FALSE(o.c_ready);
  EXPECT_FALSE(o.w_valid);
  EXPECT_FALSE(o.d_valid);
  EXPECT_EQ(o.out_frames, 0u);
  EXPECT_EQ(o.out_bytes, 0u);
  EXPECT_FALSE(o.err_flush);
  for (unsigned i = 0; i < llr::kNumCounters; ++i) EXPECT_EQ(o.cnt[i], 0u) << llr::counter_name(i);

  // Edge 1: init_pend (reset value 1) loads INIT(0), counted when loaded.
  In in = b.idle();
  in.w_ready = false;
  o = b.edge(in);
  EXPECT_TRUE(o.w_valid);
  EXPECT_TRUE(o.w_is_ctl);
  EXPECT_EQ(o.w_ctl_type, llr::kInitCtl);
  EXPECT_EQ(o.w_ctl_seq, 0u);
  EXPECT_EQ(C(o, llr::tx_init_ctlos), 1u);
  EXPECT_FALSE(o.c_ready);  // no frames before the handshake
  // The wire does not take it: it holds, not counted again.
  o = b.edge(in);
  EXPECT_TRUE(o.w_valid);
  EXPECT_EQ(C(o, llr::tx_init_ctlos), 1u);
  // Taken at edge 3: the register is free and nothing is pending.
  o = b.edge();
  EXPECT_FALSE(o.w_valid);
  EXPECT_EQ(o.tx_state, llr::kInit);
}

TEST(LlrModelReset, InitRepeatedUntilEchoed) {
  Cfg c;
  c.replay_timer = 10;
  Bench b(Params{}, c);
  b.reset();
  // INIT timer: timer after edge k is k (k <= 9); at edge 10 timer_q + 1 == 10:
  // init_pend = 1, timer = 0; INIT loaded at edge 11, again at edge 21.
  Out o;
  for (int e = 1; e <= 21; ++e) {
    o = b.edge();
    const uint32_t expect = e < 11 ? 1u : (e < 21 ? 2u : 3u);
    ASSERT_EQ(C(o, llr::tx_init_ctlos), expect) << "edge " << e;
    ASSERT_EQ(o.w_valid, e == 1 || e == 11 || e == 21) << "edge " << e;
  }
  // INIT_ECHO: ADVANCE, c_ready; no frame in the edge that leaves INIT.
  o = b.ctl_edge(llr::kInitEcho, 0);
  EXPECT_EQ(o.tx_state, llr::kAdvance);
  EXPECT_TRUE(o.c_ready);
  EXPECT_EQ(C(o, llr::rx_init_echo_ctlos), 1u);
  // No more INITs after the echo.
  for (int e = 0; e < 30; ++e) o = b.edge();
  EXPECT_EQ(C(o, llr::tx_init_ctlos), 3u);
}

TEST(LlrModelReset, InitReceivedIsEchoedAndResetsRx) {
  Bench b;
  b.to_advance();  // edges 1 (INIT out), 2 (echo in)
  // Two eligible frames delivered: exp_seq = 2.
  b.frame_edge(true, 0, 10, 0xa);
  Out o = b.frame_edge(true, 1, 10, 0xb);
  EXPECT_EQ(C(o, llr::rx_ok), 2u);
  // INIT received: echo_pend; next edge loads INIT_ECHO(0).
  o = b.ctl_edge(llr::kInitCtl, 0);
  EXPECT_EQ(C(o, llr::rx_init_ctlos), 1u);
  EXPECT_FALSE(o.w_valid);
  o = b.edge();
  EXPECT_TRUE(o.w_valid);
  EXPECT_EQ(o.w_ctl_type, llr::kInitEcho);
  EXPECT_EQ(o.w_ctl_seq, 0u);
  EXPECT_EQ(C(o, llr::tx_init_echo_ctlos), 1u);
  // exp_seq is 0 again: seq 0 is expected, seq 2 is a gap of 2.
  o = b.frame_edge(true, 0, 10, 0xc);
  EXPECT_TRUE(o.d_valid);
  EXPECT_EQ(o.d_token, 0xcu);
  EXPECT_EQ(C(o, llr::rx_expected_seq_good), 3u);
  // The INIT also cleared unacked (2 frames): with spacing 4, 3 more frames
  // make the next ACK, which carries exp_seq 4.
  b.frame_edge(true, 1, 10, 0xd);
  b.frame_edge(true, 2, 10, 0xe);
  o = b.frame_edge(true, 3, 10, 0xf);
  EXPECT_EQ(C(o, llr::tx_ack_ctlos), 0u);
  o = b.edge();
  EXPECT_EQ(C(o, llr::tx_ack_ctlos), 1u);
  EXPECT_EQ(o.w_ctl_type, llr::kAck);
  EXPECT_EQ(o.w_ctl_seq, 4u);
}

TEST(LlrModelReset, ConfigSampledOnlyInReset) {
  Cfg c;
  c.frames_max = 2;
  Bench b(Params{}, c);
  b.to_advance();
  b.cfg.frames_max = 32;  // ignored: not in reset
  Out o = b.send(10, 1);
  o = b.send(10, 2);
  EXPECT_EQ(o.out_frames, 2u);
  In in = b.idle();
  in.c_valid = true;
  in.c_eligible = true;
  in.c_len = 10;
  b.edge(in);  // taken into hold
  for (int e = 0; e < 5; ++e) o = b.edge();
  EXPECT_FALSE(o.c_ready);  // stalled: frames_max is still 2
  EXPECT_EQ(C(o, llr::tx_ok), 2u);
}

TEST(LlrModelReset, ResetClearsEverything) {
  Bench b;
  b.to_advance();
  b.send(100, 1);
  b.frame_edge(true, 0, 10, 0xa);
  b.cfg.frames_max = 1;
  b.reset();
  Out o = b.m.outputs();
  EXPECT_EQ(o.tx_state, llr::kInit);
  EXPECT_FALSE(o.c_ready);
  EXPECT_FALSE(o.w_valid);
  EXPECT_EQ(o.out_frames, 0u);
  EXPECT_EQ(o.out_bytes, 0u);
  for (unsigned i = 0; i < llr::kNumCounters; ++i) EXPECT_EQ(o.cnt[i], 0u) << llr::counter_name(i);
  o = b.edge();
  EXPECT_EQ(o.w_ctl_type, llr::kInitCtl);
}

// ============================================================ single-model steps

TEST(LlrModelSteps, OneFrameEveryTwoEdges) {
  Bench b;
  b.to_advance();
  In in = b.idle();
  in.c_valid = true;
  in.c_eligible = true;
  in.c_len = 100;
  in.c_class = 5;
  in.c_token = 0x1234;
  Out o = b.edge(in);  // edge 3: taken into hold
  EXPECT_FALSE(o.c_ready);
  EXPECT_FALSE(o.w_valid);
  in.c_token = 0x5678;  // c_ready is low: not taken
  o = b.edge(in);       // edge 4: sent with seq 0
  EXPECT_TRUE(o.w_valid);
  EXPECT_FALSE(o.w_is_ctl);
  EXPECT_TRUE(o.w_eligible);
  EXPECT_FALSE(o.w_replay);
  EXPECT_EQ(o.w_seq, 0u);
  EXPECT_EQ(o.w_len, 100u);
  EXPECT_EQ(o.w_class, 5u);
  EXPECT_EQ(o.w_token, 0x1234u);
  EXPECT_EQ(o.out_frames, 1u);
  EXPECT_EQ(o.out_bytes, 100u);
  EXPECT_TRUE(o.c_ready);
  EXPECT_EQ(C(o, llr::tx_ok), 1u);
  o = b.edge(in);  // edge 5: second frame taken, first leaves the register
  EXPECT_FALSE(o.w_valid);
  o = b.edge();  // edge 6: sent with seq 1
  EXPECT_EQ(o.w_seq, 1u);
  EXPECT_EQ(o.w_token, 0x5678u);
  EXPECT_EQ(o.out_frames, 2u);
  EXPECT_EQ(o.out_bytes, 200u);
}

TEST(LlrModelSteps, AckWindowAndFreeOnePerEdge) {
  Bench b;
  b.to_advance();
  for (uint32_t k = 0; k < 4; ++k) b.send(10 + k, k);  // seq 0..3, lens 10..13
  Out o = b.m.outputs();
  ASSERT_EQ(o.out_frames, 4u);
  ASSERT_EQ(o.out_bytes, 46u);
  // ACK(5): dist 5 > dn 4: ignored. ACK(0): dist 0 == dt: ignored.
  o = b.ctl_edge(llr::kAck, 5);
  EXPECT_EQ(C(o, llr::rx_ack_ctlos), 1u);
  o = b.ctl_edge(llr::kAck, 0);
  EXPECT_EQ(o.out_frames, 4u);
  // ACK(3): accepted; freeing starts at the next edge (reads ack_target_q), one per edge.
  o = b.ctl_edge(llr::kAck, 3);
  EXPECT_EQ(o.out_frames, 4u);
  o = b.edge();
  EXPECT_EQ(o.out_frames, 3u);
  EXPECT_EQ(o.out_bytes, 36u);
  o = b.edge();
  EXPECT_EQ(o.out_frames, 2u);
  EXPECT_EQ(o.out_bytes, 25u);
  // ACK(2) is behind ack_target 3: ignored; the walk goes on to 3 and stops.
  o = b.ctl_edge(llr::kAck, 2);
  EXPECT_EQ(o.out_frames, 1u);
  EXPECT_EQ(o.out_bytes, 13u);
  o = b.edge();
  EXPECT_EQ(o.out_frames, 1u);
  // NACK(4) with dist(4) == dn: an ACK(4), no replay.
  o = b.ctl_edge(llr::kNack, 4);
  EXPECT_EQ(C(o, llr::rx_nack_ctlos), 1u);
  EXPECT_EQ(o.tx_state, llr::kAdvance);
  o = b.edge();
  EXPECT_EQ(o.out_frames, 0u);
  EXPECT_EQ(o.out_bytes, 0u);
  EXPECT_EQ(C(o, llr::tx_replay), 0u);
}

TEST(LlrModelSteps, NackReplaysFromE) {
  Bench b;
  b.to_advance();
  for (uint32_t k = 0; k < 4; ++k) b.send(10 + k, 0x100 + k);  // seq 0..3
  // NACK(1): progress (ack_target 1) and a replay event from 1; items 5/6 skipped this edge.
  Out o = b.ctl_edge(llr::kNack, 1);
  EXPECT_EQ(o.tx_state, llr::kReplay);
  EXPECT_FALSE(o.w_valid);
  EXPECT_TRUE(o.c_ready);  // ready in REPLAY too (hold empty)
  for (uint32_t s = 1; s < 4; ++s) {
    o = b.edge();
    EXPECT_TRUE(o.w_valid);
    EXPECT_TRUE(o.w_eligible);
    EXPECT_TRUE(o.w_replay);
    EXPECT_EQ(o.w_seq, s);
    EXPECT_EQ(o.w_len, 10 + s);
    EXPECT_EQ(o.w_token, 0x100u + s);
    EXPECT_EQ(C(o, llr::tx_replay), s);
    EXPECT_EQ(o.tx_state, s == 3 ? llr::kAdvance : llr::kReplay);
    // The freed frame 0 left at the first replay edge.
    EXPECT_EQ(o.out_frames, 3u);
  }
  EXPECT_EQ(C(o, llr::tx_ok), 4u);
  // Stale NACK(0) (dist 0 < dt 1): ignored.
  o = b.ctl_edge(llr::kNack, 0);
  EXPECT_EQ(o.tx_state, llr::kAdvance);
  EXPECT_FALSE(o.w_valid);
  // NACK(1) == ack_target, no progress: replay again from 1 (replay_cnt 2).
  o = b.ctl_edge(llr::kNack, 1);
  EXPECT_EQ(o.tx_state, llr::kReplay);
  o = b.edge();
  EXPECT_EQ(o.w_seq, 1u);
  EXPECT_EQ(C(o, llr::tx_replay), 4u);
}

TEST(LlrModelSteps, ReplayCountAndFlush) {
  Cfg c;
  c.replay_timer = 10;
  c.replay_count_max = 1;
  c.re_init = true;
  Bench b(Params{}, c);
  b.to_advance();  // after edge 2
  b.send(10, 1);   // edges 3, 4: seq 0 loaded at edge 4 (next_seq 1)
  b.send(20, 2);   // edges 5, 6: seq 1 at edge 6
  // Timer: frames unacknowledged from edge 5 (ack_target_q 0 != next_seq_q 1): timer after
  // edge 5 is 1, ..., at edge 14 timer_q 9: replay event from ack_target 0 (n = 1).
  Out o;
  for (int e = 7; e <= 13; ++e) {
    o = b.edge();
    ASSERT_EQ(o.tx_state, llr::kAdvance) << e;
  }
  o = b.edge();  // edge 14
  EXPECT_EQ(o.tx_state, llr::kReplay);
  EXPECT_FALSE(o.w_valid);
  o = b.edge();  // edge 15: seq 0 replayed
  EXPECT_EQ(o.w_seq, 0u);
  EXPECT_TRUE(o.w_replay);
  o = b.edge();  // edge 16: seq 1 replayed, back to ADVANCE
  EXPECT_EQ(o.w_seq, 1u);
  EXPECT_EQ(o.tx_state, llr::kAdvance);
  EXPECT_EQ(C(o, llr::tx_replay), 2u);
  // timer restarted at edge 14 (0); at edge 24 timer_q 9: n = 2 > 1: flush.
  for (int e = 17; e <= 23; ++e) o = b.edge();
  EXPECT_EQ(o.tx_state, llr::kAdvance);
  EXPECT_EQ(C(o, llr::tx_flush), 0u);
  o = b.edge();  // edge 24
  EXPECT_EQ(o.tx_state, llr::kFlush);
  EXPECT_EQ(C(o, llr::tx_flush), 1u);
  EXPECT_EQ(C(o, llr::tx_discard), 2u);
  EXPECT_TRUE(o.err_flush);
  EXPECT_EQ(o.out_frames, 0u);
  EXPECT_EQ(o.out_bytes, 0u);
  EXPECT_FALSE(o.c_ready);
  EXPECT_FALSE(o.w_valid);
  o = b.edge();  // edge 25: FLUSH -> INIT (re_init)
  EXPECT_EQ(o.tx_state, llr::kInit);
  EXPECT_FALSE(o.w_valid);
  o = b.edge();  // edge 26: INIT
  EXPECT_TRUE(o.w_valid);
  EXPECT_EQ(o.w_ctl_type, llr::kInitCtl);
  EXPECT_EQ(C(o, llr::tx_init_ctlos), 2u);
  EXPECT_TRUE(o.err_flush);  // sticky
  // Echo: ADVANCE with next_seq 0 again.
  b.ctl_edge(llr::kInitEcho, 0);
  o = b.send(5, 3);
  EXPECT_EQ(o.w_seq, 0u);
  EXPECT_EQ(o.out_frames, 1u);
  EXPECT_EQ(o.out_bytes, 5u);
}

TEST(LlrModelSteps, NoFrameInReplayEventEdge) {
  Bench b;
  b.to_advance();
  for (uint32_t k = 0; k < 4; ++k) b.send(10, 0x100 + k);  // seq 0..3, edges 3..10
  In in = b.idle();
  in.c_valid = true;
  in.c_eligible = true;
  in.c_len = 50;
  in.c_token = 0x104;
  Out o = b.edge(in);  // 11: fifth frame into hold
  EXPECT_FALSE(o.c_ready);
  // 12: the held frame could go, but NACK(1) makes a replay event: items 5 and 6 skipped.
  o = b.ctl_edge(llr::kNack, 1);
  EXPECT_FALSE(o.w_valid);
  EXPECT_EQ(o.tx_state, llr::kReplay);
  EXPECT_EQ(C(o, llr::tx_ok), 4u);
  o = b.edge();  // 13
  EXPECT_EQ(o.w_seq, 1u);
  o = b.edge();  // 14
  EXPECT_EQ(o.w_seq, 2u);
  EXPECT_EQ(o.tx_state, llr::kReplay);
  // 15: NACK(2) in REPLAY: replay event again, no replay item in this edge.
  o = b.ctl_edge(llr::kNack, 2);
  EXPECT_FALSE(o.w_valid);
  EXPECT_EQ(C(o, llr::tx_replay), 2u);
  o = b.edge();  // 16
  EXPECT_EQ(o.w_seq, 2u);
  o = b.edge();  // 17: seq 3, back to ADVANCE
  EXPECT_EQ(o.w_seq, 3u);
  EXPECT_EQ(o.tx_state, llr::kAdvance);
  o = b.edge();  // 18: the held frame, first transmission with seq 4
  EXPECT_TRUE(o.w_valid);
  EXPECT_FALSE(o.w_replay);
  EXPECT_EQ(o.w_seq, 4u);
  EXPECT_EQ(o.w_token, 0x104u);
  EXPECT_EQ(C(o, llr::tx_ok), 5u);
  EXPECT_EQ(C(o, llr::tx_replay), 4u);
  EXPECT_EQ(o.out_frames, 3u);  // ack_base 2 (freed at 13 and 16), next_seq 5
}

TEST(LlrModelSteps, FlushEdgeWithProgressAndFreeInProgress) {
  Cfg c;
  c.replay_count_max = 0;
  c.re_init = true;
  Bench b(Params{}, c);
  b.to_advance();
  for (uint32_t k = 0; k < 4; ++k) b.send(10 + k, 0x100 + k);  // seq 0..3, edges 3..10
  Out o = b.ctl_edge(llr::kAck, 2);  // 11: ack_target 2
  EXPECT_EQ(o.out_frames, 4u);
  In in = b.idle();
  in.c_valid = true;
  in.c_eligible = true;
  in.c_len = 7;
  in.c_token = 0x200;
  o = b.edge(in);  // 12: frame into hold; seq 0 freed (ack_base 1)
  EXPECT_EQ(o.out_frames, 3u);
  EXPECT_EQ(o.out_bytes, 36u);
  // 13: NACK(3): progress to 3 and a replay event; n = 1 > 0: flush. The walk
  // (ack_base 1 -> 2) does not happen, the held frame is not sent.
  o = b.ctl_edge(llr::kNack, 3);
  EXPECT_EQ(o.tx_state, llr::kFlush);
  EXPECT_EQ(C(o, llr::tx_flush), 1u);
  EXPECT_EQ(C(o, llr::tx_discard), 1u);  // dn 3 - dist(3) 2 (after progress)
  EXPECT_EQ(o.out_frames, 0u);
  EXPECT_EQ(o.out_bytes, 0u);
  EXPECT_FALSE(o.w_valid);
  EXPECT_EQ(C(o, llr::tx_ok), 4u);
  EXPECT_FALSE(o.c_ready);
  o = b.edge();  // 14: INIT state
  EXPECT_EQ(o.tx_state, llr::kInit);
  o = b.edge();  // 15: INIT
  EXPECT_EQ(o.w_ctl_type, llr::kInitCtl);
  o = b.ctl_edge(llr::kInitEcho, 0);  // 16: ADVANCE, nothing sent in this edge
  EXPECT_FALSE(o.w_valid);
  EXPECT_FALSE(o.c_ready);
  o = b.edge();  // 17: the frame held through the flush goes out with seq 0
  EXPECT_TRUE(o.w_valid);
  EXPECT_EQ(o.w_seq, 0u);
  EXPECT_EQ(o.w_token, 0x200u);
  EXPECT_EQ(o.out_frames, 1u);
  EXPECT_EQ(o.out_bytes, 7u);
}

TEST(LlrModelSteps, ProgressRestartsReplayCount) {
  Cfg c;
  c.replay_count_max = 1;
  Bench b(Params{}, c);
  b.to_advance();
  for (uint32_t k = 0; k < 4; ++k) b.send(10, k);  // edges 3..10
  Out o = b.ctl_edge(llr::kNack, 1);                // 11: progress, n = 1
  EXPECT_EQ(o.tx_state, llr::kReplay);
  for (int e = 12; e <= 14; ++e) o = b.edge();
  EXPECT_EQ(o.tx_state, llr::kAdvance);
  o = b.ctl_edge(llr::kNack, 2);  // 15: progress again: n = 0 + 1, no flush
  EXPECT_EQ(o.tx_state, llr::kReplay);
  EXPECT_EQ(C(o, llr::tx_flush), 0u);
  b.edge();
  b.edge();
  o = b.ctl_edge(llr::kNack, 2);  // 18: no progress: n = 2 > 1: flush
  EXPECT_EQ(o.tx_state, llr::kFlush);
  EXPECT_EQ(C(o, llr::tx_discard), 2u);
}

TEST(LlrModelSteps, AckProgressRestartsTimerAndReplayCount) {
  Cfg c;
  c.replay_count_max = 1;
  c.replay_timer = 20;
  Bench b(Params{}, c);
  b.to_advance();
  b.send(10, 0);  // seq 0 at 4
  b.send(10, 1);  // seq 1 at 6; unacknowledged from edge 5: timer_q 19 at edge 24
  Out o;
  for (int e = 7; e <= 23; ++e) o = b.edge();
  EXPECT_EQ(o.tx_state, llr::kAdvance);
  o = b.edge();  // 24: timer replay from 0, n = 1
  EXPECT_EQ(o.tx_state, llr::kReplay);
  b.edge();  // 25: seq 0
  b.edge();  // 26: seq 1
  o = b.ctl_edge(llr::kAck, 1);  // 27: progress: timer 0, replay_cnt 0
  EXPECT_EQ(o.tx_state, llr::kAdvance);
  // Timer from edge 28 (timer_q 0) fires at 47: n = 0 + 1: replay, no flush.
  for (int e = 28; e <= 46; ++e) o = b.edge();
  EXPECT_EQ(o.tx_state, llr::kAdvance);
  o = b.edge();  // 47
  EXPECT_EQ(o.tx_state, llr::kReplay);
  EXPECT_EQ(C(o, llr::tx_flush), 0u);
  o = b.edge();  // 48: seq 1 again
  EXPECT_EQ(o.w_seq, 1u);
  EXPECT_EQ(C(o, llr::tx_replay), 3u);
  for (int e = 49; e <= 66; ++e) o = b.edge();
  EXPECT_EQ(o.tx_state, llr::kAdvance);
  o = b.edge();  // 67: n = 2 > 1: flush
  EXPECT_EQ(o.tx_state, llr::kFlush);
  EXPECT_EQ(C(o, llr::tx_discard), 1u);
}

TEST(LlrModelSteps, RoomMeasuredFromAckBase) {
  Cfg c;
  c.frames_max = 4;
  Bench b(Params{}, c);
  b.to_advance();
  for (uint32_t k = 0; k < 4; ++k) b.send(10, k);  // edges 3..10: out_frames 4
  In in = Bench::ctl(b.idle(), llr::kAck, 4);
  in.c_valid = true;
  in.c_eligible = true;
  in.c_len = 10;
  in.c_token = 0x55;
  Out o = b.edge(in);  // 11: ACK(4) (ack_target 4) and a frame into hold
  EXPECT_EQ(o.out_frames, 4u);
  o = b.edge();  // 12: (4 - ack_base_q 0) + 1 > 4: waits; frees seq 0
  EXPECT_FALSE(o.w_valid);
  EXPECT_EQ(o.out_frames, 3u);
  o = b.edge();  // 13: (4 - 1) + 1 <= 4: sent with seq 4; frees seq 1
  EXPECT_TRUE(o.w_valid);
  EXPECT_EQ(o.w_seq, 4u);
  EXPECT_EQ(o.out_frames, 3u);
}

TEST(LlrModelSteps, EchoAndAcksIgnoredOutsideTheirStates) {
  Bench b;
  b.reset();
  // ACK and NACK in INIT: ignored (counted as received).
  Out o = b.ctl_edge(llr::kAck, 3);
  o = b.ctl_edge(llr::kNack, 0);
  EXPECT_EQ(o.tx_state, llr::kInit);
  EXPECT_EQ(C(o, llr::rx_ack_ctlos), 1u);
  EXPECT_EQ(C(o, llr::rx_nack_ctlos), 1u);
  o = b.ctl_edge(llr::kInitEcho, 0);
  EXPECT_EQ(o.tx_state, llr::kAdvance);
  b.send(10, 1);
  o = b.send(10, 2);
  EXPECT_EQ(o.out_frames, 2u);
  // INIT_ECHO in ADVANCE: ignored (nothing is reset).
  o = b.ctl_edge(llr::kInitEcho, 0);
  EXPECT_EQ(C(o, llr::rx_init_echo_ctlos), 2u);
  EXPECT_EQ(o.out_frames, 2u);
  EXPECT_EQ(o.out_bytes, 20u);
  o = b.send(10, 3);
  EXPECT_EQ(o.w_seq, 2u);
  EXPECT_EQ(o.out_frames, 3u);
}

TEST(LlrModelSteps, InitArrivingAsTheEchoIsLoaded) {
  Bench b;
  b.to_advance();  // the wire register is empty after edge 2
  Out o = b.ctl_edge(llr::kInitCtl, 0);  // 3: echo_pend
  EXPECT_FALSE(o.w_valid);
  // 4: a second INIT while step 6 loads the pending INIT_ECHO: step 6 (later) clears
  // echo_pend; the echo loaded in this edge answers both.
  o = b.ctl_edge(llr::kInitCtl, 0);
  EXPECT_EQ(o.w_ctl_type, llr::kInitEcho);
  EXPECT_EQ(C(o, llr::tx_init_echo_ctlos), 1u);
  o = b.edge();
  EXPECT_FALSE(o.w_valid);
  o = b.edge();
  EXPECT_EQ(C(o, llr::tx_init_echo_ctlos), 1u);
  EXPECT_EQ(C(o, llr::rx_init_ctlos), 2u);
}

TEST(LlrModelSteps, FlushWithoutReInitHolds) {
  Cfg c;
  c.replay_timer = 40;  // ack_idle_max 10
  c.replay_count_max = 0;
  c.re_init = false;
  Bench b(Params{}, c);
  b.to_advance();
  b.send(10, 1);  // seq 0 at edge 4, unacknowledged from edge 5: timer after edge k is k - 4
  Out o;
  for (int e = 5; e <= 43; ++e) {
    o = b.edge();
    ASSERT_EQ(o.tx_state, llr::kAdvance) << e;
  }
  o = b.edge();  // 44: timer_q 39 + 1 >= 40: replay event, n = 1 > 0: flush
  EXPECT_EQ(o.tx_state, llr::kFlush);
  EXPECT_EQ(C(o, llr::tx_discard), 1u);
  for (int e = 0; e < 50; ++e) o = b.edge();
  EXPECT_EQ(o.tx_state, llr::kFlush);
  EXPECT_FALSE(o.c_ready);
  EXPECT_EQ(C(o, llr::tx_init_ctlos), 1u);
  // The RX half still works and its control words go out.
  b.frame_edge(true, 0, 10, 0xa);
  b.frame_edge(true, 1, 10, 0xb);
  b.frame_edge(true, 2, 10, 0xc);
  o = b.frame_edge(true, 3, 10, 0xd);
  EXPECT_EQ(C(o, llr::rx_ok), 4u);
  o = b.edge();
  EXPECT_TRUE(o.w_valid);
  EXPECT_EQ(o.w_ctl_type, llr::kAck);
  EXPECT_EQ(o.w_ctl_seq, 4u);
  // ACK/NACK and INIT_ECHO events are ignored in FLUSH.
  o = b.ctl_edge(llr::kNack, 0);
  EXPECT_EQ(o.tx_state, llr::kFlush);
  o = b.ctl_edge(llr::kInitEcho, 0);
  EXPECT_EQ(o.tx_state, llr::kFlush);
  EXPECT_FALSE(o.c_ready);
}

TEST(LlrModelSteps, RxGapDuplicateAndBadCounters) {
  Bench b;
  b.to_advance();
  Out o = b.frame_edge(true, 0, 10, 0xa);
  EXPECT_TRUE(o.d_valid);
  EXPECT_TRUE(o.d_eligible);
  // Gap of 3 in SEND_ACKS: missing 3, SEND_NACK, NACK(1) next edge.
  o = b.frame_edge(true, 4, 10, 0xb);
  EXPECT_FALSE(o.d_valid);
  EXPECT_EQ(C(o, llr::rx_missing_seq), 3u);
  EXPECT_EQ(o.rx_state, llr::kSendNack);
  EXPECT_EQ(C(o, llr::rx_bad), 0u);
  // A further gap in the edge that loads the NACK: not SEND_ACKS, not counted.
  o = b.frame_edge(true, 5, 10, 0xc, false);
  EXPECT_TRUE(o.w_valid);
  EXPECT_EQ(o.w_ctl_type, llr::kNack);
  EXPECT_EQ(o.w_ctl_seq, 1u);
  EXPECT_EQ(o.rx_state, llr::kNackSent);
  EXPECT_EQ(C(o, llr::rx_missing_seq), 3u);
  EXPECT_EQ(C(o, llr::rx_bad), 1u);
  // Expected seq but bad FCS in NACK_SENT: counted, no new NACK.
  o = b.frame_edge(true, 1, 10, 0xd, false);
  EXPECT_EQ(C(o, llr::rx_expected_seq_bad), 1u);
  EXPECT_EQ(o.rx_state, llr::kNackSent);
  o = b.edge();
  EXPECT_FALSE(o.w_valid);
  EXPECT_EQ(C(o, llr::tx_nack_ctlos), 1u);
  // The expected frame arrives (replayed): delivered, SEND_ACKS.
  o = b.frame_edge(true, 1, 10, 0xe, true, true);
  EXPECT_TRUE(o.d_valid);
  EXPECT_EQ(o.d_token, 0xeu);
  EXPECT_EQ(o.rx_state, llr::kSendAcks);
  EXPECT_EQ(C(o, llr::rx_replay), 1u);
  // A duplicate (seq 0, behind 2): dropped, counted, ACK owed -> ACK(2) next edge.
  o = b.frame_edge(true, 0, 10, 0xf, true, true);
  EXPECT_FALSE(o.d_valid);
  EXPECT_EQ(C(o, llr::rx_duplicate_seq), 1u);
  o = b.edge();
  EXPECT_EQ(o.w_ctl_type, llr::kAck);
  EXPECT_EQ(o.w_ctl_seq, 2u);
  // Half a window ahead (2 + 2^19) is "behind": a duplicate.
  o = b.frame_edge(true, 2u + (1u << 19), 10, 0x10);
  EXPECT_EQ(C(o, llr::rx_duplicate_seq), 2u);
  EXPECT_EQ(C(o, llr::rx_missing_seq), 3u);
  // Expected seq with a bad FCS in SEND_ACKS: NACK(2).
  o = b.frame_edge(true, 2, 10, 0x11, false);
  EXPECT_EQ(C(o, llr::rx_expected_seq_bad), 2u);
  EXPECT_EQ(o.rx_state, llr::kSendNack);
  EXPECT_EQ(C(o, llr::rx_missing_seq), 3u);
  EXPECT_EQ(C(o, llr::rx_bad), 3u);
  EXPECT_EQ(C(o, llr::rx_ok), 2u);
  EXPECT_EQ(C(o, llr::rx_expected_seq_good), 2u);
}

TEST(LlrModelSteps, IneligibleDeliveredInEveryState) {
  Bench b;
  b.to_advance();
  b.frame_edge(true, 2, 10, 0xa);  // gap: SEND_NACK
  Out o = b.frame_edge(false, 77, 33, 0xb);
  EXPECT_EQ(o.rx_state, llr::kNackSent);
  EXPECT_TRUE(o.d_valid);
  EXPECT_FALSE(o.d_eligible);
  EXPECT_EQ(o.d_len, 33u);
  EXPECT_EQ(o.d_token, 0xbu);
  o = b.frame_edge(false, 0, 33, 0xc, false);  // bad FCS: dropped
  EXPECT_FALSE(o.d_valid);
  EXPECT_EQ(o.d_token, 0xbu);  // delivery fields hold
  EXPECT_EQ(C(o, llr::rx_bad), 1u);
  EXPECT_EQ(C(o, llr::rx_ok), 1u);
  EXPECT_EQ(C(o, llr::rx_expected_seq_good), 0u);
}

TEST(LlrModelSteps, ControlWordPriority) {
  Bench b;
  b.to_advance();
  // Block the wire, then make an echo, a NACK and an ACK pending together.
  In in = b.idle();
  in.w_ready = false;
  b.send(10, 1);  // a frame sits in the output register (w_valid 1)
  b.edge(Bench::frame(in, true, 0, 10, 0xa));
  b.edge(Bench::frame(in, true, 0, 10, 0xb));  // duplicate: ack_pend
  b.edge(Bench::frame(in, true, 3, 10, 0xc));  // gap: nack_pend
  b.edge(Bench::ctl(in, llr::kInitCtl, 0));     // INIT: echo_pend; clears ack/nack/exp_seq
  b.edge(Bench::frame(in, true, 1, 10, 0xd));  // gap from 0: nack_pend again
  b.edge(Bench::frame(in, true, 0, 10, 0xe));  // expected: nack_pend = 0 (answered)
  b.edge(Bench::frame(in, true, 0, 10, 0xf));  // duplicate: ack_pend
  Out o = b.m.outputs();
  EXPECT_EQ(o.w_seq, 0u);
  EXPECT_FALSE(o.w_is_ctl);
  EXPECT_EQ(o.rx_state, llr::kSendAcks);
  // The wire takes the frame: echo first, then ACK(1), then nothing.
  o = b.edge();
  EXPECT_EQ(o.w_ctl_type, llr::kInitEcho);
  o = b.edge();
  EXPECT_EQ(o.w_ctl_type, llr::kAck);
  EXPECT_EQ(o.w_ctl_seq, 1u);
  o = b.edge();
  EXPECT_FALSE(o.w_valid);
  EXPECT_EQ(C(o, llr::tx_nack_ctlos), 0u);
  EXPECT_EQ(C(o, llr::tx_ack_ctlos), 1u);
  EXPECT_EQ(C(o, llr::tx_init_echo_ctlos), 1u);
  EXPECT_EQ(C(o, llr::rx_missing_seq), 3u);  // 3 - 1 = 2, then 1 - 0 = 1
}

TEST(LlrModelSteps, NackBeforeAckAndNackSentWinsOverSendAcks) {
  Bench b;
  b.to_advance();
  b.frame_edge(true, 0, 10, 0xa);
  b.frame_edge(true, 0, 10, 0xb);  // duplicate: ack_pend; ACK(1) loaded next edge
  Out o = b.frame_edge(true, 2, 10, 0xc);  // ACK(1) loaded; gap: nack_pend
  EXPECT_EQ(o.w_ctl_type, llr::kAck);
  // NACK(1) loaded while the expected frame 1 arrives: delivered, but
  // rx_state = NACK_SENT (step 6 wins over step 3).
  o = b.frame_edge(true, 1, 10, 0xd);
  EXPECT_EQ(o.w_ctl_type, llr::kNack);
  EXPECT_EQ(o.w_ctl_seq, 1u);
  EXPECT_TRUE(o.d_valid);
  EXPECT_EQ(o.rx_state, llr::kNackSent);
}

TEST(LlrModelSteps, InputsMaskedToPortWidths) {
  Params p;
  p.seq_bits = 7;
  p.buf_log2 = 3;
  p.len_width = 8;
  p.class_width = 2;
  Cfg c;
  c.frames_max = 0x10 | 2;  // port is BufLog2+1 = 4 bits: 2
  c.ack_spacing = 0x10000 | 1;  // 16 bits: 1
  Bench b(p, c);
  b.to_advance();
  Out o = b.send(0x1ff, 0x77, true, 0x1e);  // len 8 bits: 0xff, class 2 bits: 2
  EXPECT_EQ(o.w_len, 0xffu);
  EXPECT_EQ(o.w_class, 2u);
  EXPECT_EQ(o.out_bytes, 0xffu);
  b.send(1, 0x78);
  In in = b.idle();
  in.c_valid = true;
  in.c_eligible = true;
  in.c_len = 1;
  b.edge(in);
  o = b.edge();
  EXPECT_EQ(C(o, llr::tx_ok), 2u);  // frames_max 2: stalled
  EXPECT_FALSE(o.c_ready);
  // r_seq 0x80 is seq 0 (7 bits); spacing 1: ACK(1) at the next edge.
  o = b.frame_edge(true, 0x80, 0x3ff, 0x9, true, false);
  EXPECT_TRUE(o.d_valid);
  EXPECT_EQ(o.d_len, 0xffu);
  o = b.edge(Bench::frame(b.idle(), true, 0x181, 5, 0xa, true, false, 0x7));
  EXPECT_TRUE(o.d_valid);
  EXPECT_EQ(o.d_class, 3u);
  EXPECT_EQ(o.w_ctl_type, llr::kAck);
  EXPECT_EQ(o.w_ctl_seq, 1u);
  // ACK carrying 0x82 is ACK(2): frees both frames and unblocks the client.
  o = b.ctl_edge(llr::kAck | 4u, 0x82);
  EXPECT_EQ(C(o, llr::rx_ack_ctlos), 1u);
  o = b.edge();
  o = b.edge();
  EXPECT_EQ(o.out_frames, 1u);  // frees 0, 1 then the held frame (seq 2) went out
  EXPECT_EQ(C(o, llr::tx_ok), 3u);
}

TEST(LlrModelSteps, PauseMaskedToClasses) {
  Params p;
  p.class_width = 1;  // 2 classes: pause is 2 bits
  Bench b(p);
  b.to_advance();
  In in = b.idle();
  in.pause = 0x4;  // bit 2 does not exist
  in.c_valid = true;
  in.c_eligible = true;
  in.c_class = 0;
  in.c_len = 10;
  b.edge(in);
  in.c_valid = false;
  Out o = b.edge(in);
  EXPECT_TRUE(o.w_valid);
  EXPECT_EQ(C(o, llr::tx_ok), 1u);
}

TEST(LlrModelSteps, CountersWrapAtCntWidth) {
  Params p;
  p.cnt_width = 8;
  Bench b(p);
  b.to_advance();
  Out o;
  for (int k = 0; k < 300; ++k) o = b.frame_edge(false, 0, 1, k);
  EXPECT_EQ(C(o, llr::rx_ok), 300u - 256u);
  // rx_missing_seq adds the gap modulo 2^8.
  o = b.frame_edge(true, 1000, 1, 0);
  EXPECT_EQ(C(o, llr::rx_missing_seq), 1000u % 256u);
}

TEST(LlrModelSteps, ZeroTimerAndSpacingBehaveAsOne) {
  Cfg c;
  c.replay_timer = 0;
  c.ack_spacing = 0;
  c.replay_count_max = 255;
  Bench b(Params{}, c);
  b.reset();
  // Timer max 1: every edge in INIT sets init_pend, but at edge 1 step 6 loads
  // INIT and clears it (later step wins); edge 2 sets it, edge 3 loads INIT, ...
  Out o = b.edge();
  EXPECT_EQ(C(o, llr::tx_init_ctlos), 1u);
  o = b.edge();
  EXPECT_EQ(C(o, llr::tx_init_ctlos), 1u);
  EXPECT_FALSE(o.w_valid);
  o = b.edge();
  EXPECT_EQ(C(o, llr::tx_init_ctlos), 2u);
  o = b.edge();
  o = b.edge();
  EXPECT_EQ(C(o, llr::tx_init_ctlos), 3u);
  o = b.ctl_edge(llr::kInitEcho, 0);
  EXPECT_EQ(o.tx_state, llr::kAdvance);
  // Spacing 1: every delivered frame makes an ACK.
  b.frame_edge(true, 0, 10, 1);
  o = b.edge();
  EXPECT_EQ(o.w_ctl_type, llr::kAck);
  EXPECT_EQ(o.w_ctl_seq, 1u);
}

// ============================================================ two partners

TEST(LlrModelPair, HandshakeReachesAdvance) {
  Pair pr;
  // INIT loaded at edge 1, taken at 2, received at 5; INIT_ECHO loaded at 6,
  // taken at 7, received at 10: ADVANCE after edge 10 on both sides.
  pr.run_to(9);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(pr.out(i).tx_state, llr::kInit);
    EXPECT_EQ(pr.cnt(i, llr::rx_init_ctlos), 1u);
    EXPECT_FALSE(pr.out(i).c_ready);
  }
  pr.step();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(pr.out(i).tx_state, llr::kAdvance);
    EXPECT_TRUE(pr.out(i).c_ready);
    EXPECT_EQ(pr.cnt(i, llr::tx_init_ctlos), 1u);
    EXPECT_EQ(pr.cnt(i, llr::tx_init_echo_ctlos), 1u);
    EXPECT_EQ(pr.cnt(i, llr::rx_init_echo_ctlos), 1u);
    ASSERT_EQ(pr.sent[i].size(), 2u);
    EXPECT_EQ(pr.sent[i][0].w_ctl_type, llr::kInitCtl);
    EXPECT_EQ(pr.sent_edge[i][0], 2u);
    EXPECT_EQ(pr.sent[i][1].w_ctl_type, llr::kInitEcho);
    EXPECT_EQ(pr.sent_edge[i][1], 7u);
  }
}

TEST(LlrModelPair, CleanTrafficFrameSpacing) {
  Pair pr;
  offer(pr, 0, 40, 100);
  pr.run(1000);
  EXPECT_EQ(pr.tokens(1), seq_tokens(0x100, 40));
  EXPECT_EQ(pr.cnt(0, llr::tx_ok), 40u);
  EXPECT_EQ(pr.cnt(1, llr::rx_ok), 40u);
  EXPECT_EQ(pr.cnt(1, llr::rx_expected_seq_good), 40u);
  // Frames arrive every second edge; spacing 4 frames: one ACK per 4 frames.
  EXPECT_EQ(pr.cnt(1, llr::tx_ack_ctlos), 10u);
  EXPECT_EQ(pr.cnt(0, llr::rx_ack_ctlos), 10u);
  const auto acks = pr.ctls(1, llr::kAck);
  ASSERT_EQ(acks.size(), 10u);
  for (unsigned k = 0; k < 10; ++k) EXPECT_EQ(acks[k].w_ctl_seq, 4 * (k + 1));
  EXPECT_EQ(pr.out(0).out_frames, 0u);
  EXPECT_EQ(pr.out(0).out_bytes, 0u);
  for (auto c : {llr::tx_replay, llr::tx_nack_ctlos, llr::tx_discard, llr::tx_flush, llr::tx_best_effort})
    EXPECT_EQ(pr.cnt(0, c), 0u) << llr::counter_name(c);
  for (auto c : {llr::rx_bad, llr::rx_missing_seq, llr::rx_duplicate_seq, llr::rx_replay, llr::rx_bad_ctlos,
                 llr::tx_nack_ctlos})
    EXPECT_EQ(pr.cnt(1, c), 0u) << llr::counter_name(c);
  // Frame k: loaded at edge 12 + 2k, on the wire at 13 + 2k, delivered at 16 + 2k, seq k.
  const auto fr = pr.frames(0);
  ASSERT_EQ(fr.size(), 40u);
  for (unsigned k = 0; k < 40; ++k) {
    EXPECT_EQ(fr[k].w_seq, k);
    EXPECT_EQ(pr.got[1][k].edge, 16u + 2 * k);
  }
}

TEST(LlrModelPair, CleanTrafficByteSpacing) {
  Cfg c;
  c.ack_bytes = true;
  c.ack_spacing = 1000;
  Pair pr(Params{}, c, c);
  offer(pr, 0, 40, 300);  // 300, 600, 900, 1200 >= 1000: one ACK per 4 frames
  pr.src[0].push_back(Frame{true, 0, 1000, 0x900});  // alone reaches the spacing
  pr.src[0].push_back(Frame{true, 0, 999, 0x901});
  pr.src[0].push_back(Frame{true, 0, 1, 0x902});  // 999 + 1
  pr.run(1000);
  EXPECT_EQ(pr.cnt(1, llr::rx_ok), 43u);
  EXPECT_EQ(pr.cnt(1, llr::tx_ack_ctlos), 12u);
  const auto acks = pr.ctls(1, llr::kAck);
  ASSERT_EQ(acks.size(), 12u);
  EXPECT_EQ(acks[9].w_ctl_seq, 40u);
  EXPECT_EQ(acks[10].w_ctl_seq, 41u);
  EXPECT_EQ(acks[11].w_ctl_seq, 43u);
  EXPECT_EQ(pr.out(0).out_frames, 0u);
}

TEST(LlrModelPair, AckIdleTimerAcknowledgesTail) {
  Pair pr;  // replay_timer 1000: ack_idle_max 250; spacing 4
  offer(pr, 0, 6, 50);
  // Frames 0..5 delivered at edges 16..26 (step 2). ACK(4) loaded at 23 (spacing).
  // Frame 4 at 24: unacked 1; ack_idle counts from edge 25 (1) to 274 (250);
  // at edge 275 ack_idle_q 250 >= 250: ack_pend; ACK(6) loaded at 276.
  pr.run_to(275);
  EXPECT_EQ(pr.cnt(1, llr::tx_ack_ctlos), 1u);
  pr.step();
  EXPECT_EQ(pr.cnt(1, llr::tx_ack_ctlos), 2u);
  EXPECT_EQ(pr.out(1).w_ctl_type, llr::kAck);
  EXPECT_EQ(pr.out(1).w_ctl_seq, 6u);
  // On the wire at 277, received by A at 280; freeing from 281, one per edge.
  pr.run_to(280);
  EXPECT_EQ(pr.cnt(0, llr::rx_ack_ctlos), 2u);
  EXPECT_EQ(pr.out(0).out_frames, 2u);
  EXPECT_EQ(pr.out(0).out_bytes, 100u);
  pr.step();
  EXPECT_EQ(pr.out(0).out_frames, 1u);
  pr.step();
  EXPECT_EQ(pr.out(0).out_frames, 0u);
  EXPECT_EQ(pr.out(0).out_bytes, 0u);
  pr.run(2000);
  EXPECT_EQ(pr.cnt(1, llr::tx_ack_ctlos), 2u);  // nothing else unacknowledged
  EXPECT_EQ(pr.cnt(0, llr::tx_replay), 0u);
}

TEST(LlrModelPair, OneDroppedFrame) {
  Pair pr;
  offer(pr, 0, 5, 64);
  bool dropped = false;
  pr.fault = [&](int side, const Out& w, uint64_t) {
    if (side == 0 && !w.w_is_ctl && w.w_seq == 1 && !w.w_replay && !dropped) {
      dropped = true;
      return Fault::kDrop;
    }
    return Fault::kNone;
  };
  pr.run(1500);
  EXPECT_TRUE(dropped);
  EXPECT_EQ(pr.tokens(1), seq_tokens(0x100, 5));
  // Frame 2 at edge 20 finds the gap: missing 1, NACK(1) loaded at 21, received by A at 25.
  EXPECT_EQ(pr.cnt(1, llr::rx_missing_seq), 1u);
  EXPECT_EQ(pr.cnt(1, llr::tx_nack_ctlos), 1u);
  EXPECT_EQ(pr.cnt(0, llr::rx_nack_ctlos), 1u);
  const auto nacks = pr.ctls(1, llr::kNack);
  ASSERT_EQ(nacks.size(), 1u);
  EXPECT_EQ(nacks[0].w_ctl_seq, 1u);
  // All 5 frames were out (last loaded at 20): replay of 1..4 at edges 26..29.
  EXPECT_EQ(pr.cnt(0, llr::tx_ok), 5u);
  EXPECT_EQ(pr.cnt(0, llr::tx_replay), 4u);
  const auto fr = pr.frames(0);
  ASSERT_EQ(fr.size(), 9u);
  for (unsigned k = 0; k < 4; ++k) {
    EXPECT_TRUE(fr[5 + k].w_replay);
    EXPECT_EQ(fr[5 + k].w_seq, 1 + k);
  }
  EXPECT_EQ(pr.cnt(1, llr::rx_replay), 4u);
  EXPECT_EQ(pr.cnt(1, llr::rx_ok), 5u);
  EXPECT_EQ(pr.cnt(1, llr::rx_expected_seq_good), 5u);
  EXPECT_EQ(pr.cnt(1, llr::rx_duplicate_seq), 0u);
  EXPECT_EQ(pr.cnt(1, llr::rx_bad), 0u);
  // ACK(4) by spacing (frames 0,1,2,3), ACK(5) by the idle timer.
  const auto acks = pr.ctls(1, llr::kAck);
  ASSERT_EQ(acks.size(), 2u);
  EXPECT_EQ(acks[0].w_ctl_seq, 4u);
  EXPECT_EQ(acks[1].w_ctl_seq, 5u);
  EXPECT_EQ(pr.out(0).out_frames, 0u);
  EXPECT_EQ(pr.out(1).rx_state, llr::kSendAcks);
  EXPECT_EQ(pr.out(0).tx_state, llr::kAdvance);
}

TEST(LlrModelPair, BurstOfDrops) {
  for (unsigned n : {1u, 3u, 7u}) {
    Pair pr;
    offer(pr, 0, 20, 64);
    pr.fault = [&](int side, const Out& w, uint64_t) {
      return (side == 0 && !w.w_is_ctl && !w.w_replay && w.w_seq >= 2 && w.w_seq < 2 + n) ? Fault::kDrop
                                                                                          : Fault::kNone;
    };
    pr.run(3000);
    EXPECT_EQ(pr.tokens(1), seq_tokens(0x100, 20)) << n;
    EXPECT_EQ(pr.cnt(1, llr::rx_missing_seq), n);
    EXPECT_EQ(pr.cnt(1, llr::tx_nack_ctlos), 1u);
    EXPECT_EQ(pr.ctls(1, llr::kNack).at(0).w_ctl_seq, 2u);
    // The first replayed frame is seq 2.
    for (const Out& f : pr.frames(0))
      if (f.w_replay) {
        EXPECT_EQ(f.w_seq, 2u);
        break;
      }
    EXPECT_EQ(pr.cnt(0, llr::tx_ok), 20u);
    EXPECT_EQ(pr.cnt(1, llr::rx_ok), 20u);
    EXPECT_EQ(pr.cnt(1, llr::rx_duplicate_seq), 0u);
    EXPECT_EQ(pr.cnt(1, llr::rx_replay), pr.cnt(0, llr::tx_replay));
    EXPECT_EQ(pr.out(0).out_frames, 0u);
  }
}

TEST(LlrModelPair, CorruptedExpectedFrame) {
  Pair pr;
  offer(pr, 0, 5, 64);
  bool done = false;
  pr.fault = [&](int side, const Out& w, uint64_t) {
    if (side == 0 && !w.w_is_ctl && w.w_seq == 1 && !done) {
      done = true;
      return Fault::kCorrupt;
    }
    return Fault::kNone;
  };
  pr.run(1500);
  EXPECT_EQ(pr.tokens(1), seq_tokens(0x100, 5));
  EXPECT_EQ(pr.cnt(1, llr::rx_expected_seq_bad), 1u);
  EXPECT_EQ(pr.cnt(1, llr::rx_bad), 1u);
  EXPECT_EQ(pr.cnt(1, llr::rx_missing_seq), 0u);  // 2, 3, 4 arrive in NACK_SENT
  EXPECT_EQ(pr.cnt(1, llr::tx_nack_ctlos), 1u);
  EXPECT_EQ(pr.ctls(1, llr::kNack).at(0).w_ctl_seq, 1u);
  EXPECT_EQ(pr.cnt(0, llr::tx_replay), 4u);
  EXPECT_EQ(pr.cnt(1, llr::rx_replay), 4u);
  EXPECT_EQ(pr.cnt(1, llr::rx_expected_seq_good), 5u);
}

TEST(LlrModelPair, LostAcksTimerReplayAndForcedAck) {
  Cfg c;
  c.replay_timer = 100;  // ack_idle_max 25
  Pair pr(Params{}, c, c);
  offer(pr, 0, 4, 64);
  // Every ACK taken by the wire before edge 100 is lost.
  pr.fault = [&](int side, const Out& w, uint64_t e) {
    return (side == 1 && w.w_is_ctl && w.w_ctl_type == llr::kAck && e < 100) ? Fault::kDrop : Fault::kNone;
  };
  // Frames 0..3 loaded at 12..18; unacknowledged from edge 13: timer_q reaches 99 at
  // edge 112: replay from 0 at 113..116, received by B at 117..120 as duplicates;
  // each makes an ACK owed: ACK(4) loaded at 118..121.
  pr.run_to(112);
  EXPECT_EQ(pr.out(0).tx_state, llr::kReplay);
  EXPECT_EQ(pr.cnt(0, llr::tx_replay), 0u);
  EXPECT_EQ(pr.cnt(1, llr::tx_ack_ctlos), 1u);  // ACK(4) by spacing, lost
  EXPECT_EQ(pr.cnt(0, llr::rx_ack_ctlos), 0u);
  pr.run_to(116);
  EXPECT_EQ(pr.cnt(0, llr::tx_replay), 4u);
  EXPECT_EQ(pr.out(0).tx_state, llr::kAdvance);
  pr.run_to(121);
  EXPECT_EQ(pr.cnt(1, llr::rx_duplicate_seq), 4u);
  EXPECT_EQ(pr.cnt(1, llr::tx_ack_ctlos), 5u);
  pr.run_to(122);
  EXPECT_EQ(pr.cnt(0, llr::rx_ack_ctlos), 1u);  // first forced ACK(4), taken at 119
  pr.run(1000);
  EXPECT_EQ(pr.tokens(1), seq_tokens(0x100, 4));
  EXPECT_EQ(pr.cnt(0, llr::rx_ack_ctlos), 4u);
  for (const Out& a : pr.ctls(1, llr::kAck)) EXPECT_EQ(a.w_ctl_seq, 4u);
  EXPECT_EQ(pr.cnt(0, llr::tx_replay), 4u);
  EXPECT_EQ(pr.cnt(0, llr::tx_flush), 0u);
  EXPECT_EQ(pr.out(0).out_frames, 0u);
  EXPECT_EQ(pr.cnt(1, llr::rx_replay), 0u);  // duplicates are not delivered
}

TEST(LlrModelPair, ReplayCountExceededFlushReInit) {
  Cfg c;
  c.replay_timer = 50;
  c.replay_count_max = 2;
  c.re_init = true;
  Pair pr(Params{}, c, c);
  offer(pr, 0, 4, 64);
  bool lossy = true;
  pr.fault = [&](int side, const Out& w, uint64_t) {
    return (lossy && side == 1 && w.w_is_ctl && w.w_ctl_type <= llr::kNack) ? Fault::kDrop : Fault::kNone;
  };
  // Timer events at edges 62 (n=1), 112 (n=2), 162 (n=3 > 2: flush).
  pr.run_to(161);
  EXPECT_EQ(pr.cnt(0, llr::tx_replay), 8u);
  EXPECT_EQ(pr.cnt(0, llr::tx_flush), 0u);
  EXPECT_EQ(pr.cnt(1, llr::rx_duplicate_seq), 8u);
  pr.step();  // 162
  EXPECT_EQ(pr.out(0).tx_state, llr::kFlush);
  EXPECT_EQ(pr.cnt(0, llr::tx_flush), 1u);
  EXPECT_EQ(pr.cnt(0, llr::tx_discard), 4u);
  EXPECT_TRUE(pr.out(0).err_flush);
  EXPECT_EQ(pr.out(0).out_frames, 0u);
  EXPECT_EQ(pr.out(0).out_bytes, 0u);
  lossy = false;
  pr.step();  // 163: INIT
  EXPECT_EQ(pr.out(0).tx_state, llr::kInit);
  pr.step();  // 164: INIT loaded
  EXPECT_EQ(pr.cnt(0, llr::tx_init_ctlos), 2u);
  EXPECT_EQ(pr.out(0).w_ctl_type, llr::kInitCtl);
  // On the wire at 165, B at 168 (echo pending), echo loaded 169, taken 170, A at 173.
  pr.run_to(172);
  EXPECT_EQ(pr.out(0).tx_state, llr::kInit);
  pr.step();
  EXPECT_EQ(pr.out(0).tx_state, llr::kAdvance);
  EXPECT_EQ(pr.cnt(1, llr::rx_init_ctlos), 2u);
  // New traffic from seq 0 again.
  offer(pr, 0, 3, 64, 0x200);
  pr.run(1000);
  auto t = pr.tokens(1);
  std::vector<uint64_t> expect = seq_tokens(0x100, 4);
  for (uint64_t x : seq_tokens(0x200, 3)) expect.push_back(x);
  EXPECT_EQ(t, expect);  // the 4 discarded frames had reached B already
  EXPECT_EQ(pr.frames(0).back().w_seq, 2u);
  EXPECT_EQ(pr.cnt(0, llr::tx_flush), 1u);
  EXPECT_TRUE(pr.out(0).err_flush);
}

TEST(LlrModelPair, ReplayCountExceededFlushHeldWithoutReInit) {
  Cfg c;
  c.replay_timer = 50;
  c.replay_count_max = 2;
  c.re_init = false;
  Pair pr(Params{}, c, c);
  offer(pr, 0, 4, 64);
  pr.fault = [&](int side, const Out& w, uint64_t) {
    return (side == 1 && w.w_is_ctl && w.w_ctl_type <= llr::kNack) ? Fault::kDrop : Fault::kNone;
  };
  pr.run_to(162);
  EXPECT_EQ(pr.out(0).tx_state, llr::kFlush);
  pr.fault = nullptr;
  offer(pr, 0, 2, 64, 0x200);  // never taken: the link is down
  offer(pr, 1, 8, 64, 0x300);  // B -> A still works and A still acknowledges
  pr.run(3000);
  EXPECT_EQ(pr.out(0).tx_state, llr::kFlush);
  EXPECT_FALSE(pr.out(0).c_ready);
  EXPECT_EQ(pr.src[0].size(), 2u);
  EXPECT_EQ(pr.cnt(0, llr::tx_init_ctlos), 1u);
  EXPECT_EQ(pr.cnt(0, llr::tx_ok), 4u);
  EXPECT_EQ(pr.tokens(0), seq_tokens(0x300, 8));
  EXPECT_EQ(pr.cnt(0, llr::tx_ack_ctlos), 2u);
  EXPECT_EQ(pr.out(1).out_frames, 0u);
  EXPECT_TRUE(pr.out(0).err_flush);
}

TEST(LlrModelPair, FramesMaxStall) {
  Cfg c;
  c.frames_max = 3;
  c.replay_timer = 4000;  // ack_idle_max 1000
  c.ack_spacing = 100;
  Pair pr(Params{}, c, c);
  offer(pr, 0, 5, 64);
  uint32_t max_frames = 0;
  pr.on_tick = [&](int side, const In&, const Out& o) {
    if (side == 0) max_frames = std::max(max_frames, o.out_frames);
  };
  pr.run_to(500);
  EXPECT_EQ(pr.cnt(0, llr::tx_ok), 3u);
  EXPECT_EQ(pr.out(0).out_frames, 3u);
  EXPECT_FALSE(pr.out(0).c_ready);  // frame 3 waits in hold
  EXPECT_EQ(pr.src[0].size(), 1u);
  EXPECT_EQ(pr.cnt(0, llr::tx_best_effort), 0u);
  pr.run(3000);  // the idle ACK(3) frees the buffer
  EXPECT_EQ(pr.tokens(1), seq_tokens(0x100, 5));
  EXPECT_EQ(pr.cnt(0, llr::tx_ok), 5u);
  EXPECT_EQ(max_frames, 3u);
  EXPECT_EQ(pr.cnt(0, llr::tx_replay), 0u);
}

TEST(LlrModelPair, BytesMaxStall) {
  Cfg c;
  c.bytes_max = 1000;
  c.replay_timer = 4000;
  c.ack_spacing = 100;
  Pair pr(Params{}, c, c);
  pr.src[0].push_back(Frame{true, 0, 400, 0x100});
  pr.src[0].push_back(Frame{true, 0, 600, 0x101});  // 400 + 600 == 1000: fits exactly
  pr.src[0].push_back(Frame{true, 0, 1, 0x102});    // 1001 > 1000: waits
  pr.run_to(500);
  EXPECT_EQ(pr.cnt(0, llr::tx_ok), 2u);
  EXPECT_EQ(pr.out(0).out_bytes, 1000u);
  EXPECT_EQ(pr.out(0).out_frames, 2u);
  EXPECT_FALSE(pr.out(0).c_ready);
  pr.run(4000);
  EXPECT_EQ(pr.tokens(1), seq_tokens(0x100, 3));
}

TEST(LlrModelPair, BestEffortWhenFull) {
  Cfg c;
  c.frames_max = 3;
  c.bytes_max = 1000;
  c.best_effort = true;
  c.replay_timer = 4000;
  c.ack_spacing = 100;
  Pair pr(Params{}, c, c);
  offer(pr, 0, 5, 64);                                // 0..2 eligible, 3 and 4 best effort
  pr.src[0].push_back(Frame{true, 0, 900, 0x900});   // bytes full too
  pr.run_to(500);
  EXPECT_EQ(pr.cnt(0, llr::tx_ok), 6u);
  EXPECT_EQ(pr.cnt(0, llr::tx_best_effort), 3u);
  EXPECT_EQ(pr.out(0).out_frames, 3u);
  EXPECT_EQ(pr.out(0).out_bytes, 192u);
  const auto fr = pr.frames(0);
  ASSERT_EQ(fr.size(), 6u);
  for (unsigned k = 0; k < 6; ++k) {
    EXPECT_EQ(fr[k].w_eligible, k < 3) << k;
    EXPECT_EQ(fr[k].w_seq, k < 3 ? k : 0u) << k;
    EXPECT_FALSE(fr[k].w_replay);
  }
  EXPECT_EQ(pr.tokens(1), (std::vector<uint64_t>{0x100, 0x101, 0x102, 0x103, 0x104, 0x900}));
  EXPECT_EQ(pr.cnt(1, llr::rx_ok), 6u);
  EXPECT_EQ(pr.cnt(1, llr::rx_expected_seq_good), 3u);
  EXPECT_FALSE(pr.got[1][3].eligible);
}

TEST(LlrModelPair, IneligiblePassUnsequencedEvenInNackSent) {
  Pair pr;
  pr.src[0].push_back(Frame{true, 0, 64, 0xe0});
  pr.src[0].push_back(Frame{true, 0, 64, 0xe1});  // dropped
  pr.src[0].push_back(Frame{true, 0, 64, 0xe2});
  pr.src[0].push_back(Frame{false, 0, 64, 0xa3});
  pr.src[0].push_back(Frame{false, 0, 64, 0xa4});
  bool dropped = false;
  pr.fault = [&](int side, const Out& w, uint64_t) {
    if (side == 0 && !w.w_is_ctl && w.w_eligible && w.w_seq == 1 && !dropped) {
      dropped = true;
      return Fault::kDrop;
    }
    return Fault::kNone;
  };
  pr.run(1500);
  // E2 at 20 (gap), NACK loaded at 21; A3 at 22, A4 at 24 in NACK_SENT; replay from 25.
  EXPECT_EQ(pr.tokens(1), (std::vector<uint64_t>{0xe0, 0xa3, 0xa4, 0xe1, 0xe2}));
  ASSERT_EQ(pr.got[1].size(), 5u);
  EXPECT_EQ(pr.got[1][1].rx_state, llr::kNackSent);
  EXPECT_EQ(pr.got[1][2].rx_state, llr::kNackSent);
  EXPECT_FALSE(pr.got[1][1].eligible);
  EXPECT_EQ(pr.got[1][1].edge, 22u);
  const auto fr = pr.frames(0);
  EXPECT_EQ(fr[3].w_seq, 0u);
  EXPECT_FALSE(fr[3].w_eligible);
  EXPECT_EQ(pr.cnt(0, llr::tx_replay), 2u);  // 1, 2: the ineligible ones are not kept
  EXPECT_EQ(pr.cnt(0, llr::tx_ok), 5u);
  const auto acks = pr.ctls(1, llr::kAck);
  ASSERT_FALSE(acks.empty());
  EXPECT_EQ(acks.back().w_ctl_seq, 3u);  // only 3 sequence numbers used
  EXPECT_EQ(pr.cnt(1, llr::rx_expected_seq_good), 3u);
  EXPECT_EQ(pr.cnt(1, llr::rx_ok), 5u);
}

TEST(LlrModelPair, PauseHoldsNewFramesNotReplaysOrControlWords) {
  Pair pr;
  offer(pr, 0, 4, 64, 0x100, true, 2);
  offer(pr, 1, 4, 64, 0x300, true, 2);  // B -> A: A must still acknowledge
  bool dropped = false;
  pr.fault = [&](int side, const Out& w, uint64_t) {
    if (side == 0 && !w.w_is_ctl && w.w_seq == 1 && !w.w_replay && !dropped) {
      dropped = true;
      return Fault::kDrop;
    }
    return Fault::kNone;
  };
  // A's pause_i for class 2 at edges 17..199: pause_q (read by step 6) at edges 18..200.
  pr.pause = [](int side, uint64_t e) { return (side == 0 && e >= 17 && e < 200) ? 0x4u : 0u; };
  // Frames 0..2 loaded at 12, 14, 16; frame 3 in hold from 17, paused at 18.
  pr.run_to(150);
  EXPECT_EQ(pr.cnt(0, llr::tx_ok), 3u);
  EXPECT_EQ(pr.cnt(0, llr::tx_replay), 2u);  // NACK(1) at 25: replay of 1 and 2 despite pause
  EXPECT_FALSE(pr.out(0).c_ready);
  EXPECT_EQ(pr.src[0].size(), 0u);  // frame 3 sits in the hold register
  EXPECT_EQ(pr.tokens(1), seq_tokens(0x100, 3));
  EXPECT_EQ(pr.tokens(0), seq_tokens(0x300, 4));
  EXPECT_EQ(pr.cnt(0, llr::tx_ack_ctlos), 1u);  // control words ignore pause
  // Released: pause_q 0 at edge 201, frame 3 loaded at 201.
  pr.run_to(200);
  EXPECT_EQ(pr.cnt(0, llr::tx_ok), 3u);
  pr.step();
  EXPECT_EQ(pr.cnt(0, llr::tx_ok), 4u);
  EXPECT_EQ(pr.out(0).w_seq, 3u);
  pr.run(1000);
  EXPECT_EQ(pr.tokens(1), seq_tokens(0x100, 4));
}

TEST(LlrModelPair, PauseOtherClassDoesNotBlock) {
  Pair pr;
  offer(pr, 0, 4, 64, 0x100, true, 1);
  pr.pause = [](int, uint64_t) { return 0xfdu; };  // every class but 1
  pr.run(600);
  EXPECT_EQ(pr.tokens(1), seq_tokens(0x100, 4));
}

TEST(LlrModelPair, SequenceWrapSevenBits) {
  Params p;
  p.seq_bits = 7;
  p.buf_log2 = 5;
  Cfg c;
  c.frames_max = 32;
  Pair pr(p, c, c);
  const unsigned n = 3000;
  offer(pr, 0, n, 64, 0x10000);
  offer(pr, 1, n, 64, 0x20000);
  pr.run(n * 2 + 2000);
  EXPECT_EQ(pr.tokens(1), seq_tokens(0x10000, n));
  EXPECT_EQ(pr.tokens(0), seq_tokens(0x20000, n));
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(pr.cnt(1 - i, llr::rx_expected_seq_good), n);
    EXPECT_EQ(pr.cnt(1 - i, llr::rx_duplicate_seq), 0u);
    EXPECT_EQ(pr.cnt(1 - i, llr::rx_missing_seq), 0u);
    EXPECT_EQ(pr.cnt(i, llr::tx_replay), 0u);
    EXPECT_EQ(pr.frames(i).back().w_seq, (n - 1) % 128);  // 55
    EXPECT_EQ(pr.out(i).out_frames, 0u);
  }
}

TEST(LlrModelPair, SequenceWrapSevenBitsWithLoss) {
  Params p;
  p.seq_bits = 7;
  p.buf_log2 = 5;
  Cfg c;
  c.frames_max = 32;
  c.replay_timer = 200;
  Pair pr(p, c, c);
  const unsigned n = 4000;
  offer(pr, 0, n, 64, 0x10000);
  std::mt19937 rng(7);
  pr.fault = [&](int, const Out& w, uint64_t) {
    const unsigned r = rng() % 1000;
    if (w.w_is_ctl) return r < 20 ? Fault::kDrop : (r < 40 ? Fault::kCorrupt : Fault::kNone);
    return r < 10 ? Fault::kDrop : (r < 20 ? Fault::kCorrupt : Fault::kNone);
  };
  pr.run(n * 3);
  pr.fault = nullptr;
  pr.run(3000);
  EXPECT_EQ(pr.cnt(0, llr::tx_flush), 0u);
  EXPECT_EQ(pr.tokens(1), seq_tokens(0x10000, n));
  EXPECT_GT(pr.cnt(0, llr::tx_replay), 0u);
  EXPECT_GT(pr.cnt(1, llr::rx_missing_seq), 0u);
  EXPECT_EQ(pr.out(0).out_frames, 0u);
}

TEST(LlrModelPair, CorruptedInitEcho) {
  Cfg c;
  c.replay_timer = 20;
  Pair pr(Params{}, c, c);
  // B's first INIT_ECHO is corrupted: A stays in INIT, its INIT timer fires at edge 20
  // (timer_q 19), INIT again at 21, on the wire at 22, B at 25, echo loaded at 26,
  // taken at 27, A at 30.
  pr.fault = [&](int side, const Out& w, uint64_t) {
    return (side == 1 && w.w_is_ctl && w.w_ctl_type == llr::kInitEcho && pr.cnt(1, llr::tx_init_echo_ctlos) == 1)
               ? Fault::kCorrupt
               : Fault::kNone;
  };
  pr.run_to(29);
  EXPECT_EQ(pr.out(0).tx_state, llr::kInit);
  EXPECT_EQ(pr.out(1).tx_state, llr::kAdvance);
  EXPECT_EQ(pr.cnt(0, llr::rx_bad_ctlos), 1u);
  EXPECT_EQ(pr.cnt(0, llr::rx_init_echo_ctlos), 0u);
  EXPECT_EQ(pr.cnt(0, llr::tx_init_ctlos), 2u);
  pr.step();
  EXPECT_EQ(pr.out(0).tx_state, llr::kAdvance);
  EXPECT_EQ(pr.cnt(0, llr::rx_init_echo_ctlos), 1u);
  EXPECT_EQ(pr.cnt(1, llr::tx_init_echo_ctlos), 2u);
  EXPECT_EQ(pr.cnt(1, llr::rx_init_ctlos), 2u);
  EXPECT_EQ(pr.cnt(1, llr::rx_bad_ctlos), 0u);
}

TEST(LlrModelPair, CorruptedAcks) {
  Pair pr;
  // The first two ACKs from B are corrupted: counted as bad, not as ACKs.
  int bad = 0;
  pr.fault = [&](int side, const Out& w, uint64_t) {
    if (side == 1 && w.w_is_ctl && w.w_ctl_type == llr::kAck && bad < 2) {
      ++bad;
      return Fault::kCorrupt;
    }
    return Fault::kNone;
  };
  offer(pr, 0, 12, 64);
  pr.run(200);
  EXPECT_EQ(pr.tokens(1), seq_tokens(0x100, 12));
  EXPECT_EQ(pr.cnt(0, llr::rx_bad_ctlos), 2u);
  EXPECT_EQ(pr.cnt(1, llr::tx_ack_ctlos), 3u);  // ACK(4), ACK(8) corrupted, ACK(12)
  EXPECT_EQ(pr.cnt(0, llr::rx_ack_ctlos), 1u);
  EXPECT_EQ(pr.out(0).out_frames, 0u);  // ACK(12) is cumulative
  EXPECT_EQ(pr.cnt(0, llr::tx_replay), 0u);
  EXPECT_EQ(pr.out(1).rx_state, llr::kSendAcks);
}

// ============================================================ random closed loop

struct RandomResult {
  uint64_t delivered = 0, flushes = 0, replays = 0, may_lose = 0, missing = 0;
};

RandomResult random_closed_loop(uint32_t seed, uint64_t cycles) {
  std::mt19937_64 rng(seed);
  auto U = [&](uint64_t n) { return rng() % n; };
  Params p;
  if (seed % 2) {
    p.seq_bits = 8;
    p.buf_log2 = 4;
  }
  Cfg c;
  c.frames_max = 1 + U(1u << p.buf_log2);
  c.bytes_max = 2000 + U(20000);
  c.replay_timer = 100 + U(300);
  c.replay_count_max = 3 + U(4);
  c.ack_spacing = 1 + U(8);
  c.best_effort = seed % 3 == 0;
  c.re_init = true;
  Cfg cb = c;
  cb.ack_bytes = true;
  cb.ack_spacing = 200 + U(2000);
  Pair pr(p, c, cb, 2 + U(6));
  pr.record = false;
  // Link faults, varying over time.
  double drop = 0, corrupt = 0, cdrop = 0, ccorrupt = 0;
  uint64_t busy[2] = {0, 0};
  pr.w_ready = [&](int side, uint64_t e) { return e >= busy[side]; };
  pr.fault = [&](int side, const Out& w, uint64_t e) {
    if (!w.w_is_ctl) busy[side] = e + 1 + (w.w_len >> 8);  // the wire is busy while a frame passes
    const double r = std::uniform_real_distribution<double>(0, 1)(rng);
    if (w.w_is_ctl) return r < cdrop ? Fault::kDrop : (r < cdrop + ccorrupt ? Fault::kCorrupt : Fault::kNone);
    return r < drop ? Fault::kDrop : (r < drop + corrupt ? Fault::kCorrupt : Fault::kNone);
  };
  pr.pause = [&](int, uint64_t e) { return ((e / 500) % 7 == 3) ? uint32_t(1u << ((e / 3500) % 8)) : 0u; };

  // Scoreboard per direction i -> 1-i.
  struct Dir {
    std::vector<uint64_t> elig;     // eligible tokens in first-transmission order (seq order)
    std::map<uint64_t, size_t> idx;  // token -> position in elig
    std::set<uint64_t> may_lose;     // discarded by a flush
    std::set<uint64_t> inelig;       // sent ineligible (as is or best effort)
    std::set<uint64_t> got;
    size_t last = 0;
    bool any = false;
  } dir[2];
  uint64_t next_token[2] = {1ull << 40, 2ull << 40};
  RandomResult res;
  uint32_t prev_flush[2] = {0, 0}, prev_discard[2] = {0, 0}, prev_ok[2] = {0, 0};
  // The eligible frame last sent with each seq, per side (replays must match it).
  std::vector<std::map<uint32_t, uint64_t>> by_seq(2);

  pr.on_tick = [&](int i, const In& in, const Out& o) {
    // Invariants, every cycle (outputs before the edge).
    const Cfg& cf = pr.cfg[i];
    EXPECT_LE(o.out_frames, cf.frames_max) << "seed " << seed << " edge " << pr.edge;
    EXPECT_LE(o.out_bytes, cf.bytes_max) << "seed " << seed << " edge " << pr.edge;
    if (o.w_valid && in.w_ready && !o.w_is_ctl && o.w_replay) {
      auto it = by_seq[i].find(o.w_seq);
      EXPECT_TRUE(it != by_seq[i].end() && it->second == o.w_token)
          << "seed " << seed << ": replay of an unknown frame, seq " << o.w_seq;
    }
  };
  const uint64_t quiet = 30000;  // no traffic and no faults at the end: everything drains
  for (uint64_t cyc = 0; cyc < cycles; ++cyc) {
    if (cyc % 5000 == 0) {
      const int prof = cyc + quiet >= cycles ? 0 : int(U(4));
      drop = prof == 0 ? 0 : (prof == 1 ? 0.005 : (prof == 2 ? 0.05 : 0.2));
      corrupt = drop;
      cdrop = prof == 0 ? 0 : (prof == 3 ? 0.9 : drop * 2);
      ccorrupt = drop;
    }
    for (int i = 0; i < 2; ++i) {
      if (cyc + quiet < cycles && pr.src[i].size() < 2 && U(3) == 0) {
        Frame f;
        f.eligible = U(8) != 0;
        f.cls = uint32_t(U(8));
        f.len = uint32_t(U(4) == 0 ? 1 + U(1500) : 64);
        f.token = next_token[i]++;
        pr.src[i].push_back(f);
      }
    }
    const size_t got_before[2] = {pr.got[0].size(), pr.got[1].size()};
    pr.step();
    for (int i = 0; i < 2; ++i) {
      const Out o = pr.out(i);
      Dir& d = dir[i];
      // A first transmission was loaded into the wire register at this edge.
      if (o.cnt[llr::tx_ok] != prev_ok[i]) {
        EXPECT_EQ(o.cnt[llr::tx_ok], prev_ok[i] + 1);
        prev_ok[i] = o.cnt[llr::tx_ok];
        EXPECT_TRUE(o.w_valid && !o.w_is_ctl && !o.w_replay);
        if (o.w_eligible) {
          EXPECT_EQ(d.idx.count(o.w_token), 0u);
          d.idx[o.w_token] = d.elig.size();
          d.elig.push_back(o.w_token);
          by_seq[i][o.w_seq] = o.w_token;
        } else {
          d.inelig.insert(o.w_token);
        }
      }
      // A flush discards [ack_target, next_seq): the newest tx_discard-delta eligible frames.
      if (o.cnt[llr::tx_flush] != prev_flush[i]) {
        prev_flush[i] = o.cnt[llr::tx_flush];
        ++res.flushes;
        const uint32_t k = o.cnt[llr::tx_discard] - prev_discard[i];
        EXPECT_LE(k, d.elig.size());
        for (uint32_t j = 0; j < k && j < d.elig.size(); ++j) d.may_lose.insert(d.elig[d.elig.size() - 1 - j]);
      }
      prev_discard[i] = o.cnt[llr::tx_discard];
      // Deliveries at side 1-i of frames from side i.
      for (size_t k = got_before[1 - i]; k < pr.got[1 - i].size(); ++k) {
        const Delivery& dl = pr.got[1 - i][k];
        EXPECT_EQ(d.got.count(dl.token), 0u) << "seed " << seed << ": duplicate delivery " << dl.token;
        d.got.insert(dl.token);
        ++res.delivered;
        if (!dl.eligible) {
          EXPECT_EQ(d.inelig.count(dl.token), 1u) << "seed " << seed;
          continue;
        }
        auto it = d.idx.find(dl.token);
        if (it == d.idx.end()) {
          ADD_FAILURE() << "seed " << seed << ": unknown eligible token " << dl.token;
          return res;
        }
        if (d.any) {
          EXPECT_GT(it->second, d.last) << "seed " << seed << ": out of order";
          // Every eligible frame skipped over must have been discarded by a flush.
          for (size_t s = d.last + 1; s < it->second; ++s)
            EXPECT_TRUE(d.may_lose.count(d.elig[s])) << "seed " << seed << ": lost frame " << d.elig[s];
        } else {
          for (size_t s = 0; s < it->second; ++s)
            EXPECT_TRUE(d.may_lose.count(d.elig[s])) << "seed " << seed << ": lost frame " << d.elig[s];
        }
        d.any = true;
        d.last = it->second;
      }
    }
    if (::testing::Test::HasFailure()) return res;
  }
  for (int i = 0; i < 2; ++i) {
    const Dir& d = dir[i];
    EXPECT_TRUE(pr.src[i].empty());
    EXPECT_EQ(pr.out(i).out_frames, 0u) << "seed " << seed;
    for (size_t s = d.any ? d.last + 1 : 0; s < d.elig.size(); ++s)
      EXPECT_TRUE(d.may_lose.count(d.elig[s])) << "seed " << seed << ": never delivered " << d.elig[s];
    res.replays += pr.cnt(i, llr::tx_replay);
    res.may_lose += d.may_lose.size();
    res.missing += pr.cnt(1 - i, llr::rx_missing_seq);
    // Counters against the scoreboard (no wrap in 100k cycles).
    size_t elig_got = 0;
    for (const Delivery& dl : pr.got[1 - i]) elig_got += dl.eligible;
    EXPECT_EQ(pr.cnt(1 - i, llr::rx_ok), pr.got[1 - i].size()) << "seed " << seed;
    EXPECT_EQ(pr.cnt(1 - i, llr::rx_expected_seq_good), elig_got) << "seed " << seed;
    EXPECT_EQ(pr.cnt(i, llr::tx_ok), d.elig.size() + d.inelig.size()) << "seed " << seed;
    EXPECT_LE(pr.cnt(1 - i, llr::rx_replay), pr.cnt(i, llr::tx_replay)) << "seed " << seed;
    EXPECT_LE(pr.cnt(1 - i, llr::rx_ack_ctlos), pr.cnt(i, llr::tx_ack_ctlos)) << "seed " << seed;
    EXPECT_LE(pr.cnt(1 - i, llr::rx_nack_ctlos), pr.cnt(i, llr::tx_nack_ctlos)) << "seed " << seed;
    EXPECT_EQ(pr.cnt(i, llr::tx_flush) > 0, pr.out(i).err_flush) << "seed " << seed;
  }
  return res;
}

// Two models, random traffic both ways (eligible, ineligible, lengths, classes),
// random drops and corruption of frames and control words (profiles change every
// 5000 cycles, the last 30000 cycles are clean so everything drains), a wire
// busy while long frames pass, PFC pauses. Every eligible frame is delivered
// exactly once, in order, unless a flush discarded it.
void check_random(uint32_t seed) {
  const RandomResult r = random_closed_loop(seed, 100000);
  ASSERT_FALSE(::testing::Test::HasFailure()) << "seed " << seed;
  EXPECT_GT(r.delivered, 10000u);
  EXPECT_GT(r.replays, 0u);
  EXPECT_GT(r.missing, 0u);
  EXPECT_GT(r.flushes, 0u);
  ::testing::Test::RecordProperty("delivered", std::to_string(r.delivered));
  ::testing::Test::RecordProperty("replays", std::to_string(r.replays));
  ::testing::Test::RecordProperty("flushes", std::to_string(r.flushes));
  ::testing::Test::RecordProperty("discarded", std::to_string(r.may_lose));
}

TEST(LlrModelRandom, ClosedLoopSeed1) { check_random(1); }
TEST(LlrModelRandom, ClosedLoopSeed2) { check_random(2); }
TEST(LlrModelRandom, ClosedLoopSeed3) { check_random(3); }

}  // namespace
