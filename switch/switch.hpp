// Flit-level switch ASIC model (namespace sw). Behaviour, parameters, latency
// breakdown, flow control and telemetry are specified in docs/switch.md.
//
// Plain C++ cycle-driven engine: one Switch::tick() advances the whole switch
// by one core-clock edge. Times are integer picoseconds (core::Ps).
//
// Architecture (docs/switch.md "Architecture"): shared-memory buffer of cells
// (one cell = one flit) organised as virtual output queues per
// (egress port, class, ingress port); per-class admission with dynamic
// thresholds (alpha) on the shared pool; lossless classes are backed by
// CBFC credits (a per-ingress, per-class reserved pool, one credit = one cell)
// or by PFC XOFF/XON with headroom; one flit per output per cycle out of the
// buffer; per-egress scheduler: strict priority between priority levels,
// deficit weighted round robin between the classes of a level, round robin
// between ingress ports within a class; RED/ECN marking at dequeue;
// cut-through (default) or store-and-forward.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cbfc/cbfc.hpp"
#include "core/rng.hpp"
#include "core/stats.hpp"
#include "core/time.hpp"

namespace sw {

using core::Ps;

constexpr unsigned kMaxClasses = 8;   ///< traffic classes (802.1p has 8)
constexpr unsigned kMaxRadix = 1024;

enum class Forwarding : uint8_t { cut_through, store_and_forward };
enum class FlowControl : uint8_t { cbfc, pfc, none };
const char* to_string(Forwarding f);
const char* to_string(FlowControl f);

/// One traffic class.
struct ClassCfg {
  bool lossless = true;   ///< lossless: CBFC credits or PFC; a drop is a failure (counted)
  unsigned priority = 0;  ///< strict priority level, 0..7, higher is served first
  unsigned weight = 1;    ///< DWRR weight among classes of the same level, 1..1000
  bool ecn = true;        ///< RED/ECN marking enabled for this class
  double alpha = 1.0;     ///< dynamic threshold of the egress queue on the shared pool (lossy admission)
};

/// One named latency stage (zero-load, port to port, first byte in to first byte out).
struct Stage {
  const char* name;   ///< parameter name, e.g. "rx_phy_ns"
  double ns;          ///< its value
  const char* what;   ///< what it covers
};

struct Params {
  // ---- geometry (SUE spec chapter 1, tables 6 and 7)
  unsigned radix = 64;          ///< ports, 1..256
  unsigned port_gbps = 800;     ///< 800|400|200|100 (every port)
  unsigned lane_gbps = 200;     ///< SerDes lane 200|100; lanes per port = port/lane in 1|2|4
  unsigned flit_bytes = 128;    ///< cell/flit: buffer unit, crossbar unit, CBFC credit unit; power of 2, 32..1024
  double core_mhz = 1000.0;     ///< core clock; flit_bytes * core clock must carry the port rate
  unsigned mtu_bytes = 4096;    ///< largest packet, 64..9216
  uint32_t max_xpus = 1024;     ///< forwarding-table size (SUE: up to 1024 XPUs), 1..65536
  unsigned overhead_bytes = 20; ///< preamble + SFD + IFG per packet on the wire
  Forwarding forwarding = Forwarding::cut_through;
  FlowControl fc = FlowControl::cbfc;

  // ---- classes (default: 0 = requests, 1 = responses, both lossless, equal share)
  unsigned num_classes = 2;     ///< 1..8
  std::array<ClassCfg, kMaxClasses> classes{};

  // ---- zero-load latency stages, ns (sum = 250 ns = SUE spec appendix A switch budget)
  double rx_phy_ns = 50;  ///< SerDes RX, PCS, FEC decode
  double rx_mac_ns = 10;  ///< MAC receive
  double parse_ns = 10;   ///< header parse (AFH / IP)
  double lookup_ns = 15;  ///< forwarding table: destination XPU -> egress port
  double admit_ns = 20;   ///< admission (thresholds) and buffer write of the head cell
  double sched_ns = 10;   ///< enqueue to eligible in the egress scheduler
  double xbar_ns = 30;    ///< buffer read and crossbar to the egress port
  double egress_ns = 25;  ///< egress pipeline: ECN mark, header edit, TX FIFO
  double tx_mac_ns = 10;  ///< MAC transmit
  double tx_phy_ns = 70;  ///< PCS, FEC encode, SerDes TX

