// sw::Dragonfly: routers are sw::Switch instances, channels are fixed delays,
// VCs are switch classes. See docs/switch.md "Dragonfly".
#include "switch/dragonfly.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sw {

namespace {
constexpr unsigned kVcs = 6;                 // hop-count VCs 0..5 (Valiant: l g l g l = 5 router hops)
constexpr uint32_t kNonMin = 1u << 31;       // route_state: non-minimal route chosen
constexpr uint32_t kRevised = 1u << 30;      // route_state: PAR, diverted at the second router of the source group
constexpr uint32_t kInterMask = 0xffffu;     // route_state: intermediate group + 1 (0 = none / reached)
constexpr unsigned kHopShift = 16;           // route_state bits 16..23: router-to-router hops taken
constexpr uint32_t kHopMask = 0xffu << kHopShift;
constexpr unsigned kSrcShift = 40;           // tag = src << 40 | creation cycle
// PAR-6/2 VC ladder (docs/switch.md "Dragonfly", VC assignment): local VC = 2 x global
// hops so far + local hops so far in the current group, global VC = global hops so far.
constexpr unsigned kParLocalVcs = 6, kParGlobalVcs = 2;
unsigned hops_of(uint32_t route_state) { return (route_state & kHopMask) >> kHopShift; }
}  // namespace

const char* to_string(DfRouting r) {
  switch (r) {
    case DfRouting::minimal: return "minimal";
    case DfRouting::valiant: return "valiant";
    case DfRouting::ugal: return "ugal-l";
    case DfRouting::par: return "par";
  }
  return "?";
}

bool parse_routing(const std::string& s, DfRouting* out) {
  if (s == "minimal") *out = DfRouting::minimal;
  else if (s == "valiant") *out = DfRouting::valiant;
  else if (s == "ugal" || s == "ugal-l") *out = DfRouting::ugal;
  else if (s == "par") *out = DfRouting::par;
  else return false;
  return true;
}

const char* to_string(DfParSignal s) { return s == DfParSignal::credits ? "credits" : "queue"; }

bool parse_par_signal(const std::string& s, DfParSignal* out) {
  if (s == "queue") *out = DfParSignal::queue;
  else if (s == "credits") *out = DfParSignal::credits;
  else return false;
  return true;
}

const char* to_string(DfTraffic t) { return t == DfTraffic::shift ? "shift" : "uniform"; }

std::string DragonflyParams::validate() const {
  if (g < 2 || g > 4096) return fmt::format("g={} out of range (allowed 2..4096)", g);
  if (a < 1 || p < 1 || h < 1) return fmt::format("a={} p={} h={}: each must be >= 1", a, p, h);
  if (radix() > kMaxRadix)
    return fmt::format("p+a-1+h={} router ports out of range (allowed 1..{})", radix(), kMaxRadix);
  if ((a * h) % (g - 1) != 0)
    return fmt::format("g={} not allowed with a*h={} global links per group (allowed: g-1 divides a*h, e.g. g={})", g,
                       a * h, a * h + 1);
  if (endpoints() > 65536) return fmt::format("g*a*p={} endpoints out of range (allowed 1..65536)", endpoints());
  if (routing != DfRouting::minimal && g < 3)
    return fmt::format("routing={} needs g >= 3 (an intermediate group), got g={}", to_string(routing), g);
  if (local_cycles < 1 || global_cycles < 1 || endpoint_cycles < 1)
    return fmt::format("channel latencies local={} global={} endpoint={} cycles out of range (allowed >= 1)",
                       local_cycles, global_cycles, endpoint_cycles);
  if (router_cycles > 1000) return fmt::format("router_cycles={} out of range (allowed 0..1000)", router_cycles);
  if (min_flits < 1 || max_flits < min_flits || max_flits > 64)
    return fmt::format("min_flits={} max_flits={} out of range (allowed 1 <= min <= max <= 64)", min_flits, max_flits);
  if (vc_buf_flits < max_flits || vc_buf_flits > 32767)
    return fmt::format("vc_buf_flits={} out of range (allowed {}..32767)", vc_buf_flits, max_flits);
  if (par_signal != DfParSignal::queue && par_signal != DfParSignal::credits)
    return fmt::format("par_signal={} not allowed (allowed {})", static_cast<unsigned>(par_signal), par_signal_choices());
  if (!(load >= 0.0 && load <= 1.0)) return fmt::format("load={} out of range (allowed 0..1 flits/endpoint/cycle)", load);
  return "";
}

