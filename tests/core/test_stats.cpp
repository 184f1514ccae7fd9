// Unit tests of core::Samples / jain_fairness, core::Rng and core time helpers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/rng.hpp"
#include "core/stats.hpp"
#include "core/time.hpp"

using core::Rng;
using core::Samples;

// ---------------------------------------------------------------- Samples

namespace {
Samples one_to(int n, bool reversed = false) {
  Samples s;
  for (int i = 1; i <= n; ++i) s.add(reversed ? n + 1 - i : i);
  return s;
}
}  // namespace

TEST(Stats, PercentileNearestRankOneToHundred) {
  Samples s = one_to(100, /*reversed=*/true);  // insertion order must not matter
  EXPECT_EQ(s.count(), 100u);
  EXPECT_DOUBLE_EQ(s.percentile(50), 50.0);
  EXPECT_DOUBLE_EQ(s.percentile(99), 99.0);
  EXPECT_DOUBLE_EQ(s.percentile(100), 100.0);
  EXPECT_DOUBLE_EQ(s.percentile(0), 1.0);  // p0 -> the minimum
  EXPECT_DOUBLE_EQ(s.percentile(1), 1.0);
  EXPECT_DOUBLE_EQ(s.percentile(25), 25.0);
  EXPECT_DOUBLE_EQ(s.percentile(90), 90.0);
  EXPECT_DOUBLE_EQ(s.percentile(99.5), 100.0);  // ceil(99.5) = rank 100
  EXPECT_DOUBLE_EQ(s.percentile(0.5), 1.0);     // ceil(0.5) = rank 1
  EXPECT_DOUBLE_EQ(s.percentile(50.01), 51.0);  // just above a rank boundary
}

TEST(Stats, PercentileEveryIntegerRankOfOneToHundred) {
  // On 1..100 the p-th percentile is exactly p for every integer p >= 1
  // (guards against p/100*n rounding up past an exact rank, e.g. 0.07*100).
  Samples s = one_to(100);
  for (int p = 1; p <= 100; ++p) EXPECT_DOUBLE_EQ(s.percentile(p), p) << "p" << p;
}

TEST(Stats, PercentileSmallSets) {
  Samples s;
  for (double v : {15.0, 20.0, 35.0, 40.0, 50.0}) s.add(v);  // textbook example, n = 5
  EXPECT_DOUBLE_EQ(s.percentile(5), 15.0);    // rank ceil(0.25) = 1
  EXPECT_DOUBLE_EQ(s.percentile(30), 20.0);   // rank ceil(1.5) = 2
  EXPECT_DOUBLE_EQ(s.percentile(40), 20.0);   // rank 2 exactly
  EXPECT_DOUBLE_EQ(s.percentile(50), 35.0);   // rank ceil(2.5) = 3
  EXPECT_DOUBLE_EQ(s.percentile(100), 50.0);  // rank 5
  Samples one;
  one.add(7.5);
  for (double p : {0.0, 1.0, 50.0, 99.0, 100.0}) EXPECT_DOUBLE_EQ(one.percentile(p), 7.5) << p;
}

TEST(Stats, PercentileClampsP) {
  Samples s = one_to(10);
  EXPECT_DOUBLE_EQ(s.percentile(-5), 1.0);
  EXPECT_DOUBLE_EQ(s.percentile(250), 10.0);
}

TEST(Stats, EmptySamples) {
  Samples s;
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.count(), 0u);
  EXPECT_DOUBLE_EQ(s.min(), 0.0);
  EXPECT_DOUBLE_EQ(s.max(), 0.0);
  EXPECT_DOUBLE_EQ(s.mean(), 0.0);
  EXPECT_DOUBLE_EQ(s.percentile(50), 0.0);
  EXPECT_DOUBLE_EQ(s.percentile(0), 0.0);
  EXPECT_DOUBLE_EQ(s.percentile(100), 0.0);
}

