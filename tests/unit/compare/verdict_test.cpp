// Thresholds and row verdicts (compare spec §9, §12.6): every rule of verdict.h's reason table,
// each preset, the --threshold and --fail-on parsers, and msprobe's check_accuracy (§9.1) row by
// row. PairMetrics are built by hand: only the fields a rule reads are set.
#include "compare/verdict.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace msdt::compare {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A pair whose every metric is a value that passes the defaults.
PairMetrics good_pair() {
  PairMetrics m;
  m.my.count = m.golden.count = 4;
  for (Metric* x : {&m.cosine, &m.mp_cosine, &m.one_thousandth_ratio, &m.five_thousandths_ratio})
    *x = Metric::of(1.0);
  for (Metric* x :
       {&m.max_absolute_error, &m.accumulated_relative_error, &m.relative_euclidean_distance,
        &m.kl_divergence, &m.mean_absolute_error, &m.root_mean_square_error, &m.max_relative_error,
        &m.mean_relative_error, &m.euc_dist, &m.mp_max_abs_err, &m.mp_max_relative_err})
    *x = Metric::of(0.0);
  return m;
}

RowVerdict judge_default(const PairMetrics& m) { return judge(m, default_thresholds()); }

TEST(Verdict, NamesRoundTrip) {
  for (size_t i = 0; i < kVerdictCount; ++i) {
    auto v = static_cast<Verdict>(i);
    EXPECT_EQ(parse_verdict(verdict_name(v)), v);
  }
  EXPECT_EQ(verdict_name(Verdict::Skipped), "skipped");
  EXPECT_EQ(parse_verdict("WARNING"), Verdict::Warning);
  EXPECT_FALSE(parse_verdict("fail"));
}

TEST(Verdict, MetricNames) {
  for (size_t i = 0; i < kThresholdMetricCount; ++i) {
    auto m = static_cast<ThresholdMetric>(i);
    EXPECT_EQ(find_threshold_metric(threshold_metric_name(m)), m) << threshold_metric_name(m);
  }
  EXPECT_EQ(find_threshold_metric("cos"), ThresholdMetric::Cosine);
  EXPECT_EQ(find_threshold_metric("COSINESIMILARITY"), ThresholdMetric::CosineSimilarity);
  EXPECT_EQ(find_threshold_metric("mae"), ThresholdMetric::MaxAbsErr);
  EXPECT_EQ(find_threshold_metric("one_thousandth_err_ratio"),
            ThresholdMetric::OneThousandthErrRatio);
  EXPECT_EQ(find_threshold_metric("l2normdiff"), ThresholdMetric::L2normDiff);
  EXPECT_EQ(find_threshold_metric("NormRelativeErr"), ThresholdMetric::L2normRelativeDiff);
  EXPECT_EQ(find_threshold_metric("MaxRelativeErr"), ThresholdMetric::MaxRelativeErr);
  EXPECT_EQ(find_threshold_metric("MaxRelativeError"), ThresholdMetric::MaxRelativeError);
  EXPECT_FALSE(find_threshold_metric("StandardDeviation"));
  EXPECT_FALSE(find_threshold_metric(""));
  EXPECT_TRUE(higher_is_better(ThresholdMetric::Cosine));
  EXPECT_TRUE(higher_is_better(ThresholdMetric::FiveThousandthsErrRatio));
  EXPECT_FALSE(higher_is_better(ThresholdMetric::MaxAbsErr));
  EXPECT_FALSE(higher_is_better(ThresholdMetric::MaxRelativeDiff));
}

