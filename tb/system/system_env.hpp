// The multi-XPU system (testbench `system`, docs/system.md): N XPUs, each with
// M SUE instances (sue_tx + sue_rx, C++ model by default, any block RTL or RTL
// in lockstep with its model), every instance with 1, 2 or 4 ports. Topology
// `planes` (SUE spec figure 1): port p of instance m of every XPU is on plane
// m*ports+p, one sw::Switch per plane (CBFC per class toward the NICs, lookup by
// the destination XPU of the AFH Gen2 header); topology `mesh` (figure 2):
// instance m of XPU a is cabled to instance m of its partner in matching m of a
// round-robin 1-factorization of the XPUs, all its ports in parallel.
//
// Per NIC port: the MAC (line-rate pacing of sue_tx's beats, pad and FCS;
// cut-through presentation of arriving frames to sue_rx, beat k once its bytes
// are in), the NIC PHY latencies, the cable, and a CBFC sender gate
// (cbfc::TxModel) toward the next hop (switch ingress or the peer NIC); the
// NIC's receive buffer returns credits as sue_rx takes each frame's last beat.
// Two lossless classes: VC 0 = requests (writes and read requests), VC 1 =
// responses (read responses), switch classes 0 and 1.
//
// The XPUs issue commands through the XPU transmit interface (Table 3) of an
// instance that reaches the destination (no peer tables: every instance
// addresses every XPU by its id, queue {XPU, VC} = XPU*4 + VC), spending the
// per-{destination, VC} queue credits; a read request makes the target issue a
// read response. An end-to-end core::Scoreboard checks every command: exactly
// once, byte-exact (64-bit digest), at the right XPU, in order per {src, dst,
// VC} in strict mode.
//
// Links: optionally (planes) link layer retry between every NIC port and its
// switch port (sw::LlrLink, both directions, clocked by the switch core clock;
// any partner the verilated llr RTL, alone or in lockstep with its model), and
// wire faults on every link (lnk::FaultInjector: frame errors, bit errors,
// drops). Without LLR a corrupted frame is forwarded (cut-through) and dropped
// by the receiving NIC's MAC (FCS), a dropped one never arrives: SUE recovers
// both (NACK, go-back-N, RTO).
//
// Plain C++ time wheel in picoseconds over two clocks: the SUE clock (625 ps,
// 1.6 GHz) and the switch core clock (sw::Params::core_mhz). No SystemC.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cbfc/cbfc.hpp"
#include "common/block.hpp"
#include "common/waves.hpp"
#include "core/rng.hpp"
#include "core/scoreboard.hpp"
#include "core/stats.hpp"
#include "core/time.hpp"
#include "link/faults.hpp"
#include "llr/llr.hpp"
#include "llr/llr_blocks.hpp"
#include "sue/encap.hpp"
#include "sue/sue_rx_model.hpp"
#include "sue/sue_tx_model.hpp"
#include "switch/llr_link.hpp"
#include "switch/switch.hpp"

