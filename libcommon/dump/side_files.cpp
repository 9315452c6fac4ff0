#include "dump/side_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

#include "io/csv.h"
#include "io/text.h"

namespace msdt::dump {

namespace {

// For a decimal that from_chars found out of range: true when its magnitude is below 1 (it
// underflows), false when above (it overflows). The magnitude is the exponent plus the position
// of the first non-zero digit of the mantissa relative to the decimal point.
bool underflows(std::string_view s) {
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
  size_t e = s.find_first_of("eE");
  std::string_view mantissa = s.substr(0, e);
  int64_t exponent = 0;
  if (e != std::string_view::npos) {
    std::string_view digits = s.substr(e + 1);
    bool negative = !digits.empty() && digits.front() == '-';
    if (!digits.empty() && (digits.front() == '-' || digits.front() == '+'))
      digits.remove_prefix(1);
    for (char c : digits) exponent = std::min<int64_t>(exponent * 10 + (c - '0'), int64_t{1} << 40);
    if (negative) exponent = -exponent;
  }
  size_t point = mantissa.find('.');
  if (point == std::string_view::npos) point = mantissa.size();
  size_t first = mantissa.find_first_of("123456789");
  if (first == std::string_view::npos) return true;  // all zeros cannot overflow
  const auto position = first < point ? static_cast<int64_t>(point - first)
                                      : -static_cast<int64_t>(first - point - 1);
  return exponent + position <= 0;
}

std::optional<double> to_double(std::string_view s) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  // Out of range is still a number to a reader of the statistics: the nearest double is ±0 when
  // it underflows (1e-400), ±inf when it overflows (1e400), as NumPy and strtod read them.
  if (ec == std::errc::result_out_of_range && end == s.data() + s.size()) {
    const bool negative = s.front() == '-';
    if (underflows(s)) return negative ? -0.0 : 0.0;
    return negative ? -HUGE_VAL : HUGE_VAL;
  }
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// "(2,3)", "(4,)" or "()" (dump spec §6.1); the CSV layer already removed the double quotes.
std::optional<std::vector<uint64_t>> parse_shape(std::string_view s) {
  s = trim_blanks(s);
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return std::nullopt;
  s = s.substr(1, s.size() - 2);
  std::vector<uint64_t> shape;
  if (trim_blanks(s).empty()) return shape;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    std::string_view dim =
        trim_blanks(s.substr(start, comma == std::string_view::npos ? s.npos : comma - start));
    if (comma == std::string_view::npos) {
      if (dim.empty() && !shape.empty()) break;  // "(4,)": NumPy-style trailing comma
      auto value = parse_unsigned<uint64_t>(dim);
      if (!value) return std::nullopt;
      shape.push_back(*value);
      break;
    }
    auto value = parse_unsigned<uint64_t>(dim);
    if (!value) return std::nullopt;
    shape.push_back(*value);
    start = comma + 1;
  }
  return shape;
}

enum class Column {
  Ignored,
  OpType,
  OpName,
  TaskId,
  StreamId,
  Timestamp,
  IoColumn,
  Slot,
  DataSize,
  DataType,
  Shape,
  Max,
  Min,
  Avg,
  L2Norm,
  Count,
  NegativeZeroCount,
  PositiveZeroCount,
  NanCount,
  NegativeInfCount,
  PositiveInfCount,
  ZeroCount,
  Md5,
  Sha1,
};

// Column titles of both header generations (dump spec §6.1).
Column column_for(std::string_view title) {
  struct Entry {
    std::string_view title;
    Column column;
  };
  static constexpr Entry kTitles[] = {
      {"Op Type", Column::OpType},
      {"Op Name", Column::OpName},
      {"Task ID", Column::TaskId},
      {"Stream ID", Column::StreamId},
      {"Timestamp", Column::Timestamp},
      {"IO", Column::IoColumn},
      {"Slot", Column::Slot},
      {"Data Size", Column::DataSize},
      {"Data Type", Column::DataType},
      {"Shape", Column::Shape},
      {"Max Value", Column::Max},
      {"Min Value", Column::Min},
      {"Avg Value", Column::Avg},
      {"L2Norm Value", Column::L2Norm},
      {"Count", Column::Count},
      {"Negative Zero Count", Column::NegativeZeroCount},
      {"Positive Zero Count", Column::PositiveZeroCount},
      {"NaN Count", Column::NanCount},
      {"Nan Count", Column::NanCount},  // one intermediate MindSpore copy spells it so
      {"Negative Inf Count", Column::NegativeInfCount},
      {"Positive Inf Count", Column::PositiveInfCount},
      {"Zero Count", Column::ZeroCount},
      {"MD5", Column::Md5},
      {"SHA1", Column::Sha1},
  };
  title = trim_blanks(title);
  for (const auto& entry : kTitles)
    if (entry.title == title) return entry.column;
  return Column::Ignored;
}

Status fill_cell(StatisticRow& row, Column column, std::string_view title, std::string_view raw) {
  std::string_view cell = trim_blanks(raw);
  // `null` marks a statistic with no defined value, e.g. of an empty tensor (dump spec §6.1).
  const bool absent = cell.empty() || cell == "null";
  auto expected = [&](std::string_view what) {
    return Error(fmt::format("column {}: expected {}, found {}", quote_for_message(title), what,
                             quote_for_message(raw)));
  };
  auto u64 = [&](std::optional<uint64_t>& into) -> Status {
    if (absent) return std::nullopt;
    into = parse_unsigned<uint64_t>(cell);
    if (!into) return expected("an unsigned 64-bit integer");
    return std::nullopt;
  };
  auto real = [&](std::optional<double>& into) -> Status {
    if (absent) return std::nullopt;
    into = to_double(cell);
    if (!into) return expected("a number");
    return std::nullopt;
  };
  switch (column) {
    case Column::Ignored:
      return std::nullopt;
    case Column::OpType:
      row.op_type = std::string(raw);
      return std::nullopt;
    case Column::OpName:
      row.op_name = std::string(raw);
      return std::nullopt;
    case Column::TaskId:
      return u64(row.task_id);
    case Column::StreamId:
      return u64(row.stream_id);
    case Column::Timestamp:
      return u64(row.timestamp);
    case Column::IoColumn:
      if (absent) return std::nullopt;
      if (cell == "input")
        row.io = Io::Input;
      else if (cell == "output")
        row.io = Io::Output;
      else
        return expected("input or output");
      return std::nullopt;
    case Column::Slot:
      if (absent) return std::nullopt;
      row.slot = parse_unsigned<uint32_t>(cell);
      if (!row.slot) return expected("an unsigned 32-bit integer");
      return std::nullopt;
    case Column::DataSize:
      return u64(row.data_size);
    case Column::DataType:
      if (absent) return std::nullopt;
      row.data_type = std::string(cell);
      row.dtype = parse_dtype_label(cell);
      return std::nullopt;
    case Column::Shape: {
      if (absent) return std::nullopt;
      auto shape = parse_shape(cell);
      if (!shape) return expected("a shape such as (2,3) or ()");
      row.shape = std::move(*shape);
      return std::nullopt;
    }
    case Column::Max:
      return real(row.max);
    case Column::Min:
      return real(row.min);
    case Column::Avg:
      return real(row.avg);
    case Column::L2Norm:
      return real(row.l2norm);
    case Column::Count:
      return u64(row.count);
    case Column::NegativeZeroCount:
      return u64(row.negative_zero_count);
    case Column::PositiveZeroCount:
      return u64(row.positive_zero_count);
    case Column::NanCount:
      return u64(row.nan_count);
    case Column::NegativeInfCount:
      return u64(row.negative_inf_count);
    case Column::PositiveInfCount:
      return u64(row.positive_inf_count);
    case Column::ZeroCount:
      return u64(row.zero_count);
    case Column::Md5:
      if (!absent) row.md5 = std::string(cell);
      return std::nullopt;
    case Column::Sha1:
      if (!absent) row.sha1 = std::string(cell);
      return std::nullopt;
  }
  return std::nullopt;
}

bool is_blank_row(const std::vector<std::string>& row) {
  return row.size() == 1 && trim_blanks(row[0]).empty();
}

// Calls `line_fn(line_number, line)` for each line without its LF or CRLF ending.
template <class Fn>
Status for_each_line(std::string_view text, Fn&& line_fn) {
  uint64_t number = 0;
  size_t start = 0;
  while (start < text.size()) {
    ++number;
    size_t end = text.find('\n', start);
    std::string_view line =
        text.substr(start, end == std::string_view::npos ? text.npos : end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    MSDT_CHECK(line_fn(number, line));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace

Expected<StatisticCsv> parse_statistic_csv(std::string_view text) {
  CsvReader reader(text);
  MSDT_TRY(auto header_row, reader.next_row());
  if (!header_row)
    return Error::at_line(1, "expected a statistic.csv header row, found an empty file");
  StatisticCsv csv;
  csv.header = std::move(*header_row);
  // A header written with a trailing comma, like the data rows, has no real last column.
  if (csv.header.size() > 1 && csv.header.back().empty()) csv.header.pop_back();
  std::vector<Column> columns;
  bool has_op_type = false;
  for (const auto& title : csv.header) {
    columns.push_back(column_for(title));
    has_op_type = has_op_type || columns.back() == Column::OpType;
  }
  if (!has_op_type)
    return Error::at_line(reader.line(),
                          fmt::format("expected a statistic.csv header with an 'Op Type' column, "
                                      "found {}",
                                      quote_for_message(csv.header.empty() ? "" : csv.header[0])));

  while (true) {
    MSDT_TRY(auto cells, reader.next_row());
    if (!cells) break;
    if (is_blank_row(*cells)) continue;
    size_t count = cells->size();
    // MindSpore ends every data row with a comma (dump spec §6.1).
    if (count == columns.size() + 1 && (*cells)[count - 1].empty()) --count;
    if (count != columns.size())
      return Error::at_line(reader.line(),
                            fmt::format("row has {} fields but the header has {} columns",
                                        cells->size(), columns.size()));
    StatisticRow row;
    row.line = reader.line();
    for (size_t i = 0; i < count; ++i) {
      if (auto error = fill_cell(row, columns[i], csv.header[i], (*cells)[i])) {
        error->line = reader.line();
        return std::move(*error);
      }
    }
    csv.rows.push_back(std::move(row));
  }
  return csv;
}

Expected<std::vector<std::pair<std::string, std::string>>> parse_mapping_csv(
    std::string_view text) {
  CsvReader reader(text);
  std::vector<std::pair<std::string, std::string>> pairs;
  while (true) {
    MSDT_TRY(auto cells, reader.next_row());
    if (!cells) break;
    if (is_blank_row(*cells)) continue;
    size_t count = cells->size();
    if (count == 3 && (*cells)[2].empty()) count = 2;
    if (count != 2)
      return Error::at_line(reader.line(),
                            fmt::format("expected 2 fields '{{mapped name}},{{original name}}', "
                                        "found {}",
                                        cells->size()));
    if ((*cells)[0].empty() || (*cells)[1].empty())
      return Error::at_line(reader.line(),
                            "expected a mapped name and an original name, found an "
                            "empty field");
    pairs.emplace_back(std::move((*cells)[0]), std::move((*cells)[1]));
  }
  return pairs;
}

Expected<std::vector<std::string>> parse_execution_order(std::string_view text) {
  constexpr std::string_view kHeader = "NodeExecutionOrder-FullNameWithScope";
  std::vector<std::string> names;
  bool seen_header = false;
  // Names are written unescaped (dump spec §6.2), so the file is read by lines, not as CSV.
  Status status = for_each_line(text, [&](uint64_t number, std::string_view line) -> Status {
    if (!seen_header) {
      if (trim_blanks(line) != kHeader)
        return Error::at_line(number, fmt::format("expected the header '{}', found {}", kHeader,
                                                  quote_for_message(line)));
      seen_header = true;
      return std::nullopt;
    }
    if (!trim_blanks(line).empty()) names.emplace_back(line);
    return std::nullopt;
  });
  if (status) return std::move(*status);
  if (!seen_header)
    return Error::at_line(1, fmt::format("expected the header '{}', found an empty file", kHeader));
  return names;
}

Expected<std::vector<uint64_t>> parse_global_execution_order(std::string_view text) {
  std::vector<uint64_t> iterations;
  Status status = for_each_line(text, [&](uint64_t number, std::string_view line) -> Status {
    std::string_view rest = trim_blanks(line);
    if (rest.empty()) return std::nullopt;
    // MindSpore's reader takes the leading integer of each line (dump spec §6.2).
    size_t digits = 0;
    while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    if (digits == 0)
      return Error::at_line(
          number, fmt::format("expected an iteration number, found {}", quote_for_message(line)));
    auto value = parse_unsigned<uint64_t>(rest.substr(0, digits));
    if (!value)
      return Error::at_line(number, fmt::format("iteration number {} does not fit in 64 bits",
                                                quote_for_message(rest.substr(0, digits))));
    iterations.push_back(*value);
    return std::nullopt;
  });
  if (status) return std::move(*status);
  return iterations;
}

}  // namespace msdt::dump
