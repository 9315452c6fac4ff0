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
  uint64_t line = 0;
};

// What kind of writer produced the file (spec §2).
enum class Style : uint8_t { A, B, C, Rdr, SortMode, Protobuf };
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

  const Graph* graph(std::string_view name) const;
};

}  // namespace msdt::ir
