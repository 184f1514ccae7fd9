#include "switch/harness.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace sw {

// ------------------------------------------------------------------ parameters

lnk::FaultConfig HarnessParams::wire_faults() const {
  lnk::FaultConfig f = faults;
  f.fer = fer;
  return f;
}

std::string HarnessParams::validate(const Params& sp) const {
  if (!(link_ns >= 0.0 && link_ns <= 10000.0)) return fmt::format("link_ns={} not allowed (allowed 0..10000)", link_ns);
  if (!(fer >= 0.0 && fer <= 1.0)) return fmt::format("fer={} not allowed (allowed 0..1)", fer);
  if (std::string e = wire_faults().validate(); !e.empty()) return e;
  if (!llr) return "";
  if (std::string e = llr_params.validate(); !e.empty()) return "llr_params." + e;
  const llr::Params& q = llr_params;
  if ((1u << q.len_width) - 1u < sp.mtu_bytes)
    return fmt::format("llr_params.len_width={} cannot carry mtu_bytes={} (allowed {}..16)", q.len_width, sp.mtu_bytes,
                       static_cast<unsigned>(std::ceil(std::log2(sp.mtu_bytes + 1.0))));
  if ((1u << q.class_width) < sp.num_classes)
    return fmt::format("llr_params.class_width={} cannot carry num_classes={} (allowed {}..3)", q.class_width,
                       sp.num_classes, sp.num_classes <= 2 ? 1 : sp.num_classes <= 4 ? 2 : 3);
  const uint32_t fmax = std::min<uint32_t>(1u << q.buf_log2, (1u << (q.seq_bits - 1)) - 1u);
  const llr::Cfg& c = llr_cfg;
  if (c.frames_max < 1 || c.frames_max > fmax)
    return fmt::format("llr_cfg.frames_max={} not allowed (allowed 1..{}: min(2^buf_log2, 2^(seq_bits-1)-1))",
                       c.frames_max, fmax);
  if (c.bytes_max < sp.mtu_bytes || c.bytes_max > (1u << 24) - 1u)
    return fmt::format("llr_cfg.bytes_max={} not allowed (allowed {}..16777215: at least one mtu_bytes frame)",
                       c.bytes_max, sp.mtu_bytes);
  const uint32_t tmax = q.timer_width >= 32 ? 0xffffffffu : (1u << q.timer_width) - 1u;
  if (c.replay_timer < 1 || c.replay_timer > tmax)
    return fmt::format("llr_cfg.replay_timer={} not allowed (allowed 1..{} LLR cycles)", c.replay_timer, tmax);
  if (c.replay_count_max < 1 || c.replay_count_max > 255)
    return fmt::format("llr_cfg.replay_count_max={} not allowed (allowed 1..255)", c.replay_count_max);
  if (c.ack_spacing < 1 || c.ack_spacing > 65535)
    return fmt::format("llr_cfg.ack_spacing={} not allowed (allowed 1..65535)", c.ack_spacing);
  return "";
}

// ------------------------------------------------------------------ links

// A host <-> switch link (docs/switch.md "LLR on links"): with LLR an LlrLink (side A = the host,
// side B = the switch port); without LLR the fault injectors of its two wires and its telemetry.
struct Harness::Link {
  std::unique_ptr<LlrLink> llr;
  std::unique_ptr<lnk::FaultInjector> up_inj, down_inj;
  LinkStats up, down;
  uint64_t up_dropped0 = 0, down_dropped0 = 0;  // injector frames_dropped at the last reset_stats()
};

struct Harness::Host {
  std::array<std::deque<Packet>, kMaxClasses> q;
  Ps wire_free = 0;
  unsigned rr = 0;
  std::unique_ptr<cbfc::TxModel> tx;
  cbfc::TxIn tin;
  std::array<uint32_t, kMaxClasses> avail{};
  bool tx_v = false;
  uint8_t tx_c = 0;
  uint32_t tx_len = 0;
  struct Cu {
    Ps t;
    uint8_t c;
    uint32_t limit;
  };
  std::deque<Cu> cu;
  struct Pz {
    Ps t;
    uint8_t c;
    uint32_t quanta;
  };
  std::deque<Pz> pause_rx;
  std::array<Ps, kMaxClasses> paused_until{};
  std::array<uint32_t, kMaxClasses> sink_limit{};
  size_t queued = 0;
};

