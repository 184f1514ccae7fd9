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
enum : uint32_t { kJobData = 0, kJobEmpty = 1 };
// Builder chunk phases.
enum : uint32_t { kPhHdr = 0, kPhOp = 1, kPhData = 2, kPhEmpty = 3, kPhTrl = 4, kPhDone = 5 };
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

// CRC-32C, reflected, one byte (no init / final xor here).
struct Crc32cTable {
  uint32_t t[256];
  Crc32cTable() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
      t[i] = c;
    }
  }
};
const Crc32cTable kCrc;
uint32_t crc_upd(uint32_t crc, const uint8_t* b, size_t n) {
  for (size_t k = 0; k < n; ++k) crc = (crc >> 8) ^ kCrc.t[(crc ^ b[k]) & 0xffu];
  return crc;
}

}  // namespace

const char* tx_counter_name(unsigned i) { return i < TxCnt::kNum ? kCounterNames[i] : "?"; }

// ---------------------------------------------------------------- TxParams

unsigned TxParams::qb() const { return clog2(qdepth); }
unsigned TxParams::wb() const { return clog2(window); }

unsigned TxParams::max_frame_beats() const {
  const unsigned h = lite() ? 6 : 14;
  const unsigned len = lite() ? h + max_pack : h + 8 + max_pack + 4;
  return (std::max(60u, len) + 31) / 32;
}

std::string TxParams::validate() const {
  if (profile > 1) return bad("Profile", profile, "0 SUE, 1 SUE Lite");
  if (num_ports != 1 && num_ports != 2 && num_ports != 4) return bad("NumPorts", num_ports, "1, 2, 4");
  if (num_peers < 1 || num_peers > 16) return bad("NumPeers", num_peers, "1..16");
  if (data_w != 128 && data_w != 256 && data_w != 512) return bad("DataW", data_w, "128, 256, 512");
  const unsigned lim = lite() ? 1024 : 4096;
  if (max_pack > lim) return bad("MaxPack", max_pack, std::to_string(20 + max_data) + ".." + std::to_string(lim));
  const unsigned dmax = std::min(16 * db(), max_pack >= 21 ? max_pack - 20 : 0u);
  if (max_data < 1 || max_data > dmax) return bad("MaxData", max_data, "1.." + std::to_string(dmax));
  if (max_pack < 20 + max_data)
    return bad("MaxPack", max_pack, std::to_string(20 + max_data) + ".." + std::to_string(lim));
  if (!pow2(qdepth) || qdepth < 2 || qdepth > 256) return bad("QDepth", qdepth, "power of 2, 2..256");
  if (!pow2(window) || window > 256) return bad("Window", window, "power of 2, 1..256");
  if (!pow2(rx_buf_beats) || rx_buf_beats < max_frame_beats())
    return bad("RxBufBeats", rx_buf_beats, "power of 2, >= " + std::to_string(max_frame_beats()));
  if (rx_frames < 1 || rx_frames > 64) return bad("RxFrames", rx_frames, "1..64");
  if (cnt_w < 16 || cnt_w > 64) return bad("CntW", cnt_w, "16..64");
  return "";
}

// ---------------------------------------------------------------- TxOut

bool TxOut::operator==(const TxOut& o) const {
  return tx_credit == o.tx_credit && mac_tx_valid == o.mac_tx_valid && mac_tx_data == o.mac_tx_data &&
         mac_tx_sof == o.mac_tx_sof && mac_tx_eof == o.mac_tx_eof && mac_tx_nbytes == o.mac_tx_nbytes &&
         q_count == o.q_count && q_unsent == o.q_unsent && conn_npsn == o.conn_npsn &&
         conn_ack_psn == o.conn_ack_psn && conn_inflight == o.conn_inflight && conn_state == o.conn_state &&
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
  for (auto& x : cfg_.peer_xpuid) x &= 0x3ff;
  cfg_.partition &= 0x3ff;
  cfg_.hop_count &= 0xff;
  for (auto& w : cfg_.vc_weight) w &= 0xf;
  cfg_.rto &= 0xffffff;
  cfg_.ack_delay &= 0xffff;
  cfg_.fo_retry &= 0xffffff;
  const unsigned nq = p_.nq(), nc = p_.nc();
  q_.assign(nq, Queue{});
  for (auto& q : q_) {
    q.slot.assign(p_.qdepth, Slot{});
    for (auto& s : q.slot) s.data.assign(p_.data_beats() * p_.db(), 0);
    q.acked.assign(p_.qdepth, 0);
  }
  conn_.assign(p_.lite() ? 0 : nc, Conn{});
  desc_.assign(p_.lite() ? 0 : nc, std::vector<Desc>(p_.window));
  dead_.fill(false);
  dead_rank_.fill(0);
  out_bytes_.fill(0);
  for (auto& b : bld_) {
    b = Builder{};
    b.acc.assign(p_.acc_bytes(), 0);
  }
  in_ = Ingress{};
  wrr_vc_ = wrr_cnt_ = 0;
  rr_peer_.fill(0);
  err_cmd_ = err_dest_ = err_overflow_ = err_no_port_ = false;
  cnt_.fill(0);
  out_ = TxOut{};
  out_.tx_credit.assign(nq, 0);
  out_.q_count.assign(nq, 0);
  out_.q_unsent.assign(nq, 0);
  out_.conn_npsn.assign(nc, 0);
  out_.conn_ack_psn.assign(nc, 0);
  out_.conn_inflight.assign(nc, 0);
  out_.conn_state.assign(nc, 0);
}

