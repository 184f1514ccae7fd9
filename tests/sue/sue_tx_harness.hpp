// Constrained-random environment of one sue_tx (RTL, model or both in
// lockstep), with checks that do not trust the model:
//  * an XPU driver: commands of every length to every peer and VC, spending
//    and regaining the per-queue credits; bad commands, tx_err, aborted
//    transfers, stray cycles, unknown destinations, deliberate overflows;
//  * the network: random MAC ready, random credit_ok per {port, VC}, port
//    deaths (a dead port's frames are lost);
//  * the far end of every connection, emulated: it decodes every frame with
//    sue::decode (pad and FCS appended as the MAC would), accepts PDUs in PSN
//    order, drops some (loss), answers with ACK / NACK / re-ACK through the
//    feedback ports after a random delay (some feedback lost, so RTOs fire),
//    answers FO-REQs with the final expected PSN (FO-ACK), and raises random
//    owed ACK/NACK/DUP and FO-REQ events to exercise piggyback, ACK-only and
//    FO-ACK frames;
//  * checks: every frame decodes to the expected header and RH fields; new
//    PSNs are consecutive per connection and within the window; a resent PDU
//    carries the same commands; a new PDU carries exactly the next accepted
//    commands of its queue (byte for byte); every accepted command reaches
//    the far XPU exactly once (in order in strict mode and on one port); after
//    a drain nothing is left.
// Used by test_sue_tx_lockstep (RTL in lockstep) and test_sue_tx_model (model).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/rng.hpp"
#include "sue/crc.hpp"
#include "sue/encap.hpp"
#include "sue/sue_tx_model.hpp"

namespace suetx {

using sue::TxIn;
using sue::TxOut;
using sue::TxParams;
using Bytes = std::vector<uint8_t>;

struct HarnessCfg {
  uint64_t seed = 1;
  uint64_t cycles = 20000;   ///< traffic cycles (a drain follows)
  uint64_t drain = 200000;   ///< drain cycles at most: no new commands, no loss, MAC ready, credit_ok; it ends
                             ///< kQuiet cycles after everything is delivered, acknowledged and freed
  bool full_drain = false;   ///< run all `drain` cycles (owed ACKs leaving by age after the data is done)
  double p_cmd = 0.6;        ///< start a command in an idle cycle
  double p_bad = 0.02, p_err = 0.02, p_abort = 0.02, p_stray = 0.01, p_unknown = 0.01, p_overflow = 0.3;
  double p_ready = 0.8;      ///< MAC ready per port per cycle
  double p_credit = 0.9;     ///< credit_ok per {port, VC} (held for random stretches)
  double p_loss = 0.01;      ///< the far end loses a DATA frame
  double p_fb_loss = 0.02;   ///< an ACK/NACK feedback event is lost
  double p_owe = 0.01;       ///< a random owed ACK/NACK/DUP rides on a feedback event
  double p_fo_req = 0.0005;  ///< the peer asks us for an FO-ACK (random connection)
  /// A NACK(e) naming a connection's next unsent PSN (e = npsn: the receiver saw every PDU), per port and
  /// edge: in range, it acknowledges every PDU sent and starts no go-back-N. 0: never (no draw).
  double p_nack_next = 0;
  double p_fo_loss = 0.2;    ///< an FO-ACK answer is lost (the sender retries)
  double p_death = 0.0;      ///< per cycle: a port dies (multi-port variants, one port stays up)
  double p_reset = 0.0;      ///< per cycle: a mid-run reset (new random configuration)
  unsigned fb_delay_max = 40;
  unsigned link_delay = 20;  ///< cycles from a frame's eof to the far end (frames in flight die with the port)
  unsigned dlen_max = 0;     ///< 0: MaxData
  bool random_cfg = true;    ///< random weights, strict, timers at each reset
  bool narrow = false;       ///< all commands to peer 0, VC 0 (one connection per port: the window fills)
  bool strict = true;        ///< when !random_cfg
  int ack_count = -1;        ///< cfg_ack_count: -1 from a draw already made (0..8), else this value
  int ack_delay = -1;        ///< cfg_ack_delay: -1 as drawn (random_cfg) or 64, else this value
  int win_bytes = -1;        ///< cfg_win_bytes: -1 from a draw already made (off, or 64..8,192 bytes), else this value
};

struct HarnessStats {
  uint64_t cycles = 0, frames = 0, data_frames = 0, new_pdus = 0, rtx_pdus = 0, mig_pdus = 0, ack_only = 0,
           fo_req = 0, fo_ack = 0, delivered = 0, accepted = 0, resets = 0, deaths = 0, lost_frames = 0,
           max_inflight = 0, window_full_cycles = 0;
  uint64_t window_bytes_full_cycles = 0;  ///< connection-cycles with fewer than Window PDUs but the byte window full
  uint64_t max_inbytes = 0;               ///< the most bytes a connection held in flight
  uint64_t nack_next = 0;         ///< NACKs naming the connection's next unsent PSN (HarnessCfg::p_nack_next)
  uint64_t ack_only_acks = 0;     ///< ACK-only frames carrying an ACK (not a NACK: a NACK leaves at once)
  uint32_t strict_new_ports = 0;  ///< ports that carried a strict-mode NEW PDU (bit per port)
};

/// The model alone as a device under test.
class ModelDut {
 public:
  explicit ModelDut(const TxParams& p) : m_(p) {}
  void drive(const TxIn& in) { in_ = in; }
  void posedge() { m_.tick(in_); }
  TxOut outputs() const { return m_.outputs(); }
  const sue::TxModel& model() const { return m_; }

 private:
  sue::TxModel m_;
  TxIn in_;
};

/// Dut: drive(const TxIn&), posedge(), outputs(), model() (the twin: a lockstep block or ModelDut).
template <class Dut>
class Harness {
 public:
  Harness(sue::TxParams p, HarnessCfg c, Dut& dut)
      : p_(p), c_(c), dut_(dut), rng_(c.seed, "sue_tx_harness") {
    np_ = p_.num_ports;
    npe_ = p_.num_xpus;
    lite_ = p_.lite();
    dlen_max_ = c_.dlen_max ? std::min(c_.dlen_max, p_.max_data) : p_.max_data;
  }
  std::function<bool()> after_edge;  ///< called after every edge; false stops the run (lockstep mismatch)

