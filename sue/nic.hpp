// sue::Nic: one SUE instance (sue_tx + sue_rx, 1, 2 or 4 ports) at frame
// granularity, event-driven, for fabric-scale runs (docs/system.md "The flit
// NIC model"). It keeps the SUE-visible behaviour of the cycle-exact blocks
// (models/sue, docs/sue.md "Transport") where it matters for a fabric:
//
//  * XPU side: per-{XPU, VC} queues of QDepth credits over a store of
//    Store = 8*QDepth command slots; a command's queue credit comes back when
//    it is formed into a PDU, its slot when the PDU is acknowledged (at most
//    Store - QDepth sent commands held); per-VC receive credits from the XPU sink.
//  * TX: packing of complete commands only (up to MaxPack, never waiting to
//    fill), WRR over VCs then round robin over XPUs, the strict-mode pin
//    (own XPU id + peer XPU id + VC) mod NumPorts, unordered = fewest outstanding bytes;
//    PSNs per connection {port, XPU, VC}, Window, piggybacked ACK/NACK or
//    ACK-only after ack_delay, go-back-N on NACK or RTO, at most one job start
//    per SUE edge, a CBFC credit gate per port and class.
//  * RX: in-order PSN check per connection, one NACK per gap, re-ACK of
//    duplicates, store-and-forward unpacking shared by all ports (four 32-byte
//    rows read per SUE cycle, the next frame picked as the previous one's rows
//    are read, one output beat per cycle), receive buffer rows and
//    frame records per port (a full buffer holds frames in the MAC, so their
//    CBFC credits are not returned).
//
// Time is the SUE clock edge number (uint64_t, 625 ps at 1.6 GHz): every
// decision happens at an edge, as in the RTL. Frame sizes are what sue::encap
// and the MAC produce (AFH Gen2 12-byte header, RH, packed operations, R-CRC,
// pad to 60, FCS), computed from the sue/encap.hpp constants; no bytes are
// built. Commands are carried by value (NicCmd: the caller's tag and digest).
//
// Not modelled (refused by NicConfig::validate): SUE Lite, failover (ports
// never go down). Plain C++, no SystemC.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "sue/sue_rx_model.hpp"
#include "sue/sue_tx_model.hpp"

