// Speed check, run by hand (not a test):
//   build-df/switch/dragonfly_speed [cycles] [load] [routing minimal|valiant|ugal|par] [scoreboard 0|1]
// The paper's 1,056-endpoint Dragonfly (g=33, a=8, p=4, h=4; local 40, global 500
// cycles), uniform random 16-flit packets. Prints simulated cycles per wall
// second and peak resident memory.
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>

#include "switch/dragonfly.hpp"

int main(int argc, char** argv) {
  const uint64_t cycles = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20000;
  sw::DragonflyParams d;
  d.load = argc > 2 ? std::atof(argv[2]) : 0.3;
  if (argc > 3 && !sw::parse_routing(argv[3], &d.routing)) {
    fmt::print(stderr, "unknown routing '{}' (allowed: {})\n", argv[3], sw::routing_choices());
    return 2;
  }
  d.scoreboard = argc > 4 ? std::atoi(argv[4]) != 0 : true;
  d.min_flits = d.max_flits = 16;
  sw::Dragonfly df(d);
  const uint64_t warm = 3000;
  df.run(warm);
  df.reset_stats();
  const auto t0 = std::chrono::steady_clock::now();
  df.run(cycles);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const sw::DfStats s = df.stats();
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  fmt::print("dragonfly g={} a={} p={} h={} ({} routers, {} endpoints), routing {}, load {:.2f}, scoreboard {}\n", d.g,
             d.a, d.p, d.h, d.routers(), d.endpoints(), sw::to_string(d.routing), d.load, d.scoreboard);
  fmt::print("speed: {} cycles in {:.2f} s wall = {:.0f} cycles/s; peak RSS {:.1f} MiB\n", cycles, wall,
             cycles / wall, ru.ru_maxrss / 1024.0);
  fmt::print("offered {:.4f} accepted {:.4f} flits/endpoint/cycle; latency mean {:.1f} p99 {:.1f} cycles; hops {}..{};"
             " non-minimal {:.3f}; drops {}\n",
             s.offered_rate, s.accepted_rate, s.lat_mean, s.lat_p99, s.hops_min, s.hops_max, s.nonminimal_share,
             s.drops);
  return 0;
}
