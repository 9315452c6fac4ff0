// The Running Data Recorder's files (spec rdr.md §2, §3, §5). Each parser reads line by line with
// 1-based line numbers and stops at the first line it cannot place; counts written in a file are
// only compared with what was read, never used to size anything.
#include "rdr/recorders.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>
#include <utility>

#include "io/text.h"
#include "ir/text_parser.h"

namespace msdt::rdr {
namespace {

constexpr size_t npos = std::string_view::npos;

// The lines of a text: without the '\n' and without one '\r' before it (files written on Windows
// or copied through it), numbered from 1.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}

  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    size_t end = text_.find('\n', pos_);
    if (end == npos) end = text_.size();
    line = text_.substr(pos_, end - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = end + 1;
    ++number_;
    return true;
  }
  // The line `next` would give, without taking it.
  bool peek(std::string_view& line) const {
    Lines copy = *this;
    return copy.next(line);
  }
  // The number of the line last read (the last line of the text once `next` returned false).
  uint64_t number() const { return number_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  uint64_t number_ = 0;
};

bool blank(std::string_view line) { return trim_blanks(line).empty(); }

std::string shown(std::string_view text) { return quote_for_message(text); }

// An unsigned decimal of type T: nullopt when it is not one, with `too_large` set when it is all
// digits but does not fit.
template <class T>
std::optional<T> unsigned_field(std::string_view text, bool* too_large = nullptr) {
  auto value = parse_unsigned<T>(text);
  if (too_large) *too_large = !value && is_digits(text);
  return value;
}

// A C++ `void*` as an ostream prints it: "0x7f3a2c000000" (libstdc++ prints a null pointer as
// "0"; "(nil)" is what printf's %p gives, accepted too).
std::optional<uint64_t> parse_address(std::string_view text, bool* too_large) {
  *too_large = false;
  if (text == "0" || text == "(nil)") return uint64_t{0};
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return std::nullopt;
  std::string_view hex = text.substr(2);
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (!std::all_of(hex.begin(), hex.end(), [&](char c) { return digit(c) >= 0; }))
    return std::nullopt;
  size_t first = std::min(hex.find_first_not_of('0'), hex.size());
  if (hex.size() - first > 16) {
    *too_large = true;
    return std::nullopt;
  }
  uint64_t value = 0;
  for (char c : hex.substr(first)) value = value << 4 | static_cast<uint64_t>(digit(c));
  return value;
}

// ---- graph_exec_order ----

// "[@]<graph>:<name>{[0]: ValueNode<Primitive> <op>, [1]: <operand>, ...}" (CNode::DebugString);
// another shape leaves the fields empty.
void read_debug_string(ExecNode& node) {
  std::string_view s = trim_blanks(node.debug_string);
  size_t brace = s.find('{');
  if (brace == npos || brace == 0 || ir::matching_bracket(s, brace) != s.size()) return;
  std::string_view head = s.substr(0, brace);
  std::string_view graph, name = head;
  if (size_t colon = head.find(':'); colon != npos) {
    graph = head.substr(0, colon);
    name = head.substr(colon + 1);
  }
  if (graph.starts_with('@')) graph.remove_prefix(1);
  if (name.empty()) return;
  std::vector<std::string_view> operands =
      ir::split_top_level(s.substr(brace + 1, s.size() - brace - 2));
  for (std::string_view& operand : operands) {
    // "[<i>]: " as CNode::DebugString puts it before each operand.
    if (operand.starts_with('[')) {
      size_t close = operand.find("]: ");
      if (close != npos && is_digits(operand.substr(1, close - 1)))
        operand = operand.substr(close + 3);
    }
  }
  node.graph = std::string(graph);
  node.name = std::string(name);
  if (operands.empty()) return;
  std::string_view op = operands[0];
  if (op.starts_with("ValueNode<")) {
    size_t end = ir::matching_bracket(op, op.find('<'));
    if (end != npos && end < op.size() && op[end] == ' ') op = trim_blanks(op.substr(end + 1));
  }
  node.op = std::string(op);
  for (size_t i = 1; i < operands.size(); ++i) node.inputs.emplace_back(operands[i]);
}

}  // namespace

Expected<ExecOrder> parse_exec_order(std::string_view text) {
  ExecOrder out;
  Lines lines(text);
  std::string_view line;
  constexpr std::string_view kSize = "execution_order size:";
  while (lines.next(line)) {
    if (blank(line)) continue;
    if (trim_blanks(line) != kExecOrderBanner)
      return Error::at_line(lines.number(), fmt::format("expected the banner '{}', found {}",
                                                        kExecOrderBanner, shown(line)));
    ExecBlock block;
    block.line = lines.number();
    auto cut_short = [&] {
      return Error::at_line(lines.number(),
                            fmt::format("the block opened at line {} has no closing banner (file "
                                        "cut short?)",
                                        block.line));
    };
    if (!lines.next(line)) return cut_short();
    std::string_view size_text = trim_blanks(line);
    bool too_large = false;
    std::optional<uint64_t> declared;
    if (size_text.starts_with(kSize))
      declared = unsigned_field<uint64_t>(trim_blanks(size_text.substr(kSize.size())), &too_large);
    if (!declared)
      return Error::at_line(
          lines.number(),
          too_large ? fmt::format("the size in {} does not fit in 64 bits", shown(line))
                    : fmt::format("expected 'execution_order size: <n>', found {}", shown(line)));
    block.declared = *declared;
    uint64_t size_line = lines.number();
    for (;;) {
      if (!lines.next(line)) return cut_short();
      std::string_view t = trim_blanks(line);
      if (t == kExecOrderBanner) break;
      ExecNode node;
      node.line = lines.number();
      std::optional<uint64_t> index;
      if (t.size() > 1 && t.back() == ':')
        index = parse_unsigned<uint64_t>(t.substr(0, t.size() - 1));
      if (!index)
        return Error::at_line(lines.number(),
                              fmt::format("expected '{}:' or the closing banner, found {}",
                                          block.nodes.size(), shown(line)));
      if (*index != block.nodes.size())
        return Error::at_line(lines.number(), fmt::format("expected index {}, found {}",
                                                          block.nodes.size(), shown(line)));
      node.index = *index;
      // The three tab-indented lines that follow `i:` (spec §3.2).
      constexpr std::string_view kWhat[] = {"debug string", "stream label", "graph id"};
      std::string_view fields[3];
      for (int k = 0; k < 3; ++k) {
        if (!lines.next(line)) return cut_short();
        if (!line.starts_with('\t'))
          return Error::at_line(lines.number(),
                                fmt::format("expected the tab-indented {} of node {}, found {}",
                                            kWhat[k], node.index, shown(line)));
        fields[k] = line.substr(1);
      }
      for (int k = 1; k < 3; ++k) {
        auto value = unsigned_field<uint32_t>(trim_blanks(fields[k]));
        if (!value)
          return Error::at_line(node.line + static_cast<uint64_t>(k) + 1,
                                fmt::format("the {} of node {} is not an unsigned 32-bit number: "
                                            "{}",
                                            kWhat[k], node.index, shown(fields[k])));
        (k == 1 ? node.stream_label : node.graph_id) = *value;
      }
      node.debug_string = std::string(fields[0]);
      read_debug_string(node);
      block.nodes.push_back(std::move(node));
    }
    if (block.declared != block.nodes.size())
      return Error::at_line(size_line,
                            fmt::format("execution_order size: {} but the block lists {} nodes",
                                        block.declared, block.nodes.size()));
    out.blocks.push_back(std::move(block));
  }
  return out;
}

// ---- assign_stream ----

namespace {

using json = nlohmann::json;

// Deeper nesting than this is no stream assignment (its arrays hold flat objects): refused before
// nlohmann builds anything from it.
constexpr size_t kMaxJsonDepth = 64;

uint64_t line_at(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<uint64_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

bool json_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// One top-level array found by counting brackets outside strings: where it ends (the text's end
// when it is not closed, left for nlohmann to report) and where each element starts, for errors.
struct ArraySpan {
  size_t end = 0;
  std::vector<size_t> elements;
};

Expected<ArraySpan> scan_array(std::string_view text, size_t begin) {
  ArraySpan span;
  span.end = text.size();
  size_t depth = 0;
  bool want_element = false;
  for (size_t i = begin; i < text.size(); ++i) {
    char c = text[i];
    if (json_blank(c)) continue;
    if (want_element && depth == 1 && c != ']') span.elements.push_back(i);
    want_element = false;
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return Error::at_line(line_at(text, i),
                              fmt::format("JSON nested deeper than {} levels", kMaxJsonDepth));
      want_element = depth == 1;
    } else if (c == ']' || c == '}') {
      if (--depth == 0) {
        span.end = i + 1;
        return span;
      }
    } else if (c == ',') {
      want_element = depth == 1;
    }
  }
  return span;
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1, column
// 2: " prefix (its line and column count from the array, not the file).
std::string json_message(const std::exception& e) {
  std::string what = e.what();
  if (auto at = what.find("parse error"); at != npos) {
    if (auto colon = what.find(": ", at); colon != npos) return what.substr(colon + 2);
  } else if (auto bracket = what.find("] "); bracket != npos) {
    return what.substr(bracket + 2);
  }
  return what;
}

std::string key_text(std::string_view key) { return fmt::format("\"{}\"", key); }

// A JSON unsigned number, or a string of decimal digits.
std::optional<uint64_t> unsigned_value(const json& value) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_string()) return parse_unsigned<uint64_t>(value.get_ref<const std::string&>());
  return std::nullopt;
}

// "a,b" (Vector2String in stream_exec_order_recorder.cc); "" is no value. A bare number is taken
// as a list of one.
std::optional<std::vector<uint32_t>> id_list(const json& value) {
  std::vector<uint32_t> out;
  if (value.is_null()) return out;
  if (value.is_number_unsigned()) {
    if (value.get<uint64_t>() > UINT32_MAX) return std::nullopt;
    out.push_back(value.get<uint32_t>());
    return out;
  }
  if (!value.is_string()) return std::nullopt;
  std::string_view s = value.get_ref<const std::string&>();
  if (blank(s)) return out;
  for (;;) {
    size_t comma = s.find(',');
    auto id = parse_unsigned<uint32_t>(trim_blanks(s.substr(0, comma)));
    if (!id) return std::nullopt;
    out.push_back(*id);
    if (comma == npos) return out;
    s.remove_prefix(comma + 1);
  }
}

// The error has no line yet: the caller counts it only when there is an error (counting for every
// element would be quadratic in the file's size).
Expected<StreamNode> stream_node(const json& element, size_t position) {
  auto fail = [&](std::string what) { return Error(fmt::format("index {}: {}", position, what)); };
  if (!element.is_object()) return fail("expected an object");
  StreamNode node;
  struct Number {
    std::string_view key;
    uint64_t* to;
  };
  for (auto [key, to] :
       {Number{"index", &node.index}, Number{"logic_id", &node.logic_id},
        Number{"stream_id", &node.stream_id}, Number{"event_id", &node.event_id}}) {
    auto it = element.find(key);
    if (it == element.end()) return fail(fmt::format("{} is missing", key_text(key)));
    auto value = unsigned_value(*it);
    if (!value) return fail(fmt::format("{} is not an unsigned number", key_text(key)));
    *to = *value;
  }
  struct Text {
    std::string_view key;
    std::string* to;
  };
  for (auto [key, to] : {Text{"node_name", &node.node_name}, Text{"node_info", &node.node_info}}) {
    auto it = element.find(key);
    if (it == element.end()) return fail(fmt::format("{} is missing", key_text(key)));
    if (!it->is_string()) return fail(fmt::format("{} is not a string", key_text(key)));
    *to = it->get<std::string>();
  }
  struct List {
    std::string_view key;
    std::vector<uint32_t>* to;
  };
  for (auto [key, to] :
       {List{"label_id", &node.label_ids}, List{"active_stream_id", &node.active_streams}}) {
    auto it = element.find(key);
    if (it == element.end()) continue;
    auto ids = id_list(*it);
    if (!ids)
      return fail(fmt::format("{} is not a list of unsigned 32-bit numbers such as \"1,2\"",
                              key_text(key)));
    *to = std::move(*ids);
  }
  return node;
}

}  // namespace