  /// Runs traffic then the drain; "" or the first failure.
  std::string run() {
    new_config();
    do_reset(3);
    const uint64_t total = c_.cycles + c_.drain;
    uint64_t quiet_until = 0;  // the drain is done: a quiet stretch, then the final checks
    for (uint64_t t = 0; t < total && fail_.empty(); ++t) {
      draining_ = t >= c_.cycles;
      if (draining_ && !c_.full_drain && !quiet_until && (t & 255) == 0 && drained()) quiet_until = t + kQuiet;
      if (quiet_until && t >= quiet_until) break;
      if (!draining_ && rng_.chance(c_.p_reset)) {
        new_config();
        do_reset(1 + rng_.uniform(0, 2));
        ++st_.resets;
        continue;
      }
      cycle();
      if (after_edge && !after_edge()) return fail_.empty() ? "stopped" : fail_;
    }
    if (fail_.empty()) final_checks();
    return fail_;
  }
  const HarnessStats& stats() const { return st_; }
  const sue::TxCfg& cfg() const { return cfg_; }

 private:
  // ------------------------------------------------------------------ types
  struct Cmd {
    uint64_t id = 0;
    Bytes bytes;  // control (18) + data
  };
  struct FbEv {
    uint64_t due = 0;
    sue::Feedback f;
  };
  struct Arrival {  // a DATA frame on its way to the far end
    uint64_t due = 0;
    unsigned c = 0;
    uint32_t psn = 0;
    std::vector<uint64_t> ids;
  };
  struct Far {  // far end of one connection
    uint32_t exp = 0;
    bool nacked = false;
  };
  struct Conn {
    uint32_t next_new = 0;       // next new PSN (our view of npsn)
    uint32_t ackp = 0;           // cumulative ack point delivered to the TX (its ack_psn >= this)
    std::map<uint32_t, std::vector<uint64_t>> pdu;  // PSN -> command ids, PDUs sent and not known acked
    std::set<uint32_t> owed_ack, owed_nack;  // PSNs fed as owed (ACK/DUP, NACK)
    bool migrated_src = false;   // a dead connection whose PDUs migrate
    uint32_t fo_answer = 0;
    bool fo_answered = false;
  };

  unsigned cidx(unsigned p, unsigned i, unsigned v) const { return (p * npe_ + i) * 4 + v; }
  /// A drawn id 0..1023 mapped onto the ids that are not peers, never the own id: NumXpus..1023 (at
  /// NumXpus 1,024 there are none: the id itself, or the next one where it is the own id).
  uint32_t not_peer(uint32_t x) const {
    const uint32_t own = cfg_.own_xpuid;
    if (npe_ >= 1024 || (npe_ == 1023 && own == 1023)) return x == own ? (x + 1) % 1024 : x;
    uint32_t y = npe_ + x % (1024 - npe_);
    if (y == own) y = y + 1 < 1024 ? y + 1 : npe_;
    return y;
  }
  void failf(const std::string& s) {
    if (fail_.empty()) {
      std::ostringstream os;
      os << "cycle " << t_ << ": " << s;
      fail_ = os.str();
    }
  }

  // ------------------------------------------------------------------ configuration and reset
  void new_config() {
    cfg_ = sue::TxCfg{};
    // The own id among the addressable ones (0..NumXpus-1: that id is not a peer) or above them.
    cfg_.own_xpuid = static_cast<uint32_t>(rng_.chance(0.7) ? rng_.uniform(0, npe_ - 1) : rng_.uniform(npe_, 1023));
    peers_.clear();
    for (unsigned i = 0; i < npe_; ++i)
      if (i != cfg_.own_xpuid) peers_.push_back(i);
    cfg_.partition = static_cast<uint32_t>(rng_.uniform(0, 1023));
    cfg_.hop_count = static_cast<uint32_t>(rng_.uniform(0, 255));
    // 0 (off) .. 8 owed events, from a draw already made: no new draw, so each seed's stimulus stays.
    cfg_.ack_count = c_.ack_count < 0 ? cfg_.hop_count % 9 : static_cast<uint32_t>(c_.ack_count);
    // The byte window: off for a third of the configurations, else 64 << (0..7) bytes (from one PDU at a
    // time to several), again from a draw already made.
    cfg_.win_bytes = c_.win_bytes >= 0 ? static_cast<uint32_t>(c_.win_bytes)
                                       : (cfg_.partition % 3 == 0 ? 0u : 64u << ((cfg_.partition / 3) % 8));
    if (c_.random_cfg) {
      cfg_.strict = rng_.chance(0.5);
      for (auto& w : cfg_.vc_weight) w = static_cast<uint32_t>(rng_.uniform(0, 15));
      cfg_.rto = static_cast<uint32_t>(rng_.chance(0.2) ? rng_.uniform(0, 3) : rng_.uniform(200, 2000));
      cfg_.ack_delay = static_cast<uint32_t>(rng_.chance(0.2) ? 0 : rng_.uniform(1, 300));
      cfg_.fo_retry = static_cast<uint32_t>(rng_.chance(0.1) ? 0 : rng_.uniform(50, 600));
    } else {
      cfg_.strict = c_.strict;
      cfg_.rto = 1500;
      cfg_.ack_delay = 64;
      cfg_.fo_retry = 300;
    }
    if (c_.ack_delay >= 0) cfg_.ack_delay = static_cast<uint32_t>(c_.ack_delay);
  }

