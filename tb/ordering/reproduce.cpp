// `cosim reproduce ordering`: docs/ordering.md "Reproducing the paper".
#include "ordering/reproduce.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <sstream>
#include <unordered_map>

#include "core/rng.hpp"
#include "core/settings.hpp"
#include "core/stats.hpp"
#include "uet/dragonfly_net.hpp"
#include "uet/ordering.hpp"

extern char** environ;

namespace tb::reproduce {

namespace {

[[noreturn]] void usage(const std::string& s) { throw core::UsageError(s); }

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// ------------------------------------------------------------------ statistics

struct MeanStd {
  double mean = 0, std = 0;  // population standard deviation (the paper's bars)
  std::size_t n = 0;
};
MeanStd mean_std(const std::vector<double>& v) {
  MeanStd m;
  m.n = v.size();
  if (v.empty()) return m;
  m.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  double s = 0;
  for (double x : v) s += (x - m.mean) * (x - m.mean);
  m.std = std::sqrt(s / static_cast<double>(v.size()));
  return m;
}

std::string pct(double x) { return fmt::format("{:.1f}%", 100.0 * x); }

// ------------------------------------------------------------------ the fabric

// The paper's network: 1,056 endpoints, 33 groups of 8 routers with 4 endpoints, 7 local
// and 4 global channels each; local 40 ns, global 500 ns, 1 flit/ns, 6 VCs. --quick: 9
// groups with one global channel per router (288 endpoints): the same group (8 x 4
// endpoints), the same channel latencies, one channel per group pair, 7 intermediate
// groups instead of 31.
struct Fab {
  sw::DragonflyParams dp;
  unsigned dst_group = 0;  // the remote group of every experiment
  unsigned ep(unsigned group, unsigned idx) const { return group * dp.a * dp.p + idx; }
  unsigned per_group() const { return dp.a * dp.p; }
};

// extra_bias: flits of extra bias toward minimal routes (11c bursty), added to UGAL-L's threshold (0) and PAR's.
Fab make_fab(const Config& c, unsigned max_flits, unsigned extra_bias = 0) {
  Fab f;
  sw::DragonflyParams& d = f.dp;
  if (c.quick) {
    d.g = 9;
    d.a = 8;
    d.p = 4;
    d.h = 1;
  }  // else the defaults: the paper's 33 x 8 x 4, h = 4
  d.local_cycles = 40;
  d.global_cycles = 500;
  d.endpoint_cycles = 1;
  d.router_cycles = 0;
  d.min_flits = 1;
  d.max_flits = max_flits;
  d.load = 0;  // no background traffic (the paper: none)
  d.routing = c.routing;
  d.ugal_threshold = extra_bias;
  d.par_threshold = c.par_threshold + extra_bias;
  d.par_signal = c.par_signal;
  d.seed = c.seed;
  d.scoreboard = true;
  // Group 0 to group g/2: a local-global-local minimal path from router 0 (the global
  // channel toward it belongs to router 3 of group 0, it lands on router 4 there).
  f.dst_group = d.g / 2;
  return f;
}

// Gates an endpoint's new REQs by an arrival process (packets becoming available at the
// source): every cycle, with probability p, `batch` more REQs may go. Retransmissions
// and control packets take no token; control packets never wait (see bypass).
class Paced final : public uet::Fabric {
 public:
  explicit Paced(std::unique_ptr<uet::DragonflyNet> n) : n_(std::move(n)), pace_(n_->endpoints()) {}
  void pace(uint32_t ep, double p, unsigned batch, uint64_t seed) {
    Pace& x = pace_.at(ep);
    x.on = p > 0;
    x.p = p;
    x.batch = batch;
    x.rng = std::make_unique<core::Rng>(seed, fmt::format("reproduce.pace.{}", ep));
  }
  /// true: the endpoint may send even without a token (it has a FIN to send).
  std::function<bool(uint32_t ep)> bypass;
  bool can_send(uint32_t ep, uint64_t now) const override {
    if (!n_->can_send(ep, now)) return false;
    const Pace& x = pace_[ep];
    return !x.on || x.tokens > 0 || (bypass && bypass(ep));
  }
  void send(const uet::Packet& p, uint64_t now) override {
    Pace& x = pace_[p.src];
    if (x.on && p.type == uet::PktType::Req && p.attempt == 1) --x.tokens;
    n_->send(p, now);
  }
  void advance(uint64_t now) override {
    for (Pace& x : pace_)
      if (x.on && x.rng->chance(x.p)) x.tokens += x.batch;
    n_->advance(now);
  }
  bool poll(uint32_t ep, uint64_t now, uet::Packet& out) override { return n_->poll(ep, now, out); }
  std::size_t in_flight() const override { return n_->in_flight(); }
  const uet::FabricStats& stats() const override { return n_->stats(); }
  uint64_t lifetime() const override { return n_->lifetime(); }
  uet::DragonflyNet& net() { return *n_; }

 private:
  struct Pace {
    bool on = false;
    double p = 0;
    unsigned batch = 1;
    int64_t tokens = 0;
    std::unique_ptr<core::Rng> rng;
  };
  std::unique_ptr<uet::DragonflyNet> n_;
  std::vector<Pace> pace_;
};

// The protocol parameters of the experiments: the paper's reorder buffer (50 packets);
// no endpoint delays (memory latency 0: "no delays occur when the target returns an
// ACK"); no outstanding limit unless an experiment sets one (127: the largest the 8-bit
// SEQ allows); a packet lifetime far above any latency seen, so nothing expires.
uet::SystemParams base_params(const Config& c, unsigned sources, unsigned targets, unsigned flits) {
  uet::SystemParams p;
  p.sources = sources;
  p.targets = targets;
  p.seed = c.seed;
  p.max_cycles = 1000000000;
  p.net.flits = flits;
  p.net.ctrl_flits = 1;
  p.net.lifetime = 200000;
  p.tgt.rob.capacity = 50;
  p.tgt.rob.cid_bits = 6;  // 64 source connections
  p.tgt.rob.seq_bits = 8;
  p.tgt.rob.num_conn = 64;
  p.tgt.mem_latency = 0;
  p.tgt.window = 127;
  p.src.max_outstanding = 127;
  p.src.num_cids = 16;
  p.src.max_active = 4;
  p.src.req_timeout = p.src.fin_timeout = 2 * p.net.lifetime + 1000;
  p.work.transfers_per_source = 0;
  return p;
}

// The OrderingSystem over the Dragonfly, with the measurements the experiments need.
struct ProtoRun {
  uet::SystemParams sp;
  Fab fab;
  std::unique_ptr<uet::OrderingSystem> sys;
  Paced* fabric = nullptr;
  uet::DragonflyNet* net = nullptr;
  std::unordered_map<uint32_t, uint64_t> first_send;  // REQ token -> cycle of its first transmission
  std::vector<uint64_t> new_reqs;                     // per source: REQs sent for the first time

  ProtoRun(const uet::SystemParams& p, const Fab& f, const std::vector<unsigned>& placement) : sp(p), fab(f) {
    sys = std::make_unique<uet::OrderingSystem>(sp, nullptr, [&](const uet::SystemParams& q) {
      auto n = std::make_unique<uet::DragonflyNet>(q.net, fab.dp, placement, q.seed);
      net = n.get();
      auto w = std::make_unique<Paced>(std::move(n));
      fabric = w.get();
      return w;
    });
    new_reqs.assign(sp.sources, 0);
    net->observer = [this](uint64_t now, const uet::Packet& pk, uet::DragonflyNet::Event e) {
      if (e != uet::DragonflyNet::Event::Sent || pk.type != uet::PktType::Req || pk.attempt != 1) return;
      first_send.emplace(pk.token, now);
      if (pk.src < new_reqs.size()) ++new_reqs[pk.src];
    };
  }
  uint64_t now() const { return sys->now(); }
  void step() { sys->step(); }
  /// Steps until every transfer is complete and the fabric is empty (or `limit` cycles).
  uet::Report finish(uint64_t limit) {
    const uint64_t end = sys->now() + limit;
    while (sys->now() < end && !sys->quiescent()) sys->step();
    return sys->check();
  }
  uint64_t send_of(uint64_t tid, unsigned i) const {
    auto it = first_send.find(sys->transfer(tid).ops.at(i).token);
    return it == first_send.end() ? 0 : it->second;
  }
  /// Out-of-order share at the targets: REQs the ROB held / REQs the ROB took.
  double ooo_share() const {
    uint64_t held = 0, took = 0;
    for (unsigned t = 0; t < sp.targets; ++t) {
      const uet::TargetStats& s = sys->target(t).stats();
      held += s.held;
      took += s.held + s.delivered;
    }
    return took ? static_cast<double>(held) / static_cast<double>(took) : 0.0;
  }
};

// The baselines outside the protocol: unordered REQs (delivered in the order they arrive,
// each acknowledged) and the source-side flush (a synchronization REQ sent only after
// every data REQ of its stream was acknowledged). Same fabric, same packet sizes.
class RawRun {
 public:
  RawRun(const Config& c, const Fab& f, const std::vector<unsigned>& placement, unsigned sources, unsigned flits)
      : sources_(sources) {
    uet::NetParams np;
    np.flits = flits;
    np.ctrl_flits = 1;
    np.lifetime = 200000;
    net_ = std::make_unique<uet::DragonflyNet>(np, f.dp, placement, c.seed);
    const unsigned n = static_cast<unsigned>(placement.size());
    q_.resize(n);
    out_.resize(n);
  }
  /// A stream of `len` REQs from source s to target t (indices); flush: the last one is a
  /// synchronization REQ sent after the ACKs of all others. Returns the stream index.
  unsigned add_stream(unsigned s, unsigned t, unsigned len, bool flush) {
    Stream st;
    st.len = len;
    st.flush = flush;
    streams_.push_back(st);
    const unsigned id = static_cast<unsigned>(streams_.size() - 1);
    for (unsigned i = 0; i < len; ++i) q_[s].push_back({id, i, sources_ + t});
    return id;
  }
  void step() {
    net_->advance(now_);
    const unsigned n = static_cast<unsigned>(q_.size());
    for (uint32_t e = 0; e < n; ++e) {
      uet::Packet p;
      while (net_->poll(e, now_, p)) {
        if (p.type == uet::PktType::Req) {
          Stream& st = streams_.at(p.cid);
          if (st.arrived == 0) st.first_arrival = now_;
          ++st.arrived;
          st.last_arrival = now_;
          arrivals_.push_back({now_, p.cid});
          uet::Packet a;
          a.type = uet::PktType::Ack;
          a.src = e;
          a.dst = p.src;
          a.cid = p.cid;
          a.seq = p.seq;
          a.token = p.token;
          out_[e].push_back(a);
        } else if (p.type == uet::PktType::Ack) {
          ++streams_.at(p.cid).acked;
        }
      }
      if (!out_[e].empty() && net_->can_send(e, now_)) {
        net_->send(out_[e].front(), now_);
        out_[e].pop_front();
        continue;
      }
      if (!q_[e].empty() && net_->can_send(e, now_)) {
        const Item it = q_[e].front();
        Stream& st = streams_[it.stream];
        const bool sync = st.flush && it.index + 1 == st.len;
        if (sync && st.acked + 1 < st.len) continue;  // the flush: wait for every data ACK
        uet::Packet r;
        r.type = uet::PktType::Req;
        r.src = e;
        r.dst = it.dst;
        r.cid = it.stream;
        r.seq = it.index;
        r.token = next_token_++;
        r.attempt = 1;
        if (it.index == 0) st.first_send = now_;
        net_->send(r, now_);
        q_[e].pop_front();
      }
    }
    ++now_;
  }
  bool idle() const {
    for (auto& q : q_)
      if (!q.empty()) return false;
    for (auto& q : out_)
      if (!q.empty()) return false;
    return net_->in_flight() == 0;
  }
  void run_until_idle(uint64_t limit) {
    const uint64_t end = now_ + limit;
    while (now_ < end && !idle()) step();
  }
  struct Stream {
    unsigned len = 0, arrived = 0, acked = 0;
    bool flush = false;
    uint64_t first_send = 0, first_arrival = 0, last_arrival = 0;
  };
  const Stream& stream(unsigned i) const { return streams_.at(i); }
  uint64_t now() const { return now_; }
  /// REQ arrivals: (cycle, stream).
  const std::vector<std::pair<uint64_t, unsigned>>& arrivals() const { return arrivals_; }
  uet::DragonflyNet& net() { return *net_; }
  /// Every REQ arrived exactly once (the fabric's scoreboard and the per-stream counts).
  std::vector<std::string> check() {
    std::vector<std::string> e;
    for (unsigned i = 0; i < streams_.size(); ++i)
      if (streams_[i].arrived != streams_[i].len || streams_[i].acked != streams_[i].len)
        e.push_back(fmt::format("unordered stream {}: {} of {} REQs arrived, {} acknowledged", i, streams_[i].arrived,
                                streams_[i].len, streams_[i].acked));
    if (!net_->dragonfly().scoreboard().finish().clean()) e.push_back("the Dragonfly's scoreboard is not clean");
    if (net_->dragonfly().stats().drops) e.push_back("the Dragonfly dropped packets");
    return e;
  }

