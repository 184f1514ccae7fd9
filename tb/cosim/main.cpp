// cosim: the command line of scaleup-cosim.
//   cosim list [TESTBENCH]
//   cosim run TESTBENCH [--seed N] [--cycles N | --time T] [--set key=value]... [--waves [FILE]] [--json FILE]
//   cosim bench NAME [--seed N] [--cycles N] [--set key=value]... [--json FILE]
//   cosim pdu encode|decode ...   (SUE frames: tb/cosim/pdu_cmd.hpp)
//   cosim budget [--cable C] [--length M] [--fec F] ...   (latency budget: tb/budget/budget.hpp)
//   cosim reproduce ordering [--exp E] [--quick] [--out DIR] [--seed N]   (tb/ordering/reproduce.hpp)
//   cosim report throughput [--set key=value]... [--out DIR] [--quick]   (tb/report/throughput_report.hpp)
// Bad input: one line on stderr naming what is wrong and the allowed values, exit 2.
// A failed run (mismatch, loss, assertion): exit 1.
#include <systemc.h>

#include "common/sc_quiet.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <regex>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/waves.hpp"

#include "common/table.hpp"
#include "common/testbench.hpp"
#include "cosim/pdu_cmd.hpp"
#include "budget/budget.hpp"
#include "ordering/reproduce.hpp"
#include "report/throughput_report.hpp"

