#include "system/system_flit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/settings.hpp"
#include "link/faults.hpp"

namespace tb::system_tb {

namespace {

constexpr unsigned kWireOverhead = 20;  // preamble + SFD + IFG, charged per frame
constexpr uint64_t kNever = sue::kNoEdge;

unsigned ctz64(uint64_t v) { return static_cast<unsigned>(__builtin_ctzll(v)); }

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

struct FlitSystem::Port {
  core::Ps wire_free = 0;
  int plane = -1;              // planes: switch index
  FNic* peer = nullptr;        // mesh: the NIC at the other end of the cable (same port index)
  unsigned xpu = 0;
  std::array<uint32_t, kClasses> rx_limit{}, rx_occ{};
  uint64_t wire_bytes = 0, frames = 0, win_bytes0 = 0, win_bytes1 = 0;
  std::unique_ptr<lnk::FaultInjector> inj_out, inj_in;
};

struct FlitSystem::FNic {
  unsigned xpu = 0, inst = 0, index = 0;
  std::unique_ptr<sue::Nic> nic;
  std::vector<Port> ports;
  // XPU transmit interface
  sue::Ring<Cmd> req, resp;
  uint64_t busy_until = 0;  // the interface is free from this edge
  std::vector<uint32_t> qcred;
  uint64_t cstall_since = kNever;
  bool gen_waiting = false;  // the XPU's generator waits for room in req
};

struct FlitSystem::Xpu : XpuGen {  // the pattern state is System's (next_destination, request_shape)
  double tokens = 0;
  uint64_t tk_at = 0;  // tokens are current after this edge's refill
  std::vector<uint64_t> next_id;
  uint64_t stall_since = kNever;
};

// ------------------------------------------------------------------ construction

FlitSystem::FlitSystem(const SysConfig& cfg)
    : cfg_(cfg), sb_("XPU to XPU", cfg.strict), rng_(cfg.seed, "system.traffic") {
  if (cfg_.any_rtl())
    throw core::UsageError("setting 'nic'=flit with rtl blocks: the flit NIC model has no RTL (allowed: rtl=none, or nic=cycle)");
  if (cfg_.llr)
    throw core::UsageError("setting 'nic'=flit with llr=true: the flit NIC model has no LLR partner (allowed: llr=false, or "
                           "nic=cycle)");
  if (cfg_.tp.lite())
    throw core::UsageError("setting 'nic'=flit with sue_config=lite: the flit NIC model does not model SUE Lite (allowed: "
                           "s1|s2|s4, or nic=cycle)");
  bool complete = false;
  const auto demand = demand_pairs(cfg_, complete, &perm_);
  peering_ = std::make_unique<Peering>(cfg_, demand, complete);
  const unsigned N = cfg_.xpus, M = cfg_.instances, P = cfg_.ports(), K = cfg_.tp.num_peers;
  cable_ = core::ns(cfg_.cable_ns);
  nic_tx_ = core::ns(cfg_.nic_tx_ns);
  nic_rx_ = core::ns(cfg_.nic_rx_ns);
  const double bytes_per_cycle = cfg_.port_gbps / 8.0 * core::to_ns(cfg_.clock_ps);
  tokens_per_cycle_ = cfg_.load * bytes_per_cycle * M * P;
  mtu_bytes_ = std::max<uint32_t>(14 + 8 + cfg_.tp.max_pack + 4 + 4, 64);
  mtu_cells_ = cells(mtu_bytes_);
  if (cfg_.topology == Topology::planes)
    for (unsigned pl = 0; pl < cfg_.planes(); ++pl) {
      sw::Params p = cfg_.swp;
      p.seed = core::mix64(cfg_.seed + pl);
      sw_.push_back(std::make_unique<sw::Switch>(p));
      for (unsigned a = 0; a < N; ++a) sw_.back()->set_route(a, a);
    }
  xpus_.resize(N);
  xs_.resize(N);
  for (unsigned a = 0; a < N; ++a) {
    xpus_[a].next_id.assign(static_cast<size_t>(N) * 2, 1);
    if (cfg_.pattern == Pattern::allreduce) xpus_[a].ar_recv.assign(2 * (N - 1) + 1, 0);
    xpus_[a].tk_at = cfg_.reset_cycles ? cfg_.reset_cycles - 1 : 0;
  }
  fig_.win_start = cfg_.warmup_cycles;
  fig_.ar_steps = cfg_.pattern == Pattern::allreduce ? 2 * (N - 1) : 0;
  fig_.nic_credit_stall.assign(kClasses, 0);
  fig_.plane_bytes_win.assign(cfg_.planes(), 0);

  const uint32_t init = cfg_.topology == Topology::planes ? cfg_.swp.cbfc_buf_cells : cfg_.nic_buf_cells;
  const bool faulty = cfg_.faults.any();
  nics_.resize(static_cast<size_t>(N) * M);
  for (unsigned a = 0; a < N; ++a)
    for (unsigned m = 0; m < M; ++m) {
      const size_t idx = static_cast<size_t>(a) * M + m;
      nics_[idx] = std::make_unique<FNic>();
      FNic& n = *nics_[idx];
      n.xpu = a;
      n.inst = m;
      n.index = static_cast<unsigned>(idx);
      sue::NicConfig nc;
      nc.tp = cfg_.tp;
      nc.own_xpuid = a;
      for (unsigned i = 0; i < K; ++i) nc.peer_xpuid[i] = peering_->peer_id(a, m, i);
      nc.strict = cfg_.strict;
      nc.vc_weight = cfg_.vc_weight;
      nc.rto = cfg_.rto;
      nc.ack_delay = cfg_.ack_delay;
      nc.rx_credits = {cfg_.rx_credits, cfg_.rx_credits, cfg_.rx_credits, cfg_.rx_credits};
      nc.port_gbps = cfg_.port_gbps;
      nc.clock_ps = cfg_.clock_ps;
      nc.gate_classes = kClasses;
      nc.gate_init_cells = init;
      nc.gate_mtu_cells = mtu_cells_;
      nc.poll = cfg_.flit_poll;
      if (std::string e = nc.validate(); !e.empty()) throw core::UsageError("setting 'nic'=flit: " + e);
      n.nic = std::make_unique<sue::Nic>(nc);
      n.qcred.assign(cfg_.tp.nq(), cfg_.tp.qdepth);
      n.ports.resize(P);
      for (unsigned p = 0; p < P; ++p) {
        Port& pt = n.ports[p];
        pt.xpu = a;
        if (cfg_.topology == Topology::planes) pt.plane = static_cast<int>(m * P + p);
        pt.rx_limit.fill(cfg_.nic_buf_cells);
        if (faulty) {  // the same streams as System::build_links
          const std::string stream = pt.plane >= 0 ? fmt::format("system.link.sw{}.p{}", pt.plane, a)
                                                   : fmt::format("system.cable.x{}i{}p{}", a, m, p);
          pt.inj_out = std::make_unique<lnk::FaultInjector>(cfg_.faults, cfg_.seed, stream + ".ab");
          if (pt.plane >= 0) pt.inj_in = std::make_unique<lnk::FaultInjector>(cfg_.faults, cfg_.seed, stream + ".ba");
        }
      }
    }
  if (cfg_.topology == Topology::mesh)
    for (unsigned a = 0; a < N; ++a)
      for (unsigned m = 0; m < M; ++m) {
        const int b = peering_->peer(a, m, 0);
        if (b < 0) continue;
        for (unsigned p = 0; p < P; ++p)
          nics_[static_cast<size_t>(a) * M + m]->ports[p].peer = nics_[static_cast<size_t>(b) * M + m].get();
      }
  slot_base_[kGen] = 0;
  slot_base_[kDrv] = N;
  slot_base_[kNic] = N + nics_.size();
  sched_.assign(N + 2 * nics_.size(), kNever);
  words_ = (sched_.size() + 63) / 64;
  ring_bits_.assign(kRing * words_, 0);
  ring_cnt_.assign(kRing, 0);
  for (unsigned a = 0; a < N; ++a) schedule(kGen, a, cfg_.reset_cycles);
}

FlitSystem::~FlitSystem() = default;

void FlitSystem::schedule_at(size_t e, uint64_t at) {
  uint64_t& s = sched_[e];
  at = std::max(at, ring_base_);
  if (s != kNever && s < ring_base_ + kRing) {  // earlier now: off its old edge
    ring_bits_[(s & (kRing - 1)) * words_ + e / 64] &= ~(1ull << (e % 64));
    --ring_cnt_[s & (kRing - 1)];
    --ring_count_;
  }
  s = at;
  if (at < ring_base_ + kRing) {
    ring_bits_[(at & (kRing - 1)) * words_ + e / 64] |= 1ull << (e % 64);
    ++ring_cnt_[at & (kRing - 1)];
    ++ring_count_;
  } else {
    far_.push_back({at, static_cast<uint32_t>(e)});
    std::push_heap(far_.begin(), far_.end(), std::greater<>());
  }
}

uint64_t FlitSystem::next_edge() {
  if (ring_count_)
    for (uint64_t e = ring_base_; e < ring_base_ + kRing; ++e)
      if (ring_cnt_[e & (kRing - 1)]) return e;
  while (!far_.empty() && sched_[far_.front().key] != far_.front().at) {  // stale
    std::pop_heap(far_.begin(), far_.end(), std::greater<>());
    far_.pop_back();
  }
  return far_.empty() ? kNever : far_.front().at;
}

// Edges before `base` are done: the ring moves on and takes the far events that now fall inside it.
void FlitSystem::advance_ring(uint64_t base) {
  if (base <= ring_base_) return;
  ring_base_ = base;
  while (!far_.empty() && far_.front().at < ring_base_ + kRing) {
    std::pop_heap(far_.begin(), far_.end(), std::greater<>());
    const Ev ev = far_.back();
    far_.pop_back();
    const size_t e = ev.key;
    uint64_t& word = ring_bits_[(ev.at & (kRing - 1)) * words_ + e / 64];
    // Stale, or a second heap entry for the same (entity, edge) (rescheduled earlier, run, then back here).
    if (sched_[e] != ev.at || (word >> (e % 64)) & 1u) continue;
    word |= 1ull << (e % 64);
    ++ring_cnt_[ev.at & (kRing - 1)];
    ++ring_count_;
  }
}

uint32_t FlitSystem::alloc_frame() {
  uint32_t f;
  if (!free_frames_.empty()) {
    f = free_frames_.back();
    free_frames_.pop_back();
  } else {
    f = static_cast<uint32_t>(frames_.size());
    frames_.emplace_back();
  }
  ++live_frames_;
  return f;
}

void FlitSystem::release_frame(uint32_t f) {
  free_frames_.push_back(f);
  --live_frames_;
}

// ------------------------------------------------------------------ the loop

void FlitSystem::open_window() {
  window_open_ = true;
  fig_.win_start = cfg_.warmup_cycles;
  for (auto& n : nics_)
    for (auto& pt : n->ports) pt.win_bytes0 = pt.wire_bytes;
}

void FlitSystem::run_to(uint64_t c) {
  if (!window_open_ && c > cfg_.warmup_cycles) {
    if (cycle_ < cfg_.warmup_cycles) run_to(cfg_.warmup_cycles);
    open_window();
  }
  double t0 = profiling_ ? now_s() : 0;
  for (;;) {
    uint64_t x = next_edge();
    // Switch edges strictly before the next SUE edge (both clocks on one picosecond time line); a
    // switch output can only create NIC events later than the switch edge it comes from.
    if (!sw_.empty()) {
      while (sw_[0]->now() < static_cast<core::Ps>(std::min(x, c)) * cfg_.clock_ps) {
        for (unsigned pl = 0; pl < sw_.size(); ++pl) switch_tick(pl);
        x = next_edge();
      }
      if (profiling_) {
        const double t1 = now_s();
        prof_.sw += t1 - t0;
        t0 = t1;
      }
    }
    if (x >= c) break;
    advance_ring(x);
    edge(x);
    advance_ring(x + 1);
    if (profiling_) t0 = now_s();
  }
  cycle_ = std::max(cycle_, c);
  advance_ring(c);
}

void FlitSystem::edge(uint64_t x) {
  cycle_ = x;
  ++loop_edges_;
  // Profile: NIC advance() time (tx) and wires (net) are timed where they run; the rest of the edge
  // (generators, XPU interfaces, sinks and scoreboard, NIC output handling, the calendar) is xpu.
  const double e0 = profiling_ ? now_s() : 0, tx0 = prof_.tx, net0 = prof_.net;
  // The edge's entities in slot order (generators, XPU interfaces, NICs, each by index); what they
  // schedule for this same edge is taken in this pass if it comes later in that order, else in the next.
  const size_t row = (x & (kRing - 1)) * words_;
  const size_t nx = cfg_.xpus, nn = nics_.size();
  while (ring_cnt_[x & (kRing - 1)]) {
    for (size_t w = 0; w < words_; ++w) {
      while (ring_bits_[row + w]) {
        const size_t e = w * 64 + ctz64(ring_bits_[row + w]);
        ring_bits_[row + w] &= ring_bits_[row + w] - 1;
        --ring_cnt_[x & (kRing - 1)];
        --ring_count_;
        sched_[e] = kNever;
        if (e < nx)
          generate(static_cast<unsigned>(e), x);
        else if (e < nx + nn)
          drive(static_cast<unsigned>(e - nx), x);
        else
          nic_edge(static_cast<unsigned>(e - nx - nn), x);
      }
    }
  }
  if (profiling_) prof_.xpu += (now_s() - e0) - (prof_.tx - tx0) - (prof_.net - net0);
  if (cfg_.pattern == Pattern::allreduce && !fig_.ar_done_cycle && ar_done_ == cfg_.xpus) fig_.ar_done_cycle = x + 1;
}

// ------------------------------------------------------------------ XPUs

void FlitSystem::queue_cmd(unsigned a, unsigned dst, unsigned vc, Op op, unsigned dlen, unsigned aux, bool response,
                           uint64_t x) {
  const auto pl = peering_->places(a, dst);
  const size_t n = static_cast<size_t>(pl.second - pl.first);
  Xpu& X = xpus_[a];
  const size_t k = cfg_.strict ? (a + dst + vc) % n : (X.spray++) % n;
  const Peering::Place& p = pl.first[k].p;
  Cmd c;
  c.src = a;
  c.dst = dst;
  c.vc = static_cast<uint8_t>(vc);
  c.op = op;
  c.dlen = static_cast<uint16_t>(dlen);
  c.aux = aux;
  c.q = static_cast<uint16_t>(p.i * 4 + vc);
  c.id = X.next_id[dst * 2 + vc]++;
  const unsigned ni = a * cfg_.instances + p.m;
  FNic& nic = *nics_[ni];
  (response ? nic.resp : nic.req).push_back(c);
  if (response) {
    X.tokens -= 20.0 + dlen;
    ++xs_[a].resp_issued;
  } else {
    ++xs_[a].req_issued;
    ++(op == kReadReq ? xs_[a].reads : xs_[a].writes);
  }
  schedule(kDrv, ni, response ? x + 1 : x);
}

// The XPU's token bucket, as System::generate, evaluated only at the edges it can send: the next
// send time is computed from the bucket instead of polling every cycle.
void FlitSystem::generate(unsigned a, uint64_t x) {
  Xpu& X = xpus_[a];
  const double cap = tokens_per_cycle_ + 20.0 + cfg_.dlen_max;
  if (x > X.tk_at) X.tokens = std::min(X.tokens + tokens_per_cycle_ * static_cast<double>(x - X.tk_at), cap);
  X.tk_at = x;
  if (!traffic_) return;
  if (X.stall_since != kNever) {
    xs_[a].gen_stall += x - X.stall_since;
    X.stall_since = kNever;
  }
  for (unsigned guard = 0; guard < 4 && X.tokens >= 0; ++guard) {
    const bool was_done = X.ar_done;
    const int d = next_destination(cfg_, *peering_, perm_, fig_.ar_steps, rng_, X, a);
    if (X.ar_done && !was_done) ++ar_done_;
    if (d < 0) return;  // nothing to send now (an all-reduce step resumes when the sink wakes us)
    const unsigned dst = static_cast<unsigned>(d);
    const auto pl = peering_->places(a, dst);
    if (pl.first == pl.second) return;
    const size_t n = static_cast<size_t>(pl.second - pl.first);
    const size_t k = cfg_.strict ? (a + dst + kReqVc) % n : X.spray % n;
    FNic& nic = *nics_[static_cast<size_t>(a) * cfg_.instances + pl.first[k].p.m];
    if (nic.req.size() >= cfg_.pending_max) {
      X.stall_since = x;
      // One instance: nothing changes until its interface takes a request, which wakes us. Several:
      // as System, draw again at the next edge (the next destination may be on another instance).
      if (cfg_.instances == 1)
        nic.gen_waiting = true;
      else
        schedule(kGen, a, x + 1);
      return;
    }
    Op op;
    unsigned dlen, aux;
    request_shape(cfg_, rng_, X, op, dlen, aux);
    X.tokens -= 20.0 + dlen;
    queue_cmd(a, dst, kReqVc, op, dlen, aux, false, x);
  }
  // The next edge the bucket is non-negative again.
  uint64_t wait = 1;
  if (X.tokens < 0) wait = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(-X.tokens / tokens_per_cycle_)));
  schedule(kGen, a, x + wait);
}