 private:
  struct Item {
    unsigned stream, index;
    uint32_t dst;
  };
  unsigned sources_;
  std::unique_ptr<uet::DragonflyNet> net_;
  std::vector<std::deque<Item>> q_;
  std::vector<std::deque<uet::Packet>> out_;
  std::vector<Stream> streams_;
  std::vector<std::pair<uint64_t, unsigned>> arrivals_;
  uint64_t now_ = 0;
  uint32_t next_token_ = 1;
};

void add_errors(Experiment& x, const std::string& where, const uet::Report& r) {
  if (!r.complete) x.errors.push_back(fmt::format("{}: {} of {} transfers complete", where, r.completed, r.transfers));
  for (const auto& e : r.errors) x.errors.push_back(where + ": " + e);
  if (r.net.expired) x.errors.push_back(fmt::format("{}: {} packets outlived the packet lifetime", where, r.net.expired));
  if (r.src.req_timeouts || r.src.fin_timeouts)
    x.errors.push_back(fmt::format("{}: {} REQ and {} FIN timeouts without faults", where, r.src.req_timeouts,
                                   r.src.fin_timeouts));
}
void add_fabric_errors(Experiment& x, const std::string& where, uet::DragonflyNet& n) {
  if (!n.dragonfly().scoreboard().finish().clean()) x.errors.push_back(where + ": the Dragonfly's scoreboard is not clean");
  if (n.dragonfly().stats().drops) x.errors.push_back(fmt::format("{}: {} Dragonfly drops", where, n.dragonfly().stats().drops));
}

Claim claim(const std::string& id, const std::string& what, const std::string& paper, const std::string& ours,
            const std::string& tol, bool pass) {
  return Claim{id, what, paper, ours, tol, pass};
}

std::string fabric_words(const Config& c) {
  return c.quick ? "reduced Dragonfly (--quick): 9 groups x 8 routers x 4 endpoints, 1 global channel per router (288 "
                   "endpoints), local 40 / global 500 cycles"
                 : "the paper's Dragonfly: 33 groups x 8 routers x 4 endpoints, 4 global channels per router (1,056 "
                   "endpoints), local 40 / global 500 cycles";
}

// "par (credits signal, threshold 192 flits)", or the routing's name.
std::string routing_words(const Config& c) {
  if (c.routing != sw::DfRouting::par) return sw::to_string(c.routing);
  return fmt::format("par ({} signal, threshold {} flits)", sw::to_string(c.par_signal), c.par_threshold);
}

// Mean of the Dragonfly's non-minimal share, for the notes.
double nonmin(uet::DragonflyNet& n) { return n.dragonfly().stats().nonminimal_share; }

}  // namespace

// ================================================================== experiments

namespace {

// Why a single source's out-of-order share is off the paper's third (a note for the report).
// idle_streams: 8b and 10 (each stream starts on an idle network), else 8a (streams back to back).
void ooo_note(Experiment& x, const Config& c, double ooo_min, double ooo_max, double nonmin_max, bool idle_streams) {
  const bool par = c.routing == sw::DfRouting::par;
  if (par && c.par_signal == sw::DfParSignal::queue && ooo_max < 0.23) {
    x.notes.push_back(fmt::format(
        "Out of order {} with PAR-6/2 on the `queue` signal (non-minimal share <= {}): it compares the flits queued at "
        "the deciding router's outputs, and one source at link rate builds no queue on our cut-through, output-queued "
        "routers (every channel 1 flit/cycle, no internal speedup loss), so its packets stay minimal. The paper's "
        "routers reached the adaptive threshold under the same load (\"buffer levels in the network switches reaching "
        "the threshold\"): the `credits` signal (the default), which also counts the flits and credits in flight, does "
        "(docs/ordering.md).",
        pct(ooo_max), pct(nonmin_max)));
    return;
  }
  if (par && c.par_signal == sw::DfParSignal::credits && idle_streams && ooo_min < 0.23)
    x.notes.push_back(fmt::format(
        "Out of order {}..{}, growing with the stream length (non-minimal share <= {}): PAR's `credits` signal counts "
        "the flits and credits in flight on the minimal global channel, and on an idle network they build up over "
        "that channel's round trip (about 1,000 cycles at link rate) after the stream starts. The first packets of a "
        "stream see an idle channel and stay minimal, so a 10-packet stream (160 cycles at link rate) is reordered "
        "less than a 40-packet one. The threshold ({} flits) sets the load at which packets divert; docs/ordering.md "
        "has the figures for other thresholds.",
        pct(ooo_min), pct(ooo_max), pct(nonmin_max), c.par_threshold));
  else if (par && c.par_signal == sw::DfParSignal::credits && ooo_max > 0.43)
    x.notes.push_back(fmt::format(
        "Out of order up to {} (non-minimal share <= {}), above the paper's third: with a threshold of {} flits PAR's "
        "`credits` signal diverts most packets of a source at link rate; a larger `--par-threshold` diverts fewer "
        "(docs/ordering.md).",
        pct(ooo_max), pct(nonmin_max), c.par_threshold));
  else if (!par && ooo_max < 0.23)
    x.notes.push_back(fmt::format("Out of order {} with {} routing (non-minimal share <= {}).", pct(ooo_max),
                                  sw::to_string(c.routing), pct(nonmin_max)));
}

// ------------------------------------------------------------------ 8a

// One source streams 10-packet transfers to 32 destinations of a remote group (uniform
// random per stream) at the maximum accepted rate; accepted REQ flits per cycle.
struct Rate8a {
  double accepted = 0, ooo = 0, nonmin = 0;
};

Experiment exp8a(const Config& c) {
  Experiment x;
  x.id = "8a";
  x.title = "Fig. 8(a): accepted throughput vs packet length (no ordering, source-side, target-side ordering)";
  x.paper_setup =
      "one source, streams of 10 packets to 32 destinations in one remote group (uniform random per stream), maximum "
      "injection rate; packet length 8..32 flits; PAR-6/2";
  const std::vector<unsigned> lens = c.quick ? std::vector<unsigned>{8, 32} : std::vector<unsigned>{8, 16, 24, 32};
  const uint64_t warm = c.quick ? 4000 : 6000, meas = c.quick ? 10000 : 40000;
  const unsigned kStream = 10;
  x.our_setup = fmt::format(
      "{}; routing {}; source on router 0 of group 0, destinations = the 32 endpoints of group {}; packet length {} "
      "flits; {} warm-up + {} measured cycles; accepted = REQ flits delivered to target memory per cycle (1 = link "
      "rate). Fast mode: the source injects one stream after the other (the next starts when the last REQ of the "
      "previous one is sent), up to 64 streams in flight (64 CIDs; a stream holds its connection until FIN-ACK). Slow "
      "mode: one stream at a time (the source's single rank serializes); also shown: slow mode with 64 streams in "
      "parallel",
      fabric_words(c), routing_words(c), make_fab(c, 32).dst_group, join([&] {
        std::vector<std::string> v;
        for (unsigned l : lens) v.push_back(std::to_string(l));
        return v;
      }(), ", "), warm, meas);

  auto placement = [&](const Fab& f) {
    std::vector<unsigned> p{f.ep(0, 0)};
    for (unsigned i = 0; i < 32; ++i) p.push_back(f.ep(f.dst_group, i));
    return p;
  };
  // fast: the source injects one stream after the other (the next one starts when the last
  // REQ of the previous one is sent), up to `active` streams in flight; slow: `active`
  // streams run at once, each one packet per round trip.
  auto proto = [&](unsigned flits, bool fast, unsigned active, const std::string& tag) {
    const Fab f = make_fab(c, std::max(flits, 16u));
    uet::SystemParams p = base_params(c, 1, 32, flits);
    p.src.max_active = active;
    p.src.num_cids = 64;
    ProtoRun r(p, f, placement(f));
    core::Rng rng(c.seed, "reproduce.8a.dst");
    uint64_t submitted = 0;
    std::deque<uint64_t> open;
    auto submit = [&] {
      open.push_back(
          r.sys->add_transfer(0, static_cast<unsigned>(rng.uniform(0, 31)), uet::XferKind::Ordered, fast, false, kStream));
      submitted += kStream;
    };
    for (uint64_t i = 0; i < warm + meas; ++i) {
      while (!open.empty() && r.sys->completed(open.front())) open.pop_front();
      if (fast ? r.new_reqs[0] >= submitted : open.size() < active) submit();
      r.step();
    }
    uint64_t flits_in = 0;
    for (const auto& e : r.sys->executions())
      if (e.cycle >= warm && e.cycle < warm + meas) flits_in += flits;
    Rate8a o;
    o.accepted = static_cast<double>(flits_in) / static_cast<double>(meas);
    o.ooo = r.ooo_share();
    o.nonmin = nonmin(*r.net);
    // the streams started complete: in order, exactly once, nothing left
    const std::string where = fmt::format("8a {} {} flits", tag, flits);
    add_errors(x, where, r.finish(100000000));
    add_fabric_errors(x, where, *r.net);
    return o;
  };
  auto raw = [&](unsigned flits) {
    const Fab f = make_fab(c, std::max(flits, 16u));
    RawRun r(c, f, placement(f), 1, flits);
    core::Rng rng(c.seed, "reproduce.8a.dst");
    const uint64_t streams = (warm + meas) / (kStream * flits) + 8;
    for (uint64_t s = 0; s < streams; ++s) r.add_stream(0, static_cast<unsigned>(rng.uniform(0, 31)), kStream, false);
    for (uint64_t i = 0; i < warm + meas; ++i) r.step();
    uint64_t n = 0;
    for (auto& [cyc, s] : r.arrivals())
      if (cyc >= warm && cyc < warm + meas) ++n;
    Rate8a o;
    o.accepted = static_cast<double>(n * flits) / static_cast<double>(meas);
    o.nonmin = nonmin(r.net());
    r.run_until_idle(10000000);
    for (auto& e : r.check()) x.errors.push_back(fmt::format("8a no ordering {} flits: {}", flits, e));
    return o;
  };

  std::ostringstream csv;
  csv << "packet_flits,no_ordering,slow,fast,slow_64_streams,fast_ooo_share,fast_nonminimal_share\n";
  x.table = "| packet flits | no ordering | slow (source-side) | fast (target-side) | slow, 64 streams | fast: out of order | fast: non-minimal |\n|---|---|---|---|---|---|---|\n";
  std::vector<double> fast_v, none_v, slow_v, ooo_v;
  double worst_ratio = 1e9;
  for (unsigned l : lens) {
    const Rate8a n = raw(l);
    const Rate8a s = proto(l, false, 1, "slow");
    const Rate8a f = proto(l, true, 64, "fast");
    const Rate8a s64 = proto(l, false, 64, "slow x64");
    csv << fmt::format("{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f}\n", l, n.accepted, s.accepted, f.accepted,
                       s64.accepted, f.ooo, f.nonmin);
    x.table += fmt::format("| {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {} | {} |\n", l, n.accepted, s.accepted,
                           f.accepted, s64.accepted, pct(f.ooo), pct(f.nonmin));
    fast_v.push_back(f.accepted);
    none_v.push_back(n.accepted);
    slow_v.push_back(s.accepted);
    ooo_v.push_back(f.ooo);
    worst_ratio = std::min(worst_ratio, n.accepted > 0 ? f.accepted / n.accepted : 0.0);
    x.figures[fmt::format("fast_{}", l)] = f.accepted;
    x.figures[fmt::format("none_{}", l)] = n.accepted;
    x.figures[fmt::format("slow_{}", l)] = s.accepted;
    x.figures[fmt::format("slow64_{}", l)] = s64.accepted;
    x.figures[fmt::format("ooo_{}", l)] = f.ooo;
    x.figures[fmt::format("nonmin_{}", l)] = f.nonmin;
  }
  x.csv_text = csv.str();
  const double fmin = *std::min_element(fast_v.begin(), fast_v.end());
  const double fmax = *std::max_element(fast_v.begin(), fast_v.end());
  const double smax = *std::max_element(slow_v.begin(), slow_v.end());
  const double omin = *std::min_element(ooo_v.begin(), ooo_v.end());
  const double omax = *std::max_element(ooo_v.begin(), ooo_v.end());
  x.figures["fast_min"] = fmin;
  x.figures["slow_max"] = smax;
  x.figures["fast_over_none_min"] = worst_ratio;
  x.figures["fast_over_slow_min"] = fmin / std::max(smax, 1e-9);
  x.claims.push_back(claim("8a.fast_like_none", "no ordering and target-side ordering achieve similar throughput",
                           "similar (graph)", fmt::format("fast / no ordering >= {:.3f}", worst_ratio),
                           "ratio >= 0.90 at every length", worst_ratio >= 0.90));
  x.claims.push_back(claim("8a.fast_near_link_rate", "target-side ordering is close to the maximum link throughput",
                           "close to 1 flit/ns", fmt::format("{:.3f}..{:.3f} flits/cycle", fmin, fmax),
                           ">= 0.85 at every length", fmin >= 0.85));
  x.claims.push_back(claim("8a.length_no_impact", "packet length does not impact performance", "flat",
                           fmt::format("fast spread {:.1f}%", 100.0 * (fmax - fmin) / std::max(fmax, 1e-9)),
                           "(max - min) / max <= 10%", (fmax - fmin) <= 0.10 * fmax));
  x.claims.push_back(claim("8a.slow_small_fraction", "source-side ordering limits transfer rates to a small fraction of the link",
                           "small fraction (< 1/RTT packets per ns)", fmt::format("<= {:.3f} flits/cycle", smax),
                           "<= 0.10 at every length", smax <= 0.10));
  x.claims.push_back(claim("8a.ooo_third", "about one third of the packets in fast mode arrive out of order",
                           "~33%", fmt::format("{}..{}", pct(omin), pct(omax)), "23%..43% (1/3 +- 10 points)",
                           omin >= 0.23 && omax <= 0.43));
  double nm_max = 0;
  for (unsigned l : lens) nm_max = std::max(nm_max, x.figures[fmt::format("nonmin_{}", l)]);
  ooo_note(x, c, omin, omax, nm_max, false);
  x.notes.push_back(fmt::format(
      "Slow mode with 64 independent streams in parallel reaches {:.3f}..{:.3f}: source-side ordering is slow per "
      "ordered stream (one packet per round trip), not per source; the paper's curve is one serialized stream.",
      x.figures[fmt::format("slow64_{}", lens.front())], x.figures[fmt::format("slow64_{}", lens.back())]));
  return x;
}

// ------------------------------------------------------------------ 8b and 10: single streams

// One stream on an idle network, repeated `reps` times (sequentially, each to a uniform
// random destination of the remote group); latency from the first REQ's injection to the
// delivery of the last (8b) or of the synchronization operation (10) at the target.
enum class Mode { none, slow, fast, src_sync, tgt_sync };

std::vector<double> stream_latencies(const Config& c, Mode m, unsigned len, unsigned reps, double* ooo, double* nm,
                                     Experiment& x) {
  const Fab f = make_fab(c, 16);
  std::vector<unsigned> place{f.ep(0, 0)};
  for (unsigned i = 0; i < 32; ++i) place.push_back(f.ep(f.dst_group, i));
  core::Rng rng(c.seed, fmt::format("reproduce.single.{}", len));
  std::vector<double> lat;
  const std::string where = fmt::format("{} stream of {}", x.id, len);
  if (m == Mode::none || m == Mode::src_sync) {
    RawRun r(c, f, place, 1, 16);
    for (unsigned k = 0; k < reps; ++k) {
      const unsigned s = r.add_stream(0, static_cast<unsigned>(rng.uniform(0, 31)), len, m == Mode::src_sync);
      r.run_until_idle(100000000);
      const auto& st = r.stream(s);
      lat.push_back(static_cast<double>(st.last_arrival - st.first_send));
    }
    if (nm) *nm = nonmin(r.net());
    for (auto& e : r.check()) x.errors.push_back(where + ": " + e);
    return lat;
  }
  uet::SystemParams p = base_params(c, 1, 32, 16);
  ProtoRun r(p, f, place);
  for (unsigned k = 0; k < reps; ++k) {
    const unsigned t = static_cast<unsigned>(rng.uniform(0, 31));
    const uint64_t id = m == Mode::tgt_sync ? r.sys->add_transfer(0, t, uet::XferKind::Sync, true, true, len)
                                            : r.sys->add_transfer(0, t, uet::XferKind::Ordered, m == Mode::fast, false, len);
    const uet::Report rep = r.finish(100000000);
    (void)rep;
    uint64_t last = 0;
    for (const auto& e : r.sys->executions())
      if (e.transfer == id && (m != Mode::tgt_sync || e.index + 1 == len)) last = std::max(last, e.cycle);
    lat.push_back(static_cast<double>(last - r.send_of(id, 0)));
  }
  if (ooo) *ooo = r.ooo_share();
  if (nm) *nm = nonmin(*r.net);
  add_errors(x, where, r.sys->check());
  add_fabric_errors(x, where, *r.net);
  return lat;
}

// Least-squares slope of y over x.
double slope(const std::vector<double>& xs, const std::vector<double>& ys) {
  const double n = static_cast<double>(xs.size());
  const double mx = std::accumulate(xs.begin(), xs.end(), 0.0) / n, my = std::accumulate(ys.begin(), ys.end(), 0.0) / n;
  double num = 0, den = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) * (xs[i] - mx);
  }
  return den > 0 ? num / den : 0;
}

