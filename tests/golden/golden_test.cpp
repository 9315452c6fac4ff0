// Runs one golden test file (style.md §4.7; format in tests/golden/README.md): the RUN lines in
// order through /bin/sh, then an exact comparison of the concatenated stdout and stderr and of
// the last exit code with the expectations written in the file.
//
//   golden_test FILE.test
//
// Exit status: 0 pass, 1 fail, 77 skipped (a REQUIRES feature is missing; ctest's
// SKIP_RETURN_CODE), 2 usage.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "golden_path.h"  // MSDT_GOLDEN_PATH: the build directories of the tools

namespace fs = std::filesystem;

namespace {

std::string g_test_file;
bool g_skipped = false;

// A whole test can take at most this long; RUN lines share it (override: MSDT_GOLDEN_TIMEOUT).
constexpr int kDefaultTimeoutSeconds = 60;

struct RunLine {
  int line_number = 0;
  std::string command;
};

struct TestFile {
  std::vector<RunLine> runs;
  std::vector<std::string> requires_features;
  int expected_exit = 0;
  std::optional<std::vector<std::string>> stdout_lines;  // nullopt: must be empty
  std::optional<std::vector<std::string>> stderr_lines;
  bool ignore_stdout = false;
};

std::string read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_whole(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::string trim(std::string s) {
  auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

// Parses the directives; throws std::runtime_error("line N: …") on a malformed file, so that a
// typo in a directive fails the test instead of silently checking less.
TestFile parse_test_file(const std::string& text) {
  TestFile test;
  std::vector<std::string>* block = nullptr;  // the STDOUT/STDERR block being filled
  bool exit_seen = false;
  bool continuing = false;  // the previous RUN line ended with a backslash
  std::istringstream in(text);
  std::string line;
  int number = 0;
  auto fail = [&](const std::string& why) {
    throw std::runtime_error("line " + std::to_string(number) + ": " + why);
  };
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (starts_with(line, "--- mkfixture")) break;
    if (continuing) {
      if (!starts_with(line, "# RUN:")) fail("expected a '# RUN:' line to continue the command");
      std::string more = trim(line.substr(6));
      continuing = !more.empty() && more.back() == '\\';
      if (continuing) more.pop_back();
      test.runs.back().command += " " + more;
      continue;
    }
    if (trim(line).empty() || starts_with(line, "##")) {
      block = nullptr;
      continue;
    }
    if (line[0] != '#') fail("expected a '#' line before '--- mkfixture', found '" + line + "'");
    // Directives are recognised by name only, so that block lines may contain colons.
    std::string body = line.size() > 1 && line[1] == ' ' ? line.substr(2) : line.substr(1);
    auto directive = [&](std::string_view name) {
      return starts_with(body, name) &&
             (body.size() == name.size() || body[name.size()] == ':' || name.back() == ':');
    };
    if (directive("RUN:")) {
      block = nullptr;
      std::string command = trim(body.substr(4));
      continuing = !command.empty() && command.back() == '\\';
      if (continuing) command.pop_back();
      if (trim(command).empty() && !continuing) fail("empty RUN line");
      test.runs.push_back({number, command});
    } else if (directive("REQUIRES:")) {
      block = nullptr;
      std::istringstream features(body.substr(9));
      std::string feature;
      while (std::getline(features, feature, ',')) {
        feature = trim(feature);
        if (feature.empty()) continue;
        if (feature != "numpy" && feature != "shared" && feature != "dot")
          fail("unknown REQUIRES feature '" + feature + "' (known: numpy, shared, dot)");
        test.requires_features.push_back(feature);
      }
    } else if (directive("EXIT:")) {
      block = nullptr;
      if (exit_seen) fail("more than one EXIT line");
      exit_seen = true;
      std::string value = trim(body.substr(5));
      char* end = nullptr;
      long code = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || code < 0 || code > 255)
        fail("expected an exit code 0-255 after EXIT:, found '" + value + "'");
      test.expected_exit = static_cast<int>(code);
    } else if (body == "STDOUT:") {
      if (test.stdout_lines) fail("more than one STDOUT block");
      test.stdout_lines.emplace();
      block = &*test.stdout_lines;
    } else if (body == "STDERR:") {
      if (test.stderr_lines) fail("more than one STDERR block");
      test.stderr_lines.emplace();
      block = &*test.stderr_lines;
    } else if (body == "STDOUT-IGNORE") {
      block = nullptr;
      test.ignore_stdout = true;
    } else if (block != nullptr) {
      // "# text" is the line "text"; a bare "#" is an empty line.
      block->push_back(line.size() == 1 ? std::string() : body);
    } else {
      fail("unknown directive '" + line +
           "' (known: RUN, REQUIRES, EXIT, STDOUT, STDERR, STDOUT-IGNORE)");
    }
  }
  if (continuing) fail("the last RUN line ends with a backslash");
  if (test.runs.empty()) throw std::runtime_error("no RUN lines");
  if (test.ignore_stdout && test.stdout_lines)
    throw std::runtime_error("STDOUT-IGNORE and a STDOUT block cannot both be given");
  return test;
}

struct Substitutions {
  std::string s, t, T, S, shared;
};

// %s %t %T %S %shared %% (longest name first); any other '%' stays as written.
std::string substitute(const std::string& text, const Substitutions& subs) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    std::string_view rest(text.data() + i + 1, text.size() - i - 1);
    if (rest.starts_with("shared")) {
      out += subs.shared;
      i += 6;
    } else if (rest[0] == 's') {
      out += subs.s, ++i;
    } else if (rest[0] == 't') {
      out += subs.t, ++i;
    } else if (rest[0] == 'T') {
      out += subs.T, ++i;
    } else if (rest[0] == 'S') {
      out += subs.S, ++i;
    } else if (rest[0] == '%') {
      out += '%', ++i;
    } else {
      out += '%';
    }
  }
  return out;
}

