#include "ir/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "io/text.h"
#include "ir/draw.h"
#include "ir/type_spec.h"
#include "table/format.h"

namespace msdt::ir {
namespace {

using nlohmann::ordered_json;

std::string_view kind_name(Input::Kind kind) {
  switch (kind) {
    case Input::Kind::Node:
      return "node";
    case Input::Kind::Parameter:
      return "parameter";
    case Input::Kind::FreeNode:
      return "free";
    case Input::Kind::Graph:
      return "graph";
    case Input::Kind::Value:
      return "value";
  }
  return "value";
}

ordered_json pairs_json(const std::vector<std::pair<std::string, std::string>>& pairs) {
  ordered_json out = ordered_json::object();
  for (const auto& [k, v] : pairs) out[k.empty() ? "_" : k] = v;
  return out;
}

ordered_json node_json(const Node& n) {
  ordered_json j;
  if (n.number) j["id"] = *n.number;
  if (!n.name.empty()) j["name"] = n.name;
  j["op"] = n.op;
  if (n.is_return) j["return"] = true;
  if (!n.callee.empty()) j["callee"] = n.callee;
  ordered_json inputs = ordered_json::array();
  for (const Input& in : n.inputs) {
    ordered_json i;
    i["kind"] = kind_name(in.kind);
    i["text"] = in.text;
    if (in.node) i["node"] = *in.node;
    if (!in.graph.empty()) i["graph"] = in.graph;
    if (!in.target.empty()) i["target"] = in.target;
    if (in.control) i["control"] = true;
    inputs.push_back(std::move(i));
  }
  j["inputs"] = std::move(inputs);
  if (!n.input_types.empty()) j["input_types"] = n.input_types;
  if (!n.output_type.empty()) {
    j["output_type"] = n.output_type;
    TypeSpec t = parse_type_spec(n.output_type);
    if (!t.dtype.empty()) j["dtype"] = t.dtype;
    if (t.shape) j["shape"] = *t.shape;
  }
  if (!n.attrs.empty()) j["attrs"] = pairs_json(n.attrs);
  if (!n.kernel_lines.empty()) j["kernel"] = n.kernel_lines;
  if (!n.scope.empty()) j["scope"] = n.scope;
  if (!n.fullname.empty()) j["fullname"] = n.fullname;
  if (!n.source.empty()) j["source"] = n.source;
  if (n.marker) j["marker"] = *n.marker;
  j["line"] = n.line;
  return j;
}

// "net.py:41, 12~25/  code/" or the <= 1.8 "net.py(41)/  code/": the file and first line. The
// place is the first ':' followed by digits, or '(' digits ')', after at least one character of
// the file name and before any line break; a number beyond 64 bits is no place.
std::pair<std::string, uint64_t> source_place(std::string_view source) {
  for (size_t i = 1; i < source.size() && source[i] != '\n' && source[i] != '\r'; ++i) {
    if (source[i] != ':' && source[i] != '(') continue;
    size_t end = i + 1;
    while (end < source.size() && source[end] >= '0' && source[end] <= '9') ++end;
    if (end == i + 1 || (source[i] == '(' && (end == source.size() || source[end] != ')')))
      continue;
    auto number = parse_unsigned<uint64_t>(source.substr(i + 1, end - i - 1));
    if (number) return {std::string(source.substr(0, i)), *number};
  }
  return {"", 0};
}

// The code part of a source line: after the first '/' that follows the place, without the
// closing '/'.
std::string source_code(std::string_view source) {
  auto [file, line] = source_place(source);
  size_t slash = source.find('/', file.size());
  if (slash == std::string_view::npos) return "";
  std::string_view code = source.substr(slash + 1);
  if (code.ends_with("/")) code.remove_suffix(1);
  size_t start = code.find_first_not_of(' ');
  return start == std::string_view::npos ? "" : std::string(code.substr(start));
}

bool ends_with_path(std::string_view a, std::string_view b) {
  // The same file written relative in one place and absolute in another.
  if (a.empty() || b.empty()) return false;
  return a.ends_with(b) || b.ends_with(a);
}

struct StackEntry {
  const Graph* graph;
  const Node* node;
  uint32_t depth;
  std::optional<size_t> frame;  // index into failure.traceback
};

std::vector<StackEntry> evaluation_stack(const Module& module) {
  std::vector<StackEntry> stack;
  for (const Graph& g : module.graphs)
    for (const Node& n : g.nodes)
      if (n.marker) stack.push_back({&g, &n, *n.marker, std::nullopt});
  std::stable_sort(stack.begin(), stack.end(), [](const StackEntry& a, const StackEntry& b) {
    return a.node->line < b.node->line;
  });
  if (!module.failure) return stack;
  const auto& frames = module.failure->traceback;
  for (StackEntry& e : stack) {
    for (const std::string& s : e.node->source) {
      auto [file, line] = source_place(s);
      for (size_t f = 0; f < frames.size() && !e.frame; ++f)
        if (frames[f].line == line && ends_with_path(frames[f].file, file)) e.frame = f;
    }
  }
  return stack;
}

std::string display_graph(const Graph& g) {
  return g.instance.empty() ? "@" + g.name : fmt::format("@{} (instance {})", g.name, g.instance);
}

std::string node_head(const Node& n) {
  std::string args;
  for (const Input& in : n.inputs) args += (args.empty() ? "" : ", ") + in.text;
  if (n.number && !n.name.empty())
    return fmt::format("%{}({}) = {}({})", *n.number, n.name, n.op, args);
  if (n.number) return fmt::format("%{} = {}({})", *n.number, n.op, args);
  return fmt::format("{}({})", n.op, args);
}

}  // namespace

ordered_json module_json(const Module& module) {
  ordered_json j;
  j["entry"] = module.entry;
  j["style"] = style_name(module.style);
  ordered_json declared = ordered_json::object();
  if (module.declared_graphs) declared["graphs"] = *module.declared_graphs;
  if (module.declared_params) declared["params"] = *module.declared_params;
  if (module.declared_nodes) declared["nodes"] = *module.declared_nodes;
  if (module.declared_cnodes) declared["cnodes"] = *module.declared_cnodes;
  j["declared"] = std::move(declared);
  j["attrs"] = pairs_json(module.attrs);
  ordered_json params = ordered_json::array();
  for (const Parameter& p : module.params) {
    ordered_json o;
    o["id"] = p.id();
    o["name"] = p.name;
    o["type"] = p.type;
    TypeSpec t = parse_type_spec(p.type);
    if (!t.dtype.empty()) o["dtype"] = t.dtype;
    if (t.shape) o["shape"] = *t.shape;
    if (!p.kernel.empty()) o["kernel"] = p.kernel;
    if (p.is_weight) o["is_weight"] = *p.is_weight;
    if (p.has_default) o["has_default"] = true;
    o["line"] = p.line;
    params.push_back(std::move(o));
  }
  j["params"] = std::move(params);
  ordered_json graphs = ordered_json::array();
  for (const Graph& g : module.graphs) {
    ordered_json o;
    o["name"] = g.name;
    if (!g.instance.empty()) o["instance"] = g.instance;
    if (!g.parent.empty()) o["parent"] = g.parent;
    o["params"] = g.params;
    if (!g.attrs.empty()) o["attrs"] = pairs_json(g.attrs);
    if (!g.location.empty()) o["location"] = g.location;
    if (!g.constants.empty()) o["constants"] = pairs_json(g.constants);
    ordered_json nodes = ordered_json::array();
    for (const Node& n : g.nodes) nodes.push_back(node_json(n));
    o["nodes"] = std::move(nodes);
    o["line"] = g.line;
    graphs.push_back(std::move(o));
  }
  j["graphs"] = std::move(graphs);
  ordered_json warnings = ordered_json::array();
  for (const Error& w : module.warnings) warnings.push_back(w.describe());
  j["warnings"] = std::move(warnings);
  if (module.failure) j["failure"] = why_json(module);
  return j;
}

Counts count_nodes(const Module& module, uint32_t scope_depth) {
  Counts c;
  c.graphs = module.graphs.size();
  c.parameters = module.params.size();
  std::map<std::string, uint64_t> ops, scopes, seen;
  for (const Graph& g : module.graphs) {
    // A repeated name (analyze_fail's instances) is told apart as the drawing does: "g#2".
    uint64_t instance = ++seen[g.name];
    c.graph.emplace_back(instance == 1 ? g.name : fmt::format("{}#{}", g.name, instance),
                         g.nodes.size());
    for (const Node& n : g.nodes) {
      ++c.nodes;
      ++ops[n.is_return                            ? "Return"
            : n.op_kind == Node::OpKind::Primitive ? n.op
            : n.op_kind == Node::OpKind::Call      ? "call"
                                                   : "(closure call)"];
      if (n.scope.empty()) continue;
      size_t at = 0;
      for (uint32_t depth = 1; depth <= scope_depth; ++depth) {
        size_t slash = n.scope.find('/', at);
        ++scopes[n.scope.substr(0, slash)];
        if (slash == std::string::npos) break;
        at = slash + 1;
      }
    }
  }
  c.ops.assign(ops.begin(), ops.end());
  std::stable_sort(c.ops.begin(), c.ops.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  c.scopes.assign(scopes.begin(), scopes.end());
  return c;
}

std::string counts_text(const Counts& c) {
  std::string out = table::align_columns({{"graphs", std::to_string(c.graphs)},
                                          {"parameters", std::to_string(c.parameters)},
                                          {"nodes", std::to_string(c.nodes)}});
  auto section = [&](std::string_view a, std::string_view b,
                     const std::vector<std::pair<std::string, uint64_t>>& rows) {
    std::vector<std::vector<std::string>> t{{std::string(a), std::string(b)}};
    for (const auto& [k, v] : rows) t.push_back({k, std::to_string(v)});
    out += "\n" + table::align_columns(t);
  };
  section("op", "nodes", c.ops);
  section("graph", "nodes", c.graph);
  if (!c.scopes.empty()) section("scope", "nodes", c.scopes);
  return out;
}

ordered_json counts_json(const Counts& c) {
  auto object = [](const std::vector<std::pair<std::string, uint64_t>>& rows) {
    ordered_json o = ordered_json::array();
    for (const auto& [k, v] : rows) o.push_back(ordered_json{{"name", k}, {"nodes", v}});
    return o;
  };
  ordered_json j;
  j["graphs"] = c.graphs;
  j["parameters"] = c.parameters;
  j["nodes"] = c.nodes;
  j["ops"] = object(c.ops);
  j["by_graph"] = object(c.graph);
  j["scopes"] = object(c.scopes);
  return j;
}

ordered_json why_json(const Module& module) {
  ordered_json j;
  const Failure* f = module.failure ? &*module.failure : nullptr;
  j["exception"] = f ? f->exception : "";
  j["cxx_stack"] = f ? f->cxx_stack : std::vector<std::string>{};
  ordered_json frames = ordered_json::array();
  if (f)
    for (size_t i = 0; i < f->traceback.size(); ++i) {
      const TracebackFrame& t = f->traceback[i];
      frames.push_back(ordered_json{{"index", t.index},
                                    {"file", t.file},
                                    {"line", t.line},
                                    {"where", t.where},
                                    {"code", t.code},
                                    {"innermost", i + 1 == f->traceback.size()}});
    }
  j["traceback"] = std::move(frames);
  if (f && f->graphs_in_stack) j["graphs_in_stack"] = *f->graphs_in_stack;
  ordered_json stack = ordered_json::array();
  for (const StackEntry& e : evaluation_stack(module)) {
    ordered_json s{{"depth", e.depth}, {"graph", e.graph->name}};
    if (!e.graph->instance.empty()) s["instance"] = e.graph->instance;
    s["node"] = node_json(*e.node);
    if (e.frame) s["frame"] = f->traceback[*e.frame].index;
    stack.push_back(std::move(s));
  }
  j["stack"] = std::move(stack);
  if (auto at = failing_node(module)) {
    const Graph& g = module.graphs[at->first];
    ordered_json n = node_json(g.nodes[at->second]);
    n["graph"] = g.name;
    if (!g.instance.empty()) n["instance"] = g.instance;
    j["failing_node"] = std::move(n);
  } else {
    j["failing_node"] = nullptr;
  }
  return j;
}

Expected<std::string> why_text(const Module& module) {
  if (!module.failure)
    return Error(
        "not an analyze_fail file: no failure report and no evaluation stack (spec ir.md §13)");
  const Failure& f = *module.failure;
  std::string out;
  out += "Exception:\n";
  if (f.exception.empty()) {
    out += "  (not in this file: MindSpore 1.x wrote it only to the Python log)\n";
  } else {
    size_t start = 0;
    while (start <= f.exception.size()) {
      size_t end = f.exception.find('\n', start);
      if (end == std::string::npos) end = f.exception.size();
      out += "  " + f.exception.substr(start, end - start) + "\n";
      start = end + 1;
    }
  }
  if (!f.traceback.empty()) {
    out += "\nTraceback of the network's Python code (innermost last):\n";
    for (size_t i = 0; i < f.traceback.size(); ++i) {
      const TracebackFrame& t = f.traceback[i];
      bool innermost = i + 1 == f.traceback.size();
      out +=
          fmt::format("{} #{} {}{}{}\n", innermost ? ">" : " ", t.index, t.file,
                      t.line ? fmt::format(":{}", t.line) : "", innermost ? "   <- innermost" : "");
      for (const std::string& code : t.code) out += "      " + code + "\n";
    }
  }
  auto at = failing_node(module);
  if (at) {
    const Graph& g = module.graphs[at->first];
    const Node& n = g.nodes[at->second];
    out += fmt::format("\nFailing node (line {}, in {}):\n", n.line, display_graph(g));
    out += "  " + node_head(n) + "\n";
    std::string op = n.op_kind == Node::OpKind::Call ? "call @" + n.callee : n.op;
    out += "  operator: " + op + "\n";
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      std::string type = i < n.input_types.size() ? n.input_types[i] : "";
      std::string label = type.empty() ? "" : parse_type_spec(type).label();
      out += fmt::format("  input {}: {}{}\n", i, n.inputs[i].text,
                         label.empty() ? "" : "  " + label + "  " + type);
    }
    if (!n.output_type.empty()) out += "  output: " + n.output_type + "\n";
    if (!n.fullname.empty())
      out += "  fullname: " + n.fullname + "\n";
    else if (!n.scope.empty())
      out += "  scope: " + n.scope + "\n";
    for (const std::string& s : n.source) out += "  source: " + s + "\n";
  } else {
    out += "\nFailing node: no `#------------------------>` marker in the file\n";
  }
  auto stack = evaluation_stack(module);
  if (!stack.empty()) {
    out += "\nEvaluation stack (outermost first):\n";
    std::vector<std::vector<std::string>> rows{{"depth", "graph", "node", "source", "frame"}};
    for (const StackEntry& e : stack) {
      std::string node =
          e.node->number ? fmt::format("%{} {}", *e.node->number, e.node->op) : e.node->op;
      std::string source;
      if (!e.node->source.empty()) {
        auto [file, line] = source_place(e.node->source.front());
        std::string code = source_code(e.node->source.front());
        size_t slash = file.find_last_of("/\\");
        source =
            fmt::format("{}:{}", slash == std::string::npos ? file : file.substr(slash + 1), line);
        if (!code.empty()) source += "  " + code;
      }
      rows.push_back({std::to_string(e.depth), display_graph(*e.graph), node,
                      source.empty() ? "-" : source,
                      e.frame ? fmt::format("#{}", f.traceback[*e.frame].index) : "-"});
    }
    std::string table = table::align_columns(rows);
    size_t start = 0;
    while (start < table.size()) {
      size_t end = table.find('\n', start);
      out += "  " + table.substr(start, end - start + 1);
      start = end + 1;
    }
  }
  if (!f.cxx_stack.empty()) {
    out += "\nC++ call stack (for framework developers):\n";
    for (const std::string& s : f.cxx_stack) out += "  " + s + "\n";
  }
  return out;
}

}  // namespace msdt::ir
