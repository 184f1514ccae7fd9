// LLR on the switch's host links, run by hand (not a test; docs/switch.md "LLR on links"):
//   build-swllr/switch/switch_llr [traffic uniform|perm] [load] [window_us] [radix] [bytes] [seed]
// The switch with a host on every port (sw::Harness, CBFC), two lossless classes of `bytes`
// packets: `uniform` = every host to uniformly random others at `load` (Poisson), `perm` = host i
// to host i+1 (load >= 1, the default for perm: backlogged, every wire full both ways). Five runs with the same traffic: LLR off and
// on without errors, LLR on at FER 1e-4 and 1e-3 on every wire (both directions), LLR off at 1e-3.
// Per run: replays, NACKs, frames replayed, bad frames, replay buffer max, MAC TX FIFO max,
// end-to-end latency P50 / P99 / max (first bit on the source wire -> destination host) and of the
// replayed packets, mean link goodput (downlinks) over the window, losses, scoreboard.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "switch/harness.hpp"

namespace {

struct Run {
  const char* name;
  bool llr;
  double fer;
};

}  // namespace

int main(int argc, char** argv) {
  const std::string traffic = argc > 1 ? argv[1] : "uniform";
  const double load = argc > 2 ? std::atof(argv[2]) : (traffic == "perm" ? 1.0 : 0.6);
  const double window_us = argc > 3 ? std::atof(argv[3]) : 100;
  const unsigned radix = argc > 4 ? static_cast<unsigned>(std::atoi(argv[4])) : 16;
  const uint32_t bytes = argc > 5 ? static_cast<uint32_t>(std::atoi(argv[5])) : 1024;
  const uint64_t seed = argc > 6 ? std::strtoull(argv[6], nullptr, 10) : 1;
  if ((traffic != "uniform" && traffic != "perm") || radix < 2 || radix > 256 || bytes < 64 || bytes > 4096 ||
      !(load > 0) || !(window_us > 0)) {
    fmt::print(stderr, "usage: switch_llr [uniform|perm] [load > 0] [window_us > 0] [radix 2..256] [bytes 64..4096] [seed]\n");
    return 2;
  }
  const Run runs[] = {{"LLR off", false, 0}, {"LLR on", true, 0}, {"LLR on", true, 1e-4}, {"LLR on", true, 1e-3},
                      {"LLR off", false, 1e-3}};
  const double line = 800.0 * bytes / (bytes + 20);
  fmt::print("switch_llr: {} ports x 800G, CBFC, {} traffic of {} B packets on 2 lossless classes, load {}, "
             "window {} us after 5 us warm-up, seed {}; link 10 ns, LLR at the 1 GHz core clock, docs/llr.md "
             "defaults (32-frame buffer, replay timer 1000, ACK every 4 frames); line payload {:.2f} Gb/s\n",
             radix, traffic, bytes, load, window_us, seed, line);
  fmt::print("{:<8} {:>6} | {:>7} {:>7} {:>7} {:>8} {:>6} {:>5} | {:>8} {:>8} {:>8} {:>9} | {:>8} {:>6} | {}\n", "run",
             "FER", "bad", "replays", "NACKs", "replayed", "buf", "txq", "e2e P50", "P99", "max", "repl P50",
             "goodput", "lost", "scoreboard");
  for (const Run& r : runs) {
    sw::Params p;
    p.radix = radix;
    sw::HarnessParams hp;
    hp.llr = r.llr;
    hp.fer = r.fer;
    hp.seed = seed;
    sw::Harness h(p, hp);
    h.run_for(200 * p.period());  // LLR INIT handshakes
    for (unsigned s = 0; s < radix; ++s) {
      std::vector<uint32_t> d;
      if (traffic == "perm") {
        d.push_back((s + 1) % radix);
      } else {
        for (uint32_t x = 0; x < radix; ++x)
          if (x != s) d.push_back(x);
      }
      for (unsigned c = 0; c < 2; ++c) h.add_source(s, d, c, load >= 1 ? 1.0 : load / 2, bytes);  // >= 1: backlogged
    }
    h.run_for(5000 * p.period());
    h.reset_stats();
    h.run_for(static_cast<core::Ps>(window_us * 1e6));
    uint64_t bad = 0, replays = 0, nacks = 0, replayed = 0;
    uint32_t buf = 0;
    size_t txq = 0;
    double gp = 0;
    for (unsigned port = 0; port < radix; ++port) {
      const sw::PortLinkStats ls = h.link_stats(port);
      for (const sw::LinkStats* d : {&ls.up, &ls.down}) {
        bad += d->bad_frames;
        replays += d->replays;
        nacks += d->nacks;
        replayed += d->frames_replayed;
        buf = std::max(buf, d->buf_frames_max);
        txq = std::max(txq, d->txq_max);
      }
      gp += h.goodput_gbps(ls.down);
    }
    const core::Samples& e0 = h.e2e_latency_ns(0);
    const core::Samples& rp = h.e2e_latency_replayed_ns();
    const double p50 = e0.percentile(50), p99 = e0.percentile(99), mx = e0.empty() ? 0 : e0.max();
    const double rp50 = rp.empty() ? 0 : rp.percentile(50);
    const bool drained = h.drain(1000000 * p.period());
    const core::Scoreboard::Counts sb = h.scoreboard().finish();
    fmt::print("{:<8} {:>6g} | {:>7} {:>7} {:>7} {:>8} {:>6} {:>5} | {:>8.2f} {:>8.2f} {:>8.2f} {:>9.2f} | {:>8.2f} "
               "{:>6} | {} delivered, {} lost, {} reordered{}\n",
               r.name, r.fer, bad, replays, nacks, replayed, buf, txq, p50, p99, mx, rp50, gp / radix,
               h.wire_losses(), sb.matched, sb.lost, sb.reordered, drained ? "" : ", NOT DRAINED");
  }
  fmt::print("latency in ns (class 0), goodput = mean over the switch -> host links in Gb/s, buf = LLR replay buffer "
             "max (frames), txq = MAC TX FIFO max (packets), lost = packets lost on the wires (whole run)\n");
  return 0;
}
