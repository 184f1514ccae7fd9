// The CBFC system: a traffic source, the sender (cbfc_tx), the link in both
// directions, the receiver (cbfc_rx) with its buffer and a drain, and the
// end-to-end scoreboard. Plain C++ cycle loop; each side is RTL, model, or
// RTL in lockstep with its model. The SystemC testbench clocks it from one
// process; benchmarks and buffer sweeps run it in a plain loop.
#pragma once
#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cbfc/cbfc_blocks.hpp"
#include "core/rng.hpp"
#include "core/scoreboard.hpp"
#include "core/stats.hpp"
#include "link/faults.hpp"
#include "link/link.hpp"

namespace tb::cbfc_tb {

struct EnvConfig {
  cbfc::Params params;
  lnk::Params link;
  core::Ps clock_ps = 1000;  ///< 1 GHz
  uint64_t seed = 1;
  unsigned reset_cycles = 4;
  // traffic
  unsigned active_classes = 4;   ///< classes 0..n-1 carry traffic
  uint32_t len_min = 256, len_max = 2048;
  double load = 1.0;             ///< offered load, fraction of the link rate
  // receiver
  uint32_t buffer_bytes = 32768; ///< per class
  uint32_t threshold = 8;        ///< credits
  uint32_t timer = 64;           ///< cycles (0 = off)
  uint32_t refresh = cbfc::kRecommendedRefresh;  ///< cycles without an update before a class's limit is resent (0 = off)
  double cu_loss = 0.0;          ///< chance that a credit update is lost on the reverse channel
  double drain_ratio = 0.5;      ///< drain rate, fraction of the link rate
  // stress (block testbench): protocol violations and resets on purpose
  bool stress = false;
  double p_drain = 0.5;          ///< stress: chance a frame is drained per cycle
  double p_bad_tx = 0.0;         ///< send without credits
  double p_bad_cu = 0.0;         ///< bogus credit update
  double p_bad_class = 0.0;      ///< class index out of range
  double p_bad_free = 0.0;       ///< free of a frame that is not there
  double p_reset = 0.0;          ///< mid-run reset with a new random configuration

  /// Buffer per class in credits (saturated to what the counters can hold).
  uint32_t buf_credits() const;
};

struct ClassStats {
  uint64_t frames_sent = 0, bytes_sent = 0;
  uint64_t frames_drained = 0, bytes_drained = 0;
  uint64_t stall_cycles = 0;     ///< head frame waiting for credits while the wire was free
  uint64_t updates = 0;          ///< credit updates delivered to the sender
  uint64_t updates_sent = 0;     ///< credit updates the receiver sent (cu_valid_o)
  uint64_t refreshes = 0;        ///< of those, refreshes that carried no new credit (limit unchanged)
  uint64_t updates_lost = 0;     ///< credit updates lost on the reverse channel (cu_loss)
  uint64_t max_wait_cycles = 0;  ///< longest a head frame waited for credits (cycles)
  uint32_t max_occ = 0;          ///< credits (from occ_o)
};

class System {
 public:
  System(const EnvConfig& cfg, std::unique_ptr<TxBlock> tx, std::unique_ptr<RxBlock> rx, Waves* waves);

  /// One clock cycle: the environment reacts to the outputs after the last
  /// edge, drives the inputs, then the rising edge. Waves dumped at both edges.
  void cycle();
  /// Stops the source; frames in flight still drain. Head frames still
  /// waiting for credits stop waiting (their wait counts up to here).
  void stop_traffic();
  /// No frame left anywhere (scoreboard, link, buffers, ingress) and the
  /// credits settled: with the timer or the refresh on, every credit back at
  /// the sender (refreshes may still be on their way: they carry nothing new);
  /// with both off, no update left on its way.
  bool idle() const;
  /// Credits of class c neither available at the sender nor pending at the
  /// receiver (nor anywhere in between once idle): lost for good.
  int64_t missing_credits(unsigned c) const;
  /// Lost credit update -> an update carrying at least its limit reaches the sender (ns).
  const core::Samples& recovery_ns() const { return recovery_; }
  /// Lost updates that carried nothing the sender did not already have (refreshes of an up-to-date limit).
  uint64_t lost_redundant() const { return lost_redundant_; }
  /// Longest a head frame waited for credits while traffic ran, one still waiting included (cycles).
  uint64_t max_wait_cycles(unsigned c) const;
  /// Credit-update loss injector of the reverse channel (null when cu_loss = 0).
  const lnk::FaultInjector* cu_faults() const { return cu_faults_.get(); }