TEST(Stats, MeanMinMax) {
  Samples s = one_to(100, true);
  EXPECT_FALSE(s.empty());
  EXPECT_DOUBLE_EQ(s.min(), 1.0);
  EXPECT_DOUBLE_EQ(s.max(), 100.0);
  EXPECT_DOUBLE_EQ(s.mean(), 50.5);

  Samples t;
  for (double v : {3.0, -2.0, 11.0, 0.5}) t.add(v);
  EXPECT_DOUBLE_EQ(t.min(), -2.0);
  EXPECT_DOUBLE_EQ(t.max(), 11.0);
  EXPECT_DOUBLE_EQ(t.mean(), 3.125);  // 12.5 / 4
}

TEST(Stats, AddingAfterAQueryResorts) {
  Samples s;
  s.add(5);
  s.add(3);
  EXPECT_DOUBLE_EQ(s.max(), 5.0);
  s.add(9);
  s.add(1);
  EXPECT_DOUBLE_EQ(s.max(), 9.0);
  EXPECT_DOUBLE_EQ(s.min(), 1.0);
  EXPECT_DOUBLE_EQ(s.percentile(50), 3.0);  // sorted 1 3 5 9, rank 2
  EXPECT_DOUBLE_EQ(s.percentile(75), 5.0);  // rank 3
  EXPECT_DOUBLE_EQ(s.mean(), 4.5);
}

namespace {
// The definition: nearest rank over the sorted list of every sample.
double ref_percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  p = std::clamp(p, 0.0, 100.0);
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size()) / 100.0));
  return v[(rank ? rank : 1) - 1];
}

void expect_as_list(const Samples& s, const std::vector<double>& v) {
  ASSERT_EQ(s.count(), v.size());
  EXPECT_EQ(s.min(), *std::min_element(v.begin(), v.end()));
  EXPECT_EQ(s.max(), *std::max_element(v.begin(), v.end()));
  double sum = 0;
  for (double x : v) sum += x;
  EXPECT_EQ(s.mean(), sum / static_cast<double>(v.size()));
  for (double p : {0.0, 0.1, 1.0, 25.0, 50.0, 50.01, 90.0, 99.0, 99.9, 99.99, 100.0})
    EXPECT_EQ(s.percentile(p), ref_percentile(v, p)) << "p" << p;
}
}  // namespace

// A long run of repeating values (latencies on a clock grid) keeps one entry per distinct value,
// and every figure is the one of the full list.
TEST(Stats, MemoryGrowsWithDistinctValuesNotSamples) {
  std::mt19937_64 g(7);
  Samples s;
  std::vector<double> v;
  for (int i = 0; i < 300000; ++i) {
    const double x = 0.625 * static_cast<double>(300 + g() % 700 + (g() % 100 == 0 ? 5000 : 0));
    s.add(x);
    v.push_back(x);
    if (i == 1000) expect_as_list(s, v);  // queries between adds
  }
  EXPECT_LE(s.distinct(), 1400u);
  EXPECT_GE(s.distinct(), 1000u);
  expect_as_list(s, v);
  s.add(-0.0);  // one value with 0.0
  s.add(0.0);
  v.push_back(0.0);
  v.push_back(0.0);
  expect_as_list(s, v);
}

// Values that do not repeat stay a list (more distinct values than half the samples).
TEST(Stats, ValuesThatDoNotRepeatAreKeptAsAList) {
  std::mt19937_64 g(3);
  std::uniform_real_distribution<double> u(0.0, 1e6);
  Samples s;
  std::vector<double> v;
  for (size_t i = 0; i < 3 * Samples::kCompactAt + 5000; ++i) {
    const double x = u(g);
    s.add(x);
    v.push_back(x);
  }
  EXPECT_EQ(s.distinct(), 0u);
  expect_as_list(s, v);
}

// A table whose values stop repeating goes back to a list; copies answer the same.
TEST(Stats, TableTurnsBackIntoAListAndCopies) {
  std::mt19937_64 g(5);
  Samples s;
  std::vector<double> v;
  for (size_t i = 0; i < 2 * Samples::kCompactAt; ++i) {
    const double x = static_cast<double>(g() % 50);
    s.add(x);
    v.push_back(x);
  }
  EXPECT_EQ(s.distinct(), 50u);
  const Samples copy = s;
  expect_as_list(copy, v);
  for (size_t i = 0; i < 3 * Samples::kCompactAt; ++i) {
    const double x = 100.0 + static_cast<double>(i) * 0.5;
    s.add(x);
    v.push_back(x);
  }
  EXPECT_EQ(s.distinct(), 0u);
  expect_as_list(s, v);
  expect_as_list(copy, std::vector<double>(v.begin(), v.begin() + 2 * Samples::kCompactAt));
}

