// Elements widened to double for every real dtype, counts within ranges and the comparison with a
// previous tensor (watchpoints spec §2.1-2.2). Expected values come from hand-packed bytes,
// independent decoders written here, or long double sums.
#include "tensor/element_values.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "support/tensor_builder.h"
#include "tensor/element_convert.h"

namespace msdt {
namespace {

using ::testing::HasSubstr;
using testing::OwnedTensor;
using testing::tensor_of;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

std::vector<double> widen(const TensorView& t, uint64_t first, uint64_t n) {
  std::vector<double> out(n, -12345.0);
  Status status = elements_to_double(t, first, n, out.data());
  EXPECT_FALSE(status) << status->describe();
  return out;
}

std::vector<double> widen_all(const OwnedTensor& t) {
  auto count = element_count(t.view.shape);
  EXPECT_TRUE(count);
  return widen(t.view, 0, *count);
}

// Equality that treats NaN as equal to NaN and tells -0.0 from 0.0.
void expect_same(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << i;
    } else {
      EXPECT_EQ(got[i], want[i]) << i;
      EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << i;
    }
  }
}

TEST(ElementsToDouble, Bool) {
  auto t = tensor_of<uint8_t>(DType::Bool, {0, 1, 2, 255, 0});
  expect_same(widen_all(t), {0, 1, 1, 1, 0});
}

TEST(ElementsToDouble, Integers) {
  expect_same(widen_all(tensor_of<int8_t>(DType::Int8, {-128, -1, 0, 127})), {-128, -1, 0, 127});
  expect_same(widen_all(tensor_of<int16_t>(DType::Int16, {-32768, 5, 32767})), {-32768, 5, 32767});
  expect_same(widen_all(tensor_of<int32_t>(DType::Int32, {INT32_MIN, -7, INT32_MAX})),
              {-2147483648.0, -7, 2147483647.0});
  // int64 beyond 2^53 rounds to nearest even, as static_cast<double> does.
  const int64_t two53 = int64_t{1} << 53;
  expect_same(
      widen_all(tensor_of<int64_t>(DType::Int64, {INT64_MIN, -3, two53 + 1, two53 + 3, INT64_MAX})),
      {-9223372036854775808.0, -3, 9007199254740992.0, 9007199254740996.0, 9223372036854775808.0});
  expect_same(widen_all(tensor_of<uint8_t>(DType::UInt8, {0, 1, 255})), {0, 1, 255});
  expect_same(widen_all(tensor_of<uint16_t>(DType::UInt16, {0, 65535})), {0, 65535});
  expect_same(widen_all(tensor_of<uint32_t>(DType::UInt32, {0, 4294967295u})), {0, 4294967295.0});
  expect_same(
      widen_all(tensor_of<uint64_t>(DType::UInt64, {0, UINT64_MAX, (uint64_t{1} << 63) + 1})),
      {0, 18446744073709551616.0, 9223372036854775808.0});
}

TEST(ElementsToDouble, Float32AndFloat64) {
  auto f = tensor_of<float>(
      DType::Float32,
      {0.1f, -0.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
       std::numeric_limits<float>::denorm_min(), 3.4028234663852886e38f});
  expect_same(widen_all(f), {0.100000001490116119384765625, -0.0, kInf, kNan,
                             1.40129846432481707092372958329e-45, 3.4028234663852886e38});
  auto d = tensor_of<double>(DType::Float64, {0.1, -0.0, -kInf, kNan, 4.9406564584124654e-324});
  expect_same(widen_all(d), {0.1, -0.0, -kInf, kNan, 4.9406564584124654e-324});
}

// IEEE half decoded from its fields, independently of the library.
double half_reference(uint16_t h) {
  int sign = h >> 15, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  double magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(mantissa, -24);
  else if (exponent == 31)
    magnitude = mantissa ? kNan : kInf;
  else
    magnitude = std::ldexp(1024 + mantissa, exponent - 25);
  return sign ? -magnitude : magnitude;
}

