// Parsing a tool's command line with CLI11 the same way in every tool: --help and --version print
// to standard output and exit 0 (3 when it cannot be written); a usage error is one line,
// "<tool>: error: <what>", and exit 2. Header-only: only tools, which link CLI11, include it.
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include "io/report.h"
#include "io/stdout.h"

namespace msdt {

// The accepted range [min, max] of a numeric option, as a CLI11 validator:
// `->transform(in_range<T>(min, max))` on every numeric option of every tool, so that a negative
// count, NaN, an infinity or a value past what T holds is a usage error (exit 2) that says what
// is accepted: "--top: '0' is out of range: expected a whole number in [1, 10000]". Whole numbers
// are plain decimals (an optional sign, digits: no octal "010" = 8 or hex "0x10" as CLI11 alone
// reads them); numbers are decimal floating point as std::from_chars reads them ("0.5", "1e-3").
// The validator respells the value it checked, so what CLI11 then converts is that value: hence
// transform(), which may change the text, and not check(), which may not.
template <class T>
CLI::Validator in_range(T min, T max) {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>);
  auto spelled = [](T v) {
    if constexpr (std::is_floating_point_v<T>) return fmt::format("{}", v);
    return std::to_string(v);
  };
  std::string range =
      fmt::format("{} in [{}, {}]", std::is_integral_v<T> ? "a whole number" : "a number",
                  spelled(min), spelled(max));
  return CLI::Validator(
      [min, max, range, spelled](std::string& input) -> std::string {
        std::string_view text = input;
        if (text.starts_with('+')) text.remove_prefix(1);
        T value{};
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        bool whole = !text.empty() && end == text.data() + text.size();
        if (!whole || ec == std::errc::invalid_argument || text.starts_with('+') ||
            text.starts_with('-') != input.starts_with('-'))
          return fmt::format("expected {}, not '{}'", range, input);
        if (ec == std::errc::result_out_of_range)
          return fmt::format("'{}' is out of range: expected {}", input, range);
        if constexpr (std::is_floating_point_v<T>)
          if (std::isnan(value)) return fmt::format("expected {}, not '{}'", range, input);
        if (value < min || value > max)
          return fmt::format("'{}' is out of range: expected {}", input, range);
        input = spelled(value);
        return std::string();
      },
      range);
}

// Whole numbers from `min` to the largest T holds.
template <class T>
CLI::Validator at_least(T min) {
  return in_range<T>(min, std::numeric_limits<T>::max());
}

// A value that must not be empty (a list such as --iteration '' would otherwise select nothing
// or everything, silently).
inline CLI::Validator non_empty() {
  return CLI::Validator(
      [](std::string& input) -> std::string {
        return input.empty() ? std::string("expected a value, not an empty string") : std::string();
      },
      "not empty");
}

// Parses argv into `app`, then runs `check` (which may throw CLI errors for rules CLI11 cannot
// express). Returns nullopt when the tool should go on, else the exit status to return.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, const char* const* argv,
                                             Diagnostics& diagnostics,
                                             const std::function<void()>& check = {}) {
  try {
    app.parse(argc, argv);
    if (check) check();
  } catch (const CLI::Success& success) {
    app.exit(success);
    return finish_stdout(diagnostics);
  } catch (const CLI::ParseError& error) {
    // CLI11's text may quote the user's arguments: printable_path escapes their control bytes.
    diagnostics.error(Error(printable_path(error.what())));
    return kExitUsage;
  }
  return std::nullopt;
}

}  // namespace msdt
