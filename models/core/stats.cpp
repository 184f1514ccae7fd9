#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace core {

void Samples::sort() const {
  if (!sorted_) {
    std::sort(v_.begin(), v_.end());
    sorted_ = true;
  }
}

double Samples::min() const {
  if (v_.empty()) return 0.0;
  sort();
  return v_.front();
}

double Samples::max() const {
  if (v_.empty()) return 0.0;
  sort();
  return v_.back();
}

double Samples::mean() const {
  if (v_.empty()) return 0.0;
  return std::accumulate(v_.begin(), v_.end(), 0.0) / static_cast<double>(v_.size());
}

double Samples::percentile(double p) const {
  if (v_.empty()) return 0.0;
  sort();
  p = std::clamp(p, 0.0, 100.0);
  // nearest rank: ceil(p/100 * n), 1-based. Multiply before dividing: p/100 is
  // inexact (0.07 * 100 = 7.000000000000001 would ceil to rank 8).
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v_.size()) / 100.0));
  if (rank == 0) rank = 1;
  return v_[rank - 1];
}

double jain_fairness(const std::vector<double>& x) {
  if (x.empty()) return 1.0;
  double s = 0, s2 = 0;
  for (double v : x) {
    s += v;
    s2 += v * v;
  }
  if (s2 == 0) return 1.0;
  return (s * s) / (static_cast<double>(x.size()) * s2);
}

}  // namespace core
