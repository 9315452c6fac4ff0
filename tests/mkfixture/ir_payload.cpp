// "ir": a MindSpore graph text dump (.ir) in the text style of one MindSpore version
// (docs: README.md, "ir"; format: spec/ir.md §2-§5). The description states graphs, parameters and
// nodes; the writer lays out the header, parameter lines, subgraph skeletons, node head lines and
// continuation lines exactly as the chosen style prints them, and computes the counts, the global
// %paraN numbering, the "# Parameters:" lines, the node counting block and the "# Order:" blocks
// unless the description overrides them.
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "payloads.h"

namespace msdt::fixture {
namespace {

enum class Style { A, B, C, Rdr };

struct Version {
  int major = 0;
  int minor = 0;
  bool before(int ma, int mi) const { return major < ma || (major == ma && minor < mi); }
};

Version parse_version(const Node& node) {
  std::string text = node.string();
  size_t dot = text.find('.');
  auto major = parse_u64_literal(text.substr(0, dot));
  auto minor = dot == std::string::npos ? std::optional<uint64_t>(0)
                                        : parse_u64_literal(text.substr(dot + 1));
  if (!major || !minor || *major > 99 || *minor > 99)
    node.fail("expected a version such as \"1.10\" or \"2.3\", found \"" + text + "\"");
  return Version{static_cast<int>(*major), static_cast<int>(*minor)};
}

struct Param {
  std::string name;
  std::string type;  // "<…>" as printed
  bool has_default = false;
  std::optional<std::string> kernel;
  bool is_weight = false;
  std::optional<std::string> symbolic;
  size_t number = 0;  // N of %paraN_
  std::string ref() const { return "%para" + std::to_string(number) + "_" + name; }
};

struct Writer {
  Style style = Style::C;
  Version version;
  std::ostringstream out;
  std::vector<Param> params;  // entry params first, then the subgraphs' own, in numbering order
  uint64_t next_uid = 1;

  bool spaced() const { return style == Style::A || style == Style::B; }  // "key : value"
  bool style_c_spacing() const {
    return style == Style::C || (style == Style::Rdr && !version.before(2, 3));
  }

  // "<Tensor[Float32], (2, 3)>" in the notation of the version (spec §4).
  std::string type_shape(const std::string& type, const std::optional<Node>& shape) const {
    if (type.starts_with("<")) {
      return type;
    }
    if (!shape) return "<" + type + ">";
    std::string dims;
    for (const auto& d : shape->elements()) {
      dims += (dims.empty() ? "" : ", ") + std::to_string(d.i64());
    }
    if (version.before(1, 4)) return "<" + type + "x[const vector][" + dims + "]>";
    if (version.before(1, 5)) return "<" + type + "x(" + dims + ")>";
    return "<" + type + ", (" + dims + ")>";
  }

  // A type given as "<…>" (verbatim), "UMonad" (wrapped) or {"type", "shape"}.
  std::string type_text(const Node& node) const {
    if (node.is_string()) return type_shape(node.string(), std::nullopt);
    node.check_keys({"type", "shape"});
    return type_shape(node.at("type").string(), node.find("shape"));
  }

  std::string attr_line(const std::string& key, const Node& value) const {
    std::string text;
    if (value.value().is_boolean())
      text = value.boolean() ? "1" : "0";
    else if (value.is_string())
      text = value.string();
    else if (value.value().is_number_integer())
      text = std::to_string(value.i64());
    else
      value.fail("expected an integer, true/false or a string, found " + brief(value.value()));
    return key + (style_c_spacing() ? ": " : " : ") + text;
  }

  void attr_lines(const Node& attrs) {
    if (!attrs.is_object()) attrs.fail("expected an object, found " + brief(attrs.value()));
    for (const auto& [key, value] : attrs.value().items()) {
      out << attr_line(key, attrs.at(key)) << "\n";
    }
  }

  Param read_param(const Node& node) {
    Param p;
    if (node.is_string()) {
      p.name = node.string();
      p.type = "<null>";
      return p;
    }
    node.check_keys({"name", "type", "shape", "default", "kernel", "is_weight", "symbolic"});
    p.name = node.at("name").string();
    p.type = node.has("type") ? type_shape(node.at("type").string(), node.find("shape"))
                              : std::string("<null>");
    if (auto d = node.find("default")) p.has_default = d->boolean();
    if (auto k = node.find("kernel")) p.kernel = type_shape(k->string(), std::nullopt);
    if (auto w = node.find("is_weight")) p.is_weight = w->boolean();
    if (auto s = node.find("symbolic")) {
      if (s->is_string()) {
        p.symbolic = s->string();
      } else if (s->boolean()) {
        s->fail("expected a string or false");
      }
    } else if (auto shape = node.find("shape")) {
      std::string dims;
      for (const auto& d : shape->elements())
        dims += (dims.empty() ? "" : ", ") + std::to_string(d.i64());
      p.symbolic = "[" + dims + "]";
    }
    return p;
  }

