// The two CRCs of a SUE frame (docs/sue.md, "CRCs"):
//  * FCS: the IEEE 802.3 Ethernet CRC-32 over the whole frame, appended least
//    significant byte first, as every Ethernet MAC does.
//  * R-CRC: the SUE reliability CRC over the reliability header and the packed
//    operations (SUE spec §3.3, §4.2 step 4). The spec gives no polynomial: we
//    use CRC-32C (Castagnoli), appended most significant byte first like every
//    other SUE header field.
// Both are computed with Boost.CRC.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sue {

/// IEEE 802.3 CRC-32: poly 0x04C11DB7, init and final XOR 0xFFFFFFFF, reflected in and out.
/// Check value: fcs32("123456789") == 0xCBF43926.
constexpr uint32_t kFcsPolynomial = 0x04C11DB7;
constexpr uint32_t kFcsCheck = 0xCBF43926;

/// R-CRC = CRC-32C (Castagnoli): poly 0x1EDC6F41, init and final XOR 0xFFFFFFFF, reflected in and out.
/// Why: (1) the R-CRC is end to end: it must catch corruption inside a switch, whose egress
/// recomputes the FCS over the corrupted bytes; with a different generator than the FCS, an error
/// pattern that is a multiple of one polynomial (and escapes that CRC) is not thereby a multiple
/// of the other; (2) CRC-32C keeps Hamming distance 6 up to
/// 5243 bits (655 bytes: a packed PDU of a few commands), where the 802.3 polynomial has HD 5 above
/// 268 bits and HD 4 above 2974 bits (Koopman's CRC tables); at the 4 KB packing limit both have
/// HD 4; (3) it is the end-to-end CRC that iSCSI, SCTP, NVMe/TCP and ext4 use, which CPUs
/// (SSE4.2 crc32, ARMv8 crc32c) and NIC IP compute natively.
/// Check value: rcrc32("123456789") == 0xE3069283.
constexpr uint32_t kRcrcPolynomial = 0x1EDC6F41;
constexpr uint32_t kRcrcCheck = 0xE3069283;

uint32_t fcs32(const uint8_t* data, size_t n);
uint32_t rcrc32(const uint8_t* data, size_t n);

}  // namespace sue