Expected<StreamAssignment> parse_stream_assignment(std::string_view text) {
  StreamAssignment out;
  size_t at = 0;
  for (;;) {
    while (at < text.size() && json_blank(text[at])) ++at;
    if (at >= text.size()) break;
    if (text[at] != '[') {
      size_t end = text.find('\n', at);
      return Error::at_line(line_at(text, at),
                            fmt::format("expected a JSON array, found {}",
                                        shown(text.substr(at, end == npos ? npos : end - at))));
    }
    MSDT_TRY(ArraySpan span, scan_array(text, at));
    std::string_view value_text = text.substr(at, span.end - at);
    json doc;
    try {
      doc = json::parse(value_text.begin(), value_text.end(), nullptr, true,
                        /*ignore_comments=*/false);
    } catch (const json::parse_error& e) {
      // e.byte counts from 1 and points just past the byte that was wrong.
      size_t bad = at + (e.byte > 0 ? static_cast<size_t>(e.byte) - 1 : 0);
      return Error::at_line(line_at(text, bad), "not valid JSON: " + json_message(e));
    } catch (const json::exception& e) {  // a number beyond a double (1e999) and the like
      return Error::at_line(line_at(text, at), "not valid JSON: " + json_message(e));
    }
    std::vector<StreamNode> nodes;
    // The scan and nlohmann agree on valid JSON; should they not, the array's line is used.
    for (size_t i = 0; i < doc.size(); ++i) {
      auto node = stream_node(doc[i], i);
      if (!node) {
        Error error = std::move(node).error();
        error.line = line_at(text, i < span.elements.size() ? span.elements[i] : at);
        return error;
      }
      nodes.push_back(std::move(*node));
    }
    out.arrays.push_back(std::move(nodes));
    at = span.end;
  }
  return out;
}