TEST(ElementsToDouble, Float16EveryCode) {
  std::vector<uint16_t> codes(65536);
  for (unsigned c = 0; c < 65536; ++c) codes[c] = static_cast<uint16_t>(c);
  auto t = tensor_of(DType::Float16, codes);
  std::vector<double> want(65536);
  for (unsigned c = 0; c < 65536; ++c) want[c] = half_reference(static_cast<uint16_t>(c));
  expect_same(widen_all(t), want);
  // Known values.
  auto known =
      tensor_of<uint16_t>(DType::Float16, {0x3C00, 0xC000, 0x7BFF, 0x0001, 0x3555, 0x7C00});
  expect_same(widen_all(known), {1, -2, 65504, 5.9604644775390625e-08, 0.333251953125, kInf});
}

TEST(ElementsToDouble, Bfloat16EveryCode) {
  std::vector<uint16_t> codes(65536);
  for (unsigned c = 0; c < 65536; ++c) codes[c] = static_cast<uint16_t>(c);
  auto t = tensor_of(DType::BFloat16, codes);
  std::vector<double> want(65536);
  for (unsigned c = 0; c < 65536; ++c) want[c] = std::bit_cast<float>(c << 16);
  expect_same(widen_all(t), want);
  auto known = tensor_of<uint16_t>(DType::BFloat16, {0x3F80, 0xBF00, 0x4380, 0x7F80, 0x7FC0});
  expect_same(widen_all(known), {1, -0.5, 256, kInf, kNan});
}

