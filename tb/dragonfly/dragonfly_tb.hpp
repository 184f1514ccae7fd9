// Dragonfly testbench (`cosim run dragonfly`) and benchmark (`cosim bench
// dragonfly`): the ordering paper's 1,056-endpoint Dragonfly (switch/dragonfly.*,
// docs/switch.md "Dragonfly") under generated traffic, minimal or adaptive
// routing (UGAL-L, PAR-6/2). Registered in tb/cosim/registry.cpp.
#pragma once
#include <cstdint>

#include "common/testbench.hpp"
#include "switch/dragonfly.hpp"

namespace tb::dragonfly_tb {

/// The fabric the settings describe; throws core::UsageError (one line) when they
/// do not fit together (sw::DragonflyParams::validate()).
sw::DragonflyParams params_from_settings(const core::Settings& s, uint64_t seed);
Testbench testbench();

}  // namespace tb::dragonfly_tb