// §9.1 / §12.6: cos 0.99/0.9, MaxAbsErr 0.001/1, both warnings together an error.
TEST(Verdict, DefaultPreset) {
  Thresholds t = default_thresholds();
  EXPECT_EQ(t.bound(ThresholdMetric::Cosine), (Bound{0.99, 0.9}));
  EXPECT_EQ(t.bound(ThresholdMetric::MaxAbsErr), (Bound{0.001, 1}));
  EXPECT_FALSE(t.bound(ThresholdMetric::CosineSimilarity));
  EXPECT_FALSE(t.inf_nan_check || t.dtype_check || t.shape_check || t.magnitude_warning);
  EXPECT_EQ(preset_thresholds(Preset::Default, DType::Float16).bounds, t.bounds);

  PairMetrics m = good_pair();
  EXPECT_EQ(judge_default(m).verdict, Verdict::Pass);
  EXPECT_EQ(judge_default(m).why, "");
  m.mp_cosine = Metric::of(0.99);  // strict: 0.99 itself passes
  m.mp_max_abs_err = Metric::of(0.001);
  EXPECT_EQ(judge_default(m).verdict, Verdict::Pass);
  m.mp_cosine = Metric::of(0.95);
  auto r = judge_default(m);
  EXPECT_EQ(r.verdict, Verdict::Warning);
  EXPECT_EQ(r.why, "Cosine 0.95 < 0.99");
  m.mp_cosine = Metric::of(0.85);
  r = judge_default(m);
  EXPECT_EQ(r.verdict, Verdict::Error);
  EXPECT_EQ(r.why, "Cosine 0.85 < 0.9");
  m.mp_cosine = Metric::of(1.0);
  m.mp_max_abs_err = Metric::of(0.5);
  EXPECT_EQ(judge_default(m).verdict, Verdict::Warning);
  m.mp_max_abs_err = Metric::of(kInf);
  r = judge_default(m);
  EXPECT_EQ(r.verdict, Verdict::Error);
  EXPECT_EQ(r.why, "MaxAbsErr inf > 1.0");
  // Both in their warning bands: §9.1 rule 4.
  m.mp_cosine = Metric::of(0.95);
  m.mp_max_abs_err = Metric::of(0.5);
  r = judge_default(m);
  EXPECT_EQ(r.verdict, Verdict::Error);
  EXPECT_EQ(r.why, "Cosine 0.95 < 0.99; MaxAbsErr 0.5 > 0.001 (warnings together)");
  // msaccucmp's metrics are not bounded by default.
  m = good_pair();
  m.cosine = Metric::of(0.1);
  EXPECT_EQ(judge_default(m).verdict, Verdict::Pass);
}

TEST(Verdict, MsprobePreset) {
  Thresholds t = msprobe_thresholds();
  for (const auto& b : t.bounds) EXPECT_FALSE(b);
  EXPECT_EQ(preset_thresholds(Preset::Msprobe, DType::Float32).inf_nan_check, true);

  PairMetrics m = good_pair();
  m.statistics.max.diff = Metric::of(0.0);
  EXPECT_EQ(judge(m, t).verdict, Verdict::Pass);
  m.dtypes_equal = false;
  EXPECT_EQ(judge(m, t).why, "dtypes differ");
  m.dtypes_equal = true;
  m.shapes_equal = false;
  EXPECT_EQ(judge(m, t).why, "shapes differ");
  EXPECT_EQ(judge_default(m).verdict, Verdict::Pass);  // counts equal: compared flat
  m.shapes_equal = true;
  m.my.nan = 1;  // InfNan checker: my side only
  EXPECT_EQ(judge(m, t).verdict, Verdict::Error);
  EXPECT_EQ(judge(m, t).why, "NaN or Inf on my side only");
  m.golden.pos_inf = 1;  // both sides: not this checker's business
  EXPECT_EQ(judge(m, t).verdict, Verdict::Pass);
  m.my.nan = 0;  // golden only: the checker looks at my side
  EXPECT_EQ(judge(m, t).verdict, Verdict::Pass);
  m.golden.pos_inf = 0;
  m.statistics.mean.large = true;
  EXPECT_EQ(judge(m, t).verdict, Verdict::Warning);
  EXPECT_EQ(judge_default(m).verdict, Verdict::Pass);
}

// Statistics alone (no pairwise metric): the magnitude rule judges the row.
TEST(Verdict, MsprobeStatisticsOnly) {
  PairMetrics m;
  m.pair_reason = Reason::Empty;
  m.statistics.max.diff = Metric::of(0.1);
  EXPECT_EQ(judge(m, msprobe_thresholds()).verdict, Verdict::Pass);
  m.statistics.max.large = true;
  EXPECT_EQ(judge(m, msprobe_thresholds()).verdict, Verdict::Warning);
}

