// Unit tests of the cycle-exact ROB reference model (models/rob), per docs/rob.md.
// Every expectation below is a concrete value derived by hand from the document;
// the closed-loop tests at the end check the end-to-end properties (every REQ
// released exactly once per connection, in SEQ order) under random traffic.
//
// Note: the slot index a packet is stored in is not visible at the ports, so the
// free-list ring order is checked through its consequences only (occupancy,
// OVERFLOW_FULL exactly at Capacity, the right token released for every slot
// after the ring has wrapped many times).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "rob/rob.hpp"

namespace {

using rob::In;
using rob::Model;
using rob::Out;
using rob::Params;

Params make_params(unsigned src, unsigned cid, unsigned seq, unsigned cap, unsigned hash,
                   unsigned cam, unsigned conn) {
  Params p;
  p.src_bits = src;
  p.cid_bits = cid;
  p.seq_bits = seq;
  p.capacity = cap;
  p.hash_bits = hash;
  p.cam_entries = cam;
  p.num_conn = conn;
  return p;
}

// Small parameters: key = {src[1:0], cid, seq[2:0]} = 6 bits, HashBits 3, so
// h(src, cid, seq) = seq ^ {src, cid} (two chunks, no padding).
Params small(unsigned cap = 8, unsigned cam = 2, unsigned conn = 4) {
  return make_params(2, 1, 3, cap, 3, cam, conn);
}

// ------------------------------------------------------------ bench
// Drives one Model edge by edge; every helper performs exactly one edge and
// returns the registered outputs after it.
struct Bench {
  Model m;
  explicit Bench(const Params& p) : m(p) {}

  Out edge(const In& in) {
    m.tick(in);
    return m.outputs();
  }
  Out reset() {
    In in;
    in.rst_n = false;
    return edge(in);
  }
  static In idle_in() {
    In in;
    in.rst_n = true;
    return in;
  }
  Out idle() { return edge(idle_in()); }
  static In req_in(uint32_t src, uint32_t cid, uint32_t seq, uint32_t token) {
    In in = idle_in();
    in.in_valid = true;
    in.in_src = src;
    in.in_cid = cid;
    in.in_seq = seq;
    in.in_token = token;
    return in;
  }
  Out req(uint32_t src, uint32_t cid, uint32_t seq, uint32_t token = 0) {
    return edge(req_in(src, cid, seq, token));
  }
  Out fin(uint32_t src, uint32_t cid, uint32_t seq = 0) {
    In in = req_in(src, cid, seq, 0);
    in.in_fin = true;
    return edge(in);
  }
};

::testing::AssertionResult resp_is(const Out& o, uint32_t kind, uint32_t src, uint32_t cid,
                                   uint32_t seq) {
  if (!o.resp_valid) return ::testing::AssertionFailure() << "resp_valid is 0";
  if (o.resp_kind != kind || o.resp_src != src || o.resp_cid != cid || o.resp_seq != seq)
    return ::testing::AssertionFailure()
           << "resp " << rob::resp_name(o.resp_kind) << " {" << o.resp_src << "," << o.resp_cid
           << "," << o.resp_seq << "}, expected " << rob::resp_name(kind) << " {" << src << ","
           << cid << "," << seq << "}";
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult rel_is(const Out& o, uint32_t src, uint32_t cid, uint32_t seq,
                                  uint32_t token) {
  if (!o.rel_valid) return ::testing::AssertionFailure() << "rel_valid is 0";
  if (o.rel_src != src || o.rel_cid != cid || o.rel_seq != seq || o.rel_token != token)
    return ::testing::AssertionFailure()
           << "rel {" << o.rel_src << "," << o.rel_cid << "," << o.rel_seq << "," << o.rel_token
           << "}, expected {" << src << "," << cid << "," << seq << "," << token << "}";
  return ::testing::AssertionSuccess();
}

// ================================================================ Params

TEST(RobModelParams, DefaultsValid) {
  Params p;
  EXPECT_EQ(p.validate(), "");
  EXPECT_EQ(p.src_bits, 11u);
  EXPECT_EQ(p.cid_bits, 4u);
  EXPECT_EQ(p.seq_bits, 8u);
  EXPECT_EQ(p.capacity, 50u);
  EXPECT_EQ(p.hash_bits, 6u);
  EXPECT_EQ(p.cam_entries, 4u);
  EXPECT_EQ(p.num_conn, 16u);
  EXPECT_EQ(p.slot_bits(), 6u);  // clog2(50)
  EXPECT_EQ(p.conn_bits(), 4u);  // clog2(16)
}

TEST(RobModelParams, BoundariesValid) {
  EXPECT_EQ(make_params(1, 1, 2, 1, 1, 1, 1).validate(), "");
  EXPECT_EQ(make_params(16, 8, 16, 1024, 12, 16, 64).validate(), "");
}

TEST(RobModelParams, ValidateEachParameter) {
  const Params lo = make_params(1, 1, 2, 1, 1, 1, 1);
  auto with = [&](unsigned Params::*f, unsigned v) {
    Params p = lo;
    p.*f = v;
    return p.validate();
  };
  EXPECT_EQ(with(&Params::src_bits, 0), "src_bits=0 out of range (allowed 1..16)");
  EXPECT_EQ(with(&Params::src_bits, 17), "src_bits=17 out of range (allowed 1..16)");
  EXPECT_EQ(with(&Params::cid_bits, 0), "cid_bits=0 out of range (allowed 1..8)");
  EXPECT_EQ(with(&Params::cid_bits, 9), "cid_bits=9 out of range (allowed 1..8)");
  EXPECT_EQ(with(&Params::seq_bits, 1), "seq_bits=1 out of range (allowed 2..16)");
  EXPECT_EQ(with(&Params::seq_bits, 17), "seq_bits=17 out of range (allowed 2..16)");
  EXPECT_EQ(with(&Params::capacity, 0), "capacity=0 out of range (allowed 1..1024)");
  EXPECT_EQ(with(&Params::capacity, 1025), "capacity=1025 out of range (allowed 1..1024)");
  EXPECT_EQ(with(&Params::hash_bits, 0), "hash_bits=0 out of range (allowed 1..12)");
  EXPECT_EQ(with(&Params::hash_bits, 13), "hash_bits=13 out of range (allowed 1..12)");
  EXPECT_EQ(with(&Params::cam_entries, 0), "cam_entries=0 out of range (allowed 1..16)");
  EXPECT_EQ(with(&Params::cam_entries, 17), "cam_entries=17 out of range (allowed 1..16)");
  EXPECT_EQ(with(&Params::num_conn, 0), "num_conn=0 out of range (allowed 1..64)");
  EXPECT_EQ(with(&Params::num_conn, 65), "num_conn=65 out of range (allowed 1..64)");
}

TEST(RobModelParams, ValidateIsOneLineFirstBadParameter) {
  const std::string e = make_params(0, 0, 0, 0, 0, 0, 0).validate();
  EXPECT_EQ(e, "src_bits=0 out of range (allowed 1..16)");
  EXPECT_EQ(e.find('\n'), std::string::npos);
}

TEST(RobModelParams, ModelRejectsInvalidParams) {
  EXPECT_THROW(Model(make_params(11, 4, 8, 0, 6, 4, 16)), std::invalid_argument);
  try {
    Model m(make_params(11, 4, 8, 50, 6, 4, 65));
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "rob: num_conn=65 out of range (allowed 1..64)");
  }
}

TEST(RobModelParams, SlotAndConnBits) {
  auto cap = [](unsigned c) { return make_params(11, 4, 8, c, 6, 4, 16).slot_bits(); };
  EXPECT_EQ(cap(1), 1u);  // max(1, clog2(1) = 0)
  EXPECT_EQ(cap(2), 1u);
  EXPECT_EQ(cap(3), 2u);
  EXPECT_EQ(cap(4), 2u);
  EXPECT_EQ(cap(5), 3u);
  EXPECT_EQ(cap(8), 3u);
  EXPECT_EQ(cap(1023), 10u);
  EXPECT_EQ(cap(1024), 10u);
  auto conn = [](unsigned n) { return make_params(11, 4, 8, 50, 6, 4, n).conn_bits(); };
  EXPECT_EQ(conn(1), 1u);
  EXPECT_EQ(conn(2), 1u);
  EXPECT_EQ(conn(4), 2u);
  EXPECT_EQ(conn(17), 5u);
  EXPECT_EQ(conn(64), 6u);
}

TEST(RobModelParams, Names) {
  EXPECT_STREQ(rob::counter_name(rob::delivered), "delivered");
  EXPECT_STREQ(rob::counter_name(rob::held), "held");
  EXPECT_STREQ(rob::counter_name(rob::released), "released");
  EXPECT_STREQ(rob::counter_name(rob::duplicate), "duplicate");
  EXPECT_STREQ(rob::counter_name(rob::no_conn), "no_conn");
  EXPECT_STREQ(rob::counter_name(rob::overflow_full), "overflow_full");
  EXPECT_STREQ(rob::counter_name(rob::overflow_collision), "overflow_collision");
  EXPECT_STREQ(rob::counter_name(rob::cam_inserts), "cam_inserts");
  EXPECT_STREQ(rob::counter_name(rob::fins), "fins");
  EXPECT_STREQ(rob::counter_name(rob::kNumCounters), "?");
  EXPECT_STREQ(rob::resp_name(rob::kDelivered), "DELIVERED");
  EXPECT_STREQ(rob::resp_name(rob::kHeld), "HELD");
  EXPECT_STREQ(rob::resp_name(rob::kDuplicate), "DUPLICATE");
  EXPECT_STREQ(rob::resp_name(rob::kNoConn), "NO_CONN");
  EXPECT_STREQ(rob::resp_name(rob::kOverflowFull), "OVERFLOW_FULL");
  EXPECT_STREQ(rob::resp_name(rob::kOverflowCollision), "OVERFLOW_COLLISION");
  EXPECT_STREQ(rob::resp_name(rob::kFinDone), "FIN_DONE");
  EXPECT_STREQ(rob::resp_name(rob::kFinUnknown), "FIN_UNKNOWN");
  EXPECT_STREQ(rob::resp_name(8), "?");
  EXPECT_EQ(rob::kFinUnknown, 7u);
}

TEST(RobModelParams, OutputEqualityComparesAllFields) {
  const Out base;
  std::vector<Out> v(15 + rob::kNumCounters, base);
  v[0].in_ready = true;
  v[1].rel_valid = true;
  v[2].rel_src = 1;
  v[3].rel_cid = 1;
  v[4].rel_seq = 1;
  v[5].rel_token = 1;
  v[6].resp_valid = true;
  v[7].resp_kind = 1;
  v[8].resp_src = 1;
  v[9].resp_cid = 1;
  v[10].resp_seq = 1;
  v[11].occupancy = 1;
  v[12].max_occupancy = 1;
  v[13].conns = 1;
  v[14] = base;  // equal
  for (unsigned i = 0; i < rob::kNumCounters; ++i) v[15 + i].cnt[i] = 1;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i == 14) {
      EXPECT_TRUE(v[i] == base);
    } else {
      EXPECT_TRUE(v[i] != base) << "field " << i;
    }
  }
}

