#include "link/faults.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace lnk {

namespace {

constexpr int kMaxCtlKind = static_cast<int>(Ctl::Kind::pause);

bool prob_ok(double p) { return p >= 0.0 && p <= 1.0; }  // false for NaN

bool in(core::Ps t, core::Ps start, core::Ps end) { return t >= start && t < end; }

std::string bad_window(const char* name, size_t i, core::Ps start, core::Ps end) {
  return fmt::format("faults {}[{}] start={} end={} out of range (allowed 0 <= start <= end)", name, i, start, end);
}

}  // namespace

std::string FaultConfig::validate() const {
  const std::pair<const char*, double> probs[] = {
      {"ber", ber}, {"fer", fer}, {"drop_prob", drop_prob}, {"ctl_drop_prob", ctl_drop_prob}, {"ctl_corrupt_prob", ctl_corrupt_prob}};
  for (const auto& [name, p] : probs)
    if (!prob_ok(p)) return fmt::format("faults {}={} out of range (allowed 0..1)", name, p);
  for (size_t i = 0; i < ctl_windows.size(); ++i) {
    const CtlWindow& w = ctl_windows[i];
    if (!(w.start >= 0 && w.start <= w.end)) return bad_window("ctl_windows", i, w.start, w.end);
    if (w.kind < -1 || w.kind > kMaxCtlKind)
      return fmt::format("faults ctl_windows[{}] kind={} out of range (allowed -1 (any) or 0..{})", i, w.kind,
                         kMaxCtlKind);
    if (w.delay < 0) return fmt::format("faults ctl_windows[{}] delay={} out of range (allowed >= 0)", i, w.delay);
  }
  for (size_t i = 0; i < down.size(); ++i)
    if (!(down[i].start >= 0 && down[i].start <= down[i].end)) return bad_window("down", i, down[i].start, down[i].end);
  for (size_t i = 0; i < pauses.size(); ++i) {
    const Pause& w = pauses[i];
    if (!(w.start >= 0 && w.start <= w.end)) return bad_window("pauses", i, w.start, w.end);
    if (w.cls > 31) return fmt::format("faults pauses[{}] cls={} out of range (allowed 0..31)", i, w.cls);
  }
  return "";
}

bool FaultConfig::any() const {
  if (ber > 0 || fer > 0 || drop_prob > 0 || ctl_drop_prob > 0 || ctl_corrupt_prob > 0 || !drop_frames.empty()) return true;
  for (const Burst& b : bursts)
    if (b.count > 0) return true;
  for (const CtlWindow& w : ctl_windows)
    if (w.start < w.end && (w.drop || w.delay > 0)) return true;
  for (const Window& w : down)
    if (w.start < w.end) return true;
  for (const Pause& w : pauses)
    if (w.start < w.end) return true;
  return false;
}

FaultInjector::FaultInjector(const FaultConfig& cfg, uint64_t seed, const std::string& stream)
    : cfg_(cfg), drop_sorted_(cfg.drop_frames), frame_rng_(seed, stream), ctl_rng_(seed, stream + "/ctl") {
  std::string err = cfg_.validate();
  if (!err.empty()) throw std::invalid_argument(err);
  std::sort(drop_sorted_.begin(), drop_sorted_.end());
  log1m_ber_ = std::log1p(-cfg_.ber);               // -inf when ber = 1
  log1m_fer_ = std::log1p(-cfg_.fer);               // -inf when fer = 1
  ctl_ber_p_ = -std::expm1(64.0 * log1m_ber_);      // 1-(1-ber)^64, accurate for tiny ber
}

double FaultInjector::uniform(core::Rng& r) { return static_cast<double>(r.next() >> 11) * 0x1.0p-53; }

bool FaultInjector::chosen(uint64_t index) const {
  if (std::binary_search(drop_sorted_.begin(), drop_sorted_.end(), index)) return true;
  for (const FaultConfig::Burst& b : cfg_.bursts)
    if (index >= b.first_frame && index - b.first_frame < b.count) return true;  // no overflow at the top
  return false;
}

bool FaultInjector::link_down(core::Ps t) const {
  for (const FaultConfig::Window& w : cfg_.down)
    if (in(t, w.start, w.end)) return true;
  return false;
}

uint32_t FaultInjector::paused_mask(core::Ps t) const {
  uint32_t m = 0;
  for (const FaultConfig::Pause& p : cfg_.pauses)
    if (in(t, p.start, p.end)) m |= 1u << p.cls;
  return m;
}

FaultInjector::Decision FaultInjector::on_frame(core::Ps t_start, core::Ps t_arrive, const Frame& f) {
  // Fixed draw pattern: two uniforms per frame, always.
  const double u_drop = uniform(frame_rng_);
  const double u_ber = uniform(frame_rng_);
  const uint64_t index = stats_.frames++;
  Decision d;
  if (link_down(t_start) || link_down(t_arrive)) {
    ++stats_.lost_link_down;
    d.verdict = Verdict::drop;
  } else if (chosen(index) || u_drop < cfg_.drop_prob) {
    d.verdict = Verdict::drop;
  } else if (cfg_.fer > 0) {
    // 1-(1-fer)(1-ber)^(8L): a frame error whatever the length, or bit errors
    const double bits = f.len > 0 ? 8.0 * static_cast<double>(f.len) * log1m_ber_ : 0.0;
    if (u_ber < -std::expm1(log1m_fer_ + bits)) d.verdict = Verdict::corrupt;
  } else if (f.len > 0 && u_ber < -std::expm1(8.0 * static_cast<double>(f.len) * log1m_ber_)) {
    d.verdict = Verdict::corrupt;  // 1-(1-ber)^(8L)
  }
  if (d.verdict == Verdict::drop) ++stats_.frames_dropped;
  if (d.verdict == Verdict::corrupt) ++stats_.frames_corrupted;
  return d;
}

FaultInjector::Decision FaultInjector::on_ctl(core::Ps t_start, core::Ps t_arrive, const Ctl& c) {
  // Fixed draw pattern: three uniforms per control word, always.
  const double u_drop = uniform(ctl_rng_);
  const double u_corrupt = uniform(ctl_rng_);
  const double u_ber = uniform(ctl_rng_);
  ++stats_.ctl;
  Decision d;
  bool lost_down = link_down(t_start) || link_down(t_arrive);
  bool dropped = lost_down;
  if (!dropped) {
    for (const FaultConfig::CtlWindow& w : cfg_.ctl_windows) {
      if (!in(t_start, w.start, w.end) || (w.kind != -1 && w.kind != static_cast<int>(c.kind))) continue;
      if (w.drop) {
        dropped = true;
      } else {
        d.extra_delay = w.delay;
        lost_down = dropped = w.delay > 0 && link_down(t_arrive + w.delay);
      }
      break;  // the first matching window applies
    }
  }
  if (!dropped) dropped = u_drop < cfg_.ctl_drop_prob;
  if (dropped) {
    ++stats_.ctl_dropped;
    if (lost_down) ++stats_.lost_link_down;
    d.verdict = Verdict::drop;
    d.extra_delay = 0;
    return d;
  }
  if (u_corrupt < cfg_.ctl_corrupt_prob || u_ber < ctl_ber_p_) {
    d.verdict = Verdict::corrupt;
    ++stats_.ctl_corrupted;
  }
  if (d.extra_delay > 0) ++stats_.ctl_delayed;
  return d;
}

}  // namespace lnk
