#include "io/report.h"

#include <fmt/format.h>

#include <cstdio>
#include <iostream>

#include "io/text.h"

namespace msdt {

Diagnostics::Diagnostics(std::string tool) : Diagnostics(std::move(tool), std::cerr) {}

Diagnostics::Diagnostics(std::string tool, std::ostream& err) : tool_(std::move(tool)), err_(err) {}

void Diagnostics::print(std::string_view level, std::string_view file, const Error& error) {
  std::cout.flush();
  std::fflush(stdout);
  // The message may hold names from the input: nothing in it reaches the terminal raw.
  std::string what = printable_text(error.describe());
  std::string line =
      file.empty() ? fmt::format("{}: {}: {}\n", tool_, level, what)
                   : fmt::format("{}: {}: '{}': {}\n", tool_, level, printable_path(file), what);
  err_ << line;
  err_.flush();
}

void Diagnostics::error(std::string_view file, const Error& error) {
  std::lock_guard lock(mutex_);
  ++errors_;
  print("error", file, error);
}

void Diagnostics::error(const Error& error) { this->error({}, error); }

void Diagnostics::output_error(std::string_view file, const Error& error) {
  std::lock_guard lock(mutex_);
  ++errors_;
  output_failed_ = true;
  print("error", file, error);
}

void Diagnostics::warning(std::string_view file, const Error& error) {
  std::lock_guard lock(mutex_);
  std::string key = fmt::format("{}\n{}", file, error.describe());
  if (!warned_.insert(key).second) return;
  print("warning", file, error);
}

uint64_t Diagnostics::error_count() const {
  std::lock_guard lock(mutex_);
  return errors_;
}

int Diagnostics::exit_code() const {
  std::lock_guard lock(mutex_);
  if (output_failed_) return kExitOutput;
  return errors_ > 0 ? kExitBadInput : kExitOk;
}

namespace {

std::string printable(std::string_view path, bool escape_backslash) {
  std::string out;
  out.reserve(path.size());
  for (size_t i = 0; i < path.size();) {
    auto c = static_cast<unsigned char>(path[i]);
    size_t n = utf8_sequence_length(path, i);
    // C1 controls (U+0080..U+009F: C2 80..C2 9F) act as escapes on some terminals too.
    bool c1 = n == 2 && c == 0xC2 && static_cast<unsigned char>(path[i + 1]) < 0xA0;
    if (n == 0 || c < 0x20 || c == 0x7F || c1) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    } else if (c == '\\' && escape_backslash) {
      out += "\\\\";
      ++i;
    } else {
      out.append(path.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace

std::string printable_path(std::string_view path) { return printable(path, true); }

std::string printable_text(std::string_view text) { return printable(text, false); }

}  // namespace msdt
