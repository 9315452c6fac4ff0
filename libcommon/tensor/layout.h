// Device formats and device-to-host layout transforms (dump spec §4.2, §5.6, §8).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/dtype.h"

namespace msdt {

// The known format strings as they appear in file names, longest first where one is a prefix of
// another with '_' (dump spec §3.1 step 2).
std::span<const std::string_view> known_format_names();
// One spelling per format: "FracZ" -> "FRACTAL_Z", "DefaultFormat" stays; unknown names unchanged.
std::string canonical_format(std::string_view name);
// OutputFormat enum value (masked with 0xFF first, 30 is NCDHW) to the msaccucmp string
// ("NC1HWC0", "FRACTAL_Z", "DECONV_SP_STRIDE8_TRANS", "LOOKUP_KEYS", …); empty if unknown.
std::string_view ascend_format_name(uint64_t output_format);

// Whether transform_layout knows the pair: every 4-D source (NCHW, NHWC, HWCN, NC1HWC0,
// NC1HWC0_C04, FRACTAL_Z, C1HWNCoC0) to every 4-D host layout and FRACTAL_Z; every 5-D source
// (NCDHW, NDHWC, DHWCN, NDC1HWC0, FRACTAL_Z_3D) to every 5-D host layout; FRACTAL_NZ to ND, NCHW
// and NHWC; device formats also to ND (their channel-first host layout).
bool can_transform(std::string_view from_format, std::string_view to_format);
// True for the host layouts (NCHW, NHWC, HWCN, NCDHW, NDHWC, DHWCN): permutations of the logical
// axes, with no padding.
bool is_host_format(std::string_view format);

struct TransformResult {
  std::vector<uint64_t> shape;  // host shape after slicing off C0/N padding
  std::vector<std::byte> data;  // same dtype as the input, C order
};

// Rearranges `device` (elements of any byte width; packed sub-byte types are refused) from
// `from_format` to `to_format`. `target_shape` is the host shape (original_shape or -s); it may be
// empty when it can be derived from the device shape without padding. `shape_format` names the
// axis order `target_shape` is written in: the tensor's origin format for original_shape, "NCHW"
// for -s (N,C,H,W; NCDHW order for 5-D sources). Empty or not a host layout of the source's
// family: the source format when it is a host layout (NCHW, NHWC, HWCN, NCDHW, NDHWC, DHWCN),
// NCHW / NCDHW for device formats. The result is in `to_format` order whatever order the target
// shape was given in. `groups` is sub_format for grouped FRACTAL_Z (1 when absent). Errors name
// the shapes that do not fit.
Expected<TransformResult> transform_layout(const TensorView& device, std::string_view from_format,
                                           std::string_view to_format,
                                           std::span<const uint64_t> target_shape,
                                           uint32_t groups = 1, std::string_view shape_format = {});

}  // namespace msdt
