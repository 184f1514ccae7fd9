// Cycle-exact C++ twin of rtl/sue/sue_tx.sv: the transmit side of one SUE
// node (XPU ingress and credits, packing, scheduler, PSNs, descriptors,
// go-back-N, ACK/NACK piggyback, failover, frame builders). The behaviour is
// docs/sue.md "Transport", sections "XPU transmit interface", "Network side",
// "Feedback", "sue_tx: state", "sue_tx: one rising edge", "sue_tx: ports",
// "Failover", "SUE Lite profile"; this code is that text in C++.
// Plain C++, no SystemC. Every field of TxIn / TxOut mirrors one RTL port.
//
// Representation of wide ports (the lockstep wrapper tb/sue/sue_tx_block.cpp
// converts):
//  * byte vectors are arrays of bytes in wire order: tx_control[k] is control
//    byte k = tx_control_i[143-8k -: 8]; tx_data[j] is data byte j of the beat
//    = tx_data_i[DataW-1-8j -: 8] (only DB = DataW/8 bytes used, the rest
//    ignored); mac_tx_data[p][k] is frame byte k of the beat =
//    mac_tx_data_o[p*256 + 255-8k -: 8] (bytes beyond nbytes are 0);
//  * one-bit-per-index vectors (credit_ok_i, port_up_i, mac_tx_valid_o, ...)
//    are bit masks, bit idx = index idx (packed vectors, index 0 in the LSBs);
//  * per-port arrays have kMaxPorts entries, entries >= NumPorts are 0;
//  * per-queue (NQ) and per-connection (NC) vectors have exactly NQ / NC
//    entries, q = i*4 + v, c = (p*NumPeers + i)*4 + v.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sue/sue_feedback.hpp"
#include "sue/sue_tx_build.hpp"
#include "sue/sue_tx_tlist.hpp"

namespace sue {

/// Sent, unacknowledged commands the default Pool holds beyond the credited ones: 800 Gb/s x 2.5 us of
/// 64-byte commands (84 B with the op header) is 2,976 (sue_tx.sv: the same 3072).
constexpr unsigned kPoolInFlight = 3072;

/// RTL parameters of sue_tx (docs/sue.md "Parameters"; the same list as sue_rx).
struct TxParams {
  unsigned profile = 0;         ///< Profile: 0 SUE, 1 SUE Lite
  unsigned num_ports = 1;       ///< NumPorts: 1, 2, 4
  unsigned num_xpus = 8;       ///< NumXpus: 2..1024 (the twin; a compiled RTL variant: its own bound). Peer = XPU id:
                                ///< queue {XPU x, VC v} = x*4 + v, connection {port p, x, v} = (p*NumXpus + x)*4 + v
  unsigned data_w = 256;        ///< DataW: 128, 256, 512, 1024
  unsigned max_data = 256;      ///< MaxData: 1..min(16*DB, MaxPack-20)
  unsigned max_pack = 4096;     ///< MaxPack: 20+MaxData..4096 (SUE) / 1024 (Lite)
  unsigned qdepth = 64;         ///< QDepth: power of 2, 2..256 (XPU credits per queue)
  unsigned qcap = 0;            ///< QCap: power of 2, QDepth..1024, commands a queue may hold unsent; 0 = 4*QDepth
                                ///< (QCap == QDepth: every credit goes back only when its command forms into a PDU)
  unsigned window = 64;         ///< Window: power of 2, 1..256
  unsigned rx_buf_beats = 512;  ///< RxBufBeats (sue_rx only; validated alike)
  unsigned rx_frames = 16;      ///< RxFrames (sue_rx only; validated alike)
  unsigned cnt_w = 32;          ///< CntW: 16..64
  unsigned pool = 0;            ///< Pool: command slots shared by all queues; 0 = the default pool_default()

  /// "" or one line naming the first bad parameter and its allowed values.
  std::string validate() const;