TEST(Stats, JainFairness) {
  EXPECT_DOUBLE_EQ(core::jain_fairness({5, 5, 5, 5}), 1.0);
  EXPECT_DOUBLE_EQ(core::jain_fairness({2.5}), 1.0);
  EXPECT_DOUBLE_EQ(core::jain_fairness({1, 0, 0, 0}), 0.25);       // 1 / (4 * 1)
  EXPECT_DOUBLE_EQ(core::jain_fairness({1, 1, 0, 0}), 0.5);        // 4 / (4 * 2)
  EXPECT_DOUBLE_EQ(core::jain_fairness({1, 2, 3}), 36.0 / 42.0);   // 6^2 / (3 * 14)
  EXPECT_DOUBLE_EQ(core::jain_fairness({}), 1.0);                  // nothing to be unfair about
  EXPECT_DOUBLE_EQ(core::jain_fairness({0, 0, 0}), 1.0);
}

// ---------------------------------------------------------------- Rng

TEST(Rng, HashAndMixKnownValues) {
  // splitmix64 of 0 and FNV-1a 64 reference values.
  static_assert(core::mix64(0) == 0xe220a8397b1dcdafull);
  static_assert(core::hash_name("") == 0xcbf29ce484222325ull);
  static_assert(core::hash_name("a") == 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(core::mix64(0), 0xe220a8397b1dcdafull);
  EXPECT_NE(core::hash_name("traffic"), core::hash_name("credits"));
}

TEST(Rng, StreamIsMt19937_64SeededFromSeedAndName) {
  Rng r(5, "flow");
  std::mt19937_64 ref(core::mix64(5ull ^ core::mix64(core::hash_name("flow"))));
  for (int i = 0; i < 100; ++i) ASSERT_EQ(r.next(), ref()) << i;
}

TEST(Rng, SameSeedAndNameReproduce) {
  Rng a(42, "traffic"), b(42, "traffic");
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.next(), b.next()) << i;
  Rng c(42, "traffic"), d(42, "traffic");
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(c.uniform(0, 1000), d.uniform(0, 1000)) << i;
    ASSERT_EQ(c.real(), d.real()) << i;
  }
}

TEST(Rng, DifferentNamesOrSeedsDiffer) {
  auto first = [](uint64_t seed, const char* name) {
    Rng r(seed, name);
    std::vector<uint64_t> v;
    for (int i = 0; i < 8; ++i) v.push_back(r.next());
    return v;
  };
  auto base = first(42, "traffic");
  EXPECT_NE(base, first(42, "credits"));
  EXPECT_NE(base, first(43, "traffic"));
  EXPECT_NE(base, first(0, "traffic"));
  EXPECT_NE(first(1, "a"), first(1, "b"));
  EXPECT_EQ(base, first(42, "traffic"));
}

