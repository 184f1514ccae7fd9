// The fabric the ordering-protocol endpoints talk to: every endpoint has one link
// into it and one out of it. Implementations: uet::Network (the simple skewed
// network, uet/network.hpp) and uet::DragonflyNet (sw::Dragonfly, uet/dragonfly_net.hpp).
// One cycle = 1 ns. docs/ordering.md "Fabrics".
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "uet/packet.hpp"

namespace uet {

/// Packet counters of a fabric.
struct FabricStats {
  std::array<uint64_t, kNumPktTypes> sent{}, dropped{}, delivered{};
  uint64_t duplicated = 0, expired = 0;
};

class Fabric {
 public:
  virtual ~Fabric() = default;
  /// The endpoint's link into the fabric takes a packet this cycle.
  virtual bool can_send(uint32_t ep, uint64_t now) const = 0;
  /// Put a packet on `p.src`'s link (it starts when the link is free).
  virtual void send(const Packet& p, uint64_t now) = 0;
  /// Move the fabric to cycle `now`; call once per cycle, before the endpoints.
  virtual void advance(uint64_t now) = 0;
  /// Next packet fully received by endpoint `ep` by `now`.
  virtual bool poll(uint32_t ep, uint64_t now, Packet& out) = 0;
  /// Packets anywhere in the fabric or on a link.
  virtual std::size_t in_flight() const = 0;
  virtual const FabricStats& stats() const = 0;
  /// The fixed packet lifetime (a packet not received within it is lost).
  virtual uint64_t lifetime() const = 0;
};

}  // namespace uet
