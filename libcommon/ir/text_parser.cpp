#include "ir/text_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <unordered_set>

#include "io/text.h"

namespace msdt::ir {

std::string_view style_name(Style style) {
  switch (style) {
    case Style::A:
      return "A (1.x)";
    case Style::B:
      return "B (2.0-2.2)";
    case Style::C:
      return "C (2.3+)";
    case Style::Rdr:
      return "RDR";
    case Style::SortMode:
      return "sort mode";
    case Style::Protobuf:
      return "graph protobuf";
    case Style::Dat:
      return ".dat (1.x)";
  }
  return "";
}

std::string Parameter::id() const { return fmt::format("para{}_{}", number, name); }

const Graph* Module::graph(std::string_view name) const {
  for (const Graph& g : graphs)
    if (g.name == name) return &g;
  return nullptr;
}

namespace {

bool opens(char c) { return c == '(' || c == '[' || c == '{' || c == '<'; }

char closer_of(char c) {
  switch (c) {
    case '(':
      return ')';
    case '[':
      return ']';
    case '{':
      return '}';
    default:
      return '>';
  }
}

// '<' opens a type spec only when it starts one: not in "->", "<=" or a comparison.
bool opens_here(std::string_view t, size_t i) {
  if (!opens(t[i])) return false;
  if (t[i] != '<') return true;
  return i + 1 < t.size() && t[i + 1] != '=' && t[i + 1] != ' ' && t[i + 1] != '-';
}

std::string_view trim(std::string_view s) { return trim_blanks(s); }

std::optional<uint64_t> number_after(std::string_view line, std::string_view prefix) {
  if (!line.starts_with(prefix)) return std::nullopt;
  return parse_unsigned<uint64_t>(trim(line.substr(prefix.size())));
}

// "key : value" (style A) or "key: value" (B, C).
std::optional<std::pair<std::string, std::string>> attr_line(std::string_view line) {
  auto colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::string_view key = trim(line.substr(0, colon));
  if (key.empty() || key.find(' ') != std::string_view::npos) return std::nullopt;
  return std::pair{std::string(key), std::string(trim(line.substr(colon + 1)))};
}

// A line of dashes only: the rules around the section titles of an analyze_fail report.
bool is_dash_rule(std::string_view t) {
  return t.size() >= 3 && t.find_first_not_of('-') == std::string_view::npos;
}

// "# ====…" (2.2+) or "#====…" (1.x, middle form): the rules around the report's banners.
bool is_equals_rule(std::string_view t) { return t.starts_with("# ==") || t.starts_with("#=="); }

std::string_view rtrim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// "# 0 In file <path>:<line>[~<line2>], <col>~<col2>" (spec §13.3). The path may hold ':' (a
// Windows drive): it ends at the last ':' followed by a digit.
std::optional<TracebackFrame> frame_line(std::string_view t, uint64_t number) {
  if (!t.starts_with("# ")) return std::nullopt;
  size_t digits = 2;
  while (digits < t.size() && t[digits] >= '0' && t[digits] <= '9') ++digits;
  if (digits == 2 || !t.substr(digits).starts_with(" In file ")) return std::nullopt;
  TracebackFrame frame;
  frame.index = parse_unsigned<uint32_t>(t.substr(2, digits - 2)).value_or(0);
  frame.file_line = number;
  std::string_view where = trim(t.substr(digits + 9));
  size_t colon = std::string_view::npos;
  for (size_t k = where.size(); k-- > 0;) {
    if (where[k] == ':' && k + 1 < where.size() && where[k + 1] >= '0' && where[k + 1] <= '9') {
      colon = k;
      break;
    }
  }
  if (colon == std::string_view::npos) {
    frame.file = std::string(where);
    return frame;
  }
  frame.file = std::string(where.substr(0, colon));
  frame.where = std::string(where.substr(colon + 1));
  size_t end = colon + 1;
  while (end < where.size() && where[end] >= '0' && where[end] <= '9') ++end;
  frame.line = parse_unsigned<uint64_t>(where.substr(colon + 1, end - colon - 1)).value_or(0);
  return frame;
}

// A graph name after '@': a UTF-8 run up to '(', ',', ')', space, ':' or ']' (spec §5).
size_t name_end(std::string_view s, size_t from) {
  size_t i = from;
  while (i < s.size() && s[i] != '(' && s[i] != ',' && s[i] != ')' && s[i] != ' ' && s[i] != ':' &&
         s[i] != ']')
    ++i;
  return i;
}

Input classify_input(std::string_view text) {
  Input in;
  in.text = std::string(text);
  if (text.size() > 1 && text[0] == '%') {
    std::string_view rest = text.substr(1);
    if (auto k = parse_unsigned<uint32_t>(rest)) {
      in.kind = Input::Kind::Node;
      in.node = *k;
      return in;
    }
    if (rest.starts_with("para")) {
      in.kind = Input::Kind::Parameter;
      in.target = std::string(rest);
      return in;
    }
    in.kind = Input::Kind::Value;  // %actor names of the 2.x backend
    return in;
  }
  if (text.starts_with("$(") && text.ends_with(")")) {
    std::string_view inner = text.substr(2, text.size() - 3);
    if (inner.starts_with("@")) inner.remove_prefix(1);
    auto colon = inner.rfind(':');
    in.kind = Input::Kind::FreeNode;
    if (colon != std::string_view::npos) {
      in.graph = std::string(inner.substr(0, colon));
      in.target = std::string(inner.substr(colon + 1));
    } else {
      in.target = std::string(inner);
    }
    return in;
  }
  if (text.size() > 1 && text[0] == '@' && name_end(text, 1) == text.size()) {
    in.kind = Input::Kind::Graph;
    in.graph = std::string(text.substr(1));
    return in;
  }
  in.kind = Input::Kind::Value;
  return in;
}

struct LineError {
  size_t column;
  std::string what;
};

// The part of a head line after "%k(name) = ", or the whole Return line: operator, operands,
// attribute blocks.
std::optional<LineError> parse_call(std::string_view s, size_t base, Node& node) {
  // The operator runs to the '(' of the operands at depth 0; "$(...)" is one group.
  size_t i = 0;
  if (s.starts_with("$(")) {
    size_t end = matching_bracket(s, 1);
    if (end == std::string_view::npos) return LineError{base + 1, "unclosed '$(' in the operator"};
    i = end;
  }
  while (i < s.size() && s[i] != '(') {
    if (opens_here(s, i) && s[i] != '(') {
      size_t end = matching_bracket(s, i);
      if (end == std::string_view::npos)
        return LineError{base + i, fmt::format("unclosed '{}' in the operator", s[i])};
      i = end;
    } else {
      ++i;
    }
  }
  if (i >= s.size()) return LineError{base + s.size(), "expected '(' and the operands"};
  node.op = std::string(trim(s.substr(0, i)));
  size_t close = matching_bracket(s, i);
  if (close == std::string_view::npos)
    return LineError{base + i, "unbalanced brackets in the operands (truncated line?)"};
  std::vector<std::string_view> args = split_top_level(s.substr(i + 1, close - i - 2));
  node.inputs.reserve(args.size());
  for (std::string_view arg : args) node.inputs.push_back(classify_input(arg));

  if (node.op.starts_with("call @")) {
    node.op_kind = Node::OpKind::Call;
    node.callee = node.op.substr(6);
  } else if (node.op.starts_with("$(")) {
    node.op_kind = Node::OpKind::FreeNode;
  } else if (node.op.size() > 1 && node.op[0] == '%') {
    node.op_kind = Node::OpKind::Local;
    size_t digits = 1;
    while (digits < node.op.size() && node.op[digits] >= '0' && node.op[digits] <= '9') ++digits;
    node.op_node = parse_unsigned<uint32_t>(std::string_view(node.op).substr(1, digits - 1));
  }

  // Attribute blocks: " name: {…}" or " {…}", in any number.
  size_t at = close;
  while (at < s.size()) {
    while (at < s.size() && s[at] == ' ') ++at;
    if (at >= s.size()) break;
    std::string name;
    if (s[at] != '{') {
      size_t colon = s.find(':', at);
      if (colon == std::string_view::npos || colon + 2 >= s.size() || s[colon + 1] != ' ' ||
          s[colon + 2] != '{')
        return LineError{base + at, "expected an attribute block such as 'primitive_attrs: {…}'"};
      name = std::string(s.substr(at, colon - at));
      at = colon + 2;
    }
    size_t end = matching_bracket(s, at);
    if (end == std::string_view::npos)
      return LineError{base + at, "unbalanced braces in an attribute block"};
    node.attrs.emplace_back(std::move(name), std::string(s.substr(at + 1, end - at - 2)));
    at = end;
  }
  return std::nullopt;
}

// "(a, b) -> (c)" of a type line; false when it is not that shape.
bool type_line(std::string_view s, Node& node) {
  if (!s.starts_with("(")) return false;
  size_t end = matching_bracket(s, 0);
  if (end == std::string_view::npos) return false;
  std::vector<std::string_view> ins = split_top_level(s.substr(1, end - 2));
  std::string_view rest = trim(s.substr(end));
  if (rest.empty()) {
    node.input_types.assign(ins.begin(), ins.end());  // Return: only its input
    return true;
  }
  if (!rest.starts_with("->")) return false;
  rest = trim(rest.substr(2));
  if (rest.starts_with("(") && rest.ends_with(")")) rest = rest.substr(1, rest.size() - 2);
  node.input_types.assign(ins.begin(), ins.end());
  node.output_type = std::string(rest);
  return true;
}

// The text of "(...)" after a prefix such as "# Scope:".
std::string bracketed(std::string_view rest) {
  rest = trim(rest);
  if (rest.starts_with("(") && rest.ends_with(")")) rest = rest.substr(1, rest.size() - 2);
  return std::string(rest);
}

void continuation(std::string_view s, Node& node) {
  static constexpr std::pair<std::string_view, bool> kScopes[] = {{"# Fullname with scope:", true},
                                                                  {"# fullname_with_scope:", true},
                                                                  {"#fullname_with_scope:", true},
                                                                  {"# Scope:", false},
                                                                  {"# scope:", false},
                                                                  {"#scope:", false}};
  for (auto [prefix, full] : kScopes) {
    if (s.starts_with(prefix)) {
      std::string value = bracketed(s.substr(prefix.size()));
      if (full) node.fullname = value;
      if (full && node.scope.empty()) {
        auto slash = value.rfind('/');
        node.scope = slash == std::string::npos ? value : value.substr(0, slash);
      } else if (!full) {
        node.scope = value;
      }
      return;
    }
  }
  if (s.starts_with("# In file ")) {
    node.source.emplace_back(s.substr(10));
    return;
  }
  if (s.starts_with("#")) {
    node.comments.emplace_back(s);
    return;
  }
  if (s.starts_with(": ")) {
    std::string_view body = trim(s.substr(1));
    // "(…) -> (…)" or a "<…>" type spec is a type or kernel line: the first one the inferred types,
    // later ones the device and object-type lines. In <= 1.6 a ": (Default/…)" with neither is
    // the full name with scope (spec §3.5).
    bool types = body.find("->") != std::string_view::npos ||
                 body.find('<') != std::string_view::npos ||
                 (node.is_return && node.input_types.empty());
    if (!types) {
      node.fullname = bracketed(body);
      auto slash = node.fullname.rfind('/');
      node.scope = slash == std::string::npos ? node.fullname : node.fullname.substr(0, slash);
      return;
    }
    if (node.input_types.empty() && node.output_type.empty() && node.kernel_lines.empty() &&
        type_line(body, node))
      return;
    node.kernel_lines.emplace_back(body);
    return;
  }
  node.comments.emplace_back(s);
}

// "%para1_x : <…>  :  has_default", "%para1_x: <…> : [] ", style A kernel parts.
std::optional<Parameter> parameter_line(std::string_view line, uint64_t number) {
  if (!line.starts_with("%para")) return std::nullopt;
  size_t digits = 5;
  while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
  if (digits == 5 || digits >= line.size() || line[digits] != '_') return std::nullopt;
  Parameter p;
  p.line = number;
  p.number = parse_unsigned<uint32_t>(line.substr(5, digits - 5)).value_or(0);
  // The name runs to " :" or ":" followed by a space and '<'.
  size_t colon = line.find(": <", digits);
  size_t spaced = line.find(" : <", digits);
  size_t name_end_at = spaced != std::string_view::npos && spaced < colon ? spaced : colon;
  if (name_end_at == std::string_view::npos) {
    p.name = std::string(trim(line.substr(digits + 1)));
    return p;
  }
  // Blanks (spaces and TABs) before the colon are not part of the name: the graph heads and the
  // operands that refer to the parameter are split and trimmed the same way (split_top_level),
  // so a name written "%para1_x\t: <…>" is the one "%para1_x\t" refers to, not a second vertex.
  p.name = std::string(trim(line.substr(digits + 1, name_end_at - digits - 1)));
  size_t type_at = line.find('<', name_end_at);
  size_t type_end = matching_bracket(line, type_at);
  if (type_end == std::string_view::npos) {
    p.type = std::string(line.substr(type_at));
    return p;
  }
  p.type = std::string(line.substr(type_at, type_end - type_at));
  // The rest: "  :  has_default", "  :  <kernel>  :  IsWeight:true", " : [symbolic]".
  std::string_view rest = line.substr(type_end);
  while (!rest.empty()) {
    size_t sep = rest.find(':');
    if (sep == std::string_view::npos) break;
    rest = trim(rest.substr(sep + 1));
    if (rest.starts_with("has_default")) {
      p.has_default = true;
      rest.remove_prefix(11);
    } else if (rest.starts_with("IsWeight")) {
      std::string_view v = trim(
          rest.substr(rest.find(':') == std::string_view::npos ? rest.size() : rest.find(':') + 1));
      p.is_weight = v.starts_with("true");
      break;
    } else if (rest.starts_with("<")) {
      size_t end = matching_bracket(rest, 0);
      if (end == std::string_view::npos) break;
      p.kernel = std::string(rest.substr(0, end));
      rest.remove_prefix(end);
    } else if (rest.starts_with("[")) {
      size_t end = matching_bracket(rest, 0);
      if (end == std::string_view::npos) break;
      p.symbolic = std::string(rest.substr(0, end));
      rest.remove_prefix(end);
    } else {
      break;
    }
  }
  return p;
}

// A set of %k numbers: a bit table while they stay small (MindSpore numbers the nodes of a graph
// from 1 up), a hash set for what lies beyond. Every node line asks it, so it must be cheap.
class NumberSet {
 public:
  bool insert(uint32_t k) {
    if (k < kDenseLimit) {
      if (k >= bits_.size()) bits_.resize(std::max<size_t>(k + 1, 2 * bits_.size()), false);
      if (bits_[k]) return false;
      bits_[k] = true;
      return true;
    }
    return sparse_.insert(k).second;
  }
  bool contains(uint32_t k) const {
    return k < kDenseLimit ? k < bits_.size() && bits_[k] : sparse_.contains(k);
  }
  void clear() {
    bits_.clear();
    sparse_.clear();
  }

