// The metrics of one tensor pair (compare spec §4-§7, §12.3-§12.4): msaccucmp's ten metrics, the
// six of msprobe, the statistics differences, and per side the counts of elements, NaN, +Inf,
// -Inf and zeros, all from one pass over the elements of the pair.
//
// x is the my side (msaccucmp "My Output", msprobe "NPU"), y the golden side ("Ground Truth",
// "Bench"); ε = 2.220446049250313e-16 (double epsilon), ε₃₂ = 1.1920929e-07 (float32 epsilon).
//
// Values: every element is widened to double as stored (exact for float16, bfloat16, float32,
// the small floats and integers up to 2^53; bool is 0/1), and all arithmetic is in double. With
// MetricOptions::cast_float32 each value is first rounded to float32 as msaccucmp does (§4
// item 4); the arithmetic stays in double, so results differ from msaccucmp's float32 NumPy in
// the last digits (§12.3).
//
// NaN/Inf policy (§12.3), applied before any metric sees the values:
//   propagate       IEEE arithmetic decides, as msaccucmp (§4 item 5);
//   same-positions  msprobe's handle_inf_nan (§6.1): if NaN sits at the same positions on both
//                   sides and ±Inf too (+Inf against -Inf counts as the same position, as
//                   np.isinf), those elements are 0 on both sides; if not, every pairwise metric
//                   is absent with reason "nan/inf positions differ";
//   mask            pairs with a non-finite value on either side are left out (counted in
//                   PairMetrics::masked); means and ratios divide by the pairs kept.
//
// A metric is either a value or a reason: Metric::value is never NaN (a NaN result becomes the
// reason "non-finite"); it may be ±Inf under propagate (MaxAbsoluteError with an Inf element).
//
// One pass: the pair is read block by block (1024 elements, in cache); each block is decoded to
// double once, the per-side statistics (tensor/stats.h, bit for bit compute_stats's own) and the
// pair's sums are taken from it while it is in cache. KullbackLeiblerDivergence is the exception:
// it normalises each side by that side's own minimum and maximum and then clamps at ε₃₂ before
// taking logarithms, max((v - min)/(max - min), ε₃₂), so its sums depend on the extremes through
// a clamp and a logarithm and cannot be rebuilt from quantities accumulated before the extremes
// are known. It therefore takes a second pass over the pair, only when it is selected, the sides
// are not both bool, and the values are finite (otherwise the result is known without it). Every
// other metric comes from the first pass.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/error.h"
#include "tensor/dtype.h"
#include "tensor/stats.h"

namespace msdt::compare {

// Why a metric has no value. Spellings (reason_name) are stable: outputs and golden tests use them.
enum class Reason : uint8_t {
  NotSelected,            // "not selected": not in the Algorithms selection
  NotReal,                // "not real": complex, string or hifloat4 elements on either side
  SizeMismatch,           // "size mismatch": element counts differ (§4 item 1)
  ShapeMismatch,          // "shape mismatch": shapes differ, with require_same_shape (§6.1)
  Empty,                  // "empty": no element (§7)
  NanInfPositionsDiffer,  // "nan/inf positions differ": same-positions policy, positions differ
  AllMasked,              // "all masked": mask policy left no pair
  Bool,           // "bool": both sides bool, a metric msaccucmp does not run on bool (§4.3)
  Scalar,         // "scalar": msaccucmp's cosine of a one-element tensor (§4 item 7: every
                  // dimension 1, or shape ()); msprobe's cosine, EucDist and ratios of a 0-d tensor
  LengthOne,      // "length 1": a similarity of one compared pair otherwise (§6.4, §9.7)
  AllZeroMine,    // "all-zero mine": my norm within the metric's ε rule, golden's not
  AllZeroGolden,  // "all-zero golden": golden norm within the ε rule, mine not
  NonFinite,      // "non-finite": the result is NaN (NaN or Inf in the data, propagate)
  ZeroGoldenStatistic,  // "zero golden statistic": relative statistic difference over 0 (§6.5)
  StatisticsOnly,       // "statistics only": a side is a statistic.csv row, no elements (§6.5)
};
inline constexpr size_t kReasonCount = 15;
std::string_view reason_name(Reason reason);
std::optional<Reason> parse_reason(std::string_view name);

// A value or the reason there is none; exactly one of the two is set.
struct Metric {
  std::optional<double> value;
  std::optional<Reason> reason;