namespace tb::system_tb {

using TxBlock = Block<sue::TxIn, sue::TxOut>;
using RxBlock = Block<sue::RxIn, sue::RxOut>;
using LockTx = Lockstep<sue::TxIn, sue::TxOut, sue::TxModel>;
using LockRx = Lockstep<sue::RxIn, sue::RxOut, sue::RxModel>;

enum class Topology : uint8_t { planes, mesh };
enum class Pattern : uint8_t { uniform, permutation, incast, alltoall, allreduce, fanout };
enum class Kind : uint8_t { model, rtl, lockstep };

constexpr unsigned kReqVc = 0;   ///< requests: writes and read requests (switch class 0)
constexpr unsigned kRespVc = 1;  ///< responses: read responses (switch class 1)
constexpr unsigned kClasses = 2;
constexpr unsigned kBeatBytes = 32;
constexpr unsigned kCtrlBytes = 18;
constexpr unsigned kWireOverhead = 20;  ///< preamble + SFD + IFG, charged per frame on every wire
/// Command opcodes (control byte 0; opaque to SUE).
enum Op : uint8_t { kWrite = 1, kReadReq = 2, kReadResp = 3 };

struct SysConfig {
  unsigned xpus = 8;
  unsigned instances = 1;  ///< SUE instances per XPU
  Topology topology = Topology::planes;
  std::string variant = "s4";  ///< the compiled parameterization the instances follow (ports, DataW, profile)
  sue::TxParams tp;            ///< num_xpus: xpus when every block is a model, the compiled variant's (>= xpus) with RTL
  sue::RxParams rp;
  bool strict = true;
  unsigned port_gbps = 200;    ///< 100 | 200 | 400 (a 256-bit beat at 1.6 GHz carries 409.6)
  double cable_ns = 9.2;       ///< one way, each hop (2 m twinax)
  double nic_tx_ns = 23;       ///< NIC MAC + PCS + PMA + FEC encode (docs/latency-budget.md: 8 + 3 + 5 + 7)
  double nic_rx_ns = 60;       ///< NIC PMA + PCS + MAC + FEC decode (5 + 5 + 8 + 42)
  sw::Params swp;              ///< every plane's switch (radix = xpus)
  uint32_t nic_buf_cells = 512;  ///< NIC receive buffer per class, 128-byte cells (the credits of its upstream)
  // traffic
  Pattern pattern = Pattern::uniform;
  double load = 0.5;  ///< offered command bytes (op header + control + data) per XPU / its port bandwidth
  unsigned dlen_min = 0, dlen_max = 256;
  bool bimodal = false;
  double read_ratio = 0.25;   ///< share of requests that are reads (a response of the requested length comes back)
  unsigned fan_in = 0;        ///< incast: senders XPU 1..fan_in to XPU 0 (0: all others)
  unsigned fanout = 4;        ///< fanout: destinations per XPU (a fixed set, uniform over it)
  bool uni = false;           ///< direction=uni: XPUs 0..N/2-1 send to N/2..N-1 only (uniform, permutation, fanout)
  uint32_t chunk_bytes = 4096;  ///< allreduce: bytes per XPU per step
  unsigned pending_max = 8;   ///< XPU: requests generated and waiting for the interface, per instance
  // XPU side of SUE and its configuration inputs
  uint32_t rx_credits = 16;
  unsigned sink_delay = 0;
  uint32_t partition = 42, rto = 65536, ack_delay = 4096, ack_count = 4, win_bytes = 131072, fo_retry = 4096;
  std::array<uint32_t, 4> vc_weight{{1, 1, 1, 1}};
  // blocks, per XPU (every instance of the XPU)
  std::vector<Kind> tx_kind, rx_kind;
  bool check_frames = true;  ///< sue::decode every frame a NIC sends (FCS, headers, commands)
  bool flit = false;         ///< nic=flit: every NIC a sue::Nic, the event-driven FlitSystem (tb/system/system_flit.*)
  bool flit_poll = false;    ///< testing: every sue::Nic works at every edge (sue::NicConfig::poll); same results
  bool flit_lockstep = false;  ///< testing: nic=flit runs the switches before every SUE edge instead of in synchronous windows; same results
  // links (planes: NIC port <-> switch port; mesh: NIC port <-> NIC port)
  bool llr = false;           ///< planes: link layer retry on every NIC <-> switch link, both directions (sw::LlrLink)
  lnk::FaultConfig faults;    ///< every wire, both directions, each its own random stream
  int fail_plane = -1;        ///< planes: the plane whose switch fails, with every link to it (-1: none) ...
  int fail_xpu = -1;          ///< mesh: the cable of port fail_port of instance fail_inst of this XPU fails (-1: none) ...
  unsigned fail_inst = 0, fail_port = 0;
  uint64_t fail_cycle = 0;    ///< ... at the start of this SUE cycle (docs/system.md "Plane failure")
  bool failing() const { return fail_plane >= 0 || fail_xpu >= 0; }
  std::string llr_variant = "l20";  ///< the compiled LLR RTL variant (rtl/llr/CMakeLists.txt) of every partner
  llr::Params llr_params;     ///< both partners of every LLR link (the compiled RTL variant's parameters)
  llr::Cfg llr_cfg;
  std::vector<Kind> llr_nic_kind;  ///< per XPU: its NIC-side LLR partners (every port of every instance); empty: models
  std::vector<Kind> llr_sw_kind;   ///< per plane * xpus + port: the switch-side LLR partner; empty: models
  uint64_t seed = 1;
  unsigned reset_cycles = 4;
  core::Ps clock_ps = 625;  ///< SUE clock, 1.6 GHz
  uint64_t warmup_cycles = 0;  ///< SUE cycles before the measurement window opens

