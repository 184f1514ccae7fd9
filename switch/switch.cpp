// sw::Switch: the cycle-driven engine. See docs/switch.md for the behaviour;
// section names in the comments refer to that document.
#include "switch/switch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace sw {

namespace {
// kShared: shared pool (lossy, or lossless without FC); kHeadroom: PFC lossless
// (shared below XOFF + headroom); kReserved: CBFC credit-backed pool.
enum Pool : uint8_t { kShared = 0, kHeadroom = 1, kReserved = 2 };
void set_bit(std::vector<uint64_t>& w, unsigned i) { w[i / 64] |= uint64_t{1} << (i % 64); }
void clear_bit(std::vector<uint64_t>& w, unsigned i) { w[i / 64] &= ~(uint64_t{1} << (i % 64)); }
// Calls f(i) for every bit set in w, in increasing i. Each word is read once
// before its bits are visited: f may clear bits, it must not set bits of
// other ports (none of the loops below does).
template <class F>
void for_each_bit(const std::vector<uint64_t>& w, F&& f) {
  for (size_t k = 0; k < w.size(); ++k)
    for (uint64_t m = w[k]; m; m &= m - 1) f(static_cast<unsigned>(k * 64 + static_cast<unsigned>(__builtin_ctzll(m))));
}
constexpr Ps kNever = INT64_MAX;  // due time of an empty deque
unsigned log2u(unsigned v) {
  unsigned r = 0;
  while ((1u << r) < v) ++r;
  return r;
}
}  // namespace

struct Switch::Slot {
  Packet p;
  Ps t_elig = 0;   // eligible for scheduling (t_buffered + sched)
  uint32_t cells = 0;
  uint8_t pool = kShared;
  uint8_t cin = 0;  // ingress class (p.cls is the egress class; they differ when a route hook picks the output VC)
  int32_t next = -1;
};

struct Switch::Ing {
  std::deque<Packet> arr;  // injected, not yet through the ingress pipeline
  Ps last_in_last = 0;
  // CBFC receiver (toward the upstream sender)
  std::unique_ptr<cbfc::RxModel> rx;
  cbfc::RxIn rin;
  bool rx_active = false;
  unsigned rr_rx = 0, rr_free = 0;
  std::array<uint32_t, kMaxClasses> pend_rx{}, pend_free{};  // credits not yet presented to the RxModel
  // buffer usage by pool, per class
  std::array<uint32_t, kMaxClasses> sh{}, hd{}, res{};
  // PFC
  std::array<bool, kMaxClasses> xoff{};
  std::array<Ps, kMaxClasses> last_pause{};
};

struct Switch::Egr {
  Ps wire_free = 0;   // egress pin free (end of the last packet incl. overhead)
  Ps xbar_free = 0;   // output read port free (one flit per cycle)
  uint32_t queued = 0;
  std::array<uint32_t, kMaxClasses> qp{};       // packets queued per class
  std::array<uint32_t, kMaxClasses> rr_in{};    // round robin over ingress ports
  std::array<int64_t, kMaxClasses> deficit{};   // DWRR
  std::array<unsigned, kMaxClasses> drr_cur{};  // per level
  struct Reading {
    Ps t_free;
    uint16_t src;
    uint8_t cls, pool;
    uint32_t cells;
  };
  std::deque<Reading> reading;  // granted, cells still in the buffer until t_free
  std::deque<Packet> leaving;   // granted, head not yet at the pin
  // CBFC sender (toward the downstream receiver)
  std::unique_ptr<cbfc::TxModel> tx;
  cbfc::TxIn tin;
  uint8_t tx_c = 0;
  uint32_t tx_len = 0;
  struct CreditIn {
    Ps t;
    uint8_t c;
    uint32_t limit;
  };
  std::deque<CreditIn> cu;
  // PFC from downstream
  struct PauseIn {
    Ps t;
    uint8_t c;
    uint32_t quanta;
  };
  std::deque<PauseIn> pause;
  std::array<Ps, kMaxClasses> paused_until{};
};

