#include "tensor/element_values.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "io/parallel.h"
#include "tensor/element_convert.h"
#include "tensor/stats.h"
#include "tensor/two_sum.h"

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
  void add_chunk(double chunk) { two_sum(sum, carry, chunk); }
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

namespace {

// Elements [first, first + n) of the tensor exist in its bytes.
Status check_holds(const TensorView& t, uint64_t first, uint64_t n) {
  auto need = dtype_bytes(t.dtype, first + n);
  if (!need || *need > t.data.size())
    return Error(fmt::format("the tensor holds fewer than {} elements", first + n));
  return std::nullopt;
}

bool float_lanes(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float16 || dtype == DType::BFloat16;
}

// Adds to `counts` the elements of [first, first + n) within each range.
Status add_range_counts(const TensorView& tensor, uint64_t first, uint64_t n,
                        std::span<const std::pair<double, double>> ranges,
                        std::vector<uint64_t>& counts) {
  if (ranges.empty() || n == 0) return std::nullopt;
  MSDT_CHECK(check_holds(tensor, first, n));
  if (float_lanes(tensor.dtype)) {
    // Compared in float lanes: double(x) >= low exactly when x >= the least float >= low (and
    // likewise for high), so the counts are those of the double comparison.
    const uint64_t size = dtype_bits(tensor.dtype) / 8;
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
    for (uint64_t at = first; at < first + n; at += kChunk) {
      uint64_t m = std::min(kChunk, first + n - at);
      const std::byte* p = tensor.data.data() + at * size;
      if (tensor.dtype == DType::Float32)
        std::memcpy(v, p, m * 4);
      else
        sixteen_bit_floats_to_float32(tensor.dtype, p, m, v);
      for (size_t r = 0; r < bounds.size(); ++r) {
        const float lo = bounds[r].first, hi = bounds[r].second;
        uint32_t k = 0;
        for (uint64_t i = 0; i < m; ++i) k += (v[i] >= lo) & (v[i] <= hi);
        counts[r] += k;
      }
    }
    return std::nullopt;
  }
  double v[kChunk];
  for (uint64_t at = first; at < first + n; at += kChunk) {
    uint64_t m = std::min(kChunk, first + n - at);
    MSDT_CHECK(elements_to_double(tensor, at, m, v));
    for (size_t r = 0; r < ranges.size(); ++r) {
      const double low = ranges[r].first, high = ranges[r].second;
      uint64_t c = 0;
      for (uint64_t i = 0; i < m; ++i) c += (v[i] >= low) & (v[i] <= high);
      counts[r] += c;
    }
  }
  return std::nullopt;
}

// Sums of |cur - prev| and |prev| and the tolerance misses over some elements, merged in order.
struct ChangeSums {
  ChunkedSum diff, prev_abs;
  std::vector<uint64_t> far;
  void merge(const ChangeSums& later) {
    diff.add_chunk(later.diff.value());
    prev_abs.add_chunk(later.prev_abs.value());
    for (size_t k = 0; k < far.size(); ++k) far[k] += later.far[k];
  }
  ChangeStats finish(uint64_t count) const {
    ChangeStats out;
    for (uint64_t f : far) out.all_close.push_back(f == 0);
    if (count > 0) {
      out.mean_abs_diff = diff.value() / static_cast<double>(count);
      out.mean_abs_prev = prev_abs.value() / static_cast<double>(count);
    }
    return out;
  }
};

Status add_change(const TensorView& current, const TensorView& previous, uint64_t first, uint64_t n,
                  std::span<const std::pair<double, double>> tolerances, ChangeSums& sums) {
  if (n == 0) return std::nullopt;
  MSDT_CHECK(check_holds(current, first, n));
  MSDT_CHECK(check_holds(previous, first, n));
  // |cur - prev| and |prev| of one chunk, then their lane sums and the tolerance counts.
  double d[kChunk], a[kChunk];
  const bool both_float32 = current.dtype == DType::Float32 && previous.dtype == DType::Float32;
  for (uint64_t at = first; at < first + n; at += kChunk) {
    const uint64_t m = std::min(kChunk, first + n - at);
    if (both_float32) {
      float c[kChunk], q[kChunk];
      std::memcpy(c, current.data.data() + at * 4, m * 4);
      std::memcpy(q, previous.data.data() + at * 4, m * 4);
      for (uint64_t i = 0; i < m; ++i) {
        double x = c[i], y = q[i];
        d[i] = std::fabs(x - y);
        a[i] = std::fabs(y);
      }
    } else {
      double c[kChunk];
      MSDT_CHECK(elements_to_double(current, at, m, c));
      MSDT_CHECK(elements_to_double(previous, at, m, a));
      for (uint64_t i = 0; i < m; ++i) {
        d[i] = std::fabs(c[i] - a[i]);
        a[i] = std::fabs(a[i]);
      }
    }
    double ld[8] = {}, la[8] = {};
    uint64_t i = 0;
    for (; i + 8 <= m; i += 8)
      for (int l = 0; l < 8; ++l) {
        ld[l] += d[i + static_cast<uint64_t>(l)];
        la[l] += a[i + static_cast<uint64_t>(l)];
      }
    for (; i < m; ++i) {
      ld[0] += d[i];
      la[0] += a[i];
    }
    sums.diff.add_chunk(((ld[0] + ld[1]) + (ld[2] + ld[3])) + ((ld[4] + ld[5]) + (ld[6] + ld[7])));
    sums.prev_abs.add_chunk(((la[0] + la[1]) + (la[2] + la[3])) +
                            ((la[4] + la[5]) + (la[6] + la[7])));
    for (size_t k = 0; k < tolerances.size(); ++k) {
      const double rtol = tolerances[k].first, atol = tolerances[k].second;
      uint64_t bad = 0;
      for (uint64_t j = 0; j < m; ++j) bad += !(d[j] <= atol + rtol * a[j]);
      sums.far[k] += bad;
    }
  }
  return std::nullopt;
}

Status same_count(const TensorView& current, const TensorView& previous, uint64_t& count) {
  MSDT_TRY(count, element_count(current.shape));
  MSDT_TRY(uint64_t previous_count, element_count(previous.shape));
  if (count != previous_count)
    return Error(
        fmt::format("the previous tensor has {} elements, this one {}", previous_count, count));
  return std::nullopt;
}

}  // namespace