namespace sue {

#if defined(__GNUC__)
#define COSIM_NIC_ALWAYS_INLINE [[gnu::always_inline]] inline
#else
#define COSIM_NIC_ALWAYS_INLINE inline
#endif

using Edge = uint64_t;  ///< SUE clock edge number
constexpr Edge kNoEdge = ~0ull;

/// One command as the flit NIC carries it.
struct NicCmd {
  uint64_t tag = 0;     ///< the caller's handle (opaque)
  uint64_t aux = 0;     ///< a second opaque word of the caller
  uint64_t digest = 0;  ///< carried end to end unchanged (the scoreboard's byte digest)
  uint16_t dlen = 0;    ///< data bytes, 0..MaxData
  uint8_t vc = 0;
};

/// One frame on the wire.
struct NicFrame {
  uint32_t src = 0, dst = 0;  ///< AFH Gen2 source and destination XPU
  uint8_t port = 0, vc = 0;   ///< NIC port (plane) and VC = traffic class
  bool ack_only = false;      ///< the empty PDU (80 00)
  bool rtx = false;           ///< a retransmission (go-back-N)
  bool bad = false;           ///< damaged on the line: the receiving MAC sees a bad FCS (drop_mac)
  uint8_t op = 0;             ///< RH op: 0 none, 1 ACK, 2 NACK
  uint16_t psn = 0, apsn = 0;
  uint32_t packed = 0;  ///< P: op headers + command bytes (2 for the empty PDU)
  uint32_t bytes = 0;   ///< frame bytes: 14 + RH 8 + P + R-CRC 4, padded to 60, + FCS 4 (no preamble/IFG)
  Edge sof = 0;         ///< edge the MAC takes the first beat
  Edge eof = 0;         ///< edge the MAC takes the last beat
  std::vector<NicCmd> cmds;
};

/// XPU ids one flit NIC instance can address: every XPU of the spec's largest system (10-bit XPU ids),
/// as the cycle-exact twins (TxParams::validate: NumXpus 2..1024).
constexpr unsigned kNicMaxXpus = 1024;

/// Configuration of one instance: the RTL parameters (TxParams) and the cfg_*_i inputs that matter. There
/// is no peer table: the instance addresses XPU ids 0..NumXpus-1 but its own directly, peer index = XPU id
/// (queue {XPU x, VC v} = x*4 + v, connection {port p, x, v}).
struct NicConfig {
  TxParams tp;  ///< NumPorts, NumXpus (2..kNicMaxXpus), DataW, MaxData, MaxPack, QDepth, Window, RxBufBeats, RxFrames; profile SUE
  uint32_t own_xpuid = 0;
  bool strict = true;
  std::array<uint32_t, 4> vc_weight{{1, 1, 1, 1}};
  uint32_t rto = 65536;      ///< cycles without ACK progress (0 behaves as 1)
  uint32_t ack_delay = 4096;  ///< cycles an owed ACK waits for a data PDU
  uint32_t ack_count = 4;     ///< 0..255: an owed ACK is due once this many feedback events are owed (0: off)
  uint32_t win_bytes = 131072;  ///< 0..2^24-1: a connection starts a PDU only while its PDUs in flight hold fewer bytes (0: off)
  std::array<uint32_t, 4> rx_credits{{16, 16, 16, 16}};  ///< XPU receive credits per VC, 1..255
  // Port and clock.
  unsigned port_gbps = 200;  ///< line rate of every port (MAC pacing, with preamble and IFG)
  int64_t clock_ps = 625;    ///< SUE clock period
  // CBFC gate toward the next hop, per port and class (128-byte credits, as cbfc::TxModel with
  // 16-bit counters): a frame of class v may start on port p when avail >= gate_mtu_cells; it is
  // charged at its start. gate_classes = 0: no gate; otherwise VCs >= gate_classes never start (as in
  // the system testbench's cycle path, whose credit_ok_i is 0 for a class without a gate; the system
  // uses VCs 0 and 1, both gated).
  unsigned gate_classes = 0;
  uint32_t gate_init_cells = 0, gate_mtu_cells = 0;
  // Calibration of the zero-load pipeline (docs/sue.md "Clock and rates"; measured on the cycle-exact blocks).
  unsigned tx_pipeline = 3;  ///< job-start edge -> first beat taken by the MAC (command complete -> first beat: 4)
  /// Testing: work at every edge (next_event() is always the next edge and the scheduler looks every
  /// edge) instead of only where an event is due. Outputs must be identical either way.
  bool poll = false;
  /// "" or one line naming the first setting this model does not support.
  std::string validate() const;
};

/// A command handed to the XPU receive interface.
struct NicDelivery {
  NicCmd cmd;
  uint32_t src = 0;  ///< source XPU
  uint8_t port = 0;
  Edge first = 0;  ///< cycle in which the XPU sees the command's first beat (rx_* registered at edge first - 1)
  Edge last = 0;   ///< and its last beat (first == last for single-beat commands); released by advance(last - 1)
};

/// A frame the NIC took from its MAC (its receive-buffer cells go back upstream as CBFC credits).
struct NicTaken {
  uint8_t port = 0, vc = 0;
  uint32_t bytes = 0;
  Edge at = 0;
};

/// A queue credit (tx_credit_o) returned to the XPU.
struct NicCredit {
  uint16_t q = 0;
  Edge at = 0;  ///< registered at this edge (the ACK's edge + 2): the XPU may use it from the next edge
};

/// A FIFO on a power-of-two ring that keeps its storage (no allocation once grown, unlike std::deque,
/// which allocates and frees blocks as it moves): push_back, front/back, pop_front, [k], erase(k).
/// Popped slots keep their (moved-from) objects, reused by the next push.
template <class T>
class Ring {
 public:
  Ring() = default;
  // p_ points into b_: a copy points into its own vector, a moved-from ring is left empty.
  Ring(const Ring& o) : b_(o.b_), p_(b_.data()), h_(o.h_), n_(o.n_), m_(o.m_), cap_(o.cap_) {}
  Ring(Ring&& o) noexcept : b_(std::move(o.b_)), p_(b_.data()), h_(o.h_), n_(o.n_), m_(o.m_), cap_(o.cap_) { o.reset(); }
  Ring& operator=(const Ring& o) {
    if (this != &o) {
      b_ = o.b_;
      p_ = b_.data();
      h_ = o.h_, n_ = o.n_, m_ = o.m_, cap_ = o.cap_;
    }
    return *this;
  }
  Ring& operator=(Ring&& o) noexcept {
    if (this != &o) {
      b_ = std::move(o.b_);
      p_ = b_.data();
      h_ = o.h_, n_ = o.n_, m_ = o.m_, cap_ = o.cap_;
      o.reset();
    }
    return *this;
  }
  bool empty() const { return n_ == 0; }
  size_t size() const { return n_; }
  T& front() { return p_[h_]; }
  const T& front() const { return p_[h_]; }
  T& back() { return p_[(h_ + n_ - 1) & m_]; }
  const T& back() const { return p_[(h_ + n_ - 1) & m_]; }
  T& operator[](size_t k) { return p_[(h_ + k) & m_]; }
  const T& operator[](size_t k) const { return p_[(h_ + k) & m_]; }
  void push_back(const T& v) {
    grow();
    p_[(h_ + n_) & m_] = v;
    ++n_;
  }
  void push_back(T&& v) {
    grow();
    p_[(h_ + n_) & m_] = std::move(v);
    ++n_;
  }
  /// Appends a slot and returns it (its previous, moved-from object: assign every field).
  T& push() {
    grow();
    ++n_;
    return back();
  }
  void pop_front() {
    h_ = (h_ + 1) & m_;
    --n_;
  }
  /// Removes element k, keeping the order of the others.
  void erase(size_t k) {
    for (size_t j = k; j + 1 < n_; ++j) (*this)[j] = std::move((*this)[j + 1]);
    --n_;
  }
  void clear() {
    h_ = 0;
    n_ = 0;
  }

