#include "sue/encap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "sue/crc.hpp"

namespace sue {

// ---------------------------------------------------------------------------
// names

const char* profile_name(Profile p) { return p == Profile::Sue ? "sue" : "sue_lite"; }

const char* encap_name(Encap e) {
  switch (e) {
    case Encap::Std: return "std";
    case Encap::AfhGen1: return "afh1";
    case Encap::AfhGen2_6: return "afh2_6";
    case Encap::AfhGen2_12: return "afh2_12";
  }
  return "?";
}

size_t max_packed(Profile p) { return p == Profile::Sue ? kMaxPackedSue : kMaxPackedSueLite; }

const char* errc_name(Errc c) {
  switch (c) {
    case Errc::Truncated: return "truncated";
    case Errc::BadFcs: return "bad_fcs";
    case Errc::BadRcrc: return "bad_rcrc";
    case Errc::UnknownEthertype: return "unknown_ethertype";
    case Errc::UnknownUdpPort: return "unknown_udp_port";
    case Errc::UnsupportedIp: return "unsupported_ip";
    case Errc::BadVersion: return "bad_version";
    case Errc::BadAfhAddress: return "bad_afh_address";
    case Errc::BadIpChecksum: return "bad_ip_checksum";
    case Errc::BadUdpChecksum: return "bad_udp_checksum";
    case Errc::LengthMismatch: return "length_mismatch";
    case Errc::BadOpHeader: return "bad_op_header";
    case Errc::BadRhOpcode: return "bad_rh_opcode";
    case Errc::ReservedBits: return "reserved_bits";
    case Errc::PackingLimit: return "packing_limit";
    case Errc::BadPad: return "bad_pad";
    case Errc::BadField: return "bad_field";
  }
  return "?";
}

std::vector<Errc> all_errcs() {
  return {Errc::Truncated,      Errc::BadFcs,         Errc::BadRcrc,        Errc::UnknownEthertype,
          Errc::UnknownUdpPort, Errc::UnsupportedIp,  Errc::BadVersion,     Errc::BadAfhAddress,
          Errc::BadIpChecksum,  Errc::BadUdpChecksum, Errc::LengthMismatch, Errc::BadOpHeader,
          Errc::BadRhOpcode,    Errc::ReservedBits,   Errc::PackingLimit,   Errc::BadPad,
          Errc::BadField};
}

std::string Error::message() const { return fmt::format("{}: {}", errc_name(code), detail); }

// ---------------------------------------------------------------------------
// frames

bool operator==(const Frame& a, const Frame& b) {
  auto vlan = [](const Vlan& x) { return std::make_tuple(x.present, x.pcp, x.dei, x.vid); };
  auto ip = [](const IpHeader& x) {
    return std::make_tuple(x.version, x.dscp, x.ecn, x.ttl, x.id, x.df, x.flow_label, x.src4, x.dst4, x.src6, x.dst6);
  };
  auto udp = [](const UdpHeader& x) { return std::make_tuple(x.sport, x.checksum); };
  auto shim = [](const Gen1Shim& x) { return std::make_tuple(x.present, x.tc, x.hop_limit, x.entropy); };
  auto afh2 = [](const AfhGen2& x) {
    return std::make_tuple(x.m, x.v, x.dst_xpu, x.src_xpu, x.tc, x.entropy, x.hop_count);
  };
  auto rh = [](const ReliabilityHeader& x) {
    return std::make_tuple(x.ver, x.op, x.rsv, x.xpuid, x.npsn, x.vc, x.rsvd, x.partition, x.apsn);
  };
  return a.profile == b.profile && a.encap == b.encap && a.dmac == b.dmac && a.smac == b.smac &&
         vlan(a.vlan) == vlan(b.vlan) && ip(a.ip) == ip(b.ip) && udp(a.udp) == udp(b.udp) &&
         shim(a.shim) == shim(b.shim) && afh2(a.afh2) == afh2(b.afh2) && rh(a.rh) == rh(b.rh) && a.cmds == b.cmds;
}

Mac gen1_mac(uint16_t prefix, uint32_t xpu) {
  return Mac{static_cast<uint8_t>(prefix >> 8), static_cast<uint8_t>(prefix), static_cast<uint8_t>(xpu >> 24),
             static_cast<uint8_t>(xpu >> 16),   static_cast<uint8_t>(xpu >> 8), static_cast<uint8_t>(xpu)};
}
uint32_t gen1_xpu(const Mac& m) {
  return (uint32_t{m[2]} << 24) | (uint32_t{m[3]} << 16) | (uint32_t{m[4]} << 8) | uint32_t{m[5]};
}
uint16_t gen1_prefix(const Mac& m) { return static_cast<uint16_t>((m[0] << 8) | m[1]); }

Frame make_frame(Profile p, Encap e) {
  Frame f;
  f.profile = p;
  f.encap = e;
  return f;
}

namespace {

// ---------------------------------------------------------------------------
// bytes

void put8(Bytes& b, unsigned v) { b.push_back(static_cast<uint8_t>(v)); }
void put16(Bytes& b, unsigned v) {
  b.push_back(static_cast<uint8_t>(v >> 8));
  b.push_back(static_cast<uint8_t>(v));
}
void put32(Bytes& b, uint32_t v) {
  put16(b, v >> 16);
  put16(b, v & 0xFFFF);
}
template <size_t N>
void put(Bytes& b, const std::array<uint8_t, N>& a) {
  b.insert(b.end(), a.begin(), a.end());
}
uint16_t get16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
uint32_t get32(const uint8_t* p) { return (uint32_t{get16(p)} << 16) | get16(p + 2); }
void set16(uint8_t* p, unsigned v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
template <size_t N>
std::array<uint8_t, N> get_array(const uint8_t* p) {
  std::array<uint8_t, N> a{};
  std::copy(p, p + N, a.begin());
  return a;
}

std::string mac_text(const Mac& m) {
  return fmt::format("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", m[0], m[1], m[2], m[3], m[4], m[5]);
}

template <class... A>
Error err(Errc c, fmt::format_string<A...> f, A&&... a) {
  return Error{c, fmt::format(f, std::forward<A>(a)...)};
}

/// One's complement sum of 16-bit big-endian words (RFC 1071), not folded.
uint32_t sum16(const uint8_t* p, size_t n, uint32_t acc = 0) {
  for (size_t i = 0; i + 1 < n; i += 2) acc += get16(p + i);
  if (n & 1) acc += uint32_t{p[n - 1]} << 8;
  return acc;
}
uint16_t fold(uint32_t acc) {
  while (acc >> 16) acc = (acc & 0xFFFF) + (acc >> 16);
  return static_cast<uint16_t>(acc);
}
/// The checksum to put in a field that is zero in [p, p+n).
uint16_t inet_checksum(const uint8_t* p, size_t n, uint32_t acc = 0) {
  return static_cast<uint16_t>(~fold(sum16(p, n, acc)));
}

/// Sum of the UDP pseudo-header (RFC 768 / RFC 8200 §8.1).
uint32_t pseudo_sum(const Frame& f, uint16_t udp_len) {
  uint32_t acc = 0;
  if (f.ip.version == 4) {
    acc = sum16(f.ip.src4.data(), 4, acc);
    acc = sum16(f.ip.dst4.data(), 4, acc);
  } else {
    acc = sum16(f.ip.src6.data(), 16, acc);
    acc = sum16(f.ip.dst6.data(), 16, acc);
  }
  return acc + kIpProtoUdp + udp_len;
}

bool afh2_compressed_pattern(uint8_t b0) { return (b0 & (kAfhX | kAfhY | kAfhZ | kAfhW)) == (kAfhX | kAfhW); }

// ---------------------------------------------------------------------------
// encode

std::optional<Error> check(const char* field, uint64_t v, uint64_t max) {
  if (v <= max) return std::nullopt;
  return err(Errc::BadField, "field '{}' = {} is out of range (allowed: 0..{})", field, v, max);
}

std::optional<Error> validate(const Frame& f) {
  std::vector<std::optional<Error>> e;
  if (f.profile == Profile::Sue) {
    const ReliabilityHeader& r = f.rh;
    e = {check("ver", r.ver, 3),   check("op", r.op, 3),       check("rsv", r.rsv, 3),
         check("xpuid", r.xpuid, kMaxXpuId), check("vc", r.vc, 3), check("rsvd", r.rsvd, 15),
         check("partition", r.partition, kMaxPartition)};
  }
  for (size_t i = 0; i < f.cmds.size(); ++i) {
    const size_t len = f.cmds[i].size();
    if (len == 0 || len > kMaxCmdBytes)
      e.push_back(err(Errc::BadField, "cmd {} has {} bytes (allowed: 1..{})", i, len, kMaxCmdBytes));
  }
  if (f.encap == Encap::Std || f.encap == Encap::AfhGen1) {
    e.push_back(check("pcp", f.vlan.pcp, 7));
    e.push_back(check("dei", f.vlan.dei, 1));
    e.push_back(check("vid", f.vlan.vid, 4095));
    if (afh2_compressed_pattern(f.dmac[0]))
      e.push_back(err(Errc::BadField,
                      "dmac {}: first octet 0x{:02x} is the AFH Gen2 compressed pattern (X=1, Y=Z=0, W=1), "
                      "reserved for afh2_6 (allowed: first octet & 0x2e != 0x22)",
                      mac_text(f.dmac), f.dmac[0]));
  }
  if (f.encap == Encap::Std) {
    if (f.ip.version != 4 && f.ip.version != 6)
      e.push_back(err(Errc::BadField, "field 'ip' = {} (allowed: 4, 6)", f.ip.version));
    e.push_back(check("dscp", f.ip.dscp, 63));
    e.push_back(check("ecn", f.ip.ecn, 3));
    e.push_back(check("flow_label", f.ip.flow_label, 0xFFFFF));
    if (f.ip.version == 6 && !f.udp.checksum)
      e.push_back(err(Errc::BadField, "field 'udp_csum' = 0: UDP over IPv6 needs a checksum (allowed: 1)"));
  }
  if (f.encap == Encap::AfhGen2_6 || f.encap == Encap::AfhGen2_12) {
    e.push_back(check("m", f.afh2.m, 1));
    e.push_back(check("v", f.afh2.v, 1));
    e.push_back(check("tc", f.afh2.tc, 15));
    if (f.encap == Encap::AfhGen2_6) {
      e.push_back(check("dst_xpu", f.afh2.dst_xpu, 0xFFFF));
      e.push_back(check("src_xpu", f.afh2.src_xpu, 0xFFFF));
    }
  }
  for (auto& x : e)
    if (x) return x;
  return std::nullopt;
}

Bytes build_pdu(const Frame& f) {
  Bytes b;
  if (f.profile == Profile::Sue) {
    const ReliabilityHeader& r = f.rh;
    put8(b, (r.ver << 6) | (r.op << 4) | (r.rsv << 2) | (r.xpuid >> 8));
    put8(b, r.xpuid & 0xFF);
    put16(b, r.npsn);
    put8(b, (r.vc << 6) | (r.rsvd << 2) | (r.partition >> 8));
    put8(b, r.partition & 0xFF);
    put16(b, r.apsn);
  }
  if (f.cmds.empty()) put16(b, kOpLast);
  for (size_t i = 0; i < f.cmds.size(); ++i) {
    const Bytes& c = f.cmds[i];
    put16(b, (i + 1 == f.cmds.size() ? kOpLast : 0) | c.size());
    b.insert(b.end(), c.begin(), c.end());
  }
  if (f.profile == Profile::Sue) put32(b, rcrc32(b.data(), b.size()));
  return b;
}

size_t packed_size(const Frame& f) {
  size_t n = f.cmds.empty() ? kOpHeaderBytes : 0;
  for (auto& c : f.cmds) n += kOpHeaderBytes + c.size();
  return n;
}

void put_vlan(Bytes& b, const Vlan& v) {
  if (!v.present) return;
  put16(b, kEthertypeVlan);
  put16(b, (v.pcp << 13) | (v.dei << 12) | v.vid);
}

void encode_std(const Frame& f, const Bytes& pdu, Bytes& b) {
  put(b, f.dmac);
  put(b, f.smac);
  put_vlan(b, f.vlan);
  const IpHeader& ip = f.ip;
  const auto udp_len = static_cast<uint16_t>(kUdpHeaderBytes + pdu.size());
  if (ip.version == 4) {
    put16(b, kEthertypeIpv4);
    const size_t at = b.size();
    put8(b, 0x45);
    put8(b, (ip.dscp << 2) | ip.ecn);
    put16(b, kIpv4HeaderBytes + udp_len);
    put16(b, ip.id);
    put16(b, ip.df ? 0x4000 : 0);
    put8(b, ip.ttl);
    put8(b, kIpProtoUdp);
    put16(b, 0);
    put(b, ip.src4);
    put(b, ip.dst4);
    set16(&b[at + 10], inet_checksum(&b[at], kIpv4HeaderBytes));
  } else {
    put16(b, kEthertypeIpv6);
    const unsigned tc = (ip.dscp << 2) | ip.ecn;
    put32(b, (6u << 28) | (tc << 20) | ip.flow_label);
    put16(b, udp_len);
    put8(b, kIpProtoUdp);
    put8(b, ip.ttl);
    put(b, ip.src6);
    put(b, ip.dst6);
  }
  const size_t at = b.size();
  put16(b, f.udp.sport);
  put16(b, kSueUdpPort);
  put16(b, udp_len);
  put16(b, 0);
  b.insert(b.end(), pdu.begin(), pdu.end());
  if (f.udp.checksum) {
    uint16_t c = inet_checksum(&b[at], udp_len, pseudo_sum(f, udp_len));
    set16(&b[at + 6], c == 0 ? 0xFFFF : c);  // 0 means "no checksum": send all ones instead
  }
}

void encode_afh1(const Frame& f, const Bytes& pdu, Bytes& b) {
  put(b, f.dmac);
  put(b, f.smac);
  put_vlan(b, f.vlan);
  put16(b, kEthertypeAfhGen1);
  if (f.shim.present) {
    put8(b, kShimVersion << 4);
    put8(b, f.shim.tc);
    put8(b, f.shim.hop_limit);
    put8(b, 0);
    put16(b, f.shim.entropy);
    put16(b, pdu.size());
  }
  put16(b, kEthertypeSue);
  b.insert(b.end(), pdu.begin(), pdu.end());
}

uint8_t afh2_da_octet(const AfhGen2& a, bool compressed) {
  return static_cast<uint8_t>((compressed ? kAfhW : 0) | (a.v ? kAfhV : 0) | kAfhX | (a.m ? kAfhM : 0));
}
uint8_t afh2_sa_octet(const AfhGen2& a) { return static_cast<uint8_t>((a.tc << 4) | kAfhSaLowNibble); }

void encode_afh2_12(const Frame& f, const Bytes& pdu, Bytes& b) {
  const AfhGen2& a = f.afh2;
  put8(b, afh2_da_octet(a, false));
  put8(b, a.entropy);
  put32(b, a.dst_xpu);
  put8(b, afh2_sa_octet(a));
  put8(b, a.hop_count);
  put32(b, a.src_xpu);
  put16(b, kEthertypeSue);
  b.insert(b.end(), pdu.begin(), pdu.end());
}

// The 6-byte form occupies 6 of the 12 DA/SA bytes (SUE spec Figure 10); the other 6 carry the
// first bytes of the SUE payload:
//   DA: [0] W V Z Y X M   [1..3] payload 0..2   [4..5] destination XPU
//   SA: [6] tc | 0x2      [7..9] payload 3..5   [10..11] source XPU      then payload 6..
void encode_afh2_6(const Frame& f, const Bytes& pdu, Bytes& b) {
  const AfhGen2& a = f.afh2;
  Bytes l = pdu;  // the logical payload stream, padded here: it must fill the slots
  if (kAfh2CompressedBytes + l.size() < kEthMinNoFcs) l.resize(kEthMinNoFcs - kAfh2CompressedBytes, 0);
  put8(b, afh2_da_octet(a, true));
  b.insert(b.end(), l.begin(), l.begin() + 3);
  put16(b, a.dst_xpu);
  put8(b, afh2_sa_octet(a));
  b.insert(b.end(), l.begin() + 3, l.begin() + 6);
  put16(b, a.src_xpu);
  b.insert(b.end(), l.begin() + 6, l.end());
}

}  // namespace

Result<Bytes> encode_pdu(const Frame& f) {
  if (auto e = validate(f)) return *e;
  const size_t packed = packed_size(f);
  if (packed > max_packed(f.profile))
    return err(Errc::PackingLimit, "packed operations of {} bytes exceed the {} limit (allowed: up to {} bytes)",
               packed, profile_name(f.profile), max_packed(f.profile));
  return build_pdu(f);
}

Result<Bytes> encode(const Frame& f) {
  Result<Bytes> pdu = encode_pdu(f);
  if (!pdu) return pdu.error();
  Bytes b;
  b.reserve(pdu.value().size() + 96);
  switch (f.encap) {
    case Encap::Std: encode_std(f, pdu.value(), b); break;
    case Encap::AfhGen1: encode_afh1(f, pdu.value(), b); break;
    case Encap::AfhGen2_6: encode_afh2_6(f, pdu.value(), b); break;
    case Encap::AfhGen2_12: encode_afh2_12(f, pdu.value(), b); break;
  }
  if (b.size() < kEthMinNoFcs) b.resize(kEthMinNoFcs, 0);
  const uint32_t fcs = fcs32(b.data(), b.size());
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(fcs >> (8 * i)));  // LSB first (802.3)
  return b;
}

// ---------------------------------------------------------------------------
// decode

std::optional<Encap> detect_encap(const uint8_t* data, size_t n) {
  if (!data || n < kEthHeaderBytes) return std::nullopt;
  if (afh2_compressed_pattern(data[0])) return Encap::AfhGen2_6;
  uint16_t et = get16(data + 12);
  if (et == kEthertypeVlan) {
    if (n < kEthHeaderBytes + kVlanTagBytes) return std::nullopt;
    et = get16(data + 16);
    if (et == kEthertypeSue) return std::nullopt;  // AFH Gen2 carries no 802.1Q tag
  }
  switch (et) {
    case kEthertypeIpv4:
    case kEthertypeIpv6: return Encap::Std;
    case kEthertypeAfhGen1: return Encap::AfhGen1;
    case kEthertypeSue: return Encap::AfhGen2_12;
    default: return std::nullopt;
  }
}

namespace {

constexpr const char* kAllowedEthertypes =
    "allowed: 0x0800 IPv4, 0x86dd IPv6, 0x8100 802.1Q tag, 0x88b5 AFH Gen1, 0x88b6 SUE after AFH Gen2 "
    "12-byte; or a DA whose first octet is the AFH Gen2 compressed pattern X=1 Y=Z=0 W=1";

/// Walks the packed operations in [p, p + avail); returns the bytes they take. An overrun is
/// Truncated when `avail` ends at the frame's end, LengthMismatch when a header (UDP, shim) gave it.
Result<size_t> walk_ops(const uint8_t* p, size_t avail, size_t limit, Profile prof, bool header_extent,
                        std::vector<Bytes>& cmds) {
  const Errc overrun = header_extent ? Errc::LengthMismatch : Errc::Truncated;
  const char* end = header_extent ? "the PDU length the header gives" : "the frame";
  size_t pos = 0;
  for (size_t idx = 0;; ++idx) {
    if (avail - pos < kOpHeaderBytes)
      return err(overrun, "op header {} needs 2 bytes, {} remain before the end of {}", idx, avail - pos, end);
    const uint16_t h = get16(p + pos);
    if (h & kOpReservedMask)
      return err(Errc::BadOpHeader, "op header {} = 0x{:04x}: reserved bits 14..12 set (allowed: LAST bit 15, "
                 "length bits 11..0)", idx, h);
    const size_t len = h & kOpLengthMask;
    const bool last = (h & kOpLast) != 0;
    pos += kOpHeaderBytes;
    if (len == 0) {
      if (idx == 0 && last) return pos;  // 0x8000: the empty PDU
      return err(Errc::BadOpHeader, "op header {} = 0x{:04x}: zero length (only a lone 0x8000, the empty PDU, "
                 "may have length 0)", idx, h);
    }
    if (avail - pos < len)
      return err(overrun, "cmd {} has length {} but {} bytes remain before the end of {}", idx, len, avail - pos, end);
    if (pos + len > limit)
      return err(Errc::PackingLimit, "packed operations reach {} bytes at cmd {}, over the {} limit of {} bytes",
                 pos + len, idx, profile_name(prof), limit);
    cmds.emplace_back(p + pos, p + pos + len);
    pos += len;
    if (last) return pos;
  }
}

void read_rh(const uint8_t* p, ReliabilityHeader& r) {
  r.ver = p[0] >> 6;
  r.op = (p[0] >> 4) & 3;
  r.rsv = (p[0] >> 2) & 3;
  r.xpuid = static_cast<uint16_t>(((p[0] & 3) << 8) | p[1]);
  r.npsn = get16(p + 2);
  r.vc = p[4] >> 6;
  r.rsvd = (p[4] >> 2) & 0xF;
  r.partition = static_cast<uint16_t>(((p[4] & 3) << 8) | p[5]);
  r.apsn = get16(p + 6);
}

/// The SUE PDU at body[0..body_n), then the pad up to the end of the frame (FCS excluded).
/// hdr_bytes: header bytes before body (for the pad rule). known_len: the PDU length when a header
/// states it (UDP, shim); otherwise the packed operations tell where the PDU ends.
std::optional<Error> parse_pdu(const uint8_t* body, size_t body_n, size_t hdr_bytes, std::optional<size_t> known_len,
                               Decoded& d) {
  Frame& f = d.frame;
  FrameInfo& info = d.info;
  const bool sue = f.profile == Profile::Sue;
  const size_t min_pdu = (sue ? kRhBytes + kRcrcBytes : 0) + kOpHeaderBytes;
  size_t region = body_n;
  if (known_len) {
    if (*known_len > body_n)
      return err(Errc::Truncated, "the header gives a SUE PDU of {} bytes, only {} follow", *known_len, body_n);
    if (*known_len < min_pdu)
      return err(Errc::LengthMismatch, "the header gives a SUE PDU of {} bytes, the {} minimum is {}", *known_len,
                 profile_name(f.profile), min_pdu);
    region = *known_len;
    if (sue) {  // the extent is known: check the R-CRC first, corruption explains everything else
      const uint32_t want = rcrc32(body, region - kRcrcBytes), got = get32(body + region - kRcrcBytes);
      if (want != got)
        return err(Errc::BadRcrc, "R-CRC 0x{:08x} on the wire, 0x{:08x} computed over {} bytes", got, want,
                   region - kRcrcBytes);
    }
  }
  if (region < min_pdu)
    return err(Errc::Truncated, "{} bytes left for the SUE PDU, the {} minimum is {}", region,
               profile_name(f.profile), min_pdu);
  size_t pos = 0;
  if (sue) {
    read_rh(body, f.rh);
    if (f.rh.ver != kRhVersion)
      return err(Errc::BadVersion, "RH ver {} (allowed: {})", f.rh.ver, kRhVersion);
    if (f.rh.op == static_cast<uint8_t>(RhOp::Reserved))
      return err(Errc::BadRhOpcode, "RH op 3 is reserved (allowed: 0 none, 1 ack, 2 nack)");
    pos = kRhBytes;
  }
  const size_t tail = sue ? kRcrcBytes : 0;
  Result<size_t> packed =
      walk_ops(body + pos, region - pos - tail, max_packed(f.profile), f.profile, known_len.has_value(), f.cmds);
  if (!packed) return packed.error();
  info.packed_bytes = packed.value();
  pos += packed.value();
  if (sue) {
    const uint32_t want = rcrc32(body, pos), got = get32(body + pos);
    if (want != got)
      return err(Errc::BadRcrc, "R-CRC 0x{:08x} on the wire, 0x{:08x} computed over {} bytes", got, want, pos);
    info.rcrc = got;
    pos += kRcrcBytes;
  }
  if (known_len && pos != *known_len)
    return err(Errc::LengthMismatch, "the packed operations end the SUE PDU after {} bytes, the header gives {}", pos,
               *known_len);
  info.pdu_bytes = pos;
  const size_t used = hdr_bytes + pos;
  const size_t want_pad = used < kEthMinNoFcs ? kEthMinNoFcs - used : 0;
  const size_t trailing = body_n - pos;
  if (trailing != want_pad)
    return err(Errc::LengthMismatch, "{} bytes follow the SUE PDU; {} header + {} PDU bytes need {} bytes of pad",
               trailing, hdr_bytes, pos, want_pad);
  for (size_t i = pos; i < body_n; ++i)
    if (body[i] != 0) return err(Errc::BadPad, "pad byte {} is 0x{:02x} (allowed: 0x00)", i - pos, body[i]);
  info.pad_bytes = trailing;
  return std::nullopt;
}

/// A std/afh1 DA must not look like AFH Gen2 compressed (encode refuses it: detect_encap would
/// take the frame for afh2_6).
std::optional<Error> check_l2_da(const uint8_t* p) {
  if (!afh2_compressed_pattern(p[0])) return std::nullopt;
  return err(Errc::BadAfhAddress, "DA first octet 0x{:02x} is the AFH Gen2 compressed pattern (X=1, Y=Z=0, W=1), "
             "reserved for afh2_6 (allowed: first octet & 0x2e != 0x22)", p[0]);
}

/// MACs and the optional 802.1Q tag; returns the offset of the Ethertype.
size_t read_l2(const uint8_t* p, Frame& f) {
  f.dmac = get_array<6>(p);
  f.smac = get_array<6>(p + 6);
  if (get16(p + 12) != kEthertypeVlan) return 12;
  const uint16_t tci = get16(p + 14);
  f.vlan.present = true;
  f.vlan.pcp = tci >> 13;
  f.vlan.dei = (tci >> 12) & 1;
  f.vlan.vid = tci & 0xFFF;
  return 16;
}

std::optional<Error> decode_std(const uint8_t* p, size_t n, Decoded& d) {
  Frame& f = d.frame;
  FrameInfo& info = d.info;
  if (auto e = check_l2_da(p)) return e;
  size_t off = read_l2(p, f);
  info.ethertype = get16(p + off);
  off += 2;
  if (info.ethertype != kEthertypeIpv4 && info.ethertype != kEthertypeIpv6)
    return err(Errc::UnknownEthertype, "Ethertype 0x{:04x} is not IP (allowed: 0x0800 IPv4, 0x86dd IPv6)",
               info.ethertype);
  IpHeader& ip = f.ip;
  size_t ip_hdr, ip_payload;
  if (info.ethertype == kEthertypeIpv4) {
    ip_hdr = kIpv4HeaderBytes;
    if (n - off < ip_hdr) return err(Errc::Truncated, "IPv4 header needs 20 bytes, {} remain", n - off);
    const uint8_t* h = p + off;
    if ((h[0] >> 4) != 4) return err(Errc::BadVersion, "IP version {} after Ethertype 0x0800 (allowed: 4)", h[0] >> 4);
    if ((h[0] & 0xF) != 5)
      return err(Errc::UnsupportedIp, "IPv4 IHL {}: options are not supported (allowed: 5)", h[0] & 0xF);
    info.ip_checksum = get16(h + 10);
    if (fold(sum16(h, ip_hdr)) != 0xFFFF) {
      Bytes z(h, h + ip_hdr);
      z[10] = z[11] = 0;
      return err(Errc::BadIpChecksum, "IPv4 header checksum 0x{:04x} on the wire, 0x{:04x} computed",
                 info.ip_checksum, inet_checksum(z.data(), ip_hdr));
    }
    ip.version = 4;
    ip.dscp = h[1] >> 2;
    ip.ecn = h[1] & 3;
    info.ip_length = get16(h + 2);
    ip.id = get16(h + 4);
    const uint16_t ff = get16(h + 6);
    if (ff & 0x8000) return err(Errc::ReservedBits, "IPv4 reserved flag set (flags/offset 0x{:04x})", ff);
    if (ff & 0x3FFF)
      return err(Errc::UnsupportedIp, "IPv4 fragment (MF={}, offset={}): fragments are not supported", (ff >> 13) & 1,
                 ff & 0x1FFF);
    ip.df = (ff & 0x4000) != 0;
    ip.ttl = h[8];
    if (h[9] != kIpProtoUdp) return err(Errc::UnsupportedIp, "IP protocol {} is not UDP (allowed: 17)", h[9]);
    ip.src4 = get_array<4>(h + 12);
    ip.dst4 = get_array<4>(h + 16);
    if (info.ip_length < ip_hdr + kUdpHeaderBytes)
      return err(Errc::LengthMismatch, "IPv4 total length {} is shorter than the IPv4 and UDP headers (28)",
                 info.ip_length);
    if (info.ip_length > n - off)
      return err(Errc::Truncated, "IPv4 total length {} but {} bytes follow the Ethernet header", info.ip_length,
                 n - off);
    ip_payload = info.ip_length - ip_hdr;
  } else {
    ip_hdr = kIpv6HeaderBytes;
    if (n - off < ip_hdr) return err(Errc::Truncated, "IPv6 header needs 40 bytes, {} remain", n - off);
    const uint8_t* h = p + off;
    const uint32_t w = get32(h);
    if ((w >> 28) != 6) return err(Errc::BadVersion, "IP version {} after Ethertype 0x86dd (allowed: 6)", w >> 28);
    ip.version = 6;
    ip.dscp = (w >> 22) & 0x3F;
    ip.ecn = (w >> 20) & 3;
    ip.flow_label = w & 0xFFFFF;
    info.ip_length = get16(h + 4);
    if (h[6] != kIpProtoUdp)
      return err(Errc::UnsupportedIp, "IPv6 next header {} is not UDP; extension headers are not supported "
                 "(allowed: 17)", h[6]);
    ip.ttl = h[7];
    ip.src6 = get_array<16>(h + 8);
    ip.dst6 = get_array<16>(h + 24);
    if (info.ip_length < kUdpHeaderBytes)
      return err(Errc::LengthMismatch, "IPv6 payload length {} is shorter than the UDP header (8)", info.ip_length);
    if (info.ip_length > n - off - ip_hdr)
      return err(Errc::Truncated, "IPv6 payload length {} but {} bytes follow the IPv6 header", info.ip_length,
                 n - off - ip_hdr);
    ip_payload = info.ip_length;
  }
  off += ip_hdr;
  if (n - off < kUdpHeaderBytes) return err(Errc::Truncated, "UDP header needs 8 bytes, {} remain", n - off);
  const uint8_t* u = p + off;
  f.udp.sport = get16(u);
  info.udp_dport = get16(u + 2);
  info.udp_length = get16(u + 4);
  info.udp_checksum = get16(u + 6);
  if (info.udp_dport != kSueUdpPort)
    return err(Errc::UnknownUdpPort, "UDP destination port {} is not SUE (allowed: {} = 0x{:04x})", info.udp_dport,
               kSueUdpPort, kSueUdpPort);
  if (info.udp_length != ip_payload)
    return err(Errc::LengthMismatch, "UDP length {} but the IP header leaves {} bytes for UDP", info.udp_length,
               ip_payload);
  if (info.udp_checksum == 0) {
    if (ip.version == 6) return err(Errc::BadUdpChecksum, "UDP checksum 0 (none) is not allowed over IPv6");
    f.udp.checksum = false;
  } else if (fold(sum16(u, info.udp_length, pseudo_sum(f, info.udp_length))) != 0xFFFF) {
    Bytes z(u, u + info.udp_length);
    z[6] = z[7] = 0;
    uint16_t want = inet_checksum(z.data(), z.size(), pseudo_sum(f, info.udp_length));
    return err(Errc::BadUdpChecksum, "UDP checksum 0x{:04x} on the wire, 0x{:04x} computed", info.udp_checksum,
               want == 0 ? 0xFFFF : want);
  }
  off += kUdpHeaderBytes;
  info.header_bytes = off;
  return parse_pdu(p + off, n - off, off, info.udp_length - kUdpHeaderBytes, d);
}

std::optional<Error> decode_afh1(const uint8_t* p, size_t n, Decoded& d) {
  Frame& f = d.frame;
  FrameInfo& info = d.info;
  if (auto e = check_l2_da(p)) return e;
  size_t off = read_l2(p, f);
  info.ethertype = get16(p + off);
  off += 2;
  if (info.ethertype != kEthertypeAfhGen1)
    return err(Errc::UnknownEthertype, "Ethertype 0x{:04x} is not AFH Gen1 (allowed: 0x{:04x})", info.ethertype,
               kEthertypeAfhGen1);
  if (n - off < 2) return err(Errc::Truncated, "AFH Gen1 needs a second Ethertype or a shim, {} bytes remain", n - off);
  std::optional<size_t> known_len;
  const uint16_t next = get16(p + off);
  if (next != kEthertypeSue) {
    if ((p[off] >> 4) != kShimVersion)
      return err(Errc::UnknownEthertype, "0x{:04x} after the AFH Gen1 Ethertype is neither the SUE Ethertype "
                 "(allowed: 0x{:04x}) nor an AFH Gen1 shim (version {})", next, kEthertypeSue, kShimVersion);
    if (n - off < kShimBytes + 2)
      return err(Errc::Truncated, "AFH Gen1 shim and second Ethertype need 10 bytes, {} remain", n - off);
    const uint8_t* s = p + off;
    if ((s[0] & 0xF) || s[3])
      return err(Errc::ReservedBits, "AFH Gen1 shim reserved bits set (byte 0 = 0x{:02x}, byte 3 = 0x{:02x}; "
                 "allowed: 0x00 and 0x00)", s[0], s[3]);
    f.shim.present = true;
    f.shim.tc = s[1];
    f.shim.hop_limit = s[2];
    f.shim.entropy = get16(s + 4);
    info.shim_length = get16(s + 6);
    known_len = info.shim_length;
    off += kShimBytes;
    const uint16_t second = get16(p + off);
    if (second != kEthertypeSue)
      return err(Errc::UnknownEthertype, "second Ethertype 0x{:04x} after the AFH Gen1 shim is not SUE "
                 "(allowed: 0x{:04x})", second, kEthertypeSue);
  }
  off += 2;
  info.header_bytes = off;
  return parse_pdu(p + off, n - off, off, known_len, d);
}

/// The checks shared by both AFH Gen2 forms; DA octet p[0], SA octet p[6].
std::optional<Error> read_afh2_octets(const uint8_t* p, bool compressed, AfhGen2& a) {
  const uint8_t da = p[0], sa = p[6];
  if ((da & (kAfhX | kAfhY | kAfhZ)) != kAfhX)
    return err(Errc::BadAfhAddress, "DA first octet 0x{:02x} is not a SLAP AAI address (allowed: X=1, Y=0, Z=0)", da);
  if (((da & kAfhW) != 0) != compressed)
    return err(Errc::BadAfhAddress, "DA first octet 0x{:02x}: W={} in the {}-byte AFH Gen2 header (allowed: W={})", da,
               (da & kAfhW) ? 1 : 0, compressed ? 6 : 12, compressed ? 1 : 0);
  if (da & kAfhV)
    return err(Errc::BadVersion, "AFH Gen2 V=1 (future version) in DA first octet 0x{:02x} (allowed: V=0)", da);
  if (da & kAfhSpareMask)
    return err(Errc::ReservedBits, "AFH Gen2 spare bits 7..6 set in DA first octet 0x{:02x} (allowed: 0)", da);
  if ((sa & 0xF) != kAfhSaLowNibble)
    return err(Errc::BadAfhAddress, "SA first octet 0x{:02x}: low nibble must be 0x2 (unicast, locally assigned, AAI)",
               sa);
  a.m = da & kAfhM;
  a.v = 0;
  a.tc = sa >> 4;
  return std::nullopt;
}

std::optional<Error> decode_afh2_12(const uint8_t* p, size_t n, Decoded& d) {
  AfhGen2& a = d.frame.afh2;
  if (auto e = read_afh2_octets(p, false, a)) return e;
  a.entropy = p[1];
  a.dst_xpu = get32(p + 2);
  a.hop_count = p[7];
  a.src_xpu = get32(p + 8);
  d.info.ethertype = get16(p + 12);
  if (d.info.ethertype != kEthertypeSue)
    return err(Errc::UnknownEthertype, "Ethertype 0x{:04x} after the AFH Gen2 12-byte header is not SUE "
               "(allowed: 0x{:04x})", d.info.ethertype, kEthertypeSue);
  const size_t off = kAfh2SlotBytes + 2;
  d.info.header_bytes = off;
  return parse_pdu(p + off, n - off, off, std::nullopt, d);
}

std::optional<Error> decode_afh2_6(const uint8_t* p, size_t n, Decoded& d) {
  AfhGen2& a = d.frame.afh2;
  if (auto e = read_afh2_octets(p, true, a)) return e;
  a.dst_xpu = get16(p + 4);
  a.src_xpu = get16(p + 10);
  // n >= 60 here: the slots exist. Gather the logical payload stream.
  Bytes l;
  l.reserve(n - kAfh2CompressedBytes);
  l.insert(l.end(), p + 1, p + 4);
  l.insert(l.end(), p + 7, p + 10);
  l.insert(l.end(), p + kAfh2SlotBytes, p + n);
  d.info.header_bytes = kAfh2CompressedBytes;
  return parse_pdu(l.data(), l.size(), kAfh2CompressedBytes, std::nullopt, d);
}

}  // namespace

Result<Decoded> decode(const uint8_t* data, size_t n, const DecodeOptions& opt) {
  if (!data) n = 0;
  if (n < kEthMinFrame)
    return err(Errc::Truncated, "runt frame of {} bytes (allowed: at least {}, FCS included)", n, kEthMinFrame);
  const size_t body = n - kFcsBytes;
  const uint32_t got = uint32_t{data[body]} | (uint32_t{data[body + 1]} << 8) | (uint32_t{data[body + 2]} << 16) |
                       (uint32_t{data[body + 3]} << 24);
  const uint32_t want = fcs32(data, body);
  if (got != want)
    return err(Errc::BadFcs, "FCS 0x{:08x} on the wire, 0x{:08x} computed over {} bytes", got, want, body);
  std::optional<Encap> e = opt.encap ? opt.encap : detect_encap(data, n);
  if (!e) {
    uint16_t et = get16(data + 12);
    if (et == kEthertypeVlan) et = get16(data + 16);
    return err(Errc::UnknownEthertype, "Ethertype 0x{:04x} carries no SUE ({})", et, kAllowedEthertypes);
  }
  Decoded d;
  d.frame = make_frame(opt.profile, *e);
  d.info.frame_bytes = n;
  d.info.fcs = got;
  std::optional<Error> r;
  switch (*e) {
    case Encap::Std: r = decode_std(data, body, d); break;
    case Encap::AfhGen1: r = decode_afh1(data, body, d); break;
    case Encap::AfhGen2_6: r = decode_afh2_6(data, body, d); break;
    case Encap::AfhGen2_12: r = decode_afh2_12(data, body, d); break;
  }
  if (r) return *r;
  return d;
}

}  // namespace sue