// ================================================================ hash

TEST(RobModelHash, DefaultParamsHandComputed) {
  const Params p;  // W = 23: chunks [5:0] [11:6] [17:12] [22:18] (5 bits, padded)
  // key = 0x5A3 << 12 | 0xC << 8 | 0x7E = 0x5A3C7E;
  // chunks 0x3E, 0x31, 0x23, 0x16 -> 0x3E ^ 0x31 ^ 0x23 ^ 0x16 = 0x3A.
  EXPECT_EQ(p.hash(0x5A3, 0xC, 0x7E), 0x3Au);
  EXPECT_EQ(p.hash(0, 0, 0), 0u);
  EXPECT_EQ(p.hash(0, 0, 5), 5u);
  EXPECT_EQ(p.hash(1, 0, 0), 1u);  // src bit 0 is key bit 12: chunk 2
  EXPECT_EQ(p.hash(0, 1, 0), 4u);  // cid bit 0 is key bit 8: chunk 1 bit 2
  EXPECT_EQ(p.hash(0x40, 0, 0), 1u);  // src bit 6 is key bit 18: chunk 3
  // All ones: 0x3F ^ 0x3F ^ 0x3F ^ 0x1F = 0x20.
  EXPECT_EQ(p.hash(0x7FF, 0xF, 0xFF), 0x20u);
  // Inputs are masked to their widths.
  EXPECT_EQ(p.hash(0xFFFF, 0xFF, 0xFFFF), 0x20u);
  // Consecutive SEQs of one connection: distinct buckets.
  std::set<uint32_t> b;
  for (uint32_t s = 0; s < 64; ++s) b.insert(p.hash(0x123, 0x5, s));
  EXPECT_EQ(b.size(), 64u);
}

TEST(RobModelHash, SmallParamsHandComputed) {
  const Params p = small();  // h = seq ^ {src, cid}
  EXPECT_EQ(p.hash(0, 0, 3), 3u);
  EXPECT_EQ(p.hash(0, 1, 2), 3u);
  EXPECT_EQ(p.hash(1, 0, 1), 3u);
  EXPECT_EQ(p.hash(1, 1, 0), 3u);
  EXPECT_EQ(p.hash(3, 1, 5), 2u);  // 5 ^ 7
  EXPECT_EQ(p.hash(7, 3, 15), 0u);  // masked to {3, 1, 7}: 7 ^ 7
}

TEST(RobModelHash, LastChunkPadded) {
  // W = 3 + 1 + 3 = 7, HashBits 3: chunks [2:0], [5:3], {00, bit 6}.
  const Params p = make_params(3, 1, 3, 8, 3, 2, 4);
  // key {101, 1, 110} = 0b1011110: chunks 110, 011, 001 -> 6 ^ 3 ^ 1 = 4.
  EXPECT_EQ(p.hash(5, 1, 6), 4u);
  EXPECT_EQ(p.hash(4, 0, 0), 1u);  // only key bit 6
}

TEST(RobModelHash, HashWiderThanKey) {
  // W = 1 + 1 + 2 = 4 < HashBits 12: one chunk, the key itself.
  const Params p = make_params(1, 1, 2, 8, 12, 2, 4);
  EXPECT_EQ(p.hash(1, 1, 3), 15u);
  EXPECT_EQ(p.hash(1, 0, 2), 10u);
}

TEST(RobModelHash, MaxWidthKey) {
  // W = 16 + 8 + 16 = 40, HashBits 12: chunks [11:0] [23:12] [35:24] [39:36].
  const Params p = make_params(16, 8, 16, 8, 12, 2, 4);
  // seq 0xABCD: key bits [15:0]; cid 0x12 bits [23:16]; src 0x8001 bits [39:24].
  // key = 0x80_0112_ABCD -> chunks 0xBCD, 0x12A, 0x001, 0x8 -> 0xBCD^0x12A^0x001^0x008 = 0xAEE.
  EXPECT_EQ(p.hash(0x8001, 0x12, 0xABCD), 0xAEEu);
}

// ================================================================ reset

TEST(RobModelReset, ResetValues) {
  Bench b(Params{});
  Out o = b.m.outputs();  // the model starts in its reset state
  EXPECT_TRUE(o.in_ready);
  EXPECT_FALSE(o.rel_valid);
  EXPECT_FALSE(o.resp_valid);
  EXPECT_EQ(o.occupancy, 0u);
  EXPECT_EQ(o.max_occupancy, 0u);
  EXPECT_EQ(o.conns, 0u);
  for (unsigned i = 0; i < rob::kNumCounters; ++i) EXPECT_EQ(o.cnt[i], 0u);
  Out expect;
  expect.in_ready = true;
  EXPECT_EQ(o, expect);
  EXPECT_EQ(b.reset(), expect);
}

