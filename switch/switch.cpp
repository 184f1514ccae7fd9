// sw::Switch: the cycle-driven engine. See docs/switch.md for the behaviour;
// section names in the comments refer to that document.
//
// Speed (docs/switch.md "Speed"): a tick costs in proportion to the work due
// at that edge, not to the radix. Every per-port step is filed in a calendar
// at its event horizon (the first edge at which that step can change
// anything, kept per port in a flat *_due_ array); the CBFC receivers and
// senders are stepped only at the edges where they can act. Results are
// bit-identical to stepping every port, queue and model on every edge.
#include "switch/switch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

// Debug builds run a cbfc::RxModel beside every event-driven CBFC receiver,
// ticked on every edge as the twin would be, and a cbfc::TxModel beside every
// sender, and compare them (std::logic_error on a difference). Release builds
// do not.
#ifndef SW_CBFC_LOCKSTEP
#ifdef NDEBUG
#define SW_CBFC_LOCKSTEP 0
#else
#define SW_CBFC_LOCKSTEP 1
#endif
#endif

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
constexpr Ps kNever = INT64_MAX;               // due time of an empty queue
constexpr uint64_t kNeverCycle = UINT64_MAX;   // due cycle of an idle receiver
// The first set bit of mask in the cyclic order from, from+1, ..., 0, ..., from-1
// (mask != 0, from < 32): a round-robin pick.
unsigned first_from(uint32_t mask, unsigned from) {
  const uint32_t hi = mask & (~0u << from);
  return static_cast<unsigned>(__builtin_ctz(hi != 0 ? hi : mask));
}
unsigned log2u(unsigned v) {
  unsigned r = 0;
  while ((1u << r) < v) ++r;
  return r;
}
}  // namespace

namespace detail {
// FIFO on a power-of-two ring that only grows: unlike std::deque it does not
// allocate and free a block every few packets in the hot path.
template <class T>
class Ring {
 public:
  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }
  T& front() { return buf_[head_ & mask_]; }
  const T& front() const { return buf_[head_ & mask_]; }
  void pop_front() { ++head_; }
  void push_back(const T& v) { push_slot() = v; }
  T& push_slot() {  // the new back element, to be assigned
    if (size() == buf_.size()) grow();
    return buf_[tail_++ & mask_];
  }

 private:
  std::vector<T> buf_;
  size_t head_ = 0, tail_ = 0, mask_ = 0;
  void grow() {
    const size_t n = size();
    std::vector<T> b(buf_.empty() ? 8 : 2 * buf_.size());
    for (size_t k = 0; k < n; ++k) b[k] = buf_[(head_ + k) & mask_];
    buf_.swap(b);
    head_ = 0;
    tail_ = n;
    mask_ = buf_.size() - 1;
  }
};
}  // namespace detail

// 128 bytes on a 64-byte boundary: a packet's slot is two whole cache lines.
struct alignas(64) Switch::Slot {
  Packet p;
  Ps t_elig = 0;   // eligible for scheduling (t_buffered + sched)
  uint32_t cells = 0;
  // (32-bit fields: a store of a char type may alias anything, so the
  // compiler would load every array's base pointer again after it.)
  uint32_t pool = kShared;
  uint32_t cin = 0;  // ingress class (p.cls is the egress class; they differ when a route hook picks the output VC)
  int32_t next = -1;
};

struct Switch::Ing {
  // Hot fields first (arrivals, admission, frees, receiver presentation).
  struct Arrival {
    Ps t_ready;    // head through PHY, MAC, parse, lookup
    int32_t slot;  // the packet, in pool_
  };
  detail::Ring<Arrival> arr;  // injected, not yet through the ingress pipeline
  Ps last_in_last = 0;
  // CBFC receiver (toward the upstream sender): state in rxc_[port]
  uint32_t rx_active = false;  // (not bool: see Slot::pool)
  unsigned rr_rx = 0, rr_free = 0;
  uint32_t rx_mask = 0, free_mask = 0;  // bit c: k[c].pend_rx (k[c].pend_free) != 0
  // The presentation stepped at once at edge fast_cycle (rx_arrival(), rx_free()),
  // kept to undo it if a second one comes at the same edge.
  uint64_t fast_cycle = UINT64_MAX, fast_due = 0;  // fast_due: rx_due_ before a free
  uint32_t fast_n = 0;
  uint32_t fast_c = 0, fast_rr = 0;  // (not uint8_t: see Slot::pool)
  uint32_t fast_free = false;
  struct Class {
    uint32_t pend_rx = 0, pend_free = 0;  // credits not yet presented to the receiver
    uint32_t sh = 0, hd = 0, res = 0;     // buffer usage by pool
  };
  std::array<Class, kMaxClasses> k{};
  // PFC
  std::array<bool, kMaxClasses> xoff{};
  std::array<Ps, kMaxClasses> last_pause{};
#if SW_CBFC_LOCKSTEP
  std::unique_ptr<cbfc::RxModel> rx;  // the twin, checked against rxc_ on every edge
  cbfc::RxIn rin;
  uint64_t lk_cycle = UINT64_MAX;     // last cycle the receiver was stepped, with its inputs and update
  std::array<int, 4> lk_in{};
  bool lk_cu = false;
  // The receiver was stepped at `cyc` with this arrival and free (class -1: none) and update.
  void lk_note(uint64_t cyc, int rx_c, uint32_t rx_n, int fr_c, uint32_t fr_n, bool cu) {
    lk_cycle = cyc;
    lk_in = {rx_c, static_cast<int>(rx_n), fr_c, static_cast<int>(fr_n)};
    lk_cu = cu;
  }
#endif
};

// CBFC receiver of one ingress port: exactly cbfc::RxModel (docs/cbfc.md
// "Receiver") with the switch's configuration (refresh off, cnt/len width 16),
// stepped only at the cycles where it can act. The model's per-class timer
// tmr_ is not counted every cycle: it restarts (0) at every edge where the
// class is granted or has nothing pending before the edge, so before the edge
// of cycle t it equals t - rst[c] - 1 (saturating at 2^16-1, which never
// changes the comparison with the 16-bit timer setting), rst[c] being the
// cycle of its last restart. Between the steps the model would see no input
// and raise no request (rx_due_ is the first cycle one can be raised), and such
// an edge changes nothing else: cu_valid stays low, pend, occ, limit and the
// round robin keep their values, the timers run on.
struct Switch::RxCredit {
  uint32_t pend_mask = 0;  // bit c: k[c].pend != 0
  unsigned rr = 0;
  struct Class {           // per class, together: a step touches one cache line for two classes
    uint32_t buf = 0, occ = 0, limit = 0, pend = 0;
    uint64_t rst = 0;      // read only while pend != 0
  };
  std::array<Class, kMaxClasses> k{};
};

struct Switch::Egr {
  // Hot fields first (scheduling, departures).
  Ps wire_free = 0;   // egress pin free (end of the last packet incl. overhead)
  Ps xbar_free = 0;   // output read port free (one flit per cycle)
  uint32_t queued = 0;
  uint32_t tx_c = 0;  // CBFC transmit of this edge: class, bytes
  uint32_t tx_len = 0;
  struct Reading {
    Ps t_free;
    uint16_t src;
    uint8_t cls, pool;
    uint32_t cells;
  };
  detail::Ring<Reading> reading;  // granted, cells still in the buffer until t_free
  struct Leaving {
    Ps t_head_out;
    int32_t slot;  // the packet, in pool_ until it leaves
  };
  detail::Ring<Leaving> leaving;  // granted, head not yet at the pin
  struct Class {
    uint32_t qp = 0;      // packets queued
    uint32_t rr_in = 0;   // round robin over ingress ports
    int64_t deficit = 0;  // DWRR
    // CBFC sender (toward the downstream receiver): exactly cbfc::TxModel
    // (docs/cbfc.md "Sender") with cnt/len width 16, stepped only on an edge
    // with a transmit or an update (an edge without either changes nothing).
    // tx_avail_ is its avail output.
    uint32_t tx_init = 0, tx_limit = 0, tx_consumed = 0;
  };
  std::array<Class, kMaxClasses> k{};
  std::array<unsigned, kMaxClasses> drr_cur{};  // per level
#if SW_CBFC_LOCKSTEP
  std::unique_ptr<cbfc::TxModel> tx;  // the twin, checked on every step
  cbfc::TxIn tin;
#endif
  struct CreditIn {
    Ps t;
    uint8_t c;
    uint32_t limit;
  };
  detail::Ring<CreditIn> cu;
  // PFC from downstream
  struct PauseIn {
    Ps t;
    uint8_t c;
    uint32_t quanta;
  };
  detail::Ring<PauseIn> pause;
  std::array<Ps, kMaxClasses> paused_until{};
  uint32_t paused_listed = 0;  // bit c: (e, c) is in paused_list_
};

