#include "tensor/element_convert.h"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cstring>

namespace msdt {
namespace {

void append_u16(std::vector<std::byte>& out, uint16_t v) {
  out.push_back(static_cast<std::byte>(v & 0xFF));
  out.push_back(static_cast<std::byte>(v >> 8));
}

void append_f32(std::vector<std::byte>& out, float f) {
  uint32_t v = std::bit_cast<uint32_t>(f);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xFF));
}

// Element i of a packed type of `bits` (4 or 6) per element, first element in the low bits
// (dump spec §5.7; the packing mkfixture writes).
uint8_t packed_code(const std::byte* data, uint64_t i, unsigned bits, uint64_t size) {
  const uint64_t bit = i * bits;
  unsigned window = static_cast<uint8_t>(data[bit / 8]);
  if (bit / 8 + 1 < size)
    window |= static_cast<unsigned>(static_cast<uint8_t>(data[bit / 8 + 1])) << 8;
  return static_cast<uint8_t>((window >> (bit % 8)) & ((1u << bits) - 1));
}

}  // namespace

std::optional<float (*)(uint8_t)> small_float_decoder(DType dtype) {
  switch (dtype) {
    case DType::Float8E4M3FN:
      return float8_e4m3fn_to_float;
    case DType::Float8E5M2:
      return float8_e5m2_to_float;
    case DType::Float8E8M0:
      return float8_e8m0_to_float;
    case DType::HiFloat8:
      return hifloat8_to_float;
    case DType::Float6E2M3:
      return float6_e2m3_to_float;
    case DType::Float6E3M2:
      return float6_e3m2_to_float;
    case DType::Float4E2M1:
      return float4_e2m1_to_float;
    case DType::Float4E1M2:
      return float4_e1m2_to_float;
    default:
      return std::nullopt;
  }
}

float small_float_at(DType dtype, Bytes data, uint64_t i) {
  const auto decode = *small_float_decoder(dtype);
  const unsigned bits = dtype_bits(dtype);
  if (bits == 8) return decode(static_cast<uint8_t>(data[i]));
  return decode(packed_code(data.data(), i, bits, data.size()));
}

Status small_floats_to_float32(DType dtype, Bytes data, uint64_t first, uint64_t count,
                               float* out) {
  if (!small_float_decoder(dtype))
    return Error(fmt::format("{} is not an 8-bit or smaller float type", dtype_name(dtype)));
  auto end = checked_add(first, count);
  auto needed = end ? dtype_bytes(dtype, *end) : std::nullopt;
  if (!needed || *needed > data.size())
    return Error(fmt::format("{} bytes hold fewer than {} {} elements", data.size(),
                             end ? fmt::format("{}", *end) : "2^64", dtype_name(dtype)));
  const auto decode = *small_float_decoder(dtype);
  const unsigned bits = dtype_bits(dtype);
  if (bits == 8) {
    // A 256-entry table: one lookup per element.
    std::array<float, 256> table;
    for (unsigned c = 0; c < 256; ++c) table[c] = decode(static_cast<uint8_t>(c));
    for (uint64_t i = 0; i < count; ++i) out[i] = table[static_cast<uint8_t>(data[first + i])];
  } else {
    for (uint64_t i = 0; i < count; ++i)
      out[i] = decode(packed_code(data.data(), first + i, bits, data.size()));
  }
  return std::nullopt;
}

std::optional<DType> npy_storage_dtype(DType dtype, Bf16Mode bf16) {
  if (small_float_decoder(dtype)) return DType::Float32;
  switch (dtype) {
    case DType::BFloat16:
      return bf16 == Bf16Mode::Raw ? DType::UInt16 : DType::Float32;
    case DType::Int4:
      return DType::Int8;
    case DType::UInt1:
      return DType::UInt8;
    case DType::Complex32:
      return DType::Complex64;
    default:
      if (!npy_descr(dtype).empty()) return dtype;
      return std::nullopt;
  }
}

bool stored_as_is(DType dtype, Bf16Mode bf16) { return npy_storage_dtype(dtype, bf16) == dtype; }

Status convert_elements(const TensorView& tensor, uint64_t first, uint64_t count, Bf16Mode bf16,
                        std::vector<std::byte>& out) {
  auto target = npy_storage_dtype(tensor.dtype, bf16);
  if (!target)
    return Error(
        fmt::format("cannot convert {} elements to a standard npy type", dtype_name(tensor.dtype)));
  MSDT_TRY(uint64_t total, element_count(tensor.shape));
  auto end = checked_add(first, count);
  if (!end)
    return Error(
        fmt::format("element range starting at {} with {} elements overflows", first, count));
  if (*end > total)
    return Error(fmt::format("cannot convert elements [{}, {}): the tensor has {} elements", first,
                             *end, total));
  auto needed = dtype_bytes(tensor.dtype, *end);
  if (!needed || *needed > tensor.data.size())
    return Error(fmt::format("tensor data holds {} bytes, fewer than the {} elements need",
                             tensor.data.size(), *end));
  const std::byte* data = tensor.data.data();
  auto byte_at = [&](uint64_t i) { return static_cast<uint8_t>(data[i]); };

  if (*target == tensor.dtype) {
    unsigned size = dtype_bits(tensor.dtype) / 8;
    out.insert(out.end(), data + first * size, data + *end * size);
    return std::nullopt;
  }
  if (auto grow = dtype_bytes(*target, count)) out.reserve(out.size() + *grow);
  if (small_float_decoder(tensor.dtype)) {
    std::vector<float> values(count);
    MSDT_CHECK(small_floats_to_float32(tensor.dtype, tensor.data, first, count, values.data()));
    for (float f : values) append_f32(out, f);
    return std::nullopt;
  }
  switch (tensor.dtype) {
    case DType::BFloat16:
      for (uint64_t i = first; i < *end; ++i) {
        uint16_t bits = load_u16le(data + 2 * i);
        if (bf16 == Bf16Mode::Raw)
          append_u16(out, bits);
        else
          append_f32(out, bfloat16_to_float(bits));
      }
      break;
    case DType::Int4:
      // Low nibble first, sign-extended (dump spec §5.2, SplitInt8ToInt4x2).
      for (uint64_t i = first; i < *end; ++i) {
        unsigned nibble = (byte_at(i / 2) >> (4 * (i % 2))) & 0xFu;
        out.push_back(static_cast<std::byte>(static_cast<uint8_t>((nibble ^ 8u) - 8u)));
      }
      break;
    case DType::UInt1:
      // Most significant bit first, as np.unpackbits (msaccucmp, dump spec §5.5).
      for (uint64_t i = first; i < *end; ++i)
        out.push_back(static_cast<std::byte>((byte_at(i / 8) >> (7 - i % 8)) & 1u));
      break;
    case DType::Complex32:
      // Real and imaginary float16 halves, each widened to float32.
      for (uint64_t i = first; i < *end; ++i) {
        append_f32(out, half_to_float(load_u16le(data + 4 * i)));
        append_f32(out, half_to_float(load_u16le(data + 4 * i + 2)));
      }
      break;
    default:
      return Error(fmt::format("cannot convert {} elements to a standard npy type",
                               dtype_name(tensor.dtype)));
  }
  return std::nullopt;
}

}  // namespace msdt
