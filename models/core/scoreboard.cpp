#include "core/scoreboard.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace core {

void Scoreboard::error(const std::string& line) {
  if (errors_.size() < 20) errors_.push_back(fmt::format("{}: {}", name_, line));
}

uint32_t Scoreboard::find_big(uint32_t flow) const {
  auto it = big_.find(flow);
  return it == big_.end() ? kNil : it->second;
}

uint32_t Scoreboard::new_slot(uint32_t flow) {
  const uint32_t s = static_cast<uint32_t>(hot_.size());
  hot_.emplace_back();
  flow_of_.push_back(flow);
  cold_.emplace_back();
  if (flow < kFlowIndex) {
    if (flow >= by_flow_.size()) by_flow_.resize(std::min<size_t>(std::max<size_t>(flow + 1, by_flow_.size() * 2), kFlowIndex), 0);
    by_flow_[flow] = s + 1;
  } else {
    big_[flow] = s;
  }
  return s;
}

std::vector<uint32_t> Scoreboard::slots_by_flow() const {
  std::vector<uint32_t> v(hot_.size());
  for (uint32_t s = 0; s < v.size(); ++s) v[s] = s;
  std::sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return flow_of_[a] < flow_of_[b]; });
  return v;
}

void Scoreboard::expect_unordered(uint32_t s, uint64_t id, uint64_t digest, Ps t) {
  cold(s).pending[id] = {id, digest, t, kNil};
}

// observe() past its inline common case (which changed nothing before coming here).
void Scoreboard::observe_slow(uint32_t flow, uint64_t id, uint64_t digest, Ps t) {
  const uint32_t s = find_slot(flow);
  if (s == kNil) {
    ++c_.unexpected;
    error(fmt::format("flow {} id {} at {} was never sent", flow, id, format_time(t)));
    return;
  }
  auto check = [&](const Item& it) {
    if (it.digest != digest) {
      ++c_.corrupted;
      error(fmt::format("flow {} id {} at {} corrupted: digest {:#018x}, expected {:#018x}", flow, id,
                        format_time(t), digest, it.digest));
    } else {
      ++c_.matched;
      lat_.add(to_ns(t - it.t));
    }
  };
  if (!ordered_) {
    Cold& cd = cold(s);
    auto it = cd.pending.find(id);
    if (it != cd.pending.end()) {
      check(it->second);
      cd.pending.erase(it);
      --hot_[s].count;
      cd.done[id] = true;
    } else if (cd.done.count(id)) {
      ++c_.duplicated;
      error(fmt::format("flow {} id {} at {} delivered twice", flow, id, format_time(t)));
    } else {
      ++c_.unexpected;
      error(fmt::format("flow {} id {} at {} was never sent", flow, id, format_time(t)));
    }
    return;
  }
  Hot& h = hot_[s];
  if (h.head != kNil && items_[h.head].id == id) {
    check(items_[h.head]);
    unlink(s, kNil, h.head);
    h.matched = true;
    h.last_matched = id;
    return;
  }
  uint32_t prev = kNil;
  for (uint32_t i = h.head; i != kNil; prev = i, i = items_[i].next) {
    if (items_[i].id != id) continue;
    ++c_.reordered;
    error(fmt::format("flow {} id {} at {} delivered before id {}", flow, id, format_time(t), items_[h.head].id));
    if (items_[i].digest != digest) ++c_.corrupted;
    cold(s).early.insert(id);
    unlink(s, prev, i);
    return;
  }
  if ((h.matched && id <= h.last_matched) || (cold_[s] && cold_[s]->early.count(id))) {
    ++c_.duplicated;
    error(fmt::format("flow {} id {} at {} delivered twice", flow, id, format_time(t)));
    return;
  }
  ++c_.unexpected;
  error(fmt::format("flow {} id {} at {} was never sent", flow, id, format_time(t)));
}

void Scoreboard::discard(uint32_t flow, uint64_t id) {
  const uint32_t s = find_slot(flow);
  if (s == kNil) return;
  if (ordered_) {
    uint32_t prev = kNil, i = hot_[s].head;
    while (i != kNil && items_[i].id != id) prev = i, i = items_[i].next;
    if (i == kNil) return;
    unlink(s, prev, i);
  } else {
    if (!cold_[s] || !cold_[s]->pending.erase(id)) return;
    --hot_[s].count;
  }
  ++c_.discarded;
}

uint64_t Scoreboard::outstanding() const {
  uint64_t n = 0;
  for (const Hot& h : hot_) n += h.count;
  return n;
}

const Scoreboard::Counts& Scoreboard::finish() {
  if (finished_) return c_;
  finished_ = true;
  for (uint32_t s : slots_by_flow()) {
    const size_t n = hot_[s].count;
    if (n == 0) continue;
    c_.lost += n;
    uint64_t first = 0;
    if (ordered_) {
      first = items_[hot_[s].head].id;
    } else {  // unordered_map order is unspecified: report the lowest id
      first = cold_[s]->pending.begin()->first;
      for (auto& [id, it] : cold_[s]->pending) first = std::min(first, id);
    }
    error(fmt::format("flow {}: {} never delivered (first id {})", flow_of_[s], n, first));
  }
  return c_;
}

}  // namespace core
