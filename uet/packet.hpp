// Packets of the ordering protocols (Eberle and Dennison, SC18, section III.C-E):
// REQ, ACK, NACK, FIN, FIN-ACK; flags SYN, EOD, CON; fields CID, SEQ, CNT.
// Plain C++ (no SystemC). Behaviour and field use: docs/ordering.md.
#pragma once

#include <cstdint>
#include <string>

namespace uet {

enum class PktType : uint8_t { Req = 0, Ack = 1, Nack = 2, Fin = 3, FinAck = 4 };
constexpr unsigned kNumPktTypes = 5;
const char* pkt_type_name(PktType t);  ///< "REQ", "ACK", "NACK", "FIN", "FIN-ACK"

/// Packet flags.
enum Flag : uint8_t {
  kSyn = 1,  ///< REQ: first REQ of a sequence (SEQ 0); the target frees stale replay entries of {src, CID}
  kEod = 2,  ///< REQ/ACK: exactly-once delivery
  kCon = 4,  ///< REQ: fast mode (needs a target connection); ACK/NACK: the target holds a connection
};

/// The header field the paper's footnote 11 mentions: ordered or synchronized transfer.
enum class XferKind : uint8_t { Ordered = 0, Sync = 1 };

/// The memory operation a REQ carries. Write is idempotent (its result is the value written);
/// FetchAdd is not (its result is the old value).
enum class OpKind : uint8_t { Write = 0, FetchAdd = 1 };

/// Why a REQ was rejected (NACK).
enum class NackReason : uint8_t { None = 0, NoConn = 1, Overflow = 2, ReplayFull = 3 };
const char* nack_reason_name(NackReason r);

/// CID of a slow-mode REQ sent without a source connection.
constexpr uint32_t kNoCid = 0xffffffffu;

struct Packet {
  PktType type = PktType::Req;
  uint8_t flags = 0;
  XferKind kind = XferKind::Ordered;
  uint32_t src = 0;    ///< source endpoint id of this packet (a target's id for ACK/NACK/FIN-ACK)
  uint32_t dst = 0;    ///< destination endpoint id
  uint32_t cid = 0;    ///< connection id chosen by the source (kNoCid: none)
  uint32_t seq = 0;    ///< sequence number (mod 2^SeqBits of the target's ROB)
  uint32_t cnt = 0;    ///< synchronized transfer: REQs in the transfer (on the sync REQ), else 0
  uint32_t token = 0;  ///< payload token (REQ) / echoed tag (ACK/NACK): unique per REQ of a run
  uint32_t attempt = 0;  ///< REQ: transmission number of this copy (1, 2, ...); echoed by ACK/NACK
  OpKind op = OpKind::Write;
  uint64_t addr = 0, value = 0;  ///< the operation
  uint64_t result = 0;           ///< ACK: the operation's result
  NackReason reason = NackReason::None;

  bool syn() const { return flags & kSyn; }
  bool eod() const { return flags & kEod; }
  bool con() const { return flags & kCon; }
  /// flits on a link: REQs carry data, the others are control packets
  bool is_data() const { return type == PktType::Req; }
};

std::string to_string(const Packet& p);

}  // namespace uet
