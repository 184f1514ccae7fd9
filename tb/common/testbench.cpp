#include "common/testbench.hpp"

#include <fmt/format.h>

#include <fstream>

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

}  // namespace tb