  // Derived (docs/sue.md "Parameters").
  bool lite() const { return profile == 1; }
  unsigned db() const { return data_w / 8; }                 ///< XPU bytes per beat
  unsigned nq() const { return num_xpus * 4; }              ///< queues
  unsigned nc() const { return num_ports * num_xpus * 4; }  ///< connections
  /// Default Pool: NQ*QDepth (the credited commands) + kPoolInFlight sent ones, rounded up to a power of 2
  /// (4096 at NumXpus 1..4, QDepth 64; docs/sue.md "Retransmit store and sizing").
  unsigned pool_default() const;
  /// Pool: command slots shared by all NQ queues (queued + sent, unacknowledged), power of 2,
  /// >= pool_min(); each queue is a linked list through it (docs/sue.md "Retransmit store").
  unsigned pool_slots() const { return pool ? pool : pool_default(); }
  /// Smallest allowed Pool: NQ*QDepth reserved for credited commands + the largest PDU's commands
  /// (min(QDepth, floor(MaxPack/20))), so a full PDU always forms into an empty store.
  unsigned pool_min() const;
  /// Sent commands the pool may hold: Pool - NQ*QDepth (a NEW PDU of n forms only while held + n <= this).
  unsigned held_max() const { return pool_slots() - nq() * qdepth; }
  unsigned sb() const;                                       ///< SB = clog2(Pool): slot id bits
  unsigned qb() const;                                       ///< clog2(QDepth)
  unsigned q_cap() const { return qcap ? qcap : 4 * qdepth; } ///< QCap: ring entries per queue
  unsigned wb() const;                                       ///< clog2(Window)
  unsigned data_beats() const { return (max_data + db() - 1) / db(); }  ///< data beats per slot
  unsigned acc_bytes() const { return 64 + 20 + db(); }     ///< ACC: two beats and the largest command chunk (20 + DB)
  unsigned max_frame_beats() const;                          ///< MaxFrameBeats
};

/// cfg_*_i of sue_tx, sampled into registers at every edge with rst_ni low.
struct TxCfg {
  uint32_t own_xpuid = 1;                          ///< cfg_own_xpuid_i (10 b)
  bool strict = false;                             ///< cfg_strict_i
  uint32_t partition = 0;                          ///< cfg_partition_i (10 b)
  uint32_t hop_count = 0;                          ///< cfg_hop_count_i (8 b)
  std::array<uint32_t, 4> vc_weight{{1, 1, 1, 1}};  ///< cfg_vc_weight_i[v] (4 b each; 0 behaves as 1)
  uint32_t rto = 65536;                            ///< cfg_rto_i (24 b; 0 behaves as 1)
  uint32_t ack_delay = 4096;                       ///< cfg_ack_delay_i (16 b)
  uint32_t ack_count = 4;                          ///< cfg_ack_count_i (8 b): an owed ACK is due once this many
                                                   ///< feedback events are owed, whatever its age (0: off)
  uint32_t fo_retry = 4096;                        ///< cfg_fo_retry_i (24 b; 0 behaves as 1)
  uint32_t win_bytes = 131072;                     ///< cfg_win_bytes_i (24 b): a connection starts a PDU only
                                                   ///< while the bytes of its unfreed PDUs are below it (0: off)
};

/// Strict-mode pin base of the queue {peer XPU id, VC} of node own (docs/sue.md "port_sel"): (own + peer +
/// VC) mod NumPorts over the 10-bit ids. pin(q) is the first live port from it. sue::Nic uses the same.
inline unsigned pin_base(uint32_t own, uint32_t peer, unsigned vc, unsigned num_ports) {
  return ((own + peer + vc) & 0x3ffu) % num_ports;
}

/// Every input port of sue_tx.
struct TxIn {
  bool rst_n = false;  ///< rst_ni: low = synchronous reset, cfg sampled
  TxCfg cfg;           ///< cfg_*_i
  // XPU transmit interface
  uint32_t tx_valid = 0;                 ///< tx_valid_i (2 b): 0 none, 1 command, 2 command+data beat, 3 stray
  uint32_t tx_cycle = 0;                 ///< tx_cycle_i (4 b)
  uint32_t tx_vc = 0;                    ///< tx_vc_i (2 b)
  uint32_t tx_xpuid = 0;                 ///< tx_xpuid_i (10 b): destination XPU
  std::array<uint8_t, 18> tx_control{};  ///< tx_control_i: byte k = [143-8k -: 8]
  std::array<uint8_t, kMaxDB> tx_data{};  ///< tx_data_i: byte j = [DataW-1-8j -: 8], DB bytes used
  bool tx_err = false;                   ///< tx_err_i
  // Network side
  uint32_t credit_ok = 0;     ///< credit_ok_i, bit p*4+v
  uint32_t port_up = 0;       ///< port_up_i, bit per port
  uint32_t mac_tx_ready = 0;  ///< mac_tx_ready_i, bit per port
  FeedbackPorts fb{};         ///< fb_*_i per port (= sue::RxOut::fb of the node's sue_rx)
  // Observability
  uint32_t dbg_q = 0;     ///< dbg_q_i: the queue the debug read port shows (clog2(NQ) b)
  uint32_t dbg_conn = 0;  ///< dbg_conn_i: the connection it shows (clog2(NC) b)
};

/// sue_tx counters, in the order of the cnt_<name>_o ports.
struct TxCnt {
  enum : unsigned {
    cmds_in, cmd_bad, cmd_err, cmd_overflow, stray_cycles, pdus_new, pdus_rtx, pdus_mig, ack_only, ack_sent,
    nack_sent, nack_rcvd, gbn, rto, fo_req_sent, fo_ack_sent, fo_ack_rcvd, cmds_sent, payload_bytes,
    frames_out, bytes_out, kNum
  };
};
/// "cmds_in", ... (the RTL port is cnt_<name>_o).
const char* tx_counter_name(unsigned i);

/// conn_state_o values.
enum TxConnState : uint32_t { kConnLive = 0, kConnRtx = 1, kConnWait = 2, kConnMigrate = 3, kConnRetired = 4 };

/// Every output port of sue_tx.
struct TxOut {
  std::vector<uint8_t> tx_credit;  ///< tx_credit_o, NQ entries, 0..2
  // Network side
  uint32_t mac_tx_valid = 0;                                 ///< mac_tx_valid_o, bit per port
  std::array<std::array<uint8_t, 32>, kMaxPorts> mac_tx_data{};  ///< mac_tx_data_o: [p][k] = frame byte k of the beat
  uint32_t mac_tx_sof = 0;                                   ///< mac_tx_sof_o, bit per port
  uint32_t mac_tx_eof = 0;                                   ///< mac_tx_eof_o, bit per port
  std::array<uint32_t, kMaxPorts> mac_tx_nbytes{};           ///< mac_tx_nbytes_o (6 b per port)
  // Observability: the debug read ports (queue dbg_q_i, connection dbg_conn_i; 0 for an index >= NQ / NC)
  uint32_t dbg_q_count = 0;    ///< dbg_q_count_o: slots of the queue (held + unsent)
  uint32_t dbg_q_unsent = 0;   ///< dbg_q_unsent_o: tail - send
  uint32_t dbg_npsn = 0;       ///< dbg_npsn_o (0 in Lite)
  uint32_t dbg_ack_psn = 0;    ///< dbg_ack_psn_o (0 in Lite)
  uint32_t dbg_inflight = 0;   ///< dbg_inflight_o: npsn - free_psn (0 in Lite)
  uint32_t dbg_inbytes = 0;    ///< dbg_inbytes_o: the P of its PDUs [free_psn, npsn), the byte window's count (0 in Lite)
  uint32_t dbg_state = 0;      ///< dbg_state_o: TxConnState (0 in Lite)
  uint32_t pool_used = 0;      ///< pool_used_o: command slots in use (queued, held, the ingress command's)
  uint32_t port_dead = 0;                   ///< port_dead_o, bit per port
  std::array<uint32_t, kMaxPorts> out_bytes{};  ///< out_bytes_o (24 b per port; 0 in Lite)
  bool err_cmd = false, err_dest = false, err_overflow = false, err_no_port = false;  ///< sticky
  std::array<uint64_t, TxCnt::kNum> cnt{};  ///< cnt_<name>_o (CntW bits, wrap)
  bool operator==(const TxOut& o) const;
  bool operator!=(const TxOut& o) const { return !(*this == o); }
};

class TxModel {
 public:
  explicit TxModel(const TxParams& p);  ///< throws std::invalid_argument on bad params
  /// One rising clock edge with these inputs (rst_n low: reset, cfg sampled).
  void tick(const TxIn& in);
  /// Outputs after the last edge.
  const TxOut& outputs() const { return out_; }
  const TxParams& params() const { return p_; }
  /// The first failed assertion of docs/sue.md "Assertions" (TX), "" while none failed.
  const std::string& assertion() const { return assert_; }
  /// Sent, unacknowledged commands the pool holds (all queues); params().held_max() when it is full and no
  /// NEW PDU may form (the RTL's cover point c_pool_full). Not a port: for tests and coverage.
  unsigned pool_held() const { return sheld_; }
  /// Credits given back at the ingress (shared-buffer credits, QCap > QDepth), since construction.
  uint64_t early_credits() const { return early_; }
  /// Credits deferred now (sum over the queues of df): for tests.
  unsigned credits_deferred() const { return sdf_; }
  /// The pool slack: free slots + deferred credits + the ingress command's slot - NQ*QDepth (>= 0; at 0
  /// no NEW PDU forms and no credit goes back early: the RTL's cover point c_pool_full).
  int64_t pool_slack() const {
    return int64_t(p_.pool_slots() - fresh_) + int64_t((fl_wp_ - fl_rp_) & (2u * p_.pool_slots() - 1)) + int64_t(sdf_) +
           int64_t(in_.act && !in_.drop) - int64_t(p_.nq()) * p_.qdepth;
  }
  /// The state after the last edge of queue q / connection c: what the debug read ports show
  /// (dbg_q_i, dbg_conn_i), here for any index at once; 0 for q >= NQ, c >= NC, connections in Lite.
  uint32_t q_count(unsigned q) const;
  uint32_t q_unsent(unsigned q) const;
  uint32_t conn_npsn(unsigned c) const;
  uint32_t conn_ack_psn(unsigned c) const;
  uint32_t conn_inflight(unsigned c) const;  ///< npsn - free_psn
  uint32_t conn_inbytes(unsigned c) const;   ///< the P of the PDUs [free_psn, npsn) (the byte window's count)
  uint32_t conn_state(unsigned c) const;     ///< TxConnState
  /// ACK-only jobs started by cfg_ack_count before their age reached cfg_ack_delay, since construction (not a
  /// port: for tests, which check that RTL and twin agreed on such starts).
  uint64_t ack_by_count() const { return ack_by_count_; }
  /// RTOs that fired later than their deadline because another connection of the port was due first (at
  /// most one RTO per port and edge, docs/sue.md "RTO lists"), since construction (for tests).
  uint64_t rto_late() const { return rto_late_; }

