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

// Transforms whose source and target the dump spec §8 lists for msaccucmp's built-in converters.
bool can_transform(std::string_view from_format, std::string_view to_format);

struct TransformResult {
  std::vector<uint64_t> shape;  // host shape after slicing off C0/N padding
  std::vector<std::byte> data;  // same dtype as the input, C order
};

// Rearranges `device` (elements of any byte width; packed sub-byte types are refused) from
// `from_format` to `to_format`. `target_shape` is the host shape (original_shape or -s); it may be
// empty when it can be derived from the device shape without padding. `groups` is sub_format for
// grouped FRACTAL_Z (1 when absent). Errors name the shapes that do not fit.
Expected<TransformResult> transform_layout(const TensorView& device, std::string_view from_format,
                                           std::string_view to_format,
                                           std::span<const uint64_t> target_shape,
                                           uint32_t groups = 1);

}  // namespace msdt
