// Private to tensor/stats*.cpp: the block kernels behind compute_stats.
//
// A block (at most kBlock elements, so it stays in L1) is read twice:
//   pass 1, in the element type's own lanes: the counts, min and max; and, in double lanes, the
//           sum of the finite elements with TwoSum (error-free: the rounding error of every
//           addition is kept in a second accumulator), which gives the block mean;
//   pass 2, in double lanes: Σ(x - mean), Σ(x - mean)², Σ|x| and Σx², so that the block's second
//           moment is the accurate two-pass one (NumPy's np.std) and blocks merge with Chan's
//           formula.
// Integer blocks sum exactly: int32 values in doubles (a block's sum stays below 2^53), int64 and
// uint64 split into their high and low 32 bits. A float64 block whose sums overflow a double is
// redone in long double by the scalar code. Float32 blocks (and the bfloat16 and wide 8-bit floats
// widened to float32) take one pass when they can (vector_f32_one_pass: sums exact without TwoSum,
// the second moment about the previous block's mean) and the two passes above when they cannot.
//
// scalar_*_block is the reference every vector path is tested against; vector_*_block<Bytes> is
// the same algorithm on Bytes-wide GCC/clang vectors, instantiated inside functions compiled for
// SSE2, AVX2, AVX-512 (stats_x86.cpp) or NEON (stats_neon.cpp). Counts and extremes agree bit for
// bit between them; sums differ only by the order of the additions.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tensor/stats.h"
#include "tensor/two_sum.h"

// The vector helpers below take vectors by value but are always inlined into functions compiled
// for the vector width, so the ABI note about passing them between such functions does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace msdt::stats_detail {

inline constexpr size_t kBlock = 1024;
// Sums of squares are added in runs of kRun vector steps before they join the block's sums: one
// large square (an outlier far from the mean) then loses the low bits of a few run sums instead
// of those of every later square.
inline constexpr size_t kRun = 16;

struct BlockSums {
  uint64_t count = 0, nan = 0, pos_inf = 0, neg_inf = 0, zero = 0, negative = 0, finite = 0;
  double min = std::numeric_limits<double>::infinity();  // floating-point kernels, non-NaN
  double max = -std::numeric_limits<double>::infinity();
  int64_t imin = std::numeric_limits<int64_t>::max();  // int32 and int64 kernels
  int64_t imax = std::numeric_limits<int64_t>::min();
  uint64_t umin = std::numeric_limits<uint64_t>::max(), umax = 0;  // uint64 kernel
  // Over the finite elements: the sum is sum + sum_err (both exact for integer blocks); m2 is
  // Σ(x - block mean)².
  long double sum = 0, sum_err = 0, abs_sum = 0, sq_sum = 0, m2 = 0;
  // Input of the one-pass float32 kernel: a value near the block's mean (the mean of the block
  // before it), NaN when there is none. Results do not depend on it beyond rounding.
  double shift = std::numeric_limits<double>::quiet_NaN();
};

using FloatBlock = void (*)(const std::byte* data, size_t n, BlockSums& out);
using ToFloats = void (*)(const std::byte* data, size_t n, float* out);

// One dispatch path: block kernels by element type and the 16-bit float converters.
struct KernelTable {
  FloatBlock f32, f64, i32, i64, u64;
  FloatBlock f32_small_grid;  // float32 holding float16 / float8 / float4 values
  ToFloats half, bfloat16;
};

// nullptr when the path is not compiled into this binary; the caller checks the CPU.
const KernelTable* x86_kernels(StatsPath path);
const KernelTable* neon_kernels();

template <class T>
inline T load(const std::byte* p, size_t i) {
  T value;
  std::memcpy(&value, p + i * sizeof(T), sizeof(T));
  return value;
}

using msdt::two_sum;  // tensor/two_sum.h

// ---- one element at a time: the scalar reference, and the tails of the vector kernels --------

// Pass 1 of a floating-point block: counts, extremes and the compensated sum of finite elements.
template <class T, class Acc>
struct FloatPass1 {
  static constexpr T kInf = std::numeric_limits<T>::infinity();
  uint64_t nan = 0, pos_inf = 0, neg_inf = 0, zero = 0, negative = 0;
  T min = kInf, max = -kInf;
  Acc sum = 0, err = 0;

