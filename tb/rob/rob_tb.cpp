#include "rob/rob_tb.hpp"

#include <systemc.h>

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "common/table.hpp"
#include "common/vcontext.hpp"
#include "verilated.h"

namespace rob {
inline std::ostream& operator<<(std::ostream& os, const Out& o) {
  return os << "occupancy=" << o.occupancy << " rel_valid=" << o.rel_valid << " resp_valid=" << o.resp_valid;
}
inline void sc_trace(sc_core::sc_trace_file*, const Out&, const std::string&) {}
}  // namespace rob

namespace tb::rob_tb {

namespace {

constexpr uint64_t kCycles = 100000;

struct RunControl {
  uint64_t traffic_cycles = 0, drain_limit = 0;
  const VerilatedContext* ctx = nullptr;
  bool done(System& sys) const {
    const uint64_t n = sys.cycles();
    if (sys.mismatched() || (ctx && ctx->gotError()) || sys.env_error()) return true;
    if (n < traffic_cycles) return false;
    if (n == traffic_cycles) sys.stop_traffic();
    return sys.idle() || n >= traffic_cycles + drain_limit;
  }
};

/// One self-timed process steps the whole system; the block's outputs are
/// exported as a signal for SystemC observers.
SC_MODULE(RobSystemSc) {
  sc_core::sc_out<rob::Out> out;
  SC_HAS_PROCESS(RobSystemSc);
  RobSystemSc(sc_core::sc_module_name n, System& sys, const RunControl& ctl)
      : sc_module(n), sys_(sys), ctl_(ctl), period_(static_cast<double>(sys.config().clock_ps), sc_core::SC_PS) {
    SC_METHOD(step);
  }

 private:
  System& sys_;
  RunControl ctl_;
  sc_core::sc_time period_;
  void step() {
    sys_.cycle();
    out.write(sys_.out());
    if (ctl_.done(sys_))
      sc_core::sc_stop();
    else
      next_trigger(period_);
  }
};

void declare(core::Schema& s) {
  s.add_choice("rob", "rtl", {"rtl", "model"}, "the reorder buffer block");
  s.add_bool("lockstep", true, "run the RTL in lockstep with its C++ model");
  s.add_choice("rob_config", "r50", variant_names(false),
               "RTL parameterization: r50 (the paper: 50 packets, 64 buckets, 4-entry cache, 16 connections), "
               "r8 (8 packets, 8 buckets, 2-entry cache, 4 connections, 6-bit SEQ)");
  s.add_bool("mutant", false, "use the deliberately broken RTL build (ROB_MUTANT; rob_config=r8 only)");
  s.add_int("sources", 4, 1, 256, "sources sending ordered transfers to this target");
  s.add_int("streams_per_source", 1, 1, 8, "concurrent ordered transfers per source");
  s.add_int("stream_len", 128, 1, 100000, "REQs per ordered transfer");
  s.add_int("max_outstanding", 25, 1, 32767, "unacknowledged REQs per transfer at most (paper Fig. 12c: 25)");
  s.add_int("flits", 16, 1, 64, "packet length in flits (one flit per cycle per link)");
  s.add_real("load", 0.7, 0.01, 1.0, "combined offered load at the target, fraction of its link");
  s.add_int("base_latency", 100, 0, 100000, "network latency on the short path, cycles");
  s.add_int("skew", 500, 0, 100000, "extra latency of the long path, cycles (a global channel: 500 ns)");
  s.add_int("jitter", 20, 0, 10000, "uniform extra latency 0..jitter, cycles");
  s.add_real("p_long", 0.3, 0.0, 1.0, "share of packets routed over the long path");
  s.add_real("p_dup", 0.0, 0.0, 0.5, "the network duplicates a REQ with this probability");
  s.add_int("retry", 300, 1, 1000000, "cycles before a rejected REQ is sent again");
  s.add_int("ack_latency", 100, 0, 100000, "cycles from release to the ACK at the source");
  s.add_real("early_fin", 0.0, 0.0, 1.0,
             "a transfer whose last REQ is answered HELD sends its FIN at once with this probability, while REQs of "
             "its connection are still held (the block closes the connection after releasing them)");
  s.add_int("drain_cycles", 400000, 1000, 100000000, "cycles allowed to settle after traffic stops");
}

const RtlVariant& variant_of(const core::Settings& s) {
  std::string name = s.s("rob_config");
  if (s.b("mutant")) {
    if (name != "r8")
      throw core::UsageError(fmt::format("setting 'mutant' needs rob_config=r8 (the only mutant build), got rob_config={}", name));
    name = "r8_mutant";
  }
  return *find_variant(name);
}

}  // namespace

EnvConfig env_from_settings(const core::Settings& s, uint64_t seed) {
  EnvConfig e;
  e.params = variant_of(s).params;
  e.seed = seed;
  e.sources = static_cast<unsigned>(s.i("sources"));
  e.streams_per_source = static_cast<unsigned>(s.i("streams_per_source"));
  e.stream_len = static_cast<uint32_t>(s.i("stream_len"));
  e.max_outstanding = static_cast<uint32_t>(s.i("max_outstanding"));
  e.flits = static_cast<uint32_t>(s.i("flits"));
  e.load = s.r("load");
  e.base_latency = static_cast<uint32_t>(s.i("base_latency"));
  e.skew = static_cast<uint32_t>(s.i("skew"));
  e.jitter = static_cast<uint32_t>(s.i("jitter"));
  e.p_long = s.r("p_long");
  e.p_dup = s.r("p_dup");
  e.retry = static_cast<uint32_t>(s.i("retry"));
  e.ack_latency = static_cast<uint32_t>(s.i("ack_latency"));
  e.early_fin = s.r("early_fin");
  const uint32_t window = (1u << (e.params.seq_bits - 1)) - 1;
  if (e.max_outstanding > window)
    throw core::UsageError(fmt::format("setting 'max_outstanding'={} exceeds the {}-bit SEQ window of rob_config={} "
                                       "(allowed: 1..{})", e.max_outstanding, e.params.seq_bits, s.s("rob_config"), window));
  const uint64_t ids = 1ull << e.params.src_bits;
  if (e.sources > ids)
    throw core::UsageError(fmt::format("setting 'sources'={} exceeds the {} source ids of rob_config={} (allowed: 1..{})",
                                       e.sources, ids, s.s("rob_config"), ids));
  if (e.streams_per_source > (1u << e.params.cid_bits))
    throw core::UsageError(fmt::format("setting 'streams_per_source'={} exceeds the {} connection ids (allowed: 1..{})",
                                       e.streams_per_source, 1u << e.params.cid_bits, 1u << e.params.cid_bits));
  return e;
}

namespace {

RunResult run(const RunConfig& cfg) {
  const core::Settings& s = cfg.settings;
  EnvConfig e = env_from_settings(s, cfg.seed);
  const uint64_t traffic = cfg.cycles ? cfg.cycles : kCycles;
  VerilatedContext* ctx = shared_context();
  ctx->assertOn(true);
  std::unique_ptr<Waves> waves;
  if (!cfg.waves_path.empty()) waves = std::make_unique<Waves>();
  const RtlVariant& v = variant_of(s);
  std::unique_ptr<RobBlock> blk;
  std::string desc;
  if (s.s("rob") == "model") {
    blk = make_model(e.params);
    desc = "model";
  } else {
    blk = make_rtl(v, ctx, "rob", waves.get());
    desc = fmt::format("rtl {}{}", v.name, v.mutant ? " (mutant)" : "");
    if (s.b("lockstep")) {
      blk = make_lockstep(std::move(blk), e.params, "rob");
      desc += " + lockstep model";
    }
  }
  if (waves)
    if (std::string err = waves->open(cfg.waves_path); !err.empty()) throw core::UsageError(err);
  System sys(e, std::move(blk), waves.get());
  {
    RunControl ctl{traffic, static_cast<uint64_t>(s.i("drain_cycles")), ctx};
    sc_core::sc_signal<rob::Out> o("rob_out");
    RobSystemSc top("rob_tb", sys, ctl);
    top.out(o);
    sc_core::sc_start();
  }
  if (waves) waves->close();
  sys.finish();

  RunResult r;
  r.cycles = sys.cycles();
  r.sim_time = sys.now();
  const auto& o = sys.out();
  const auto& st = sys.stats();
  const auto& c = sys.scoreboard().counts();
  const auto& p = e.params;
  nlohmann::json& j = r.json;
  j["block"] = desc;
  j["cycles"] = r.cycles;
  j["traffic_cycles"] = traffic;
  j["scoreboard"] = {{"expected", c.expected}, {"released", c.matched}, {"lost", c.lost}, {"duplicated", c.duplicated},
                     {"corrupted", c.corrupted}, {"reordered", c.reordered}, {"unexpected", c.unexpected}};
  nlohmann::json counters;
  for (unsigned i = 0; i < rob::kNumCounters; ++i) counters[rob::counter_name(i)] = o.cnt[i];
  j["counters"] = counters;
  const uint64_t arrivals = o.cnt[rob::delivered] + o.cnt[rob::held];
  const double ooo = arrivals ? static_cast<double>(o.cnt[rob::held]) / static_cast<double>(arrivals) : 0;
  j["occupancy"] = {{"p50", st.occupancy.percentile(50)}, {"p99", st.occupancy.percentile(99)},
                    {"max", o.max_occupancy}, {"mean", st.occupancy.mean()}, {"capacity", p.capacity}};
  j["connections"] = {{"p50", st.conns.percentile(50)}, {"max", st.conns.max()}, {"available", p.num_conn}};
  j["out_of_order_share"] = ooo;
  j["latency_cycles"] = {{"p50", st.latency_cycles.percentile(50)}, {"p99", st.latency_cycles.percentile(99)},
                         {"max", st.latency_cycles.max()}};
  j["sent"] = st.sent;
  j["resent"] = st.resent;
  j["streams_done"] = st.streams_done;
  j["duplicates_injected"] = st.dup_injected;
  j["early_fins"] = st.early_fins;
  j["fin_while_held"] = st.fin_while_held;
  j["delayed_closes"] = st.delayed_closes;

  std::string out;
  out += fmt::format("  reorder buffer {}: capacity {}, {} buckets, {}-entry cache, {} connections, {}-bit SEQ\n", desc,
                     p.capacity, 1u << p.hash_bits, p.cam_entries, p.num_conn, p.seq_bits);
  out += fmt::format("  {} sources x {} transfer(s) of {} REQs, {} outstanding at most, {}-flit packets, load {}; "
                     "network {} cycles, +{} on the long path ({:.0f}%), jitter {}, duplicates {}\n",
                     e.sources, e.streams_per_source, e.stream_len, e.max_outstanding, e.flits, e.load, e.base_latency,
                     e.skew, e.p_long * 100, e.jitter, e.p_dup);
  out += fmt::format("  {} traffic cycles, {} in all\n\n", traffic, r.cycles);
  Table tc("Reorder buffer");
  tc.header({"counter", "value"});
  for (unsigned i = 0; i < rob::kNumCounters; ++i) tc.row({rob::counter_name(i), std::to_string(o.cnt[i])});
  out += tc.str() + "\n";
  out += fmt::format("  occupancy p50 {:.0f}, p99 {:.0f}, max {} of {} ({:.0f}% of REQs arrived out of order)\n",
                     st.occupancy.percentile(50), st.occupancy.percentile(99), o.max_occupancy, p.capacity, ooo * 100);
  out += fmt::format("  connections in use p50 {:.0f}, max {:.0f} of {}\n", st.conns.percentile(50), st.conns.max(), p.num_conn);
  out += fmt::format("  REQ latency (first send to release) p50 {:.0f}, p99 {:.0f}, max {:.0f} cycles; {} REQs sent, "
                     "{} sent again after a reject, {} transfers completed\n\n",
                     st.latency_cycles.percentile(50), st.latency_cycles.percentile(99), st.latency_cycles.max(), st.sent,
                     st.resent, st.streams_done);
  if (e.early_fin > 0)
    out += fmt::format("  early FINs {} (probability {}): {} arrived while REQs were held, {} connections closed after "
                       "releasing them\n\n", st.early_fins, e.early_fin, st.fin_while_held, st.delayed_closes);
  Table te("End to end (every REQ released exactly once, in order per transfer)");
  te.header({"sent", "released", "lost", "duplicated", "reordered", "unexpected"});
  te.row({std::to_string(c.expected), std::to_string(c.matched), std::to_string(c.lost), std::to_string(c.duplicated),
          std::to_string(c.reordered), std::to_string(c.unexpected)});
  out += te.str();

  if (auto m = sys.mismatch()) {
    r.has_mismatch = true;
    r.mismatch = *m;
    r.failures.push_back(fmt::format("lockstep mismatch at cycle {} ({}) in {}: {} rtl={:#x} model={:#x} (seed {})",
                                     m->cycle, core::format_time(m->time), m->block, m->signal, m->rtl, m->model, cfg.seed));
    j["mismatch"] = {{"cycle", m->cycle}, {"block", m->block}, {"signal", m->signal}, {"rtl", m->rtl}, {"model", m->model}};
  }
  if (ctx->gotError()) r.failures.push_back(fmt::format("RTL assertion failed by cycle {} (see the %Error line above)", sys.cycles()));
  if (sys.env_error()) r.failures.push_back(*sys.env_error());
  if (!c.clean()) {
    r.failures.push_back(fmt::format("scoreboard: {} lost, {} duplicated, {} corrupted, {} reordered, {} unexpected", c.lost,
                                     c.duplicated, c.corrupted, c.reordered, c.unexpected));
    for (auto& line : sys.scoreboard().errors()) r.failures.push_back("  " + line);
  }
  if (c.expected == 0) r.failures.push_back("no REQ was sent");
  r.pass = r.failures.empty();
  if (!r.pass) out += "\n  reproduce: " + reproduce_line(cfg) + "\n";
  r.summary = out;
  return r;
}

}  // namespace

Testbench stream_testbench() {
  Testbench t;
  t.name = "rob_stream";
  t.description = "Reorder buffer: ordered transfers through a reordering network; occupancy, connections, overflow";
  t.default_cycles = kCycles;
  t.declare = declare;
  t.validate = [](const RunConfig& c) { env_from_settings(c.settings, c.seed); };
  t.run = run;
  t.clock_period = [](const core::Settings&) { return core::Ps{1000}; };
  return t;
}

}  // namespace tb::rob_tb