 private:
  // p_ and cap_ spare every access the vector's indirection and the capacity test its size()
  // division by sizeof(T) (72 or 80 bytes for frames).
  std::vector<T> b_;
  T* p_ = nullptr;
  size_t h_ = 0, n_ = 0, m_ = 0, cap_ = 0;  // m_: capacity - 1
  void reset() {
    b_.clear();
    p_ = nullptr;
    h_ = n_ = m_ = cap_ = 0;
  }
  // The full ring's doubling is out of line: the pushes on the hot path (receive credits, credit
  // updates, frames in) stay a test and a store, and their callers need no frame of their own.
  void grow() {
    if (n_ >= cap_) grow_full();
  }
  [[gnu::noinline, gnu::cold]] void grow_full() {
    std::vector<T> nb(b_.empty() ? 8 : b_.size() * 2);
    for (size_t k = 0; k < n_; ++k) nb[k] = std::move((*this)[k]);
    b_.swap(nb);
    p_ = b_.data();
    h_ = 0;
    cap_ = b_.size();
    m_ = cap_ - 1;
  }
};

/// A Ring of time-stamped entries (the member At) that keeps its front's time at hand: head() is
/// kNoEdge when empty. The checks at every event read one word instead of the ring's front. After
/// push() (fields assigned in place) or a change of an entry's time, refresh().
template <class T, Edge T::*At>
class TimedRing {
 public:
  Edge head() const { return head_; }
  bool empty() const { return r_.empty(); }
  size_t size() const { return r_.size(); }
  T& front() { return r_.front(); }
  const T& front() const { return r_.front(); }
  T& back() { return r_.back(); }
  T& operator[](size_t k) { return r_[k]; }
  const T& operator[](size_t k) const { return r_[k]; }
  void push_back(const T& v) {
    r_.push_back(v);
    if (r_.size() == 1) head_ = v.*At;
  }
  T& push() { return r_.push(); }
  void pop_front() {
    r_.pop_front();
    refresh();
  }
  void refresh() { head_ = r_.empty() ? kNoEdge : r_.front().*At; }

 private:
  Ring<T> r_;
  Edge head_ = kNoEdge;
};

class Nic {
 public:
  /// Throws std::invalid_argument with NicConfig::validate()'s line.
  explicit Nic(const NicConfig& c);

  const NicConfig& config() const { return c_; }
  /// Queue q = xpu*4 + vc of XPU `xpu`, -1 when the instance does not address it (xpu >= NumXpus, the own
  /// id, or vc > 3).
  int queue_of(uint32_t xpu, unsigned vc) const {
    return xpu >= K_ || xpu == c_.own_xpuid || vc > 3 ? -1 : static_cast<int>(xpu * 4 + vc);
  }

  // ---- inputs; each takes effect at an edge after the last one advance() processed (earlier times
  // are clamped to it)
  /// A command completed on the XPU transmit interface at edge `done` (visible to the scheduler
  /// from done + 1). false: the queue has no free slot (the XPU overran its credits; cmd_overflow) or
  /// is not one the instance addresses (beyond NumXpus or the own id, as the twin's err_dest; cmd_bad);
  /// the command is dropped.
  bool submit(unsigned q, const NicCmd& cmd, Edge done);
  /// rx_credit_i[vc] pulsed at edge `at`.
  void rx_credit(unsigned vc, Edge at);
  /// A frame whose last beat the MAC presents from edge `eof` on port `port`.
  void receive(unsigned port, NicFrame&& f, Edge eof);
  /// CBFC credit update (cumulative limit, 16-bit) for class `cls` of port `port`, in effect for
  /// job starts at edges >= `at`.
  void credit_limit(unsigned port, unsigned cls, uint32_t limit, Edge at);