// The XPU transmit interface of one instance, as System::drive: one command at a time, responses
// first, only to a queue holding a credit; a command of B beats occupies B edges.
void FlitSystem::drive(unsigned ni, uint64_t x) {
  FNic& n = *nics_[ni];
  if (n.busy_until > x) {
    schedule(kDrv, ni, n.busy_until);
    return;
  }
  if (n.req.empty() && n.resp.empty()) return;
  bool from_req = false;
  auto take = [&](sue::Ring<Cmd>& q, size_t scan, Cmd& out) -> bool {
    const size_t lim = std::min(q.size(), scan);
    for (size_t k = 0; k < lim; ++k) {
      if (!n.qcred[q[k].q]) continue;
      out = q[k];
      if (k == 0)
        q.pop_front();
      else
        q.erase(k);
      return true;
    }
    return false;
  };
  Cmd c;
  if (!take(n.resp, 16, c)) {
    if (!take(n.req, cfg_.pending_max, c)) {
      if (n.cstall_since == kNever) n.cstall_since = x;  // a queue credit wakes us
      return;
    }
    from_req = true;
  }
  if (n.cstall_since != kNever) {
    xs_[n.xpu].credit_stall += x - n.cstall_since;
    n.cstall_since = kNever;
  }
  if (from_req && n.gen_waiting) {
    n.gen_waiting = false;
    schedule(kGen, n.xpu, x + 1);
  }
  --n.qcred[c.q];
  const unsigned DB = cfg_.tp.db();
  const unsigned nbeats = c.dlen ? (c.dlen + DB - 1) / DB : 1;
  const uint64_t done = x + nbeats - 1;
  n.busy_until = done + 1;
  const uint32_t flow = flow_of(c.src, c.dst, c.vc);
  // The command's digest (its bytes are not built on this path): carried through the NICs unchanged.
  const uint64_t digest = core::mix64(cfg_.seed ^ core::mix64(static_cast<uint64_t>(flow) << 40 ^ c.id) ^
                                      (static_cast<uint64_t>(c.op) << 48 | static_cast<uint64_t>(c.aux) << 16 | c.dlen));
  sb_.expect(flow, c.id, digest, static_cast<core::Ps>(done) * cfg_.clock_ps);
  // What the far XPU needs travels with the command (no side table): tag = id | src | dst | op | VC,
  // aux = the command's aux field | the stamp (the edge of its last beat here).
  sue::NicCmd nc;
  nc.tag = c.id << 24 | static_cast<uint64_t>(c.src) << 14 | static_cast<uint64_t>(c.dst) << 4 |
           static_cast<uint64_t>(c.op & 3u) << 2 | (c.vc & 3u);
  nc.aux = static_cast<uint64_t>(c.aux & 0xffffu) << 48 | (done & 0xffffffffffffull);
  nc.digest = digest;
  nc.dlen = c.dlen;
  nc.vc = c.vc;
  n.nic->submit(c.q, nc, done);
  schedule(kNic, ni, n.nic->next_event());
  if (!n.req.empty() || !n.resp.empty()) schedule(kDrv, ni, n.busy_until);
}

