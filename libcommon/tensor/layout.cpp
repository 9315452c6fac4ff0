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

enum class Layout {
  ND,
  NCHW,
  NHWC,
  HWCN,
  NCDHW,
  NDHWC,
  DHWCN,
  NC1HWC0,
  FractalZ,
  C1HWNCoC0,
  FractalNz,
  NDC1HWC0,
  FractalZ3D,
  Unknown
};

Layout parse_layout(std::string_view name) {
  if (name == "ND") return Layout::ND;
  if (name == "NCHW") return Layout::NCHW;
  if (name == "NHWC") return Layout::NHWC;
  if (name == "HWCN") return Layout::HWCN;
  if (name == "NCDHW") return Layout::NCDHW;
  if (name == "NDHWC") return Layout::NDHWC;
  if (name == "DHWCN") return Layout::DHWCN;
  // NC1HWC0_C04 is NC1HWC0 with C0 = 4; C0 always comes from the device shape.
  if (name == "NC1HWC0" || name == "NC1HWC0_C04") return Layout::NC1HWC0;
  if (name == "FRACTAL_Z" || name == "FracZ") return Layout::FractalZ;
  if (name == "C1HWNCoC0") return Layout::C1HWNCoC0;
  if (name == "FRACTAL_NZ") return Layout::FractalNz;
  if (name == "NDC1HWC0") return Layout::NDC1HWC0;
  if (name == "FRACTAL_Z_3D") return Layout::FractalZ3D;
  return Layout::Unknown;
}

// Logical axes of a host tensor: 4-D tensors have N, C, H, W and 5-D ones add D. Dims and
// coordinates are indexed by Axis; in a 4-D tensor D is 1 and its coordinate 0.
enum Axis : uint8_t { kN, kC, kD, kH, kW };
constexpr size_t kAxes = 5;
using Dims = std::array<uint64_t, kAxes>;

// Where a host format puts the logical axes; only the first `rank` entries count.
struct Order {
  std::array<Axis, kAxes> axes;
  size_t rank;
  std::string_view name;
};
constexpr Order kNchw{{kN, kC, kH, kW, kD}, 4, "NCHW"};
constexpr Order kNhwc{{kN, kH, kW, kC, kD}, 4, "NHWC"};
constexpr Order kHwcn{{kH, kW, kC, kN, kD}, 4, "HWCN"};
constexpr Order kNcdhw{{kN, kC, kD, kH, kW}, 5, "NCDHW"};
constexpr Order kNdhwc{{kN, kD, kH, kW, kC}, 5, "NDHWC"};
constexpr Order kDhwcn{{kD, kH, kW, kC, kN}, 5, "DHWCN"};

std::optional<Order> host_order(Layout layout) {
  switch (layout) {
    case Layout::NCHW:
      return kNchw;
    case Layout::NHWC:
      return kNhwc;
    case Layout::HWCN:
      return kHwcn;
    case Layout::NCDHW:
      return kNcdhw;
    case Layout::NDHWC:
      return kNdhwc;
    case Layout::DHWCN:
      return kDhwcn;
    default:
      return std::nullopt;
  }
}

bool is_host(Layout layout) { return host_order(layout).has_value(); }

// 4 for layouts of N, C, H, W tensors, 5 for N, C, D, H, W ones, 0 for the rest.
size_t family_of(Layout layout) {
  switch (layout) {
    case Layout::NCHW:
    case Layout::NHWC:
    case Layout::HWCN:
    case Layout::NC1HWC0:
    case Layout::FractalZ:
    case Layout::C1HWNCoC0:
      return 4;
    case Layout::NCDHW:
    case Layout::NDHWC:
    case Layout::DHWCN:
    case Layout::NDC1HWC0:
    case Layout::FractalZ3D:
      return 5;
    default:
      return 0;
  }
}

Layout channel_first(size_t family) { return family == 5 ? Layout::NCDHW : Layout::NCHW; }

// Targets each source can be rearranged into; DefaultFormat is resolved before this is asked.
// Every source of a family reaches every host layout of that family (and ND, meaning NCHW or
// NCDHW, for device formats); 4-D sources also reach FRACTAL_Z.
bool supported_pair(Layout from, Layout to) {
  if (from == Layout::FractalNz)
    return to == Layout::ND || to == Layout::NCHW || to == Layout::NHWC;
  const size_t family = family_of(from);
  if (family == 0) return false;
  if (to == Layout::ND) return !is_host(from);
  if (to == Layout::FractalZ) return family == 4;
  return is_host(to) && family_of(to) == family;
}

