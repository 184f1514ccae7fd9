// Statistics for summaries: sample sets with percentiles, and rate meters.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace core {

/// A set of samples (latencies, depths...): count, min, max, mean and percentiles by nearest rank,
/// all exact. Kept as a list while short; from kCompactAt samples on, as a table of (value, count)
/// entries (open addressing on the value's bits) when the values repeat (at most one distinct value
/// in two samples): what a simulation records (latencies in clock edges or picoseconds, depths in
/// bytes or cells) does, so a run of any length keeps a few thousand entries instead of every sample.
/// Values that seldom repeat stay a list (tried again each time the list doubles).
class Samples {
 public:
  Samples() = default;
  Samples(const Samples& o) { *this = o; }
  Samples& operator=(const Samples& o);
  Samples(Samples&&) noexcept = default;
  Samples& operator=(Samples&&) noexcept = default;

  void add(double v) {
    ++n_;
    sum_ += v;
    dirty_ = true;
    if (table_) {
      insert(bits(v), 1);
      if (distinct_ * 2 > n_) to_list();
    } else {
      raw_.push_back(v);
      if (raw_.size() == next_check_) compact();
    }
  }
  size_t count() const { return n_; }
  bool empty() const { return n_ == 0; }
  double min() const;
  double max() const;
  /// Sum in the order the samples came, over the count.
  double mean() const;
  /// p in [0, 100]; nearest-rank percentile; 0 when empty.
  double percentile(double p) const;
  /// Entries of the value table, 0 while a list: what the memory grows with.
  size_t distinct() const { return table_ ? distinct_ : 0; }

  static constexpr size_t kCompactAt = 4096;

 private:
  struct Entry {
    uint64_t key = 0;    // the value's bits
    uint64_t count = 0;  // 0: empty slot
  };
  struct View {  // a table's sorted values and running counts, rebuilt for the queries after an add
    std::vector<double> val;
    std::vector<uint64_t> cum;
  };
  mutable std::vector<double> raw_;  // a list (its order does not matter: sorted in place for the queries)
  std::vector<Entry> tab_;   // a table: power-of-two size, at most half full
  size_t n_ = 0, distinct_ = 0, next_check_ = kCompactAt;
  double sum_ = 0;
  unsigned shift_ = 64;
  bool table_ = false;
  mutable bool dirty_ = true;
  mutable std::unique_ptr<View> view_;

  static uint64_t bits(double v) {
    if (v == 0) v = 0.0;  // -0.0 and 0.0 are one value
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
  }
  void insert(uint64_t key, uint64_t count) {
    if ((distinct_ + 1) * 2 > tab_.size()) grow();
    const size_t mask = tab_.size() - 1;
    for (size_t i = static_cast<size_t>((key * 0x9e3779b97f4a7c15ull) >> shift_);; i = (i + 1) & mask) {
      Entry& e = tab_[i];
      if (e.count == 0) {
        e.key = key;
        e.count = count;
        ++distinct_;
        return;
      }
      if (e.key == key) {
        e.count += count;
        return;
      }
    }
  }
  void grow();
  void compact();
  void to_list();
  const View& view() const;
};

/// Jain's fairness index over per-flow throughputs: (sum x)^2 / (n * sum x^2).
double jain_fairness(const std::vector<double>& x);

}  // namespace core
