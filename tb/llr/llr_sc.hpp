// SystemC face of the LLR system: one self-timed process steps both link
// partners, the link and the clients; the two blocks' outputs are exported as
// struct-valued signals for SystemC observers.
#pragma once
#include <systemc.h>

#include <ostream>

#include "llr/llr_env.hpp"
#include "verilated.h"

namespace llr {
std::ostream& operator<<(std::ostream& os, const Out& o);
inline void sc_trace(sc_core::sc_trace_file*, const Out&, const std::string&) {}
}  // namespace llr

namespace tb::llr_tb {

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

SC_MODULE(LlrSystemSc) {
  sc_core::sc_out<llr::Out> a_out;  ///< partner A's block outputs after each edge
  sc_core::sc_out<llr::Out> b_out;  ///< partner B's

  SC_HAS_PROCESS(LlrSystemSc);
  LlrSystemSc(sc_core::sc_module_name n, System& sys, const RunControl& ctl)
      : sc_module(n), sys_(sys), ctl_(ctl), period_(static_cast<double>(sys.config().clock_ps), sc_core::SC_PS) {
    SC_METHOD(step);
  }

 private:
  System& sys_;
  RunControl ctl_;
  sc_core::sc_time period_;
  void step() {
    sys_.cycle();
    a_out.write(sys_.a().out);
    b_out.write(sys_.b().out);
    if (ctl_.done(sys_))
      sc_core::sc_stop();
    else
      next_trigger(period_);
  }
};

}  // namespace tb::llr_tb
