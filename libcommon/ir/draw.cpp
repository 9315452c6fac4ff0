#include "ir/draw.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>

#include "io/text.h"
#include "ir/type_spec.h"

namespace msdt::ir {
namespace {

constexpr size_t kNone = static_cast<size_t>(-1);
constexpr size_t kFoldedConstant = 24;  // longer constants are drawn once as a node of their own
constexpr size_t kLabelLimit = 60;
// Graphviz refuses a quoted string of about 16 384 bytes or more ("syntax error ... scanning a
// quoted string (missing endquote? longer than 16384?)"). Free text (tooltips and labels: deep
// parameter types, long source paths, scope names) is cut to kTooltipLimit bytes with a visible
// "…"; its escapes (at most 5 bytes for a byte: an invalid one becomes "\\xNN") keep the quoted
// string under 6 KB. Ids are never cut: they name the vertex.
constexpr size_t kTooltipLimit = 1024;

// Colorbrewer's Set3, four of Paired and eight light Blues/Greens/Oranges/Purples: 24 colours
// light enough for black text.
constexpr std::string_view kPalette[] = {
    "#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
    "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f", "#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6",
    "#c7e9c0", "#fee0d2", "#deebf7", "#efedf5", "#fdd0a2", "#c6dbef", "#e5f5e0", "#fcbba1"};

// The op type without the prefixes that vary between versions (spec §3.2): PrimFunc_MatMul,
// S-Prim-MatMul and S_Prim_MatMul are MatMul.
std::string_view op_type(std::string_view op) {
  for (std::string_view prefix : {"PrimFunc_", "S-Prim-", "S_Prim_"})
    if (op.starts_with(prefix)) return op.substr(prefix.size());
  return op;
}

bool is_monad_type(std::string_view label) { return label == "UMonad" || label == "IOMonad"; }

bool is_monad_value(std::string_view text) { return text == "U" || text == "IO"; }

enum class Kind : uint8_t { Op, Call, Return, Parameter, Weight, Constant, Placeholder, Scope };

// A short type label ("Float32[2,3]") as edges and parameters show it, read once per distinct
// spelling and kept quoted, ready to write.
struct Label {
  std::string text;
  std::string quoted;
  bool monad = false;  // UMonad or IOMonad
};

// What is drawn. Node and parameter vertices point into the module and make their ids, labels
// and tooltips when written; the others own their texts (Drawing::own), so a 100 000-node graph
// holds no copy of its names.
struct Vertex {
  size_t graph = kNone;
  const Node* node = nullptr;        // operators, calls, Return, removed nodes
  const Parameter* param = nullptr;  // the file's parameters
  uint32_t index = 0;                // node: its index in its graph
  uint32_t type = 0;                 // its output type's label (Drawing::labels_)
  uint32_t folded_begin = 0;         // constants folded into the label: Drawing::folded_
  uint32_t folded_count = 0;
  Kind kind = Kind::Op;
  bool monad = false;
  bool keep = true;
  bool removed = false;  // a node of A that --diff draws as removed
  std::string_view id;   // empty for node vertices: "<graph key>:%k"
  std::string_view label;
  std::string_view tooltip;  // empty for node vertices: made when written
  std::string_view match;    // what --focus is matched against, '\n'-separated (not nodes)
  std::string_view colour;   // fill
  std::string_view scope;    // scope path of an operator, for --scope-depth
  std::string extra;         // more attributes, ", key=value" each
};

enum class EdgeKind : uint8_t { Data, Monad, Call, Reference };

struct Edge {
  size_t from = 0, to = 0;
  EdgeKind kind = EdgeKind::Data;
  uint32_t label = 0;         // Drawing::labels_; 0: none
  size_t head_graph = kNone;  // Call/Reference: the cluster the edge enters
};

// Appends `text` quoted as dot_quote spells it.
bool special_byte(char c) { return static_cast<signed char>(c) < 0x20 || c == '"' || c == '\\'; }

void quote_into(std::string& out, std::string_view text) {
  // Controls, '"', '\\' and non-ASCII (checked as UTF-8) cannot be copied as they are. No early
  // exit: the compiler checks many bytes at a time.
  bool special = false;
  bool ascii = true;
  for (char c : text) {
    special |= special_byte(c);
    ascii &= static_cast<signed char>(c) >= 0;
  }
  out += '"';
  if (!special) {
    out += text;
    out += '"';
    return;
  }
  // Most names are plain ASCII: only text with bytes >= 0x80 needs the UTF-8 check.
  std::string checked = ascii ? std::string() : escape_invalid_utf8(text);
  std::string_view valid = ascii ? text : std::string_view(checked);
  size_t run = 0;  // start of the bytes not yet copied
  for (size_t i = 0; i < valid.size(); ++i) {
    char c = valid[i];
    if (!special_byte(c) || static_cast<signed char>(c) < 0) continue;
    out.append(valid.substr(run, i - run));
    run = i + 1;
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else
      out += ' ';
  }
  out.append(valid.substr(run));
  out += '"';
}

void shorten_in_place(std::string& text, size_t limit) {
  if (text.size() <= limit) return;
  text.resize(utf8_boundary(text, limit));
  text += "…";
}

std::string shorten(std::string_view text, size_t limit) {
  std::string out(text.substr(0, limit + 4));
  shorten_in_place(out, limit);
  return out;
}

// Appends free text quoted, cut to kTooltipLimit bytes (see there).
void quote_text_into(std::string& out, std::string_view text) {
  if (text.size() <= kTooltipLimit) return quote_into(out, text);
  quote_into(out, shorten(text, kTooltipLimit));
}

std::string quote_text(std::string_view text) {
  std::string out;
  quote_text_into(out, text);
  return out;
}

class Drawing {
 public:
  Drawing(const Module& module, const DrawOptions& options, const DiffMarks* diff)
      : module_(module), options_(options), diff_(diff) {
    labels_.resize(2);
    labels_[1] = Label{"fn", "\"fn\"", false};
  }

