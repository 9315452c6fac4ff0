// Running the built mkfixture from a unit test: under ctest, MSDT_BINARY_DIR names the build.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace msdt::testing {

// The mkfixture program, or an empty path and `why` the test has to skip. MSDT_MKFIXTURE, when
// set, names it: the ThreadSanitizer build (scripts/test) generates its fixtures with the
// mkfixture of the plain build instead of building its own.
inline std::filesystem::path mkfixture_program(std::string& why) {
  if (const char* given = std::getenv("MSDT_MKFIXTURE"); given && *given) {
    std::filesystem::path program = given;
    if (!std::filesystem::exists(program)) {
      why = "MSDT_MKFIXTURE names no file: " + program.string();
      return {};
    }
    return program;
  }
  const char* binary_dir = std::getenv("MSDT_BINARY_DIR");
  if (!binary_dir) {
    why = "MSDT_BINARY_DIR is not set (run under ctest)";
    return {};
  }
  std::filesystem::path program = std::filesystem::path(binary_dir) / "tests/mkfixture/mkfixture";
  if (!std::filesystem::exists(program)) {
    why = "build mkfixture first: " + program.string();
    return {};
  }
  return program;
}

// `mkfixture DESCRIPTION -o OUT EXTRA > /dev/null`; the command line, for a failing assertion, in
// `command`. True when it succeeded.
inline bool run_mkfixture(const std::filesystem::path& program,
                          const std::filesystem::path& description,
                          const std::filesystem::path& out, const std::string& extra,
                          std::string& command) {
  command = program.string() + " " + description.string() + " -o " + out.string() +
            (extra.empty() ? "" : " " + extra) + " > /dev/null";
  return std::system(command.c_str()) == 0;
}

// tests/mkfixture/examples of the source tree, or an empty path and `why` the test has to skip.
inline std::filesystem::path mkfixture_examples(std::string& why) {
  const char* source_dir = std::getenv("MSDT_SOURCE_DIR");
  if (!source_dir) {
    why = "MSDT_SOURCE_DIR is not set (run under ctest)";
    return {};
  }
  return std::filesystem::path(source_dir) / "tests/mkfixture/examples";
}

// A whole file's bytes.
inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// What mkfixture writes for `description` (with `extra` options), read back from a temporary
// file that is then removed. False, with the command line in `command`, when it failed.
inline bool mkfixture_output(const std::filesystem::path& program,
                             const std::filesystem::path& description, const std::string& extra,
                             std::string& bytes, std::string& command) {
  static int serial = 0;
  std::filesystem::path out = std::filesystem::temp_directory_path() /
                              ("msdt-mkfixture-" + std::to_string(::getpid()) + "-" +
                               std::to_string(++serial) + "-" + description.filename().string());
  bool ok = run_mkfixture(program, description, out, extra, command);
  if (ok) bytes = read_bytes(out);
  std::filesystem::remove(out);
  return ok;
}

}  // namespace msdt::testing