 private:
  static constexpr uint32_t kDenseLimit = 1u << 24;
  std::vector<bool> bits_;
  std::unordered_set<uint32_t> sparse_;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Expected<Module> run() {
    size_t pos = 0;
    uint64_t number = 0;
    while (pos <= text_.size()) {
      size_t end = text_.find('\n', pos);
      if (end == std::string_view::npos) end = text_.size();
      std::string_view line = text_.substr(pos, end - pos);
      if (line.ends_with('\r')) line.remove_suffix(1);
      ++number;
      next_ = end == text_.size() ? end : end + 1;
      check_utf8_once(module_, line, number, bad_utf8_seen_);
      if (auto error = this->line(line, number)) return *error;
      if (end == text_.size()) break;
      pos = end + 1;
    }
    end_section();
    if (graph_)
      return Error::at_line(
          graph_->line,
          fmt::format("subgraph @{} is not closed by '}}' (truncated file?)", graph_->name));
    if (!seen_header_ && module_.graphs.empty() && !module_.failure)
      return Error("not a graph file: no '# IR entry' header and no subgraph");
    if (module_.entry.empty() && !module_.graphs.empty())
      module_.entry = module_.graphs.front().name;
    check_references();
    return std::move(module_);
  }

 private:
  enum class Block : uint8_t { None, Attrs, Params, SubgraphAttrs, Order };
  // The sections of the 2.2+ analyze_fail report (spec §13.3), each a "- Title:" line between two
  // rules of dashes.
  enum class Section : uint8_t { None, Exception, CxxStack, Traceback, Other };

