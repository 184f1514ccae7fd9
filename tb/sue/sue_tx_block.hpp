// sue_tx behind the common Block interface (tb/common/block.hpp): the
// verilated RTL of every compiled parameterization (rtl/sue/CMakeLists.txt,
// SUE_VARIANTS, plus the deliberately broken s1_mutant), the C++ model
// sue::TxModel, or the RTL in lockstep with its model. No SystemC here.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/block.hpp"
#include "common/waves.hpp"
#include "sue/sue_tx_model.hpp"

class VerilatedContext;

namespace tb::sue_tb {

using TxBlock = Block<sue::TxIn, sue::TxOut>;
using LockTx = Lockstep<sue::TxIn, sue::TxOut, sue::TxModel>;

/// A compiled sue_tx parameterization.
struct TxVariant {
  std::string name;
  sue::TxParams params;
  bool mutant = false;  ///< built with SUE_MUTANT (a NACK(e) starts the go-back-N at e+1)
};
/// Every compiled sue_tx (the SUE_VARIANTS names, then the mutants, then the small-pool test variant s1_pool256).
const std::vector<TxVariant>& tx_variants();
const TxVariant* find_tx_variant(const std::string& name);

/// The verilated sue_tx of variant v (nullptr if v names none).
std::unique_ptr<TxBlock> make_tx_rtl(const TxVariant& v, VerilatedContext* ctx, const std::string& name, Waves* waves);
std::unique_ptr<TxBlock> make_tx_model(const sue::TxParams& p);
std::unique_ptr<LockTx> make_tx_lockstep(std::unique_ptr<TxBlock> rtl, const sue::TxParams& p, const std::string& name);

/// First differing output, named as the RTL port (with the index of a vector entry).
std::optional<Mismatch> tx_diff(const sue::TxOut& rtl, const sue::TxOut& model);

}  // namespace tb::sue_tb
