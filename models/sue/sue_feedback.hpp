// The feedback channel from sue_rx to sue_tx (docs/sue.md "Feedback from
// sue_rx to sue_tx"): one channel per port, registered in sue_rx, read by
// sue_tx at the next edge. sue::RxOut::fb feeds sue::TxIn::fb one to one.
#pragma once

#include <array>
#include <cstdint>

namespace sue {

/// Most ports (planes) a SUE instance has (NumPorts is 1, 2 or 4).
constexpr unsigned kMaxPorts = 4;
/// Largest DB = DataW/8, XPU bytes per beat (DataW 1024): TxIn::tx_data and RxOut::rx_data hold this many.
constexpr unsigned kMaxDB = 128;

/// fb_owe: what sue_rx owes connection (p, peer, vc).
enum FbOwe : uint32_t { kOweNone = 0, kOweAck = 1, kOweNack = 2, kOweDup = 3 };
/// fb_fo: failover event.
enum FbFo : uint32_t { kFoNone = 0, kFoReq = 1, kFoAck = 2 };

/// One port's channel: the fb_*_o[p] outputs of sue_rx = the fb_*_i[p] inputs of sue_tx.
struct Feedback {
  bool valid = false;     ///< fb_valid: a one-cycle event
  uint32_t peer = 0;      ///< fb_peer (10 b): the XPU id of the frame's source (= its peer index)
  uint32_t vc = 0;        ///< fb_vc (2 b): RH.vc
  uint32_t owe = 0;       ///< fb_owe (2 b): FbOwe
  uint32_t owe_psn = 0;   ///< fb_owe_psn (16 b): ACK/DUP exp-1, NACK exp, FO-REQ the answer
  uint32_t rop = 0;       ///< fb_rop (2 b): received RH op (0 none, 1 ACK, 2 NACK)
  uint32_t rapsn = 0;     ///< fb_rapsn (16 b): received RH apsn (also the FO-ACK answer)
  uint32_t fo = 0;        ///< fb_fo (2 b): FbFo
  uint32_t fo_port = 0;   ///< fb_fo_port (2 b): the failed port f
  bool operator==(const Feedback& o) const {
    return valid == o.valid && peer == o.peer && vc == o.vc && owe == o.owe && owe_psn == o.owe_psn &&
           rop == o.rop && rapsn == o.rapsn && fo == o.fo && fo_port == o.fo_port;
  }
  bool operator!=(const Feedback& o) const { return !(*this == o); }
};

/// fb_* of all ports; entries at index >= NumPorts stay zero.
using FeedbackPorts = std::array<Feedback, kMaxPorts>;

}  // namespace sue
