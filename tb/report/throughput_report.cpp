#include "report/throughput_report.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <ostream>

#include "common/table.hpp"
#include "common/testbench.hpp"
#include "core/settings.hpp"
#include "ordering/reproduce.hpp"
#include "system/system_tb.hpp"

namespace tb::report {

namespace {

constexpr const char* kTb = "system";

core::Settings settings_of(const std::vector<std::string>& sets) {
  const Testbench* t = find_testbench(kTb);
  core::Settings s = default_settings(*t);
  for (const auto& kv : sets) s.assign(kv);  // throws core::UsageError on a bad key or value
  return s;
}

std::vector<std::string> join(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> r = a;
  r.insert(r.end(), b.begin(), b.end());
  return r;
}

/// Mean of v[lo..hi) over the XPUs that carried anything (an incast with fan_in below N-1 has idle XPUs).
double mean_of(const nlohmann::json& v, unsigned lo, unsigned hi) {
  double s = 0;
  unsigned n = 0;
  for (unsigned k = lo; k < hi; ++k)
    if (const double x = v.at(k).get<double>(); x > 0) s += x, ++n;
  return n ? s / n : 0.0;
}

std::string pct(double x) { return fmt::format("{:.1f}", x); }

std::string bound_cell(const Row& r) { return r.bound_what.empty() ? "-" : r.bound_what + " " + pct(r.bound_pct); }

RunConfig run_config(const Options& o, const std::vector<std::string>& sets) {
  RunConfig cfg;
  cfg.testbench = kTb;
  cfg.seed = o.seed;
  cfg.cycles = o.cycles;
  cfg.settings = settings_of(sets);
  return cfg;
}

}  // namespace

std::vector<Row> plan(const Options& o) {
  const core::Settings base = settings_of(o.sets);
  const unsigned N = static_cast<unsigned>(base.i("xpus"));
  std::vector<Row> rows;
  const std::vector<std::string> sizes = o.quick ? std::vector<std::string>{"256", "mix"}
                                                 : std::vector<std::string>{"64", "128", "256", "mix"};
  std::vector<std::string> dirs = {"bi"};
  if (!o.quick && N % 2 == 0) dirs.insert(dirs.begin(), "uni");
  const std::vector<std::string> common = {"load=1", fmt::format("warmup_cycles={}", o.warmup)};
  for (const auto& sz : sizes) {
    std::vector<std::string> size_sets;
    if (sz != "mix") size_sets = {"read_ratio=0", "dlen_min=" + sz, "dlen_max=" + sz};
    auto add = [&](const std::string& shape, const std::string& dir, const std::string& mode, std::vector<std::string> s) {
      Row r;
      r.shape = shape;
      r.direction = dir;
      r.sizes = sz;
      r.mode = mode;
      r.sets = join(join(common, size_sets), s);
      r.sets.push_back("mode=" + mode);
      if (shape.rfind("incast", 0) != 0) r.sets.push_back("direction=" + dir);
      rows.push_back(std::move(r));
    };
    for (const auto& d : dirs) {
      const unsigned reach = d == "uni" ? N / 2 : N - 1;
      add("1 peer", d, "unordered", {"pattern=permutation"});
      const unsigned k = std::min(4u, reach);
      if (k > 1) add(fmt::format("{} peers", k), d, "strict", {"pattern=fanout", fmt::format("fanout={}", k)});
      add("all peers", d, "strict", {"pattern=uniform"});
    }
    add(fmt::format("incast {}:1", N - 1), "uni", "strict", {"pattern=incast"});
  }
  return rows;
}

Report run(const Options& o, std::ostream* log) {
  std::vector<Row> rows = plan(o);
  const std::vector<double> loads = {0.01, 0.5, 0.8, 0.95};
  auto lat_sets = [&](double load) {
    return join(o.sets, {fmt::format("load={}", load), "pattern=uniform", fmt::format("warmup_cycles={}", o.warmup)});
  };
  // Validate every run's settings, combinations included, before anything is simulated.
  for (const auto& r : rows) system_tb::config_from_settings(settings_of(join(o.sets, r.sets)), o.seed);
  for (double l : loads) system_tb::config_from_settings(settings_of(lat_sets(l)), o.seed);

  Report rep;
  const core::Settings base = settings_of(o.sets);
  const unsigned N = static_cast<unsigned>(base.i("xpus"));
  rep.header = fmt::format("system: xpus={} sue_config={} port_gbps={} instances={} nic={} seed {} cycles {} (window {} after "
                           "warm-up){}",
                           N, base.s("sue_config"), base.s("port_gbps"), base.i("instances"), base.s("nic"), o.seed, o.cycles,
                           o.cycles > o.warmup ? o.cycles - o.warmup : 0, o.sets.empty() ? "" : "; sets " + fmt::format("{}", fmt::join(o.sets, " ")));
  rep.pass = true;
  for (auto& r : rows) {
    if (log) *log << fmt::format("  {} {} {} B ({})...", r.shape, r.direction, r.sizes, r.mode) << std::flush;
    const RunResult res = run_testbench(run_config(o, join(o.sets, r.sets)));
    const auto& g = res.json.at("goodput");
    const bool incast = r.shape.rfind("incast", 0) == 0;
    const bool uni = r.direction == "uni";
    const unsigned H = N / 2;
    r.sent = incast ? mean_of(g.at("sent"), 1, N) : mean_of(g.at("sent"), 0, uni ? H : N);
    r.received = incast ? mean_of(g.at("received"), 0, 1) : mean_of(g.at("received"), uni ? H : 0, N);
    r.limit = g.at("wire_limited_gbps").get<double>();
    const double md = g.at("mean_dlen").get<double>();
    r.offered = res.json.at("throughput_gbps").at("offered").get<double>() * (18 + md) / (20 + md);
    r.efficiency = r.limit > 0 ? 100.0 * (incast ? r.received : r.sent) / r.limit : 0.0;
    if (r.limit > 0) {
      const double bus = 100.0 * g.at("xpu_bus_gbps").get<double>() / r.limit;
      const double pin = 100.0 * g.at("strict_pin_fraction").get<double>();
      if (bus > 0 && bus < r.bound_pct) r.bound_pct = bus, r.bound_what = "bus";
      if (pin < r.bound_pct) r.bound_pct = pin, r.bound_what = "pin";
    }
    r.clean = res.pass;
    r.pass = r.clean && r.efficiency >= o.pass_pct;
    rep.pass &= r.pass;
    if (log) *log << fmt::format(" {:.1f} % {}\n", r.efficiency, r.pass ? "PASS" : "FAIL");
  }
  rep.rows = std::move(rows);
  for (double l : loads) {
    if (log) *log << fmt::format("  latency at load {}...", l) << std::flush;
    const RunResult res = run_testbench(run_config(o, lat_sets(l)));
    const auto& q = res.json.at("latency_ns").at("requests");
    LatencyRow lr;
    lr.load = l;
    lr.min = q.at("min").get<double>();
    lr.p50 = q.at("p50").get<double>();
    lr.p99 = q.at("p99").get<double>();
    lr.p999 = q.at("p999").get<double>();
    lr.max = q.at("max").get<double>();
    lr.clean = res.pass;
    if (!rep.latency.empty()) {
      lr.factor_p50 = rep.latency[0].p50 > 0 ? lr.p50 / rep.latency[0].p50 : 0;
      lr.factor_p99 = rep.latency[0].p99 > 0 ? lr.p99 / rep.latency[0].p99 : 0;
    }
    rep.pass &= lr.clean;
    if (log) *log << fmt::format(" P50 {:.1f} ns, P99 {:.1f} ns\n", lr.p50, lr.p99);
    rep.latency.push_back(lr);
  }
  return rep;
}

std::string Report::text() const {
  Table t("Throughput per XPU, Gb/s of XPU command bytes (control + data): offered per sender, sent per sender, received "
          "per receiver, wire-limited goodput of one XPU's ports, efficiency (incast: the receiver; else the senders), and "
          "the tightest bound below the wire limit in % of it (bus: the XPU bus at the row's command sizes; pin: strict "
          "mode's flows per port)");
  t.header({"traffic", "dir", "size B", "mode", "offered", "sent", "received", "wire-limited", "eff %", "bound %", "result"});
  for (const auto& r : rows)
    t.row({r.shape, r.direction, r.sizes, r.mode, pct(r.offered), pct(r.sent), pct(r.received), pct(r.limit),
           pct(r.efficiency), bound_cell(r), r.pass ? "PASS" : (r.clean ? "FAIL" : "FAIL (checks)")});
  Table l("Request latency, ns, uniform traffic of the default mix (XPU TX interface -> far XPU RX interface)");
  l.header({"load", "min", "P50", "P99", "P99.9", "max", "P50 / unloaded", "P99 / unloaded"});
  for (const auto& x : latency)
    l.row({fmt::format("{:.0f} %", 100 * x.load), pct(x.min), pct(x.p50), pct(x.p99), pct(x.p999), pct(x.max),
           fmt::format("{:.2f}", x.factor_p50), fmt::format("{:.2f}", x.factor_p99)});
  return header + "\n" + t.str() + l.str() + fmt::format("RESULT: {}\n", pass ? "PASS" : "FAIL");
}

std::string Report::markdown() const {
  std::string m = "# SUE throughput report\n\n`" + header + "`\n\n";
  m += "Gb/s of XPU command bytes (control + data). Wire-limited: the XPU's ports less preamble, IFG, headers, RH, R-CRC, "
       "pad, FCS and op headers with PDUs packed full at the row's mean command size (docs/sue.md \"Wire-limited "
       "goodput\").\n\n";
  m += "Bound: the tightest structural limit below the wire limit, in % of it: `bus`, the XPU bus (one beat of DataW bits "
       "per cycle, a command of d data bytes taking max(1, ceil(d/DB)) beats) at the row's delivered commands; `pin`, "
       "strict mode's flows per port (docs/system.md \"Throughput report\").\n\n";
  m += "| traffic | dir | size B | mode | offered | sent | received | wire-limited | eff % | bound % | result |\n"
       "|---|---|---|---|---:|---:|---:|---:|---:|---|---|\n";
  for (const auto& r : rows)
    m += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r.shape, r.direction, r.sizes, r.mode,
                     pct(r.offered), pct(r.sent), pct(r.received), pct(r.limit), pct(r.efficiency), bound_cell(r),
                     r.pass ? "PASS" : "**FAIL**");
  m += "\n## Request latency, ns (uniform, default mix)\n\n| load | min | P50 | P99 | P99.9 | max | P50 / unloaded | P99 / "
       "unloaded |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& x : latency)
    m += fmt::format("| {:.0f} % | {} | {} | {} | {} | {} | {:.2f} | {:.2f} |\n", 100 * x.load, pct(x.min), pct(x.p50),
                     pct(x.p99), pct(x.p999), pct(x.max), x.factor_p50, x.factor_p99);
  m += fmt::format("\n**{}**\n\n![throughput](throughput.png)\n", pass ? "PASS" : "FAIL");
  return m;
}

