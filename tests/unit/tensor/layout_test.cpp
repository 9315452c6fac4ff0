// Device-to-host layout transforms (dump spec §8). Each device tensor is built here from a host
// tensor by a forward transform written with plain index arithmetic, independent of the gather in
// layout.cpp; transforming it back must give the host tensor exactly. Padding is filled with 0xEE
// rather than zeros so that a transform that leaks padding into the result cannot pass.
#include "tensor/layout.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>

namespace msdt {
namespace {

using Shape = std::vector<uint64_t>;
using Buffer = std::vector<std::byte>;
constexpr std::byte kPad{0xEE};

DType dtype_of_width(size_t width) {
  switch (width) {
    case 1:
      return DType::Int8;
    case 2:
      return DType::Float16;
    case 4:
      return DType::Float32;
    case 8:
      return DType::Int64;
    default:
      return DType::Complex128;
  }
}

uint64_t count_of(const Shape& shape) {
  return std::accumulate(shape.begin(), shape.end(), uint64_t{1}, std::multiplies<>());
}

// Distinct-looking bytes per element, never equal to the padding byte pattern as a whole.
Buffer host_data(uint64_t count, size_t width) {
  Buffer data(count * width);
  for (uint64_t k = 0; k < count; ++k)
    for (size_t j = 0; j < width; ++j)
      data[k * width + j] = std::byte((((k + 1) >> (8 * (j % 3))) ^ (j * 0x35)) & 0x7F);
  return data;
}

void put(Buffer& out, uint64_t out_index, const Buffer& in, uint64_t in_index, size_t width) {
  std::memcpy(out.data() + out_index * width, in.data() + in_index * width, width);
}

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// Host NCHW -> NC1HWC0 (N, C1, H, W, C0).
Buffer nchw_to_nc1hwc0(const Buffer& host, Shape nchw, uint64_t c0, size_t width) {
  const uint64_t n = nchw[0], c = nchw[1], h = nchw[2], w = nchw[3], c1 = ceil_div(c, c0);
  Buffer dev(n * c1 * h * w * c0 * width, kPad);
  for (uint64_t in = 0; in < n; ++in)
    for (uint64_t ic = 0; ic < c; ++ic)
      for (uint64_t ih = 0; ih < h; ++ih)
        for (uint64_t iw = 0; iw < w; ++iw)
          put(dev, in * c1 * h * w * c0 + (ic / c0) * h * w * c0 + ih * w * c0 + iw * c0 + ic % c0,
              host, ((in * c + ic) * h + ih) * w + iw, width);
  return dev;
}

// Host NCHW -> FRACTAL_Z (C1·H·W, No, 16, C0).
Buffer nchw_to_fractal_z(const Buffer& host, Shape nchw, uint64_t c0, size_t width) {
  const uint64_t n = nchw[0], c = nchw[1], h = nchw[2], w = nchw[3];
  const uint64_t c1 = ceil_div(c, c0), no = ceil_div(n, 16);
  Buffer dev(c1 * h * w * no * 16 * c0 * width, kPad);
  for (uint64_t in = 0; in < n; ++in)
    for (uint64_t ic = 0; ic < c; ++ic)
      for (uint64_t ih = 0; ih < h; ++ih)
        for (uint64_t iw = 0; iw < w; ++iw) {
          const uint64_t row = (ic / c0) * h * w + ih * w + iw;  // first device axis
          put(dev, ((row * no + in / 16) * 16 + in % 16) * c0 + ic % c0, host,
              ((in * c + ic) * h + ih) * w + iw, width);
        }
  return dev;
}

// Host NCHW (Cout = groups·cout, Cin per group) -> grouped FRACTAL_Z, after MindSpore's
// NchwFracZTransWithGroups: e groups share one diagonal block.
Buffer nchw_to_fractal_z_groups(const Buffer& host, Shape nchw, uint64_t groups, uint64_t c0,
                                size_t width, Shape& device_shape) {
  const uint64_t n = nchw[0], cin = nchw[1], h = nchw[2], w = nchw[3], cout = n / groups;
  const uint64_t e =
      std::min({std::lcm(cin, c0) / cin, std::lcm(cout, uint64_t{16}) / cout, groups});
  const uint64_t c1 = ceil_div(e * cin, c0), cout_opt = ceil_div(e * cout, 16) * 16;
  const uint64_t g_blocks = ceil_div(groups, e);
  device_shape = {g_blocks * c1 * h * w, cout_opt / 16, 16, c0};
  Buffer dev(count_of(device_shape) * width, kPad);
  for (uint64_t g = 0; g < groups; ++g)
    for (uint64_t ic = 0; ic < cin; ++ic)
      for (uint64_t ih = 0; ih < h; ++ih)
        for (uint64_t iw = 0; iw < w; ++iw)
          for (uint64_t in = 0; in < cout; ++in) {
            const uint64_t ev = g % e, dst_ci = ev * cin + ic, dst_co = ev * cout + in;
            const uint64_t dev_index =
                (g / e) * c1 * h * w * cout_opt * c0 + (dst_ci / c0) * h * w * cout_opt * c0 +
                ih * w * cout_opt * c0 + iw * cout_opt * c0 + dst_co * c0 + dst_ci % c0;
            put(dev, dev_index, host, (((g * cout + in) * cin + ic) * h + ih) * w + iw, width);
          }
  return dev;
}

// Host (batch, rows, cols) -> FRACTAL_NZ (batch, C1, No, Ni, C0).
Buffer nd_to_fractal_nz(const Buffer& host, uint64_t batch, uint64_t rows, uint64_t cols,
                        uint64_t ni, uint64_t c0, size_t width) {
  const uint64_t c1 = ceil_div(cols, c0), no = ceil_div(rows, ni);
  Buffer dev(batch * c1 * no * ni * c0 * width, kPad);
  for (uint64_t b = 0; b < batch; ++b)
    for (uint64_t r = 0; r < rows; ++r)
      for (uint64_t col = 0; col < cols; ++col)
        put(dev,
            b * c1 * no * ni * c0 + (col / c0) * no * ni * c0 + (r / ni) * ni * c0 + (r % ni) * c0 +
                col % c0,
            host, (b * rows + r) * cols + col, width);
  return dev;
}

// Host NCDHW -> NDC1HWC0 (N, D, C1, H, W, C0).
Buffer ncdhw_to_ndc1hwc0(const Buffer& host, Shape s, uint64_t c0, size_t width) {
  const uint64_t n = s[0], c = s[1], d = s[2], h = s[3], w = s[4], c1 = ceil_div(c, c0);
  Buffer dev(n * d * c1 * h * w * c0 * width, kPad);
  for (uint64_t in = 0; in < n; ++in)
    for (uint64_t ic = 0; ic < c; ++ic)
      for (uint64_t id = 0; id < d; ++id)
        for (uint64_t ih = 0; ih < h; ++ih)
          for (uint64_t iw = 0; iw < w; ++iw)
            put(dev, ((((in * d + id) * c1 + ic / c0) * h + ih) * w + iw) * c0 + ic % c0, host,
                (((in * c + ic) * d + id) * h + ih) * w + iw, width);
  return dev;
}

// Host NCHW -> another 4-D order: `order` lists the NCHW axis at each output position.
Buffer permute_nchw(const Buffer& host, Shape nchw, std::array<int, 4> order, size_t width,
                    Shape& out_shape) {
  out_shape = {nchw[order[0]], nchw[order[1]], nchw[order[2]], nchw[order[3]]};
  Buffer out(host.size());
  uint64_t i[4];
  for (i[0] = 0; i[0] < nchw[0]; ++i[0])
    for (i[1] = 0; i[1] < nchw[1]; ++i[1])
      for (i[2] = 0; i[2] < nchw[2]; ++i[2])
        for (i[3] = 0; i[3] < nchw[3]; ++i[3]) {
          const uint64_t dst =
              ((i[order[0]] * out_shape[1] + i[order[1]]) * out_shape[2] + i[order[2]]) *
                  out_shape[3] +
              i[order[3]];
          put(out, dst, host, ((i[0] * nchw[1] + i[1]) * nchw[2] + i[2]) * nchw[3] + i[3], width);
        }
  return out;
}
constexpr std::array<int, 4> kToNhwc = {0, 2, 3, 1};
constexpr std::array<int, 4> kToHwcn = {2, 3, 1, 0};

TransformResult transform_ok(DType dtype, const Shape& device_shape, const Buffer& device,
                             std::string_view from, std::string_view to, const Shape& target,
                             uint32_t groups = 1, std::string_view shape_format = {}) {
  TensorView view{dtype, device_shape, Bytes(device)};
  auto result = transform_layout(view, from, to, target, groups, shape_format);
  EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().message);
  if (!result) return {};
  return std::move(*result);
}

std::string transform_error(DType dtype, const Shape& device_shape, const Buffer& device,
                            std::string_view from, std::string_view to, const Shape& target,
                            uint32_t groups = 1, std::string_view shape_format = {}) {
  TensorView view{dtype, device_shape, Bytes(device)};
  auto result = transform_layout(view, from, to, target, groups, shape_format);
  EXPECT_FALSE(result.has_value());
  return result ? std::string("<no error>") : result.error().message;
}

constexpr size_t kWidths[] = {1, 2, 4, 8, 16};

TEST(Nc1hwc0, ToNchwAllWidthsWithChannelPadding) {
  for (size_t width : kWidths) {
    const uint64_t c0 = width == 1 ? 32 : 16;  // 32 bytes / itemsize for int8 (§8)
    const Shape host_shape = {2, 20, 3, 5};
    const Buffer host = host_data(count_of(host_shape), width);
    const Buffer dev = nchw_to_nc1hwc0(host, host_shape, c0, width);
    const Shape dev_shape = {2, ceil_div(20, c0), 3, 5, c0};
    auto r = transform_ok(dtype_of_width(width), dev_shape, dev, "NC1HWC0", "NCHW", host_shape);
    EXPECT_EQ(r.shape, host_shape) << width;
    EXPECT_EQ(r.data, host) << width;
  }
}

TEST(Nc1hwc0, C0ComesFromTheDeviceShape) {
  const Shape host_shape = {1, 19, 2, 2};
  const Buffer host = host_data(count_of(host_shape), 4);
  const Buffer dev = nchw_to_nc1hwc0(host, host_shape, 8, 4);
  auto r = transform_ok(DType::Float32, {1, 3, 2, 2, 8}, dev, "NC1HWC0", "NCHW", host_shape);
  EXPECT_EQ(r.data, host);
}

TEST(Nc1hwc0, C04VariantIsNc1hwc0WithFourChannels) {
  const Shape host_shape = {2, 3, 4, 4};
  const Buffer host = host_data(count_of(host_shape), 2);
  const Buffer dev = nchw_to_nc1hwc0(host, host_shape, 4, 2);
  auto r = transform_ok(DType::Float16, {2, 1, 4, 4, 4}, dev, "NC1HWC0_C04", "NCHW", host_shape);
  EXPECT_EQ(r.data, host);
}

// The target shape is read in its own axis order (the origin format, NCHW by default for device
// formats) and the result comes out in the target format's order: the demo's Conv2D input with
// original_shape (N,C,H,W) converts to NHWC and HWCN (issue 5).
TEST(Nc1hwc0, ToNhwcAndHwcnReadTheTargetShapeInItsOriginOrder) {
  const Shape host_shape = {3, 17, 2, 4};
  const Buffer host = host_data(count_of(host_shape), 4);
  const Buffer dev = nchw_to_nc1hwc0(host, host_shape, 16, 4);
  const Shape dev_shape = {3, 2, 2, 4, 16};
  Shape nhwc_shape, hwcn_shape;
  const Buffer nhwc = permute_nchw(host, host_shape, kToNhwc, 4, nhwc_shape);
  const Buffer hwcn = permute_nchw(host, host_shape, kToHwcn, 4, hwcn_shape);
  for (std::string_view origin : {"", "NCHW"}) {
    auto r1 =
        transform_ok(DType::Float32, dev_shape, dev, "NC1HWC0", "NHWC", host_shape, 1, origin);
    EXPECT_EQ(r1.shape, (Shape{3, 2, 4, 17}));
    EXPECT_EQ(r1.data, nhwc);
    auto r2 =
        transform_ok(DType::Float32, dev_shape, dev, "NC1HWC0", "HWCN", host_shape, 1, origin);
    EXPECT_EQ(r2.shape, (Shape{2, 4, 17, 3}));
    EXPECT_EQ(r2.data, hwcn);
  }
  // An origin format of NHWC or HWCN: the same host tensor, its shape written in that order.
  auto r3 = transform_ok(DType::Float32, dev_shape, dev, "NC1HWC0", "NHWC", nhwc_shape, 1, "NHWC");
  EXPECT_EQ(r3.data, nhwc);
  auto r4 = transform_ok(DType::Float32, dev_shape, dev, "NC1HWC0", "NCHW", hwcn_shape, 1, "HWCN");
  EXPECT_EQ(r4.shape, host_shape);
  EXPECT_EQ(r4.data, host);
}

TEST(Nc1hwc0, WithoutTargetKeepsPaddedChannels) {
  const Shape host_shape = {1, 16, 2, 3};  // C fills C0 exactly, so nothing is lost
  const Buffer host = host_data(count_of(host_shape), 2);
  const Buffer dev = nchw_to_nc1hwc0(host, host_shape, 16, 2);
  auto r = transform_ok(DType::Float16, {1, 1, 2, 3, 16}, dev, "NC1HWC0", "NCHW", {});
  EXPECT_EQ(r.shape, host_shape);
  EXPECT_EQ(r.data, host);
  auto padded = transform_ok(DType::Float16, {1, 1, 2, 3, 16}, dev, "NC1HWC0", "NHWC", {});
  EXPECT_EQ(padded.shape, (Shape{1, 2, 3, 16}));
}

TEST(Nc1hwc0, LowRankHostShapesArePaddedAsMindSporeDoes) {
  // (N, C) is stored as (N, C, 1, 1); (C) as (1, C, 1, 1); (C, H, W) as (1, C, H, W).
  const Buffer host2 = host_data(5 * 20, 4);
  const Buffer dev2 = nchw_to_nc1hwc0(host2, {5, 20, 1, 1}, 16, 4);
  auto r2 = transform_ok(DType::Float32, {5, 2, 1, 1, 16}, dev2, "NC1HWC0", "ND", {5, 20});
  EXPECT_EQ(r2.shape, (Shape{5, 20}));
  EXPECT_EQ(r2.data, host2);
  auto r2d =
      transform_ok(DType::Float32, {5, 2, 1, 1, 16}, dev2, "NC1HWC0", "DefaultFormat", {5, 20});
  EXPECT_EQ(r2d.data, host2);

  const Buffer host1 = host_data(7, 4);
  const Buffer dev1 = nchw_to_nc1hwc0(host1, {1, 7, 1, 1}, 16, 4);
  auto r1 = transform_ok(DType::Float32, {1, 1, 1, 1, 16}, dev1, "NC1HWC0", "ND", {7});
  EXPECT_EQ(r1.shape, (Shape{7}));
  EXPECT_EQ(r1.data, host1);

  const Buffer host3 = host_data(3 * 2 * 2, 4);
  const Buffer dev3 = nchw_to_nc1hwc0(host3, {1, 3, 2, 2}, 16, 4);
  auto r3 = transform_ok(DType::Float32, {1, 1, 2, 2, 16}, dev3, "NC1HWC0", "NCHW", {3, 2, 2});
  EXPECT_EQ(r3.shape, (Shape{3, 2, 2}));
  EXPECT_EQ(r3.data, host3);
}

TEST(FractalZ, ToNchwAllWidthsWithKernelAndChannelPadding) {
  for (size_t width : kWidths) {
    const uint64_t c0 = width == 1 ? 32 : 16;
    const Shape host_shape = {20, 21, 3, 2};  // N not a multiple of 16, C not of C0
    const Buffer host = host_data(count_of(host_shape), width);
    const Buffer dev = nchw_to_fractal_z(host, host_shape, c0, width);
    const Shape dev_shape = {ceil_div(21, c0) * 6, 2, 16, c0};
    for (std::string_view name : {"FRACTAL_Z", "FracZ"}) {
      auto r = transform_ok(dtype_of_width(width), dev_shape, dev, name, "NCHW", host_shape);
      EXPECT_EQ(r.shape, host_shape) << width;
      EXPECT_EQ(r.data, host) << width << name;
    }
  }
}

TEST(FractalZ, ToHwcnAndNhwc) {
  const Shape host_shape = {5, 3, 3, 3};
  const Buffer host = host_data(count_of(host_shape), 2);
  const Buffer dev = nchw_to_fractal_z(host, host_shape, 16, 2);
  const Shape dev_shape = {9, 1, 16, 16};
  Shape hwcn_shape, nhwc_shape;
  const Buffer hwcn = permute_nchw(host, host_shape, kToHwcn, 2, hwcn_shape);
  const Buffer nhwc = permute_nchw(host, host_shape, kToNhwc, 2, nhwc_shape);
  auto r1 = transform_ok(DType::Float16, dev_shape, dev, "FRACTAL_Z", "HWCN", host_shape);
  EXPECT_EQ(r1.shape, hwcn_shape);
  EXPECT_EQ(r1.data, hwcn);
  auto r2 = transform_ok(DType::Float16, dev_shape, dev, "FracZ", "NHWC", host_shape);
  EXPECT_EQ(r2.data, nhwc);
  auto r3 = transform_ok(DType::Float16, dev_shape, dev, "FracZ", "NCHW", hwcn_shape, 1, "HWCN");
  EXPECT_EQ(r3.data, host);
}

TEST(FractalZ, GroupsFollowMindSporeBlockPacking) {
  struct Case {
    Shape host;
    uint32_t groups;
    uint64_t c0;
  };
  // e = 16 (depthwise, Cin 1), e = 4, e limited by groups, and e = 1 (Cin fills C0).
  for (const Case& k :
       {Case{{32, 1, 3, 3}, 32, 16}, Case{{8, 4, 2, 2}, 2, 16}, Case{{24, 4, 1, 3}, 3, 16},
        Case{{40, 16, 2, 1}, 2, 16}, Case{{12, 3, 2, 2}, 4, 8}}) {
    const Buffer host = host_data(count_of(k.host), 2);
    Shape dev_shape;
    const Buffer dev = nchw_to_fractal_z_groups(host, k.host, k.groups, k.c0, 2, dev_shape);
    auto r = transform_ok(DType::Float16, dev_shape, dev, "FRACTAL_Z", "NCHW", k.host, k.groups);
    EXPECT_EQ(r.shape, k.host);
    EXPECT_EQ(r.data, host) << "groups " << k.groups;
  }
}

TEST(FractalZ, OneGroupMatchesTheUngroupedLayout) {
  const Shape host_shape = {20, 21, 3, 2};
  const Buffer host = host_data(count_of(host_shape), 4);
  Shape dev_shape;
  const Buffer grouped = nchw_to_fractal_z_groups(host, host_shape, 1, 16, 4, dev_shape);
  EXPECT_EQ(grouped, nchw_to_fractal_z(host, host_shape, 16, 4));
  EXPECT_EQ(dev_shape, (Shape{12, 2, 16, 16}));
}

TEST(FractalNz, To2dTargetAllWidths) {
  for (size_t width : kWidths) {
    const uint64_t c0 = width == 1 ? 32 : 16;
    const Buffer host = host_data(50 * 40, width);
    const Buffer dev = nd_to_fractal_nz(host, 1, 50, 40, 16, c0, width);
    const Shape dev_shape = {ceil_div(40, c0), 4, 16, c0};
    auto r = transform_ok(dtype_of_width(width), dev_shape, dev, "FRACTAL_NZ", "ND", {50, 40});
    EXPECT_EQ(r.shape, (Shape{50, 40}));
    EXPECT_EQ(r.data, host) << width;
  }
}

TEST(FractalNz, BatchDimsAreKept) {
  const Buffer host = host_data(3 * 2 * 17 * 33, 4);
  const Buffer dev = nd_to_fractal_nz(host, 6, 17, 33, 16, 16, 4);
  const Shape dev_shape = {3, 2, 3, 2, 16, 16};
  auto r = transform_ok(DType::Float32, dev_shape, dev, "FRACTAL_NZ", "ND", {3, 2, 17, 33});
  EXPECT_EQ(r.shape, (Shape{3, 2, 17, 33}));
  EXPECT_EQ(r.data, host);
  // msaccucmp treats an NCHW or NHWC target the same way: leading dims are the batch.
  auto nchw = transform_ok(DType::Float32, dev_shape, dev, "FRACTAL_NZ", "NCHW", {3, 2, 17, 33});
  EXPECT_EQ(nchw.data, host);
  auto nhwc = transform_ok(DType::Float32, dev_shape, dev, "FRACTAL_NZ", "NHWC", {6, 17, 33});
  EXPECT_EQ(nhwc.shape, (Shape{6, 17, 33}));
  EXPECT_EQ(nhwc.data, host);
}

TEST(FractalNz, TwoDimTargetDropsUnitBatch) {
  const Buffer host = host_data(20 * 5, 8);
  const Buffer dev = nd_to_fractal_nz(host, 1, 20, 5, 16, 16, 8);
  auto r = transform_ok(DType::Int64, {1, 1, 2, 16, 16}, dev, "FRACTAL_NZ", "ND", {20, 5});
  EXPECT_EQ(r.shape, (Shape{20, 5}));
  EXPECT_EQ(r.data, host);
}

TEST(FractalNz, OneDimTargetIsOneRow) {
  const Buffer host = host_data(20, 2);
  const Buffer dev = nd_to_fractal_nz(host, 1, 1, 20, 16, 16, 2);
  auto r = transform_ok(DType::Float16, {2, 1, 16, 16}, dev, "FRACTAL_NZ", "ND", {20});
  EXPECT_EQ(r.shape, (Shape{20}));
  EXPECT_EQ(r.data, host);
}

TEST(FractalNz, WithoutTargetKeepsPadding) {
  const Buffer host = host_data(2 * 16 * 32, 4);
  const Buffer dev = nd_to_fractal_nz(host, 2, 16, 32, 16, 16, 4);
  auto r = transform_ok(DType::Float32, {2, 2, 1, 16, 16}, dev, "FRACTAL_NZ", "DefaultFormat", {});
  EXPECT_EQ(r.shape, (Shape{2, 16, 32}));
  EXPECT_EQ(r.data, host);
}

TEST(Ndc1hwc0, ToNcdhwAndNd) {
  for (size_t width : {size_t{2}, size_t{4}}) {
    const Shape host_shape = {2, 18, 3, 2, 2};
    const Buffer host = host_data(count_of(host_shape), width);
    const Buffer dev = ncdhw_to_ndc1hwc0(host, host_shape, 16, width);
    const Shape dev_shape = {2, 3, 2, 2, 2, 16};
    for (std::string_view to : {"NCDHW", "ND", "DefaultFormat"}) {
      auto r = transform_ok(dtype_of_width(width), dev_shape, dev, "NDC1HWC0", to, host_shape);
      EXPECT_EQ(r.shape, host_shape) << to;
      EXPECT_EQ(r.data, host) << to;
    }
  }
}

TEST(Ndc1hwc0, WithoutTargetKeepsPaddedChannels) {
  const Shape host_shape = {1, 16, 2, 1, 3};
  const Buffer host = host_data(count_of(host_shape), 4);
  const Buffer dev = ncdhw_to_ndc1hwc0(host, host_shape, 16, 4);
  auto r = transform_ok(DType::Float32, {1, 2, 1, 1, 3, 16}, dev, "NDC1HWC0", "NCDHW", {});
  EXPECT_EQ(r.shape, host_shape);
  EXPECT_EQ(r.data, host);
}

TEST(HostFormats, EveryPermutationPair) {
  const Shape nchw_shape = {2, 3, 4, 5};
  const Buffer nchw = host_data(count_of(nchw_shape), 4);
  Shape nhwc_shape, hwcn_shape;
  const Buffer nhwc = permute_nchw(nchw, nchw_shape, kToNhwc, 4, nhwc_shape);
  const Buffer hwcn = permute_nchw(nchw, nchw_shape, kToHwcn, 4, hwcn_shape);
  struct Tensor {
    std::string_view format;
    const Shape* shape;
    const Buffer* data;
  };
  const Tensor all[] = {
      {"NCHW", &nchw_shape, &nchw}, {"NHWC", &nhwc_shape, &nhwc}, {"HWCN", &hwcn_shape, &hwcn}};
  for (const Tensor& from : all)
    for (const Tensor& to : all) {
      // The target shape in the source's order (origin unknown), in any named order, or none.
      struct Target {
        Shape shape;
        std::string_view order;
      };
      for (const Target& target : {Target{*from.shape, ""}, Target{*to.shape, to.format},
                                   Target{nchw_shape, "NCHW"}, Target{{}, ""}}) {
        auto r = transform_ok(DType::Float32, *from.shape, *from.data, from.format, to.format,
                              target.shape, 1, target.order);
        EXPECT_EQ(r.shape, *to.shape) << from.format << "->" << to.format;
        EXPECT_EQ(r.data, *to.data) << from.format << "->" << to.format;
      }
    }
}

TEST(HostFormats, DefaultFormatSourceIsNchwFor4d) {
  const Shape nchw_shape = {2, 3, 4, 5};
  const Buffer nchw = host_data(count_of(nchw_shape), 1);
  Shape nhwc_shape;
  const Buffer nhwc = permute_nchw(nchw, nchw_shape, kToNhwc, 1, nhwc_shape);
  auto r = transform_ok(DType::UInt8, nchw_shape, nchw, "DefaultFormat", "NHWC", {});
  EXPECT_EQ(r.shape, nhwc_shape);
  EXPECT_EQ(r.data, nhwc);
}

TEST(HostFormats, FourDimFormatOnOtherRankIsNd) {
  const Buffer data = host_data(24, 4);
  auto r = transform_ok(DType::Float32, {2, 3, 4}, data, "NHWC", "NCHW", {});
  EXPECT_EQ(r.shape, (Shape{2, 3, 4}));
  EXPECT_EQ(r.data, data);
  auto nd = transform_ok(DType::Float32, {24}, data, "ND", "NCHW", {});
  EXPECT_EQ(nd.data, data);
}

TEST(SameFormat, IsAnUnchangedCopy) {
  const Buffer data = host_data(2 * 1 * 2 * 2 * 16, 2);
  const Shape shape = {2, 1, 2, 2, 16};
  auto r = transform_ok(DType::Float16, shape, data, "NC1HWC0", "NC1HWC0", {});
  EXPECT_EQ(r.shape, shape);
  EXPECT_EQ(r.data, data);
  auto fracz =
      transform_ok(DType::Float16, {4, 1, 16, 16}, host_data(1024, 2), "FracZ", "FRACTAL_Z", {});
  EXPECT_EQ(fracz.shape, (Shape{4, 1, 16, 16}));
  EXPECT_EQ(fracz.data, host_data(1024, 2));
  auto reshaped = transform_ok(DType::Float16, shape, data, "ND", "ND", {8, 16});
  EXPECT_EQ(reshaped.shape, (Shape{8, 16}));
  EXPECT_EQ(reshaped.data, data);
  auto def = transform_ok(DType::Float16, shape, data, "DefaultFormat", "DefaultFormat", {});
  EXPECT_EQ(def.data, data);
}

TEST(SameFormat, ZeroElements) {
  auto r = transform_ok(DType::Float32, {0, 1, 2, 2, 16}, {}, "NC1HWC0", "NCHW", {0, 3, 2, 2});
  EXPECT_EQ(r.shape, (Shape{0, 3, 2, 2}));
  EXPECT_TRUE(r.data.empty());
}

TEST(CanTransform, MsaccucmpPairs) {
  const std::pair<const char*, const char*> supported[] = {{"FRACTAL_NZ", "NCHW"},
                                                           {"FRACTAL_NZ", "ND"},
                                                           {"FRACTAL_NZ", "NHWC"},
                                                           {"FRACTAL_Z", "HWCN"},
                                                           {"FRACTAL_Z", "NCHW"},
                                                           {"FracZ", "NCHW"},
                                                           {"HWCN", "NCHW"},
                                                           {"HWCN", "NHWC"},
                                                           {"NC1HWC0", "HWCN"},
                                                           {"NC1HWC0", "NCHW"},
                                                           {"NC1HWC0", "NHWC"},
                                                           {"NCHW", "NHWC"},
                                                           {"NDC1HWC0", "NCDHW"},
                                                           {"NDC1HWC0", "ND"},
                                                           {"NHWC", "HWCN"},
                                                           {"NHWC", "NCHW"},
                                                           {"NC1HWC0", "ND"},
                                                           {"FRACTAL_Z", "ND"},
                                                           {"NC1HWC0_C04", "NCHW"},
                                                           {"NC1HWC0", "DefaultFormat"},
                                                           {"NDC1HWC0", "DefaultFormat"},
                                                           {"C1HWNCoC0", "C1HWNCoC0"},
                                                           {"FracZ", "FRACTAL_Z"},
                                                           {"NCHW", "FRACTAL_Z"},
                                                           {"HWCN", "FRACTAL_Z"},
                                                           {"NHWC", "FRACTAL_Z"},
                                                           {"NC1HWC0", "FRACTAL_Z"},
                                                           {"C1HWNCoC0", "NCHW"},
                                                           {"C1HWNCoC0", "HWCN"},
                                                           {"FRACTAL_Z_3D", "NCDHW"},
                                                           {"FRACTAL_Z_3D", "ND"},
                                                           {"NDC1HWC0", "DHWCN"}};
  for (auto [from, to] : supported) EXPECT_TRUE(can_transform(from, to)) << from << "->" << to;
  const std::pair<const char*, const char*> unsupported[] = {
      {"NC1HWC0", "NCDHW"}, {"NDC1HWC0", "NCHW"},      {"FRACTAL_NZ", "HWCN"},
      {"NCHW", "ND"},       {"NC1HWC0", "FRACTAL_NZ"}, {"FRACTAL_Z_3D", "NCHW"},
      {"ND", "FRACTAL_NZ"}, {"Bogus", "NCHW"}};
  for (auto [from, to] : unsupported) EXPECT_FALSE(can_transform(from, to)) << from << "->" << to;
}

// ---- errors ----

TEST(TransformErrors, PackedAndSizelessTypesAreRefused) {
  const Buffer data(8);
  EXPECT_EQ(transform_error(DType::Int4, {1, 1, 1, 1, 16}, data, "NC1HWC0", "NCHW", {}),
            "cannot rearrange int4 elements: packed sub-byte types must be unpacked first");
  EXPECT_EQ(transform_error(DType::String, {1}, data, "ND", "ND", {}),
            "cannot rearrange string elements: they have no fixed size");
}

TEST(TransformErrors, PayloadSizeMustMatchShape) {
  const Buffer data(100);
  EXPECT_EQ(transform_error(DType::Float32, {1, 1, 2, 2, 16}, data, "NC1HWC0", "NCHW", {}),
            "device shape (1,1,2,2,16) of float32 needs 256 bytes, the payload has 100");
  // element_count's own overflow message
  EXPECT_NE(
      transform_error(DType::Float32, {1ull << 40, 1ull << 40}, data, "ND", "ND", {}).find("2^64"),
      std::string::npos);
  EXPECT_EQ(transform_error(DType::Float64, {1ull << 62}, data, "ND", "ND", {}),
            "device shape (4611686018427387904) of float64 needs more than 2^64 bytes, the "
            "payload has 100");
}

TEST(TransformErrors, DeviceRankMustMatchFormat) {
  const Buffer data(16 * 4);
  EXPECT_EQ(transform_error(DType::Float32, {1, 1, 1, 16}, data, "NC1HWC0", "NCHW", {}),
            "NC1HWC0 device shape (1,1,1,16) has rank 4, expected 5");
  EXPECT_EQ(transform_error(DType::Float32, {1, 16}, data, "FRACTAL_Z", "NCHW", {1, 1, 1, 1}),
            "FRACTAL_Z device shape (1,16) has rank 2, expected 4");
  EXPECT_EQ(transform_error(DType::Float32, {1, 1, 16}, data, "FRACTAL_NZ", "ND", {}),
            "FRACTAL_NZ device shape (1,1,16) has rank 3, expected at least 4");
  EXPECT_EQ(transform_error(DType::Float32, {1, 1, 1, 1, 16}, data, "NDC1HWC0", "NCDHW", {}),
            "NDC1HWC0 device shape (1,1,1,1,16) has rank 5, expected 6");
}

TEST(TransformErrors, Nc1hwc0TargetMustFit) {
  const Buffer data(2 * 2 * 4 * 4 * 16 * 2);
  const Shape dev = {2, 2, 4, 4, 16};
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "NC1HWC0", "NCHW", {2, 40, 4, 4}),
            "NC1HWC0 device shape (2,2,4,4,16) cannot hold target (2,40,4,4): 40 channels need "
            "3 blocks of 16, found 2");
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "NC1HWC0", "NCHW", {3, 20, 4, 4}),
            "NC1HWC0 device shape (2,2,4,4,16) cannot hold target (3,20,4,4): N is 3 in the "
            "target and 2 on the device");
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "NC1HWC0", "NHWC", {2, 4, 5, 20}, 1, "NHWC"),
            "NC1HWC0 device shape (2,2,4,4,16) cannot hold target (2,4,5,20): W is 5 in the "
            "target and 4 on the device");
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "NC1HWC0", "NCHW", {2, 20, 4, 4, 1}),
            "target (2,20,4,4,1) for NC1HWC0 has rank 5, expected 4 in NCHW order");
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "NC1HWC0", "NHWC", {2, 20}, 1, "NHWC"),
            "NC1HWC0 device shape (2,2,4,4,16) cannot hold target (2,20): H is 1 in the target "
            "and 4 on the device");
  EXPECT_EQ(
      transform_error(DType::Float16, dev, data, "NC1HWC0", "NHWC", {2, 20, 4, 4, 1}, 1, "NHWC"),
      "target (2,20,4,4,1) for NC1HWC0 has rank 5, expected 4 in NHWC order");
}

