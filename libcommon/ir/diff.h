// Two graph files of one network compared node by node (`ir-to-dot --diff A B`): typically two
// passes of the same compile (`08_pipeline_split` vs `09_optimize`). Graphs are paired by name,
// then by position; nodes by fullname with scope (when unique), then by structure: the same
// operator over inputs already paired, then the k-th node of an op type with the k-th. A paired
// node whose operator, inputs or output type differ is changed; B's unpaired nodes were added by
// the pass, A's were removed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "ir/draw.h"
#include "ir/graph.h"

namespace msdt::ir {

struct DiffResult {
  DiffMarks marks;  // on B
  uint64_t added = 0, removed = 0, changed = 0, same = 0;
  // Op types whose node count differs: {op, count in A, count in B}, by op name.
  std::vector<std::tuple<std::string, uint64_t, uint64_t>> op_changes;
};

DiffResult diff_modules(const Module& a, const Module& b);

std::string diff_stats_text(const DiffResult& diff);
nlohmann::ordered_json diff_stats_json(const DiffResult& diff);

}  // namespace msdt::ir
