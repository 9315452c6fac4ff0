#include "io/csv.h"

#include <fmt/format.h>

namespace msdt {

namespace {

bool only_line_breaks(std::string_view rest) {
  return rest.find_first_not_of("\r\n") == std::string_view::npos;
}

// The byte that stopped a field, printable even when the file is not text.
std::string describe_byte(char c) {
  auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", byte);
}

}  // namespace

Expected<std::optional<std::vector<std::string>>> CsvReader::next_row() {
  // Trailing line breaks end the file rather than adding empty rows, so "a\n" is one row.
  if (pos_ >= text_.size() || only_line_breaks(text_.substr(pos_)))
    return std::optional<std::vector<std::string>>();

  row_line_ = next_line_;
  std::vector<std::string> row;
  std::string field;
  const size_t size = text_.size();
  while (true) {
    field.clear();
    if (pos_ < size && text_[pos_] == '"') {
      const uint64_t quote_line = next_line_;
      ++pos_;
      bool closed = false;
      while (pos_ < size) {
        char c = text_[pos_++];
        if (c == '"') {
          if (pos_ < size && text_[pos_] == '"') {  // RFC 4180: a doubled quote is one quote
            field.push_back('"');
            ++pos_;
            continue;
          }
          closed = true;
          break;
        }
        if (c == '\n') ++next_line_;
        field.push_back(c);
      }
      if (!closed)
        return Error::at_line(quote_line,
                              "unterminated quoted field: expected a closing '\"' before the end "
                              "of the file");
      row.push_back(field);
      if (pos_ >= size) break;
      char c = text_[pos_];
      if (c == ',') {
        ++pos_;
        continue;
      }
      if (c == '\n') {
        ++pos_;
        ++next_line_;
        break;
      }
      if (c == '\r' && pos_ + 1 < size && text_[pos_ + 1] == '\n') {
        pos_ += 2;
        ++next_line_;
        break;
      }
      return Error::at_line(next_line_,
                            fmt::format("expected ',' or the end of the line after a quoted field, "
                                        "found {}",
                                        describe_byte(c)));
    }

    // Unquoted field: a stray quote or lone CR inside it is kept as data.
    bool end_of_row = true;
    while (pos_ < size) {
      char c = text_[pos_];
      if (c == ',') {
        ++pos_;
        end_of_row = false;
        break;
      }
      if (c == '\n') {
        ++pos_;
        ++next_line_;
        break;
      }
      if (c == '\r' && pos_ + 1 < size && text_[pos_ + 1] == '\n') {
        pos_ += 2;
        ++next_line_;
        break;
      }
      field.push_back(c);
      ++pos_;
    }
    row.push_back(field);
    if (end_of_row) break;
    // A comma at the very end of the input still closes a final empty field.
    if (pos_ >= size) {
      row.emplace_back();
      break;
    }
  }
  return std::optional<std::vector<std::string>>(std::move(row));
}

}  // namespace msdt
