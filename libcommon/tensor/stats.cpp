#include "tensor/stats.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace msdt {
namespace {

// Elements are decoded a block at a time into doubles, so that the block stays in L1 and the
// kernel below is shared by every dtype. A multiple of 8 keeps packed blocks byte-aligned.
constexpr size_t kBlock = 2048;
constexpr int kLanes = 4;  // independent accumulators, so that additions do not wait on each other

// Statistics of one block, with the sums shifted by `shift` (close to the mean) so that the
// block's variance does not suffer from cancellation (the "shifted data" algorithm).
template <class Acc>
struct BlockSums {
  uint64_t nan = 0, pos_inf = 0, neg_inf = 0, zero = 0, negative = 0, positive = 0, finite = 0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  Acc shifted_sum = 0, shifted_sq = 0, abs_sum = 0, sq_sum = 0;
};

template <class Acc>
BlockSums<Acc> sum_block(const double* values, size_t n, double shift) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  uint64_t nan[kLanes] = {}, pinf[kLanes] = {}, ninf[kLanes] = {}, zero[kLanes] = {},
           neg[kLanes] = {}, pos[kLanes] = {}, fin[kLanes] = {};
  double mn[kLanes], mx[kLanes];
  Acc s[kLanes] = {}, ss[kLanes] = {}, as[kLanes] = {}, sq[kLanes] = {};
  for (int j = 0; j < kLanes; ++j) {
    mn[j] = kInf;
    mx[j] = -kInf;
  }
  auto step = [&](int j, double x) {
    // Branch-free: comparisons with NaN are false, and x - x is 0 only for finite x.
    bool finite = (x - x) == 0;
    nan[j] += x != x;
    pinf[j] += x == kInf;
    ninf[j] += x == -kInf;
    zero[j] += x == 0;  // true for -0.0 as well
    neg[j] += x < 0;
    pos[j] += x > 0;
    fin[j] += finite;
    mn[j] = x < mn[j] ? x : mn[j];
    mx[j] = x > mx[j] ? x : mx[j];
    Acc v = finite ? static_cast<Acc>(x) : Acc(0);
    Acc d = finite ? v - static_cast<Acc>(shift) : Acc(0);
    s[j] += d;
    ss[j] += d * d;
    as[j] += v < 0 ? -v : v;
    sq[j] += v * v;
  };
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) step(j, values[i + j]);
  for (int j = 0; i < n; ++i, ++j) step(j, values[i]);

  BlockSums<Acc> out;
  for (int j = 0; j < kLanes; ++j) {
    out.nan += nan[j];
    out.pos_inf += pinf[j];
    out.neg_inf += ninf[j];
    out.zero += zero[j];
    out.negative += neg[j];
    out.positive += pos[j];
    out.finite += fin[j];
    out.min = std::min(out.min, mn[j]);
    out.max = std::max(out.max, mx[j]);
    out.shifted_sum += s[j];
    out.shifted_sq += ss[j];
    out.abs_sum += as[j];
    out.sq_sum += sq[j];
  }
  return out;
}

// The same sums as sum_block in double, on two-lane vectors (SSE2/NEON width, so no -march is
// needed): the hot loop for every dtype. Non-finite lanes are masked out of the sums with a bitwise
// and; positive is derived, since each non-NaN value is < 0, == 0 or > 0.
using V2d = double __attribute__((vector_size(16)));
using V2i = int64_t __attribute__((vector_size(16)));

inline V2d select(V2i mask, V2d a, V2d b) {
  return reinterpret_cast<V2d>((reinterpret_cast<V2i>(a) & mask) |
                               (reinterpret_cast<V2i>(b) & ~mask));
}

