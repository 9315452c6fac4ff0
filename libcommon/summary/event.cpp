#include "summary/event.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "io/text.h"
#include "ir/graph_proto.h"
#include "proto/wire_reader.h"
#include "tensor/element_values.h"

namespace msdt::summary {
namespace {

using proto::each_field;
using proto::expect_field;
using proto::Field;
using proto::field_text;
using proto::WireType;

constexpr int kMaxDepth = 32;

double as_double(const Field& f) { return std::bit_cast<double>(f.value); }
float as_float(const Field& f) { return std::bit_cast<float>(static_cast<uint32_t>(f.value)); }

// Elements of a repeated numeric field, packed or not, appended as `T` to `out` (bytes).
template <class T>
Status append_elements(const Field& f, WireType element_wire, std::vector<std::byte>& out) {
  auto push = [&](T v) {
    size_t at = out.size();
    out.resize(at + sizeof(T));
    std::memcpy(out.data() + at, &v, sizeof(T));
  };
  if (f.type == element_wire) {
    if constexpr (sizeof(T) == 4 && std::is_floating_point_v<T>)
      push(std::bit_cast<float>(static_cast<uint32_t>(f.value)));
    else if constexpr (std::is_floating_point_v<T>)
      push(std::bit_cast<double>(f.value));
    else
      push(static_cast<T>(f.value));
    return std::nullopt;
  }
  if (f.type != WireType::Len)
    return Error::at_offset(f.offset, fmt::format("field {}: unexpected wire type", f.number));
  if (element_wire == WireType::Varint) {
    std::vector<uint64_t> values;
    MSDT_CHECK(proto::append_varints(f, values));
    for (uint64_t v : values) push(static_cast<T>(v));
    return std::nullopt;
  }
  size_t width = element_wire == WireType::Fixed32 ? 4 : 8;
  if (f.bytes.size() % width != 0)
    return Error::at_offset(f.payload_offset,
                            fmt::format("field {}: packed {}-byte values in {} bytes", f.number,
                                        width, f.bytes.size()));
  out.insert(out.end(), f.bytes.begin(), f.bytes.end());
  return std::nullopt;
}

// Elements that lie packed in one field are kept as a view; anything else is gathered.
struct ElementField {
  uint32_t number = 0;
  DType dtype = DType::Float32;
  WireType wire = WireType::Fixed32;
};

// The typed element fields of anf_ir's TensorProto (spec §6.2) and TensorFlow's (§15.2).
constexpr ElementField kAnfElements[] = {{3, DType::Float32, WireType::Fixed32},
                                         {4, DType::Int32, WireType::Varint},
                                         {5, DType::Int64, WireType::Varint},
                                         {6, DType::Float64, WireType::Fixed64},
                                         {7, DType::UInt64, WireType::Varint}};
constexpr ElementField kTfElements[] = {
    {5, DType::Float32, WireType::Fixed32}, {6, DType::Float64, WireType::Fixed64},
    {7, DType::Int32, WireType::Varint},    {10, DType::Int64, WireType::Varint},
    {11, DType::Bool, WireType::Varint},    {13, DType::Float16, WireType::Varint},
    {16, DType::UInt32, WireType::Varint},  {17, DType::UInt64, WireType::Varint}};

const ElementField* element_field(std::span<const ElementField> table, uint32_t number) {
  for (const ElementField& e : table)
    if (e.number == number) return &e;
  return nullptr;
}

class TensorBuilder {
 public:
  explicit TensorBuilder(Tensor& t) : t_(t) {}

  Status add(const Field& f, const ElementField& e) {
    t_.stored = e.dtype;
    bool packed_view = f.type == WireType::Len && e.wire != WireType::Varint;
    if (packed_view && !chunks_ && t_.owned.empty()) {
      size_t width = e.wire == WireType::Fixed32 ? 4 : 8;
      if (f.bytes.size() % width != 0)
        return Error::at_offset(f.payload_offset,
                                fmt::format("field {}: packed {}-byte values in {} bytes", f.number,
                                            width, f.bytes.size()));
      t_.data = f.bytes;
      chunks_ = 1;
      return std::nullopt;
    }
    if (chunks_ && t_.owned.empty()) t_.owned.assign(t_.data.begin(), t_.data.end());
    ++chunks_;
    switch (e.dtype) {
      case DType::Float32:
        return append_elements<float>(f, e.wire, t_.owned);
      case DType::Float64:
        return append_elements<double>(f, e.wire, t_.owned);
      case DType::Int32:
        return append_elements<int32_t>(f, e.wire, t_.owned);
      case DType::Int64:
        return append_elements<int64_t>(f, e.wire, t_.owned);
      case DType::UInt32:
        return append_elements<uint32_t>(f, e.wire, t_.owned);
      case DType::UInt64:
        return append_elements<uint64_t>(f, e.wire, t_.owned);
      case DType::Bool:
        return append_elements<uint8_t>(f, e.wire, t_.owned);
      case DType::Float16:
        return append_elements<uint16_t>(f, e.wire, t_.owned);
      default:
        return Error::at_offset(f.offset, "unsupported element field");
    }
  }

  void raw(const Field& f) {
    t_.data = f.bytes;
    t_.owned.clear();
    raw_ = true;
  }
  bool has_raw() const { return raw_; }
  bool has_elements() const { return chunks_ > 0; }

