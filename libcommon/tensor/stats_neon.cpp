// The aarch64 dispatch path of compute_stats: the kernels of stats_kernel.h on 16-byte vectors,
// which the compiler maps to NEON (part of every aarch64 CPU, so no run-time check is needed).
// Compiled to nothing elsewhere.
#include "tensor/stats_kernel.h"

namespace msdt::stats_detail {

#if defined(__aarch64__)

namespace {

MSDT_STATS_BLOCKS(, 16)

void half(const std::byte* p, size_t n, float* out) {
  for (size_t i = 0; i < n; ++i) out[i] = half_to_float(load<uint16_t>(p, i));
}

void bfloat16(const std::byte* p, size_t n, float* out) {
  for (size_t i = 0; i < n; ++i) out[i] = bfloat16_to_float(load<uint16_t>(p, i));
}

constexpr KernelTable kTable{block_f32, block_f64,  block_i32, block_i64,
                             block_u64, block_grid, half,      bfloat16};

}  // namespace

const KernelTable* neon_kernels() { return &kTable; }

#else

const KernelTable* neon_kernels() { return nullptr; }

#endif

}  // namespace msdt::stats_detail
