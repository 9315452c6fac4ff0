// The x86-64 dispatch paths of compute_stats: the kernels of stats_kernel.h compiled for SSE2 (the
// x86-64 baseline), AVX2 (with FMA and F16C) and AVX-512 (F, DQ, BW, VL). Only the functions
// below carry the target attributes, so the binary runs on any x86-64 and stats.cpp picks the
// widest path the CPU supports.
#include "tensor/stats_kernel.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// GCC 12 reports the _mm512_undefined_* placeholders inside its own AVX-512 intrinsics as
// "may be used uninitialized" (GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace msdt::stats_detail {

#if defined(__x86_64__)

namespace {

void scalar_half(const std::byte* p, size_t n, float* out, size_t from) {
  for (size_t i = from; i < n; ++i) out[i] = half_to_float(load<uint16_t>(p, i));
}

void scalar_bfloat16(const std::byte* p, size_t n, float* out, size_t from) {
  for (size_t i = from; i < n; ++i) out[i] = bfloat16_to_float(load<uint16_t>(p, i));
}

namespace sse2 {
MSDT_STATS_BLOCKS(, 16)

void half(const std::byte* p, size_t n, float* out) { scalar_half(p, n, out, 0); }

void bfloat16(const std::byte* p, size_t n, float* out) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m128i h = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 2 * i));
    _mm_storeu_ps(out + i, _mm_castsi128_ps(_mm_unpacklo_epi16(_mm_setzero_si128(), h)));
  }
  scalar_bfloat16(p, n, out, i);
}

constexpr KernelTable kTable{block_f32, block_f64,  block_i32, block_i64,
                             block_u64, block_grid, half,      bfloat16};
}  // namespace sse2

namespace avx2 {
#define MSDT_AVX2 [[gnu::target("avx2,fma,f16c,bmi,bmi2,popcnt")]]
MSDT_STATS_BLOCKS(MSDT_AVX2, 32)

MSDT_AVX2 void half(const std::byte* p, size_t n, float* out) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  scalar_half(p, n, out, i);
}

MSDT_AVX2 void bfloat16(const std::byte* p, size_t n, float* out) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2 * i));
    __m256i w = _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
    _mm256_storeu_ps(out + i, _mm256_castsi256_ps(w));
  }
  scalar_bfloat16(p, n, out, i);
}
#undef MSDT_AVX2

constexpr KernelTable kTable{block_f32, block_f64,  block_i32, block_i64,
                             block_u64, block_grid, half,      bfloat16};
}  // namespace avx2

namespace avx512 {
#define MSDT_AVX512 \
  [[gnu::target("avx512f,avx512dq,avx512bw,avx512vl,avx2,fma,f16c,bmi,bmi2,popcnt")]]
MSDT_STATS_BLOCKS(MSDT_AVX512, 64)

MSDT_AVX512 void half(const std::byte* p, size_t n, float* out) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 2 * i));
    _mm512_storeu_ps(out + i, _mm512_cvtph_ps(h));
  }
  scalar_half(p, n, out, i);
}

MSDT_AVX512 void bfloat16(const std::byte* p, size_t n, float* out) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 2 * i));
    __m512i w = _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16);
    _mm512_storeu_ps(out + i, _mm512_castsi512_ps(w));
  }
  scalar_bfloat16(p, n, out, i);
}
#undef MSDT_AVX512

constexpr KernelTable kTable{block_f32, block_f64,  block_i32, block_i64,
                             block_u64, block_grid, half,      bfloat16};
}  // namespace avx512

}  // namespace

const KernelTable* x86_kernels(StatsPath path) {
  switch (path) {
    case StatsPath::Sse2:
      return &sse2::kTable;
    case StatsPath::Avx2:
      return &avx2::kTable;
    case StatsPath::Avx512:
      return &avx512::kTable;
    default:
      return nullptr;
  }
}

#else

const KernelTable* x86_kernels(StatsPath) { return nullptr; }

#endif

}  // namespace msdt::stats_detail
