#include "sue/fields.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "core/settings.hpp"

namespace sue {

using core::UsageError;

namespace {

// Which encapsulations and profiles a field applies to.
enum : unsigned { kStd = 1, kAfh1 = 2, kAfh2_6 = 4, kAfh2_12 = 8 };
constexpr unsigned kL2 = kStd | kAfh1, kAfh2 = kAfh2_6 | kAfh2_12, kAll = kL2 | kAfh2;
enum : unsigned { kSue = 1, kLite = 2, kBoth = 3 };

enum class Kind { Uint, Bool, Mac, IpAddr, IpVersion, RhOp, Hex };

struct Def {
  const char* name;
  unsigned encaps;
  unsigned profiles;
  Kind kind;
  uint64_t max;
};

// In wire order: `cosim pdu encode` lists them in this order.
const Def kDefs[] = {
    {"dmac", kL2, kBoth, Kind::Mac, 0},
    {"smac", kL2, kBoth, Kind::Mac, 0},
    {"m", kAfh2, kBoth, Kind::Uint, 1},
    {"v", kAfh2, kBoth, Kind::Uint, 1},
    {"dst_xpu", kAfh1 | kAfh2, kBoth, Kind::Uint, 0xFFFFFFFF},
    {"src_xpu", kAfh1 | kAfh2, kBoth, Kind::Uint, 0xFFFFFFFF},
    {"tc", kAfh2, kBoth, Kind::Uint, 15},
    {"entropy", kAfh2_12, kBoth, Kind::Uint, 255},
    {"hop_count", kAfh2_12, kBoth, Kind::Uint, 255},
    {"vlan", kL2, kBoth, Kind::Bool, 1},
    {"pcp", kL2, kBoth, Kind::Uint, 7},
    {"dei", kL2, kBoth, Kind::Uint, 1},
    {"vid", kL2, kBoth, Kind::Uint, 4095},
    {"ip", kStd, kBoth, Kind::IpVersion, 6},
    {"dscp", kStd, kBoth, Kind::Uint, 63},
    {"ecn", kStd, kBoth, Kind::Uint, 3},
    {"ttl", kStd, kBoth, Kind::Uint, 255},
    {"ip_id", kStd, kBoth, Kind::Uint, 0xFFFF},
    {"df", kStd, kBoth, Kind::Bool, 1},
    {"flow_label", kStd, kBoth, Kind::Uint, 0xFFFFF},
    {"src_ip", kStd, kBoth, Kind::IpAddr, 0},
    {"dst_ip", kStd, kBoth, Kind::IpAddr, 0},
    {"udp_sport", kStd, kBoth, Kind::Uint, 0xFFFF},
    {"udp_csum", kStd, kBoth, Kind::Bool, 1},
    {"shim", kAfh1, kBoth, Kind::Bool, 1},
    {"shim_tc", kAfh1, kBoth, Kind::Uint, 255},
    {"shim_hop_limit", kAfh1, kBoth, Kind::Uint, 255},
    {"shim_entropy", kAfh1, kBoth, Kind::Uint, 0xFFFF},
    {"ver", kAll, kSue, Kind::Uint, 3},
    {"op", kAll, kSue, Kind::RhOp, 3},
    {"rsv", kAll, kSue, Kind::Uint, 3},
    {"xpuid", kAll, kSue, Kind::Uint, kMaxXpuId},
    {"npsn", kAll, kSue, Kind::Uint, 0xFFFF},
    {"vc", kAll, kSue, Kind::Uint, 3},
    {"rsvd", kAll, kSue, Kind::Uint, 15},
    {"partition", kAll, kSue, Kind::Uint, kMaxPartition},
    {"apsn", kAll, kSue, Kind::Uint, 0xFFFF},
    {"cmd", kAll, kBoth, Kind::Hex, kMaxCmdBytes},
};

unsigned encap_bit(Encap e) {
  switch (e) {
    case Encap::Std: return kStd;
    case Encap::AfhGen1: return kAfh1;
    case Encap::AfhGen2_6: return kAfh2_6;
    case Encap::AfhGen2_12: return kAfh2_12;
  }
  return 0;
}
unsigned profile_bit(Profile p) { return p == Profile::Sue ? kSue : kLite; }
bool applies(const Def& d, Profile p, Encap e) { return (d.encaps & encap_bit(e)) && (d.profiles & profile_bit(p)); }

const Def* find_def(const std::string& name) {
  for (const Def& d : kDefs)
    if (name == d.name) return &d;
  return nullptr;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

/// What the user typed, safe to echo on one line.
std::string shown(const std::string& v) {
  std::string s = v.size() > 64 ? v.substr(0, 61) + "..." : v;
  for (auto& ch : s)
    if (static_cast<unsigned char>(ch) < 0x20) ch = '?';
  return s;
}

uint64_t field_max(const Def& d, Encap e) {
  if ((d.name == std::string("dst_xpu") || d.name == std::string("src_xpu")) && e == Encap::AfhGen2_6) return 0xFFFF;
  return d.max;
}

std::string allowed_text(const Def& d, Encap e) {
  switch (d.kind) {
    case Kind::Uint: return fmt::format("0..{}", field_max(d, e));
    case Kind::Bool: return "0|1";
    case Kind::Mac: return "a MAC like 02:00:00:00:00:01";
    case Kind::IpAddr: return "an IPv4 address like 10.0.0.1 or an IPv6 address like fd00::1";
    case Kind::IpVersion: return "4|6";
    case Kind::RhOp: return "none|ack|nack or 0..3";
    case Kind::Hex: return fmt::format("1..{} bytes in hex, e.g. 0x0102a0ff", kMaxCmdBytes);
  }
  return "";
}

[[noreturn]] void bad_value(const Def& d, Encap e, const std::string& v, const char* what) {
  throw UsageError(fmt::format("field '{}': '{}' is {} (allowed: {})", d.name, shown(v), what, allowed_text(d, e)));
}

/// Decimal, or hex with 0x; nothing else (no sign, no spaces).
std::optional<uint64_t> parse_uint(const std::string& v) {
  const bool hex = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
  const std::string digits = hex ? v.substr(2) : v;
  if (digits.empty()) return std::nullopt;
  for (char c : digits)
    if (!(hex ? std::isxdigit(static_cast<unsigned char>(c)) : std::isdigit(static_cast<unsigned char>(c))))
      return std::nullopt;
  errno = 0;
  unsigned long long x = std::strtoull(digits.c_str(), nullptr, hex ? 16 : 10);
  if (errno == ERANGE) return std::nullopt;
  return x;
}

std::optional<Mac> parse_mac(const std::string& v) {
  std::string digits;
  for (size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    if (std::isxdigit(static_cast<unsigned char>(c))) {
      digits += c;
    } else if ((c == ':' || c == '-') && i % 3 == 2 && v.size() == 17) {
      continue;
    } else {
      return std::nullopt;
    }
  }
  if (digits.size() != 12) return std::nullopt;
  Mac m{};
  for (size_t i = 0; i < 6; ++i) m[i] = static_cast<uint8_t>(std::strtoul(digits.substr(2 * i, 2).c_str(), nullptr, 16));
  return m;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_separator(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ':' || c == '_' || c == '-'; }

/// Hex to bytes, or the reason it is not hex.
std::optional<std::string> hex_bytes(const std::string& text, Bytes& out) {
  out.clear();
  int hi = -1;
  bool token_start = true;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (is_separator(c)) {
      if (hi >= 0) return fmt::format("a lone hex digit before position {}", i);
      token_start = true;
      continue;
    }
    if (token_start && c == '0' && i + 1 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
      ++i;
      token_start = false;
      continue;
    }
    token_start = false;
    const int v = hex_value(c);
    if (v < 0) {
      std::string ch = static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e
                           ? fmt::format("\\x{:02x}", static_cast<unsigned char>(c))
                           : std::string(1, c);
      return fmt::format("'{}' at position {} is not a hex digit", ch, i);
    }
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<uint8_t>((hi << 4) | v));
      hi = -1;
    }
  }
  if (hi >= 0) return std::string("an odd number of hex digits");
  return std::nullopt;
}

std::string hex_u(uint64_t v, int digits) { return fmt::format("0x{:0{}x}", v, digits); }
std::string num_hex(uint64_t v, int digits) { return fmt::format("{} ({})", v, hex_u(v, digits)); }

std::string ip_text(int family, const uint8_t* a) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (!inet_ntop(family == 4 ? AF_INET : AF_INET6, a, buf, sizeof buf)) return "?";
  return buf;
}

}  // namespace

