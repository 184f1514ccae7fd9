#include "uet/network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace uet {

namespace {
constexpr const char* kTypeNames[kNumPktTypes] = {"REQ", "ACK", "NACK", "FIN", "FIN-ACK"};
constexpr const char* kReasonNames[4] = {"NONE", "NO_CONN", "OVERFLOW", "REPLAY_FULL"};
}  // namespace

const char* pkt_type_name(PktType t) {
  const auto i = static_cast<unsigned>(t);
  return i < kNumPktTypes ? kTypeNames[i] : "?";
}
const char* nack_reason_name(NackReason r) {
  const auto i = static_cast<unsigned>(r);
  return i < 4 ? kReasonNames[i] : "?";
}

std::string to_string(const Packet& p) {
  std::string f;
  if (p.syn()) f += "SYN,";
  if (p.eod()) f += "EOD,";
  if (p.con()) f += "CON,";
  if (!f.empty()) f.pop_back();
  std::string cid = p.cid == kNoCid ? std::string("-") : std::to_string(p.cid);
  std::string s = fmt::format("{} {}->{} {} cid={} seq={} [{}] token={}", pkt_type_name(p.type), p.src, p.dst,
                              p.kind == XferKind::Sync ? "sync" : "ordered", cid, p.seq, f, p.token);
  if (p.cnt) s += fmt::format(" cnt={}", p.cnt);
  if (p.type == PktType::Ack) s += fmt::format(" result={}", p.result);
  if (p.type == PktType::Nack) s += fmt::format(" reason={}", nack_reason_name(p.reason));
  return s;
}

std::string NetParams::validate() const {
  auto prob = [](double v) { return v >= 0.0 && v <= 1.0; };
  if (flits < 1 || flits > 1024) return fmt::format("net.flits={} out of range (allowed 1..1024)", flits);
  if (ctrl_flits < 1 || ctrl_flits > 1024)
    return fmt::format("net.ctrl_flits={} out of range (allowed 1..1024)", ctrl_flits);
  if (base_latency > 1000000)
    return fmt::format("net.base_latency={} out of range (allowed 0..1000000)", base_latency);
  if (jitter > 1000000) return fmt::format("net.jitter={} out of range (allowed 0..1000000)", jitter);
  if (skew > 1000000) return fmt::format("net.skew={} out of range (allowed 0..1000000)", skew);
  if (!prob(p_long)) return fmt::format("net.p_long={} out of range (allowed 0..1)", p_long);
  for (unsigned t = 0; t < kNumPktTypes; ++t)
    if (!prob(drop[t]))
      return fmt::format("net.drop[{}]={} out of range (allowed 0..1)", kTypeNames[t], drop[t]);
  if (!prob(p_dup)) return fmt::format("net.p_dup={} out of range (allowed 0..1)", p_dup);
  const uint64_t lo = max_latency() + 2 * uint64_t{std::max(flits, ctrl_flits)};
  if (lifetime < lo || lifetime > 1000000000)
    return fmt::format("net.lifetime={} out of range (allowed {}..1000000000: max latency + 2 packet times)", lifetime, lo);
  return "";
}

Network::Network(const NetParams& p, unsigned endpoints, uint64_t seed)
    : p_(p), rng_(seed, "uet.network"), egress_free_(endpoints, 0), ingress_free_(endpoints, 0), ingress_(endpoints) {
  const std::string e = p_.validate();
  if (!e.empty()) throw std::invalid_argument(e);
}

void Network::send(const Packet& p, uint64_t now) {
  const unsigned ti = static_cast<unsigned>(p.type);
  const uint64_t f = p_.flits_of(p);
  const uint64_t start = std::max(now, egress_free_.at(p.src));
  egress_free_[p.src] = start + f;
  ++st_.sent[ti];
  if (observer) observer(now, p, Event::Sent);
  // Random draws happen for every packet, hooks or not, so a hook never shifts the random stream.
  const bool drop_rand = rng_.chance(p_.drop[ti]);
  uint64_t lat = p_.base_latency + rng_.uniform(0, p_.jitter) + (rng_.chance(p_.p_long) ? p_.skew : 0);
  const bool dup_rand = p.type == PktType::Req && rng_.chance(p_.p_dup);
  if (drop_rand || (drop_hook && drop_hook(p))) {
    ++st_.dropped[ti];
    if (observer) observer(now, p, Event::Dropped);
    return;
  }
  if (delay_hook) lat += delay_hook(p);
  const uint64_t exit = start + f + lat;
  net_.push({exit, order_++, now, p});
  if (p.type == PktType::Req && (dup_rand || (dup_hook && dup_hook(p)))) {
    ++st_.duplicated;
    if (observer) observer(now, p, Event::Duplicated);
    net_.push({exit + f, order_++, now, p});
  }
}

void Network::advance(uint64_t now) {
  while (!net_.empty() && net_.top().exit <= now) {
    const InFlight f = net_.top();
    net_.pop();
    const uint32_t d = f.p.dst;
    const uint64_t start = std::max(f.exit, ingress_free_.at(d));
    ingress_free_[d] = start + p_.flits_of(f.p);
    ingress_[d].push_back({ingress_free_[d], f.sent, f.p});
  }
}

bool Network::poll(uint32_t ep, uint64_t now, Packet& out) {
  auto& q = ingress_.at(ep);
  while (!q.empty() && q.front().ready <= now && now - q.front().sent > p_.lifetime) {
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

std::size_t Network::in_flight() const {
  std::size_t n = net_.size();
  for (const auto& q : ingress_) n += q.size();
  return n;
}

}  // namespace uet
