// Cycle-exact C++ twin of rtl/sue/sue_tx.sv (docs/sue.md "Transport").
// The step numbers in the comments are those of "sue_tx: one rising edge".
//
// Conventions shared with the RTL:
//  * every input is first masked to its port width;
//  * all right-hand sides read pre-edge values (the members), the next values
//    are built in locals and committed at the end;
//  * where two steps write the same register, the rule of the document
//    applies (step 1 wins over step 4 for owe, rtx_*, fo_ans; step 3's ACK age
//    is overwritten by steps 1 and 4; step 4 wins over step 3 for fo_due);
//  * PSNs wrap modulo 2^16, counters modulo 2^CntW, queue pointers modulo
//    2^(QB+1).
#include "sue/sue_tx_model.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace sue {

namespace {

constexpr const char* kCounterNames[TxCnt::kNum] = {
    "cmds_in",   "cmd_bad",   "cmd_err",   "cmd_overflow", "stray_cycles", "pdus_new",    "pdus_rtx",
    "pdus_mig",  "ack_only",  "ack_sent",  "nack_sent",    "nack_rcvd",    "gbn",         "rto",
    "fo_req_sent", "fo_ack_sent", "fo_ack_rcvd", "cmds_sent", "payload_bytes", "frames_out", "bytes_out"};

// Job kinds (job.kind).
enum : uint32_t { kJobData = TxBuilder::kData, kJobEmpty = TxBuilder::kEmpty };
constexpr uint32_t kOweNoneV = 0, kOweAckV = 1, kOweNackV = 2;

bool pow2(unsigned x) { return x && !(x & (x - 1)); }
unsigned clog2(unsigned x) {
  unsigned r = 0;
  while ((1u << r) < x) ++r;
  return r;
}

std::string bad(const char* name, unsigned v, const std::string& allowed) {
  std::ostringstream os;
  os << name << "=" << v << " not allowed (allowed: " << allowed << ")";
  return os.str();
}


}  // namespace

const char* tx_counter_name(unsigned i) { return i < TxCnt::kNum ? kCounterNames[i] : "?"; }

// ---------------------------------------------------------------- TxParams

unsigned TxParams::qb() const { return clog2(qdepth); }
unsigned TxParams::sb() const { return clog2(pool_slots()); }
unsigned TxParams::pool_default() const {
  unsigned x = 1;
  while (x < nq() * qdepth + kPoolInFlight) x <<= 1;
  return x;
}
unsigned TxParams::pool_min() const { return nq() * qdepth + std::min(qdepth, max_pack / 20); }
unsigned TxParams::wb() const { return clog2(window); }

unsigned TxParams::max_frame_beats() const {
  const unsigned h = lite() ? 6 : 14;
  const unsigned len = lite() ? h + max_pack : h + 8 + max_pack + 4;
  return (std::max(60u, len) + 31) / 32;
}

std::string TxParams::validate() const {
  if (profile > 1) return bad("Profile", profile, "0 SUE, 1 SUE Lite");
  if (num_ports != 1 && num_ports != 2 && num_ports != 4) return bad("NumPorts", num_ports, "1, 2, 4");
  if (num_xpus < 2 || num_xpus > 1024) return bad("NumXpus", num_xpus, "2..1024");
  if (data_w != 128 && data_w != 256 && data_w != 512 && data_w != 1024)
    return bad("DataW", data_w, "128, 256, 512, 1024");
  const unsigned lim = lite() ? 1024 : 4096;
  if (max_pack > lim) return bad("MaxPack", max_pack, std::to_string(20 + max_data) + ".." + std::to_string(lim));
  const unsigned dmax = std::min(16 * db(), max_pack >= 21 ? max_pack - 20 : 0u);
  if (max_data < 1 || max_data > dmax) return bad("MaxData", max_data, "1.." + std::to_string(dmax));
  if (max_pack < 20 + max_data)
    return bad("MaxPack", max_pack, std::to_string(20 + max_data) + ".." + std::to_string(lim));
  if (!pow2(qdepth) || qdepth < 2 || qdepth > 256) return bad("QDepth", qdepth, "power of 2, 2..256");
  if (qcap != 0 && (!pow2(qcap) || qcap < qdepth || qcap > 1024))
    return bad("QCap", qcap, "power of 2, " + std::to_string(qdepth) + "..1024 (QDepth..1024)");
  if (!pow2(window) || window > 256) return bad("Window", window, "power of 2, 1..256");
  if (!pow2(rx_buf_beats) || rx_buf_beats < max_frame_beats())
    return bad("RxBufBeats", rx_buf_beats, "power of 2, >= " + std::to_string(max_frame_beats()));
  if (rx_frames < 1 || rx_frames > 64) return bad("RxFrames", rx_frames, "1..64");
  if (cnt_w < 16 || cnt_w > 64) return bad("CntW", cnt_w, "16..64");
  if (pool != 0 && (!pow2(pool) || pool < pool_min() || pool > (1u << 20)))
    return bad("Pool", pool, "power of 2, " + std::to_string(pool_min()) + ".." + std::to_string(1u << 20) +
                                 " (>= NQ*QDepth + min(QDepth, MaxPack/20))");
  return "";
}

// ---------------------------------------------------------------- TxOut

bool TxOut::operator==(const TxOut& o) const {
  return tx_credit == o.tx_credit && mac_tx_valid == o.mac_tx_valid && mac_tx_data == o.mac_tx_data &&
         mac_tx_sof == o.mac_tx_sof && mac_tx_eof == o.mac_tx_eof && mac_tx_nbytes == o.mac_tx_nbytes &&
         dbg_q_count == o.dbg_q_count && dbg_q_unsent == o.dbg_q_unsent && dbg_npsn == o.dbg_npsn &&
         dbg_ack_psn == o.dbg_ack_psn && dbg_inflight == o.dbg_inflight && dbg_inbytes == o.dbg_inbytes && dbg_state == o.dbg_state &&
         pool_used == o.pool_used &&
         port_dead == o.port_dead && out_bytes == o.out_bytes && err_cmd == o.err_cmd && err_dest == o.err_dest &&
         err_overflow == o.err_overflow && err_no_port == o.err_no_port && cnt == o.cnt;
}

// ---------------------------------------------------------------- TxModel

TxModel::TxModel(const TxParams& p) : p_(p) {
  const std::string err = p_.validate();
  if (!err.empty()) throw std::invalid_argument("sue_tx: " + err);
  TxIn in;
  reset(in);
}

void TxModel::fail(const std::string& what) {
  if (assert_.empty()) assert_ = "sue_tx: " + what;
}

