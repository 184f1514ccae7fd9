// ROB testbench (rob_stream): ordered transfers through a reordering network
// into the reorder buffer. Registered in tb/cosim/registry.cpp.
#pragma once
#include "common/testbench.hpp"
#include "rob/rob_env.hpp"

namespace tb::rob_tb {
Testbench stream_testbench();
EnvConfig env_from_settings(const core::Settings& s, uint64_t seed);
}  // namespace tb::rob_tb
