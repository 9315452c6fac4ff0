#include "summary/crc32c.h"

#include <isa-l/crc.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#include <wmmintrin.h>
#endif

namespace msdt::summary {
namespace {

#if defined(__x86_64__)
// Below this many bytes the SSE4.2 crc32 instruction, 8 bytes a step, beats ISA-L's folding code,
// whose setup dominates short inputs: every record's 8-byte length, most scalar events.
constexpr size_t kShortInput = 256;
// From this many bytes, three runs at once (crc32c_three_way) beat one.
constexpr size_t kThreeWayInput = 48;

__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(const std::byte* p, size_t n,
                                                        uint32_t crc) {
  uint64_t c = crc;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    c = _mm_crc32_u64(c, v);
  }
  auto c32 = static_cast<uint32_t>(c);
  for (; n > 0; ++p, --n) c32 = _mm_crc32_u8(c32, static_cast<uint8_t>(*p));
  return c32;
}

// x^(8 L - 33) mod P (P: CRC-32C's polynomial), bit-reflected, for L = 8 k bytes: carry-less
// multiplying a CRC register by it, then one crc32 instruction over the 64-bit product, gives the
// register after L zero bytes (the product is reflected, hence 33 = 32 + 1).
constexpr size_t kMaxShift = 2 * (kShortInput / 24 * 8);
constexpr std::array<uint32_t, kMaxShift / 8 + 1> kShiftBy = [] {
  std::array<uint32_t, kMaxShift / 8 + 1> k{};
  uint32_t power = 0x80000000u;  // x^0
  size_t exponent = 0;
  for (size_t i = 1; i < k.size(); ++i) {
    for (; exponent < 8 * 8 * i - 33; ++exponent)
      power = (power >> 1) ^ ((power & 1) ? 0x82F63B78u : 0);
    k[i] = power;
  }
  return k;
}();

// A CRC register's polynomial times kShiftBy[bytes / 8], 64 bits (the crc32 instruction reduces
// it).
__attribute__((target("sse4.2,pclmul"))) uint64_t moved(uint64_t reg, size_t bytes) {
  __m128i product =
      _mm_clmulepi64_si128(_mm_cvtsi64_si128(static_cast<int64_t>(reg)),
                           _mm_cvtsi32_si128(static_cast<int>(kShiftBy[bytes / 8])), 0);
  return static_cast<uint64_t>(_mm_cvtsi128_si64(product));
}

// Three runs of the crc32 instruction over the thirds of the input at once (its latency, three
// cycles, is what limits one run), then joined: a CRC register is linear, so the first third's
// register moved past the other two, the second's past the third, and the third's add up to the
// whole's. Inputs from 24 bytes.
__attribute__((target("sse4.2,pclmul"))) uint32_t crc32c_three_way(const std::byte* p, size_t n,
                                                                   uint32_t crc) {
  const size_t block = n / 24 * 8;
  const std::byte* q = p + block;
  const std::byte* r = q + block;
  uint64_t a = crc, b = 0, c = 0;
  for (size_t i = 0; i < block; i += 8) {
    a = _mm_crc32_u64(a, load_u64le(p + i));
    b = _mm_crc32_u64(b, load_u64le(q + i));
    c = _mm_crc32_u64(c, load_u64le(r + i));
  }
  const auto joined =
      static_cast<uint32_t>(_mm_crc32_u64(0, moved(a, 2 * block) ^ moved(b, block)) ^ c);
  return crc32c_sse42(r + block, n - 3 * block, joined);
}

bool has_sse42() {
  static const bool yes = __builtin_cpu_supports("sse4.2");
  return yes;
}

bool has_pclmul() {
  static const bool yes = __builtin_cpu_supports("pclmul");
  return yes;
}
#endif

}  // namespace

uint32_t crc32c(Bytes data) {
  // Neither ISA-L's crc32_iscsi nor the instruction inverts on entry or on exit.
  uint32_t crc = 0xFFFFFFFFu;
#if defined(__x86_64__)
  if (data.size() < kShortInput && has_sse42()) {
    if (data.size() >= kThreeWayInput && has_pclmul())
      return crc32c_three_way(data.data(), data.size(), crc) ^ 0xFFFFFFFFu;
    return crc32c_sse42(data.data(), data.size(), crc) ^ 0xFFFFFFFFu;
  }
#endif
  while (!data.empty()) {
    // crc32_iscsi takes an int length.
    size_t n = std::min<size_t>(data.size(), size_t{1} << 30);
    // ISA-L's prototype takes a non-const pointer but only reads.
    crc =
        crc32_iscsi(const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(data.data())),
                    static_cast<int>(n), crc);
    data = data.subspan(n);
  }
  return crc ^ 0xFFFFFFFFu;
}

}  // namespace msdt::summary