void TxModel::reset(const TxIn& in) {
  cfg_ = in.cfg;
  cfg_.own_xpuid &= 0x3ff;
  cfg_.partition &= 0x3ff;
  cfg_.hop_count &= 0xff;
  for (auto& w : cfg_.vc_weight) w &= 0xf;
  cfg_.rto &= 0xffffff;
  cfg_.ack_delay &= 0xffff;
  cfg_.ack_count &= 0xff;
  cfg_.win_bytes &= 0xffffff;
  cfg_.fo_retry &= 0xffffff;
  const unsigned nq = p_.nq(), nc = p_.nc();
  q_.resize(nq);
  for (auto& q : q_) {
    q = Queue{};
    q.rslot.assign(p_.q_cap(), 0);
    q.rdlen.assign(p_.q_cap(), 0);
  }
  // The pool: no slot is written at reset (fresh_ = 0: every slot never used, the free FIFO empty). The
  // model zeroes the slots anyway (a slot is always written at its allocation before it is read).
  const unsigned pool = p_.pool_slots();
  slot_.assign(pool, Slot{});
  if (!data_.empty()) std::fill(data_.begin(), data_.end(), 0);
  fl_.assign(pool, 0);
  fresh_ = fl_rp_ = fl_wp_ = 0;
  sheld_ = 0;
  sdf_ = 0;
  frr_ = 0;
  where_.assign(pool, -2);
  const unsigned ncs = p_.lite() ? 0 : nc;
  conn_.assign(ncs, Conn{});
  desc_.assign(ncs, std::vector<Desc>(p_.window));
  dead_.fill(false);
  dead_rank_.fill(0);
  out_bytes_.fill(0);
  for (auto& b : bld_) b.reset(p_.acc_bytes());
  in_ = Ingress{};
  wrr_vc_ = wrr_cnt_ = 0;
  rr_peer_.fill(0);
  err_cmd_ = err_dest_ = err_overflow_ = err_no_port_ = false;
  cnt_.fill(0);
  out_ = TxOut{};
  out_.tx_credit.assign(nq, 0);

  now_ = 0;
  rl_.reset(ncs);
  busy_n_.fill(0);
  pre_.assign(ncs, Conn{});
  touched_.assign(ncs, 0);
  cfl_.assign(ncs, 0);
  tlist_.clear();
  tlist_.reserve(ncs);
  mw_ = (ncs + 63) / 64;
  for (Mask* m : {&m_rtx_, &m_owe_, &m_unfreed_, &m_busy_, &m_fo_ans_, &m_wait_, &m_mig_}) m->assign(mw_, 0);
  held_.assign(nq, 0);
  migq_.assign(nq, 0);
  credit_.assign(nq, 0);
  crd_.assign(nq, 0);
  mrank_.assign(nq, 0);
}

namespace {
// Per-edge write flags of a connection (TxModel::cfl_).
enum : uint8_t { kFlOweW = 1, kFlRtxW = 2, kFlFoAnsW = 4, kFlProgress = 8, kFlGbn = 16 };
}  // namespace

