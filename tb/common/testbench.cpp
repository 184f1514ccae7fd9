#include "common/testbench.hpp"

#include <fmt/format.h>

#include <fstream>

#include "common/table.hpp"

namespace tb {

const Testbench* find_testbench(const std::string& name) {
  for (auto& t : testbenches())
    if (t.name == name) return &t;
  return nullptr;
}

std::string testbench_names() {
  std::string out;
  for (auto& t : testbenches()) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

core::Settings default_settings(const Testbench& tb) {
  core::Schema schema;
  tb.declare(schema);
  return core::Settings(schema, "testbench " + tb.name);
}

std::string headline(const RunConfig& cfg) {
  return fmt::format("testbench {}  seed {}  settings: {}", cfg.testbench, cfg.seed, cfg.settings.overrides());
}

RunResult run_testbench(const RunConfig& cfg) {
  const Testbench* t = find_testbench(cfg.testbench);
  if (!t) throw core::UsageError(fmt::format("unknown testbench '{}' (allowed: {})", cfg.testbench, testbench_names()));
  if (t->validate) t->validate(cfg);
  RunResult r = t->run(cfg);
  nlohmann::json head = {{"testbench", cfg.testbench}, {"seed", cfg.seed}, {"settings", cfg.settings.to_json()},
                         {"pass", r.pass}, {"failures", r.failures}};
  if (!cfg.waves_path.empty()) head["waves"] = cfg.waves_path;
  head.update(r.json);
  r.json = head;
  return r;
}

std::string reproduce_line(const RunConfig& cfg, bool waves) {
  std::string out = fmt::format("cosim run {} --seed {}", cfg.testbench, cfg.seed);
  if (cfg.cycles) out += fmt::format(" --cycles {}", cfg.cycles);
  const auto js = cfg.settings.to_json();
  for (auto& sp : cfg.settings.schema().specs())
    if (!cfg.settings.is_default(sp.key))
      out += fmt::format(" --set {}={}", sp.key, js[sp.key].is_string() ? js[sp.key].get<std::string>() : js[sp.key].dump());
  return waves ? out + " --waves" : out;
}

BenchResult rtl_bench_report(const std::string& name, const RunConfig& cfg, uint64_t cycles, const RtlBenchFigures& f) {
  Table t(fmt::format("{}, seed {}, {} cycles per mode", f.title, cfg.seed, cycles));
  t.header({"mode", "cycles/s", "ns/cycle"});
  auto row = [&](const char* mode, double rate) {
    t.row({mode, fmt::format("{:.0f}", rate), fmt::format("{:.1f}", 1e9 / rate)});
  };
  row("verilated RTL, plain C++ loop", f.plain_rate);
  row("verilated RTL, SystemC testbench", f.sc_rate);
  row("C++ models, plain C++ loop", f.model_rate);
  const double overhead = f.plain_rate / f.sc_rate;
  const bool same = f.plain_result == f.sc_result;
  BenchResult r;
  r.text = t.str();
  r.text += fmt::format("same results in both RTL modes: {} ({} {})\n", same ? "yes" : "NO", f.sc_result, f.result_what);
  r.text += fmt::format("peak memory {:.1f} MiB\n", peak_rss_mib());
  r.text += fmt::format("systemc_overhead {:.2f}\n", overhead);
  r.json = {{"bench", name}, {"cycles", cycles}, {"seed", cfg.seed}, {"rtl_plain_cycles_per_s", f.plain_rate},
            {"rtl_systemc_cycles_per_s", f.sc_rate}, {"model_plain_cycles_per_s", f.model_rate},
            {"systemc_overhead", overhead}, {"peak_rss_mib", peak_rss_mib()}, {"identical_results", same}};
  return r;
}

}  // namespace tb
