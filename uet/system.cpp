// OrderingSystem: sources and targets over a Network, a workload and the end-to-end checker.
#include <fmt/format.h>

#include <stdexcept>

#include "uet/ordering.hpp"

namespace uet {

std::string WorkloadParams::validate() const {
  auto prob = [](double v) { return v >= 0.0 && v <= 1.0; };
  if (transfers_per_source > 100000)
    return fmt::format("work.transfers_per_source={} out of range (allowed 0..100000)", transfers_per_source);
  if (len_min < 1 || len_min > 100000) return fmt::format("work.len_min={} out of range (allowed 1..100000)", len_min);
  if (len_max < len_min || len_max > 100000)
    return fmt::format("work.len_max={} out of range (allowed len_min..100000)", len_max);
  if (!prob(p_slow)) return fmt::format("work.p_slow={} out of range (allowed 0..1)", p_slow);
  if (!prob(p_sync)) return fmt::format("work.p_sync={} out of range (allowed 0..1)", p_sync);
  if (!prob(p_eod)) return fmt::format("work.p_eod={} out of range (allowed 0..1)", p_eod);
  return "";
}

std::string SystemParams::validate() const {
  std::string e = net.validate();
  if (e.empty()) e = src.validate();
  if (e.empty()) e = tgt.validate();
  if (e.empty()) e = work.validate();
  if (!e.empty()) return e;
  if (targets < 1 || targets > 64) return fmt::format("targets={} out of range (allowed 1..64)", targets);
  const unsigned ids = 1u << tgt.rob.src_bits;
  if (sources < 1 || sources + targets > ids)
    return fmt::format("sources={} out of range (allowed 1..{}: sources + targets <= 2^src_bits)", sources,
                       ids - targets);
  if (src.num_cids > (1u << tgt.rob.cid_bits))
    return fmt::format("src.num_cids={} out of range (allowed 1..{}: 2^cid_bits)", src.num_cids,
                       1u << tgt.rob.cid_bits);
  if (src.max_outstanding > tgt.window)
    return fmt::format("src.max_outstanding={} out of range (allowed 1..tgt.window={})", src.max_outstanding,
                       tgt.window);
  // Fixed packet lifetime: a REQ/FIN is only sent again once the original and its answer have
  // left the network (or were lost), so a timed-out packet never surfaces later.
  const uint64_t rtt = 2 * net.lifetime + tgt.mem_latency;
  if (src.req_timeout <= rtt)
    return fmt::format("src.req_timeout={} out of range (allowed above the round trip bound {})", src.req_timeout, rtt);
  if (src.fin_timeout <= rtt)
    return fmt::format("src.fin_timeout={} out of range (allowed above the round trip bound {})", src.fin_timeout, rtt);
  if (max_cycles < 1 || max_cycles > 1000000000)
    return fmt::format("max_cycles={} out of range (allowed 1..1000000000)", max_cycles);
  if (work.p_sync > 0 && work.len_max < 2)
    return fmt::format("work.len_max={} out of range (allowed 2..100000 with synchronized transfers)", work.len_max);
  return "";
}

std::string Report::summary() const {
  std::string s = fmt::format(
      "{} cycles, transfers {}/{} complete, executions {}, slow duplicates {}; source: reqs {} resent {} timeouts {} "
      "fallbacks {} nacks no_conn {} overflow {}; target: delivered {} held {} released {} dup {} replays {} direct {}; "
      "errors {}",
      cycles, completed, transfers, executions, slow_duplicate_deliveries, src.reqs_new, src.reqs_resent,
      src.req_timeouts, src.fallbacks, src.nacks_no_conn, src.nacks_overflow, tgt.delivered, tgt.held, tgt.released,
      tgt.duplicates, tgt.replays, tgt.direct, errors.size());
  for (std::size_t i = 0; i < errors.size() && i < 10; ++i) s += "\n  " + errors[i];
  return s;
}

OrderingSystem::OrderingSystem(const SystemParams& p, RobFactory make_rob, FabricFactory make_fabric)
    : p_(p), rng_(p.seed, "uet.workload") {
  const std::string e = p_.validate();
  if (!e.empty()) throw std::invalid_argument(e);
  if (make_fabric)
    net_ = make_fabric(p_);
  else
    net_ = std::make_unique<Network>(p_.net, p_.sources + p_.targets, p_.seed);
  if (!net_) throw std::invalid_argument("OrderingSystem: the fabric factory returned no fabric");
  for (unsigned s = 0; s < p_.sources; ++s) {
    src_.push_back(
        std::make_unique<SourceEndpoint>(source_id(s), p_.src, p_.tgt.rob.seq_bits, net_->lifetime(), *net_));
    src_.back()->on_ack = [this](const Transfer& t, unsigned i, uint64_t result, uint64_t now) {
      acks_.push_back({now, t.id, i});
      Xf& x = xf_.at(t.id);
      if (x.exec_count[i] == 0)
        error(fmt::format("transfer {} REQ {}: ACK before the operation executed", t.id, i));
      else if (result != x.first_result[i])
        error(fmt::format("transfer {} REQ {}: ACK result {} but the operation returned {}", t.id, i, result,
                          x.first_result[i]));
    };
    src_.back()->on_complete = [this](const Transfer& t, uint64_t now) {
      Xf& x = xf_.at(t.id);
      x.completed = true;
      x.done_at = now;
      const unsigned n = static_cast<unsigned>(t.ops.size());
      if (t.kind == XferKind::Ordered && x.next != n)
        error(fmt::format("transfer {} complete with {} of {} REQs delivered", t.id, x.next, n));
      if (t.kind == XferKind::Sync && (x.data_done != n - 1 || x.exec_count[n - 1] != 1))
        error(fmt::format("sync transfer {} complete with {} of {} data REQs and the sync REQ executed {} times", t.id,
                          x.data_done, n - 1, x.exec_count[n - 1]));
    };
  }
  for (unsigned t = 0; t < p_.targets; ++t) {
    std::unique_ptr<ReorderBuffer> rob = make_rob ? make_rob(t, p_.tgt.rob) : make_rob_model(p_.tgt.rob);
    tgt_.push_back(std::make_unique<TargetEndpoint>(target_id(t), p_.tgt, std::move(rob), *net_));
    tgt_.back()->on_execute = [this, t](const Packet& pk, uint64_t result, uint64_t now, bool via) {
      on_exec(t, pk, result, now, via);
    };
  }
}

Network& OrderingSystem::network() {
  auto* n = dynamic_cast<Network*>(net_.get());
  if (!n) throw std::logic_error("OrderingSystem::network(): the fabric is not a uet::Network");
  return *n;
}

void OrderingSystem::error(const std::string& e) { errors_.push_back(fmt::format("cycle {}: {}", now_, e)); }

uint64_t OrderingSystem::add_transfer(unsigned s, unsigned t, XferKind kind, bool fast, bool eod, unsigned len) {
  if (s >= p_.sources || t >= p_.targets || len < 1 || (kind == XferKind::Sync && len < 2))
    throw std::invalid_argument("add_transfer: bad source, target or length");
  Transfer x;
  x.id = next_id_++;
  x.kind = kind;
  x.fast = kind == XferKind::Sync ? true : fast;
  x.eod = kind == XferKind::Ordered && eod;
  x.dst = target_id(t);
  for (unsigned i = 0; i < len; ++i) {
    Op op;
    op.token = next_token_++;
    const bool sync_op = kind == XferKind::Sync && i + 1 == len;
    if (sync_op) {  // the synchronization operation: increment a flag word of the transfer
      op.kind = OpKind::FetchAdd;
      op.addr = (uint64_t{2} << 48) | x.id;
      op.value = 1;
    } else if (x.eod) {  // a shared counter of the source at the target (non-idempotent)
      op.kind = OpKind::FetchAdd;
      op.addr = (uint64_t{1} << 48) | s;
      op.value = i + 1;
    } else {
      op.kind = OpKind::Write;
      op.addr = (x.id << 20) | i;
      op.value = op.token;
    }
    by_token_[op.token] = {x.id, i};
    x.ops.push_back(op);
  }
  Xf f;
  f.t = x;
  f.exec_count.assign(len, 0);
  f.first_result.assign(len, 0);
  f.first_exec.assign(len, 0);
  xf_.emplace(x.id, f);
  src_.at(s)->submit(x);
  return x.id;
}

void OrderingSystem::generate() {
  const WorkloadParams& w = p_.work;
  for (unsigned s = 0; s < p_.sources; ++s)
    for (unsigned k = 0; k < w.transfers_per_source; ++k) {
      const unsigned t = w.one_to_one ? s % p_.targets : static_cast<unsigned>(rng_.uniform(0, p_.targets - 1));
      const bool sync = rng_.chance(w.p_sync);
      const unsigned lo = sync ? std::max(2u, w.len_min) : w.len_min;
      const unsigned len = static_cast<unsigned>(rng_.uniform(lo, std::max(lo, w.len_max)));
      if (sync) {
        add_transfer(s, t, XferKind::Sync, true, true, len);
      } else {
        const bool slow = rng_.chance(w.p_slow);
        const bool eod = !slow && rng_.chance(w.p_eod);
        add_transfer(s, t, XferKind::Ordered, !slow, eod, len);
      }
    }
}

void OrderingSystem::on_exec(unsigned target, const Packet& p, uint64_t result, uint64_t now, bool via_conn) {
  auto tk = by_token_.find(p.token);
  if (tk == by_token_.end()) {
    error(fmt::format("target {} executed a REQ never sent: {}", target, to_string(p)));
    return;
  }
  const auto [tid, i] = tk->second;
  Xf& x = xf_.at(tid);
  execs_.push_back({now, tid, target, i, result, via_conn});
  if (target_id(target) != x.t.dst) error(fmt::format("transfer {} REQ {} executed at the wrong target", tid, i));
  if (x.exec_count[i]++ == 0) {
    x.first_result[i] = result;
    x.first_exec[i] = now;
  }
  const unsigned n = static_cast<unsigned>(x.t.ops.size());
  if (x.t.kind == XferKind::Ordered) {
    if (i == x.next) {
      ++x.next;
    } else if (i + 1 == x.next && !x.t.eod && !p.con() && !via_conn) {
      ++slow_dups_;  // a slow-mode resend delivered again: allowed without EOD (the paper's Fig. 4)
    } else if (i < x.next) {
      error(fmt::format("transfer {} REQ {} ({}{}) executed {} times", tid, i, x.t.eod ? "EOD" : "non-EOD",
                        p.con() ? ", fast" : "", x.exec_count[i]));
    } else {
      error(fmt::format("transfer {} REQ {} delivered out of order (expected REQ {})", tid, i, x.next));
    }
  } else {
    if (x.exec_count[i] > 1) {
      error(fmt::format("sync transfer {} REQ {} executed {} times", tid, i, x.exec_count[i]));
    } else if (i + 1 == n) {
      // the sync REQ: every data REQ executed and acknowledged by the memory before
      unsigned acked = 0;
      for (unsigned d = 0; d + 1 < n; ++d)
        if (x.exec_count[d] > 0 && x.first_exec[d] + p_.tgt.mem_latency <= now) ++acked;
      if (x.data_done != n - 1 || acked != n - 1)
        error(fmt::format("sync transfer {}: sync REQ executed after {} of {} data REQs ({} acknowledged)", tid,
                          x.data_done, n - 1, acked));
    } else {
      ++x.data_done;
    }
  }
}

void OrderingSystem::step() {
  net_->advance(now_);
  for (auto& s : src_) s->cycle(now_);
  for (auto& t : tgt_) t->cycle(now_);
  ++now_;
}

bool OrderingSystem::quiescent() const {
  for (const auto& s : src_)
    if (!s->idle()) return false;
  for (const auto& t : tgt_)
    if (!t->idle()) return false;
  return net_->in_flight() == 0;
}

Report OrderingSystem::run() {
  while (now_ < p_.max_cycles && !quiescent()) step();
  return check();
}

Report OrderingSystem::check() const {
  Report r;
  r.cycles = now_;
  r.errors = errors_;
  r.transfers = xf_.size();
  for (const auto& [id, x] : xf_) r.completed += x.completed ? 1 : 0;
  r.complete = r.completed == r.transfers;
  r.executions = execs_.size();
  r.slow_duplicate_deliveries = slow_dups_;
  r.net = net_->stats();
  for (const auto& s : src_) {
    const SourceStats& a = s->stats();
    SourceStats& b = r.src;
    b.transfers_started += a.transfers_started;
    b.transfers_done += a.transfers_done;
    b.fast_started += a.fast_started;
    b.slow_started += a.slow_started;
    b.slow_no_cid += a.slow_no_cid;
    b.fallbacks += a.fallbacks;
    b.reqs_new += a.reqs_new;
    b.reqs_resent += a.reqs_resent;
    b.fins_sent += a.fins_sent;
    b.acks += a.acks;
    b.acks_dup += a.acks_dup;
    b.acks_out_of_order += a.acks_out_of_order;
    b.acks_stale += a.acks_stale;
    b.nacks_no_conn += a.nacks_no_conn;
    b.nacks_overflow += a.nacks_overflow;
    b.nacks_replay_full += a.nacks_replay_full;
    b.req_timeouts += a.req_timeouts;
    b.fin_timeouts += a.fin_timeouts;
    b.fin_acks += a.fin_acks;
    b.max_inflight_slow = std::max(b.max_inflight_slow, a.max_inflight_slow);
    b.max_outstanding = std::max(b.max_outstanding, a.max_outstanding);
    b.cid_waits += a.cid_waits;
    b.quiet_waits += a.quiet_waits;
  }
  for (const auto& t : tgt_) {
    const TargetStats& a = t->stats();
    TargetStats& b = r.tgt;
    b.reqs += a.reqs;
    b.fins += a.fins;
    b.executed += a.executed;
    b.direct += a.direct;
    b.delivered += a.delivered;
    b.held += a.held;
    b.released += a.released;
    b.duplicates += a.duplicates;
    b.dup_dropped += a.dup_dropped;
    b.dup_reacked += a.dup_reacked;
    b.replays += a.replays;
    b.replay_miss += a.replay_miss;
    b.replay_full += a.replay_full;
    b.replay_freed_fin += a.replay_freed_fin;
    b.replay_freed_syn += a.replay_freed_syn;
    b.replay_freed_window += a.replay_freed_window;
    b.replay_max = std::max(b.replay_max, a.replay_max);
    b.nack_no_conn += a.nack_no_conn;
    b.nack_overflow += a.nack_overflow;
    b.fin_done += a.fin_done;
    b.fin_unknown += a.fin_unknown;
    b.sync_held += a.sync_held;
    b.sync_released += a.sync_released;
    b.sync_counted += a.sync_counted;
    b.rob_wait_cycles += a.rob_wait_cycles;
    b.fin_with_held += a.fin_with_held;
  }
  if (r.tgt.fin_with_held)
    r.errors.push_back(fmt::format("{} FINs closed a connection that still held REQs", r.tgt.fin_with_held));
  if (r.tgt.replay_miss) r.errors.push_back(fmt::format("{} duplicate EOD REQs found no replay entry", r.tgt.replay_miss));
  // EOD operations: exactly once, for every transfer (complete or not).
  for (const auto& [id, x] : xf_)
    for (unsigned i = 0; i < x.exec_count.size(); ++i) {
      const bool eod = x.t.eod || (x.t.kind == XferKind::Sync && i + 1 == x.exec_count.size());
      if (eod && x.exec_count[i] > 1)
        r.errors.push_back(fmt::format("transfer {} EOD REQ {} executed {} times", id, i, x.exec_count[i]));
    }
  if (r.complete) {  // state freed at both ends
    for (unsigned s = 0; s < src_.size(); ++s)
      if (src_[s]->cids_in_use() != 0 || src_[s]->active() != 0)
        r.errors.push_back(fmt::format("source {}: {} CIDs in use, {} transfers active at the end", s,
                                       src_[s]->cids_in_use(), src_[s]->active()));
    for (unsigned t = 0; t < tgt_.size(); ++t) {
      const TargetEndpoint& e = *tgt_[t];
      const rob::Out o = e.rob_outputs();
      if (e.conns_open() || o.conns || o.occupancy || e.sync_conns_open() || e.replay_used())
        r.errors.push_back(fmt::format(
            "target {}: state left at the end: {} connections ({} in the ROB), {} held, {} sync connections, {} "
            "replay entries",
            t, e.conns_open(), o.conns, o.occupancy, e.sync_conns_open(), e.replay_used()));
    }
    if (net_->in_flight()) r.errors.push_back(fmt::format("{} packets still in the network", net_->in_flight()));
  }
  return r;
}

}  // namespace uet
