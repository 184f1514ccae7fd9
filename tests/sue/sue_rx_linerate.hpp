// sue_rx at its line rate (docs/sue.md "sue_rx: state and one rising edge", "Unpacker"): every
// port's MAC offers back-to-back good frames, one 32-byte beat per cycle, each frame one command of
// `dlen` data bytes (AFH Gen2 12-byte header, RH, R-CRC, pad), the XPU returns every credit at once.
// Measured over a steady-state window: the XPU beats per cycle against what the ports offer. Works
// on any block with drive/posedge/outputs (the model alone, or RTL and model in lockstep).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "sue_rx_stim.hpp"

namespace rxstim {

struct LineRate {
  uint64_t window = 0;     ///< cycles measured
  uint64_t beats_out = 0;  ///< XPU beats (rx_valid != 0) in the window
  uint64_t cmds = 0;       ///< commands checked byte-exact (whole run)
  double util = 0;         ///< beats_out / window
  double offered = 0;      ///< XPU beats per cycle the ports offer at one MAC beat per cycle: sum over ports of out/in beats per frame
  double need = 0;         ///< min(1, offered): what a line-rate unpacker must sustain
  std::string error;       ///< a wrong command or an XPU-interface violation, "" when none
};

/// XPU beats of one command of dlen data bytes at DB bytes per beat.
inline unsigned xpu_beats(unsigned dlen, unsigned db) { return dlen ? (dlen + db - 1) / db : 1; }

template <class Block>
LineRate run_linerate(Block& blk, const sue::RxParams& p, unsigned dlen, uint64_t warm, uint64_t window,
                      const std::function<bool()>& ok = [] { return true; }) {
  LineRate res;
  const unsigned np = p.num_ports;
  const sue::RxCfg cfg = default_cfg(p, 8);
  std::vector<Feeder> feed;
  for (unsigned q = 0; q < np; ++q) feed.emplace_back(700 + q, 0.0);  // no gaps: a beat every cycle
  std::vector<std::deque<Bytes>> want(np);
  std::vector<uint16_t> psn(np * p.num_xpus * 4, 0);
  core::Rng r(dlen * 16 + np, "linerate");
  unsigned in_beats = 0;
  auto refill = [&](unsigned q) {
    while (feed[q].queued() < 3) {
      const unsigned i = static_cast<unsigned>(r.uniform(0, p.num_xpus - 1)), v = static_cast<unsigned>(r.uniform(0, 3));
      sue::Frame f = base_frame(p, cfg, i, v);
      f.rh.npsn = psn[(q * p.num_xpus + i) * 4 + v]++;
      f.cmds = {make_cmd(r, dlen)};
      want[q].push_back(f.cmds[0]);
      TxFrame t;
      t.bytes = wire(f);
      in_beats = static_cast<unsigned>((t.bytes.size() + 31) / 32);
      feed[q].push(std::move(t));
    }
  };
  sue::RxIn in;
  in.cfg = cfg;
  in.port_up = (1u << np) - 1;
  in.rst_n = false;
  for (int i = 0; i < 2; ++i) {
    blk.drive(in);
    blk.posedge();
  }
  in.rst_n = true;
  Collector col(p.db());
  for (uint64_t cyc = 0; cyc < warm + window && res.error.empty(); ++cyc) {
    const sue::RxOut before = blk.outputs();
    for (unsigned q = 0; q < np; ++q) {
      refill(q);
      in.mac[q] = feed[q].beat();
    }
    in.rx_credit = 0;
    for (unsigned v = 0; v < 4; ++v)
      if (before.cred[v] < cfg.rx_credits[v]) in.rx_credit |= 1u << v;
    blk.drive(in);
    blk.posedge();
    if (!ok()) {
      res.error = "stopped by the caller (mismatch or RTL assertion)";
      break;
    }
    const sue::RxOut& o = blk.outputs();
    for (unsigned q = 0; q < np; ++q) {
      bool eof;
      feed[q].after_edge(in.mac[q].valid && ((before.mac_rx_ready >> q) & 1), &eof);
    }
    if (cyc >= warm && o.rx_valid) ++res.beats_out;
    XpuCmd c;
    std::string err;
    if (col.feed(o, c, err)) {
      if (c.port >= np || want[c.port].empty() || want[c.port].front() != c.bytes)
        res.error = fmt::format("cycle {}: port {} delivered a command it was not sent or out of order", cyc, c.port);
      else
        want[c.port].pop_front(), ++res.cmds;
    }
    if (!err.empty()) res.error = fmt::format("cycle {}: {}", cyc, err);
  }
  res.window = window;
  res.util = static_cast<double>(res.beats_out) / static_cast<double>(window);
  res.offered = np * static_cast<double>(xpu_beats(dlen, p.db())) / in_beats;
  res.need = std::min(1.0, res.offered);
  return res;
}

}  // namespace rxstim
