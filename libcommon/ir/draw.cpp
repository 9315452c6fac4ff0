#include "ir/draw.h"

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

std::string shorten(std::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "…";
}

bool is_monad_type(std::string_view label) { return label == "UMonad" || label == "IOMonad"; }

bool is_monad_value(std::string_view text) { return text == "U" || text == "IO"; }

enum class Kind : uint8_t { Op, Call, Return, Parameter, Weight, Constant, Placeholder, Scope };

struct Vertex {
  std::string id;
  size_t graph = kNone;
  Kind kind = Kind::Op;
  std::string label;
  std::string tooltip;
  std::string colour;  // fill
  const Node* node = nullptr;
  std::string match_text;  // what --focus is matched against, '\n'-separated
  bool monad = false;
  bool keep = true;
  std::string extra;  // more attributes, ", key=value" each
  std::string scope;  // scope path of an operator, for --scope-depth
  std::string type;   // the short label of its output type: "Float32[2,3]"
  std::vector<std::string> folded;
};

enum class EdgeKind : uint8_t { Data, Monad, Call, Reference };

struct Edge {
  size_t from = 0, to = 0;
  EdgeKind kind = EdgeKind::Data;
  std::string label;
  size_t head_graph = kNone;  // Call/Reference: the cluster the edge enters
};

class Drawing {
 public:
  Drawing(const Module& module, const DrawOptions& options, const DiffMarks* diff)
      : module_(module), options_(options), diff_(diff) {}

  Expected<std::string> run() {
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
    return emit();
  }

 private:
  // Cluster names: a graph's name, with "#2", "#3" for later instances of a repeated name
  // (analyze_fail.ir, spec §13.3).
  void name_graphs() {
    std::unordered_map<std::string, size_t> seen;
    for (size_t g = 0; g < module_.graphs.size(); ++g) {
      const Graph& graph = module_.graphs[g];
      size_t n = ++seen[graph.name];
      keys_.push_back(n == 1 ? graph.name : fmt::format("{}#{}", graph.name, n));
      by_name_.emplace(graph.name, g);  // the first instance answers references by name
    }
    node_by_number_.resize(module_.graphs.size());
    node_by_name_.resize(module_.graphs.size());
    node_vertex_.resize(module_.graphs.size());
    constants_.resize(module_.graphs.size());
    return_vertex_.assign(module_.graphs.size(), kNone);
  }

  size_t graph_by_name(std::string_view name) const {
    auto it = by_name_.find(std::string(name));
    return it == by_name_.end() ? kNone : it->second;
  }

  size_t add_vertex(Vertex v) {
    vertices_.push_back(std::move(v));
    return vertices_.size() - 1;
  }

  // Parameters are drawn in the graph whose head lists them; the file's parameters that no head
  // lists belong to the entry graph (spec §5).
  void add_parameters() {
    size_t total = module_.params.size();
    for (const Graph& g : module_.graphs) total += g.nodes.size() + g.params.size();
    vertices_.reserve(total + total / 8);
    edges_.reserve(2 * total);
    std::unordered_map<std::string, size_t> owner;
    for (size_t g = 0; g < module_.graphs.size(); ++g)
      for (const std::string& p : module_.graphs[g].params) {
        std::string id = p.starts_with("%") ? p.substr(1) : p;
        owner.emplace(id, g);
      }
    size_t entry = module_.graphs.empty() ? kNone : 0;
    if (size_t e = graph_by_name(module_.entry); e != kNone) entry = e;
    for (const Parameter& p : module_.params) {
      std::string id = p.id();
      auto it = owner.find(id);
      size_t g = it != owner.end() ? it->second : entry;
      TypeSpec type = parse_type_spec(p.type);
      Vertex v;
      v.id = id;
      v.graph = g;
      bool weight = p.has_default || type.ref || p.is_weight.value_or(false);
      v.kind = weight ? Kind::Weight : Kind::Parameter;
      v.label = p.name.empty() ? id : p.name;
      std::string shown = type.label();
      if (options_.types && !shown.empty() && type.kind != TypeSpec::Kind::Other)
        v.label += "\n" + shown;
      v.tooltip = fmt::format("%{}: {}", id, p.type);
      v.match_text = id + "\n" + p.name;
      v.monad = type.kind == TypeSpec::Kind::Monad;
      v.type = type.label();
      param_vertex_.emplace(id, add_vertex(std::move(v)));
    }
    // Head parameters the file's parameter list does not have (later graphs' own parameters).
    for (size_t g = 0; g < module_.graphs.size(); ++g)
      for (const std::string& p : module_.graphs[g].params) {
        std::string id = p.starts_with("%") ? p.substr(1) : p;
        if (param_vertex_.contains(id)) continue;
        Vertex v;
        v.id = id;
        v.graph = g;
        v.kind = Kind::Parameter;
        size_t underscore = id.find('_');
        v.label = underscore == std::string::npos ? id : id.substr(underscore + 1);
        v.tooltip = "%" + id;
        v.match_text = id;
        param_vertex_.emplace(id, add_vertex(std::move(v)));
      }
  }

