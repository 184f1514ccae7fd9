// SUE system testbench `sue_system`: N XPU nodes (sue_tx + sue_rx each, RTL,
// model or RTL in lockstep by setting) over MACs, links and a switch or cable
// per plane, with CBFC, faults and plane failure; the XPU-level scoreboard, the
// summary (packing efficiency, latency, recovery counters, throughput per port,
// the measured TX/RX pipeline cycles for `cosim budget`), the sweep of packing
// efficiency against load and command size, and `cosim bench sue`.
// Registered in tb/cosim/registry.cpp. docs/sue.md "Testbench".
#pragma once
#include "common/testbench.hpp"
#include "sue/sue_env.hpp"

namespace tb::sue_tb {

Testbench system_testbench();

/// EnvConfig from validated settings; throws core::UsageError (one line) on
/// settings that are valid one by one but not together.
EnvConfig env_from_settings(const core::Settings& s, uint64_t seed);

/// One point of the sweep (C++ models, plain loop).
struct SweepPoint {
  double load = 0;
  unsigned dlen = 0;
  uint64_t cmds = 0;
  double cmds_per_pdu = 0, packing_eff = 0, wire_eff = 0, goodput_gbps = 0;
  double p50_ns = 0, p99_ns = 0;
  bool clean = false;
};
std::vector<SweepPoint> sweep(const EnvConfig& base, const std::vector<double>& loads, const std::vector<unsigned>& dlens,
                              uint64_t cycles);

}  // namespace tb::sue_tb
