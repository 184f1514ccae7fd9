#include "rob/rob_env.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tb::rob_tb {

System::System(const EnvConfig& cfg, std::unique_ptr<RobBlock> blk, Waves* waves)
    : cfg_(cfg),
      blk_(std::move(blk)),
      waves_(waves),
      rng_(cfg.seed, "rob.traffic"),
      fin_rng_(cfg.seed, "rob.early_fin"),
      sb_("rob scoreboard", true),
      reset_left_(cfg.reset_cycles) {
  lock_ = dynamic_cast<LockstepRob*>(blk_.get());
  out_ = blk_->outputs();
  // Distinct source endpoint ids spread over the id space.
  const uint32_t ids = 1u << cfg_.params.src_bits;
  src_.resize(cfg_.sources);
  for (unsigned s = 0; s < cfg_.sources; ++s) {
    src_[s].id = static_cast<uint32_t>((static_cast<uint64_t>(s) * 2654435761u + 7) % ids);
    for (unsigned k = 0; k < s; ++k)
      if (src_[k].id == src_[s].id) src_[s].id = (src_[s].id + 1) % ids;
    src_[s].streams.resize(cfg_.streams_per_source);
    src_[s].next_cid = 0;
    for (unsigned k = 0; k < cfg_.streams_per_source; ++k) start_stream(s, k);
  }
}

void System::error(const std::string& e) {
  if (!env_err_) env_err_ = fmt::format("cycle {}: {}", cycle_, e);
}

void System::start_stream(unsigned s, unsigned k) {
  Source& so = src_[s];
  Stream& st = so.streams[k];
  if (st.active) by_conn_.erase({so.id, st.cid});
  st = Stream{};
  st.no = next_stream_++;
  st.cid = so.next_cid;
  so.next_cid = (so.next_cid + 1) & ((1u << cfg_.params.cid_bits) - 1);
  st.active = true;
  st.tokens.resize(cfg_.stream_len);
  st.sent_at.resize(cfg_.stream_len);
  by_conn_[{so.id, st.cid}] = {s, k};
}

void System::end_stream(unsigned s, unsigned k) {
  if (traffic_) {
    start_stream(s, k);
  } else {
    src_[s].streams[k].active = false;
    by_conn_.erase({src_[s].id, src_[s].streams[k].cid});
  }
}

uint32_t System::index_of(const Stream& st, uint32_t seq) const {
  const uint32_t mod = 1u << cfg_.params.seq_bits;
  return st.acked + ((seq - seq_of(st.acked)) & (mod - 1));
}

void System::send(Source& so, Stream& st, uint32_t index, bool again) {
  Packet p;
  p.src = so.id;
  p.cid = st.cid;
  if (index >= cfg_.stream_len) {  // the FIN
    p.fin = true;
    p.seq = 0;
    p.token = 0;
  } else {
    p.seq = seq_of(index);
    if (!again) {
      st.tokens[index] = next_token_++;
      st.sent_at[index] = cycle_;
      by_token_[st.tokens[index]] = {st.no, index};
      sb_.expect(static_cast<uint32_t>(st.no), index, st.tokens[index], now());
      ++st.outstanding;
      ++st_.sent;
    } else {
      ++st_.resent;
    }
    p.token = st.tokens[index];
  }
  auto delay = [&]() -> uint64_t {
    return cfg_.flits + cfg_.base_latency + rng_.uniform(0, cfg_.jitter) + (rng_.chance(cfg_.p_long) ? cfg_.skew : 0);
  };
  net_.push({cycle_ + delay(), net_order_++, p});
  if (!p.fin) ++st.in_network;
  if (!p.fin && cfg_.p_dup > 0 && rng_.chance(cfg_.p_dup)) {
    net_.push({cycle_ + delay(), net_order_++, p});
    ++st.in_network;
    ++st.dups;
    ++st_.dup_injected;
  }
  so.link_free = cycle_ + cfg_.flits;
}

