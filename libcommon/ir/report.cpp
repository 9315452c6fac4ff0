#include "ir/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "io/report.h"
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

// A node's JSON (--json, --why): its head (id, name, op, return, callee), its inputs, one object
// each, its input_types, and its tail (output type, dtype, shape, attributes, kernel, scope, full
// name, source, marker, line), in that order. In parts, so that --json streams the inputs.
ordered_json node_head_json(const Node& n) {
  ordered_json j = ordered_json::object();
  if (n.number) j["id"] = *n.number;
  if (!n.name.empty()) j["name"] = n.name;
  j["op"] = n.op;
  if (n.is_return) j["return"] = true;
  if (!n.callee.empty()) j["callee"] = n.callee;
  return j;
}

ordered_json input_json(const Input& in) {
  ordered_json i;
  i["kind"] = kind_name(in.kind);
  i["text"] = in.text;
  if (in.node) i["node"] = *in.node;
  if (!in.graph.empty()) i["graph"] = in.graph;
  if (!in.target.empty()) i["target"] = in.target;
  if (in.control) i["control"] = true;
  return i;
}

ordered_json node_tail_json(const Node& n) {
  ordered_json j = ordered_json::object();
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

// The whole node as one tree (--why's few nodes).
ordered_json node_json(const Node& n) {
  ordered_json j = node_head_json(n);
  ordered_json inputs = ordered_json::array();
  for (const Input& in : n.inputs) inputs.push_back(input_json(in));
  j["inputs"] = std::move(inputs);
  if (!n.input_types.empty()) j["input_types"] = n.input_types;
  ordered_json tail = node_tail_json(n);
  for (auto it = tail.begin(); it != tail.end(); ++it) j[it.key()] = std::move(it.value());
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

namespace {

// --json written as it is made, in pieces of about kPiece bytes: no JSON tree of the model is ever
// built (a tree value costs some hundred bytes, so a node of 10^6 operands took over 1 GB), only
// the small values (a type's shape, a node's attributes) are spelled as trees. The text is
// exactly what table::to_json_text(…, 2) writes for the same document.
class JsonStream {
 public:
  explicit JsonStream(const TextWriter& write) : write_(write) {}

  void open(char bracket) {
    out_ += bracket;
    counts_.push_back(0);
  }
  void close(char bracket) {
    size_t items = counts_.back();
    counts_.pop_back();
    if (items != 0) newline(counts_.size());
    out_ += bracket;
    flush();
  }
  // The next member of the object open (then its value), or the next element of the array open.
  void key(std::string_view name) {
    item();
    table::append_json_string(out_, name);
    out_ += ": ";
  }
  void element() { item(); }
  void value(const ordered_json& v) {
    table::append_json_text(out_, v, 2, static_cast<int>(counts_.size()));
    flush();
  }
  // Every member of the object `o`, in its order.
  void members(const ordered_json& o) {
    for (auto it = o.begin(); it != o.end(); ++it) {
      key(it.key());
      value(it.value());
    }
  }
  template <class T>
  void member(std::string_view name, const T& v) {
    key(name);
    value(ordered_json(v));
  }
  // An array of strings, on one line as to_json_text writes arrays of scalars, written as it goes.
  void strings(std::string_view name, const std::vector<std::string>& list) {
    key(name);
    out_ += '[';
    for (size_t i = 0; i < list.size(); ++i) {
      if (i != 0) out_ += ", ";
      table::append_json_string(out_, list[i]);
      flush();
    }
    out_ += ']';
  }
  Status finish() {
    out_ += '\n';
    flush(true);
    return failed_;
  }

 private:
  static constexpr size_t kPiece = size_t{1} << 20;
  void item() {
    if (counts_.back()++ != 0) out_ += ',';
    newline(counts_.size());
  }
  void newline(size_t level) {
    out_ += '\n';
    out_.append(2 * level, ' ');
  }
  void flush(bool last = false) {
    if ((out_.size() < kPiece && !last) || failed_) return;
    failed_ = write_(out_);
    out_.clear();
  }

  const TextWriter& write_;
  std::string out_;
  std::vector<size_t> counts_;  // items written in each container open
  Status failed_;
};

void node_json(JsonStream& j, const Node& n) {
  j.open('{');
  j.members(node_head_json(n));
  j.key("inputs");
  j.open('[');
  for (const Input& in : n.inputs) {
    j.element();
    j.value(input_json(in));
  }
  j.close(']');
  if (!n.input_types.empty()) j.strings("input_types", n.input_types);
  j.members(node_tail_json(n));
  j.close('}');
}

}  // namespace

Status write_module_json(const Module& module, const TextWriter& write) {
  JsonStream j(write);
  j.open('{');
  j.member("entry", module.entry);
  j.member("style", style_name(module.style));
  ordered_json declared = ordered_json::object();
  if (module.declared_graphs) declared["graphs"] = *module.declared_graphs;
  if (module.declared_params) declared["params"] = *module.declared_params;
  if (module.declared_nodes) declared["nodes"] = *module.declared_nodes;
  if (module.declared_cnodes) declared["cnodes"] = *module.declared_cnodes;
  j.key("declared");
  j.value(declared);
  j.key("attrs");
  j.value(pairs_json(module.attrs));
  j.key("params");
  j.open('[');
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
    j.element();
    j.value(o);
  }
  j.close(']');
  j.key("graphs");
  j.open('[');
  for (const Graph& g : module.graphs) {
    j.element();
    j.open('{');
    j.member("name", g.name);
    if (!g.instance.empty()) j.member("instance", g.instance);
    if (!g.parent.empty()) j.member("parent", g.parent);
    j.strings("params", g.params);
    if (!g.attrs.empty()) {
      j.key("attrs");
      j.value(pairs_json(g.attrs));
    }
    if (!g.location.empty()) j.member("location", g.location);
    if (!g.constants.empty()) {
      j.key("constants");
      j.value(pairs_json(g.constants));
    }
    j.key("nodes");
    j.open('[');
    for (const Node& n : g.nodes) {
      j.element();
      node_json(j, n);
    }
    j.close(']');
    j.member("line", g.line);
    j.close('}');
  }
  j.close(']');
  ordered_json warnings = ordered_json::array();
  for (const Error& w : module.warnings) warnings.push_back(w.describe());
  j.key("warnings");
  j.value(warnings);
  if (module.failure) {
    j.key("failure");
    j.value(why_json(module));
  }
  j.close('}');
  return j.finish();
}

std::string module_json_text(const Module& module) {
  std::string text;
  (void)write_module_json(module, [&](std::string_view piece) -> Status {
    text += piece;
    return std::nullopt;
  });
  return text;
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
    // Names come from the file: escaped for the terminal as every text table's cells are.
    for (const auto& [k, v] : rows) t.push_back({printable_path(k), std::to_string(v)});
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
      rows.push_back({std::to_string(e.depth), printable_text(display_graph(*e.graph)),
                      printable_text(node), source.empty() ? "-" : printable_text(source),
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
  // Everything above is the file's text: no control byte of it reaches the terminal (the table's
  // cells were escaped before alignment; escaping again changes nothing).
  std::string safe;
  for (size_t start = 0; start < out.size();) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    safe += printable_text(std::string_view(out).substr(start, end - start));
    if (end < out.size()) safe += '\n';
    start = end + 1;
  }
  return safe;
}

}  // namespace msdt::ir
