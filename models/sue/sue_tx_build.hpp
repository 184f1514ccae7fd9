// sue::TxBuilder -- the frame builder of one sue_tx port, the twin of rtl/sue/sue_tx_build.sv (docs/sue.md
// "sue_tx: one rising edge", step 5, and "sue_tx: modules"). sue::TxModel holds one per port.
//
// It keeps the port's job (the PDU being built), walks the job's commands through the pool (a slot's
// control, dlen and next, and its data beats), appends chunks (the header, each command's op header,
// control and first data beat, its further data beats, the R-CRC) to a two-beat accumulator and loads one
// 32-byte beat per edge into the port's MAC output register. Plain C++, no SystemC.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace sue {

/// One command slot of sue_tx's pool (its data beats live beside the slots, SB bytes per slot).
struct TxSlot {
  std::array<uint8_t, 18> ctrl{};
  uint32_t dlen = 0;
  uint32_t next = 0;  ///< the queue's next slot (written when the next command of the queue is linked)
  uint32_t ackn = 0;  ///< 0, or: this slot starts an acknowledged PDU of ackn commands (one write per PDU)
};

/// A job of sue_tx (step 4): the PDU a builder builds. kind: TxBuilder::kData or kEmpty.
struct TxJob {
  uint32_t kind = 0;
  uint32_t i = 0, v = 0, psn = 0, first = 0, n_cmd = 0, p = 0, op = 0, apsn = 0, rsvd = 0;
};

class TxBuilder {
 public:
  enum : uint32_t { kData = 0, kEmpty = 1 };
  /// Phases: kPhHdr the first chunk (header and the first command chunk, or 80 00), kPhOp a command chunk,
  /// kPhData a data chunk after a command's first data beat, kPhTrl the R-CRC, kPhDone all appended.
  enum : uint32_t { kPhHdr = 0, kPhOp = 1, kPhData = 2, kPhTrl = 4, kPhDone = 5 };

  /// What a builder reads of sue_tx: its configuration and the pool (slots, their data, and the queue
  /// each slot is on, for the check that a builder reads only its job's queue).
  struct Env {
    bool lite = false;
    unsigned db = 32, sb = 256, acc = 116;  ///< XPU bytes per beat, data bytes per slot, accumulator bytes
    uint32_t own = 0, hop = 0, partition = 0;
    const TxSlot* slot = nullptr;
    const std::vector<uint8_t>* data = nullptr;
    const int32_t* where = nullptr;
  };
  /// Lite releases the job's slots: mark(ctx, queue, first slot, commands).
  using MarkFn = void (*)(void* ctx, uint32_t q, uint32_t first, uint32_t n);

  void reset(unsigned acc_bytes);
  bool busy() const { return busy_; }
  const TxJob& job() const { return job_; }
  /// No job, or all chunks appended and the frame's last or second-to-last beat (not its sof beat) loads
  /// at this edge (out_free: the MAC register may load).
  bool idle(bool out_free) const {
    return !busy_ || (phase_ == kPhDone && !first_beat_ && acc_n_ <= 64 && out_free);
  }
  /// Step 5 at one edge (pre-edge state; the pool is not written before step 6). Returns nullptr, or the
  /// check that failed.
  const char* edge(const Env& e, bool out_free, bool dies, MarkFn mark, void* ctx);
  /// The job of step 4 starts (after step 5 at the same edge): started at the edge that loads the frame's
  /// second-to-last beat, its eof beat stays in the accumulator (eof_held), and in Lite the previous job's
  /// slots are released now.
  void start(const TxJob& j, bool lite, MarkFn mark, void* ctx);

  /// The MAC output register (mac_tx_*_o of the port).
  bool valid = false, sof = false, eof = false;
  uint32_t nbytes = 0;
  std::array<uint8_t, 32> data{};

 private:
  bool busy_ = false;
  TxJob job_;
  std::vector<uint8_t> acc_;  // ACC bytes, bytes >= acc_n_ are 0
  uint32_t acc_n_ = 0;
  uint32_t phase_ = 0, k_ = 0, j_ = 0;  // chunk position
  uint32_t slot_ = 0;                   // pool slot of command k_ (first, then TxSlot::next per command)
  uint32_t crc_ = 0;
  bool first_beat_ = false;
  bool eof_held_ = false;  // acc holds only the previous frame's eof beat (the job started before it was loaded)
};

}  // namespace sue