BlockSums<double> fast_sum_block(const double* values, size_t n, double shift) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr int kVectors = 2;  // two independent accumulator sets hide the add latency
  const V2d inf = {kInf, kInf}, ninf = {-kInf, -kInf}, zero = {0, 0}, shift_v = {shift, shift};
  const V2i sign_mask = {INT64_MAX, INT64_MAX};
  V2i nan_c[kVectors] = {}, pinf_c[kVectors] = {}, ninf_c[kVectors] = {}, zero_c[kVectors] = {},
      neg_c[kVectors] = {};
  V2d mn[kVectors], mx[kVectors], s[kVectors] = {}, ss[kVectors] = {}, as[kVectors] = {},
                                  sq[kVectors] = {};
  for (int j = 0; j < kVectors; ++j) {
    mn[j] = inf;
    mx[j] = ninf;
  }
  size_t i = 0;
  for (; i + 2 * kVectors <= n; i += 2 * kVectors) {
    for (int j = 0; j < kVectors; ++j) {
      V2d x;
      std::memcpy(&x, values + i + 2 * j, sizeof x);
      V2i finite = (x - x) == zero;
      // Comparisons give -1 for true, so subtracting counts.
      nan_c[j] -= x != x;
      pinf_c[j] -= x == inf;
      ninf_c[j] -= x == ninf;
      zero_c[j] -= x == zero;
      neg_c[j] -= x < zero;
      mn[j] = select(x < mn[j], x, mn[j]);
      mx[j] = select(x > mx[j], x, mx[j]);
      V2d v = reinterpret_cast<V2d>(reinterpret_cast<V2i>(x) & finite);
      V2d d = reinterpret_cast<V2d>(reinterpret_cast<V2i>(x - shift_v) & finite);
      s[j] += d;
      ss[j] += d * d;
      as[j] += reinterpret_cast<V2d>(reinterpret_cast<V2i>(v) & sign_mask);
      sq[j] += v * v;
    }
  }
  uint64_t nan = 0, pos_inf = 0, neg_inf = 0, zeros = 0, negative = 0;
  BlockSums<double> out = sum_block<double>(values + i, n - i, shift);  // the tail
  for (int j = 0; j < kVectors; ++j) {
    for (int k = 0; k < 2; ++k) {
      nan += static_cast<uint64_t>(nan_c[j][k]);
      pos_inf += static_cast<uint64_t>(pinf_c[j][k]);
      neg_inf += static_cast<uint64_t>(ninf_c[j][k]);
      zeros += static_cast<uint64_t>(zero_c[j][k]);
      negative += static_cast<uint64_t>(neg_c[j][k]);
      out.min = std::min(out.min, mn[j][k]);
      out.max = std::max(out.max, mx[j][k]);
      out.shifted_sum += s[j][k];
      out.shifted_sq += ss[j][k];
      out.abs_sum += as[j][k];
      out.sq_sum += sq[j][k];
    }
  }
  out.nan += nan;
  out.pos_inf += pos_inf;
  out.neg_inf += neg_inf;
  out.zero += zeros;
  out.negative += negative;
  out.positive += i - nan - zeros - negative;
  out.finite += i - nan - pos_inf - neg_inf;
  return out;
}

// Running totals; blocks are merged with Chan et al.'s pairwise formula for the second moment.
template <class Acc>
struct Totals {
  uint64_t nan = 0, pos_inf = 0, neg_inf = 0, zero = 0, negative = 0, positive = 0, finite = 0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  Acc mean = 0, m2 = 0, abs_sum = 0, sq_sum = 0;

  void add(const double* values, size_t n) {
    double shift = 0;
    if (finite > 0) {
      shift = static_cast<double>(mean);
    } else {
      for (size_t i = 0; i < n; ++i)
        if (std::isfinite(values[i])) {
          shift = values[i];
          break;
        }
    }
    BlockSums<double> fast = fast_sum_block(values, n, shift);
    // Squares of float64 values can overflow a double; long double has the range for them.
    if (std::isfinite(fast.shifted_sq) && std::isfinite(fast.sq_sum) &&
        std::isfinite(fast.shifted_sum) && std::isfinite(fast.abs_sum))
      merge(fast, shift);
    else
      merge(sum_block<Acc>(values, n, shift), shift);
  }

  template <class B>
  void merge(const B& b, double shift) {
    nan += b.nan;
    pos_inf += b.pos_inf;
    neg_inf += b.neg_inf;
    zero += b.zero;
    negative += b.negative;
    positive += b.positive;
    min = std::min(min, b.min);
    max = std::max(max, b.max);
    abs_sum += b.abs_sum;
    sq_sum += b.sq_sum;
    if (b.finite == 0) return;
    Acc nb = static_cast<Acc>(b.finite);
    Acc block_mean = static_cast<Acc>(shift) + b.shifted_sum / nb;
    Acc block_m2 = b.shifted_sq - b.shifted_sum * b.shifted_sum / nb;
    if (block_m2 < 0) block_m2 = 0;
    Acc na = static_cast<Acc>(finite);
    Acc n_total = na + nb;
    Acc delta = block_mean - mean;
    mean += delta * (nb / n_total);
    m2 += block_m2 + delta * delta * (na * nb / n_total);
    finite += b.finite;
  }

  void fill(TensorStats& stats) const {
    stats.nan = nan;
    stats.pos_inf = pos_inf;
    stats.neg_inf = neg_inf;
    stats.zero = zero;
    stats.negative = negative;
    stats.positive = positive;
    if (stats.count > nan) {
      stats.min = min;
      stats.max = max;
    }
    if (finite > 0) {
      Acc n = static_cast<Acc>(finite);
      stats.mean = static_cast<double>(mean);
      stats.std = static_cast<double>(std::sqrt(m2 / n));
      stats.abs_mean = static_cast<double>(abs_sum / n);
      stats.l2norm = static_cast<double>(std::sqrt(sq_sum));
    }
  }
};

