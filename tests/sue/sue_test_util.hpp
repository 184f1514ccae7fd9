// Helpers of the SUE encapsulation tests: random valid frames, hand-built frames, FCS repair.
#pragma once
#include <algorithm>
#include <initializer_list>
#include <ostream>
#include <string>

#include "core/rng.hpp"
#include "sue/crc.hpp"
#include "sue/encap.hpp"

namespace sue {
// gtest prints parameters with these (CTest test names read "(sue, afh2_6)").
inline void PrintTo(Profile p, std::ostream* os) { *os << profile_name(p); }
inline void PrintTo(Encap e, std::ostream* os) { *os << encap_name(e); }
}  // namespace sue

namespace suetest {

using sue::Bytes;
using sue::Encap;
using sue::Frame;
using sue::Profile;

inline const Profile kProfiles[] = {Profile::Sue, Profile::SueLite};
inline const Encap kEncaps[] = {Encap::Std, Encap::AfhGen1, Encap::AfhGen2_6, Encap::AfhGen2_12};

inline Bytes bytes(std::initializer_list<int> v) {
  Bytes b;
  for (int x : v) b.push_back(static_cast<uint8_t>(x));
  return b;
}

/// Recomputes the FCS of a frame (the last 4 bytes) after a deliberate edit.
inline void refcs(Bytes& f) {
  if (f.size() < 4) return;
  const size_t n = f.size() - 4;
  const uint32_t c = sue::fcs32(f.data(), n);
  for (int i = 0; i < 4; ++i) f[n + i] = static_cast<uint8_t>(c >> (8 * i));
}

/// A frame of raw bytes (FCS not included): padded to 60 and given its FCS.
inline Bytes with_fcs(Bytes body) {
  if (body.size() < sue::kEthMinNoFcs) body.resize(sue::kEthMinNoFcs, 0);
  body.resize(body.size() + 4);
  refcs(body);
  return body;
}

/// An AFH Gen1 frame (no tag, no shim) around arbitrary PDU bytes.
inline Bytes raw_afh1(const Bytes& pdu) {
  Bytes b = bytes({0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x88, 0xB5, 0x88, 0xB6});
  b.insert(b.end(), pdu.begin(), pdu.end());
  return with_fcs(b);
}

/// Recomputes the IPv4 header checksum of an untagged std frame after a deliberate edit.
inline void fix_ipv4_checksum(Bytes& f) {
  f[24] = f[25] = 0;
  uint32_t s = 0;
  for (int i = 14; i < 34; i += 2) s += (f[i] << 8) | f[i + 1];
  while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
  const uint16_t c = static_cast<uint16_t>(~s);
  f[24] = static_cast<uint8_t>(c >> 8);
  f[25] = static_cast<uint8_t>(c);
}

inline Bytes random_bytes(core::Rng& r, size_t n) {
  Bytes b(n);
  for (auto& x : b) x = static_cast<uint8_t>(r.next());
  return b;
}

/// A random valid frame of this profile and encapsulation: every field that applies is drawn,
/// the others stay at their defaults (so decode(encode(f)) == f exactly).
inline Frame random_frame(core::Rng& r, Profile p, Encap e) {
  Frame f = sue::make_frame(p, e);
  auto u = [&](uint64_t hi) { return r.uniform(0, hi); };
  if (e == Encap::Std || e == Encap::AfhGen1) {
    for (sue::Mac* m : {&f.dmac, &f.smac}) {
      for (auto& x : *m) x = static_cast<uint8_t>(u(255));
      if (((*m)[0] & 0x2E) == 0x22) (*m)[0] ^= 0x20;  // not the AFH Gen2 compressed pattern
    }
    f.vlan.present = r.chance(0.5);
    if (f.vlan.present) {
      f.vlan.pcp = static_cast<uint8_t>(u(7));
      f.vlan.dei = static_cast<uint8_t>(u(1));
      f.vlan.vid = static_cast<uint16_t>(u(4095));
    }
  }
  if (e == Encap::Std) {
    sue::IpHeader& ip = f.ip;
    ip.version = r.chance(0.5) ? 4 : 6;
    ip.dscp = static_cast<uint8_t>(u(63));
    ip.ecn = static_cast<uint8_t>(u(3));
    ip.ttl = static_cast<uint8_t>(u(255));
    if (ip.version == 4) {
      ip.id = static_cast<uint16_t>(u(0xFFFF));
      ip.df = r.chance(0.5);
      for (auto& x : ip.src4) x = static_cast<uint8_t>(u(255));
      for (auto& x : ip.dst4) x = static_cast<uint8_t>(u(255));
      f.udp.checksum = r.chance(0.8);
    } else {
      ip.flow_label = static_cast<uint32_t>(u(0xFFFFF));
      for (auto& x : ip.src6) x = static_cast<uint8_t>(u(255));
      for (auto& x : ip.dst6) x = static_cast<uint8_t>(u(255));
    }
    f.udp.sport = static_cast<uint16_t>(u(0xFFFF));
  }
  if (e == Encap::AfhGen1) {
    f.shim.present = r.chance(0.5);
    if (f.shim.present) {
      f.shim.tc = static_cast<uint8_t>(u(255));
      f.shim.hop_limit = static_cast<uint8_t>(u(255));
      f.shim.entropy = static_cast<uint16_t>(u(0xFFFF));
    }
  }
  if (e == Encap::AfhGen2_6 || e == Encap::AfhGen2_12) {
    const bool c = e == Encap::AfhGen2_6;
    f.afh2.m = static_cast<uint8_t>(u(1));
    f.afh2.dst_xpu = static_cast<uint32_t>(u(c ? 0xFFFF : 0xFFFFFFFF));
    f.afh2.src_xpu = static_cast<uint32_t>(u(c ? 0xFFFF : 0xFFFFFFFF));
    f.afh2.tc = static_cast<uint8_t>(u(15));
    if (!c) {
      f.afh2.entropy = static_cast<uint8_t>(u(255));
      f.afh2.hop_count = static_cast<uint8_t>(u(255));
    }
  }
  if (p == Profile::Sue) {
    sue::ReliabilityHeader& h = f.rh;
    h.op = static_cast<uint8_t>(u(2));
    h.rsv = static_cast<uint8_t>(u(3));
    h.xpuid = static_cast<uint16_t>(u(sue::kMaxXpuId));
    h.npsn = static_cast<uint16_t>(u(0xFFFF));
    h.vc = static_cast<uint8_t>(u(3));
    h.rsvd = static_cast<uint8_t>(u(15));
    h.partition = static_cast<uint16_t>(u(sue::kMaxPartition));
    h.apsn = static_cast<uint16_t>(u(0xFFFF));
  }
  // Commands: none (SUE ACK carrier), a few small ones, or up to the packing limit.
  const size_t limit = sue::max_packed(p);
  const size_t budget = r.chance(0.1) ? limit : r.uniform(0, 300);
  const size_t n = r.chance(0.05) ? 0 : r.uniform(1, 6);
  size_t used = 0;
  for (size_t i = 0; i < n && used + 3 <= budget; ++i) {
    const size_t room = std::min(budget - used - 2, sue::kMaxCmdBytes);
    const size_t len = i + 1 == n ? room : r.uniform(1, std::max<size_t>(1, std::min<size_t>(room, 280)));
    if (len == 0) break;
    f.cmds.push_back(random_bytes(r, len));
    used += 2 + len;
  }
  return f;
}

}  // namespace suetest
