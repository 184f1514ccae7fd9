// sue_tx at 400 Gb/s on each port (docs/sue.md "sue_tx: one rising edge", step 5 "Builders"): the XPU
// keeps the VC 0 queues of `peers` peers full (a new command, beats back to back, to the next peer in
// turn that it holds a credit for), the MAC is always ready, credit_ok is set and, in SUE, the far end
// acknowledges every PDU at the edge after its eof beat (on the port it came from). With more than one
// port the queues are pinned (strict mode: peer i's VC 0 flow on port (1 + 2 + i) mod NumPorts), so each
// peer's commands stay in order on one port. (With one queue, packing stops at the
// QDepth = 32 commands that queue holds, and its credits come back only as the next PDU forms: with
// the mix that loop, not the builder, binds.) Measured over a steady-state window: the wire bytes of what the ports sent (every
// beat's bytes, and at each eof the pad, FCS, preamble + SFD and inter-frame gap) per 625-ps edge and
// port, against the 31.25 bytes a 400 Gb/s wire carries per edge. Every frame is decoded and its commands
// compared with those sent, byte for byte. Works on any block with drive/posedge/outputs (the model
// alone, or RTL and model in lockstep). The transmit mirror of sue_rx_linerate.hpp.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "sue/crc.hpp"
#include "sue/encap.hpp"
#include "sue/sue_tx_model.hpp"

