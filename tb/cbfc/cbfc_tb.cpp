#include "cbfc/cbfc_tb.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <memory>

#include "cbfc/cbfc_sc.hpp"
#include "common/table.hpp"
#include "common/vcontext.hpp"
#include "verilated.h"

namespace cbfc {
std::ostream& operator<<(std::ostream& os, const TxOut& o) {
  return os << "avail0=" << o.avail[0] << " elig=" << o.elig << " err_u=" << o.err_underflow
            << " err_o=" << o.err_overflow << " err_c=" << o.err_class;
}
std::ostream& operator<<(std::ostream& os, const RxOut& o) {
  return os << "cu_valid=" << o.cu_valid << " cu_class=" << o.cu_class << " cu_limit=" << o.cu_limit
            << " occ0=" << o.occ[0] << " err_o=" << o.err_overflow << " err_u=" << o.err_underflow;
}
}  // namespace cbfc

namespace tb::cbfc_tb {

namespace {

constexpr uint64_t kLinkCycles = 20000;
constexpr uint64_t kBlockCycles = 100000;

void declare_common(core::Schema& s) {
  s.add_choice("rtl_config", "c4", variant_names(false),
               "RTL parameterization: c4 (4 classes, 64 B cells), c32 (32 classes, byte credits), "
               "c1 (1 class, 8-bit counters, 12-bit refresh), c3 (3 classes, 3-bit timer, 4-bit refresh)");
  s.add_bool("mutant", false, "use the deliberately broken RTL build (CBFC_MUTANT; rtl_config=c4 only)");
  s.add_int("clock_mhz", 1000, 100, 4000, "block clock, MHz");
  s.add_int("classes", 0, 0, 32, "classes carrying traffic (0 = all classes of rtl_config)");
}

void declare_link_params(core::Schema& s) {
  s.add_real("rate_gbps", 800, 1, 3200, "link rate, Gb/s");
  s.add_choice("cable", "twinax", {"smf", "hcf", "twinax"}, "cable type (4.96, 3.5, 4.6 ns/m)");
  s.add_real("length_m", 2, 0, 1000, "cable length, m");
  s.add_real("fec_latency_ns", lnk::kDefaultFecLatencyNs, 0, 10000, "PHY+FEC latency per direction, ns");
}

void declare_link(core::Schema& s) {
  declare_common(s);
  s.add_choice("tx", "rtl", {"rtl", "model"}, "sender implementation");
  s.add_choice("rx", "rtl", {"rtl", "model"}, "receiver implementation");
  s.add_bool("lockstep", true, "run each RTL side in lockstep with its C++ model");
  declare_link_params(s);
  s.add_int("len_min", 256, 1, 65535, "smallest frame, bytes");
  s.add_int("len_max", 2048, 1, 65535, "largest frame, bytes");
  s.add_real("load", 1.0, 0.01, 1.0, "offered load, fraction of the link rate");
  s.add_int("buffer_bytes", 32768, 64, 1 << 20, "receiver buffer per class, bytes");
  s.add_int("threshold", 8, 0, 1 << 20, "freed credits that trigger a credit update");
  s.add_int("timer", 64, 0, 1 << 20, "cycles freed credits may wait before an update is forced (0 = off)");
  s.add_int("refresh", cbfc::kRecommendedRefresh, 0, 1 << 20,
            "cycles without a credit update of a class before its limit is sent again (0 = off)");
  s.add_real("cu_loss", 0.0, 0.0, 1.0, "chance that each credit update is lost on the reverse channel");
  s.add_real("drain_ratio", 0.5, 0.01, 1.0, "receiver drain rate, fraction of the link rate");
  s.add_int("drain_cycles", 200000, 1000, 100000000, "cycles allowed to drain after traffic stops");
  s.add_bool("sweep", true, "add the buffer-size sweep (C++ models) to the summary");
}

void declare_block(core::Schema& s) {
  declare_common(s);
  s.add_bool("errors", true, "inject protocol violations (sends without credit, bogus updates, bad classes, "
                             "bogus frees) and mid-run resets");
  s.add_real("p_drain", 0.5, 0.0, 1.0, "chance per cycle that the receiver drains a frame");
}

uint64_t mask_bits(unsigned w) { return (1ull << w) - 1; }

const RtlVariant& variant_of(const core::Settings& s) {
  std::string name = s.s("rtl_config");
  if (s.b("mutant")) {
    if (name != "c4")
      throw core::UsageError(fmt::format("setting 'mutant' needs rtl_config=c4 (the only mutant build), got rtl_config={}", name));
    name = "c4_mutant";
  }
  return *find_variant(name);
}

}  // namespace

EnvConfig env_from_settings(const core::Settings& s, uint64_t seed, bool block) {
  EnvConfig e;
  const RtlVariant& v = variant_of(s);
  e.params = v.params;
  e.seed = seed;
  e.clock_ps = static_cast<core::Ps>(std::llround(1e6 / static_cast<double>(s.i("clock_mhz"))));
  int64_t classes = s.i("classes");
  if (classes > static_cast<int64_t>(e.params.num_classes))
    throw core::UsageError(fmt::format("setting 'classes'={} exceeds the {} classes of rtl_config={} (allowed: 0..{})",
                                       classes, e.params.num_classes, s.s("rtl_config"), e.params.num_classes));
  e.active_classes = classes == 0 ? e.params.num_classes : static_cast<unsigned>(classes);
  if (block) {
    e.stress = true;
    e.link.rate_gbps = 1600;
    e.link.length_m = 0;
    e.link.fec_latency_ns = 3;
    bool err = s.b("errors");
    e.p_drain = s.r("p_drain");
    e.p_bad_tx = err ? 0.003 : 0;
    e.p_bad_cu = err ? 0.002 : 0;
    e.p_bad_class = err ? 0.003 : 0;
    e.p_bad_free = err ? 0.002 : 0;
    e.p_reset = 0.0005;
    return e;
  }
  e.link.rate_gbps = s.r("rate_gbps");
  lnk::parse_cable(s.s("cable"), e.link.cable);
  e.link.length_m = s.r("length_m");
  e.link.fec_latency_ns = s.r("fec_latency_ns");
  e.len_min = static_cast<uint32_t>(s.i("len_min"));
  e.len_max = static_cast<uint32_t>(s.i("len_max"));
  e.load = s.r("load");
  e.buffer_bytes = static_cast<uint32_t>(s.i("buffer_bytes"));
  e.threshold = static_cast<uint32_t>(s.i("threshold"));
  e.timer = static_cast<uint32_t>(s.i("timer"));
  e.refresh = static_cast<uint32_t>(s.i("refresh"));
  e.cu_loss = s.r("cu_loss");
  e.drain_ratio = s.r("drain_ratio");
  const auto& p = e.params;
  const uint64_t len_cap = mask_bits(p.len_width);
  if (e.len_max > len_cap)
    throw core::UsageError(fmt::format("setting 'len_max'={} exceeds the {}-bit length port of rtl_config={} (allowed: 1..{})",
                                       e.len_max, p.len_width, s.s("rtl_config"), len_cap));
  if (e.len_min > e.len_max)
    throw core::UsageError(fmt::format("setting 'len_min'={} is above len_max={} (allowed: 1..{})", e.len_min,
                                       e.len_max, e.len_max));
  const uint64_t buf_cap = (mask_bits(p.cnt_width - 1)) << p.credit_unit_log2;
  if (e.buffer_bytes > buf_cap)
    throw core::UsageError(fmt::format("setting 'buffer_bytes'={} does not fit the {}-bit credit counters of rtl_config={} "
                                       "(allowed: 64..{})", e.buffer_bytes, p.cnt_width, s.s("rtl_config"), buf_cap));
  if (p.credits(e.len_max) > e.buf_credits())
    throw core::UsageError(fmt::format("setting 'buffer_bytes'={} is smaller than one len_max={} frame (allowed: {}..{})",
                                       e.buffer_bytes, e.len_max, e.len_max, buf_cap));
  if (e.threshold > mask_bits(p.cnt_width))
    throw core::UsageError(fmt::format("setting 'threshold'={} does not fit {} bits (allowed: 0..{})", e.threshold,
                                       p.cnt_width, mask_bits(p.cnt_width)));
  if (e.timer > mask_bits(p.timer_width))
    throw core::UsageError(fmt::format("setting 'timer'={} does not fit the {}-bit timer of rtl_config={} (allowed: 0..{})",
                                       e.timer, p.timer_width, s.s("rtl_config"), mask_bits(p.timer_width)));
  if (e.refresh > mask_bits(p.refresh_width))
    throw core::UsageError(fmt::format("setting 'refresh'={} does not fit the {}-bit refresh counter of rtl_config={} "
                                       "(allowed: 0..{})", e.refresh, p.refresh_width, s.s("rtl_config"),
                                       mask_bits(p.refresh_width)));
  if (std::string err = e.link.validate(); !err.empty()) throw core::UsageError(err);
  return e;
}

double estimate_rtt_ns(const EnvConfig& c) {
  const auto& l = c.link;
  const double P = core::to_ns(c.clock_ps);
  double rtt = core::to_ns(l.serialization(c.len_max + l.overhead_bytes)) + core::to_ns(l.serialization(l.ctl_bytes)) +
               2 * core::to_ns(l.flight());
  // Pipeline: ingress edge, drain edge, grant edge, update onto the wire, update edge at the sender.
  rtt += 5 * P;
  // Batching: credits of one frame below the threshold wait for more frees.
  const uint32_t frame_cr = c.params.credits(c.len_max);
  if (c.threshold > frame_cr) {
    double drain_bytes_per_ns = c.drain_ratio * l.rate_gbps / 8.0;
    double wait = static_cast<double>((c.threshold - frame_cr) << c.params.credit_unit_log2) / drain_bytes_per_ns;
    if (c.timer) wait = std::min(wait, static_cast<double>(c.timer + 1) * P);
    rtt += wait;
  }
  return rtt;
}

uint32_t required_buffer_bytes(const EnvConfig& c) {
  return static_cast<uint32_t>(std::ceil(c.link.rate_gbps / 8.0 * estimate_rtt_ns(c)));
}

std::vector<SweepPoint> buffer_sweep(const EnvConfig& base, const std::vector<double>& ratios, uint64_t cycles) {
  std::vector<SweepPoint> out;
  const uint32_t req = required_buffer_bytes(base);
  for (double r : ratios) {
    EnvConfig c = base;
    c.stress = false;
    c.active_classes = 1;
    c.len_min = c.len_max;  // one frame size: capacity is exact
    c.drain_ratio = 1.0;
    c.load = 1.0;
    uint32_t unit = 1u << c.params.credit_unit_log2;
    uint32_t b = static_cast<uint32_t>(std::ceil(r * req / unit)) * unit;
    b = std::max(b, c.params.credits(c.len_max) << c.params.credit_unit_log2);
    c.buffer_bytes = b;
    System sys(c, make_tx_model(c.params), make_rx_model(c.params), nullptr);
    sys.set_window(cycles / 5);
    for (uint64_t i = 0; i < cycles; ++i) sys.cycle();
    SweepPoint p;
    p.buffer_bytes = b;
    p.ratio = static_cast<double>(b) / req;
    p.gbps = sys.window_time() > 0 ? static_cast<double>(sys.window_bytes()) * 8.0 / core::to_ns(sys.window_time()) : 0;
    double cap = c.link.rate_gbps * c.len_max / static_cast<double>(c.len_max + c.link.overhead_bytes);
    p.efficiency = p.gbps / cap;
    p.loop_p50_ns = sys.credit_loop_ns().percentile(50);
    out.push_back(p);
  }
  return out;
}

namespace {

struct Built {
  VerilatedContext* ctx = nullptr;
  std::unique_ptr<Waves> waves;
  std::unique_ptr<System> sys;
  std::string tx_desc, rx_desc;
};

Built build(const EnvConfig& e, const core::Settings& s, bool block, const std::string& waves_path, bool lockstep_default) {
  Built b;
  b.ctx = shared_context();
  b.ctx->assertOn(!(block && s.b("errors")));  // violations are the stimulus there; lockstep judges
  const RtlVariant& v = variant_of(s);
  Waves* w = nullptr;
  if (!waves_path.empty()) {
    b.waves = std::make_unique<Waves>();
    w = b.waves.get();
  }
  bool tx_rtl = block || s.s("tx") == "rtl";
  bool rx_rtl = block || s.s("rx") == "rtl";
  bool lock = block || (lockstep_default && s.b("lockstep"));
  std::unique_ptr<TxBlock> tx;
  std::unique_ptr<RxBlock> rx;
  if (tx_rtl) {
    tx = make_tx_rtl(v, b.ctx, "tx", w);
    if (lock) tx = make_tx_lockstep(std::move(tx), v.params, "tx");
    b.tx_desc = fmt::format("rtl {}{}{}", v.name, v.mutant ? " (mutant)" : "", lock ? " + lockstep model" : "");
  } else {
    tx = make_tx_model(v.params);
    b.tx_desc = "model";
  }
  if (rx_rtl) {
    rx = make_rx_rtl(v, b.ctx, "rx", w);
    if (lock) rx = make_rx_lockstep(std::move(rx), v.params, "rx");
    b.rx_desc = fmt::format("rtl {}{}{}", v.name, v.mutant ? " (mutant)" : "", lock ? " + lockstep model" : "");
  } else {
    rx = make_rx_model(v.params);
    b.rx_desc = "model";
  }
  if (w) {
    if (std::string err = w->open(waves_path); !err.empty()) throw core::UsageError(err);
  }
  b.sys = std::make_unique<System>(e, std::move(tx), std::move(rx), w);
  return b;
}

/// Elaborates the SystemC top around `sys` and runs it. Once per process.
void run_systemc(Built& b, uint64_t traffic_cycles, uint64_t drain_limit, bool stop_on_error) {
  RunControl ctl{traffic_cycles, drain_limit, stop_on_error, b.ctx};
  sc_core::sc_signal<cbfc::TxOut> txo("tx_out");
  sc_core::sc_signal<cbfc::RxOut> rxo("rx_out");
  CbfcSystemSc top("cbfc", *b.sys, ctl);
  top.tx_out(txo);
  top.rx_out(rxo);
  sc_core::sc_start();
}

/// The same run as run_systemc, in a plain C++ loop (benchmarks, sweeps).
void run_plain(Built& b, uint64_t traffic_cycles, uint64_t drain_limit, bool stop_on_error) {
  RunControl ctl{traffic_cycles, drain_limit, stop_on_error, b.ctx};
  do {
    b.sys->cycle();
  } while (!ctl.done(*b.sys));
}

std::string fmt_bytes(double b) {
  if (b >= 1 << 20) return fmt::format("{:.2f} MiB", b / (1 << 20));
  if (b >= 1 << 10) return fmt::format("{:.1f} KiB", b / 1024);
  return fmt::format("{:.0f} B", b);
}

nlohmann::json mismatch_json(const Mismatch& m) {
  return {{"cycle", m.cycle}, {"time_ns", core::to_ns(m.time)}, {"block", m.block},
          {"signal", m.signal}, {"rtl", m.rtl}, {"model", m.model}};
}

void add_mismatch(RunResult& r, const Mismatch& m, const RunConfig& cfg) {
  r.has_mismatch = true;
  r.mismatch = m;
  r.failures.push_back(fmt::format("lockstep mismatch at cycle {} ({}) in {}: {} rtl={:#x} model={:#x} (seed {})",
                                   m.cycle, core::format_time(m.time), m.block, m.signal, m.rtl, m.model, cfg.seed));
  r.json["mismatch"] = mismatch_json(m);
}

RunResult run_link(const RunConfig& cfg) {
  const core::Settings& s = cfg.settings;
  EnvConfig e = env_from_settings(s, cfg.seed, false);
  const uint64_t traffic = cfg.cycles ? cfg.cycles : kLinkCycles;
  Built b = build(e, s, false, cfg.waves_path, true);
  System& sys = *b.sys;
  sys.set_window(traffic / 10);
  run_systemc(b, traffic, static_cast<uint64_t>(s.i("drain_cycles")), true);
  if (b.waves) b.waves->close();

  RunResult r;
  r.cycles = sys.cycles();
  r.sim_time = sys.now();
  const auto& p = e.params;
  const unsigned unit = 1u << p.credit_unit_log2;
  auto& sb = sys.scoreboard();
  const auto& c = sb.finish();
  nlohmann::json& j = r.json;
  j["blocks"] = {{"tx", b.tx_desc}, {"rx", b.rx_desc}};
  j["cycles"] = r.cycles;
  j["traffic_cycles"] = traffic;
  j["sim_time_ns"] = core::to_ns(r.sim_time);
  j["clock_ps"] = e.clock_ps;
  j["link"] = {{"rate_gbps", e.link.rate_gbps}, {"cable", lnk::to_string(e.link.cable)}, {"length_m", e.link.length_m},
               {"propagation_ns", core::to_ns(e.link.propagation())}, {"fec_latency_ns", e.link.fec_latency_ns}};
  j["scoreboard"] = {{"expected", c.expected}, {"matched", c.matched}, {"lost", c.lost}, {"duplicated", c.duplicated},
                     {"corrupted", c.corrupted}, {"reordered", c.reordered}, {"unexpected", c.unexpected}};

  Table tc("Per class");
  tc.header({"class", "frames", "bytes", "credit stall cyc", "longest wait", "updates", "refreshes", "lost",
             "max occupancy", "buffer", "overflow", "credits missing"});
  j["classes"] = nlohmann::json::array();
  uint64_t overflow_total = 0, updates_sent = 0, refreshes = 0, updates_lost = 0;
  std::vector<std::pair<unsigned, int64_t>> stalled;  // classes whose credits never all came back, and how many
  const cbfc::RxOut ro = sys.rx().outputs();
  const cbfc::TxOut to = sys.tx().outputs();
  // With the timer or the refresh on every credit must be home once idle;
  // without either, up to threshold - 1 credits may wait at the receiver.
  const bool all_home = e.timer != 0 || e.refresh != 0;
  for (unsigned k = 0; k < p.num_classes; ++k) {
    const auto& cs = sys.class_stats()[k];
    updates_sent += cs.updates_sent;
    refreshes += cs.refreshes;
    updates_lost += cs.updates_lost;
    const int64_t missing = all_home ? static_cast<int64_t>(e.buf_credits()) - to.avail[k] : sys.missing_credits(k);
    if (missing != 0) stalled.emplace_back(k, missing);
    if (k >= e.active_classes) continue;
    bool of = (ro.err_overflow >> k) & 1;
    overflow_total += of;
    double occ_b = static_cast<double>(cs.max_occ) * unit;
    const uint64_t wait = sys.max_wait_cycles(k);
    tc.row({std::to_string(k), std::to_string(cs.frames_sent), fmt_bytes(cs.bytes_sent), std::to_string(cs.stall_cycles),
            std::to_string(wait), std::to_string(cs.updates), std::to_string(cs.refreshes),
            std::to_string(cs.updates_lost), fmt_bytes(occ_b), fmt_bytes(e.buf_credits() * static_cast<double>(unit)),
            of ? "YES" : "0", std::to_string(missing)});
    j["classes"].push_back({{"class", k}, {"frames_sent", cs.frames_sent}, {"bytes_sent", cs.bytes_sent},
                            {"frames_drained", cs.frames_drained}, {"stall_cycles", cs.stall_cycles},
                            {"max_wait_cycles", wait}, {"updates", cs.updates}, {"updates_sent", cs.updates_sent},
                            {"refreshes", cs.refreshes}, {"updates_lost", cs.updates_lost},
                            {"max_occupancy_credits", cs.max_occ}, {"max_occupancy_bytes", occ_b},
                            {"buffer_bytes", e.buf_credits() * unit}, {"overflow", of},
                            {"credits_missing", missing}});
  }
  const double win_ns = core::to_ns(sys.window_time());
  const double gbps = win_ns > 0 ? static_cast<double>(sys.window_bytes()) * 8.0 / win_ns : 0;
  const double drain_gbps = e.drain_ratio * e.link.rate_gbps;
  const double util = static_cast<double>(sys.fwd().busy_time()) / static_cast<double>(std::max<core::Ps>(1, sys.now()));
  j["throughput_gbps"] = gbps;
  j["drain_gbps"] = drain_gbps;
  j["link_busy"] = util;
  j["buffer_overflows"] = overflow_total;
  const auto& loop = sys.credit_loop_ns();
  j["credit_loop_ns"] = {{"count", loop.count()}, {"min", loop.min()}, {"p50", loop.percentile(50)},
                         {"p99", loop.percentile(99)}, {"max", loop.max()}};
  const double rtt = estimate_rtt_ns(e);
  const uint32_t req = required_buffer_bytes(e);
  j["rtt_estimate_ns"] = rtt;
  j["required_buffer_bytes"] = req;
  // Credit updates, their loss and the refresh. The refresh costs one control
  // word per idle class per refresh + 1 cycles on the reverse channel.
  const auto& rec = sys.recovery_ns();
  const double sim_ns = core::to_ns(std::max<core::Ps>(1, sys.now()));
  const double ctl_bits = 8.0 * e.link.ctl_bytes;
  const double refresh_gbps = static_cast<double>(refreshes) * ctl_bits / sim_ns;
  const double idle_refresh_gbps =
      e.refresh ? p.num_classes * ctl_bits / ((e.refresh + 1) * core::to_ns(e.clock_ps)) : 0.0;
  j["credit_updates"] = {{"sent", updates_sent}, {"refreshes", refreshes}, {"lost", updates_lost},
                         {"lost_redundant", sys.lost_redundant()},
                         {"cu_loss", e.cu_loss}, {"refresh_cycles", e.refresh},
                         {"refresh_gbps", refresh_gbps}, {"idle_refresh_gbps", idle_refresh_gbps},
                         {"idle_refresh_fraction", idle_refresh_gbps / e.link.rate_gbps},
                         {"recovery_ns", {{"count", rec.count()}, {"p50", rec.percentile(50)},
                                          {"p99", rec.percentile(99)}, {"max", rec.max()}}}};
  j["stalled_classes"] = stalled.size();

  std::string out;
  out += fmt::format("  sender {}, receiver {}\n", b.tx_desc, b.rx_desc);
  out += fmt::format("  link {} Gb/s, {} {} m ({:.2f} ns), FEC {} ns; clock {} MHz; {} traffic cycles, {} in all ({})\n",
                     e.link.rate_gbps, lnk::to_string(e.link.cable), e.link.length_m, core::to_ns(e.link.propagation()),
                     e.link.fec_latency_ns, s.i("clock_mhz"), traffic, r.cycles, core::format_time(r.sim_time));
  out += fmt::format("  traffic {} class(es), frames {}..{} B, load {}, drain {:.0f} Gb/s, threshold {} credits, timer {} cycles, "
                     "refresh {}\n\n",
                     e.active_classes, e.len_min, e.len_max, e.load, drain_gbps, e.threshold, e.timer,
                     e.refresh ? fmt::format("{} cycles", e.refresh) : std::string("off"));
  out += tc.str() + "\n";
  Table te("End to end (scoreboard)");
  te.header({"expected", "delivered", "lost", "duplicated", "corrupted", "reordered", "unexpected"});
  te.row({std::to_string(c.expected), std::to_string(c.matched), std::to_string(c.lost), std::to_string(c.duplicated),
          std::to_string(c.corrupted), std::to_string(c.reordered), std::to_string(c.unexpected)});
  out += te.str() + "\n";
  out += fmt::format("  throughput {:.1f} Gb/s delivered (receiver drains at {:.1f} Gb/s), link busy {:.1f}%\n", gbps,
                     drain_gbps, util * 100);
  out += fmt::format("  credit loop (frame sent -> its credits back): min {:.1f} ns, p50 {:.1f} ns, p99 {:.1f} ns\n",
                     loop.min(), loop.percentile(50), loop.percentile(99));
  out += fmt::format("  credit updates: {} sent, {} of them refreshes without new credits ({:.3f} Gb/s of the reverse channel; "
                     "{:.3f} Gb/s = {:.4f}% with every class idle)\n",
                     updates_sent, refreshes, refresh_gbps, idle_refresh_gbps, 100.0 * idle_refresh_gbps / e.link.rate_gbps);
  if (e.cu_loss > 0)
    out += fmt::format("  credit updates lost (cu_loss {}): {}, {} of them carrying nothing new; the others repaired after "
                       "p50 {:.1f} ns, p99 {:.1f} ns, max {:.1f} ns ({} repaired)\n",
                       e.cu_loss, updates_lost, sys.lost_redundant(), rec.percentile(50), rec.percentile(99), rec.max(),
                       rec.count());
  out += fmt::format("  classes stalled for good (credits never back): {}\n\n", stalled.size());
  out += fmt::format("Buffer sizing\n  zero-load credit round trip for a {} B frame: {:.1f} ns\n"
                     "  buffer for full rate = rate x round trip = {} Gb/s x {:.1f} ns = {} per class (configured {})\n",
                     e.len_max, rtt, e.link.rate_gbps, rtt, fmt_bytes(req), fmt_bytes(e.buf_credits() * static_cast<double>(unit)));
  if (s.b("sweep")) {
    auto pts = buffer_sweep(e, {0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0}, 20000);
    Table tsw("  measured (C++ models, one class, drain at line rate, " + std::to_string(e.len_max) + " B frames)");
    tsw.header({"buffer", "x required", "throughput", "of capacity", "credit loop p50"});
    j["sweep"] = nlohmann::json::array();
    for (auto& pt : pts) {
      tsw.row({fmt_bytes(pt.buffer_bytes), fmt::format("{:.2f}", pt.ratio), fmt::format("{:.1f} Gb/s", pt.gbps),
               fmt::format("{:.1f}%", pt.efficiency * 100), fmt::format("{:.1f} ns", pt.loop_p50_ns)});
      j["sweep"].push_back({{"buffer_bytes", pt.buffer_bytes}, {"ratio", pt.ratio}, {"throughput_gbps", pt.gbps},
                            {"efficiency", pt.efficiency}, {"credit_loop_p50_ns", pt.loop_p50_ns}});
    }
    out += tsw.str();
  }

  if (auto m = sys.mismatch()) add_mismatch(r, *m, cfg);
  if (b.ctx->gotError()) r.failures.push_back(fmt::format("RTL assertion failed by cycle {} (see the %Error line above)", sys.cycles()));
  if (sys.protocol_error()) r.failures.push_back(*sys.protocol_error());
  for (auto [k, missing] : stalled)
    r.failures.push_back(fmt::format("class {} stalled for good: {} of {} credits never came back to the sender in {} "
                                     "cycles (a lost credit update{}; longest wait for credits {} cycles)",
                                     k, missing, e.buf_credits(), r.cycles,
                                     e.refresh ? " not repaired" : ", refresh=0", sys.max_wait_cycles(k)));
  if (!c.clean()) {
    r.failures.push_back(fmt::format("scoreboard: {} lost, {} duplicated, {} corrupted, {} reordered, {} unexpected",
                                     c.lost, c.duplicated, c.corrupted, c.reordered, c.unexpected));
    for (auto& line : sb.errors()) r.failures.push_back("  " + line);
  }
  if (c.expected == 0) r.failures.push_back("no frame was sent");
  r.pass = r.failures.empty();
  if (!r.pass) out += "\n  reproduce: " + reproduce_line(cfg) + "\n";
  r.summary = out;
  return r;
}

RunResult run_block(const RunConfig& cfg) {
  const core::Settings& s = cfg.settings;
  EnvConfig e = env_from_settings(s, cfg.seed, true);
  const uint64_t cycles = cfg.cycles ? cfg.cycles : kBlockCycles;
  Built b = build(e, s, true, cfg.waves_path, true);
  System& sys = *b.sys;
  run_systemc(b, cycles, 0, false);
  if (b.waves) b.waves->close();

  RunResult r;
  r.cycles = sys.cycles();
  r.sim_time = sys.now();
  uint64_t sent = 0, updates = 0, drained = 0, refreshes = 0;
  for (unsigned k = 0; k < e.params.num_classes; ++k) {
    sent += sys.class_stats()[k].frames_sent;
    updates += sys.class_stats()[k].updates;
    drained += sys.class_stats()[k].frames_drained;
    refreshes += sys.class_stats()[k].refreshes;
  }
  nlohmann::json& j = r.json;
  j["blocks"] = {{"tx", b.tx_desc}, {"rx", b.rx_desc}};
  j["cycles"] = r.cycles;
  j["sim_time_ns"] = core::to_ns(r.sim_time);
  j["frames_sent"] = sent;
  j["frames_drained"] = drained;
  j["credit_updates"] = updates;
  j["refresh_updates"] = refreshes;  // refreshes that carried no new credit
  j["resets"] = sys.resets();
  j["compared_cycles"] = r.cycles;
  const auto& ec = sys.error_cycles();
  j["error_cycles"] = {{"tx_underflow", ec.tx_underflow}, {"tx_overflow", ec.tx_overflow}, {"tx_class", ec.tx_class},
                       {"rx_overflow", ec.rx_overflow}, {"rx_underflow", ec.rx_underflow}, {"rx_class", ec.rx_class}};
  std::string out;
  out += fmt::format("  sender {}, receiver {}\n", b.tx_desc, b.rx_desc);
  out += fmt::format("  {} cycles compared, {} frames sent, {} drained, {} credit updates ({} refreshes without new "
                     "credits), {} mid-run resets, protocol violations injected: {}\n",
                     r.cycles, sent, drained, updates, refreshes, sys.resets(), s.b("errors") ? "yes" : "no");
  out += fmt::format("  cycles with a sticky error output set: tx underflow {}, overflow {}, class {}; "
                     "rx overflow {}, underflow {}, class {}\n",
                     ec.tx_underflow, ec.tx_overflow, ec.tx_class, ec.rx_overflow, ec.rx_underflow, ec.rx_class);
  if (auto m = sys.mismatch()) add_mismatch(r, *m, cfg);
  if (b.ctx->gotError()) r.failures.push_back(fmt::format("RTL assertion failed by cycle {} (see the %Error line above)", sys.cycles()));
  if (sent == 0) r.failures.push_back("no frame was sent: the stimulus is broken");
  r.pass = r.failures.empty();
  if (!r.pass) out += "\n  reproduce: " + reproduce_line(cfg) + "\n";
  r.summary = out;
  return r;
}

BenchResult bench(const RunConfig& cfg) {
  // The default link system, both sides RTL, no lockstep, no waves: the same
  // stimulus under the SystemC testbench and in a plain C++ loop.
  core::Settings s = cfg.settings;
  s.set("tx", "rtl");
  s.set("rx", "rtl");
  s.set("lockstep", "false");
  EnvConfig e = env_from_settings(s, cfg.seed, false);
  const uint64_t n = cfg.cycles ? cfg.cycles : 400000;
  using clk = std::chrono::steady_clock;
  auto secs = [](clk::time_point a, clk::time_point b) { return std::chrono::duration<double>(b - a).count(); };

  // 1. verilated RTL, plain C++ loop
  uint64_t plain_delivered = 0;
  double plain_rate;
  {
    {
      Built warm = build(e, s, false, "", false);
      run_plain(warm, n / 10, 0, false);
    }
    Built b = build(e, s, false, "", false);
    auto t0 = clk::now();
    run_plain(b, n, 0, false);
    plain_rate = static_cast<double>(b.sys->cycles()) / secs(t0, clk::now());
    plain_delivered = b.sys->scoreboard().counts().matched;
  }
  // 2. C++ models, plain loop (reference)
  double model_rate;
  {
    Built b;
    b.sys = std::make_unique<System>(e, make_tx_model(e.params), make_rx_model(e.params), nullptr);
    auto t0 = clk::now();
    run_plain(b, n, 0, false);
    model_rate = static_cast<double>(b.sys->cycles()) / secs(t0, clk::now());
  }
  // 3. verilated RTL under the SystemC testbench
  double sc_rate;
  uint64_t sc_delivered = 0;
  {
    Built b = build(e, s, false, "", false);
    auto t0 = clk::now();
    run_systemc(b, n, 0, false);
    sc_rate = static_cast<double>(b.sys->cycles()) / secs(t0, clk::now());
    sc_delivered = b.sys->scoreboard().counts().matched;
  }
  RtlBenchFigures f;
  f.title = fmt::format("cosim bench cbfc: cbfc_link system (traffic source, cbfc_tx, link, cbfc_rx, drain, scoreboard), "
                        "rtl_config={}", s.s("rtl_config"));
  f.plain_rate = plain_rate, f.sc_rate = sc_rate, f.model_rate = model_rate;
  f.plain_result = plain_delivered, f.sc_result = sc_delivered, f.result_what = "frames delivered";
  BenchResult r = rtl_bench_report("cbfc", cfg, n, f);
  return r;
}

}  // namespace

Testbench block_testbench() {
  Testbench t;
  t.name = "cbfc_block";
  t.layout = "cbfc_link";  // same blocks, same layout
  t.description = "CBFC RTL vs C++ model in lockstep, every output every cycle, constrained-random stress";
  t.default_cycles = kBlockCycles;
  t.declare = declare_block;
  t.validate = [](const RunConfig& c) { env_from_settings(c.settings, c.seed, true); };
  t.clock_period = [](const core::Settings& s) { return static_cast<core::Ps>(std::llround(1e6 / s.i("clock_mhz"))); };
  t.run = run_block;
  return t;
}

Testbench link_testbench() {
  Testbench t;
  t.name = "cbfc_link";
  t.description = "CBFC sender and receiver over a link: lossless proof, throughput, buffer sizing (default)";
  t.default_cycles = kLinkCycles;
  t.declare = declare_link;
  t.validate = [](const RunConfig& c) { env_from_settings(c.settings, c.seed, false); };
  t.clock_period = [](const core::Settings& s) { return static_cast<core::Ps>(std::llround(1e6 / s.i("clock_mhz"))); };
  t.run = run_link;
  t.bench = bench;
  t.bench_name = "cbfc";
  return t;
}

}  // namespace tb::cbfc_tb
