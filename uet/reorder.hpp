// The reorder buffer as the target endpoint sees it: per cycle, drive rob::In and
// read rob::Out -- exactly the signature of rob::Model::tick/outputs, so the RTL
// (through a testbench adapter) or the C++ model can sit behind it.
#pragma once

#include <memory>

#include "rob/rob.hpp"

namespace uet {

class ReorderBuffer {
 public:
  virtual ~ReorderBuffer() = default;
  /// One rising edge with these inputs.
  virtual void tick(const rob::In& in) = 0;
  /// The registered outputs after the last edge.
  virtual rob::Out outputs() const = 0;
  virtual const rob::Params& params() const = 0;
};

/// The adapter over the cycle-exact C++ model (it comes out of reset in its constructor).
class RobModelAdapter final : public ReorderBuffer {
 public:
  explicit RobModelAdapter(const rob::Params& p) : m_(p) {}
  void tick(const rob::In& in) override { m_.tick(in); }
  rob::Out outputs() const override { return m_.outputs(); }
  const rob::Params& params() const override { return m_.params(); }

 private:
  rob::Model m_;
};

inline std::unique_ptr<ReorderBuffer> make_rob_model(const rob::Params& p) {
  return std::make_unique<RobModelAdapter>(p);
}

}  // namespace uet
