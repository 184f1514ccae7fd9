// The LLR system: two link partners A and B, each with its MAC client (a
// traffic source and a delivery monitor) and an `llr` block (RTL, model, or
// RTL in lockstep with its model), joined by the link in both directions with
// the fault injector on each channel. End-to-end scoreboards per direction:
// every eligible frame arrives exactly once, in order, intact, unless a flush
// discarded it (counted apart). Plain C++ cycle loop; the SystemC testbench
// clocks it from one process.
#pragma once
#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/rng.hpp"
#include "core/scoreboard.hpp"
#include "core/stats.hpp"
#include "link/faults.hpp"
#include "link/link.hpp"
#include "llr/llr_blocks.hpp"

namespace tb::llr_tb {

struct EnvConfig {
  llr::Params params;
  llr::Cfg cfg;
  lnk::Params link;
  lnk::FaultConfig faults;     ///< applied to both directions (each channel its own random stream)
  core::Ps clock_ps = 1000;
  uint64_t seed = 1;
  unsigned reset_cycles = 4;
  // traffic (per partner)
  double load = 1.0;           ///< offered load, fraction of the link rate
  double eligible_ratio = 1.0; ///< share of LLR-eligible frames
  uint32_t len_min = 64, len_max = 1500;
  unsigned classes = 2;        ///< traffic classes used (1..2^ClassWidth)
  bool bidir = true;           ///< B sends too
};

/// A state change of a partner's TX or RX state machine.
struct Event {
  uint64_t cycle = 0;
  core::Ps time = 0;
  char side = 'A';
  std::string machine;  ///< "tx" or "rx"
  std::string from, to;
};

class System {
 public:
  System(const EnvConfig& cfg, std::unique_ptr<LlrBlock> a, std::unique_ptr<LlrBlock> b, Waves* waves);

  void cycle();
  void stop_traffic() { traffic_ = false; }
  /// No frame anywhere: sources stopped, nothing in flight, buffers empty, scoreboards settled.
  bool idle() const;
  uint64_t cycles() const { return cycle_; }
  core::Ps now() const { return static_cast<core::Ps>(cycle_) * cfg_.clock_ps + cfg_.clock_ps / 2; }
  const EnvConfig& config() const { return cfg_; }

  struct Side {
    Side(char n, std::unique_ptr<LlrBlock> b, const lnk::Params& lp) : name(n), blk(std::move(b)), chan(lp) {}
    char name;
    std::unique_ptr<LlrBlock> blk;
    LockstepLlr* lock = nullptr;
    lnk::Channel chan;  ///< this partner's transmit direction
    std::unique_ptr<lnk::FaultInjector> faults;
    std::deque<lnk::Item> arrivals;  ///< items that reached this partner, one per cycle into r_*
    llr::Out out;
    // source
    std::optional<lnk::Frame> head;
    double src_tokens = 0;
    uint64_t next_id = 1;
    // checking of what this partner sends, at the far side
    core::Scoreboard strict{"", true};        ///< eligible frames: exactly once, in order
    core::Scoreboard best{"", false};         ///< ineligible and best-effort frames: may be lost
    struct Pending {
      uint64_t id;
      core::Ps first_sent = -1;  ///< first time on the wire (-1: not yet)
    };
    std::deque<Pending> expect;  ///< eligible frames in client order
    std::unordered_map<uint64_t, lnk::Frame> by_token;  ///< frames handed to the block, by token
    core::Ps last_flush = -1;
    uint64_t discarded = 0;        ///< eligible frames lost to flushes (accounted, not failures)
    uint64_t demoted = 0;          ///< eligible frames the block sent ineligible (best effort)
    uint64_t replayed_frames = 0;  ///< distinct frames replayed at least once
    std::unordered_map<uint64_t, int> wire_count;  ///< times each token went on the wire
    core::Samples latency_ns, latency_replayed_ns;
    uint64_t bytes_delivered = 0;  ///< eligible bytes delivered at the far side (goodput)
    uint32_t max_out_frames = 0, max_out_bytes = 0;
    uint64_t credit_stall = 0;  ///< cycles the client had a frame and c_ready was low
  };
  Side& a() { return a_; }
  Side& b() { return b_; }
  const Side& a() const { return a_; }
  const Side& b() const { return b_; }
  const std::vector<Event>& events() const { return events_; }
  uint64_t event_count() const { return event_count_; }
  std::optional<Mismatch> mismatch() const;
  bool mismatched() const { return (a_.lock && a_.lock->mismatch()) || (b_.lock && b_.lock->mismatch()); }
  /// Settles the scoreboards: frames still expected and sent before a flush are discarded, the rest lost.
  void finish();
  /// Goodput window (eligible bytes delivered at each far side between warm-up and the end of traffic).
  void set_window(uint64_t start_cycle) { win_start_cycle_ = start_cycle; }
  double goodput_gbps(const Side& s) const;

 private:
  EnvConfig cfg_;
  Waves* waves_;
  Side a_, b_;
  core::Rng rng_;
  uint64_t cycle_ = 0;
  bool traffic_ = true;
  unsigned reset_left_;
  std::vector<Event> events_;
  uint64_t event_count_ = 0;
  uint64_t win_start_cycle_ = 0;
  core::Ps win_start_ = -1, win_end_ = 0;
  std::array<uint64_t, 2> win_bytes_{};

  void step_side(Side& me, Side& peer, llr::In& in, core::Ps t);
  void deliver(Side& sender, const llr::Out& o, core::Ps t);
  uint64_t digest(char side, uint64_t id, uint32_t len, uint32_t cls) const;
  lnk::Frame new_frame(Side& s, core::Ps t);
  void log_state(Side& s, const llr::Out& before, const llr::Out& after);
};

const char* tx_state_name(uint32_t s);
const char* rx_state_name(uint32_t s);

}  // namespace tb::llr_tb
