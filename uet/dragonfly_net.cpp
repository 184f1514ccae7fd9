// uet::DragonflyNet: docs/ordering.md "Fabrics".
#include "uet/dragonfly_net.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <set>
#include <stdexcept>

namespace uet {

std::string DragonflyNet::validate(const NetParams& np, const sw::DragonflyParams& dp,
                                   const std::vector<unsigned>& placement) {
  std::string e = np.validate();
  if (!e.empty()) return e;
  e = dp.validate();
  if (!e.empty()) return "dragonfly: " + e;
  if (np.p_dup != 0.0) return fmt::format("net.p_dup={} not supported on the Dragonfly (allowed 0)", np.p_dup);
  const unsigned longest = std::max(np.flits, np.ctrl_flits);
  if (longest > dp.max_flits)
    return fmt::format("net.flits={} longer than the Dragonfly's max_flits={} (allowed 1..{})", longest, dp.max_flits,
                       dp.max_flits);
  if (placement.empty()) return "placement: no endpoints";
  std::set<unsigned> seen;
  for (std::size_t i = 0; i < placement.size(); ++i) {
    if (placement[i] >= dp.endpoints())
      return fmt::format("placement[{}]={} out of range (allowed 0..{})", i, placement[i], dp.endpoints() - 1);
    if (!seen.insert(placement[i]).second)
      return fmt::format("placement[{}]={} used twice (one uet endpoint per Dragonfly endpoint)", i, placement[i]);
  }
  return "";
}

DragonflyNet::DragonflyNet(const NetParams& np, const sw::DragonflyParams& dp, std::vector<unsigned> placement,
                           uint64_t seed)
    : np_(np), place_(std::move(placement)), rng_(seed, "uet.dragonfly_net") {
  const std::string e = validate(np_, dp, place_);
  if (!e.empty()) throw std::invalid_argument(e);
  df_ = std::make_unique<sw::Dragonfly>(dp);
  egress_free_.assign(place_.size(), 0);
  ingress_.resize(place_.size());
  df_->on_deliver = [this](uint64_t at, unsigned, unsigned, uint64_t tag) {
    auto it = flight_.find(tag);
    if (it == flight_.end()) return;  // background traffic of the Dragonfly's generators
    const Flight f = it->second;
    flight_.erase(it);
    auto& q = ingress_.at(f.p.dst);
    // The ejection channel serializes: arrivals come in order; keep the FIFO sorted anyway.
    auto pos = q.end();
    while (pos != q.begin() && std::prev(pos)->ready > at) --pos;
    q.insert(pos, Arrival{at, f.sent, f.p});
  };
}

DragonflyNet::~DragonflyNet() = default;

bool DragonflyNet::can_send(uint32_t ep, uint64_t now) const {
  return egress_free_.at(ep) <= now && df_->queued(place_[ep]) == 0;
}

void DragonflyNet::send(const Packet& p, uint64_t now) {
  const unsigned ti = static_cast<unsigned>(p.type);
  const unsigned f = np_.flits_of(p);
  egress_free_.at(p.src) = std::max(now, egress_free_[p.src]) + f;
  ++st_.sent[ti];
  if (observer) observer(now, p, Event::Sent);
  if (rng_.chance(np_.drop[ti])) {  // drawn for every packet: a run is reproducible from its seed
    ++st_.dropped[ti];
    if (observer) observer(now, p, Event::Dropped);
    return;
  }
  const uint64_t tag = next_tag_++;
  flight_.emplace(tag, Flight{now, p});
  df_->offer(place_.at(p.src), place_.at(p.dst), f, tag);
}

void DragonflyNet::advance(uint64_t now) {
  while (df_->cycle() <= now) df_->tick();
}

bool DragonflyNet::poll(uint32_t ep, uint64_t now, Packet& out) {
  auto& q = ingress_.at(ep);
  while (!q.empty() && q.front().ready <= now && now - q.front().sent > np_.lifetime) {
    ++st_.expired;  // older than the packet lifetime: lost
    if (observer) observer(now, q.front().p, Event::Dropped);
    q.pop_front();
  }
  if (q.empty() || q.front().ready > now) return false;
  out = q.front().p;
  q.pop_front();
  ++st_.delivered[static_cast<unsigned>(out.type)];
  if (observer) observer(now, out, Event::Delivered);
  return true;
}

std::size_t DragonflyNet::in_flight() const {
  std::size_t n = flight_.size();
  for (const auto& q : ingress_) n += q.size();
  return n;
}

}  // namespace uet