  void add(T x) {
    nan += x != x;
    pos_inf += x == kInf;
    neg_inf += x == -kInf;
    zero += x == 0;
    negative += x < 0;
    min = x < min ? x : min;
    max = x > max ? x : max;
    if (x - x == 0) two_sum(sum, err, static_cast<Acc>(x));
  }
  // The counts and extremes into `b` (which is reset); the sums stay here until pass 2 is done.
  void finish(BlockSums& b, size_t n) const {
    b = BlockSums{};
    b.count = n;
    b.nan = nan;
    b.pos_inf = pos_inf;
    b.neg_inf = neg_inf;
    b.zero = zero;
    b.negative = negative;
    b.finite = n - nan - pos_inf - neg_inf;
    b.min = min;
    b.max = max;
  }
  Acc mean(uint64_t finite) const { return (sum + err) / static_cast<Acc>(finite); }

  // The lanes of a vector kernel: counts (comparison results, -1 per true), extremes, and the
  // TwoSum pairs of `parts` double vectors.
  template <class VI, class VT>
  void add_lanes(const VI& zeros, const VI& negatives, const VT& mins, const VT& maxes) {
    for (size_t j = 0; j < sizeof(VT) / sizeof(T); ++j) {
      zero -= static_cast<uint64_t>(zeros[j]);
      negative -= static_cast<uint64_t>(negatives[j]);
      min = mins[j] < min ? mins[j] : min;
      max = maxes[j] > max ? maxes[j] : max;
    }
  }
  template <class VD>
  void add_sum_lanes(const VD* sums, const VD* errors, size_t parts) {
    for (size_t k = 0; k < parts; ++k)
      for (size_t j = 0; j < sizeof(VD) / sizeof(double); ++j) {
        two_sum(sum, err, sums[k][j]);
        err += errors[k][j];
      }
  }
};

// Pass 2 in long double: a short tensor is all tail and gets that accuracy for free.
struct Pass2 {
  long double dev = 0, dev_sq = 0, abs = 0, sq = 0;

  void add(long double v, long double d) {
    dev += d;
    dev_sq += d * d;
    abs += v < 0 ? -v : v;
    sq += v * v;
  }
  // Σ(x - m)² minus the correction for m not being the exact mean.
  static long double m2(long double dev_sq, long double dev, uint64_t n) {
    long double m2 = dev_sq - dev * dev / static_cast<long double>(n);
    return m2 > 0 ? m2 : 0;
  }
  void finish(BlockSums& b, uint64_t n) const {
    b.abs_sum = abs;
    b.sq_sum = sq;
    b.m2 = m2(dev_sq, dev, n);
  }
};

// Float64 squares and sums beyond about 1e154 overflow a double: true when the block must be
// redone in long double.
template <class T, class... Sums>
bool overflowed(Sums... sums) {
  if constexpr (sizeof(T) == 8)
    return !(std::isfinite(static_cast<long double>(sums)) && ...);
  else
    return false;
}

template <class T, class Acc>
void scalar_float_block(const std::byte* p, size_t n, BlockSums& b) {
  FloatPass1<T, Acc> one;
  for (size_t i = 0; i < n; ++i) one.add(load<T>(p, i));
  one.finish(b, n);
  if (b.finite == 0) return;
  const long double m = one.mean(b.finite);
  Pass2 two;
  for (size_t i = 0; i < n; ++i) {
    T x = load<T>(p, i);
    if (x - x == 0) two.add(x, x - m);
  }
  if constexpr (std::is_same_v<Acc, double>) {
    if (overflowed<T>(one.sum, one.err)) return scalar_float_block<T, long double>(p, n, b);
  }
  b.sum = one.sum;
  b.sum_err = one.err;
  two.finish(b, b.finite);
}

// Pass 1 of an integer block: counts, extremes and the exact sum hi * 2^32 + lo (int32 values
// in lo alone).
template <class T>
struct IntPass1 {
  uint64_t zero = 0, negative = 0;
  T min = std::numeric_limits<T>::max(), max = std::numeric_limits<T>::min();
  int64_t hi = 0, lo = 0;