  void do_reset(uint64_t edges) {
    TxIn in;
    in.rst_n = false;
    in.cfg = cfg_;
    // garbage on the other inputs: ignored in reset
    in.tx_valid = static_cast<uint32_t>(rng_.uniform(0, 3));
    in.port_up = static_cast<uint32_t>(rng_.next());
    in.credit_ok = static_cast<uint32_t>(rng_.next());
    for (uint64_t k = 0; k < edges; ++k) {
      dut_.drive(in);
      dut_.posedge();
      ++t_;
      if (after_edge && !after_edge()) return;
    }
    const unsigned nq = p_.nq(), nc = p_.nc();
    credits_.assign(nq, p_.qdepth);
    expq_.assign(nq, {});
    delivered_.assign(nq, {});
    conn_.assign(nc, Conn{});
    far_.assign(nc, Far{});
    fbq_.assign(np_, {});
    arrive_.assign(np_, {});
    frame_.assign(np_, {});
    in_frame_.assign(np_, false);
    dead_.assign(np_, false);
    port_up_ = (1u << np_) - 1;
    cur_.clear();
    cur_pos_ = 0;
    cur_expect_ = false;
    cur_credit_q_ = -1;
    credit_ok_ = (1u << (4 * np_)) - 1;
    lost_allowed_ = false;
    inflight_ids_.clear();
    mig_pending_.clear();
    fo_answers_.clear();
    cmd_bytes_.clear();
    delivered_ids_.clear();
  }

  // ------------------------------------------------------------------ XPU driver
  // A command as the cycles it takes (tx_valid, tx_cycle, ...).
  struct Beat {
    uint32_t valid = 0, cycle = 0, vc = 0, xpuid = 0;
    std::array<uint8_t, 18> ctrl{};
    std::array<uint8_t, sue::kMaxDB> data{};
    bool err = false;
  };
  std::vector<Beat> cur_;
  size_t cur_pos_ = 0;
  bool cur_expect_ = false;  // accepted when all beats go through
  int cur_credit_q_ = -1;    // queue whose credit this command spent
  Cmd cur_cmd_;

  void new_command() {
    cur_.clear();
    cur_pos_ = 0;
    cur_expect_ = false;
    cur_credit_q_ = -1;
    const unsigned DB = p_.db();
    if (rng_.chance(c_.p_stray)) {
      Beat b;
      b.valid = 3;
      cur_.push_back(b);
      return;
    }
    // the command
    uint32_t dlen = rng_.chance(0.3) ? 0 : static_cast<uint32_t>(rng_.uniform(1, dlen_max_));
    if (rng_.chance(0.1)) dlen = dlen_max_;
    if (rng_.chance(0.1)) dlen = std::min<uint32_t>(dlen_max_, DB * static_cast<uint32_t>(rng_.uniform(1, 4)));
    const unsigned i = c_.narrow ? peers_[0] : peer_draw();
    const unsigned v = c_.narrow ? 0 : static_cast<unsigned>(rng_.uniform(0, 3));
    const unsigned q = i * 4 + v;
    Beat b0;
    b0.vc = v;
    b0.xpuid = i;
    const uint64_t id = ++next_id_;
    for (auto& x : b0.ctrl) x = static_cast<uint8_t>(rng_.next());
    b0.ctrl[1] = static_cast<uint8_t>(dlen >> 4);
    b0.ctrl[2] = static_cast<uint8_t>(((dlen & 0xf) << 4) | (b0.ctrl[2] & 0xf));
    for (int k = 0; k < 8; ++k) b0.ctrl[3 + k] = static_cast<uint8_t>(id >> (8 * k));
    Bytes data(dlen);
    for (auto& x : data) x = static_cast<uint8_t>(rng_.next());
    const unsigned nb = dlen ? (dlen + DB - 1) / DB : 1;
    for (unsigned k = 0; k < nb; ++k) {
      Beat b = b0;
      b.valid = dlen ? 2 : 1;
      b.cycle = k;
      for (unsigned j = 0; j < 64; ++j) b.data[j] = static_cast<uint8_t>(rng_.next());  // beyond dlen: garbage
      for (unsigned j = 0; j < DB && k * DB + j < dlen; ++j) b.data[j] = data[k * DB + j];
      if (k > 0) {  // vc, xpuid, control only read on beat 0
        b.vc = static_cast<uint32_t>(rng_.uniform(0, 3));
        b.xpuid = static_cast<uint32_t>(rng_.uniform(0, 1023));
        for (auto& x : b.ctrl) x = static_cast<uint8_t>(rng_.next());
      }
      cur_.push_back(b);
    }
    if (rng_.chance(c_.p_bad)) {  // a malformed first beat (and the rest as strays of it)
      switch (rng_.uniform(0, 3)) {
        case 0: cur_[0].cycle = static_cast<uint32_t>(rng_.uniform(1, 15)); break;
        case 1: cur_[0].valid = 1, cur_[0].ctrl[1] |= 0x01; break;  // dlen != 0 with valid 1
        case 2: cur_[0].valid = 2, cur_[0].ctrl[1] = 0, cur_[0].ctrl[2] &= 0x0f; break;  // dlen 0, valid 2
        default: {  // dlen > MaxData
          const uint32_t big = static_cast<uint32_t>(rng_.uniform(p_.max_data + 1, 4095));
          cur_[0].valid = 2;
          cur_[0].ctrl[1] = static_cast<uint8_t>(big >> 4);
          cur_[0].ctrl[2] = static_cast<uint8_t>(((big & 0xf) << 4) | (cur_[0].ctrl[2] & 0xf));
        }
      }
      return;  // bad: no credit spent
    }
    if (rng_.chance(c_.p_unknown)) {
      uint32_t x;
      bool in_table;
      do {
        x = static_cast<uint32_t>(rng_.uniform(0, 1023));
        in_table = false;
        in_table = x < npe_ && x != cfg_.own_xpuid;
      } while (in_table);
      cur_[0].xpuid = x;
      return;  // unknown destination: dropped, no credit
    }
    if (credits_[q] == 0) {
      if (!rng_.chance(c_.p_overflow)) {  // respect the credit: send nothing this time
        cur_.clear();
        return;
      }
      return;  // deliberate overflow: dropped, no credit spent
    }
    --credits_[q];
    cur_credit_q_ = static_cast<int>(q);
    if (rng_.chance(c_.p_err)) {
      cur_[rng_.uniform(0, cur_.size() - 1)].err = true;  // dropped, credit back
      return;
    }
    if (cur_.size() > 1 && rng_.chance(c_.p_abort)) {  // cut short: a wrong cycle aborts it
      const size_t at = rng_.uniform(1, cur_.size() - 1);
      cur_.resize(at + 1);
      Beat& x = cur_[at];
      switch (rng_.uniform(0, 3)) {
        case 0: x.valid = 0; break;
        case 1: x.valid = 1, x.cycle = 0; break;
        case 2: x.valid = 3; break;
        default: x.cycle = (x.cycle + 1 + static_cast<uint32_t>(rng_.uniform(0, 13))) & 0xf; break;
      }
      if (x.valid == 2 && x.cycle == at) x.cycle = (x.cycle + 1) & 0xf;
      aborted_ = true;
      return;
    }
    cur_expect_ = true;
    cur_cmd_.id = id;
    cur_cmd_.bytes.assign(b0.ctrl.begin(), b0.ctrl.end());
    cur_cmd_.bytes.insert(cur_cmd_.bytes.end(), data.begin(), data.end());
    cur_q_ = q;
  }
  bool aborted_ = false;
  unsigned cur_q_ = 0;