std::string Report::csv() const {
  std::string c = "traffic,direction,size,mode,offered_gbps,sent_gbps,received_gbps,wire_limited_gbps,efficiency_pct,bound_pct,"
                  "bound,clean,pass\n";
  for (const auto& r : rows)
    c += fmt::format("{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{},{},{}\n", r.shape, r.direction, r.sizes, r.mode,
                     r.offered, r.sent, r.received, r.limit, r.efficiency, r.bound_pct, r.bound_what, r.clean ? 1 : 0,
                     r.pass ? 1 : 0);
  return c;
}

nlohmann::json Report::json() const {
  nlohmann::json j;
  j["header"] = header;
  j["pass"] = pass;
  for (const auto& r : rows)
    j["rows"].push_back({{"traffic", r.shape}, {"direction", r.direction}, {"size", r.sizes}, {"mode", r.mode},
                         {"sets", r.sets}, {"offered_gbps", r.offered}, {"sent_gbps", r.sent}, {"received_gbps", r.received},
                         {"wire_limited_gbps", r.limit}, {"efficiency_pct", r.efficiency}, {"bound_pct", r.bound_pct},
                         {"bound", r.bound_what}, {"clean", r.clean}, {"pass", r.pass}});
  for (const auto& x : latency)
    j["latency_ns"].push_back({{"load", x.load}, {"min", x.min}, {"p50", x.p50}, {"p99", x.p99}, {"p999", x.p999}, {"max", x.max},
                               {"factor_p50", x.factor_p50}, {"factor_p99", x.factor_p99}, {"clean", x.clean}});
  return j;
}