TEST(RobModelReset, ResetClearsEverythingAndIgnoresInput) {
  Bench b(small(3));
  b.req(0, 0, 2, 20);
  b.req(0, 0, 3, 30);
  b.req(1, 0, 1, 11);
  b.req(2, 0, 5, 0);  // behind on a new connection: DUPLICATE
  Out o = b.req(0, 0, 0, 0);  // DELIVERED, chain starts
  EXPECT_FALSE(o.in_ready);
  EXPECT_EQ(o.occupancy, 3u);
  EXPECT_EQ(o.conns, 3u);
  // Reset with a packet on the input: the packet is not taken.
  In in = Bench::req_in(3, 1, 0, 7);
  in.rst_n = false;
  o = b.edge(in);
  Out expect;
  expect.in_ready = true;
  EXPECT_EQ(o, expect);
  // The tables are empty: (0, 0) has exp = 0 again (2 is HELD, not DUPLICATE)
  // and the free list is full (3 slots).
  EXPECT_TRUE(resp_is(b.req(0, 0, 2, 21), rob::kHeld, 0, 0, 2));
  EXPECT_TRUE(resp_is(b.req(0, 0, 1, 11), rob::kHeld, 0, 0, 1));
  o = b.req(0, 0, 3, 31);
  EXPECT_TRUE(resp_is(o, rob::kHeld, 0, 0, 3));
  EXPECT_EQ(o.occupancy, 3u);
  EXPECT_EQ(o.conns, 1u);
  EXPECT_TRUE(resp_is(b.req(1, 0, 1, 0), rob::kOverflowFull, 1, 0, 1));
  // The chain releases the new tokens.
  EXPECT_TRUE(rel_is(b.req(0, 0, 0, 1), 0, 0, 0, 1));
  EXPECT_TRUE(rel_is(b.idle(), 0, 0, 1, 11));
  EXPECT_TRUE(rel_is(b.idle(), 0, 0, 2, 21));
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 0, 0, 3, 31));
  EXPECT_TRUE(o.in_ready);
  EXPECT_EQ(o.occupancy, 0u);
  EXPECT_EQ(o.cnt[rob::delivered], 1u);
  EXPECT_EQ(o.cnt[rob::held], 3u);
  EXPECT_EQ(o.cnt[rob::released], 3u);
}

// ================================================================ in order

TEST(RobModelInOrder, DeliveredSameEdge) {
  Bench b(Params{});
  for (uint32_t i = 0; i < 5; ++i) {
    SCOPED_TRACE(i);
    const Out o = b.req(7, 3, i, 100 + i);
    EXPECT_TRUE(resp_is(o, rob::kDelivered, 7, 3, i));
    EXPECT_TRUE(rel_is(o, 7, 3, i, 100 + i));
    EXPECT_TRUE(o.in_ready);
    EXPECT_EQ(o.occupancy, 0u);
    EXPECT_EQ(o.conns, 1u);
    EXPECT_EQ(o.cnt[rob::delivered], i + 1);
    EXPECT_EQ(o.cnt[rob::held], 0u);
    EXPECT_EQ(o.cnt[rob::released], 0u);
  }
  // No arrival: both valids drop, the other fields hold.
  Out o = b.idle();
  EXPECT_FALSE(o.rel_valid);
  EXPECT_FALSE(o.resp_valid);
  EXPECT_EQ(o.rel_src, 7u);
  EXPECT_EQ(o.rel_cid, 3u);
  EXPECT_EQ(o.rel_seq, 4u);
  EXPECT_EQ(o.rel_token, 104u);
  EXPECT_EQ(o.resp_kind, static_cast<uint32_t>(rob::kDelivered));
  EXPECT_EQ(o.resp_src, 7u);
  EXPECT_EQ(o.resp_cid, 3u);
  EXPECT_EQ(o.resp_seq, 4u);
  EXPECT_TRUE(o.in_ready);
  // in_valid low with other fields set: nothing happens.
  In in = Bench::req_in(1, 1, 0, 5);
  in.in_valid = false;
  EXPECT_EQ(b.edge(in), o);
}

TEST(RobModelInOrder, InputsMaskedToPortWidths) {
  Bench b(Params{});
  // src 0xFFFF -> 0x7FF, cid 0x1F -> 0xF, seq 0x100 -> 0.
  Out o = b.req(0xFFFF, 0x1F, 0x100, 0xDEADBEEF);
  EXPECT_TRUE(resp_is(o, rob::kDelivered, 0x7FF, 0xF, 0));
  EXPECT_TRUE(rel_is(o, 0x7FF, 0xF, 0, 0xDEADBEEF));
  o = b.req(0x7FF, 0xF, 1, 1);  // the same connection
  EXPECT_TRUE(resp_is(o, rob::kDelivered, 0x7FF, 0xF, 1));
  EXPECT_EQ(o.conns, 1u);
}

TEST(RobModelInOrder, SeqWrapsInOrder) {
  Bench b(small());  // SeqBits 3
  for (uint32_t i = 0; i < 20; ++i) {
    const Out o = b.req(1, 1, i, i);  // seq i masked to i mod 8
    EXPECT_TRUE(resp_is(o, rob::kDelivered, 1, 1, i % 8)) << i;
    EXPECT_TRUE(rel_is(o, 1, 1, i % 8, i)) << i;
  }
}

// ================================================================ release chain

TEST(RobModelChain, HeldThenReleasedOnePerCycle) {
  Bench b(Params{});
  Out o = b.req(2, 1, 3, 0x33);
  EXPECT_TRUE(resp_is(o, rob::kHeld, 2, 1, 3));
  EXPECT_FALSE(o.rel_valid);
  EXPECT_TRUE(o.in_ready);
  EXPECT_EQ(o.occupancy, 1u);
  EXPECT_EQ(o.conns, 1u);
  o = b.req(2, 1, 2, 0x32);
  EXPECT_TRUE(resp_is(o, rob::kHeld, 2, 1, 2));
  EXPECT_EQ(o.occupancy, 2u);
  o = b.req(2, 1, 1, 0x31);
  EXPECT_TRUE(resp_is(o, rob::kHeld, 2, 1, 1));
  EXPECT_EQ(o.occupancy, 3u);
  EXPECT_EQ(o.max_occupancy, 3u);
  EXPECT_EQ(o.cnt[rob::held], 3u);
  // Edge 4: 0 is delivered at once, the chain starts.
  o = b.req(2, 1, 0, 0x30);
  EXPECT_TRUE(resp_is(o, rob::kDelivered, 2, 1, 0));
  EXPECT_TRUE(rel_is(o, 2, 1, 0, 0x30));
  EXPECT_FALSE(o.in_ready);
  EXPECT_EQ(o.occupancy, 3u);
  // Edge 5: a packet offered while in_ready is low is not taken.
  o = b.req(9, 9, 0, 0x99);
  EXPECT_FALSE(o.resp_valid);
  EXPECT_EQ(o.resp_kind, static_cast<uint32_t>(rob::kDelivered));  // holds
  EXPECT_EQ(o.resp_seq, 0u);
  EXPECT_TRUE(rel_is(o, 2, 1, 1, 0x31));
  EXPECT_FALSE(o.in_ready);
  EXPECT_EQ(o.occupancy, 2u);
  EXPECT_EQ(o.cnt[rob::released], 1u);
  // Edge 6.
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 2, 1, 2, 0x32));
  EXPECT_FALSE(o.in_ready);
  EXPECT_EQ(o.occupancy, 1u);
  // Edge 7: the last one; the chain ends.
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 2, 1, 3, 0x33));
  EXPECT_TRUE(o.in_ready);
  EXPECT_EQ(o.occupancy, 0u);
  EXPECT_EQ(o.max_occupancy, 3u);
  EXPECT_EQ(o.conns, 1u);
  EXPECT_EQ(o.cnt[rob::delivered], 1u);
  EXPECT_EQ(o.cnt[rob::released], 3u);
  // Edge 8: nothing more; the ignored packet (9, 9) opened nothing.
  o = b.idle();
  EXPECT_FALSE(o.rel_valid);
  EXPECT_EQ(o.rel_seq, 3u);
  EXPECT_EQ(o.rel_token, 0x33u);
  EXPECT_EQ(o.conns, 1u);
  // The connection goes on at 4.
  EXPECT_TRUE(rel_is(b.req(2, 1, 4, 0x34), 2, 1, 4, 0x34));
}