namespace txstim {

constexpr double kWire400GBytesPerEdge = 400e9 / 8 / 1.6e9;  ///< 31.25: 400 Gb/s at 625 ps per edge
constexpr unsigned kMix = 0;                                 ///< dlen argument: the default mix

struct LineRate {
  uint64_t window = 0;  ///< edges measured
  uint64_t frames = 0;  ///< frames whose eof beat went in the window
  uint64_t wire = 0;    ///< wire bytes of the beats that went in the window (+ pad, FCS, 20 per eof), all ports
  uint64_t cmds = 0;    ///< commands checked byte-exact (whole run)
  double per_edge = 0;  ///< wire / window / NumPorts: per port
  uint64_t cmd_bytes = 0;   ///< control + data bytes of the commands whose frame's eof went in the window
  double goodput = 0;       ///< cmd_bytes / window / NumPorts: XPU command bytes per edge and port
  double cmds_per_frame = 0;
  std::string error;    ///< a wrong frame or command, "" when none
};

/// Data bytes of the next command: `dlen`, or for kMix the default mix of the system testbench's
/// senders (a quarter read requests of 0 bytes, the rest writes of 0..256 bytes, uniform).
inline unsigned next_dlen(core::Rng& r, unsigned dlen, unsigned max_data) {
  if (dlen != kMix) return dlen;
  if (r.chance(0.25)) return 0;
  return static_cast<unsigned>(r.uniform(0, std::min(256u, max_data)));
}

template <class Block>
LineRate run_linerate(Block& blk, const sue::TxParams& p, unsigned dlen, unsigned peers, uint64_t warm,
                      uint64_t window, const std::function<bool()>& ok = [] { return true; }) {
  LineRate res;
  const unsigned DB = p.db();
  sue::TxIn in;
  in.cfg.own_xpuid = 1023;  // above every addressable id: peer i is the XPU id i
  const unsigned np = p.num_ports;
  in.port_up = (1u << np) - 1, in.mac_tx_ready = (1u << np) - 1, in.credit_ok = (1u << (4 * np)) - 1;
  in.cfg.strict = np > 1;
  in.rst_n = false;
  for (int i = 0; i < 2; ++i) {
    blk.drive(in);
    blk.posedge();
  }
  in.rst_n = true;
  core::Rng r(dlen * 7 + p.profile, "tx_linerate");
  peers = std::max(1u, std::min(peers, p.num_xpus));
  std::vector<unsigned> credits(peers, p.qdepth);
  unsigned beat = 0, nb = 0, peer = 0, turn = 0;
  std::vector<uint8_t> cmd;                            // the command on the XPU interface: control + data
  std::vector<std::deque<std::vector<uint8_t>>> sent(peers);  // per peer: commands sent, not yet in a frame
  std::vector<std::vector<uint8_t>> frame(np);
  struct Ack {
    unsigned peer;
    uint32_t psn;
  };
  std::vector<std::deque<Ack>> acks(np);  // per port: {peer, PSN} to acknowledge, one per edge
  uint64_t cmds_in_window = 0;
  sue::DecodeOptions opt;
  opt.profile = p.lite() ? sue::Profile::SueLite : sue::Profile::Sue;
  opt.encap = p.lite() ? sue::Encap::AfhGen2_6 : sue::Encap::AfhGen2_12;
  for (uint64_t cyc = 0; cyc < warm + window && res.error.empty(); ++cyc) {
    const sue::TxOut before = blk.outputs();
    for (unsigned i = 0; i < peers; ++i) credits[i] += before.tx_credit[i * 4];
    // XPU: the next beat of the command on the interface, or a new command on VC 0 to the next peer
    // in turn it holds a credit for.
    in.tx_valid = 0;
    unsigned pick = peers;
    for (unsigned k = 0; k < peers && beat == nb && pick == peers; ++k)
      if (credits[(turn + k) % peers] > 0) pick = (turn + k) % peers;
    if (pick < peers) {
      peer = pick, turn = (pick + 1) % peers;
      const unsigned d = next_dlen(r, dlen, p.max_data);
      cmd.assign(18 + d, 0);
      for (auto& x : cmd) x = static_cast<uint8_t>(r.next());
      cmd[1] = static_cast<uint8_t>(d >> 4);
      cmd[2] = static_cast<uint8_t>(((d & 0xf) << 4) | (cmd[2] & 0xf));
      sent[peer].push_back(cmd);
      --credits[peer];
      beat = 0, nb = d ? (d + DB - 1) / DB : 1;
    }
    if (beat < nb) {
      const unsigned d = static_cast<unsigned>(cmd.size()) - 18;
      in.tx_valid = d ? 2 : 1;
      in.tx_cycle = beat;
      in.tx_vc = 0;
      in.tx_xpuid = peer;
      std::copy(cmd.begin(), cmd.begin() + 18, in.tx_control.begin());
      in.tx_data = {};
      for (unsigned j = 0; j < DB && beat * DB + j < d; ++j) in.tx_data[j] = cmd[18 + beat * DB + j];
      ++beat;
    }
    // The far end: ACK(psn) of every PDU (SUE), one feedback event per edge and port.
    for (unsigned q = 0; q < np; ++q) {
      in.fb[q] = sue::Feedback{};
      if (!acks[q].empty()) {
        in.fb[q].valid = true, in.fb[q].peer = acks[q].front().peer, in.fb[q].rop = 1, in.fb[q].rapsn = acks[q].front().psn;
        acks[q].pop_front();
      }
    }
    blk.drive(in);
    blk.posedge();
    if (!ok()) {
      res.error = "stopped by the caller (mismatch or RTL assertion)";
      break;
    }
    // The beats the MACs took at this edge (the pre-edge outputs; ready is always high).
    const bool in_window = cyc >= warm;
    for (unsigned q = 0; q < np && res.error.empty(); ++q) {
      if (!((before.mac_tx_valid >> q) & 1u)) continue;
      if ((before.mac_tx_sof >> q) & 1u) frame[q].clear();
      const unsigned n = before.mac_tx_nbytes[q];
      frame[q].insert(frame[q].end(), before.mac_tx_data[q].begin(), before.mac_tx_data[q].begin() + n);
      if (in_window) res.wire += n;
      if (!((before.mac_tx_eof >> q) & 1u)) continue;
      std::vector<uint8_t> w = frame[q];
      if (w.size() < sue::kEthMinNoFcs) w.resize(sue::kEthMinNoFcs, 0);
      const uint32_t fcs = sue::fcs32(w.data(), w.size());
      for (int k = 0; k < 4; ++k) w.push_back(static_cast<uint8_t>(fcs >> (8 * k)));
      if (in_window) {
        res.wire += (w.size() - frame[q].size()) + 8 + 12;  // pad + FCS, preamble + SFD, IPG
        ++res.frames;
      }
      auto dec = sue::decode(w, opt);
      if (!dec.ok()) {
        res.error = fmt::format("cycle {}: a frame on port {} does not decode: {}", cyc, q, dec.error().message());
        break;
      }
      const sue::Frame& f = dec.value().frame;
      const unsigned i = f.afh2.dst_xpu;
      if (i >= peers) {
        res.error = fmt::format("cycle {}: a frame to XPU {}, not a peer sent to", cyc, f.afh2.dst_xpu);
        break;
      }
      for (const auto& c : f.cmds) {
        if (sent[i].empty() || sent[i].front() != c) {
          res.error = fmt::format("cycle {}: a frame to peer {} carries a command that was not the next one sent", cyc, i);
          break;
        }
        sent[i].pop_front();
        ++res.cmds;
        if (in_window) ++cmds_in_window, res.cmd_bytes += c.size();
      }
      if (!p.lite()) acks[q].push_back(Ack{i, f.rh.npsn});
    }
  }
  res.window = window;
  res.per_edge = static_cast<double>(res.wire) / static_cast<double>(window) / np;
  res.goodput = static_cast<double>(res.cmd_bytes) / static_cast<double>(window) / np;
  res.cmds_per_frame = res.frames ? static_cast<double>(cmds_in_window) / static_cast<double>(res.frames) : 0;
  return res;
}

}  // namespace txstim
