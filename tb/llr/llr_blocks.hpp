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

}  // namespace tb::llr_tb
