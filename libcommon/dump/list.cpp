#include "dump/list.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>

#include "io/text.h"
#include "tensor/layout.h"

namespace msdt::dump {

// --- lists ---------------------------------------------------------------------------------------

bool IdList::contains(uint64_t id) const {
  return std::any_of(ranges_.begin(), ranges_.end(),
                     [id](const auto& range) { return range.first <= id && id <= range.second; });
}

namespace {

template <class F>
Status for_each_item(std::string_view text, F&& item) {
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view piece = trim_blanks(
        text.substr(start, comma == std::string_view::npos ? text.npos : comma - start));
    MSDT_CHECK(item(piece));
    if (comma == std::string_view::npos) return std::nullopt;
    start = comma + 1;
  }
}

}  // namespace

Expected<IdList> parse_id_list(std::string_view text) {
  IdList list;
  auto status = for_each_item(text, [&](std::string_view item) -> Status {
    if (item.empty()) return Error(fmt::format("empty item in list '{}'", text));
    size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      auto value = parse_unsigned<uint64_t>(item);
      if (!value)
        return Error(
            fmt::format("'{}': expected a non-negative integer or a range like 5-8", item));
      list.ranges_.emplace_back(*value, *value);
      return std::nullopt;
    }
    auto first = parse_unsigned<uint64_t>(trim_blanks(item.substr(0, dash)));
    auto last = parse_unsigned<uint64_t>(trim_blanks(item.substr(dash + 1)));
    if (!first || !last)
      return Error(
          fmt::format("'{}': expected a range of two non-negative integers like 5-8", item));
    if (*last < *first)
      return Error(fmt::format("'{}': range end {} is before its start {}", item, *last, *first));
    list.ranges_.emplace_back(*first, *last);
    return std::nullopt;
  });
  if (status) return std::move(*status);
  return list;
}

Expected<std::vector<DType>> parse_dtype_list(std::string_view text) {
  std::vector<DType> dtypes;
  auto status = for_each_item(text, [&](std::string_view item) -> Status {
    auto dtype = parse_dtype_label(item);
    if (!dtype) return Error(fmt::format("'{}': unknown dtype", item));
    dtypes.push_back(*dtype);
    return std::nullopt;
  });
  if (status) return std::move(*status);
  return dtypes;
}

// --- rows ----------------------------------------------------------------------------------------

RowStats stats_from_tensor(const TensorStats& stats) {
  RowStats row;
  row.source = "computed";
  row.count = stats.count;
  row.min = stats.min;
  row.max = stats.max;
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
  if (tensor.shape_known) row.shape = tensor.shape;
  if (tensor.statistics)
    row.bytes = tensor.statistics->data_size;
  else
    row.bytes = tensor.bytes;
  return row;
}

// --- filters -------------------------------------------------------------------------------------

Expected<RowFilter> RowFilter::create(const ListOptions& options) {
  RowFilter filter;
  if (!options.op.empty()) {
    try {
      filter.op_ = std::regex(options.op, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return Error(fmt::format("--op: '{}': invalid regular expression: {}", options.op, e.what()));
    }
  }
  auto list = [](std::string_view option, const std::string& text,
                 std::optional<IdList>& into) -> Status {
    if (text.empty()) return std::nullopt;
    auto parsed = parse_id_list(text);
    if (!parsed) return Error(fmt::format("{}: {}", option, parsed.error().message));
    into = std::move(*parsed);
    return std::nullopt;
  };
  MSDT_CHECK(list("--iteration", options.iterations, filter.iterations_));
  MSDT_CHECK(list("--rank", options.ranks, filter.ranks_));
  MSDT_CHECK(list("--graph", options.graphs, filter.graphs_));
  if (!options.io.empty()) {
    if (options.io != "input" && options.io != "output")
      return Error(fmt::format("--io: '{}': expected input or output", options.io));
    filter.io_ = options.io;
  }
  if (!options.dtypes.empty()) {
    auto dtypes = parse_dtype_list(options.dtypes);
    if (!dtypes) return Error(fmt::format("--dtype: {}", dtypes.error().message));
    filter.dtypes_ = std::move(*dtypes);
  }
  return filter;
}

namespace {

template <class T>
bool matches(const std::optional<IdList>& list, const std::optional<T>& value) {
  return !list || (value && list->contains(*value));
}

}  // namespace

bool RowFilter::accepts_location(const DumpLocation& where) const {
  return matches(iterations_, where.iteration) && matches(ranks_, where.rank) &&
         matches(graphs_, where.graph);
}

bool RowFilter::accepts(const TensorRow& row) const {
  if (!matches(iterations_, row.iteration) || !matches(ranks_, row.rank) ||
      !matches(graphs_, row.graph))
    return false;
  if (!io_.empty() && row.io != io_) return false;
  if (!dtypes_.empty() &&
      (!row.dtype || std::find(dtypes_.begin(), dtypes_.end(), *row.dtype) == dtypes_.end()))
    return false;
  if (op_ && !std::regex_search(row.op_name, *op_)) return false;
  return true;
}

// --- formatting ----------------------------------------------------------------------------------

std::string format_double(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::string text = fmt::format("{}", value);
  // fmt's shortest form drops ".0"; keep it so a float never reads as a count.
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string format_shape(std::span<const uint64_t> shape) {
  if (shape.empty()) return "scalar";
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) text += 'x';
    text += std::to_string(shape[i]);
  }
  return text;
}