  // ---- shared buffer
  uint64_t buffer_bytes = 64ull << 20;  ///< total cell memory

  // ---- CBFC (fc = cbfc): one credit = one cell (credit_unit = flit_bytes)
  uint32_t cbfc_buf_cells = 512;        ///< reserved cells per ingress port per lossless class (= upstream's credits)
  uint32_t cbfc_downstream_cells = 512; ///< downstream's buffer per class (egress initial credits)
  uint32_t cbfc_threshold = 4;          ///< freed credits that trigger an update
  uint32_t cbfc_timer = 32;             ///< core cycles before pending credits are returned anyway (0 = off)

  // ---- PFC (fc = pfc), IEEE 802.1Qbb, per ingress port per lossless class
  uint32_t pfc_xoff_cells = 256;        ///< static XOFF cap (shared-pool usage)
  double pfc_alpha = 1.0;               ///< dynamic XOFF = min(pfc_xoff_cells, pfc_alpha * free shared cells)
  uint32_t pfc_resume_offset_cells = 24;///< XON when headroom empty and usage + offset <= XOFF (or usage 0)
  uint32_t pfc_headroom_cells = 512;    ///< reserved headroom above XOFF
  uint32_t pfc_quanta = 0xffff;         ///< pause time sent in XOFF (x 512 bit times); refreshed at half

  // ---- ECN (RED on the egress queue of a class, at dequeue)
  uint64_t ecn_kmin_bytes = 64 << 10;
  uint64_t ecn_kmax_bytes = 256 << 10;
  double ecn_pmax = 0.2;

  // ---- run
  uint64_t seed = 1;            ///< ECN marking draws from stream "switch.ecn"
  unsigned sample_cycles = 64;  ///< queue-depth sampling period for percentiles

  Params();
  /// Empty when valid, otherwise one line naming the bad field and the allowed values.
  std::string validate() const;