TEST(RobModelChain, GapEndsChainWithoutRelease) {
  Bench b(Params{});
  b.req(4, 2, 1, 11);
  b.req(4, 2, 4, 14);
  b.req(4, 2, 2, 12);
  Out o = b.req(4, 2, 0, 10);
  EXPECT_TRUE(rel_is(o, 4, 2, 0, 10));
  EXPECT_FALSE(o.in_ready);
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 4, 2, 1, 11));
  EXPECT_FALSE(o.in_ready);
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 4, 2, 2, 12));
  EXPECT_FALSE(o.in_ready);  // held is still 1: the chain goes on
  o = b.idle();              // 3 not found: the chain ends, no release
  EXPECT_FALSE(o.rel_valid);
  EXPECT_TRUE(o.in_ready);
  EXPECT_EQ(o.occupancy, 1u);
  EXPECT_EQ(o.cnt[rob::released], 2u);
  o = b.req(4, 2, 3, 13);
  EXPECT_TRUE(resp_is(o, rob::kDelivered, 4, 2, 3));
  EXPECT_FALSE(o.in_ready);
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 4, 2, 4, 14));
  EXPECT_TRUE(o.in_ready);
  EXPECT_EQ(o.occupancy, 0u);
}

TEST(RobModelChain, OtherConnectionsUnaffected) {
  Bench b(Params{});
  b.req(1, 0, 1, 101);  // held
  b.req(2, 0, 1, 201);  // held
  Out o = b.req(1, 0, 0, 100);
  EXPECT_FALSE(o.in_ready);
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 1, 0, 1, 101));
  EXPECT_TRUE(o.in_ready);  // held of (1, 0) is 0: the chain ends
  EXPECT_EQ(o.occupancy, 1u);
  o = b.req(2, 0, 0, 200);
  EXPECT_TRUE(rel_is(o, 2, 0, 0, 200));
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 2, 0, 1, 201));
  EXPECT_EQ(o.occupancy, 0u);
  EXPECT_EQ(o.conns, 2u);
}

// ================================================================ duplicates

TEST(RobModelDuplicate, BehindAndHeld) {
  Bench b(Params{});  // SeqBits 8: half = 128
  b.req(3, 3, 0, 0);
  Out o = b.req(3, 3, 0, 0);  // exp = 1: d = 255, behind
  EXPECT_TRUE(resp_is(o, rob::kDuplicate, 3, 3, 0));
  EXPECT_FALSE(o.rel_valid);
  EXPECT_EQ(o.cnt[rob::duplicate], 1u);
  o = b.req(3, 3, 129, 0);  // d = 128: behind
  EXPECT_TRUE(resp_is(o, rob::kDuplicate, 3, 3, 129));
  EXPECT_EQ(o.occupancy, 0u);
  o = b.req(3, 3, 128, 0x80);  // d = 127: ahead, held
  EXPECT_TRUE(resp_is(o, rob::kHeld, 3, 3, 128));
  EXPECT_EQ(o.occupancy, 1u);
  o = b.req(3, 3, 128, 0x81);  // already held
  EXPECT_TRUE(resp_is(o, rob::kDuplicate, 3, 3, 128));
  EXPECT_EQ(o.occupancy, 1u);
  EXPECT_EQ(o.cnt[rob::duplicate], 3u);
  EXPECT_EQ(o.cnt[rob::held], 1u);
  // A connection whose first REQ is behind (d >= half from exp = 0) opens and stays open.
  o = b.req(5, 5, 200, 0);
  EXPECT_TRUE(resp_is(o, rob::kDuplicate, 5, 5, 200));
  EXPECT_EQ(o.conns, 2u);
  EXPECT_TRUE(resp_is(b.req(5, 5, 0, 0), rob::kDelivered, 5, 5, 0));
  EXPECT_EQ(b.idle().cnt[rob::duplicate], 4u);
}

TEST(RobModelDuplicate, DuplicateCheckedBeforeFull) {
  Bench b(small(1));
  EXPECT_TRUE(resp_is(b.req(0, 0, 2, 0), rob::kHeld, 0, 0, 2));
  EXPECT_TRUE(resp_is(b.req(0, 0, 2, 0), rob::kDuplicate, 0, 0, 2));
  EXPECT_TRUE(resp_is(b.req(0, 0, 3, 0), rob::kOverflowFull, 0, 0, 3));
  const Out o = b.req(0, 0, 5, 0);  // d = 5 >= 4: behind, even when full
  EXPECT_TRUE(resp_is(o, rob::kDuplicate, 0, 0, 5));
  EXPECT_EQ(o.cnt[rob::duplicate], 2u);
  EXPECT_EQ(o.cnt[rob::overflow_full], 1u);
}

// ================================================================ connections

TEST(RobModelConn, NoConnWhenTableFull) {
  Bench b(small(8, 2, 2));
  Out o = b.req(0, 0, 0, 0);
  EXPECT_EQ(o.conns, 1u);
  o = b.req(1, 0, 0, 0);
  EXPECT_EQ(o.conns, 2u);
  o = b.req(2, 0, 0, 0);
  EXPECT_TRUE(resp_is(o, rob::kNoConn, 2, 0, 0));
  EXPECT_FALSE(o.rel_valid);
  EXPECT_EQ(o.cnt[rob::no_conn], 1u);
  EXPECT_EQ(o.cnt[rob::delivered], 2u);
  EXPECT_EQ(o.conns, 2u);
  o = b.req(2, 1, 5, 0);
  EXPECT_TRUE(resp_is(o, rob::kNoConn, 2, 1, 5));
  EXPECT_EQ(o.occupancy, 0u);
  // Open connections still work.
  EXPECT_TRUE(resp_is(b.req(1, 0, 1, 0), rob::kDelivered, 1, 0, 1));
  // A FIN for a connection that is not open: FIN_UNKNOWN, fins unchanged.
  o = b.fin(2, 0, 3);
  EXPECT_TRUE(resp_is(o, rob::kFinUnknown, 2, 0, 3));
  EXPECT_EQ(o.cnt[rob::fins], 0u);
  // FIN (0, 0): freed; (2, 0) can open now.
  o = b.fin(0, 0);
  EXPECT_TRUE(resp_is(o, rob::kFinDone, 0, 0, 0));
  EXPECT_EQ(o.conns, 1u);
  EXPECT_EQ(o.cnt[rob::fins], 1u);
  o = b.req(2, 0, 0, 0);
  EXPECT_TRUE(resp_is(o, rob::kDelivered, 2, 0, 0));
  EXPECT_EQ(o.conns, 2u);
  // (0, 0) lost its exp with its entry: full again.
  EXPECT_TRUE(resp_is(b.req(0, 0, 1, 0), rob::kNoConn, 0, 0, 1));
  o = b.fin(1, 0);
  EXPECT_EQ(o.conns, 1u);
  // Reopened with exp = 0: 1 is ahead.
  o = b.req(0, 0, 1, 0);
  EXPECT_TRUE(resp_is(o, rob::kHeld, 0, 0, 1));
  EXPECT_EQ(o.conns, 2u);
  EXPECT_EQ(o.cnt[rob::no_conn], 3u);
}

TEST(RobModelConn, RejectedOpenerStaysOpen) {
  Bench b(small(1));
  b.req(0, 0, 1, 0);  // held: full
  Out o = b.req(1, 1, 2, 0);
  EXPECT_TRUE(resp_is(o, rob::kOverflowFull, 1, 1, 2));
  EXPECT_EQ(o.conns, 2u);
  // Still open, exp = 0.
  o = b.req(1, 1, 0, 0);
  EXPECT_TRUE(resp_is(o, rob::kDelivered, 1, 1, 0));
  EXPECT_EQ(o.conns, 2u);
}

// ================================================================ overflow

TEST(RobModelOverflow, Full) {
  Bench b(small(2));
  EXPECT_TRUE(resp_is(b.req(0, 0, 1, 1), rob::kHeld, 0, 0, 1));
  Out o = b.req(0, 0, 2, 2);
  EXPECT_TRUE(resp_is(o, rob::kHeld, 0, 0, 2));
  EXPECT_EQ(o.occupancy, 2u);
  o = b.req(0, 0, 3, 3);
  EXPECT_TRUE(resp_is(o, rob::kOverflowFull, 0, 0, 3));
  EXPECT_FALSE(o.rel_valid);
  EXPECT_EQ(o.cnt[rob::overflow_full], 1u);
  EXPECT_EQ(o.occupancy, 2u);
  o = b.req(1, 0, 3, 3);  // another connection: full too
  EXPECT_TRUE(resp_is(o, rob::kOverflowFull, 1, 0, 3));
  // The in-order REQ is delivered when full.
  o = b.req(0, 0, 0, 0);
  EXPECT_TRUE(resp_is(o, rob::kDelivered, 0, 0, 0));
  EXPECT_TRUE(rel_is(o, 0, 0, 0, 0));
  EXPECT_TRUE(rel_is(b.idle(), 0, 0, 1, 1));
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 0, 0, 2, 2));
  EXPECT_EQ(o.occupancy, 0u);
  EXPECT_EQ(o.max_occupancy, 2u);
  // The resent 3 is in order now.
  EXPECT_TRUE(resp_is(b.req(0, 0, 3, 3), rob::kDelivered, 0, 0, 3));
  EXPECT_EQ(b.idle().cnt[rob::overflow_full], 2u);
}

