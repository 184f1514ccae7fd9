// LLR blocks behind the common Block interface (tb/common/block.hpp):
// verilated RTL (every compiled parameterization), C++ model, or RTL in
// lockstep with its model. No SystemC here.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/block.hpp"
#include "common/waves.hpp"
#include "llr/llr.hpp"
#include "switch/llr_link.hpp"

class VerilatedContext;

namespace tb::llr_tb {

using LlrBlock = Block<llr::In, llr::Out>;
using LockstepLlr = Lockstep<llr::In, llr::Out, llr::Model>;

/// A compiled RTL parameterization (rtl/llr/CMakeLists.txt, LLR_VARIANTS).
struct RtlVariant {
  std::string name;
  llr::Params params;
  bool mutant = false;
};
const std::vector<RtlVariant>& rtl_variants();
const RtlVariant* find_variant(const std::string& name);

std::unique_ptr<LlrBlock> make_rtl(const RtlVariant& v, VerilatedContext* ctx, const std::string& name, Waves* waves);
std::unique_ptr<LlrBlock> make_model(const llr::Params& p);
std::unique_ptr<LockstepLlr> make_lockstep(std::unique_ptr<LlrBlock> rtl, const llr::Params& p, const std::string& name);

/// First differing output, named as the RTL port.
std::optional<Mismatch> diff(const llr::Out& rtl, const llr::Out& model);

/// An LLR block (verilated RTL, or RTL in lockstep with its model) as the engine of one partner of
/// a sw::LlrLink: the seam that keeps verilated headers out of switch/. Per edge: drive, posedge,
/// outputs; a lockstep block is told the edge number and time for its mismatch report. Waves (when
/// the block traces into them) are the caller's: it dumps after the edges.
class LinkEngine final : public sw::LlrEngine {
 public:
  LinkEngine(std::unique_ptr<LlrBlock> block, std::string name);
  void tick(const llr::In& in, core::Ps t) override;
  llr::Out outputs() const override { return out_; }
  const std::string& name() const { return name_; }
  /// Rising edges out of reset (lockstep: cycles compared).
  uint64_t edges() const { return edges_; }
  bool lockstep() const { return ls_ != nullptr; }
  /// First lockstep mismatch (none without lockstep).
  std::optional<Mismatch> mismatch() const;

 private:
  std::unique_ptr<LlrBlock> b_;
  LockstepLlr* ls_ = nullptr;
  std::string name_;
  llr::Out out_;
  uint64_t edges_ = 0;
};

}  // namespace tb::llr_tb
