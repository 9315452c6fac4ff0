// One-pass tensor statistics for every dtype.
//
// Definitions (documented in README and the man page): count is every element; nan, pos_inf,
// neg_inf, zero (-0.0 included), negative (< 0) and positive (> 0) are counts over all elements;
// min and max are over the non-NaN elements; mean, std (population, ddof 0, as np.std),
// abs_mean and l2norm are over the finite elements. A statistic with no element to take it over
// is absent. Complex tensors get count only; bool counts as 0/1. Packed int4/int2/uint2 are read
// low bits first (sign-extended), uint1 most significant bit first; float8 E4M3FN/E5M2/E8M0 and
// float4 E2M1 are decoded; hifloat8/4, float6, float4 E1M2 and string get count only.
#pragma once

#include <cstdint>
#include <optional>
#include <variant>

#include "tensor/dtype.h"

namespace msdt {

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

// Reads each element once; bounded memory whatever the tensor size.
TensorStats compute_stats(const TensorView& tensor);

}  // namespace msdt