// ---------------------------------------------------------------------------

Profile parse_profile(const std::string& s) {
  if (s == "sue") return Profile::Sue;
  if (s == "sue_lite") return Profile::SueLite;
  throw UsageError(fmt::format("unknown profile '{}' (allowed: {})", shown(s), profile_names()));
}

Encap parse_encap(const std::string& s) {
  for (Encap e : {Encap::Std, Encap::AfhGen1, Encap::AfhGen2_6, Encap::AfhGen2_12})
    if (s == encap_name(e)) return e;
  throw UsageError(fmt::format("unknown encap '{}' (allowed: {})", shown(s), encap_names()));
}

std::string profile_names() { return "sue, sue_lite"; }
std::string encap_names() { return "std, afh1, afh2_6, afh2_12"; }

std::vector<std::string> field_names(Profile p, Encap e) {
  std::vector<std::string> v;
  for (const Def& d : kDefs)
    if (applies(d, p, e)) v.push_back(d.name);
  return v;
}

FrameBuilder::FrameBuilder(Profile p, Encap e) : f_(make_frame(p, e)) {}

std::string FrameBuilder::allowed() const { return join(field_names(f_.profile, f_.encap)); }

void FrameBuilder::assign(const std::string& a) {
  const auto eq = a.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError(fmt::format("bad --field '{}': expected name=value (fields of {}/{}: {})", shown(a),
                                 profile_name(f_.profile), encap_name(f_.encap), allowed()));
  set(a.substr(0, eq), a.substr(eq + 1));
}