void TxModel::tick(const TxIn& in) {
  if (!in.rst_n) {
    reset(in);
    return;
  }
  const uint64_t now = ++now_;
  const unsigned NP = p_.num_ports, NPe = p_.num_xpus, QD = p_.qdepth, W = p_.window, DB = p_.db();
  const unsigned NQ = p_.nq(), NC = p_.nc();
  const unsigned CPP = NPe * 4;  // connections per port
  const bool lite = p_.lite();
  const unsigned POOL = p_.pool_slots();
  const uint32_t HMAX = p_.held_max();    // sent commands the pool may hold
  const uint32_t QC = p_.q_cap();
  const uint32_t pmask = (2u * QC) - 1;   // ring pointers: clog2(QCap)+1 bits
  const uint32_t rmask = QC - 1;          // ring index
  const uint32_t fmask = (2u * POOL) - 1; // free FIFO pointers
  const uint64_t cmask = p_.cnt_w >= 64 ? ~0ull : ((1ull << p_.cnt_w) - 1);
  const uint32_t rto_max = std::max<uint32_t>(1, cfg_.rto);
  const uint32_t fo_retry_max = std::max<uint32_t>(1, cfg_.fo_retry);
  const unsigned SB = p_.data_beats() * DB;  // data bytes per slot
  auto cidx = [&](unsigned p, unsigned i, unsigned v) { return (p * NPe + i) * 4 + v; };
  // RTO lists (docs/sue.md "RTO lists"): per port, this edge's feedback connection (restarted when it
  // made progress or started a go-back-N), the head that fired, and the connection whose npsn moved.
  std::array<int, kMaxPorts> rl_fc, rl_fire;
  rl_fc.fill(-1);
  rl_fire.fill(-1);
  int rl_jc = -1;

  std::array<uint64_t, TxCnt::kNum>& cnt = cnt_;
  auto count = [&](unsigned k, uint64_t n = 1) { cnt[k] = (cnt[k] + n) & cmask; };

  // Inputs masked to their port widths.
  const uint32_t port_up = in.port_up & ((1u << NP) - 1);
  const uint32_t credit_ok = in.credit_ok & ((1u << (4 * NP)) - 1);
  const uint32_t ready = in.mac_tx_ready & ((1u << NP) - 1);
  std::array<bool, kMaxPorts> live{};
  for (unsigned p = 0; p < NP; ++p) live[p] = !dead_[p] && ((port_up >> p) & 1u);

  // Pre-edge builder jobs (the slot free reads them) and the slot-free decisions, all on pre-edge
  // state; applied at the end (after this edge's acked marks, which they follow in the RTL order).
  std::array<bool, kMaxPorts> busy_q{};
  std::array<uint32_t, kMaxPorts> jq_q{}, jfirst_q{}, jn_q{};
  for (unsigned p = 0; p < NP; ++p) {
    const TxJob& J = bld_[p].job();
    busy_q[p] = bld_[p].busy();
    jq_q[p] = J.i * 4 + J.v, jfirst_q[p] = J.first, jn_q[p] = J.n_cmd;
  }
  // Slot free (step 7), one per edge for the whole instance: the first queue from frr_ on whose oldest
  // held slot is freeable: its credit went back (held > pc), it belongs to an acknowledged PDU
  // (ackn of the PDU's first slot, or the rest hrem of the PDU being freed), and no busy builder's job
  // is that PDU (job first slot == the PDU's first slot).
  int fq = -1;
  uint32_t fq_n = 0;  // with hrem == 0: the PDU's ackn (read pre-edge)
  for (unsigned k = 0; k < NQ && fq < 0; ++k) {
    const unsigned q = (frr_ + k) % NQ;
    const Queue& Q = q_[q];
    if (Q.held <= Q.pc) continue;
    const uint32_t pdu = Q.hrem ? Q.hpdu : Q.hd;
    if (!Q.hrem && slot_[Q.hd].ackn == 0) continue;
    bool cov = false;
    for (unsigned p = 0; p < NP; ++p)
      if (busy_q[p] && jn_q[p] != 0 && jq_q[p] == q && jfirst_q[p] == pdu) cov = true;  // (an empty job holds no slot)
    if (cov) continue;
    fq = static_cast<int>(q);
    fq_n = slot_[Q.hd].ackn;
  }
  for (unsigned q = 0; q < NQ; ++q) crd_[q] = q_[q].pc != 0;
  // The pool slack (pre-edge): free slots + deferred credits + the ingress command's slot - NQ*QDepth,
  // never negative: a free slot for every credit the XPUs hold or pc owes them (docs/sue.md
  // "Shared-buffer credits").
  const int64_t slk = int64_t(POOL - fresh_) + int64_t((fl_wp_ - fl_rp_) & fmask) + int64_t(sdf_) +
                      int64_t(in_.act && !in_.drop) - int64_t(NQ) * QD;
  uint32_t new_r = 0;  // credits NEW's queue moves from df to pc

  // Next state: connections in place (pre() gives the pre-edge values of those written).
  std::array<bool, kMaxPorts> dead = dead_;
  std::array<uint32_t, kMaxPorts> out_bytes = out_bytes_;

  auto go_back = [&](unsigned c, uint32_t s) {
    Conn& x = touch(c);
    x.rtx_act = true;
    x.rtx_psn = s & 0xffff;
    cfl_[c] |= kFlRtxW;
    count(TxCnt::gbn);
  };
  // Progress on c to `a` (the new ack_psn) and the go-back-N bookkeeping.
  auto apply_progress = [&](unsigned c, uint32_t a) {
    Conn& x = touch(c);
    x.ack_psn = a & 0xffff;
    cfl_[c] |= kFlProgress;
    if (x.rtx_act) {
      const uint32_t d = (x.ack_psn - x.rtx_psn) & 0xffff;
      if (d < 0x8000 && x.ack_psn != x.rtx_psn) {
        x.rtx_psn = x.ack_psn;
        cfl_[c] |= kFlRtxW;
      }
      if (x.ack_psn == x.npsn) {
        x.rtx_act = false;
        cfl_[c] |= kFlRtxW;
      }
    }
  };

  if (!lite) {
    // 3. ACK age: implicit (owe_start), see Conn.

    // 1. Feedback, ports in ascending order.
    for (unsigned p = 0; p < NP; ++p) {
      const Feedback& fb = in.fb[p];
      if (!fb.valid) continue;
      const uint32_t peer = fb.peer & 0x3ff, vc = fb.vc & 3, owe = fb.owe & 3, owe_psn = fb.owe_psn & 0xffff;
      const uint32_t rop = fb.rop & 3, rapsn = fb.rapsn & 0xffff, fo = fb.fo & 3, f = fb.fo_port & 3;
      if (peer >= NPe) continue;  // no such peer: the event is ignored
      if (live[p]) {
        const unsigned c = cidx(p, peer, vc);
        Conn& x = touch(c);
        rl_fc[p] = static_cast<int>(c);
        const uint32_t before = x.owe;
        bool ow = false;
        if (owe == kOweAck || owe == kOweNack) {
          x.owe = owe;
          x.owe_psn = owe_psn;
          ow = true;
        } else if (owe == kOweDup && x.owe != kOweNackV) {
          x.owe = kOweAckV;
          x.owe_psn = owe_psn;
          ow = true;
        }
        if (ow) {
          cfl_[c] |= kFlOweW;
          x.owe_n = before == kOweNoneV ? 1 : std::min<uint32_t>(255, x.owe_n + 1);
        }
        if ((cfl_[c] & kFlOweW) && before == kOweNoneV) x.owe_start = now;
        const uint32_t o = (x.npsn - x.ack_psn) & 0xffff;
        if (rop == 1) {
          const uint32_t d = (rapsn + 1 - x.ack_psn) & 0xffff;
          if (d >= 1 && d <= o) apply_progress(c, rapsn + 1);
        } else if (rop == 2) {
          count(TxCnt::nack_rcvd);
          const uint32_t d = (rapsn - x.ack_psn) & 0xffff;
          if (d <= o) {
            if (d > 0) apply_progress(c, rapsn);
            if (rapsn != x.npsn) {
              go_back(c, rapsn);
              cfl_[c] |= kFlGbn;
            }
          }
        }
      }
      if (f < NP && fo == kFoReq) {
        const unsigned c = cidx(f, peer, vc);
        Conn& x = touch(c);
        x.fo_ans = true;
        x.fo_ans_psn = owe_psn;
        cfl_[c] |= kFlFoAnsW;
      } else if (f < NP && fo == kFoAck) {
        const unsigned c = cidx(f, peer, vc);
        count(TxCnt::fo_ack_rcvd);
        if (conn_[c].fo_state == kConnWait) {
          Conn& x = touch(c);
          const uint32_t o = (x.npsn - x.ack_psn) & 0xffff;
          const uint32_t d = (rapsn + 1 - x.ack_psn) & 0xffff;
          if (d >= 1 && d <= o) x.ack_psn = (rapsn + 1) & 0xffff;
          x.fo_state = kConnMigrate;
          x.mig_psn = x.ack_psn;
          if (x.mig_psn == x.npsn) x.fo_state = kConnRetired;
        }
      }
    }
  }

  // 2. Port death.
  std::array<bool, kMaxPorts> dies{};
  bool any_dies = false;
  std::array<uint32_t, kMaxPorts> rank = dead_rank_;
  uint32_t ndead = 0;
  for (unsigned p = 0; p < NP; ++p) ndead += dead_[p];
  for (unsigned p = 0; p < NP; ++p) {
    if (dead_[p] || ((port_up >> p) & 1u)) continue;
    dies[p] = true;
    any_dies = true;
    dead[p] = true;
    rank[p] = ndead;  // ports that died before this edge
    if (lite) continue;
    for (unsigned i = 0; i < NPe; ++i)
      for (unsigned v = 0; v < 4; ++v) {
        Conn& x = touch(cidx(p, i, v));
        x.owe = kOweNoneV;
        x.rtx_act = false;
        if (x.ack_psn != x.npsn) {
          x.fo_state = kConnWait;
          x.fo_due = true;
          x.fo_tmr = 0;
        } else {
          x.fo_state = kConnRetired;
        }
      }
  }

  // 3. Timers: RTO (live ports), failover retry (WAIT).
  if (!lite) {
    // RTO: per live port, the head of its RTO list, when its restart is rto_max edges old, still
    // unacknowledged and not restarted by this edge's feedback, goes back N (at most one per port and
    // edge; the list is updated after step 4).
    for (unsigned p = 0; p < NP; ++p) {
      if (!live[p] || rl_.size(p) == 0) continue;
      const unsigned h = rl_.head(p);
      if (now - rl_.stamp(h) < rto_max) continue;
      const Conn& x = conn_[h];
      if ((cfl_[h] & (kFlProgress | kFlGbn)) || x.ack_psn == x.npsn) continue;
      if (now - rl_.stamp(h) > rto_max) ++rto_late_;
      go_back(h, x.ack_psn);
      count(TxCnt::rto);
      rl_fire[p] = static_cast<int>(h);
    }
    if (many(m_wait_)) {
      for (unsigned w = 0; w < mw_; ++w)
        for (uint64_t bits = m_wait_[w]; bits; bits &= bits - 1) {
          const unsigned c = w * 64 + __builtin_ctzll(bits);
          const uint32_t tq = pre(c).fo_tmr;
          Conn& x = touch(c);
          if (tq + 1 >= fo_retry_max) {
            x.fo_due = true;
            x.fo_tmr = 0;
          } else {
            x.fo_tmr = tq + 1;
          }
        }
    }
  }

  // 4. Scheduler: at most one job per edge.
  std::array<bool, kMaxPorts> idle{};
  bool any_ok_port = false;
  for (unsigned p = 0; p < NP; ++p) {
    // Idle, or all chunks appended and loading the frame's last or second-to-last beat, not its sof
    // beat, at this edge (docs/sue.md step 5, "End").
    idle[p] = bld_[p].idle(!bld_[p].valid || ((ready >> p) & 1u));
    any_ok_port = any_ok_port || (live[p] && idle[p]);
  }
  auto ok = [&](unsigned p, unsigned v) { return live[p] && idle[p] && ((credit_ok >> (p * 4 + v)) & 1u); };
  int fo_port = -1;
  for (unsigned p = 0; p < NP; ++p)
    if (live[p]) {
      fo_port = static_cast<int>(p);
      break;
    }
  if (fo_port < 0) err_no_port_ = true;
  auto cand = [&](unsigned p, unsigned i, unsigned v) {
    if (!ok(p, v)) return false;
    if (lite) return true;
    const Conn& x = pre(cidx(p, i, v));
    return !x.rtx_act && ((x.npsn - x.free_psn) & 0xffff) < W && (cfg_.win_bytes == 0 || x.ib < cfg_.win_bytes);
  };
  auto port_sel = [&](unsigned q) -> int {
    const unsigned i = q / 4, v = q % 4;
    if (cfg_.strict) {
      const unsigned b = pin_base(cfg_.own_xpuid, i, v, NP);
      for (unsigned k = 0; k < NP; ++k) {
        const unsigned p = (b + k) % NP;
        if (live[p]) return cand(p, i, v) ? static_cast<int>(p) : -1;
      }
      return -1;
    }
    int best = -1;
    for (unsigned p = 0; p < NP; ++p) {
      if (!cand(p, i, v)) continue;
      if (lite) return static_cast<int>(p);
      if (best < 0 || out_bytes_[p] < out_bytes_[best]) best = static_cast<int>(p);
    }
    return best;
  };

  // held(q): a connection of q waits for its FO-ACK, or dies at this edge with PDUs unacknowledged.
  // Then neither NEW nor MIGRATE of q may start (its oldest PDUs are not settled yet).
  const bool fo_sets = !lite && (any_dies || many(m_wait_) || many(m_mig_));
  if (fo_sets) {
    std::fill(held_.begin(), held_.end(), 0);
    std::fill(migq_.begin(), migq_.end(), 0);
    std::fill(mrank_.begin(), mrank_.end(), 0);
    for (unsigned c = 0; c < NC; ++c) {
      const unsigned p = c / CPP, q = c % CPP;
      const Conn& x = pre(c);
      if (x.fo_state == kConnWait || (dies[p] && x.ack_psn != x.npsn)) held_[q] = 1;
      if (x.fo_state == kConnMigrate) {
        mrank_[q] = migq_[q] ? std::max(mrank_[q], dead_rank_[p]) : dead_rank_[p];
        migq_[q] = 1;
      }
    }
  }

  Job job;
  int job_port = -1;
  // Piggyback: the job on connection x takes op/apsn from owe_q and consumes it.
  auto piggyback = [&](unsigned x) {
    const Conn& o = pre(x);
    job.op = o.owe == kOweNackV ? 2 : o.owe == kOweAckV ? 1 : 0;
    job.apsn = o.owe == kOweNoneV ? 0 : o.owe_psn;
    if (o.owe == kOweAckV) count(TxCnt::ack_sent);
    if (o.owe == kOweNackV) count(TxCnt::nack_sent);
    if (!(cfl_[x] & kFlOweW)) {
      if (o.owe != kOweNoneV || conn_[x].owe != kOweNoneV) touch(x).owe = kOweNoneV;  // owe_age = 0: implicit
    }
  };
  auto npsn_inc = [&](unsigned c) {  // npsn + 1 in step 4 (an idle connection joins its RTO list)
    Conn& x = touch(c);
    if (pre(c).ack_psn == pre(c).npsn) rl_jc = static_cast<int>(c);
    x.npsn = (x.npsn + 1) & 0xffff;
  };
  if (!lite && any_ok_port) {
    // 1. FO-ACK
    if (fo_port >= 0)
      for (unsigned w = 0; w < mw_ && job_port < 0; ++w)
        for (uint64_t bits = m_fo_ans_[w]; bits && job_port < 0; bits &= bits - 1) {
          const unsigned c = w * 64 + __builtin_ctzll(bits);
          const unsigned v = c % 4;
          if (!pre(c).fo_ans || !ok(fo_port, v)) continue;
          job_port = fo_port;
          job = Job{};
          job.kind = kJobEmpty, job.i = (c / 4) % NPe, job.v = v, job.op = 1, job.apsn = pre(c).fo_ans_psn;
          job.rsvd = 8 | (c / CPP);
          if (!(cfl_[c] & kFlFoAnsW)) touch(c).fo_ans = false;
          count(TxCnt::fo_ack_sent);
        }
    // 2. FO-REQ
    if (fo_port >= 0)
      for (unsigned w = 0; w < mw_ && job_port < 0; ++w)
        for (uint64_t bits = m_wait_[w]; bits && job_port < 0; bits &= bits - 1) {
          const unsigned c = w * 64 + __builtin_ctzll(bits);
          const unsigned v = c % 4;
          if (pre(c).fo_state != kConnWait || !pre(c).fo_due || !ok(fo_port, v)) continue;
          job_port = fo_port;
          job = Job{};
          job.kind = kJobEmpty, job.i = (c / 4) % NPe, job.v = v, job.rsvd = 8 | (c / CPP);
          Conn& x = touch(c);
          x.fo_due = false;
          x.fo_tmr = 0;
          count(TxCnt::fo_req_sent);
        }
    // 3. RTX
    for (unsigned w = 0; w < mw_ && job_port < 0; ++w)
      for (uint64_t bits = m_rtx_[w]; bits && job_port < 0; bits &= bits - 1) {
        const unsigned c = w * 64 + __builtin_ctzll(bits);
        const unsigned p = c / CPP, v = c % 4;
        const Conn& x = pre(c);
        if (!x.rtx_act || !ok(p, v)) continue;
        job_port = p;
        const Desc& d = desc_[c][x.rtx_psn % W];
        job = Job{};
        job.kind = kJobData, job.i = (c / 4) % NPe, job.v = v, job.psn = x.rtx_psn;
        job.first = d.first, job.n_cmd = d.n, job.p = d.p;
        piggyback(c);
        if (!(cfl_[c] & kFlRtxW)) {
          const uint32_t rp = (x.rtx_psn + 1) & 0xffff, np = x.npsn;
          Conn& y = touch(c);
          y.rtx_psn = rp;
          if (rp == np) y.rtx_act = false;
        }
        count(TxCnt::pdus_rtx);
      }
    // 4. ACK-only
    for (unsigned w = 0; w < mw_ && job_port < 0; ++w)
      for (uint64_t bits = m_owe_[w]; bits && job_port < 0; bits &= bits - 1) {
        const unsigned c = w * 64 + __builtin_ctzll(bits);
        const unsigned p = c / CPP, v = c % 4;
        const Conn& x = pre(c);
        // owe_age_q = min(0xffff, now-1 - owe_start); ack_delay <= 0xffff
        // ... or (ack_count) owen_q >= ack_count: as many feedback events owed, whatever the age
        const bool due = x.owe == kOweNackV ||
                         (x.owe == kOweAckV && (now - 1 - x.owe_start >= cfg_.ack_delay ||
                                                (cfg_.ack_count != 0 && x.owe_n >= cfg_.ack_count)));
        if (!live[p] || !due || !ok(p, v)) continue;
        job_port = p;
        job = Job{};
        job.kind = kJobEmpty, job.i = (c / 4) % NPe, job.v = v, job.psn = x.npsn;
        if (x.owe == kOweAckV && now - 1 - x.owe_start < cfg_.ack_delay) ++ack_by_count_;
        piggyback(c);
        count(TxCnt::ack_only);
      }
    // 5. MIGRATE
    for (unsigned w = 0; w < mw_ && job_port < 0; ++w)
      for (uint64_t bits = m_mig_[w]; bits && job_port < 0; bits &= bits - 1) {
        const unsigned c = w * 64 + __builtin_ctzll(bits);
        const Conn& x = pre(c);
        if (x.fo_state != kConnMigrate) continue;
        const unsigned i = (c / 4) % NPe, v = c % 4;
        // the connection whose port died last holds the oldest PDUs of the queue: it goes first
        if (held_[i * 4 + v] || dead_rank_[c / CPP] != mrank_[i * 4 + v]) continue;
        const int t = port_sel(i * 4 + v);
        if (t < 0) continue;
        job_port = t;
        const unsigned c2 = cidx(t, i, v);
        const Desc d = desc_[c][x.mig_psn % W];
        const uint32_t np2 = pre(c2).npsn;
        job = Job{};
        job.kind = kJobData, job.i = i, job.v = v, job.psn = np2;
        job.first = d.first, job.n_cmd = d.n, job.p = d.p;
        piggyback(c2);
        desc_[c2][np2 % W] = d;  // never a held one (cand: npsn - free_psn < Window)
        npsn_inc(c2);
        touch(c2).ib += d.p;
        out_bytes[t] += d.p;
        const uint32_t mp = (x.mig_psn + 1) & 0xffff, np = x.npsn;
        Conn& y = touch(c);
        y.mig_psn = mp;
        if (mp == np) y.fo_state = kConnRetired;
        count(TxCnt::pdus_mig);
      }
  }
  // 6. NEW
  uint32_t wrr_vc = wrr_vc_, wrr_cnt = wrr_cnt_;
  std::array<uint32_t, 4> rr_peer = rr_peer_;
  if (job_port < 0 && any_ok_port) {
    // The first startable queue in WRR-VC order, then RR-peer order (port_sel has no side effects,
    // so only the queues up to the chosen one are evaluated).
    // Pool slack (pre-edge): a NEW PDU forms only while the pool keeps a free slot for every credit
    // the XPUs hold (slk > 0); the packing below bounds the credits it takes back by the same slack.
    auto startable = [&](unsigned q) -> int {
      if (q_[q].send == q_[q].tail || slk <= 0) return -1;
      if (fo_sets && (held_[q] || migq_[q])) return -1;
      return port_sel(q);
    };
    int vsel = -1, isel = -1, tsel = -1;
    for (unsigned k = 0; k < 4 && vsel < 0; ++k) {
      const unsigned v = (wrr_vc_ + k) % 4;
      for (unsigned k2 = 0; k2 < NPe; ++k2) {
        const unsigned i = (rr_peer_[v] + k2) % NPe;
        const int t = startable(i * 4 + v);
        if (t >= 0) {
          vsel = v, isel = i, tsel = t;
          break;
        }
      }
    }
    if (vsel >= 0) {
      const unsigned v = vsel, i = isel, q = i * 4 + v;
      rr_peer[v] = (i + 1) % NPe;
      const uint32_t n = (v == wrr_vc_) ? wrr_cnt_ + 1 : 1;
      if (n >= std::max<uint32_t>(1, cfg_.vc_weight[v])) {
        wrr_vc = (v + 1) % 4;
        wrr_cnt = 0;
      } else {
        wrr_vc = v;
        wrr_cnt = n;
      }
      // Packing.
      Queue& Q = q_[q];
      // The n commands formed take back max(0, n + df - u) deferred credits: n <= slack + u - df.
      const uint32_t u = (Q.tail - Q.send) & pmask;
      const uint32_t avail = static_cast<uint32_t>(std::min<int64_t>(u, slk + int64_t(u) - Q.df));
      uint32_t n_cmd = 0, P = 0;
      for (uint32_t k = 0; k < avail; ++k) {
        const uint32_t sz = 20 + Q.rdlen[(Q.send + k) & rmask];
        if (P + sz > p_.max_pack) break;
        P += sz;
        ++n_cmd;
      }
      const unsigned t = tsel;
      job_port = t;
      job = Job{};
      job.kind = kJobData, job.i = i, job.v = v, job.first = Q.rslot[Q.send & rmask], job.n_cmd = n_cmd, job.p = P;
      if (!lite) {
        const unsigned c = cidx(t, i, v);
        const uint32_t np = pre(c).npsn;
        job.psn = np;
        piggyback(c);
        desc_[c][np % W] = Desc{job.first, n_cmd, P};
        npsn_inc(c);
        touch(c).ib += P;
        out_bytes[t] += P;
      }
      // Credits back with the PDU: the deferred ones the formed commands must take, and as many more of
      // the queue's deferred ones as the slack allows, at most n.
      const uint32_t rmin = n_cmd + Q.df > u ? n_cmd + Q.df - u : 0;
      const uint32_t rx = static_cast<uint32_t>(std::min<int64_t>(std::min(n_cmd, Q.df), slk));
      new_r = std::max(rmin, rx);
      Q.df -= new_r;
      Q.pc += new_r;  // (pc of the pre-edge value is what the credit free below reads: crd_)
      sdf_ -= new_r;
      Q.send = (Q.send + n_cmd) & pmask;  // read later only as the post-edge value
      Q.held += n_cmd;
      sheld_ += n_cmd;
      count(TxCnt::pdus_new);
      count(TxCnt::cmds_sent, n_cmd);
      count(TxCnt::payload_bytes, P - 2 * n_cmd);
    }
  }

  // Frames and bytes transferred at this edge (pre-edge output register).
  for (unsigned p = 0; p < NP; ++p) {
    if (!((out_.mac_tx_valid >> p) & 1u) || !((ready >> p) & 1u)) continue;
    count(TxCnt::bytes_out, out_.mac_tx_nbytes[p]);
    if ((out_.mac_tx_eof >> p) & 1u) count(TxCnt::frames_out);
  }

  // RTO lists, after step 4: unlink (the due head: it fired or was restarted; the restarted feedback
  // connection), then append stamped `now` in the order: the head that fired, the restarted feedback
  // connection if still unacknowledged, the connection that left idle. A port death empties its list.
  if (!lite) {
    for (unsigned p = 0; p < NP; ++p) {
      if (dies[p]) {
        rl_.clear(p);
        continue;
      }
      if (!live[p]) continue;
      const int h0 = rl_.size(p) ? static_cast<int>(rl_.head(p)) : -1;
      const bool due = h0 >= 0 && now - rl_.stamp(static_cast<unsigned>(h0)) >= rto_max;
      const int fc = rl_fc[p] >= 0 && (cfl_[rl_fc[p]] & (kFlProgress | kFlGbn)) ? rl_fc[p] : -1;
      if (due) rl_.unlink(p, static_cast<unsigned>(h0));
      if (fc >= 0 && !(due && fc == h0)) rl_.unlink(p, static_cast<unsigned>(fc));
      if (rl_fire[p] >= 0) rl_.append(p, static_cast<unsigned>(rl_fire[p]), now);
      if (fc >= 0 && conn_[fc].ack_psn != conn_[fc].npsn) rl_.append(p, static_cast<unsigned>(fc), now);
      if (rl_jc >= 0 && static_cast<unsigned>(rl_jc) / CPP == p) rl_.append(p, static_cast<unsigned>(rl_jc), now);
    }
  }

  // 5. Builders (pre-edge builder state; slot memory is not written before step 6). Each builder
  // reads only its own pre-edge state, so it is updated in place.
  // A PDU is acknowledged (or, in Lite, done): one write, ackn of its first slot.
  auto mark_acked = [&](uint32_t q, uint32_t first, uint32_t n) {
    if (where_[first] != static_cast<int32_t>(q) || n == 0) fail("acknowledged PDU not on its queue's list");
    slot_[first].ackn = n;
  };
  TxBuilder::Env be;
  be.lite = lite, be.db = DB, be.sb = SB, be.acc = p_.acc_bytes();
  be.own = cfg_.own_xpuid, be.hop = cfg_.hop_count, be.partition = cfg_.partition;
  be.slot = slot_.data(), be.data = &data_, be.where = where_.data();
  // Lite releases a job's slots (the PDU is done or lost): mark_acked through the builder's callback.
  struct MarkCtx {
    decltype(mark_acked)* f;
  } mctx{&mark_acked};
  const TxBuilder::MarkFn mark = [](void* c, uint32_t q, uint32_t first, uint32_t n) {
    (*static_cast<MarkCtx*>(c)->f)(q, first, n);
  };
  for (unsigned p = 0; p < NP; ++p) {
    TxBuilder& b = bld_[p];
    if (const char* e = b.edge(be, !b.valid || ((ready >> p) & 1u), dies[p], mark, &mctx)) fail(e);
  }

  // Job start (step 4's job; the builder was idle, or step 5 has loaded its eof or second-to-last beat).
  if (job_port >= 0) {
    const unsigned p = job_port;
    if (!live[p]) fail("a job starts on a dead port");
    if (!((credit_ok >> (p * 4 + job.v)) & 1u)) fail("a job starts without credit_ok");
    if (job.kind == kJobData && (job.n_cmd < 1 || job.p > p_.max_pack)) fail("DATA PDU with n_cmd < 1 or P > MaxPack");
    // Started at the edge that loads the frame's second-to-last beat: its eof beat stays in acc
    // (eof_held), and in Lite its slots are released now.
    bld_[p].start(job, lite, mark, &mctx);
  }
  // The MAC output registers (the builders').
  out_.mac_tx_valid = out_.mac_tx_sof = out_.mac_tx_eof = 0;
  for (unsigned p = 0; p < NP; ++p) {
    const TxBuilder& b = bld_[p];
    out_.mac_tx_valid |= uint32_t(b.valid) << p;
    out_.mac_tx_sof |= uint32_t(b.sof) << p;
    out_.mac_tx_eof |= uint32_t(b.eof) << p;
    out_.mac_tx_data[p] = b.data;
    out_.mac_tx_nbytes[p] = b.nbytes;
  }

  // 6. Ingress. A command takes a pool slot at its first cycle (allocation: a never-used slot while
  // fresh_ < Pool, else the head of the free FIFO; at most one per edge), is written there beat by beat,
  // and at its last beat joins its queue (credit ring entry {slot, dlen} at tail, linked behind the
  // queue's last slot). A command that fails after its first cycle gives its slot back (step 7).
  std::fill(credit_.begin(), credit_.end(), 0);
  int link_q = -1;       // queue whose tail moves (the command in slot link_s completes)
  uint32_t link_s = 0, link_dlen = 0;
  int ret_s = -1;        // slot given back by a failed command
  {
    const uint32_t valid = in.tx_valid & 3, cyc = in.tx_cycle & 0xf, vc = in.tx_vc & 3, xid = in.tx_xpuid & 0x3ff;
    const uint32_t dlen = (uint32_t(in.tx_control[1]) << 4) | (in.tx_control[2] >> 4);
    Ingress I = in_;
    auto write_beat = [&](uint32_t si, uint32_t beat) {
      // data_ grows with the highest slot written (slots are allocated from 0 up, then recycled), not
      // to Pool * SB at once: at NumXpus 64 the default Pool is 32,768 slots, mostly never used.
      if (size_t(si + 1) * SB > data_.size())
        data_.resize(std::min(size_t(POOL) * SB, std::max(2 * data_.size(), size_t(si + 1) * SB)), 0);
      std::copy(in.tx_data.begin(), in.tx_data.begin() + DB, data_.begin() + size_t(si) * SB + beat * DB);
    };
    auto alloc = [&]() -> uint32_t {
      uint32_t si = 0;
      if (fresh_ < POOL) {
        si = fresh_++;
      } else if (fl_rp_ != fl_wp_) {
        si = fl_[fl_rp_ & (POOL - 1)];
        fl_rp_ = (fl_rp_ + 1) & fmask;
      } else {
        fail("slot allocation from an empty pool");
      }
      if (where_[si] != -2) fail("an allocated slot is on a list");
      where_[si] = -1;
      return si;
    };
    if (!in_.act) {
      if (valid == 1 || valid == 2) {
        const bool badc = cyc != 0 || (valid == 1 && dlen != 0) || (valid == 2 && (dlen == 0 || dlen > p_.max_data));
        if (badc) {
          count(TxCnt::cmd_bad);
          err_cmd_ = true;
        } else {
          const uint32_t nb = valid == 2 ? (dlen + DB - 1) / DB : 0;
          // the destination XPU id is the peer index: any id below NumXpus but the own one
          const int peer = xid < NPe && xid != cfg_.own_xpuid ? static_cast<int>(xid) : -1;
          const unsigned q = peer >= 0 ? peer * 4 + vc : 0;
          // the XPU overdrew its credits: the queue holds all of them (df + pc: NEW moves credits
          // between the two, the credit free below comes after)
          const bool full = peer >= 0 && q_[q].df + q_[q].pc == QD;
          if (peer < 0 || full) {
            if (peer < 0) {
              count(TxCnt::cmd_bad);
              err_dest_ = true;
            } else {
              count(TxCnt::cmd_overflow);
              err_overflow_ = true;
            }
            if (nb > 1) {
              I.act = true, I.drop = true, I.err = false, I.q = q, I.beat = 1, I.nb = nb;
            }
          } else if (nb <= 1 && in.tx_err) {
            // a one-cycle command with tx_err: no slot is taken, the credit goes back
            count(TxCnt::cmd_err);
            credit_[q] += 1;
          } else {
            const uint32_t si = alloc();
            Slot& sl = slot_[si];
            std::copy(in.tx_control.begin(), in.tx_control.end(), sl.ctrl.begin());
            sl.dlen = dlen;
            sl.ackn = 0;
            if (nb >= 1) write_beat(si, 0);
            if (nb <= 1) {
              link_q = static_cast<int>(q), link_s = si, link_dlen = dlen;
              count(TxCnt::cmds_in);
            } else {
              I.act = true, I.drop = false, I.err = in.tx_err, I.q = q, I.beat = 1, I.nb = nb, I.slot = si;
            }
          }
        }
      } else if (valid == 3) {
        count(TxCnt::stray_cycles);
      }
    } else {
      if (valid == 2 && cyc == in_.beat) {
        if (!in_.drop) write_beat(in_.slot, in_.beat);
        I.err = in_.err || in.tx_err;
        if (in_.beat + 1 == in_.nb) {
          I.act = false;
          if (!in_.drop) {
            if (I.err) {
              count(TxCnt::cmd_err);
              credit_[in_.q] += 1;
              ret_s = static_cast<int>(in_.slot);
            } else {
              link_q = static_cast<int>(in_.q), link_s = in_.slot, link_dlen = slot_[in_.slot].dlen;
              count(TxCnt::cmds_in);
            }
          }
        } else {
          I.beat = in_.beat + 1;
        }
      } else {
        I.act = false;
        count(TxCnt::cmd_bad);
        err_cmd_ = true;
        if (!in_.drop) {
          credit_[in_.q] += 1;
          ret_s = static_cast<int>(in_.slot);
        }
      }
    }
    in_ = I;
  }

  // 7. Frees: descriptor walker (per port, pre-edge free_psn/ack_psn), credit free (per queue), slot
  // free (one per edge for the instance).
  if (!lite) {
    for (unsigned p = 0; p < NP; ++p) {
      const unsigned lo = p * CPP, hi = lo + CPP;
      int found = -1;
      for (unsigned w = lo >> 6; w < mw_ && w * 64 < hi && found < 0; ++w) {
        uint64_t bits = m_unfreed_[w];
        if (w * 64 < lo) bits &= ~0ull << (lo - w * 64);
        if (!bits) continue;
        const unsigned c = w * 64 + __builtin_ctzll(bits);
        if (c < hi) found = static_cast<int>(c);
      }
      if (found < 0) continue;
      const unsigned c = found;
      const Conn& x = pre(c);
      if (x.free_psn == x.ack_psn) continue;  // (the set holds exactly these)
      const uint32_t fp = x.free_psn;
      const Desc& d = desc_[c][fp % W];
      mark_acked((c % CPP), d.first, d.n);
      if (out_bytes[p] < d.p) fail("out_bytes underflows");
      out_bytes[p] -= d.p;
      Conn& y = touch(c);
      if (y.ib < d.p) fail("in-flight bytes of a connection underflow");
      y.ib -= d.p;
      y.free_psn = (fp + 1) & 0xffff;
    }
  }
  for (unsigned q = 0; q < NQ; ++q) {
    Queue& Q = q_[q];
    if (crd_[q]) {  // credit free: one credit of a formed command (pre-edge pc) per edge
      Q.pc -= 1;
      credit_[q] += 1;
    }
  }
  auto fl_push = [&](uint32_t si) {
    fl_[fl_wp_ & (POOL - 1)] = si;
    fl_wp_ = (fl_wp_ + 1) & fmask;
    where_[si] = -2;
  };
  if (ret_s >= 0) {
    // A failed command's slot goes back to the free FIFO; the queue slot free waits (one free per edge).
    if (where_[ret_s] != -1) fail("a returned slot is on a list");
    fl_push(static_cast<uint32_t>(ret_s));
  } else if (fq >= 0) {
    // Slot free: the oldest held slot of queue fq (the pre-edge decision above); hd moves to its next.
    Queue& Q = q_[fq];
    const uint32_t si = Q.hd;
    if (where_[si] != fq) fail("a freed slot is not on its queue's list");
    if (Q.hrem == 0) {
      Q.hpdu = si;
      Q.hrem = fq_n;  // the PDU's commands, this one included
    }
    Q.hrem -= 1;
    Q.hd = slot_[si].next;  // pre-edge next (the link below writes only the last slot's next)
    Q.held -= 1;
    sheld_ -= 1;
    fl_push(si);
    frr_ = (static_cast<uint32_t>(fq) + 1) % NQ;
  }
  if (link_q >= 0) {
    // The completed command joins its queue: credit ring entry at tail, list link behind the last slot.
    Queue& Q = q_[link_q];
    if (where_[link_s] != -1) fail("a linked slot is on a list");
    where_[link_s] = link_q;
    const uint32_t n_all = Q.held + ((Q.tail - Q.send) & pmask);  // after this edge's free
    if (n_all == 0) {
      Q.hd = link_s;
    } else {
      slot_[Q.lst].next = link_s;
    }
    Q.lst = link_s;
    Q.rslot[Q.tail & rmask] = link_s;
    Q.rdlen[Q.tail & rmask] = link_dlen;
    Q.tail = (Q.tail + 1) & pmask;
    // Shared-buffer credit: back at once while the slack after NEW's credits leaves a free slot for it
    // and the ring has room for every command the XPU may then send (u + QDepth - df <= QCap); else
    // deferred until its PDU forms.
    const uint32_t u = (Q.tail - Q.send) & pmask;
    if (slk - int64_t(new_r) > 0 && u + QD <= QC + Q.df) {
      credit_[link_q] += 1;
      ++early_;
    } else {
      Q.df += 1;
      sdf_ += 1;
    }
  }

  // Commit.
  dead_ = dead;
  dead_rank_ = rank;
  out_bytes_ = out_bytes;
  wrr_vc_ = wrr_vc, wrr_cnt_ = wrr_cnt, rr_peer_ = rr_peer;

  // Registered outputs.
  std::copy(credit_.begin(), credit_.end(), out_.tx_credit.begin());
  uint32_t held_sum = 0, queued_sum = 0, df_sum = 0;
  for (unsigned q = 0; q < NQ; ++q) {
    const Queue& Q = q_[q];
    const uint32_t d = (Q.tail - Q.send) & pmask;
    if (Q.df + Q.pc > QD || Q.df > d || d + QD > QC + Q.df)
      fail("df + pc <= QDepth, df <= unsent, unsent + QDepth - df <= QCap violated");
    if (Q.held < Q.pc) fail("a queue holds fewer sent commands than it owes credits for");
    df_sum += Q.df;
    held_sum += Q.held;
    queued_sum += d;
  }
  // Pool accounting: never used + free + held + queued + the ingress command's slot == Pool.
  {
    const uint32_t ing = in_.act && !in_.drop ? 1 : 0;
    if (held_sum != sheld_ || sheld_ > HMAX) fail("held commands: sum of queues != total, or above Pool - NQ*QDepth");
    if ((POOL - fresh_) + ((fl_wp_ - fl_rp_) & fmask) + sheld_ + queued_sum + ing != POOL)
      fail("pool accounting: fresh + free + held + queued + ingress != Pool");
    if (df_sum != sdf_ || int64_t(POOL - fresh_) + int64_t((fl_wp_ - fl_rp_) & fmask) + sdf_ + ing < int64_t(NQ) * QD)
      fail("deferred credits: sum of queues != total, or pool slack < 0");
  }
  if (!lite) {
    // Only the connections written at this edge change (the others' outputs and checks are as before).
    std::sort(tlist_.begin(), tlist_.end());
    for (const uint16_t c : tlist_) {
      const Conn& x = conn_[c];
      const uint32_t inflight = (x.npsn - x.free_psn) & 0xffff;
      if (((x.ack_psn - x.free_psn) & 0xffff) > inflight) fail("free_psn <= ack_psn <= npsn violated");
      if (inflight > W) fail("npsn - free_psn > Window");
      if ((x.ib == 0) != (inflight == 0)) fail("in-flight bytes and PDUs of a connection disagree");
      if (cfg_.win_bytes && x.ib >= cfg_.win_bytes + p_.max_pack) fail("in-flight bytes >= cfg_win_bytes + MaxPack");
      // Connection sets for the next edge.
      mset(m_rtx_, c, x.rtx_act);
      mset(m_owe_, c, x.owe != kOweNoneV);
      mset(m_unfreed_, c, x.free_psn != x.ack_psn);
      const bool busy = x.ack_psn != x.npsn;
      if (busy != (((m_busy_[c >> 6] >> (c & 63)) & 1u) != 0)) busy_n_[c / CPP] += busy ? 1u : ~0u;
      mset(m_busy_, c, busy);
      mset(m_fo_ans_, c, x.fo_ans);
      mset(m_wait_, c, x.fo_state == kConnWait);
      mset(m_mig_, c, x.fo_state == kConnMigrate);
      touched_[c] = 0;
      cfl_[c] = 0;
    }
    tlist_.clear();
    // Each live port's RTO list holds exactly its connections with PDUs unacknowledged.
    for (unsigned p = 0; p < NP; ++p)
      if (!dead[p] && busy_n_[p] != rl_.size(p)) fail("an RTO list does not hold exactly the connections with PDUs unacknowledged");
  }
  out_.port_dead = 0;
  for (unsigned p = 0; p < NP; ++p) {
    out_.port_dead |= uint32_t(dead_[p]) << p;
    out_.out_bytes[p] = out_bytes_[p] & 0xffffff;
  }
  out_.err_cmd = err_cmd_, out_.err_dest = err_dest_, out_.err_overflow = err_overflow_;
  out_.err_no_port = err_no_port_;
  out_.cnt = cnt_;
  // the debug read ports (dbg_q_i, dbg_conn_i are clog2(NQ), clog2(NC) bits wide) and the slots in use
  const uint32_t dq = in.dbg_q & ((1u << clog2(NQ)) - 1);
  const uint32_t dc = in.dbg_conn & ((1u << clog2(NC)) - 1);
  out_.dbg_q_count = q_count(dq);
  out_.dbg_q_unsent = q_unsent(dq);
  out_.dbg_npsn = conn_npsn(dc);
  out_.dbg_ack_psn = conn_ack_psn(dc);
  out_.dbg_inflight = conn_inflight(dc);
  out_.dbg_inbytes = conn_inbytes(dc);
  out_.dbg_state = conn_state(dc);
  out_.pool_used = fresh_ - ((fl_wp_ - fl_rp_) & fmask);  // used at least once - free
}

