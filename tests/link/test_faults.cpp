// Unit tests of lnk::FaultConfig, lnk::FaultInjector and lnk::Channel with faults attached.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "link/faults.hpp"
#include "link/link.hpp"

using lnk::Channel;
using lnk::Ctl;
using lnk::FaultConfig;
using lnk::FaultInjector;
using lnk::Frame;
using lnk::Item;
using lnk::Params;
using lnk::Ps;
using Verdict = lnk::FaultInjector::Verdict;

namespace {

// Default Params: 800 Gb/s = 10 ps per byte, flight 60000 + 9200 = 69200 ps.
// A 100-byte frame is 120 bytes on the wire = 1200 ps; a control word 80 ps.
constexpr Ps kFlight = 69200;

Frame frame(uint64_t id, uint32_t len = 100) {
  Frame f;
  f.id = id;
  f.len = len;
  f.digest = 0x1000 + id;
  return f;
}

Ctl ctl(Ctl::Kind k, uint32_t value = 0) {
  Ctl c;
  c.kind = k;
  c.value = value;
  return c;
}

/// Verdicts of `n` frames of `len` bytes through `inj`, as a vector.
std::vector<Verdict> run_frames(FaultInjector& inj, int n, uint32_t len = 100) {
  std::vector<Verdict> v;
  for (int i = 0; i < n; ++i) v.push_back(inj.on_frame(0, kFlight, frame(static_cast<uint64_t>(i), len)).verdict);
  return v;
}

std::vector<Verdict> run_ctl(FaultInjector& inj, int n) {
  std::vector<Verdict> v;
  for (int i = 0; i < n; ++i) v.push_back(inj.on_ctl(0, kFlight, ctl(Ctl::Kind::ack)).verdict);
  return v;
}

std::vector<uint64_t> indices_of(const std::vector<Verdict>& v, Verdict which) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] == which) out.push_back(i);
  return out;
}

/// Drains the channel at `now`; returns the frame ids (ctl words as 1000 + value).
std::vector<uint64_t> drain(Channel& ch, Ps now) {
  std::vector<uint64_t> ids;
  Item it;
  while (ch.receive(now, it)) {
    if (auto* f = std::get_if<Frame>(&it))
      ids.push_back(f->id);
    else
      ids.push_back(1000 + std::get<Ctl>(it).value);
  }
  return ids;
}

}  // namespace

// ---------------------------------------------------------------- config

TEST(FaultsConfig, DefaultIsValidAndEmpty) {
  FaultConfig c;
  EXPECT_EQ(c.validate(), "");
  EXPECT_FALSE(c.any());
}

TEST(FaultsConfig, AnyPerField) {
  auto any_with = [](auto set) {
    FaultConfig c;
    set(c);
    return c.any();
  };
  EXPECT_TRUE(any_with([](FaultConfig& c) { c.ber = 1e-12; }));
  EXPECT_TRUE(any_with([](FaultConfig& c) { c.drop_prob = 0.5; }));
  EXPECT_TRUE(any_with([](FaultConfig& c) { c.drop_frames = {0}; }));
  EXPECT_TRUE(any_with([](FaultConfig& c) { c.bursts = {{5, 1}}; }));
  EXPECT_FALSE(any_with([](FaultConfig& c) { c.bursts = {{5, 0}}; }));
  EXPECT_TRUE(any_with([](FaultConfig& c) { c.ctl_drop_prob = 0.1; }));
  EXPECT_TRUE(any_with([](FaultConfig& c) { c.ctl_corrupt_prob = 0.1; }));
  EXPECT_TRUE(any_with([](FaultConfig& c) { c.ctl_windows = {{0, 10, -1, true, 0}}; }));
  EXPECT_TRUE(any_with([](FaultConfig& c) { c.ctl_windows = {{0, 10, -1, false, 5}}; }));
  EXPECT_FALSE(any_with([](FaultConfig& c) { c.ctl_windows = {{0, 10, -1, false, 0}}; }));  // delay 0: no effect
  EXPECT_FALSE(any_with([](FaultConfig& c) { c.ctl_windows = {{10, 10, -1, true, 0}}; }));  // empty window
  EXPECT_TRUE(any_with([](FaultConfig& c) { c.down = {{0, 1}}; }));
  EXPECT_FALSE(any_with([](FaultConfig& c) { c.down = {{7, 7}}; }));
  EXPECT_TRUE(any_with([](FaultConfig& c) { c.pauses = {{0, 1, 3}}; }));
  EXPECT_FALSE(any_with([](FaultConfig& c) { c.pauses = {{7, 7, 3}}; }));
}

TEST(FaultsConfig, ValidateAcceptsBounds) {
  FaultConfig c;
  c.ber = 1;
  c.drop_prob = 1;
  c.ctl_drop_prob = 0;
  c.ctl_corrupt_prob = 1;
  c.drop_frames = {0, std::numeric_limits<uint64_t>::max()};
  c.bursts = {{std::numeric_limits<uint64_t>::max(), std::numeric_limits<uint64_t>::max()}};
  c.ctl_windows = {{0, 0, -1, true, 0}, {5, 10, 5, false, 100}};
  c.down = {{0, 0}, {3, 4}};
  c.pauses = {{0, 0, 0}, {1, 2, 31}};
  EXPECT_EQ(c.validate(), "");
}

