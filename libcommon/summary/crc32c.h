// CRC-32C (Castagnoli) and the TFRecord mask that summary and tfevents files use (spec summary.md
// §3.4). Intel ISA-L underneath: runtime dispatch to the SSE4.2/PCLMUL (or aarch64 CRC) code;
// inputs under 256 bytes (every record's length, most scalar events) straight through the SSE4.2
// crc32 instruction on x86-64 CPUs that have it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "io/byte_reader.h"

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace msdt::summary {

// Standard CRC-32C: init and final XOR 0xFFFFFFFF ("123456789" gives 0xE3069283).
uint32_t crc32c(Bytes data);

// rotr32(crc, 15) + 0xa282ead8, wrapping: what the record framing stores.
constexpr uint32_t mask_crc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

inline uint32_t masked_crc32c(Bytes data) { return mask_crc(crc32c(data)); }

// Inputs shorter than this are short (crc32c_short below).
inline constexpr size_t kCrc32cShortInput = 256;

// Whether this CPU has a CRC-32C instruction that crc32c_short below uses (SSE4.2 on x86-64;
// false elsewhere, where crc32c() alone serves).
bool crc32c_has_instruction();

#if defined(__x86_64__)
// For functions that call crc32c_short: compiled for the instruction, called only where
// crc32c_has_instruction().
#define MSDT_CRC32C_TARGET __attribute__((target("sse4.2")))

// crc32c() of a short input (under kCrc32cShortInput bytes, where ISA-L's folding code costs more
// to set up than it saves) through the SSE4.2 crc32 instruction, 8 bytes a step; inlined into the
// loop of a caller compiled with MSDT_CRC32C_TARGET, so that the chains of consecutive records
// overlap in the CPU.
MSDT_CRC32C_TARGET inline uint32_t crc32c_short(const std::byte* p, size_t n) {
  uint64_t c = 0xFFFFFFFFu;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    c = _mm_crc32_u64(c, v);
  }
  auto c32 = static_cast<uint32_t>(c);
  for (; n > 0; ++p, --n) c32 = _mm_crc32_u8(c32, static_cast<uint8_t>(*p));
  return c32 ^ 0xFFFFFFFFu;
}
#endif

}  // namespace msdt::summary
