// Speed check, run by hand (not a test):
//   build-switch/switch/switch_speed [cycles] [load] [scoreboard 0|1]
// A 64-port 800G switch (defaults: CBFC, cut-through, 128 B flits, 1 GHz core)
// with the sw::Harness hosts, uniform random traffic of 1024 B packets at
// `load` (default 0.8) on two classes. Prints simulated core cycles per
// wall-clock second for the whole harness and for the switch alone.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>

#include "switch/harness.hpp"

int main(int argc, char** argv) {
  const uint64_t cycles = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200000;
  const double load = argc > 2 ? std::atof(argv[2]) : 0.8;
  const bool sb = argc > 3 ? std::atoi(argv[3]) != 0 : false;
  sw::Params p;
  sw::HarnessParams hp;
  hp.scoreboard = sb;
  sw::Harness h(p, hp);
  std::vector<uint32_t> all;
  for (uint32_t x = 0; x < p.radix; ++x) all.push_back(x);
  for (unsigned s = 0; s < p.radix; ++s) {
    std::vector<uint32_t> d;
    for (uint32_t x : all)
      if (x != s) d.push_back(x);
    h.add_source(s, d, 0, load / 2, 1024);
    h.add_source(s, d, 1, load / 2, 1024);
  }
  h.run_for(5000 * p.period());  // warm-up
  h.reset_stats();
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < cycles; ++i) h.tick();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const sw::Summary m = h.sw().summary();
  fmt::print("{}", h.sw().report().substr(0, h.sw().report().find("  port cls")));
  fmt::print("speed: {} cycles ({} simulated) in {:.3f} s wall = {:.0f} cycles/s ({:.3f} us simulated per wall s)\n",
             cycles, core::format_time(static_cast<core::Ps>(cycles) * p.period()), wall, cycles / wall,
             cycles * p.period() / 1e6 / wall);
  fmt::print("offered load {:.2f}: throughput {:.1f} Gb/s of {:.1f} Gb/s offered payload\n", load, m.tx_gbps,
             load * p.radix * p.port_gbps * 1024.0 / 1044.0);
  return 0;
}