Harness::Harness(const Params& sp, const HarnessParams& hp)
    : sp_(sp), hp_(hp), sw_(std::make_unique<Switch>(sp)), link_(core::ns(hp.link_ns)), sb_("switch", true) {
  if (std::string err = hp_.validate(sp_); !err.empty()) throw std::invalid_argument("harness: " + err);
  const unsigned R = sp_.radix, C = sp_.num_classes;
  hosts_.resize(R);
  hosts_st_.resize(R);
  for (unsigned h = 0; h < R; ++h) sw_->set_route(h, h);
  // Links (docs/switch.md "LLR on links"): always kept for the telemetry. With LLR an LlrLink per
  // port (wire: lnk::Channel at the port rate, fixed delay link_ns as its flight, no FEC of its own:
  // PHYs are switch stages); without LLR only the fault injectors, on the fixed-delay path.
  const lnk::FaultConfig wf = hp_.wire_faults();
  faulty_ = wf.any();
  LlrLinkParams lp;
  lp.wire.rate_gbps = sp_.port_gbps;
  lp.wire.length_m = 0;
  lp.wire.fec_latency_ns = hp_.link_ns;
  lp.wire.overhead_bytes = sp_.overhead_bytes;
  lp.faults = wf;
  lp.llr = hp_.llr_params;
  lp.cfg = hp_.llr_cfg;
  lp.period = sp_.period();
  lp.eligible_classes = 0;
  for (unsigned c = 0; c < C; ++c)
    if (sp_.classes[c].lossless) lp.eligible_classes |= 1u << c;  // lossless classes are LLR-eligible
  links_.resize(R);
  for (unsigned h = 0; h < R; ++h) {
    Link& L = links_[h];
    const std::string stream = "harness.link." + std::to_string(h);
    if (hp_.llr) {
      L.llr = std::make_unique<LlrLink>(lp, hp_.seed, stream);
    } else if (faulty_) {
      L.up_inj = std::make_unique<lnk::FaultInjector>(wf, hp_.seed, stream + ".ab");
      L.down_inj = std::make_unique<lnk::FaultInjector>(wf, hp_.seed, stream + ".ba");
    }
  }
  if (sp_.fc == FlowControl::cbfc) {
    cbfc::Params cp;
    cp.num_classes = C;
    cp.cnt_width = 16;
    cp.len_width = 16;
    unsigned l2 = 0;
    while ((1u << l2) < sp_.flit_bytes) ++l2;
    cp.credit_unit_log2 = l2;
    for (unsigned h = 0; h < R; ++h) {
      Host& x = hosts_[h];
      x.tx = std::make_unique<cbfc::TxModel>(cp);
      for (unsigned c = 0; c < C; ++c) {
        x.tin.cfg.init_credits[c] = sp_.classes[c].lossless ? sp_.cbfc_buf_cells : 0;
        x.sink_limit[c] = sp_.cbfc_downstream_cells;
      }
      x.tin.cfg.mtu = sp_.mtu_bytes;
      x.tin.rst_n = false;
      x.tx->tick(x.tin);
      x.tin.rst_n = true;
      const cbfc::TxOut o = x.tx->outputs();
      for (unsigned c = 0; c < C; ++c) x.avail[c] = o.avail[c];
    }
  }
}

Harness::~Harness() = default;

void Harness::add_source(unsigned host, std::vector<uint32_t> dsts, unsigned cls, double load, uint32_t bytes) {
  Source s{host,
           std::move(dsts),
           static_cast<uint8_t>(cls),
           load,
           bytes,
           sw_->now(),
           0,
           core::Rng(hp_.seed, "harness.src." + std::to_string(host) + "." + std::to_string(sources_.size()))};
  s.mean_gap = static_cast<Ps>(static_cast<double>(sp_.serialization(uint64_t{bytes} + sp_.overhead_bytes)) /
                               std::max(load, 1e-9));
  sources_.push_back(std::move(s));
}

