// CBFC blocks behind the common Block interface (tb/common/block.hpp):
// verilated RTL (every compiled parameterization), C++ model, or RTL in
// lockstep with its model. No SystemC here.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cbfc/cbfc.hpp"
#include "common/block.hpp"
#include "common/testbench.hpp"
#include "common/waves.hpp"

class VerilatedContext;

namespace tb::cbfc_tb {

/// Sender side: the ports of rtl/cbfc/cbfc_tx.sv.
using TxBlock = Block<cbfc::TxIn, cbfc::TxOut>;
/// Receiver side: the ports of rtl/cbfc/cbfc_rx.sv.
using RxBlock = Block<cbfc::RxIn, cbfc::RxOut>;
using LockstepTx = Lockstep<cbfc::TxIn, cbfc::TxOut, cbfc::TxModel>;
using LockstepRx = Lockstep<cbfc::RxIn, cbfc::RxOut, cbfc::RxModel>;

/// A compiled RTL parameterization (rtl/cbfc/CMakeLists.txt, CBFC_VARIANTS).
struct RtlVariant {
  std::string name;
  cbfc::Params params;
  bool mutant = false;
};
const std::vector<RtlVariant>& rtl_variants();
const RtlVariant* find_variant(const std::string& name);
std::vector<std::string> variant_names(bool include_mutants);

/// Verilated RTL. `ctx` is shared by the run; `waves` may be null.
std::unique_ptr<TxBlock> make_tx_rtl(const RtlVariant& v, VerilatedContext* ctx, const std::string& name,
                                     Waves* waves);
std::unique_ptr<RxBlock> make_rx_rtl(const RtlVariant& v, VerilatedContext* ctx, const std::string& name,
                                     Waves* waves);
/// C++ models.
std::unique_ptr<TxBlock> make_tx_model(const cbfc::Params& p);
std::unique_ptr<RxBlock> make_rx_model(const cbfc::Params& p);

/// First differing output, named as the RTL port.
std::optional<Mismatch> diff(const cbfc::TxOut& rtl, const cbfc::TxOut& model, const cbfc::Params& p);
std::optional<Mismatch> diff(const cbfc::RxOut& rtl, const cbfc::RxOut& model, const cbfc::Params& p);

/// RTL in lockstep with its model.
std::unique_ptr<LockstepTx> make_tx_lockstep(std::unique_ptr<TxBlock> rtl, const cbfc::Params& p, const std::string& name);
std::unique_ptr<LockstepRx> make_rx_lockstep(std::unique_ptr<RxBlock> rtl, const cbfc::Params& p, const std::string& name);

}  // namespace tb::cbfc_tb