 private:
  using Slot = TxSlot;  // one command slot of the pool (its data lives in data_)
  struct Desc {
    uint32_t first = 0, n = 0, p = 0;
  };
  struct Queue {
    // Ring of QCap entries {slot id, dlen}: [send, tail) queued (unsent). Pointers clog2(QCap)+1 bits.
    // df: unsent commands whose credit has not gone back (df <= tail - send); pc: credits of formed
    // commands not yet given back (one per edge); df + pc <= QDepth, tail - send + QDepth - df <= QCap.
    std::vector<uint32_t> rslot, rdlen;
    uint32_t send = 0, tail = 0, df = 0, pc = 0;
    // The queue's slots as a list through Slot::next, oldest first: held (sent, not freed) then queued.
    uint32_t hd = 0, lst = 0;  // first and last slot (valid while the list is not empty)
    uint32_t held = 0;         // sent commands in the pool (the list's first `held` slots)
    uint32_t hrem = 0;         // commands of the acknowledged PDU at hd still to free (0: hd starts a PDU)
    uint32_t hpdu = 0;         // first slot of that PDU (a builder job on it blocks its frees)
  };
  struct Conn {
    uint32_t npsn = 0, ack_psn = 0, free_psn = 0;
    uint32_t ib = 0;  // in-flight bytes: the P of the descriptors [free_psn, npsn) (the byte window)
    bool rtx_act = false;
    uint32_t rtx_psn = 0;
    // owe_age as the edge (now_) at which it was last 0: min(0xffff, e - owe_start) while owe != NONE.
    // (rto_tmr: the RTO lists below.)
    uint32_t owe = 0, owe_psn = 0;
    uint64_t owe_start = 0;
    uint32_t owe_n = 0;  // owen_q: feedback events owed since owe was NONE (saturates at 255; read while owe != NONE)
    uint32_t fo_state = 0;  // 0 LIVE, 2 WAIT, 3 MIGRATE, 4 RETIRED (conn_state_o codes)
    bool fo_due = false;
    uint32_t fo_tmr = 0, mig_psn = 0;
    bool fo_ans = false;
    uint32_t fo_ans_psn = 0;
  };
  using Job = TxJob;
  struct Ingress {
    bool act = false, drop = false, err = false;
    uint32_t q = 0, beat = 0, nb = 0;
    uint32_t slot = 0;  // the pool slot allocated at the command's first cycle
  };
  void reset(const TxIn& in);
  void fail(const std::string& what);
  // Pre-edge view of connection c (conn_ is updated in place; touch() saves the pre-edge copy first).
  const Conn& pre(unsigned c) const { return touched_[c] ? pre_[c] : conn_[c]; }
  Conn& touch(unsigned c) {
    if (!touched_[c]) {
      touched_[c] = 1;
      pre_[c] = conn_[c];
      tlist_.push_back(static_cast<uint16_t>(c));
    }
    return conn_[c];
  }
  using Mask = std::vector<uint64_t>;  // one bit per connection, mw_ words
  static void mset(Mask& m, unsigned c, bool b) {
    if (b) m[c >> 6] |= 1ull << (c & 63); else m[c >> 6] &= ~(1ull << (c & 63));
  }
  static bool many(const Mask& m) {
    for (const uint64_t w : m)
      if (w) return true;
    return false;
  }