// `{{anything}}` in an expected line matches any text within that line; the rest is literal.
bool line_matches(const std::string& expected, const std::string& actual) {
  std::vector<std::string> literals;
  size_t pos = 0;
  while (true) {
    size_t open = expected.find("{{", pos);
    size_t close = open == std::string::npos ? std::string::npos : expected.find("}}", open + 2);
    if (close == std::string::npos) {
      literals.push_back(expected.substr(pos));
      break;
    }
    literals.push_back(expected.substr(pos, open - pos));
    pos = close + 2;
  }
  if (literals.size() == 1) return expected == actual;
  const std::string& head = literals.front();
  const std::string& tail = literals.back();
  if (actual.size() < head.size() + tail.size()) return false;
  if (actual.compare(0, head.size(), head) != 0) return false;
  if (actual.compare(actual.size() - tail.size(), tail.size(), tail) != 0) return false;
  // With only match-anything wildcards, taking each middle literal at its leftmost position is
  // optimal, so no backtracking is needed.
  size_t at = head.size();
  size_t limit = actual.size() - tail.size();
  for (size_t i = 1; i + 1 < literals.size(); ++i) {
    size_t found = actual.find(literals[i], at);
    if (found == std::string::npos || found + literals[i].size() > limit) return false;
    at = found + literals[i].size();
  }
  return true;
}

