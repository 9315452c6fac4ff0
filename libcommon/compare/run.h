// The comparison of two dumps (compare spec §12): the rows of a Pairing read, compared and judged
// on a pool of workers, and handed to a listener in the pairing's order (pairing.h), whatever the
// number of workers. Each tensor of a pair is read once: its file is mapped (or read whole when
// small), its tensor found among the file's (pairing.h is_referenced), a device-format tensor of
// a DumpData container rearranged into its host layout and original shape (dump spec §8, as
// msaccucmp does, spec §3.2), and the pair's metrics taken in one pass (metrics.h). Memory is
// bounded by the pairs in flight: at most `window` rows are read ahead of the one being handed on.
//
// A statistic.csv row on either side makes a statistics-only row (spec §6.5, §12.1): the side's
// statistics are the row's, or those of the other side's tensor (tensor/stats.h); the pairwise
// metrics are absent with Reason::StatisticsOnly, and the verdict comes from the statistic
// bounds and msprobe's magnitude warning (§9.2).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compare/metrics.h"
#include "compare/pairing.h"
#include "compare/verdict.h"
#include "dump/select.h"
#include "io/report.h"

namespace msdt::compare {

struct CompareOptions {
  MetricOptions metrics;
  Preset preset = Preset::Default;
  // --threshold settings, applied in order over the preset's thresholds of each row (the dtype
  // preset depends on the row's golden dtype).
  std::vector<ThresholdSetting> thresholds;
  unsigned jobs = 1;
  size_t window = 0;  // rows read ahead of the one handed on; 0: 32 per worker
};

// What was compared of one side of a row.
struct ComparedSide {
  std::optional<DType> dtype;
  std::vector<uint64_t> shape;  // as compared: the host shape of a device-format tensor
  bool shape_known = false;
  std::string format;               // the stored device format when it was rearranged, else empty
  std::string source;               // "tensor", "statistic.csv"
  std::string file;                 // display path of the file
  std::optional<uint64_t> address;  // DumpData's data address, for msaccucmp's Address column
};

struct ComparedRow {
  size_t index = 0;  // into Pairing::rows
  const PairRow* pair = nullptr;
  ComparedSide mine, golden;           // meaningful for the sides the pair has
  std::optional<PairMetrics> metrics;  // when both sides were read
  RowVerdict verdict;
  std::optional<std::string> problem;  // a side could not be read: why (also in diagnostics)
};

// Thresholds of one row: the preset for the golden dtype, then the settings, then (for a
// statistics-only row) msprobe's magnitude warning.
Thresholds row_thresholds(const CompareOptions& options, std::optional<DType> golden_dtype,
                          bool statistics_only);

class CompareListener {
 public:
  virtual ~CompareListener() = default;
  // Every row in Pairing::rows order; `row.pair` points into the pairing.
  virtual void row(const ComparedRow& row) = 0;
};

// Hands every row of `pairing` whose index `wanted` accepts (all when empty) to `listener`, in
// order. Files that cannot be read or hold no such tensor go to `diagnostics` as errors (the row
// is skipped with the reason); the rest is still compared.
void run_compare(const Pairing& pairing, const CompareOptions& options,
                 const std::vector<size_t>& wanted, CompareListener& listener,
                 Diagnostics& diagnostics);

// The pairing's problems as diagnostics: damage as errors, unknown files as warnings, each named
// by side ("my dump: ...", "golden dump: ...").
void report_problems(const Pairing& pairing, Diagnostics& diagnostics);

// The pairs and unmatched tensors among `rows` (all rows when empty); the superseded and
// one-sided directory counts are the whole pairing's.
PairCounts count_rows(const Pairing& pairing, const std::vector<size_t>& rows);

// The rows of `pairing` in the ranks of `ranks` (rows of directories without a rank are kept).
std::vector<size_t> rows_in_ranks(const Pairing& pairing, const dump::IdList& ranks);

// One side's tensor of a row, read and in its host layout: for --detail and tests.
struct LoadedTensor {
  ComparedSide side;
  std::optional<TensorView> view;         // absent for a statistic.csv row
  std::optional<TensorStats> statistics;  // a statistic.csv row's statistics
  std::shared_ptr<const void> keep;       // what `view` points into
};
// Load::Header stops at what a listing needs (dtype, shape, format, address): the file is mapped,
// not read whole, and a device-format tensor is not rearranged (the view is absent).
enum class Load : uint8_t { Elements, Header };
Expected<LoadedTensor> load_tensor(const PairedSide& side, const TensorRef& ref,
                                   Load load = Load::Elements);

}  // namespace msdt::compare
