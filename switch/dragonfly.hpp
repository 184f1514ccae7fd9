// sw::Dragonfly: a Dragonfly fabric built from sw::Switch routers (a topology
// with its routing on the switch engine, not a separate simulator).
// docs/switch.md "Dragonfly" describes topology, global link arrangement,
// routing, VC assignment and what is (not) implemented.
//
// Time unit: one core cycle = one flit time on every channel (the paper's
// "1 flit per ns"): routers run 128 B flits at 800 Gb/s with a 781.25 MHz core
// (1.28 ns), so one flit leaves every port per cycle. Channel latencies and
// all reported latencies are in cycles (= the paper's ns).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/rng.hpp"
#include "core/scoreboard.hpp"
#include "core/stats.hpp"
#include "switch/switch.hpp"

namespace sw {

/// minimal; valiant; ugal = UGAL-L (source decision); par = PAR-6/2 (progressive
/// adaptive: UGAL-L-like at the source, re-evaluated at the next router of the
/// source group; 6 local / 2 global VCs). docs/switch.md "Dragonfly".
enum class DfRouting : uint8_t { minimal, valiant, ugal, par };
const char* to_string(DfRouting r);  ///< "minimal", "valiant", "ugal-l", "par"
/// Parses "minimal", "valiant", "ugal" (or "ugal-l"), "par"; false on anything else.
bool parse_routing(const std::string& s, DfRouting* out);
inline const char* routing_choices() { return "minimal, valiant, ugal, par"; }

/// PAR's congestion estimate of an output port (both decisions; docs/switch.md "Dragonfly"):
/// queue = flits waiting in this router's egress queue for the port (all VCs);
/// credits = those plus the credits in use toward the downstream router (flits in its
/// buffer, flits and credits in flight on the channel, all VCs): the output credit
/// occupancy that UGAL-L and Booksim-style PAR compare.
enum class DfParSignal : uint8_t { queue, credits };
const char* to_string(DfParSignal s);  ///< "queue", "credits"
/// Parses "queue", "credits"; false on anything else.
bool parse_par_signal(const std::string& s, DfParSignal* out);
inline const char* par_signal_choices() { return "queue, credits"; }

/// Generated traffic: uniform random destination (!= self), or the adversarial
/// group shift: every endpoint of group i sends to a random endpoint of group i+1 (mod g).
enum class DfTraffic : uint8_t { uniform, shift };
const char* to_string(DfTraffic t);

/// One router-to-router channel traversal (Dragonfly::set_hop_hook): the VC is the
/// class the packet holds in the downstream router's ingress buffer.
struct DfHop {
  uint64_t id;       ///< packet
  unsigned router;   ///< upstream router
  unsigned port;     ///< its egress port
  bool global;       ///< global channel (else local)
  unsigned vc;       ///< VC on this channel
  unsigned hop;      ///< 1-based router-to-router hop index of the packet
};

struct DragonflyParams {
  unsigned g = 33;               ///< groups; (g-1) must divide a*h (g = a*h+1: one link per group pair)
  unsigned a = 8;                ///< routers per group (all-to-all local channels)
  unsigned p = 4;                ///< endpoints per router
  unsigned h = 4;                ///< global channels per router
  unsigned local_cycles = 40;    ///< local channel latency (paper: 40 ns at 1 flit/ns)
  unsigned global_cycles = 500;  ///< global channel latency (paper: 500 ns)
  unsigned endpoint_cycles = 1;  ///< endpoint <-> router channel latency
  unsigned router_cycles = 0;    ///< router pipeline, head in -> head out at zero load (paper: none)
  unsigned min_flits = 16, max_flits = 16;  ///< packet size, uniform in [min, max] (paper: 8..32)
  unsigned vc_buf_flits = 1100;  ///< CBFC credits per input per VC (> global round trip of 2*500 cycles)
  double load = 0.3;             ///< offered flits per endpoint per cycle (Bernoulli packet arrivals)
  DfRouting routing = DfRouting::minimal;
  DfTraffic traffic = DfTraffic::uniform;
  unsigned ugal_threshold = 0;   ///< UGAL-L bias toward minimal, flits
  unsigned par_threshold = 0;    ///< PAR bias toward minimal (both decisions), flits of the par_signal measure
  DfParSignal par_signal = DfParSignal::queue;  ///< PAR's congestion estimate (queue: egress queue; credits: + credits in use)
  uint64_t seed = 1;             ///< streams "dragonfly.src.<e>", "dragonfly.route"
  bool scoreboard = true;        ///< end-to-end exactly-once check

  unsigned radix() const { return p + (a - 1) + h; }
  unsigned routers() const { return g * a; }
  unsigned endpoints() const { return g * a * p; }
  /// Empty when valid, otherwise one line naming the bad field and the allowed values.
  std::string validate() const;
  /// The per-router sw::Params these settings imply (6 lossless classes = VCs, CBFC).
  Params router_params() const;
};

/// Result of a Dragonfly run (since construction or reset_stats()).
struct DfStats {
  uint64_t cycles = 0;
  uint64_t offered_pkts = 0, offered_flits = 0;      ///< generated
  uint64_t delivered_pkts = 0, delivered_flits = 0;  ///< ejected (tail at the endpoint)
  double offered_rate = 0, accepted_rate = 0;        ///< flits per endpoint per cycle
  double lat_mean = 0, lat_p99 = 0, lat_max = 0;     ///< creation -> tail ejected, cycles
  unsigned hops_min = 0, hops_max = 0;               ///< router-to-router hops
  double nonminimal_share = 0;                       ///< of delivered packets
  uint64_t drops = 0;                                ///< any router drop (must stay 0)
};

class Dragonfly {
 public:
  /// Throws std::invalid_argument("dragonfly: <validate() line>") on bad parameters.
  explicit Dragonfly(const DragonflyParams& dp);
  ~Dragonfly();

