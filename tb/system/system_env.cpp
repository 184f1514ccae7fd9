#include "system/system_env.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "core/settings.hpp"
#include "sue/crc.hpp"

namespace tb::system_tb {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// 64-bit digest of a command (control + data), 8 bytes at a time.
uint64_t digest_of(const uint8_t* ctrl, const uint8_t* data, size_t dlen, uint64_t seed) {
  uint64_t h = core::mix64(seed ^ (0x5157ull << 32) ^ dlen);
  auto word = [](const uint8_t* p, size_t n) {
    uint64_t w = 0;
    for (size_t i = 0; i < n; ++i) w |= static_cast<uint64_t>(p[i]) << (8 * i);
    return w;
  };
  h = core::mix64(h ^ word(ctrl, 8));
  h = core::mix64(h ^ word(ctrl + 8, 8));
  h = core::mix64(h ^ word(ctrl + 16, 2));
  size_t i = 0;
  for (; i + 8 <= dlen; i += 8) h = core::mix64(h ^ word(data + i, 8));
  if (i < dlen) h = core::mix64(h ^ word(data + i, dlen - i) ^ 0xa5);
  return h;
}

uint32_t be16(const uint8_t* p) { return static_cast<uint32_t>(p[0]) << 8 | p[1]; }

}  // namespace

bool SysConfig::any_rtl() const { return any_not_model(tx_kind) || any_not_model(rx_kind); }

bool SysConfig::any_llr_rtl() const { return any_not_model(llr_nic_kind) || any_not_model(llr_sw_kind); }

std::string SysConfig::flit_refusal() const {
  if (any_rtl() || any_llr_rtl())
    return "setting 'nic'=flit with rtl blocks: the flit NIC model has no RTL (allowed: rtl=none, or nic=cycle)";
  if (llr)
    return "setting 'nic'=flit with llr=true: the flit NIC model has no LLR partner (allowed: llr=false, or nic=cycle)";
  if (failing())
    return "setting 'nic'=flit with fail_plane or fail_link: the flit NIC model has no failover (allowed: none, or "
           "nic=cycle)";
  if (tp.lite())
    return "setting 'nic'=flit with sue_config=lite: the flit NIC model does not model SUE Lite (allowed: s1|s2|s4, or "
           "nic=cycle)";
  return "";
}

Kind SysConfig::llr_kind(unsigned plane, unsigned a, sw::LlrLink::Side side) const {
  if (side == sw::LlrLink::A) return a < llr_nic_kind.size() ? llr_nic_kind[a] : Kind::model;
  const size_t i = static_cast<size_t>(plane) * xpus + a;
  return i < llr_sw_kind.size() ? llr_sw_kind[i] : Kind::model;
}

// ------------------------------------------------------------------ mesh cabling, permutation

unsigned mesh_partner(unsigned n_even, unsigned a, unsigned r) {
  const unsigned h = n_even - 1;  // odd
  if (a == h) return r;
  if (a == r) return h;
  return (2 * r + h - a) % h;
}

unsigned mesh_matching(unsigned n_even, unsigned a, unsigned b) {
  // mesh_partner solved for r: 2r = a + b (mod h), h odd, so r = (a + b) (h + 1) / 2 mod h.
  const unsigned h = n_even - 1;
  if (a == h) return b;
  if (b == h) return a;
  return static_cast<unsigned>((static_cast<uint64_t>(a) + b) * ((h + 1) / 2) % h);
}

std::vector<uint32_t> permutation_of(const SysConfig& c) {
  std::vector<uint32_t> p;
  if (c.pattern != Pattern::permutation) return p;
  const unsigned N = c.xpus, H = N / 2;
  p.resize(N);
  if (c.uni) {  // sender a to receiver a + N/2
    for (unsigned i = 0; i < N; ++i) p[i] = i < H ? i + H : i;
    return p;
  }
  // A random derangement (no XPU sends to itself), from the run seed.
  core::Rng r(c.seed, "system.permutation");
  for (unsigned i = 0; i < N; ++i) p[i] = i;
  for (;;) {
    for (unsigned i = N - 1; i > 0; --i) std::swap(p[i], p[r.uniform(0, i)]);
    bool ok = true;
    for (unsigned i = 0; i < N; ++i) ok &= p[i] != i;
    if (ok) break;
  }
  return p;
}

// ------------------------------------------------------------------ structures

struct System::Cmd {
  uint32_t dst = 0;
  uint32_t aux = 0;  // READ_REQ: requested length; allreduce WRITE: step
  uint64_t id = 0;
  uint16_t dlen = 0;
  uint16_t q = 0;
  uint8_t vc = 0;
  uint8_t op = 0;
};

struct System::Frame {
  sue::Bytes bytes;
  uint32_t src = 0, dst = 0;
  uint8_t vc = 0;
  bool live = false;
  bool bad = false;  // corrupted on a wire (without LLR): the receiving NIC's MAC finds a bad FCS
};

struct System::Port : PortBase {
  // MAC transmit
  double bucket = 0;
  bool ready = false;
  bool in_frame = false;
  uint32_t cur = 0;
  core::Ps t_sof = 0;
  // CBFC sender toward the next hop (switch ingress or the peer NIC)
  std::unique_ptr<cbfc::TxModel> gate;
  cbfc::TxIn gin;
  uint32_t elig = 0;                     // classes that may start a frame (see credit_ok below)
  std::array<uint32_t, kClasses> avail{};  // the gate's avail_o
  uint8_t cur_cls = 0;                    // class of the frame in progress (sof transferred, eof not yet)
  bool consume = false;
  uint8_t consume_cls = 0;
  uint32_t consume_len = 0;
  struct Cu {
    core::Ps t;
    uint8_t cls;
    uint32_t limit;
  };
  std::deque<Cu> cu;
  // wiring (plane, xpu, the fault injectors of its wires: PortBase)
  Port* peer = nullptr;  // mesh: the NIC port at the other end of the cable
  // the link: LLR (side A = this NIC port, B = the switch port)
  std::unique_ptr<sw::LlrLink> llr;
  // receive
  struct In {
    uint32_t f;
    core::Ps t_first, t_last;
  };
  std::deque<In> in;
  unsigned next = 0;
};

struct System::Nic {
  unsigned xpu = 0, inst = 0;
  std::unique_ptr<TxBlock> txb;
  std::unique_ptr<RxBlock> rxb;
  std::unique_ptr<sue::TxModel> txm;
  std::unique_ptr<sue::RxModel> rxm;
  LockTx* ltx = nullptr;
  LockRx* lrx = nullptr;
  sue::TxOut to_copy;
  sue::RxOut ro_copy;
  const sue::TxOut* to = nullptr;
  const sue::RxOut* ro = nullptr;
  sue::TxIn ti;
  sue::RxIn ri;
  std::vector<Port> ports;
  // XPU transmit interface
  std::deque<Cmd> req, resp;
  bool busy = false;
  Cmd cur;
  unsigned beat = 0, nbeats = 0;
  uint64_t t_done = 0;
  std::array<uint8_t, kCtrlBytes> ctrl{};
  std::vector<uint8_t> data;
  uint64_t digest = 0;
  std::vector<uint32_t> qcred;
  // XPU receive interface
  struct Asm {
    bool act = false;
    std::array<uint8_t, kCtrlBytes> ctrl{};
    uint32_t vc = 0, xpuid = 0, dlen = 0, beats = 0, got = 0;
    std::vector<uint8_t> data;
  } as;
  std::array<std::deque<uint64_t>, 4> ret;
};

struct System::Xpu : XpuGen {
  double tokens = 0;
  std::vector<uint64_t> next_id;  // per (dst, vc)
};

// ------------------------------------------------------------------ shared with FlitSystem

