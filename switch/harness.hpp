// sw::Harness: one switch with a simple host on every port, for tests, the
// speed check and quick studies (docs/switch.md "Harness"). Each host is an
// upstream sender (a cbfc::TxModel credit gate or a PFC pause state, line-rate
// serializer, traffic generators) and a downstream sink (returns CBFC credits
// as packets arrive, or pauses blocked classes with PFC). Links are fixed
// delays. Every packet is checked end to end by a core::Scoreboard (exactly
// once, in order per (src, dst, class)).
//
// Optionally (HarnessParams::llr) every host<->switch link runs link layer
// retry: an llr::Model at each link partner (the host and the switch port),
// an lnk::Channel per direction with an lnk::FaultInjector (frame error rate,
// bursts, drops), ACK/NACK control words sharing the wire of the reverse
// direction. docs/switch.md "LLR on links".
#pragma once

#include <array>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cbfc/cbfc.hpp"
#include "core/rng.hpp"
#include "core/scoreboard.hpp"
#include "core/stats.hpp"
#include "link/faults.hpp"
#include "link/link.hpp"
#include "llr/llr.hpp"
#include "switch/llr_link.hpp"
#include "switch/switch.hpp"

namespace sw {

struct HarnessParams {
  double link_ns = 10.0;       ///< one-way host <-> switch delay (2 m twinax ~ 9.2 ns; PHYs are switch stages)
  uint32_t block_classes = 0;  ///< bit c: the sinks never drain class c (CBFC: no credits back; PFC: paused)
  bool scoreboard = true;      ///< end-to-end check (disable for raw speed)
  uint64_t seed = 1;           ///< traffic streams "harness.src.<host>", faults "harness.link.<port>.up|down"

  // ---- link layer retry and wire faults on every host <-> switch link (docs/switch.md "LLR on links")
  /// An llr::Model at the host and at the switch port of every link, clocked by the switch core
  /// clock; frames and ACK/NACK words over an lnk::Channel per direction.
  bool llr = false;
  /// Frame error rate on every wire, both directions: each frame (first transmission or replay) fails
  /// its FCS with this probability (lnk::FaultConfig::fer). Without LLR a failed frame is lost.
  double fer = 0;
  /// Further faults on every wire, both directions, each channel its own stream (bursts, drop_prob,
  /// chosen frames, ber, control-word loss/corruption...). `fer` above overrides faults.fer.
  lnk::FaultConfig faults;
  llr::Params llr_params;      ///< LLR RTL parameters (docs/llr.md: SeqBits 20, 2^6-frame buffer, ...)
  llr::Cfg llr_cfg;            ///< LLR configuration (docs/llr.md: frames_max 32, bytes_max 64 KiB, replay timer 1000, ...)

  /// "" when valid with the switch parameters `sp`, else one line naming the field and the allowed values.
  std::string validate(const Params& sp) const;
  /// The fault configuration every wire gets (faults with fer).
  lnk::FaultConfig wire_faults() const;
};

/// A host <-> switch link: "up" = host -> switch port, "down" = switch port -> host (LinkStats: llr_link.hpp).
struct PortLinkStats {
  LinkStats up, down;
};

struct HostStats {
  uint64_t offered_pkts = 0, offered_bytes = 0;  ///< generated at the host
  uint64_t sent_pkts = 0, sent_bytes = 0;        ///< into the switch
  uint64_t recv_pkts = 0, recv_bytes = 0;        ///< out of the switch to this host
  std::array<Ps, kMaxClasses> credit_stall{};    ///< head of class waiting for switch credits, wire idle
  std::array<Ps, kMaxClasses> pause_stall{};     ///< head of class held by a PFC pause from the switch
  std::array<uint64_t, kMaxClasses> pauses_rcvd{};
  uint64_t ecn_marked = 0;
};

class Harness {
 public:
  explicit Harness(const Params& sp, const HarnessParams& hp = {});
  ~Harness();
  Switch& sw() { return *sw_; }
  const Switch& sw() const { return *sw_; }

