// The `.ir` text dumps of MindSpore 1.1 to 2.6 (spec ir.md §2-§7): every header style (A, B, C,
// RDR and sort-mode order), parameters, subgraphs, node head lines with their operator, operands
// and attribute blocks (matched by bracket counting, never by regular expression), and the
// continuation lines (types, device formats, scope, source lines). Line-oriented and tolerant:
// what the model has no place for is kept as comments, a line it cannot read is an error with its
// line and column.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/error.h"
#include "ir/graph.h"

namespace msdt::ir {

// Whether the text is a graph dump; when it is not, `why` says what it looks like instead
// ("a memory-planner dump (somas)", "a task or stream dump", "not MindSpore IR text").
bool looks_like_graph_text(std::string_view text, std::string& why);

Expected<Module> parse_ir_text(std::string_view text);

// Warnings of the line-based graph parsers (.ir text and .dat): at most kMaxWarnings per file.
inline constexpr size_t kMaxWarnings = 100;
void add_warning(Module& module, uint64_t line, std::string message);

// Said once per file (`seen` remembers it): names and paths keep their bytes, but a reader of the
// output should know that a line holds invalid UTF-8.
void check_utf8_once(Module& module, std::string_view line, uint64_t number, bool& seen);

// The evaluation-stack markers of analyze_fail files ("#------------------------> 3", spec §13;
// cycle markers in 2.6 graphs, §3.1), held from their line until the next node takes them. A
// marker whose depth is not a number, or that no node follows, is a warning in the module.
class MarkerLines {
 public:
  // Whether `t` (a trimmed line) is a marker line; if so it is read.
  bool read(std::string_view t, uint64_t line, Module& module);
  // The depth for the node made now, given away.
  std::optional<uint32_t> take() { return std::exchange(depth_, std::nullopt); }
  // The end of `what` ("graph @g", "subgraph @g"): a marker no node took is a warning.
  void end_graph(std::string_view what, Module& module);
  void clear() { depth_.reset(); }

 private:
  std::optional<uint32_t> depth_;
  uint64_t line_ = 0;
};

// Splits at top-level commas: brackets () [] {} <> nest and "..." strings are kept whole; blanks
// around items are trimmed. "a, (b, c), <T[x], (1, 2)>" -> {"a", "(b, c)", "<T[x], (1, 2)>"}.
std::vector<std::string_view> split_top_level(std::string_view text);

// The index just past the bracket that closes the one at `open`, or npos when it is not closed.
size_t matching_bracket(std::string_view text, size_t open);

}  // namespace msdt::ir