  void add_nodes(size_t g) {
    const Graph& graph = module_.graphs[g];
    node_vertex_[g].resize(graph.nodes.size(), kNone);
    node_by_number_[g].reserve(graph.nodes.size());
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const Node& node = graph.nodes[i];
      Vertex v;
      v.graph = g;
      v.node = &node;
      if (node.is_return) {
        v.id = keys_[g] + ":return";
        v.kind = Kind::Return;
        v.label = "Return";
      } else {
        v.id = node.number ? fmt::format("{}:%{}", keys_[g], *node.number)
                           : fmt::format("{}:line{}", keys_[g], node.line);
        v.kind = node.op_kind == Node::OpKind::Primitive ? Kind::Op : Kind::Call;
        v.label = node.op;
        v.colour = node.op_kind == Node::OpKind::Primitive ? std::string(op_colour(node.op))
                                                           : std::string("#e0e0e0");
      }
      TypeSpec out = parse_type_spec(node.output_type);
      v.type = out.label();
      v.monad = node.op == "UpdateState" || out.kind == TypeSpec::Kind::Monad;
      v.scope = node.scope;
      // Operators' match text and tooltip are made when needed (a 100 000-node graph would
      // otherwise hold two more copies of every name).
      size_t index = add_vertex(std::move(v));
      node_vertex_[g][i] = index;
      if (node.number) node_by_number_[g].emplace(*node.number, index);
      if (node.is_return) return_vertex_[g] = index;
    }
  }

  std::string tooltip(const Node& node, const std::string& id) {
    std::string text = node.number ? fmt::format("%{}({})", *node.number, node.name) : id;
    if (!node.fullname.empty())
      text += "\n" + node.fullname;
    else if (!node.scope.empty())
      text += "\n" + node.scope;
    if (!node.output_type.empty()) text += "\n-> " + node.output_type;
    for (const std::string& s : node.source) text += "\nIn file " + s;
    return shorten(text, kTooltipLimit);
  }

  // The vertex an input comes from, or a dashed placeholder when the IR does not define it.
  size_t source_of(size_t g, const Input& in) {
    switch (in.kind) {
      case Input::Kind::Node: {
        auto it = node_by_number_[g].find(*in.node);
        if (it != node_by_number_[g].end()) return it->second;
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
            auto n = node_by_number_[owner].find(*k);
            if (n != node_by_number_[owner].end()) return n->second;
          }
        }
        return placeholder(owner == kNone ? g : owner, "$" + in.graph + ":" + in.target, in.text);
      }
      default:
        return kNone;
    }
  }

  size_t placeholder(size_t g, const std::string& id, const std::string& text) {
    auto it = placeholders_.find(id);
    if (it != placeholders_.end()) return it->second;
    Vertex v;
    v.id = id;
    v.graph = g;
    v.kind = Kind::Placeholder;
    v.label = text + "\n(not defined)";
    v.tooltip = text + " is referred to but not defined in the file";
    v.match_text = id;
    size_t index = add_vertex(std::move(v));
    placeholders_.emplace(id, index);
    return index;
  }

  const std::string& source_type(size_t source) const { return vertices_[source].type; }

  void add_edges(size_t g) {
    const Graph& graph = module_.graphs[g];
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const Node& node = graph.nodes[i];
      size_t to = node_vertex_[g][i];
      bool depend = op_type(node.op) == "Depend";
      bool update_state = node.op == "UpdateState";
      if (node.op_kind == Node::OpKind::Call && !node.callee.empty()) {
        if (size_t callee = graph_by_name(node.callee); callee != kNone)
          edges_.push_back(Edge{to, kNone, EdgeKind::Call, "", callee});
      } else if (node.op_kind == Node::OpKind::Local && node.op_node) {
        Input fn;
        fn.kind = Input::Kind::Node;
        fn.node = node.op_node;
        fn.text = "%" + std::to_string(*node.op_node);
        edges_.push_back(Edge{source_of(g, fn), to, EdgeKind::Data, "fn"});
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
            edges_.push_back(Edge{source_of(g, fn), to, EdgeKind::Data, "fn"});
          }
        }
      }
      for (size_t j = 0; j < node.inputs.size(); ++j) {
        const Input& in = node.inputs[j];
        if (in.kind == Input::Kind::Graph) {
          if (size_t callee = graph_by_name(in.graph); callee != kNone)
            edges_.push_back(Edge{to, kNone, EdgeKind::Reference, "", callee});
          else
            vertices_[to].folded.push_back(in.text);
          continue;
        }
        if (in.kind == Input::Kind::Value) {
          if (is_monad_value(in.text)) {
            if (options_.monads) vertices_[to].folded.push_back(in.text);
            continue;
          }
          if (in.text.size() <= kFoldedConstant) {
            vertices_[to].folded.push_back(in.text);
            continue;
          }
          edges_.push_back(Edge{constant(g, in.text), to, EdgeKind::Data, ""});
          continue;
        }
        size_t from = source_of(g, in);
        std::string type = j < node.input_types.size()
                               ? parse_type_spec(node.input_types[j]).label()
                               : source_type(from);
        bool monad = is_monad_type(type) || vertices_[from].monad || (depend && j >= 1) ||
                     update_state || in.control;
        Edge e{from, to, monad ? EdgeKind::Monad : EdgeKind::Data, ""};
        if (options_.types && !monad) e.label = type;
        edges_.push_back(std::move(e));
      }
    }
  }

  // A constant too long to fold: drawn once per graph, however many nodes use it.
  size_t constant(size_t g, const std::string& text) {
    auto it = constants_[g].find(text);
    if (it != constants_[g].end()) return it->second;
    Vertex v;
    v.id = fmt::format("{}:const{}", keys_[g], constants_[g].size() + 1);
    v.graph = g;
    v.kind = Kind::Constant;
    v.label = shorten(text, kLabelLimit);
    v.tooltip = shorten(text, kTooltipLimit);
    v.match_text = text;
    size_t index = add_vertex(std::move(v));
    constants_[g].emplace(text, index);
    return index;
  }

  void add_removed() {
    for (const DiffMarks::Removed& r : diff_->removed) {
      Vertex v;
      v.graph = r.graph;
      v.node = r.node;
      v.kind = r.node->is_return ? Kind::Return : Kind::Op;
      v.id = r.node->number ? fmt::format("removed:{}:%{}", keys_[r.graph], *r.node->number)
                            : fmt::format("removed:{}:line{}", keys_[r.graph], r.node->line);
      v.label = r.node->is_return ? "Return" : r.node->op;
      v.tooltip = "removed: " + tooltip(*r.node, v.id);
      v.match_text = fmt::format("{}\n{}\n{}", r.node->op, r.node->name, r.node->fullname);
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
      if (v.node && v.node->marker && !v.id.starts_with("removed:")) {
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
        if (vertices_[i].keep && std::regex_search(match_text(vertices_[i]), *options_.focus))
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
    if (!v.match_text.empty() || !v.node) return v.match_text;
    return fmt::format("{}\n{}\n{}\n{}", v.node->op, v.node->name, v.node->fullname, v.id);
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
    std::map<std::pair<size_t, std::string>, size_t> boxes;
    std::map<size_t, std::map<std::string, size_t>> counts;
    std::vector<size_t> into(vertices_.size(), kNone);
    size_t original = vertices_.size();
    for (size_t i = 0; i < original; ++i) {
      Vertex& v = vertices_[i];
      if (!v.keep || (v.kind != Kind::Op && v.kind != Kind::Call) || v.scope.empty()) continue;
      size_t cut = 0;
      uint32_t parts = 0;
      while (parts < depth && cut != std::string::npos) {
        cut = v.scope.find('/', cut == 0 && parts == 0 ? 0 : cut + 1);
        ++parts;
      }
      if (cut == std::string::npos) continue;  // not deeper than `depth`
      std::string prefix = v.scope.substr(0, cut);
      auto key = std::pair{v.graph, prefix};
      auto it = boxes.find(key);
      if (it == boxes.end()) {
        Vertex box;
        box.id = fmt::format("{}:scope:{}", keys_[v.graph], prefix);
        box.graph = v.graph;
        box.kind = Kind::Scope;
        box.scope = prefix;
        box.match_text = prefix;
        size_t index = add_vertex(std::move(box));
        it = boxes.emplace(key, index).first;
      }
      into[i] = it->second;
      ++counts[it->second][vertices_[i].node ? std::string(op_type(vertices_[i].node->op))
                                             : vertices_[i].label];
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
      box.label = fmt::format("{}\n{} node{}{}", box.scope, total, total == 1 ? "" : "s", lines);
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
      kept.push_back(std::move(e));
    }
    edges_ = std::move(kept);
  }

  // --- writing ------------------------------------------------------------------------------

  std::string emit() {
    std::string out;
    out.reserve(vertices_.size() * 160 + edges_.size() * 60 + 256);
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
                         dot_quote(label),
                         dot_quote(graph.location.empty() ? label : "In file " + graph.location));
      for (size_t v : members[g]) write_vertex(out, v, indent + 2);
      for (size_t c : children[g]) cluster(c, indent + 2);
      out += pad + "}\n";
    };
    for (size_t g : top) cluster(g, 2);
    for (size_t v : loose) write_vertex(out, v, 2);
    for (const Edge& e : edges_) write_edge(out, e);
    out += "}\n";
    return out;
  }

  void write_vertex(std::string& out, size_t index, int indent) {
    Vertex& v = vertices_[index];
    std::string label = v.label;
    if (!v.folded.empty()) {
      std::string folded;
      for (const std::string& f : v.folded) folded += (folded.empty() ? "" : ", ") + f;
      label += "\n" + shorten(folded, kLabelLimit);
    }
    std::string attrs;
    switch (v.kind) {
      case Kind::Op:
        attrs = fmt::format("fillcolor=\"{}\"", v.colour);
        break;
      case Kind::Call:
        attrs = fmt::format("fillcolor=\"{}\", style=\"filled\"", v.colour);
        break;
      case Kind::Return:
        attrs = "shape=invhouse, fillcolor=\"#dddddd\", style=\"filled,bold\"";
        break;
      case Kind::Parameter:
        attrs = "shape=ellipse, fillcolor=\"#e0f0ff\", style=\"filled\"";
        break;
      case Kind::Weight:
        attrs = "shape=cylinder, fillcolor=\"#fff2cc\", style=\"filled\"";
        break;
      case Kind::Constant:
        attrs = "shape=note, fillcolor=\"#f5f5f5\", style=\"filled\"";
        break;
      case Kind::Placeholder:
        attrs = "shape=box, style=\"dashed\", color=\"#888888\", fontcolor=\"#888888\"";
        break;
      case Kind::Scope:
        attrs = "shape=box3d, fillcolor=\"#eef3e2\", style=\"filled\"";
        break;
    }
    if (v.tooltip.empty() && v.node) v.tooltip = tooltip(*v.node, v.id);
    if (diff_ && v.node && v.graph != kNone && !v.id.starts_with("removed:")) {
      auto [g, i] = locate(v.node);
      if (g != kNone) {
        DiffMarks::Status s = diff_->status[g][i];
        if (s == DiffMarks::Status::Added) {
          attrs += ", color=\"#2ca02c\", penwidth=3";
          v.tooltip = "added: " + v.tooltip;
        } else if (s == DiffMarks::Status::Changed) {
          attrs += ", color=\"#ff7f0e\", penwidth=3";
          v.tooltip = "changed (" + diff_->why_changed[g][i] + "): " + v.tooltip;
        }
      }
    }
    out += fmt::format("{}{} [label={}, {}, tooltip={}{}];\n", std::string(indent, ' '),
                       dot_quote(v.id), dot_quote(label), attrs, dot_quote(v.tooltip), v.extra);
  }

  std::pair<size_t, size_t> locate(const Node* node) const {
    for (size_t g = 0; g < module_.graphs.size(); ++g) {
      const auto& nodes = module_.graphs[g].nodes;
      if (!nodes.empty() && node >= nodes.data() && node < nodes.data() + nodes.size())
        return {g, static_cast<size_t>(node - nodes.data())};
    }
    return {kNone, kNone};
  }

  void write_edge(std::string& out, const Edge& e) {
    if (!vertices_[e.from].keep) return;
    size_t to = e.to;
    std::string attrs;
    if (e.to == kNone) {
      if (e.head_graph == kNone || !drawn_[e.head_graph]) return;
      to = anchor(e.head_graph);
      if (to == kNone) return;
      // lhead only when the caller is outside the cluster it enters.
      bool caller_inside = false;
      for (size_t g = vertices_[e.from].graph; g != kNone && !caller_inside; g = parent_[g])
        caller_inside = g == e.head_graph;
      if (!caller_inside)
        attrs += fmt::format(", lhead={}", dot_quote("cluster_" + keys_[e.head_graph]));
      attrs += e.kind == EdgeKind::Call ? ", color=\"#1f77b4\", penwidth=1.5, label=\"call\""
                                        : ", color=\"#1f77b4\", style=dashed";
    } else {
      if (!vertices_[to].keep) return;
      if (e.kind == EdgeKind::Monad) attrs += ", style=dashed, color=\"#aaaaaa\"";
      if (!e.label.empty()) attrs += ", label=" + dot_quote(e.label);
    }
    out += fmt::format("  {} -> {}{}{}{};\n", dot_quote(vertices_[e.from].id),
                       dot_quote(vertices_[to].id), attrs.empty() ? "" : " [",
                       attrs.empty() ? "" : std::string_view(attrs).substr(2),
                       attrs.empty() ? "" : "]");
  }

  const Module& module_;
  const DrawOptions& options_;
  const DiffMarks* diff_;
  std::vector<std::string> keys_;
  std::unordered_multimap<std::string, size_t> by_name_;
  std::vector<Vertex> vertices_;
  std::vector<Edge> edges_;
  std::unordered_map<std::string, size_t> param_vertex_;
  std::unordered_map<std::string, size_t> placeholders_;
  std::vector<std::unordered_map<uint32_t, size_t>> node_by_number_;
  std::vector<std::unordered_map<std::string, size_t>> node_by_name_;
  std::vector<std::vector<size_t>> node_vertex_;
  std::vector<std::unordered_map<std::string, size_t>> constants_;
  std::vector<size_t> return_vertex_;
  std::vector<size_t> stack_;
  std::vector<bool> drawn_;
  std::vector<size_t> parent_;  // the cluster each graph's cluster is drawn in
  std::vector<size_t> anchors_;
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
  return Drawing(module, options, diff).run();
}

std::string dot_quote(std::string_view text) {
  // Most names are plain ASCII: only text with bytes >= 0x80 needs the UTF-8 check.
  bool ascii = std::all_of(text.begin(), text.end(),
                           [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  std::string checked = ascii ? std::string() : escape_invalid_utf8(text);
  std::string_view valid = ascii ? text : std::string_view(checked);
  std::string out;
  out.reserve(valid.size() + 2);
  out += '"';
  for (char c : valid) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20)
      out += ' ';
    else
      out += c;
  }
  out += '"';
  return out;
}

std::string_view op_colour(std::string_view op) {
  uint32_t hash = 2166136261u;  // FNV-1a: fixed, so colours never move between versions
  for (unsigned char c : op_type(op)) hash = (hash ^ c) * 16777619u;
  hash ^= hash >> 13;  // FNV's low bits alone collide on common op names
  return kPalette[hash % std::size(kPalette)];
}

}  // namespace msdt::ir
