#include "io/error.h"

#include <fmt/format.h>

namespace msdt {

Error Error::at_offset(uint64_t offset, std::string message) {
  return Error(std::move(message), offset);
}

Error Error::at_line(uint64_t line, std::string message) {
  return Error(std::move(message), std::nullopt, line);
}

Error& Error::context(std::string_view what) {
  message = fmt::format("{}: {}", what, message);
  return *this;
}

Error&& Error::with_context(std::string_view what) && {
  context(what);
  return std::move(*this);
}

std::string Error::describe() const {
  if (offset) return fmt::format("offset {:#x}: {}", *offset, message);
  if (line) return fmt::format("line {}: {}", *line, message);
  return message;
}

}  // namespace msdt
