// "graph_proto": the graph of an `ir` description as an anf_ir.proto GraphProto, or a ModelProto
// wrapping it (docs: README.md, "graph_proto"; format: spec/summary.md §6). One description then
// gives both the .ir text and the .pb of the same graph. A GraphProto holds one graph, so one graph
// of the description is written (the entry graph unless "graph" names another), the way
// MindSpore's ProtoExporter (debug/dump_proto.cc) lays it out: parameters, the nodes in file order
// named "1", "2", … with their operands by node name, parameter name or constant key "cstN", the
// Return operand as the graph's output, then the constants. Text that has no protobuf field
// (style, version, counts, "# Order:", source lines, device lines) is ignored.
#include <bit>
#include <charconv>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/text_parser.h"
#include "ir/type_spec.h"
#include "payloads.h"
#include "support/proto_writer.h"

namespace msdt::fixture {
namespace {

using msdt::testing::ProtoWriter;

// DataType numbers (spec summary.md §6.1) of the element and scalar names the text prints.
uint64_t data_type_of(std::string_view name) {
  static const std::unordered_map<std::string_view, uint64_t> kTypes = {
      {"Bool", 1},       {"Int8", 2},       {"Int16", 3},   {"Int32", 4},   {"Int64", 5},
      {"UInt8", 6},      {"UInt16", 7},     {"UInt32", 8},  {"UInt64", 9},  {"Float16", 10},
      {"Float32", 11},   {"Float64", 12},   {"String", 13}, {"Tensor", 14}, {"Func", 15},
      {"None", 34},      {"Int", 36},       {"UInt", 37},   {"Float", 38},  {"TypeType", 39},
      {"Complex64", 43}, {"Complex128", 44}};
  auto it = kTypes.find(name);
  return it == kTypes.end() ? 0 : it->second;
}

// A type in the text notation as a TypeProto. Tensors keep their element type and shape; tuples
// and lists become DT_TUPLE/DT_LIST without their elements; monads and what has no DataType are
// DT_UNDEFINED.
ProtoWriter type_proto(const std::string& text) {
  const ir::TypeSpec t = ir::parse_type_spec(text);
  ProtoWriter out;
  switch (t.kind) {
    case ir::TypeSpec::Kind::Tensor: {
      ProtoWriter tensor;
      tensor.varint(1, data_type_of(t.dtype));
      if (t.shape) {
        ProtoWriter shape;
        for (int64_t d : *t.shape)
          shape.message(1, ProtoWriter().varint(1, static_cast<uint64_t>(d)));
        tensor.message(2, shape);
      }
      out.varint(1, 14).message(2, tensor);
      break;
    }
    case ir::TypeSpec::Kind::Tuple:
    case ir::TypeSpec::Kind::List:
      out.varint(1, t.kind == ir::TypeSpec::Kind::Tuple ? 31 : 32).message(3, ProtoWriter());
      break;
    case ir::TypeSpec::Kind::Function:
      out.varint(1, 15);
      break;
    case ir::TypeSpec::Kind::None:
      out.varint(1, 34);
      break;
    case ir::TypeSpec::Kind::Scalar:
      out.varint(1, data_type_of(t.dtype));
      break;
    default:
      break;
  }
  return out;
}

std::string trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

// The text between "P(" and ")" when `text` is exactly P(...), else nullopt.
std::optional<std::string> call_argument(const std::string& text, std::string_view prefix) {
  if (text.size() < prefix.size() + 2 || !text.starts_with(prefix) || text[prefix.size()] != '(' ||
      text.back() != ')')
    return std::nullopt;
  return text.substr(prefix.size() + 1, text.size() - prefix.size() - 2);
}

std::optional<int64_t> integer(const std::string& text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// A constant or attribute value as MindSpore prints it, back into a ValueProto that the reader
// prints the same way: I64(3), U64(3), Bool(1), F32(0.5), F64(0.5), "str", @graph, None, and
// (…) / […] sequences of these. A bare integer is an int64 (attribute text such as
// `kernel_size: (5, 5)`); any other text is kept as a string value.
ProtoWriter value_proto(const std::string& raw) {
  const std::string text = trim(raw);
  ProtoWriter v;
  if (text == "None") return v.varint(1, 34);
  if (text.size() >= 2 && (text.front() == '(' || text.front() == '[') &&
      ir::matching_bracket(text, 0) == text.size()) {
    v.varint(1, text.front() == '(' ? 31 : 32);
    for (const auto& item : ir::split_top_level(std::string_view(text).substr(1, text.size() - 2)))
      v.message(18, value_proto(std::string(item)));
    return v;
  }
  if (auto a = call_argument(text, "Bool"); a && (*a == "0" || *a == "1"))
    return v.varint(1, 1).varint(2, *a == "1" ? 1 : 0);
  if (auto a = call_argument(text, "I64"); a && integer(*a))
    return v.varint(1, 5).varint(3, static_cast<uint64_t>(*integer(*a)));
  if (auto a = call_argument(text, "U64"); a && integer(*a))
    return v.varint(1, 9).varint(4, static_cast<uint64_t>(*integer(*a)));
  for (auto [prefix, single] : {std::pair{"F32", true}, std::pair{"F64", false}}) {
    auto a = call_argument(text, prefix);
    if (!a) continue;
    char* end = nullptr;
    double d = std::strtod(a->c_str(), &end);
    if (a->empty() || end != a->c_str() + a->size()) break;
    if (single) return v.varint(1, 11).fixed32(5, std::bit_cast<uint32_t>(static_cast<float>(d)));
    return v.varint(1, 12).fixed64(6, std::bit_cast<uint64_t>(d));
  }
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
    return v.varint(1, 13).string(7, std::string_view(text).substr(1, text.size() - 2));
  if (text.size() > 1 && text.front() == '@')
    return v.varint(1, 15).message(9, ProtoWriter().string(2, std::string_view(text).substr(1)));
  if (auto i = integer(text)) return v.varint(1, 5).varint(3, static_cast<uint64_t>(*i));
  return v.varint(1, 13).string(7, text);
}

// "k: v, k: v" (the text of a primitive_attrs block) as AttributeProtos.
void add_attributes(ProtoWriter& node, const std::string& text) {
  for (const auto& item : ir::split_top_level(text)) {
    size_t colon = item.find(':');
    if (colon == std::string::npos) continue;
    node.message(5, ProtoWriter()
                        .string(1, trim(std::string_view(item).substr(0, colon)))
                        .message(2, value_proto(std::string(item.substr(colon + 1)))));
  }
}

// A type as the ir writer prints it: "<…>" verbatim, a bare name wrapped, or {"type", "shape"}
// with the >= 1.5 shape notation (the protobuf has one notation whatever the version).
std::string type_text(const Node& node) {
  if (node.is_string()) {
    std::string s = node.string();
    return s.starts_with("<") ? s : "<" + s + ">";
  }
  node.check_keys({"type", "shape"});
  std::string out = "<" + node.at("type").string();
  if (auto shape = node.find("shape")) {
    std::string dims;
    for (const auto& d : shape->elements())
      dims += (dims.empty() ? "" : ", ") + std::to_string(d.i64());
    out += ", (" + dims + ")";
  }
  return out + ">";
}

struct Param {
  std::string name;
  std::optional<std::string> type;
  bool has_default = false;
};

Param read_param(const Node& node) {
  Param p;
  if (node.is_string()) {
    p.name = node.string();
    return p;
  }
  node.check_keys({"name", "type", "shape", "default", "kernel", "is_weight", "symbolic"});
  p.name = node.at("name").string();
  if (node.has("type")) {
    json t = json::object();
    t["type"] = node.at("type").value();
    if (auto s = node.find("shape")) t["shape"] = s->value();
    p.type = type_text(Node(t, node.path()));
  }
  if (auto d = node.find("default")) p.has_default = d->boolean();
  return p;
}

struct Writer {
  // Every parameter of the description by its written reference (%paraN_name, numbered as the ir
  // writer numbers them) and by name.
  std::unordered_map<std::string, std::string> param_by_ref;
  std::unordered_map<std::string, const Param*> param_by_name;
  std::unordered_map<std::string, std::string> node_names;     // "%k" -> "i"
  std::unordered_map<std::string, std::string> node_types;     // "%k" -> output type text
  std::vector<std::pair<std::string, std::string>> constants;  // key, value text
  std::unordered_map<std::string, std::string> constant_keys;  // value text -> key

  // The name an operand has in the protobuf: a node's name, a parameter's name, a constant key.
  std::string operand(const Node& node) {
    std::string text = node.string();
    if (text.starts_with("param:")) {
      if (!param_by_name.contains(text.substr(6)))
        node.fail("no parameter named \"" + text.substr(6) + "\"");
      return text.substr(6);
    }
    if (auto n = node_names.find(text); n != node_names.end()) return n->second;
    if (auto p = param_by_ref.find(text); p != param_by_ref.end()) return p->second;
    // Free nodes $(@g:x) and nodes of another graph stay as written: the reader reports them.
    if (text.starts_with("%") || text.starts_with("$(")) return text;
    auto [it, added] = constant_keys.emplace(text, "cst" + std::to_string(constants.size() + 1));
    if (added) constants.emplace_back(it->second, text);
    return it->second;
  }

  std::optional<std::string> operand_type(const std::string& text) const {
    if (text.starts_with("param:")) {
      auto p = param_by_name.find(text.substr(6));
      if (p != param_by_name.end()) return p->second->type;
    }
    if (auto p = param_by_ref.find(text); p != param_by_ref.end()) {
      auto q = param_by_name.find(p->second);
      if (q != param_by_name.end()) return q->second->type;
    }
    if (auto n = node_types.find(text); n != node_types.end()) return n->second;
    return std::nullopt;
  }
};

}  // namespace

std::vector<std::byte> build_graph_proto(const Node& description) {
  description.check_keys({"style", "version", "entry", "attrs", "params", "graphs", "total_params",
                          "total_subgraphs", "node_count", "blank_lines_between", "raw_lines",
                          "failure", "model", "graph"});
  // Parameters numbered as the ir writer numbers them: the entry graph's first, then each
  // subgraph's new ones (a string naming an entry parameter refers to it).
  std::vector<Param> params;
  if (auto ps = description.find("params"))
    for (const auto& p : ps->elements()) params.push_back(read_param(p));
  const size_t entry_params = params.size();
  const auto graphs = description.at("graphs").elements();
  if (graphs.empty()) description.at("graphs").fail("expected at least one graph");
  const std::string entry =
      description.has("entry") ? description.at("entry").string() : graphs[0].at("name").string();
  const std::string chosen = description.has("graph") ? description.at("graph").string() : entry;
  std::optional<size_t> graph_index;
  std::vector<size_t> graph_params;  // of the chosen graph, indexes into params
  for (size_t gi = 0; gi < graphs.size(); ++gi) {
    const std::string name = graphs[gi].at("name").string();
    if (name == chosen) graph_index = gi;
    if (auto ps = graphs[gi].find("params")) {
      for (const auto& p : ps->elements()) {
        std::optional<size_t> existing;
        if (p.is_string())
          for (size_t k = 0; k < entry_params; ++k)
            if (params[k].name == p.string()) existing = k;
        if (!existing) {
          params.push_back(read_param(p));
          existing = params.size() - 1;
        }
        if (name == chosen) graph_params.push_back(*existing);
      }
    }
  }
  if (!graph_index) {
    if (auto g = description.find("graph")) g->fail("no graph named \"" + chosen + "\"");
    description.fail("no graph named \"" + chosen + "\" (the entry)");
  }
  // The entry graph's parameters are the description's "params" (its head is usually "()").
  if (chosen == entry && graph_params.empty())
    for (size_t k = 0; k < entry_params; ++k) graph_params.push_back(k);

  Writer w;
  for (size_t k = 0; k < params.size(); ++k) {
    w.param_by_ref.emplace("%para" + std::to_string(k + 1) + "_" + params[k].name, params[k].name);
    w.param_by_name.emplace(params[k].name, &params[k]);
  }

  ProtoWriter graph;
  ProtoWriter out;  // the node list, in file order
  const Node g = graphs[*graph_index];
  graph.string(2, chosen);
  for (size_t k : graph_params) {
    ProtoWriter p;
    p.string(1, params[k].name);
    if (params[k].type) p.message(2, type_proto(*params[k].type));
    // The reader only needs to know a default exists; MindSpore writes the tensor's header.
    if (params[k].has_default) p.message(3, ProtoWriter().varint(1, 14));
    graph.message(3, p);
  }
  int64_t next_id = 0;
  size_t index = 0;
  std::vector<ProtoWriter> outputs;
  for (const auto& n : g.at("nodes").elements()) {
    if (n.has("raw")) continue;
    const bool is_return = n.has("return");
    if (is_return) {
      ProtoWriter output;
      const Node operand = n.at("return");
      output.string(1, w.operand(operand));
      std::optional<std::string> type;
      if (auto t = n.find("type_in"); t && !t->elements().empty())
        type = type_text(t->elements()[0]);
      else
        type = w.operand_type(operand.string());
      if (type) output.message(2, type_proto(*type));
      outputs.push_back(std::move(output));
      continue;
    }
    const int64_t id = n.has("id") ? n.at("id").i64() : next_id;
    next_id = id + 1;
    const std::string name = std::to_string(++index);
    ProtoWriter node;
    if (auto in = n.find("inputs"))
      for (const auto& i : in->elements()) node.message(1, ProtoWriter().string(1, w.operand(i)));
    node.string(2, name);
    node.string(3, n.at("op").string());
    std::string scope, fullname;
    if (auto s = n.find("scope")) {
      if (n.has("fullname") && n.at("fullname").boolean()) {
        fullname = s->string();
        auto slash = fullname.rfind('/');
        scope = slash == std::string::npos ? fullname : fullname.substr(0, slash);
      } else {
        scope = s->string();
      }
    }
    if (!scope.empty()) node.string(4, scope);
    if (auto a = n.find("primitive_attrs")) add_attributes(node, a->string());
    if (auto t = n.find("type_out")) {
      std::string type = type_text(*t);
      node.message(6, type_proto(type));
      w.node_types.emplace("%" + std::to_string(id), std::move(type));
    }
    if (!fullname.empty()) node.string(8, fullname);
    out.message(1, node);
    w.node_names.emplace("%" + std::to_string(id), name);
  }

  // GraphProto field order as ProtoExporter writes it: name, parameters, nodes, outputs,
  // constants (any order reads the same).
  std::vector<std::byte> bytes = graph.take();
  const auto& nodes = out.data();
  bytes.insert(bytes.end(), nodes.begin(), nodes.end());
  ProtoWriter tail;
  for (const auto& o : outputs) tail.message(4, o);
  for (const auto& [key, text] : w.constants)
    tail.message(5, ProtoWriter().string(1, key).message(2, value_proto(text)));
  bytes.insert(bytes.end(), tail.data().begin(), tail.data().end());

  if (auto m = description.find("model"); m && m->boolean()) {
    // ModelProto: ir_version 1 (IR_VERSION), the graph in field 4.
    ProtoWriter model;
    model.varint(1, 1).bytes(4, bytes);
    return model.take();
  }
  return bytes;
}

}  // namespace msdt::fixture
