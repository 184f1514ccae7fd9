// The ports and parameters of sue_rx (rtl/sue/sue_rx.sv) as C++ structs: what the cycle-exact twin
// sue::RxModel and its stages (sue::RxPort, sue::RxUnpacker) read and write. Plain C++, no SystemC.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "sue/sue_feedback.hpp"

namespace sue {

/// Unpacker (docs/sue.md "sue_rx: state and one rising edge"): rows read per edge, frames held.
/// NRd = max(4, ceil((22 + 20 + DB) / 32)): the rows a command's first XPU beat can reach from the frame
/// start (RH, op header, control, DB data bytes), so it goes out 5 cycles after the eof beat at any DB:
/// 4 rows at DB <= 64, 6 at DB 128.
constexpr unsigned kRxReadRows = 4;  // at least
inline unsigned rx_read_rows(unsigned db) { return std::max(kRxReadRows, (22 + 20 + db + 31) / 32); }
constexpr unsigned kRxMetaDepth = 4;

/// RTL parameters of sue_rx (docs/sue.md "Parameters"; the same list as sue_tx).
struct RxParams {
  unsigned profile = 0;         ///< Profile: 0 SUE, 1 SUE Lite
  unsigned num_ports = 1;       ///< NumPorts: 1, 2, 4
  unsigned num_xpus = 8;       ///< NumXpus: 2..1024 (as TxParams)
  unsigned data_w = 256;        ///< DataW: 128, 256, 512, 1024
  unsigned max_data = 256;      ///< MaxData: 1..min(16*DB, MaxPack-20)
  unsigned max_pack = 4096;     ///< MaxPack: 20+MaxData..4096 (SUE) / 1024 (Lite)
  unsigned qdepth = 64;         ///< QDepth: power of 2, 2..256 (sue_tx only)
  unsigned window = 64;         ///< Window: power of 2, 1..256 (sue_tx only)
  unsigned rx_buf_beats = 512;  ///< RxBufBeats: power of 2, > MaxFrameBeats
  unsigned rx_frames = 16;      ///< RxFrames: 1..64
  unsigned cnt_w = 32;          ///< CntW: 16..64

  /// "" or one line naming the first bad parameter and its allowed values.
  std::string validate() const;

