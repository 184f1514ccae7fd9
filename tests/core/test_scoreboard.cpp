// Unit tests of core::Scoreboard: end-to-end loss / duplication / corruption / order checks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/scoreboard.hpp"

using core::Scoreboard;

namespace {

void expect_counts(const Scoreboard::Counts& c, uint64_t expected, uint64_t matched, uint64_t lost,
                   uint64_t duplicated, uint64_t corrupted, uint64_t reordered, uint64_t unexpected,
                   uint64_t discarded) {
  EXPECT_EQ(c.expected, expected);
  EXPECT_EQ(c.matched, matched);
  EXPECT_EQ(c.lost, lost);
  EXPECT_EQ(c.duplicated, duplicated);
  EXPECT_EQ(c.corrupted, corrupted);
  EXPECT_EQ(c.reordered, reordered);
  EXPECT_EQ(c.unexpected, unexpected);
  EXPECT_EQ(c.discarded, discarded);
}

}  // namespace

TEST(Scoreboard, CleanInOrderRun) {
  Scoreboard sb("sb");
  EXPECT_EQ(sb.name(), "sb");
  sb.expect(0, 1, 0xa, 1000);
  sb.expect(0, 2, 0xb, 2000);
  sb.expect(1, 1, 0xc, 1500);  // same id, other flow: independent
  EXPECT_EQ(sb.outstanding(), 3u);
  sb.observe(1, 1, 0xc, 4000);  // flows interleave freely
  sb.observe(0, 1, 0xa, 3000);
  sb.observe(0, 2, 0xb, 6500);
  EXPECT_EQ(sb.outstanding(), 0u);
  const auto& c = sb.finish();
  expect_counts(c, 3, 3, 0, 0, 0, 0, 0, 0);
  EXPECT_TRUE(c.clean());
  EXPECT_TRUE(sb.errors().empty());
  EXPECT_EQ(&c, &sb.counts());
}

TEST(Scoreboard, LatencySamplesInNs) {
  Scoreboard sb("sb");
  sb.expect(0, 1, 0xa, 1000);
  sb.expect(0, 2, 0xb, 2000);
  sb.expect(1, 1, 0xc, 1500);
  sb.observe(1, 1, 0xc, 4000);  // 2.5 ns
  sb.observe(0, 1, 0xa, 3000);  // 2.0 ns
  sb.observe(0, 2, 0xb, 6500);  // 4.5 ns
  const auto& lat = sb.latency_ns();
  ASSERT_EQ(lat.count(), 3u);
  EXPECT_DOUBLE_EQ(lat.min(), 2.0);
  EXPECT_DOUBLE_EQ(lat.max(), 4.5);
  EXPECT_DOUBLE_EQ(lat.mean(), 3.0);
  EXPECT_DOUBLE_EQ(lat.percentile(50), 2.5);
  EXPECT_DOUBLE_EQ(lat.percentile(100), 4.5);
}

TEST(Scoreboard, LatencyHasPsResolution) {
  Scoreboard sb("sb");
  sb.expect(3, 7, 1, 10);
  sb.observe(3, 7, 1, 1244);  // 1234 ps
  ASSERT_EQ(sb.latency_ns().count(), 1u);
  EXPECT_DOUBLE_EQ(sb.latency_ns().max(), 1.234);
}

TEST(Scoreboard, LostAtFinishAndFinishIsIdempotent) {
  Scoreboard sb("sb");
  sb.expect(7, 10, 1, 0);
  sb.expect(7, 11, 2, 0);
  sb.expect(7, 12, 3, 0);
  sb.observe(7, 10, 1, 1000);
  EXPECT_EQ(sb.outstanding(), 2u);
  EXPECT_EQ(sb.counts().lost, 0u);  // not lost until the end
  EXPECT_TRUE(sb.counts().clean());
  const auto& c = sb.finish();
  expect_counts(c, 3, 1, 2, 0, 0, 0, 0, 0);
  EXPECT_FALSE(c.clean());
  ASSERT_EQ(sb.errors().size(), 1u);
  EXPECT_EQ(sb.errors()[0], "sb: flow 7: 2 never delivered (first id 11)");
  // Again: nothing is counted twice.
  const auto& c2 = sb.finish();
  EXPECT_EQ(c2.lost, 2u);
  EXPECT_EQ(sb.errors().size(), 1u);
}

