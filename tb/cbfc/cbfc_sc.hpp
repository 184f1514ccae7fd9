// SystemC face of the CBFC system: one clocked process steps the whole
// system (environment, sender, link, receiver), and the block outputs are
// exported as struct-valued signals for SystemC observers.
#pragma once
#include <systemc.h>

#include <ostream>

#include "cbfc/cbfc_env.hpp"
#include "verilated.h"

namespace cbfc {
std::ostream& operator<<(std::ostream& os, const TxOut& o);
std::ostream& operator<<(std::ostream& os, const RxOut& o);
inline void sc_trace(sc_core::sc_trace_file*, const TxOut&, const std::string&) {}
inline void sc_trace(sc_core::sc_trace_file*, const RxOut&, const std::string&) {}
}  // namespace cbfc

namespace tb::cbfc_tb {

/// When a run stops: traffic for `traffic_cycles`, then drain until idle or
/// `drain_limit` more cycles; at once on a lockstep mismatch or a failed RTL
/// assertion, and on a protocol error when `stop_on_error`. The SystemC and
/// the plain-loop runs use the same rule.
struct RunControl {
  uint64_t traffic_cycles = 0;
  uint64_t drain_limit = 0;
  bool stop_on_error = true;
  const VerilatedContext* ctx = nullptr;
  /// Call after each cycle; true when the run is over.
  bool done(System& sys) const {
    const uint64_t n = sys.cycles();
    if (sys.mismatched() || (ctx && ctx->gotError())) return true;
    if (stop_on_error && sys.protocol_error()) return true;
    if (n < traffic_cycles) return false;
    if (n == traffic_cycles) sys.stop_traffic();
    return sys.idle() || n >= traffic_cycles + drain_limit;
  }
};

/// The clock is a self-timed method (next_trigger every period): one kernel
/// activation per cycle, about half the cost of an sc_clock edge. Observers
/// see the block outputs through the two exported signals.
SC_MODULE(CbfcSystemSc) {
  sc_core::sc_out<cbfc::TxOut> tx_out;  ///< sender outputs after each edge
  sc_core::sc_out<cbfc::RxOut> rx_out;  ///< receiver outputs after each edge

  SC_HAS_PROCESS(CbfcSystemSc);
  CbfcSystemSc(sc_core::sc_module_name n, System& sys, const RunControl& ctl)
      : sc_module(n), sys_(sys), ctl_(ctl),
        period_(static_cast<double>(sys.config().clock_ps), sc_core::SC_PS) {
    SC_METHOD(step);
  }

 private:
  System& sys_;
  RunControl ctl_;
  sc_core::sc_time period_;
  void step() {
    sys_.cycle();
    tx_out.write(sys_.tx_out());
    rx_out.write(sys_.rx_out());
    if (ctl_.done(sys_))
      sc_core::sc_stop();
    else
      next_trigger(period_);
  }
};

}  // namespace tb::cbfc_tb
