// Statistics for summaries: sample sets with percentiles, and rate meters.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace core {

/// A set of samples (latencies, depths...). Percentiles by nearest rank.
class Samples {
 public:
  void add(double v) { v_.push_back(v); sorted_ = false; }
  size_t count() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  double min() const;
  double max() const;
  double mean() const;
  /// p in [0, 100]; nearest-rank percentile; 0 when empty.
  double percentile(double p) const;

 private:
  mutable std::vector<double> v_;
  mutable bool sorted_ = true;
  void sort() const;
};

/// Jain's fairness index over per-flow throughputs: (sum x)^2 / (n * sum x^2).
double jain_fairness(const std::vector<double>& x);

}  // namespace core
