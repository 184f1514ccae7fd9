// Unit tests of the wire-limited goodput formula (sue/goodput.hpp, docs/sue.md "Wire-limited goodput"):
// hand-computed figures, and the formula's frame size against sue::encode of the same packed-full PDU.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sue/encap.hpp"
#include "sue/goodput.hpp"

using namespace sue;

namespace {

const WireFormat kSue{false, 14, 4096};
const WireFormat kLite{true, 6, 1024};

TEST(SueGoodput, HandComputedSue) {
  // 256-byte writes: 276 B per packed command, 14 per PDU (3,864 B), frame 14 + 8 + 3864 + 4 + FCS 4 = 3,894,
  // + 20 preamble/IFG = 3,914 wire bytes carrying 14 x 274 XPU bytes.
  const Goodput g = wire_limited(kSue, 800, 256);
  EXPECT_EQ(g.cmds_per_pdu, 14);
  EXPECT_EQ(g.pdu_bytes, 3864);
  EXPECT_EQ(g.frame_bytes, 3894);
  EXPECT_EQ(g.wire_bytes, 3914);
  EXPECT_NEAR(g.efficiency, 14.0 * 274 / 3914, 1e-12);
  EXPECT_NEAR(g.gbps, 800.0 * 14 * 274 / 3914, 1e-9);
  // 64-byte writes: 84 B each, 48 per PDU.
  const Goodput s = wire_limited(kSue, 400, 64);
  EXPECT_EQ(s.cmds_per_pdu, 48);
  EXPECT_EQ(s.wire_bytes, 14 + 8 + 48 * 84 + 4 + 4 + 20);
  EXPECT_NEAR(s.gbps, 400.0 * 48 * 82 / 4082, 1e-9);
}

TEST(SueGoodput, HandComputedLiteAndPad) {
  // Lite, 256 B: 3 commands in 1 KiB, 6-byte header, no RH/R-CRC: 6 + 828 + 4 = 838, wire 858.
  const Goodput l = wire_limited(kLite, 400, 256);
  EXPECT_EQ(l.cmds_per_pdu, 3);
  EXPECT_EQ(l.wire_bytes, 858);
  EXPECT_NEAR(l.efficiency, 3.0 * 274 / 858, 1e-12);
  // A packing limit of one empty command: 14 + 8 + 20 + 4 = 46 bytes pad to 60, + FCS = 64, + 20 = 84 on the wire.
  const Goodput p = wire_limited(WireFormat{false, 14, 20}, 200, 0);
  EXPECT_EQ(p.cmds_per_pdu, 1);
  EXPECT_EQ(p.frame_bytes, 64);
  EXPECT_EQ(p.wire_bytes, 84);
  EXPECT_NEAR(p.gbps, 200.0 * 18 / 84, 1e-9);
  // Every overhead lowers the figure: more data per command is more efficient, never above the port.
  double prev = 0;
  for (unsigned d : {0u, 16u, 64u, 128u, 256u}) {
    const double e = wire_limited(kSue, 800, d).efficiency;
    EXPECT_GT(e, prev) << d;
    EXPECT_LT(e, 1.0) << d;
    prev = e;
  }
}

TEST(SueGoodput, FrameSizeMatchesTheEncoder) {
  // The formula's frame is the frame sue::encode makes of the same packed-full PDU (FCS included).
  for (bool lite : {false, true})
    for (unsigned dlen : {0u, 1u, 64u, 100u, 128u, 256u}) {
      const WireFormat& w = lite ? kLite : kSue;
      const Goodput g = wire_limited(w, 200, dlen);
      Frame f = make_frame(lite ? Profile::SueLite : Profile::Sue, lite ? Encap::AfhGen2_6 : Encap::AfhGen2_12);
      for (unsigned k = 0; k < static_cast<unsigned>(g.cmds_per_pdu); ++k) f.cmds.push_back(Bytes(kControlBytes + dlen, 0x5a));
      const auto b = encode(f);
      ASSERT_TRUE(b.ok()) << b.error().detail;
      EXPECT_EQ(static_cast<double>(b.value().size()), g.frame_bytes) << "lite " << lite << " dlen " << dlen;
      // One more command would break the packing limit.
      f.cmds.push_back(Bytes(kControlBytes + dlen, 0x5a));
      EXPECT_FALSE(encode(f).ok()) << "lite " << lite << " dlen " << dlen;
    }
}

TEST(SueGoodput, RefusesNonsense) {
  EXPECT_THROW(wire_limited(kSue, 800, -1), std::invalid_argument);
  EXPECT_THROW(wire_limited(kSue, 0, 64), std::invalid_argument);
  EXPECT_THROW(wire_limited(kLite, 400, 1100), std::invalid_argument);
}

}  // namespace
