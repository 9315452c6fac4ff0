#include "tensor/element_convert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

#include "support/tensor_builder.h"

namespace msdt {
namespace {

using Owned = testing::OwnedTensor;
using testing::tensor_of;

template <class T>
std::vector<T> convert(const Owned& t, uint64_t first, uint64_t count,
                       Bf16Mode mode = Bf16Mode::Float32) {
  std::vector<std::byte> out;
  Status status = convert_elements(t.view, first, count, mode, out);
  EXPECT_FALSE(status) << status->describe();
  EXPECT_EQ(out.size() % sizeof(T), 0u);
  std::vector<T> values(out.size() / sizeof(T));
  if (!out.empty()) std::memcpy(values.data(), out.data(), out.size());
  return values;
}

TEST(ElementConvert, StorageTypes) {
  EXPECT_EQ(npy_storage_dtype(DType::BFloat16), DType::Float32);
  EXPECT_EQ(npy_storage_dtype(DType::BFloat16, Bf16Mode::Raw), DType::UInt16);
  EXPECT_EQ(npy_storage_dtype(DType::Int4), DType::Int8);
  EXPECT_EQ(npy_storage_dtype(DType::UInt1), DType::UInt8);
  EXPECT_EQ(npy_storage_dtype(DType::Float8E4M3FN), DType::Float32);
  EXPECT_EQ(npy_storage_dtype(DType::Float8E5M2), DType::Float32);
  EXPECT_EQ(npy_storage_dtype(DType::Complex32), DType::Complex64);
  EXPECT_EQ(npy_storage_dtype(DType::Float32), DType::Float32);
  EXPECT_EQ(npy_storage_dtype(DType::Bool), DType::Bool);
  EXPECT_EQ(npy_storage_dtype(DType::Complex128), DType::Complex128);
  for (DType small : {DType::Float6E3M2, DType::Float6E2M3, DType::Float4E2M1, DType::Float4E1M2,
                      DType::HiFloat8, DType::Float8E8M0})
    EXPECT_EQ(npy_storage_dtype(small), DType::Float32) << dtype_name(small);
  for (DType none : {DType::String, DType::Int2, DType::UInt2, DType::HiFloat4})
    EXPECT_EQ(npy_storage_dtype(none), std::nullopt) << dtype_name(none);
  EXPECT_TRUE(stored_as_is(DType::Float16));
  EXPECT_TRUE(stored_as_is(DType::UInt64));
  EXPECT_FALSE(stored_as_is(DType::BFloat16));
  EXPECT_FALSE(stored_as_is(DType::BFloat16, Bf16Mode::Raw));
  EXPECT_FALSE(stored_as_is(DType::Int4));
  EXPECT_FALSE(stored_as_is(DType::String));
}

TEST(ElementConvert, CopiesStandardTypes) {
  auto t = tensor_of<int16_t>(DType::Int16, {1, -2, 3, -4}, {2, 2});
  EXPECT_EQ(convert<int16_t>(t, 0, 4), (std::vector<int16_t>{1, -2, 3, -4}));
  EXPECT_EQ(convert<int16_t>(t, 1, 2), (std::vector<int16_t>{-2, 3}));
  EXPECT_TRUE(convert<int16_t>(t, 4, 0).empty());
}

TEST(ElementConvert, Bfloat16) {
  auto t = tensor_of<uint16_t>(DType::BFloat16, {0x3F80, 0x3F8D, 0xFF80, 0x0001}, {4});
  auto f = convert<float>(t, 0, 4);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], 1.1015625f);
  EXPECT_EQ(f[2], -INFINITY);
  EXPECT_EQ(f[3], std::ldexp(1.0f, -133));  // bf16 subnormal, exact in float32
  EXPECT_EQ(convert<uint16_t>(t, 1, 3, Bf16Mode::Raw),
            (std::vector<uint16_t>{0x3F8D, 0xFF80, 0x0001}));
}

TEST(ElementConvert, Int4AndUInt1) {
  auto i4 = tensor_of<uint8_t>(DType::Int4, {0xF7, 0x08, 0x03}, {5});
  EXPECT_EQ(convert<int8_t>(i4, 0, 5), (std::vector<int8_t>{7, -1, -8, 0, 3}));
  EXPECT_EQ(convert<int8_t>(i4, 1, 3), (std::vector<int8_t>{-1, -8, 0}));
  auto u1 = tensor_of<uint8_t>(DType::UInt1, {0xA1, 0x80}, {10});
  EXPECT_EQ(convert<uint8_t>(u1, 0, 10), (std::vector<uint8_t>{1, 0, 1, 0, 0, 0, 0, 1, 1, 0}));
  EXPECT_EQ(convert<uint8_t>(u1, 7, 2), (std::vector<uint8_t>{1, 1}));
}

