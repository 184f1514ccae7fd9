#include "dragonfly/dragonfly_tb.hpp"

#include <systemc.h>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "common/table.hpp"

namespace tb::dragonfly_tb {

namespace {

constexpr uint64_t kCycles = 20000;  // measured window (cycles = the paper's ns)

void declare(core::Schema& s) {
  s.add_choice("routing", "par", {"minimal", "valiant", "ugal", "par"},
               "minimal; valiant; ugal = UGAL-L at the source; par = PAR-6/2 (UGAL-L-like at the source, re-evaluated "
               "at the next router of the source group; 6 local / 2 global VCs). cosim bench runs minimal, ugal, par");
  s.add_choice("traffic", "uniform", {"uniform", "shift"},
               "uniform random destination (!= self); shift: every endpoint of group i sends to group i+1 (adversarial)");
  s.add_real("load", 0.3, 0.0, 1.0, "offered flits per endpoint per cycle (Bernoulli packet arrivals)");
  s.add_int("g", 33, 2, 4096, "groups; g-1 must divide a*h (paper: 33)");
  s.add_int("a", 8, 1, 64, "routers per group, all-to-all local channels (paper: 8)");
  s.add_int("p", 4, 1, 64, "endpoints per router (paper: 4)");
  s.add_int("h", 4, 1, 64, "global channels per router (paper: 4)");
  s.add_int("local_cycles", 40, 1, 1000000, "local channel latency, cycles (= ns at 1 flit/ns; paper: 40)");
  s.add_int("global_cycles", 500, 1, 1000000, "global channel latency, cycles (paper: 500)");
  s.add_int("endpoint_cycles", 1, 1, 1000000, "endpoint <-> router channel latency, cycles");
  s.add_int("router_cycles", 0, 0, 1000, "router pipeline head in -> head out, cycles (paper: none)");
  s.add_int("min_flits", 16, 1, 64, "smallest packet, flits (uniform in [min_flits, max_flits]; paper: 8..32)");
  s.add_int("max_flits", 16, 1, 64, "largest packet, flits");
  s.add_int("vc_buf_flits", 1100, 1, 32767, "CBFC credits per input port per VC, flits (> 2 x global latency)");
  s.add_int("ugal_threshold", 0, 0, 1000000, "UGAL-L bias toward minimal, flits");
  s.add_int("par_threshold", 0, 0, 1000000, "PAR bias toward minimal, flits of the par_signal measure");
  s.add_choice("par_signal", "queue", {"queue", "credits"},
               "PAR's congestion estimate per output: queue = flits in this router's egress queue; credits = queue + "
               "credits in use toward the downstream (its buffer + flits in flight, as UGAL-L)");
  s.add_int("warmup_cycles", 3000, 0, 100000000, "cycles before the measurement window opens");
  s.add_int("drain_cycles", -1, -1, 1000000000,
            "cycles allowed to deliver everything after the window (-1: auto, 100000 + the flits still outstanding)");
  s.add_bool("scoreboard", true, "end-to-end scoreboard: every packet delivered exactly once");
}

/// CPU time of this process, seconds (the bench's rate per CPU-second: what one
/// dedicated core would give, less sensitive than wall time to other jobs on the machine).
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double current_rss_mib() {
  long pages = 0, rss = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  const int n = std::fscanf(f, "%ld %ld", &pages, &rss);
  std::fclose(f);
  return n == 2 ? static_cast<double>(rss) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0) : 0;
}

std::string fabric_line(const sw::DragonflyParams& d) {
  return fmt::format(
      "{} groups x {} routers x {} endpoints ({} routers, {} endpoints, radix {}), h={} global channels per router; "
      "local {} / global {} / endpoint {} cycles, router {} cycles; {}..{}-flit packets; {} VC buffer flits",
      d.g, d.a, d.p, d.routers(), d.endpoints(), d.radix(), d.h, d.local_cycles, d.global_cycles, d.endpoint_cycles,
      d.router_cycles, d.min_flits, d.max_flits, d.vc_buf_flits);
}

/// Flits that left router output ports (router traversals), all routers, since construction.
uint64_t flit_hops(sw::Dragonfly& df) {
  const sw::DragonflyParams& d = df.params();
  const unsigned C = df.router(0).params().num_classes;
  const uint32_t fb = df.router(0).params().flit_bytes;
  uint64_t bytes = 0;
  for (unsigned r = 0; r < d.routers(); ++r) {
    const sw::Switch& s = df.router(r);
    for (unsigned port = 0; port < d.radix(); ++port)
      for (unsigned c = 0; c < C; ++c) bytes += s.stats(port, c).tx_bytes;
  }
  return bytes / fb;
}

// ------------------------------------------------------------------ run

/// The run as a state machine stepped once per cycle: warm-up, window, drain.
class DfRun {
 public:
  DfRun(const sw::DragonflyParams& d, uint64_t warm, uint64_t window, int64_t drain)
      : df_(d), warm_(warm), window_(window), drain_setting_(drain) {}
  sw::Dragonfly& df() { return df_; }
  /// One cycle; true when the run is over.
  bool step() {
    if (n_ == warm_) df_.reset_stats();
    df_.tick();
    ++n_;
    if (n_ == warm_ + window_) {
      stats_ = df_.stats();
      df_.set_generators(false);
      left_at_end_ = df_.outstanding();
      drain_limit_ = drain_setting_ >= 0 ? static_cast<uint64_t>(drain_setting_)
                                         : 100000 + left_at_end_ * df_.params().max_flits;
    }
    if (n_ < warm_ + window_) return false;
    drain_used_ = n_ - (warm_ + window_);
    return df_.outstanding() == 0 || drain_used_ >= drain_limit_;
  }
  uint64_t cycles() const { return n_; }
  const sw::DfStats& stats() const { return stats_; }
  uint64_t drain_limit() const { return drain_limit_; }
  uint64_t drain_used() const { return drain_used_; }
  uint64_t left_at_end() const { return left_at_end_; }