TEST(TransformErrors, FractalZTargetMustFit) {
  const Shape dev = {18, 2, 16, 16};  // C1 = 2 for a 3x3 kernel, N up to 32
  const Buffer data(count_of(dev) * 2);
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "FRACTAL_Z", "NCHW", {}),
            "FRACTAL_Z device shape (18,2,16,16) needs the host shape to recover H and W");
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "FRACTAL_Z", "NCHW", {20, 20, 2, 2}),
            "FRACTAL_Z device shape (18,2,16,16) cannot hold target (20,20,2,2): first device "
            "dimension 18 is not a multiple of H·W = 4");
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "FRACTAL_Z", "NCHW", {33, 20, 3, 3}),
            "FRACTAL_Z device shape (18,2,16,16) cannot hold target (33,20,3,3): 33 kernels need "
            "3 blocks of 16, found 2");
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "FracZ", "NCHW", {32, 33, 3, 3}),
            "FRACTAL_Z device shape (18,2,16,16) cannot hold target (32,33,3,3): 33 channels "
            "need 3 blocks of 16, found 2");
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "FRACTAL_Z", "NCHW", {30, 20, 3, 3}, 4),
            "FRACTAL_Z device shape (18,2,16,16) cannot hold target (30,20,3,3): N = 30 is not "
            "a multiple of 4 groups");
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "FRACTAL_Z", "NCHW", {32, 20, 3, 3}, 2),
            "FRACTAL_Z device shape (18,2,16,16) cannot hold target (32,20,3,3): 2 groups of 16 "
            "kernels with 20 channels are stored as (36,1,16,16)");
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "FRACTAL_Z", "NCHW", {32, 20, 3, 3}, 0),
            "FRACTAL_Z group count is 0, expected at least 1");
}

