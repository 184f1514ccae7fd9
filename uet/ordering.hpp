// Endpoint models of the ordering protocols (Eberle and Dennison, SC18, III.C-E):
// ordered transfers in slow and fast mode with speculative connections and
// FIN/FIN-ACK, fallback to slow mode, NACK and resend, exactly-once delivery with
// a replay buffer, synchronized transfers; plus a system that wires sources and
// targets over a Fabric (uet/fabric.hpp) with a workload and an end-to-end checker.
// Plain C++, cycle-driven (one cycle = 1 ns). Behaviour: docs/ordering.md.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "uet/fabric.hpp"
#include "uet/network.hpp"
#include "uet/packet.hpp"
#include "uet/reorder.hpp"

namespace uet {

// ------------------------------------------------------------------ transfers

/// One operation of a transfer (one REQ).
struct Op {
  OpKind kind = OpKind::Write;
  uint64_t addr = 0, value = 0;
  uint32_t token = 0;  ///< unique per REQ in a run
};

/// A transfer as the workload hands it to a source.
/// Ordered: every REQ is delivered to the target memory in SEQ order; eod: every REQ exactly once.
/// Sync: REQs 0..len-2 are data (delivered in any order), REQ len-1 is the synchronization
/// operation (always EOD, CNT = len), delivered after all data REQs completed.
struct Transfer {
  uint64_t id = 0;
  XferKind kind = XferKind::Ordered;
  bool fast = true;  ///< Ordered: try fast mode (a connection); false: slow mode by choice
  bool eod = false;  ///< Ordered: exactly-once delivery for every REQ (needs a connection)
  uint32_t dst = 0;  ///< target endpoint id
  std::vector<Op> ops;
};

// ------------------------------------------------------------------ source

struct SourceParams {
  unsigned num_cids = 16;         ///< source connection ids (1..2^cid_bits of the target ROB)
  unsigned max_outstanding = 25;  ///< REQs a connection may have between its oldest unacknowledged and next (1..)
  unsigned max_active = 4;        ///< transfers a source runs at once (1..64)
  uint64_t req_timeout = 25000;   ///< cycles before an unanswered REQ is sent again (loss repair); > 2 lifetime + mem_latency
  uint64_t fin_timeout = 25000;   ///< cycles before an unanswered FIN is sent again; > 2 lifetime + mem_latency
  uint64_t retry_delay = 200;     ///< cycles before a NACKed REQ is sent again (1..1e6)
  std::string validate() const;
};

struct SourceStats {
  uint64_t transfers_started = 0, transfers_done = 0;
  uint64_t fast_started = 0, slow_started = 0, slow_no_cid = 0;  ///< slow_no_cid: CID pool exhausted
  uint64_t fallbacks = 0;                                        ///< fast transfers that got NO_CONN
  uint64_t reqs_new = 0, reqs_resent = 0, fins_sent = 0;
  uint64_t acks = 0, acks_dup = 0, acks_out_of_order = 0, acks_stale = 0;
  uint64_t nacks_no_conn = 0, nacks_overflow = 0, nacks_replay_full = 0;
  uint64_t req_timeouts = 0, fin_timeouts = 0, fin_acks = 0;
  uint64_t max_inflight_slow = 0;  ///< most REQs in flight at once of any transfer in slow mode
  uint64_t max_outstanding = 0;    ///< largest span next-oldest unacknowledged of any fast transfer
  uint64_t cid_waits = 0;          ///< cycles a transfer needing a connection waited for a CID
  uint64_t quiet_waits = 0;        ///< cycles a FIN or the switch to slow mode waited for resent copies to leave the network
};

class SourceEndpoint {
 public:
  /// `lifetime`: the network's packet lifetime (after a timeout resend, the FIN and the switch
  /// to connectionless slow mode wait until every copy has left the network).
  SourceEndpoint(uint32_t id, const SourceParams& p, unsigned seq_bits, uint64_t lifetime, Fabric& net);
  uint32_t id() const { return id_; }
  /// Queue a transfer (started in order, up to max_active at once).
  void submit(const Transfer& t);
  void cycle(uint64_t now);
  bool idle() const { return queue_.empty() && active_.empty(); }
  unsigned cids_in_use() const { return p_.num_cids - cids_free_; }
  std::size_t active() const { return active_.size(); }
  const SourceStats& stats() const { return st_; }