Params DragonflyParams::router_params() const {
  Params r;
  r.radix = radix();
  r.port_gbps = 800;
  r.lane_gbps = 200;
  r.flit_bytes = 128;
  r.core_mhz = 781.25;  // 1280 ps: one 128 B flit at 800 Gb/s per cycle
  r.mtu_bytes = max_flits * 128;
  r.max_xpus = endpoints();
  r.overhead_bytes = 0;
  r.forwarding = Forwarding::cut_through;
  r.fc = FlowControl::cbfc;
  r.num_classes = kVcs;
  for (unsigned c = 0; c < kVcs; ++c) r.classes[c] = ClassCfg{true, 0, 1, false, 1.0};
  r.rx_phy_ns = r.rx_mac_ns = r.parse_ns = r.admit_ns = r.sched_ns = 0;
  r.xbar_ns = r.egress_ns = r.tx_mac_ns = r.tx_phy_ns = 0;
  r.lookup_ns = 1.28 * router_cycles;  // the whole router pipeline, in whole cycles
  r.cbfc_buf_cells = r.cbfc_downstream_cells = vc_buf_flits;
  r.buffer_bytes = (static_cast<uint64_t>(radix()) * kVcs * vc_buf_flits + radix() * max_flits + 64) * 128;
  r.sample_cycles = 1u << 30;  // no periodic queue sampling (memory at 264 routers)
  r.seed = seed;
  return r;
}

struct Dragonfly::Endpoint {
  std::deque<Packet> q;      // injection queue
  uint64_t wire_free = 0;    // cycle the injection channel is free
  uint32_t limit = 0, consumed = 0;  // CBFC class-0 credits toward the router (16-bit cumulative)
  std::deque<std::pair<Ps, uint32_t>> cu;
  std::array<uint32_t, kMaxClasses> sink_limit{};
  uint64_t next_gen = 0;
  core::Rng rng;
  explicit Endpoint(core::Rng r) : rng(std::move(r)) {}
};

Dragonfly::Dragonfly(const DragonflyParams& dp)
    : dp_(dp), route_rng_(dp.seed, "dragonfly.route"), sb_("dragonfly", /*ordered=*/false) {
  const std::string err = dp_.validate();
  if (!err.empty()) throw std::invalid_argument("dragonfly: " + err);
  rp_ = dp_.router_params();
  const std::string rerr = rp_.validate();
  if (!rerr.empty()) throw std::invalid_argument("dragonfly: router " + rerr);
  P_ = rp_.period();
  R_ = dp_.radix();
  build_tables();
  for (unsigned r = 0; r < dp_.routers(); ++r) {
    routers_.push_back(std::make_unique<Switch>(rp_));
    routers_.back()->set_route_fn([this, r](Switch& s, Packet& pk) { return route(r, s, pk); });
  }
  eps_.reserve(dp_.endpoints());
  for (unsigned e = 0; e < dp_.endpoints(); ++e) {
    eps_.emplace_back(core::Rng(dp_.seed, fmt::format("dragonfly.src.{}", e)));
    Endpoint& x = eps_.back();
    x.limit = dp_.vc_buf_flits;
    x.sink_limit.fill(dp_.vc_buf_flits);
    x.next_gen = 0;
  }
  // first arrivals
  const double mean_flits = 0.5 * (dp_.min_flits + dp_.max_flits);
  const double q = dp_.load / mean_flits;
  for (auto& x : eps_) {
    if (q <= 0) {
      x.next_gen = UINT64_MAX;
    } else if (q >= 1) {
      x.next_gen = 0;
    } else {
      x.next_gen = static_cast<uint64_t>(std::floor(std::log(1.0 - x.rng.real()) / std::log(1.0 - q)));
    }
  }
}

