// `cosim budget`: see budget.hpp and docs/latency-budget.md.
#include "budget/budget.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "common/table.hpp"
#include "core/settings.hpp"
#include "core/stats.hpp"
#include "switch/harness.hpp"

namespace tb::budget {

namespace {

constexpr double kEps = 1e-9;

[[noreturn]] void usage(const std::string& s) { throw core::UsageError(s); }

double parse_real(const std::string& opt, const std::string& v, double lo, double hi, const std::string& allowed) {
  errno = 0;
  char* end = nullptr;
  const double x = v.empty() ? 0 : std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(x))
    usage(fmt::format("{} '{}' is not a number (allowed: {})", opt, v, allowed));
  if (x < lo || x > hi) usage(fmt::format("{} {} is out of range (allowed: {})", opt, v, allowed));
  return x;
}

uint64_t parse_uint(const std::string& opt, const std::string& v, uint64_t lo, uint64_t hi,
                    const std::string& allowed) {
  if (v.empty() || v[0] == '-' || v[0] == '+') usage(fmt::format("{} '{}' is not an integer (allowed: {})", opt, v, allowed));
  errno = 0;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) usage(fmt::format("{} '{}' is not an integer (allowed: {})", opt, v, allowed));
  if (x < lo || x > hi) usage(fmt::format("{} {} is out of range (allowed: {})", opt, v, allowed));
  return x;
}

std::string f1(double v) { return fmt::format("{:.2f}", v); }

bool le(double a, double b) { return a <= b + kEps; }

}  // namespace

// ---------------------------------------------------------------- the specification

const std::vector<FecInfo>& fec_table() {
  // Assumptions (the SUE spec gives no FEC latency, section 3.5.4 only ranks RS-272 below
  // RS-544): docs/latency-budget.md "FEC". rs544_ni totals 42 ns of the 60 ns per-hop PHY latency
  // the link model assumes (lnk::kDefaultFecLatencyNs); interleaving adds one more codeword
  // accumulation at 800G (RS-544: 5440 bits / 800 Gb/s = 6.8 ns; RS-272: 3.4 ns).
  static const std::vector<FecInfo> t = {
      {Fec::rs544, "rs544", 7, 42, "RS(544,514), 2-way codeword interleave (IEEE 802.3 800GBASE-R)"},
      {Fec::rs544_ni, "rs544_ni", 7, 35, "RS(544,514), no interleave"},
      {Fec::rs272, "rs272", 4, 22, "RS(272,257), 2-way interleave (lower latency, weaker correction)"},
      {Fec::rs272_ni, "rs272_ni", 4, 18, "RS(272,257), no interleave"},
  };
  return t;
}

const FecInfo& fec_info(Fec f) {
  for (const FecInfo& i : fec_table())
    if (i.fec == f) return i;
  return fec_table().front();
}

const char* to_string(Fec f) { return fec_info(f).name; }
const char* to_string(Pattern p) { return p == Pattern::uniform ? "uniform" : "incast"; }

double AppendixRow::cable_ns() const { return length_m * static_cast<double>(lnk::ps_per_meter(cable)) / 1000.0; }
double AppendixRow::computed_ns() const { return kSueBudgetNs + kSueBudgetNs + 2 * cable_ns() + kSwitchBudgetNs; }

const std::vector<AppendixRow>& appendix_rows() {
  // Transcribed from the spec's appendix A ("Total Latency Budget"), our OCR copy.
  static const std::vector<AppendixRow> rows = {
      {lnk::Cable::smf, 10, 549.2, ""},
      {lnk::Cable::hcf, 10, 520.0, ""},
      {lnk::Cable::smf, 5, 499.6, ""},
      {lnk::Cable::hcf, 5, 496.0, "spec prints 496, its own terms 100+100+17.5+17.5+250 sum to 485; 496 is the 5 m twinax sum (likely a row shift in our copy)"},
      {lnk::Cable::twinax, 5, -1, "total unreadable in our copy (the line ends at '=')"},
      {lnk::Cable::twinax, 3, 477.6, ""},
  };
  return rows;
}

// ---------------------------------------------------------------- configuration

double Config::enc_ns() const { return fec_enc_ns >= 0 ? fec_enc_ns : fec_info(fec).enc_ns; }
double Config::dec_ns() const { return fec_dec_ns >= 0 ? fec_dec_ns : fec_info(fec).dec_ns; }

