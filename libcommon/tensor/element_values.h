// Elements widened to double, and the passes over them that the debugger's watch conditions need
// beyond the one-pass statistics (tensor/stats.h): counts within ranges (condition 21) and a
// tensor against its previous value (conditions 18-20, watchpoints spec §2.1-2.2). These run
// over tensors already in memory, in chunks, so memory stays flat.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "io/error.h"
#include "tensor/dtype.h"
#include "tensor/stats.h"

namespace msdt {

// True for the dtypes whose elements are real numbers (every integer, bool, float, float8/6/4,
// hifloat8); complex, hifloat4 and string are not.
bool has_real_values(DType dtype);

// Elements [first, first + n) of `tensor` as doubles (bool 0/1; int64 beyond 2^53 rounded).
// Packed types need `first` to be a multiple of 8.
Status elements_to_double(const TensorView& tensor, uint64_t first, uint64_t n, double* out);

// For each [low, high] (inclusive), the number of elements x with low <= x <= high; NaN is in
// no range.
Expected<std::vector<uint64_t>> count_in_ranges(const TensorView& tensor,
                                                std::span<const std::pair<double, double>> ranges);

// A tensor against the previous iteration's value of the same size, element by element in
// double: mean |cur - prev|, mean |prev|, and for each (rtol, atol) whether every element has
// |cur - prev| <= atol + rtol * |prev| (false when either is NaN).
struct ChangeStats {
  double mean_abs_diff = 0, mean_abs_prev = 0;
  std::vector<bool> all_close;
};
Expected<ChangeStats> change_stats(const TensorView& current, const TensorView& previous,
                                   std::span<const std::pair<double, double>> tolerances);

// Everything a check needs of one tensor in one pass: the statistics (compute_stats's own, bit for
// bit: the same chunks of kStatsChunk elements on up to `jobs` workers) and, block by block in the
// same pass while each block is in cache, the range counts and the comparison with a previous
// value of the same element count.
struct PassRequest {
  std::span<const std::pair<double, double>> ranges;
  const TensorView* previous = nullptr;
  std::span<const std::pair<double, double>> tolerances;  // for the previous value
};
struct TensorPass {
  TensorStats stats;
  std::vector<uint64_t> range_counts;  // per request range (zeros when they could not be taken)
  std::optional<ChangeStats> change;   // with a previous value of the same count
  std::optional<Error> change_error;   // a previous value of another count, or not numbers
  std::optional<Error> extras_error;   // elements the shape promises but the bytes lack
};
TensorPass one_pass(const TensorView& tensor, unsigned jobs, const PassRequest& request);

}  // namespace msdt
