// sue_rx behind the common Block interface (tb/common/block.hpp): the
// verilated RTL of every compiled parameterization (rtl/sue/CMakeLists.txt,
// SUE_VARIANTS, plus the deliberately broken s1_rx_mutant), the C++ model
// sue::RxModel, or the RTL in lockstep with its model. No SystemC here.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/block.hpp"
#include "common/waves.hpp"
#include "sue/sue_rx_model.hpp"

class VerilatedContext;

namespace tb::sue_tb {

using RxBlock = Block<sue::RxIn, sue::RxOut>;
using LockRx = Lockstep<sue::RxIn, sue::RxOut, sue::RxModel>;

/// A compiled sue_rx parameterization.
struct RxVariant {
  std::string name;
  sue::RxParams params;
  bool mutant = false;  ///< built with SUE_MUTANT (a NACK for every out-of-order PDU)
};
/// Every compiled sue_rx (the SUE_VARIANTS names, then the mutants, then the rx-only x1024).
const std::vector<RxVariant>& rx_variants();
const RxVariant* find_rx_variant(const std::string& name);

/// The verilated sue_rx of variant v (nullptr if v names none).
std::unique_ptr<RxBlock> make_rx_rtl(const RxVariant& v, VerilatedContext* ctx, const std::string& name, Waves* waves);
std::unique_ptr<RxBlock> make_rx_model(const sue::RxParams& p);
std::unique_ptr<LockRx> make_rx_lockstep(std::unique_ptr<RxBlock> rtl, const sue::RxParams& p, const std::string& name);

/// First differing output, named as the RTL port (with the index of a vector entry).
std::optional<Mismatch> rx_diff(const sue::RxOut& rtl, const sue::RxOut& model);

}  // namespace tb::sue_tb