  void add(T x) {
    zero += x == 0;
    if constexpr (std::is_signed_v<T>) negative += x < 0;
    min = x < min ? x : min;
    max = x > max ? x : max;
    if constexpr (sizeof(T) == 4) {
      lo += x;
    } else {
      hi += static_cast<int64_t>(x >> 32);
      lo += static_cast<int64_t>(x & 0xFFFFFFFFu);
    }
  }
  void finish(BlockSums& b, size_t n) const {
    b = BlockSums{};
    b.count = b.finite = n;
    b.zero = zero;
    b.negative = negative;
    if constexpr (std::is_signed_v<T>) {
      b.imin = min;
      b.imax = max;
    } else {
      b.umin = min;
      b.umax = max;
    }
    b.sum = static_cast<double>(hi) * 4294967296.0;  // |hi| < 2^43: exact
    b.sum_err = static_cast<double>(lo);
  }
};

// x - mean for an integer block: through an integer mi near the mean, x - mi is exact when the
// block's range fits in int64, and only then rounded (int64 and uint64 values beyond 2^53 would
// lose their low bits as doubles).
template <class T>
struct IntDeviation {
  double m, frac = 0;
  T mi;
  bool narrow;

  IntDeviation(const BlockSums& b, T min, T max)
      : m(static_cast<double>((b.sum + b.sum_err) / static_cast<long double>(b.count))) {
    constexpr T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    mi = m >= static_cast<double>(hi) ? hi : m <= static_cast<double>(lo) ? lo : static_cast<T>(m);
    frac = m - static_cast<double>(mi);
    narrow = sizeof(T) == 8 &&
             static_cast<uint64_t>(max) - static_cast<uint64_t>(min) < (uint64_t{1} << 63);
  }
  long double operator()(T x) const {
    if (!narrow) return static_cast<long double>(x) - m;
    auto diff = static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(mi));
    return static_cast<long double>(diff) - frac;
  }
};

template <class T>
void scalar_int_block(const std::byte* p, size_t n, BlockSums& b) {
  IntPass1<T> one;
  for (size_t i = 0; i < n; ++i) one.add(load<T>(p, i));
  one.finish(b, n);
  if (n == 0) return;
  IntDeviation<T> deviation(b, one.min, one.max);
  Pass2 two;
  for (size_t i = 0; i < n; ++i) {
    T x = load<T>(p, i);
    two.add(static_cast<long double>(x), deviation(x));
  }
  two.finish(b, n);
}

// ---- vector kernels ---------------------------------------------------------------------------

template <class T, int Bytes>
using Vec [[gnu::vector_size(Bytes)]] = T;

template <class T>
using SameInt = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;

// The Bytes-wide vector of T as Bytes/8 doubles per part (1 part for 64-bit T, 2 for 32-bit).
// Converting the whole vector to a double-width one and taking its halves is what GCC turns into
// one vcvtps2pd / vcvtdq2pd per half; converting each half separately it splits further.
template <int Bytes, class T>
[[gnu::always_inline]] inline void to_doubles(Vec<T, Bytes> x, Vec<double, Bytes>* parts) {
  if constexpr (sizeof(T) == 8) {
    parts[0] = __builtin_convertvector(x, Vec<double, Bytes>);
  } else {
    auto w = __builtin_convertvector(x, Vec<double, 2 * Bytes>);
    if constexpr (Bytes == 16) {
      parts[0] = __builtin_shufflevector(w, w, 0, 1);
      parts[1] = __builtin_shufflevector(w, w, 2, 3);
    } else if constexpr (Bytes == 32) {
      parts[0] = __builtin_shufflevector(w, w, 0, 1, 2, 3);
      parts[1] = __builtin_shufflevector(w, w, 4, 5, 6, 7);
    } else {
      static_assert(Bytes == 64);
      parts[0] = __builtin_shufflevector(w, w, 0, 1, 2, 3, 4, 5, 6, 7);
      parts[1] = __builtin_shufflevector(w, w, 8, 9, 10, 11, 12, 13, 14, 15);
    }
  }
}

// The same from memory.
template <int Bytes, class T>
[[gnu::always_inline]] inline void load_doubles(const std::byte* at, Vec<double, Bytes>* parts) {
  Vec<T, Bytes> x;
  std::memcpy(&x, at, Bytes);
  to_doubles<Bytes, T>(x, parts);
}