sw::Params Config::switch_params() const {
  sw::Params p = sw;
  p.port_gbps = port_gbps;
  p.lane_gbps = port_gbps >= 200 ? 200 : 100;
  p.mtu_bytes = std::max<unsigned>({p.mtu_bytes, frame_bytes, ack_bytes});
  // The switch's PHY stages are for the default FEC (rs544); both ends of a link run the
  // same FEC, so another mode moves the switch's decode and encode by the same difference.
  const FecInfo& ref = fec_info(Fec::rs544);
  p.rx_phy_ns += dec_ns() - ref.dec_ns;
  p.tx_phy_ns += enc_ns() - ref.enc_ns;
  return p;
}

lnk::Params Config::link_params() const {
  lnk::Params p;
  p.rate_gbps = port_gbps;
  p.cable = cable;
  p.length_m = length_m;
  // The PHY/FEC latency of a hop is inside its endpoints (SUE TX/RX parameters, the switch's
  // rx_phy/tx_phy stages), as in the spec's budget; the channel carries wire and cable only.
  p.fec_latency_ns = 0;
  return p;
}

const std::vector<Param>& params() {
#define BUDGET_P(NAME, EXPR, LO, HI, HELP) \
  Param { NAME, [](Config& c) -> double& { return EXPR; }, LO, HI, HELP }
  static const std::vector<Param> ps = {
      BUDGET_P("sue_clock_mhz", c.sue_clock_mhz, 100, 5000, "SUE core clock, MHz"),
      BUDGET_P("sue_tx_pipeline_cycles", c.sue_tx_pipeline_cycles, 0, 10000, "SUE TX pipeline, XPU interface to MAC"),
      BUDGET_P("sue_tx_mac_ns", c.sue_tx_mac_ns, 0, 10000, "SUE MAC transmit"),
      BUDGET_P("sue_tx_pcs_ns", c.sue_tx_pcs_ns, 0, 10000, "SUE PCS transmit"),
      BUDGET_P("sue_tx_pma_ns", c.sue_tx_pma_ns, 0, 10000, "SUE PMA/SerDes transmit"),
      BUDGET_P("sue_rx_pma_ns", c.sue_rx_pma_ns, 0, 10000, "SUE PMA/SerDes receive"),
      BUDGET_P("sue_rx_pcs_ns", c.sue_rx_pcs_ns, 0, 10000, "SUE PCS receive"),
      BUDGET_P("sue_rx_mac_ns", c.sue_rx_mac_ns, 0, 10000, "SUE MAC receive"),
      BUDGET_P("sue_rx_pipeline_cycles", c.sue_rx_pipeline_cycles, 0, 10000, "SUE RX pipeline, MAC to XPU interface"),
      BUDGET_P("fec_enc_ns", c.fec_enc_ns, 0, 10000, "FEC encode (default: per --fec)"),
      BUDGET_P("fec_dec_ns", c.fec_dec_ns, 0, 10000, "FEC decode (default: per --fec)"),
      BUDGET_P("switch.rx_phy_ns", c.sw.rx_phy_ns, 0, 10000, "switch stage (docs/switch.md)"),
      BUDGET_P("switch.rx_mac_ns", c.sw.rx_mac_ns, 0, 10000, "switch stage"),
      BUDGET_P("switch.parse_ns", c.sw.parse_ns, 0, 10000, "switch stage"),
      BUDGET_P("switch.lookup_ns", c.sw.lookup_ns, 0, 10000, "switch stage"),
      BUDGET_P("switch.admit_ns", c.sw.admit_ns, 0, 10000, "switch stage"),
      BUDGET_P("switch.sched_ns", c.sw.sched_ns, 0, 10000, "switch stage"),
      BUDGET_P("switch.xbar_ns", c.sw.xbar_ns, 0, 10000, "switch stage"),
      BUDGET_P("switch.egress_ns", c.sw.egress_ns, 0, 10000, "switch stage"),
      BUDGET_P("switch.tx_mac_ns", c.sw.tx_mac_ns, 0, 10000, "switch stage"),
      BUDGET_P("switch.tx_phy_ns", c.sw.tx_phy_ns, 0, 10000, "switch stage"),
  };
#undef BUDGET_P
  return ps;
}

