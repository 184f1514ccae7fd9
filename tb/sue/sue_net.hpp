// The network of the SUE system testbench (sue_system), plain C++, no SystemC:
// per node and port a MAC model (pads, appends the FCS, paces beats at the port
// rate; on receive checks and strips the FCS and presents the frame cut-through,
// beat k when its bytes have arrived), the links (lnk::Channel: serialization,
// FEC, cable; lnk::FaultInjector: drops and FCS-detected bit errors), either a
// direct cable per plane (nodes=2) or one crossbar switch per plane (fixed
// first-bit-in to first-bit-out latency, per-egress-port serialization, one FIFO
// per VC), CBFC per VC on every hop (cbfc::TxModel at the sender gates frames,
// cbfc::RxModel at the receiver returns credits over the reverse direction),
// corruption after the FCS check that only the R-CRC can catch, and the failure
// of a whole plane. With `llr` every hop is a sw::LlrLink (link layer retry:
// an llr::Model at each end, the faults on its wires, FCS-bad and dropped frames
// replayed below SUE; the frame bytes stay in the side table keyed by the token).
// docs/sue.md "Testbench".
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cbfc/cbfc.hpp"
#include "core/rng.hpp"
#include "core/time.hpp"
#include "link/faults.hpp"
#include "link/link.hpp"
#include "sue/encap.hpp"
#include "switch/llr_link.hpp"

namespace tb::sue_tb {

constexpr unsigned kVcs = 4;
constexpr unsigned kBeatBytes = 32;
constexpr unsigned kMaxPorts = 4;

/// One 256-bit network beat, frame byte 0 first (bits 255..248 of the RTL bus).
struct Beat {
  bool valid = false, sof = false, eof = false, err = false;
  unsigned nbytes = 0;
  std::array<uint8_t, kBeatBytes> data{};
};

struct NetConfig {
  unsigned nodes = 2, ports = 1;
  bool lite = false;
  bool use_switch = true;      ///< false: a direct cable per plane (nodes = 2)
  core::Ps clock_ps = 625;
  lnk::Params link;            ///< rate = port rate; cable; FEC
  double switch_ns = 250;      ///< first bit in to first bit out (cut-through when >= the frame's wire time)
  lnk::FaultConfig faults;     ///< every link channel, each its own random stream
  double rcrc_corrupt = 0;     ///< per frame: a bit flipped after the FCS check, FCS recomputed (only the R-CRC sees it)
  double switch_drop = 0;      ///< per frame: discarded inside the switch after ingress, its CBFC buffer freed (loss CBFC survives)
  uint32_t cbfc_buffer_bytes = 65536;  ///< receive buffer per VC of every hop
  uint32_t cbfc_threshold = 4;         ///< 64-byte credits freed before an update
  uint32_t cbfc_timer = 64;
  uint32_t cbfc_refresh = 1024;
  uint64_t seed = 1;
  unsigned reset_cycles = 4;
  bool llr = false;            ///< every hop through link layer retry (sw::LlrLink)
};

/// LLR figures summed over every link direction (sw::LinkStats).
/// Both directions of every LLR link, summed (sw::LinkStats::operator+=).
struct LlrStats : sw::LinkStats {
  uint64_t links = 0;  ///< directions summed
};

/// A frame on the wire: bytes with pad and FCS.
struct WireFrame {
  uint64_t wid = 0;
  sue::Bytes bytes;
  unsigned src = 0, port = 0, vc = 0, dst = 0;  ///< dst: node (from the header), or ~0u
  uint64_t sof_cycle = 0;                        ///< first beat taken by the MAC
  bool fcs_bad = false;                          ///< corrupted on a link: the FCS check fails
  bool rcrc_hit = false;                         ///< corrupted after an FCS check
  std::vector<std::pair<uint32_t, uint64_t>> cmds;  ///< {flow, id} of the commands (set by the system)
};

struct NetStats {
  uint64_t frames_sent = 0, wire_bytes = 0;   ///< NIC ports, incl. pad, FCS, preamble+IPG
  uint64_t frames_lost_link = 0;              ///< dropped by the fault injector, or by the switch for a header bit error
  uint64_t frames_fcs_bad = 0;                ///< bit errors (FCS fails at the NIC)
  uint64_t frames_rcrc_corrupted = 0;         ///< corrupted after the FCS check (switch or receive MAC)
  uint64_t frames_lost_dead = 0;              ///< lost on a failed plane
  uint64_t frames_misrouted = 0;              ///< switch: unknown destination
  uint64_t frames_switch_dropped = 0;         ///< discarded inside the switch (switch_drop), ingress buffer freed
  uint64_t cbfc_errors = 0;                   ///< any CBFC overflow/underflow flag
  std::string cbfc_error_first;
};

class Net {
 public:
  using FrameHook = std::function<void(WireFrame&)>;
  Net(const NetConfig& cfg);