uint32_t TxModel::q_count(unsigned q) const {
  return q >= q_.size() ? 0 : q_[q].held + q_unsent(q);
}
uint32_t TxModel::q_unsent(unsigned q) const {
  return q >= q_.size() ? 0 : (q_[q].tail - q_[q].send) & (2u * p_.q_cap() - 1);  // clog2(QCap)+1-bit ring pointers
}
uint32_t TxModel::conn_npsn(unsigned c) const { return p_.lite() || c >= p_.nc() ? 0 : conn_[c].npsn; }
uint32_t TxModel::conn_ack_psn(unsigned c) const { return p_.lite() || c >= p_.nc() ? 0 : conn_[c].ack_psn; }
uint32_t TxModel::conn_inflight(unsigned c) const {
  return p_.lite() || c >= p_.nc() ? 0 : (conn_[c].npsn - conn_[c].free_psn) & 0xffff;
}
uint32_t TxModel::conn_inbytes(unsigned c) const { return p_.lite() || c >= p_.nc() ? 0 : conn_[c].ib; }
uint32_t TxModel::conn_state(unsigned c) const {
  if (p_.lite() || c >= p_.nc()) return 0;
  const Conn& x = conn_[c];
  return x.fo_state != kConnLive ? x.fo_state : x.rtx_act ? kConnRtx : kConnLive;
}

}  // namespace sue