  std::string param_line(const Param& p) const {
    std::string line = p.ref();
    std::string kernel;
    if (p.kernel)
      kernel = "  :  " + *p.kernel + "  :  IsWeight:" + (style == Style::A ? "" : " ") +
               (p.is_weight ? "true" : "false");
    if (style == Style::A) {
      line += " : " + p.type + kernel;
      if (p.has_default) line += "  :  has_default";
      return line;
    }
    if (style_c_spacing()) {
      line += ": " + p.type;
      if (p.symbolic) line += " : " + *p.symbolic;
    } else {
      line += " : " + p.type;
    }
    if (p.has_default) line += "  :  has_default";
    return line + kernel;
  }

  const Param* find_param_ref(const std::string& ref) const {
    for (const auto& p : params)
      if (p.ref() == ref) return &p;
    return nullptr;
  }
  const Param* find_param_name(const std::string& name) const {
    for (const auto& p : params)
      if (p.name == name) return &p;
    return nullptr;
  }
};

struct GraphNode {
  bool is_return = false;
  bool is_raw = false;
  std::string raw;
  int64_t id = 0;
  std::string name;
  std::string op;
  std::vector<std::string> inputs;
  std::optional<std::string> type_out;
};

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

// "param:x" names parameter x by its name; the written operand is its %paraN_x.
std::string operand(const Writer& w, const Node& node) {
  std::string text = node.string();
  if (text.starts_with("param:")) {
    const Param* p = w.find_param_name(text.substr(6));
    if (p == nullptr) node.fail("no parameter named \"" + text.substr(6) + "\"");
    return p->ref();
  }
  return text;
}

void write_node(Writer& w, const Node& n, std::vector<GraphNode>& done, int64_t& next_id,
                const std::string& graph, std::vector<std::string>& order) {
  GraphNode g;
  std::ostream& out = w.out;
  if (n.has("raw")) {
    n.check_keys({"raw"});
    out << n.at("raw").string() << "\n";
    return;
  }
  g.is_return = n.has("return");
  // "#------------------------> D" right before the node (spec §13, §3.1).
  if (auto m = n.find("marker")) out << "#------------------------> " << m->u64() << "\n";
  if (g.is_return) {
    n.check_keys({"return", "name", "uid", "type_in", "extra", "scope", "fullname", "source",
                  "order", "marker"});
    g.op = w.version.before(1, 2) ? "return" : "Return";
    g.inputs.push_back(operand(w, n.at("return")));
  } else {
    n.check_keys({"id", "name", "uid", "op", "inputs", "type_in", "type_out", "primitive_attrs",
                  "cnode_attrs", "cnode_primal_attrs", "suffix", "extra", "scope", "fullname",
                  "source", "order", "marker"});
    g.id = n.has("id") ? n.at("id").i64() : next_id;
    next_id = g.id + 1;
    g.op = n.at("op").string();
    if (auto in = n.find("inputs"))
      for (const auto& i : in->elements()) g.inputs.push_back(operand(w, i));
  }
  if (auto name = n.find("name")) {
    g.name = name->string();
  } else {
    uint64_t uid = n.has("uid") ? n.at("uid").u64() : w.next_uid;
    w.next_uid = uid + 1;
    g.name = (w.version.before(2, 2) ? "[CNode]" : "CNode_") + std::to_string(uid);
  }

  // Head line (spec §3.1).
  std::string call = g.op + "(" + join(g.inputs) + ")";
  if (g.is_return) {
    out << "  " << call;
  } else {
    out << "  %" << g.id << "(" << g.name << ") = " << call;
    for (auto key : {"primitive_attrs", "cnode_attrs", "cnode_primal_attrs"})
      if (auto a = n.find(key)) out << " " << key << ": {" << a->string() << "}";
    if (auto s = n.find("suffix")) out << s->string();
    if (auto t = n.find("type_out")) g.type_out = w.type_text(*t);
  }
  out << "\n";

  // Inferred type line (§3.5 item 1): given, or derived from the operands' types.
  auto derive = [&](size_t i, const Node& where) -> std::optional<std::string> {
    const std::string& in = g.inputs[i];
    if (const Param* p = w.find_param_ref(in)) return p->type;
    if (in == "U") return std::string("<UMonad>");
    if (in == "IO") return std::string("<IOMonad>");
    if (in.starts_with("@")) return std::string("<Func>");
    if (in.starts_with("%")) {
      for (const auto& d : done)
        if (!d.is_return && "%" + std::to_string(d.id) == in && d.type_out) return d.type_out;
    }
    if (g.is_return) return std::nullopt;
    where.fail("cannot derive the type of operand " + std::to_string(i) + " (\"" + in +
               "\"); give \"type_in\"");
  };
  std::vector<std::string> types_in;
  bool type_line = g.is_return || g.type_out.has_value();
  if (auto t = n.find("type_in")) {
    for (const auto& e : t->elements()) types_in.push_back(w.type_text(e));
    type_line = true;
  } else if (type_line) {
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      auto d = derive(i, n);
      if (!d) {
        type_line = false;
        break;
      }
      types_in.push_back(*d);
    }
  }
  if (type_line) {
    out << "      : (" << join(types_in) << ")";
    if (!g.is_return) out << " -> (" << (g.type_out ? *g.type_out : "") << ")";
    out << "\n";
  }
  if (auto e = n.find("extra"))
    for (const auto& line : e->elements()) out << "      " << line.string() << "\n";
  if (auto s = n.find("scope")) {
    bool full = n.has("fullname") && n.at("fullname").boolean();
    const std::string scope = s->string();
    if (w.version.before(1, 7))
      out << "      : (" << scope << ")\n";
    else if (w.version.before(2, 0))
      out << "      # " << (full ? "fullname_with_scope" : "scope") << ": (" << scope << ")\n";
    else
      out << "      # " << (full ? "Fullname with scope" : "Scope") << ": (" << scope << ")\n";
  }
  if (auto src = n.find("source"))
    for (const auto& line : src->elements()) out << "      # In file " << line.string() << "\n";