TEST(RobModelOverflow, CollisionSmallHandComputed) {
  Bench b(small(8, 1, 4));  // one cache entry; h = seq ^ {src, cid}
  Out o = b.req(0, 0, 3, 0xA3);  // A: bucket 3
  EXPECT_TRUE(resp_is(o, rob::kHeld, 0, 0, 3));
  EXPECT_EQ(o.cnt[rob::cam_inserts], 0u);
  o = b.req(0, 1, 2, 0xB2);  // B: h = 2 ^ 1 = 3: the cache
  EXPECT_TRUE(resp_is(o, rob::kHeld, 0, 1, 2));
  EXPECT_EQ(o.cnt[rob::cam_inserts], 1u);
  o = b.req(1, 0, 1, 0xC1);  // C: h = 1 ^ 2 = 3, cache full
  EXPECT_TRUE(resp_is(o, rob::kOverflowCollision, 1, 0, 1));
  EXPECT_EQ(o.cnt[rob::overflow_collision], 1u);
  EXPECT_EQ(o.cnt[rob::held], 2u);
  EXPECT_EQ(o.occupancy, 2u);
  EXPECT_EQ(o.conns, 3u);  // C stays open
  o = b.req(0, 1, 1, 0xB1);  // B: h = 1 ^ 1 = 0: bucket 0
  EXPECT_TRUE(resp_is(o, rob::kHeld, 0, 1, 1));
  EXPECT_EQ(o.cnt[rob::cam_inserts], 1u);
  o = b.req(0, 1, 2, 0xBB);  // B 2 is in the cache: found
  EXPECT_TRUE(resp_is(o, rob::kDuplicate, 0, 1, 2));
  // B 0: delivered, the chain releases 1 (bucket 0) then 2 (cache).
  o = b.req(0, 1, 0, 0xB0);
  EXPECT_TRUE(rel_is(o, 0, 1, 0, 0xB0));
  EXPECT_FALSE(o.in_ready);
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 0, 1, 1, 0xB1));
  EXPECT_FALSE(o.in_ready);
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 0, 1, 2, 0xB2));
  EXPECT_TRUE(o.in_ready);
  EXPECT_EQ(o.occupancy, 1u);
  // The cache entry is free again: C 1 goes there.
  o = b.req(1, 0, 1, 0xC1);
  EXPECT_TRUE(resp_is(o, rob::kHeld, 1, 0, 1));
  EXPECT_EQ(o.cnt[rob::cam_inserts], 2u);
  EXPECT_TRUE(rel_is(b.req(1, 0, 0, 0xC0), 1, 0, 0, 0xC0));
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 1, 0, 1, 0xC1));
  EXPECT_TRUE(o.in_ready);
  // A 0: delivered; the chain looks up A 1 (not there) and ends.
  o = b.req(0, 0, 0, 0xA0);
  EXPECT_TRUE(rel_is(o, 0, 0, 0, 0xA0));
  EXPECT_FALSE(o.in_ready);
  o = b.idle();
  EXPECT_FALSE(o.rel_valid);
  EXPECT_TRUE(o.in_ready);
  EXPECT_TRUE(rel_is(b.req(0, 0, 1, 0xA1), 0, 0, 1, 0xA1));
  EXPECT_FALSE(b.idle().rel_valid);
  o = b.req(0, 0, 2, 0xA2);
  EXPECT_TRUE(rel_is(o, 0, 0, 2, 0xA2));
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 0, 0, 3, 0xA3));
  EXPECT_TRUE(o.in_ready);
  EXPECT_EQ(o.occupancy, 0u);
  EXPECT_EQ(o.cnt[rob::held], 4u);
  EXPECT_EQ(o.cnt[rob::released], 4u);
  EXPECT_EQ(o.cnt[rob::delivered], 5u);
}

TEST(RobModelOverflow, CollisionDefaultParamsViaHash) {
  const Params p;  // 4 cache entries
  Bench b(p);
  const uint32_t h = p.hash(5, 2, 1);
  // Five other connections whose SEQ 1 lands in the same bucket.
  std::vector<uint32_t> srcs;
  for (uint32_t s = 6; s < 2048 && srcs.size() < 5; ++s)
    if (p.hash(s, 2, 1) == h) srcs.push_back(s);
  ASSERT_EQ(srcs.size(), 5u);
  EXPECT_TRUE(resp_is(b.req(5, 2, 1, 50), rob::kHeld, 5, 2, 1));
  for (uint32_t i = 0; i < 4; ++i) {
    const Out o = b.req(srcs[i], 2, 1, 60 + i);
    EXPECT_TRUE(resp_is(o, rob::kHeld, srcs[i], 2, 1));
    EXPECT_EQ(o.cnt[rob::cam_inserts], i + 1);
  }
  Out o = b.req(srcs[4], 2, 1, 64);
  EXPECT_TRUE(resp_is(o, rob::kOverflowCollision, srcs[4], 2, 1));
  EXPECT_EQ(o.occupancy, 5u);
  EXPECT_EQ(o.conns, 6u);
  // Free cache entry 1 (srcs[1]), then srcs[4] fits in the cache.
  EXPECT_TRUE(rel_is(b.req(srcs[1], 2, 0, 0), srcs[1], 2, 0, 0));
  EXPECT_TRUE(rel_is(b.idle(), srcs[1], 2, 1, 61));
  o = b.req(srcs[4], 2, 1, 64);
  EXPECT_TRUE(resp_is(o, rob::kHeld, srcs[4], 2, 1));
  EXPECT_EQ(o.cnt[rob::cam_inserts], 5u);
  // Every one comes back with its own token.
  const std::vector<std::pair<uint32_t, uint32_t>> rest = {
      {5, 50}, {srcs[0], 60}, {srcs[2], 62}, {srcs[3], 63}, {srcs[4], 64}};
  for (const auto& r : rest) {
    EXPECT_TRUE(rel_is(b.req(r.first, 2, 0, 1), r.first, 2, 0, 1));
    o = b.idle();
    EXPECT_TRUE(rel_is(o, r.first, 2, 1, r.second));
  }
  EXPECT_EQ(o.occupancy, 0u);
}

// ================================================================ FIN

TEST(RobModelFin, FinWithNothingHeldFreesEntry) {
  Bench b(Params{});
  b.req(1, 1, 0, 0);
  b.req(1, 1, 1, 0);
  Out o = b.req(2, 2, 0, 0);
  EXPECT_EQ(o.conns, 2u);
  o = b.fin(1, 1, 9);
  EXPECT_TRUE(resp_is(o, rob::kFinDone, 1, 1, 9));
  EXPECT_FALSE(o.rel_valid);
  EXPECT_EQ(o.conns, 1u);
  EXPECT_EQ(o.cnt[rob::fins], 1u);
  EXPECT_TRUE(o.in_ready);
  // Reopened with exp = 0: seq 2 is held.
  o = b.req(1, 1, 2, 0);
  EXPECT_TRUE(resp_is(o, rob::kHeld, 1, 1, 2));
  EXPECT_EQ(o.conns, 2u);
}

