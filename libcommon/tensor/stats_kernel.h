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
// redone in long double by the scalar code.
//
// scalar_*_block is the reference every vector path is tested against; vector_*_block<Bytes> is
// the same algorithm on Bytes-wide GCC/clang vectors, instantiated inside functions compiled for
// SSE2, AVX2, AVX-512 (stats_x86.cpp) or NEON (stats_neon.cpp). Counts and extremes agree bit for
// bit between them; sums differ only by the order of the additions.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tensor/stats.h"

// The vector helpers below take vectors by value but are always inlined into functions compiled
// for the vector width, so the ABI note about passing them between such functions does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace msdt::stats_detail {

inline constexpr size_t kBlock = 1024;

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

// s + c += x without losing the rounding error of the addition (Knuth's TwoSum).
template <class A>
[[gnu::always_inline]] inline void two_sum(A& s, A& c, A x) {
  A t = s + x;
  A z = t - s;
  c += (s - (t - z)) + (x - z);
  s = t;
}

template <class T, class Acc>
void scalar_float_block(const std::byte* p, size_t n, BlockSums& b) {
  constexpr T kInf = std::numeric_limits<T>::infinity();
  uint64_t nan = 0, pinf = 0, ninf = 0, zero = 0, neg = 0;
  T mn = kInf, mx = -kInf;
  Acc s = 0, c = 0;
  for (size_t i = 0; i < n; ++i) {
    T x = load<T>(p, i);
    nan += x != x;
    pinf += x == kInf;
    ninf += x == -kInf;
    zero += x == 0;
    neg += x < 0;
    mn = x < mn ? x : mn;
    mx = x > mx ? x : mx;
    if (x - x == 0) two_sum(s, c, static_cast<Acc>(x));
  }
  b = BlockSums{};
  b.count = n;
  b.nan = nan;
  b.pos_inf = pinf;
  b.neg_inf = ninf;
  b.zero = zero;
  b.negative = neg;
  b.finite = n - nan - pinf - ninf;
  b.min = mn;
  b.max = mx;
  if (b.finite == 0) return;
  Acc m = (s + c) / static_cast<Acc>(b.finite);
  long double sd = 0, sdd = 0, sa = 0, sq = 0;
  for (size_t i = 0; i < n; ++i) {
    T x = load<T>(p, i);
    if (x - x != 0) continue;
    long double v = x, d = v - m;
    sd += d;
    sdd += d * d;
    sa += v < 0 ? -v : v;
    sq += v * v;
  }
  if constexpr (std::is_same_v<T, double> && std::is_same_v<Acc, double>) {
    // Squares and sums of float64 values beyond about 1e154 overflow a double.
    if (!std::isfinite(s) || !std::isfinite(c) || !std::isfinite(sdd) || !std::isfinite(sa) ||
        !std::isfinite(sq))
      return scalar_float_block<double, long double>(p, n, b);
  }
  b.sum = s;
  b.sum_err = c;
  b.abs_sum = sa;
  b.sq_sum = sq;
  long double m2 = sdd - sd * sd / b.finite;
  b.m2 = m2 > 0 ? m2 : 0;
}

// The block mean of an integer block as an integer of T near it and the fraction left over, so
// that x - mean = (x - mi) - frac is exact in integers before it is rounded.
template <class T>
inline T integer_part(double m, double& frac) {
  constexpr T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  T mi = m >= static_cast<double>(hi) ? hi : m <= static_cast<double>(lo) ? lo : static_cast<T>(m);
  frac = m - static_cast<double>(mi);
  return mi;
}

// Fills the parts of `b` every integer kernel shares, from the exact sum hi * 2^32 + lo.
inline void integer_sums(BlockSums& b, int64_t hi, int64_t lo) {
  b.finite = b.count;
  b.sum = static_cast<double>(hi) * 4294967296.0;  // |hi| < 2^43: exact
  b.sum_err = static_cast<double>(lo);
}