Switch::Switch(const Params& p) : ecn_rng_(p.seed, "switch.ecn"), p_(p) {
  const std::string err = p_.validate();
  if (!err.empty()) throw std::invalid_argument("switch: " + err);
  R_ = p_.radix;
  fc_ = p_.fc;
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
  voq_.assign(static_cast<size_t>(R_) * C_ * R_, Voq{});
  voq_tail_.assign(static_cast<size_t>(R_) * C_ * R_, -1);
  nonempty_.assign(static_cast<size_t>(R_) * C_ * W_, 0);
  ing_.resize(R_);
  egr_.resize(R_);
  st_.resize(static_cast<size_t>(R_) * C_);
  tx_avail_.assign(static_cast<size_t>(R_) * C_, 0);
  cal_.assign(static_cast<size_t>(kSlots) * kCals * W_, 0);
  pause_busy_.assign(W_, 0);
  arr_due_.assign(R_, kNever);
  rd_due_.assign(R_, kNever);
  cu_due_.assign(R_, kNever);
  eg_due_.assign(R_, kNever);
  lv_due_.assign(R_, kNever);
  elig_lb_.assign(R_, kNever);
  rx_due_.assign(R_, kNeverCycle);
  arr_slot_.assign(R_, -1);
  lv_slot_.assign(R_, -1);
  rx_seq_.assign(R_, 0);
  tx_edge_.assign(R_, kNeverCycle);
  pool_.reserve(4096);

  // Priority levels, highest first.
  for (int lv = 7; lv >= 0; --lv) {
    unsigned n = 0;
    for (unsigned c = 0; c < C_; ++c)
      if (p_.classes[c].priority == static_cast<unsigned>(lv)) {
        lvl_pos_[c] = static_cast<uint8_t>(n);
        lvl_cls_[nlv_][n++] = static_cast<uint8_t>(c);
        lvl_mask_[nlv_] |= 1u << c;
      }
    if (n != 0) lvl_n_[nlv_++] = static_cast<uint8_t>(n);
  }
  for (unsigned c = 0; c < C_; ++c) {
    quantum_[c] = static_cast<int64_t>(p_.classes[c].weight) * p_.mtu_bytes;
    if (p_.fc == FlowControl::cbfc && p_.classes[c].lossless) credit_mask_ |= 1u << c;
  }
  gbps_ = static_cast<double>(p_.port_gbps);
  if (8000 % p_.port_gbps == 0) ps_per_byte_ = 8000 / p_.port_gbps;
  flit_log2_ = log2u(p_.flit_bytes);

  if (p_.fc == FlowControl::cbfc) {
    cp_.num_classes = C_;
    cp_.cnt_width = 16;
    cp_.len_width = 16;
    cp_.credit_unit_log2 = log2u(p_.flit_bytes);
    cp_.timer_width = 16;
    // Receiver configuration as cbfc::RxModel samples it at reset (refresh off).
    const uint32_t cmask = cmask_ = cp_.cnt_mask();
    rx_thr_ = p_.cbfc_threshold & cmask;
    if (rx_thr_ == 0) rx_thr_ = 1;
    rx_tmr_max_ = p_.cbfc_timer & ((1u << cp_.timer_width) - 1u);
    max_feed_ = 65535u / p_.flit_bytes;  // len_width = 16 bits
    rxc_.resize(R_);
    rx_ranks_ = 4 * W_ * 64;
    rx_port_.assign(rx_ranks_, 0);
    rx_batch_.assign((rx_ranks_ + 63) / 64, 0);
    rx_quick_.assign(W_, 0);
    rx_idle_.assign(W_, 0);
    for (unsigned i = 0; i < R_; ++i) {
      RxCredit& r = rxc_[i];
      for (unsigned c = 0; c < C_; ++c) r.k[c].buf = r.k[c].limit = (p_.classes[c].lossless ? p_.cbfc_buf_cells : 0) & cmask;
#if SW_CBFC_LOCKSTEP
      Ing& g = ing_[i];
      g.rx = std::make_unique<cbfc::RxModel>(cp_);
      g.rin = cbfc::RxIn{};
      for (unsigned c = 0; c < C_; ++c) g.rin.cfg.buf_credits[c] = p_.classes[c].lossless ? p_.cbfc_buf_cells : 0;
      g.rin.cfg.threshold = p_.cbfc_threshold;
      g.rin.cfg.timer = p_.cbfc_timer;
      g.rin.rst_n = false;
      g.rx->tick(g.rin);
      g.rin.rst_n = true;
#endif
      Egr& e = egr_[i];
      for (unsigned c = 0; c < C_; ++c) {
        e.k[c].tx_init = e.k[c].tx_limit = (p_.classes[c].lossless ? p_.cbfc_downstream_cells : 0) & cmask;
        tx_avail_[i * C_ + c] = e.k[c].tx_limit;
      }
#if SW_CBFC_LOCKSTEP
      e.tx = std::make_unique<cbfc::TxModel>(cp_);
      e.tin = cbfc::TxIn{};
      for (unsigned c = 0; c < C_; ++c)
        e.tin.cfg.init_credits[c] = p_.classes[c].lossless ? p_.cbfc_downstream_cells : 0;
      e.tin.cfg.mtu = p_.mtu_bytes;
      e.tin.rst_n = false;
      e.tx->tick(e.tin);
      e.tin.rst_n = true;
#endif
    }
  }
}

Switch::~Switch() = default;

// ------------------------------------------------------------------ calendars

// First cycle whose edge is at or after t, for t after the edge of this cycle
// (earlier t: this cycle; callers never file before it).
inline uint64_t Switch::edge_of(Ps t) const {
  if (t <= now_) return cycle_;
  const uint64_t d = static_cast<uint64_t>(t - now_);
  const uint64_t p = static_cast<uint64_t>(P_);
  if (d < (uint64_t{1} << 31)) return cycle_ + (static_cast<uint32_t>(d) + static_cast<uint32_t>(p) - 1) / static_cast<uint32_t>(p);
  return cycle_ + (d + p - 1) / p;
}

// Files `port` in calendar `cal` at the first edge at or after `due`, and not
// before cycle min_cycle (cycle_ from the inputs and from the steps before the
// calendar's own step in this tick; cycle_ + 1 from its own step).
inline void Switch::file_at(Cal cal, unsigned port, uint64_t k) {
  if (W_ == 1)  // up to 64 ports (most switches): one word per slot, no multiply
    cal_[(k % kSlots) * kCals + cal] |= uint64_t{1} << port;
  else
    cal_[((k % kSlots) * kCals + cal) * W_ + port / 64] |= uint64_t{1} << (port % 64);
}

inline void Switch::file(Cal cal, unsigned port, Ps due, uint64_t min_cycle) {
  file_at(cal, port, std::max(min_cycle, edge_of(due)));
}

namespace {
// Empties a calendar slot of `nwords` 64-bit words, calling f(port) for each set bit in increasing order.
template <class F>
inline void drain_slot(uint64_t* words, unsigned nwords, F&& f) {
  for (unsigned w = 0; w < nwords; ++w) {
    uint64_t m = words[w];
    if (m == 0) continue;
    words[w] = 0;
    for (; m; m &= m - 1) f(w * 64 + static_cast<unsigned>(__builtin_ctzll(m)));
  }
}
}  // namespace

// Visits the slot of this cycle: step(p) runs port p's step if it is due and
// returns its due time after it (kNever: nothing left), where p is re-filed.
template <class F>
inline void Switch::visit(Cal cal, F&& step) {
  drain_slot(slot(cal), W_, [&](unsigned p) {
    const Ps d = step(p);
    if (d != kNever) file(cal, p, d, cycle_ + 1);
  });
}