 private:
  Tensor& t_;
  int chunks_ = 0;
  bool raw_ = false;
};

// The element count the dims give, or an error for absurd shapes.
Expected<uint64_t> dims_count(const Tensor& t, uint64_t offset) {
  auto n = element_count(t.dims);
  if (!n) return Error::at_offset(offset, n.error().message);
  return *n;
}

// anf_ir TensorProto (spec §6.2): dims 1, data_type 2, float_data 3, int32_data 4, int64_data 5,
// double_data 6, uint64_data 7, raw_data 8.
Status decode_anf_tensor(Bytes message, uint64_t base, Tensor& t) {
  TensorBuilder builder(t);
  uint64_t data_type = 0;
  bool typed = false;
  MSDT_CHECK_FIELDS(each_field(message, base, [&](const Field& f) -> Status {
    switch (f.number) {
      case 1: {
        std::vector<uint64_t> dims;
        MSDT_CHECK(proto::append_varints(f, dims));
        for (uint64_t d : dims) {
          if (static_cast<int64_t>(d) < 0)
            return Error::at_offset(f.offset, fmt::format("TensorProto.dims: negative dimension {}",
                                                          static_cast<int64_t>(d)));
          t.dims.push_back(d);
        }
        return std::nullopt;
      }
      case 2:
        MSDT_CHECK(expect_field(f, WireType::Varint, "TensorProto.data_type"));
        data_type = f.value;
        typed = true;
        return std::nullopt;
      case 8:
        MSDT_CHECK(expect_field(f, WireType::Len, "TensorProto.raw_data"));
        builder.raw(f);
        return std::nullopt;
      default:
        if (const ElementField* e = element_field(kAnfElements, f.number))
          return builder.add(f, *e);
        return std::nullopt;
    }
  }));
  if (typed) {
    t.declared = dtype_of_anf(data_type);
    t.declared_name = ir::proto_data_type_name(data_type);
  }
  if (builder.has_raw()) {
    if (!t.declared)
      return Error::at_offset(base,
                              fmt::format("TensorProto.raw_data of data type {}",
                                          t.declared_name.empty() ? "unset" : t.declared_name));
    t.stored = *t.declared;
  }
  MSDT_TRY(uint64_t count, dims_count(t, base));
  auto bytes = dtype_bytes(t.stored, count);
  if (!bytes || *bytes != t.bytes().size())
    return Error::at_offset(base, fmt::format("TensorProto: dims give {} elements, the data holds "
                                              "{} bytes of {}",
                                              count, t.bytes().size(), dtype_name(t.stored)));
  return std::nullopt;
}

// TensorFlow TensorProto (spec §15.2).
Status decode_tf_tensor(Bytes message, uint64_t base, Tensor& t) {
  TensorBuilder builder(t);
  uint64_t dtype = 0;
  MSDT_CHECK_FIELDS(each_field(message, base, [&](const Field& f) -> Status {
    switch (f.number) {
      case 1:
        MSDT_CHECK(expect_field(f, WireType::Varint, "TensorProto.dtype"));
        dtype = f.value;
        return std::nullopt;
      case 2:
        MSDT_CHECK(expect_field(f, WireType::Len, "TensorProto.tensor_shape"));
        return each_field(f.bytes, f.payload_offset, [&](const Field& d) -> Status {
          if (d.number != 2 || d.type != WireType::Len) return std::nullopt;
          int64_t size = 0;
          MSDT_CHECK(each_field(d.bytes, d.payload_offset, [&](const Field& s) -> Status {
            if (s.number == 1 && s.type == WireType::Varint) size = static_cast<int64_t>(s.value);
            return std::nullopt;
          }));
          if (size < 0)
            return Error::at_offset(d.offset, fmt::format("TensorShapeProto: dimension {}", size));
          t.dims.push_back(static_cast<uint64_t>(size));
          return std::nullopt;
        });
      case 4:
        MSDT_CHECK(expect_field(f, WireType::Len, "TensorProto.tensor_content"));
        builder.raw(f);
        return std::nullopt;
      case 8:
        MSDT_CHECK(expect_field(f, WireType::Len, "TensorProto.string_val"));
        t.strings.emplace_back(field_text(f));
        return std::nullopt;
      default:
        if (const ElementField* e = element_field(kTfElements, f.number)) return builder.add(f, *e);
        return std::nullopt;
    }
  }));
  t.declared = dtype_of_tf(dtype);
  t.declared_name = t.declared   ? std::string(dtype_name(*t.declared))
                    : dtype == 7 ? "string"
                                 : fmt::format("tf dtype {}", dtype);
  MSDT_TRY(uint64_t count, dims_count(t, base));
  if (dtype == 7) {  // strings: one per element
    if (t.strings.size() != count && !(count == 1 && t.strings.empty()))
      return Error::at_offset(
          base, fmt::format("TensorProto: {} strings for {} elements", t.strings.size(), count));
    return std::nullopt;
  }
  if (builder.has_raw()) {
    if (!t.declared)
      return Error::at_offset(base,
                              fmt::format("TensorProto.tensor_content of {}", t.declared_name));
    t.stored = *t.declared;
  } else if (builder.has_elements() && t.declared && *t.declared != t.stored) {
    // int_val holds int8/16 and uint8/16; half_val holds float16 bits: narrow to the dtype.
    DType to = *t.declared;
    size_t width = *dtype_bytes(t.stored, 1);
    Bytes from = t.bytes();
    std::vector<std::byte> narrowed;
    size_t out_width = *dtype_bytes(to, 1);
    if (out_width > width)
      return Error::at_offset(base, fmt::format("TensorProto: {} values in a {} tensor",
                                                dtype_name(t.stored), dtype_name(to)));
    for (size_t at = 0; at + width <= from.size(); at += width)
      narrowed.insert(narrowed.end(), from.begin() + at, from.begin() + at + out_width);
    t.owned = std::move(narrowed);
    t.stored = to;
  }
  uint64_t have = t.bytes().size() / std::max<uint64_t>(1, *dtype_bytes(t.stored, 1));
  if (!builder.has_raw() && have == 1 && count > 1) {
    // Version 0: one value fills the whole shape.
    std::vector<std::byte> filled;
    Bytes one = t.bytes();
    filled.reserve(one.size() * count);
    for (uint64_t i = 0; i < count; ++i) filled.insert(filled.end(), one.begin(), one.end());
    t.owned = std::move(filled);
    have = count;
  }
  if (have != count && !(count == 0 && have == 0))
    return Error::at_offset(base, fmt::format("TensorProto: the shape gives {} elements, the data "
                                              "holds {}",
                                              count, have));
  return std::nullopt;
}

Status decode_image(Bytes message, uint64_t base, Image& image) {
  return each_field(message, base, [&](const Field& f) -> Status {
    switch (f.number) {
      case 1:
        if (f.type == WireType::Varint) image.height = static_cast<int64_t>(f.value);
        return std::nullopt;
      case 2:
        if (f.type == WireType::Varint) image.width = static_cast<int64_t>(f.value);
        return std::nullopt;
      case 3:
        if (f.type == WireType::Varint) image.colorspace = static_cast<int64_t>(f.value);
        return std::nullopt;
      case 4:
        MSDT_CHECK(expect_field(f, WireType::Len, "Image.encoded_image"));
        image.encoded = f.bytes;
        return std::nullopt;
      default:
        return std::nullopt;
    }
  });
}

// MindSpore's Summary.Histogram (spec §5.4).
// The shape of every bucket MindSpore writes: left (field 1, fixed64), width (2, fixed64), count
// (3, a varint of at most 9 bytes), in this order and nothing else. Read straight off the bytes
// (false for any other shape); decode_ms_histogram's loop gives the same Bucket.
bool read_common_bucket(Bytes bytes, Bucket& b) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = bytes.size();
  size_t at = 19;
  uint64_t count = 0;
  if (n < 20 || p[0] != 0x09 || p[9] != 0x11 || p[18] != 0x18 ||
      !proto::simple_varint(p, n, at, count) || at != n)
    return false;
  b.left = std::bit_cast<double>(load_u64le(bytes.data() + 1));
  b.width = std::bit_cast<double>(load_u64le(bytes.data() + 10));
  b.count = static_cast<double>(static_cast<int64_t>(count));
  return true;
}

Status decode_ms_histogram(Bytes message, uint64_t base, Histogram& h) {
  return each_field(message, base, [&](const Field& f) -> Status {
    switch (f.number) {
      case 1: {
        MSDT_CHECK(expect_field(f, WireType::Len, "Histogram.buckets"));
        Bucket b;
        if (read_common_bucket(f.bytes, b)) {
          h.buckets.push_back(b);
          return std::nullopt;
        }
        MSDT_CHECK(each_field(f.bytes, f.payload_offset, [&](const Field& x) -> Status {
          if (x.number == 1 && x.type == WireType::Fixed64) b.left = as_double(x);
          if (x.number == 2 && x.type == WireType::Fixed64) b.width = as_double(x);
          if (x.number == 3 && x.type == WireType::Varint)
            b.count = static_cast<double>(static_cast<int64_t>(x.value));
          return std::nullopt;
        }));
        h.buckets.push_back(b);
        return std::nullopt;
      }
      case 2:
        if (f.type == WireType::Varint) h.nan = f.value;
        return std::nullopt;
      case 3:
        if (f.type == WireType::Varint) h.pos_inf = f.value;
        return std::nullopt;
      case 4:
        if (f.type == WireType::Varint) h.neg_inf = f.value;
        return std::nullopt;
      case 5:
        if (f.type == WireType::Fixed64) h.max = as_double(f);
        return std::nullopt;
      case 6:
        if (f.type == WireType::Fixed64) h.min = as_double(f);
        return std::nullopt;
      case 7:
        if (f.type == WireType::Fixed64) h.sum = as_double(f);
        return std::nullopt;
      case 8:
        if (f.type == WireType::Varint) h.count = f.value;
        return std::nullopt;
      default:
        return std::nullopt;
    }
  });
}

Status append_doubles(const Field& f, std::vector<double>& out) {
  std::vector<std::byte> bytes;
  MSDT_CHECK(append_elements<double>(f, WireType::Fixed64, bytes));
  if (bytes.empty()) return std::nullopt;
  size_t at = out.size();
  out.resize(at + bytes.size() / 8);
  std::memcpy(out.data() + at, bytes.data(), bytes.size());
  return std::nullopt;
}

// TensorFlow's HistogramProto: bucket i covers (limit[i-1], limit[i]]; the first from -DBL_MAX,
// drawn from the histogram's min instead.
Status decode_tf_histogram(Bytes message, uint64_t base, Histogram& h) {
  std::vector<double> limits, counts;
  MSDT_CHECK_FIELDS(each_field(message, base, [&](const Field& f) -> Status {
    switch (f.number) {
      case 1:
        if (f.type == WireType::Fixed64) h.min = as_double(f);
        return std::nullopt;
      case 2:
        if (f.type == WireType::Fixed64) h.max = as_double(f);
        return std::nullopt;
      case 3:
        // A double count: only a finite, non-negative one that fits is a count.
        if (f.type == WireType::Fixed64) {
          double n = as_double(f);
          if (n >= 0 && n < 18446744073709551616.0) h.count = static_cast<uint64_t>(n);
        }
        return std::nullopt;
      case 4:
        if (f.type == WireType::Fixed64) h.sum = as_double(f);
        return std::nullopt;
      case 6:
        return append_doubles(f, limits);
      case 7:
        return append_doubles(f, counts);
      default:
        return std::nullopt;
    }
  }));
  // proto3 leaves zeros out: an absent min, max, sum or num is 0.
  h.min = h.min.value_or(0.0);
  h.max = h.max.value_or(0.0);
  h.sum = h.sum.value_or(0.0);
  h.count = h.count.value_or(0);
  if (limits.size() != counts.size())
    return Error::at_offset(base, fmt::format("HistogramProto: {} bucket limits for {} counts",
                                              limits.size(), counts.size()));
  double left = h.min.value_or(limits.empty() ? 0 : limits.front());
  for (size_t i = 0; i < limits.size(); ++i) {
    double right = std::min(limits[i], h.max.value_or(limits[i]));
    double lo = i == 0 ? std::min(left, right) : limits[i - 1];
    if (counts[i] != 0 || !h.buckets.empty())
      h.buckets.push_back({lo, std::max(0.0, right - lo), counts[i]});
  }
  while (!h.buckets.empty() && h.buckets.back().count == 0) h.buckets.pop_back();
  return std::nullopt;
}

Status decode_point(Bytes message, uint64_t base, Tensor& x, Tensor& y, Tensor& z) {
  return each_field(message, base, [&](const Field& f) -> Status {
    if (f.type != WireType::Len || f.number < 1 || f.number > 3) return std::nullopt;
    Tensor& t = f.number == 1 ? x : f.number == 2 ? y : z;
    return decode_anf_tensor(f.bytes, f.payload_offset, t);
  });
}

// MindInsight's LossLandscape (spec §5.5).
Status decode_landscape(Bytes message, uint64_t base, Landscape& l) {
  return each_field(message, base, [&](const Field& f) -> Status {
    if (f.type != WireType::Len) return std::nullopt;
    switch (f.number) {
      case 1:
        return decode_point(f.bytes, f.payload_offset, l.x, l.y, l.z);
      case 2:
        return each_field(f.bytes, f.payload_offset, [&](const Field& p) -> Status {
          if (p.number == 1) {
            std::vector<uint64_t> v;
            MSDT_CHECK(proto::append_varints(p, v));
            for (uint64_t i : v) l.intervals.push_back(static_cast<int32_t>(i));
          } else if (p.number == 2 && p.type == WireType::Len) {
            l.path_x.emplace();
            l.path_y.emplace();
            l.path_z.emplace();
            return decode_point(p.bytes, p.payload_offset, *l.path_x, *l.path_y, *l.path_z);
          }
          return std::nullopt;
        });
      case 3:
        return each_field(f.bytes, f.payload_offset, [&](const Field& m) -> Status {
          // Shown and written as JSON: UTF-8 (other bytes as \xNN).
          if (m.number == 1 && m.type == WireType::Len)
            escape_invalid_utf8(field_text(m), l.decomposition);
          if (m.number == 2 && m.type == WireType::Len) escape_invalid_utf8(field_text(m), l.unit);
          if (m.number == 3 && m.type == WireType::Varint)
            l.step_per_epoch = static_cast<int32_t>(m.value);
          return std::nullopt;
        });
      default:
        return std::nullopt;
    }
  });
}

// A tensor's elements as doubles (TensorFlow's scalar and histogram tensors); nullopt for
// element types that are not real numbers.
std::optional<std::vector<double>> as_doubles(const Tensor& t, uint64_t count) {
  if (!has_real_values(t.stored)) return std::nullopt;
  std::vector<double> out(count);
  if (elements_to_double(t.view(), 0, count, out.data())) return std::nullopt;
  return out;
}

// A TensorFlow tensor value that a plugin gives a meaning: scalars, text, histograms (rank 2,
// rows of left, right, count), images (strings: width, height, encoded images…).
void interpret_tf_tensor(Value& v) {
  const Tensor& t = *v.tensor;
  if (!t.strings.empty() || t.declared_name == "string") {
    if (v.plugin == "images" && t.strings.size() >= 3) {
      v.kind = ValueKind::Image;
      v.image.width = static_cast<int64_t>(parse_unsigned<uint32_t>(t.strings[0]).value_or(0));
      v.image.height = static_cast<int64_t>(parse_unsigned<uint32_t>(t.strings[1]).value_or(0));
      v.image.encoded =
          Bytes(reinterpret_cast<const std::byte*>(t.strings[2].data()), t.strings[2].size());
      return;
    }
    v.kind = ValueKind::Text;
    return;
  }
  uint64_t count = 1;
  for (uint64_t d : t.dims) count *= d;
  if ((v.plugin == "scalars" || v.plugin.empty()) && count == 1) {
    if (auto x = as_doubles(t, 1)) {
      v.kind = ValueKind::Scalar;
      v.scalar = x->front();
      return;
    }
  }
  if (v.plugin == "histograms" && t.dims.size() == 2 && t.dims[1] == 3) {
    auto values = as_doubles(t, count);
    if (!values) return;
    const std::vector<double>& cells = *values;
    v.kind = ValueKind::Histogram;
    for (uint64_t r = 0; r < t.dims[0]; ++r) {
      double lo = cells[3 * r], hi = cells[3 * r + 1], c = cells[3 * r + 2];
      v.histogram.edit().buckets.push_back({lo, hi - lo, c});
    }
    if (!v.histogram->buckets.empty()) {
      Histogram& h = v.histogram.edit();
      h.min = h.buckets.front().left;
      h.max = h.buckets.back().left + h.buckets.back().width;
    }
  }
}

}  // namespace