// ---- KERNEL.mem_address_list ----

namespace {

// A buffer's end (address + size) must be an address too: one that would wrap past 2^64 is no
// buffer a device could hold, and its end could not be shown (rdr-inspect --memory).
Status check_buffer_end(uint64_t address, uint64_t size, uint64_t number) {
  if (size <= UINT64_MAX - address) return std::nullopt;
  return Error::at_line(number, fmt::format("the buffer at {:#x} of {} bytes would end past "
                                            "0xffffffffffffffff (address + size overflows 64 bits)",
                                            address, size));
}

// "&<addr> #<size>" (MemInfo2String in mem_address_recorder.cc).
Expected<Buffer> memory_buffer(std::string_view line, uint64_t number) {
  std::string_view t = trim_blanks(line);
  size_t hash = t.find(" #");
  if (!t.starts_with('&') || hash == npos)
    return Error::at_line(number,
                          fmt::format("expected '&<address> #<size>', found {}", shown(line)));
  std::string_view address = trim_blanks(t.substr(1, hash - 1));
  std::string_view size = trim_blanks(t.substr(hash + 2));
  Buffer buffer;
  bool too_large = false;
  auto a = parse_address(address, &too_large);
  if (!a)
    return Error::at_line(
        number,
        too_large ? fmt::format("the address {} does not fit in 64 bits", shown(address))
                  : fmt::format("the address {} is not '0x<hex>', '0' or '(nil)'", shown(address)));
  auto s = unsigned_field<uint64_t>(size, &too_large);
  if (!s)
    return Error::at_line(
        number, too_large ? fmt::format("the size {} does not fit in 64 bits", shown(size))
                          : fmt::format("the size {} is not an unsigned number", shown(size)));
  MSDT_CHECK(check_buffer_end(*a, *s, number));
  buffer.address = *a;
  buffer.size = *s;
  return buffer;
}

}  // namespace

