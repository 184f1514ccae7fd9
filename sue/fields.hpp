// The text face of the SUE encapsulation, for `cosim pdu`: profile and encapsulation names,
// `--field name=value` assignments, hex, and the `name = value` dissection of a decoded frame.
// Encode field names and decode line names are the same, so a decoded line can be fed back.
// Bad input throws core::UsageError with one line naming the field, the value and what is allowed.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sue/encap.hpp"

namespace sue {

Profile parse_profile(const std::string& s);
Encap parse_encap(const std::string& s);
std::string profile_names();  ///< "sue, sue_lite"
std::string encap_names();    ///< "std, afh1, afh2_6, afh2_12"

/// The fields `--field` accepts for this profile and encapsulation, in wire order.
std::vector<std::string> field_names(Profile p, Encap e);

/// Builds a frame from `name=value` assignments, applied in order.
class FrameBuilder {
 public:
  FrameBuilder(Profile p, Encap e);
  void assign(const std::string& name_eq_value);  ///< "npsn=7"
  void set(const std::string& name, const std::string& value);
  /// The frame after the cross-field checks (IP address families, IPv4/IPv6-only fields).
  Frame frame() const;

 private:
  Frame f_;
  std::optional<int> src_family_, dst_family_;
  std::set<std::string> given_;
  std::string allowed() const;
};

/// Every field of a decoded frame in wire order, plus the computed lengths, checksums and CRCs.
std::vector<std::pair<std::string, std::string>> describe(const Decoded& d);

/// Hex digits; an optional 0x prefix; spaces, tabs, newlines, ':', '_' and '-' are ignored.
Bytes parse_hex(const std::string& text);
std::string to_hex(const Bytes& b);  ///< lowercase, no separators

}  // namespace sue