TEST(ElementConvert, Float8AndComplex32) {
  auto e4 = tensor_of<uint8_t>(DType::Float8E4M3FN, {0x38, 0xFE, 0x7F}, {3});
  auto f = convert<float>(e4, 0, 3);
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], -448.0f);
  EXPECT_TRUE(std::isnan(f[2]));
  auto e5 = tensor_of<uint8_t>(DType::Float8E5M2, {0x3C, 0x7C}, {2});
  EXPECT_EQ(convert<float>(e5, 0, 2), (std::vector<float>{1.0f, INFINITY}));
  auto c32 = tensor_of<uint16_t>(DType::Complex32, {0x3C00, 0xC000, 0x0000, 0x3800}, {2});
  EXPECT_EQ(convert<float>(c32, 0, 2), (std::vector<float>{1.0f, -2.0f, 0.0f, 0.5f}));
}

TEST(ElementConvert, Errors) {
  std::vector<std::byte> out;
  auto hf = tensor_of<uint8_t>(DType::HiFloat4, {1}, {1});
  auto status = convert_elements(hf.view, 0, 1, Bf16Mode::Float32, out);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->describe(), "cannot convert hifloat4 elements to a standard npy type");
  auto f32 = tensor_of<float>(DType::Float32, {1, 2}, {2});
  status = convert_elements(f32.view, 1, 2, Bf16Mode::Float32, out);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->describe(), "cannot convert elements [1, 3): the tensor has 2 elements");
  status = convert_elements(f32.view, ~uint64_t{0}, 2, Bf16Mode::Float32, out);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->describe(),
            "element range starting at 18446744073709551615 with 2 elements overflows");
  f32.view.shape = {3};
  status = convert_elements(f32.view, 0, 3, Bf16Mode::Float32, out);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->describe(), "tensor data holds 8 bytes, fewer than the 3 elements need");
  EXPECT_TRUE(out.empty());
}

// ---- HiFloat8, float8 e8m0, float6, float4: every code point ----

// HiFloat8 built the other way round: every (sign, dot, exponent, mantissa) the paper defines is
// encoded into its bits here, with the value computed from the fields; decoding each code must
// give that value, and the encodings plus the four specials must cover all 256 codes once.
TEST(SmallFloats, HiFloat8EveryCodeFromItsFields) {
  struct Dot {
    unsigned prefix, prefix_bits, exponent_bits;
  };
  const Dot dots[] = {{0b11, 2, 4}, {0b10, 2, 3}, {0b01, 2, 2}, {0b001, 3, 1}, {0b0001, 4, 0}};
  std::map<unsigned, double> expected;
  for (unsigned sign = 0; sign < 2; ++sign) {
    for (const Dot& dot : dots) {
      const unsigned mantissa_bits = 7 - dot.prefix_bits - dot.exponent_bits;
      const int magnitudes = dot.exponent_bits == 0 ? 1 : 1 << (dot.exponent_bits - 1);
      for (int exp_sign : {1, -1}) {
        if (dot.exponent_bits == 0 && exp_sign < 0) continue;
        for (int k = 0; k < magnitudes; ++k) {
          const int e = dot.exponent_bits == 0 ? 0 : exp_sign * (magnitudes + k);
          const unsigned exponent_field =
              dot.exponent_bits == 0 ? 0
                                     : ((exp_sign < 0 ? 1u : 0u) << (dot.exponent_bits - 1)) | k;
          for (unsigned m = 0; m < (1u << mantissa_bits); ++m) {
            const unsigned code = sign << 7 | dot.prefix << (7 - dot.prefix_bits) |
                                  exponent_field << mantissa_bits | m;
            const double value = std::ldexp(1.0 + m / double(1u << mantissa_bits), e);
            ASSERT_FALSE(expected.count(code)) << code;
            expected[code] = sign ? -value : value;
          }
        }
      }
    }
    for (unsigned m = 1; m < 8; ++m)  // denormals 2^(M-23)
      expected[sign << 7 | m] = (sign ? -1 : 1) * std::ldexp(1.0, static_cast<int>(m) - 23);
  }
  // Specials replace what the fields would give: 0x6F / 0xEF (2^15 * 1.5) are the infinities.
  expected[0x00] = 0.0;
  expected[0x80] = NAN;
  expected[0x6F] = INFINITY;
  expected[0xEF] = -INFINITY;
  ASSERT_EQ(expected.size(), 256u);
  for (auto [code, value] : expected) {
    const float got = hifloat8_to_float(static_cast<uint8_t>(code));
    if (std::isnan(value))
      EXPECT_TRUE(std::isnan(got)) << code;
    else
      EXPECT_EQ(got, static_cast<float>(value)) << "code 0x" << std::hex << code;
  }
  // Anchors from the paper: largest finite 2^15, smallest denormal 2^-22, 1.0 at 0x08.
  EXPECT_EQ(hifloat8_to_float(0x6E), 32768.0f);
  EXPECT_EQ(hifloat8_to_float(0x01), std::ldexp(1.0f, -22));
  EXPECT_EQ(hifloat8_to_float(0x08), 1.0f);
}