Switch::Switch(const Params& p) : p_(p), ecn_rng_(p.seed, "switch.ecn") {
  const std::string err = p_.validate();
  if (!err.empty()) throw std::invalid_argument("switch: " + err);
  R_ = p_.radix;
  C_ = p_.num_classes;
  W_ = (R_ + 63) / 64;
  P_ = p_.period();
  d_ready_ = p_.ingress_ready_delay();
  d_admit_ = core::ns(p_.admit_ns);
  d_sched_ = core::ns(p_.sched_ns);
  d_out_ = p_.egress_delay();
  d_fc_out_ = core::ns(p_.tx_mac_ns) + core::ns(p_.tx_phy_ns);
  d_fc_in_ = core::ns(p_.rx_phy_ns) + core::ns(p_.rx_mac_ns);
  latency_ = p_.zero_load_latency();

  uint64_t per = 0;
  if (p_.fc == FlowControl::cbfc) per = p_.cbfc_buf_cells;
  if (p_.fc == FlowControl::pfc) per = p_.pfc_headroom_cells;
  shared_size_ = p_.buffer_cells() - static_cast<uint64_t>(R_) * p_.lossless_classes() * per;

  route_.assign(p_.max_xpus, -1);
  voq_.assign(static_cast<size_t>(R_) * C_ * R_, {-1, -1});
  nonempty_.assign(static_cast<size_t>(R_) * C_ * W_, 0);
  ing_.resize(R_);
  egr_.resize(R_);
  st_.resize(static_cast<size_t>(R_) * C_);
  tx_avail_.assign(static_cast<size_t>(R_) * C_, 0);
  arr_busy_.assign(W_, 0);
  rd_busy_.assign(W_, 0);
  eg_busy_.assign(W_, 0);
  tx_busy_.assign(W_, 0);
  rd_due_.assign(R_, kNever);
  cu_due_.assign(R_, kNever);
  tx_v_.assign(R_, 0);
  pool_.reserve(4096);

  // Priority levels, highest first.
  for (int lv = 7; lv >= 0; --lv) {
    std::vector<unsigned> cl;
    for (unsigned c = 0; c < C_; ++c)
      if (p_.classes[c].priority == static_cast<unsigned>(lv)) cl.push_back(c);
    if (!cl.empty()) levels_.push_back(cl);
  }

  if (p_.fc == FlowControl::cbfc) {
    cp_.num_classes = C_;
    cp_.cnt_width = 16;
    cp_.len_width = 16;
    cp_.credit_unit_log2 = log2u(p_.flit_bytes);
    cp_.timer_width = 16;
    for (unsigned i = 0; i < R_; ++i) {
      Ing& g = ing_[i];
      g.rx = std::make_unique<cbfc::RxModel>(cp_);
      g.rin = cbfc::RxIn{};
      for (unsigned c = 0; c < C_; ++c) g.rin.cfg.buf_credits[c] = p_.classes[c].lossless ? p_.cbfc_buf_cells : 0;
      g.rin.cfg.threshold = p_.cbfc_threshold;
      g.rin.cfg.timer = p_.cbfc_timer;
      g.rin.rst_n = false;
      g.rx->tick(g.rin);
      g.rin.rst_n = true;
      Egr& e = egr_[i];
      e.tx = std::make_unique<cbfc::TxModel>(cp_);
      e.tin = cbfc::TxIn{};
      for (unsigned c = 0; c < C_; ++c)
        e.tin.cfg.init_credits[c] = p_.classes[c].lossless ? p_.cbfc_downstream_cells : 0;
      e.tin.cfg.mtu = p_.mtu_bytes;
      e.tin.rst_n = false;
      e.tx->tick(e.tin);
      e.tin.rst_n = true;
      const cbfc::TxOut o = e.tx->outputs();
      for (unsigned c = 0; c < C_; ++c) tx_avail_[i * C_ + c] = o.avail[c];
    }
  }
}

Switch::~Switch() = default;

// ------------------------------------------------------------------ config / inputs

void Switch::set_route(uint32_t xpu, unsigned port) {
  if (xpu >= route_.size())
    throw std::invalid_argument(fmt::format("switch: set_route xpu={} out of range (allowed 0..{})", xpu,
                                            route_.size() - 1));
  if (port >= R_)
    throw std::invalid_argument(fmt::format("switch: set_route port={} out of range (allowed 0..{})", port, R_ - 1));
  route_[xpu] = static_cast<int16_t>(port);
}

int Switch::route(uint32_t xpu) const { return xpu < route_.size() ? route_[xpu] : -1; }

void Switch::inject(unsigned port, Packet p) {
  if (port >= R_)
    throw std::invalid_argument(fmt::format("switch: inject port={} out of range (allowed 0..{})", port, R_ - 1));
  if (p.cls >= C_)
    throw std::invalid_argument(fmt::format("switch: packet {} cls={} out of range (allowed 0..{})", p.id,
                                            static_cast<unsigned>(p.cls), C_ - 1));
  if (p.bytes < 1 || p.bytes > p_.mtu_bytes)
    throw std::invalid_argument(
        fmt::format("switch: packet {} bytes={} out of range (allowed 1..{})", p.id, p.bytes, p_.mtu_bytes));
  Ing& g = ing_[port];
  if (p.t_in_last < 0) p.t_in_last = p.t_in + p_.serialization(p.bytes);
  if (p.t_in < g.last_in_last || p.t_in_last < p.t_in)
    throw std::invalid_argument(fmt::format(
        "switch: packet {} on port {} overlaps the previous one (t_in={} ps < previous last byte {} ps)", p.id, port,
        p.t_in, g.last_in_last));
  g.last_in_last = p.t_in_last;
  p.src_port = static_cast<uint16_t>(port);
  p.egress_port = -1;
  p.t_ready = p.t_in + d_ready_;
  g.arr.push_back(p);
  set_bit(arr_busy_, port);
}