Expected<std::vector<uint64_t>> count_in_ranges(const TensorView& tensor,
                                                std::span<const std::pair<double, double>> ranges) {
  MSDT_TRY(uint64_t count, element_count(tensor.shape));
  std::vector<uint64_t> counts(ranges.size(), 0);
  MSDT_CHECK(add_range_counts(tensor, 0, count, ranges, counts));
  return counts;
}

Expected<ChangeStats> change_stats(const TensorView& current, const TensorView& previous,
                                   std::span<const std::pair<double, double>> tolerances) {
  uint64_t count = 0;
  MSDT_CHECK(same_count(current, previous, count));
  ChangeSums sums;
  sums.far.assign(tolerances.size(), 0);
  MSDT_CHECK(add_change(current, previous, 0, count, tolerances, sums));
  return sums.finish(count);
}

TensorPass one_pass(const TensorView& tensor, unsigned jobs, const PassRequest& request) {
  TensorPass out;
  const bool extras =
      has_real_values(tensor.dtype) && (!request.ranges.empty() || request.previous != nullptr);
  auto count = element_count(tensor.shape);
  if (!extras || !count) {
    out.stats = compute_stats(tensor, jobs);
    if (!count)
      out.extras_error = count.error();
    else if (has_real_values(tensor.dtype) && !request.ranges.empty())
      out.range_counts.assign(request.ranges.size(), 0);
    return out;
  }
  uint64_t change_count = 0;
  bool change = request.previous != nullptr;
  if (change) {
    if (auto error = same_count(tensor, *request.previous, change_count)) {
      out.change_error = std::move(*error);
      change = false;
    } else if (!has_real_values(request.previous->dtype)) {
      out.change_error = Error(fmt::format("the previous tensor holds {} elements",
                                           dtype_name(request.previous->dtype)));
      change = false;
    }
  }
  // The chunks of compute_stats, so the statistics are its own bit for bit; within a chunk the
  // extra passes follow the statistics block by block while the block is in cache.
  constexpr uint64_t kBlockElements = uint64_t{1} << 16;
  // Never past the bytes, as compute_stats.
  const uint64_t bits = dtype_bits(tensor.dtype);
  const uint64_t available = tensor.data.size() / bits * 8 + (tensor.data.size() % bits) * 8 / bits;
  const uint64_t usable = std::min(*count, available);
  const size_t chunks = static_cast<size_t>((usable + kStatsChunk - 1) / kStatsChunk);
  std::vector<StatsAccumulator> stats(chunks);
  std::vector<std::vector<uint64_t>> counts(chunks,
                                            std::vector<uint64_t>(request.ranges.size(), 0));
  std::vector<ChangeSums> sums(chunks);
  std::vector<Status> problems(chunks);
  for (auto& s : sums) s.far.assign(request.tolerances.size(), 0);
  parallel_for(chunks, jobs, [&](size_t c) {
    const uint64_t first = c * kStatsChunk, end = std::min(usable, first + kStatsChunk);
    for (uint64_t at = first; at < end; at += kBlockElements) {
      const uint64_t n = std::min(kBlockElements, end - at);
      stats[c].add(tensor, at, n);
      if (!problems[c]) problems[c] = add_range_counts(tensor, at, n, request.ranges, counts[c]);
      if (change && !problems[c])
        problems[c] = add_change(tensor, *request.previous, at, n, request.tolerances, sums[c]);
    }
  });
  StatsAccumulator total;
  ChangeSums change_total;
  change_total.far.assign(request.tolerances.size(), 0);
  out.range_counts.assign(request.ranges.size(), 0);
  for (size_t c = 0; c < chunks; ++c) {
    total.merge(stats[c]);
    for (size_t r = 0; r < request.ranges.size(); ++r) out.range_counts[r] += counts[c][r];
    change_total.merge(sums[c]);
    if (problems[c] && !out.extras_error) out.extras_error = problems[c];
  }
  out.stats.count = *count;
  total.fill(out.stats);
  if (change && !out.extras_error) out.change = change_total.finish(change_count);
  return out;
}

}  // namespace msdt
