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

  void one(size_t k, double a, double b) {
    const double d = a - b;
    aa[k] += a * a;
    bb[k] += b * b;
    ab[k] += a * b;
    dd[k] += d * d;
    mx[k] = std::max(mx[k], std::fabs(d));
  }
  // `n` elements of type T (float or double) at `x` and `y`, read unaligned: a checkpoint does
  // not align its tensors.
  template <class T>
  void add(const std::byte* x, const std::byte* y, size_t n) {
    auto at = [](const std::byte* p, size_t i) {
      T v;
      std::memcpy(&v, p + sizeof(T) * i, sizeof(T));
      return static_cast<double>(v);
    };
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
      for (size_t k = 0; k < 4; ++k) one(k, at(x, i + k), at(y, i + k));
    for (; i < n; ++i) one(0, at(x, i), at(y, i));
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

// Elements [first, first + n) of a pair, block by block: float32 and float64 straight from the
// bytes, float16 and bfloat16 through float32 first.
DistanceSums chunk_sums(const TensorView& a, const TensorView& b, uint64_t first, uint64_t n) {
  DistanceSums out;
  const uint64_t size = dtype_bits(a.dtype) / 8;
  const std::byte* pa = a.data.data() + first * size;
  const std::byte* pb = b.data.data() + first * size;
  std::vector<float> x(size == 2 ? kBlock : 0), y(size == 2 ? kBlock : 0);  // 16-bit as float32
  for (uint64_t done = 0; done < n; done += kBlock) {
    const size_t m = static_cast<size_t>(std::min<uint64_t>(kBlock, n - done));
    const std::byte* xa = pa + done * size;
    const std::byte* xb = pb + done * size;
    Lanes lanes;
    if (a.dtype == DType::Float64) {
      lanes.add<double>(xa, xb, m);
    } else if (a.dtype == DType::Float32) {
      lanes.add<float>(xa, xb, m);
    } else {
      sixteen_bit_floats_to_float32(a.dtype, xa, m, x.data());
      sixteen_bit_floats_to_float32(b.dtype, xb, m, y.data());
      lanes.add<float>(reinterpret_cast<const std::byte*>(x.data()),
                       reinterpret_cast<const std::byte*>(y.data()), m);
    }
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
