// dump-convert's worker pool path: a tree of every source kind (npy, 1.1/1.2 .bin, DumpData
// containers; built by mkfixture's generator) converted with -j4 must give exactly the files of a
// -j1 run, byte for byte, every .npy readable, no temporary left, and the same again when the run
// is repeated over its own outputs. CI runs this test under ThreadSanitizer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "dump/convert.h"
#include "io/mapped_file.h"
#include "io/output_file.h"
#include "support/mkfixture_runner.h"
#include "tensor/npy.h"

namespace msdt::dump {
namespace {

namespace fs = std::filesystem;

std::map<std::string, std::string> read_tree(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    files[entry.path().lexically_relative(root).generic_string()] = bytes.str();
  }
  return files;
}

class ConvertConcurrency : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    fs::path mkfixture = msdt::testing::mkfixture_program(why);
    if (mkfixture.empty()) GTEST_SKIP() << why;
    root_ = fs::temp_directory_path() / ("msdt-convert-concurrency-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    std::ofstream(root_ / "tree.json")
        << R"({ "kind": "generate", "seed": 7, "ranks": 2, "iterations": 3, "tensors": 600,
               "total_bytes": 6000000, "mix": { "npy": 2, "bin": 1, "ascend": 1 } })";
    std::string command;
    ASSERT_TRUE(
        msdt::testing::run_mkfixture(mkfixture, root_ / "tree.json", root_ / "in", "", command))
        << command;
  }
  void TearDown() override {
    if (!root_.empty()) fs::remove_all(root_);
  }

  int convert(const std::string& out, unsigned jobs) {
    ConvertArguments args;
    args.dump_file = (root_ / "in").string();
    args.output = (root_ / out).string();
    args.jobs = jobs;
    args.no_progress = true;
    auto options = resolve_convert_arguments(args);
    EXPECT_TRUE(options) << options.error().describe();
    if (!options) return -1;
    Diagnostics diagnostics("dump-convert", errors_);
    return run_convert(*options, diagnostics);
  }

  fs::path root_;
  std::ostringstream errors_;
};

TEST_F(ConvertConcurrency, FourWorkersWriteWhatOneWrites) {
  ASSERT_EQ(convert("one", 1), 0) << errors_.str();
  ASSERT_EQ(convert("four", 4), 0) << errors_.str();
  auto one = read_tree(root_ / "one");
  auto four = read_tree(root_ / "four");
  // Every source gives at least one output; containers give one per tensor.
  size_t sources = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root_ / "in"))
    sources += entry.is_regular_file() ? 1 : 0;
  EXPECT_GE(four.size(), sources / 2) << "sources: " << sources;
  ASSERT_EQ(one.size(), four.size());
  for (const auto& [name, bytes] : one) {
    auto found = four.find(name);
    ASSERT_NE(found, four.end()) << name;
    EXPECT_EQ(found->second, bytes) << name;
  }
  for (const auto& [name, bytes] : four) {
    EXPECT_FALSE(is_output_temporary(fs::path(name).filename().string())) << name;
    if (!name.ends_with(".npy")) continue;
    Bytes data(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
    auto header = parse_npy(data);
    EXPECT_TRUE(header) << name << ": " << header.error().describe();
  }
  // Again over its own outputs: every file replaced, nothing else changes.
  ASSERT_EQ(convert("four", 4), 0) << errors_.str();
  EXPECT_EQ(read_tree(root_ / "four"), four);
  EXPECT_EQ(errors_.str(), "");
}

}  // namespace
}  // namespace msdt::dump
