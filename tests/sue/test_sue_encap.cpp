// Unit tests of the SUE encapsulation (sue/encap.hpp): CRCs, golden byte vectors written by hand
// from the SUE specification's tables, round trips of every profile x encapsulation, and every
// decode/encode error.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "sue/crc.hpp"
#include "sue/encap.hpp"
#include "sue_test_util.hpp"

using namespace sue;
using suetest::bytes;
using suetest::refcs;

namespace {

// ---------------------------------------------------------------------------
// CRCs

/// Bit-at-a-time reflected CRC-32, written from the definition (no table, no Boost).
uint32_t ref_crc32(const uint8_t* p, size_t n, uint32_t reflected_poly) {
  uint32_t c = 0xFFFFFFFF;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1) ? reflected_poly : 0);
  }
  return ~c;
}

TEST(SueCrc, CheckValues) {
  const char* s = "123456789";
  const auto* p = reinterpret_cast<const uint8_t*>(s);
  EXPECT_EQ(fcs32(p, 9), 0xCBF43926u);
  EXPECT_EQ(fcs32(p, 9), kFcsCheck);
  EXPECT_EQ(rcrc32(p, 9), 0xE3069283u);
  EXPECT_EQ(rcrc32(p, 9), kRcrcCheck);
  EXPECT_EQ(fcs32(p, 0), 0u);
}

TEST(SueCrc, MatchesBitwiseReference) {
  core::Rng r(1, "crc");
  for (int i = 0; i < 200; ++i) {
    Bytes b = suetest::random_bytes(r, r.uniform(0, 600));
    EXPECT_EQ(fcs32(b.data(), b.size()), ref_crc32(b.data(), b.size(), 0xEDB88320));  // 0x04C11DB7 reflected
    EXPECT_EQ(rcrc32(b.data(), b.size()), ref_crc32(b.data(), b.size(), 0x82F63B78));  // 0x1EDC6F41 reflected
  }
}

// ---------------------------------------------------------------------------
// Golden vectors, by hand from SUE spec Table 5 / Figure 9 (RH), Figure 10/15 (AFH Gen2),
// §3.5.3 (AFH Gen1) and RFC 791/768 + IEEE 802.3 (std). FCS, IP/UDP checksums and R-CRC of the
// full frames were computed independently (Python zlib.crc32, a bitwise CRC-32C, RFC 1071 sums).

Bytes rh_bytes(const ReliabilityHeader& h) {
  Frame f = make_frame(Profile::Sue, Encap::Std);
  f.rh = h;
  Result<Bytes> pdu = encode_pdu(f);
  EXPECT_TRUE(pdu.ok()) << (pdu.ok() ? "" : pdu.error().message());
  if (!pdu) return {};
  return Bytes(pdu.value().begin(), pdu.value().begin() + kRhBytes);
}

ReliabilityHeader rh(int ver, int op, int rsv, int xpuid, int npsn, int vc, int rsvd, int partition, int apsn) {
  ReliabilityHeader h;
  h.ver = static_cast<uint8_t>(ver);
  h.op = static_cast<uint8_t>(op);
  h.rsv = static_cast<uint8_t>(rsv);
  h.xpuid = static_cast<uint16_t>(xpuid);
  h.npsn = static_cast<uint16_t>(npsn);
  h.vc = static_cast<uint8_t>(vc);
  h.rsvd = static_cast<uint8_t>(rsvd);
  h.partition = static_cast<uint16_t>(partition);
  h.apsn = static_cast<uint16_t>(apsn);
  return h;
}

TEST(SueGolden, ReliabilityHeaderBitLayout) {
  // ver|op|rsv|xpuid[9:8] xpuid[7:0] npsn npsn vc|rsvd|part[9:8] part[7:0] apsn apsn
  // ver 0, op 1 (ACK), xpuid 0x3FF, npsn 0x1234, vc 2, partition 0x155, apsn 0xBEEF:
  //   00 01 00 11 = 0x13, 0xFF, 0x12 0x34, 10 0000 01 = 0x81, 0x55, 0xBE 0xEF
  EXPECT_EQ(rh_bytes(rh(0, 1, 0, 0x3FF, 0x1234, 2, 0, 0x155, 0xBEEF)),
            bytes({0x13, 0xFF, 0x12, 0x34, 0x81, 0x55, 0xBE, 0xEF}));
  // only xpuid 1
  EXPECT_EQ(rh_bytes(rh(0, 0, 0, 1, 0, 0, 0, 0, 0)), bytes({0x00, 0x01, 0, 0, 0, 0, 0, 0}));
  // every bit set
  EXPECT_EQ(rh_bytes(rh(3, 3, 3, 0x3FF, 0xFFFF, 3, 15, 0x3FF, 0xFFFF)),
            bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}));
  // ver 0, op 2 (NACK), rsv 1, xpuid 0x201, npsn 1, vc 1, rsvd 0xA, partition 0x2AA, apsn 0x8000:
  //   00 10 01 10 = 0x26, 0x01, 0x00 0x01, 01 1010 10 = 0x6A, 0xAA, 0x80 0x00
  EXPECT_EQ(rh_bytes(rh(0, 2, 1, 0x201, 1, 1, 0xA, 0x2AA, 0x8000)),
            bytes({0x26, 0x01, 0x00, 0x01, 0x6A, 0xAA, 0x80, 0x00}));
  // each field alone lands in its own bits
  EXPECT_EQ(rh_bytes(rh(1, 0, 0, 0, 0, 0, 0, 0, 0))[0], 0x40);
  EXPECT_EQ(rh_bytes(rh(0, 0, 2, 0, 0, 0, 0, 0, 0))[0], 0x08);
  EXPECT_EQ(rh_bytes(rh(0, 0, 0, 0, 0, 0, 1, 0, 0))[4], 0x04);
  EXPECT_EQ(rh_bytes(rh(0, 0, 0, 0, 0, 0, 0, 0x100, 0))[4], 0x01);
}

