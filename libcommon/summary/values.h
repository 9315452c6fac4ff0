// The values a summary or tfevents file holds, whatever the dialect (spec summary.md §5, §15):
// what the event decoder fills and what summary-cat's outputs, exports and plots read.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_reader.h"
#include "tensor/dtype.h"

namespace msdt::summary {

// Lineage and Explain are not Summary values but whole records of `_lineage` and `_explain` files
// (and of 0.1-era summary files), listed among the values one part each (train_lineage,
// evaluation_lineage, dataset_graph, user_defined_info, explain).
enum class ValueKind : uint8_t {
  Scalar,
  Image,
  Histogram,
  Tensor,
  Landscape,
  Text,
  Audio,
  Lineage,
  Explain
};

// "scalar", "image", "histogram", "tensor", "landscape", "text", "audio", "lineage", "explain".
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

// A part of a Value that most values do not have, kept out of line so that a Value stays small
// (a scalar summary decodes millions of them): copied with the Value, read as an empty T when
// absent, created by edit().
template <class T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(const Boxed& other) : p_(other.p_ ? std::make_unique<T>(*other.p_) : nullptr) {}
  // Into the box already there, when there is one: its members' memory is reused.
  Boxed& operator=(const Boxed& other) {
    if (!other.p_)
      p_.reset();
    else if (p_)
      *p_ = *other.p_;
    else
      p_ = std::make_unique<T>(*other.p_);
    return *this;
  }
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(Boxed&&) noexcept = default;
  ~Boxed() = default;

  const T& operator*() const { return p_ ? *p_ : empty(); }
  const T* operator->() const { return &**this; }
  explicit operator bool() const { return p_ != nullptr; }
  T& edit() {
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }
  void reset() { p_.reset(); }

 private:
  static const T& empty() {
    static const T nothing{};
    return nothing;
  }
  std::unique_ptr<T> p_;
};

struct Value {
  std::string tag;      // as shown: bytes that are not UTF-8 spelled \xNN (escape_invalid_utf8)
  std::string raw_tag;  // the tag's own bytes when they differ from `tag` (not UTF-8), else empty
  ValueKind kind = ValueKind::Scalar;
  double scalar = 0;  // Scalar: the float32 (or TF double tensor) widened to double
  Image image;
  Boxed<Histogram> histogram;
  Boxed<Tensor> tensor;  // Tensor, Text (strings), Audio's encoded bytes in data
  Boxed<Landscape> landscape;
  Boxed<nlohmann::ordered_json>
      record;          // Lineage, Explain: the part as JSON (keys as in the .proto)
  std::string plugin;  // TensorFlow's SummaryMetadata plugin_name, when given

  // Back to a default Value but for the tag, keeping the strings' memory: a decoder reusing its
  // events compares a tag with the one before it copies it.
  void clear_content() {
    kind = ValueKind::Scalar;
    scalar = 0;
    image = Image{};
    histogram.reset();
    tensor.reset();
    landscape.reset();
    record.reset();
    plugin.clear();
  }
};

}  // namespace msdt::summary