std::string_view dialect_name(Dialect dialect) {
  switch (dialect) {
    case Dialect::MindSpore:
      return "mindspore";
    case Dialect::TensorFlow:
      return "tensorflow";
    case Dialect::Lineage:
      return "lineage";
  }
  return "unknown";
}

std::string_view event_kind_name(EventKind kind) {
  switch (kind) {
    case EventKind::Version:
      return "version";
    case EventKind::Summary:
      return "summary";
    case EventKind::Graph:
      return "graph";
    case EventKind::Explain:
      return "explain";
    case EventKind::Lineage:
      return "lineage";
    case EventKind::Other:
      return "other";
  }
  return "other";
}

std::string_view value_kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::Scalar:
      return "scalar";
    case ValueKind::Image:
      return "image";
    case ValueKind::Histogram:
      return "histogram";
    case ValueKind::Tensor:
      return "tensor";
    case ValueKind::Landscape:
      return "landscape";
    case ValueKind::Text:
      return "text";
    case ValueKind::Audio:
      return "audio";
    case ValueKind::Lineage:
      return "lineage";
    case ValueKind::Explain:
      return "explain";
  }
  return "unknown";
}

std::optional<ValueKind> parse_value_kind(std::string_view name) {
  for (ValueKind k : {ValueKind::Scalar, ValueKind::Image, ValueKind::Histogram, ValueKind::Tensor,
                      ValueKind::Landscape, ValueKind::Text, ValueKind::Audio, ValueKind::Lineage,
                      ValueKind::Explain})
    if (name == value_kind_name(k)) return k;
  return std::nullopt;
}

