// `cosim budget`: the one-way and round-trip latency of a SUE command against the
// SUE specification's budget (appendix A), component by component (docs/latency-budget.md).
//
//   SUE TX (parameter) -> link NIC->switch (lnk::Channel, measured) -> switch (sw::Switch,
//   measured from the stage timestamps) -> link switch->NIC (measured) -> SUE RX (parameter)
//
// SUE TX and RX are named parameters with documented defaults, printed as "parameter, not
// measured" (this command does not simulate the SUE RTL): the pipeline defaults are the RTL's
// zero-load cycles at its 1.6 GHz clock, measured end to end by `cosim run sue_system`
// (docs/sue.md "Testbench"); MAC, PCS and PMA stay assumptions.
// Plain C++ (no SystemC): the tests call run() directly.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "link/link.hpp"
#include "switch/switch.hpp"

namespace CLI {
class App;
}

namespace tb::budget {

// ---- the specification (SUE spec appendix A)
constexpr double kSueBudgetNs = 100.0;      ///< each SUE (sender TX, receiver RX)
constexpr double kSwitchBudgetNs = 250.0;   ///< the switch, pin to pin
constexpr double kRoundTripMaxNs = 2000.0;  ///< "round trip under 2 us"
constexpr double kMaxLengthM = 10.0;        ///< the appendix's longest cable

/// FEC modes of SUE spec section 3.5.4: RS-544 (IEEE) or the lower-latency RS-272,
/// with 2-way codeword interleaving or not.
enum class Fec { rs544, rs544_ni, rs272, rs272_ni };
enum class Pattern { uniform, incast };

struct FecInfo {
  Fec fec;
  const char* name;
  double enc_ns;  ///< FEC encode at the transmitter
  double dec_ns;  ///< FEC decode (codeword accumulation + correction) at the receiver
  const char* what;
};
/// The four modes with their documented default latencies (assumptions, docs/latency-budget.md).
const std::vector<FecInfo>& fec_table();
const FecInfo& fec_info(Fec f);

/// One row of the appendix A table.
struct AppendixRow {
  lnk::Cable cable;
  double length_m;
  double spec_total_ns;  ///< as printed in the spec; < 0: unreadable in our copy
  const char* note;
  double cable_ns() const;     ///< one cable: length x ns/m (lnk::ps_per_meter)
  double computed_ns() const;  ///< 100 + 100 + 2 x cable + 250
};
const std::vector<AppendixRow>& appendix_rows();

/// Everything that sets a budget run. Named parameters (SUE side, FEC) are doubles
/// reachable by name through `--set name=value` (see params()).
struct Config {
  lnk::Cable cable = lnk::Cable::twinax;
  double length_m = 2.0;
  Fec fec = Fec::rs544;
  uint32_t frame_bytes = 256;   ///< the command's Ethernet frame (no preamble/IFG)
  uint32_t ack_bytes = 64;      ///< the acknowledgment's frame (minimum Ethernet frame)
  unsigned port_gbps = 800;     ///< NIC and switch ports

  // SUE transmit: parameters. The pipeline defaults are the SUE RTL's zero-load figures,
  // measured end to end by `cosim run sue_system` (summary "Pipeline cycles", docs/sue.md
  // "Testbench"): the design clock is 1.6 GHz (docs/sue.md "Clock and rates").
  double sue_clock_mhz = 1600;        ///< SUE core clock (sue_tx / sue_rx design clock)
  double sue_tx_pipeline_cycles = 4;  ///< XPU interface -> MAC: command complete -> first beat of its PDU (RTL, zero load)
  double sue_tx_mac_ns = 8;           ///< MAC transmit
  double sue_tx_pcs_ns = 3;           ///< PCS encode (64b/66b -> 256b/257b transcode, scramble)
  double sue_tx_pma_ns = 5;           ///< PMA/SerDes transmit
  // SUE receive: parameters (the pipeline default measured like the TX one)
  double sue_rx_pma_ns = 5;           ///< SerDes/PMA receive (CDR, deserializer)
  double sue_rx_pcs_ns = 5;           ///< PCS receive (alignment, descramble, transcode)
  double sue_rx_mac_ns = 8;           ///< MAC receive, FCS check
  double sue_rx_pipeline_cycles = 5;  ///< MAC -> XPU interface: eof beat taken -> first command out (RTL, zero load)
  // FEC: defaults come from fec_table() for `fec`
  double fec_enc_ns = -1;             ///< < 0: fec_table()
  double fec_dec_ns = -1;             ///< < 0: fec_table()

