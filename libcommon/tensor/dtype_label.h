// MindSpore's own CamelCase name of a dtype, the spelling of its TypeId names and of the element
// types in the text dumps (<Tensor[Float32]>): "Float32", "BFloat16", "UInt8", "Int4",
// "Float8E4M3FN", "String". The sub-byte floats MindSpore has no TypeId for get the same pattern
// ("Float4E2M1", "HiFloat4"). parse_dtype_label (tensor/dtype.h) reads back every label that is a
// MindSpore TypeId name. Defined in dtype.cpp beside the label tables; a header of its own so that
// the many users of dtype.h do not depend on it.
#pragma once

#include <string_view>

#include "tensor/dtype.h"

namespace msdt {

std::string_view dtype_label(DType dtype);

}  // namespace msdt
