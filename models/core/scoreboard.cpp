#include "core/scoreboard.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace core {

void Scoreboard::error(const std::string& line) {
  if (errors_.size() < 20) errors_.push_back(fmt::format("{}: {}", name_, line));
}

Scoreboard::Flow& Scoreboard::flow_at(uint32_t flow) {
  if (flow >= kFlowIndex) return flows_[flow];
  if (flow < by_flow_.size() && by_flow_[flow]) return *by_flow_[flow];
  Flow& f = flows_[flow];
  if (flow >= by_flow_.size()) by_flow_.resize(flow + 1, nullptr);
  by_flow_[flow] = &f;
  return f;
}

Scoreboard::Flow* Scoreboard::find_flow(uint32_t flow) {
  if (flow < by_flow_.size()) return by_flow_[flow];
  if (flow < kFlowIndex) return nullptr;
  auto it = flows_.find(flow);
  return it == flows_.end() ? nullptr : &it->second;
}

void Scoreboard::expect(uint32_t flow, uint64_t id, uint64_t digest, Ps t) {
  Flow& f = flow_at(flow);
  ++c_.expected;
  if (ordered_)
    f.push({id, digest, t});
  else
    f.c().pending[id] = {id, digest, t};
}

void Scoreboard::observe(uint32_t flow, uint64_t id, uint64_t digest, Ps t) {
  Flow* fp = find_flow(flow);
  if (!fp) {
    ++c_.unexpected;
    error(fmt::format("flow {} id {} at {} was never sent", flow, id, format_time(t)));
    return;
  }
  Flow& f = *fp;
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
    Cold& cd = f.c();
    auto it = cd.pending.find(id);
    if (it != cd.pending.end()) {
      check(it->second);
      cd.pending.erase(it);
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
  if (f.n && f.at(0).id == id) {
    check(f.at(0));
    f.pop();
    f.any_matched = true;
    f.last_matched = id;
    return;
  }
  const int k = f.find(id);
  if (k >= 0) {
    ++c_.reordered;
    error(fmt::format("flow {} id {} at {} delivered before id {}", flow, id, format_time(t), f.at(0).id));
    if (f.at(static_cast<size_t>(k)).digest != digest) ++c_.corrupted;
    f.c().early.insert(id);
    f.erase(static_cast<size_t>(k));
    return;
  }
  if ((f.any_matched && id <= f.last_matched) || (f.cold && f.cold->early.count(id))) {
    ++c_.duplicated;
    error(fmt::format("flow {} id {} at {} delivered twice", flow, id, format_time(t)));
    return;
  }
  ++c_.unexpected;
  error(fmt::format("flow {} id {} at {} was never sent", flow, id, format_time(t)));
}

void Scoreboard::discard(uint32_t flow, uint64_t id) {
  auto fit = flows_.find(flow);
  if (fit == flows_.end()) return;
  Flow& f = fit->second;
  if (ordered_) {
    const int k = f.find(id);
    if (k < 0) return;
    f.erase(static_cast<size_t>(k));
  } else {
    if (!f.cold || !f.cold->pending.erase(id)) return;
  }
  ++c_.discarded;
}

uint64_t Scoreboard::outstanding() const {
  uint64_t n = 0;
  for (auto& [k, f] : flows_) n += ordered_ ? f.n : f.pending_size();
  return n;
}

const Scoreboard::Counts& Scoreboard::finish() {
  if (finished_) return c_;
  finished_ = true;
  for (auto& [flow, f] : flows_) {
    size_t n = ordered_ ? f.n : f.pending_size();
    if (n == 0) continue;
    c_.lost += n;
    uint64_t first = ordered_ ? f.at(0).id : f.cold->pending.begin()->first;
    if (!ordered_)  // unordered_map order is unspecified: report the lowest id
      for (auto& [id, it] : f.cold->pending) first = std::min(first, id);
    error(fmt::format("flow {}: {} never delivered (first id {})", flow, n, first));
  }
  return c_;
}

}  // namespace core
