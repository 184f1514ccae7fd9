// GoogleTest entry for tests that use SystemC: libsystemc.so owns main() and
// calls sc_main. Each discovered test runs in its own process.
#include <gtest/gtest.h>
#include <systemc.h>

#include "common/sc_quiet.hpp"

#include <cstdlib>

int sc_main(int argc, char* argv[]) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

COSIM_SYSTEMC_MAIN()