// The zero-load round trip of one REQ (16 flits) and its ACK between group 0 router 0
// and the remote group, measured with one slow-mode REQ per destination (mean).
double zero_load_rtt(const Config& c) {
  const Fab f = make_fab(c, 16);
  std::vector<unsigned> place{f.ep(0, 0)};
  for (unsigned i = 0; i < 32; ++i) place.push_back(f.ep(f.dst_group, i));
  uet::SystemParams p = base_params(c, 1, 32, 16);
  ProtoRun r(p, f, place);
  std::vector<double> v;
  for (unsigned t = 0; t < 32; ++t) {
    const uint64_t id = r.sys->add_transfer(0, t, uet::XferKind::Ordered, false, false, 1);
    r.finish(1000000);
    v.push_back(static_cast<double>(r.sys->completed_at(id) - r.send_of(id, 0)));
  }
  return mean_std(v).mean;
}

Experiment exp8b(const Config& c) {
  Experiment x;
  x.id = "8b";
  x.title = "Fig. 8(b): stream latency vs stream length (first packet in to last packet out)";
  x.paper_setup = "one ordered stream, no other traffic, 16-flit packets, stream length 10..40; same network as 8a";
  const std::vector<unsigned> lens = c.quick ? std::vector<unsigned>{10, 40} : std::vector<unsigned>{10, 20, 30, 40};
  const unsigned reps = c.quick ? 3 : 10;
  x.our_setup = fmt::format(
      "{}; routing {}; one source (group 0, router 0), each stream to a uniform random one of the 32 endpoints of group "
      "{}; {} streams per point, one after the other on an idle network; latency = first REQ injected -> last REQ "
      "delivered to target memory; no outstanding limit in fast mode",
      fabric_words(c), routing_words(c), make_fab(c, 16).dst_group, reps);
  const double rtt = zero_load_rtt(c);
  x.figures["rtt"] = rtt;
  std::ostringstream csv;
  csv << "stream_len,no_ordering_mean,no_ordering_std,slow_mean,slow_std,fast_mean,fast_std,fast_ooo_share\n";
  x.table = "| stream length | no ordering | slow (source-side) | fast (target-side) | fast: out of order |\n|---|---|---|---|---|\n";
  std::vector<double> xs, slow_means;
  double worst = 0, ooo_min = 1, ooo_max = 0, nm_max = 0;
  for (unsigned l : lens) {
    double ooo = 0;
    const MeanStd n = mean_std(stream_latencies(c, Mode::none, l, reps, nullptr, nullptr, x));
    const MeanStd s = mean_std(stream_latencies(c, Mode::slow, l, reps, nullptr, nullptr, x));
    double nm = 0;
    const MeanStd f = mean_std(stream_latencies(c, Mode::fast, l, reps, &ooo, &nm, x));
    nm_max = std::max(nm_max, nm);
    csv << fmt::format("{},{:.1f},{:.1f},{:.1f},{:.1f},{:.1f},{:.1f},{:.4f}\n", l, n.mean, n.std, s.mean, s.std, f.mean,
                       f.std, ooo);
    x.table += fmt::format("| {} | {:.0f} ± {:.0f} | {:.0f} ± {:.0f} | {:.0f} ± {:.0f} | {} |\n", l, n.mean, n.std,
                           s.mean, s.std, f.mean, f.std, pct(ooo));
    xs.push_back(l);
    slow_means.push_back(s.mean);
    worst = std::max(worst, f.mean / n.mean);
    ooo_min = std::min(ooo_min, ooo);
    ooo_max = std::max(ooo_max, ooo);
    x.figures[fmt::format("none_{}", l)] = n.mean;
    x.figures[fmt::format("slow_{}", l)] = s.mean;
    x.figures[fmt::format("fast_{}", l)] = f.mean;
    x.figures[fmt::format("ooo_{}", l)] = ooo;
  }
  x.csv_text = csv.str();
  const double sl = slope(xs, slow_means);
  x.figures["slow_slope"] = sl;
  x.figures["fast_over_none_max"] = worst;
  x.claims.push_back(claim("8b.slow_per_rtt",
                           "source-side ordering: packets can at best be injected every network RTT; latency grows linearly",
                           "slope = 1 RTT per packet", fmt::format("slope {:.0f} cycles/packet, zero-load RTT {:.0f}", sl, rtt),
                           "slope / RTT in 0.95..1.25", sl >= 0.95 * rtt && sl <= 1.25 * rtt));
  x.claims.push_back(claim("8b.fast_like_none", "no ordering and target-side ordering show similar latencies",
                           "similar (graph)", fmt::format("fast / no ordering <= {:.3f}", worst),
                           "ratio <= 1.15 at every length", worst <= 1.15));
  ooo_note(x, c, ooo_min, ooo_max, nm_max, true);
  x.claims.push_back(claim("8b.ooo_third", "about one third of the packets in fast mode arrive out of order",
                           "~33%", fmt::format("{}..{}", pct(ooo_min), pct(ooo_max)), "23%..43% (1/3 +- 10 points)",
                           ooo_min >= 0.23 && ooo_max <= 0.43));
  return x;
}