void Harness::enqueue(unsigned host, uint32_t dst, unsigned cls, uint32_t bytes) {
  Packet p;
  p.id = next_id_++;
  p.tag = core::mix64(p.id);
  p.dst_xpu = dst;
  p.cls = static_cast<uint8_t>(cls);
  p.bytes = bytes;
  p.src_port = static_cast<uint16_t>(host);
  hosts_[host].q[cls].push_back(p);
  ++hosts_[host].queued;
  HostStats& s = hosts_st_[host];
  ++s.offered_pkts;
  s.offered_bytes += bytes;
  ++outstanding_;
  if (hp_.scoreboard) sb_.expect((host * sp_.radix + dst) * sp_.num_classes + cls, p.id, p.tag, sw_->now());
}

void Harness::offer(unsigned host, uint32_t dst, unsigned cls, uint32_t bytes) { enqueue(host, dst, cls, bytes); }

void Harness::tick() {
  const Ps T = sw_->now();
  const Ps P = sp_.period();
  const unsigned C = sp_.num_classes;
  const bool cbfc = sp_.fc == FlowControl::cbfc, pfc = sp_.fc == FlowControl::pfc;

  // Sinks: PFC pause of blocked classes, refreshed at half the pause time.
  if (pfc && hp_.block_classes && T >= next_block_refresh_) {
    for (unsigned e = 0; e < sp_.radix; ++e)
      for (unsigned c = 0; c < C; ++c)
        if (hp_.block_classes & (1u << c)) sw_->pause_in(e, c, 0xffff, T);
    next_block_refresh_ = T + sp_.pause_time(0xffff) / 2;
  }

  // Generators.
  if (sources_on_) {
    for (Source& s : sources_) {
      if (s.load >= 1.0) {
        while (hosts_[s.host].q[s.cls].size() < 2)
          enqueue(s.host, s.dsts[s.rng.uniform(0, s.dsts.size() - 1)], s.cls, s.bytes);
        continue;
      }
      while (s.next_t <= T) {
        enqueue(s.host, s.dsts[s.rng.uniform(0, s.dsts.size() - 1)], s.cls, s.bytes);
        const double u = s.rng.real();
        s.next_t += std::max<Ps>(1, static_cast<Ps>(-std::log(1.0 - u) * static_cast<double>(s.mean_gap)));
      }
    }
  }

  // Host senders.
  for (unsigned h = 0; h < sp_.radix; ++h) {
    Host& x = hosts_[h];
    HostStats& hs = hosts_st_[h];
    while (!x.pause_rx.empty() && x.pause_rx.front().t <= T) {
      const Host::Pz z = x.pause_rx.front();
      x.pause_rx.pop_front();
      x.paused_until[z.c] = z.quanta ? z.t + sp_.pause_time(z.quanta) : z.t;
      if (z.quanta) ++hs.pauses_rcvd[z.c];
    }
    Link& L = links_[h];
    if (x.queued && (hp_.llr ? L.llr->can_take(LlrLink::A) : x.wire_free < T + P)) {
      // Without LLR the packet goes on the wire at `start`; with LLR it is handed to the host's LLR TX
      // at this edge (its c_ready says it takes one), which puts it on the wire when it can.
      const Ps start = hp_.llr ? T : std::max(T, x.wire_free);
      int chosen = -1;
      for (unsigned j = 0; j < C; ++j) {
        const unsigned c = (x.rr + j) % C;
        if (x.q[c].empty()) continue;
        const Packet& head = x.q[c].front();
        if (cbfc && sp_.classes[c].lossless && x.avail[c] < sp_.cells(head.bytes)) {
          hs.credit_stall[c] += P;
          continue;
        }
        if (pfc && x.paused_until[c] > start) {
          hs.pause_stall[c] += P;
          continue;
        }
        chosen = static_cast<int>(c);
        break;
      }
      if (chosen >= 0) {
        const unsigned c = static_cast<unsigned>(chosen);
        Packet p = x.q[c].front();
        x.q[c].pop_front();
        --x.queued;
        x.rr = (c + 1) % C;
        ++hs.sent_pkts;
        hs.sent_bytes += p.bytes;
        if (hp_.llr) {
          L.llr->offer(LlrLink::A, p);  // taken by the host's LLR TX at this tick's LLR edge
        } else {
          p.t_in = start + link_;
          p.t_in_last = -1;
          x.wire_free = start + sp_.serialization(uint64_t{p.bytes} + sp_.overhead_bytes);
          ++L.up.frames;
          bool lost = false;
          if (faulty_) {  // the switch's MAC drops a frame that fails its FCS (or never arrives)
            lnk::Frame f;
            f.id = p.id;
            f.cls = p.cls;
            f.len = p.bytes;
            const auto v = L.up_inj->on_frame(start, x.wire_free + link_, f).verdict;
            lost = v != lnk::FaultInjector::Verdict::pass;
            if (v == lnk::FaultInjector::Verdict::corrupt) ++L.up.bad_frames;
          }
          if (lost) {
            ++L.up.lost_pkts;
            ++wire_losses_;
            --outstanding_;  // lost: the scoreboard reports it
          } else {
            ++L.up.delivered_pkts;
            L.up.delivered_bytes += p.bytes;
            sw_->inject(h, p);
          }
        }
        if (cbfc && sp_.classes[c].lossless) {
          x.tx_v = true;
          x.tx_c = static_cast<uint8_t>(c);
          x.tx_len = sp_.cells(p.bytes) * sp_.flit_bytes;
        }
      }
    }
    if (cbfc) {
      const bool cu = !x.cu.empty() && x.cu.front().t <= T;
      if (x.tx_v || cu) {
        x.tin.tx_valid = x.tx_v;
        x.tin.tx_class = x.tx_c;
        x.tin.tx_len = x.tx_len;
        x.tin.cu_valid = cu;
        if (cu) {
          x.tin.cu_class = x.cu.front().c;
          x.tin.cu_limit = x.cu.front().limit;
          x.cu.pop_front();
        }
        x.tx_v = false;
        x.tx->tick(x.tin);
        const cbfc::TxOut o = x.tx->outputs();
        if (o.err_underflow || o.err_overflow || o.err_class)
          throw std::logic_error("harness: host CBFC sender error on port " + std::to_string(h));
        for (unsigned c = 0; c < C; ++c) x.avail[c] = o.avail[c];
      }
    }
  }

  sw_->tick();

  for (const FcMsg& m : sw_->fc_out()) {
    Host& x = hosts_[m.port];
    if (m.kind == FcMsg::Kind::credit)
      x.cu.push_back({m.t + link_, m.cls, m.value});
    else
      x.pause_rx.push_back({m.t + link_, m.cls, m.value});
  }
  for (const auto& d : sw_->drops()) {
    (void)d;
    --outstanding_;  // lost: the scoreboard reports it
  }
  for (const Packet& p : sw_->departures()) {
    const unsigned e = static_cast<unsigned>(p.egress_port);
    lat_[p.cls].add(core::to_ns(p.t_head_out - p.t_in));
    if (keep_log_) log_.push_back(p);
    Link& L = links_[e];
    if (hp_.llr) {  // into the MAC TX FIFO of the port's LLR TX
      L.llr->offer(LlrLink::B, p);
      continue;
    }
    ++L.down.frames;
    if (faulty_) {  // the host's MAC drops a frame that fails its FCS (or never arrives)
      lnk::Frame f;
      f.id = p.id;
      f.cls = p.cls;
      f.len = p.bytes;
      const auto v = L.down_inj->on_frame(p.t_head_out, p.t_tail_out + link_, f).verdict;
      if (v == lnk::FaultInjector::Verdict::corrupt) ++L.down.bad_frames;
      if (v != lnk::FaultInjector::Verdict::pass) {
        ++L.down.lost_pkts;
        ++wire_losses_;
        --outstanding_;  // lost: the scoreboard reports it; the sink never returns its credits
        continue;
      }
    }
    ++L.down.delivered_pkts;
    L.down.delivered_bytes += p.bytes;
    host_delivery(e, p, p.t_tail_out + link_, p.t_in - link_);
  }

  // LLR partners of every link, edge at T.
  if (hp_.llr)
    for (unsigned h = 0; h < sp_.radix; ++h) llr_edge(h, T);
}