 private:
  sw::Dragonfly df_;
  uint64_t warm_, window_;
  int64_t drain_setting_;
  uint64_t n_ = 0, drain_limit_ = 0, drain_used_ = 0, left_at_end_ = 0;
  sw::DfStats stats_;
};

/// One self-timed SystemC process steps the whole fabric once per core cycle.
SC_MODULE(DragonflySc) {
  SC_HAS_PROCESS(DragonflySc);
  DragonflySc(sc_core::sc_module_name n, std::function<bool()> step, core::Ps period)
      : sc_module(n), step_(std::move(step)), period_(static_cast<double>(period), sc_core::SC_PS) {
    SC_METHOD(tick);
  }

 private:
  std::function<bool()> step_;
  sc_core::sc_time period_;
  void tick() {
    if (step_())
      sc_core::sc_stop();
    else
      next_trigger(period_);
  }
};

RunResult run(const RunConfig& cfg) {
  const sw::DragonflyParams d = params_from_settings(cfg.settings, cfg.seed);
  const uint64_t window = cfg.cycles ? cfg.cycles : kCycles;
  const uint64_t warm = static_cast<uint64_t>(cfg.settings.i("warmup_cycles"));
  DfRun dr(d, warm, window, cfg.settings.i("drain_cycles"));
  {
    DragonflySc top("dragonfly", [&dr] { return dr.step(); }, d.router_params().period());
    sc_core::sc_start();
  }
  const sw::DfStats& s = dr.stats();
  sw::Dragonfly& df = dr.df();
  const bool drained = df.outstanding() == 0;
  core::Scoreboard::Counts sb{};
  if (d.scoreboard) sb = df.scoreboard().finish();
  const sw::DfStats after = df.stats();  // drops and misdeliveries including the drain

  RunResult r;
  r.cycles = dr.cycles();
  r.sim_time = static_cast<core::Ps>(dr.cycles()) * d.router_params().period();
  Table t(fmt::format("dragonfly, routing {}, {} traffic at {:.2f} flits/endpoint/cycle: {} warm-up + {} measured cycles "
                      "(cycle = one flit time = the paper's ns), then drain",
                      d.routing == sw::DfRouting::par
                          ? fmt::format("par (par_signal {}, par_threshold {})", sw::to_string(d.par_signal),
                                        d.par_threshold)
                          : std::string(sw::to_string(d.routing)),
                      sw::to_string(d.traffic), d.load, warm, window));
  t.header({"metric", "value"});
  t.row({"offered / accepted load, flits/endpoint/cycle", fmt::format("{:.4f} / {:.4f}", s.offered_rate, s.accepted_rate)});
  t.row({"packets offered / delivered in the window", fmt::format("{} / {}", s.offered_pkts, s.delivered_pkts)});
  t.row({"latency mean / P99 / max, cycles (creation -> tail ejected)",
         fmt::format("{:.1f} / {:.0f} / {:.0f}", s.lat_mean, s.lat_p99, s.lat_max)});
  t.row({"router-to-router hops, min..max", fmt::format("{}..{}", s.hops_min, s.hops_max)});
  t.row({"non-minimal packets", fmt::format("{:.1f} %", 100.0 * s.nonminimal_share)});
  t.row({"drops + misdeliveries (whole run)", fmt::format("{}", after.drops)});
  t.row({"outstanding at end of window / drained in", fmt::format("{} pkts / {}", dr.left_at_end(),
                                                                   drained ? fmt::format("{} cycles", dr.drain_used())
                                                                           : std::string("NOT drained"))});
  if (d.scoreboard)
    t.row({"scoreboard delivered / lost / duplicated / unexpected",
           fmt::format("{} / {} / {} / {}", sb.matched, sb.lost, sb.duplicated, sb.unexpected)});

  std::string out = "  " + fabric_line(d) + "\n\n" + t.str();
  nlohmann::json& j = r.json;
  j["fabric"] = {{"g", d.g}, {"a", d.a}, {"p", d.p}, {"h", d.h}, {"routers", d.routers()}, {"endpoints", d.endpoints()},
                 {"radix", d.radix()}, {"local_cycles", d.local_cycles}, {"global_cycles", d.global_cycles},
                 {"endpoint_cycles", d.endpoint_cycles}, {"router_cycles", d.router_cycles},
                 {"min_flits", d.min_flits}, {"max_flits", d.max_flits}, {"vc_buf_flits", d.vc_buf_flits}};
  j["routing"] = sw::to_string(d.routing);
  if (d.routing == sw::DfRouting::par) {
    j["par_signal"] = sw::to_string(d.par_signal);
    j["par_threshold"] = d.par_threshold;
  }
  j["traffic"] = sw::to_string(d.traffic);
  j["load"] = d.load;
  j["warmup_cycles"] = warm;
  j["window_cycles"] = window;
  j["cycles"] = r.cycles;
  j["offered_rate"] = s.offered_rate;
  j["accepted_rate"] = s.accepted_rate;
  j["offered_pkts"] = s.offered_pkts;
  j["delivered_pkts"] = s.delivered_pkts;
  j["latency_cycles"] = {{"mean", s.lat_mean}, {"p99", s.lat_p99}, {"max", s.lat_max}};
  j["hops"] = {{"min", s.hops_min}, {"max", s.hops_max}};
  j["nonminimal_share"] = s.nonminimal_share;
  j["drops"] = after.drops;
  j["drained"] = drained;
  j["drain_cycles"] = dr.drain_used();
  if (d.scoreboard)
    j["scoreboard"] = {{"expected", sb.expected}, {"delivered", sb.matched}, {"lost", sb.lost},
                       {"duplicated", sb.duplicated}, {"corrupted", sb.corrupted}, {"unexpected", sb.unexpected}};

  if (after.drops) r.failures.push_back(fmt::format("{} packets dropped or misdelivered (must be 0)", after.drops));
  if (!drained)
    r.failures.push_back(fmt::format("{} packets not delivered within {} drain cycles (deadlock, or raise drain_cycles)",
                                     df.outstanding(), dr.drain_limit()));
  if (d.scoreboard && !sb.clean())
    r.failures.push_back(fmt::format("scoreboard: {} lost, {} duplicated, {} corrupted, {} unexpected", sb.lost,
                                     sb.duplicated, sb.corrupted, sb.unexpected));
  if (s.delivered_pkts == 0 && d.load > 0) r.failures.push_back("no packet delivered in the window");
  r.pass = r.failures.empty();
  if (!r.pass) out += "\n  reproduce: " + reproduce_line(cfg, false) + "\n";
  r.summary = out;
  return r;
}

// ------------------------------------------------------------------ bench

struct BenchRow {
  sw::DfRouting routing = sw::DfRouting::minimal;
  double rate = 0, cpu_rate = 0, flit_hops_rate = 0, rss_mib = 0, peak_mib = 0;  // per wall / CPU second
  sw::DfStats s;
};
static_assert(std::is_trivially_copyable_v<BenchRow>, "BenchRow crosses a pipe as bytes");

/// The measured window in a plain C++ loop (after a warm-up that is not timed).
BenchRow bench_plain_here(sw::DragonflyParams d, sw::DfRouting rt, uint64_t warm, uint64_t n) {
  using clk = std::chrono::steady_clock;
  d.routing = rt;
  BenchRow b;
  b.routing = rt;
  sw::Dragonfly df(d);
  df.run(warm);
  df.reset_stats();
  const uint64_t h0 = flit_hops(df);
  const double c0 = cpu_seconds();
  const auto t0 = clk::now();
  df.run(n);
  const double secs = std::chrono::duration<double>(clk::now() - t0).count();
  b.cpu_rate = static_cast<double>(n) / (cpu_seconds() - c0);
  b.s = df.stats();
  b.rate = static_cast<double>(n) / secs;
  b.flit_hops_rate = static_cast<double>(flit_hops(df) - h0) / secs;
  b.rss_mib = current_rss_mib();
  b.peak_mib = peak_rss_mib();
  return b;
}

/// bench_plain_here in a child process, so that every routing starts from a fresh
/// heap and its peak memory is its own (falls back to this process if fork fails).
BenchRow bench_plain(const sw::DragonflyParams& d, sw::DfRouting rt, uint64_t warm, uint64_t n) {
  int fd[2];
  if (pipe(fd) != 0) return bench_plain_here(d, rt, warm, n);
  std::cout << std::flush;
  const pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return bench_plain_here(d, rt, warm, n);
  }
  if (pid == 0) {
    close(fd[0]);
    int rc = 1;
    try {
      const BenchRow b = bench_plain_here(d, rt, warm, n);
      rc = write(fd[1], &b, sizeof b) == static_cast<ssize_t>(sizeof b) ? 0 : 1;
    } catch (...) {
    }
    _exit(rc);
  }
  close(fd[1]);
  BenchRow b;
  size_t got = 0;
  while (got < sizeof b) {
    const ssize_t k = read(fd[0], reinterpret_cast<char*>(&b) + got, sizeof b - got);
    if (k <= 0) break;
    got += static_cast<size_t>(k);
  }
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got != sizeof b || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(fmt::format("dragonfly bench: the {} run failed in its child process", sw::to_string(rt)));
  return b;
}