  unsigned ports() const { return tp.num_ports; }
  unsigned planes() const { return topology == Topology::planes ? instances * tp.num_ports : 0; }
  unsigned nics() const { return xpus * instances; }
  bool any_rtl() const;      ///< a sue_tx or sue_rx block is RTL
  bool any_llr_rtl() const;  ///< an LLR partner is RTL
  /// "" or the one line saying what nic=flit does not model in this configuration (RTL, LLR, SUE Lite).
  std::string flit_refusal() const;
  static bool any_not_model(const std::vector<Kind>& v) {
    return std::any_of(v.begin(), v.end(), [](Kind k) { return k != Kind::model; });
  }
  /// The LLR partner at `side` (A: the NIC port, B: the switch port) of the link of XPU `a` on `plane`.
  Kind llr_kind(unsigned plane, unsigned a, sw::LlrLink::Side side) const;
};

/// topology=mesh cabling: a round-robin 1-factorization of the XPUs (n_even = xpus rounded up to even).
/// Instance r of XPU a is cabled to instance r of its partner in matching r: mesh_partner(n_even, a, r)
/// (>= xpus: none, the XPU sits matching r out). This is cabling, not a peer table: the instance
/// addresses its partner by its XPU id like any SUE instance.
unsigned mesh_partner(unsigned n_even, unsigned a, unsigned r);
/// The matching (= the instance of a) that pairs XPU a with XPU b (a != b, both < n_even).
unsigned mesh_matching(unsigned n_even, unsigned a, unsigned b);

/// pattern=permutation: the fixed destination of each XPU (a random derangement from the run seed, or a to
/// a + N/2 with direction=uni); empty for the other patterns.
std::vector<uint32_t> permutation_of(const SysConfig& c);

/// One NIC port's transmit wire (System::frame_done and FlitSystem::frame_out): a frame of `len` bytes
/// (pad and FCS included) whose first beat the MAC took at `sof` and its last at `eof` starts on the
/// wire once the NIC transmit PHY has it and the previous frame (+ preamble, IFG) is out; its first
/// byte reaches the far pin after the preamble and the cable, its last `ser(len)` later (or when the
/// MAC had it, if later). `wire_free` is updated.
struct WireTimes {
  core::Ps start, t_in, t_in_last;
};
inline WireTimes wire_times(core::Ps sof, core::Ps eof, uint32_t len, core::Ps& wire_free, core::Ps nic_tx, core::Ps cable,
                            unsigned gbps) {
  constexpr unsigned kPreamble = 8;  // preamble + SFD (of kWireOverhead)
  auto ser = [gbps](uint64_t bytes) { return static_cast<core::Ps>((bytes * 8000 + gbps - 1) / gbps); };
  WireTimes w;
  w.start = std::max(sof + nic_tx, wire_free);
  wire_free = w.start + ser(len + kWireOverhead);
  w.t_in = w.start + ser(kPreamble) + cable;
  w.t_in_last = std::max(w.t_in + ser(len), eof + nic_tx + cable);
  return w;
}

/// What an XPU's traffic generator keeps between requests (System and FlitSystem share it, with
/// next_destination and request_shape, so both NIC models see the same patterns).
struct XpuGen {
  unsigned a2a = 0;      ///< alltoall: offset of the next destination
  uint64_t spray = 0;    ///< unordered: round robin over the instances of a pair
  unsigned ar_step = 0;  ///< allreduce: current step, bytes of it sent, bytes received per step, done
  uint32_t ar_sent = 0;
  std::vector<uint32_t> ar_recv;
  bool ar_done = false;
  core::UniformInt dest_draw, size_draw;  ///< uniform: index into the other XPUs (or the receivers); command sizes
  /// The XPU's own traffic stream ("system.traffic.x<a>", gen_stream()): what one XPU draws does not
  /// depend on when the others draw, so the loop may run the XPUs in any order (FlitSystem's windows).
  core::Rng rng{0, "system.traffic"};
};

/// Name of XPU a's traffic stream of the run seed.
std::string gen_stream(unsigned a);

/// The j-th fixed destination of XPU a under pattern=fanout (uni: the receivers N/2..N-1 only).
inline unsigned fanout_destination(const SysConfig& c, unsigned a, unsigned j) {
  const unsigned N = c.xpus, H = N / 2;
  return c.uni ? H + (a + j) % H : (a + 1 + j) % N;
}

/// Destination of XPU a's next request under the pattern, or -1 when it has none now (not an incast
/// sender, an all-reduce step waiting for the predecessor's chunk or all steps done).
/// Uniform draws the destination from rng (over every other XPU); all-reduce advances its step here.
/// (Inline, as request_shape: they run once per request.)
inline int next_destination(const SysConfig& c, const std::vector<uint32_t>& perm, unsigned ar_steps, core::Rng& rng,
                            XpuGen& X, unsigned a) {
  const unsigned N = c.xpus;
  const unsigned H = N / 2;  // direction=uni: the senders are 0..H-1, the receivers H..N-1
  auto draw = [&](unsigned n) -> unsigned {
    if (n == 1) return 0;
    if (X.dest_draw.hi() != n - 1) X.dest_draw = core::UniformInt(0, n - 1);
    return static_cast<unsigned>(X.dest_draw(rng));
  };
  if (c.uni && a >= H && c.pattern != Pattern::incast) return -1;
  switch (c.pattern) {
    case Pattern::fanout: {
      return static_cast<int>(fanout_destination(c, a, draw(c.fanout)));
    }
    case Pattern::uniform: {
      if (c.uni) return static_cast<int>(H + draw(H));
      const unsigned k = draw(N - 1);  // every XPU but a, in ascending order
      return static_cast<int>(k < a ? k : k + 1);
    }
    case Pattern::permutation:
      return static_cast<int>(perm[a]);
    case Pattern::incast: {
      const unsigned f = c.fan_in ? c.fan_in : N - 1;
      if (a == 0 || a > f) return -1;
      return 0;
    }
    case Pattern::alltoall:
      return static_cast<int>((a + 1 + X.a2a % (N - 1)) % N);
    case Pattern::allreduce:
      if (X.ar_done) return -1;
      if (X.ar_sent >= c.chunk_bytes) {
        // The next step needs this step's chunk from the predecessor.
        if (X.ar_recv[X.ar_step] < c.chunk_bytes) return -1;
        ++X.ar_step;
        X.ar_sent = 0;
        if (X.ar_step == ar_steps) {
          X.ar_done = true;
          return -1;
        }
      }
      return static_cast<int>((a + 1) % N);
  }
  return -1;
}
/// Opcode, write data length and aux field (read length, all-reduce step) of that request: sizes and the
/// read choice drawn from rng (after the destination, only when the request is issued).
inline void request_shape(const SysConfig& c, core::Rng& rng, XpuGen& X, Op& op, unsigned& dlen, unsigned& aux) {
  op = kWrite;
  dlen = 0;
  aux = 0;
  if (c.pattern == Pattern::allreduce) {
    dlen = std::min<uint32_t>(c.dlen_max, c.chunk_bytes - X.ar_sent);
    aux = X.ar_step;
    X.ar_sent += dlen;
    return;
  }
  auto size = [&]() -> unsigned {
    if (c.bimodal) return rng.chance(0.5) ? c.dlen_min : c.dlen_max;
    if (X.size_draw.lo() != c.dlen_min || X.size_draw.hi() != c.dlen_max) X.size_draw = core::UniformInt(c.dlen_min, c.dlen_max);
    return static_cast<unsigned>(X.size_draw(rng));
  };
  if (c.read_ratio > 0 && rng.chance(c.read_ratio)) {
    op = kReadReq;
    aux = size();
  } else {
    dlen = size();
  }
  if (c.pattern == Pattern::alltoall) ++X.a2a;
}

/// Per-component wall time of the loop (bench profile), seconds.
struct Profile {
  double xpu = 0, tx = 0, rx = 0, net = 0, sw = 0;
};

/// Engines of the LLR partners: index (plane * xpus + xpu) * 2 + side (sw::LlrLink::A = the NIC port,
/// B = the switch port); nullptr or a short vector: llr::Model.
using LlrEngines = std::vector<std::unique_ptr<sw::LlrEngine>>;
inline size_t llr_engine_index(unsigned plane, unsigned xpus, unsigned a, sw::LlrLink::Side side) {
  return (static_cast<size_t>(plane) * xpus + a) * 2 + side;
}

/// Link figures summed over every link (both directions).
struct LinkFigures {
  unsigned llr_links = 0;
  sw::LinkStats up, down;      ///< LLR: NIC -> switch, switch -> NIC (sums; *_max: the largest)
  uint64_t wire_frames = 0;    ///< frames the wires carried (LLR: first transmissions and replays)
  uint64_t corrupted = 0;      ///< frames that arrived with a bad FCS
  uint64_t dropped = 0;        ///< frames that never arrived
  uint64_t llr_lost = 0;       ///< LLR: frames lost for good (a flush)
};

/// NIC port state both engines keep (System::Port, FlitSystem::Port): wiring, the wire's fault
/// injectors, the NIC receive buffer's CBFC accounting and the wire byte counters.
struct PortBase {
  core::Ps wire_free = 0;
  int plane = -1;    // planes: switch index
  unsigned xpu = 0;
  std::unique_ptr<lnk::FaultInjector> inj_out, inj_in;  // out: this port's transmit wire; in: its receive wire (planes)
  std::array<uint32_t, kClasses> rx_limit{}, rx_occ{};
  uint64_t wire_bytes = 0, frames = 0, win_bytes0 = 0, win_bytes1 = 0;
};

/// What System (cycle-exact NICs) and FlitSystem (sue::Nic) share: configuration, the permutation, switches,
/// the frame pool's free list, scoreboard, figures, per-XPU statistics and the bookkeeping of the
/// network (frames onto wires, switch drops and departures, credits back, deliveries).
class SystemBase {
 public:
  struct XpuStats {
    uint64_t req_issued = 0, resp_issued = 0, writes = 0, reads = 0;
    uint64_t delivered = 0, delivered_bytes = 0;   ///< commands received (bytes: op header + control + data)
    uint64_t win_rx_bytes = 0, win_tx_bytes = 0;   ///< in the measurement window: received / sourced and delivered
    uint64_t win_rx_cmds = 0, win_tx_cmds = 0;     ///< the same, commands
    uint64_t win_rx_beats = 0;                     ///< the same, XPU bus beats: max(1, ceil(dlen / DB)) per command
    uint64_t gen_stall = 0;                        ///< cycles the generator waited for a full pending queue
    uint64_t credit_stall = 0;                     ///< instance-cycles a command waited for a queue credit
  };
  struct Figures {
    core::Samples lat_req_ns, lat_resp_ns;  ///< per command: XPU TX interface -> far XPU RX interface
    uint64_t frames = 0, data_frames = 0, ack_frames = 0, wire_bytes = 0, frame_decode_errors = 0;
    std::string first_decode_error;
    uint64_t misdelivered = 0;
    std::string first_misdelivery;
    uint64_t flit_hops = 0;       ///< 128-byte flits leaving a switch port (mesh: a NIC port)
    uint64_t lossless_drops = 0, other_drops = 0;
    std::string first_drop;
    uint64_t cbfc_errors = 0;     ///< a NIC gate flag, or a NIC receive buffer over its credits
    std::string first_cbfc_error;
    std::vector<uint64_t> plane_bytes_win;    ///< wire bytes into each plane (planes) in the window
    std::vector<core::Ps> nic_credit_stall;   ///< per class: NIC port time with its gate closed (after reset)
    uint64_t win_start = 0, win_end = 0;      ///< SUE cycles of the measurement window
    uint64_t ar_done_cycle = 0;               ///< allreduce: cycle every XPU finished (0: not yet)
    /// fail_plane / fail_link: frames lost with what failed (held by its switch, on its wires or links, in a
    /// MAC of a dead port)
    uint64_t failure_lost = 0;
    bool failed = false;  ///< the configured failure happened (its cycle came within the run)
    /// Frames that reached the switch model after their head was due in its ingress pipeline (the
    /// MAC learns a frame's length at its last beat): count and the largest delay, ps.
    uint64_t late_frames = 0;
    core::Ps late_max = 0;
    unsigned ar_steps = 0;
  };