void Harness::host_delivery(unsigned e, const Packet& p, Ps t_have, Ps t_sent) {
  Host& x = hosts_[e];
  HostStats& hs = hosts_st_[e];
  ++hs.recv_pkts;
  hs.recv_bytes += p.bytes;
  if (p.ecn) ++hs.ecn_marked;
  --outstanding_;
  e2e_[p.cls].add(core::to_ns(t_have - t_sent));
  if (hp_.scoreboard) sb_.observe((p.src_port * sp_.radix + p.dst_xpu) * sp_.num_classes + p.cls, p.id, p.tag, t_have);
  if (sp_.fc == FlowControl::cbfc && sp_.classes[p.cls].lossless && !(hp_.block_classes & (1u << p.cls))) {
    x.sink_limit[p.cls] = (x.sink_limit[p.cls] + sp_.cells(p.bytes)) & 0xffffu;
    sw_->credit_in(e, p.cls, x.sink_limit[p.cls], t_have + link_);
  }
}

// ------------------------------------------------------------------ LLR edge (docs/switch.md "LLR on links")

void Harness::llr_edge(unsigned h, Ps T) {
  LlrLink& k = *links_[h].llr;
  k.edge(T);
  // The switch's egress scheduler learns the wire time of its port it did not schedule.
  if (const Ps u = k.unscheduled(LlrLink::B); u > 0) sw_->egress_wire_busy(h, u);
  for (LlrLink::Side s : {LlrLink::A, LlrLink::B})
    for (const Packet& p : k.lost(s)) {  // a lossy-class frame the wire corrupted or dropped
      t_sent_.erase(p.id);
      replayed_.erase(p.id);
      ++wire_losses_;
      --outstanding_;  // lost: the scoreboard reports it
    }
  // Into the switch: the LLR RX delivers a frame once it is wholly in and its FCS checked, so it
  // enters the switch ingress pin whole at this edge (first and last byte at T).
  for (const LlrLink::Delivery& d : k.delivered(LlrLink::B)) {
    Packet p = d.p;
    t_sent_[p.id] = d.first_bit;
    if (d.replayed) replayed_.insert(p.id);
    p.t_in = T;
    p.t_in_last = T;
    sw_->inject(h, p);
  }
  // To the host.
  for (const LlrLink::Delivery& d : k.delivered(LlrLink::A)) {
    Ps t_sent = d.first_bit;
    if (auto it = t_sent_.find(d.p.id); it != t_sent_.end()) {
      t_sent = it->second;
      t_sent_.erase(it);
    }
    const bool replayed_up = replayed_.erase(d.p.id) > 0;
    if (replayed_up || d.replayed) e2e_replayed_.add(core::to_ns(T - t_sent));
    host_delivery(h, d.p, T, t_sent);
  }
}

