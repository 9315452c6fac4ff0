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
  if (g.is_return) {
    n.check_keys(
        {"return", "name", "uid", "type_in", "extra", "scope", "fullname", "source", "order"});
    g.op = w.version.before(1, 2) ? "return" : "Return";
    g.inputs.push_back(operand(w, n.at("return")));
  } else {
    n.check_keys({"id", "name", "uid", "op", "inputs", "type_in", "type_out", "primitive_attrs",
                  "cnode_attrs", "cnode_primal_attrs", "suffix", "extra", "scope", "fullname",
                  "source", "order"});
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

}  // namespace

std::vector<std::byte> build_ir(const Node& ir) {
  ir.check_keys({"style", "version", "entry", "attrs", "params", "graphs", "total_params",
                 "total_subgraphs", "node_count", "blank_lines_between", "raw_lines"});
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
    style.fail("expected \"A\", \"B\", \"C\" or \"rdr\", found \"" + s + "\"");
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

  std::ostream& out = w.out;
  const bool c_spacing = w.style_c_spacing();
  auto write_header = [&] {
    if (w.style == Style::A) {
      out << "#IR entry      : @" << entry << "\n#attrs         :\n";
      if (auto a = ir.find("attrs")) w.attr_lines(*a);
      return;
    }
    out << "# IR entry: @" << entry << "\n# Total subgraphs: "
        << (ir.has("total_subgraphs") ? ir.at("total_subgraphs").u64() : graphs.size()) << "\n\n";
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

  if (w.style == Style::Rdr) {
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
