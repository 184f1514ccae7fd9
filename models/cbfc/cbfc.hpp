// Cycle-exact C++ twin of rtl/cbfc/cbfc_tx.sv and rtl/cbfc/cbfc_rx.sv.
// The behaviour is specified in docs/cbfc.md; this code is that text in C++.
// Plain C++, no SystemC: reused by the NIC and switch models.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace cbfc {

constexpr unsigned kMaxClasses = 32;

/// Elaboration-time parameters shared by both sides (RTL parameters).
struct Params {
  unsigned num_classes = 4;        // 1..32
  unsigned cnt_width = 16;         // 2..31
  unsigned len_width = 14;         // 1..16
  unsigned credit_unit_log2 = 6;   // 0..12
  unsigned timer_width = 16;       // 1..31 (rx only)
  unsigned refresh_width = 16;     // 1..31 (rx only): width of cfg_refresh_i and the refresh counters

  /// Empty when valid, otherwise one line naming the bad parameter and its range.
  std::string validate() const;
  unsigned class_width() const;    // max(1, clog2(num_classes))
  uint32_t cnt_mask() const { return (cnt_width >= 32) ? 0xffffffffu : ((1u << cnt_width) - 1u); }
  /// credits(len) = ceil(len / 2^credit_unit_log2)
  /// Computed in 64 bits so that it cannot wrap for any 32-bit argument.
  uint32_t credits(uint32_t len_bytes) const {
    return static_cast<uint32_t>(
        (static_cast<uint64_t>(len_bytes) + (uint64_t{1} << credit_unit_log2) - 1u) >>
        credit_unit_log2);
  }
};

// ---------------------------------------------------------------- sender
struct TxCfg {
  std::array<uint32_t, kMaxClasses> init_credits{};  // cfg_init_credits_i
  uint32_t mtu = 0;                                   // cfg_mtu_i (bytes)
};

struct TxIn {
  bool rst_n = false;      // rst_ni
  TxCfg cfg;               // cfg_* (sampled while rst_n == 0)
  bool tx_valid = false;   // tx_valid_i
  uint32_t tx_class = 0;   // tx_class_i
  uint32_t tx_len = 0;     // tx_len_i
  bool cu_valid = false;   // cu_valid_i
  uint32_t cu_class = 0;   // cu_class_i
  uint32_t cu_limit = 0;   // cu_limit_i
};

struct TxOut {
  std::array<uint32_t, kMaxClasses> avail{};  // avail_o (per class)
  uint32_t elig = 0;                          // elig_o (bit c = class c)
  uint32_t err_underflow = 0;                 // err_underflow_o
  uint32_t err_overflow = 0;                  // err_overflow_o
  bool err_class = false;                     // err_class_o
  bool operator==(const TxOut& o) const;
  bool operator!=(const TxOut& o) const { return !(*this == o); }
};

class TxModel {
 public:
  explicit TxModel(const Params& p);
  /// One rising clock edge with the given input values.
  void tick(const TxIn& in);
  /// Output values after the last edge (pure function of state).
  TxOut outputs() const;
  const Params& params() const { return p_; }

 private:
  Params p_;
  std::array<uint32_t, kMaxClasses> init_{}, limit_{}, consumed_{};
  uint32_t mtu_credits_ = 0;
  uint32_t err_underflow_ = 0, err_overflow_ = 0;
  bool err_class_ = false;
};

// ---------------------------------------------------------------- receiver
/// The refresh period the testbenches use by default (cycles): about six
/// credit round trips of the default 800 Gb/s, 2 m link at 1 GHz (164 ns).
constexpr uint32_t kRecommendedRefresh = 1024;

struct RxCfg {
  std::array<uint32_t, kMaxClasses> buf_credits{};  // cfg_buf_credits_i
  uint32_t threshold = 1;                            // cfg_threshold_i
  uint32_t timer = 0;                                // cfg_timer_i (cycles, 0 = off)
  /// cfg_refresh_i: cycles without an update of a class before its limit is
  /// sent again (0 = off). Off here so that a default RxCfg behaves as before
  /// the refresh existed; docs/cbfc.md recommends a few credit round trips,
  /// kRecommendedRefresh at 1 GHz.
  uint32_t refresh = 0;
};

struct RxIn {
  bool rst_n = false;       // rst_ni
  RxCfg cfg;                // cfg_* (sampled while rst_n == 0)
  bool rx_valid = false;    // rx_valid_i
  uint32_t rx_class = 0;    // rx_class_i
  uint32_t rx_len = 0;      // rx_len_i
  bool free_valid = false;  // free_valid_i
  uint32_t free_class = 0;  // free_class_i
  uint32_t free_len = 0;    // free_len_i
};

struct RxOut {
  bool cu_valid = false;                    // cu_valid_o
  uint32_t cu_class = 0;                    // cu_class_o
  uint32_t cu_limit = 0;                    // cu_limit_o
  std::array<uint32_t, kMaxClasses> occ{};  // occ_o
  std::array<uint32_t, kMaxClasses> pend{}; // pend_o
  uint32_t err_overflow = 0;                // err_overflow_o
  uint32_t err_underflow = 0;               // err_underflow_o
  bool err_class = false;                   // err_class_o
  bool operator==(const RxOut& o) const;
  bool operator!=(const RxOut& o) const { return !(*this == o); }
};

class RxModel {
 public:
  explicit RxModel(const Params& p);
  void tick(const RxIn& in);
  RxOut outputs() const;
  const Params& params() const { return p_; }

 private:
  Params p_;
  std::array<uint32_t, kMaxClasses> buf_{}, occ_{}, limit_{}, pend_{}, tmr_{}, rfr_{};
  uint32_t thr_ = 1, tmr_max_ = 0, rfr_max_ = 0, rr_ = 0;
  bool cu_valid_ = false;
  uint32_t cu_class_ = 0, cu_limit_ = 0;
  uint32_t err_overflow_ = 0, err_underflow_ = 0;
  bool err_class_ = false;
};

}  // namespace cbfc
