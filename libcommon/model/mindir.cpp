#include "model/mindir.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <set>

#include "io/directory.h"
#include "io/text.h"
#include "proto/wire_reader.h"
#include "tensor/dtype.h"

namespace msdt::model {
namespace {

using proto::Field;
using proto::field_text;
using proto::WireType;

// Nested attribute values: a bound, not a schema limit.
constexpr int kMaxDepth = 64;

std::string as_string(const Field& f) { return std::string(field_text(f)); }

// The field numbers of the two schemas where they differ (spec §4; ONNX's onnx.proto).
struct Schema {
  bool legacy = false;
  // TensorProto
  uint32_t float_data, int32_data, string_data, int64_data, name, raw_data, double_data,
      uint64_data, external_data;
  // GraphProto
  uint32_t weight, input, output;
};
constexpr Schema kMindIR{false, 3, 4, 5, 6, 7, 9, 10, 11, 12, 3, 5, 6};
constexpr Schema kOnnx{true, 4, 5, 6, 7, 8, 9, 10, 11, 13, 5, 11, 12};

constexpr std::array<std::string_view, 19> kDataTypes{
    "UNDEFINED", "FLOAT",      "UINT8",    "INT8",    "UINT16", "INT16",  "INT32",
    "INT64",     "STRING",     "BOOL",     "FLOAT16", "DOUBLE", "UINT32", "UINT64",
    "COMPLEX64", "COMPLEX128", "BFLOAT16", "FLOAT64", "QINT4X2"};

// AttributeType (spec §4.6), for values that carry a type but no value field.
constexpr std::array<std::string_view, 41> kAttributeTypes{"UNDEFINED",
                                                           "FLOAT",
                                                           "UINT8",
                                                           "INT8",
                                                           "UINT16",
                                                           "INT16",
                                                           "INT32",
                                                           "INT64",
                                                           "STRING",
                                                           "BOOL",
                                                           "FLOAT16",
                                                           "DOUBLE",
                                                           "UINT32",
                                                           "UINT64",
                                                           "COMPLEX64",
                                                           "COMPLEX128",
                                                           "BFLOAT16",
                                                           "TENSOR",
                                                           "GRAPH",
                                                           "TENSORS",
                                                           "TUPLE",
                                                           "LIST",
                                                           "DICT",
                                                           "UMONAD",
                                                           "IOMONAD",
                                                           "NONE",
                                                           "PRIMITIVECLOSURE",
                                                           "FUNCGRAPHCLOSURE",
                                                           "PARTIALCLOSURE",
                                                           "UNIONFUNCCLOSURE",
                                                           "CSR_TENSOR",
                                                           "COO_TENSOR",
                                                           "ROW_TENSOR",
                                                           "CLASS_TYPE",
                                                           "NAME_SPACE",
                                                           "SYMBOL",
                                                           "TYPE_NULL",
                                                           "MAP_TENSOR",
                                                           "FUNCTOR",
                                                           "SCALAR",
                                                           "SCALAR_GRAPH_HOLDER"};

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

std::string quoted(std::string_view text) { return "\"" + escape_invalid_utf8(text) + "\""; }

// The walk of one message. A length beyond the enclosing message is reported once per end (the
// same cut shows in every enclosing message) and the bytes that are there are visited as that
// field, so a truncated file still yields what it holds.
class Decoder {
 public:
  Decoder(const Schema& schema, uint64_t file_end, std::vector<Error>& problems)
      : schema_(schema), file_end_(file_end), problems_(problems) {}

  const Schema& schema() const { return schema_; }

  void problem(uint64_t at, std::string message) {
    problems_.push_back(Error::at_offset(at, std::move(message)));
  }

  // Whether `f` has the wire type `type`; reports it when not.
  bool want(const Field& f, WireType type, std::string_view context, std::string_view what) {
    if (f.type == type) return true;
    Error e = proto::wrong_field_type(f, type, what);
    if (!context.empty()) e.context(context);
    problems_.push_back(std::move(e));
    return false;
  }

  template <class Visit>
  void walk(Bytes message, uint64_t base, std::string_view context, Visit&& visit) {
    proto::WireReader reader(message, base);
    Field field;
    while (true) {
      if (!reader.next_simple(field)) {
        if (reader.at_end()) return;
        const uint64_t at = reader.offset();
        auto next = reader.next();
        if (!next) {
          salvage(message, base, at, context, std::move(next).error(), visit);
          return;
        }
        if (!*next) return;
        field = **next;
      }
      visit(field);
    }
  }

 private:
  template <class Visit>
  void salvage(Bytes message, uint64_t base, uint64_t at, std::string_view context, Error error,
               Visit& visit) {
    const uint64_t end = base + message.size();
    ByteReader in(message.subspan(at - base), at);
    auto key = proto::read_varint(in);
    if (key && (*key & 7) == 2 && (*key >> 3) != 0 && (*key >> 3) <= 0x1FFFFFFF) {
      auto length = proto::read_varint(in);
      if (length && *length > in.remaining()) {
        if (end != reported_end_) {
          reported_end_ = end;
          problem(at, fmt::format("{}{}field {}: length {} goes past the end of the {} ({} bytes "
                                  "left)",
                                  context, context.empty() ? "" : ": ", *key >> 3, *length,
                                  end == file_end_ ? "file" : "message", in.remaining()));
        }
        Field cut;
        cut.number = static_cast<uint32_t>(*key >> 3);
        cut.type = WireType::Len;
        cut.bytes = in.rest();
        cut.offset = at;
        cut.payload_offset = in.offset();
        visit(cut);
        return;
      }
    }
    if (end == reported_end_) return;  // the cut already reported by an enclosing message
    reported_end_ = end;
    if (!context.empty()) error.context(context);
    problems_.push_back(std::move(error));
  }