SystemBase::SystemBase(const SysConfig& cfg) : cfg_(cfg), sb_("XPU to XPU", cfg.strict) {
  cable_ = core::ns(cfg_.cable_ns);
  nic_tx_ = core::ns(cfg_.nic_tx_ns);
  nic_rx_ = core::ns(cfg_.nic_rx_ns);
}

SystemBase::~SystemBase() = default;

void SystemBase::build_common() {
  perm_ = permutation_of(cfg_);
  const unsigned N = cfg_.xpus;
  if (cfg_.topology == Topology::planes) {
    for (unsigned pl = 0; pl < cfg_.planes(); ++pl) {
      sw::Params p = cfg_.swp;
      p.seed = core::mix64(cfg_.seed + pl);
      sw_.push_back(std::make_unique<sw::Switch>(p));
      for (unsigned a = 0; a < N; ++a) sw_.back()->set_route(a, a);
    }
  }
  xs_.resize(N);
  pairs_seen_.assign((static_cast<size_t>(N) * N + 63) / 64, 0);
  fig_.win_start = cfg_.warmup_cycles;
  fig_.ar_steps = cfg_.pattern == Pattern::allreduce ? 2 * (N - 1) : 0;
  fig_.nic_credit_stall.assign(kClasses, 0);
  fig_.plane_bytes_win.assign(cfg_.planes(), 0);
  plane_dead_.assign(cfg_.planes(), 0);
}

bool SystemBase::net_idle() const {
  if (traffic_ || live_frames_ || sb_.outstanding()) return false;
  for (size_t pl = 0; pl < sw_.size(); ++pl)
    if (!plane_dead_[pl] && sw_[pl]->in_flight()) return false;
  return true;
}

std::string SystemBase::net_busy() const {
  if (sb_.outstanding()) return fmt::format("{} commands not delivered", sb_.outstanding());
  for (size_t pl = 0; pl < sw_.size(); ++pl)
    if (!plane_dead_[pl] && sw_[pl]->in_flight()) return fmt::format("switch of plane {} holds {} packets", pl, sw_[pl]->in_flight());
  return "";
}

void SystemBase::frame_refused(unsigned xpu, unsigned inst, unsigned port, uint32_t len, unsigned vc) {
  if (!fig_.cbfc_errors++)
    fig_.first_cbfc_error = fmt::format("XPU {} instance {} port {}: a frame of {} bytes on VC {} (allowed: VC 0..{}, "
                                        "at most {} bytes)", xpu, inst, port, len, vc, kClasses - 1, mtu_bytes_);
}

bool SystemBase::wire_faults(lnk::FaultInjector& inj, uint64_t id, unsigned cls, uint32_t len, core::Ps t0, core::Ps t1,
                             bool& bad) {
  lnk::Frame lf;
  lf.id = id;
  lf.cls = cls;
  lf.len = len;
  const auto v = inj.on_frame(t0, t1, lf).verdict;
  if (v == lnk::FaultInjector::Verdict::drop) return false;
  if (v == lnk::FaultInjector::Verdict::corrupt) bad = true;
  return true;
}

void SystemBase::init_port(PortBase& pt, unsigned a, unsigned m, unsigned p) const {
  pt.xpu = a;
  if (cfg_.topology == Topology::planes) pt.plane = static_cast<int>(m * cfg_.ports() + p);
  pt.rx_limit.fill(cfg_.nic_buf_cells);
}

void SystemBase::buffer_in(PortBase& pt, unsigned cls, uint32_t c, int pl) {
  pt.rx_occ[cls] += c;
  if (pt.rx_occ[cls] <= cfg_.nic_buf_cells || fig_.cbfc_errors++) return;
  if (pl < 0)
    fig_.first_cbfc_error = fmt::format("XPU {} receive buffer of class {}: {} cells held, {} granted (the sender "
                                        "sent without credit)", pt.xpu, cls, pt.rx_occ[cls], cfg_.nic_buf_cells);
  else
    fig_.first_cbfc_error = fmt::format("XPU {} receive buffer of class {} on plane {}: {} cells held, {} granted (the "
                                        "switch sent without credit)", pt.xpu, cls, pl, pt.rx_occ[cls], cfg_.nic_buf_cells);
}

void SystemBase::note_drop(unsigned pl, const sw::Packet& pk, sw::DropReason why, core::Ps t) {
  const bool lossless = why != sw::DropReason::no_route;
  ++(lossless ? fig_.lossless_drops : fig_.other_drops);
  if (fig_.first_drop.empty())
    fig_.first_drop = fmt::format("plane {}: a frame of XPU {} to XPU {} class {} dropped ({}) at {}", pl, pk.tag, pk.dst_xpu,
                                  static_cast<unsigned>(pk.cls),
                                  why == sw::DropReason::no_route ? "no route"
                                  : why == sw::DropReason::buffer_full ? "buffer full" : "lossless overflow",
                                  core::format_time(t));
}

void SystemBase::misdelivery(unsigned xpu, unsigned inst, uint64_t cyc, const std::string& what) {
  if (!fig_.misdelivered++) fig_.first_misdelivery = fmt::format("XPU {} instance {} cycle {}: {}", xpu, inst, cyc, what);
}

void SystemBase::add_faults(LinkFigures& r, const PortBase& pt) {
  for (const lnk::FaultInjector* f : {pt.inj_out.get(), pt.inj_in.get()})
    if (f) {
      r.wire_frames += f->stats().frames;
      r.corrupted += f->stats().frames_corrupted;
      r.dropped += f->stats().frames_dropped;
    }
}

uint64_t SystemBase::delivered() const {
  uint64_t s = 0;
  for (auto& x : xs_) s += x.delivered;
  return s;
}

// ------------------------------------------------------------------ construction

System::System(const SysConfig& cfg, std::vector<std::unique_ptr<TxBlock>> tx, std::vector<std::unique_ptr<RxBlock>> rx,
               LlrEngines llr)
    : SystemBase(cfg) {
  build_common();
  const unsigned N = cfg_.xpus;
  bytes_per_cycle_ = cfg_.port_gbps / 8.0 * core::to_ns(cfg_.clock_ps);
  tokens_per_cycle_ = cfg_.load * bytes_per_cycle_ * cfg_.instances * cfg_.ports();
  mtu_bytes_ = static_cast<uint32_t>(cfg_.tp.lite() ? 6 + cfg_.tp.max_pack + 4 : 14 + 8 + cfg_.tp.max_pack + 4 + 4);
  mtu_bytes_ = std::max<uint32_t>(mtu_bytes_, 64);
  gate_params_.num_classes = kClasses;
  gate_params_.cnt_width = 16;
  gate_params_.len_width = 16;
  gate_params_.credit_unit_log2 = 7;  // 128-byte cells, the switch's flit
  gate_params_.timer_width = 16;
  const uint32_t init = cfg_.topology == Topology::planes ? cfg_.swp.cbfc_buf_cells : cfg_.nic_buf_cells;
  for (unsigned c = 0; c < kClasses; ++c) gate_cfg_.init_credits[c] = init;
  gate_cfg_.mtu = mtu_bytes_;
  mtu_cells_ = gate_params_.credits(mtu_bytes_);
  xpus_.resize(N);
  for (unsigned a = 0; a < N; ++a) {
    xpus_[a].next_id.assign(static_cast<size_t>(N) * 2, 1);
    xpus_[a].rng = core::Rng(cfg_.seed, gen_stream(a));
    if (cfg_.pattern == Pattern::allreduce) xpus_[a].ar_recv.assign(2 * (N - 1) + 1, 0);
  }
  build_nics(tx, rx);
  build_links(llr);
}

System::~System() = default;