void write(const Report& r, const Options& o) {
  namespace fs = std::filesystem;
  fs::create_directories(o.out_dir);
  const fs::path d(o.out_dir);
  std::ofstream(d / "throughput.txt") << r.text();
  std::ofstream(d / "throughput.md") << r.markdown();
  std::ofstream(d / "throughput.csv") << r.csv();
  std::ofstream(d / "throughput.json") << r.json().dump(2) << "\n";
  if (!o.plot) return;
  // One bar per row: efficiency, the pass line at pass_pct.
  std::ofstream dat(d / "throughput.dat");
  for (size_t k = 0; k < r.rows.size(); ++k)
    dat << k << " " << fmt::format("{:.3f}", r.rows[k].efficiency) << " \""
        << fmt::format("{} {} {}", r.rows[k].shape, r.rows[k].direction, r.rows[k].sizes) << "\"\n";
  dat.close();
  std::ofstream gp(d / "throughput.gp");
  gp << "set terminal pngcairo size 1400,600 noenhanced\nset output 'throughput.png'\n"
     << "set title 'SUE throughput: % of wire-limited goodput per row (" << r.header << ")' font ',9'\n"
     << "set style fill solid 0.6\nset boxwidth 0.7\nset yrange [0:105]\nset ylabel 'efficiency %'\nset grid y\n"
     << "set xtics rotate by -60 font ',8'\n"
     << fmt::format("plot 'throughput.dat' using 1:2:xtic(3) with boxes notitle, {} with lines lw 2 title '{} % pass line'\n",
                    o.pass_pct, o.pass_pct);
  gp.close();
  reproduce::run_gnuplot(o.out_dir, "throughput.gp");
}

