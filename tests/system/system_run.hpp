// What the `system` testbench tests share (test_system.cpp, test_system_nightly.cpp): a run of the
// testbench through tb::run_testbench with settings on top of its defaults, and a JSON counter.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/testbench.hpp"
#include "core/settings.hpp"

namespace system_test {

inline tb::RunConfig config(uint64_t seed, uint64_t cycles, const std::vector<std::string>& sets) {
  const tb::Testbench* t = tb::find_testbench("system");
  EXPECT_NE(t, nullptr);
  tb::RunConfig cfg;
  cfg.testbench = "system";
  cfg.seed = seed;
  cfg.cycles = cycles;
  cfg.settings = tb::default_settings(*t);
  for (auto& s : sets) cfg.settings.assign(s);
  return cfg;
}

inline tb::RunResult run(uint64_t seed, uint64_t cycles, const std::vector<std::string>& sets,
                         const std::string& waves = "") {
  tb::RunConfig cfg = config(seed, cycles, sets);
  cfg.waves_path = waves;
  return tb::run_testbench(cfg);
}

/// r.json[a][b] as an integer.
inline uint64_t u(const tb::RunResult& r, const char* a, const char* b) { return r.json[a][b].get<uint64_t>(); }

}  // namespace system_test
