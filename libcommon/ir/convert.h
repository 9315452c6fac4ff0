// What ir-to-dot does with its inputs, so that the tool's main only wires options: one graph file
// (or standard input) to one output, two files compared (--diff), an analyze_fail file explained
// (--why), and directories converted file by file into an output directory in parallel, each
// output written whole or not at all, non-graph files reported and skipped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/report.h"
#include "ir/draw.h"

namespace msdt::ir {

enum class Output : uint8_t { Dot, Json, Stats, StatsJson, Why, WhyJson };

struct ConvertOptions {
  DrawOptions draw;
  Output output = Output::Dot;
  uint32_t stats_scope_depth = 3;
  unsigned jobs = 1;
  // A file, "-" or empty for standard output (one input); a directory (directory inputs or
  // several inputs).
  std::string destination;
  // False in a tool that exits right after: the graph read is left to the OS rather than freed
  // node by node (io/bury.h).
  bool free_model = true;
};

// Exit status: kExitOk; kExitBadInput when an input was not a graph, was damaged, or was over
// --max-nodes; kExitOutput when an output could not be written. Problems go to `diagnostics`.
int convert_inputs(const std::vector<std::string>& inputs, const ConvertOptions& options,
                   Diagnostics& diagnostics);

// `--diff A B`: B drawn with the changes marked (Output::Dot) or the op-count changes
// (Output::Stats / StatsJson).
int diff_inputs(const std::string& before, const std::string& after, const ConvertOptions& options,
                Diagnostics& diagnostics);

// The file name of the output for an input: "graphs/18_execute_0161.ir" -> "18_execute_0161.dot".
std::string output_name(std::string_view input_name, Output output);

}  // namespace msdt::ir