  void warn(uint64_t number, std::string message) {
    add_warning(module_, number, std::move(message));
  }

  // The node lines ("  %k(…) = …", "  Return(…)") between the current line and the "}" that
  // closes the graph: a guess only, for reserving.
  size_t node_lines_ahead() const {
    size_t count = 0;
    for (size_t pos = next_; pos < text_.size();) {
      size_t end = text_.find('\n', pos);
      if (end == std::string_view::npos) end = text_.size();
      std::string_view l = text_.substr(pos, end - pos);
      if (l.starts_with('}')) break;
      if (l.size() > 2 && l[0] == ' ' && l[1] == ' ' && l[2] != ' ' && l[2] != '#') ++count;
      pos = end + 1;
    }
    return count;
  }

  // The line after the current one, without its line break.
  std::string_view peek() const {
    if (next_ >= text_.size()) return {};
    size_t end = text_.find('\n', next_);
    std::string_view next = text_.substr(next_, end == std::string_view::npos ? end : end - next_);
    if (next.ends_with('\r')) next.remove_suffix(1);
    return next;
  }

  Failure& failure(uint64_t number) {
    if (!module_.failure) {
      module_.failure.emplace();
      module_.failure->line = number;
    }
    return *module_.failure;
  }

  static std::optional<Section> section_title(std::string_view t) {
    if (!t.starts_with("- ") || t.find(':') == std::string_view::npos) return std::nullopt;
    if (t == "- Caught exception:") return Section::Exception;
    if (t.starts_with("- C++ Call Stack:")) return Section::CxxStack;
    if (t == "- The Traceback of Net Construct Code:") return Section::Traceback;
    return Section::Other;
  }

