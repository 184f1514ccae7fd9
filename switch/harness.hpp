// sw::Harness: one switch with a simple host on every port, for tests, the
// speed check and quick studies (docs/switch.md "Harness"). Each host is an
// upstream sender (a cbfc::TxModel credit gate or a PFC pause state, line-rate
// serializer, traffic generators) and a downstream sink (returns CBFC credits
// as packets arrive, or pauses blocked classes with PFC). Links are fixed
// delays. Every packet is checked end to end by a core::Scoreboard (exactly
// once, in order per (src, dst, class)).
#pragma once

#include <array>
#include <deque>
#include <memory>
#include <vector>

#include "cbfc/cbfc.hpp"
#include "core/rng.hpp"
#include "core/scoreboard.hpp"
#include "core/stats.hpp"
#include "switch/switch.hpp"

namespace sw {

struct HarnessParams {
  double link_ns = 10.0;       ///< one-way host <-> switch delay (2 m twinax ~ 9.2 ns; PHYs are switch stages)
  uint32_t block_classes = 0;  ///< bit c: the sinks never drain class c (CBFC: no credits back; PFC: paused)
  bool scoreboard = true;      ///< end-to-end check (disable for raw speed)
  uint64_t seed = 1;           ///< traffic streams "harness.src.<host>"
};

struct HostStats {
  uint64_t offered_pkts = 0, offered_bytes = 0;  ///< generated at the host
  uint64_t sent_pkts = 0, sent_bytes = 0;        ///< into the switch
  uint64_t recv_pkts = 0, recv_bytes = 0;        ///< out of the switch to this host
  std::array<Ps, kMaxClasses> credit_stall{};    ///< head of class waiting for switch credits, wire idle
  std::array<Ps, kMaxClasses> pause_stall{};     ///< head of class held by a PFC pause from the switch
  std::array<uint64_t, kMaxClasses> pauses_rcvd{};
  uint64_t ecn_marked = 0;
};

class Harness {
 public:
  explicit Harness(const Params& sp, const HarnessParams& hp = {});
  ~Harness();
  Switch& sw() { return *sw_; }
  const Switch& sw() const { return *sw_; }

  /// A generator at `host`: packets of `bytes` to a uniformly random XPU of `dsts`
  /// (XPU x is on port x), class `cls`, offered `load` of the port rate (Poisson);
  /// load >= 1 keeps the class backlogged at the host.
  void add_source(unsigned host, std::vector<uint32_t> dsts, unsigned cls, double load, uint32_t bytes);
  /// One packet queued at `host` now.
  void offer(unsigned host, uint32_t dst, unsigned cls, uint32_t bytes);
  void stop_sources() { sources_on_ = false; }

  void tick();
  void run_for(Ps t);
  /// Stops the sources and runs until every offered packet is delivered or `limit` passes;
  /// returns true when everything was delivered.
  bool drain(Ps limit);
  bool idle() const;

  const HostStats& host(unsigned h) const { return hosts_st_[h]; }
  core::Scoreboard& scoreboard() { return sb_; }
  /// Switch latency (first byte in -> first byte out), ns, per class.
  const core::Samples& latency_ns(unsigned cls) const { return lat_[cls]; }
  void reset_stats();  ///< hosts and switch: new measurement window
  Ps window() const { return sw_->now() - t_stats_; }
  std::vector<Packet>& delivered_log() { return log_; }  ///< kept when keep_log(true)
  void keep_log(bool on) { keep_log_ = on; }

 private:
  struct Host;
  struct Source {
    unsigned host;
    std::vector<uint32_t> dsts;
    uint8_t cls;
    double load;
    uint32_t bytes;
    Ps next_t;
    Ps mean_gap;
    core::Rng rng;
  };
  Params sp_;
  HarnessParams hp_;
  std::unique_ptr<Switch> sw_;
  Ps link_;
  std::vector<Host> hosts_;
  std::vector<HostStats> hosts_st_;
  std::vector<Source> sources_;
  bool sources_on_ = true;
  core::Scoreboard sb_;
  std::array<core::Samples, kMaxClasses> lat_;
  uint64_t next_id_ = 1;
  Ps t_stats_ = 0;
  Ps next_block_refresh_ = 0;
  std::vector<Packet> log_;
  bool keep_log_ = false;
  uint64_t outstanding_ = 0;
  void enqueue(unsigned host, uint32_t dst, unsigned cls, uint32_t bytes);
};

}  // namespace sw
