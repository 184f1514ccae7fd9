#include "sue/crc.hpp"

#include <boost/crc.hpp>

namespace sue {

namespace {
using FcsCrc = boost::crc_optimal<32, kFcsPolynomial, 0xFFFFFFFF, 0xFFFFFFFF, true, true>;
using Rcrc = boost::crc_optimal<32, kRcrcPolynomial, 0xFFFFFFFF, 0xFFFFFFFF, true, true>;
static_assert(std::is_same<FcsCrc, boost::crc_32_type>::value, "the FCS is boost::crc_32_type");
}  // namespace

uint32_t fcs32(const uint8_t* data, size_t n) {
  FcsCrc c;
  if (n) c.process_bytes(data, n);
  return c.checksum();
}

uint32_t rcrc32(const uint8_t* data, size_t n) {
  Rcrc c;
  if (n) c.process_bytes(data, n);
  return c.checksum();
}

}  // namespace sue
