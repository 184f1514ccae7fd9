// Program entry for SystemC executables (cosim, SystemC tests).
// libsystemc.so defines main(), prints its banner, then calls sc_main. Our
// executables define main() themselves (the executable's symbol wins), set
// SYSTEMC_DISABLE_COPYRIGHT_MESSAGE so the banner stays out of summaries and
// of gtest's test listing, and hand over to SystemC's own entry point.
#pragma once
#include <systemc.h>

#include <cstdlib>

#define COSIM_SYSTEMC_MAIN()                                                     \
  int main(int argc, char* argv[]) {                                             \
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);                         \
    sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING); \
    return sc_core::sc_elab_and_sim(argc, argv);                                 \
  }