TEST(SueGolden, PackedOperations) {
  Frame f = make_frame(Profile::SueLite, Encap::Std);
  f.cmds = {bytes({1, 2, 3}), bytes({0xAA, 0xBB})};
  EXPECT_EQ(encode_pdu(f).value(), bytes({0x00, 0x03, 1, 2, 3, 0x80, 0x02, 0xAA, 0xBB}));
  f.cmds.clear();
  EXPECT_EQ(encode_pdu(f).value(), bytes({0x80, 0x00}));  // the empty PDU
  // SUE: RH | ops | R-CRC (CRC-32C over RH and ops, MSB first)
  Frame s = make_frame(Profile::Sue, Encap::Std);
  s.rh = rh(0, 1, 0, 1, 5, 1, 0, 0, 4);
  s.cmds = {bytes({1, 2, 3, 4})};
  EXPECT_EQ(encode_pdu(s).value(), bytes({0x10, 0x01, 0x00, 0x05, 0x40, 0x00, 0x00, 0x04, 0x80, 0x04, 1, 2, 3, 4,
                                          0xD0, 0x0A, 0x8D, 0xF0}));
}

TEST(SueGolden, Ipv4UdpLiteFrame) {
  Frame f = make_frame(Profile::SueLite, Encap::Std);
  f.cmds = {bytes({1, 2, 3, 4})};
  const Bytes want = bytes({
      0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,  // Ethernet
      0x45, 0x00, 0x00, 0x22, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x26, 0xc9,              // IPv4: len 34, DF,
      0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,                                      //   TTL 64, csum 26c9
      0xc0, 0x00, 0xc5, 0xe0, 0x00, 0x0e, 0xe1, 0xe3,                                      // UDP 49152 -> 50656
      0x80, 0x04, 0x01, 0x02, 0x03, 0x04,                                                  // LAST, 4 bytes
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,                                                  // pad to 60
      0xfb, 0x07, 0xe4, 0x22});                                                            // FCS, LSB first
  Result<Bytes> got = encode(f);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got.value(), want);
  Result<Decoded> d = decode(want, {Profile::SueLite, std::nullopt});
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(d.value().frame, f);
  EXPECT_EQ(d.value().info.ip_checksum, 0x26c9);
  EXPECT_EQ(d.value().info.udp_checksum, 0xe1e3);
  EXPECT_EQ(d.value().info.fcs, 0x22e407fbu);
  EXPECT_EQ(d.value().info.pad_bytes, 12u);
}

TEST(SueGolden, Ipv4UdpSueFrame) {
  Frame f = make_frame(Profile::Sue, Encap::Std);
  f.rh = rh(0, 1, 0, 1, 5, 1, 0, 0, 4);
  f.cmds = {bytes({1, 2, 3, 4})};
  const Bytes want = bytes({
      0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
      0x45, 0x00, 0x00, 0x2e, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x26, 0xbd,
      0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
      0xc0, 0x00, 0xc5, 0xe0, 0x00, 0x1a, 0x33, 0xc6,
      0x10, 0x01, 0x00, 0x05, 0x40, 0x00, 0x00, 0x04,  // RH: ACK, xpuid 1, npsn 5, vc 1, apsn 4
      0x80, 0x04, 0x01, 0x02, 0x03, 0x04,
      0xd0, 0x0a, 0x8d, 0xf0,                          // R-CRC
      0x14, 0x89, 0xe4, 0xbe});                        // FCS (no pad: 60 bytes already)
  Result<Bytes> got = encode(f);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got.value(), want);
  Result<Decoded> d = decode(want);
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(d.value().frame, f);
  EXPECT_EQ(d.value().info.rcrc, 0xd00a8df0u);
  EXPECT_EQ(d.value().info.pad_bytes, 0u);
}