// Pass 2 in double lanes: Σd, Σd², Σ|v| and Σv² per part, reduced into a Pass2 at the end.
template <int Bytes, size_t kParts>
struct VectorPass2 {
  using VD = Vec<double, Bytes>;
  using VL = Vec<int64_t, Bytes>;
  VD dev[kParts] = {}, dev_sq[kParts] = {}, abs[kParts] = {}, sq[kParts] = {};

  [[gnu::always_inline]] void add(size_t k, VD v, VD d) {
    const VL abs_mask = VL{} + std::numeric_limits<int64_t>::max();
    dev[k] += d;
    dev_sq[k] += d * d;
    abs[k] += reinterpret_cast<VD>(reinterpret_cast<VL>(v) & abs_mask);
    sq[k] += v * v;
  }
  [[gnu::always_inline]] Pass2 reduce() const {
    Pass2 two;
    for (size_t k = 0; k < kParts; ++k)
      for (int j = 0; j < Bytes / 8; ++j) {
        two.dev += dev[k][j];
        two.dev_sq += dev_sq[k][j];
        two.abs += abs[k][j];
        two.sq += sq[k][j];
      }
    return two;
  }
};

template <int Bytes, class T>
[[gnu::always_inline]] inline void vector_float_block_general(const std::byte* p, size_t n,
                                                              BlockSums& b) {
  using VT = Vec<T, Bytes>;
  using VI = Vec<SameInt<T>, Bytes>;
  using VD = Vec<double, Bytes>;
  using VL = Vec<int64_t, Bytes>;
  constexpr size_t kLanes = Bytes / sizeof(T), kParts = sizeof(double) / sizeof(T);
  const VT inf = VT{} + std::numeric_limits<T>::infinity(), zero_t = VT{};
  const size_t nv = n / kLanes * kLanes;

  // Pass 1: counts and extremes in T lanes (comparisons give -1 for true), sums in double lanes.
  VI c_nan{}, c_pinf{}, c_ninf{}, c_zero{}, c_neg{};
  VT mn = inf, mx = -inf;
  VD s[kParts] = {}, c[kParts] = {};
  for (size_t i = 0; i < nv; i += kLanes) {
    VT x;
    std::memcpy(&x, p + i * sizeof(T), Bytes);
    c_nan += x != x;
    c_pinf += x == inf;
    c_ninf += x == -inf;
    c_zero += x == zero_t;
    c_neg += x < zero_t;
    mn = x < mn ? x : mn;
    mx = x > mx ? x : mx;
    VI finite = (x - x) == zero_t;
    VD parts[kParts];
    to_doubles<Bytes, T>(reinterpret_cast<VT>(reinterpret_cast<VI>(x) & finite), parts);
    for (size_t k = 0; k < kParts; ++k) two_sum(s[k], c[k], parts[k]);
  }
  FloatPass1<T, double> one;
  for (size_t j = 0; j < kLanes; ++j) {
    one.nan -= static_cast<uint64_t>(c_nan[j]);
    one.pos_inf -= static_cast<uint64_t>(c_pinf[j]);
    one.neg_inf -= static_cast<uint64_t>(c_ninf[j]);
  }
  one.add_lanes(c_zero, c_neg, mn, mx);
  one.add_sum_lanes(s, c, kParts);
  for (size_t i = nv; i < n; ++i) one.add(load<T>(p, i));
  one.finish(b, n);
  if (b.finite == 0) return;

  // Pass 2: deviations from the block mean, magnitudes and squares in double lanes.
  const double m = one.mean(b.finite);
  const VD mv = VD{} + m;
  VectorPass2<Bytes, kParts> lanes;
  for (size_t i = 0; i < nv; i += kLanes) {
    VT x;
    std::memcpy(&x, p + i * sizeof(T), Bytes);
    VI finite = (x - x) == zero_t;
    VD parts[kParts];
    to_doubles<Bytes, T>(reinterpret_cast<VT>(reinterpret_cast<VI>(x) & finite), parts);
    VL wide[kParts];
    if constexpr (kParts == 1) {
      wide[0] = reinterpret_cast<VL>(finite);
    } else {
      // The int32 masks widened to int64 (-1 stays -1): the double parts' masks.
      VD as_d[2];
      to_doubles<Bytes, SameInt<T>>(finite, as_d);
      wide[0] = as_d[0] != VD{};
      wide[1] = as_d[1] != VD{};
    }
    for (size_t k = 0; k < kParts; ++k)
      lanes.add(k, parts[k], reinterpret_cast<VD>(reinterpret_cast<VL>(parts[k] - mv) & wide[k]));
  }
  Pass2 two = lanes.reduce();
  for (size_t i = nv; i < n; ++i) {
    T x = load<T>(p, i);
    if (x - x == 0) two.add(x, x - static_cast<long double>(m));
  }
  if (overflowed<T>(one.sum, one.err, two.dev_sq, two.abs, two.sq))
    return scalar_float_block<T, long double>(p, n, b);
  b.sum = one.sum;
  b.sum_err = one.err;
  two.finish(b, b.finite);
}

