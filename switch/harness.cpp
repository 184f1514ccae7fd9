#include "switch/harness.hpp"

#include <cmath>
#include <string>

namespace sw {

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
  const unsigned R = sp_.radix, C = sp_.num_classes;
  hosts_.resize(R);
  hosts_st_.resize(R);
  for (unsigned h = 0; h < R; ++h) sw_->set_route(h, h);
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
    if (x.queued && x.wire_free < T + P) {
      const Ps start = std::max(T, x.wire_free);
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
        p.t_in = start + link_;
        p.t_in_last = -1;
        sw_->inject(h, p);
        x.wire_free = start + sp_.serialization(uint64_t{p.bytes} + sp_.overhead_bytes);
        ++hs.sent_pkts;
        hs.sent_bytes += p.bytes;
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
    Host& x = hosts_[e];
    HostStats& hs = hosts_st_[e];
    ++hs.recv_pkts;
    hs.recv_bytes += p.bytes;
    if (p.ecn) ++hs.ecn_marked;
    --outstanding_;
    lat_[p.cls].add(core::to_ns(p.t_head_out - p.t_in));
    if (hp_.scoreboard)
      sb_.observe((p.src_port * sp_.radix + p.dst_xpu) * C + p.cls, p.id, p.tag, p.t_tail_out + link_);
    if (cbfc && sp_.classes[p.cls].lossless && !(hp_.block_classes & (1u << p.cls))) {
      x.sink_limit[p.cls] = (x.sink_limit[p.cls] + sp_.cells(p.bytes)) & 0xffffu;
      sw_->credit_in(e, p.cls, x.sink_limit[p.cls], p.t_tail_out + 2 * link_);
    }
    if (keep_log_) log_.push_back(p);
  }
}

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
  sw_->reset_stats();
  t_stats_ = sw_->now();
}

}  // namespace sw
