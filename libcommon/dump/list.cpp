#include "dump/list.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "dump/file_roles.h"
#include "dump/file_workers.h"
#include "table/format.h"
#include "tensor/layout.h"

namespace msdt::dump {

// --- rows ----------------------------------------------------------------------------------------

TensorRow make_row(const DumpDirectory& directory, const DumpFile& file, const DumpTensor& tensor) {
  TensorRow row;
  row.file = file.display;
  row.format = tensor.format;
  row.rank = directory.where.rank;
  row.net = directory.where.net;
  row.graph = directory.where.graph;
  row.iteration = directory.where.iteration;
  row.op_type = tensor.op_type;
  row.op_name = tensor.op_name;
  row.task_id = tensor.task_id;
  row.stream_id = tensor.stream_id;
  row.timestamp = tensor.timestamp;
  row.io = tensor.io;
  row.slot = tensor.slot;
  row.device_format = tensor.device_format;
  row.dtype = tensor.dtype;
  if (file.name.dtype)
    row.dtype_label = dtype_name(*file.name.dtype);
  else
    row.dtype_label = file.name.dtype_label;
  if (tensor.shape_known) row.shape = tensor.shape;
  if (tensor.statistics)
    row.bytes = tensor.statistics->data_size;
  else
    row.bytes = tensor.bytes;
  return row;
}

// --- formatting ---------------------------------------------------------------------------------

namespace {
template <class Dim>
std::string shape_text(std::span<const Dim> shape) {
  if (shape.empty()) return "scalar";
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) text += 'x';
    text += std::to_string(shape[i]);
  }
  return text;
}
}  // namespace

std::string format_shape(std::span<const uint64_t> shape) { return shape_text(shape); }
std::string format_shape(std::span<const int64_t> shape) { return shape_text(shape); }

// --- records -------------------------------------------------------------------------------------

namespace {

const char* const kRowFields[] = {"file",        "format",  "rank",    "net",           "graph",
                                  "iteration",   "op_type", "op_name", "task_id",       "stream_id",
                                  "timestamp",   "io",      "slot",    "device_format", "dtype",
                                  "dtype_label", "shape",   "bytes"};
const char* const kRowColumns[] = {
    "rank", "net",   "graph",       "iteration", "op_type",       "op_name", "io",
    "slot", "dtype", "dtype_label", "shape",     "device_format", "bytes"};

using table::cell;

// An empty string is an absent value.
table::Cell cell(const std::string& value) {
  if (value.empty()) return {};
  return value;
}

}  // namespace

table::Schema row_schema(bool stats) {
  std::vector<std::string> fields(std::begin(kRowFields), std::end(kRowFields));
  std::vector<std::string> columns(std::begin(kRowColumns), std::end(kRowColumns));
  if (stats) {
    fields.insert(fields.end(), stat_fields().begin(), stat_fields().end());
    columns.insert(columns.end(), stat_fields().begin(), stat_fields().end());
  }
  columns.push_back("file");
  return table::Schema(std::move(fields), columns);
}

table::Record row_record(const TensorRow& row, bool stats) {
  table::Record record = {
      row.file,  // never absent, even when empty
      cell(row.format),
      cell(row.rank),
      cell(row.net),
      cell(row.graph),
      cell(row.iteration),
      cell(row.op_type),
      cell(row.op_name),
      cell(row.task_id),
      cell(row.stream_id),
      cell(row.timestamp),
      cell(row.io),
      cell(row.slot),
      cell(row.device_format),
      row.dtype ? table::Cell(std::string(dtype_name(*row.dtype))) : table::Cell(),
      cell(row.dtype_label),
      row.shape ? table::Cell(table::Composite{format_shape(*row.shape),
                                               nlohmann::ordered_json(*row.shape)})
                : table::Cell(),
      cell(row.bytes)};
  if (stats) {
    append_stat_cells(record, row.stats ? &*row.stats : nullptr);
  }
  return record;
}

// --- walk ----------------------------------------------------------------------------------------

namespace {

RowStats no_stats() {
  RowStats stats;
  stats.source = "computed";
  return stats;
}

}  // namespace

