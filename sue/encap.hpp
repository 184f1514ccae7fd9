// SUE encapsulation: byte-exact encode and decode of SUE and SUE Lite frames.
//
//   frame = network header | SUE PDU | pad | FCS
//   SUE PDU (profile SUE)      = RH (8 B) | packed operations | R-CRC (4 B)
//   SUE PDU (profile SUE Lite) = packed operations
//
// Network headers: standard Ethernet + IPv4/IPv6 + UDP, AFH Gen1 (Ethernet MACs
// carrying the XPU id, optional 802.1Q tag, optional shim) and AFH Gen2 in its
// 6-byte (compressed) and 12-byte (normal) forms. Every byte layout, every
// constant the SUE specification leaves open and why we chose it, and the error
// list are in docs/sue.md ("Encapsulation").
//
// decode() never reads outside [data, data + n): malformed input is an Error
// value naming what is wrong, never a crash.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace sue {

using Bytes = std::vector<uint8_t>;
using Mac = std::array<uint8_t, 6>;
using Ipv4Addr = std::array<uint8_t, 4>;
using Ipv6Addr = std::array<uint8_t, 16>;

// ---------------------------------------------------------------------------
// Ethernet, IP, UDP (IEEE / IETF values)
constexpr size_t kMacBytes = 6;
constexpr size_t kEthHeaderBytes = 14;       ///< DA, SA, Ethertype
constexpr size_t kVlanTagBytes = 4;          ///< 802.1Q TPID + TCI
constexpr size_t kFcsBytes = 4;
constexpr size_t kEthMinFrame = 64;          ///< IEEE 802.3 minimum frame, FCS included
constexpr size_t kEthMinNoFcs = kEthMinFrame - kFcsBytes;  ///< pad up to this many bytes before the FCS
constexpr uint16_t kEthertypeIpv4 = 0x0800;
constexpr uint16_t kEthertypeIpv6 = 0x86DD;
constexpr uint16_t kEthertypeVlan = 0x8100;  ///< IEEE 802.1Q C-tag TPID
constexpr size_t kIpv4HeaderBytes = 20;      ///< no options
constexpr size_t kIpv6HeaderBytes = 40;      ///< no extension headers
constexpr size_t kUdpHeaderBytes = 8;
constexpr uint8_t kIpProtoUdp = 17;

// ---------------------------------------------------------------------------
// Values the SUE specification leaves open: our choices (docs/sue.md says why).

/// Ethertype that identifies an AFH Gen1 frame (SUE spec §3.5.1: "The Ethertype field identifies
/// the packet as AFH Gen 1"). IEEE Std 802 "Local Experimental Ethertype 1", the value IEEE
/// reserves for prototypes and vendor protocols; no SUE Ethertype is assigned.
constexpr uint16_t kEthertypeAfhGen1 = 0x88B5;
/// Ethertype that identifies the SUE transport ("a SUE PDU follows"): the second Ethertype of
/// AFH Gen1 and the Ethertype of the AFH Gen2 12-byte header ("used to disambiguate multiple
/// transport headers"). IEEE Std 802 "Local Experimental Ethertype 2".
constexpr uint16_t kEthertypeSue = 0x88B6;
/// UDP destination port that identifies SUE over standard Ethernet/IP (§3.5.1 "identified by UDP
/// port number"; no port is assigned). From the dynamic/private range 49152..65535, which IANA
/// never assigns (RFC 6335), so it collides with no registered service; 0xC5E0 reads "SUE".
constexpr uint16_t kSueUdpPort = 0xC5E0;
/// Default UDP source port (the flow's entropy in a real NIC, like RoCEv2): base of the dynamic range.
constexpr uint16_t kDefaultUdpSrcPort = 0xC000;

// ---------------------------------------------------------------------------
// Reliability header (SUE spec §3.3, Table 5, Figure 9): 8 bytes, MSB first.
constexpr size_t kRhBytes = 8;
constexpr size_t kRcrcBytes = 4;
/// RH `ver` we send and accept. The spec does not number the version; 0 = current, as the AFH Gen2
/// V bit ("V=0 current version").
constexpr uint8_t kRhVersion = 0;
/// RH `op`: what `apsn` carries ("ACK, NACK or invalid"). 3 is reserved and rejected.
enum class RhOp : uint8_t { None = 0, Ack = 1, Nack = 2, Reserved = 3 };
constexpr uint16_t kMaxXpuId = 1023;  ///< 10-bit xpuid: up to 1024 XPUs (Table 1)
constexpr uint16_t kMaxPartition = 1023;

