// Cycle-exact C++ twin of rtl/sue/sue_rx.sv: the receive side of one SUE
// node (frame checks, expected PSNs, feedback to sue_tx, store-and-forward
// unpacker to the XPU). The behaviour is docs/sue.md "Transport", sections
// "Network side", "Feedback", "sue_rx: state and one rising edge", "sue_rx:
// ports", "Failover", "SUE Lite profile"; this code is that text in C++.
// Plain C++, no SystemC. The parameters and ports are in sue_rx_io.hpp (every field mirrors one RTL
// port). Split as the RTL is: sue::RxPort per port (rtl/sue/sue_rx_port.sv), sue::RxUnpacker
// (rtl/sue/sue_rx_unpack.sv); this class holds what rtl/sue/sue_rx.sv holds (configuration, the
// connection memory, counters) and orders the stages of one edge.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sue/sue_rx_io.hpp"
#include "sue/sue_rx_port.hpp"
#include "sue/sue_rx_unpack.hpp"

namespace sue {

class RxModel {
 public:
  explicit RxModel(const RxParams& p);  ///< throws std::invalid_argument on bad params
  /// One rising clock edge with these inputs (rst_n low: reset, cfg sampled).
  void tick(const RxIn& in);
  /// Outputs after the last edge.
  const RxOut& outputs() const { return out_; }
  const RxParams& params() const { return p_; }
  /// The state of connection c after the last edge (0 in Lite, for c >= NC): what the RTL's
  /// connection memory holds, read by the debug port (dbg_conn_i) one connection at a time.
  uint32_t conn_exp(unsigned c) const { return c < exp_.size() ? exp_[c] : 0; }
  bool conn_nacked(unsigned c) const { return c < nacked_.size() && nacked_[c]; }
  /// The first failed assertion of docs/sue.md "Assertions" (RX), "" while none failed.
  const std::string& assertion() const { return assert_; }

 private:
  void reset(const RxIn& in);

  RxParams p_;
  RxCfg cfg_;
  std::vector<RxPort> port_;
  std::vector<uint32_t> exp_;  // the connection memory: exp and nacked per connection
  std::vector<uint8_t> nacked_;
  RxUnpacker unp_;
  std::array<uint64_t, RxCnt::kNum> cnt_{};
  RxOut out_;
  std::string assert_;
};

}  // namespace sue