  bool traffic() const { return traffic_; }
  uint64_t cycles() const { return cycle_; }
  core::Ps now() const { return static_cast<core::Ps>(cycle_) * cfg_.clock_ps; }
  const SysConfig& config() const { return cfg_; }
  void finish() { sb_.finish(); }
  void set_profiling(bool on) { profiling_ = on; }
  const Profile& profile() const { return prof_; }
  const core::Scoreboard& scoreboard() const { return sb_; }
  const std::vector<std::unique_ptr<sw::Switch>>& switches() const { return sw_; }
  const std::vector<XpuStats>& xpu_stats() const { return xs_; }
  /// Ordered XPU pairs {src, dst} over which at least one command was delivered (the reach of the traffic).
  uint64_t pairs_reached() const {
    uint64_t n = 0;
    for (uint64_t w : pairs_seen_) n += static_cast<uint64_t>(__builtin_popcountll(w));
    return n;
  }
  /// Commands received from the NICs by the XPUs.
  uint64_t delivered() const;
  /// Frames allocated (in a MAC, a link, a switch or a NIC receive queue).
  size_t frames_in_flight() const { return live_frames_; }

 protected:
  explicit SystemBase(const SysConfig& cfg);
  ~SystemBase();
  /// The permutation, the planes' switches, per-XPU statistics, the figures.
  void build_common();

