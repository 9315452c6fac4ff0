// The type notation of .ir files (spec ir.md §4) read into dtype and shape, whatever the era:
// `<Tensor[Float32]x[const vector][2, 3]>` (<= 1.3), `<Tensor[Float32]x(2, 3)>` (1.4),
// `<Tensor[Float32], (2, 3)>` (>= 1.5), `<Ref[Tensor(F32)], (6, 1, 5, 5)>` (1.x refs),
// `<Ref[Tensor[Float32]], (2)>`, `<Int64, NoShape>`, `<UMonad>`, `<Tuple[Tensor[Float32]*2,Int64],
// TupleShape(...)>` and the backend's device form `<Float32xNC1HWC0[const vector]{32, 12, 13, 13,
// 16}>`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace msdt::ir {

struct TypeSpec {
  enum class Kind : uint8_t {
    Tensor,
    Scalar,
    Tuple,
    List,
    Monad,
    Function,
    None,
    Other
  } kind = Kind::Other;
  std::string dtype;                          // "Float32", "Int64"; the element type for tensors
  bool ref = false;                           // a Ref[...] (a parameter updated in place)
  std::optional<std::vector<int64_t>> shape;  // absent: not given; -1 dynamic dim, -2 dynamic rank
  std::string format;                         // device form: "NC1HWC0", "DefaultFormat"
  std::string text;                           // as written, with the angle brackets
  // "Float32[2,3]", "Ref Float32[6,1,5,5]", "Int64", "UMonad", "Tuple(3)": short, for edge labels.
  std::string label() const;
};

// Always gives a TypeSpec: what cannot be read stays Kind::Other with the text.
TypeSpec parse_type_spec(std::string_view text);

}  // namespace msdt::ir
