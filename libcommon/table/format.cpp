#include "table/format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>

#include "io/report.h"
#include "io/text.h"

namespace msdt::table {

// --- numbers and escaping
// ----------------------------------------------------------------------------------

void append_double(std::string& out, double value, Digits digits) {
  if (std::isnan(value)) {
    out += "nan";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "inf" : "-inf";
    return;
  }
  char text[40];  // the longest shortest form is 24 characters ("-2.2250738585072014e-308")
  char* end = digits == Digits::Float32 ? fmt::format_to(text, "{}", static_cast<float>(value))
                                        : fmt::format_to(text, "{}", value);
  std::string_view spelled(text, static_cast<size_t>(end - text));
  out.append(spelled);
  // fmt's shortest form drops ".0"; keep it so a float never reads as a count.
  if (spelled.find_first_of(".e") == std::string_view::npos) out += ".0";
}

std::string format_double(double value, Digits digits) {
  std::string text;
  append_double(text, value, digits);
  return text;
}

void append_tsv(std::string& out, std::string_view field) {
  for (size_t i = 0; i < field.size();) {
    // Runs of bytes that need no escape are copied whole.
    size_t plain = i;
    while (plain < field.size()) {
      auto c = static_cast<unsigned char>(field[plain]);
      if (c < 0x20 || c == 0x7F || c == '\\') break;
      ++plain;
    }
    out.append(field.substr(i, plain - i));
    if (plain == field.size()) return;
    char c = field[plain];
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
        // Other control bytes (ESC above all) would reach a terminal that shows the TSV raw.
        fmt::format_to(std::back_inserter(out), "\\x{:02x}", static_cast<unsigned char>(c));
    }
    i = plain + 1;
  }
}

std::string escape_tsv(std::string_view field) {
  std::string out;
  out.reserve(field.size());
  append_tsv(out, field);
  return out;
}

void append_csv(std::string& out, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out.append(field);
    return;
  }
  out += '"';
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string escape_csv(std::string_view field) {
  std::string out;
  append_csv(out, field);
  return out;
}

size_t display_width(std::string_view text) {
  size_t width = 0;
  for (char c : text)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
  return width;
}

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (size_t i = 0; i < text.size();) {
    // Runs of printable ASCII other than '"' and '\\' are copied whole.
    size_t plain = i;
    while (plain < text.size()) {
      auto c = static_cast<unsigned char>(text[plain]);
      if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') break;
      ++plain;
    }
    out.append(text.substr(i, plain - i));
    i = plain;
    if (i == text.size()) break;
    auto c = static_cast<unsigned char>(text[i]);
    size_t n = utf8_sequence_length(text, i);
    if (n == 0) {
      // Python's surrogateescape: byte NN (always >= 0x80 here) becomes the lone surrogate
      // U+DCNN, so os.fsencode(json.loads(line)["file"]) gives back the original bytes.
      fmt::format_to(std::back_inserter(out), "\\udc{:02x}", c);
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
      else
        fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  out += '"';
}

std::string json_string(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

void append_json_double(std::string& out, double value) {
  // 1e999 overflows to infinity in every JSON reader that maps numbers to doubles (Python,
  // JavaScript; jq clamps it to the largest double), so comparisons such as `.min < 0` still work;
  // NaN has no such number and is null (its count has its own key).
  if (std::isnan(value))
    out += "null";
  else if (std::isinf(value))
    out += value > 0 ? "1e999" : "-1e999";
  else
    append_double(out, value);
}

std::string json_double(double value) {
  std::string out;
  append_json_double(out, value);
  return out;
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
void append_json_text(std::string& out, const nlohmann::ordered_json& value, int indent,
                      int depth) {
  write_json(out, value, indent, depth);
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

std::string align_columns(const std::vector<std::vector<std::string>>& rows,
                          std::vector<size_t>* at_least) {
  std::vector<size_t> widths = at_least ? *at_least : std::vector<size_t>{};
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
  if (at_least) *at_least = std::move(widths);
  return out;
}

}  // namespace msdt::table