TEST(TransformErrors, FractalNzTargetMustFit) {
  const Shape dev = {2, 3, 16, 16};
  const Buffer data(count_of(dev) * 2);
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "FRACTAL_NZ", "ND", {48, 40}),
            "FRACTAL_NZ device shape (2,3,16,16) cannot hold target (48,40): 40 columns need 3 "
            "blocks of 16, found 2");
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "FRACTAL_NZ", "ND", {50, 30}),
            "FRACTAL_NZ device shape (2,3,16,16) cannot hold target (50,30): 50 rows need 4 "
            "blocks of 16, found 3");
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "FRACTAL_NZ", "ND", {2, 40, 30}),
            "FRACTAL_NZ device shape (2,3,16,16) cannot hold target (2,40,30): the target has 2 "
            "matrices, the device 1");
  EXPECT_EQ(transform_error(DType::Float16, dev, data, "FRACTAL_NZ", "ND",
                            {1ull << 40, 1ull << 40, 1, 1}),
            "FRACTAL_NZ device shape (2,3,16,16) cannot hold target "
            "(1099511627776,1099511627776,1,1): the batch size overflows");
}

TEST(TransformErrors, Ndc1hwc0TargetMustFit) {
  const Shape dev = {1, 2, 1, 3, 3, 16};
  const Buffer data(count_of(dev) * 4);
  EXPECT_EQ(transform_error(DType::Float32, dev, data, "NDC1HWC0", "NCDHW", {1, 16, 3, 3}),
            "target (1,16,3,3) for NDC1HWC0 has rank 4, expected 5 in NCDHW order");
  EXPECT_EQ(transform_error(DType::Float32, dev, data, "NDC1HWC0", "NCDHW", {1, 16, 3, 3, 3}),
            "NDC1HWC0 device shape (1,2,1,3,3,16) cannot hold target (1,16,3,3,3): D is 3 in "
            "the target and 2 on the device");
  EXPECT_EQ(transform_error(DType::Float32, dev, data, "NDC1HWC0", "NCDHW", {1, 17, 2, 3, 3}),
            "NDC1HWC0 device shape (1,2,1,3,3,16) cannot hold target (1,17,2,3,3): 17 channels "
            "need 2 blocks of 16, found 1");
}

