// The graph model drawn as Graphviz DOT, made to be read (spec ir.md §11.3, what MindSpore's own
// .dot lacks): one cluster per subgraph nested by `parent:`, call edges between clusters, node ids
// derived from the IR (graph name + %k, parameter names) so two drawings of one graph diff
// cleanly, operators coloured by op type from a fixed palette, small constants folded into their
// consumer's label, dtype and shape on edges, source lines as tooltips; and the views that make a
// large graph drawable: hide the side-effect plumbing, collapse deep scopes, keep the
// neighbourhood of a focus, refuse more than --max-nodes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/error.h"
#include "io/regex.h"
#include "ir/graph.h"

namespace msdt::ir {

struct DrawOptions {
  bool types = true;   // dtype and shape on edges
  bool monads = true;  // U/IO monads, UpdateState, Load's monad input, Depend's second input
  std::optional<uint32_t> scope_depth;  // collapse nodes whose scope is deeper than this
  const Regex* focus = nullptr;         // keep matching nodes and `radius` hops around them
  uint32_t radius = 2;
  uint64_t max_nodes = 20000;  // 0: no limit
  std::string rankdir = "TB";
  // analyze_fail files: draw every graph rather than the neighbourhood of the evaluation stack.
  bool whole = false;
};

// What --diff marks on the graph drawn (B) against the one before it (A).
struct DiffMarks {
  enum class Status : uint8_t { Same, Added, Changed };
  std::vector<std::vector<Status>> status;  // [graph][node] of B
  std::vector<std::vector<std::string>> why_changed;
  struct Removed {
    size_t graph = 0;  // the graph of B it is drawn in (its A graph's counterpart)
    const Node* node = nullptr;
  };
  std::vector<Removed> removed;  // nodes of A with no counterpart in B
};

// The node of an analyze_fail file whose evaluation failed: the one after the file's last
// `#------------------------> D` marker (spec §13). {graph index, node index}.
std::optional<std::pair<size_t, size_t>> failing_node(const Module& module);

// The DOT text of `module`. Fails only when more than options.max_nodes nodes would be drawn,
// with a message that says how many and what to use instead.
Expected<std::string> draw_dot(const Module& module, const DrawOptions& options,
                               const DiffMarks* diff = nullptr);

// Takes the next piece of DOT text; a failure stops the drawing and is returned by draw_dot.
using DotWriter = std::function<Status(std::string_view)>;

// The same text handed to `write` in pieces of about a megabyte as it is made, so that a large
// drawing is never held whole. Over options.max_nodes nothing is written.
Status draw_dot(const Module& module, const DrawOptions& options, const DiffMarks* diff,
                const DotWriter& write);

// The DOT id spelling: "g:%3" -> "\"g:%3\"" with quotes and backslashes escaped and bytes that are
// not UTF-8 spelled \xNN (Graphviz refuses invalid UTF-8).
std::string dot_quote(std::string_view text);

// The fill colour of an op type: a fixed palette indexed by a hash of the name, so an op type has
// the same colour in every drawing.
std::string_view op_colour(std::string_view op);

}  // namespace msdt::ir