// ------------------------------------------------------------------ config / inputs

void Switch::set_route(uint32_t xpu, unsigned port) {
  if (xpu >= route_.size())
    throw std::invalid_argument(fmt::format("switch: set_route xpu={} out of range (allowed 0..{})", xpu,
                                            route_.size() - 1));
  if (port >= R_)
    throw std::invalid_argument(fmt::format("switch: set_route port={} out of range (allowed 0..{})", port, R_ - 1));
  route_[xpu] = static_cast<int16_t>(port);
}


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
  if (p.t_in_last < 0) p.t_in_last = p.t_in + ser_ps(p.bytes);
  if (p.t_in < g.last_in_last || p.t_in_last < p.t_in)
    throw std::invalid_argument(fmt::format(
        "switch: packet {} on port {} overlaps the previous one (t_in={} ps < previous last byte {} ps)", p.id, port,
        p.t_in, g.last_in_last));
  g.last_in_last = p.t_in_last;
  p.src_port = static_cast<uint16_t>(port);
  p.egress_port = -1;
  p.t_ready = p.t_in + d_ready_;
  // The packet lives in its pool slot from here until it leaves (or is dropped).
  int32_t si;
  if (!free_slots_.empty()) {
    si = free_slots_.back();
    free_slots_.pop_back();
  } else {
    si = static_cast<int32_t>(pool_.size());
    pool_.emplace_back();
  }
  pool_[si].p = p;
  // t_in is nondecreasing per port, so the front is the first to be ready.
  if (g.arr.empty()) {
    arr_due_[port] = p.t_ready;
    arr_slot_[port] = si;
    file(kArr, port, p.t_ready, cycle_);
  }
  g.arr.push_back({p.t_ready, si});
}

void Switch::credit_in(unsigned port, unsigned cls, uint32_t limit, Ps t) {
  if (port >= R_ || cls >= C_) throw std::invalid_argument("switch: credit_in port/cls out of range");
  auto& cu = egr_[port].cu;
  if (cu.empty()) {
    cu_due_[port] = t + d_fc_in_;
    file(kTx, port, t + d_fc_in_, cycle_);
  }
  cu.push_back({t + d_fc_in_, static_cast<uint8_t>(cls), limit});
}

void Switch::pause_in(unsigned port, unsigned cls, uint32_t quanta, Ps t) {
  if (port >= R_ || cls >= C_) throw std::invalid_argument("switch: pause_in port/cls out of range");
  egr_[port].pause.push_back({t + d_fc_in_, static_cast<uint8_t>(cls), quanta});
  ++fc_in_pending_;
  set_bit(pause_busy_, port);
}

void Switch::egress_wire_busy(unsigned port, Ps dur) {
  if (port >= R_ || dur < 0) throw std::invalid_argument("switch: egress_wire_busy port/dur out of range");
  Egr& g = egr_[port];
  // Later wire only delays the next grant: eg_due_[port] stays a lower bound.
  g.wire_free = std::max(g.wire_free, now_) + dur;
}

// ------------------------------------------------------------------ tick

// The first edge at which egress e can grant (schedule() runs only at an edge
// with T >= xbar_free, wire_free < T + d_out + P and T >= elig_lb). Grants
// recompute it; admissions lower it. (Departures have their own calendar.)
inline void Switch::egress_due(unsigned e) {
  const Egr& g = egr_[e];
  eg_due_[e] = g.queued == 0 ? kNever : std::max({g.xbar_free, g.wire_free - d_out_ - P_ + 1, elig_lb_[e]});
}
// Prefetches the packets the due arrivals and departures of this edge will
// read, and the egress state, so that their cache misses overlap instead of
// following one another (a hint only: nothing depends on it).
void Switch::prefetch_due() {
  const uint64_t* arr = slot(kArr);
  const uint64_t* eg = slot(kEg);
  const uint64_t* lv = slot(kLv);
  for (unsigned w = 0; w < W_; ++w) {
    // (A port filed early, not due yet, is rare: prefetched all the same.)
    for (uint64_t m = arr[w]; m; m &= m - 1) {
      const int32_t si = arr_slot_[w * 64 + static_cast<unsigned>(__builtin_ctzll(m))];
      if (si < 0) continue;
      const char* q = reinterpret_cast<const char*>(&pool_[static_cast<size_t>(si)]);
      __builtin_prefetch(q);
      __builtin_prefetch(q + 64);
    }
    for (uint64_t m = eg[w] | lv[w]; m; m &= m - 1) __builtin_prefetch(&egr_[w * 64 + static_cast<unsigned>(__builtin_ctzll(m))]);
    for (uint64_t m = lv[w]; m; m &= m - 1) {
      const int32_t si = lv_slot_[w * 64 + static_cast<unsigned>(__builtin_ctzll(m))];
      if (si < 0) continue;
      const char* q = reinterpret_cast<const char*>(&pool_[static_cast<size_t>(si)]);
      __builtin_prefetch(q);
      __builtin_prefetch(q + 64);
    }
  }
}

