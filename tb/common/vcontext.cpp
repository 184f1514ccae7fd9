#include "common/vcontext.hpp"

#include "verilated.h"

namespace tb {

VerilatedContext* shared_context() {
  static VerilatedContext* ctx = [] {
    auto* c = new VerilatedContext;
    c->fatalOnError(false);
    return c;
  }();
  return ctx;
}

}  // namespace tb