TEST(SueGolden, AfhGen2SixByteFrame) {
  // Figure 10: DA = [W V Z Y X M][payload 0..2][dst XPU], SA = [tc|0x2][payload 3..5][src XPU].
  Frame f = make_frame(Profile::SueLite, Encap::AfhGen2_6);
  f.afh2.dst_xpu = 0x0102;
  f.afh2.src_xpu = 0x0304;
  f.afh2.tc = 5;
  f.cmds = {bytes({0xde, 0xad, 0xbe, 0xef})};
  Bytes want = bytes({0x22,              // W=1 V=0 Z=0 Y=0 X=1 M=0
                      0x80, 0x04, 0xde,  // op header (LAST, 4) and the first command byte
                      0x01, 0x02,        // destination XPU
                      0x52,              // tc 5 | M=0 X=1 Y=Z=0
                      0xad, 0xbe, 0xef,  // payload continues in the SA
                      0x03, 0x04});      // source XPU
  want.resize(60, 0);
  for (int b : {0xa3, 0x8e, 0xd0, 0x40}) want.push_back(static_cast<uint8_t>(b));
  Result<Bytes> got = encode(f);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got.value(), want);
  EXPECT_EQ(detect_encap(want.data(), want.size()), Encap::AfhGen2_6);
  Result<Decoded> d = decode(want, {Profile::SueLite, std::nullopt});
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(d.value().frame, f);
  EXPECT_EQ(d.value().info.header_bytes, 6u);
  EXPECT_EQ(d.value().info.pad_bytes, 48u);  // 60 - 6 header - 6 PDU
}

TEST(SueGolden, AfhGen2TwelveByteHeader) {
  Frame f = make_frame(Profile::SueLite, Encap::AfhGen2_12);
  f.afh2.m = 1;
  f.afh2.entropy = 0x5A;
  f.afh2.dst_xpu = 0x0A0B0C0D;
  f.afh2.tc = 3;
  f.afh2.hop_count = 7;
  f.afh2.src_xpu = 0x01020304;
  f.cmds = {bytes({0x77})};
  const Bytes head = bytes({0x03, 0x5A, 0x0A, 0x0B, 0x0C, 0x0D,  // W=0 V=0 X=1 M=1 | entropy | dst XPU
                            0x32, 0x07, 0x01, 0x02, 0x03, 0x04,  // tc 3|0x2 | hop count | src XPU
                            0x88, 0xB6, 0x80, 0x01, 0x77});       // SUE Ethertype, LAST 1, cmd
  Result<Bytes> got = encode(f);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got.value().size(), 64u);
  EXPECT_EQ(Bytes(got.value().begin(), got.value().begin() + head.size()), head);
}

TEST(SueGolden, AfhGen1Mac) {
  EXPECT_EQ(gen1_mac(0x0200, 0x123), (Mac{0x02, 0x00, 0x00, 0x00, 0x01, 0x23}));
  EXPECT_EQ(gen1_xpu(Mac{0x02, 0x00, 0xDE, 0xAD, 0xBE, 0xEF}), 0xDEADBEEFu);
  EXPECT_EQ(gen1_prefix(Mac{0x0A, 0xBC, 0, 0, 0, 0}), 0x0ABC);
  Frame f = make_frame(Profile::SueLite, Encap::AfhGen1);
  f.dmac = gen1_mac(kDefaultGen1MacPrefix, 7);
  f.smac = gen1_mac(kDefaultGen1MacPrefix, 3);
  f.vlan = {true, 5, 0, 100};
  f.cmds = {bytes({0x42})};
  const Bytes head = bytes({0x02, 0x00, 0x00, 0x00, 0x00, 0x07,  // DA: prefix 0x0200, XPU 7
                            0x02, 0x00, 0x00, 0x00, 0x00, 0x03,  // SA: prefix 0x0200, XPU 3
                            0x81, 0x00, 0xA0, 0x64,              // 802.1Q: PCP 5, DEI 0, VID 100
                            0x88, 0xB5, 0x88, 0xB6,              // AFH Gen1, then SUE
                            0x80, 0x01, 0x42});
  Result<Bytes> got = encode(f);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(Bytes(got.value().begin(), got.value().begin() + head.size()), head);
  // with the shim: version 0, tc, hop limit, reserved, entropy, PDU length, then the SUE Ethertype
  f.vlan.present = false;
  f.shim = {true, 0x20, 8, 0x1234};
  got = encode(f);
  ASSERT_TRUE(got.ok());
  const Bytes shim = bytes({0x88, 0xB5, 0x00, 0x20, 0x08, 0x00, 0x12, 0x34, 0x00, 0x03, 0x88, 0xB6, 0x80, 0x01, 0x42});
  EXPECT_EQ(Bytes(got.value().begin() + 12, got.value().begin() + 12 + shim.size()), shim);
}

