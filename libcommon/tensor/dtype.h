// One dtype table for every spelling a dump uses (dump spec §4.1, §5.5, §9.3): MindSpore labels
// (Float32, kNumberTypeFloat32), lower-case TypeId strings (float32), CANN upper-case names
// (FLOAT, BF16), DumpData OutputDataType numbers and npy descr strings.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "io/byte_reader.h"

namespace msdt {

enum class DType : uint8_t {
  Bool,
  Int2,
  Int4,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt1,
  UInt2,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Complex32,
  Complex64,
  Complex128,
  Float8E5M2,
  Float8E4M3FN,
  Float8E8M0,
  HiFloat8,
  Float6E3M2,
  Float6E2M3,
  Float4E2M1,
  Float4E1M2,
  HiFloat4,
  String,
};

// NumPy-style name: "float32", "bfloat16", "int4", "float8_e4m3fn", "complex64", "bool".
std::string_view dtype_name(DType dtype);
// Bits per element; sub-byte types are packed (dump spec §5.7). 0 for String.
unsigned dtype_bits(DType dtype);
// Bytes needed for `count` elements, rounding packed types up; nullopt on overflow; 0 for String.
std::optional<uint64_t> dtype_bytes(DType dtype, uint64_t count);

// Any spelling of the label families above, case-sensitive as written by the producers:
// "Float32", "kNumberTypeFloat32", "float32", "FLOAT", "FLOAT32", "BF16", "bfloat16", "DT_FLOAT".
// Exact matches only (format words such as "ND" or "DefaultFormat" give nullopt); width-less
// "Int", "UInt", "Float", "Complex" are Int32, UInt32, Float32, Complex64; QINT8/QUINT8/… are
// their integer types. Every dtype_name() parses back.
std::optional<DType> parse_dtype_label(std::string_view label);

// What a user may type for a dtype (--dtype): every parse_dtype_label spelling in any letter case,
// the short names bf16, fp16, half, fp32, single, fp64, double, and NumPy descr strings with or
// without byte order ("<f4", "f4", "|b1", "<E2").
std::optional<DType> parse_dtype_spelling(std::string_view text);

// DumpData OutputDataType (dump spec §5.5). Quantised and resource types map to the integer type
// msaccucmp reads them as; types with no element layout (string, variant, dual, undefined) give
// nullopt.
std::optional<DType> dtype_from_ascend(uint64_t output_data_type);
// "DT_FLOAT", or an empty view for a value outside the enum.
std::string_view ascend_dtype_name(uint64_t output_data_type);

// npy descr without byte order ("f4", "E2", "b1"); the caller handles '<', '>', '|', '='.
std::optional<DType> dtype_from_npy_code(std::string_view code);
// Standard descr with byte order ("<f4", "|b1"); empty for types npy cannot hold.
std::string_view npy_descr(DType dtype);

// IEEE half and bfloat16 to float, exact.
float half_to_float(uint16_t bits);
float bfloat16_to_float(uint16_t bits);
float float8_e4m3fn_to_float(uint8_t bits);
float float8_e5m2_to_float(uint8_t bits);

// A tensor's elements in a mapped file or a buffer; `data` holds exactly dtype_bytes(count).
struct TensorView {
  DType dtype;
  std::vector<uint64_t> shape;  // empty: a 0-d tensor with one element
  Bytes data;
};

// Product of the dimensions with an overflow check: "shape (1000000,…) has more than 2^64
// elements".
Expected<uint64_t> element_count(std::span<const uint64_t> shape);

}  // namespace msdt