Dragonfly::~Dragonfly() = default;

// ------------------------------------------------------------------ topology

unsigned Dragonfly::local_port(unsigned r_from, unsigned r_to) const {
  const unsigned lf = r_from % dp_.a, lt = r_to % dp_.a;
  return dp_.p + (lt < lf ? lt : lt - 1);
}

Dragonfly::Peer Dragonfly::peer(unsigned r, unsigned port) const {
  if (!peer_tab_.empty()) return peer_tab_[static_cast<size_t>(r) * R_ + port];
  return peer_calc(r, port);
}

Dragonfly::Peer Dragonfly::peer_calc(unsigned r, unsigned port) const {
  const unsigned a = dp_.a, p = dp_.p, h = dp_.h, g = dp_.g;
  if (port < p) return {r, port};
  const unsigned G = r / a, l = r % a;
  if (port < p + a - 1) {
    const unsigned idx = port - p;
    const unsigned lo = idx < l ? idx : idx + 1;
    const unsigned r2 = G * a + lo;
    return {r2, local_port(r2, r)};
  }
  // Consecutive ("palm tree") arrangement: link k = l*h + j of group G goes to group
  // G + (k mod (g-1)) + 1 (mod g), and arrives there as link m*(g-1) + (g-1-o).
  const unsigned k = l * h + (port - (p + a - 1));
  const unsigned o = k % (g - 1) + 1, m = k / (g - 1);
  const unsigned D = (G + o) % g;
  const unsigned k2 = m * (g - 1) + (g - 1 - o);
  return {D * a + k2 / h, p + a - 1 + k2 % h};
}

Dragonfly::Peer Dragonfly::global_owner(unsigned from, unsigned to, unsigned copy) const {
  const unsigned o = (to + dp_.g - from) % dp_.g;
  const unsigned k = copy * (dp_.g - 1) + o - 1;
  return {from * dp_.a + k / dp_.h, k % dp_.h};
}

void Dragonfly::build_tables() {
  const unsigned g = dp_.g, copies = links_per_pair();
  copies_ = copies;
  peer_tab_.resize(static_cast<size_t>(dp_.routers()) * R_);
  for (unsigned r = 0; r < dp_.routers(); ++r)
    for (unsigned port = 0; port < R_; ++port) peer_tab_[static_cast<size_t>(r) * R_ + port] = peer_calc(r, port);
  link_tab_.assign(static_cast<size_t>(g) * g * copies, Link{});
  for (unsigned from = 0; from < g; ++from)
    for (unsigned to = 0; to < g; ++to) {
      if (to == from) continue;
      for (unsigned c = 0; c < copies; ++c) {
        const Peer own = global_owner(from, to, c);
        const unsigned port = dp_.p + dp_.a - 1 + own.port;
        link_tab_[(static_cast<size_t>(from) * g + to) * copies + c] = {own.router, port, peer(own.router, port).router};
      }
    }
}

unsigned Dragonfly::port_toward_group(unsigned r, unsigned tg, unsigned dst) const {
  const Link& l = link(r / dp_.a, tg, dst);
  return l.owner == r ? l.port : local_port(r, l.owner);
}

// Closed form of walking the route (minimal inside every group: <= 1 local hop
// to the owner of the channel toward the target group, the channel, then on).
unsigned Dragonfly::min_hops(unsigned r, unsigned dst) const {
  const unsigned Rd = dst / dp_.p, Gd = Rd / dp_.a, G = r / dp_.a;
  if (G == Gd) return r != Rd;
  const Link& l = link(G, Gd, dst);
  return (l.owner != r) + 1 + (l.arrival != Rd);
}