  // ---- time
  /// The earliest edge at which something is due (kNoEdge: nothing until a new input).
  Edge next_event() const { return next_; }
  /// Processes every edge <= t that has something due.
  void advance(Edge t);

  // ---- outputs of the advance() calls since the last clear_outputs()
  std::vector<NicFrame>& frames() { return out_frames_; }  ///< frames started (sof/eof in the future)
  const std::vector<NicDelivery>& deliveries() const { return out_del_; }
  const std::vector<NicTaken>& taken() const { return out_taken_; }
  const std::vector<NicCredit>& credits() const { return out_cred_; }
  void clear_outputs() {  // (inline: the caller's every event; a call into the -fPIC library costs more)
    out_frames_.clear();
    out_del_.clear();
    out_taken_.clear();
    out_cred_.clear();
  }

  // ---- state and counters
  /// Credits given back at submit (shared-buffer credits, QCap > QDepth) and deferred now (for tests).
  uint64_t early_credits() const { return early_; }
  uint32_t credits_deferred() const { return sdf_; }
  const std::array<uint64_t, TxCnt::kNum>& tx_cnt() const { return tcnt_; }
  const std::array<uint64_t, RxCnt::kNum>& rx_cnt() const { return rcnt_; }
  uint32_t q_count(unsigned q) const { return q_[q].tail - q_[q].head; }
  uint32_t q_unsent(unsigned q) const { return q_[q].tail - q_[q].send; }
  unsigned rx_frames_held(unsigned p) const;  ///< frames waiting at the MAC or in the receive buffer
  bool idle() const;                          ///< nothing queued, in flight, held or pending
  uint64_t events() const { return events_; }  ///< edges processed (cost measure)
  /// Edges up to `now` during which class `cls` of some port had its CBFC gate closed (avail below the
  /// MTU), summed over the ports (as the cycle path's credit_ok stall count).
  uint64_t gate_closed_edges(unsigned cls, Edge now) const;

 private:
  // One command slot of a queue: the command, the edge from which the scheduler sees it, and (unordered
  // mode) whether its PDU is acknowledged.
  struct Slot {
    NicCmd cmd;
    Edge vis = 0;
    uint8_t acked = 0;
  };
  // A queue's slots [head, tail) (sent, unacknowledged [head, send); unsent [send, tail)) are at
  // s[position & mask]: a block that grows by doubling as the queue fills, up to Store slots, so a NIC
  // that addresses 1,024 peers holds memory for the commands it has, not Store per queue. Positions are
  // free-running counters, so a grown block keeps every slot's position.
  struct Queue {
    uint32_t head = 0, send = 0, tail = 0;
    uint32_t mask = 0;  // block size - 1 (no block: 0 with s empty)
    std::unique_ptr<Slot[]> s;
  };
  struct Desc {
    uint32_t first = 0;
    uint16_t n = 0;
    uint16_t chunks = 0;  // builder chunks of its commands (op headers + data beats)
    uint32_t p = 0;
  };
  struct Conn {
    uint32_t desc = ~0u;  // first of its descriptor block in desc_ (given at its first PDU; ~0: none yet)
    uint16_t npsn = 0, ack_psn = 0, rtx_psn = 0, owe_psn = 0;
    bool rtx_act = false;
    uint8_t owe_n = 0;  // feedback events owed since owe was NONE (saturating; cfg ack_count)
    uint8_t owe = 0;  // FbOwe kOweNone / kOweAck / kOweNack
    uint8_t dsh = 0;  // log2 of the descriptor block's size: PDU psn's descriptor is desc_[desc + psn mod 2^dsh]
    Edge owe_at = 0;  // edge the owe was written (age 0)
    uint32_t rto_gen = 0;
    // receive side of the same connection key
    uint16_t exp = 0;
    bool nacked = false;
    bool owe_now = false;  // the owed ACK reached ack_count at owe_at: due at owe_at + 1
  };
  static_assert(sizeof(Conn) == 32, "sue::Nic::Conn: two per cache line");
  struct TxPort {
    Edge free_at = 0;     // the builder may take a job at this edge
    Edge mac_at = 0;      // the MAC may take the next first beat from this edge (line-rate pacing)
    uint64_t out_bytes = 0;
    std::array<uint16_t, 4> limit{}, used{};
    std::array<Edge, 4> closed_since{{kNoEdge, kNoEdge, kNoEdge, kNoEdge}};
    std::array<uint64_t, 4> closed{};
  };
  struct Fb {  // a verdict's feedback to sue_tx
    uint16_t peer;
    uint8_t port, vc, owe, rop;
    uint16_t owe_psn, rapsn;
  };
  struct InFrame {
    NicFrame f;
    Edge eof;
  };
  struct RxPort {
    Ring<InFrame> in;   // at the MAC, not yet taken
    // Accepted frames, waiting for or in the unpacker: what it needs of them (not the whole frame).
    struct Rec {
      std::vector<NicCmd> cmds;
      uint32_t src;
      uint32_t rows;  // receive buffer rows
      Edge at;        // taken (committed) at this edge: the unpacker may pick it from at + 1
    };
    Ring<Rec> rec;
    uint32_t rows = 0;
  };
  struct Timed {
    Edge at;
    uint32_t a, b;
  };

