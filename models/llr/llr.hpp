// Cycle-exact C++ twin of rtl/llr/llr.sv (link layer retry, one link partner:
// TX and RX halves). The behaviour is specified in docs/llr.md, step by step;
// this code is that text in C++. Plain C++, no SystemC: reused by the switch.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace llr {

enum TxState : uint32_t { kInit = 0, kAdvance = 1, kReplay = 2, kFlush = 3 };
enum RxState : uint32_t { kSendAcks = 0, kSendNack = 1, kNackSent = 2 };
enum CtlType : uint32_t { kAck = 0, kNack = 1, kInitCtl = 2, kInitEcho = 3 };

/// RTL parameters.
struct Params {
  unsigned seq_bits = 20;     // SeqBits (4..31)
  unsigned buf_log2 = 6;      // BufLog2 (1..12)
  unsigned len_width = 14;    // LenWidth (1..16)
  unsigned class_width = 3;   // ClassWidth (1..3)
  unsigned timer_width = 20;  // TimerWidth (2..31)
  unsigned cnt_width = 32;    // CntWidth (8..32)
  // TokenWidth is 64.
  std::string validate() const;  ///< "" or one line naming the parameter and its range
};

/// cfg_* inputs (sampled while rst_n == 0).
struct Cfg {
  uint32_t frames_max = 32;       // cfg_frames_max_i
  uint32_t bytes_max = 65536;     // cfg_bytes_max_i (24 bits)
  uint32_t replay_timer = 1000;   // cfg_replay_timer_i
  uint32_t replay_count_max = 8;  // cfg_replay_count_max_i (8 bits)
  uint32_t ack_spacing = 4;       // cfg_ack_spacing_i (16 bits)
  bool ack_bytes = false;         // cfg_ack_bytes_i
  bool best_effort = false;       // cfg_best_effort_i
  bool re_init = true;            // cfg_re_init_i
};

struct In {
  bool rst_n = false;
  Cfg cfg;
  // client -> TX
  bool c_valid = false, c_eligible = false;
  uint32_t c_class = 0, c_len = 0;
  uint64_t c_token = 0;
  uint32_t pause = 0;  // bit per class
  // wire handshake
  bool w_ready = false;
  // wire -> RX
  bool r_valid = false, r_is_ctl = false, r_ok = false, r_eligible = false, r_replay = false;
  uint32_t r_seq = 0, r_len = 0, r_class = 0, r_ctl_type = 0, r_ctl_seq = 0;
  uint64_t r_token = 0;
};

/// Counter indices; names as in docs/llr.md and the run's JSON.
enum Counter : unsigned {
  tx_ok, tx_replay, tx_discard, tx_ack_ctlos, tx_nack_ctlos, tx_init_ctlos, tx_init_echo_ctlos, tx_best_effort,
  tx_flush, rx_ok, rx_bad, rx_expected_seq_good, rx_expected_seq_bad, rx_missing_seq, rx_duplicate_seq, rx_replay,
  rx_ack_ctlos, rx_nack_ctlos, rx_init_ctlos, rx_init_echo_ctlos, rx_bad_ctlos, kNumCounters
};
/// "tx_ok", ... (the RTL port is cnt_<name>_o).
const char* counter_name(unsigned i);

struct Out {
  bool c_ready = false;
  bool w_valid = false, w_is_ctl = false, w_eligible = false, w_replay = false;
  uint32_t w_seq = 0, w_len = 0, w_class = 0, w_ctl_type = 0, w_ctl_seq = 0;
  uint64_t w_token = 0;
  bool d_valid = false, d_eligible = false;
  uint32_t d_len = 0, d_class = 0;
  uint64_t d_token = 0;
  uint32_t tx_state = kInit, rx_state = kSendAcks;
  uint32_t out_frames = 0, out_bytes = 0;
  bool err_flush = false;
  std::array<uint32_t, kNumCounters> cnt{};
  bool operator==(const Out& o) const;
  bool operator!=(const Out& o) const { return !(*this == o); }
};

class Model {
 public:
  explicit Model(const Params& p);  // throws std::invalid_argument on bad params
  /// One rising clock edge with these input values.
  void tick(const In& in);
  /// Outputs after the last edge (pure function of state).
  Out outputs() const;
  const Params& params() const { return p_; }

 private:
  Params p_;
  // Implementation state (registers of docs/llr.md).
  struct Entry {
    uint32_t len = 0, cls = 0;
    uint64_t token = 0;
  };
  Cfg cfg_;
  uint32_t tx_state_ = kInit, rx_state_ = kSendAcks;
  uint32_t next_seq_ = 0, ack_target_ = 0, ack_base_ = 0, replay_ptr_ = 0, replay_cnt_ = 0, timer_ = 0;
  uint32_t out_bytes_ = 0;
  std::vector<Entry> buf_;
  bool hold_valid_ = false, hold_eligible_ = false;
  uint32_t hold_class_ = 0, hold_len_ = 0;
  uint64_t hold_token_ = 0;
  bool ready_ = false;
  uint32_t pause_ = 0;
  Out w_;  // only the w_* fields are used
  bool init_pend_ = true, echo_pend_ = false, err_flush_ = false;
  uint32_t exp_seq_ = 0, unacked_ = 0, ack_idle_ = 0;
  bool ack_pend_ = false, nack_pend_ = false;
  Out d_;  // only the d_* fields are used
  std::array<uint32_t, kNumCounters> cnt_{};
};

}  // namespace llr