// ---------------------------------------------------------------------------
// Round trips: every profile x encapsulation

class SueRoundTrip : public ::testing::TestWithParam<std::tuple<Profile, Encap>> {};

TEST_P(SueRoundTrip, RandomFrames) {
  const auto [p, e] = GetParam();
  core::Rng r(7, std::string("roundtrip-") + profile_name(p) + encap_name(e));
  for (int i = 0; i < 300; ++i) {
    const Frame f = suetest::random_frame(r, p, e);
    Result<Bytes> b = encode(f);
    ASSERT_TRUE(b.ok()) << b.error().message();
    ASSERT_GE(b.value().size(), kEthMinFrame);
    EXPECT_EQ(detect_encap(b.value().data(), b.value().size()), e);
    for (std::optional<Encap> forced : {std::optional<Encap>{}, std::optional<Encap>{e}}) {
      Result<Decoded> d = decode(b.value(), {p, forced});
      ASSERT_TRUE(d.ok()) << "iteration " << i << ": " << d.error().message();
      EXPECT_EQ(d.value().frame, f) << "iteration " << i;
      EXPECT_EQ(d.value().info.frame_bytes, b.value().size());
      Result<Bytes> again = encode(d.value().frame);
      ASSERT_TRUE(again.ok());
      EXPECT_EQ(again.value(), b.value());
    }
  }
}

TEST_P(SueRoundTrip, PackingLimitExactly) {
  const auto [p, e] = GetParam();
  Frame f = make_frame(p, e);
  const size_t limit = max_packed(p);
  f.cmds = {Bytes(limit - 2 - 2 - 10, 0x5A), Bytes(10, 0xA5)};  // two headers + bytes = limit
  Result<Bytes> b = encode(f);
  ASSERT_TRUE(b.ok()) << b.error().message();
  Result<Decoded> d = decode(b.value(), {p, std::nullopt});
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(d.value().frame, f);
  EXPECT_EQ(d.value().info.packed_bytes, limit);
  f.cmds[1].push_back(0);  // one byte over
  Result<Bytes> over = encode(f);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code, Errc::PackingLimit);
}

TEST_P(SueRoundTrip, EmptyPdu) {
  const auto [p, e] = GetParam();
  Frame f = make_frame(p, e);
  if (p == Profile::Sue) f.rh.op = 1;  // an ACK carrier
  Result<Bytes> b = encode(f);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b.value().size(), kEthMinFrame);
  Result<Decoded> d = decode(b.value(), {p, std::nullopt});
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_TRUE(d.value().frame.cmds.empty());
  EXPECT_EQ(d.value().frame, f);
}

INSTANTIATE_TEST_SUITE_P(AllFormats, SueRoundTrip,
                         ::testing::Combine(::testing::ValuesIn(suetest::kProfiles),
                                            ::testing::ValuesIn(suetest::kEncaps)),
                         [](const auto& info) {
                           return std::string(profile_name(std::get<0>(info.param))) + "_" +
                                  encap_name(std::get<1>(info.param));
                         });

TEST(SueEncap, Names) {
  EXPECT_STREQ(profile_name(Profile::Sue), "sue");
  EXPECT_STREQ(profile_name(Profile::SueLite), "sue_lite");
  EXPECT_STREQ(encap_name(Encap::AfhGen2_12), "afh2_12");
  for (Errc c : all_errcs()) EXPECT_STRNE(errc_name(c), "?");
  EXPECT_EQ(max_packed(Profile::Sue), 4096u);
  EXPECT_EQ(max_packed(Profile::SueLite), 1024u);
}

TEST(SueEncap, DetectEncap) {
  Bytes b(64, 0);
  EXPECT_EQ(detect_encap(b.data(), b.size()), std::nullopt);  // Ethertype 0
  EXPECT_EQ(detect_encap(b.data(), 10), std::nullopt);
  EXPECT_EQ(detect_encap(nullptr, 64), std::nullopt);
  b[12] = 0x08;
  EXPECT_EQ(detect_encap(b.data(), b.size()), Encap::Std);
  b[12] = 0x86, b[13] = 0xDD;
  EXPECT_EQ(detect_encap(b.data(), b.size()), Encap::Std);
  b[12] = 0x88, b[13] = 0xB5;
  EXPECT_EQ(detect_encap(b.data(), b.size()), Encap::AfhGen1);
  b[12] = 0x88, b[13] = 0xB6;
  EXPECT_EQ(detect_encap(b.data(), b.size()), Encap::AfhGen2_12);
  b[12] = 0x81, b[13] = 0x00, b[16] = 0x88, b[17] = 0xB5;
  EXPECT_EQ(detect_encap(b.data(), b.size()), Encap::AfhGen1);
  b[17] = 0xB6;  // AFH Gen2 carries no tag
  EXPECT_EQ(detect_encap(b.data(), b.size()), std::nullopt);
  b[0] = 0x22;  // X=1, W=1: compressed AFH Gen2 whatever follows
  EXPECT_EQ(detect_encap(b.data(), b.size()), Encap::AfhGen2_6);
  b[0] = 0x23 | 0x10 | 0xC0;  // M, V and spare bits do not change the detection
  EXPECT_EQ(detect_encap(b.data(), b.size()), Encap::AfhGen2_6);
}