TEST(Scoreboard, LostOnSeveralFlows) {
  Scoreboard sb("net");
  sb.expect(2, 5, 0, 0);
  sb.expect(1, 8, 0, 0);
  sb.expect(1, 9, 0, 0);
  sb.finish();
  EXPECT_EQ(sb.counts().lost, 3u);
  ASSERT_EQ(sb.errors().size(), 2u);  // one line per flow, flows in ascending order
  EXPECT_EQ(sb.errors()[0], "net: flow 1: 2 never delivered (first id 8)");
  EXPECT_EQ(sb.errors()[1], "net: flow 2: 1 never delivered (first id 5)");
}

TEST(Scoreboard, Duplicate) {
  Scoreboard sb("sb");
  sb.expect(0, 1, 0x11, 0);
  sb.expect(0, 2, 0x22, 0);
  sb.observe(0, 1, 0x11, 1000);
  sb.observe(0, 1, 0x11, 3000);
  EXPECT_EQ(sb.counts().duplicated, 1u);
  ASSERT_EQ(sb.errors().size(), 1u);
  EXPECT_EQ(sb.errors()[0], "sb: flow 0 id 1 at 3 ns delivered twice");
  sb.observe(0, 2, 0x22, 4000);
  sb.observe(0, 2, 0x22, 4500);  // duplicate of the last one too
  expect_counts(sb.finish(), 2, 2, 0, 2, 0, 0, 0, 0);
  EXPECT_EQ(sb.errors()[1], "sb: flow 0 id 2 at 4.500 ns delivered twice");
  EXPECT_EQ(sb.latency_ns().count(), 2u);  // duplicates add no latency sample
}

TEST(Scoreboard, Corruption) {
  Scoreboard sb("sb");
  sb.expect(0, 1, 0x1234, 0);
  sb.expect(0, 2, 0xbeef, 0);
  sb.observe(0, 1, 0x1235, 1000);
  EXPECT_EQ(sb.counts().corrupted, 1u);
  EXPECT_EQ(sb.counts().matched, 0u);
  EXPECT_EQ(sb.outstanding(), 1u);  // the corrupted one is consumed
  ASSERT_EQ(sb.errors().size(), 1u);
  EXPECT_EQ(sb.errors()[0],
            "sb: flow 0 id 1 at 1 ns corrupted: digest 0x0000000000001235, expected 0x0000000000001234");
  sb.observe(0, 2, 0xbeef, 2000);
  const auto& c = sb.finish();
  expect_counts(c, 2, 1, 0, 0, 1, 0, 0, 0);
  EXPECT_FALSE(c.clean());
  EXPECT_EQ(sb.latency_ns().count(), 1u);  // only the intact one
  EXPECT_DOUBLE_EQ(sb.latency_ns().max(), 2.0);
}

TEST(Scoreboard, Reorder) {
  Scoreboard sb("sb");
  sb.expect(0, 1, 1, 0);
  sb.expect(0, 2, 2, 0);
  sb.expect(0, 3, 3, 0);
  sb.observe(0, 2, 2, 5000);  // ahead of id 1
  EXPECT_EQ(sb.counts().reordered, 1u);
  ASSERT_EQ(sb.errors().size(), 1u);
  EXPECT_EQ(sb.errors()[0], "sb: flow 0 id 2 at 5 ns delivered before id 1");
  EXPECT_EQ(sb.outstanding(), 2u);
  sb.observe(0, 1, 1, 6000);
  sb.observe(0, 3, 3, 7000);
  const auto& c = sb.finish();
  expect_counts(c, 3, 2, 0, 0, 0, 1, 0, 0);
  EXPECT_FALSE(c.clean());
  EXPECT_EQ(sb.errors().size(), 1u);
}

TEST(Scoreboard, OrderIsPerFlow) {
  Scoreboard sb("sb");
  sb.expect(0, 1, 1, 0);
  sb.expect(1, 2, 2, 0);
  sb.observe(1, 2, 2, 100);  // other flow: not a reorder
  sb.observe(0, 1, 1, 200);
  EXPECT_TRUE(sb.finish().clean());
  EXPECT_EQ(sb.counts().matched, 2u);
}

TEST(Scoreboard, Unexpected) {
  Scoreboard sb("sb");
  sb.observe(5, 9, 0, 2000);  // flow never used
  EXPECT_EQ(sb.counts().unexpected, 1u);
  ASSERT_EQ(sb.errors().size(), 1u);
  EXPECT_EQ(sb.errors()[0], "sb: flow 5 id 9 at 2 ns was never sent");
  sb.expect(0, 1, 1, 0);
  sb.observe(0, 1, 1, 1000);
  sb.observe(0, 42, 1, 1500);  // known flow, id never registered
  EXPECT_EQ(sb.counts().unexpected, 2u);
  EXPECT_EQ(sb.errors()[1], "sb: flow 0 id 42 at 1.500 ns was never sent");
  const auto& c = sb.finish();
  expect_counts(c, 1, 1, 0, 0, 0, 0, 2, 0);
  EXPECT_FALSE(c.clean());
}

