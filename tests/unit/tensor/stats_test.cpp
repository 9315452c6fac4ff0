#include "tensor/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "support/tensor_builder.h"

namespace msdt {
namespace {

using Owned = testing::OwnedTensor;
using testing::tensor_of;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// The definitions in stats.h, computed the obvious way: two passes in long double.
TensorStats reference(const std::vector<double>& v) {
  TensorStats s;
  s.count = v.size();
  long double sum = 0, abs_sum = 0, sq = 0;
  uint64_t finite = 0;
  for (double x : v) {
    if (std::isnan(x)) {
      ++s.nan;
      continue;
    }
    s.min = s.min ? std::min(*s.min, x) : x;
    s.max = s.max ? std::max(*s.max, x) : x;
    s.pos_inf += x == kInf;
    s.neg_inf += x == -kInf;
    s.zero += x == 0;
    s.negative += x < 0;
    s.positive += x > 0;
    if (std::isinf(x)) continue;
    ++finite;
    sum += x;
    abs_sum += std::fabs(x);
    sq += static_cast<long double>(x) * x;
  }
  if (finite == 0) return s;
  long double mean = sum / finite, m2 = 0;
  for (double x : v)
    if (std::isfinite(x)) m2 += (x - mean) * (x - mean);
  s.mean = static_cast<double>(mean);
  s.std = static_cast<double>(std::sqrt(m2 / finite));
  s.abs_mean = static_cast<double>(abs_sum / finite);
  s.l2norm = static_cast<double>(std::sqrt(sq));
  return s;
}

void expect_close(std::optional<double> got, std::optional<double> want, const char* what,
                  double rel = 1e-12) {
  ASSERT_EQ(got.has_value(), want.has_value()) << what;
  if (!want) return;
  if (std::isinf(*want) || *want == 0) {
    EXPECT_EQ(*got, *want) << what;
    return;
  }
  EXPECT_NEAR(*got, *want, std::fabs(*want) * rel) << what;
}

void expect_stats(const TensorStats& got, const TensorStats& want, double rel = 1e-12) {
  EXPECT_EQ(got.count, want.count);
  EXPECT_EQ(got.nan, want.nan);
  EXPECT_EQ(got.pos_inf, want.pos_inf);
  EXPECT_EQ(got.neg_inf, want.neg_inf);
  EXPECT_EQ(got.zero, want.zero);
  EXPECT_EQ(got.negative, want.negative);
  EXPECT_EQ(got.positive, want.positive);
  EXPECT_EQ(got.min, want.min);
  EXPECT_EQ(got.max, want.max);
  expect_close(got.mean, want.mean, "mean", rel);
  expect_close(got.std, want.std, "std", rel);
  expect_close(got.abs_mean, want.abs_mean, "abs_mean", rel);
  expect_close(got.l2norm, want.l2norm, "l2norm", rel);
}

TEST(Stats, Float32Specials) {
  std::vector<float> v = {1.5f,
                          -2.0f,
                          0.0f,
                          -0.0f,
                          static_cast<float>(kNan),
                          static_cast<float>(kInf),
                          -static_cast<float>(kInf),
                          3.0f,
                          static_cast<float>(kNan)};
  auto t = tensor_of(DType::Float32, v);
  TensorStats s = compute_stats(t.view);
  EXPECT_EQ(s.count, 9u);
  EXPECT_EQ(s.nan, 2u);
  EXPECT_EQ(s.pos_inf, 1u);
  EXPECT_EQ(s.neg_inf, 1u);
  EXPECT_EQ(s.zero, 2u);
  EXPECT_EQ(s.negative, 2u);  // -2 and -inf; -0.0 is zero, not negative
  EXPECT_EQ(s.positive, 3u);
  EXPECT_EQ(s.min, -kInf);
  EXPECT_EQ(s.max, kInf);
  EXPECT_DOUBLE_EQ(*s.mean, 2.5 / 5);
  EXPECT_DOUBLE_EQ(*s.abs_mean, 6.5 / 5);
  EXPECT_DOUBLE_EQ(*s.l2norm, std::sqrt(2.25 + 4 + 9));
  double mean = 0.5;
  double var = ((1.5 - mean) * (1.5 - mean) + (-2 - mean) * (-2 - mean) + 2 * mean * mean +
                (3 - mean) * (3 - mean)) /
               5;
  EXPECT_DOUBLE_EQ(*s.std, std::sqrt(var));
}

TEST(Stats, EmptyAndZeroD) {
  auto empty = tensor_of<float>(DType::Float32, {}, {0, 3});
  TensorStats s = compute_stats(empty.view);
  EXPECT_EQ(s.count, 0u);
  EXPECT_FALSE(s.min || s.max || s.mean || s.std || s.abs_mean || s.l2norm);
  EXPECT_EQ(s.nan + s.zero + s.positive + s.negative, 0u);

  auto scalar = tensor_of<double>(DType::Float64, {-4.0});
  ASSERT_TRUE(scalar.view.shape.empty());
  s = compute_stats(scalar.view);
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.min, -4.0);
  EXPECT_EQ(s.max, -4.0);
  EXPECT_EQ(s.mean, -4.0);
  EXPECT_EQ(s.std, 0.0);
  EXPECT_EQ(s.abs_mean, 4.0);
  EXPECT_EQ(s.l2norm, 4.0);
  EXPECT_EQ(s.negative, 1u);
}

TEST(Stats, AllNanAndAllInf) {
  auto nan = tensor_of<float>(DType::Float32, {NAN, NAN, NAN});
  TensorStats s = compute_stats(nan.view);
  EXPECT_EQ(s.nan, 3u);
  EXPECT_FALSE(s.min || s.max || s.mean || s.std || s.abs_mean || s.l2norm);
  auto inf = tensor_of<float>(DType::Float32, {INFINITY, INFINITY});
  s = compute_stats(inf.view);
  EXPECT_EQ(s.min, kInf);
  EXPECT_EQ(s.max, kInf);
  EXPECT_EQ(s.pos_inf, 2u);
  EXPECT_EQ(s.positive, 2u);
  EXPECT_FALSE(s.mean || s.std || s.abs_mean || s.l2norm);
}

TEST(Stats, LargeOffsetKeepsPrecision) {
  // A naive sum-of-squares formula loses every digit of the variance here.
  std::vector<double> v;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> noise(-1, 1);
  for (int i = 0; i < 100000; ++i) v.push_back(1e9 + noise(rng));
  auto t = tensor_of(DType::Float64, v);
  expect_stats(compute_stats(t.view), reference(v), 1e-9);
}

TEST(Stats, HugeFloat64) {
  std::vector<double> v = {1e300, -1e300, 1e300, -1e300};
  auto t = tensor_of(DType::Float64, v);
  TensorStats s = compute_stats(t.view);
  EXPECT_EQ(s.mean, 0.0);
  EXPECT_DOUBLE_EQ(*s.std, 1e300);
  EXPECT_DOUBLE_EQ(*s.l2norm, 2e300);
  EXPECT_DOUBLE_EQ(*s.abs_mean, 1e300);
  std::vector<double> max_values = {std::numeric_limits<double>::max(),
                                    std::numeric_limits<double>::max()};
  auto m = tensor_of(DType::Float64, max_values);
  s = compute_stats(m.view);
  EXPECT_EQ(s.mean, std::numeric_limits<double>::max());
  EXPECT_EQ(s.std, 0.0);
  EXPECT_EQ(s.l2norm, kInf);  // the true value exceeds the double range
}

TEST(Stats, ManyBlocksMatchReference) {
  std::mt19937 rng(42);
  std::normal_distribution<float> normal(3.0f, 10.0f);
  std::vector<float> v(100003);
  for (auto& x : v) x = normal(rng);
  v[5] = NAN;
  v[70000] = -INFINITY;
  v[99999] = 0.0f;
  auto t = tensor_of(DType::Float32, v);
  std::vector<double> d(v.begin(), v.end());
  expect_stats(compute_stats(t.view), reference(d), 1e-10);
}

TEST(Stats, Integers) {
  auto i8 = tensor_of<int8_t>(DType::Int8, {-128, 127, 0, -1});
  expect_stats(compute_stats(i8.view), reference({-128, 127, 0, -1}));
  auto u64 = tensor_of<uint64_t>(DType::UInt64, {~uint64_t{0}, 1});
  TensorStats s = compute_stats(u64.view);
  EXPECT_EQ(s.max, 18446744073709551615.0);
  EXPECT_EQ(s.min, 1.0);
  auto i64 = tensor_of<int64_t>(DType::Int64, {std::numeric_limits<int64_t>::min(), 5});
  s = compute_stats(i64.view);
  EXPECT_EQ(s.min, -9223372036854775808.0);
  auto u16 = tensor_of<uint16_t>(DType::UInt16, {65535, 0, 2});
  expect_stats(compute_stats(u16.view), reference({65535, 0, 2}));
  auto i32 = tensor_of<int32_t>(DType::Int32, {-5, 5, 10});
  expect_stats(compute_stats(i32.view), reference({-5, 5, 10}));
}

TEST(Stats, Bool) {
  auto b = tensor_of<uint8_t>(DType::Bool, {1, 0, 1, 1, 2});
  TensorStats s = compute_stats(b.view);
  EXPECT_EQ(s.min, 0.0);
  EXPECT_EQ(s.max, 1.0);
  EXPECT_EQ(s.zero, 1u);
  EXPECT_EQ(s.positive, 4u);
  EXPECT_DOUBLE_EQ(*s.mean, 0.8);
}

TEST(Stats, HalfBfloatFloat8) {
  // 1.0, -2.0, +inf, NaN, -0.0
  auto f16 = tensor_of<uint16_t>(DType::Float16, {0x3C00, 0xC000, 0x7C00, 0x7E00, 0x8000});
  expect_stats(compute_stats(f16.view), reference({1.0, -2.0, kInf, kNan, -0.0}));
  auto bf16 = tensor_of<uint16_t>(DType::BFloat16, {0x3F80, 0xC000, 0x7F80, 0x7FC0, 0x8000});
  expect_stats(compute_stats(bf16.view), reference({1.0, -2.0, kInf, kNan, -0.0}));
  auto e4m3 = tensor_of<uint8_t>(DType::Float8E4M3FN, {0x38, 0xC0, 0x7F, 0x7E, 0x80});
  expect_stats(compute_stats(e4m3.view), reference({1.0, -2.0, kNan, 448.0, -0.0}));
  auto e5m2 = tensor_of<uint8_t>(DType::Float8E5M2, {0x3C, 0xC0, 0x7C, 0x7F, 0x80});
  expect_stats(compute_stats(e5m2.view), reference({1.0, -2.0, kInf, kNan, -0.0}));
}

TEST(Stats, PackedTypes) {
  // int4: low nibble first, sign-extended: 0xF7 -> 7, -1; 0x08 -> -8, 0; last nibble unused.
  auto i4 = tensor_of<uint8_t>(DType::Int4, {0xF7, 0x08, 0x53}, {5});
  expect_stats(compute_stats(i4.view), reference({7, -1, -8, 0, 3}));
  // uint1: most significant bit first, as np.unpackbits.
  auto u1 = tensor_of<uint8_t>(DType::UInt1, {0xA0, 0x80}, {10});
  expect_stats(compute_stats(u1.view), reference({1, 0, 1, 0, 0, 0, 0, 0, 1, 0}));
  // A packed tensor spanning several decode blocks.
  std::vector<uint8_t> bytes(5000, 0x1F);  // 15 -> -1 then 1
  auto big = tensor_of(DType::Int4, bytes, {9999});
  TensorStats s = compute_stats(big.view);
  EXPECT_EQ(s.negative, 5000u);
  EXPECT_EQ(s.positive, 4999u);
}

TEST(Stats, ComplexAndUndecodedCountOnly) {
  auto c = tensor_of<float>(DType::Complex64, {1, 2, 3, 4}, {2});
  TensorStats s = compute_stats(c.view);
  EXPECT_EQ(s.count, 2u);
  EXPECT_FALSE(s.min || s.mean);
  EXPECT_EQ(s.positive, 0u);
  auto h4 = tensor_of<uint8_t>(DType::HiFloat4, {0x21, 0x43}, {4});
  s = compute_stats(h4.view);
  EXPECT_EQ(s.count, 4u);
  EXPECT_FALSE(s.max);
}

// Every code point of the small float types decoded by element_convert's scalar decoders (checked
// against NumPy in their own tests) gives the statistics of the decoded values; packed codes are
// low bits first, as the dump spec stores them.
TEST(Stats, SmallFloatTypesAreDecoded) {
  struct Case {
    DType dtype;
    unsigned bits;
    float (*decode)(uint8_t);
  };
  for (Case c : {Case{DType::HiFloat8, 8, hifloat8_to_float},
                 Case{DType::Float6E2M3, 6, float6_e2m3_to_float},
                 Case{DType::Float6E3M2, 6, float6_e3m2_to_float},
                 Case{DType::Float4E1M2, 4, float4_e1m2_to_float},
                 Case{DType::Float4E2M1, 4, float4_e2m1_to_float}}) {
    const unsigned codes = 1u << c.bits;
    std::vector<double> decoded;
    std::vector<uint8_t> packed((codes * c.bits + 7) / 8, 0);
    for (unsigned code = 0; code < codes; ++code) {
      decoded.push_back(c.decode(static_cast<uint8_t>(code)));
      for (unsigned b = 0; b < c.bits; ++b)
        if ((code >> b) & 1u) {
          size_t bit = size_t{code} * c.bits + b;
          packed[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
        }
    }
    auto t = tensor_of(c.dtype, packed, {codes});
    SCOPED_TRACE(dtype_name(c.dtype));
    expect_stats(compute_stats(t.view), reference(decoded));
  }
}

TEST(Stats, ShortDataIsNotOverRead) {
  auto t = tensor_of<float>(DType::Float32, {1, 2, 3});
  t.view.shape = {10};
  TensorStats s = compute_stats(t.view);
  EXPECT_EQ(s.count, 10u);
  EXPECT_EQ(s.positive, 3u);
  EXPECT_EQ(s.max, 3.0);
}

// --- accuracy: the cases of issue 5 §4 "Wrong numbers" ---------------------------------------

TEST(StatsAccuracy, Float64LargeValuesThatCancel) {
  auto t = tensor_of<double>(DType::Float64, {1e20, -1e20, 1});
  TensorStats s = compute_stats(t.view);
  EXPECT_DOUBLE_EQ(*s.mean, 1.0 / 3);  // the old shifted sum gave 0
  // std: deviations 1e20 - 1/3, -1e20 - 1/3, 2/3: sqrt((2e40 + 2/3) / 3) to double precision.
  EXPECT_DOUBLE_EQ(*s.std, std::sqrt(2e40 / 3));
}

TEST(StatsAccuracy, Float32LargeValuesThatCancel) {
  auto t = tensor_of<float>(DType::Float32, {1, -2, 0.5f, 3e38f, -3e38f});
  TensorStats s = compute_stats(t.view);
  // The float32 3e38 and -3e38 cancel exactly; the rest sums to -0.5.
  EXPECT_DOUBLE_EQ(*s.mean, -0.1);  // the old code gave 1.0
  double big = static_cast<double>(3e38f);
  EXPECT_DOUBLE_EQ(*s.abs_mean, (3.5 + 2 * big) / 5);
}

TEST(StatsAccuracy, Bfloat16MaxValuesThatCancel) {
  // ±max bfloat16 (0x7F7F = 3.3895e38) twice each, with small values summing to 2.5.
  auto t = tensor_of<uint16_t>(DType::BFloat16, {0x7F7F, 0x3F80 /*1*/, 0xFF7F, 0x3FC0 /*1.5*/,
                                                 0xFF7F, 0x7F7F, 0xBF00 /*-0.5*/, 0x3F00 /*0.5*/});
  TensorStats s = compute_stats(t.view);
  EXPECT_DOUBLE_EQ(*s.mean, 2.5 / 8);
  double max = static_cast<double>(bfloat16_to_float(0x7F7F));
  EXPECT_DOUBLE_EQ(*s.l2norm, std::sqrt(4 * max * max + 1 + 2.25 + 0.25 + 0.25));
  EXPECT_EQ(s.max, max);
}

TEST(StatsAccuracy, Int32Extremes) {
  constexpr int32_t lo = std::numeric_limits<int32_t>::min(),
                    hi = std::numeric_limits<int32_t>::max();
  std::vector<int32_t> v = {lo, hi, hi, lo, 0, 1};
  auto t = tensor_of(DType::Int32, v);
  TensorStats s = compute_stats(t.view);
  // Σx = -1 exactly, so mean = -1/6; the variance from exact integer sums.
  EXPECT_DOUBLE_EQ(*s.mean, -1.0 / 6);
  long double sum_sq = 0;
  for (int32_t x : v) sum_sq += static_cast<long double>(x) * x;  // exact: < 2^64
  long double var = sum_sq / 6 - (1.0L / 36);
  EXPECT_DOUBLE_EQ(*s.std, static_cast<double>(std::sqrt(var)));
  EXPECT_EQ(s.exact_min, ExactInteger{int64_t{lo}});
  EXPECT_EQ(s.exact_max, ExactInteger{int64_t{hi}});
}

TEST(StatsAccuracy, StdOfLargeOffsetWithOneZero) {
  // 1e4 + N(0,1) with a 0 first; NumPy's two-pass np.std is within 1e-15 here.
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal(0, 1);
  std::vector<double> v = {0};
  for (int i = 0; i < 100000; ++i) v.push_back(1e4 + normal(rng));
  for (DType dtype : {DType::Float64, DType::Float32}) {
    std::vector<double> values = v;
    if (dtype == DType::Float32)
      for (double& x : values) x = static_cast<float>(x);
    TensorStats want = reference(values);
    Owned t = dtype == DType::Float64
                  ? tensor_of(dtype, values)
                  : tensor_of(dtype, std::vector<float>(values.begin(), values.end()));
    TensorStats s = compute_stats(t.view);
    EXPECT_NEAR(*s.std, *want.std, 1e-15 * *want.std) << dtype_name(dtype);
    EXPECT_NEAR(*s.mean, *want.mean, 1e-15 * *want.mean) << dtype_name(dtype);
    EXPECT_NEAR(*s.l2norm, *want.l2norm, 1e-15 * *want.l2norm) << dtype_name(dtype);
    EXPECT_NEAR(*s.abs_mean, *want.abs_mean, 1e-15 * *want.abs_mean) << dtype_name(dtype);
  }
}

TEST(StatsAccuracy, Int64AndUint64AreExact) {
  constexpr int64_t imax = std::numeric_limits<int64_t>::max();
  auto i64 =
      tensor_of<int64_t>(DType::Int64, {imax, -imax, 3, std::numeric_limits<int64_t>::min() + 1});
  TensorStats s = compute_stats(i64.view);
  EXPECT_EQ(s.exact_max, ExactInteger{imax});
  EXPECT_EQ(s.exact_min, ExactInteger{-imax});
  EXPECT_DOUBLE_EQ(*s.mean, 3.0 / 4 - static_cast<double>(imax) / 4);

  // Mean exactly 1: the sums of 2^63-size values must not round.
  auto cancel = tensor_of<int64_t>(DType::Int64, {imax, -imax, 3});
  EXPECT_EQ(compute_stats(cancel.view).mean, 1.0);

  constexpr uint64_t two53 = uint64_t{1} << 53;
  auto u64 = tensor_of<uint64_t>(DType::UInt64, {two53 + 3, two53 + 1, ~uint64_t{0}, two53 + 1});
  s = compute_stats(u64.view);
  EXPECT_EQ(s.exact_min, ExactInteger{two53 + 1});
  EXPECT_EQ(s.exact_max, ExactInteger{~uint64_t{0}});
  auto close = tensor_of<uint64_t>(DType::UInt64, {two53 + 1, two53 + 3, two53 + 5});
  s = compute_stats(close.view);
  EXPECT_DOUBLE_EQ(*s.std, std::sqrt(8.0 / 3));  // through doubles these would be 2^53, +4, +4
  EXPECT_EQ(s.exact_min, ExactInteger{two53 + 1});

  auto same = tensor_of<int64_t>(DType::Int64, {(int64_t{1} << 62) + 1, (int64_t{1} << 62) + 1});
  EXPECT_EQ(compute_stats(same.view).std, 0.0);
  auto small = tensor_of<int8_t>(DType::Int8, {-128, 5});
  EXPECT_EQ(compute_stats(small.view).exact_min, ExactInteger{int64_t{-128}});
  auto flags = tensor_of<uint8_t>(DType::Bool, {0, 3});
  EXPECT_EQ(compute_stats(flags.view).exact_max, ExactInteger{int64_t{1}});
  auto f32 = tensor_of<float>(DType::Float32, {1, 2});
  EXPECT_FALSE(compute_stats(f32.view).exact_min);
}

TEST(StatsAccuracy, Float64SquaresBeyondDoubleRange) {
  // Squares of 1e200 overflow a double; l2norm and std still come out right.
  auto t = tensor_of<double>(DType::Float64, {1e200, -1e200, 3e200});
  TensorStats s = compute_stats(t.view);
  EXPECT_DOUBLE_EQ(*s.l2norm, std::sqrt(11.0) * 1e200);
  EXPECT_DOUBLE_EQ(*s.mean, 1e200);
  EXPECT_DOUBLE_EQ(*s.std, std::sqrt(8.0 / 3) * 1e200);
}

TEST(StatsAccuracy, Float16SumsAreExact) {
  // float16 blocks are summed without TwoSum (every value is a multiple of 2^-24 below 2^16, so
  // a block's double sum is exact): ±max cancel and the smallest subnormal survives, at every
  // position of a block of 1024 and across blocks.
  std::vector<uint16_t> v(3000, 0x3C00);                   // 1.0
  for (size_t i = 0; i < v.size(); i += 2) v[i] = 0x7BFF;  // 65504
  for (size_t i = 1; i < v.size(); i += 2) v[i] = 0xFBFF;  // -65504
  v[1029] = 0x0001;                                        // 2^-24 instead of a -65504
  auto t = tensor_of(DType::Float16, v);
  TensorStats s = compute_stats(t.view);
  EXPECT_DOUBLE_EQ(*s.mean, (65504 + std::ldexp(1.0, -24)) / 3000);
}

// Chan's update, the one home of merging second moments: two parts merged give the two-pass second
// moment of the whole, whatever the split, and an empty part changes nothing.
TEST(MergedM2, EqualsTheTwoPassMomentOfTheWhole) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(1000, 3);
  std::vector<double> v(1000);
  for (double& x : v) x = normal(rng);
  auto moments = [&](size_t from, size_t to) {
    long double sum = 0, m2 = 0;
    for (size_t i = from; i < to; ++i) sum += v[i];
    const long double mean = to > from ? sum / (to - from) : 0;
    for (size_t i = from; i < to; ++i) m2 += (v[i] - mean) * (v[i] - mean);
    return std::pair{mean, m2};
  };
  const long double whole = moments(0, v.size()).second;
  for (size_t split : {size_t{1}, size_t{10}, size_t{500}, size_t{999}}) {
    auto [mean_a, m2_a] = moments(0, split);
    auto [mean_b, m2_b] = moments(split, v.size());
    const long double na = split, nb = v.size() - split;
    long double merged = merged_m2(na, mean_a, m2_a, nb, mean_b, m2_b);
    EXPECT_NEAR(static_cast<double>(merged / whole), 1.0, 1e-15) << split;
    double merged_d = merged_m2<double>(static_cast<double>(na), static_cast<double>(mean_a),
                                        static_cast<double>(m2_a), static_cast<double>(nb),
                                        static_cast<double>(mean_b), static_cast<double>(m2_b));
    EXPECT_NEAR(merged_d / static_cast<double>(whole), 1.0, 1e-12) << split;
  }
  EXPECT_EQ(merged_m2(0.0, 0.0, 0.0, 4.0, 2.0, 5.0), 5.0);
  EXPECT_EQ(merged_m2(4.0, 2.0, 5.0, 0.0, 0.0, 0.0), 5.0);
}

}  // namespace
}  // namespace msdt