  Status run(const DotWriter& write) {
    name_graphs();
    add_parameters();
    for (size_t g = 0; g < module_.graphs.size(); ++g) add_nodes(g);
    for (size_t g = 0; g < module_.graphs.size(); ++g) add_edges(g);
    if (diff_) add_removed();
    mark_failure();
    if (!options_.monads) hide_monads();
    select_focus();
    if (options_.scope_depth) collapse_scopes(*options_.scope_depth);
    size_t kept = 0;
    for (const Vertex& v : vertices_) kept += v.keep;
    if (options_.max_nodes != 0 && kept > options_.max_nodes)
      return Error(fmt::format(
          "{} nodes to draw, over --max-nodes {}: collapse scopes with --scope-depth N, draw a "
          "neighbourhood with --focus REGEX --radius N, or lift the limit with --max-nodes 0",
          kept, options_.max_nodes));
    return emit(write);
  }

 private:
  static constexpr uint32_t kFnLabel = 1;

  std::string_view own(std::string text) { return owned_.emplace_back(std::move(text)); }

  // Cluster names: a graph's name, with "#2", "#3" for later instances of a repeated name
  // (analyze_fail.ir, spec §13.3).
  void name_graphs() {
    absl::flat_hash_map<std::string_view, size_t> seen;
    for (size_t g = 0; g < module_.graphs.size(); ++g) {
      const Graph& graph = module_.graphs[g];
      size_t n = ++seen[graph.name];
      keys_.push_back(n == 1 ? graph.name : fmt::format("{}#{}", graph.name, n));
      std::string quoted = dot_quote(keys_.back());
      quoted.pop_back();  // the closing quote: node ids continue the graph's key
      key_open_.push_back(std::move(quoted));
      by_name_.emplace(graph.name, g);  // the first instance answers references by name
    }
    node_by_number_.resize(module_.graphs.size());
    node_by_name_.resize(module_.graphs.size());
    node_vertex_.resize(module_.graphs.size());
    constants_.resize(module_.graphs.size());
    return_vertex_.assign(module_.graphs.size(), kNone);
  }

  size_t graph_by_name(std::string_view name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? kNone : it->second;
  }

  size_t add_vertex(Vertex v) {
    vertices_.push_back(std::move(v));
    return vertices_.size() - 1;
  }

  // The label of a short type text, interned: equal labels share one entry.
  uint32_t label_id(std::string text) {
    if (text.empty()) return 0;
    auto [it, added] = label_ids_.try_emplace(text, static_cast<uint32_t>(labels_.size()));
    if (added) {
      bool monad = is_monad_type(text);
      std::string quoted = quote_text(text);
      labels_.push_back(Label{std::move(text), std::move(quoted), monad});
    }
    return it->second;
  }

  // A type as written ("<Tensor[Float32], (2, 3)>"), read once per distinct spelling.
  struct ReadType {
    uint32_t label = 0;
    bool monad = false;  // TypeSpec::Kind::Monad
  };
  ReadType read_type(std::string_view text) {
    auto it = types_.find(text);
    if (it != types_.end()) return it->second;
    TypeSpec spec = parse_type_spec(text);
    ReadType read{label_id(spec.label()), spec.kind == TypeSpec::Kind::Monad};
    types_.emplace(text, read);
    return read;
  }

