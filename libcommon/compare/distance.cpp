#include "compare/distance.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "io/parallel.h"
#include "tensor/stats.h"

namespace msdt::compare {
namespace {

constexpr size_t kBlock = 4096;

// Four interleaved sets of sums, so that the additions of neighbouring elements do not wait on
// each other (and the compiler can keep them in vector registers).
struct Lanes {
  double aa[4] = {}, bb[4] = {}, ab[4] = {}, dd[4] = {}, mx[4] = {};

  void add(const double* x, const double* y, size_t n) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
      for (size_t k = 0; k < 4; ++k) {
        const double a = x[i + k], b = y[i + k], d = a - b;
        aa[k] += a * a;
        bb[k] += b * b;
        ab[k] += a * b;
        dd[k] += d * d;
        mx[k] = std::max(mx[k], std::fabs(d));
      }
    for (; i < n; ++i) {
      const double a = x[i], b = y[i], d = a - b;
      aa[0] += a * a;
      bb[0] += b * b;
      ab[0] += a * b;
      dd[0] += d * d;
      mx[0] = std::max(mx[0], std::fabs(d));
    }
  }
  void add_float32(const std::byte* x, const std::byte* y, size_t n) {
    auto at = [](const std::byte* p, size_t i) {
      float v;
      std::memcpy(&v, p + 4 * i, 4);
      return static_cast<double>(v);
    };
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
      for (size_t k = 0; k < 4; ++k) {
        const double a = at(x, i + k), b = at(y, i + k), d = a - b;
        aa[k] += a * a;
        bb[k] += b * b;
        ab[k] += a * b;
        dd[k] += d * d;
        mx[k] = std::max(mx[k], std::fabs(d));
      }
    for (; i < n; ++i) {
      const double a = at(x, i), b = at(y, i), d = a - b;
      aa[0] += a * a;
      bb[0] += b * b;
      ab[0] += a * b;
      dd[0] += d * d;
      mx[0] = std::max(mx[0], std::fabs(d));
    }
  }
  void into(DistanceSums& s) const {
    for (size_t k = 0; k < 4; ++k) {
      s.sum_aa += aa[k];
      s.sum_bb += bb[k];
      s.sum_ab += ab[k];
      s.sum_dd += dd[k];
      s.max_abs = std::max(s.max_abs, mx[k]);
    }
  }
};

// Elements [first, first + n) of `t` widened to double.
void widen(const TensorView& t, uint64_t first, size_t n, double* out, float* scratch) {
  const std::byte* p = t.data.data();
  switch (t.dtype) {
    case DType::Float64:
      std::memcpy(out, p + first * 8, n * 8);
      return;
    case DType::Float32:
      std::memcpy(scratch, p + first * 4, n * 4);
      break;
    default:  // Float16, BFloat16
      sixteen_bit_floats_to_float32(t.dtype, p + first * 2, n, scratch);
      break;
  }
  for (size_t i = 0; i < n; ++i) out[i] = scratch[i];
}

// float32 pairs straight from the bytes (unaligned loads: a checkpoint does not align them).
DistanceSums float32_sums(const TensorView& a, const TensorView& b, uint64_t first, uint64_t n) {
  DistanceSums out;
  const std::byte* pa = a.data.data() + first * 4;
  const std::byte* pb = b.data.data() + first * 4;
  for (uint64_t done = 0; done < n; done += kBlock) {
    const size_t m = static_cast<size_t>(std::min<uint64_t>(kBlock, n - done));
    Lanes lanes;
    lanes.add_float32(pa + done * 4, pb + done * 4, m);
    lanes.into(out);
  }
  out.count = n;
  return out;
}

DistanceSums chunk_sums(const TensorView& a, const TensorView& b, uint64_t first, uint64_t n) {
  if (a.dtype == DType::Float32) return float32_sums(a, b, first, n);
  DistanceSums out;
  std::vector<double> x(kBlock), y(kBlock);
  std::vector<float> scratch(kBlock);
  for (uint64_t done = 0; done < n; done += kBlock) {
    const size_t m = static_cast<size_t>(std::min<uint64_t>(kBlock, n - done));
    widen(a, first + done, m, x.data(), scratch.data());
    widen(b, first + done, m, y.data(), scratch.data());
    Lanes lanes;
    lanes.add(x.data(), y.data(), m);
    lanes.into(out);
  }
  out.count = n;
  return out;
}

}  // namespace

std::optional<DistanceSums> distance_sums(const TensorView& a, const TensorView& b, unsigned jobs) {
  if (a.dtype != b.dtype) return std::nullopt;
  if (a.dtype != DType::Float32 && a.dtype != DType::Float64 && a.dtype != DType::Float16 &&
      a.dtype != DType::BFloat16)
    return std::nullopt;
  const uint64_t size = dtype_bits(a.dtype) / 8;
  const uint64_t count = std::min(a.data.size(), b.data.size()) / size;
  const size_t chunks = static_cast<size_t>((count + kDistanceChunk - 1) / kDistanceChunk);
  std::vector<DistanceSums> parts(chunks);
  parallel_for(chunks, std::max(1u, jobs), [&](size_t c) {
    const uint64_t first = c * kDistanceChunk;
    parts[c] = chunk_sums(a, b, first, std::min(kDistanceChunk, count - first));
  });
  DistanceSums out;
  for (const DistanceSums& p : parts) {
    out.count += p.count;
    out.sum_aa += p.sum_aa;
    out.sum_bb += p.sum_bb;
    out.sum_ab += p.sum_ab;
    out.sum_dd += p.sum_dd;
    out.max_abs = std::max(out.max_abs, p.max_abs);
  }
  if (!std::isfinite(out.sum_aa) || !std::isfinite(out.sum_bb) || !std::isfinite(out.sum_ab) ||
      !std::isfinite(out.sum_dd) || !std::isfinite(out.max_abs))
    return std::nullopt;
  return out;
}

}  // namespace msdt::compare