  NicConfig c_;
  // Hot state first (what every event and every job start touches, in few cache lines); the big
  // per-queue and per-connection tables after.
  Edge now_ = 0;           // edges < now_ are done
  Edge next_ = kNoEdge;
  Edge tx_wake_ = kNoEdge;  // the scheduler has something to try at this edge
  Edge rx_min_ = kNoEdge;   // the minimum of rx_due_
  Edge unext_ = kNoEdge;    // next unpacker edge (pick or a stalled command)
  Edge owe_next_ = kNoEdge;  // no ACK-only job is due before this edge
  uint64_t events_ = 0;
  unsigned unsent_total_ = 0;
  uint64_t early_ = 0;  // credits given back at submit (shared-buffer credits)
  uint32_t gate_never_ = 0;   // bit port*4+cls: a class beyond gate_classes (> 0), whose gate never opens (gate_ok)
  uint32_t gate_closed_ = 0;  // bit port*4+cls: a gated class whose gate is closed (an update may open it)
  bool ub_ = false;           // the unpacker holds a frame
  uint32_t rec_ports_ = 0;    // bit p: port p holds accepted frames (rp_[p].rec not empty)
  unsigned n_rtx_ = 0;      // connections running a go-back-N (bits set in m_rtx_)
  uint32_t owe_ports_ = 0;  // bit p: some connection of port p owes an ACK/NACK (its words of m_owe_)
  // Peer sets (peer i = XPU id i) are bit sets of KW_ words (peer i: bit i mod 64 of word i / 64); connection sets of
  // CPW_ words per port (connection c = port * CP + peer * 4 + VC, CP a power of two >= 64, so a
  // port's connections are whole words and ascending c is ascending (port, peer, VC)).
  std::vector<uint64_t> unsent_;  // [VC * KW_ + w]: peers whose queue holds unsent commands
  std::vector<uint64_t> blk_;     // [(port * 4 + VC) * KW_ + w]: peers whose connection's window is full or in go-back-N
  std::vector<uint64_t> carry_;   // [(port * 4 + VC) * KW_ + w]: the peers whose queue the port may carry (strict: pinned to it)
  std::vector<uint64_t> elig_;    // [VC * KW_ + w]: pick()'s scratch
  std::vector<uint64_t> m_rtx_, m_owe_;  // [port * CPW_ + w]: connections in go-back-N; owing an ACK/NACK
  // Summaries that spare the scans of empty words (KW_ <= 16, CPW_ <= 64): bit w is set iff word w is not 0.
  std::array<uint64_t, 4> unsent_sum_{};         // [VC]: the words of unsent_
  std::array<uint64_t, kMaxPorts> owe_sum_{};    // [port]: the port's words of m_owe_
  std::array<Edge, kMaxPorts> rx_due_{{kNoEdge, kNoEdge, kNoEdge, kNoEdge}};  // [port]: see rx_upd()
  // The feedback of this edge's verdicts (one frame per port at most): sue_tx reads it at the next
  // edge, before anything else there touches what it writes, so edge() applies it as of x + 1 right
  // after its job start; it never outlives the edge that wrote it.
  std::array<Fb, kMaxPorts> fb_{};
  unsigned n_fb_ = 0;
  // RTO timers (deadline, c << 24 | gen mod 2^24): every arm is at an edge >= the previous one with the
  // same timeout, so the deadlines come in order and a FIFO is the min-heap (ties: by key, at firing).
  // A timer is live while its generation is the connection's: 24 bits, because a connection re-arms
  // on every ACK, hundreds of times within one RTO (8 bits let a stale timer match a later arm and
  // fire a false RTO). Connections: at most 4 ports x CP (4,096 at 1,024 peers) = 16,384, the 14 bits above.
  static constexpr unsigned kRtoGenBits = 24;
  static constexpr uint32_t kRtoGenMask = (1u << kRtoGenBits) - 1;
  struct Rto {
    Edge at;
    uint64_t key;  // c << kRtoGenBits | generation
  };
  TimedRing<Rto, &Rto::at> rto_q_;
  TimedRing<Timed, &Timed::at> gate_upd_;  // credit updates: a = port*4+cls, b = limit
  TimedRing<Timed, &Timed::at> rx_ret_;    // receive credits: a = vc
  struct PendDel {
    NicDelivery d;
    Edge rel;  // released (handed to the caller) at this edge
  };
  TimedRing<PendDel, &PendDel::rel> pend_del_;
  std::array<uint32_t, 4> cred_{};
  // unpacker
  unsigned uport_ = 0, rr_port_ = 0;
  size_t ucmd_ = 0;  // next command of the frame being unpacked
  Edge upick_ = 0;   // pick edge of the frame
  Edge ulast_ = 0;   // last output edge so far
  Edge ufree_ = 0;   // the fetcher reads the frame's last rows at this edge: the next pick from then on
  uint32_t unum_ = 0;             // frames picked so far
  std::array<Edge, 4> uend_{};    // [frame number mod 4]: its end edge (at most 4 frames held: kRxMetaDepth)
  // scheduler
  uint32_t wrr_vc_ = 0, wrr_cnt_ = 0;
  std::array<uint32_t, 4> rr_peer_{};
  mutable std::array<Edge, kMaxPorts> owe_min_{{kNoEdge, kNoEdge, kNoEdge, kNoEdge}};  // [port]: <= its earliest owed due edge
  mutable std::array<bool, kMaxPorts> owe_min_ok_{{true, true, true, true}};  // owe_min_ was recomputed since
  std::vector<uint8_t> pin_port_;  // [peer * 4 + VC]: sue::pin_base (own + peer XPU id + VC) mod NumPorts
  unsigned P_, K_, NQ_, NC_, QD_, SD_, W_, DB_, db_sh_;
  unsigned NRD_ = kRxReadRows;  // rows sue_rx's unpacker reads per edge (rx_read_rows(DB))
  uint32_t HM_ = 0;    // Pool - NQ*QDepth: sent commands all queues may hold together
  uint32_t held_ = 0;  // sent commands held (sum over the queues of send - head)
  // Shared-buffer credits (the twin's df, sdf and slack; docs/sue.md "Shared-buffer credits"): per queue
  // the unsent commands whose credit has not gone back, their sum, QCap and Pool - NQ*QDepth.
  std::vector<uint32_t> df_;
  uint32_t sdf_ = 0, QC_ = 0;
  int64_t pool_free0_ = 0;  // Pool - NQ*QDepth
  // free slots + deferred credits - NQ*QDepth: a free slot for every credit the XPU holds
  int64_t slack() const { return pool_free0_ - int64_t(unsent_total_) - int64_t(held_) + int64_t(sdf_); }
  unsigned KW_ = 1, CP_ = 64, cp_sh_ = 6, CPW_ = 1;  // peer-set words; connections per port (padded), log2, words
  int64_t row_ps_ = 0;  // ser_ps(32): the MAC's head start
  uint64_t gc_ = 1;     // port_gbps * clock_ps: ceil(ceil(8000 b / gbps) / clock) = ceil(8000 b / gc_)
  std::vector<Queue> q_;
  std::vector<Conn> conn_;          // [c] (the padding connections of a port are never used)
  // [c]: bytes (P) of the PDUs [ack_psn, npsn), the byte window's count. Apart from Conn, which stays
  // at 32 bytes (two per cache line); read only where a PDU forms or is acknowledged.
  std::vector<uint32_t> ib_;
  bool win_full(unsigned c) const { return c_.win_bytes && ib_[c] >= c_.win_bytes; }
  // The descriptors of the PDUs in flight, [ack_psn, npsn) of each connection, in per-connection blocks
  // of 2^Conn::dsh: kDescBlock at its first PDU, doubled (up to Window) when a PDU finds its block full,
  // the old block kept on dfree_[its dsh] for the next connection of that size. Uniform traffic over
  // 1,024 XPUs touches millions of connections with a few PDUs in flight each: Window (64) descriptors
  // for each took 1.9 GB of 1,024 NICs (cosim bench system --set xpus=1024).
  static constexpr unsigned kDescBlockShift = 2;
  std::vector<Desc> desc_;
  std::array<std::vector<uint32_t>, 17> dfree_;  // [dsh]: free blocks of 2^dsh descriptors
  Desc& dsc(const Conn& C, uint16_t psn) { return desc_[C.desc + (psn & ((1u << C.dsh) - 1))]; }
  void desc_room(Conn& C);  // a block with room for PDU C.npsn
  // outputs
  std::vector<NicFrame> out_frames_;
  std::vector<std::vector<NicCmd>> spare_;  // command vectors of frames unpacked or dropped, reused by start()
  std::vector<NicDelivery> out_del_;
  std::vector<NicTaken> out_taken_;
  std::vector<NicCredit> out_cred_;
  std::array<TxPort, kMaxPorts> tp_{};
  std::array<RxPort, kMaxPorts> rp_{};
  std::vector<std::pair<Edge, uint64_t>> rto_due_;  // scratch of edge()
  std::array<uint64_t, TxCnt::kNum> tcnt_{};
  std::array<uint64_t, RxCnt::kNum> rcnt_{};

