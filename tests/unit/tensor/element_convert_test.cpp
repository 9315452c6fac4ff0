#include "tensor/element_convert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

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
  for (DType none :
       {DType::String, DType::Int2, DType::UInt2, DType::Float6E3M2, DType::Float6E2M3,
        DType::Float4E2M1, DType::Float4E1M2, DType::HiFloat8, DType::HiFloat4, DType::Float8E8M0})
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
  auto hf = tensor_of<uint8_t>(DType::HiFloat8, {1}, {1});
  auto status = convert_elements(hf.view, 0, 1, Bf16Mode::Float32, out);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->describe(), "cannot convert hifloat8 elements to a standard npy type");
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

}  // namespace
}  // namespace msdt
