#include "cbfc/cbfc_env.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace tb::cbfc_tb {

uint32_t EnvConfig::buf_credits() const {
  uint32_t c = params.credits(buffer_bytes);
  uint32_t max_c = (1u << (params.cnt_width - 1)) - 1;  // counters must be a bit wider than the buffer
  return std::min(c, max_c);
}

System::System(const EnvConfig& cfg, std::unique_ptr<TxBlock> tx, std::unique_ptr<RxBlock> rx, Waves* waves)
    : cfg_(cfg),
      tx_(std::move(tx)),
      rx_(std::move(rx)),
      waves_(waves),
      fwd_(cfg.link),
      rev_(cfg.link),
      rng_traffic_(cfg.seed, "cbfc.traffic"),
      rng_drain_(cfg.seed, "cbfc.drain"),
      rng_stress_(cfg.seed, "cbfc.stress"),
      sb_("cbfc scoreboard"),
      reset_left_(cfg.reset_cycles),
      rng_refresh_(cfg.seed, "cbfc.refresh") {
  if (cfg_.cu_loss > 0) {
    lnk::FaultConfig fc;
    fc.ctl_drop_prob = cfg_.cu_loss;
    cu_faults_ = std::make_unique<lnk::FaultInjector>(fc, cfg_.seed, "cbfc.cu_loss");
  }
  const double bytes_per_cycle = cfg_.link.rate_gbps / 8.0 * core::to_ns(cfg_.clock_ps);
  drain_per_cycle_ = cfg_.drain_ratio * bytes_per_cycle;
  src_per_cycle_ = cfg_.load * bytes_per_cycle;
  ltx_ = dynamic_cast<LockstepTx*>(tx_.get());
  lrx_ = dynamic_cast<LockstepRx*>(rx_.get());
  reset_env(cfg_.stress);
  to_ = tx_->outputs();
  ro_ = rx_->outputs();
}

void System::reset_env(bool randomize) {
  const auto& p = cfg_.params;
  const uint32_t cnt_max = (1u << (p.cnt_width - 1)) - 1;
  txcfg_ = {};
  rxcfg_ = {};
  for (unsigned c = 0; c < p.num_classes; ++c) {
    // Stress: mostly small buffers (credits run out, back-pressure), sometimes
    // anything the counters hold, now and then none at all.
    uint32_t b = cfg_.buf_credits();
    if (randomize) {
      uint64_t r = rng_stress_.uniform(0, 99);
      uint32_t hi = r < 70 ? 64 : r < 95 ? 1024 : cnt_max;
      b = static_cast<uint32_t>(rng_stress_.uniform(r < 2 ? 0 : 1, std::min(hi, cnt_max)));
    }
    txcfg_.init_credits[c] = b;
    rxcfg_.buf_credits[c] = b;
  }
  if (randomize) {
    txcfg_.mtu = static_cast<uint32_t>(rng_stress_.uniform(0, (1u << p.len_width) - 1));
    rxcfg_.threshold = static_cast<uint32_t>(rng_stress_.chance(0.8) ? rng_stress_.uniform(0, 8) : rng_stress_.uniform(0, 256));
    rxcfg_.timer = static_cast<uint32_t>(rng_stress_.uniform(0, std::min<uint64_t>(200, (1ull << p.timer_width) - 1)));
    // Refresh from its own stream (the rest of the stress stimulus is the same
    // as without it): often off, mostly short (many refreshes, contending with
    // normal updates), sometimes long, now and then the counter's maximum.
    const uint64_t rmax = (1ull << p.refresh_width) - 1;
    const uint64_t r = rng_refresh_.uniform(0, 99);
    rxcfg_.refresh = r < 25   ? 0u
                     : r < 80 ? static_cast<uint32_t>(rng_refresh_.uniform(1, std::min<uint64_t>(64, rmax)))
                     : r < 95 ? static_cast<uint32_t>(rng_refresh_.uniform(1, std::min<uint64_t>(2000, rmax)))
                              : static_cast<uint32_t>(rmax);
  } else {
    txcfg_.mtu = std::min<uint32_t>(cfg_.len_max, (1u << p.len_width) - 1);
    rxcfg_.threshold = cfg_.threshold;
    rxcfg_.timer = cfg_.timer;
    rxcfg_.refresh = cfg_.refresh;
  }
  // Nothing survives a reset: the link partners restart from scratch.
  fwd_ = lnk::Channel(cfg_.link);
  rev_ = lnk::Channel(cfg_.link);
  rev_.attach(cu_faults_.get());  // credit-update loss (cu_loss), if any
  ingress_.clear();
  cu_q_.clear();
  for (unsigned c = 0; c < cbfc::kMaxClasses; ++c) {
    buf_[c].clear();
    head_[c].reset();
    inflight_credit_[c].clear();
    consumed64_[c] = returned64_[c] = 0;
    last_limit_[c] = txcfg_.init_credits[c];
    sent64_[c] = 0;
    last_sent_limit_[c] = rxcfg_.buf_credits[c];
    lost_[c].clear();
    wait_since_[c].reset();
  }
}