// The common case first: a block whose elements are all finite needs neither the NaN and
// infinity counts (nor a finite count: a non-finite element shows in the TwoSum sums) nor the
// masks that keep non-finite elements out of the sums, which is most of pass 1 and half of pass 2.
// A block with a non-finite element is redone by the general kernel.
// kSmallGrid: the values are multiples of 2^-24 below 2^17 in magnitude (float16, float8 E4M3 and
// E5M2, float4 E2M1 decoded to float), so a block's plain double sum is exact (below 2^27, on a
// grid of 2^-24) and needs no TwoSum.
template <int Bytes, class T, bool kSmallGrid = false>
[[gnu::always_inline]] inline void vector_float_block(const std::byte* p, size_t n, BlockSums& b) {
  using VT = Vec<T, Bytes>;
  using VI = Vec<SameInt<T>, Bytes>;
  using VD = Vec<double, Bytes>;
  using VL = Vec<int64_t, Bytes>;
  constexpr size_t kLanes = Bytes / sizeof(T), kParts = sizeof(double) / sizeof(T);
  constexpr int kD = Bytes / 8;
  const VT zero_t = VT{};
  const size_t nv = n / kLanes * kLanes;

  VI c_zero{}, c_neg{};
  VT mn = VT{} + std::numeric_limits<T>::infinity(), mx = -mn;
  VD s[kParts] = {}, c[kParts] = {};
  for (size_t i = 0; i < nv; i += kLanes) {
    VT x;
    std::memcpy(&x, p + i * sizeof(T), Bytes);
    c_zero += x == zero_t;
    c_neg += x < zero_t;
    mn = x < mn ? x : mn;
    mx = x > mx ? x : mx;
    VD parts[kParts];
    load_doubles<Bytes, T>(p + i * sizeof(T), parts);
    for (size_t k = 0; k < kParts; ++k) {
      if constexpr (kSmallGrid)
        s[k] += parts[k];
      else
        two_sum(s[k], c[k], parts[k]);
    }
  }
  FloatPass1<T, double> one;
  one.add_lanes(c_zero, c_neg, mn, mx);
  one.add_sum_lanes(s, c, kParts);
  for (size_t i = nv; i < n; ++i) one.add(load<T>(p, i));
  // A NaN or infinity makes the TwoSum error term NaN (inf - inf), and so does a float64 sum
  // that overflows: either way the general kernel takes the block.
  if (n == 0 || !std::isfinite(one.err) || one.nan + one.pos_inf + one.neg_inf > 0)
    return vector_float_block_general<Bytes, T>(p, n, b);
  one.finish(b, n);

  // Pass 2 needs only Σ(x - m)² and Σ|x|: Σ(x - m) follows from the compensated sum (n·m is
  // exact in long double), and Σx² = Σ(x - m)² + 2m·Σ(x - m) + n·m², all terms but the middle
  // one non-negative.
  const double m = one.mean(n);
  const VD mv = VD{} + m;
  const VL abs_mask = VL{} + std::numeric_limits<int64_t>::max();
  VD sdd[kParts] = {}, sa[kParts] = {};
  for (size_t i = 0; i < nv;) {
    // Summed in runs (see kRun), so that one large square does not round away the rest.
    VD rdd[kParts] = {}, ra[kParts] = {};
    for (const size_t end = std::min(nv, i + kRun * kLanes); i < end; i += kLanes) {
      VD parts[kParts];
      load_doubles<Bytes, T>(p + i * sizeof(T), parts);
      for (size_t k = 0; k < kParts; ++k) {
        VD v = parts[k], d = v - mv;
        rdd[k] += d * d;
        ra[k] += reinterpret_cast<VD>(reinterpret_cast<VL>(v) & abs_mask);
      }
    }
    for (size_t k = 0; k < kParts; ++k) {
      sdd[k] += rdd[k];
      sa[k] += ra[k];
    }
  }
  Pass2 two;
  for (size_t k = 0; k < kParts; ++k)
    for (int j = 0; j < kD; ++j) {
      two.dev_sq += sdd[k][j];
      two.abs += sa[k][j];
    }
  const long double lm = m, ln = static_cast<long double>(n);
  for (size_t i = nv; i < n; ++i) {
    long double v = load<T>(p, i);
    two.add(v, v - lm);
  }
  if (overflowed<T>(two.dev_sq, two.abs)) return scalar_float_block<T, long double>(p, n, b);
  const long double dev = (static_cast<long double>(one.sum) + one.err) - ln * lm;
  const long double sq = two.dev_sq + 2 * lm * dev + ln * lm * lm;
  b.sum = one.sum;
  b.sum_err = one.err;
  b.abs_sum = two.abs;
  b.sq_sum = sq > 0 ? sq : 0;
  b.m2 = Pass2::m2(two.dev_sq, dev, n);
}

