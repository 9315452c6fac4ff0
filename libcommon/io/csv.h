// An RFC 4180 CSV reader (quoted fields, doubled quotes, CRLF or LF) that reports line numbers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/error.h"

namespace msdt {

class CsvReader {
 public:
  explicit CsvReader(std::string_view text) : text_(text) {}
  // The next row, nullopt at the end. A blank final line is not a row.
  Expected<std::optional<std::vector<std::string>>> next_row();
  // 1-based line where the last returned row started.
  uint64_t line() const { return row_line_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  uint64_t next_line_ = 1;
  uint64_t row_line_ = 0;
};

}  // namespace msdt