Config parse(const Options& o) {
  Config c;
  if (!lnk::parse_cable(o.cable, c.cable)) usage(fmt::format("--cable '{}' is not a cable (allowed: smf|hcf|twinax)", o.cable));
  c.length_m = parse_real("--length", o.length, 0, kMaxLengthM, "0..10 m, SUE spec appendix A");
  bool fec_ok = false;
  for (const FecInfo& i : fec_table())
    if (o.fec == i.name) c.fec = i.fec, fec_ok = true;
  if (!fec_ok) usage(fmt::format("--fec '{}' is not a FEC mode (allowed: rs544|rs544_ni|rs272|rs272_ni)", o.fec));
  c.frame_bytes = static_cast<uint32_t>(parse_uint("--frame-bytes", o.frame_bytes, 64, 9216, "64..9216"));
  c.port_gbps = static_cast<unsigned>(parse_uint("--port-gbps", o.port_gbps, 0, 100000, "800|400|200|100"));
  if (c.port_gbps != 800 && c.port_gbps != 400 && c.port_gbps != 200 && c.port_gbps != 100)
    usage(fmt::format("--port-gbps {} is not a port rate (allowed: 800|400|200|100)", o.port_gbps));
  c.load = parse_real("--load", o.load, 0, 1, "0..1, fraction of the port rate; 0 = zero load only");
  if (o.pattern == "uniform")
    c.pattern = Pattern::uniform;
  else if (o.pattern == "incast")
    c.pattern = Pattern::incast;
  else
    usage(fmt::format("--pattern '{}' is not a pattern (allowed: uniform|incast)", o.pattern));
  c.probes = parse_uint("--probes", o.probes, 100, 10'000'000, "100..10000000");
  c.seed = parse_uint("--seed", o.seed, 0, UINT64_MAX, "0..2^64-1");
  for (const std::string& s : o.sets) {
    const auto eq = s.find('=');
    std::string names;
    for (const Param& p : params()) names += (names.empty() ? "" : ", ") + p.name;
    if (eq == std::string::npos) usage(fmt::format("--set '{}' is not name=value (allowed names: {})", s, names));
    const std::string key = s.substr(0, eq), val = s.substr(eq + 1);
    const Param* hit = nullptr;
    for (const Param& p : params())
      if (p.name == key) hit = &p;
    if (!hit) usage(fmt::format("--set: unknown parameter '{}' (allowed: {})", key, names));
    hit->ref(c) = parse_real("--set " + key, val, hit->lo, hit->hi, fmt::format("{}..{}", hit->lo, hit->hi));
  }
  const std::string e = c.switch_params().validate();
  if (!e.empty()) usage("--set: switch " + e);
  const sw::Params sp = c.switch_params();
  if (sp.rx_phy_ns < 0 || sp.tx_phy_ns < 0)
    usage(fmt::format("--set: switch rx_phy_ns/tx_phy_ns below the FEC difference of --fec {} (allowed: >= 0 after it)",
                      to_string(c.fec)));
  return c;
}

// ---------------------------------------------------------------- measurement

sw::Packet measure_switch(const sw::Params& p, uint32_t bytes) {
  sw::Params q = p;
  q.radix = std::max(q.radix, 2u);
  sw::Switch s(q);
  s.set_route(1, 1);
  sw::Packet pk;
  pk.id = 1;
  pk.dst_xpu = 1;
  pk.bytes = bytes;
  pk.cls = 0;
  pk.t_in = 0;  // on a core-clock edge: zero-load latency is exact (docs/switch.md)
  s.inject(0, pk);
  for (uint64_t i = 0; i < 10'000'000; ++i) {
    s.tick();
    for (const sw::Packet& d : s.departures())
      if (d.id == 1) return d;
    if (!s.drops().empty()) break;
  }
  throw std::logic_error("budget: the probe packet did not leave the switch");
}

