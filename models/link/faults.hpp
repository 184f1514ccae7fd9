// Fault injection on one link direction (lnk::Channel::attach): frame drops
// (chosen indices, bursts, random), bit errors, control-word loss, corruption
// and delay, link-down windows and PFC pause windows. Used by the link layer
// retry (LLR) testbench and, later, by the switch.
//
// Determinism. Randomness comes from two named streams of the run seed:
// frames draw from core::Rng(seed, stream) and control words from
// core::Rng(seed, stream + "/ctl"). Every frame draws exactly two uniforms
// (drop, bit errors) and every control word exactly three (drop, corrupt, bit
// errors), whatever the configuration and whatever the outcome (also when a
// link-down window or a chosen index already decided it). Each fault fires when
// its uniform is below its probability. Consequences:
//  - the same (seed, stream, config, sequence of items) gives the same faults;
//  - the fate of frame i depends only on i, its length and the configuration,
//    never on how many control words were interleaved (and vice versa), so a
//    testbench whose control traffic changes does not reshuffle frame faults;
//  - changing one probability changes only the outcomes of that fault, and
//    monotonically: raising drop_prob drops a superset of the frames it dropped
//    before (those not dropped keep their bit-error outcome).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/time.hpp"
#include "link/link.hpp"

namespace lnk {

struct FaultConfig {
  /// Bit error rate: a frame of L bytes (Ethernet overhead not counted) is
  /// corrupted with probability 1-(1-ber)^(8L), a control word with 1-(1-ber)^64.
  double ber = 0;
  /// Frame error rate: each frame additionally fails its FCS (arrives with
  /// ok=false) with this probability, whatever its length. Combined with ber a
  /// frame is corrupted with probability 1-(1-fer)(1-ber)^(8L). It uses the
  /// frame's bit-error draw, so fer = 0 leaves every outcome as before.
  double fer = 0;
  /// Each frame dropped with this probability.
  double drop_prob = 0;
  /// Frame indices on this channel (0 = first frame sent) to drop.
  std::vector<uint64_t> drop_frames;
  struct Burst {
    uint64_t first_frame;
    uint64_t count;
  };
  /// `count` consecutive frames from index `first_frame` dropped.
  std::vector<Burst> bursts;
  /// Each control word lost with this probability.
  double ctl_drop_prob = 0;
  /// Each control word corrupted (arrives with ok=false) with this probability.
  double ctl_corrupt_prob = 0;
  struct CtlWindow {
    core::Ps start = 0, end = 0;
    int kind = -1;     ///< -1 any kind, else (int)Ctl::Kind
    bool drop = true;  ///< true: dropped; false: delayed by `delay`
    core::Ps delay = 0;
  };
  /// Control words of `kind` whose transmission starts in [start,end): dropped,
  /// or delayed. When several windows match, the first one in the list applies.
  std::vector<CtlWindow> ctl_windows;
  struct Window {
    core::Ps start = 0, end = 0;
  };
  /// Link down: any item that starts on the wire in [start,end), or would
  /// arrive in [start,end), is lost. (An item sent before a window and arriving
  /// after it is not: windows shorter than the flight time leave such items.)
  std::vector<Window> down;
  struct Pause {
    core::Ps start = 0, end = 0;
    uint32_t cls = 0;
  };
  /// PFC pause of class `cls` asserted toward the sender in [start,end).
  std::vector<Pause> pauses;

  /// "" when valid, else ONE line naming the first bad field and the allowed
  /// range: probabilities (ber, fer, drop_prob, ctl_*) in [0,1] (NaN rejected), windows 0 <= start <= end,
  /// ctl window kind -1..5 and delay >= 0, pause class 0..31.
  std::string validate() const;
  /// True when some configured fault can affect something: a probability > 0 (fer included),
  /// a chosen frame, a burst with count > 0, a non-empty window (a ctl delay
  /// window needs delay > 0).
  bool any() const;
};

class FaultInjector {
 public:
  /// Throws std::invalid_argument(cfg.validate()) for an invalid config.
  FaultInjector(const FaultConfig& cfg, uint64_t seed, const std::string& stream);

  enum class Verdict { pass, drop, corrupt };
  struct Decision {
    Verdict verdict = Verdict::pass;
    core::Ps extra_delay = 0;
  };
  /// Fate of the next frame on the channel: call once per frame, in send order.
  /// `t_start` is when its first bit goes on the wire, `t_arrive` when it would
  /// arrive without faults. Checks, first match wins: link down > chosen index
  /// or burst > random drop > frame / bit errors (corrupt). Frames are never delayed.
  Decision on_frame(core::Ps t_start, core::Ps t_arrive, const Frame& f);
  /// Fate of the next control word. Checks: link down > ctl window (drop, or a
  /// delay: the word goes on, and is lost if its delayed arrival falls in a down
  /// window) > random drop > random corrupt > bit errors (corrupt). A delayed
  /// word can still be dropped or corrupted by the random checks.
  Decision on_ctl(core::Ps t_start, core::Ps t_arrive, const Ctl& c);

  /// Bit c set when PFC class c is paused at time t.
  uint32_t paused_mask(core::Ps t) const;
  /// True when t lies in a link-down window.
  bool link_down(core::Ps t) const;

  /// frames / ctl: items seen. frames_dropped / ctl_dropped: never arrive (any
  /// cause, link down included); lost_link_down: the part of both lost to link
  /// down. frames_corrupted / ctl_corrupted: arrive with ok=false. ctl_delayed:
  /// arrive late (a delayed word that is then lost is counted as dropped only).
  struct Stats {
    uint64_t frames = 0, frames_dropped = 0, frames_corrupted = 0, ctl = 0, ctl_dropped = 0, ctl_corrupted = 0,
             ctl_delayed = 0, lost_link_down = 0;
  };
  const Stats& stats() const { return stats_; }
  const FaultConfig& config() const { return cfg_; }

 private:
  /// One engine output mapped to [0,1) (53 bits): exactly one draw per call.
  static double uniform(core::Rng& r);
  bool chosen(uint64_t index) const;

  FaultConfig cfg_;
  std::vector<uint64_t> drop_sorted_;
  double log1m_ber_ = 0;  ///< log(1 - ber)
  double log1m_fer_ = 0;  ///< log(1 - fer)
  double ctl_ber_p_ = 0;  ///< 1-(1-ber)^64
  core::Rng frame_rng_, ctl_rng_;
  Stats stats_;
};

}  // namespace lnk
