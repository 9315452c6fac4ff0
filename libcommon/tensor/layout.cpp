// Device-to-host layout transforms (dump spec §8).
//
// Every transform is a gather: the result is walked in C order and each element is fetched from
// the device buffer at an offset computed from its host coordinates. Padding (C up to C1·C0, N up
// to No·Ni) is dropped simply because no host coordinate maps to it.
#include "tensor/layout.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>

#include "io/byte_reader.h"

namespace msdt {
namespace {

enum class Layout { ND, NCHW, NHWC, HWCN, NCDHW, NC1HWC0, FractalZ, FractalNz, NDC1HWC0, Unknown };

Layout parse_layout(std::string_view name) {
  if (name == "ND") return Layout::ND;
  if (name == "NCHW") return Layout::NCHW;
  if (name == "NHWC") return Layout::NHWC;
  if (name == "HWCN") return Layout::HWCN;
  if (name == "NCDHW") return Layout::NCDHW;
  // NC1HWC0_C04 is NC1HWC0 with C0 = 4; C0 always comes from the device shape.
  if (name == "NC1HWC0" || name == "NC1HWC0_C04") return Layout::NC1HWC0;
  if (name == "FRACTAL_Z" || name == "FracZ") return Layout::FractalZ;
  if (name == "FRACTAL_NZ") return Layout::FractalNz;
  if (name == "NDC1HWC0") return Layout::NDC1HWC0;
  return Layout::Unknown;
}

bool is_host_4d(Layout layout) {
  return layout == Layout::NCHW || layout == Layout::NHWC || layout == Layout::HWCN;
}

// Targets each source can be gathered into; DefaultFormat is resolved before this is asked.
bool supported_pair(Layout from, Layout to) {
  switch (from) {
    case Layout::NC1HWC0:
    case Layout::FractalZ:
      return is_host_4d(to) || to == Layout::ND;
    case Layout::FractalNz:
      return to == Layout::ND || to == Layout::NCHW || to == Layout::NHWC;
    case Layout::NDC1HWC0:
      return to == Layout::NCDHW || to == Layout::ND;
    case Layout::NCHW:
    case Layout::NHWC:
    case Layout::HWCN:
      return is_host_4d(to);
    default:
      return false;
  }
}

std::string shape_text(std::span<const uint64_t> shape) {
  return fmt::format("({})", fmt::join(shape, ","));
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

// Logical axes of a 4-D host tensor and where each host format puts them.
enum Axis4 { kN, kC, kH, kW };
using Order4 = std::array<Axis4, 4>;
constexpr Order4 kOrderNchw = {kN, kC, kH, kW};
constexpr Order4 kOrderNhwc = {kN, kH, kW, kC};
constexpr Order4 kOrderHwcn = {kH, kW, kC, kN};

Order4 order_of(Layout layout) {
  if (layout == Layout::NHWC) return kOrderNhwc;
  if (layout == Layout::HWCN) return kOrderHwcn;
  return kOrderNchw;  // NCHW, and ND for device formats whose host layout is NCHW
}

using Dims4 = std::array<uint64_t, 4>;  // indexed by Axis4

Dims4 logical_dims(std::span<const uint64_t> shape, const Order4& order) {
  Dims4 dims{};
  for (size_t i = 0; i < 4; ++i) dims[order[i]] = shape[i];
  return dims;
}

std::vector<uint64_t> ordered_dims(const Dims4& dims, const Order4& order) {
  std::vector<uint64_t> shape(4);
  for (size_t i = 0; i < 4; ++i) shape[i] = dims[order[i]];
  return shape;
}

// The whole result is walked in C order with an odometer; SourceIndex maps the current target
// index to an element index in the device buffer. Width is a template parameter so that the copy
// of one element compiles to a single load and store.
constexpr size_t kMaxGatherRank = 5;
using Index = std::array<uint64_t, kMaxGatherRank>;

template <size_t Width, class SourceIndex>
void gather_fixed(std::span<const uint64_t> dims, const std::byte* src, std::byte* out,
                  const SourceIndex& source_index) {
  const size_t rank = dims.size();
  uint64_t total = 1;
  for (uint64_t d : dims) total *= d;  // checked by the caller
  if (total == 0) return;
  Index index{};
  for (uint64_t k = 0; k < total; ++k) {
    std::memcpy(out + k * Width, src + source_index(index) * Width, Width);
    for (size_t axis = rank; axis-- > 0;) {
      if (++index[axis] < dims[axis]) break;
      index[axis] = 0;
    }
  }
}

template <class SourceIndex>
void gather(size_t width, std::span<const uint64_t> dims, const std::byte* src, std::byte* out,
            const SourceIndex& source_index) {
  switch (width) {
    case 1:
      return gather_fixed<1>(dims, src, out, source_index);
    case 2:
      return gather_fixed<2>(dims, src, out, source_index);
    case 4:
      return gather_fixed<4>(dims, src, out, source_index);
    case 8:
      return gather_fixed<8>(dims, src, out, source_index);
    case 16:
      return gather_fixed<16>(dims, src, out, source_index);
    default:
      return;  // refused by transform_layout before we get here
  }
}

struct Request {
  const TensorView& device;
  std::string from_name;
  std::string to_name;
  std::span<const uint64_t> target;
  size_t width;
};

Expected<uint64_t> checked_product(std::initializer_list<uint64_t> factors, const Request& req) {
  uint64_t product = 1;
  for (uint64_t f : factors) {
    auto next = checked_mul(product, f);
    if (!next)
      return Error(fmt::format("{} device shape {} with target {} overflows 64-bit element counts",
                               req.from_name, shape_text(req.device.shape),
                               shape_text(req.target)));
    product = *next;
  }
  return product;
}

Status check_device_rank(const Request& req, size_t expected_rank) {
  if (req.device.shape.size() == expected_rank) return std::nullopt;
  return Error(fmt::format("{} device shape {} has rank {}, expected {}", req.from_name,
                           shape_text(req.device.shape), req.device.shape.size(), expected_rank));
}

Error cannot_hold(const Request& req, std::string_view why) {
  return Error(fmt::format("{} device shape {} cannot hold target {}: {}", req.from_name,
                           shape_text(req.device.shape), shape_text(req.target), why));
}

Status check_equal_dim(const Request& req, std::string_view axis, uint64_t device_dim,
                       uint64_t target_dim) {
  if (device_dim == target_dim) return std::nullopt;
  return cannot_hold(req, fmt::format("{} is {} in the target and {} on the device", axis,
                                      target_dim, device_dim));
}

// A split axis (C as C1·C0, N as No·Ni, rows, columns) must fit into its blocks.
Status check_blocks(const Request& req, std::string_view what, uint64_t needed, uint64_t blocks,
                    uint64_t block_size) {
  if (block_size == 0) {
    if (needed == 0) return std::nullopt;
    return cannot_hold(req, fmt::format("{} {} need blocks of size 0", needed, what));
  }
  if (ceil_div(needed, block_size) <= blocks) return std::nullopt;
  return cannot_hold(req, fmt::format("{} {} need {} blocks of {}, found {}", needed, what,
                                      ceil_div(needed, block_size), block_size, blocks));
}

TransformResult make_result(std::vector<uint64_t> shape, uint64_t count, size_t width) {
  TransformResult result;
  result.shape = std::move(shape);
  result.data.resize(count * width);  // count <= device count, checked by the caller
  return result;
}

// Host shapes of rank < 4 stored in a 4-D device format are padded the way MindSpore pads them
// (trans.cc PaddingShape): (C) -> (1,C,1,1), (N,C) -> (N,C,1,1), (C,H,W) -> (1,C,H,W).
Dims4 pad_to_nchw(std::span<const uint64_t> target) {
  switch (target.size()) {
    case 1:
      return {1, target[0], 1, 1};
    case 2:
      return {target[0], target[1], 1, 1};
    case 3:
      return {1, target[0], target[1], target[2]};
    default:
      return {target[0], target[1], target[2], target[3]};
  }
}

// Target of a 4-D device format: the host dims in NCHW terms plus the result shape.
struct Target4 {
  Dims4 dims;
  std::vector<uint64_t> result_shape;
  Order4 order;
};

Expected<Target4> target_for_4d(const Request& req, Layout to) {
  Target4 t;
  t.order = order_of(to);
  if (req.target.size() == 4) {
    t.dims = logical_dims(req.target, t.order);
  } else if (!req.target.empty() && req.target.size() < 4 && to != Layout::NHWC &&
             to != Layout::HWCN) {
    t.dims = pad_to_nchw(req.target);
  } else {
    return Error(fmt::format("target {} for {} has rank {}, expected 4 in {} order",
                             shape_text(req.target), req.from_name, req.target.size(),
                             req.to_name));
  }
  t.result_shape.assign(req.target.begin(), req.target.end());
  return t;
}

// Gathers a 4-D host tensor in `order` from a device offset function of (n, c, h, w).
template <class DeviceOffset>
TransformResult gather_4d(const Request& req, const Target4& t, uint64_t count,
                          const DeviceOffset& offset_of) {
  TransformResult result = make_result(t.result_shape, count, req.width);
  const std::vector<uint64_t> walk = ordered_dims(t.dims, t.order);
  std::array<size_t, 4> position{};  // where each logical axis sits in the walk
  for (size_t i = 0; i < 4; ++i) position[t.order[i]] = i;
  gather(req.width, walk, req.device.data.data(), result.data.data(), [&](const Index& i) {
    return offset_of(i[position[kN]], i[position[kC]], i[position[kH]], i[position[kW]]);
  });
  return result;
}

// NC1HWC0 (N, C1, H, W, C0) -> host 4-D (dump spec §8, first row).
Expected<TransformResult> from_nc1hwc0(const Request& req, Layout to) {
  MSDT_CHECK(check_device_rank(req, 5));
  const auto& d = req.device.shape;
  const uint64_t c1 = d[1], c0 = d[4];
  Target4 t;
  if (req.target.empty()) {
    auto channels = checked_mul(c1, c0);
    if (!channels) return Error(fmt::format("NC1HWC0 device shape {} overflows", shape_text(d)));
    t.order = order_of(to);
    t.dims = {d[0], *channels, d[2], d[3]};
    t.result_shape = ordered_dims(t.dims, t.order);
  } else {
    MSDT_TRY(t, target_for_4d(req, to));
  }
  MSDT_CHECK(check_equal_dim(req, "N", d[0], t.dims[kN]));
  MSDT_CHECK(check_equal_dim(req, "H", d[2], t.dims[kH]));
  MSDT_CHECK(check_equal_dim(req, "W", d[3], t.dims[kW]));
  MSDT_CHECK(check_blocks(req, "channels", t.dims[kC], c1, c0));
  MSDT_TRY(uint64_t count, checked_product({t.dims[0], t.dims[1], t.dims[2], t.dims[3]}, req));
  const uint64_t h_dim = d[2], w_dim = d[3];
  return gather_4d(req, t, count, [=](uint64_t n, uint64_t c, uint64_t h, uint64_t w) {
    return (((n * c1 + c / c0) * h_dim + h) * w_dim + w) * c0 + c % c0;
  });
}

// FRACTAL_Z (C1·H·W, No, Ni, C0) -> host 4-D (dump spec §8, second row). With groups > 1 the
// device holds ceil(groups / e) blocks, each packing e groups diagonally, as MindSpore's
// NchwFracZTransWithGroups writes them (trans.cc); groups == 1 is the special case e = 1.
Expected<TransformResult> from_fractal_z(const Request& req, Layout to, uint32_t groups) {
  MSDT_CHECK(check_device_rank(req, 4));
  if (req.target.empty())
    return Error(fmt::format("FRACTAL_Z device shape {} needs the host shape to recover H and W",
                             shape_text(req.device.shape)));
  MSDT_TRY(Target4 t, target_for_4d(req, to));
  const auto& d = req.device.shape;
  const uint64_t no = d[1], ni = d[2], c0 = d[3];
  const uint64_t n_dim = t.dims[kN], c_dim = t.dims[kC], h_dim = t.dims[kH], w_dim = t.dims[kW];
  MSDT_TRY(uint64_t count, checked_product({n_dim, c_dim, h_dim, w_dim}, req));
  MSDT_TRY(uint64_t hw, checked_product({h_dim, w_dim}, req));
  if (groups == 0) return Error("FRACTAL_Z group count is 0, expected at least 1");

  uint64_t cout_per_group = n_dim, e_mult = 1, c1 = 0, cout_opt = 0;
  if (groups == 1) {
    if (hw == 0) {
      if (d[0] != 0) return cannot_hold(req, "H·W is 0 but the first device dimension is not");
    } else if (d[0] % hw != 0) {
      return cannot_hold(
          req, fmt::format("first device dimension {} is not a multiple of H·W = {}", d[0], hw));
    } else {
      c1 = d[0] / hw;
    }
    MSDT_CHECK(check_blocks(req, "channels", c_dim, c1, c0));
    MSDT_CHECK(check_blocks(req, "kernels", n_dim, no, ni));
    MSDT_TRY(cout_opt, checked_product({no, ni}, req));
  } else {
    if (n_dim % groups != 0)
      return cannot_hold(req, fmt::format("N = {} is not a multiple of {} groups", n_dim, groups));
    cout_per_group = n_dim / groups;
    if (count != 0) {
      if (c0 == 0 || ni == 0) return cannot_hold(req, "C0 or Ni is 0");
      // e_mult = min(lcm(cin, C0) / cin, lcm(cout, Ni) / cout, groups) = min(C0 / gcd(cin, C0), …)
      e_mult =
          std::min({c0 / std::gcd(c_dim, c0), ni / std::gcd(cout_per_group, ni), uint64_t{groups}});
      MSDT_TRY(uint64_t cin_packed, checked_product({e_mult, c_dim}, req));
      MSDT_TRY(uint64_t cout_packed, checked_product({e_mult, cout_per_group}, req));
      c1 = ceil_div(cin_packed, c0);
      cout_opt = ceil_div(cout_packed, ni) * ni;
      const uint64_t group_blocks = ceil_div(groups, e_mult);
      MSDT_TRY(uint64_t rows, checked_product({group_blocks, c1, hw}, req));
      const std::vector<uint64_t> expected = {rows, cout_opt / ni, ni, c0};
      if (expected != d) {
        const std::string why =
            fmt::format("{} groups of {} kernels with {} channels are stored as {}", groups,
                        cout_per_group, c_dim, shape_text(expected));
        return cannot_hold(req, why);
      }
    }
  }
  MSDT_TRY(const uint64_t block, checked_product({c1, hw, cout_opt, c0}, req));
  return gather_4d(req, t, count, [=](uint64_t n, uint64_t c, uint64_t h, uint64_t w) {
    const uint64_t g = n / cout_per_group;
    const uint64_t packed = g % e_mult;
    const uint64_t ci = packed * c_dim + c;
    const uint64_t co = packed * cout_per_group + n % cout_per_group;
    return (g / e_mult) * block + (((ci / c0) * hw + h * w_dim + w) * cout_opt + co) * c0 + ci % c0;
  });
}

// FRACTAL_NZ (…batch, C1, No, Ni, C0) -> ND (…batch, rows, cols) (dump spec §8, third row). The
// target's leading dims only have to hold as many matrices as the device's, as msaccucmp reshapes
// them; a 1-D target is one row, as in msaccucmp's convert_FRACTAL_NZ_to_*.
Expected<TransformResult> from_fractal_nz(const Request& req) {
  const auto& d = req.device.shape;
  if (d.size() < 4)
    return Error(fmt::format("FRACTAL_NZ device shape {} has rank {}, expected at least 4",
                             shape_text(d), d.size()));
  const size_t r = d.size();
  const uint64_t c1 = d[r - 4], no = d[r - 3], ni = d[r - 2], c0 = d[r - 1];
  MSDT_TRY(uint64_t device_batch, element_count(std::span(d).first(r - 4)));
  MSDT_TRY(const uint64_t rows_padded, checked_product({no, ni}, req));
  MSDT_TRY(const uint64_t cols_padded, checked_product({c1, c0}, req));
  std::vector<uint64_t> shape;
  uint64_t batch = 1, rows = 1, cols = 0;
  if (req.target.empty()) {
    shape.assign(d.begin(), d.end() - 4);
    shape.push_back(rows_padded);
    shape.push_back(cols_padded);
    batch = device_batch;
    rows = rows_padded;
    cols = cols_padded;
  } else {
    shape.assign(req.target.begin(), req.target.end());
    const size_t tr = shape.size();
    cols = shape[tr - 1];
    if (tr >= 2) rows = shape[tr - 2];
    if (tr > 2) {
      auto leading = element_count(std::span(shape).first(tr - 2));
      if (!leading) return cannot_hold(req, "the batch size overflows");
      batch = *leading;
    }
  }
  if (batch != device_batch)
    return cannot_hold(
        req, fmt::format("the target has {} matrices, the device {}", batch, device_batch));
  MSDT_CHECK(check_blocks(req, "rows", rows, no, ni));
  MSDT_CHECK(check_blocks(req, "columns", cols, c1, c0));
  MSDT_TRY(const uint64_t count, checked_product({batch, rows, cols}, req));
  TransformResult result = make_result(std::move(shape), count, req.width);
  const std::array<uint64_t, 3> walk = {batch, rows, cols};
  gather(req.width, walk, req.device.data.data(), result.data.data(), [=](const Index& i) {
    return ((i[0] * c1 + i[2] / c0) * rows_padded + i[1]) * c0 + i[2] % c0;
  });
  return result;
}

// NDC1HWC0 (N, D, C1, H, W, C0) -> NCDHW; msaccucmp's ND target is the same NCDHW array.
Expected<TransformResult> from_ndc1hwc0(const Request& req) {
  MSDT_CHECK(check_device_rank(req, 6));
  const auto& d = req.device.shape;
  const uint64_t n_dim = d[0], d_dim = d[1], c1 = d[2], h_dim = d[3], w_dim = d[4], c0 = d[5];
  MSDT_TRY(const uint64_t channels_padded, checked_product({c1, c0}, req));
  std::array<uint64_t, 5> host = {n_dim, channels_padded, d_dim, h_dim, w_dim};
  if (!req.target.empty()) {
    if (req.target.size() != 5)
      return Error(fmt::format("target {} for NDC1HWC0 has rank {}, expected 5 (NCDHW)",
                               shape_text(req.target), req.target.size()));
    std::copy(req.target.begin(), req.target.end(), host.begin());
    MSDT_CHECK(check_equal_dim(req, "N", n_dim, host[0]));
    MSDT_CHECK(check_equal_dim(req, "D", d_dim, host[2]));
    MSDT_CHECK(check_equal_dim(req, "H", h_dim, host[3]));
    MSDT_CHECK(check_equal_dim(req, "W", w_dim, host[4]));
    MSDT_CHECK(check_blocks(req, "channels", host[1], c1, c0));
  }
  MSDT_TRY(const uint64_t count,
           checked_product({host[0], host[1], host[2], host[3], host[4]}, req));
  TransformResult result = make_result({host.begin(), host.end()}, count, req.width);
  gather(req.width, host, req.device.data.data(), result.data.data(), [=](const Index& i) {
    return ((((i[0] * d_dim + i[2]) * c1 + i[1] / c0) * h_dim + i[3]) * w_dim + i[4]) * c0 +
           i[1] % c0;
  });
  return result;
}

// NCHW, NHWC and HWCN are permutations of each other; no padding is involved.
Expected<TransformResult> from_host_4d(const Request& req, Layout from, Layout to) {
  const Order4 source_order = order_of(from);
  const Dims4 dims = logical_dims(req.device.shape, source_order);
  Target4 t{dims, {}, order_of(to)};
  t.result_shape = ordered_dims(dims, t.order);
  if (!req.target.empty() && !std::equal(req.target.begin(), req.target.end(),
                                         t.result_shape.begin(), t.result_shape.end()))
    return Error(fmt::format("{} shape {} is {} in {} order, not the target {}", req.from_name,
                             shape_text(req.device.shape), shape_text(t.result_shape), req.to_name,
                             shape_text(req.target)));
  std::array<uint64_t, 4> stride{};  // element strides of the logical axes in the source
  uint64_t s = 1;
  for (size_t i = 4; i-- > 0;) {
    stride[source_order[i]] = s;
    s *= req.device.shape[i];
  }
  const uint64_t count = s;
  return gather_4d(req, t, count, [=](uint64_t n, uint64_t c, uint64_t h, uint64_t w) {
    return n * stride[kN] + c * stride[kC] + h * stride[kH] + w * stride[kW];
  });
}

Expected<TransformResult> unchanged_copy(const Request& req, uint64_t device_count) {
  std::vector<uint64_t> shape = req.device.shape;
  if (!req.target.empty()) {
    MSDT_TRY(uint64_t target_count, element_count(req.target));
    if (target_count != device_count)
      return Error(fmt::format("{} shape {} has {} elements, the target {} has {}", req.from_name,
                               shape_text(req.device.shape), device_count, shape_text(req.target),
                               target_count));
    shape.assign(req.target.begin(), req.target.end());
  }
  TransformResult result;
  result.shape = std::move(shape);
  result.data.assign(req.device.data.begin(), req.device.data.end());
  return result;
}

// DefaultFormat is the host layout: NCHW for 4-D, ND otherwise (dump spec §4.2). A host format on
// a shape that is not 4-D is treated as ND (§8).
Layout resolve_source(std::string_view name, size_t rank) {
  Layout layout = name == "DefaultFormat" ? Layout::NCHW : parse_layout(name);
  if (is_host_4d(layout) && rank != 4) return Layout::ND;
  return layout;
}

Layout resolve_target(std::string_view name, Layout from, size_t target_rank) {
  if (name != "DefaultFormat") return parse_layout(name);
  if (target_rank != 0) return target_rank == 4 ? Layout::NCHW : Layout::ND;
  const bool host_4d = from == Layout::NC1HWC0 || from == Layout::FractalZ || is_host_4d(from);
  return host_4d ? Layout::NCHW : Layout::ND;
}

}  // namespace

bool can_transform(std::string_view from_format, std::string_view to_format) {
  const std::string from = canonical_format(from_format), to = canonical_format(to_format);
  if (from == to) return true;
  const Layout source = from == "DefaultFormat" ? Layout::NCHW : parse_layout(from);
  if (to == "DefaultFormat")
    return supported_pair(source, Layout::NCHW) || supported_pair(source, Layout::ND);
  return supported_pair(source, parse_layout(to));
}

Expected<TransformResult> transform_layout(const TensorView& device, std::string_view from_format,
                                           std::string_view to_format,
                                           std::span<const uint64_t> target_shape,
                                           uint32_t groups) {
  const unsigned bits = dtype_bits(device.dtype);
  if (bits == 0 || bits % 8 != 0)
    return Error(fmt::format(
        "cannot rearrange {} elements: {}", dtype_name(device.dtype),
        bits == 0 ? "they have no fixed size" : "packed sub-byte types must be unpacked first"));
  const size_t width = bits / 8;
  if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16)
    return Error(
        fmt::format("cannot rearrange {} elements of {} bytes", dtype_name(device.dtype), width));
  MSDT_TRY(uint64_t device_count, element_count(device.shape));
  const auto device_bytes = checked_mul(device_count, width);
  if (!device_bytes || *device_bytes != device.data.size())
    return Error(fmt::format("device shape {} of {} needs {} bytes, the payload has {}",
                             shape_text(device.shape), dtype_name(device.dtype),
                             device_bytes ? fmt::format("{}", *device_bytes) : "more than 2^64",
                             device.data.size()));

  const Request req{device, canonical_format(from_format), canonical_format(to_format),
                    target_shape, width};
  if (req.from_name == req.to_name) return unchanged_copy(req, device_count);
  const Layout from = resolve_source(req.from_name, device.shape.size());
  const Layout to = resolve_target(req.to_name, from, target_shape.size());
  if (from == to || (from == Layout::ND && (to == Layout::ND || is_host_4d(to))))
    return unchanged_copy(req, device_count);
  if (!supported_pair(from, to))
    return Error(fmt::format("no transform from {} to {}", req.from_name, req.to_name));
  if (groups > 1 && from != Layout::FractalZ)
    return Error(fmt::format("a group count of {} only applies to FRACTAL_Z, not {}", groups,
                             req.from_name));

  switch (from) {
    case Layout::NC1HWC0:
      return from_nc1hwc0(req, to);
    case Layout::FractalZ:
      return from_fractal_z(req, to, groups);
    case Layout::FractalNz:
      return from_fractal_nz(req);
    case Layout::NDC1HWC0:
      return from_ndc1hwc0(req);
    default:
      return from_host_4d(req, from, to);
  }
}

}  // namespace msdt