// ---------------------------------------------------------------------------
// Packed operations (our format; the spec keeps XPU commands opaque, §4.2 step 2).
// Each operation: a 2-byte op header, MSB first, then `length` opaque bytes:
//   bit 15 LAST (1 on the final operation of the PDU), bits 14..12 reserved (0), bits 11..0 length.
// An empty PDU (an ACK/NACK carrier) is the single header 0x8000 (LAST, length 0).
constexpr size_t kOpHeaderBytes = 2;
constexpr uint16_t kOpLast = 0x8000;
constexpr uint16_t kOpReservedMask = 0x7000;
constexpr uint16_t kOpLengthMask = 0x0FFF;
constexpr size_t kMaxCmdBytes = kOpLengthMask;  ///< 4095
/// Packing limits: op headers + command bytes. SUE packs "up to 4096 bytes of packed SUE PDU"
/// (§3.3), SUE Lite "up to 1K bytes" (§2.2, §3.4).
constexpr size_t kMaxPackedSue = 4096;
constexpr size_t kMaxPackedSueLite = 1024;

// ---------------------------------------------------------------------------
// AFH Gen1 (§3.5.3): standard MACs; the XPU id sits in the low 32 bits of the address (the switch
// looks up 16 to 32 of them), the high 16 bits are a prefix.
constexpr uint16_t kDefaultGen1MacPrefix = 0x0200;  ///< locally administered, unicast
/// AFH Gen1 shim (our format; §3.5.3 says only "fields similar to an IP header"), 8 bytes:
///   byte 0: version (4, = kShimVersion) | reserved (4); byte 1: traffic class; byte 2: hop limit;
///   byte 3: reserved; bytes 4-5: entropy; bytes 6-7: length of the SUE PDU that follows the
///   second Ethertype. The version nibble 0 tells a shim from the second Ethertype (0x88B6).
constexpr size_t kShimBytes = 8;
constexpr uint8_t kShimVersion = 0;

// ---------------------------------------------------------------------------
// AFH Gen2 (§3.5.2, Figures 13-15): the header lives in the DA/SA positions and is an IEEE 802c
// SLAP "Administratively Assigned Identifier". First octet of the DA, bit 0 first on the wire:
constexpr uint8_t kAfhM = 0x01;  ///< bit 0, I/G: 1 = multicast
constexpr uint8_t kAfhX = 0x02;  ///< bit 1, U/L: must be 1 (locally assigned)
constexpr uint8_t kAfhY = 0x04;  ///< bit 2, SLAP Y: must be 0 (AAI)
constexpr uint8_t kAfhZ = 0x08;  ///< bit 3, SLAP Z: must be 0 (AAI)
constexpr uint8_t kAfhV = 0x10;  ///< bit 4, version: 0 current, 1 future (rejected)
constexpr uint8_t kAfhW = 0x20;  ///< bit 5, format: 0 normal (hop count, entropy), 1 compressed
constexpr uint8_t kAfhSpareMask = 0xC0;  ///< bits 6-7: spare, 0
constexpr uint8_t kAfhGen2Version = 0;
/// The SA's first octet: traffic class in bits 7..4, low nibble 0x2 (M=0, X=1, Y=Z=0), so the SA is
/// itself a valid locally assigned unicast AAI address and legacy switches forward the frame.
constexpr uint8_t kAfhSaLowNibble = 0x02;
constexpr size_t kAfh2SlotBytes = 12;      ///< the DA + SA positions
constexpr size_t kAfh2CompressedBytes = 6;  ///< header bytes of the 6-byte form (other 6 carry payload)

// ---------------------------------------------------------------------------
enum class Profile { Sue, SueLite };
enum class Encap { Std, AfhGen1, AfhGen2_6, AfhGen2_12 };

const char* profile_name(Profile p);  ///< "sue", "sue_lite"
const char* encap_name(Encap e);      ///< "std", "afh1", "afh2_6", "afh2_12"
size_t max_packed(Profile p);

