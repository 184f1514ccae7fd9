// CBFC blocks behind one interface, whether verilated RTL or C++ model, so a
// testbench picks either per side by a setting. The lockstep wrapper runs RTL
// and model on the same inputs and compares every output on every cycle.
// No SystemC here: the same blocks run under SystemC (tb) and in plain loops
// (benchmarks, sweeps).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cbfc/cbfc.hpp"
#include "common/testbench.hpp"
#include "common/waves.hpp"

class VerilatedContext;

namespace tb::cbfc_tb {

/// Sender side: the ports of rtl/cbfc/cbfc_tx.sv.
class TxBlock {
 public:
  virtual ~TxBlock() = default;
  /// Applies the inputs for the coming rising edge; the clock is low.
  virtual void drive(const cbfc::TxIn& in) = 0;
  /// Rising edge.
  virtual void posedge() = 0;
  virtual cbfc::TxOut outputs() const = 0;
};

/// Receiver side: the ports of rtl/cbfc/cbfc_rx.sv.
class RxBlock {
 public:
  virtual ~RxBlock() = default;
  virtual void drive(const cbfc::RxIn& in) = 0;
  virtual void posedge() = 0;
  virtual cbfc::RxOut outputs() const = 0;
};

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

/// RTL and model side by side; outputs are the RTL's. After each edge the two
/// are compared; the first mismatch is kept (cycle, time, block, signal, values).
class LockstepTx : public TxBlock {
 public:
  LockstepTx(std::unique_ptr<TxBlock> rtl, const cbfc::Params& p, std::string name);
  void drive(const cbfc::TxIn& in) override;
  void posedge() override;
  cbfc::TxOut outputs() const override { return rtl_->outputs(); }
  void set_time(uint64_t cycle, core::Ps t) { cycle_ = cycle, time_ = t; }
  const std::optional<Mismatch>& mismatch() const { return mismatch_; }

 private:
  std::unique_ptr<TxBlock> rtl_;
  cbfc::TxModel model_;
  cbfc::TxIn in_;
  std::string name_;
  uint64_t cycle_ = 0;
  core::Ps time_ = 0;
  std::optional<Mismatch> mismatch_;
};

class LockstepRx : public RxBlock {
 public:
  LockstepRx(std::unique_ptr<RxBlock> rtl, const cbfc::Params& p, std::string name);
  void drive(const cbfc::RxIn& in) override;
  void posedge() override;
  cbfc::RxOut outputs() const override { return rtl_->outputs(); }
  void set_time(uint64_t cycle, core::Ps t) { cycle_ = cycle, time_ = t; }
  const std::optional<Mismatch>& mismatch() const { return mismatch_; }

 private:
  std::unique_ptr<RxBlock> rtl_;
  cbfc::RxModel model_;
  cbfc::RxIn in_;
  std::string name_;
  uint64_t cycle_ = 0;
  core::Ps time_ = 0;
  std::optional<Mismatch> mismatch_;
};

}  // namespace tb::cbfc_tb