void Switch::credit_in(unsigned port, unsigned cls, uint32_t limit, Ps t) {
  if (port >= R_ || cls >= C_) throw std::invalid_argument("switch: credit_in port/cls out of range");
  auto& cu = egr_[port].cu;
  if (cu.empty()) cu_due_[port] = t + d_fc_in_;
  cu.push_back({t + d_fc_in_, static_cast<uint8_t>(cls), limit});
  set_bit(tx_busy_, port);
}

void Switch::pause_in(unsigned port, unsigned cls, uint32_t quanta, Ps t) {
  if (port >= R_ || cls >= C_) throw std::invalid_argument("switch: pause_in port/cls out of range");
  egr_[port].pause.push_back({t + d_fc_in_, static_cast<uint8_t>(cls), quanta});
  ++fc_in_pending_;
}

void Switch::egress_wire_busy(unsigned port, Ps dur) {
  if (port >= R_ || dur < 0) throw std::invalid_argument("switch: egress_wire_busy port/dur out of range");
  Egr& g = egr_[port];
  g.wire_free = std::max(g.wire_free, now_) + dur;
}

// ------------------------------------------------------------------ tick

void Switch::tick() {
  const Ps T = now_;
  departures_.clear();
  fc_out_.clear();
  drops_.clear();

  // 1. Flow-control inputs from downstream (PFC; CBFC credits are fed in tick_cbfc).
  if (fc_in_pending_ != 0) {
    for (unsigned e = 0; e < R_; ++e) {
      Egr& g = egr_[e];
      while (!g.pause.empty() && g.pause.front().t <= T) {
        const Egr::PauseIn ev = g.pause.front();
        g.pause.pop_front();
        --fc_in_pending_;
        g.paused_until[ev.c] = ev.quanta ? ev.t + p_.pause_time(ev.quanta) : ev.t;
        if (ev.quanta) ++st_[e * C_ + ev.c].pause_rcvd;
      }
    }
  }

  // 2. Cells whose last flit has been read leave the buffer.
  for_each_bit(rd_busy_, [&](unsigned e) {
    if (rd_due_[e] > T) return;  // nothing to free yet
    release(e);
    if (egr_[e].reading.empty()) clear_bit(rd_busy_, e);
  });

  // 3. Ingress pipeline: admission of heads that are through PHY, MAC, parse, lookup.
  for_each_bit(arr_busy_, [&](unsigned i) {
    auto& arr = ing_[i].arr;
    while (!arr.empty() && arr.front().t_ready <= T) {
      admit(i, arr.front());
      arr.pop_front();
    }
    if (arr.empty()) clear_bit(arr_busy_, i);
  });

  // 4. PFC toward upstream: XON and refresh of XOFF.
  if (!xoff_list_.empty()) {
    const uint64_t xd = xoff_dyn();
    size_t k = 0;
    for (size_t n = 0; n < xoff_list_.size(); ++n) {
      const uint32_t idx = xoff_list_[n];
      const unsigned i = idx / C_, c = idx % C_;
      Ing& g = ing_[i];
      st_[idx].xoff_time += P_;
      const bool resume = g.hd[c] == 0 && (g.sh[c] == 0 || g.sh[c] + p_.pfc_resume_offset_cells <= xd);
      if (resume) {
        g.xoff[c] = false;
        pfc_emit(i, c, 0);
        continue;
      }
      if (T >= g.last_pause[c] + p_.pause_time(p_.pfc_quanta) / 2) pfc_emit(i, c, p_.pfc_quanta);
      xoff_list_[k++] = idx;
    }
    xoff_list_.resize(k);
  }

  // 5. Egress: grant at most one packet per output per cycle, then departures.
  if (p_.fc == FlowControl::pfc)
    for (unsigned e = 0; e < R_; ++e)
      for (unsigned c = 0; c < C_; ++c)
        if (egr_[e].paused_until[c] > T) st_[e * C_ + c].paused_time += P_;
  for_each_bit(eg_busy_, [&](unsigned e) {
    Egr& g = egr_[e];
    if (g.queued != 0 && T >= g.xbar_free && g.wire_free < T + d_out_ + P_) schedule(e);
    while (!g.leaving.empty() && g.leaving.front().t_head_out <= T) {
      Packet& pk = g.leaving.front();
      PortClassStats& s = st_[e * C_ + pk.cls];
      ++s.tx_pkts;
      s.tx_bytes += pk.bytes;
      st_[pk.src_port * C_ + pk.cls].delivered_bytes += pk.bytes;
      departures_.push_back(std::move(pk));
      g.leaving.pop_front();
    }
    if (g.queued == 0 && g.leaving.empty()) clear_bit(eg_busy_, e);
  });

  // 6. CBFC models (receiver per ingress, sender per egress).
  if (p_.fc == FlowControl::cbfc) tick_cbfc();

  // 7. Telemetry sampling.
  if (cycle_ % p_.sample_cycles == 0) sample();

  ++cycle_;
  now_ += P_;
}