struct Vlan {  ///< 802.1Q tag (std, afh1)
  bool present = false;
  uint8_t pcp = 0;   ///< 3 bits: priority (PFC class)
  uint8_t dei = 0;   ///< 1 bit
  uint16_t vid = 0;  ///< 12 bits
};

struct IpHeader {  ///< std only
  uint8_t version = 4;  ///< 4 or 6
  uint8_t dscp = 0;     ///< 6 bits (IPv4 TOS / IPv6 traffic class, high bits)
  uint8_t ecn = 0;      ///< 2 bits
  uint8_t ttl = 64;     ///< IPv4 TTL / IPv6 hop limit
  uint16_t id = 0;      ///< IPv4 identification
  bool df = true;       ///< IPv4 don't fragment
  uint32_t flow_label = 0;  ///< IPv6, 20 bits
  Ipv4Addr src4{10, 0, 0, 1}, dst4{10, 0, 0, 2};
  Ipv6Addr src6{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  Ipv6Addr dst6{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
};

struct UdpHeader {  ///< std only; the destination port is kSueUdpPort
  uint16_t sport = kDefaultUdpSrcPort;
  bool checksum = true;  ///< false: send 0 ("no checksum"), IPv4 only
};

struct Gen1Shim {  ///< afh1 only
  bool present = false;
  uint8_t tc = 0;
  uint8_t hop_limit = 0;
  uint16_t entropy = 0;
};

struct AfhGen2 {  ///< afh2_6 (W=1, 16-bit XPU ids) and afh2_12 (W=0, 32-bit XPU ids)
  uint8_t m = 0;               ///< multicast
  uint8_t v = kAfhGen2Version;  ///< version bit (1 is "future" and rejected by decode)
  uint32_t dst_xpu = 2;
  uint32_t src_xpu = 1;
  uint8_t tc = 0;         ///< traffic class, 4 bits (the VC's class)
  uint8_t entropy = 0;    ///< afh2_12 only
  uint8_t hop_count = 0;  ///< afh2_12 only
};

struct ReliabilityHeader {  ///< profile SUE only; Table 5, in wire order
  uint8_t ver = kRhVersion;  ///< 2 bits
  uint8_t op = 0;            ///< 2 bits, RhOp
  uint8_t rsv = 0;           ///< 2 bits, reserved
  uint16_t xpuid = 1;        ///< 10 bits
  uint16_t npsn = 0;         ///< packet sequence number
  uint8_t vc = 0;            ///< 2 bits
  uint8_t rsvd = 0;          ///< 4 bits, reserved
  uint16_t partition = 0;    ///< 10 bits
  uint16_t apsn = 0;         ///< ACK/NACK PSN
};

/// One frame, all fields. Fields that do not apply to the profile/encapsulation are ignored by
/// encode() and left at their defaults by decode().
struct Frame {
  Profile profile = Profile::Sue;
  Encap encap = Encap::Std;
  Mac dmac{0x02, 0, 0, 0, 0, 2};  ///< std, afh1 (afh1: prefix 16 | dst XPU 32)
  Mac smac{0x02, 0, 0, 0, 0, 1};  ///< std, afh1 (afh1: prefix 16 | src XPU 32)
  Vlan vlan;                      ///< std, afh1
  IpHeader ip;                    ///< std
  UdpHeader udp;                  ///< std
  Gen1Shim shim;                  ///< afh1
  AfhGen2 afh2;                   ///< afh2_6, afh2_12
  ReliabilityHeader rh;           ///< sue
  std::vector<Bytes> cmds;        ///< the packed XPU commands, opaque, 1..4095 bytes each
};

bool operator==(const Frame& a, const Frame& b);
inline bool operator!=(const Frame& a, const Frame& b) { return !(a == b); }

/// AFH Gen1 MAC helpers: prefix (16) | XPU (32).
Mac gen1_mac(uint16_t prefix, uint32_t xpu);
uint32_t gen1_xpu(const Mac& m);
uint16_t gen1_prefix(const Mac& m);

/// A frame with every field at its default for this profile and encapsulation.
Frame make_frame(Profile p, Encap e);

// ---------------------------------------------------------------------------
// Errors
enum class Errc {
  Truncated,         ///< fewer bytes than the headers, lengths or minimum frame need
  BadFcs,            ///< Ethernet FCS mismatch
  BadRcrc,           ///< SUE R-CRC mismatch
  UnknownEthertype,  ///< Ethertype (or AFH Gen1 second Ethertype) that carries no SUE
  UnknownUdpPort,    ///< UDP destination port is not kSueUdpPort
  UnsupportedIp,     ///< IPv4 options or fragments, IPv6 extension headers, not UDP
  BadVersion,        ///< IP version, RH ver, AFH Gen2 V bit, shim version
  BadAfhAddress,     ///< AFH Gen2 SLAP bits (X, Y, Z, W) or SA pattern wrong
  BadIpChecksum,     ///< IPv4 header checksum
  BadUdpChecksum,    ///< UDP checksum (or zero checksum over IPv6)
  LengthMismatch,    ///< IP/UDP/shim lengths disagree, or bytes after the PDU beyond the pad
  BadOpHeader,       ///< packed-operation header: reserved bits, zero length
  BadRhOpcode,       ///< RH op = 3 (reserved)
  ReservedBits,      ///< reserved bits set in a header of our own format (shim, AFH Gen2 spare)
  PackingLimit,      ///< packed operations exceed the profile's limit
  BadPad,            ///< non-zero pad bytes
  BadField,          ///< encode: a field out of range or inconsistent
};
const char* errc_name(Errc c);  ///< "truncated", "bad_fcs", ...
std::vector<Errc> all_errcs();

struct Error {
  Errc code;
  std::string detail;  ///< one line: what is wrong, with the values seen and expected
  std::string message() const;  ///< "<errc_name>: <detail>"
};

/// A value or an Error.
template <class T>
class Result {
 public:
  Result(T v) : v_(std::in_place_index<0>, std::move(v)) {}       // NOLINT: implicit by design
  Result(Error e) : v_(std::in_place_index<1>, std::move(e)) {}   // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const { return std::get<0>(v_); }
  T& value() { return std::get<0>(v_); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// ---------------------------------------------------------------------------
/// What decode() saw beyond the fields: computed lengths, checksums and CRCs.
struct FrameInfo {
  size_t frame_bytes = 0;   ///< FCS included
  size_t header_bytes = 0;  ///< network header bytes (afh2_6: 6)
  size_t pdu_bytes = 0;     ///< RH + packed + R-CRC (SUE) or packed (Lite)
  size_t packed_bytes = 0;  ///< op headers + command bytes
  size_t pad_bytes = 0;
  uint32_t fcs = 0;
  uint32_t rcrc = 0;        ///< SUE only
  uint16_t ethertype = 0;   ///< the Ethertype after the MACs and the optional 802.1Q tag (afh2_6: 0)
  uint16_t ip_checksum = 0;
  uint16_t ip_length = 0;   ///< IPv4 total length / IPv6 payload length
  uint16_t udp_dport = 0;
  uint16_t udp_length = 0;
  uint16_t udp_checksum = 0;
  uint16_t shim_length = 0;
};

struct Decoded {
  Frame frame;
  FrameInfo info;
};

struct DecodeOptions {
  Profile profile = Profile::Sue;  ///< not self-describing: the NIC is configured with it
  std::optional<Encap> encap;      ///< nullopt: detect_encap()
};

/// Frame bytes, FCS included, padded to the Ethernet minimum; or BadField/PackingLimit.
Result<Bytes> encode(const Frame& f);

/// Bytes (FCS included) -> frame, or the first thing that is wrong.
Result<Decoded> decode(const uint8_t* data, size_t n, const DecodeOptions& opt = {});
inline Result<Decoded> decode(const Bytes& b, const DecodeOptions& opt = {}) { return decode(b.data(), b.size(), opt); }

/// Which encapsulation a frame uses: AFH Gen2 compressed by its DA (SLAP AAI with W=1), the others
/// by the Ethertype after the MACs (and an optional 802.1Q tag). nullopt if none matches.
std::optional<Encap> detect_encap(const uint8_t* data, size_t n);

/// The SUE PDU alone (RH | packed | R-CRC, or packed): the bytes the R-CRC and packing limits see.
Result<Bytes> encode_pdu(const Frame& f);

}  // namespace sue
