// Parsing a tool's command line with CLI11 the same way in every tool: --help and --version print
// to standard output and exit 0 (3 when it cannot be written); a usage error is one line,
// "<tool>: error: <what>", and exit 2. Header-only: only tools, which link CLI11, include it.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>

#include "io/report.h"
#include "io/stdout.h"

namespace msdt {

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
