// The fast path of the `system` testbench (nic=flit, docs/system.md "The flit NIC model"): the same
// system as System (N XPUs x M SUE instances over one sw::Switch per plane or a mesh, CBFC on both
// classes, the XPU traffic patterns, the end-to-end core::Scoreboard, telemetry), with every NIC a
// sue::Nic (frame granularity, event-driven) instead of the cycle-exact sue_tx/sue_rx twins ticked
// at 1.6 GHz. Nothing is ticked per SUE cycle: the loop jumps from event to event (a NIC's
// next_event(), an XPU generator's next token-bucket send, an XPU interface freeing) and runs the
// switch core edges in between. Times are SUE edges (625 ps) for the NICs and XPUs and picoseconds
// on the wires and in the switches, as in System.
//
// Shared with System: SysConfig, the mesh cabling and the permutation (mesh_partner, permutation_of),
// the choice of instance (SystemBase::instance_of; no peer tables: queue {XPU, VC}), the traffic patterns
// (XpuGen, next_destination, request_shape), the transmit wire (wire_times), and SystemBase: the
// switches, frame pool, scoreboard, figures and per-XPU statistics (SystemBase::Figures, XpuStats, the
// templated report of system_tb.cpp), the network bookkeeping and the lnk::FaultInjector streams.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sue/nic.hpp"
#include "system/system_env.hpp"

namespace tb::system_tb {

class FlitSystem : public SystemBase {
 public:
  /// Throws core::UsageError (one line) for what the flit NIC does not model.
  explicit FlitSystem(const SysConfig& cfg);
  ~FlitSystem();

  /// Runs every event at SUE edges < `cycle` (switch edges before it included); cycles() = cycle after.
  void run_to(uint64_t cycle);
  void stop_traffic();
  bool idle() const;
  std::string busy_reason() const;
  const System::Figures& figures() const;
  uint64_t tx_sum(unsigned i) const;
  uint64_t rx_sum(unsigned i) const;
  std::string nic_errors() const;
  uint64_t issued() const;
  LinkFigures link_figures() const;
  uint64_t nic_events() const;  ///< edges the NICs processed (cost measure)
  // What the summary asks of either engine: this one has no RTL, no lockstep and no LLR partners.
  std::optional<Mismatch> mismatch() const { return std::nullopt; }
  std::string model_assertion() const { return ""; }
  const std::vector<const llr_tb::LinkEngine*>& llr_rtl() const { return no_llr_; }

 private:
  struct Cmd {
    uint32_t src = 0, dst = 0, aux = 0;
    uint64_t id = 0;
    uint16_t dlen = 0, q = 0;
    uint8_t vc = 0, op = 0;
  };
  struct Port;
  struct FNic;
  struct Xpu;
  enum Kind : uint8_t { kGen = 0, kDrv = 1, kNic = 2 };
  struct Ev {
    uint64_t at;
    uint32_t key;  // the entity (slot())
    bool operator>(const Ev& o) const { return at != o.at ? at > o.at : key > o.key; }
  };

  std::vector<std::unique_ptr<FNic>> nics_;  // xpu * M + instance
  std::vector<Xpu> xpus_;
  std::vector<sue::NicFrame> frames_;  // in a wire or a switch; index = sw::Packet::id
  // Event calendar: for each of the next kRing edges a bit set over the entities (slot(): generators,
  // then XPU interfaces, then NICs, so an edge's entities come out in that order by index), a heap
  // beyond (its stale entries, an entity rescheduled earlier, are skipped by their sched_ mark).
  static constexpr uint64_t kRing = 4096;
  size_t words_ = 0;                // 64-bit words per edge
  std::vector<uint64_t> ring_bits_;  // [(edge mod kRing) * words_ + w]
  std::vector<uint32_t> ring_cnt_;   // entities set per edge
  uint64_t ring_base_ = 0;           // the ring holds edges [ring_base_, ring_base_ + kRing)
  size_t ring_count_ = 0;
  std::vector<Ev> far_;              // min-heap of events at or beyond ring_base_ + kRing
  std::vector<uint64_t> sched_;      // per entity: the edge it is scheduled for (kNoEdge: none)
  // run_windows runs XPU by XPU (run_xpu) and needs no calendar: sched_ alone, each XPU's few entities
  // scanned for their minimum. An entity scheduled before floor_ (the edge being run) runs at floor_.
  bool use_ring_ = true;
  uint64_t floor_ = 0;
  struct HeldCredit {  // a switch's credit update to a NIC, held to the end of the window's switch phase
    core::Ps t;        // the switch edge it left at
    unsigned plane, nic, port, cls;
    uint32_t value;
    uint64_t at;
  };
  std::vector<HeldCredit> held_cu_;
  size_t slot_base_[3] = {0, 0, 0};  // first slot of generators, XPU interfaces, NICs
  uint64_t done_edge_ = 0;   // the NIC side has run every edge before this one
  uint64_t sync_edges_ = 0;  // SUE edges per synchronous window (0: run_lockstep)
  bool window_open_ = false;
  unsigned ar_done_ = 0;       // XPUs done with the all-reduce
  uint64_t ar_last_edge_ = 0;  // the edge the last of them finished at
  double tokens_cap_ = 0;      // an XPU's token bucket holds at most this (as System::generate)
  std::vector<const llr_tb::LinkEngine*> no_llr_;

  uint64_t edge_at(core::Ps t) const {  // the first SUE edge at or after t
    return t <= 0 ? 0 : static_cast<uint64_t>((t + cfg_.clock_ps - 1) / cfg_.clock_ps);
  }
  size_t slot(Kind k, uint32_t i) const { return slot_base_[k] + i; }
  void schedule(Kind k, uint32_t i, uint64_t at) {  // at == kNever or later than the entity's edge: nothing to do
    const size_t e = slot_base_[k] + i;
    if (at >= sched_[e]) return;
    if (use_ring_)
      schedule_at(e, at);
    else
      sched_[e] = std::max(at, floor_);
  }
  void schedule_at(size_t e, uint64_t at);
  uint32_t alloc_frame() { return alloc_slot(frames_); }
  void release_frame(uint32_t f) { free_slot(f); }
  uint64_t next_edge();
  void advance_ring(uint64_t base);

  void run_lockstep(uint64_t c);
  void run_windows(uint64_t c);
  [[noreturn]] void window_violation(const char* what, uint64_t at) const;
  void edge(uint64_t x);
  void run_xpu(unsigned a, uint64_t e1);
  template <bool kOne>
  void run_xpu_m(unsigned a, uint64_t e1);  // kOne: one instance per XPU
  void switch_tick(unsigned pl);
  [[gnu::always_inline]] inline void generate(unsigned a, uint64_t x);  // (into the loops that run it)
  void queue_cmd(unsigned a, unsigned m, unsigned dst, unsigned vc, Op op, unsigned dlen, unsigned aux,
                 bool response, uint64_t x);
  [[gnu::always_inline]] inline void drive(unsigned ni, uint64_t x);
  void nic_edge(unsigned ni, uint64_t x);
  // nic_edge's per frame and per command steps, folded into it (one call site each).
  [[gnu::always_inline]] inline void frame_out(FNic& n, uint32_t fi);
  [[gnu::always_inline]] inline void sink(FNic& n, const sue::NicDelivery& d, uint64_t x);
  void open_window();
};

}  // namespace tb::system_tb
