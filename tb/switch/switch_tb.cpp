#include "switch/switch_tb.hpp"

#include <systemc.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <memory>

#include "common/table.hpp"

namespace tb::switch_tb {

namespace {

using core::Ps;

constexpr uint64_t kCycles = 100000;  // 100 us of traffic at the 1 GHz core clock

sw::FlowControl other(sw::FlowControl f) {
  return f == sw::FlowControl::cbfc ? sw::FlowControl::pfc : sw::FlowControl::cbfc;
}

std::string upper(sw::FlowControl f) { return f == sw::FlowControl::cbfc ? "CBFC" : "PFC"; }

void declare(core::Schema& s) {
  s.add_choice("fc", "cbfc", {"cbfc", "pfc"}, "flow control of the lossless classes in the primary run");
  s.add_bool("compare", true, "also run the other flow-control mode with the same seed and traffic, side by side");
  s.add_int("fan_in", 32, 2, 63, "incast senders (ports 1..fan_in) into port 0 (draft 6.5(c): N=32)");
  s.add_int("radix", 64, 4, 256, "switch ports; must hold fan_in + 2 (senders, incast and victim destinations)");
  s.add_choice("port_gbps", "800", {"800", "400", "200", "100"}, "port speed, every port (SUE tables 6/7)");
  s.add_int("packet_bytes", 1024, 64, 4096, "packet size of every flow");
  s.add_real("load", 1.0, 0.01, 1.0, "offered load per sender, fraction of the port rate (1 = backlogged, draft 7.2)");
  s.add_bool("victim", true, "sender 1 also sends to port fan_in+1 (idle destination): head-of-line blocking victim");
  s.add_real("victim_load", 0.01, 0.001, 1.0, "offered load of the victim flow, fraction of the port rate (Poisson)");
  s.add_int("classes", 2, 1, 8, "traffic classes, all lossless (0 = requests: the incast class, 1 = responses)");
  s.add_int("victim_class", 0, 0, 7, "class of the victim flow (0: shares the incast class at sender 1)");
  s.add_int("buffer_bytes", 64 << 20, 1 << 20, int64_t{1} << 32, "shared cell memory of the switch");
  s.add_int("cbfc_buf_cells", 512, 1, 32767, "CBFC: credits (128 B cells) per ingress port and lossless class");
  s.add_int("pfc_xoff_cells", 256, 1, 1 << 20, "PFC: static XOFF cap per ingress port and lossless class, cells");
  s.add_int("pfc_headroom_cells", 512, 1, 1 << 20, "PFC: headroom above XOFF per ingress port and lossless class, cells");
  s.add_int("pfc_resume_offset_cells", 24, 0, 1 << 20, "PFC: XON hysteresis below XOFF, cells");
  s.add_real("link_ns", 10.0, 0.0, 10000.0, "one-way host <-> switch link delay (2 m twinax ~ 10 ns)");
  s.add_bool("llr", false,
             "link layer retry on every host <-> switch link (an LLR model at each end, ACK/NACK on the reverse wire; "
             "docs/switch.md \"LLR on links\")");
  s.add_real("fer", 0.0, 0.0, 1.0,
             "frame error rate on every host <-> switch wire, both directions (a frame fails its FCS); without llr a "
             "failed frame is a lost packet");
  s.add_int("llr_frames_max", 32, 1, 64, "LLR: replay buffer, frames unacknowledged at most (cfg_frames_max, 2^6-frame buffer)");
  s.add_int("llr_replay_timer", 1000, 1, (1 << 20) - 1, "LLR: cycles without ACK progress before a replay (cfg_replay_timer)");
  s.add_int("warmup_cycles", -1, -1, 100000000,
            "traffic cycles before the measurement window opens (-1: auto, the time the incast queue takes to reach "
            "steady state, fan_in x per-ingress buffer / line rate x 1.25, at most half the traffic)");
  s.add_int("drain_cycles", -1, -1, 1000000000,
            "cycles allowed to deliver everything after traffic stops (-1: auto, 200000 + the time the incast "
            "port needs for what Poisson senders (load < 1) queued beyond it: fan_in x load x traffic x 1.1)");
}

// ------------------------------------------------------------------ one run of one mode

struct Agg {
  double mean = 0, max = 0, min = 0;
};

Agg agg(const std::vector<double>& v) {
  Agg a;
  if (v.empty()) return a;
  a.min = *std::min_element(v.begin(), v.end());
  a.max = *std::max_element(v.begin(), v.end());
  double s = 0;
  for (double x : v) s += x;
  a.mean = s / static_cast<double>(v.size());
  return a;
}

nlohmann::json agg_json(const Agg& a) { return {{"mean", a.mean}, {"max", a.max}, {"min", a.min}}; }

struct ModeResult {
  sw::FlowControl fc = sw::FlowControl::cbfc;
  Ps window = 0;
  uint64_t cycles = 0;
  Ps sim_time = 0;
  double incast_gbps = 0, line_payload_gbps = 0;
  uint64_t incast_pkts = 0;
  double jain = 0, imbalance = 0;
  double q_p95 = 0, q_max = 0;
  Agg pause_frames, xoff_events, xoff_ns, pause_stall_ns, credit_stall_ns, ing_cells_max, hdrm_cells_max;
  uint64_t pause_sent = 0, xoff_total = 0;
  uint64_t lossless_drops = 0, other_drops = 0;
  core::Samples lat;  // incast, switch pin to pin (first byte in -> first byte out), ns
  // victim
  uint64_t victim_offered_pkts = 0, victim_pkts = 0;
  double victim_offered_gbps = 0, victim_gbps = 0;
  core::Samples victim_lat;     // offered at the host -> first byte out of the switch, ns
  core::Samples victim_sw_lat;  // switch pin to pin, ns
  double victim_zero_load_ns = 0;
  core::Scoreboard::Counts sb;
  std::vector<std::string> sb_errors;
  bool drained = false;
  // links (LLR and wire faults), over the window, all ports and both directions
  sw::LinkStats link;
  uint64_t wire_losses = 0;    // whole run
  double incast_link_gbps = 0;  // port 0 downlink goodput (to the incast host)
  core::Samples e2e;            // incast, first bit on the sender's wire -> the port-0 host has it, ns
  uint64_t replayed_pkts = 0;   // packets replayed at least once (whole run)
  double replayed_p50 = 0;
};

class IncastRun {
 public:
  IncastRun(const Scenario& sc, sw::FlowControl fc, uint64_t seed)
      : sc_(sc), rng_(seed, "switch_tb.victim") {
    sw::Params p = sc.params;
    p.fc = fc;
    r_.fc = fc;
    h_ = std::make_unique<sw::Harness>(p, sc.harness);
    for (unsigned s = 1; s <= sc.fan_in; ++s) h_->add_source(s, {0}, sc.incast_class, sc.load, sc.packet_bytes);
    P_ = p.period();
    v_gap_ = static_cast<double>(p.serialization(uint64_t{sc.packet_bytes} + p.overhead_bytes)) / sc.victim_load;
    v_next_ = 0;
    window_bytes_.assign(sc.fan_in + 1, 0);
    r_.victim_zero_load_ns = core::to_ns(core::ns(sc.harness.link_ns) + p.zero_load_latency());
  }