TEST(FaultsConfig, ValidateMessages) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  FaultConfig c;
  c.ber = 1.5;
  EXPECT_EQ(c.validate(), "faults ber=1.5 out of range (allowed 0..1)");
  c = FaultConfig();
  c.ber = nan;
  EXPECT_EQ(c.validate(), "faults ber=nan out of range (allowed 0..1)");
  c = FaultConfig();
  c.drop_prob = -0.1;
  EXPECT_EQ(c.validate(), "faults drop_prob=-0.1 out of range (allowed 0..1)");
  c = FaultConfig();
  c.ctl_drop_prob = 2;
  EXPECT_EQ(c.validate(), "faults ctl_drop_prob=2 out of range (allowed 0..1)");
  c = FaultConfig();
  c.ctl_corrupt_prob = nan;
  EXPECT_EQ(c.validate(), "faults ctl_corrupt_prob=nan out of range (allowed 0..1)");

  c = FaultConfig();
  c.ctl_windows = {{0, 10, -1, true, 0}, {20, 10, -1, true, 0}};
  EXPECT_EQ(c.validate(), "faults ctl_windows[1] start=20 end=10 out of range (allowed 0 <= start <= end)");
  c.ctl_windows = {{-5, 10, -1, true, 0}};
  EXPECT_EQ(c.validate(), "faults ctl_windows[0] start=-5 end=10 out of range (allowed 0 <= start <= end)");
  c.ctl_windows = {{0, 10, 6, true, 0}};
  EXPECT_EQ(c.validate(), "faults ctl_windows[0] kind=6 out of range (allowed -1 (any) or 0..5)");
  c.ctl_windows = {{0, 10, -2, true, 0}};
  EXPECT_EQ(c.validate(), "faults ctl_windows[0] kind=-2 out of range (allowed -1 (any) or 0..5)");
  c.ctl_windows = {{0, 10, 1, false, -3}};
  EXPECT_EQ(c.validate(), "faults ctl_windows[0] delay=-3 out of range (allowed >= 0)");

  c = FaultConfig();
  c.down = {{100, 99}};
  EXPECT_EQ(c.validate(), "faults down[0] start=100 end=99 out of range (allowed 0 <= start <= end)");

  c = FaultConfig();
  c.pauses = {{0, 5, 1}, {0, 5, 2}, {9, 8, 0}};
  EXPECT_EQ(c.validate(), "faults pauses[2] start=9 end=8 out of range (allowed 0 <= start <= end)");
  c.pauses = {{0, 5, 32}};
  EXPECT_EQ(c.validate(), "faults pauses[0] cls=32 out of range (allowed 0..31)");
}

TEST(FaultsConfig, ValidateReportsTheFirstBadFieldOnOneLine) {
  FaultConfig c;
  c.drop_prob = 3;
  c.ber = -1;
  c.down = {{5, 1}};
  std::string m = c.validate();
  EXPECT_EQ(m, "faults ber=-1 out of range (allowed 0..1)");
  EXPECT_EQ(m.find('\n'), std::string::npos);
}

TEST(FaultsConfig, InjectorRejectsAnInvalidConfig) {
  FaultConfig c;
  c.drop_prob = 1.5;
  try {
    FaultInjector inj(c, 1, "x");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "faults drop_prob=1.5 out of range (allowed 0..1)");
  }
}

// ---------------------------------------------------------------- seeds and draw pattern

namespace {
FaultConfig noisy() {
  FaultConfig c;
  c.drop_prob = 0.05;
  c.ber = 1e-5;  // 100-byte frames: 0.8 % corrupted
  c.ctl_drop_prob = 0.05;
  c.ctl_corrupt_prob = 0.05;
  return c;
}
}  // namespace

TEST(FaultsSeed, SameSeedSameFaults) {
  FaultInjector a(noisy(), 42, "link0.fwd"), b(noisy(), 42, "link0.fwd");
  auto fa = run_frames(a, 5000), fb = run_frames(b, 5000);
  auto ca = run_ctl(a, 5000), cb = run_ctl(b, 5000);
  EXPECT_EQ(fa, fb);
  EXPECT_EQ(ca, cb);
  EXPECT_EQ(a.stats().frames_dropped, b.stats().frames_dropped);
  EXPECT_EQ(a.stats().frames_corrupted, b.stats().frames_corrupted);
  EXPECT_EQ(a.stats().ctl_dropped, b.stats().ctl_dropped);
  EXPECT_EQ(a.stats().ctl_corrupted, b.stats().ctl_corrupted);
  EXPECT_GT(a.stats().frames_dropped, 0u);
  EXPECT_GT(a.stats().frames_corrupted, 0u);
  EXPECT_GT(a.stats().ctl_dropped, 0u);
  EXPECT_GT(a.stats().ctl_corrupted, 0u);
}

TEST(FaultsSeed, DifferentSeedOrStreamDifferentFaults) {
  FaultInjector a(noisy(), 42, "link0.fwd"), b(noisy(), 43, "link0.fwd"), c(noisy(), 42, "link0.rev");
  auto fa = run_frames(a, 5000), fb = run_frames(b, 5000), fc = run_frames(c, 5000);
  EXPECT_NE(indices_of(fa, Verdict::drop), indices_of(fb, Verdict::drop));
  EXPECT_NE(indices_of(fa, Verdict::drop), indices_of(fc, Verdict::drop));
  EXPECT_NE(indices_of(fb, Verdict::drop), indices_of(fc, Verdict::drop));
  EXPECT_NE(run_ctl(a, 5000), run_ctl(b, 5000));
}

