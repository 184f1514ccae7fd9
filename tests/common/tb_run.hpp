// A testbench run as the tests start one: the testbench's default settings with `sets` on top (each
// "key=value", in order), a seed, the cycles and an optional wave file. Shared by the tests of every
// testbench (tests/*/test_*.cpp); each wraps it with its testbench's name.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/testbench.hpp"
#include "core/settings.hpp"

namespace tb_test {

inline tb::RunConfig run_config(const std::string& testbench, uint64_t seed, uint64_t cycles,
                                const std::vector<std::string>& sets, const std::string& waves = "") {
  const tb::Testbench* t = tb::find_testbench(testbench);
  EXPECT_NE(t, nullptr) << testbench;
  tb::RunConfig cfg;
  cfg.testbench = testbench;
  cfg.seed = seed;
  cfg.cycles = cycles;
  if (t) cfg.settings = tb::default_settings(*t);
  for (const auto& s : sets) cfg.settings.assign(s);
  cfg.waves_path = waves;
  return cfg;
}

inline tb::RunResult run(const std::string& testbench, uint64_t seed, uint64_t cycles, const std::vector<std::string>& sets,
                         const std::string& waves = "") {
  return tb::run_testbench(run_config(testbench, seed, cycles, sets, waves));
}

}  // namespace tb_test
