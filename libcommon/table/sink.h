// Rows of typed cells, written in one of four formats: aligned text for a terminal, TSV for a
// pipe, CSV (--csv) and JSON Lines (--json). A tool describes its columns once (Schema), builds one
// Record per row and hands it to the Sink that make_sink chose; it never spells a value itself, so
// every format shows the same rows (style §4.5).
//
// Spelling per format (see table/format.h for numbers and escaping):
//   cell       text          TSV            CSV            JSON
//   absent     -             (empty)       (empty)        null
//   text       as is         escape_tsv     escape_csv     json_string
//   integer    decimal       decimal        decimal        number
//   double     format_double format_double  format_double  json_double
//   bool       true/false    true/false     true/false     true/false
//   Composite  .text         .text          .text          .json as a JSON value
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace msdt::table {

// A value with a text spelling for the table formats and a structured one for JSON, e.g. a shape:
// "2x3" in TSV, [2, 3] in JSON.
struct Composite {
  std::string text;
  nlohmann::ordered_json json;
};

using Cell = std::variant<std::monostate, std::string, int64_t, uint64_t, double, bool, Composite>;
using Record = std::vector<Cell>;  // one cell per Schema field, in field order

// An optional number as a cell: absent, a double for floating-point types, else uint64_t.
template <class T>
Cell cell(const std::optional<T>& value) {
  if (!value) return {};
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<double>(*value);
  else
    return static_cast<uint64_t>(*value);
}

// The fields of a record, which also give the JSON keys and their order, and the columns of the
// table formats (text, TSV, CSV): a subset of the fields in any order.
class Schema {
 public:
  // Table columns default to every field in field order. A column names a field; an unknown
  // name is a programming error (std::invalid_argument).
  explicit Schema(std::vector<std::string> fields, const std::vector<std::string>& columns = {});
  const std::vector<std::string>& fields() const { return fields_; }
  const std::vector<size_t>& columns() const { return columns_; }  // indices into fields()
  std::vector<std::string> column_titles() const;

 private:
  std::vector<std::string> fields_;
  std::vector<size_t> columns_;
};

enum class Format { Text, Tsv, Csv, Json };

// The one rule every tool follows: --json, else --csv, else aligned text on a terminal and TSV
// in a pipe.
Format choose_format(bool csv, bool json, bool terminal);
// The same with `terminal` = standard output is a terminal.
Format choose_format(bool csv, bool json);

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void row(const Record& record) = 0;
  // Called once after the last row (the text sink aligns and prints everything here).
  virtual void finish() {}
};

// Rows kept to be handed to another sink later, in the order given: rows made on a reading
// thread, given on the calling thread in file order to a sink that must see all of them (the
// aligned text's).
class HeldRows final : public Sink {
 public:
  void row(const Record& record) override { rows_.push_back(record); }
  // Gives the rows held to `sink` and forgets them.
  void hand_to(Sink& sink);

 private:
  std::vector<Record> rows_;
};

// `header`: a title line in text, TSV and CSV (never in JSON). The text sink prints nothing,
// not even the titles, when there was no row. `schema` must outlive the sink.
std::unique_ptr<Sink> make_sink(Format format, const Schema& schema, bool header,
                                std::ostream& out);

// One record as a JSON object on one line, without the newline (what the JSON sink prints).
std::string json_object(const Schema& schema, const Record& record);
void append_json_object(std::string& out, const Schema& schema, const Record& record);

}  // namespace msdt::table