// A command on the XPU receive interface (as System::sink): the scoreboard, latency, throughput,
// the receive credit back after sink_delay, a read answered with a response, all-reduce progress.
void FlitSystem::sink(FNic& n, const sue::NicDelivery& d, uint64_t x) {
  auto bad = [&](const std::string& what) {
    if (!fig_.misdelivered++) fig_.first_misdelivery = fmt::format("XPU {} instance {} cycle {}: {}", n.xpu, n.inst, d.last, what);
  };
  n.nic->rx_credit(d.cmd.vc, d.first + cfg_.sink_delay);
  Cmd c;
  c.id = d.cmd.tag >> 24;
  c.src = static_cast<uint32_t>(d.cmd.tag >> 14) & 0x3ffu;
  c.dst = static_cast<uint32_t>(d.cmd.tag >> 4) & 0x3ffu;
  c.op = static_cast<uint8_t>((d.cmd.tag >> 2) & 3u);
  c.vc = static_cast<uint8_t>(d.cmd.tag & 3u);
  c.aux = static_cast<uint32_t>(d.cmd.aux >> 48);
  c.dlen = d.cmd.dlen;
  const uint64_t stamp = d.cmd.aux & 0xffffffffffffull;
  if (c.src >= cfg_.xpus || c.dst >= cfg_.xpus) {
    bad(fmt::format("a command with src {} dst {} (not one the XPUs issued)", c.src, c.dst));
    return;
  }
  const core::Ps t = static_cast<core::Ps>(d.last) * cfg_.clock_ps;
  if (c.dst != n.xpu || d.src != c.src || c.vc != d.cmd.vc)
    bad(fmt::format("command {}->{} vc {} id {} arrived at XPU {} from XPU {} on vc {}", c.src, c.dst, c.vc, c.id, n.xpu, d.src,
                    d.cmd.vc));
  sb_.observe(flow_of(c.src, c.dst, c.vc), c.id, d.cmd.digest, t);
  (c.vc == kRespVc ? fig_.lat_resp_ns : fig_.lat_req_ns).add(core::to_ns(static_cast<core::Ps>(d.last - stamp) * cfg_.clock_ps));
  const uint64_t bytes = 20 + c.dlen;
  System::XpuStats& xr = xs_[n.xpu];
  ++xr.delivered;
  xr.delivered_bytes += bytes;
  if (x >= fig_.win_start && (traffic_ || x < fig_.win_end)) {
    xr.win_rx_bytes += bytes;
    xs_[c.src].win_tx_bytes += bytes;
  }
  if (c.op == kReadReq) queue_cmd(n.xpu, c.src, kRespVc, kReadResp, c.aux, 0, true, x);
  if (cfg_.pattern == Pattern::allreduce && c.op == kWrite && c.aux < xpus_[n.xpu].ar_recv.size()) {
    xpus_[n.xpu].ar_recv[c.aux] += c.dlen;
    schedule(kGen, n.xpu, x + 1);
  }
}

