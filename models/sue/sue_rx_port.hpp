// sue::RxPort: one network port of the sue_rx twin, the C++ of rtl/sue/sue_rx_port.sv. Steps 1-3
// of docs/sue.md "sue_rx: state and one rising edge" for one port (death, the beat into the frame
// buffer, the verdict at the eof beat) and step 4 (ready). The connection memory is the parent's
// (sue::RxModel): the port reads it through RxVerdictCtx and returns what it writes in RxPortEdge,
// which the parent applies after every port's verdict (each verdict sees the pre-edge state).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "sue/sue_rx_io.hpp"

namespace sue {

/// A frame record: its rows in the buffer, its end E in the stored stream, peer and VC.
struct RxRec {
  uint32_t row0 = 0, nrows = 0, e = 0, peer = 0, vc = 0;
};
using RxRow = std::array<uint8_t, 32>;

/// What a verdict reads besides its own port: the pre-edge connection memory and the other
/// ports' pre-edge death and record counts (the FO-REQ rule).
struct RxVerdictCtx {
  const RxCfg* cfg = nullptr;
  const std::vector<uint32_t>* exp = nullptr;   ///< exp per connection
  const std::vector<uint8_t>* nacked = nullptr;  ///< nacked per connection
  std::array<bool, kMaxPorts> dead_q{};
  std::array<size_t, kMaxPorts> rec_count_q{};
};

/// What one port decided at one edge (applied by the parent after every port's verdict).
struct RxPortEdge {
  bool fb = false;  ///< a feedback event (fb_*_o one edge later)
  Feedback f;
  bool commit = false;  ///< a record pushed
  RxRec rec;
  bool accept = false, nack = false;  ///< a write of connection c: exp + 1 / nacked
  uint32_t c = 0;
};

class RxPort {
 public:
  RxPort(const RxParams& p, unsigned index);
  void reset();
  /// Steps 1-3 with this port's beat and port_up bit; counters are added to cnt, the first failed
  /// assertion to assert_msg (if still empty).
  RxPortEdge edge(const RxBeat& b, bool up, const RxVerdictCtx& ctx, std::array<uint64_t, RxCnt::kNum>& cnt,
                  std::string& assert_msg);
  void push(const RxRec& r) { rec_.push_back(r); }
  /// The unpacker ends this port's head frame: its record is popped and its rows freed.
  void pop(uint32_t nrows);
  /// Step 4: ready from the post-edge buffer and records.
  void update_ready(std::string& assert_msg);

  bool dead() const { return dead_; }
  bool ready() const { return ready_; }
  uint32_t rows() const;  ///< buf_rows_o: wr - rd
  size_t records() const { return rec_.size(); }
  const RxRec& rec(size_t i) const { return rec_[i]; }
  const RxRow& row(uint32_t r) const { return buf_[r % buf_.size()]; }

 private:
  struct Verdict;
  uint32_t verdict(const RxBeat& b, const RxVerdictCtx& ctx, Verdict& v) const;

  RxParams p_;
  unsigned index_;
  std::vector<RxRow> buf_;
  uint32_t rd_ = 0, wc_ = 0, wr_ = 0;  // clog2(RxBufBeats)+1 bits
  bool in_frame_ = false, too_long_ = false;
  uint32_t beats_ = 0;  // beats of the frame so far (saturating)
  std::deque<RxRec> rec_;
  bool dead_ = false, ready_ = false;
};

}  // namespace sue
