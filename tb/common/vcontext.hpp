// One Verilator context for the whole process, never destroyed: Verilator
// 5.006 deadlocks destroying models after a second context has been used, and
// a failed RTL assertion must end the run with a report, not abort().
//
// Coverage builds (cmake -DCOSIM_COVERAGE=ON, which defines COSIM_RTL_COVERAGE):
// the process writes the context's coverage data at exit to
// $COSIM_COVERAGE_DIR/<pid>.dat (default <build>/coverage/raw). The coverage
// database points into the models' counters, so there a verilated model is
// never deleted (ModelPtr keeps it until exit); otherwise ModelPtr is a plain
// std::unique_ptr.
#pragma once

#include <memory>
#include <utility>

class VerilatedContext;
class VerilatedModel;

namespace tb {
VerilatedContext* shared_context();

#ifdef COSIM_RTL_COVERAGE
struct RetireModel {
  void operator()(VerilatedModel* m) const;  // kept alive until the coverage is written
};
template <class V>
using ModelPtr = std::unique_ptr<V, RetireModel>;
#else
template <class V>
using ModelPtr = std::unique_ptr<V>;
#endif

// Owns a verilated model: `tb::make_model<Vx>(ctx, "name")`.
template <class V, class... Args>
ModelPtr<V> make_model(Args&&... args) {
  return ModelPtr<V>(new V(std::forward<Args>(args)...));
}
}  // namespace tb