std::string escape_tsv(std::string_view field) {
  std::string out;
  out.reserve(field.size());
  for (char c : field) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string escape_csv(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

namespace {

size_t display_width(std::string_view s) {
  size_t width = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
  return width;
}

}  // namespace

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    size_t n = utf8_sequence_length(text, i);
    if (n == 0) {
      out += fmt::format("\\\\x{:02x}", c);
      ++i;
      continue;
    }
    if (n == 1) {
      if (c == '"')
        out += "\\\"";
      else if (c == '\\')
        out += "\\\\";
      else if (c == '\n')
        out += "\\n";
      else if (c == '\t')
        out += "\\t";
      else if (c == '\r')
        out += "\\r";
      else if (c < 0x20 || c == 0x7F)
        out += fmt::format("\\u{:04x}", c);
      else
        out += static_cast<char>(c);
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  out += '"';
  return out;
}

std::string json_double(double value) {
  if (!std::isfinite(value)) return "\"" + format_double(value) + "\"";
  return format_double(value);
}

namespace {

template <class Json>
void write_json(std::string& out, const Json& value, int indent, int depth) {
  auto newline = [&](int level) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent * level), ' ');
  };
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      if (value.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      bool first = true;
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (!first) out += indent < 0 ? ", " : ",";
        first = false;
        newline(depth + 1);
        out += json_string(it.key());
        out += ": ";
        write_json(out, it.value(), indent, depth + 1);
      }
      newline(depth);
      out += '}';
      return;
    }
    case nlohmann::json::value_t::array: {
      if (value.empty()) {
        out += "[]";
        return;
      }
      // Arrays of scalars (shapes, id lists) stay on one line even when indenting.
      bool scalars =
          std::all_of(value.begin(), value.end(), [](const Json& v) { return !v.is_structured(); });
      out += '[';
      bool first = true;
      for (const auto& element : value) {
        if (!first) out += (indent < 0 || scalars) ? ", " : ",";
        first = false;
        if (!scalars) newline(depth + 1);
        write_json(out, element, indent, depth + 1);
      }
      if (!scalars) newline(depth);
      out += ']';
      return;
    }
    case nlohmann::json::value_t::string:
      out += json_string(value.template get_ref<const std::string&>());
      return;
    case nlohmann::json::value_t::boolean:
      out += value.template get<bool>() ? "true" : "false";
      return;
    case nlohmann::json::value_t::number_integer:
      out += std::to_string(value.template get<int64_t>());
      return;
    case nlohmann::json::value_t::number_unsigned:
      out += std::to_string(value.template get<uint64_t>());
      return;
    case nlohmann::json::value_t::number_float:
      out += json_double(value.template get<double>());
      return;
    default:
      out += "null";
      return;
  }
}

template <class Json>
std::string scalar_text(const Json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::string: {
      const std::string& text = value.template get_ref<const std::string&>();
      // An empty string must still show, and differ from null ("-").
      return text.empty() ? "\"\"" : printable_path(text);
    }
    case nlohmann::json::value_t::number_float:
      return format_double(value.template get<double>());
    case nlohmann::json::value_t::null:
      return "-";
    default: {
      std::string out;
      write_json(out, value, -1, 0);
      return out;
    }
  }
}