float float4_e2m1_value(unsigned nibble) {
  static constexpr float kMagnitudes[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  return (nibble & 8u) ? -kMagnitudes[nibble & 7u] : kMagnitudes[nibble & 7u];
}

// Decodes elements [first, first + n) into doubles; `first` is a multiple of kBlock, so packed
// elements start on a byte boundary. Returns false for dtypes without numeric statistics.
bool decode(DType dtype, const std::byte* data, uint64_t first, size_t n, double* out) {
  auto typed = [&](auto tag) {
    using T = decltype(tag);
    const std::byte* p = data + first * sizeof(T);
    T tmp[kBlock];
    std::memcpy(tmp, p, n * sizeof(T));  // data may be unaligned inside a mapped file
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<double>(tmp[i]);
  };
  auto bytes = [&](auto convert) {
    const std::byte* p = data + first;
    for (size_t i = 0; i < n; ++i) out[i] = convert(static_cast<uint8_t>(p[i]));
  };
  auto halves = [&](auto convert) {
    uint16_t tmp[kBlock];
    std::memcpy(tmp, data + first * 2, n * 2);  // little-endian host (dump spec §0)
    for (size_t i = 0; i < n; ++i) out[i] = convert(tmp[i]);
  };
  switch (dtype) {
    case DType::Float32:
      typed(float{});
      return true;
    case DType::Float64:
      typed(double{});
      return true;
    case DType::Int8:
      typed(int8_t{});
      return true;
    case DType::UInt8:
      typed(uint8_t{});
      return true;
    case DType::Int16:
      typed(int16_t{});
      return true;
    case DType::UInt16:
      typed(uint16_t{});
      return true;
    case DType::Int32:
      typed(int32_t{});
      return true;
    case DType::UInt32:
      typed(uint32_t{});
      return true;
    case DType::Int64:
      typed(int64_t{});
      return true;
    case DType::UInt64:
      typed(uint64_t{});
      return true;
    case DType::Bool:
      bytes([](uint8_t b) { return b != 0 ? 1.0 : 0.0; });
      return true;
    case DType::Float16:
      halves(half_to_float);
      return true;
    case DType::BFloat16:
      halves(bfloat16_to_float);
      return true;
    case DType::Float8E4M3FN:
      bytes(float8_e4m3fn_to_float);
      return true;
    case DType::Float8E5M2:
      bytes(float8_e5m2_to_float);
      return true;
    case DType::Float8E8M0:
      // A pure power of two 2^(e-127); 0xFF is NaN (OCP MX E8M0).
      bytes([](uint8_t b) {
        return b == 0xFF ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, b - 127);
      });
      return true;
    case DType::Int4:
    case DType::Float4E2M1: {
      // Two elements per byte, low nibble first (dump spec §5.2, SplitInt8ToInt4x2).
      const std::byte* p = data + first / 2;
      bool is_int = dtype == DType::Int4;
      for (size_t i = 0; i < n; ++i) {
        unsigned byte = static_cast<uint8_t>(p[i / 2]);
        unsigned nibble = (i % 2 == 0) ? (byte & 0xFu) : (byte >> 4);
        out[i] = is_int ? static_cast<double>(static_cast<int>(nibble ^ 8u) - 8)
                        : float4_e2m1_value(nibble);
      }
      return true;
    }
    case DType::Int2:
    case DType::UInt2: {
      // Four elements per byte, lowest bits first like int4.
      const std::byte* p = data + first / 4;
      for (size_t i = 0; i < n; ++i) {
        unsigned bits = (static_cast<uint8_t>(p[i / 4]) >> (2 * (i % 4))) & 3u;
        out[i] = dtype == DType::Int2 ? static_cast<double>(static_cast<int>(bits ^ 2u) - 2)
                                      : static_cast<double>(bits);
      }
      return true;
    }
    case DType::UInt1: {
      // Most significant bit first, as np.unpackbits (msaccucmp, dump spec §5.5).
      const std::byte* p = data + first / 8;
      for (size_t i = 0; i < n; ++i) out[i] = (static_cast<uint8_t>(p[i / 8]) >> (7 - i % 8)) & 1u;
      return true;
    }
    default:
      return false;  // complex, string and encodings without a documented layout
  }
}

template <class Acc>
void accumulate(const TensorView& tensor, uint64_t count, TensorStats& stats) {
  Totals<Acc> totals;
  double values[kBlock];
  for (uint64_t first = 0; first < count; first += kBlock) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(kBlock, count - first));
    if (!decode(tensor.dtype, reinterpret_cast<const std::byte*>(tensor.data.data()), first, n,
                values))
      return;
    totals.add(values, n);
  }
  totals.fill(stats);
}

}  // namespace

TensorStats compute_stats(const TensorView& tensor) {
  TensorStats stats;
  auto count = element_count(tensor.shape);
  if (!count) return stats;
  stats.count = *count;
  unsigned bits = dtype_bits(tensor.dtype);
  if (bits == 0) return stats;
  // Never read past the view, even if a caller built it shorter than the shape says.
  uint64_t available = tensor.data.size() / bits * 8 + (tensor.data.size() % bits) * 8 / bits;
  uint64_t usable = std::min(*count, available);
  accumulate<long double>(tensor, usable, stats);
  return stats;
}

}  // namespace msdt