TEST(RobModelFin, FinWithHeldClosesWhenChainEmptiesIt) {
  Bench b(Params{});
  b.req(1, 1, 2, 12);
  b.req(1, 1, 3, 13);
  Out o = b.fin(1, 1);
  EXPECT_TRUE(resp_is(o, rob::kFinDone, 1, 1, 0));
  EXPECT_EQ(o.conns, 1u);  // closing
  EXPECT_EQ(o.occupancy, 2u);
  EXPECT_EQ(o.cnt[rob::fins], 1u);
  // A closing connection still takes REQs.
  o = b.req(1, 1, 1, 11);
  EXPECT_TRUE(resp_is(o, rob::kHeld, 1, 1, 1));
  o = b.fin(1, 1);  // a second FIN: found, closing again
  EXPECT_TRUE(resp_is(o, rob::kFinDone, 1, 1, 0));
  EXPECT_EQ(o.cnt[rob::fins], 2u);
  o = b.req(1, 1, 0, 10);
  EXPECT_TRUE(rel_is(o, 1, 1, 0, 10));
  EXPECT_EQ(o.conns, 1u);
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 1, 1, 1, 11));
  EXPECT_EQ(o.conns, 1u);
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 1, 1, 2, 12));
  EXPECT_EQ(o.conns, 1u);
  o = b.idle();  // the last held packet: the entry is freed at this edge
  EXPECT_TRUE(rel_is(o, 1, 1, 3, 13));
  EXPECT_EQ(o.conns, 0u);
  EXPECT_TRUE(o.in_ready);
  EXPECT_EQ(o.occupancy, 0u);
  // A new REQ reopens with exp = 0.
  o = b.req(1, 1, 5, 0);
  EXPECT_TRUE(resp_is(o, rob::kHeld, 1, 1, 5));
  EXPECT_EQ(o.conns, 1u);
}

TEST(RobModelFin, ClosingSurvivesChainEndingOnGap) {
  Bench b(Params{});
  b.req(6, 0, 2, 2);
  b.fin(6, 0);
  Out o = b.req(6, 0, 0, 0);
  EXPECT_TRUE(rel_is(o, 6, 0, 0, 0));
  EXPECT_FALSE(o.in_ready);
  o = b.idle();  // 1 not found: the chain ends; still closing with held = 1
  EXPECT_FALSE(o.rel_valid);
  EXPECT_EQ(o.conns, 1u);
  o = b.req(6, 0, 1, 1);
  EXPECT_TRUE(rel_is(o, 6, 0, 1, 1));
  EXPECT_EQ(o.conns, 1u);
  o = b.idle();
  EXPECT_TRUE(rel_is(o, 6, 0, 2, 2));
  EXPECT_EQ(o.conns, 0u);
}

TEST(RobModelFin, FinUnknown) {
  Bench b(Params{});
  b.req(1, 2, 0, 0);
  const Out o = b.fin(1, 3, 4);
  EXPECT_TRUE(resp_is(o, rob::kFinUnknown, 1, 3, 4));
  EXPECT_EQ(o.cnt[rob::fins], 0u);
  EXPECT_EQ(o.conns, 1u);
  EXPECT_FALSE(o.rel_valid);
  // No counter moves for FIN_UNKNOWN.
  for (unsigned i = 0; i < rob::kNumCounters; ++i) {
    if (i != rob::delivered) {
      EXPECT_EQ(o.cnt[i], 0u) << rob::counter_name(i);
    }
  }
  // A FIN never opens a connection.
  EXPECT_TRUE(resp_is(b.fin(1, 3), rob::kFinUnknown, 1, 3, 0));
}

// ================================================================ SEQ wrap

TEST(RobModelSeqWrap, PairsSwappedSeqBits2) {
  Bench b(make_params(2, 1, 2, 8, 3, 2, 4));  // half = 2: only d = 1 is ahead
  const uint32_t n = 1000;
  for (uint32_t i = 0; i < n; i += 2) {
    SCOPED_TRACE(i);
    Out o = b.req(3, 1, i + 1, 1000 + i + 1);
    ASSERT_TRUE(resp_is(o, rob::kHeld, 3, 1, (i + 1) % 4));
    o = b.req(3, 1, i, 1000 + i);
    ASSERT_TRUE(resp_is(o, rob::kDelivered, 3, 1, i % 4));
    ASSERT_TRUE(rel_is(o, 3, 1, i % 4, 1000 + i));
    ASSERT_FALSE(o.in_ready);
    o = b.idle();
    ASSERT_TRUE(rel_is(o, 3, 1, (i + 1) % 4, 1000 + i + 1));
    ASSERT_TRUE(o.in_ready);
  }
  // d = 2 is behind with SeqBits 2: exp = 1000 mod 4 = 0, seq 2 -> DUPLICATE.
  Out o = b.req(3, 1, 2, 0);
  EXPECT_TRUE(resp_is(o, rob::kDuplicate, 3, 1, 2));
  EXPECT_EQ(o.cnt[rob::delivered], n / 2);
  EXPECT_EQ(o.cnt[rob::held], n / 2);
  EXPECT_EQ(o.cnt[rob::released], n / 2);
  EXPECT_EQ(o.max_occupancy, 1u);
}

TEST(RobModelSeqWrap, ReversedBlocksSeqBits3) {
  Bench b(small());  // half = 4: blocks of 4 reversed (d = 3, 2, 1 held)
  const uint32_t n = 1000;
  for (uint32_t i = 0; i < n; i += 4) {
    SCOPED_TRACE(i);
    for (uint32_t k = 3; k >= 1; --k) {
      const Out o = b.req(2, 0, i + k, i + k);
      ASSERT_TRUE(resp_is(o, rob::kHeld, 2, 0, (i + k) % 8));
    }
    Out o = b.req(2, 0, i, i);
    ASSERT_TRUE(rel_is(o, 2, 0, i % 8, i));
    for (uint32_t k = 1; k <= 3; ++k) {
      ASSERT_FALSE(o.in_ready);
      o = b.idle();
      ASSERT_TRUE(rel_is(o, 2, 0, (i + k) % 8, i + k));
    }
    ASSERT_TRUE(o.in_ready);
    ASSERT_EQ(o.occupancy, 0u);
  }
  const Out o = b.idle();
  EXPECT_EQ(o.cnt[rob::delivered], 250u);
  EXPECT_EQ(o.cnt[rob::held], 750u);
  EXPECT_EQ(o.cnt[rob::released], 750u);
  EXPECT_EQ(o.cnt[rob::duplicate], 0u);
  EXPECT_EQ(o.max_occupancy, 3u);
}

// ================================================================ occupancy and free list

TEST(RobModelOccupancy, MaxOccupancyKeepsHighest) {
  Bench b(Params{});
  Out o;
  for (uint32_t s = 1; s <= 5; ++s) {
    o = b.req(1, 0, s, s);
    EXPECT_EQ(o.occupancy, s);
    EXPECT_EQ(o.max_occupancy, s);
  }
  b.req(1, 0, 0, 0);
  for (int k = 0; k < 5; ++k) o = b.idle();
  EXPECT_EQ(o.occupancy, 0u);
  EXPECT_EQ(o.max_occupancy, 5u);
  b.req(1, 0, 7, 7);
  o = b.req(1, 0, 8, 8);
  EXPECT_EQ(o.occupancy, 2u);
  EXPECT_EQ(o.max_occupancy, 5u);
  o = b.reset();
  EXPECT_EQ(o.max_occupancy, 0u);
}

TEST(RobModelOccupancy, FreeListRingTokensSurviveWrap) {
  // Capacity 3: three connections each hold one packet; they are released in
  // an order that changes every round, so slots come back to the ring in many
  // orders while the head goes round it. Every release must carry its token.
  Bench b(small(3, 2, 5));
  const uint32_t srcs[3] = {0, 1, 2};
  uint32_t exp[3] = {0, 0, 0};
  uint32_t tok = 1;
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    SCOPED_TRACE(round);
    uint32_t t[3];
    for (int c = 0; c < 3; ++c) {
      t[c] = tok++;
      const Out o = b.req(srcs[c], 0, exp[c] + 1, t[c]);
      ASSERT_TRUE(resp_is(o, rob::kHeld, srcs[c], 0, (exp[c] + 1) % 8));
      ASSERT_EQ(o.occupancy, static_cast<uint32_t>(c + 1));
    }
    // Full: a fourth store is refused.
    ASSERT_TRUE(resp_is(b.req(3, 0, 1, 0), rob::kOverflowFull, 3, 0, 1));
    std::vector<int> order = {0, 1, 2};
    std::shuffle(order.begin(), order.end(), rng);
    uint32_t occ = 3;
    for (int c : order) {
      Out o = b.req(srcs[c], 0, exp[c], 0);
      ASSERT_TRUE(resp_is(o, rob::kDelivered, srcs[c], 0, exp[c] % 8));
      o = b.idle();
      ASSERT_TRUE(rel_is(o, srcs[c], 0, (exp[c] + 1) % 8, t[c]));
      ASSERT_EQ(o.occupancy, --occ);
      exp[c] = (exp[c] + 2) % 8;
    }
    // Every third round one more store and release: the ring head moves on
    // by one slot relative to the rounds.
    if (round % 3 == 0) {
      const uint32_t t1 = tok++;
      const Out o = b.req(0, 1, 1, t1);
      ASSERT_TRUE(resp_is(o, rob::kHeld, 0, 1, 1));
      ASSERT_TRUE(rel_is(b.req(0, 1, 0, 0), 0, 1, 0, 0));
      ASSERT_TRUE(rel_is(b.idle(), 0, 1, 1, t1));
      // FIN: (0, 1) starts again at exp 0 next time.
      ASSERT_TRUE(resp_is(b.fin(0, 1), rob::kFinDone, 0, 1, 0));
    }
  }
}

