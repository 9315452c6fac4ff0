// `dump-parse` listing: one row per tensor of a dump tree, selected (dump/select.h) and written by
// the sink the options chose (table/sink.h: aligned text, TSV, CSV, JSON Lines) over a single walk,
// so every style shows the same rows (style §4.5).
//
// Row conventions (documented in the man page; the spelling of values is table/format.h's):
// * shape prints as `2x3` (JSON: an array); a 0-d tensor as `scalar` (JSON: []); an unknown shape
//   as absent;
// * an empty text field (no net, no io) is absent.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dump/dump_file.h"
#include "dump/select.h"
#include "dump/statistics.h"
#include "dump/tree.h"
#include "io/error.h"
#include "io/mapped_file.h"
#include "io/report.h"
#include "table/sink.h"
#include "tensor/stats.h"

namespace msdt::dump {

struct ListOptions {
  table::Format format = table::Format::Tsv;
  bool header = true;
  bool stats = false;
  Selection selection;
  // Workers reading files and computing statistics at once (-j); rows keep the walk's order.
  unsigned jobs = 1;
};

// One tensor as the sinks see it: plain values, independent of the file's bytes.
struct TensorRow {
  std::string file, format;
  std::optional<uint32_t> rank;
  std::string net;
  std::optional<uint32_t> graph;
  std::optional<uint64_t> iteration;
  std::string op_type, op_name;
  std::optional<uint64_t> task_id, stream_id, timestamp;
  std::string io;
  std::optional<uint32_t> slot;
  std::string device_format;
  std::optional<DType> dtype;
  // The dtype the file name gives (NumPy name; the label as written when it names no dtype),
  // empty when the name has none: 2.4+ stores bfloat16 as float32 under ".bfloat16.npy" names.
  std::string dtype_label;
  std::optional<std::vector<uint64_t>> shape;
  std::optional<uint64_t> bytes;
  std::optional<RowStats> stats;  // only with --stats
};

TensorRow make_row(const DumpDirectory& directory, const DumpFile& file, const DumpTensor& tensor);

// "2x3"; "scalar" for a 0-d tensor. The signed form for declared shapes with a dynamic axis
// ("-1x1x4x4").
std::string format_shape(std::span<const uint64_t> shape);
std::string format_shape(std::span<const int64_t> shape);

// The fields of a row (JSON keys in this order) and the table columns; one row as a record.
table::Schema row_schema(bool stats);
table::Record row_record(const TensorRow& row, bool stats);

// --- the listing walk ----------------------------------------------------------------------------

// Lists every tensor under `paths` ("-" = one file from standard input) into the sink chosen by
// `options`. Damaged files are errors in `diagnostics` and the walk goes on; files whose name
// matches no grammar and whose content is not recognised are warnings "unknown file: <why>".
// Returns an Error, before any output, only when an option value is invalid (a usage error).
Status list_tensors(std::span<const std::string> paths, const ListOptions& options,
                    std::ostream& out, Diagnostics& diagnostics);

}  // namespace msdt::dump
