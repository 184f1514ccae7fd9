// Statistics for summaries: sample sets with percentiles, and rate meters.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace core {

/// A set of samples (latencies, depths...): count, min, max, mean and percentiles by nearest rank,
/// all exact. Memory grows with the number of distinct values, not of samples: what a simulation
/// records (latencies in clock edges or picoseconds, depths in bytes or cells) repeats, so a run of
/// any length keeps a table of a few thousand (value, count) entries (open addressing on the value's
/// bits). Values that seldom repeat (more distinct values than half the samples, once there are
/// kRawAfter samples) are kept one by one instead, as a plain list, so that case costs no more
/// memory than a list.
class Samples {
 public:
  void add(double v) {
    ++n_;
    sum_ += v;
    dirty_ = true;
    if (!raw_mode_) {
      insert(bits(v), 1);
      if (distinct_ * 2 > n_ && n_ >= kRawAfter) to_raw();
    } else {
      raw_.push_back(v);
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
  /// Entries of the value table (0 once kept as a list): what the memory grows with.
  size_t distinct() const { return raw_mode_ ? 0 : distinct_; }

  static constexpr size_t kRawAfter = 65536;

 private:
  struct Entry {
    uint64_t key = 0;    // the value's bits
    uint64_t count = 0;  // 0: empty slot
  };
  std::vector<Entry> tab_;  // power-of-two size, at most half full
  size_t distinct_ = 0;
  unsigned shift_ = 64;
  bool raw_mode_ = false;
  std::vector<double> raw_;
  size_t n_ = 0;
  double sum_ = 0;
  // Sorted view for the queries, rebuilt after an add: values ascending and the running count.
  mutable std::vector<double> val_;
  mutable std::vector<uint64_t> cum_;
  mutable bool dirty_ = true;

  static uint64_t bits(double v);
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
  void to_raw();
  void sort() const;
};

/// Jain's fairness index over per-flow throughputs: (sum x)^2 / (n * sum x^2).
double jain_fairness(const std::vector<double>& x);

}  // namespace core
