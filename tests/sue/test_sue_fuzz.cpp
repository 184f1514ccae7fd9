// Decoder robustness: random and mutated byte strings must decode to a frame or to a sane error,
// never crash or read out of bounds (run it under `make sanitize` to prove the latter).
// Built twice: label `unit` with SUE_FUZZ_ITERATIONS = 2000 (the default), label `nightly` with
// many more iterations and other seeds.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <string>

#include "sue/encap.hpp"
#include "sue_test_util.hpp"

#ifndef SUE_FUZZ_ITERATIONS
#define SUE_FUZZ_ITERATIONS 2000
#endif
#ifndef SUE_FUZZ_SEED
#define SUE_FUZZ_SEED 1
#endif

using namespace sue;

namespace {

constexpr uint64_t kIterations = SUE_FUZZ_ITERATIONS;
constexpr uint64_t kSeed = SUE_FUZZ_SEED;

/// Equal, or different only in an IPv4 header checksum that is 0x0000 on one side and 0xFFFF on
/// the other (both are valid one's complement zeros; the encoder writes 0x0000) and so in the FCS.
bool same_frame(const Bytes& a, const Bytes& b, const Decoded& d) {
  if (a == b) return true;
  if (a.size() != b.size() || d.frame.encap != Encap::Std || d.frame.ip.version != 4) return false;
  const size_t at = (d.frame.vlan.present ? 18 : 14) + 10;
  for (size_t i = 0; i + 4 < a.size(); ++i)
    if (a[i] != b[i] && i != at && i != at + 1) return false;
  const unsigned x = (a[at] << 8) | a[at + 1], y = (b[at] << 8) | b[at + 1];
  return (x == 0 && y == 0xFFFF) || (x == 0xFFFF && y == 0);
}

struct Checker {
  std::map<Errc, uint64_t> errors;
  uint64_t decoded = 0;

  void operator()(const Bytes& b, const DecodeOptions& o) {
    Result<Decoded> d = decode(b, o);
    if (d.ok()) {
      ++decoded;
      ASSERT_EQ(d.value().info.frame_bytes, b.size());
      ASSERT_EQ(d.value().frame.profile, o.profile);
      if (o.encap) {
        ASSERT_EQ(d.value().frame.encap, *o.encap);
      }
      // whatever decodes re-encodes to the same bytes: no field is lost or invented
      Result<Bytes> again = encode(d.value().frame);
      ASSERT_TRUE(again.ok()) << again.error().message();
      ASSERT_TRUE(same_frame(again.value(), b, d.value())) << "re-encode differs, " << b.size() << " bytes";
      return;
    }
    const Error& e = d.error();
    bool known = false;
    for (Errc c : all_errcs()) known |= c == e.code;
    ASSERT_TRUE(known);
    ASSERT_NE(e.code, Errc::BadField);  // an encode-only error
    ASSERT_FALSE(e.detail.empty());
    ASSERT_EQ(e.detail.find('\n'), std::string::npos);
    ASSERT_LT(e.detail.size(), 400u);
    ++errors[e.code];
  }