Expected<MemoryList> parse_memory_list(std::string_view text) {
  MemoryList out;
  Lines lines(text);
  std::string_view line;
  constexpr std::string_view kSections[] = {"kernel_inputs", "kernel_workspaces", "kernel_outputs"};
  bool after_blank = true;  // the previous line was blank (or there was none)
  while (lines.next(line)) {
    std::string_view peeked;
    // The 1.2-1.4 GPU recorder writes one slot per execution-order position and leaves the
    // slots of kernels not launched yet with an empty op name: a blank line right before
    // `kernel_inputs`.
    bool empty_slot = blank(line) && after_blank && lines.peek(peeked) &&
                      trim_blanks(peeked).starts_with("kernel_inputs");
    after_blank = blank(line);
    if (blank(line) && !empty_slot) continue;
    if (line.starts_with("kernel_") || line.starts_with('&'))
      return Error::at_line(lines.number(),
                            fmt::format("expected an op name before {}", shown(line)));
    KernelMemory kernel;
    if (!empty_slot) kernel.op = std::string(line);
    kernel.line = lines.number();
    std::vector<Buffer>* lists[] = {&kernel.inputs, &kernel.workspaces, &kernel.outputs};
    uint64_t* declared[] = {&kernel.declared_inputs, &kernel.declared_workspaces,
                            &kernel.declared_outputs};
    for (size_t k = 0; k < 3; ++k) {
      if (!lines.next(line))
        return Error::at_line(lines.number(),
                              fmt::format("the file ends inside the kernel {} (line {}), before "
                                          "its {}",
                                          shown(kernel.op), kernel.line, kSections[k]));
      std::string_view t = trim_blanks(line);
      std::string_view rest = t.starts_with(kSections[k]) ? t.substr(kSections[k].size()) : "";
      bool too_large = false;
      std::optional<uint64_t> count;
      if (rest.starts_with(' ')) count = unsigned_field<uint64_t>(trim_blanks(rest), &too_large);
      if (!count)
        return Error::at_line(
            lines.number(),
            too_large ? fmt::format("the count in {} does not fit in 64 bits", shown(line))
                      : fmt::format("expected '{} <n>' in the kernel {}, found {}", kSections[k],
                                    shown(kernel.op), shown(line)));
      *declared[k] = *count;
      // Null buffers are counted but not listed (spec §3.4), so fewer lines than the count is
      // normal.
      std::string_view next;
      while (lines.peek(next) && trim_blanks(next).starts_with('&')) {
        lines.next(line);
        MSDT_TRY(Buffer buffer, memory_buffer(line, lines.number()));
        if (lists[k]->size() >= *count)
          return Error::at_line(
              lines.number(), fmt::format("{} declares {} buffers, this is buffer {}", kSections[k],
                                          *count, lists[k]->size() + 1));
        lists[k]->push_back(buffer);
      }
    }
    out.kernels.push_back(std::move(kernel));
    after_blank = false;
  }
  return out;
}