// Float32 in one pass, the common case of real tensors. A float32 is exact as a double, and so is
// a plain double sum of a block's float32 values whose binary exponents lie within 19 of each
// other: every value is a multiple of the smallest one's unit in the last place, 2^(e_min - 23),
// and no partial sum of 1024 of them reaches 2^(e_max + 11), so 53 bits hold every partial sum
// whatever the order. Then Σx and Σ|x| need no TwoSum. The second moment comes from the same pass
// through deviations from a shift K near the mean (BlockSums::shift, else the first element):
// m2 = Σ(x - K)² - (Σx - nK)²/n, as accurate as the two-pass Σ(x - mean)² while K lies within a
// few standard deviations of the mean (Σ(x - K)² <= 16 m2). A block that fails a test (a NaN or
// an infinity, exponents too far apart, K too far from the mean) goes to the two-pass kernel.
template <int Bytes>
[[gnu::always_inline]] inline void vector_f32_one_pass(const std::byte* p, size_t n, BlockSums& b) {
  using VT = Vec<float, Bytes>;
  using VI = Vec<int32_t, Bytes>;
  using VU = Vec<uint32_t, Bytes>;
  using VD = Vec<double, Bytes>;
  using VL = Vec<int64_t, Bytes>;
  constexpr size_t kLanes = Bytes / sizeof(float);
  constexpr int kD = Bytes / 8;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const size_t nv = n / kLanes * kLanes;
  // Short blocks (small tensors, the last block of some) keep the two passes: there is little to
  // gain, and their results stay what they were to the last bit.
  if (nv < kRun * kLanes) return vector_float_block<Bytes, float>(p, n, b);
  float shift = std::isfinite(b.shift) ? static_cast<float>(b.shift)
                : n > 0                ? load<float>(p, 0)
                                       : 0.0f;
  if (!std::isfinite(shift)) shift = 0;

  VI c_zero{}, c_neg{};
  VT mn = VT{} + kInf, mx = -mn;
  VU low = VU{} + 0xFFFFFFFFu;  // the least |x| bit pattern minus 1: zeros wrap to the top
  VD s[2] = {}, a[2] = {}, dd[2] = {};
  const VD kv = VD{} + static_cast<double>(shift);
  const VL abs_mask = VL{} + std::numeric_limits<int64_t>::max();
  const VU magnitude = VU{} + 0x7FFFFFFFu;
  for (size_t i = 0; i < nv;) {
    VD rdd[2] = {};  // squares summed in runs, as in vector_float_block
    for (const size_t end = std::min(nv, i + kRun * kLanes); i < end; i += kLanes) {
      VT x;
      std::memcpy(&x, p + i * sizeof(float), Bytes);
      c_zero += x == VT{};
      c_neg += x < VT{};
      mn = x < mn ? x : mn;
      mx = x > mx ? x : mx;
      const VU below = (reinterpret_cast<VU>(x) & magnitude) - 1u;
      low = below < low ? below : low;
      VD parts[2];
      to_doubles<Bytes, float>(x, parts);
      for (size_t k = 0; k < 2; ++k) {
        s[k] += parts[k];
        a[k] += reinterpret_cast<VD>(reinterpret_cast<VL>(parts[k]) & abs_mask);
        const VD d = parts[k] - kv;
        rdd[k] += d * d;
      }
    }
    dd[0] += rdd[0];
    dd[1] += rdd[1];
  }
  uint64_t zero = 0, negative = 0;
  float lo = kInf, hi = -kInf;
  uint32_t least = 0xFFFFFFFFu;
  for (size_t j = 0; j < kLanes; ++j) {
    zero -= static_cast<uint64_t>(c_zero[j]);
    negative -= static_cast<uint64_t>(c_neg[j]);
    lo = mn[j] < lo ? mn[j] : lo;
    hi = mx[j] > hi ? mx[j] : hi;
    least = low[j] < least ? low[j] : least;
  }
  double sum = 0, abs = 0;  // exact when the exponent test below passes
  long double dev_sq = 0;
  for (size_t k = 0; k < 2; ++k)
    for (int j = 0; j < kD; ++j) {
      sum += s[k][j];
      abs += a[k][j];
      dev_sq += dd[k][j];
    }
  for (size_t i = nv; i < n; ++i) {
    const float x = load<float>(p, i);
    zero += x == 0;
    negative += x < 0;
    lo = x < lo ? x : lo;
    hi = x > hi ? x : hi;
    least = std::min(least, (load<uint32_t>(p, i) & 0x7FFFFFFFu) - 1u);
    sum += x;
    abs += x < 0 ? -x : x;
    const long double d = static_cast<long double>(x) - shift;
    dev_sq += d * d;
  }
  uint32_t lo_bits, hi_bits;
  std::memcpy(&lo_bits, &lo, 4);
  std::memcpy(&hi_bits, &hi, 4);
  const int e_max = static_cast<int>(std::max(lo_bits & 0x7FFFFFFFu, hi_bits & 0x7FFFFFFFu) >> 23);
  const int e_min = least == 0xFFFFFFFFu ? e_max : std::max(1, static_cast<int>((least + 1) >> 23));
  if (n == 0 || !std::isfinite(sum) || e_max == 0xFF || e_max - e_min > 19)
    return vector_float_block<Bytes, float>(p, n, b);
  const long double ln = static_cast<long double>(n), lk = shift;
  const long double dev = static_cast<long double>(sum) - ln * lk;  // Σ(x - K)
  const long double m2 = dev_sq - dev * dev / ln;
  if (dev_sq != 0 && !(dev_sq <= 16 * m2)) return vector_float_block<Bytes, float>(p, n, b);
  b = BlockSums{};
  b.count = b.finite = n;
  b.zero = zero;
  b.negative = negative;
  b.min = lo;
  b.max = hi;
  b.sum = sum;
  b.abs_sum = abs;
  const long double sq = dev_sq + 2 * lk * dev + ln * lk * lk;  // Σx² = Σ(x - K + K)²
  b.sq_sum = sq > 0 ? sq : 0;
  b.m2 = m2 > 0 ? m2 : 0;
}

