// Any MindSpore graph file, recognised by content rather than by name: the `.ir` text of every
// version (analyze_fail.ir included), the 1.x `.dat` text (analyze_fail.dat included), and the
// graph protobuf (`ms_output_*.pb`, the `-graph.meta` ModelProto) and MindIR models of both
// generations (ir/mindir_graph.h). Files that are not graphs say what they look like instead.
#pragma once

#include <string>
#include <string_view>

#include "io/byte_reader.h"
#include "io/error.h"
#include "ir/graph.h"

namespace msdt::ir {

struct Loaded {
  // Set when the bytes are not a graph file at all: "looks like a memory-planner dump (somas)".
  // `module` is then an error saying the same.
  std::string not_a_graph;
  Expected<Module> module = Error("");
};

Loaded load_graph(Bytes data);

// After load_graph failed on `data`: when the bytes are a binary graph (a graph protobuf or a
// MindIR) damaged by a line-ending conversion (io/crlf.h), the error says so and `not_a_graph`
// is cleared (a walk reports the file instead of skipping it). `path`: the file as shown.
void explain_line_endings(Loaded& loaded, Bytes data, std::string_view path);

}  // namespace msdt::ir