  void end_section() {
    if (section_ == Section::Exception) {
      size_t first = 0, last = exception_.size();
      while (first < last && trim(exception_[first]).empty()) ++first;
      while (last > first && trim(exception_[last - 1]).empty()) --last;
      std::string text;
      for (size_t i = first; i < last; ++i) {
        if (i > first) text += '\n';
        text += exception_[i];
      }
      module_.failure->exception = std::move(text);
      exception_.clear();
    }
    section_ = Section::None;
  }

  // The failure report of analyze_fail.ir (spec §13.2, §13.3): true when the line belongs to it.
  bool report_line(std::string_view line, std::string_view t, uint64_t number) {
    if (title_rule_) {
      title_rule_ = false;
      if (is_dash_rule(t)) return true;
    }
    if (title_next_) {
      title_next_ = false;
      end_section();
      section_ = *section_title(t);
      failure(number - 1);
      title_rule_ = true;
      return true;
    }
    if (is_dash_rule(t) && section_title(trim(peek()))) {
      title_next_ = true;
      return true;
    }
    if (section_ != Section::None) {
      if (is_equals_rule(t)) {
        end_section();
        last_rule_line_ = number;
        return true;
      }
      switch (section_) {
        case Section::Exception:
          exception_.emplace_back(rtrim(line));
          return true;
        case Section::CxxStack:
          if (!t.empty()) module_.failure->cxx_stack.emplace_back(t);
          return true;
        case Section::Traceback:
          if (t.empty()) return true;
          if (auto frame = frame_line(t, number)) {
            module_.failure->traceback.push_back(std::move(*frame));
          } else if (module_.failure->traceback.empty()) {
            warn(number, fmt::format("a traceback line before any '# N In file' frame: {}",
                                     quote_for_message(t)));
          } else {
            module_.failure->traceback.back().code.emplace_back(rtrim(line));
          }
          return true;
        default:
          return true;
      }
    }
    if (is_equals_rule(t)) {
      last_rule_line_ = number;
      return true;
    }
    if (t.starts_with("# The following shows the last analyze fail log message")) {
      failure(last_rule_line_ + 1 == number ? last_rule_line_ : number);
      return true;
    }
    if (t.starts_with("# 1.This file shows the parsed IR info")) {
      failure(number);
      return true;
    }
    if (auto n = number_after(t, "# num of function graphs in stack:")) {
      failure(number).graphs_in_stack = n;
      return true;
    }
    // The tail of the 2.2+ form.
    return module_.failure && t == "No more function graphs.";
  }