uint64_t System::digest(uint64_t id, unsigned cls, uint32_t len) const {
  return core::mix64(cfg_.seed ^ core::mix64(id * 0x100000001b3ull + cls * 131u + len));
}

lnk::Frame System::new_frame(unsigned cls) {
  const auto& p = cfg_.params;
  lnk::Frame f;
  f.id = next_id_++;
  f.cls = cls;
  uint32_t lo = cfg_.len_min, hi = cfg_.len_max;
  if (cfg_.stress) {
    // Any length the port can carry that fits the class's buffer, zero included.
    // Mostly short frames (many frames, frequent frees and grants), some long
    // ones, a few zero-length; never more than the class's buffer can take.
    uint64_t fit = static_cast<uint64_t>(std::max<uint32_t>(1, txcfg_.init_credits[cls])) << p.credit_unit_log2;
    uint64_t r = rng_stress_.uniform(0, 99);
    uint64_t want = r < 70 ? (4ull << p.credit_unit_log2) : r < 95 ? (32ull << p.credit_unit_log2) : (1ull << p.len_width) - 1;
    hi = static_cast<uint32_t>(std::min<uint64_t>({(1u << p.len_width) - 1, fit, want}));
    lo = r == 99 ? 0 : 1;
    if (hi < lo) hi = lo;
  }
  f.len = static_cast<uint32_t>(rng_traffic_.uniform(lo, hi));
  f.digest = digest(f.id, cls, f.len);
  f.t_created = now();
  return f;
}

void System::stop_traffic() {
  traffic_ = false;
  for (unsigned c = 0; c < cbfc::kMaxClasses; ++c) {
    if (!wait_since_[c]) continue;
    cls_[c].max_wait_cycles = std::max(cls_[c].max_wait_cycles, cycle_ - *wait_since_[c]);
    wait_since_[c].reset();
  }
}

bool System::idle() const {
  if (sb_.outstanding() != 0 || fwd_.in_flight() || !ingress_.empty()) return false;
  for (auto& b : buf_)
    if (!b.empty()) return false;
  if (!cfg_.stress && (rxcfg_.timer != 0 || rxcfg_.refresh != 0)) {
    // Every credit comes home: wait for it (a credit that never does is a
    // class stalled for good; the run fails). Updates still on their way then
    // carry nothing new: with the refresh they never stop.
    for (unsigned c = 0; c < cfg_.params.num_classes; ++c)
      if (to_.avail[c] != txcfg_.init_credits[c]) return false;
    return true;
  }
  // An update on its way, or leaving at the next cycle, still counts.
  return !rev_.in_flight() && cu_q_.empty() && (cfg_.stress || !ro_.cu_valid);
}

int64_t System::missing_credits(unsigned c) const {
  return static_cast<int64_t>(txcfg_.init_credits[c]) - to_.avail[c] - ro_.pend[c];
}

uint64_t System::max_wait_cycles(unsigned c) const {
  uint64_t m = cls_[c].max_wait_cycles;
  if (wait_since_[c]) m = std::max(m, cycle_ - *wait_since_[c]);
  return m;
}

std::optional<Mismatch> System::mismatch() const {
  if (ltx_ && ltx_->mismatch()) return ltx_->mismatch();
  if (lrx_ && lrx_->mismatch()) return lrx_->mismatch();
  return std::nullopt;
}

void System::check_errors(const cbfc::TxOut& to, const cbfc::RxOut& ro) {
  if (proto_err_ || cfg_.stress) return;
  auto first = [](uint32_t bits) { return bits ? __builtin_ctz(bits) : -1; };
  std::string e;
  if (to.err_underflow) e = fmt::format("tx err_underflow_o: class {} sent without credits", first(to.err_underflow));
  else if (to.err_overflow) e = fmt::format("tx err_overflow_o: class {} granted beyond its buffer", first(to.err_overflow));
  else if (to.err_class) e = "tx err_class_o: class index out of range";
  else if (ro.err_overflow) e = fmt::format("rx err_overflow_o: class {} buffer overflow (frame lost)", first(ro.err_overflow));
  else if (ro.err_underflow) e = fmt::format("rx err_underflow_o: class {} freed more than occupied", first(ro.err_underflow));
  else if (ro.err_class) e = "rx err_class_o: class index out of range";
  if (!e.empty()) proto_err_ = fmt::format("cycle {} ({}): {}", cycle_, core::format_time(now()), e);
}