BenchResult bench(const RunConfig& cfg) {
  sw::DragonflyParams d = params_from_settings(cfg.settings, cfg.seed);
  // UGAL-L and PAR run whatever `routing` says: they need an intermediate group
  if (d.g < 3)
    throw core::UsageError(fmt::format("setting g={}: the bench's adaptive routings need g >= 3 (an intermediate "
                                       "group)", d.g));
  const uint64_t n = cfg.cycles ? cfg.cycles : kCycles;
  const uint64_t warm = static_cast<uint64_t>(cfg.settings.i("warmup_cycles"));
  const double target = 5000;
  std::vector<BenchRow> rows;
  for (sw::DfRouting rt : {sw::DfRouting::minimal, sw::DfRouting::ugal, sw::DfRouting::par})
    rows.push_back(bench_plain(d, rt, warm, n));

  // The same minimal run under the SystemC testbench (one self-timed process per cycle).
  double sc_rate = 0, sc_cpu_rate = 0;
  uint64_t sc_delivered = 0;
  {
    using clk = std::chrono::steady_clock;
    d.routing = sw::DfRouting::minimal;
    sw::Dragonfly df(d);
    df.run(warm);
    df.reset_stats();
    uint64_t k = 0;
    DragonflySc top("dragonfly_bench", [&] {
      df.tick();
      return ++k >= n;
    }, d.router_params().period());
    const double c0 = cpu_seconds();
    const auto t0 = clk::now();
    sc_core::sc_start();
    sc_rate = static_cast<double>(n) / std::chrono::duration<double>(clk::now() - t0).count();
    sc_cpu_rate = static_cast<double>(n) / (cpu_seconds() - c0);
    sc_delivered = df.stats().delivered_pkts;
  }
  const double overhead = rows[0].cpu_rate / sc_cpu_rate;
  const bool same = sc_delivered == rows[0].s.delivered_pkts;

  Table t(fmt::format("cosim bench dragonfly: {}; {} traffic at {:.2f} flits/endpoint/cycle, scoreboard {}; seed {}, "
                      "{} warm-up + {} measured cycles per routing, one core",
                      fabric_line(d), sw::to_string(d.traffic), d.load, d.scoreboard ? "on" : "off", cfg.seed, warm, n));
  t.header({"routing", "cycles/s", "cycles/CPU-s", "flit-hops/s", "peak MiB", "accepted / offered",
            "latency mean / P99", "hops", "non-minimal"});
  for (const BenchRow& b : rows)
    t.row({sw::to_string(b.routing), fmt::format("{:.0f}", b.rate), fmt::format("{:.0f}", b.cpu_rate),
           fmt::format("{:.3g}", b.flit_hops_rate),
           fmt::format("{:.1f}", b.peak_mib), fmt::format("{:.4f} / {:.4f}", b.s.accepted_rate, b.s.offered_rate),
           fmt::format("{:.1f} / {:.0f}", b.s.lat_mean, b.s.lat_p99), fmt::format("{}..{}", b.s.hops_min, b.s.hops_max),
           fmt::format("{:.3f}", b.s.nonminimal_share)});
  BenchResult r;
  r.text = t.str();
  std::string met_by, missed_by;
  for (const BenchRow& b : rows)
    (b.rate >= target ? met_by : missed_by) += (std::string(", ") + sw::to_string(b.routing));
  r.text += fmt::format("target {:.0f} cycles per wall-second on one core: met by {}; missed by {}\n", target,
                        met_by.empty() ? "none" : met_by.substr(2), missed_by.empty() ? "none" : missed_by.substr(2));
  r.text += "cycles/s per wall-second; cycles/CPU-s per second of CPU time of the process (= a dedicated core; wall "
            "time also counts other jobs on the machine)\n";
  r.text += fmt::format("SystemC testbench (minimal): {:.0f} cycles/s, {:.0f} cycles/CPU-s, same results as the plain "
                        "loop: {} ({} packets)\n",
                        sc_rate, sc_cpu_rate, same ? "yes" : "NO", sc_delivered);
  r.text += "peak MiB = peak resident memory of the process that ran that routing (one process per routing)\n";
  r.text += fmt::format("peak memory {:.1f} MiB (this process, with the SystemC run)\n", peak_rss_mib());
  r.text += fmt::format("systemc_overhead {:.2f}\n", overhead);

  nlohmann::json& j = r.json;
  j = {{"bench", "dragonfly"},
       {"cycles", n},
       {"warmup_cycles", warm},
       {"seed", cfg.seed},
       {"g", d.g},
       {"a", d.a},
       {"p", d.p},
       {"h", d.h},
       {"endpoints", d.endpoints()},
       {"traffic", sw::to_string(d.traffic)},
       {"load", d.load},
       {"scoreboard", d.scoreboard},
       {"target_cycles_per_s", target},
       {"target_met", missed_by.empty()},
       {"systemc_cycles_per_s", sc_rate},
       {"systemc_cycles_per_cpu_s", sc_cpu_rate},
       {"systemc_overhead", overhead},
       {"identical_results", same},
       {"peak_rss_mib", peak_rss_mib()}};
  for (const BenchRow& b : rows)
    j["routings"][sw::to_string(b.routing)] = {{"cycles_per_s", b.rate},
                                              {"cycles_per_cpu_s", b.cpu_rate},
                                              {"flit_hops_per_s", b.flit_hops_rate},
                                              {"rss_mib", b.rss_mib},
                                              {"peak_rss_mib", b.peak_mib},
                                              {"offered_rate", b.s.offered_rate},
                                              {"accepted_rate", b.s.accepted_rate},
                                              {"latency_mean", b.s.lat_mean},
                                              {"latency_p99", b.s.lat_p99},
                                              {"hops_max", b.s.hops_max},
                                              {"nonminimal_share", b.s.nonminimal_share},
                                              {"drops", b.s.drops}};
  return r;
}

}  // namespace