// ------------------------------------------------------------------ 9

Experiment exp9(const Config& c) {
  Experiment x;
  x.id = "9";
  x.title = "Fig. 9: ordering granularity (128 packets per source in 1, 2, 4 or 8 streams)";
  x.paper_setup =
      "16 sources in one group, 16 destinations in another (1:1), each source 128 packets of 16 flits split evenly into "
      "streams to its destination; target-side ordering (fast mode); total latency (first REQ in -> last REQ out) and "
      "mean REQ latency";
  const Fab f = make_fab(c, 16);
  x.our_setup = fmt::format(
      "{}; routing {}; sources = endpoints 0..15 of group 0 (routers 0-3), destinations = endpoints 0..15 of group {}; "
      "all streams of a source start at once and are interleaved packet by packet (the source's round robin between "
      "its active transfers, as in the paper's Fig. 2b), no outstanding limit; REQ "
      "latency = injection -> delivery to target memory; bars: mean ± population std over the 16 sources (total) or "
      "over all 2,048 REQs",
      fabric_words(c), routing_words(c), f.dst_group);
  std::vector<unsigned> place;
  for (unsigned i = 0; i < 16; ++i) place.push_back(f.ep(0, i));
  for (unsigned i = 0; i < 16; ++i) place.push_back(f.ep(f.dst_group, i));
  std::ostringstream csv;
  csv << "streams,stream_len,total_latency_mean,total_latency_std,req_latency_mean,req_latency_std,ooo_share,"
         "nonminimal_share,overflow_nack_share\n";
  x.table = "| streams x length | total latency | REQ latency | out of order | non-minimal | OVERFLOW NACKs |\n"
            "|---|---|---|---|---|---|\n";
  std::vector<double> tot, req, ooo, ovf;
  for (unsigned streams : {1u, 2u, 4u, 8u}) {
    const unsigned len = 128 / streams;
    uet::SystemParams p = base_params(c, 16, 16, 16);
    p.src.max_active = 8;
    ProtoRun r(p, f, place);
    std::vector<std::vector<uint64_t>> ids(16);
    for (unsigned s = 0; s < 16; ++s)
      for (unsigned k = 0; k < streams; ++k)
        ids[s].push_back(r.sys->add_transfer(s, s, uet::XferKind::Ordered, true, false, len));
    const uet::Report rep = r.finish(100000000);
    const std::string where = fmt::format("9 {}x{}", streams, len);
    add_errors(x, where, rep);
    add_fabric_errors(x, where, *r.net);
    std::unordered_map<uint64_t, unsigned> src_of;
    for (unsigned s = 0; s < 16; ++s)
      for (uint64_t id : ids[s]) src_of[id] = s;
    std::vector<uint64_t> first(16, UINT64_MAX), last(16, 0);
    std::vector<double> req_lat;
    for (const auto& e : r.sys->executions()) {
      const unsigned s = src_of.at(e.transfer);
      const uint64_t sent = r.send_of(e.transfer, e.index);
      first[s] = std::min(first[s], sent);
      last[s] = std::max(last[s], e.cycle);
      req_lat.push_back(static_cast<double>(e.cycle - sent));
    }
    std::vector<double> totals;
    for (unsigned s = 0; s < 16; ++s) totals.push_back(static_cast<double>(last[s] - first[s]));
    const MeanStd t = mean_std(totals), q = mean_std(req_lat);
    const double o = r.ooo_share(), nm = nonmin(*r.net);
    // REQs answered OVERFLOW (reorder buffer full or hash collision) / REQs arriving, all targets
    uint64_t nack_ovf = 0, arrived = 0;
    for (unsigned t2 = 0; t2 < 16; ++t2) {
      nack_ovf += r.sys->target(t2).stats().nack_overflow;
      arrived += r.sys->target(t2).stats().reqs;
    }
    const double ov = arrived ? static_cast<double>(nack_ovf) / static_cast<double>(arrived) : 0.0;
    csv << fmt::format("{},{},{:.1f},{:.1f},{:.1f},{:.1f},{:.4f},{:.4f},{:.4f}\n", streams, len, t.mean, t.std, q.mean,
                       q.std, o, nm, ov);
    x.table += fmt::format("| {} x {} | {:.0f} ± {:.0f} | {:.0f} ± {:.0f} | {} | {} | {} |\n", streams, len, t.mean,
                           t.std, q.mean, q.std, pct(o), pct(nm), pct(ov));
    tot.push_back(t.mean);
    req.push_back(q.mean);
    ooo.push_back(o);
    ovf.push_back(ov);
    x.figures[fmt::format("overflow_{}", len)] = ov;
    x.figures[fmt::format("total_{}", len)] = t.mean;
    x.figures[fmt::format("req_{}", len)] = q.mean;
    x.figures[fmt::format("ooo_{}", len)] = o;
  }
  x.csv_text = csv.str();
  auto spread = [](const std::vector<double>& v) {
    const double lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
    return (hi - lo) / lo;
  };
  // ooo[0]: 128/stream, ooo[3]: 16/stream
  x.claims.push_back(claim("9.ooo_16", "out-of-order packets with 16 packets/stream", "31%", pct(ooo[3]),
                           "21%..41% (+- 10 points)", ooo[3] >= 0.21 && ooo[3] <= 0.41));
  x.claims.push_back(claim("9.ooo_128", "out-of-order packets with 128 packets/stream", "67%", pct(ooo[0]),
                           "57%..77% (+- 10 points)", ooo[0] >= 0.57 && ooo[0] <= 0.77));
  const bool mono = ooo[0] >= ooo[1] && ooo[1] >= ooo[2] && ooo[2] >= ooo[3];
  x.claims.push_back(claim("9.ooo_grows", "longer streams: more out-of-order packets", "31% -> 67%",
                           fmt::format("{} -> {} -> {} -> {}", pct(ooo[3]), pct(ooo[2]), pct(ooo[1]), pct(ooo[0])),
                           "non-decreasing with stream length", mono));
  x.claims.push_back(claim("9.total_same", "total latencies are pretty much the same for all four granularities",
                           "same (graph)", fmt::format("spread {:.1f}%", 100 * spread(tot)), "(max - min) / min <= 15%",
                           spread(tot) <= 0.15));
  if (ooo[3] < 0.21)
    x.notes.push_back(
        "With 8 streams per source the streams are interleaved packet by packet, so consecutive packets of one stream "
        "are 8 packet times (128 cycles) apart and a packet delayed by a non-minimal route holds up few packets of its "
        "own stream. Injecting the streams one after the other instead raises the share for short streams (docs/"
        "ordering.md); the paper does not say how its source interleaved them.");
  x.claims.push_back(claim("9.req_same", "REQ latencies are pretty much the same for all four granularities",
                           "same (graph)", fmt::format("spread {:.1f}%", 100 * spread(req)), "(max - min) / min <= 15%",
                           spread(req) <= 0.15));
  if (std::max(spread(tot), spread(req)) > 0.15 && *std::max_element(ovf.begin(), ovf.end()) > 0)
    x.notes.push_back(fmt::format(
        "Latencies differ between granularities because the 50-packet reorder buffer of a destination overflows: "
        "{} / {} / {} / {} of the REQs arriving were NACKed OVERFLOW (1 x 128 / 2 x 64 / 4 x 32 / 8 x 16) and sent "
        "again {} cycles later; a resent REQ holds up the rest of its stream in the buffer for longer, so one "
        "overflow tends to cause more. The paper gives no buffer size for this experiment (50 is the size of its "
        "Fig. 11/12).",
        pct(ovf[0]), pct(ovf[1]), pct(ovf[2]), pct(ovf[3]), base_params(c, 16, 16, 16).src.retry_delay));
  return x;
}

