// `cosim report throughput`: the SUE instance's throughput and latency report after the IETF AI-fabric
// benchmarking draft, sections 5.1 (baseline throughput) and 5.2 (latency characterization), on the
// `system` testbench (docs/system.md "Throughput report").
//
// Rows: command sizes 64, 128, 256 B and the default mix x {1 peer (unordered mode, all ports), 4 peers,
// all peers} x {unidirectional, bidirectional}, and an incast into one XPU; each at full offered load, with
// offered, delivered (sent per sender, received per receiver), the wire-limited goodput of an XPU's ports
// (sue/goodput.hpp), the efficiency and PASS/FAIL at `pass_pct`. Latency: uniform traffic of the default
// mix at 50, 80 and 95 % load against an unloaded run (1 %): min, P50, P99, P99.9, max and the
// loaded/unloaded factor. Written as text, JSON, CSV, Markdown and a PNG plot (gnuplot).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace CLI {
class App;
}

namespace tb::report {

struct Options {
  std::vector<std::string> sets;  ///< key=value settings of the system testbench, for every run
  uint64_t seed = 1;
  uint64_t cycles = 30000;        ///< traffic cycles per run, warm-up included
  uint64_t warmup = 10000;        ///< SUE cycles before the measurement window
  double pass_pct = 95;           ///< a row passes at this efficiency or above
  std::string out_dir = "report"; ///< "" writes no files
  bool quick = false;             ///< sizes 256 B and the mix only, no unidirectional rows
  bool plot = true;               ///< run gnuplot for DIR/throughput.png
};

struct Row {
  std::string shape;      ///< "1 peer", "4 peers", "all peers", "incast N:1"
  std::string direction;  ///< "uni" | "bi"
  std::string sizes;      ///< "64" | "128" | "256" | "mix"
  std::string mode;       ///< strict | unordered
  std::vector<std::string> sets;  ///< what the row sets on top of Options::sets
  double offered = 0;     ///< Gb/s of XPU command bytes offered per sending XPU
  double sent = 0;        ///< mean over the senders, Gb/s delivered of what they sent
  double received = 0;    ///< mean over the receivers, Gb/s
  double limit = 0;       ///< wire-limited goodput of one XPU's ports at the row's mean command size
  double efficiency = 0;  ///< % of limit: the receiver for incast, the senders otherwise
  /// The tightest structural bound below the wire limit, % of it (100: none) and what it is: "bus" (the XPU
  /// bus at the row's delivered command sizes) or "pin" (strict mode's flows per port); docs/system.md.
  double bound_pct = 100;
  std::string bound_what;
  bool clean = false;     ///< the run's checks passed (scoreboard, drops, frames)
  bool pass = false;      ///< clean and efficiency >= pass_pct
};

struct LatencyRow {
  double load = 0;
  double min = 0, p50 = 0, p99 = 0, p999 = 0, max = 0;  ///< ns, requests (VC 0)
  double factor_p50 = 1, factor_p99 = 1;                ///< against the unloaded run
  bool clean = false;
};

struct Report {
  std::vector<Row> rows;
  std::vector<LatencyRow> latency;  ///< [0] is the unloaded run
  std::string header;               ///< the configuration line
  bool pass = false;                ///< every row and latency run passed
  std::string text() const;
  std::string markdown() const;
  std::string csv() const;
  nlohmann::json json() const;
};

/// The rows the options ask for, with their settings, before anything runs.
std::vector<Row> plan(const Options& o);
/// Validates every row's settings (throws core::UsageError, one line) and then runs them; progress to `log`.
Report run(const Options& o, std::ostream* log);
/// Writes DIR/throughput.{txt,json,csv,md} and, with plot, DIR/throughput.png (throws on gnuplot failure).
void write(const Report& r, const Options& o);

class Command {
 public:
  explicit Command(CLI::App& app);
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;
  bool parsed() const;
  /// 0: every row passed; 1: a row failed or gnuplot failed; throws core::UsageError.
  int run() const;

 private:
  CLI::App* sub_ = nullptr;
  CLI::App* thr_ = nullptr;
  Options o_;
  std::string seed_s_, cycles_s_, warmup_s_, pass_s_;
  bool no_plot_ = false;
};

}  // namespace tb::report