unsigned Dragonfly::path_hops(unsigned r, int inter, unsigned dst) const {
  const unsigned G = r / dp_.a;
  if (inter < 0 || static_cast<unsigned>(inter) == G) return min_hops(r, dst);
  const Link& l = link(G, static_cast<unsigned>(inter), dst);
  return (l.owner != r) + 1 + min_hops(l.arrival, dst);
}

// ------------------------------------------------------------------ routing

uint64_t Dragonfly::occupancy(const Switch& s, unsigned port) const {
  uint64_t n = 0;
  for (unsigned c = 0; c < kVcs; ++c) {
    n += s.stats(port, c).q_bytes / rp_.flit_bytes;                    // waiting here
    n += dp_.vc_buf_flits - s.egress_avail_credits(port, c);           // downstream + in flight
  }
  return n;
}

int Dragonfly::route(unsigned r, Switch& s, Packet& pk) {
  if (dp_.routing == DfRouting::par) return route_par(r, s, pk);
  const unsigned a = dp_.a, g = dp_.g;
  const unsigned G = r / a;
  const unsigned dst = pk.dst_xpu, Rd = dst / dp_.p, Gd = Rd / a;
  if (pk.cls == 0 && Gd != G && dp_.routing != DfRouting::minimal) {
    // Source router: pick an intermediate group != source, destination.
    unsigned I = static_cast<unsigned>(route_rng_.uniform(0, g - 3));
    if (I >= std::min(G, Gd)) ++I;
    if (I >= std::max(G, Gd)) ++I;
    bool nonmin = true;
    if (dp_.routing == DfRouting::ugal) {
      const uint64_t qm = occupancy(s, port_toward_group(r, Gd, dst));
      const uint64_t qn = occupancy(s, port_toward_group(r, I, dst));
      const uint64_t hm = path_hops(r, -1, dst), hn = path_hops(r, static_cast<int>(I), dst);
      nonmin = qm * hm > qn * hn + dp_.ugal_threshold;
    }
    if (nonmin) pk.route_state = (pk.route_state & kHopMask) | kNonMin | (I + 1);
  }
  uint32_t inter = pk.route_state & kInterMask;
  if (inter != 0 && inter - 1 == G) {
    pk.route_state &= ~kInterMask;
    inter = 0;
  }
  const unsigned tg = inter ? inter - 1 : Gd;
  if (G == tg) return r == Rd ? static_cast<int>(dst % dp_.p) : static_cast<int>(local_port(r, Rd));
  return static_cast<int>(port_toward_group(r, tg, dst));
}

uint64_t Dragonfly::queue_flits(const Switch& s, unsigned port) const {
  uint64_t n = 0;
  for (unsigned c = 0; c < kVcs; ++c) n += s.stats(port, c).q_bytes;
  return n / rp_.flit_bytes;
}