// ------------------------------------------------------------------ 10

Experiment exp10(const Config& c) {
  Experiment x;
  x.id = "10";
  x.title = "Fig. 10: source-side synchronization (flush) vs target-side synchronization vs target-side ordering";
  x.paper_setup = "one stream from one group to another, 16-flit packets, stream length 10..40; latency = first data "
                  "packet injected -> synchronization operation delivered at the target";
  const std::vector<unsigned> lens = c.quick ? std::vector<unsigned>{10, 40} : std::vector<unsigned>{10, 20, 30, 40};
  const unsigned reps = c.quick ? 3 : 10;
  x.our_setup = fmt::format(
      "{}; routing {}; as 8b ({} streams per point, idle network); a stream of length L = L-1 data REQs + 1 "
      "synchronization REQ. Source-side: unordered data REQs, the sync REQ sent once every data ACK is back (the "
      "flush). Target-side synchronization: the synchronized transfer protocol (sync REQ held at the target until "
      "CNT-1 data ACKs). Target-side ordering: a fast ordered transfer of L REQs",
      fabric_words(c), routing_words(c), reps);
  const double rtt = zero_load_rtt(c);
  x.figures["rtt"] = rtt;
  std::ostringstream csv;
  csv << "stream_len,src_sync_mean,src_sync_std,tgt_sync_mean,tgt_sync_std,tgt_order_mean,tgt_order_std,tgt_order_ooo_share\n";
  x.table = "| stream length | source-side sync (flush) | target-side sync | target-side ordering | ordering: out of order |\n|---|---|---|---|---|\n";
  double min_gap = 1e18, worst = 0, ooo_min = 1, ooo_max = 0, nm_max = 0;
  for (unsigned l : lens) {
    double ooo = 0;
    const MeanStd s = mean_std(stream_latencies(c, Mode::src_sync, l, reps, nullptr, nullptr, x));
    const MeanStd t = mean_std(stream_latencies(c, Mode::tgt_sync, l, reps, nullptr, nullptr, x));
    double nm = 0;
    const MeanStd o = mean_std(stream_latencies(c, Mode::fast, l, reps, &ooo, &nm, x));
    nm_max = std::max(nm_max, nm);
    csv << fmt::format("{},{:.1f},{:.1f},{:.1f},{:.1f},{:.1f},{:.1f},{:.4f}\n", l, s.mean, s.std, t.mean, t.std, o.mean,
                       o.std, ooo);
    x.table += fmt::format("| {} | {:.0f} ± {:.0f} | {:.0f} ± {:.0f} | {:.0f} ± {:.0f} | {} |\n", l, s.mean, s.std, t.mean,
                           t.std, o.mean, o.std, pct(ooo));
    min_gap = std::min(min_gap, s.mean - t.mean);
    worst = std::max(worst, std::abs(t.mean - o.mean) / o.mean);
    ooo_min = std::min(ooo_min, ooo);
    ooo_max = std::max(ooo_max, ooo);
    x.figures[fmt::format("src_sync_{}", l)] = s.mean;
    x.figures[fmt::format("tgt_sync_{}", l)] = t.mean;
    x.figures[fmt::format("tgt_order_{}", l)] = o.mean;
  }
  x.csv_text = csv.str();
  x.figures["min_gap_rtts"] = min_gap / rtt;
  x.claims.push_back(claim("10.flush_costs_rtt",
                           "source-side synchronization adds at least a full RTT over target-side synchronization",
                           ">= 1 RTT", fmt::format("min gap {:.0f} cycles = {:.2f} RTT (RTT {:.0f})", min_gap, min_gap / rtt, rtt),
                           "gap >= 0.9 RTT at every length", min_gap >= 0.9 * rtt));
  x.claims.push_back(claim("10.sync_like_order", "target-side synchronization offers the same performance as target-side ordering",
                           "same (graph)", fmt::format("max abs(sync - order) / order = {:.1f}%", 100 * worst),
                           "<= 10% at every length", worst <= 0.10));
  ooo_note(x, c, ooo_min, ooo_max, nm_max, true);
  x.claims.push_back(claim("10.ooo_third", "about one third of all packets are delivered out of order (ordering mode)",
                           "~33%", fmt::format("{}..{}", pct(ooo_min), pct(ooo_max)), "23%..43% (1/3 +- 10 points)",
                           ooo_min >= 0.23 && ooo_max <= 0.43));
  return x;
}

// ------------------------------------------------------------------ 11 and 12: the reorder buffer

struct RobScenario {
  std::string name;     // column prefix
  std::string label;    // legend
  unsigned sources = 4, len = 32;
  bool bursty = false;
  unsigned conns = 64;  // target connections
  unsigned outstanding = 127;
};

struct RobResult {
  double occ_mean = 0, occ_p99 = 0, occ_max = 0, conn_mean = 0, conn_max = 0, ooo = 0, nonmin = 0;
  double overflow_share = 0, no_conn_share = 0, fallbacks = 0, slow_share = 0;
  uint64_t reqs = 0, overflow_full = 0, overflow_coll = 0, streams = 0;
  std::vector<double> occ_series, conn_series;
};

RobResult rob_run(const Config& c, const RobScenario& sc, uint64_t cycles, uint64_t sample, unsigned ugal_threshold,
                  Experiment& x) {
  const Fab f = make_fab(c, 16, ugal_threshold);
  std::vector<unsigned> place;
  const unsigned N = sc.sources;
  for (unsigned i = 0; i < N; ++i) place.push_back(f.ep(0, i * (f.per_group() / N)));
  place.push_back(f.ep(f.dst_group, 0));
  place.push_back(f.ep(f.dst_group, 4));
  uet::SystemParams p = base_params(c, N, 2, 16);
  p.tgt.rob.num_conn = sc.conns;
  p.src.max_outstanding = sc.outstanding;
  p.tgt.window = sc.outstanding;
  p.src.max_active = 4;
  ProtoRun r(p, f, place);
  // Combined load 0.7 of the link: 0.35 per destination. Uniform random: Bernoulli packet
  // arrivals at each source; bursty: a whole stream becomes available at once.
  const double per_source = 0.7 / N;
  for (unsigned s = 0; s < N; ++s) {
    if (sc.bursty)
      r.fabric->pace(s, per_source / (16.0 * sc.len), sc.len, c.seed);
    else
      r.fabric->pace(s, per_source / 16.0, 1, c.seed);
  }
  // One stream at a time per source: the next starts when the last REQ of the previous one
  // went out (consecutive streams may overlap at the receiver).
  std::vector<uint64_t> submitted(N, 0);
  std::vector<std::vector<uint64_t>> active(N);
  // A FIN never waits for the arrival process: a source may send while a transfer is in
  // its FIN phase and its FIN has not gone out yet.
  std::set<uint64_t> fin_sent;
  auto prev = r.net->observer;
  r.net->observer = [&, prev](uint64_t now, const uet::Packet& pk, uet::DragonflyNet::Event e) {
    prev(now, pk, e);
    if (e == uet::DragonflyNet::Event::Sent && pk.type == uet::PktType::Fin && pk.src < N)
      for (uint64_t id : active[pk.src])
        if (r.sys->source(pk.src).cid_of(id) == pk.cid) fin_sent.insert(id);
  };
  r.fabric->bypass = [&](uint32_t ep) {
    if (ep >= N) return false;
    for (uint64_t id : active[ep])
      if (auto ph = r.sys->source(ep).phase_of(id);
          ph && *ph == uet::SourceEndpoint::Phase::Fin && !fin_sent.count(id))
        return true;
    return false;
  };
  auto submit = [&](unsigned s) {
    active[s].push_back(r.sys->add_transfer(s, s % 2, uet::XferKind::Ordered, true, false, sc.len));
    submitted[s] += sc.len;
  };
  for (unsigned s = 0; s < N; ++s) submit(s);
  core::Samples occ, conn;
  RobResult o;
  for (uint64_t i = 0; i < cycles; ++i) {
    r.step();
    for (unsigned s = 0; s < N; ++s) {
      if (r.new_reqs[s] >= submitted[s]) submit(s);
      auto& a = active[s];
      a.erase(std::remove_if(a.begin(), a.end(), [&](uint64_t id) { return r.sys->completed(id); }), a.end());
    }
    const rob::Out ro = r.sys->target(0).rob_outputs();
    occ.add(ro.occupancy);
    conn.add(ro.conns);
    if (i % sample == 0) {
      o.occ_series.push_back(ro.occupancy);
      o.conn_series.push_back(ro.conns);
    }
  }
  const uet::TargetStats& ts = r.sys->target(0).stats();
  const rob::Out ro = r.sys->target(0).rob_outputs();
  o.occ_mean = occ.mean();
  o.occ_p99 = occ.percentile(99);
  o.occ_max = occ.max();
  o.conn_mean = conn.mean();
  o.conn_max = conn.max();
  o.ooo = (ts.held + ts.delivered) ? static_cast<double>(ts.held) / static_cast<double>(ts.held + ts.delivered) : 0;
  o.overflow_full = ro.cnt[rob::overflow_full];
  o.overflow_coll = ro.cnt[rob::overflow_collision];
  o.nonmin = nonmin(*r.net);
  // REQs sent for the first time toward target 0 (the even sources)
  uint64_t reqs0 = 0, fallbacks = 0, slow = 0, started = 0;
  for (unsigned s = 0; s < N; s += 2) {
    reqs0 += r.sys->source(s).stats().reqs_new;
    fallbacks += r.sys->source(s).stats().fallbacks;
    slow += r.sys->source(s).stats().slow_started;
    started += r.sys->source(s).stats().transfers_started;
  }
  // shares of the REQs arriving at destination 0 (first transmissions and resends): "dropped"
  o.reqs = reqs0;
  o.overflow_share = ts.reqs ? static_cast<double>(ts.nack_overflow) / static_cast<double>(ts.reqs) : 0;
  o.no_conn_share = ts.reqs ? static_cast<double>(ts.nack_no_conn) / static_cast<double>(ts.reqs) : 0;
  o.fallbacks = static_cast<double>(fallbacks);
  o.slow_share = started ? static_cast<double>(slow + fallbacks) / static_cast<double>(started) : 0;
  for (unsigned s = 0; s < N; ++s) o.streams += active[s].size();
  // Stop the sources after their current stream, drain, check: every transfer complete,
  // in order, exactly once; nothing left anywhere.
  const uet::Report rep = r.finish(200000000);
  const std::string where = fmt::format("{} {}", x.id, sc.label);
  add_errors(x, where, rep);
  add_fabric_errors(x, where, *r.net);
  return o;
}

