// The metrics of one tensor pair (compare spec §4-§7, §12.3-§12.4). Expected values are worked
// out by hand from the spec's formulas in the comments, or come from a plain long-double
// implementation of the formula written here; the NumpyOracle tests check random tensors against
// tests/unit/compare/metrics_oracle.py, which follows the spec with NumPy.
#include "compare/metrics.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "support/tensor_builder.h"

namespace msdt::compare {
namespace {

using testing::OwnedTensor;
using testing::tensor_of;

constexpr double kEps = 2.220446049250313e-16;
constexpr double kEps32 = 1.1920928955078125e-07;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

OwnedTensor f32(const std::vector<float>& v, std::vector<uint64_t> shape = {}) {
  return tensor_of<float>(DType::Float32, v, std::move(shape));
}
// Literals as doubles (Inf and NaN included), stored as float32.
OwnedTensor f32(std::initializer_list<double> v, std::vector<uint64_t> shape = {}) {
  std::vector<float> floats;
  for (double d : v) floats.push_back(static_cast<float>(d));
  return f32(floats, std::move(shape));
}
OwnedTensor f64(const std::vector<double>& v, std::vector<uint64_t> shape = {}) {
  return tensor_of<double>(DType::Float64, v, std::move(shape));
}

// Every metric of a result, for the invariants.
std::vector<const Metric*> all_metrics(const PairMetrics& r) {
  return {&r.cosine,
          &r.max_absolute_error,
          &r.accumulated_relative_error,
          &r.relative_euclidean_distance,
          &r.kl_divergence,
          &r.mean_my,
          &r.std_my,
          &r.mean_golden,
          &r.std_golden,
          &r.mean_absolute_error,
          &r.root_mean_square_error,
          &r.max_relative_error,
          &r.mean_relative_error,
          &r.mp_cosine,
          &r.euc_dist,
          &r.mp_max_abs_err,
          &r.mp_max_relative_err,
          &r.one_thousandth_ratio,
          &r.five_thousandths_ratio,
          &r.statistics.max.diff,
          &r.statistics.max.relative,
          &r.statistics.min.diff,
          &r.statistics.min.relative,
          &r.statistics.mean.diff,
          &r.statistics.mean.relative,
          &r.statistics.l2norm.diff,
          &r.statistics.l2norm.relative};
}

PairMetrics run(const OwnedTensor& my, const OwnedTensor& golden, const MetricOptions& o = {}) {
  auto r = compare_tensors(my.view, golden.view, o);
  EXPECT_TRUE(r) << r.error().describe();
  if (!r) return {};
  // A value or a reason, never both, and a value is never NaN.
  for (const Metric* m : all_metrics(*r)) {
    EXPECT_NE(m->value.has_value(), m->reason.has_value());
    if (m->value) {
      EXPECT_FALSE(std::isnan(*m->value));
    }
  }
  return *r;
}

::testing::AssertionResult IsValue(const Metric& m, double want, double rel = 1e-14) {
  if (!m.value)
    return ::testing::AssertionFailure()
           << "no value (" << reason_name(*m.reason) << "), expected " << want;
  const double got = *m.value;
  if (got == want) return ::testing::AssertionSuccess();
  if (std::isfinite(want) && std::fabs(got - want) <= rel * std::fabs(want))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", expected " << want;
}

::testing::AssertionResult HasReason(const Metric& m, Reason want) {
  if (m.value) return ::testing::AssertionFailure() << "has value " << *m.value;
  if (*m.reason != want)
    return ::testing::AssertionFailure()
           << "reason '" << reason_name(*m.reason) << "', expected '" << reason_name(want) << "'";
  return ::testing::AssertionSuccess();
}

// KL of §5.1 straight from the formula, in long double.
double reference_kl(const std::vector<double>& x, const std::vector<double>& y) {
  auto normalise = [](const std::vector<double>& v) {
    long double lo = *std::min_element(v.begin(), v.end());
    long double hi = *std::max_element(v.begin(), v.end());
    std::vector<long double> out;
    long double total = 0;
    for (double e : v) {
      long double a = hi != lo ? (e - lo) / (hi - lo) : e;
      a = std::max<long double>(a, kEps32);
      out.push_back(a);
      total += a;
    }
    for (auto& a : out) a /= total;
    return out;
  };
  auto p = normalise(x), q = normalise(y);
  long double kl = 0;
  for (size_t i = 0; i < p.size(); ++i) kl += p[i] * std::log(p[i] / q[i]);
  return std::fabs(static_cast<double>(kl)) < kEps ? 0.0 : static_cast<double>(kl);
}

// ---- names, selections, policies ---------------------------------------------------------------

TEST(Reasons, NamesRoundTrip) {
  for (size_t i = 0; i < kReasonCount; ++i) {
    auto reason = static_cast<Reason>(i);
    EXPECT_FALSE(reason_name(reason).empty());
    EXPECT_EQ(parse_reason(reason_name(reason)), reason);
  }
  EXPECT_EQ(reason_name(Reason::AllZeroGolden), "all-zero golden");
  EXPECT_EQ(reason_name(Reason::NanInfPositionsDiffer), "nan/inf positions differ");
  EXPECT_EQ(reason_name(Reason::LengthOne), "length 1");
  EXPECT_FALSE(parse_reason("nope"));
}

TEST(Algorithms, NamesAndIndices) {
  EXPECT_EQ(algorithm_name(Algorithm::CosineSimilarity), "CosineSimilarity");
  EXPECT_EQ(algorithm_name(Algorithm::MeanRelativeError), "MeanRelativeError");
  for (size_t i = 0; i < kAlgorithmCount; ++i) {
    auto a = static_cast<Algorithm>(i);
    EXPECT_EQ(find_algorithm(std::to_string(i)), a);
    EXPECT_EQ(find_algorithm(algorithm_name(a)), a);
  }
  EXPECT_EQ(find_algorithm("kullbackleiblerdivergence"), Algorithm::KullbackLeiblerDivergence);
  EXPECT_FALSE(find_algorithm("10"));
  EXPECT_FALSE(find_algorithm("Cosine"));
  EXPECT_EQ(msprobe_metric_name(MsprobeMetric::OneThousandthErrRatio), "One Thousandth Err Ratio");
}

TEST(Algorithms, ParseLists) {
  auto all = Algorithms::parse("all");
  ASSERT_TRUE(all);
  EXPECT_EQ(*all, Algorithms::all());
  EXPECT_EQ(all->order().size(), kAlgorithmCount);

  auto mixed = Algorithms::parse("0,MaxAbsoluteError,4");
  ASSERT_TRUE(mixed) << mixed.error().describe();
  EXPECT_EQ(mixed->order(),
            (std::vector<Algorithm>{Algorithm::CosineSimilarity, Algorithm::MaxAbsoluteError,
                                    Algorithm::KullbackLeiblerDivergence}));
  EXPECT_TRUE(mixed->has(Algorithm::MaxAbsoluteError));
  EXPECT_FALSE(mixed->has(Algorithm::StandardDeviation));

  // msaccucmp's nargs="+" form, blanks after commas, order kept, repeats once.
  auto spaced = Algorithms::parse(" 9 3, 1,9 ,cosinesimilarity ");
  ASSERT_TRUE(spaced) << spaced.error().describe();
  EXPECT_EQ(spaced->order(), (std::vector<Algorithm>{
                                 Algorithm::MeanRelativeError, Algorithm::RelativeEuclideanDistance,
                                 Algorithm::MaxAbsoluteError, Algorithm::CosineSimilarity}));

  auto with_all = Algorithms::parse("5,all");
  ASSERT_TRUE(with_all);
  EXPECT_EQ(with_all->order().front(), Algorithm::StandardDeviation);
  EXPECT_EQ(with_all->order().size(), kAlgorithmCount);
}

TEST(Algorithms, ParseErrorsNameTheItem) {
  auto message = [](std::string_view text) {
    auto r = Algorithms::parse(text);
    EXPECT_FALSE(r) << text;
    return r ? std::string() : r.error().describe();
  };
  EXPECT_EQ(message("0,CustomAlg"),
            "unknown algorithm 'CustomAlg' (expected 0-9, all or one of CosineSimilarity, "
            "MaxAbsoluteError, AccumulatedRelativeError, RelativeEuclideanDistance, "
            "KullbackLeiblerDivergence, StandardDeviation, MeanAbsoluteError, "
            "RootMeanSquareError, MaxRelativeError, MeanRelativeError)");
  EXPECT_EQ(message("1,12"), "algorithm index 12 is not in 0-9");
  EXPECT_EQ(message("0,,1"), "empty item in algorithm list '0,,1'");
  EXPECT_EQ(message(",0"), "empty item in algorithm list ',0'");
  EXPECT_EQ(message("0,"), "empty item in algorithm list '0,'");
  EXPECT_EQ(message(""), "empty item in algorithm list ''");
  EXPECT_EQ(message("  "), "empty item in algorithm list '  '");
}

TEST(NanPolicies, Names) {
  EXPECT_EQ(nan_policy_name(NanPolicy::Propagate), "propagate");
  EXPECT_EQ(nan_policy_name(NanPolicy::SamePositions), "same-positions");
  EXPECT_EQ(nan_policy_name(NanPolicy::Mask), "mask");
  for (auto p : {NanPolicy::Propagate, NanPolicy::SamePositions, NanPolicy::Mask})
    EXPECT_EQ(parse_nan_policy(nan_policy_name(p)), p);
  EXPECT_EQ(parse_nan_policy("mask-if-same-positions"), NanPolicy::SamePositions);
  EXPECT_EQ(parse_nan_policy("mask-all"), NanPolicy::Mask);
  EXPECT_FALSE(parse_nan_policy("Mask"));
}

// ---- every metric on a small pair worked by hand ------------------------------------------------

// x = [1, 2, 3, 4], y = [1, 2, 3, 5]: d = [0, 0, 0, -1], r = [0, 0, 0, 0.2].
TEST(Metrics, HandWorkedFloat32) {
  auto r = run(f32({1, 2, 3, 4}), f32({1, 2, 3, 5}));
  EXPECT_FALSE(r.pair_reason);
  EXPECT_EQ(r.compared, 4u);
  EXPECT_TRUE(IsValue(r.cosine, 34 / std::sqrt(30.0 * 39.0)));  // Σxy = 34, Σx² = 30, Σy² = 39
  EXPECT_TRUE(IsValue(r.max_absolute_error, 1));
  EXPECT_TRUE(IsValue(r.accumulated_relative_error, 0.2));
  EXPECT_TRUE(IsValue(r.relative_euclidean_distance, std::sqrt(1 / 39.0)));
  EXPECT_TRUE(IsValue(r.kl_divergence, reference_kl({1, 2, 3, 4}, {1, 2, 3, 5}), 1e-12));
  EXPECT_TRUE(IsValue(r.mean_my, 2.5));
  EXPECT_TRUE(IsValue(r.std_my, std::sqrt(1.25)));  // deviations ±1.5, ±0.5
  EXPECT_TRUE(IsValue(r.mean_golden, 2.75));
  EXPECT_TRUE(IsValue(r.std_golden, std::sqrt(8.75 / 4)));  // 3.0625 + 0.5625 + 0.0625 + 5.0625
  EXPECT_TRUE(IsValue(r.mean_absolute_error, 0.25));
  EXPECT_TRUE(IsValue(r.root_mean_square_error, 0.5));
  EXPECT_TRUE(IsValue(r.max_relative_error, 0.2));
  EXPECT_TRUE(IsValue(r.mean_relative_error, 0.05));
  // msprobe: the same sums; RE = r here (no zero golden value).
  EXPECT_TRUE(IsValue(r.mp_cosine, 34 / std::sqrt(30.0 * 39.0)));
  EXPECT_TRUE(IsValue(r.euc_dist, 1));
  EXPECT_TRUE(IsValue(r.mp_max_abs_err, 1));
  EXPECT_TRUE(IsValue(r.mp_max_relative_err, 0.2));
  EXPECT_TRUE(IsValue(r.one_thousandth_ratio, 0.75));
  EXPECT_TRUE(IsValue(r.five_thousandths_ratio, 0.75));
  EXPECT_EQ(&r.get(Algorithm::MaxRelativeError), &r.max_relative_error);
  EXPECT_EQ(&r.get(Algorithm::StandardDeviation), &r.mean_my);
  EXPECT_EQ(&r.get(MsprobeMetric::EucDist), &r.euc_dist);
}

TEST(Metrics, PerSideCountsAndStatistics) {
  auto r = run(f32({0, -0.0f, 1, kNan, kInf, -kInf, 2}), f32({0, 1, 1, 1, 1, 1, 3}));
  EXPECT_EQ(r.my.count, 7u);
  EXPECT_EQ(r.my.nan, 1u);
  EXPECT_EQ(r.my.pos_inf, 1u);
  EXPECT_EQ(r.my.neg_inf, 1u);
  EXPECT_EQ(r.my.zero, 2u);
  EXPECT_EQ(r.golden.zero, 1u);
  EXPECT_EQ(r.golden.nan, 0u);
  // The statistics are compute_stats's own, bit for bit.
  TensorStats alone = compute_stats(f32({0, 1, 1, 1, 1, 1, 3}).view);
  EXPECT_EQ(r.golden.mean, alone.mean);
  EXPECT_EQ(r.golden.std, alone.std);
  EXPECT_EQ(r.golden.l2norm, alone.l2norm);
}

TEST(Metrics, StatisticsDifferences) {
  // max 3 vs 4, min 1 vs 1, mean 2 vs 7/3, l2norm √14 vs √21 (§6.5).
  auto r = run(f32({1, 2, 3}), f32({1, 2, 4}));
  EXPECT_TRUE(IsValue(r.statistics.max.diff, -1));
  EXPECT_TRUE(IsValue(r.statistics.max.relative, 25));
  EXPECT_FALSE(r.statistics.max.large);  // 1 / (4 + 1e-10) <= 0.5
  EXPECT_TRUE(IsValue(r.statistics.min.diff, 0));
  EXPECT_TRUE(IsValue(r.statistics.min.relative, 0));
  EXPECT_TRUE(IsValue(r.statistics.mean.diff, 2 - 7 / 3.0, 1e-12));
  EXPECT_TRUE(IsValue(r.statistics.l2norm.diff, std::sqrt(14.0) - std::sqrt(21.0), 1e-12));
  EXPECT_FALSE(r.statistics.any_large());

  auto zero = run(f32({1, 1}), f32({0, 0}));
  EXPECT_TRUE(IsValue(zero.statistics.max.diff, 1));
  EXPECT_TRUE(HasReason(zero.statistics.max.relative, Reason::ZeroGoldenStatistic));
  EXPECT_TRUE(zero.statistics.max.large);  // 1 / (1 + 1e-10) > 0.5
  EXPECT_TRUE(zero.statistics.any_large());

  // A side with no finite element has no mean: the differences say why.
  auto nan = run(f32({kNan, kNan}), f32({1, 2}));
  EXPECT_TRUE(HasReason(nan.statistics.mean.diff, Reason::NonFinite));
  EXPECT_TRUE(HasReason(nan.statistics.max.relative, Reason::NonFinite));

  // diff_statistics alone, as a statistic.csv comparison uses it.
  SummaryStatistics my{5, 1, 2, 5, 3}, golden{2, 0.5, 2, std::nullopt, 3};
  auto d = diff_statistics(my, golden);
  EXPECT_TRUE(IsValue(d.max.diff, 3));
  EXPECT_TRUE(IsValue(d.max.relative, 150));
  EXPECT_TRUE(d.max.large);   // 3 / (5 + 1e-10) > 0.5
  EXPECT_FALSE(d.min.large);  // 0.5 / (1 + 1e-10) is just below 0.5
  EXPECT_TRUE(HasReason(d.l2norm.diff, Reason::NonFinite));
}

// ---- ε rules and zeros ------------------------------------------------------------------------

TEST(Metrics, ZeroGoldenElements) {
  // msaccucmp skips zero golden values (r = 0); msprobe shifts both sides by ε₃₂ there (float32),
  // so RE = ((1 + ε₃₂) - ε₃₂) / ε₃₂ = 2^23 at the first position and 0 at the second.
  auto r = run(f32({1, 0, 2}), f32({0, 0, 2}));
  EXPECT_TRUE(IsValue(r.accumulated_relative_error, 0));
  EXPECT_TRUE(IsValue(r.max_relative_error, 0));
  EXPECT_TRUE(IsValue(r.mean_relative_error, 0));
  EXPECT_TRUE(IsValue(r.mp_max_relative_err, 8388608));
  EXPECT_TRUE(IsValue(r.one_thousandth_ratio, 2 / 3.0));
  EXPECT_TRUE(IsValue(r.five_thousandths_ratio, 2 / 3.0));
  EXPECT_TRUE(IsValue(r.max_absolute_error, 1));

  // A golden value within ε but not zero: msaccucmp skips it, msprobe divides by it.
  auto tiny = run(f64({1e-16 + 1e-17, 1}), f64({1e-16, 1}));
  EXPECT_TRUE(IsValue(tiny.max_relative_error, 0));
  EXPECT_TRUE(IsValue(tiny.mp_max_relative_err, 0.1, 1e-6));
}

TEST(Metrics, MsprobeEpsilonFollowsNumpyResultType) {
  // int32, int64 and float64 promote with float32 to float64 (ε); int16, float16 stay float32.
  auto wide =
      run(tensor_of<int32_t>(DType::Int32, {3, 0}), tensor_of<int32_t>(DType::Int32, {0, 0}));
  EXPECT_TRUE(IsValue(wide.mp_max_relative_err, ((3 + kEps) - kEps) / kEps));
  auto narrow =
      run(tensor_of<int16_t>(DType::Int16, {3, 0}), tensor_of<int16_t>(DType::Int16, {0, 0}));
  EXPECT_TRUE(IsValue(narrow.mp_max_relative_err, ((3 + kEps32) - kEps32) / kEps32));
  auto mixed = run(f32({3, 0}), f64({0, 0}));
  EXPECT_TRUE(IsValue(mixed.mp_max_relative_err, ((3 + kEps) - kEps) / kEps));
  MetricOptions cast;
  cast.cast_float32 = true;
  auto cast_int =
      run(tensor_of<int64_t>(DType::Int64, {3, 0}), tensor_of<int64_t>(DType::Int64, {0, 0}), cast);
  EXPECT_TRUE(IsValue(cast_int.mp_max_relative_err, ((3 + kEps32) - kEps32) / kEps32));
}

TEST(Metrics, AllZeroGolden) {
  auto r = run(f32({1, 2}), f32({0, 0}));
  EXPECT_TRUE(HasReason(r.cosine, Reason::AllZeroGolden));
  EXPECT_TRUE(HasReason(r.mp_cosine, Reason::AllZeroGolden));
  EXPECT_TRUE(IsValue(r.relative_euclidean_distance, 0));  // √Σy² <= ε gives 0 (§5.1)
  EXPECT_TRUE(IsValue(r.accumulated_relative_error, 0));
  EXPECT_TRUE(IsValue(r.max_absolute_error, 2));
  EXPECT_TRUE(IsValue(r.euc_dist, std::sqrt(5.0)));
  // KL: golden constant 0 normalises to ε₃₂ everywhere (max == min), a uniform q.
  EXPECT_TRUE(IsValue(r.kl_divergence, reference_kl({1, 2}, {0, 0}), 1e-12));
}

TEST(Metrics, AllZeroMineAndBoth) {
  auto mine = run(f32({0, 0}), f32({1, 2}));
  EXPECT_TRUE(HasReason(mine.cosine, Reason::AllZeroMine));
  EXPECT_TRUE(HasReason(mine.mp_cosine, Reason::AllZeroMine));
  EXPECT_TRUE(IsValue(mine.relative_euclidean_distance, 1));

  auto both = run(f32({0, 0, 0}), f32({0, -0.0f, 0}));
  EXPECT_TRUE(IsValue(both.cosine, 1));  // msaccucmp prints "1.0"
  EXPECT_TRUE(IsValue(both.mp_cosine, 1));
  EXPECT_TRUE(IsValue(both.relative_euclidean_distance, 0));
  EXPECT_TRUE(IsValue(both.max_relative_error, 0));
  EXPECT_TRUE(IsValue(both.mp_max_relative_err, 0));  // (0 + ε)/(0 + ε) - 1
  EXPECT_TRUE(IsValue(both.one_thousandth_ratio, 1));
  EXPECT_TRUE(IsValue(both.kl_divergence, 0));
}

TEST(Metrics, CosineEpsilonRules) {
  // msaccucmp: "all zero" is √‖x‖ <= ε, that is ‖x‖ <= ε² ≈ 4.9e-32; msprobe: ‖x‖ <= ε.
  // ‖x‖ = 1e-20 is within msprobe's rule but not msaccucmp's.
  auto r = run(f64({1e-20, 0}), f64({1, 1}));
  EXPECT_TRUE(IsValue(r.cosine, std::sqrt(0.5)));
  EXPECT_TRUE(HasReason(r.mp_cosine, Reason::AllZeroMine));
  // ‖x‖ = 1e-33: msaccucmp's rule too.
  auto tiny = run(f64({1e-33, 0}), f64({1, 1}));
  EXPECT_TRUE(HasReason(tiny.cosine, Reason::AllZeroMine));
  // Both below ε: 1 for both tools, whatever the directions.
  auto both = run(f64({1e-17, 0}), f64({0, -1e-17}));
  EXPECT_TRUE(IsValue(both.cosine, 1));
  EXPECT_TRUE(IsValue(both.mp_cosine, 1));
  // Opposite vectors give -1, the clamp's lower bound is reached exactly.
  auto opposite = run(f32({1, 2, 3}), f32({-1, -2, -3}));
  EXPECT_TRUE(IsValue(opposite.cosine, -1));
  EXPECT_GE(*opposite.cosine.value, -1.0);
  // Parallel vectors: the rounding never takes the value above 1.
  auto same = run(f32({0.1f, 0.7f, 0.3f}), f32({0.1f, 0.7f, 0.3f}));
  EXPECT_LE(*same.cosine.value, 1.0);
  EXPECT_TRUE(IsValue(same.cosine, 1, 1e-15));
}

TEST(Metrics, KlDivergence) {
  // Blind to x = a·y + b with a > 0 (§5.1).
  auto affine = run(f32({3, 5, 9, 7}), f32({1, 2, 4, 3}));
  EXPECT_TRUE(IsValue(affine.kl_divergence, 0));
  // A constant side is not normalised, only clamped: v = max(v, ε₃₂).
  auto constant = run(f32({-2, -2, -2}), f32({1, 2, 3}));
  EXPECT_TRUE(IsValue(constant.kl_divergence, reference_kl({-2, -2, -2}, {1, 2, 3}), 1e-12));
  std::vector<double> x{0.3, -1.2, 4.5, 2.25, 0, 7, -3.5}, y{0.25, -1, 4, 2.5, 0.5, 6, -3};
  auto r = run(f64(x), f64(y));
  EXPECT_TRUE(IsValue(r.kl_divergence, reference_kl(x, y), 1e-12));
  // A constant side of 1e305 against one clamped to ε₃₂: a/b would overflow, p/q does not.
  std::vector<double> huge(9, 1e305), ramp{0, 1, 2, 3, 4, 5, 6, 7, 8};
  auto far = run(f64(huge), f64(ramp));
  EXPECT_TRUE(IsValue(far.kl_divergence, reference_kl(huge, ramp), 1e-12));
  // max - min overflows: (1e308 + 1e308)/Inf is NaN, as in NumPy.
  auto overflow = run(f64({-1e308, 1e308, 0, 1}), f64({1, 2, 3, 4}));
  EXPECT_TRUE(HasReason(overflow.kl_divergence, Reason::NonFinite));
  // Enough elements for the vector lanes, with values spread over many binades.
  std::vector<double> wide_x, wide_y;
  for (int i = 0; i < 203; ++i) {
    wide_x.push_back(std::ldexp(1.0 + i % 7, i % 40 - 20));
    wide_y.push_back(std::ldexp(1.5 + i % 5, i % 37 - 18));
  }
  auto spread = run(f64(wide_x), f64(wide_y));
  EXPECT_TRUE(IsValue(spread.kl_divergence, reference_kl(wide_x, wide_y), 1e-12));
}

// ---- NaN and Inf under each policy ------------------------------------------------------------

TEST(NanPolicy, PropagateIsIeee) {
  auto r = run(f32({1, kNan, 3, kInf}), f32({1, kNan, 2, kInf}));
  EXPECT_FALSE(r.pair_reason);
  EXPECT_EQ(r.compared, 4u);
  for (const Metric* m :
       {&r.cosine, &r.max_absolute_error, &r.relative_euclidean_distance, &r.kl_divergence,
        &r.mean_my, &r.std_my, &r.mean_absolute_error, &r.root_mean_square_error, &r.mp_cosine,
        &r.euc_dist, &r.mp_max_abs_err, &r.mp_max_relative_err})
    EXPECT_TRUE(HasReason(*m, Reason::NonFinite));
  // NaN golden contributes 0 to r (np.where(|y| > ε, …) is false for NaN); Inf/Inf does not.
  EXPECT_TRUE(HasReason(r.accumulated_relative_error, Reason::NonFinite));
  // Ratios count the elements within the threshold; NaN is not within.
  EXPECT_TRUE(IsValue(r.one_thousandth_ratio, 0.25));

  // Inf on one side only: the maximum is Inf, a value; the mean is Inf; the std is NaN.
  auto inf = run(f32({1, kInf}), f32({1, 2}));
  EXPECT_TRUE(IsValue(inf.max_absolute_error, kInf));
  EXPECT_TRUE(IsValue(inf.mean_my, kInf));
  EXPECT_TRUE(HasReason(inf.std_my, Reason::NonFinite));
  EXPECT_TRUE(IsValue(inf.mean_golden, 1.5));
  EXPECT_TRUE(IsValue(inf.std_golden, 0.5));
  EXPECT_TRUE(HasReason(inf.kl_divergence, Reason::NonFinite));
  EXPECT_TRUE(IsValue(inf.max_relative_error, kInf));
  // +Inf and -Inf in one side: the mean is NaN.
  auto both = run(f32({kInf, -kInf}), f32({1, 2}));
  EXPECT_TRUE(HasReason(both.mean_my, Reason::NonFinite));
  // NaN in mine where golden is 0: r is 0 there (msaccucmp skips zero golden values).
  auto skipped = run(f32({kNan, 2}), f32({0, 2}));
  EXPECT_TRUE(IsValue(skipped.accumulated_relative_error, 0));
  EXPECT_TRUE(HasReason(skipped.mp_max_relative_err, Reason::NonFinite));
}

TEST(NanPolicy, SamePositionsZeroesMatchingNonFinite) {
  MetricOptions o;
  o.nan = NanPolicy::SamePositions;
  // +Inf against -Inf is the same position (np.isinf); x -> [1, 0, 3, 0], y -> [1, 0, 2, 0].
  auto r = run(f32({1, kNan, 3, kInf}), f32({1, kNan, 2, -kInf}), o);
  EXPECT_FALSE(r.pair_reason);
  EXPECT_EQ(r.positions_differ, 0u);
  EXPECT_EQ(r.compared, 4u);
  EXPECT_TRUE(IsValue(r.cosine, 7 / std::sqrt(50.0)));
  EXPECT_TRUE(IsValue(r.max_absolute_error, 1));
  EXPECT_TRUE(IsValue(r.mean_absolute_error, 0.25));
  EXPECT_TRUE(IsValue(r.mean_my, 1));
  EXPECT_TRUE(IsValue(r.max_relative_error, 0.5));
  EXPECT_TRUE(IsValue(r.one_thousandth_ratio, 0.75));  // zeroed pairs have RE 0
  EXPECT_TRUE(IsValue(r.kl_divergence, reference_kl({1, 0, 3, 0}, {1, 0, 2, 0}), 1e-12));
  // The per-side counts are those of the data as stored.
  EXPECT_EQ(r.my.nan, 1u);
  EXPECT_EQ(r.golden.neg_inf, 1u);
}

TEST(NanPolicy, SamePositionsDifferIsAllOrNothing) {
  MetricOptions o;
  o.nan = NanPolicy::SamePositions;
  auto r = run(f32({1, kNan, 3, kInf}), f32({1, 2, kNan, kInf}), o);
  EXPECT_EQ(r.pair_reason, Reason::NanInfPositionsDiffer);
  EXPECT_EQ(r.positions_differ, 2u);
  for (const Metric* m : {&r.cosine, &r.max_absolute_error, &r.kl_divergence, &r.std_golden,
                          &r.mp_cosine, &r.one_thousandth_ratio, &r.five_thousandths_ratio})
    EXPECT_TRUE(HasReason(*m, Reason::NanInfPositionsDiffer));
  // NaN against Inf at one position differs too.
  auto kinds = run(f32({kNan, 1}), f32({kInf, 1}), o);
  EXPECT_EQ(kinds.pair_reason, Reason::NanInfPositionsDiffer);
  // The statistics differences do not depend on the policy.
  EXPECT_TRUE(r.statistics.min.diff.has_value());
}

TEST(NanPolicy, MaskLeavesOutNonFinitePairs) {
  MetricOptions o;
  o.nan = NanPolicy::Mask;
  // Kept: (1, 1), (3, 2), (5, 4).
  auto r = run(f32({1, kNan, 3, 4, 5, kInf}), f32({1, 2, 2, -kInf, 4, kInf}), o);
  EXPECT_FALSE(r.pair_reason);
  EXPECT_EQ(r.masked, 3u);
  EXPECT_EQ(r.compared, 3u);
  EXPECT_TRUE(IsValue(r.max_absolute_error, 1));
  EXPECT_TRUE(IsValue(r.mean_absolute_error, 2 / 3.0));
  EXPECT_TRUE(IsValue(r.mean_my, 3));
  EXPECT_TRUE(IsValue(r.mean_golden, 7 / 3.0));
  EXPECT_TRUE(IsValue(r.accumulated_relative_error, 0.5 + 0.25));
  EXPECT_TRUE(IsValue(r.mean_relative_error, 0.75 / 3));
  EXPECT_TRUE(IsValue(r.one_thousandth_ratio, 1 / 3.0));
  EXPECT_TRUE(IsValue(r.euc_dist, std::sqrt(2.0)));
  EXPECT_TRUE(IsValue(r.kl_divergence, reference_kl({1, 3, 5}, {1, 2, 4}), 1e-12));

  auto none = run(f32({kNan, 1}), f32({1, kInf}), o);
  EXPECT_EQ(none.pair_reason, Reason::AllMasked);
  EXPECT_TRUE(HasReason(none.cosine, Reason::AllMasked));
  EXPECT_EQ(none.masked, 2u);

  auto one = run(f32({kNan, 1}), f32({1, 3}), o);
  EXPECT_TRUE(HasReason(one.cosine, Reason::LengthOne));
  EXPECT_TRUE(HasReason(one.mp_cosine, Reason::LengthOne));
  EXPECT_TRUE(IsValue(one.max_absolute_error, 2));
}

// ---- shapes, sizes, dtypes --------------------------------------------------------------------

TEST(Metrics, Bool) {
  // Both bool: msaccucmp runs only cosine and RelativeEuclideanDistance (§4 item 3); msprobe has
  // no bool rule. x = [1, 0, 1, 1], y = [1, 1, 1, 0]: Σxy = 2, Σx² = Σy² = 3, Σd² = 2.
  auto x = tensor_of<uint8_t>(DType::Bool, {1, 0, 1, 1});
  auto y = tensor_of<uint8_t>(DType::Bool, {1, 1, 1, 0});
  auto r = run(x, y);
  EXPECT_TRUE(IsValue(r.cosine, 2 / 3.0));
  EXPECT_TRUE(IsValue(r.relative_euclidean_distance, std::sqrt(2 / 3.0)));
  for (const Metric* m : {&r.max_absolute_error, &r.accumulated_relative_error, &r.kl_divergence,
                          &r.mean_my, &r.std_golden, &r.mean_absolute_error,
                          &r.root_mean_square_error, &r.max_relative_error, &r.mean_relative_error})
    EXPECT_TRUE(HasReason(*m, Reason::Bool));
  EXPECT_TRUE(IsValue(r.mp_cosine, 2 / 3.0));
  EXPECT_TRUE(IsValue(r.mp_max_abs_err, 1));
  EXPECT_TRUE(IsValue(r.euc_dist, std::sqrt(2.0)));
  // One side bool: 0/1 values, every metric.
  auto mixed = run(x, f32({1, 1, 1, 0}));
  EXPECT_TRUE(IsValue(mixed.max_absolute_error, 1));
  EXPECT_TRUE(IsValue(mixed.mean_my, 0.75));
}

TEST(Metrics, Empty) {
  auto r = run(f32({}, {0}), f32({}, {2, 0}));
  EXPECT_EQ(r.pair_reason, Reason::Empty);
  for (const Metric* m : all_metrics(r)) EXPECT_FALSE(m->has_value());
  EXPECT_TRUE(HasReason(r.cosine, Reason::Empty));
  EXPECT_TRUE(HasReason(r.mp_max_relative_err, Reason::Empty));
  EXPECT_TRUE(HasReason(r.statistics.mean.diff, Reason::Empty));
  EXPECT_EQ(r.my.count, 0u);
  EXPECT_FALSE(r.shapes_equal);
}

TEST(Metrics, ZeroDimensionalScalar) {
  // 0-d: msaccucmp's cosine is "scalar"; msprobe has no cosine, EucDist or ratios but computes
  // MaxAbsErr and MaxRelativeErr (§6.1 item 3).
  auto r = run(f32({2}), f32({4}));
  ASSERT_TRUE(r.my.count == 1 && r.golden.count == 1);
  EXPECT_TRUE(HasReason(r.cosine, Reason::Scalar));
  EXPECT_TRUE(HasReason(r.mp_cosine, Reason::Scalar));
  EXPECT_TRUE(HasReason(r.euc_dist, Reason::Scalar));
  EXPECT_TRUE(HasReason(r.one_thousandth_ratio, Reason::Scalar));
  EXPECT_TRUE(HasReason(r.five_thousandths_ratio, Reason::Scalar));
  EXPECT_TRUE(IsValue(r.mp_max_abs_err, 2));
  EXPECT_TRUE(IsValue(r.mp_max_relative_err, 0.5));
  EXPECT_TRUE(IsValue(r.max_absolute_error, 2));
  EXPECT_TRUE(IsValue(r.max_relative_error, 0.5));
  EXPECT_TRUE(IsValue(r.relative_euclidean_distance, 0.5));
  EXPECT_TRUE(IsValue(r.kl_divergence, 0));  // both constant: p = q = 1
  EXPECT_TRUE(IsValue(r.std_my, 0));
}

TEST(Metrics, LengthOne) {
  // Every dimension 1: msaccucmp's scalar rule (§4 item 7); msprobe's "length 1" (§6.4).
  auto r = run(f32({2}, {1, 1}), f32({4}, {1, 1}));
  EXPECT_TRUE(HasReason(r.cosine, Reason::Scalar));
  EXPECT_TRUE(HasReason(r.mp_cosine, Reason::LengthOne));
  EXPECT_TRUE(IsValue(r.euc_dist, 2));
  EXPECT_TRUE(IsValue(r.one_thousandth_ratio, 0));
  // Cut to one element by max_elements: no similarity of one pair either.
  MetricOptions o;
  o.max_elements = 1;
  auto cut = run(f32({2, 3}), f32({4, 3}), o);
  EXPECT_TRUE(HasReason(cut.cosine, Reason::LengthOne));
  EXPECT_TRUE(IsValue(cut.max_absolute_error, 2));
}

TEST(Metrics, SizeMismatch) {
  auto r = run(f32({1, 2, 3}), f32({1, 2, 3, 4}));
  EXPECT_EQ(r.pair_reason, Reason::SizeMismatch);
  EXPECT_TRUE(HasReason(r.cosine, Reason::SizeMismatch));
  EXPECT_TRUE(HasReason(r.kl_divergence, Reason::SizeMismatch));
  EXPECT_TRUE(HasReason(r.five_thousandths_ratio, Reason::SizeMismatch));
  EXPECT_EQ(r.compared, 0u);
  // Each side still has its own counts and statistics, and their differences.
  EXPECT_EQ(r.my.count, 3u);
  EXPECT_EQ(r.golden.count, 4u);
  EXPECT_TRUE(IsValue(r.statistics.max.diff, -1));
  // Unselected metrics say so even then.
  MetricOptions o;
  o.algorithms = *Algorithms::parse("0");
  auto few = run(f32({1, 2, 3}), f32({1, 2, 3, 4}), o);
  EXPECT_TRUE(HasReason(few.max_absolute_error, Reason::NotSelected));
  EXPECT_TRUE(HasReason(few.cosine, Reason::SizeMismatch));
}

TEST(Metrics, ShapeMismatchWithEqualCounts) {
  auto x = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  auto y = f32({1, 2, 3, 4, 5, 7}, {3, 2});
  auto flat = run(x, y);  // msaccucmp compares the flattened arrays (§7)
  EXPECT_FALSE(flat.shapes_equal);
  EXPECT_TRUE(IsValue(flat.max_absolute_error, 1));
  MetricOptions o;
  o.require_same_shape = true;  // msprobe: "shape unmatched"
  auto strict = run(x, y, o);
  EXPECT_EQ(strict.pair_reason, Reason::ShapeMismatch);
  EXPECT_TRUE(HasReason(strict.mp_cosine, Reason::ShapeMismatch));
}

TEST(Metrics, NotRealNumbers) {
  auto c = tensor_of<float>(DType::Complex64, {1, 0, 2, 0}, {2});
  auto r = run(c, f32({1, 2}));
  EXPECT_EQ(r.pair_reason, Reason::NotReal);
  EXPECT_TRUE(HasReason(r.cosine, Reason::NotReal));
  EXPECT_EQ(r.my.count, 2u);
  EXPECT_FALSE(r.dtypes_equal);
}

TEST(Metrics, IntegerInputs) {
  // int32 against int8 (sides of different dtypes are compared as values).
  auto r = run(tensor_of<int32_t>(DType::Int32, {-3, 0, 100000, 7}),
               tensor_of<int8_t>(DType::Int8, {-3, 1, 100, 8}));
  EXPECT_FALSE(r.dtypes_equal);
  EXPECT_TRUE(IsValue(r.max_absolute_error, 99900));
  EXPECT_TRUE(IsValue(r.max_relative_error, 999));  // |100000/100 - 1|
  EXPECT_TRUE(IsValue(r.accumulated_relative_error, 1 + 999 + 0.125));
  EXPECT_TRUE(IsValue(r.mean_absolute_error, (1 + 99900 + 1) / 4.0));
  EXPECT_TRUE(
      IsValue(r.cosine, (9 + 10000000 + 56) / std::sqrt((9 + 1e10 + 49) * (9 + 1 + 10000 + 64.0))));
}

TEST(Metrics, Float16Inputs) {
  // 0x3C00 = 1, 0x3800 = 0.5, 0xC000 = -2, 0x3E00 = 1.5, 0x0001 = 2^-24 (subnormal).
  auto x = tensor_of<uint16_t>(DType::Float16, {0x3C00, 0x3800, 0xC000, 0x0001});
  auto y = tensor_of<uint16_t>(DType::Float16, {0x3E00, 0x3800, 0xC000, 0x0000});
  auto r = run(x, y);
  EXPECT_TRUE(IsValue(r.max_absolute_error, 0.5));
  EXPECT_TRUE(IsValue(r.max_relative_error, 1 / 3.0));
  const double tiny = std::ldexp(1.0, -24);
  EXPECT_TRUE(IsValue(r.mp_max_relative_err, ((tiny + kEps32) - kEps32) / kEps32));
  EXPECT_TRUE(IsValue(r.mean_my, (1 + 0.5 - 2 + tiny) / 4));
  // bfloat16: 0x3F80 = 1, 0x4000 = 2.
  auto b = run(tensor_of<uint16_t>(DType::BFloat16, {0x3F80, 0x4000}),
               tensor_of<uint16_t>(DType::BFloat16, {0x4000, 0x4000}));
  EXPECT_TRUE(IsValue(b.max_relative_error, 0.5));
}

TEST(Metrics, Float32CastOption) {
  // 1 + 1e-10 and 2^24 + 1 are not float32 numbers: cast, they become 1 and 2^24.
  auto x = f64({1 + 1e-10, 2});
  auto y = f64({1, 2});
  auto exact = run(x, y);
  EXPECT_TRUE(IsValue(exact.max_absolute_error, (1 + 1e-10) - 1));
  MetricOptions o;
  o.cast_float32 = true;
  auto cast = run(x, y, o);
  EXPECT_TRUE(IsValue(cast.max_absolute_error, 0));
  EXPECT_TRUE(IsValue(cast.cosine, 1));

  auto big = tensor_of<int64_t>(DType::Int64, {16777217, 5});
  auto big_golden = tensor_of<int64_t>(DType::Int64, {16777216, 5});
  EXPECT_TRUE(IsValue(run(big, big_golden).max_absolute_error, 1));
  EXPECT_TRUE(IsValue(run(big, big_golden, o).max_absolute_error, 0));
  // The per-side statistics stay those of the stored values.
  EXPECT_EQ(run(big, big_golden, o).my.max, 16777217.0);
  // Beyond float32's range the cast gives Inf, which the policy then sees.
  auto huge = run(f64({1e300, 1}), f64({1, 1}), o);
  EXPECT_TRUE(IsValue(huge.max_absolute_error, kInf));
  o.nan = NanPolicy::Mask;
  auto masked = run(f64({1e300, 1}), f64({1, 1}), o);
  EXPECT_EQ(masked.masked, 1u);
}

TEST(Metrics, MaxElementsComparesTheFirstN) {
  MetricOptions o;
  o.max_elements = 2;
  auto r = run(f32({1, 2, 3}), f32({1, 2, 100}), o);
  EXPECT_EQ(r.compared, 2u);
  EXPECT_TRUE(IsValue(r.max_absolute_error, 0));
  EXPECT_EQ(r.golden.max, 100.0);  // the statistics cover every element
}

TEST(Metrics, SelectionLeavesOthersOut) {
  MetricOptions o;
  o.algorithms = *Algorithms::parse("CosineSimilarity,5");
  auto r = run(f32({1, 2, 3}), f32({1, 2, 4}), o);
  EXPECT_TRUE(r.cosine.has_value());
  EXPECT_TRUE(r.mean_my.has_value() && r.std_golden.has_value());
  for (const Metric* m : {&r.max_absolute_error, &r.kl_divergence, &r.mean_relative_error})
    EXPECT_TRUE(HasReason(*m, Reason::NotSelected));
  EXPECT_TRUE(r.mp_max_abs_err.has_value());  // msprobe's are always computed
  o.algorithms = Algorithms();
  auto none = run(f32({1, 2, 3}), f32({1, 2, 4}), o);
  EXPECT_TRUE(HasReason(none.cosine, Reason::NotSelected));
}

TEST(Metrics, ShortDataIsAnError) {
  OwnedTensor t = f32({1, 2, 3});
  t.view.shape = {4};
  auto r = compare_tensors(t.view, f32({1, 2, 3, 4}).view);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().describe(), "my tensor: 4 float32 elements need 16 bytes, found 12");
}

// Several chunks of 2^20 elements: the result does not depend on the worker count, and the
// statistics are compute_stats's own bit for bit.
TEST(Metrics, LargePairIndependentOfJobs) {
  const size_t n = (size_t{1} << 21) + 12345;
  std::mt19937_64 random(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(n), y(n);
  for (size_t i = 0; i < n; ++i) {
    y[i] = i % 97 == 0 ? 0.0f : normal(random);
    x[i] = y[i] + 1e-3f * normal(random);
  }
  auto tx = f32(x), ty = f32(y);
  MetricOptions one, four;
  four.jobs = 4;
  auto a = run(tx, ty, one), b = run(tx, ty, four);
  auto ma = all_metrics(a), mb = all_metrics(b);
  for (size_t i = 0; i < ma.size(); ++i) {
    EXPECT_EQ(ma[i]->value, mb[i]->value) << i;
    EXPECT_EQ(ma[i]->reason, mb[i]->reason) << i;
  }
  TensorStats alone = compute_stats(tx.view, 2);
  EXPECT_EQ(a.my.mean, alone.mean);
  EXPECT_EQ(a.my.std, alone.std);
  EXPECT_EQ(a.my.l2norm, alone.l2norm);
  EXPECT_EQ(a.my.min, alone.min);
  // Independent long double sums for a few metrics.
  long double dd = 0, yy = 0, ad = 0;
  for (size_t i = 0; i < n; ++i) {
    long double d = static_cast<long double>(x[i]) - y[i];
    dd += d * d;
    yy += static_cast<long double>(y[i]) * y[i];
    ad += std::fabs(d);
  }
  EXPECT_TRUE(
      IsValue(a.relative_euclidean_distance, static_cast<double>(std::sqrt(dd / yy)), 1e-13));
  EXPECT_TRUE(IsValue(a.mean_absolute_error, static_cast<double>(ad / n), 1e-13));
}

// ---- the NumPy oracle --------------------------------------------------------------------------

constexpr const char* kPython = "/usr/bin/python3";

bool numpy_available() {
  if (!std::filesystem::exists(kPython)) return false;
  const std::string command = std::string(kPython) + " -c 'import numpy' > /dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

std::filesystem::path oracle_script() {
  if (const char* source = std::getenv("MSDT_SOURCE_DIR"))
    return std::filesystem::path(source) / "tests/unit/compare/metrics_oracle.py";
  return std::filesystem::path(__FILE__).parent_path() / "metrics_oracle.py";
}

struct OracleCase {
  std::string name;
  OwnedTensor my, golden;
  std::string my_dtype, golden_dtype;  // NumPy names
  MetricOptions options;
};

void write_raw(const std::filesystem::path& path, const OwnedTensor& t) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(t.bytes.data()),
            static_cast<std::streamsize>(t.bytes.size()));
}

std::vector<OracleCase> oracle_cases() {
  std::mt19937_64 random(20261125);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> small(-50, 50);
  std::vector<OracleCase> cases;
  auto floats = [&](size_t n, double noise, size_t zero_every, bool zero_mine_too) {
    std::vector<float> x(n), y(n);
    for (size_t i = 0; i < n; ++i) {
      y[i] = zero_every && i % zero_every == 0 ? 0.0f : static_cast<float>(normal(random));
      x[i] = static_cast<float>(y[i] + noise * normal(random));
      if (zero_every && zero_mine_too && i % (2 * zero_every) == 0) x[i] = 0;
    }
    return std::pair{x, y};
  };
  {
    auto [x, y] = floats(10007, 1e-3, 37, true);
    cases.push_back({"float32 close", f32(x), f32(y), "float32", "float32", {}});
  }
  {
    auto [x, y] = floats(3001, 1.0, 0, false);
    cases.push_back({"float32 far", f32(x), f32(y), "float32", "float32", {}});
  }
  {
    auto [x, y] = floats(2500001, 1e-2, 1000, true);  // three chunks, on two workers
    MetricOptions o;
    o.jobs = 2;
    cases.push_back({"float32 large", f32(x), f32(y), "float32", "float32", o});
  }
  {
    std::uniform_int_distribution<int> mantissa(0, 1023), exponent(10, 20), sign(0, 1);
    std::vector<uint16_t> x(4099), y(4099);
    for (size_t i = 0; i < x.size(); ++i) {
      y[i] = static_cast<uint16_t>(sign(random) << 15 | exponent(random) << 10 | mantissa(random));
      x[i] = i % 3 == 0 ? y[i] : static_cast<uint16_t>(y[i] ^ (mantissa(random) & 7));
      if (i % 50 == 0) y[i] = 0;
    }
    cases.push_back({"float16",
                     tensor_of<uint16_t>(DType::Float16, x),
                     tensor_of<uint16_t>(DType::Float16, y),
                     "float16",
                     "float16",
                     {}});
  }
  {
    std::vector<double> x(5003), y(5003);
    for (size_t i = 0; i < x.size(); ++i) {
      y[i] = i % 41 == 0 ? 0.0 : normal(random) * 1e3;
      x[i] = y[i] * (1 + 1e-9 * normal(random)) + (i % 41 == 0 ? 1e-12 : 0.0);
    }
    cases.push_back({"float64", f64(x), f64(y), "float64", "float64", {}});
    MetricOptions cast;
    cast.cast_float32 = true;
    cases.push_back({"float64 cast", f64(x), f64(y), "float64", "float64", cast});
  }
  {
    std::vector<int32_t> x(2048), y(2048);
    for (size_t i = 0; i < x.size(); ++i) {
      y[i] = small(random);
      x[i] = i % 5 == 0 ? y[i] + small(random) % 3 : y[i];
    }
    cases.push_back({"int32",
                     tensor_of<int32_t>(DType::Int32, x),
                     tensor_of<int32_t>(DType::Int32, y),
                     "int32",
                     "int32",
                     {}});
  }
  {
    auto [x, y] = floats(1500, 1e-4, 10, false);
    std::vector<double> wide(y.begin(), y.end());
    cases.push_back({"float32 vs float64", f32(x), f64(wide), "float32", "float64", {}});
  }
  {
    auto [x, y] = floats(4000, 1e-3, 0, false);
    for (size_t i = 7; i < x.size(); i += 113) {
      const float special = i % 3 == 0 ? kNan : i % 3 == 1 ? kInf : -kInf;
      x[i] = y[i] = special;
    }
    MetricOptions same;
    same.nan = NanPolicy::SamePositions;
    cases.push_back({"nan same positions", f32(x), f32(y), "float32", "float32", same});
    x[100] = kNan;  // one more on my side only
    MetricOptions mask;
    mask.nan = NanPolicy::Mask;
    cases.push_back({"nan mask", f32(x), f32(y), "float32", "float32", mask});
    cases.push_back({"nan positions differ", f32(x), f32(y), "float32", "float32", same});
  }
  {
    auto [x, y] = floats(64, 1.0, 0, false);
    std::fill(y.begin(), y.end(), 0.0f);
    cases.push_back({"all-zero golden", f32(x), f32(y), "float32", "float32", {}});
  }
  return cases;
}

std::string policy_of(const MetricOptions& o) { return std::string(nan_policy_name(o.nan)); }

TEST(NumpyOracle, MetricsAgreeWithNumpy) {
  if (!numpy_available()) GTEST_SKIP() << "needs /usr/bin/python3 with numpy";
  const auto script = oracle_script();
  ASSERT_TRUE(std::filesystem::exists(script)) << script;
  const auto dir = std::filesystem::temp_directory_path() /
                   ("msdt_metrics_oracle_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto cases = oracle_cases();
  nlohmann::json manifest = nlohmann::json::array();
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const auto my = dir / ("my_" + std::to_string(i) + ".bin");
    const auto golden = dir / ("golden_" + std::to_string(i) + ".bin");
    write_raw(my, c.my);
    write_raw(golden, c.golden);
    manifest.push_back({{"name", c.name},
                        {"my", my.string()},
                        {"golden", golden.string()},
                        {"my_dtype", c.my_dtype},
                        {"golden_dtype", c.golden_dtype},
                        {"nan", policy_of(c.options)},
                        {"cast", c.options.cast_float32}});
  }
  std::ofstream(dir / "cases.json") << manifest.dump();
  const std::string command = std::string(kPython) + " " + script.string() + " " +
                              (dir / "cases.json").string() + " > " + (dir / "out.json").string();
  const int status = std::system(command.c_str());
  ASSERT_EQ(status, 0) << command;
  std::ifstream in(dir / "out.json");
  const nlohmann::json results = nlohmann::json::parse(in);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(results.size(), cases.size());

  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    SCOPED_TRACE(c.name);
    auto r = run(c.my, c.golden, c.options);
    const auto& want = results[i];
    ASSERT_EQ(want.at("name"), c.name);
    const std::pair<const char*, const Metric*> metrics[] = {
        {"cosine", &r.cosine},
        {"max_absolute_error", &r.max_absolute_error},
        {"accumulated_relative_error", &r.accumulated_relative_error},
        {"relative_euclidean_distance", &r.relative_euclidean_distance},
        {"kl_divergence", &r.kl_divergence},
        {"mean_my", &r.mean_my},
        {"std_my", &r.std_my},
        {"mean_golden", &r.mean_golden},
        {"std_golden", &r.std_golden},
        {"mean_absolute_error", &r.mean_absolute_error},
        {"root_mean_square_error", &r.root_mean_square_error},
        {"max_relative_error", &r.max_relative_error},
        {"mean_relative_error", &r.mean_relative_error},
        {"mp_cosine", &r.mp_cosine},
        {"euc_dist", &r.euc_dist},
        {"mp_max_abs_err", &r.mp_max_abs_err},
        {"mp_max_relative_err", &r.mp_max_relative_err},
        {"one_thousandth_ratio", &r.one_thousandth_ratio},
        {"five_thousandths_ratio", &r.five_thousandths_ratio},
    };
    EXPECT_EQ(r.masked, want.at("masked").get<uint64_t>());
    for (const auto& [key, metric] : metrics) {
      SCOPED_TRACE(key);
      const auto& w = want.at("metrics").at(key);
      if (w.is_null()) {
        EXPECT_FALSE(metric->has_value()) << *metric->value;
        continue;
      }
      ASSERT_TRUE(metric->has_value()) << reason_name(*metric->reason);
      const double expected = w.get<double>(), got = *metric->value;
      // Sums in another order (NumPy's pairwise against our lanes and TwoSum): relative
      // 1e-11, or 1e-14 absolute near zero; KL goes through S/A + ln(B/A).
      const double tolerance = 1e-11 * std::fabs(expected) + 1e-14;
      EXPECT_NEAR(got, expected, tolerance);
    }
  }
}

}  // namespace
}  // namespace msdt::compare