std::string shape_text(std::span<const uint64_t> shape) {
  return fmt::format("({})", fmt::join(shape, ","));
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

Dims dims_from(std::span<const uint64_t> shape, const Order& order) {
  Dims dims;
  dims.fill(1);
  for (size_t i = 0; i < order.rank; ++i) dims[order.axes[i]] = shape[i];
  return dims;
}

std::vector<uint64_t> shape_from(const Dims& dims, const Order& order) {
  std::vector<uint64_t> shape(order.rank);
  for (size_t i = 0; i < order.rank; ++i) shape[i] = dims[order.axes[i]];
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
  Order target_order;  // the axis order `target` is given in
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
  result.data.resize(count * width);  // count is bounded by the caller
  return result;
}

// Host shapes of rank < 4 stored in a 4-D device format are padded the way MindSpore pads them
// (trans.cc PaddingShape): (C) -> (1,C,1,1), (N,C) -> (N,C,1,1), (C,H,W) -> (1,C,H,W).
std::array<uint64_t, 4> pad_to_nchw(std::span<const uint64_t> target) {
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

// What the caller wants of a 4-D or 5-D source: the target layout (a host layout of the family
// or FRACTAL_Z) and the logical host dims read from the target shape in its own axis order.
struct Plan {
  size_t family;
  Layout to;
  std::optional<Dims> host;  // empty without a target shape
  bool keep_target_shape;    // a rank < 4 target with a channel-first result keeps its shape
};

Expected<Plan> make_plan(const Request& req, Layout from, Layout to) {
  Plan plan{family_of(from), to == Layout::ND ? channel_first(family_of(from)) : to, {}, false};
  if (req.target.empty()) return plan;
  const Order& order = req.target_order;
  if (req.target.size() == order.rank) {
    plan.host = dims_from(req.target, order);
  } else if (plan.family == 4 && req.target.size() < 4) {
    const auto padded = pad_to_nchw(req.target);
    plan.host = dims_from(padded, kNchw);
    plan.keep_target_shape = plan.to == Layout::NCHW;
  } else {
    return Error(fmt::format("target {} for {} has rank {}, expected {} in {} order",
                             shape_text(req.target), req.from_name, req.target.size(), order.rank,
                             order.name));
  }
  return plan;
}

// FRACTAL_Z as written for a target: C0 = Ni = 16 whatever the element width, as msaccucmp's
// converters (ConstManager.C0_AXIS) and GE's float types lay it out.
constexpr uint64_t kCube = 16;

// Writes the logical tensor `dims` (element source given by `source`) in the plan's layout.
template <class SourceIndex>
Expected<TransformResult> emit(const Request& req, const Plan& plan, const Dims& dims,
                               const SourceIndex& source) {
  MSDT_TRY(const uint64_t count,
           checked_product({dims[kN], dims[kC], dims[kD], dims[kH], dims[kW]}, req));
  const std::byte* src = req.device.data.data();
  if (plan.to == Layout::FractalZ) {
    const uint64_t c1 = ceil_div(dims[kC], kCube), no = ceil_div(dims[kN], kCube);
    MSDT_TRY(const uint64_t rows, checked_product({c1, dims[kH], dims[kW]}, req));
    MSDT_TRY(const uint64_t total, checked_product({rows, no, kCube, kCube}, req));
    MSDT_TRY(std::ignore, checked_product({total, req.width}, req));
    TransformResult result = make_result({rows, no, kCube, kCube}, total, req.width);
    const uint64_t hw = dims[kH] * dims[kW], n_padded = no * kCube;
    Dims at{};
    for (uint64_t k = 0; k < count; ++k) {
      const uint64_t dst =
          (((at[kC] / kCube) * hw + at[kH] * dims[kW] + at[kW]) * n_padded + at[kN]) * kCube +
          at[kC] % kCube;
      std::memcpy(result.data.data() + dst * req.width, src + source(at) * req.width, req.width);
      for (Axis axis : {kW, kH, kC, kN}) {
        if (++at[axis] < dims[axis]) break;
        at[axis] = 0;
      }
    }
    return result;
  }
  const Order order = *host_order(plan.to);
  const std::vector<uint64_t> walk = shape_from(dims, order);
  TransformResult result = make_result(
      plan.keep_target_shape ? std::vector<uint64_t>(req.target.begin(), req.target.end()) : walk,
      count, req.width);
  // Where each logical axis sits in the walk; a 4-D walk leaves index slot 4 at 0, which is D.
  std::array<size_t, kAxes> slot{};
  for (size_t k = 0; k < kAxes; ++k) slot[order.axes[k]] = k;
  gather(req.width, walk, src, result.data.data(), [&, slot](const Index& i) {
    return source(Dims{i[slot[kN]], i[slot[kC]], i[slot[kD]], i[slot[kH]], i[slot[kW]]});
  });
  return result;
}

// The logical dims of a format that keeps N, D, H and W whole and splits C into `c1` blocks of
// `c0`: the target's dims once they are checked against the device's, or the device's with C =
// C1·C0 when there is no target.
Expected<Dims> blocked_dims(const Request& req, const Plan& plan, Dims device, uint64_t c1,
                            uint64_t c0) {
  if (!plan.host) {
    MSDT_TRY(device[kC], checked_product({c1, c0}, req));
    return device;
  }
  const Dims& dims = *plan.host;
  static constexpr std::pair<Axis, std::string_view> kWhole[] = {
      {kN, "N"}, {kD, "D"}, {kH, "H"}, {kW, "W"}};
  for (auto [axis, name] : kWhole) MSDT_CHECK(check_equal_dim(req, name, device[axis], dims[axis]));
  MSDT_CHECK(check_blocks(req, "channels", dims[kC], c1, c0));
  return dims;
}

// NC1HWC0 (N, C1, H, W, C0) -> host (dump spec §8, first row).
Expected<TransformResult> from_nc1hwc0(const Request& req, const Plan& plan) {
  MSDT_CHECK(check_device_rank(req, 5));
  const auto& d = req.device.shape;
  const uint64_t c1 = d[1], h_dim = d[2], w_dim = d[3], c0 = d[4];
  MSDT_TRY(const Dims dims, blocked_dims(req, plan, {d[0], 0, 1, h_dim, w_dim}, c1, c0));
  return emit(req, plan, dims, [=](const Dims& at) {
    return (((at[kN] * c1 + at[kC] / c0) * h_dim + at[kH]) * w_dim + at[kW]) * c0 + at[kC] % c0;
  });
}

// C1HWNCoC0 (C1, H, W, N, Co, C0) with Co = C0: channel c sits on the diagonal Co = C0 = c % C0 of
// block c / C0 (GE's format_transfer_c1hwncoc0_hwcn).
Expected<TransformResult> from_c1hwncoc0(const Request& req, const Plan& plan) {
  MSDT_CHECK(check_device_rank(req, 6));
  const auto& d = req.device.shape;
  const uint64_t c1 = d[0], h_dim = d[1], w_dim = d[2], n_dim = d[3], co = d[4], c0 = d[5];
  if (co != c0)
    return Error(fmt::format("C1HWNCoC0 device shape {} has Co = {} and C0 = {}, expected equal",
                             shape_text(d), co, c0));
  MSDT_TRY(const Dims dims, blocked_dims(req, plan, {n_dim, 0, 1, h_dim, w_dim}, c1, c0));
  return emit(req, plan, dims, [=](const Dims& at) {
    const uint64_t c = at[kC] % c0;
    return ((((at[kC] / c0 * h_dim + at[kH]) * w_dim + at[kW]) * n_dim + at[kN]) * co + c) * c0 + c;
  });
}

// C1 of a fractal layout whose first device dimension is C1 · `plane` (H·W, or D·H·W).
Expected<uint64_t> fractal_c1(const Request& req, uint64_t plane, std::string_view plane_name) {
  const uint64_t rows = req.device.shape[0];
  if (plane == 0) {
    if (rows != 0)
      return cannot_hold(req,
                         fmt::format("{} is 0 but the first device dimension is not", plane_name));
    return uint64_t{0};
  }
  if (rows % plane != 0)
    return cannot_hold(req, fmt::format("first device dimension {} is not a multiple of {} = {}",
                                        rows, plane_name, plane));
  return rows / plane;
}

// FRACTAL_Z (C1·H·W, No, Ni, C0) -> host (dump spec §8, second row). With groups > 1 the device
// holds ceil(groups / e) blocks, each packing e groups diagonally, as MindSpore's
// NchwFracZTransWithGroups writes them (trans.cc); groups == 1 is the special case e = 1.
Expected<TransformResult> from_fractal_z(const Request& req, const Plan& plan, uint32_t groups) {
  MSDT_CHECK(check_device_rank(req, 4));
  if (!plan.host)
    return Error(fmt::format("FRACTAL_Z device shape {} needs the host shape to recover H and W",
                             shape_text(req.device.shape)));
  const Dims dims = *plan.host;
  const auto& d = req.device.shape;
  const uint64_t no = d[1], ni = d[2], c0 = d[3];
  const uint64_t n_dim = dims[kN], c_dim = dims[kC], h_dim = dims[kH], w_dim = dims[kW];
  MSDT_TRY(uint64_t count, checked_product({n_dim, c_dim, h_dim, w_dim}, req));
  MSDT_TRY(uint64_t hw, checked_product({h_dim, w_dim}, req));
  if (groups == 0) return Error("FRACTAL_Z group count is 0, expected at least 1");

  uint64_t cout_per_group = n_dim, e_mult = 1, c1 = 0, cout_opt = 0;
  if (groups == 1) {
    MSDT_TRY(c1, fractal_c1(req, hw, "H·W"));
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
  return emit(req, plan, dims, [=](const Dims& at) {
    const uint64_t n = at[kN], c = at[kC];
    const uint64_t g = n / cout_per_group;
    const uint64_t packed = g % e_mult;
    const uint64_t ci = packed * c_dim + c;
    const uint64_t co = packed * cout_per_group + n % cout_per_group;
    return (g / e_mult) * block +
           (((ci / c0) * hw + at[kH] * w_dim + at[kW]) * cout_opt + co) * c0 + ci % c0;
  });
}

// FRACTAL_Z_3D (D·C1·H·W, No, Ni, C0) -> host 5-D: FRACTAL_Z with D as the outermost block
// (GE's format_transfer_dhwcn_fractal_z_3D).
Expected<TransformResult> from_fractal_z_3d(const Request& req, const Plan& plan) {
  MSDT_CHECK(check_device_rank(req, 4));
  if (!plan.host)
    return Error(
        fmt::format("FRACTAL_Z_3D device shape {} needs the host shape to recover D, H and W",
                    shape_text(req.device.shape)));
  const Dims dims = *plan.host;
  const auto& d = req.device.shape;
  const uint64_t no = d[1], ni = d[2], c0 = d[3];
  MSDT_TRY(const uint64_t dhw, checked_product({dims[kD], dims[kH], dims[kW]}, req));
  MSDT_TRY(const uint64_t c1, fractal_c1(req, dhw, "D·H·W"));
  MSDT_CHECK(check_blocks(req, "channels", dims[kC], c1, c0));
  MSDT_CHECK(check_blocks(req, "kernels", dims[kN], no, ni));
  const uint64_t h_dim = dims[kH], w_dim = dims[kW], n_padded = no * ni;
  return emit(req, plan, dims, [=](const Dims& at) {
    return ((((at[kD] * c1 + at[kC] / c0) * h_dim + at[kH]) * w_dim + at[kW]) * n_padded + at[kN]) *
               c0 +
           at[kC] % c0;
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

// NDC1HWC0 (N, D, C1, H, W, C0) -> host 5-D; msaccucmp's ND target is the NCDHW array.
Expected<TransformResult> from_ndc1hwc0(const Request& req, const Plan& plan) {
  MSDT_CHECK(check_device_rank(req, 6));
  const auto& d = req.device.shape;
  const uint64_t d_dim = d[1], c1 = d[2], h_dim = d[3], w_dim = d[4], c0 = d[5];
  MSDT_TRY(const Dims dims, blocked_dims(req, plan, {d[0], 0, d_dim, h_dim, w_dim}, c1, c0));
  return emit(req, plan, dims, [=](const Dims& at) {
    return ((((at[kN] * d_dim + at[kD]) * c1 + at[kC] / c0) * h_dim + at[kH]) * w_dim + at[kW]) *
               c0 +
           at[kC] % c0;
  });
}

// Host layouts of one family are permutations of each other; no padding is involved, so a
// target shape must be the device's own dims.
Expected<TransformResult> from_host(const Request& req, const Plan& plan, Layout from) {
  const Order source_order = *host_order(from);
  const Dims dims = dims_from(req.device.shape, source_order);
  // The data alone fixes the result; a target shape is only checked. One that does not fit in its
  // stated order but equals the stored shape is taken in the source's own order (an OriginalOp
  // without a format field reads as NCHW).
  const bool as_stored = std::equal(req.target.begin(), req.target.end(), req.device.shape.begin(),
                                    req.device.shape.end());
  if (plan.host && *plan.host != dims && !as_stored)
    return Error(fmt::format("{} shape {} is {} in {} order, not the target {}", req.from_name,
                             shape_text(req.device.shape),
                             shape_text(shape_from(dims, req.target_order)), req.target_order.name,
                             shape_text(req.target)));
  Dims stride{};  // element strides of the logical axes in the source
  uint64_t s = 1;
  for (size_t i = source_order.rank; i-- > 0;) {
    stride[source_order.axes[i]] = s;
    s *= req.device.shape[i];
  }
  return emit(req, plan, dims, [=](const Dims& at) {
    return at[kN] * stride[kN] + at[kC] * stride[kC] + at[kD] * stride[kD] + at[kH] * stride[kH] +
           at[kW] * stride[kW];
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
// a shape of another rank is treated as ND (§8).
Layout resolve_source(std::string_view name, size_t rank) {
  Layout layout = name == "DefaultFormat" ? Layout::NCHW : parse_layout(name);
  if (is_host(layout) && rank != host_order(layout)->rank) return Layout::ND;
  return layout;
}

Layout resolve_target(std::string_view name, Layout from, size_t target_rank) {
  if (name != "DefaultFormat") return parse_layout(name);
  const size_t family = family_of(from);
  if (target_rank != 0) return target_rank == 4 && family != 5 ? Layout::NCHW : Layout::ND;
  return family == 0 ? Layout::ND : channel_first(family);
}

// The axis order of the target shape: `shape_format` when it names a host layout of the source's
// family; otherwise the source itself when it is a host layout, else NCHW / NCDHW.
Order resolve_target_order(std::string_view shape_format, Layout from) {
  const size_t family = family_of(from) == 0 ? 4 : family_of(from);
  const Layout given = parse_layout(canonical_format(shape_format));
  if (is_host(given) && family_of(given) == family) return *host_order(given);
  if (is_host(from)) return *host_order(from);
  return *host_order(channel_first(family));
}

}  // namespace

bool is_host_format(std::string_view format) {
  return is_host(parse_layout(canonical_format(format)));
}

bool can_transform(std::string_view from_format, std::string_view to_format) {
  const std::string from = canonical_format(from_format), to = canonical_format(to_format);
  if (from == to) return true;
  const Layout source = from == "DefaultFormat" ? Layout::NCHW : parse_layout(from);
  if (to == "DefaultFormat")
    return supported_pair(source, Layout::NCHW) || supported_pair(source, Layout::NCDHW) ||
           supported_pair(source, Layout::ND);
  return supported_pair(source, parse_layout(to));
}

Expected<TransformResult> transform_layout(const TensorView& device, std::string_view from_format,
                                           std::string_view to_format,
                                           std::span<const uint64_t> target_shape, uint32_t groups,
                                           std::string_view shape_format) {
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

  const std::string from_name = canonical_format(from_format);
  const Layout from = resolve_source(from_name, device.shape.size());
  const Request req{device,
                    from_name,
                    canonical_format(to_format),
                    target_shape,
                    resolve_target_order(shape_format, from),
                    width};
  const Layout to = resolve_target(req.to_name, from, target_shape.size());
  // A host layout kept as it is still checks a target shape given in another axis order.
  const bool same_host = is_host(from) && from == to && !target_shape.empty();
  if (!same_host && (req.from_name == req.to_name || from == to ||
                     (from == Layout::ND && (to == Layout::ND || is_host(to)))))
    return unchanged_copy(req, device_count);
  if (!supported_pair(from, to))
    return Error(fmt::format("no transform from {} to {}", req.from_name, req.to_name));
  if (groups > 1 && from != Layout::FractalZ)
    return Error(fmt::format("a group count of {} only applies to FRACTAL_Z, not {}", groups,
                             req.from_name));
  if (from == Layout::FractalNz) return from_fractal_nz(req);

  MSDT_TRY(const Plan plan, make_plan(req, from, to));
  switch (from) {
    case Layout::NC1HWC0:
      return from_nc1hwc0(req, plan);
    case Layout::FractalZ:
      return from_fractal_z(req, plan, groups);
    case Layout::C1HWNCoC0:
      return from_c1hwncoc0(req, plan);
    case Layout::NDC1HWC0:
      return from_ndc1hwc0(req, plan);
    case Layout::FractalZ3D:
      return from_fractal_z_3d(req, plan);
    default:
      return from_host(req, plan, from);
  }
}

}  // namespace msdt