  const Schema& schema_;
  uint64_t file_end_;
  uint64_t reported_end_ = std::numeric_limits<uint64_t>::max();
  std::vector<Error>& problems_;
};

std::string float_text(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, 4);
  return fmt::format("{}", v);
}
std::string double_text(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, 8);
  return fmt::format("{}", v);
}

// Packed or unpacked fixed-width values (floats, doubles) of one field.
void append_fixed(const Field& f, unsigned width, std::vector<uint64_t>& out) {
  if (f.type == (width == 4 ? WireType::Fixed32 : WireType::Fixed64)) {
    out.push_back(f.value);
    return;
  }
  if (f.type != WireType::Len) return;
  for (size_t i = 0; i + width <= f.bytes.size(); i += width)
    out.push_back(width == 4 ? load_u32le(f.bytes.data() + i) : load_u64le(f.bytes.data() + i));
}

// A TensorProto in an attribute: Tensor(shape=[2], dtype=INT64), and in `value` its elements as
// text when there are at most kShownValues of them (the 0.7-1.1 exporters hold scalars this way,
// in int32_data, int64_data, float_data, string_data or raw_data).
constexpr size_t kShownValues = 8;
struct TensorText {
  std::string text;
  std::string dtype;  // the DataType name
  std::optional<std::string> value;
  // Tensor(shape=[2], dtype=INT64, value=[1, 2]) when the value is shown.
  std::string full() const {
    if (!value) return text;
    return text.substr(0, text.size() - 1) + ", value=" + *value + ")";
  }
};

TensorText tensor_text(Decoder& d, const Field& f) {
  const Schema& s = d.schema();
  std::vector<uint64_t> dims, ints;
  std::vector<std::string> items;
  uint64_t data_type = 0;
  Bytes raw;
  bool has_raw = false;
  d.walk(f.bytes, f.payload_offset, "", [&](const Field& t) {
    if (t.number == 1) (void)proto::append_varints(t, dims);
    if (t.number == 2 && t.type == WireType::Varint) data_type = t.value;
    if (items.size() > kShownValues) return;
    if (t.number == s.int32_data || t.number == s.int64_data || t.number == s.uint64_data) {
      ints.clear();
      if (proto::append_varints(t, ints)) return;
      for (uint64_t v : ints)
        items.push_back(t.number == s.uint64_data ? std::to_string(v)
                        : t.number == s.int32_data
                            ? std::to_string(static_cast<int32_t>(static_cast<uint32_t>(v)))
                            : std::to_string(static_cast<int64_t>(v)));
    } else if (t.number == s.float_data || t.number == s.double_data) {
      std::vector<uint64_t> bits;
      const bool single = t.number == s.float_data;
      append_fixed(t, single ? 4 : 8, bits);
      for (uint64_t b : bits)
        items.push_back(single ? float_text(static_cast<uint32_t>(b)) : double_text(b));
    } else if (t.number == s.string_data && t.type == WireType::Len) {
      items.push_back(quoted(field_text(t)));
    } else if (t.number == s.raw_data && t.type == WireType::Len) {
      raw = t.bytes;
      has_raw = true;
    }
  });
  std::vector<std::string> shape;
  for (uint64_t v : dims) shape.push_back(std::to_string(static_cast<int64_t>(v)));
  TensorText out;
  out.dtype = mindir_data_type_name(data_type);
  out.text = fmt::format("Tensor(shape=[{}], dtype={})", join(shape), out.dtype);
  const auto dtype = mindir_dtype(data_type);
  if (has_raw && items.empty() && dtype && dtype_bits(*dtype) % 8 == 0 && *dtype != DType::String) {
    const unsigned width = dtype_bits(*dtype) / 8;
    const bool is_float = *dtype == DType::Float32 || *dtype == DType::Float64;
    if (raw.size() % width == 0 && raw.size() / width <= kShownValues &&
        (is_float || *dtype == DType::Bool || width <= 8) && *dtype != DType::Float16 &&
        *dtype != DType::BFloat16 && *dtype != DType::Complex64 && *dtype != DType::Complex128)
      for (size_t i = 0; i < raw.size(); i += width) {
        uint64_t v = 0;
        for (unsigned b = 0; b < width; ++b) v |= static_cast<uint64_t>(raw[i + b]) << (8 * b);
        const bool is_signed = *dtype == DType::Int8 || *dtype == DType::Int16 ||
                               *dtype == DType::Int32 || *dtype == DType::Int64;
        if (is_signed && width < 8 && (v >> (8 * width - 1)) != 0) v |= ~uint64_t{0} << (8 * width);
        items.push_back(*dtype == DType::Float32   ? float_text(static_cast<uint32_t>(v))
                        : *dtype == DType::Float64 ? double_text(v)
                        : *dtype == DType::Bool    ? (v ? "true" : "false")
                        : is_signed                ? std::to_string(static_cast<int64_t>(v))
                                                   : std::to_string(v));
      }
  }
  if (!items.empty() && items.size() <= kShownValues)
    out.value = items.size() == 1 && dims.empty() ? items.front() : "[" + join(items) + "]";
  return out;
}

std::string graph_ref(Decoder& d, const Field& f) {
  std::string name;
  d.walk(f.bytes, f.payload_offset, "", [&](const Field& g) {
    if (g.number == 2 && g.type == WireType::Len) name = as_string(g);
  });
  return "@" + name;
}

