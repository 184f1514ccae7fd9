#include "sue/goodput.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace sue {

Goodput wire_limited(const WireFormat& w, double port_gbps, double mean_dlen) {
  const double cmd = static_cast<double>(kOpHeaderBytes + kControlBytes) + mean_dlen;  // one packed command
  if (!(mean_dlen >= 0) || !(port_gbps > 0) || cmd > w.max_pack)
    throw std::invalid_argument(fmt::format("wire_limited: dlen {} port {} Gb/s max_pack {}", mean_dlen, port_gbps, w.max_pack));
  Goodput g;
  g.port_gbps = port_gbps;
  g.mean_dlen = mean_dlen;
  g.cmds_per_pdu = std::max(1.0, std::floor(static_cast<double>(w.max_pack) / cmd));
  g.pdu_bytes = g.cmds_per_pdu * cmd;
  const double body = w.header_bytes + (w.lite ? 0.0 : static_cast<double>(kRhBytes + kRcrcBytes)) + g.pdu_bytes;
  g.frame_bytes = std::max(static_cast<double>(kEthMinNoFcs), body) + static_cast<double>(kFcsBytes);
  g.wire_bytes = g.frame_bytes + kWireGapBytes;
  g.efficiency = g.cmds_per_pdu * (kControlBytes + mean_dlen) / g.wire_bytes;
  g.gbps = port_gbps * g.efficiency;
  return g;
}

std::string Goodput::formula() const {
  return fmt::format("{:.1f} Gb/s = {:.0f} Gb/s x {:.0f} cmds x (18 + {:.1f}) B / {:.1f} wire B per frame ({:.2f} %)", gbps,
                     port_gbps, cmds_per_pdu, mean_dlen, wire_bytes, 100.0 * efficiency);
}

}  // namespace sue
