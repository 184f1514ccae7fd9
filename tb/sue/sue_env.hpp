// The SUE system (testbench sue_system): N XPU nodes, each one sue_tx and one
// sue_rx (RTL, C++ model, or RTL in lockstep with its model), an XPU driver
// that issues commands through the XPU transmit interface (respecting the
// per-{destination, VC} queue credits) and an XPU sink with per-VC credits,
// joined by the network of sue_net.hpp (MACs, links, switch or cable, CBFC,
// faults, plane failure). An XPU-level scoreboard checks that every command a
// sue_tx accepted arrives exactly once, byte for byte, at the right XPU, and
// in strict mode in order per {source, destination, VC}; every frame on the
// wire must decode with sue::decode. Plain C++ cycle loop (1 cycle = 625 ps at
// 1.6 GHz); the SystemC top (sue_sc.hpp) clocks it from one process.
#pragma once
#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/block.hpp"
#include "common/waves.hpp"
#include "core/rng.hpp"
#include "core/scoreboard.hpp"
#include "core/stats.hpp"
#include "sue/sue_net.hpp"
#include "sue/sue_rx_model.hpp"
#include "sue/sue_tx_model.hpp"

namespace tb::sue_tb {

using TxBlock = Block<sue::TxIn, sue::TxOut>;
using RxBlock = Block<sue::RxIn, sue::RxOut>;
using LockTx = Lockstep<sue::TxIn, sue::TxOut, sue::TxModel>;
using LockRx = Lockstep<sue::RxIn, sue::RxOut, sue::RxModel>;

/// A C++ model as a Block that also exposes the model (its assertion text).
template <class In, class Out, class Model, class P>
class SueModelBlock : public Block<In, Out> {
 public:
  explicit SueModelBlock(const P& p) : m_(p) {}
  void drive(const In& in) override { in_ = in; }
  void posedge() override { m_.tick(in_); }
  Out outputs() const override { return m_.outputs(); }
  const Model& model() const { return m_; }

 private:
  Model m_;
  In in_{};
};
using TxModelBlock = SueModelBlock<sue::TxIn, sue::TxOut, sue::TxModel, sue::TxParams>;
using RxModelBlock = SueModelBlock<sue::RxIn, sue::RxOut, sue::RxModel, sue::RxParams>;

struct EnvConfig {
  std::string variant = "s1";
  sue::TxParams tp;
  sue::RxParams rp;
  unsigned nodes = 2;
  bool strict = true;
  NetConfig net;
  // configuration inputs
  uint32_t partition = 42, hop_count = 0;
  std::array<uint32_t, 4> vc_weight{{1, 1, 1, 1}};
  uint32_t rto = 65536, ack_delay = 4096, ack_count = 4, win_bytes = 131072, fo_retry = 4096;
  uint32_t rx_credits = 16;
  // traffic
  double load = 0.5;               ///< offered command bytes (op header + control + data) / the node's port bandwidth
  unsigned dlen_min = 0, dlen_max = 256;
  bool bimodal = false;            ///< dlen_min or dlen_max, half each (else uniform between them)
  std::string pattern = "uniform"; ///< uniform | ring | incast
  unsigned vcs = 4;                ///< VCs 0..vcs-1, uniform
  unsigned sink_delay = 0;         ///< cycles before the XPU returns a receive credit
  int hold_vc = -1;                ///< XPU holds this VC's receive credits ...
  uint64_t hold_from = 0, hold_cycles = 0;  ///< ... in [hold_from, hold_from + hold_cycles)
  int fail_port = -1;              ///< plane that fails (-1: none) ...
  uint64_t fail_cycle = 0;         ///< ... at this cycle
  uint64_t seed = 1;
  core::Ps clock_ps = 625;
  unsigned reset_cycles = 4;
};

struct CmdTrace {
  uint64_t in_cycle = 0;       ///< the edge that completed it at sue_tx
  uint64_t first_sof = 0;      ///< first beat of its first PDU at the MAC (0: not yet)
  bool last_of_pdu = false;    ///< the last command of that PDU (the one the scheduler saw last)
  uint64_t eof_cycle = 0;      ///< eof beat of the latest frame carrying it taken by sue_rx
  bool first_of_pdu = false;   ///< the first command of that frame
};

class System {
 public:
  System(const EnvConfig& cfg, std::vector<std::unique_ptr<TxBlock>> tx, std::vector<std::unique_ptr<RxBlock>> rx,
         Waves* waves);