TEST(FaultsSeed, GoldenDropsOfSeed1) {
  // Pins the stream derivation and the draw pattern: a change here changes
  // every recorded run (the same seed must replay across versions).
  FaultConfig c;
  c.drop_prob = 0.1;
  FaultInjector inj(c, 1, "golden");
  auto d = indices_of(run_frames(inj, 100), Verdict::drop);
  EXPECT_EQ(d, (std::vector<uint64_t>{6, 9, 10, 34, 63}));
}

TEST(FaultsSeed, FramesDoNotDependOnInterleavedControlWords) {
  FaultInjector a(noisy(), 7, "s"), b(noisy(), 7, "s");
  std::vector<Verdict> fa, fb;
  for (int i = 0; i < 3000; ++i) {
    fa.push_back(a.on_frame(0, kFlight, frame(i)).verdict);
    fb.push_back(b.on_frame(0, kFlight, frame(i)).verdict);
    for (int k = 0; k < i % 4; ++k) b.on_ctl(0, kFlight, ctl(Ctl::Kind::credit));
  }
  EXPECT_EQ(fa, fb);
}

TEST(FaultsSeed, FixedDrawPatternIsolatesEachProbability) {
  // Same seed, only drop_prob changes: the corrupted frames among those kept
  // are the same, and the dropped set grows monotonically.
  FaultConfig lo = noisy(), hi = noisy(), none = noisy();
  hi.drop_prob = 0.2;
  none.drop_prob = 0;
  FaultInjector a(lo, 9, "s"), b(hi, 9, "s"), c(none, 9, "s");
  // Chosen indices do not consume or shift draws either.
  FaultConfig chosen = noisy();
  chosen.drop_frames = {1, 2, 3, 500};
  FaultInjector d(chosen, 9, "s");
  auto va = run_frames(a, 20000), vb = run_frames(b, 20000), vc = run_frames(c, 20000), vd = run_frames(d, 20000);
  size_t grown = 0;
  for (size_t i = 0; i < va.size(); ++i) {
    if (va[i] == Verdict::drop) {
      EXPECT_EQ(vb[i], Verdict::drop) << i;
    }
    if (vb[i] == Verdict::drop && va[i] != Verdict::drop) ++grown;
    if (va[i] != Verdict::drop) {
      EXPECT_EQ(vc[i], va[i]) << i;  // same bit-error outcome
    }
    if (vb[i] != Verdict::drop) {
      EXPECT_EQ(vc[i], vb[i]) << i;
    }
    if (i == 1 || i == 2 || i == 3 || i == 500) {
      EXPECT_EQ(vd[i], Verdict::drop);
    } else {
      EXPECT_EQ(vd[i], va[i]) << i;
    }
  }
  EXPECT_GT(grown, 1000u);  // ~15 % of 20000 more
  // Ctl: changing ctl_drop_prob leaves the corruption of the kept words alone.
  FaultConfig cl = noisy(), ch = noisy();
  ch.ctl_drop_prob = 0.3;
  FaultInjector e(cl, 9, "s"), f(ch, 9, "s");
  auto ce = run_ctl(e, 20000), cf = run_ctl(f, 20000);
  for (size_t i = 0; i < ce.size(); ++i) {
    if (ce[i] == Verdict::drop) {
      EXPECT_EQ(cf[i], Verdict::drop) << i;
    }
    if (cf[i] != Verdict::drop) {
      EXPECT_EQ(cf[i], ce[i]) << i;
    }
  }
}

// ---------------------------------------------------------------- frame drops

TEST(FaultsFrames, DropFramesExactIndices) {
  FaultConfig c;
  c.drop_frames = {7, 0, 3, 7};  // unsorted, duplicate
  FaultInjector inj(c, 1, "s");
  auto v = run_frames(inj, 12);
  EXPECT_EQ(indices_of(v, Verdict::drop), (std::vector<uint64_t>{0, 3, 7}));
  EXPECT_EQ(indices_of(v, Verdict::corrupt), std::vector<uint64_t>{});
  EXPECT_EQ(inj.stats().frames, 12u);
  EXPECT_EQ(inj.stats().frames_dropped, 3u);
  EXPECT_EQ(inj.stats().frames_corrupted, 0u);
  EXPECT_EQ(inj.stats().lost_link_down, 0u);
  EXPECT_EQ(inj.stats().ctl, 0u);
}

TEST(FaultsFrames, IndicesCountFramesOnlyNotControlWords) {
  FaultConfig c;
  c.drop_frames = {2};
  FaultInjector inj(c, 1, "s");
  EXPECT_EQ(inj.on_frame(0, 1, frame(0)).verdict, Verdict::pass);
  EXPECT_EQ(inj.on_ctl(0, 1, ctl(Ctl::Kind::ack)).verdict, Verdict::pass);
  EXPECT_EQ(inj.on_ctl(0, 1, ctl(Ctl::Kind::ack)).verdict, Verdict::pass);
  EXPECT_EQ(inj.on_frame(0, 1, frame(1)).verdict, Verdict::pass);
  EXPECT_EQ(inj.on_frame(0, 1, frame(2)).verdict, Verdict::drop);
  EXPECT_EQ(inj.on_frame(0, 1, frame(3)).verdict, Verdict::pass);
}

TEST(FaultsFrames, BurstsExact) {
  FaultConfig c;
  c.bursts = {{2, 3}, {10, 1}, {20, 0}, {12, 2}, {13, 2}};  // overlapping bursts merge
  FaultInjector inj(c, 1, "s");
  auto v = run_frames(inj, 25);
  EXPECT_EQ(indices_of(v, Verdict::drop), (std::vector<uint64_t>{2, 3, 4, 10, 12, 13, 14}));
  EXPECT_EQ(inj.stats().frames_dropped, 7u);
}