bool System::idle() const {
  if (traffic_) return false;
  if (!net_.empty() || !port_.empty() || !acks_.empty() || out_.occupancy != 0) return false;
  for (auto& so : src_)
    for (auto& st : so.streams)
      if (!st.resend.empty() || st.outstanding != 0) return false;
  return sb_.outstanding() == 0;
}

void System::cycle() {
  const core::Ps t = now();
  rob::In in;
  if (reset_left_ > 0) {
    --reset_left_;
    in.rst_n = false;
  } else {
    in.rst_n = true;
    const rob::Out& o = out_;
    st_.occupancy.add(o.occupancy);
    st_.conns.add(o.conns);
    if (o.occupancy > cfg_.params.capacity) error(fmt::format("occupancy {} above capacity", o.occupancy));

    // Release -> scoreboard, and an ACK back to the source later.
    if (o.rel_valid) {
      auto it = by_token_.find(o.rel_token);
      if (it == by_token_.end()) {
        sb_.observe(0xffffffffu, o.rel_token, o.rel_token, t);  // never sent: counted unexpected
      } else {
        auto [no, index] = it->second;
        sb_.observe(static_cast<uint32_t>(no), index, o.rel_token, t);
        auto c = by_conn_.find({o.rel_src, o.rel_cid});
        if (c == by_conn_.end() || src_[c->second.first].streams[c->second.second].no != no) {
          error(fmt::format("release of src {} cid {} seq {} matches no open stream", o.rel_src, o.rel_cid, o.rel_seq));
        } else {
          Stream& st = src_[c->second.first].streams[c->second.second];
          st_.latency_cycles.add(static_cast<double>(cycle_ - st.sent_at[index]));
          acks_.push_back({cycle_ + cfg_.ack_latency, c->second});
          ++st.released;
          if (st.closed) {
            error(fmt::format("release of src {} cid {} seq {} after its connection closed", o.rel_src, o.rel_cid, o.rel_seq));
          } else if (st.closing && st.released == st.next) {
            // The last held REQ of a connection closed by an early FIN: the
            // same edge frees the connection entry (no arrival is taken in a
            // release-chain edge, so conns_o drops by exactly one).
            if (o.conns + 1 != conns_before_)
              error(fmt::format("src {} cid {}: last held REQ released after FIN_DONE but the connection did not close "
                                "(conns {} -> {})", o.rel_src, o.rel_cid, conns_before_, o.conns));
            else
              ++st_.delayed_closes;
            st.closed = true;
          }
        }
      }
    }
    // Answers to what the block took.
    if (o.resp_valid) {
      ++st_.resp[o.resp_kind & 7];
      auto c = by_conn_.find({o.resp_src, o.resp_cid});
      switch (o.resp_kind) {
        case rob::kDelivered: break;
        case rob::kHeld:
          // The last REQ of the transfer is held, so the connection stays open
          // until it is released, whatever is still in the network or waits
          // for a resend below it: the source may send its FIN now.
          if (c != by_conn_.end() && cfg_.early_fin > 0) {
            Stream& st = src_[c->second.first].streams[c->second.second];
            if (st.next == cfg_.stream_len && !st.fin_sent && st.dups == 0 &&
                index_of(st, o.resp_seq) == cfg_.stream_len - 1 && fin_rng_.chance(cfg_.early_fin))
              st.early_fin_due = true;
          }
          break;
        case rob::kDuplicate:
          if (cfg_.p_dup == 0) error(fmt::format("DUPLICATE for src {} cid {} seq {} without duplicates in the network",
                                                 o.resp_src, o.resp_cid, o.resp_seq));
          break;
        case rob::kNoConn:
        case rob::kOverflowFull:
        case rob::kOverflowCollision:
          if (c == by_conn_.end()) {
            error(fmt::format("reject for src {} cid {}: no such stream", o.resp_src, o.resp_cid));
          } else {
            Stream& st = src_[c->second.first].streams[c->second.second];
            st.resend.push_back({cycle_ + cfg_.retry, index_of(st, o.resp_seq)});
          }
          break;
        case rob::kFinDone:
          if (c != by_conn_.end()) {
            ++st_.streams_done;
            Stream& st = src_[c->second.first].streams[c->second.second];
            if (st.released < st.next) {
              // FIN while REQs are held: the block marks the connection
              // closing; the held REQs must still be released in order, then
              // the connection closes (checked at the last release).
              st.closing = true;
              ++st_.fin_while_held;
            } else if (st.acked < st.next) {
              st.closed = true;  // all released, ACKs still on the way: restart when they are in
            } else {
              end_stream(c->second.first, c->second.second);
            }
          }
          break;
        case rob::kFinUnknown:
          error(fmt::format("FIN_UNKNOWN for src {} cid {}", o.resp_src, o.resp_cid));
          break;
      }
    }
    // ACKs reach the sources.
    while (!acks_.empty() && acks_.front().first <= cycle_) {
      auto [s, k] = acks_.front().second;
      acks_.pop_front();
      Stream& st = src_[s].streams[k];
      ++st.acked;
      --st.outstanding;
      if (st.closed && st.acked == st.next) end_stream(s, k);
    }
    // Network -> target port (one packet per `flits` cycles) -> block.
    while (!net_.empty() && net_.top().arrive <= cycle_) {
      const InFlight f = net_.top();
      net_.pop();
      const uint64_t start = std::max(f.arrive, port_free_);
      port_free_ = start + cfg_.flits;
      port_.push_back({port_free_, f.p});
    }
    if (o.in_ready && !port_.empty() && port_.front().first <= cycle_) {
      const Packet& p = port_.front().second;
      in.in_valid = true;
      in.in_fin = p.fin;
      in.in_src = p.src;
      in.in_cid = p.cid;
      in.in_seq = p.seq;
      in.in_token = p.token;
      if (p.fin) {
        ++st_.fins;
      } else if (auto c = by_conn_.find({p.src, p.cid}); c != by_conn_.end()) {
        --src_[c->second.first].streams[c->second.second].in_network;
      }
      port_.pop_front();
    }
    // Sources: resends first, then new REQs (window-limited), then FINs.
    const double rate = cfg_.load / (static_cast<double>(cfg_.sources) * cfg_.flits);
    for (unsigned s = 0; s < src_.size(); ++s) {
      Source& so = src_[s];
      so.tokens = std::min(so.tokens + rate, 2.0);
      if (cycle_ < so.link_free || so.tokens < 1.0) continue;
      bool sent = false;
      for (unsigned j = 0; j < so.streams.size() && !sent; ++j) {
        Stream& st = so.streams[(so.rr + j) % so.streams.size()];
        if (!st.active) continue;
        if (!st.resend.empty() && st.resend.front().first <= cycle_) {
          uint32_t idx = st.resend.front().second;
          st.resend.pop_front();
          send(so, st, idx, true);
          sent = true;
        } else if (st.early_fin_due && !st.fin_sent) {
          send(so, st, cfg_.stream_len, false);  // early FIN (setting early_fin)
          st.fin_sent = true;
          ++st_.early_fins;
          sent = true;
        } else if (traffic_ && st.next < cfg_.stream_len && st.outstanding < cfg_.max_outstanding) {
          send(so, st, st.next++, false);
          sent = true;
        } else if (!st.fin_sent && st.next > 0 && st.acked == (traffic_ ? cfg_.stream_len : st.next) &&
                   st.in_network == 0) {
          // A transfer ends with a FIN once every REQ it sent is acknowledged
          // and no copy of one is left in the network (the protocol's
          // guarantee before FIN; with duplicating networks the source waits
          // out the stragglers). When traffic stops, a transfer ends where it got to.
          send(so, st, cfg_.stream_len, false);
          st.fin_sent = true;
          sent = true;
        }
      }
      if (sent) {
        so.tokens -= 1.0;
        so.rr = (so.rr + 1) % so.streams.size();
      }
    }
  }
  blk_->drive(in);
  conns_before_ = out_.conns;
  if (waves_) waves_->dump(t - cfg_.clock_ps / 2);
  if (lock_) lock_->set_time(cycle_, t);
  blk_->posedge();
  out_ = blk_->outputs();
  if (waves_) waves_->dump(t);
  ++cycle_;
}

}  // namespace tb::rob_tb
