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
/// The command that reproduces `cfg`: "cosim run <tb> --seed N [--cycles N] [--set k=v]..."
/// (only the settings away from their defaults), plus " --waves" when `waves`.
std::string reproduce_line(const RunConfig& cfg, bool waves = true);

/// Figures of `cosim bench` for a system with verilated RTL: the same run in a
/// plain C++ loop and under the SystemC testbench, and with the C++ models.
struct RtlBenchFigures {
  std::string title;
  double plain_rate = 0, sc_rate = 0, model_rate = 0;  ///< cycles per wall-second
  uint64_t plain_result = 0, sc_result = 0;            ///< a count that must agree (frames delivered)
  std::string result_what;                              ///< "frames delivered"
};
/// The table, "same results", peak memory and, last, "systemc_overhead X.XX"; JSON alike.
BenchResult rtl_bench_report(const std::string& name, const RunConfig& cfg, uint64_t cycles, const RtlBenchFigures& f);

/// Runs `cfg` and writes the JSON file if asked; the shared path of cosim and the tests.
RunResult run_testbench(const RunConfig& cfg);

}  // namespace tb