  unsigned conn(unsigned p, unsigned i, unsigned v) const { return p << cp_sh_ | i << 2 | v; }
  unsigned conn_port(unsigned c) const { return c >> cp_sh_; }
  /// The edge a connection's owed ACK/NACK is due: a NACK at once, an ACK after ack_delay.
  Edge owe_due(const Conn& C) const {
    return C.owe == kOweNack || C.owe_now ? C.owe_at + 1 : C.owe_at + 1 + c_.ack_delay;
  }
  /// Bit of peer i in peer set `set` of a vector of peer sets (unsent_: the VC; blk_, carry_: port * 4 + VC).
  size_t pbit(unsigned set, unsigned i) const { return static_cast<size_t>(set) * KW_ * 64 + i; }
  static bool bit(const std::vector<uint64_t>& m, size_t b) { return (m[b >> 6] >> (b & 63)) & 1u; }
  static void set_bit(std::vector<uint64_t>& m, size_t b) { m[b >> 6] |= 1ull << (b & 63); }
  static void clr_bit(std::vector<uint64_t>& m, size_t b) { m[b >> 6] &= ~(1ull << (b & 63)); }
  void set_unsent(unsigned v, unsigned i) {
    set_bit(unsent_, pbit(v, i));
    unsent_sum_[v] |= 1ull << (i >> 6);
  }
  void clr_unsent(unsigned v, unsigned i) {
    clr_bit(unsent_, pbit(v, i));
    if (!unsent_[static_cast<size_t>(v) * KW_ + (i >> 6)]) unsent_sum_[v] &= ~(1ull << (i >> 6));
  }
  void set_owe(unsigned c) {
    set_bit(m_owe_, c);
    owe_sum_[c >> cp_sh_] |= 1ull << ((c & (CP_ - 1)) >> 6);
  }
  void clr_owe(unsigned c) {
    clr_bit(m_owe_, c);
    if (!m_owe_[c >> 6]) owe_sum_[c >> cp_sh_] &= ~(1ull << ((c & (CP_ - 1)) >> 6));
  }
  void set_rtx(unsigned c) {
    if (!bit(m_rtx_, c)) set_bit(m_rtx_, c), ++n_rtx_;
  }
  void clr_rtx(unsigned c) {
    if (bit(m_rtx_, c)) clr_bit(m_rtx_, c), --n_rtx_;
  }
  bool port_any(const std::vector<uint64_t>& m, unsigned p) const {  // a connection of port p in m
    const uint64_t* w = &m[static_cast<size_t>(p) * CPW_];
    for (unsigned k = 0; k < CPW_; ++k)
      if (w[k]) return true;
    return false;
  }
  Slot& slot(Queue& Q, uint32_t pos) { return Q.s[pos & Q.mask]; }
  void grow(Queue& Q);  // doubles Q's block (at least 4 slots, at most Store)
  // The helpers below are declared inline (some always_inline: one call site, or two on the hot
  // path) so that advance() is one function: the library is built with -fPIC, where a plain member
  // function may be interposed and is never inlined. They are defined and used in nic.cpp only.
  int64_t ser_ps(uint64_t bytes) const {
    return static_cast<int64_t>((bytes * 8000 + c_.port_gbps - 1) / c_.port_gbps);
  }
  Edge ceil_edge(int64_t ps) const { return ps <= 0 ? 0 : static_cast<Edge>((ps + c_.clock_ps - 1) / c_.clock_ps); }
  static uint32_t frame_bytes(uint32_t packed);
  bool gate_ok(unsigned p, unsigned v) const {
    if (v >= c_.gate_classes) return c_.gate_classes == 0;
    const uint16_t avail = static_cast<uint16_t>(tp_[p].limit[v] - tp_[p].used[v]);
    return avail >= c_.gate_mtu_cells;
  }
  void wake(Edge t) {
    if (t < tx_wake_) tx_wake_ = t;
  }
  COSIM_NIC_ALWAYS_INLINE void edge(Edge x);
  COSIM_NIC_ALWAYS_INLINE void apply_fb(const Fb& e, Edge x);
  COSIM_NIC_ALWAYS_INLINE void progress(unsigned c, uint16_t new_ack, Edge x);
  inline void go_back(unsigned c, uint16_t from, Edge x);
  inline void rto_arm(unsigned c, Edge x);
  bool rto_live(uint64_t key) const {
    const Conn& C = conn_[key >> kRtoGenBits];
    return (C.rto_gen & kRtoGenMask) == (key & kRtoGenMask) && C.ack_psn != C.npsn;
  }
  COSIM_NIC_ALWAYS_INLINE bool schedule(Edge x);
  struct Job {  // a job pick() chose: start() takes it
    unsigned kind, p, i, v, n;
    uint32_t packed;
    unsigned chunks;
  };
  COSIM_NIC_ALWAYS_INLINE bool pick(Edge x, uint32_t idle, Job& j);
  inline bool start_new(Edge x, unsigned q, unsigned t, Job& j);
  inline void after_start(Edge x);
  Edge port_ready(unsigned p) const;
  struct ReadyWords {  // what port_ready() reads of the whole instance, read once for a loop over the ports
    bool u;            // some queue holds unsent commands
    uint32_t open;     // bit port*4+cls: gate open
    bool rtx;          // some connection runs a go-back-N
  };
  inline ReadyWords ready_words() const;
  inline Edge port_ready(unsigned p, const ReadyWords& k) const;
  inline Edge owe_ready(unsigned p) const;  // the earliest owed due edge of port p (a lower bound)
  inline void upd_blk(unsigned c);
  COSIM_NIC_ALWAYS_INLINE void start(unsigned kind, unsigned p, unsigned i, unsigned v, Edge x, unsigned n_cmd,
                                     uint32_t packed, unsigned cmd_chunks);
  COSIM_NIC_ALWAYS_INLINE void rx_take(unsigned p, Edge x);
  inline void rx_upd(unsigned p);
  COSIM_NIC_ALWAYS_INLINE void unpack(Edge x);
  inline Edge upick(Edge x);
  inline void recompute_next();
};

// The inputs called at every command, credit and credit update are inline: a call into the -fPIC
// library (through the PLT, with its own frame) cost as much as their work.

inline bool Nic::submit(unsigned q, const NicCmd& cmd, Edge done) {
  if (q >= NQ_ || (q >> 2) == c_.own_xpuid) {  // no such destination
    ++tcnt_[TxCnt::cmd_bad];
    return false;
  }
  Queue& Q = q_[q];
  if (df_[q] >= QD_ || Q.tail - Q.send >= QC_ || Q.tail - Q.head >= SD_) {  // the XPU overran its credits
    ++tcnt_[TxCnt::cmd_overflow];
    return false;
  }
  if (Q.tail - Q.head > Q.mask || !Q.s) grow(Q);
  Slot& s = slot(Q, Q.tail);
  s.cmd = cmd;
  const Edge vis = std::max(done + 1, now_);  // visible to the scheduler from the edge after it completes
  s.vis = vis;
  s.acked = 0;
  const bool first = Q.send == Q.tail;
  ++Q.tail;
  // Shared-buffer credit: back now while the slack leaves a free slot for it and the ring has room
  // for every command the XPU may then send (u + QDepth - df <= QCap); else deferred to its PDU.
  if (slack() >= 1 && Q.tail - Q.send + QD_ <= QC_ + df_[q]) {
    out_cred_.push_back({static_cast<uint16_t>(q), std::max(done, now_)});  // the twin: at the link edge
    ++early_;
  } else {
    ++df_[q];
    ++sdf_;
  }
  ++unsent_total_;
  set_unsent(q & 3u, q >> 2);
  ++tcnt_[TxCnt::cmds_in];
  // Behind other unsent commands it changes nothing the scheduler waits for (the queue's head does).
  if (first) {  // strict: its pin port may take it once free
    const Edge t = c_.strict ? std::max(vis, tp_[pin_port_[q]].free_at) : vis;
    wake(t);
    next_ = std::min(next_, std::max(t, now_));
  }
  return true;
}

inline void Nic::rx_credit(unsigned vc, Edge at) {
  rx_ret_.push_back({std::max(at, now_ ? now_ - 1 : 0), vc & 3u, 0});
  if (ub_ && unext_ == kNoEdge) next_ = std::min(next_, std::max(rx_ret_.back().at + 1, now_));
}

inline void Nic::credit_limit(unsigned port, unsigned cls, uint32_t limit, Edge at) {
  gate_upd_.push_back({std::max(at, now_), port * 4 + (cls & 3u), limit});
  // An update of an open gate changes nothing the scheduler looks at until the next edge it works at
  // (edge() applies it first): no event of its own. A closed gate's update may open it.
  if ((gate_closed_ >> (port * 4 + (cls & 3u))) & 1u) next_ = std::min(next_, gate_upd_.back().at);
}

}  // namespace sue

#undef COSIM_NIC_ALWAYS_INLINE