// ------------------------------------------------------------------ admission

uint64_t Switch::xoff_dyn() const {
  const double dyn = p_.pfc_alpha * static_cast<double>(shared_size_ - shared_used_);
  return std::min<uint64_t>(p_.pfc_xoff_cells, static_cast<uint64_t>(dyn));
}

void Switch::drop(Packet& pk, DropReason r) {
  PortClassStats& s = st_[pk.src_port * C_ + pk.cls];
  if (r == DropReason::no_route)
    ++s.drops_no_route;
  else if (p_.classes[pk.cls].lossless)
    ++s.drops_lossless;
  else
    ++s.drops_lossy;
  drops_.emplace_back(pk, r);
}

void Switch::admit(unsigned i, Packet& pk) {
  const unsigned c = pk.cls;
  const uint32_t idx = i * C_ + c;
  PortClassStats& si = st_[idx];
  ++si.rx_pkts;
  si.rx_bytes += pk.bytes;
  const int e = route_fn_ ? route_fn_(*this, pk) : route(pk.dst_xpu);
  // A route hook may pick the egress class (output VC): ingress accounting and the
  // credits toward the upstream stay on c, egress queue and downstream credits use co.
  const unsigned co = pk.cls;
  if (co != c) {
    if (co >= C_ || p_.classes[co].lossless != p_.classes[c].lossless)
      throw std::logic_error(fmt::format("switch: route hook set packet {} egress cls={} (ingress cls={}; allowed: "
                                         "0..{} with the same lossless setting)",
                                         pk.id, co, c, C_ - 1));
    pk.cls = static_cast<uint8_t>(c);  // drops below are counted on the ingress class
  }
  if (e < 0 || e >= static_cast<int>(R_)) return drop(pk, DropReason::no_route);
  pk.egress_port = static_cast<int16_t>(e);
  const uint32_t n = p_.cells(pk.bytes);
  const ClassCfg& cc = p_.classes[c];
  Ing& g = ing_[i];
  const uint32_t ec = static_cast<uint32_t>(e) * C_ + co;
  uint8_t pool = kShared;

  if (cc.lossless && p_.fc == FlowControl::cbfc) {
    // Credit-backed reserved pool: overflow means the upstream sent without credits.
    if (g.res[c] + n > p_.cbfc_buf_cells) return drop(pk, DropReason::lossless_overflow);
    pool = kReserved;
    g.res[c] += n;
    g.pend_rx[c] += n;
    if (!g.rx_active) {
      g.rx_active = true;
      rx_active_.push_back(i);
    }
  } else if (cc.lossless && p_.fc == FlowControl::pfc) {
    const uint64_t xd = xoff_dyn();
    pool = kHeadroom;  // PFC accounting: released headroom first (see release())
    if (g.sh[c] + n <= xd && shared_used_ + n <= shared_size_) {
      g.sh[c] += n;
      shared_used_ += n;
    } else if (g.hd[c] + n <= p_.pfc_headroom_cells) {
      g.hd[c] += n;
      si.hdrm_cells = g.hd[c];
      si.hdrm_cells_max = std::max(si.hdrm_cells_max, si.hdrm_cells);
    } else {
      return drop(pk, DropReason::lossless_overflow);
    }
  } else {
    // Shared pool with a dynamic threshold on the egress queue of the class.
    const uint64_t free_cells = shared_size_ - shared_used_;
    const double limit = cc.alpha * static_cast<double>(free_cells);
    const uint64_t qcells = (st_[ec].q_bytes + p_.flit_bytes - 1) / p_.flit_bytes;
    if (shared_used_ + n > shared_size_ || static_cast<double>(qcells + n) > limit)
      return drop(pk, DropReason::buffer_full);
    g.sh[c] += n;
    shared_used_ += n;
  }
  si.ing_cells += n;
  si.ing_cells_max = std::max(si.ing_cells_max, si.ing_cells);
  if (p_.fc == FlowControl::pfc && cc.lossless) pfc_check(i, c);

  // Stage times (docs/switch.md "Latency record").
  pk.t_buffered = (p_.forwarding == Forwarding::store_and_forward ? pk.t_in_last + d_ready_ : pk.t_ready) + d_admit_;

  int32_t si_idx;
  if (!free_slots_.empty()) {
    si_idx = free_slots_.back();
    free_slots_.pop_back();
  } else {
    si_idx = static_cast<int32_t>(pool_.size());
    pool_.emplace_back();
  }
  Slot& s = pool_[si_idx];
  pk.cls = static_cast<uint8_t>(co);
  s.p = pk;
  s.t_elig = pk.t_buffered + d_sched_;
  s.cells = n;
  s.pool = pool;
  s.cin = static_cast<uint8_t>(c);
  s.next = -1;
  const size_t q = static_cast<size_t>(ec) * R_ + i;
  if (voq_[q][1] < 0) {
    voq_[q][0] = si_idx;
    nonempty_[static_cast<size_t>(ec) * W_ + i / 64] |= uint64_t{1} << (i % 64);
  } else {
    pool_[voq_[q][1]].next = si_idx;
  }
  voq_[q][1] = si_idx;
  Egr& eg = egr_[e];
  ++eg.queued;
  set_bit(eg_busy_, static_cast<unsigned>(e));
  ++eg.qp[co];
  PortClassStats& se = st_[ec];
  se.q_bytes += pk.bytes;
  se.q_bytes_max = std::max(se.q_bytes_max, se.q_bytes);
}