  // "# Order:" entry (§2.2): operator as a value node, operands by name.
  if (auto o = n.find("order")) {
    order.push_back(o->string());
  } else {
    std::string entry = "@" + graph + ":" + g.name + "{[0]: ";
    if (g.op.starts_with("call @"))
      entry += "ValueNode<FuncGraph> " + g.op.substr(6);
    else if (g.op.starts_with("%") || g.op.starts_with("$")) {
      // A call through a local closure names the closure's node.
      std::string callee = g.op.substr(0, g.op.find('['));
      for (const auto& d : done)
        if (!d.is_return && "%" + std::to_string(d.id) == callee) callee = d.name;
      entry += callee;
    } else
      entry += "ValueNode<Primitive> " + g.op;
    for (size_t i = 0; i < g.inputs.size(); ++i) {
      std::string in = g.inputs[i];
      if (const Param* p = w.find_param_ref(in)) {
        in = p->name;
      } else {
        for (const auto& d : done)
          if (!d.is_return && "%" + std::to_string(d.id) == in) in = d.name;
      }
      entry += ", [" + std::to_string(i + 1) + "]: " + in;
    }
    order.push_back(entry + "}");
  }
  done.push_back(g);
}

const std::string kRule95 = "# " + std::string(95, '=') + "\n";
const std::string kRestBanner =
    kRule95 + "# The rest function graphs are the following:\n" + kRule95;

// An analyze_fail report (spec §13.2, §13.3): the text before the graphs, and where the graphs of
// the evaluation stack end.
struct Report {
  bool middle = false;
  std::string head;
  size_t stack_graphs = 0;
  uint64_t graphs_in_stack = 0;
};

std::vector<std::string> lines_of(const Node& node) {
  std::vector<std::string> lines;
  for (const auto& line : node.elements()) lines.push_back(line.string());
  return lines;
}

Report read_report(const Node& f, Version version, size_t graphs) {
  f.check_keys({"form", "exception", "cxx_stack", "traceback", "stack_graphs", "graphs_in_stack"});
  Report r;
  const std::string form = f.has("form")          ? f.at("form").string()
                           : version.before(2, 2) ? std::string("middle")
                                                  : std::string("2.2");
  if (form != "2.2" && form != "middle")
    f.at("form").fail("expected \"2.2\" or \"middle\", found \"" + form + "\"");
  r.middle = form == "middle";
  r.stack_graphs = f.has("stack_graphs") ? f.at("stack_graphs").u64() : graphs;
  r.graphs_in_stack = f.has("graphs_in_stack") ? f.at("graphs_in_stack").u64() : r.stack_graphs;
  std::ostringstream out;
  if (r.middle) {
    for (const char* key : {"exception", "cxx_stack", "traceback"})
      if (f.has(key)) f.at(key).fail("the middle form (1.8-2.1) has no report sections");
    out << "# 1.This file shows the parsed IR info when graph evaluating failed to help find the "
           "problem.\n"
           "# 2.You can search the last `------------------------>` to the node which is inferred "
           "failed.\n"
           "# 3.Refer to https://www.mindspore.cn/search?inputValue=analyze_fail.ir to get more "
           "instructions.\n# "
        << std::string(79, '=') << "\n\n";
    r.head = out.str();
    return r;
  }
  const std::string dashes(52, '-');
  auto section = [&](const std::string& title) {
    out << dashes << "\n- " << title << "\n" << dashes << "\n";
  };
  out << kRule95 << "# The following shows the last analyze fail log message.\n" << kRule95 << "\n";
  if (auto e = f.find("exception")) {
    section("Caught exception:");
    for (const auto& line : lines_of(*e)) out << line << "\n";
    out << "\n";
  }
  if (auto c = f.find("cxx_stack")) {
    section("C++ Call Stack: (For framework developers)");
    for (const auto& line : lines_of(*c)) out << line << "\n";
    out << "\n";
  }
  if (auto t = f.find("traceback")) {
    section("The Traceback of Net Construct Code:");
    size_t index = 0;
    for (const auto& frame : t->elements()) {
      frame.check_keys({"file", "line", "where", "code"});
      std::string where =
          frame.has("where") ? frame.at("where").string() : std::to_string(frame.at("line").u64());
      out << "# " << index++ << " In file " << frame.at("file").string() << ":" << where << "\n";
      if (auto code = frame.find("code"))
        for (const auto& line : lines_of(*code)) out << line << "\n";
    }
    out << "\n";
  }
  out << kRule95
      << "# The following shows the IR when the function graphs evaluation fails to help locate "
         "the problem.\n"
         "# You can search the last ------------------------> to the node which is evaluated "
         "failure.\n"
         "# Refer to https://www.mindspore.cn/search?inputValue=analyze_fail.ir to get more "
         "instructions.\n"
      << kRule95 << "\n";
  r.head = out.str();
  return r;
}

std::vector<std::byte> build_dat(const Node& ir);

}  // namespace

