// One-pass tensor statistics for every dtype.
//
// Definitions (documented in README and the man page): count is every element; nan, pos_inf,
// neg_inf, zero (-0.0 included), negative (< 0) and positive (> 0) are counts over all elements;
// min and max are over the non-NaN elements; mean, std (population, ddof 0, as np.std),
// abs_mean and l2norm are over the finite elements. A statistic with no element to take it over
// is absent. Complex tensors get count only; bool counts as 0/1. Packed int4/int2/uint2 are read
// low bits first (sign-extended), uint1 most significant bit first; float8 E4M3FN/E5M2/E8M0 and
// float4 E2M1/E1M2, float6 E2M3/E3M2 and hifloat8 are decoded; hifloat4 and string get count only.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "tensor/dtype.h"

namespace msdt {

namespace stats_detail {
struct BlockSums;
}

// An integer statistic kept exact (int64 and uint64 extremes beyond 2^53 do not go through double).
using ExactInteger = std::variant<int64_t, uint64_t>;

struct TensorStats {
  uint64_t count = 0;
  std::optional<double> min, max, mean, std, abs_mean, l2norm;
  // For integer and bool tensors, min and max as exact integers (min/max hold them rounded to
  // double for comparisons); absent for floating-point tensors. Outputs print these when present.
  std::optional<ExactInteger> exact_min, exact_max;
  uint64_t nan = 0, pos_inf = 0, neg_inf = 0, zero = 0, negative = 0, positive = 0;
};

// Accuracy: sums are compensated (TwoSum in double, merged in long double; a float32 block whose
// plain double sum is exact is summed plainly), the second moment is the two-pass one per block of
// 1024 elements (or, for float32, the one-pass one about a shift near the mean where that is as
// accurate) merged with Chan's formula, and integer sums are exact; mean, std, abs_mean and
// l2norm are at least as accurate as NumPy's float64 pairwise sums.
// Zero extremes are reported as +0.0 whatever the sign of the zeros.

// The instruction sets a kernel can use. Scalar is the portable reference the others are tested
// against; the rest exist only where the CPU (and the build's architecture) has them.
enum class StatsPath : uint8_t { Scalar, Sse2, Avx2, Avx512, Neon };
std::string_view stats_path_name(StatsPath path);  // "scalar", "sse2", "avx2", "avx512", "neon"
// The paths this binary and this CPU support, narrowest first; the last is the default.
const std::vector<StatsPath>& supported_stats_paths();
StatsPath best_stats_path();

// The kernel's 16-bit float converters (F16C or AVX-512 where present, else scalar): `n` float16
// or bfloat16 elements at `data` to float32. For other passes over such tensors
// (tensor/element_values.h).
void sixteen_bit_floats_to_float32(DType dtype, const std::byte* data, size_t n, float* out);

// Chan et al.'s pairwise update: the second moment (Σ(x - mean)²) of parts a and b taken together,
// from each part's count, mean and second moment about its own mean. What StatsAccumulator::merge
// and dump-compare's metrics (compare/metrics.cpp) merge chunks with; F is double or long double.
template <class F>
F merged_m2(F n_a, F mean_a, F m2_a, F n_b, F mean_b, F m2_b) {
  if (n_a == 0) return m2_b;
  if (n_b == 0) return m2_a;
  const F delta = mean_b - mean_a;
  return m2_a + (m2_b + delta * delta * (n_a * n_b / (n_a + n_b)));
}

// Statistics over parts of one tensor, to be merged in order: the chunk API behind the parallel
// compute_stats, for callers that schedule the chunks themselves.
class StatsAccumulator {
 public:
  // `path` must be one of supported_stats_paths().
  explicit StatsAccumulator(StatsPath path = best_stats_path());
  // Adds elements [first, first + n) of `tensor` (whose data must hold them); `first` must be a
  // multiple of 8 so that packed elements start on a byte boundary. Dtypes with count only
  // (complex, string, undecoded encodings) add nothing.
  void add(const TensorView& tensor, uint64_t first, uint64_t n);
  // Appends the elements `later` has seen (after this accumulator's ones).
  void merge(const StatsAccumulator& later);
  // Every field but count, which the caller knows from the shape.
  void fill(TensorStats& stats) const;

 private:
  void add_block(const stats_detail::BlockSums& block);

  StatsPath path_;
  bool integer_ = false, unsigned_ = false;
  uint64_t seen_ = 0, nan_ = 0, pos_inf_ = 0, neg_inf_ = 0, zero_ = 0, negative_ = 0, finite_ = 0;
  double min_, max_;
  int64_t imin_, imax_;
  uint64_t umin_, umax_;
  long double sum_ = 0, sum_err_ = 0, abs_sum_ = 0, sq_sum_ = 0, m2_ = 0;
};

// The chunk compute_stats cuts a tensor into, whatever `jobs`, so that the result does not depend
// on the worker count (elements; a multiple of the kernel's block and of 8).
inline constexpr uint64_t kStatsChunk = uint64_t{1} << 20;

// Reads each element once; bounded memory whatever the tensor size. The tensor is cut into
// chunks of kStatsChunk elements whatever `jobs`, so the result does not depend on the worker
// count.
TensorStats compute_stats(const TensorView& tensor);
TensorStats compute_stats(const TensorView& tensor, unsigned jobs,
                          StatsPath path = best_stats_path());

}  // namespace msdt
