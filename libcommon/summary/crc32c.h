// CRC-32C (Castagnoli) and the TFRecord mask that summary and tfevents files use (spec summary.md
// §3.4). Intel ISA-L underneath: runtime dispatch to the SSE4.2/PCLMUL (or aarch64 CRC) code;
// inputs under 256 bytes (every record's length, most scalar events) straight through the SSE4.2
// crc32 instruction on x86-64 CPUs that have it.
#pragma once

#include <cstdint>

#include "io/byte_reader.h"

namespace msdt::summary {

// Standard CRC-32C: init and final XOR 0xFFFFFFFF ("123456789" gives 0xE3069283).
uint32_t crc32c(Bytes data);

// rotr32(crc, 15) + 0xa282ead8, wrapping: what the record framing stores.
constexpr uint32_t mask_crc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

inline uint32_t masked_crc32c(Bytes data) { return mask_crc(crc32c(data)); }

}  // namespace msdt::summary
