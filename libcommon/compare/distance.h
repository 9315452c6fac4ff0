// How far apart two tensors of the same dtype and shape are, in one pass and nothing more: the
// sums behind ‖a‖, ‖b‖, a·b and ‖a − b‖, and max |a − b|. This is what a checkpoint diff needs
// (msprobe's checkpoint compare: l2, cosine; checkpoint spec §11 item 9, §12) for thousands of
// parameters and gigabytes, where compare_tensors (metrics.h) would also take both sides'
// statistics and a relative error per element.
//
// Elements are widened to double as stored (float32, float16, bfloat16 exactly) and every sum is
// taken in double, in blocks of 4096 elements summed in order, with chunks of kDistanceChunk
// elements spread over the workers and merged in order, so the result does not depend on `jobs`.
// Other dtypes give nullopt (the caller takes compare_tensors), and so does a pair whose sums are
// not finite (a NaN or an infinity: compare_tensors' NaN/Inf policies decide those).
#pragma once

#include <cstdint>
#include <optional>

#include "tensor/dtype.h"

namespace msdt::compare {

struct DistanceSums {
  uint64_t count = 0;
  double sum_aa = 0, sum_bb = 0, sum_ab = 0, sum_dd = 0;  // Σa², Σb², Σab, Σ(a − b)²
  double max_abs = 0;                                     // max |a − b|
};

inline constexpr uint64_t kDistanceChunk = uint64_t{1} << 20;

// `a` and `b` have the same dtype and the same element count (the caller checks); their data
// hold every element.
std::optional<DistanceSums> distance_sums(const TensorView& a, const TensorView& b,
                                          unsigned jobs = 1);

}  // namespace msdt::compare