TEST(FaultsFrames, BurstToTheEndOfTime) {
  FaultConfig c;
  c.bursts = {{3, std::numeric_limits<uint64_t>::max()}};
  FaultInjector inj(c, 1, "s");
  auto v = run_frames(inj, 10);
  EXPECT_EQ(indices_of(v, Verdict::drop), (std::vector<uint64_t>{3, 4, 5, 6, 7, 8, 9}));
}

TEST(FaultsFrames, DropProbStatistics) {
  FaultConfig c;
  c.drop_prob = 0.1;
  FaultInjector inj(c, 2024, "stat");
  const int n = 100000;
  auto v = run_frames(inj, n);
  const double frac = static_cast<double>(indices_of(v, Verdict::drop).size()) / n;
  // sigma = sqrt(0.1 * 0.9 / 1e5) = 0.00095: 5 sigma.
  EXPECT_NEAR(frac, 0.1, 0.0048);
  EXPECT_EQ(inj.stats().frames, static_cast<uint64_t>(n));
  EXPECT_EQ(inj.stats().frames_dropped, indices_of(v, Verdict::drop).size());
  EXPECT_EQ(inj.stats().frames_corrupted, 0u);
}

TEST(FaultsFrames, DropProbExtremes) {
  FaultConfig c;
  c.drop_prob = 1;
  FaultInjector all(c, 1, "s");
  EXPECT_EQ(indices_of(run_frames(all, 1000), Verdict::drop).size(), 1000u);
  c.drop_prob = 0;
  FaultInjector none(c, 1, "s");
  EXPECT_EQ(indices_of(run_frames(none, 1000), Verdict::pass).size(), 1000u);
}

// ---------------------------------------------------------------- bit errors

TEST(FaultsBer, FrameCorruptionMatchesLength) {
  const int n = 100000;
  const double ber = 1e-5;
  for (uint32_t len : {64u, 1000u, 9000u}) {
    FaultConfig c;
    c.ber = ber;
    FaultInjector inj(c, 5, "ber");
    auto v = run_frames(inj, n, len);
    const double expect = 1.0 - std::pow(1.0 - ber, 8.0 * len);  // 0.0051, 0.0769, 0.5132
    const double frac = static_cast<double>(indices_of(v, Verdict::corrupt).size()) / n;
    const double sigma = std::sqrt(expect * (1 - expect) / n);
    EXPECT_NEAR(frac, expect, 5 * sigma) << "len " << len;
    EXPECT_EQ(inj.stats().frames_corrupted, indices_of(v, Verdict::corrupt).size());
    EXPECT_EQ(inj.stats().frames_dropped, 0u);
  }
}

TEST(FaultsBer, Extremes) {
  FaultConfig c;
  c.ber = 1;
  FaultInjector inj(c, 1, "s");
  EXPECT_EQ(indices_of(run_frames(inj, 100, 1), Verdict::corrupt).size(), 100u);
  EXPECT_EQ(indices_of(run_frames(inj, 100, 0), Verdict::pass).size(), 100u);  // no payload, no bit to flip
  EXPECT_EQ(indices_of(run_ctl(inj, 100), Verdict::corrupt).size(), 100u);
  EXPECT_EQ(inj.stats().frames_corrupted, 100u);
  EXPECT_EQ(inj.stats().ctl_corrupted, 100u);
  c.ber = 0;
  FaultInjector clean(c, 1, "s");
  EXPECT_EQ(indices_of(run_frames(clean, 100, 9000), Verdict::pass).size(), 100u);
  EXPECT_EQ(indices_of(run_ctl(clean, 100), Verdict::pass).size(), 100u);
}

TEST(FaultsBer, ControlWordIs64Bits) {
  FaultConfig c;
  c.ber = 1e-3;
  FaultInjector inj(c, 11, "ctl");
  const int n = 100000;
  auto v = run_ctl(inj, n);
  const double expect = 1.0 - std::pow(1.0 - 1e-3, 64);  // 0.0620
  const double frac = static_cast<double>(indices_of(v, Verdict::corrupt).size()) / n;
  EXPECT_NEAR(frac, expect, 5 * std::sqrt(expect * (1 - expect) / n));
  EXPECT_EQ(inj.stats().ctl, static_cast<uint64_t>(n));
  EXPECT_EQ(inj.stats().ctl_corrupted, indices_of(v, Verdict::corrupt).size());
}

TEST(FaultsFrames, OrderOfChecks) {
  // Chosen index beats bit errors; random drop beats bit errors; down beats a chosen index.
  FaultConfig c;
  c.ber = 1;
  c.drop_frames = {0};
  c.down = {{1000, 2000}};
  FaultInjector inj(c, 1, "s");
  EXPECT_EQ(inj.on_frame(1000, 1000 + kFlight, frame(0)).verdict, Verdict::drop);  // down and chosen
  EXPECT_EQ(inj.on_frame(0, kFlight, frame(1)).verdict, Verdict::corrupt);
  EXPECT_EQ(inj.stats().lost_link_down, 1u);
  EXPECT_EQ(inj.stats().frames_dropped, 1u);
  EXPECT_EQ(inj.stats().frames_corrupted, 1u);
  c = FaultConfig();
  c.ber = 1;
  c.drop_prob = 1;
  FaultInjector r(c, 1, "s");
  EXPECT_EQ(indices_of(run_frames(r, 50), Verdict::drop).size(), 50u);
  EXPECT_EQ(r.stats().frames_corrupted, 0u);
}