  Status line(std::string_view line, uint64_t number) {
    if (graph_) return body_line(line, number);
    std::string_view t = trim(line);
    if (report_line(line, t, number)) return std::nullopt;
    if (t.empty()) {
      if (block_ == Block::Attrs || block_ == Block::SubgraphAttrs) block_ = Block::None;
      return std::nullopt;
    }
    // Header (any order before the first subgraph, spec §2.4).
    if (t.starts_with("#IR entry") || t.starts_with("# IR entry")) {
      seen_header_ = true;
      if (t.starts_with("#IR entry"))
        module_.style = Style::A;
      else if (!module_.params.empty() || module_.declared_params)
        module_.style = Style::Rdr;
      else
        module_.style = Style::B;  // C once a 2.3+ mark shows
      auto at = t.find('@');
      if (at == std::string_view::npos)
        return Error::at_line(number, "the IR entry line names no graph ('@…')");
      module_.entry = std::string(t.substr(at + 1, name_end(t, at + 1) - at - 1));
      block_ = Block::None;
      return std::nullopt;
    }
    for (std::string_view prefix :
         {"#Total subgraph :", "#Total subgraph:", "# Total subgraphs:", "# Total subgraph:"}) {
      if (auto n = number_after(t, prefix)) {
        module_.declared_graphs = n;
        if (prefix == "# Total subgraph:") module_.style = Style::SortMode;
        return std::nullopt;
      }
    }
    for (std::string_view prefix :
         {"#Total params  :", "#Total params :", "#Total params:", "# Total params:"}) {
      if (auto n = number_after(t, prefix)) {
        module_.declared_params = n;
        block_ = Block::Params;
        return std::nullopt;
      }
    }
    if (t.starts_with("#attrs") || t == "# Attrs:" || t.starts_with("# attrs:")) {
      block_ = Block::Attrs;
      return std::nullopt;
    }
    if (t == "# Params:") {
      block_ = Block::Params;
      return std::nullopt;
    }
    if (t == "Node counting information:") {
      if (module_.style != Style::Rdr) module_.style = Style::C;
      return std::nullopt;
    }
    if (auto n = number_after(t, "Total number of nodes:")) {
      module_.declared_nodes = n;
      return std::nullopt;
    }
    if (auto n = number_after(t, "Total number of cnodes:")) {
      module_.declared_cnodes = n;
      return std::nullopt;
    }
    if (t.starts_with("%para")) {
      auto p = parameter_line(t, number);
      if (!p) return Error::at_line(number, "a parameter line that is not '%paraN_name : <type>'");
      if (!seen_header_ && module_.style != Style::A)
        module_.style = Style::Rdr;
      else if (module_.style == Style::B && t.find(": <") < t.find(" : <"))
        module_.style = Style::C;  // "%para1_x: <…>" is the 2.3+ spacing
      module_.params.push_back(std::move(*p));
      return std::nullopt;
    }
    if (t == "subgraph attr:") {
      pending_ = Graph{};
      block_ = Block::SubgraphAttrs;
      return std::nullopt;
    }
    if (t.starts_with("subgraph @")) return open_graph(t, number);
    if (t == "# Order:" || t == "# order:") {
      block_ = Block::Order;
      return std::nullopt;
    }
    if (t.starts_with("# In file ")) {
      pending_.location = std::string(t.substr(10));
      return std::nullopt;
    }
    if (t.starts_with("subgraph instance:")) {
      // "subgraph instance: <name> : <address>"; the name may itself hold " : " only in theory,
      // so the address is what follows the last one.
      std::string_view rest = t.substr(18);
      size_t sep = rest.rfind(" : ");
      pending_.instance =
          std::string(trim(sep == std::string_view::npos ? rest : rest.substr(sep + 3)));
      return std::nullopt;
    }
    if (t.starts_with("#") || t.starts_with("subgraph symbol engine:") ||
        t.starts_with("switch_input:") || t.starts_with("switch_layer_input:") ||
        t.starts_with("indirect:") || t.starts_with("symbol engine details:"))
      return std::nullopt;
    if (block_ == Block::Attrs || block_ == Block::SubgraphAttrs) {
      auto kv = attr_line(t);
      if (!kv) return Error::at_line(number, "expected an attribute line 'key: value'");
      if (block_ == Block::Attrs && module_.style == Style::C &&
          line.find(" : ") != std::string_view::npos)
        module_.style = Style::A;
      (block_ == Block::Attrs ? module_.attrs : pending_.attrs).push_back(std::move(*kv));
      return std::nullopt;
    }
    if (block_ == Block::Order) return std::nullopt;
    // Not a line of any known block (analyze_fail reports and banners were taken above).
    warn(number, fmt::format("skipped a line outside any subgraph: {}", quote_for_message(t)));
    return std::nullopt;
  }