std::vector<std::string> split_lines(const std::string& text, bool* ends_with_newline) {
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {
      lines.push_back(text.substr(pos));
      break;
    }
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  *ends_with_newline = text.empty() || text.back() == '\n';
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::string run_diff(const fs::path& dir, const std::string& name, const std::string& expected,
                     const std::string& actual) {
  fs::path expected_file = dir / (name + ".expected");
  fs::path actual_file = dir / (name + ".actual");
  write_whole(expected_file, expected);
  write_whole(actual_file, actual);
  fs::path diff_file = dir / (name + ".diff");
  std::string command = "diff -u --label expected --label actual '" + expected_file.string() +
                        "' '" + actual_file.string() + "' > '" + diff_file.string() + "' 2>&1";
  (void)std::system(command.c_str());
  return read_whole(diff_file);
}

// Compares an output stream with its block; returns a diff (empty when they agree). Lines that
// matched through a wildcard are shown as the actual text, so the diff shows only real mismatches.
std::string compare_stream(const fs::path& dir, const std::string& name,
                           const std::vector<std::string>& expected_lines,
                           const std::string& actual, const Substitutions& subs) {
  std::vector<std::string> expected;
  for (const auto& l : expected_lines) expected.push_back(substitute(l, subs));
  bool ends_with_newline = true;
  std::vector<std::string> actual_lines = split_lines(actual, &ends_with_newline);
  bool same = ends_with_newline && expected.size() == actual_lines.size();
  std::vector<std::string> shown = expected;
  for (size_t i = 0; i < expected.size() && i < actual_lines.size(); ++i) {
    if (line_matches(expected[i], actual_lines[i]))
      shown[i] = actual_lines[i];
    else
      same = false;
  }
  if (same) return "";
  std::string diff = run_diff(dir, name, join_lines(shown), actual);
  if (!ends_with_newline) diff += "(the actual " + name + " does not end with a newline)\n";
  return diff.empty() ? "(outputs differ)\n" : diff;
}

struct RunResult {
  int exit_code = -1;
  bool timed_out = false;
  std::string error;  // the runner itself failed
};

// /bin/sh -c COMMAND under coreutils `timeout`, in `cwd`, stdin from /dev/null, appending to the
// two capture files.
RunResult run_command(const std::string& command, const fs::path& cwd, int out_fd, int err_fd,
                      int seconds) {
  RunResult result;
  std::string limit = std::to_string(seconds < 1 ? 1 : seconds);
  pid_t pid = fork();
  if (pid < 0) {
    result.error = std::string("fork failed: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0 ||
        chdir(cwd.c_str()) != 0)
      _exit(126);
    execlp("timeout", "timeout", "--kill-after=5", limit.c_str(), "/bin/sh", "-c", command.c_str(),
           static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      result.error = std::string("waitpid failed: ") + std::strerror(errno);
      return result;
    }
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
    result.timed_out = result.exit_code == 124 || result.exit_code == 137;
  } else {
    result.exit_code = 128 + WTERMSIG(status);
  }
  return result;
}

bool feature_available(const std::string& feature, std::string* reason) {
  if (feature == "numpy") {
    *reason = "/usr/bin/python3 with numpy is not available";
    return std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0;
  }
  if (feature == "shared") {
    const char* dir = std::getenv("MSDT_SHARED_DIR");
    *reason = "MSDT_SHARED_DIR is not set or is not a directory";
    std::error_code ec;
    return dir != nullptr && *dir != '\0' && fs::is_directory(dir, ec);
  }
  if (feature == "dot") {
    *reason = "graphviz 'dot' is not on PATH";
    return std::system("command -v dot >/dev/null 2>&1") == 0;
  }
  *reason = "unknown feature " + feature;
  return false;
}

// Unreadable files and directories (`"mode": "0000"` fixtures) would stop remove_all.
void remove_tree(const fs::path& dir) {
  std::string command = "chmod -R u+rwX '" + dir.string() + "' 2>/dev/null";
  (void)std::system(command.c_str());
  std::error_code ec;
  fs::remove_all(dir, ec);
}

int timeout_seconds() {
  const char* value = std::getenv("MSDT_GOLDEN_TIMEOUT");
  if (value != nullptr && std::atoi(value) > 0) return std::atoi(value);
  return kDefaultTimeoutSeconds;
}

TEST(Golden, Run) {
  ASSERT_FALSE(g_test_file.empty());
  const fs::path test_path = fs::absolute(g_test_file);
  ASSERT_TRUE(fs::is_regular_file(test_path)) << "no such test file: " << test_path;

  TestFile test;
  try {
    test = parse_test_file(read_whole(test_path));
  } catch (const std::exception& e) {
    FAIL() << test_path.string() << ": " << e.what();
  }
  for (const auto& feature : test.requires_features) {
    std::string reason;
    if (!feature_available(feature, &reason)) {
      g_skipped = true;
      GTEST_SKIP() << "REQUIRES: " << feature << ": " << reason;
    }
  }

  const char* tmp_root = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp_root != nullptr && *tmp_root ? tmp_root : "/tmp") +
                        "/golden-" + test_path.stem().string() + ".XXXXXX";
  std::vector<char> pattern_buffer(pattern.begin(), pattern.end());
  pattern_buffer.push_back('\0');
  ASSERT_NE(mkdtemp(pattern_buffer.data()), nullptr) << "mkdtemp: " << std::strerror(errno);
  const fs::path scratch = pattern_buffer.data();
  const fs::path work = scratch / "work";  // %T and the working directory of the RUN lines
  fs::create_directory(work);

  Substitutions subs;
  subs.s = test_path.string();
  subs.T = work.string();
  subs.t = (work / (test_path.stem().string() + ".tmp")).string();
  subs.S = test_path.parent_path().string();
  const char* shared = std::getenv("MSDT_SHARED_DIR");
  subs.shared = shared != nullptr ? shared : "";

  setenv("LC_ALL", "C", 1);
  setenv("TZ", "UTC", 1);
  std::string tool_path = MSDT_GOLDEN_PATH;
  if (!tool_path.empty()) {
    const char* path = std::getenv("PATH");
    setenv("PATH", (tool_path + ":" + (path != nullptr ? path : "/usr/bin:/bin")).c_str(), 1);
  }

  const fs::path stdout_file = scratch / "stdout";
  const fs::path stderr_file = scratch / "stderr";
  int out_fd = open(stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  int err_fd = open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  ASSERT_GE(out_fd, 0);
  ASSERT_GE(err_fd, 0);

  std::ostringstream report;
  bool passed = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds());
  for (size_t i = 0; i < test.runs.size(); ++i) {
    const RunLine& run = test.runs[i];
    std::string command = substitute(run.command, subs);
    auto left = std::chrono::duration_cast<std::chrono::seconds>(deadline -
                                                                 std::chrono::steady_clock::now());
    RunResult result = run_command(command, work, out_fd, err_fd, static_cast<int>(left.count()));
    bool last = i + 1 == test.runs.size();
    int wanted = last ? test.expected_exit : 0;
    if (!result.error.empty() || result.timed_out || result.exit_code != wanted) {
      passed = false;
      report << "RUN at line " << run.line_number << ": " << command << "\n";
      if (!result.error.empty())
        report << "  runner error: " << result.error << "\n";
      else if (result.timed_out)
        report << "  timed out (the whole test may take " << timeout_seconds() << " s)\n";
      else
        report << "  exit code " << result.exit_code << ", expected " << wanted << "\n";
      if (!last) break;  // the rest would run on a broken state
    }
  }
  close(out_fd);
  close(err_fd);

  std::string actual_stdout = read_whole(stdout_file);
  std::string actual_stderr = read_whole(stderr_file);
  if (!test.ignore_stdout) {
    std::string diff =
        compare_stream(scratch, "stdout", test.stdout_lines.value_or(std::vector<std::string>{}),
                       actual_stdout, subs);
    if (!diff.empty()) {
      passed = false;
      report << "stdout differs:\n" << diff;
    }
  }
  std::string diff =
      compare_stream(scratch, "stderr", test.stderr_lines.value_or(std::vector<std::string>{}),
                     actual_stderr, subs);
  if (!diff.empty()) {
    passed = false;
    report << "stderr differs:\n" << diff;
  }

  const char* keep = std::getenv("MSDT_GOLDEN_KEEP");
  if (passed && (keep == nullptr || *keep == '\0')) {
    remove_tree(scratch);
  } else {
    report << "(temporary files kept in " << scratch.string() << ")\n";
  }
  if (!passed) {
    // The whole outputs help when the diff alone does not explain a wrong exit code.
    if (report.str().find("differs") == std::string::npos) {
      report << "stdout:\n" << actual_stdout << "stderr:\n" << actual_stderr;
    }
    ADD_FAILURE() << test_path.string() << "\n" << report.str();
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    std::cerr << "usage: golden_test [gtest options] FILE.test\n";
    return 2;
  }
  g_test_file = argv[1];
  int status = RUN_ALL_TESTS();
  if (status == 0 && g_skipped) return 77;
  return status;
}