  // ------------------------------------------------------------------ one cycle
  void cycle() {
    const TxOut o = dut_.outputs();
    // credits returned at the last edge
    for (unsigned q = 0; q < p_.nq(); ++q) {
      credits_[q] += o.tx_credit[q];
      if (credits_[q] > p_.qdepth) failf("queue " + std::to_string(q) + ": more credits returned than spent");
    }
    // every connection's window, read from the twin (in lockstep it equals the RTL on the debug port)
    if (!lite_) {
      const sue::TxModel& m = dut_.model();
      for (unsigned c = 0; c < p_.nc(); ++c) {
        const uint32_t fl = m.conn_inflight(c);
        if (fl > p_.window) failf("conn_inflight > Window on connection " + std::to_string(c));
        st_.max_inflight = std::max<uint64_t>(st_.max_inflight, fl);
        if (fl == p_.window) ++st_.window_full_cycles;
        const uint32_t ib = m.conn_inbytes(c);
        st_.max_inbytes = std::max<uint64_t>(st_.max_inbytes, ib);
        if (cfg_.win_bytes && fl < p_.window && ib >= cfg_.win_bytes) ++st_.window_bytes_full_cycles;
        // the byte window: only a PDU started below it may exceed it, by less than that PDU
        if (cfg_.win_bytes && ib >= cfg_.win_bytes + p_.max_pack)
          failf(fmt::format("connection {}: {} bytes in flight, byte window {} + MaxPack {}", c, ib, cfg_.win_bytes, p_.max_pack));
      }
      if (o.dbg_inflight > p_.window) failf("dbg_inflight_o > Window on connection " + std::to_string(dbg_conn_));
      if ((o.dbg_inbytes == 0) != (o.dbg_inflight == 0))
        failf(fmt::format("debug port, connection {}: {} PDUs but {} bytes in flight", dbg_conn_, o.dbg_inflight, o.dbg_inbytes));
    }
    if (o.dbg_q_count > p_.pool_slots() || o.dbg_q_unsent > p_.q_cap() || o.dbg_q_unsent > o.dbg_q_count)
      failf(fmt::format("debug port, queue {}: count {} unsent {}", dbg_q_, o.dbg_q_count, o.dbg_q_unsent));
    TxIn in;
    in.rst_n = true;
    in.cfg = cfg_;
    in.cfg.own_xpuid ^= 0x155;  // cfg is ignored out of reset
    // the debug read ports: odd cycles the queue of the command being received (its connection on a
    // rotating port), even cycles a sweep over every index the ports' widths allow (clog2(NQ), clog2(NC)
    // bits: with an XPU count not a power of 2 the indices >= NQ, NC exist and read 0)
    if (t_ & 1) {
      dbg_q_ = cur_q_;
      dbg_conn_ = static_cast<unsigned>(((t_ / 2) % np_) * p_.nq() + cur_q_);
    } else {
      const auto p2 = [](unsigned v) {  // 2^clog2(v)
        unsigned r = 1;
        while (r < v) r <<= 1;
        return r;
      };
      dbg_q_ = static_cast<unsigned>((t_ / 2) % p2(p_.nq()));
      dbg_conn_ = static_cast<unsigned>((t_ / 2) % p2(p_.nc()));
    }
    in.dbg_q = dbg_q_, in.dbg_conn = dbg_conn_;
    // network
    for (unsigned p = 0; p < np_; ++p)
      if (draining_ || rng_.chance(c_.p_ready)) in.mac_tx_ready |= 1u << p;
    if (draining_) {
      credit_ok_ = (1u << (4 * np_)) - 1;
    } else {
      for (unsigned k = 0; k < 4 * np_; ++k)
        if (rng_.chance(0.02)) credit_ok_ = (credit_ok_ & ~(1u << k)) | (rng_.chance(c_.p_credit) ? (1u << k) : 0u);
    }
    in.credit_ok = credit_ok_;
    if (!draining_ && np_ > 1 && rng_.chance(c_.p_death)) {
      unsigned live = 0;
      for (unsigned p = 0; p < np_; ++p) live += !dead_[p];
      if (live > 1) {
        unsigned p;
        do p = static_cast<unsigned>(rng_.uniform(0, np_ - 1));
        while (dead_[p]);
        kill(p);
      }
    }
    // a dead port may come back up: it stays dead until reset
    uint32_t up = port_up_;
    for (unsigned p = 0; p < np_; ++p)
      if (dead_[p] && rng_.chance(0.001)) up |= 1u << p;
    in.port_up = up;
    // frames reaching the far end now
    for (unsigned p = 0; p < np_; ++p)
      while (!arrive_[p].empty() && arrive_[p].front().due <= t_) {
        const Arrival a = arrive_[p].front();
        arrive_[p].pop_front();
        far_end(p, a.c, a.psn, a.ids, false);
      }
    // feedback due now
    for (unsigned p = 0; p < np_; ++p) {
      auto& fq = fbq_[p];
      if (!fq.empty() && fq.front().due <= t_) {
        in.fb[p] = fq.front().f;
        fq.pop_front();
      }
      if (!in.fb[p].valid && !draining_ && !lite_ && !dead_[p] && c_.p_nack_next > 0 && rng_.chance(c_.p_nack_next)) {
        sue::Feedback f;
        f.valid = true;
        f.peer = peer_draw();
        f.vc = static_cast<uint32_t>(rng_.uniform(0, 3));
        f.rop = 2;
        const Conn& x = conn_[cidx(p, f.peer, f.vc)];
        f.rapsn = x.next_new;
        // PDUs outstanding (in range), and the far end has seen every one of them: a receiver names its
        // expected PSN only (one that still waits for a lost PDU could never send this NACK, and a stub
        // that did would make the sender free PDUs the far end never got)
        if (x.next_new != x.ackp && far_[cidx(p, f.peer, f.vc)].exp == x.next_new) {
          in.fb[p] = f;
          ++st_.nack_next;
        }
      }
      if (!in.fb[p].valid && !draining_ && !lite_ && rng_.chance(c_.p_owe)) {  // an owed ACK/NACK/DUP alone
        sue::Feedback f;
        f.valid = true;
        // 5 %: an XPU id that is not a peer: >= NumXpus (ignored by sue_tx), never the own id (sue_rx drops
        // every frame from it, so no feedback can name it)
        f.peer = rng_.chance(0.05) ? not_peer(static_cast<uint32_t>(rng_.uniform(0, 1023))) : peer_draw();
        f.vc = static_cast<uint32_t>(rng_.uniform(0, 3));
        f.owe = static_cast<uint32_t>(rng_.uniform(1, 3));
        f.owe_psn = static_cast<uint32_t>(rng_.uniform(0, 0xffff));
        in.fb[p] = f;
      }
      if (!in.fb[p].valid && !draining_ && !lite_ && rng_.chance(c_.p_fo_req)) {  // the peer asks us for an answer
        sue::Feedback f;
        f.valid = true;
        f.peer = peer_draw();
        f.vc = static_cast<uint32_t>(rng_.uniform(0, 3));
        f.fo = sue::kFoReq;
        f.fo_port = static_cast<uint32_t>(rng_.uniform(0, np_ - 1));
        f.owe_psn = static_cast<uint32_t>(rng_.uniform(0, 0xffff));
        in.fb[p] = f;
        fo_answers_[cidx(f.fo_port, f.peer, f.vc)].insert(f.owe_psn);
      }
      if (lite_ && rng_.chance(0.01)) {  // Lite ignores the feedback ports
        in.fb[p].valid = true;
        in.fb[p].rop = 1;
        in.fb[p].fo = static_cast<uint32_t>(rng_.uniform(0, 2));
      }
      if (in.fb[p].valid) apply_fb_sent(p, in.fb[p]);
    }
    // XPU
    if (cur_pos_ >= cur_.size() && !draining_ && rng_.chance(c_.p_cmd)) new_command();
    if (cur_pos_ < cur_.size()) {
      const Beat& b = cur_[cur_pos_++];
      in.tx_valid = b.valid, in.tx_cycle = b.cycle, in.tx_vc = b.vc, in.tx_xpuid = b.xpuid;
      in.tx_control = b.ctrl, in.tx_data = b.data, in.tx_err = b.err;
      if (cur_pos_ == cur_.size()) {  // the command ends at this edge
        if (cur_expect_) {
          expq_[cur_q_].push_back(cur_cmd_);
          cmd_bytes_[cur_cmd_.id] = cur_cmd_.bytes;
          ++st_.accepted;
        }
        // an erred or aborted command got its credit back; the driver sees it in tx_credit_o
      }
    } else {
      // idle: random garbage on the data inputs
      in.tx_valid = 0;
      in.tx_cycle = static_cast<uint32_t>(rng_.uniform(0, 15));
      in.tx_xpuid = static_cast<uint32_t>(rng_.uniform(0, 1023));
      in.tx_err = rng_.chance(0.1);
    }
    // beats transferred at this edge
    for (unsigned p = 0; p < np_; ++p) {
      if (!((o.mac_tx_valid >> p) & 1u) || !((in.mac_tx_ready >> p) & 1u)) continue;
      const bool link = !dead_[p] && ((in.port_up >> p) & 1u);
      const bool sof = (o.mac_tx_sof >> p) & 1u, eof = (o.mac_tx_eof >> p) & 1u;
      const unsigned nb = o.mac_tx_nbytes[p];
      if (nb < 1 || nb > 32 || (!eof && nb != 32)) failf("bad nbytes " + std::to_string(nb));
      for (unsigned k = nb; k < 32; ++k)
        if (o.mac_tx_data[p][k] != 0) failf("a byte beyond nbytes is not 0");
      if (sof) {
        if (in_frame_[p] && link) failf("sof inside a frame on port " + std::to_string(p));
        frame_[p].clear();
        in_frame_[p] = true;
      } else if (!in_frame_[p]) {
        if (link) failf("a beat outside a frame on port " + std::to_string(p));
        continue;
      }
      frame_[p].insert(frame_[p].end(), o.mac_tx_data[p].begin(), o.mac_tx_data[p].begin() + nb);
      if (eof) {
        in_frame_[p] = false;
        if (link) {
          on_frame(p, frame_[p]);
        } else {
          ++st_.lost_frames;
        }
      }
    }
    dut_.drive(in);
    dut_.posedge();
    ++t_;
    ++st_.cycles;
  }