TEST(Verdict, DtypePreset) {
  auto f16 = dtype_tolerances(DType::Float16);
  EXPECT_EQ(f16.small_value, std::ldexp(1.0, -10));
  EXPECT_EQ(f16.small_value_atol, std::ldexp(1.0, -16));
  EXPECT_EQ(f16.small_value_atol_benchmark, 1e-16);
  EXPECT_EQ(f16.rtol, std::ldexp(1.0, -10));
  EXPECT_EQ(f16.accumulative_bound, std::ldexp(1.0, -8));
  EXPECT_EQ(f16.minimum_error, std::ldexp(1.0, -11));
  auto bf16 = dtype_tolerances(DType::BFloat16);
  EXPECT_EQ(bf16.small_value_atol, 1e-16);
  EXPECT_EQ(bf16.rtol, std::ldexp(1.0, -8));
  EXPECT_EQ(bf16.accumulative_bound, std::ldexp(1.0, -7));
  EXPECT_EQ(bf16.minimum_error, std::ldexp(1.0, -8));
  auto f32 = dtype_tolerances(DType::Float32);
  EXPECT_EQ(f32.small_value, std::ldexp(1.0, -20));
  EXPECT_EQ(f32.small_value_atol, std::ldexp(1.0, -30));
  EXPECT_EQ(f32.rtol, std::ldexp(1.0, -20));
  EXPECT_EQ(f32.accumulative_bound, std::ldexp(1.0, -11));
  EXPECT_EQ(f32.minimum_error, std::ldexp(1.0, -14));
  EXPECT_EQ(dtype_tolerances(DType::Float64).rtol, f32.rtol);  // "fp32 / default"

  Thresholds t = preset_thresholds(Preset::Dtype, DType::Float16);
  EXPECT_EQ(t.bound(ThresholdMetric::Cosine), (Bound{0.99, 0.9}));
  EXPECT_EQ(t.bound(ThresholdMetric::MeanRelativeError),
            (Bound{std::ldexp(1.0, -10), std::ldexp(1.0, -8)}));
  EXPECT_EQ(dtype_thresholds(DType::BFloat16).bound(ThresholdMetric::MeanRelativeError),
            (Bound{std::ldexp(1.0, -8), std::ldexp(1.0, -7)}));
  EXPECT_EQ(dtype_thresholds(DType::Int32).bound(ThresholdMetric::MeanRelativeError),
            (Bound{std::ldexp(1.0, -20), std::ldexp(1.0, -11)}));

  PairMetrics m = good_pair();
  m.mean_relative_error = Metric::of(0.002);  // between fp16's 2^-10 and 2^-8
  EXPECT_EQ(judge(m, t).verdict, Verdict::Warning);
  EXPECT_EQ(judge(m, dtype_thresholds(DType::BFloat16)).verdict, Verdict::Pass);
  EXPECT_EQ(judge(m, dtype_thresholds(DType::Float32)).verdict, Verdict::Error);
}

TEST(Verdict, PresetNames) {
  for (Preset p : {Preset::Default, Preset::Msprobe, Preset::Dtype})
    EXPECT_EQ(parse_preset(preset_name(p)), p);
  EXPECT_EQ(parse_preset("MSPROBE"), Preset::Msprobe);
  EXPECT_FALSE(parse_preset("msaccucmp"));
}

// The reason table of verdict.h, row by row.
TEST(VerdictReasons, WholePair) {
  for (Reason r : {Reason::SizeMismatch, Reason::ShapeMismatch, Reason::NanInfPositionsDiffer}) {
    PairMetrics m;
    m.pair_reason = r;
    for (Metric* x : {&m.mp_cosine, &m.mp_max_abs_err}) *x = Metric::absent(r);
    auto v = judge_default(m);
    EXPECT_EQ(v.verdict, Verdict::Error) << reason_name(r);
    EXPECT_EQ(v.why, reason_name(r));
  }
  for (Reason r : {Reason::Empty, Reason::NotReal}) {
    PairMetrics m;
    m.pair_reason = r;
    for (Metric* x : {&m.mp_cosine, &m.mp_max_abs_err}) *x = Metric::absent(r);
    auto v = judge_default(m);
    EXPECT_EQ(v.verdict, Verdict::Skipped) << reason_name(r);
    EXPECT_EQ(v.why, reason_name(r));
  }
  PairMetrics m;
  m.pair_reason = Reason::AllMasked;
  m.my.nan = m.golden.nan = 3;
  EXPECT_EQ(judge_default(m).verdict, Verdict::Skipped);
  m.golden.nan = 2;
  m.golden.pos_inf = 1;
  auto v = judge_default(m);
  EXPECT_EQ(v.verdict, Verdict::Error);
  EXPECT_EQ(v.why, "all masked (NaN/Inf counts differ)");
}

