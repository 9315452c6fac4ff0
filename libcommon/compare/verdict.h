// Thresholds and the verdict of one compared row (compare spec §9, §12.6), and msprobe's
// "Accuracy Reached or Not" (§9.1) for the msprobe output format.
//
// A row's verdict is pass, warning or error from the thresholds, unmatched when a tensor has no
// partner (pairing.h), or skipped when no threshold could judge it. Each bounded metric gives
// pass, warning or error; the worst wins (error > warning > pass, as §9.3's checkers combine).
// A bound is strict, as in §9.1: for a higher-is-better metric (cosines, the err ratios) a value
// below the error bound is an error and below the warning bound a warning; for a lower-is-better
// one (every error and difference) a value above the bound. ±Inf values are compared as numbers.
//
// Defaults (§12.6): the §9.1 rules on msprobe's Cosine and MaxAbsErr, which msdt always computes
// whatever -alg selects: Cosine warning 0.99, error 0.9; MaxAbsErr warning 0.001, error 1; and
// both past their warning bounds together is an error (§9.1 rule 4, Thresholds::joint_error).
//
// A metric that is not a number (metrics.h Reason) does this to the verdict:
//
// | reason                          | where            | verdict                                |
// |---------------------------------|------------------|----------------------------------------|
// | size mismatch, shape mismatch   | whole pair       | error (msaccucmp error 11, msprobe     |
// |                                 |                  | "shape unmatched" → Unmatched, §7)     |
// | nan/inf positions differ        | whole pair       | error (msprobe N/A → "No", §6.2, §9.1) |
// | all masked                      | whole pair       | error if the sides' NaN, +Inf, -Inf    |
// |                                 |                  | counts differ, else skipped            |
// | empty                           | whole pair       | skipped (nothing to compare, §7)       |
// | not real                        | whole pair       | skipped (no numeric metric exists)     |
// | statistics only                 | whole pair       | only statistic bounds are judged       |
// |                                 |                  | (a side is a statistic.csv row)        |
// | non-finite                      | one metric       | error if only one side holds NaN/±Inf  |
// |                                 |                  | (counts), else warning: both runs have |
// |                                 |                  | them, or the arithmetic overflowed     |
// | all-zero mine, all-zero golden  | one metric       | error: one side is all zero and the    |
// |                                 |                  | other not (msprobe cosine Nan → N/A →  |
// |                                 |                  | "No")                                  |
// | empty (a statistic)             | one statistic    | not judged                             |
// | scalar, length 1                | one metric       | not judged: a similarity of one        |
// |                                 |                  | element says nothing (§9.7)            |
// | bool                            | one metric       | not judged (msaccucmp skips it, §7)    |
// | zero golden statistic           | one statistic    | not judged (msprobe N/A, §6.5); the    |
// |                                 |                  | absolute difference still is           |
// | not selected                    | one metric       | not judged (-alg left it out)          |
//
// A metric that is non-finite, all-zero on one side or mismatched counts as past its warning bound
// for Thresholds::joint_error: under the default thresholds, NaN or Inf on both sides (propagate)
// leaves Cosine and MaxAbsErr both non-finite, and the row is an error; --nan same-positions
// or mask compares what is comparable instead.
//
// With a whole-pair reason no pairwise bound is looked at (every pairwise metric is absent for
// it); statistic bounds still are. A row where nothing was judged is skipped.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare/metrics.h"
#include "io/error.h"
#include "tensor/dtype.h"

namespace msdt::compare {

enum class Verdict : uint8_t { Pass, Warning, Error, Unmatched, Skipped };
inline constexpr size_t kVerdictCount = 5;
std::string_view verdict_name(Verdict verdict);  // "pass", "warning", "error", "unmatched", …
std::optional<Verdict> parse_verdict(std::string_view text);  // those names, any letter case

// The metrics a threshold can bound. StandardDeviation has none: it describes each side.
enum class ThresholdMetric : uint8_t {
  // msaccucmp (§5.1), in index order
  CosineSimilarity,
  MaxAbsoluteError,
  AccumulatedRelativeError,
  RelativeEuclideanDistance,
  KullbackLeiblerDivergence,
  MeanAbsoluteError,
  RootMeanSquareError,
  MaxRelativeError,
  MeanRelativeError,
  // msprobe (§6.4)
  Cosine,
  EucDist,
  MaxAbsErr,
  MaxRelativeErr,
  OneThousandthErrRatio,
  FiveThousandthsErrRatio,
  // the statistics differences (§6.5): |my - golden|, and the relative difference in percent
  MaxDiff,
  MinDiff,
  MeanDiff,
  L2normDiff,
  MaxRelativeDiff,
  MinRelativeDiff,
  MeanRelativeDiff,
  L2normRelativeDiff,
};
inline constexpr size_t kThresholdMetricCount = 23;

// Canonical names: msaccucmp's ("CosineSimilarity"), msprobe's ("Cosine", "One Thousandth Err
// Ratio"), and "Max diff" … "L2norm diff", "Max relative diff" … "L2norm relative diff".
std::string_view threshold_metric_name(ThresholdMetric metric);
// Any canonical name, or the aliases "cos" (Cosine), "mae" (MaxAbsErr), "MinRelativeErr",
// "MeanRelativeErr" and "NormRelativeErr" (msprobe's summary-mode columns; its "MaxRelativeErr"
// is the tensor metric here), in any letter case, with blanks, '_' and '-' ignored
// ("one_thousandth_err_ratio", "l2normdiff").
std::optional<ThresholdMetric> find_threshold_metric(std::string_view text);
bool higher_is_better(ThresholdMetric metric);  // the cosines and the err ratios

struct Bound {
  double warning = 0, error = 0;
  bool operator==(const Bound&) const = default;
};

struct Thresholds {
  std::array<std::optional<Bound>, kThresholdMetricCount> bounds{};
  // When every one of these is past its warning bound the row is an error (§9.1 rule 4).
  std::vector<ThresholdMetric> joint_error;
  // msprobe's per-row checkers (§9.3): my side has NaN or ±Inf and golden none (InfNan); the
  // dtypes differ (DType); the shapes differ (Shape): error.
  bool inf_nan_check = false, dtype_check = false, shape_check = false;
  // A statistic that differs by more than half its magnitude (StatisticsDiff::any_large, §6.5,
  // §9.2): warning.
  bool magnitude_warning = false;

