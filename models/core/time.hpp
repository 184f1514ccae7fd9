// Simulation time: integer picoseconds everywhere below the SystemC layer.
#pragma once
#include <cstdint>
#include <string>

namespace core {

using Ps = int64_t;  ///< picoseconds

constexpr Ps kPsPerNs = 1000;
constexpr Ps ns(double v) { return static_cast<Ps>(v * 1000.0 + (v >= 0 ? 0.5 : -0.5)); }
constexpr double to_ns(Ps t) { return static_cast<double>(t) / 1000.0; }

/// A clock of a given frequency: converts cycles to time and back.
struct Clock {
  Ps period_ps = 1000;  ///< 1 GHz by default
  Ps time_of(uint64_t cycle) const { return static_cast<Ps>(cycle) * period_ps; }
  double mhz() const { return 1e6 / static_cast<double>(period_ps); }
};

/// "12.345 ns" style rendering for summaries.
std::string format_time(Ps t);

}  // namespace core
