#include "tensor/dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tensor/dtype_label.h"

namespace msdt {
namespace {

TEST(DtypeLabel, AcceptsEveryFamily) {
  struct Case {
    const char* label;
    DType dtype;
  };
  const Case cases[] = {
      {"Bool", DType::Bool},
      {"Int8", DType::Int8},
      {"Int16", DType::Int16},
      {"Int32", DType::Int32},
      {"Int64", DType::Int64},
      {"UInt8", DType::UInt8},
      {"UInt16", DType::UInt16},
      {"UInt32", DType::UInt32},
      {"UInt64", DType::UInt64},
      {"Float16", DType::Float16},
      {"Float32", DType::Float32},
      {"Float64", DType::Float64},
      {"BFloat16", DType::BFloat16},
      {"Int4", DType::Int4},
      {"Complex64", DType::Complex64},
      {"Complex128", DType::Complex128},
      {"Int", DType::Int32},
      {"UInt", DType::UInt32},
      {"Float", DType::Float32},
      {"Complex", DType::Complex64},
      {"kNumberTypeFloat32", DType::Float32},
      {"kNumberTypeBool", DType::Bool},
      {"kNumberTypeBFloat16", DType::BFloat16},
      {"kNumberTypeInt", DType::Int32},
      {"float32", DType::Float32},
      {"float16", DType::Float16},
      {"bfloat16", DType::BFloat16},
      {"float64", DType::Float64},
      {"int4", DType::Int4},
      {"uint1", DType::UInt1},
      {"bool", DType::Bool},
      {"complex64", DType::Complex64},
      {"complex128", DType::Complex128},
      {"float8_e4m3fn", DType::Float8E4M3FN},
      {"float8_e5m2", DType::Float8E5M2},
      {"FLOAT", DType::Float32},
      {"FLOAT16", DType::Float16},
      {"FLOAT32", DType::Float32},
      {"BF16", DType::BFloat16},
      {"DOUBLE", DType::Float64},
      {"INT8", DType::Int8},
      {"INT64", DType::Int64},
      {"UINT8", DType::UInt8},
      {"UINT64", DType::UInt64},
      {"BOOL", DType::Bool},
      {"COMPLEX64", DType::Complex64},
      {"COMPLEX128", DType::Complex128},
      {"INT4", DType::Int4},
      {"UINT1", DType::UInt1},
      {"FLOAT8_E5M2", DType::Float8E5M2},
      {"FLOAT8_E4M3FN", DType::Float8E4M3FN},
      {"HIFLOAT8", DType::HiFloat8},
      {"QINT8", DType::Int8},
      {"DT_FLOAT", DType::Float32},
      {"DT_BF16", DType::BFloat16},
      {"DT_DOUBLE", DType::Float64},
      {"DT_QUINT16", DType::UInt16},
      {"DT_FLOAT8_E4M3FN", DType::Float8E4M3FN},
  };
  for (const auto& c : cases) {
    auto parsed = parse_dtype_label(c.label);
    ASSERT_TRUE(parsed.has_value()) << c.label;
    EXPECT_EQ(*parsed, c.dtype) << c.label;
  }
}

TEST(DtypeLabel, RejectsEverythingElse) {
  for (const char* label : {"",
                            "DefaultFormat",
                            "ND",
                            "NCHW",
                            "NC1HWC0",
                            "FRACTAL_NZ",
                            "output",
                            "input",
                            "0",
                            "12",
                            "float",
                            "Float32 ",
                            " Float32",
                            "FLOAT32x",
                            "kNumberType",
                            "kNumberTypeFLOAT",
                            "DT_",
                            "DT_Float32",
                            "DT_UNDEFINED",
                            "DT_STRING",
                            "Float33",
                            "f4",
                            "<f4",
                            "float32_",
                            "Bool1",
                            "BOOL_",
                            "fp32",
                            "FP16",
                            "kNumberTypefloat32",
                            "int"}) {
    EXPECT_FALSE(parse_dtype_label(label).has_value()) << '"' << label << '"';
  }
}

TEST(DtypeLabel, NamesRoundTrip) {
  for (int i = 0; i <= static_cast<int>(DType::HiFloat4); ++i) {
    auto dtype = static_cast<DType>(i);
    auto parsed = parse_dtype_label(dtype_name(dtype));
    ASSERT_TRUE(parsed.has_value()) << dtype_name(dtype);
    EXPECT_EQ(*parsed, dtype);
  }
  EXPECT_EQ(dtype_name(DType::Float8E4M3FN), "float8_e4m3fn");
  EXPECT_EQ(dtype_name(DType::BFloat16), "bfloat16");
  EXPECT_EQ(dtype_name(DType::String), "string");
}

TEST(DtypeAscend, EveryValue) {
  EXPECT_EQ(dtype_from_ascend(0), std::nullopt);
  EXPECT_EQ(dtype_from_ascend(1), DType::Float32);
  EXPECT_EQ(dtype_from_ascend(2), DType::Float16);
  EXPECT_EQ(dtype_from_ascend(3), DType::Int8);
  EXPECT_EQ(dtype_from_ascend(4), DType::UInt8);
  EXPECT_EQ(dtype_from_ascend(5), DType::Int16);
  EXPECT_EQ(dtype_from_ascend(6), DType::UInt16);
  EXPECT_EQ(dtype_from_ascend(7), DType::Int32);
  EXPECT_EQ(dtype_from_ascend(8), DType::Int64);
  EXPECT_EQ(dtype_from_ascend(9), DType::UInt32);
  EXPECT_EQ(dtype_from_ascend(10), DType::UInt64);
  EXPECT_EQ(dtype_from_ascend(11), DType::Bool);
  EXPECT_EQ(dtype_from_ascend(12), DType::Float64);
  EXPECT_EQ(dtype_from_ascend(13), std::nullopt);
  EXPECT_EQ(dtype_from_ascend(14), std::nullopt);
  EXPECT_EQ(dtype_from_ascend(15), std::nullopt);
  EXPECT_EQ(dtype_from_ascend(16), DType::Complex64);
  EXPECT_EQ(dtype_from_ascend(17), DType::Complex128);
  EXPECT_EQ(dtype_from_ascend(18), DType::Int8);
  EXPECT_EQ(dtype_from_ascend(19), DType::Int16);
  EXPECT_EQ(dtype_from_ascend(20), DType::Int32);
  EXPECT_EQ(dtype_from_ascend(21), DType::UInt8);
  EXPECT_EQ(dtype_from_ascend(22), DType::UInt16);
  EXPECT_EQ(dtype_from_ascend(23), DType::Int64);
  EXPECT_EQ(dtype_from_ascend(24), std::nullopt);
  EXPECT_EQ(dtype_from_ascend(25), std::nullopt);
  EXPECT_EQ(dtype_from_ascend(26), std::nullopt);
  EXPECT_EQ(dtype_from_ascend(27), DType::BFloat16);
  EXPECT_EQ(dtype_from_ascend(28), DType::Int4);
  EXPECT_EQ(dtype_from_ascend(29), DType::UInt1);
  EXPECT_EQ(dtype_from_ascend(30), DType::Int2);
  EXPECT_EQ(dtype_from_ascend(31), DType::UInt2);
  EXPECT_EQ(dtype_from_ascend(32), DType::Complex32);
  EXPECT_EQ(dtype_from_ascend(33), DType::HiFloat8);
  EXPECT_EQ(dtype_from_ascend(34), DType::Float8E5M2);
  EXPECT_EQ(dtype_from_ascend(35), DType::Float8E4M3FN);
  EXPECT_EQ(dtype_from_ascend(36), DType::Float8E8M0);
  EXPECT_EQ(dtype_from_ascend(37), DType::Float6E3M2);
  EXPECT_EQ(dtype_from_ascend(38), DType::Float6E2M3);
  EXPECT_EQ(dtype_from_ascend(39), DType::Float4E2M1);
  EXPECT_EQ(dtype_from_ascend(40), DType::Float4E1M2);
  EXPECT_EQ(dtype_from_ascend(41), DType::HiFloat4);
  EXPECT_EQ(dtype_from_ascend(42), std::nullopt);
  EXPECT_EQ(dtype_from_ascend(43), std::nullopt);
  EXPECT_EQ(dtype_from_ascend(0xFFFFFFFFu), std::nullopt);
}

TEST(DtypeAscend, Names) {
  EXPECT_EQ(ascend_dtype_name(0), "DT_UNDEFINED");
  EXPECT_EQ(ascend_dtype_name(1), "DT_FLOAT");
  EXPECT_EQ(ascend_dtype_name(12), "DT_DOUBLE");
  EXPECT_EQ(ascend_dtype_name(23), "DT_RESOURCE");
  EXPECT_EQ(ascend_dtype_name(27), "DT_BF16");
  EXPECT_EQ(ascend_dtype_name(35), "DT_FLOAT8_E4M3FN");
  EXPECT_EQ(ascend_dtype_name(42), "DT_HIFLOAT4_SCALE");
  EXPECT_EQ(ascend_dtype_name(43), "");
  // Every name with an element type parses back to it; a resource handle is no dtype word.
  EXPECT_EQ(parse_dtype_label("DT_RESOURCE"), std::nullopt);
  for (uint32_t v = 0; v < 43; ++v) {
    auto dtype = dtype_from_ascend(v);
    if (!dtype || v == 23) continue;
    EXPECT_EQ(parse_dtype_label(ascend_dtype_name(v)), dtype) << ascend_dtype_name(v);
  }
}

TEST(DtypeSize, BitsAndBytes) {
  EXPECT_EQ(dtype_bits(DType::UInt1), 1u);
  EXPECT_EQ(dtype_bits(DType::Int4), 4u);
  EXPECT_EQ(dtype_bits(DType::Float6E3M2), 6u);
  EXPECT_EQ(dtype_bits(DType::Bool), 8u);
  EXPECT_EQ(dtype_bits(DType::Complex32), 32u);
  EXPECT_EQ(dtype_bits(DType::Complex128), 128u);
  EXPECT_EQ(dtype_bits(DType::String), 0u);
  EXPECT_EQ(dtype_bytes(DType::Float32, 6), 24u);
  EXPECT_EQ(dtype_bytes(DType::Int4, 3), 2u);
  EXPECT_EQ(dtype_bytes(DType::Int4, 4), 2u);
  EXPECT_EQ(dtype_bytes(DType::UInt1, 9), 2u);
  EXPECT_EQ(dtype_bytes(DType::Float6E2M3, 4), 3u);
  EXPECT_EQ(dtype_bytes(DType::Float6E2M3, 5), 4u);
  EXPECT_EQ(dtype_bytes(DType::Float32, 0), 0u);
  EXPECT_EQ(dtype_bytes(DType::Float32, uint64_t{1} << 62), std::nullopt);
  EXPECT_EQ(dtype_bytes(DType::UInt8, ~uint64_t{0}), ~uint64_t{0});
  // count * bits overflows, the byte count does not.
  EXPECT_EQ(dtype_bytes(DType::UInt1, ~uint64_t{0}), uint64_t{1} << 61);
  EXPECT_EQ(dtype_bytes(DType::Int4, ~uint64_t{0}), uint64_t{1} << 63);
}

TEST(DtypeNpy, Codes) {
  EXPECT_EQ(dtype_from_npy_code("f4"), DType::Float32);
  EXPECT_EQ(dtype_from_npy_code("b1"), DType::Bool);
  EXPECT_EQ(dtype_from_npy_code("c16"), DType::Complex128);
  EXPECT_EQ(dtype_from_npy_code("E2"), DType::BFloat16);
  EXPECT_EQ(dtype_from_npy_code("<f4"), std::nullopt);
  EXPECT_EQ(dtype_from_npy_code("V2"), std::nullopt);
  EXPECT_EQ(dtype_from_npy_code("f3"), std::nullopt);
  EXPECT_EQ(npy_descr(DType::Float32), "<f4");
  EXPECT_EQ(npy_descr(DType::Bool), "|b1");
  EXPECT_EQ(npy_descr(DType::UInt8), "|u1");
  EXPECT_EQ(npy_descr(DType::Complex64), "<c8");
  EXPECT_EQ(npy_descr(DType::BFloat16), "");
  EXPECT_EQ(npy_descr(DType::Int4), "");
}

TEST(DtypeConvert, Half) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0xC000), -2.0f);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(half_to_float(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));
  EXPECT_TRUE(std::signbit(half_to_float(0x8000)));
  EXPECT_EQ(half_to_float(0x8000), 0.0f);
  EXPECT_EQ(half_to_float(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(half_to_float(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(half_to_float(0x7E00)));
  EXPECT_EQ(half_to_float(0x3555), 0.333251953125f);
}

TEST(DtypeConvert, BFloat16AndFloat8) {
  EXPECT_EQ(bfloat16_to_float(0x3F80), 1.0f);
  EXPECT_EQ(bfloat16_to_float(0x3F8D), 1.1015625f);
  EXPECT_EQ(bfloat16_to_float(0xFF80), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(float8_e4m3fn_to_float(0x38), 1.0f);
  EXPECT_EQ(float8_e4m3fn_to_float(0x7E), 448.0f);
  EXPECT_EQ(float8_e4m3fn_to_float(0xFE), -448.0f);
  EXPECT_EQ(float8_e4m3fn_to_float(0x01), std::ldexp(1.0f, -9));
  EXPECT_EQ(float8_e4m3fn_to_float(0x08), std::ldexp(1.0f, -6));
  EXPECT_TRUE(std::isnan(float8_e4m3fn_to_float(0x7F)));
  EXPECT_TRUE(std::isnan(float8_e4m3fn_to_float(0xFF)));
  EXPECT_EQ(float8_e4m3fn_to_float(0x78), 256.0f);  // no infinity in E4M3FN
  EXPECT_EQ(float8_e5m2_to_float(0x3C), 1.0f);
  EXPECT_EQ(float8_e5m2_to_float(0x7B), 57344.0f);
  EXPECT_EQ(float8_e5m2_to_float(0x7C), std::numeric_limits<float>::infinity());
  EXPECT_EQ(float8_e5m2_to_float(0x01), std::ldexp(1.0f, -16));
  EXPECT_TRUE(std::isnan(float8_e5m2_to_float(0x7F)));
}

TEST(DtypeShape, ElementCount) {
  std::vector<uint64_t> empty;
  EXPECT_EQ(*element_count(empty), 1u);
  std::vector<uint64_t> s{2, 3, 4};
  EXPECT_EQ(*element_count(s), 24u);
  std::vector<uint64_t> zero{0, 5};
  EXPECT_EQ(*element_count(zero), 0u);
  std::vector<uint64_t> huge{uint64_t{1} << 32, uint64_t{1} << 32};
  auto r = element_count(huge);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "shape (4294967296, 4294967296) has more than 2^64 elements");
  std::vector<uint64_t> huge_then_zero{uint64_t{1} << 40, uint64_t{1} << 40, 0};
  EXPECT_EQ(*element_count(huge_then_zero), 0u);
  std::vector<uint64_t> max{~uint64_t{0}};
  EXPECT_EQ(*element_count(max), ~uint64_t{0});
}

TEST(DType, LabelIsMindSporesCamelCaseSpelling) {
  EXPECT_EQ(dtype_label(DType::Float32), "Float32");
  EXPECT_EQ(dtype_label(DType::BFloat16), "BFloat16");
  EXPECT_EQ(dtype_label(DType::UInt8), "UInt8");
  EXPECT_EQ(dtype_label(DType::Int4), "Int4");
  EXPECT_EQ(dtype_label(DType::Float8E4M3FN), "Float8E4M3FN");
  EXPECT_EQ(dtype_label(DType::String), "String");
  EXPECT_EQ(dtype_label(DType::HiFloat4), "HiFloat4");
  // Every label that MindSpore's TypeId names share reads back as its dtype.
  for (int i = 0; i <= static_cast<int>(DType::String); ++i) {
    const auto dtype = static_cast<DType>(i);
    const std::string_view label = dtype_label(dtype);
    EXPECT_FALSE(label.empty());
    if (auto back = parse_dtype_label(label)) {
      EXPECT_EQ(*back, dtype) << label;
    }
  }
  for (DType d : {DType::Bool, DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::UInt8,
                  DType::UInt16, DType::UInt32, DType::UInt64, DType::Float16, DType::Float32,
                  DType::Float64, DType::BFloat16, DType::Complex64, DType::Complex128, DType::Int4,
                  DType::Float8E5M2, DType::Float8E4M3FN, DType::HiFloat8})
    EXPECT_EQ(parse_dtype_label(dtype_label(d)), d) << dtype_label(d);
}

}  // namespace
}  // namespace msdt