std::vector<std::byte> build_ir(const Node& ir) {
  if (ir.has("style") && ir.at("style").is_string() && ir.at("style").string() == "dat")
    return build_dat(ir);
  ir.check_keys({"style", "version", "entry", "attrs", "params", "graphs", "total_params",
                 "total_subgraphs", "node_count", "blank_lines_between", "raw_lines", "failure"});
  Writer w;
  const Node style = ir.at("style");
  const std::string s = style.string();
  std::string default_version;
  if (s == "A") {
    w.style = Style::A;
    default_version = "1.10";
  } else if (s == "B") {
    w.style = Style::B;
    default_version = "2.1";
  } else if (s == "C") {
    w.style = Style::C;
    default_version = "2.3";
  } else if (s == "rdr") {
    w.style = Style::Rdr;
    default_version = "2.3";
  } else {
    style.fail("expected \"A\", \"B\", \"C\", \"rdr\" or \"dat\", found \"" + s + "\"");
  }
  if (auto v = ir.find("version")) {
    w.version = parse_version(*v);
  } else {
    json text = default_version;
    w.version = parse_version(Node(text, "version"));
  }
  if (w.style == Style::Rdr && w.version.before(2, 0))
    ir.at("version").fail("the rdr order is 2.x only; 1.x RDR files are style \"A\"");

  // Parameters: the entry graph's first, then each subgraph's own, numbered globally (§5).
  if (auto ps = ir.find("params"))
    for (const auto& p : ps->elements()) w.params.push_back(w.read_param(p));
  const size_t entry_params = w.params.size();
  for (size_t i = 0; i < w.params.size(); ++i) w.params[i].number = i + 1;

  const auto graphs = ir.at("graphs").elements();
  if (graphs.empty()) ir.at("graphs").fail("expected at least one graph");
  std::vector<std::vector<size_t>> graph_params(graphs.size());  // indexes into w.params
  for (size_t gi = 0; gi < graphs.size(); ++gi) {
    const Node& g = graphs[gi];
    g.check_keys({"name", "parent", "params", "attrs", "address", "prefix_lines", "location",
                  "side_effect", "parameters_line", "nodes", "order"});
    if (auto ps = g.find("params")) {
      for (const auto& p : ps->elements()) {
        const Param* existing = nullptr;
        if (p.is_string()) {
          for (size_t k = 0; k < entry_params; ++k)
            if (w.params[k].name == p.string()) existing = &w.params[k];
        }
        if (existing != nullptr) {
          graph_params[gi].push_back(existing->number - 1);
        } else {
          w.params.push_back(w.read_param(p));
          w.params.back().number = w.params.size();
          graph_params[gi].push_back(w.params.size() - 1);
        }
      }
    }
  }
  const std::string entry =
      ir.has("entry") ? ir.at("entry").string() : graphs[0].at("name").string();
  std::optional<Report> report;
  if (auto f = ir.find("failure")) report = read_report(*f, w.version, graphs.size());
  const bool middle = report && report->middle;

  std::ostream& out = w.out;
  const bool c_spacing = w.style_c_spacing();
  auto write_header = [&] {
    if (w.style == Style::A) {
      out << "#IR entry      : @" << entry << "\n#attrs         :\n";
      if (auto a = ir.find("attrs")) w.attr_lines(*a);
      return;
    }
    // analyze_fail.ir writes 0 whatever follows (spec §13.3).
    const uint64_t declared = report ? 0 : graphs.size();
    out << "# IR entry: @" << entry << "\n# Total subgraphs: "
        << (ir.has("total_subgraphs") ? ir.at("total_subgraphs").u64() : declared) << "\n\n";
    if (auto a = ir.find("attrs"); a && !a->value().empty()) {
      out << "# Attrs:\n";
      w.attr_lines(*a);
      out << "\n";
    }
  };
  const uint64_t total_params =
      ir.has("total_params") ? ir.at("total_params").u64() : static_cast<uint64_t>(entry_params);
  auto write_params = [&] {
    if (w.style == Style::A) {
      out << "#Total params  : " << total_params << "\n\n";
      for (size_t i = 0; i < entry_params; ++i) out << w.param_line(w.params[i]) << "\n";
      out << "\n#Total subgraph : "
          << (ir.has("total_subgraphs") ? ir.at("total_subgraphs").u64() : graphs.size()) << "\n\n";
      return;
    }
    out << "# Total params: " << total_params << "\n";
    if (entry_params > 0) out << "# Params:\n";
    for (size_t i = 0; i < entry_params; ++i) out << w.param_line(w.params[i]) << "\n";
    out << "\n";
  };

  // Body first (the node counting block needs the counts), then the file in the style's order.
  const uint64_t blank_between =
      ir.has("blank_lines_between") ? ir.at("blank_lines_between").u64() : 1;
  uint64_t cnodes = 0, value_nodes = 0;
  std::string body;
  {
    std::ostringstream saved;
    saved.swap(w.out);
    for (size_t gi = 0; gi < graphs.size(); ++gi) {
      const Node& g = graphs[gi];
      const std::string name = g.at("name").string();
      if (report && !middle && gi == report->stack_graphs) out << kRestBanner;
      if (gi > 0)
        for (uint64_t b = 0; b < blank_between; ++b) out << "\n";
      if (auto pre = g.find("prefix_lines"))
        for (const auto& line : pre->elements()) out << line.string() << "\n";
      out << "subgraph attr:\n";
      if (auto a = g.find("attrs")) w.attr_lines(*a);
      bool instance = w.style != Style::A || !w.version.before(1, 7);
      if (w.style == Style::A && !w.version.before(2, 0)) instance = true;
      std::string address;
      if (auto addr = g.find("address")) {
        if (addr->value().is_boolean()) {
          if (addr->boolean()) addr->fail("expected an address string or false");
          instance = false;
        } else {
          address = addr->string();
        }
      } else {
        std::ostringstream hex;
        hex << "0x" << std::hex << (0x135400000 + 0x418 * gi);
        address = hex.str();
      }
      if (instance) out << "subgraph instance: " << name << " : " << address << "\n";
      if (auto loc = g.find("location")) out << "# In file " << loc->string() << "\n";
      if (auto se = g.find("side_effect")) out << "# SideEffect: " << se->string() << "\n";
      const bool is_entry = name == entry;
      bool parameters_line = c_spacing && !is_entry && !graph_params[gi].empty();
      std::optional<std::string> parameters_text;
      if (auto pl = g.find("parameters_line")) {
        if (pl->is_string()) {
          parameters_text = pl->string();
          parameters_line = true;
        } else {
          parameters_line = pl->boolean();
        }
      }
      if (parameters_line) {
        if (!parameters_text) {
          std::vector<std::string> types;
          for (size_t k : graph_params[gi]) types.push_back(w.params[k].type);
          parameters_text = std::to_string(graph_params[gi].size()) + ", (" + join(types) + ")";
        }
        out << "# Parameters: " << *parameters_text << "\n";
      }
      out << "subgraph @" << name;
      if (auto p = g.find("parent"); p && !p->value().is_null()) {
        if (w.style == Style::A && w.version.before(2, 0))
          p->fail("style A (1.x) has no parent: part");
        out << " parent: [subgraph @" << p->string() << "]";
      }
      std::vector<std::string> refs;
      for (size_t k : graph_params[gi]) refs.push_back(w.params[k].ref());
      out << "(" << join(refs) << ") {\n";
      std::vector<GraphNode> done;
      std::vector<std::string> order;
      int64_t next_id = 0;
      for (const auto& n : g.at("nodes").elements()) {
        size_t before = done.size();
        write_node(w, n, done, next_id, name, order);
        if (done.size() > before) {
          ++cnodes;
          const GraphNode& d = done.back();
          // Value nodes: the operator (a primitive or a graph) and constant operands.
          if (!d.op.starts_with("%") && !d.op.starts_with("$")) ++value_nodes;
          for (const auto& in : d.inputs)
            if (!in.starts_with("%") && !in.starts_with("$")) ++value_nodes;
        }
      }
      out << "}\n";
      bool write_order = w.style != Style::A || !w.version.before(2, 0);
      if (auto o = g.find("order")) write_order = o->boolean();
      if (write_order) {
        out << "# Order:\n";
        for (size_t i = 0; i < order.size(); ++i)
          out << "#   " << (i + 1) << ": " << order[i] << "\n";
      }
      if (w.style == Style::A) out << "\n";
    }
    if (report && !middle) {
      if (report->stack_graphs >= graphs.size()) out << kRestBanner << "No more function graphs.\n";
    } else if (middle) {
      out << "#" << std::string(79, '=')
          << "\n# num of function graphs in stack: " << report->graphs_in_stack << "\n";
    }
    body = w.out.str();
    saved.swap(w.out);
  }

  auto write_node_count = [&] {
    bool on = c_spacing;
    uint64_t nodes = cnodes + w.params.size() + value_nodes, count_cnodes = cnodes;
    if (auto nc = ir.find("node_count")) {
      if (nc->is_object()) {
        nc->check_keys({"nodes", "cnodes"});
        if (nc->has("nodes")) nodes = nc->at("nodes").u64();
        if (nc->has("cnodes")) count_cnodes = nc->at("cnodes").u64();
        on = true;
      } else {
        on = nc->boolean();
      }
    }
    if (on)
      out << "Node counting information:\nTotal number of nodes: " << nodes
          << "\nTotal number of cnodes: " << count_cnodes << "\n\n";
  };

  if (report) out << report->head;
  if (middle) {
    // The 1.8-2.1 form has no header: the banner, then the subgraphs (spec §13.2).
  } else if (w.style == Style::Rdr) {
    write_params();
    write_node_count();
    write_header();
  } else {
    write_header();
    write_params();
    write_node_count();
  }
  out << body;
  if (auto raw = ir.find("raw_lines"))
    for (const auto& line : raw->elements()) out << line.string() << "\n";

  std::string text = w.out.str();
  std::vector<std::byte> bytes;
  bytes.reserve(text.size());
  for (char c : text) bytes.push_back(static_cast<std::byte>(c));
  return bytes;
}

}  // namespace msdt::fixture

