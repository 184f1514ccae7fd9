// Seeded random streams. A run is (testbench, seed, settings): every random
// decision draws from a named stream derived from the run seed, so adding a
// stream never perturbs the others, and the same triple replays bit for bit.
#pragma once
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cstdint>
#include <string_view>

namespace core {

/// splitmix64 finaliser: a good 64-bit mix.
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// FNV-1a over a stream name.
constexpr uint64_t hash_name(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

class Rng;

/// Rng::uniform(lo, hi) with the divisor of its range worked out once: the same draws (boost's
/// algorithm for a 64-bit engine), one division per draw instead of three, for ranges drawn again
/// and again (a destination, a command size).
class UniformInt {
 public:
  UniformInt() = default;
  UniformInt(uint64_t lo, uint64_t hi) : lo_(lo), range_(hi - lo) {
    if (range_ != 0 && range_ != ~0ull) {
      bucket_ = ~0ull / (range_ + 1);
      if (~0ull % (range_ + 1) == range_) ++bucket_;
    }
  }
  uint64_t lo() const { return lo_; }
  uint64_t hi() const { return lo_ + range_; }
  inline uint64_t operator()(Rng& r) const;

 private:
  uint64_t lo_ = 0, range_ = 0, bucket_ = 0;
};

class Rng {
 public:
  /// Stream `name` of run seed `seed`.
  Rng(uint64_t seed, std::string_view name) : eng_(mix64(seed ^ mix64(hash_name(name)))) {}

  uint64_t next() { return eng_(); }
  /// Uniform integer in [lo, hi] (inclusive).
  uint64_t uniform(uint64_t lo, uint64_t hi) {
    return boost::random::uniform_int_distribution<uint64_t>(lo, hi)(eng_);
  }
  /// Uniform real in [0, 1).
  double real() { return boost::random::uniform_real_distribution<double>(0.0, 1.0)(eng_); }
  /// True with probability p.
  bool chance(double p) { return p > 0.0 && (p >= 1.0 || real() < p); }

 private:
  boost::random::mt19937_64 eng_;
  friend class UniformInt;
};

// boost::random::detail::generate_uniform_int for an engine of range [0, 2^64 - 1], range < 2^64 - 1:
// bucket_size = brange / (range + 1), one more when brange % (range + 1) == range; draw / bucket_size
// until it is <= range (tests/core/test_stats.cpp compares the two).
inline uint64_t UniformInt::operator()(Rng& r) const {
  static_assert(boost::random::mt19937_64::word_size == 64, "UniformInt follows boost for an engine of range [0, 2^64 - 1]");
  if (range_ == 0) return lo_;
  if (range_ == ~0ull) return lo_ + r.eng_();
  for (;;) {
    const uint64_t v = r.eng_() / bucket_;
    if (v <= range_) return lo_ + v;
  }
}

}  // namespace core