void FrameBuilder::set(const std::string& name, const std::string& value) {
  const Def* d = find_def(name);
  const Profile p = f_.profile;
  const Encap e = f_.encap;
  if (!d)
    throw UsageError(fmt::format("unknown field '{}' for {}/{} (allowed: {})", shown(name), profile_name(p),
                                 encap_name(e), allowed()));
  if (!applies(*d, p, e))
    throw UsageError(fmt::format("field '{}' does not apply to {}/{} (allowed: {})", name, profile_name(p),
                                 encap_name(e), allowed()));
  given_.insert(name);

  uint64_t u = 0;
  switch (d->kind) {
    case Kind::Uint: {
      auto x = parse_uint(value);
      if (!x) bad_value(*d, e, value, "not a number");
      if (*x > field_max(*d, e)) bad_value(*d, e, value, "out of range");
      u = *x;
      break;
    }
    case Kind::Bool:
      if (value == "1" || value == "true") u = 1;
      else if (value == "0" || value == "false") u = 0;
      else bad_value(*d, e, value, "not a boolean");
      break;
    case Kind::IpVersion:
      if (value == "4") u = 4;
      else if (value == "6") u = 6;
      else bad_value(*d, e, value, "not an IP version");
      break;
    case Kind::RhOp: {
      if (value == "none") u = 0;
      else if (value == "ack") u = 1;
      else if (value == "nack") u = 2;
      else {
        auto x = parse_uint(value);
        if (!x) bad_value(*d, e, value, "not an opcode");
        if (*x > 3) bad_value(*d, e, value, "out of range");
        u = *x;
      }
      break;
    }
    default: break;
  }

  const std::string n = name;
  Frame& f = f_;
  if (n == "dmac" || n == "smac") {
    auto m = parse_mac(value);
    if (!m) bad_value(*d, e, value, "not a MAC address");
    (n == "dmac" ? f.dmac : f.smac) = *m;
  } else if (n == "dst_xpu" || n == "src_xpu") {
    const bool dst = n == "dst_xpu";
    if (e == Encap::AfhGen1) {
      Mac& m = dst ? f.dmac : f.smac;
      m = gen1_mac(gen1_prefix(m), static_cast<uint32_t>(u));
    } else {
      (dst ? f.afh2.dst_xpu : f.afh2.src_xpu) = static_cast<uint32_t>(u);
    }
  } else if (n == "m") {
    f.afh2.m = static_cast<uint8_t>(u);
  } else if (n == "v") {
    f.afh2.v = static_cast<uint8_t>(u);
  } else if (n == "tc") {
    f.afh2.tc = static_cast<uint8_t>(u);
  } else if (n == "entropy") {
    f.afh2.entropy = static_cast<uint8_t>(u);
  } else if (n == "hop_count") {
    f.afh2.hop_count = static_cast<uint8_t>(u);
  } else if (n == "vlan") {
    f.vlan.present = u != 0;
  } else if (n == "pcp" || n == "dei" || n == "vid") {
    f.vlan.present = true;  // a tag field asks for the tag
    if (n == "pcp") f.vlan.pcp = static_cast<uint8_t>(u);
    if (n == "dei") f.vlan.dei = static_cast<uint8_t>(u);
    if (n == "vid") f.vlan.vid = static_cast<uint16_t>(u);
  } else if (n == "ip") {
    f.ip.version = static_cast<uint8_t>(u);
  } else if (n == "dscp") {
    f.ip.dscp = static_cast<uint8_t>(u);
  } else if (n == "ecn") {
    f.ip.ecn = static_cast<uint8_t>(u);
  } else if (n == "ttl") {
    f.ip.ttl = static_cast<uint8_t>(u);
  } else if (n == "ip_id") {
    f.ip.id = static_cast<uint16_t>(u);
  } else if (n == "df") {
    f.ip.df = u != 0;
  } else if (n == "flow_label") {
    f.ip.flow_label = static_cast<uint32_t>(u);
  } else if (n == "src_ip" || n == "dst_ip") {
    const bool src = n == "src_ip";
    Ipv4Addr a4{};
    Ipv6Addr a6{};
    if (inet_pton(AF_INET, value.c_str(), a4.data()) == 1) {
      (src ? f.ip.src4 : f.ip.dst4) = a4;
      (src ? src_family_ : dst_family_) = 4;
    } else if (inet_pton(AF_INET6, value.c_str(), a6.data()) == 1) {
      (src ? f.ip.src6 : f.ip.dst6) = a6;
      (src ? src_family_ : dst_family_) = 6;
    } else {
      bad_value(*d, e, value, "not an IP address");
    }
  } else if (n == "udp_sport") {
    f.udp.sport = static_cast<uint16_t>(u);
  } else if (n == "udp_csum") {
    f.udp.checksum = u != 0;
  } else if (n == "shim") {
    f.shim.present = u != 0;
  } else if (n == "shim_tc" || n == "shim_hop_limit" || n == "shim_entropy") {
    f.shim.present = true;  // a shim field asks for the shim
    if (n == "shim_tc") f.shim.tc = static_cast<uint8_t>(u);
    if (n == "shim_hop_limit") f.shim.hop_limit = static_cast<uint8_t>(u);
    if (n == "shim_entropy") f.shim.entropy = static_cast<uint16_t>(u);
  } else if (n == "ver") {
    f.rh.ver = static_cast<uint8_t>(u);
  } else if (n == "op") {
    f.rh.op = static_cast<uint8_t>(u);
  } else if (n == "rsv") {
    f.rh.rsv = static_cast<uint8_t>(u);
  } else if (n == "xpuid") {
    f.rh.xpuid = static_cast<uint16_t>(u);
  } else if (n == "npsn") {
    f.rh.npsn = static_cast<uint16_t>(u);
  } else if (n == "vc") {
    f.rh.vc = static_cast<uint8_t>(u);
  } else if (n == "rsvd") {
    f.rh.rsvd = static_cast<uint8_t>(u);
  } else if (n == "partition") {
    f.rh.partition = static_cast<uint16_t>(u);
  } else if (n == "apsn") {
    f.rh.apsn = static_cast<uint16_t>(u);
  } else if (n == "cmd") {
    Bytes b;
    if (auto why = hex_bytes(value, b)) bad_value(*d, e, value, ("not hex: " + *why).c_str());
    if (b.empty() || b.size() > kMaxCmdBytes)
      bad_value(*d, e, value, b.empty() ? "empty" : "too long");
    f.cmds.push_back(std::move(b));
  }
}