  core::Ps ser(uint64_t bytes) const {
    return static_cast<core::Ps>((bytes * 8000 + cfg_.port_gbps - 1) / cfg_.port_gbps);
  }
  uint32_t cells(uint32_t bytes) const { return (bytes + 127) / 128; }
  uint32_t flow_of(unsigned src, unsigned dst, unsigned vc) const { return (src * cfg_.xpus + dst) * 2 + vc; }

  /// Frame pool (the frames themselves are the engine's): a free or a new index.
  template <class F>
  uint32_t alloc_slot(std::vector<F>& frames) {
    uint32_t f;
    if (!free_frames_.empty()) {
      f = free_frames_.back();
      free_frames_.pop_back();
    } else {
      f = static_cast<uint32_t>(frames.size());
      frames.emplace_back();
    }
    ++live_frames_;
    return f;
  }
  void free_slot(uint32_t f) {
    free_frames_.push_back(f);
    --live_frames_;
  }
  /// stop_traffic(): the measurement window closes, the wire bytes into each plane counted.
  template <class Nics>
  void close_window(Nics& nics) {
    if (!traffic_) return;
    traffic_ = false;
    fig_.win_end = cycle_;
    for (auto& n : nics)
      for (PortBase& pt : n->ports) {
        pt.win_bytes1 = pt.wire_bytes;
        if (pt.plane >= 0) fig_.plane_bytes_win[static_cast<size_t>(pt.plane)] += pt.win_bytes1 - pt.win_bytes0;
      }
  }
  /// idle() / busy_reason() beyond the NICs: traffic, frames, scoreboard, switches.
  bool net_idle() const;
  std::string net_busy() const;  ///< scoreboard and switches ("" when both are done)
  /// A frame of `len` bytes leaves NIC port `port` of XPU `xpu` instance `inst` on `pt`: counted; false
  /// (a CBFC error recorded) when its class or length is out of bounds.
  bool frame_onto_wire(PortBase& pt, unsigned xpu, unsigned inst, unsigned port, uint32_t len, unsigned vc) {
    ++fig_.frames;
    fig_.wire_bytes += len + kWireOverhead;
    pt.wire_bytes += len + kWireOverhead;
    ++pt.frames;
    if (vc < kClasses && len <= mtu_bytes_) return true;
    frame_refused(xpu, inst, port, len, vc);
    return false;
  }
  /// A frame on a wire with fault injector `inj` (nullptr: none) from t0 to t1: false when dropped, `bad`
  /// set when corrupted.
  static bool wire_passes(lnk::FaultInjector* inj, uint64_t id, unsigned cls, uint32_t len, core::Ps t0, core::Ps t1,
                          bool& bad) {
    return !inj || wire_faults(*inj, id, cls, len, t0, t1, bad);
  }
  /// A NIC's frame as a switch packet.
  static sw::Packet nic_packet(uint64_t id, unsigned xpu, uint32_t dst, unsigned cls, uint32_t len, core::Ps t_in = 0,
                               core::Ps t_in_last = -1) {
    sw::Packet pk;
    pk.id = id;
    pk.tag = xpu;
    pk.dst_xpu = dst;
    pk.cls = static_cast<uint8_t>(cls);
    pk.bytes = len;
    pk.t_in = t_in;
    pk.t_in_last = t_in_last;
    return pk;
  }
  /// Port p of instance m of XPU a: its XPU, plane and receive buffer limits.
  void init_port(PortBase& pt, unsigned a, unsigned m, unsigned p) const;
  /// Mesh: the XPU cabled to instance m of XPU a (-1: none, odd xpus).
  int mesh_peer(unsigned a, unsigned m) const {
    const unsigned b = mesh_partner(cfg_.xpus + (cfg_.xpus & 1u), a, m);
    return b < cfg_.xpus ? static_cast<int>(b) : -1;
  }
  /// Mesh: every port of every instance pointed at its cable partner, peer_of(the partner NIC, port).
  template <class Nics, class PeerOf>
  void wire_mesh(Nics& nics, PeerOf peer_of) {
    const unsigned N = cfg_.xpus, M = cfg_.instances, P = cfg_.ports();
    if (cfg_.topology != Topology::mesh) return;
    for (unsigned a = 0; a < N; ++a)
      for (unsigned m = 0; m < M; ++m) {
        const int b = mesh_peer(a, m);
        if (b < 0) continue;
        for (unsigned p = 0; p < P; ++p)
          nics[static_cast<size_t>(a) * M + m]->ports[p].peer = peer_of(*nics[static_cast<size_t>(b) * M + m], p);
      }
  }
  /// The instance of XPU a that carries its next command to dst (!= a) on vc. planes: every instance
  /// reaches every XPU; strict mode pins a flow to instance (a + dst + vc) mod M (its order lives in one
  /// instance), unordered mode sprays round robin over the instances (make_cmd moves the spray position
  /// on). mesh: the instance cabled to dst.
  unsigned instance_of(const XpuGen& X, unsigned a, unsigned dst, unsigned vc) const {
    const unsigned M = cfg_.instances;
    if (cfg_.topology == Topology::mesh) return mesh_matching(cfg_.xpus + (cfg_.xpus & 1u), a, dst);
    if (M == 1) return 0;
    return static_cast<unsigned>(cfg_.strict ? (a + dst + vc) % M : X.spray % M);
  }
  /// A command of XPU a to dst on vc: its instance (returned), queue and fields; ids from next_id (per dst, vc).
  template <class Cmd>
  unsigned make_cmd(XpuGen& X, std::vector<uint64_t>& next_id, unsigned a, unsigned dst, unsigned vc, Op op,
                    unsigned dlen, unsigned aux, Cmd& c) const {
    return make_cmd_at(X, next_id, instance_of(X, a, dst, vc), dst, vc, op, dlen, aux, c);
  }
  /// make_cmd with the instance already chosen (instance_of with the same X, a, dst and vc). The queue is
  /// {dst, vc}: the instance addresses dst by its XPU id.
  template <class Cmd>
  unsigned make_cmd_at(XpuGen& X, std::vector<uint64_t>& next_id, unsigned m, unsigned dst, unsigned vc, Op op,
                       unsigned dlen, unsigned aux, Cmd& c) const {
    if (!cfg_.strict) ++X.spray;
    c.dst = dst;
    c.vc = static_cast<uint8_t>(vc);
    c.op = op;
    c.dlen = static_cast<uint16_t>(dlen);
    c.aux = aux;
    c.q = static_cast<uint16_t>(dst * 4 + vc);
    c.id = next_id[dst * 2 + vc]++;
    return m;
  }
  /// `c` cells arrive in the receive buffer of `pt` (pl: the plane, -1 from a mesh peer NIC).
  void buffer_in(PortBase& pt, unsigned cls, uint32_t c, int pl);
  /// A frame the switch of plane `pl` dropped (the frame is released by the caller).
  void note_drop(unsigned pl, const sw::Packet& pk, sw::DropReason why, core::Ps t);
  /// The NIC took a frame of `c` cells out of the receive buffer of `pt` at t: the credits go back
  /// (planes: to the switch, done here; true when the caller sends them to a mesh peer).
  bool credit_back(PortBase& pt, unsigned xpu, unsigned cls, uint32_t c, core::Ps t) {
    pt.rx_occ[cls] -= c;
    pt.rx_limit[cls] = (pt.rx_limit[cls] + c) & 0xffffu;
    if (pt.plane < 0) return true;
    sw_[static_cast<size_t>(pt.plane)]->credit_in(xpu, cls, pt.rx_limit[cls], t + nic_tx_ + cable_);
    return false;
  }
  /// An XPU issued a command.
  void count_issue(unsigned a, bool response, Op op) {
    if (response) {
      ++xs_[a].resp_issued;
    } else {
      ++xs_[a].req_issued;
      ++(op == kReadReq ? xs_[a].reads : xs_[a].writes);
    }
  }
  /// A command of `dlen` data bytes from `src` reached XPU `xpu` at cycle x, `lat` cycles after it was issued.
  void count_delivery(unsigned xpu, unsigned src, unsigned vc, uint32_t dlen, uint64_t lat, uint64_t x) {
    (vc == kRespVc ? fig_.lat_resp_ns : fig_.lat_req_ns).add(core::to_ns(static_cast<core::Ps>(lat) * cfg_.clock_ps));
    const uint64_t bytes = 20 + dlen;
    XpuStats& xr = xs_[xpu];
    const size_t pr = static_cast<size_t>(src) * cfg_.xpus + xpu;
    pairs_seen_[pr >> 6] |= 1ull << (pr & 63);
    ++xr.delivered;
    xr.delivered_bytes += bytes;
    if (x >= fig_.win_start && (traffic_ || x < fig_.win_end)) {
      xr.win_rx_bytes += bytes;
      xs_[src].win_tx_bytes += bytes;
      ++xr.win_rx_cmds;
      ++xs_[src].win_tx_cmds;
      const uint32_t db = cfg_.tp.db();
      xr.win_rx_beats += dlen > db ? (dlen + db - 1) / db : 1;
    }
  }
  void misdelivery(unsigned xpu, unsigned inst, uint64_t cyc, const std::string& what);
  static void add_faults(LinkFigures& r, const PortBase& pt);
  void frame_refused(unsigned xpu, unsigned inst, unsigned port, uint32_t len, unsigned vc);  // frame_onto_wire: false
  static bool wire_faults(lnk::FaultInjector& inj, uint64_t id, unsigned cls, uint32_t len, core::Ps t0, core::Ps t1,
                          bool& bad);  // wire_passes with an injector