  /// A generator at `host`: packets of `bytes` to a uniformly random XPU of `dsts`
  /// (XPU x is on port x), class `cls`, offered `load` of the port rate (Poisson);
  /// load >= 1 keeps the class backlogged at the host.
  void add_source(unsigned host, std::vector<uint32_t> dsts, unsigned cls, double load, uint32_t bytes);
  /// One packet queued at `host` now.
  void offer(unsigned host, uint32_t dst, unsigned cls, uint32_t bytes);
  void stop_sources() { sources_on_ = false; }

  void tick();
  void run_for(Ps t);
  /// Stops the sources and runs until every offered packet is delivered or `limit` passes;
  /// returns true when everything was delivered.
  bool drain(Ps limit);
  bool idle() const;

  const HostStats& host(unsigned h) const { return hosts_st_[h]; }
  core::Scoreboard& scoreboard() { return sb_; }
  /// Switch latency (first byte in -> first byte out), ns, per class.
  const core::Samples& latency_ns(unsigned cls) const { return lat_[cls]; }
  /// End-to-end latency, ns, per class: first bit of the packet's first transmission on its source
  /// host's wire -> the destination host has it (last byte; with LLR: delivered by its LLR RX).
  const core::Samples& e2e_latency_ns(unsigned cls) const { return e2e_[cls]; }
  /// The same for the packets replayed at least once on either link (LLR).
  const core::Samples& e2e_latency_replayed_ns() const { return e2e_replayed_; }
  /// Link telemetry of `port` (its host's uplink and downlink).
  PortLinkStats link_stats(unsigned port) const;
  /// Delivered payload of one link direction over the window, Gb/s.
  double goodput_gbps(const LinkStats& s) const;
  /// LLR: every link partner is through its INIT handshake (true without LLR).
  bool links_up() const;
  /// LLR: the link of `port` (side A = the host, side B = the switch port); nullptr without LLR.
  const LlrLink* llr_link(unsigned port) const;
  /// Packets lost on the wires for good (a corrupted or dropped frame without LLR, or with LLR of a
  /// lossy class, whose frames are not LLR-eligible), all ports.
  uint64_t wire_losses() const { return wire_losses_; }
  void reset_stats();  ///< hosts and switch: new measurement window
  Ps window() const { return sw_->now() - t_stats_; }
  std::vector<Packet>& delivered_log() { return log_; }  ///< kept when keep_log(true)
  void keep_log(bool on) { keep_log_ = on; }

 private:
  struct Host;
  struct Link;
  struct Source {
    unsigned host;
    std::vector<uint32_t> dsts;
    uint8_t cls;
    double load;
    uint32_t bytes;
    Ps next_t;
    Ps mean_gap;
    core::Rng rng;
  };
  Params sp_;
  HarnessParams hp_;
  std::unique_ptr<Switch> sw_;
  Ps link_;
  std::vector<Host> hosts_;
  std::vector<Link> links_;  // LLR or wire faults: one per port
  std::vector<HostStats> hosts_st_;
  std::vector<Source> sources_;
  bool sources_on_ = true;
  core::Scoreboard sb_;
  std::array<core::Samples, kMaxClasses> lat_, e2e_;
  core::Samples e2e_replayed_;
  uint64_t next_id_ = 1;
  Ps t_stats_ = 0;
  Ps next_block_refresh_ = 0;
  std::vector<Packet> log_;
  bool keep_log_ = false;
  uint64_t outstanding_ = 0;
  uint64_t wire_losses_ = 0;
  bool faulty_ = false;                         // a FaultInjector on every wire
  std::unordered_map<uint64_t, Ps> t_sent_;      // LLR: first bit on the source wire of packets in flight, by id
  std::unordered_set<uint64_t> replayed_;        // LLR: packets in flight replayed on their uplink
  void enqueue(unsigned host, uint32_t dst, unsigned cls, uint32_t bytes);
  void llr_edge(unsigned port, Ps T);
  void host_delivery(unsigned port, const Packet& p, Ps t_have, Ps t_sent);
};

}  // namespace sw