TEST(VerdictReasons, NonFinite) {
  PairMetrics m = good_pair();
  m.mp_cosine = Metric::absent(Reason::NonFinite);
  m.my.nan = 2;  // one side only
  auto v = judge_default(m);
  EXPECT_EQ(v.verdict, Verdict::Error);
  EXPECT_EQ(v.why, "Cosine: non-finite (NaN/Inf on my side only)");
  m.my.nan = 0;
  m.golden.neg_inf = 1;
  EXPECT_EQ(judge_default(m).why, "Cosine: non-finite (NaN/Inf on the golden side only)");
  m.my.pos_inf = 1;  // both sides
  v = judge_default(m);
  EXPECT_EQ(v.verdict, Verdict::Warning);
  EXPECT_EQ(v.why, "Cosine: non-finite");
  m.my.pos_inf = m.golden.neg_inf = 0;  // neither: the arithmetic overflowed
  EXPECT_EQ(judge_default(m).verdict, Verdict::Warning);
  // A warning from non-finite counts for §9.1's joint rule.
  m.mp_max_abs_err = Metric::of(0.5);
  EXPECT_EQ(judge_default(m).verdict, Verdict::Error);
}

TEST(VerdictReasons, AllZeroOneSide) {
  for (Reason r : {Reason::AllZeroMine, Reason::AllZeroGolden}) {
    PairMetrics m = good_pair();
    m.mp_cosine = Metric::absent(r);
    auto v = judge_default(m);
    EXPECT_EQ(v.verdict, Verdict::Error);
    EXPECT_EQ(v.why, "Cosine: " + std::string(reason_name(r)));
  }
}

TEST(VerdictReasons, NotJudged) {
  for (Reason r : {Reason::Scalar, Reason::LengthOne, Reason::Bool, Reason::NotSelected}) {
    PairMetrics m = good_pair();
    m.mp_cosine = Metric::absent(r);
    EXPECT_EQ(judge_default(m).verdict, Verdict::Pass) << reason_name(r);  // MaxAbsErr judged
    m.mp_max_abs_err = Metric::absent(r);
    auto v = judge_default(m);
    EXPECT_EQ(v.verdict, Verdict::Skipped) << reason_name(r);
    EXPECT_EQ(v.why, "Cosine: " + std::string(reason_name(r)));
  }
  // Nothing bounded at all.
  EXPECT_EQ(judge(good_pair(), Thresholds{}).why, "no threshold applies");
}

TEST(VerdictReasons, Statistics) {
  Thresholds t;
  t.set(ThresholdMetric::MaxDiff, Bound{1, 10});
  t.set(ThresholdMetric::MaxRelativeDiff, Bound{5, 50});  // percent
  PairMetrics m;
  m.pair_reason = Reason::SizeMismatch;     // statistic bounds are still judged
  m.statistics.max.diff = Metric::of(-20);  // |diff|
  m.statistics.max.relative = Metric::absent(Reason::ZeroGoldenStatistic);
  auto v = judge(m, t);
  EXPECT_EQ(v.verdict, Verdict::Error);
  m.pair_reason.reset();
  v = judge(m, t);
  EXPECT_EQ(v.verdict, Verdict::Error);
  EXPECT_EQ(v.why, "Max diff 20.0 > 10.0");
  m.statistics.max.diff = Metric::of(0.5);
  EXPECT_EQ(judge(m, t).verdict, Verdict::Pass);  // zero golden statistic not judged
  m.statistics.max.relative = Metric::of(10);
  EXPECT_EQ(judge(m, t).verdict, Verdict::Warning);
  m.statistics.max.diff = Metric::absent(Reason::Empty);
  m.statistics.max.relative = Metric::absent(Reason::Empty);
  v = judge(m, t);
  EXPECT_EQ(v.verdict, Verdict::Skipped);
  EXPECT_EQ(v.why, "Max diff: empty");
}

TEST(VerdictReasons, UnmatchedAndSkippedRows) {
  auto u = RowVerdict::unmatched("no golden tensor");
  EXPECT_EQ(u.verdict, Verdict::Unmatched);
  EXPECT_EQ(u.why, "no golden tensor");
  EXPECT_EQ(RowVerdict::skipped("superseded").verdict, Verdict::Skipped);
}

