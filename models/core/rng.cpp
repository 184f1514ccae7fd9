#include "core/rng.hpp"

namespace core {

void Mt64::refill() {
  constexpr uint64_t kUpper = ~0ull << 31, kLower = ~kUpper, kA = 0xb5026f5aa96619e9ull;
  auto step = [](uint64_t cur, uint64_t nxt, uint64_t far) {
    return far ^ (((cur & kUpper) | (nxt & kLower)) >> 1) ^ ((0 - (nxt & 1)) & kA);
  };
  for (size_t j = 0; j < kN - kM; ++j) x_[j] = step(x_[j], x_[j + 1], x_[j + kM]);
  for (size_t j = kN - kM; j < kN - 1; ++j) x_[j] = step(x_[j], x_[j + 1], x_[j - (kN - kM)]);
  x_[kN - 1] = step(x_[kN - 1], x_[0], x_[kM - 1]);
  for (size_t j = 0; j < kN; ++j) {  // tempering
    uint64_t z = x_[j];
    z ^= (z >> 29) & 0x5555555555555555ull;
    z ^= (z << 17) & 0x71d67fffeda60000ull;
    z ^= (z << 37) & 0xfff7eee000000000ull;
    out_[j] = z ^ (z >> 43);
  }
  i_ = 0;
}

}  // namespace core
