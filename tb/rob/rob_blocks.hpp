// ROB blocks behind the common Block interface (tb/common/block.hpp):
// verilated RTL, C++ model, or RTL in lockstep with its model.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/block.hpp"
#include "common/waves.hpp"
#include "rob/rob.hpp"

class VerilatedContext;

namespace tb::rob_tb {

using RobBlock = Block<rob::In, rob::Out>;
using LockstepRob = Lockstep<rob::In, rob::Out, rob::Model>;

/// A compiled RTL parameterization (rtl/rob/CMakeLists.txt, ROB_VARIANTS).
struct RtlVariant {
  std::string name;
  rob::Params params;
  bool mutant = false;
};
const std::vector<RtlVariant>& rtl_variants();
const RtlVariant* find_variant(const std::string& name);
std::vector<std::string> variant_names(bool include_mutants);

std::unique_ptr<RobBlock> make_rtl(const RtlVariant& v, VerilatedContext* ctx, const std::string& name, Waves* waves);
std::unique_ptr<RobBlock> make_model(const rob::Params& p);
std::unique_ptr<LockstepRob> make_lockstep(std::unique_ptr<RobBlock> rtl, const rob::Params& p, const std::string& name);
std::optional<Mismatch> diff(const rob::Out& rtl, const rob::Out& model);

}  // namespace tb::rob_tb