  void kill(unsigned p) {
    dead_[p] = true;
    port_up_ &= ~(1u << p);
    in_frame_[p] = false;
    fbq_[p].clear();  // a dead port's receiver reports nothing more
    st_.lost_frames += arrive_[p].size();
    arrive_[p].clear();  // frames on the dead link are lost
    ++st_.deaths;
    if (lite_) {
      lost_allowed_ = true;
      return;
    }
    for (unsigned i = 0; i < npe_; ++i)
      for (unsigned v = 0; v < 4; ++v) {
        Conn& x = conn_[cidx(p, i, v)];
        if (!x.pdu.empty()) x.migrated_src = true;
      }
  }

  // ------------------------------------------------------------------ feedback bookkeeping
  void apply_fb_sent(unsigned p, const sue::Feedback& f) {
    if (dead_[p] || lite_) return;
    if (f.peer >= npe_) return;  // ignored by the TX
    if (f.rop == 1) {  // cumulative ACK(a): the TX's ack_psn becomes a+1 if in range
      Conn& x = conn_[cidx(p, f.peer, f.vc)];
      const uint32_t a1 = (f.rapsn + 1) & 0xffff;
      const uint32_t d = (a1 - x.ackp) & 0xffff, o = (x.next_new - x.ackp) & 0xffff;
      if (d >= 1 && d <= o) {
        for (auto it = x.pdu.begin(); it != x.pdu.end();) {
          if (((it->first - x.ackp) & 0xffff) < d) {
            it = x.pdu.erase(it);
          } else {
            ++it;
          }
        }
        x.ackp = a1;
      }
    }
    if (f.rop == 2) {  // NACK(e): ack_psn becomes e if in range
      Conn& x = conn_[cidx(p, f.peer, f.vc)];
      const uint32_t d = (f.rapsn - x.ackp) & 0xffff, o = (x.next_new - x.ackp) & 0xffff;
      if (d > 0 && d <= o) {
        for (auto it = x.pdu.begin(); it != x.pdu.end();) {
          if (((it->first - x.ackp) & 0xffff) < d) {
            it = x.pdu.erase(it);
          } else {
            ++it;
          }
        }
        x.ackp = f.rapsn & 0xffff;
      }
    }
    if (f.owe && f.peer < npe_) {
      Conn& x = conn_[cidx(p, f.peer, f.vc & 3)];
      (f.owe == sue::kOweNack ? x.owed_nack : x.owed_ack).insert(f.owe_psn);
    }
  }

