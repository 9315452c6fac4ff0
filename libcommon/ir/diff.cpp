#include "ir/diff.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>

#include "io/report.h"
#include "ir/type_spec.h"
#include "table/format.h"

namespace msdt::ir {
namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

std::string param_name(std::string_view id) {
  // "para3_conv1.weight" -> "conv1.weight": numbering moves between passes, names do not.
  if (id.starts_with("para")) {
    size_t underscore = id.find('_');
    if (underscore != std::string_view::npos) return std::string(id.substr(underscore + 1));
  }
  return std::string(id);
}

std::string op_of(const Node& n) {
  if (n.is_return) return "Return";
  if (n.op_kind == Node::OpKind::Call) return "call @" + n.callee;
  return n.op;
}

class Differ {
 public:
  Differ(const Module& a, const Module& b) : a_(a), b_(b) {}

  DiffResult run() {
    pair_graphs();
    index_nodes();
    match_by_fullname();
    for (size_t g = 0; g < b_.graphs.size(); ++g) match_by_structure(g);
    mark();
    count_ops();
    return std::move(result_);
  }

 private:
  void pair_graphs() {
    b_to_a_graph_.assign(b_.graphs.size(), kNone);
    std::vector<bool> used(a_.graphs.size(), false);
    std::unordered_map<std::string, size_t> a_by_name;
    for (size_t g = 0; g < a_.graphs.size(); ++g) a_by_name.emplace(a_.graphs[g].name, g);
    for (size_t g = 0; g < b_.graphs.size(); ++g)
      if (auto it = a_by_name.find(b_.graphs[g].name); it != a_by_name.end() && !used[it->second]) {
        b_to_a_graph_[g] = it->second;
        used[it->second] = true;
      }
    size_t next = 0;
    for (size_t g = 0; g < b_.graphs.size(); ++g) {
      if (b_to_a_graph_[g] != kNone) continue;
      while (next < a_.graphs.size() && used[next]) ++next;
      if (next == a_.graphs.size()) break;
      b_to_a_graph_[g] = next;
      used[next] = true;
    }
    a_to_b_graph_.assign(a_.graphs.size(), kNone);
    for (size_t g = 0; g < b_.graphs.size(); ++g)
      if (b_to_a_graph_[g] != kNone) a_to_b_graph_[b_to_a_graph_[g]] = g;
  }

  static std::vector<std::unordered_map<uint32_t, size_t>> numbers(const Module& m) {
    std::vector<std::unordered_map<uint32_t, size_t>> out(m.graphs.size());
    for (size_t g = 0; g < m.graphs.size(); ++g)
      for (size_t i = 0; i < m.graphs[g].nodes.size(); ++i)
        if (m.graphs[g].nodes[i].number) out[g].emplace(*m.graphs[g].nodes[i].number, i);
    return out;
  }

  void index_nodes() {
    a_num_ = numbers(a_);
    b_num_ = numbers(b_);
    for (size_t g = 0; g < a_.graphs.size(); ++g) a_index_.emplace(&a_.graphs[g], g);
    b_match_.resize(b_.graphs.size());
    for (size_t g = 0; g < b_.graphs.size(); ++g)
      b_match_[g].assign(b_.graphs[g].nodes.size(), nullptr);
    for (const Graph& g : a_.graphs)
      for (const Node& n : g.nodes) a_matched_.emplace(&n, false);
  }

  void pair(size_t g, size_t i, const Node* a) {
    b_match_[g][i] = a;
    a_matched_[a] = true;
  }

  void match_by_fullname() {
    std::unordered_map<std::string, const Node*> a_full;
    std::unordered_map<std::string, int> a_count, b_count;
    for (const Graph& g : a_.graphs)
      for (const Node& n : g.nodes)
        if (!n.fullname.empty() && ++a_count[n.fullname] == 1) a_full.emplace(n.fullname, &n);
    for (const Graph& g : b_.graphs)
      for (const Node& n : g.nodes)
        if (!n.fullname.empty()) ++b_count[n.fullname];
    for (size_t g = 0; g < b_.graphs.size(); ++g)
      for (size_t i = 0; i < b_.graphs[g].nodes.size(); ++i) {
        const Node& n = b_.graphs[g].nodes[i];
        if (n.fullname.empty() || b_count[n.fullname] != 1 || a_count[n.fullname] != 1) continue;
        pair(g, i, a_full.at(n.fullname));
      }
  }

