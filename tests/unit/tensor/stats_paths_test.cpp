// Every dispatch path of compute_stats against the portable scalar reference: counts, min, max
// and the exact integer extremes bit for bit, sums to 1e-12 relative, over random data mixed with
// every special value, at every alignment and tail length. Paths this CPU lacks are skipped with
// a message naming them.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tensor/stats.h"

namespace msdt {
namespace {

bool supported(StatsPath path) {
  for (StatsPath p : supported_stats_paths())
    if (p == path) return true;
  return false;
}

// Bit patterns of the special values per element width.
const std::vector<uint32_t> kFloatSpecials = {
    0x7FC00000u, 0x7F800001u, 0xFFC12345u, 0x7FFFFFFFu,  // NaN payloads, quiet and signalling
    0x7F800000u, 0xFF800000u,                            // ±inf
    0x00000000u, 0x80000000u,                            // ±0
    0x00000001u, 0x807FFFFFu, 0x00400000u,               // subnormals
    0x7F7FFFFFu, 0xFF7FFFFFu, 0x00800000u};              // ±max, min normal
const std::vector<uint64_t> kDoubleSpecials = {
    0x7FF8000000000000u, 0x7FF0000000000001u, 0xFFF8123456789ABCu,  // NaN payloads
    0x7FF0000000000000u, 0xFFF0000000000000u,                       // ±inf
    0x0000000000000000u, 0x8000000000000000u,                       // ±0
    0x0000000000000001u, 0x800FFFFFFFFFFFFFu,                       // subnormals
    0x7FEFFFFFFFFFFFFFu, 0xFFEFFFFFFFFFFFFFu};                      // ±max
const std::vector<uint16_t> kHalfSpecials = {0x7E00, 0x7C01, 0xFE55, 0x7C00, 0xFC00, 0x0000,
                                             0x8000, 0x0001, 0x83FF, 0x7BFF, 0xFBFF, 0x0400};
const std::vector<uint16_t> kBfloatSpecials = {0x7FC0, 0x7F81, 0xFFC5, 0x7F80, 0xFF80, 0x0000,
                                               0x8000, 0x0001, 0x807F, 0x7F7F, 0xFF7F, 0x0080};

// `count` elements of `dtype`: random ordinary values with a special one at about `special_rate`.
std::vector<std::byte> make_values(DType dtype, size_t count, std::mt19937_64& rng,
                                   double special_rate, bool huge) {
  std::normal_distribution<double> normal(3.0, 100.0);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<std::byte> out;
  auto put = [&](auto value) {
    size_t at = out.size();
    out.resize(at + sizeof(value));
    std::memcpy(out.data() + at, &value, sizeof(value));
  };
  for (size_t i = 0; i < count; ++i) {
    bool special = unit(rng) < special_rate;
    double v = normal(rng);
    switch (dtype) {
      case DType::Float32:
        if (special)
          put(kFloatSpecials[rng() % kFloatSpecials.size()]);
        else
          put(static_cast<float>(v));
        break;
      case DType::Float64:
        if (special && (huge || (rng() % kDoubleSpecials.size()) < 9))
          put(kDoubleSpecials[rng() % (huge ? kDoubleSpecials.size() : 9)]);
        else
          put(v);
        break;
      case DType::Float16:
        if (special)
          put(kHalfSpecials[rng() % kHalfSpecials.size()]);
        else
          put(static_cast<uint16_t>(0x3C00 + (rng() % 0x0C00) - 0x0600 + ((rng() & 1) << 15)));
        break;
      case DType::BFloat16:
        if (special)
          put(kBfloatSpecials[rng() % kBfloatSpecials.size()]);
        else
          put(static_cast<uint16_t>(std::bit_cast<uint32_t>(static_cast<float>(v)) >> 16));
        break;
      case DType::Int32:
        put(special ? (rng() & 1 ? std::numeric_limits<int32_t>::min()
                                 : std::numeric_limits<int32_t>::max())
                    : static_cast<int32_t>(rng() % 2001) - 1000);
        break;
      case DType::UInt32:
        put(special ? std::numeric_limits<uint32_t>::max() : static_cast<uint32_t>(rng() % 5));
        break;
      case DType::Int64:
        put(special ? (rng() & 1 ? std::numeric_limits<int64_t>::min()
                                 : std::numeric_limits<int64_t>::max())
                    : static_cast<int64_t>(rng() % 2001) - 1000 + (huge ? (int64_t{1} << 60) : 0));
        break;
      case DType::UInt64:
        put(special ? std::numeric_limits<uint64_t>::max()
                    : (huge ? (uint64_t{1} << 63) + (uint64_t{1} << 53) + rng() % 7 : rng() % 100));
        break;
      case DType::Int8:
        put(static_cast<int8_t>(rng()));
        break;
      default:  // Bool
        put(static_cast<uint8_t>(special ? 2 + rng() % 250 : rng() % 2));
    }
  }
  return out;
}

void expect_bits(std::optional<double> got, std::optional<double> want, const std::string& what) {
  ASSERT_EQ(got.has_value(), want.has_value()) << what;
  if (want) {
    EXPECT_EQ(std::bit_cast<uint64_t>(*got), std::bit_cast<uint64_t>(*want)) << what;
  }
}

void expect_sum(std::optional<double> got, std::optional<double> want, double scale,
                const std::string& what) {
  ASSERT_EQ(got.has_value(), want.has_value()) << what;
  if (!want) return;
  if (!std::isfinite(*want)) {
    EXPECT_EQ(*got, *want) << what;
    return;
  }
  // Relative to the magnitude of the terms summed (a mean that cancels is compared to abs_mean).
  EXPECT_LE(std::fabs(*got - *want), 1e-12 * std::max(std::fabs(*want), scale)) << what;
}

void expect_same(const TensorStats& got, const TensorStats& want, const std::string& what) {
  EXPECT_EQ(got.count, want.count) << what;
  EXPECT_EQ(got.nan, want.nan) << what;
  EXPECT_EQ(got.pos_inf, want.pos_inf) << what;
  EXPECT_EQ(got.neg_inf, want.neg_inf) << what;
  EXPECT_EQ(got.zero, want.zero) << what;
  EXPECT_EQ(got.negative, want.negative) << what;
  EXPECT_EQ(got.positive, want.positive) << what;
  expect_bits(got.min, want.min, what + " min");
  expect_bits(got.max, want.max, what + " max");
  EXPECT_EQ(got.exact_min, want.exact_min) << what;
  EXPECT_EQ(got.exact_max, want.exact_max) << what;
  double scale = want.abs_mean.value_or(0);
  expect_sum(got.mean, want.mean, scale, what + " mean");
  expect_sum(got.abs_mean, want.abs_mean, 0, what + " abs_mean");
  // Squares of magnitudes below 1.5e-154 underflow in double lanes (as in NumPy's norm), while
  // the scalar reference squares short tails in long double: an absolute floor covers that.
  constexpr double kUnderflow = 1e-140;
  expect_sum(got.l2norm, want.l2norm, kUnderflow, what + " l2norm");
  // The spread is compared to the root mean square, the size of what its sums hold.
  double rms = want.l2norm && want.count ? *want.l2norm / std::sqrt(double(want.count)) : 0;
  expect_sum(got.std, want.std, std::max(1e-3 * rms, kUnderflow), what + " std");
}

class StatsPaths : public ::testing::TestWithParam<StatsPath> {
 protected:
  void SetUp() override {
    if (!supported(GetParam()))
      GTEST_SKIP() << "path " << stats_path_name(GetParam())
                   << " is not supported by this CPU or build";
  }
};

TEST_P(StatsPaths, EveryDtypeAlignmentAndTailMatchesScalar) {
  const StatsPath path = GetParam();
  std::mt19937_64 rng(2024);
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 140; ++n) lengths.push_back(n);
  for (size_t n : {1023, 1024, 1025, 2047, 2048, 3001, 5000}) lengths.push_back(n);
  for (DType dtype : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16, DType::Int32,
                      DType::UInt32, DType::Int64, DType::UInt64, DType::Int8, DType::Bool}) {
    unsigned size = dtype_bits(dtype) / 8;
    for (size_t n : lengths)
      for (size_t align = 0; align < 8; align += (n > 200 ? 3 : 1))
        for (int variant = 0; variant < 3; ++variant) {
          double rate = variant == 0 ? 0.0 : variant == 1 ? 0.1 : 0.6;
          bool huge = variant == 2;
          auto values = make_values(dtype, n, rng, rate, huge);
          std::vector<std::byte> buffer(align + values.size() + 1);
          if (!values.empty()) std::memcpy(buffer.data() + align, values.data(), values.size());
          TensorView view{dtype, {n}, Bytes(buffer.data() + align, n * size)};
          std::string what = std::string(dtype_name(dtype)) + " n=" + std::to_string(n) +
                             " align=" + std::to_string(align) +
                             " variant=" + std::to_string(variant);
          expect_same(compute_stats(view, 1, path), compute_stats(view, 1, StatsPath::Scalar),
                      what);
          if (::testing::Test::HasFailure()) return;  // one case is enough to debug
        }
  }
}

