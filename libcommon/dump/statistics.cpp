#include "dump/statistics.h"

namespace msdt::dump {

RowStats stats_from_tensor(const TensorStats& stats) {
  RowStats row;
  row.source = "computed";
  row.count = stats.count;
  row.min = stats.min;
  row.max = stats.max;
  row.exact_min = stats.exact_min;
  row.exact_max = stats.exact_max;
  row.mean = stats.mean;
  row.std = stats.std;
  row.abs_mean = stats.abs_mean;
  row.l2norm = stats.l2norm;
  row.nan = stats.nan;
  row.pos_inf = stats.pos_inf;
  row.neg_inf = stats.neg_inf;
  row.zero = stats.zero;
  row.negative = stats.negative;
  row.positive = stats.positive;
  return row;
}

RowStats stats_from_statistic_row(const StatisticRow& row) {
  RowStats stats;
  stats.source = "statistic.csv";
  stats.count = row.count;
  stats.min = row.min;
  stats.max = row.max;
  stats.mean = row.avg;
  stats.l2norm = row.l2norm;
  stats.nan = row.nan_count;
  stats.pos_inf = row.positive_inf_count;
  stats.neg_inf = row.negative_inf_count;
  stats.zero = row.zero_count;
  // MindSpore's "Negative/Positive Zero Count" count the elements below and above zero
  // (TensorSummary in debug/tensor_summary.cc), despite the name.
  stats.negative = row.negative_zero_count;
  stats.positive = row.positive_zero_count;
  return stats;
}

}  // namespace msdt::dump