  std::function<void(const Transfer&, unsigned index, uint64_t result, uint64_t now)> on_ack;
  std::function<void(const Transfer&, uint64_t now)> on_complete;
  /// Phase changes and FIN/FIN-ACK, for tests: (transfer, what, now)
  std::function<void(const Transfer&, const std::string&, uint64_t now)> on_event;

  enum class Phase { Fast, FallbackWait, Slow, Fin, Done };
  /// Phase of an active transfer (nullopt: not active).
  std::optional<Phase> phase_of(uint64_t transfer) const;
  /// CID of an active transfer (kNoCid: slow without a connection).
  uint32_t cid_of(uint64_t transfer) const;

 private:
  enum class ReqSt : uint8_t { Unsent, Inflight, Nacked, Acked };
  struct Tx {
    Transfer t;
    uint32_t cid = kNoCid;
    Phase phase = Phase::Fast;
    std::vector<ReqSt> st;
    std::vector<uint64_t> resend_at;
    std::vector<uint32_t> sends;
    std::vector<bool> resend_timed_out;
    unsigned next = 0, low = 0, acked = 0, inflight = 0, nacked = 0, max_acked = 0;
    bool any_acked = false;
    bool fin_out = false;
    uint64_t fin_deadline = 0;
    uint64_t quiet_at = 0;  ///< no copy of a REQ of this transfer is in the network from here on
    std::map<unsigned, uint64_t> live;  ///< REQs resent after a timeout -> end of that copy's lifetime
  };
  struct Timer {
    uint64_t at, tx;
    unsigned index;
    uint32_t sendno;
    bool operator>(const Timer& o) const { return at > o.at; }
  };
  bool needs_conn(const Tx& x) const { return x.t.eod || x.t.kind == XferKind::Sync; }
  /// The oldest REQ that may still arrive at the target: the oldest unacknowledged one, or an
  /// older one whose resent copy may still be in the network. The window counts from here.
  unsigned window_base(Tx& x, uint64_t now) const;
  void handle(const Packet& p, uint64_t now);
  bool try_start(uint64_t now);
  std::optional<Packet> pick(Tx& x, uint64_t now);
  Packet make_req(Tx& x, unsigned i, bool con, uint64_t now);
  void acked_all(Tx& x, uint64_t now);
  void finish(Tx& x, uint64_t now);
  void event(const Tx& x, const std::string& what, uint64_t now) {
    if (on_event) on_event(x.t, what, now);
  }

  uint32_t id_;
  SourceParams p_;
  uint32_t seq_mask_;
  uint64_t lifetime_;
  Fabric& net_;
  std::deque<Transfer> queue_;
  std::map<uint64_t, Tx> active_;
  std::unordered_map<uint32_t, std::pair<uint64_t, unsigned>> by_token_;
  std::map<uint32_t, uint64_t> by_cid_;
  std::vector<bool> cid_used_;
  unsigned cids_free_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
  uint64_t rr_ = 0;
  SourceStats st_;
};

// ------------------------------------------------------------------ target

struct TargetParams {
  rob::Params rob;                ///< the reorder buffer (and its connection table)
  unsigned window = 25;           ///< the sources' max_outstanding (replay-buffer window rule), < 2^(seq_bits-1)
  unsigned replay_entries = 0;    ///< replay buffer entries; 0: rob.num_conn * window + sync_conns
  unsigned sync_conns = 8;        ///< connections for synchronized transfers (1..1024)
  uint64_t mem_latency = 20;      ///< cycles from delivery to the memory's completion (ACK) (0..1e6)
  std::string validate() const;
  unsigned replay_capacity() const { return replay_entries ? replay_entries : rob.num_conn * window + sync_conns; }
};

struct TargetStats {
  uint64_t reqs = 0, fins = 0, executed = 0, direct = 0;  ///< direct: slow-mode REQs delivered without a connection
  uint64_t delivered = 0, held = 0, released = 0, duplicates = 0, dup_dropped = 0, dup_reacked = 0;
  uint64_t replays = 0, replay_miss = 0, replay_full = 0;
  uint64_t replay_freed_fin = 0, replay_freed_syn = 0, replay_freed_window = 0, replay_max = 0;
  uint64_t nack_no_conn = 0, nack_overflow = 0, fin_done = 0, fin_unknown = 0;
  uint64_t sync_held = 0, sync_released = 0, sync_counted = 0;
  uint64_t rob_wait_cycles = 0;  ///< cycles the head packet waited for the ROB (in_ready low)
  uint64_t fin_with_held = 0;    ///< protocol violation: a FIN closed a connection that still held REQs
};

class TargetEndpoint {
 public:
  TargetEndpoint(uint32_t id, const TargetParams& p, std::unique_ptr<ReorderBuffer> rob, Fabric& net);
  uint32_t id() const { return id_; }
  void cycle(uint64_t now);
  bool idle() const;
  /// Open ordered connections (mirror of the ROB's table, kept from its answers).
  std::size_t conns_open() const { return conns_.size(); }
  std::size_t sync_conns_open() const { return sync_.size(); }
  std::size_t replay_used() const { return replay_.size(); }
  std::size_t replay_used(uint32_t src, uint32_t cid) const;
  rob::Out rob_outputs() const { return rob_->outputs(); }
  uint64_t memory(uint64_t addr) const;
  const TargetStats& stats() const { return st_; }
  const TargetParams& params() const { return p_; }

