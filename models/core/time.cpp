#include "core/time.hpp"

#include <fmt/format.h>

namespace core {

std::string format_time(Ps t) {
  if (t % 1000 == 0) return fmt::format("{} ns", t / 1000);
  return fmt::format("{:.3f} ns", to_ns(t));
}

}  // namespace core
