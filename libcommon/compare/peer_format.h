// The peers' result files as dump-compare writes them for users whose scripts read them (compare
// spec §8.1, §8.2, §8.6, §12.5): msaccucmp's `result_<time>.csv` and msprobe's MindSpore
// static-graph CSV with "Accuracy Reached or Not". Pure functions from one row's identity and its
// PairMetrics to one CSV line; finding the rows, the verdict and writing the file (atomically,
// io/output_file.h) are the caller's.
//
// Lines are returned without a line end: the caller ends each with LF, as every CSV of msdt does
// (table/format.h). Fields are quoted as RFC 4180 does (table::escape_csv), as Python's csv.writer
// and pandas do with their default minimal quoting: a shape "[2,3]" is written "\"[2,3]\"".
#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare/metrics.h"
#include "tensor/dtype.h"

namespace msdt::compare {

// --- msaccucmp result CSV (§8.1) ----------------------------------------------------------------

// The columns that depend on options; the metric columns follow `algorithms` in the user's order.
struct MsaccucmpColumns {
  Algorithms algorithms = Algorithms::all();
  bool op_sequence = false;    // `OpSequence` after Index (msaccucmp -r / -s)
  bool my_address = true;      // msaccucmp drops a side's Address when that side is .npy files
  bool golden_address = true;  //
  bool overflow = false;       // `OverFlow` before the metrics (-overflow_detection, §8.2)
};

// The OverFlow cell (§8.2): YES / NO for float16 tensors, NaN ("not checked") otherwise.
enum class Overflow : uint8_t { NotChecked, Yes, No };
// YES when a float16 tensor has max |v| >= 65504 (±Inf included; NaN alone does not count), NO
// for another float16 tensor, NotChecked for every other dtype. From the side's statistics.
Overflow overflow_of(DType dtype, const TensorStats& stats);

// One row's identity. A side that is absent (an unmatched tensor) has an empty name: its name
// cell is `*`, its DataType and Address cells `NaN`, and every metric is `NaN`.
struct MsaccucmpRowInfo {
  uint64_t index = 0;                   // Index: msaccucmp's fusion-op id; ours is the row number
  std::optional<uint64_t> op_sequence;  // OpSequence, when the column is on; NaN if absent
  std::string op_type;                  // OpType; NaN if empty
  std::string my_name, golden_name;     // NPUDump, GroundTruth (op names); empty: side absent
  std::string my_dtype, golden_dtype;   // DataType: NumPy names ("float16", "bool")
  std::string my_address, golden_address;      // Address; empty is NaN (always NaN for .npy dumps)
  std::string tensor_index;                    // TensorIndex: "op:output:0"
  std::optional<std::vector<uint64_t>> shape;  // Shape, "[d0,d1]"; NaN if absent
  Overflow overflow = Overflow::NotChecked;
  // For CompareFailReason messages that name the file (msaccucmp names the dump files).
  std::string my_file, golden_file;
};

// "Index,OpType,NPUDump,DataType,Address,GroundTruth,DataType,Address,TensorIndex,Shape,
// CosineSimilarity,…,CompareFailReason" with the optional columns as `columns` says.
std::string msaccucmp_header(const MsaccucmpColumns& columns);

// One data row. `metrics` is null when a side is absent (every metric cell NaN). Cells:
// * a metric value '{:.6f}' ("0.999998", "inf", "nan": a NaN result under the propagate policy
//   is printed as Python prints it, §4 item 5); a metric without a value `NaN` with its message;
// * CosineSimilarity: `1.000000` for a scalar ("This tensor is scalar."), the string `1.0` when
//   both norms are within ε (both sides all zero, or empty), `NaN` with "Cannot compare by Cosine
//   Similarity. All the data is zero in <file>." when one is;
// * StandardDeviation: "(%.3f;%.3f),(%.3f;%.3f)" of mean and std of my side, then golden, each
//   |v| < 0.001 shown as 0.000;
// * both sides bool: every metric but CosineSimilarity and RelativeEuclideanDistance `NaN` with
//   "Algorithm <Name> does not support Boolean types.";
// * element counts differ: every metric `NaN`, with msaccucmp's size message;
// * empty tensors: CosineSimilarity `1.0` and RelativeEuclideanDistance `0.000000` as NumPy gives
//   them (§7), the rest `NaN`; another reason shared by the pair (not real, positions differ, all
//   masked): every metric `NaN`; either reason named once (reason_name) in CompareFailReason;
// * CompareFailReason: the messages in column order, joined with ','.
std::string msaccucmp_row(const MsaccucmpRowInfo& row, const PairMetrics* metrics,
                          const MsaccucmpColumns& columns);

// A metric cell alone, as msaccucmp_row spells it (for the text of other views and tests).
std::string msaccucmp_number(double value);  // '{:.6f}'
// "(%.3f;%.3f),(%.3f;%.3f)"; each |v| < 0.001 as 0.000.
std::string msaccucmp_standard_deviation(double mean_my, double std_my, double mean_golden,
                                         double std_golden);

// "result_YYYYmmddHHMMSS.csv" from the broken-down time (msaccucmp uses local time).
std::string msaccucmp_result_file_name(const std::tm& time);

// --- msprobe MindSpore static-graph CSV (§8.6) --------------------------------------------------

enum class MsprobeMode : uint8_t {
  Npy,         // tensors read: MS_GRAPH_BASE + MS_GRAPH_NPY (the six metrics)
  Statistics,  // statistic.csv rows: MS_GRAPH_BASE + MS_GRAPH_STATISTIC + the two CSV files
};

// One row's identity. An absent side (outer join, §3.4) has an empty name and empty cells.
struct MsprobeRowInfo {
  std::string npu_name, bench_name;    // msprobe writes the npy path (npy mode) or the
                                       // "OpName.TaskId.IO.Slot" key (statistics mode)
  std::string npu_dtype, bench_dtype;  // NumPy names ("float32") or statistic.csv's spelling
  // Shapes as Python prints a tuple, with () as []: "[2, 3]", "[5,]", "[]".
  std::optional<std::vector<uint64_t>> npu_shape, bench_shape;
  std::string npu_csv_file, bench_csv_file;  // statistics mode: the statistic.csv of each side
};

// The header: MS_GRAPH_BASE ("NPU Name" … "Bench l2norm", "Accuracy Reached or Not",
// "Err_message"), then the mode's columns, in msprobe's dict order.
std::string msprobe_graph_header(MsprobeMode mode);

// One data row. `accuracy` is the "Accuracy Reached or Not" cell as given (compare/verdict.h
// spells Yes / No / Unmatched / None; statistics mode §9.2); `metrics` is null when a side is
// absent. Cells:
// * numbers as msprobe writes them through pandas: the value of float('{:.12f}') in Python's
//   shortest form ("0.5", "1.0", "1e-12"); Cosine rounded to 6 decimals when > 0.9999 (§6.4);
//   the per-side statistics (TensorStats: min/max skip NaN, mean/l2norm finite elements only,
//   where msprobe's np.max/np.mean propagate) in the shortest form of the double (float32 in
//   statistics mode, as msprobe's np.float32); in npy mode ±Inf is " inf" / " -inf" and NaN an
//   empty cell (§8.6, pandas' na_rep);
// * a metric without a value: the error-row values of §6.2: `shape unmatched` for a shape or size
//   mismatch, `N/A` for NaN results (positions of NaN/Inf differ, all zero on one side,
//   non-finite), `unsupported` otherwise (empty, not real, scalar, length 1); with a side
//   absent the six cells are empty and Err_message is "Dump file is not ndarray.", as
//   ms_graph_compare leaves them (npy_data_check on a missing file);
// * statistics mode: Max diff … L2norm diff the differences, MaxRelativeErr … NormRelativeErr
//   "<percent>%", `N/A` when the golden statistic is 0, `Nan` when NaN; a cell that is inf, -inf
//   or nan gets a trailing tab (§6.5);
// * Err_message: msprobe's message for the first reason, empty otherwise.
std::string msprobe_graph_row(const MsprobeRowInfo& row, const PairMetrics* metrics,
                              std::string_view accuracy, MsprobeMode mode);

// msprobe's number: the value of float('{:.12f}'.format(v)) as Python prints it.
std::string msprobe_number(double value);
// msprobe's cosine: msprobe_number, rounded to 6 decimals when above 0.9999.
std::string msprobe_cosine(double value);
// A shape as msprobe's CSV shows it: Python's tuple text with () as [].
std::string msprobe_shape(const std::vector<uint64_t>& shape);

}  // namespace msdt::compare