// ---- task_info_graph ----

namespace {

// "task_index:<i>\ttask_num:<n>\ttask0_stream_id:<s>\ttask0_type:<t>\ttask0_dump_flag:<b>"
// (TaskGenerator::SaveTaskDebugInfoToFile: the flag is a bool printed without boolalpha).
Status task_numbers(std::string_view line, uint64_t number, size_t position, TaskInfo& task) {
  constexpr std::string_view kKeys[] = {"task_index", "task_num", "task0_stream_id", "task0_type",
                                        "task0_dump_flag"};
  std::string_view rest = trim_blanks(line);
  std::string_view values[5];
  for (size_t k = 0; k < 5; ++k) {
    size_t tab = rest.find('\t');
    std::string_view field = trim_blanks(rest.substr(0, tab));
    rest = tab == npos ? std::string_view() : rest.substr(tab + 1);
    if (!field.starts_with(kKeys[k]) || field.size() <= kKeys[k].size() ||
        field[kKeys[k].size()] != ':')
      return Error::at_line(number, fmt::format("expected '{}:' as field {} of the line after "
                                                "op_name, found {}",
                                                kKeys[k], k + 1, shown(line)));
    values[k] = trim_blanks(field.substr(kKeys[k].size() + 1));
  }
  if (!blank(rest))
    return Error::at_line(number,
                          fmt::format("unexpected text after task0_dump_flag: {}", shown(rest)));
  uint64_t* to[] = {&task.task_index, &task.task_num, &task.stream_id, &task.type};
  for (size_t k = 0; k < 4; ++k) {
    auto value = unsigned_field<uint64_t>(values[k]);
    if (!value)
      return Error::at_line(
          number, fmt::format("{} {} is not an unsigned number", kKeys[k], shown(values[k])));
    *to[k] = *value;
  }
  if (values[4] == "1" || values[4] == "true")
    task.dump_flag = true;
  else if (values[4] == "0" || values[4] == "false")
    task.dump_flag = false;
  else
    return Error::at_line(number,
                          fmt::format("task0_dump_flag {} is not 0 or 1", shown(values[4])));
  if (task.task_index != position)
    return Error::at_line(
        number, fmt::format("task_index {} where task {} was expected", task.task_index, position));
  return std::nullopt;
}

// "<addr>(<size>)\t<addr>(<size>)\t": every item ends with a tab, the last one too.
Status task_buffers(std::string_view list, uint64_t number, std::vector<Buffer>& out) {
  while (!list.empty()) {
    size_t tab = list.find('\t');
    std::string_view item = trim_blanks(list.substr(0, tab));
    list = tab == npos ? std::string_view() : list.substr(tab + 1);
    if (item.empty()) continue;
    size_t open = item.find('(', 1);  // past the '(' of "(nil)"
    if (open == npos || !item.ends_with(')'))
      return Error::at_line(number,
                            fmt::format("expected '<address>(<size>)', found {}", shown(item)));
    std::string_view address = item.substr(0, open);
    std::string_view size = item.substr(open + 1, item.size() - open - 2);
    bool too_large = false;
    auto a = parse_address(address, &too_large);
    if (!a)
      return Error::at_line(
          number, too_large ? fmt::format("the address {} does not fit in 64 bits", shown(address))
                            : fmt::format("the address {} is not '0x<hex>', '0' or "
                                          "'(nil)'",
                                          shown(address)));
    auto s = unsigned_field<uint64_t>(size, &too_large);
    if (!s)
      return Error::at_line(
          number, too_large ? fmt::format("the size {} does not fit in 64 bits", shown(size))
                            : fmt::format("the size {} is not an unsigned number", shown(size)));
    MSDT_CHECK(check_buffer_end(*a, *s, number));
    out.push_back(Buffer{*a, *s});
  }
  return std::nullopt;
}

}  // namespace

