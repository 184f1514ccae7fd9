// SourceEndpoint: docs/ordering.md, "Source".
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "uet/ordering.hpp"

namespace uet {

std::string SourceParams::validate() const {
  if (num_cids < 1 || num_cids > 256) return fmt::format("src.num_cids={} out of range (allowed 1..256)", num_cids);
  if (max_outstanding < 1 || max_outstanding > 32767)
    return fmt::format("src.max_outstanding={} out of range (allowed 1..32767)", max_outstanding);
  if (max_active < 1 || max_active > 64) return fmt::format("src.max_active={} out of range (allowed 1..64)", max_active);
  if (req_timeout < 1 || req_timeout > 1000000000)
    return fmt::format("src.req_timeout={} out of range (allowed 1..1000000000)", req_timeout);
  if (fin_timeout < 1 || fin_timeout > 1000000000)
    return fmt::format("src.fin_timeout={} out of range (allowed 1..1000000000)", fin_timeout);
  if (retry_delay < 1 || retry_delay > 1000000)
    return fmt::format("src.retry_delay={} out of range (allowed 1..1000000)", retry_delay);
  return "";
}

SourceEndpoint::SourceEndpoint(uint32_t id, const SourceParams& p, unsigned seq_bits, uint64_t lifetime, Fabric& net)
    : id_(id), p_(p), seq_mask_((1u << seq_bits) - 1), lifetime_(lifetime), net_(net), cid_used_(p.num_cids, false), cids_free_(p.num_cids) {
  const std::string e = p_.validate();
  if (!e.empty()) throw std::invalid_argument(e);
}

void SourceEndpoint::submit(const Transfer& t) { queue_.push_back(t); }

std::optional<SourceEndpoint::Phase> SourceEndpoint::phase_of(uint64_t transfer) const {
  auto it = active_.find(transfer);
  if (it == active_.end()) return std::nullopt;
  return it->second.phase;
}

uint32_t SourceEndpoint::cid_of(uint64_t transfer) const {
  auto it = active_.find(transfer);
  return it == active_.end() ? kNoCid : it->second.cid;
}

// Start the transfer at the head of the queue if it can start. A transfer that
// needs a connection (EOD, synchronized) waits for a CID; a fast ordered one
// without EOD runs in slow mode without a connection when the pool is empty.
bool SourceEndpoint::try_start(uint64_t now) {
  if (queue_.empty() || active_.size() >= p_.max_active) return false;
  const Transfer& t = queue_.front();
  const bool want_conn = t.kind == XferKind::Sync || t.eod || t.fast;
  const bool must_conn = t.kind == XferKind::Sync || t.eod;
  uint32_t cid = kNoCid;
  if (want_conn && cids_free_ > 0) {
    for (uint32_t c = 0; c < p_.num_cids; ++c)
      if (!cid_used_[c]) {
        cid = c;
        break;
      }
    cid_used_[cid] = true;
    --cids_free_;
  } else if (must_conn) {
    ++st_.cid_waits;
    return false;
  }
  Tx x;
  x.t = t;
  queue_.pop_front();
  x.cid = cid;
  const std::size_t n = x.t.ops.size();
  x.st.assign(n, ReqSt::Unsent);
  x.resend_at.assign(n, 0);
  x.sends.assign(n, 0);
  x.resend_timed_out.assign(n, false);
  ++st_.transfers_started;
  if (cid != kNoCid) {
    x.phase = Phase::Fast;
    ++st_.fast_started;
    by_cid_[cid] = x.t.id;
  } else {
    x.phase = Phase::Slow;
    ++st_.slow_started;
    if (t.fast) ++st_.slow_no_cid;
  }
  for (unsigned i = 0; i < n; ++i) by_token_[x.t.ops[i].token] = {x.t.id, i};
  auto& ref = active_.emplace(x.t.id, std::move(x)).first->second;
  event(ref, cid != kNoCid ? fmt::format("start fast cid={}", cid) : std::string("start slow"), now);
  return true;
}

Packet SourceEndpoint::make_req(Tx& x, unsigned i, bool con, uint64_t now) {
  const Op& op = x.t.ops[i];
  Packet p;
  p.type = PktType::Req;
  p.kind = x.t.kind;
  p.src = id_;
  p.dst = x.t.dst;
  p.cid = x.cid;
  p.seq = i & seq_mask_;
  p.token = op.token;
  p.op = op.kind;
  p.addr = op.addr;
  p.value = op.value;
  const bool last = i + 1 == x.t.ops.size();
  if (x.t.kind == XferKind::Sync && last) p.cnt = static_cast<uint32_t>(x.t.ops.size());
  if ((x.t.kind == XferKind::Ordered && x.t.eod) || (x.t.kind == XferKind::Sync && last)) p.flags |= kEod;
  if (con) p.flags |= kCon;
  p.attempt = x.sends[i] + 1;
  // SYN only on the first transmission of SEQ 0 of a connection (a resend must not free replay entries).
  if (i == 0 && x.cid != kNoCid && x.sends[0] == 0) p.flags |= kSyn;
  if (x.sends[i] == 0) {
    ++st_.reqs_new;
  } else {
    ++st_.reqs_resent;
  }
  // After a timeout an earlier copy may still surface (held at the target, or its ACK late):
  // nothing that needs an empty network may happen before this copy's lifetime is over.
  if (x.sends[i] > 0 && x.resend_timed_out[i]) {
    x.quiet_at = std::max(x.quiet_at, now + lifetime_);
    x.live[i] = now + lifetime_;
  }
  x.resend_timed_out[i] = false;
  if (x.st[i] == ReqSt::Nacked) --x.nacked;
  x.st[i] = ReqSt::Inflight;
  ++x.inflight;
  ++x.sends[i];
  x.next = std::max(x.next, i + 1);
  timers_.push({now + p_.req_timeout, x.t.id, i, x.sends[i]});
  if (x.phase == Phase::Slow) st_.max_inflight_slow = std::max<uint64_t>(st_.max_inflight_slow, x.inflight);
  if (x.phase == Phase::Fast && x.t.kind == XferKind::Ordered)
    st_.max_outstanding = std::max<uint64_t>(st_.max_outstanding, x.next - x.low);
  return p;
}

void SourceEndpoint::finish(Tx& x, uint64_t now) {
  if (x.cid != kNoCid) {
    cid_used_[x.cid] = false;
    ++cids_free_;
    by_cid_.erase(x.cid);
  }
  for (const Op& op : x.t.ops) by_token_.erase(op.token);
  x.phase = Phase::Done;
  ++st_.transfers_done;
  event(x, "done", now);
  if (on_complete) on_complete(x.t, now);
}

// Every REQ paired with its ACK: a transfer with a connection closes it (FIN), else it is done.
void SourceEndpoint::acked_all(Tx& x, uint64_t now) {
  if (x.cid != kNoCid) {
    x.phase = Phase::Fin;
    x.fin_out = false;
    event(x, "all acked", now);
  } else {
    finish(x, now);
  }
}

void SourceEndpoint::handle(const Packet& p, uint64_t now) {
  if (p.type == PktType::FinAck) {
    auto c = by_cid_.find(p.cid);
    if (c == by_cid_.end()) return;
    Tx& x = active_.at(c->second);
    if (x.phase != Phase::Fin) return;
    ++st_.fin_acks;
    event(x, "fin-ack", now);
    const uint64_t tid = x.t.id;
    finish(x, now);
    active_.erase(tid);
    return;
  }
  if (p.type != PktType::Ack && p.type != PktType::Nack) return;
  auto it = by_token_.find(p.token);
  if (it == by_token_.end()) {  // a late ACK of a finished transfer
    ++st_.acks_stale;
    return;
  }
  Tx& x = active_.at(it->second.first);
  const unsigned i = it->second.second;
  // The target holds a connection for this transfer: back to fast mode (REQs go through it).
  if (x.phase == Phase::FallbackWait && p.con()) {
    x.phase = Phase::Fast;
    event(x, "fast again", now);
  }
  if (p.type == PktType::Ack) {
    if (x.st[i] == ReqSt::Acked) {
      ++st_.acks_dup;
      return;
    }
    ++st_.acks;
    if (x.st[i] == ReqSt::Inflight) --x.inflight;
    if (x.st[i] == ReqSt::Nacked) --x.nacked;
    x.st[i] = ReqSt::Acked;
    ++x.acked;
    if (x.any_acked && i < x.max_acked) ++st_.acks_out_of_order;
    x.max_acked = x.any_acked ? std::max(x.max_acked, i) : i;
    x.any_acked = true;
    while (x.low < x.st.size() && x.st[x.low] == ReqSt::Acked) ++x.low;
    if (on_ack) on_ack(x.t, i, p.result, now);
    if (x.acked == x.st.size()) {
      if (x.cid == kNoCid) {
        const uint64_t tid = x.t.id;
        finish(x, now);
        active_.erase(tid);
      } else {
        acked_all(x, now);
      }
    }
    return;
  }
  // NACK: send the REQ again later; NO_CONN on an ordered transfer falls back to slow mode.
  switch (p.reason) {
    case NackReason::NoConn: ++st_.nacks_no_conn; break;
    case NackReason::ReplayFull: ++st_.nacks_replay_full; break;
    default: ++st_.nacks_overflow; break;
  }
  // Only the answer to the latest copy counts (a network duplicate's NACK may come late).
  if (x.st[i] != ReqSt::Inflight || p.attempt != x.sends[i]) return;
  --x.inflight;
  x.st[i] = ReqSt::Nacked;
  ++x.nacked;
  x.resend_at[i] = now + p_.retry_delay;
  if (p.reason == NackReason::NoConn && x.phase == Phase::Fast) {
    x.phase = Phase::FallbackWait;
    ++st_.fallbacks;
    event(x, "fallback", now);
  }
}

unsigned SourceEndpoint::window_base(Tx& x, uint64_t now) const {
  for (auto it = x.live.begin(); it != x.live.end();) it = it->second <= now ? x.live.erase(it) : std::next(it);
  return x.live.empty() ? x.low : std::min(x.low, x.live.begin()->first);
}

std::optional<Packet> SourceEndpoint::pick(Tx& x, uint64_t now) {
  const unsigned n = static_cast<unsigned>(x.st.size());
  switch (x.phase) {
    case Phase::Fin: {
      if (x.fin_out) return std::nullopt;
      if (now < x.quiet_at) {  // a resent copy may still be in the network
        ++st_.quiet_waits;
        return std::nullopt;
      }
      Packet f;
      f.type = PktType::Fin;
      f.kind = x.t.kind;
      f.src = id_;
      f.dst = x.t.dst;
      f.cid = x.cid;
      x.fin_out = true;
      x.fin_deadline = now + p_.fin_timeout;
      ++st_.fins_sent;
      event(x, "fin", now);
      return f;
    }
    case Phase::Fast: {
      if (x.nacked > 0)
        for (unsigned i = x.low; i < x.next; ++i)
          if (x.st[i] == ReqSt::Nacked && x.resend_at[i] <= now) return make_req(x, i, true, now);
      if (x.next < n && x.next - window_base(x, now) < p_.max_outstanding) return make_req(x, x.next, true, now);
      return std::nullopt;
    }
    case Phase::FallbackWait: {
      // Connectionless delivery is safe only once no fast REQ of this transfer can still
      // open a target connection: nothing in flight. Until then (and always for EOD and
      // synchronized transfers) the oldest unacknowledged REQ is retried one at a time with
      // CON: it opens a connection when one frees and releases REQs the target may hold.
      if (x.inflight == 0 && now >= x.quiet_at && !needs_conn(x)) {
        x.phase = Phase::Slow;
        event(x, "slow", now);
        return pick(x, now);
      }
      const unsigned j = x.low;
      if (j < n && (x.st[j] == ReqSt::Unsent || x.st[j] == ReqSt::Nacked) && x.resend_at[j] <= now &&
          (x.inflight == 0 || x.st[j] == ReqSt::Nacked))
        return make_req(x, j, true, now);
      return std::nullopt;
    }
    case Phase::Slow: {
      // One at a time: the next REQ only after the ACK of the previous one.
      const unsigned j = x.low;
      if (x.inflight == 0 && j < n && x.resend_at[j] <= now) return make_req(x, j, false, now);
      return std::nullopt;
    }
    case Phase::Done: return std::nullopt;
  }
  return std::nullopt;
}

void SourceEndpoint::cycle(uint64_t now) {
  Packet p;
  while (net_.poll(id_, now, p)) handle(p, now);
  // Loss repair: timeouts (never fire without faults).
  while (!timers_.empty() && timers_.top().at <= now) {
    const Timer t = timers_.top();
    timers_.pop();
    auto it = active_.find(t.tx);
    if (it == active_.end()) continue;
    Tx& x = it->second;
    if (x.st[t.index] != ReqSt::Inflight || x.sends[t.index] != t.sendno) continue;
    x.st[t.index] = ReqSt::Nacked;
    --x.inflight;
    ++x.nacked;
    x.resend_at[t.index] = now;
    x.resend_timed_out[t.index] = true;
    ++st_.req_timeouts;
    event(x, fmt::format("timeout {}", t.index), now);
  }
  for (auto& [tid, x] : active_)
    if (x.phase == Phase::Fin && x.fin_out && x.fin_deadline <= now) {
      x.fin_out = false;
      ++st_.fin_timeouts;
      event(x, "fin timeout", now);
    }
  while (try_start(now)) {
  }
  // One packet per cycle when the link is free, round robin over the active transfers.
  if (active_.empty() || !net_.can_send(id_, now)) return;
  auto it = active_.upper_bound(rr_);
  for (std::size_t k = 0; k < active_.size(); ++k, ++it) {
    if (it == active_.end()) it = active_.begin();
    if (auto pkt = pick(it->second, now)) {
      rr_ = it->first;
      net_.send(*pkt, now);
      return;
    }
  }
}

}  // namespace uet
