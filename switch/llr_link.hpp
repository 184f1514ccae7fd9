// sw::LlrLink: one point-to-point link of the switch model with link layer retry
// (docs/switch.md "LLR on links"): an llr::Model at each link partner (side A and
// side B, each holding the TX half of its direction and the RX half of the other),
// one lnk::Channel per direction with an optional lnk::FaultInjector, ACK/NACK/INIT
// control words sharing the wire of the reverse direction. Frames carry a switch
// Packet: token = packet id, length = packet bytes, class = packet class; frames of
// lossless classes are LLR-eligible (kept and replayed), those of lossy classes not.
// Plain C++, clocked by the caller (one edge() per LLR clock edge). Used by
// sw::Harness for every host <-> switch link; a switch <-> switch link is the same
// object with a switch on both sides. Each partner is an LlrEngine: the llr::Model
// by default, or whatever a testbench puts behind the interface (the `system`
// testbench: the verilated llr RTL, alone or in lockstep with its model); this
// layer never sees a verilated header.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "link/faults.hpp"
#include "link/link.hpp"
#include "llr/llr.hpp"
#include "switch/switch.hpp"

namespace sw {

/// The LLR control word types (llr::CtlType) as the link carries them (lnk::Ctl::Kind) and back;
/// shared by every place an llr::Model talks over an lnk::Channel (sw::LlrLink, tb/llr).
lnk::Ctl::Kind llr_ctl_kind(uint32_t llr_ctl_type);
uint32_t llr_ctl_type(lnk::Ctl::Kind kind);
/// Presents one item that arrived over an lnk::Channel to an llr::Model's receive inputs (r_*): a frame
/// (a bad one with its token scrambled, as a bad payload would) or a control word (a bad one inverted).
void llr_receive(const lnk::Item& item, llr::In& in);

/// One direction of a link, since construction or reset_stats().
struct LinkStats {
  uint64_t frames = 0;           ///< frames sent the first time
  uint64_t frames_replayed = 0;  ///< frames sent again from the LLR replay buffer
  uint64_t replays = 0;          ///< replay runs (go-back-N from a NACK or the replay timer)
  uint64_t nacks = 0;            ///< NACKs the receiver sent about this direction
  uint64_t acks = 0;             ///< ACKs the receiver sent about this direction
  uint64_t bad_frames = 0;       ///< frames that arrived with a bad FCS (dropped by the receiver)
  uint64_t dropped_frames = 0;   ///< frames lost on the wire (never arrived)
  uint64_t lost_pkts = 0;        ///< packets lost on this wire (a bad or dropped frame without LLR, or of a lossy class)
  uint64_t flushes = 0;          ///< LLR flushes (retry limit)
  uint32_t buf_frames_max = 0;   ///< LLR replay buffer occupancy at the sender, frames, max
  uint32_t buf_bytes_max = 0;    ///< same in bytes
  uint64_t delivered_pkts = 0, delivered_bytes = 0;  ///< handed to the far end (goodput)
  size_t txq_max = 0;            ///< packets waiting for the sender's LLR TX (MAC TX FIFO), max
  /// Sums the counters of another direction (or link); the maxima take the larger.
  LinkStats& operator+=(const LinkStats& y);
};

/// One LLR link partner (TX and RX halves of rtl/llr/llr.sv) as LlrLink clocks it: the C++ model
/// (the default) or a testbench's block (e.g. verilated RTL) behind the same two calls.
class LlrEngine {
 public:
  virtual ~LlrEngine() = default;
  /// One rising clock edge at time `t` with these inputs (the constructor's reset edge: t = 0).
  virtual void tick(const llr::In& in, Ps t) = 0;
  /// Outputs after the last edge.
  virtual llr::Out outputs() const = 0;
};

/// The default engine: llr::Model.
class LlrModelEngine final : public LlrEngine {
 public:
  explicit LlrModelEngine(const llr::Params& p) : m_(p) {}  // throws on bad llr::Params
  void tick(const llr::In& in, Ps) override { m_.tick(in); }
  llr::Out outputs() const override { return m_.outputs(); }
  const llr::Model& model() const { return m_; }

