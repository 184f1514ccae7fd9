// Every testbench `cosim` knows, in `cosim list` order. A new testbench is
// added here (see README, "Add a block").
#include "cbfc/cbfc_tb.hpp"
#include "common/testbench.hpp"
#include "dragonfly/dragonfly_tb.hpp"
#include "llr/llr_tb.hpp"
#include "rob/rob_tb.hpp"
#include "switch/switch_tb.hpp"
#include "ordering/ordering_tb.hpp"
#include "sue/sue_tb.hpp"
#include "system/system_tb.hpp"

namespace tb {

const std::vector<Testbench>& testbenches() {
  static const std::vector<Testbench> all = {
      cbfc_tb::link_testbench(),
      cbfc_tb::block_testbench(),
      llr_tb::link_testbench(),
      rob_tb::stream_testbench(),
      switch_tb::incast_testbench(),
      ordering_tb::testbench(),
      dragonfly_tb::testbench(),
      sue_tb::system_testbench(),
      system_tb::system_testbench(),
  };
  return all;
}

}  // namespace tb