  sw::Params sw;                      ///< switch stages etc. (defaults: docs/switch.md)

  // loaded latency through the switch model (sw::Harness)
  double load = 0;                    ///< 0: no loaded run
  Pattern pattern = Pattern::uniform;
  unsigned loaded_ports = 16;         ///< switch radix of the loaded run
  unsigned incast_fan_in = 8;         ///< incast senders toward the probe's destination
  double probe_load = 0.02;           ///< probe flow, fraction of the port rate
  uint64_t probes = 10000;            ///< probe packets measured
  uint64_t seed = 1;

  double enc_ns() const;
  double dec_ns() const;
  /// The switch parameters actually used: `sw` with the port rate, MTU and the FEC
  /// delta applied to rx_phy_ns / tx_phy_ns (switch defaults are for rs544).
  sw::Params switch_params() const;
  lnk::Params link_params() const;
};

/// A named, settable parameter of Config (`--set name=value`).
struct Param {
  std::string name;
  double& (*ref)(Config&);  ///< the field it sets
  double lo, hi;
  std::string help;
};
const std::vector<Param>& params();

/// The command line's raw values; parse() validates them (core::UsageError: one line
/// naming the option and the allowed values).
struct Options {
  std::string cable = "twinax", length = "2", fec = "rs544", frame_bytes = "256", port_gbps = "800";
  std::string load = "0", pattern = "uniform", probes = "10000", seed = "1";
  std::vector<std::string> sets;
  std::string json, report;
};
Config parse(const Options& o);

/// One contribution to a component's latency.
struct Part {
  std::string name;
  double ns;
  std::string source;  ///< "measured: ..." or "parameter <name>"
};

/// One component of the path against its budget.
struct Line {
  std::string component;
  std::string kind;  ///< "measured", "parameter, not measured", "parameter + measured"
  double ns = 0;
  double budget_ns = 0;
  bool pass = true;
  std::vector<Part> parts;
};

struct Path {
  uint32_t frame_bytes = 0;
  std::vector<Line> lines;  ///< SUE TX, link A, switch, link B, SUE RX
  double total_ns = 0, budget_ns = 0;
  bool pass = true;  ///< every line and the total
};

struct Loaded {
  bool ran = false;
  double load = 0;
  Pattern pattern = Pattern::uniform;
  uint64_t probes = 0;
  double p50 = 0, p99 = 0, p999 = 0, max = 0;  ///< switch pin to pin, probe flow, ns
  double zero_load_switch_ns = 0;
  double one_way_p50 = 0, one_way_p99 = 0, one_way_p999 = 0;
  uint64_t lossless_drops = 0;
  bool scoreboard_ok = true;
};

struct Result {
  Config cfg;
  Path request;  ///< command one way
  Path ack;      ///< its acknowledgment back (same components, ack_bytes frame)
  double rtt_ns = 0;
  bool rtt_pass = true;
  std::vector<AppendixRow> appendix;
  Loaded loaded;
  std::vector<std::string> notes;
  bool pass = true;  ///< every component of both paths, totals and the round trip
};

/// Measures the zero-load switch latency: one packet at t=0 into an idle sw::Switch.
sw::Packet measure_switch(const sw::Params& p, uint32_t bytes);
/// Runs everything; throws core::UsageError on an inconsistent configuration.
Result run(const Config& cfg);

std::string text(const Result& r);
nlohmann::json json(const Result& r);
std::string markdown(const Result& r);

const char* to_string(Fec f);
const char* to_string(Pattern p);

/// `cosim budget` on a CLI11 application (kept alive until run()).
class Command {
 public:
  explicit Command(CLI::App& app);
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;
  bool parsed() const;
  /// 0: every component within budget; 1: something over budget; throws core::UsageError.
  int run() const;

 private:
  CLI::App* sub_ = nullptr;
  Options o_;
};

}  // namespace tb::budget
