// How tools talk to the user about problems: one line per problem on stderr,
// "<tool>: error: '<file>': offset 0x2c: <what>", and an exit status that says whether any input
// was bad. Shared by every tool so they all read the same.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "io/error.h"

namespace msdt {

// Documented exit codes of every tool.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;  // some input was bad; the rest was still processed
inline constexpr int kExitUsage = 2;     // the command line was wrong
inline constexpr int kExitOutput = 3;    // an output could not be written

class Diagnostics {
 public:
  explicit Diagnostics(std::string tool);
  Diagnostics(std::string tool, std::ostream& err);

  // Flushes stdout first so the line lands after the output it follows. Safe from many threads
  // as far as stderr goes, but the flush races with a thread writing std::cout: workers collect
  // their problems (dump::DeferredDiagnostics) and the thread that writes the output reports them.
  void error(std::string_view file, const Error& error);
  void error(const Error& error);
  // Output failures: the exit status becomes kExitOutput.
  void output_error(std::string_view file, const Error& error);
  // A warning is printed once however often it recurs.
  void warning(std::string_view file, const Error& error);

  uint64_t error_count() const;
  int exit_code() const;

 private:
  void print(std::string_view level, std::string_view file, const Error& error);

  std::string tool_;
  std::ostream& err_;
  mutable std::mutex mutex_;
  std::set<std::string> warned_;
  uint64_t errors_ = 0;
  bool output_failed_ = false;
};

// Quotes a path for a message the way the rest of the line can still be split on spaces:
// bytes that are not printable UTF-8 (invalid bytes, C0 and C1 controls, DEL) appear as \xNN and
// a backslash as \\. Also the spelling of cells in the aligned text for terminals (table/sink.h).
std::string printable_path(std::string_view path);

// `text` safe on a terminal, for the messages of Diagnostics (every error and warning goes
// through it, whatever names the message holds): the same \xNN for bytes that are not printable
// UTF-8 (ESC, NUL, CR, ...), but a backslash stays one, so that a name a message quoted already
// (quote_for_message's \xNN) reads the same.
std::string printable_text(std::string_view text);

}  // namespace msdt
