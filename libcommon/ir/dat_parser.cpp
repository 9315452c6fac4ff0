#include "ir/dat_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "io/text.h"
#include "ir/text_parser.h"

namespace msdt::ir {

bool looks_like_dat_text(std::string_view text) {
  std::string_view head = text.substr(0, std::min<size_t>(text.size(), 64 * 1024));
  return head.find("# [No.") != std::string_view::npos ||
         head.find("funcgraph fg_") != std::string_view::npos;
}

namespace {

std::string_view trim(std::string_view s) { return trim_blanks(s); }

bool is_digit(char c) { return c >= '0' && c <= '9'; }

size_t digits_from(std::string_view s, size_t at) {
  while (at < s.size() && is_digit(s[at])) ++at;
  return at;
}

// The analyze_fail exporter appends " @ctx.addr=0x…" to graph titles and node comments.
std::string_view without_ctx(std::string_view s, std::string* address = nullptr) {
  size_t at = s.find(" @ctx.addr=");
  if (at == std::string_view::npos) return s;
  if (address) *address = std::string(trim(s.substr(at + 11)));
  return trim(s.substr(0, at));
}

// The operator as the .ir text spells it: "Primitive::Load" -> "Load" (spec §8).
std::string_view strip_class(std::string_view op) {
  for (std::string_view prefix : {"Primitive::", "PrimitivePy::", "DoSignaturePrimitive::"})
    if (op.starts_with(prefix)) return op.substr(prefix.size());
  return op;
}

// The index of the first top-level " = " in `s` from `from`, skipping bracketed groups.
size_t top_level_equals(std::string_view s, size_t from) {
  for (size_t i = from; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[' || c == '{') {
      size_t end = matching_bracket(s, i);
      if (end == std::string_view::npos) return std::string_view::npos;
      i = end - 1;
    } else if (c == '=' && i > 0 && s[i - 1] == ' ' && i + 1 < s.size() && s[i + 1] == ' ') {
      return i - 1;
    }
  }
  return std::string_view::npos;
}

class DatParser {
 public:
  explicit DatParser(std::string_view text) : text_(text) {}

  Expected<Module> run() {
    module_.style = Style::Dat;
    size_t pos = 0;
    uint64_t number = 0;
    while (pos <= text_.size()) {
      size_t end = text_.find('\n', pos);
      if (end == std::string_view::npos) end = text_.size();
      std::string_view line = text_.substr(pos, end - pos);
      if (line.ends_with('\r')) line.remove_suffix(1);
      ++number;
      check_utf8_once(module_, line, number, bad_utf8_seen_);
      if (auto error = this->line(line, number)) return std::move(*error);
      if (end == text_.size()) break;
      pos = end + 1;
    }
    if (state_ != State::Top)
      return Error::at_line(module_.graphs.back().line,
                            fmt::format("graph @{} ({}) is not closed by '}}' (truncated file?)",
                                        module_.graphs.back().name, graph_fg_.back()));
    if (module_.graphs.empty()) return Error("not a .dat graph file: no 'funcgraph fg_<id>(' line");
    finish();
    return std::move(module_);
  }

 private:
  enum class State : uint8_t { Top, Params, Body };

  void warn(uint64_t number, std::string message) {
    add_warning(module_, number, std::move(message));
  }

  Failure& failure(uint64_t number) {
    if (!module_.failure) {
      module_.failure.emplace();
      module_.failure->line = number;
    }
    return *module_.failure;
  }

  Graph& graph() { return module_.graphs.back(); }

  Status line(std::string_view line, uint64_t number) {
    switch (state_) {
      case State::Top:
        return top_line(trim(line), number);
      case State::Params:
        return param_line(trim(line), number);
      case State::Body:
        return body_line(line, number);
    }
    return std::nullopt;
  }

  Status top_line(std::string_view t, uint64_t number) {
    if (t.empty()) return std::nullopt;
    if (t.starts_with("# [No.")) {
      size_t close = t.find(']');
      if (close == std::string_view::npos || close == 6 || digits_from(t, 6) != close) {
        warn(number,
             fmt::format("a graph title that is not '# [No.K] <name>': {}", quote_for_message(t)));
        return std::nullopt;
      }
      pending_ = Pending{};
      pending_.name = std::string(without_ctx(trim(t.substr(close + 1)), &pending_.instance));
      return std::nullopt;
    }
    if (t.starts_with("# In file ")) {
      pending_.location = std::string(t.substr(10));
      return std::nullopt;
    }
    if (t.starts_with("funcgraph ")) return open_graph(t, number);
    if (auto n = parse_count(t, "# num of total function graphs:")) {
      module_.declared_graphs = n;
      return std::nullopt;
    }
    if (auto n = parse_count(t, "# num of function graphs in stack:")) {
      failure(number).graphs_in_stack = n;
      return std::nullopt;
    }
    if (t.starts_with("#==")) {
      // analyze_fail.dat: the graphs of the evaluation stack come before this rule, the other
      // graphs it evaluated after it (spec §13.1).
      failure(number);
      if (!stack_graphs_) stack_graphs_ = module_.graphs.size();
      return std::nullopt;
    }
    if (t.starts_with("#") || t.starts_with("switch_input:") ||
        t.starts_with("switch_layer_input:"))
      return std::nullopt;  // "# order:" blocks, comments
    warn(number, fmt::format("skipped a line outside any graph: {}", quote_for_message(t)));
    return std::nullopt;
  }

  static std::optional<uint64_t> parse_count(std::string_view t, std::string_view prefix) {
    if (!t.starts_with(prefix)) return std::nullopt;
    return parse_unsigned<uint64_t>(trim(t.substr(prefix.size())));
  }

  // "funcgraph fg_905[fg_904](" (the parent part only for nested graphs).
  Status open_graph(std::string_view t, uint64_t number) {
    size_t at = 10;
    if (!t.substr(at).starts_with("fg_"))
      return Error::at_line(number,
                            fmt::format("column {}: expected 'fg_<id>' after 'funcgraph'", at + 1));
    size_t end = at;
    while (end < t.size() && t[end] != '[' && t[end] != '(' && t[end] != ' ') ++end;
    std::string fg(t.substr(at, end - at));
    std::string parent;
    if (end < t.size() && t[end] == '[') {
      size_t close = t.find(']', end);
      if (close == std::string_view::npos)
        return Error::at_line(number,
                              fmt::format("column {}: unclosed '[' of the parent graph", end + 1));
      parent = std::string(trim(t.substr(end + 1, close - end - 1)));
      end = close + 1;
    }
    if (end >= t.size() || t[end] != '(')
      return Error::at_line(
          number, fmt::format("column {}: expected '(' after 'funcgraph {}'", end + 1, fg));
    Graph g;
    g.name = pending_.name.empty() ? fg : pending_.name;
    g.location = std::move(pending_.location);
    g.instance = std::move(pending_.instance);
    g.line = number;
    pending_ = Pending{};
    if (!fg_names_.contains(fg)) fg_names_[fg] = g.name;
    module_.graphs.push_back(std::move(g));
    graph_fg_.push_back(fg);
    parent_fg_.push_back(parent);
    markers_.clear();
    node_ = std::nullopt;
    numbers_.clear();
    std::string_view rest = trim(t.substr(end + 1));
    state_ = State::Params;
    if (!rest.empty()) return param_line(rest, number);  // ") {" of a graph without parameters
    return std::nullopt;
  }

  // "%para1 : Tensor(F32)[2, 3]    # x", ", %para2 : …", then ") {".
  Status param_line(std::string_view t, uint64_t number) {
    if (t.empty()) return std::nullopt;
    if (t.starts_with(")")) {
      if (trim(t.substr(1)) != "{")
        return Error::at_line(number, "expected ') {' closing the parameter list");
      state_ = State::Body;
      return std::nullopt;
    }
    if (t.starts_with(",")) t = trim(t.substr(1));
    if (!t.starts_with("%para") || digits_from(t, 5) == 5)
      return Error::at_line(number, fmt::format("expected a parameter line '%paraN : <type>    # "
                                                "name' or ') {{', found {}",
                                                quote_for_message(t)));
    size_t digits = digits_from(t, 5);
    Parameter p;
    p.line = number;
    p.number = parse_unsigned<uint32_t>(t.substr(5, digits - 5)).value_or(0);
    std::string_view rest = t.substr(digits);
    size_t comment = rest.find("    # ");
    size_t skip = 6;
    if (comment == std::string_view::npos) {
      comment = rest.find(" # ");
      skip = 3;
    }
    if (comment != std::string_view::npos) {
      p.name = std::string(trim(rest.substr(comment + skip)));
      rest = rest.substr(0, comment);
    }
    rest = trim(rest);
    if (rest.starts_with(":")) {
      p.type = std::string(trim(rest.substr(1)));
    } else if (!rest.empty()) {
      return Error::at_line(number, fmt::format("column {}: expected ' : <type>' after %para{}",
                                                t.size() - rest.size() + 1, p.number));
    }
    std::string id = p.name.empty() ? fmt::format("para{}", p.number) : p.id();
    if (param_ids_.contains(p.number))
      warn(number, fmt::format("%para{} is declared twice", p.number));
    else
      param_ids_[p.number] = id;
    graph().params.push_back("%" + id);
    module_.params.push_back(std::move(p));
    return std::nullopt;
  }

  Status body_line(std::string_view line, uint64_t number) {
    if (line == "}") {
      markers_.end_graph("graph @" + graph().name, module_);
      state_ = State::Top;
      return std::nullopt;
    }
    std::string_view t = trim(line);
    if (t.empty()) return std::nullopt;
    if (markers_.read(t, number, module_)) return std::nullopt;
    if (t.starts_with("#")) {
      // The node's debug lines: "      # In file <path>(<line>)/<code>/#<node name>", or only
      // "#<node name>" at column 0 when it has no source (AnfExporter::OutputCNodes).
      if (!node_) {
        warn(number, fmt::format("a comment line before any node of graph @{}: {}", graph().name,
                                 quote_for_message(t)));
        return std::nullopt;
      }
      Node& node = graph().nodes[*node_];
      std::string_view body = t.substr(1);
      if (t.starts_with("# In file ")) {
        body = t.substr(10);
        size_t name = body.rfind("/#");
        if (name != std::string_view::npos) {
          if (node.name.empty()) node.name = std::string(body.substr(name + 2));
          body = body.substr(0, name + 1);
        }
        node.source.emplace_back(body);
      } else if (line.starts_with("#") && node.name.empty() && !body.empty()) {
        node.name = std::string(body);
      } else {
        node.comments.emplace_back(t);
      }
      return std::nullopt;
    }
    return node_line(t, static_cast<size_t>(t.data() - line.data()) + 1, number);
  }

  // "%k : <type> = <op>{…}[attrs](args)    #(<arg types>)    # fg_5=g.5 #scope: <scope>".
  Status node_line(std::string_view s, size_t base, uint64_t number) {
    auto error = [&](size_t column, std::string_view what) {
      return Error::at_line(number, fmt::format("column {}: {}", base + column, what));
    };
    Node node;
    node.line = number;
    size_t at = 0;
    if (s.starts_with("%") && digits_from(s, 1) > 1) {
      size_t digits = digits_from(s, 1);
      node.number = parse_unsigned<uint32_t>(s.substr(1, digits - 1));
      if (!node.number) return error(1, "the node number does not fit in 32 bits");
      size_t eq = top_level_equals(s, digits);
      if (eq == std::string_view::npos)
        return error(digits, fmt::format("expected ' = ' after %{} (or brackets unbalanced in its "
                                         "type)",
                                         *node.number));
      std::string_view type = trim(s.substr(digits, eq - digits));
      if (type.starts_with(":")) {
        node.output_type = std::string(trim(type.substr(1)));
      } else if (!type.empty()) {
        return error(digits, "expected ' : <type> = ' or ' = ' after the node number");
      }
      at = eq + 3;
    }
    // The operator: "Primitive::Op", "FuncGraph::fg_5", "%3", up to its braces, attributes and
    // operands.
    size_t op_end = at;
    while (op_end < s.size() && s[op_end] != '{' && s[op_end] != '[' && s[op_end] != '(') ++op_end;
    std::string_view op = trim(s.substr(at, op_end - at));
    if (op.empty()) return error(at, "expected an operator");
    size_t i = op_end;
    if (i < s.size() && s[i] == '{') {  // {prim_type=1}: the primitive's kind, not an attribute
      size_t end = matching_bracket(s, i);
      if (end == std::string_view::npos) return error(i, "unbalanced braces after the operator");
      i = end;
    }
    if (i < s.size() && s[i] == '[') {
      size_t end = matching_bracket(s, i);
      if (end == std::string_view::npos)
        return error(i, "unbalanced brackets in the attributes (truncated line?)");
      node.attrs.emplace_back("primitive_attrs", std::string(s.substr(i + 1, end - i - 2)));
      i = end;
    }
    if (i >= s.size() || s[i] != '(') return error(i, "expected '(' and the operands");
    size_t close = matching_bracket(s, i);
    if (close == std::string_view::npos)
      return error(i, "unbalanced brackets in the operands (truncated line?)");
    for (std::string_view arg : split_top_level(s.substr(i + 1, close - i - 2)))
      node.inputs.push_back(classify(arg));

    if (op.starts_with("FuncGraph::")) {
      node.op = std::string(op.substr(11));
      node.op_kind = Node::OpKind::Call;
      node.callee = node.op;  // fg_<id>, named in finish()
    } else if (op.starts_with("%") && digits_from(op, 1) == op.size() && op.size() > 1) {
      node.op = std::string(op);
      node.op_kind = Node::OpKind::Local;
      node.op_node = parse_unsigned<uint32_t>(op.substr(1));
    } else {
      node.op = std::string(strip_class(op));
    }
    if (!node.number) node.is_return = node.op == "Return" || node.op == "return";

    // Comments: "#(types)", " fg_5=name" notes, "#scope: …", " @ctx.addr=…".
    std::string_view rest = s.substr(close);
    size_t scope = rest.find("#scope:");
    std::string_view notes = rest.substr(0, scope);
    if (scope != std::string_view::npos)
      node.scope = std::string(without_ctx(trim(rest.substr(scope + 7))));
    std::string_view after;
    size_t types = notes.find("#(");
    if (types != std::string_view::npos) {
      size_t end = matching_bracket(notes, types + 1);
      if (end == std::string_view::npos)
        return error(close + types + 1, "unbalanced brackets in the operand types '#(…)'");
      for (std::string_view t : split_top_level(notes.substr(types + 2, end - types - 3)))
        node.input_types.emplace_back(t);
      after = notes.substr(end);
      notes = notes.substr(0, types);
    }
    // "#%3.prototype = (…) -> …" before the types, "# fg_5=g.5" after them.
    for (std::string_view note : {trim(notes), trim(after)}) {
      if (note.empty()) continue;
      node.comments.emplace_back(note);
      note_graph_names(note);
    }
    if (node.number && !numbers_.insert(*node.number).second)
      return Error::at_line(
          number, fmt::format("%{} is defined twice in graph @{}", *node.number, graph().name));
    node.marker = markers_.take();
    graph().nodes.push_back(std::move(node));
    node_ = graph().nodes.size() - 1;
    return std::nullopt;
  }

  Input classify(std::string_view text) {
    Input in;
    in.text = std::string(text);
    if (text.size() > 1 && text[0] == '%') {
      if (digits_from(text, 1) == text.size()) {
        in.kind = Input::Kind::Node;
        in.node = parse_unsigned<uint32_t>(text.substr(1));
        if (!in.node) in.kind = Input::Kind::Value;
        return in;
      }
      if (text.starts_with("%para") && text.size() > 5 && digits_from(text, 5) == text.size()) {
        in.kind = Input::Kind::Parameter;
        in.target = std::string(text.substr(1));  // named in finish()
        return in;
      }
    }
    if (text.starts_with("FuncGraph::fg_")) {
      in.kind = Input::Kind::Graph;
      in.graph = std::string(text.substr(11));
      return in;
    }
    in.kind = Input::Kind::Value;
    return in;
  }

  // "# fg_5=construct.5(@ctx.addr=0x…), fg_6=…": names of graphs the file may not hold.
  void note_graph_names(std::string_view notes) {
    if (notes.starts_with("#")) notes = trim(notes.substr(1));
    for (std::string_view item : split_top_level(notes)) {
      std::string_view entry = item;
      size_t eq = entry.find('=');
      if (!entry.starts_with("fg_") || eq == std::string_view::npos) continue;
      std::string_view name = entry.substr(eq + 1);
      name = name.substr(0, name.find("(@ctx.addr="));
      noted_names_.emplace(std::string(entry.substr(0, eq)), std::string(trim(name)));
    }
  }

  std::string graph_name(const std::string& fg) const {
    if (auto it = fg_names_.find(fg); it != fg_names_.end()) return it->second;
    if (auto it = noted_names_.find(fg); it != noted_names_.end()) return it->second;
    return fg;
  }

  void finish() {
    module_.entry = module_.graphs.front().name;
    for (size_t gi = 0; gi < module_.graphs.size(); ++gi) {
      Graph& g = module_.graphs[gi];
      if (!parent_fg_[gi].empty()) g.parent = graph_name(parent_fg_[gi]);
      std::set<uint32_t> defined;
      for (const Node& n : g.nodes)
        if (n.number) defined.insert(*n.number);
      for (Node& n : g.nodes) {
        if (n.op_kind == Node::OpKind::Call) n.callee = graph_name(n.callee);
        auto missing = [&](uint32_t k) {
          warn(n.line, fmt::format("%{} is not defined in graph @{}", k, g.name));
        };
        for (Input& in : n.inputs) {
          if (in.kind == Input::Kind::Graph) in.graph = graph_name(in.graph);
          if (in.kind == Input::Kind::Parameter) {
            auto k = parse_unsigned<uint32_t>(std::string_view(in.target).substr(4));
            if (auto it = k ? param_ids_.find(*k) : param_ids_.end(); it != param_ids_.end())
              in.target = it->second;
            else
              warn(n.line, fmt::format("%{} is not a parameter of any graph", in.target));
          }
          if (in.kind == Input::Kind::Node && !defined.contains(*in.node)) missing(*in.node);
        }
        if (n.op_node && !defined.contains(*n.op_node)) missing(*n.op_node);
      }
    }
    if (module_.failure && !module_.failure->graphs_in_stack && stack_graphs_)
      module_.failure->graphs_in_stack = *stack_graphs_;
    if (module_.declared_graphs && *module_.declared_graphs != module_.graphs.size() &&
        module_.warnings.size() < kMaxWarnings)
      module_.warnings.push_back(
          Error(fmt::format("the file declares {} function graphs, it has {}",
                            *module_.declared_graphs, module_.graphs.size())));
  }

  struct Pending {
    std::string name, location, instance;
  };

  std::string_view text_;
  Module module_;
  State state_ = State::Top;
  Pending pending_;                     // "# [No.K] name" and "# In file" before "funcgraph"
  std::vector<std::string> graph_fg_;   // "fg_905" of each graph, parallel to module_.graphs
  std::vector<std::string> parent_fg_;  // its parent's "fg_…", or empty
  std::map<std::string, std::string> fg_names_;     // "fg_905" -> the graph's name
  std::map<std::string, std::string> noted_names_;  // from "# fg_5=name" node comments
  std::map<uint32_t, std::string> param_ids_;       // N of %paraN -> "paraN_name"
  std::set<uint32_t> numbers_;                      // the %k of the current graph so far
  std::optional<size_t> node_;                      // the last node of the current graph
  MarkerLines markers_;                             // a marker not yet given to a node
  std::optional<size_t> stack_graphs_;              // graphs before analyze_fail.dat's "#===" rule
  bool bad_utf8_seen_ = false;
};

}  // namespace

Expected<Module> parse_dat_text(std::string_view text) {
  if (!looks_like_dat_text(text))
    return Error("not a .dat graph file: no '# [No.' title and no 'funcgraph fg_' line");
  return DatParser(text).run();
}

}  // namespace msdt::ir