// ------------------------------------------------------------------ link telemetry

PortLinkStats Harness::link_stats(unsigned port) const {
  const Link& L = links_.at(port);
  if (L.llr) return {L.llr->stats(LlrLink::A), L.llr->stats(LlrLink::B)};
  PortLinkStats r{L.up, L.down};
  if (L.up_inj) r.up.dropped_frames = L.up_inj->stats().frames_dropped - L.up_dropped0;
  if (L.down_inj) r.down.dropped_frames = L.down_inj->stats().frames_dropped - L.down_dropped0;
  return r;
}

double Harness::goodput_gbps(const LinkStats& s) const {
  const Ps w = window();
  return w > 0 ? static_cast<double>(s.delivered_bytes) * 8000.0 / static_cast<double>(w) : 0.0;
}

bool Harness::links_up() const {
  for (const Link& L : links_)
    if (L.llr && !L.llr->up()) return false;
  return true;
}

const LlrLink* Harness::llr_link(unsigned port) const { return links_.at(port).llr.get(); }

void Harness::run_for(Ps t) {
  const Ps end = sw_->now() + t;
  while (sw_->now() < end) tick();
}

bool Harness::idle() const { return outstanding_ == 0; }

bool Harness::drain(Ps limit) {
  stop_sources();
  const Ps end = sw_->now() + limit;
  while (!idle() && sw_->now() < end) tick();
  return idle();
}

void Harness::reset_stats() {
  for (auto& s : hosts_st_) s = HostStats{};
  for (auto& l : lat_) l = core::Samples{};
  for (auto& l : e2e_) l = core::Samples{};
  e2e_replayed_ = core::Samples{};
  for (Link& L : links_) {
    if (L.llr) L.llr->reset_stats();
    L.up = L.down = LinkStats{};
    if (L.up_inj) L.up_dropped0 = L.up_inj->stats().frames_dropped;
    if (L.down_inj) L.down_dropped0 = L.down_inj->stats().frames_dropped;
  }
  sw_->reset_stats();
  t_stats_ = sw_->now();
}

}  // namespace sw