double Histogram::total() const {
  if (count) return static_cast<double>(*count);
  double n = static_cast<double>(nan + pos_inf + neg_inf);
  for (const Bucket& b : buckets) n += b.count;
  return n;
}

TensorView Tensor::view() const { return TensorView{stored, dims, bytes()}; }

std::optional<DType> dtype_of_anf(uint64_t data_type) {
  switch (data_type) {
    case 1:
      return DType::Bool;
    case 2:
      return DType::Int8;
    case 3:
      return DType::Int16;
    case 4:
      return DType::Int32;
    case 5:
      return DType::Int64;
    case 6:
      return DType::UInt8;
    case 7:
      return DType::UInt16;
    case 8:
      return DType::UInt32;
    case 9:
      return DType::UInt64;
    case 10:
      return DType::Float16;
    case 11:
      return DType::Float32;
    case 12:
      return DType::Float64;
    case 43:
      return DType::Complex64;
    case 44:
      return DType::Complex128;
    default:
      return std::nullopt;
  }
}

std::optional<DType> dtype_of_tf(uint64_t data_type) {
  switch (data_type) {
    case 1:
      return DType::Float32;
    case 2:
      return DType::Float64;
    case 3:
      return DType::Int32;
    case 4:
      return DType::UInt8;
    case 5:
      return DType::Int16;
    case 6:
      return DType::Int8;
    case 8:
      return DType::Complex64;
    case 9:
      return DType::Int64;
    case 10:
      return DType::Bool;
    case 14:
      return DType::BFloat16;
    case 17:
      return DType::UInt16;
    case 18:
      return DType::Complex128;
    case 19:
      return DType::Float16;
    case 22:
      return DType::UInt32;
    case 23:
      return DType::UInt64;
    case 24:
      return DType::Float8E5M2;
    case 25:
      return DType::Float8E4M3FN;
    default:
      return std::nullopt;
  }
}

std::optional<Dialect> dialect_of_version_record(Bytes payload) {
  std::optional<Dialect> found;
  // A payload that stops decoding part way keeps what its fields before said.
  (void)each_field(payload, 0, [&](const Field& f) -> Status {
    if (f.number == 3 && f.type == WireType::Len) {
      std::string_view v = field_text(f);
      if (v.size() >= 16 && equals_ignoring_case(v.substr(0, 16), "MindSpore.Event:"))
        found = Dialect::MindSpore;
      else if (v.starts_with("brain.Event:"))
        found = Dialect::TensorFlow;
    }
    return std::nullopt;
  });
  return found;
}

// ---- Lineage and explain: decoded to JSON by schema tables -----------------------------------