  // Parameters are drawn in the graph whose head lists them; the file's parameters that no head
  // lists belong to the entry graph (spec §5).
  void add_parameters() {
    size_t total = module_.params.size();
    for (const Graph& g : module_.graphs) total += g.nodes.size() + g.params.size();
    vertices_.reserve(total + total / 8);
    edges_.reserve(2 * total);
    absl::flat_hash_map<std::string_view, size_t> owner;
    for (size_t g = 0; g < module_.graphs.size(); ++g)
      for (const std::string& p : module_.graphs[g].params)
        owner.emplace(std::string_view(p).substr(p.starts_with("%") ? 1 : 0), g);
    size_t entry = module_.graphs.empty() ? kNone : 0;
    if (size_t e = graph_by_name(module_.entry); e != kNone) entry = e;
    for (const Parameter& p : module_.params) {
      std::string_view id = own(p.id());
      auto it = owner.find(id);
      size_t g = it != owner.end() ? it->second : entry;
      TypeSpec type = parse_type_spec(p.type);
      Vertex v;
      v.id = id;
      v.graph = g;
      v.param = &p;
      bool weight = p.has_default || type.ref || p.is_weight.value_or(false);
      v.kind = weight ? Kind::Weight : Kind::Parameter;
      std::string shown = type.label();
      std::string label(p.name.empty() ? id : std::string_view(p.name));
      if (options_.types && !shown.empty() && type.kind != TypeSpec::Kind::Other)
        label += "\n" + shown;
      v.label = own(std::move(label));
      v.tooltip = own(fmt::format("%{}: {}", id, p.type));
      v.monad = type.kind == TypeSpec::Kind::Monad;
      v.type = label_id(std::move(shown));
      param_vertex_.emplace(id, add_vertex(std::move(v)));
    }
    // Head parameters the file's parameter list does not have (later graphs' own parameters).
    for (size_t g = 0; g < module_.graphs.size(); ++g)
      for (const std::string& p : module_.graphs[g].params) {
        std::string_view id = std::string_view(p).substr(p.starts_with("%") ? 1 : 0);
        if (param_vertex_.contains(id)) continue;
        Vertex v;
        v.id = id;
        v.graph = g;
        v.kind = Kind::Parameter;
        size_t underscore = id.find('_');
        v.label = underscore == std::string_view::npos ? id : id.substr(underscore + 1);
        v.tooltip = own("%" + std::string(id));
        v.match = id;
        param_vertex_.emplace(id, add_vertex(std::move(v)));
      }
  }

  void add_nodes(size_t g) {
    const Graph& graph = module_.graphs[g];
    node_vertex_[g].resize(graph.nodes.size(), kNone);
    uint32_t largest = 0;
    for (const Node& node : graph.nodes)
      if (node.number) largest = std::max(largest, *node.number);
    // %k numbers are dense in what MindSpore writes: a table, unless a file says otherwise.
    NumberIndex& numbers = node_by_number_[g];
    if (largest <= 4 * graph.nodes.size() + 1024)
      numbers.dense.assign(static_cast<size_t>(largest) + 1, kNone);
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const Node& node = graph.nodes[i];
      Vertex v;
      v.graph = g;
      v.node = &node;
      v.index = static_cast<uint32_t>(i);
      if (node.is_return) {
        v.kind = Kind::Return;
        v.label = "Return";
      } else {
        v.kind = node.op_kind == Node::OpKind::Primitive ? Kind::Op : Kind::Call;
        v.label = node.op;
        v.colour = node.op_kind == Node::OpKind::Primitive ? op_colour(node.op) : "#e0e0e0";
      }
      ReadType out = read_type(node.output_type);
      v.type = out.label;
      v.monad = node.op == "UpdateState" || out.monad;
      v.scope = node.scope;
      size_t index = add_vertex(std::move(v));
      node_vertex_[g][i] = index;
      if (node.number) numbers.add(*node.number, index);
      if (node.is_return) return_vertex_[g] = index;
    }
  }

  // A node vertex's id: "<graph key>:%k", "<graph key>:return" or "<graph key>:line<n>".
  void node_id_suffix(std::string& out, const Vertex& v) const {
    if (v.node->is_return)
      out += ":return";
    else if (v.node->number)
      out.append(":%").append(fmt::format_int(*v.node->number).str());
    else
      out.append(":line").append(fmt::format_int(v.node->line).str());
  }

  std::string id_text(const Vertex& v) const {
    if (!v.id.empty() || !v.node) return std::string(v.id);
    std::string id = keys_[v.graph];
    node_id_suffix(id, v);
    return id;
  }

  void write_id(std::string& out, const Vertex& v) const {
    if (!v.id.empty() || !v.node) return quote_into(out, v.id);
    out += key_open_[v.graph];
    node_id_suffix(out, v);
    out += '"';
  }

  static void tooltip_into(std::string& text, const Node& node, std::string_view id) {
    if (node.number)
      text.append("%")
          .append(fmt::format_int(*node.number).str())
          .append("(")
          .append(node.name)
          .append(")");
    else
      text += id;
    if (!node.fullname.empty())
      text.append("\n").append(node.fullname);
    else if (!node.scope.empty())
      text.append("\n").append(node.scope);
    if (!node.output_type.empty()) text.append("\n-> ").append(node.output_type);
    for (const std::string& s : node.source) text.append("\nIn file ").append(s);
    shorten_in_place(text, kTooltipLimit);
  }