  Ps period() const;                     ///< core clock period, ps
  unsigned lanes() const { return port_gbps / lane_gbps; }
  uint32_t cells(uint32_t bytes) const { return (bytes + flit_bytes - 1) / flit_bytes; }
  uint64_t buffer_cells() const { return buffer_bytes / flit_bytes; }
  Ps serialization(uint64_t bytes) const; ///< at the port rate, ps (rounded up)
  Ps pause_time(uint32_t quanta) const;   ///< quanta x 512 bit times at the port rate
  unsigned lossless_classes() const;
  /// Zero-load stages in pipeline order; their sum is zero_load_latency().
  std::vector<Stage> breakdown() const;
  Ps ingress_ready_delay() const;  ///< rx_phy + rx_mac + parse + lookup
  Ps egress_delay() const;         ///< xbar + egress + tx_mac + tx_phy
  Ps zero_load_latency() const;    ///< sum of all stages (cut-through)
  std::string breakdown_table() const;
};

/// A packet. The caller fills id, tag, dst_xpu, cls, bytes (and ecn if CE already),
/// t_in (first byte at the ingress pin) and optionally t_in_last (last byte; default
/// t_in + serialization(bytes)). The switch fills the rest.
struct Packet {
  uint64_t id = 0;
  uint64_t tag = 0;          ///< opaque to the switch (digest, flow...)
  uint32_t dst_xpu = 0;
  uint32_t bytes = 0;
  uint16_t src_port = 0;     ///< ingress port (set by inject)
  int16_t egress_port = -1;  ///< from the forwarding table
  uint8_t cls = 0;
  bool ecn = false;          ///< CE mark
  uint32_t route_state = 0;  ///< opaque to the switch: state of a route hook (e.g. Dragonfly intermediate group)
  uint32_t ecn_depth = 0;    ///< egress queue bytes seen by the RED decision at dequeue
  // stage timestamps (ps), see docs/switch.md "Latency record"
  Ps t_in = 0;          ///< first byte at ingress pin
  Ps t_in_last = -1;    ///< last byte at ingress pin
  Ps t_ready = -1;      ///< ingress ready: head through PHY, MAC, parse, lookup
  Ps t_buffered = -1;   ///< head cell written (cut-through) / whole packet written (store-and-forward)
  Ps t_scheduled = -1;  ///< egress grant (core clock edge)
  Ps t_head_out = -1;   ///< first byte at egress pin
  Ps t_tail_out = -1;   ///< last byte at egress pin
};

enum class DropReason : uint8_t { no_route, buffer_full, lossless_overflow };

/// Flow-control word toward the upstream link partner of `port`.
struct FcMsg {
  enum class Kind : uint8_t { credit, pause };
  unsigned port = 0;
  Kind kind = Kind::credit;
  uint8_t cls = 0;
  uint32_t value = 0;  ///< credit: cumulative limit (cbfc); pause: quanta (0 = resume)
  Ps t = 0;            ///< time the word leaves the switch pin (emission + tx_mac + tx_phy)
};

/// Counters per port and class. "ingress" = the port as receiver, "egress" = as sender.
struct alignas(64) PortClassStats {
  // Fields touched per packet first (one cache line; the order is layout only).
  uint64_t rx_pkts = 0, rx_bytes = 0;         ///< ingress side
  uint32_t ing_cells = 0, ing_cells_max = 0;  ///< ingress: buffer cells held for this ingress/class
  uint64_t q_bytes = 0, q_bytes_max = 0;      ///< egress queue (admitted, not yet scheduled)
  uint64_t tx_pkts = 0, tx_bytes = 0;         ///< egress side
  uint64_t delivered_bytes = 0;  ///< delivered bytes that entered on this port (for fairness), all egresses
  // ingress side
  uint64_t credit_updates = 0; ///< CBFC updates sent upstream
  uint64_t drops_lossy = 0, drops_lossless = 0, drops_no_route = 0;
  uint32_t hdrm_cells = 0, hdrm_cells_max = 0;///< PFC headroom in use
  uint64_t pause_sent = 0;     ///< PFC XOFF frames sent upstream (incl. refreshes)
  uint64_t xoff_events = 0;    ///< XON->XOFF transitions
  Ps xoff_time = 0;            ///< time the upstream was held in XOFF
  core::Samples ing_cells_samples;
  // egress side
  uint64_t ecn_marks = 0;
  core::Samples q_bytes_samples;
  uint64_t pause_rcvd = 0;
  Ps paused_time = 0;          ///< time this egress class was paused by downstream (PFC)
  Ps credit_stall = 0;         ///< egress ready, head of class waiting for downstream credits
  Ps pause_stall = 0;          ///< egress ready, head of class held by PFC pause
};

struct Summary {
  Ps window = 0;                        ///< since construction or reset_stats()
  uint64_t rx_pkts = 0, tx_pkts = 0, rx_bytes = 0, tx_bytes = 0;
  uint64_t drops_lossy = 0, drops_lossless = 0, drops_no_route = 0;
  uint64_t ecn_marks = 0, pause_sent = 0, pause_rcvd = 0;
  double tx_gbps = 0;                   ///< all egress ports
  double jain_ingress = 1, imbalance_ingress = 1;  ///< over active ingress ports' delivered bytes
  double jain_egress = 1, imbalance_egress = 1;    ///< over active egress ports' bytes
  uint64_t q_bytes_max = 0;             ///< any egress queue
  double q_bytes_p95_max = 0;           ///< largest per-queue P95
};

class Switch {
 public:
  /// Throws std::invalid_argument("switch: <validate() line>") on bad parameters.
  explicit Switch(const Params& p);
  ~Switch();
  Switch(const Switch&) = delete;
  Switch& operator=(const Switch&) = delete;

  // ---- configuration
  void set_route(uint32_t xpu, unsigned port);
  int route(uint32_t xpu) const { return xpu < route_.size() ? route_[xpu] : -1; }
  /// Optional per-packet route hook, called at admission instead of the forwarding
  /// table: returns the egress port (< 0: dropped as no_route) and may update the
  /// packet's route_state. It may read this switch's telemetry (queues, credits).
  /// It may also set `cls` to the egress class (output VC, same lossless setting):
  /// the packet's ingress buffer and the credits toward its upstream stay on the
  /// class it arrived in; egress queue, scheduling, downstream credits and the
  /// departure use the new class. Unchanged `cls`: ingress class = egress class.
  using RouteFn = std::function<int(Switch&, Packet&)>;
  void set_route_fn(RouteFn fn) { route_fn_ = std::move(fn); }