// ---------------------------------------------------------------------------
// Errors: every code, with a one-line detail

Bytes enc(const Frame& f) {
  Result<Bytes> b = encode(f);
  EXPECT_TRUE(b.ok()) << (b.ok() ? "" : b.error().message());
  return b.ok() ? b.value() : Bytes{};
}

Frame frame(Profile p, Encap e, std::vector<Bytes> cmds = {bytes({1, 2, 3, 4})}) {
  Frame f = make_frame(p, e);
  f.cmds = std::move(cmds);
  return f;
}

/// decode must fail with `code`; the detail is one non-empty line.
void expect_error(const Bytes& b, Errc code, Profile p = Profile::Sue, std::optional<Encap> e = std::nullopt,
                  const std::string& has = "") {
  Result<Decoded> d = decode(b, {p, e});
  ASSERT_FALSE(d.ok()) << "decoded a frame that should fail with " << errc_name(code);
  EXPECT_EQ(d.error().code, code) << d.error().message();
  EXPECT_FALSE(d.error().detail.empty());
  EXPECT_EQ(d.error().message().find('\n'), std::string::npos);
  if (!has.empty()) {
    EXPECT_NE(d.error().detail.find(has), std::string::npos) << d.error().detail;
  }
}

TEST(SueErrors, Truncated) {
  Bytes b = enc(frame(Profile::Sue, Encap::AfhGen2_12));
  for (size_t n : {0, 1, 14, 63}) expect_error(Bytes(b.begin(), b.begin() + n), Errc::Truncated);
  EXPECT_EQ(decode(nullptr, 64).error().code, Errc::Truncated);
  // a command longer than the frame
  expect_error(suetest::raw_afh1(bytes({0x80, 0x50, 1, 2})), Errc::Truncated, Profile::SueLite, {}, "cmd 0");
  // no LAST before the end of the frame: the next op header is missing
  Bytes ops;
  for (int i = 0; i < 15; ++i) ops.insert(ops.end(), {0x00, 0x01, 0x11});
  ops.push_back(0x00);  // 16 + 46 = 62 bytes, a lone byte where an op header should be
  expect_error(suetest::raw_afh1(ops), Errc::Truncated, Profile::SueLite, {}, "op header");
  // tag + IPv6 leave 2 bytes of a minimum frame for a UDP payload length of 8
  Bytes h = bytes({0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x81, 0, 0, 1, 0x86, 0xDD,
                   0x60, 0, 0, 0, 0x00, 0x08, 17, 64});
  h.resize(18 + 40, 0);
  expect_error(suetest::with_fcs(h), Errc::Truncated, Profile::SueLite, {}, "IPv6 payload length 8");
  // the shim gives a longer PDU than the frame holds
  Frame s = frame(Profile::SueLite, Encap::AfhGen1);
  s.shim.present = true;
  Bytes sb = enc(s);
  sb[20] = 0x03;  // shim length 0x0306
  refcs(sb);
  expect_error(sb, Errc::Truncated, Profile::SueLite, {}, "gives a SUE PDU");
}

TEST(SueErrors, BadFcs) {
  Bytes b = enc(frame(Profile::Sue, Encap::Std));
  for (size_t i : {size_t{0}, b.size() / 2, b.size() - 1}) {
    Bytes c = b;
    c[i] ^= 0x01;
    expect_error(c, Errc::BadFcs, Profile::Sue, {}, "FCS");
  }
}

TEST(SueErrors, BadRcrc) {
  for (Encap e : suetest::kEncaps) {
    Frame f = frame(Profile::Sue, e);
    if (e == Encap::Std) f.udp.checksum = false;  // else the UDP checksum sees it first
    Bytes b = enc(f);
    // the first command byte: header + RH + op header (afh2_6: logical byte 10 is frame byte 16)
    const size_t at = e == Encap::AfhGen2_6 ? 16 : (e == Encap::Std ? 42 : e == Encap::AfhGen1 ? 16 : 14) + 10;
    Bytes c = b;
    c[at] ^= 0x80;
    refcs(c);
    expect_error(c, Errc::BadRcrc, Profile::Sue, {}, "R-CRC");
  }
  // the R-CRC itself corrupted
  Frame f = frame(Profile::Sue, Encap::AfhGen2_12);
  f.cmds = {Bytes(60, 0x33)};
  Bytes b = enc(f);
  b[b.size() - 5] ^= 1;
  refcs(b);
  expect_error(b, Errc::BadRcrc);
}