TEST(TransformErrors, HostFormatTargetMustBeThePermutedShape) {
  const Buffer data(2 * 3 * 4 * 5);
  EXPECT_EQ(
      transform_error(DType::Int8, {2, 3, 4, 5}, data, "NCHW", "NHWC", {2, 4, 3, 5}, 1, "NHWC"),
      "NCHW shape (2,3,4,5) is (2,4,5,3) in NHWC order, not the target (2,4,3,5)");
  EXPECT_EQ(transform_error(DType::Int8, {2, 3, 4, 5}, data, "NCHW", "NHWC", {2, 3, 5, 4}),
            "NCHW shape (2,3,4,5) is (2,3,4,5) in NCHW order, not the target (2,3,5,4)");
  // An origin format that does not fit, with the stored shape: taken in the source's order.
  auto r = transform_ok(DType::Int8, {2, 4, 5, 3}, data, "NHWC", "NCHW", {2, 4, 5, 3}, 1, "NCHW");
  EXPECT_EQ(r.shape, (Shape{2, 3, 4, 5}));
}

TEST(TransformErrors, UnsupportedPairsAndGroups) {
  const Buffer data(16 * 2);
  EXPECT_EQ(transform_error(DType::Float16, {1, 1, 1, 1, 16}, data, "NC1HWC0", "NCDHW", {}),
            "no transform from NC1HWC0 to NCDHW");
  EXPECT_EQ(transform_error(DType::Float16, {16}, data, "Bogus", "NCHW", {}),
            "no transform from Bogus to NCHW");
  EXPECT_EQ(transform_error(DType::Float16, {1, 1, 1, 1, 16}, data, "NC1HWC0", "NCHW", {}, 2),
            "a group count of 2 only applies to FRACTAL_Z, not NC1HWC0");
  EXPECT_EQ(transform_error(DType::Float16, {16}, data, "ND", "ND", {17}),
            "ND shape (16) has 16 elements, the target (17) has 17");
}