  // The vertex an input comes from, or a dashed placeholder when the IR does not define it.
  size_t source_of(size_t g, const Input& in) {
    switch (in.kind) {
      case Input::Kind::Node: {
        if (size_t v = node_by_number_[g].find(*in.node); v != kNone) return v;
        return placeholder(g, fmt::format("{}:%{}", keys_[g], *in.node), in.text);
      }
      case Input::Kind::Parameter: {
        auto it = param_vertex_.find(in.target);
        if (it != param_vertex_.end()) return it->second;
        return placeholder(g, in.target, in.text);
      }
      case Input::Kind::FreeNode: {
        size_t owner = graph_by_name(in.graph);
        if (owner != kNone) {
          // Names are looked up only for free variables: the map is built on first use.
          if (node_by_name_[owner].empty())
            for (size_t i = 0; i < module_.graphs[owner].nodes.size(); ++i)
              if (!module_.graphs[owner].nodes[i].name.empty())
                node_by_name_[owner].emplace(module_.graphs[owner].nodes[i].name,
                                             node_vertex_[owner][i]);
          auto it = node_by_name_[owner].find(in.target);
          if (it != node_by_name_[owner].end()) return it->second;
          if (auto p = param_vertex_.find(in.target); p != param_vertex_.end()) return p->second;
          if (auto k = parse_unsigned<uint32_t>(std::string_view(in.target).substr(
                  std::min<size_t>(in.target.size(), in.target.starts_with("%") ? 1 : 0)))) {
            if (size_t n = node_by_number_[owner].find(*k); n != kNone) return n;
          }
        }
        return placeholder(owner == kNone ? g : owner, "$" + in.graph + ":" + in.target, in.text);
      }
      default:
        return kNone;
    }
  }

  size_t placeholder(size_t g, const std::string& id, std::string_view text) {
    auto it = placeholders_.find(id);
    if (it != placeholders_.end()) return it->second;
    Vertex v;
    v.id = own(id);
    v.graph = g;
    v.kind = Kind::Placeholder;
    v.label = own(std::string(text) + "\n(not defined)");
    v.tooltip = own(std::string(text) + " is referred to but not defined in the file");
    v.match = v.id;
    size_t index = add_vertex(std::move(v));
    placeholders_.emplace(id, index);
    return index;
  }

  void fold(size_t to, std::string_view text) {
    Vertex& v = vertices_[to];
    if (v.folded_count == 0) v.folded_begin = static_cast<uint32_t>(folded_.size());
    folded_.push_back(text);
    ++v.folded_count;
  }

  void add_edges(size_t g) {
    const Graph& graph = module_.graphs[g];
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const Node& node = graph.nodes[i];
      size_t to = node_vertex_[g][i];
      bool depend = op_type(node.op) == "Depend";
      bool update_state = node.op == "UpdateState";
      if (node.op_kind == Node::OpKind::Call && !node.callee.empty()) {
        if (size_t callee = graph_by_name(node.callee); callee != kNone)
          edges_.push_back(Edge{to, kNone, EdgeKind::Call, 0, callee});
      } else if (node.op_kind == Node::OpKind::Local && node.op_node) {
        Input fn;
        fn.kind = Input::Kind::Node;
        fn.node = node.op_node;
        fn.text = "%" + std::to_string(*node.op_node);
        edges_.push_back(Edge{source_of(g, fn), to, EdgeKind::Data, kFnLabel});
      } else if (node.op_kind == Node::OpKind::FreeNode) {
        // "$(@g:n)" as the operator: parse it as an input would be.
        std::string_view op = node.op;
        if (op.starts_with("$(@") && op.ends_with(")")) {
          std::string_view inner = op.substr(3, op.size() - 4);
          size_t colon = inner.rfind(':');
          if (colon != std::string_view::npos) {
            Input fn;
            fn.kind = Input::Kind::FreeNode;
            fn.graph = std::string(inner.substr(0, colon));
            fn.target = std::string(inner.substr(colon + 1));
            fn.text = std::string(op);
            edges_.push_back(Edge{source_of(g, fn), to, EdgeKind::Data, kFnLabel});
          }
        }
      }
      for (size_t j = 0; j < node.inputs.size(); ++j) {
        const Input& in = node.inputs[j];
        if (in.kind == Input::Kind::Graph) {
          if (size_t callee = graph_by_name(in.graph); callee != kNone)
            edges_.push_back(Edge{to, kNone, EdgeKind::Reference, 0, callee});
          else
            fold(to, in.text);
          continue;
        }
        if (in.kind == Input::Kind::Value) {
          if (is_monad_value(in.text)) {
            if (options_.monads) fold(to, in.text);
            continue;
          }
          if (in.text.size() <= kFoldedConstant) {
            fold(to, in.text);
            continue;
          }
          edges_.push_back(Edge{constant(g, in.text), to, EdgeKind::Data, 0});
          continue;
        }
        size_t from = source_of(g, in);
        uint32_t type = j < node.input_types.size() ? read_type(node.input_types[j]).label
                                                    : vertices_[from].type;
        bool monad = labels_[type].monad || vertices_[from].monad || (depend && j >= 1) ||
                     update_state || in.control;
        Edge e{from, to, monad ? EdgeKind::Monad : EdgeKind::Data, 0};
        if (options_.types && !monad) e.label = type;
        edges_.push_back(e);
      }
    }
  }