template <int Bytes, class T>
[[gnu::always_inline]] inline void vector_int_block(const std::byte* p, size_t n, BlockSums& b) {
  using VT = Vec<T, Bytes>;
  using VD = Vec<double, Bytes>;
  using VL = Vec<int64_t, Bytes>;
  using VU = Vec<uint64_t, Bytes>;
  using VS = Vec<SameInt<T>, Bytes>;  // comparison results
  constexpr size_t kLanes = Bytes / sizeof(T), kParts = sizeof(double) / sizeof(T);
  constexpr int kD = Bytes / 8;
  const size_t nv = n / kLanes * kLanes;

  VS c_zero{}, c_neg{};
  VT mn = VT{} + std::numeric_limits<T>::max(), mx = VT{} + std::numeric_limits<T>::min();
  VD s32[kParts] = {};  // int32: exact double sums
  VL shi{}, slo{};      // int64, uint64: high and low halves
  for (size_t i = 0; i < nv; i += kLanes) {
    VT x;
    std::memcpy(&x, p + i * sizeof(T), Bytes);
    c_zero += x == VT{};
    if constexpr (std::is_signed_v<T>) c_neg += x < VT{};
    mn = x < mn ? x : mn;
    mx = x > mx ? x : mx;
    if constexpr (sizeof(T) == 4) {
      VD parts[kParts];
      to_doubles<Bytes, T>(x, parts);
      for (size_t k = 0; k < kParts; ++k) s32[k] += parts[k];
    } else {
      shi += reinterpret_cast<VL>(x >> 32);
      slo += reinterpret_cast<VL>(x & 0xFFFFFFFFu);
    }
  }
  IntPass1<T> one;
  for (size_t j = 0; j < kLanes; ++j) {
    one.zero -= static_cast<uint64_t>(c_zero[j]);
    one.negative -= static_cast<uint64_t>(c_neg[j]);
    one.min = mn[j] < one.min ? mn[j] : one.min;
    one.max = mx[j] > one.max ? mx[j] : one.max;
  }
  for (int j = 0; j < kD; ++j) {
    if constexpr (sizeof(T) == 4) {
      for (size_t k = 0; k < kParts; ++k) one.lo += static_cast<int64_t>(s32[k][j]);
    } else {
      one.hi += shi[j];
      one.lo += slo[j];
    }
  }
  for (size_t i = nv; i < n; ++i) one.add(load<T>(p, i));
  one.finish(b, n);
  if (n == 0) return;

  const IntDeviation<T> deviation(b, one.min, one.max);
  const VD mv = VD{} + deviation.m, fv = VD{} + deviation.frac;
  VectorPass2<Bytes, kParts> lanes;
  for (size_t i = 0; i < nv; i += kLanes) {
    VT x;
    std::memcpy(&x, p + i * sizeof(T), Bytes);
    VD parts[kParts], devs[kParts];
    to_doubles<Bytes, T>(x, parts);
    if constexpr (sizeof(T) == 4) {
      for (size_t k = 0; k < kParts; ++k) devs[k] = parts[k] - mv;
    } else if (deviation.narrow) {
      VU diff = reinterpret_cast<VU>(x) - static_cast<uint64_t>(deviation.mi);
      devs[0] = __builtin_convertvector(reinterpret_cast<VL>(diff), VD) - fv;
    } else {
      devs[0] = parts[0] - mv;
    }
    for (size_t k = 0; k < kParts; ++k) lanes.add(k, parts[k], devs[k]);
  }
  Pass2 two = lanes.reduce();
  for (size_t i = nv; i < n; ++i) {
    T x = load<T>(p, i);
    two.add(static_cast<long double>(x), deviation(x));
  }
  two.finish(b, n);
}