Frame FrameBuilder::frame() const {
  Frame f = f_;
  if (f.encap != Encap::Std) return f;
  // The address text sets the IP version unless `ip` was given; all three must agree.
  int ver = given_.count("ip") ? f.ip.version : src_family_ ? *src_family_ : dst_family_ ? *dst_family_ : 4;
  for (auto [name, fam] : {std::make_pair("src_ip", src_family_), std::make_pair("dst_ip", dst_family_)})
    if (fam && *fam != ver)
      throw UsageError(fmt::format("field '{}' is an IPv{} address but the frame is IPv{} (allowed: {} addresses "
                                   "of one family, matching ip=4|6)", name, *fam, ver, "src_ip and dst_ip"));
  f.ip.version = static_cast<uint8_t>(ver);
  for (const char* v4only : {"ip_id", "df"})
    if (ver == 6 && given_.count(v4only))
      throw UsageError(fmt::format("field '{}' applies to IPv4 only (allowed with ip=6: dscp, ecn, ttl, flow_label)",
                                   v4only));
  if (ver == 4 && given_.count("flow_label"))
    throw UsageError("field 'flow_label' applies to IPv6 only (allowed with ip=4: dscp, ecn, ttl, ip_id, df)");
  return f;
}

// ---------------------------------------------------------------------------