namespace {

enum class Type : uint8_t { Double, Float, Int32, Int64, UInt64, Bool, String, Message, MapOf };

struct FieldSpec;
struct MessageSpec {
  std::string_view name;
  std::vector<FieldSpec> fields;
};
struct FieldSpec {
  uint32_t number;
  std::string_view name;
  Type type;
  bool repeated = false;
  const MessageSpec* message = nullptr;  // Message, and MapOf with a message value
  Type map_value = Type::String;         // MapOf: the value's type (key is a string)
};

nlohmann::ordered_json scalar_json(const Field& f, Type type, bool& ok) {
  ok = true;
  switch (type) {
    case Type::Double:
      if (f.type == WireType::Fixed64) return as_double(f);
      break;
    case Type::Float:
      if (f.type == WireType::Fixed32) return static_cast<double>(as_float(f));
      break;
    case Type::Int32:
      if (f.type == WireType::Varint) return static_cast<int32_t>(f.value);
      break;
    case Type::Int64:
      if (f.type == WireType::Varint) return static_cast<int64_t>(f.value);
      break;
    case Type::UInt64:
      if (f.type == WireType::Varint) return f.value;
      break;
    case Type::Bool:
      if (f.type == WireType::Varint) return f.value != 0;
      break;
    case Type::String:
      if (f.type == WireType::Len) return escape_invalid_utf8(field_text(f));
      break;
    default:
      break;
  }
  ok = false;
  return nullptr;
}

Expected<nlohmann::ordered_json> message_json(Bytes message, uint64_t base, const MessageSpec& spec,
                                              int depth);

Expected<nlohmann::ordered_json> field_json(const Field& f, const FieldSpec& spec, int depth,
                                            bool& ok) {
  ok = true;
  if (spec.type == Type::Message) {
    if (f.type != WireType::Len) {
      ok = false;
      return nlohmann::ordered_json();
    }
    return message_json(f.bytes, f.payload_offset, *spec.message, depth + 1);
  }
  // Packed repeated numbers.
  if (spec.repeated && f.type == WireType::Len && spec.type != Type::String) {
    nlohmann::ordered_json items = nlohmann::ordered_json::array();
    proto::WireType element = spec.type == Type::Double  ? WireType::Fixed64
                              : spec.type == Type::Float ? WireType::Fixed32
                                                         : WireType::Varint;
    ByteReader in(f.bytes, f.payload_offset);
    while (!in.at_end()) {
      Field one;
      one.number = f.number;
      one.type = element;
      if (element == WireType::Varint) {
        MSDT_TRY(one.value, proto::read_varint(in));
      } else if (element == WireType::Fixed64) {
        MSDT_TRY(one.value, in.u64le());
      } else {
        MSDT_TRY(uint32_t v, in.u32le());
        one.value = v;
      }
      bool one_ok;
      items.push_back(scalar_json(one, spec.type, one_ok));
    }
    return items;
  }
  return scalar_json(f, spec.type, ok);
}

Expected<nlohmann::ordered_json> message_json(Bytes message, uint64_t base, const MessageSpec& spec,
                                              int depth) {
  if (depth > kMaxDepth)
    return Error::at_offset(base, fmt::format("{} nested more than {} deep", spec.name, kMaxDepth));
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  MSDT_CHECK_FIELDS(each_field(message, base, [&](const Field& f) -> Status {
    const FieldSpec* fs = nullptr;
    for (const FieldSpec& s : spec.fields)
      if (s.number == f.number) fs = &s;
    if (!fs) return std::nullopt;  // unknown fields are skipped
    std::string key(fs->name);
    if (fs->type == Type::MapOf) {
      if (f.type != WireType::Len) return std::nullopt;
      std::string map_key;
      nlohmann::ordered_json value;
      MSDT_CHECK(each_field(f.bytes, f.payload_offset, [&](const Field& e) -> Status {
        if (e.number == 1 && e.type == WireType::Len) map_key = escape_invalid_utf8(field_text(e));
        if (e.number == 2) {
          FieldSpec value_spec{2, "value", fs->map_value, false, fs->message};
          bool ok;
          MSDT_TRY(value, field_json(e, value_spec, depth, ok));
        }
        return std::nullopt;
      }));
      out[key][map_key] = std::move(value);
      return std::nullopt;
    }
    bool ok;
    MSDT_TRY(nlohmann::ordered_json value, field_json(f, *fs, depth, ok));
    if (!ok) return std::nullopt;  // a wire-type mismatch (an older schema): skipped
    if (fs->repeated) {
      nlohmann::ordered_json& list = out[key];
      if (list.is_null()) list = nlohmann::ordered_json::array();
      if (value.is_array() && fs->type != Type::Message)
        for (auto& item : value) list.push_back(std::move(item));
      else
        list.push_back(std::move(value));
    } else {
      out[key] = std::move(value);
    }
    return std::nullopt;
  }));
  return out;
}

// lineage.proto (spec §7).
MessageSpec make_user_defined(const MessageSpec* self) {
  return {"UserDefinedInfo",
          {{1, "user_info", Type::Message, true, self},
           {2, "map_dict", Type::MapOf, false, self, Type::Message},
           {3, "map_int32", Type::MapOf, false, nullptr, Type::Int32},
           {4, "map_str", Type::MapOf, false, nullptr, Type::String},
           {5, "map_double", Type::MapOf, false, nullptr, Type::Double}}};
}
extern const MessageSpec kUserDefined;
const MessageSpec kUserDefined = make_user_defined(&kUserDefined);
const MessageSpec kHyper{"HyperParameters",
                         {{1, "optimizer", Type::String},
                          {2, "learning_rate", Type::Float},
                          {3, "loss_function", Type::String},
                          {4, "epoch", Type::Int32},
                          {5, "parallel_mode", Type::String},
                          {6, "device_num", Type::Int32},
                          {8, "batch_size", Type::Int32}}};
const MessageSpec kTrainDataset{
    "TrainDataset",
    {{1, "train_dataset_path", Type::String}, {2, "train_dataset_size", Type::Int32}}};
const MessageSpec kAlgorithm{"Algorithm", {{1, "network", Type::String}, {2, "loss", Type::Float}}};
const MessageSpec kModel{"Model", {{3, "path", Type::String}, {4, "size", Type::Int64}}};
const MessageSpec kTrainLineage{"TrainLineage",
                                {{1, "hyper_parameters", Type::Message, false, &kHyper},
                                 {2, "train_dataset", Type::Message, false, &kTrainDataset},
                                 {3, "algorithm", Type::Message, false, &kAlgorithm},
                                 {4, "model", Type::Message, false, &kModel}}};
const MessageSpec kValidDataset{
    "ValidDataset",
    {{1, "valid_dataset_path", Type::String}, {2, "valid_dataset_size", Type::Int32}}};
const MessageSpec kEvalLineage{
    "EvaluationLineage",
    {{2, "metric", Type::String}, {3, "valid_dataset", Type::Message, false, &kValidDataset}}};
const MessageSpec kStrList{"StrList", {{1, "strValue", Type::String, true}}};
const MessageSpec kOperationParameter{
    "OperationParameter",
    {{1, "mapStr", Type::MapOf, false, nullptr, Type::String},
     {2, "mapStrList", Type::MapOf, false, &kStrList, Type::Message},
     {3, "mapBool", Type::MapOf, false, nullptr, Type::Bool},
     {4, "mapInt", Type::MapOf, false, nullptr, Type::Int32},
     {5, "mapDouble", Type::MapOf, false, nullptr, Type::Double}}};
const MessageSpec kOperation{"Operation",
                             {{1, "operationParam", Type::Message, false, &kOperationParameter},
                              {2, "size", Type::Int32, true},
                              {3, "weights", Type::Float, true}}};
MessageSpec make_dataset_graph(const MessageSpec* self) {
  return {"DatasetGraph",
          {{1, "children", Type::Message, true, self},
           {2, "parameter", Type::Message, false, &kOperationParameter},
           {3, "operations", Type::Message, true, &kOperation},
           {4, "sampler", Type::Message, false, &kOperation}}};
}
extern const MessageSpec kDatasetGraph;
const MessageSpec kDatasetGraph = make_dataset_graph(&kDatasetGraph);

// summary.proto Explain (spec §5.6), current form; the first form's fields of other wire types
// are skipped.
const MessageSpec kInference{"Inference",
                             {{1, "ground_truth_prob", Type::Float, true},
                              {2, "predicted_label", Type::Int32, true},
                              {3, "predicted_prob", Type::Float, true},
                              {4, "ground_truth_prob_sd", Type::Float, true},
                              {5, "ground_truth_prob_itl95_low", Type::Float, true},
                              {6, "ground_truth_prob_itl95_hi", Type::Float, true},
                              {7, "predicted_prob_sd", Type::Float, true},
                              {8, "predicted_prob_itl95_low", Type::Float, true},
                              {9, "predicted_prob_itl95_hi", Type::Float, true}}};
const MessageSpec kExplanation{"Explanation",
                               {{1, "explain_method", Type::String},
                                {2, "label", Type::Int32},
                                {3, "heatmap_path", Type::String}}};
const MessageSpec kBenchmark{"Benchmark",
                             {{1, "benchmark_method", Type::String},
                              {2, "explain_method", Type::String},
                              {3, "total_score", Type::Float},
                              {4, "label_score", Type::Float, true}}};
const MessageSpec kExplainMetadata{"Metadata",
                                   {{1, "label", Type::String, true},
                                    {2, "explain_method", Type::String, true},
                                    {3, "benchmark_method", Type::String, true}}};
const MessageSpec kHocLayer{"HocLayer", {{1, "prob", Type::Float}, {2, "box", Type::Int32, true}}};
const MessageSpec kHoc{"Hoc",
                       {{1, "label", Type::Int32},
                        {2, "mask", Type::String},
                        {3, "layer", Type::Message, true, &kHocLayer}}};
const MessageSpec kExplain{"Explain",
                           {{1, "sample_id", Type::Int32},
                            {2, "image_path", Type::String},
                            {3, "ground_truth_label", Type::Int32, true},
                            {4, "inference", Type::Message, false, &kInference},
                            {5, "explanation", Type::Message, true, &kExplanation},
                            {6, "benchmark", Type::Message, true, &kBenchmark},
                            {7, "metadata", Type::Message, false, &kExplainMetadata},
                            {8, "status", Type::String},
                            {9, "hoc", Type::Message, true, &kHoc}}};

// TensorFlow's small event messages.
const MessageSpec kLogMessage{"LogMessage",
                              {{1, "level", Type::Int32}, {2, "message", Type::String}}};
const MessageSpec kSessionLog{
    "SessionLog",
    {{1, "status", Type::Int32}, {2, "checkpoint_path", Type::String}, {3, "msg", Type::String}}};
const MessageSpec kTaggedRunMetadata{"TaggedRunMetadata", {{1, "tag", Type::String}}};

// Whether field 6 of a MindSpore event reads as a 0.1-era TrainLineage: every field a message
// among 1-4.
bool looks_like_train_lineage(Bytes message) {
  bool any = false;
  Status status = each_field(message, 0, [&](const Field& f) -> Status {
    if (f.type != WireType::Len || f.number < 1 || f.number > 4)
      return Error("not a TrainLineage field");
    any = true;
    return std::nullopt;
  });
  return !status && any;
}

// `v.tag` from the tag's bytes, escaped where they are not UTF-8 (then `raw_tag` keeps the bytes,
// which exporters name files after: the escaped spelling of x\xff is also the tag x\\xff's).
void set_tag(std::string_view raw, Value& v) {
  escape_invalid_utf8(raw, v.tag);
  if (v.tag.size() != raw.size())  // an escaped byte always makes the text longer
    v.raw_tag.assign(raw);
  else
    v.raw_tag.clear();
}

// The shape of nearly every MindSpore scalar: the tag (field 1, under 128 bytes), then
// scalar_value (field 3, fixed32), nothing else. Where its float starts in the value's n bytes
// at p; 0 for any other shape.
size_t common_scalar_float(const uint8_t* p, size_t n) {
  if (n < 7 || p[0] != 0x0a || p[1] >= 0x80 || size_t{p[1]} + 7 != n || p[2 + p[1]] != 0x1d)
    return 0;
  return size_t{p[1]} + 3;
}

// A scalar of the common shape read straight off its bytes (false for any other shape);
// decode_value's loop gives the same Value, with checks this exact shape does not need.
// `v.tag` is the tag of a value decoded before (valid UTF-8, escaped) or empty: the same bytes
// need no escaping and no copy.
bool read_common_scalar(Bytes bytes, Value& v) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t at = common_scalar_float(p, bytes.size());
  if (!at) return false;
  std::string_view tag(reinterpret_cast<const char*>(p + 2), p[1]);
  if (!same_text(tag, v.tag) || !v.raw_tag.empty()) set_tag(tag, v);
  v.kind = ValueKind::Scalar;
  v.scalar = std::bit_cast<float>(load_u32le(bytes.data() + at));
  return true;
}

