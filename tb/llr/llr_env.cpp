#include "llr/llr_env.hpp"

#include "switch/llr_link.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace tb::llr_tb {

const char* tx_state_name(uint32_t s) {
  static const char* n[] = {"INIT", "ADVANCE", "REPLAY", "FLUSH"};
  return s < 4 ? n[s] : "?";
}
const char* rx_state_name(uint32_t s) {
  static const char* n[] = {"SEND_ACKS", "SEND_NACK", "NACK_SENT", "?"};
  return s < 4 ? n[s] : "?";
}

namespace {
}  // namespace

System::System(const EnvConfig& cfg, std::unique_ptr<LlrBlock> a, std::unique_ptr<LlrBlock> b, Waves* waves)
    : cfg_(cfg),
      waves_(waves),
      a_('A', std::move(a), cfg.link),
      b_('B', std::move(b), cfg.link),
      rng_(cfg.seed, "llr.traffic"),
      reset_left_(cfg.reset_cycles) {
  for (Side* s : {&a_, &b_}) {
    s->lock = dynamic_cast<LockstepLlr*>(s->blk.get());
    if (cfg_.faults.any()) {
      s->faults = std::make_unique<lnk::FaultInjector>(cfg_.faults, cfg_.seed, std::string("llr.faults.") + s->name);
      s->chan.attach(s->faults.get());
    }
    std::string dir = s->name == 'A' ? "A->B" : "B->A";
    s->strict = core::Scoreboard(dir + " eligible", true);
    s->best = core::Scoreboard(dir + " ineligible", false);
    s->out = s->blk->outputs();
  }
}

uint64_t System::digest(char side, uint64_t id, uint32_t len, uint32_t cls) const {
  return core::mix64(cfg_.seed ^ core::mix64((id << 8) ^ (static_cast<uint64_t>(len) << 40) ^ (cls << 4) ^ side));
}

lnk::Frame System::new_frame(Side& s, core::Ps t) {
  lnk::Frame f;
  // Token = frame id, unique per side: the high bit tells the sender.
  f.id = (s.name == 'A' ? 0 : (1ull << 63)) | s.next_id++;
  f.len = static_cast<uint32_t>(rng_.uniform(cfg_.len_min, cfg_.len_max));
  f.cls = static_cast<uint32_t>(rng_.uniform(0, cfg_.classes - 1));
  f.eligible = rng_.chance(cfg_.eligible_ratio);
  f.digest = digest(s.name, f.id, f.len, f.cls);
  f.t_created = t;
  return f;
}

std::optional<Mismatch> System::mismatch() const {
  if (a_.lock && a_.lock->mismatch()) return a_.lock->mismatch();
  if (b_.lock && b_.lock->mismatch()) return b_.lock->mismatch();
  return std::nullopt;
}

bool System::idle() const {
  if (traffic_) return false;
  for (const Side* s : {&a_, &b_}) {
    if (s->head || !s->expect.empty() || s->chan.in_flight() || !s->arrivals.empty()) return false;
    if (s->out.out_frames != 0 || s->out.w_valid) return false;
    if (s->best.outstanding() != 0 && s->out.tx_state != llr::kFlush) {
      // ineligible frames may be lost: settled once nothing is in flight
      if (s->chan.in_flight()) return false;
    }
  }
  return true;
}

double System::goodput_gbps(const Side& s) const {
  const core::Ps dt = win_end_ - win_start_;
  if (win_start_ < 0 || dt <= 0) return 0;
  return static_cast<double>(win_bytes_[s.name == 'A' ? 0 : 1]) * 8.0 / core::to_ns(dt);
}

void System::deliver(Side& sender, const llr::Out& o, core::Ps t) {
  const uint64_t token = o.d_token;
  const uint64_t dig = digest(sender.name, token, o.d_len, o.d_class);
  auto it = sender.by_token.find(token);
  const bool replayed = sender.wire_count.count(token) && sender.wire_count[token] > 1;
  if (!o.d_eligible) {
    sender.best.observe(0, token, dig, t);
  } else {
    // Frames ahead of this one that went on the wire before the last flush
    // were discarded by that flush: accounted, not lost.
    while (!sender.expect.empty() && sender.expect.front().id != token) {
      const auto& f = sender.expect.front();
      if (sender.last_flush >= 0 && f.first_sent >= 0 && f.first_sent <= sender.last_flush) {
        sender.strict.discard(0, f.id);
        ++sender.discarded;
        sender.expect.pop_front();
      } else {
        break;
      }
    }
    if (!sender.expect.empty() && sender.expect.front().id == token) sender.expect.pop_front();
    sender.strict.observe(0, token, dig, t);
    if (cycle_ >= win_start_cycle_ && traffic_) win_bytes_[sender.name == 'A' ? 0 : 1] += o.d_len;
  }
  if (it != sender.by_token.end()) {
    (replayed ? sender.latency_replayed_ns : sender.latency_ns).add(core::to_ns(t - it->second.t_created));
    sender.by_token.erase(it);
  }
  sender.wire_count.erase(token);
}

