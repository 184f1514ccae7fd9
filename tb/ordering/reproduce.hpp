// `cosim reproduce ordering`: the experiments of the ordering-protocol paper
// (Eberle and Dennison, SC18, section IV: figures 8a, 8b, 9, 10, 11, 12) with the
// protocol endpoints (uet/) on the Dragonfly fabric (sw::Dragonfly through
// uet::DragonflyNet). Per experiment a CSV, a gnuplot script and its PNG; one
// Markdown report with every claim of the paper's text beside our value and a
// PASS/DIFF verdict with its tolerance. docs/ordering.md "Reproducing the paper".
// Plain C++ (no SystemC): the tests call run() directly or through the command line.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "switch/dragonfly.hpp"

namespace CLI {
class App;
}

namespace tb::reproduce {

/// The experiments in the paper's order: 8a 8b 9 10 11 12.
const std::vector<std::string>& experiment_ids();
/// Routing names of sw::Dragonfly (minimal, valiant, ugal-l, and PAR once it exists).
std::vector<std::string> routing_names();
/// PAR-6/2 when the Dragonfly has it, else UGAL-L.
std::string default_routing();
/// PAR's congestion estimate for the reproduction (docs/ordering.md "Reproducing the paper").
sw::DfParSignal default_par_signal();
/// PAR's bias toward minimal routes for the reproduction, flits (of the signal's measure).
unsigned default_par_threshold();

/// Raw command-line values; parse() validates them.
struct Options {
  std::string what;                              ///< "ordering"
  std::string exp = "all";                       ///< 8a|8b|9|10|11|12|all (comma lists allowed)
  std::string out = "build/reproduce/ordering";  ///< output directory
  std::string seed = "1";
  std::string routing;                           ///< "" = default_routing()
  std::string par_signal;                        ///< "" = default_par_signal() (PAR only)
  std::string par_threshold;                     ///< "" = default_par_threshold() (PAR only)
  bool quick = false;
};

struct Config {
  std::vector<std::string> exps;  ///< in the paper's order
  bool quick = false;
  std::string out_dir = "build/reproduce/ordering";
  uint64_t seed = 1;
  sw::DfRouting routing = sw::DfRouting::ugal;
  sw::DfParSignal par_signal = sw::DfParSignal::credits;  ///< PAR's congestion estimate (used with routing par)
  unsigned par_threshold = 192;  ///< PAR's bias toward minimal, flits (= default_par_threshold(); 11c bursty adds 400)
  bool plots = true;  ///< write the PNGs with gnuplot
  std::string command_line() const;  ///< the `cosim reproduce ordering ...` that reproduces this
};
/// Throws core::UsageError: one line naming the bad value and the allowed values.
Config parse(const Options& o);

/// One claim of the paper's text, the paper's value beside ours.
struct Claim {
  std::string id;         ///< e.g. "8a.fast_near_link_rate"
  std::string claim;      ///< what the paper says
  std::string paper;      ///< the paper's value
  std::string ours;       ///< our value
  std::string tolerance;  ///< the band our value must fall in for PASS
  bool pass = false;
};

struct Experiment {
  std::string id, title;
  std::string paper_setup, our_setup;
  std::string csv, png;                   ///< file names in the output directory
  std::string csv_text;                   ///< the CSV's content
  std::string table;                      ///< Markdown table of the measured points
  std::vector<Claim> claims;
  std::vector<std::string> notes;         ///< differences from the paper, in words
  std::vector<std::string> errors;        ///< checker errors: lost, duplicated, reordered, state left
  std::map<std::string, double> figures;  ///< key measured quantities (also in summary.json)
  double seconds = 0;                     ///< wall time
};

struct Result {
  std::vector<Experiment> exps;
  std::string report_path;
  double seconds = 0;
  bool ok() const;  ///< no checker error in any experiment
};

/// gnuplot could not write a plot (missing, or it failed).
struct GnuplotError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Runs one experiment (no files written).
Experiment run_experiment(const Config& c, const std::string& id);
/// Runs c.exps; writes DIR/<exp>.csv, DIR/<exp>.gp, DIR/<exp>.png, DIR/report.md and
/// DIR/summary.json. Progress lines go to `log` when given. Throws GnuplotError.
Result run(const Config& c, std::ostream* log = nullptr);
std::string markdown(const Config& c, const Result& r);

/// `cosim reproduce ordering ...` on a CLI11 application.
/// Runs gnuplot on DIR/GP in DIR (a child process, output discarded); throws GnuplotError naming the first
/// error line (also `cosim report throughput`).
void run_gnuplot(const std::string& dir, const std::string& gp);

class Command {
 public:
  explicit Command(CLI::App& app);
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;
  bool parsed() const;
  /// 0: done, no checker error; 1: a checker error or gnuplot failed; throws core::UsageError.
  int run() const;

 private:
  CLI::App* sub_ = nullptr;
  Options o_;
};

}  // namespace tb::reproduce
