#include "tensor/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

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
  auto h8 = tensor_of<uint8_t>(DType::HiFloat8, {1, 2, 3});
  s = compute_stats(h8.view);
  EXPECT_EQ(s.count, 3u);
  EXPECT_FALSE(s.max);
}

TEST(Stats, ShortDataIsNotOverRead) {
  auto t = tensor_of<float>(DType::Float32, {1, 2, 3});
  t.view.shape = {10};
  TensorStats s = compute_stats(t.view);
  EXPECT_EQ(s.count, 10u);
  EXPECT_EQ(s.positive, 3u);
  EXPECT_EQ(s.max, 3.0);
}

}  // namespace
}  // namespace msdt