namespace {

struct LinkMeasure {
  core::Ps ser = 0;         ///< first bit -> last bit leaves (wire time of frame + overhead)
  core::Ps first_bit = 0;   ///< first bit leaves -> first bit at the far pin
};

LinkMeasure measure_link(const lnk::Params& lp, uint32_t bytes) {
  lnk::Channel ch(lp);
  lnk::Frame f;
  f.id = 1;
  f.len = bytes;
  const core::Ps last_out = ch.send(0, f);
  const core::Ps arrive = ch.next_arrival();  // last bit at the far end
  lnk::Item it;
  if (!ch.receive(arrive, it)) throw std::logic_error("budget: the frame did not arrive");
  LinkMeasure m;
  m.ser = last_out;
  m.first_bit = arrive - last_out;
  return m;
}

Line make_line(std::string comp, std::string kind, double budget, std::vector<Part> parts) {
  Line l;
  l.component = std::move(comp);
  l.kind = std::move(kind);
  l.budget_ns = budget;
  l.parts = std::move(parts);
  for (const Part& p : l.parts) l.ns += p.ns;
  l.pass = le(l.ns, budget);
  return l;
}

Path one_way(const Config& c, uint32_t bytes, const sw::Params& sp, const lnk::Params& lp) {
  Path path;
  path.frame_bytes = bytes;
  const double cyc = 1000.0 / c.sue_clock_mhz;
  const double cable_budget = c.length_m * static_cast<double>(lnk::ps_per_meter(c.cable)) / 1000.0;
  const LinkMeasure a = measure_link(lp, bytes);
  const LinkMeasure b = measure_link(lp, bytes);
  const sw::Packet d = measure_switch(sp, bytes);

  path.lines.push_back(make_line(
      "SUE TX (sender NIC)", "parameter, not measured", kSueBudgetNs,
      {{"pipeline", c.sue_tx_pipeline_cycles * cyc,
        fmt::format("parameter sue_tx_pipeline_cycles={} x {:.3f} ns (default: RTL at zero load, sue_system)",
                    c.sue_tx_pipeline_cycles, cyc)},
       {"MAC", c.sue_tx_mac_ns, "parameter sue_tx_mac_ns"},
       {"PCS", c.sue_tx_pcs_ns, "parameter sue_tx_pcs_ns"},
       {"FEC encode", c.enc_ns(), fmt::format("parameter fec_enc_ns ({})", to_string(c.fec))},
       {"PMA/SerDes", c.sue_tx_pma_ns, "parameter sue_tx_pma_ns"},
       {"serialization", core::to_ns(a.ser),
        fmt::format("measured: lnk::Channel, {} B + {} B preamble/IFG at {} Gb/s", bytes, lp.overhead_bytes,
                    c.port_gbps)}}));
  const std::string cable = fmt::format("{} m {}", c.length_m, lnk::to_string(c.cable));
  path.lines.push_back(make_line("link NIC -> switch", "measured", cable_budget,
                                 {{"cable " + cable, core::to_ns(a.first_bit), "measured: lnk::Channel, first bit"},
                                  {"PHY/FEC", 0, "in the endpoints (SUE TX/RX, switch rx_phy/tx_phy)"}}));
  const sw::Params& q = sp;
  path.lines.push_back(make_line(
      "switch (port to port)", "measured", kSwitchBudgetNs,
      {{"ingress", core::to_ns(d.t_ready - d.t_in),
        fmt::format("measured t_ready-t_in (rx_phy {} + rx_mac {} + parse {} + lookup {})", q.rx_phy_ns, q.rx_mac_ns,
                    q.parse_ns, q.lookup_ns)},
       {"buffer write", core::to_ns(d.t_buffered - d.t_ready), fmt::format("measured t_buffered-t_ready (admit {})", q.admit_ns)},
       {"scheduling", core::to_ns(d.t_scheduled - d.t_buffered),
        fmt::format("measured t_scheduled-t_buffered (sched {})", q.sched_ns)},
       {"egress", core::to_ns(d.t_head_out - d.t_scheduled),
        fmt::format("measured t_head_out-t_scheduled (xbar {} + egress {} + tx_mac {} + tx_phy {})", q.xbar_ns,
                    q.egress_ns, q.tx_mac_ns, q.tx_phy_ns)}}));
  path.lines.push_back(make_line("link switch -> NIC", "measured", cable_budget,
                                 {{"cable " + cable, core::to_ns(b.first_bit), "measured: lnk::Channel, first bit"},
                                  {"PHY/FEC", 0, "in the endpoints (SUE TX/RX, switch rx_phy/tx_phy)"}}));
  path.lines.push_back(make_line(
      "SUE RX (receiver NIC)", "parameter, not measured", kSueBudgetNs,
      {{"PMA/SerDes", c.sue_rx_pma_ns, "parameter sue_rx_pma_ns"},
       {"FEC decode", c.dec_ns(), fmt::format("parameter fec_dec_ns ({})", to_string(c.fec))},
       {"PCS", c.sue_rx_pcs_ns, "parameter sue_rx_pcs_ns"},
       {"MAC", c.sue_rx_mac_ns, "parameter sue_rx_mac_ns"},
       {"pipeline", c.sue_rx_pipeline_cycles * cyc,
        fmt::format("parameter sue_rx_pipeline_cycles={} x {:.3f} ns (default: RTL at zero load, sue_system)",
                    c.sue_rx_pipeline_cycles, cyc)}}));
  path.budget_ns = 2 * kSueBudgetNs + 2 * cable_budget + kSwitchBudgetNs;
  for (const Line& l : path.lines) {
    path.total_ns += l.ns;
    path.pass = path.pass && l.pass;
  }
  path.pass = path.pass && le(path.total_ns, path.budget_ns);
  return path;
}

Loaded run_loaded(const Config& c, const sw::Params& base) {
  Loaded L;
  L.ran = true;
  L.load = c.load;
  L.pattern = c.pattern;
  sw::Params sp = base;
  sp.radix = c.loaded_ports;
  sp.seed = c.seed;
  sw::HarnessParams hp;
  hp.link_ns = c.length_m * static_cast<double>(lnk::ps_per_meter(c.cable)) / 1000.0;
  hp.seed = c.seed;
  sw::Harness h(sp, hp);
  h.keep_log(true);
  const unsigned R = sp.radix;
  const unsigned probe_src = 0, probe_dst = 1;
  h.add_source(probe_src, {probe_dst}, 0, c.probe_load, c.frame_bytes);
  if (c.pattern == Pattern::uniform) {
    for (unsigned s = 1; s < R; ++s) {
      std::vector<uint32_t> dsts;
      for (unsigned d = 0; d < R; ++d)
        if (d != s) dsts.push_back(d);
      h.add_source(s, dsts, 0, c.load, c.frame_bytes);
    }
  } else {
    const unsigned n = std::min(c.incast_fan_in, R - 2);
    for (unsigned s = 2; s < 2 + n; ++s) h.add_source(s, {probe_dst}, 0, c.load / n, c.frame_bytes);
  }
  const sw::Params& zp = base;
  L.zero_load_switch_ns = core::to_ns(zp.zero_load_latency());
  h.run_for(core::ns(20'000));  // warm-up
  h.delivered_log().clear();
  core::Samples lat;
  const double gap_ns = core::to_ns(sp.serialization(uint64_t{c.frame_bytes} + sp.overhead_bytes)) / c.probe_load;
  const core::Ps limit = h.sw().now() + core::ns(gap_ns * static_cast<double>(c.probes) * 4 + 1'000'000);
  while (lat.count() < c.probes && h.sw().now() < limit) {
    h.run_for(core::ns(10'000));
    for (const sw::Packet& p : h.delivered_log())
      if (p.src_port == probe_src && p.dst_xpu == probe_dst && lat.count() < c.probes)
        lat.add(core::to_ns(p.t_head_out - p.t_in));
    h.delivered_log().clear();
  }
  h.keep_log(false);
  h.drain(core::ns(50'000'000));
  const core::Scoreboard::Counts& sc = h.scoreboard().finish();
  L.scoreboard_ok = sc.clean();
  L.lossless_drops = h.sw().lossless_drops();
  L.probes = lat.count();
  L.p50 = lat.percentile(50);
  L.p99 = lat.percentile(99);
  L.p999 = lat.percentile(99.9);
  L.max = lat.max();
  return L;
}

}  // namespace

Result run(const Config& cfg) {
  Result r;
  r.cfg = cfg;
  const sw::Params sp = cfg.switch_params();
  const std::string e = sp.validate();
  if (!e.empty()) usage("switch " + e);
  const lnk::Params lp = cfg.link_params();
  const std::string le_ = lp.validate();
  if (!le_.empty()) usage(le_);
  r.request = one_way(cfg, cfg.frame_bytes, sp, lp);
  r.ack = one_way(cfg, cfg.ack_bytes, sp, lp);
  r.rtt_ns = r.request.total_ns + r.ack.total_ns;
  r.rtt_pass = r.rtt_ns < kRoundTripMaxNs;
  r.appendix = appendix_rows();
  r.pass = r.request.pass && r.ack.pass && r.rtt_pass;
  r.notes.push_back(
      "SUE TX/RX are parameters: the pipeline defaults (4 + 5 cycles at 1600 MHz) are the SUE RTL at zero load, measured by "
      "`cosim run sue_system`; MAC/PCS/PMA are assumptions (docs/latency-budget.md lists every default).");
  r.notes.push_back(
      "FEC latencies are assumptions: the SUE spec (3.5.4) gives none, it only ranks RS-272 below RS-544.");
  r.notes.push_back(
      "appendix A OCR: the hollow-core per-metre line (3.5 ns/m) is unreadable and inferred from its 10 m row "
      "(35.0 ns); the 5 m twinax total is unreadable; the 5 m hcf total printed (496) does not match its terms (485)."
      " The budget of this run is computed from the per-metre figures, never from the printed totals.");
  if (cfg.load > 0) {
    r.loaded = run_loaded(cfg, sp);
    const double fixed = r.request.total_ns - r.request.lines[2].ns;
    r.loaded.one_way_p50 = fixed + r.loaded.p50;
    r.loaded.one_way_p99 = fixed + r.loaded.p99;
    r.loaded.one_way_p999 = fixed + r.loaded.p999;
  }
  return r;
}

// ---------------------------------------------------------------- reports

namespace {
const char* verdict(bool ok) { return ok ? "PASS" : "FAIL"; }

std::string config_line(const Config& c) {
  return fmt::format("budget: cable={} length={} m fec={} frame_bytes={} port_gbps={} load={} pattern={}",
                     lnk::to_string(c.cable), c.length_m, to_string(c.fec), c.frame_bytes, c.port_gbps, c.load,
                     to_string(c.pattern));
}

std::string path_table(const std::string& title, const Path& p) {
  tb::Table t(title);
  t.header({"component", "ns", "budget ns", "result", "how"});
  for (const Line& l : p.lines) {
    t.row({l.component, f1(l.ns), f1(l.budget_ns), verdict(l.pass), l.kind});
    for (const Part& x : l.parts) t.row({"  " + x.name, f1(x.ns), "", "", x.source});
  }
  t.row({"total one way", f1(p.total_ns), f1(p.budget_ns), verdict(le(p.total_ns, p.budget_ns)), "spec appendix A"});
  return t.str();
}
}  // namespace

std::string text(const Result& r) {
  std::string s = config_line(r.cfg) + "\n\n";
  s += path_table(fmt::format("One-way latency at zero load, command frame {} B", r.request.frame_bytes), r.request);
  s += "\n";
  tb::Table rt("Round trip: command one way + acknowledgment back");
  rt.header({"leg", "ns", "limit ns", "result"});
  rt.row({fmt::format("command ({} B)", r.request.frame_bytes), f1(r.request.total_ns), "", verdict(r.request.pass)});
  rt.row({fmt::format("acknowledgment ({} B)", r.ack.frame_bytes), f1(r.ack.total_ns), "", verdict(r.ack.pass)});
  rt.row({"round trip", f1(r.rtt_ns), f1(kRoundTripMaxNs), verdict(r.rtt_pass)});
  s += rt.str();
  s += "\n";
  tb::Table at("Spec appendix A: one-way budget = SUE 100 + cable + switch 250 + cable + SUE 100");
  at.header({"configuration", "cable ns (each)", "computed ns", "spec prints ns", "match"});
  for (const AppendixRow& a : r.appendix) {
    const bool known = a.spec_total_ns >= 0;
    const bool match = known && std::fabs(a.computed_ns() - a.spec_total_ns) < 0.05;
    at.row({fmt::format("{} m {}", a.length_m, lnk::to_string(a.cable)), f1(a.cable_ns()), f1(a.computed_ns()),
            known ? f1(a.spec_total_ns) : "unreadable", !known ? "n/a" : match ? "yes" : "NO"});
  }
  s += at.str();
  for (const AppendixRow& a : r.appendix)
    if (*a.note) s += fmt::format("note: {} m {}: {}\n", a.length_m, lnk::to_string(a.cable), a.note);
  if (r.loaded.ran) {
    const Loaded& L = r.loaded;
    s += "\n";
    tb::Table lt(fmt::format("Loaded latency: probe flow port 0 -> 1 through the switch model, {} load {} ({} probes, "
                             "{} ports)",
                             to_string(L.pattern), L.load, L.probes, r.cfg.loaded_ports));
    lt.header({"percentile", "switch ns", "one way ns", "zero-load switch ns"});
    lt.row({"P50", f1(L.p50), f1(L.one_way_p50), f1(L.zero_load_switch_ns)});
    lt.row({"P99", f1(L.p99), f1(L.one_way_p99), ""});
    lt.row({"P99.9", f1(L.p999), f1(L.one_way_p999), ""});
    lt.row({"max", f1(L.max), "", ""});
    s += lt.str();
    s += fmt::format("loaded: lossless drops {}, scoreboard {} (informational, not gated)\n", L.lossless_drops,
                     L.scoreboard_ok ? "clean" : "NOT CLEAN");
  }
  s += "\n";
  for (const std::string& n : r.notes) s += "note: " + n + "\n";
  s += fmt::format("\nRESULT: {}\n", r.pass ? "PASS (every component within budget)" : "FAIL (over budget)");
  return s;
}

nlohmann::json json(const Result& r) {
  using nlohmann::json;
  auto path = [](const Path& p) {
    json lines = json::array();
    for (const Line& l : p.lines) {
      json parts = json::array();
      for (const Part& x : l.parts) parts.push_back({{"name", x.name}, {"ns", x.ns}, {"source", x.source}});
      lines.push_back({{"component", l.component}, {"kind", l.kind}, {"ns", l.ns}, {"budget_ns", l.budget_ns},
                       {"pass", l.pass}, {"parts", parts}});
    }
    return json{{"frame_bytes", p.frame_bytes}, {"components", lines}, {"total_ns", p.total_ns},
                {"budget_ns", p.budget_ns}, {"pass", p.pass}};
  };
  json app = json::array();
  for (const AppendixRow& a : r.appendix)
    app.push_back({{"cable", lnk::to_string(a.cable)}, {"length_m", a.length_m}, {"cable_ns", a.cable_ns()},
                   {"computed_ns", a.computed_ns()},
                   {"spec_total_ns", a.spec_total_ns >= 0 ? json(a.spec_total_ns) : json(nullptr)}, {"note", a.note}});
  const Config& c = r.cfg;
  json j{{"config",
          {{"cable", lnk::to_string(c.cable)}, {"length_m", c.length_m}, {"fec", to_string(c.fec)},
           {"frame_bytes", c.frame_bytes}, {"ack_bytes", c.ack_bytes}, {"port_gbps", c.port_gbps}, {"load", c.load},
           {"pattern", to_string(c.pattern)}}},
         {"request", path(r.request)},
         {"ack", path(r.ack)},
         {"rtt_ns", r.rtt_ns},
         {"rtt_max_ns", kRoundTripMaxNs},
         {"rtt_pass", r.rtt_pass},
         {"appendix_a", app},
         {"notes", r.notes},
         {"pass", r.pass}};
  if (r.loaded.ran) {
    const Loaded& L = r.loaded;
    j["loaded"] = {{"load", L.load}, {"pattern", to_string(L.pattern)}, {"probes", L.probes},
                   {"switch_p50_ns", L.p50}, {"switch_p99_ns", L.p99}, {"switch_p999_ns", L.p999},
                   {"switch_max_ns", L.max}, {"one_way_p50_ns", L.one_way_p50}, {"one_way_p99_ns", L.one_way_p99},
                   {"one_way_p999_ns", L.one_way_p999}, {"lossless_drops", L.lossless_drops},
                   {"scoreboard_clean", L.scoreboard_ok}};
  }
  return j;
}

std::string markdown(const Result& r) {
  std::string s = "# Latency budget\n\n`" + config_line(r.cfg) + "`\n\n";
  auto path = [&](const std::string& title, const Path& p) {
    s += "## " + title + "\n\n| component | ns | budget ns | result | how |\n|---|---:|---:|---|---|\n";
    for (const Line& l : p.lines) {
      s += fmt::format("| **{}** | {} | {} | {} | {} |\n", l.component, f1(l.ns), f1(l.budget_ns), verdict(l.pass),
                       l.kind);
      for (const Part& x : l.parts) s += fmt::format("| &nbsp;&nbsp;{} | {} | | | {} |\n", x.name, f1(x.ns), x.source);
    }
    s += fmt::format("| **total one way** | {} | {} | {} | spec appendix A |\n\n", f1(p.total_ns), f1(p.budget_ns),
                     verdict(le(p.total_ns, p.budget_ns)));
  };
  path(fmt::format("One way at zero load (command, {} B)", r.request.frame_bytes), r.request);
  path(fmt::format("Acknowledgment back ({} B)", r.ack.frame_bytes), r.ack);
  s += fmt::format("## Round trip\n\n{} ns (limit {} ns): **{}**\n\n", f1(r.rtt_ns), f1(kRoundTripMaxNs),
                   verdict(r.rtt_pass));
  s += "## Spec appendix A\n\n| configuration | cable ns (each) | computed ns | spec prints ns | note |\n"
       "|---|---:|---:|---:|---|\n";
  for (const AppendixRow& a : r.appendix)
    s += fmt::format("| {} m {} | {} | {} | {} | {} |\n", a.length_m, lnk::to_string(a.cable), f1(a.cable_ns()),
                     f1(a.computed_ns()), a.spec_total_ns >= 0 ? f1(a.spec_total_ns) : "unreadable", a.note);
  if (r.loaded.ran) {
    const Loaded& L = r.loaded;
    s += fmt::format("\n## Loaded ({} load {}, {} probes)\n\n| percentile | switch ns | one way ns |\n|---|---:|---:|\n",
                     to_string(L.pattern), L.load, L.probes);
    s += fmt::format("| P50 | {} | {} |\n| P99 | {} | {} |\n| P99.9 | {} | {} |\n", f1(L.p50), f1(L.one_way_p50),
                     f1(L.p99), f1(L.one_way_p99), f1(L.p999), f1(L.one_way_p999));
  }
  s += "\n## Notes\n\n";
  for (const std::string& n : r.notes) s += "- " + n + "\n";
  s += fmt::format("\n**RESULT: {}**\n", r.pass ? "PASS" : "FAIL");
  return s;
}

// ---------------------------------------------------------------- command line

Command::Command(CLI::App& app) {
  sub_ = app.add_subcommand("budget", "one-way and round-trip latency against the SUE spec's budget (docs/latency-budget.md)");
  sub_->add_option("--cable", o_.cable, "smf|hcf|twinax (default twinax)");
  sub_->add_option("--length", o_.length, "cable length, m, 0..10 (default 2)");
  sub_->add_option("--fec", o_.fec, "rs544|rs544_ni|rs272|rs272_ni (default rs544, interleaved)");
  sub_->add_option("--frame-bytes", o_.frame_bytes, "command frame, bytes, 64..9216 (default 256)");
  sub_->add_option("--port-gbps", o_.port_gbps, "800|400|200|100 (default 800)");
  sub_->add_option("--load", o_.load, "background load 0..1 for loaded P50/P99/P99.9 (default 0: zero load only)");
  sub_->add_option("--pattern", o_.pattern, "uniform|incast (default uniform)");
  sub_->add_option("--probes", o_.probes, "probe packets of the loaded run (default 10000)");
  sub_->add_option("--seed", o_.seed, "seed of the loaded run (default 1)");
  sub_->add_option("--set", o_.sets, "name=value: a named parameter (SUE, FEC, switch.<stage>_ns); repeatable");
  sub_->add_option("--json", o_.json, "write the figures as JSON to this file");
  sub_->add_option("--report", o_.report, "write a Markdown report to this file");
}

bool Command::parsed() const { return sub_ && sub_->parsed(); }

int Command::run() const {
  const Config c = parse(o_);
  std::ofstream jf, rf;  // opened first: a bad path is bad input, before anything runs
  if (!o_.json.empty()) {
    jf.open(o_.json);
    if (!jf) usage(fmt::format("--json: cannot write '{}'", o_.json));
  }
  if (!o_.report.empty()) {
    rf.open(o_.report);
    if (!rf) usage(fmt::format("--report: cannot write '{}'", o_.report));
  }
  const Result r = tb::budget::run(c);
  std::cout << text(r);
  if (jf.is_open()) jf << json(r).dump(2) << "\n";
  if (rf.is_open()) rf << markdown(r);
  return r.pass ? 0 : 1;
}

}  // namespace tb::budget