std::string series_csv(const std::vector<RobScenario>& sc, const std::vector<RobResult>& res, uint64_t sample) {
  std::ostringstream csv;
  csv << "cycle";
  for (const auto& s : sc) csv << "," << s.name << "_occupancy," << s.name << "_connections";
  csv << "\n";
  std::size_t n = 0;
  for (const auto& r : res) n = std::max(n, r.occ_series.size());
  for (std::size_t i = 0; i < n; ++i) {
    csv << i * sample;
    for (const auto& r : res) {
      if (i < r.occ_series.size())
        csv << fmt::format(",{:.0f},{:.0f}", r.occ_series[i], r.conn_series[i]);
      else
        csv << ",,";
    }
    csv << "\n";
  }
  return csv.str();
}

std::string rob_table(const std::vector<RobScenario>& sc, const std::vector<RobResult>& res) {
  std::string t =
      "| scenario | ROB occupancy mean / p99 / max (of 50) | into the ROB (out of order) | connections mean / max | "
      "OVERFLOW NACKs (full / collision) | NO_CONN NACKs | non-minimal |\n|---|---|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < sc.size(); ++i) {
    const RobResult& r = res[i];
    t += fmt::format("| {} | {:.1f} / {:.0f} / {:.0f} | {} | {:.2f} / {:.0f} | {} ({} / {}) | {} | {} |\n", sc[i].label,
                     r.occ_mean, r.occ_p99, r.occ_max, pct(r.ooo), r.conn_mean, r.conn_max, pct(r.overflow_share),
                     r.overflow_full, r.overflow_coll, pct(r.no_conn_share), pct(r.nonmin));
  }
  return t;
}

// Bursty injection: the paper "further decreased the likelihood of adaptively routed
// packets"; here UGAL-L's bias toward minimal routes (flits).
constexpr unsigned kBurstyUgalThreshold = 400;

Experiment exp11(const Config& c) {
  Experiment x;
  x.id = "11";
  x.title = "Fig. 11: reorder buffer occupancy and receiver connections, unlimited connections";
  x.paper_setup =
      "4 and 16 sources in one group, two sets sending one ordered stream at a time each to one of two destinations in "
      "another group (minimal routes share one global channel); streams of 32 and 128 packets of 16 flits; combined load "
      "0.7 (0.35 per destination); ROB of 50 packets; unlimited connections; (c) bursty: bursts of back-to-back "
      "packets, same mean load, fewer adaptively routed packets";
  const uint64_t cycles = c.quick ? 20000 : 100000, sample = c.quick ? 20 : 100;
  x.our_setup = fmt::format(
      "{}; routing {}; N sources spread over group 0 (endpoint i x 32/N), even sources -> destination 0 (group {} router "
      "0), odd -> destination 1 (router 1); uniform random: Bernoulli packet arrivals at 0.7/N flits per cycle per source; "
      "a source starts its next stream when the last REQ of the previous one is sent; 64 connections per target; no "
      "outstanding limit; {} cycles, occupancy of destination 0 sampled every cycle (plotted every {}). Bursty: 2 "
      "sources (one per destination), a whole stream becomes available at once (sent back to back at link rate), "
      "mean load 0.35 each, routing biased toward minimal by {} more flits (UGAL-L and PAR threshold; fewer "
      "adaptively routed packets)",
      fabric_words(c), routing_words(c), make_fab(c, 16).dst_group, cycles, sample, kBurstyUgalThreshold);
  std::vector<RobScenario> sc = {
      {"ur4x32", "UR 4 sources x 32", 4, 32},      {"ur4x128", "UR 4 sources x 128", 4, 128},
      {"ur16x32", "UR 16 sources x 32", 16, 32},   {"ur16x128", "UR 16 sources x 128", 16, 128},
      {"burst32", "bursty 2 sources x 32", 2, 32, true}, {"burst128", "bursty 2 sources x 128", 2, 128, true},
  };
  std::vector<RobResult> res;
  for (const auto& s : sc) res.push_back(rob_run(c, s, cycles, sample, s.bursty ? kBurstyUgalThreshold : 0, x));
  x.csv_text = series_csv(sc, res, sample);
  x.table = rob_table(sc, res);
  double ur_max = 0, ur_full = 0, ur_coll = 0;
  std::vector<double> means;
  for (int i = 0; i < 4; ++i) {
    ur_max = std::max(ur_max, res[i].occ_max);
    ur_full += static_cast<double>(res[i].overflow_full);
    ur_coll += static_cast<double>(res[i].overflow_coll);
    means.push_back(res[i].occ_mean);
  }
  const double mlo = *std::min_element(means.begin(), means.end()), mhi = *std::max_element(means.begin(), means.end());
  for (std::size_t i = 0; i < sc.size(); ++i) {
    x.figures[sc[i].name + "_occ_max"] = res[i].occ_max;
    x.figures[sc[i].name + "_occ_mean"] = res[i].occ_mean;
    x.figures[sc[i].name + "_ooo"] = res[i].ooo;
    x.figures[sc[i].name + "_conn_max"] = res[i].conn_max;
    x.figures[sc[i].name + "_conn_mean"] = res[i].conn_mean;
  }
  x.figures["ur_occ_max"] = ur_max;
  x.claims.push_back(claim("11.occupancy_small", "ROB occupancy is relatively small (capacity 50)", "well below 50 (graph)",
                           fmt::format("max {:.0f}, means {:.1f}..{:.1f}, {:.0f} full-buffer NACKs", ur_max, mlo, mhi, ur_full),
                           "max < 50, never full, in the 4 UR runs", ur_max < 50 && ur_full == 0));
  if (ur_coll > 0)
    x.notes.push_back(fmt::format(
        "{:.0f} REQs in the uniform random runs were NACKed as hash collisions (OVERFLOW_COLLISION: bucket taken and "
        "the 4-entry cache full, docs/rob.md) and sent again; the paper treats these as overflow too.", ur_coll));
  x.claims.push_back(claim("11.occupancy_flat", "occupancy does not change significantly with streams and stream length",
                           "no significant change", fmt::format("mean occupancy {:.1f}..{:.1f}", mlo, mhi),
                           "max mean / min mean <= 3", mhi <= 3 * std::max(mlo, 1e-9)));
  const double o4 = (res[0].ooo + res[1].ooo) / 2, o16 = (res[2].ooo + res[3].ooo) / 2;
  x.claims.push_back(claim("11.ooo_4", "4 streams: about one third of the packets are inserted into the ROB", "~33%",
                           pct(o4) + " (mean of x32, x128)", "23%..43% (+- 10 points)", o4 >= 0.23 && o4 <= 0.43));
  x.claims.push_back(claim("11.ooo_16", "16 streams: about one quarter of the packets are inserted into the ROB", "~25%",
                           pct(o16) + " (mean of x32, x128)", "15%..35% (+- 10 points)", o16 >= 0.15 && o16 <= 0.35));
  bool conn_ok = true;
  std::string conn_txt;
  for (int i = 0; i < 4; ++i) {
    const double n = sc[i].sources / 2.0;
    conn_ok = conn_ok && res[i].conn_max >= n && res[i].conn_max <= 2 * n;
    conn_txt += fmt::format("{}{:.0f} of {:.0f}", i ? ", " : "", res[i].conn_max, n);
  }
  x.claims.push_back(claim("11.connections", "active receiver connections slightly above the number of streams (overlap of consecutive streams)",
                           "slightly above the streams per destination", "max " + conn_txt,
                           "streams <= max <= 2 x streams per destination", conn_ok));
  if (o4 > 0.43)
    x.notes.push_back(fmt::format(
        "4 sources: {} of the REQs went into the buffer, more than the paper's third; with 2 streams per destination each "
        "stream's packets are closer together (0.175 flits/cycle per source) than with 16 sources, so a packet delayed "
        "by a non-minimal route holds up more of its followers. Non-minimal share: {}.",
        pct(o4), pct(std::max(res[0].nonmin, res[1].nonmin))));
  const double bmax = std::max(res[4].occ_max, res[5].occ_max);
  x.figures["burst_occ_max"] = bmax;
  x.notes.push_back(fmt::format(
      "Bursty runs: the paper lowered the share of adaptively routed packets without saying by how much; we bias "
      "routing toward minimal by {} more flits (UGAL-L's threshold; added to PAR's), giving {} / {} non-minimal packets (x32 / x128). "
      "The peak occupancy depends on this setting: one packet that goes non-minimal in the middle of a back-to-back "
      "burst holds up the ~30 packets behind it.",
      kBurstyUgalThreshold, pct(res[4].nonmin), pct(res[5].nonmin)));
  x.claims.push_back(claim("11.bursty_half", "bursty injection: occupancy reaches about half of the ROB capacity", "~25 of 50",
                           fmt::format("max {:.0f} (x32 {:.0f}, x128 {:.0f})", bmax, res[4].occ_max, res[5].occ_max),
                           "15..35 (half +- 10)", bmax >= 15 && bmax <= 35));
  return x;
}

