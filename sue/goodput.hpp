// Wire-limited command goodput of a SUE instance (docs/sue.md "Wire-limited goodput").
//
// What the ports could carry of XPU commands if every PDU were packed full: the port rate less, per
// frame, the preamble + SFD and the inter-frame gap, the network header, the RH and R-CRC (SUE), the
// pad to the Ethernet minimum and the FCS, and, per command, its 2-byte op header. Goodput counts
// the XPU's command bytes: the 18 control bytes and the data. Every throughput the testbenches print
// stands beside this figure and its efficiency.
#pragma once

#include <cstdint>
#include <string>

#include "sue/encap.hpp"

namespace sue {

/// The frame format of one instance, as far as goodput needs it.
struct WireFormat {
  bool lite = false;          ///< SUE Lite: no RH, no R-CRC
  unsigned header_bytes = 14; ///< network header: AFH Gen2 12-byte + Ethertype 14 (SUE), AFH Gen2 6-byte 6 (Lite)
  unsigned max_pack = 4096;   ///< packing limit: op headers + command bytes of one PDU
};

/// Per-frame and per-command byte counts of the formula.
constexpr unsigned kPreambleSfdBytes = 8;  ///< preamble 7 + SFD 1
constexpr unsigned kIfgBytes = 12;         ///< minimum inter-frame gap
constexpr unsigned kWireGapBytes = kPreambleSfdBytes + kIfgBytes;  ///< charged per frame on every wire
constexpr unsigned kControlBytes = 18;     ///< the command's control bytes (part of goodput; op header: kOpHeaderBytes)

/// The figures of a packed-full frame at mean command size.
struct Goodput {
  double cmds_per_pdu = 0;   ///< floor(max_pack / (2 + 18 + dlen)), at least 1
  double pdu_bytes = 0;      ///< op headers + commands
  double frame_bytes = 0;    ///< header + RH + PDU + R-CRC, padded to 60, + FCS
  double wire_bytes = 0;     ///< frame + preamble/SFD + IFG
  double efficiency = 0;     ///< XPU command bytes (18 + dlen per command) / wire bytes
  double gbps = 0;           ///< port_gbps x efficiency
  /// One line: "<gbps> Gb/s = <port> Gb/s x n x (18 + dlen) / wire bytes ..." for summaries.
  std::string formula() const;
  double port_gbps = 0;
  double mean_dlen = 0;
};

/// Wire-limited goodput of `port_gbps` (all ports of the instance together) for commands of `mean_dlen`
/// data bytes (the mean of the traffic's sizes). Throws std::invalid_argument on nonsense input
/// (negative sizes, a command larger than max_pack).
Goodput wire_limited(const WireFormat& w, double port_gbps, double mean_dlen);

}  // namespace sue