  TxParams p_;
  TxCfg cfg_;
  std::vector<Queue> q_;
  // The pool: slots, their data (Pool * data_beats() * DB bytes, allocated at the first data write),
  // never-used slots [fresh_, Pool), the free FIFO fl_ (ring of Pool slot ids, rp/wp clog2(Pool)+1 bits).
  std::vector<Slot> slot_;
  std::vector<uint8_t> data_;
  std::vector<uint32_t> fl_;
  uint32_t fresh_ = 0, fl_rp_ = 0, fl_wp_ = 0;
  uint32_t sheld_ = 0;  // sent commands held, all queues (= sum of Queue::held)
  uint32_t sdf_ = 0;    // deferred credits, all queues (= sum of Queue::df)
  uint64_t early_ = 0;  // credits given back at the ingress
  uint32_t frr_ = 0;    // round-robin pointer of the slot free
  std::vector<int32_t> where_;  // assertion bookkeeping only: -2 free/fresh, -1 ingress, q: on queue q's list
  std::vector<Conn> conn_;
  std::vector<std::vector<Desc>> desc_;  // [c][psn mod Window]
  std::array<bool, kMaxPorts> dead_{};
  std::array<uint32_t, kMaxPorts> dead_rank_{};  // ports dead before this one died (failover order)
  std::array<uint32_t, kMaxPorts> out_bytes_{};
  std::array<TxBuilder, kMaxPorts> bld_{};  // step 5, one per port (models/sue/sue_tx_build.*)
  Ingress in_;
  uint32_t wrr_vc_ = 0, wrr_cnt_ = 0;
  std::array<uint32_t, 4> rr_peer_{};
  bool err_cmd_ = false, err_dest_ = false, err_overflow_ = false, err_no_port_ = false;
  std::array<uint64_t, TxCnt::kNum> cnt_{};
  TxOut out_;
  std::string assert_;

