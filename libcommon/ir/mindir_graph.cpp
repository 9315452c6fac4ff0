#include "ir/mindir_graph.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <string_view>

#include "tensor/dtype_label.h"

namespace msdt::ir {
namespace {

// A DataType (spec §4.7) as the text dumps spell element types, for parse_type_spec: the dtype's
// MindSpore label, or the DataType's own name when it has no dtype.
std::string element_text(uint64_t data_type) {
  if (std::optional<DType> dtype = model::mindir_dtype(data_type))
    return std::string(dtype_label(*dtype));
  return model::mindir_data_type_name(data_type);
}

template <class Dim>
std::string type_text(std::optional<uint64_t> data_type, const std::vector<Dim>& dims) {
  if (!data_type) return "";
  std::string shape;
  for (size_t i = 0; i < dims.size(); ++i)
    shape += fmt::format("{}{}", i ? ", " : "", static_cast<int64_t>(dims[i]));
  return fmt::format("<Tensor[{}], ({})>", element_text(*data_type), shape);
}

std::string attrs_text(const std::vector<model::MindIRAttribute>& attrs) {
  std::string out;
  for (const auto& a : attrs)
    out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", a.name, a.text);
  return out;
}

// What a name read by a node stands for in its graph.
struct Names {
  absl::flat_hash_map<std::string_view, uint32_t> nodes;         // output or node name → index
  std::vector<std::string_view> node_names;                      // by index
  absl::flat_hash_map<std::string_view, std::string> params;     // name → parameter id
  absl::flat_hash_map<std::string_view, std::string> constants;  // Constant output → value text
};

}  // namespace

Module mindir_module(const model::MindIR& mindir) {
  Module m;
  m.style = Style::Protobuf;
  m.warnings = mindir.problems;  // the reader's first: they come in file order
  if (const model::MindIRGraph* main = mindir.main_graph()) m.entry = main->name;
  absl::flat_hash_map<std::string_view, const model::MindIRPrimitive*> primitives;
  for (const auto& p : mindir.primitives) primitives.emplace(p.name, &p);
  absl::flat_hash_map<std::string_view, size_t> graph_index;
  for (size_t g = 0; g < mindir.graphs.size(); ++g) graph_index.emplace(mindir.graphs[g].name, g);

  std::vector<Names> names(mindir.graphs.size());
  m.graphs.resize(mindir.graphs.size());
  // Parameters and node names first, so that a node can read another graph's (free variables).
  for (size_t g = 0; g < mindir.graphs.size(); ++g) {
    const model::MindIRGraph& source = mindir.graphs[g];
    Graph& graph = m.graphs[g];
    graph.name = source.name;
    for (const auto& a : source.attributes) graph.attrs.emplace_back(a.name, a.text);
    auto add_param = [&](const std::string& name, std::string type, bool weight, uint64_t at) {
      Parameter p;
      p.number = static_cast<uint32_t>(m.params.size() + 1);
      p.name = name;
      p.type = std::move(type);
      p.has_default = weight;
      p.is_weight = weight;
      p.line = at;
      graph.params.push_back("%" + p.id());
      names[g].params.emplace(name, p.id());  // `name` lives in `mindir`
      m.params.push_back(std::move(p));
    };
    for (const auto& in : source.inputs)
      add_param(in.name, type_text(in.data_type, in.dims), false, source.offset);
    for (size_t w : source.weights) {
      const model::MindIRWeight& weight = mindir.weights[w];
      add_param(weight.name,
                type_text(std::optional<uint64_t>(weight.data_type), weight.content.dims), true,
                weight.offset);
    }
  }
  for (size_t g = 0; g < mindir.graphs.size(); ++g) {
    const model::MindIRGraph& source = mindir.graphs[g];
    Names& n = names[g];
    uint32_t index = 0;
    for (const auto& node : source.nodes) {
      if (node.op_type == "Constant") {
        std::string value = "None";
        for (const auto& a : node.attributes)
          if (a.name == "value" || value == "None") value = a.text;
        const std::string& name = node.outputs.empty() ? node.name : node.outputs.front();
        m.graphs[g].constants.emplace_back(name, value);
        continue;
      }
      n.nodes.emplace(node.name, index);
      n.node_names.push_back(node.name);
      for (const auto& out : node.outputs) n.nodes.emplace(out, index);
      ++index;
    }
    for (const auto& [name, value] : m.graphs[g].constants) n.constants.emplace(name, value);
  }

  for (size_t g = 0; g < mindir.graphs.size(); ++g) {
    const model::MindIRGraph& source = mindir.graphs[g];
    Graph& graph = m.graphs[g];
    const Names& n = names[g];
    // Inputs from another graph: the node or parameter of the first graph that has the name.
    auto free_variable = [&](std::string_view name, Input& in) {
      for (size_t other = 0; other < names.size(); ++other) {
        if (other == g) continue;
        if (auto it = names[other].nodes.find(name); it != names[other].nodes.end()) {
          in.kind = Input::Kind::FreeNode;
          in.graph = mindir.graphs[other].name;
          in.target = names[other].node_names[it->second];
          return true;
        }
        if (auto it = names[other].params.find(name); it != names[other].params.end()) {
          in.kind = Input::Kind::FreeNode;
          in.graph = mindir.graphs[other].name;
          in.target = it->second;
          return true;
        }
      }
      return false;
    };
    auto resolve = [&](std::string_view name, uint64_t at, std::string_view user) {
      Input in;
      in.text = name;
      if (auto it = n.nodes.find(name); it != n.nodes.end()) {
        in.kind = Input::Kind::Node;
        in.node = it->second;
      } else if (auto p = n.params.find(name); p != n.params.end()) {
        in.kind = Input::Kind::Parameter;
        in.target = p->second;
      } else if (auto c = n.constants.find(name); c != n.constants.end()) {
        in.kind = Input::Kind::Value;
        in.text = c->second;
      } else if (graph_index.contains(name)) {
        in.kind = Input::Kind::Graph;
        in.graph = name;
        in.text = "@" + std::string(name);
      } else if (!free_variable(name, in)) {
        in.kind = Input::Kind::Value;
        m.warnings.push_back(Error::at_offset(
            at, fmt::format("graph '{}' node '{}' reads '{}', which is no node, parameter or "
                            "constant",
                            source.name, user, name)));
      }
      return in;
    };
    graph.nodes.reserve(source.nodes.size() + 1);
    for (const auto& node : source.nodes) {
      if (node.op_type == "Constant") continue;
      Node out;
      out.number = static_cast<uint32_t>(graph.nodes.size());
      out.name = node.name;
      out.line = node.offset;
      out.fullname = node.domain;
      if (auto slash = node.domain.rfind('/'); slash != std::string::npos)
        out.scope = node.domain.substr(0, slash);
      std::string_view op = node.op_type;
      if (op.starts_with("REF::")) {
        std::string_view ref = op.substr(5);
        if (auto p = primitives.find(ref); p != primitives.end()) {
          out.op = p->second->op_type.empty() ? std::string(ref) : p->second->op_type;
          if (!p->second->attributes.empty())
            out.attrs.emplace_back("primitive_attrs", attrs_text(p->second->attributes));
          if (!p->second->instance_name.empty())
            out.attrs.emplace_back("", "instance name: " + p->second->instance_name);
        } else if (graph_index.contains(ref)) {
          out.op_kind = Node::OpKind::Call;
          out.callee = ref;
          out.op = "call @" + std::string(ref);
        } else if (auto local = n.nodes.find(ref); local != n.nodes.end()) {
          out.op_kind = Node::OpKind::Local;
          out.op_node = local->second;
          out.op = fmt::format("%{}", local->second);
        } else {
          Input fn;
          if (auto param = n.params.find(ref); param != n.params.end()) {
            fn.graph = source.name;
            fn.target = param->second;
          } else {
            free_variable(ref, fn);
          }
          if (!fn.target.empty()) {
            out.op_kind = Node::OpKind::FreeNode;
            out.op = fmt::format("$(@{}:{})", fn.graph, fn.target);
          } else {
            out.op = ref;  // REF::MetaFuncGraph::…, REF::ClassType::…, or unknown: as written
          }
        }
      } else if (graph_index.contains(op)) {  // up to 1.0: a sub-graph's plain name (spec §3.2)
        out.op_kind = Node::OpKind::Call;
        out.callee = op;
        out.op = "call @" + std::string(op);
      } else {
        out.op = op;
      }
      if (!node.attributes.empty())
        out.attrs.emplace_back("cnode_attrs", attrs_text(node.attributes));
      out.inputs.reserve(node.inputs.size());
      for (const auto& in : node.inputs) out.inputs.push_back(resolve(in, node.offset, node.name));
      graph.nodes.push_back(std::move(out));
    }
    if (!source.outputs.empty()) {
      Node ret;
      ret.op = "Return";
      ret.is_return = true;
      ret.line = source.offset;
      for (const auto& o : source.outputs) {
        ret.inputs.push_back(resolve(o.name, source.offset, "Return"));
        ret.input_types.push_back(type_text(o.data_type, o.dims));
      }
      graph.nodes.push_back(std::move(ret));
    }
  }
  return m;
}

Expected<Module> parse_mindir(Bytes file) {
  const model::MindIR mindir = model::read_mindir(file);
  if (mindir.graphs.empty()) {
    if (!mindir.problems.empty())
      return Error(mindir.problems.front()).with_context("MindIR with no graph");
    return Error("a MindIR model with no graph");
  }
  return mindir_module(mindir);
}

}  // namespace msdt::ir