// An AttributeProto as text (see MindIRAttribute). mind_ir and ONNX number the fields
// differently; ONNX has no nested values and its `type` means something else, so only the
// fields are used there.
MindIRAttribute attribute_of(Decoder& d, const Field& field, std::string_view context, int depth) {
  MindIRAttribute out;
  if (depth > kMaxDepth) {
    d.problem(field.offset, fmt::format("{}: attribute values nested too deep", context));
    out.text = "…";
    return out;
  }
  const bool legacy = d.schema().legacy;
  std::vector<std::string> scalars, items;
  std::optional<uint64_t> type, integer;
  bool has_list = false;
  std::string ref;                  // ref_attr_name: "scalar:value0", "type:value0", "none", …
  std::vector<TensorText> tensors;  // `tensors`
  d.walk(field.bytes, field.payload_offset, context, [&](const Field& f) {
    // ONNX: 1 name, 2 f, 3 i, 4 s, 5 t, 6 g, 7 floats, 8 ints, 9 strings, 10 tensors, 11 graphs,
    // 21 ref_attr_name; its 20 `type` is another enum than mind_ir's 16 and is not read.
    const uint32_t n = !legacy          ? f.number
                       : f.number <= 3  ? f.number
                       : f.number <= 6  ? f.number + 1
                       : f.number == 7  ? 8
                       : f.number <= 11 ? f.number + 2
                       : f.number == 21 ? 15
                                        : 1000 + f.number;
    switch (n) {
      case 1:
        if (d.want(f, WireType::Len, context, "AttributeProto.name")) out.name = as_string(f);
        return;
      case 2:
        if (d.want(f, WireType::Fixed32, context, "AttributeProto.f"))
          scalars.push_back(float_text(static_cast<uint32_t>(f.value)));
        return;
      case 3:
        if (d.want(f, WireType::Varint, context, "AttributeProto.i")) {
          integer = f.value;
          scalars.push_back(std::to_string(static_cast<int64_t>(f.value)));
        }
        return;
      case 4:
        if (d.want(f, WireType::Fixed64, context, "AttributeProto.d"))
          scalars.push_back(double_text(f.value));
        return;
      case 5:
        if (d.want(f, WireType::Len, context, "AttributeProto.s"))
          scalars.push_back(quoted(field_text(f)));
        return;
      case 6:
        if (d.want(f, WireType::Len, context, "AttributeProto.t"))
          scalars.push_back(tensor_text(d, f).full());
        return;
      case 7:
        if (d.want(f, WireType::Len, context, "AttributeProto.g"))
          scalars.push_back(graph_ref(d, f));
        return;
      case 8:
      case 9: {
        has_list = true;
        std::vector<uint64_t> bits;
        append_fixed(f, n == 8 ? 4 : 8, bits);
        for (uint64_t b : bits)
          items.push_back(n == 8 ? float_text(static_cast<uint32_t>(b)) : double_text(b));
        return;
      }
      case 10: {
        has_list = true;
        std::vector<uint64_t> ints;
        if (auto e = proto::append_varints(f, ints))
          d.problem(f.offset, fmt::format("{}: AttributeProto.ints: {}", context, e->message));
        for (uint64_t v : ints) items.push_back(std::to_string(static_cast<int64_t>(v)));
        return;
      }
      case 11:
        has_list = true;
        if (d.want(f, WireType::Len, context, "AttributeProto.strings"))
          items.push_back(quoted(field_text(f)));
        return;
      case 12:
        has_list = true;
        if (d.want(f, WireType::Len, context, "AttributeProto.tensors"))
          tensors.push_back(tensor_text(d, f));
        return;
      case 13:
        has_list = true;
        if (d.want(f, WireType::Len, context, "AttributeProto.graphs"))
          items.push_back(graph_ref(d, f));
        return;
      case 15:
        if (d.want(f, WireType::Len, context, "AttributeProto.ref_attr_name")) ref = as_string(f);
        return;
      case 16:
        if (d.want(f, WireType::Varint, context, "AttributeProto.type")) type = f.value;
        return;
      case 17: {
        has_list = true;
        if (!d.want(f, WireType::Len, context, "AttributeProto.values")) return;
        MindIRAttribute inner = attribute_of(d, f, context, depth + 1);
        items.push_back(inner.name.empty() ? std::move(inner.text)
                                           : model::quoted(inner.name) + ": " + inner.text);
        return;
      }
      default:  // 14 doc_string; 18 type_val (1.5, varint) or seq_info (2.0+, message), spec §4.10;
                // 19 functor, 20 graph_holder; unknown fields
        return;
    }
  });
  // The 0.7-1.1 exporters hold values in `tensors` and say how to read them in ref_attr_name
  // ("scalar:value0", "type:value0", "tensor:value0", "none").
  const bool all_values = std::all_of(tensors.begin(), tensors.end(),
                                      [](const TensorText& t) { return t.value.has_value(); });
  auto tuple = [&](auto&& each) {
    std::vector<std::string> parts;
    for (const TensorText& t : tensors) parts.push_back(each(t));
    return parts.size() == 1 ? parts.front() : "(" + join(parts) + ")";
  };
  for (const TensorText& t : tensors) items.push_back(t.full());
  if (ref == "none") {
    out.text = "None";
  } else if (ref.starts_with("scalar:") && !tensors.empty() && all_values) {
    out.text = tuple([](const TensorText& t) { return *t.value; });
  } else if (ref.starts_with("type:") && !tensors.empty()) {
    out.text = tuple([](const TensorText& t) { return t.dtype; });
  } else if (!ref.empty() && tensors.size() == 1) {
    out.text = tensors.front().full();
  } else if (type == 22) {
    out.text = "{" + join(items) + "}";
  } else if (type == 20 || (has_list && type != 21 && items.size() != 1) ||
             (has_list && !type && legacy)) {
    out.text = "(" + join(items) + ")";
  } else if (type == 21) {
    out.text = "[" + join(items) + "]";
  } else if (type == 9 && integer) {
    out.text = *integer ? "true" : "false";
  } else if (type == 25) {
    out.text = "None";
  } else if (type == 23) {
    out.text = "U";
  } else if (type == 24) {
    out.text = "IO";
  } else if (!scalars.empty()) {
    out.text = scalars.front();
  } else if (!ref.empty() && !has_list) {
    out.text = "ref " + ref;
  } else if (has_list) {
    out.text = "(" + join(items) + ")";
  } else if (type && *type < kAttributeTypes.size()) {
    out.text = fmt::format("<{}>", kAttributeTypes[*type]);
  } else if (type) {
    out.text = fmt::format("<AttributeType {}>", *type);
  } else {
    out.text = "None";
  }
  return out;
}