  // A constant too long to fold: drawn once per graph, however many nodes use it.
  size_t constant(size_t g, std::string_view text) {
    auto it = constants_[g].find(text);
    if (it != constants_[g].end()) return it->second;
    Vertex v;
    v.id = own(fmt::format("{}:const{}", keys_[g], constants_[g].size() + 1));
    v.graph = g;
    v.kind = Kind::Constant;
    v.label = own(shorten(text, kLabelLimit));
    v.tooltip = own(shorten(text, kTooltipLimit));
    v.match = text;
    size_t index = add_vertex(std::move(v));
    constants_[g].emplace(text, index);
    return index;
  }

  void add_removed() {
    for (const DiffMarks::Removed& r : diff_->removed) {
      Vertex v;
      v.graph = r.graph;
      v.node = r.node;
      v.removed = true;
      v.kind = r.node->is_return ? Kind::Return : Kind::Op;
      v.id = own(r.node->number ? fmt::format("removed:{}:%{}", keys_[r.graph], *r.node->number)
                                : fmt::format("removed:{}:line{}", keys_[r.graph], r.node->line));
      v.label = r.node->is_return ? std::string_view("Return") : std::string_view(r.node->op);
      std::string tooltip = "removed: ";
      std::string node_tooltip;
      tooltip_into(node_tooltip, *r.node, v.id);
      v.tooltip = own(tooltip + node_tooltip);
      v.match = own(fmt::format("{}\n{}\n{}", r.node->op, r.node->name, r.node->fullname));
      v.scope = r.node->scope;
      v.colour = "#fde0dd";
      v.extra = ", style=\"dashed,filled\", color=\"#d62728\"";
      add_vertex(std::move(v));
    }
  }

  // analyze_fail: the failing node red, the other stack nodes outlined; by default only their
  // neighbourhood is drawn.
  void mark_failure() {
    for (Vertex& v : vertices_)
      if (v.node && v.node->marker && !v.removed) {
        v.extra += fmt::format(", penwidth=3, color=\"#ff7f0e\", xlabel={}",
                               dot_quote(fmt::format("stack {}", *v.node->marker)));
        stack_.push_back(&v - vertices_.data());
      }
    if (!module_.failure) return;
    auto failing = failing_node(module_);
    if (!failing) return;
    Vertex& v = vertices_[node_vertex_[failing->first][failing->second]];
    v.colour = "#ff6b6b";
    v.extra = fmt::format(", penwidth=3, color=\"#b00000\", xlabel={}",
                          dot_quote(fmt::format("failed here (stack {})", *v.node->marker)));
  }

  void hide_monads() {
    for (Vertex& v : vertices_)
      if (v.monad) v.keep = false;
    std::erase_if(edges_, [](const Edge& e) { return e.kind == EdgeKind::Monad; });
  }

  void select_focus() {
    std::vector<size_t> seeds;
    if (options_.focus) {
      for (size_t i = 0; i < vertices_.size(); ++i)
        if (vertices_[i].keep && options_.focus->search(match_text(vertices_[i])))
          seeds.push_back(i);
    } else if (module_.failure && !options_.whole && !stack_.empty()) {
      seeds = stack_;
    } else {
      return;
    }
    find_anchors();
    std::vector<std::vector<size_t>> around(vertices_.size());
    for (const Edge& e : edges_) {
      size_t to = e.to == kNone ? anchor(e.head_graph) : e.to;
      if (to == kNone) continue;
      around[e.from].push_back(to);
      around[to].push_back(e.from);
    }
    std::vector<uint32_t> distance(vertices_.size(), UINT32_MAX);
    std::deque<size_t> queue;
    for (size_t s : seeds) {
      distance[s] = 0;
      queue.push_back(s);
    }
    while (!queue.empty()) {
      size_t v = queue.front();
      queue.pop_front();
      if (distance[v] >= options_.radius) continue;
      for (size_t w : around[v])
        if (vertices_[w].keep && distance[w] == UINT32_MAX) {
          distance[w] = distance[v] + 1;
          queue.push_back(w);
        }
    }
    for (size_t i = 0; i < vertices_.size(); ++i)
      if (distance[i] == UINT32_MAX) vertices_[i].keep = false;
  }

  std::string match_text(const Vertex& v) const {
    if (v.param) return fmt::format("{}\n{}", v.id, v.param->name);
    if (!v.node || v.removed) return std::string(v.match);
    return fmt::format("{}\n{}\n{}\n{}", v.node->op, v.node->name, v.node->fullname, id_text(v));
  }

  // The vertex a call edge points at inside a cluster: its Return, else its first drawn vertex.
  // Computed for every graph at once whenever the drawn vertices change.
  void find_anchors() {
    anchors_.assign(module_.graphs.size(), kNone);
    for (size_t i = vertices_.size(); i-- > 0;)
      if (vertices_[i].keep && vertices_[i].graph != kNone) anchors_[vertices_[i].graph] = i;
    for (size_t g = 0; g < module_.graphs.size(); ++g)
      if (return_vertex_[g] != kNone && vertices_[return_vertex_[g]].keep)
        anchors_[g] = return_vertex_[g];
  }
  size_t anchor(size_t g) const { return g == kNone ? kNone : anchors_[g]; }