  /// Every operation executed in the target memory: (REQ, result, cycle, via a connection).
  std::function<void(const Packet&, uint64_t result, uint64_t now, bool via_conn)> on_execute;

 private:
  struct Conn {
    uint32_t exp = 0, held = 0;
  };
  struct Replay {
    bool done = false;
    uint64_t result = 0;
  };
  struct SyncConn {
    uint32_t cnt = 0, counted = 0;
    std::set<uint32_t> seen, done;
    bool sync_seen = false, sync_executed = false;
    Packet sync_pkt;
  };
  struct MemOp {
    uint64_t at;
    Packet ack;
    bool sync_data;
  };
  static uint64_t key2(uint32_t src, uint32_t cid) { return (uint64_t{src} << 32) | (uint64_t{cid} << 16); }
  static uint64_t key3(uint32_t src, uint32_t cid, uint32_t seq) { return key2(src, cid) | (seq & 0xffffu); }
  bool process(const Packet& p, uint64_t now, rob::In& in, bool ready);
  void sync_req(const Packet& p, uint64_t now);
  void sync_check(SyncConn& c, uint64_t now);
  void handle_resp(const rob::Out& o, uint64_t now);
  void handle_rel(const rob::Out& o, uint64_t now);
  void execute(const Packet& p, bool via_conn, uint64_t now, bool sync_data);
  void reply(const Packet& req, PktType type, bool con, uint64_t result, NackReason r);
  void free_replay(uint32_t src, uint32_t cid, uint64_t& counter, bool only_done);
  void window_free(uint32_t src, uint32_t cid, uint32_t seq);

