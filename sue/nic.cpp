// sue::Nic, the frame-granularity SUE instance (see nic.hpp and docs/system.md "The flit NIC model").
// Comments name the cycle-exact rule each step follows (docs/sue.md "sue_tx: one rising edge",
// "sue_rx: state and one rising edge").
#include "sue/nic.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "sue/encap.hpp"

namespace sue {

namespace {

enum JobKind : unsigned { kJobNew = 0, kJobRtx = 1, kJobAck = 2 };

constexpr uint32_t kHdrBytes = kAfh2SlotBytes + 2;  // AFH Gen2 12-byte header: DA/SA slots + Ethertype = 14
constexpr uint32_t kO0 = kHdrBytes + kRhBytes;       // first op header in the stored frame (22)
constexpr uint32_t kOpBytes = kOpHeaderBytes + 18;   // op header + control bytes
constexpr uint32_t kRow = 32;                        // MAC beat / sue_rx buffer row
constexpr unsigned kWireOverhead = 20;               // preamble + SFD + IFG

// Frame bytes: 14 + RH 8 + P + R-CRC 4, padded to 60, + FCS 4.
inline uint32_t frame_len(uint32_t packed) {
  const uint32_t l = kHdrBytes + static_cast<uint32_t>(kRhBytes) + packed + static_cast<uint32_t>(kRcrcBytes);
  return std::max<uint32_t>(l, static_cast<uint32_t>(kEthMinNoFcs)) + static_cast<uint32_t>(kFcsBytes);
}

unsigned ctz64(uint64_t x) { return static_cast<unsigned>(__builtin_ctzll(x)); }

}  // namespace

uint32_t Nic::frame_bytes(uint32_t packed) { return frame_len(packed); }

std::string NicConfig::validate() const {
  if (tp.lite())
    return "sue::Nic (flit NIC model): SUE Lite is not modelled (allowed: profile SUE; use the cycle-exact blocks)";
  if (tp.num_xpus < 2 || tp.num_xpus > kNicMaxXpus)
    return "sue::Nic: NumXpus=" + std::to_string(tp.num_xpus) + " (allowed: 2.." + std::to_string(kNicMaxXpus) + ")";
  if (std::string e = tp.validate(); !e.empty()) return "sue::Nic: " + e;
  if (port_gbps == 0 || port_gbps > 409) return "sue::Nic: port_gbps must be 1..409 (one 32-byte beat per 625-ps edge)";
  if (clock_ps <= 0) return "sue::Nic: clock_ps must be > 0";
  if (gate_classes > 4) return "sue::Nic: gate_classes must be 0..4";
  for (uint32_t r : rx_credits)
    if (r < 1 || r > 255) return "sue::Nic: rx_credits must be 1..255 per VC";
  return "";
}

Nic::Nic(const NicConfig& c) : c_(c) {
  if (std::string e = c_.validate(); !e.empty()) throw std::invalid_argument(e);
  P_ = c_.tp.num_ports;
  K_ = c_.tp.num_xpus;
  NQ_ = c_.tp.nq();
  NC_ = c_.tp.nc();
  QD_ = c_.tp.qdepth;
  // The twin's shared command pool (docs/sue.md "Retransmit store"): all queues together hold at most
  // HM_ = Pool - NQ*QDepth sent commands; one queue's ring grows up to HM_ + QCap slots (a power of 2).
  HM_ = c_.tp.held_max();
  QC_ = c_.tp.q_cap();
  pool_free0_ = HM_;
  df_.assign(NQ_, 0);
  SD_ = 4;
  while (SD_ < HM_ + QC_) SD_ <<= 1;
  W_ = c_.tp.window;
  DB_ = c_.tp.db();
  NRD_ = rx_read_rows(DB_);  // sue_rx's NRd: 4 rows an edge, 6 at DataW 1024
  db_sh_ = static_cast<unsigned>(__builtin_ctz(DB_));
  if (DB_ != 1u << db_sh_) throw std::invalid_argument("sue::Nic: DataW/8 must be a power of two");
  q_.resize(NQ_);  // (blocks given as queues fill: grow())
  row_ps_ = ser_ps(kRow);
  gc_ = static_cast<uint64_t>(c_.port_gbps) * static_cast<uint64_t>(c_.clock_ps);
  KW_ = (K_ + 63) / 64;
  CP_ = 64;
  while (CP_ < K_ * 4) CP_ *= 2;
  cp_sh_ = static_cast<unsigned>(__builtin_ctz(CP_));
  CPW_ = CP_ / 64;
  NC_ = P_ * CP_;
  conn_.assign(NC_, {});
  ib_.assign(NC_, 0);
  m_rtx_.assign(static_cast<size_t>(kMaxPorts) * CPW_, 0);
  m_owe_.assign(static_cast<size_t>(kMaxPorts) * CPW_, 0);
  unsent_.assign(static_cast<size_t>(4) * KW_, 0);
  elig_.assign(static_cast<size_t>(4) * KW_, 0);
  blk_.assign(static_cast<size_t>(kMaxPorts) * 4 * KW_, 0);
  carry_.assign(static_cast<size_t>(kMaxPorts) * 4 * KW_, 0);
  pin_port_.assign(NQ_, 0);
  for (unsigned v = 0; v < 4; ++v) cred_[v] = c_.rx_credits[v];
  for (unsigned i = 0; i < K_; ++i)
    for (unsigned v = 0; v < 4; ++v) {
      const unsigned b = pin_base(c_.own_xpuid, i, v, P_);  // strict pin (no failover here)
      pin_port_[i * 4 + v] = static_cast<uint8_t>(b);
      for (unsigned p = 0; p < P_; ++p)
        if (!c_.strict || p == b) set_bit(carry_, pbit(p * 4 + v, i));
    }
  for (unsigned p = 0; p < P_; ++p)
    for (unsigned v = c_.gate_classes ? c_.gate_classes : 4; v < 4; ++v) gate_never_ |= 1u << (p * 4 + v);
  for (unsigned p = 0; p < P_; ++p)
    for (unsigned v = 0; v < c_.gate_classes; ++v) {
      tp_[p].limit[v] = static_cast<uint16_t>(c_.gate_init_cells);
      if (!gate_ok(p, v)) gate_closed_ |= 1u << (p * 4 + v);
    }
  // The loops over the ports on the hot path run over kMaxPorts (a constant bound, not NumPorts read
  // at every loop): a port beyond NumPorts is never free, never due and carries nothing.
  for (unsigned p = P_; p < kMaxPorts; ++p) tp_[p].free_at = kNoEdge;
}

void Nic::grow(Queue& Q) {
  const uint32_t cap = Q.s ? std::min(SD_, 2 * (Q.mask + 1)) : std::min(SD_, 4u);
  std::unique_ptr<Slot[]> b(new Slot[cap]);
  for (uint32_t k = Q.head; k != Q.tail; ++k) b[k & (cap - 1)] = Q.s[k & Q.mask];
  Q.s = std::move(b);
  Q.mask = cap - 1;
}

// ------------------------------------------------------------------ inputs

void Nic::receive(unsigned port, NicFrame&& f, Edge eof) {
  RxPort& r = rp_[port];
  InFrame& h = r.in.push();
  h.f = std::move(f);
  h.eof = std::max(eof, now_);
  if (r.in.size() == 1) {
    rx_upd(port);
    next_ = std::min(next_, rx_due_[port]);
  }
}

uint64_t Nic::gate_closed_edges(unsigned cls, Edge now) const {
  uint64_t s = 0;
  for (unsigned p = 0; p < P_; ++p) {
    s += tp_[p].closed[cls];
    if (tp_[p].closed_since[cls] != kNoEdge && now > tp_[p].closed_since[cls]) s += now - tp_[p].closed_since[cls];
  }
  return s;
}

unsigned Nic::rx_frames_held(unsigned p) const {
  return static_cast<unsigned>(rp_[p].in.size() + rp_[p].rec.size());
}

bool Nic::idle() const {
  for (const Queue& Q : q_)
    if (Q.tail != Q.head) return false;
  for (unsigned p = 0; p < P_; ++p)
    if (!rp_[p].in.empty() || !rp_[p].rec.empty()) return false;
  return !ub_ && n_fb_ == 0 && pend_del_.empty();
}

// ------------------------------------------------------------------ time

void Nic::advance(Edge t) {
  if (t == kNoEdge) --t;  // (next_ is kNoEdge when nothing is due: one test per event)
  while (next_ <= t) {
    const Edge x = next_;
    edge(x);
    now_ = x + 1;
    recompute_next();
  }
}

void Nic::recompute_next() {
  Edge n = tx_wake_;
  if (gate_closed_ && !gate_upd_.empty()) {  // the first update of a closed gate, applied once those before it are
    Edge m = 0;
    for (size_t k = 0; k < gate_upd_.size(); ++k) {
      const Timed& u = gate_upd_[k];
      m = std::max(m, u.at);
      if ((gate_closed_ >> u.a) & 1u) {
        n = std::min(n, m);
        break;
      }
    }
  }
  if (ub_ && unext_ == kNoEdge && !rx_ret_.empty()) n = std::min(n, rx_ret_.front().at + 1);  // a stalled command
  n = std::min(n, unext_);
  n = std::min(n, pend_del_.head());
  n = std::min(n, rx_min_);
  // RTO timers: stale ones (re-armed or nothing outstanding) are no event; looked at only when one
  // would come first (deadlines are far: rarely).
  while (rto_q_.head() < n) {
    if (rto_live(rto_q_.front().key)) {
      n = rto_q_.front().at;
      break;
    }
    rto_q_.pop_front();
  }
  next_ = c_.poll ? now_ : n == kNoEdge ? kNoEdge : std::max(n, now_);
}

void Nic::edge(Edge x) {
  ++events_;
  // CBFC credit updates in effect from this edge.
  while (gate_upd_.head() <= x) {
    const Timed u = gate_upd_.front();
    gate_upd_.pop_front();
    TxPort& T = tp_[u.a >> 2];
    const unsigned v = u.a & 3;
    const bool was_ok = gate_ok(u.a >> 2, v);
    T.limit[v] = static_cast<uint16_t>(u.b);
    if (!was_ok && gate_ok(u.a >> 2, v)) {  // the gate opens: what waited for it may start
      if (T.closed_since[v] != kNoEdge) T.closed[v] += x - T.closed_since[v];
      T.closed_since[v] = kNoEdge;
      wake(std::max(x, T.free_at));
    }
    if (v < c_.gate_classes) {  // (an update that lowers the limit may close it)
      if (gate_ok(u.a >> 2, v))
        gate_closed_ &= ~(1u << u.a);
      else
        gate_closed_ |= 1u << u.a;
    }
  }
  // Receive credits pulsed before this edge (cred_q at this edge includes them).
  while (rx_ret_.head() < x) {
    const unsigned v = rx_ret_.front().a;
    rx_ret_.pop_front();
    if (cred_[v] < c_.rx_credits[v]) ++cred_[v];
    if (ub_ && unext_ == kNoEdge) unext_ = x;  // a command stalled for this credit
  }
  // sue_rx: one frame per port may complete at this edge (its eof beat taken), ascending ports.
  if (rx_min_ <= x)
    for (unsigned p = 0; p < kMaxPorts; ++p)
      if (rx_due_[p] <= x) rx_take(p, x);  // (a frame that does not fit waits at the MAC)
  // (sue_tx step 1, feedback registered at earlier edges: none is left, see below.)
  // Step 3: RTO, the timers due in (deadline, key) order (as the min-heap they replace).
  if (rto_q_.head() <= x) {
    rto_due_.clear();
    while (rto_q_.head() <= x) {
      rto_due_.push_back({rto_q_.front().at, rto_q_.front().key});
      rto_q_.pop_front();
    }
    if (rto_due_.size() > 1) std::sort(rto_due_.begin(), rto_due_.end());
    for (const auto& e : rto_due_) {
      if (!rto_live(e.second)) continue;  // stale
      const unsigned c = static_cast<unsigned>(e.second >> kRtoGenBits);
      Conn& C = conn_[c];
      ++tcnt_[TxCnt::rto];
      go_back(c, C.ack_psn, x);
    }
  }
  // Step 4: at most one job starts.
  if (c_.poll) tx_wake_ = x;
  if (tx_wake_ <= x) schedule(x);
  // The feedback of this edge's verdicts is read by sue_tx at x + 1, before anything else there touches
  // what it writes: applied now, as of x + 1 (saves an event per received frame), ascending ports.
  for (unsigned k = 0; k < n_fb_; ++k) apply_fb(fb_[k], x + 1);
  n_fb_ = 0;
  // Unpacker.
  if (unext_ <= x) unpack(x);
  // Its pick at x + 1 sees the frame records after this edge, and the receive credits pulsed up to x:
  // made now, as of x + 1.
  if (!ub_ && unext_ == x + 1) {
    while (rx_ret_.head() <= x) {
      const unsigned v = rx_ret_.front().a;
      rx_ret_.pop_front();
      if (cred_[v] < c_.rx_credits[v]) ++cred_[v];
    }
    unpack(x + 1);
  }
  // Outputs due at this edge.
  while (pend_del_.head() <= x) {
    out_del_.push_back(pend_del_.front().d);
    pend_del_.pop_front();
  }
}

// ------------------------------------------------------------------ TX

void Nic::rto_arm(unsigned c, Edge x) {
  Conn& C = conn_[c];
  ++C.rto_gen;
  if (C.ack_psn == C.npsn) return;
  rto_q_.push_back({x + std::max<uint32_t>(1, c_.rto), static_cast<uint64_t>(c) << kRtoGenBits | (C.rto_gen & kRtoGenMask)});
}

void Nic::go_back(unsigned c, uint16_t from, Edge x) {
  Conn& C = conn_[c];
  C.rtx_act = true;
  C.rtx_psn = from;
  set_rtx(c);
  upd_blk(c);
  ++tcnt_[TxCnt::gbn];
  rto_arm(c, x);
  wake(std::max(x, tp_[conn_port(c)].free_at));
}

void Nic::desc_room(Conn& C) {
  const unsigned inflight = static_cast<uint16_t>(C.npsn - C.ack_psn);  // < W_: the window let the PDU form
  if (C.desc != ~0u && inflight < (1u << C.dsh)) return;
  const unsigned sh = C.desc == ~0u ? std::min<unsigned>(kDescBlockShift, static_cast<unsigned>(__builtin_ctz(W_))) : C.dsh + 1u;
  uint32_t blk;
  if (!dfree_[sh].empty()) {
    blk = dfree_[sh].back();
    dfree_[sh].pop_back();
  } else {
    blk = static_cast<uint32_t>(desc_.size());
    desc_.resize(desc_.size() + (size_t{1} << sh));
  }
  if (C.desc != ~0u) {  // move the PDUs in flight to their places in the larger block
    for (uint16_t psn = C.ack_psn; psn != C.npsn; ++psn)
      desc_[blk + (psn & ((1u << sh) - 1))] = dsc(C, psn);
    dfree_[C.dsh].push_back(C.desc);
  }
  C.desc = blk;
  C.dsh = static_cast<uint8_t>(sh);
}

void Nic::progress(unsigned c, uint16_t new_ack, Edge x) {
  Conn& C = conn_[c];
  const bool was_full = static_cast<uint16_t>(C.npsn - C.ack_psn) >= W_ || win_full(c), was_rtx = C.rtx_act;
  const unsigned p = conn_port(c), q = c & (CP_ - 1);
  // Descriptor walker and slot frees: the PDUs' slots are acked; the queue's head moves over acked
  // slots, one credit each (registered two edges later, as the walker and the slot free take an edge each).
  Queue& Q = q_[q];
  const bool was_store_full = slack() <= 0;
  const uint32_t head0 = Q.head;
  if (c_.strict) {
    // One connection per queue: its PDUs are acknowledged in order and hold the slots from the head on.
    uint32_t n = 0;
    for (uint16_t psn = C.ack_psn; psn != new_ack; ++psn) {
      const Desc& d = dsc(C, psn);
      if (d.first != Q.head + n)
        throw std::logic_error("sue::Nic: strict mode: an acknowledged PDU does not start at its queue's head");
      n += d.n;
      tp_[p].out_bytes -= d.p;
      ib_[c] -= d.p;
    }
    Q.head += n;
  } else {
    for (uint16_t psn = C.ack_psn; psn != new_ack; ++psn) {
      const Desc& d = dsc(C, psn);
      for (uint32_t k = 0; k < d.n; ++k) slot(Q, d.first + k).acked = 1;
      tp_[p].out_bytes -= d.p;
      ib_[c] -= d.p;
    }
    while (Q.head != Q.send) {
      uint8_t& a = slot(Q, Q.head).acked;
      if (!a) break;
      a = 0;
      ++Q.head;
    }
  }
  held_ -= Q.head - head0;
  C.ack_psn = new_ack;
  if (C.rtx_act) {
    if (static_cast<uint16_t>(C.ack_psn - C.rtx_psn) < 0x8000 && C.ack_psn != C.rtx_psn) C.rtx_psn = C.ack_psn;
    if (C.ack_psn == C.npsn) {
      C.rtx_act = false;
      clr_rtx(c);
    }
  }
  rto_arm(c, x);
  upd_blk(c);
  if (was_full || (was_rtx && !C.rtx_act)) wake(std::max(x, tp_[p].free_at));  // the window opened or the go-back-N ended
  if (was_store_full && slack() > 0 && unsent_total_) wake(x);  // the pool has room again
}

void Nic::apply_fb(const Fb& e, Edge x) {
  if (e.peer >= K_) return;
  const unsigned c = conn(e.port, e.peer, e.vc);
  Conn& C = conn_[c];
  if (e.owe != kOweNone) {
    const uint8_t before = C.owe;
    bool ow = true;
    if (e.owe == kOweAck || e.owe == kOweNack) {
      C.owe = static_cast<uint8_t>(e.owe);
      C.owe_psn = e.owe_psn;
    } else if (C.owe != kOweNack) {  // DUP: re-ACK unless a NACK is owed
      C.owe = kOweAck;
      C.owe_psn = e.owe_psn;
    } else {
      ow = false;
    }
    if (before == kOweNone) {
      C.owe_at = x;
      C.owe_now = false;
      C.owe_n = 1;
    } else if (ow && C.owe_n < 255) {
      ++C.owe_n;
    }
    // ack_count: due at x + 1 once that many events are owed, unless the age makes it due sooner
    if (c_.ack_count && C.owe_n >= c_.ack_count && !C.owe_now && x + 1 < owe_due(C)) {
      C.owe_at = x;
      C.owe_now = true;
    }
    set_owe(c);
    const Edge due = owe_due(C);
    const unsigned p = conn_port(c);
    owe_ports_ |= 1u << p;
    owe_min_[p] = std::min(owe_min_[p], due);
    owe_next_ = std::min(owe_next_, due);
    wake(std::max({x, due, tp_[p].free_at}));  // (x: the edge it is applied as of)
  }
  const uint16_t o = static_cast<uint16_t>(C.npsn - C.ack_psn);
  if (e.rop == 1) {
    const uint16_t d = static_cast<uint16_t>(e.rapsn + 1 - C.ack_psn);
    if (d >= 1 && d <= o) progress(c, static_cast<uint16_t>(e.rapsn + 1), x);
  } else if (e.rop == 2) {
    ++tcnt_[TxCnt::nack_rcvd];
    const uint16_t d = static_cast<uint16_t>(e.rapsn - C.ack_psn);
    if (d <= o) {
      if (d > 0) progress(c, e.rapsn, x);
      if (e.rapsn != C.npsn) go_back(c, e.rapsn, x);
    }
  }
}

// The earliest edge port p may have work it can start, its being busy aside (kNoEdge: none until
// something changes, which wakes the scheduler): an RTX of one of its connections, an unsent queue it
// carries (strict: pinned to it; unordered: any) whose connection has room in its window and no
// go-back-N running and whose gate is open (0: now), or the due edge of an owed ACK/NACK.
Nic::ReadyWords Nic::ready_words() const {
  ReadyWords k;
  k.u = unsent_total_ != 0;
  k.open = ~(gate_closed_ | gate_never_);
  k.rtx = n_rtx_ != 0;
  return k;
}

inline Edge Nic::port_ready(unsigned p, const ReadyWords& k) const {
  if (k.rtx && port_any(m_rtx_, p)) return 0;
  if (k.u)
    for (unsigned v = 0; v < 4; ++v) {
      if (!((k.open >> (p * 4 + v)) & 1u)) continue;
      const uint64_t* u = &unsent_[static_cast<size_t>(v) * KW_];
      const uint64_t* cr = &carry_[static_cast<size_t>(p * 4 + v) * KW_];
      const uint64_t* b = &blk_[static_cast<size_t>(p * 4 + v) * KW_];
      for (uint64_t sm = unsent_sum_[v]; sm; sm &= sm - 1) {
        const unsigned w = ctz64(sm);
        if (u[w] & cr[w] & ~b[w]) return 0;
      }
    }
  return owe_ready(p);
}

Edge Nic::port_ready(unsigned p) const { return port_ready(p, ready_words()); }

Edge Nic::owe_ready(unsigned p) const {
  if (!owe_min_ok_[p]) {  // a lower bound of the owed due edges of the port; exact once recomputed
    const uint64_t* pm = &m_owe_[static_cast<size_t>(p) * CPW_];
    Edge t = kNoEdge;
    for (uint64_t sm = owe_sum_[p]; sm; sm &= sm - 1) {
      const unsigned w = ctz64(sm);
      for (uint64_t o = pm[w]; o; o &= o - 1) t = std::min(t, owe_due(conn_[(p << cp_sh_) + w * 64 + ctz64(o)]));
    }
    owe_min_[p] = t;
    owe_min_ok_[p] = true;
  }
  return owe_min_[p];
}

void Nic::upd_blk(unsigned c) {
  const Conn& C = conn_[c];
  const unsigned p = conn_port(c), i = (c & (CP_ - 1)) >> 2, v = c & 3u;
  if (C.rtx_act || static_cast<uint16_t>(C.npsn - C.ack_psn) >= W_ || win_full(c))
    set_bit(blk_, pbit(p * 4 + v, i));
  else
    clr_bit(blk_, pbit(p * 4 + v, i));
}

// One job started at x: another port may start one from the next edge, once it is free and has work.
// The wake is the earliest max(ready, free) over the ports (at least x + 1); a port free no sooner
// than the wake found so far is not looked at, and x + 1 ends the search.
void Nic::after_start(Edge x) {
  Edge best = tx_wake_;  // (pick's wakes are all after x)
  const ReadyWords k = ready_words();
  for (unsigned p = 0; p < kMaxPorts; ++p) {
    const Edge fa = std::max(tp_[p].free_at, x + 1);
    if (fa >= best) continue;
    const Edge r = port_ready(p, k);
    if (r == kNoEdge) continue;
    best = std::min(best, std::max(r, fa));
    if (best == x + 1) break;
  }
  tx_wake_ = best;
}

bool Nic::schedule(Edge x) {
  tx_wake_ = kNoEdge;
  const bool work = unsent_total_ || n_rtx_ || owe_ports_;
  if (!work) return false;
  static_assert(kMaxPorts == 4, "the idle ports below");
  const uint32_t idle = static_cast<uint32_t>(tp_[0].free_at <= x) | static_cast<uint32_t>(tp_[1].free_at <= x) << 1 |
                        static_cast<uint32_t>(tp_[2].free_at <= x) << 2 | static_cast<uint32_t>(tp_[3].free_at <= x) << 3;
  Job j;
  if (idle && pick(x, idle, j)) {  // one call site of start(): inlined
    start(j.kind, j.p, j.i, j.v, x, j.n, j.packed, j.chunks);
    after_start(x);
    return true;
  }
  {
    // A port that frees may start what it cannot start now (after a start, after_start looked).
    for (unsigned p = 0; p < kMaxPorts; ++p)
      if (tp_[p].free_at > x && tp_[p].free_at < tx_wake_) {
        const Edge r = port_ready(p);
        if (r != kNoEdge) wake(std::max(r, tp_[p].free_at));
      }
    return false;
  }
}

// Chooses the job schedule() starts among the idle ports (at most one; false: none can start now).
bool Nic::pick(Edge x, uint32_t idle, Job& j) {
  // 3. RTX: the lowest connection on an idle port with credit.
  if (n_rtx_)
    for (uint32_t ip = idle; ip; ip &= ip - 1) {  // ascending ports hold ascending connections
      const unsigned p = ctz64(ip);
      const uint64_t* pm = &m_rtx_[static_cast<size_t>(p) * CPW_];
      for (unsigned w = 0; w < CPW_; ++w)
        for (uint64_t m = pm[w]; m; m &= m - 1) {
          const unsigned l = w * 64 + ctz64(m), v = l & 3u;
          if (gate_ok(p, v)) {
            j = {kJobRtx, p, l >> 2, v, 0, 0, 0};
            return true;
          }
        }
    }
  // 4. ACK-only: a NACK at once, an ACK after ack_delay (owe_next_: none can start before). Port by
  // port, the ports owing one (owe_ports_; ascending ports hold ascending connections: the same
  // lowest one starts): a busy port's owed ACKs cannot start before max(due, free) (its free edge
  // only grows and wakes the scheduler, see after_start), and an idle port whose earliest due
  // (owe_ready, a lower bound) is after x has none due; only the others' connections are looked at.
  if (x >= owe_next_) {
    Edge nd = kNoEdge, nf = kNoEdge;  // a bound of the earliest max(due, free); of the earliest due after x
    for (uint32_t op = owe_ports_; op; op &= op - 1) {
      const unsigned p = ctz64(op);
      const uint64_t* pm = &m_owe_[static_cast<size_t>(p) * CPW_];
      const Edge lo = owe_ready(p);
      if (!((idle >> p) & 1u)) {
        nd = std::min(nd, std::max(lo, tp_[p].free_at));
        continue;
      }
      if (lo > x) {
        nd = std::min(nd, lo);
        nf = std::min(nf, lo);
        continue;
      }
      for (uint64_t sm = owe_sum_[p]; sm; sm &= sm - 1)
        for (uint64_t m = pm[ctz64(sm)]; m; m &= m - 1) {
          const unsigned l = ctz64(sm) * 64 + ctz64(m), v = l & 3u;
          const Edge due = owe_due(conn_[(p << cp_sh_) + l]);
          nd = std::min(nd, due);
          if (due > x) {
            nf = std::min(nf, due);
            continue;
          }
          if (gate_ok(p, v)) {
            j = {kJobAck, p, l >> 2, v, 0, 0, 0};
            return true;
          }
        }
    }
    owe_next_ = nd;
    wake(nf);  // due ones that cannot start wait for a credit (the gate opening)
  }
  if (owe_next_ > x) wake(owe_next_);
  // 6. NEW: WRR over VCs, round robin over peers; packing of the commands present now. Only queues
  // whose port can start now are looked at (strict: the pin port idle with credit and the connection
  // with room; unordered: any). elig_ holds, per VC, the peers to try.
  if (!unsent_total_) return false;
  uint32_t lanes = 0;  // VCs with a peer to try
  const uint32_t open = ~(gate_closed_ | gate_never_);
  for (unsigned v = 0; v < 4; ++v) {
    const uint64_t* u = &unsent_[static_cast<size_t>(v) * KW_];
    uint64_t* e = &elig_[static_cast<size_t>(v) * KW_];
    const uint64_t us = unsent_sum_[v];
    if (!us) continue;  // (e is not read for a VC outside lanes)
    uint64_t any = 0;
    for (unsigned w = 0; w < KW_; ++w) e[w] = 0;
    if (c_.strict) {
      for (uint32_t m = idle; m; m &= m - 1) {
        const unsigned p = ctz64(m);
        if (!((open >> (p * 4 + v)) & 1u)) continue;
        const uint64_t* cr = &carry_[static_cast<size_t>(p * 4 + v) * KW_];
        const uint64_t* b = &blk_[static_cast<size_t>(p * 4 + v) * KW_];
        for (uint64_t sm = us; sm; sm &= sm - 1) {
          const unsigned w = ctz64(sm);
          e[w] |= u[w] & cr[w] & ~b[w];
        }
      }
      for (uint64_t sm = us; sm; sm &= sm - 1) any |= e[ctz64(sm)];
    } else {
      for (uint64_t sm = us; sm; sm &= sm - 1) any |= e[ctz64(sm)] = u[ctz64(sm)];
    }
    if (any) lanes |= 1u << v;
  }
  if (!lanes) return false;
  // The first peer of set e in the order r, r + 1, ... (mod NumXpus), -1 when e is empty.
  auto first_from = [this](const uint64_t* e, unsigned r) -> int {
    const unsigned w0 = r >> 6;
    if (const uint64_t m = e[w0] & (~0ull << (r & 63))) return static_cast<int>(w0 * 64 + ctz64(m));
    for (unsigned w = w0 + 1; w < KW_; ++w)
      if (e[w]) return static_cast<int>(w * 64 + ctz64(e[w]));
    for (unsigned w = 0; w <= w0; ++w)
      if (e[w]) return static_cast<int>(w * 64 + ctz64(e[w]));
    return -1;
  };
  // The VCs in WRR order (wrr_vc, wrr_vc + 1, ...) with a peer to try.
  const unsigned w = wrr_vc_;  // (start_new changes it only when it starts a job)
  for (uint32_t rot = ((lanes >> w) | (lanes << (4 - w))) & 15u; rot; rot &= rot - 1) {
    const unsigned v = (w + ctz64(rot)) & 3u;
    uint64_t* e = &elig_[static_cast<size_t>(v) * KW_];
    if (c_.strict) {
      for (int i; (i = first_from(e, rr_peer_[v])) >= 0;) {
        e[i >> 6] &= ~(1ull << (i & 63));
        const unsigned q = static_cast<unsigned>(i) * 4 + v;
        if (start_new(x, q, pin_port_[q], j)) return true;
      }
      continue;
    }
    uint32_t ok_ports = 0;
    for (unsigned p = 0; p < P_; ++p)
      if (((idle >> p) & 1u) && gate_ok(p, v)) ok_ports |= 1u << p;
    if (!ok_ports) continue;
    for (int ii; (ii = first_from(e, rr_peer_[v])) >= 0;) {
      e[ii >> 6] &= ~(1ull << (ii & 63));
      const unsigned i = static_cast<unsigned>(ii), q = i * 4 + v;
      auto cand = [&](unsigned p) {
        if (!((ok_ports >> p) & 1u)) return false;
        const unsigned c = conn(p, i, v);
        const Conn& C = conn_[c];
        return !C.rtx_act && static_cast<uint16_t>(C.npsn - C.ack_psn) < W_ && !win_full(c);
      };
      int t = -1;
      for (unsigned p = 0; p < P_; ++p)
        if (cand(p) && (t < 0 || tp_[p].out_bytes < tp_[static_cast<unsigned>(t)].out_bytes)) t = static_cast<int>(p);
      if (t < 0) continue;
      if (start_new(x, q, static_cast<unsigned>(t), j)) return true;
    }
  }
  return false;
}

// A NEW job of queue q on port t (which can take it) if its head is visible at x: packing of the
// commands present now, the round robin and WRR pointers move.
bool Nic::start_new(Edge x, unsigned q, unsigned t, Job& j) {
  const unsigned i = q >> 2, v = q & 3u;
  const Queue& Q = q_[q];
  const Slot* sl = Q.s.get();
  const uint32_t mask = Q.mask;
  // Pool slack (progress() wakes it): the n commands formed take back max(0, n + df - u) deferred
  // credits, so n <= slack + u - df.
  const int64_t slk = slack();
  if (slk <= 0) return false;
  const uint32_t room = static_cast<uint32_t>(std::min<int64_t>(Q.tail - Q.send, slk + int64_t(Q.tail - Q.send) - df_[q]));
  if (sl[Q.send & mask].vis > x) {
    wake(sl[Q.send & mask].vis);
    return false;
  }
  // Packing: the largest n of the commands present now with sum(20 + dlen) <= MaxPack (and their
  // builder chunks: one per XPU beat, max(1, ceil(dlen / (DataW/8))), the op header and control
  // riding with the first data beat).
  unsigned n = 0, chunks = 0;
  uint32_t packed = 0;
  for (uint32_t s = Q.send; s != Q.tail && n < room; ++s) {
    if (sl[s & mask].vis > x) break;
    const uint32_t dlen = sl[s & mask].cmd.dlen;
    const uint32_t b = kOpBytes + dlen;
    if (packed + b > c_.tp.max_pack) break;
    packed += b;
    chunks += dlen ? (dlen + DB_ - 1) >> db_sh_ : 1;
    ++n;
  }
  rr_peer_[v] = i + 1 == K_ ? 0 : i + 1;
  const unsigned cnt = v == wrr_vc_ ? wrr_cnt_ + 1 : 1;
  if (cnt >= std::max<uint32_t>(1, c_.vc_weight[v])) {
    wrr_vc_ = (v + 1) & 3u;
    wrr_cnt_ = 0;
  } else {
    wrr_vc_ = v;
    wrr_cnt_ = cnt;
  }
  j = {kJobNew, t, i, v, n, packed, chunks};
  return true;
}

void Nic::start(unsigned kind, unsigned p, unsigned i, unsigned v, Edge x, unsigned n_cmd, uint32_t packed,
                unsigned cmd_chunks) {
  const unsigned c = conn(p, i, v), q = i * 4 + v;
  Conn& C = conn_[c];
  TxPort& T = tp_[p];
  out_frames_.emplace_back();
  NicFrame& f = out_frames_.back();
  if (kind != kJobAck && !spare_.empty()) {  // a command vector of a frame this NIC received and unpacked: no allocation
    f.cmds = std::move(spare_.back());
    spare_.pop_back();
  }
  f.src = c_.own_xpuid;
  f.dst = i;
  f.port = static_cast<uint8_t>(p);
  f.vc = static_cast<uint8_t>(v);
  f.cmds.clear();
  uint32_t first = 0, n = 0;
  if (kind == kJobNew) {
    Queue& Q = q_[q];
    const bool was_empty = C.ack_psn == C.npsn;
    first = Q.send;
    n = n_cmd;
    desc_room(C);
    dsc(C, C.npsn) = {first, static_cast<uint16_t>(n), static_cast<uint16_t>(cmd_chunks), packed};
    f.psn = C.npsn++;
    Q.send += n;
    // The deferred credits the formed commands must take back (df stays <= the unsent), and as many more
    // of the queue's as the slack allows, at most n: one per edge from x + 1 in the twin; handed out now,
    // stamped with the first.
    const int64_t slk = slack();
    const uint32_t u = Q.tail - (Q.send - n), d = df_[q];
    const uint32_t rmin = n + d > u ? n + d - u : 0;
    const uint32_t r = std::max(rmin, static_cast<uint32_t>(std::min<int64_t>(std::min(n, d), slk)));
    df_[q] -= r;
    sdf_ -= r;
    held_ += n;
    for (uint32_t k = 0; k < r; ++k) out_cred_.push_back({static_cast<uint16_t>(q), x + 1});
    unsent_total_ -= n;
    if (Q.send == Q.tail) clr_unsent(v, i);
    T.out_bytes += packed;
    ib_[c] += packed;
    ++tcnt_[TxCnt::pdus_new];
    tcnt_[TxCnt::cmds_sent] += n;
    tcnt_[TxCnt::payload_bytes] += packed - 2 * n;
    if (was_empty) rto_arm(c, x);
  } else if (kind == kJobRtx) {
    const Desc& d = dsc(C, C.rtx_psn);
    first = d.first;
    n = d.n;
    cmd_chunks = d.chunks;
    packed = d.p;
    f.psn = C.rtx_psn++;
    f.rtx = true;
    if (C.rtx_psn == C.npsn) {
      C.rtx_act = false;
      clr_rtx(c);
    }
    ++tcnt_[TxCnt::pdus_rtx];
  } else {
    f.ack_only = true;
    f.psn = C.npsn;
    packed = static_cast<uint32_t>(kOpHeaderBytes);
    ++tcnt_[TxCnt::ack_only];
  }
  unsigned chunks = cmd_chunks + 1;  // the commands' (the header rides with the first) + the trailer
  if (n) {
    if (f.cmds.capacity() < n) f.cmds.reserve(std::max<size_t>(n, 8));  // recycled vectors soon fit any frame
    // The PDU's slots first .. first + n - 1.
    Queue& Q = q_[q];
    for (uint32_t k = 0; k < n; ++k) f.cmds.push_back(slot(Q, first + k).cmd);  // (f.cmds is empty)
  } else {
    chunks += 1;  // 80 00
  }
  // Piggyback what the connection owes.
  f.op = 0;
  f.apsn = 0;
  if (C.owe != kOweNone) {
    f.op = C.owe == kOweNack ? 2 : 1;
    f.apsn = C.owe_psn;
    ++tcnt_[C.owe == kOweNack ? TxCnt::nack_sent : TxCnt::ack_sent];
    if (owe_due(C) <= owe_min_[p]) owe_min_ok_[p] = false;
    C.owe = kOweNone;
    clr_owe(c);
    if (!owe_sum_[p]) owe_ports_ &= ~(1u << p);
  }
  f.packed = packed;
  f.bytes = frame_len(packed);
  const uint32_t lnf = kHdrBytes + static_cast<uint32_t>(kRhBytes) + packed + static_cast<uint32_t>(kRcrcBytes);
  // Timing: the first beat after the builder's pipeline and once the MAC's line-rate pacing allows;
  // the last beat no earlier than one beat per edge, the MAC's rate, and one chunk per edge. The MAC
  // takes the next first beat at sof * clock + ser(bytes + 20) - ser(32) ps, whose ceiling in edges is
  // sof + the ceiling of the rest (> 0): kept in edges, no multiplication. A ceiling of a ceiling is
  // one division (ceil(ceil(a / b) / c) = ceil(a / bc)).
  const uint32_t beats = (lnf + kRow - 1) / kRow;
  // (ceil_edge(ser_ps(lnf - 32)))
  const uint64_t rest = lnf > kRow ? (static_cast<uint64_t>(lnf - kRow) * 8000 + gc_ - 1) / gc_ : 0;
  f.sof = std::max<Edge>(x + c_.tx_pipeline + (kind == kJobAck ? 1 : 0), T.mac_at);
  f.eof = std::max<Edge>({f.sof + beats - 1, f.sof + rest, x + chunks + 2});  // last chunk at x + chunks
  T.free_at = f.eof - (beats > 2 ? 2 : beats - 1);  // the next job: at the load of the last or second-to-last beat, not the sof
  T.mac_at = f.sof + ceil_edge(ser_ps(f.bytes + kWireOverhead) - row_ps_);
  if (v < c_.gate_classes) {
    T.used[v] = static_cast<uint16_t>(T.used[v] + (f.bytes + 127) / 128);
    if (!gate_ok(p, v)) {
      gate_closed_ |= 1u << (p * 4 + v);
      if (T.closed_since[v] == kNoEdge) T.closed_since[v] = x + 1;
    }
  }
  if (kind != kJobAck) upd_blk(c);
  ++tcnt_[TxCnt::frames_out];
  tcnt_[TxCnt::bytes_out] += lnf;
}

// ------------------------------------------------------------------ RX

void Nic::rx_take(unsigned p, Edge x) {
  RxPort& r = rp_[p];
  InFrame& h = r.in.front();
  const uint32_t stored = h.f.bytes - static_cast<uint32_t>(kFcsBytes);  // FCS stripped, pad kept
  const uint32_t rows = (stored + kRow - 1) / kRow;
  if (r.rows + rows > c_.tp.rx_buf_beats || r.rec.size() >= c_.tp.rx_frames) return;  // ready low: held at the MAC
  NicFrame& f = h.f;
  if (!f.cmds.empty()) __builtin_prefetch(f.cmds.data());  // the unpacker reads them at the next edge (written by the sender)
  out_taken_.push_back({static_cast<uint8_t>(p), f.vc, f.bytes, x});
  ++rcnt_[RxCnt::frames_in];
  rcnt_[RxCnt::bytes_in] += stored;
  // The source XPU id is the peer index: an id beyond NumXpus or the own one is an unknown peer.
  const int peer = f.src < K_ && f.src != c_.own_xpuid ? static_cast<int>(f.src) : -1;
  if (f.bad) {
    ++rcnt_[RxCnt::drop_mac];
  } else if (peer < 0 || f.dst != c_.own_xpuid) {
    ++rcnt_[RxCnt::drop_hdr];
  } else {
    const unsigned c = conn(p, static_cast<unsigned>(peer), f.vc & 3u);
    Conn& C = conn_[c];
    Fb& e = fb_[n_fb_++];  // (one frame per port per edge)
    e = {static_cast<uint16_t>(peer), static_cast<uint8_t>(p), static_cast<uint8_t>(f.vc & 3u), kOweNone, f.op, 0, f.apsn};
    if (f.ack_only) {
      ++rcnt_[RxCnt::ack_frames];
    } else {
      const uint16_t d = static_cast<uint16_t>(f.psn - C.exp);
      if (d == 0) {  // accept
        ++C.exp;
        C.nacked = false;
        e.owe = kOweAck;
        e.owe_psn = f.psn;
        ++rcnt_[RxCnt::pdus_ok];
        r.rows += rows;
        RxPort::Rec& a = r.rec.push();
        a.cmds = std::move(f.cmds);
        a.src = f.src;
        a.rows = rows;
        a.at = x;
        rec_ports_ |= 1u << p;
        if (!ub_) unext_ = std::min(unext_, x + 1);  // picked at the next edge
      } else if (d < 0x8000) {  // ahead: one NACK per gap
        ++rcnt_[RxCnt::drop_psn];
        if (!C.nacked) {
          C.nacked = true;
          e.owe = kOweNack;
          e.owe_psn = C.exp;
          ++rcnt_[RxCnt::nack_owed];
        }
      } else {  // behind: a duplicate, re-ACK
        ++rcnt_[RxCnt::drop_dup];
        e.owe = kOweDup;
        e.owe_psn = static_cast<uint16_t>(C.exp - 1);
      }
    }
  }
  if (h.f.cmds.capacity() && spare_.size() < 64) spare_.push_back(std::move(h.f.cmds));  // dropped (accepted ones moved out)
  r.in.pop_front();
  rx_upd(p);
}

// The edge from which sue_rx takes port p's frame at the MAC: its eof, once the receive buffer has
// room for it (rows and a frame record); kNoEdge while none waits or it does not fit.
void Nic::rx_upd(unsigned p) {
  const RxPort& r = rp_[p];
  Edge t = kNoEdge;
  if (!r.in.empty()) {
    const uint32_t rows = (r.in.front().f.bytes - static_cast<uint32_t>(kFcsBytes) + kRow - 1) / kRow;
    if (r.rows + rows <= c_.tp.rx_buf_beats && r.rec.size() < c_.tp.rx_frames) t = r.in.front().eof;
  }
  rx_due_[p] = t;
  rx_min_ = std::min(std::min(rx_due_[0], rx_due_[1]), std::min(rx_due_[2], rx_due_[3]));
}

// The unpacker's pick (docs/sue.md "Unpacker"): the next frame is picked at the first edge t <= x at
// which the fetcher is free (the edge it reads the previous frame's last rows), a frame record is
// there (from the edge after its take) and at most three frames stay held (the one picked four
// before has ended), ports round robin among the records there at t. Returns t (picked if t <= x),
// kNoEdge without a record.
Edge Nic::upick(Edge x) {
  if (!rec_ports_) return kNoEdge;
  Edge a = kNoEdge;
  for (uint32_t m = rec_ports_; m; m &= m - 1) a = std::min(a, rp_[ctz64(m)].rec.front().at + 1);
  const Edge t = std::max({ufree_, uend_[(unum_ + 1) & 3u], a});
  if (t > x) return t;
  uint32_t m = 0;  // ports with a record at t
  for (uint32_t w = rec_ports_; w; w &= w - 1)
    if (rp_[ctz64(w)].rec.front().at < t) m |= 1u << ctz64(w);
  const uint32_t hi = m & (~0u << rr_port_);
  const unsigned p = ctz64(hi ? hi : m);
  ub_ = true;
  uport_ = p;
  rr_port_ = p + 1 == P_ ? 0 : p + 1;
  ucmd_ = 0;
  upick_ = t;
  ++unum_;
  // The frame the next pick probably takes (the next port in the round robin holding one): its
  // commands, written long ago by the sender, are fetched while this frame is unpacked.
  uint32_t nx = rec_ports_;
  if (rp_[p].rec.size() < 2) nx &= ~(1u << p);
  if (nx) {
    const uint32_t h = nx & (~0u << rr_port_);
    const unsigned n = ctz64(h ? h : nx);
    __builtin_prefetch(rp_[n].rec[n == p ? 1 : 0].cmds.data());
  }
  // rows [0, ceil(E / 32)) read NRd an edge from t + 1
  uint32_t e = kO0;
  for (const NicCmd& c : rp_[p].rec.front().cmds) e += kOpBytes + c.dlen;
  ufree_ = t + 1 + ((e + kRow - 1) / kRow - 1) / NRD_;
  return t;
}

// The unpacker: one frame at a time on the output, ports round robin per frame; row r of the frame
// is read at pick + 1 + r / NRd and usable by the output two edges later; one output beat per edge; a
// command's first beat needs a receive credit of its VC.
void Nic::unpack(Edge x) {
  unext_ = kNoEdge;
  if (!ub_) {
    const Edge t = upick(x);
    if (t > x) {
      unext_ = t;
      return;
    }
    ulast_ = x;
  }
  if (ucmd_ == rp_[uport_].rec.front().cmds.size()) {
    if (ulast_ > x) {
      unext_ = ulast_;
      return;
    }
    // The frame ends at its last output edge: rows freed; the next frame, picked while this one
    // was output, goes on at the next edge.
    RxPort& e = rp_[uport_];
    e.rows -= e.rec.front().rows;
    if (spare_.size() < 64) spare_.push_back(std::move(e.rec.front().cmds));
    e.rec.pop_front();
    if (e.rec.empty()) rec_ports_ &= ~(1u << uport_);
    rx_upd(uport_);
    uend_[unum_ & 3u] = x;
    ub_ = false;
    const Edge t = upick(x);
    if (t > x) {
      unext_ = t;
      return;
    }
    ulast_ = x;
  }
  RxPort& r = rp_[uport_];
  const RxPort::Rec& f = r.rec.front();
  // (The loop keeps the unpacker's state in locals: the stores of the deliveries would make the
  // compiler reload the members at every command.)
  const NicCmd* cmds = f.cmds.data();
  const size_t ncmd = f.cmds.size();
  const Edge row0 = upick_ + 3;  // row r of the frame is usable by the output from edge row0 + r / NRd
  const uint32_t src = f.src;
  const uint8_t port = static_cast<uint8_t>(uport_);
  size_t k = ucmd_;
  Edge last = ulast_;
  uint32_t off = kO0;
  for (size_t i = 0; i < k; ++i) off += kOpBytes + cmds[i].dlen;
  // The commands output by this call are handed to the caller together, at the last one's output
  // edge (their first/last stamps stay exact): one event per frame instead of one per command.
  const size_t mark = pend_del_.size();
  auto release = [&]() {  // (rel of each command pushed by this call)
    ulast_ = last;
    ucmd_ = k;
    rcnt_[RxCnt::cmds_out] += pend_del_.size() - mark;
    for (size_t i = mark; i < pend_del_.size(); ++i) pend_del_[i].rel = last;
    pend_del_.refresh();
  };
  while (k < ncmd) {
    const NicCmd& cmd = cmds[k];
    const uint32_t dlen = cmd.dlen;
    const Edge xk =
        std::max({last + 1, row0 + (off + kOpBytes + std::min<uint32_t>(DB_, dlen) - 1) / kRow / NRD_, x});
    const unsigned v = cmd.vc & 3u;
    if (!cred_[v]) {
      if (xk > x) unext_ = xk;  // returns may come before then
      // else: stalled until a credit of this VC returns (edge() sets unext_)
      release();
      return;
    }
    --cred_[v];
    const uint32_t nb = dlen ? (dlen + DB_ - 1) >> db_sh_ : 1;
    // Beat j >= 1 needs its bytes one beat (DB bytes) further on, and the reads move NRd rows an edge
    // (4 rows, 128 bytes, at DB <= 64; 6 rows, 192 bytes, at DB 128): NRd * 32 >= DB, so its row is usable
    // no later than beat j's edge, the beats follow back to back.
    const Edge yk = xk + nb - 1;
    PendDel& pd = pend_del_.push();
    pd.d.cmd = cmd;
    pd.d.src = src;
    pd.d.port = port;
    pd.d.first = xk + 1;
    pd.d.last = yk + 1;
    last = yk;
    off += kOpBytes + dlen;
    ++k;
  }
  release();
  unext_ = std::max(last, x);  // the frame-end edge
}

}  // namespace sue