// The table of one vector width, for the stats_*.cpp files to instantiate inside functions
// compiled for their instruction set.
#define MSDT_STATS_BLOCKS(ATTR, BYTES)                               \
  ATTR void block_f32(const std::byte* p, size_t n, BlockSums& b) {  \
    vector_f32_one_pass<BYTES>(p, n, b);                             \
  }                                                                  \
  ATTR void block_f64(const std::byte* p, size_t n, BlockSums& b) {  \
    vector_float_block<BYTES, double>(p, n, b);                      \
  }                                                                  \
  ATTR void block_i32(const std::byte* p, size_t n, BlockSums& b) {  \
    vector_int_block<BYTES, int32_t>(p, n, b);                       \
  }                                                                  \
  ATTR void block_i64(const std::byte* p, size_t n, BlockSums& b) {  \
    vector_int_block<BYTES, int64_t>(p, n, b);                       \
  }                                                                  \
  ATTR void block_u64(const std::byte* p, size_t n, BlockSums& b) {  \
    vector_int_block<BYTES, uint64_t>(p, n, b);                      \
  }                                                                  \
  ATTR void block_grid(const std::byte* p, size_t n, BlockSums& b) { \
    vector_float_block<BYTES, float, true>(p, n, b);                 \
  }

}  // namespace msdt::stats_detail
