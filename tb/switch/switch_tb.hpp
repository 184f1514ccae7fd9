// Switch testbench (switch_incast): N:1 incast through the flit-level switch
// model (switch/, docs/switch.md) with a host on every port, CBFC or PFC on
// the lossless classes, and the other flow-control mode run beside it with the
// same seed and traffic (draft 6.5(c), 7.2). Registered in tb/cosim/registry.cpp.
#pragma once
#include <cstdint>

#include "common/testbench.hpp"
#include "switch/harness.hpp"

namespace tb::switch_tb {

/// One incast scenario, shared by both flow-control modes of a run.
struct Scenario {
  sw::Params params;           ///< fc is set per mode
  sw::HarnessParams harness;
  unsigned fan_in = 32;        ///< senders on ports 1..fan_in, incast destination port 0
  unsigned incast_class = 0;
  double load = 1.0;           ///< per sender, fraction of the port rate; >= 1: backlogged
  uint32_t packet_bytes = 1024;
  bool victim = true;          ///< sender 1 also sends to port fan_in+1
  unsigned victim_src = 1, victim_dst = 0, victim_class = 0;
  double victim_load = 0.01;
  uint64_t traffic_cycles = 0, warmup_cycles = 0, drain_cycles = 0;
  bool compare = true;
  sw::FlowControl primary = sw::FlowControl::cbfc;
};

/// Validates the settings together (throws core::UsageError naming the setting).
Scenario scenario_from_settings(const core::Settings& s, uint64_t seed, uint64_t cycles);
Testbench incast_testbench();

}  // namespace tb::switch_tb