// ------------------------------------------------------------------ PFC toward upstream

void Switch::pfc_emit(unsigned i, unsigned c, uint32_t quanta) {
  FcMsg m;
  m.port = i;
  m.kind = FcMsg::Kind::pause;
  m.cls = static_cast<uint8_t>(c);
  m.value = quanta;
  m.t = now_ + d_fc_out_;
  fc_out_.push_back(m);
  if (quanta) {
    ++st_[i * C_ + c].pause_sent;
    ing_[i].last_pause[c] = now_;
  }
}

void Switch::pfc_check(unsigned i, unsigned c) {
  Ing& g = ing_[i];
  if (g.xoff[c]) return;
  if (g.hd[c] > 0 || g.sh[c] >= xoff_dyn()) {
    g.xoff[c] = true;
    ++st_[i * C_ + c].xoff_events;
    pfc_emit(i, c, p_.pfc_quanta);
    xoff_list_.push_back(i * C_ + c);
  }
}

bool Switch::upstream_xoff(unsigned port, unsigned cls) const { return ing_[port].xoff[cls]; }

// ------------------------------------------------------------------ egress scheduling

int Switch::pick_input(unsigned e, unsigned c) const {
  const size_t ec = static_cast<size_t>(e) * C_ + c;
  const uint64_t* words = &nonempty_[ec * W_];
  const unsigned start = egr_[e].rr_in[c];
  const unsigned w0 = start / 64, b0 = start % 64;
  for (unsigned k = 0; k <= W_; ++k) {
    const unsigned w = (w0 + k) % W_;
    uint64_t m = words[w];
    if (k == 0) m &= ~uint64_t{0} << b0;
    if (k == W_) m &= (uint64_t{1} << b0) - 1;
    while (m) {
      const unsigned i = w * 64 + static_cast<unsigned>(__builtin_ctzll(m));
      if (pool_[voq_[ec * R_ + i][0]].t_elig <= now_) return static_cast<int>(i);
      m &= m - 1;
    }
  }
  return -1;
}

