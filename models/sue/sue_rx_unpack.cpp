// sue::RxUnpacker: docs/sue.md "sue_rx: state and one rising edge", the unpacker and the XPU credits,
// in C++ (rtl/sue/sue_rx_unpack.sv).
#include "sue/sue_rx_unpack.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace sue {

RxUnpacker::RxUnpacker(const RxParams& p) : p_(p) {
  uacc_.assign(p_.accr(), 0);
  rdat_.assign(p_.read_rows() * 32, 0);
  reset({});
}

void RxUnpacker::reset(const std::array<uint32_t, 4>& credits) {
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
  cred_ = credits;
  err_credit_ = false;
}

void RxUnpacker::edge(std::vector<RxPort>& ports, const std::array<size_t, kMaxPorts>& rec_count_q, uint32_t rx_credit,
                      const std::array<uint32_t, 4>& credmax, RxOut& out, std::array<uint64_t, RxCnt::kNum>& cnt,
                      std::string& assert_msg) {
  const unsigned np = p_.num_ports, db = p_.db(), accr = p_.accr();
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
      out.rx_valid = dlen ? 2 : 1;
      out.rx_cycle = 0;
      for (unsigned i = 0; i < 18; ++i) out.rx_control[i] = uacc_[2 + i];
      out.rx_data.fill(0);
      for (unsigned i = 0; i < f; ++i) out.rx_data[i] = uacc_[20 + i];
      out.rx_vc = mh.vc;
      out.rx_xpuid = mh.peer;
      out.rx_port = mh.port;
      consumed = 20 + f;
      take_cred[mh.vc] = 1;
      ++cnt[RxCnt::cmds_out];
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
      out.rx_valid = 2;
      out.rx_cycle = k_;
      out.rx_data.fill(0);
      for (unsigned i = 0; i < m; ++i) out.rx_data[i] = uacc_[i];
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
      RxPort& U = ports[mh.port];
      if ((meta_.empty() || U.records() == 0) && assert_msg.empty())
        assert_msg = "sue_rx: a frame ends that the unpacker does not hold";
      U.pop(mh.nrows);
      if (!meta_.empty()) meta_.pop_front();
    }
  }
  // Append: uacc = uacc_q without the consumed bytes, then the rows read at the last edge.
  uint32_t n = uacc_n_ - consumed;
  for (uint32_t i = 0; i < accr; ++i) uacc_[i] = i + consumed < accr ? uacc_[i + consumed] : 0;
  if (n + rdat_n_ > accr && assert_msg.empty()) assert_msg = "sue_rx: unpacker accumulator overflow";
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
      const RxRow& row = ports[fport_].row(frow0_ + r);
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
        const RxRec& r = ports[p].rec(uin_q[p] - (ends && mh.port == p ? 1 : 0));
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
  if (!out_valid) out.rx_valid = 0;
  // Credits
  for (unsigned v = 0; v < 4; ++v) {
    if (take_cred[v] && cred_[v] == 0 && assert_msg.empty()) assert_msg = fmt::format("sue_rx: VC {} credit underflow", v);
    uint32_t c = cred_[v] - take_cred[v];
    if ((rx_credit >> v) & 1) {
      if (cred_[v] >= credmax[v])
        err_credit_ = true;
      else
        ++c;
    }
    cred_[v] = c;
  }
  out.cred = cred_;
  out.err_credit = err_credit_;
}

}  // namespace sue