Experiment exp12(const Config& c) {
  Experiment x;
  x.id = "12";
  x.title = "Fig. 12: two connections per receiver, and the outstanding limit of 25";
  x.paper_setup = "as Fig. 11 (uniform random) but each receiver has only two connections; (c) the outstanding REQs "
                  "per sender connection limited to 25 (half the ROB)";
  const uint64_t cycles = c.quick ? 20000 : 100000, sample = c.quick ? 20 : 100;
  x.our_setup = fmt::format(
      "{}; routing {}; the uniform random scenarios of 11 with 2 connections per target (REQs answered NO_CONN fall "
      "back to slow mode, docs/ordering.md), without and with max_outstanding = 25; {} cycles",
      fabric_words(c), routing_words(c), cycles);
  std::vector<RobScenario> sc;
  for (unsigned lim : {127u, 25u})
    for (auto [n, l] : {std::pair{4u, 32u}, {4u, 128u}, {16u, 32u}, {16u, 128u}}) {
      RobScenario s;
      s.name = fmt::format("{}{}x{}", lim == 25 ? "lim" : "ur", n, l);
      s.label = fmt::format("{}{} sources x {}", lim == 25 ? "limit 25, " : "", n, l);
      s.sources = n;
      s.len = l;
      s.conns = 2;
      s.outstanding = lim;
      sc.push_back(s);
    }
  std::vector<RobResult> res;
  for (const auto& s : sc) res.push_back(rob_run(c, s, cycles, sample, 0, x));
  x.csv_text = series_csv(sc, res, sample);
  x.table = rob_table(sc, res);
  for (std::size_t i = 0; i < sc.size(); ++i) {
    x.figures[sc[i].name + "_occ_max"] = res[i].occ_max;
    x.figures[sc[i].name + "_overflow"] = res[i].overflow_share;
    x.figures[sc[i].name + "_overflow_full"] = static_cast<double>(res[i].overflow_full);
    x.figures[sc[i].name + "_conn_max"] = res[i].conn_max;
  }
  const RobResult& u = res[1];  // 4 x 128, no limit
  const RobResult& l = res[5];  // 4 x 128, limit 25
  x.claims.push_back(claim("12.fills", "with two connections the buffer occasionally fills up (4 x 128)", "fills (50)",
                           fmt::format("max {:.0f}", u.occ_max), ">= 45", u.occ_max >= 45));
  x.claims.push_back(claim("12.drops_5pct", "about 5% of the packets are dropped (4 streams x 128)", "~5%",
                           fmt::format("{} of the REQs arriving at destination 0 NACKed OVERFLOW", pct(u.overflow_share)),
                           "2.5%..10% (factor 2)", u.overflow_share >= 0.025 && u.overflow_share <= 0.10));
  x.notes.push_back(fmt::format(
      "Fallback here (docs/ordering.md, \"Where the paper is silent\", choice 2): a transfer answered NO_CONN stops "
      "sending new REQs and retries its oldest REQ with CON until the target holds a connection for it (back to fast "
      "mode: the NACKed REQs and, with no limit, the whole backlog the arrival process built up meanwhile go out at "
      "link rate) or nothing of it is in flight (connectionless slow mode for the rest of the stream). The buffer "
      "fills when such a burst meets reordering: the 4 x 128 run without limit peaked at {:.0f} with {} non-minimal "
      "packets; NO_CONN NACKs: {} (4 x 128), {} (16 x 32) of the REQs arriving at destination 0.",
      u.occ_max, pct(u.nonmin), pct(u.no_conn_share), pct(res[2].no_conn_share)));
  if (u.occ_max < 45)
    x.notes.push_back(fmt::format(
        "With {} of the packets routed non-minimally the bursts after a fallback arrive in order often enough that the "
        "buffer does not fill (peak {:.0f}); with `--routing ugal-l` (about half the packets non-minimal) the same run "
        "fills it (docs/ordering.md).",
        pct(u.nonmin), u.occ_max));
  double lim_max = 0, lim_full = 0;
  for (std::size_t i = 4; i < 8; ++i) {
    lim_max = std::max(lim_max, res[i].occ_max);
    lim_full += static_cast<double>(res[i].overflow_full);
  }
  x.claims.push_back(claim("12.limit_fixes", "limiting outstanding REQs per connection to 25 keeps the buffer from filling",
                           "no overflow (graph)",
                           fmt::format("max {:.0f}, {:.0f} full-buffer NACKs, OVERFLOW {} (4 x 128)", lim_max, lim_full,
                                       pct(l.overflow_share)),
                           "no full-buffer NACK, max <= 50, 4 x 128 OVERFLOW share below the unlimited run's",
                           lim_full == 0 && lim_max <= 50 && l.overflow_share < std::max(u.overflow_share, 1e-12)));
  return x;
}

// ------------------------------------------------------------------ plots

std::string gp_script(const Experiment& x, const Config& c) {
  std::ostringstream g;
  g << "set terminal pngcairo size 1000,640 noenhanced font ',10'\n";
  g << "set output '" << x.id << ".png'\n";
  g << "set datafile separator ','\nset grid\nset key outside right top\n";
  const std::string f = "'" + x.id + ".csv'";
  if (x.id == "8a") {
    g << "set title 'Fig. 8(a) reproduced: accepted throughput vs packet length (" << sw::to_string(c.routing) << ")'\n";
    g << "set xlabel 'packet length [flits]'\nset ylabel 'accepted [flits/cycle]'\nset yrange [0:1.1]\nset xtics 8\n";
    g << "plot " << f << " skip 1 using 1:2 with linespoints lw 2 title 'no ordering', "
      << f << " skip 1 using 1:4 with linespoints lw 2 title 'target-side (fast)', "
      << f << " skip 1 using 1:3 with linespoints lw 2 title 'source-side (slow)', "
      << f << " skip 1 using 1:5 with linespoints dt 2 title 'slow, 64 streams'\n";
  } else if (x.id == "8b" || x.id == "10") {
    const bool b = x.id == "8b";
    g << "set title '" << (b ? "Fig. 8(b)" : "Fig. 10") << " reproduced: stream latency vs stream length'\n";
    g << "set xlabel 'stream length [packets]'\nset ylabel 'latency [ns]'\nset xrange [5:45]\n";
    if (b) g << "set logscale y\n";
    const char* n[3] = {b ? "no ordering" : "source-side sync (flush)", b ? "source-side (slow)" : "target-side sync",
                        b ? "target-side (fast)" : "target-side ordering"};
    g << "plot ";
    for (int i = 0; i < 3; ++i)
      g << (i ? ", " : "") << f << " skip 1 using 1:" << 2 + 2 * i << ":" << 3 + 2 * i
        << " with yerrorlines lw 2 title '" << n[i] << "'";
    g << "\n";
  } else if (x.id == "9") {
    g << "set multiplot layout 1,2 title 'Fig. 9 reproduced: ordering granularity (128 packets per source)'\n";
    g << "set style fill solid 0.5\nset boxwidth 0.6\nset xlabel 'streams x packets'\nset ylabel 'latency [ns]'\n"
      << "set yrange [0:*]\nset key off\n";
    g << "set title 'total latency'\nplot " << f
      << " skip 1 using 0:3:xtic(sprintf('%dx%d',$1,$2)) with boxes, '' skip 1 using 0:3:4 with yerrorbars lc black\n";
    g << "set title 'REQ latency'\nplot " << f
      << " skip 1 using 0:5:xtic(sprintf('%dx%d',$1,$2)) with boxes, '' skip 1 using 0:5:6 with yerrorbars lc black\n";
    g << "unset multiplot\n";
  } else if (x.id == "11" || x.id == "12") {
    const bool e = x.id == "11";
    g << "set terminal pngcairo size 1200,1000 noenhanced font ',10'\nset output '" << x.id << ".png'\n";
    g << "set multiplot layout 3,1 title '" << (e ? "Fig. 11" : "Fig. 12")
      << " reproduced: reorder buffer of destination 0 (capacity 50)'\n";
    g << "set xlabel 'time [ns]'\n";
    const std::vector<std::string> a = e ? std::vector<std::string>{"ur4x32", "ur4x128", "ur16x32", "ur16x128"}
                                         : std::vector<std::string>{"ur4x32", "ur4x128", "ur16x32", "ur16x128"};
    const std::vector<std::string> cpanel = e ? std::vector<std::string>{"burst32", "burst128"}
                                              : std::vector<std::string>{"lim4x32", "lim4x128", "lim16x32", "lim16x128"};
    // column index of a scenario's occupancy: header order
    auto col = [&](const std::string& name) {
      std::istringstream h(x.csv_text.substr(0, x.csv_text.find('\n')));
      std::string cell;
      int i = 0;
      while (std::getline(h, cell, ',')) {
        ++i;
        if (cell == name + "_occupancy") return i;
      }
      return 0;
    };
    g << "set ylabel 'ROB occupancy [packets]'\nset yrange [0:55]\n";
    g << "set title '(a) occupancy, " << (e ? "unlimited" : "two") << " connections, uniform random'\nplot ";
    for (std::size_t i = 0; i < a.size(); ++i)
      g << (i ? ", " : "") << f << " skip 1 using 1:" << col(a[i]) << " with lines title '" << a[i] << "'";
    g << "\nset ylabel 'active connections'\nset yrange [0:*]\n";
    g << "set title '(b) receiver connections'\nplot ";
    for (std::size_t i = 0; i < a.size(); ++i)
      g << (i ? ", " : "") << f << " skip 1 using 1:" << col(a[i]) + 1 << " with steps title '" << a[i] << "'";
    g << "\nset ylabel 'ROB occupancy [packets]'\nset yrange [0:55]\n";
    g << "set title '(c) " << (e ? "bursty injection" : "outstanding limit 25 per connection") << "'\nplot ";
    for (std::size_t i = 0; i < cpanel.size(); ++i)
      g << (i ? ", " : "") << f << " skip 1 using 1:" << col(cpanel[i]) << " with lines title '" << cpanel[i] << "'";
    g << "\nunset multiplot\n";
  }
  return g.str();
}

}  // namespace

// Runs gnuplot on DIR/<exp>.gp in DIR (a child process); throws GnuplotError.
void run_gnuplot(const std::string& dir, const std::string& gp) {
  const std::string err = dir + "/gnuplot.err";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const std::string cd = dir;
  std::vector<std::string> args{"gnuplot", "-e", "cd '" + cd + "'", gp};
  std::vector<char*> av;
  for (auto& a : args) av.push_back(a.data());
  av.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "gnuplot", &fa, nullptr, av.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw GnuplotError(fmt::format("gnuplot not found (install gnuplot-nox: scripts/deps.sh); no plot for {}", gp));
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream ef(err);
  std::string line, first;
  while (std::getline(ef, line))
    if (!line.empty() && first.empty()) first = line;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw GnuplotError(fmt::format("gnuplot failed on {}/{}: {}", dir, gp, first.empty() ? "no message" : first));
  std::filesystem::remove(err);
}

// ================================================================== public

const std::vector<std::string>& experiment_ids() {
  static const std::vector<std::string> v{"8a", "8b", "9", "10", "11", "12"};
  return v;
}

std::vector<std::string> routing_names() {
  std::vector<std::string> v;
  for (unsigned i = 0; i < 16; ++i) {
    const std::string n = sw::to_string(static_cast<sw::DfRouting>(i));
    if (n != "?") v.push_back(n);
  }
  return v;
}

std::string default_routing() {
  for (const auto& n : routing_names())
    if (n.rfind("par", 0) == 0) return n;
  return "ugal-l";
}

// PAR as the paper's simulator ran it (docs/ordering.md "PAR's congestion signal and threshold"):
// the output credit occupancy of Booksim-style PAR, which reaches the threshold under load
// without congestion ("buffer levels ... reaching the threshold"); threshold: the 6 x 16-flit
// packets of Booksim's progressive UGAL, doubled for our hop-weighted comparison (2 : ~4 at the
// re-evaluating router instead of 1 : 2).
sw::DfParSignal default_par_signal() { return sw::DfParSignal::credits; }
unsigned default_par_threshold() { return 192; }

std::string Config::command_line() const {
  std::string s = "cosim reproduce ordering --exp " + (exps == experiment_ids() ? std::string("all") : join(exps, ","));
  if (quick) s += " --quick";
  s += fmt::format(" --seed {} --routing {}", seed, sw::to_string(routing));
  if (routing == sw::DfRouting::par)
    s += fmt::format(" --par-signal {} --par-threshold {}", sw::to_string(par_signal), par_threshold);
  return s;
}