 private:
  llr::Model m_;
};

struct LlrLinkParams {
  lnk::Params wire;            ///< both directions (A->B; B->A too unless wire_ba): rate, preamble + IFG, control-word bytes, fixed delay (flight)
  std::optional<lnk::Params> wire_ba;  ///< direction B->A when it differs from `wire` (e.g. other PHY latencies each way)
  lnk::FaultConfig faults;     ///< both directions, each its own random stream
  llr::Params llr;             ///< RTL parameters of both partners
  llr::Cfg cfg;                ///< configuration of both partners
  Ps period = 1000;            ///< LLR clock period (the caller calls edge() once per period)
  uint32_t eligible_classes = 0xff;  ///< bit c: class c is LLR-eligible (the lossless classes)
};

class LlrLink {
 public:
  enum Side : unsigned { A = 0, B = 1 };
  /// A frame delivered by the RX half of a side.
  struct Delivery {
    Packet p;
    Ps first_bit = 0;       ///< first bit of its first transmission on the wire
    bool replayed = false;  ///< sent more than once
  };

  /// Resets both partners (one reset edge, no simulated time); the INIT handshake runs in the first edges.
  /// Throws std::invalid_argument on bad parameters. `stream`: fault streams "<stream>.ab" / "<stream>.ba".
  /// `a`, `b`: the partners' engines (nullptr: an LlrModelEngine with p.llr); each gets the reset edge here.
  LlrLink(const LlrLinkParams& p, uint64_t seed, const std::string& stream, std::unique_ptr<LlrEngine> a = nullptr,
          std::unique_ptr<LlrEngine> b = nullptr);

  /// Queues `p` for side `s`'s TX (its MAC TX FIFO); the FIFO head is handed to the LLR TX at the
  /// first edge its c_ready allows. Unbounded: callers that must not run ahead check can_take().
  void offer(Side s, const Packet& p);
  /// Side `s`'s TX takes a packet at the next edge and nothing waits before it.
  bool can_take(Side s) const { return q_[s].empty() && out_[s].c_ready; }
  size_t queued(Side s) const { return q_[s].size(); }

  /// One LLR clock edge at time T (both partners; wire items go out at max(T, wire free)).
  void edge(Ps T);
  /// Outputs of the last edge: frames delivered by side `s`'s RX (sent by the other side), packets
  /// lost for good on the wire toward `s` (ineligible frames), and the wire time side `s`'s wire
  /// spent this edge on items its client did not send (control words, replays, and the rest of the
  /// LLR cycle after a control word while a frame waits behind it).
  const std::vector<Delivery>& delivered(Side s) const { return dlv_[s]; }
  const std::vector<Packet>& lost(Side s) const { return lost_[s]; }
  Ps unscheduled(Side s) const { return unsched_[s]; }

  /// Direction A->B (`s` = A) or B->A (`s` = B).
  LinkStats stats(Side from) const;
  void reset_stats();
  bool up() const { return out_[A].tx_state == llr::kAdvance && out_[B].tx_state == llr::kAdvance; }
  /// Packets in flight or held anywhere in the link (FIFOs, replay buffers, wires).
  size_t in_flight() const { return q_[A].size() + q_[B].size() + held_[A].size() + held_[B].size(); }
  /// Those packets sent by side `from` (its MAC TX FIFO, then what its TX holds, by id): what a link that
  /// fails loses (tb/system's fail_plane).
  std::vector<Packet> held(Side from) const;
  const LlrEngine& engine(Side s) const { return *m_[s]; }
  const llr::Out& outputs(Side s) const { return out_[s]; }

 private:
  struct Held {
    Packet p;
    Ps first_bit = -1;
    int sends = 0;
  };
  LlrLinkParams p_;
  uint32_t smask_;
  std::array<std::unique_ptr<LlrEngine>, 2> m_;
  std::array<llr::Out, 2> out_;
  std::array<lnk::Channel, 2> chan_;                     // chan_[s]: the wire side s transmits on
  std::array<std::unique_ptr<lnk::FaultInjector>, 2> inj_;
  std::array<std::deque<lnk::Item>, 2> arr_;             // arr_[s]: items arrived at side s, one per edge
  std::array<std::deque<Packet>, 2> q_;                  // q_[s]: side s's MAC TX FIFO
  std::array<std::unordered_map<uint64_t, Held>, 2> held_;  // held_[s]: handed to s's TX, not yet delivered
  std::array<LinkStats, 2> st_;                          // st_[s]: direction from s
  std::array<bool, 2> last_replay_{};
  std::array<uint32_t, 2> last_seq_{};
  std::array<Ps, 2> ctl_end_{-1, -1};
  std::array<uint64_t, 2> dropped0_{}, flush0_{};
  std::array<std::vector<Delivery>, 2> dlv_;
  std::array<std::vector<Packet>, 2> lost_;
  std::array<Ps, 2> unsched_{};

  void send(Side s, llr::In& in, Ps T);
  void receive(Side s, llr::In& in, Ps T);
  void lose(Side from, uint64_t token);
};

}  // namespace sw
