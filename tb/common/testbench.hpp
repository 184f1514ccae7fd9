// The testbench registry behind `cosim list|run|bench`.
// A testbench declares its settings (validated before anything is simulated),
// runs once per process (SystemC elaborates once), and returns a result that
// the command line prints as a table and writes as JSON.
#pragma once
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/settings.hpp"
#include "core/time.hpp"

namespace tb {

struct RunConfig {
  std::string testbench;
  uint64_t seed = 1;
  uint64_t cycles = 0;          ///< 0: the testbench's default
  core::Settings settings;
  std::string waves_path;       ///< empty: no waves
};

/// A lockstep disagreement between an RTL block and its model.
struct Mismatch {
  uint64_t cycle = 0;
  core::Ps time = 0;
  std::string block;   ///< instance, e.g. "tx"
  std::string signal;  ///< RTL port, e.g. "avail_o[2]"
  uint64_t rtl = 0;
  uint64_t model = 0;
};

struct RunResult {
  bool pass = false;
  std::vector<std::string> failures;  ///< one line each
  std::string summary;                ///< human tables (after the first line)
  nlohmann::json json;                ///< the same numbers for machines
  uint64_t cycles = 0;                ///< cycles simulated
  core::Ps sim_time = 0;
  bool has_mismatch = false;
  Mismatch mismatch;
};

struct BenchResult {
  std::string text;  ///< table; its last line is "systemc_overhead X.XX"
  nlohmann::json json;
};

struct Testbench {
  std::string name;
  std::string description;
  uint64_t default_cycles = 0;
  std::function<void(core::Schema&)> declare;             ///< settings
  /// Checks settings that are valid one by one but not together; throws
  /// core::UsageError. Runs before anything is printed or simulated.
  std::function<void(const RunConfig&)> validate;
  std::function<RunResult(const RunConfig&)> run;         ///< elaborates SystemC: once per process
  std::function<BenchResult(const RunConfig&)> bench;     ///< optional (`cosim bench`)
  std::string bench_name;                                 ///< name under `cosim bench`, e.g. "cbfc"
  std::string layout;                                     ///< GTKWave layout waves/<layout>.gtkw (default: name)
  /// Clock period under these settings (turns --time into cycles).
  std::function<core::Ps(const core::Settings&)> clock_period;
};

/// All testbenches, in `cosim list` order.
const std::vector<Testbench>& testbenches();
const Testbench* find_testbench(const std::string& name);
/// "a, b, c"
std::string testbench_names();
/// Settings of `tb` at their defaults (schema declared).
core::Settings default_settings(const Testbench& tb);

/// First line of every summary: testbench, seed, settings.
std::string headline(const RunConfig& cfg);
/// Runs `cfg` and writes the JSON file if asked; the shared path of cosim and the tests.
RunResult run_testbench(const RunConfig& cfg);

}  // namespace tb