// ------------------------------------------------------------------ NICs and wires

void FlitSystem::nic_edge(unsigned ni, uint64_t x) {
  FNic& n = *nics_[ni];
  sue::Nic& nic = *n.nic;
  if (profiling_) {
    const double t0 = now_s();
    nic.advance(x);
    prof_.tx += now_s() - t0;
  } else {
    nic.advance(x);
  }
  for (sue::NicFrame& f : nic.frames()) {
    const uint32_t fi = alloc_frame();
    std::swap(frames_[fi], f);
    frame_out(n, fi);
  }
  for (const sue::NicTaken& tk : nic.taken()) {
    Port& pt = n.ports[tk.port];
    const uint32_t c = cells(tk.bytes);
    const unsigned cls = tk.vc < kClasses ? tk.vc : 0;
    pt.rx_occ[cls] -= c;
    pt.rx_limit[cls] = (pt.rx_limit[cls] + c) & 0xffffu;
    const core::Ps t = static_cast<core::Ps>(tk.at) * cfg_.clock_ps;
    if (pt.plane >= 0) {
      sw_[static_cast<size_t>(pt.plane)]->credit_in(n.xpu, cls, pt.rx_limit[cls], t + nic_tx_ + cable_);
    } else if (pt.peer) {
      pt.peer->nic->credit_limit(tk.port, cls, pt.rx_limit[cls], edge_at(t + nic_tx_ + cable_ + nic_rx_) + 1);
      schedule(kNic, pt.peer->index, pt.peer->nic->next_event());
    }
  }
  for (const sue::NicDelivery& d : nic.deliveries()) sink(n, d, x);
  uint64_t cred_at = kNever;
  for (const sue::NicCredit& c : nic.credits()) {
    ++n.qcred[c.q];
    cred_at = std::min(cred_at, c.at + 1);  // tx_credit_o registered at c.at: usable from the next edge
  }
  if (cred_at != kNever && (!n.req.empty() || !n.resp.empty())) schedule(kDrv, ni, std::max({x + 1, cred_at, n.busy_until}));
  nic.clear_outputs();
  schedule(kNic, ni, nic.next_event());
}