  uint64_t cycles() const { return cycle_; }
  /// Time of this cycle's rising edge (the falling edge is half a period earlier).
  core::Ps now() const { return static_cast<core::Ps>(cycle_) * cfg_.clock_ps + cfg_.clock_ps / 2; }
  const EnvConfig& config() const { return cfg_; }
  core::Scoreboard& scoreboard() { return sb_; }
  const std::array<ClassStats, cbfc::kMaxClasses>& class_stats() const { return cls_; }
  /// Sender-side credit loop: frame sent -> its credits back at the sender (ns).
  const core::Samples& credit_loop_ns() const { return loop_; }
  /// Bytes drained between the end of warm-up and the end of traffic.
  uint64_t window_bytes() const { return win_bytes_; }
  core::Ps window_time() const { return win_end_ - win_start_; }
  void set_window(uint64_t start_cycle) { win_start_cycle_ = start_cycle; }
  /// First sticky error seen on an RTL/model output (non-stress runs), if any.
  const std::optional<std::string>& protocol_error() const { return proto_err_; }
  /// Lockstep mismatch of either side, if lockstep is on.
  std::optional<Mismatch> mismatch() const;
  /// Cheap per-cycle check: a lockstep mismatch has been seen.
  bool mismatched() const { return (ltx_ && ltx_->mismatch()) || (lrx_ && lrx_->mismatch()); }
  /// Block outputs after the last rising edge.
  const cbfc::TxOut& tx_out() const { return to_; }
  const cbfc::RxOut& rx_out() const { return ro_; }
  uint64_t resets() const { return resets_; }
  /// Cycles in which each sticky error output was set (stress coverage).
  struct ErrorCycles {
    uint64_t tx_underflow = 0, tx_overflow = 0, tx_class = 0, rx_overflow = 0, rx_underflow = 0, rx_class = 0;
  };
  const ErrorCycles& error_cycles() const { return errc_; }
  const lnk::Channel& fwd() const { return fwd_; }
  const lnk::Channel& rev() const { return rev_; }

  TxBlock& tx() { return *tx_; }
  RxBlock& rx() { return *rx_; }

 private:
  struct Pending {  // a frame in the receiver's buffer
    lnk::Frame f;
  };
  struct Sent {
    uint64_t consumed_after;  // env's 64-bit cumulative credits of the class after this frame
    core::Ps t;
  };
  EnvConfig cfg_;
  std::unique_ptr<TxBlock> tx_;
  std::unique_ptr<RxBlock> rx_;
  Waves* waves_;
  LockstepTx* ltx_ = nullptr;
  LockstepRx* lrx_ = nullptr;
  cbfc::TxOut to_;
  cbfc::RxOut ro_;
  lnk::Channel fwd_, rev_;
  core::Rng rng_traffic_, rng_drain_, rng_stress_;
  core::Scoreboard sb_;
  uint64_t cycle_ = 0;
  bool traffic_ = true;
  unsigned reset_left_;
  cbfc::TxCfg txcfg_;
  cbfc::RxCfg rxcfg_;
  std::deque<lnk::Frame> ingress_;
  std::array<std::deque<lnk::Frame>, cbfc::kMaxClasses> buf_;
  std::array<std::optional<lnk::Frame>, cbfc::kMaxClasses> head_;
  std::deque<lnk::Ctl> cu_q_;
  std::array<std::deque<Sent>, cbfc::kMaxClasses> inflight_credit_;
  std::array<uint64_t, cbfc::kMaxClasses> consumed64_{}, returned64_{};
  std::array<uint32_t, cbfc::kMaxClasses> last_limit_{};
  // Updates as sent by the receiver: 64-bit cumulative limit, last limit sent,
  // and the updates lost on the way (their cumulative limit and send time).
  struct Lost {
    uint64_t limit64;
    core::Ps t;
  };
  std::array<uint64_t, cbfc::kMaxClasses> sent64_{};
  std::array<uint32_t, cbfc::kMaxClasses> last_sent_limit_{};
  std::array<std::deque<Lost>, cbfc::kMaxClasses> lost_;
  std::array<std::optional<uint64_t>, cbfc::kMaxClasses> wait_since_;  // cycle the head frame first lacked credits
  std::unique_ptr<lnk::FaultInjector> cu_faults_;
  core::Rng rng_refresh_;
  core::Samples recovery_;
  uint64_t lost_redundant_ = 0;
  std::array<ClassStats, cbfc::kMaxClasses> cls_{};
  unsigned rr_src_ = 0, rr_drain_ = 0;
  double drain_tokens_ = 0, drain_per_cycle_ = 0, src_tokens_ = 0, src_per_cycle_ = 0;
  uint64_t next_id_ = 1;
  core::Samples loop_;
  uint64_t win_start_cycle_ = 0;
  core::Ps win_start_ = 0, win_end_ = 0;
  uint64_t win_bytes_ = 0;
  std::optional<std::string> proto_err_;
  uint64_t resets_ = 0;
  ErrorCycles errc_;

  void reset_env(bool randomize);
  lnk::Frame new_frame(unsigned cls);
  uint64_t digest(uint64_t id, unsigned cls, uint32_t len) const;
  void check_errors(const cbfc::TxOut& to, const cbfc::RxOut& ro);
};

}  // namespace tb::cbfc_tb