// PAR-6/2. The phase of a packet follows from the port and VC it arrived on
// (VC ladder, see the constants above): endpoint port: source router; local VC v:
// v/2 global hops taken, v%2+1 local hops in this group; global VC v: v+1 global
// hops, none local yet. Decisions compare the congestion estimate of the first
// output of each path (par_signal: this router's egress queue, or that plus the
// credits in use toward the downstream) times the path's remaining hops, UGAL-style.
int Dragonfly::route_par(unsigned r, Switch& s, Packet& pk) {
  const unsigned a = dp_.a, g = dp_.g, p = dp_.p;
  const unsigned G = r / a;
  const unsigned dst = pk.dst_xpu, Rd = dst / p, Gd = Rd / a;
  const unsigned in = pk.src_port, v = pk.cls;
  unsigned gh = 0, lh = 0;  // global hops so far, local hops so far in this group
  if (in >= p + a - 1) {
    gh = v + 1;
  } else if (in >= p) {
    gh = v / 2;
    lh = v % 2 + 1;
  }
  // Source router (lh = 0) or, still minimal, the next router of the source group
  // (lh = 1, progressive re-evaluation): minimal or Valiant via a random group.
  if (gh == 0 && lh <= 1 && Gd != G && (pk.route_state & kNonMin) == 0) {
    unsigned I = static_cast<unsigned>(route_rng_.uniform(0, g - 3));
    if (I >= std::min(G, Gd)) ++I;
    if (I >= std::max(G, Gd)) ++I;
    const bool credits = dp_.par_signal == DfParSignal::credits;
    const unsigned pm = port_toward_group(r, Gd, dst), pn = port_toward_group(r, I, dst);
    const uint64_t qm = credits ? occupancy(s, pm) : queue_flits(s, pm);
    const uint64_t qn = credits ? occupancy(s, pn) : queue_flits(s, pn);
    const uint64_t hm = path_hops(r, -1, dst), hn = path_hops(r, static_cast<int>(I), dst);
    if (qm * hm > qn * hn + dp_.par_threshold)
      pk.route_state = (pk.route_state & kHopMask) | kNonMin | (lh ? kRevised : 0u) | (I + 1);
  }
  uint32_t inter = pk.route_state & kInterMask;
  if (inter != 0 && inter - 1 == G) {
    pk.route_state &= ~kInterMask;
    inter = 0;
  }
  const unsigned tg = inter ? inter - 1 : Gd;
  unsigned port;
  if (G == tg) {
    if (r == Rd) return static_cast<int>(dst % p);  // ejection: VC unchanged (the sink always drains)
    port = local_port(r, Rd);
  } else {
    port = port_toward_group(r, tg, dst);
  }
  // Output VC (the switch keeps the ingress buffer on the arrival VC).
  const bool global = port >= p + a - 1;
  const unsigned vc = global ? gh : 2 * gh + lh;
  if ((global && gh >= kParGlobalVcs) || (!global && (lh >= 2 || vc >= kParLocalVcs)))
    throw std::logic_error(fmt::format("dragonfly: PAR packet {} at router {} leaves the 6/2 VC ladder ({} global, {} "
                                       "local hops in this group, next {})",
                                       pk.id, r, gh, lh, global ? "global" : "local"));
  pk.cls = static_cast<uint8_t>(vc);
  return static_cast<int>(port);
}

// ------------------------------------------------------------------ traffic

uint64_t Dragonfly::enqueue(unsigned src, unsigned dst, unsigned flits) {
  Packet pk;
  pk.id = next_id_++;
  pk.tag = (static_cast<uint64_t>(src) << kSrcShift) | cycle_;
  pk.dst_xpu = dst;
  pk.bytes = flits * rp_.flit_bytes;
  pk.cls = 0;
  if (dp_.scoreboard) sb_.expect(src, pk.id, pk.tag, static_cast<Ps>(cycle_) * P_);
  eps_[src].q.push_back(pk);
  ++outstanding_;
  ++off_pkts_;
  off_flits_ += flits;
  return pk.id;
}

void Dragonfly::offer(unsigned src, unsigned dst, unsigned flits) {
  if (src >= dp_.endpoints() || dst >= dp_.endpoints() || flits < 1 || flits > dp_.max_flits)
    throw std::invalid_argument(fmt::format("dragonfly: offer src={} dst={} flits={} out of range", src, dst, flits));
  enqueue(src, dst, flits);
}

uint64_t Dragonfly::offer(unsigned src, unsigned dst, unsigned flits, uint64_t tag) {
  if (src >= dp_.endpoints() || dst >= dp_.endpoints() || flits < 1 || flits > dp_.max_flits)
    throw std::invalid_argument(fmt::format("dragonfly: offer src={} dst={} flits={} out of range", src, dst, flits));
  const uint64_t id = enqueue(src, dst, flits);
  if (tag) tags_[id] = tag;
  return id;
}