Expected<TaskList> parse_task_info(std::string_view text) {
  TaskList out;
  Lines lines(text);
  std::string_view line;
  constexpr std::string_view kOpName = "op_name:";
  constexpr std::string_view kLists[] = {"input address:", "output address:", "workspace address:"};
  bool have = lines.next(line);
  while (have) {
    if (blank(line)) {
      have = lines.next(line);
      continue;
    }
    if (!line.starts_with(kOpName))
      return Error::at_line(lines.number(),
                            fmt::format("expected 'op_name:<name>', found {}", shown(line)));
    TaskInfo task;
    task.line = lines.number();
    task.op_name = std::string(trim_blanks(line.substr(kOpName.size())));
    if (!lines.next(line))
      return Error::at_line(lines.number(),
                            fmt::format("the file ends after op_name {}, before its task_index "
                                        "line",
                                        shown(task.op_name)));
    MSDT_CHECK(task_numbers(line, lines.number(), out.tasks.size(), task));
    std::vector<Buffer>* lists[] = {&task.inputs, &task.outputs, &task.workspaces};
    // The address lines, each only when it has addresses, in this order; then a blank line.
    size_t next_list = 0;
    for (;;) {
      have = lines.next(line);
      if (!have || blank(line) || line.starts_with(kOpName)) break;
      size_t k = 0;
      while (k < 3 && !line.starts_with(kLists[k])) ++k;
      if (k == 3)
        return Error::at_line(lines.number(),
                              fmt::format("expected 'input address:', 'output address:', "
                                          "'workspace address:' or a blank line, found {}",
                                          shown(line)));
      if (k < next_list)
        return Error::at_line(lines.number(),
                              fmt::format("'{}' after '{}'", kLists[k], kLists[next_list - 1]));
      MSDT_CHECK(task_buffers(line.substr(kLists[k].size()), lines.number(), *lists[k]));
      next_list = k + 1;
    }
    out.tasks.push_back(std::move(task));
  }
  return out;
}

