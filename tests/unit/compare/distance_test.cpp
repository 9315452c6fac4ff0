#include "compare/distance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "compare/metrics.h"
#include "support/tensor_builder.h"

namespace msdt::compare {
namespace {

using msdt::testing::tensor_of;

// The same quantities through compare_tensors, the general kernel, as the reference.
void expect_like_compare_tensors(const TensorView& a, const TensorView& b, unsigned jobs) {
  std::optional<DistanceSums> sums = distance_sums(a, b, jobs);
  ASSERT_TRUE(sums);
  MetricOptions options;
  options.algorithms = Algorithms::all();
  Expected<PairMetrics> m = compare_tensors(a, b, options);
  ASSERT_TRUE(m);
  EXPECT_NEAR(std::sqrt(sums->sum_aa), *m->my.l2norm, 1e-12 * *m->my.l2norm);
  EXPECT_NEAR(std::sqrt(sums->sum_bb), *m->golden.l2norm, 1e-12 * *m->golden.l2norm);
  EXPECT_NEAR(std::sqrt(sums->sum_dd), *m->euc_dist.value, 1e-12 * *m->euc_dist.value);
  EXPECT_EQ(sums->max_abs, *m->mp_max_abs_err.value);
  const double cosine = sums->sum_ab / std::sqrt(sums->sum_aa * sums->sum_bb);
  EXPECT_NEAR(cosine, *m->mp_cosine.value, 1e-14);
}

std::vector<float> random_floats(size_t n, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0, scale);
  std::vector<float> out(n);
  for (float& v : out) v = normal(rng);
  return out;
}

TEST(DistanceSums, AgreesWithTheGeneralKernelForEveryFloatDtype) {
  // 3 chunks and a ragged end, so that the chunking and the tail of a block are both used.
  const size_t n = 2 * kDistanceChunk + 4099;
  std::vector<float> x = random_floats(n, 1, 1), y = x;
  std::vector<float> noise = random_floats(n, 2, 1e-3f);
  for (size_t i = 0; i < n; ++i) y[i] += noise[i];
  auto a = tensor_of(DType::Float32, x), b = tensor_of(DType::Float32, y);
  expect_like_compare_tensors(a.view, b.view, 1);
  expect_like_compare_tensors(a.view, b.view, 3);

  std::vector<double> xd(x.begin(), x.begin() + 5000), yd(y.begin(), y.begin() + 5000);
  auto ad = tensor_of(DType::Float64, xd), bd = tensor_of(DType::Float64, yd);
  expect_like_compare_tensors(ad.view, bd.view, 1);

  // float16 1.0, -2.0, 0.5 and bfloat16 1.0, 3.0, -0.25 against small changes.
  auto h1 = tensor_of(DType::Float16, std::vector<uint16_t>{0x3C00, 0xC000, 0x3800});
  auto h2 = tensor_of(DType::Float16, std::vector<uint16_t>{0x3C01, 0xC000, 0x3A00});
  expect_like_compare_tensors(h1.view, h2.view, 1);
  auto f1 = tensor_of(DType::BFloat16, std::vector<uint16_t>{0x3F80, 0x4040, 0xBE80});
  auto f2 = tensor_of(DType::BFloat16, std::vector<uint16_t>{0x3F81, 0x4040, 0xBE00});
  expect_like_compare_tensors(f1.view, f2.view, 1);
}

TEST(DistanceSums, TheResultDoesNotDependOnTheWorkers) {
  std::vector<float> x = random_floats(3 * kDistanceChunk + 17, 3, 10);
  std::vector<float> y = random_floats(x.size(), 4, 10);
  auto a = tensor_of(DType::Float32, x), b = tensor_of(DType::Float32, y);
  std::optional<DistanceSums> one = distance_sums(a.view, b.view, 1);
  std::optional<DistanceSums> four = distance_sums(a.view, b.view, 4);
  ASSERT_TRUE(one && four);
  EXPECT_EQ(one->sum_aa, four->sum_aa);
  EXPECT_EQ(one->sum_bb, four->sum_bb);
  EXPECT_EQ(one->sum_ab, four->sum_ab);
  EXPECT_EQ(one->sum_dd, four->sum_dd);
  EXPECT_EQ(one->max_abs, four->max_abs);
  EXPECT_EQ(one->count, x.size());
}

TEST(DistanceSums, LeavesNonFiniteValuesAndOtherDtypesToTheGeneralKernel) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  auto plain = tensor_of(DType::Float32, std::vector<float>{1, 2});
  auto with_nan = tensor_of(DType::Float32, std::vector<float>{1, nan});
  auto with_inf = tensor_of(DType::Float32, std::vector<float>{inf, 2});
  EXPECT_FALSE(distance_sums(plain.view, with_nan.view));
  EXPECT_FALSE(distance_sums(with_nan.view, plain.view));
  EXPECT_FALSE(distance_sums(with_inf.view, plain.view));
  auto ints = tensor_of(DType::Int32, std::vector<int32_t>{1, 2});
  EXPECT_FALSE(distance_sums(ints.view, ints.view));
  auto empty = tensor_of(DType::Float32, std::vector<float>{});
  std::optional<DistanceSums> none = distance_sums(empty.view, empty.view);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->count, 0u);
}

}  // namespace
}  // namespace msdt::compare