  const sw::Harness& harness() const { return *h_; }
  Ps period() const { return P_; }

  /// One core cycle of the whole system; true when the run is over.
  bool step() {
    const Scenario& sc = sc_;
    sw::Harness& h = *h_;
    if (n_ == sc.warmup_cycles) {
      h.reset_stats();
      win_open_ = true;
    }
    if (n_ == sc.traffic_cycles) {
      snapshot();
      win_open_ = false;
      h.stop_sources();
    }
    const Ps T = h.sw().now();
    if (sc.victim && n_ < sc.traffic_cycles) {
      while (static_cast<double>(v_next_) <= static_cast<double>(T)) {
        h.offer(sc.victim_src, sc.victim_dst, sc.victim_class, sc.packet_bytes);
        v_off_.push_back({T, win_open_});
        if (win_open_) ++r_.victim_offered_pkts;
        const double u = rng_.real();
        v_next_ += std::max<Ps>(1, static_cast<Ps>(-std::log(1.0 - u) * v_gap_));
      }
    }
    h.tick();
    for (const auto& [pk, why] : h.sw().drops()) {
      if (h.sw().params().classes[pk.cls].lossless)
        ++r_.lossless_drops;
      else
        ++r_.other_drops;
      (void)why;
    }
    for (const sw::Packet& d : h.sw().departures()) {
      const double lat = core::to_ns(d.t_head_out - d.t_in);
      if (d.egress_port == 0) {
        if (win_open_) {
          if (d.src_port <= sc.fan_in) window_bytes_[d.src_port] += d.bytes;
          r_.lat.add(lat);
        }
      } else if (sc.victim && d.src_port == sc.victim_src && d.dst_xpu == sc.victim_dst && d.cls == sc.victim_class) {
        // per-flow order is promised (and checked by the scoreboard): the oldest offer is this packet's
        if (!v_off_.empty()) {
          const Off o = v_off_.front();
          v_off_.pop_front();
          if (o.in_window) {
            r_.victim_lat.add(core::to_ns(d.t_head_out - o.t));
            r_.victim_sw_lat.add(lat);
          }
        }
        if (win_open_) {
          ++r_.victim_pkts;
          victim_bytes_ += d.bytes;
        }
      }
    }
    ++n_;
    if (n_ < sc.traffic_cycles) return false;
    return h.idle() || n_ >= sc.traffic_cycles + sc.drain_cycles;
  }

  ModeResult finish() {
    sw::Harness& h = *h_;
    if (n_ < sc_.traffic_cycles) snapshot();
    r_.drained = h.idle();
    r_.sb = h.scoreboard().finish();
    r_.sb_errors = h.scoreboard().errors();
    r_.wire_losses = h.wire_losses();
    r_.replayed_pkts = h.e2e_latency_replayed_ns().count();
    r_.replayed_p50 = h.e2e_latency_replayed_ns().percentile(50);
    r_.lossless_drops = std::max<uint64_t>(r_.lossless_drops, h.sw().lossless_drops());
    r_.cycles = n_;
    r_.sim_time = h.sw().now();
    return std::move(r_);
  }

 private:
  struct Off {
    Ps t;
    bool in_window;
  };
  const Scenario& sc_;
  core::Rng rng_;
  std::unique_ptr<sw::Harness> h_;
  Ps P_ = 1000;
  double v_gap_ = 0;
  Ps v_next_ = 0;
  std::deque<Off> v_off_;
  uint64_t n_ = 0;
  bool win_open_ = false;
  std::vector<uint64_t> window_bytes_;
  uint64_t victim_bytes_ = 0;
  ModeResult r_;