  Status open_graph(std::string_view t, uint64_t number) {
    Graph g = std::move(pending_);
    pending_ = Graph{};
    g.line = number;
    size_t at = 10;
    size_t end = name_end(t, at);
    g.name = std::string(t.substr(at, end - at));
    std::string_view rest = t.substr(end);
    if (rest.starts_with(" parent: [subgraph @")) {
      size_t p = 20;
      size_t pe = name_end(rest, p);
      g.parent = std::string(rest.substr(p, pe - p));
      size_t close = rest.find(']', pe);
      if (close == std::string_view::npos)
        return Error::at_line(number, "unclosed '[' in 'parent: [subgraph @…]'");
      rest = rest.substr(close + 1);
    }
    if (!rest.starts_with("(") || !rest.ends_with("{"))
      return Error::at_line(number, fmt::format("expected 'subgraph @{}(<params>) {{'", g.name));
    size_t close = matching_bracket(rest, 0);
    if (close == std::string_view::npos)
      return Error::at_line(number, "unbalanced brackets in the subgraph's parameters");
    for (std::string_view p : split_top_level(rest.substr(1, close - 2))) g.params.emplace_back(p);
    // Counted first, so that a graph of 100 000 nodes is not moved as its vector grows.
    g.nodes.reserve(node_lines_ahead());
    // analyze_fail.ir repeats a graph's name once per instance: each stays a graph of its own.
    module_.graphs.push_back(std::move(g));
    graph_ = &module_.graphs.back();
    numbers_.clear();
    node_ = nullptr;
    block_ = Block::None;
    return std::nullopt;
  }