  SysConfig cfg_;
  std::vector<uint32_t> perm_;
  std::vector<XpuStats> xs_;
  std::vector<uint64_t> pairs_seen_;  // bit src * N + dst: a command of src reached dst
  std::vector<std::unique_ptr<sw::Switch>> sw_;
  std::vector<uint32_t> free_frames_;
  size_t live_frames_ = 0;
  core::Scoreboard sb_;
  uint64_t cycle_ = 0;
  bool traffic_ = true;
  mutable Figures fig_;  // FlitSystem::figures() fills nic_credit_stall
  uint32_t mtu_bytes_ = 0, mtu_cells_ = 0;
  double tokens_per_cycle_ = 0;  // per XPU
  core::Ps cable_, nic_tx_, nic_rx_;
  std::vector<uint8_t> plane_dead_;  // per plane: its switch failed (fail_plane); no longer ticked
  bool profiling_ = false;
  Profile prof_;
};

class System : public SystemBase {
 public:
  /// tx / rx: one block per NIC (index xpu * instances + instance); nullptr = the C++ model
  /// (run directly, outputs read by reference: the fast path). llr: engines of LLR partners (llr_engine_index).
  System(const SysConfig& cfg, std::vector<std::unique_ptr<TxBlock>> tx, std::vector<std::unique_ptr<RxBlock>> rx,
         LlrEngines llr = {});
  ~System();