TEST(ElementsToDouble, PackedIntegers) {
  // int4, low nibble first, sign-extended: 0x8F is (-1, -8), 0x71 is (1, 7), 0x0A is (-6, 0).
  auto int4 = tensor_of<uint8_t>(DType::Int4, {0x8F, 0x71, 0x0A}, {6});
  expect_same(widen_all(int4), {-1, -8, 1, 7, -6, 0});
  // An odd count: the last byte holds one element in its low nibble.
  auto odd = tensor_of<uint8_t>(DType::Int4, {0x21, 0xF3}, {3});
  expect_same(widen_all(odd), {1, 2, 3});
  // int2 and uint2, low bits first: 0xE4 = 11 10 01 00.
  expect_same(widen_all(tensor_of<uint8_t>(DType::Int2, {0xE4, 0x1B}, {8})),
              {0, 1, -2, -1, -1, -2, 1, 0});
  expect_same(widen_all(tensor_of<uint8_t>(DType::UInt2, {0xE4, 0x1B}, {8})),
              {0, 1, 2, 3, 3, 2, 1, 0});
  // uint1, most significant bit first: 0xB0 = 1011 0000.
  expect_same(widen_all(tensor_of<uint8_t>(DType::UInt1, {0xB0, 0x01}, {10})),
              {1, 0, 1, 1, 0, 0, 0, 0, 0, 0});
  expect_same(widen_all(tensor_of<uint8_t>(DType::UInt1, {0xB0, 0x01}, {16})),
              {1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
}

TEST(ElementsToDouble, PackedFromAnOffset) {
  // 16 int4 elements 0..7, -8..-1; elements 8-15 from byte 4.
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 16; i += 2)
    bytes.push_back(static_cast<uint8_t>((i & 0xF) | ((i + 1) & 0xF) << 4));
  auto t = tensor_of(DType::Int4, bytes, {16});
  expect_same(widen(t.view, 8, 8), {-8, -7, -6, -5, -4, -3, -2, -1});
  expect_same(widen(t.view, 0, 3), {0, 1, 2});
  auto bits = tensor_of<uint8_t>(DType::UInt1, {0x00, 0x81}, {16});
  expect_same(widen(bits.view, 8, 8), {1, 0, 0, 0, 0, 0, 0, 1});
  // Whole-byte types from any offset.
  auto f = tensor_of<float>(DType::Float32, {1, 2, 3, 4, 5});
  expect_same(widen(f.view, 3, 2), {4, 5});
  expect_same(widen(f.view, 5, 0), {});
}

void expect_small_floats(DType dtype, const std::vector<uint8_t>& bytes, uint64_t count) {
  SCOPED_TRACE(std::string(dtype_name(dtype)));
  auto t = tensor_of(dtype, bytes, {count});
  std::vector<double> got = widen_all(t);
  std::vector<double> want(count);
  for (uint64_t i = 0; i < count; ++i) want[i] = small_float_at(dtype, t.view.data, i);
  expect_same(got, want);
}

TEST(ElementsToDouble, SmallFloatsEveryCode) {
  std::vector<uint8_t> all(256);
  for (unsigned c = 0; c < 256; ++c) all[c] = static_cast<uint8_t>(c);
  for (DType d : {DType::Float8E4M3FN, DType::Float8E5M2, DType::Float8E8M0, DType::HiFloat8})
    expect_small_floats(d, all, 256);
  // Every 6-bit code, packed low bits first: 64 codes in 48 bytes.
  std::vector<uint8_t> six(48, 0);
  for (unsigned c = 0; c < 64; ++c)
    for (unsigned b = 0; b < 6; ++b)
      if (c >> b & 1) six[(c * 6 + b) / 8] |= static_cast<uint8_t>(1u << ((c * 6 + b) % 8));
  for (DType d : {DType::Float6E2M3, DType::Float6E3M2}) expect_small_floats(d, six, 64);
  // Every 4-bit code: 0x10, 0x32, ... (low nibble first).
  std::vector<uint8_t> four;
  for (unsigned c = 0; c < 16; c += 2) four.push_back(static_cast<uint8_t>(c | (c + 1) << 4));
  for (DType d : {DType::Float4E2M1, DType::Float4E1M2}) expect_small_floats(d, four, 16);
}

TEST(ElementsToDouble, SmallFloatsKnownValues) {
  // float8 e4m3fn: 0x38 = 1, 0x7E = 448 (max), 0xFF NaN; e5m2: 0x3C = 1, 0x7B = 57344, 0x7C inf.
  expect_same(widen_all(tensor_of<uint8_t>(DType::Float8E4M3FN, {0x38, 0x7E, 0xFF, 0x01})),
              {1, 448, kNan, std::ldexp(1.0, -9)});
  expect_same(widen_all(tensor_of<uint8_t>(DType::Float8E5M2, {0x3C, 0x7B, 0x7C, 0xFC})),
              {1, 57344, kInf, -kInf});
  expect_same(widen_all(tensor_of<uint8_t>(DType::Float8E8M0, {0x7F, 0x80, 0x00, 0xFF})),
              {1, 2, std::ldexp(1.0, -127), kNan});
  expect_same(widen_all(tensor_of<uint8_t>(DType::HiFloat8, {0x08, 0xEF, 0x80, 0x00})),
              {1, -kInf, kNan, 0});
  // float4 e2m1 codes 0-7: 0, 0.5, 1, 1.5, 2, 3, 4, 6; 0xF7 = (6, -6).
  expect_same(widen_all(tensor_of<uint8_t>(DType::Float4E2M1, {0x21, 0xF7}, {4})), {0.5, 1, 6, -6});
  // float6 e3m2: 31 = 28 (max), e2m3: 31 = 7.5 (max); 31 | 63 << 6 packed.
  const unsigned packed = 31u | 63u << 6;
  auto e3m2 = tensor_of<uint8_t>(
      DType::Float6E3M2, {static_cast<uint8_t>(packed), static_cast<uint8_t>(packed >> 8)}, {2});
  expect_same(widen_all(e3m2), {28, -28});
  auto e2m3 = tensor_of<uint8_t>(
      DType::Float6E2M3, {static_cast<uint8_t>(packed), static_cast<uint8_t>(packed >> 8)}, {2});
  expect_same(widen_all(e2m3), {7.5, -7.5});
}

TEST(ElementsToDouble, Errors) {
  double out[4];
  for (DType d :
       {DType::Complex32, DType::Complex64, DType::Complex128, DType::HiFloat4, DType::String}) {
    EXPECT_FALSE(has_real_values(d)) << dtype_name(d);
    auto t = tensor_of<uint8_t>(d, std::vector<uint8_t>(16, 0), {1});
    Status s = elements_to_double(t.view, 0, 1, out);
    ASSERT_TRUE(s) << dtype_name(d);
    EXPECT_THAT(s->message, HasSubstr("elements are not real numbers"));
    EXPECT_THAT(s->message, HasSubstr(dtype_name(d)));
  }
  for (DType d : {DType::Bool, DType::Int4, DType::UInt1, DType::Float16, DType::BFloat16,
                  DType::Float8E4M3FN, DType::HiFloat8, DType::Float6E2M3, DType::Float4E1M2})
    EXPECT_TRUE(has_real_values(d)) << dtype_name(d);
  // More elements than the bytes hold.
  auto f = tensor_of<float>(DType::Float32, {1, 2});
  Status s = elements_to_double(f.view, 1, 2, out);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->message, "the tensor holds fewer than 3 elements");
  auto packed = tensor_of<uint8_t>(DType::Int4, {0x11}, {2});
  s = elements_to_double(packed.view, 0, 3, out);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->message, "the tensor holds fewer than 3 elements");
  auto six = tensor_of<uint8_t>(DType::Float6E3M2, {0, 0}, {2});
  EXPECT_TRUE(elements_to_double(six.view, 0, 3, out));
}