// A frame leaves NIC port p (as System::frame_done): the NIC PHY, the wire at the port rate after
// the previous frame, the cable; the wire's faults; then the switch's ingress pin (or the peer NIC).
void FlitSystem::frame_out(FNic& n, uint32_t fi) {
  double t0 = profiling_ ? now_s() : 0;
  sue::NicFrame& f = frames_[fi];
  Port& pt = n.ports[f.port];
  const uint32_t len = f.bytes;
  const core::Ps sof = static_cast<core::Ps>(f.sof) * cfg_.clock_ps, eof = static_cast<core::Ps>(f.eof) * cfg_.clock_ps;
  const WireTimes wt = wire_times(sof, eof, len, pt.wire_free, nic_tx_, cable_, cfg_.port_gbps);  // as System
  const core::Ps start = wt.start, t_in = wt.t_in, t_in_last = wt.t_in_last;
  ++fig_.frames;
  ++(f.ack_only ? fig_.ack_frames : fig_.data_frames);
  fig_.wire_bytes += len + kWireOverhead;
  pt.wire_bytes += len + kWireOverhead;
  ++pt.frames;
  if (f.vc >= kClasses || len > mtu_bytes_) {
    if (!fig_.cbfc_errors++)
      fig_.first_cbfc_error = fmt::format("XPU {} instance {} port {}: a frame of {} bytes on VC {} (allowed: VC 0..{}, at "
                                          "most {} bytes)", n.xpu, n.inst, f.port, len, f.vc, kClasses - 1, mtu_bytes_);
    release_frame(fi);
    return;
  }
  if (pt.inj_out) {
    lnk::Frame lf;
    lf.id = fi;
    lf.cls = f.vc;
    lf.len = len;
    const auto v = pt.inj_out->on_frame(start, t_in_last, lf).verdict;
    if (v == lnk::FaultInjector::Verdict::drop) {
      release_frame(fi);
      return;
    }
    if (v == lnk::FaultInjector::Verdict::corrupt) f.bad = true;
  }
  if (pt.plane >= 0) {
    sw::Packet pk;
    pk.id = fi;
    pk.tag = n.xpu;
    pk.dst_xpu = f.dst;
    pk.cls = f.vc;
    pk.bytes = len;
    pk.t_in = t_in;
    pk.t_in_last = t_in_last;
    sw_[static_cast<size_t>(pt.plane)]->inject(n.xpu, pk);
  } else if (pt.peer) {
    Port& q = pt.peer->ports[f.port];
    const uint32_t c = cells(len);
    fig_.flit_hops += c;
    q.rx_occ[f.vc] += c;
    if (q.rx_occ[f.vc] > cfg_.nic_buf_cells && !fig_.cbfc_errors++)
      fig_.first_cbfc_error = fmt::format("XPU {} receive buffer of class {}: {} cells held, {} granted (the sender sent "
                                          "without credit)", q.xpu, f.vc, q.rx_occ[f.vc], cfg_.nic_buf_cells);
    const unsigned port = f.port;
    pt.peer->nic->receive(port, std::move(f), edge_at(t_in_last + nic_rx_));
    schedule(kNic, pt.peer->index, pt.peer->nic->next_event());
    release_frame(fi);
  } else {
    release_frame(fi);
  }
  if (profiling_) prof_.net += now_s() - t0;
}

