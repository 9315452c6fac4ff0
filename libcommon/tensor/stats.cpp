#include "tensor/stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "io/cpu.h"
#include "io/parallel.h"
#include "tensor/element_convert.h"
#include "tensor/stats_kernel.h"

namespace msdt {

using stats_detail::BlockSums;
using stats_detail::kBlock;
using stats_detail::KernelTable;
using stats_detail::load;

namespace {

constexpr uint64_t kChunk = kStatsChunk;

void scalar_half(const std::byte* p, size_t n, float* out) {
  for (size_t i = 0; i < n; ++i) out[i] = half_to_float(load<uint16_t>(p, i));
}
void scalar_bfloat16(const std::byte* p, size_t n, float* out) {
  for (size_t i = 0; i < n; ++i) out[i] = bfloat16_to_float(load<uint16_t>(p, i));
}

constexpr KernelTable kScalar{stats_detail::scalar_float_block<float, double>,
                              stats_detail::scalar_float_block<double, double>,
                              stats_detail::scalar_int_block<int32_t>,
                              stats_detail::scalar_int_block<int64_t>,
                              stats_detail::scalar_int_block<uint64_t>,
                              stats_detail::scalar_float_block<float, double>,
                              scalar_half,
                              scalar_bfloat16};

bool cpu_has(StatsPath path) {
  const CpuFeatures& cpu = cpu_features();
  switch (path) {
    case StatsPath::Scalar:
      return true;
    case StatsPath::Sse2:  // the x86-64 baseline
      return stats_detail::x86_kernels(path) != nullptr;
    case StatsPath::Avx2:
      return cpu.avx2_set();
    case StatsPath::Avx512:
      return cpu.avx512_set();
    case StatsPath::Neon:
      return cpu.neon;
  }
  return false;
}

const KernelTable& table_of(StatsPath path) {
  if (path == StatsPath::Neon && stats_detail::neon_kernels()) return *stats_detail::neon_kernels();
  if (const KernelTable* t = stats_detail::x86_kernels(path)) return *t;
  return kScalar;
}

// Which kernel a dtype goes through, after widening it to the kernel's element type.
enum class Route { None, F32, F64, Half, BFloat16, ByteFloat, I32Native, I32Widened, I64, U64 };

Route route_of(DType dtype) {
  // The float types of 8 bits or fewer: decoded by element_convert's one table.
  if (small_float_decoder(dtype)) return Route::ByteFloat;
  switch (dtype) {
    case DType::Float32:
      return Route::F32;
    case DType::Float64:
      return Route::F64;
    case DType::Float16:
      return Route::Half;
    case DType::BFloat16:
      return Route::BFloat16;
    case DType::Int32:
      return Route::I32Native;
    case DType::Bool:
    case DType::Int2:
    case DType::Int4:
    case DType::Int8:
    case DType::Int16:
    case DType::UInt1:
    case DType::UInt2:
    case DType::UInt8:
    case DType::UInt16:
      return Route::I32Widened;
    case DType::UInt32:
    case DType::Int64:
      return Route::I64;
    case DType::UInt64:
      return Route::U64;
    default:
      return Route::None;  // complex, string and encodings without a documented layout
  }
}

// The small integer dtypes as int32 (exact).
void decode_ints(DType dtype, const std::byte* data, uint64_t first, size_t n, int32_t* out) {
  auto typed = [&](auto tag) {
    using T = decltype(tag);
    for (size_t i = 0; i < n; ++i) out[i] = load<T>(data + first * sizeof(T), i);
  };
  switch (dtype) {
    case DType::Int8:
      return typed(int8_t{});
    case DType::UInt8:
      return typed(uint8_t{});
    case DType::Int16:
      return typed(int16_t{});
    case DType::UInt16:
      return typed(uint16_t{});
    case DType::Bool:
      for (size_t i = 0; i < n; ++i) out[i] = data[first + i] != std::byte{0};
      return;
    case DType::Int4: {
      // Two elements per byte, low nibble first, sign-extended (dump spec §5.2).
      const std::byte* p = data + first / 2;
      for (size_t i = 0; i < n; ++i) {
        unsigned byte = static_cast<uint8_t>(p[i / 2]);
        unsigned nibble = (i % 2 == 0) ? (byte & 0xFu) : (byte >> 4);
        out[i] = static_cast<int>(nibble ^ 8u) - 8;
      }
      return;
    }
    case DType::Int2:
    case DType::UInt2: {
      // Four elements per byte, lowest bits first like int4.
      const std::byte* p = data + first / 4;
      for (size_t i = 0; i < n; ++i) {
        unsigned bits = (static_cast<uint8_t>(p[i / 4]) >> (2 * (i % 4))) & 3u;
        out[i] = dtype == DType::Int2 ? static_cast<int>(bits ^ 2u) - 2 : static_cast<int>(bits);
      }
      return;
    }
    default: {  // UInt1: most significant bit first, as np.unpackbits (dump spec §5.5)
      const std::byte* p = data + first / 8;
      for (size_t i = 0; i < n; ++i) out[i] = (static_cast<uint8_t>(p[i / 8]) >> (7 - i % 8)) & 1u;
    }
  }
}

}  // namespace

std::string_view stats_path_name(StatsPath path) {
  switch (path) {
    case StatsPath::Scalar:
      return "scalar";
    case StatsPath::Sse2:
      return "sse2";
    case StatsPath::Avx2:
      return "avx2";
    case StatsPath::Avx512:
      return "avx512";
    case StatsPath::Neon:
      return "neon";
  }
  return "?";
}

const std::vector<StatsPath>& supported_stats_paths() {
  static const std::vector<StatsPath> paths = [] {
    std::vector<StatsPath> out;
    for (StatsPath p : {StatsPath::Scalar, StatsPath::Sse2, StatsPath::Avx2, StatsPath::Avx512,
                        StatsPath::Neon}) {
      bool compiled = p == StatsPath::Scalar ||
                      (p == StatsPath::Neon ? stats_detail::neon_kernels() != nullptr
                                            : stats_detail::x86_kernels(p) != nullptr);
      if (compiled && cpu_has(p)) out.push_back(p);
    }
    return out;
  }();
  return paths;
}

StatsPath best_stats_path() { return supported_stats_paths().back(); }

void sixteen_bit_floats_to_float32(DType dtype, const std::byte* data, size_t n, float* out) {
  static const KernelTable& table = table_of(best_stats_path());
  (dtype == DType::BFloat16 ? table.bfloat16 : table.half)(data, n, out);
}

StatsAccumulator::StatsAccumulator(StatsPath path)
    : path_(path),
      min_(std::numeric_limits<double>::infinity()),
      max_(-std::numeric_limits<double>::infinity()),
      imin_(std::numeric_limits<int64_t>::max()),
      imax_(std::numeric_limits<int64_t>::min()),
      umin_(std::numeric_limits<uint64_t>::max()),
      umax_(0) {}

void StatsAccumulator::add(const TensorView& tensor, uint64_t first, uint64_t n) {
  Route route = route_of(tensor.dtype);
  if (route == Route::None || n == 0) return;
  const KernelTable& k = table_of(path_);
  const auto* data = reinterpret_cast<const std::byte*>(tensor.data.data());
  integer_ = route >= Route::I32Native;
  unsigned_ = route == Route::U64;
  const bool wide_range = tensor.dtype == DType::Float8E8M0 || tensor.dtype == DType::HiFloat8;
  alignas(64) float floats[kBlock];
  alignas(64) int32_t ints[kBlock];
  alignas(64) int64_t longs[kBlock];
  BlockSums block;
  double shift = std::numeric_limits<double>::quiet_NaN();  // the last block's mean
  for (uint64_t at = first; at < first + n; at += kBlock) {
    size_t len = static_cast<size_t>(std::min<uint64_t>(kBlock, first + n - at));
    block.shift = shift;
    const auto* as_floats = reinterpret_cast<const std::byte*>(floats);
    switch (route) {
      case Route::F32:
        k.f32(data + at * 4, len, block);
        break;
      case Route::F64:
        k.f64(data + at * 8, len, block);
        break;
      case Route::Half:
        k.half(data + at * 2, len, floats);
        k.f32_small_grid(as_floats, len, block);
        break;
      case Route::BFloat16:
        k.bfloat16(data + at * 2, len, floats);
        k.f32(as_floats, len, block);
        break;
      case Route::ByteFloat:
        // Exact as floats; `at` is a multiple of kBlock, so packed codes start on a byte.
        (void)small_floats_to_float32(tensor.dtype, tensor.data, at, len, floats);
        // E8M0 spans 2^-127..2^127 and HiFloat8 2^-22..2^15: not on the small grid.
        (wide_range ? k.f32 : k.f32_small_grid)(as_floats, len, block);
        break;
      case Route::I32Native:
        k.i32(data + at * 4, len, block);
        break;
      case Route::I32Widened:
        decode_ints(tensor.dtype, data, at, len, ints);
        k.i32(reinterpret_cast<const std::byte*>(ints), len, block);
        break;
      case Route::I64:
        if (tensor.dtype == DType::UInt32) {
          for (size_t i = 0; i < len; ++i) longs[i] = load<uint32_t>(data + at * 4, i);
          k.i64(reinterpret_cast<const std::byte*>(longs), len, block);
        } else {
          k.i64(data + at * 8, len, block);
        }
        break;
      case Route::U64:
        k.u64(data + at * 8, len, block);
        break;
      case Route::None:
        return;
    }
    add_block(block);
    if (block.finite > 0)
      shift =
          static_cast<double>((block.sum + block.sum_err) / static_cast<long double>(block.finite));
  }
}

void StatsAccumulator::add_block(const BlockSums& b) {
  StatsAccumulator one(path_);
  one.integer_ = integer_;
  one.unsigned_ = unsigned_;
  one.seen_ = b.count;
  one.nan_ = b.nan;
  one.pos_inf_ = b.pos_inf;
  one.neg_inf_ = b.neg_inf;
  one.zero_ = b.zero;
  one.negative_ = b.negative;
  one.finite_ = b.finite;
  one.min_ = b.min;
  one.max_ = b.max;
  one.imin_ = b.imin;
  one.imax_ = b.imax;
  one.umin_ = b.umin;
  one.umax_ = b.umax;
  one.sum_ = b.sum;
  one.sum_err_ = b.sum_err;
  one.abs_sum_ = b.abs_sum;
  one.sq_sum_ = b.sq_sum;
  one.m2_ = b.m2;
  merge(one);
}

void StatsAccumulator::merge(const StatsAccumulator& later) {
  if (later.seen_ == 0) return;
  integer_ = later.integer_;
  unsigned_ = later.unsigned_;
  seen_ += later.seen_;
  nan_ += later.nan_;
  pos_inf_ += later.pos_inf_;
  neg_inf_ += later.neg_inf_;
  zero_ += later.zero_;
  negative_ += later.negative_;
  min_ = std::min(min_, later.min_);
  max_ = std::max(max_, later.max_);
  imin_ = std::min(imin_, later.imin_);
  imax_ = std::max(imax_, later.imax_);
  umin_ = std::min(umin_, later.umin_);
  umax_ = std::max(umax_, later.umax_);
  if (later.finite_ == 0) return;
  abs_sum_ += later.abs_sum_;
  sq_sum_ += later.sq_sum_;
  {
    const auto na = static_cast<long double>(finite_), nb = static_cast<long double>(later.finite_);
    m2_ = finite_ == 0 ? later.m2_
                       : merged_m2(na, (sum_ + sum_err_) / na, m2_, nb,
                                   (later.sum_ + later.sum_err_) / nb, later.m2_);
  }
  // The sums stay compensated: TwoSum of the leading parts, the errors added.
  stats_detail::two_sum(sum_, sum_err_, later.sum_);
  sum_err_ += later.sum_err_;
  finite_ += later.finite_;
}

void StatsAccumulator::fill(TensorStats& stats) const {
  stats.nan = nan_;
  stats.pos_inf = pos_inf_;
  stats.neg_inf = neg_inf_;
  stats.zero = zero_;
  stats.negative = negative_;
  stats.positive = seen_ - nan_ - zero_ - negative_;
  if (seen_ > nan_) {
    if (integer_ && unsigned_) {
      stats.exact_min = umin_;
      stats.exact_max = umax_;
      stats.min = static_cast<double>(umin_);
      stats.max = static_cast<double>(umax_);
    } else if (integer_) {
      stats.exact_min = imin_;
      stats.exact_max = imax_;
      stats.min = static_cast<double>(imin_);
      stats.max = static_cast<double>(imax_);
    } else {
      stats.min = min_ == 0 ? 0.0 : min_;
      stats.max = max_ == 0 ? 0.0 : max_;
    }
  }
  if (finite_ > 0) {
    long double n = static_cast<long double>(finite_);
    stats.mean = static_cast<double>((sum_ + sum_err_) / n);
    stats.std = static_cast<double>(std::sqrt(m2_ / n));
    stats.abs_mean = static_cast<double>(abs_sum_ / n);
    stats.l2norm = static_cast<double>(std::sqrt(sq_sum_));
  }
}

TensorStats compute_stats(const TensorView& tensor) { return compute_stats(tensor, 1); }

TensorStats compute_stats(const TensorView& tensor, unsigned jobs, StatsPath path) {
  TensorStats stats;
  auto count = element_count(tensor.shape);
  if (!count) return stats;
  stats.count = *count;
  unsigned bits = dtype_bits(tensor.dtype);
  if (bits == 0 || route_of(tensor.dtype) == Route::None) return stats;
  // Never read past the view, even if a caller built it shorter than the shape says.
  uint64_t available = tensor.data.size() / bits * 8 + (tensor.data.size() % bits) * 8 / bits;
  uint64_t usable = std::min(*count, available);
  size_t chunks = static_cast<size_t>((usable + kChunk - 1) / kChunk);
  std::vector<StatsAccumulator> parts(chunks, StatsAccumulator(path));
  parallel_for(chunks, jobs, [&](size_t c) {
    uint64_t first = c * kChunk;
    parts[c].add(tensor, first, std::min(kChunk, usable - first));
  });
  StatsAccumulator total(path);
  for (const auto& part : parts) total.merge(part);
  total.fill(stats);
  return stats;
}

}  // namespace msdt
