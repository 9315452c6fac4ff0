// The graph model every graph reader fills and every writer reads (ir-to-dot, rdr-inspect,
// summary-cat's graph view): the graphs of one file, their parameters and nodes, each node's
// operator, inputs, attributes, types, scope and source lines, as MindSpore wrote them. Parsers
// keep MindSpore's own spellings (types, values, attribute text) so nothing is lost; writers decide
// what to show. See ../shared/spec/ir.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/error.h"

namespace msdt::ir {

// A parameter of the file: %para<number>_<name>.
struct Parameter {
  uint32_t number = 0;
  std::string name;      // "conv1.weight"
  std::string type;      // "<Tensor[Float32], (6, 1, 5, 5)>" as written
  std::string symbolic;  // 2.3+ " : [...]" symbolic shape, when present
  std::string kernel;    // backend "<Float32xDefaultFormat...>" part, when present
  std::optional<bool> is_weight;
  bool has_default = false;
  uint64_t line = 0;
  std::string id() const;  // "para1_x", as node inputs refer to it after '%'
};

// One input of a node.
struct Input {
  enum class Kind : uint8_t {
    Node,       // %k: a node of the same graph
    Parameter,  // %paraN_name (or %para_name)
    FreeNode,   // $(@graph:node): a node or parameter of another graph
    Graph,      // @graph: a graph as a value (calls through Partial, Switch, J, ...)
    Value,      // a constant: Tensor(...), I64(0), "str", (1, 2), U, IO, None, ...
  };
  Kind kind = Kind::Value;
  std::string text;              // as written
  std::optional<uint32_t> node;  // Node
  std::string graph;             // FreeNode, Graph
  std::string target;            // FreeNode: the node or parameter name in `graph`; Parameter: id
  bool control = false;          // a control edge (graph protobuf CONTROL_EDGE), not data
};

struct Node {
  std::optional<uint32_t> number;  // %k; absent for the Return line
  std::string name;                // debug name: "[CNode]12", "CNode_12", "loss"
  // Operator as written: "Add", "PrimFunc_MatMul", "S-Prim-Partial", "call @g", "%5",
  // "%5[@FuncUnion(@a, @b)]", "$(@g:node)".
  std::string op;
  enum class OpKind : uint8_t { Primitive, Call, Local, FreeNode } op_kind = OpKind::Primitive;
  std::string callee;               // Call: the graph called
  std::optional<uint32_t> op_node;  // Local: the node called
  std::vector<Input> inputs;
  // Attribute blocks after the operands, in order: ("primitive_attrs", "k: v, ..."),
  // ("cnode_attrs", ...), ("", "instance name: 3") for unnamed braces.
  std::vector<std::pair<std::string, std::string>> attrs;
  // The inferred type line ": (in, ...) -> (out)": inputs and output as written.
  std::vector<std::string> input_types;
  std::string output_type;
  std::vector<std::string> kernel_lines;  // device and object-type lines that follow it
  std::string scope;                      // "Default/network/..." (from Scope or fullname lines)
  std::string fullname;                   // "# Fullname with scope: (...)"
  std::vector<std::string> source;        // "# In file ..." lines, without the prefix
  std::vector<std::string> comments;      // other "# ..." continuation lines
  bool is_return = false;
  // The depth D of a `#------------------------> D` line right before the node: in
  // analyze_fail files the evaluation stack (the last marker of the file is the node whose
  // inference failed, spec §13); in 2.6 graphs a topological-sort cycle marker.
  std::optional<uint32_t> marker;
  uint64_t line = 0;
};

struct Graph {
  std::string name;                 // without '@'
  std::string parent;               // "parent: [subgraph @p]", empty when none
  std::vector<std::string> params;  // "%para1_x" ... as written in the header
  std::vector<std::pair<std::string, std::string>> attrs;  // "subgraph attr:" lines
  std::string location;                                    // "# In file ..." before the graph (2.x)
  // Named constants the nodes refer to (graph protobuf const_vals: "cst12" -> "I64(3)").
  std::vector<std::pair<std::string, std::string>> constants;
  std::vector<Node> nodes;
  // "subgraph instance: <name> : <address>": analyze_fail.ir repeats a graph's name once per
  // instance, and each instance is a graph of its own (spec §13.3).
  std::string instance;
  uint64_t line = 0;
};

// One frame of "- The Traceback of Net Construct Code:" (spec §13.3): `# 0 In file p:12~14, 4~9`
// and the source lines after it. Frame 0 is the outermost call, the last one the innermost.
struct TracebackFrame {
  uint32_t index = 0;
  std::string file;     // as written (POSIX or Windows, possibly non-ASCII)
  uint64_t line = 0;    // first line number, 0 when it could not be read
  std::string where;    // the rest after the path: "12~14, 4~9"
  std::vector<std::string> code;  // the source line(s) and the caret line, trimmed on the right
  uint64_t file_line = 0;         // line of the `# N In file` line in the analyze_fail file
};

// What an analyze_fail file says about the compile failure beyond its graphs (spec §13). The
// failing node itself is the node after the file's last marker (Node::marker).
struct Failure {
  std::string exception;               // "- Caught exception:" text, lines joined by '\n'
  std::vector<std::string> cxx_stack;  // "- C++ Call Stack:" lines
  std::vector<TracebackFrame> traceback;
  std::optional<uint64_t> graphs_in_stack;  // "# num of function graphs in stack: N"
  uint64_t line = 0;                        // first line of the report
};

// What kind of writer produced the file (spec §2).
enum class Style : uint8_t { A, B, C, Rdr, SortMode, Protobuf, Dat };
std::string_view style_name(Style style);  // "A (1.x)", "B (2.0-2.2)", ...

struct Module {
  Style style = Style::C;
  std::string entry;  // entry graph name, without '@'
  std::optional<uint64_t> declared_graphs, declared_params, declared_nodes, declared_cnodes;
  std::vector<std::pair<std::string, std::string>> attrs;  // entry graph attributes
  std::vector<Parameter> params;
  std::vector<Graph> graphs;
  // Problems the rest of the graph survives (a reference to an undefined node, a count that
  // disagrees), each with its line.
  std::vector<Error> warnings;
  // Present for analyze_fail files (the 2.2+ report, the 1.8-2.1 banner, the 1.x
  // `# num of function graphs in stack` trailer).
  std::optional<Failure> failure;

  const Graph* graph(std::string_view name) const;
};

}  // namespace msdt::ir