  // Operators whose scope has more than `depth` components become one box per scope prefix of
  // that depth, in their graph, counting the nodes and ops inside.
  void collapse_scopes(uint32_t depth) {
    std::map<std::pair<size_t, std::string_view>, size_t> boxes;
    std::map<size_t, std::map<std::string, size_t>> counts;
    std::vector<size_t> into(vertices_.size(), kNone);
    size_t original = vertices_.size();
    for (size_t i = 0; i < original; ++i) {
      Vertex& v = vertices_[i];
      if (!v.keep || (v.kind != Kind::Op && v.kind != Kind::Call) || v.scope.empty()) continue;
      size_t cut = 0;
      uint32_t parts = 0;
      while (parts < depth && cut != std::string_view::npos) {
        cut = v.scope.find('/', cut == 0 && parts == 0 ? 0 : cut + 1);
        ++parts;
      }
      if (cut == std::string_view::npos) continue;  // not deeper than `depth`
      std::string_view prefix = v.scope.substr(0, cut);
      auto key = std::pair{v.graph, prefix};
      auto it = boxes.find(key);
      if (it == boxes.end()) {
        Vertex box;
        box.id = own(fmt::format("{}:scope:{}", keys_[v.graph], prefix));
        box.graph = v.graph;
        box.kind = Kind::Scope;
        box.scope = prefix;
        box.match = prefix;
        size_t index = add_vertex(std::move(box));
        it = boxes.emplace(key, index).first;
      }
      into[i] = it->second;
      ++counts[it->second][std::string(vertices_[i].node ? op_type(vertices_[i].node->op)
                                                         : vertices_[i].label)];
      vertices_[i].keep = false;
    }
    for (auto& [index, ops] : counts) {
      size_t total = 0;
      std::vector<std::pair<size_t, std::string>> order;
      for (auto& [op, n] : ops) {
        total += n;
        order.emplace_back(n, op);
      }
      std::stable_sort(order.begin(), order.end(),
                       [](const auto& a, const auto& b) { return a.first > b.first; });
      std::string lines;
      for (size_t k = 0; k < order.size() && k < 4; ++k)
        lines += fmt::format("\n{} × {}", order[k].first, order[k].second);
      if (order.size() > 4) lines += fmt::format("\n{} more op types", order.size() - 4);
      Vertex& box = vertices_[index];
      box.label =
          own(fmt::format("{}\n{} node{}{}", box.scope, total, total == 1 ? "" : "s", lines));
      box.tooltip = box.label;
    }
    std::set<std::tuple<size_t, size_t, int>> seen;
    std::vector<Edge> kept;
    for (Edge e : edges_) {
      if (into[e.from] != kNone) e.from = into[e.from];
      if (e.to != kNone && e.to < into.size() && into[e.to] != kNone) e.to = into[e.to];
      if (e.to == e.from) continue;
      if (!seen.insert({e.from, e.to == kNone ? kNone - 1 - e.head_graph : e.to,
                        static_cast<int>(e.kind)})
               .second)
        continue;
      kept.push_back(e);
    }
    edges_ = std::move(kept);
  }

  // --- writing ------------------------------------------------------------------------------

  // Written in pieces of about kPiece bytes: a 100 000-node drawing is never held whole.
  static constexpr size_t kPiece = size_t{1} << 20;

  void flush(const DotWriter& write, std::string& out, bool last = false) {
    if ((out.size() < kPiece && !last) || failed_) return;
    if (Status s = write(out)) {
      failed_ = true;
      write_error_ = std::move(s);
    }
    out.clear();
  }

