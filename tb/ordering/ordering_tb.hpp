// The `ordering` testbench: the ordering-protocol endpoints (uet/) with every
// target's reorder buffer as RTL (in lockstep with its model) or model.
#pragma once
#include "common/testbench.hpp"

namespace tb::ordering_tb {
Testbench testbench();
}  // namespace tb::ordering_tb