std::size_t Dragonfly::queued(unsigned src) const { return eps_.at(src).q.size(); }

void Dragonfly::tick() {
  const Ps T = static_cast<Ps>(cycle_) * P_;
  const Ps E = static_cast<Ps>(dp_.endpoint_cycles) * P_;
  const unsigned N = dp_.endpoints(), p = dp_.p;
  const double q = dp_.load / (0.5 * (dp_.min_flits + dp_.max_flits));
  const double lq = q < 1 ? std::log(1.0 - q) : 0;
  const bool ladder = dp_.routing == DfRouting::par;  // VC chosen per hop (6/2 ladder) instead of hop count

  // 1. Endpoints: generate, take credits, inject (one flit per cycle per channel).
  for (unsigned e = 0; e < N; ++e) {
    Endpoint& x = eps_[e];
    while (gen_on_ && x.next_gen <= cycle_) {
      unsigned dst;
      if (dp_.traffic == DfTraffic::shift) {  // adversarial: group i -> a random endpoint of group i+1
        const unsigned per = dp_.a * p;
        dst = (e / per + 1) % dp_.g * per + static_cast<unsigned>(x.rng.uniform(0, per - 1));
      } else {
        dst = static_cast<unsigned>(x.rng.uniform(0, N - 2));
        if (dst >= e) ++dst;
      }
      const unsigned fl = static_cast<unsigned>(x.rng.uniform(dp_.min_flits, dp_.max_flits));
      enqueue(e, dst, fl);
      x.next_gen += q >= 1 ? 1 : 1 + static_cast<uint64_t>(std::floor(std::log(1.0 - x.rng.real()) / lq));
    }
    while (!x.cu.empty() && x.cu.front().first <= T) {
      x.limit = x.cu.front().second;
      x.cu.pop_front();
    }
    if (x.q.empty() || x.wire_free > cycle_) continue;
    Packet& pk = x.q.front();
    const uint32_t cells = pk.bytes / rp_.flit_bytes;
    if (((x.limit - x.consumed) & 0xffffu) < cells) continue;
    x.consumed = (x.consumed + cells) & 0xffffu;
    x.wire_free = cycle_ + cells;
    pk.t_in = T + E;
    pk.t_in_last = -1;
    routers_[e / p]->inject(e % p, pk);
    x.q.pop_front();
  }

  // 2. Routers; their outputs travel over the channels.
  for (unsigned r = 0; r < routers_.size(); ++r) {
    Switch& s = *routers_[r];
    s.tick();
    for (const Packet& d : s.departures()) {
      const unsigned e = static_cast<unsigned>(d.egress_port);
      if (e < p) {  // ejection
        const unsigned ep = r * p + e;
        Endpoint& x = eps_[ep];
        const uint32_t cells = d.bytes / rp_.flit_bytes;
        x.sink_limit[d.cls] = (x.sink_limit[d.cls] + cells) & 0xffffu;
        s.credit_in(e, d.cls, x.sink_limit[d.cls], d.t_tail_out + 2 * E);
        const Ps t_arr = d.t_tail_out + E;
        const unsigned src = static_cast<unsigned>(d.tag >> kSrcShift);
        const uint64_t created = d.tag & ((uint64_t{1} << kSrcShift) - 1);
        if (d.dst_xpu != ep) ++misrouted_;
        if (dp_.scoreboard) sb_.observe(src, d.id, d.tag, t_arr);
        --outstanding_;
        ++del_pkts_;
        del_flits_ += cells;
        const uint64_t lat = static_cast<uint64_t>((t_arr + P_ - 1) / P_) - created;
        lat_.add(static_cast<double>(lat));
        const unsigned hops = hops_of(d.route_state);
        hmin_ = std::min(hmin_, hops);
        hmax_ = std::max(hmax_, hops);
        const bool nm = (d.route_state & kNonMin) != 0;
        nonmin_ += nm;
        if (keep_log_) log_.push_back({src, ep, hops, cells, nm, lat});
        if (on_deliver) {  // delivery API
          uint64_t tag = 0;
          if (auto it = tags_.find(d.id); it != tags_.end()) {
            tag = it->second;
            tags_.erase(it);
          }
          on_deliver(static_cast<uint64_t>((t_arr + P_ - 1) / P_), src, ep, tag);
        }
        continue;
      }
      const Peer pr = peer(r, e);
      const Ps L = static_cast<Ps>(e < p + dp_.a - 1 ? dp_.local_cycles : dp_.global_cycles) * P_;
      Packet n = d;
      n.route_state += 1u << kHopShift;
      if (!ladder) {
        n.cls = static_cast<uint8_t>(d.cls + 1);  // VC = router-to-router hops taken
        if (n.cls >= kVcs) throw std::logic_error(fmt::format("dragonfly: packet {} exceeds {} VCs", d.id, kVcs));
      }  // PAR: the VC the upstream's route hook picked (d.cls)
      if (hop_hook_) hop_hook_({d.id, r, e, e >= p + dp_.a - 1, n.cls, hops_of(n.route_state)});
      n.t_in = d.t_head_out + L;
      n.t_in_last = d.t_tail_out + L;
      routers_[pr.router]->inject(pr.port, n);
    }
    for (const FcMsg& m : s.fc_out()) {
      if (m.kind != FcMsg::Kind::credit) continue;
      if (m.port < p) {
        if (m.cls == 0) eps_[r * p + m.port].cu.emplace_back(m.t + E, m.value);
        continue;
      }
      const Peer pr = peer(r, m.port);
      const Ps L = static_cast<Ps>(m.port < p + dp_.a - 1 ? dp_.local_cycles : dp_.global_cycles) * P_;
      if (ladder) {  // PAR: the same VC on both ends of the channel
        routers_[pr.router]->credit_in(pr.port, m.cls, m.value, m.t + L);
        continue;
      }
      if (m.cls == 0) throw std::logic_error("dragonfly: VC 0 credit on a router-to-router channel");
      routers_[pr.router]->credit_in(pr.port, m.cls - 1u, m.value, m.t + L);  // VC k+1 here = VC k upstream
    }
    drops_ += s.drops().size();
  }
  ++cycle_;
}

