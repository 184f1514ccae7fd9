// TargetEndpoint: docs/ordering.md, "Target".
#include <fmt/format.h>

#include <stdexcept>

#include "uet/ordering.hpp"

namespace uet {

std::string TargetParams::validate() const {
  const std::string r = rob.validate();
  if (!r.empty()) return "tgt.rob." + r;
  const unsigned half = 1u << (rob.seq_bits - 1);
  if (window < 1 || window >= half)
    return fmt::format("tgt.window={} out of range (allowed 1..{}: below 2^(seq_bits-1))", window, half - 1);
  if (sync_conns < 1 || sync_conns > 1024)
    return fmt::format("tgt.sync_conns={} out of range (allowed 1..1024)", sync_conns);
  if (replay_entries > 1000000)
    return fmt::format("tgt.replay_entries={} out of range (allowed 0 (auto) or 1..1000000)", replay_entries);
  if (mem_latency > 1000000) return fmt::format("tgt.mem_latency={} out of range (allowed 0..1000000)", mem_latency);
  return "";
}

TargetEndpoint::TargetEndpoint(uint32_t id, const TargetParams& p, std::unique_ptr<ReorderBuffer> rob, Fabric& net)
    : id_(id), p_(p), rob_(std::move(rob)), net_(net) {
  const std::string e = p_.validate();
  if (!e.empty()) throw std::invalid_argument(e);
  if (!rob_) rob_ = make_rob_model(p_.rob);
  seq_mask_ = (1u << rob_->params().seq_bits) - 1;
  half_ = 1u << (rob_->params().seq_bits - 1);
}

bool TargetEndpoint::idle() const {
  return in_q_.empty() && out_q_.empty() && mem_q_.empty() && held_.empty() && !fed_ && rob_->outputs().in_ready;
}

std::size_t TargetEndpoint::replay_used(uint32_t src, uint32_t cid) const {
  std::size_t n = 0;
  for (auto it = replay_.lower_bound(key2(src, cid)); it != replay_.end() && (it->first >> 16) == (key2(src, cid) >> 16);
       ++it)
    ++n;
  return n;
}

uint64_t TargetEndpoint::memory(uint64_t addr) const {
  auto it = mem_.find(addr);
  return it == mem_.end() ? 0 : it->second;
}

void TargetEndpoint::reply(const Packet& req, PktType type, bool con, uint64_t result, NackReason r) {
  Packet a;
  a.type = type;
  a.kind = req.kind;
  a.src = id_;
  a.dst = req.src;
  a.cid = req.cid;
  a.seq = req.seq;
  a.token = req.token;
  a.attempt = req.attempt;
  a.result = result;
  a.reason = r;
  a.flags = static_cast<uint8_t>((con ? kCon : 0) | (req.eod() ? kEod : 0));
  if (type == PktType::Nack) {
    if (r == NackReason::NoConn) ++st_.nack_no_conn;
    else ++st_.nack_overflow;
  }
  out_q_.push_back(a);
}

void TargetEndpoint::free_replay(uint32_t src, uint32_t cid, uint64_t& counter, bool only_done) {
  const uint64_t k = key2(src, cid);
  for (auto it = replay_.lower_bound(k); it != replay_.end() && (it->first >> 16) == (k >> 16);) {
    if (only_done && !it->second.done) {
      ++it;
      continue;
    }
    it = replay_.erase(it);
    ++counter;
  }
}

// The arrival of SEQ s proves that the source had every REQ up to s - window
// acknowledged when it sent s (its outstanding rule), so none of them can be
// sent again: their replay entries are freed.
void TargetEndpoint::window_free(uint32_t src, uint32_t cid, uint32_t seq) {
  const uint64_t k = key2(src, cid);
  for (auto it = replay_.lower_bound(k); it != replay_.end() && (it->first >> 16) == (k >> 16);) {
    const uint32_t e = static_cast<uint32_t>(it->first & 0xffffu);
    const uint32_t d = (seq - e) & seq_mask_;
    if (it->second.done && d >= p_.window && d < half_) {
      it = replay_.erase(it);
      ++st_.replay_freed_window;
    } else {
      ++it;
    }
  }
}

void TargetEndpoint::execute(const Packet& p, bool via_conn, uint64_t now, bool sync_data) {
  uint64_t result = 0;
  if (p.op == OpKind::Write) {
    mem_[p.addr] = p.value;
    result = p.value;
  } else {
    result = mem_[p.addr];
    mem_[p.addr] += p.value;
  }
  ++st_.executed;
  if (p.eod() && p.cid != kNoCid) {
    Replay& r = replay_[key3(p.src, p.cid, p.seq)];  // reserved on acceptance
    r.done = true;
    r.result = result;
    st_.replay_max = std::max<uint64_t>(st_.replay_max, replay_.size());
  }
  if (on_execute) on_execute(p, result, now, via_conn);
  Packet ack;
  ack.type = PktType::Ack;
  ack.kind = p.kind;
  ack.src = id_;
  ack.dst = p.src;
  ack.cid = p.cid;
  ack.seq = p.seq;
  ack.token = p.token;
  ack.attempt = p.attempt;
  ack.result = result;
  ack.flags = static_cast<uint8_t>((via_conn ? kCon : 0) | (p.eod() ? kEod : 0));
  mem_q_.push_back({now + p_.mem_latency, ack, sync_data});
}

// ---------------------------------------------------------------- synchronized transfers

void TargetEndpoint::sync_check(SyncConn& c, uint64_t now) {
  if (c.sync_seen && !c.sync_executed && c.counted + 1 >= c.cnt) {
    c.sync_executed = true;
    ++st_.sync_released;
    execute(c.sync_pkt, true, now, false);
  }
}

void TargetEndpoint::sync_req(const Packet& p, uint64_t now) {
  const uint64_t k = key2(p.src, p.cid);
  auto it = sync_.find(k);
  if (it == sync_.end()) {
    if (sync_.size() >= p_.sync_conns) {  // the first REQ to arrive opens the connection, if one is free
      reply(p, PktType::Nack, false, 0, NackReason::NoConn);
      return;
    }
    it = sync_.emplace(k, SyncConn{}).first;
  }
  SyncConn& c = it->second;
  if (p.cnt > 0) {  // the synchronization REQ (EOD)
    if (c.sync_seen) {
      ++st_.duplicates;
      auto r = replay_.find(key3(p.src, p.cid, p.seq));
      if (c.sync_executed && r != replay_.end() && r->second.done) {
        ++st_.replays;
        reply(p, PktType::Ack, true, r->second.result, NackReason::None);
      } else if (c.sync_executed) {
        ++st_.replay_miss;
      } else {
        ++st_.dup_dropped;  // still held: its ACK follows its release
      }
      return;
    }
    if (replay_.size() >= p_.replay_capacity()) {
      ++st_.replay_full;
      reply(p, PktType::Nack, true, 0, NackReason::ReplayFull);
      return;
    }
    replay_[key3(p.src, p.cid, p.seq)] = Replay{};
    c.sync_seen = true;
    c.cnt = p.cnt;
    c.sync_pkt = p;
    if (c.counted + 1 < c.cnt) ++st_.sync_held;
    sync_check(c, now);
    return;
  }
  // A data REQ: delivered at once, in any order; counted when the memory acknowledges it.
  if (c.seen.count(p.seq)) {
    ++st_.duplicates;
    if (c.done.count(p.seq)) {
      ++st_.dup_reacked;
      reply(p, PktType::Ack, true, p.value, NackReason::None);
    } else {
      ++st_.dup_dropped;
    }
    return;
  }
  c.seen.insert(p.seq);
  execute(p, true, now, true);
}

// ---------------------------------------------------------------- ROB answers

void TargetEndpoint::handle_resp(const rob::Out& o, uint64_t /*now*/) {
  if (!fed_) throw std::logic_error("uet target: ROB answer without a packet");
  const Packet p = *fed_;
  fed_.reset();
  if (o.resp_src != p.src || o.resp_cid != p.cid || o.resp_seq != (p.seq & seq_mask_))
    throw std::logic_error("uet target: ROB answered another packet");
  const uint64_t k = key2(p.src, p.cid);
  auto unreserve = [&] {
    if (fed_reserved_) replay_.erase(key3(p.src, p.cid, p.seq));
    fed_reserved_ = false;
  };
  switch (o.resp_kind) {
    case rob::kDelivered:
      ++st_.delivered;
      conns_[k];
      delivered_ = p;
      if (p.syn()) free_replay(p.src, p.cid, st_.replay_freed_syn, true);
      break;
    case rob::kHeld:
      ++st_.held;
      ++conns_[k].held;
      held_[key3(p.src, p.cid, p.seq)] = p;
      break;
    case rob::kDuplicate: {
      ++st_.duplicates;
      unreserve();
      const Conn& c = conns_[k];
      const uint32_t d = (p.seq - c.exp) & seq_mask_;
      if (d != 0 && d < half_) {  // the original is held: its ACK follows its release
        ++st_.dup_dropped;
        break;
      }
      if (p.eod()) {  // executed already: replay the ACK, do not execute again
        auto r = replay_.find(key3(p.src, p.cid, p.seq));
        if (r != replay_.end() && r->second.done) {
          ++st_.replays;
          reply(p, PktType::Ack, true, r->second.result, NackReason::None);
        } else {
          ++st_.replay_miss;
        }
      } else {  // idempotent: acknowledge again without executing
        ++st_.dup_reacked;
        reply(p, PktType::Ack, true, p.value, NackReason::None);
      }
      break;
    }
    case rob::kNoConn:
      unreserve();
      reply(p, PktType::Nack, false, 0, NackReason::NoConn);
      break;
    case rob::kOverflowFull:
    case rob::kOverflowCollision:
      unreserve();
      conns_[k];  // a connection opened by a rejected REQ stays open
      reply(p, PktType::Nack, true, 0, NackReason::Overflow);
      break;
    case rob::kFinDone:
    case rob::kFinUnknown: {
      if (o.resp_kind == rob::kFinDone) {
        ++st_.fin_done;
        auto c = conns_.find(k);
        if (c != conns_.end() && c->second.held != 0) ++st_.fin_with_held;
        conns_.erase(k);
      } else {
        ++st_.fin_unknown;
      }
      free_replay(p.src, p.cid, st_.replay_freed_fin, false);
      reply(p, PktType::FinAck, false, 0, NackReason::None);
      break;
    }
    default: throw std::logic_error("uet target: unknown ROB answer");
  }
  fed_reserved_ = false;
}

void TargetEndpoint::handle_rel(const rob::Out& o, uint64_t now) {
  const uint64_t k = key2(o.rel_src, o.rel_cid);
  Packet p;
  if (delivered_ && delivered_->src == o.rel_src && delivered_->cid == o.rel_cid &&
      (delivered_->seq & seq_mask_) == o.rel_seq) {
    p = *delivered_;
  } else {
    auto h = held_.find(key3(o.rel_src, o.rel_cid, o.rel_seq));
    if (h == held_.end()) throw std::logic_error("uet target: ROB released a packet it never held");
    p = h->second;
    held_.erase(h);
    --conns_[k].held;
    ++st_.released;
  }
  delivered_.reset();
  conns_[k].exp = (o.rel_seq + 1) & seq_mask_;
  execute(p, true, now, false);
}

// ---------------------------------------------------------------- arrivals

// Returns false when the packet must wait (the ROB is busy with a release chain).
bool TargetEndpoint::process(const Packet& p, uint64_t now, rob::In& in, bool ready) {
  if (p.type == PktType::Fin) {
    ++st_.fins;
    if (p.kind == XferKind::Sync) {
      auto it = sync_.find(key2(p.src, p.cid));
      if (it != sync_.end()) {
        ++st_.fin_done;
        sync_.erase(it);
      } else {
        ++st_.fin_unknown;
      }
      free_replay(p.src, p.cid, st_.replay_freed_fin, false);
      reply(p, PktType::FinAck, false, 0, NackReason::None);
      return true;
    }
    if (!ready) return false;
    in.in_valid = true;
    in.in_fin = true;
    in.in_src = p.src;
    in.in_cid = p.cid;
    in.in_seq = 0;
    in.in_token = 0;
    Packet f = p;
    f.seq = 0;
    fed_ = f;
    fed_reserved_ = false;
    return true;
  }
  if (p.type != PktType::Req) return true;  // not for a target
  ++st_.reqs;
  if (p.kind == XferKind::Sync) {
    sync_req(p, now);
    return true;
  }
  const uint64_t k = key2(p.src, p.cid);
  auto conn = p.cid == kNoCid ? conns_.end() : conns_.find(k);
  if (p.cid == kNoCid || (!p.con() && conn == conns_.end())) {
    // Slow mode without a connection: straight to the target memory.
    ++st_.direct;
    execute(p, false, now, false);
    return true;
  }
  if (!ready) return false;
  bool reserved = false;
  if (p.eod()) {
    window_free(p.src, p.cid, p.seq);
    const bool behind = conn != conns_.end() && ((p.seq - conn->second.exp) & seq_mask_) >= half_;
    const uint64_t k3 = key3(p.src, p.cid, p.seq);
    if (!behind && !replay_.count(k3)) {
      if (replay_.size() >= p_.replay_capacity()) {
        ++st_.replay_full;
        reply(p, PktType::Nack, conn != conns_.end(), 0, NackReason::ReplayFull);
        return true;
      }
      replay_[k3] = Replay{};
      reserved = true;
      st_.replay_max = std::max<uint64_t>(st_.replay_max, replay_.size());
    }
  }
  in.in_valid = true;
  in.in_fin = false;
  in.in_src = p.src;
  in.in_cid = p.cid;
  in.in_seq = p.seq & seq_mask_;
  in.in_token = p.token;
  fed_ = p;
  fed_reserved_ = reserved;
  return true;
}

void TargetEndpoint::cycle(uint64_t now) {
  const rob::Out o = rob_->outputs();
  if (o.resp_valid) handle_resp(o, now);
  if (o.rel_valid) handle_rel(o, now);
  while (!mem_q_.empty() && mem_q_.front().at <= now) {
    MemOp m = mem_q_.front();
    mem_q_.pop_front();
    if (m.sync_data) {
      auto it = sync_.find(key2(m.ack.dst, m.ack.cid));
      if (it != sync_.end()) {
        ++it->second.counted;
        ++st_.sync_counted;
        it->second.done.insert(m.ack.seq);
        sync_check(it->second, now);
      }
    }
    out_q_.push_back(m.ack);
  }
  Packet p;
  while (net_.poll(id_, now, p)) in_q_.push_back(p);
  rob::In in;
  in.rst_n = true;
  if (!in_q_.empty()) {
    if (process(in_q_.front(), now, in, o.in_ready)) {
      in_q_.pop_front();
    } else {
      ++st_.rob_wait_cycles;
    }
  }
  rob_->tick(in);
  if (!out_q_.empty() && net_.can_send(id_, now)) {
    net_.send(out_q_.front(), now);
    out_q_.pop_front();
  }
}

}  // namespace uet
