// Errors and results for everything that reads untrusted bytes.
//
// The library never prints or exits: it returns an Error, and each layer adds its context in front
// of the message. Only a tool adds the file name (see report.h). Messages start lower case and have
// no final period; they say what was expected and what was found.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace msdt {

struct Error {
  Error() = default;
  explicit Error(std::string what, std::optional<uint64_t> at_offset = std::nullopt,
                 std::optional<uint64_t> at_line = std::nullopt)
      : message(std::move(what)), offset(at_offset), line(at_line) {}

  std::string message;
  std::optional<uint64_t> offset;  // byte offset in a binary input
  std::optional<uint64_t> line;    // 1-based line in a text input

  static Error at_offset(uint64_t offset, std::string message);
  static Error at_line(uint64_t line, std::string message);

  // Puts `what` in front of the message; the location stays first:
  // "offset 0x2c: record 1: <message>".
  Error& context(std::string_view what);
  Error&& with_context(std::string_view what) &&;

  // "offset 0x2c: …", "line 3: …" or the bare message.
  std::string describe() const;
};

// A function that returns nothing but may fail.
using Status = std::optional<Error>;

// Ours until C++23 std::expected is available with every compiler we build with.
template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value)
      : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Expected(Error error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  Error& error() & { return std::get<1>(state_); }
  const Error& error() const& { return std::get<1>(state_); }
  Error&& error() && { return std::get<1>(std::move(state_)); }

 private:
  std::variant<T, Error> state_;
};

}  // namespace msdt

// MSDT_TRY(auto x, expr): evaluates expr (an Expected); on error returns the Error from the
// enclosing function (which returns Expected<U> or Status), else binds the value.
#define MSDT_TRY_CONCAT_INNER(a, b) a##b
#define MSDT_TRY_CONCAT(a, b) MSDT_TRY_CONCAT_INNER(a, b)
#define MSDT_TRY(decl, expr) MSDT_TRY_IMPL(MSDT_TRY_CONCAT(msdt_try_, __LINE__), decl, expr)
#define MSDT_TRY_IMPL(tmp, decl, expr)     \
  auto tmp = (expr);                       \
  if (!tmp) return std::move(tmp).error(); \
  decl = std::move(*tmp)

// MSDT_CHECK(status_expr): returns the Error of a failed Status.
#define MSDT_CHECK(expr)                                                       \
  do {                                                                         \
    if (auto msdt_check_status = (expr)) return std::move(*msdt_check_status); \
  } while (0)