std::vector<std::pair<std::string, std::string>> describe(const Decoded& d) {
  const Frame& f = d.frame;
  const FrameInfo& in = d.info;
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](const std::string& k, const std::string& v) { out.emplace_back(k, v); };
  auto mac = [](const Mac& m) {
    return fmt::format("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", m[0], m[1], m[2], m[3], m[4], m[5]);
  };
  add("profile", profile_name(f.profile));
  add("encap", encap_name(f.encap));
  add("frame_bytes", std::to_string(in.frame_bytes));
  if (f.encap == Encap::Std || f.encap == Encap::AfhGen1) {
    add("dmac", mac(f.dmac));
    add("smac", mac(f.smac));
    if (f.encap == Encap::AfhGen1) {
      add("dst_xpu", num_hex(gen1_xpu(f.dmac), 8));
      add("src_xpu", num_hex(gen1_xpu(f.smac), 8));
    }
    add("vlan", f.vlan.present ? "1" : "0");
    if (f.vlan.present) {
      add("pcp", std::to_string(f.vlan.pcp));
      add("dei", std::to_string(f.vlan.dei));
      add("vid", std::to_string(f.vlan.vid));
    }
    add("ethertype", hex_u(in.ethertype, 4));
  }
  if (f.encap == Encap::Std) {
    const IpHeader& ip = f.ip;
    add("ip", std::to_string(ip.version));
    add("dscp", std::to_string(ip.dscp));
    add("ecn", std::to_string(ip.ecn));
    add("ttl", std::to_string(ip.ttl));
    if (ip.version == 4) {
      add("ip_id", std::to_string(ip.id));
      add("df", ip.df ? "1" : "0");
      add("src_ip", ip_text(4, ip.src4.data()));
      add("dst_ip", ip_text(4, ip.dst4.data()));
      add("ip_length", std::to_string(in.ip_length));
      add("ip_checksum", hex_u(in.ip_checksum, 4));
    } else {
      add("flow_label", num_hex(ip.flow_label, 5));
      add("src_ip", ip_text(6, ip.src6.data()));
      add("dst_ip", ip_text(6, ip.dst6.data()));
      add("ip_length", std::to_string(in.ip_length));
    }
    add("udp_sport", std::to_string(f.udp.sport));
    add("udp_dport", num_hex(in.udp_dport, 4));
    add("udp_length", std::to_string(in.udp_length));
    add("udp_csum", f.udp.checksum ? "1" : "0");
    add("udp_checksum", hex_u(in.udp_checksum, 4));
  }
  if (f.encap == Encap::AfhGen1) {
    add("shim", f.shim.present ? "1" : "0");
    if (f.shim.present) {
      add("shim_tc", std::to_string(f.shim.tc));
      add("shim_hop_limit", std::to_string(f.shim.hop_limit));
      add("shim_entropy", num_hex(f.shim.entropy, 4));
      add("shim_length", std::to_string(in.shim_length));
    }
    add("second_ethertype", hex_u(kEthertypeSue, 4));
  }
  if (f.encap == Encap::AfhGen2_6 || f.encap == Encap::AfhGen2_12) {
    const AfhGen2& a = f.afh2;
    const bool c = f.encap == Encap::AfhGen2_6;
    add("w", c ? "1 (compressed)" : "0 (normal)");
    add("v", std::to_string(a.v));
    add("z", "0");
    add("y", "0");
    add("x", "1");
    add("m", std::to_string(a.m));
    add("dst_xpu", num_hex(a.dst_xpu, c ? 4 : 8));
    add("src_xpu", num_hex(a.src_xpu, c ? 4 : 8));
    add("tc", std::to_string(a.tc));
    if (!c) {
      add("entropy", std::to_string(a.entropy));
      add("hop_count", std::to_string(a.hop_count));
      add("ethertype", hex_u(in.ethertype, 4));
    }
  }
  if (f.profile == Profile::Sue) {
    const ReliabilityHeader& r = f.rh;
    static const char* kOps[] = {"none", "ack", "nack", "reserved"};
    add("ver", std::to_string(r.ver));
    add("op", fmt::format("{} ({})", r.op, kOps[r.op & 3]));
    add("rsv", std::to_string(r.rsv));
    add("xpuid", num_hex(r.xpuid, 3));
    add("npsn", num_hex(r.npsn, 4));
    add("vc", std::to_string(r.vc));
    add("rsvd", std::to_string(r.rsvd));
    add("partition", num_hex(r.partition, 3));
    add("apsn", num_hex(r.apsn, 4));
  }
  add("cmds", std::to_string(f.cmds.size()));
  for (const Bytes& c : f.cmds) add("cmd", "0x" + to_hex(c));
  add("packed_bytes", std::to_string(in.packed_bytes));
  add("pdu_bytes", std::to_string(in.pdu_bytes));
  if (f.profile == Profile::Sue) add("r_crc", hex_u(in.rcrc, 8));
  add("pad_bytes", std::to_string(in.pad_bytes));
  add("fcs", hex_u(in.fcs, 8));
  return out;
}

Bytes parse_hex(const std::string& text) {
  Bytes b;
  if (auto why = hex_bytes(text, b))
    throw UsageError(fmt::format("bad hex: {} (allowed: hex digits, an optional 0x prefix, separators space : _ -)",
                                 *why));
  return b;
}

std::string to_hex(const Bytes& b) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  s.reserve(2 * b.size());
  for (uint8_t x : b) {
    s += kDigits[x >> 4];
    s += kDigits[x & 0xF];
  }
  return s;
}

}  // namespace sue