  void schedule_fb(unsigned p, const sue::Feedback& f, bool lossy) {
    if (dead_[p]) return;
    if (lossy && !draining_ && rng_.chance(c_.p_fb_loss)) return;
    auto& fq = fbq_[p];
    uint64_t due = t_ + 1 + rng_.uniform(0, c_.fb_delay_max);
    if (!fq.empty()) due = std::max(due, fq.back().due + 1);
    fq.push_back(FbEv{due, f});
  }

  // ------------------------------------------------------------------ a frame sent on port p
  void on_frame(unsigned p, Bytes fr) {
    ++st_.frames;
    Bytes w = fr;
    if (w.size() < sue::kEthMinNoFcs) w.resize(sue::kEthMinNoFcs, 0);
    const uint32_t fcs = sue::fcs32(w.data(), w.size());
    for (int k = 0; k < 4; ++k) w.push_back(static_cast<uint8_t>(fcs >> (8 * k)));
    sue::DecodeOptions opt;
    opt.profile = lite_ ? sue::Profile::SueLite : sue::Profile::Sue;
    opt.encap = lite_ ? sue::Encap::AfhGen2_6 : sue::Encap::AfhGen2_12;
    auto d = sue::decode(w, opt);
    if (!d) return failf("frame on port " + std::to_string(p) + " does not decode: " + d.error().message());
    const sue::Frame& f = d.value().frame;
    // header
    unsigned v = f.afh2.tc & 3, i = 0;
    if (f.afh2.tc > 3) failf("traffic class > 3");
    if (lite_) {
      bool found = false;
      i = f.afh2.dst_xpu;
      found = i < npe_ && i != cfg_.own_xpuid;
      if (!found) return failf("Lite frame to an XPU that is not a peer (own id or >= NumXpus)");
    } else {
      // the entropy is the low 8 bits of peer*4+vc (AFH Gen2 12-byte: one byte; peers >= 64 wrap)
      i = f.afh2.dst_xpu;
      if (i >= npe_ || i == cfg_.own_xpuid) return failf("dst_xpu is not a peer (own id or >= NumXpus)");
      if (f.afh2.entropy != ((i * 4 + v) & 0xffu)) return failf("entropy != low 8 bits of peer*4+vc");
      if (f.afh2.hop_count != cfg_.hop_count) failf("hop_count");
      const auto& rh = f.rh;
      if (rh.ver != 0 || rh.rsv != 0 || rh.xpuid != cfg_.own_xpuid || rh.vc != v || rh.partition != cfg_.partition)
        failf("RH ver/rsv/xpuid/vc/partition");
    }
    if (f.afh2.src_xpu != cfg_.own_xpuid || f.afh2.m != 0 || f.afh2.v != 0) failf("src_xpu / M / V");
    if (fail_.size()) return;
    const unsigned q = i * 4 + v;
    if (lite_) return lite_frame(q, f);
    const auto& rh = f.rh;
    const unsigned c = cidx(p, i, v);
    Conn& x = conn_[c];
    if (rh.rsvd & 8) {  // FO frame
      if (!f.cmds.empty() || rh.npsn != 0 || (rh.rsvd & 4)) return failf("FO frame not an empty PDU with npsn 0");
      const unsigned fp = rh.rsvd & 3, fc = cidx(fp, i, v);
      if (rh.op == 0) {
        ++st_.fo_req;
        if (rh.apsn != 0) failf("FO-REQ apsn != 0");
        if (!dead_[fp]) return failf("FO-REQ about a live port");
        // the peer answers with its final expected PSN (unless the answer is lost)
        if (!rng_.chance(draining_ ? 0.0 : c_.p_fo_loss)) {
          unsigned lp = np_;
          for (unsigned k = 0; k < np_; ++k)
            if (!dead_[k]) {
              lp = k;
              break;
            }
          if (lp < np_) {
            sue::Feedback fb;
            fb.valid = true, fb.peer = i, fb.vc = v, fb.fo = sue::kFoAck, fb.fo_port = fp;
            fb.rapsn = (far_[fc].exp - 1) & 0xffff;
            schedule_fb(lp, fb, false);
            mig_answer(fc);
          }
        }
      } else if (rh.op == 1) {
        ++st_.fo_ack;
        auto it = fo_answers_.find(fc);
        if (it == fo_answers_.end()) return failf("FO-ACK nobody asked for");
        if (!it->second.count(rh.apsn)) failf("FO-ACK apsn is no requested answer");
      } else {
        failf("FO frame with op 2");
      }
      return;
    }
    if (f.cmds.empty()) {  // ACK-only
      ++st_.ack_only;
      if (rh.op == 1) ++st_.ack_only_acks;
      if (rh.op == 0) failf("ACK-only frame without an ACK/NACK");
      if (rh.npsn != x.next_new) failf("ACK-only npsn != the connection's npsn");
      check_owed(x, rh.op, rh.apsn);
      return;
    }
    ++st_.data_frames;
    if (rh.op != 0) check_owed(x, rh.op, rh.apsn);
    if (rh.op == 0 && rh.apsn != 0) failf("RH op 0 with apsn != 0");
    // commands: ids from control bytes 3..10, bytes as sent
    std::vector<uint64_t> ids;
    for (const Bytes& cb : f.cmds) {
      if (cb.size() < 18) return failf("command shorter than 18 bytes");
      uint64_t id = 0;
      for (int k = 0; k < 8; ++k) id |= uint64_t(cb[3 + k]) << (8 * k);
      auto it = cmd_bytes_.find(id);
      if (it == cmd_bytes_.end()) return failf("a command that was never accepted");
      if (it->second != cb) return failf("command bytes differ from those sent");
      ids.push_back(id);
    }
    {
      size_t P = 0;
      for (const Bytes& cb : f.cmds) P += 2 + cb.size();
      if (P > p_.max_pack) failf("P > MaxPack");
    }
    const uint32_t psn = rh.npsn;
    if (psn == x.next_new) {
      // new: the next commands of the queue, or a migrated PDU
      // A NEW PDU is a run of consecutive commands of its queue. They leave in queue order, but in
      // unordered mode the frames of one queue on different ports may end out of order.
      auto& eq = expq_[q];
      size_t at = 0;
      while (at < eq.size() && eq[at].id != ids[0]) ++at;
      bool is_new = at + ids.size() <= eq.size();
      for (size_t k = 0; is_new && k < ids.size(); ++k) is_new = eq[at + k].id == ids[k];
      if (is_new) {
        if (at > 0 && ordered()) return failf("a NEW PDU skips older commands of its queue (strict order)");
        if (cfg_.strict) {  // pinned: the first port not dead from (own + peer XPU id + VC) mod NumPorts
          unsigned pin = (cfg_.own_xpuid + q / 4 + q % 4) % np_;
          for (unsigned k = 0; k < np_ && dead_[pin]; ++k) pin = (pin + 1) % np_;
          if (p != pin) return failf("a strict-mode NEW PDU of queue " + std::to_string(q) + " on port " + std::to_string(p) + ", pinned to " + std::to_string(pin));
          st_.strict_new_ports |= 1u << p;
        }
        eq.erase(eq.begin() + static_cast<long>(at), eq.begin() + static_cast<long>(at + ids.size()));
        ++st_.new_pdus;
      } else {
        auto it = std::find(mig_pending_.begin(), mig_pending_.end(), ids);
        if (it == mig_pending_.end()) {
          std::ostringstream os;
          os << "new PSN " << psn << " on port " << p << " queue " << q
             << " carries neither the next commands of its queue nor a migrated PDU: ids";
          for (auto id : ids) os << " " << id;
          os << "; queue head";
          for (size_t k = 0; k < std::min<size_t>(eq.size(), 4); ++k) os << " " << eq[k].id;
          os << "; migrations pending " << mig_pending_.size();
          for (auto& m : mig_pending_) os << " [" << (m.empty() ? 0 : m.front()) << "+" << m.size() << "]";
          return failf(os.str());
        }
        mig_pending_.erase(it);
        ++st_.mig_pdus;
      }
      if (((psn - x.ackp) & 0xffff) >= p_.window) failf("PSN beyond the window");
      x.pdu[psn] = ids;
      x.next_new = (psn + 1) & 0xffff;
    } else {
      auto it = x.pdu.find(psn);
      if (it == x.pdu.end()) {
        // a resend of a PDU acknowledged in the meantime is possible (ACK raced the resend): PSN behind ackp
        const uint32_t behind = (x.ackp - psn) & 0xffff;
        if (behind == 0 || behind > p_.window * 2) return failf("PSN " + std::to_string(psn) + " neither new nor held (npsn " + std::to_string(x.next_new) + ")");
      } else if (it->second != ids) {
        return failf("retransmitted PDU carries other commands");
      }
      ++st_.rtx_pdus;
    }
    arrive_[p].push_back(Arrival{t_ + c_.link_delay, c, psn, ids});
  }

