// A simple network for the ordering-protocol endpoints: every endpoint has one
// link into the network and one out of it, each carrying one packet per `flits`
// cycles (REQs) or `ctrl_flits` cycles (control packets). Between them a packet
// takes base + uniform(0..jitter) cycles, plus `skew` on the long path (share
// p_long: the indirect route), so packets overtake each other. Faults: drop
// probabilities per packet type and REQ duplication (the copy follows its
// original by one packet time on the same path). One cycle = 1 ns.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "uet/fabric.hpp"
#include "uet/packet.hpp"

namespace uet {

struct NetParams {
  unsigned flits = 16;           ///< cycles a REQ occupies a link (1..1024)
  unsigned ctrl_flits = 1;       ///< cycles an ACK/NACK/FIN/FIN-ACK occupies a link (1..1024)
  uint64_t base_latency = 100;   ///< cycles between links (0..1e6)
  uint64_t jitter = 20;          ///< + uniform 0..jitter (0..1e6)
  uint64_t skew = 500;           ///< + skew on the long path (0..1e6)
  double p_long = 0.3;           ///< share of packets on the long path (0..1)
  std::array<double, kNumPktTypes> drop{};  ///< drop probability per PktType (0..1)
  double p_dup = 0.0;            ///< probability a REQ is duplicated (0..1)
  /// Fixed packet lifetime (the paper's failure model): a packet not received by its
  /// endpoint within `lifetime` cycles of being sent is lost (max_latency + 2 flits .. 1e9).
  uint64_t lifetime = 10000;
  std::string validate() const;  ///< "" or one line naming the field and its range
  /// the longest time a packet spends between the two links (the packet lifetime bound)
  uint64_t max_latency() const { return base_latency + jitter + skew; }
  unsigned flits_of(const Packet& p) const { return p.is_data() ? flits : ctrl_flits; }
};

class Network final : public Fabric {
 public:
  enum class Event { Sent, Dropped, Duplicated, Delivered };
  Network(const NetParams& p, unsigned endpoints, uint64_t seed);

  /// The endpoint's link into the network is free this cycle.
  bool can_send(uint32_t ep, uint64_t now) const override { return egress_free_.at(ep) <= now; }
  /// Put a packet on `p.src`'s link (it starts when the link is free).
  void send(const Packet& p, uint64_t now) override;
  /// Move packets that left the network onto their destination links; call once per cycle first.
  void advance(uint64_t now) override;
  /// Next packet fully received by endpoint `ep` by `now`.
  bool poll(uint32_t ep, uint64_t now, Packet& out) override;
  /// Packets anywhere in the network or on a link.
  std::size_t in_flight() const override;

  // Hooks for directed tests (optional).
  std::function<bool(const Packet&)> drop_hook;         ///< true: drop this packet
  std::function<uint64_t(const Packet&)> delay_hook;    ///< extra cycles for this packet
  std::function<bool(const Packet&)> dup_hook;          ///< true: duplicate this REQ
  std::function<void(uint64_t now, const Packet&, Event)> observer;

  using Stats = FabricStats;
  const Stats& stats() const override { return st_; }
  uint64_t lifetime() const override { return p_.lifetime; }
  const NetParams& params() const { return p_; }

 private:
  struct InFlight {
    uint64_t exit, order, sent;
    Packet p;
    bool operator>(const InFlight& o) const { return exit != o.exit ? exit > o.exit : order > o.order; }
  };
  NetParams p_;
  core::Rng rng_;
  std::vector<uint64_t> egress_free_, ingress_free_;
  struct Arrival {
    uint64_t ready, sent;
    Packet p;
  };
  std::vector<std::deque<Arrival>> ingress_;
  std::priority_queue<InFlight, std::vector<InFlight>, std::greater<InFlight>> net_;
  uint64_t order_ = 0;
  Stats st_;
};

}  // namespace uet