void Switch::tick() {
  departures_.clear();
  fc_out_.clear();
  drops_.clear();
  sl_ = &cal_[(cycle_ % kSlots) * kCals * W_];  // this edge's slots, for slot()
  // An edge with every calendar slot empty and no PFC state to count changes
  // nothing but the clock (and the sample): every step below would find
  // nothing due (lightly loaded switches of a large fabric see many of them).
  if (fc_in_pending_ == 0 && xoff_list_.empty() && paused_list_.empty()) {
    const uint64_t* sl = sl_;  // all kCals calendars of this edge, W_ words each, contiguous
    static_assert(kCals == 6, "idle check");
    uint64_t any = sl[0] | sl[1] | sl[2] | sl[3] | sl[4] | sl[5];
    for (unsigned k = 6; k < kCals * W_; ++k) any |= sl[k];
    if (any == 0) {
#if SW_CBFC_LOCKSTEP
      if (fc_ == FlowControl::cbfc) tick_cbfc();  // the twins step on every edge
#endif
      if (cycle_ == next_sample_) {
        sample();
        next_sample_ += p_.sample_cycles;
      }
      ++cycle_;
      now_ += P_;
      return;
    }
  }
  const Ps T = now_;
  prefetch_due();

  // 1. Flow-control inputs from downstream (PFC; CBFC credits are fed in tick_cbfc).
  if (fc_in_pending_ != 0) {
    for_each_bit(pause_busy_, [&](unsigned e) {
      Egr& g = egr_[e];
      while (!g.pause.empty() && g.pause.front().t <= T) {
        const Egr::PauseIn ev = g.pause.front();
        g.pause.pop_front();
        --fc_in_pending_;
        g.paused_until[ev.c] = ev.quanta ? ev.t + p_.pause_time(ev.quanta) : ev.t;
        if (ev.quanta) ++st_[e * C_ + ev.c].pause_rcvd;
        if (fc_ == FlowControl::pfc && !(g.paused_listed >> ev.c & 1u)) {
          g.paused_listed |= 1u << ev.c;
          paused_list_.push_back(e * C_ + ev.c);
        }
      }
      if (g.pause.empty()) clear_bit(pause_busy_, e);
    });
  }

  // 2. Cells whose last flit has been read leave the buffer.
  visit(kRd, [&](unsigned e) {
    if (rd_due_[e] <= T) release(e);  // sets rd_due_[e]
    return rd_due_[e];
  });

  // 3. Ingress pipeline: admission of heads that are through PHY, MAC, parse, lookup.
  visit(kArr, [&](unsigned i) {
    if (arr_due_[i] > T) return arr_due_[i];  // head not ready yet
    auto& arr = ing_[i].arr;
    while (!arr.empty() && arr.front().t_ready <= T) {
      const int32_t si = arr.front().slot;
      arr.pop_front();
      if (!admit(i, si)) free_slots_.push_back(si);  // dropped
    }
    arr_slot_[i] = arr.empty() ? -1 : arr.front().slot;
    return arr_due_[i] = arr.empty() ? kNever : arr.front().t_ready;
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
      const bool resume = g.k[c].hd == 0 && (g.k[c].sh == 0 || g.k[c].sh + p_.pfc_resume_offset_cells <= xd);
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
  // Paused time: paused_list_ holds every (e, c) whose paused_until may lie
  // after this edge (added when a pause is applied, dropped once it is over).
  if (!paused_list_.empty()) {
    size_t k = 0;
    for (size_t n = 0; n < paused_list_.size(); ++n) {
      const uint32_t idx = paused_list_[n];
      Egr& g = egr_[idx / C_];
      const unsigned c = idx % C_;
      if (g.paused_until[c] > T) {
        st_[idx].paused_time += P_;
        paused_list_[k++] = idx;
      } else {
        g.paused_listed &= ~(1u << c);
      }
    }
    paused_list_.resize(k);
  }
  visit(kEg, [&](unsigned e) {
    if (eg_due_[e] > T) return eg_due_[e];  // no grant possible
    const Egr& g = egr_[e];
    if (g.queued != 0 && T >= g.xbar_free && g.wire_free < T + d_out_ + P_ && T >= elig_lb_[e]) schedule(e);
    egress_due(e);
    return eg_due_[e];
  });
  // Departures: heads at the pin. After every grant of the edge, in port order
  // as before: a departure changes nothing a grant reads (its counters, the
  // outputs and the free slots), and a head granted at this edge leaves later.
  visit(kLv, [&](unsigned e) {
    if (lv_due_[e] > T) return lv_due_[e];
    auto& lv = egr_[e].leaving;
    while (!lv.empty() && lv.front().t_head_out <= T) {
      const int32_t si = lv.front().slot;
      lv.pop_front();
      const Packet& pk = pool_[si].p;
      PortClassStats& s = st_[e * C_ + pk.cls];
      ++s.tx_pkts;
      s.tx_bytes += pk.bytes;
      st_[pk.src_port * C_ + pk.cls].delivered_bytes += pk.bytes;
      departures_.push_back(pk);
      free_slots_.push_back(si);
    }
    lv_slot_[e] = lv.empty() ? -1 : lv.front().slot;
    return lv_due_[e] = lv.empty() ? kNever : lv.front().t_head_out;
  });

  // 6. CBFC (receiver per ingress, sender per egress).
  if (fc_ == FlowControl::cbfc) tick_cbfc();

  // 7. Telemetry sampling.
  if (cycle_ == next_sample_) {  // every sample_cycles, from cycle 0
    sample();
    next_sample_ += p_.sample_cycles;
  }

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

__attribute__((always_inline)) inline bool Switch::admit(unsigned i, int32_t si_idx) {
  Packet& pk = pool_[si_idx].p;
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
  if (e < 0 || e >= static_cast<int>(R_)) return drop(pk, DropReason::no_route), false;
  pk.egress_port = static_cast<int16_t>(e);
  const uint32_t n = (pk.bytes + p_.flit_bytes - 1) >> flit_log2_;  // p_.cells(): flit_bytes is a power of 2
  const ClassCfg& cc = p_.classes[c];
  Ing& g = ing_[i];
  const uint32_t ec = static_cast<uint32_t>(e) * C_ + co;
  uint8_t pool = kShared;

  if (cc.lossless && fc_ == FlowControl::cbfc) {
    // Credit-backed reserved pool: overflow means the upstream sent without credits.
    if (g.k[c].res + n > p_.cbfc_buf_cells) return drop(pk, DropReason::lossless_overflow), false;
    pool = kReserved;
    g.k[c].res += n;
    rx_arrival(i, c, n);
  } else if (cc.lossless && fc_ == FlowControl::pfc) {
    const uint64_t xd = xoff_dyn();
    pool = kHeadroom;  // PFC accounting: released headroom first (see release())
    if (g.k[c].sh + n <= xd && shared_used_ + n <= shared_size_) {
      g.k[c].sh += n;
      shared_used_ += n;
    } else if (g.k[c].hd + n <= p_.pfc_headroom_cells) {
      g.k[c].hd += n;
      si.hdrm_cells = g.k[c].hd;
      si.hdrm_cells_max = std::max(si.hdrm_cells_max, si.hdrm_cells);
    } else {
      return drop(pk, DropReason::lossless_overflow), false;
    }
  } else {
    // Shared pool with a dynamic threshold on the egress queue of the class.
    const uint64_t free_cells = shared_size_ - shared_used_;
    const double limit = cc.alpha * static_cast<double>(free_cells);
    const uint64_t qcells = (st_[ec].q_bytes + p_.flit_bytes - 1) / p_.flit_bytes;
    if (shared_used_ + n > shared_size_ || static_cast<double>(qcells + n) > limit)
      return drop(pk, DropReason::buffer_full), false;
    g.k[c].sh += n;
    shared_used_ += n;
  }
  si.ing_cells += n;
  si.ing_cells_max = std::max(si.ing_cells_max, si.ing_cells);
  if (fc_ == FlowControl::pfc && cc.lossless) pfc_check(i, c);

  // Stage times (docs/switch.md "Latency record").
  pk.t_buffered = (p_.forwarding == Forwarding::store_and_forward ? pk.t_in_last + d_ready_ : pk.t_ready) + d_admit_;

  Slot& s = pool_[si_idx];
  pk.cls = static_cast<uint8_t>(co);
  s.t_elig = pk.t_buffered + d_sched_;
  s.cells = n;
  s.pool = pool;
  s.cin = c;
  s.next = -1;
  const size_t q = static_cast<size_t>(ec) * R_ + i;
  Voq& v = voq_[q];
  int32_t& tail = voq_tail_[q];
  if (tail < 0) {
    v.head = si_idx;
    v.head_elig = s.t_elig;
    v.head_bytes = static_cast<uint16_t>(pk.bytes);
    v.head_cells = static_cast<uint16_t>(n);
    nonempty_[static_cast<size_t>(ec) * W_ + i / 64] |= uint64_t{1} << (i % 64);
  } else {
    pool_[tail].next = si_idx;
  }
  tail = si_idx;
  Egr& eg = egr_[e];
  ++eg.queued;
  // A new head may be eligible before every queued one: lower the bounds.
  elig_lb_[e] = std::min(elig_lb_[e], s.t_elig);
  // Filed again only when the due time moves earlier: a port with a due time
  // (not kNever) already has its bit at or before the slot of that time.
  const Ps due = std::max({eg.xbar_free, eg.wire_free - d_out_ - P_ + 1, elig_lb_[e]});  // as egress_due()
  if (due < eg_due_[e]) {
    eg_due_[e] = due;
    file(kEg, static_cast<unsigned>(e), due, cycle_);
  }
  ++eg.k[co].qp;
  PortClassStats& se = st_[ec];
  se.q_bytes += pk.bytes;
  se.q_bytes_max = std::max(se.q_bytes_max, se.q_bytes);
  return true;
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
  if (g.k[c].hd > 0 || g.k[c].sh >= xoff_dyn()) {
    g.xoff[c] = true;
    ++st_[i * C_ + c].xoff_events;
    pfc_emit(i, c, p_.pfc_quanta);
    xoff_list_.push_back(i * C_ + c);
  }
}

bool Switch::upstream_xoff(unsigned port, unsigned cls) const { return ing_[port].xoff[cls]; }

// ------------------------------------------------------------------ egress scheduling

// Round robin over the ingress ports of VOQs (e, c, *) from rr_in: the first
// whose head is eligible, or -1. On -1 every head has been seen, and
// next_elig is lowered to the earliest of their eligibility times.
inline int Switch::pick_input(unsigned e, unsigned c, Ps& next_elig) const {
  const size_t ec = static_cast<size_t>(e) * C_ + c;
  const uint64_t* words = &nonempty_[ec * W_];
  const Voq* vq = &voq_[ec * R_];
  const unsigned start = egr_[e].k[c].rr_in;
  if (W_ == 1) {  // one word: bits from start up, then the bits below start
    const uint64_t all = words[0];
    for (uint64_t m = all & (~uint64_t{0} << start); m; m &= m - 1) {
      const unsigned i = static_cast<unsigned>(__builtin_ctzll(m));
      const Ps te = vq[i].head_elig;
      if (te <= now_) return static_cast<int>(i);
      next_elig = std::min(next_elig, te);
    }
    for (uint64_t m = all & ((uint64_t{1} << start) - 1); m; m &= m - 1) {
      const unsigned i = static_cast<unsigned>(__builtin_ctzll(m));
      const Ps te = vq[i].head_elig;
      if (te <= now_) return static_cast<int>(i);
      next_elig = std::min(next_elig, te);
    }
    return -1;
  }
  const unsigned w0 = start / 64, b0 = start % 64;
  for (unsigned k = 0; k <= W_; ++k) {
    const unsigned w = w0 + k < W_ ? w0 + k : w0 + k - W_;
    uint64_t m = words[w];
    if (k == 0) m &= ~uint64_t{0} << b0;
    if (k == W_) m &= (uint64_t{1} << b0) - 1;
    while (m) {
      const unsigned i = w * 64 + static_cast<unsigned>(__builtin_ctzll(m));
      const Ps te = vq[i].head_elig;
      if (te <= now_) return static_cast<int>(i);
      next_elig = std::min(next_elig, te);
      m &= m - 1;
    }
  }
  return -1;
}

__attribute__((always_inline)) inline void Switch::schedule(unsigned e) {
  const Ps T = now_;
  Egr& g = egr_[e];
  const size_t ec0 = static_cast<size_t>(e) * C_;
  std::array<int, kMaxClasses> cand;
  uint32_t cand_mask = 0;  // bit c: cand[c] is a candidate input
  bool any_head = false;
  Ps next_elig = kNever;
  for (unsigned c = 0; c < C_; ++c) {
    if (g.k[c].qp == 0) continue;
    const int i = pick_input(e, c, next_elig);
    if (i < 0) continue;
    any_head = true;
    if (credit_mask_ >> c & 1u) {  // CBFC lossless class: the head needs its cells in credits
      if (tx_avail_[ec0 + c] < voq_[(ec0 + c) * R_ + static_cast<unsigned>(i)].head_cells) {
        st_[ec0 + c].credit_stall += P_;
        continue;
      }
    }
    if (fc_ == FlowControl::pfc && g.paused_until[c] > T) {
      st_[ec0 + c].pause_stall += P_;
      continue;
    }
    cand[c] = i;
    cand_mask |= 1u << c;
  }
  if (cand_mask == 0) {
    // No head eligible: none can be before next_elig (every head was seen), and
    // until then this call has no effect. Held heads (credits, pause) keep
    // elig_lb_ <= now: their stall time is counted on every edge.
    if (!any_head) elig_lb_[e] = next_elig;
    return;
  }

  // Strict priority between levels; DWRR (bytes) between the classes of a level.
  int chosen = -1;
  for (unsigned lv = 0; lv < nlv_ && chosen < 0; ++lv) {
    if ((lvl_mask_[lv] & cand_mask) == 0) continue;
    const unsigned m = lvl_n_[lv];
    const uint8_t* L = lvl_cls_[lv].data();
    if (m == 1) {
      chosen = static_cast<int>(L[0]);
      break;
    }
    unsigned idx = g.drr_cur[lv] % m;
    const uint32_t lm = lvl_mask_[lv] & cand_mask;
    if ((lm & (lm - 1)) == 0) {
      // One candidate in the level: the loop below in closed form. It grants
      // the candidate at once if the pointer is on it and its deficit covers
      // the head; otherwise the pointer comes round to it once, adding one
      // quantum (deficits are >= 0 and a quantum >= one MTU >= the head).
      const unsigned c = static_cast<unsigned>(__builtin_ctz(lm));
      const uint32_t bytes = voq_[(ec0 + c) * R_ + static_cast<unsigned>(cand[c])].head_bytes;
      if (L[idx] != c || g.k[c].deficit < static_cast<int64_t>(bytes)) g.k[c].deficit += quantum_[c];
      g.k[c].deficit -= bytes;
      g.drr_cur[lv] = lvl_pos_[c];
      chosen = static_cast<int>(c);
      break;
    }
    for (unsigned step = 0; step <= 2 * m + 1; ++step) {
      const unsigned c = L[idx];
      if (cand_mask >> c & 1u) {
        const uint32_t bytes = voq_[(ec0 + c) * R_ + static_cast<unsigned>(cand[c])].head_bytes;
        if (g.k[c].deficit >= static_cast<int64_t>(bytes)) {
          g.k[c].deficit -= bytes;
          g.drr_cur[lv] = idx;
          chosen = static_cast<int>(c);
          break;
        }
      }
      idx = idx + 1 == m ? 0 : idx + 1;
      const unsigned nc = L[idx];
      if (cand_mask >> nc & 1u) g.k[nc].deficit += quantum_[nc];
    }
  }
  if (chosen < 0) return;  // unreachable: a quantum is at least one MTU

  // Dequeue the head of VOQ (e, c, i).
  const unsigned c = static_cast<unsigned>(chosen);
  const unsigned i = static_cast<unsigned>(cand[c]);
  const size_t ec = static_cast<size_t>(e) * C_ + c;
  auto& q = voq_[ec * R_ + i];
  const int32_t sidx = q.head;
  Slot& s = pool_[sidx];
  q.head = s.next;
  if (q.head < 0) {
    voq_tail_[ec * R_ + i] = -1;
    nonempty_[ec * W_ + i / 64] &= ~(uint64_t{1} << (i % 64));
  } else {
    const Slot& h = pool_[q.head];
    q.head_elig = h.t_elig;
    q.head_bytes = static_cast<uint16_t>(h.p.bytes);
    q.head_cells = static_cast<uint16_t>(h.cells);
  }
  g.k[c].rr_in = i + 1 == R_ ? 0 : i + 1;
  if (--g.queued == 0) elig_lb_[e] = kNever;
  if (--g.k[c].qp == 0) g.k[c].deficit = 0;
  Packet& pk = s.p;  // stays in its slot until it leaves
  const uint32_t cells = s.cells;
  const uint8_t pool = static_cast<uint8_t>(s.pool);
  const uint8_t cin = static_cast<uint8_t>(s.cin);

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
  const Ps ser = ser_ps(pk.bytes);
  Ps head = std::max(T + d_out_, g.wire_free);
  head = std::max(head, pk.t_in_last + latency_ - ser);  // never underrun the tail
  pk.t_scheduled = T;
  pk.t_head_out = head;
  pk.t_tail_out = head + ser;
  g.wire_free = head + ser_ps(static_cast<uint64_t>(pk.bytes) + p_.overhead_bytes);
  g.xbar_free = T + static_cast<Ps>(cells) * P_;
  if (g.reading.empty()) {
    rd_due_[e] = head - d_out_ + ser;  // after this edge: ser > 0
    file(kRd, e, rd_due_[e], cycle_ + 1);
  }
  g.reading.push_back({head - d_out_ + ser, pk.src_port, cin, pool, cells});  // frees the ingress class
  if (g.leaving.empty()) {
    lv_slot_[e] = sidx;
    lv_due_[e] = head;
    // head >= T + d_out, which may be this edge (d_out = 0 in a Dragonfly
    // router): calendar kLv is visited after the grants.
    file(kLv, e, head, cycle_);
  }
  g.leaving.push_back({head, sidx});

  if (credit_mask_ >> c & 1u) {
    // The CBFC sender's transmit of this edge (one credit per cell), applied
    // here: the check above (cells <= avail) is the model's, so it cannot
    // underflow, and nothing reads tx_avail_[e] before the end of the edge.
    // The sender's step in tick_cbfc() sees it through tx_edge_ when an
    // update is due at the same edge (which is checked against the consumed
    // count before the edge).
    Egr::Class& k = g.k[c];
    k.tx_consumed = (k.tx_consumed + cells) & cmask_;
    tx_avail_[ec] = (k.tx_limit - k.tx_consumed) & cmask_;
    tx_edge_[e] = cycle_;
    g.tx_c = c;
    g.tx_len = cells * p_.flit_bytes;
#if SW_CBFC_LOCKSTEP
    file(kTx, e, T, cycle_);  // the twin steps on every transmit
#endif
  }
}

inline void Switch::release(unsigned e) {
  Egr& g = egr_[e];
  while (!g.reading.empty() && g.reading.front().t_free <= now_) {
    const Egr::Reading r = g.reading.front();
    g.reading.pop_front();
    Ing& in = ing_[r.src];
    PortClassStats& s = st_[r.src * C_ + r.cls];
    s.ing_cells -= r.cells;
    switch (r.pool) {
      case kShared:
        in.k[r.cls].sh -= r.cells;
        shared_used_ -= r.cells;
        break;
      case kHeadroom: {
        // PFC lossless (either pool at admission): headroom drains first, as in
        // switch MMUs, so XON can come while the shared part still holds data.
        const uint32_t from_hd = std::min(in.k[r.cls].hd, r.cells);
        in.k[r.cls].hd -= from_hd;
        in.k[r.cls].sh -= r.cells - from_hd;
        shared_used_ -= r.cells - from_hd;
        s.hdrm_cells = in.k[r.cls].hd;
        break;
      }
      case kReserved:
        in.k[r.cls].res -= r.cells;
        rx_free(r.src, r.cls, r.cells);
        break;
    }
  }
  rd_due_[e] = g.reading.empty() ? kNever : g.reading.front().t_free;
}

// ------------------------------------------------------------------ CBFC

// One edge of the CBFC receiver of ingress i (cbfc::RxModel::tick, docs/cbfc.md
// "Receiver" steps 1-6) with the arrival (rx_c, rx_need credits) and free
// (fr_c, fr_need credits) presented at this edge (class -1: none). Emits the
// credit update, sets rx_due_[i] and returns whether anything is pending.
void Switch::rx_error(unsigned i, uint32_t ovf, uint32_t unf) {
  throw std::logic_error(
      fmt::format("switch: CBFC receiver error on port {} (overflow {:#x} underflow {:#x})", i, ovf, unf));
}

inline bool Switch::rx_step(unsigned i, int rx_c, uint32_t rx_need, int fr_c, uint32_t fr_need) {
  RxCredit& r = rxc_[i];
  const uint64_t t = cycle_;
  const uint32_t cmask = cmask_;
  // 1., 2. Arrival and free, both checked against the occupancy before the edge
  // (an overflowing arrival is dropped, an underflowing free ignored; the error
  // is thrown at the end of the edge, after its credit update, as the switch
  // does with the model's error outputs).
  uint32_t ovf = 0, unf = 0;
  if (rx_c >= 0 && uint64_t{r.k[rx_c].occ} + rx_need > uint64_t{r.k[rx_c].buf}) {
    ovf |= 1u << rx_c;
    rx_c = -1;
  }
  if (fr_c >= 0 && fr_need > r.k[fr_c].occ) {
    unf |= 1u << fr_c;
    fr_c = -1;
  }
  if (rx_c >= 0) r.k[rx_c].occ = (r.k[rx_c].occ + rx_need) & cmask;
  if (fr_c >= 0) r.k[fr_c].occ = (r.k[fr_c].occ - fr_need) & cmask;
  // 3. Requests: threshold, or timer (t - rst - 1 >= timer) with credits pending.
  uint32_t req = 0;
  for (uint32_t m = r.pend_mask; m; m &= m - 1) {
    const unsigned c = static_cast<unsigned>(__builtin_ctz(m));
    if (r.k[c].pend >= rx_thr_ || (rx_tmr_max_ != 0 && t >= r.k[c].rst + 1 + rx_tmr_max_)) req |= 1u << c;
  }
  // 4. Grant: first requester in the order rr, rr+1, ..., C-1, 0, ..., rr-1.
  if (req != 0) {
    const unsigned gc = first_from(req, r.rr);
    r.k[gc].limit = (r.k[gc].limit + r.k[gc].pend) & cmask;
    r.rr = gc + 1 == C_ ? 0 : gc + 1;
    FcMsg m;
    m.port = i;
    m.kind = FcMsg::Kind::credit;
    m.cls = static_cast<uint8_t>(gc);
    m.value = r.k[gc].limit;
    m.t = now_ + d_fc_out_;
    fc_out_.push_back(m);
    ++st_[i * C_ + gc].credit_updates;
    // 5., 6. The grant takes the pending credits and restarts the timer.
    r.k[gc].pend = 0;
    r.pend_mask &= ~(1u << gc);
    r.k[gc].rst = t;
  }
  // 5., 6. Freed credits join; a class that had none pending before the edge
  // restarts its timer. (Every other class keeps its credits and runs its timer:
  // a class with none pending restarts it on every edge, which matters only from
  // the edge its credits arrive.)
  if (fr_c >= 0) {
    const unsigned c = static_cast<unsigned>(fr_c);
    if (!(r.pend_mask >> c & 1u)) r.k[c].rst = t;  // none pending before the edge (or just granted)
    r.k[c].pend = (r.k[c].pend + fr_need) & cmask;
    if (r.k[c].pend != 0)
      r.pend_mask |= 1u << c;
    else
      r.pend_mask &= ~(1u << c);
  }
  const bool busy = rx_next(i);
  if (__builtin_expect((ovf | unf) != 0, 0)) rx_error(i, ovf, unf);
  return busy;
}

// After the receiver of ingress i has stepped at this edge: sets rx_due_[i] to
// the next cycle at which it can act without a new arrival or free (a
// presentation still queued, a class at its threshold, or a timer expiring)
// and returns whether anything is pending.
inline bool Switch::rx_next(unsigned i) {
  const RxCredit& r = rxc_[i];
  const Ing& g = ing_[i];
  const uint64_t t = cycle_;
  bool busy = (g.rx_mask | g.free_mask) != 0;
  uint64_t due = busy ? t + 1 : kNeverCycle;
  for (uint32_t m = r.pend_mask; m; m &= m - 1) {
    const unsigned c = static_cast<unsigned>(__builtin_ctz(m));
    busy = true;
    if (r.k[c].pend >= rx_thr_)
      due = t + 1;
    else if (rx_tmr_max_ != 0)
      due = std::min(due, std::max(t + 1, r.k[c].rst + 1 + rx_tmr_max_));
  }
  rx_due_[i] = due;
  return busy;
}

// Arrival (rx_arrival) or free (rx_free) of n credits of class c at the
// receiver of ingress i, presented one arrival and one free per edge. The
// first presentation of an edge to a receiver with none queued and not due at
// this edge for a threshold or a timer is stepped here at once: that is the
// step rx_quick() would take at the end of the edge (one arrival or one free,
// no request, no grant, no update), so nothing can see the difference. A
// second presentation at the same edge undoes it (rx_undo) and both take the
// usual way, queued and presented together by rx_quick() or rx_step().
inline void Switch::rx_arrival(unsigned i, unsigned c, uint32_t n) {
  Ing& g = ing_[i];
  RxCredit& r = rxc_[i];
  if (g.fast_cycle == cycle_) {
    rx_undo(i);
  } else if ((g.rx_mask | g.free_mask) == 0 && rx_due_[i] > cycle_ && n <= max_feed_ &&
             uint64_t{r.k[c].occ} + n <= uint64_t{r.k[c].buf}) {
    if (!g.rx_active) {
      // An idle receiver takes its rank now, as rx_wake() would give it, and
      // keeps it to the end of the edge, where it is idle again unless a
      // second presentation has come (rx_idle_).
      rx_activate(i);
      rx_idle_[i / 64] |= uint64_t{1} << (i % 64);
      rx_idle_any_ = true;
    }
    g.fast_cycle = cycle_;
    g.fast_free = false;
    g.fast_c = c;
    g.fast_n = n;
    g.fast_rr = g.rr_rx;
    g.rr_rx = c + 1 == C_ ? 0 : c + 1;
    r.k[c].occ = (r.k[c].occ + n) & cmask_;  // pend, the timers and rx_due_ stay
#if SW_CBFC_LOCKSTEP
    g.lk_note(cycle_, static_cast<int>(c), n, -1, 0, false);
#endif
    return;
  }
  g.k[c].pend_rx += n;
  g.rx_mask |= 1u << c;
  rx_wake(i);
}

inline void Switch::rx_free(unsigned i, unsigned c, uint32_t n) {
  Ing& g = ing_[i];
  RxCredit& r = rxc_[i];
  if (g.fast_cycle == cycle_) {
    rx_undo(i);
  } else if ((g.rx_mask | g.free_mask) == 0 && rx_due_[i] > cycle_ && n <= max_feed_ && n <= r.k[c].occ &&
             ((r.k[c].pend + n) & cmask_) != 0) {
    if (!g.rx_active) rx_activate(i);  // pend > 0 after this step: it stays active
    g.fast_cycle = cycle_;
    g.fast_free = true;
    g.fast_c = c;
    g.fast_n = n;
    g.fast_rr = g.rr_free;
    const uint64_t due0 = g.fast_due = rx_due_[i];
    g.rr_free = c + 1 == C_ ? 0 : c + 1;
    r.k[c].occ = (r.k[c].occ - n) & cmask_;
    // 5., 6. as in rx_step() without a grant.
    if (!(r.pend_mask >> c & 1u)) r.k[c].rst = cycle_;
    r.k[c].pend = (r.k[c].pend + n) & cmask_;
    r.pend_mask |= 1u << c;
    rx_next(i);
    if (rx_due_[i] < due0) file_at(kRx, i, rx_due_[i]);
#if SW_CBFC_LOCKSTEP
    g.lk_note(cycle_, -1, 0, static_cast<int>(c), n, false);
#endif
    return;
  }
  g.k[c].pend_free += n;
  g.free_mask |= 1u << c;
  rx_wake(i);
}

// Takes back the step of the first presentation of this edge (rx_arrival,
// rx_free) and queues it again, as it was before that step. (A free may have
// overwritten rst of a class that had nothing pending: it is read only while
// pend != 0. The rank a free gave an idle receiver stays, as rx_wake would
// have given it.)
void Switch::rx_undo(unsigned i) {
  Ing& g = ing_[i];
  RxCredit& r = rxc_[i];
  g.fast_cycle = UINT64_MAX;
  const unsigned c = g.fast_c;
  const uint32_t n = g.fast_n;
  if (!g.fast_free) {
    r.k[c].occ = (r.k[c].occ - n) & cmask_;
    g.rr_rx = g.fast_rr;
    g.k[c].pend_rx += n;
    g.rx_mask |= 1u << c;
  } else {
    r.k[c].occ = (r.k[c].occ + n) & cmask_;
    r.k[c].pend = (r.k[c].pend - n) & cmask_;
    if (r.k[c].pend == 0) r.pend_mask &= ~(1u << c);
    g.rr_free = g.fast_rr;
    rx_due_[i] = g.fast_due;
    g.k[c].pend_free += n;
    g.free_mask |= 1u << c;
  }
}

// Gives the idle receiver of ingress i the next rank (rx_seq_).
inline void Switch::rx_activate(unsigned i) {
  if (rx_seq_next_ == rx_ranks_) rx_compact();
  ing_[i].rx_active = true;
  rx_seq_[i] = rx_seq_next_;
  rx_port_[rx_seq_next_++] = static_cast<uint16_t>(i);
}

// New arrival or free credits queued for the receiver of ingress i: presented
// at this edge (tick_cbfc runs after admissions and frees).
inline void Switch::rx_wake(unsigned i) {
  if (!ing_[i].rx_active) rx_activate(i);
  if (rx_due_[i] > cycle_) {
    // Not due at this edge for a threshold or a timer (an idle receiver's
    // rx_due_ is kNeverCycle), so its step here grants nothing and emits no
    // update: a quick step in tick_cbfc(), in any order (rx_quick_).
    // rx_due_ keeps its value until then, so calendar kRx does not add it to
    // the batch.
    rx_quick_[i / 64] |= uint64_t{1} << (i % 64);
    rx_quick_any_ = true;
    return;
  }
  rx_due_[i] = cycle_;
  // Due at this edge: straight into the batch of tick_cbfc() (not through calendar kRx).
  const uint32_t r = rx_seq_[i];
  rx_batch_[r / 64] |= uint64_t{1} << (r % 64);
  rx_batch_any_ = true;
}

// Renumbers the active receivers 0, 1, ... in the order of their ranks (at most
// R_ of 4 x 64 x W_ ranks are in use, so this runs at most once every 3 R_ activations).
void Switch::rx_compact() {
  // The batch of this edge is rebuilt under the new ranks: it holds receivers
  // due at this edge (rx_due_ <= cycle_); a receiver due at this edge that is
  // not in it yet would join it from calendar kRx anyway.
  std::fill(rx_batch_.begin(), rx_batch_.end(), 0);
  uint32_t n = 0;
  for (uint32_t r = 0; r < rx_seq_next_; ++r) {
    const unsigned p = rx_port_[r];
    if (ing_[p].rx_active && rx_seq_[p] == r) {  // else stale: n <= r, so a renumbered port never matches again
      rx_seq_[p] = n;
      rx_port_[n] = static_cast<uint16_t>(p);
      if (rx_due_[p] <= cycle_) rx_batch_[n / 64] |= uint64_t{1} << (n % 64);
      ++n;
    }
  }
  rx_seq_next_ = n;
}

// The step of a receiver woken at this edge by an arrival or a free while not
// due for a threshold or a timer (rx_wake()): rx_step() with no request, so
// no grant and no update (its requests depend only on pend and the timers,
// which are as at its last step, and rx_due_ was the first cycle one can be
// raised). Returns false, changing nothing, when the presentation would raise
// the model's overflow or underflow: rx_step() then runs it in order.
inline bool Switch::rx_quick(unsigned i) {
  const uint32_t max_feed = max_feed_;
  Ing& g = ing_[i];
  RxCredit& r = rxc_[i];
  // The presentations of this edge, as tick_cbfc()'s feed would pick them.
  int rx_c = -1, fr_c = -1;
  uint32_t rx_m = 0, fr_m = 0;
  if (g.rx_mask != 0) {
    rx_c = static_cast<int>(first_from(g.rx_mask, g.rr_rx));
    rx_m = std::min(g.k[rx_c].pend_rx, max_feed);
    if (uint64_t{r.k[rx_c].occ} + rx_m > uint64_t{r.k[rx_c].buf}) return false;
  }
  if (g.free_mask != 0) {
    fr_c = static_cast<int>(first_from(g.free_mask, g.rr_free));
    fr_m = std::min(g.k[fr_c].pend_free, max_feed);
    if (fr_m > r.k[fr_c].occ) return false;
  }
  const uint32_t cmask = cmask_;
  if (rx_c >= 0) {
    const unsigned c = static_cast<unsigned>(rx_c);
    if ((g.k[c].pend_rx -= rx_m) == 0) g.rx_mask &= ~(1u << c);
    g.rr_rx = c + 1 == C_ ? 0 : c + 1;
    r.k[c].occ = (r.k[c].occ + rx_m) & cmask;
  }
  if (fr_c >= 0) {
    const unsigned c = static_cast<unsigned>(fr_c);
    if ((g.k[c].pend_free -= fr_m) == 0) g.free_mask &= ~(1u << c);
    g.rr_free = c + 1 == C_ ? 0 : c + 1;
    r.k[c].occ = (r.k[c].occ - fr_m) & cmask;
    // 5., 6. as in rx_step() without a grant.
    if (!(r.pend_mask >> c & 1u)) r.k[c].rst = cycle_;
    r.k[c].pend = (r.k[c].pend + fr_m) & cmask;
    if (r.k[c].pend != 0)
      r.pend_mask |= 1u << c;
    else
      r.pend_mask &= ~(1u << c);
  }
  // Filed only when the due cycle moved earlier: with a due cycle the receiver
  // already has its bit at or before that slot (a later one comes round early).
  const uint64_t due0 = rx_due_[i];
  if (!rx_next(i))
    g.rx_active = false;
  else if (rx_due_[i] < due0)
    file_at(kRx, i, rx_due_[i]);
#if SW_CBFC_LOCKSTEP
  g.lk_note(cycle_, rx_c, rx_m, fr_c, fr_m, false);
#endif
  return true;
}

void Switch::tick_cbfc() {
  const uint32_t max_feed = max_feed_;
  // Receivers: every ingress with credits pending or queued for presentation is
  // active (Ing::rx_active) and filed in calendar kRx at rx_due_. The ones due at
  // this edge are stepped in order of activation (rx_seq_); the others are as
  // the model would be after an edge without input or request.
  // Due receivers by rank: a bitset of ranks, walked in increasing order.
  uint64_t* const batch = rx_batch_.data();
  bool any = rx_batch_any_;  // receivers woken at this edge (rx_wake) are in the batch already
  rx_batch_any_ = false;
  drain_slot(slot(kRx), W_, [&](unsigned i) {
    if (rx_due_[i] <= cycle_) {
      const uint32_t r = rx_seq_[i];
      batch[r / 64] |= uint64_t{1} << (r % 64);
      any = true;
    } else if (rx_due_[i] != kNeverCycle) {
      file_at(kRx, i, rx_due_[i]);  // beyond the calendar: came round early
    }
  });
  if (rx_idle_any_) {  // receivers idle again after an arrival stepped at once (rx_arrival)
    rx_idle_any_ = false;
    drain_slot(rx_idle_.data(), W_, [&](unsigned i) {
      if (ing_[i].fast_cycle == cycle_) ing_[i].rx_active = false;  // else undone: queued, stepped below
    });
  }
  if (rx_quick_any_) {
    rx_quick_any_ = false;
    drain_slot(rx_quick_.data(), W_, [&](unsigned i) {
      if (!rx_quick(i)) {  // the model raises an error at this edge: the full step, at its rank
        rx_due_[i] = cycle_;
        const uint32_t r = rx_seq_[i];
        batch[r / 64] |= uint64_t{1} << (r % 64);
        any = true;
      }
    });
  }
  const unsigned nbw = any ? (rx_seq_next_ + 63) / 64 : 0;
  for (unsigned w = 0; w < nbw; ++w) {
    uint64_t bm = batch[w];
    batch[w] = 0;
    for (; bm; bm &= bm - 1) {
      const unsigned i = rx_port_[w * 64 + static_cast<unsigned>(__builtin_ctzll(bm))];
      Ing& g = ing_[i];
      int rx_c = -1, fr_c = -1;
      uint32_t rx_m = 0, fr_m = 0;
      // One arrival and one free per cycle, classes in round robin: the next class from rr with
      // credits pending (bit set in mask) presents up to max_feed of them.
      auto feed = [&](uint32_t& mask, unsigned& rr, uint32_t Ing::Class::*pend, int& cls, uint32_t& m) {
        if (mask == 0) return;
        const unsigned c = first_from(mask, rr);
        uint32_t& left = g.k[c].*pend;
        m = std::min(left, max_feed);
        if ((left -= m) == 0) mask &= ~(1u << c);
        cls = static_cast<int>(c);
        rr = c + 1 == C_ ? 0 : c + 1;
      };
      bool busy;
#if SW_CBFC_LOCKSTEP
      const size_t n_fc = fc_out_.size();
#endif
      if ((g.rx_mask | g.free_mask) == 0) {
        busy = rx_step(i, -1, 0, -1, 0);  // nothing to present (a threshold or a timer): a copy without them
      } else {
        feed(g.rx_mask, g.rr_rx, &Ing::Class::pend_rx, rx_c, rx_m);
        feed(g.free_mask, g.rr_free, &Ing::Class::pend_free, fr_c, fr_m);
        busy = rx_step(i, rx_c, rx_m, fr_c, fr_m);
      }
      if (!busy)
        g.rx_active = false;
      else if (rx_due_[i] != kNeverCycle)
        file_at(kRx, i, rx_due_[i]);
#if SW_CBFC_LOCKSTEP
      g.lk_note(cycle_, rx_c, rx_m, fr_c, fr_m, fc_out_.size() > n_fc);
#endif
    }
  }
#if SW_CBFC_LOCKSTEP
  // The twins, every one ticked on every edge (an idle model's edge changes none of its outputs).
  for (unsigned i = 0; i < R_; ++i) {
    Ing& g = ing_[i];
    const bool now = g.lk_cycle == cycle_;
    cbfc::RxIn& in = g.rin;
    in.rx_valid = now && g.lk_in[0] >= 0;
    in.rx_class = in.rx_valid ? static_cast<unsigned>(g.lk_in[0]) : 0;
    in.rx_len = in.rx_valid ? static_cast<uint32_t>(g.lk_in[1]) * p_.flit_bytes : 0;
    in.free_valid = now && g.lk_in[2] >= 0;
    in.free_class = in.free_valid ? static_cast<unsigned>(g.lk_in[2]) : 0;
    in.free_len = in.free_valid ? static_cast<uint32_t>(g.lk_in[3]) * p_.flit_bytes : 0;
    g.rx->tick(in);
    const cbfc::RxOut o = g.rx->outputs();
    const RxCredit& r = rxc_[i];
    const bool cu = now && g.lk_cu;
    bool same = o.cu_valid == cu && (!cu || o.cu_limit == r.k[o.cu_class].limit);
    for (unsigned c = 0; c < C_; ++c) same = same && o.pend[c] == r.k[c].pend && o.occ[c] == r.k[c].occ;
    if (!same)
      throw std::logic_error(
          fmt::format("switch: CBFC receiver of port {} differs from cbfc::RxModel at cycle {}", i, cycle_));
  }
#endif

  // Senders: those with a credit update due at this edge (one per edge); a
  // transmit of this edge has been applied by schedule() (tx_edge_).
  const uint32_t cmask = cmask_;
  visit(kTx, [&](unsigned e) {
    const bool cu = cu_due_[e] <= now_;
    const bool tx_v = tx_edge_[e] == cycle_;
    if (!cu && !tx_v) return cu_due_[e];  // update not due yet
    Egr& g = egr_[e];
    // 2. Update, checked against the consumed count before the edge.
    uint32_t ovf = 0;
    int cu_c = -1;
    uint32_t cu_class = 0, cu_limit = 0;
    if (cu) {
      cu_class = g.cu.front().c;
      cu_limit = g.cu.front().limit;
      g.cu.pop_front();
      cu_due_[e] = g.cu.empty() ? kNever : g.cu.front().t;
      const uint32_t limit = cu_limit & cmask;
      uint32_t consumed = g.k[cu_class].tx_consumed;
      if (tx_v && g.tx_c == cu_class) consumed = (consumed - (g.tx_len >> flit_log2_)) & cmask;
      if (((limit - consumed) & cmask) <= g.k[cu_class].tx_init) {
        cu_c = static_cast<int>(cu_class);
        g.k[cu_c].tx_limit = limit;
      } else {
        ovf |= 1u << cu_class;
      }
    }
    if (ovf) {  // the model's error output: thrown before avail is taken (the transmit's too), as before
      if (tx_v) {
        const unsigned c = g.tx_c;
        tx_avail_[e * C_ + c] = (g.k[c].tx_limit - ((g.k[c].tx_consumed - (g.tx_len >> flit_log2_)) & cmask)) & cmask;
      }
      throw std::logic_error(
          fmt::format("switch: CBFC sender error on port {} (underflow {:#x} overflow {:#x})", e, 0u, ovf));
    }
    if (cu_c >= 0) tx_avail_[e * C_ + cu_c] = (g.k[cu_c].tx_limit - g.k[cu_c].tx_consumed) & cmask;
#if SW_CBFC_LOCKSTEP
    cbfc::TxIn& in = g.tin;
    in.tx_valid = tx_v;
    in.tx_class = g.tx_c;
    in.tx_len = g.tx_len;
    in.cu_valid = cu;
    in.cu_class = cu_class;
    in.cu_limit = cu_limit;
    g.tx->tick(in);
    const cbfc::TxOut o = g.tx->outputs();
    for (unsigned c = 0; c < C_; ++c)
      if (o.avail[c] != tx_avail_[e * C_ + c])
        throw std::logic_error(fmt::format("switch: CBFC sender of port {} differs from cbfc::TxModel at cycle {}", e,
                                           cycle_));
#endif
    return cu_due_[e];
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

std::vector<Packet> Switch::held() const {
  std::vector<bool> free(pool_.size(), false);
  for (int32_t si : free_slots_) free[static_cast<size_t>(si)] = true;
  std::vector<Packet> r;
  for (size_t si = 0; si < pool_.size(); ++si)
    if (!free[si]) r.push_back(pool_[si].p);
  return r;
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