void System::step_side(Side& me, Side& peer, llr::In& in, core::Ps t) {
  const llr::Out& o = me.out;
  me.max_out_frames = std::max(me.max_out_frames, o.out_frames);
  me.max_out_bytes = std::max(me.max_out_bytes, o.out_bytes);

  // Transmit: the wire takes the block's item when it frees up before the
  // next edge; the item starts the moment the previous one ends (back to
  // back on the wire, as the MAC streams), not at the next cycle boundary.
  if (o.w_valid && me.chan.wire_free_at() < t + cfg_.clock_ps) {
    in.w_ready = true;
    if (o.w_is_ctl) {
      lnk::Ctl c;
      c.kind = sw::llr_ctl_kind(o.w_ctl_type);
      c.value = o.w_ctl_seq;
      me.chan.send(t, c);
    } else {
      lnk::Frame f;
      f.id = o.w_token;
      f.len = o.w_len;
      f.cls = o.w_class;
      f.seq = o.w_seq;
      f.eligible = o.w_eligible;
      f.replay = o.w_replay;
      auto it = me.by_token.find(o.w_token);
      if (it != me.by_token.end()) {
        f.digest = it->second.digest;
        f.t_created = it->second.t_created;
        int n = ++me.wire_count[o.w_token];
        if (n == 1 && it->second.eligible) {
          for (auto& p : me.expect)
            if (p.id == o.w_token) {
              p.first_sent = t;
              break;
            }
          if (!o.w_eligible) {  // best effort: the replay buffer was full
            ++me.demoted;
            me.strict.discard(0, o.w_token);
            me.expect.erase(std::remove_if(me.expect.begin(), me.expect.end(),
                                           [&](const Side::Pending& p) { return p.id == o.w_token; }),
                            me.expect.end());
            me.best.expect(0, o.w_token, it->second.digest, it->second.t_created);
            it->second.eligible = false;
          }
        }
        if (n == 2) ++me.replayed_frames;
      }
      me.chan.send(t, f);
    }
  }

  // Receive: at most one item per cycle into r_*.
  lnk::Item item;
  while (peer.chan.receive(t, item)) me.arrivals.push_back(std::move(item));
  if (!me.arrivals.empty()) {
    lnk::Item it = std::move(me.arrivals.front());
    me.arrivals.pop_front();
    sw::llr_receive(it, in);
  }

  // PFC pause toward this partner's transmitter.
  in.pause = me.faults ? me.faults->paused_mask(t) : 0;

  // Delivery: frames the peer sent.
  if (o.d_valid) deliver(peer, o, t);

  // Source.
  const bool sends = traffic_ && (me.name == 'A' || cfg_.bidir);
  if (sends) {
    const double per_cycle = cfg_.load * cfg_.link.rate_gbps / 8.0 * core::to_ns(cfg_.clock_ps);
    me.src_tokens = std::min(me.src_tokens + per_cycle, static_cast<double>(cfg_.len_max) + per_cycle);
    if (!me.head) me.head = new_frame(me, t);
    if (me.src_tokens >= 0) {
      const lnk::Frame& f = *me.head;
      in.c_valid = true;
      in.c_eligible = f.eligible;
      in.c_class = f.cls;
      in.c_len = f.len;
      in.c_token = f.id;
      if (o.c_ready) {  // taken at this edge
        lnk::Frame g = f;
        g.t_created = t;
        me.by_token[g.id] = g;
        if (g.eligible) {
          me.strict.expect(0, g.id, g.digest, t);
          me.expect.push_back({g.id, -1});
        } else {
          me.best.expect(0, g.id, g.digest, t);
        }
        me.src_tokens -= static_cast<double>(g.len + cfg_.link.overhead_bytes);
        me.head.reset();
      } else {
        ++me.credit_stall;
      }
    }
  } else if (!traffic_) {
    me.head.reset();
  }
}

void System::log_state(Side& s, const llr::Out& before, const llr::Out& after) {
  auto add = [&](const char* machine, const char* from, const char* to) {
    ++event_count_;
    if (events_.size() < 5000) events_.push_back({cycle_, now(), s.name, machine, from, to});
  };
  if (before.tx_state != after.tx_state) add("tx", tx_state_name(before.tx_state), tx_state_name(after.tx_state));
  if (before.rx_state != after.rx_state) add("rx", rx_state_name(before.rx_state), rx_state_name(after.rx_state));
  if (after.cnt[llr::tx_flush] != before.cnt[llr::tx_flush]) s.last_flush = now();
}

void System::cycle() {
  const core::Ps t = now();
  if (traffic_) {
    if (cycle_ == win_start_cycle_) win_start_ = t;
    if (cycle_ >= win_start_cycle_) win_end_ = t + cfg_.clock_ps;
  }
  llr::In ia, ib;
  if (reset_left_ > 0) {
    --reset_left_;
    ia.rst_n = ib.rst_n = false;
    ia.cfg = ib.cfg = cfg_.cfg;
  } else {
    ia.rst_n = ib.rst_n = true;
    step_side(a_, b_, ia, t);
    step_side(b_, a_, ib, t);
  }
  a_.blk->drive(ia);
  b_.blk->drive(ib);
  if (waves_) waves_->dump(t - cfg_.clock_ps / 2);
  if (a_.lock) a_.lock->set_time(cycle_, t);
  if (b_.lock) b_.lock->set_time(cycle_, t);
  a_.blk->posedge();
  b_.blk->posedge();
  for (Side* s : {&a_, &b_}) {
    llr::Out before = s->out;
    s->out = s->blk->outputs();
    log_state(*s, before, s->out);
  }
  if (waves_) waves_->dump(t);
  ++cycle_;
}

void System::finish() {
  // A delivery at the very last edge has not been seen by the clients yet.
  const core::Ps t = now();
  if (a_.out.d_valid) deliver(b_, a_.out, t);
  if (b_.out.d_valid) deliver(a_, b_.out, t);
  for (Side* s : {&a_, &b_}) {
    // A link left down (FLUSH without re-init) discards what it holds.
    const bool dead = s->out.tx_state == llr::kFlush;
    for (auto& p : s->expect) {
      if (dead || (s->last_flush >= 0 && p.first_sent >= 0 && p.first_sent <= s->last_flush)) {
        s->strict.discard(0, p.id);
        ++s->discarded;
      }
    }
    s->expect.clear();
    s->strict.finish();
    s->best.finish();
  }
}

}  // namespace tb::llr_tb
