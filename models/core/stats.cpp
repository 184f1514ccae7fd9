#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace core {

Samples& Samples::operator=(const Samples& o) {
  if (this == &o) return *this;
  raw_ = o.raw_;
  tab_ = o.tab_;
  n_ = o.n_;
  distinct_ = o.distinct_;
  next_check_ = o.next_check_;
  sum_ = o.sum_;
  shift_ = o.shift_;
  table_ = o.table_;
  dirty_ = true;
  view_.reset();
  return *this;
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

// The list as a table, if its values repeat; else the list stays, to be tried again at twice the size.
void Samples::compact() {
  for (double v : raw_) insert(bits(v), 1);
  if (distinct_ * 2 <= n_) {
    table_ = true;
    std::vector<double>().swap(raw_);
    return;
  }
  std::vector<Entry>().swap(tab_);
  distinct_ = 0;
  next_check_ = raw_.size() * 2;
}

void Samples::to_list() {
  raw_.reserve(n_);
  for (const Entry& e : tab_) {
    double v;
    std::memcpy(&v, &e.key, sizeof v);
    raw_.insert(raw_.end(), e.count, v);
  }
  std::vector<Entry>().swap(tab_);
  distinct_ = 0;
  table_ = false;
  next_check_ = raw_.size() * 2;
}

// A list is sorted in place and read directly; a table is sorted into the view.
const Samples::View& Samples::view() const {
  if (!view_) view_ = std::make_unique<View>();
  View& w = *view_;
  if (!dirty_) return w;
  w.val.clear();
  w.cum.clear();
  if (!table_) {
    std::sort(raw_.begin(), raw_.end());
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
      w.val.push_back(x.first);
      w.cum.push_back(c += x.second);
    }
  }
  dirty_ = false;
  return w;
}

double Samples::min() const {
  if (n_ == 0) return 0.0;
  const View& w = view();
  return table_ ? w.val.front() : raw_.front();
}

double Samples::max() const {
  if (n_ == 0) return 0.0;
  const View& w = view();
  return table_ ? w.val.back() : raw_.back();
}

double Samples::mean() const { return n_ == 0 ? 0.0 : sum_ / static_cast<double>(n_); }

double Samples::percentile(double p) const {
  if (n_ == 0) return 0.0;
  const View& w = view();
  p = std::clamp(p, 0.0, 100.0);
  // nearest rank: ceil(p/100 * n), 1-based. Multiply before dividing: p/100 is
  // inexact (0.07 * 100 = 7.000000000000001 would ceil to rank 8).
  uint64_t rank = static_cast<uint64_t>(std::ceil(p * static_cast<double>(n_) / 100.0));
  if (rank == 0) rank = 1;
  if (!table_) return raw_[static_cast<size_t>(rank - 1)];
  // the first value whose running count reaches the rank
  return w.val[static_cast<size_t>(std::lower_bound(w.cum.begin(), w.cum.end(), rank) - w.cum.begin())];
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
