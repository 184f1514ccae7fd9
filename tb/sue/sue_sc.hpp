// SystemC face of the SUE system (sue_system): one self-timed process steps
// every node (sue_tx, sue_rx, XPU driver and sink), the network and the
// scoreboard once per 625 ps cycle; the commands delivered so far are exported
// as a signal for SystemC observers.
#pragma once
#include <systemc.h>

#include "sue/sue_env.hpp"
#include "verilated.h"

namespace tb::sue_tb {

/// When a run stops (same rule for SystemC and plain loops): traffic for
/// `traffic_cycles`, then until idle or `drain_limit` more cycles; at once on
/// a lockstep mismatch or a failed RTL assertion.
struct RunControl {
  uint64_t traffic_cycles = 0;
  uint64_t drain_limit = 0;
  const VerilatedContext* ctx = nullptr;
  bool done(System& sys) const {
    const uint64_t n = sys.cycles();
    if (sys.mismatched() || (ctx && ctx->gotError())) return true;
    if (n < traffic_cycles) return false;
    if (n == traffic_cycles) sys.stop_traffic();
    return sys.idle() || n >= traffic_cycles + drain_limit;
  }
};

SC_MODULE(SueSystemSc) {
  sc_core::sc_out<uint64_t> delivered;  ///< commands delivered to the XPUs so far

  SC_HAS_PROCESS(SueSystemSc);
  SueSystemSc(sc_core::sc_module_name n, System& sys, const RunControl& ctl)
      : sc_module(n), sys_(sys), ctl_(ctl), period_(static_cast<double>(sys.config().clock_ps), sc_core::SC_PS) {
    SC_METHOD(step);
  }

 private:
  System& sys_;
  RunControl ctl_;
  sc_core::sc_time period_;
  uint64_t count() const {
    uint64_t d = 0;
    for (auto& n : sys_.nodes()) d += n.delivered;
    return d;
  }
  void step() {
    sys_.cycle();
    delivered.write(count());
    if (ctl_.done(sys_))
      sc_core::sc_stop();
    else
      next_trigger(period_);
  }
};

}  // namespace tb::sue_tb