void Switch::schedule(unsigned e) {
  const Ps T = now_;
  Egr& g = egr_[e];
  std::array<int, kMaxClasses> cand;
  bool any = false;
  for (unsigned c = 0; c < C_; ++c) {
    cand[c] = -1;
    if (g.qp[c] == 0) continue;
    const int i = pick_input(e, c);
    if (i < 0) continue;
    PortClassStats& s = st_[e * C_ + c];
    const Slot& head = pool_[voq_[(static_cast<size_t>(e) * C_ + c) * R_ + i][0]];
    if (p_.fc == FlowControl::cbfc && p_.classes[c].lossless && tx_avail_[e * C_ + c] < head.cells) {
      s.credit_stall += P_;
      continue;
    }
    if (p_.fc == FlowControl::pfc && g.paused_until[c] > T) {
      s.pause_stall += P_;
      continue;
    }
    cand[c] = i;
    any = true;
  }
  if (!any) return;

  // Strict priority between levels; DWRR (bytes) between the classes of a level.
  int chosen = -1;
  for (size_t lv = 0; lv < levels_.size() && chosen < 0; ++lv) {
    const std::vector<unsigned>& L = levels_[lv];
    bool lv_any = false;
    for (unsigned c : L) lv_any |= cand[c] >= 0;
    if (!lv_any) continue;
    if (L.size() == 1) {
      chosen = static_cast<int>(L[0]);
      break;
    }
    const size_t m = L.size();
    unsigned idx = g.drr_cur[lv] % m;
    for (size_t step = 0; step <= 2 * m + 1; ++step) {
      const unsigned c = L[idx];
      if (cand[c] >= 0) {
        const uint32_t bytes =
            pool_[voq_[(static_cast<size_t>(e) * C_ + c) * R_ + static_cast<unsigned>(cand[c])][0]].p.bytes;
        if (g.deficit[c] >= static_cast<int64_t>(bytes)) {
          g.deficit[c] -= bytes;
          g.drr_cur[lv] = idx;
          chosen = static_cast<int>(c);
          break;
        }
      }
      idx = static_cast<unsigned>((idx + 1) % m);
      const unsigned nc = L[idx];
      if (cand[nc] >= 0) g.deficit[nc] += static_cast<int64_t>(p_.classes[nc].weight) * p_.mtu_bytes;
    }
  }
  if (chosen < 0) return;  // unreachable: a quantum is at least one MTU

  // Dequeue the head of VOQ (e, c, i).
  const unsigned c = static_cast<unsigned>(chosen);
  const unsigned i = static_cast<unsigned>(cand[c]);
  const size_t ec = static_cast<size_t>(e) * C_ + c;
  auto& q = voq_[ec * R_ + i];
  const int32_t sidx = q[0];
  Slot& s = pool_[sidx];
  q[0] = s.next;
  if (q[0] < 0) {
    q[1] = -1;
    nonempty_[ec * W_ + i / 64] &= ~(uint64_t{1} << (i % 64));
  }
  g.rr_in[c] = (i + 1) % R_;
  --g.queued;
  if (--g.qp[c] == 0) g.deficit[c] = 0;
  Packet pk = s.p;
  const uint32_t cells = s.cells;
  const uint8_t pool = s.pool;
  const uint8_t cin = s.cin;
  free_slots_.push_back(sidx);

  PortClassStats& se = st_[ec];
  se.q_bytes -= pk.bytes;
  // RED/ECN on the egress queue of the class, at dequeue.
  if (p_.classes[c].ecn) {
    const uint64_t depth = se.q_bytes;
    pk.ecn_depth = static_cast<uint32_t>(std::min<uint64_t>(depth, UINT32_MAX));
    bool mark = false;
    if (depth > p_.ecn_kmax_bytes) {
      mark = true;
    } else if (depth > p_.ecn_kmin_bytes) {
      const double prob = p_.ecn_pmax * static_cast<double>(depth - p_.ecn_kmin_bytes) /
                          static_cast<double>(p_.ecn_kmax_bytes - p_.ecn_kmin_bytes);
      mark = ecn_rng_.chance(prob);
    }
    if (mark) {
      if (!pk.ecn) ++se.ecn_marks;
      pk.ecn = true;
    }
  }

  // Times: the head leaves when the pipeline, the wire and (cut-through) the tail allow.
  const Ps ser = p_.serialization(pk.bytes);
  Ps head = std::max(T + d_out_, g.wire_free);
  head = std::max(head, pk.t_in_last + latency_ - ser);  // never underrun the tail
  pk.t_scheduled = T;
  pk.t_head_out = head;
  pk.t_tail_out = head + ser;
  g.wire_free = head + p_.serialization(static_cast<uint64_t>(pk.bytes) + p_.overhead_bytes);
  g.xbar_free = T + static_cast<Ps>(cells) * P_;
  if (g.reading.empty()) rd_due_[e] = head - d_out_ + ser;
  g.reading.push_back({head - d_out_ + ser, pk.src_port, cin, pool, cells});  // frees the ingress class
  set_bit(rd_busy_, e);

  if (p_.fc == FlowControl::cbfc && p_.classes[c].lossless) {
    tx_v_[e] = 1;
    g.tx_c = static_cast<uint8_t>(c);
    g.tx_len = cells * p_.flit_bytes;  // one credit per cell
    set_bit(tx_busy_, e);
  }
  g.leaving.push_back(std::move(pk));
}

void Switch::release(unsigned e) {
  Egr& g = egr_[e];
  while (!g.reading.empty() && g.reading.front().t_free <= now_) {
    const Egr::Reading r = g.reading.front();
    g.reading.pop_front();
    Ing& in = ing_[r.src];
    PortClassStats& s = st_[r.src * C_ + r.cls];
    s.ing_cells -= r.cells;
    switch (r.pool) {
      case kShared:
        in.sh[r.cls] -= r.cells;
        shared_used_ -= r.cells;
        break;
      case kHeadroom: {
        // PFC lossless (either pool at admission): headroom drains first, as in
        // switch MMUs, so XON can come while the shared part still holds data.
        const uint32_t from_hd = std::min(in.hd[r.cls], r.cells);
        in.hd[r.cls] -= from_hd;
        in.sh[r.cls] -= r.cells - from_hd;
        shared_used_ -= r.cells - from_hd;
        s.hdrm_cells = in.hd[r.cls];
        break;
      }
      case kReserved:
        in.res[r.cls] -= r.cells;
        in.pend_free[r.cls] += r.cells;
        if (!in.rx_active) {
          in.rx_active = true;
          rx_active_.push_back(r.src);
        }
        break;
    }
  }
  rd_due_[e] = g.reading.empty() ? kNever : g.reading.front().t_free;
}