void TxModel::tick(const TxIn& in) {
  if (!in.rst_n) {
    reset(in);
    return;
  }
  const unsigned NP = p_.num_ports, NPe = p_.num_peers, QD = p_.qdepth, W = p_.window, DB = p_.db();
  const unsigned NQ = p_.nq(), NC = p_.nc();
  const bool lite = p_.lite();
  const uint32_t pmask = (2u * QD) - 1;  // queue pointers: QB+1 bits
  const uint32_t smask = QD - 1;
  const uint64_t cmask = p_.cnt_w >= 64 ? ~0ull : ((1ull << p_.cnt_w) - 1);
  const uint32_t rto_max = std::max<uint32_t>(1, cfg_.rto);
  const uint32_t fo_retry_max = std::max<uint32_t>(1, cfg_.fo_retry);
  auto cidx = [&](unsigned p, unsigned i, unsigned v) { return (p * NPe + i) * 4 + v; };

  std::array<uint64_t, TxCnt::kNum> cnt = cnt_;
  auto count = [&](unsigned k, uint64_t n = 1) { cnt[k] = (cnt[k] + n) & cmask; };

  // Inputs masked to their port widths.
  const uint32_t port_up = in.port_up & ((1u << NP) - 1);
  const uint32_t credit_ok = in.credit_ok & ((1u << (4 * NP)) - 1);
  const uint32_t ready = in.mac_tx_ready & ((1u << NP) - 1);
  std::array<bool, kMaxPorts> live{};
  for (unsigned p = 0; p < NP; ++p) live[p] = !dead_[p] && ((port_up >> p) & 1u);

  // Next state.
  std::vector<Conn> C = conn_;
  std::array<bool, kMaxPorts> dead = dead_;
  std::array<uint32_t, kMaxPorts> out_bytes = out_bytes_;
  std::vector<uint8_t> owe_w(C.size(), 0), rtx_w(C.size(), 0), fo_ans_w(C.size(), 0);
  std::vector<uint8_t> progress(C.size(), 0), gbn_started(C.size(), 0);

  auto go_back = [&](unsigned c, uint32_t s) {
    C[c].rtx_act = true;
    C[c].rtx_psn = s & 0xffff;
    C[c].rto_tmr = 0;
    rtx_w[c] = 1;
    count(TxCnt::gbn);
  };
  // Progress on c to `a` (the new ack_psn) and the go-back-N bookkeeping.
  auto apply_progress = [&](unsigned c, uint32_t a) {
    Conn& x = C[c];
    x.ack_psn = a & 0xffff;
    progress[c] = 1;
    if (x.rtx_act) {
      const uint32_t d = (x.ack_psn - x.rtx_psn) & 0xffff;
      if (d < 0x8000 && x.ack_psn != x.rtx_psn) {
        x.rtx_psn = x.ack_psn;
        rtx_w[c] = 1;
      }
      if (x.ack_psn == x.npsn) {
        x.rtx_act = false;
        rtx_w[c] = 1;
      }
    }
  };

  if (!lite) {
    // 3. ACK age (before steps 1 and 4, which win).
    for (unsigned c = 0; c < NC; ++c) {
      const unsigned p = c / (NPe * 4);
      if (!live[p]) continue;
      C[c].owe_age = conn_[c].owe != kOweNoneV ? std::min<uint32_t>(0xffff, conn_[c].owe_age + 1) : 0;
    }

    // 1. Feedback, ports in ascending order.
    for (unsigned p = 0; p < NP; ++p) {
      const Feedback& fb = in.fb[p];
      if (!fb.valid) continue;
      const uint32_t peer = fb.peer & 0xf, vc = fb.vc & 3, owe = fb.owe & 3, owe_psn = fb.owe_psn & 0xffff;
      const uint32_t rop = fb.rop & 3, rapsn = fb.rapsn & 0xffff, fo = fb.fo & 3, f = fb.fo_port & 3;
      if (peer >= NPe) continue;  // no such peer: the event is ignored
      if (live[p]) {
        const unsigned c = cidx(p, peer, vc);
        Conn& x = C[c];
        const uint32_t before = x.owe;
        if (owe == kOweAck || owe == kOweNack) {
          x.owe = owe;
          x.owe_psn = owe_psn;
          owe_w[c] = 1;
        } else if (owe == kOweDup && x.owe != kOweNackV) {
          x.owe = kOweAckV;
          x.owe_psn = owe_psn;
          owe_w[c] = 1;
        }
        if (owe_w[c] && before == kOweNoneV) x.owe_age = 0;
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
              gbn_started[c] = 1;
            }
          }
        }
      }
      if (f < NP && fo == kFoReq) {
        const unsigned c = cidx(f, peer, vc);
        C[c].fo_ans = true;
        C[c].fo_ans_psn = owe_psn;
        fo_ans_w[c] = 1;
      } else if (f < NP && fo == kFoAck) {
        const unsigned c = cidx(f, peer, vc);
        Conn& x = C[c];
        count(TxCnt::fo_ack_rcvd);
        if (x.fo_state == kConnWait) {
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
  std::array<uint32_t, kMaxPorts> rank = dead_rank_;
  uint32_t ndead = 0;
  for (unsigned p = 0; p < NP; ++p) ndead += dead_[p];
  for (unsigned p = 0; p < NP; ++p) {
    if (dead_[p] || ((port_up >> p) & 1u)) continue;
    dies[p] = true;
    dead[p] = true;
    rank[p] = ndead;  // ports that died before this edge
    if (lite) continue;
    for (unsigned i = 0; i < NPe; ++i)
      for (unsigned v = 0; v < 4; ++v) {
        Conn& x = C[cidx(p, i, v)];
        x.owe = kOweNoneV;
        x.rtx_act = false;
        x.rto_tmr = 0;
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
    for (unsigned c = 0; c < NC; ++c) {
      const unsigned p = c / (NPe * 4);
      Conn& x = C[c];
      if (live[p]) {
        if (x.ack_psn == x.npsn || progress[c] || gbn_started[c]) {
          x.rto_tmr = 0;
        } else if (conn_[c].rto_tmr + 1 >= rto_max) {
          go_back(c, x.ack_psn);
          count(TxCnt::rto);
        } else {
          x.rto_tmr = conn_[c].rto_tmr + 1;
        }
      }
      if (conn_[c].fo_state == kConnWait) {
        if (conn_[c].fo_tmr + 1 >= fo_retry_max) {
          x.fo_due = true;
          x.fo_tmr = 0;
        } else {
          x.fo_tmr = conn_[c].fo_tmr + 1;
        }
      }
    }
  }

  // 4. Scheduler: at most one job per edge.
  std::array<bool, kMaxPorts> idle{};
  for (unsigned p = 0; p < NP; ++p) idle[p] = !bld_[p].busy;
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
    const Conn& x = conn_[cidx(p, i, v)];
    return !x.rtx_act && ((x.npsn - x.free_psn) & 0xffff) < W;
  };
  auto port_sel = [&](unsigned q) -> int {
    const unsigned i = q / 4, v = q % 4;
    if (cfg_.strict) {
      const unsigned b = (i + v) % NP;
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
  std::vector<uint8_t> held(NQ, 0), migq(NQ, 0);
  std::vector<uint32_t> mrank(NQ, 0);  // highest death rank of q's connections in MIGRATE
  if (!lite) {
    for (unsigned c = 0; c < NC; ++c) {
      const unsigned p = c / (NPe * 4), q = c % (NPe * 4);
      const Conn& x = conn_[c];
      if (x.fo_state == kConnWait || (dies[p] && x.ack_psn != x.npsn)) held[q] = 1;
      if (x.fo_state == kConnMigrate) {
        mrank[q] = migq[q] ? std::max(mrank[q], dead_rank_[p]) : dead_rank_[p];
        migq[q] = 1;
      }
    }
  }

  Job job;
  int job_port = -1;
  // Piggyback: the job on connection x takes op/apsn from owe_q and consumes it.
  auto piggyback = [&](unsigned x) {
    const Conn& o = conn_[x];
    job.op = o.owe == kOweNackV ? 2 : o.owe == kOweAckV ? 1 : 0;
    job.apsn = o.owe == kOweNoneV ? 0 : o.owe_psn;
    if (o.owe == kOweAckV) count(TxCnt::ack_sent);
    if (o.owe == kOweNackV) count(TxCnt::nack_sent);
    if (!owe_w[x]) {
      C[x].owe = kOweNoneV;
      C[x].owe_age = 0;
    }
  };
  if (!lite) {
    // 1. FO-ACK
    if (fo_port >= 0)
      for (unsigned c = 0; c < NC && job_port < 0; ++c) {
        const unsigned v = c % 4;
        if (!conn_[c].fo_ans || !ok(fo_port, v)) continue;
        job_port = fo_port;
        job = Job{};
        job.kind = kJobEmpty, job.i = (c / 4) % NPe, job.v = v, job.op = 1, job.apsn = conn_[c].fo_ans_psn;
        job.rsvd = 8 | (c / (NPe * 4));
        if (!fo_ans_w[c]) C[c].fo_ans = false;
        count(TxCnt::fo_ack_sent);
      }
    // 2. FO-REQ
    if (fo_port >= 0)
      for (unsigned c = 0; c < NC && job_port < 0; ++c) {
        const unsigned v = c % 4;
        if (conn_[c].fo_state != kConnWait || !conn_[c].fo_due || !ok(fo_port, v)) continue;
        job_port = fo_port;
        job = Job{};
        job.kind = kJobEmpty, job.i = (c / 4) % NPe, job.v = v, job.rsvd = 8 | (c / (NPe * 4));
        C[c].fo_due = false;
        C[c].fo_tmr = 0;
        count(TxCnt::fo_req_sent);
      }
    // 3. RTX
    for (unsigned c = 0; c < NC && job_port < 0; ++c) {
      const unsigned p = c / (NPe * 4), v = c % 4;
      const Conn& x = conn_[c];
      if (!x.rtx_act || !ok(p, v)) continue;
      job_port = p;
      const Desc& d = desc_[c][x.rtx_psn % W];
      job = Job{};
      job.kind = kJobData, job.i = (c / 4) % NPe, job.v = v, job.psn = x.rtx_psn;
      job.first = d.first, job.n_cmd = d.n, job.p = d.p;
      piggyback(c);
      if (!rtx_w[c]) {
        C[c].rtx_psn = (x.rtx_psn + 1) & 0xffff;
        if (C[c].rtx_psn == x.npsn) C[c].rtx_act = false;
      }
      count(TxCnt::pdus_rtx);
    }
    // 4. ACK-only
    for (unsigned c = 0; c < NC && job_port < 0; ++c) {
      const unsigned p = c / (NPe * 4), v = c % 4;
      const Conn& x = conn_[c];
      const bool due = x.owe == kOweNackV || (x.owe == kOweAckV && x.owe_age >= cfg_.ack_delay);
      if (!live[p] || !due || !ok(p, v)) continue;
      job_port = p;
      job = Job{};
      job.kind = kJobEmpty, job.i = (c / 4) % NPe, job.v = v, job.psn = x.npsn;
      piggyback(c);
      count(TxCnt::ack_only);
    }
    // 5. MIGRATE
    for (unsigned c = 0; c < NC && job_port < 0; ++c) {
      const Conn& x = conn_[c];
      if (x.fo_state != kConnMigrate) continue;
      const unsigned i = (c / 4) % NPe, v = c % 4;
      // the connection whose port died last holds the oldest PDUs of the queue: it goes first
      if (held[i * 4 + v] || dead_rank_[c / (NPe * 4)] != mrank[i * 4 + v]) continue;
      const int t = port_sel(i * 4 + v);
      if (t < 0) continue;
      job_port = t;
      const unsigned c2 = cidx(t, i, v);
      const Desc d = desc_[c][x.mig_psn % W];
      job = Job{};
      job.kind = kJobData, job.i = i, job.v = v, job.psn = conn_[c2].npsn;
      job.first = d.first, job.n_cmd = d.n, job.p = d.p;
      piggyback(c2);
      desc_[c2][conn_[c2].npsn % W] = d;  // never a held one (cand: npsn - free_psn < Window)
      C[c2].npsn = (conn_[c2].npsn + 1) & 0xffff;
      out_bytes[t] += d.p;
      C[c].mig_psn = (x.mig_psn + 1) & 0xffff;
      if (C[c].mig_psn == x.npsn) C[c].fo_state = kConnRetired;
      count(TxCnt::pdus_mig);
    }
  }
  // 6. NEW
  std::vector<uint32_t> send(NQ);
  for (unsigned q = 0; q < NQ; ++q) send[q] = q_[q].send;
  uint32_t wrr_vc = wrr_vc_, wrr_cnt = wrr_cnt_;
  std::array<uint32_t, 4> rr_peer = rr_peer_;
  if (job_port < 0) {
    std::vector<int> sel(NQ, -1);
    std::vector<uint8_t> startable(NQ, 0);
    for (unsigned q = 0; q < NQ; ++q) {
      if (q_[q].send == q_[q].tail) continue;
      if (held[q] || migq[q]) continue;
      sel[q] = port_sel(q);
      startable[q] = sel[q] >= 0;
    }
    int vsel = -1, isel = -1;
    for (unsigned k = 0; k < 4 && vsel < 0; ++k) {
      const unsigned v = (wrr_vc_ + k) % 4;
      for (unsigned i = 0; i < NPe; ++i)
        if (startable[i * 4 + v]) {
          vsel = v;
          break;
        }
    }
    if (vsel >= 0) {
      for (unsigned k = 0; k < NPe; ++k) {
        const unsigned i = (rr_peer_[vsel] + k) % NPe;
        if (startable[i * 4 + vsel]) {
          isel = i;
          break;
        }
      }
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
      const Queue& Q = q_[q];
      const uint32_t avail = (Q.tail - Q.send) & pmask;
      uint32_t n_cmd = 0, P = 0;
      for (uint32_t k = 0; k < avail; ++k) {
        const uint32_t sz = 20 + Q.slot[(Q.send + k) & smask].dlen;
        if (P + sz > p_.max_pack) break;
        P += sz;
        ++n_cmd;
      }
      const unsigned t = sel[q];
      job_port = t;
      job = Job{};
      job.kind = kJobData, job.i = i, job.v = v, job.first = Q.send & smask, job.n_cmd = n_cmd, job.p = P;
      if (!lite) {
        const unsigned c = cidx(t, i, v);
        job.psn = conn_[c].npsn;
        piggyback(c);
        desc_[c][conn_[c].npsn % W] = Desc{job.first, n_cmd, P};
        C[c].npsn = (conn_[c].npsn + 1) & 0xffff;
        out_bytes[t] += P;
      }
      send[q] = (Q.send + n_cmd) & pmask;
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

  // 5. Builders (pre-edge builder state; slot memory is not written before step 6).
  std::vector<std::vector<uint8_t>> acked(NQ);
  for (unsigned q = 0; q < NQ; ++q) acked[q] = q_[q].acked;
  auto mark_acked = [&](uint32_t q, uint32_t first, uint32_t n) {
    for (uint32_t k = 0; k < n; ++k) acked[q][(first + k) & smask] = 1;
  };
  std::array<Builder, kMaxPorts> B = bld_;
  const unsigned ACC = p_.acc_bytes();
  for (unsigned p = 0; p < NP; ++p) {
    Builder& b = B[p];
    const Builder& bq = bld_[p];
    const bool out_free = !((out_.mac_tx_valid >> p) & 1u) || ((ready >> p) & 1u);
    if (dies[p]) {
      if (lite && bq.busy) mark_acked(bq.job.i * 4 + bq.job.v, bq.job.first, bq.job.n_cmd);  // lost
      b.busy = false;
      b.acc_n = 0;
      std::fill(b.acc.begin(), b.acc.end(), 0);
      out_.mac_tx_valid &= ~(1u << p);
      continue;
    }
    if (!bq.busy) {
      if (out_free) out_.mac_tx_valid &= ~(1u << p);
      continue;
    }
    const bool all = bq.phase == kPhDone;
    uint32_t take = 0;
    if (out_free && (bq.acc_n >= 32 || (all && bq.acc_n > 0))) {
      const uint32_t m = std::min<uint32_t>(32, bq.acc_n);
      std::array<uint8_t, 32> beat{};
      std::copy(bq.acc.begin(), bq.acc.begin() + m, beat.begin());
      if (lite && bq.first_beat) {
        const auto& a = bq.acc;
        beat[1] = a[6], beat[2] = a[7], beat[3] = a[8], beat[4] = a[1], beat[5] = a[2], beat[6] = a[3];
        beat[7] = a[9], beat[8] = a[10], beat[9] = a[11], beat[10] = a[4], beat[11] = a[5];
      }
      const bool eof = all && bq.acc_n <= 32;
      if (m != 32 && !eof) fail("nbytes != 32 on a beat that is not eof");
      out_.mac_tx_data[p] = beat;
      out_.mac_tx_valid |= 1u << p;
      out_.mac_tx_sof = (out_.mac_tx_sof & ~(1u << p)) | (uint32_t(bq.first_beat) << p);
      out_.mac_tx_eof = (out_.mac_tx_eof & ~(1u << p)) | (uint32_t(eof) << p);
      out_.mac_tx_nbytes[p] = m;
      b.first_beat = false;
      take = m;
      if (eof) {
        b.busy = false;
        if (lite) mark_acked(bq.job.i * 4 + bq.job.v, bq.job.first, bq.job.n_cmd);
      }
    } else if (out_free) {
      out_.mac_tx_valid &= ~(1u << p);
    }
    // Next chunk.
    std::array<uint8_t, 64> ch{};
    uint32_t s = 0, crc_from = 0, nphase = bq.phase, nk = bq.k, nj = bq.j;
    bool crc_it = !lite;
    const Job& J = bq.job;
    const uint32_t q = J.i * 4 + J.v;
    const Queue& Q = q_[q];
    auto after_cmd = [&](uint32_t k) {  // position after command k's last chunk
      if (k + 1 < J.n_cmd) {
        nphase = kPhOp, nk = k + 1, nj = 0;
      } else {
        nphase = lite ? kPhDone : kPhTrl;
      }
    };
    switch (bq.phase) {
      case kPhHdr: {
        const uint32_t peer = cfg_.peer_xpuid[J.i], own = cfg_.own_xpuid;
        if (!lite) {
          const uint8_t h[22] = {0x02,
                                 static_cast<uint8_t>(J.i * 4 + J.v),
                                 0,
                                 0,
                                 static_cast<uint8_t>(peer >> 8),
                                 static_cast<uint8_t>(peer),
                                 static_cast<uint8_t>((J.v << 4) | 2),
                                 static_cast<uint8_t>(cfg_.hop_count),
                                 0,
                                 0,
                                 static_cast<uint8_t>(own >> 8),
                                 static_cast<uint8_t>(own),
                                 0x88,
                                 0xb6,
                                 static_cast<uint8_t>((J.op << 4) | (own >> 8)),
                                 static_cast<uint8_t>(own),
                                 static_cast<uint8_t>(J.psn >> 8),
                                 static_cast<uint8_t>(J.psn),
                                 static_cast<uint8_t>((J.v << 6) | (J.rsvd << 2) | (cfg_.partition >> 8)),
                                 static_cast<uint8_t>(cfg_.partition),
                                 static_cast<uint8_t>(J.apsn >> 8),
                                 static_cast<uint8_t>(J.apsn)};
          std::copy(h, h + 22, ch.begin());
          s = 22;
          crc_from = 14;
        } else {
          const uint8_t h[6] = {0x22,
                                static_cast<uint8_t>(peer >> 8),
                                static_cast<uint8_t>(peer),
                                static_cast<uint8_t>((J.v << 4) | 2),
                                static_cast<uint8_t>(own >> 8),
                                static_cast<uint8_t>(own)};
          std::copy(h, h + 6, ch.begin());
          s = 6;
        }
        if (J.n_cmd == 0) {
          nphase = kPhEmpty;
        } else {
          nphase = kPhOp, nk = 0, nj = 0;
        }
        break;
      }
      case kPhOp: {
        const Slot& sl = Q.slot[(J.first + bq.k) & smask];
        const uint32_t hdr = (bq.k + 1 == J.n_cmd ? 0x8000u : 0u) | (18 + sl.dlen);
        ch[0] = static_cast<uint8_t>(hdr >> 8), ch[1] = static_cast<uint8_t>(hdr);
        std::copy(sl.ctrl.begin(), sl.ctrl.end(), ch.begin() + 2);
        s = 20;
        if (sl.dlen > 0) {
          nphase = kPhData, nj = 0;
        } else {
          after_cmd(bq.k);
        }
        break;
      }
      case kPhData: {
        const Slot& sl = Q.slot[(J.first + bq.k) & smask];
        const uint32_t rem = sl.dlen - bq.j * DB;
        s = std::min<uint32_t>(DB, rem);
        std::copy(sl.data.begin() + bq.j * DB, sl.data.begin() + bq.j * DB + s, ch.begin());
        if (rem > DB) {
          nj = bq.j + 1;
        } else {
          after_cmd(bq.k);
        }
        break;
      }
      case kPhEmpty:
        ch[0] = 0x80, ch[1] = 0x00;
        s = 2;
        nphase = lite ? kPhDone : kPhTrl;
        break;
      case kPhTrl: {
        const uint32_t v = bq.crc ^ 0xffffffffu;
        ch[0] = static_cast<uint8_t>(v >> 24), ch[1] = static_cast<uint8_t>(v >> 16);
        ch[2] = static_cast<uint8_t>(v >> 8), ch[3] = static_cast<uint8_t>(v);
        s = 4;
        crc_it = false;
        nphase = kPhDone;
        break;
      }
      default:
        break;
    }
    const uint32_t base = bq.acc_n - take;
    // Shift out the bytes taken.
    std::vector<uint8_t> acc(ACC, 0);
    std::copy(bq.acc.begin() + take, bq.acc.end(), acc.begin());
    uint32_t acc_n = base;
    if (s > 0 && base + s <= ACC) {
      std::copy(ch.begin(), ch.begin() + s, acc.begin() + base);
      acc_n = base + s;
      if (crc_it) b.crc = crc_upd(bq.crc, ch.data() + crc_from, s - crc_from);
      b.phase = nphase, b.k = nk, b.j = nj;
    }
    b.acc = std::move(acc);
    b.acc_n = acc_n;
  }

  // Job start (step 4's job; the builder was idle, so step 5 did nothing to it).
  if (job_port >= 0) {
    const unsigned p = job_port;
    if (!live[p]) fail("a job starts on a dead port");
    if (!((credit_ok >> (p * 4 + job.v)) & 1u)) fail("a job starts without credit_ok");
    if (job.kind == kJobData && (job.n_cmd < 1 || job.p > p_.max_pack)) fail("DATA PDU with n_cmd < 1 or P > MaxPack");
    Builder& b = B[p];
    b.busy = true;
    b.job = job;
    b.first_beat = true;
    b.crc = 0xffffffffu;
    b.phase = kPhHdr, b.k = 0, b.j = 0;
  }

  // 6. Ingress.
  std::vector<uint8_t> credit(NQ, 0);
  std::vector<uint32_t> tail(NQ);
  for (unsigned q = 0; q < NQ; ++q) tail[q] = q_[q].tail;
  {
    const uint32_t valid = in.tx_valid & 3, cyc = in.tx_cycle & 0xf, vc = in.tx_vc & 3, xid = in.tx_xpuid & 0x3ff;
    const uint32_t dlen = (uint32_t(in.tx_control[1]) << 4) | (in.tx_control[2] >> 4);
    Ingress I = in_;
    auto write_beat = [&](unsigned q, uint32_t beat) {
      Slot& sl = q_[q].slot[q_[q].tail & smask];
      std::copy(in.tx_data.begin(), in.tx_data.begin() + DB, sl.data.begin() + beat * DB);
    };
    if (!in_.act) {
      if (valid == 1 || valid == 2) {
        const bool badc = cyc != 0 || (valid == 1 && dlen != 0) || (valid == 2 && (dlen == 0 || dlen > p_.max_data));
        if (badc) {
          count(TxCnt::cmd_bad);
          err_cmd_ = true;
        } else {
          const uint32_t nb = valid == 2 ? (dlen + DB - 1) / DB : 0;
          int peer = -1;
          for (unsigned i = 0; i < NPe; ++i)
            if (cfg_.peer_xpuid[i] == xid) {
              peer = static_cast<int>(i);
              break;
            }
          const unsigned q = peer >= 0 ? peer * 4 + vc : 0;
          const bool full = peer >= 0 && ((q_[q].tail - q_[q].head) & pmask) == QD;
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
          } else {
            Slot& sl = q_[q].slot[q_[q].tail & smask];
            std::copy(in.tx_control.begin(), in.tx_control.end(), sl.ctrl.begin());
            sl.dlen = dlen;
            if (nb >= 1) write_beat(q, 0);
            if (nb <= 1) {
              if (!in.tx_err) {
                tail[q] = (q_[q].tail + 1) & pmask;
                count(TxCnt::cmds_in);
              } else {
                count(TxCnt::cmd_err);
                credit[q] += 1;
              }
            } else {
              I.act = true, I.drop = false, I.err = in.tx_err, I.q = q, I.beat = 1, I.nb = nb;
            }
          }
        }
      } else if (valid == 3) {
        count(TxCnt::stray_cycles);
      }
    } else {
      if (valid == 2 && cyc == in_.beat) {
        if (!in_.drop) write_beat(in_.q, in_.beat);
        I.err = in_.err || in.tx_err;
        if (in_.beat + 1 == in_.nb) {
          I.act = false;
          if (!in_.drop) {
            if (I.err) {
              count(TxCnt::cmd_err);
              credit[in_.q] += 1;
            } else {
              tail[in_.q] = (q_[in_.q].tail + 1) & pmask;
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
        if (!in_.drop) credit[in_.q] += 1;
      }
    }
    in_ = I;
  }

  // 7. Frees: descriptor walker (per port), slot free (per queue).
  if (!lite) {
    for (unsigned p = 0; p < NP; ++p) {
      for (unsigned i = 0; i < NPe; ++i)
        for (unsigned v = 0; v < 4; ++v) {
          const unsigned c = cidx(p, i, v);
          const Conn& x = conn_[c];
          if (x.free_psn == x.ack_psn) continue;
          const Desc& d = desc_[c][x.free_psn % W];
          mark_acked(i * 4 + v, d.first, d.n);
          if (out_bytes[p] < d.p) fail("out_bytes underflows");
          out_bytes[p] -= d.p;
          C[c].free_psn = (x.free_psn + 1) & 0xffff;
          goto next_port;
        }
    next_port:;
    }
  }
  std::vector<uint32_t> head(NQ);
  for (unsigned q = 0; q < NQ; ++q) {
    const Queue& Q = q_[q];
    head[q] = Q.head;
    if (Q.head == Q.send || !Q.acked[Q.head & smask]) continue;
    bool covered = false;
    for (unsigned p = 0; p < NP; ++p) {
      const Builder& b = bld_[p];
      if (b.busy && b.job.i * 4 + b.job.v == q && ((Q.head - b.job.first) & smask) < b.job.n_cmd) covered = true;
    }
    if (covered) continue;
    acked[q][Q.head & smask] = 0;
    head[q] = (Q.head + 1) & pmask;
    credit[q] += 1;
  }

  // Commit.
  conn_ = std::move(C);
  dead_ = dead;
  dead_rank_ = rank;
  out_bytes_ = out_bytes;
  bld_ = std::move(B);
  wrr_vc_ = wrr_vc, wrr_cnt_ = wrr_cnt, rr_peer_ = rr_peer;
  for (unsigned q = 0; q < NQ; ++q) {
    q_[q].head = head[q], q_[q].send = send[q], q_[q].tail = tail[q];
    q_[q].acked = std::move(acked[q]);
  }
  cnt_ = cnt;

  // Registered outputs.
  out_.tx_credit = credit;
  for (unsigned q = 0; q < NQ; ++q) {
    out_.q_count[q] = (q_[q].tail - q_[q].head) & pmask;
    out_.q_unsent[q] = (q_[q].tail - q_[q].send) & pmask;
    const uint32_t a = (q_[q].send - q_[q].head) & pmask, b = (q_[q].tail - q_[q].send) & pmask;
    if (a + b > QD) fail("head <= send <= tail violated");
  }
  if (!lite) {
    for (unsigned c = 0; c < NC; ++c) {
      const Conn& x = conn_[c];
      out_.conn_npsn[c] = x.npsn;
      out_.conn_ack_psn[c] = x.ack_psn;
      const uint32_t inflight = (x.npsn - x.free_psn) & 0xffff;
      out_.conn_inflight[c] = inflight;
      out_.conn_state[c] = x.fo_state != kConnLive ? x.fo_state : x.rtx_act ? kConnRtx : kConnLive;
      if (((x.ack_psn - x.free_psn) & 0xffff) > inflight) fail("free_psn <= ack_psn <= npsn violated");
      if (inflight > W) fail("npsn - free_psn > Window");
    }
  }
  out_.port_dead = 0;
  for (unsigned p = 0; p < NP; ++p) {
    out_.port_dead |= uint32_t(dead_[p]) << p;
    out_.out_bytes[p] = out_bytes_[p] & 0xffffff;
  }
  out_.err_cmd = err_cmd_, out_.err_dest = err_dest_, out_.err_overflow = err_overflow_;
  out_.err_no_port = err_no_port_;
  out_.cnt = cnt_;
  for (unsigned i = 0; i < NPe; ++i) {
    if (cfg_.peer_xpuid[i] == cfg_.own_xpuid) fail("peer table holds the own XPU id");
    for (unsigned j = 0; j < i; ++j)
      if (cfg_.peer_xpuid[i] == cfg_.peer_xpuid[j]) fail("peer table holds a duplicate");
  }
}

}  // namespace sue