template <class Json>
void write_indented(std::string& out, const Json& value, int indent) {
  std::string pad(static_cast<size_t>(indent), ' ');
  auto entry = [&](const std::string& label, const Json& v) {
    bool scalars = v.is_array() && std::all_of(v.begin(), v.end(),
                                               [](const Json& e) { return !e.is_structured(); });
    if (!v.is_structured() || v.empty() || scalars) {
      out += pad + label + ": " + scalar_text(v) + "\n";
    } else {
      out += pad + label + ":\n";
      write_indented(out, v, indent + 2);
    }
  };
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it)
      entry(printable_path(it.key()), it.value());
  } else if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) entry(fmt::format("[{}]", i), value[i]);
  } else {
    out += pad + scalar_text(value) + "\n";
  }
}

}  // namespace

std::string to_json_text(const nlohmann::json& value, int indent) {
  std::string out;
  write_json(out, value, indent, 0);
  return out;
}
std::string to_json_text(const nlohmann::ordered_json& value, int indent) {
  std::string out;
  write_json(out, value, indent, 0);
  return out;
}
std::string to_indented_text(const nlohmann::json& value, int indent) {
  std::string out;
  write_indented(out, value, indent);
  return out;
}
std::string to_indented_text(const nlohmann::ordered_json& value, int indent) {
  std::string out;
  write_indented(out, value, indent);
  return out;
}

std::string align_columns(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], display_width(row[i]));
  }
  std::string out;
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      out += row[i];
      if (i + 1 < row.size()) out.append(widths[i] - display_width(row[i]) + 2, ' ');
    }
    out += '\n';
  }
  return out;
}

// --- columns -------------------------------------------------------------------------------------