std::string weight_context(const MindIRGraph& g, size_t index, std::string_view name) {
  return fmt::format("graph {} parameter {}{}", quote_for_message(g.name), index,
                     name.empty() ? "" : " " + quote_for_message(name));
}

// The typed field a storage reads, with the width of one stored value (0: varints).
struct TypedField {
  MindIRStorage storage;
  unsigned width;
};

// Fills `w` from a TensorProto (GraphProto.parameter / initializer) in `graph`.
void read_weight(Decoder& d, const Field& field, MindIRGraph& graph, size_t graph_index,
                 size_t index_in_graph, MindIRWeight& w) {
  const Schema& s = d.schema();
  w.graph = graph_index;
  w.offset = field.offset;
  w.message = {field.payload_offset, field.bytes.size()};
  w.legacy = s.legacy;
  std::vector<uint64_t> dims;
  bool has_raw = false, has_external = false;
  Segment raw;
  std::optional<std::string> ext_location;
  std::optional<int64_t> ext_offset, ext_length;
  // Typed fields in the order of the first occurrence of each.
  std::vector<MindIRStorage> typed_order;
  std::array<std::vector<Segment>, 16> typed_segments;
  std::array<uint64_t, 16> typed_values{};
  const std::string context = weight_context(graph, index_in_graph, "");
  auto typed = [&](const Field& f, MindIRStorage storage, unsigned width) {
    const auto k = static_cast<size_t>(storage);
    if (std::find(typed_order.begin(), typed_order.end(), storage) == typed_order.end())
      typed_order.push_back(storage);
    if (f.type == WireType::Len) {
      typed_segments[k].push_back({f.payload_offset, f.bytes.size()});
      if (storage == MindIRStorage::StringData) {
        ++typed_values[k];
      } else if (width != 0) {
        typed_values[k] += f.bytes.size() / width;
        if (f.bytes.size() % width != 0)
          d.problem(f.offset, fmt::format("{}: packed field {} of {} bytes is not whole {}-byte "
                                          "values",
                                          context, f.number, f.bytes.size(), width));
      } else {
        for (std::byte b : f.bytes) typed_values[k] += (static_cast<uint8_t>(b) & 0x80) == 0;
      }
    } else if ((width == 0 && f.type == WireType::Varint) ||
               (width == 4 && f.type == WireType::Fixed32) ||
               (width == 8 && f.type == WireType::Fixed64)) {
      ++typed_values[k];
    } else {
      d.problem(f.offset, fmt::format("{}: field {} has wire type {}", context, f.number,
                                      static_cast<int>(f.type)));
    }
  };
  d.walk(field.bytes, field.payload_offset, context, [&](const Field& f) {
    const uint32_t n = f.number;
    if (n == 1) {
      if (auto e = proto::append_varints(f, dims))
        d.problem(f.offset, fmt::format("{}: dims: {}", context, e->message));
    } else if (n == 2) {
      if (d.want(f, WireType::Varint, context, "TensorProto.data_type")) w.data_type = f.value;
    } else if (n == s.name) {
      if (d.want(f, WireType::Len, context, "TensorProto.name")) w.name = as_string(f);
    } else if (n == s.raw_data) {
      if (d.want(f, WireType::Len, context, "TensorProto.raw_data")) {
        has_raw = true;
        raw = {f.payload_offset, f.bytes.size()};
      }
    } else if (n == s.float_data) {
      typed(f, MindIRStorage::FloatData, 4);
    } else if (n == s.int32_data) {
      typed(f, MindIRStorage::Int32Data, 0);
    } else if (n == s.int64_data) {
      typed(f, MindIRStorage::Int64Data, 0);
    } else if (n == s.double_data) {
      typed(f, MindIRStorage::DoubleData, 8);
    } else if (n == s.uint64_data) {
      typed(f, MindIRStorage::Uint64Data, 0);
    } else if (n == s.string_data) {
      if (d.want(f, WireType::Len, context, "TensorProto.string_data"))
        typed(f, MindIRStorage::StringData, 0);
    } else if (n == s.external_data) {
      if (!d.want(f, WireType::Len, context, "TensorProto.external_data")) return;
      has_external = true;
      if (!s.legacy) {
        d.walk(f.bytes, f.payload_offset, context, [&](const Field& e) {
          // 4 checksum (1.6-2.1) is skipped (spec §4.10).
          if (e.number == 1 && d.want(e, WireType::Len, context, "ExternalDataProto.location"))
            ext_location = as_string(e);
          if (e.number == 2 && d.want(e, WireType::Varint, context, "ExternalDataProto.offset"))
            ext_offset = static_cast<int64_t>(e.value);
          if (e.number == 3 && d.want(e, WireType::Varint, context, "ExternalDataProto.length"))
            ext_length = static_cast<int64_t>(e.value);
        });
      } else {  // ONNX: repeated StringStringEntryProto {1 key, 2 value}
        std::string key, value;
        d.walk(f.bytes, f.payload_offset, context, [&](const Field& e) {
          if (e.number == 1 && e.type == WireType::Len) key = as_string(e);
          if (e.number == 2 && e.type == WireType::Len) value = as_string(e);
        });
        if (key == "location") ext_location = value;
        auto number = parse_unsigned<uint64_t>(value);
        if (key == "offset" && number) ext_offset = static_cast<int64_t>(*number);
        if (key == "length" && number) ext_length = static_cast<int64_t>(*number);
      }
    } else if (!s.legacy && n == 13) {
      if (d.want(f, WireType::Len, context, "TensorProto.ref_key")) w.ref_key = as_string(f);
    } else if (!s.legacy && n == 16) {
      if (d.want(f, WireType::Varint, context, "TensorProto.compression_type"))
        w.compression = f.value;
    } else if (!s.legacy && n == 17) {
      if (!d.want(f, WireType::Len, context, "TensorProto.quant_params")) return;
      std::string algo;
      d.walk(f.bytes, f.payload_offset, context, [&](const Field& q) {
        if (q.number == 1 && q.type == WireType::Len) algo = as_string(q);
      });
      w.quantization.push_back(std::move(algo));
    }
  });

  const std::string named = weight_context(graph, index_in_graph, w.name);
  Content& c = w.content;
  c.spelling = mindir_data_type_name(w.data_type);
  c.dtype = mindir_dtype(w.data_type);
  bool dims_ok = true;
  for (size_t i = 0; i < dims.size(); ++i)
    if (static_cast<int64_t>(dims[i]) < 0) {
      d.problem(w.offset, fmt::format("{}: dims[{}] is negative ({})", named, i,
                                      static_cast<int64_t>(dims[i])));
      dims_ok = false;
    }
  c.dims = dims;
  c.shape = dims;
  if (has_raw) {  // raw_data first, as the loader prefers it (spec §5.3)
    w.storage = MindIRStorage::RawData;
    c.segments.push_back(raw);
  } else if (has_external) {
    w.storage = MindIRStorage::External;
    w.data_file = ext_location.value_or("");
    w.external_offset = ext_offset.value_or(0);
    w.external_length = ext_length.value_or(0);
    if (!ext_location)
      d.problem(w.offset, fmt::format("{}: external_data without a location", named));
    if (w.external_offset < 0 || w.external_length < 0)
      d.problem(w.offset, fmt::format("{}: external_data offset {} length {}: negative", named,
                                      w.external_offset, w.external_length));
    else
      c.segments.push_back(
          {static_cast<uint64_t>(w.external_offset), static_cast<uint64_t>(w.external_length)});
  } else if (!typed_order.empty()) {
    w.storage = typed_order.front();
    const auto k = static_cast<size_t>(w.storage);
    c.segments = typed_segments[k];
    w.values = typed_values[k];
    if (typed_order.size() > 1)
      d.problem(w.offset, fmt::format("{}: several typed data fields; {} is read", named,
                                      mindir_storage_name(w.storage)));
  }
  if (!c.dtype || *c.dtype == DType::String || !dims_ok) return;
  if (Status overflow = set_expected_bytes(c)) {
    d.problem(w.offset, fmt::format("{}: {}", named, overflow->message));
    return;
  }
  const uint64_t count = c.elements();
  if (w.compression != 0 || w.storage == MindIRStorage::None) return;
  if (w.storage == MindIRStorage::RawData || w.storage == MindIRStorage::External) {
    if (!c.consistent())
      d.problem(w.offset,
                fmt::format("{}: {} holds {} bytes, dims {} {} need {}", named, w.storage_word(),
                            c.bytes(), dims_text(c.dims), c.spelling, *c.expected_bytes));
    return;
  }
  if (w.storage == MindIRStorage::StringData) return;
  const bool complex = *c.dtype == DType::Complex64 || *c.dtype == DType::Complex128;
  const uint64_t need = complex ? count * 2 : count;
  if (w.values != need)
    d.problem(w.offset,
              fmt::format("{}: {} holds {} values, dims {} {} need {}", named, w.storage_word(),
                          w.values, dims_text(c.dims), c.spelling, need));
}