// The shape of nearly every event of a MindSpore summary file: wall_time (field 1), step
// (field 2), then a summary (field 5, last) of scalars of the common shape, in this order. Walks
// it: `step` and where its varint ends (it starts at byte 10), and on_scalar(at, length) for the
// bytes of each value (false from it stops the walk); false for any other event.
template <class OnScalar>
bool walk_common_event(Bytes payload, uint64_t& step, size_t& step_end, OnScalar&& on_scalar) {
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  const size_t n = payload.size();
  size_t at = 9;
  uint64_t length = 0;
  if (n < 12 || p[0] != 0x09 || p[at++] != 0x10 || !proto::simple_varint(p, n, at, step))
    return false;
  step_end = at;
  if (at == n || p[at++] != 0x2a || !proto::simple_varint(p, n, at, length) || length != n - at)
    return false;
  while (at < n) {
    if (n - at < 2 || p[at] != 0x0a || p[at + 1] >= 0x80 || p[at + 1] > n - at - 2) return false;
    if (!on_scalar(at + 2, size_t{p[at + 1]})) return false;
    at += 2 + p[at + 1];
  }
  return true;
}

// An event of the common shape read straight off the bytes into `e`, values from `next_value`;
// false for any other event, which decode_into's loop then reads from the start (giving the same
// Event).
template <class NextValue>
bool read_common_event(Bytes payload, Event& e, NextValue&& next_value) {
  uint64_t step = 0;
  size_t step_end = 0;
  if (!walk_common_event(payload, step, step_end, [&](size_t at, size_t length) {
        return read_common_scalar(payload.subspan(at, length), next_value());
      }))
    return false;
  e.wall_time = std::bit_cast<double>(load_u64le(payload.data() + 1));
  e.step = static_cast<int64_t>(step);
  e.kind = EventKind::Summary;
  return true;
}