void FlitSystem::switch_tick(unsigned pl) {
  sw::Switch& s = *sw_[pl];
  s.tick();
  const unsigned M = cfg_.instances, P = cfg_.ports();
  const unsigned m = pl / P, p = pl % P;
  for (const sw::FcMsg& fc : s.fc_out()) {
    if (fc.kind != sw::FcMsg::Kind::credit) continue;
    FNic& n = *nics_[static_cast<size_t>(fc.port) * M + m];
    // Applied by the NIC's gate after the SUE edge at or after its arrival, in effect from the next edge.
    n.nic->credit_limit(p, fc.cls, fc.value, edge_at(fc.t + cable_ + nic_rx_) + 1);
    schedule(kNic, n.index, n.nic->next_event());
  }
  for (const auto& d : s.drops()) {
    const bool lossless = d.second != sw::DropReason::no_route;
    ++(lossless ? fig_.lossless_drops : fig_.other_drops);
    if (fig_.first_drop.empty())
      fig_.first_drop = fmt::format("plane {}: a frame of XPU {} to XPU {} class {} dropped ({}) at {}", pl, d.first.tag,
                                    d.first.dst_xpu, static_cast<unsigned>(d.first.cls),
                                    d.second == sw::DropReason::no_route ? "no route"
                                    : d.second == sw::DropReason::buffer_full ? "buffer full" : "lossless overflow",
                                    core::format_time(s.now()));
    release_frame(static_cast<uint32_t>(d.first.id));
  }
  for (const sw::Packet& d : s.departures()) {
    FNic& n = *nics_[static_cast<size_t>(d.egress_port) * M + m];
    Port& pt = n.ports[p];
    const core::Ps t1 = std::max(d.t_head_out + ser(d.bytes), d.t_tail_out) + cable_ + nic_rx_;
    const uint32_t c = cells(d.bytes);
    fig_.flit_hops += c;
    if (pt.inj_in) {
      lnk::Frame lf;
      lf.id = d.id;
      lf.cls = d.cls;
      lf.len = d.bytes;
      const auto v = pt.inj_in->on_frame(d.t_head_out, t1, lf).verdict;
      if (v == lnk::FaultInjector::Verdict::drop) {
        release_frame(static_cast<uint32_t>(d.id));
        continue;
      }
      if (v == lnk::FaultInjector::Verdict::corrupt) frames_[d.id].bad = true;
    }
    pt.rx_occ[d.cls] += c;
    if (pt.rx_occ[d.cls] > cfg_.nic_buf_cells && !fig_.cbfc_errors++)
      fig_.first_cbfc_error = fmt::format("XPU {} receive buffer of class {} on plane {}: {} cells held, {} granted (the "
                                          "switch sent without credit)", pt.xpu, d.cls, pl, pt.rx_occ[d.cls], cfg_.nic_buf_cells);
    // The receiving MAC presents the last beat once the whole frame is in: sue_rx decides it then.
    n.nic->receive(p, std::move(frames_[d.id]), edge_at(t1));
    release_frame(static_cast<uint32_t>(d.id));
    schedule(kNic, n.index, n.nic->next_event());
  }
}