// ---------------------------------------------------------------- control words

TEST(FaultsCtl, WindowDropsOnlyTheChosenKindInTheWindow) {
  FaultConfig c;
  c.ctl_windows = {{1000, 2000, static_cast<int>(Ctl::Kind::ack), true, 0}};
  FaultInjector inj(c, 1, "s");
  auto at = [&](Ps t, Ctl::Kind k) { return inj.on_ctl(t, t + kFlight, ctl(k)).verdict; };
  EXPECT_EQ(at(999, Ctl::Kind::ack), Verdict::pass);
  EXPECT_EQ(at(1000, Ctl::Kind::ack), Verdict::drop);
  EXPECT_EQ(at(1500, Ctl::Kind::nack), Verdict::pass);
  EXPECT_EQ(at(1500, Ctl::Kind::credit), Verdict::pass);
  EXPECT_EQ(at(1500, Ctl::Kind::init), Verdict::pass);
  EXPECT_EQ(at(1999, Ctl::Kind::ack), Verdict::drop);
  EXPECT_EQ(at(2000, Ctl::Kind::ack), Verdict::pass);
  // Frames are not control words.
  EXPECT_EQ(inj.on_frame(1500, 1500 + kFlight, frame(1)).verdict, Verdict::pass);
  EXPECT_EQ(inj.stats().ctl, 7u);
  EXPECT_EQ(inj.stats().ctl_dropped, 2u);
  EXPECT_EQ(inj.stats().frames_dropped, 0u);
}

TEST(FaultsCtl, WindowOfAnyKindAndFirstMatchWins) {
  FaultConfig c;
  c.ctl_windows = {{0, 100, static_cast<int>(Ctl::Kind::nack), false, 500},  // nacks delayed
                   {0, 100, -1, true, 0}};                                    // everything else dropped
  FaultInjector inj(c, 1, "s");
  auto d = inj.on_ctl(50, 50 + kFlight, ctl(Ctl::Kind::nack));
  EXPECT_EQ(d.verdict, Verdict::pass);
  EXPECT_EQ(d.extra_delay, 500);
  for (auto k : {Ctl::Kind::credit, Ctl::Kind::ack, Ctl::Kind::init, Ctl::Kind::init_echo, Ctl::Kind::pause}) {
    d = inj.on_ctl(50, 50 + kFlight, ctl(k));
    EXPECT_EQ(d.verdict, Verdict::drop);
    EXPECT_EQ(d.extra_delay, 0);
  }
  d = inj.on_ctl(100, 100 + kFlight, ctl(Ctl::Kind::nack));
  EXPECT_EQ(d.verdict, Verdict::pass);
  EXPECT_EQ(d.extra_delay, 0);
  EXPECT_EQ(inj.stats().ctl, 7u);
  EXPECT_EQ(inj.stats().ctl_dropped, 5u);
  EXPECT_EQ(inj.stats().ctl_delayed, 1u);
}

TEST(FaultsCtl, RandomDropBeatsCorrupt) {
  FaultConfig c;
  c.ctl_drop_prob = 1;
  c.ctl_corrupt_prob = 1;
  FaultInjector inj(c, 1, "s");
  EXPECT_EQ(indices_of(run_ctl(inj, 20), Verdict::drop).size(), 20u);
  c.ctl_drop_prob = 0;
  FaultInjector cor(c, 1, "s");
  EXPECT_EQ(indices_of(run_ctl(cor, 20), Verdict::corrupt).size(), 20u);
  EXPECT_EQ(cor.stats().ctl_corrupted, 20u);
  EXPECT_EQ(cor.stats().ctl_dropped, 0u);
  // Frames are untouched by the control-word probabilities.
  EXPECT_EQ(indices_of(run_frames(cor, 20), Verdict::pass).size(), 20u);
}

TEST(FaultsCtl, ProbabilityStatistics) {
  FaultConfig c;
  c.ctl_drop_prob = 0.2;
  c.ctl_corrupt_prob = 0.1;
  FaultInjector inj(c, 3, "s");
  const int n = 100000;
  auto v = run_ctl(inj, n);
  const double drop = static_cast<double>(indices_of(v, Verdict::drop).size()) / n;
  const double cor = static_cast<double>(indices_of(v, Verdict::corrupt).size()) / n;
  EXPECT_NEAR(drop, 0.2, 5 * std::sqrt(0.2 * 0.8 / n));
  EXPECT_NEAR(cor, 0.8 * 0.1, 5 * std::sqrt(0.08 * 0.92 / n));  // corrupt only when not dropped
}

TEST(FaultsChannel, CtlDelayReordersArrivals) {
  FaultConfig c;
  c.ctl_windows = {{0, 100, static_cast<int>(Ctl::Kind::ack), false, 5000}};
  FaultInjector inj(c, 1, "s");
  Channel ch{Params()};
  ch.attach(&inj);
  EXPECT_EQ(ch.send(0, ctl(Ctl::Kind::ack, 1)), 80);           // arrives 80 + 69200 + 5000 = 74280
  EXPECT_EQ(ch.send(0, frame(2)), 1280);                       // arrives 70480
  EXPECT_EQ(ch.send(0, ctl(Ctl::Kind::credit, 3)), 1360);      // arrives 70560
  EXPECT_EQ(ch.send(0, ctl(Ctl::Kind::ack, 4)), 1440);         // started at 1360: not delayed, 70640
  EXPECT_EQ(ch.in_flight(), 4u);
  EXPECT_EQ(ch.next_arrival(), 70480);
  EXPECT_EQ(drain(ch, 70479), std::vector<uint64_t>{});
  EXPECT_EQ(drain(ch, 70560), (std::vector<uint64_t>{2, 1003}));
  EXPECT_EQ(ch.next_arrival(), 70640);
  EXPECT_EQ(drain(ch, 74279), std::vector<uint64_t>{1004});
  EXPECT_EQ(ch.next_arrival(), 74280);
  EXPECT_EQ(drain(ch, 74280), std::vector<uint64_t>{1001});
  EXPECT_EQ(ch.next_arrival(), -1);
  EXPECT_EQ(inj.stats().ctl_delayed, 1u);
  EXPECT_EQ(inj.stats().ctl, 3u);
  EXPECT_EQ(inj.stats().frames, 1u);
}

