// One tensor as a model file stores it, whatever the format (.ckpt, safetensors, MindIR, .ms):
// its dtype and shape as read, and where its bytes lie, never the bytes themselves. The bytes are
// taken one tensor at a time (tensor_data), as a view into the mapped file when they are one
// range, copied when they are several.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/byte_reader.h"
#include "tensor/dtype.h"

namespace msdt::model {

// Where a tensor's bytes lie in its file: a .ckpt Value's tensor_content, a safetensors
// data_offsets range, a MindIR raw_data or external data range.
struct Segment {
  uint64_t offset = 0;
  uint64_t length = 0;
};

// One tensor's elements: a parameter's tensor, or one of a map parameter's three.
struct Content {
  std::string spelling;           // tensor_type as written: "Float32", "Uint8", "str", "int64"
  std::optional<DType> dtype;     // nullopt for random_op and for spellings outside spec §5
  std::vector<uint64_t> dims;     // as written (of the first slice); [0] for a string
  std::vector<uint64_t> shape;    // as loaded: dims [0] is a scalar (spec §4.3); a map component's
                                  // first axis summed over its slices
  std::vector<Segment> segments;  // tensor_content of each slice, in file order
  // What the dtype and shape need (dtype_bytes; Int4 two per byte, rounded up); nullopt when the
  // dtype is unknown, for strings and random_op, or when the count overflows.
  std::optional<uint64_t> expected_bytes;

  uint64_t bytes() const;  // sum of the segments' lengths
  // Elements of the shape (1 for a scalar); for a string its characters (bytes / 4).
  uint64_t elements() const;
  // bytes() matches expected_bytes (true when there is nothing to check).
  bool consistent() const { return !expected_bytes || *expected_bytes == bytes(); }
};

// A parameter's elements as a TensorView: into `file` when the parameter is one slice, into an
// owned copy when it is several. Move-only: a copy would point into the other's buffer (a move
// keeps the buffer where it is).
class TensorData {
 public:
  TensorData(TensorData&&) noexcept = default;
  TensorData& operator=(TensorData&&) noexcept = default;
  TensorData(const TensorData&) = delete;
  TensorData& operator=(const TensorData&) = delete;

  const TensorView& view() const { return view_; }
  bool copied() const { return !owned_.empty(); }

 private:
  friend Expected<TensorData> gather(Bytes, const Content&, DType, std::vector<uint64_t>);
  friend TensorData owned_tensor(DType, std::vector<uint64_t>, std::vector<std::byte>);
  TensorData() = default;
  TensorView view_{DType::UInt8, {}, {}};
  std::vector<std::byte> owned_;
};

// The elements of a numeric content (a Tensor parameter's `content`, or a map component). An
// error when the dtype is unknown (random_op, unknown spellings, strings: see raw_data and
// string_value), when the length does not match the shape, or when a segment lies outside `file`.
Expected<TensorData> tensor_data(Bytes file, const Content& content);
// Any content's bytes as they are, slices joined: a UInt8 view of shape [bytes] (random_op, an
// unknown spelling, a string's UTF-32).
Expected<TensorData> raw_data(Bytes file, const Content& content);
// "[2, 3]": dims or a shape as messages show them.
std::string dims_text(const std::vector<uint64_t>& dims);

// Sets `c.expected_bytes` to what its dtype (which must be set) and shape need: element_count,
// then dtype_bytes (tensor/dtype.h), both checked for overflow. The one computation of every
// model reader (.ckpt, MindIR, .ms); on overflow expected_bytes stays unset and the error says
// why: "shape (…) has more than 2^64 elements", "4611686018427387904 elements of Float64 need
// more than 2^64 bytes" (the dtype as the file spells it).
Status set_expected_bytes(Content& c);

// Elements decoded into a buffer of their own (a MindIR tensor's typed repeated fields, say).
TensorData owned_tensor(DType dtype, std::vector<uint64_t> shape, std::vector<std::byte> bytes);

}  // namespace msdt::model