TEST(SueErrors, UnknownEthertype) {
  Bytes b = enc(frame(Profile::Sue, Encap::Std));
  b[12] = 0x12, b[13] = 0x34;
  refcs(b);
  expect_error(b, Errc::UnknownEthertype, Profile::Sue, {}, "0x1234");
  expect_error(b, Errc::UnknownEthertype, Profile::Sue, Encap::Std, "0x1234");
  expect_error(b, Errc::UnknownEthertype, Profile::Sue, Encap::AfhGen1, "0x1234");
  expect_error(b, Errc::UnknownEthertype, Profile::Sue, Encap::AfhGen2_12, "0x1234");
  // AFH Gen1: second Ethertype that is neither SUE nor a shim; shim followed by a wrong Ethertype
  Bytes g = enc(frame(Profile::Sue, Encap::AfhGen1));
  g[14] = 0x90, g[15] = 0x00;
  refcs(g);
  expect_error(g, Errc::UnknownEthertype, Profile::Sue, {}, "0x9000");
  Frame s = frame(Profile::Sue, Encap::AfhGen1);
  s.shim.present = true;
  Bytes sb = enc(s);
  sb[22] = 0x08, sb[23] = 0x00;
  refcs(sb);
  expect_error(sb, Errc::UnknownEthertype, Profile::Sue, {}, "second Ethertype 0x0800");
}

TEST(SueErrors, UnknownUdpPort) {
  Bytes b = enc(frame(Profile::Sue, Encap::Std));
  b[36] = 0x12, b[37] = 0xB7;  // 4791, RoCEv2
  refcs(b);
  expect_error(b, Errc::UnknownUdpPort, Profile::Sue, {}, "4791");
}

TEST(SueErrors, UnsupportedIp) {
  const Bytes b = enc(frame(Profile::Sue, Encap::Std));
  Bytes c = b;
  c[14] = 0x46;  // IHL 6
  refcs(c);
  expect_error(c, Errc::UnsupportedIp, Profile::Sue, {}, "IHL 6");
  c = b;
  c[23] = 6;  // TCP
  suetest::fix_ipv4_checksum(c);
  refcs(c);
  expect_error(c, Errc::UnsupportedIp, Profile::Sue, {}, "protocol 6");
  c = b;
  c[20] = 0x20;  // MF
  suetest::fix_ipv4_checksum(c);
  refcs(c);
  expect_error(c, Errc::UnsupportedIp, Profile::Sue, {}, "fragment");
  Frame f6 = frame(Profile::Sue, Encap::Std);
  f6.ip.version = 6;
  c = enc(f6);
  c[20] = 0;  // next header: hop-by-hop options
  refcs(c);
  expect_error(c, Errc::UnsupportedIp, Profile::Sue, {}, "next header 0");
}

TEST(SueErrors, BadVersion) {
  Frame f = frame(Profile::Sue, Encap::AfhGen1);
  f.rh.ver = 1;
  expect_error(enc(f), Errc::BadVersion, Profile::Sue, {}, "RH ver 1");
  for (Encap e : {Encap::AfhGen2_6, Encap::AfhGen2_12}) {
    Frame g = frame(Profile::SueLite, e);
    g.afh2.v = 1;
    expect_error(enc(g), Errc::BadVersion, Profile::SueLite, {}, "V=1");
  }
  Bytes b = enc(frame(Profile::Sue, Encap::Std));
  b[14] = 0x65;  // version 6 after Ethertype IPv4
  refcs(b);
  expect_error(b, Errc::BadVersion, Profile::Sue, {}, "IP version 6");
  Frame f6 = frame(Profile::Sue, Encap::Std);
  f6.ip.version = 6;
  b = enc(f6);
  b[14] = 0x40;
  refcs(b);
  expect_error(b, Errc::BadVersion, Profile::Sue, {}, "IP version 4");
}