// Shapes and targets as a damaged file could give them: every call returns either an error or a
// result whose size matches its shape, and never reads outside the device buffer (run under the
// sanitizer build to catch that).
TEST(TransformRobustness, RandomShapesAndTargets) {
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&](uint64_t bound) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state % bound;
  };
  const char* formats[] = {"NC1HWC0",   "FRACTAL_Z",     "FRACTAL_NZ", "NDC1HWC0",
                           "NCHW",      "NHWC",          "HWCN",       "ND",
                           "NCDHW",     "DefaultFormat", "FracZ",      "NC1HWC0_C04",
                           "C1HWNCoC0", "FRACTAL_Z_3D",  "NDHWC",      "DHWCN"};
  const size_t widths[] = {1, 2, 4, 8, 16};
  int successes = 0;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    Shape device_shape(next(7));
    for (auto& d : device_shape) d = next(6);
    Shape target(next(7));
    for (auto& d : target) d = next(40);
    const size_t width = widths[next(5)];
    const Buffer device = host_data(count_of(device_shape), width);
    TensorView view{dtype_of_width(width), device_shape, Bytes(device)};
    const uint32_t groups = static_cast<uint32_t>(next(4));
    auto result = transform_layout(view, formats[next(16)], formats[next(16)], target, groups,
                                   formats[next(16)]);
    if (!result) {
      EXPECT_FALSE(result.error().message.empty());
      continue;
    }
    ++successes;
    EXPECT_EQ(result->data.size(), count_of(result->shape) * width);
    // Only FRACTAL_Z as a target adds padding.
    if (result->shape.size() != 4 || result->shape[3] != 16 || result->shape[2] != 16) {
      EXPECT_LE(result->data.size(), device.size());
    }
  }
  EXPECT_GT(successes, 100);
}