  // ---- inputs (times at the switch pins; per port in nondecreasing time, >= now())
  /// A packet arriving on ingress `port`. Throws std::invalid_argument on a bad packet.
  void inject(unsigned port, Packet p);
  /// CBFC credit update from the downstream of egress `port` (cumulative limit).
  void credit_in(unsigned port, unsigned cls, uint32_t limit, Ps t);
  /// PFC frame from the downstream of egress `port` (quanta 0 = resume).
  void pause_in(unsigned port, unsigned cls, uint32_t quanta, Ps t);
  /// The egress wire of `port` carried `dur` ps of something the switch did not
  /// schedule (a link-layer control word or an LLR replay): packets granted from
  /// now on leave that much later (wire free = max(wire free, now) + dur).
  /// docs/switch.md "LLR on links".
  void egress_wire_busy(unsigned port, Ps dur);

  // ---- clock
  /// Processes the core-clock edge at now(), then advances now() by one period.
  void tick();
  void run_until(Ps t) { while (now_ <= t) tick(); }
  Ps now() const { return now_; }
  uint64_t cycle() const { return cycle_; }

  // ---- outputs of the last tick (cleared at the start of every tick)
  const std::vector<Packet>& departures() const { return departures_; }  ///< head left the egress pin
  const std::vector<FcMsg>& fc_out() const { return fc_out_; }
  const std::vector<std::pair<Packet, DropReason>>& drops() const { return drops_; }

  // ---- telemetry
  const PortClassStats& stats(unsigned port, unsigned cls) const { return st_[port * C_ + cls]; }
  Summary summary() const;
  std::string report() const;  ///< human-readable table
  void reset_stats();          ///< start a new measurement window at now()
  uint64_t lossless_drops() const;
  uint64_t shared_used_cells() const { return shared_used_; }
  uint64_t shared_size_cells() const { return shared_size_; }
  uint64_t queued_packets() const;  ///< admitted, not yet scheduled (all ports)
  uint64_t in_flight() const;       ///< in ingress pipeline, buffered, or not yet out
  /// The packets injected and neither departed nor dropped yet (in_flight() of them), in pool order:
  /// what a switch that fails loses (tb/system's fail_plane).
  std::vector<Packet> held() const;
  uint32_t egress_avail_credits(unsigned port, unsigned cls) const { return tx_avail_[port * C_ + cls]; }
  bool upstream_xoff(unsigned port, unsigned cls) const;
  const Params& params() const { return p_; }

