#include "llr/llr_tb.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "common/table.hpp"
#include "common/vcontext.hpp"
#include "llr/llr_sc.hpp"
#include "verilated.h"

namespace llr {
std::ostream& operator<<(std::ostream& os, const Out& o) {
  return os << "tx_state=" << o.tx_state << " rx_state=" << o.rx_state << " w_valid=" << o.w_valid
            << " d_valid=" << o.d_valid << " out_frames=" << o.out_frames;
}
}  // namespace llr

namespace tb::llr_tb {

namespace {

constexpr uint64_t kCycles = 20000;

void declare(core::Schema& s) {
  s.add_choice("a", "rtl", {"rtl", "model"}, "partner A's llr block");
  s.add_choice("b", "rtl", {"rtl", "model"}, "partner B's llr block");
  s.add_bool("lockstep", true, "run each RTL block in lockstep with its C++ model");
  s.add_choice("seq_bits", "20", {"20", "7"}, "sequence number width (compiled RTL: 20 with a 256-frame buffer, "
                                              "7 with a 32-frame buffer: wraps every 128 frames)");
  s.add_bool("mutant", false, "use the deliberately broken RTL build (LLR_MUTANT; seq_bits=20 only)");
  s.add_int("outstanding_frames_max", 128, 1, 256, "replay buffer: unacknowledged eligible frames at most");
  s.add_int("outstanding_bytes_max", 131072, 1, (1 << 24) - 1, "replay buffer: unacknowledged bytes at most");
  s.add_int("replay_timer_max", 1000, 1, (1 << 20) - 1, "cycles without ACK progress before a replay");
  s.add_int("replay_count_max", 8, 0, 255, "replays without progress before a flush");
  s.add_int("ctlos_target_spacing", 4, 1, 65535, "an ACK every this many frames (or bytes)");
  s.add_choice("ctlos_spacing_unit", "frames", {"frames", "bytes"}, "unit of ctlos_target_spacing");
  s.add_choice("full_action", "stall", {"stall", "best_effort"}, "replay buffer full: back-pressure, or send ineligible");
  s.add_bool("re_init_on_flush", true, "re-run the INIT handshake after a flush (else the link stays down)");
  s.add_int("clock_mhz", 1000, 100, 4000, "block clock, MHz");
  s.add_real("rate_gbps", 800, 1, 3200, "link rate, Gb/s");
  s.add_choice("cable", "twinax", {"smf", "hcf", "twinax"}, "cable type (4.96, 3.5, 4.6 ns/m)");
  s.add_real("length_m", 2, 0, 1000, "cable length, m");
  s.add_real("fec_latency_ns", lnk::kDefaultFecLatencyNs, 0, 10000, "PHY+FEC latency per direction, ns");
  s.add_real("load", 1.0, 0.01, 1.0, "offered load per partner, fraction of the link rate");
  s.add_real("eligible_ratio", 1.0, 0.0, 1.0, "share of LLR-eligible frames");
  s.add_int("len_min", 64, 1, 16383, "smallest frame, bytes");
  s.add_int("len_max", 1500, 1, 16383, "largest frame, bytes");
  s.add_int("classes", 2, 1, 8, "traffic classes used");
  s.add_bool("bidir", true, "both partners send (else A only)");
  s.add_real("ber", 0, 0, 0.01, "bit error rate on the wire (frames fail FCS, control words arrive corrupted)");
  s.add_real("drop_prob", 0, 0, 0.5, "probability that a frame is lost on the wire");
  s.add_int("drop_frame", -1, -1, 1000000000, "drop this frame index on each direction (-1: none)");
  s.add_int("burst_start", -1, -1, 1000000000, "first frame index of a burst of drops (-1: none)");
  s.add_int("burst_len", 0, 0, 1000000, "frames in the burst");
  s.add_real("ctl_drop_prob", 0, 0, 0.5, "probability that a control word is lost");
  s.add_real("ctl_corrupt_prob", 0, 0, 0.5, "probability that a control word arrives corrupted");
  s.add_real("ack_loss_start_ns", -1, -1, 1e9, "from this time all ACKs are lost (-1: never)");
  s.add_real("ack_loss_ns", 0, 0, 1e9, "for this long");
  s.add_real("link_down_at_ns", -1, -1, 1e9, "the link goes down at this time (-1: never)");
  s.add_real("link_down_ns", 0, 0, 1e9, "for this long");
  s.add_int("pause_class", -1, -1, 7, "PFC pause of this class toward both senders (-1: none)");
  s.add_real("pause_at_ns", 0, 0, 1e9, "pause start");
  s.add_real("pause_ns", 0, 0, 1e9, "pause length");
  s.add_int("drain_cycles", 200000, 1000, 100000000, "cycles allowed to settle after traffic stops");
  s.add_bool("sweep", false, "add the figures: goodput against frame error rate, buffer against cable length (C++ models)");
}

const RtlVariant& variant_of(const core::Settings& s) {
  std::string name = "l" + s.s("seq_bits");
  if (s.b("mutant")) {
    if (name != "l20")
      throw core::UsageError(fmt::format("setting 'mutant' needs seq_bits=20 (the only mutant build), got seq_bits={}",
                                         s.s("seq_bits")));
    name = "l20_mutant";
  }
  return *find_variant(name);
}

core::Ps ns_to_ps(double ns) { return static_cast<core::Ps>(std::llround(ns * 1000.0)); }

}  // namespace

EnvConfig env_from_settings(const core::Settings& s, uint64_t seed) {
  EnvConfig e;
  const RtlVariant& v = variant_of(s);
  e.params = v.params;
  e.seed = seed;
  e.clock_ps = static_cast<core::Ps>(std::llround(1e6 / static_cast<double>(s.i("clock_mhz"))));
  auto& c = e.cfg;
  c.frames_max = static_cast<uint32_t>(s.i("outstanding_frames_max"));
  c.bytes_max = static_cast<uint32_t>(s.i("outstanding_bytes_max"));
  c.replay_timer = static_cast<uint32_t>(s.i("replay_timer_max"));
  c.replay_count_max = static_cast<uint32_t>(s.i("replay_count_max"));
  c.ack_spacing = static_cast<uint32_t>(s.i("ctlos_target_spacing"));
  c.ack_bytes = s.s("ctlos_spacing_unit") == "bytes";
  c.best_effort = s.s("full_action") == "best_effort";
  c.re_init = s.b("re_init_on_flush");
  const uint32_t fmax = std::min<uint32_t>(1u << e.params.buf_log2, (1u << (e.params.seq_bits - 1)) - 1);
  if (c.frames_max > fmax)
    throw core::UsageError(fmt::format("setting 'outstanding_frames_max'={} exceeds the replay buffer of seq_bits={} "
                                       "(allowed: 1..{})", c.frames_max, s.s("seq_bits"), fmax));
  if (c.replay_timer >= (1u << e.params.timer_width))
    throw core::UsageError(fmt::format("setting 'replay_timer_max'={} does not fit the {}-bit timer (allowed: 1..{})",
                                       c.replay_timer, e.params.timer_width, (1u << e.params.timer_width) - 1));
  e.link.rate_gbps = s.r("rate_gbps");
  lnk::parse_cable(s.s("cable"), e.link.cable);
  e.link.length_m = s.r("length_m");
  e.link.fec_latency_ns = s.r("fec_latency_ns");
  e.load = s.r("load");
  e.eligible_ratio = s.r("eligible_ratio");
  e.len_min = static_cast<uint32_t>(s.i("len_min"));
  e.len_max = static_cast<uint32_t>(s.i("len_max"));
  e.classes = static_cast<unsigned>(s.i("classes"));
  e.bidir = s.b("bidir");
  if (e.len_min > e.len_max)
    throw core::UsageError(fmt::format("setting 'len_min'={} is above len_max={} (allowed: 1..{})", e.len_min, e.len_max, e.len_max));
  if (c.bytes_max < e.len_max)
    throw core::UsageError(fmt::format("setting 'outstanding_bytes_max'={} is smaller than one len_max={} frame "
                                       "(allowed: {}..16777215)", c.bytes_max, e.len_max, e.len_max));
  auto& f = e.faults;
  f.ber = s.r("ber");
  f.drop_prob = s.r("drop_prob");
  if (s.i("drop_frame") >= 0) f.drop_frames.push_back(static_cast<uint64_t>(s.i("drop_frame")));
  if (s.i("burst_start") >= 0 && s.i("burst_len") > 0)
    f.bursts.push_back({static_cast<uint64_t>(s.i("burst_start")), static_cast<uint64_t>(s.i("burst_len"))});
  f.ctl_drop_prob = s.r("ctl_drop_prob");
  f.ctl_corrupt_prob = s.r("ctl_corrupt_prob");
  if (s.r("ack_loss_start_ns") >= 0 && s.r("ack_loss_ns") > 0) {
    lnk::FaultConfig::CtlWindow w;
    w.start = ns_to_ps(s.r("ack_loss_start_ns"));
    w.end = w.start + ns_to_ps(s.r("ack_loss_ns"));
    w.kind = static_cast<int>(lnk::Ctl::Kind::ack);
    w.drop = true;
    f.ctl_windows.push_back(w);
  }
  if (s.r("link_down_at_ns") >= 0 && s.r("link_down_ns") > 0)
    f.down.push_back({ns_to_ps(s.r("link_down_at_ns")), ns_to_ps(s.r("link_down_at_ns") + s.r("link_down_ns"))});
  if (s.i("pause_class") >= 0) {
    if (s.i("pause_class") >= static_cast<int64_t>(e.classes))
      throw core::UsageError(fmt::format("setting 'pause_class'={} is not a class in use (allowed: -1..{})",
                                         s.i("pause_class"), e.classes - 1));
    f.pauses.push_back({ns_to_ps(s.r("pause_at_ns")), ns_to_ps(s.r("pause_at_ns") + s.r("pause_ns")),
                        static_cast<uint32_t>(s.i("pause_class"))});
  }
  if (std::string err = f.validate(); !err.empty()) throw core::UsageError(err);
  if (std::string err = e.link.validate(); !err.empty()) throw core::UsageError(err);
  return e;
}

double replay_loop_ns(const EnvConfig& e) {
  const auto& l = e.link;
  const double P = core::to_ns(e.clock_ps);
  // lost frame's slot + the next frame reveals the gap, NACK back, replay out
  double t = core::to_ns(l.serialization(e.len_max + l.overhead_bytes)) * 2 + core::to_ns(l.serialization(l.ctl_bytes)) +
             3 * core::to_ns(l.flight());
  return t + 6 * P;  // pipeline: receive, NACK load, NACK at the sender, replay load (+ registers)
}

double buffer_for_full_rate_bytes(const EnvConfig& e) {
  const auto& l = e.link;
  const double P = core::to_ns(e.clock_ps);
  // A frame stays in the buffer from its first bit until its ACK returns.
  double rtt = core::to_ns(l.serialization(e.len_max + l.overhead_bytes)) + core::to_ns(l.serialization(l.ctl_bytes)) +
               2 * core::to_ns(l.flight()) + 6 * P;
  // plus the ACK spacing: up to `spacing` frames wait for their ACK
  double spacing_ns = e.cfg.ack_bytes ? e.cfg.ack_spacing * 8.0 / l.rate_gbps
                                      : e.cfg.ack_spacing * (e.len_max + l.overhead_bytes) * 8.0 / l.rate_gbps;
  return l.rate_gbps / 8.0 * (rtt + spacing_ns);
}

namespace {

struct Built {
  VerilatedContext* ctx = nullptr;
  std::unique_ptr<Waves> waves;
  std::unique_ptr<System> sys;
  std::string a_desc, b_desc;
};

Built build(const EnvConfig& e, const core::Settings& s, const std::string& waves_path, bool allow_lockstep) {
  Built b;
  b.ctx = shared_context();
  b.ctx->assertOn(true);
  const RtlVariant& v = variant_of(s);
  Waves* w = nullptr;
  if (!waves_path.empty()) {
    b.waves = std::make_unique<Waves>();
    w = b.waves.get();
  }
  const bool lock = allow_lockstep && s.b("lockstep");
  auto make = [&](const std::string& which, std::string& desc) -> std::unique_ptr<LlrBlock> {
    if (s.s(which) == "model") {
      desc = "model";
      return make_model(e.params);
    }
    std::string inst = which == "a" ? "a" : "b";
    auto r = make_rtl(v, b.ctx, inst, w);
    desc = fmt::format("rtl {}{}{}", v.name, v.mutant ? " (mutant)" : "", lock ? " + lockstep model" : "");
    if (lock) return make_lockstep(std::move(r), e.params, inst);
    return r;
  };
  auto a = make("a", b.a_desc);
  auto bb = make("b", b.b_desc);
  if (w) {
    if (std::string err = w->open(waves_path); !err.empty()) throw core::UsageError(err);
  }
  b.sys = std::make_unique<System>(e, std::move(a), std::move(bb), w);
  return b;
}

void run_systemc(Built& b, uint64_t traffic, uint64_t drain) {
  RunControl ctl{traffic, drain, b.ctx};
  sc_core::sc_signal<llr::Out> ao("a_out"), bo("b_out");
  LlrSystemSc top("llr", *b.sys, ctl);
  top.a_out(ao);
  top.b_out(bo);
  sc_core::sc_start();
}

void run_plain(System& sys, uint64_t traffic, uint64_t drain, const VerilatedContext* ctx) {
  RunControl ctl{traffic, drain, ctx};
  do {
    sys.cycle();
  } while (!ctl.done(sys));
}

nlohmann::json counters_json(const llr::Out& o) {
  nlohmann::json j;
  for (unsigned i = 0; i < llr::kNumCounters; ++i) j[llr::counter_name(i)] = o.cnt[i];
  return j;
}

nlohmann::json sb_json(const core::Scoreboard::Counts& c) {
  return {{"expected", c.expected}, {"matched", c.matched}, {"lost", c.lost}, {"duplicated", c.duplicated},
          {"corrupted", c.corrupted}, {"reordered", c.reordered}, {"unexpected", c.unexpected},
          {"discarded", c.discarded}};
}

std::string fault_line(const System::Side& s) {
  if (!s.faults) return "none";
  const auto& st = s.faults->stats();
  return fmt::format("{} frames: {} dropped, {} corrupted; {} control words: {} dropped, {} corrupted, {} delayed; "
                     "{} lost to link down",
                     st.frames, st.frames_dropped, st.frames_corrupted, st.ctl, st.ctl_dropped, st.ctl_corrupted,
                     st.ctl_delayed, st.lost_link_down);
}

}  // namespace

std::vector<FerPoint> fer_sweep(const EnvConfig& base, const std::vector<double>& fers, uint64_t cycles) {
  std::vector<FerPoint> out;
  double clean = 0;
  for (double fer : fers) {
    EnvConfig e = base;
    e.faults = lnk::FaultConfig{};
    e.faults.drop_prob = fer;
    e.bidir = true;
    e.load = 1.0;
    e.eligible_ratio = 1.0;
    System sys(e, make_model(e.params), make_model(e.params), nullptr);
    sys.set_window(cycles / 10);
    run_plain(sys, cycles, 200000, nullptr);
    sys.finish();
    FerPoint p;
    p.fer = fer;
    p.goodput_gbps = sys.goodput_gbps(sys.a());
    if (fer == 0 || clean == 0) clean = clean == 0 ? p.goodput_gbps : clean;
    p.efficiency = clean > 0 ? p.goodput_gbps / clean : 0;
    p.replays = sys.a().out.cnt[llr::tx_replay];
    p.dropped = sys.a().faults ? sys.a().faults->stats().frames_dropped : 0;
    p.flushes = sys.a().out.cnt[llr::tx_flush];
    p.clean = sys.a().strict.counts().clean() && sys.b().strict.counts().clean();
    out.push_back(p);
  }
  return out;
}

namespace {

RunResult run_link(const RunConfig& cfg) {
  const core::Settings& s = cfg.settings;
  EnvConfig e = env_from_settings(s, cfg.seed);
  const uint64_t traffic = cfg.cycles ? cfg.cycles : kCycles;
  Built b = build(e, s, cfg.waves_path, true);
  System& sys = *b.sys;
  sys.set_window(std::min<uint64_t>(traffic / 10, 2000));
  run_systemc(b, traffic, static_cast<uint64_t>(s.i("drain_cycles")));
  if (b.waves) b.waves->close();
  sys.finish();

  RunResult r;
  r.cycles = sys.cycles();
  r.sim_time = sys.now();
  const auto& A = sys.a();
  const auto& B = sys.b();
  nlohmann::json& j = r.json;
  j["blocks"] = {{"a", b.a_desc}, {"b", b.b_desc}};
  j["cycles"] = r.cycles;
  j["traffic_cycles"] = traffic;
  j["sim_time_ns"] = core::to_ns(r.sim_time);
  j["counters"] = {{"a", counters_json(A.out)}, {"b", counters_json(B.out)}};
  j["scoreboard"] = {{"a_to_b", sb_json(A.strict.counts())}, {"b_to_a", sb_json(B.strict.counts())}};
  j["best_effort"] = {{"a_to_b", sb_json(A.best.counts())}, {"b_to_a", sb_json(B.best.counts())}};
  j["discarded_by_flush"] = {{"a_to_b", A.discarded}, {"b_to_a", B.discarded}};
  j["demoted_best_effort"] = {{"a_to_b", A.demoted}, {"b_to_a", B.demoted}};
  j["goodput_gbps"] = {{"a_to_b", sys.goodput_gbps(A)}, {"b_to_a", sys.goodput_gbps(B)}};
  j["replay_buffer_max"] = {{"a", {{"frames", A.max_out_frames}, {"bytes", A.max_out_bytes}}},
                            {"b", {{"frames", B.max_out_frames}, {"bytes", B.max_out_bytes}}}};
  auto lat = [](const core::Samples& x) {
    return nlohmann::json{{"count", x.count()}, {"p50", x.percentile(50)}, {"p99", x.percentile(99)}, {"max", x.max()}};
  };
  j["latency_ns"] = {{"a_to_b", lat(A.latency_ns)}, {"a_to_b_replayed", lat(A.latency_replayed_ns)},
                     {"b_to_a", lat(B.latency_ns)}, {"b_to_a_replayed", lat(B.latency_replayed_ns)}};
  const double loop = replay_loop_ns(e);
  const double need = buffer_for_full_rate_bytes(e);
  j["replay_loop_ns"] = loop;
  j["buffer_for_full_rate_bytes"] = need;
  j["events"] = nlohmann::json::array();
  for (auto& ev : sys.events())
    j["events"].push_back({{"cycle", ev.cycle}, {"time_ns", core::to_ns(ev.time)}, {"side", std::string(1, ev.side)},
                           {"machine", ev.machine}, {"from", ev.from}, {"to", ev.to}});
  j["event_count"] = sys.event_count();
  if (A.faults)
    j["faults"] = {{"a_to_b", {{"frames_dropped", A.faults->stats().frames_dropped},
                               {"frames_corrupted", A.faults->stats().frames_corrupted},
                               {"ctl_dropped", A.faults->stats().ctl_dropped},
                               {"ctl_corrupted", A.faults->stats().ctl_corrupted}}},
                   {"b_to_a", {{"frames_dropped", B.faults->stats().frames_dropped},
                               {"frames_corrupted", B.faults->stats().frames_corrupted},
                               {"ctl_dropped", B.faults->stats().ctl_dropped},
                               {"ctl_corrupted", B.faults->stats().ctl_corrupted}}}};

  std::string out;
  out += fmt::format("  A {}, B {}\n", b.a_desc, b.b_desc);
  out += fmt::format("  link {} Gb/s, {} {} m ({:.2f} ns), FEC {} ns; clock {} MHz; {} traffic cycles, {} in all ({})\n",
                     e.link.rate_gbps, lnk::to_string(e.link.cable), e.link.length_m, core::to_ns(e.link.propagation()),
                     e.link.fec_latency_ns, s.i("clock_mhz"), traffic, r.cycles, core::format_time(r.sim_time));
  out += fmt::format("  traffic {}, load {}, frames {}..{} B, {:.0f}% eligible, {} class(es); replay buffer {} frames / {} B, "
                     "timer {} cycles, {} replays before flush, ACK every {} {}, full: {}\n",
                     e.bidir ? "both ways" : "A to B", e.load, e.len_min, e.len_max, e.eligible_ratio * 100, e.classes,
                     e.cfg.frames_max, e.cfg.bytes_max, e.cfg.replay_timer, e.cfg.replay_count_max, e.cfg.ack_spacing,
                     e.cfg.ack_bytes ? "bytes" : "frames", e.cfg.best_effort ? "best effort" : "stall");
  out += fmt::format("  faults A->B: {}\n  faults B->A: {}\n\n", fault_line(A), fault_line(B));
  Table tc("Counters");
  tc.header({"counter", "A", "B"});
  for (unsigned i = 0; i < llr::kNumCounters; ++i)
    tc.row({llr::counter_name(i), std::to_string(A.out.cnt[i]), std::to_string(B.out.cnt[i])});
  out += tc.str() + "\n";
  Table te("End to end (eligible frames: exactly once, in order, intact)");
  te.header({"direction", "sent", "delivered", "lost", "duplicated", "corrupted", "reordered", "flushed", "goodput"});
  for (const auto* sd : {&A, &B}) {
    const auto& c = sd->strict.counts();
    te.row({sd == &A ? "A->B" : "B->A", std::to_string(c.expected), std::to_string(c.matched), std::to_string(c.lost),
            std::to_string(c.duplicated), std::to_string(c.corrupted), std::to_string(c.reordered),
            std::to_string(sd->discarded), fmt::format("{:.1f} Gb/s", sys.goodput_gbps(*sd))});
  }
  out += te.str();
  for (const auto* sd : {&A, &B}) {
    const auto& c = sd->best.counts();
    if (c.expected)
      out += fmt::format("  ineligible {}: {} sent ({} demoted when the buffer was full), {} delivered, {} lost\n",
                         sd == &A ? "A->B" : "B->A", c.expected, sd->demoted, c.matched, c.lost);
  }
  out += fmt::format("\nLatency (client to client)\n  A->B p50 {:.1f} ns, p99 {:.1f} ns; replayed frames: {} , p50 {:.1f} ns, max {:.1f} ns\n",
                     A.latency_ns.percentile(50), A.latency_ns.percentile(99), A.latency_replayed_ns.count(),
                     A.latency_replayed_ns.percentile(50), A.latency_replayed_ns.max());
  const double added_est = loop - core::to_ns(e.link.flight());
  j["replay_added_latency_estimate_ns"] = added_est;
  if (A.latency_replayed_ns.count() && A.latency_ns.count()) {
    const double added = A.latency_replayed_ns.percentile(50) - A.latency_ns.percentile(50);
    j["replay_added_latency_ns"] = added;
    out += fmt::format("  added latency of a replay (p50 replayed - p50 clean): {:.1f} ns (estimate {:.1f} ns: "
                       "the replay loop less one flight)\n", added, added_est);
  }
  out += fmt::format("  replay loop (gap seen at the next frame, NACK back, replay out) for {} B frames: {:.1f} ns "
                     "-> {} 1 us per hop\n",
                     e.len_max, loop, loop < 1000 ? "under" : "OVER");
  out += fmt::format("\nReplay buffer\n  used at most: A {} frames / {} B, B {} frames / {} B (limits {} / {})\n"
                     "  for full rate: rate x (frame + ACK round trip + ACK spacing) = {:.0f} B\n",
                     A.max_out_frames, A.max_out_bytes, B.max_out_frames, B.max_out_bytes, e.cfg.frames_max,
                     e.cfg.bytes_max, need);
  if (s.b("sweep")) {
    auto pts = fer_sweep(e, {0, 1e-6, 1e-4, 1e-3}, 200000);
    Table tf("\nGoodput against frame error rate (C++ models, both ways at full load, 200000 cycles)");
    tf.header({"frame error rate", "goodput A->B", "of clean", "frames lost", "frames replayed", "flushes", "scoreboard"});
    j["fer_sweep"] = nlohmann::json::array();
    for (auto& p : pts) {
      tf.row({fmt::format("{:g}", p.fer), fmt::format("{:.1f} Gb/s", p.goodput_gbps), fmt::format("{:.2f}%", p.efficiency * 100),
              std::to_string(p.dropped), std::to_string(p.replays), std::to_string(p.flushes), p.clean ? "clean" : "ERRORS"});
      j["fer_sweep"].push_back({{"fer", p.fer}, {"goodput_gbps", p.goodput_gbps}, {"efficiency", p.efficiency},
                                {"frames_lost", p.dropped}, {"replays", p.replays}, {"flushes", p.flushes},
                                {"clean", p.clean}});
    }
    out += tf.str();
    Table tl("\nReplay buffer for full rate against cable length (" + std::to_string(e.len_max) + " B frames)");
    tl.header({"cable", "length", "replay loop", "buffer for full rate"});
    j["buffer_vs_length"] = nlohmann::json::array();
    for (double len : {1.0, 2.0, 5.0, 10.0, 100.0}) {
      EnvConfig x = e;
      x.link.length_m = len;
      double bytes = buffer_for_full_rate_bytes(x);
      tl.row({lnk::to_string(x.link.cable), fmt::format("{} m", len), fmt::format("{:.1f} ns", replay_loop_ns(x)),
              fmt::format("{:.0f} B", bytes)});
      j["buffer_vs_length"].push_back({{"length_m", len}, {"replay_loop_ns", replay_loop_ns(x)}, {"bytes", bytes}});
    }
    out += tl.str();
  }
  if (sys.event_count()) {
    out += fmt::format("\nState changes ({}; first ones, all in --json)\n", sys.event_count());
    size_t n = 0;
    for (auto& ev : sys.events()) {
      if (++n > 12) break;
      out += fmt::format("  cycle {:>8} {:>12}  {} {}: {} -> {}\n", ev.cycle, core::format_time(ev.time), ev.side,
                         ev.machine, ev.from, ev.to);
    }
  }

  if (auto m = sys.mismatch()) {
    r.has_mismatch = true;
    r.mismatch = *m;
    r.failures.push_back(fmt::format("lockstep mismatch at cycle {} ({}) in {}: {} rtl={:#x} model={:#x} (seed {})",
                                     m->cycle, core::format_time(m->time), m->block, m->signal, m->rtl, m->model, cfg.seed));
    j["mismatch"] = {{"cycle", m->cycle}, {"time_ns", core::to_ns(m->time)}, {"block", m->block},
                     {"signal", m->signal}, {"rtl", m->rtl}, {"model", m->model}};
  }
  if (b.ctx->gotError()) r.failures.push_back(fmt::format("RTL assertion failed by cycle {} (see the %Error line above)", sys.cycles()));
  for (const auto* sd : {&A, &B}) {
    const auto& c = sd->strict.counts();
    if (!c.clean()) {
      r.failures.push_back(fmt::format("{}: {} lost, {} duplicated, {} corrupted, {} reordered, {} unexpected",
                                       sd->strict.name(), c.lost, c.duplicated, c.corrupted, c.reordered, c.unexpected));
      for (auto& line : sd->strict.errors()) r.failures.push_back("  " + line);
    }
    const auto& be = sd->best.counts();
    if (be.duplicated + be.corrupted + be.unexpected)
      r.failures.push_back(fmt::format("{}: {} duplicated, {} corrupted, {} unexpected", sd->best.name(), be.duplicated,
                                       be.corrupted, be.unexpected));
  }
  // The counters agree with what the clients saw.
  const uint64_t seen_b = A.strict.counts().matched + A.best.counts().matched + A.strict.counts().corrupted;
  const uint64_t seen_a = B.strict.counts().matched + B.best.counts().matched + B.strict.counts().corrupted;
  if (B.out.cnt[llr::rx_ok] != static_cast<uint32_t>(seen_b))
    r.failures.push_back(fmt::format("B rx_ok={} but its client received {} frames", B.out.cnt[llr::rx_ok], seen_b));
  if (A.out.cnt[llr::rx_ok] != static_cast<uint32_t>(seen_a))
    r.failures.push_back(fmt::format("A rx_ok={} but its client received {} frames", A.out.cnt[llr::rx_ok], seen_a));
  if (A.strict.counts().expected + A.best.counts().expected == 0) r.failures.push_back("no frame was sent");
  r.pass = r.failures.empty();
  if (!r.pass) out += "\n  reproduce: " + reproduce_line(cfg) + "\n";
  r.summary = out;
  return r;
}

BenchResult bench(const RunConfig& cfg) {
  core::Settings s = cfg.settings;
  s.set("a", "rtl");
  s.set("b", "rtl");
  EnvConfig e = env_from_settings(s, cfg.seed);
  const uint64_t n = cfg.cycles ? cfg.cycles : 200000;
  using clk = std::chrono::steady_clock;
  auto secs = [](clk::time_point a, clk::time_point b) { return std::chrono::duration<double>(b - a).count(); };
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
    plain_ok = b.sys->b().out.cnt[llr::rx_ok];
  }
  {
    System sys(e, make_model(e.params), make_model(e.params), nullptr);
    auto t0 = clk::now();
    run_plain(sys, n, 0, nullptr);
    model_rate = static_cast<double>(sys.cycles()) / secs(t0, clk::now());
  }
  {
    Built b = build(e, s, "", false);
    auto t0 = clk::now();
    run_systemc(b, n, 0);
    sc_rate = static_cast<double>(b.sys->cycles()) / secs(t0, clk::now());
    sc_ok = b.sys->b().out.cnt[llr::rx_ok];
  }
  RtlBenchFigures f;
  f.title = fmt::format("cosim bench llr: llr_link system (two partners, clients, link both ways, scoreboards), seq_bits={}",
                        s.s("seq_bits"));
  f.plain_rate = plain_rate, f.sc_rate = sc_rate, f.model_rate = model_rate;
  f.plain_result = plain_ok, f.sc_result = sc_ok, f.result_what = "frames delivered at B";
  BenchResult r = rtl_bench_report("llr", cfg, n, f);
  return r;
}

}  // namespace

Testbench link_testbench() {
  Testbench t;
  t.name = "llr_link";
  t.description = "LLR: two link partners over a faulty link; replay, counters, state machines, scoreboards";
  t.default_cycles = kCycles;
  t.declare = declare;
  t.validate = [](const RunConfig& c) { env_from_settings(c.settings, c.seed); };
  t.run = run_link;
  t.bench = bench;
  t.bench_name = "llr";
  t.clock_period = [](const core::Settings& s) { return static_cast<core::Ps>(std::llround(1e6 / s.i("clock_mhz"))); };
  return t;
}

}  // namespace tb::llr_tb