TEST_P(StatsPaths, AllSpecialsAtEveryPosition) {
  // Each special value alone among ordinary ones, at every lane of a vector and in the tail.
  const StatsPath path = GetParam();
  for (uint32_t bits : kFloatSpecials)
    for (size_t at = 0; at < 67; ++at) {
      std::vector<float> v(67);
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) - 30.5f;
      std::memcpy(&v[at], &bits, 4);
      TensorView view{DType::Float32,
                      {v.size()},
                      Bytes(reinterpret_cast<const std::byte*>(v.data()), v.size() * 4)};
      expect_same(compute_stats(view, 1, path), compute_stats(view, 1, StatsPath::Scalar),
                  "special " + std::to_string(bits) + " at " + std::to_string(at));
    }
}

TEST_P(StatsPaths, ChunksAndWorkersGiveTheSameResult) {
  // Over 2^20 elements the tensor is cut into chunks; the result must not depend on -j.
  std::mt19937_64 rng(5);
  size_t n = (size_t{1} << 21) + 77;
  auto values = make_values(DType::Float32, n, rng, 0.01, false);
  TensorView view{DType::Float32, {n}, Bytes(values.data(), values.size())};
  TensorStats one = compute_stats(view, 1, GetParam());
  TensorStats three = compute_stats(view, 3, GetParam());
  expect_same(three, one, "jobs 3 vs 1");
  EXPECT_EQ(three.mean, one.mean);
  EXPECT_EQ(three.std, one.std);
  expect_same(one, compute_stats(view, 2, StatsPath::Scalar), "against scalar");
}

INSTANTIATE_TEST_SUITE_P(, StatsPaths,
                         ::testing::Values(StatsPath::Scalar, StatsPath::Sse2, StatsPath::Avx2,
                                           StatsPath::Avx512, StatsPath::Neon),
                         [](const auto& param_info) {
                           return std::string(stats_path_name(param_info.param));
                         });

}  // namespace
}  // namespace msdt