  static Metric of(double v);  // NaN becomes Reason::NonFinite
  static Metric absent(Reason r) { return Metric{std::nullopt, r}; }
  bool has_value() const { return value.has_value(); }
};

// msaccucmp's built-in metrics, in its index order (ConstManager.BUILT_IN_ALGORITHM, §5.1).
enum class Algorithm : uint8_t {
  CosineSimilarity = 0,
  MaxAbsoluteError = 1,
  AccumulatedRelativeError = 2,
  RelativeEuclideanDistance = 3,
  KullbackLeiblerDivergence = 4,
  StandardDeviation = 5,
  MeanAbsoluteError = 6,
  RootMeanSquareError = 7,
  MaxRelativeError = 8,
  MeanRelativeError = 9,
};
inline constexpr size_t kAlgorithmCount = 10;
std::string_view algorithm_name(Algorithm algorithm);  // "CosineSimilarity", …
// "0".."9" or a name, in any letter case; nullopt otherwise.
std::optional<Algorithm> find_algorithm(std::string_view name_or_index);

// Which msaccucmp metrics to compute, in the order the user gave (msaccucmp writes its columns in
// selection order, §8.1). The msprobe metrics and the statistics are always computed.
class Algorithms {
 public:
  Algorithms() = default;  // none
  static Algorithms all();
  // `-alg` (§2.2): "all", or items separated by commas and/or blanks, each an index 0-9 or a name
  // ("0,MaxAbsoluteError,4", "0 1 2"); "all" among items adds the rest in index order. A repeated
  // item is kept once, at its first place. Errors name the item: "unknown algorithm 'Foo' (…)",
  // "algorithm index 12 is not in 0-9", "empty item in algorithm list '0,,1'".
  static Expected<Algorithms> parse(std::string_view text);

  void add(Algorithm algorithm);  // at the end, unless already there
  bool has(Algorithm algorithm) const { return (mask_ >> static_cast<unsigned>(algorithm)) & 1u; }
  const std::vector<Algorithm>& order() const { return order_; }
  bool operator==(const Algorithms& other) const { return order_ == other.order_; }

 private:
  std::vector<Algorithm> order_;
  uint16_t mask_ = 0;
};

// msprobe's metrics in its column order (§6.4, CompareConst).
enum class MsprobeMetric : uint8_t {
  Cosine,
  EucDist,
  MaxAbsErr,
  MaxRelativeErr,
  OneThousandthErrRatio,
  FiveThousandthsErrRatio,
};
inline constexpr size_t kMsprobeMetricCount = 6;
// msprobe's column names: "Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr",
// "One Thousandth Err Ratio", "Five Thousandths Err Ratio".
std::string_view msprobe_metric_name(MsprobeMetric metric);

enum class NanPolicy : uint8_t { Propagate, SamePositions, Mask };
std::string_view nan_policy_name(NanPolicy policy);  // "propagate", "same-positions", "mask"
// Those names, and the spec's longer ones "mask-if-same-positions" and "mask-all".
std::optional<NanPolicy> parse_nan_policy(std::string_view text);

struct MetricOptions {
  NanPolicy nan = NanPolicy::Propagate;
  bool cast_float32 = false;  // msaccucmp's astype("float32") before everything (§4)
  Algorithms algorithms = Algorithms::all();
  uint64_t max_elements = 0;        // msaccucmp -max: compare the first N elements; 0 = all
  bool require_same_shape = false;  // msprobe: equal counts but other shapes is a mismatch
  unsigned jobs = 1;                // workers for one large pair (results do not depend on it)
};

// The statistics a difference is taken of (§6.5), from a side's TensorStats or a statistic.csv row.
struct SummaryStatistics {
  std::optional<double> max, min, mean, l2norm;
  uint64_t count = 0;  // 0 tells an empty tensor from one with no finite element
};
SummaryStatistics summary_of(const TensorStats& stats);

// One statistic of §6.5: diff = my - golden; relative = |diff / golden| × 100 (percent; absent
// with "zero golden statistic" when golden is 0); large when |diff| / (max(|my|, |golden|) +
// 1e-10) > 0.5 (msprobe's MAGNITUDE, which makes the row a "warning"). A statistic missing on a
// side makes both absent: "empty" for an empty side, else "non-finite".
struct StatisticDiff {
  Metric diff, relative;
  bool large = false;
};
struct StatisticsDiff {
  StatisticDiff max, min, mean, l2norm;
  bool any_large() const { return max.large || min.large || mean.large || l2norm.large; }
};
StatisticsDiff diff_statistics(const SummaryStatistics& my, const SummaryStatistics& golden);

struct PairMetrics {
  // Per side, over every element as stored (not cast, not masked, not cut by max_elements):
  // count, nan, pos_inf, neg_inf, zero and the statistics exactly as dump-parse --stats gives them
  // (tensor/stats.h: min/max over non-NaN elements, mean/std/l2norm over finite ones).
  TensorStats my, golden;
  bool shapes_equal = true, dtypes_equal = true;