namespace {

const char* const kStatTitles[] = {"stats_source", "count",    "min",      "max",     "mean",
                                   "std",          "abs_mean", "l2norm",   "nan",     "pos_inf",
                                   "neg_inf",      "zero",     "negative", "positive"};

template <class T>
std::optional<std::string> text_of(const std::optional<T>& value) {
  if (!value) return std::nullopt;
  return std::to_string(*value);
}

std::optional<std::string> text_of(const std::optional<double>& value) {
  if (!value) return std::nullopt;
  return format_double(*value);
}

std::optional<std::string> text_of(const std::string& value) {
  if (value.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::vector<std::string> column_titles(bool stats) {
  std::vector<std::string> titles = {"rank",          "net",  "graph", "iteration", "op_type",
                                     "op_name",       "io",   "slot",  "dtype",     "shape",
                                     "device_format", "bytes"};
  if (stats) titles.insert(titles.end(), std::begin(kStatTitles), std::end(kStatTitles));
  titles.push_back("file");
  return titles;
}

std::vector<std::optional<std::string>> row_cells(const TensorRow& row, bool stats) {
  std::vector<std::optional<std::string>> cells = {
      text_of(row.rank),
      text_of(row.net),
      text_of(row.graph),
      text_of(row.iteration),
      text_of(row.op_type),
      text_of(row.op_name),
      text_of(row.io),
      text_of(row.slot),
      row.dtype ? std::optional<std::string>(dtype_name(*row.dtype)) : std::nullopt,
      row.shape ? std::optional<std::string>(format_shape(*row.shape)) : std::nullopt,
      text_of(row.device_format),
      text_of(row.bytes)};
  if (stats) {
    RowStats none;
    const RowStats& s = row.stats ? *row.stats : none;
    cells.insert(
        cells.end(),
        {text_of(s.source), text_of(s.count), text_of(s.min), text_of(s.max), text_of(s.mean),
         text_of(s.std), text_of(s.abs_mean), text_of(s.l2norm), text_of(s.nan), text_of(s.pos_inf),
         text_of(s.neg_inf), text_of(s.zero), text_of(s.negative), text_of(s.positive)});
  }
  cells.push_back(row.file);
  return cells;
}

namespace {

class JsonObject {
 public:
  explicit JsonObject(std::string& out) : out_(out) { out_ += '{'; }
  void key(std::string_view name) {
    if (!first_) out_ += ", ";
    first_ = false;
    out_ += '"';
    out_ += name;
    out_ += "\": ";
  }
  void string(std::string_view name, const std::string& value) {
    key(name);
    out_ += value.empty() ? "null" : json_string(value);
  }
  template <class T>
  void integer(std::string_view name, const std::optional<T>& value) {
    key(name);
    out_ += value ? std::to_string(*value) : "null";
  }
  void real(std::string_view name, const std::optional<double>& value) {
    key(name);
    out_ += value ? json_double(*value) : "null";
  }
  void close() { out_ += '}'; }

 private:
  std::string& out_;
  bool first_ = true;
};

}  // namespace

std::string json_line(const TensorRow& row, bool stats) {
  std::string out;
  JsonObject o(out);
  o.string("file", row.file);
  o.string("format", row.format);
  o.integer("rank", row.rank);
  o.string("net", row.net);
  o.integer("graph", row.graph);
  o.integer("iteration", row.iteration);
  o.string("op_type", row.op_type);
  o.string("op_name", row.op_name);
  o.integer("task_id", row.task_id);
  o.integer("stream_id", row.stream_id);
  o.integer("timestamp", row.timestamp);
  o.string("io", row.io);
  o.integer("slot", row.slot);
  o.string("device_format", row.device_format);
  o.string("dtype", row.dtype ? std::string(dtype_name(*row.dtype)) : std::string());
  o.key("shape");
  if (row.shape) {
    out += '[';
    for (size_t i = 0; i < row.shape->size(); ++i) {
      if (i) out += ", ";
      out += std::to_string((*row.shape)[i]);
    }
    out += ']';
  } else {
    out += "null";
  }
  o.integer("bytes", row.bytes);
  if (stats) {
    RowStats none;
    const RowStats& s = row.stats ? *row.stats : none;
    o.string("stats_source", s.source);
    o.integer("count", s.count);
    o.real("min", s.min);
    o.real("max", s.max);
    o.real("mean", s.mean);
    o.real("std", s.std);
    o.real("abs_mean", s.abs_mean);
    o.real("l2norm", s.l2norm);
    o.integer("nan", s.nan);
    o.integer("pos_inf", s.pos_inf);
    o.integer("neg_inf", s.neg_inf);
    o.integer("zero", s.zero);
    o.integer("negative", s.negative);
    o.integer("positive", s.positive);
  }
  o.close();
  return out;
}

// --- sinks ---------------------------------------------------------------------------------------

namespace {

class TextSink final : public RowSink {
 public:
  TextSink(const ListOptions& options, std::ostream& out) : options_(options), out_(out) {
    if (options.header) rows_.push_back(column_titles(options.stats));
  }
  void row(const TensorRow& row) override {
    std::vector<std::string> cells;
    for (auto& cell : row_cells(row, options_.stats)) cells.push_back(cell ? *cell : "-");
    rows_.push_back(std::move(cells));
  }
  // Aligning needs every width, so a terminal listing appears at the end of the walk; pipes,
  // where latency matters for `head`, get TSV streamed row by row.
  void finish() override {
    if (rows_.size() > (options_.header ? 1u : 0u)) out_ << align_columns(rows_);
    out_.flush();
  }

 private:
  const ListOptions& options_;
  std::ostream& out_;
  std::vector<std::vector<std::string>> rows_;
};

class DelimitedSink final : public RowSink {
 public:
  DelimitedSink(const ListOptions& options, std::ostream& out, bool csv)
      : options_(options), out_(out), csv_(csv) {
    if (!options.header) return;
    std::vector<std::optional<std::string>> titles;
    for (auto& title : column_titles(options.stats)) titles.emplace_back(title);
    write(titles);
  }
  void row(const TensorRow& row) override { write(row_cells(row, options_.stats)); }
  void finish() override { out_.flush(); }

 private:
  void write(const std::vector<std::optional<std::string>>& cells) {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i) line += csv_ ? ',' : '\t';
      if (csv_)
        line += cells[i] ? escape_csv(*cells[i]) : "";
      else
        line += cells[i] ? escape_tsv(*cells[i]) : "-";
    }
    line += '\n';
    out_ << line;
  }

  const ListOptions& options_;
  std::ostream& out_;
  bool csv_;
};

class JsonSink final : public RowSink {
 public:
  JsonSink(const ListOptions& options, std::ostream& out) : options_(options), out_(out) {}
  void row(const TensorRow& row) override { out_ << json_line(row, options_.stats) << '\n'; }
  void finish() override { out_.flush(); }

 private:
  const ListOptions& options_;
  std::ostream& out_;
};

}  // namespace

std::unique_ptr<RowSink> make_row_sink(const ListOptions& options, std::ostream& out) {
  switch (options.style) {
    case OutputStyle::Text:
      return std::make_unique<TextSink>(options, out);
    case OutputStyle::Csv:
      return std::make_unique<DelimitedSink>(options, out, true);
    case OutputStyle::Json:
      return std::make_unique<JsonSink>(options, out);
    case OutputStyle::Tsv:
      break;
  }
  return std::make_unique<DelimitedSink>(options, out, false);
}

// --- walk ----------------------------------------------------------------------------------------

bool kind_holds_tensors(FileKind kind) {
  switch (kind) {
    case FileKind::LegacyBin:
    case FileKind::Npy:
    case FileKind::AscendBinary:
    case FileKind::Overflow:
    case FileKind::MsprobeRaw:
    case FileKind::ConvertedNpy:
      return true;
    default:
      return false;
  }
}

bool kind_is_side_file(FileKind kind) {
  switch (kind) {
    case FileKind::MappingCsv:
    case FileKind::ExecutionOrder:
    case FileKind::GlobalExecutionOrder:
    case FileKind::KernelArgsJson:
    case FileKind::Metadata:
    case FileKind::Graph:
    case FileKind::ConvertFailedList:
      return true;
    default:
      return false;
  }
}

namespace {

RowStats no_stats() {
  RowStats stats;
  stats.source = "computed";
  return stats;
}

}  // namespace

bool is_unknown_file(const DumpFile& file, Bytes contents, const Error& error, std::string& why) {
  // A name no grammar knows, with content that is not a container either, is not damage but a
  // stranger in the tree.
  if (file.name.kind != FileKind::Unknown || looks_like_npy(contents) ||
      looks_like_ascend_dump(contents))
    return false;
  why = file.name.problem.empty() ? error.message : file.name.problem;
  return true;
}

bool report_read_failure(const DumpFile& file, Bytes contents, const Error& error,
                         Diagnostics& diagnostics) {
  std::string why;
  if (is_unknown_file(file, contents, error, why)) {
    diagnostics.warning(file.display, Error("unknown file: " + why));
    return false;
  }
  diagnostics.error(file.display, error);
  return true;
}

namespace {

struct Lister {
  const ListOptions& options;
  const RowFilter& filter;
  RowSink& sink;
  Diagnostics& diagnostics;

