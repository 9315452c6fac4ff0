// The values a summary or tfevents file holds, whatever the dialect (spec summary.md §5, §15):
// what the event decoder fills and what summary-cat's outputs, exports and plots read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_reader.h"
#include "tensor/dtype.h"

namespace msdt::summary {

enum class ValueKind : uint8_t { Scalar, Image, Histogram, Tensor, Landscape, Text, Audio };

// "scalar", "image", "histogram", "tensor", "landscape", "text", "audio".
std::string_view value_kind_name(ValueKind kind);
std::optional<ValueKind> parse_value_kind(std::string_view name);

struct Image {
  int64_t height = 0, width = 0, colorspace = 0;
  Bytes encoded;  // PNG (or whatever the writer stored), a view into the file
};

// A bucket covers [left, left + width); TensorFlow's HistogramProto is converted to this form
// (its first bucket, from -DBL_MAX, gets left = the histogram's min).
struct Bucket {
  double left = 0, width = 0, count = 0;
};

struct Histogram {
  std::vector<Bucket> buckets;
  uint64_t nan = 0, pos_inf = 0, neg_inf = 0;
  std::optional<double> min, max, sum;
  std::optional<uint64_t> count;  // the total, NaN and Inf included

  // count, or the sum of the buckets' counts and the NaN/Inf counts when the writer left it out.
  double total() const;
};

// A tensor as stored: `stored` is the element type of `data` (MindSpore writes every dtype as
// float32 `float_data`); `declared` is the tensor's own dtype (`data_type`), when known.
struct Tensor {
  DType stored = DType::Float32;
  std::optional<DType> declared;
  std::string declared_name;  // the writer's dtype name when it has no DType ("DT_STRING", …)
  std::vector<uint64_t> dims;
  Bytes data;                        // a view into the file, when the elements lie there contiguous
  std::vector<std::byte> owned;      // or the elements gathered here (unpacked or varint fields)
  std::vector<std::string> strings;  // string tensors (TensorFlow text summaries)

  Bytes bytes() const { return owned.empty() ? data : Bytes(owned); }
  TensorView view() const;
};

// MindInsight's loss landscape (spec §5.5): the surface's x, y, z and the training path.
struct Landscape {
  Tensor x, y, z;
  std::vector<int32_t> intervals;
  std::optional<Tensor> path_x, path_y, path_z;
  std::string decomposition, unit;
  int32_t step_per_epoch = 0;
};

struct Value {
  std::string tag;
  ValueKind kind = ValueKind::Scalar;
  double scalar = 0;  // Scalar: the float32 (or TF double tensor) widened to double
  Image image;
  Histogram histogram;
  Tensor tensor;  // Tensor, Text (strings), Audio's encoded bytes in data
  std::optional<Landscape> landscape;
  std::string plugin;  // TensorFlow's SummaryMetadata plugin_name, when given
};

}  // namespace msdt::summary