  Status body_line(std::string_view line, uint64_t number) {
    if (line == "}") {
      markers_.end_graph("subgraph @" + graph_->name, module_);
      graph_ = nullptr;
      node_ = nullptr;
      return std::nullopt;
    }
    if (trim(line).empty()) return std::nullopt;
    if (line.starts_with("      ")) {
      if (!node_)
        return Error::at_line(number, "a continuation line before any node of the subgraph");
      continuation(trim(line), *node_);
      return std::nullopt;
    }
    std::string_view t = trim(line);
    if (markers_.read(t, number, module_)) return std::nullopt;
    if (t.starts_with("#")) return std::nullopt;  // comments between nodes
    if (!line.starts_with("  "))
      return Error::at_line(number, fmt::format("column 1: expected a node line (two spaces) or "
                                                "'}}' closing subgraph @{}",
                                                graph_->name));
    // Made in place: an error below fails the whole file, so a half-read node is never seen.
    Node& node = graph_->nodes.emplace_back();
    node.line = number;
    std::string_view s = line.substr(2);
    size_t base = 3;  // 1-based column of s[0]
    if (s.starts_with("%")) {
      size_t digits = 1;
      while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
      if (digits > 1 && digits < s.size() && s[digits] == '(') {
        node.number = parse_unsigned<uint32_t>(s.substr(1, digits - 1));
        size_t close = matching_bracket(s, digits);
        if (close == std::string_view::npos)
          return Error::at_line(
              number, fmt::format("column {}: unclosed '(' in the node name", base + digits));
        node.name = std::string(s.substr(digits + 1, close - digits - 2));
        if (!s.substr(close).starts_with(" = "))
          return Error::at_line(
              number, fmt::format("column {}: expected ' = ' after the node name", base + close));
        base += close + 3;
        s = s.substr(close + 3);
      }
    }
    if (!node.number) node.is_return = true;
    if (auto e = parse_call(s, base, node))
      return Error::at_line(number, fmt::format("column {}: {}", e->column, e->what));
    if (node.is_return && node.op != "Return" && node.op != "return") {
      // A bare entry (spec §3.6): kept as a node without a number.
      node.is_return = false;
    }
    if (node.number && !numbers_.insert(*node.number))
      return Error::at_line(
          number, fmt::format("%{} is defined twice in subgraph @{}", *node.number, graph_->name));
    node.marker = markers_.take();
    node_ = &node;
    return std::nullopt;
  }

  // A %k that no node of its graph defines: a warning, the rest of the graph stands.
  void check_references() {
    for (const Graph& g : module_.graphs) {
      NumberSet defined;
      for (const Node& n : g.nodes)
        if (n.number) defined.insert(*n.number);
      for (const Node& n : g.nodes) {
        auto missing = [&](uint32_t k) {
          module_.warnings.push_back(
              Error::at_line(n.line, fmt::format("%{} is not defined in subgraph @{}", k, g.name)));
        };
        for (const Input& in : n.inputs)
          if (in.kind == Input::Kind::Node && !defined.contains(*in.node)) missing(*in.node);
        if (n.op_node && !defined.contains(*n.op_node)) missing(*n.op_node);
      }
    }
    // analyze_fail.ir writes "# Total subgraphs: 0" whatever follows (spec §13.3).
    if (module_.declared_graphs && *module_.declared_graphs != module_.graphs.size() &&
        !module_.failure)
      module_.warnings.push_back(
          Error(fmt::format("the header declares {} subgraphs, the file has {}",
                            *module_.declared_graphs, module_.graphs.size())));
  }

