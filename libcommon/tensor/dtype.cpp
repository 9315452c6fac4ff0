#include "tensor/dtype.h"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

#include "tensor/dtype_label.h"

namespace msdt {
namespace {

struct Label {
  std::string_view text;
  DType dtype;
};

// TypeIdLabel spellings (dump spec §4.1, g_type_2_lable), also used after a "kNumberType" prefix.
// The width-less Int/UInt/Float/Complex are MindSpore's default-width aliases.
constexpr Label kCamelLabels[] = {
    {"Bool", DType::Bool},
    {"Int", DType::Int32},
    {"Int2", DType::Int2},
    {"Int4", DType::Int4},
    {"Int8", DType::Int8},
    {"Int16", DType::Int16},
    {"Int32", DType::Int32},
    {"Int64", DType::Int64},
    {"UInt", DType::UInt32},
    {"UInt1", DType::UInt1},
    {"UInt2", DType::UInt2},
    {"UInt8", DType::UInt8},
    {"UInt16", DType::UInt16},
    {"UInt32", DType::UInt32},
    {"UInt64", DType::UInt64},
    {"Float", DType::Float32},
    {"Float16", DType::Float16},
    {"Float32", DType::Float32},
    {"Float64", DType::Float64},
    {"BFloat16", DType::BFloat16},
    {"Complex", DType::Complex64},
    {"Complex32", DType::Complex32},
    {"Complex64", DType::Complex64},
    {"Complex128", DType::Complex128},
    {"Float8E5M2", DType::Float8E5M2},
    {"Float8E4M3FN", DType::Float8E4M3FN},
    {"HiFloat8", DType::HiFloat8},
};

// Lower-case TypeId strings (2.4+ npy names, statistic.csv) and our own dtype_name output.
constexpr Label kLowerLabels[] = {
    {"bool", DType::Bool},
    {"int2", DType::Int2},
    {"int4", DType::Int4},
    {"int8", DType::Int8},
    {"int16", DType::Int16},
    {"int32", DType::Int32},
    {"int64", DType::Int64},
    {"uint1", DType::UInt1},
    {"uint2", DType::UInt2},
    {"uint8", DType::UInt8},
    {"uint16", DType::UInt16},
    {"uint32", DType::UInt32},
    {"uint64", DType::UInt64},
    {"float16", DType::Float16},
    {"bfloat16", DType::BFloat16},
    {"float32", DType::Float32},
    {"float64", DType::Float64},
    {"complex32", DType::Complex32},
    {"complex64", DType::Complex64},
    {"complex128", DType::Complex128},
    {"float8_e5m2", DType::Float8E5M2},
    {"float8_e4m3fn", DType::Float8E4M3FN},
    {"float8_e8m0", DType::Float8E8M0},
    {"float8_e8m0fnu", DType::Float8E8M0},
    {"hifloat8", DType::HiFloat8},
    {"float6_e3m2", DType::Float6E3M2},
    {"float6_e3m2fn", DType::Float6E3M2},
    {"float6_e2m3", DType::Float6E2M3},
    {"float6_e2m3fn", DType::Float6E2M3},
    {"float4_e2m1", DType::Float4E2M1},
    {"float4_e2m1fn", DType::Float4E2M1},
    {"float4_e1m2", DType::Float4E1M2},
    {"hifloat4", DType::HiFloat4},
};

// CANN upper-case names (msprobe file names), also used after a "DT_" prefix. Quantised types are
// read as their integer type, as msaccucmp does (dump spec §5.5).
constexpr Label kUpperLabels[] = {
    {"BOOL", DType::Bool},
    {"INT2", DType::Int2},
    {"INT4", DType::Int4},
    {"INT8", DType::Int8},
    {"INT16", DType::Int16},
    {"INT32", DType::Int32},
    {"INT64", DType::Int64},
    {"UINT1", DType::UInt1},
    {"UINT2", DType::UInt2},
    {"UINT8", DType::UInt8},
    {"UINT16", DType::UInt16},
    {"UINT32", DType::UInt32},
    {"UINT64", DType::UInt64},
    {"QINT8", DType::Int8},
    {"QINT16", DType::Int16},
    {"QINT32", DType::Int32},
    {"QUINT8", DType::UInt8},
    {"QUINT16", DType::UInt16},
    {"FLOAT", DType::Float32},
    {"FLOAT16", DType::Float16},
    {"FLOAT32", DType::Float32},
    {"FLOAT64", DType::Float64},
    {"DOUBLE", DType::Float64},
    {"BF16", DType::BFloat16},
    {"BFLOAT16", DType::BFloat16},
    {"COMPLEX32", DType::Complex32},
    {"COMPLEX64", DType::Complex64},
    {"COMPLEX128", DType::Complex128},
    {"FLOAT8_E5M2", DType::Float8E5M2},
    {"FLOAT8_E4M3FN", DType::Float8E4M3FN},
    {"FLOAT8_E8M0", DType::Float8E8M0},
    {"HIFLOAT8", DType::HiFloat8},
    {"FLOAT6_E3M2", DType::Float6E3M2},
    {"FLOAT6_E2M3", DType::Float6E2M3},
    {"FLOAT4_E2M1", DType::Float4E2M1},
    {"FLOAT4_E1M2", DType::Float4E1M2},
    {"HIFLOAT4", DType::HiFloat4},
};

template <size_t N>
std::optional<DType> find_label(const Label (&table)[N], std::string_view text) {
  for (const auto& label : table)
    if (label.text == text) return label.dtype;
  return std::nullopt;
}

struct AscendType {
  std::string_view name;
  std::optional<DType> dtype;
};

// OutputDataType, the union of every dump_data.proto copy (dump spec §5.5), indexed by value.
const std::array<AscendType, 43> kAscendTypes = {{
    {"DT_UNDEFINED", std::nullopt},  // callers read these bytes as int8, as msaccucmp does
    {"DT_FLOAT", DType::Float32},
    {"DT_FLOAT16", DType::Float16},
    {"DT_INT8", DType::Int8},
    {"DT_UINT8", DType::UInt8},
    {"DT_INT16", DType::Int16},
    {"DT_UINT16", DType::UInt16},
    {"DT_INT32", DType::Int32},
    {"DT_INT64", DType::Int64},
    {"DT_UINT32", DType::UInt32},
    {"DT_UINT64", DType::UInt64},
    {"DT_BOOL", DType::Bool},
    {"DT_DOUBLE", DType::Float64},
    {"DT_STRING", std::nullopt},
    {"DT_DUAL_SUB_INT8", std::nullopt},
    {"DT_DUAL_SUB_UINT8", std::nullopt},
    {"DT_COMPLEX64", DType::Complex64},
    {"DT_COMPLEX128", DType::Complex128},
    {"DT_QINT8", DType::Int8},
    {"DT_QINT16", DType::Int16},
    {"DT_QINT32", DType::Int32},
    {"DT_QUINT8", DType::UInt8},
    {"DT_QUINT16", DType::UInt16},
    {"DT_RESOURCE", DType::Int64},  // msaccucmp reads resource handles as int64
    {"DT_STRING_REF", std::nullopt},
    {"DT_DUAL", std::nullopt},
    {"DT_VARIANT", std::nullopt},
    {"DT_BF16", DType::BFloat16},
    {"DT_INT4", DType::Int4},
    {"DT_UINT1", DType::UInt1},
    {"DT_INT2", DType::Int2},
    {"DT_UINT2", DType::UInt2},
    {"DT_COMPLEX32", DType::Complex32},
    {"DT_HIFLOAT8", DType::HiFloat8},
    {"DT_FLOAT8_E5M2", DType::Float8E5M2},
    {"DT_FLOAT8_E4M3FN", DType::Float8E4M3FN},
    {"DT_FLOAT8_E8M0", DType::Float8E8M0},
    {"DT_FLOAT6_E3M2", DType::Float6E3M2},
    {"DT_FLOAT6_E2M3", DType::Float6E2M3},
    {"DT_FLOAT4_E2M1", DType::Float4E2M1},
    {"DT_FLOAT4_E1M2", DType::Float4E1M2},
    {"DT_HIFLOAT4", DType::HiFloat4},
    {"DT_HIFLOAT4_SCALE", std::nullopt},  // layout undocumented
}};

}  // namespace

std::string_view dtype_label(DType dtype) {
  switch (dtype) {
    case DType::Bool:
      return "Bool";
    case DType::Int2:
      return "Int2";
    case DType::Int4:
      return "Int4";
    case DType::Int8:
      return "Int8";
    case DType::Int16:
      return "Int16";
    case DType::Int32:
      return "Int32";
    case DType::Int64:
      return "Int64";
    case DType::UInt1:
      return "UInt1";
    case DType::UInt2:
      return "UInt2";
    case DType::UInt8:
      return "UInt8";
    case DType::UInt16:
      return "UInt16";
    case DType::UInt32:
      return "UInt32";
    case DType::UInt64:
      return "UInt64";
    case DType::Float16:
      return "Float16";
    case DType::BFloat16:
      return "BFloat16";
    case DType::Float32:
      return "Float32";
    case DType::Float64:
      return "Float64";
    case DType::Complex32:
      return "Complex32";
    case DType::Complex64:
      return "Complex64";
    case DType::Complex128:
      return "Complex128";
    case DType::Float8E5M2:
      return "Float8E5M2";
    case DType::Float8E4M3FN:
      return "Float8E4M3FN";
    case DType::Float8E8M0:
      return "Float8E8M0";
    case DType::HiFloat8:
      return "HiFloat8";
    case DType::Float6E3M2:
      return "Float6E3M2";
    case DType::Float6E2M3:
      return "Float6E2M3";
    case DType::Float4E2M1:
      return "Float4E2M1";
    case DType::Float4E1M2:
      return "Float4E1M2";
    case DType::HiFloat4:
      return "HiFloat4";
    case DType::String:
      break;
  }
  return "String";
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Bool:
      return "bool";
    case DType::Int2:
      return "int2";
    case DType::Int4:
      return "int4";
    case DType::Int8:
      return "int8";
    case DType::Int16:
      return "int16";
    case DType::Int32:
      return "int32";
    case DType::Int64:
      return "int64";
    case DType::UInt1:
      return "uint1";
    case DType::UInt2:
      return "uint2";
    case DType::UInt8:
      return "uint8";
    case DType::UInt16:
      return "uint16";
    case DType::UInt32:
      return "uint32";
    case DType::UInt64:
      return "uint64";
    case DType::Float16:
      return "float16";
    case DType::BFloat16:
      return "bfloat16";
    case DType::Float32:
      return "float32";
    case DType::Float64:
      return "float64";
    case DType::Complex32:
      return "complex32";
    case DType::Complex64:
      return "complex64";
    case DType::Complex128:
      return "complex128";
    case DType::Float8E5M2:
      return "float8_e5m2";
    case DType::Float8E4M3FN:
      return "float8_e4m3fn";
    case DType::Float8E8M0:
      return "float8_e8m0";
    case DType::HiFloat8:
      return "hifloat8";
    case DType::Float6E3M2:
      return "float6_e3m2";
    case DType::Float6E2M3:
      return "float6_e2m3";
    case DType::Float4E2M1:
      return "float4_e2m1";
    case DType::Float4E1M2:
      return "float4_e1m2";
    case DType::HiFloat4:
      return "hifloat4";
    case DType::String:
      return "string";
  }
  return "unknown";
}