// ---- count_in_ranges ---------------------------------------------------------------------------

TEST(CountInRanges, InclusiveBoundsAndNaN) {
  auto t = tensor_of<double>(DType::Float64, {-1, 0, 0.5, 1, 2, kNan, -0.0, kInf, -kInf});
  const std::vector<std::pair<double, double>> ranges = {
      {0, 1},                                                // 0, 0.5, 1, -0.0
      {-kInf, kInf},                                         // everything but NaN
      {1, 1},                                                // 1
      {0, 0},                                                // 0, -0.0
      {2, 1},                                                // empty: start above end
      {kInf, kInf},                                          // +inf
      {std::nextafter(0.0, 1.0), std::nextafter(1.0, 0.0)},  // 0.5
      {-1e308, 1e308},                                       // finite ones
  };
  auto counts = count_in_ranges(t.view, ranges);
  ASSERT_TRUE(counts) << counts.error().message;
  EXPECT_EQ(*counts, (std::vector<uint64_t>{4, 8, 1, 2, 0, 1, 1, 6}));
  auto none = count_in_ranges(t.view, {});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(CountInRanges, OtherDtypesAndChunks) {
  // 10000 int32 elements 0..9999 span three chunks of 4096.
  std::vector<int32_t> ramp(10000);
  for (int32_t i = 0; i < 10000; ++i) ramp[static_cast<size_t>(i)] = i - 5000;
  auto t = tensor_of(DType::Int32, ramp);
  auto counts = count_in_ranges(
      t.view, std::vector<std::pair<double, double>>{
                  {-5000, 4999}, {0, 0}, {-0.5, 0.5}, {4095 - 5000, 4096 - 5000}, {-1e9, -4999.5}});
  ASSERT_TRUE(counts);
  EXPECT_EQ(*counts, (std::vector<uint64_t>{10000, 1, 1, 2, 1}));
  // float16 with a NaN and elements exactly on the bounds.
  auto h = tensor_of<uint16_t>(DType::Float16,
                               {0x3555, 0x3800, 0x7E00, 0xBC00});  // 0.3332..., 0.5, NaN, -1
  counts = count_in_ranges(h.view,
                           std::vector<std::pair<double, double>>{{0.333251953125, 0.5}, {-1, -1}});
  ASSERT_TRUE(counts);
  EXPECT_EQ(*counts, (std::vector<uint64_t>{2, 1}));
  auto b = tensor_of<uint8_t>(DType::Bool, {1, 0, 3});
  counts = count_in_ranges(b.view, std::vector<std::pair<double, double>>{{1, 1}, {-1, 0}});
  ASSERT_TRUE(counts);
  EXPECT_EQ(*counts, (std::vector<uint64_t>{2, 1}));
  auto c = tensor_of<float>(DType::Complex64, {1, 2});
  EXPECT_FALSE(count_in_ranges(c.view, std::vector<std::pair<double, double>>{{0, 1}}));
}

// ---- change_stats ------------------------------------------------------------------------------

struct ChangeRef {
  double mean_abs_diff, mean_abs_prev;
};
ChangeRef change_reference(const std::vector<double>& cur, const std::vector<double>& prev) {
  long double d = 0, p = 0;
  for (size_t i = 0; i < cur.size(); ++i) {
    d += std::fabs(static_cast<long double>(cur[i]) - prev[i]);
    p += std::fabs(static_cast<long double>(prev[i]));
  }
  auto n = static_cast<long double>(cur.size());
  return {static_cast<double>(d / n), static_cast<double>(p / n)};
}

TEST(ChangeStats, MeansAndAllClose) {
  auto cur = tensor_of<double>(DType::Float64, {1.75, -2, 0.25, 3});
  auto prev =
      tensor_of<double>(DType::Float64, {1, -2, 0, 3.5}, {2, 2});  // same count, other shape
  // Tolerances: exact (0, 0); rtol 0.5 atol 0.25 (every element within, 1.75 exactly at 0.75 and
  // 0.25 exactly at 0.25); rtol 0.5 atol 0.2 (0.25 at prev 0 is not).
  const std::vector<std::pair<double, double>> tol = {{0, 0}, {0.5, 0.25}, {0.5, 0.2}};
  auto s = change_stats(cur.view, prev.view, tol);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->mean_abs_diff, (0.75 + 0 + 0.25 + 0.5) / 4);
  EXPECT_EQ(s->mean_abs_prev, (1 + 2 + 0 + 3.5) / 4);
  EXPECT_EQ(s->all_close, (std::vector<bool>{false, true, false}));
  auto same = change_stats(cur.view, cur.view, tol);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->mean_abs_diff, 0.0);
  EXPECT_EQ(same->all_close, (std::vector<bool>{true, true, true}));
  auto none = change_stats(cur.view, prev.view, {});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->all_close.empty());
}

