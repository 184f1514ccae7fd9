// sue::RxUnpacker: the unpacker of the sue_rx twin, the C++ of rtl/sue/sue_rx_unpack.sv (docs/sue.md
// "sue_rx: state and one rising edge", unpacker): it reads up to NRd rows of one frame per edge from
// its port's buffer, appends them to the accumulator at the next edge, and sends one XPU beat per
// edge while the head frame's VC has a credit; it holds at most kRxMetaDepth frames and pops a frame
// from its port when the frame's last command ends. The per-VC credits to the XPU live here.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "sue/sue_rx_io.hpp"
#include "sue/sue_rx_port.hpp"

namespace sue {

class RxUnpacker {
 public:
  explicit RxUnpacker(const RxParams& p);
  /// Reset: nothing held, credits = cfg_rx_credits_i.
  void reset(const std::array<uint32_t, 4>& credits);
  /// One edge, after every port's steps 1-3 and record pushes. rec_count_q: each port's records
  /// before this edge. Writes the XPU outputs (rx_*), cred and err_credit of out, counts cmds_out.
  void edge(std::vector<RxPort>& ports, const std::array<size_t, kMaxPorts>& rec_count_q, uint32_t rx_credit,
            const std::array<uint32_t, 4>& credmax, RxOut& out, std::array<uint64_t, RxCnt::kNum>& cnt,
            std::string& assert_msg);
  const std::array<uint32_t, 4>& cred() const { return cred_; }

 private:
  RxParams p_;
  // frames picked and not yet ended (pick order; head = the frame being output)
  struct Meta {
    uint32_t port = 0, peer = 0, vc = 0, nrows = 0;
  };
  std::deque<Meta> meta_;         // at most kRxMetaDepth
  bool fb_ = false;               // the fetcher holds a frame (the newest meta_ entry)
  uint32_t fport_ = 0, frow0_ = 0, fe_ = 0, fnext_ = 0;
  std::vector<uint8_t> rdat_;     // rows read at the last edge: NRd * 32 bytes
  uint32_t rdat_n_ = 0;
  std::vector<uint8_t> uacc_;     // ACCR = 20 + DB + NRd * 32 bytes
  uint32_t uacc_n_ = 0;
  bool phase_data_ = false;
  uint32_t k_ = 0, dlen_ = 0;
  bool last_ = false;
  uint32_t rr_port_ = 0;
  std::array<uint32_t, 4> cred_{};
  bool err_credit_ = false;
};

}  // namespace sue