// `content`: whether the value holds anything of a kind we read (TensorFlow's obsolete histogram,
// a newer writer's kind: not).
Status decode_value(const Field& f, Dialect dialect,
                    std::map<std::string, std::string, std::less<>>& plugins, Value& v,
                    bool& content) {
  bool has_metadata = false;
  content = false;
  if (dialect == Dialect::MindSpore && read_common_scalar(f.bytes, v)) {
    content = true;
    return std::nullopt;
  }
  v.tag.clear();
  v.raw_tag.clear();
  MSDT_CHECK_FIELDS(each_field(f.bytes, f.payload_offset, [&](const Field& x) -> Status {
    switch (x.number) {
      case 1:
        MSDT_CHECK(expect_field(x, WireType::Len, "Value.tag"));
        set_tag(field_text(x), v);
        return std::nullopt;
      case 2:  // TF simple_value
        if (dialect == Dialect::TensorFlow && x.type == WireType::Fixed32) {
          content = true;
          v.kind = ValueKind::Scalar;
          v.scalar = as_float(x);
        }
        return std::nullopt;
      case 3:  // MindSpore scalar_value (TF: obsolete_old_style_histogram, bytes)
        if (dialect == Dialect::MindSpore && x.type == WireType::Fixed32) {
          content = true;
          v.kind = ValueKind::Scalar;
          v.scalar = as_float(x);
        }
        return std::nullopt;
      case 4:
        MSDT_CHECK(expect_field(x, WireType::Len, "Value.image"));
        content = true;
        v.kind = ValueKind::Image;
        return decode_image(x.bytes, x.payload_offset, v.image);
      case 5:  // TF histo
        if (dialect != Dialect::TensorFlow) return std::nullopt;
        MSDT_CHECK(expect_field(x, WireType::Len, "Value.histo"));
        content = true;
        v.kind = ValueKind::Histogram;
        return decode_tf_histogram(x.bytes, x.payload_offset, v.histogram.edit());
      case 6:  // TF audio
        if (dialect != Dialect::TensorFlow || x.type != WireType::Len) return std::nullopt;
        content = true;
        v.kind = ValueKind::Audio;
        return each_field(x.bytes, x.payload_offset, [&](const Field& a) -> Status {
          if (a.number == 4 && a.type == WireType::Len) v.tensor.edit().data = a.bytes;
          return std::nullopt;
        });
      case 8:
        MSDT_CHECK(expect_field(x, WireType::Len, "Value.tensor"));
        content = true;
        v.kind = ValueKind::Tensor;
        if (dialect == Dialect::TensorFlow)
          return decode_tf_tensor(x.bytes, x.payload_offset, v.tensor.edit());
        return decode_anf_tensor(x.bytes, x.payload_offset, v.tensor.edit());
      case 9:
        if (dialect == Dialect::TensorFlow) {  // SummaryMetadata
          if (x.type != WireType::Len) return std::nullopt;
          has_metadata = true;
          return each_field(x.bytes, x.payload_offset, [&](const Field& m) -> Status {
            if (m.number == 1 && m.type == WireType::Len)
              return each_field(m.bytes, m.payload_offset, [&](const Field& p) -> Status {
                if (p.number == 1 && p.type == WireType::Len) v.plugin = field_text(p);
                return std::nullopt;
              });
            return std::nullopt;
          });
        }
        MSDT_CHECK(expect_field(x, WireType::Len, "Value.histogram"));
        content = true;
        v.kind = ValueKind::Histogram;
        return decode_ms_histogram(x.bytes, x.payload_offset, v.histogram.edit());
      case 10:
        if (dialect != Dialect::MindSpore) return std::nullopt;
        MSDT_CHECK(expect_field(x, WireType::Len, "Value.loss_landscape"));
        content = true;
        v.kind = ValueKind::Landscape;
        return decode_landscape(x.bytes, x.payload_offset, v.landscape.edit());
      default:
        return std::nullopt;
    }
  }));
  if (dialect == Dialect::TensorFlow) {
    if (has_metadata) {
      plugins[v.tag] = v.plugin;
    } else if (auto it = plugins.find(v.tag); it != plugins.end()) {
      v.plugin = it->second;
    }
    if (v.kind == ValueKind::Tensor) interpret_tf_tensor(v);
  }
  return std::nullopt;
}

}  // namespace

Expected<Event> EventDecoder::decode(Bytes payload, uint64_t base, const DecodeOptions& options) {
  Event e;
  MSDT_CHECK(decode_into(payload, base, options, e));
  return e;
}

