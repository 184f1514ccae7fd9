// Cycle-exact C++ twin of rtl/cbfc/cbfc_tx.sv and rtl/cbfc/cbfc_rx.sv.
// Every statement below corresponds to a sentence in docs/cbfc.md; the step
// numbers in the comments are the numbered steps of that document.
//
// Conventions shared with the RTL:
//  * every input is first masked to its port width (as the wires would do),
//  * all right-hand sides use pre-edge (registered) values,
//  * counters are CntWidth bits wide and wrap modulo 2^CntWidth,
//  * credits(len) is evaluated at full precision (it is never truncated to
//    CntWidth), and the comparisons "need <= avail", "occ + need > buf",
//    "need > occ" and "avail >= mtu_credits" are exact integer comparisons.
#include "cbfc/cbfc.hpp"

#include <sstream>
#include <stdexcept>

namespace cbfc {

namespace {

// Mask with the low `width` bits set (width 0..32).
uint32_t width_mask(unsigned width) {
  return (width >= 32) ? 0xffffffffu : ((1u << width) - 1u);
}

std::string range_error(const char* name, unsigned value, unsigned lo, unsigned hi) {
  std::ostringstream os;
  os << name << "=" << value << " out of range (allowed " << lo << ".." << hi << ")";
  return os.str();
}

void check_params(const Params& p) {
  const std::string err = p.validate();
  if (!err.empty()) throw std::invalid_argument("cbfc: " + err);
}

}  // namespace

// ---------------------------------------------------------------- Params

std::string Params::validate() const {
  if (num_classes < 1 || num_classes > kMaxClasses)
    return range_error("num_classes", num_classes, 1, kMaxClasses);
  if (cnt_width < 2 || cnt_width > 31) return range_error("cnt_width", cnt_width, 2, 31);
  if (len_width < 1 || len_width > 16) return range_error("len_width", len_width, 1, 16);
  if (credit_unit_log2 > 12) return range_error("credit_unit_log2", credit_unit_log2, 0, 12);
  if (timer_width < 1 || timer_width > 31)
    return range_error("timer_width", timer_width, 1, 31);
  if (refresh_width < 1 || refresh_width > 31)
    return range_error("refresh_width", refresh_width, 1, 31);
  return "";
}

unsigned Params::class_width() const {
  // clog2(n): smallest w with 2^w >= n; at least 1 bit.
  unsigned w = 0;
  while (w < 32 && (uint64_t{1} << w) < num_classes) ++w;
  return (w < 1) ? 1u : w;
}

// ---------------------------------------------------------------- TxModel

bool TxOut::operator==(const TxOut& o) const {
  return avail == o.avail && elig == o.elig && err_underflow == o.err_underflow &&
         err_overflow == o.err_overflow && err_class == o.err_class;
}

TxModel::TxModel(const Params& p) : p_(p) { check_params(p_); }

void TxModel::tick(const TxIn& in) {
  const uint32_t cmask = p_.cnt_mask();
  const uint32_t lmask = width_mask(p_.len_width);
  const uint32_t kmask = width_mask(p_.class_width());
  const unsigned n = p_.num_classes;

  if (!in.rst_n) {
    // Synchronous reset: sample the configuration, clear everything else.
    for (unsigned c = 0; c < kMaxClasses; ++c) {
      const uint32_t init = (c < n) ? (in.cfg.init_credits[c] & cmask) : 0u;
      init_[c] = init;
      limit_[c] = init;
      consumed_[c] = 0;
    }
    mtu_credits_ = p_.credits(in.cfg.mtu & lmask);
    err_underflow_ = 0;
    err_overflow_ = 0;
    err_class_ = false;
    return;
  }

  // Next-state values, computed from pre-edge state only. Only the classes named
  // by the transmit and the credit update change, so the pre-edge values they
  // read are taken before any write.
  uint32_t tx_c = kMaxClasses, cu_c = kMaxClasses;
  uint32_t consumed_new = 0, limit_new = 0;

  // 1. Transmit.
  if (in.tx_valid) {
    const uint32_t c = in.tx_class & kmask;
    if (c >= n) {
      err_class_ = true;
    } else {
      const uint32_t need = p_.credits(in.tx_len & lmask);
      const uint32_t avail = (limit_[c] - consumed_[c]) & cmask;
      if (need <= avail) {
        tx_c = c;
        consumed_new = (consumed_[c] + need) & cmask;
      } else {
        err_underflow_ |= 1u << c;
      }
    }
  }

  // 2. Credit update (uses the pre-edge consumed_q).
  if (in.cu_valid) {
    const uint32_t c = in.cu_class & kmask;
    if (c >= n) {
      err_class_ = true;
    } else {
      const uint32_t limit = in.cu_limit & cmask;
      const uint32_t navail = (limit - consumed_[c]) & cmask;
      if (navail <= init_[c]) {
        cu_c = c;
        limit_new = limit;
      } else {
        err_overflow_ |= 1u << c;
      }
    }
  }

  if (tx_c < kMaxClasses) consumed_[tx_c] = consumed_new;
  if (cu_c < kMaxClasses) limit_[cu_c] = limit_new;
}

TxOut TxModel::outputs() const {
  const uint32_t cmask = p_.cnt_mask();
  TxOut o;
  for (unsigned c = 0; c < p_.num_classes; ++c) {
    o.avail[c] = (limit_[c] - consumed_[c]) & cmask;
    if (o.avail[c] >= mtu_credits_) o.elig |= 1u << c;
  }
  o.err_underflow = err_underflow_;
  o.err_overflow = err_overflow_;
  o.err_class = err_class_;
  return o;
}

// ---------------------------------------------------------------- RxModel

bool RxOut::operator==(const RxOut& o) const {
  return cu_valid == o.cu_valid && cu_class == o.cu_class && cu_limit == o.cu_limit &&
         occ == o.occ && pend == o.pend && err_overflow == o.err_overflow &&
         err_underflow == o.err_underflow && err_class == o.err_class;
}

RxModel::RxModel(const Params& p) : p_(p) { check_params(p_); }

void RxModel::tick(const RxIn& in) {
  const uint32_t cmask = p_.cnt_mask();
  const uint32_t lmask = width_mask(p_.len_width);
  const uint32_t kmask = width_mask(p_.class_width());
  const uint32_t tmask = width_mask(p_.timer_width);
  const uint32_t fmask = width_mask(p_.refresh_width);
  const unsigned n = p_.num_classes;

  if (!in.rst_n) {
    for (unsigned c = 0; c < kMaxClasses; ++c) {
      const uint32_t b = (c < n) ? (in.cfg.buf_credits[c] & cmask) : 0u;
      buf_[c] = b;
      limit_[c] = b;
      occ_[c] = 0;
      pend_[c] = 0;
      tmr_[c] = 0;
      rfr_[c] = 0;
    }
    const uint32_t thr = in.cfg.threshold & cmask;
    thr_ = (thr == 0) ? 1u : thr;
    tmr_max_ = in.cfg.timer & tmask;
    rfr_max_ = in.cfg.refresh & fmask;
    rr_ = 0;
    cu_valid_ = false;
    cu_class_ = 0;
    cu_limit_ = 0;
    err_overflow_ = 0;
    err_underflow_ = 0;
    err_class_ = false;
    return;
  }

  // Next state from pre-edge values. Entries of classes >= n never change (they
  // stay 0 from construction / reset), so only the first n are computed; every
  // in-place write below happens after the last read of the pre-edge value.
  uint32_t occ_new1 = 0, occ_new2 = 0;

  // 1. Arrival (check uses pre-edge occ_q).
  int rx_c = -1;
  uint64_t rx_need = 0;
  if (in.rx_valid) {
    const uint32_t c = in.rx_class & kmask;
    if (c >= n) {
      err_class_ = true;
    } else {
      const uint64_t need = p_.credits(in.rx_len & lmask);
      if (uint64_t{occ_[c]} + need > uint64_t{buf_[c]}) {
        err_overflow_ |= 1u << c;  // dropped, not counted
      } else {
        rx_c = static_cast<int>(c);
        rx_need = need;
      }
    }
  }

  // 2. Free (check uses pre-edge occ_q; both arrival and free apply to occ).
  int fr_c = -1;
  uint32_t fr_need = 0;
  if (in.free_valid) {
    const uint32_t c = in.free_class & kmask;
    if (c >= n) {
      err_class_ = true;
    } else {
      const uint32_t need = p_.credits(in.free_len & lmask);
      if (need > occ_[c]) {
        err_underflow_ |= 1u << c;
      } else {
        fr_c = static_cast<int>(c);
        fr_need = need;  // credits freed this cycle
      }
    }
  }
  if (rx_c >= 0) {
    occ_new1 = static_cast<uint32_t>(occ_[rx_c] + rx_need) & cmask;
  }
  if (fr_c >= 0) {
    const uint32_t base = (fr_c == rx_c) ? occ_new1 : occ_[fr_c];
    occ_new2 = (base - fr_need) & cmask;
  }
  if (rx_c >= 0) occ_[rx_c] = occ_new1;
  if (fr_c >= 0) occ_[fr_c] = occ_new2;

  // 3. Request (pre-edge pend_q, tmr_q and rfr_q).
  uint32_t req = 0;
  for (unsigned c = 0; c < n; ++c) {
    const bool thr_hit = pend_[c] >= thr_;
    const bool tmr_hit = tmr_max_ != 0 && pend_[c] != 0 && tmr_[c] >= tmr_max_;
    const bool rfr_hit = rfr_max_ != 0 && rfr_[c] >= rfr_max_;  // refresh
    if (thr_hit || tmr_hit || rfr_hit) req |= 1u << c;
  }

  // 4. Grant: first requester in order rr_q, rr_q+1, ..., n-1, 0, ..., rr_q-1.
  int granted = -1;
  for (unsigned i = 0; i < n && req != 0; ++i) {
    const unsigned c = (rr_ + i) % n;
    if (req & (1u << c)) {
      granted = static_cast<int>(c);
      break;
    }
  }
  cu_valid_ = false;
  if (granted >= 0) {
    const unsigned g = static_cast<unsigned>(granted);
    const uint32_t new_limit = (limit_[g] + pend_[g]) & cmask;  // pre-edge pend_q
    cu_valid_ = true;
    cu_class_ = g;
    cu_limit_ = new_limit;
    limit_[g] = new_limit;
    rr_ = (g + 1) % n;
  }

  for (unsigned c = 0; c < n; ++c) {
    const bool gr = static_cast<int>(c) == granted;
    const uint32_t pq = pend_[c];
    // 5. Timer (pre-edge pend_q), saturating at 2^TimerWidth - 1.
    if (gr || pq == 0) {
      tmr_[c] = 0;
    } else {
      tmr_[c] = (tmr_[c] >= tmask) ? tmask : tmr_[c] + 1u;
    }
    // 6. Refresh counter: cycles since the class's last update, saturating at
    // 2^RefreshWidth - 1; restarts at every grant of the class, whatever its cause.
    if (gr) {
      rfr_[c] = 0;
    } else {
      rfr_[c] = (rfr_[c] >= fmask) ? fmask : rfr_[c] + 1u;
    }
    // Grant consumes the pending credits; freed credits join.
    pend_[c] = ((gr ? 0u : pq) + (static_cast<int>(c) == fr_c ? fr_need : 0u)) & cmask;
  }
}

RxOut RxModel::outputs() const {
  RxOut o;
  o.cu_valid = cu_valid_;
  o.cu_class = cu_class_;
  o.cu_limit = cu_limit_;
  for (unsigned c = 0; c < p_.num_classes; ++c) {
    o.occ[c] = occ_[c];
    o.pend[c] = pend_[c];
  }
  o.err_overflow = err_overflow_;
  o.err_underflow = err_underflow_;
  o.err_class = err_class_;
  return o;
}

}  // namespace cbfc