TEST(Threshold, Parse) {
  auto s = parse_threshold("cosine=0.999,0.95");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->metric, ThresholdMetric::Cosine);
  EXPECT_EQ(s->bound, (Bound{0.999, 0.95}));
  s = parse_threshold(" One Thousandth Err Ratio = 0.99 , 0.9 ");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->metric, ThresholdMetric::OneThousandthErrRatio);
  s = parse_threshold("MAXABSOLUTEERROR=1e-3,+inf");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->bound, (Bound{0.001, kInf}));
  s = parse_threshold("mae=off");
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->bound);
  s = parse_threshold("cos=0.9,0.9");  // no warning band
  ASSERT_TRUE(s);

  Thresholds t = default_thresholds();
  apply(t, *parse_threshold("mae=off"));
  apply(t, *parse_threshold("KullbackLeiblerDivergence=0.1,1"));
  EXPECT_FALSE(t.bound(ThresholdMetric::MaxAbsErr));
  EXPECT_EQ(t.bound(ThresholdMetric::KullbackLeiblerDivergence), (Bound{0.1, 1}));
  PairMetrics m = good_pair();
  m.mp_max_abs_err = Metric::of(5);  // no longer bounded
  EXPECT_EQ(judge(m, t).verdict, Verdict::Pass);
  m.kl_divergence = Metric::of(2);
  EXPECT_EQ(judge(m, t).why, "KullbackLeiblerDivergence 2.0 > 1.0");
}

std::string parse_error(std::string_view text) {
  auto s = parse_threshold(text);
  return s ? std::string("(parsed)") : s.error().message;
}

TEST(Threshold, ParseErrors) {
  EXPECT_EQ(parse_error("cosine"), "threshold 'cosine': expected METRIC=WARN,ERROR");
  EXPECT_EQ(parse_error("cosine=0.9"),
            "threshold 'cosine=0.9': expected METRIC=WARN,ERROR (two bounds, or 'off')");
  EXPECT_EQ(parse_error("Cosine=a,0.9"),
            "threshold 'Cosine=a,0.9': warning bound 'a' of Cosine is not a number");
  EXPECT_EQ(parse_error("Cosine=0.99,"),
            "threshold 'Cosine=0.99,': error bound '' of Cosine is not a number");
  EXPECT_EQ(parse_error("Cosine=0.99,0.9x"),
            "threshold 'Cosine=0.99,0.9x': error bound '0.9x' of Cosine is not a number");
  EXPECT_EQ(parse_error("mae=nan,1"),
            "threshold 'mae=nan,1': warning bound 'nan' of MaxAbsErr is not a number");
  EXPECT_EQ(parse_error("Cosine=0.9,0.99"),
            "threshold 'Cosine=0.9,0.99': Cosine: the warning bound 0.9 is below the error "
            "bound 0.99 (higher is better)");
  EXPECT_EQ(parse_error("mae=1,0.001"),
            "threshold 'mae=1,0.001': MaxAbsErr: the warning bound 1.0 is above the error bound "
            "0.001 (lower is better)");
  EXPECT_EQ(parse_error("StandardDeviation=1,2"),
            "threshold 'StandardDeviation=1,2': StandardDeviation has no threshold: it describes "
            "each side, not their difference");
  std::string unknown = parse_error("Foo=1,2");
  EXPECT_EQ(unknown.rfind("threshold 'Foo=1,2': unknown metric 'Foo' (CosineSimilarity, ", 0), 0u)
      << unknown;
  EXPECT_NE(unknown.find("L2norm relative diff)"), std::string::npos);
  EXPECT_EQ(parse_error("=1,2").rfind("threshold '=1,2': unknown metric '' (", 0), 0u);
}

TEST(FailOn, ParseAndSemantics) {
  FailOn f;
  EXPECT_FALSE(parse_fail_on("error", f));
  EXPECT_EQ(f, FailOn{});
  EXPECT_TRUE(fails_run(Verdict::Error, f));
  EXPECT_FALSE(fails_run(Verdict::Warning, f));
  EXPECT_FALSE(fails_run(Verdict::Unmatched, f));
  EXPECT_FALSE(fails_run(Verdict::Skipped, f));
  EXPECT_FALSE(fails_run(Verdict::Pass, f));
  EXPECT_FALSE(parse_fail_on("Warning", f));
  EXPECT_TRUE(fails_run(Verdict::Warning, f));
  EXPECT_FALSE(fails_run(Verdict::Unmatched, f));
  FailOn g;
  EXPECT_FALSE(parse_fail_on("unmatched", g));
  EXPECT_TRUE(fails_run(Verdict::Unmatched, g));
  EXPECT_TRUE(fails_run(Verdict::Error, g));
  EXPECT_FALSE(fails_run(Verdict::Warning, g));
  FailOn h;
  EXPECT_FALSE(parse_fail_on("warning, unmatched", h));
  EXPECT_EQ(h, (FailOn{true, true}));
  EXPECT_FALSE(fails_run(Verdict::Skipped, h));
  auto err = parse_fail_on("warning,skipped", h);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message, "unknown --fail-on value 'skipped' (warning, error, unmatched)");
  err = parse_fail_on("", h);
  ASSERT_TRUE(err);
  EXPECT_EQ(err->message, "unknown --fail-on value '' (warning, error, unmatched)");
}