void System::cycle() {
  const auto& p = cfg_.params;
  const core::Ps t = now();
  if (traffic_) {
    if (cycle_ == win_start_cycle_) win_start_ = t;
    if (cycle_ >= win_start_cycle_) win_end_ = t + cfg_.clock_ps;
  }
  const cbfc::TxOut& to = to_;
  const cbfc::RxOut& ro = ro_;
  cbfc::TxIn ti;
  cbfc::RxIn ri;

  if (cfg_.stress && reset_left_ == 0 && rng_stress_.chance(cfg_.p_reset)) {
    reset_left_ = 1 + static_cast<unsigned>(rng_stress_.uniform(0, 2));
    ++resets_;
    reset_env(true);
  }

  if (reset_left_ > 0) {
    --reset_left_;
    ti.rst_n = false;
    ri.rst_n = false;
    ti.cfg = txcfg_;
    ri.cfg = rxcfg_;
  } else {
    ti.rst_n = ri.rst_n = true;
    check_errors(to, ro);
    errc_.tx_underflow += to.err_underflow != 0;
    errc_.tx_overflow += to.err_overflow != 0;
    errc_.tx_class += to.err_class;
    errc_.rx_overflow += ro.err_overflow != 0;
    errc_.rx_underflow += ro.err_underflow != 0;
    errc_.rx_class += ro.err_class;
    for (unsigned c = 0; c < p.num_classes; ++c) cls_[c].max_occ = std::max(cls_[c].max_occ, ro.occ[c]);

    // Receiver -> credit update on the reverse channel (lost there with cu_loss).
    if (ro.cu_valid) {
      const uint64_t dropped_before = cu_faults_ ? cu_faults_->stats().ctl_dropped : 0;
      rev_.send(t, lnk::Ctl{lnk::Ctl::Kind::credit, ro.cu_class, ro.cu_limit});
      if (ro.cu_class < p.num_classes) {
        const unsigned c = ro.cu_class;
        ++cls_[c].updates_sent;
        if (ro.cu_limit == last_sent_limit_[c]) ++cls_[c].refreshes;  // a refresh without new credits
        sent64_[c] += (ro.cu_limit - last_sent_limit_[c]) & p.cnt_mask();
        last_sent_limit_[c] = ro.cu_limit;
        if (cu_faults_ && cu_faults_->stats().ctl_dropped != dropped_before) {
          ++cls_[c].updates_lost;
          if (sent64_[c] <= returned64_[c])
            ++lost_redundant_;  // the sender already holds this limit: nothing to repair
          else
            lost_[c].push_back({sent64_[c], t});
        }
      }
    }
    lnk::Item item;
    while (rev_.receive(t, item)) cu_q_.push_back(std::get<lnk::Ctl>(item));
    if (!cu_q_.empty()) {
      lnk::Ctl u = cu_q_.front();
      cu_q_.pop_front();
      ti.cu_valid = true, ti.cu_class = u.cls, ti.cu_limit = u.value;
      if (u.cls < p.num_classes) {
        ++cls_[u.cls].updates;
        uint32_t delta = (u.value - last_limit_[u.cls]) & p.cnt_mask();
        last_limit_[u.cls] = u.value;
        returned64_[u.cls] += delta;
        // Lost updates repaired by this one (it carries at least their limit).
        while (!lost_[u.cls].empty() && lost_[u.cls].front().limit64 <= returned64_[u.cls]) {
          recovery_.add(core::to_ns(t - lost_[u.cls].front().t));
          lost_[u.cls].pop_front();
        }
        auto& q = inflight_credit_[u.cls];
        // The update takes effect at this edge: those frames' credits are back.
        while (!q.empty() && q.front().consumed_after <= returned64_[u.cls]) {
          loop_.add(core::to_ns(t - q.front().t));
          q.pop_front();
        }
      }
    }
    if (cfg_.stress && rng_stress_.chance(cfg_.p_bad_cu)) {
      ti.cu_valid = true;
      ti.cu_class = static_cast<uint32_t>(rng_stress_.uniform(0, p.num_classes - 1));
      ti.cu_limit = static_cast<uint32_t>(rng_stress_.next()) & p.cnt_mask();
    }

    // Forward channel -> receiver ingress.
    while (fwd_.receive(t, item)) ingress_.push_back(std::get<lnk::Frame>(item));

    // Drain: frames presented in earlier cycles leave the buffer.
    bool drained = false;
    if (cfg_.stress) {
      drained = rng_drain_.chance(cfg_.p_drain);
    } else {
      drain_tokens_ = std::min(drain_tokens_ + drain_per_cycle_, static_cast<double>(cfg_.len_max) + drain_per_cycle_);
      drained = true;
    }
    if (drained) {
      for (unsigned k = 0; k < p.num_classes; ++k) {
        unsigned c = (rr_drain_ + k) % p.num_classes;
        if (buf_[c].empty()) continue;
        const lnk::Frame& f = buf_[c].front();
        if (!cfg_.stress && drain_tokens_ < f.len) break;  // wait for this class's turn to afford it
        if (!cfg_.stress) drain_tokens_ -= f.len;
        ri.free_valid = true, ri.free_class = c, ri.free_len = f.len;
        cls_[c].frames_drained++;
        cls_[c].bytes_drained += f.len;
        if (cycle_ >= win_start_cycle_ && traffic_) win_bytes_ += f.len;
        if (!cfg_.stress) sb_.observe(c, f.id, f.digest, t);
        buf_[c].pop_front();
        rr_drain_ = (c + 1) % p.num_classes;
        break;
      }
    }
    if (cfg_.stress && !ri.free_valid && rng_stress_.chance(cfg_.p_bad_free)) {
      ri.free_valid = true;
      ri.free_class = static_cast<uint32_t>(rng_stress_.uniform(0, p.num_classes - 1));
      ri.free_len = static_cast<uint32_t>(rng_stress_.uniform(0, (1u << p.len_width) - 1));
    }

    // Ingress: one frame per cycle enters the buffer.
    if (!ingress_.empty()) {
      lnk::Frame f = ingress_.front();
      ingress_.pop_front();
      ri.rx_valid = true, ri.rx_class = f.cls, ri.rx_len = f.len;
      if (f.cls < p.num_classes) buf_[f.cls].push_back(f);
    }

    // Source: one frame may start when the wire is free and the offered load allows.
    src_tokens_ = std::min(src_tokens_ + src_per_cycle_, static_cast<double>(cfg_.len_max + 64) + src_per_cycle_);
    const unsigned n_act = std::min(cfg_.active_classes, p.num_classes);
    // The next frame may start when the wire frees up before the next edge
    // (back to back on the wire, as a MAC streams).
    if (traffic_ && fwd_.wire_free_at() < t + cfg_.clock_ps && src_tokens_ >= 0 && n_act > 0) {
      for (unsigned c = 0; c < n_act; ++c)
        if (!head_[c]) head_[c] = new_frame(c);
      bool bad = cfg_.stress && rng_stress_.chance(cfg_.p_bad_tx);
      for (unsigned k = 0; k < n_act; ++k) {
        unsigned c = (rr_src_ + k) % n_act;
        lnk::Frame f = *head_[c];
        uint32_t need = p.credits(f.len);
        if (!bad && need > to.avail[c]) {
          ++cls_[c].stall_cycles;
          if (!wait_since_[c]) wait_since_[c] = cycle_;
          continue;
        }
        if (wait_since_[c]) {
          cls_[c].max_wait_cycles = std::max(cls_[c].max_wait_cycles, cycle_ - *wait_since_[c]);
          wait_since_[c].reset();
        }
        uint32_t cls_port = c;
        if (cfg_.stress && rng_stress_.chance(cfg_.p_bad_class))
          cls_port = static_cast<uint32_t>(rng_stress_.uniform(0, (1u << p.class_width()) - 1));
        ti.tx_valid = true, ti.tx_class = cls_port, ti.tx_len = f.len;
        f.cls = cls_port;
        fwd_.send(t, f);
        src_tokens_ -= static_cast<double>(f.len + cfg_.link.overhead_bytes);
        head_[c].reset();
        rr_src_ = (c + 1) % n_act;
        cls_[c].frames_sent++;
        cls_[c].bytes_sent += f.len;
        if (!cfg_.stress) {
          sb_.expect(c, f.id, f.digest, t);
          consumed64_[c] += need;
          inflight_credit_[c].push_back({consumed64_[c], t});
        }
        break;
      }
    }
  }

  // Inputs for this edge: shown in the wave half a cycle before the edge.
  tx_->drive(ti);
  rx_->drive(ri);
  const core::Ps half = cfg_.clock_ps / 2;
  if (waves_) waves_->dump(t - half);
  if (ltx_) ltx_->set_time(cycle_, t);
  if (lrx_) lrx_->set_time(cycle_, t);
  tx_->posedge();
  rx_->posedge();
  to_ = tx_->outputs();
  ro_ = rx_->outputs();
  if (waves_) waves_->dump(t);
  ++cycle_;
}

}  // namespace tb::cbfc_tb