namespace {

constexpr int kUsage = 2;

struct Usage : core::UsageError {
  using core::UsageError::UsageError;
};

uint64_t parse_u64(const std::string& what, const std::string& v, uint64_t lo, uint64_t hi) {
  if (v.empty() || v[0] == '-') throw Usage(fmt::format("{} '{}' is not a number (allowed: {}..{})", what, v, lo, hi));
  errno = 0;
  char* end = nullptr;
  unsigned long long x = std::strtoull(v.c_str(), &end, 0);
  if (*end != '\0' || errno == ERANGE) throw Usage(fmt::format("{} '{}' is not a number (allowed: {}..{})", what, v, lo, hi));
  if (x < lo || x > hi) throw Usage(fmt::format("{} {} is out of range (allowed: {}..{})", what, v, lo, hi));
  return x;
}

/// "20us", "5000 ns", "1.5ms", "800ps" -> picoseconds
core::Ps parse_time(const std::string& v) {
  static const std::regex re(R"(^\s*([0-9]+(?:\.[0-9]+)?)\s*(ps|ns|us|ms|s)\s*$)");
  std::smatch m;
  if (!std::regex_match(v, m, re))
    throw Usage(fmt::format("--time '{}' is not a time (allowed: a number with unit ps, ns, us, ms or s, e.g. 20us)", v));
  double x = std::stod(m[1]);
  const std::string u = m[2];
  double mult = u == "ps" ? 1 : u == "ns" ? 1e3 : u == "us" ? 1e6 : u == "ms" ? 1e9 : 1e12;
  double ps = x * mult;
  if (ps < 1 || ps > 1e15) throw Usage(fmt::format("--time '{}' is out of range (allowed: 1ps..1000s)", v));
  return static_cast<core::Ps>(ps);
}

/// Runs cosim again with `args` (stdout and stderr discarded); true when it left the wave.
bool leave_wave(const std::vector<std::string>& args) {
  std::vector<char*> av;
  for (auto& a : args) av.push_back(const_cast<char*>(a.c_str()));
  av.push_back(nullptr);
  std::cout << std::flush;
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    int fd = open("/dev/null", O_WRONLY);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execv("/proc/self/exe", av.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 1;  // the child failed the same way
}

const tb::Testbench& testbench_or_die(const std::string& name) {
  const tb::Testbench* t = tb::find_testbench(name);
  if (!t) throw Usage(fmt::format("unknown testbench '{}' (allowed: {})", name, tb::testbench_names()));
  return *t;
}

void write_json(const std::string& path, const nlohmann::json& j) {
  std::ofstream f(path);
  if (!f) throw Usage(fmt::format("--json: cannot write '{}'", path));
  f << j.dump(2) << "\n";
}

int cmd_list(const std::string& which) {
  if (which.empty()) {
    tb::Table t("Testbenches (cosim run <testbench>; cosim list <testbench> for its settings)");
    t.header({"testbench", "default cycles", "description"});
    for (auto& b : tb::testbenches())
      t.row({b.name, b.default_cycles ? std::to_string(b.default_cycles) : "until done", b.description});
    std::cout << t.str();
    tb::Table bt("Benchmarks (cosim bench <name>)");
    bt.header({"name", "system"});
    for (auto& b : tb::testbenches())
      if (b.bench) bt.row({b.bench_name, b.name});
    std::cout << "\n" << bt.str();
    return 0;
  }
  const tb::Testbench& t = testbench_or_die(which);
  core::Settings s = tb::default_settings(t);
  tb::Table tab(fmt::format("{}: {}\nSettings (--set key=value)", t.name, t.description));
  tab.header({"key", "default", "allowed", "meaning"});
  for (auto& sp : s.schema().specs()) tab.row({sp.key, sp.def, sp.allowed(), sp.help});
  std::cout << tab.str();
  return 0;
}

int cmd_run(const std::string& name, const std::string& seed_s, const std::string& cycles_s, const std::string& time_s,
            const std::vector<std::string>& sets, bool waves, const std::string& waves_file, const std::string& json,
            const std::string& waves_from, int argc, char* argv[]) {
  const tb::Testbench& t = testbench_or_die(name);
  const std::string layout = t.layout.empty() ? name : t.layout;
  tb::RunConfig cfg;
  cfg.testbench = name;
  cfg.seed = seed_s.empty() ? 1 : parse_u64("--seed", seed_s, 0, UINT64_MAX);
  cfg.settings = tb::default_settings(t);
  for (auto& a : sets) cfg.settings.assign(a);
  if (!cycles_s.empty()) cfg.cycles = parse_u64("--cycles", cycles_s, 1, 10'000'000'000ull);
  if (!time_s.empty()) {
    core::Ps period = t.clock_period(cfg.settings);
    cfg.cycles = static_cast<uint64_t>((parse_time(time_s) + period - 1) / period);
  }
  if (waves) cfg.waves_path = waves_file.empty() ? fmt::format("waves/{}-{}.fst", name, cfg.seed) : waves_file;
  if (!waves_from.empty()) {
    if (!waves) throw Usage("--waves-from needs --waves");
    tb::Waves::set_start(parse_time(waves_from));
  }
  if (t.validate) t.validate(cfg);
  std::cout << tb::headline(cfg) << "\n" << std::flush;
  tb::RunResult r = tb::run_testbench(cfg);
  std::cout << r.summary;
  if (!cfg.waves_path.empty()) {
    std::cout << fmt::format("\nwaves: {}  (gtkwave -a waves/{}.gtkw {})\n", cfg.waves_path, layout, cfg.waves_path);
  }
  if (!json.empty()) write_json(json, r.json);
  if (r.pass) {
    std::cout << "\nRESULT: PASS\n";
    return 0;
  }
  std::cout << "\nRESULT: FAIL\n";
  for (auto& f : r.failures) std::cout << "  " << f << "\n";
  if (r.has_mismatch && cfg.waves_path.empty()) {
    // Leave the wave of the window around the mismatch: the same (testbench,
    // seed, settings) again in a child process (SystemC elaborates once per
    // process), dumping the last 200 cycles before it.
    const core::Ps period = t.clock_period(cfg.settings);
    const core::Ps from = std::max<core::Ps>(0, r.mismatch.time - 200 * period);
    const std::string path = fmt::format("waves/{}-{}-mismatch.fst", name, cfg.seed);
    std::vector<std::string> args(argv, argv + argc);
    args.insert(args.end(), {"--waves", path, "--waves-from", fmt::format("{}ps", from)});
    if (leave_wave(args))
      std::cout << fmt::format("  wave of the mismatch window: {}  (gtkwave -a waves/{}.gtkw {})\n", path, layout, path);
  }
  return 1;
}

int cmd_bench(const std::string& name, const std::string& seed_s, const std::string& cycles_s,
              const std::vector<std::string>& sets, const std::string& json) {
  const tb::Testbench* t = nullptr;
  std::string allowed;
  for (auto& b : tb::testbenches()) {
    if (!b.bench) continue;
    allowed += (allowed.empty() ? "" : ", ") + b.bench_name;
    if (b.bench_name == name) t = &b;
  }
  if (!t) throw Usage(fmt::format("unknown benchmark '{}' (allowed: {})", name, allowed));
  tb::RunConfig cfg;
  cfg.testbench = t->name;
  cfg.seed = seed_s.empty() ? 1 : parse_u64("--seed", seed_s, 0, UINT64_MAX);
  cfg.settings = tb::default_settings(*t);
  for (auto& a : sets) cfg.settings.assign(a);
  if (!cycles_s.empty()) cfg.cycles = parse_u64("--cycles", cycles_s, 1000, 1'000'000'000ull);
  if (t->validate) t->validate(cfg);
  tb::BenchResult r = t->bench(cfg);
  std::cout << r.text;
  if (!json.empty()) write_json(json, r.json);
  return 0;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  // Quiet SystemC: no banner, no "simulation stopped" info lines.

  CLI::App app{"cosim: cycle-accurate co-simulation of scale-up fabric hardware (RTL + C++ models + SystemC)"};
  app.require_subcommand(1);
  app.fallthrough(false);

  std::string list_tb;
  auto* list = app.add_subcommand("list", "list testbenches and benchmarks, or one testbench's settings");
  list->add_option("testbench", list_tb, "show this testbench's settings");

  std::string run_tb, seed_s, cycles_s, time_s, waves_file, json;
  std::vector<std::string> sets;
  auto* run = app.add_subcommand("run", "run one testbench: cosim run <testbench> [options]");
  run->add_option("testbench", run_tb, "testbench name (cosim list)")->required();
  run->add_option("--seed", seed_s, "random seed (default 1); (testbench, seed, settings) reproduces a run bit for bit");
  auto* oc = run->add_option("--cycles", cycles_s, "cycles of traffic (default: the testbench's)");
  auto* ot = run->add_option("--time", time_s, "simulated time of traffic instead of cycles, e.g. 20us");
  oc->excludes(ot);
  run->add_option("--set", sets, "key=value setting (repeatable; cosim list <testbench> shows the keys)");
  auto* ow = run->add_option("--waves", waves_file, "write an FST wave (default waves/<testbench>-<seed>.fst)")
                 ->expected(0, 1);
  run->add_option("--json", json, "write the run's numbers as JSON to this file");
  std::string wfrom;
  run->add_option("--waves-from", wfrom, "with --waves: start dumping at this simulated time, e.g. 20us");

  std::string bench_name, bseed, bcycles, bjson;
  std::vector<std::string> bsets;
  auto* bench = app.add_subcommand("bench", "benchmark simulation speed: cosim bench <name>");
  bench->add_option("name", bench_name, "benchmark name (cosim list)")->required();
  bench->add_option("--seed", bseed, "random seed (default 1)");
  bench->add_option("--cycles", bcycles, "cycles per mode (default 400000)");
  bench->add_option("--set", bsets, "key=value setting of the underlying testbench");
  bench->add_option("--json", bjson, "write the figures as JSON to this file");

  cosim::PduCommand pdu(app);  // cosim pdu encode|decode
  tb::budget::Command budget(app);  // cosim budget
  tb::reproduce::Command reproduce(app);  // cosim reproduce ordering
  tb::report::Command report(app);        // cosim report throughput

  // Unknown command: name it and the allowed ones.
  if (argc >= 2 && argv[1][0] != '-') {
    std::string c = argv[1];
    if (c != "list" && c != "run" && c != "bench" && c != "pdu" && c != "budget" && c != "reproduce" && c != "report") {
      std::cerr << fmt::format("cosim: unknown command '{}' (allowed: list, run, bench, pdu, budget, reproduce, report; cosim --help)\n", c);
      return kUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    // Name the unexpected argument and the options the command takes.
    CLI::App* sub = app.get_subcommands().empty() ? &app : app.get_subcommands().front();
    std::string opts;
    for (const CLI::Option* o : sub->get_options())
      if (!o->get_lnames().empty() && o->get_lnames().front() != "help")
        opts += (opts.empty() ? "--" : ", --") + o->get_lnames().front();
    std::string what = e.what();
    auto colon = what.rfind(": ");
    std::string arg = colon == std::string::npos ? what : what.substr(colon + 2);
    std::cerr << fmt::format("cosim: unexpected argument '{}' for 'cosim{}' (allowed options: {}; cosim{} --help)\n", arg,
                             sub == &app ? "" : " " + sub->get_name(), opts.empty() ? "none" : opts,
                             sub == &app ? "" : " " + sub->get_name());
    return kUsage;
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    for (auto& ch : msg)
      if (ch == '\n') ch = ' ';
    std::cerr << fmt::format("cosim: {} (cosim {}--help)\n", msg,
                             argc >= 2 && argv[1][0] != '-' ? std::string(argv[1]) + " " : "");
    return kUsage;
  }

  try {
    if (list->parsed()) return cmd_list(list_tb);
    if (run->parsed())
      return cmd_run(run_tb, seed_s, cycles_s, time_s, sets, ow->count() > 0, waves_file, json, wfrom, argc, argv);
    if (bench->parsed()) return cmd_bench(bench_name, bseed, bcycles, bsets, bjson);
    if (pdu.parsed()) return pdu.run();
    if (budget.parsed()) return budget.run();
    if (reproduce.parsed()) return reproduce.run();
    if (report.parsed()) return report.run();
  } catch (const core::UsageError& e) {
    std::cerr << "cosim: " << e.what() << "\n";
    return kUsage;
  } catch (const std::exception& e) {
    std::cerr << "cosim: internal error: " << e.what() << "\n";
    return 3;
  }
  return kUsage;
}

COSIM_SYSTEMC_MAIN()
