#include "tensor/element_values.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "tensor/element_convert.h"
#include "tensor/stats.h"

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

// A sum in double over many chunks: each chunk of at most kChunk values is summed in eight
// lanes (vectorised; error within about 512 ulp of the chunk sum), and the chunk sums are added
// with Knuth's TwoSum, so the error does not grow with the element count.
struct ChunkedSum {
  double sum = 0, carry = 0;
  void add_chunk(double chunk) {
    double t = sum + chunk, z = t - sum;
    carry += (sum - (t - z)) + (chunk - z);
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
    case DType::BFloat16: {
      float floats[kChunk];
      for (uint64_t done = 0; done < n; done += kChunk) {
        uint64_t m = std::min(kChunk, n - done);
        sixteen_bit_floats_to_float32(t.dtype, p + 2 * done, m, floats);
        for (uint64_t i = 0; i < m; ++i) out[done + i] = floats[i];
      }
      return std::nullopt;
    }
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
  const bool float_lanes = tensor.dtype == DType::Float32 || tensor.dtype == DType::Float16 ||
                           tensor.dtype == DType::BFloat16;
  if (float_lanes) {
    // Compared in float lanes: double(x) >= low exactly when x >= the least float >= low (and
    // likewise for high), so the counts are those of the double comparison.
    MSDT_TRY(uint64_t count, element_count(tensor.shape));
    const uint64_t size = dtype_bits(tensor.dtype) / 8;
    if (count > tensor.data.size() / size)
      return Error("the tensor holds fewer elements than its shape says");
    std::vector<std::pair<float, float>> bounds;
    for (auto [low, high] : ranges) {
      float lo = static_cast<float>(low), hi = static_cast<float>(high);
      if (static_cast<double>(lo) < low)
        lo = std::nextafter(lo, std::numeric_limits<float>::infinity());
      if (static_cast<double>(hi) > high)
        hi = std::nextafter(hi, -std::numeric_limits<float>::infinity());
      if (std::isnan(low) || std::isnan(high)) lo = 1, hi = 0;  // an empty range
      bounds.emplace_back(lo, hi);
    }
    float v[kChunk];
    for (uint64_t first = 0; first < count; first += kChunk) {
      uint64_t n = std::min(kChunk, count - first);
      const std::byte* p = tensor.data.data() + first * size;
      if (tensor.dtype == DType::Float32)
        std::memcpy(v, p, n * 4);
      else
        sixteen_bit_floats_to_float32(tensor.dtype, p, n, v);
      for (size_t r = 0; r < bounds.size(); ++r) {
        const float lo = bounds[r].first, hi = bounds[r].second;
        uint32_t k = 0;
        for (uint64_t i = 0; i < n; ++i) k += (v[i] >= lo) & (v[i] <= hi);
        counts[r] += k;
      }
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
  ChunkedSum diff, prev_abs;
  std::vector<uint64_t> far(tolerances.size(), 0);
  // |cur - prev| and |prev| of one chunk, then their lane sums and the tolerance counts.
  double d[kChunk], a[kChunk];
  std::vector<double> cur, prev;
  const bool both_float32 = current.dtype == DType::Float32 && previous.dtype == DType::Float32 &&
                            current.data.size() / 4 >= count && previous.data.size() / 4 >= count;
  for (uint64_t first = 0; first < count; first += kChunk) {
    const uint64_t n = std::min(kChunk, count - first);
    if (both_float32) {
      float c[kChunk], q[kChunk];
      std::memcpy(c, current.data.data() + first * 4, n * 4);
      std::memcpy(q, previous.data.data() + first * 4, n * 4);
      for (uint64_t i = 0; i < n; ++i) {
        double x = c[i], y = q[i];
        d[i] = std::fabs(x - y);
        a[i] = std::fabs(y);
      }
    } else {
      cur.resize(n);
      prev.resize(n);
      MSDT_CHECK(elements_to_double(current, first, n, cur.data()));
      MSDT_CHECK(elements_to_double(previous, first, n, prev.data()));
      for (uint64_t i = 0; i < n; ++i) {
        d[i] = std::fabs(cur[i] - prev[i]);
        a[i] = std::fabs(prev[i]);
      }
    }
    double ld[8] = {}, la[8] = {};
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int l = 0; l < 8; ++l) {
        ld[l] += d[i + static_cast<uint64_t>(l)];
        la[l] += a[i + static_cast<uint64_t>(l)];
      }
    for (; i < n; ++i) {
      ld[0] += d[i];
      la[0] += a[i];
    }
    diff.add_chunk(((ld[0] + ld[1]) + (ld[2] + ld[3])) + ((ld[4] + ld[5]) + (ld[6] + ld[7])));
    prev_abs.add_chunk(((la[0] + la[1]) + (la[2] + la[3])) + ((la[4] + la[5]) + (la[6] + la[7])));
    for (size_t k = 0; k < tolerances.size(); ++k) {
      const double rtol = tolerances[k].first, atol = tolerances[k].second;
      uint64_t bad = 0;
      for (uint64_t j = 0; j < n; ++j) bad += !(d[j] <= atol + rtol * a[j]);
      far[k] += bad;
    }
  }
  for (size_t k = 0; k < tolerances.size(); ++k) out.all_close[k] = far[k] == 0;
  if (count > 0) {
    out.mean_abs_diff = diff.value() / static_cast<double>(count);
    out.mean_abs_prev = prev_abs.value() / static_cast<double>(count);
  }
  return out;
}

}  // namespace msdt
