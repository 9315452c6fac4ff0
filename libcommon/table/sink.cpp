#include "table/sink.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <iterator>
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

template <class Integer>
void append_integer(std::string& out, Integer value) {
  char text[24];
  auto [end, error] = std::to_chars(text, text + sizeof text, value);
  out.append(text, end);
}

void append_json_value(std::string& out, const Cell& cell) {
  struct Visitor {
    std::string& out;
    void operator()(std::monostate) const { out += "null"; }
    void operator()(const std::string& s) const { append_json_string(out, s); }
    void operator()(int64_t v) const { append_integer(out, v); }
    void operator()(uint64_t v) const { append_integer(out, v); }
    void operator()(double v) const { append_json_double(out, v); }
    void operator()(bool v) const { out += v ? "true" : "false"; }
    void operator()(const Composite& c) const { out += to_json_text(c.json, -1); }
  };
  std::visit(Visitor{out}, cell);
}

// The delimited spelling of a cell (TSV or CSV escaping) appended to `out`; nothing when absent.
void append_delimited(std::string& out, const Cell& cell, bool csv) {
  struct Visitor {
    std::string& out;
    bool csv;
    void text(std::string_view s) const { csv ? append_csv(out, s) : append_tsv(out, s); }
    void operator()(std::monostate) const {}
    void operator()(const std::string& s) const { text(s); }
    void operator()(int64_t v) const { append_integer(out, v); }
    void operator()(uint64_t v) const { append_integer(out, v); }
    void operator()(double v) const { append_double(out, v); }
    void operator()(bool v) const { out += v ? "true" : "false"; }
    void operator()(const Composite& c) const { text(c.text); }
  };
  std::visit(Visitor{out, csv}, cell);
}

class TextSink final : public Sink {
 public:
  TextSink(const Schema& schema, bool header, std::ostream& out) : schema_(schema), out_(out) {
    if (header) rows_.push_back(schema.column_titles());
  }
  void row(const Record& record) override {
    std::vector<std::string> cells;
    for (size_t i : schema_.columns()) {
      auto text = plain_text(record.at(i));
      cells.push_back(text ? printable_path(*text) : "-");
    }
    rows_.push_back(std::move(cells));
    ++seen_;
    if (rows_.size() >= kBlockRows) write_block();
  }
  void finish() override {
    if (seen_) write_block();
    out_.flush();
  }

 private:
  // Aligning needs the widths of the rows aligned together: a listing is aligned in blocks of
  // this many rows, each written when complete, so that a long one appears as it goes, in
  // bounded memory; a column only widens from one block to the next. (Pipes, where latency
  // matters for `head`, get TSV streamed row by row.)
  static constexpr size_t kBlockRows = 2000;
  void write_block() {
    out_ << align_columns(rows_, &widths_);
    out_.flush();
    rows_.clear();
  }

  const Schema& schema_;
  std::ostream& out_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<size_t> widths_;
  size_t seen_ = 0;  // rows given, the header aside
};

class DelimitedSink final : public Sink {
 public:
  DelimitedSink(const Schema& schema, bool header, std::ostream& out, bool csv)
      : schema_(schema), out_(out), csv_(csv) {
    if (!header) return;
    Record titles;
    for (auto& title : schema.column_titles()) titles.emplace_back(title);
    write(titles, false);
  }
  void row(const Record& record) override { write(record, true); }
  void finish() override { out_.flush(); }

 private:
  // `by_field`: the record holds every field (a row), else only the columns (the titles).
  void write(const Record& cells, bool by_field) {
    line_.clear();
    const auto& columns = schema_.columns();
    for (size_t i = 0; i < columns.size(); ++i) {
      if (i) line_ += csv_ ? ',' : '\t';
      // An absent value is an empty field (a `-` would read as a value in awk or a spreadsheet).
      append_delimited(line_, cells.at(by_field ? columns[i] : i), csv_);
    }
    line_ += '\n';
    out_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
  }

  const Schema& schema_;
  std::ostream& out_;
  bool csv_;
  std::string line_;  // reused row after row
};

class JsonSink final : public Sink {
 public:
  JsonSink(const Schema& schema, std::ostream& out) : out_(out) {
    // Each key with what goes before and after it, spelled once: `{"run": `, `, "file": `, ...
    for (size_t i = 0; i < schema.fields().size(); ++i) {
      std::string& key = keys_.emplace_back(i ? ", " : "{");
      append_json_string(key, schema.fields()[i]);
      key += ": ";
    }
  }
  void row(const Record& record) override {
    line_.clear();
    for (size_t i = 0; i < keys_.size(); ++i) {
      line_ += keys_[i];
      append_json_value(line_, record.at(i));
    }
    line_ += keys_.empty() ? "{}\n" : "}\n";
    out_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
  }
  void finish() override { out_.flush(); }

 private:
  std::ostream& out_;
  std::vector<std::string> keys_;
  std::string line_;  // reused row after row
};

}  // namespace

void append_json_object(std::string& out, const Schema& schema, const Record& record) {
  out += '{';
  for (size_t i = 0; i < schema.fields().size(); ++i) {
    if (i) out += ", ";
    append_json_string(out, schema.fields()[i]);
    out += ": ";
    append_json_value(out, record.at(i));
  }
  out += '}';
}

std::string json_object(const Schema& schema, const Record& record) {
  std::string out;
  append_json_object(out, schema, record);
  return out;
}

void HeldRows::hand_to(Sink& sink) {
  for (const Record& record : rows_) sink.row(record);
  rows_.clear();
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