TEST(FaultsChannel, EqualArrivalTimesLeaveInSendOrder) {
  FaultConfig c;
  c.ctl_windows = {{0, 1, -1, false, 1200}};  // the first ctl word lands exactly with the frame after it
  FaultInjector inj(c, 1, "s");
  Channel ch{Params()};
  ch.attach(&inj);
  ch.send(0, ctl(Ctl::Kind::credit, 1));  // ends 80, arrives 80 + 69200 + 1200 = 70480
  ch.send(0, frame(2));                   // ends 1280, arrives 70480
  ch.send(0, frame(3, 0));                // ends 1480, arrives 70680
  EXPECT_EQ(ch.next_arrival(), 70480);
  EXPECT_EQ(drain(ch, 70480), (std::vector<uint64_t>{1001, 2}));
  EXPECT_EQ(drain(ch, 100000), std::vector<uint64_t>{3});
}

// ---------------------------------------------------------------- link down

TEST(FaultsDown, LosesItemsStartingOrArrivingInTheWindowAndNothingElse) {
  FaultConfig c;
  c.down = {{80000, 90000}};
  FaultInjector inj(c, 1, "s");
  Channel ch{Params()};
  ch.attach(&inj);
  // 100 frames back to back: frame k starts at 1200k and arrives at 1200k + 70400.
  for (uint64_t k = 0; k < 100; ++k) ch.send(0, frame(k));
  // Lost: arriving in [80000, 90000) <=> 9600 <= 1200k < 19600 <=> k = 8..16;
  // starting in [80000, 90000) <=> k = 67..74.
  std::vector<uint64_t> expect;
  for (uint64_t k = 0; k < 100; ++k)
    if (!(k >= 8 && k <= 16) && !(k >= 67 && k <= 74)) expect.push_back(k);
  EXPECT_EQ(drain(ch, 1000000), expect);
  EXPECT_EQ(inj.stats().frames, 100u);
  EXPECT_EQ(inj.stats().frames_dropped, 17u);
  EXPECT_EQ(inj.stats().lost_link_down, 17u);
  EXPECT_EQ(inj.stats().frames_corrupted, 0u);
  EXPECT_EQ(ch.frames_sent(), 100u);
  EXPECT_EQ(ch.busy_time(), 100 * 1200);
}

TEST(FaultsDown, ControlWordsAndBoundaries) {
  FaultConfig c;
  c.down = {{80000, 90000}};
  c.ctl_windows = {{0, 1000, -1, false, 15000}};
  FaultInjector inj(c, 1, "s");
  auto v = [&](Ps s, Ps a) { return inj.on_ctl(s, a, ctl(Ctl::Kind::credit)).verdict; };
  EXPECT_EQ(v(500, 70000), Verdict::drop);               // delayed by 15000 to 85000, into the window: lost
  EXPECT_EQ(v(999, 60000), Verdict::pass);               // delayed to 75000: arrives
  EXPECT_EQ(v(5000, 79999), Verdict::pass);
  EXPECT_EQ(v(5000, 80000), Verdict::drop);
  EXPECT_EQ(v(5000, 89999), Verdict::drop);
  EXPECT_EQ(v(5000, 90000), Verdict::pass);
  EXPECT_EQ(v(79999, 79999 + kFlight), Verdict::pass);
  EXPECT_EQ(v(80000, 80000 + kFlight), Verdict::drop);
  EXPECT_EQ(v(89999, 89999 + kFlight), Verdict::drop);
  EXPECT_EQ(v(90000, 90000 + kFlight), Verdict::pass);
  EXPECT_EQ(v(70000, 99000), Verdict::pass);             // in flight across the window: not lost
  EXPECT_EQ(inj.stats().ctl, 11u);
  EXPECT_EQ(inj.stats().ctl_dropped, 5u);
  EXPECT_EQ(inj.stats().lost_link_down, 5u);
  EXPECT_EQ(inj.stats().ctl_delayed, 1u);  // the lost delayed word counts as dropped only
  EXPECT_TRUE(inj.link_down(80000));
  EXPECT_TRUE(inj.link_down(89999));
  EXPECT_FALSE(inj.link_down(79999));
  EXPECT_FALSE(inj.link_down(90000));
}

// ---------------------------------------------------------------- pause

