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

  // Inline: the ordered mode's common case (a known flow; delivered at the head of its FIFO, intact)
  // is a few loads and stores; the rest is out of line (expect_unordered, observe_slow).
  void expect(uint32_t flow, uint64_t id, uint64_t digest, Ps t) {
    const uint32_t s = slot_at(flow);
    ++c_.expected;
    ++hot_[s].count;
    if (!ordered_) {
      expect_unordered(s, id, digest, t);
      return;
    }
    const uint32_t i = new_item(id, digest, t);
    Hot& h = hot_[s];
    if (h.tail == kNil)
      h.head = i;
    else
      items_[h.tail].next = i;
    h.tail = i;
  }
  void observe(uint32_t flow, uint64_t id, uint64_t digest, Ps t) {
    const uint32_t s = ordered_ ? find_slot(flow) : kNil;
    if (s != kNil) {
      Hot& h = hot_[s];
      if (h.head != kNil) {
        const Item& it = items_[h.head];
        if (it.id == id && it.digest == digest) {
          ++c_.matched;
          lat_.add(to_ns(t - it.t));
          unlink(s, kNil, h.head);
          h.matched = true;
          h.last_matched = id;
          return;
        }
      }
    }
    observe_slow(flow, id, digest, t);
  }
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
  // Layout for systems with thousands of flows, each transaction touching its flow twice about a
  // microsecond apart (docs/system.md "Figures"): a flow is a slot number; its hot state (the
  // ordered-mode FIFO's ends, the last id matched, the count) is 24 bytes in one dense vector (one
  // cache line per transaction end, not three); its registered
  // items are a linked FIFO in one item pool whose freed entries are reused last-in first-out, so an
  // expect writes where an observe just read. What only unordered mode or a reorder needs is apart.
  static constexpr uint32_t kNil = ~0u;
  struct Item {
    uint64_t id;
    uint64_t digest;
    Ps t;
    uint32_t next;  // the flow's next item (ordered mode), or the next free entry
  };
  struct Hot {
    uint32_t head = kNil, tail = kNil;  // ordered mode: the FIFO of registered items
    uint64_t last_matched = 0;          // valid once the flow matched
    uint32_t count = 0;                 // items registered and not yet delivered or discarded
    bool matched = false;               // the flow matched an item (last_matched valid)
  };
  struct Cold {
    std::unordered_map<uint64_t, Item> pending;  // unordered mode
    std::unordered_map<uint64_t, bool> done;     // unordered mode: delivered ids
    std::unordered_set<uint64_t> early;          // ordered mode: ids delivered out of order
  };
  std::string name_;
  bool ordered_;
  bool finished_ = false;
  // Flow number -> slot + 1 (0: none) for flows below kFlowIndex (2^21 covers the dense flow numbers
  // of the largest systems, (src * 1024 + dst) * 2 + VC); the map for the others.
  static constexpr uint32_t kFlowIndex = 1u << 21;
  std::vector<uint32_t> by_flow_;
  std::map<uint32_t, uint32_t> big_;
  std::vector<Hot> hot_;             // [slot]
  std::vector<uint32_t> flow_of_;    // [slot]: its flow number
  std::vector<std::unique_ptr<Cold>> cold_;  // [slot]
  std::vector<Item> items_;
  uint32_t free_ = kNil;
  uint32_t slot_at(uint32_t flow) {  // creates the flow
    const uint32_t s = find_slot(flow);
    return s != kNil ? s : new_slot(flow);
  }
  uint32_t find_slot(uint32_t flow) const {  // kNil: never seen
    if (flow < kFlowIndex) return flow < by_flow_.size() && by_flow_[flow] ? by_flow_[flow] - 1 : kNil;
    return find_big(flow);
  }
  uint32_t find_big(uint32_t flow) const;
  uint32_t new_slot(uint32_t flow);
  void expect_unordered(uint32_t s, uint64_t id, uint64_t digest, Ps t);
  void observe_slow(uint32_t flow, uint64_t id, uint64_t digest, Ps t);
  Cold& cold(uint32_t s) {
    if (!cold_[s]) cold_[s] = std::make_unique<Cold>();
    return *cold_[s];
  }
  uint32_t new_item(uint64_t id, uint64_t digest, Ps t) {
    uint32_t i = free_;
    if (i != kNil) {
      free_ = items_[i].next;
    } else {
      i = static_cast<uint32_t>(items_.size());
      items_.emplace_back();
    }
    items_[i] = {id, digest, t, kNil};
    return i;
  }
  void free_item(uint32_t i) {
    items_[i].next = free_;
    free_ = i;
  }
  void unlink(uint32_t s, uint32_t prev, uint32_t i) {  // removes item i (after prev, kNil: the head)
    Hot& h = hot_[s];
    const uint32_t nx = items_[i].next;
    if (prev == kNil)
      h.head = nx;
    else
      items_[prev].next = nx;
    if (h.tail == i) h.tail = prev;
    --h.count;
    free_item(i);
  }
  std::vector<uint32_t> slots_by_flow() const;
  Counts c_;
  Samples lat_;
  std::vector<std::string> errors_;
  void error(const std::string& line);
};

}  // namespace core
