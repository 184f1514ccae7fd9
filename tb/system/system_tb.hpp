// Multi-XPU system testbench `system` (docs/system.md): N XPUs with M SUE
// instances each over switch planes (SUE spec figure 1) or a direct mesh
// (figure 2); traffic patterns with requests and responses on separate VCs;
// end-to-end scoreboard; latency, throughput, fairness, plane imbalance and
// switch telemetry; `cosim bench system`. Registered in tb/cosim/registry.cpp.
#pragma once
#include "common/testbench.hpp"
#include "system/system_env.hpp"

namespace tb::system_tb {

Testbench system_testbench();

/// SysConfig from validated settings; throws core::UsageError (one line) on
/// settings that are valid one by one but not together.
SysConfig config_from_settings(const core::Settings& s, uint64_t seed);

}  // namespace tb::system_tb