TEST(FaultsPause, PausedMask) {
  FaultConfig c;
  c.pauses = {{100, 200, 3}, {150, 300, 0}, {250, 250, 5}, {0, 50, 31}, {120, 130, 3}};
  FaultInjector inj(c, 1, "s");
  EXPECT_EQ(inj.paused_mask(0), 0x80000000u);
  EXPECT_EQ(inj.paused_mask(49), 0x80000000u);
  EXPECT_EQ(inj.paused_mask(50), 0u);
  EXPECT_EQ(inj.paused_mask(99), 0u);
  EXPECT_EQ(inj.paused_mask(100), 0x8u);
  EXPECT_EQ(inj.paused_mask(125), 0x8u);
  EXPECT_EQ(inj.paused_mask(150), 0x9u);
  EXPECT_EQ(inj.paused_mask(199), 0x9u);
  EXPECT_EQ(inj.paused_mask(200), 0x1u);
  EXPECT_EQ(inj.paused_mask(250), 0x1u);  // the empty window of class 5 never pauses
  EXPECT_EQ(inj.paused_mask(299), 0x1u);
  EXPECT_EQ(inj.paused_mask(300), 0u);
  // Pauses are not faults on items.
  EXPECT_EQ(inj.on_frame(150, 150 + kFlight, frame(1)).verdict, Verdict::pass);
  EXPECT_EQ(inj.on_ctl(150, 150 + kFlight, ctl(Ctl::Kind::pause)).verdict, Verdict::pass);
}

// ---------------------------------------------------------------- channel

TEST(FaultsChannel, DroppedFramesStillChargeWireTime) {
  FaultConfig c;
  c.drop_frames = {0, 1};
  FaultInjector inj(c, 1, "s");
  Channel ch{Params()};
  ch.attach(&inj);
  EXPECT_EQ(ch.faults(), &inj);
  EXPECT_EQ(ch.send(0, frame(1)), 1200);
  EXPECT_EQ(ch.send(0, frame(2)), 2400);
  EXPECT_FALSE(ch.idle(2399));
  EXPECT_EQ(ch.send(0, frame(3)), 3600);
  EXPECT_EQ(ch.wire_free_at(), 3600);
  EXPECT_EQ(ch.busy_time(), 3600);
  EXPECT_EQ(ch.bytes_sent(), 360u);
  EXPECT_EQ(ch.frames_sent(), 3u);
  EXPECT_EQ(ch.in_flight(), 1u);
  EXPECT_EQ(ch.next_arrival(), 3600 + kFlight);
  EXPECT_EQ(drain(ch, 3600 + kFlight), std::vector<uint64_t>{3});
  EXPECT_EQ(inj.stats().frames, 3u);
  EXPECT_EQ(inj.stats().frames_dropped, 2u);
}

TEST(FaultsChannel, CorruptedItemsArriveWithOkFalseAndReadablePreamble) {
  FaultConfig c;
  c.ber = 1;
  FaultInjector inj(c, 1, "s");
  Channel ch{Params()};
  ch.attach(&inj);
  Frame f = frame(5, 64);
  f.seq = 1234;
  f.eligible = true;
  f.replay = true;
  f.cls = 2;
  ch.send(0, f);
  ch.send(0, frame(6, 0));  // no payload bits: not corrupted
  ch.send(0, ctl(Ctl::Kind::nack, 77));
  Item it;
  ASSERT_TRUE(ch.receive(1000000, it));
  const Frame& g = std::get<Frame>(it);
  EXPECT_FALSE(g.ok);
  EXPECT_EQ(g.id, 5u);
  EXPECT_EQ(g.seq, 1234u);
  EXPECT_TRUE(g.eligible);
  EXPECT_TRUE(g.replay);
  EXPECT_EQ(g.cls, 2u);
  EXPECT_EQ(g.len, 64u);
  EXPECT_EQ(g.digest, 0x1005u);
  ASSERT_TRUE(ch.receive(1000000, it));
  EXPECT_TRUE(std::get<Frame>(it).ok);
  ASSERT_TRUE(ch.receive(1000000, it));
  EXPECT_FALSE(std::get<Ctl>(it).ok);
  EXPECT_EQ(std::get<Ctl>(it).kind, Ctl::Kind::nack);
  EXPECT_EQ(std::get<Ctl>(it).value, 77u);
  EXPECT_FALSE(ch.receive(1000000, it));
}

TEST(FaultsChannel, NewFieldDefaultsAndNoInjector) {
  Frame f;
  EXPECT_EQ(f.seq, 0u);
  EXPECT_FALSE(f.eligible);
  EXPECT_FALSE(f.replay);
  EXPECT_TRUE(f.ok);
  Ctl c{Ctl::Kind::credit, 1, 2};  // aggregate initialisation as the CBFC testbench does
  EXPECT_TRUE(c.ok);

  Channel ch{Params()};
  EXPECT_EQ(ch.faults(), nullptr);
  ch.send(0, frame(1));
  Item it;
  ASSERT_TRUE(ch.receive(1200 + kFlight, it));
  EXPECT_TRUE(std::get<Frame>(it).ok);
}

TEST(FaultsChannel, AttachDetachCopyAndReassign) {
  FaultConfig c;
  c.drop_prob = 1;
  FaultInjector inj(c, 1, "s");
  Params p;
  Channel ch(p);
  ch.attach(&inj);
  ch.send(0, frame(1));
  Channel copy = ch;  // shares the injector
  copy.send(0, frame(2));
  EXPECT_EQ(copy.faults(), &inj);
  EXPECT_EQ(inj.stats().frames, 2u);
  EXPECT_EQ(copy.in_flight(), 0u);
  ch.attach(nullptr);
  ch.send(0, frame(3));
  EXPECT_EQ(drain(ch, 1000000), std::vector<uint64_t>{3});
  EXPECT_EQ(inj.stats().frames, 2u);
  copy = Channel(p);  // as the CBFC testbench resets its channels
  EXPECT_EQ(copy.faults(), nullptr);
  EXPECT_EQ(copy.frames_sent(), 0u);
  copy.send(0, frame(4));
  EXPECT_EQ(drain(copy, 1000000), std::vector<uint64_t>{4});
}