TEST(ChangeStats, NaNAndInfinity) {
  auto cur = tensor_of<double>(DType::Float64, {1, 2, 3});
  auto prev_nan = tensor_of<double>(DType::Float64, {1, kNan, 3});
  const std::vector<std::pair<double, double>> tol = {{1e300, 1e300}, {1e-5, 1e-8}};
  auto s = change_stats(cur.view, prev_nan.view, tol);
  ASSERT_TRUE(s);
  EXPECT_TRUE(std::isnan(s->mean_abs_diff));
  EXPECT_TRUE(std::isnan(s->mean_abs_prev));
  EXPECT_EQ(s->all_close, (std::vector<bool>{false, false})) << "NaN is never close";
  s = change_stats(prev_nan.view, cur.view, tol);
  ASSERT_TRUE(s);
  EXPECT_TRUE(std::isnan(s->mean_abs_diff));
  EXPECT_FALSE(std::isnan(s->mean_abs_prev));
  EXPECT_EQ(s->all_close, (std::vector<bool>{false, false}));
  // inf against inf: the difference is NaN, not close.
  auto inf = tensor_of<double>(DType::Float64, {kInf});
  s = change_stats(inf.view, inf.view, tol);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->all_close, (std::vector<bool>{false, false}));
}

TEST(ChangeStats, SizeMismatch) {
  auto cur = tensor_of<float>(DType::Float32, {1, 2, 3, 4});
  auto prev = tensor_of<float>(DType::Float32, {1, 2, 3});
  auto s = change_stats(cur.view, prev.view, {});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "the previous tensor has 3 elements, this one 4");
  auto scalar = tensor_of<float>(DType::Float32, {1});  // 0-d: one element
  s = change_stats(scalar.view, prev.view, {});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "the previous tensor has 3 elements, this one 1");
}

TEST(ChangeStats, EmptyTensors) {
  auto a = tensor_of<float>(DType::Float32, {}, {0});
  auto s = change_stats(a.view, a.view, std::vector<std::pair<double, double>>{{0, 0}});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->mean_abs_diff, 0.0);
  EXPECT_EQ(s->mean_abs_prev, 0.0);
  EXPECT_EQ(s->all_close, (std::vector<bool>{true}));
}