  void report(const char* what) const {
    std::string s;
    for (auto& [c, n] : errors) s += fmt::format(" {}={}", errc_name(c), n);
    std::printf("%s: %llu decoded,%s\n", what, static_cast<unsigned long long>(decoded), s.c_str());
  }
};

DecodeOptions random_options(core::Rng& r) {
  DecodeOptions o;
  o.profile = suetest::kProfiles[r.uniform(0, 1)];
  if (r.chance(0.3)) o.encap = suetest::kEncaps[r.uniform(0, 3)];
  return o;
}

void mutate(core::Rng& r, Bytes& b) {
  const int n = static_cast<int>(r.uniform(1, 4));
  for (int k = 0; k < n; ++k) {
    const uint64_t what = r.uniform(0, 9);
    // most mutations hit the headers (first 80 bytes), where the decoder branches
    const size_t span = b.empty() ? 0 : (r.chance(0.7) ? std::min<size_t>(b.size(), 80) : b.size());
    if (what <= 3 && span) {
      b[r.uniform(0, span - 1)] ^= static_cast<uint8_t>(1u << r.uniform(0, 7));
    } else if (what <= 5 && span) {
      b[r.uniform(0, span - 1)] = static_cast<uint8_t>(r.next());
    } else if (what == 6 && !b.empty()) {
      b.resize(r.uniform(0, b.size() - 1));  // truncate
    } else if (what == 7) {
      const size_t at = b.empty() ? 0 : r.uniform(0, b.size());
      Bytes ins = suetest::random_bytes(r, r.uniform(1, 8));
      b.insert(b.begin() + static_cast<long>(at), ins.begin(), ins.end());
    } else if (what == 8 && b.size() > 2) {
      const size_t at = r.uniform(0, b.size() - 2);
      b.erase(b.begin() + static_cast<long>(at), b.begin() + static_cast<long>(at + r.uniform(1, b.size() - at - 1)));
    } else if (b.size() >= 2) {  // a length-like 16-bit word: small, large or all ones
      const size_t at = r.uniform(0, std::min<size_t>(b.size(), 80) - 2);
      const uint16_t v = r.chance(0.5) ? static_cast<uint16_t>(r.uniform(0, 64)) : static_cast<uint16_t>(r.next());
      b[at] = static_cast<uint8_t>(v >> 8);
      b[at + 1] = static_cast<uint8_t>(v);
    }
  }
}

TEST(SueFuzz, RandomBytes) {
  core::Rng r(kSeed, "sue-fuzz-random");
  Checker check;
  for (uint64_t i = 0; i < kIterations; ++i) {
    Bytes b = suetest::random_bytes(r, r.uniform(0, r.chance(0.9) ? 160 : 5000));
    if (!b.empty() && r.chance(0.5)) b[0] = static_cast<uint8_t>(r.chance(0.5) ? 0x22 : 0x02);  // AFH Gen2
    if (b.size() > 14 && r.chance(0.6)) {  // a known Ethertype, so parsing goes past the MACs
      static const uint16_t kTypes[] = {0x0800, 0x86DD, 0x8100, 0x88B5, 0x88B6};
      const uint16_t t = kTypes[r.uniform(0, 4)];
      b[12] = static_cast<uint8_t>(t >> 8);
      b[13] = static_cast<uint8_t>(t);
    }
    if (r.chance(0.7)) suetest::refcs(b);
    check(b, random_options(r));
    if (HasFatalFailure()) return;
  }
  check.report("random bytes");
  EXPECT_GT(check.errors.size(), 5u);
}

TEST(SueFuzz, MutatedFrames) {
  core::Rng r(kSeed, "sue-fuzz-mutated");
  Checker check;
  for (uint64_t i = 0; i < kIterations; ++i) {
    const Profile p = suetest::kProfiles[r.uniform(0, 1)];
    const Encap e = suetest::kEncaps[r.uniform(0, 3)];
    Result<Bytes> good = encode(suetest::random_frame(r, p, e));
    ASSERT_TRUE(good.ok()) << good.error().message();
    Bytes b = good.value();
    mutate(r, b);
    if (r.chance(0.8)) suetest::refcs(b);  // get past the FCS to the parsers behind it
    DecodeOptions o{p, std::nullopt};
    if (r.chance(0.2)) o = random_options(r);
    check(b, o);
    if (HasFatalFailure()) return;
  }
  check.report("mutated frames");
  // the mutations reach deep into the parsers: most error codes show up
  EXPECT_GE(check.errors.size(), 10u);
  EXPECT_GT(check.errors[Errc::BadRcrc] + check.errors[Errc::BadUdpChecksum], 0u);
}

TEST(SueFuzz, ValidFramesStillDecode) {
  core::Rng r(kSeed, "sue-fuzz-valid");
  Checker check;
  for (uint64_t i = 0; i < kIterations / 4; ++i) {
    const Profile p = suetest::kProfiles[r.uniform(0, 1)];
    const Encap e = suetest::kEncaps[r.uniform(0, 3)];
    const Frame f = suetest::random_frame(r, p, e);
    Result<Bytes> b = encode(f);
    ASSERT_TRUE(b.ok());
    check(b.value(), {p, std::nullopt});
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(check.decoded, kIterations / 4);
}

}  // namespace