  // Derived (docs/sue.md "Parameters").
  bool lite() const { return profile == 1; }
  unsigned db() const { return data_w / 8; }                 ///< XPU bytes per beat
  unsigned nc() const { return num_ports * num_xpus * 4; }  ///< connections
  unsigned hdr_bytes() const { return lite() ? 6 : 14; }     ///< H
  unsigned o0() const { return lite() ? 6 : 22; }            ///< first op header in the stored stream
  unsigned max_frame_beats() const;                          ///< MaxFrameBeats
  unsigned buf_ptr_bits() const;                             ///< clog2(RxBufBeats)+1 (buf_rows_o per port)
  unsigned rec_cnt_bits() const;                             ///< clog2(RxFrames)+1 (rec_count_o per port)
  unsigned read_rows() const { return rx_read_rows(db()); }  ///< NRd: rows the unpacker reads per edge
  unsigned accr() const { return 20 + db() + read_rows() * 32; }  ///< ACCR: unpacker accumulator bytes
};

/// cfg_*_i of sue_rx, sampled into registers at every edge with rst_ni low.
struct RxCfg {
  uint32_t own_xpuid = 1;                   ///< cfg_own_xpuid_i (10 b)
  bool strict = false;                      ///< cfg_strict_i (not used by sue_rx)
  uint32_t partition = 0;                   ///< cfg_partition_i (10 b)
  std::array<uint32_t, 4> rx_credits{{8, 8, 8, 8}};  ///< cfg_rx_credits_i[v] (8 b each)
};

/// One network beat of one port (mac_rx_*_i[p]). Byte k of the beat is data[k]
/// (= mac_rx_data_i[p*256 + 255-8k -: 8], MSB first like the wire).
struct RxBeat {
  bool valid = false;  ///< mac_rx_valid_i[p]
  bool sof = false;    ///< mac_rx_sof_i[p]
  bool eof = false;    ///< mac_rx_eof_i[p]
  bool err = false;    ///< mac_rx_err_i[p] (read on eof beats)
  uint32_t nbytes = 0; ///< mac_rx_nbytes_i[p] (6 b, read on eof beats)
  std::array<uint8_t, 32> data{};
};

/// Every input port of sue_rx.
struct RxIn {
  bool rst_n = false;  ///< rst_ni: low = synchronous reset, cfg sampled
  RxCfg cfg;           ///< cfg_*_i
  uint32_t port_up = 0;                 ///< port_up_i, bit per port
  std::array<RxBeat, kMaxPorts> mac{};  ///< mac_rx_*_i per port (index < NumPorts used)
  uint32_t rx_credit = 0;               ///< rx_credit_i, bit per VC: one credit returned
  uint32_t dbg_conn = 0;                ///< dbg_conn_i: the connection the debug read port shows (clog2(NC) b)
};

/// sue_rx counters, in the order of the cnt_<name>_o ports.
struct RxCnt {
  enum : unsigned {
    frames_in, bytes_in, pdus_ok, lite_ok, ack_frames, fo_frames, fo_req_deferred, drop_mac, drop_dead,
    drop_malformed, drop_rcrc, drop_hdr, drop_psn, drop_dup, nack_owed, stray_beats, cmds_out, kNum
  };
};
/// "frames_in", ... (the RTL port is cnt_<name>_o).
const char* rx_counter_name(unsigned i);

/// Every output port of sue_rx.
struct RxOut {
  uint32_t mac_rx_ready = 0;  ///< mac_rx_ready_o, bit per port
  // XPU receive interface
  uint32_t rx_valid = 0;  ///< rx_valid_o: 0 none, 1 command, 2 command-with-data beat
  uint32_t rx_cycle = 0;  ///< rx_cycle_o (4 b)
  uint32_t rx_vc = 0;     ///< rx_vc_o
  uint32_t rx_xpuid = 0;  ///< rx_xpuid_o: source XPU
  uint32_t rx_port = 0;   ///< rx_port_o
  std::array<uint8_t, 18> rx_control{};  ///< rx_control_o: byte k = [143-8k -: 8]
  std::array<uint8_t, kMaxDB> rx_data{};  ///< rx_data_o: byte k = [DataW-1-8k -: 8], DB bytes used, rest 0
  FeedbackPorts fb{};                    ///< fb_*_o per port
  uint32_t dbg_exp = 0;                  ///< dbg_exp_o: exp of connection dbg_conn_i (0 if >= NC, 0 in Lite)
  bool dbg_nacked = false;               ///< dbg_nacked_o: its nacked bit
  std::array<uint32_t, kMaxPorts> buf_rows{};   ///< buf_rows_o: wr - rd
  std::array<uint32_t, kMaxPorts> rec_count{};  ///< rec_count_o
  std::array<uint32_t, 4> cred{};               ///< cred_o per VC
  uint32_t port_dead = 0;                       ///< port_dead_o, bit per port
  bool err_credit = false;                      ///< err_credit_o (sticky)
  std::array<uint64_t, RxCnt::kNum> cnt{};      ///< cnt_<name>_o (CntW bits, wrap)
  bool operator==(const RxOut& o) const;
  bool operator!=(const RxOut& o) const { return !(*this == o); }
};

/// The low w bits set (w <= 64): the width of an RTL counter or pointer.
inline uint64_t rx_mask(unsigned w) { return w >= 64 ? ~0ull : ((1ull << w) - 1); }
/// ceil(log2(v)) for v >= 1.
inline unsigned rx_clog2(unsigned v) {
  unsigned r = 0;
  while ((1u << r) < v) ++r;
  return r;
}

}  // namespace sue