  void check_owed(const Conn& x, unsigned op, uint32_t apsn) {
    if (op == 3) return failf("RH op 3");
    const auto& set = op == 2 ? x.owed_nack : x.owed_ack;
    if (!set.count(apsn)) failf("RH op " + std::to_string(op) + " apsn " + std::to_string(apsn) + " was never owed");
  }

  // The peer's answer to FO-REQ(fc): the PDUs from exp on migrate.
  void mig_answer(unsigned fc) {
    Conn& x = conn_[fc];
    if (x.fo_answered) return;
    x.fo_answered = true;
    const uint32_t exp = far_[fc].exp;
    for (auto& [psn, ids] : x.pdu) {
      if (((psn - exp) & 0xffff) < 0x8000) mig_pending_.push_back(ids);
    }
    x.pdu.clear();
  }

  void far_end(unsigned p, unsigned c, uint32_t psn, const std::vector<uint64_t>& ids, bool /*carried_ack*/) {
    Far& fe = far_[c];
    const unsigned i = (c / 4) % npe_, v = c % 4;
    sue::Feedback f;
    f.valid = true, f.peer = i, f.vc = v;
    const uint32_t d = (psn - fe.exp) & 0xffff;
    if (d == 0 && !(draining_ ? false : rng_.chance(c_.p_loss))) {
      fe.exp = (fe.exp + 1) & 0xffff;
      fe.nacked = false;
      deliver(i * 4 + v, ids, c);
      f.rop = 1, f.rapsn = (fe.exp - 1) & 0xffff;
    } else if (d < 0x8000) {  // lost, or ahead of a lost one
      if (fe.nacked) return;
      fe.nacked = true;
      f.rop = 2, f.rapsn = fe.exp;
    } else {  // duplicate: re-ACK
      f.rop = 1, f.rapsn = (fe.exp - 1) & 0xffff;
    }
    if (rng_.chance(c_.p_owe)) {
      f.owe = static_cast<uint32_t>(rng_.uniform(1, 3));
      f.owe_psn = static_cast<uint32_t>(rng_.uniform(0, 0xffff));
    }
    schedule_fb(p, f, true);
  }

