// uet::DragonflyNet: the ordering-protocol endpoints over the Dragonfly fabric
// (sw::Dragonfly, switch/dragonfly.hpp): every uet endpoint sits on one Dragonfly
// endpoint (a placement), its packets are Dragonfly packets (a REQ is `flits` flits
// long, a control packet `ctrl_flits`; 1 flit = 1 cycle = 1 ns as in the paper) and
// are routed, queued and flow-controlled by the routers. docs/ordering.md "Fabrics".
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/rng.hpp"
#include "switch/dragonfly.hpp"
#include "uet/fabric.hpp"
#include "uet/network.hpp"

namespace uet {

class DragonflyNet final : public Fabric {
 public:
  enum class Event { Sent, Dropped, Delivered };
  /// `np`: flits, ctrl_flits, drop[], lifetime are used (latency, jitter, skew, p_long
  /// belong to uet::Network; p_dup must be 0). `placement[i]`: the Dragonfly endpoint
  /// of uet endpoint i (distinct, < dp.endpoints()); dp.max_flits must hold a REQ.
  /// Throws std::invalid_argument with one line on bad parameters.
  DragonflyNet(const NetParams& np, const sw::DragonflyParams& dp, std::vector<unsigned> placement, uint64_t seed);
  ~DragonflyNet() override;

  /// The link is free and the endpoint's injection queue in the Dragonfly is empty.
  bool can_send(uint32_t ep, uint64_t now) const override;
  void send(const Packet& p, uint64_t now) override;
  /// Ticks the Dragonfly up to and including cycle `now`.
  void advance(uint64_t now) override;
  bool poll(uint32_t ep, uint64_t now, Packet& out) override;
  std::size_t in_flight() const override;
  const FabricStats& stats() const override { return st_; }
  uint64_t lifetime() const override { return np_.lifetime; }

  /// Every packet sent, dropped (random drop or lifetime) and delivered to its endpoint.
  std::function<void(uint64_t now, const Packet&, Event)> observer;

  sw::Dragonfly& dragonfly() { return *df_; }
  const std::vector<unsigned>& placement() const { return place_; }
  unsigned endpoints() const { return static_cast<unsigned>(place_.size()); }
  /// One line naming the bad parameter, or "".
  static std::string validate(const NetParams& np, const sw::DragonflyParams& dp, const std::vector<unsigned>& placement);

 private:
  struct Flight {
    uint64_t sent;
    Packet p;
  };
  struct Arrival {
    uint64_t ready, sent;
    Packet p;
  };
  NetParams np_;
  std::unique_ptr<sw::Dragonfly> df_;
  std::vector<unsigned> place_;
  core::Rng rng_;
  std::vector<uint64_t> egress_free_;
  std::vector<std::deque<Arrival>> ingress_;
  std::unordered_map<uint64_t, Flight> flight_;  // tag -> packet in the Dragonfly
  uint64_t next_tag_ = 1;
  FabricStats st_;
};

}  // namespace uet