  Status emit(const DotWriter& write) {
    std::string out;
    out.reserve(kPiece + 64 * 1024);
    out +=
        fmt::format("digraph {} {{\n", dot_quote(module_.entry.empty() ? "graph" : module_.entry));
    out += fmt::format(
        "  graph [compound=true, rankdir={}, fontname=\"Helvetica\", fontsize=11, "
        "labeljust=l];\n",
        options_.rankdir);
    out +=
        "  node [fontname=\"Helvetica\", fontsize=10, shape=box, style=\"rounded,filled\", "
        "fillcolor=\"#ffffff\"];\n";
    out += "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\", arrowsize=0.6];\n";

    std::vector<std::vector<size_t>> members(module_.graphs.size());
    std::vector<size_t> loose;
    for (size_t i = 0; i < vertices_.size(); ++i) {
      if (!vertices_[i].keep) continue;
      if (vertices_[i].graph == kNone)
        loose.push_back(i);
      else
        members[vertices_[i].graph].push_back(i);
    }
    // Clusters nest by the parent: relation; a parent that is not in the file, or a cycle,
    // leaves the graph at the top.
    std::vector<std::vector<size_t>> children(module_.graphs.size());
    std::vector<size_t> top;
    parent_.assign(module_.graphs.size(), kNone);
    for (size_t g = 0; g < module_.graphs.size(); ++g) {
      size_t parent =
          module_.graphs[g].parent.empty() ? kNone : graph_by_name(module_.graphs[g].parent);
      bool cycle = false;
      for (size_t p = parent, steps = 0; p != kNone; ++steps) {
        if (p == g || steps > module_.graphs.size()) {
          cycle = true;
          break;
        }
        p = module_.graphs[p].parent.empty() ? kNone : graph_by_name(module_.graphs[p].parent);
      }
      if (parent == kNone || cycle) {
        top.push_back(g);
      } else {
        children[parent].push_back(g);
        parent_[g] = parent;
      }
    }
    drawn_.assign(module_.graphs.size(), false);
    find_anchors();
    std::vector<bool> has_content(module_.graphs.size(), false);
    // A graph is drawn when it or a descendant has a kept vertex.
    std::function<bool(size_t)> content = [&](size_t g) {
      bool any = !members[g].empty();
      for (size_t c : children[g]) any = content(c) || any;
      return has_content[g] = any;
    };
    for (size_t g : top) content(g);
    std::function<void(size_t, int)> cluster = [&](size_t g, int indent) {
      if (!has_content[g]) return;
      drawn_[g] = true;
      std::string pad(indent, ' ');
      const Graph& graph = module_.graphs[g];
      std::string label = "@" + keys_[g];
      if (diff_ == nullptr && module_.failure && !graph.instance.empty())
        label += " (instance " + graph.instance + ")";
      out += fmt::format("{}subgraph {} {{\n", pad, dot_quote("cluster_" + keys_[g]));
      out += fmt::format("{}  label={}; style=\"rounded\"; color=\"#888888\"; tooltip={};\n", pad,
                         quote_text(label),
                         quote_text(graph.location.empty() ? label : "In file " + graph.location));
      for (size_t v : members[g]) {
        write_vertex(out, v, indent + 2);
        flush(write, out);
      }
      for (size_t c : children[g]) cluster(c, indent + 2);
      out += pad + "}\n";
    };
    for (size_t g : top) cluster(g, 2);
    for (size_t v : loose) {
      write_vertex(out, v, 2);
      flush(write, out);
    }
    for (const Edge& e : edges_) {
      write_edge(out, e);
      flush(write, out);
    }
    out += "}\n";
    flush(write, out, true);
    return write_error_;
  }

  void write_vertex(std::string& out, size_t index, int indent) {
    const Vertex& v = vertices_[index];
    out.append(static_cast<size_t>(indent), ' ');
    write_id(out, v);
    out += " [label=";
    if (v.folded_count == 0) {
      quote_text_into(out, v.label);
    } else {
      tooltip_.clear();
      for (uint32_t k = 0; k < v.folded_count; ++k) {
        if (k != 0) tooltip_ += ", ";
        tooltip_ += folded_[v.folded_begin + k];
      }
      shorten_in_place(tooltip_, kLabelLimit);
      scratch_.assign(v.label).append("\n").append(tooltip_);
      quote_text_into(out, scratch_);
    }
    out += ", ";
    switch (v.kind) {
      case Kind::Op:
        out.append("fillcolor=\"").append(v.colour).append("\"");
        break;
      case Kind::Call:
        out.append("fillcolor=\"").append(v.colour).append("\", style=\"filled\"");
        break;
      case Kind::Return:
        out += "shape=invhouse, fillcolor=\"#dddddd\", style=\"filled,bold\"";
        break;
      case Kind::Parameter:
        out += "shape=ellipse, fillcolor=\"#e0f0ff\", style=\"filled\"";
        break;
      case Kind::Weight:
        out += "shape=cylinder, fillcolor=\"#fff2cc\", style=\"filled\"";
        break;
      case Kind::Constant:
        out += "shape=note, fillcolor=\"#f5f5f5\", style=\"filled\"";
        break;
      case Kind::Placeholder:
        out += "shape=box, style=\"dashed\", color=\"#888888\", fontcolor=\"#888888\"";
        break;
      case Kind::Scope:
        out += "shape=box3d, fillcolor=\"#eef3e2\", style=\"filled\"";
        break;
    }
    scratch_.clear();
    if (diff_ && v.node && v.graph != kNone && !v.removed) {
      DiffMarks::Status s = diff_->status[v.graph][v.index];
      if (s == DiffMarks::Status::Added) {
        out += ", color=\"#2ca02c\", penwidth=3";
        scratch_ = "added: ";
      } else if (s == DiffMarks::Status::Changed) {
        out += ", color=\"#ff7f0e\", penwidth=3";
        scratch_ = "changed (" + diff_->why_changed[v.graph][v.index] + "): ";
      }
    }
    if (!v.tooltip.empty() || !v.node) {
      scratch_ += v.tooltip;
    } else {
      tooltip_.clear();
      tooltip_into(tooltip_, *v.node, v.node->number ? std::string() : id_text(v));
      scratch_ += tooltip_;
    }
    out += ", tooltip=";
    quote_text_into(out, scratch_);
    out += v.extra;
    out += "];\n";
  }

