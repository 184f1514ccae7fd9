#include "link/link.hpp"

#include "link/faults.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace lnk {

const char* to_string(Cable c) {
  switch (c) {
    case Cable::smf: return "smf";
    case Cable::hcf: return "hcf";
    case Cable::twinax: return "twinax";
  }
  return "?";
}

bool parse_cable(const std::string& s, Cable& out) {
  if (s == "smf") return out = Cable::smf, true;
  if (s == "hcf") return out = Cable::hcf, true;
  if (s == "twinax") return out = Cable::twinax, true;
  return false;
}

std::string Params::validate() const {
  if (!(rate_gbps >= 1.0 && rate_gbps <= 3200.0))
    return fmt::format("link rate_gbps={} out of range (allowed 1..3200)", rate_gbps);
  if (!(length_m >= 0.0 && length_m <= 10000.0))
    return fmt::format("link length_m={} out of range (allowed 0..10000)", length_m);
  if (!(fec_latency_ns >= 0.0 && fec_latency_ns <= 100000.0))
    return fmt::format("link fec_latency_ns={} out of range (allowed 0..100000)", fec_latency_ns);
  if (ctl_bytes == 0) return "link ctl_bytes=0 out of range (allowed 1..)";
  return "";
}

Ps Params::serialization(uint64_t bytes) const {
  // bytes * 8 bits / (rate Gb/s) = ns; * 1000 = ps
  double ps = static_cast<double>(bytes) * 8000.0 / rate_gbps;
  return static_cast<Ps>(std::ceil(ps - 1e-9));
}

Ps Channel::send(Ps now, const Item& item) {
  const Frame* f = std::get_if<Frame>(&item);
  uint64_t wire_bytes;
  if (f) {
    wire_bytes = static_cast<uint64_t>(f->len) + p_.overhead_bytes;
    ++frames_;
  } else {
    wire_bytes = p_.ctl_bytes;
    ++ctls_;
  }
  bytes_ += wire_bytes;
  Ps start = std::max(now, wire_free_);
  Ps dur = p_.serialization(wire_bytes);
  wire_free_ = start + dur;
  busy_ += dur;
  Ps arrive = wire_free_ + p_.flight();
  // With faults the item was sent either way: the wire time above is charged
  // even when it never arrives.
  FaultInjector::Decision d;
  if (faults_) d = f ? faults_->on_frame(start, arrive, *f) : faults_->on_ctl(start, arrive, std::get<Ctl>(item));
  if (d.verdict == FaultInjector::Verdict::drop) return wire_free_;
  InFlight in{arrive + d.extra_delay, item};
  if (d.verdict == FaultInjector::Verdict::corrupt) {
    if (auto* g = std::get_if<Frame>(&in.item)) g->ok = false;
    if (auto* c = std::get_if<Ctl>(&in.item)) c->ok = false;
  }
  // Sorted insertion, searching from the back (without delays this always
  // appends): an item goes after every item arriving at the same time or
  // earlier, so ties leave in send order. Done even without an injector, since
  // delayed items of a detached one may still be in flight.
  auto pos = q_.end();
  while (pos != q_.begin() && std::prev(pos)->arrive > in.arrive) --pos;
  q_.insert(pos, std::move(in));
  return wire_free_;
}

bool Channel::receive(Ps now, Item& out) {
  if (q_.empty() || q_.front().arrive > now) return false;
  out = std::move(q_.front().item);
  q_.pop_front();
  return true;
}

}  // namespace lnk
