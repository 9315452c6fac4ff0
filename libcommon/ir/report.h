// What ir-to-dot says about a graph file besides drawing it: the graph model as JSON (--json),
// node counts by op type, graph and scope (--stats), and the one-screen account of an
// analyze_fail file (--why, spec ir.md §13).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "io/error.h"
#include "ir/graph.h"

namespace msdt::ir {

// Where text goes as it is made (a file, standard output); an error stops the writing.
using TextWriter = std::function<Status(std::string_view)>;

// The whole model as one JSON document (--json): entry, style, header counts, parameters, graphs
// with their nodes (operator, inputs, attributes, types, scope, source lines, markers), warnings
// and the failure report. Written to `write` in pieces of about 1 MB as it is made: what is held
// is one piece and one value, whatever the number of nodes or operands. Returns what `write`
// failed with.
Status write_module_json(const Module& module, const TextWriter& write);
// The same document whole (ends with a newline).
std::string module_json_text(const Module& module);

struct Counts {
  uint64_t graphs = 0, parameters = 0, nodes = 0;
  std::vector<std::pair<std::string, uint64_t>> ops;     // by op type, most first, then by name
  std::vector<std::pair<std::string, uint64_t>> graph;   // nodes per graph, in file order
  std::vector<std::pair<std::string, uint64_t>> scopes;  // nodes per scope prefix, by name
};
// Scopes are counted at every prefix up to `scope_depth` components.
Counts count_nodes(const Module& module, uint32_t scope_depth);
std::string counts_text(const Counts& counts);
nlohmann::ordered_json counts_json(const Counts& counts);

// The failure of an analyze_fail file in one screen: the exception, the traceback with the
// innermost frame marked, the failing node with its operator, input types and source line, and
// the evaluation stack by depth next to the traceback frames. Error when the file holds no
// failure (not an analyze_fail file).
Expected<std::string> why_text(const Module& module);
nlohmann::ordered_json why_json(const Module& module);

}  // namespace msdt::ir