  /// Window figures at the end of traffic (before the drain).
  void snapshot() {
    const Scenario& sc = sc_;
    const sw::Harness& h = *h_;
    const sw::Switch& s = h.sw();
    const sw::Params& p = s.params();
    const unsigned c = sc.incast_class;
    r_.window = h.window();
    const double w = static_cast<double>(std::max<Ps>(1, r_.window));
    auto gbps = [&](double bytes) { return bytes * 8.0 * 1000.0 / w; };  // bytes per ps -> Gb/s
    r_.incast_pkts = s.stats(0, c).tx_pkts;
    r_.incast_gbps = gbps(static_cast<double>(s.stats(0, c).tx_bytes));
    r_.line_payload_gbps = p.port_gbps * static_cast<double>(sc.packet_bytes) /
                           static_cast<double>(sc.packet_bytes + p.overhead_bytes);
    std::vector<double> per;
    for (unsigned i = 1; i <= sc.fan_in; ++i) per.push_back(static_cast<double>(window_bytes_[i]));
    r_.jain = core::jain_fairness(per);
    const Agg a = agg(per);
    r_.imbalance = a.mean > 0 ? a.max / a.mean : 0;
    r_.q_p95 = s.stats(0, c).q_bytes_samples.percentile(95);
    r_.q_max = static_cast<double>(s.stats(0, c).q_bytes_max);
    std::vector<double> pf, xe, xt, ps, cs, ic, hc;
    for (unsigned i = 1; i <= sc.fan_in; ++i) {
      const sw::PortClassStats& st = s.stats(i, c);
      const sw::HostStats& hs = h.host(i);
      pf.push_back(static_cast<double>(hs.pauses_rcvd[c]));
      xe.push_back(static_cast<double>(st.xoff_events));
      xt.push_back(core::to_ns(st.xoff_time));
      ps.push_back(core::to_ns(hs.pause_stall[c]));
      cs.push_back(core::to_ns(hs.credit_stall[c]));
      ic.push_back(st.ing_cells_max);
      hc.push_back(st.hdrm_cells_max);
      r_.pause_sent += st.pause_sent;
      r_.xoff_total += st.xoff_events;
    }
    r_.pause_frames = agg(pf);
    r_.xoff_events = agg(xe);
    r_.xoff_ns = agg(xt);
    r_.pause_stall_ns = agg(ps);
    r_.credit_stall_ns = agg(cs);
    r_.ing_cells_max = agg(ic);
    r_.hdrm_cells_max = agg(hc);
    r_.victim_offered_gbps = gbps(static_cast<double>(r_.victim_offered_pkts) * sc.packet_bytes);
    r_.victim_gbps = gbps(static_cast<double>(victim_bytes_));
    r_.e2e = h.e2e_latency_ns(c);
    for (unsigned port = 0; port < p.radix; ++port) {
      const sw::PortLinkStats ls = h.link_stats(port);
      r_.link += ls.up;
      r_.link += ls.down;
    }
    r_.incast_link_gbps = h.goodput_gbps(h.link_stats(0).down);
  }
};

/// One self-timed process steps the whole system (hosts, links, switch) once per core cycle.
SC_MODULE(SwitchIncastSc) {
  SC_HAS_PROCESS(SwitchIncastSc);
  SwitchIncastSc(sc_core::sc_module_name n, IncastRun& run)
      : sc_module(n), run_(run), period_(static_cast<double>(run.period()), sc_core::SC_PS) {
    SC_METHOD(step);
  }

 private:
  IncastRun& run_;
  sc_core::sc_time period_;
  void step() {
    if (run_.step())
      sc_core::sc_stop();
    else
      next_trigger(period_);
  }
};

// ------------------------------------------------------------------ summary

double pct(const core::Samples& s, double p) { return s.empty() ? 0.0 : s.percentile(p); }

nlohmann::json mode_json(const ModeResult& m) {
  nlohmann::json j;
  j["fc"] = sw::to_string(m.fc);
  j["window_ns"] = core::to_ns(m.window);
  j["cycles"] = m.cycles;
  j["incast"] = {{"gbps", m.incast_gbps},
                 {"line_payload_gbps", m.line_payload_gbps},
                 {"share_of_line", m.line_payload_gbps > 0 ? m.incast_gbps / m.line_payload_gbps : 0},
                 {"packets", m.incast_pkts}};
  j["jain"] = m.jain;
  j["imbalance_max_mean"] = m.imbalance;
  j["queue_bytes"] = {{"p95", m.q_p95}, {"max", m.q_max}};
  j["per_sender"] = {{"pause_frames_rcvd", agg_json(m.pause_frames)},   {"xoff_events", agg_json(m.xoff_events)},
                     {"xoff_time_ns", agg_json(m.xoff_ns)},             {"pause_stall_ns", agg_json(m.pause_stall_ns)},
                     {"credit_stall_ns", agg_json(m.credit_stall_ns)}, {"ingress_cells_max", agg_json(m.ing_cells_max)},
                     {"headroom_cells_max", agg_json(m.hdrm_cells_max)}};
  j["pause_frames_sent"] = m.pause_sent;
  j["xoff_events"] = m.xoff_total;
  j["drops"] = {{"lossless", m.lossless_drops}, {"other", m.other_drops}};
  j["latency_ns"] = {{"p50", pct(m.lat, 50)}, {"p99", pct(m.lat, 99)}, {"p999", pct(m.lat, 99.9)},
                     {"max", m.lat.empty() ? 0.0 : m.lat.max()}, {"samples", m.lat.count()}};
  j["victim"] = {{"offered_pkts", m.victim_offered_pkts},
                 {"delivered_pkts", m.victim_pkts},
                 {"offered_gbps", m.victim_offered_gbps},
                 {"gbps", m.victim_gbps},
                 {"zero_load_ns", m.victim_zero_load_ns},
                 {"latency_ns",
                  {{"p50", pct(m.victim_lat, 50)}, {"p99", pct(m.victim_lat, 99)}, {"p999", pct(m.victim_lat, 99.9)},
                   {"max", m.victim_lat.empty() ? 0.0 : m.victim_lat.max()},
                   {"mean", m.victim_lat.empty() ? 0.0 : m.victim_lat.mean()}}},
                 {"hol_ns",
                  {{"mean", m.victim_lat.empty() ? 0.0 : m.victim_lat.mean() - m.victim_zero_load_ns},
                   {"p99", m.victim_lat.empty() ? 0.0 : pct(m.victim_lat, 99) - m.victim_zero_load_ns},
                   {"max", m.victim_lat.empty() ? 0.0 : m.victim_lat.max() - m.victim_zero_load_ns}}},
                 {"switch_latency_ns", {{"p50", pct(m.victim_sw_lat, 50)}, {"p99", pct(m.victim_sw_lat, 99)}}}};
  j["scoreboard"] = {{"expected", m.sb.expected}, {"delivered", m.sb.matched}, {"lost", m.sb.lost},
                     {"duplicated", m.sb.duplicated}, {"corrupted", m.sb.corrupted}, {"reordered", m.sb.reordered},
                     {"unexpected", m.sb.unexpected}};
  j["drained"] = m.drained;
  j["links"] = {{"frames", m.link.frames},
                {"bad_frames", m.link.bad_frames},
                {"dropped_frames", m.link.dropped_frames},
                {"replays", m.link.replays},
                {"nacks", m.link.nacks},
                {"frames_replayed", m.link.frames_replayed},
                {"flushes", m.link.flushes},
                {"wire_losses", m.wire_losses},
                {"replay_buffer_frames_max", m.link.buf_frames_max},
                {"replay_buffer_bytes_max", m.link.buf_bytes_max},
                {"incast_link_goodput_gbps", m.incast_link_gbps},
                {"replayed_packets", m.replayed_pkts},
                {"replayed_latency_p50_ns", m.replayed_p50}};
  j["e2e_latency_ns"] = {{"p50", pct(m.e2e, 50)}, {"p99", pct(m.e2e, 99)}, {"p999", pct(m.e2e, 99.9)},
                         {"max", m.e2e.empty() ? 0.0 : m.e2e.max()}, {"samples", m.e2e.count()}};
  return j;
}

std::string us(double ns) { return fmt::format("{:.2f} us", ns / 1000.0); }
std::string kib(double b) { return fmt::format("{:.1f} KiB", b / 1024.0); }

std::string scenario_line(const Scenario& sc) {
  const sw::Params& p = sc.params;
  return fmt::format(
      "report items (draft 6.5(c), 7.2): topology 1 switch, {} x {}G ports, hosts on {} ns links, pause propagation "
      "1 hop (hosts upstream); N={}:1 incast (ports 1..{} -> port 0, class {}); packet {} B; load {} per sender; "
      "victim {}; buffer {} MiB shared, {}-B cells; CBFC {} credits (cells) per ingress class; PFC XOFF {} cells, "
      "headroom {} cells, resume offset {} cells, pause {} quanta; {} classes, all lossless; flow control in the "
      "switch model (cycle-level C++ model; no hardware, no software emulation)",
      p.radix, p.port_gbps, sc.harness.link_ns, sc.fan_in, sc.fan_in, sc.incast_class, sc.packet_bytes,
      sc.load >= 1.0 ? std::string("1.00 (backlogged)") : fmt::format("{:.2f} (Poisson)", sc.load),
      sc.victim ? fmt::format("{}->{} class {} at {:.3f} load", sc.victim_src, sc.victim_dst, sc.victim_class,
                              sc.victim_load)
                : std::string("off"),
      static_cast<double>(p.buffer_bytes) / (1 << 20), p.flit_bytes, p.cbfc_buf_cells, p.pfc_xoff_cells,
      p.pfc_headroom_cells, p.pfc_resume_offset_cells, p.pfc_quanta, p.num_classes) +
         (sc.harness.llr || sc.harness.fer > 0
              ? fmt::format("; host links: frame error rate {:g} each way, {}", sc.harness.fer,
                            sc.harness.llr ? fmt::format("LLR on (replay buffer {} frames, replay timer {} cycles, "
                                                         "clocked by the switch core clock)",
                                                         sc.harness.llr_cfg.frames_max, sc.harness.llr_cfg.replay_timer)
                                           : std::string("no LLR (a failed frame is lost)"))
              : std::string());
}

std::string summary_table(const Scenario& sc, const std::vector<ModeResult>& ms) {
  std::vector<std::string> head = {"metric"};
  for (auto& m : ms) head.push_back(upper(m.fc) + (&m == &ms.front() ? " (primary)" : ""));
  Table t(fmt::format("{}:1 incast into port 0, measured over {} (per mode)", sc.fan_in, us(core::to_ns(ms.front().window))));
  t.header(head);
  auto row = [&](const std::string& name, auto f) {
    std::vector<std::string> r = {name};
    for (auto& m : ms) r.push_back(f(m));
    t.row(r);
  };
  row("incast egress throughput", [](const ModeResult& m) {
    return fmt::format("{:.1f} Gb/s ({:.2f}% of line payload)", m.incast_gbps,
                       m.line_payload_gbps > 0 ? 100.0 * m.incast_gbps / m.line_payload_gbps : 0.0);
  });
  row("Jain fairness over senders", [](const ModeResult& m) { return fmt::format("{:.5f}", m.jain); });
  row("max/mean imbalance", [](const ModeResult& m) { return fmt::format("{:.4f}", m.imbalance); });
  row("egress queue P95 / max", [](const ModeResult& m) { return kib(m.q_p95) + " / " + kib(m.q_max); });
  row("ingress cells max per sender", [](const ModeResult& m) {
    return fmt::format("{:.0f} (headroom {:.0f})", m.ing_cells_max.max, m.hdrm_cells_max.max);
  });
  row("pause events (XOFF) per sender mean/max", [](const ModeResult& m) {
    return fmt::format("{:.1f} / {:.0f}", m.xoff_events.mean, m.xoff_events.max);
  });
  row("pause frames rcvd per sender mean/max", [](const ModeResult& m) {
    return fmt::format("{:.1f} / {:.0f}", m.pause_frames.mean, m.pause_frames.max);
  });
  row("paused time (XOFF) per sender mean/max",
      [](const ModeResult& m) { return us(m.xoff_ns.mean) + " / " + us(m.xoff_ns.max); });
  row("credit-stall time per sender mean/max",
      [](const ModeResult& m) { return us(m.credit_stall_ns.mean) + " / " + us(m.credit_stall_ns.max); });
  row("drops lossless / other",
      [](const ModeResult& m) { return fmt::format("{} / {}", m.lossless_drops, m.other_drops); });
  row("incast latency P50 / P99 / P99.9 (switch pin to pin)", [](const ModeResult& m) {
    return fmt::format("{} / {} / {}", us(pct(m.lat, 50)), us(pct(m.lat, 99)), us(pct(m.lat, 99.9)));
  });
  if (sc.victim) {
    row("victim throughput (offered)", [](const ModeResult& m) {
      return fmt::format("{:.2f} Gb/s ({:.2f})", m.victim_gbps, m.victim_offered_gbps);
    });
    row("victim latency P50 / P99 / max (offer at host to switch egress pin)", [](const ModeResult& m) {
      return fmt::format("{} / {} / {}", us(pct(m.victim_lat, 50)), us(pct(m.victim_lat, 99)),
                         us(m.victim_lat.empty() ? 0.0 : m.victim_lat.max()));
    });
    row("victim HOL blocking mean / P99", [](const ModeResult& m) {
      if (m.victim_lat.empty()) return std::string("-");
      return us(m.victim_lat.mean() - m.victim_zero_load_ns) + " / " +
             us(pct(m.victim_lat, 99) - m.victim_zero_load_ns);
    });
  }
  if (sc.harness.llr || sc.harness.fer > 0 || sc.harness.faults.any()) {
    row("incast latency P50 / P99 / max (first bit on the sender's wire to the host)", [](const ModeResult& m) {
      return fmt::format("{} / {} / {}", us(pct(m.e2e, 50)), us(pct(m.e2e, 99)), us(m.e2e.empty() ? 0.0 : m.e2e.max()));
    });
    row("links: frames / bad FCS / replays / NACKs / frames replayed", [](const ModeResult& m) {
      return fmt::format("{} / {} / {} / {} / {}", m.link.frames, m.link.bad_frames, m.link.replays, m.link.nacks, m.link.frames_replayed);
    });
    row("LLR replay buffer max (frames / bytes)",
        [](const ModeResult& m) { return fmt::format("{} / {}", m.link.buf_frames_max, m.link.buf_bytes_max); });
    row("port 0 link goodput", [](const ModeResult& m) { return fmt::format("{:.1f} Gb/s", m.incast_link_gbps); });
    row("packets lost on the wires", [](const ModeResult& m) { return fmt::format("{}", m.wire_losses); });
  }
  row("scoreboard delivered / lost / dup / reordered", [](const ModeResult& m) {
    return fmt::format("{} / {} / {} / {}", m.sb.matched, m.sb.lost, m.sb.duplicated, m.sb.reordered);
  });
  return t.str();
}

// ------------------------------------------------------------------ run

RunResult run(const RunConfig& cfg) {
  const Scenario sc = scenario_from_settings(cfg.settings, cfg.seed, cfg.cycles);
  std::vector<ModeResult> ms;
  {
    IncastRun primary(sc, sc.primary, cfg.seed);
    {
      SwitchIncastSc top("switch_incast", primary);
      sc_core::sc_start();
    }
    ms.push_back(primary.finish());
  }
  if (sc.compare) {
    IncastRun second(sc, other(sc.primary), cfg.seed);  // plain C++ loop: same seed, same traffic
    while (!second.step()) {
    }
    ms.push_back(second.finish());
  }

  RunResult r;
  r.cycles = ms.front().cycles;
  r.sim_time = ms.front().sim_time;
  nlohmann::json& j = r.json;
  j["traffic_cycles"] = sc.traffic_cycles;
  j["warmup_cycles"] = sc.warmup_cycles;
  j["cycles"] = r.cycles;
  j["primary"] = sw::to_string(sc.primary);
  j["scenario"] = {{"radix", sc.params.radix},
                   {"port_gbps", sc.params.port_gbps},
                   {"fan_in", sc.fan_in},
                   {"packet_bytes", sc.packet_bytes},
                   {"load", sc.load},
                   {"victim", sc.victim},
                   {"victim_src", sc.victim_src},
                   {"victim_dst", sc.victim_dst},
                   {"victim_class", sc.victim_class},
                   {"victim_load", sc.victim_load},
                   {"classes", sc.params.num_classes},
                   {"buffer_bytes", sc.params.buffer_bytes},
                   {"cell_bytes", sc.params.flit_bytes},
                   {"cbfc_buf_cells", sc.params.cbfc_buf_cells},
                   {"pfc_xoff_cells", sc.params.pfc_xoff_cells},
                   {"pfc_headroom_cells", sc.params.pfc_headroom_cells},
                   {"pfc_resume_offset_cells", sc.params.pfc_resume_offset_cells},
                   {"link_ns", sc.harness.link_ns},
                   {"llr", sc.harness.llr},
                   {"fer", sc.harness.fer},
                   {"llr_frames_max", sc.harness.llr_cfg.frames_max},
                   {"llr_replay_timer", sc.harness.llr_cfg.replay_timer},
                   {"pause_propagation_hops", 1},
                   {"report", scenario_line(sc)}};
  for (auto& m : ms) j["modes"][sw::to_string(m.fc)] = mode_json(m);

  std::string out;
  out += fmt::format("  switch model: {} ports x {}G, {}-B cells, 1 GHz core, cut-through, {} lossless classes; "
                     "{} traffic cycles ({} warm-up), {} in all ({})\n",
                     sc.params.radix, sc.params.port_gbps, sc.params.flit_bytes, sc.params.num_classes,
                     sc.traffic_cycles, sc.warmup_cycles, r.cycles,
                     sc.compare ? fmt::format("primary {} under SystemC, {} in a plain loop, same seed and traffic",
                                              upper(sc.primary), upper(other(sc.primary)))
                                : "primary " + upper(sc.primary) + " under SystemC");
  out += "  " + scenario_line(sc) + "\n\n";
  out += summary_table(sc, ms);
  if (sc.victim && ms.size() == 2 && !ms[0].victim_lat.empty() && !ms[1].victim_lat.empty()) {
    const ModeResult& cb = ms[0].fc == sw::FlowControl::cbfc ? ms[0] : ms[1];
    const ModeResult& pf = ms[0].fc == sw::FlowControl::pfc ? ms[0] : ms[1];
    out += fmt::format(
        "\n  victim ({}->{}, class {}): HOL blocking P99 {} under PFC vs {} under CBFC; both flow controls act per "
        "(ingress port, class) in this model, so a victim in the incast class waits behind the incast at its sender "
        "either way\n",
        sc.victim_src, sc.victim_dst, sc.victim_class, us(pct(pf.victim_lat, 99) - pf.victim_zero_load_ns),
        us(pct(cb.victim_lat, 99) - cb.victim_zero_load_ns));
  }

  for (auto& m : ms) {
    const std::string tag = upper(m.fc);
    if (!m.sb.clean()) {
      r.failures.push_back(fmt::format("{}: scoreboard: {} lost, {} duplicated, {} corrupted, {} reordered, {} unexpected",
                                       tag, m.sb.lost, m.sb.duplicated, m.sb.corrupted, m.sb.reordered, m.sb.unexpected));
      for (auto& line : m.sb_errors) r.failures.push_back("  " + line);
    }
    if (m.lossless_drops) r.failures.push_back(fmt::format("{}: {} packets dropped on lossless classes", tag, m.lossless_drops));
    if (m.wire_losses)
      r.failures.push_back(fmt::format("{}: {} packets lost on the host links (fer={}, llr={}): corrupted frames "
                                       "dropped by the receiving MAC",
                                       tag, m.wire_losses, sc.harness.fer, sc.harness.llr ? "true" : "false"));
    if (!m.drained)
      r.failures.push_back(fmt::format("{}: traffic not delivered within {} drain cycles (raise drain_cycles)", tag, sc.drain_cycles));
    if (m.incast_pkts == 0) r.failures.push_back(fmt::format("{}: no incast packet left port 0 in the window", tag));
  }
  r.pass = r.failures.empty();
  if (!r.pass) out += "\n  reproduce: " + reproduce_line(cfg, false) + "\n";
  r.summary = out;
  return r;
}

// ------------------------------------------------------------------ bench

/// The 64-port switch with a host on every port, uniform random traffic at 0.8 load.
struct BenchSystem {
  sw::Harness h;
  uint64_t flits = 0, pkts = 0, n = 0;
  BenchSystem(const sw::Params& p, const sw::HarnessParams& hp, uint32_t bytes) : h(p, hp) {
    const unsigned C = std::min(2u, p.num_classes);
    for (unsigned s = 0; s < p.radix; ++s) {
      std::vector<uint32_t> d;
      for (uint32_t x = 0; x < p.radix; ++x)
        if (x != s) d.push_back(x);
      for (unsigned c = 0; c < C; ++c) h.add_source(s, d, c, 0.8 / C, bytes);
    }
  }
  void cycle() {
    h.tick();
    for (const sw::Packet& d : h.sw().departures()) {
      flits += h.sw().params().cells(d.bytes);
      ++pkts;
    }
    ++n;
  }
};

SC_MODULE(SwitchBenchSc) {
  SC_HAS_PROCESS(SwitchBenchSc);
  SwitchBenchSc(sc_core::sc_module_name nm, BenchSystem& b, uint64_t cycles)
      : sc_module(nm), b_(b), cycles_(cycles),
        period_(static_cast<double>(b.h.sw().params().period()), sc_core::SC_PS) {
    SC_METHOD(step);
  }

 private:
  BenchSystem& b_;
  uint64_t cycles_;
  sc_core::sc_time period_;
  void step() {
    b_.cycle();
    if (b_.n >= cycles_)
      sc_core::sc_stop();
    else
      next_trigger(period_);
  }
};

BenchResult bench(const RunConfig& cfg) {
  Scenario sc = scenario_from_settings(cfg.settings, cfg.seed, cfg.cycles ? cfg.cycles : kCycles);
  sw::Params p = sc.params;
  p.fc = sc.primary;
  sw::HarnessParams hp = sc.harness;
  const uint64_t n = cfg.cycles ? cfg.cycles : 100000;
  using clk = std::chrono::steady_clock;
  auto secs = [](clk::time_point a, clk::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  struct Mode {
    double rate = 0, flit_rate = 0;
    uint64_t pkts = 0, sb_matched = 0;
    bool clean = true;
  };
  auto plain = [&](bool scoreboard) {
    sw::HarnessParams q = hp;
    q.scoreboard = scoreboard;
    BenchSystem b(p, q, sc.packet_bytes);
    const auto t0 = clk::now();
    while (b.n < n) b.cycle();
    const double s = secs(t0, clk::now());
    Mode m{static_cast<double>(b.n) / s, static_cast<double>(b.flits) / s, b.pkts, b.h.scoreboard().counts().matched,
           b.h.scoreboard().counts().clean() && b.h.sw().lossless_drops() == 0};
    return m;
  };
  { BenchSystem warm(p, hp, sc.packet_bytes); while (warm.n < n / 10) warm.cycle(); }
  const Mode pl = plain(true);
  const Mode raw = plain(false);
  Mode sm;
  {
    BenchSystem b(p, hp, sc.packet_bytes);
    SwitchBenchSc top("switch_bench", b, n);
    const auto t0 = clk::now();
    sc_core::sc_start();
    const double s = secs(t0, clk::now());
    sm = Mode{static_cast<double>(b.n) / s, static_cast<double>(b.flits) / s, b.pkts,
              b.h.scoreboard().counts().matched, b.h.scoreboard().counts().clean() && b.h.sw().lossless_drops() == 0};
  }
  const double overhead = pl.rate / sm.rate;
  Table t(fmt::format("cosim bench switch: {}-port {}G switch model, a host on every port, uniform random {} B packets "
                      "at 0.8 load on {} class(es), {}, end-to-end scoreboard; seed {}, {} core cycles ({:.0f} us) per mode",
                      p.radix, p.port_gbps, sc.packet_bytes, std::min(2u, p.num_classes), upper(p.fc), cfg.seed, n,
                      core::to_ns(static_cast<Ps>(n) * p.period()) / 1000.0));
  t.header({"mode", "core cycles/s", "ns/cycle", "flit-hops/s", "sim us per wall s"});
  auto row = [&](const std::string& name, const Mode& m) {
    t.row({name, fmt::format("{:.0f}", m.rate), fmt::format("{:.0f}", 1e9 / m.rate), fmt::format("{:.3g}", m.flit_rate),
           fmt::format("{:.1f}", m.rate * core::to_ns(p.period()) / 1000.0)});
  };
  row("switch + hosts, plain C++ loop", pl);
  row("switch + hosts, SystemC testbench", sm);
  row("switch + hosts, plain loop, no scoreboard", raw);
  BenchResult r;
  r.text = t.str();
  r.text += fmt::format("same results in both modes: {} ({} packets delivered, {})\n",
                        pl.pkts == sm.pkts && pl.sb_matched == sm.sb_matched ? "yes" : "NO", sm.pkts,
                        pl.clean && sm.clean ? "no scoreboard errors" : "SCOREBOARD ERRORS");
  r.text += "no RTL in this system: the plain loop steps the C++ switch model directly\n";
  r.text += fmt::format("peak memory {:.1f} MiB\n", peak_rss_mib());
  r.text += fmt::format("systemc_overhead {:.2f}\n", overhead);
  r.json = {{"bench", "switch"},
            {"cycles", n},
            {"seed", cfg.seed},
            {"radix", p.radix},
            {"port_gbps", p.port_gbps},
            {"fc", sw::to_string(p.fc)},
            {"load", 0.8},
            {"plain_cycles_per_s", pl.rate},
            {"systemc_cycles_per_s", sm.rate},
            {"plain_no_scoreboard_cycles_per_s", raw.rate},
            {"plain_flit_hops_per_s", pl.flit_rate},
            {"systemc_flit_hops_per_s", sm.flit_rate},
            {"systemc_overhead", overhead},
            {"peak_rss_mib", peak_rss_mib()},
            {"identical_results", pl.pkts == sm.pkts && pl.sb_matched == sm.sb_matched}};
  return r;
}

}  // namespace

Scenario scenario_from_settings(const core::Settings& s, uint64_t seed, uint64_t cycles) {
  Scenario sc;
  sc.primary = s.s("fc") == "pfc" ? sw::FlowControl::pfc : sw::FlowControl::cbfc;
  sc.compare = s.b("compare");
  sc.fan_in = static_cast<unsigned>(s.i("fan_in"));
  sw::Params& p = sc.params;
  p.radix = static_cast<unsigned>(s.i("radix"));
  if (sc.fan_in + 2 > p.radix)
    throw core::UsageError(fmt::format(
        "setting 'fan_in'={} needs fan_in+2={} ports (senders, incast and victim destinations) but radix={} "
        "(allowed: 2..{} with radix={}, or raise radix)",
        sc.fan_in, sc.fan_in + 2, p.radix, p.radix - 2, p.radix));
  p.port_gbps = static_cast<unsigned>(std::stoul(s.s("port_gbps")));
  p.lane_gbps = p.port_gbps >= 200 ? 200 : 100;
  p.num_classes = static_cast<unsigned>(s.i("classes"));
  for (unsigned c = 0; c < p.num_classes; ++c) p.classes[c].lossless = true;
  p.buffer_bytes = static_cast<uint64_t>(s.i("buffer_bytes"));
  p.cbfc_buf_cells = static_cast<uint32_t>(s.i("cbfc_buf_cells"));
  p.pfc_xoff_cells = static_cast<uint32_t>(s.i("pfc_xoff_cells"));
  p.pfc_headroom_cells = static_cast<uint32_t>(s.i("pfc_headroom_cells"));
  p.pfc_resume_offset_cells = static_cast<uint32_t>(s.i("pfc_resume_offset_cells"));
  p.seed = seed;
  sc.packet_bytes = static_cast<uint32_t>(s.i("packet_bytes"));
  if (sc.packet_bytes > p.mtu_bytes)
    throw core::UsageError(fmt::format("setting 'packet_bytes'={} exceeds the switch MTU (allowed: 64..{})",
                                       sc.packet_bytes, p.mtu_bytes));
  sc.load = s.r("load");
  sc.victim = s.b("victim");
  sc.victim_load = s.r("victim_load");
  sc.victim_src = 1;
  sc.victim_dst = sc.fan_in + 1;
  sc.victim_class = static_cast<unsigned>(s.i("victim_class"));
  if (sc.victim_class >= p.num_classes)
    throw core::UsageError(fmt::format("setting 'victim_class'={} is not a class of classes={} (allowed: 0..{})",
                                       sc.victim_class, p.num_classes, p.num_classes - 1));
  sc.harness.link_ns = s.r("link_ns");
  sc.harness.seed = seed;
  sc.harness.scoreboard = true;
  sc.harness.llr = s.b("llr");
  sc.harness.fer = s.r("fer");
  sc.harness.llr_cfg.frames_max = static_cast<uint32_t>(s.i("llr_frames_max"));
  sc.harness.llr_cfg.replay_timer = static_cast<uint32_t>(s.i("llr_replay_timer"));
  if (std::string err = sc.harness.validate(p); !err.empty()) throw core::UsageError("setting " + err);
  sc.traffic_cycles = cycles ? cycles : kCycles;
  if (s.i("warmup_cycles") < 0) {
    // steady state: every sender's ingress reservation (CBFC credits or PFC XOFF + headroom) is full and the
    // incast queue it feeds has turned over once at the line rate
    const uint64_t cells = std::max<uint64_t>(p.cbfc_buf_cells, uint64_t{p.pfc_xoff_cells} + p.pfc_headroom_cells);
    const double fill_ps = static_cast<double>(p.serialization(sc.fan_in * cells * p.flit_bytes)) * 1.25;
    sc.warmup_cycles = std::min<uint64_t>(sc.traffic_cycles / 2, static_cast<uint64_t>(fill_ps / static_cast<double>(p.period())));
  } else {
    sc.warmup_cycles = static_cast<uint64_t>(s.i("warmup_cycles"));
  }
  if (sc.warmup_cycles >= sc.traffic_cycles)
    throw core::UsageError(fmt::format(
        "setting 'warmup_cycles'={} leaves no measurement window in {} traffic cycles (allowed: 0..{})",
        sc.warmup_cycles, sc.traffic_cycles, sc.traffic_cycles - 1));
  if (s.i("drain_cycles") < 0) {
    sc.drain_cycles = 200000;
    if (sc.load < 1.0)
      sc.drain_cycles += static_cast<uint64_t>(sc.fan_in * sc.load * static_cast<double>(sc.traffic_cycles) * 1.1);
  } else {
    sc.drain_cycles = static_cast<uint64_t>(s.i("drain_cycles"));
  }
  // the switch model's own checks, for both modes when they are compared
  for (sw::FlowControl fc : {sc.primary, other(sc.primary)}) {
    if (fc != sc.primary && !sc.compare) continue;
    sw::Params q = p;
    q.fc = fc;
    if (std::string err = q.validate(); !err.empty())
      throw core::UsageError(fmt::format("setting {} (fc={})", err, sw::to_string(fc)));
  }
  return sc;
}

Testbench incast_testbench() {
  Testbench t;
  t.name = "switch_incast";
  t.description = "Switch model: N:1 incast under CBFC vs PFC side by side; fairness, pauses/credit stalls, "
                  "tail latency, victim HOL blocking";
  t.default_cycles = kCycles;
  t.declare = declare;
  t.validate = [](const RunConfig& c) {
    if (!c.waves_path.empty())
      throw core::UsageError("switch_incast has no RTL signals to dump (plain C++ switch model): --waves is not available");
    scenario_from_settings(c.settings, c.seed, c.cycles);
  };
  t.run = run;
  t.bench = bench;
  t.bench_name = "switch";
  t.clock_period = [](const core::Settings&) { return sw::Params().period(); };
  return t;
}

}  // namespace tb::switch_tb