void read_value_info(Decoder& d, const Field& field, std::string_view context,
                     MindIRValueInfo& out) {
  const bool legacy = d.schema().legacy;
  bool have_tensor = false;
  d.walk(field.bytes, field.payload_offset, context, [&](const Field& f) {
    if (f.number == 1 && d.want(f, WireType::Len, context, "ValueInfoProto.name"))
      out.name = as_string(f);
    if (f.number != 2 || f.type != WireType::Len || have_tensor) return;
    have_tensor = true;
    if (!legacy) {  // the first TensorProto: dims, data_type
      d.walk(f.bytes, f.payload_offset, context, [&](const Field& t) {
        std::vector<uint64_t> dims;
        if (t.number == 1 && !proto::append_varints(t, dims))
          for (uint64_t v : dims) out.dims.push_back(static_cast<int64_t>(v));
        if (t.number == 2 && t.type == WireType::Varint) out.data_type = t.value;
      });
      return;
    }
    // ONNX TypeProto {1 tensor_type {1 elem_type, 2 shape {1 dim {1 dim_value, 2 dim_param}}}}
    d.walk(f.bytes, f.payload_offset, context, [&](const Field& type) {
      if (type.number != 1 || type.type != WireType::Len) return;
      d.walk(type.bytes, type.payload_offset, context, [&](const Field& t) {
        if (t.number == 1 && t.type == WireType::Varint) out.data_type = t.value;
        if (t.number != 2 || t.type != WireType::Len) return;
        d.walk(t.bytes, t.payload_offset, context, [&](const Field& dim) {
          if (dim.number != 1 || dim.type != WireType::Len) return;
          int64_t size = -1;
          d.walk(dim.bytes, dim.payload_offset, context, [&](const Field& v) {
            if (v.number == 1 && v.type == WireType::Varint) size = static_cast<int64_t>(v.value);
          });
          out.dims.push_back(size);
        });
      });
    });
  });
}

void read_node(Decoder& d, const Field& field, std::string_view context, MindIRNode& node) {
  node.offset = field.offset;
  d.walk(field.bytes, field.payload_offset, context, [&](const Field& f) {
    switch (f.number) {
      case 1:
        if (d.want(f, WireType::Len, context, "NodeProto.input"))
          node.inputs.push_back(as_string(f));
        return;
      case 2:
        if (d.want(f, WireType::Len, context, "NodeProto.output"))
          node.outputs.push_back(as_string(f));
        return;
      case 3:
        if (d.want(f, WireType::Len, context, "NodeProto.name")) node.name = as_string(f);
        return;
      case 4:
        if (d.want(f, WireType::Len, context, "NodeProto.op_type")) node.op_type = as_string(f);
        return;
      case 5:
      case 8:
      case 9:
        if (f.number != 5 && d.schema().legacy) return;
        if (d.want(f, WireType::Len, context, "NodeProto.attribute"))
          node.attributes.push_back(attribute_of(d, f, context, 0));
        return;
      case 7:
        if (d.want(f, WireType::Len, context, "NodeProto.domain")) node.domain = as_string(f);
        return;
      default:
        return;
    }
  });
}