template <class T>
void scalar_int_block(const std::byte* p, size_t n, BlockSums& b) {
  uint64_t zero = 0, neg = 0;
  T mn = std::numeric_limits<T>::max(), mx = std::numeric_limits<T>::min();
  int64_t hi = 0, lo = 0;
  for (size_t i = 0; i < n; ++i) {
    T x = load<T>(p, i);
    zero += x == 0;
    if constexpr (std::is_signed_v<T>) neg += x < 0;
    mn = x < mn ? x : mn;
    mx = x > mx ? x : mx;
    if constexpr (sizeof(T) == 4) {
      lo += x;
    } else {
      hi += static_cast<int64_t>(x >> 32);
      lo += static_cast<int64_t>(x & 0xFFFFFFFFu);
    }
  }
  b = BlockSums{};
  b.count = n;
  b.zero = zero;
  b.negative = neg;
  if constexpr (std::is_signed_v<T>) {
    b.imin = mn;
    b.imax = mx;
  } else {
    b.umin = mn;
    b.umax = mx;
  }
  integer_sums(b, hi, lo);
  if (n == 0) return;
  double m = static_cast<double>((b.sum + b.sum_err) / static_cast<long double>(n));
  double frac = 0;
  T mi = integer_part<T>(m, frac);
  // Differences from mi are exact integers when the block's range fits in int64.
  bool narrow = static_cast<uint64_t>(mx) - static_cast<uint64_t>(mn) < (uint64_t{1} << 63);
  long double sd = 0, sdd = 0, sa = 0, sq = 0;
  for (size_t i = 0; i < n; ++i) {
    T x = load<T>(p, i);
    long double v = static_cast<long double>(x);
    long double d = (sizeof(T) == 4 || !narrow)
                        ? v - m
                        : static_cast<long double>(static_cast<int64_t>(
                              static_cast<uint64_t>(x) - static_cast<uint64_t>(mi))) -
                              frac;
    sd += d;
    sdd += d * d;
    sa += v < 0 ? -v : v;
    sq += v * v;
  }
  b.abs_sum = sa;
  b.sq_sum = sq;
  long double m2 = sdd - sd * sd / n;
  b.m2 = m2 > 0 ? m2 : 0;
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

template <int Bytes, class T>
[[gnu::always_inline]] inline void vector_float_block_general(const std::byte* p, size_t n,
                                                              BlockSums& b) {
  using VT = Vec<T, Bytes>;
  using VI = Vec<SameInt<T>, Bytes>;
  using VD = Vec<double, Bytes>;
  using VL = Vec<int64_t, Bytes>;
  constexpr size_t kLanes = Bytes / sizeof(T), kParts = sizeof(double) / sizeof(T);
  constexpr int kD = Bytes / 8;
  constexpr T kInf = std::numeric_limits<T>::infinity();
  const VT inf = VT{} + kInf, zero_t = VT{};
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
  uint64_t nan = 0, pinf = 0, ninf = 0, zero = 0, neg = 0;
  T tmin = kInf, tmax = -kInf;
  double ss = 0, cc = 0;
  for (size_t j = 0; j < kLanes; ++j) {
    nan -= static_cast<uint64_t>(c_nan[j]);
    pinf -= static_cast<uint64_t>(c_pinf[j]);
    ninf -= static_cast<uint64_t>(c_ninf[j]);
    zero -= static_cast<uint64_t>(c_zero[j]);
    neg -= static_cast<uint64_t>(c_neg[j]);
    tmin = mn[j] < tmin ? mn[j] : tmin;
    tmax = mx[j] > tmax ? mx[j] : tmax;
  }
  for (size_t k = 0; k < kParts; ++k)
    for (int j = 0; j < kD; ++j) {
      two_sum(ss, cc, s[k][j]);
      cc += c[k][j];
    }
  for (size_t i = nv; i < n; ++i) {
    T x = load<T>(p, i);
    nan += x != x;
    pinf += x == kInf;
    ninf += x == -kInf;
    zero += x == 0;
    neg += x < 0;
    tmin = x < tmin ? x : tmin;
    tmax = x > tmax ? x : tmax;
    if (x - x == 0) two_sum(ss, cc, static_cast<double>(x));
  }
  b = BlockSums{};
  b.count = n;
  b.nan = nan;
  b.pos_inf = pinf;
  b.neg_inf = ninf;
  b.zero = zero;
  b.negative = neg;
  b.finite = n - nan - pinf - ninf;
  b.min = tmin;
  b.max = tmax;
  if (b.finite == 0) return;

  // Pass 2: deviations from the block mean, magnitudes and squares in double lanes.
  const double m = (ss + cc) / static_cast<double>(b.finite);
  const VD mv = VD{} + m;
  const VL abs_mask = VL{} + std::numeric_limits<int64_t>::max();
  VD sd[kParts] = {}, sdd[kParts] = {}, sa[kParts] = {}, sq[kParts] = {};
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
    for (size_t k = 0; k < kParts; ++k) {
      VD v = parts[k];
      VD d = reinterpret_cast<VD>(reinterpret_cast<VL>(v - mv) & wide[k]);
      sd[k] += d;
      sdd[k] += d * d;
      sa[k] += reinterpret_cast<VD>(reinterpret_cast<VL>(v) & abs_mask);
      sq[k] += v * v;
    }
  }
  // Lanes and tail in long double: a short tensor is all tail, and gets the accuracy for free.
  long double tsd = 0, tsdd = 0, tsa = 0, tsq = 0;
  for (size_t k = 0; k < kParts; ++k)
    for (int j = 0; j < kD; ++j) {
      tsd += sd[k][j];
      tsdd += sdd[k][j];
      tsa += sa[k][j];
      tsq += sq[k][j];
    }
  for (size_t i = nv; i < n; ++i) {
    T x = load<T>(p, i);
    if (x - x != 0) continue;
    long double v = x, d = v - m;
    tsd += d;
    tsdd += d * d;
    tsa += v < 0 ? -v : v;
    tsq += v * v;
  }
  if constexpr (sizeof(T) == 8) {
    if (!std::isfinite(ss) || !std::isfinite(cc) || !std::isfinite(tsdd) || !std::isfinite(tsa) ||
        !std::isfinite(tsq))
      return scalar_float_block<double, long double>(p, n, b);
  }
  b.sum = ss;
  b.sum_err = cc;
  b.abs_sum = tsa;
  b.sq_sum = tsq;
  long double m2 = tsdd - tsd * tsd / b.finite;
  b.m2 = m2 > 0 ? m2 : 0;
}

