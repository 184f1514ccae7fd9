// namespace lnk (not `link`: POSIX declares ::link()).
// The link between two link partners: one Channel per direction.
// A channel serializes frames and control words at the line rate, then adds the
// PHY/FEC latency and the cable's propagation delay. Times are picoseconds.
// Faults (drops, bit errors, control-word loss/delay, link down) come from an
// optional lnk::FaultInjector attached to the channel (link/faults.hpp).
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <variant>

#include "core/time.hpp"

namespace lnk {

using core::Ps;

enum class Cable { smf, hcf, twinax };

/// Propagation delay per metre (SUE specification, appendix A).
constexpr Ps ps_per_meter(Cable c) {
  switch (c) {
    case Cable::smf: return 4960;     // single-mode fiber 4.96 ns/m
    case Cable::hcf: return 3500;     // hollow-core fiber 3.5 ns/m
    case Cable::twinax: return 4600;  // twinax copper 4.6 ns/m
  }
  return 0;
}
const char* to_string(Cable c);
/// "smf", "hcf", "twinax"; false when unknown.
bool parse_cable(const std::string& s, Cable& out);

/// Default one-way PHY + PCS + FEC latency (TX encode + RX decode) of one
/// channel, ns. The SUE spec leaves it open (section 3.5.4 only ranks RS-544
/// against RS-272); 60 ns is our documented assumption for a non-interleaved
/// RS-544 800G port and is a setting everywhere (`fec_latency_ns`).
constexpr double kDefaultFecLatencyNs = 60.0;
/// Preamble + SFD (8 bytes) + minimum inter-frame gap (12 bytes).
constexpr uint32_t kEthernetOverheadBytes = 20;
/// A link control word (credit update, ACK, NACK...) occupies one 64b/66b block.
constexpr uint32_t kControlWordBytes = 8;

struct Params {
  double rate_gbps = 800.0;
  Cable cable = Cable::twinax;
  double length_m = 2.0;
  double fec_latency_ns = kDefaultFecLatencyNs;
  uint32_t overhead_bytes = kEthernetOverheadBytes;
  uint32_t ctl_bytes = kControlWordBytes;

  /// Empty when valid, else one line naming the bad field and its range.
  std::string validate() const;
  Ps propagation() const { return static_cast<Ps>(length_m * static_cast<double>(ps_per_meter(cable)) + 0.5); }
  Ps fec_latency() const { return core::ns(fec_latency_ns); }
  /// Wire time of `bytes` (rounded up to whole ps).
  Ps serialization(uint64_t bytes) const;
  /// Fixed latency after the last bit leaves: FEC + cable.
  Ps flight() const { return fec_latency() + propagation(); }
};

/// A frame as the link sees it. `digest` stands for the payload: the
/// scoreboard compares it end to end to detect corruption.
struct Frame {
  uint64_t id = 0;
  uint32_t cls = 0;
  uint32_t len = 0;  ///< bytes, without preamble and IFG
  uint64_t digest = 0;
  Ps t_created = 0;
  // Link layer retry (LLR) fields: carried in the protected preamble, so they
  // stay readable even when the payload is corrupted.
  uint32_t seq = 0;        ///< LLR sequence number
  bool eligible = false;   ///< LLR-eligible (kept in the replay buffer)
  bool replay = false;     ///< a retransmission from the replay buffer
  bool ok = true;          ///< false: the payload is corrupted, the FCS check fails at the receiver
};

/// A link control word between frames.
struct Ctl {
  enum class Kind : uint8_t { credit, ack, nack, init, init_echo, pause };
  Kind kind = Kind::credit;
  uint32_t cls = 0;
  uint32_t value = 0;
  bool ok = true;  ///< false: the control word arrived corrupted
};

using Item = std::variant<Frame, Ctl>;

class FaultInjector;

/// One direction of a link.
class Channel {
 public:
  explicit Channel(const Params& p) : p_(p) {}

  /// Faults applied to every item sent from now on (nullptr: none). The
  /// injector is not owned and must outlive its use; copies of the channel
  /// share it. A dropped item still occupies the wire for its serialization
  /// time and counts as sent; it just never arrives. A corrupted item arrives
  /// with ok=false; a delayed one arrives later (possibly after items sent
  /// after it: receive() always returns items in arrival order).
  void attach(FaultInjector* f) { faults_ = f; }
  FaultInjector* faults() const { return faults_; }

  /// True when the transmitter can start an item at `now`.
  bool idle(Ps now) const { return wire_free_ <= now; }
  Ps wire_free_at() const { return wire_free_; }
  /// Starts `item` at max(now, end of the item on the wire); returns the time
  /// its last bit leaves the transmitter.
  Ps send(Ps now, const Item& item);
  /// Moves the next item that has completely arrived by `now` into `out`
  /// (earliest arrival first; equal arrival times in send order).
  bool receive(Ps now, Item& out);
  /// Arrival time of the next item to arrive (or -1).
  Ps next_arrival() const { return q_.empty() ? -1 : q_.front().arrive; }
  size_t in_flight() const { return q_.size(); }

  uint64_t frames_sent() const { return frames_; }
  uint64_t ctl_sent() const { return ctls_; }
  uint64_t bytes_sent() const { return bytes_; }
  Ps busy_time() const { return busy_; }
  const Params& params() const { return p_; }

 private:
  struct InFlight {
    Ps arrive;
    Item item;
  };
  Params p_;
  Ps wire_free_ = 0;
  std::deque<InFlight> q_;  ///< sorted by arrival time, stable (send order for ties)
  FaultInjector* faults_ = nullptr;
  uint64_t frames_ = 0, ctls_ = 0, bytes_ = 0;
  Ps busy_ = 0;
};

}  // namespace lnk