  /// One SUE clock edge, after the switch edges that come before it.
  void cycle();
  void stop_traffic();
  /// Traffic stopped, every command delivered, every queue, buffer, link and switch empty.
  bool idle() const;
  std::string busy_reason() const;
  std::optional<Mismatch> mismatch() const;
  bool mismatched() const;
  std::string model_assertion() const;
  /// RTL waves: dumped at the falling edge before each SUE edge and after it (RTL LLR partners: after
  /// each switch clock edge); times only increase (a dump at or before the last one moves 1 ps later).
  void set_waves(Waves* w);

  // ---- results
  const Figures& figures() const { return fig_; }
  /// A sue_tx (tx) or sue_rx counter summed over every NIC.
  uint64_t tx_sum(unsigned i) const;
  uint64_t rx_sum(unsigned i) const;
  /// First NIC-level error (sue_tx refusals, err flags, sue_rx drops that need faults), "" none.
  std::string nic_errors() const;
  /// Commands the XPUs handed to sue_tx (cmds_in must equal it).
  uint64_t issued() const;
  LinkFigures link_figures() const;
  /// The LLR partners that are RTL (alone or in lockstep), in build order.
  const std::vector<const llr_tb::LinkEngine*>& llr_rtl() const { return llr_rtl_; }

 private:
  struct Cmd;
  struct Frame;
  struct Port;
  struct Nic;
  struct Xpu;

