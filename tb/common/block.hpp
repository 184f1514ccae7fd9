// A block behind one interface whether it is verilated RTL or its C++ model,
// so any block of a system is RTL or model by a setting; and the lockstep
// wrapper that runs RTL and model on the same inputs and compares every
// output after every rising edge. No SystemC here: the same blocks run under
// SystemC and in plain loops.
#pragma once
#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "common/testbench.hpp"

namespace tb {

template <class In, class Out>
class Block {
 public:
  virtual ~Block() = default;
  /// Applies the inputs for the coming rising edge (the clock is low).
  virtual void drive(const In& in) = 0;
  /// Rising edge.
  virtual void posedge() = 0;
  /// Outputs after the last rising edge.
  virtual Out outputs() const = 0;
};

/// A C++ model (tick(In) per edge, outputs() from state) as a Block.
template <class In, class Out, class Model>
class ModelBlock : public Block<In, Out> {
 public:
  template <class P>
  explicit ModelBlock(const P& params) : m_(params) {}
  void drive(const In& in) override { in_ = in; }
  void posedge() override { m_.tick(in_); }
  Out outputs() const override { return m_.outputs(); }

 private:
  Model m_;
  In in_{};
};

/// RTL and model side by side; the outputs are the RTL's. The first mismatch
/// is kept with cycle, time, block and the RTL port name.
template <class In, class Out, class Model>
class Lockstep : public Block<In, Out> {
 public:
  using Diff = std::function<std::optional<Mismatch>(const Out& rtl, const Out& model)>;
  template <class P>
  Lockstep(std::unique_ptr<Block<In, Out>> rtl, const P& params, std::string name, Diff diff)
      : rtl_(std::move(rtl)), model_(params), name_(std::move(name)), diff_(std::move(diff)) {}
  void drive(const In& in) override {
    in_ = in;
    rtl_->drive(in);
  }
  void posedge() override {
    rtl_->posedge();
    model_.tick(in_);
    if (mismatch_) return;
    Out r = rtl_->outputs(), m = model_.outputs();
    if (r == m) return;
    mismatch_ = diff_(r, m);
    if (mismatch_) mismatch_->cycle = cycle_, mismatch_->time = time_, mismatch_->block = name_;
  }
  Out outputs() const override { return rtl_->outputs(); }
  void set_time(uint64_t cycle, core::Ps t) { cycle_ = cycle, time_ = t; }
  const std::optional<Mismatch>& mismatch() const { return mismatch_; }
  const Model& model() const { return model_; }

 private:
  std::unique_ptr<Block<In, Out>> rtl_;
  Model model_;
  In in_{};
  std::string name_;
  Diff diff_;
  uint64_t cycle_ = 0;
  core::Ps time_ = 0;
  std::optional<Mismatch> mismatch_;
};

/// Compiled RTL parameterizations (rtl/<b>/CMakeLists.txt): lookups by name.
template <class V>
const V* find_by_name(const std::vector<V>& all, const std::string& name) {
  for (auto& v : all)
    if (v.name == name) return &v;
  return nullptr;
}
template <class V>
std::vector<std::string> names_of(const std::vector<V>& all, bool include_mutants) {
  std::vector<std::string> out;
  for (auto& v : all)
    if (include_mutants || !v.mutant) out.push_back(v.name);
  return out;
}

/// Collects the first differing output, named as the RTL port.
struct Differ {
  std::optional<Mismatch> m;
  void cmp(const std::string& sig, uint64_t rtl, uint64_t model) {
    if (!m && rtl != model) {
      Mismatch x;
      x.signal = sig, x.rtl = rtl, x.model = model;
      m = x;
    }
  }
};

/// Bit-field access for every port representation Verilator uses
/// (CData/SData/IData/QData integers, VlWide word arrays).
inline uint64_t bit_mask(unsigned w) { return w >= 64 ? ~0ull : ((1ull << w) - 1); }
/// $clog2(v): the width of a port that indexes v entries (a parameter-derived port width).
inline unsigned clog2(unsigned v) {
  unsigned r = 0;
  while ((1u << r) < v) ++r;
  return r;
}

template <class T>
void put_bits(T& port, unsigned lsb, unsigned w, uint64_t v) {
  v &= bit_mask(w);
  if constexpr (std::is_integral_v<T>) {
    uint64_t m = bit_mask(w) << lsb;
    port = static_cast<T>((static_cast<uint64_t>(port) & ~m) | (v << lsb));
  } else {
    for (unsigned b = 0; b < w;) {
      unsigned bit = lsb + b, word = bit / 32, off = bit % 32;
      unsigned n = std::min(32 - off, w - b);
      uint32_t m = static_cast<uint32_t>(bit_mask(n) << off);
      port[word] = (port[word] & ~m) | (static_cast<uint32_t>((v >> b) << off) & m);
      b += n;
    }
  }
}

template <class T>
uint64_t get_bits(const T& port, unsigned lsb, unsigned w) {
  if constexpr (std::is_integral_v<T>) {
    return (static_cast<uint64_t>(port) >> lsb) & bit_mask(w);
  } else {
    unsigned word = lsb / 32, off = lsb % 32;
    uint64_t lo = port[word];
    uint64_t hi = (off + w > 32) ? static_cast<uint64_t>(port[word + 1]) : 0;
    return ((hi << 32 | lo) >> off) & bit_mask(w);
  }
}

}  // namespace tb