sw::DragonflyParams params_from_settings(const core::Settings& s, uint64_t seed) {
  sw::DragonflyParams d;
  if (!sw::parse_routing(s.s("routing"), &d.routing))
    throw core::UsageError(fmt::format("setting 'routing'='{}' is not a routing (allowed: {})", s.s("routing"),
                                       sw::routing_choices()));
  d.traffic = s.s("traffic") == "shift" ? sw::DfTraffic::shift : sw::DfTraffic::uniform;
  d.load = s.r("load");
  d.g = static_cast<unsigned>(s.i("g"));
  d.a = static_cast<unsigned>(s.i("a"));
  d.p = static_cast<unsigned>(s.i("p"));
  d.h = static_cast<unsigned>(s.i("h"));
  d.local_cycles = static_cast<unsigned>(s.i("local_cycles"));
  d.global_cycles = static_cast<unsigned>(s.i("global_cycles"));
  d.endpoint_cycles = static_cast<unsigned>(s.i("endpoint_cycles"));
  d.router_cycles = static_cast<unsigned>(s.i("router_cycles"));
  d.min_flits = static_cast<unsigned>(s.i("min_flits"));
  d.max_flits = static_cast<unsigned>(s.i("max_flits"));
  d.vc_buf_flits = static_cast<unsigned>(s.i("vc_buf_flits"));
  d.ugal_threshold = static_cast<unsigned>(s.i("ugal_threshold"));
  d.par_threshold = static_cast<unsigned>(s.i("par_threshold"));
  if (!sw::parse_par_signal(s.s("par_signal"), &d.par_signal))
    throw core::UsageError(fmt::format("setting 'par_signal'='{}' is not a signal (allowed: {})", s.s("par_signal"),
                                       sw::par_signal_choices()));
  d.scoreboard = s.b("scoreboard");
  d.seed = seed;
  if (std::string err = d.validate(); !err.empty()) throw core::UsageError("setting " + err);
  return d;
}

Testbench testbench() {
  Testbench t;
  t.name = "dragonfly";
  t.description = "Dragonfly fabric (the ordering paper's 1,056 endpoints) on the switch model: minimal, Valiant, "
                  "UGAL-L or PAR-6/2 routing under uniform or adversarial traffic; load, latency, hops, exactly once";
  t.default_cycles = kCycles;
  t.declare = declare;
  t.validate = [](const RunConfig& c) {
    if (!c.waves_path.empty())
      throw core::UsageError("dragonfly has no RTL signals to dump (plain C++ switch model): --waves is not available");
    params_from_settings(c.settings, c.seed);
  };
  t.run = run;
  t.bench = bench;
  t.bench_name = "dragonfly";
  t.clock_period = [](const core::Settings&) { return sw::DragonflyParams().router_params().period(); };
  return t;
}

}  // namespace tb::dragonfly_tb