  // Set when no pairwise metric has a value, for one reason shared by all of them: not real,
  // size mismatch, shape mismatch, empty, nan/inf positions differ, all masked.
  std::optional<Reason> pair_reason;
  uint64_t compared = 0;          // pairs the metrics ran over (after max_elements and mask)
  uint64_t masked = 0;            // pairs left out by NanPolicy::Mask
  uint64_t positions_differ = 0;  // under SamePositions: positions where NaN or Inf-ness differs

  // msaccucmp (§5.1), in index order. rᵢ = |xᵢ/yᵢ − 1| if |yᵢ| > ε, else 0.
  Metric cosine;                       // 0: Σxy / (‖x‖‖y‖), clamped to [-1, 1]
  Metric max_absolute_error;           // 1: max |x − y|
  Metric accumulated_relative_error;   // 2: Σ rᵢ
  Metric relative_euclidean_distance;  // 3: √(Σ(x − y)² / Σy²); 0 when √Σy² ≤ ε
  Metric kl_divergence;                // 4: Σ p ln(p/q) of the min-max normalised sides
  Metric mean_my, std_my, mean_golden, std_golden;  // 5: StandardDeviation (population)
  Metric mean_absolute_error;                       // 6: Σ|x − y| / n
  Metric root_mean_square_error;                    // 7: √(Σ(x − y)² / n)
  Metric max_relative_error;                        // 8: max rᵢ
  Metric mean_relative_error;                       // 9: Σ rᵢ / n

  // msprobe (§6.4), RE = |(x − y)/y| after both x and y are shifted by e where y == 0 (§6.3), e
  // the epsilon of NumPy's result_type(x, y, float32): ε for float64, int32/64 and uint32/64
  // sides, ε₃₂ otherwise (always ε₃₂ with cast_float32). The kernel divides once per element:
  // msaccucmp's rᵢ is taken as |(xᵢ − yᵢ)/yᵢ|, which differs from |xᵢ/yᵢ − 1| in the last bit
  // at most (and is 1 for a finite xᵢ against an infinite yᵢ, as xᵢ/yᵢ − 1 gives).
  Metric mp_cosine;               // Σxy / (‖x‖‖y‖), clamped to [-1, 1]
  Metric euc_dist;                // √Σ(x − y)²
  Metric mp_max_abs_err;          // max |x − y|
  Metric mp_max_relative_err;     // max RE
  Metric one_thousandth_ratio;    // #(RE < 0.001) / n
  Metric five_thousandths_ratio;  // #(RE < 0.005) / n

  StatisticsDiff statistics;  // §6.5, from `my` and `golden`

  // Sets pair_reason and makes every pairwise metric (msaccucmp's and msprobe's) absent for it.
  void set_pair_reason(Reason reason);

  // The metric of an index; StandardDeviation gives mean_my (its four parts are fields).
  const Metric& get(Algorithm algorithm) const;
  const Metric& get(MsprobeMetric metric) const;
};

// Compares `my` with `golden` (element i with element i, flattened). Errors only for a tensor
// whose bytes hold fewer elements than its shape, or a shape with more than 2^64 elements; every
// other problem is a reason on the metrics.
Expected<PairMetrics> compare_tensors(const TensorView& my, const TensorView& golden,
                                      const MetricOptions& options = {});

}  // namespace msdt::compare