TEST(SueErrors, BadAfhAddress) {
  const Bytes b = enc(frame(Profile::Sue, Encap::AfhGen2_12));
  Bytes c = b;
  c[0] |= kAfhY;
  refcs(c);
  expect_error(c, Errc::BadAfhAddress, Profile::Sue, {}, "SLAP AAI");
  c = b;
  c[0] &= static_cast<uint8_t>(~kAfhX);
  refcs(c);
  expect_error(c, Errc::BadAfhAddress);
  c = b;
  c[6] |= 0x01;  // SA multicast
  refcs(c);
  expect_error(c, Errc::BadAfhAddress, Profile::Sue, {}, "SA first octet");
  // W=1 in a 12-byte header (forced), W=0 in a 6-byte one (forced)
  c = b;
  c[0] |= kAfhW;
  refcs(c);
  expect_error(c, Errc::BadAfhAddress, Profile::Sue, Encap::AfhGen2_12, "W=1");
  expect_error(b, Errc::BadAfhAddress, Profile::Sue, Encap::AfhGen2_6, "W=0");
  // a std/afh1 DA may not use the compressed pattern: decode refuses what encode refuses
  const Bytes c6 = enc(frame(Profile::SueLite, Encap::AfhGen2_6));
  expect_error(c6, Errc::BadAfhAddress, Profile::SueLite, Encap::Std, "compressed pattern");
  expect_error(c6, Errc::BadAfhAddress, Profile::SueLite, Encap::AfhGen1, "compressed pattern");
}

TEST(SueErrors, BadIpChecksum) {
  Bytes b = enc(frame(Profile::Sue, Encap::Std));
  b[22] ^= 0x01;  // TTL
  refcs(b);
  expect_error(b, Errc::BadIpChecksum, Profile::Sue, {}, "0x26bd");
}

TEST(SueErrors, BadUdpChecksum) {
  Bytes b = enc(frame(Profile::Sue, Encap::Std));
  b[40] ^= 0x10;
  refcs(b);
  expect_error(b, Errc::BadUdpChecksum, Profile::Sue, {}, "UDP checksum");
  b = enc(frame(Profile::Sue, Encap::Std));
  b[b.size() - 6] ^= 0x01;  // a PDU byte: UDP checksum covers it
  refcs(b);
  expect_error(b, Errc::BadUdpChecksum);
  Frame f6 = frame(Profile::Sue, Encap::Std);
  f6.ip.version = 6;
  b = enc(f6);
  b[14 + 40 + 6] = 0, b[14 + 40 + 7] = 0;
  refcs(b);
  expect_error(b, Errc::BadUdpChecksum, Profile::Sue, {}, "IPv6");
}

TEST(SueErrors, LengthMismatch) {
  Frame f = frame(Profile::Sue, Encap::Std);
  f.udp.checksum = false;
  Bytes b = enc(f);
  Bytes c = b;
  c[39] += 1;  // UDP length
  refcs(c);
  expect_error(c, Errc::LengthMismatch, Profile::Sue, {}, "UDP length");
  c = b;
  c[17] = 20;  // IPv4 total length below IP + UDP
  suetest::fix_ipv4_checksum(c);
  refcs(c);
  expect_error(c, Errc::LengthMismatch, Profile::Sue, {}, "total length 20");
  // a frame longer than its PDU needs: bytes after the PDU beyond the pad
  Frame g = frame(Profile::SueLite, Encap::AfhGen2_12, {Bytes(100, 7)});
  c = enc(g);
  c.insert(c.end() - 4, 0);
  refcs(c);
  expect_error(c, Errc::LengthMismatch, Profile::SueLite, {}, "need 0 bytes of pad");
  // the shim says one byte less than the PDU has
  Frame s = frame(Profile::SueLite, Encap::AfhGen1);
  s.shim.present = true;
  c = enc(s);
  c[21] -= 1;
  refcs(c);
  expect_error(c, Errc::LengthMismatch, Profile::SueLite);
  // UDP over a Lite PDU: LAST comes before the end of the UDP payload
  Frame l = frame(Profile::SueLite, Encap::Std);
  l.udp.checksum = false;
  c = enc(l);
  c[17] += 2, c[39] += 2;  // IP and UDP lengths 2 bytes longer (the pad holds them)
  suetest::fix_ipv4_checksum(c);
  refcs(c);
  expect_error(c, Errc::LengthMismatch, Profile::SueLite, {}, "packed operations end");
}

TEST(SueErrors, BadOpHeader) {
  expect_error(suetest::raw_afh1(bytes({0x90, 0x01, 0x42})), Errc::BadOpHeader, Profile::SueLite, {}, "reserved");
  expect_error(suetest::raw_afh1(bytes({0x00, 0x01, 0x42, 0x80, 0x00})), Errc::BadOpHeader, Profile::SueLite, {},
               "zero length");
  expect_error(suetest::raw_afh1(bytes({0x00, 0x00})), Errc::BadOpHeader, Profile::SueLite);
}

TEST(SueErrors, BadRhOpcode) {
  Frame f = frame(Profile::Sue, Encap::AfhGen2_6);
  f.rh.op = 3;
  expect_error(enc(f), Errc::BadRhOpcode, Profile::Sue, {}, "op 3");
}

