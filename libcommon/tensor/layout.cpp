// Device-to-host layout transforms (dump spec §8).
#include "tensor/layout.h"

namespace msdt {

bool can_transform(std::string_view, std::string_view) { return false; }

Expected<TransformResult> transform_layout(const TensorView&, std::string_view, std::string_view,
                                           std::span<const uint64_t>, uint32_t) {
  return Error("layout transforms are not implemented yet");
}

}  // namespace msdt