// The links (docs/system.md "Links"): with LLR one sw::LlrLink per NIC port (side A = the NIC port,
// B = its switch port), wired to the switch as sw::Harness does (docs/switch.md "LLR on links");
// without LLR, with faults, a fault injector on each wire.
void System::build_links(LlrEngines& eng) {
  const unsigned N = cfg_.xpus, M = cfg_.instances, P = cfg_.ports();
  const bool faulty = cfg_.faults.any();
  if (!cfg_.llr && !faulty) return;
  for (unsigned a = 0; a < N; ++a)
    for (unsigned m = 0; m < M; ++m)
      for (unsigned p = 0; p < P; ++p) {
        Port& pt = nics_[static_cast<size_t>(a) * M + m]->ports[p];
        if (cfg_.llr && pt.plane >= 0) {
          const unsigned pl = static_cast<unsigned>(pt.plane);
          const sw::Params& sp = sw_[pl]->params();
          sw::LlrLinkParams lp;
          // A -> B: NIC transmit PHY + cable; B -> A: cable + NIC receive PHY (the switch's PHYs are
          // stages of its 250 ns). The wire runs at the port rate with preamble + IFG per frame.
          lp.wire.rate_gbps = cfg_.port_gbps;
          lp.wire.length_m = 0;
          lp.wire.overhead_bytes = kWireOverhead;
          lp.wire.fec_latency_ns = cfg_.nic_tx_ns + cfg_.cable_ns;
          lnk::Params ba = lp.wire;
          ba.fec_latency_ns = cfg_.cable_ns + cfg_.nic_rx_ns;
          lp.wire_ba = ba;
          lp.faults = cfg_.faults;
          lp.llr = cfg_.llr_params;
          lp.cfg = cfg_.llr_cfg;
          lp.period = sp.period();
          lp.eligible_classes = (1u << kClasses) - 1;  // both classes are lossless: every frame is kept and replayed
          std::unique_ptr<sw::LlrEngine> ea, eb;
          if (!eng.empty()) {
            ea = std::move(eng[llr_engine_index(pl, N, a, sw::LlrLink::A)]);
            eb = std::move(eng[llr_engine_index(pl, N, a, sw::LlrLink::B)]);
            for (sw::LlrEngine* e : {ea.get(), eb.get()})
              if (auto* le = dynamic_cast<const llr_tb::LinkEngine*>(e)) llr_rtl_.push_back(le);
          }
          pt.llr = std::make_unique<sw::LlrLink>(lp, cfg_.seed, fmt::format("system.link.sw{}.p{}", pl, a), std::move(ea),
                                                 std::move(eb));
        } else if (faulty) {
          const std::string stream = pt.plane >= 0 ? fmt::format("system.link.sw{}.p{}", pt.plane, a)
                                                   : fmt::format("system.cable.x{}i{}p{}", a, m, p);
          pt.inj_out = std::make_unique<lnk::FaultInjector>(cfg_.faults, cfg_.seed, stream + ".ab");
          if (pt.plane >= 0) pt.inj_in = std::make_unique<lnk::FaultInjector>(cfg_.faults, cfg_.seed, stream + ".ba");
        }
      }
}

void System::set_waves(Waves* w) { waves_ = w; }

void System::dump(core::Ps t) {
  if (!waves_ || t < 0) return;  // nothing before time 0 (the first falling edge)
  if (t <= last_dump_) t = last_dump_ + 1;
  waves_->dump(t);
  last_dump_ = t;
}

void System::build_nics(std::vector<std::unique_ptr<TxBlock>>& tx, std::vector<std::unique_ptr<RxBlock>>& rx) {
  const unsigned N = cfg_.xpus, M = cfg_.instances, P = cfg_.ports();
  nics_.resize(static_cast<size_t>(N) * M);
  for (unsigned a = 0; a < N; ++a)
    for (unsigned m = 0; m < M; ++m) {
      const size_t idx = static_cast<size_t>(a) * M + m;
      nics_[idx] = std::make_unique<Nic>();
      Nic& n = *nics_[idx];
      n.xpu = a;
      n.inst = m;
      sue::TxCfg t;
      t.own_xpuid = a;  // no peer table: the instance addresses every XPU by its id
      t.strict = cfg_.strict;
      t.partition = cfg_.partition;
      t.hop_count = 0;
      t.vc_weight = cfg_.vc_weight;
      t.rto = cfg_.rto;
      t.ack_delay = cfg_.ack_delay;
      t.ack_count = cfg_.ack_count;
      t.win_bytes = cfg_.win_bytes;
      t.fo_retry = cfg_.fo_retry;
      sue::RxCfg r;
      r.own_xpuid = a;
      r.strict = cfg_.strict;
      r.partition = cfg_.partition;
      r.rx_credits = {cfg_.rx_credits, cfg_.rx_credits, cfg_.rx_credits, cfg_.rx_credits};
      n.ti.cfg = t;
      n.ri.cfg = r;
      const uint32_t up = (1u << P) - 1;
      n.ti.port_up = up;
      n.ri.port_up = up;
      if (idx < tx.size() && tx[idx]) {
        n.txb = std::move(tx[idx]);
        n.ltx = dynamic_cast<LockTx*>(n.txb.get());
        n.to_copy = n.txb->outputs();
        n.to = &n.to_copy;
      } else {
        n.txm = std::make_unique<sue::TxModel>(cfg_.tp);
        n.to = &n.txm->outputs();
      }
      if (idx < rx.size() && rx[idx]) {
        n.rxb = std::move(rx[idx]);
        n.lrx = dynamic_cast<LockRx*>(n.rxb.get());
        n.ro_copy = n.rxb->outputs();
        n.ro = &n.ro_copy;
      } else {
        n.rxm = std::make_unique<sue::RxModel>(cfg_.rp);
        n.ro = &n.rxm->outputs();
      }
      n.qcred.assign(cfg_.tp.nq(), cfg_.tp.qdepth);
      n.data.assign(cfg_.tp.max_data + 64, 0);
      n.ports.resize(P);
      for (unsigned p = 0; p < P; ++p) {
        Port& pt = n.ports[p];
        init_port(pt, a, m, p);
        pt.gate = std::make_unique<cbfc::TxModel>(gate_params_);
        pt.gin.cfg = gate_cfg_;
        pt.gin.rst_n = false;
        pt.gate->tick(pt.gin);
        pt.gin.rst_n = true;
        pt.elig = pt.gate->outputs().elig;
      for (unsigned c = 0; c < kClasses; ++c) pt.avail[c] = pt.gate->outputs().avail[c];
      }
    }
  wire_mesh(nics_, [](Nic& b, unsigned p) { return &b.ports[p]; });
}

uint32_t System::alloc_frame() {
  const uint32_t f = alloc_slot(frames_);
  frames_[f].live = true;
  frames_[f].bad = false;
  frames_[f].bytes.clear();
  return f;
}

void System::release_frame(uint32_t f) {
  if (!frames_[f].live) return;
  frames_[f].live = false;
  free_slot(f);
}

// ------------------------------------------------------------------ XPUs: traffic

void System::queue_cmd(unsigned a, unsigned dst, unsigned vc, Op op, unsigned dlen, unsigned aux, bool response) {
  Xpu& X = xpus_[a];
  Cmd c;
  const unsigned m = make_cmd(X, X.next_id, a, dst, vc, op, dlen, aux, c);
  Nic& nic = *nics_[static_cast<size_t>(a) * cfg_.instances + m];
  (response ? nic.resp : nic.req).push_back(c);
  if (response) X.tokens -= 20.0 + dlen;
  count_issue(a, response, op);
}

std::string gen_stream(unsigned a) { return fmt::format("system.traffic.x{}", a); }