namespace {

struct Lister {
  const ListOptions& options;
  const Selector& filter;
  table::Sink& sink;
  Diagnostics& diagnostics;

  // On a worker: the row of one tensor, with its statistics, or nothing when filtered out.
  std::optional<TensorRow> row_of(const DumpDirectory& directory, const DumpFile& file,
                                  const DumpTensor& tensor, unsigned stats_jobs,
                                  DeferredDiagnostics& problems) const {
    if (tensor.ascend) warn_unknown_enums(file, *tensor.ascend, problems);
    if (!filter.accepts(directory.where, file, tensor)) return std::nullopt;
    TensorRow row = make_row(directory, file, tensor);
    if (options.stats) {
      if (tensor.statistics)
        row.stats = stats_from_statistic_row(*tensor.statistics);
      else if (tensor.view)
        row.stats = stats_from_tensor(compute_stats(*tensor.view, stats_jobs));
      else
        row.stats = no_stats();
    }
    return row;
  }

  // A value outside the enums may come from a newer CANN: the tensor is still listed (without a
  // dtype, or with the number as its format), and the user is told why its values are missing.
  static void warn_unknown_enums(const DumpFile& file, const AscendTensor& tensor,
                                 DeferredDiagnostics& problems) {
    std::string where = fmt::format("{} {}", kind_name(tensor.kind), tensor.index);
    if (ascend_dtype_name(tensor.data_type).empty())
      problems.warning(
          file.display,
          Error::at_offset(
              tensor.payload_offset,
              fmt::format("{}: data_type {} is not an OutputDataType; values not decoded", where,
                          tensor.data_type)));
    if (ascend_format_name(tensor.format).empty())
      problems.warning(file.display, Error::at_offset(tensor.payload_offset,
                                                      fmt::format("{}: format {} is not an "
                                                                  "OutputFormat",
                                                                  where, tensor.format)));
  }

  void directory(const DumpDirectory& directory) {
    if (!filter.accepts_location(directory.where)) return;
    // With saved_data "full" statistic.csv repeats the tensors beside it (dump spec §6.1); its
    // rows are listed only when the statistics are all there is.
    bool has_tensors =
        std::any_of(directory.files.begin(), directory.files.end(),
                    [](const DumpFile& f) { return kind_holds_tensors(f.name.kind); });
    std::vector<const DumpFile*> files;
    for (const DumpFile& f : directory.files) {
      if (kind_is_side_file(f.name.kind)) continue;
      if (f.name.kind == FileKind::StatisticCsv && has_tensors) continue;
      files.push_back(&f);
    }
    // Files are read and their statistics computed on options.jobs workers; rows reach the
    // sink in file order.
    read_files_in_order<TensorRow>(
        files, options.jobs,
        [&](const DumpFile& file, const DumpTensor& tensor, unsigned stats_jobs,
            DeferredDiagnostics& problems) {
          return row_of(directory, file, tensor, stats_jobs, problems);
        },
        [&](const DumpFile&, std::vector<TensorRow>&& rows) {
          for (const TensorRow& row : rows) sink.row(row_record(row, options.stats));
        },
        diagnostics, options.stats ? Reading::Whole : Reading::Parts);
  }
};

}  // namespace

Status list_tensors(std::span<const std::string> paths, const ListOptions& options,
                    std::ostream& out, Diagnostics& diagnostics) {
  MSDT_TRY(Selector filter, Selector::create(options.selection));
  table::Schema schema = row_schema(options.stats);
  auto sink = table::make_sink(options.format, schema, options.header, out);
  Lister lister{options, filter, *sink, diagnostics};
  WalkCallbacks callbacks;
  callbacks.directory = [&](const DumpDirectory& directory) { lister.directory(directory); };
  callbacks.error = [&](const std::string& display, const Error& error) {
    diagnostics.error(display, error);
  };
  callbacks.warning = [&](const std::string& display, const Error& w) {
    diagnostics.warning(display, w);
  };
  walk_dump_tree(paths, callbacks);
  sink->finish();
  return std::nullopt;
}

}  // namespace msdt::dump