  // What an input is, in A's terms: a node of A (its address), a parameter by name, a value.
  std::string a_input(const Graph& graph, const Input& in) const {
    switch (in.kind) {
      case Input::Kind::Node: {
        const auto& map = a_num_[a_index_.at(&graph)];
        auto it = map.find(*in.node);
        if (it == map.end()) return in.text;
        return fmt::format("n{}", static_cast<const void*>(&graph.nodes[it->second]));
      }
      case Input::Kind::Parameter:
        return "p" + param_name(in.target);
      default:
        return in.text;
    }
  }

  std::string b_input(size_t g, const Input& in) const {
    if (in.kind == Input::Kind::Node) {
      auto it = b_num_[g].find(*in.node);
      if (it == b_num_[g].end()) return in.text;
      const Node* a = b_match_[g][it->second];
      return a ? fmt::format("n{}", static_cast<const void*>(a)) : "unpaired";
    }
    if (in.kind == Input::Kind::Parameter) return "p" + param_name(in.target);
    return in.text;
  }

  std::string a_signature(const Graph& graph, const Node& n) const {
    std::string s = op_of(n) + "(";
    for (const Input& in : n.inputs) s += a_input(graph, in) + ",";
    return s + ")";
  }

  std::string b_signature(size_t g, const Node& n) const {
    std::string s = op_of(n) + "(";
    for (const Input& in : n.inputs) s += b_input(g, in) + ",";
    return s + ")";
  }

  void match_by_structure(size_t g) {
    size_t ag = b_to_a_graph_[g];
    if (ag == kNone) return;
    const Graph& a_graph = a_.graphs[ag];
    std::unordered_multimap<std::string, const Node*> by_signature;
    std::map<std::string, std::vector<const Node*>> by_op;
    for (const Node& n : a_graph.nodes) {
      if (a_matched_[&n]) continue;
      by_signature.emplace(a_signature(a_graph, n), &n);
      by_op[op_of(n)].push_back(&n);
    }
    const auto& nodes = b_.graphs[g].nodes;
    // Nodes are in topological order, so a node's inputs are paired before it is.
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (b_match_[g][i]) continue;
      auto range = by_signature.equal_range(b_signature(g, nodes[i]));
      for (auto it = range.first; it != range.second; ++it)
        if (!a_matched_[it->second]) {
          pair(g, i, it->second);
          break;
        }
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (b_match_[g][i]) continue;
      auto& candidates = by_op[op_of(nodes[i])];
      for (const Node* c : candidates)
        if (!a_matched_[c]) {
          pair(g, i, c);
          break;
        }
    }
  }

  const Graph* a_graph_of(const Node* n) const {
    for (const Graph& g : a_.graphs)
      if (!g.nodes.empty() && n >= g.nodes.data() && n < g.nodes.data() + g.nodes.size()) return &g;
    return &a_.graphs.front();  // unreachable: every paired node is one of A's
  }

