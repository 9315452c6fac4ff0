#include "table/sink.h"

#include <unistd.h>

#include <algorithm>
#include <ostream>
#include <stdexcept>

#include "io/report.h"
#include "table/format.h"

namespace msdt::table {

Schema::Schema(std::vector<std::string> fields, const std::vector<std::string>& columns)
    : fields_(std::move(fields)) {
  if (columns.empty()) {
    for (size_t i = 0; i < fields_.size(); ++i) columns_.push_back(i);
    return;
  }
  for (const std::string& name : columns) {
    auto it = std::find(fields_.begin(), fields_.end(), name);
    if (it == fields_.end()) throw std::invalid_argument("table column is not a field: " + name);
    columns_.push_back(static_cast<size_t>(it - fields_.begin()));
  }
}

std::vector<std::string> Schema::column_titles() const {
  std::vector<std::string> titles;
  for (size_t i : columns_) titles.push_back(fields_[i]);
  return titles;
}

Format choose_format(bool csv, bool json, bool terminal) {
  if (json) return Format::Json;
  if (csv) return Format::Csv;
  return terminal ? Format::Text : Format::Tsv;
}

Format choose_format(bool csv, bool json) {
  return choose_format(csv, json, ::isatty(STDOUT_FILENO) == 1);
}

namespace {

// The spelling shared by the three table formats, before escaping; nullopt for an absent cell.
std::optional<std::string> plain_text(const Cell& cell) {
  struct Visitor {
    std::optional<std::string> operator()(std::monostate) const { return std::nullopt; }
    std::optional<std::string> operator()(const std::string& s) const { return s; }
    std::optional<std::string> operator()(int64_t v) const { return std::to_string(v); }
    std::optional<std::string> operator()(uint64_t v) const { return std::to_string(v); }
    std::optional<std::string> operator()(double v) const { return format_double(v); }
    std::optional<std::string> operator()(bool v) const { return v ? "true" : "false"; }
    std::optional<std::string> operator()(const Composite& c) const { return c.text; }
  };
  return std::visit(Visitor{}, cell);
}

std::string json_value(const Cell& cell) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(const std::string& s) const { return json_string(s); }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(uint64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return json_double(v); }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(const Composite& c) const { return to_json_text(c.json, -1); }
  };
  return std::visit(Visitor{}, cell);
}

class TextSink final : public Sink {
 public:
  TextSink(const Schema& schema, bool header, std::ostream& out)
      : schema_(schema), header_(header), out_(out) {
    if (header) rows_.push_back(schema.column_titles());
  }
  void row(const Record& record) override {
    std::vector<std::string> cells;
    for (size_t i : schema_.columns()) {
      auto text = plain_text(record.at(i));
      cells.push_back(text ? printable_path(*text) : "-");
    }
    rows_.push_back(std::move(cells));
  }
  // Aligning needs every width, so a terminal listing appears at the end; pipes, where latency
  // matters for `head`, get TSV streamed row by row.
  void finish() override {
    if (rows_.size() > (header_ ? 1u : 0u)) out_ << align_columns(rows_);
    out_.flush();
  }

 private:
  const Schema& schema_;
  bool header_;
  std::ostream& out_;
  std::vector<std::vector<std::string>> rows_;
};

class DelimitedSink final : public Sink {
 public:
  DelimitedSink(const Schema& schema, bool header, std::ostream& out, bool csv)
      : schema_(schema), out_(out), csv_(csv) {
    if (!header) return;
    std::vector<std::optional<std::string>> titles;
    for (auto& title : schema.column_titles()) titles.emplace_back(title);
    write(titles);
  }
  void row(const Record& record) override {
    std::vector<std::optional<std::string>> cells;
    for (size_t i : schema_.columns()) cells.push_back(plain_text(record.at(i)));
    write(cells);
  }
  void finish() override { out_.flush(); }

 private:
  void write(const std::vector<std::optional<std::string>>& cells) {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i) line += csv_ ? ',' : '\t';
      // An absent value is an empty field (a `-` would read as a value in awk or a spreadsheet).
      if (cells[i]) line += csv_ ? escape_csv(*cells[i]) : escape_tsv(*cells[i]);
    }
    line += '\n';
    out_ << line;
  }

  const Schema& schema_;
  std::ostream& out_;
  bool csv_;
};

class JsonSink final : public Sink {
 public:
  JsonSink(const Schema& schema, std::ostream& out) : schema_(schema), out_(out) {}
  void row(const Record& record) override { out_ << json_object(schema_, record) + '\n'; }
  void finish() override { out_.flush(); }

 private:
  const Schema& schema_;
  std::ostream& out_;
};

}  // namespace

std::string json_object(const Schema& schema, const Record& record) {
  std::string out = "{";
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    if (i) out += ", ";
    out += json_string(schema.fields()[i]);
    out += ": ";
    out += json_value(record.at(i));
  }
  out += '}';
  return out;
}

std::unique_ptr<Sink> make_sink(Format format, const Schema& schema, bool header,
                                std::ostream& out) {
  switch (format) {
    case Format::Text:
      return std::make_unique<TextSink>(schema, header, out);
    case Format::Csv:
      return std::make_unique<DelimitedSink>(schema, header, out, true);
    case Format::Json:
      return std::make_unique<JsonSink>(schema, out);
    case Format::Tsv:
      break;
  }
  return std::make_unique<DelimitedSink>(schema, header, out, false);
}

}  // namespace msdt::table