TEST(ChangeStats, ManyElementsAcrossChunksAndDtypes) {
  // 10000 float32 elements against float16 ones: means against long double sums.
  std::vector<float> cur(10000);
  std::vector<uint16_t> prev_bits(10000);
  std::vector<double> cur_d(10000), prev_d(10000);
  for (size_t i = 0; i < cur.size(); ++i) {
    cur[i] = static_cast<float>(std::sin(static_cast<double>(i)) * 1000.0);
    cur_d[i] = cur[i];
    prev_bits[i] = static_cast<uint16_t>((i * 7919) & 0x7BFF);  // finite halves, some negative
    if (i % 3 == 0) prev_bits[i] |= 0x8000;
    if (i == 1) prev_bits[i] = 0;  // prev 0, cur sin(1) * 1000: not close with atol 0
    prev_d[i] = half_to_float(prev_bits[i]);
  }
  auto c = tensor_of(DType::Float32, cur);
  auto p = tensor_of(DType::Float16, prev_bits);
  auto s = change_stats(c.view, p.view, std::vector<std::pair<double, double>>{{1e9, 0}});
  ASSERT_TRUE(s) << s.error().message;
  ChangeRef want = change_reference(cur_d, prev_d);
  EXPECT_NEAR(s->mean_abs_diff, want.mean_abs_diff, want.mean_abs_diff * 1e-15);
  EXPECT_NEAR(s->mean_abs_prev, want.mean_abs_prev, want.mean_abs_prev * 1e-15);
  EXPECT_EQ(s->all_close, (std::vector<bool>{false})) << "prev 0 with atol 0 leaves no room";
}

// one_pass gives compute_stats's statistics bit for bit and the separate passes' range counts and
// change statistics, for any worker count, over a tensor of several 2^20-element chunks with a
// tail.
TEST(OnePass, MatchesTheSeparatePassesForAnyWorkerCount) {
  const size_t n = 2 * (size_t{1} << 20) + 12345;
  std::vector<float> cur(n), prev(n);
  for (size_t i = 0; i < n; ++i) {
    cur[i] = static_cast<float>(std::sin(static_cast<double>(i) * 0.001) * 3.0);
    prev[i] = static_cast<float>(std::cos(static_cast<double>(i) * 0.002) * 2.0);
  }
  cur[7] = -0.0f;
  prev[99] = 1e30f;
  auto c = tensor_of(DType::Float32, cur);
  auto p = tensor_of(DType::Float32, prev);
  const std::vector<std::pair<double, double>> ranges{{-0.5, 0.5}, {1.0, 1.0}, {-10, 2.5}};
  const std::vector<std::pair<double, double>> tolerances{{1e-5, 1e-8}, {10.0, 10.0}};
  TensorStats stats = compute_stats(c.view, 1);
  auto counts = count_in_ranges(c.view, ranges);
  auto change = change_stats(c.view, p.view, tolerances);
  ASSERT_TRUE(counts && change);
  for (unsigned jobs : {1u, 2u, 3u, 8u}) {
    PassRequest request;
    request.ranges = ranges;
    request.previous = &p.view;
    request.tolerances = tolerances;
    TensorPass pass = one_pass(c.view, jobs, request);
    EXPECT_FALSE(pass.change_error);
    EXPECT_FALSE(pass.extras_error);
    EXPECT_EQ(pass.stats.count, stats.count);
    EXPECT_EQ(pass.stats.nan, stats.nan);
    EXPECT_EQ(pass.stats.zero, stats.zero);
    EXPECT_EQ(pass.stats.min, stats.min);
    EXPECT_EQ(pass.stats.max, stats.max);
    EXPECT_EQ(pass.stats.mean, stats.mean) << "bit for bit, jobs " << jobs;
    EXPECT_EQ(pass.stats.std, stats.std) << "bit for bit, jobs " << jobs;
    EXPECT_EQ(pass.stats.abs_mean, stats.abs_mean);
    EXPECT_EQ(pass.range_counts, *counts);
    ASSERT_TRUE(pass.change);
    // The chunk sums merge in another grouping than one sweep: equal to the last bits.
    EXPECT_NEAR(pass.change->mean_abs_diff, change->mean_abs_diff,
                std::abs(change->mean_abs_diff) * 1e-14);
    EXPECT_NEAR(pass.change->mean_abs_prev, change->mean_abs_prev,
                std::abs(change->mean_abs_prev) * 1e-14);
    EXPECT_EQ(pass.change->all_close, change->all_close);
  }
  // A previous value of another size is an error of the comparison only.
  auto shorter = tensor_of(DType::Float32, std::vector<float>(10, 1.0f));
  PassRequest request;
  request.ranges = ranges;
  request.previous = &shorter.view;
  TensorPass pass = one_pass(c.view, 2, request);
  ASSERT_TRUE(pass.change_error);
  EXPECT_FALSE(pass.change);
  EXPECT_EQ(pass.range_counts, *counts);
  EXPECT_EQ(pass.stats.mean, stats.mean);
}

}  // namespace
}  // namespace msdt
