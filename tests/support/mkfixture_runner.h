// Running the built mkfixture from a unit test: under ctest, MSDT_BINARY_DIR names the build.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace msdt::testing {

// The mkfixture program, or an empty path and `why` the test has to skip.
inline std::filesystem::path mkfixture_program(std::string& why) {
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

}  // namespace msdt::testing