Config parse(const Options& o) {
  Config c;
  if (o.what != "ordering") usage(fmt::format("unknown reproduction '{}' (allowed: ordering)", o.what));
  const auto& ids = experiment_ids();
  if (o.exp == "all") {
    c.exps = ids;
  } else {
    std::vector<std::string> want;
    std::stringstream ss(o.exp);
    std::string e;
    while (std::getline(ss, e, ',')) {
      if (std::find(ids.begin(), ids.end(), e) == ids.end())
        usage(fmt::format("--exp '{}' is not an experiment (allowed: {}|all)", e, join(ids, "|")));
      want.push_back(e);
    }
    if (want.empty()) usage(fmt::format("--exp '' is not an experiment (allowed: {}|all)", join(ids, "|")));
    for (const auto& id : ids)
      if (std::find(want.begin(), want.end(), id) != want.end()) c.exps.push_back(id);
  }
  c.quick = o.quick;
  if (o.out.empty()) usage("--out '' is not a directory (allowed: a writable directory path)");
  c.out_dir = o.out;
  {
    const std::string& v = o.seed;
    char* end = nullptr;
    errno = 0;
    const unsigned long long s = v.empty() || v[0] == '-' ? 0 : std::strtoull(v.c_str(), &end, 0);
    if (v.empty() || v[0] == '-' || *end != '\0' || errno == ERANGE)
      usage(fmt::format("--seed '{}' is not a number (allowed: 0..18446744073709551615)", v));
    c.seed = s;
  }
  const std::string r = o.routing.empty() ? default_routing() : (o.routing == "ugal" ? "ugal-l" : o.routing);
  bool found = false;
  for (unsigned i = 0; i < 16 && !found; ++i)
    if (sw::to_string(static_cast<sw::DfRouting>(i)) == r) {
      c.routing = static_cast<sw::DfRouting>(i);
      found = true;
    }
  if (!found) usage(fmt::format("--routing '{}' is not a routing (allowed: {})", o.routing, join(routing_names(), "|")));
  c.par_signal = default_par_signal();
  if (!o.par_signal.empty() && !sw::parse_par_signal(o.par_signal, &c.par_signal))
    usage(fmt::format("--par-signal '{}' is not a signal (allowed: queue|credits)", o.par_signal));
  c.par_threshold = default_par_threshold();
  if (!o.par_threshold.empty()) {
    const std::string& v = o.par_threshold;
    char* end = nullptr;
    errno = 0;
    const unsigned long t = v[0] == '-' ? 0 : std::strtoul(v.c_str(), &end, 10);
    if (v[0] == '-' || *end != '\0' || errno == ERANGE || t > 1000000)
      usage(fmt::format("--par-threshold '{}' is not a number of flits (allowed: 0..1000000)", v));
    c.par_threshold = static_cast<unsigned>(t);
  }
  return c;
}

bool Result::ok() const {
  for (const auto& x : exps)
    if (!x.errors.empty()) return false;
  return true;
}

Experiment run_experiment(const Config& c, const std::string& id) {
  const auto t0 = std::chrono::steady_clock::now();
  Experiment x;
  if (id == "8a") x = exp8a(c);
  else if (id == "8b") x = exp8b(c);
  else if (id == "9") x = exp9(c);
  else if (id == "10") x = exp10(c);
  else if (id == "11") x = exp11(c);
  else if (id == "12") x = exp12(c);
  else throw std::invalid_argument("unknown experiment " + id);
  x.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return x;
}

std::string markdown(const Config& c, const Result& r) {
  std::string m;
  m += "# Ordering protocols (Eberle and Dennison, SC18): the paper's experiments reproduced\n\n";
  m += fmt::format("`{}` ({}; {:.1f} s). Routing: {} (the paper: PAR-6/2). One cycle = one flit time = 1 ns.\n\n",
                   c.command_line(), c.quick ? "reduced runs" : "full runs", r.seconds,
                   c.routing == sw::DfRouting::par
                       ? fmt::format("par, congestion estimate `{}`, threshold {} flits", sw::to_string(c.par_signal),
                                     c.par_threshold)
                       : std::string(sw::to_string(c.routing)));
  m += "Each claim of the paper's text beside our value; **PASS**: ours is within the stated tolerance, **DIFF**: it is "
       "not (a difference to explain, not a failure of the protocol). Checker: every transfer complete, in order, "
       "exactly once, no state left, no timeout, no Dragonfly drop.\n\n";
  m += "| exp | claim (paper's text) | paper | ours | tolerance | verdict |\n|---|---|---|---|---|---|\n";
  unsigned pass = 0, total = 0;
  for (const auto& x : r.exps)
    for (const auto& cl : x.claims) {
      auto cell = [](std::string v) {  // a '|' would split the Markdown cell
        for (std::size_t i = v.find('|'); i != std::string::npos; i = v.find('|', i + 2)) v.replace(i, 1, "\\|");
        return v;
      };
      m += fmt::format("| {} | {} | {} | {} | {} | **{}** |\n", x.id, cell(cl.claim), cell(cl.paper), cell(cl.ours),
                       cell(cl.tolerance), cl.pass ? "PASS" : "DIFF");
      ++total;
      pass += cl.pass;
    }
  unsigned errs = 0;
  for (const auto& x : r.exps) errs += static_cast<unsigned>(x.errors.size());
  m += fmt::format("\n{} of {} claims PASS, {} DIFF. Checker errors: {}.\n", pass, total, total - pass, errs);
  for (const auto& x : r.exps) {
    m += fmt::format("\n## {} — {}\n\n", x.id, x.title);
    m += "* Paper: " + x.paper_setup + ".\n";
    m += "* Ours: " + x.our_setup + ".\n";
    m += fmt::format("* Files: `{}`, `{}`; {:.1f} s.\n\n", x.csv, x.png, x.seconds);
    m += x.table + "\n";
    if (c.plots) m += fmt::format("![{}]({})\n\n", x.id, x.png);
    for (const auto& n : x.notes) m += "* " + n + "\n";
    if (!x.errors.empty()) {
      m += "\n**Checker errors:**\n\n";
      for (std::size_t i = 0; i < x.errors.size() && i < 20; ++i) m += "* " + x.errors[i] + "\n";
    }
  }
  return m;
}

Result run(const Config& c, std::ostream* log) {
  Result r;
  const auto t0 = std::chrono::steady_clock::now();
  std::filesystem::create_directories(c.out_dir);
  for (const auto& id : c.exps) {
    if (log) *log << fmt::format("reproduce ordering: experiment {} ...", id) << std::flush;
    Experiment x = run_experiment(c, id);
    x.csv = id + ".csv";
    x.png = id + ".png";
    {
      std::ofstream f(c.out_dir + "/" + x.csv);
      if (!f) throw core::UsageError(fmt::format("--out: cannot write '{}/{}'", c.out_dir, x.csv));
      f << x.csv_text;
    }
    {
      std::ofstream f(c.out_dir + "/" + id + ".gp");
      f << gp_script(x, c);
    }
    if (log) {
      unsigned p = 0;
      for (auto& cl : x.claims) p += cl.pass;
      *log << fmt::format(" {:.1f} s, {}/{} claims PASS{}\n", x.seconds, p, x.claims.size(),
                          x.errors.empty() ? "" : fmt::format(", {} CHECKER ERRORS", x.errors.size()));
    }
    r.exps.push_back(std::move(x));
  }
  if (c.plots)
    for (const auto& x : r.exps) run_gnuplot(c.out_dir, x.id + ".gp");
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.report_path = c.out_dir + "/report.md";
  {
    std::ofstream f(r.report_path);
    f << markdown(c, r);
  }
  nlohmann::json j;
  j["command"] = c.command_line();
  j["quick"] = c.quick;
  j["seed"] = c.seed;
  j["routing"] = sw::to_string(c.routing);
  if (c.routing == sw::DfRouting::par) {
    j["par_signal"] = sw::to_string(c.par_signal);
    j["par_threshold"] = c.par_threshold;
  }
  j["seconds"] = r.seconds;
  j["ok"] = r.ok();
  for (const auto& x : r.exps) {
    nlohmann::json e;
    e["title"] = x.title;
    e["seconds"] = x.seconds;
    e["figures"] = x.figures;
    e["errors"] = x.errors;
    for (const auto& cl : x.claims)
      e["claims"][cl.id] = {{"pass", cl.pass}, {"paper", cl.paper}, {"ours", cl.ours}, {"tolerance", cl.tolerance}};
    j["experiments"][x.id] = e;
  }
  std::ofstream(c.out_dir + "/summary.json") << j.dump(2) << "\n";
  return r;
}

Command::Command(CLI::App& app) {
  sub_ = app.add_subcommand("reproduce", "reproduce a paper's experiments: cosim reproduce ordering [options]");
  sub_->add_option("reproduction", o_.what, "what to reproduce: ordering (Eberle and Dennison, SC18, section IV)")->required();
  sub_->add_option("--exp", o_.exp, "8a|8b|9|10|11|12|all, or a comma list (default all)");
  sub_->add_flag("--quick", o_.quick, "reduced runs on a reduced Dragonfly (well under a minute)");
  sub_->add_option("--out", o_.out, "output directory (default build/reproduce/ordering)");
  sub_->add_option("--seed", o_.seed, "random seed (default 1)");
  sub_->add_option("--routing", o_.routing, "Dragonfly routing (default: PAR-6/2 if available, else ugal-l)");
  sub_->add_option("--par-signal", o_.par_signal,
                   "PAR's congestion estimate: credits (egress queue + credits in use, as UGAL-L; default) or queue "
                   "(egress queue only)");
  sub_->add_option("--par-threshold", o_.par_threshold,
                   fmt::format("PAR's bias toward minimal routes, flits of the signal (default {})",
                               default_par_threshold()));
}

bool Command::parsed() const { return sub_ && sub_->parsed(); }

int Command::run() const {
  const Config c = parse(o_);
  Result r;
  try {
    r = reproduce::run(c, &std::cout);
  } catch (const GnuplotError& e) {
    std::cerr << "cosim: " << e.what() << "\n";
    return 1;
  }
  std::cout << "\n" << "| exp | claim | paper | ours | verdict |\n|---|---|---|---|---|\n";
  for (const auto& x : r.exps)
    for (const auto& cl : x.claims)
      std::cout << fmt::format("| {} | {} | {} | {} | {} |\n", x.id, cl.id, cl.paper, cl.ours, cl.pass ? "PASS" : "DIFF");
  std::cout << fmt::format("\nreport: {}\n", r.report_path);
  if (!r.ok()) {
    std::cout << "RESULT: FAIL (checker errors, see the report)\n";
    return 1;
  }
  std::cout << fmt::format("RESULT: PASS ({:.1f} s)\n", r.seconds);
  return 0;
}

}  // namespace tb::reproduce