  // Speed-ups, none visible at the ports (docs/sue.md: only outputs and their cycle are binding).
  uint64_t now_ = 0;                  // edges since reset
  // RTO lists (docs/sue.md "RTO lists"), as in the RTL (sue_tx_tlist): per port its connections with
  // PDUs unacknowledged, in the order of their last restart.
  TxTimerList rl_;
  std::array<uint32_t, kMaxPorts> busy_n_{};  // connections with PDUs unacknowledged, per port (m_busy_)
  std::vector<Conn> pre_;             // pre-edge copies of the connections written this edge
  std::vector<uint8_t> touched_;      // [c]: pre_[c] holds the pre-edge copy
  std::vector<uint8_t> cfl_;          // [c]: per-edge write flags (touched connections only)
  std::vector<uint16_t> tlist_;       // touched connections
  // Connection sets, pre-edge (updated at the end of every edge for the touched connections).
  Mask m_rtx_{}, m_owe_{}, m_unfreed_{}, m_busy_{}, m_fo_ans_{}, m_wait_{}, m_mig_{};
  // Per-queue scratch.
  std::vector<uint8_t> held_, migq_, credit_, crd_;
  std::vector<uint32_t> mrank_;
  uint64_t ack_by_count_ = 0;             // ACK-only frames sent by the count before the delay
  uint64_t rto_late_ = 0;                 // RTOs later than their deadline (another head was due first)
  unsigned mw_ = 0;                       // words of a Mask: ceil(NC / 64)
};

}  // namespace sue