 private:
  struct Slot;
  struct Ing;
  struct Egr;
  struct RxCredit;
  // Members in order of use: what every tick touches comes first, so a tick
  // reads few cache lines of this object (a fabric holds hundreds of switches).
  // An edge with nothing due reads only the first lines: the clock, the
  // calendar, the outputs to clear and the PFC state (see tick()).
  Ps now_ = 0;
  uint64_t cycle_ = 0;
  uint64_t next_sample_ = 0;  // cycle of the next telemetry sample
  unsigned R_, C_, W_;
  FlowControl fc_;
  Ps P_;
  uint64_t fc_in_pending_ = 0;
  std::vector<uint64_t> cal_;  // calendars (below): [((slot * kCals) + K) * W_ + word]
  uint64_t* sl_ = nullptr;     // &cal_[slot of this edge], set at the start of tick()
  std::vector<Packet> departures_;
  std::vector<FcMsg> fc_out_;
  std::vector<std::pair<Packet, DropReason>> drops_;
  std::vector<uint32_t> xoff_list_;           // (i*C+c) in XOFF
  std::vector<uint32_t> paused_list_;         // (e*C+c) whose paused_until may lie after now (PFC)
  uint32_t rx_thr_ = 1, rx_tmr_max_ = 0;  // CBFC receiver threshold and timer, as cbfc::RxModel samples them
  Ps d_ready_, d_admit_, d_sched_, d_out_, d_fc_out_, d_fc_in_, latency_;
  uint64_t shared_size_ = 0, shared_used_ = 0;
  // Calendars of the per-port steps (arrivals, buffer frees, grants, departures, CBFC
  // senders and receivers), interleaved so that one edge reads one slot of
  // each: slot k % kSlots of calendar K is a bitset of the ports (bit p of
  // word p / 64) to visit at the edge of cycle k. Invariant: a port whose step
  // has work due at edge k (its *_due_ time <= k * period, rx_due_ <= k) has
  // its bit set in slot k or in an earlier slot not yet visited. A visit
  // clears the slot, runs the step of the ports that are due, in increasing
  // port order (as a scan of every port would; receivers: see rx_seq_), and
  // files every port with work left at the edge of its new due time. Bits of
  // ports no longer due (their due time moved later) are only re-filed; a due
  // time beyond the calendar comes round early and is re-filed. (A CBFC
  // receiver woken by an arrival or a free during an edge is stepped at once,
  // or in rx_quick_, or, when due at that edge anyway, goes straight into its
  // rx_batch_ instead of slot k of calendar kRx.)
  enum Cal : unsigned { kArr, kRd, kEg, kLv, kTx, kRx, kCals };
  static constexpr unsigned kSlots = 256;
  // Event horizons, in flat arrays so the steps test them without touching the
  // (large, cache-cold) port structs. Each is a lower bound: nothing in that
  // port's step can change before it (kNever: nothing pending); the step
  // itself re-checks exactly.
  std::vector<Ps> arr_due_;         // ingress i: ing_[i].arr.front().t_ready
  std::vector<Ps> rd_due_;          // egress e: egr_[e].reading.front().t_free
  std::vector<Ps> eg_due_;          // egress e: next edge at which schedule() may act
  std::vector<Ps> lv_due_;          // egress e: egr_[e].leaving.front().t_head_out (departure)
  std::vector<Ps> elig_lb_;         // egress e: no queued head of e is eligible before this (kNever: none queued)
  std::vector<Ps> cu_due_;          // egress e: egr_[e].cu.front().t (its sender's step in tick_cbfc)
  std::vector<uint64_t> rx_due_;    // ingress i: first cycle its CBFC receiver can change (see RxCredit)
  // Pool slots of the packets at the front of ing_[i].arr and egr_[e].leaving
  // (-1: none), read only to prefetch them at the start of a tick.
  std::vector<int32_t> arr_slot_, lv_slot_;
  std::vector<Ing> ing_;
  std::vector<Egr> egr_;
  std::vector<PortClassStats> st_;
  std::vector<Slot> pool_;  // packets from inject until they leave (or are dropped)
  std::vector<int32_t> free_slots_;
  // The scheduler reads only these 16 bytes per VOQ, not the packets: the
  // head's eligibility time, size and cells (bytes <= mtu_bytes <= 9216, so
  // both fit 16 bits). The tail is apart (admission only).
  struct Voq {
    Ps head_elig = 0;     // pool_[head].t_elig
    int32_t head = -1;    // pool_ slot, linked by Slot::next
    uint16_t head_bytes = 0, head_cells = 0;  // pool_[head].p.bytes, pool_[head].cells
  };
  std::vector<Voq> voq_;          // per ((e*C+c)*R+i)
  std::vector<int32_t> voq_tail_; // per ((e*C+c)*R+i): the last packet's slot (-1: empty)
  std::vector<uint64_t> nonempty_;           // ((e*C+c)*W + w)
  std::vector<uint32_t> tx_avail_;            // CBFC sender avail (e*C+c)
  std::vector<uint64_t> tx_edge_;   // egress e: cycle of its CBFC sender's last transmit (applied by schedule())
  std::vector<RxCredit> rxc_;       // CBFC receiver per ingress port (fc = cbfc)
  // Receivers with pending work are stepped in the order they became active
  // (as a list appended on activation would visit them): rx_seq_ is that order,
  // as a rank below rx_ranks_ (rx_seq_next_ is the next rank; when the ranks run
  // out, rx_compact() renumbers the active receivers 0, 1, ... in the same
  // order). rx_port_[r] is the receiver of rank r (stale once it is inactive
  // or renumbered). rx_batch_ is a bitset of ranks, the receivers due at this
  // edge (set by rx_wake() and from calendar kRx), walked in increasing rank.
  std::vector<uint32_t> rx_seq_;
  uint32_t rx_seq_next_ = 0, rx_ranks_ = 0;
  std::vector<uint16_t> rx_port_;
  std::vector<uint64_t> rx_batch_;
  bool rx_batch_any_ = false;  // rx_batch_ has a bit set
  // Receivers woken at this edge while not due for a threshold or a timer
  // (bitset of ports): stepped by rx_quick(), which cannot grant.
  std::vector<uint64_t> rx_quick_;
  bool rx_quick_any_ = false;
  // Idle receivers given a rank by an arrival stepped at once (rx_arrival):
  // idle again at the end of the edge (bitset of ports).
  std::vector<uint64_t> rx_idle_;
  bool rx_idle_any_ = false;
  uint32_t cmask_ = 0;              // cp_.cnt_mask()
  uint32_t max_feed_ = 0;           // most credits presented at once (len_width = 16 bits)
  std::vector<uint64_t> pause_busy_;          // egress: PFC frames from downstream not yet applied (bitset)
  // Classes by priority level, highest first: nlv_ levels, level lv has
  // lvl_n_[lv] classes lvl_cls_[lv][0..] (bit c of lvl_mask_[lv]).
  unsigned nlv_ = 0;
  std::array<uint8_t, kMaxClasses> lvl_n_{};
  std::array<uint32_t, kMaxClasses> lvl_mask_{};
  std::array<std::array<uint8_t, kMaxClasses>, kMaxClasses> lvl_cls_{};
  std::array<uint8_t, kMaxClasses> lvl_pos_{};  // c == lvl_cls_[its level][lvl_pos_[c]]
  std::array<int64_t, kMaxClasses> quantum_{};  // DWRR quantum: weight x MTU
  uint32_t credit_mask_ = 0;  // bit c: class c is lossless with CBFC (credit-backed)
  double gbps_ = 0;           // port rate, for ser_ps()
  Ps ps_per_byte_ = 0;        // 8000 / port_gbps when that is whole (every allowed rate), else 0
  unsigned flit_log2_ = 0;
  // p_.serialization(bytes), inline. With a whole number of ps per byte the
  // double arithmetic is exact (bytes x 8000 / gbps is an integer well below
  // 2^53, and ceil(x - 1e-9) = x), so one multiply gives the same value.
  Ps ser_ps(uint64_t bytes) const {
    if (ps_per_byte_ != 0) return static_cast<Ps>(bytes) * ps_per_byte_;
    const double ps = static_cast<double>(bytes) * 8000.0 / gbps_;
    return static_cast<Ps>(std::ceil(ps - 1e-9));
  }
  std::vector<int16_t> route_;
  RouteFn route_fn_;
  core::Rng ecn_rng_;
  Params p_;
  cbfc::Params cp_;
  Ps stats_start_ = 0;