  void write_edge(std::string& out, const Edge& e) {
    if (!vertices_[e.from].keep) return;
    size_t to = e.to;
    std::string& attrs = scratch_;
    attrs.clear();
    if (e.to == kNone) {
      if (e.head_graph == kNone || !drawn_[e.head_graph]) return;
      to = anchor(e.head_graph);
      if (to == kNone) return;
      // lhead only when the caller is outside the cluster it enters.
      bool caller_inside = false;
      for (size_t g = vertices_[e.from].graph; g != kNone && !caller_inside; g = parent_[g])
        caller_inside = g == e.head_graph;
      if (!caller_inside) {
        attrs += ", lhead=";
        quote_into(attrs, "cluster_" + keys_[e.head_graph]);
      }
      attrs += e.kind == EdgeKind::Call ? ", color=\"#1f77b4\", penwidth=1.5, label=\"call\""
                                        : ", color=\"#1f77b4\", style=dashed";
    } else {
      if (!vertices_[to].keep) return;
      if (e.kind == EdgeKind::Monad) attrs += ", style=dashed, color=\"#aaaaaa\"";
      if (e.label != 0) attrs.append(", label=").append(labels_[e.label].quoted);
    }
    out += "  ";
    write_id(out, vertices_[e.from]);
    out += " -> ";
    write_id(out, vertices_[to]);
    if (!attrs.empty()) out.append(" [").append(std::string_view(attrs).substr(2)).append("]");
    out += ";\n";
  }

  // The vertices of one graph by %k: a table when the numbers are dense, else a hash map.
  struct NumberIndex {
    std::vector<size_t> dense;
    std::unordered_map<uint32_t, size_t> sparse;
    void add(uint32_t k, size_t vertex) {
      if (!dense.empty()) {
        if (dense[k] == kNone) dense[k] = vertex;
      } else {
        sparse.emplace(k, vertex);
      }
    }
    size_t find(uint32_t k) const {
      if (!dense.empty()) return k < dense.size() ? dense[k] : kNone;
      auto it = sparse.find(k);
      return it == sparse.end() ? kNone : it->second;
    }
  };

  const Module& module_;
  const DrawOptions& options_;
  const DiffMarks* diff_;
  std::deque<std::string> owned_;  // the texts of vertices that are not nodes
  std::vector<std::string> keys_;
  std::vector<std::string> key_open_;  // dot_quote(key) without its closing quote
  absl::flat_hash_map<std::string_view, size_t> by_name_;
  std::vector<Vertex> vertices_;
  std::vector<Edge> edges_;
  std::vector<std::string_view> folded_;
  std::vector<Label> labels_;
  std::unordered_map<std::string, uint32_t> label_ids_;
  absl::flat_hash_map<std::string_view, ReadType> types_;
  absl::flat_hash_map<std::string_view, size_t> param_vertex_;
  std::unordered_map<std::string, size_t> placeholders_;
  std::vector<NumberIndex> node_by_number_;
  std::vector<absl::flat_hash_map<std::string_view, size_t>> node_by_name_;
  std::vector<std::vector<size_t>> node_vertex_;
  std::vector<absl::flat_hash_map<std::string_view, size_t>> constants_;
  std::vector<size_t> return_vertex_;
  std::vector<size_t> stack_;
  std::vector<bool> drawn_;
  std::vector<size_t> parent_;  // the cluster each graph's cluster is drawn in
  std::vector<size_t> anchors_;
  std::string scratch_;  // a label or tooltip being made
  std::string tooltip_;  // a node's tooltip or folded constants being made
  bool failed_ = false;  // `write` failed: the rest is not written
  Status write_error_;
};

}  // namespace

std::optional<std::pair<size_t, size_t>> failing_node(const Module& module) {
  std::optional<std::pair<size_t, size_t>> found;
  uint64_t line = 0;
  for (size_t g = 0; g < module.graphs.size(); ++g)
    for (size_t i = 0; i < module.graphs[g].nodes.size(); ++i) {
      const Node& n = module.graphs[g].nodes[i];
      if (n.marker && (!found || n.line >= line)) {
        found = {g, i};
        line = n.line;
      }
    }
  return found;
}

Expected<std::string> draw_dot(const Module& module, const DrawOptions& options,
                               const DiffMarks* diff) {
  std::string text;
  Status failed = Drawing(module, options, diff).run([&](std::string_view piece) -> Status {
    text += piece;
    return std::nullopt;
  });
  if (failed) return std::move(*failed);
  return text;
}

Status draw_dot(const Module& module, const DrawOptions& options, const DiffMarks* diff,
                const DotWriter& write) {
  return Drawing(module, options, diff).run(write);
}

std::string dot_quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  quote_into(out, text);
  return out;
}

std::string_view op_colour(std::string_view op) {
  uint32_t hash = 2166136261u;  // FNV-1a: fixed, so colours never move between versions
  for (unsigned char c : op_type(op)) hash = (hash ^ c) * 16777619u;
  hash ^= hash >> 13;  // FNV's low bits alone collide on common op names
  return kPalette[hash % std::size(kPalette)];
}

}  // namespace msdt::ir