// A minifloat's positive codes in order are 0, the denormals k·d (d = 2^(1-bias-m)), then each
// binade [2^e, 2^(e+1)) in 2^m equal steps; the negative half mirrors it.
void expect_minifloat(float (*decode)(uint8_t), unsigned e, unsigned m, int bias, float max) {
  const unsigned half = 1u << (e + m);
  std::vector<double> ladder;
  const double denormal = std::ldexp(1.0, 1 - bias - static_cast<int>(m));
  for (unsigned k = 0; k < (1u << m); ++k) ladder.push_back(k * denormal);
  for (int binade = 1 - bias; ladder.size() < half; ++binade)
    for (unsigned k = 0; k < (1u << m); ++k)
      ladder.push_back(std::ldexp(1.0 + k / double(1u << m), binade));
  for (unsigned code = 0; code < half; ++code) {
    EXPECT_EQ(decode(static_cast<uint8_t>(code)), static_cast<float>(ladder[code])) << code;
    EXPECT_EQ(decode(static_cast<uint8_t>(code | half)), -static_cast<float>(ladder[code])) << code;
  }
  EXPECT_EQ(decode(static_cast<uint8_t>(half - 1)), max);
}

TEST(SmallFloats, Float6AndFloat4EveryCode) {
  expect_minifloat(float6_e2m3_to_float, 2, 3, 1, 7.5f);   // OCP MX: max 7.5
  expect_minifloat(float6_e3m2_to_float, 3, 2, 3, 28.0f);  // OCP MX: max 28
  expect_minifloat(float4_e2m1_to_float, 2, 1, 1, 6.0f);   // OCP MX: 0, 0.5, 1, 1.5, 2, 3, 4, 6
  expect_minifloat(float4_e1m2_to_float, 1, 2, 1, 1.75f);  // CANN: 0, 0.25, …, 1.75
  const float e2m1[] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (unsigned c = 0; c < 8; ++c)
    EXPECT_EQ(float4_e2m1_to_float(static_cast<uint8_t>(c)), e2m1[c]);
  const float e1m2[] = {0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75};
  for (unsigned c = 0; c < 8; ++c)
    EXPECT_EQ(float4_e1m2_to_float(static_cast<uint8_t>(c)), e1m2[c]);
}

TEST(SmallFloats, Float8E8M0EveryCode) {
  for (unsigned c = 0; c < 255; ++c)
    EXPECT_EQ(float8_e8m0_to_float(static_cast<uint8_t>(c)), std::ldexp(1.0f, int(c) - 127)) << c;
  EXPECT_TRUE(std::isnan(float8_e8m0_to_float(0xFF)));
}

// Packed 6- and 4-bit codes, first element in the low bits, through the bulk path.
TEST(SmallFloats, PackedBulkConversion) {
  // float6 codes 1, 2, 3, 63 packed LSB first: bits 000001 000010 000011 111111.
  const uint64_t packed = 1u | 2u << 6 | 3u << 12 | 63u << 18;
  auto e2m3 = tensor_of<uint8_t>(
      DType::Float6E2M3, {uint8_t(packed), uint8_t(packed >> 8), uint8_t(packed >> 16)}, {4});
  EXPECT_EQ(convert<float>(e2m3, 0, 4), (std::vector<float>{0.125f, 0.25f, 0.375f, -7.5f}));
  EXPECT_EQ(convert<float>(e2m3, 2, 2), (std::vector<float>{0.375f, -7.5f}));
  auto e1m2 = tensor_of<uint8_t>(DType::Float4E1M2, {0x71, 0x0F}, {3});
  EXPECT_EQ(convert<float>(e1m2, 0, 3), (std::vector<float>{0.25f, 1.75f, -1.75f}));
  auto hif8 = tensor_of<uint8_t>(DType::HiFloat8, {0x08, 0xEF, 0x80}, {3});
  auto f = convert<float>(hif8, 0, 3);
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], -INFINITY);
  EXPECT_TRUE(std::isnan(f[2]));
  std::vector<float> out(2);
  auto status = small_floats_to_float32(DType::Float6E3M2, e2m3.view.data, 3, 2, out.data());
  ASSERT_TRUE(status);
  EXPECT_EQ(status->describe(), "3 bytes hold fewer than 5 float6_e3m2 elements");
}

}  // namespace
}  // namespace msdt