TEST(Scoreboard, DiscardCountedApartNotLost) {
  Scoreboard sb("sb");
  sb.expect(0, 1, 1, 0);
  sb.expect(0, 2, 2, 0);
  sb.expect(0, 3, 3, 0);
  sb.expect(0, 4, 4, 0);
  sb.discard(0, 2);
  EXPECT_EQ(sb.counts().discarded, 1u);
  EXPECT_EQ(sb.outstanding(), 3u);
  sb.observe(0, 1, 1, 100);
  sb.observe(0, 3, 3, 200);  // 2 was discarded: 3 is next, not a reorder
  sb.discard(0, 4);          // e.g. flushed at the end
  const auto& c = sb.finish();
  expect_counts(c, 4, 2, 0, 0, 0, 0, 0, 2);
  EXPECT_TRUE(c.clean());
  EXPECT_TRUE(sb.errors().empty());
}

TEST(Scoreboard, DiscardOfUnknownIsIgnored) {
  Scoreboard sb("sb");
  sb.discard(9, 1);  // unknown flow
  sb.expect(0, 1, 1, 0);
  sb.expect(0, 2, 2, 0);
  sb.discard(0, 77);  // unknown id
  EXPECT_EQ(sb.counts().discarded, 0u);
  sb.discard(0, 1);
  sb.discard(0, 1);  // already gone
  EXPECT_EQ(sb.counts().discarded, 1u);
  const auto& c = sb.finish();
  expect_counts(c, 2, 0, 1, 0, 0, 0, 0, 1);  // id 2 is lost, id 1 is not
  ASSERT_EQ(sb.errors().size(), 1u);
  EXPECT_EQ(sb.errors()[0], "sb: flow 0: 1 never delivered (first id 2)");
}

TEST(Scoreboard, UnorderedAcceptsAnyOrder) {
  Scoreboard sb("u", false);
  sb.expect(0, 1, 0x1, 0);
  sb.expect(0, 2, 0x2, 100);
  sb.expect(0, 3, 0x3, 200);
  sb.observe(0, 3, 0x3, 1200);
  sb.observe(0, 1, 0x1, 1300);
  sb.observe(0, 2, 0x2, 1400);
  const auto& c = sb.finish();
  expect_counts(c, 3, 3, 0, 0, 0, 0, 0, 0);
  EXPECT_TRUE(c.clean());
  EXPECT_TRUE(sb.errors().empty());
  ASSERT_EQ(sb.latency_ns().count(), 3u);
  EXPECT_DOUBLE_EQ(sb.latency_ns().min(), 1.0);
  EXPECT_DOUBLE_EQ(sb.latency_ns().max(), 1.3);
}

TEST(Scoreboard, UnorderedCatchesDuplicatesUnexpectedAndCorruption) {
  Scoreboard sb("u", false);
  sb.expect(0, 1, 0x1, 0);
  sb.expect(0, 2, 0x2, 0);
  sb.observe(0, 2, 0x2, 1000);
  sb.observe(0, 2, 0x2, 2000);
  EXPECT_EQ(sb.counts().duplicated, 1u);
  ASSERT_EQ(sb.errors().size(), 1u);
  EXPECT_EQ(sb.errors()[0], "u: flow 0 id 2 at 2 ns delivered twice");
  sb.observe(0, 99, 0x0, 3000);
  EXPECT_EQ(sb.counts().unexpected, 1u);
  EXPECT_EQ(sb.errors()[1], "u: flow 0 id 99 at 3 ns was never sent");
  sb.observe(4, 1, 0x1, 3000);
  EXPECT_EQ(sb.counts().unexpected, 2u);
  sb.observe(0, 1, 0xf, 4000);
  EXPECT_EQ(sb.counts().corrupted, 1u);
  EXPECT_EQ(sb.errors()[3],
            "u: flow 0 id 1 at 4 ns corrupted: digest 0x000000000000000f, expected 0x0000000000000001");
  sb.observe(0, 1, 0x1, 5000);  // after a (corrupted) delivery it is a duplicate
  expect_counts(sb.finish(), 2, 1, 0, 2, 1, 0, 2, 0);
}