// ------------------------------------------------------------------ CBFC

void Switch::tick_cbfc() {
  const uint32_t max_feed = 65535u / p_.flit_bytes;  // len_width = 16 bits
  size_t k = 0;
  for (size_t n = 0; n < rx_active_.size(); ++n) {
    const unsigned i = rx_active_[n];
    Ing& g = ing_[i];
    cbfc::RxIn& in = g.rin;
    in.rx_valid = false;
    in.free_valid = false;
    for (unsigned j = 0; j < C_; ++j) {
      const unsigned c = (g.rr_rx + j) % C_;
      if (g.pend_rx[c]) {
        const uint32_t m = std::min(g.pend_rx[c], max_feed);
        g.pend_rx[c] -= m;
        in.rx_valid = true;
        in.rx_class = c;
        in.rx_len = m * p_.flit_bytes;
        g.rr_rx = (c + 1) % C_;
        break;
      }
    }
    for (unsigned j = 0; j < C_; ++j) {
      const unsigned c = (g.rr_free + j) % C_;
      if (g.pend_free[c]) {
        const uint32_t m = std::min(g.pend_free[c], max_feed);
        g.pend_free[c] -= m;
        in.free_valid = true;
        in.free_class = c;
        in.free_len = m * p_.flit_bytes;
        g.rr_free = (c + 1) % C_;
        break;
      }
    }
    g.rx->tick(in);
    const cbfc::RxOut o = g.rx->outputs();
    if (o.cu_valid) {
      FcMsg m;
      m.port = i;
      m.kind = FcMsg::Kind::credit;
      m.cls = static_cast<uint8_t>(o.cu_class);
      m.value = o.cu_limit;
      m.t = now_ + d_fc_out_;
      fc_out_.push_back(m);
      ++st_[i * C_ + o.cu_class].credit_updates;
    }
    if (o.err_overflow || o.err_underflow || o.err_class)
      throw std::logic_error(fmt::format("switch: CBFC receiver error on port {} (overflow {:#x} underflow {:#x})", i,
                                         o.err_overflow, o.err_underflow));
    bool busy = false;
    for (unsigned c = 0; c < C_; ++c) busy |= (o.pend[c] | g.pend_rx[c] | g.pend_free[c]) != 0;
    if (busy)
      rx_active_[k++] = i;
    else
      g.rx_active = false;
  }
  rx_active_.resize(k);

  // Senders: only those with a transmit or queued credit updates (tx_busy_).
  for_each_bit(tx_busy_, [&](unsigned e) {
    const bool cu = cu_due_[e] <= now_;
    const bool tx_v = tx_v_[e] != 0;
    if (!cu && !tx_v) return;  // updates not due yet: stays busy
    Egr& g = egr_[e];
    cbfc::TxIn& in = g.tin;
    in.tx_valid = tx_v;
    in.tx_class = g.tx_c;
    in.tx_len = g.tx_len;
    in.cu_valid = cu;
    if (cu) {
      in.cu_class = g.cu.front().c;
      in.cu_limit = g.cu.front().limit;
      g.cu.pop_front();
      cu_due_[e] = g.cu.empty() ? kNever : g.cu.front().t;
    }
    tx_v_[e] = 0;
    g.tx->tick(in);
    const cbfc::TxOut o = g.tx->outputs();
    if (o.err_underflow || o.err_overflow || o.err_class)
      throw std::logic_error(fmt::format("switch: CBFC sender error on port {} (underflow {:#x} overflow {:#x})", e,
                                         o.err_underflow, o.err_overflow));
    for (unsigned c = 0; c < C_; ++c) tx_avail_[e * C_ + c] = o.avail[c];
    if (g.cu.empty()) clear_bit(tx_busy_, e);  // tx_v was consumed above
  });
}

// ------------------------------------------------------------------ telemetry

void Switch::sample() {
  for (auto& s : st_) {
    s.q_bytes_samples.add(static_cast<double>(s.q_bytes));
    s.ing_cells_samples.add(static_cast<double>(s.ing_cells));
  }
}

void Switch::reset_stats() {
  for (auto& s : st_) {
    PortClassStats n;
    n.ing_cells = n.ing_cells_max = s.ing_cells;
    n.hdrm_cells = n.hdrm_cells_max = s.hdrm_cells;
    n.q_bytes = n.q_bytes_max = s.q_bytes;
    s = std::move(n);
  }
  stats_start_ = now_;
}

uint64_t Switch::lossless_drops() const {
  uint64_t n = 0;
  for (const auto& s : st_) n += s.drops_lossless;
  return n;
}