void System::generate(unsigned a) {
  Xpu& X = xpus_[a];
  X.tokens = std::min(X.tokens + tokens_per_cycle_, tokens_per_cycle_ + 20.0 + cfg_.dlen_max);
  if (!traffic_) return;
  for (unsigned guard = 0; guard < 4 && X.tokens >= 0; ++guard) {
    const int d = next_destination(cfg_, perm_, fig_.ar_steps, X.rng, X, a);
    if (d < 0) return;
    const unsigned dst = static_cast<unsigned>(d);
    // The instance that carries the request and room in its queue.
    const unsigned m = instance_of(X, a, dst, kReqVc);
    const Nic& nic = *nics_[static_cast<size_t>(a) * cfg_.instances + m];
    if (nic.req.size() >= cfg_.pending_max) {
      ++xs_[a].gen_stall;
      return;
    }
    Op op;
    unsigned dlen, aux;
    request_shape(cfg_, X.rng, X, op, dlen, aux);
    X.tokens -= 20.0 + dlen;
    queue_cmd(a, dst, kReqVc, op, dlen, aux, false);
  }
}

// The XPU transmit interface of one instance: one command at a time, responses first,
// a command only to a queue that holds a credit (the others of the list keep their order).
void System::drive(Nic& n, sue::TxIn& in) {
  in.tx_valid = 0;
  const unsigned DB = cfg_.tp.db();
  if (!n.busy) {
    auto take = [&](std::deque<Cmd>& q, size_t scan) -> bool {
      const size_t lim = std::min(q.size(), scan);
      for (size_t k = 0; k < lim; ++k) {
        if (!n.qcred[q[k].q]) continue;
        n.cur = q[k];
        q.erase(q.begin() + static_cast<std::ptrdiff_t>(k));
        return true;
      }
      return false;
    };
    if (n.req.empty() && n.resp.empty()) return;
    if (!take(n.resp, 16) && !take(n.req, cfg_.pending_max)) {
      ++xs_[n.xpu].credit_stall;
      return;
    }
    Cmd& c = n.cur;
    --n.qcred[c.q];
    n.busy = true;
    n.beat = 0;
    n.nbeats = c.dlen ? (c.dlen + DB - 1) / DB : 1;
    n.t_done = cycle_ + n.nbeats - 1;  // beats are consecutive: the command completes then
    auto& k = n.ctrl;
    const uint64_t r = core::mix64(cfg_.seed ^ core::mix64(static_cast<uint64_t>(flow_of(n.xpu, c.dst, c.vc)) << 40 ^ c.id));
    k[0] = c.op;
    k[1] = static_cast<uint8_t>(c.dlen >> 4);
    k[2] = static_cast<uint8_t>((c.dlen & 0xf) << 4 | (r & 0xf));
    k[3] = static_cast<uint8_t>(n.xpu >> 8);
    k[4] = static_cast<uint8_t>(n.xpu);
    k[5] = static_cast<uint8_t>(c.dst >> 8);
    k[6] = static_cast<uint8_t>(c.dst);
    k[7] = static_cast<uint8_t>(c.vc << 6 | ((c.aux >> 8) & 0x3f));
    k[8] = static_cast<uint8_t>(c.aux);
    for (unsigned i = 0; i < 5; ++i) k[9 + i] = static_cast<uint8_t>(c.id >> (8 * (4 - i)));
    for (unsigned i = 0; i < 4; ++i) k[14 + i] = static_cast<uint8_t>(n.t_done >> (8 * (3 - i)));
    for (unsigned j = 0; j < c.dlen; j += 8) {
      const uint64_t w = core::mix64(r + j);
      for (unsigned b = 0; b < 8 && j + b < c.dlen; ++b) n.data[j + b] = static_cast<uint8_t>(w >> (8 * b));
    }
    n.digest = digest_of(k.data(), n.data.data(), c.dlen, cfg_.seed);
  }
  const Cmd& c = n.cur;
  in.tx_valid = c.dlen ? 2 : 1;
  in.tx_cycle = n.beat;
  in.tx_vc = c.vc;
  in.tx_xpuid = c.dst;
  // the debug read ports (waves) follow the queue of the newest command and its connection on port 0
  in.dbg_q = in.dbg_conn = (c.dst * 4 + c.vc) & 0x3fff;
  in.tx_control = n.ctrl;
  const unsigned off = n.beat * DB;
  for (unsigned j = 0; j < DB && off + j < c.dlen; ++j) in.tx_data[j] = n.data[off + j];
  if (++n.beat < n.nbeats) return;
  n.busy = false;
  sb_.expect(flow_of(n.xpu, c.dst, c.vc), c.id, n.digest, static_cast<core::Ps>(cycle_) * cfg_.clock_ps);
}

// The XPU receive interface of one instance (rx_* are registered: seen in the next cycle).
void System::sink(Nic& n) {
  const sue::RxOut& o = *n.ro;
  if (o.rx_valid != 1 && o.rx_valid != 2) return;
  const unsigned DB = cfg_.tp.db();
  const uint64_t seen = cycle_ + 1;
  auto& as = n.as;
  auto bad = [&](const std::string& what) { misdelivery(n.xpu, n.inst, seen, what); };
  if (o.rx_cycle == 0) {
    if (as.act) bad(fmt::format("a new command began after {} of {} beats of the previous one", as.got, as.beats));
    as.act = true;
    as.ctrl = o.rx_control;
    as.vc = o.rx_vc;
    as.xpuid = o.rx_xpuid;
    as.dlen = static_cast<uint32_t>(as.ctrl[1]) << 4 | as.ctrl[2] >> 4;
    as.beats = as.dlen ? (as.dlen + DB - 1) / DB : 1;
    as.got = 0;
    as.data.clear();
    if (o.rx_valid != (as.dlen ? 2u : 1u)) bad(fmt::format("rx_valid={} for dlen={}", o.rx_valid, as.dlen));
    n.ret[as.vc & 3].push_back(seen + cfg_.sink_delay);
  } else if (!as.act || o.rx_cycle != as.got) {
    bad(fmt::format("rx_cycle={} but beat {} was expected", o.rx_cycle, as.act ? as.got : 0));
    return;
  }
  for (unsigned j = 0; j < DB && as.data.size() < as.dlen; ++j) as.data.push_back(o.rx_data[j]);
  if (++as.got < as.beats) return;
  as.act = false;
  const auto& k = as.ctrl;
  const uint64_t dig = digest_of(k.data(), as.data.data(), as.dlen, cfg_.seed);
  const unsigned op = k[0], src = be16(k.data() + 3), dst = be16(k.data() + 5), vc = k[7] >> 6;
  const unsigned aux = static_cast<unsigned>(k[7] & 0x3f) << 8 | k[8];
  uint64_t id = 0;
  for (unsigned i = 0; i < 5; ++i) id = id << 8 | k[9 + i];
  uint64_t stamp = 0;
  for (unsigned i = 0; i < 4; ++i) stamp = stamp << 8 | k[14 + i];
  const core::Ps t = static_cast<core::Ps>(seen) * cfg_.clock_ps;
  if (src >= cfg_.xpus || dst >= cfg_.xpus || op < kWrite || op > kReadResp) {
    bad(fmt::format("a command with src {} dst {} opcode {} (not one the XPUs issue)", src, dst, op));
    sb_.observe(~0u, id, dig, t);
    return;
  }
  if (dst != n.xpu || src != as.xpuid || vc != as.vc)
    bad(fmt::format("command {}->{} vc {} id {} arrived at XPU {} from XPU {} on vc {}", src, dst, vc, id, n.xpu, as.xpuid,
                    as.vc));
  sb_.observe(flow_of(src, dst, vc), id, dig, t);
  count_delivery(n.xpu, src, vc, as.dlen, (seen - stamp) & 0xffffffffull, cycle_);
  if (op == kReadReq && dst == n.xpu) queue_cmd(n.xpu, src, kRespVc, kReadResp, aux, 0, true);
  if (cfg_.pattern == Pattern::allreduce && op == kWrite && aux < xpus_[n.xpu].ar_recv.size())
    xpus_[n.xpu].ar_recv[aux] += as.dlen;
}

// ------------------------------------------------------------------ network