  /// Called once per frame that completes at a NIC's MAC (before it enters the link).
  FrameHook on_tx_frame;
  /// A frame that will never be delivered (dropped, or on a failed plane).
  FrameHook on_lost;
  /// A frame whose eof beat sue_rx took (cycle of the edge).
  std::function<void(WireFrame&, uint64_t cycle)> on_rx_eof;

  /// Before the edge of cycle `c` (time t): arrivals, switch, what the MACs present.
  void prepare(uint64_t c, core::Ps t);
  // Inputs of node n's blocks for this edge.
  bool tx_ready(unsigned n, unsigned p) const { return ports_[n][p].tx.ready; }
  /// credit_ok_i of node n's sue_tx for port p, VC vc. `presented_vc`: the VC of the frame whose first
  /// beat sue_tx presents on port p this cycle (not yet taken by the MAC), -1 none.
  bool credit_ok(unsigned n, unsigned p, unsigned vc, int presented_vc = -1) const;
  const Beat& rx_beat(unsigned n, unsigned p) const { return ports_[n][p].rx.beat; }
  bool port_up(unsigned p) const { return !plane_dead_[p]; }
  /// At the edge of cycle c: a beat of node n's sue_tx port p transferred (valid && ready).
  void tx_transfer(unsigned n, unsigned p, const Beat& b, uint64_t c, core::Ps t);
  /// At the edge: sue_rx of node n took the presented beat of port p.
  void rx_taken(unsigned n, unsigned p, uint64_t c);
  /// After the edge: CBFC models tick, credit updates travel.
  void commit(uint64_t c, core::Ps t);
  /// Plane p fails: port p goes down at every node, everything on it is lost.
  void fail_plane(unsigned p);

  /// Nothing in flight anywhere (links, switch, MACs).
  bool empty() const;
  const NetStats& stats() const { return st_; }
  /// Wire bytes (incl. pad, FCS, preamble+IPG) each NIC port sent.
  uint64_t port_wire_bytes(unsigned n, unsigned p) const { return ports_[n][p].wire_bytes; }
  uint64_t port_frames(unsigned n, unsigned p) const { return ports_[n][p].frames; }
  /// Injector figures summed over every channel.
  lnk::FaultInjector::Stats fault_stats() const;
  /// LLR figures (all zero without `llr`).
  LlrStats llr_stats() const;
  const NetConfig& config() const { return cfg_; }
  /// Header byte offsets of the encapsulation.
  unsigned dst_of(const sue::Bytes& b) const;
  static unsigned vc_of(const uint8_t* b, size_t n) { return n > 6 ? (b[6] >> 4) & 3u : 0u; }
  static unsigned vc_of(const sue::Bytes& b) { return vc_of(b.data(), b.size()); }
  /// Cycles the CBFC gate held a NIC port's VC (credit_ok low while the port had been ready).
  uint64_t credit_stall_cycles() const { return credit_stall_; }

