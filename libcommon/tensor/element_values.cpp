#include "tensor/element_values.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "tensor/element_convert.h"

namespace msdt {
namespace {

constexpr uint64_t kChunk = 4096;

template <class T>
void widen(const std::byte* p, uint64_t n, double* out) {
  for (uint64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    out[i] = static_cast<double>(v);
  }
}

// Sums in double with Neumaier's compensation, so a mean over many elements keeps its digits.
struct CompensatedSum {
  double sum = 0, carry = 0;
  void add(double x) {
    double t = sum + x;
    carry += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  double value() const { return sum + carry; }
};

// Calls fn(values, count) over the tensor in chunks of doubles.
template <class Fn>
Status for_each_chunk(const TensorView& tensor, Fn&& fn) {
  MSDT_TRY(uint64_t count, element_count(tensor.shape));
  std::vector<double> buffer(std::min(count, kChunk));
  for (uint64_t first = 0; first < count; first += kChunk) {
    uint64_t n = std::min(kChunk, count - first);
    MSDT_CHECK(elements_to_double(tensor, first, n, buffer.data()));
    fn(buffer.data(), n);
  }
  return std::nullopt;
}

}  // namespace

bool has_real_values(DType dtype) {
  switch (dtype) {
    case DType::Complex32:
    case DType::Complex64:
    case DType::Complex128:
    case DType::HiFloat4:
    case DType::String:
      return false;
    default:
      return true;
  }
}

Status elements_to_double(const TensorView& t, uint64_t first, uint64_t n, double* out) {
  if (!has_real_values(t.dtype))
    return Error(fmt::format("{} elements are not real numbers", dtype_name(t.dtype)));
  auto need = dtype_bytes(t.dtype, first + n);
  if (!need || *need > t.data.size())
    return Error(fmt::format("the tensor holds fewer than {} elements", first + n));
  const unsigned bits = dtype_bits(t.dtype);
  const std::byte* base = t.data.data();
  const std::byte* p = base + (bits >= 8 ? first * (bits / 8) : 0);
  switch (t.dtype) {
    case DType::Bool:
      for (uint64_t i = 0; i < n; ++i) out[i] = std::to_integer<uint8_t>(p[i]) != 0 ? 1.0 : 0.0;
      return std::nullopt;
    case DType::Int8:
      widen<int8_t>(p, n, out);
      return std::nullopt;
    case DType::Int16:
      widen<int16_t>(p, n, out);
      return std::nullopt;
    case DType::Int32:
      widen<int32_t>(p, n, out);
      return std::nullopt;
    case DType::Int64:
      widen<int64_t>(p, n, out);
      return std::nullopt;
    case DType::UInt8:
      widen<uint8_t>(p, n, out);
      return std::nullopt;
    case DType::UInt16:
      widen<uint16_t>(p, n, out);
      return std::nullopt;
    case DType::UInt32:
      widen<uint32_t>(p, n, out);
      return std::nullopt;
    case DType::UInt64:
      widen<uint64_t>(p, n, out);
      return std::nullopt;
    case DType::Float32:
      widen<float>(p, n, out);
      return std::nullopt;
    case DType::Float64:
      widen<double>(p, n, out);
      return std::nullopt;
    case DType::Float16:
    case DType::BFloat16:
      for (uint64_t i = 0; i < n; ++i) {
        uint16_t bits16;
        std::memcpy(&bits16, p + 2 * i, 2);
        out[i] = t.dtype == DType::Float16 ? half_to_float(bits16) : bfloat16_to_float(bits16);
      }
      return std::nullopt;
    case DType::Int4:
    case DType::Int2:
    case DType::UInt2:
    case DType::UInt1:
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t e = first + i, bit = e * bits;
        unsigned byte = std::to_integer<unsigned>(base[bit / 8]);
        unsigned code;
        if (t.dtype == DType::UInt1)
          code = (byte >> (7 - bit % 8)) & 1u;  // most significant bit first
        else
          code = (byte >> (bit % 8)) & ((1u << bits) - 1);
        int value = static_cast<int>(code);
        if ((t.dtype == DType::Int4 || t.dtype == DType::Int2) && (code >> (bits - 1)))
          value -= 1 << bits;
        out[i] = value;
      }
      return std::nullopt;
    default: {  // the small float encodings
      std::vector<float> floats(n);
      MSDT_CHECK(small_floats_to_float32(t.dtype, t.data, first, n, floats.data()));
      for (uint64_t i = 0; i < n; ++i) out[i] = floats[i];
      return std::nullopt;
    }
  }
}

Expected<std::vector<uint64_t>> count_in_ranges(const TensorView& tensor,
                                                std::span<const std::pair<double, double>> ranges) {
  std::vector<uint64_t> counts(ranges.size(), 0);
  if (tensor.dtype == DType::Float32) {
    // Compared in float lanes: double(x) >= low exactly when x >= the least float >= low (and
    // likewise for high), so the count is the one the double comparison gives.
    MSDT_TRY(uint64_t count, element_count(tensor.shape));
    if (count * 4 > tensor.data.size())
      return Error("the tensor holds fewer elements than its shape");
    for (size_t r = 0; r < ranges.size(); ++r) {
      auto [low, high] = ranges[r];
      if (std::isnan(low) || std::isnan(high)) continue;
      float lo = static_cast<float>(low), hi = static_cast<float>(high);
      if (static_cast<double>(lo) < low)
        lo = std::nextafter(lo, std::numeric_limits<float>::infinity());
      if (static_cast<double>(hi) > high)
        hi = std::nextafter(hi, -std::numeric_limits<float>::infinity());
      uint64_t c = 0;
      for (uint64_t first = 0; first < count; first += kChunk) {
        float v[kChunk];
        uint64_t n = std::min(kChunk, count - first);
        std::memcpy(v, tensor.data.data() + first * 4, n * 4);
        uint32_t k = 0;
        for (uint64_t i = 0; i < n; ++i) k += (v[i] >= lo) & (v[i] <= hi);
        c += k;
      }
      counts[r] = c;
    }
    return counts;
  }
  MSDT_CHECK(for_each_chunk(tensor, [&](const double* v, uint64_t n) {
    for (size_t r = 0; r < ranges.size(); ++r) {
      const double low = ranges[r].first, high = ranges[r].second;
      uint64_t c = 0;
      for (uint64_t i = 0; i < n; ++i) c += (v[i] >= low) & (v[i] <= high);
      counts[r] += c;
    }
  }));
  return counts;
}

Expected<ChangeStats> change_stats(const TensorView& current, const TensorView& previous,
                                   std::span<const std::pair<double, double>> tolerances) {
  MSDT_TRY(uint64_t count, element_count(current.shape));
  MSDT_TRY(uint64_t previous_count, element_count(previous.shape));
  if (count != previous_count)
    return Error(
        fmt::format("the previous tensor has {} elements, this one {}", previous_count, count));
  ChangeStats out;
  out.all_close.assign(tolerances.size(), true);
  CompensatedSum diff, prev_abs;
  std::vector<double> cur(std::min(count, kChunk)), prev(std::min(count, kChunk));
  for (uint64_t first = 0; first < count; first += kChunk) {
    uint64_t n = std::min(kChunk, count - first);
    MSDT_CHECK(elements_to_double(current, first, n, cur.data()));
    MSDT_CHECK(elements_to_double(previous, first, n, prev.data()));
    for (uint64_t i = 0; i < n; ++i) {
      double d = std::fabs(cur[i] - prev[i]), a = std::fabs(prev[i]);
      diff.add(d);
      prev_abs.add(a);
      for (size_t k = 0; k < tolerances.size(); ++k)
        if (!(d <= tolerances[k].second + tolerances[k].first * a)) out.all_close[k] = false;
    }
  }
  if (count > 0) {
    out.mean_abs_diff = diff.value() / static_cast<double>(count);
    out.mean_abs_prev = prev_abs.value() / static_cast<double>(count);
  }
  return out;
}

}  // namespace msdt
