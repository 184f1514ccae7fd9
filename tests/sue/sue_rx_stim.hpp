// Stimulus for sue_rx tests (model unit tests and RTL lockstep): frames built
// with sue::encode (AFH Gen2 12-byte for SUE, 6-byte for SUE Lite) as they
// reach sue_rx (FCS stripped by the MAC, pad kept), damaged on purpose in every
// checked field, and a per-port MAC feeder that turns them into beats.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "sue/crc.hpp"
#include "sue/encap.hpp"
#include "sue/sue_rx_model.hpp"

namespace rxstim {

using sue::Bytes;

/// One XPU command as it travels in a PDU: 18 control bytes (opcode, dlen in bits 135..124, opaque)
/// then dlen data bytes.
inline Bytes make_cmd(core::Rng& r, unsigned dlen) {
  Bytes c(18 + dlen);
  for (auto& b : c) b = static_cast<uint8_t>(r.next());
  c[1] = static_cast<uint8_t>(dlen >> 4);
  c[2] = static_cast<uint8_t>((dlen & 0xf) << 4 | (c[2] & 0xf));
  return c;
}
inline unsigned rand_dlen(core::Rng& r, unsigned max_data, unsigned db) {
  switch (r.uniform(0, 5)) {
    case 0: return 0;
    case 1: return static_cast<unsigned>(r.uniform(1, std::min(max_data, db)));
    case 2: return std::min(max_data, db);  // exactly one beat
    case 3: return static_cast<unsigned>(r.uniform(0, max_data));
    case 4: return max_data;
    default: return static_cast<unsigned>(r.uniform(0, std::min(max_data, 40u)));
  }
}
/// 1..max_cmds random commands whose packed size (20+dlen each) stays within max_pack.
inline std::vector<Bytes> rand_cmds(core::Rng& r, const sue::RxParams& p, unsigned max_cmds) {
  std::vector<Bytes> cmds;
  unsigned n = static_cast<unsigned>(r.uniform(1, max_cmds)), packed = 0;
  for (unsigned i = 0; i < n; ++i) {
    unsigned d = rand_dlen(r, p.max_data, p.db());
    if (packed + 20 + d > p.max_pack) break;
    packed += 20 + d;
    cmds.push_back(make_cmd(r, d));
  }
  if (cmds.empty()) cmds.push_back(make_cmd(r, 0));
  return cmds;
}

/// The configuration the tests use: own XPU 0x3c5, above every addressable id, so peer i (the XPU id i,
/// sue_rx has no peer table) is a peer for every i < NumXpus.
inline sue::RxCfg default_cfg(const sue::RxParams& p, uint32_t credits = 8) {
  (void)p;
  sue::RxCfg c;
  c.own_xpuid = 0x3c5;
  c.partition = 0x155;
  c.rx_credits = {credits, credits, credits, credits};
  return c;
}

/// A well-formed frame from peer i on VC v (SUE: a data PDU with PSN psn and piggyback op/apsn).
inline sue::Frame base_frame(const sue::RxParams& p, const sue::RxCfg& cfg, unsigned i, unsigned v) {
  sue::Frame f = sue::make_frame(p.lite() ? sue::Profile::SueLite : sue::Profile::Sue,
                                 p.lite() ? sue::Encap::AfhGen2_6 : sue::Encap::AfhGen2_12);
  f.afh2.dst_xpu = cfg.own_xpuid;
  f.afh2.src_xpu = i;
  f.afh2.tc = static_cast<uint8_t>(v);
  f.afh2.entropy = static_cast<uint8_t>(i * 4 + v);
  f.rh.xpuid = static_cast<uint16_t>(i);
  f.rh.vc = static_cast<uint8_t>(v);
  f.rh.partition = static_cast<uint16_t>(cfg.partition);
  return f;
}

/// The bytes sue_rx sees: encode (pad + FCS) and strip the FCS.
inline Bytes wire(const sue::Frame& f) {
  auto r = sue::encode(f);
  if (!r) return {};
  Bytes b = r.value();
  b.resize(b.size() - 4);
  return b;
}
/// A FO frame (empty PDU, rsvd = 8|f): FO-REQ (op 0) or FO-ACK (op 1, apsn = answer).
inline sue::Frame fo_frame(const sue::RxParams& p, const sue::RxCfg& cfg, unsigned i, unsigned v, unsigned fport,
                           bool ack, uint16_t answer) {
  sue::Frame f = base_frame(p, cfg, i, v);
  f.rh.rsvd = static_cast<uint8_t>(8 | fport);
  f.rh.op = ack ? 1 : 0;
  f.rh.apsn = ack ? answer : 0;
  f.rh.npsn = 0;
  return f;
}
/// Recomputes the R-CRC of a SUE frame (bytes [14, E) -> [E, E+4)) after an edit of the header.
inline uint32_t rcrc_at(const Bytes& w, size_t e) { return sue::rcrc32(w.data() + 14, e - 14); }

/// A frame queued on a MAC feeder.
struct TxFrame {
  Bytes bytes;            ///< as sue_rx sees them (no FCS)
  bool err = false;       ///< mac_rx_err on the eof beat
  int abandon_after = -1; ///< >=0: only that many beats are sent, then the next frame starts (sof cut)
  int tag = 0;            ///< the test's reference to what it predicted
  bool stray = false;     ///< beats without sof (bytes.size()/32 stray beats)
  unsigned bad_nbytes = 0;  ///< != 0: eof nbytes forced to this (33..63)
  bool empty_eof = false;   ///< one more beat after the bytes: the eof beat, with nbytes 0
};

/// One MAC: presents beats of queued frames; holds a beat until it is taken.
class Feeder {
 public:
  explicit Feeder(uint64_t seed, double gap = 0.1) : rng_(seed, "feeder"), gap_(gap) {}
  void push(TxFrame f) { q_.push_back(std::move(f)); }
  bool idle() const { return q_.empty() && !cur_; }
  void clear() {
    q_.clear();
    cur_ = false;
    valid_ = false;
  }
  size_t queued() const { return q_.size() + (cur_ ? 1 : 0); }
  const TxFrame* current() const { return cur_ ? &f_ : nullptr; }
  /// The beat for the coming edge.
  sue::RxBeat beat() {
    sue::RxBeat b = last_;  // data/sof/eof/nbytes hold while valid is low
    if (!valid_) {
      if (!cur_ && !q_.empty()) {
        f_ = std::move(q_.front());
        q_.pop_front();
        cur_ = true;
        pos_ = 0;
      }
      if (cur_ && !rng_.chance(gap_)) {
        valid_ = true;
        make(b);
        last_ = b;
      }
    }
    b.valid = valid_;
    return b;
  }
  /// Called after the edge with whether the beat was taken. Returns true if the taken beat ended
  /// a frame (eof, or the last beat before an abandon / of a stray run).
  bool after_edge(bool taken, bool* was_eof) {
    *was_eof = false;
    if (!valid_ || !taken) return false;
    valid_ = false;
    bool end = last_.eof || last_beat_;
    *was_eof = last_.eof && !f_.stray && f_.abandon_after < 0;
    pos_ += 32;
    if (end) cur_ = false;
    return end;
  }
  const TxFrame& frame() const { return f_; }