void System::mac_tx(Nic& n, unsigned p, const sue::TxOut& o, core::Ps t) {
  Port& pt = n.ports[p];
  const bool sof = (o.mac_tx_sof >> p) & 1u, eof = (o.mac_tx_eof >> p) & 1u;
  const unsigned nb = std::min<unsigned>(o.mac_tx_nbytes[p], kBeatBytes);
  if (sof) {
    if (pt.in_frame) release_frame(pt.cur);  // sue_tx never does that: the frame checks would fail
    pt.cur = alloc_frame();
    pt.in_frame = true;
    pt.t_sof = t;
    pt.cur_cls = static_cast<uint8_t>((o.mac_tx_data[p][6] >> 4) & 3u);
  }
  if (!pt.in_frame) {
    if (!fig_.frame_decode_errors++)
      fig_.first_decode_error = fmt::format("XPU {} instance {} port {}: a beat outside a frame at cycle {}", n.xpu, n.inst, p, cycle_);
    return;
  }
  auto& b = frames_[pt.cur].bytes;
  b.insert(b.end(), o.mac_tx_data[p].begin(), o.mac_tx_data[p].begin() + nb);
  pt.bucket -= nb;
  if (eof) frame_done(n, p, t);
}

void System::frame_done(Nic& n, unsigned p, core::Ps t) {
  Port& pt = n.ports[p];
  pt.in_frame = false;
  const uint32_t fi = pt.cur;
  Frame& f = frames_[fi];
  auto& b = f.bytes;
  const size_t pad = b.size() < sue::kEthMinNoFcs ? sue::kEthMinNoFcs - b.size() : 0;
  b.resize(b.size() + pad + sue::kFcsBytes, 0);
  const uint32_t len = static_cast<uint32_t>(b.size());
  pt.bucket -= static_cast<double>(pad + sue::kFcsBytes + kWireOverhead);
  f.src = n.xpu;
  f.vc = static_cast<uint8_t>(b.size() > 6 ? (b[6] >> 4) & 3u : 0u);
  if (cfg_.tp.lite())
    f.dst = be16(b.data() + 4);
  else
    f.dst = static_cast<uint32_t>(b[2]) << 24 | static_cast<uint32_t>(b[3]) << 16 | be16(b.data() + 4);
  if (cfg_.check_frames) {
    const size_t nf = len - sue::kFcsBytes;
    const uint32_t v = sue::fcs32(b.data(), nf);
    for (unsigned i = 0; i < 4; ++i) b[nf + i] = static_cast<uint8_t>(v >> (8 * i));  // LSB first
    check_frame(f, n.xpu, n.inst);
  }
  if (!frame_onto_wire(pt, n.xpu, n.inst, p, len, f.vc)) {
    release_frame(fi);
    return;
  }
  pt.consume = true;
  pt.consume_cls = f.vc;
  pt.consume_len = len;
  if (pt.llr) {  // into the MAC TX FIFO of the port's LLR TX, taken at the first LLR edge its c_ready allows
    pt.llr->offer(sw::LlrLink::A, nic_packet(fi, n.xpu, f.dst, f.vc, len));
    return;
  }
  // The wire: the frame starts once the NIC PHY has it and the previous frame (+ preamble, IFG) is out.
  const WireTimes wt = wire_times(pt.t_sof, t, len, pt.wire_free, nic_tx_, cable_, cfg_.port_gbps);
  const core::Ps start = wt.start, t_in = wt.t_in, t_in_last = wt.t_in_last;
  // The wire's faults: a dropped frame never arrives (its CBFC credits are not returned), a corrupted one
  // is forwarded and dropped by the receiving NIC's MAC (bad FCS).
  if (!wire_passes(pt.inj_out.get(), fi, f.vc, len, start, t_in_last, f.bad)) {
    release_frame(fi);
    return;
  }
  if (pt.plane >= 0) {
    const sw::Packet pk = nic_packet(fi, n.xpu, f.dst, f.vc, len, t_in, t_in_last);
    sw::Switch& s = *sw_[static_cast<size_t>(pt.plane)];
    const core::Ps per = s.params().period();
    const core::Ps due = (t_in + s.params().ingress_ready_delay() + per - 1) / per * per;  // the edge that would admit it
    if (s.now() > due) {
      ++fig_.late_frames;
      fig_.late_max = std::max(fig_.late_max, s.now() - due);
    }
    s.inject(n.xpu, pk);
  } else if (pt.peer) {
    Port& q = *pt.peer;
    q.in.push_back({fi, t_in + nic_rx_, t_in_last + nic_rx_});
    fig_.flit_hops += cells(len);
    buffer_in(q, f.vc, cells(len), -1);
  } else {
    release_frame(fi);  // an unconnected mesh instance: never used by the traffic
  }
}

void System::check_frame(const Frame& fr, unsigned src, unsigned inst) {
  sue::DecodeOptions o;
  o.profile = cfg_.tp.lite() ? sue::Profile::SueLite : sue::Profile::Sue;
  o.encap = cfg_.tp.lite() ? sue::Encap::AfhGen2_6 : sue::Encap::AfhGen2_12;
  auto r = sue::decode(fr.bytes, o);
  auto fail = [&](const std::string& what) {
    if (!fig_.frame_decode_errors++)
      fig_.first_decode_error = fmt::format("XPU {} frame of {} bytes at cycle {}: {}", src, fr.bytes.size(), cycle_, what);
  };
  if (!r) return fail(r.error().message());
  const sue::Frame& f = r.value().frame;
  if (f.afh2.src_xpu != src) fail(fmt::format("AFH source XPU {} is not the sender {}", f.afh2.src_xpu, src));
  if (f.afh2.dst_xpu >= cfg_.xpus || f.afh2.dst_xpu == src) fail(fmt::format("destination XPU {} is not another XPU of the system", f.afh2.dst_xpu));
  if (!cfg_.tp.lite()) {
    if (f.rh.xpuid != src) fail(fmt::format("RH xpuid {} is not the sender {}", f.rh.xpuid, src));
    if (f.rh.vc != (f.afh2.tc & 3)) fail(fmt::format("RH vc {} but traffic class {}", f.rh.vc, f.afh2.tc));
    if (f.rh.partition != cfg_.partition) fail(fmt::format("RH partition {}", f.rh.partition));
    if (f.cmds.empty()) {
      ++fig_.ack_frames;
      // A failover frame (FO-REQ op 0, FO-ACK op 1: rsvd = 8 | the dead port): only once the failure has
      // happened, from an instance that lost that port (fail_plane: the plane's instance of any XPU;
      // fail_link: the cable's two ends).
      int fo = -1;
      if (fig_.failed && cfg_.fail_plane >= 0 && inst == static_cast<unsigned>(cfg_.fail_plane) / cfg_.ports())
        fo = static_cast<int>(8u | static_cast<unsigned>(cfg_.fail_plane) % cfg_.ports());
      if (fig_.failed && cfg_.fail_xpu >= 0 && inst == cfg_.fail_inst &&
          (src == static_cast<unsigned>(cfg_.fail_xpu) ||
           static_cast<int>(src) == mesh_peer(static_cast<unsigned>(cfg_.fail_xpu), cfg_.fail_inst)))
        fo = static_cast<int>(8u | cfg_.fail_port);
      if (f.rh.rsvd && !(f.rh.rsvd == fo && static_cast<unsigned>(f.rh.op) <= 1))
        fail(fmt::format("an empty PDU with rsvd={} op {} from instance {} (allowed: 0{})", f.rh.rsvd,
                         static_cast<unsigned>(f.rh.op), inst,
                         fo < 0 ? ": no port of this instance has failed"
                                : fmt::format(", or {} with op 0|1 for its failed port", fo)));
      return;
    }
  }
  if (f.cmds.empty()) return fail("a SUE Lite frame without commands");
  ++fig_.data_frames;
  for (size_t i = 0; i < f.cmds.size(); ++i) {
    const auto& c = f.cmds[i];
    if (c.size() < kCtrlBytes || be16(c.data() + 3) != src || be16(c.data() + 5) != f.afh2.dst_xpu ||
        (c[7] >> 6) != (f.afh2.tc & 3))
      fail(fmt::format("command {} is not a command of XPU {} to XPU {} on VC {}", i, src, f.afh2.dst_xpu, f.afh2.tc & 3));
  }
}

