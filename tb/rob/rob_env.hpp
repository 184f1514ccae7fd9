// The ROB system: sources running ordered transfers (streams of REQs on
// connections) into a network that reorders them (a short and a long path,
// as direct and indirect routes of a Dragonfly), the target port (one packet
// per `flits` cycles), the `rob` block (RTL, model, or RTL in lockstep) and
// the target memory that acknowledges every released REQ. Rejected REQs
// (NO_CONN, OVERFLOW) are sent again; a FIN closes a stream once all its REQs
// are acknowledged. The scoreboard checks that every REQ of every stream is
// released exactly once, in order. Plain C++; the SystemC top clocks it.
#pragma once
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/rng.hpp"
#include "core/scoreboard.hpp"
#include "core/stats.hpp"
#include "rob/rob_blocks.hpp"

namespace tb::rob_tb {

struct EnvConfig {
  rob::Params params;
  core::Ps clock_ps = 1000;      ///< one flit per cycle, 1 ns (the paper's 1 flit/ns)
  uint64_t seed = 1;
  unsigned reset_cycles = 4;
  unsigned sources = 4;
  unsigned streams_per_source = 1;
  uint32_t stream_len = 128;     ///< REQs per ordered transfer
  uint32_t max_outstanding = 25; ///< unacknowledged REQs per stream (the paper's Fig. 12c fix)
  uint32_t flits = 16;           ///< packet length: a link carries one packet per `flits` cycles
  double load = 0.7;             ///< combined offered load at the target, fraction of its link
  uint32_t base_latency = 100;   ///< cycles through the network on the short path
  uint32_t skew = 500;           ///< extra cycles on the long path
  uint32_t jitter = 20;          ///< uniform 0..jitter extra cycles
  double p_long = 0.3;           ///< share of packets on the long path
  double p_dup = 0.0;            ///< the network duplicates a REQ
  uint32_t retry = 300;          ///< cycles before a rejected REQ is sent again
  uint32_t ack_latency = 100;    ///< cycles from release to the ACK at the source
  double early_fin = 0.0;        ///< a transfer whose last REQ is HELD sends its FIN at once, with this probability
};

class System {
 public:
  System(const EnvConfig& cfg, std::unique_ptr<RobBlock> blk, Waves* waves);
  void cycle();
  void stop_traffic() { traffic_ = false; }
  bool idle() const;
  uint64_t cycles() const { return cycle_; }
  core::Ps now() const { return static_cast<core::Ps>(cycle_) * cfg_.clock_ps + cfg_.clock_ps / 2; }
  const EnvConfig& config() const { return cfg_; }
  const rob::Out& out() const { return out_; }
  std::optional<Mismatch> mismatch() const { return lock_ && lock_->mismatch() ? lock_->mismatch() : std::nullopt; }
  bool mismatched() const { return lock_ && lock_->mismatch(); }
  core::Scoreboard& scoreboard() { return sb_; }
  const core::Scoreboard& scoreboard() const { return sb_; }
  void finish() { sb_.finish(); }

  struct Stats {
    core::Samples occupancy, conns, latency_cycles;
    uint64_t sent = 0, resent = 0, dup_injected = 0, fins = 0, streams_done = 0;
    uint64_t resp[8] = {};
    uint64_t early_fins = 0;      ///< FINs sent before every REQ of the transfer was acknowledged
    uint64_t fin_while_held = 0;  ///< FIN_DONE while REQs of the connection were still held (closing)
    uint64_t delayed_closes = 0;  ///< ... and the connection closed at the release of its last held REQ
  };
  const Stats& stats() const { return st_; }
  /// First environment-level error (an answer the protocol does not allow here).
  const std::optional<std::string>& env_error() const { return env_err_; }

 private:
  struct Stream {
    uint64_t no = 0;          // global stream number (scoreboard flow)
    uint32_t cid = 0;
    uint32_t next = 0;        // next new REQ index
    uint32_t acked = 0;       // ACKs received
    uint32_t outstanding = 0; // sent, not acknowledged
    uint32_t in_network = 0;  // REQ copies (duplicates included) not yet at the target
    uint32_t released = 0;    // REQs of this transfer released by the block
    uint32_t dups = 0;        // network duplicates injected (no early FIN then)
    bool fin_sent = false, active = false;
    bool early_fin_due = false;  // last REQ HELD, early FIN drawn: send the FIN next
    bool closing = false;        // FIN_DONE seen while REQs were held: the block closes it after the last release
    bool closed = false;         // ... and it did; restart once every ACK is in
    std::deque<std::pair<uint64_t, uint32_t>> resend;  // (due cycle, index)
    std::vector<uint32_t> tokens;  // token of REQ i
    std::vector<uint64_t> sent_at; // cycle REQ i was first sent
  };
  struct Source {
    uint32_t id = 0;
    std::vector<Stream> streams;
    uint64_t link_free = 0;
    double tokens = 0;
    unsigned rr = 0;
    uint32_t next_cid = 0;
  };
  struct Packet {
    bool fin = false;
    uint32_t src = 0, cid = 0, seq = 0, token = 0;
  };
  struct InFlight {
    uint64_t arrive;
    uint64_t order;
    Packet p;
    bool operator>(const InFlight& o) const { return arrive != o.arrive ? arrive > o.arrive : order > o.order; }
  };
  EnvConfig cfg_;
  std::unique_ptr<RobBlock> blk_;
  LockstepRob* lock_ = nullptr;
  Waves* waves_;
  core::Rng rng_;
  core::Rng fin_rng_;  // early-FIN draws (a separate stream: early_fin=0 leaves the traffic unchanged)
  core::Scoreboard sb_;
  uint64_t cycle_ = 0;
  bool traffic_ = true;
  unsigned reset_left_;
  rob::Out out_;
  uint32_t conns_before_ = 0;  // conns_o before the last edge
  std::vector<Source> src_;
  std::priority_queue<InFlight, std::vector<InFlight>, std::greater<InFlight>> net_;
  uint64_t net_order_ = 0;
  std::deque<std::pair<uint64_t, Packet>> port_;  // (cycle the last flit is in, packet) at the target port
  uint64_t port_free_ = 0;
  std::deque<std::pair<uint64_t, std::pair<unsigned, unsigned>>> acks_;  // (due, (source, stream slot))
  std::unordered_map<uint32_t, std::pair<uint64_t, uint32_t>> by_token_;  // token -> (stream no, index)
  std::map<std::pair<uint32_t, uint32_t>, std::pair<unsigned, unsigned>> by_conn_;  // (src, cid) -> (source, slot)
  uint32_t next_token_ = 1;
  uint64_t next_stream_ = 0;
  Stats st_;
  std::optional<std::string> env_err_;

  void start_stream(unsigned s, unsigned k);
  void end_stream(unsigned s, unsigned k);
  void send(Source& so, Stream& st, uint32_t index, bool again);
  uint32_t seq_of(uint32_t index) const { return index & ((1u << cfg_.params.seq_bits) - 1); }
  uint32_t index_of(const Stream& st, uint32_t seq) const;
  void error(const std::string& e);
};

}  // namespace tb::rob_tb