// §9.1's table, row by row, in its order.
TEST(Accuracy, Rule1ShapeUnmatched) {
  EXPECT_EQ(accuracy_reached("shape unmatched", "shape unmatched"), Accuracy::Unmatched);
  EXPECT_EQ(accuracy_reached("shape unmatched", "None"), Accuracy::Unmatched);  // before rule 2
  EXPECT_EQ(accuracy_reached("0.5", "shape unmatched"), Accuracy::None);  // cosine only: float()
}
TEST(Accuracy, Rule2None) {
  EXPECT_EQ(accuracy_reached("None", "0.0"), Accuracy::None);
  EXPECT_EQ(accuracy_reached("1.0", "None"), Accuracy::None);
  EXPECT_EQ(accuracy_reached("None", "N/A"), Accuracy::None);  // before rule 3
}
TEST(Accuracy, Rule3NotApplicable) {
  EXPECT_EQ(accuracy_reached("N/A", "0.0"), Accuracy::No);
  EXPECT_EQ(accuracy_reached("1.0", "N/A"), Accuracy::No);
}
TEST(Accuracy, Rule4Both) {
  EXPECT_EQ(accuracy_reached("0.98", "0.002"), Accuracy::No);
  EXPECT_EQ(accuracy_reached("0.98", "0.001"), Accuracy::Yes);  // strict
  EXPECT_EQ(accuracy_reached("0.99", "0.5"), Accuracy::Yes);
}
TEST(Accuracy, Rule5Either) {
  EXPECT_EQ(accuracy_reached("0.89", "0.0"), Accuracy::No);
  EXPECT_EQ(accuracy_reached("1.0", "1.5"), Accuracy::No);
  EXPECT_EQ(accuracy_reached("0.9", "0.0"), Accuracy::Yes);  // strict
  EXPECT_EQ(accuracy_reached("0.995", "1"), Accuracy::Yes);
  EXPECT_EQ(accuracy_reached("1.0", "inf"), Accuracy::No);
}
TEST(Accuracy, Rule6Otherwise) {
  EXPECT_EQ(accuracy_reached("1.0", "0.0"), Accuracy::Yes);
  EXPECT_EQ(accuracy_reached(" 0.999999 ", "1e-4"), Accuracy::Yes);
  EXPECT_EQ(accuracy_reached("nan", "nan"), Accuracy::Yes);  // float('nan') compares false
}
TEST(Accuracy, NotANumber) {
  EXPECT_EQ(accuracy_reached("unsupported", "0.0"), Accuracy::None);  // ValueError path
  EXPECT_EQ(accuracy_reached("1.0", ""), Accuracy::None);
  EXPECT_EQ(accuracy_name(Accuracy::Unmatched), "Unmatched");
  EXPECT_EQ(accuracy_name(Accuracy::None), "None");
}

TEST(Accuracy, FromMetrics) {
  PairMetrics m = good_pair();
  EXPECT_EQ(accuracy_reached(m), Accuracy::Yes);
  m.mp_cosine = Metric::of(0.5);
  EXPECT_EQ(accuracy_reached(m), Accuracy::No);
  m.mp_cosine = Metric::absent(Reason::AllZeroGolden);
  EXPECT_EQ(msprobe_cell(m.mp_cosine, std::nullopt), "N/A");
  EXPECT_EQ(accuracy_reached(m), Accuracy::No);
  m.mp_cosine = Metric::absent(Reason::LengthOne);
  EXPECT_EQ(msprobe_cell(m.mp_cosine, std::nullopt), "unsupported");
  EXPECT_EQ(accuracy_reached(m), Accuracy::None);
  m.pair_reason = Reason::SizeMismatch;
  EXPECT_EQ(accuracy_reached(m), Accuracy::Unmatched);
  m.pair_reason = Reason::NanInfPositionsDiffer;
  EXPECT_EQ(accuracy_reached(m), Accuracy::No);
  EXPECT_EQ(msprobe_cell(Metric::of(0.25), std::nullopt), "0.25");
}

}  // namespace
}  // namespace msdt::compare