void System::present(Port& pt, core::Ps t, sue::RxBeat& b) {
  b.valid = false;
  if (pt.in.empty()) return;
  const Port::In& r = pt.in.front();
  const auto& bytes = frames_[r.f].bytes;
  const size_t L = bytes.size() - sue::kFcsBytes;  // the FCS is stripped, the pad is kept
  const unsigned nbeats = static_cast<unsigned>((L + kBeatBytes - 1) / kBeatBytes);
  const unsigned k = pt.next;
  const bool last = k + 1 == nbeats;
  if (t < (last ? r.t_last : r.t_first + ser(static_cast<uint64_t>(kBeatBytes) * (k + 1)))) return;
  b.valid = true;
  b.sof = k == 0;
  b.eof = last;
  b.err = last && frames_[r.f].bad;  // the MAC's FCS check (a frame corrupted on a wire without LLR)
  b.nbytes = last ? static_cast<unsigned>(L - static_cast<size_t>(kBeatBytes) * k) : kBeatBytes;
  std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(kBeatBytes) * k, b.nbytes, b.data.begin());
}

void System::rx_taken(Nic& n, unsigned p, core::Ps t) {
  Port& pt = n.ports[p];
  if (!n.ri.mac[p].eof) {
    ++pt.next;
    return;
  }
  const uint32_t fi = pt.in.front().f;
  pt.in.pop_front();
  pt.next = 0;
  const Frame& f = frames_[fi];
  const unsigned cls = f.vc;
  const uint32_t c = cells(static_cast<uint32_t>(f.bytes.size()));
  if (credit_back(pt, n.xpu, cls, c, t) && pt.peer)
    pt.peer->cu.push_back({t + nic_tx_ + cable_ + nic_rx_, static_cast<uint8_t>(cls), pt.rx_limit[cls]});
  release_frame(fi);
}

void System::tick_gate(Port& pt, core::Ps t) {
  const bool cu = !pt.cu.empty() && pt.cu.front().t <= t;
  if (!pt.consume && !cu) return;
  cbfc::TxIn& in = pt.gin;
  in.tx_valid = pt.consume;
  in.tx_class = pt.consume_cls;
  in.tx_len = pt.consume_len;
  in.cu_valid = cu;
  if (cu) {
    in.cu_class = pt.cu.front().cls;
    in.cu_limit = pt.cu.front().limit;
    pt.cu.pop_front();
  }
  pt.consume = false;
  pt.gate->tick(in);
  const cbfc::TxOut o = pt.gate->outputs();
  pt.elig = o.elig;
  for (unsigned c = 0; c < kClasses; ++c) pt.avail[c] = o.avail[c];
  if ((o.err_underflow || o.err_overflow || o.err_class) && !fig_.cbfc_errors++)
    fig_.first_cbfc_error = fmt::format("XPU {} NIC CBFC sender at cycle {}: underflow {:#x} overflow {:#x} class {}", pt.xpu,
                                        cycle_, o.err_underflow, o.err_overflow, o.err_class);
}

void System::switch_tick(unsigned pl) {
  sw::Switch& s = *sw_[pl];
  const core::Ps T = s.now();
  s.tick();
  const unsigned M = cfg_.instances, P = cfg_.ports();
  const unsigned m = pl / P, p = pl % P;
  for (const sw::FcMsg& fc : s.fc_out()) {
    if (fc.kind != sw::FcMsg::Kind::credit) continue;
    Port& pt = nics_[static_cast<size_t>(fc.port) * M + m]->ports[p];
    pt.cu.push_back({fc.t + cable_ + nic_rx_, fc.cls, fc.value});
  }
  for (const auto& d : s.drops()) {
    note_drop(pl, d.first, d.second, s.now());
    release_frame(static_cast<uint32_t>(d.first.id));
  }
  for (const sw::Packet& d : s.departures()) {
    Port& pt = nics_[static_cast<size_t>(d.egress_port) * M + m]->ports[p];
    const core::Ps t0 = d.t_head_out + cable_ + nic_rx_;
    const core::Ps t1 = std::max(d.t_head_out + ser(d.bytes), d.t_tail_out) + cable_ + nic_rx_;
    const uint32_t c = cells(d.bytes);
    if (pt.llr) {
      pt.llr->offer(sw::LlrLink::B, d);  // the MAC TX FIFO of the switch port's LLR TX
    } else {
      if (!wire_passes(pt.inj_in.get(), d.id, d.cls, d.bytes, d.t_head_out, t1, frames_[d.id].bad)) {  // see frame_done
        fig_.flit_hops += c;
        release_frame(static_cast<uint32_t>(d.id));
        continue;
      }
      pt.in.push_back({static_cast<uint32_t>(d.id), t0, t1});
    }
    fig_.flit_hops += c;
    buffer_in(pt, d.cls, c, static_cast<int>(pl));
  }
  // The LLR partners of this plane's links, edge at T (after the switch's, as sw::Harness).
  if (cfg_.llr)
    for (unsigned a = 0; a < cfg_.xpus; ++a) llr_edge(s, nics_[static_cast<size_t>(a) * M + m]->ports[p], T);
}

// One LLR edge of a NIC port's link (docs/switch.md "LLR on links", as sw::Harness::llr_edge).
void System::llr_edge(sw::Switch& s, Port& pt, core::Ps T) {
  sw::LlrLink& k = *pt.llr;
  k.edge(T);
  // The switch's egress scheduler learns the wire time of its port it did not schedule.
  if (const core::Ps u = k.unscheduled(sw::LlrLink::B); u > 0) s.egress_wire_busy(pt.xpu, u);
  // Frames lost for good (a flush): SUE recovers them; a downlink frame never reaches the NIC buffer.
  for (const sw::Packet& p : k.lost(sw::LlrLink::A)) {
    pt.rx_occ[p.cls] -= cells(p.bytes);
    release_frame(static_cast<uint32_t>(p.id));
  }
  for (const sw::Packet& p : k.lost(sw::LlrLink::B)) release_frame(static_cast<uint32_t>(p.id));
  // Into the switch: the LLR RX delivers a frame once it is wholly in and its FCS checked, so it
  // enters the switch ingress pin whole at this edge.
  for (const sw::LlrLink::Delivery& d : k.delivered(sw::LlrLink::B)) {
    sw::Packet p = d.p;
    p.t_in = T;
    p.t_in_last = T;
    s.inject(pt.xpu, p);
  }
  // To the NIC: whole at this edge, so every beat is in (sue_rx takes them from the next SUE edge).
  for (const sw::LlrLink::Delivery& d : k.delivered(sw::LlrLink::A)) {
    const uint32_t fi = static_cast<uint32_t>(d.p.id);
    const size_t L = frames_[fi].bytes.size() - sue::kFcsBytes;
    pt.in.push_back({fi, T - ser(L), T});
  }
}

// ------------------------------------------------------------------ the clock edge

