// End-to-end scoreboard: proves that nothing is lost, duplicated, corrupted,
// or reordered where order is promised. Every transaction is registered when
// it enters the system (expect) and checked when it leaves (observe); what is
// still expected at the end is lost, unless it was legitimately discarded.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/stats.hpp"
#include "core/time.hpp"

namespace core {

class Scoreboard {
 public:
  struct Counts {
    uint64_t expected = 0;    ///< transactions registered
    uint64_t matched = 0;     ///< delivered intact, in order where promised
    uint64_t lost = 0;        ///< never delivered (known at finish)
    uint64_t duplicated = 0;  ///< delivered again after a match
    uint64_t corrupted = 0;   ///< delivered with a different digest
    uint64_t reordered = 0;   ///< delivered ahead of an earlier one of its flow
    uint64_t unexpected = 0;  ///< delivered but never registered
    uint64_t discarded = 0;   ///< removed by a documented discard path
    bool clean() const { return lost + duplicated + corrupted + reordered + unexpected == 0; }
  };

  /// `ordered`: per-flow order is promised (otherwise only exactly-once and integrity).
  explicit Scoreboard(std::string name, bool ordered = true) : name_(std::move(name)), ordered_(ordered) {}
  // Copies rebuild the flow index (it points into flows_); moves keep it (map nodes move with the map).
  Scoreboard(const Scoreboard& o)
      : name_(o.name_), ordered_(o.ordered_), finished_(o.finished_), flows_(o.flows_), c_(o.c_), lat_(o.lat_),
        errors_(o.errors_) {
    reindex();
  }
  Scoreboard& operator=(const Scoreboard& o) {
    if (this != &o) {
      Scoreboard t(o);
      *this = std::move(t);
    }
    return *this;
  }
  Scoreboard(Scoreboard&&) = default;
  Scoreboard& operator=(Scoreboard&&) = default;

  void expect(uint32_t flow, uint64_t id, uint64_t digest, Ps t);
  void observe(uint32_t flow, uint64_t id, uint64_t digest, Ps t);
  /// A registered transaction removed by a documented path (e.g. a flush); counted apart.
  void discard(uint32_t flow, uint64_t id);
  /// Everything still expected becomes lost. Idempotent.
  const Counts& finish();

  const Counts& counts() const { return c_; }
  uint64_t outstanding() const;
  /// observe time - expect time, in ns, of matched transactions.
  const Samples& latency_ns() const { return lat_; }
  /// The first errors, one line each (at most 20 kept).
  const std::vector<std::string>& errors() const { return errors_; }
  const std::string& name() const { return name_; }

 private:
  struct Item {
    uint64_t id;
    uint64_t digest;
    Ps t;
  };
  // Per flow, the hot part is small (a systems run has one flow per {src, dst, VC}, thousands of them,
  // and each transaction touches its flow twice): the ordered-mode FIFO is a ring of Items; what only
  // unordered mode or a reorder needs lives apart, allocated on first use.
  struct Cold {
    std::unordered_map<uint64_t, Item> pending;  // unordered mode
    std::unordered_map<uint64_t, bool> done;     // unordered mode: delivered ids
    std::unordered_set<uint64_t> early;          // ordered mode: ids delivered out of order
  };
  struct Flow {
    std::vector<Item> ring;  // ordered mode: FIFO of registered items, power-of-two capacity
    uint32_t head = 0, n = 0;
    bool any_matched = false;
    uint64_t last_matched = 0;
    std::unique_ptr<Cold> cold;

    Flow() = default;
    Flow(const Flow& o)
        : ring(o.ring), head(o.head), n(o.n), any_matched(o.any_matched), last_matched(o.last_matched),
          cold(o.cold ? std::make_unique<Cold>(*o.cold) : nullptr) {}
    Flow& operator=(const Flow& o) {
      if (this != &o) {
        Flow t(o);
        *this = std::move(t);
      }
      return *this;
    }
    Flow(Flow&&) = default;
    Flow& operator=(Flow&&) = default;

    Cold& c() {
      if (!cold) cold = std::make_unique<Cold>();
      return *cold;
    }
    size_t pending_size() const { return cold ? cold->pending.size() : 0; }
    Item& at(size_t k) { return ring[(head + k) & (ring.size() - 1)]; }
    const Item& at(size_t k) const { return ring[(head + k) & (ring.size() - 1)]; }
    void push(const Item& it) {
      if (n == ring.size()) {
        std::vector<Item> nb(ring.empty() ? 4 : ring.size() * 2);
        for (uint32_t k = 0; k < n; ++k) nb[k] = at(k);
        ring.swap(nb);
        head = 0;
      }
      at(n) = it;
      ++n;
    }
    void pop() {
      head = (head + 1) & static_cast<uint32_t>(ring.size() - 1);
      --n;
    }
    void erase(size_t k) {  // keeps the order of the others
      for (size_t j = k; j + 1 < n; ++j) at(j) = at(j + 1);
      --n;
    }
    int find(uint64_t id) const {
      for (uint32_t k = 0; k < n; ++k)
        if (at(k).id == id) return static_cast<int>(k);
      return -1;
    }
  };
  std::string name_;
  bool ordered_;
  bool finished_ = false;
  std::map<uint32_t, Flow> flows_;
  // flows_ nodes by flow number (flows below kFlowIndex; nodes are never erased,
  // so the pointers stay valid): O(1) lookups per transaction instead of the map walk.
  // 2^21: the dense flow numbers of the largest systems ((src * 1024 + dst) * 2 + VC) stay off the map.
  static constexpr uint32_t kFlowIndex = 1u << 21;
  std::vector<Flow*> by_flow_;
  Flow& flow_at(uint32_t flow);
  Flow* find_flow(uint32_t flow);
  void reindex() {
    by_flow_.clear();
    for (auto& [k, f] : flows_)
      if (k < kFlowIndex) {
        if (k >= by_flow_.size()) by_flow_.resize(k + 1, nullptr);
        by_flow_[k] = &f;
      }
  }
  Counts c_;
  Samples lat_;
  std::vector<std::string> errors_;
  void error(const std::string& line);
};

}  // namespace core
