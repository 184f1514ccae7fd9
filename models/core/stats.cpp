#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace core {

uint64_t Samples::bits(double v) {
  if (v == 0) v = 0.0;  // -0.0 and 0.0 are one value
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

void Samples::grow() {
  std::vector<Entry> old;
  old.swap(tab_);
  tab_.assign(old.empty() ? 64 : old.size() * 2, Entry{});
  shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(tab_.size()));
  distinct_ = 0;
  for (const Entry& e : old)
    if (e.count) insert(e.key, e.count);
}

void Samples::to_raw() {
  raw_.reserve(n_);
  for (const Entry& e : tab_) {
    double v;
    std::memcpy(&v, &e.key, sizeof v);
    raw_.insert(raw_.end(), e.count, v);
  }
  std::vector<Entry>().swap(tab_);
  distinct_ = 0;
  raw_mode_ = true;
}

void Samples::sort() const {
  if (!dirty_) return;
  val_.clear();
  cum_.clear();
  if (raw_mode_) {
    std::vector<double> v = raw_;
    std::sort(v.begin(), v.end());
    for (size_t k = 0; k < v.size(); ++k) {
      if (k && v[k] == v[k - 1]) {
        ++cum_.back();
        continue;
      }
      val_.push_back(v[k]);
      cum_.push_back((cum_.empty() ? 0 : cum_.back()) + 1);
    }
  } else {
    std::vector<std::pair<double, uint64_t>> e;
    e.reserve(distinct_);
    for (const Entry& x : tab_)
      if (x.count) {
        double v;
        std::memcpy(&v, &x.key, sizeof v);
        e.emplace_back(v, x.count);
      }
    std::sort(e.begin(), e.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    uint64_t c = 0;
    for (const auto& x : e) {
      val_.push_back(x.first);
      cum_.push_back(c += x.second);
    }
  }
  dirty_ = false;
}

double Samples::min() const {
  if (n_ == 0) return 0.0;
  sort();
  return val_.front();
}

double Samples::max() const {
  if (n_ == 0) return 0.0;
  sort();
  return val_.back();
}

double Samples::mean() const { return n_ == 0 ? 0.0 : sum_ / static_cast<double>(n_); }

double Samples::percentile(double p) const {
  if (n_ == 0) return 0.0;
  sort();
  p = std::clamp(p, 0.0, 100.0);
  // nearest rank: ceil(p/100 * n), 1-based. Multiply before dividing: p/100 is
  // inexact (0.07 * 100 = 7.000000000000001 would ceil to rank 8).
  uint64_t rank = static_cast<uint64_t>(std::ceil(p * static_cast<double>(n_) / 100.0));
  if (rank == 0) rank = 1;
  // the first value whose running count reaches the rank
  return val_[static_cast<size_t>(std::lower_bound(cum_.begin(), cum_.end(), rank) - cum_.begin())];
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
