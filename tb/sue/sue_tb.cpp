#include "sue/sue_tb.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <regex>

#include "common/table.hpp"
#include "common/vcontext.hpp"
#include "sue/sue_rx_block.hpp"
#include "sue/sue_sc.hpp"
#include "sue/sue_tx_block.hpp"
#include "verilated.h"

namespace tb::sue_tb {

namespace {

constexpr uint64_t kCycles = 20000;  // 12.5 us at 1.6 GHz

const std::vector<std::string> kConfigs = {"s1", "s2", "s4", "lite"};

/// A compiled configuration: the sue_tx and sue_rx of the same SUE_VARIANTS entry.
struct Variant {
  std::string name;
  sue::TxParams tp;
  sue::RxParams rp;
};
const Variant* find_variant(const std::string& name) {
  static const std::vector<Variant> all = [] {
    std::vector<Variant> v;
    for (auto& t : tx_variants()) {
      if (t.mutant) continue;
      const RxVariant* r = find_rx_variant(t.name);
      if (r) v.push_back({t.name, t.params, r->params});
    }
    return v;
  }();
  for (auto& v : all)
    if (v.name == name) return &v;
  return nullptr;
}

/// kind: lockstep | rtl | model. The models take the run's parameters (EnvConfig::tp/rp: the variant's,
/// but NumXpus = nodes when every block is a model; with any RTL block they are the variant's).
std::unique_ptr<TxBlock> make_tx(const std::string& kind, const Variant& v, const sue::TxParams& tp, VerilatedContext* ctx,
                                 const std::string& name, Waves* w) {
  if (kind == "model") return std::make_unique<TxModelBlock>(tp);
  auto rtl = make_tx_rtl(*find_tx_variant(v.name), ctx, name, w);
  if (kind == "lockstep") return make_tx_lockstep(std::move(rtl), tp, name);
  return rtl;
}
std::unique_ptr<RxBlock> make_rx(const std::string& kind, const Variant& v, const sue::RxParams& rp, VerilatedContext* ctx,
                                 const std::string& name, Waves* w) {
  if (kind == "model") return std::make_unique<RxModelBlock>(rp);
  auto rtl = make_rx_rtl(*find_rx_variant(v.name), ctx, name, w);
  if (kind == "lockstep") return make_rx_lockstep(std::move(rtl), rp, name);
  return rtl;
}

void declare(core::Schema& s) {
  s.add_choice("sue_config", "s1", kConfigs,
               "compiled RTL parameterization: s1 (SUE, 1 port, 256-bit XPU bus), s2 (SUE, 2 ports, 1024-bit), "
               "s4 (SUE, 4 ports, 1024-bit), lite (SUE Lite, 1 port, 256-bit, 1 KiB packing); each addresses NumXpus = 8 XPU ids");
  s.add_int("nodes", 2, 2, 16, "XPU nodes (one sue_tx + one sue_rx each; node n is XPU n); at most the compiled NumXpus = 8 "
            "with any RTL block, 16 with C++ models only (their NumXpus = nodes)");
  s.add_choice("mode", "strict", {"strict", "unordered"}, "cfg_strict_i: strict (order per {src, dst, VC}) or unordered");
  s.add_choice("tx", "lockstep", {"lockstep", "rtl", "model"}, "every node's sue_tx: RTL in lockstep with its model, RTL, or model");
  s.add_choice("rx", "lockstep", {"lockstep", "rtl", "model"}, "every node's sue_rx: likewise");
  s.add_choice("node0_tx", "same", {"same", "lockstep", "rtl", "model"}, "node 0's sue_tx (same: as 'tx')");
  s.add_choice("node0_rx", "same", {"same", "lockstep", "rtl", "model"}, "node 0's sue_rx (same: as 'rx')");
  s.add_choice("topology", "switch", {"switch", "cable"},
               "per plane: one crossbar switch, or a direct cable (nodes=2)");
  s.add_real("port_gbps", 400, 10, 409.6, "port rate, Gb/s (a 256-bit beat at 1.6 GHz carries at most 409.6)");
  s.add_real("cable_ns", 9.2, 0, 100000, "cable delay per hop, ns (9.2 = 2 m twinax)");
  s.add_real("fec_ns", lnk::kDefaultFecLatencyNs, 0, 100000, "PHY + FEC latency per hop, ns");
  s.add_real("switch_ns", 250, 0, 100000, "switch latency, first bit in to first bit out, ns (spec budget: 250)");
  s.add_real("load", 0.5, 0.01, 1.0, "offered load per node: command bytes (op header + control + data) / the node's port bandwidth");
  s.add_int("dlen_min", 0, 0, 4095, "smallest command data, bytes");
  s.add_int("dlen_max", 256, 0, 4095, "largest command data, bytes (at most MaxData = 256)");
  s.add_choice("size_dist", "uniform", {"uniform", "bimodal"}, "command data size: uniform in [dlen_min, dlen_max], or one of the two");
  s.add_choice("pattern", "uniform", {"uniform", "ring", "incast"},
               "destinations: uniform over the other nodes, ring (n -> n+1), incast (all -> node 0, node 0 -> node 1)");
  s.add_int("vcs", 4, 1, 4, "VCs used (0..vcs-1, uniform)");
  s.add_int("rx_credits", 16, 1, 255, "XPU receive credits per VC (cfg_rx_credits_i)");
  s.add_int("sink_delay", 0, 0, 1000000, "cycles before the receiving XPU returns a credit");
  s.add_int("hold_vc", -1, -1, 3, "the receiving XPUs hold this VC's credits (-1: none) ...");
  s.add_int("hold_from", 0, 0, 1000000000, "... from this cycle ...");
  s.add_int("hold_cycles", 0, 0, 1000000000, "... for this many cycles");
  s.add_int("rto", 65536, 1, (1 << 24) - 1, "cfg_rto_i: retransmit timeout, cycles without ACK progress");
  s.add_int("ack_delay", 4096, 0, 65535, "cfg_ack_delay_i: cycles an owed ACK waits for a data PDU");
  s.add_int("ack_count", 4, 0, 255, "cfg_ack_count_i: an owed ACK goes alone once this many accepted or duplicate PDUs are owed, whatever its age (0: off)");
  s.add_int("window_bytes", 131072, 0, (1 << 24) - 1, "cfg_win_bytes_i: the byte window, a connection starts a PDU only while its unacknowledged PDUs hold fewer bytes (0: off; default: 400 Gb/s x the 2.5 us design round trip, rounded up to 128 KiB; docs/sue.md \"Window and QDepth\")");
  s.add_int("fo_retry", 4096, 1, (1 << 24) - 1, "cfg_fo_retry_i: cycles between failover requests");
  s.add_int("partition", 42, 0, 1023, "cfg_partition_i");
  s.add_int("hop_count", 0, 0, 255, "cfg_hop_count_i");
  s.add_real("drop_prob", 0, 0, 0.5, "each frame lost on each link with this probability");
  s.add_int("drop_frame", -1, -1, 1000000000, "drop this frame index on every link (-1: none)");
  s.add_real("ber", 0, 0, 1e-3, "bit error rate on every link: the frame fails its FCS at the receiving MAC");
  s.add_bool("llr", false, "link layer retry on every hop (node <-> switch, cable): FCS-bad and dropped frames are replayed "
             "by LLR below SUE; corruption after the FCS check still needs the R-CRC");
  s.add_real("switch_drop", 0, 0, 0.5,
             "per frame: discarded inside the switch after its ingress (buffer freed, so CBFC keeps its credits; "
             "unlike drop_prob, which loses frames on the wire and, without llr, their CBFC credits); SUE recovers "
             "them by go-back-N (topology=switch)");
  s.add_real("rcrc_corrupt", 0, 0, 0.5,
             "per frame: a bit flipped after the FCS check (in the switch, or the receiving MAC with a cable), FCS "
             "recomputed: only the R-CRC catches it (SUE only)");
  s.add_int("cbfc_buffer_kib", 64, 8, 1024, "CBFC: receive buffer per VC of every hop, KiB");
  s.add_text("fail_port", "none", "none|[0-3]@[0-9]+", "none|P@cycle (e.g. 1@8000)",
             "plane P fails at this cycle: port P goes down at every node (unordered mode, 2+ ports)");
  s.add_int("drain_cycles", 400000, 1000, 100000000, "cycles allowed to settle after traffic stops");
  s.add_bool("sweep", false, "add the sweep: packing efficiency and latency against load and command size (C++ models)");
}

std::string kind_of(const core::Settings& s, const char* which, unsigned node) {
  if (node == 0) {
    const std::string& o = s.s(std::string("node0_") + which);
    if (o != "same") return o;
  }
  return s.s(which);
}

/// Some node's sue_tx or sue_rx is RTL (alone or in lockstep).
bool any_rtl(const core::Settings& s) {
  for (const char* w : {"tx", "rx"})
    if (kind_of(s, w, 0) != "model" || kind_of(s, w, 1) != "model") return true;
  return false;
}

bool has_faults(const EnvConfig& e) {
  return e.net.faults.any() || e.net.rcrc_corrupt > 0 || e.net.switch_drop > 0 || e.fail_port >= 0;
}

}  // namespace

EnvConfig env_from_settings(const core::Settings& s, uint64_t seed) {
  EnvConfig e;
  e.variant = s.s("sue_config");
  const Variant* v = find_variant(e.variant);
  if (!v)
    throw core::UsageError(fmt::format("setting 'sue_config'='{}' is not compiled into this build (allowed: s1|s2|s4|lite)",
                                       e.variant));
  e.tp = v->tp;
  e.rp = v->rp;
  e.seed = seed;
  e.nodes = static_cast<unsigned>(s.i("nodes"));
  // No peer tables: node n is XPU n, and every instance addresses XPU ids 0..NumXpus-1 directly. RTL blocks
  // (and the models in lockstep with them) have the compiled NumXpus; C++ models alone take NumXpus = nodes.
  if (any_rtl(s)) {
    if (e.nodes > e.tp.num_xpus)
      throw core::UsageError(fmt::format("setting 'nodes'={} with RTL blocks: sue_config={} addresses NumXpus={} XPU ids "
                                         "(allowed: nodes 2..{}, or tx=model rx=model)",
                                         e.nodes, e.variant, e.tp.num_xpus, e.tp.num_xpus));
  } else {
    e.tp.num_xpus = e.rp.num_xpus = std::max(2u, e.nodes);
  }
  e.strict = s.s("mode") == "strict";
  auto& n = e.net;
  n.nodes = e.nodes;
  n.ports = e.tp.num_ports;
  n.lite = e.tp.lite();
  n.use_switch = s.s("topology") == "switch";
  if (!n.use_switch && e.nodes != 2)
    throw core::UsageError(fmt::format("setting 'topology'=cable joins exactly 2 nodes, got nodes={} (a node has one port "
                                       "per plane; allowed: switch for nodes=3..)", e.nodes));
  n.clock_ps = e.clock_ps;
  n.link.rate_gbps = s.r("port_gbps");
  n.link.cable = lnk::Cable::twinax;
  n.link.length_m = s.r("cable_ns") * 1000.0 / static_cast<double>(lnk::ps_per_meter(lnk::Cable::twinax));
  n.link.fec_latency_ns = s.r("fec_ns");
  n.switch_ns = s.r("switch_ns");
  n.faults.drop_prob = s.r("drop_prob");
  n.faults.ber = s.r("ber");
  if (s.i("drop_frame") >= 0) n.faults.drop_frames.push_back(static_cast<uint64_t>(s.i("drop_frame")));
  n.rcrc_corrupt = s.r("rcrc_corrupt");
  n.switch_drop = s.r("switch_drop");
  if (!n.use_switch && n.switch_drop > 0)
    throw core::UsageError(fmt::format("setting 'switch_drop'={} needs a switch (allowed: 0 with topology=cable)",
                                       s.s("switch_drop")));
  n.llr = s.b("llr");
  n.cbfc_buffer_bytes = static_cast<uint32_t>(s.i("cbfc_buffer_kib")) * 1024u;
  n.seed = seed;
  n.reset_cycles = e.reset_cycles;
  if (n.lite && n.rcrc_corrupt > 0)
    throw core::UsageError(fmt::format("setting 'rcrc_corrupt'={} needs the R-CRC, which SUE Lite has not: the corruption "
                                       "would go undetected (allowed: 0 with sue_config=lite)", s.s("rcrc_corrupt")));
  e.partition = static_cast<uint32_t>(s.i("partition"));
  e.hop_count = static_cast<uint32_t>(s.i("hop_count"));
  e.rto = static_cast<uint32_t>(s.i("rto"));
  e.ack_delay = static_cast<uint32_t>(s.i("ack_delay"));
  e.ack_count = static_cast<uint32_t>(s.i("ack_count"));
  e.win_bytes = static_cast<uint32_t>(s.i("window_bytes"));
  e.fo_retry = static_cast<uint32_t>(s.i("fo_retry"));
  e.rx_credits = static_cast<uint32_t>(s.i("rx_credits"));
  e.load = s.r("load");
  e.dlen_min = static_cast<unsigned>(s.i("dlen_min"));
  e.dlen_max = static_cast<unsigned>(s.i("dlen_max"));
  if (e.dlen_max > e.tp.max_data)
    throw core::UsageError(fmt::format("setting 'dlen_max'={} exceeds MaxData={} of sue_config={} (allowed: 0..{})",
                                       e.dlen_max, e.tp.max_data, e.variant, e.tp.max_data));
  if (e.dlen_min > e.dlen_max)
    throw core::UsageError(fmt::format("setting 'dlen_min'={} is above dlen_max={} (allowed: 0..{})", e.dlen_min,
                                       e.dlen_max, e.dlen_max));
  e.bimodal = s.s("size_dist") == "bimodal";
  e.pattern = s.s("pattern");
  e.vcs = static_cast<unsigned>(s.i("vcs"));
  e.sink_delay = static_cast<unsigned>(s.i("sink_delay"));
  e.hold_vc = static_cast<int>(s.i("hold_vc"));
  e.hold_from = static_cast<uint64_t>(s.i("hold_from"));
  e.hold_cycles = static_cast<uint64_t>(s.i("hold_cycles"));
  const std::string fp = s.s("fail_port");
  if (fp != "none") {
    const unsigned p = static_cast<unsigned>(fp[0] - '0');
    const uint64_t at = std::stoull(fp.substr(2));
    if (e.strict)
      throw core::UsageError(fmt::format("setting 'fail_port'={} needs mode=unordered (a failed port is tested in "
                                         "unordered mode only; allowed: none with mode=strict)", fp));
    if (n.lite)
      throw core::UsageError(fmt::format("setting 'fail_port'={}: SUE Lite has no failover (allowed: none with "
                                         "sue_config=lite)", fp));
    if (e.tp.num_ports < 2)
      throw core::UsageError(fmt::format("setting 'fail_port'={} needs a second port to fail over to, sue_config={} has "
                                         "one (allowed: none, or sue_config=s2|s4)", fp, e.variant));
    if (p >= e.tp.num_ports)
      throw core::UsageError(fmt::format("setting 'fail_port'={}: port {} does not exist in sue_config={} (allowed: "
                                         "0..{})", fp, p, e.variant, e.tp.num_ports - 1));
    if (at < e.reset_cycles)
      throw core::UsageError(fmt::format("setting 'fail_port'={}: the cycle is inside reset (allowed: cycle >= {})", fp,
                                         e.reset_cycles));
    e.fail_port = static_cast<int>(p);
    e.fail_cycle = at;
  }
  if (std::string err = n.faults.validate(); !err.empty()) throw core::UsageError(err);
  if (std::string err = n.link.validate(); !err.empty()) throw core::UsageError(err);
  return e;
}

namespace {

struct Built {
  VerilatedContext* ctx = nullptr;
  std::unique_ptr<Waves> waves;
  std::unique_ptr<System> sys;
  std::vector<std::string> tx_desc, rx_desc;
};

/// kind: lockstep | rtl | model; `allow_lockstep` false turns lockstep into rtl (bench).
Built build(const EnvConfig& e, const core::Settings& s, const std::string& waves_path, bool allow_lockstep,
            bool force_model = false) {
  Built b;
  b.ctx = shared_context();
  b.ctx->assertOn(true);
  const Variant& v = *find_variant(e.variant);
  Waves* w = nullptr;
  if (!waves_path.empty()) {
    b.waves = std::make_unique<Waves>();
    w = b.waves.get();
  }
  std::vector<std::unique_ptr<TxBlock>> tx;
  std::vector<std::unique_ptr<RxBlock>> rx;
  for (unsigned n = 0; n < e.nodes; ++n) {
    std::string tk = force_model ? "model" : kind_of(s, "tx", n);
    std::string rk = force_model ? "model" : kind_of(s, "rx", n);
    if (!allow_lockstep && tk == "lockstep") tk = "rtl";
    if (!allow_lockstep && rk == "lockstep") rk = "rtl";
    const std::string tn = fmt::format("n{}_tx", n), rn = fmt::format("n{}_rx", n);
    tx.push_back(make_tx(tk, v, e.tp, b.ctx, tn, w));
    rx.push_back(make_rx(rk, v, e.rp, b.ctx, rn, w));
    b.tx_desc.push_back(tk == "model" ? "model" : fmt::format("rtl {}{}", v.name, tk == "lockstep" ? " + lockstep model" : ""));
    b.rx_desc.push_back(rk == "model" ? "model" : fmt::format("rtl {}{}", v.name, rk == "lockstep" ? " + lockstep model" : ""));
  }
  if (w) {
    if (std::string err = w->open(waves_path); !err.empty()) throw core::UsageError(err);
  }
  b.sys = std::make_unique<System>(e, std::move(tx), std::move(rx), w);
  return b;
}

void run_systemc(Built& b, uint64_t traffic, uint64_t drain) {
  RunControl ctl{traffic, drain, b.ctx};
  sc_core::sc_signal<uint64_t> delivered("delivered");
  SueSystemSc top("sue", *b.sys, ctl);
  top.delivered(delivered);
  sc_core::sc_start();
}

void run_plain(System& sys, uint64_t traffic, uint64_t drain, const VerilatedContext* ctx) {
  RunControl ctl{traffic, drain, ctx};
  do {
    sys.cycle();
  } while (!ctl.done(sys));
}

/// A sue_tx (tx) or sue_rx counter summed over the nodes.
uint64_t cnt_sum(const System& sys, bool tx, unsigned idx) {
  uint64_t s = 0;
  for (auto& n : sys.nodes()) s += tx ? n.to.cnt[idx] : n.ro.cnt[idx];
  return s;
}
uint64_t txsum(const System& sys, unsigned i) { return cnt_sum(sys, true, i); }
uint64_t rxsum(const System& sys, unsigned i) { return cnt_sum(sys, false, i); }

nlohmann::json sb_json(const core::Scoreboard::Counts& c) {
  return {{"expected", c.expected}, {"matched", c.matched}, {"lost", c.lost}, {"duplicated", c.duplicated},
          {"corrupted", c.corrupted}, {"reordered", c.reordered}, {"unexpected", c.unexpected},
          {"discarded", c.discarded}};
}

struct Eff {
  double packing = 0, wire = 0, cmds_per_pdu = 0, goodput_gbps = 0;
};
Eff efficiency(const System& sys) {
  const auto& f = sys.figures();
  Eff e;
  uint64_t delivered_bytes = 0;
  for (auto& n : sys.nodes()) delivered_bytes += n.delivered_bytes;
  e.packing = f.data_wire_bytes ? static_cast<double>(f.data_cmd_bytes) / static_cast<double>(f.data_wire_bytes) : 0;
  e.wire = sys.net().stats().wire_bytes ? static_cast<double>(delivered_bytes) / static_cast<double>(sys.net().stats().wire_bytes) : 0;
  e.cmds_per_pdu = f.data_frames ? static_cast<double>(f.data_cmds) / static_cast<double>(f.data_frames) : 0;
  const double ns = core::to_ns(static_cast<core::Ps>(sys.cycles()) * sys.config().clock_ps);
  e.goodput_gbps = ns > 0 ? static_cast<double>(delivered_bytes) * 8.0 / ns / sys.config().nodes : 0;
  return e;
}

}  // namespace

std::vector<SweepPoint> sweep(const EnvConfig& base, const std::vector<double>& loads, const std::vector<unsigned>& dlens,
                              uint64_t cycles) {
  std::vector<SweepPoint> out;
  const Variant& v = *find_variant(base.variant);
  for (unsigned d : dlens)
    for (double l : loads) {
      EnvConfig e = base;
      e.load = l;
      e.dlen_min = e.dlen_max = std::min(d, e.tp.max_data);
      e.bimodal = false;
      std::vector<std::unique_ptr<TxBlock>> tx;
      std::vector<std::unique_ptr<RxBlock>> rx;
      for (unsigned n = 0; n < e.nodes; ++n) {
        tx.push_back(make_tx("model", v, e.tp, nullptr, "", nullptr));
        rx.push_back(make_rx("model", v, e.rp, nullptr, "", nullptr));
      }
      System sys(e, std::move(tx), std::move(rx), nullptr);
      run_plain(sys, cycles, 400000, nullptr);
      // Throughput over the traffic period only (the drain adds none).
      sys.finish();
      SweepPoint p;
      p.load = l;
      p.dlen = e.dlen_max;
      const auto& c = sys.scoreboard().counts();
      p.cmds = c.matched;
      p.clean = c.clean() && sys.figures().frame_decode_errors == 0;
      Eff ef = efficiency(sys);
      p.packing_eff = ef.packing;
      p.wire_eff = ef.wire;
      p.cmds_per_pdu = ef.cmds_per_pdu;
      uint64_t bytes = 0;
      for (auto& n : sys.nodes()) bytes += n.delivered_bytes;
      const double ns = core::to_ns(static_cast<core::Ps>(sys.figures().traffic_cycles) * e.clock_ps);
      p.goodput_gbps = ns > 0 ? static_cast<double>(bytes) * 8.0 / ns / e.nodes : 0;
      p.p50_ns = sys.scoreboard().latency_ns().percentile(50);
      p.p99_ns = sys.scoreboard().latency_ns().percentile(99);
      out.push_back(p);
    }
  return out;
}

namespace {

std::string fmt_ns(double ns) { return fmt::format("{:.1f} ns", ns); }

RunResult run_system(const RunConfig& cfg) {
  const core::Settings& s = cfg.settings;
  EnvConfig e = env_from_settings(s, cfg.seed);
  const uint64_t traffic = cfg.cycles ? cfg.cycles : kCycles;
  Built b = build(e, s, cfg.waves_path, true);
  System& sys = *b.sys;
  run_systemc(b, traffic, static_cast<uint64_t>(s.i("drain_cycles")));
  if (b.waves) b.waves->close();
  const bool drained = sys.idle();
  sys.finish();

  RunResult r;
  r.cycles = sys.cycles();
  r.sim_time = sys.now();
  const auto& fig = sys.figures();
  const auto& net = sys.net();
  const auto& ns = net.stats();
  const auto& sb = sys.scoreboard().counts();
  const double P = core::to_ns(e.clock_ps);
  const bool lite = e.tp.lite();
  const unsigned NP = e.tp.num_ports;
  nlohmann::json& j = r.json;

  // ---- header
  std::string out;
  out += fmt::format("  {} nodes, sue_config={} ({}, {} port(s), NumXpus {}, DataW {}, MaxPack {}, QDepth {}, Window {}), {} mode\n",
                     e.nodes, e.variant, lite ? "SUE Lite" : "SUE", NP, e.tp.num_xpus, e.tp.data_w, e.tp.max_pack,
                     e.tp.qdepth, e.tp.window, e.strict ? "strict" : "unordered");
  for (unsigned n = 0; n < e.nodes; ++n)
    out += fmt::format("  node {} (XPU {}): sue_tx {}, sue_rx {}\n", n, n, b.tx_desc[n], b.rx_desc[n]);
  out += fmt::format("  {} per plane, {} Gb/s ports, cable {:.1f} ns, PHY/FEC {} ns{}; clock 1600 MHz ({} ps); {} traffic cycles "
                     "({}), {} in all\n",
                     e.net.use_switch ? "one crossbar switch" : "a direct cable", e.net.link.rate_gbps,
                     core::to_ns(e.net.link.propagation()), e.net.link.fec_latency_ns,
                     e.net.use_switch ? fmt::format(", switch {} ns", e.net.switch_ns) : std::string(), e.clock_ps,
                     traffic, core::format_time(static_cast<core::Ps>(traffic) * e.clock_ps), r.cycles);
  out += fmt::format("  traffic: load {} per node, dlen {}..{} B ({}), {} destinations, {} VC(s); XPU rx credits {} per VC; "
                     "CBFC {} KiB per VC per hop\n",
                     e.load, e.dlen_min, e.dlen_max, e.bimodal ? "bimodal" : "uniform", e.pattern, e.vcs, e.rx_credits,
                     e.net.cbfc_buffer_bytes / 1024);
  const bool lite_loses = lite && has_faults(e) && (!e.net.llr || e.net.switch_drop > 0);
  out += fmt::format("  faults: drop_prob {}, drop_frame {}, ber {}, rcrc_corrupt {}, switch_drop {}, fail_port {}; llr {}{}\n\n",
                     e.net.faults.drop_prob, s.i("drop_frame"), e.net.faults.ber, e.net.rcrc_corrupt, e.net.switch_drop,
                     s.s("fail_port"),
                     e.net.llr ? "on every hop" : "off",
                     lite_loses ? " (SUE Lite has no recovery of its own: commands of lost frames are accounted as "
                                  "discarded; llr=true repairs wire faults, not switch drops)" : "");

  // ---- commands and scoreboard
  Table tcmd("Commands (XPU to XPU)");
  tcmd.header({"node", "issued", "cmds_in", "delivered", "cmds_out", "tx credit stall cyc"});
  uint64_t issued = 0, delivered = 0;
  for (auto& n : sys.nodes()) {
    tcmd.row({std::to_string(n.idx), std::to_string(n.issued), std::to_string(n.to.cnt[sue::TxCnt::cmds_in]),
              std::to_string(n.delivered), std::to_string(n.ro.cnt[sue::RxCnt::cmds_out]), std::to_string(n.credit_stall)});
    issued += n.issued;
    delivered += n.delivered;
  }
  out += tcmd.str() + "\n";
  Table tsb("Scoreboard (exactly once, byte-exact, right destination" + std::string(e.strict ? ", in order per {src, dst, VC})" : ")"));
  tsb.header({"expected", "delivered", "lost", "duplicated", "corrupted", "reordered", "unexpected", "discarded (Lite)"});
  tsb.row({std::to_string(sb.expected), std::to_string(sb.matched), std::to_string(sb.lost), std::to_string(sb.duplicated),
           std::to_string(sb.corrupted), std::to_string(sb.reordered), std::to_string(sb.unexpected),
           std::to_string(sb.discarded)});
  out += tsb.str() + "\n";

  // ---- latency and efficiency
  const auto& lat = sys.scoreboard().latency_ns();
  const Eff ef = efficiency(sys);
  const double tns = core::to_ns(static_cast<core::Ps>(std::max<uint64_t>(1, fig.traffic_cycles)) * e.clock_ps);
  uint64_t dbytes = 0;
  for (auto& n : sys.nodes()) dbytes += n.delivered_bytes;
  out += fmt::format("Latency per command, XPU TX interface -> far XPU RX interface (last beat to last beat): P50 {}, "
                     "P99 {}, P99.9 {}, max {} ({} commands)\n",
                     fmt_ns(lat.percentile(50)), fmt_ns(lat.percentile(99)), fmt_ns(lat.percentile(99.9)), fmt_ns(lat.max()),
                     lat.count());
  out += fmt::format("Packing: {} data PDUs, {:.2f} commands per PDU; packing efficiency {:.1f}% (command bytes / wire bytes "
                     "of data frames incl. headers, pad, FCS, preamble+IPG); wire efficiency {:.1f}% (delivered command "
                     "bytes / all wire bytes, ACK-only, FO and retransmitted frames included)\n",
                     fig.data_frames, ef.cmds_per_pdu, ef.packing * 100, ef.wire * 100);
  uint64_t dcmds = 0;
  for (auto& n : sys.nodes()) dcmds += n.delivered;
  const double good = static_cast<double>(dbytes) * 8.0 / tns / e.nodes;
  const double good_op = static_cast<double>(dbytes + 2 * dcmds) * 8.0 / tns / e.nodes;
  out += fmt::format("Goodput per node during traffic: {:.1f} Gb/s of command bytes ({:.1f} Gb/s with op headers, against "
                     "{:.1f} Gb/s offered = load x {} port(s) x {} Gb/s)\n\n",
                     good, good_op, e.load * NP * e.net.link.rate_gbps, NP, e.net.link.rate_gbps);
  j["goodput_gbps_per_node"] = good;

  // ---- transport counters
  Table ttx("Transport (sums over nodes)");
  ttx.header({"counter", "value", "counter", "value"});
  using T = sue::TxCnt;
  using R = sue::RxCnt;
  const std::vector<std::pair<std::string, uint64_t>> left = {
      {"PDUs new", txsum(sys, T::pdus_new)},        {"PDUs retransmitted", txsum(sys, T::pdus_rtx)},
      {"PDUs migrated", txsum(sys, T::pdus_mig)},   {"ACK-only frames", txsum(sys, T::ack_only)},
      {"ACKs sent", txsum(sys, T::ack_sent)},       {"NACKs sent", txsum(sys, T::nack_sent)},
      {"NACKs received", txsum(sys, T::nack_rcvd)}, {"go-back-N", txsum(sys, T::gbn)},
      {"RTOs", txsum(sys, T::rto)},                 {"FO-REQ sent", txsum(sys, T::fo_req_sent)},
      {"FO-ACK sent", txsum(sys, T::fo_ack_sent)},  {"FO-ACK received", txsum(sys, T::fo_ack_rcvd)}};
  const std::vector<std::pair<std::string, uint64_t>> right = {
      {"frames in", rxsum(sys, R::frames_in)},         {"PDUs accepted", rxsum(sys, lite ? R::lite_ok : R::pdus_ok)},
      {"R-CRC drops", rxsum(sys, R::drop_rcrc)},       {"FCS drops (drop_mac)", rxsum(sys, R::drop_mac)},
      {"out-of-order drops (drop_psn)", rxsum(sys, R::drop_psn)}, {"duplicate drops", rxsum(sys, R::drop_dup)},
      {"NACKs owed", rxsum(sys, R::nack_owed)},        {"malformed drops", rxsum(sys, R::drop_malformed)},
      {"header drops", rxsum(sys, R::drop_hdr)},       {"dead-port drops", rxsum(sys, R::drop_dead)},
      {"FO frames", rxsum(sys, R::fo_frames)},         {"FO-REQ deferred", rxsum(sys, R::fo_req_deferred)}};
  for (size_t i = 0; i < left.size(); ++i)
    ttx.row({left[i].first, std::to_string(left[i].second), right[i].first, std::to_string(right[i].second)});
  out += ttx.str() + "\n";

  // ---- network
  const auto fs = net.fault_stats();
  out += fmt::format("Network: {} frames on NIC ports ({} data, {} ACK-only, {} FO-REQ, {} FO-ACK; every one decoded with "
                     "sue::decode: {} errors); lost on links {}, dropped in the switch {}, FCS-bad {}, corrupted after the "
                     "FCS check {}, lost on the failed plane {}; CBFC credit stall {} port-VC cycles; sue_rx back-pressure "
                     "(beat presented, mac_rx_ready_o low) {} port-cycles\n",
                     ns.frames_sent, fig.data_frames, fig.ack_frames, fig.fo_req_frames, fig.fo_ack_frames,
                     fig.frame_decode_errors, ns.frames_lost_link, ns.frames_switch_dropped, ns.frames_fcs_bad,
                     ns.frames_rcrc_corrupted,
                     ns.frames_lost_dead, net.credit_stall_cycles(), fig.rx_backpressure);
  const auto ls = net.llr_stats();
  if (e.net.llr)
    out += fmt::format("LLR ({} link directions): {} frames sent, {} replayed in {} replays; {} NACKs; {} FCS-bad and {} "
                       "dropped frames repaired below SUE; {} flushes; replay buffer max {} frames\n",
                       ls.links, ls.frames, ls.frames_replayed, ls.replays, ls.nacks, ls.bad_frames, ls.dropped_frames,
                       ls.flushes, ls.buf_frames_max);
  Table tport("Throughput per port: wire Gb/s during traffic (all frames incl. pad, FCS, preamble+IPG), frames in the whole run");
  std::vector<std::string> hdr = {"node"};
  for (unsigned p = 0; p < NP; ++p) hdr.push_back(fmt::format("port {}", p));
  tport.header(hdr);
  nlohmann::json jports = nlohmann::json::array();
  for (unsigned n = 0; n < e.nodes; ++n) {
    std::vector<std::string> row = {std::to_string(n)};
    for (unsigned p = 0; p < NP; ++p) {
      const uint64_t wb = fig.port_bytes_traffic.empty() ? net.port_wire_bytes(n, p) : fig.port_bytes_traffic[n][p];
      const double g = static_cast<double>(wb) * 8.0 / tns;
      row.push_back(fmt::format("{:.1f} ({} frames)", g, net.port_frames(n, p)));
      jports.push_back({{"node", n}, {"port", p}, {"wire_gbps_traffic", g}, {"frames", net.port_frames(n, p)},
                        {"wire_bytes", net.port_wire_bytes(n, p)}});
    }
    tport.row(row);
  }
  out += tport.str() + "\n";

  // ---- pipeline (cosim budget)
  const auto& tp = fig.tx_pipe;
  const auto& rp = fig.rx_pipe;
  out += fmt::format("Pipeline cycles (1 cycle = {} ns), for `cosim budget`:\n", P);
  out += fmt::format("  TX: command complete on the XPU interface -> first beat of its PDU at the MAC: min {:.0f}, P50 {:.0f} "
                     "({} PDUs)\n", tp.min(), tp.percentile(50), tp.count());
  out += fmt::format("  RX: eof beat taken -> first command of the PDU on the XPU interface: min {:.0f}, P50 {:.0f} ({} PDUs)\n",
                     rp.min(), rp.percentile(50), rp.count());
  out += fmt::format("  zero load: sue_tx_pipeline_cycles={:.0f} sue_rx_pipeline_cycles={:.0f} sue_clock_mhz=1600\n",
                     tp.min(), rp.min());

  // ---- JSON
  j["nodes"] = e.nodes;
  j["sue_config"] = e.variant;
  j["num_xpus"] = e.tp.num_xpus;
  j["cycles"] = r.cycles;
  j["traffic_cycles"] = traffic;
  j["drained"] = drained;
  j["sim_time_ns"] = core::to_ns(r.sim_time);
  j["blocks"] = nlohmann::json::array();
  for (unsigned n = 0; n < e.nodes; ++n) j["blocks"].push_back({{"tx", b.tx_desc[n]}, {"rx", b.rx_desc[n]}});
  j["scoreboard"] = sb_json(sb);
  j["commands"] = {{"issued", issued}, {"delivered", delivered}};
  j["delivered_per_node"] = nlohmann::json::array();
  for (auto& n : sys.nodes()) j["delivered_per_node"].push_back(n.delivered);
  j["latency_ns"] = {{"count", lat.count()}, {"p50", lat.percentile(50)}, {"p99", lat.percentile(99)},
                     {"p999", lat.percentile(99.9)}, {"max", lat.max()}};
  j["efficiency"] = {{"packing", ef.packing}, {"wire", ef.wire}, {"cmds_per_pdu", ef.cmds_per_pdu}};
  nlohmann::json jt, jr;
  for (unsigned i = 0; i < T::kNum; ++i) jt[sue::tx_counter_name(i)] = txsum(sys, i);
  for (unsigned i = 0; i < R::kNum; ++i) jr[sue::rx_counter_name(i)] = rxsum(sys, i);
  j["tx"] = jt;
  j["rx"] = jr;
  j["frames"] = {{"sent", ns.frames_sent},         {"data", fig.data_frames},          {"ack_only", fig.ack_frames},
                 {"fo_req", fig.fo_req_frames},    {"fo_ack", fig.fo_ack_frames},      {"decode_errors", fig.frame_decode_errors},
                 {"lost_link", ns.frames_lost_link}, {"switch_dropped", ns.frames_switch_dropped},
                 {"fcs_bad", ns.frames_fcs_bad},   {"rcrc_corrupted", ns.frames_rcrc_corrupted},
                 {"lost_dead", ns.frames_lost_dead}, {"wire_bytes", ns.wire_bytes}};
  j["llr"] = {{"on", e.net.llr},           {"frames", ls.frames},         {"frames_replayed", ls.frames_replayed},
              {"replays", ls.replays},      {"nacks", ls.nacks},           {"bad_frames", ls.bad_frames},
              {"dropped_frames", ls.dropped_frames}, {"flushes", ls.flushes}};
  j["faults"] = {{"frames", fs.frames}, {"dropped", fs.frames_dropped}, {"corrupted", fs.frames_corrupted}};
  j["ports"] = jports;
  j["lite_lost_cmds"] = fig.lite_lost_cmds;
  j["pipeline_cycles"] = {{"tx_min", tp.min()}, {"tx_p50", tp.percentile(50)}, {"tx_count", tp.count()},
                          {"rx_min", rp.min()}, {"rx_p50", rp.percentile(50)}, {"rx_count", rp.count()}};
  j["cbfc_errors"] = ns.cbfc_errors;
  j["cbfc_credit_stall"] = net.credit_stall_cycles();
  j["rx_backpressure"] = fig.rx_backpressure;

  // ---- sweep
  if (s.b("sweep")) {
    const std::vector<double> loads = {0.1, 0.25, 0.5, 0.75, 1.0};
    const std::vector<unsigned> dlens = {0, 64, 256};
    auto pts = sweep(e, loads, dlens, 10000);
    Table tsw(fmt::format("\nSweep (C++ models, {} nodes, {}, 10000 traffic cycles each): packing efficiency against offered "
                          "load and command size", e.nodes, e.variant));
    tsw.header({"dlen", "load", "commands", "cmds/PDU", "packing eff", "wire eff", "goodput/node", "P50", "P99", "scoreboard"});
    j["sweep"] = nlohmann::json::array();
    for (auto& p : pts) {
      tsw.row({std::to_string(p.dlen), fmt::format("{:.2f}", p.load), std::to_string(p.cmds), fmt::format("{:.2f}", p.cmds_per_pdu),
               fmt::format("{:.1f}%", p.packing_eff * 100), fmt::format("{:.1f}%", p.wire_eff * 100),
               fmt::format("{:.1f} Gb/s", p.goodput_gbps), fmt_ns(p.p50_ns), fmt_ns(p.p99_ns), p.clean ? "clean" : "ERRORS"});
      j["sweep"].push_back({{"dlen", p.dlen}, {"load", p.load}, {"cmds", p.cmds}, {"cmds_per_pdu", p.cmds_per_pdu},
                            {"packing_eff", p.packing_eff}, {"wire_eff", p.wire_eff}, {"goodput_gbps", p.goodput_gbps},
                            {"p50_ns", p.p50_ns}, {"p99_ns", p.p99_ns}, {"clean", p.clean}});
    }
    out += tsw.str();
  }

  // ---- verdict
  if (auto m = sys.mismatch()) {
    r.has_mismatch = true;
    r.mismatch = *m;
    r.failures.push_back(fmt::format("lockstep mismatch at cycle {} ({}) in {}: {} rtl={:#x} model={:#x} (seed {})", m->cycle,
                                     core::format_time(m->time), m->block, m->signal, m->rtl, m->model, cfg.seed));
    j["mismatch"] = {{"cycle", m->cycle}, {"time_ns", core::to_ns(m->time)}, {"block", m->block}, {"signal", m->signal},
                     {"rtl", m->rtl}, {"model", m->model}};
  }
  if (b.ctx->gotError())
    r.failures.push_back(fmt::format("RTL assertion failed by cycle {} (see the %Error line above)", sys.cycles()));
  if (std::string a = sys.model_assertion(); !a.empty()) r.failures.push_back("model assertion: " + a);
  // A run stopped by a mismatch or an assertion has commands in flight: not losses.
  const bool stopped = r.has_mismatch || b.ctx->gotError();
  if (stopped) {
    r.failures.push_back(fmt::format("stopped at cycle {}: {} commands were in flight (scoreboard not settled)", sys.cycles(),
                                     sb.lost));
    if (sb.duplicated + sb.corrupted + sb.reordered + sb.unexpected)
      r.failures.push_back(fmt::format("scoreboard before the stop: {} duplicated, {} corrupted, {} reordered, {} unexpected",
                                       sb.duplicated, sb.corrupted, sb.reordered, sb.unexpected));
  } else {
    if (!sb.clean()) {
      r.failures.push_back(fmt::format("scoreboard: {} lost, {} duplicated, {} corrupted, {} reordered, {} unexpected", sb.lost,
                                       sb.duplicated, sb.corrupted, sb.reordered, sb.unexpected));
      for (auto& line : sys.scoreboard().errors()) r.failures.push_back("  " + line);
    }
    if (!drained)
      r.failures.push_back(fmt::format("did not settle within drain_cycles={} after the traffic: {}", s.i("drain_cycles"),
                                       sys.busy_reason()));
  }
  if (fig.frame_decode_errors)
    r.failures.push_back(fmt::format("{} frames on the wire do not decode with sue::decode; first: {}", fig.frame_decode_errors,
                                     fig.first_decode_error));
  if (fig.misdelivered)
    r.failures.push_back(fmt::format("{} XPU receive interface violations; first: {}", fig.misdelivered, fig.first_misdelivery));
  if (ns.cbfc_errors) r.failures.push_back(ns.cbfc_error_first);
  if (ns.frames_misrouted) r.failures.push_back(fmt::format("{} frames to an unknown destination", ns.frames_misrouted));
  for (auto& n : sys.nodes()) {
    const auto& c = n.to.cnt;
    if (c[T::cmd_bad] || c[T::cmd_err] || c[T::cmd_overflow] || c[T::stray_cycles] || n.to.err_cmd || n.to.err_dest ||
        n.to.err_overflow)
      r.failures.push_back(fmt::format("node {} sue_tx refused commands: cmd_bad {} cmd_err {} cmd_overflow {} stray {}", n.idx,
                                       c[T::cmd_bad], c[T::cmd_err], c[T::cmd_overflow], c[T::stray_cycles]));
    if (n.to.err_no_port) r.failures.push_back(fmt::format("node {} sue_tx: err_no_port (no live port left)", n.idx));
    if (n.ro.err_credit) r.failures.push_back(fmt::format("node {} sue_rx: err_credit", n.idx));
    if (n.ro.cnt[R::stray_beats]) r.failures.push_back(fmt::format("node {} sue_rx: {} stray beats", n.idx, n.ro.cnt[R::stray_beats]));
  }
  if (!stopped && txsum(sys, T::cmds_in) != issued)
    r.failures.push_back(fmt::format("cmds_in {} (sum over sue_tx) but the XPUs issued {}", txsum(sys, T::cmds_in), issued));
  if (!stopped && rxsum(sys, R::cmds_out) != delivered)
    r.failures.push_back(fmt::format("cmds_out {} (sum over sue_rx) but the XPUs received {}", rxsum(sys, R::cmds_out), delivered));
  if (!has_faults(e)) {
    const uint64_t drops = rxsum(sys, R::drop_mac) + rxsum(sys, R::drop_malformed) + rxsum(sys, R::drop_rcrc) +
                           rxsum(sys, R::drop_hdr) + rxsum(sys, R::drop_psn) + rxsum(sys, R::drop_dead);
    if (drops || txsum(sys, T::nack_sent))
      r.failures.push_back(fmt::format("without faults: {} frames dropped by sue_rx and {} NACKs", drops, txsum(sys, T::nack_sent)));
  }
  if (issued == 0) r.failures.push_back("no command was issued");
  r.pass = r.failures.empty();
  if (!r.pass) out += "\n  reproduce: " + reproduce_line(cfg) + "\n";
  r.summary = out;
  return r;
}

BenchResult bench(const RunConfig& cfg) {
  core::Settings s = cfg.settings;
  s.set("tx", "rtl");  // (before the configuration: RTL blocks have the compiled NumXpus)
  s.set("rx", "rtl");
  s.set("node0_tx", "same");
  s.set("node0_rx", "same");
  EnvConfig e = env_from_settings(s, cfg.seed);
  const uint64_t n = cfg.cycles ? cfg.cycles : 100000;
  using clk = std::chrono::steady_clock;
  auto secs = [](clk::time_point a, clk::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  auto delivered = [](const System& sys) {
    uint64_t d = 0;
    for (auto& x : sys.nodes()) d += x.delivered;
    return d;
  };
  double plain_rate, sc_rate, model_rate;
  uint64_t plain_ok, sc_ok;
  {
    {
      Built warm = build(e, s, "", false);
      run_plain(*warm.sys, n / 10, 0, warm.ctx);
    }
    Built b = build(e, s, "", false);
    auto t0 = clk::now();
    run_plain(*b.sys, n, 0, b.ctx);
    plain_rate = static_cast<double>(b.sys->cycles()) / secs(t0, clk::now());
    plain_ok = delivered(*b.sys);
  }
  {
    Built b = build(e, s, "", false, true);
    auto t0 = clk::now();
    run_plain(*b.sys, n, 0, nullptr);
    model_rate = static_cast<double>(b.sys->cycles()) / secs(t0, clk::now());
  }
  {
    Built b = build(e, s, "", false);
    auto t0 = clk::now();
    run_systemc(b, n, 0);
    sc_rate = static_cast<double>(b.sys->cycles()) / secs(t0, clk::now());
    sc_ok = delivered(*b.sys);
  }
  RtlBenchFigures f;
  f.title = fmt::format("cosim bench sue: sue_system ({} nodes x (sue_tx + sue_rx), sue_config={}, load {}, MACs, {}, CBFC, "
                        "XPU drivers and sinks, scoreboard)",
                        e.nodes, e.variant, e.load, e.net.use_switch ? "switch" : "cable");
  f.plain_rate = plain_rate, f.sc_rate = sc_rate, f.model_rate = model_rate;
  f.plain_result = plain_ok, f.sc_result = sc_ok, f.result_what = "commands delivered";
  return rtl_bench_report("sue", cfg, n, f);
}

}  // namespace

Testbench system_testbench() {
  Testbench t;
  t.name = "sue_system";
  t.description = "SUE: N XPU nodes (sue_tx + sue_rx each) over MACs, links, switch, CBFC and faults; XPU-level scoreboard, "
                  "packing efficiency, latency, recovery, failover";
  t.default_cycles = kCycles;
  t.declare = declare;
  t.validate = [](const RunConfig& c) { env_from_settings(c.settings, c.seed); };
  t.run = run_system;
  t.bench = bench;
  t.bench_name = "sue";
  t.clock_period = [](const core::Settings&) { return core::Ps{625}; };
  return t;
}

}  // namespace tb::sue_tb