void FlitSystem::stop_traffic() {
  if (!traffic_) return;
  traffic_ = false;
  fig_.win_end = cycle_;
  for (auto& n : nics_)
    for (auto& pt : n->ports) {
      pt.win_bytes1 = pt.wire_bytes;
      if (pt.plane >= 0) fig_.plane_bytes_win[static_cast<size_t>(pt.plane)] += pt.win_bytes1 - pt.win_bytes0;
    }
}

// ------------------------------------------------------------------ results

bool FlitSystem::idle() const {
  if (traffic_ || live_frames_ || sb_.outstanding()) return false;
  for (const auto& np : nics_) {
    const FNic& n = *np;
    if (n.busy_until > cycle_ || !n.req.empty() || !n.resp.empty() || !n.nic->idle()) return false;
  }
  for (const auto& s : sw_)
    if (s->in_flight()) return false;
  return true;
}

std::string FlitSystem::busy_reason() const {
  if (traffic_) return "traffic running";
  for (const auto& np : nics_) {
    const FNic& n = *np;
    const std::string who = fmt::format("XPU {} instance {}", n.xpu, n.inst);
    if (!n.req.empty() || !n.resp.empty())
      return fmt::format("{}: {} requests and {} responses wait for the XPU interface", who, n.req.size(), n.resp.size());
    for (unsigned q = 0; q < cfg_.tp.nq(); ++q)
      if (n.nic->q_count(q))
        return fmt::format("{}: flit NIC queue {} holds {} slots ({} unsent)", who, q, n.nic->q_count(q), n.nic->q_unsent(q));
    for (unsigned p = 0; p < cfg_.ports(); ++p)
      if (n.nic->rx_frames_held(p)) return fmt::format("{}: flit NIC port {} holds {} received frames", who, p, n.nic->rx_frames_held(p));
    if (!n.nic->idle()) return who + ": flit NIC has outputs pending";
  }
  if (sb_.outstanding()) return fmt::format("{} commands not delivered", sb_.outstanding());
  for (size_t pl = 0; pl < sw_.size(); ++pl)
    if (sw_[pl]->in_flight()) return fmt::format("switch of plane {} holds {} packets", pl, sw_[pl]->in_flight());
  if (live_frames_) return fmt::format("{} frames in the network", live_frames_);
  return "";
}

