// Statistics of one dump tensor as the outputs show them: computed from the elements
// (tensor/stats.h), or read from a statistic.csv row, which has only the columns the user
// configured (dump spec §6.1), hence every field optional.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dump/side_files.h"
#include "table/sink.h"
#include "tensor/stats.h"

namespace msdt::dump {

// Statistics of one row, from compute_stats or from a statistic.csv row (which has only the
// columns the user configured, hence every field optional).
struct RowStats {
  std::string source;  // "computed" or "statistic.csv"
  std::optional<uint64_t> count;
  std::optional<double> min, max, mean, std, abs_mean, l2norm;
  // Integer tensors: min and max exactly (int64/uint64 beyond 2^53 do not survive a double);
  // outputs print these instead of min/max when present.
  std::optional<ExactInteger> exact_min, exact_max;
  std::optional<uint64_t> nan, pos_inf, neg_inf, zero, negative, positive;
};
RowStats stats_from_tensor(const TensorStats& stats);
RowStats stats_from_statistic_row(const StatisticRow& row);

// The statistics fields of every listing that shows them (dump-parse --stats, ckpt-inspect
// --stats): stats_source, count, min, max, mean, std, abs_mean, l2norm, nan, pos_inf, neg_inf,
// zero, negative, positive; and their cells for one row (all absent but the source when `stats`
// is null). Integer extremes are printed exactly.
const std::vector<std::string>& stat_fields();
void append_stat_cells(table::Record& record, const RowStats* stats);

}  // namespace msdt::dump