void read_graph(Decoder& d, const Field& field, bool is_function, MindIR& model,
                std::string_view prefix = {}) {
  const Schema& s = d.schema();
  const size_t graph_index = model.graphs.size();
  model.graphs.emplace_back();
  model.graphs.back().is_function = is_function;
  model.graphs.back().offset = field.offset;
  // The name may follow the nodes in a hand-made file; messages use it when it came first.
  std::string context = fmt::format("{}{} {}", prefix, is_function ? "function" : "graph",
                                    is_function ? graph_index : 0);
  size_t weights = 0;
  d.walk(field.bytes, field.payload_offset, context, [&](const Field& f) {
    MindIRGraph& g = model.graphs[graph_index];
    if (f.number == 2) {
      if (d.want(f, WireType::Len, context, "GraphProto.name")) {
        g.name = as_string(f);
        context = fmt::format("{}{} {}", prefix, is_function ? "function" : "graph",
                              quote_for_message(g.name));
      }
    } else if (f.number == 1) {
      if (!d.want(f, WireType::Len, context, "GraphProto.node")) return;
      read_node(d, f, fmt::format("{} node {}", context, g.nodes.size()), g.nodes.emplace_back());
    } else if (f.number == s.weight) {
      if (!d.want(f, WireType::Len, context, "GraphProto.parameter")) return;
      MindIRWeight w;
      read_weight(d, f, g, graph_index, weights++, w);
      g.weights.push_back(model.weights.size());
      model.weights.push_back(std::move(w));
    } else if (f.number == s.input || f.number == s.output) {
      if (!d.want(f, WireType::Len, context, "GraphProto.input")) return;
      auto& list = f.number == s.input ? g.inputs : g.outputs;
      read_value_info(d, f, context, list.emplace_back());
    } else if (!s.legacy && f.number == 8) {
      if (d.want(f, WireType::Len, context, "GraphProto.attribute"))
        g.attributes.push_back(attribute_of(d, f, context, 0));
    } else if (!s.legacy && f.number == 10) {
      ++g.map_parameters;
    }
  });
}

void read_primitive(Decoder& d, const Field& field, MindIRPrimitive& p, size_t index) {
  p.offset = field.offset;
  const std::string context = fmt::format("primitive {}", index);
  d.walk(field.bytes, field.payload_offset, context, [&](const Field& f) {
    if (f.number == 1 && d.want(f, WireType::Len, context, "PrimitiveProto.name"))
      p.name = as_string(f);
    if (f.number == 2 && d.want(f, WireType::Len, context, "PrimitiveProto.op_type"))
      p.op_type = as_string(f);
    if (f.number == 3 && d.want(f, WireType::Len, context, "PrimitiveProto.attribute"))
      p.attributes.push_back(attribute_of(d, f, context, 0));
    if (f.number == 4 && d.want(f, WireType::Len, context, "PrimitiveProto.instance_name"))
      p.instance_name = as_string(f);
    if (f.number == 5 && d.want(f, WireType::Varint, context, "PrimitiveProto.prim_type"))
      p.prim_type = f.value;
  });
}

// PreprocessorProto {1 repeated PreprocessOpProto {1-5 strings, 6 bool}} or, in 1.5, JSON text
// (spec §4.10): the message decode is tried strictly, and anything else is text.
void read_preprocessor(const Field& f, MindIR& model) {
  model.has_preprocessor = true;
  uint64_t ops = 0;
  Status strict = proto::each_field(f.bytes, f.payload_offset, [&](const Field& op) -> Status {
    if (op.number != 1 || op.type != WireType::Len) return Error("not a PreprocessorProto");
    ++ops;
    return proto::each_field(op.bytes, op.payload_offset, [&](const Field& x) -> Status {
      if ((x.number >= 1 && x.number <= 5 && x.type == WireType::Len) ||
          (x.number == 6 && x.type == WireType::Varint))
        return std::nullopt;
      return Error("not a PreprocessOpProto");
    });
  });
  model.preprocessor_is_text = strict.has_value() || (ops == 0 && !f.bytes.empty());
  model.preprocessor_ops = model.preprocessor_is_text ? 0 : ops;
}

Error chunk_problem(Error e, std::string_view relative) {
  return std::move(e).with_context(fmt::format("data file {}", quote_for_message(relative)));
}

bool is_legacy(Bytes file) {
  // mind_ir's first field is ir_version, a string; ONNX's is a varint (spec §2).
  return !file.empty() && static_cast<uint8_t>(file[0]) == 0x08;
}

}  // namespace

std::string_view mindir_generation_name(MindIRGeneration generation) {
  return generation == MindIRGeneration::MindIR ? "mind_ir" : "legacy-onnx";
}

std::string mindir_data_type_name(uint64_t value) {
  if (value < kDataTypes.size()) return std::string(kDataTypes[value]);
  return std::to_string(value);
}

std::optional<DType> mindir_dtype(uint64_t value) {
  switch (value) {
    case 1:
      return DType::Float32;
    case 2:
      return DType::UInt8;
    case 3:
      return DType::Int8;
    case 4:
      return DType::UInt16;
    case 5:
      return DType::Int16;
    case 6:
      return DType::Int32;
    case 7:
      return DType::Int64;
    case 8:
      return DType::String;
    case 9:
      return DType::Bool;
    case 10:
      return DType::Float16;
    case 11:
      return DType::Float64;
    case 12:
      return DType::UInt32;
    case 13:
      return DType::UInt64;
    case 14:
      return DType::Complex64;
    case 15:
      return DType::Complex128;
    case 16:
      return DType::BFloat16;
    case 17:
      return DType::Float64;
    case 18:
      return DType::Int4;
    default:
      return std::nullopt;
  }
}

