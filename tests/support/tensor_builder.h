// Tensors built from C++ values, for unit tests of code that takes a TensorView.
#pragma once

#include <cstring>
#include <vector>

#include "tensor/dtype.h"

namespace msdt::testing {

// Owns the bytes a view points into; keep it alive while the view is used.
struct OwnedTensor {
  std::vector<std::byte> bytes;
  TensorView view;
};

// The values' bytes as they are in memory (little-endian on every host we support). An empty
// shape means 1-D over the values, except for a single value, which makes a 0-d tensor.
template <class T>
OwnedTensor tensor_of(DType dtype, const std::vector<T>& values, std::vector<uint64_t> shape = {}) {
  OwnedTensor t;
  t.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  if (shape.empty() && values.size() != 1) shape = {values.size()};
  t.view = TensorView{dtype, std::move(shape), Bytes(t.bytes.data(), t.bytes.size())};
  return t;
}

}  // namespace msdt::testing
