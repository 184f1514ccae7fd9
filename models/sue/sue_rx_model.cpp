// sue::RxModel: docs/sue.md "sue_rx: state and one rising edge", in C++.
// Comments carry the document's step numbers. Every right-hand side reads the
// pre-edge state unless the document says otherwise (the ready register and
// the feedback register are computed from the post-edge state).
#include "sue/sue_rx_model.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "sue/crc.hpp"

namespace sue {

namespace {

unsigned clog2(unsigned v) {
  unsigned r = 0;
  while ((1u << r) < v) ++r;
  return r;
}
bool pow2(unsigned v) { return v && !(v & (v - 1)); }
uint64_t mask(unsigned w) { return w >= 64 ? ~0ull : ((1ull << w) - 1); }

const char* const kRxCounterNames[RxCnt::kNum] = {
    "frames_in", "bytes_in", "pdus_ok", "lite_ok", "ack_frames", "fo_frames", "fo_req_deferred", "drop_mac",
    "drop_dead", "drop_malformed", "drop_rcrc", "drop_hdr", "drop_psn", "drop_dup", "nack_owed", "stray_beats",
    "cmds_out"};

}  // namespace

const char* rx_counter_name(unsigned i) { return i < RxCnt::kNum ? kRxCounterNames[i] : "?"; }

unsigned RxParams::max_frame_beats() const {
  unsigned len = lite() ? 6 + max_pack : 14 + 8 + max_pack + 4;
  return (std::max(60u, len) + 31) / 32;
}
unsigned RxParams::buf_ptr_bits() const { return clog2(rx_buf_beats) + 1; }
unsigned RxParams::rec_cnt_bits() const { return clog2(rx_frames) + 1; }

std::string RxParams::validate() const {
  if (profile > 1) return fmt::format("Profile={}: allowed 0 (SUE), 1 (SUE Lite)", profile);
  if (num_ports != 1 && num_ports != 2 && num_ports != 4)
    return fmt::format("NumPorts={}: allowed 1, 2, 4", num_ports);
  if (num_xpus < 2 || num_xpus > 1024) return fmt::format("NumXpus={}: allowed 2..1024", num_xpus);
  if (data_w != 128 && data_w != 256 && data_w != 512 && data_w != 1024)
    return fmt::format("DataW={}: allowed 128, 256, 512, 1024", data_w);
  unsigned pack_max = lite() ? 1024 : 4096;
  if (max_pack > pack_max || max_pack < 21)
    return fmt::format("MaxPack={}: allowed 20+MaxData..{} ({})", max_pack, pack_max, lite() ? "SUE Lite" : "SUE");
  unsigned data_max = std::min(16 * db(), max_pack - 20);
  if (max_data < 1 || max_data > data_max)
    return fmt::format("MaxData={}: allowed 1..{} (min(16*DB, MaxPack-20))", max_data, data_max);
  if (max_pack < 20 + max_data)
    return fmt::format("MaxPack={}: allowed {}..{} (20+MaxData..{})", max_pack, 20 + max_data, pack_max, pack_max);
  if (!pow2(qdepth) || qdepth < 2 || qdepth > 256)
    return fmt::format("QDepth={}: allowed a power of 2, 2..256", qdepth);
  if (!pow2(window) || window > 256) return fmt::format("Window={}: allowed a power of 2, 1..256", window);
  if (!pow2(rx_buf_beats) || rx_buf_beats <= max_frame_beats())
    return fmt::format("RxBufBeats={}: allowed a power of 2 > MaxFrameBeats={}", rx_buf_beats, max_frame_beats());
  if (rx_frames < 1 || rx_frames > 64) return fmt::format("RxFrames={}: allowed 1..64", rx_frames);
  if (cnt_w < 16 || cnt_w > 64) return fmt::format("CntW={}: allowed 16..64", cnt_w);
  return "";
}

bool RxOut::operator==(const RxOut& o) const {
  return mac_rx_ready == o.mac_rx_ready && rx_valid == o.rx_valid && rx_cycle == o.rx_cycle && rx_vc == o.rx_vc &&
         rx_xpuid == o.rx_xpuid && rx_port == o.rx_port && rx_control == o.rx_control && rx_data == o.rx_data &&
         fb == o.fb && dbg_exp == o.dbg_exp && dbg_nacked == o.dbg_nacked && buf_rows == o.buf_rows &&
         rec_count == o.rec_count && cred == o.cred && port_dead == o.port_dead && err_credit == o.err_credit &&
         cnt == o.cnt;
}

RxModel::RxModel(const RxParams& p) : p_(p) {
  std::string e = p.validate();
  if (!e.empty()) throw std::invalid_argument("sue_rx: " + e);
  port_.resize(p_.num_ports);
  for (auto& P : port_) P.buf.assign(p_.rx_buf_beats, Row{});
  exp_.assign(p_.nc(), 0);
  nacked_.assign(p_.nc(), 0);
  uacc_.assign(p_.accr(), 0);
  rdat_.assign(p_.read_rows() * 32, 0);
  RxIn in;
  reset(in);
}

void RxModel::reset(const RxIn& in) {
  cfg_ = in.cfg;
  cfg_.own_xpuid &= 0x3ff;
  cfg_.partition &= 0x3ff;
  for (auto& x : cfg_.rx_credits) x &= 0xff;
  for (auto& P : port_) {
    P.rd = P.wc = P.wr = 0;
    P.in_frame = P.too_long = false;
    P.beats = 0;
    P.rec.clear();
    P.dead = P.ready = false;
    // buffer contents are not reset (not observable)
  }
  std::fill(exp_.begin(), exp_.end(), 0);
  std::fill(nacked_.begin(), nacked_.end(), 0);
  meta_.clear();
  fb_ = false;
  fport_ = frow0_ = fe_ = fnext_ = 0;
  std::fill(rdat_.begin(), rdat_.end(), 0);
  rdat_n_ = 0;
  std::fill(uacc_.begin(), uacc_.end(), 0);
  uacc_n_ = 0;
  phase_data_ = false;
  k_ = dlen_ = 0;
  last_ = false;
  rr_port_ = 0;
  for (unsigned v = 0; v < 4; ++v) cred_[v] = cfg_.rx_credits[v];
  err_credit_ = false;
  cnt_.fill(0);
  assert_.clear();
  out_ = RxOut{};  // dbg_*: every connection reads 0 after reset
  for (unsigned v = 0; v < 4; ++v) out_.cred[v] = cred_[v];
}

// What the verdict of one frame decided (step 3).
struct RxModel::Verdict {
  bool commit = false;
  uint32_t e = 0, peer = 0, vc = 0;
  bool fb = false;
  Feedback f;
};

// Step 3: the verdict of the frame in rows [wc, wr) of port p, whose eof beat is b.
// Returns the counter that names it; fills v (commit, record fields, feedback).
uint32_t RxModel::verdict(unsigned p, const RxBeat& b, Verdict& v) const {
  const Port& P = port_[p];
  const bool lite = p_.lite();
  // 3.1 MAC error
  if (b.err) return RxCnt::drop_mac;
  // 3.2 malformed
  if (P.too_long || b.nbytes < 1 || b.nbytes > 32) return RxCnt::drop_malformed;
  const uint32_t nrows = (P.wr - P.wc) & mask(p_.buf_ptr_bits());
  std::vector<uint8_t> s;
  s.reserve(nrows * 32);
  for (uint32_t r = 0; r < nrows; ++r) {
    const Row& row = P.buf[(P.wc + r) % p_.rx_buf_beats];
    s.insert(s.end(), row.begin(), row.end());
  }
  const uint32_t L = 32 * (P.beats - 1) + b.nbytes;
  const uint32_t o0 = p_.o0();
  uint32_t pos = o0, e = 0;
  bool first = true, empty = false;
  for (;;) {
    if (pos + 2 > L) return RxCnt::drop_malformed;
    uint32_t h = uint32_t(s[pos]) << 8 | s[pos + 1];
    if (first && !lite && h == 0x8000) {
      e = pos + 2;
      empty = true;
      break;
    }
    uint32_t len = h & 0xfff;
    if ((h & 0x7000) || len < 18 || len > 18 + p_.max_data) return RxCnt::drop_malformed;
    pos += 2 + len;
    first = false;
    if (h & 0x8000) {
      e = pos;
      break;
    }
  }
  if (e - o0 > p_.max_pack) return RxCnt::drop_malformed;
  if (L != std::max<uint32_t>(60, e + (lite ? 0 : 4))) return RxCnt::drop_malformed;
  // 3.3 R-CRC
  if (!lite) {
    uint32_t want = rcrc32(s.data() + 14, e - 14);
    uint32_t got = uint32_t(s[e]) << 24 | uint32_t(s[e + 1]) << 16 | uint32_t(s[e + 2]) << 8 | s[e + 3];
    if (want != got) return RxCnt::drop_rcrc;
  }
  // 3.4 header (stored stream: SUE frame bytes; Lite hdr6 = 0x22, dst(2), {T,2}, src(2))
  const uint32_t own = cfg_.own_xpuid;
  uint32_t t, id;
  if (!lite) {
    if (s[0] != 0x02) return RxCnt::drop_hdr;
    if (s[2] != 0 || s[3] != 0 || s[4] != (own >> 8) || s[5] != (own & 0xff)) return RxCnt::drop_hdr;
    if ((s[6] & 0x0f) != 2 || (s[6] & 0xc0)) return RxCnt::drop_hdr;
    if (s[12] != 0x88 || s[13] != 0xb6) return RxCnt::drop_hdr;
    if (s[8] != 0 || s[9] != 0 || s[10] > 3) return RxCnt::drop_hdr;
    t = s[6] >> 4;
    id = uint32_t(s[10]) << 8 | s[11];
  } else {
    if (s[0] != 0x22) return RxCnt::drop_hdr;
    if (s[1] != (own >> 8) || s[2] != (own & 0xff)) return RxCnt::drop_hdr;
    if ((s[3] & 0x0f) != 2 || (s[3] & 0xc0)) return RxCnt::drop_hdr;
    if (s[4] > 3) return RxCnt::drop_hdr;
    t = s[3] >> 4;
    id = uint32_t(s[4]) << 8 | s[5];
  }
  // the source XPU id is the peer index: any id below NumXpus but the own one
  const uint32_t peer = id < p_.num_xpus && id != cfg_.own_xpuid ? id : p_.num_xpus;
  if (peer == p_.num_xpus) return RxCnt::drop_hdr;
  const uint32_t vc = t & 3;
  v.e = e, v.peer = peer, v.vc = vc;
  if (lite) {  // 3.5 Lite: commit
    v.commit = true;
    return RxCnt::lite_ok;
  }
  const uint32_t ver = s[14] >> 6, op = (s[14] >> 4) & 3, xpuid = uint32_t(s[14] & 3) << 8 | s[15];
  const uint32_t npsn = uint32_t(s[16]) << 8 | s[17];
  const uint32_t rh_vc = s[18] >> 6, rsvd = (s[18] >> 2) & 0xf, part = uint32_t(s[18] & 3) << 8 | s[19];
  const uint32_t apsn = uint32_t(s[20]) << 8 | s[21];
  if (ver != 0 || op == 3 || xpuid != id || rh_vc != vc || part != cfg_.partition) return RxCnt::drop_hdr;
  const bool fo = rsvd & 8;
  const uint32_t f = rsvd & 3;
  if (fo && (!empty || op > 1 || (rsvd & 4) || f >= p_.num_ports)) return RxCnt::drop_hdr;
  // 3.5 SUE accept paths
  v.f = Feedback{};
  v.f.valid = true;
  v.f.peer = peer;
  v.f.vc = vc;
  v.fb = true;
  if (!fo) v.f.rop = op, v.f.rapsn = apsn;
  if (empty && !fo) return RxCnt::ack_frames;
  if (fo && op == 0) {  // FO-REQ
    const Port& F = port_[f];
    bool busy_f = F.rec.size() > 0;  // pre-edge (f is dead: nothing changes there); the unpacker holds only recorded frames
    if (dead_q_[f] && !busy_f) {
      v.f.fo = kFoReq;
      v.f.fo_port = f;
      v.f.owe_psn = (exp_[(f * p_.num_xpus + peer) * 4 + vc] - 1) & 0xffff;
    } else {
      v.fb = false;
      return RxCnt::fo_req_deferred;  // fo_frames is counted by the caller too
    }
    return RxCnt::fo_frames;
  }
  if (fo) {  // FO-ACK
    v.f.fo = kFoAck;
    v.f.fo_port = f;
    v.f.rapsn = apsn;
    return RxCnt::fo_frames;
  }
  const uint32_t c = (p * p_.num_xpus + peer) * 4 + vc;
  const uint32_t d = (npsn - exp_[c]) & 0xffff;
  if (d == 0) {
    v.commit = true;
    v.f.owe = kOweAck;
    v.f.owe_psn = npsn;
    return RxCnt::pdus_ok;
  }
  if (d < 0x8000) {
    if (!nacked_[c]) {
      v.f.owe = kOweNack;
      v.f.owe_psn = exp_[c];
    }
    return RxCnt::drop_psn;
  }
  v.f.owe = kOweDup;
  v.f.owe_psn = (exp_[c] - 1) & 0xffff;
  return RxCnt::drop_dup;
}

void RxModel::tick(const RxIn& in) {
  if (!in.rst_n) {
    reset(in);
    return;
  }
  const unsigned np = p_.num_ports, db = p_.db(), accr = p_.accr();
  const uint32_t pmask = static_cast<uint32_t>(mask(p_.buf_ptr_bits()));
  const unsigned mfb = p_.max_frame_beats();
  // pre-edge values the unpacker and the FO-REQ rule read
  std::array<size_t, kMaxPorts> rec_count_q{};
  for (unsigned p = 0; p < np; ++p) rec_count_q[p] = port_[p].rec.size();
  for (unsigned p = 0; p < np; ++p) dead_q_[p] = port_[p].dead;
  std::array<bool, kMaxPorts> ev{};
  std::array<Feedback, kMaxPorts> evf{};
  // per-port commits/exp updates are applied after all verdicts so that every verdict sees pre-edge state
  struct Upd {
    bool commit = false, accept = false, nack = false;
    uint32_t c = 0;
    Rec rec;
  };
  std::array<Upd, kMaxPorts> upd{};

  for (unsigned p = 0; p < np; ++p) {
    Port& P = port_[p];
    const RxBeat& b = in.mac[p];
    // 1. death
    if (!P.dead && !((in.port_up >> p) & 1)) {
      P.dead = true;
      if (P.in_frame) {
        P.wr = P.wc;
        P.in_frame = false;
        ++cnt_[RxCnt::drop_dead];
      }
    }
    // 2. beat
    const bool take = b.valid && P.ready && !P.dead;
    if (!take) continue;
    if (b.sof) {
      if (P.in_frame) {
        ++cnt_[RxCnt::drop_malformed];
        P.wr = P.wc;
      }
      P.in_frame = true;
      P.beats = 0;
      P.too_long = false;
    }
    if (!P.in_frame) {
      ++cnt_[RxCnt::stray_beats];
      continue;
    }
    if (P.beats < mfb + 1) ++P.beats;
    if (P.beats > mfb) {
      P.too_long = true;
    } else {
      Row row = b.data;
      if (P.beats == 1 && p_.lite()) {  // stored in logical order: hdr6 | L[0..25]
        const Row& d = b.data;
        row[0] = d[0], row[1] = d[4], row[2] = d[5], row[3] = d[6], row[4] = d[10], row[5] = d[11];
        row[6] = d[1], row[7] = d[2], row[8] = d[3], row[9] = d[7], row[10] = d[8], row[11] = d[9];
      }
      P.buf[P.wr % p_.rx_buf_beats] = row;
      P.wr = (P.wr + 1) & pmask;
    }
    cnt_[RxCnt::bytes_in] += b.eof ? (b.nbytes & 63) : 32;
    if (!b.eof) continue;
    // 3. verdict
    ++cnt_[RxCnt::frames_in];
    P.in_frame = false;
    Verdict v;
    uint32_t k = verdict(p, b, v);
    ++cnt_[k];
    if (k == RxCnt::fo_req_deferred) ++cnt_[RxCnt::fo_frames];
    if (v.fb) ev[p] = true, evf[p] = v.f;
    if (v.commit) {
      upd[p].commit = true;
      upd[p].rec = Rec{P.wc, (P.wr - P.wc) & pmask, v.e, v.peer, v.vc};
      P.wc = P.wr;
    } else {
      P.wr = P.wc;
    }
    if (!p_.lite() && v.fb && evf[p].fo == kFoNone) {
      upd[p].c = (p * p_.num_xpus + v.peer) * 4 + v.vc;
      upd[p].accept = k == RxCnt::pdus_ok;
      upd[p].nack = evf[p].owe == kOweNack;
      if (upd[p].nack) ++cnt_[RxCnt::nack_owed];
      if (upd[p].nack && nacked_[upd[p].c] && assert_.empty())
        assert_ = fmt::format("sue_rx: second NACK for one gap on connection {}", upd[p].c);
    }
    if (v.fb && dead_q_[p] && assert_.empty()) assert_ = fmt::format("sue_rx: event from dead port {}", p);
  }
  for (unsigned p = 0; p < np; ++p) {
    const Upd& u = upd[p];
    if (u.commit) port_[p].rec.push_back(u.rec);
    if (u.accept) exp_[u.c] = (exp_[u.c] + 1) & 0xffff, nacked_[u.c] = 0;
    if (u.nack) nacked_[u.c] = 1;
  }

  // Unpacker
  std::array<uint32_t, 4> take_cred{};
  bool out_valid = false;
  // pre-edge: frames of each port held by the unpacker (its records from the head on)
  std::array<uint32_t, kMaxPorts> uin_q{};
  for (const Meta& m : meta_) ++uin_q[m.port];
  const bool fb_q = fb_;
  // Output, from uacc_q
  uint32_t consumed = 0;
  bool cmd_end = false;
  const Meta mh = meta_.empty() ? Meta{} : meta_.front();
  if (!phase_data_) {
    const uint32_t h = uint32_t(uacc_[0]) << 8 | uacc_[1];
    const uint32_t dlen = ((h & 0xfff) - 18) & 0xfff;
    const uint32_t f = std::min(db, dlen);
    if (uacc_n_ >= 20 + f && cred_[mh.vc] > 0) {
      out_valid = true;
      out_.rx_valid = dlen ? 2 : 1;
      out_.rx_cycle = 0;
      for (unsigned i = 0; i < 18; ++i) out_.rx_control[i] = uacc_[2 + i];
      out_.rx_data.fill(0);
      for (unsigned i = 0; i < f; ++i) out_.rx_data[i] = uacc_[20 + i];
      out_.rx_vc = mh.vc;
      out_.rx_xpuid = mh.peer;
      out_.rx_port = mh.port;
      consumed = 20 + f;
      take_cred[mh.vc] = 1;
      ++cnt_[RxCnt::cmds_out];
      dlen_ = dlen;
      last_ = h & 0x8000;
      if (dlen > db) {
        phase_data_ = true;
        k_ = 1;
      } else {
        cmd_end = true;
      }
    }
  } else {
    const uint32_t m = std::min(db, dlen_ - k_ * db);
    if (uacc_n_ >= m) {
      out_valid = true;
      out_.rx_valid = 2;
      out_.rx_cycle = k_;
      out_.rx_data.fill(0);
      for (unsigned i = 0; i < m; ++i) out_.rx_data[i] = uacc_[i];
      consumed = m;
      if ((k_ + 1) * db >= dlen_) {
        cmd_end = true;
      } else {
        ++k_;
      }
    }
  }
  bool ends = false;  // the head frame ends: its record is popped, its rows freed
  if (cmd_end) {
    phase_data_ = false;
    k_ = 0;
    if (last_) {
      ends = true;
      Port& U = port_[mh.port];
      if ((meta_.empty() || U.rec.empty()) && assert_.empty())
        assert_ = "sue_rx: a frame ends that the unpacker does not hold";
      if (!U.rec.empty()) {
        U.rec.pop_front();
        U.rd = (U.rd + mh.nrows) & pmask;
      }
      if (!meta_.empty()) meta_.pop_front();
    }
  }
  // Append: uacc = uacc_q without the consumed bytes, then the rows read at the last edge.
  uint32_t n = uacc_n_ - consumed;
  for (uint32_t i = 0; i < accr; ++i) uacc_[i] = i + consumed < accr ? uacc_[i + consumed] : 0;
  if (n + rdat_n_ > accr && assert_.empty()) assert_ = "sue_rx: unpacker accumulator overflow";
  for (uint32_t i = 0; i < rdat_n_ && n + i < accr; ++i) uacc_[n + i] = rdat_[i];
  n = std::min(accr, n + rdat_n_);
  uacc_n_ = n;
  // Read: up to NRd rows of the fetcher's frame, in order, while they fit.
  uint32_t add = 0;
  bool fdone = false;
  if (fb_q) {
    const uint32_t rows_e = (fe_ + 31) / 32;
    std::fill(rdat_.begin(), rdat_.end(), 0);
    for (unsigned j = 0, nrd = p_.read_rows(); j < nrd && fnext_ < rows_e; ++j) {
      const uint32_t r = fnext_;
      const uint32_t lo = std::max(p_.o0(), 32 * r), hi = std::min(fe_, 32 * r + 32);
      if (n + add + (hi - lo) > accr) break;
      const Row& row = port_[fport_].buf[(frow0_ + r) % p_.rx_buf_beats];
      for (uint32_t i = lo; i < hi; ++i) rdat_[add + i - lo] = row[i - 32 * r];
      add += hi - lo;
      ++fnext_;
    }
    fdone = fnext_ == rows_e;
    if (fdone) fb_ = false;
  }
  rdat_n_ = add;
  // Pick: when the fetcher is free after this edge's read and fewer than kRxMetaDepth frames are held.
  if ((!fb_q || fdone) && meta_.size() < kRxMetaDepth) {
    for (unsigned j = 0; j < np; ++j) {
      unsigned p = (rr_port_ + j) % np;
      if (rec_count_q[p] > uin_q[p]) {
        const Rec& r = port_[p].rec[uin_q[p] - (ends && mh.port == p ? 1 : 0)];
        meta_.push_back(Meta{p, r.peer, r.vc, r.nrows});
        fb_ = true;
        fport_ = p;
        frow0_ = r.row0;
        fe_ = r.e;
        fnext_ = 0;
        rr_port_ = (p + 1) % np;
        break;
      }
    }
  }
  if (!out_valid) out_.rx_valid = 0;
  // Credits
  for (unsigned v = 0; v < 4; ++v) {
    if (take_cred[v] && cred_[v] == 0 && assert_.empty()) assert_ = fmt::format("sue_rx: VC {} credit underflow", v);
    uint32_t c = cred_[v] - take_cred[v];
    if ((in.rx_credit >> v) & 1) {
      if (cred_[v] >= cfg_.rx_credits[v])
        err_credit_ = true;
      else
        ++c;
    }
    cred_[v] = c;
  }
  // 4. ready, from post-edge values
  for (unsigned p = 0; p < np; ++p) {
    Port& P = port_[p];
    uint32_t used = (P.wr - P.rd) & pmask;
    P.ready = !P.dead && p_.rx_buf_beats - used >= 1 && P.rec.size() < p_.rx_frames;
    if ((used > p_.rx_buf_beats || P.rec.size() > p_.rx_frames) && assert_.empty())
      assert_ = fmt::format("sue_rx: port {} holds {} rows / {} records", p, used, P.rec.size());
  }

  // outputs
  out_.mac_rx_ready = 0;
  out_.port_dead = 0;
  for (unsigned p = 0; p < np; ++p) {
    const Port& P = port_[p];
    out_.mac_rx_ready |= uint32_t(P.ready) << p;
    out_.port_dead |= uint32_t(P.dead) << p;
    out_.buf_rows[p] = (P.wr - P.rd) & pmask;
    out_.rec_count[p] = static_cast<uint32_t>(P.rec.size());
    if (ev[p])
      out_.fb[p] = evf[p];
    else
      out_.fb[p].valid = false;
  }
  out_.cred = cred_;
  out_.err_credit = err_credit_;
  for (unsigned i = 0; i < RxCnt::kNum; ++i) out_.cnt[i] = cnt_[i] & mask(p_.cnt_w);
  // debug read port of the connection memory: dbg_conn_i is clog2(NC) bits wide
  const uint32_t dc = in.dbg_conn & static_cast<uint32_t>(mask(clog2(p_.nc())));
  out_.dbg_exp = conn_exp(dc);
  out_.dbg_nacked = conn_nacked(dc);
}

}  // namespace sue