unsigned dtype_bits(DType dtype) {
  switch (dtype) {
    case DType::UInt1:
      return 1;
    case DType::Int2:
    case DType::UInt2:
      return 2;
    case DType::Int4:
    case DType::Float4E2M1:
    case DType::Float4E1M2:
    case DType::HiFloat4:
      return 4;
    case DType::Float6E3M2:
    case DType::Float6E2M3:
      return 6;
    case DType::Bool:
    case DType::Int8:
    case DType::UInt8:
    case DType::Float8E5M2:
    case DType::Float8E4M3FN:
    case DType::Float8E8M0:
    case DType::HiFloat8:
      return 8;
    case DType::Int16:
    case DType::UInt16:
    case DType::Float16:
    case DType::BFloat16:
      return 16;
    case DType::Int32:
    case DType::UInt32:
    case DType::Float32:
    case DType::Complex32:
      return 32;
    case DType::Int64:
    case DType::UInt64:
    case DType::Float64:
    case DType::Complex64:
      return 64;
    case DType::Complex128:
      return 128;
    case DType::String:
      return 0;
  }
  return 0;
}

std::optional<uint64_t> dtype_bytes(DType dtype, uint64_t count) {
  unsigned bits = dtype_bits(dtype);
  if (bits % 8 == 0) return checked_mul(count, bits / 8);
  // Split count = 8q + r so that count * bits cannot overflow where the byte count does not.
  auto whole = checked_mul(count / 8, bits);
  if (!whole) return std::nullopt;
  return checked_add(*whole, ((count % 8) * bits + 7) / 8);
}