Status EventDecoder::decode_into(Bytes payload, uint64_t base, const DecodeOptions& options,
                                 Event& e) {
  e.offset = base;
  e.wall_time = 0;
  e.step.reset();
  e.kind = dialect_ == Dialect::Lineage ? EventKind::Lineage : EventKind::Other;
  e.version.clear();
  e.graph = {};
  e.graph_offset = 0;
  if (!e.detail.is_null()) e.detail = nullptr;
  // The values already in `e` are reused in place, their strings' memory with them.
  size_t used = 0;
  auto next_value = [&]() -> Value& {
    if (used < e.values.size()) {
      Value& v = e.values[used++];
      v.clear_content();  // the tag: decode_value's
      return v;
    }
    ++used;
    return e.values.emplace_back();
  };
  if (dialect_ == Dialect::MindSpore && options.values) {
    if (read_common_event(payload, e, next_value)) {
      e.values.resize(used);
      return std::nullopt;
    }
    used = 0;
  }
  MSDT_CHECK_FIELDS(each_field(payload, base, [&](const Field& f) -> Status {
    switch (f.number) {
      case 1:
        MSDT_CHECK(expect_field(f, WireType::Fixed64, "Event.wall_time"));
        e.wall_time = as_double(f);
        return std::nullopt;
      case 2:
        MSDT_CHECK(expect_field(f, WireType::Varint, "Event.step"));
        e.step = static_cast<int64_t>(f.value);
        return std::nullopt;
      case 3:
        MSDT_CHECK(expect_field(f, WireType::Len, "Event.version"));
        e.kind = EventKind::Version;
        e.version = escape_invalid_utf8(field_text(f));
        return std::nullopt;
      default:
        break;
    }
    if (dialect_ == Dialect::Lineage) {
      static const std::pair<uint32_t, std::pair<std::string_view, const MessageSpec*>> kParts[] = {
          {6, {"train_lineage", &kTrainLineage}},
          {7, {"evaluation_lineage", &kEvalLineage}},
          {9, {"dataset_graph", &kDatasetGraph}},
          {10, {"user_defined_info", &kUserDefined}}};
      for (const auto& [number, part] : kParts) {
        if (number != f.number) continue;
        MSDT_CHECK(expect_field(f, WireType::Len, "LineageEvent." + std::string(part.first)));
        MSDT_TRY(e.detail[std::string(part.first)],
                 message_json(f.bytes, f.payload_offset, *part.second, 0));
      }
      return std::nullopt;
    }
    if (dialect_ == Dialect::TensorFlow) {
      switch (f.number) {
        case 4:
          MSDT_CHECK(expect_field(f, WireType::Len, "Event.graph_def"));
          e.kind = EventKind::Graph;
          e.graph = f.bytes;
          e.graph_offset = f.payload_offset;
          return std::nullopt;
        case 5:
          break;
        case 6:
        case 7:
        case 8: {
          const MessageSpec& spec = f.number == 6   ? kLogMessage
                                    : f.number == 7 ? kSessionLog
                                                    : kTaggedRunMetadata;
          std::string key = f.number == 6   ? "log_message"
                            : f.number == 7 ? "session_log"
                                            : "tagged_run_metadata";
          if (f.type != WireType::Len) return std::nullopt;
          MSDT_TRY(e.detail[key], message_json(f.bytes, f.payload_offset, spec, 0));
          if (e.kind != EventKind::Version) e.kind = EventKind::Other;
          return std::nullopt;
        }
        case 9:
          e.detail["meta_graph_def"] = f.bytes.size();
          return std::nullopt;
        default:
          return std::nullopt;
      }
    } else {
      switch (f.number) {
        case 4:
          MSDT_CHECK(expect_field(f, WireType::Len, "Event.graph_def"));
          e.kind = EventKind::Graph;
          e.graph = f.bytes;
          e.graph_offset = f.payload_offset;
          return std::nullopt;
        case 5:
          break;
        case 6:
          MSDT_CHECK(expect_field(f, WireType::Len, "Event.explain"));
          if (!explain_file_ && looks_like_train_lineage(f.bytes)) {
            e.kind = EventKind::Lineage;
            MSDT_TRY(e.detail["train_lineage"],
                     message_json(f.bytes, f.payload_offset, kTrainLineage, 0));
          } else {
            e.kind = EventKind::Explain;
            MSDT_TRY(e.detail["explain"], message_json(f.bytes, f.payload_offset, kExplain, 0));
          }
          return std::nullopt;
        case 7:
        case 9: {  // 0.1-era lineage inside summary files
          MSDT_CHECK(expect_field(f, WireType::Len, "Event lineage"));
          e.kind = EventKind::Lineage;
          if (f.number == 7) {
            MSDT_TRY(e.detail["evaluation_lineage"],
                     message_json(f.bytes, f.payload_offset, kEvalLineage, 0));
          } else {
            MSDT_TRY(e.detail["dataset_graph"],
                     message_json(f.bytes, f.payload_offset, kDatasetGraph, 0));
          }
          return std::nullopt;
        }
        default:
          return std::nullopt;
      }
    }
    // Field 5: the summary.
    MSDT_CHECK(expect_field(f, WireType::Len, "Event.summary"));
    e.kind = EventKind::Summary;
    if (!options.values) return std::nullopt;
    // Room for every value at once in a new event: a Value is large, and moving the ones already
    // decoded each time the vector grows costs more than this count. An event being reused has
    // its room already.
    if (e.values.capacity() == 0) {
      size_t count = 0;
      (void)each_field(f.bytes, f.payload_offset, [&](const Field& v) -> Status {
        count += v.number == 1;
        return std::nullopt;
      });
      e.values.reserve(count);
    }
    return each_field(f.bytes, f.payload_offset, [&](const Field& v) -> Status {
      if (v.number != 1) return std::nullopt;
      MSDT_CHECK(expect_field(v, WireType::Len, "Summary.value"));
      Value& value = next_value();
      bool content = false;
      if (auto s = decode_value(v, dialect_, plugin_by_tag_, value, content))
        return std::move(*s).with_context(
            value.tag.empty() ? std::string("value")
                              : fmt::format("value {}", quote_for_message(value.tag)));
      if (!content) --used;  // nothing we read: an unknown kind is skipped
      return std::nullopt;
    });
  }));
  // proto3 leaves a zero step out: TensorFlow's readers take an absent step as 0.
  if (dialect_ == Dialect::TensorFlow && !e.step && e.kind != EventKind::Version) e.step = 0;
  // Lineage and explain records are listed among the values, a part each.
  if (options.values && (e.kind == EventKind::Lineage || e.kind == EventKind::Explain)) {
    for (const auto& [key, part] : e.detail.items()) {
      Value& v = next_value();
      v.tag = key;
      v.raw_tag.clear();
      v.kind = e.kind == EventKind::Explain ? ValueKind::Explain : ValueKind::Lineage;
      v.record.edit() = part;
    }
  }
  e.values.resize(used);
  return std::nullopt;
}

bool RepeatedShape::take(Bytes payload) {
  const auto* p = reinterpret_cast<const uint8_t*>(payload.data());
  uint64_t step = 0;
  size_t step_end = 0;
  // Walked twice: the shape taken before stays until this one is known to be common.
  if (!walk_common_event(payload, step, step_end, [&](size_t at, size_t length) {
        return common_scalar_float(p + at, length) != 0;
      }))
    return false;
  mask_.assign(payload.size(), 0xFF);
  walk_common_event(payload, step, step_end, [&](size_t at, size_t length) {
    std::fill_n(mask_.begin() + static_cast<ptrdiff_t>(at + common_scalar_float(p + at, length)), 4,
                0);
    return true;
  });
  std::fill_n(mask_.begin() + 1, 8, 0);  // wall_time
  std::fill(mask_.begin() + 10, mask_.begin() + static_cast<ptrdiff_t>(step_end), 0);
  bytes_.assign(p, p + payload.size());
  step_end_ = step_end;
  return true;
}

bool RepeatedShape::matches(Bytes payload, int64_t& step) const {
  const size_t n = payload.size();
  if (n != bytes_.size() || n == 0) return false;
  const std::byte* p = payload.data();
  const auto* b = reinterpret_cast<const std::byte*>(bytes_.data());
  const auto* m = reinterpret_cast<const std::byte*>(mask_.data());
  // Every byte compared, without an early exit; 16 at a time, the last 16 overlapping the ones
  // before (comparing a byte twice changes nothing).
  size_t i = 0;
#if defined(__SSE2__)
  if (n >= 16) {
    auto load = [](const std::byte* at) {
      return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    };
    __m128i differ = _mm_setzero_si128();
    for (; i + 16 <= n; i += 16)
      differ =
          _mm_or_si128(differ, _mm_and_si128(_mm_xor_si128(load(p + i), load(b + i)), load(m + i)));
    const size_t last = n - 16;
    differ = _mm_or_si128(
        differ, _mm_and_si128(_mm_xor_si128(load(p + last), load(b + last)), load(m + last)));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(differ, _mm_setzero_si128())) != 0xFFFF) return false;
    i = n;
  }
#endif
  uint64_t differ = 0;
  for (; i + 8 <= n; i += 8) differ |= (load_u64le(p + i) ^ load_u64le(b + i)) & load_u64le(m + i);
  for (; i < n; ++i) differ |= static_cast<uint64_t>((p[i] ^ b[i]) & m[i]);
  if (differ) return false;
  // The step's varint must have the same width: it ends where the taken one does.
  size_t at = 10;
  uint64_t value = 0;
  if (!proto::simple_varint(reinterpret_cast<const uint8_t*>(p), step_end_, at, value) ||
      at != step_end_)
    return false;
  step = static_cast<int64_t>(value);
  return true;
}

}  // namespace msdt::summary