const System::Figures& FlitSystem::figures() const {
  for (unsigned c = 0; c < kClasses; ++c) {
    uint64_t e = 0;
    for (const auto& n : nics_) e += n->nic->gate_closed_edges(c, cycle_);
    fig_.nic_credit_stall[c] = static_cast<core::Ps>(e) * cfg_.clock_ps;
  }
  return fig_;
}

uint64_t FlitSystem::tx_sum(unsigned i) const {
  uint64_t s = 0;
  for (const auto& n : nics_) s += n->nic->tx_cnt()[i];
  return s;
}

uint64_t FlitSystem::rx_sum(unsigned i) const {
  uint64_t s = 0;
  for (const auto& n : nics_) s += n->nic->rx_cnt()[i];
  return s;
}

uint64_t FlitSystem::nic_events() const {
  uint64_t s = 0;
  for (const auto& n : nics_) s += n->nic->events();
  return s;
}

uint64_t FlitSystem::issued() const {
  uint64_t s = 0;
  for (auto& x : xs_) s += x.req_issued + x.resp_issued;
  for (const auto& n : nics_) s -= n->req.size() + n->resp.size();
  return s;
}

uint64_t FlitSystem::delivered() const {
  uint64_t s = 0;
  for (auto& x : xs_) s += x.delivered;
  return s;
}

std::string FlitSystem::nic_errors() const {
  using T = sue::TxCnt;
  using R = sue::RxCnt;
  for (const auto& np : nics_) {
    const FNic& n = *np;
    const auto& c = n.nic->tx_cnt();
    if (c[T::cmd_overflow])
      return fmt::format("XPU {} instance {} flit NIC refused {} commands (queue full)", n.xpu, n.inst, c[T::cmd_overflow]);
    const auto& r = n.nic->rx_cnt();
    const uint64_t mac = cfg_.faults.any() ? 0 : r[R::drop_mac];
    if (mac || r[R::drop_hdr])
      return fmt::format("XPU {} instance {} flit NIC dropped frames {}: mac {} hdr {}", n.xpu, n.inst,
                         cfg_.faults.any() ? "that the wire faults do not explain" : "without faults", mac, r[R::drop_hdr]);
  }
  return "";
}

LinkFigures FlitSystem::link_figures() const {
  LinkFigures r;
  for (const auto& n : nics_)
    for (const Port& pt : n->ports)
      for (const lnk::FaultInjector* f : {pt.inj_out.get(), pt.inj_in.get()})
        if (f) {
          r.wire_frames += f->stats().frames;
          r.corrupted += f->stats().frames_corrupted;
          r.dropped += f->stats().frames_dropped;
        }
  return r;
}

}  // namespace tb::system_tb