TEST(Scoreboard, UnorderedLostAndDiscard) {
  Scoreboard sb("u", false);
  sb.expect(0, 30, 0, 0);
  sb.expect(0, 10, 0, 0);
  sb.expect(0, 20, 0, 0);
  sb.expect(0, 40, 0, 0);
  sb.discard(0, 40);
  sb.discard(0, 41);  // unknown: ignored
  EXPECT_EQ(sb.counts().discarded, 1u);
  EXPECT_EQ(sb.outstanding(), 3u);
  sb.observe(0, 40, 0, 100);  // a discarded one showing up was never (still) sent
  EXPECT_EQ(sb.counts().unexpected, 1u);
  const auto& c = sb.finish();
  expect_counts(c, 4, 0, 3, 0, 0, 0, 1, 1);
  ASSERT_EQ(sb.errors().size(), 2u);
  EXPECT_EQ(sb.errors()[1], "u: flow 0: 3 never delivered (first id 10)");
}

TEST(Scoreboard, ErrorsCappedAt20Lines) {
  Scoreboard sb("sb");
  for (uint64_t i = 0; i < 25; ++i) sb.observe(1, i, 0, static_cast<core::Ps>(i) * 1000);
  EXPECT_EQ(sb.counts().unexpected, 25u);  // all are counted
  ASSERT_EQ(sb.errors().size(), 20u);      // the first 20 are kept
  EXPECT_EQ(sb.errors().front(), "sb: flow 1 id 0 at 0 ns was never sent");
  EXPECT_EQ(sb.errors().back(), "sb: flow 1 id 19 at 19 ns was never sent");
  for (const auto& e : sb.errors()) {
    EXPECT_EQ(e.rfind("sb: ", 0), 0u) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
  sb.expect(2, 1, 0, 0);
  sb.finish();
  EXPECT_EQ(sb.counts().lost, 1u);
  EXPECT_EQ(sb.errors().size(), 20u);  // the lost line no longer fits
}

TEST(Scoreboard, OutstandingAcrossFlows) {
  Scoreboard sb("sb");
  EXPECT_EQ(sb.outstanding(), 0u);
  sb.expect(0, 1, 0, 0);
  sb.expect(0, 2, 0, 0);
  sb.expect(1, 1, 0, 0);
  sb.expect(2, 1, 0, 0);
  EXPECT_EQ(sb.outstanding(), 4u);
  sb.observe(0, 1, 0, 1);
  EXPECT_EQ(sb.outstanding(), 3u);
  sb.discard(2, 1);
  EXPECT_EQ(sb.outstanding(), 2u);
  sb.observe(1, 1, 0, 1);
  sb.observe(0, 2, 0, 1);
  EXPECT_EQ(sb.outstanding(), 0u);
  EXPECT_EQ(sb.counts().expected, 4u);
}

TEST(Scoreboard, CleanFlagCoversEveryErrorKindButNotDiscard) {
  Scoreboard::Counts c;
  EXPECT_TRUE(c.clean());
  c.discarded = 5;
  c.matched = 3;
  c.expected = 8;
  EXPECT_TRUE(c.clean());
  for (uint64_t Scoreboard::Counts::*m : {&Scoreboard::Counts::lost, &Scoreboard::Counts::duplicated,
                                          &Scoreboard::Counts::corrupted, &Scoreboard::Counts::reordered,
                                          &Scoreboard::Counts::unexpected}) {
    Scoreboard::Counts d = c;
    d.*m = 1;
    EXPECT_FALSE(d.clean());
  }
}

namespace {
TEST(Scoreboard, DuplicateOfAnEarlyDeliveryIsADuplicate) {
  core::Scoreboard sb("sb");
  sb.expect(0, 1, 11, 0);
  sb.expect(0, 2, 22, 0);
  sb.observe(0, 2, 22, 5);  // ahead of 1: reordered
  sb.observe(0, 2, 22, 6);  // again: a duplicate, not "never sent"
  EXPECT_EQ(sb.counts().reordered, 1u);
  EXPECT_EQ(sb.counts().duplicated, 1u);
  EXPECT_EQ(sb.counts().unexpected, 0u);
}

TEST(Scoreboard, ReorderedAndCorruptedCountsBoth) {
  core::Scoreboard sb("sb");
  sb.expect(0, 1, 11, 0);
  sb.expect(0, 2, 22, 0);
  sb.observe(0, 2, 99, 5);
  EXPECT_EQ(sb.counts().reordered, 1u);
  EXPECT_EQ(sb.counts().corrupted, 1u);
}
}  // namespace
