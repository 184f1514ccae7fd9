// CBFC testbenches: cbfc_block (RTL vs model lockstep under constrained-random
// stress) and cbfc_link (sender and receiver over a link, lossless proof,
// buffer sizing). Registered with `cosim` in tb/cosim/registry.cpp.
#pragma once
#include "cbfc/cbfc_env.hpp"
#include "common/testbench.hpp"

namespace tb::cbfc_tb {

Testbench block_testbench();
Testbench link_testbench();

/// Builds an EnvConfig from validated settings; throws core::UsageError on
/// settings that are valid one by one but not together.
EnvConfig env_from_settings(const core::Settings& s, uint64_t seed, bool block);

/// One buffer-sweep point (C++ models, plain loop).
struct SweepPoint {
  uint32_t buffer_bytes = 0;
  double ratio = 0;          ///< buffer / required
  double gbps = 0;           ///< delivered payload throughput
  double efficiency = 0;     ///< of the link's payload capacity for this frame size
  double loop_p50_ns = 0;
};
/// Zero-load credit round trip for a frame of len_max bytes (ns), and the
/// buffer it takes to send one class at full rate: rate x round trip.
double estimate_rtt_ns(const EnvConfig& cfg);
uint32_t required_buffer_bytes(const EnvConfig& cfg);
std::vector<SweepPoint> buffer_sweep(const EnvConfig& base, const std::vector<double>& ratios, uint64_t cycles);

}  // namespace tb::cbfc_tb