  void mark() {
    DiffMarks& m = result_.marks;
    m.status.resize(b_.graphs.size());
    m.why_changed.resize(b_.graphs.size());
    for (size_t g = 0; g < b_.graphs.size(); ++g) {
      const auto& nodes = b_.graphs[g].nodes;
      m.status[g].assign(nodes.size(), DiffMarks::Status::Same);
      m.why_changed[g].assign(nodes.size(), "");
      const Graph* ag = b_to_a_graph_[g] == kNone ? nullptr : &a_.graphs[b_to_a_graph_[g]];
      for (size_t i = 0; i < nodes.size(); ++i) {
        const Node* a = b_match_[g][i];
        if (!a) {
          m.status[g][i] = DiffMarks::Status::Added;
          ++result_.added;
          continue;
        }
        const Graph* owner = ag && a >= ag->nodes.data() && a < ag->nodes.data() + ag->nodes.size()
                                 ? ag
                                 : a_graph_of(a);
        std::vector<std::string> why;
        if (op_of(*a) != op_of(nodes[i]))
          why.push_back("operator " + op_of(*a) + " -> " + op_of(nodes[i]));
        std::string as = a_signature(*owner, *a), bs = b_signature(g, nodes[i]);
        if (as.substr(as.find('(')) != bs.substr(bs.find('('))) why.push_back("inputs");
        if (parse_type_spec(a->output_type).label() !=
            parse_type_spec(nodes[i].output_type).label())
          why.push_back("type " + parse_type_spec(a->output_type).label() + " -> " +
                        parse_type_spec(nodes[i].output_type).label());
        if (why.empty()) {
          ++result_.same;
          continue;
        }
        m.status[g][i] = DiffMarks::Status::Changed;
        std::string text;
        for (const std::string& w : why) text += (text.empty() ? "" : ", ") + w;
        m.why_changed[g][i] = text;
        ++result_.changed;
      }
    }
    for (size_t g = 0; g < a_.graphs.size(); ++g)
      for (const Node& n : a_.graphs[g].nodes) {
        if (a_matched_[&n]) continue;
        ++result_.removed;
        size_t into = a_to_b_graph_[g];
        if (into == kNone) into = b_.graphs.empty() ? kNone : 0;
        if (into != kNone) m.removed.push_back({into, &n});
      }
  }

  void count_ops() {
    std::map<std::string, std::pair<uint64_t, uint64_t>> counts;
    for (const Graph& g : a_.graphs)
      for (const Node& n : g.nodes) ++counts[op_of(n)].first;
    for (const Graph& g : b_.graphs)
      for (const Node& n : g.nodes) ++counts[op_of(n)].second;
    for (const auto& [op, c] : counts)
      if (c.first != c.second) result_.op_changes.emplace_back(op, c.first, c.second);
  }

  const Module& a_;
  const Module& b_;
  std::vector<size_t> b_to_a_graph_, a_to_b_graph_;
  std::vector<std::vector<const Node*>> b_match_;
  std::vector<std::unordered_map<uint32_t, size_t>> a_num_, b_num_;
  std::unordered_map<const Graph*, size_t> a_index_;
  std::unordered_map<const Node*, bool> a_matched_;
  DiffResult result_;
};

}  // namespace

DiffResult diff_modules(const Module& a, const Module& b) { return Differ(a, b).run(); }

std::string diff_stats_text(const DiffResult& d) {
  std::string out = table::align_columns({{"same", std::to_string(d.same)},
                                          {"changed", std::to_string(d.changed)},
                                          {"added", std::to_string(d.added)},
                                          {"removed", std::to_string(d.removed)}});
  std::vector<std::vector<std::string>> rows{{"op", "before", "after", "change"}};
  for (const auto& [op, before, after] : d.op_changes)
    rows.push_back(
        {printable_path(op), std::to_string(before), std::to_string(after),
         fmt::format("{:+}", static_cast<int64_t>(after) - static_cast<int64_t>(before))});
  if (rows.size() > 1) out += "\n" + table::align_columns(rows);
  return out;
}

nlohmann::ordered_json diff_stats_json(const DiffResult& d) {
  nlohmann::ordered_json j{
      {"same", d.same}, {"changed", d.changed}, {"added", d.added}, {"removed", d.removed}};
  nlohmann::ordered_json ops = nlohmann::ordered_json::array();
  for (const auto& [op, before, after] : d.op_changes)
    ops.push_back({{"op", op}, {"before", before}, {"after", after}});
  j["ops"] = std::move(ops);
  return j;
}

}  // namespace msdt::ir