  void deliver(unsigned q, const std::vector<uint64_t>& ids, unsigned c) {
    auto& dl = delivered_[q];
    for (uint64_t id : ids) {
      if (delivered_ids_.count(id)) return failf("command delivered twice");
      delivered_ids_.insert(id);
      ++st_.delivered;
      if (ordered()) {
        if (!dl.empty() && dl.back() > id) failf("command delivered out of order on queue " + std::to_string(q));
        dl.push_back(id);
      }
    }
    (void)c;
  }
  bool ordered() const { return np_ == 1 || cfg_.strict; }

  void lite_frame(unsigned q, const sue::Frame& f) {
    auto& eq = expq_[q];
    std::vector<uint64_t> ids;
    for (const Bytes& cb : f.cmds) {
      if (cb.size() < 18) return failf("command shorter than 18 bytes");
      uint64_t id = 0;
      for (int k = 0; k < 8; ++k) id |= uint64_t(cb[3 + k]) << (8 * k);
      auto it = cmd_bytes_.find(id);
      if (it == cmd_bytes_.end() || it->second != cb) return failf("Lite: command bytes differ from those sent");
      ids.push_back(id);
    }
    if (ids.empty()) return failf("Lite frame without commands");
    size_t at = 0;
    while (at < eq.size() && eq[at].id != ids[0]) ++at;
    if (at == eq.size()) return failf("Lite: a command not queued (or sent twice)");
    if (at > 0 && !lost_allowed_) return failf("Lite: commands skipped without a port death");
    for (size_t k = 0; k < ids.size(); ++k)
      if (at + k >= eq.size() || eq[at + k].id != ids[k]) return failf("Lite: PDU commands not consecutive in the queue");
    eq.erase(eq.begin(), eq.begin() + static_cast<long>(at + ids.size()));
    ++st_.new_pdus;
    ++st_.data_frames;
    deliver(q, ids, 0);
  }

  static constexpr uint64_t kQuiet = 2000;
  // Everything delivered, acknowledged and freed (what final_checks() requires).
  bool drained() {
    const TxOut o = dut_.outputs();
    if (o.pool_used != 0 || !mig_pending_.empty()) return false;
    for (unsigned q = 0; q < p_.nq(); ++q)
      if ((!expq_[q].empty() && !(lite_ && lost_allowed_)) || credits_[q] != p_.qdepth) return false;
    return true;
  }

  void final_checks() {
    const TxOut o = dut_.outputs();
    for (unsigned q = 0; q < p_.nq(); ++q) {
      if (!expq_[q].empty() && !(lite_ && lost_allowed_))
        return failf("after the drain, queue " + std::to_string(q) + " still holds unsent commands");
      if (dut_.model().q_count(q) != 0) return failf("after the drain, q_count of queue " + std::to_string(q) + " != 0");
      if (credits_[q] != p_.qdepth) return failf("after the drain, credits of queue " + std::to_string(q) + " not all back");
    }
    if (o.pool_used != 0) return failf(fmt::format("after the drain, pool_used_o = {} (want 0)", o.pool_used));
    if (!mig_pending_.empty()) return failf("after the drain, migrated PDUs never sent");
    for (const auto& [id, b] : cmd_bytes_)
      if (!delivered_ids_.count(id) && !(lite_ && lost_allowed_)) return failf("a command never delivered");
  }

  // ------------------------------------------------------------------ state
  TxParams p_;
  HarnessCfg c_;
  Dut& dut_;
  core::Rng rng_;
  unsigned np_ = 1, npe_ = 4, dlen_max_ = 1;
  std::vector<unsigned> peers_;  // the XPU ids commands may go to: 0..NumXpus-1 but the own one
  unsigned peer_draw() { return peers_[static_cast<size_t>(rng_.uniform(0, peers_.size() - 1))]; }
  bool lite_ = false, draining_ = false, lost_allowed_ = false;
  uint64_t t_ = 0, next_id_ = 0;
  unsigned dbg_q_ = 0, dbg_conn_ = 0;  // what the debug read ports show after this edge
  sue::TxCfg cfg_;
  std::vector<unsigned> credits_;
  std::vector<std::deque<Cmd>> expq_;
  std::vector<std::vector<uint64_t>> delivered_;
  std::set<uint64_t> delivered_ids_;
  std::map<uint64_t, Bytes> cmd_bytes_;
  std::vector<Conn> conn_;
  std::vector<Far> far_;
  std::vector<std::deque<FbEv>> fbq_;
  std::vector<std::deque<Arrival>> arrive_;
  std::vector<Bytes> frame_;
  std::vector<bool> in_frame_, dead_;
  uint32_t port_up_ = 1, credit_ok_ = 0;
  std::set<uint64_t> inflight_ids_;
  std::vector<std::vector<uint64_t>> mig_pending_;
  std::map<unsigned, std::set<uint32_t>> fo_answers_;  // FO-REQs received: answers requested
  HarnessStats st_;
  std::string fail_;
};

}  // namespace suetx