  const std::optional<Bound>& bound(ThresholdMetric m) const {
    return bounds[static_cast<size_t>(m)];
  }
  void set(ThresholdMetric m, std::optional<Bound> b) { bounds[static_cast<size_t>(m)] = b; }
};

enum class Preset : uint8_t {
  Default,  // "default": §9.1 as above
  Msprobe,  // "msprobe": §9.3's per-row checkers (InfNan, DType, Shape, the §6.5 magnitude
            // warning); no metric bound, as msprobe's Result column has none per row
  Dtype,    // "dtype": §9.5 by the golden dtype (dtype_thresholds)
};
std::string_view preset_name(Preset preset);
std::optional<Preset> parse_preset(std::string_view text);  // any letter case

Thresholds default_thresholds();
Thresholds msprobe_thresholds();
// §9.5's per-dtype tolerances (fp16, bf16, fp32 and every other dtype).
struct DtypeTolerances {
  double small_value, small_value_atol, small_value_atol_benchmark, rtol, accumulative_bound,
      minimum_error;
};
DtypeTolerances dtype_tolerances(DType golden);
// Our mapping of §9.5 onto row metrics (the peers apply it per API, not to dumps): Cosine 0.99 /
// 0.9 as the defaults, and msaccucmp's MeanRelativeError (which skips golden zeros) with the
// dtype's rtol as warning bound and its accumulative error bound as error bound: fp16 2⁻¹⁰ / 2⁻⁸,
// bf16 2⁻⁸ / 2⁻⁷, others 2⁻²⁰ / 2⁻¹¹.
Thresholds dtype_thresholds(DType golden);
Thresholds preset_thresholds(Preset preset, DType golden);

// `--only pass,warning`: a comma list of verdict names; "unknown verdict 'x' (pass, warning, error,
// unmatched, skipped)" otherwise.
Expected<std::vector<Verdict>> parse_verdict_list(std::string_view text);

// `--threshold METRIC=WARN,ERROR`, or `METRIC=off` to drop the bound. Errors name the bad part:
// "threshold 'x': expected METRIC=WARN,ERROR", "unknown metric 'Foo' (…)", "warning bound 'a' of
// Cosine is not a number", "Cosine: the warning bound 0.9 is below the error bound 0.99 (higher
// is better)". Bounds must not be NaN; equal bounds are allowed (no warning band).
struct ThresholdSetting {
  ThresholdMetric metric;
  std::optional<Bound> bound;  // nullopt: off
};
Expected<ThresholdSetting> parse_threshold(std::string_view text);
void apply(Thresholds& thresholds, const ThresholdSetting& setting);

struct RowVerdict {
  Verdict verdict = Verdict::Pass;
  std::string why;  // what decided it ("Cosine 0.85 < 0.9", "size mismatch"); empty for pass

  static RowVerdict unmatched(std::string why) { return {Verdict::Unmatched, std::move(why)}; }
  static RowVerdict skipped(std::string why) { return {Verdict::Skipped, std::move(why)}; }
};
RowVerdict judge(const PairMetrics& metrics, const Thresholds& thresholds);

// `--fail-on warning|error|unmatched` (repeatable, or a comma list): error rows always fail the
// run (exit 1); "warning" adds warning rows, "unmatched" unmatched ones; skipped rows never fail.
struct FailOn {
  bool warning = false, unmatched = false;
  bool operator==(const FailOn&) const = default;
};
// Adds one item or a comma list to `fail_on`; "unknown --fail-on value 'x' (warning, error,
// unmatched)" otherwise.
Status parse_fail_on(std::string_view text, FailOn& fail_on);
bool fails_run(Verdict verdict, const FailOn& fail_on);

// msprobe's check_accuracy (§9.1), the rules in the table's order on the cells as msprobe holds
// them (text). Rule 1 looks at the cosine only; a cell that is none of the listed words and not a
// number as Python's float() reads it gives None, as the peer's ValueError path does (a "nan"
// number compares false everywhere and gives Yes, as in Python).
enum class Accuracy : uint8_t { Yes, No, Unmatched, None };
std::string_view accuracy_name(Accuracy accuracy);  // "Yes", "No", "Unmatched", "None"
Accuracy accuracy_reached(std::string_view cosine_cell, std::string_view max_abs_err_cell);
// msprobe's cell for a metric (§6.2): the number, "shape unmatched" for a size or shape mismatch,
// "N/A" for nan/inf positions differ, non-finite, all-zero mine/golden (msprobe's Nan), else
// "unsupported". Numbers are spelled with 17 significant digits.
std::string msprobe_cell(const Metric& metric, std::optional<Reason> pair_reason);
Accuracy accuracy_reached(const PairMetrics& metrics);  // on Cosine and MaxAbsErr

}  // namespace msdt::compare