 private:
  void make(sue::RxBeat& b) {
    const size_t n = f_.bytes.size();
    const size_t nbeats = (n + 31) / 32 + (f_.empty_eof ? 1 : 0);
    const size_t idx = pos_ / 32;
    b.sof = !f_.stray && idx == 0;
    const bool cut = f_.abandon_after >= 0 && idx + 1 == static_cast<size_t>(f_.abandon_after);
    b.eof = !f_.stray && !cut && idx + 1 == nbeats;
    last_beat_ = cut || idx + 1 == nbeats;
    const size_t m = pos_ < n ? std::min<size_t>(32, n - pos_) : 0;
    for (size_t k = 0; k < 32; ++k)
      b.data[k] = k < m ? f_.bytes[pos_ + k] : static_cast<uint8_t>(rng_.next());  // junk beyond nbytes
    b.nbytes = b.eof ? static_cast<uint32_t>(m) : static_cast<uint32_t>(rng_.uniform(0, 63));  // ignored unless eof
    if (b.eof && f_.bad_nbytes) b.nbytes = f_.bad_nbytes;
    b.err = b.eof ? f_.err : rng_.chance(0.5);  // ignored unless eof
  }
  core::Rng rng_;
  double gap_;
  std::deque<TxFrame> q_;
  TxFrame f_;
  bool cur_ = false, valid_ = false, last_beat_ = false;
  size_t pos_ = 0;
  sue::RxBeat last_{};
};

/// Collects XPU commands from the receive interface (rx_valid/rx_cycle beats).
struct XpuCmd {
  Bytes bytes;  ///< control + data
  uint32_t vc = 0, xpuid = 0, port = 0;
};
class Collector {
 public:
  explicit Collector(unsigned db) : db_(db) {}
  /// Feeds one cycle's outputs; returns true and fills `done` when a command completed. Sets
  /// `error` on a protocol violation of the XPU interface.
  bool feed(const sue::RxOut& o, XpuCmd& done, std::string& error) {
    if (o.rx_valid == 0) return false;
    if (o.rx_valid == 3) {
      error = "rx_valid=3";
      return false;
    }
    if (o.rx_cycle == 0) {
      if (act_) error = "new command before the previous one ended";
      cur_ = XpuCmd{};
      cur_.bytes.assign(o.rx_control.begin(), o.rx_control.end());
      dlen_ = (uint32_t(o.rx_control[1]) << 4) | (o.rx_control[2] >> 4);
      cur_.vc = o.rx_vc, cur_.xpuid = o.rx_xpuid, cur_.port = o.rx_port;
      if (o.rx_valid != (dlen_ ? 2u : 1u)) error = "rx_valid does not match dlen";
      beat_ = 0;
      act_ = true;
    } else if (!act_ || o.rx_cycle != beat_ || o.rx_valid != 2) {
      error = "unexpected rx_cycle " + std::to_string(o.rx_cycle);
      return false;
    } else if (o.rx_vc != cur_.vc || o.rx_xpuid != cur_.xpuid || o.rx_port != cur_.port) {
      error = "vc/xpuid/port changed inside a command";
    }
    unsigned have = static_cast<unsigned>(cur_.bytes.size()) - 18;
    unsigned m = std::min(db_, dlen_ - have);
    for (unsigned j = 0; j < db_; ++j) {
      if (j < m)
        cur_.bytes.push_back(o.rx_data[j]);
      else if (o.rx_data[j] != 0)
        error = "rx_data byte beyond the command is not 0";
    }
    ++beat_;
    if (cur_.bytes.size() == 18 + dlen_) {
      act_ = false;
      done = cur_;
      return true;
    }
    return false;
  }
  void reset() { act_ = false; }
  bool active() const { return act_; }

 private:
  unsigned db_;
  XpuCmd cur_;
  uint32_t dlen_ = 0, beat_ = 0;
  bool act_ = false;
};

}  // namespace rxstim