uint64_t Switch::queued_packets() const {
  uint64_t n = 0;
  for (const auto& g : egr_) n += g.queued;
  return n;
}

uint64_t Switch::in_flight() const {
  uint64_t n = 0;
  for (const auto& g : egr_) n += g.queued + g.leaving.size();
  for (const auto& g : ing_) n += g.arr.size();
  return n;
}

Summary Switch::summary() const {
  Summary m;
  m.window = now_ - stats_start_;
  std::vector<double> in_b(R_, 0.0), out_b(R_, 0.0);
  std::vector<bool> in_active(R_, false);
  for (unsigned p = 0; p < R_; ++p)
    for (unsigned c = 0; c < C_; ++c) {
      const PortClassStats& s = st_[p * C_ + c];
      m.rx_pkts += s.rx_pkts;
      m.tx_pkts += s.tx_pkts;
      m.rx_bytes += s.rx_bytes;
      m.tx_bytes += s.tx_bytes;
      m.drops_lossy += s.drops_lossy;
      m.drops_lossless += s.drops_lossless;
      m.drops_no_route += s.drops_no_route;
      m.ecn_marks += s.ecn_marks;
      m.pause_sent += s.pause_sent;
      m.pause_rcvd += s.pause_rcvd;
      m.q_bytes_max = std::max(m.q_bytes_max, s.q_bytes_max);
      m.q_bytes_p95_max = std::max(m.q_bytes_p95_max, s.q_bytes_samples.percentile(95));
      in_b[p] += static_cast<double>(s.delivered_bytes);
      out_b[p] += static_cast<double>(s.tx_bytes);
      if (s.rx_pkts) in_active[p] = true;
    }
  if (m.window > 0) m.tx_gbps = static_cast<double>(m.tx_bytes) * 8000.0 / static_cast<double>(m.window);
  auto fair = [](const std::vector<double>& v, double& jain, double& imb) {
    if (v.empty()) return;
    jain = core::jain_fairness(v);
    double s = 0, mx = 0;
    for (double x : v) s += x, mx = std::max(mx, x);
    imb = s > 0 ? mx / (s / static_cast<double>(v.size())) : 1.0;
  };
  std::vector<double> vin, vout;
  for (unsigned p = 0; p < R_; ++p) {
    if (in_active[p]) vin.push_back(in_b[p]);
    if (out_b[p] > 0) vout.push_back(out_b[p]);
  }
  fair(vin, m.jain_ingress, m.imbalance_ingress);
  fair(vout, m.jain_egress, m.imbalance_egress);
  return m;
}

std::string Switch::report() const {
  const Summary m = summary();
  std::string s = fmt::format(
      "switch: radix {} x {}G ({} x {}G lanes), flit {} B, core {} MHz, {}, {}, window {}\n", p_.radix, p_.port_gbps,
      p_.lanes(), p_.lane_gbps, p_.flit_bytes, p_.core_mhz, to_string(p_.forwarding), to_string(p_.fc),
      core::format_time(m.window));
  s += fmt::format("  packets in {} out {}, throughput {:.1f} Gb/s, drops lossy {} lossless {} no-route {}\n",
                   m.rx_pkts, m.tx_pkts, m.tx_gbps, m.drops_lossy, m.drops_lossless, m.drops_no_route);
  s += fmt::format("  ECN marks {}, PFC pause sent {} received {}\n", m.ecn_marks, m.pause_sent, m.pause_rcvd);
  s += fmt::format("  fairness (Jain) ingress {:.4f} egress {:.4f}, max/mean ingress {:.3f} egress {:.3f}\n",
                   m.jain_ingress, m.jain_egress, m.imbalance_ingress, m.imbalance_egress);
  s += fmt::format("  egress queue max {} B, largest P95 {:.0f} B\n", m.q_bytes_max, m.q_bytes_p95_max);
  s += "  port cls  rx_pkts  tx_pkts  q_p95_B  q_max_B  ing_max_cells  credit_stall  pause_sent  paused  ecn  drops\n";
  for (unsigned p = 0; p < R_; ++p)
    for (unsigned c = 0; c < C_; ++c) {
      const PortClassStats& t = st_[p * C_ + c];
      if (t.rx_pkts == 0 && t.tx_pkts == 0) continue;
      s += fmt::format("  {:>4} {:>3} {:>8} {:>8} {:>8.0f} {:>8} {:>14} {:>13} {:>11} {:>7} {:>4} {:>6}\n", p, c,
                       t.rx_pkts, t.tx_pkts, t.q_bytes_samples.percentile(95), t.q_bytes_max, t.ing_cells_max,
                       core::format_time(t.credit_stall), t.pause_sent, core::format_time(t.paused_time), t.ecn_marks,
                       t.drops_lossy + t.drops_lossless + t.drops_no_route);
    }
  return s;
}

}  // namespace sw