  void file(const DumpDirectory& directory, const DumpFile& file, Bytes contents) {
    auto warn = [&](const Error& warning) { diagnostics.warning(file.display, warning); };
    auto status = read_dump_file(file, contents, warn, [&](const DumpTensor& tensor) {
      if (tensor.ascend) warn_unknown_enums(file, *tensor.ascend);
      TensorRow row = make_row(directory, file, tensor);
      if (!filter.accepts(row)) return;
      if (options.stats) {
        if (tensor.statistics)
          row.stats = stats_from_statistic_row(*tensor.statistics);
        else if (tensor.view)
          row.stats = stats_from_tensor(compute_stats(*tensor.view));
        else
          row.stats = no_stats();
      }
      sink.row(row);
    });
    if (status) report_read_failure(file, contents, *status, diagnostics);
  }

  // A value outside the enums may come from a newer CANN: the tensor is still listed (without a
  // dtype, or with the number as its format), and the user is told why its values are missing.
  void warn_unknown_enums(const DumpFile& file, const AscendTensor& tensor) {
    std::string where = fmt::format("{} {}", kind_name(tensor.kind), tensor.index);
    if (ascend_dtype_name(tensor.data_type).empty())
      diagnostics.warning(
          file.display,
          Error::at_offset(
              tensor.payload_offset,
              fmt::format("{}: data_type {} is not an OutputDataType; values not decoded", where,
                          tensor.data_type)));
    if (ascend_format_name(tensor.format).empty())
      diagnostics.warning(
          file.display, Error::at_offset(tensor.payload_offset,
                                         fmt::format("{}: format {} is not an OutputFormat", where,
                                                     tensor.format)));
  }

  void directory(const DumpDirectory& directory) {
    if (!filter.accepts_location(directory.where)) return;
    // With saved_data "full" statistic.csv repeats the tensors beside it (dump spec §6.1); its
    // rows are listed only when the statistics are all there is.
    bool has_tensors =
        std::any_of(directory.files.begin(), directory.files.end(),
                    [](const DumpFile& f) { return kind_holds_tensors(f.name.kind); });
    for (const DumpFile& f : directory.files) {
      if (kind_is_side_file(f.name.kind)) continue;
      if (f.name.kind == FileKind::StatisticCsv && has_tensors) continue;
      auto mapped = open_dump_file(f);
      if (!mapped) {
        diagnostics.error(f.display, mapped.error());
        continue;
      }
      file(directory, f, (*mapped)->bytes());
    }
  }
};

}  // namespace

Status list_tensors(std::span<const std::string> paths, const ListOptions& options,
                    std::ostream& out, Diagnostics& diagnostics) {
  MSDT_TRY(RowFilter filter, RowFilter::create(options));
  auto sink = make_row_sink(options, out);
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