std::string MindIRWeight::storage_word() const {
  if (compression != 0) return "compressed";
  if (!quantization.empty()) return "quantized";
  return std::string(mindir_storage_name(storage));
}

std::string_view mindir_storage_name(MindIRStorage storage) {
  switch (storage) {
    case MindIRStorage::None:
      return "none";
    case MindIRStorage::RawData:
      return "raw_data";
    case MindIRStorage::External:
      return "external";
    case MindIRStorage::GraphChunk:
      return "graph_chunk";
    case MindIRStorage::FloatData:
      return "float_data";
    case MindIRStorage::Int32Data:
      return "int32_data";
    case MindIRStorage::Int64Data:
      return "int64_data";
    case MindIRStorage::DoubleData:
      return "double_data";
    case MindIRStorage::Uint64Data:
      return "uint64_data";
    case MindIRStorage::StringData:
      break;
  }
  return "string_data";
}

const MindIRGraph* MindIR::main_graph() const {
  for (const MindIRGraph& g : graphs)
    if (!g.is_function) return &g;
  return nullptr;
}

std::vector<std::string> MindIR::data_files() const {
  std::vector<std::string> out;
  std::set<std::string_view> seen;
  for (const MindIRWeight& w : weights)
    if (!w.data_file.empty() && seen.insert(w.data_file).second) out.push_back(w.data_file);
  return out;
}

MindIR read_mindir(Bytes file) {
  MindIR model;
  model.file_size = file.size();
  model.generation = is_legacy(file) ? MindIRGeneration::LegacyOnnx : MindIRGeneration::MindIR;
  const bool legacy = model.generation == MindIRGeneration::LegacyOnnx;
  Decoder d(legacy ? kOnnx : kMindIR, file.size(), model.problems);
  auto text_or_number = [&](const Field& f, std::optional<std::string>& out, const char* what) {
    if (legacy && f.type == WireType::Varint)
      out = std::to_string(static_cast<int64_t>(f.value));
    else if (d.want(f, WireType::Len, "ModelProto", what))
      out = as_string(f);
  };
  d.walk(file, 0, "ModelProto", [&](const Field& f) {
    switch (f.number) {
      case 1:
        text_or_number(f, model.ir_version, "ir_version");
        return;
      case 2:
        text_or_number(f, model.producer_name, "producer_name");
        return;
      case 3:
        text_or_number(f, model.producer_version, "producer_version");
        return;
      case 4:
        text_or_number(f, model.domain, "domain");
        return;
      case 5:
        text_or_number(f, model.model_version, "model_version");
        return;
      case 6:
        text_or_number(f, model.doc_string, "doc_string");
        return;
      case 7:
        if (d.want(f, WireType::Len, "ModelProto", "graph")) read_graph(d, f, false, model);
        return;
      default:
        break;
    }
    if (legacy) {
      if (f.number == 8 && d.want(f, WireType::Len, "ModelProto", "opset_import")) {
        std::string domain;
        int64_t version = 0;
        d.walk(f.bytes, f.payload_offset, "opset_import", [&](const Field& o) {
          if (o.number == 1 && o.type == WireType::Len) domain = as_string(o);
          if (o.number == 2 && o.type == WireType::Varint) version = static_cast<int64_t>(o.value);
        });
        model.opset_import.emplace_back(std::move(domain), version);
      }
      return;
    }
    switch (f.number) {
      case 8:
        if (d.want(f, WireType::Len, "ModelProto", "functions")) read_graph(d, f, true, model);
        return;
      case 9:
        if (d.want(f, WireType::Len, "ModelProto", "preprocessor")) read_preprocessor(f, model);
        return;
      case 10:
        if (d.want(f, WireType::Varint, "ModelProto", "little_endian"))
          model.little_endian = f.value != 0;
        return;
      case 11:
        if (!d.want(f, WireType::Len, "ModelProto", "parallel")) return;
        model.has_parallel = true;
        d.walk(f.bytes, f.payload_offset, "parallel",
               [&](const Field& l) { model.parallel_layouts += l.number == 1; });
        return;
      case 12:
        if (d.want(f, WireType::Len, "ModelProto", "primitives"))
          read_primitive(d, f, model.primitives.emplace_back(), model.primitives.size());
        return;
      case 13:
        if (d.want(f, WireType::Varint, "ModelProto", "mind_ir_version"))
          model.mind_ir_version = static_cast<int64_t>(f.value);
        return;
      case 14: {
        if (!d.want(f, WireType::Len, "ModelProto", "user_info")) return;
        std::string key, value;
        d.walk(f.bytes, f.payload_offset, "user_info", [&](const Field& kv) {
          if (kv.number == 1 && kv.type == WireType::Len) key = as_string(kv);
          if (kv.number == 2 && kv.type == WireType::Len) value = as_string(kv);
        });
        model.user_info.emplace_back(std::move(key), std::move(value));
        return;
      }
      default:
        return;
    }
  });
  return model;
}

std::string mindir_variables_dir(std::string_view model_file_name) {
  const auto slash = model_file_name.find_last_of('/');
  std::string_view base =
      slash == std::string_view::npos ? model_file_name : model_file_name.substr(slash + 1);
  constexpr std::string_view kSuffix = "_graph.mindir";
  if (base.size() <= kSuffix.size() || !base.ends_with(kSuffix)) return "";
  return std::string(base.substr(0, base.size() - kSuffix.size())) + "_variables";
}