  uint32_t id_;
  TargetParams p_;
  std::unique_ptr<ReorderBuffer> rob_;
  Fabric& net_;
  uint32_t seq_mask_, half_;
  std::deque<Packet> in_q_, out_q_;
  std::deque<MemOp> mem_q_;
  std::map<uint64_t, Conn> conns_;
  std::map<uint64_t, Packet> held_;
  std::map<uint64_t, Replay> replay_;
  std::map<uint64_t, SyncConn> sync_;
  std::unordered_map<uint64_t, uint64_t> mem_;
  std::optional<Packet> fed_;   // the packet taken by the ROB at the last edge
  bool fed_reserved_ = false;   // it reserved a replay entry
  std::optional<Packet> delivered_;
  TargetStats st_;
};

// ------------------------------------------------------------------ system

struct WorkloadParams {
  unsigned transfers_per_source = 4;  ///< 0..100000
  unsigned len_min = 1, len_max = 32;  ///< REQs per transfer (1..100000; sync transfers at least 2)
  double p_slow = 0.0;  ///< share of ordered transfers in slow mode by choice (0..1)
  double p_sync = 0.0;  ///< share of synchronized transfers (0..1)
  double p_eod = 0.0;   ///< share of fast ordered transfers with exactly-once delivery (0..1)
  bool one_to_one = false;  ///< source i sends to target i mod T; else a uniformly random target
  std::string validate() const;
};

struct SystemParams {
  unsigned sources = 4, targets = 2;  ///< endpoints (sources 1..2^src_bits - targets, targets 1..64)
  uint64_t seed = 1;
  uint64_t max_cycles = 2000000;      ///< the run ends here if transfers are still open (1..1e9)
  NetParams net;
  SourceParams src;
  TargetParams tgt;
  WorkloadParams work;
  std::string validate() const;       ///< "" or one line naming the bad field and its allowed range
};

struct Report {
  bool complete = false;  ///< every transfer got its last ACK (and FIN-ACK where it had a connection)
  uint64_t cycles = 0, transfers = 0, completed = 0;
  uint64_t executions = 0, slow_duplicate_deliveries = 0;
  SourceStats src;    ///< summed over sources
  TargetStats tgt;    ///< summed over targets
  Network::Stats net;
  std::vector<std::string> errors;  ///< checker violations and leaks (empty: pass)
  bool ok() const { return complete && errors.empty(); }
  std::string summary() const;
};

class OrderingSystem {
 public:
  using RobFactory = std::function<std::unique_ptr<ReorderBuffer>(unsigned target, const rob::Params&)>;
  /// The fabric between the endpoints (endpoint ids 0..sources+targets-1); nullptr: a
  /// uet::Network of params().net.
  using FabricFactory = std::function<std::unique_ptr<Fabric>(const SystemParams&)>;
  /// Throws std::invalid_argument with validate()'s line on bad params.
  explicit OrderingSystem(const SystemParams& p, RobFactory make_rob = nullptr, FabricFactory make_fabric = nullptr);

  /// Add a transfer of `len` REQs from source `s` to target `t` (indices); returns its id.
  uint64_t add_transfer(unsigned s, unsigned t, XferKind kind, bool fast, bool eod, unsigned len);
  /// Add the random workload of params().work.
  void generate();
  void step();
  /// All transfers complete, nothing in flight, every endpoint idle.
  bool quiescent() const;
  /// Step until quiescent or max_cycles, then check.
  Report run();
  Report check() const;

  uint64_t now() const { return now_; }
  SourceEndpoint& source(unsigned i) { return *src_.at(i); }
  TargetEndpoint& target(unsigned i) { return *tgt_.at(i); }
  /// The uet::Network (throws std::logic_error when the fabric is another one).
  Network& network();
  Fabric& fabric() { return *net_; }
  const SystemParams& params() const { return p_; }
  uint32_t source_id(unsigned i) const { return i; }
  uint32_t target_id(unsigned i) const { return p_.sources + i; }

  struct Exec {
    uint64_t cycle, transfer;
    unsigned target, index;
    uint64_t result;
    bool via_conn;
  };
  const std::vector<Exec>& executions() const { return execs_; }
  /// ACKs as the sources paired them: (cycle, transfer, index).
  struct AckEv {
    uint64_t cycle, transfer;
    unsigned index;
  };
  const std::vector<AckEv>& acks() const { return acks_; }
  const Transfer& transfer(uint64_t id) const { return xf_.at(id).t; }
  bool completed(uint64_t id) const { return xf_.at(id).completed; }
  uint64_t completed_at(uint64_t id) const { return xf_.at(id).done_at; }

 private:
  struct Xf {
    Transfer t;
    std::vector<unsigned> exec_count;
    std::vector<uint64_t> first_result, first_exec;
    unsigned next = 0, data_done = 0;
    bool completed = false;
    uint64_t done_at = 0;
  };
  void error(const std::string& e);
  void on_exec(unsigned target, const Packet& p, uint64_t result, uint64_t now, bool via_conn);

  SystemParams p_;
  std::unique_ptr<Fabric> net_;
  std::vector<std::unique_ptr<SourceEndpoint>> src_;
  std::vector<std::unique_ptr<TargetEndpoint>> tgt_;
  core::Rng rng_;
  uint64_t now_ = 0, next_id_ = 1;
  uint32_t next_token_ = 1;
  std::map<uint64_t, Xf> xf_;
  std::unordered_map<uint32_t, std::pair<uint64_t, unsigned>> by_token_;
  std::vector<Exec> execs_;
  std::vector<AckEv> acks_;
  std::vector<std::string> errors_;
  uint64_t slow_dups_ = 0;
};

}  // namespace uet