 private:
  struct InRec {
    uint64_t wid;
    core::Ps t_first;   ///< first bit arrives
    bool received = false;
  };
  /// CBFC on one hop: the sender's gate and the receiver's buffer.
  struct Cbfc {
    explicit Cbfc(const cbfc::Params& p, const lnk::Params& lp) : tx(p), rx(p), back(lp) {}
    cbfc::TxModel tx;
    cbfc::RxModel rx;
    lnk::Channel back;  ///< credit updates, receiver -> sender (8-byte control words, not charged to the frame stream)
    std::deque<std::pair<unsigned, uint32_t>> consume, arrive;  ///< {class, len}
    struct Free {
      unsigned cls;
      uint32_t len;
      uint64_t not_before;
    };
    std::deque<Free> frees;
    std::deque<lnk::Ctl> cu;
    cbfc::TxOut txo;
    cbfc::RxOut rxo;
  };
  /// One direction of one cable: frames, faults, the CBFC of the hop.
  struct Hop {
    Hop(const cbfc::Params& p, const lnk::Params& lp) : data(lp), fc(p, lp) {}
    lnk::Channel data;
    std::unique_ptr<lnk::FaultInjector> faults;
    std::deque<InRec> in;
    Cbfc fc;
    bool dead = false;
    // With LLR: the link and the side that sends on this hop, the tokens (frame ids) handed
    // to it and not yet delivered (in order), and those delivered by the last edge.
    sw::LlrLink* llr = nullptr;
    sw::LlrLink::Side side = sw::LlrLink::A;
    std::deque<uint64_t> pend, dlv;
  };
  struct Llr {
    std::unique_ptr<sw::LlrLink> link;
    Hop* ab = nullptr;  ///< sent by side A
    Hop* ba = nullptr;  ///< sent by side B
  };
  struct MacTx {
    double bucket = 0;
    bool ready = false;
    bool in_frame = false;
    unsigned vc = 0;  ///< VC of the frame in progress (from its first beat)
    sue::Bytes cur;
    uint64_t sof_cycle = 0;
    core::Ps t_sof = 0;
  };
  struct MacRx {
    Beat beat;            ///< presented this cycle
    unsigned next = 0;    ///< beat index of the front frame
  };
  struct Port {
    MacTx tx;
    MacRx rx;
    Hop* out = nullptr;   ///< NIC -> switch or peer
    Hop* in = nullptr;    ///< switch or peer -> NIC
    uint64_t wire_bytes = 0, frames = 0;
  };
  struct Egress {
    std::array<std::deque<std::pair<uint64_t, core::Ps>>, kVcs> q;  ///< {wid, eligible at}
    unsigned rr = 0;
  };

  NetConfig cfg_;
  cbfc::Params cp_;
  cbfc::TxCfg txcfg_;
  uint32_t mtu_credits_ = 0;  ///< credits of the largest frame
  cbfc::RxCfg rxcfg_;
  double bytes_per_cycle_ = 0;
  std::vector<std::unique_ptr<Hop>> hops_;
  std::vector<Llr> llr_;
  std::vector<std::vector<Port>> ports_;  ///< [node][port]
  std::vector<std::vector<Hop*>> up_, down_;  ///< switch: [plane][node]
  std::vector<std::vector<Egress>> egress_;   ///< switch: [plane][node]
  std::vector<std::vector<std::pair<uint64_t, core::Ps>>> ingress_wait_;  ///< switch: [plane] frames not yet received fully
  std::array<bool, kMaxPorts> plane_dead_{};
  std::unordered_map<uint64_t, WireFrame> frames_;
  uint64_t next_wid_ = 1;
  core::Rng rng_corrupt_;
  NetStats st_;
  uint64_t cycle_ = 0;
  uint64_t credit_stall_ = 0;

  Hop* new_hop(const std::string& stream);
  void new_llr(Hop* ab, Hop* ba, const std::string& stream);
  void step_llr(core::Ps t);
  void send(Hop& h, WireFrame&& f, core::Ps t_start);
  void arrivals(Hop& h, core::Ps t, const std::function<void(WireFrame&, const InRec&)>& got);
  void lose(uint64_t wid);
  void flip_fcs_bit(WireFrame& f);
  void corrupt_after_fcs(WireFrame& f);
  void present(Port& pt, core::Ps t);
  void tick_cbfc(Cbfc& fc, uint64_t c, core::Ps t);
  core::Ps ser(uint64_t bytes) const { return cfg_.link.serialization(bytes); }
};

}  // namespace tb::sue_tb
