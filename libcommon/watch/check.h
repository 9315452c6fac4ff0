// The offline watchpoint check over dump trees (watchpoints spec §3): which tensors hit which
// watchpoints in which iterations. Every tensor file is read once per iteration whatever the
// number of watchpoints; the statistics any of them needs come from one pass; files are read on
// `jobs` workers and results come back in a stable order:
//   iteration, rank, graph, net, then `order` (the node's place in the graph's execution order
//   when rank_R/execution_order/ms_execution_order_graph_G.csv has it, else after those by file
//   name), then inputs before outputs, slot, and watchpoint id.
// `order` depends only on the directory's contents, never on the selection, so JSON Lines of
// runs over parts of a dump (by --rank, --iteration, --graph or watchpoints) sort into the
// output of one run over all of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dump/select.h"
#include "io/report.h"
#include "watch/evaluate.h"
#include "watch/watchpoint.h"

namespace msdt::watch {

struct CheckOptions {
  std::vector<std::string> roots;
  std::vector<Watchpoint> watchpoints;
  std::optional<dump::IdList> iterations, ranks, graphs;
  unsigned jobs = 1;
  bool all_records = false;   // also the records that neither hit nor errored (--all)
  bool every_tensor = false;  // statistics of every tensor, watched or not (--summary alone)
};

// Iteration of a file outside any known layout (a lone file, standard input): absent in records.
inline constexpr uint64_t kUnknownIteration = UINT64_MAX;

// A tensor that was checked: where it is and what the statistics said (for --summary).
struct CheckedTensor {
  std::optional<uint64_t> iteration;
  std::optional<uint32_t> rank, graph;
  std::string net, node, op_type, io;
  std::optional<uint32_t> slot;
  std::string file;    // as the user sees it
  std::string source;  // "tensor", "statistic.csv"
  uint64_t count = 0;
  std::optional<uint64_t> nan, inf;
  std::optional<double> min, max;
};

// One (watchpoint, tensor, iteration) verdict.
struct Record {
  CheckedTensor tensor;
  uint64_t order = 0;
  const Watchpoint* watchpoint = nullptr;
  Verdict verdict;
};

class CheckListener {
 public:
  virtual ~CheckListener() = default;
  // In output order. Returning false stops the check (--max-hits).
  virtual bool record(const Record& record) = 0;
  // Every checked tensor, in the same order, before its records.
  virtual void tensor(const CheckedTensor& /*tensor*/) {}
  // After each iteration directory: how many tensors each watchpoint was evaluated on.
  virtual void evaluated(const Watchpoint& /*wp*/, std::optional<uint64_t> /*iteration*/,
                         uint64_t /*tensors*/) {}
};

// Problems with inputs (unreadable or damaged files, a bad history file) go to `diagnostics` as
// errors, one line each, and the check goes on.
void run_check(const CheckOptions& options, CheckListener& listener, Diagnostics& diagnostics);

}  // namespace msdt::watch
