// sue::RxPort: docs/sue.md "sue_rx: state and one rising edge", steps 1-4 for one port, in C++
// (rtl/sue/sue_rx_port.sv). Every right-hand side reads the pre-edge state unless the document
// says otherwise.
#include "sue/sue_rx_port.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sue/crc.hpp"

namespace sue {

// What the verdict of one frame decided (step 3).
struct RxPort::Verdict {
  bool commit = false;
  uint32_t e = 0, peer = 0, vc = 0;
  bool fb = false;
  Feedback f;
};

RxPort::RxPort(const RxParams& p, unsigned index) : p_(p), index_(index) {
  buf_.assign(p_.rx_buf_beats, RxRow{});
  reset();
}

void RxPort::reset() {
  rd_ = wc_ = wr_ = 0;
  in_frame_ = too_long_ = false;
  beats_ = 0;
  rec_.clear();
  dead_ = ready_ = false;
  // buffer contents are not reset (not observable)
}

uint32_t RxPort::rows() const { return (wr_ - rd_) & rx_mask(p_.buf_ptr_bits()); }

void RxPort::pop(uint32_t nrows) {
  if (rec_.empty()) return;
  rec_.pop_front();
  rd_ = (rd_ + nrows) & rx_mask(p_.buf_ptr_bits());
}

void RxPort::update_ready(std::string& assert_msg) {
  const uint32_t used = rows();
  ready_ = !dead_ && p_.rx_buf_beats - used >= 1 && rec_.size() < p_.rx_frames;
  if ((used > p_.rx_buf_beats || rec_.size() > p_.rx_frames) && assert_msg.empty())
    assert_msg = fmt::format("sue_rx: port {} holds {} rows / {} records", index_, used, rec_.size());
}

RxPortEdge RxPort::edge(const RxBeat& b, bool up, const RxVerdictCtx& ctx, std::array<uint64_t, RxCnt::kNum>& cnt,
                        std::string& assert_msg) {
  RxPortEdge out;
  const uint32_t pmask = static_cast<uint32_t>(rx_mask(p_.buf_ptr_bits()));
  const unsigned mfb = p_.max_frame_beats();
  // 1. death
  if (!dead_ && !up) {
    dead_ = true;
    if (in_frame_) {
      wr_ = wc_;
      in_frame_ = false;
      ++cnt[RxCnt::drop_dead];
    }
  }
  // 2. beat
  const bool take = b.valid && ready_ && !dead_;
  if (!take) return out;
  if (b.sof) {
    if (in_frame_) {
      ++cnt[RxCnt::drop_malformed];
      wr_ = wc_;
    }
    in_frame_ = true;
    beats_ = 0;
    too_long_ = false;
  }
  if (!in_frame_) {
    ++cnt[RxCnt::stray_beats];
    return out;
  }
  if (beats_ < mfb + 1) ++beats_;
  if (beats_ > mfb) {
    too_long_ = true;
  } else {
    RxRow row = b.data;
    if (beats_ == 1 && p_.lite()) {  // stored in logical order: hdr6 | L[0..25]
      const RxRow& d = b.data;
      row[0] = d[0], row[1] = d[4], row[2] = d[5], row[3] = d[6], row[4] = d[10], row[5] = d[11];
      row[6] = d[1], row[7] = d[2], row[8] = d[3], row[9] = d[7], row[10] = d[8], row[11] = d[9];
    }
    buf_[wr_ % p_.rx_buf_beats] = row;
    wr_ = (wr_ + 1) & pmask;
  }
  cnt[RxCnt::bytes_in] += b.eof ? (b.nbytes & 63) : 32;
  if (!b.eof) return out;
  // 3. verdict
  ++cnt[RxCnt::frames_in];
  in_frame_ = false;
  Verdict v;
  const uint32_t k = verdict(b, ctx, v);
  ++cnt[k];
  if (k == RxCnt::fo_req_deferred) ++cnt[RxCnt::fo_frames];
  if (v.fb) out.fb = true, out.f = v.f;
  if (v.commit) {
    out.commit = true;
    out.rec = RxRec{wc_, (wr_ - wc_) & pmask, v.e, v.peer, v.vc};
    wc_ = wr_;
  } else {
    wr_ = wc_;
  }
  if (!p_.lite() && v.fb && out.f.fo == kFoNone) {
    out.c = (index_ * p_.num_xpus + v.peer) * 4 + v.vc;
    out.accept = k == RxCnt::pdus_ok;
    out.nack = out.f.owe == kOweNack;
    if (out.nack) ++cnt[RxCnt::nack_owed];
    if (out.nack && (*ctx.nacked)[out.c] && assert_msg.empty())
      assert_msg = fmt::format("sue_rx: second NACK for one gap on connection {}", out.c);
  }
  if (v.fb && ctx.dead_q[index_] && assert_msg.empty())
    assert_msg = fmt::format("sue_rx: event from dead port {}", index_);
  return out;
}


// Step 3: the verdict of the frame in rows [wc, wr) of this port, whose eof beat is b.
// Returns the counter that names it; fills v (commit, record fields, feedback).
uint32_t RxPort::verdict(const RxBeat& b, const RxVerdictCtx& ctx, Verdict& v) const {
  const bool lite = p_.lite();
  // 3.1 MAC error
  if (b.err) return RxCnt::drop_mac;
  // 3.2 malformed
  if (too_long_ || b.nbytes < 1 || b.nbytes > 32) return RxCnt::drop_malformed;
  const uint32_t nrows = (wr_ - wc_) & rx_mask(p_.buf_ptr_bits());
  std::vector<uint8_t> s;
  s.reserve(nrows * 32);
  for (uint32_t r = 0; r < nrows; ++r) {
    const RxRow& row = buf_[(wc_ + r) % p_.rx_buf_beats];
    s.insert(s.end(), row.begin(), row.end());
  }
  const uint32_t L = 32 * (beats_ - 1) + b.nbytes;
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
  const uint32_t own = ctx.cfg->own_xpuid;
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
  const uint32_t peer = id < p_.num_xpus && id != ctx.cfg->own_xpuid ? id : p_.num_xpus;
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
  if (ver != 0 || op == 3 || xpuid != id || rh_vc != vc || part != ctx.cfg->partition) return RxCnt::drop_hdr;
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
    bool busy_f = ctx.rec_count_q[f] > 0;  // pre-edge (f is dead: nothing changes there); the unpacker holds only recorded frames
    if (ctx.dead_q[f] && !busy_f) {
      v.f.fo = kFoReq;
      v.f.fo_port = f;
      v.f.owe_psn = ((*ctx.exp)[(f * p_.num_xpus + peer) * 4 + vc] - 1) & 0xffff;
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
  const uint32_t c = (index_ * p_.num_xpus + peer) * 4 + vc;
  const uint32_t exp = (*ctx.exp)[c];
  const uint32_t d = (npsn - exp) & 0xffff;
  if (d == 0) {
    v.commit = true;
    v.f.owe = kOweAck;
    v.f.owe_psn = npsn;
    return RxCnt::pdus_ok;
  }
  if (d < 0x8000) {
    if (!(*ctx.nacked)[c]) {
      v.f.owe = kOweNack;
      v.f.owe_psn = exp;
    }
    return RxCnt::drop_psn;
  }
  v.f.owe = kOweDup;
  v.f.owe_psn = (exp - 1) & 0xffff;
  return RxCnt::drop_dup;
}

}  // namespace sue
