// Unit tests of the text face of the SUE encapsulation (sue/fields.hpp), which `cosim pdu` uses:
// names, --field assignments and their one-line errors, hex, and the decode dissection.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/settings.hpp"
#include "sue/fields.hpp"
#include "sue_test_util.hpp"

using namespace sue;
using suetest::bytes;

namespace {

/// The one-line message of the UsageError `f` throws, or "" (and a failure) when none is thrown.
template <class F>
std::string usage_error(F f) {
  try {
    f();
  } catch (const core::UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    return e.what();
  }
  ADD_FAILURE() << "no UsageError";
  return "";
}

std::string value_of(const std::vector<std::pair<std::string, std::string>>& lines, const std::string& name) {
  for (auto& [k, v] : lines)
    if (k == name) return v;
  return "<missing>";
}

TEST(SueFields, ProfileAndEncapNames) {
  EXPECT_EQ(parse_profile("sue"), Profile::Sue);
  EXPECT_EQ(parse_profile("sue_lite"), Profile::SueLite);
  EXPECT_EQ(parse_encap("afh2_6"), Encap::AfhGen2_6);
  EXPECT_EQ(usage_error([] { parse_profile("lite"); }), "unknown profile 'lite' (allowed: sue, sue_lite)");
  EXPECT_EQ(usage_error([] { parse_encap("afh3"); }), "unknown encap 'afh3' (allowed: std, afh1, afh2_6, afh2_12)");
}

TEST(SueFields, FieldsPerFormat) {
  auto has = [](Profile p, Encap e, const std::string& n) {
    auto v = field_names(p, e);
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  EXPECT_TRUE(has(Profile::Sue, Encap::Std, "npsn"));
  EXPECT_TRUE(has(Profile::Sue, Encap::Std, "src_ip"));
  EXPECT_FALSE(has(Profile::SueLite, Encap::Std, "npsn"));
  EXPECT_FALSE(has(Profile::SueLite, Encap::AfhGen2_6, "dmac"));
  EXPECT_FALSE(has(Profile::SueLite, Encap::AfhGen2_6, "hop_count"));
  EXPECT_TRUE(has(Profile::SueLite, Encap::AfhGen2_12, "hop_count"));
  EXPECT_TRUE(has(Profile::SueLite, Encap::AfhGen1, "shim_entropy"));
  EXPECT_TRUE(has(Profile::SueLite, Encap::AfhGen1, "dst_xpu"));
  for (Profile p : suetest::kProfiles)
    for (Encap e : suetest::kEncaps) EXPECT_TRUE(has(p, e, "cmd"));
}

TEST(SueFields, Assignments) {
  FrameBuilder b(Profile::Sue, Encap::AfhGen1);
  b.assign("npsn=0x1234");
  b.assign("op=nack");
  b.assign("xpuid=1023");
  b.assign("dst_xpu=0x00010203");
  b.assign("pcp=6");
  b.assign("shim_entropy=77");
  b.assign("cmd=0x01020304");
  b.assign("cmd=aa:bb");
  Frame f = b.frame();
  EXPECT_EQ(f.rh.npsn, 0x1234);
  EXPECT_EQ(f.rh.op, 2);
  EXPECT_EQ(f.rh.xpuid, 1023);
  EXPECT_EQ(f.dmac, (Mac{0x02, 0x00, 0x00, 0x01, 0x02, 0x03}));  // prefix kept, XPU in the low 32 bits
  EXPECT_TRUE(f.vlan.present);                                   // a tag field asks for the tag
  EXPECT_EQ(f.vlan.pcp, 6);
  EXPECT_TRUE(f.shim.present);
  EXPECT_EQ(f.shim.entropy, 77);
  EXPECT_EQ(f.cmds, (std::vector<Bytes>{bytes({1, 2, 3, 4}), bytes({0xaa, 0xbb})}));

  FrameBuilder s(Profile::SueLite, Encap::Std);
  s.assign("src_ip=fd00::10");
  s.assign("dst_ip=fd00::20");
  s.assign("flow_label=0xABCDE");
  Frame g = s.frame();
  EXPECT_EQ(g.ip.version, 6);  // from the addresses
  EXPECT_EQ(g.ip.src6[15], 0x10);
  EXPECT_EQ(g.ip.flow_label, 0xABCDEu);
}

TEST(SueFields, AssignmentErrors) {
  auto err = [](Profile p, Encap e, std::vector<std::string> a) {
    return usage_error([&] {
      FrameBuilder b(p, e);
      for (auto& x : a) b.assign(x);
      b.frame();
    });
  };
  const Profile S = Profile::Sue, L = Profile::SueLite;
  EXPECT_NE(err(S, Encap::Std, {"bogus=1"}).find("unknown field 'bogus' for sue/std (allowed: dmac, smac,"),
            std::string::npos);
  EXPECT_NE(err(L, Encap::Std, {"npsn=1"}).find("field 'npsn' does not apply to sue_lite/std (allowed:"),
            std::string::npos);
  EXPECT_EQ(err(S, Encap::Std, {"npsn=x"}), "field 'npsn': 'x' is not a number (allowed: 0..65535)");
  EXPECT_EQ(err(S, Encap::Std, {"npsn=-1"}), "field 'npsn': '-1' is not a number (allowed: 0..65535)");
  EXPECT_EQ(err(S, Encap::Std, {"npsn=65536"}), "field 'npsn': '65536' is out of range (allowed: 0..65535)");
  EXPECT_EQ(err(S, Encap::Std, {"xpuid=0x400"}), "field 'xpuid': '0x400' is out of range (allowed: 0..1023)");
  EXPECT_EQ(err(S, Encap::AfhGen2_6, {"dst_xpu=65536"}),
            "field 'dst_xpu': '65536' is out of range (allowed: 0..65535)");
  EXPECT_EQ(err(S, Encap::Std, {"op=maybe"}), "field 'op': 'maybe' is not an opcode (allowed: none|ack|nack or 0..3)");
  EXPECT_EQ(err(S, Encap::Std, {"vlan=yes"}), "field 'vlan': 'yes' is not a boolean (allowed: 0|1)");
  EXPECT_EQ(err(S, Encap::Std, {"ip=5"}), "field 'ip': '5' is not an IP version (allowed: 4|6)");
  EXPECT_NE(err(S, Encap::Std, {"dmac=02:00:00"}).find("'02:00:00' is not a MAC address"), std::string::npos);
  EXPECT_NE(err(S, Encap::Std, {"src_ip=10.0.0.256"}).find("is not an IP address"), std::string::npos);
  EXPECT_NE(err(S, Encap::Std, {"cmd="}).find("field 'cmd': '' is empty (allowed: 1..4095 bytes in hex"),
            std::string::npos);
  EXPECT_NE(err(S, Encap::Std, {"cmd=0x123"}).find("odd number of hex digits"), std::string::npos);
  EXPECT_NE(err(S, Encap::Std, {"cmd=zz"}).find("'z' at position 0 is not a hex digit"), std::string::npos);
  EXPECT_NE(err(S, Encap::Std, {"npsn"}).find("bad --field 'npsn': expected name=value"), std::string::npos);
  EXPECT_NE(err(S, Encap::Std, {"=3"}).find("expected name=value"), std::string::npos);
  EXPECT_NE(err(S, Encap::Std, {"src_ip=fd00::1", "dst_ip=10.0.0.1"}).find("field 'dst_ip' is an IPv4 address"),
            std::string::npos);
  EXPECT_NE(err(S, Encap::Std, {"ip=4", "src_ip=fd00::1"}).find("field 'src_ip' is an IPv6 address"),
            std::string::npos);
  EXPECT_NE(err(S, Encap::Std, {"ip=6", "ip_id=3"}).find("field 'ip_id' applies to IPv4 only"), std::string::npos);
  EXPECT_NE(err(S, Encap::Std, {"flow_label=3"}).find("field 'flow_label' applies to IPv6 only"), std::string::npos);
  // control characters never break the one line
  EXPECT_EQ(err(S, Encap::Std, {"npsn=1\n2"}), "field 'npsn': '1?2' is not a number (allowed: 0..65535)");
}

TEST(SueFields, Hex) {
  EXPECT_EQ(parse_hex("0x0a0B"), bytes({0x0a, 0x0b}));
  EXPECT_EQ(parse_hex("0a 0b\n0c"), bytes({0x0a, 0x0b, 0x0c}));
  EXPECT_EQ(parse_hex("0a:0b_0c-0d"), bytes({0x0a, 0x0b, 0x0c, 0x0d}));
  EXPECT_EQ(parse_hex("0x0a 0x0b"), bytes({0x0a, 0x0b}));
  EXPECT_EQ(parse_hex(""), Bytes{});
  EXPECT_NE(usage_error([] { parse_hex("abc"); }).find("bad hex: an odd number of hex digits"), std::string::npos);
  EXPECT_NE(usage_error([] { parse_hex("a b"); }).find("a lone hex digit"), std::string::npos);
  EXPECT_NE(usage_error([] { parse_hex("0g"); }).find("'g' at position 1"), std::string::npos);
  EXPECT_EQ(to_hex(bytes({0x00, 0xAB, 0xff})), "00abff");
}

TEST(SueFields, DescribeAndFeedBack) {
  // Every line a decode prints whose name is a field feeds back into --field and rebuilds the frame.
  core::Rng r(3, "describe");
  for (Profile p : suetest::kProfiles) {
    for (Encap e : suetest::kEncaps) {
      for (int i = 0; i < 40; ++i) {
        const Frame f = suetest::random_frame(r, p, e);
        Result<Bytes> b = encode(f);
        ASSERT_TRUE(b.ok());
        Result<Decoded> d = decode(b.value(), {p, std::nullopt});
        ASSERT_TRUE(d.ok()) << d.error().message();
        const auto lines = describe(d.value());
        EXPECT_EQ(value_of(lines, "profile"), profile_name(p));
        EXPECT_EQ(value_of(lines, "encap"), encap_name(e));
        EXPECT_EQ(value_of(lines, "cmds"), std::to_string(f.cmds.size()));
        FrameBuilder fb(p, e);
        const auto names = field_names(p, e);
        for (auto& [k, v] : lines) {
          EXPECT_EQ(v.find('\n'), std::string::npos);
          if (std::find(names.begin(), names.end(), k) == names.end()) continue;
          fb.set(k, v.substr(0, v.find(' ')));  // "4660 (0x1234)" -> "4660"
        }
        EXPECT_EQ(fb.frame(), f) << profile_name(p) << "/" << encap_name(e) << " #" << i;
      }
    }
  }
}

TEST(SueFields, DescribeLines) {
  Frame f = make_frame(Profile::Sue, Encap::Std);
  f.rh.op = 1;
  f.rh.npsn = 0x1234;
  f.cmds = {bytes({0xde, 0xad})};
  Result<Decoded> d = decode(encode(f).value());
  ASSERT_TRUE(d.ok());
  const auto lines = describe(d.value());
  EXPECT_EQ(value_of(lines, "op"), "1 (ack)");
  EXPECT_EQ(value_of(lines, "npsn"), "4660 (0x1234)");
  EXPECT_EQ(value_of(lines, "cmd"), "0xdead");
  EXPECT_EQ(value_of(lines, "src_ip"), "10.0.0.1");
  EXPECT_EQ(value_of(lines, "udp_dport"), "50656 (0xc5e0)");
  EXPECT_EQ(value_of(lines, "ethertype"), "0x0800");
  EXPECT_EQ(value_of(lines, "frame_bytes"), "64");
  EXPECT_EQ(value_of(lines, "r_crc").substr(0, 2), "0x");
  EXPECT_EQ(lines.front().first, "profile");
  EXPECT_EQ(lines.back().first, "fcs");
}

}  // namespace