TEST(FaultsChannel, DelayedItemsOfADetachedInjectorStayOrdered) {
  FaultConfig c;
  c.ctl_windows = {{0, 100, -1, false, 10000}};
  FaultInjector inj(c, 1, "s");
  Channel ch{Params()};
  ch.attach(&inj);
  ch.send(0, ctl(Ctl::Kind::ack, 1));  // arrives 80 + 69200 + 10000 = 79280
  ch.attach(nullptr);
  ch.send(0, frame(2));                // arrives 70480
  EXPECT_EQ(ch.next_arrival(), 70480);
  EXPECT_EQ(drain(ch, 1000000), (std::vector<uint64_t>{2, 1001}));
}

TEST(FaultsStats, ExactCountersInADeterministicScenario) {
  FaultConfig c;
  c.drop_frames = {1};
  c.bursts = {{3, 2}};
  c.down = {{200000, 210000}};
  c.ctl_windows = {{0, 10000, static_cast<int>(Ctl::Kind::credit), true, 0},
                   {0, 10000, static_cast<int>(Ctl::Kind::ack), false, 3000}};
  FaultInjector inj(c, 99, "s");
  Channel ch{Params()};
  ch.attach(&inj);
  // Frames 0..5 at t = 0 (each 1200 ps), 2 credits and 2 acks at t = 0;
  // then one frame and one ack starting in the down window.
  for (uint64_t k = 0; k < 6; ++k) ch.send(0, frame(k));  // 0, 2, 5 arrive
  ch.send(0, ctl(Ctl::Kind::credit, 1));                  // dropped
  ch.send(0, ctl(Ctl::Kind::ack, 2));                     // delayed
  ch.send(0, ctl(Ctl::Kind::credit, 3));                  // dropped
  ch.send(0, ctl(Ctl::Kind::ack, 4));                     // delayed
  ch.send(0, ctl(Ctl::Kind::nack, 5));                    // passes
  ch.send(205000, frame(6));                              // down
  ch.send(205000, ctl(Ctl::Kind::ack, 7));                // down
  ch.send(300000, frame(7));                              // passes
  const auto& s = inj.stats();
  EXPECT_EQ(s.frames, 8u);
  EXPECT_EQ(s.frames_dropped, 4u);  // 1, 3, 4, 6
  EXPECT_EQ(s.frames_corrupted, 0u);
  EXPECT_EQ(s.ctl, 6u);
  EXPECT_EQ(s.ctl_dropped, 3u);     // credits 1 and 3, ack 7
  EXPECT_EQ(s.ctl_corrupted, 0u);
  EXPECT_EQ(s.ctl_delayed, 2u);
  EXPECT_EQ(s.lost_link_down, 2u);  // frame 6, ack 7
  // Frames end at 1200..7200; ctl words at 7280..7600. Arrivals: frame 0 70400,
  // frame 2 72800, frame 5 76400, nack 76800, ack 2 76560+3000, ack 4 76720+3000.
  EXPECT_EQ(drain(ch, 1000000), (std::vector<uint64_t>{0, 2, 5, 1005, 1002, 1004, 7}));
  EXPECT_EQ(ch.frames_sent(), 8u);
  EXPECT_EQ(ch.ctl_sent(), 6u);
  EXPECT_EQ(inj.config().drop_frames, std::vector<uint64_t>{1});
}

// ---------------------------------------------------------------- frame error rate

TEST(FaultsFer, EveryLengthFailsAtTheRateAndZeroChangesNothing) {
  FaultConfig c;
  c.fer = 1.5;
  EXPECT_EQ(c.validate(), "faults fer=1.5 out of range (allowed 0..1)");
  c.fer = 0.01;
  EXPECT_TRUE(c.any());
  // the rate does not depend on the length: 64 B and 4000 B frames fail alike (20,000 draws: 1 % +- 0.25 %)
  for (uint32_t len : {64u, 4000u}) {
    FaultInjector inj(c, 3, "fer");
    const auto v = run_frames(inj, 20000, len);
    const double rate = static_cast<double>(indices_of(v, Verdict::corrupt).size()) / 20000.0;
    EXPECT_NEAR(rate, 0.01, 0.0025) << len;
    EXPECT_TRUE(indices_of(v, Verdict::drop).empty());
  }
  // fer uses the bit-error draw: with fer = 0 every outcome is the one of before; raising fer only adds
  // corrupted frames (monotone), and with ber too the corrupted set contains the ber-only one
  FaultConfig base = noisy(), more = noisy();
  more.fer = 0.02;
  FaultInjector a(base, 9, "s"), b(more, 9, "s");
  const auto va = run_frames(a, 5000), vb = run_frames(b, 5000);
  EXPECT_EQ(indices_of(va, Verdict::drop), indices_of(vb, Verdict::drop));
  const auto ca = indices_of(va, Verdict::corrupt), cb = indices_of(vb, Verdict::corrupt);
  for (uint64_t i : ca) EXPECT_TRUE(std::find(cb.begin(), cb.end(), i) != cb.end()) << i;
  EXPECT_GT(cb.size(), ca.size() + 50);
  FaultConfig all;
  all.fer = 1;
  FaultInjector d(all, 1, "one");
  EXPECT_EQ(indices_of(run_frames(d, 10, 0), Verdict::corrupt).size(), 10u);  // even a 0-byte frame
}