  void cycle();
  /// Stops new commands; the figures of the traffic period (wire bytes per port) are taken here.
  void stop_traffic();
  bool traffic() const { return traffic_; }
  /// Traffic stopped, every command delivered, the network empty, every queue and buffer empty.
  bool idle() const;
  /// What keeps the system from idle (one line, "" when idle).
  std::string busy_reason() const;
  uint64_t cycles() const { return cycle_; }
  core::Ps now() const { return static_cast<core::Ps>(cycle_) * cfg_.clock_ps + cfg_.clock_ps / 2; }
  const EnvConfig& config() const { return cfg_; }
  std::optional<Mismatch> mismatch() const;
  bool mismatched() const;
  /// First failed model assertion ("" none).
  std::string model_assertion() const;
  /// Settles the scoreboard: what is still expected is lost.
  void finish();

  struct Node {
    unsigned idx = 0;
    uint32_t xpu = 0;
    uint32_t dbg_q = 0;  // the queue of the newest command: sue_tx's debug read ports show it (waves)
    std::unique_ptr<TxBlock> tx;
    std::unique_ptr<RxBlock> rx;
    LockTx* ltx = nullptr;
    LockRx* lrx = nullptr;
    sue::TxOut to;
    sue::RxOut ro;
    sue::TxCfg tcfg;
    sue::RxCfg rcfg;
    // driver
    struct Cmd {
      unsigned dst = 0, vc = 0, dlen = 0, q = 0;
      std::array<uint8_t, 18> ctrl{};
      std::vector<uint8_t> data;
      uint32_t flow = 0;
      uint64_t id = 0, digest = 0;
    };
    std::optional<Cmd> cur;
    bool started = false;
    unsigned beat = 0;
    double tokens = 0;
    std::vector<uint32_t> credits;  ///< per queue
    std::vector<uint64_t> next_id;  ///< per destination node * 4 + vc
    uint64_t credit_stall = 0, issued = 0;  ///< credit_stall: cycles with tokens but no queue credit
    // sink
    struct Asm {
      bool act = false;
      std::array<uint8_t, 18> ctrl{};
      uint32_t vc = 0, xpuid = 0, port = 0, dlen = 0, beats = 0, got = 0;
      std::vector<uint8_t> data;
      uint64_t first_cycle = 0;
    } as;
    std::array<std::deque<uint64_t>, 4> ret;  ///< credit returns due (cycle), per VC
    uint64_t delivered = 0, delivered_bytes = 0;
  };
  const std::vector<Node>& nodes() const { return nodes_; }
  const Net& net() const { return net_; }
  const core::Scoreboard& scoreboard() const { return sb_; }

  // Figures.
  struct Figures {
    uint64_t data_frames = 0, ack_frames = 0, fo_req_frames = 0, fo_ack_frames = 0;
    uint64_t data_wire_bytes = 0, data_cmd_bytes = 0, data_cmds = 0;  ///< data frames only
    uint64_t frame_decode_errors = 0;
    std::string first_decode_error;
    uint64_t misdelivered = 0;
    std::string first_misdelivery;
    uint64_t lite_lost_cmds = 0;  ///< Lite: commands of frames lost to faults (no recovery)
    uint64_t rx_backpressure = 0;  ///< port-cycles a MAC presented a beat and mac_rx_ready_o was low
    core::Samples tx_pipe, rx_pipe;  ///< cycles: command complete -> first beat of its PDU; eof taken -> first command out
    uint64_t traffic_cycles = 0;
    std::vector<std::vector<uint64_t>> port_bytes_traffic;  ///< [node][port] wire bytes sent during the traffic period
  };
  const Figures& figures() const { return fig_; }

 private:
  EnvConfig cfg_;
  Waves* waves_;
  std::vector<Node> nodes_;
  Net net_;
  core::Scoreboard sb_;
  core::Rng rng_;
  uint64_t cycle_ = 0;
  bool traffic_ = true;
  Figures fig_;
  std::unordered_map<uint64_t, CmdTrace> trace_;  ///< key flow << 40 | id

  static uint64_t key(uint32_t flow, uint64_t id) { return static_cast<uint64_t>(flow) << 40 | id; }
  uint64_t digest(const uint8_t* ctrl, const uint8_t* data, size_t dlen) const;
  std::optional<Node::Cmd> new_cmd(Node& n);
  void drive_xpu(Node& n, sue::TxIn& in, core::Ps t);
  void sink(Node& n, core::Ps t);
  void on_tx_frame(WireFrame& f);
  bool decode_cmd(const uint8_t* c, size_t len, uint32_t& flow, uint64_t& id) const;
};

/// flow = source node * 64 + destination node * 4 + VC
inline uint32_t flow_of(unsigned src, unsigned dst, unsigned vc) { return src * 64 + dst * 4 + vc; }

}  // namespace tb::sue_tb
