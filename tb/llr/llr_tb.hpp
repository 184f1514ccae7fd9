// LLR testbench: two link partners over the faulty link (llr_link), the
// figures (replay latency, goodput against frame error rate, replay buffer
// against cable length) and the benchmark. Registered in tb/cosim/registry.cpp.
#pragma once
#include "common/testbench.hpp"
#include "llr/llr_env.hpp"

namespace tb::llr_tb {

Testbench link_testbench();

/// EnvConfig from validated settings; throws core::UsageError on settings
/// that are valid one by one but not together.
EnvConfig env_from_settings(const core::Settings& s, uint64_t seed);

/// Replay loop: a frame's last bit leaves, the partner sees the gap at the
/// next frame, its NACK crosses back, the replay crosses again (ns).
double replay_loop_ns(const EnvConfig& e);
/// Replay buffer for full rate: rate x (serialization + ACK round trip).
double buffer_for_full_rate_bytes(const EnvConfig& e);

struct FerPoint {
  double fer = 0;
  double goodput_gbps = 0;
  double efficiency = 0;  ///< of the clean run's goodput
  uint64_t dropped = 0, replays = 0, flushes = 0;
  bool clean = false;     ///< scoreboard clean
};
/// Goodput at full load against frame error rate (C++ models, plain loop).
std::vector<FerPoint> fer_sweep(const EnvConfig& base, const std::vector<double>& fers, uint64_t cycles);

}  // namespace tb::llr_tb