Command::Command(CLI::App& app) {
  sub_ = app.add_subcommand("report", "reports: cosim report throughput [--set key=value]... [--out DIR]");
  sub_->require_subcommand(1);
  thr_ = sub_->add_subcommand("throughput",
                              "SUE throughput and latency report on the system testbench (IETF draft 5.1/5.2): "
                              "sizes x peers x direction and incast at full load, latency at 50/80/95 % load");
  thr_->add_option("--set", o_.sets, "key=value setting of the system testbench for every run (cosim list system)");
  thr_->add_option("--seed", seed_s_, "random seed (default 1)");
  thr_->add_option("--cycles", cycles_s_, "traffic cycles per run, warm-up included (default 30000)");
  thr_->add_option("--warmup", warmup_s_, "SUE cycles before the measurement window (default 10000)");
  thr_->add_option("--pass", pass_s_, "efficiency a row needs to pass, % (default 95)");
  thr_->add_option("--out", o_.out_dir, "folder for throughput.{txt,json,csv,md,png} (default report)");
  thr_->add_flag("--quick", o_.quick, "256 B and the mix only, bidirectional only");
  thr_->add_flag("--no-plot", no_plot_, "no PNG (no gnuplot)");
}

bool Command::parsed() const { return sub_->parsed(); }

int Command::run() const {
  Options o = o_;
  auto num = [](const std::string& what, const std::string& v, double lo, double hi) {
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || !(x >= lo && x <= hi))
      throw core::UsageError(fmt::format("{} '{}' is not a number in {}..{} (allowed: {}..{})", what, v, lo, hi, lo, hi));
    return x;
  };
  if (!seed_s_.empty()) o.seed = static_cast<uint64_t>(num("--seed", seed_s_, 0, 4294967295.0));
  if (!cycles_s_.empty()) o.cycles = static_cast<uint64_t>(num("--cycles", cycles_s_, 100, 1e9));
  if (!warmup_s_.empty()) o.warmup = static_cast<uint64_t>(num("--warmup", warmup_s_, 0, 1e9));
  if (o.warmup >= o.cycles)
    throw core::UsageError(fmt::format("--warmup {} leaves no measurement window in --cycles {} (allowed: --warmup below "
                                       "--cycles)", o.warmup, o.cycles));
  if (!pass_s_.empty()) o.pass_pct = num("--pass", pass_s_, 0, 100);
  o.plot = !no_plot_;
  const Report r = report::run(o, &std::cerr);
  std::cout << r.text();
  if (!o.out_dir.empty()) {
    try {
      write(r, o);
    } catch (const reproduce::GnuplotError& e) {
      std::cerr << "cosim: " << e.what() << "\n";
      return 1;
    }
    std::cout << fmt::format("wrote {}/throughput.txt, .json, .csv, .md{}\n", o.out_dir, o.plot ? ", .png" : "");
  }
  return r.pass ? 0 : 1;
}

}  // namespace tb::report