  bool admit(unsigned i, int32_t slot);  // false: dropped
  void drop(Packet& pk, DropReason r);
  void schedule(unsigned e);
  int pick_input(unsigned e, unsigned c, Ps& next_elig) const;
  void release(unsigned e);
  void egress_due(unsigned e);
  uint64_t edge_of(Ps t) const;  // first cycle whose edge is at or after t
  void file(Cal cal, unsigned port, Ps due, uint64_t min_cycle);
  void file_at(Cal cal, unsigned port, uint64_t k);
  uint64_t* slot(Cal cal) { return sl_ + cal * W_; }  // calendar cal's slot of this edge (in tick())
  template <class F>
  void visit(Cal cal, F&& step);
  void pfc_check(unsigned i, unsigned c);
  void pfc_emit(unsigned i, unsigned c, uint32_t quanta);
  uint64_t xoff_dyn() const;
  void tick_cbfc();
  bool rx_step(unsigned i, int rx_c, uint32_t rx_need, int fr_c, uint32_t fr_need);
  bool rx_next(unsigned i);
  bool rx_quick(unsigned i);
  void rx_arrival(unsigned i, unsigned c, uint32_t n);
  void rx_free(unsigned i, unsigned c, uint32_t n);
  void rx_undo(unsigned i);
  void rx_activate(unsigned i);
  void rx_wake(unsigned i);
  void rx_compact();
  [[noreturn]] __attribute__((noinline, cold)) void rx_error(unsigned i, uint32_t ovf, uint32_t unf);
  void sample();
  void prefetch_due();
};

}  // namespace sw
