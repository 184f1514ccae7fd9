// A constrained-random sue_rx scenario (docs/sue.md "sue_rx"): per port, a MAC
// feeder with frames built by sue::encode, good and damaged in every checked
// field; an XPU sink with random credit returns and hold phases; port deaths
// and mid-run resets. Beside whatever block runs (RTL in lockstep, or the
// model alone) an independent reference predicts every verdict from the
// frame it built: the feedback pulse of each frame, each counter, and the
// commands the XPU must receive (exactly once, byte-exact, in arrival order
// per port, hence in PSN order per connection).
#pragma once
#include <fmt/format.h>

#include <array>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sue_rx_stim.hpp"

namespace rxstim {

struct Knobs {
  uint64_t cycles = 20000;
  double load = 0.7;       ///< chance per idle port-cycle that a new frame starts
  double gap = 0.1;        ///< chance that a MAC beat is delayed by a cycle
  double bad = 0.25;       ///< share of damaged frames
  double ahead = 0.12;     ///< data PDUs with a PSN ahead of exp (a loss upstream)
  double behind = 0.08;    ///< data PDUs with a PSN behind exp (duplicates)
  double ack_only = 0.08, fo = 0.06, cut = 0.02, stray = 0.02;
  double credit_ret = 0.4;  ///< chance per VC-cycle that the XPU returns a credit it holds
  double hold = 0.0004;     ///< chance per cycle that the XPU starts holding its credits
  bool deaths = true, resets = true;
  double death_rate = 1.0 / 30000, reset_rate = 1.0 / 20000;  ///< per cycle
  unsigned max_cmds = 6;
  uint32_t credits = 8;
  bool only_good = false;   ///< only in-order data PDUs (PSN wrap run)
  bool one_conn = false;    ///< every frame from peer 0 on VC 0
};

struct Outcome {
  uint64_t cycles = 0, frames = 0, accepted = 0, cmds_checked = 0, nacks = 0, resets = 0, deaths = 0;
  uint64_t dbg_checked = 0, dbg_nonzero = 0;  // debug-port reads checked against the reference; of them, exp != 0
  uint64_t fo_answered = 0;  ///< FO-REQ events (fb_fo = 1)
  uint64_t ready_low = 0;    ///< cycles in which a live port's MAC waited on mac_rx_ready
  std::vector<std::string> errors;
  std::array<uint64_t, sue::RxCnt::kNum> cnt{};  ///< the block's counters summed over resets
};

/// Drives `block` (drive/posedge/outputs) for k.cycles plus a drain; `on_edge(cycle)` runs after every
/// edge (lockstep mismatch / RTL assertion checks; return false to stop).
template <class Block>
Outcome run_scenario(Block& blk, const sue::RxParams& p, uint64_t seed, const Knobs& k,
                     const std::function<bool(uint64_t)>& on_edge) {
  using sue::RxCnt;
  Outcome res;
  core::Rng rng(seed, "scenario"), frng(seed, "frames"), xrng(seed, "xpu"), drng(seed, "debug");
  const unsigned np = p.num_ports, nc = p.nc();
  sue::RxCfg cfg = default_cfg(p, k.credits);
  std::vector<Feeder> feed;
  for (unsigned q = 0; q < np; ++q) feed.emplace_back(seed * 16 + q, k.gap);
  Collector col(p.db());

  // reference state
  enum Kind { kGood, kAck, kFoReq, kFoAck, kBad, kCut, kStray };
  struct Expect {
    Kind kind = kGood;
    unsigned peer = 0, vc = 0, fport = 0, op = 0;
    uint16_t psn = 0, apsn = 0;
    unsigned bad_cnt = 0;
    std::vector<Bytes> cmds;
  };
  std::map<int, Expect> pending;
  int next_tag = 1;
  std::vector<uint16_t> exp(nc, 0);
  std::vector<uint8_t> nacked(nc, 0);
  std::array<bool, 4> dead{}, in_frame{};
  std::array<uint64_t, RxCnt::kNum> ref{};
  std::vector<std::deque<XpuCmd>> want(np);
  std::array<uint32_t, 4> held{};  // credits the XPU holds
  uint64_t hold_until = 0;
  sue::RxOut prev;
  unsigned last_c = 0;  // the connection of the newest frame (the debug port reads it half the time)
  uint32_t up = (1u << np) - 1;
  int reset_left = 3;
  std::array<uint64_t, RxCnt::kNum> base{};
  auto err = [&](const std::string& s) {
    if (res.errors.size() < 10) res.errors.push_back(fmt::format("cycle {}: {}", res.cycles, s));
  };
  auto reset_ref = [&] {
    pending.clear();
    std::fill(exp.begin(), exp.end(), 0);
    std::fill(nacked.begin(), nacked.end(), 0);
    dead = {};
    in_frame = {};
    for (auto& w : want) w.clear();
    held = {};
    for (auto& f : feed) f.clear();
    col.reset();
    up = (1u << np) - 1;
    for (unsigned i = 0; i < RxCnt::kNum; ++i) base[i] += ref[i], ref[i] = 0;
  };
  // frame index of stored-stream offset x (SUE: the same; Lite: beat 0 is permuted)
  auto fidx = [&](size_t x) -> size_t {
    static const size_t lite_map[12] = {0, 4, 5, 6, 10, 11, 1, 2, 3, 7, 8, 9};
    return p.lite() && x < 12 ? lite_map[x] : x;
  };

  // one new frame for port q (reference prediction stored under its tag)
  auto gen = [&](unsigned q) {
    TxFrame tf;
    Expect e;
    e.peer = k.one_conn ? 0 : static_cast<unsigned>(frng.uniform(0, p.num_xpus - 1));
    e.vc = k.one_conn ? 0 : static_cast<unsigned>(frng.uniform(0, 3));
    if (e.peer == cfg.own_xpuid) e.peer = (e.peer + 1) % p.num_xpus;  // not a peer (1,024 XPUs: every id addressable)
    const unsigned c = (q * p.num_xpus + e.peer) * 4 + e.vc;
    last_c = c;
    sue::Frame f = base_frame(p, cfg, e.peer, e.vc);
    double r = frng.real();
    auto pick = [&](double w) {
      if (r < w) return true;
      r -= w;
      return false;
    };
    if (k.only_good) r = 1.0;
    if (!k.only_good && pick(k.stray) && !in_frame[q]) {
      tf.stray = true;
      tf.bytes.resize(32 * frng.uniform(1, 3));
      for (auto& b : tf.bytes) b = static_cast<uint8_t>(frng.next());
      e.kind = kStray;
    } else if (!k.only_good && pick(k.cut)) {
      f.cmds = rand_cmds(frng, p, k.max_cmds);
      tf.bytes = wire(f);
      tf.abandon_after = static_cast<int>(frng.uniform(1, (tf.bytes.size() + 31) / 32));
      if (tf.abandon_after == static_cast<int>((tf.bytes.size() + 31) / 32)) tf.abandon_after = 1;
      e.kind = kCut;
      if (tf.bytes.size() <= 32) tf.bytes.resize(64, 0);
    } else if (!k.only_good && !p.lite() && pick(k.ack_only)) {
      f.cmds.clear();
      e.op = f.rh.op = static_cast<uint8_t>(frng.uniform(0, 2));
      e.apsn = f.rh.apsn = static_cast<uint16_t>(frng.next());
      f.rh.npsn = static_cast<uint16_t>(frng.next());
      tf.bytes = wire(f);
      e.kind = kAck;
    } else if (!k.only_good && !p.lite() && pick(k.fo)) {
      e.fport = static_cast<unsigned>(frng.uniform(0, np - 1));
      bool ack = frng.chance(0.5);
      e.apsn = static_cast<uint16_t>(frng.next());
      f = fo_frame(p, cfg, e.peer, e.vc, e.fport, ack, e.apsn);
      tf.bytes = wire(f);
      e.kind = ack ? kFoAck : kFoReq;
    } else if (!k.only_good && pick(k.bad)) {
      e.kind = kBad;
      f.cmds = rand_cmds(frng, p, k.max_cmds);
      f.rh.npsn = exp[c];
      const unsigned why = static_cast<unsigned>(frng.uniform(0, p.lite() ? 2 : 3));
      if (why == 0) {  // MAC error
        tf.bytes = wire(f);
        tf.err = true;
        e.bad_cnt = RxCnt::drop_mac;
      } else if (why == 1) {  // malformed
        e.bad_cnt = RxCnt::drop_malformed;
        tf.bytes = wire(f);
        const size_t o0 = p.o0();
        const uint64_t mcase = frng.uniform(0, 8);
        size_t at = 0;  // cases 7, 8: an op header at byte 31 of a beat (stored-stream offset)
        if (mcase >= 7) {
          for (int t = 0; t < 8 && !at; ++t) {
            if (t) f.cmds = rand_cmds(frng, p, k.max_cmds), tf.bytes = wire(f);
            for (size_t pos = o0; pos + 1 < tf.bytes.size();) {
              if (pos % 32 == 31) {
                at = pos;
                break;
              }
              const unsigned h = unsigned(tf.bytes[fidx(pos)]) << 8 | tf.bytes[fidx(pos + 1)];
              if (h & 0x8000) break;
              pos += 2 + (h & 0xfff);
            }
          }
        }
        switch (mcase >= 7 && !at ? 0 : mcase) {  // no such header in 8 draws: a plain cut (case 0)
          case 0: tf.bytes.resize(tf.bytes.size() - frng.uniform(1, std::min<size_t>(40, tf.bytes.size() - 1))); break;
          case 7:  // cut inside the beat whose byte 31 starts an op header: that header, at the eof beat, cannot be read
            tf.bytes.resize(at + 1 - frng.uniform(0, 30));
            break;
          case 8:  // the header split over the beat boundary, then an eof beat with nbytes 0
            tf.bytes.resize(at + 1);
            tf.empty_eof = true;
            break;
          case 1:
            for (uint64_t i = 0, n = frng.uniform(1, 40); i < n; ++i) tf.bytes.push_back(static_cast<uint8_t>(frng.next()));
            break;
          case 2: tf.bytes[fidx(o0)] |= static_cast<uint8_t>(0x10 << frng.uniform(0, 2)); break;  // reserved bit
          case 3:  // length > 18 + MaxData
            tf.bytes[fidx(o0)] = static_cast<uint8_t>((tf.bytes[fidx(o0)] & 0x80) | 0x0f), tf.bytes[fidx(o0 + 1)] = 0xff;
            break;
          case 4:  // length < 18
            tf.bytes[fidx(o0)] &= 0x80, tf.bytes[fidx(o0 + 1)] = static_cast<uint8_t>(frng.uniform(1, 17));
            break;
          case 5: tf.bad_nbytes = static_cast<unsigned>(frng.uniform(33, 63)); break;
          default:  // too long: MaxFrameBeats + 1..3 beats
            tf.bytes.resize(32 * (p.max_frame_beats() + frng.uniform(1, 3)), 0x5a);
            break;
        }
      } else if (why == 2) {  // header (re-encoded: the R-CRC is good)
        e.bad_cnt = RxCnt::drop_hdr;
        const unsigned n = p.lite() ? 6 : 17;
        const uint64_t hcase = frng.uniform(0, n - 1);
        switch (hcase) {
          case 0: f.afh2.m = 1; break;
          case 1: f.afh2.dst_xpu = cfg.own_xpuid ^ 0x1; break;
          case 2: f.afh2.tc = static_cast<uint8_t>(4 * frng.uniform(1, 3) + e.vc); break;
          case 3:  // not a peer: an id >= NumXpus, or (1,024 XPUs: every id addressable) the own one
            f.afh2.src_xpu = f.rh.xpuid = p.num_xpus > 0x3fe ? cfg.own_xpuid : 0x3fe;
            break;
          case 4: f.afh2.v = 1; break;
          case 5: f.afh2.dst_xpu = cfg.own_xpuid | (p.lite() ? 0x400u : 0x10000u); break;
          case 6: f.rh.partition ^= 1; break;
          case 7: f.rh.ver = static_cast<uint8_t>(frng.uniform(1, 3)); break;
          case 8: f.rh.op = 3; break;
          case 9: f.rh.xpuid ^= 1; break;
          case 10: f.rh.vc ^= 1; break;
          case 11: f.afh2.src_xpu = e.peer | 0x40000; break;
          case 12: f.rh.rsvd = 8; break;  // FO bit on a data PDU
          case 13: f.cmds.clear(), f.rh.rsvd = 8, f.rh.op = 2; break;  // FO with op NACK
          case 14: f.cmds.clear(), f.rh.rsvd = 0xc; break;  // FO with rsvd[2]
          case 15:
            if (np < 4) {
              f.cmds.clear(), f.rh.rsvd = static_cast<uint8_t>(8 | frng.uniform(np, 3));  // FO about no port
            } else {
              f.rh.partition ^= 2;
            }
            break;
          default: break;  // 16: the Ethertype, below
        }
        tf.bytes = wire(f);
        if (!tf.bytes.empty() && hcase == 16)
          tf.bytes[12 + frng.uniform(0, 1)] ^= static_cast<uint8_t>(1u << frng.uniform(0, 7));  // Ethertype
        if (tf.bytes.empty()) {  // encode refused the field: use the ethertype instead
          f = base_frame(p, cfg, e.peer, e.vc);
          f.cmds = rand_cmds(frng, p, k.max_cmds);
          tf.bytes = wire(f);
          if (p.lite()) tf.bytes[6] ^= 0x01; else tf.bytes[13] ^= 0x01;
        }
        if (!p.lite() && frng.chance(0.1)) tf.bytes[6] = static_cast<uint8_t>((tf.bytes[6] & 0xf0) | 0x3);
        if (p.lite() && frng.chance(0.2)) tf.bytes[6] = static_cast<uint8_t>((tf.bytes[6] & 0xf0) | 0x6);
      } else {  // R-CRC: a control byte of the first command or an R-CRC byte
        e.bad_cnt = RxCnt::drop_rcrc;
        tf.bytes = wire(f);
        size_t pdu_end = 22;
        for (auto& cm : f.cmds) pdu_end += 2 + cm.size();
        size_t at = frng.chance(0.5) ? 24 + frng.uniform(0, 17) : pdu_end + frng.uniform(0, 3);
        tf.bytes[at] ^= static_cast<uint8_t>(1u << frng.uniform(0, 7));
      }
    } else {  // a data PDU
      f.cmds = rand_cmds(frng, p, k.max_cmds);
      e.kind = kGood;
      if (!p.lite()) {
        uint16_t psn = exp[c];
        if (!k.only_good) {
          double s = frng.real();
          if (s < k.ahead) psn = static_cast<uint16_t>(psn + frng.uniform(1, 4));
          else if (s < k.ahead + k.behind) psn = static_cast<uint16_t>(psn - frng.uniform(1, 4));
        }
        e.psn = f.rh.npsn = psn;
        e.op = f.rh.op = static_cast<uint8_t>(frng.uniform(0, 2));
        e.apsn = f.rh.apsn = static_cast<uint16_t>(frng.next());
      }
      e.cmds = f.cmds;
      tf.bytes = wire(f);
    }
    tf.tag = next_tag++;
    pending[tf.tag] = e;
    feed[q].push(std::move(tf));
  };

  const uint64_t drain_max = 200000;
  uint64_t cyc = 0;
  bool draining = false;
  uint64_t drain_start = 0;
  for (;; ++cyc) {
    if (!draining && cyc >= k.cycles) draining = true, drain_start = cyc;
    if (draining) {
      bool quiet = col.active() == false;
      for (unsigned q = 0; q < np; ++q) quiet = quiet && feed[q].idle() && prev.rec_count[q] == 0;
      if (quiet && prev.rx_valid == 0 && cyc > drain_start + 4) break;
      if (cyc > drain_start + drain_max) {
        err("drain did not finish");
        break;
      }
    }
    sue::RxIn in;
    in.cfg = cfg;
    // resets: at the start, and now and then
    bool rst = reset_left > 0;
    if (!rst && k.resets && !draining && rng.chance(k.reset_rate)) reset_left = static_cast<int>(rng.uniform(1, 3)), rst = true;
    if (rst) {
      --reset_left;
      if (reset_left == 0 && res.cycles > 10) {
        // new configuration at a mid-run reset
        cfg.partition = static_cast<uint32_t>(rng.uniform(0, 1023));
        uint32_t cr = static_cast<uint32_t>(rng.uniform(1, 16));
        cfg.rx_credits = {cr, static_cast<uint32_t>(rng.uniform(1, 16)), cr, 1};
        in.cfg = cfg;
        ++res.resets;
      }
    }
    in.rst_n = !rst;
    // port deaths
    if (k.deaths && !rst && !draining && rng.chance(k.death_rate)) {
      unsigned q = static_cast<unsigned>(rng.uniform(0, np - 1));
      unsigned live = 0;
      for (unsigned i = 0; i < np; ++i) live += !dead[i] && ((up >> i) & 1);
      if (live > 1 || np == 1) up &= ~(1u << q);
    }
    in.port_up = up;
    for (unsigned q = 0; q < np; ++q) {
      if (!rst && !draining && !dead[q] && ((up >> q) & 1) && feed[q].idle() && rng.chance(k.load)) gen(q);
      in.mac[q] = feed[q].beat();
    }
    // XPU credits
    if (!draining && rng.chance(k.hold)) hold_until = cyc + xrng.uniform(200, 3000);
    if (!rst && (cyc >= hold_until || draining))
      for (unsigned v = 0; v < 4; ++v)
        if (held[v] && xrng.chance(draining ? 0.9 : k.credit_ret)) in.rx_credit |= 1u << v, --held[v];
    // the debug read port of the connection memory: the newest frame's connection or any
    in.dbg_conn = drng.chance(0.5) ? last_c : static_cast<uint32_t>(drng.uniform(0, nc - 1));
    blk.drive(in);
    blk.posedge();
    res.cycles = cyc + 1;
    sue::RxOut o = blk.outputs();
    if (!on_edge(cyc)) break;
    if (!in.rst_n) {
      reset_ref();
      if (o.dbg_exp != 0 || o.dbg_nacked) err(fmt::format("debug port after reset: exp {} nacked {}", o.dbg_exp, o.dbg_nacked));
      prev = o;
      continue;
    }
    std::array<bool, 4> dead_q = dead;
    for (unsigned q = 0; q < np; ++q) {
      bool fb_expected = false;
      sue::Feedback want_fb;
      // 1. death
      if (!dead[q] && !((up >> q) & 1)) {
        dead[q] = true;
        ++res.deaths;
        if (in_frame[q]) ++ref[RxCnt::drop_dead], in_frame[q] = false;
        // the frame being fed is lost; whatever was already taken of it was discarded above
        feed[q].clear();
        continue;
      }
      const bool taken = in.mac[q].valid && ((prev.mac_rx_ready >> q) & 1) && !dead[q];
      if (in.mac[q].valid && !taken) ++res.ready_low;
      bool was_eof = false;
      struct {
        bool stray = false;
        int abandon_after = -1, tag = 0;
      } cur;
      if (const TxFrame* cf = feed[q].current()) cur.stray = cf->stray, cur.abandon_after = cf->abandon_after, cur.tag = cf->tag;
      const bool end = feed[q].after_edge(taken, &was_eof);
      if (taken) {
        if (cur.stray && !in_frame[q]) {
          ++ref[RxCnt::stray_beats];
        } else {
          if (in.mac[q].sof) {
            if (in_frame[q]) ++ref[RxCnt::drop_malformed];
            in_frame[q] = true;
          }
          if (in_frame[q]) ref[RxCnt::bytes_in] += in.mac[q].eof ? (in.mac[q].nbytes & 63) : 32;
        }
      }
      if (end && cur.stray) pending.erase(cur.tag);
      if (end && cur.abandon_after >= 0) pending.erase(cur.tag);  // still in_frame: cut by the next sof
      if (was_eof) {
        in_frame[q] = false;
        ++res.frames;
        ++ref[RxCnt::frames_in];
        auto it = pending.find(cur.tag);
        if (it == pending.end()) {
          err("eof of an unknown frame");
          continue;
        }
        Expect e = it->second;
        pending.erase(it);
        const unsigned c = (q * p.num_xpus + e.peer) * 4 + e.vc;
        want_fb = sue::Feedback{};
        want_fb.valid = true;
        want_fb.peer = e.peer;
        want_fb.vc = e.vc;
        switch (e.kind) {
          case kBad: ++ref[e.bad_cnt]; break;
          case kAck:
            ++ref[RxCnt::ack_frames];
            want_fb.rop = e.op, want_fb.rapsn = e.apsn;
            fb_expected = true;
            break;
          case kFoAck:
            ++ref[RxCnt::fo_frames];
            want_fb.fo = sue::kFoAck, want_fb.fo_port = e.fport, want_fb.rapsn = e.apsn;
            fb_expected = true;
            break;
          case kFoReq:
            ++ref[RxCnt::fo_frames];
            if (dead_q[e.fport] && prev.rec_count[e.fport] == 0) {
              want_fb.fo = sue::kFoReq, want_fb.fo_port = e.fport;
              ++res.fo_answered;
              want_fb.owe_psn = static_cast<uint16_t>(exp[(e.fport * p.num_xpus + e.peer) * 4 + e.vc] - 1);
              fb_expected = true;
            } else {
              ++ref[RxCnt::fo_req_deferred];
            }
            break;
          case kGood:
            if (p.lite()) {
              ++ref[RxCnt::lite_ok];
              ++res.accepted;
              for (auto& cm : e.cmds) want[q].push_back(XpuCmd{cm, e.vc, e.peer, q});
              break;
            }
            fb_expected = true;
            want_fb.rop = e.op, want_fb.rapsn = e.apsn;
            {
              const uint16_t d = static_cast<uint16_t>(e.psn - exp[c]);
              if (d == 0) {
                ++ref[RxCnt::pdus_ok];
                ++res.accepted;
                exp[c] = static_cast<uint16_t>(exp[c] + 1);
                nacked[c] = 0;
                want_fb.owe = sue::kOweAck, want_fb.owe_psn = e.psn;
                for (auto& cm : e.cmds) want[q].push_back(XpuCmd{cm, e.vc, e.peer, q});
              } else if (d < 0x8000) {
                ++ref[RxCnt::drop_psn];
                if (!nacked[c]) {
                  nacked[c] = 1;
                  ++ref[RxCnt::nack_owed];
                  ++res.nacks;
                  want_fb.owe = sue::kOweNack, want_fb.owe_psn = exp[c];
                }
              } else {
                ++ref[RxCnt::drop_dup];
                want_fb.owe = sue::kOweDup, want_fb.owe_psn = static_cast<uint16_t>(exp[c] - 1);
              }
            }
            break;
          default: err("eof of a cut or stray frame"); break;
        }
      }
      // the feedback register: a pulse exactly at the verdict edge, as predicted
      const sue::Feedback& got = o.fb[q];
      if (fb_expected) {
        if (!(got == want_fb))
          err(fmt::format("port {} feedback: got valid {} peer {} vc {} owe {}/{} rop {}/{} fo {}/{}, want valid 1 peer {} vc {} "
                          "owe {}/{} rop {}/{} fo {}/{}",
                          q, got.valid, got.peer, got.vc, got.owe, got.owe_psn, got.rop, got.rapsn, got.fo, got.fo_port,
                          want_fb.peer, want_fb.vc, want_fb.owe, want_fb.owe_psn, want_fb.rop, want_fb.rapsn, want_fb.fo,
                          want_fb.fo_port));
      } else if (got.valid) {
        err(fmt::format("port {}: fb_valid without a predicted event", q));
      }
    }
    // XPU side
    if (o.rx_valid && o.rx_cycle == 0 && o.rx_vc < 4) ++held[o.rx_vc];
    XpuCmd got;
    std::string perr;
    if (col.feed(o, got, perr)) {
      ++res.cmds_checked;
      if (got.port >= np || want[got.port].empty()) {
        err(fmt::format("command on port {} that was never accepted", got.port));
      } else {
        const XpuCmd& w = want[got.port].front();
        if (got.bytes != w.bytes || got.vc != w.vc || got.xpuid != w.xpuid)
          err(fmt::format("port {}: command differs from the next accepted one (vc {}/{} xpuid {}/{} {}/{} bytes)",
                          got.port, got.vc, w.vc, got.xpuid, w.xpuid, got.bytes.size(), w.bytes.size()));
        want[got.port].pop_front();
      }
    }
    if (!perr.empty()) err("XPU interface: " + perr);
    // the debug port shows the connection state this reference predicts (all 0 in Lite)
    {
      const uint32_t we = p.lite() ? 0 : exp[in.dbg_conn], wn = p.lite() ? 0 : nacked[in.dbg_conn];
      if (o.dbg_exp != we || uint32_t(o.dbg_nacked) != wn)
        err(fmt::format("debug port, connection {}: exp {} nacked {}, want {} {}", in.dbg_conn, o.dbg_exp, o.dbg_nacked,
                        we, wn));
      else
        ++res.dbg_checked, res.dbg_nonzero += we != 0;
    }
    for (unsigned v = 0; v < 4; ++v)
      if (o.cred[v] + held[v] != cfg.rx_credits[v])
        err(fmt::format("VC {}: cred {} + held by the XPU {} != {}", v, o.cred[v], held[v], cfg.rx_credits[v]));
    prev = o;
  }
  for (unsigned q = 0; q < np; ++q)
    if (!want[q].empty()) err(fmt::format("port {}: {} accepted commands never reached the XPU", q, want[q].size()));
  // counters: every predicted one (bytes_in, cmds_out are checked through the commands)
  for (unsigned i = 0; i < RxCnt::kNum; ++i) {
    if (i == RxCnt::cmds_out) continue;  // checked command by command
    if (prev.cnt[i] != ref[i])
      err(fmt::format("cnt_{}: block {} predicted {}", sue::rx_counter_name(i), prev.cnt[i], ref[i]));
  }
  for (unsigned i = 0; i < RxCnt::kNum; ++i) res.cnt[i] = base[i] + prev.cnt[i];
  return res;
}

}  // namespace rxstim
