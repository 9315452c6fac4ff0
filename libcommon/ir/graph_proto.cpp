#include "ir/graph_proto.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <cstring>
#include <map>

#include "io/text.h"
#include "proto/wire_reader.h"

namespace msdt::ir {
namespace {

using proto::each_field;
using proto::expect_field;
using proto::Field;
using proto::field_text;
using proto::WireType;

// Nested values, types and graphs: a bound, not a schema limit.
constexpr int kMaxDepth = 64;

std::string as_string(const Field& f) { return std::string(field_text(f)); }

// DataType (spec summary.md §6.1) as the text dumps spell element types.
std::string dtype_text(uint64_t v) {
  static constexpr std::string_view kNames[] = {
      "Undefined", "Bool",      "Int8",       "Int16",   "Int32",    "Int64",    "UInt8",
      "UInt16",    "UInt32",    "UInt64",     "Float16", "Float32",  "Float64",  "String",
      "Tensor",    "Func",      "Bools",      "Ints8",   "Ints16",   "Ints32",   "Ints64",
      "UInts8",    "UInts16",   "UInts32",    "UInts64", "Floats16", "Floats32", "Floats64",
      "Strings",   "Tensors",   "Graphs",     "Tuple",   "List",     "Dict",     "None",
      "SymInst",   "Int",       "UInt",       "Float",   "TypeType", "Any",      "RefKey",
      "Ref",       "Complex64", "Complex128", "Complex"};
  if (v < std::size(kNames)) return std::string(kNames[v]);
  return fmt::format("DataType({})", v);
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

Expected<std::vector<int64_t>> shape_dims(Bytes message, uint64_t base) {
  std::vector<int64_t> dims;
  MSDT_CHECK_FIELDS(each_field(message, base, [&](const Field& dim) -> Status {
    if (dim.number != 1) return std::nullopt;
    MSDT_CHECK(expect_field(dim, WireType::Len, "TensorShapeProto.dim"));
    int64_t size = -1;
    MSDT_CHECK_FIELDS(each_field(dim.bytes, dim.payload_offset, [&](const Field& f) -> Status {
      if (f.number == 1) {
        MSDT_CHECK(expect_field(f, WireType::Varint, "Dimension.size"));
        size = static_cast<int64_t>(f.value);
      }
      return std::nullopt;
    }));
    dims.push_back(size);
    return std::nullopt;
  }));
  return dims;
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::vector<std::string> items;
  for (int64_t d : dims) items.push_back(std::to_string(d));
  return "(" + join(items) + ")";
}

// TypeProto as the text notation: <Tensor[Float32], (2, 3)>, <Tuple[...]>, <Int64>.
Expected<std::string> type_text(Bytes message, uint64_t base, int depth) {
  if (depth > kMaxDepth) return Error::at_offset(base, "types nested too deep");
  uint64_t data_type = 0;
  std::optional<std::string> tensor;
  std::vector<std::string> elements;
  bool sequence = false;
  MSDT_CHECK_FIELDS(each_field(message, base, [&](const Field& f) -> Status {
    if (f.number == 1) {
      MSDT_CHECK(expect_field(f, WireType::Varint, "TypeProto.data_type"));
      data_type = f.value;
    } else if (f.number == 2) {
      MSDT_CHECK(expect_field(f, WireType::Len, "TypeProto.tensor_type"));
      uint64_t elem = 0;
      std::vector<int64_t> dims;
      bool has_shape = false;
      MSDT_CHECK_FIELDS(each_field(f.bytes, f.payload_offset, [&](const Field& t) -> Status {
        if (t.number == 1) {
          MSDT_CHECK(expect_field(t, WireType::Varint, "Tensor.elem_type"));
          elem = t.value;
        } else if (t.number == 2) {
          MSDT_CHECK(expect_field(t, WireType::Len, "Tensor.shape"));
          MSDT_TRY(dims, shape_dims(t.bytes, t.payload_offset));
          has_shape = true;
        }
        return std::nullopt;
      }));
      tensor = fmt::format("Tensor[{}]{}", dtype_text(elem),
                           has_shape ? ", " + dims_text(dims) : std::string());
    } else if (f.number == 3) {
      MSDT_CHECK(expect_field(f, WireType::Len, "TypeProto.sequence_type"));
      sequence = true;
      MSDT_CHECK_FIELDS(each_field(f.bytes, f.payload_offset, [&](const Field& s) -> Status {
        if (s.number != 1) return std::nullopt;
        MSDT_CHECK(expect_field(s, WireType::Len, "Sequence.elem_types"));
        MSDT_TRY(std::string element, type_text(s.bytes, s.payload_offset, depth + 1));
        if (element.size() >= 2) element = element.substr(1, element.size() - 2);
        elements.push_back(std::move(element));
        return std::nullopt;
      }));
    }
    return std::nullopt;
  }));
  if (tensor) return "<" + *tensor + ">";
  if (sequence) return fmt::format("<{}[{}]>", data_type == 32 ? "List" : "Tuple", join(elements));
  return "<" + dtype_text(data_type) + ">";
}

std::string number_text(double v) { return fmt::format("{}", v); }

// TensorProto, shortly: Tensor(shape=[2, 3], dtype=Float32).
Expected<std::string> tensor_text(Bytes message, uint64_t base) {
  std::vector<uint64_t> dims;
  uint64_t data_type = 0;
  MSDT_CHECK_FIELDS(each_field(message, base, [&](const Field& f) -> Status {
    if (f.number == 1) return proto::append_varints(f, dims);
    if (f.number == 2) {
      MSDT_CHECK(expect_field(f, WireType::Varint, "TensorProto.data_type"));
      data_type = f.value;
    }
    return std::nullopt;
  }));
  std::vector<std::string> items;
  for (uint64_t d : dims) items.push_back(std::to_string(static_cast<int64_t>(d)));
  return fmt::format("Tensor(shape=[{}], dtype={})", join(items), dtype_text(data_type));
}

Expected<std::string> graph_name(Bytes message, uint64_t base) {
  std::string name;
  MSDT_CHECK_FIELDS(each_field(message, base, [&](const Field& f) -> Status {
    if (f.number == 2 && f.type == WireType::Len) name = as_string(f);
    return std::nullopt;
  }));
  return "@" + name;
}

// ValueProto as MindSpore prints values: I64(3), F32(0.5), "s", (1, 2), {"k": v}, None.
Expected<std::string> value_text(Bytes message, uint64_t base, int depth) {
  if (depth > kMaxDepth) return Error::at_offset(base, "values nested too deep");
  uint64_t dtype = 0;
  std::vector<std::string> single, many;
  bool repeated = false;
  MSDT_CHECK_FIELDS(each_field(message, base, [&](const Field& f) -> Status {
    switch (f.number) {
      case 1:
        MSDT_CHECK(expect_field(f, WireType::Varint, "ValueProto.dtype"));
        dtype = f.value;
        return std::nullopt;
      case 2:
        single.push_back(fmt::format("Bool({})", f.value ? 1 : 0));
        return std::nullopt;
      case 3:
        single.push_back(fmt::format("I64({})", static_cast<int64_t>(f.value)));
        return std::nullopt;
      case 4:
        single.push_back(fmt::format("U64({})", f.value));
        return std::nullopt;
      case 5: {
        MSDT_CHECK(expect_field(f, WireType::Fixed32, "ValueProto.float_val"));
        float v;
        uint32_t bits = static_cast<uint32_t>(f.value);
        std::memcpy(&v, &bits, 4);
        single.push_back("F32(" + number_text(v) + ")");
        return std::nullopt;
      }
      case 6: {
        MSDT_CHECK(expect_field(f, WireType::Fixed64, "ValueProto.double_val"));
        double v;
        std::memcpy(&v, &f.value, 8);
        single.push_back("F64(" + number_text(v) + ")");
        return std::nullopt;
      }
      case 7:
        MSDT_CHECK(expect_field(f, WireType::Len, "ValueProto.str_val"));
        single.push_back("\"" + escape_invalid_utf8(as_string(f)) + "\"");
        return std::nullopt;
      case 8: {
        MSDT_CHECK(expect_field(f, WireType::Len, "ValueProto.tensor_val"));
        MSDT_TRY(std::string t, tensor_text(f.bytes, f.payload_offset));
        single.push_back(std::move(t));
        return std::nullopt;
      }
      case 9: {
        MSDT_CHECK(expect_field(f, WireType::Len, "ValueProto.graph"));
        MSDT_TRY(std::string g, graph_name(f.bytes, f.payload_offset));
        single.push_back(std::move(g));
        return std::nullopt;
      }
      case 10:
      case 11:
      case 12: {
        repeated = true;
        std::vector<uint64_t> values;
        MSDT_CHECK(proto::append_varints(f, values));
        for (uint64_t v : values)
          many.push_back(f.number == 10   ? fmt::format("Bool({})", v ? 1 : 0)
                         : f.number == 11 ? fmt::format("I64({})", static_cast<int64_t>(v))
                                          : fmt::format("U64({})", v));
        return std::nullopt;
      }
      case 15:
        repeated = true;
        MSDT_CHECK(expect_field(f, WireType::Len, "ValueProto.str_vals"));
        many.push_back("\"" + escape_invalid_utf8(as_string(f)) + "\"");
        return std::nullopt;
      case 16: {
        repeated = true;
        MSDT_CHECK(expect_field(f, WireType::Len, "ValueProto.tensor_vals"));
        MSDT_TRY(std::string t, tensor_text(f.bytes, f.payload_offset));
        many.push_back(std::move(t));
        return std::nullopt;
      }
      case 17: {
        repeated = true;
        MSDT_CHECK(expect_field(f, WireType::Len, "ValueProto.graphs"));
        MSDT_TRY(std::string g, graph_name(f.bytes, f.payload_offset));
        many.push_back(std::move(g));
        return std::nullopt;
      }
      case 18: {
        repeated = true;
        MSDT_CHECK(expect_field(f, WireType::Len, "ValueProto.values"));
        MSDT_TRY(std::string v, value_text(f.bytes, f.payload_offset, depth + 1));
        many.push_back(std::move(v));
        return std::nullopt;
      }
      case 19: {
        repeated = true;
        MSDT_CHECK(expect_field(f, WireType::Len, "ValueProto.dict_val"));
        std::string key, value = "None";
        MSDT_CHECK_FIELDS(each_field(f.bytes, f.payload_offset, [&](const Field& kv) -> Status {
          if (kv.number == 1 && kv.type == WireType::Len) key = as_string(kv);
          if (kv.number == 2 && kv.type == WireType::Len) {
            MSDT_TRY(value, value_text(kv.bytes, kv.payload_offset, depth + 1));
          }
          return std::nullopt;
        }));
        many.push_back(fmt::format("\"{}\": {}", escape_invalid_utf8(key), value));
        return std::nullopt;
      }
      case 20: {
        MSDT_CHECK(expect_field(f, WireType::Len, "ValueProto.type_val"));
        MSDT_TRY(std::string t, type_text(f.bytes, f.payload_offset, depth + 1));
        single.push_back(std::move(t));
        return std::nullopt;
      }
      default:  // 13, 14 (packed floats and doubles) and unknown fields: shown by count only
        if (f.number == 13 || f.number == 14) {
          repeated = true;
          many.push_back(f.number == 13 ? "F32(…)" : "F64(…)");
        }
        return std::nullopt;
    }
  }));
  if (!single.empty() && !repeated) return single.front();
  if (repeated) {
    if (dtype == 33) return "{" + join(many) + "}";
    if (dtype == 32) return "[" + join(many) + "]";
    return "(" + join(many) + ")";
  }
  return dtype == 34 || dtype == 0 ? std::string("None") : dtype_text(dtype);
}

// Types and attributes repeat from node to node: each distinct encoding is rendered once, keyed by
// its bytes (which outlive the parse). Bounded, so a file of all-different values costs no more
// than rendering them.
class TextMemo {
 public:
  template <class Render>
  Expected<std::string> get(Bytes raw, Render&& render) {
    std::string_view key(reinterpret_cast<const char*>(raw.data()), raw.size());
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    MSDT_TRY(std::string text, render());
    if (memo_.size() < kMaxEntries) memo_.emplace(key, text);
    return text;
  }

 private:
  static constexpr size_t kMaxEntries = 1 << 16;
  absl::flat_hash_map<std::string_view, std::string> memo_;
};

// A node as the message gives it: `node` filled in place, its inputs still by name (views into
// the message).
struct ProtoNode {
  Node& node;
  std::vector<std::pair<std::string_view, bool>>& inputs;  // name, control edge
  TextMemo& memo;
};

Status node_of(Bytes message, uint64_t base, ProtoNode out) {
  std::vector<std::string> attrs;
  MSDT_CHECK_FIELDS(each_field(message, base, [&](const Field& f) -> Status {
    switch (f.number) {
      case 1: {
        MSDT_CHECK(expect_field(f, WireType::Len, "NodeProto.input"));
        std::string_view name;
        bool control = false;
        MSDT_CHECK_FIELDS(each_field(f.bytes, f.payload_offset, [&](const Field& i) -> Status {
          if (i.number == 1 && i.type == WireType::Len) name = field_text(i);
          if (i.number == 2 && i.type == WireType::Varint) control = i.value == 1;
          return std::nullopt;
        }));
        out.inputs.emplace_back(name, control);
        return std::nullopt;
      }
      case 2:
        MSDT_CHECK(expect_field(f, WireType::Len, "NodeProto.name"));
        out.node.name = as_string(f);
        return std::nullopt;
      case 3:
        MSDT_CHECK(expect_field(f, WireType::Len, "NodeProto.op_type"));
        out.node.op = as_string(f);
        return std::nullopt;
      case 4:
        MSDT_CHECK(expect_field(f, WireType::Len, "NodeProto.scope"));
        out.node.scope = as_string(f);
        return std::nullopt;
      case 5: {
        MSDT_CHECK(expect_field(f, WireType::Len, "NodeProto.attribute"));
        MSDT_TRY(std::string attr, out.memo.get(f.bytes, [&]() -> Expected<std::string> {
          std::string name, value = "None";
          MSDT_CHECK_FIELDS(each_field(f.bytes, f.payload_offset, [&](const Field& a) -> Status {
            if (a.number == 1 && a.type == WireType::Len) name = as_string(a);
            if (a.number == 2 && a.type == WireType::Len) {
              MSDT_TRY(value, value_text(a.bytes, a.payload_offset, 0));
            }
            return std::nullopt;
          }));
          return fmt::format("{}: {}", escape_invalid_utf8(name), value);
        }));
        attrs.push_back(std::move(attr));
        return std::nullopt;
      }
      case 6: {
        MSDT_CHECK(expect_field(f, WireType::Len, "NodeProto.output_type"));
        MSDT_TRY(out.node.output_type,
                 out.memo.get(f.bytes, [&] { return type_text(f.bytes, f.payload_offset, 0); }));
        return std::nullopt;
      }
      case 8:
        MSDT_CHECK(expect_field(f, WireType::Len, "NodeProto.full_name"));
        out.node.fullname = as_string(f);
        return std::nullopt;
      case 10:
        MSDT_CHECK(expect_field(f, WireType::Len, "NodeProto.instance_name"));
        out.node.attrs.emplace_back("", "instance name: " + as_string(f));
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }));
  if (!attrs.empty()) out.node.attrs.emplace_back("primitive_attrs", join(attrs));
  out.node.line = base;  // the node's byte offset, where a text file would give its line
  return std::nullopt;
}

}  // namespace

std::string proto_data_type_name(uint64_t value) { return dtype_text(value); }

Expected<Module> parse_graph_proto(Bytes message, uint64_t base) {
  Module m;
  m.style = Style::Protobuf;
  Graph g;
  // Counted first, so that 100 000 nodes are made in place rather than moved as vectors grow.
  size_t count = 0;
  MSDT_CHECK_FIELDS(each_field(message, base, [&](const Field& f) -> Status {
    count += f.number == 1;
    return std::nullopt;
  }));
  g.nodes.reserve(count + 1);  // and the Return made of the outputs
  std::vector<std::vector<std::pair<std::string_view, bool>>> inputs;  // of each node, by name
  inputs.reserve(count);
  TextMemo memo;
  std::vector<std::pair<std::string, std::string>> outputs;  // name, type
  MSDT_CHECK_FIELDS(each_field(message, base, [&](const Field& f) -> Status {
    switch (f.number) {
      case 1: {
        MSDT_CHECK(expect_field(f, WireType::Len, "GraphProto.node"));
        return node_of(f.bytes, f.payload_offset,
                       ProtoNode{g.nodes.emplace_back(), inputs.emplace_back(), memo});
      }
      case 2:
        MSDT_CHECK(expect_field(f, WireType::Len, "GraphProto.name"));
        g.name = as_string(f);
        return std::nullopt;
      case 3: {
        MSDT_CHECK(expect_field(f, WireType::Len, "GraphProto.parameters"));
        Parameter p;
        p.number = static_cast<uint32_t>(m.params.size() + 1);
        p.line = f.offset;
        MSDT_CHECK_FIELDS(each_field(f.bytes, f.payload_offset, [&](const Field& q) -> Status {
          if (q.number == 1 && q.type == WireType::Len) p.name = as_string(q);
          if (q.number == 2 && q.type == WireType::Len) {
            MSDT_TRY(p.type, type_text(q.bytes, q.payload_offset, 0));
          }
          if (q.number == 3) p.has_default = true;
          return std::nullopt;
        }));
        m.params.push_back(std::move(p));
        return std::nullopt;
      }
      case 4: {
        MSDT_CHECK(expect_field(f, WireType::Len, "GraphProto.outputs"));
        std::string name, type;
        MSDT_CHECK_FIELDS(each_field(f.bytes, f.payload_offset, [&](const Field& o) -> Status {
          if (o.number == 1 && o.type == WireType::Len) name = as_string(o);
          if (o.number == 2 && o.type == WireType::Len) {
            MSDT_TRY(type, type_text(o.bytes, o.payload_offset, 0));
          }
          return std::nullopt;
        }));
        outputs.emplace_back(std::move(name), std::move(type));
        return std::nullopt;
      }
      case 5: {
        MSDT_CHECK(expect_field(f, WireType::Len, "GraphProto.const_vals"));
        std::string key, value = "None";
        MSDT_CHECK_FIELDS(each_field(f.bytes, f.payload_offset, [&](const Field& kv) -> Status {
          if (kv.number == 1 && kv.type == WireType::Len) key = as_string(kv);
          if (kv.number == 2 && kv.type == WireType::Len) {
            MSDT_TRY(value, value_text(kv.bytes, kv.payload_offset, 0));
          }
          return std::nullopt;
        }));
        g.constants.emplace_back(std::move(key), std::move(value));
        return std::nullopt;
      }
      default:
        return std::nullopt;
    }
  }));

  // Names to what they are: a node (numbered in file order, which is topological), a parameter,
  // a constant.
  absl::flat_hash_map<std::string_view, uint32_t> node_index;
  node_index.reserve(g.nodes.size());
  for (uint32_t i = 0; i < g.nodes.size(); ++i) node_index.emplace(g.nodes[i].name, i);
  absl::flat_hash_map<std::string_view, const Parameter*> params;
  for (const Parameter& p : m.params) params.emplace(p.name, &p);
  absl::flat_hash_map<std::string_view, std::string_view> constants(g.constants.begin(),
                                                                    g.constants.end());
  auto resolve = [&](std::string_view name, bool control, const Node& user) {
    Input in;
    in.text = name;
    in.control = control;
    if (auto n = node_index.find(name); n != node_index.end()) {
      in.kind = Input::Kind::Node;
      in.node = n->second;
    } else if (auto p = params.find(name); p != params.end()) {
      in.kind = Input::Kind::Parameter;
      in.target = p->second->id();
    } else if (auto c = constants.find(name); c != constants.end()) {
      in.kind = Input::Kind::Value;
      in.text = c->second;
    } else {
      in.kind = Input::Kind::Value;
      m.warnings.push_back(Error::at_offset(
          user.line, fmt::format("node {} reads {}, which is no node, parameter or constant",
                                 quote_for_message(user.name), quote_for_message(name))));
    }
    return in;
  };
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    Node& node = g.nodes[i];
    node.number = i;
    node.inputs.reserve(inputs[i].size());
    for (const auto& [name, control] : inputs[i])
      node.inputs.push_back(resolve(name, control, node));
    if (!node.fullname.empty() && node.scope.empty()) {
      auto slash = node.fullname.rfind('/');
      if (slash != std::string::npos) node.scope = node.fullname.substr(0, slash);
    }
  }
  if (!outputs.empty()) {
    Node ret;
    ret.op = "Return";
    ret.is_return = true;
    for (const auto& [name, type] : outputs) {
      ret.inputs.push_back(resolve(name, false, ret));
      ret.input_types.push_back(type);
    }
    g.nodes.push_back(std::move(ret));
  }
  for (const Parameter& p : m.params) g.params.push_back("%" + p.id());
  m.entry = g.name;
  m.graphs.push_back(std::move(g));
  return m;
}

Expected<Module> parse_model_proto(Bytes message, uint64_t base) {
  // A ModelProto has ir_version (1, varint) and its graph in field 4; a GraphProto has repeated
  // nodes in field 1 (length-delimited). The first field tells them apart.
  std::optional<Field> graph;
  bool model = false;
  MSDT_CHECK_FIELDS(each_field(message, base, [&](const Field& f) -> Status {
    if (f.number == 1 && f.type == WireType::Varint) model = true;
    if (f.number == 4 && f.type == WireType::Len && !graph) graph = f;
    return std::nullopt;
  }));
  if (model && graph) return parse_graph_proto(graph->bytes, graph->payload_offset);
  if (model) return Error::at_offset(base, "ModelProto without a graph (field 4)");
  return parse_graph_proto(message, base);
}

}  // namespace msdt::ir
