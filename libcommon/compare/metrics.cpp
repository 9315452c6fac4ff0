#include "compare/metrics.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "io/cpu.h"
#include "io/parallel.h"
#include "tensor/element_convert.h"
#include "tensor/element_values.h"
#include "tensor/stats.h"
#include "tensor/two_sum.h"

// The lane helpers below take vectors by value but are always inlined into their callers, so the
// ABI note about passing 32-byte vectors between functions does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace msdt::compare {
namespace {

constexpr double kEps = 2.220446049250313e-16;     // np.finfo(float).eps
constexpr double kEps32 = 1.1920928955078125e-07;  // np.finfo(np.float32).eps
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// A block stays in L1 with both sides as doubles (16 KB) and matches the statistics kernel's own
// block, so StatsAccumulator::add over it gives compute_stats's result bit for bit.
constexpr uint64_t kBlock = 1024;
// Chunks are the unit of work and of merging: fixed, so results do not depend on `jobs`.
constexpr uint64_t kChunk = kStatsChunk;
static_assert(kChunk % kBlock == 0);

// Four double lanes. GCC and clang lower them to whatever the target has (two SSE2 registers on
// the x86-64 baseline); the arithmetic per lane is the same everywhere, so results are too.
using V4 [[gnu::vector_size(32)]] = double;
using F4 [[gnu::vector_size(16)]] = float;

[[gnu::always_inline]] inline V4 load4(const double* p) {
  V4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// s + c: a double sum that keeps the rounding error of every addition (Knuth's TwoSum), so the
// error does not grow with the element count. An infinite sum is returned as it is (the carry of
// an addition with Inf is NaN and means nothing), so Inf propagates as IEEE says.
struct Sum {
  double s = 0, c = 0;
  void add(double x) { two_sum(s, c, x); }
  void merge(const Sum& later) {
    add(later.s);
    c += later.c;
  }
  double value() const { return std::isfinite(s) ? s + c : s; }
};

// Lane masks and the few operations the kernel needs on them. A comparison gives bool for one
// element and a lane mask (all bits set where true) for four; selecting through bit operations
// keeps GCC from taking four lanes apart, as it does for `?:` on vectors wider than the target's.
using L4 [[gnu::vector_size(32)]] = int64_t;

[[gnu::always_inline]] inline V4 select(L4 mask, V4 a, V4 b) {
  return reinterpret_cast<V4>((mask & reinterpret_cast<L4>(a)) | (~mask & reinterpret_cast<L4>(b)));
}
[[gnu::always_inline]] inline double select(bool mask, double a, double b) { return mask ? a : b; }
[[gnu::always_inline]] inline V4 magnitude(V4 v) {
  return reinterpret_cast<V4>(reinterpret_cast<L4>(v) & std::numeric_limits<int64_t>::max());
}
[[gnu::always_inline]] inline double magnitude(double v) { return std::fabs(v); }

// One step of the pair kernel over one element (V = double) or four (V = V4), so the tail and the
// lanes share one formula. `Extremes`: also the minimum and maximum of each side (for KL).
template <class V, bool Extremes>
struct Lanes {
  // Σ|x − y|, Σr and ΣRE add terms >= 0, so a NaN term and only a NaN term makes them NaN: they
  // tell whether the maxima below (which never take a NaN) missed one.
  V dot{}, xx{}, yy{}, sx{}, sy{}, abs_d{}, sq_d{}, rel{}, sum_re{};
  V max_d{}, max_r{}, max_re{};  // every term is >= 0
  V within1{}, within5{};
  V min_x = V{} + kInf, max_x = V{} - kInf, min_y = V{} + kInf, max_y = V{} - kInf;

  [[gnu::always_inline]] void step(V x, V y, double e) {
    const V zero{}, one = V{} + 1.0;
    const V d = x - y;
    const V ad = magnitude(d);
    dot += x * y;
    xx += x * x;
    yy += y * y;
    sx += x;
    sy += y;
    abs_d += ad;
    sq_d += d * d;
    max_d = select(ad > max_d, ad, max_d);
    // msprobe's RE: (x - y)/y after both sides are shifted by e where the golden value is 0
    // (§6.3), in that form, so that a ratio on a threshold (float16 data has many) counts as in
    // NumPy. msaccucmp's rᵢ = |xᵢ/yᵢ - 1| is the same quotient up to its last bit where
    // |yᵢ| > ε, except for an infinite golden value, where x/±Inf - 1 is -1 for a finite x.
    const V shift = select(y == 0, zero + e, zero);
    const V ys = y + shift;
    const V aq = magnitude((x + shift - ys) / ys);
    const V ay = magnitude(y);
    const V r_inf = select(magnitude(x) < kInf, one, zero + kNan);
    const V r = select(ay > kEps, select(ay == kInf, r_inf, aq), zero);  // NaN golden: 0
    rel += r;
    max_r = select(r > max_r, r, max_r);
    sum_re += aq;
    max_re = select(aq > max_re, aq, max_re);
    within1 += select(aq < 0.001, one, zero);
    within5 += select(aq < 0.005, one, zero);
    if constexpr (Extremes) {
      min_x = select(x < min_x, x, min_x);
      max_x = select(x > max_x, x, max_x);
      min_y = select(y < min_y, y, min_y);
      max_y = select(y > max_y, y, max_y);
    }
  }
};

// The sums of one block, reduced from the lanes in a fixed order.
struct BlockSums {
  uint64_t n = 0;
  double dot = 0, xx = 0, yy = 0, sx = 0, sy = 0, abs_d = 0, sq_d = 0, rel = 0;
  double max_d = 0, max_r = 0, max_re = 0;
  double nan_d = 0, nan_r = 0, nan_re = 0, within1 = 0, within5 = 0;
  double min_x = kInf, max_x = -kInf, min_y = kInf, max_y = -kInf;
  double m2x = 0, m2y = 0;  // Σ(x - block mean)², two-pass within the block
};

template <bool Extremes>
[[gnu::always_inline]] inline void pair_block_lanes(const double* x, const double* y, size_t m,
                                                    double e, BlockSums& b) {
  Lanes<V4, Extremes> v;
  size_t i = 0;
  for (; i + 4 <= m; i += 4) v.step(load4(x + i), load4(y + i), e);
  Lanes<double, Extremes> t;
  for (; i < m; ++i) t.step(x[i], y[i], e);
  b = BlockSums{};
  b.n = m;
  auto sum = [](V4 lanes, double tail) {
    return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + tail;
  };
  auto most = [](V4 lanes, double tail) {
    double r = tail;
    for (int l = 0; l < 4; ++l) r = lanes[l] > r ? lanes[l] : r;
    return r;
  };
  auto least = [](V4 lanes, double tail) {
    double r = tail;
    for (int l = 0; l < 4; ++l) r = lanes[l] < r ? lanes[l] : r;
    return r;
  };
  b.dot = sum(v.dot, t.dot);
  b.xx = sum(v.xx, t.xx);
  b.yy = sum(v.yy, t.yy);
  b.sx = sum(v.sx, t.sx);
  b.sy = sum(v.sy, t.sy);
  b.abs_d = sum(v.abs_d, t.abs_d);
  b.sq_d = sum(v.sq_d, t.sq_d);
  b.rel = sum(v.rel, t.rel);
  b.nan_d = std::isnan(b.abs_d);
  b.nan_r = std::isnan(b.rel);
  b.nan_re = std::isnan(sum(v.sum_re, t.sum_re));
  b.within1 = sum(v.within1, t.within1);
  b.within5 = sum(v.within5, t.within5);
  b.max_d = most(v.max_d, t.max_d);
  b.max_r = most(v.max_r, t.max_r);
  b.max_re = most(v.max_re, t.max_re);
  if constexpr (Extremes) {
    b.min_x = least(v.min_x, t.min_x);
    b.max_x = most(v.max_x, t.max_x);
    b.min_y = least(v.min_y, t.min_y);
    b.max_y = most(v.max_y, t.max_y);
  }
  if (m == 0) return;
  // The second moment about the block's own mean while the block is in L1 (as np.std's two
  // passes), merged across blocks with Chan's formula.
  const double mx = b.sx / static_cast<double>(m), my = b.sy / static_cast<double>(m);
  V4 ax{}, ay{};
  i = 0;
  for (; i + 4 <= m; i += 4) {
    const V4 dx = load4(x + i) - mx, dy = load4(y + i) - my;
    ax += dx * dx;
    ay += dy * dy;
  }
  double tx = 0, ty = 0;
  for (; i < m; ++i) {
    tx += (x[i] - mx) * (x[i] - mx);
    ty += (y[i] - my) * (y[i] - my);
  }
  b.m2x = sum(ax, tx);
  b.m2y = sum(ay, ty);
}

// The kernel compiled twice: for the x86-64 baseline (SSE2, each V4 in two registers) and, on
// CPUs that have it, for AVX2 (one register). Both do the same operations lane by lane in the
// same order (no FMA contraction: ISO C++ mode), so their results are identical.
using PairBlock = void (*)(const double*, const double*, size_t, double, BlockSums&);

template <bool Extremes>
void pair_block_default(const double* x, const double* y, size_t m, double e, BlockSums& b) {
  pair_block_lanes<Extremes>(x, y, m, e, b);
}

#if defined(__x86_64__)
template <bool Extremes>
[[gnu::target("avx2")]] void pair_block_avx2(const double* x, const double* y, size_t m, double e,
                                             BlockSums& b) {
  pair_block_lanes<Extremes>(x, y, m, e, b);
}
#endif

PairBlock pair_block_for(bool extremes) {
#if defined(__x86_64__)
  if (cpu_features().avx2) return extremes ? pair_block_avx2<true> : pair_block_avx2<false>;
#endif
  return extremes ? pair_block_default<true> : pair_block_default<false>;
}

// The second moment of two parts from their counts, sums and second moments (Chan's update,
// tensor/stats.h).
double merged_m2_of_sums(uint64_t n_a, double sum_a, double m2_a, uint64_t n_b, double sum_b,
                         double m2_b) {
  const auto na = static_cast<double>(n_a), nb = static_cast<double>(n_b);
  return merged_m2(na, n_a ? sum_a / na : 0, m2_a, nb, n_b ? sum_b / nb : 0, m2_b);
}

// The pair's sums over some elements, merged in element order.
struct PairSums {
  uint64_t n = 0, masked = 0, positions_differ = 0, nonfinite = 0;
  Sum dot, xx, yy, sx, sy, abs_d, sq_d, rel;
  double m2x = 0, m2y = 0;
  double max_d = 0, max_r = 0, max_re = 0;
  uint64_t nan_d = 0, nan_r = 0, nan_re = 0, within1 = 0, within5 = 0;
  double min_x = kInf, max_x = -kInf, min_y = kInf, max_y = -kInf;

  void add(const BlockSums& b) {
    if (b.n == 0) return;
    m2x = merged_m2_of_sums(n, sx.value(), m2x, b.n, b.sx, b.m2x);
    m2y = merged_m2_of_sums(n, sy.value(), m2y, b.n, b.sy, b.m2y);
    n += b.n;
    dot.add(b.dot);
    xx.add(b.xx);
    yy.add(b.yy);
    sx.add(b.sx);
    sy.add(b.sy);
    abs_d.add(b.abs_d);
    sq_d.add(b.sq_d);
    rel.add(b.rel);
    max_d = std::max(max_d, b.max_d);
    max_r = std::max(max_r, b.max_r);
    max_re = std::max(max_re, b.max_re);
    nan_d += static_cast<uint64_t>(b.nan_d);
    nan_r += static_cast<uint64_t>(b.nan_r);
    nan_re += static_cast<uint64_t>(b.nan_re);
    within1 += static_cast<uint64_t>(b.within1);
    within5 += static_cast<uint64_t>(b.within5);
    min_x = std::min(min_x, b.min_x);
    max_x = std::max(max_x, b.max_x);
    min_y = std::min(min_y, b.min_y);
    max_y = std::max(max_y, b.max_y);
  }
  void merge(const PairSums& later) {
    m2x = merged_m2_of_sums(n, sx.value(), m2x, later.n, later.sx.value(), later.m2x);
    m2y = merged_m2_of_sums(n, sy.value(), m2y, later.n, later.sy.value(), later.m2y);
    n += later.n;
    masked += later.masked;
    positions_differ += later.positions_differ;
    nonfinite += later.nonfinite;
    dot.merge(later.dot);
    xx.merge(later.xx);
    yy.merge(later.yy);
    sx.merge(later.sx);
    sy.merge(later.sy);
    abs_d.merge(later.abs_d);
    sq_d.merge(later.sq_d);
    rel.merge(later.rel);
    max_d = std::max(max_d, later.max_d);
    max_r = std::max(max_r, later.max_r);
    max_re = std::max(max_re, later.max_re);
    nan_d += later.nan_d;
    nan_r += later.nan_r;
    nan_re += later.nan_re;
    within1 += later.within1;
    within5 += later.within5;
    min_x = std::min(min_x, later.min_x);
    max_x = std::max(max_x, later.max_x);
    min_y = std::min(min_y, later.min_y);
    max_y = std::max(max_y, later.max_y);
  }
};

// KL's second pass: A = Σa, B = Σb and S = Σ a ln(a/b) of the normalised sides a and b, so that
// KL = Σ p ln(p/q) = S/A + ln(B/A) with p = a/A, q = b/B.
struct KlSums {
  Sum a, b, s;
  void merge(const KlSums& later) {
    a.merge(later.a);
    b.merge(later.b);
    s.merge(later.s);
  }
};

// How one side is normalised for KL (§5.1): (v - min)/(max - min) when max != min, else v; then
// at least ε₃₂. A constant side becomes 1 everywhere instead of max(v, ε₃₂): p = a/Σa is the same
// uniform distribution, and every a then lies in [ε₃₂, 1], so a/b never leaves the normal range
// (v itself could: 1e305/ε₃₂ overflows, while msaccucmp's p/q does not).
// (v - min) · inverse: one multiplication per element where NumPy divides by the range (the
// division was most of this pass's time); the result differs from NumPy's quotient by at most an
// ulp, far below the six digits the peers print.
struct KlScale {
  KlScale(double low, double span) : min(low), range(span), inverse(span == 0 ? 0 : 1 / span) {}
  double min = 0, range = 0, inverse = 0;
  bool constant() const { return range == 0; }
};

using U4 [[gnu::vector_size(32)]] = uint64_t;

// ln t for four normal positive doubles (no 0, subnormal, Inf or NaN), as t = 2^k · m with m in
// [√½, √2) and ln m = 2 atanh(s) = 2(s + s³/3 + s⁵/5 + …), s = (m - 1)/(m + 1), |s| < 0.1716,
// summed to s²³ (the rest is below 1e-19 of the result); within a few ulps of std::log, and
// relative accuracy near t = 1 (m - 1 is exact), where KL's terms are. Vectorised, unlike libm.
[[gnu::always_inline]] inline V4 log_normal(V4 t) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kSqrt2 = 1.41421356237309504880;
  const U4 bits = reinterpret_cast<U4>(t);
  V4 m = reinterpret_cast<V4>((bits & 0x000fffffffffffffu) | 0x3ff0000000000000u);
  // The exponent field as a double without a 64-bit integer conversion: 2^52 + field, less 2^52.
  V4 k = reinterpret_cast<V4>((bits >> 52) | 0x4330000000000000u) - 4503599627370496.0 - 1023.0;
  const L4 big = m > kSqrt2;
  m = select(big, m * 0.5, m);
  k = select(big, k + 1.0, k);
  const V4 s = (m - 1.0) / (m + 1.0);
  const V4 z = s * s;
  V4 p = V4{} + 1.0 / 23;
  for (int j = 21; j >= 3; j -= 2) p = p * z + 1.0 / j;
  return k * kLn2Hi + (2.0 * s + (2.0 * s * z * p + k * kLn2Lo));
}

// One block of KL's second pass: A, B and S (see KlSums).
[[gnu::always_inline]] inline void kl_block_lanes(const double* x, const double* y, size_t m,
                                                  const KlScale& sx, const KlScale& sy,
                                                  KlSums& out) {
  alignas(32) double a[kBlock], ratio[kBlock];
  V4 sa{}, sb{}, low = V4{} + kInf, high{};
  const V4 eps32 = V4{} + kEps32;
  auto scale = [&](V4 v, const KlScale& k) __attribute__((always_inline)) {
    if (k.constant()) return V4{} + 1.0;
    const V4 n = (v - k.min) * k.inverse;
    return select(n < eps32, eps32, n);  // NaN stays NaN, as np.maximum
  };
  size_t i = 0;
  for (; i + 4 <= m; i += 4) {
    const V4 ai = scale(load4(x + i), sx), bi = scale(load4(y + i), sy), t = ai / bi;
    std::memcpy(a + i, &ai, sizeof ai);
    std::memcpy(ratio + i, &t, sizeof t);
    sa += ai;
    sb += bi;
    low = select(t < low, t, low);
    high = select(t > high, t, high);
  }
  double ta = 0, tb = 0;
  for (; i < m; ++i) {
    auto one = [](double v, const KlScale& k) {
      if (k.constant()) return 1.0;
      const double n = (v - k.min) * k.inverse;
      return n < kEps32 ? kEps32 : n;
    };
    const double ai = one(x[i], sx), bi = one(y[i], sy);
    a[i] = ai;
    ratio[i] = ai / bi;
    ta += ai;
    tb += bi;
  }
  auto sum = [](V4 lanes, double tail) {
    return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + tail;
  };
  const size_t vectors = m / 4 * 4;
  double lowest = kInf, highest = 0;
  for (int l = 0; l < 4; ++l) {
    lowest = std::min(lowest, low[l]);
    highest = std::max(highest, high[l]);
  }
  // Ratios lie in [ε₃₂, 1/ε₃₂]; only a side whose max - min overflows (float64 beyond ±1e308)
  // gives NaN here, and then libm's log carries it.
  const bool normal = lowest >= std::numeric_limits<double>::min() &&
                      highest <= std::numeric_limits<double>::max() && !std::isnan(sum(sa, ta)) &&
                      !std::isnan(sum(sb, tb));
  V4 s{};
  double ts = 0;
  if (normal) {
    for (i = 0; i < vectors; i += 4) s += load4(a + i) * log_normal(load4(ratio + i));
    for (i = vectors; i < m; ++i) ts += a[i] * std::log(ratio[i]);
  } else {
    for (i = 0; i < m; ++i) ts += a[i] * std::log(ratio[i]);
  }
  out.a.add(sum(sa, ta));
  out.b.add(sum(sb, tb));
  out.s.add(sum(s, ts));
}

using KlBlock = void (*)(const double*, const double*, size_t, const KlScale&, const KlScale&,
                         KlSums&);

void kl_block_default(const double* x, const double* y, size_t m, const KlScale& sx,
                      const KlScale& sy, KlSums& out) {
  kl_block_lanes(x, y, m, sx, sy, out);
}

#if defined(__x86_64__)
[[gnu::target("avx2")]] void kl_block_avx2(const double* x, const double* y, size_t m,
                                           const KlScale& sx, const KlScale& sy, KlSums& out) {
  kl_block_lanes(x, y, m, sx, sy, out);
}
#endif

KlBlock kl_block_for() {
#if defined(__x86_64__)
  if (cpu_features().avx2) return kl_block_avx2;
#endif
  return kl_block_default;
}

// Elements [at, at + m) of `t` as doubles (each rounded to float32 first with `cast`). Float32
// and the 16-bit and small floats go through a float buffer: exact, and the cast changes nothing.
Status decode(const TensorView& t, uint64_t at, size_t m, bool cast, double* out) {
  alignas(32) float buffer[kBlock];
  const std::byte* data = t.data.data();
  const std::byte* floats = nullptr;
  if (t.dtype == DType::Float32) {
    floats = data + at * 4;
  } else if (t.dtype == DType::Float16 || t.dtype == DType::BFloat16) {
    sixteen_bit_floats_to_float32(t.dtype, data + at * 2, m, buffer);
    floats = reinterpret_cast<const std::byte*>(buffer);
  } else if (small_float_decoder(t.dtype)) {
    MSDT_CHECK(small_floats_to_float32(t.dtype, t.data, at, m, buffer));
    floats = reinterpret_cast<const std::byte*>(buffer);
  }
  if (floats != nullptr) {
    size_t i = 0;
    for (; i + 4 <= m; i += 4) {
      F4 f;
      std::memcpy(&f, floats + i * 4, sizeof f);
      const V4 v = __builtin_convertvector(f, V4);
      std::memcpy(out + i, &v, sizeof v);
    }
    for (; i < m; ++i) {
      float f;
      std::memcpy(&f, floats + i * 4, sizeof f);
      out[i] = f;
    }
    return std::nullopt;
  }
  MSDT_CHECK(elements_to_double(t, at, m, out));
  if (cast)
    for (size_t i = 0; i < m; ++i) out[i] = static_cast<float>(out[i]);
  return std::nullopt;
}

// The NaN/Inf policy on one block; returns the pairs left (fewer only under Mask).
size_t apply_policy(NanPolicy policy, double* x, double* y, size_t m, PairSums& sums) {
  // x * 0 is NaN exactly for NaN and ±Inf, so one NaN lane says the block has a non-finite value.
  V4 probe{};
  size_t i = 0;
  for (; i + 4 <= m; i += 4) probe += load4(x + i) * 0.0 + load4(y + i) * 0.0;
  double tail = 0;
  for (; i < m; ++i) tail += x[i] * 0.0 + y[i] * 0.0;
  const double any = (probe[0] + probe[1]) + (probe[2] + probe[3]) + tail;
  if (any == 0) return m;
  switch (policy) {
    case NanPolicy::Propagate:
      for (size_t j = 0; j < m; ++j) sums.nonfinite += !std::isfinite(x[j]) || !std::isfinite(y[j]);
      return m;
    case NanPolicy::SamePositions:
      for (size_t j = 0; j < m; ++j) {
        const bool differ =
            std::isnan(x[j]) != std::isnan(y[j]) || std::isinf(x[j]) != std::isinf(y[j]);
        sums.positions_differ += differ;
        if (!std::isfinite(x[j])) x[j] = 0;
        if (!std::isfinite(y[j])) y[j] = 0;
      }
      return m;
    case NanPolicy::Mask: {
      size_t kept = 0;
      for (size_t j = 0; j < m; ++j) {
        x[kept] = x[j];
        y[kept] = y[j];
        kept += std::isfinite(x[j]) && std::isfinite(y[j]);
      }
      sums.masked += m - kept;
      return kept;
    }
  }
  return m;
}

// The epsilon msprobe shifts zero golden values by: that of NumPy's result_type(x, y, float32)
// (§6.3), float64 as soon as one side's type does not fit a float32 exactly.
double msprobe_epsilon(DType my, DType golden, bool cast) {
  if (cast) return kEps32;
  auto wide = [](DType d) {
    return d == DType::Float64 || d == DType::Int32 || d == DType::Int64 || d == DType::UInt32 ||
           d == DType::UInt64;
  };
  return wide(my) || wide(golden) ? kEps : kEps32;
}

Status check_bytes(const TensorView& t, uint64_t count, std::string_view side) {
  auto need = dtype_bytes(t.dtype, count);
  if (!need || *need > t.data.size())
    return Error(fmt::format("{} tensor: {} {} elements need {} bytes, found {}", side, count,
                             dtype_name(t.dtype), need ? fmt::to_string(*need) : "over 2^64",
                             t.data.size()));
  return std::nullopt;
}

struct Chunk {
  StatsAccumulator my, golden;
  PairSums pair;
  Status problem;
};

Metric clamp_cosine(double c) {
  if (std::isnan(c)) return Metric::absent(Reason::NonFinite);
  return Metric::of(std::clamp(c, -1.0, 1.0));
}

StatisticDiff diff_one(std::optional<double> my, std::optional<double> golden, uint64_t my_count,
                       uint64_t golden_count) {
  StatisticDiff out;
  if (!my || !golden) {
    const bool empty = (!my && my_count == 0) || (!golden && golden_count == 0);
    out.diff = out.relative = Metric::absent(empty ? Reason::Empty : Reason::NonFinite);
    return out;
  }
  const double diff = *my - *golden;
  out.diff = Metric::of(diff);
  out.relative = *golden == 0 ? Metric::absent(Reason::ZeroGoldenStatistic)
                              : Metric::of(std::fabs(diff / *golden) * 100);
  out.large = std::fabs(diff) / (std::max(std::fabs(*my), std::fabs(*golden)) + 1e-10) > 0.5;
  return out;
}

constexpr std::string_view kReasonNames[kReasonCount] = {
    "not selected",    "not real",
    "size mismatch",   "shape mismatch",
    "empty",           "nan/inf positions differ",
    "all masked",      "bool",
    "scalar",          "length 1",
    "all-zero mine",   "all-zero golden",
    "non-finite",      "zero golden statistic",
    "statistics only",
};

constexpr std::string_view kAlgorithmNames[kAlgorithmCount] = {
    "CosineSimilarity",          "MaxAbsoluteError",          "AccumulatedRelativeError",
    "RelativeEuclideanDistance", "KullbackLeiblerDivergence", "StandardDeviation",
    "MeanAbsoluteError",         "RootMeanSquareError",       "MaxRelativeError",
    "MeanRelativeError",
};

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

std::string_view reason_name(Reason reason) { return kReasonNames[static_cast<size_t>(reason)]; }

std::optional<Reason> parse_reason(std::string_view name) {
  for (size_t i = 0; i < kReasonCount; ++i)
    if (kReasonNames[i] == name) return static_cast<Reason>(i);
  return std::nullopt;
}

Metric Metric::of(double v) {
  if (std::isnan(v)) return absent(Reason::NonFinite);
  return Metric{v, std::nullopt};
}

std::string_view algorithm_name(Algorithm algorithm) {
  return kAlgorithmNames[static_cast<size_t>(algorithm)];
}

std::optional<Algorithm> find_algorithm(std::string_view text) {
  if (text.size() == 1 && text[0] >= '0' && text[0] <= '9')
    return static_cast<Algorithm>(text[0] - '0');
  for (size_t i = 0; i < kAlgorithmCount; ++i)
    if (equal_ignoring_case(text, kAlgorithmNames[i])) return static_cast<Algorithm>(i);
  return std::nullopt;
}

Algorithms Algorithms::all() {
  Algorithms out;
  for (size_t i = 0; i < kAlgorithmCount; ++i) out.add(static_cast<Algorithm>(i));
  return out;
}

void Algorithms::add(Algorithm algorithm) {
  if (has(algorithm)) return;
  order_.push_back(algorithm);
  mask_ = static_cast<uint16_t>(mask_ | (1u << static_cast<unsigned>(algorithm)));
}

Expected<Algorithms> Algorithms::parse(std::string_view text) {
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  Algorithms out;
  size_t at = 0;
  bool any = false, after_comma = false;
  while (true) {
    while (at < text.size() && blank(text[at])) ++at;
    if (at == text.size()) {
      if (after_comma || !any) return Error(fmt::format("empty item in algorithm list '{}'", text));
      return out;
    }
    if (text[at] == ',') return Error(fmt::format("empty item in algorithm list '{}'", text));
    size_t end = at;
    while (end < text.size() && text[end] != ',' && !blank(text[end])) ++end;
    const std::string_view item = text.substr(at, end - at);
    if (equal_ignoring_case(item, "all")) {
      for (size_t i = 0; i < kAlgorithmCount; ++i) out.add(static_cast<Algorithm>(i));
    } else if (auto algorithm = find_algorithm(item)) {
      out.add(*algorithm);
    } else if (std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return Error(fmt::format("algorithm index {} is not in 0-9", item));
    } else {
      return Error(fmt::format("unknown algorithm '{}' (expected 0-9, all or one of {})", item,
                               fmt::join(kAlgorithmNames, ", ")));
    }
    any = true;
    at = end;
    while (at < text.size() && blank(text[at])) ++at;
    after_comma = at < text.size() && text[at] == ',';
    if (after_comma) ++at;
  }
}

std::string_view msprobe_metric_name(MsprobeMetric metric) {
  static constexpr std::string_view kNames[kMsprobeMetricCount] = {"Cosine",
                                                                   "EucDist",
                                                                   "MaxAbsErr",
                                                                   "MaxRelativeErr",
                                                                   "One Thousandth Err Ratio",
                                                                   "Five Thousandths Err Ratio"};
  return kNames[static_cast<size_t>(metric)];
}

std::string_view nan_policy_name(NanPolicy policy) {
  switch (policy) {
    case NanPolicy::Propagate:
      return "propagate";
    case NanPolicy::SamePositions:
      return "same-positions";
    case NanPolicy::Mask:
      return "mask";
  }
  return "";
}

std::optional<NanPolicy> parse_nan_policy(std::string_view text) {
  if (text == "propagate") return NanPolicy::Propagate;
  if (text == "same-positions" || text == "mask-if-same-positions") return NanPolicy::SamePositions;
  if (text == "mask" || text == "mask-all") return NanPolicy::Mask;
  return std::nullopt;
}

SummaryStatistics summary_of(const TensorStats& stats) {
  return SummaryStatistics{stats.max, stats.min, stats.mean, stats.l2norm, stats.count};
}

StatisticsDiff diff_statistics(const SummaryStatistics& my, const SummaryStatistics& golden) {
  StatisticsDiff out;
  out.max = diff_one(my.max, golden.max, my.count, golden.count);
  out.min = diff_one(my.min, golden.min, my.count, golden.count);
  out.mean = diff_one(my.mean, golden.mean, my.count, golden.count);
  out.l2norm = diff_one(my.l2norm, golden.l2norm, my.count, golden.count);
  return out;
}

void PairMetrics::set_pair_reason(Reason reason) {
  pair_reason = reason;
  const Metric none = Metric::absent(reason);
  for (Metric* m :
       {&cosine, &max_absolute_error, &accumulated_relative_error, &relative_euclidean_distance,
        &kl_divergence, &mean_my, &std_my, &mean_golden, &std_golden, &mean_absolute_error,
        &root_mean_square_error, &max_relative_error, &mean_relative_error, &mp_cosine, &euc_dist,
        &mp_max_abs_err, &mp_max_relative_err, &one_thousandth_ratio, &five_thousandths_ratio})
    *m = none;
}

const Metric& PairMetrics::get(Algorithm algorithm) const {
  switch (algorithm) {
    case Algorithm::CosineSimilarity:
      return cosine;
    case Algorithm::MaxAbsoluteError:
      return max_absolute_error;
    case Algorithm::AccumulatedRelativeError:
      return accumulated_relative_error;
    case Algorithm::RelativeEuclideanDistance:
      return relative_euclidean_distance;
    case Algorithm::KullbackLeiblerDivergence:
      return kl_divergence;
    case Algorithm::StandardDeviation:
      return mean_my;
    case Algorithm::MeanAbsoluteError:
      return mean_absolute_error;
    case Algorithm::RootMeanSquareError:
      return root_mean_square_error;
    case Algorithm::MaxRelativeError:
      return max_relative_error;
    case Algorithm::MeanRelativeError:
      return mean_relative_error;
  }
  return cosine;
}

const Metric& PairMetrics::get(MsprobeMetric metric) const {
  switch (metric) {
    case MsprobeMetric::Cosine:
      return mp_cosine;
    case MsprobeMetric::EucDist:
      return euc_dist;
    case MsprobeMetric::MaxAbsErr:
      return mp_max_abs_err;
    case MsprobeMetric::MaxRelativeErr:
      return mp_max_relative_err;
    case MsprobeMetric::OneThousandthErrRatio:
      return one_thousandth_ratio;
    case MsprobeMetric::FiveThousandthsErrRatio:
      return five_thousandths_ratio;
  }
  return mp_cosine;
}

Expected<PairMetrics> compare_tensors(const TensorView& my, const TensorView& golden,
                                      const MetricOptions& options) {
  MSDT_TRY(const uint64_t my_count, element_count(my.shape));
  MSDT_TRY(const uint64_t golden_count, element_count(golden.shape));
  MSDT_CHECK(check_bytes(my, my_count, "my"));
  MSDT_CHECK(check_bytes(golden, golden_count, "golden"));

  PairMetrics out;
  out.shapes_equal = my.shape == golden.shape;
  out.dtypes_equal = my.dtype == golden.dtype;
  const bool real = has_real_values(my.dtype) && has_real_values(golden.dtype);
  if (!real)
    out.pair_reason = Reason::NotReal;
  else if (my_count != golden_count)
    out.pair_reason = Reason::SizeMismatch;
  else if (options.require_same_shape && !out.shapes_equal)
    out.pair_reason = Reason::ShapeMismatch;
  else if (my_count == 0)
    out.pair_reason = Reason::Empty;

  const unsigned jobs = std::max(1u, options.jobs);
  const uint64_t count = my_count;
  const uint64_t paired = out.pair_reason            ? 0
                          : options.max_elements > 0 ? std::min(count, options.max_elements)
                                                     : count;
  const double e = msprobe_epsilon(my.dtype, golden.dtype, options.cast_float32);
  PairSums sums;
  const PairBlock pair_block =
      pair_block_for(options.algorithms.has(Algorithm::KullbackLeiblerDivergence));
  if (out.pair_reason && out.pair_reason != Reason::Empty) {
    // The sides cannot be walked together: each gets its statistics alone.
    out.my = compute_stats(my, jobs);
    out.golden = compute_stats(golden, jobs);
  } else {
    // One walk: each block's statistics on both sides and, within `paired`, its pair sums.
    const size_t chunks = static_cast<size_t>((count + kChunk - 1) / kChunk);
    std::vector<Chunk> parts(chunks);
    parallel_for(chunks, jobs, [&](size_t c) {
      Chunk& part = parts[c];
      alignas(32) double x[kBlock], y[kBlock];
      const uint64_t first = c * kChunk, end = std::min(count, first + kChunk);
      for (uint64_t at = first; at < end && !part.problem; at += kBlock) {
        const uint64_t m = std::min(kBlock, end - at);
        part.my.add(my, at, m);
        part.golden.add(golden, at, m);
        if (at >= paired) continue;
        const size_t mp = static_cast<size_t>(std::min(m, paired - at));
        part.problem = decode(my, at, mp, options.cast_float32, x);
        if (!part.problem) part.problem = decode(golden, at, mp, options.cast_float32, y);
        if (part.problem) break;
        // Optimistic: Σx² and Σy² are finite when no value is NaN or Inf (a float64 beyond 1e154
        // is a false alarm that only costs the check below), so the policy looks only at the
        // blocks that need it, which are then done again on the values it left.
        BlockSums block;
        pair_block(x, y, mp, e, block);
        if (!std::isfinite(block.xx) || !std::isfinite(block.yy)) {
          const size_t kept = apply_policy(options.nan, x, y, mp, part.pair);
          if (options.nan != NanPolicy::Propagate) pair_block(x, y, kept, e, block);
        }
        part.pair.add(block);
      }
    });
    StatsAccumulator my_total, golden_total;
    for (auto& part : parts) {
      if (part.problem) return std::move(*part.problem);
      my_total.merge(part.my);
      golden_total.merge(part.golden);
      sums.merge(part.pair);
    }
    out.my.count = my_count;
    out.golden.count = golden_count;
    my_total.fill(out.my);
    golden_total.fill(out.golden);
  }
  out.statistics = diff_statistics(summary_of(out.my), summary_of(out.golden));
  out.masked = sums.masked;
  out.positions_differ = sums.positions_differ;
  out.compared = sums.n;
  if (!out.pair_reason && options.nan == NanPolicy::SamePositions && sums.positions_differ > 0)
    out.pair_reason = Reason::NanInfPositionsDiffer;
  if (!out.pair_reason && sums.n == 0) out.pair_reason = Reason::AllMasked;

  // Every metric, absent for the shared reason first.
  const auto& selected = options.algorithms;
  if (out.pair_reason) {
    out.set_pair_reason(*out.pair_reason);
  } else {
    const double n = static_cast<double>(sums.n);
    const bool zero_d = my.shape.empty() || golden.shape.empty();
    const bool both_bool = my.dtype == DType::Bool && golden.dtype == DType::Bool;
    const double dot = sums.dot.value(), xx = sums.xx.value(), yy = sums.yy.value();
    const double nx = std::sqrt(xx), ny = std::sqrt(yy);
    const double sq_d = sums.sq_d.value();
    const Metric boolean = Metric::absent(Reason::Bool);

    // msaccucmp (§5.1). Its scalar rule (§4 item 7) is on the shape: every dimension 1.
    if (count == 1)
      out.cosine = Metric::absent(Reason::Scalar);
    else if (sums.n == 1)
      out.cosine = Metric::absent(Reason::LengthOne);
    else if (nx <= kEps && ny < kEps)
      out.cosine = Metric::of(1.0);
    else if (std::sqrt(nx) <= kEps)
      out.cosine = Metric::absent(Reason::AllZeroMine);
    else if (std::sqrt(ny) <= kEps)
      out.cosine = Metric::absent(Reason::AllZeroGolden);
    else
      out.cosine = clamp_cosine(dot / nx / ny);
    out.relative_euclidean_distance =
        ny <= kEps ? Metric::of(0.0) : Metric::of(std::sqrt(sq_d / yy));
    if (both_bool) {
      for (Metric* m :
           {&out.max_absolute_error, &out.accumulated_relative_error, &out.kl_divergence,
            &out.mean_my, &out.std_my, &out.mean_golden, &out.std_golden, &out.mean_absolute_error,
            &out.root_mean_square_error, &out.max_relative_error, &out.mean_relative_error})
        *m = boolean;
    } else {
      out.max_absolute_error = sums.nan_d > 0 ? Metric::of(kNan) : Metric::of(sums.max_d);
      out.accumulated_relative_error = Metric::of(sums.rel.value());
      const double mean_x = sums.sx.value() / n, mean_y = sums.sy.value() / n;
      out.mean_my = Metric::of(mean_x);
      out.mean_golden = Metric::of(mean_y);
      out.std_my = Metric::of(std::sqrt(std::max(sums.m2x, 0.0) / n));
      out.std_golden = Metric::of(std::sqrt(std::max(sums.m2y, 0.0) / n));
      out.mean_absolute_error = Metric::of(sums.abs_d.value() / n);
      out.root_mean_square_error = Metric::of(std::sqrt(sq_d / n));
      out.max_relative_error = sums.nan_r > 0 ? Metric::of(kNan) : Metric::of(sums.max_r);
      out.mean_relative_error = Metric::of(sums.rel.value() / n);
      if (sums.nonfinite > 0) {
        // NaN or Inf reaches np.min and np.max, and every normalised value is then NaN.
        out.kl_divergence = Metric::absent(Reason::NonFinite);
      } else if (selected.has(Algorithm::KullbackLeiblerDivergence)) {
        // The second pass (see metrics.h): the extremes are known only now.
        const KlScale scale_x{sums.min_x, sums.max_x - sums.min_x};
        const KlScale scale_y{sums.min_y, sums.max_y - sums.min_y};
        const size_t chunks = static_cast<size_t>((paired + kChunk - 1) / kChunk);
        std::vector<KlSums> parts(chunks);
        const KlBlock kl_block = kl_block_for();
        std::vector<Status> problems(chunks);
        parallel_for(chunks, jobs, [&](size_t c) {
          alignas(32) double x[kBlock], y[kBlock];
          PairSums ignored;
          const uint64_t first = c * kChunk, end = std::min(paired, first + kChunk);
          for (uint64_t at = first; at < end; at += kBlock) {
            const size_t m = static_cast<size_t>(std::min(kBlock, end - at));
            problems[c] = decode(my, at, m, options.cast_float32, x);
            if (!problems[c]) problems[c] = decode(golden, at, m, options.cast_float32, y);
            if (problems[c]) return;
            // Under propagate the values are finite here and the policy changes nothing.
            const size_t kept = options.nan == NanPolicy::Propagate
                                    ? m
                                    : apply_policy(options.nan, x, y, m, ignored);
            kl_block(x, y, kept, scale_x, scale_y, parts[c]);
          }
        });
        KlSums kl;
        for (size_t c = 0; c < chunks; ++c) {
          if (problems[c]) return std::move(*problems[c]);
          kl.merge(parts[c]);
        }
        const double a = kl.a.value(), b = kl.b.value();
        double value = kl.s.value() / a + std::log(b / a);
        if (std::fabs(value) < kEps) value = 0;
        out.kl_divergence = Metric::of(value);
      }
    }

    // msprobe (§6.4).
    if (zero_d)
      out.mp_cosine = Metric::absent(Reason::Scalar);
    else if (sums.n == 1)
      out.mp_cosine = Metric::absent(Reason::LengthOne);
    else if (nx <= kEps && ny <= kEps)
      out.mp_cosine = Metric::of(1.0);
    else if (nx <= kEps)
      out.mp_cosine = Metric::absent(Reason::AllZeroMine);
    else if (ny <= kEps)
      out.mp_cosine = Metric::absent(Reason::AllZeroGolden);
    else
      out.mp_cosine = clamp_cosine(dot / nx / ny);
    out.euc_dist = zero_d ? Metric::absent(Reason::Scalar) : Metric::of(std::sqrt(sq_d));
    out.mp_max_abs_err = sums.nan_d > 0 ? Metric::of(kNan) : Metric::of(sums.max_d);
    out.mp_max_relative_err = sums.nan_re > 0 ? Metric::of(kNan) : Metric::of(sums.max_re);
    out.one_thousandth_ratio =
        zero_d ? Metric::absent(Reason::Scalar) : Metric::of(static_cast<double>(sums.within1) / n);
    out.five_thousandths_ratio =
        zero_d ? Metric::absent(Reason::Scalar) : Metric::of(static_cast<double>(sums.within5) / n);
  }

  // Metrics left out of the selection say so, whatever else applies.
  const std::pair<Algorithm, std::vector<Metric*>> by_algorithm[] = {
      {Algorithm::CosineSimilarity, {&out.cosine}},
      {Algorithm::MaxAbsoluteError, {&out.max_absolute_error}},
      {Algorithm::AccumulatedRelativeError, {&out.accumulated_relative_error}},
      {Algorithm::RelativeEuclideanDistance, {&out.relative_euclidean_distance}},
      {Algorithm::KullbackLeiblerDivergence, {&out.kl_divergence}},
      {Algorithm::StandardDeviation,
       {&out.mean_my, &out.std_my, &out.mean_golden, &out.std_golden}},
      {Algorithm::MeanAbsoluteError, {&out.mean_absolute_error}},
      {Algorithm::RootMeanSquareError, {&out.root_mean_square_error}},
      {Algorithm::MaxRelativeError, {&out.max_relative_error}},
      {Algorithm::MeanRelativeError, {&out.mean_relative_error}},
  };
  for (const auto& [algorithm, metrics] : by_algorithm)
    if (!selected.has(algorithm))
      for (Metric* m : metrics) *m = Metric::absent(Reason::NotSelected);
  return out;
}

}  // namespace msdt::compare