void System::cycle() {
  const core::Ps t = now();
  double t0 = profiling_ ? now_s() : 0, t1 = 0;
  auto lap = [&](double& acc) {
    if (!profiling_) return;
    t1 = now_s();
    acc += t1 - t0;
    t0 = t1;
  };
  if (cfg_.failing() && cycle_ == cfg_.fail_cycle) {
    fig_.failed = true;
    if (cfg_.fail_plane >= 0) fail_plane(static_cast<unsigned>(cfg_.fail_plane));
    if (cfg_.fail_xpu >= 0) fail_link(static_cast<unsigned>(cfg_.fail_xpu), cfg_.fail_inst, cfg_.fail_port);
  }
  // Switch edges before this SUE edge (both clocks on one picosecond time line).
  if (!sw_.empty())
    while (sw_[clock_plane_]->now() < t) {
      const core::Ps T = sw_[clock_plane_]->now();
      for (unsigned pl = 0; pl < sw_.size(); ++pl)
        if (!plane_dead_[pl]) switch_tick(pl);
      if (waves_ && !llr_rtl_.empty()) dump(T);  // RTL LLR partners: after their edge at T
    }
  lap(prof_.sw);

  const bool rst = cycle_ < cfg_.reset_cycles;
  const unsigned P = cfg_.ports();
  if (cycle_ == cfg_.warmup_cycles) {
    fig_.win_start = cycle_;
    for (auto& n : nics_)
      for (auto& pt : n->ports) pt.win_bytes0 = pt.wire_bytes;
  }
  // XPU generators.
  if (!rst)
    for (unsigned a = 0; a < cfg_.xpus; ++a) generate(a);
  // Inputs of every block for this edge.
  for (auto& np : nics_) {
    Nic& n = *np;
    sue::TxIn& ti = n.ti;
    ti.rst_n = !rst;
    ti.fb = n.ro->fb;
    ti.mac_tx_ready = 0;
    ti.credit_ok = 0;
    sue::RxIn& ri = n.ri;
    ri.rst_n = !rst;
    ri.rx_credit = 0;
    for (unsigned p = 0; p < P; ++p) {
      Port& pt = n.ports[p];
      if (!((n.ti.port_up >> p) & 1u)) {  // a dead port (fail_plane): its MAC takes and presents nothing
        ri.mac[p].valid = false;
        continue;
      }
      pt.bucket = std::min(pt.bucket + bytes_per_cycle_, static_cast<double>(kBeatBytes));
      pt.ready = pt.bucket > 0 && (!pt.llr || pt.llr->queued(sw::LlrLink::A) < 2);  // LLR: its MAC TX FIFO
      if (pt.ready) ti.mac_tx_ready |= 1u << p;
      // credit_ok_i: the gate's elig_o, except that a frame is charged only at its eof transfer while
      // sue_tx may start the next frame as soon as it has loaded a beat into its output register (the MAC
      // may not have taken it yet): while a frame is uncharged (in progress, or its first beat presented
      // and not taken), its class also needs room for it.
      uint32_t ok = pt.elig & ((1u << kClasses) - 1);
      const sue::TxOut& po = *n.to;
      const int pend = pt.in_frame ? pt.cur_cls
                       : (((po.mac_tx_valid & po.mac_tx_sof) >> p) & 1u) ? (po.mac_tx_data[p][6] >> 4) & 3
                                                                          : -1;
      if (pend >= 0 && pend < static_cast<int>(kClasses) && pt.avail[pend] < 2 * mtu_cells_) ok &= ~(1u << pend);
      ti.credit_ok |= ok << (4 * p);
      if (!rst)
        for (unsigned c = 0; c < kClasses; ++c)
          if (!((ok >> c) & 1u)) fig_.nic_credit_stall[c] += cfg_.clock_ps;
      present(pt, t, ri.mac[p]);
    }
    ti.tx_valid = 0;
    if (!rst) {
      drive(n, ti);
      for (unsigned v = 0; v < kClasses; ++v)
        if (!n.ret[v].empty() && n.ret[v].front() <= cycle_) {
          ri.rx_credit |= 1u << v;
          n.ret[v].pop_front();
        }
    }
  }
  lap(prof_.xpu);
  // What is transferred at this edge: the pre-edge outputs with this edge's inputs.
  if (!rst)
    for (auto& np : nics_) {
      Nic& n = *np;
      const sue::TxOut& o = *n.to;
      for (unsigned p = 0; p < P; ++p) {
        if (((o.mac_tx_valid >> p) & 1u) && n.ports[p].ready) mac_tx(n, p, o, t);
        if (n.ri.mac[p].valid && ((n.ro->mac_rx_ready >> p) & 1u)) rx_taken(n, p, t);
      }
    }
  lap(prof_.net);
  if (waves_) dump(t - cfg_.clock_ps / 2);
  // The edge.
  for (auto& np : nics_) {
    Nic& n = *np;
    if (n.txm) {
      n.txm->tick(n.ti);
    } else {
      n.txb->drive(n.ti);
      if (n.ltx) n.ltx->set_time(cycle_, t);
      n.txb->posedge();
      n.to_copy = n.txb->outputs();
    }
  }
  lap(prof_.tx);
  for (auto& np : nics_) {
    Nic& n = *np;
    if (n.rxm) {
      n.rxm->tick(n.ri);
    } else {
      n.rxb->drive(n.ri);
      if (n.lrx) n.lrx->set_time(cycle_, t);
      n.rxb->posedge();
      n.ro_copy = n.rxb->outputs();
    }
  }
  lap(prof_.rx);
  if (waves_) dump(t);
  // After the edge: credits back to the XPUs, the receiving XPUs, the CBFC senders.
  for (auto& np : nics_) {
    Nic& n = *np;
    if (!rst) {
      const auto& cr = n.to->tx_credit;
      for (size_t q = 0; q < cr.size(); ++q) n.qcred[q] += cr[q];
      sink(n);
    }
    for (auto& pt : n.ports) tick_gate(pt, t);
  }
  lap(prof_.xpu);
  if (cfg_.pattern == Pattern::allreduce && !fig_.ar_done_cycle) {
    bool all = true;
    for (auto& x : xpus_) all &= x.ar_done;
    if (all) fig_.ar_done_cycle = cycle_ + 1;
  }
  ++cycle_;
}

// The switch of plane pl fails with every link to it (docs/system.md "Plane failure"): what it holds,
// what its wires (and LLR links) carry and the frames half through a MAC of its ports are lost; its port
// of every NIC goes down (port_up), so sue_tx and sue_rx declare it dead and SUE fails over to the other
// ports of the instance. The switch is no longer ticked.
void System::fail_plane(unsigned pl) {
  if (pl >= sw_.size() || plane_dead_[pl]) return;
  plane_dead_[pl] = 1;
  for (unsigned k = 0; k < sw_.size(); ++k)
    if (!plane_dead_[k]) {
      clock_plane_ = k;
      break;
    }
  // In the switch, or on a wire into it (injected with their arrival time).
  for (const sw::Packet& pk : sw_[pl]->held()) {
    ++fig_.failure_lost;
    release_frame(static_cast<uint32_t>(pk.id));
  }
  const unsigned M = cfg_.instances, P = cfg_.ports();
  for (unsigned a = 0; a < cfg_.xpus; ++a) kill_port(*nics_[static_cast<size_t>(a) * M + pl / P], pl % P);
}

// Mesh: the cable of port p between instance m of XPU a and its partner fails (both ends at once).
void System::fail_link(unsigned a, unsigned m, unsigned p) {
  const int b = mesh_peer(a, m);
  if (b < 0) return;  // refused by the settings: an instance without a partner has no cable
  const unsigned M = cfg_.instances;
  kill_port(*nics_[static_cast<size_t>(a) * M + m], p);
  kill_port(*nics_[static_cast<size_t>(b) * M + m], p);
}

