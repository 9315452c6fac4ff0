// mkfixture: builds test inputs (npy files, DumpData containers, dump trees) from a JSON
// description, like LLVM's yaml2obj (style.md §4.6). Format: README.md.
//
//   mkfixture DESCRIPTION -o OUT [-D NAME=value]... [--docnum N]
//
// DESCRIPTION is a JSON file, a golden .test file whose JSON follows a `--- mkfixture` line, or
// `-` for standard input. Any error is one line on stderr and exit status 1.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

#include "description.h"
#include "writers.h"

namespace {

using msdt::fixture::DescriptionError;

constexpr std::string_view kUsage =
    "usage: mkfixture DESCRIPTION -o OUT [-D NAME=value]... [--docnum N]";

std::string read_input(const std::string& name) {
  std::ostringstream text;
  if (name == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream in(name, std::ios::binary);
  if (!in) throw DescriptionError("cannot open '" + name + "'");
  text << in.rdbuf();
  return text.str();
}

// The N-th description after a `--- mkfixture` line, or the whole text when there is none.
// Lines before it become empty lines, so JSON error positions are lines of the original file.
std::string select_document(const std::string& text, int docnum) {
  std::vector<size_t> starts;  // offsets of the lines after each separator
  std::vector<size_t> separators;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    if (text.compare(pos, 13, "--- mkfixture") == 0) {
      separators.push_back(pos);
      starts.push_back(end < text.size() ? end + 1 : end);
    }
    pos = end + 1;
  }
  if (separators.empty()) {
    if (docnum != 1)
      throw DescriptionError("--docnum " + std::to_string(docnum) +
                             ": the input has one description");
    return text;
  }
  if (docnum < 1 || static_cast<size_t>(docnum) > separators.size())
    throw DescriptionError("--docnum " + std::to_string(docnum) + ": the input has " +
                           std::to_string(separators.size()) + " descriptions");
  size_t begin = starts[docnum - 1];
  size_t end = static_cast<size_t>(docnum) < separators.size() ? separators[docnum] : text.size();
  size_t skipped_lines = static_cast<size_t>(std::count(text.begin(), text.begin() + begin, '\n'));
  return std::string(skipped_lines, '\n') + text.substr(begin, end - begin);
}

bool is_placeholder_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// [[NAME]] and [[NAME=default]] placeholders, as in yaml2obj. NAME is an identifier, so JSON
// such as a complex value [[1, -2]] is left alone.
std::string substitute(const std::string& text, const std::map<std::string, std::string>& defines) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t open = text.find("[[", pos);
    if (open == std::string::npos) break;
    size_t close = text.find("]]", open + 2);
    if (close == std::string::npos) break;
    std::string inside = text.substr(open + 2, close - open - 2);
    size_t eq = inside.find('=');
    std::string name = inside.substr(0, eq);
    if (!is_placeholder_name(name)) {
      out += text.substr(pos, open + 2 - pos);
      pos = open + 2;
      continue;
    }
    out += text.substr(pos, open - pos);
    if (auto it = defines.find(name); it != defines.end()) {
      out += it->second;
    } else if (eq != std::string::npos) {
      out += inside.substr(eq + 1);
    } else {
      throw DescriptionError("placeholder [[" + name + "]] has no value; pass -D " + name + "=…");
    }
    pos = close + 2;
  }
  return out + text.substr(pos);
}

int run(int argc, char** argv) {
  std::string input, output;
  std::map<std::string, std::string> defines;
  int docnum = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const std::string& option) -> std::string {
      if (i + 1 >= argc) throw DescriptionError(option + " needs a value");
      return argv[++i];
    };
    if (arg == "-o") {
      output = value(arg);
    } else if (arg.starts_with("-D")) {
      std::string define = arg.size() > 2 ? arg.substr(2) : value(arg);
      size_t eq = define.find('=');
      if (eq == std::string::npos || eq == 0)
        throw DescriptionError("-D expects NAME=value, found '" + define + "'");
      defines[define.substr(0, eq)] = define.substr(eq + 1);
    } else if (arg == "--docnum") {
      std::string v = value(arg);
      docnum = std::atoi(v.c_str());
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage << "\n";
      return 0;
    } else if (arg.size() > 1 && arg[0] == '-') {
      throw DescriptionError("unknown option '" + arg + "'; " + std::string(kUsage));
    } else if (input.empty()) {
      input = arg;
    } else {
      throw DescriptionError("more than one DESCRIPTION; " + std::string(kUsage));
    }
  }
  if (input.empty() || output.empty()) throw DescriptionError(std::string(kUsage));

  std::string text = substitute(select_document(read_input(input), docnum), defines);
  msdt::fixture::json description;
  try {
    description = msdt::fixture::json::parse(text, nullptr, true, /*ignore_comments=*/true);
  } catch (const msdt::fixture::json::parse_error& e) {
    throw DescriptionError("'" + input + "': " + e.what());
  }
  msdt::fixture::Node root(description, "");
  std::string kind = root.at("kind").string();
  if (kind == "tree")
    msdt::fixture::write_tree(root, output);
  else if (kind == "file")
    msdt::fixture::write_single_file(root, output);
  else if (kind == "generate")
    msdt::fixture::write_generated(root, output);
  else if (kind == "generate_ckpt")
    msdt::fixture::write_generated_checkpoint(root, output);
  else
    root.at("kind").fail(
        "expected \"tree\", \"file\", \"generate\" or \"generate_ckpt\", found \"" + kind + "\"");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "mkfixture: error: " << e.what() << "\n";
    return 1;
  }
}