// The common case first: a block whose elements are all finite needs neither the NaN and
// infinity counts (nor a finite count: a non-finite element shows in the TwoSum sums) nor the masks
// that keep non-finite elements out of the sums, which is most of pass 1 and half of pass 2. A
// block with a non-finite element is redone by the general kernel.
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
  constexpr T kInf = std::numeric_limits<T>::infinity();
  const VT zero_t = VT{};
  const size_t nv = n / kLanes * kLanes;

  VI c_zero{}, c_neg{};
  VT mn = VT{} + kInf, mx = VT{} - kInf;
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
  uint64_t zero = 0, neg = 0;
  T tmin = kInf, tmax = -kInf;
  for (size_t j = 0; j < kLanes; ++j) {
    zero -= static_cast<uint64_t>(c_zero[j]);
    neg -= static_cast<uint64_t>(c_neg[j]);
    tmin = mn[j] < tmin ? mn[j] : tmin;
    tmax = mx[j] > tmax ? mx[j] : tmax;
  }
  double ss = 0, cc = 0;
  for (size_t k = 0; k < kParts; ++k)
    for (int j = 0; j < kD; ++j) {
      two_sum(ss, cc, s[k][j]);
      cc += c[k][j];
    }
  for (size_t i = nv; i < n; ++i) {
    T x = load<T>(p, i);
    if (x - x != 0) return vector_float_block_general<Bytes, T>(p, n, b);
    zero += x == 0;
    neg += x < 0;
    tmin = x < tmin ? x : tmin;
    tmax = x > tmax ? x : tmax;
    two_sum(ss, cc, static_cast<double>(x));
  }
  // A NaN or infinity makes the TwoSum error term NaN (inf - inf), and so does a float64 sum
  // that overflows: either way the general kernel takes the block.
  if (!std::isfinite(cc) || n == 0) return vector_float_block_general<Bytes, T>(p, n, b);
  b = BlockSums{};
  b.count = n;
  b.zero = zero;
  b.negative = neg;
  b.finite = n;
  b.min = tmin;
  b.max = tmax;

  // Pass 2 needs only Σ(x - m)² and Σ|x|: Σ(x - m) follows from the compensated sum (n·m is
  // exact in long double), and Σx² = Σ(x - m)² + 2m·Σ(x - m) + n·m², all terms but the middle
  // one non-negative.
  const double m = (ss + cc) / static_cast<double>(n);
  const VD mv = VD{} + m;
  const VL abs_mask = VL{} + std::numeric_limits<int64_t>::max();
  VD sdd[kParts] = {}, sa[kParts] = {};
  for (size_t i = 0; i < nv; i += kLanes) {
    VD parts[kParts];
    load_doubles<Bytes, T>(p + i * sizeof(T), parts);
    for (size_t k = 0; k < kParts; ++k) {
      VD v = parts[k], d = v - mv;
      sdd[k] += d * d;
      sa[k] += reinterpret_cast<VD>(reinterpret_cast<VL>(v) & abs_mask);
    }
  }
  long double tsdd = 0, tsa = 0;
  for (size_t k = 0; k < kParts; ++k)
    for (int j = 0; j < kD; ++j) {
      tsdd += sdd[k][j];
      tsa += sa[k][j];
    }
  for (size_t i = nv; i < n; ++i) {
    long double v = load<T>(p, i), d = v - m;
    tsdd += d * d;
    tsa += v < 0 ? -v : v;
  }
  if constexpr (sizeof(T) == 8) {
    if (!std::isfinite(ss) || !std::isfinite(cc) || !std::isfinite(tsdd) || !std::isfinite(tsa))
      return scalar_float_block<double, long double>(p, n, b);
  }
  const long double lm = m, ln = static_cast<long double>(n);
  const long double tsd = (static_cast<long double>(ss) + cc) - ln * lm;
  const long double tsq = tsdd + 2 * lm * tsd + ln * lm * lm;
  b.sum = ss;
  b.sum_err = cc;
  b.abs_sum = tsa;
  b.sq_sum = tsq > 0 ? tsq : 0;
  long double m2 = tsdd - tsd * tsd / ln;
  b.m2 = m2 > 0 ? m2 : 0;
}