  std::vector<std::unique_ptr<Nic>> nics_;  // xpu * M + instance
  std::vector<Xpu> xpus_;
  std::vector<Frame> frames_;
  cbfc::Params gate_params_;
  cbfc::TxCfg gate_cfg_;
  double bytes_per_cycle_ = 0;        // port rate, bytes per SUE cycle
  Waves* waves_ = nullptr;
  core::Ps last_dump_ = -1;
  std::vector<const llr_tb::LinkEngine*> llr_rtl_;

  uint32_t alloc_frame();
  void release_frame(uint32_t f);

  void build_nics(std::vector<std::unique_ptr<TxBlock>>& tx, std::vector<std::unique_ptr<RxBlock>>& rx);
  void build_links(LlrEngines& llr);
  void llr_edge(sw::Switch& s, Port& pt, core::Ps T);
  void dump(core::Ps t);
  void switch_tick(unsigned plane);
  void generate(unsigned a);
  bool make_request(unsigned a, Cmd& c);
  void queue_cmd(unsigned a, unsigned dst, unsigned vc, Op op, unsigned dlen, unsigned aux, bool response);
  void drive(Nic& n, sue::TxIn& in);
  void sink(Nic& n);
  void mac_tx(Nic& n, unsigned p, const sue::TxOut& o, core::Ps t);
  void frame_done(Nic& n, unsigned p, core::Ps t);
  void check_frame(const Frame& f, unsigned src, unsigned inst);
  void present(Port& pt, core::Ps t, sue::RxBeat& b);
  void rx_taken(Nic& n, unsigned p, core::Ps t);
  void tick_gate(Port& pt, core::Ps t);
  void fail_plane(unsigned pl);
  void fail_link(unsigned a, unsigned m, unsigned p);
  void kill_port(Nic& n, unsigned p);
  unsigned clock_plane_ = 0;  // a live plane: its switch's time paces the others (they share the clock)
};

}  // namespace tb::system_tb