  // ---- topology (ports of a router: [0,p) endpoints, [p,p+a-1) local, [p+a-1,radix) global)
  struct Peer {
    unsigned router, port;
  };
  unsigned group_of(unsigned router) const { return router / dp_.a; }
  /// Router-side peer of router `r` port `port` (endpoint ports: router = r, port = port).
  Peer peer(unsigned r, unsigned port) const;
  unsigned local_port(unsigned r_from, unsigned r_to) const;  ///< in-group port of r_from toward r_to
  /// Router (global index) and global port index j in its group that own the
  /// copy-th link from group `from` to group `to`.
  Peer global_owner(unsigned from, unsigned to, unsigned copy) const;
  unsigned links_per_pair() const { return dp_.a * dp_.h / (dp_.g - 1); }
  /// Router-to-router hops from router r to endpoint dst via group `inter` (-1: minimal).
  unsigned path_hops(unsigned r, int inter, unsigned dst) const;

  // ---- traffic
  /// One packet from endpoint src to dst queued now (in addition to the generators).
  void offer(unsigned src, unsigned dst, unsigned flits);
  // ---- delivery API (for fabric adapters, e.g. uet::DragonflyNet)
  /// Like offer(), with an opaque `tag` handed back to on_deliver; returns the packet id.
  uint64_t offer(unsigned src, unsigned dst, unsigned flits, uint64_t tag);
  /// Called when a packet's tail is ejected: `now` is the cycle its tail reaches the
  /// endpoint (may be later than cycle()), `tag` the offer's tag (0 without one).
  std::function<void(uint64_t now, unsigned src, unsigned dst, uint64_t tag)> on_deliver;
  /// Packets waiting in endpoint src's injection queue (not yet on its channel).
  std::size_t queued(unsigned src) const;
  void set_generators(bool on) { gen_on_ = on; }

  void tick();
  void run(uint64_t cycles) {
    for (uint64_t i = 0; i < cycles; ++i) tick();
  }
  /// Stops the generators and runs until every packet is delivered or `limit_cycles`
  /// pass; true when everything was delivered.
  bool drain(uint64_t limit_cycles);
  uint64_t outstanding() const { return outstanding_; }
  uint64_t cycle() const { return cycle_; }

  DfStats stats() const;
  void reset_stats();
  core::Scoreboard& scoreboard() { return sb_; }
  Switch& router(unsigned r) { return *routers_[r]; }
  const DragonflyParams& params() const { return dp_; }
  /// Delivered packets (keep_log(true)): router-to-router hops, latency creation -> tail ejected.
  struct Delivery {
    unsigned src, dst, hops, flits;
    bool nonminimal;
    uint64_t latency;
  };
  void keep_log(bool on) { keep_log_ = on; }
  const std::vector<Delivery>& log() const { return log_; }
  /// Called for every router-to-router channel a packet takes (tests: VC budget per channel).
  void set_hop_hook(std::function<void(const DfHop&)> f) { hop_hook_ = std::move(f); }

 private:
  struct Endpoint;
  DragonflyParams dp_;
  Params rp_;
  Ps P_;
  unsigned R_;
  std::vector<std::unique_ptr<Switch>> routers_;
  std::vector<Endpoint> eps_;
  core::Rng route_rng_;
  core::Scoreboard sb_;
  uint64_t cycle_ = 0, next_id_ = 1, outstanding_ = 0;
  bool gen_on_ = true;
  // stats window
  uint64_t drops_ = 0, misrouted_ = 0;
  uint64_t st_start_ = 0, off_pkts_ = 0, off_flits_ = 0, del_pkts_ = 0, del_flits_ = 0, nonmin_ = 0;
  unsigned hmin_ = ~0u, hmax_ = 0;
  core::Samples lat_;
  bool keep_log_ = false;
  std::vector<Delivery> log_;

  std::function<void(const DfHop&)> hop_hook_;

  // Topology tables (build_tables(), at construction): peer of every router port;
  // per (from group, to group, copy): owner router, its global port, arrival router.
  struct Link {
    unsigned owner = 0, port = 0, arrival = 0;
  };
  std::vector<Peer> peer_tab_;
  std::vector<Link> link_tab_;
  void build_tables();
  Peer peer_calc(unsigned r, unsigned port) const;
  unsigned copies_ = 1;  // links_per_pair()
  const Link& link(unsigned from, unsigned to, unsigned dst) const {
    const size_t i = static_cast<size_t>(from) * dp_.g + to;
    return link_tab_[copies_ == 1 ? i : i * copies_ + dst % copies_];
  }
  unsigned min_hops(unsigned r, unsigned dst) const;  ///< minimal router-to-router hops from r to endpoint dst

  int route(unsigned r, Switch& s, Packet& pk);
  int route_par(unsigned r, Switch& s, Packet& pk);
  uint64_t queue_flits(const Switch& s, unsigned port) const;
  unsigned port_toward_group(unsigned r, unsigned tg, unsigned dst) const;
  uint64_t occupancy(const Switch& s, unsigned port) const;
  uint64_t enqueue(unsigned src, unsigned dst, unsigned flits);
  std::unordered_map<uint64_t, uint64_t> tags_;  // packet id -> offer tag (delivery API)
};

}  // namespace sw