bool Dragonfly::drain(uint64_t limit_cycles) {
  gen_on_ = false;
  for (uint64_t i = 0; i < limit_cycles && outstanding_ != 0; ++i) tick();
  return outstanding_ == 0;
}

// ------------------------------------------------------------------ stats

void Dragonfly::reset_stats() {
  st_start_ = cycle_;
  off_pkts_ = off_flits_ = del_pkts_ = del_flits_ = nonmin_ = 0;
  hmin_ = ~0u;
  hmax_ = 0;
  lat_ = core::Samples{};
}

DfStats Dragonfly::stats() const {
  DfStats s;
  s.cycles = cycle_ - st_start_;
  s.offered_pkts = off_pkts_;
  s.offered_flits = off_flits_;
  s.delivered_pkts = del_pkts_;
  s.delivered_flits = del_flits_;
  const double den = static_cast<double>(s.cycles) * dp_.endpoints();
  if (den > 0) {
    s.offered_rate = static_cast<double>(off_flits_) / den;
    s.accepted_rate = static_cast<double>(del_flits_) / den;
  }
  if (!lat_.empty()) {
    s.lat_mean = lat_.mean();
    s.lat_p99 = lat_.percentile(99);
    s.lat_max = lat_.max();
  }
  s.hops_min = del_pkts_ ? hmin_ : 0;
  s.hops_max = hmax_;
  s.nonminimal_share = del_pkts_ ? static_cast<double>(nonmin_) / static_cast<double>(del_pkts_) : 0;
  s.drops = drops_ + misrouted_;
  return s;
}

}  // namespace sw