// ---- file names ----

namespace {

bool upper_module_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool valid_module(std::string_view module) {
  return !module.empty() && std::all_of(module.begin(), module.end(), upper_module_char) &&
         std::any_of(module.begin(), module.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

// "<14 digits>" or "<14 digits>_<counter>".
bool read_timestamp(std::string_view field, RecorderName& out) {
  if (field.size() < 14 || !is_digits(field.substr(0, 14))) return false;
  std::string_view rest = field.substr(14);
  if (!rest.empty()) {
    if (rest[0] != '_') return false;
    auto counter = parse_unsigned<uint32_t>(rest.substr(1));
    if (!counter) return false;
    out.ir_counter = *counter;
  }
  out.timestamp = std::string(field.substr(0, 14));
  return true;
}

// The trailing numeric field of a name (".1" or "_1") as the graph id.
void split_graph_id(RecorderName& out, char separator) {
  out.base = out.name;
  size_t at = out.name.rfind(separator);
  if (at == std::string::npos || at == 0) return;
  auto id = parse_unsigned<uint32_t>(std::string_view(out.name).substr(at + 1));
  if (!id) return;
  out.graph_id = *id;
  out.base = out.name.substr(0, at);
}

}  // namespace

std::optional<RecorderName> parse_recorder_name(std::string_view file_name) {
  if (size_t slash = file_name.rfind('/'); slash != npos) file_name.remove_prefix(slash + 1);
  size_t dot = file_name.rfind('.');
  if (dot == npos || dot + 1 == file_name.size()) return std::nullopt;
  RecorderName out;
  out.extension = std::string(file_name.substr(dot));
  std::string_view stem = file_name.substr(0, dot);

  // 1.5 on: <MODULE>.<name>[.<suffix>].<timestamp>[_NNNN]
  if (size_t last = stem.rfind('.'); last != npos) {
    RecorderName dotted = out;
    std::string_view prefix = stem.substr(0, last);
    size_t first = prefix.find('.');
    if (read_timestamp(stem.substr(last + 1), dotted) && first != npos &&
        valid_module(prefix.substr(0, first)) && first + 1 < prefix.size()) {
      dotted.module = std::string(prefix.substr(0, first));
      dotted.name = std::string(prefix.substr(first + 1));
      split_graph_id(dotted, '.');
      return dotted;
    }
  }

  // 1.2-1.3: <MODULE>_<name>_<timestamp>, the module being the upper-case run before "_<lower>".
  std::string_view prefix, field;
  size_t last = stem.rfind('_');
  if (last == npos) return std::nullopt;
  if (stem.size() - last - 1 == 14) {
    prefix = stem.substr(0, last);
    field = stem.substr(last + 1);
  } else {  // a counter after the timestamp
    size_t before = last == 0 ? npos : stem.rfind('_', last - 1);
    if (before == npos) return std::nullopt;
    prefix = stem.substr(0, before);
    field = stem.substr(before + 1);
  }
  if (!read_timestamp(field, out)) return std::nullopt;
  size_t run = 0;
  while (run < prefix.size() && upper_module_char(prefix[run])) ++run;
  if (run < 2 || run >= prefix.size() || prefix[run - 1] != '_' || prefix[run] < 'a' ||
      prefix[run] > 'z')
    return std::nullopt;
  out.module = std::string(prefix.substr(0, run - 1));
  if (!valid_module(out.module)) return std::nullopt;
  out.name = std::string(prefix.substr(run));
  out.underscores = true;
  // "graph_exec_order.0" as the session names it, or a trailing "_0".
  split_graph_id(out, '.');
  if (!out.graph_id) split_graph_id(out, '_');
  return out;
}

std::string readable_time(std::string_view timestamp) {
  if (!is_digits(timestamp, 14)) return std::string(timestamp);
  return fmt::format("{}-{}-{} {}:{}:{}", timestamp.substr(0, 4), timestamp.substr(4, 2),
                     timestamp.substr(6, 2), timestamp.substr(8, 2), timestamp.substr(10, 2),
                     timestamp.substr(12, 2));
}

// ---- classification ----

namespace {

// Each kind's name in the text views and its key in JSON, in the order of the enum.
constexpr std::pair<std::string_view, std::string_view> kKindNames[] = {
    {"graph", "graph"},
    {"task info", "task_info"},
    {"execution order", "exec_order"},
    {"memory addresses", "memory"},
    {"stream assignment", "streams"},
    {"somas", "somas"},
    {"text", "text"},
    {"empty", "empty"},
};
static_assert(std::size(kKindNames) == static_cast<size_t>(Kind::Empty) + 1);

}  // namespace

std::string_view kind_name(Kind kind) { return kKindNames[static_cast<size_t>(kind)].first; }

std::string_view kind_key(Kind kind) { return kKindNames[static_cast<size_t>(kind)].second; }

Kind classify(std::string_view extension, std::string_view text, std::string* detail) {
  auto set_detail = [&](std::string_view d) {
    if (detail) *detail = std::string(d);
  };
  set_detail("");
  if (std::all_of(text.begin(), text.end(), [](char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
      }))
    return Kind::Empty;
  auto is = [&](std::string_view ext) { return equals_ignoring_case(extension, ext); };
  // The first non-blank line (trimmed) and the line after it.
  Lines lines(text);
  std::string_view first, second;
  while (lines.next(first) && blank(first)) {
  }
  first = trim_blanks(first);
  if (!lines.next(second)) second = {};

  if (is(".ir")) {
    if (first.starts_with("#IR entry") || first.starts_with("# IR entry")) {
      set_detail("1.x order");
      return Kind::Graph;
    }
    if (first.starts_with("# Total params")) {
      set_detail("RDR 2.x order");
      return Kind::Graph;
    }
    if (first.starts_with("op_name:")) return Kind::TaskInfo;
    std::string why;
    if (ir::looks_like_graph_text(text, why)) {
      set_detail("IR text");
      return Kind::Graph;
    }
    return Kind::Text;
  }
  if (is(".pb")) {
    set_detail("protobuf");
    return Kind::Graph;
  }
  if (is(".dat")) {
    set_detail(".dat");
    return Kind::Graph;
  }
  if (is(".txt")) {
    if (first == kExecOrderBanner) return Kind::ExecOrder;
    if (trim_blanks(second).starts_with("kernel_inputs ")) return Kind::MemoryList;
    if (first.starts_with("All Parameters:") ||
        (first.find("index:") != npos && first.find("size:") != npos))
      return Kind::Somas;
    return Kind::Text;
  }
  if (is(".json")) {
    size_t at = text.find_first_not_of(" \t\r\n\v\f");
    return at != npos && text[at] == '[' ? Kind::StreamAssignment : Kind::Text;
  }
  return Kind::Text;
}

}  // namespace msdt::rdr
