// `dump-parse --summary`, the inventory of a dump tree (not to be confused with MindSpore summary
// files): tensors and bytes per rank and iteration (bytes are the payload bytes of
// the listing's `bytes` column, so the two agree), then checks of the tree:
// * iterations listed in rank_N/execution_order/ms_global_execution_order_graph_G.csv that have no
//   directory for that rank and graph on disk (dump spec §6.2);
// * unknown files (no grammar matches the name and the content is not npy or DumpData);
// * empty files.
// The checks are findings, printed with their counts; they do not change the exit status. Only a
// file that cannot be read or is damaged is an error (exit 1).
#pragma once

#include <iosfwd>
#include <span>
#include <string>

#include "io/report.h"

namespace msdt::dump {

struct InventoryOptions {
  bool json = false;  // one JSON object instead of the text table
};

void take_inventory(std::span<const std::string> paths, const InventoryOptions& options,
                    std::ostream& out, Diagnostics& diagnostics);

}  // namespace msdt::dump
