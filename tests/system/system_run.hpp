// What the `system` testbench tests share (test_system.cpp, test_system_nightly.cpp): a run of the
// testbench with settings on top of its defaults (tests/common/tb_run.hpp), and a JSON counter.
#pragma once

#include <string>
#include <vector>

#include "common/tb_run.hpp"

namespace system_test {

inline tb::RunResult run(uint64_t seed, uint64_t cycles, const std::vector<std::string>& sets,
                         const std::string& waves = "") {
  return tb_test::run("system", seed, cycles, sets, waves);
}

/// r.json[a][b] as an integer.
inline uint64_t u(const tb::RunResult& r, const char* a, const char* b) { return r.json[a][b].get<uint64_t>(); }

}  // namespace system_test