TEST(SueErrors, ReservedBits) {
  Bytes b = enc(frame(Profile::SueLite, Encap::AfhGen2_6));
  b[0] |= 0x40;
  refcs(b);
  expect_error(b, Errc::ReservedBits, Profile::SueLite, {}, "spare");
  Frame s = frame(Profile::SueLite, Encap::AfhGen1);
  s.shim.present = true;
  b = enc(s);
  b[17] = 0xFF;  // shim reserved byte 3
  refcs(b);
  expect_error(b, Errc::ReservedBits, Profile::SueLite, {}, "shim");
  b = enc(frame(Profile::Sue, Encap::Std));
  b[20] |= 0x80;  // IPv4 reserved flag
  suetest::fix_ipv4_checksum(b);
  refcs(b);
  expect_error(b, Errc::ReservedBits, Profile::Sue, {}, "reserved flag");
}

TEST(SueErrors, PackingLimit) {
  // Lite: 1100 bytes of commands in a hand-built frame
  Bytes ops = bytes({0x04, 0x4C});  // 1100
  ops.resize(2 + 1100, 0x11);
  ops.push_back(0x80), ops.push_back(0x01), ops.push_back(0x22);
  expect_error(suetest::raw_afh1(ops), Errc::PackingLimit, Profile::SueLite, {}, "1024");
  // the same frame is fine for SUE's 4 KB? No RH/R-CRC there; instead encode rejects over-limit PDUs
  Frame f = frame(Profile::SueLite, Encap::Std, {Bytes(1023, 1)});
  Result<Bytes> r = encode(f);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::PackingLimit);
  f = frame(Profile::Sue, Encap::Std, {Bytes(4000, 1), Bytes(100, 2)});
  r = encode(f);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::PackingLimit);
}

TEST(SueErrors, BadPad) {
  Bytes b = enc(frame(Profile::SueLite, Encap::AfhGen1));
  b[b.size() - 5] = 0x01;  // last pad byte
  refcs(b);
  expect_error(b, Errc::BadPad, Profile::SueLite, {}, "pad byte");
  b = enc(frame(Profile::SueLite, Encap::AfhGen2_6));
  b[20] = 0xFF;
  refcs(b);
  expect_error(b, Errc::BadPad, Profile::SueLite);
}

TEST(SueErrors, BadFieldOnEncode) {
  auto bad = [](Frame f, const std::string& has) {
    Result<Bytes> r = encode(f);
    ASSERT_FALSE(r.ok()) << has;
    EXPECT_EQ(r.error().code, Errc::BadField);
    EXPECT_NE(r.error().detail.find(has), std::string::npos) << r.error().detail;
  };
  Frame f = frame(Profile::Sue, Encap::Std);
  f.rh.xpuid = 1024;
  bad(f, "'xpuid' = 1024");
  f = frame(Profile::Sue, Encap::Std);
  f.rh.partition = 2000;
  bad(f, "'partition'");
  f = frame(Profile::Sue, Encap::Std);
  f.rh.vc = 4;
  bad(f, "'vc'");
  f = frame(Profile::Sue, Encap::Std, {Bytes{}});
  bad(f, "cmd 0 has 0 bytes");
  f = frame(Profile::Sue, Encap::Std, {Bytes(4096, 0)});
  bad(f, "cmd 0 has 4096 bytes");
  f = frame(Profile::Sue, Encap::Std);
  f.vlan = {true, 8, 0, 0};
  bad(f, "'pcp'");
  f = frame(Profile::Sue, Encap::Std);
  f.ip.version = 5;
  bad(f, "'ip' = 5");
  f = frame(Profile::Sue, Encap::Std);
  f.ip.version = 6;
  f.udp.checksum = false;
  bad(f, "udp_csum");
  f = frame(Profile::Sue, Encap::AfhGen1);
  f.dmac[0] = 0x22;
  bad(f, "compressed pattern");
  f = frame(Profile::Sue, Encap::AfhGen2_6);
  f.afh2.dst_xpu = 0x10000;
  bad(f, "'dst_xpu'");
  f = frame(Profile::Sue, Encap::AfhGen2_12);
  f.afh2.tc = 16;
  bad(f, "'tc'");
  // fields of other encapsulations are ignored
  f = frame(Profile::SueLite, Encap::AfhGen2_12);
  f.rh.xpuid = 5000;
  f.vlan.pcp = 9;
  EXPECT_TRUE(encode(f).ok());
}

TEST(SueErrors, EveryCodeIsReachable) {
  // Guard: the tests above cover every code; this lists them so a new code needs a new test.
  EXPECT_EQ(all_errcs().size(), 17u);
}

}  // namespace
