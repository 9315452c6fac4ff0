// `dump-parse` listing: one row per tensor of a dump tree, filtered, written by one of several
// sinks (aligned text, TSV, CSV, JSON Lines) over a single walk, so every style shows the same rows
// (style §4.5).
//
// Output conventions (documented in the man page):
// * shape prints as `2x3`; a 0-d tensor as `scalar`; an unknown shape as absent;
// * absent values are `-` in text and TSV, an empty field in CSV and `null` in JSON;
// * floating-point numbers print in the shortest form that reads back to the same double, always
//   with a `.` or an exponent (`2.0`, `0.1`, `1e+20`) so that a float never looks like a count;
//   non-finite values are `nan`, `inf`, `-inf` (JSON strings "nan", "inf", "-inf");
// * TSV escapes `\` `\t` `\n` `\r` as `\\` `\t` `\n` `\r`; CSV quotes as RFC 4180 does (a field
// holding
//   `,` `"` CR or LF is quoted, `"` doubled) but ends lines with LF, as Unix tools expect;
// * JSON strings are UTF-8; bytes of a name that are not valid UTF-8 appear as `\xNN` (the same
//   spelling as in error messages), with a literal backslash doubled.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <regex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dump/dump_file.h"
#include "dump/tree.h"
#include "io/error.h"
#include "io/mapped_file.h"
#include "io/report.h"
#include "tensor/stats.h"

namespace msdt::dump {

// A set of non-negative integers written "0,3,5-8" (inclusive ranges).
class IdList {
 public:
  bool contains(uint64_t id) const;
  const std::vector<std::pair<uint64_t, uint64_t>>& ranges() const { return ranges_; }

 private:
  friend Expected<IdList> parse_id_list(std::string_view text);
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;
};
// Errors name the offending item: "'5-3': range end 3 is before its start 5".
Expected<IdList> parse_id_list(std::string_view text);

// "float32,FLOAT,kNumberTypeBFloat16" -> dtypes; any spelling parse_dtype_label accepts.
Expected<std::vector<DType>> parse_dtype_list(std::string_view text);

enum class OutputStyle { Text, Tsv, Csv, Json };

struct ListOptions {
  OutputStyle style = OutputStyle::Tsv;
  bool header = true;
  bool stats = false;
  // Filters as the user wrote them; empty = no filter. A row whose field is absent does not match
  // a filter on that field.
  std::string op;          // ECMAScript regex searched in op_name
  std::string iterations;  // IdList
  std::string ranks;       // IdList
  std::string graphs;      // IdList
  std::string io;          // "input" or "output"
  std::string dtypes;      // parse_dtype_list
  // Workers reading files and computing statistics at once (-j); rows keep the walk's order.
  unsigned jobs = 1;
};

// Statistics of one row, from compute_stats or from a statistic.csv row (which has only the
// columns the user configured, hence every field optional).
struct RowStats {
  std::string source;  // "computed" or "statistic.csv"
  std::optional<uint64_t> count;
  std::optional<double> min, max, mean, std, abs_mean, l2norm;
  std::optional<uint64_t> nan, pos_inf, neg_inf, zero, negative, positive;
};
RowStats stats_from_tensor(const TensorStats& stats);
RowStats stats_from_statistic_row(const StatisticRow& row);

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
  std::optional<std::vector<uint64_t>> shape;
  std::optional<uint64_t> bytes;
  std::optional<RowStats> stats;  // only with --stats
};

TensorRow make_row(const DumpDirectory& directory, const DumpFile& file, const DumpTensor& tensor);

// Filters compiled once (the regex).
class RowFilter {
 public:
  // Errors describe the bad option value ("--iteration: '5-3': …").
  static Expected<RowFilter> create(const ListOptions& options);
  // Location filters alone, to skip whole directories without reading them.
  bool accepts_location(const DumpLocation& where) const;
  bool accepts(const TensorRow& row) const;

 private:
  std::optional<std::regex> op_;
  std::optional<IdList> iterations_, ranks_, graphs_;
  std::string io_;
  std::vector<DType> dtypes_;
};

// --- formatting helpers, shared with --show and --summary ---------------------------------------

std::string format_double(double value);                    // "2.0", "0.1", "1e+20", "nan", "-inf"
std::string format_shape(std::span<const uint64_t> shape);  // "2x3", "scalar"
std::string escape_tsv(std::string_view field);
std::string escape_csv(std::string_view field);
// A JSON string literal with quotes; see the header comment for non-UTF-8 bytes.
std::string json_string(std::string_view text);
// A double as a JSON value: a number, or "nan"/"inf"/"-inf" as strings.
std::string json_double(double value);
// A JSON document with our number and string spelling (json_double, json_string); indent < 0
// writes one line, otherwise nested values are indented by that many spaces per level.
std::string to_json_text(const nlohmann::json& value, int indent);
std::string to_json_text(const nlohmann::ordered_json& value, int indent);
// JSON rendered as indented "key: value" lines for the text views of --show.
std::string to_indented_text(const nlohmann::json& value, int indent);
std::string to_indented_text(const nlohmann::ordered_json& value, int indent);
// Pads every column but the last to its widest cell (counted in UTF-8 characters), two spaces
// apart; each row ends with a newline.
std::string align_columns(const std::vector<std::vector<std::string>>& rows);

// --- sinks ---------------------------------------------------------------------------------------

class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual void row(const TensorRow& row) = 0;
  // Called once after the walk (the text sink aligns and prints everything here).
  virtual void finish() {}
};
std::unique_ptr<RowSink> make_row_sink(const ListOptions& options, std::ostream& out);

// The column titles of text, TSV and CSV, and one row's cells in the same order (absent = empty
// optional, spelled by each sink).
std::vector<std::string> column_titles(bool stats);
std::vector<std::optional<std::string>> row_cells(const TensorRow& row, bool stats);
std::string json_line(const TensorRow& row, bool stats);  // without the newline

// --- the listing walk ----------------------------------------------------------------------------

// Lists every tensor under `paths` ("-" = one file from standard input) into the sink chosen by
// `options`. Damaged files are errors in `diagnostics` and the walk goes on; files whose name
// matches no grammar and whose content is not recognised are warnings "unknown file: <why>".
// Returns an Error, before any output, only when an option value is invalid (a usage error).
Status list_tensors(std::span<const std::string> paths, const ListOptions& options,
                    std::ostream& out, Diagnostics& diagnostics);

// --- pieces shared with show and summary ---------------------------------------------------------

// True for name kinds that hold tensors (so a statistic.csv beside them is a duplicate).
bool kind_holds_tensors(FileKind kind);
// True for side files read_dump_file would visit nothing for; listing skips them unread.
bool kind_is_side_file(FileKind kind);

// What to say when read_dump_file fails: a name no grammar knows with content that is neither
// npy nor DumpData is a warning "unknown file: <why>" (returns false); anything else is damage,
// reported as an error (returns true).
bool report_read_failure(const DumpFile& file, Bytes contents, const Error& error,
                         Diagnostics& diagnostics);
// True when report_read_failure would call the file unknown; `why` gets the reason.
bool is_unknown_file(const DumpFile& file, Bytes contents, const Error& error, std::string& why);

}  // namespace msdt::dump