// "style": "dat": the 1.x `.dat` export (spec §8) and the 1.x analyze_fail.dat (§13.1) from the
// same graph description: `# [No.K] <name>`, `funcgraph fg_<id>[fg_<parent>](`, parameter lines
// numbered across the file, `%k : <type> = Primitive::<Op>{prim_type=1}[attrs](args)    #(types)
// #scope: <scope>` node lines and their `      # In file …#<name>` debug lines.
namespace msdt::fixture {
namespace {

// DumpText forms of the element types (spec §8: `Tensor(F32)[2, 3]`).
std::string dat_dtype(const std::string& name) {
  static const std::map<std::string, std::string> kShort = {
      {"Float16", "F16"}, {"Float32", "F32"}, {"Float64", "F64"}, {"BFloat16", "BF16"},
      {"Int8", "I8"},     {"Int16", "I16"},   {"Int32", "I32"},   {"Int64", "I64"},
      {"UInt8", "U8"},    {"UInt16", "U16"},  {"UInt32", "U32"},  {"UInt64", "U64"},
      {"Bool", "Bool"}};
  auto it = kShort.find(name);
  return it == kShort.end() ? name : it->second;
}

// "Tensor[Float32]" -> "Tensor(F32)", "Ref[Tensor[Float32]]" -> "Ref[Tensor(F32)]".
std::string dat_type_name(const std::string& type) {
  if (type.starts_with("Ref[") && type.ends_with("]"))
    return "Ref[" + dat_type_name(type.substr(4, type.size() - 5)) + "]";
  if (type.starts_with("Tensor[") && type.ends_with("]"))
    return "Tensor(" + dat_dtype(type.substr(7, type.size() - 8)) + ")";
  return type;
}

// A type of the description in the .dat notation: "<…>" loses its angle brackets, another string
// is verbatim, {"type", "shape"} is converted.
std::string dat_type(const Node& node) {
  if (node.is_string()) {
    std::string text = node.string();
    if (text.starts_with("<") && text.ends_with(">")) return text.substr(1, text.size() - 2);
    return text;
  }
  node.check_keys({"type", "shape"});
  std::string text = dat_type_name(node.at("type").string());
  if (auto shape = node.find("shape")) {
    std::string dims;
    for (const auto& d : shape->elements())
      dims += (dims.empty() ? "" : ", ") + std::to_string(d.i64());
    text += "[" + dims + "]";
  }
  return text;
}

struct DatParam {
  std::string name;
  std::optional<std::string> type;  // none: "Undefined", written without " : <type>"
  size_t number = 0;
};

DatParam read_dat_param(const Node& node) {
  DatParam p;
  if (node.is_string()) {
    p.name = node.string();
    return p;
  }
  node.check_keys({"name", "type", "shape"});
  p.name = node.at("name").string();
  if (node.has("type")) {
    json t = json::object();
    t["type"] = node.at("type").value();
    if (node.has("shape")) t["shape"] = node.at("shape").value();
    p.type = node.at("type").string().starts_with("<") ? dat_type(node.at("type"))
                                                       : dat_type(Node(t, node.path()));
  }
  return p;
}

// The graph id of "254_129_1_construct_wrapper.905": the digits at the end of the name.
std::string default_fg_id(const std::string& name, size_t index) {
  size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  if (end == name.size()) return std::to_string(index + 1);
  return name.substr(end);
}

std::vector<std::byte> build_dat(const Node& ir) {
  ir.check_keys(
      {"style", "version", "entry", "params", "graphs", "total_subgraphs", "raw_lines", "failure"});
  Version version{1, 5};
  if (auto v = ir.find("version")) version = parse_version(*v);
  if (!version.before(2, 0)) ir.at("version").fail("the .dat export is 1.x only");
  const auto graphs = ir.at("graphs").elements();
  if (graphs.empty()) ir.at("graphs").fail("expected at least one graph");

  std::optional<size_t> stack_graphs;
  std::optional<uint64_t> graphs_in_stack;
  if (auto f = ir.find("failure")) {
    f->check_keys({"form", "stack_graphs", "graphs_in_stack"});
    if (auto form = f->find("form"); form && form->string() != "dat")
      form->fail("a .dat file has only the \"dat\" form (no report sections)");
    stack_graphs = f->has("stack_graphs") ? f->at("stack_graphs").u64() : graphs.size();
    graphs_in_stack = f->has("graphs_in_stack") ? f->at("graphs_in_stack").u64() : *stack_graphs;
  }

  // Graph ids first: operands and parents name graphs by them.
  std::map<std::string, std::string> ids;  // name -> "fg_<id>"
  for (size_t gi = 0; gi < graphs.size(); ++gi) {
    const Node& g = graphs[gi];
    const std::string name = g.at("name").string();
    std::string id = g.has("id") ? std::to_string(g.at("id").u64()) : default_fg_id(name, gi);
    ids.emplace(name, "fg_" + id);
  }
  auto graph_ref = [&](const Node& where, const std::string& name) {
    auto it = ids.find(name);
    if (it == ids.end()) where.fail("no graph named \"" + name + "\"");
    return it->second;
  };

  // Parameters are numbered across the file, in the order of the graphs (AnfExporter's
  // param_index); the entry graph lists the description's "params" first.
  std::vector<DatParam> entry_params;
  if (auto ps = ir.find("params"))
    for (const auto& p : ps->elements()) entry_params.push_back(read_dat_param(p));
  const std::string entry =
      ir.has("entry") ? ir.at("entry").string() : graphs[0].at("name").string();
  size_t next_param = 1;
  bool entry_numbered = false;

  std::ostringstream out;
  for (size_t gi = 0; gi < graphs.size(); ++gi) {
    const Node& g = graphs[gi];
    g.check_keys({"name", "id", "parent", "params", "address", "location", "nodes", "order"});
    const std::string name = g.at("name").string();
    if (stack_graphs && gi == *stack_graphs) out << "#" << std::string(79, '=') << "\n\n\n";
    std::vector<DatParam> params;
    if (name == entry) {
      if (!entry_numbered)
        for (auto& p : entry_params) p.number = next_param++;
      entry_numbered = true;
      params = entry_params;
    }
    const size_t own = params.size();
    if (auto ps = g.find("params"))
      for (const auto& p : ps->elements()) params.push_back(read_dat_param(p));
    for (size_t i = own; i < params.size(); ++i) params[i].number = next_param++;

    out << "# [No." << (gi + 1) << "] " << name;
    if (auto a = g.find("address")) out << " @ctx.addr=" << a->string();
    out << "\n";
    if (auto loc = g.find("location"))
      out << "# In file " << loc->string() << "\n";
    else
      out << "\n";  // the writer prints the empty debug info as an empty line
    out << "funcgraph " << graph_ref(g, name);
    if (auto p = g.find("parent"); p && !p->value().is_null())
      out << "[" << graph_ref(*p, p->string()) << "]";
    out << "(\n";
    for (size_t i = 0; i < params.size(); ++i) {
      out << (i == 0 ? "        " : "        , ") << "%para" << params[i].number;
      if (params[i].type) out << " : " << *params[i].type;
      out << "    # " << params[i].name << "\n";
    }
    out << (params.empty() ? "" : "    ") << ") {\n";

    // Operands: "param:x" -> %paraN (this graph's, then the entry graph's), "@g" ->
    // FuncGraph::fg_N.
    auto operand = [&](const Node& node) {
      std::string text = node.string();
      if (text.starts_with("param:")) {
        for (const auto& p : params)
          if (p.name == text.substr(6)) return "%para" + std::to_string(p.number);
        for (const auto& p : entry_params)
          if (p.name == text.substr(6)) return "%para" + std::to_string(p.number);
        node.fail("no parameter named \"" + text.substr(6) + "\"");
      }
      if (text.starts_with("@")) return "FuncGraph::" + graph_ref(node, text.substr(1));
      return text;
    };
    std::map<std::string, std::string> node_types;  // "%k" -> its type
    std::vector<std::string> order;
    int64_t next_id = 1;
    uint64_t next_uid = 1;
    for (const auto& n : g.at("nodes").elements()) {
      if (n.has("raw")) {
        n.check_keys({"raw"});
        out << n.at("raw").string() << "\n";
        continue;
      }
      const bool is_return = n.has("return");
      if (is_return)
        n.check_keys({"return", "name", "uid", "type_in", "scope", "source", "marker"});
      else
        n.check_keys({"id", "name", "uid", "op", "inputs", "type_in", "type_out", "primitive_attrs",
                      "scope", "source", "marker"});
      if (auto m = n.find("marker")) out << "\n#------------------------> " << m->u64() << "\n";
      std::vector<std::string> inputs;
      std::string op;
      int64_t id = 0;
      if (is_return) {
        op = version.before(1, 2) ? "Primitive::return{prim_type=1}"
                                  : "Primitive::Return{prim_type=1}";
        inputs.push_back(operand(n.at("return")));
      } else {
        id = n.has("id") ? n.at("id").i64() : next_id;
        next_id = id + 1;
        op = n.at("op").string();
        if (op.starts_with("call @"))
          op = "FuncGraph::" + graph_ref(n.at("op"), op.substr(6));
        else if (op.find("::") == std::string::npos && !op.starts_with("%"))
          op = "Primitive::" + op + "{prim_type=1}";
        if (auto a = n.find("primitive_attrs")) op += "[" + a->string() + "]";
        if (auto in = n.find("inputs"))
          for (const auto& i : in->elements()) inputs.push_back(operand(i));
      }
      std::string node_name;
      if (auto nm = n.find("name")) {
        node_name = nm->string();
      } else {
        uint64_t uid = n.has("uid") ? n.at("uid").u64() : next_uid;
        next_uid = uid + 1;
        node_name = "[CNode]" + std::to_string(uid);
      }
      std::vector<std::string> types;
      if (auto t = n.find("type_in")) {
        for (const auto& e : t->elements()) types.push_back(dat_type(e));
      } else {
        for (const auto& in : inputs) {
          std::string type = "Undefined";
          if (auto it = node_types.find(in); it != node_types.end()) type = it->second;
          for (const auto& p : params)
            if (in == "%para" + std::to_string(p.number) && p.type) type = *p.type;
          for (const auto& p : entry_params)
            if (in == "%para" + std::to_string(p.number) && p.type) type = *p.type;
          if (in == "U" || in == "UMonad[U]") type = "UMonad";
          types.push_back(type);
        }
      }
      out << "    ";
      if (!is_return) {
        out << "%" << id;
        if (auto t = n.find("type_out")) {
          std::string type = dat_type(*t);
          node_types["%" + std::to_string(id)] = type;
          out << " : " << type;
        }
        out << " = ";
      }
      out << op << "(" << join(inputs) << ")";
      if (!inputs.empty()) out << "    #(" << join(types) << ")";
      out << " #scope: " << (n.has("scope") ? n.at("scope").string() : std::string("Default"))
          << "\n";
      // Debug info: the source lines, then "#<name>" (AnfExporter::OutputCNodes); the analyze_fail
      // exporter writes no name.
      std::string suffix = stack_graphs ? "" : "#" + node_name;
      std::vector<std::string> source;
      if (auto src = n.find("source"))
        for (const auto& line : src->elements()) source.push_back(line.string());
      if (source.empty()) {
        out << suffix << "\n";
      } else {
        for (size_t i = 0; i < source.size(); ++i)
          out << "      # In file " << source[i] << (i + 1 == source.size() ? suffix : "") << "\n";
      }
      std::string callee = is_return ? std::string("Return") : n.at("op").string();
      std::string entry_text =
          name + ":" + node_name + "{[0]: " +
          (callee.starts_with("call @") ? "ValueNode<FuncGraph> " + callee.substr(6)
                                        : "ValueNode<Primitive> " + callee);
      for (size_t i = 0; i < inputs.size(); ++i)
        entry_text += ", [" + std::to_string(i + 1) + "]: " + inputs[i];
      order.push_back(entry_text + "}");
    }
    out << "}\n";
    bool write_order = !stack_graphs;
    if (auto o = g.find("order")) write_order = o->boolean();
    if (write_order) {
      out << "# order:\n";
      for (size_t i = 0; i < order.size(); ++i) {
        std::string index = std::to_string(i + 1);
        out << "#" << std::string(index.size() < 4 ? 4 - index.size() : 0, ' ') << index << ": "
            << order[i] << "\n";
      }
    }
    out << "\n\n";
  }
  if (stack_graphs) {
    if (*stack_graphs >= graphs.size()) out << "#" << std::string(79, '=') << "\n";
    out << "# num of function graphs in stack: " << *graphs_in_stack << "\n";
    if (auto t = ir.find("total_subgraphs"))
      out << "# num of total function graphs: " << t->u64() << "\n";
  } else {
    out << "# num of total function graphs: "
        << (ir.has("total_subgraphs") ? ir.at("total_subgraphs").u64() : graphs.size());
  }
  if (auto raw = ir.find("raw_lines"))
    for (const auto& line : raw->elements()) out << "\n" << line.string();

  std::string text = out.str();
  std::vector<std::byte> bytes;
  bytes.reserve(text.size());
  for (char c : text) bytes.push_back(static_cast<std::byte>(c));
  return bytes;
}

}  // namespace
}  // namespace msdt::fixture