std::optional<DType> parse_dtype_label(std::string_view label) {
  constexpr std::string_view kNumberType = "kNumberType";
  constexpr std::string_view kDt = "DT_";
  if (label.starts_with(kNumberType))
    return find_label(kCamelLabels, label.substr(kNumberType.size()));
  if (label.starts_with(kDt)) return find_label(kUpperLabels, label.substr(kDt.size()));
  if (auto found = find_label(kCamelLabels, label)) return found;
  if (auto found = find_label(kLowerLabels, label)) return found;
  return find_label(kUpperLabels, label);
}

std::optional<DType> parse_dtype_spelling(std::string_view text) {
  if (auto found = parse_dtype_label(text)) return found;
  std::string lower(text), upper(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (auto found = find_label(kLowerLabels, lower)) return found;
  if (auto found = find_label(kUpperLabels, upper)) return found;
  static constexpr Label kShortNames[] = {
      {"bf16", DType::BFloat16},  {"fp16", DType::Float16},   {"half", DType::Float16},
      {"fp32", DType::Float32},   {"single", DType::Float32}, {"fp64", DType::Float64},
      {"double", DType::Float64},
  };
  if (auto found = find_label(kShortNames, lower)) return found;
  std::string_view code = text;
  if (!code.empty() && (code[0] == '<' || code[0] == '>' || code[0] == '|' || code[0] == '='))
    code.remove_prefix(1);
  return dtype_from_npy_code(code);
}

std::optional<DType> dtype_from_ascend(uint64_t output_data_type) {
  if (output_data_type >= kAscendTypes.size()) return std::nullopt;
  return kAscendTypes[output_data_type].dtype;
}

std::string_view ascend_dtype_name(uint64_t output_data_type) {
  if (output_data_type >= kAscendTypes.size()) return {};
  return kAscendTypes[output_data_type].name;
}

std::optional<DType> dtype_from_npy_code(std::string_view code) {
  static constexpr Label kCodes[] = {
      {"b1", DType::Bool},     {"?", DType::Bool},       {"i1", DType::Int8},
      {"i2", DType::Int16},    {"i4", DType::Int32},     {"i8", DType::Int64},
      {"u1", DType::UInt8},    {"u2", DType::UInt16},    {"u4", DType::UInt32},
      {"u8", DType::UInt64},   {"f2", DType::Float16},   {"f4", DType::Float32},
      {"f8", DType::Float64},  {"c8", DType::Complex64}, {"c16", DType::Complex128},
      {"E2", DType::BFloat16},  // MindSpore's non-standard bfloat16 (dump spec §5.2)
  };
  return find_label(kCodes, code);
}

std::string_view npy_descr(DType dtype) {
  switch (dtype) {
    case DType::Bool:
      return "|b1";
    case DType::Int8:
      return "|i1";
    case DType::UInt8:
      return "|u1";
    case DType::Int16:
      return "<i2";
    case DType::Int32:
      return "<i4";
    case DType::Int64:
      return "<i8";
    case DType::UInt16:
      return "<u2";
    case DType::UInt32:
      return "<u4";
    case DType::UInt64:
      return "<u8";
    case DType::Float16:
      return "<f2";
    case DType::Float32:
      return "<f4";
    case DType::Float64:
      return "<f8";
    case DType::Complex64:
      return "<c8";
    case DType::Complex128:
      return "<c16";
    default:
      return {};
  }
}

float half_to_float(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1Fu;
  uint32_t mantissa = bits & 0x3FFu;
  uint32_t out;
  if (exponent == 0x1F) {
    out = sign | 0x7F800000u | (mantissa << 13);
  } else if (exponent != 0) {
    out = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    out = sign;
  } else {
    // Subnormal half: normalise into a float32 exponent.
    int shift = 0;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3FFu;
    out = sign | (static_cast<uint32_t>(113 - shift) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(out);
}

float bfloat16_to_float(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

float float8_e4m3fn_to_float(uint8_t bits) {
  // E4M3FN has no infinities; S.1111.111 is NaN, everything else is finite (bias 7).
  float sign = (bits & 0x80u) ? -1.0f : 1.0f;
  unsigned exponent = (bits >> 3) & 0xFu;
  unsigned mantissa = bits & 0x7u;
  if (exponent == 0xF && mantissa == 0x7) return std::numeric_limits<float>::quiet_NaN();
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -9);
  return sign * std::ldexp(static_cast<float>(8 + mantissa), static_cast<int>(exponent) - 10);
}

float float8_e5m2_to_float(uint8_t bits) {
  // E5M2 is the top byte of an IEEE half.
  return half_to_float(static_cast<uint16_t>(bits << 8));
}

float hifloat8_to_float(uint8_t bits) {
  const float sign = (bits & 0x80u) ? -1.0f : 1.0f;
  const unsigned v = bits & 0x7Fu;
  if (v == 0) return bits == 0x80 ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
  if (v == 0x6F) return sign * std::numeric_limits<float>::infinity();
  unsigned dot_bits = 0, exponent_bits = 0;  // lengths of the dot and exponent fields
  if (v >> 5 != 0) {
    dot_bits = 2;
    exponent_bits = (v >> 5) + 1;  // 01: 2, 10: 3, 11: 4
  } else if (v >> 4 != 0) {
    dot_bits = 3;
    exponent_bits = 1;
  } else if (v >> 3 != 0) {
    dot_bits = 4;
    exponent_bits = 0;
  } else {
    return sign * std::ldexp(1.0f, static_cast<int>(v & 7u) - 23);  // denormal
  }
  const unsigned mantissa_bits = 7 - dot_bits - exponent_bits;
  const unsigned mantissa = v & ((1u << mantissa_bits) - 1);
  const unsigned field = (v >> mantissa_bits) & ((1u << exponent_bits) - 1);
  int exponent = 0;
  if (exponent_bits > 0) {
    const unsigned low = exponent_bits - 1;
    const int magnitude = static_cast<int>((1u << low) | (field & ((1u << low) - 1)));
    exponent = (field >> low) ? -magnitude : magnitude;
  }
  const float significand =
      1.0f + static_cast<float>(mantissa) / static_cast<float>(1u << mantissa_bits);
  return sign * std::ldexp(significand, exponent);
}

float float8_e8m0_to_float(uint8_t bits) {
  if (bits == 0xFF) return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0f, static_cast<int>(bits) - 127);
}

namespace {

// A minifloat with `e` exponent and `m` mantissa bits, no infinities and no NaN.
float minifloat_to_float(uint8_t bits, unsigned e, unsigned m, int bias) {
  const float sign = (bits >> (e + m)) & 1u ? -1.0f : 1.0f;
  const unsigned exponent = (bits >> m) & ((1u << e) - 1);
  const unsigned mantissa = bits & ((1u << m) - 1);
  const int shift = static_cast<int>(m);
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), 1 - bias - shift);
  return sign * std::ldexp(static_cast<float>((1u << m) + mantissa),
                           static_cast<int>(exponent) - bias - shift);
}

}  // namespace

float float6_e2m3_to_float(uint8_t bits) { return minifloat_to_float(bits, 2, 3, 1); }
float float6_e3m2_to_float(uint8_t bits) { return minifloat_to_float(bits, 3, 2, 3); }
float float4_e2m1_to_float(uint8_t bits) { return minifloat_to_float(bits, 2, 1, 1); }
float float4_e1m2_to_float(uint8_t bits) { return minifloat_to_float(bits, 1, 2, 1); }

Expected<uint64_t> element_count(std::span<const uint64_t> shape) {
  uint64_t count = 1;
  bool overflow = false;
  for (uint64_t dim : shape) {
    auto next = checked_mul(count, dim);
    if (!next) {
      overflow = true;
      break;
    }
    count = *next;
  }
  // A zero dimension makes the product 0 even if an earlier partial product overflowed.
  if (overflow) {
    for (uint64_t dim : shape)
      if (dim == 0) return uint64_t{0};
    std::string dims;
    for (uint64_t dim : shape) dims += fmt::format("{}{}", dims.empty() ? "" : ", ", dim);
    return Error(fmt::format("shape ({}) has more than 2^64 elements", dims));
  }
  return count;
}

}  // namespace msdt