// ---- NumPy oracle: the spec's reshape/transpose recipes (§8) run by NumPy ----

constexpr const char* kPython = "/usr/bin/python3";

bool numpy_available() {
  if (!std::filesystem::exists(kPython)) return false;
  const std::string command = std::string(kPython) + " -c 'import numpy' > /dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

void write_file(const std::filesystem::path& path, const Buffer& data) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

Buffer read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Buffer data(chars.size());
  std::memcpy(data.data(), chars.data(), chars.size());
  return data;
}

// Runs `recipe` with `a` bound to the float32 device array read from a file; the recipe leaves
// its result in `r`, which is written back as raw C-order float32.
Buffer run_numpy(const Buffer& device, const std::string& recipe, const std::string& tag) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("msdt_layout_oracle_" + std::to_string(::getpid()) + "_" + tag);
  std::filesystem::create_directories(dir);
  write_file(dir / "in.bin", device);
  const std::string script =
      "import numpy as np\n"
      "a = np.fromfile('" +
      (dir / "in.bin").string() + "', dtype='<f4')\n" + recipe +
      "\nnp.ascontiguousarray(r, dtype='<f4').tofile('" + (dir / "out.bin").string() + "')\n";
  write_file(dir / "recipe.py",
             Buffer(reinterpret_cast<const std::byte*>(script.data()),
                    reinterpret_cast<const std::byte*>(script.data()) + script.size()));
  const std::string command = std::string(kPython) + " " + (dir / "recipe.py").string();
  const int status = std::system(command.c_str());
  EXPECT_EQ(status, 0) << script;
  Buffer out = read_file(dir / "out.bin");
  std::filesystem::remove_all(dir);
  return out;
}