  std::string_view text_;
  Module module_;
  Graph pending_;  // attributes and location read before a "subgraph @" line
  Graph* graph_ = nullptr;
  NumberSet numbers_;  // the %k of graph_ so far
  Node* node_ = nullptr;
  Block block_ = Block::None;
  bool seen_header_ = false;
  size_t next_ = 0;  // where the line after the current one starts
  bool bad_utf8_seen_ = false;
  // analyze_fail report state.
  Section section_ = Section::None;
  bool title_next_ = false;  // a rule was read and a "- Title:" line follows
  bool title_rule_ = false;  // a title was read and its closing rule follows
  uint64_t last_rule_line_ = 0;
  std::vector<std::string> exception_;
  MarkerLines markers_;
};

}  // namespace

void add_warning(Module& module, uint64_t line, std::string message) {
  if (module.warnings.size() < kMaxWarnings)
    module.warnings.push_back(Error::at_line(line, std::move(message)));
}

bool MarkerLines::read(std::string_view t, uint64_t line, Module& module) {
  // "#------------------------> 3"
  if (!t.starts_with("#-")) return false;
  size_t arrow = t.find_first_not_of('-', 1);
  if (arrow == std::string_view::npos || t[arrow] != '>' || arrow < 3) return false;
  auto depth = parse_unsigned<uint32_t>(trim(t.substr(arrow + 1)));
  if (!depth) {
    add_warning(module, line,
                fmt::format("a marker line whose depth is not a number: {}", quote_for_message(t)));
    return true;
  }
  if (depth_)
    add_warning(module, line_,
                fmt::format("the marker '#------------------------> {}' is followed by another "
                            "marker, not by a node",
                            *depth_));
  depth_ = *depth;
  line_ = line;
  return true;
}

void MarkerLines::end_graph(std::string_view what, Module& module) {
  if (depth_)
    add_warning(module, line_,
                fmt::format("the marker '#------------------------> {}' is not followed by a node "
                            "of {}",
                            *depth_, what));
  depth_.reset();
}

void check_utf8_once(Module& module, std::string_view line, uint64_t number, bool& seen) {
  if (seen) return;
  if (std::all_of(line.begin(), line.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
    return;  // most lines are ASCII
  for (size_t i = 0; i < line.size();) {
    size_t n = utf8_sequence_length(line, i);
    if (n == 0) {
      seen = true;
      add_warning(module, number,
                  fmt::format("column {}: invalid UTF-8 (byte 0x{:02x}); kept as written, later "
                              "lines are not checked",
                              i + 1, static_cast<uint8_t>(line[i])));
      return;
    }
    i += n;
  }
}

size_t matching_bracket(std::string_view text, size_t open) {
  if (open >= text.size()) return std::string_view::npos;
  // The closers expected, innermost last: on the stack up to 64 levels, on the heap beyond (this
  // runs for every node line, so it must not allocate).
  char fixed[64];
  std::string deep;
  size_t depth = 0;
  auto push = [&](char c) {
    if (depth < sizeof fixed)
      fixed[depth] = c;
    else
      deep.push_back(c);
    ++depth;
  };
  auto top = [&] { return depth <= sizeof fixed ? fixed[depth - 1] : deep.back(); };
  auto pop = [&] {
    if (depth > sizeof fixed) deep.pop_back();
    --depth;
  };
  push(closer_of(text[open]));
  bool quoted = false;
  // Outside strings only brackets and quotes matter: every other byte is passed at once.
  static constexpr auto kMatters = [] {
    std::array<bool, 256> matters{};
    for (unsigned char c : std::string_view("()[]{}<>\"")) matters[c] = true;
    return matters;
  }();
  for (size_t i = open + 1; i < text.size(); ++i) {
    char c = text[i];
    if (!quoted && !kMatters[static_cast<unsigned char>(c)]) continue;
    if (quoted) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        quoted = false;
      continue;
    }
    if (c == '"') {
      quoted = true;
    } else if (c == top()) {
      pop();
      if (depth == 0) return i + 1;
    } else if (opens_here(text, i)) {
      push(closer_of(c));
    } else if ((c == ')' || c == ']' || c == '}') && c != top()) {
      return std::string_view::npos;  // a closer of another kind: unbalanced
    }
  }
  return std::string_view::npos;
}

std::vector<std::string_view> split_top_level(std::string_view text) {
  std::vector<std::string_view> out;
  if (trim(text).empty()) return out;
  size_t start = 0, i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
      i = j + 1;
    } else if (opens_here(text, i)) {
      size_t end = matching_bracket(text, i);
      i = end == std::string_view::npos ? text.size() : end;
    } else if (c == ',') {
      out.emplace_back(trim(text.substr(start, i - start)));
      start = ++i;
    } else {
      ++i;
    }
  }
  out.emplace_back(trim(text.substr(start)));
  return out;
}

bool looks_like_graph_text(std::string_view text, std::string& why) {
  std::string_view head = text.substr(0, std::min<size_t>(text.size(), 64 * 1024));
  for (std::string_view mark :
       {"#IR entry", "# IR entry:", "# Total params:", "#Total params", "subgraph @",
        "# The following shows the last analyze fail log message",
        "# 1.This file shows the parsed IR info"})
    if (head.find(mark) != std::string_view::npos) return true;
  if (head.find("somas") != std::string_view::npos || head.find("SOMAS") != std::string_view::npos)
    why = "looks like a memory-planner dump (somas)";
  else if (head.find("stream") != std::string_view::npos &&
           head.find("task") != std::string_view::npos)
    why = "looks like a task or stream dump";
  else
    why = "no '# IR entry' header and no subgraph";
  return false;
}

Expected<Module> parse_ir_text(std::string_view text) {
  std::string why;
  if (!looks_like_graph_text(text, why)) return Error(fmt::format("not a graph file: {}", why));
  return Parser(text).run();
}

}  // namespace msdt::ir
