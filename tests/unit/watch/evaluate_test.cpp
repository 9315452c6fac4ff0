// Verdicts against watchpoints spec §2: each condition at its boundaries (strict gt/lt, inclusive
// ge/le and range bounds), OR-combination, sample SD, the change ratio with ε in the denominator,
// NOT_CHANGED's all-close rule, and the error bits. Facts are built the way watch-check builds
// them from a tensor file: compute_stats, facts_from_stats, count_in_ranges, change_stats. Expected
// values are computed here from the elements, independently of the statistics kernel.
#include "watch/evaluate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "support/tensor_builder.h"

namespace msdt::watch {
namespace {

using msdt::testing::OwnedTensor;
using msdt::testing::tensor_of;
using ::testing::HasSubstr;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

double below(double x) { return std::nextafter(x, -kInf); }
double above(double x) { return std::nextafter(x, kInf); }

// IEEE half for values it holds exactly (the test's own encoder; checked against known patterns).
uint16_t half_of(double x) {
  if (std::isnan(x)) return 0x7E00;
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  x = std::fabs(x);
  if (std::isinf(x)) return sign | 0x7C00;
  if (x == 0) return sign;
  int e = 0;
  double m = std::frexp(x, &e);  // x = m * 2^e, m in [0.5, 1)
  int biased = e - 1 + 15;
  double fraction = biased >= 1 ? (m * 2 - 1) * 1024 : x * 16777216.0;  // subnormal: x / 2^-24
  EXPECT_EQ(fraction, std::floor(fraction)) << x << " is not a half";
  EXPECT_LE(biased, 30) << x << " is too large for a half";
  auto bits = static_cast<uint16_t>(fraction);
  return static_cast<uint16_t>(sign | (biased >= 1 ? (biased << 10) | bits : bits));
}

uint16_t bfloat16_of(double x) {
  if (std::isnan(x)) return 0x7FC0;
  auto f = static_cast<float>(x);
  EXPECT_EQ(static_cast<double>(f), x) << x;
  auto bits = std::bit_cast<uint32_t>(f);
  EXPECT_EQ(bits & 0xFFFFu, 0u) << x << " is not a bfloat16";
  return static_cast<uint16_t>(bits >> 16);
}

OwnedTensor f16(const std::vector<double>& v) {
  std::vector<uint16_t> bits;
  for (double x : v) bits.push_back(half_of(x));
  return tensor_of(DType::Float16, bits);
}
OwnedTensor bf16(const std::vector<double>& v) {
  std::vector<uint16_t> bits;
  for (double x : v) bits.push_back(bfloat16_of(x));
  return tensor_of(DType::BFloat16, bits);
}
OwnedTensor f32(const std::vector<float>& v) { return tensor_of(DType::Float32, v); }
OwnedTensor f64(const std::vector<double>& v) { return tensor_of(DType::Float64, v); }
OwnedTensor i32(const std::vector<int32_t>& v) { return tensor_of(DType::Int32, v); }
OwnedTensor i64(const std::vector<int64_t>& v) { return tensor_of(DType::Int64, v); }
OwnedTensor u8(const std::vector<uint8_t>& v) { return tensor_of(DType::UInt8, v); }
OwnedTensor boolean(const std::vector<uint8_t>& v) { return tensor_of(DType::Bool, v); }

TEST(TestEncoders, HalfAndBfloat16) {
  EXPECT_EQ(half_of(1.0), 0x3C00);
  EXPECT_EQ(half_of(-2.0), 0xC000);
  EXPECT_EQ(half_of(65504.0), 0x7BFF);
  EXPECT_EQ(half_of(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(half_of(0.333251953125), 0x3555);
  EXPECT_EQ(half_of(-0.0), 0x8000);
  EXPECT_EQ(bfloat16_of(1.0), 0x3F80);
  EXPECT_EQ(bfloat16_of(-0.5), 0xBF00);
  for (double x : {1.0, -2.0, 65504.0, 0.333251953125, std::ldexp(1.0, -24), 0.5})
    EXPECT_EQ(static_cast<double>(half_to_float(half_of(x))), x);
}

Watchpoint make(std::string_view condition, const GivenParams& given) {
  Watchpoint wp;
  auto c = find_condition(condition);
  EXPECT_TRUE(c) << condition;
  if (!c) return wp;
  wp.condition = *c;
  auto params = resolve_params(**c, given, "test");
  EXPECT_TRUE(params) << params.error().message;
  if (params) wp.params = std::move(*params);
  return wp;
}

// What watch-check knows of a tensor file (check.cpp): statistics, the range counts and the
// comparison with the previous tensor the watchpoints need.
TensorFacts facts_of(const Needs& needs, const TensorView& t, const TensorView* prev = nullptr,
                     Previous without_prev = Previous::NotFound) {
  TensorFacts f;
  TensorStats stats = compute_stats(t);
  if (stats.count == 0) {
    f.has_value = false;
    f.no_value_reason = "the tensor is empty";
    return f;
  }
  facts_from_stats(stats, f);
  if (!needs.ranges.empty()) {
    auto counts = count_in_ranges(t, needs.ranges);
    EXPECT_TRUE(counts);
    if (counts) f.range_counts = *counts;
  }
  if (needs.previous) {
    if (!prev) {
      f.previous = without_prev;
      f.previous_reason = "no previous";
    } else if (auto change = change_stats(t, *prev, needs.tolerances)) {
      f.previous = Previous::Present;
      f.change = *change;
    } else {
      f.previous = Previous::SizeDiffers;
      f.previous_reason = change.error().message;
    }
  }
  return f;
}

Verdict check(const Watchpoint& wp, const TensorView& t, const TensorView* prev = nullptr,
              Previous without_prev = Previous::NotFound) {
  Needs needs;
  needs.add(wp);
  return evaluate(wp, needs, facts_of(needs, t, prev, without_prev));
}

const ParamOutcome& outcome(const Verdict& v, std::string_view name) {
  for (const ParamOutcome& p : v.params)
    if (p.spec && p.spec->name == name) return p;
  ADD_FAILURE() << "no outcome for " << name;
  static const ParamOutcome none;
  return none;
}

std::string fmt_case(std::string_view condition, std::string_view param, double threshold) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", threshold);
  return std::string(condition) + " " + std::string(param) + " = " + buf;
}

enum class Op { Gt, Lt, Ge };

// One parameter at its boundary: threshold equal to the actual value, one ulp below, one above.
// Strict gt/lt do not hit at equality; ge does.
void expect_boundary(std::string_view condition, std::string_view param, const TensorView& t,
                     double actual, Op op, const GivenParams& others = {}) {
  struct Case {
    double threshold;
    bool hit;
  };
  std::vector<Case> cases;
  switch (op) {
    case Op::Gt:
      cases = {{actual, false}, {below(actual), true}, {above(actual), false}};
      break;
    case Op::Lt:
      cases = {{actual, false}, {below(actual), false}, {above(actual), true}};
      break;
    case Op::Ge:
      cases = {{actual, true}, {below(actual), true}, {above(actual), false}};
      break;
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt_case(condition, param, c.threshold));
    GivenParams given = others;
    given.emplace_back(std::string(param), c.threshold);
    Watchpoint wp = make(condition, given);
    Verdict v = check(wp, t);
    EXPECT_EQ(v.error_code, 0u) << v.reason;
    EXPECT_EQ(v.hit, c.hit);
    const ParamOutcome& o = outcome(v, param);
    EXPECT_FALSE(o.disabled);
    EXPECT_EQ(o.value, c.threshold);
    EXPECT_EQ(o.hit, c.hit);
    ASSERT_TRUE(o.actual);
    EXPECT_EQ(*o.actual, actual);
  }
}

// ---- reference statistics, computed from the elements ------------------------------------------

struct Ref {
  double max, min, mean, abs_mean, sample_sd, zero_pct;
};

Ref reference(const std::vector<double>& v) {
  Ref r{};
  r.max = *std::max_element(v.begin(), v.end());
  r.min = *std::min_element(v.begin(), v.end());
  long double sum = 0, abs_sum = 0, zeros = 0;
  for (double x : v) {
    sum += x;
    abs_sum += std::fabs(x);
    zeros += x == 0;
  }
  long double n = v.size(), mean = sum / n, m2 = 0;
  for (double x : v) m2 += (x - mean) * (x - mean);
  r.mean = static_cast<double>(mean);
  r.abs_mean = static_cast<double>(abs_sum / n);
  r.sample_sd = v.size() > 1 ? static_cast<double>(std::sqrt(m2 / (n - 1))) : 0.0;
  r.zero_pct = static_cast<double>(100 * zeros / n);
  return r;
}

// ---- legacy single-parameter conditions (3-12), strict ----------------------------------------

TEST(EvaluateLegacy, MaxMinMeanAtTheirBoundaries) {
  const std::vector<double> values = {-2, 0.5, 1, 4.5};  // mean 1, abs_mean 2
  Ref r = reference(values);
  ASSERT_EQ(r.mean, 1.0);
  auto t = f64(values);
  expect_boundary("MAX_GT", "param", t.view, r.max, Op::Gt);
  expect_boundary("MAX_LT", "param", t.view, r.max, Op::Lt);
  expect_boundary("MIN_GT", "param", t.view, r.min, Op::Gt);
  expect_boundary("MIN_LT", "param", t.view, r.min, Op::Lt);
  expect_boundary("MEAN_GT", "param", t.view, r.mean, Op::Gt);
  expect_boundary("MEAN_LT", "param", t.view, r.mean, Op::Lt);
  expect_boundary("MAX_MIN_GT", "param", t.view, r.max - r.min, Op::Gt);
  expect_boundary("MAX_MIN_LT", "param", t.view, r.max - r.min, Op::Lt);
  // By number, as MindSpore's offline tests name them.
  expect_boundary("6", "param", t.view, r.min, Op::Lt);
}

TEST(EvaluateLegacy, SampleStandardDeviation) {
  // {-1, 1}: sample variance 2 / 1 (population would be 1).
  auto t = f64({-1, 1});
  double sd = reference({-1, 1}).sample_sd;
  ASSERT_EQ(sd, std::sqrt(2.0));
  expect_boundary("SD_GT", "param", t.view, sd, Op::Gt);
  expect_boundary("SD_LT", "param", t.view, sd, Op::Lt);
  // One element: variance 0.
  auto single = f64({5});
  expect_boundary("SD_LT", "param", single.view, 0.0, Op::Lt);
}

// {0, 2, 4}: the sample SD is exactly 2 (m2 = 8, n - 1 = 2). facts_from_stats derives it as
// population SD * sqrt(n / (n - 1)) = sqrt(8/3) * sqrt(3/2), which rounds to 1.9999999999999998:
// SD_LT 2 hit and SD_GT 1.9999999999999998 did not, though the SD is 2. The sample SD is now
// sqrt(m2 / (n - 1)) with m2 = n * std^2 (spec §2.1).
TEST(EvaluateLegacy, SampleStandardDeviationIsExactWhenItCanBe) {
  auto t = f64({0, 2, 4});
  double sd = reference({0, 2, 4}).sample_sd;
  ASSERT_EQ(sd, 2.0);
  expect_boundary("SD_GT", "param", t.view, sd, Op::Gt);
  expect_boundary("SD_LT", "param", t.view, sd, Op::Lt);
}

TEST(EvaluateLegacy, SampleStandardDeviationIsCloseToTheReference) {
  for (const std::vector<double>& v : std::vector<std::vector<double>>{
           {0, 2, 4}, {2, 4, 4, 4, 5, 5, 7, 9}, {1e6, 1e6 + 1, 1e6 + 3}, {-3.5, 0.25, 8, 8, 1}}) {
    Needs needs;
    Watchpoint wp = make("SD_GT", {{"param", 0.0}});
    needs.add(wp);
    auto t = f64(v);
    TensorFacts f = facts_of(needs, t.view);
    ASSERT_TRUE(f.sd);
    double want = reference(v).sample_sd;
    EXPECT_NEAR(*f.sd, want, want * 4e-16) << v.size();
  }
}

// ---- TOO_LARGE / TOO_SMALL, each parameter, several dtypes -------------------------------------

TEST(EvaluateTooLarge, EachParameterOnFloat64) {
  const std::vector<double> values = {-2, 0.5, 1, 4.5};
  Ref r = reference(values);
  auto t = f64(values);
  expect_boundary("TL", "abs_mean_gt", t.view, r.abs_mean, Op::Gt);
  expect_boundary("TL", "max_gt", t.view, r.max, Op::Gt);
  expect_boundary("TL", "min_gt", t.view, r.min, Op::Gt);
  expect_boundary("TL", "mean_gt", t.view, r.mean, Op::Gt);
  expect_boundary("TS", "abs_mean_lt", t.view, r.abs_mean, Op::Lt);
  expect_boundary("TS", "max_lt", t.view, r.max, Op::Lt);
  expect_boundary("TS", "min_lt", t.view, r.min, Op::Lt);
  expect_boundary("TS", "mean_lt", t.view, r.mean, Op::Lt);
}

TEST(EvaluateTooLarge, Float16) {
  // 65504 is the largest half; 2^-24 the smallest subnormal.
  const std::vector<double> values = {1, -2, 65504, 0.333251953125, std::ldexp(1.0, -24), -0.0};
  Ref r = reference(values);
  auto t = f16(values);
  expect_boundary("WL", "max_gt", t.view, 65504, Op::Gt);
  expect_boundary("GL", "min_gt", t.view, -2, Op::Gt);
  expect_boundary("WS", "min_lt", t.view, -2, Op::Lt);
  expect_boundary("TS", "max_lt", t.view, 65504, Op::Lt);
  // abs_mean / mean are sums of halves: compare with the long double reference.
  Needs needs;
  Watchpoint wp = make("TL", {{"abs_mean_gt", 0.0}, {"mean_gt", 0.0}});
  needs.add(wp);
  Verdict v = evaluate(wp, needs, facts_of(needs, t.view));
  ASSERT_TRUE(outcome(v, "abs_mean_gt").actual);
  EXPECT_NEAR(*outcome(v, "abs_mean_gt").actual, r.abs_mean, r.abs_mean * 1e-15);
  EXPECT_NEAR(*outcome(v, "mean_gt").actual, r.mean, std::fabs(r.mean) * 1e-15);
  EXPECT_TRUE(v.hit);
}

TEST(EvaluateTooLarge, Bfloat16) {
  const std::vector<double> values = {1, 3, -0.5, 0.5, 256, -256};
  Ref r = reference({1, 3, -0.5, 0.5});
  auto t = bf16({1, 3, -0.5, 0.5});
  ASSERT_EQ(r.mean, 1.0);
  expect_boundary("TL", "mean_gt", t.view, 1.0, Op::Gt);
  expect_boundary("TS", "mean_lt", t.view, 1.0, Op::Lt);
  expect_boundary("TL", "abs_mean_gt", t.view, 1.25, Op::Gt);
  auto wide = bf16(values);
  expect_boundary("TL", "max_gt", wide.view, 256, Op::Gt);
  expect_boundary("TS", "min_lt", wide.view, -256, Op::Lt);
}

TEST(EvaluateTooLarge, Float32) {
  // float32 elements widened to double: 0.1f is 0.100000001490116...
  const std::vector<float> values = {-1.5f, 0.1f, 2.0f, 3.25f};
  auto t = f32(values);
  expect_boundary("TL", "max_gt", t.view, 3.25, Op::Gt);
  expect_boundary("TS", "min_lt", t.view, -1.5, Op::Lt);
  auto tenth = f32({0.1f});
  expect_boundary("TL", "max_gt", tenth.view, static_cast<double>(0.1f), Op::Gt);
  expect_boundary("TS", "abs_mean_lt", tenth.view, static_cast<double>(0.1f), Op::Lt);
}

TEST(EvaluateTooLarge, Integers) {
  auto t = i32({-7, 0, 3, 12});  // mean 2, abs_mean 5.5
  expect_boundary("TL", "max_gt", t.view, 12, Op::Gt);
  expect_boundary("TL", "min_gt", t.view, -7, Op::Gt);
  expect_boundary("TL", "mean_gt", t.view, 2, Op::Gt);
  expect_boundary("TS", "abs_mean_lt", t.view, 5.5, Op::Lt);
  const int64_t big = int64_t{1} << 40;
  auto t64 = i64({-big, big, 0, 6});  // mean 1.5, abs_mean 2^39 + 1.5
  expect_boundary("TL", "mean_gt", t64.view, 1.5, Op::Gt);
  expect_boundary("TL", "abs_mean_gt", t64.view, std::ldexp(1.0, 39) + 1.5, Op::Gt);
  expect_boundary("TS", "min_lt", t64.view, -std::ldexp(1.0, 40), Op::Lt);
  auto bytes = u8({0, 255, 1, 0});
  expect_boundary("TL", "max_gt", bytes.view, 255, Op::Gt);
  expect_boundary("TS", "mean_lt", bytes.view, 64, Op::Lt);
}

TEST(EvaluateTooLarge, Bool) {
  auto t = boolean({1, 0, 1, 1});  // as 0/1: mean 0.75
  expect_boundary("TL", "mean_gt", t.view, 0.75, Op::Gt);
  expect_boundary("TL", "max_gt", t.view, 1, Op::Gt);
  expect_boundary("TS", "min_lt", t.view, 0, Op::Lt);
  expect_boundary("TS", "abs_mean_lt", t.view, 0.75, Op::Lt);
}

TEST(EvaluateTooLarge, ParametersAreOrCombined) {
  auto t = f64({-2, 0.5, 1, 4.5});
  // max_gt at the max does not hit, min_gt below the min does: the watchpoint hits.
  Watchpoint wp = make("TL", {{"max_gt", 4.5}, {"min_gt", below(-2)}});
  Verdict v = check(wp, t.view);
  EXPECT_TRUE(v.hit);
  EXPECT_EQ(v.error_code, 0u);
  ASSERT_EQ(v.params.size(), 4u);  // every parameter, enabled or not, in backend order
  EXPECT_EQ(v.params[0].spec->name, "abs_mean_gt");
  EXPECT_TRUE(v.params[0].disabled);
  EXPECT_FALSE(v.params[0].actual);
  EXPECT_FALSE(v.params[0].hit);
  EXPECT_FALSE(v.params[1].hit);
  EXPECT_EQ(v.params[1].actual, 4.5);
  EXPECT_TRUE(v.params[2].hit);
  EXPECT_EQ(v.params[2].actual, -2.0);
  EXPECT_TRUE(v.params[3].disabled);
  // Neither hits.
  v = check(make("TL", {{"max_gt", 4.5}, {"min_gt", -2.0}, {"mean_gt", 1.0}, {"abs_mean_gt", 2.0}}),
            t.view);
  EXPECT_FALSE(v.hit);
  for (const ParamOutcome& p : v.params) {
    EXPECT_FALSE(p.hit) << p.spec->name;
    EXPECT_TRUE(p.actual) << p.spec->name;
  }
  // All hit.
  v = check(make("TS", {{"max_lt", 5.0}, {"min_lt", -1.0}, {"mean_lt", 2.0}, {"abs_mean_lt", 3.0}}),
            t.view);
  EXPECT_TRUE(v.hit);
  for (const ParamOutcome& p : v.params) EXPECT_TRUE(p.hit) << p.spec->name;
}

// ---- ALL_ZERO / INIT: zero_percentage_ge is inclusive ------------------------------------------

TEST(EvaluateAllZero, ZeroPercentageIsInclusive) {
  auto t = i32({-7, 0, 3, 12});
  ASSERT_EQ(reference({-7, 0, 3, 12}).zero_pct, 25.0);
  expect_boundary("TZ", "zero_percentage_ge", t.view, 25, Op::Ge);
  expect_boundary("WI", "zero_percentage_ge", t.view, 25, Op::Ge);
  // -0.0 counts as zero.
  auto negative_zero = f32({-0.0f, 1, 2, 0.0f});
  expect_boundary("TZ", "zero_percentage_ge", negative_zero.view, 50, Op::Ge);
  auto halves = f16({-0.0, 0, 0, 1});
  expect_boundary("TZ", "zero_percentage_ge", halves.view, 75, Op::Ge);
  auto flags = boolean({0, 0, 0, 1, 0});
  expect_boundary("TZ", "zero_percentage_ge", flags.view, 80, Op::Ge);
  // 1 of 3: 33.33...% as 100 * 1 / 3 in double.
  auto thirds = u8({0, 1, 2});
  expect_boundary("TZ", "zero_percentage_ge", thirds.view, 100.0 * 1 / 3, Op::Ge);
}

TEST(EvaluateAllZero, DefaultHundredPercent) {
  Watchpoint wp = make("TZ", {});
  EXPECT_TRUE(check(wp, u8({0, 0, 0}).view).hit);
  EXPECT_FALSE(check(wp, u8({0, 0, 1}).view).hit);
  EXPECT_TRUE(check(wp, f16({-0.0, 0.0}).view).hit);
  Watchpoint init = make("WI", {});
  Verdict v = check(init, f32({0, 0}).view);
  EXPECT_TRUE(v.hit);
  EXPECT_EQ(outcome(v, "zero_percentage_ge").actual, 100.0);
  // Its other parameters: strict.
  expect_boundary("WI", "max_gt", f32({0, 2}).view, 2, Op::Gt);
  expect_boundary("WI", "min_lt", f32({-3, 2}).view, -3, Op::Lt);
}

// ---- RANGE: inclusive bounds, strict percentages, max_min --------------------------------------

TEST(EvaluateRange, ElementsOnABoundCount) {
  const std::vector<double> values = {-1, 0, 0.5, 1, 2};  // [0, 1] holds 3 of 5: 60%
  auto t = f64(values);
  const GivenParams bounds = {{"range_start_inclusive", 0.0}, {"range_end_inclusive", 1.0}};
  expect_boundary("TR", "range_percentage_gt", t.view, 60, Op::Gt, bounds);
  expect_boundary("AR", "range_percentage_lt", t.view, 60, Op::Lt, bounds);
  // Moving a bound one ulp inside leaves out the element on it.
  expect_boundary("TR", "range_percentage_gt", t.view, 40, Op::Gt,
                  {{"range_start_inclusive", above(0)}, {"range_end_inclusive", 1.0}});
  expect_boundary("TR", "range_percentage_gt", t.view, 40, Op::Gt,
                  {{"range_start_inclusive", 0.0}, {"range_end_inclusive", below(1)}});
  // A one-point range.
  expect_boundary("TR", "range_percentage_gt", t.view, 20, Op::Gt,
                  {{"range_start_inclusive", 0.5}, {"range_end_inclusive", 0.5}});
}

TEST(EvaluateRange, OtherDtypes) {
  // A half element exactly on the bound.
  auto halves = f16({0.333251953125, 0.5, -1, 2});
  expect_boundary("TR", "range_percentage_gt", halves.view, 50, Op::Gt,
                  {{"range_start_inclusive", 0.333251953125}, {"range_end_inclusive", 0.5}});
  expect_boundary("TR", "range_percentage_gt", halves.view, 25, Op::Gt,
                  {{"range_start_inclusive", above(0.333251953125)}, {"range_end_inclusive", 0.5}});
  auto ints = i32({-5, -1, 0, 3, 7, 7, 8, 100});  // [-1, 7]: 5 of 8
  expect_boundary("TR", "range_percentage_lt", ints.view, 62.5, Op::Lt,
                  {{"range_start_inclusive", -1.0}, {"range_end_inclusive", 7.0}});
  // ReLU recommendation: [-1, 0] over bools is the zeros.
  auto flags = boolean({0, 1, 0, 0});
  expect_boundary("TR", "range_percentage_gt", flags.view, 75, Op::Gt,
                  {{"range_start_inclusive", -1.0}, {"range_end_inclusive", 0.0}});
}

TEST(EvaluateRange, MaxMinDifference) {
  auto t = f64({-1.5, 0, 2.25});
  expect_boundary("TR", "max_min_gt", t.view, 3.75, Op::Gt);
  expect_boundary("TR", "max_min_lt", t.view, 3.75, Op::Lt);
  auto ints = i32({-7, 0, 3, 12});
  expect_boundary("TR", "max_min_gt", ints.view, 19, Op::Gt);
  auto halves = f16({65504, -65504});
  expect_boundary("AR", "max_min_lt", halves.view, 131008, Op::Lt);
}

TEST(EvaluateRange, SeveralRangesShareOneNeeds) {
  Watchpoint a = make("TR", {{"range_start_inclusive", 0.0},
                             {"range_end_inclusive", 1.0},
                             {"range_percentage_gt", 50.0}});
  Watchpoint b = make("TR", {{"range_start_inclusive", 1.0},
                             {"range_end_inclusive", 2.0},
                             {"range_percentage_gt", 50.0}});
  Watchpoint c = make("AR", {{"range_start_inclusive", 0.0},
                             {"range_end_inclusive", 1.0},
                             {"range_percentage_lt", 100.0}});
  Needs needs;
  for (const Watchpoint* wp : {&a, &b, &c}) needs.add(*wp);
  ASSERT_EQ(needs.ranges.size(), 2u);  // a and c share theirs
  auto t = f64({0, 0.5, 1, 1.5, 2});
  TensorFacts f = facts_of(needs, t.view);
  Verdict va = evaluate(a, needs, f), vb = evaluate(b, needs, f), vc = evaluate(c, needs, f);
  EXPECT_EQ(outcome(va, "range_percentage_gt").actual, 60.0);
  EXPECT_TRUE(va.hit);
  EXPECT_EQ(outcome(vb, "range_percentage_gt").actual, 60.0);
  EXPECT_TRUE(vb.hit);
  EXPECT_EQ(outcome(vc, "range_percentage_lt").actual, 60.0);
  EXPECT_TRUE(vc.hit);
  auto t2 = f64({0, 0.25, 1.5, 5, 6});
  f = facts_of(needs, t2.view);
  EXPECT_EQ(outcome(evaluate(a, needs, f), "range_percentage_gt").actual, 40.0);
  EXPECT_EQ(outcome(evaluate(b, needs, f), "range_percentage_gt").actual, 20.0);
}

// ---- change conditions -------------------------------------------------------------------------

// mean |cur - prev| / (mean |prev| + epsilon), the means taken in long double from the elements.
double ratio_of(const std::vector<double>& cur, const std::vector<double>& prev, double epsilon) {
  long double diff = 0, abs_prev = 0;
  for (size_t i = 0; i < cur.size(); ++i) {
    diff += std::fabs(static_cast<long double>(cur[i]) - prev[i]);
    abs_prev += std::fabs(static_cast<long double>(prev[i]));
  }
  auto n = static_cast<long double>(cur.size());
  return static_cast<double>(diff / n) / (static_cast<double>(abs_prev / n) + epsilon);
}

void expect_change_boundary(std::string_view condition, const TensorView& cur,
                            const TensorView& prev, double ratio, Op op,
                            const GivenParams& others = {}) {
  std::string param = op == Op::Gt ? "abs_mean_update_ratio_gt" : "abs_mean_update_ratio_lt";
  struct Case {
    double threshold;
    bool hit;
  };
  std::vector<Case> cases =
      op == Op::Gt ? std::vector<Case>{{ratio, false}, {below(ratio), true}, {above(ratio), false}}
                   : std::vector<Case>{{ratio, false}, {below(ratio), false}, {above(ratio), true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(fmt_case(condition, param, c.threshold));
    GivenParams given = others;
    given.emplace_back(param, c.threshold);
    Verdict v = check(make(condition, given), cur, &prev);
    EXPECT_EQ(v.error_code, 0u) << v.reason;
    EXPECT_EQ(v.hit, c.hit);
    const ParamOutcome& o = outcome(v, param);
    ASSERT_TRUE(o.actual);
    EXPECT_EQ(*o.actual, ratio);
    EXPECT_EQ(o.hit, c.hit);
  }
}

TEST(EvaluateChange, RatioWithTheDefaultEpsilon) {
  const std::vector<double> cur = {1, 2, 3, 4}, prev = {1, 1, 1, 1};
  double ratio = ratio_of(cur, prev, 1e-9);
  EXPECT_EQ(ratio, 1.5 / (1.0 + 1e-9));
  EXPECT_NE(ratio, 1.5) << "epsilon is in the denominator";
  auto c = f32({1, 2, 3, 4});
  auto p = f32({1, 1, 1, 1});
  expect_change_boundary("WCL", c.view, p.view, ratio, Op::Gt);
  expect_change_boundary("WCS", c.view, p.view, ratio, Op::Lt);
  expect_change_boundary("CHANGE_TOO_LARGE", c.view, p.view, ratio, Op::Gt);
  // The UI default threshold 0.1 (WCL) and 1e-4 (WCS).
  EXPECT_TRUE(check(make("WCL", {}), c.view, &p.view).hit);
  EXPECT_FALSE(check(make("WCS", {}), c.view, &p.view).hit);
  EXPECT_TRUE(check(make("WCS", {}), p.view, &p.view).hit);  // unchanged: ratio 0 < 1e-4
}

TEST(EvaluateChange, RatioWithAUserEpsilon) {
  // mean |d| 1.5, mean |prev| 1, epsilon 0.5: exactly 1.
  auto c = f64({1, 2, 3, 4});
  auto p = f64({1, 1, 1, 1});
  ASSERT_EQ(ratio_of({1, 2, 3, 4}, {1, 1, 1, 1}, 0.5), 1.0);
  expect_change_boundary("WCL", c.view, p.view, 1.0, Op::Gt, {{"epsilon", 0.5}});
  expect_change_boundary("WCS", c.view, p.view, 1.0, Op::Lt, {{"epsilon", 0.5}});
  // epsilon disabled (as MindSpore's offline test sends it): the upstream constant 1e-9.
  expect_change_boundary("WCL", c.view, p.view, 1.5 / (1 + 1e-9), Op::Gt,
                         {{"epsilon", std::monostate{}}});
}

TEST(EvaluateChange, RatioOnOtherDtypes) {
  const std::vector<double> cur = {0.5, -2, 65504, 1}, prev = {0.25, 2, 65504, 0};
  auto c = f16(cur);
  auto p = f16(prev);
  expect_change_boundary("WCL", c.view, p.view, ratio_of(cur, prev, 1e-9), Op::Gt);
  auto ci = i32({10, -10, 5});
  auto pi = i32({0, 10, 5});
  expect_change_boundary("WCS", ci.view, pi.view, ratio_of({10, -10, 5}, {0, 10, 5}, 1e-9), Op::Lt);
  // Previous tensor of another dtype with the same element count.
  auto pb = bf16({0.25, 2, 65536, 0});
  expect_change_boundary("WCL", c.view, pb.view, ratio_of(cur, {0.25, 2, 65536, 0}, 1e-9), Op::Gt);
}

TEST(EvaluateChange, NaNInThePreviousTensorNeitherHitsNorErrs) {
  auto c = f64({1, 2});
  auto p = f64({1, kNan});
  for (std::string_view cond : {"WCL", "WCS"}) {
    Verdict v = check(make(cond, {}), c.view, &p.view);
    EXPECT_FALSE(v.hit) << cond;
    EXPECT_EQ(v.error_code, 0u) << cond;
    for (const ParamOutcome& o : v.params) EXPECT_FALSE(o.actual) << cond << " " << o.spec->name;
  }
  Verdict v = check(make("WNC", {{"rtol", 1.0}}), c.view, &p.view);
  EXPECT_FALSE(v.hit);
  EXPECT_EQ(v.error_code, 0u);
}

// NOT_CHANGED: hit when every element has |cur - prev| <= atol + rtol * |prev|.
TEST(EvaluateNotChanged, ExactlyAtTheTolerance) {
  // rtol 0.5, atol 0.25: tolerance 0.75 at prev 1, 0.25 at prev 0.
  const GivenParams tol = {{"rtol", 0.5}, {"atol", 0.25}};
  auto p = f64({1, -2, 0});
  auto at = f64({1.75, -2, 0.25});
  Verdict v = check(make("WNC", tol), at.view, &p.view);
  EXPECT_TRUE(v.hit);
  EXPECT_EQ(v.error_code, 0u);
  for (const ParamOutcome& o : v.params) EXPECT_FALSE(o.actual) << "NOT_CHANGED reports no values";
  auto beyond = f64({above(1.75), -2, 0.25});
  EXPECT_FALSE(check(make("WNC", tol), beyond.view, &p.view).hit);
  auto beyond_atol = f64({1.75, -2, above(0.25)});
  EXPECT_FALSE(check(make("WNC", tol), beyond_atol.view, &p.view).hit);
  auto below_side = f64({0.25, -2, -0.25});  // |0.25 - 1| = 0.75, |-0.25 - 0| = 0.25
  EXPECT_TRUE(check(make("NOT_CHANGED", tol), below_side.view, &p.view).hit);
  // (one ulp below 0.25 would round back to a difference of 0.75; 2^-52 below does not)
  auto further_below = f64({0.25 - std::ldexp(1.0, -52), -2, -0.25});
  EXPECT_FALSE(check(make("NOT_CHANGED", tol), further_below.view, &p.view).hit);
}

TEST(EvaluateNotChanged, DefaultTolerances) {
  // rtol 1e-5, atol 1e-8: at prev 0 the tolerance is atol alone.
  auto p = f64({0, 0});
  auto at = f64({1e-8, -1e-8});
  EXPECT_TRUE(check(make("WNC", {}), at.view, &p.view).hit);
  auto beyond = f64({above(1e-8), 0});
  EXPECT_FALSE(check(make("WNC", {}), beyond.view, &p.view).hit);
  // At prev 1e5 the tolerance is 1e-8 + 1 = 1.00000001; 1e5 + 1 is within, 1e5 + 1.5 is not.
  auto big = f64({1e5});
  EXPECT_TRUE(check(make("WNC", {}), f64({1e5 + 1}).view, &big.view).hit);
  EXPECT_FALSE(check(make("WNC", {}), f64({1e5 + 1.5}).view, &big.view).hit);
  // Identical tensors of every kind are unchanged, also with rtol 0 and atol 0.
  const GivenParams exact = {{"rtol", 0.0}, {"atol", 0.0}};
  auto h = f16({0.5, -2, 65504});
  auto b = bf16({1, 3});
  auto i = i64({-(int64_t{1} << 62), 3});
  auto flags = boolean({1, 0});
  for (const TensorView* t : {&h.view, &b.view, &i.view, &flags.view}) {
    EXPECT_TRUE(check(make("WNC", exact), *t, t).hit) << dtype_name(t->dtype);
    EXPECT_TRUE(check(make("WNC", {}), *t, t).hit) << dtype_name(t->dtype);
  }
  auto h2 = f16({0.5, -2, 65472});  // one half step below 65504
  EXPECT_FALSE(check(make("WNC", exact), h2.view, &h.view).hit);
  EXPECT_TRUE(check(make("WNC", {{"rtol", 0.001}, {"atol", 0.0}}), h2.view, &h.view).hit);
}

TEST(EvaluateNotChanged, SeveralTolerancesShareOneNeeds) {
  Watchpoint loose = make("WNC", {{"rtol", 0.5}});
  Watchpoint tight = make("WNC", {});
  Watchpoint again = make("NOT_CHANGED", {{"rtol", 0.5}});
  Watchpoint ratio = make("WCL", {});
  Needs needs;
  for (const Watchpoint* wp : {&loose, &tight, &again, &ratio}) needs.add(*wp);
  EXPECT_TRUE(needs.previous);
  ASSERT_EQ(needs.tolerances.size(), 2u);
  auto p = f64({2, 4});
  auto c = f64({2.5, 4});
  TensorFacts f = facts_of(needs, c.view, &p.view);
  EXPECT_TRUE(evaluate(loose, needs, f).hit);
  EXPECT_FALSE(evaluate(tight, needs, f).hit);
  EXPECT_TRUE(evaluate(again, needs, f).hit);
  Verdict vr = evaluate(ratio, needs, f);
  EXPECT_EQ(outcome(vr, "abs_mean_update_ratio_gt").actual, 0.25 / (3 + 1e-9));
  EXPECT_FALSE(vr.hit);  // 0.0833... against the default 0.1
}

// ---- errors ------------------------------------------------------------------------------------

TEST(EvaluateErrors, PreviousMissingNoHistoryAndSizeDiffers) {
  auto c = f64({1, 2});
  for (std::string_view cond : {"WCL", "WCS", "WNC"}) {
    SCOPED_TRACE(std::string(cond));
    Watchpoint wp = make(cond, {});
    Verdict v = check(wp, c.view, nullptr, Previous::NotFound);
    EXPECT_FALSE(v.hit);
    EXPECT_EQ(v.error_code, static_cast<uint32_t>(kErrorNoPrevious));
    EXPECT_EQ(v.reason, "no previous");
    v = check(wp, c.view, nullptr, Previous::NoIteration);
    EXPECT_EQ(v.error_code, static_cast<uint32_t>(kErrorNoPrevious));
    v = check(wp, c.view, nullptr, Previous::NoHistory);
    EXPECT_FALSE(v.hit);
    EXPECT_EQ(v.error_code, static_cast<uint32_t>(kErrorNoHistory));
    auto other = f64({1, 2, 3});
    v = check(wp, c.view, &other.view);
    EXPECT_FALSE(v.hit);
    EXPECT_EQ(v.error_code, static_cast<uint32_t>(kErrorPreviousSize));
    EXPECT_THAT(v.reason, HasSubstr("3 elements"));
    for (const ParamOutcome& o : v.params) EXPECT_FALSE(o.actual);
  }
}

TEST(EvaluateErrors, NoHistoryOnlyConcernsTheChangeConditions) {
  // §7: error 16 applies to 18-20; other watchpoints on the same tensor are evaluated.
  Watchpoint tl = make("TL", {{"max_gt", 1.0}});
  Watchpoint wcl = make("WCL", {});
  Needs needs;
  needs.add(tl);
  needs.add(wcl);
  auto t = f64({0, 2});
  TensorFacts f = facts_of(needs, t.view, nullptr, Previous::NoHistory);
  Verdict v = evaluate(tl, needs, f);
  EXPECT_TRUE(v.hit);
  EXPECT_EQ(v.error_code, 0u);
  v = evaluate(wcl, needs, f);
  EXPECT_EQ(v.error_code, static_cast<uint32_t>(kErrorNoHistory));
}

TEST(EvaluateErrors, NanAndInfBlockStatisticConditions) {
  auto with_nan = f64({1, kNan, 5});
  auto with_inf = f32({1, -std::numeric_limits<float>::infinity(), 5});
  auto with_both = f16({1, kNan, kInf});
  auto prev3 = f64({1, 1, 1});
  // Parameters that would hit on the finite elements.
  const std::vector<std::pair<std::string, GivenParams>> conditions = {
      {"MAX_GT", {{"param", -1e300}}},
      {"MIN_LT", {{"param", 1e300}}},
      {"MEAN_GT", {{"param", -1e300}}},
      {"SD_LT", {{"param", 1e300}}},
      {"MAX_MIN_LT", {{"param", 1e300}}},
      {"TL", {{"max_gt", -1e300}, {"abs_mean_gt", 0.0}}},
      {"TS", {{"min_lt", 1e300}}},
      {"TZ", {{"zero_percentage_ge", 0.0}}},
      {"WI", {}},
      {"TR",
       {{"range_start_inclusive", -1e300},
        {"range_end_inclusive", 1e300},
        {"range_percentage_gt", 0.0},
        {"max_min_lt", 1e300}}},
      {"WCL", {{"abs_mean_update_ratio_gt", 0.0}}},
      {"WCS", {{"abs_mean_update_ratio_lt", 1e300}}},
      {"WNC", {{"rtol", 1e300}}},
  };
  for (const auto& [cond, given] : conditions) {
    SCOPED_TRACE(cond);
    Watchpoint wp = make(cond, given);
    for (auto [t, code] :
         {std::pair{&with_nan, 1u}, std::pair{&with_inf, 2u}, std::pair{&with_both, 3u}}) {
      Verdict v = check(wp, t->view, &prev3.view);
      EXPECT_FALSE(v.hit) << dtype_name(t->view.dtype);
      EXPECT_EQ(v.error_code, code) << dtype_name(t->view.dtype);
      for (const ParamOutcome& o : v.params) EXPECT_FALSE(o.hit || o.actual) << o.spec->name;
    }
  }
  // Without a previous tensor a change condition gets both bits (§2.3 steps 1 and 2).
  Verdict v = check(make("WCL", {}), with_nan.view, nullptr, Previous::NotFound);
  EXPECT_EQ(v.error_code, static_cast<uint32_t>(kErrorNan | kErrorNoPrevious));
}

TEST(EvaluateErrors, CountConditionsClearTheErrorCode) {
  auto clean = f64({0, 1});
  auto with_nan = f16({1, kNan});
  auto with_inf = f64({1, -kInf});
  auto with_both = bf16({kNan, kInf, 1});
  struct Case {
    std::string_view cond;
    bool clean, nan, inf, both;
  };
  for (const Case& c :
       {Case{"HAS_NAN", false, true, false, true}, Case{"0", false, true, false, true},
        Case{"HAS_INF", false, false, true, true}, Case{"1", false, false, true, true},
        Case{"GENERAL_OVERFLOW", false, true, true, true}, Case{"TO", false, true, true, true},
        Case{"WO", false, true, true, true}, Case{"GE", false, true, true, true}}) {
    SCOPED_TRACE(std::string(c.cond));
    Watchpoint wp = make(c.cond, {});
    for (auto [t, want] : {std::pair{&clean, c.clean}, std::pair{&with_nan, c.nan},
                           std::pair{&with_inf, c.inf}, std::pair{&with_both, c.both}}) {
      Verdict v = check(wp, t->view);
      EXPECT_EQ(v.hit, want) << dtype_name(t->view.dtype);
      EXPECT_EQ(v.error_code, 0u);
    }
  }
}

TEST(EvaluateErrors, OperatorOverflowFollowsTheOverflowFiles) {
  Watchpoint wp = make("OO", {});
  Needs needs;
  needs.add(wp);
  EXPECT_FALSE(needs.statistics);
  auto t = f16({1, kNan});
  TensorFacts f = facts_of(needs, t.view);
  EXPECT_FALSE(evaluate(wp, needs, f).hit);
  f.overflow = true;
  Verdict v = evaluate(wp, needs, f);
  EXPECT_TRUE(v.hit);
  EXPECT_EQ(v.error_code, 0u);
}

TEST(EvaluateErrors, EmptyTensorHasNoValue) {
  OwnedTensor empty = tensor_of<float>(DType::Float32, {}, {0});
  for (std::string_view cond : {"TL", "TZ", "HAS_NAN", "TO", "WCL", "WNC", "MAX_GT"}) {
    GivenParams given;
    if (cond == "TL") given = {{"max_gt", 0.0}};
    if (cond == "MAX_GT") given = {{"param", 0.0}};
    Verdict v = check(make(cond, given), empty.view);
    EXPECT_FALSE(v.hit) << cond;
    EXPECT_EQ(v.error_code, static_cast<uint32_t>(kErrorNoValue)) << cond;
    EXPECT_EQ(v.reason, "the tensor is empty") << cond;
  }
  OwnedTensor empty2d = tensor_of<int32_t>(DType::Int32, {}, {3, 0});
  EXPECT_EQ(check(make("TZ", {}), empty2d.view).error_code, static_cast<uint32_t>(kErrorNoValue));
}

// A statistic.csv row: no abs_mean, no SD, no elements for ranges or previous values.
TensorFacts csv_facts(double max) {
  TensorFacts f;
  f.source = "statistic.csv";
  f.count = 4;
  f.nan = 0;
  f.inf = 0;
  f.zero = 1;
  f.min = -1;
  f.max = max;
  f.mean = 0.5;
  return f;
}

TEST(EvaluateStatisticCsv, MissingAbsMeanIsNoValueUnlessAnotherParameterHits) {
  Watchpoint wp = make("TL", {{"abs_mean_gt", 1.0}, {"max_gt", 10.0}});
  Needs needs;
  needs.add(wp);
  Verdict v = evaluate(wp, needs, csv_facts(5));
  EXPECT_FALSE(v.hit);
  EXPECT_EQ(v.error_code, static_cast<uint32_t>(kErrorNoValue));
  EXPECT_EQ(v.reason, "statistic.csv has no abs_mean");
  EXPECT_EQ(outcome(v, "max_gt").actual, 5.0);
  EXPECT_FALSE(outcome(v, "abs_mean_gt").actual);
  // max decides.
  v = evaluate(wp, needs, csv_facts(20));
  EXPECT_TRUE(v.hit);
  EXPECT_EQ(v.error_code, 0u);
  EXPECT_TRUE(outcome(v, "max_gt").hit);
  // Boundary on a csv max: strict.
  v = evaluate(make("TL", {{"max_gt", 20.0}}), needs, csv_facts(20));
  EXPECT_FALSE(v.hit);
  EXPECT_EQ(v.error_code, 0u);
  // zero percentage from the zero count: 1 of 4.
  Watchpoint tz = make("TZ", {{"zero_percentage_ge", 25.0}});
  v = evaluate(tz, needs, csv_facts(1));
  EXPECT_TRUE(v.hit);
  EXPECT_EQ(outcome(v, "zero_percentage_ge").actual, 25.0);
}

TEST(EvaluateStatisticCsv, WhatARowCannotDecide) {
  Needs needs;
  Watchpoint sd = make("SD_GT", {{"param", 0.0}});
  Verdict v = evaluate(sd, needs, csv_facts(1));
  EXPECT_EQ(v.error_code, static_cast<uint32_t>(kErrorNoValue));
  EXPECT_THAT(v.reason, HasSubstr("standard deviation"));
  Watchpoint range = make(
      "TR",
      {{"range_start_inclusive", 0.0}, {"range_end_inclusive", 1.0}, {"range_percentage_gt", 1.0}});
  needs.add(range);
  v = evaluate(range, needs, csv_facts(1));
  EXPECT_EQ(v.error_code, static_cast<uint32_t>(kErrorNoValue));
  EXPECT_THAT(v.reason, HasSubstr("statistic.csv"));
  Watchpoint wcl = make("WCL", {});
  v = evaluate(wcl, needs, csv_facts(1));
  EXPECT_EQ(v.error_code, static_cast<uint32_t>(kErrorNoValue));
  EXPECT_EQ(v.reason, "statistic.csv holds no previous values to compare");
  // A row without NaN / Inf counts cannot tell whether a statistic may be used.
  TensorFacts no_counts = csv_facts(1);
  no_counts.nan.reset();
  v = evaluate(make("TL", {{"max_gt", 0.0}}), needs, no_counts);
  EXPECT_FALSE(v.hit);
  EXPECT_EQ(v.error_code, static_cast<uint32_t>(kErrorNoValue));
  EXPECT_EQ(v.reason, "statistic.csv has no NaN and Inf counts");
  // NaN counted in the row: error 1 as for a tensor.
  TensorFacts nan_row = csv_facts(1);
  nan_row.nan = 2;
  v = evaluate(make("TL", {{"max_gt", 0.0}}), needs, nan_row);
  EXPECT_FALSE(v.hit);
  EXPECT_EQ(v.error_code, static_cast<uint32_t>(kErrorNan));
}

TEST(Evaluate, ErrorNames) {
  EXPECT_TRUE(error_names(0).empty());
  EXPECT_EQ(error_names(3), (std::vector<std::string_view>{"nan", "inf"}));
  EXPECT_EQ(error_names(127),
            (std::vector<std::string_view>{"nan", "inf", "no_prev_tensor", "out_of_mem",
                                           "no_history", "no_value", "prev_size_differs"}));
  EXPECT_EQ(kErrorNan, 1u);
  EXPECT_EQ(kErrorInf, 2u);
  EXPECT_EQ(kErrorNoPrevious, 4u);
  EXPECT_EQ(kErrorOutOfMemory, 8u);
  EXPECT_EQ(kErrorNoHistory, 16u);
  EXPECT_EQ(kErrorNoValue, 32u);
  EXPECT_EQ(kErrorPreviousSize, 64u);
}

TEST(Evaluate, NeedsFollowTheWatchpoints) {
  Needs needs;
  needs.add(make("TO", {}));
  needs.add(make("HAS_NAN", {}));
  EXPECT_FALSE(needs.statistics);
  EXPECT_FALSE(needs.previous);
  needs.add(make("TR", {{"max_min_gt", 1.0}}));  // max - min: statistics, no range count
  EXPECT_TRUE(needs.statistics);
  EXPECT_TRUE(needs.ranges.empty());
  needs.add(make("WCS", {}));
  EXPECT_TRUE(needs.previous);
  EXPECT_TRUE(needs.tolerances.empty());
}

}  // namespace
}  // namespace msdt::watch