// Port p of NIC n goes down with its link: a frame half through its MAC, what the link holds toward it
// (on the wire, being presented to sue_rx, in an LLR link) are lost; port_up falls.
void System::kill_port(Nic& n, unsigned p) {
  n.ti.port_up &= ~(1u << p);
  n.ri.port_up &= ~(1u << p);
  Port& pt = n.ports[p];
  if (pt.in_frame) {  // half through the NIC MAC
    ++fig_.failure_lost;
    release_frame(pt.cur);
    pt.in_frame = false;
  }
  pt.ready = false;
  pt.consume = false;
  pt.cu.clear();
  if (pt.llr) {  // the link's MAC TX FIFOs, replay buffers and wires (the link is no longer clocked)
    for (const sw::Packet& pk : pt.llr->held(sw::LlrLink::A)) {
      ++fig_.failure_lost;
      release_frame(static_cast<uint32_t>(pk.id));
    }
    for (const sw::Packet& pk : pt.llr->held(sw::LlrLink::B)) {  // already in the NIC buffer's count
      ++fig_.failure_lost;
      pt.rx_occ[pk.cls] -= cells(pk.bytes);
      release_frame(static_cast<uint32_t>(pk.id));
    }
  }
  // On the wire to the NIC or being presented to sue_rx: never taken now.
  for (const Port::In& r : pt.in) {
    ++fig_.failure_lost;
    pt.rx_occ[frames_[r.f].vc] -= cells(static_cast<uint32_t>(frames_[r.f].bytes.size()));
    release_frame(r.f);
  }
  pt.in.clear();
  pt.next = 0;
}

void System::stop_traffic() { close_window(nics_); }

bool System::idle() const {
  if (!net_idle()) return false;
  for (const auto& np : nics_) {
    const Nic& n = *np;
    if (n.busy || !n.req.empty() || !n.resp.empty() || n.as.act) return false;
    if (n.to->pool_used) return false;
    for (unsigned p = 0; p < cfg_.ports(); ++p)
      if (n.ro->rec_count[p] || n.ro->buf_rows[p] || n.ports[p].in_frame) return false;
  }
  return true;
}

std::string System::busy_reason() const {
  if (traffic_) return "traffic running";
  for (const auto& np : nics_) {
    const Nic& n = *np;
    const std::string who = fmt::format("XPU {} instance {}", n.xpu, n.inst);
    if (n.busy || !n.req.empty() || !n.resp.empty())
      return fmt::format("{}: {} requests and {} responses wait for the XPU interface", who, n.req.size() + n.busy,
                         n.resp.size());
    if (n.as.act) return who + ": the XPU sink is inside a command";
    if (n.to->pool_used)
      return fmt::format("{}: sue_tx holds {} command slots (queued, or sent and not acknowledged)", who,
                         n.to->pool_used);
    for (unsigned p = 0; p < cfg_.ports(); ++p) {
      if (n.ro->rec_count[p] || n.ro->buf_rows[p])
        return fmt::format("{}: sue_rx port {} holds {} frames in {} rows", who, p, n.ro->rec_count[p], n.ro->buf_rows[p]);
      if (n.ports[p].in_frame || !n.ports[p].in.empty()) return fmt::format("{}: frames at MAC port {}", who, p);
    }
  }
  if (std::string r = net_busy(); !r.empty()) return r;
  for (const auto& np : nics_)
    for (const Port& pt : np->ports)
      if (pt.llr && pt.llr->in_flight() && !plane_dead_[static_cast<size_t>(pt.plane)])
        return fmt::format("the LLR link of XPU {} on plane {} holds {} frames", pt.xpu, pt.plane, pt.llr->in_flight());
  if (live_frames_) return fmt::format("{} frames in the network", live_frames_);
  return "";
}

std::optional<Mismatch> System::mismatch() const {
  for (const auto& n : nics_) {
    if (n->ltx && n->ltx->mismatch()) return n->ltx->mismatch();
    if (n->lrx && n->lrx->mismatch()) return n->lrx->mismatch();
  }
  for (const auto* e : llr_rtl_)
    if (auto m = e->mismatch()) return m;
  return std::nullopt;
}

bool System::mismatched() const {
  for (const auto& n : nics_)
    if ((n->ltx && n->ltx->mismatch()) || (n->lrx && n->lrx->mismatch())) return true;
  for (const auto* e : llr_rtl_)
    if (e->mismatch()) return true;
  return false;
}

LinkFigures System::link_figures() const {
  LinkFigures r;

  for (const auto& n : nics_)
    for (const Port& pt : n->ports) {
      if (pt.llr) {
        ++r.llr_links;
        r.up += pt.llr->stats(sw::LlrLink::A);
        r.down += pt.llr->stats(sw::LlrLink::B);
      }
      add_faults(r, pt);
    }
  if (r.llr_links) {
    r.wire_frames = r.up.frames + r.up.frames_replayed + r.down.frames + r.down.frames_replayed;
    r.corrupted = r.up.bad_frames + r.down.bad_frames;
    r.dropped = r.up.dropped_frames + r.down.dropped_frames;
    r.llr_lost = r.up.lost_pkts + r.down.lost_pkts;
  }
  return r;
}

std::string System::model_assertion() const {
  for (const auto& n : nics_) {
    const std::string who = fmt::format("x{}i{}", n->xpu, n->inst);
    if (n->txm && !n->txm->assertion().empty()) return who + "_tx: " + n->txm->assertion();
    if (n->rxm && !n->rxm->assertion().empty()) return who + "_rx: " + n->rxm->assertion();
    if (n->ltx && !n->ltx->model().assertion().empty()) return who + "_tx: " + n->ltx->model().assertion();
    if (n->lrx && !n->lrx->model().assertion().empty()) return who + "_rx: " + n->lrx->model().assertion();
  }
  return "";
}

uint64_t System::tx_sum(unsigned i) const {
  uint64_t s = 0;
  for (const auto& n : nics_) s += n->to->cnt[i];
  return s;
}

uint64_t System::rx_sum(unsigned i) const {
  uint64_t s = 0;
  for (const auto& n : nics_) s += n->ro->cnt[i];
  return s;
}

uint64_t System::issued() const {
  uint64_t s = 0;
  for (auto& x : xs_) s += x.req_issued + x.resp_issued;
  for (const auto& n : nics_) s -= n->req.size() + n->resp.size() + (n->busy ? 1 : 0);
  return s;
}

std::string System::nic_errors() const {
  using T = sue::TxCnt;
  using R = sue::RxCnt;
  for (const auto& np : nics_) {
    const Nic& n = *np;
    const std::string who = fmt::format("XPU {} instance {}", n.xpu, n.inst);
    const auto& c = n.to->cnt;
    if (c[T::cmd_bad] || c[T::cmd_err] || c[T::cmd_overflow] || c[T::stray_cycles] || n.to->err_cmd || n.to->err_dest ||
        n.to->err_overflow)
      return fmt::format("{} sue_tx refused commands: cmd_bad {} cmd_err {} cmd_overflow {} stray {}", who, c[T::cmd_bad],
                         c[T::cmd_err], c[T::cmd_overflow], c[T::stray_cycles]);
    if (n.to->err_no_port) return who + " sue_tx: err_no_port";
    if (n.ro->err_credit) return who + " sue_rx: err_credit";
    const auto& r = n.ro->cnt;
    // Without LLR a wire fault shows as a bad FCS at the receiving MAC (drop_mac): allowed, and counted.
    const uint64_t mac = cfg_.faults.any() && !cfg_.llr ? 0 : r[R::drop_mac];
    // A frame half through sue_rx when its port goes down is dropped as dead (fail_plane, fail_link).
    const uint64_t dead = cfg_.failing() ? 0 : r[R::drop_dead];
    if (mac || r[R::drop_malformed] || r[R::drop_rcrc] || r[R::drop_hdr] || dead || r[R::stray_beats])
      return fmt::format("{} sue_rx dropped frames {}: mac {} malformed {} rcrc {} hdr {} dead {} stray beats {}", who,
                         cfg_.faults.any() ? (cfg_.llr ? "that the LLR should have repaired" : "that the wire faults do not explain")
                                           : "without faults", r[R::drop_mac], r[R::drop_malformed], r[R::drop_rcrc], r[R::drop_hdr], r[R::drop_dead],
                         r[R::stray_beats]);
  }
  return "";
}

}  // namespace tb::system_tb