TEST(Rng, UniformBoundsRespected) {
  Rng r(7, "bounds");
  uint64_t lo = ~0ull, hi = 0;
  for (int i = 0; i < 10000; ++i) {
    uint64_t v = r.uniform(10, 20);
    ASSERT_GE(v, 10u);
    ASSERT_LE(v, 20u);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_EQ(lo, 10u);  // both ends are inclusive and reached
  EXPECT_EQ(hi, 20u);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(r.uniform(7, 7), 7u);
  for (int i = 0; i < 1000; ++i) ASSERT_LE(r.uniform(0, 1), 1u);
}

TEST(Rng, RealInUnitInterval) {
  Rng r(9, "real");
  double sum = 0;
  for (int i = 0; i < 10000; ++i) {
    double v = r.real();
    ASSERT_GE(v, 0.0);
    ASSERT_LT(v, 1.0);
    sum += v;
  }
  EXPECT_NEAR(sum / 10000, 0.5, 0.02);
}

TEST(Rng, Chance) {
  Rng r(3, "chance");
  for (int i = 0; i < 1000; ++i) {
    ASSERT_FALSE(r.chance(0.0));
    ASSERT_TRUE(r.chance(1.0));
    ASSERT_FALSE(r.chance(-0.5));
    ASSERT_TRUE(r.chance(2.0));
  }
  int hits = 0;
  for (int i = 0; i < 10000; ++i) hits += r.chance(0.25) ? 1 : 0;
  EXPECT_GT(hits, 2250);
  EXPECT_LT(hits, 2750);
}

// ---------------------------------------------------------------- time

TEST(Time, NsAndToNs) {
  static_assert(core::ns(1.5) == 1500);
  static_assert(core::kPsPerNs == 1000);
  EXPECT_EQ(core::ns(0), 0);
  EXPECT_EQ(core::ns(1), 1000);
  EXPECT_EQ(core::ns(60.0), 60000);
  EXPECT_EQ(core::ns(12.345), 12345);
  EXPECT_EQ(core::ns(0.0004), 0);   // rounds to the nearest ps
  EXPECT_EQ(core::ns(0.0006), 1);
  EXPECT_EQ(core::ns(2.0004), 2000);
  EXPECT_EQ(core::ns(-1.5), -1500);  // symmetric rounding for negatives
  EXPECT_EQ(core::ns(-0.0006), -1);
  EXPECT_DOUBLE_EQ(core::to_ns(1500), 1.5);
  EXPECT_DOUBLE_EQ(core::to_ns(1), 0.001);
  EXPECT_DOUBLE_EQ(core::to_ns(-2500), -2.5);
  EXPECT_DOUBLE_EQ(core::to_ns(core::ns(7.25)), 7.25);
}

TEST(Time, FormatTime) {
  EXPECT_EQ(core::format_time(0), "0 ns");
  EXPECT_EQ(core::format_time(12000), "12 ns");
  EXPECT_EQ(core::format_time(12345), "12.345 ns");
  EXPECT_EQ(core::format_time(1), "0.001 ns");
  EXPECT_EQ(core::format_time(1500), "1.500 ns");
  EXPECT_EQ(core::format_time(-1500), "-1.500 ns");
  EXPECT_EQ(core::format_time(-3000), "-3 ns");
  EXPECT_EQ(core::format_time(1000000000), "1000000 ns");
}

TEST(Time, Clock) {
  core::Clock c;
  EXPECT_EQ(c.period_ps, 1000);
  EXPECT_EQ(c.time_of(0), 0);
  EXPECT_EQ(c.time_of(5), 5000);
  EXPECT_DOUBLE_EQ(c.mhz(), 1000.0);
  core::Clock c800{1250};
  EXPECT_EQ(c800.time_of(4), 5000);
  EXPECT_DOUBLE_EQ(c800.mhz(), 800.0);
}

// core::UniformInt draws exactly what Rng::uniform(lo, hi) draws (boost's uniform_int_distribution),
// over small, odd, power-of-two and huge ranges, including the ones whose rejection loop runs.
TEST(Rng, UniformIntEqualsUniform) {
  const std::vector<std::pair<uint64_t, uint64_t>> ranges = {
      {0, 0},   {5, 5},  {0, 1},      {0, 2},          {0, 62},           {0, 63},          {0, 256},
      {3, 259}, {7, 13}, {0, 1000003}, {1, 1ull << 40}, {0, ~0ull >> 1},   {0, (~0ull >> 1) + 7},
      {0, ~0ull - 1}, {0, ~0ull}, {100, ~0ull}};
  for (const auto& [lo, hi] : ranges) {
    Rng a(42, "u"), b(42, "u");
    const core::UniformInt u(lo, hi);
    EXPECT_EQ(u.lo(), lo);
    EXPECT_EQ(u.hi(), hi);
    for (int k = 0; k < 2000; ++k) {
      const uint64_t x = a.uniform(lo, hi), y = u(b);
      ASSERT_EQ(x, y) << "range [" << lo << ", " << hi << "] draw " << k;
      ASSERT_TRUE(x >= lo && x <= hi);
    }
    EXPECT_EQ(a.next(), b.next()) << "both streams used as many engine draws";
  }
}