void add_graph_chunk(MindIR& model, Bytes chunk, std::string_view relative) {
  // The chunk is read as a graph of its own, whose weights are then moved to the main graph.
  MindIR part;
  part.generation = MindIRGeneration::MindIR;
  Decoder d(kMindIR, chunk.size(), part.problems);
  Field whole;
  whole.type = WireType::Len;
  whole.bytes = chunk;
  read_graph(d, whole, false, part);
  if (!model.main_graph()) model.graphs.emplace_back();  // the weights need a graph to belong to
  const size_t main_index = static_cast<size_t>(model.main_graph() - model.graphs.data());
  for (MindIRWeight& w : part.weights) {
    if (w.storage == MindIRStorage::RawData) w.storage = MindIRStorage::GraphChunk;
    w.data_file = std::string(relative);
    w.graph = main_index;
    model.graphs[main_index].weights.push_back(model.weights.size());
    model.weights.push_back(std::move(w));
  }
  for (Error& e : part.problems) model.problems.push_back(chunk_problem(std::move(e), relative));
}

Expected<TensorData> mindir_tensor_data(Bytes file, const MindIRWeight& w,
                                        const MindIRFileSource& source) {
  const Content& c = w.content;
  if (w.compression != 0)
    return Error::at_offset(w.offset, fmt::format("compressed (CompressionType {}): encoded "
                                                  "bytes, not elements",
                                                  w.compression));
  if (!c.dtype || *c.dtype == DType::String)
    return Error::at_offset(w.offset,
                            fmt::format("data_type {} has no element layout", c.spelling));
  if (w.storage == MindIRStorage::None) {
    if (c.expected_bytes == 0u) return owned_tensor(*c.dtype, c.shape, {});  // no elements
    return Error::at_offset(w.offset, "the tensor holds no data");
  }
  // The file that holds the bytes: the model, or a data file.
  Bytes holder = file;
  if (!w.data_file.empty() || w.storage == MindIRStorage::External) {
    MSDT_CHECK(check_relative_path(w.data_file, "data file"));
    if (!source)
      return Error(fmt::format("data file {} not available", quote_for_message(w.data_file)));
    MSDT_TRY(holder, source(w.data_file));
    if (w.storage == MindIRStorage::External) {
      // Byte 0 of a 1.6+ data file is 1 when the exporting host was little-endian (spec §5.1).
      if (holder.empty())
        return Error(fmt::format("data file {} is empty", quote_for_message(w.data_file)));
      if (holder[0] == std::byte{0})
        return Error::at_offset(0, fmt::format("data file {}: written by a big-endian host",
                                               quote_for_message(w.data_file)));
    }
  }
  if (w.storage == MindIRStorage::RawData || w.storage == MindIRStorage::External ||
      w.storage == MindIRStorage::GraphChunk) {
    for (const Segment& s : c.segments) {
      auto end = checked_add(s.offset, s.length);
      if (!end || *end > holder.size())
        return Error::at_offset(
            s.offset,
            fmt::format("{} bytes at {:#x} go past the end of {} ({} bytes)", s.length, s.offset,
                        w.storage == MindIRStorage::RawData
                            ? std::string("the file")
                            : "data file " + quote_for_message(w.data_file),
                        holder.size()));
    }
    return tensor_data(holder, c);
  }

  // Typed repeated fields: the values are decoded again from the TensorProto.
  const Schema& s = w.legacy ? kOnnx : kMindIR;
  const DType dtype = *c.dtype;
  uint32_t number = 0;
  unsigned width = 0;  // of a stored value; 0 varint
  switch (w.storage) {
    case MindIRStorage::FloatData:
      number = s.float_data;
      width = 4;
      break;
    case MindIRStorage::DoubleData:
      number = s.double_data;
      width = 8;
      break;
    case MindIRStorage::Int32Data:
      number = s.int32_data;
      break;
    case MindIRStorage::Int64Data:
      number = s.int64_data;
      break;
    default:
      number = s.uint64_data;
      break;
  }
  const bool complex = dtype == DType::Complex64 || dtype == DType::Complex128;
  const unsigned bits = dtype_bits(dtype);
  const unsigned unit = complex ? bits / 16 : bits / 8;  // bytes written per stored value
  const bool fits =
      bits % 8 == 0 &&
      (width == 4   ? dtype == DType::Float32 || dtype == DType::Complex64
       : width == 8 ? dtype == DType::Float64 || dtype == DType::Complex128
                    : dtype != DType::Float32 && dtype != DType::Float64 && !complex && unit <= 8);
  if (!fits)
    return Error::at_offset(
        w.offset, fmt::format("{} cannot hold {} elements", w.storage_word(), c.spelling));
  auto end = checked_add(w.message.offset, w.message.length);
  if (!end || *end > holder.size())
    return Error::at_offset(w.offset, "the TensorProto goes past the end of the file");
  std::vector<uint64_t> values;
  MSDT_CHECK(proto::each_field(holder.subspan(w.message.offset, w.message.length), w.message.offset,
                               [&](const Field& f) -> Status {
                                 if (f.number != number) return std::nullopt;
                                 if (width == 0) return proto::append_varints(f, values);
                                 append_fixed(f, width, values);
                                 return std::nullopt;
                               }));
  MSDT_TRY(uint64_t count, element_count(c.shape));
  const uint64_t need = complex ? count * 2 : count;
  if (values.size() != need)
    return Error::at_offset(w.offset,
                            fmt::format("{} holds {} values, dims {} {} need {}", w.storage_word(),
                                        values.size(), dims_text(c.dims), c.spelling, need));
  std::vector<std::byte> bytes(values.size() * unit);
  for (size_t i = 0; i < values.size(); ++i)
    for (unsigned b = 0; b < unit; ++b)
      bytes[i * unit + b] = static_cast<std::byte>(values[i] >> (8 * b));
  return owned_tensor(dtype, c.shape, std::move(bytes));
}

}  // namespace msdt::model