Buffer float_sequence(uint64_t count) {
  Buffer data(count * 4);
  for (uint64_t k = 0; k < count; ++k) {
    const float value = static_cast<float>(k) * 0.5f - 7.0f;
    std::memcpy(data.data() + k * 4, &value, 4);
  }
  return data;
}

TEST(NumpyOracle, Nc1hwc0ToNchw) {
  if (!numpy_available()) GTEST_SKIP() << "needs /usr/bin/python3 with numpy";
  const Shape dev_shape = {2, 2, 3, 4, 16};
  const Buffer dev = float_sequence(count_of(dev_shape));
  const Buffer expected = run_numpy(dev,
                                    "a = a.reshape(2, 2, 3, 4, 16)\n"
                                    "a = a.transpose(0, 1, 4, 2, 3).reshape(2, 32, 3, 4)\n"
                                    "r = a[:, :21, :, :]",
                                    "nc1hwc0");
  auto r = transform_ok(DType::Float32, dev_shape, dev, "NC1HWC0", "NCHW", {2, 21, 3, 4});
  EXPECT_EQ(expected.size(), 2u * 21 * 3 * 4 * 4);
  EXPECT_EQ(r.data, expected);
}

TEST(NumpyOracle, FractalNzToNd) {
  if (!numpy_available()) GTEST_SKIP() << "needs /usr/bin/python3 with numpy";
  const Shape dev_shape = {3, 3, 4, 16, 16};  // batch 3, C1 3, No 4
  const Buffer dev = float_sequence(count_of(dev_shape));
  const Buffer expected = run_numpy(dev,
                                    "a = a.reshape(3, 3, 4, 16, 16)\n"
                                    "a = a.transpose(0, 2, 3, 1, 4).reshape(3, 64, 48)\n"
                                    "r = a[:, :50, :40]",
                                    "nz");
  auto r = transform_ok(DType::Float32, dev_shape, dev, "FRACTAL_NZ", "ND", {3, 50, 40});
  EXPECT_EQ(expected.size(), 3u * 50 * 40 * 4);
  EXPECT_EQ(r.data, expected);
}

}  // namespace
}  // namespace msdt
