#include "system/system_flit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/settings.hpp"
#include "link/faults.hpp"

namespace tb::system_tb {

namespace {

constexpr uint64_t kNever = sue::kNoEdge;

unsigned ctz64(uint64_t v) { return static_cast<unsigned>(__builtin_ctzll(v)); }

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

struct FlitSystem::Port : PortBase {
  FNic* peer = nullptr;  // mesh: the NIC at the other end of the cable (same port index)
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
    : SystemBase(cfg) {
  if (std::string e = cfg_.flit_refusal(); !e.empty()) throw core::UsageError(e);
  build_common();
  const unsigned N = cfg_.xpus, M = cfg_.instances, P = cfg_.ports();
  const double bytes_per_cycle = cfg_.port_gbps / 8.0 * core::to_ns(cfg_.clock_ps);
  tokens_per_cycle_ = cfg_.load * bytes_per_cycle * M * P;
  tokens_cap_ = tokens_per_cycle_ + 20.0 + cfg_.dlen_max;
  mtu_bytes_ = std::max<uint32_t>(14 + 8 + cfg_.tp.max_pack + 4 + 4, 64);
  mtu_cells_ = cells(mtu_bytes_);
  xpus_.resize(N);
  for (unsigned a = 0; a < N; ++a) {
    xpus_[a].next_id.assign(static_cast<size_t>(N) * 2, 1);
    xpus_[a].rng = core::Rng(cfg_.seed, gen_stream(a));
    if (cfg_.pattern == Pattern::allreduce) xpus_[a].ar_recv.assign(2 * (N - 1) + 1, 0);
    xpus_[a].tk_at = cfg_.reset_cycles ? cfg_.reset_cycles - 1 : 0;
  }

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
      nc.own_xpuid = a;  // no peer table: the instance addresses every XPU by its id
      nc.strict = cfg_.strict;
      nc.vc_weight = cfg_.vc_weight;
      nc.rto = cfg_.rto;
      nc.ack_delay = cfg_.ack_delay;
      nc.ack_count = cfg_.ack_count;
      nc.win_bytes = cfg_.win_bytes;
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
        init_port(pt, a, m, p);
        if (faulty) {  // the same streams as System::build_links
          const std::string stream = pt.plane >= 0 ? fmt::format("system.link.sw{}.p{}", pt.plane, a)
                                                   : fmt::format("system.cable.x{}i{}p{}", a, m, p);
          pt.inj_out = std::make_unique<lnk::FaultInjector>(cfg_.faults, cfg_.seed, stream + ".ab");
          if (pt.plane >= 0) pt.inj_in = std::make_unique<lnk::FaultInjector>(cfg_.faults, cfg_.seed, stream + ".ba");
        }
      }
    }
  wire_mesh(nics_, [](FNic& b, unsigned) { return &b; });
  slot_base_[kGen] = 0;
  slot_base_[kDrv] = N;
  slot_base_[kNic] = N + nics_.size();
  sched_.assign(N + 2 * nics_.size(), kNever);
  // The lookahead of the synchronous windows (run_windows): the shortest way from one side to the
  // other, NIC TX + cable or cable + NIC RX, less a picosecond for the rounding to SUE edges.
  if (!cfg_.flit_lockstep) {
    const core::Ps look = std::min(nic_tx_ + cable_, cable_ + nic_rx_) - 1;
    sync_edges_ = look > 0 ? static_cast<uint64_t>(look / cfg_.clock_ps) : 0;
  }
  use_ring_ = !(sync_edges_ && !sw_.empty());  // the windows need no calendar (run_to)
  if (use_ring_) {
    words_ = (sched_.size() + 63) / 64;
    ring_bits_.assign(kRing * words_, 0);
    ring_cnt_.assign(kRing, 0);
  }
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
  if (use_ring_) {
    run_lockstep(c);
  } else {
    run_windows(c);
  }
  cycle_ = std::max(cycle_, c);
  done_edge_ = std::max(done_edge_, c);
  if (use_ring_) advance_ring(c);
}

// Switch edges strictly before each SUE edge that has events, then that edge (both clocks on one
// picosecond time line): the reference order, and the loop of a mesh (no switches).
void FlitSystem::run_lockstep(uint64_t c) {
  double t0 = profiling_ ? now_s() : 0;
  for (;;) {
    uint64_t x = next_edge();
    // A switch output can only create NIC events later than the switch edge it comes from.
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
}

// Synchronous windows (conservative parallel discrete-event simulation, here on one core): nothing a
// NIC does reaches a switch sooner than NIC TX + cable, and nothing a switch does reaches a NIC
// sooner than cable + NIC RX. So within a window of sync_edges_ SUE edges no shorter than either,
// the NIC side (XPUs, NICs, wires out) runs all its edges, then the switches all theirs, and every
// input still arrives before the time it is stamped with. Between switches nothing passes but the
// NICs, so within a window the XPUs (each with its generator, interfaces and NICs) are independent
// too: each runs all its edges of the window in turn (run_xpu), with its state hot in the cache,
// instead of the XPUs edge by edge. Each XPU and each switch sees the same inputs in the same order
// as in run_lockstep, so the run is identical (checked in switch_tick, and by the SystemFlit tests
// that compare both loops).
void FlitSystem::run_windows(uint64_t c) {
  while (done_edge_ < c) {
    const uint64_t e1 = std::min(c, done_edge_ + sync_edges_);
    double t0 = profiling_ ? now_s() : 0;
    const double tx0 = prof_.tx, net0 = prof_.net;
    for (unsigned a = 0; a < cfg_.xpus; ++a) run_xpu(a, e1);
    done_edge_ = e1;  // the NIC side is done with the edges before e1
    floor_ = e1;
    if (profiling_) {
      const double t1 = now_s();
      prof_.xpu += (t1 - t0) - (prof_.tx - tx0) - (prof_.net - net0);
      t0 = t1;
    }
    // The switches one after the other (each with its state hot), not edge by edge: they meet only
    // in the NICs. A NIC takes its credit updates in time order (one queue over its ports), so they
    // are held and handed over in the order the edge-by-edge loop makes: by switch edge, then plane.
    const core::Ps t1 = static_cast<core::Ps>(e1) * cfg_.clock_ps;
    held_cu_.clear();
    for (unsigned pl = 0; pl < sw_.size(); ++pl)
      while (sw_[pl]->now() < t1) switch_tick(pl);
    std::stable_sort(held_cu_.begin(), held_cu_.end(),
                     [](const HeldCredit& a, const HeldCredit& b) { return a.t != b.t ? a.t < b.t : a.plane < b.plane; });
    for (const HeldCredit& h : held_cu_) {
      FNic& n = *nics_[h.nic];
      n.nic->credit_limit(h.port, h.cls, h.value, h.at);
      schedule(kNic, n.index, n.nic->next_event());
    }
    if (profiling_) prof_.sw += now_s() - t0;
  }
}

// XPU a's edges before e1 (run_windows): its generator, then its interfaces, then its NICs at each
// edge, as edge() orders them (a pass in that order, again while one of them is due at the edge).
// One instance (the common case) is compiled apart: its loops over the instances vanish.
void FlitSystem::run_xpu(unsigned a, uint64_t e1) {
  if (cfg_.instances == 1)
    run_xpu_m<true>(a, e1);
  else
    run_xpu_m<false>(a, e1);
}

template <bool kOne>
void FlitSystem::run_xpu_m(unsigned a, uint64_t e1) {
  const size_t M = kOne ? 1 : cfg_.instances;
  // The XPU's entries of sched_ (sized once, in the constructor): its generator, interfaces, NICs.
  uint64_t& gen = sched_[slot(kGen, a)];
  uint64_t* const drv = &sched_[slot(kDrv, a * M)];
  uint64_t* const nic = &sched_[slot(kNic, a * M)];
  auto next = [&] {
    uint64_t m = gen;
    for (size_t k = 0; k < M; ++k) m = std::min(m, std::min(drv[k], nic[k]));
    return m;
  };
  uint64_t x = next();
  while (x < e1) {
    floor_ = x;
    cycle_ = x;
    uint64_t m;
    do {
      if (gen == x) {
        gen = kNever;
        generate(a, x);
      }
      for (size_t k = 0; k < M; ++k)
        if (drv[k] == x) {
          drv[k] = kNever;
          drive(static_cast<unsigned>(a * M + k), x);
        }
      for (size_t k = 0; k < M; ++k)
        if (nic[k] == x) {
          nic[k] = kNever;
          nic_edge(static_cast<unsigned>(a * M + k), x);
        }
      m = next();  // nothing runs before floor_ (schedule()): m >= x
    } while (m == x);
    x = m;
  }
}

void FlitSystem::edge(uint64_t x) {
  cycle_ = x;
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
}

// ------------------------------------------------------------------ XPUs

// (inline: GCC then folds it into generate(), which issues most commands.)
inline void FlitSystem::queue_cmd(unsigned a, unsigned m, unsigned dst, unsigned vc, Op op,
                                  unsigned dlen, unsigned aux, bool response, uint64_t x) {
  Xpu& X = xpus_[a];
  Cmd c;
  c.src = a;
  const unsigned ni = a * cfg_.instances + make_cmd_at(X, X.next_id, m, dst, vc, op, dlen, aux, c);
  FNic& nic = *nics_[ni];
  (response ? nic.resp : nic.req).push_back(c);
  if (response) X.tokens -= 20.0 + dlen;
  count_issue(a, response, op);
  // The interface looks at it once free (drive() at an earlier edge would only put itself off to then).
  schedule(kDrv, ni, std::max(response ? x + 1 : x, nic.busy_until));
}

// The XPU's token bucket, as System::generate, evaluated only at the edges it can send: the next
// send time is computed from the bucket instead of polling every cycle.
void FlitSystem::generate(unsigned a, uint64_t x) {
  Xpu& X = xpus_[a];
  if (x > X.tk_at) X.tokens = std::min(X.tokens + tokens_per_cycle_ * static_cast<double>(x - X.tk_at), tokens_cap_);
  X.tk_at = x;
  if (!traffic_) return;
  if (X.stall_since != kNever) {
    xs_[a].gen_stall += x - X.stall_since;
    X.stall_since = kNever;
  }
  for (unsigned guard = 0; guard < 4 && X.tokens >= 0; ++guard) {
    const bool was_done = X.ar_done;
    const int d = next_destination(cfg_, perm_, fig_.ar_steps, X.rng, X, a);
    if (X.ar_done && !was_done) {  // the run's all-reduce is done after the edge the last XPU finished at
      ar_last_edge_ = std::max(ar_last_edge_, x);
      if (++ar_done_ == cfg_.xpus) fig_.ar_done_cycle = ar_last_edge_ + 1;
    }
    if (d < 0) return;  // nothing to send now (an all-reduce step resumes when the sink wakes us)
    const unsigned dst = static_cast<unsigned>(d);
    const unsigned m = instance_of(X, a, dst, kReqVc);
    FNic& nic = *nics_[static_cast<size_t>(a) * cfg_.instances + m];
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
    request_shape(cfg_, X.rng, X, op, dlen, aux);
    X.tokens -= 20.0 + dlen;
    queue_cmd(a, m, dst, kReqVc, op, dlen, aux, false, x);
  }
  // The next edge the bucket is non-negative again.
  uint64_t wait = 1;
  if (X.tokens < 0) {
    const double q = -X.tokens / tokens_per_cycle_;
    if (q < 0x1p62) {  // ceil(q) as its truncation, one more when below q (SSE2 has no rounding instruction)
      const int64_t w = static_cast<int64_t>(q);
      wait = std::max<uint64_t>(1, static_cast<uint64_t>(w) + (static_cast<double>(w) < q));
    } else {
      wait = static_cast<uint64_t>(std::ceil(q));
    }
  }
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
  auto bad = [&](const std::string& what) { misdelivery(n.xpu, n.inst, d.last, what); };
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
  count_delivery(n.xpu, c.src, c.vc, c.dlen, d.last - stamp, x);
  if (c.op == kReadReq)
    queue_cmd(n.xpu, instance_of(xpus_[n.xpu], n.xpu, c.src, kRespVc), c.src, kRespVc, kReadResp, c.aux, 0, true, x);
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
    frames_[fi] = std::move(f);  // (the pool entry was moved on or dropped: its contents are spent)
    frame_out(n, fi);
  }
  for (const sue::NicTaken& tk : nic.taken()) {
    Port& pt = n.ports[tk.port];
    const unsigned cls = tk.vc < kClasses ? tk.vc : 0;
    const core::Ps t = static_cast<core::Ps>(tk.at) * cfg_.clock_ps;
    if (sync_edges_ && pt.plane >= 0 && t + nic_tx_ + cable_ < sw_[static_cast<size_t>(pt.plane)]->now())
      window_violation("a credit update to a switch", t + nic_tx_ + cable_);
    if (credit_back(pt, n.xpu, cls, cells(tk.bytes), t) && pt.peer) {
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
  ++(f.ack_only ? fig_.ack_frames : fig_.data_frames);
  if (!frame_onto_wire(pt, n.xpu, n.inst, f.port, len, f.vc)) {
    release_frame(fi);
    return;
  }
  if (!wire_passes(pt.inj_out.get(), fi, f.vc, len, start, t_in_last, f.bad)) {
    release_frame(fi);
    return;
  }
  if (pt.plane >= 0) {
    if (sync_edges_ && t_in < sw_[static_cast<size_t>(pt.plane)]->now()) window_violation("a frame to a switch", t_in);
    sw_[static_cast<size_t>(pt.plane)]->inject(n.xpu, nic_packet(fi, n.xpu, f.dst, f.vc, len, t_in, t_in_last));
  } else if (pt.peer) {
    Port& q = pt.peer->ports[f.port];
    const uint32_t c = cells(len);
    fig_.flit_hops += c;
    buffer_in(q, f.vc, c, -1);
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
    const uint64_t at = edge_at(fc.t + cable_ + nic_rx_) + 1;
    if (sync_edges_ && at < done_edge_) window_violation("a credit update from a switch", at);
    if (!use_ring_) {  // run_windows: handed over once every switch has run the window
      held_cu_.push_back({s.now(), pl, n.index, p, fc.cls, fc.value, at});
      continue;
    }
    n.nic->credit_limit(p, fc.cls, fc.value, at);
    schedule(kNic, n.index, n.nic->next_event());
  }
  for (const auto& d : s.drops()) {
    note_drop(pl, d.first, d.second, s.now());
    release_frame(static_cast<uint32_t>(d.first.id));
  }
  for (const sw::Packet& d : s.departures()) {
    FNic& n = *nics_[static_cast<size_t>(d.egress_port) * M + m];
    Port& pt = n.ports[p];
    const core::Ps t1 = std::max(d.t_head_out + ser(d.bytes), d.t_tail_out) + cable_ + nic_rx_;
    const uint32_t c = cells(d.bytes);
    fig_.flit_hops += c;
    if (!wire_passes(pt.inj_in.get(), d.id, d.cls, d.bytes, d.t_head_out, t1, frames_[d.id].bad)) {
      release_frame(static_cast<uint32_t>(d.id));
      continue;
    }
    buffer_in(pt, d.cls, c, static_cast<int>(pl));
    // The receiving MAC presents the last beat once the whole frame is in: sue_rx decides it then.
    const uint64_t eof = edge_at(t1);
    if (sync_edges_ && eof < done_edge_) window_violation("a frame from a switch", eof);
    n.nic->receive(p, std::move(frames_[d.id]), eof);
    release_frame(static_cast<uint32_t>(d.id));
    schedule(kNic, n.index, n.nic->next_event());
  }
}

// In run_windows, an input that would reach its side after that side has run past its time stamp
// (`at`: a SUE edge for the NICs, picoseconds for the switches): the window is longer than the
// lookahead. (run_lockstep, with zero delays, may hand a switch a frame stamped before its next
// edge, which it takes at that edge, as before.)
void FlitSystem::window_violation(const char* what, uint64_t at) const {
  throw std::logic_error(fmt::format("system (nic=flit): {} is due at {}, too late (NICs done up to SUE edge {}, "
                                     "switches at {} ps): synchronous window of {} edges longer than the fabric's "
                                     "lookahead", what, at, done_edge_, sw_.empty() ? 0 : sw_[0]->now(), sync_edges_));
}

void FlitSystem::stop_traffic() { close_window(nics_); }

// ------------------------------------------------------------------ results

bool FlitSystem::idle() const {
  if (!net_idle()) return false;
  for (const auto& np : nics_) {
    const FNic& n = *np;
    if (n.busy_until > cycle_ || !n.req.empty() || !n.resp.empty() || !n.nic->idle()) return false;
  }
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
  if (std::string r = net_busy(); !r.empty()) return r;
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
    for (const Port& pt : n->ports) add_faults(r, pt);
  return r;
}

}  // namespace tb::system_tb