// ================================================================ closed loop

// Sources x connections send ordered streams 0..N-1 (SEQ wraps); the network
// scrambles the arrivals with a random delay line; rejected REQs (NO_CONN,
// OVERFLOW_*) are resent later; a few duplicates of acknowledged REQs are
// injected; a FIN follows a stream once every REQ of it is acknowledged, and a
// new stream starts on the same {src, cid} when the FIN is done and the
// stream is released. Every cycle: invariants; at the end: every stream complete.
struct LoopCfg {
  const char* name;
  Params p;
  unsigned seed;
  int cycles;
  unsigned flows;
  unsigned window;   // REQs a source sends ahead of its released count (<= half)
  double inject;     // per flow per cycle
  unsigned max_len;  // stream length 1..max_len
  unsigned max_delay;
};

class RobModelClosedLoop : public ::testing::TestWithParam<LoopCfg> {};

uint32_t token_of(unsigned flow, uint32_t stream, uint64_t idx) {
  uint64_t x = (uint64_t{flow} << 48) ^ (uint64_t{stream} << 32) ^ idx;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return static_cast<uint32_t>(x);
}

TEST_P(RobModelClosedLoop, EveryReqReleasedOnceInOrder) {
  const LoopCfg cfg = GetParam();
  const Params& p = cfg.p;
  const uint32_t smask = (1u << p.seq_bits) - 1u;
  const uint64_t half = uint64_t{1} << (p.seq_bits - 1);
  ASSERT_LE(cfg.window, half);
  std::mt19937_64 rng(cfg.seed);
  auto uni = [&](uint64_t lo, uint64_t hi) {  // inclusive
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  auto chance = [&](double pr) { return std::uniform_real_distribution<double>(0, 1)(rng) < pr; };

  struct Flow {
    uint32_t src = 0, cid = 0;
    uint32_t stream = 0;
    uint64_t n = 0, next_new = 0, rel = 0, acked = 0;
    std::vector<uint8_t> ack;
    std::vector<std::pair<uint64_t, uint64_t>> resend;  // (ready cycle, idx)
    std::multiset<uint64_t> dups;                       // dup copies in flight
    bool fin_sent = false, fin_done = false, open = false, done = false;
    uint64_t start_at = 0;
    unsigned streams_done = 0;
  };
  struct Pkt {
    uint64_t ready;
    int flow;  // -1: the unknown {src, cid}
    bool fin, dup;
    uint64_t idx;
    uint32_t src, cid, seq, token;
  };

  // Flows: distinct {src, cid}; the last {src, cid} of the space is kept unused.
  const uint32_t nsrc = 1u << p.src_bits, ncid = 1u << p.cid_bits;
  const uint32_t unknown_src = nsrc - 1, unknown_cid = ncid - 1;
  std::vector<Flow> flows(cfg.flows);
  std::map<std::pair<uint32_t, uint32_t>, unsigned> by_key;
  for (unsigned f = 0; f < cfg.flows; ++f) {
    uint32_t s, c;
    do {
      s = static_cast<uint32_t>(uni(0, nsrc - 1));
      c = static_cast<uint32_t>(uni(0, ncid - 1));
    } while (by_key.count({s, c}) || (s == unknown_src && c == unknown_cid));
    by_key[{s, c}] = f;
    flows[f].src = s;
    flows[f].cid = c;
  }
  bool draining = false;
  auto start_stream = [&](Flow& fl, uint64_t now) {
    ++fl.stream;
    fl.n = uni(1, cfg.max_len);
    fl.next_new = fl.rel = fl.acked = 0;
    fl.ack.assign(fl.n, 0);
    fl.resend.clear();
    fl.dups.clear();
    fl.fin_sent = fl.fin_done = fl.done = false;
    fl.start_at = now + uni(0, 20);
  };
  for (auto& fl : flows) start_stream(fl, 0);

  Bench b(p);
  b.reset();
  Out prev = b.m.outputs();
  std::vector<Pkt> net;
  std::array<uint32_t, rob::kNumCounters> tally{};
  uint64_t wrapped_streams = 0, ignored = 0;
  uint32_t max_occ_seen = 0;

  auto inject = [&](uint64_t now) {
    for (unsigned f = 0; f < cfg.flows; ++f) {
      Flow& fl = flows[f];
      if (fl.done || now < fl.start_at || !chance(cfg.inject)) continue;
      auto send = [&](bool fin, bool dup, uint64_t idx) {
        net.push_back(Pkt{now + uni(0, cfg.max_delay), static_cast<int>(f), fin, dup, idx, fl.src,
                          fl.cid, static_cast<uint32_t>(idx) & smask,
                          fin ? 0u : token_of(f, fl.stream, idx)});
      };
      // Sends stay below base + window: at arrival exp <= idx < exp + half
      // (ahead), and a duplicate's idx >= every exp it can meet - half (behind).
      const uint64_t base = fl.dups.empty() ? fl.rel : std::min(fl.rel, *fl.dups.begin());
      auto ready = std::find_if(fl.resend.begin(), fl.resend.end(),
                                [&](const std::pair<uint64_t, uint64_t>& r) { return r.first <= now; });
      if (ready != fl.resend.end()) {
        send(false, false, ready->second);
        fl.resend.erase(ready);
      } else if (!fl.fin_sent && fl.next_new > 0 && chance(0.03)) {
        // A duplicate of an acknowledged REQ.
        const uint64_t lo = fl.next_new > half ? fl.next_new - half : 0;
        const uint64_t idx = uni(lo, fl.next_new - 1);
        if (fl.ack[idx]) {
          fl.dups.insert(idx);
          send(false, true, idx);
        }
      } else if (fl.next_new < fl.n && fl.next_new < base + cfg.window) {
        send(false, false, fl.next_new++);
      } else if (fl.acked == fl.n && fl.dups.empty() && !fl.fin_sent) {
        fl.fin_sent = true;
        send(true, false, 0);
      }
    }
    if (chance(0.002)) {  // a FIN nobody opened
      net.push_back(Pkt{now + uni(0, cfg.max_delay), -1, true, false, 0, unknown_src, unknown_cid, 3, 0});
    }
  };

  auto all_done = [&]() {
    for (const auto& fl : flows)
      if (!fl.done) return false;
    return true;
  };

  uint64_t now = 0;
  const uint64_t limit = static_cast<uint64_t>(cfg.cycles) * 4;
  for (; now < limit; ++now) {
    if (now == static_cast<uint64_t>(cfg.cycles)) draining = true;
    if (draining && all_done()) break;
    inject(now);

    // The network offers one ready packet (random among the ready ones).
    In in = Bench::idle_in();
    int pick = -1;
    if (chance(0.9)) {
      std::vector<int> cand;
      for (size_t i = 0; i < net.size(); ++i)
        if (net[i].ready <= now) cand.push_back(static_cast<int>(i));
      if (!cand.empty()) pick = cand[uni(0, cand.size() - 1)];
    }
    Pkt pk{};
    if (pick >= 0) {
      pk = net[static_cast<size_t>(pick)];
      in.in_valid = true;
      in.in_fin = pk.fin;
      in.in_src = pk.src;
      in.in_cid = pk.cid;
      in.in_seq = pk.seq;
      in.in_token = pk.token;
    }
    const bool taken = pick >= 0 && prev.in_ready;
    if (pick >= 0 && !taken) ++ignored;
    if (taken) net.erase(net.begin() + pick);

    const Out o = b.edge(in);
    SCOPED_TRACE(::testing::Message() << "cycle " << now);

    // Response.
    ASSERT_EQ(o.resp_valid, taken);
    if (taken) {
      ASSERT_EQ(o.resp_src, pk.src);
      ASSERT_EQ(o.resp_cid, pk.cid);
      ASSERT_EQ(o.resp_seq, pk.seq);
      if (pk.flow < 0) {
        ASSERT_EQ(o.resp_kind, static_cast<uint32_t>(rob::kFinUnknown));
      } else {
        Flow& fl = flows[static_cast<size_t>(pk.flow)];
        if (pk.fin) {
          ASSERT_EQ(o.resp_kind, static_cast<uint32_t>(rob::kFinDone));
          ++tally[rob::fins];
          fl.fin_done = true;
          // Every REQ acknowledged and no chain running: all released, the entry is freed.
          ASSERT_EQ(fl.rel, fl.n);
          fl.open = false;
        } else if (pk.dup) {
          ASSERT_EQ(o.resp_kind, static_cast<uint32_t>(rob::kDuplicate)) << rob::resp_name(o.resp_kind);
          ++tally[rob::duplicate];
          fl.dups.erase(fl.dups.find(pk.idx));
        } else {
          const bool was_open = fl.open;
          switch (o.resp_kind) {
            case rob::kDelivered:
              ASSERT_EQ(pk.idx, fl.rel);
              ++tally[rob::delivered];
              break;
            case rob::kHeld:
              ASSERT_GT(pk.idx, fl.rel);
              ++tally[rob::held];
              break;
            case rob::kNoConn:
              ASSERT_FALSE(was_open);
              ASSERT_EQ(prev.conns, p.num_conn);
              ++tally[rob::no_conn];
              break;
            case rob::kOverflowFull:
              ASSERT_GT(pk.idx, fl.rel);
              ASSERT_EQ(prev.occupancy, p.capacity);
              ++tally[rob::overflow_full];
              break;
            case rob::kOverflowCollision:
              ASSERT_GT(pk.idx, fl.rel);
              ASSERT_LT(prev.occupancy, p.capacity);
              ++tally[rob::overflow_collision];
              break;
            default:
              FAIL() << "unexpected " << rob::resp_name(o.resp_kind) << " for idx " << pk.idx
                     << " rel " << fl.rel;
          }
          if (o.resp_kind != rob::kNoConn) fl.open = true;
          if (!was_open && prev.conns < p.num_conn) {
            ASSERT_NE(o.resp_kind, static_cast<uint32_t>(rob::kNoConn));
          }
          if (o.resp_kind == rob::kDelivered || o.resp_kind == rob::kHeld) {
            ASSERT_FALSE(fl.ack[pk.idx]);
            fl.ack[pk.idx] = 1;
            ++fl.acked;
          } else {
            fl.resend.emplace_back(now + uni(1, 30), pk.idx);
          }
        }
      }
    }

    // Release.
    if (o.rel_valid) {
      auto it = by_key.find({o.rel_src, o.rel_cid});
      ASSERT_NE(it, by_key.end()) << "release for an unknown connection";
      Flow& fl = flows[it->second];
      ASSERT_LT(fl.rel, fl.n) << "released twice / beyond the stream";
      ASSERT_TRUE(fl.ack[fl.rel]) << "released before acknowledged";
      ASSERT_EQ(o.rel_seq, static_cast<uint32_t>(fl.rel) & smask);
      ASSERT_EQ(o.rel_token, token_of(it->second, fl.stream, fl.rel));
      const bool delivered_now = taken && pk.flow == static_cast<int>(it->second) && !pk.fin &&
                                 o.resp_kind == rob::kDelivered;
      if (!delivered_now) {
        ASSERT_FALSE(taken) << "a release from the buffer in an arrival edge";
        ++tally[rob::released];
      }
      ++fl.rel;
      if (fl.n > smask + 1u && fl.rel == fl.n) ++wrapped_streams;
    }

    // Invariants.
    ASSERT_LE(o.occupancy, p.capacity);
    ASSERT_EQ(o.occupancy, o.cnt[rob::held] - o.cnt[rob::released]);
    ASSERT_GE(o.max_occupancy, o.occupancy);
    ASSERT_GE(o.max_occupancy, prev.max_occupancy);
    max_occ_seen = std::max(max_occ_seen, o.occupancy);
    ASSERT_EQ(o.max_occupancy, max_occ_seen);
    ASSERT_LE(o.conns, p.num_conn);
    unsigned open = 0;
    for (const auto& fl : flows) open += fl.open ? 1u : 0u;
    ASSERT_EQ(o.conns, open);
    if (!o.in_ready) {
      ASSERT_TRUE(o.rel_valid) << "a chain edge without a release";
    }
    if (!prev.in_ready) {
      ASSERT_FALSE(o.resp_valid);
    }
    for (unsigned i = 0; i < rob::kNumCounters; ++i) {
      if (i != rob::cam_inserts) {
        ASSERT_EQ(o.cnt[i], tally[i]) << rob::counter_name(i);
      }
    }
    ASSERT_LE(o.cnt[rob::cam_inserts], o.cnt[rob::held]);
    ASSERT_GE(o.cnt[rob::cam_inserts], prev.cnt[rob::cam_inserts]);

    // Streams complete: FIN done and everything released.
    for (auto& fl : flows) {
      if (!fl.done && fl.fin_done && fl.rel == fl.n) {
        fl.done = true;
        ++fl.streams_done;
        if (!draining) start_stream(fl, now);
      }
    }
    prev = o;
  }
  ASSERT_TRUE(all_done()) << "streams left incomplete after draining";
  unsigned streams = 0;
  for (const auto& fl : flows) {
    EXPECT_GE(fl.streams_done, 1u);
    streams += fl.streams_done;
  }
  const Out o = b.m.outputs();
  EXPECT_EQ(o.occupancy, 0u);
  EXPECT_EQ(o.conns, 0u);
  // Coverage: the interesting outcomes happened.
  EXPECT_GT(o.cnt[rob::delivered], 0u);
  EXPECT_GT(o.cnt[rob::held], 0u);
  EXPECT_GT(o.cnt[rob::duplicate], 0u);
  EXPECT_GT(o.cnt[rob::no_conn], 0u);
  EXPECT_GT(o.cnt[rob::overflow_full], 0u);
  EXPECT_GT(o.cnt[rob::overflow_collision], 0u);
  EXPECT_GT(o.cnt[rob::cam_inserts], 0u);
  EXPECT_GT(o.cnt[rob::fins], 0u);
  EXPECT_GT(wrapped_streams, 0u);
  EXPECT_GT(ignored, 0u);
  EXPECT_EQ(o.max_occupancy, max_occ_seen);
  std::cout << "[ " << cfg.name << " ] cycles " << now << " streams " << streams << " delivered "
            << o.cnt[rob::delivered] << " held " << o.cnt[rob::held] << " dup "
            << o.cnt[rob::duplicate] << " no_conn " << o.cnt[rob::no_conn] << " ovf_full "
            << o.cnt[rob::overflow_full] << " ovf_coll " << o.cnt[rob::overflow_collision]
            << " cam " << o.cnt[rob::cam_inserts] << " fins " << o.cnt[rob::fins] << " max_occ "
            << o.max_occupancy << " wrapped " << wrapped_streams << "\n";
}

LoopCfg small_loop(const char* name, unsigned seed) {
  return LoopCfg{name, small(8, 2, 4), seed, 100000, 6, 4, 0.25, 24, 20};
}
LoopCfg default_loop(const char* name, unsigned seed) {
  return LoopCfg{name, Params{}, seed, 100000, 24, 8, 0.05, 400, 40};
}

INSTANTIATE_TEST_SUITE_P(Seeds, RobModelClosedLoop,
                         ::testing::Values(small_loop("small_1", 1), small_loop("small_2", 2),
                                           small_loop("small_3", 3), default_loop("default_1", 11),
                                           default_loop("default_2", 12),
                                           default_loop("default_3", 13)),
                         [](const ::testing::TestParamInfo<LoopCfg>& i) { return std::string(i.param.name); });

}  // namespace