template <int Bytes, class T>
[[gnu::always_inline]] inline void vector_int_block(const std::byte* p, size_t n, BlockSums& b) {
  using VT = Vec<T, Bytes>;
  using VD = Vec<double, Bytes>;
  using VL = Vec<int64_t, Bytes>;
  using VS = Vec<SameInt<T>, Bytes>;  // comparison results
  constexpr size_t kLanes = Bytes / sizeof(T), kParts = sizeof(double) / sizeof(T);
  constexpr int kD = Bytes / 8;
  constexpr T kMin = std::numeric_limits<T>::min(), kMax = std::numeric_limits<T>::max();
  const size_t nv = n / kLanes * kLanes;

  VS c_zero{}, c_neg{};
  VT mn = VT{} + kMax, mx = VT{} + kMin;
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
  uint64_t zero = 0, neg = 0;
  T tmin = kMax, tmax = kMin;
  int64_t hi = 0, lo = 0;
  for (size_t j = 0; j < kLanes; ++j) {
    zero -= static_cast<uint64_t>(c_zero[j]);
    neg -= static_cast<uint64_t>(c_neg[j]);
    tmin = mn[j] < tmin ? mn[j] : tmin;
    tmax = mx[j] > tmax ? mx[j] : tmax;
  }
  if constexpr (sizeof(T) == 4) {
    for (size_t k = 0; k < kParts; ++k)
      for (int j = 0; j < kD; ++j) lo += static_cast<int64_t>(s32[k][j]);
  } else {
    for (int j = 0; j < kD; ++j) {
      hi += shi[j];
      lo += slo[j];
    }
  }
  for (size_t i = nv; i < n; ++i) {
    T x = load<T>(p, i);
    zero += x == 0;
    if constexpr (std::is_signed_v<T>) neg += x < 0;
    tmin = x < tmin ? x : tmin;
    tmax = x > tmax ? x : tmax;
    if constexpr (sizeof(T) == 4) {
      lo += x;
    } else {
      hi += static_cast<int64_t>(x >> 32);
      lo += static_cast<int64_t>(x & 0xFFFFFFFFu);
    }
  }
  b = BlockSums{};
  b.count = n;
  b.zero = zero;
  b.negative = neg;
  if constexpr (std::is_signed_v<T>) {
    b.imin = tmin;
    b.imax = tmax;
  } else {
    b.umin = tmin;
    b.umax = tmax;
  }
  integer_sums(b, hi, lo);
  if (n == 0) return;

  const double m = static_cast<double>((b.sum + b.sum_err) / static_cast<long double>(n));
  double frac = 0;
  const T mi = integer_part<T>(m, frac);
  const bool narrow =
      static_cast<uint64_t>(tmax) - static_cast<uint64_t>(tmin) < (uint64_t{1} << 63);
  const VD mv = VD{} + m, fv = VD{} + frac;
  const VL abs_mask = VL{} + std::numeric_limits<int64_t>::max();
  VD sd[kParts] = {}, sdd[kParts] = {}, sa[kParts] = {}, sq[kParts] = {};
  for (size_t i = 0; i < nv; i += kLanes) {
    VT x;
    std::memcpy(&x, p + i * sizeof(T), Bytes);
    VD parts[kParts], devs[kParts];
    to_doubles<Bytes, T>(x, parts);
    if constexpr (sizeof(T) == 4) {
      for (size_t k = 0; k < kParts; ++k) devs[k] = parts[k] - mv;
    } else if (narrow) {
      using VU = Vec<uint64_t, Bytes>;
      VU diff = reinterpret_cast<VU>(x) - static_cast<uint64_t>(mi);
      devs[0] = __builtin_convertvector(reinterpret_cast<VL>(diff), VD) - fv;
    } else {
      devs[0] = parts[0] - mv;
    }
    for (size_t k = 0; k < kParts; ++k) {
      VD v = parts[k], d = devs[k];
      sd[k] += d;
      sdd[k] += d * d;
      sa[k] += reinterpret_cast<VD>(reinterpret_cast<VL>(v) & abs_mask);
      sq[k] += v * v;
    }
  }
  long double tsd = 0, tsdd = 0, tsa = 0, tsq = 0;
  for (size_t k = 0; k < kParts; ++k)
    for (int j = 0; j < kD; ++j) {
      tsd += sd[k][j];
      tsdd += sdd[k][j];
      tsa += sa[k][j];
      tsq += sq[k][j];
    }
  for (size_t i = nv; i < n; ++i) {
    T x = load<T>(p, i);
    long double v = static_cast<long double>(x);
    long double d = (sizeof(T) == 4 || !narrow)
                        ? v - m
                        : static_cast<long double>(static_cast<int64_t>(
                              static_cast<uint64_t>(x) - static_cast<uint64_t>(mi))) -
                              frac;
    tsd += d;
    tsdd += d * d;
    tsa += v < 0 ? -v : v;
    tsq += v * v;
  }
  b.abs_sum = tsa;
  b.sq_sum = tsq;
  long double m2 = tsdd - tsd * tsd / n;
  b.m2 = m2 > 0 ? m2 : 0;
}

// The table of one vector width, for the stats_*.cpp files to instantiate inside functions
// compiled for their instruction set.
#define MSDT_STATS_BLOCKS(ATTR, BYTES)                               \
  ATTR void block_f32(const std::byte* p, size_t n, BlockSums& b) {  \
    vector_float_block<BYTES, float>(p, n, b);                       \
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
