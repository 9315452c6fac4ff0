// watch-check's worker pool: a tree of every source kind (npy, 1.1/1.2 .bin, DumpData containers;
// the same tensors in every iteration, with the history file; built by mkfixture's generator)
// checked with four workers must give exactly the records of one worker, in the same order, with
// statistics, ranges and previous-iteration comparisons all exercised. CI runs this test under
// ThreadSanitizer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/mkfixture_runner.h"
#include "table/sink.h"
#include "watch/check.h"
#include "watch/report.h"

namespace msdt::watch {
namespace {

namespace fs = std::filesystem;

class CheckConcurrency : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    fs::path mkfixture = msdt::testing::mkfixture_program(why);
    if (mkfixture.empty()) GTEST_SKIP() << why;
    root_ = fs::temp_directory_path() / ("msdt-watch-concurrency-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    std::ofstream(root_ / "tree.json")
        << R"({ "kind": "generate", "seed": 7, "ranks": 2, "iterations": 3, "tensors": 600,
               "total_bytes": 6000000, "mix": { "npy": 2, "bin": 1, "ascend": 1 },
               "steps": true, "history": true })";
    std::string command;
    ASSERT_TRUE(
        msdt::testing::run_mkfixture(mkfixture, root_ / "tree.json", root_ / "in", "", command))
        << command;
  }
  void TearDown() override {
    if (!root_.empty()) fs::remove_all(root_);
  }

  // Every record (--all) as JSON Lines, and the diagnostics.
  std::string check(unsigned jobs, std::string& errors) {
    auto watchpoints = parse_watch_file(R"({"watchpoints": [
      {"condition": "TO"},
      {"condition": "TL", "params": {"abs_mean_gt": 0.4, "max_gt": 0.99}},
      {"condition": "TR", "params": {"range_start_inclusive": -0.5, "range_end_inclusive": 0.5,
                                     "range_percentage_lt": 60}},
      {"condition": "SD_GT", "params": {"param": 0.5}},
      {"condition": "WCL", "params": {"abs_mean_update_ratio_gt": 1.2}},
      {"condition": "WNC"}]})");
    EXPECT_TRUE(watchpoints) << watchpoints.error().describe();
    if (!watchpoints) return {};
    CheckOptions options;
    options.roots = {(root_ / "in").string()};
    options.watchpoints = std::move(*watchpoints);
    options.jobs = jobs;
    options.all_records = true;
    std::ostringstream out, err;
    auto sink = table::make_sink(table::Format::Json, record_schema(), false, out);
    Tally tally(sink.get(), 0, true, true, 65500);
    Diagnostics diagnostics("watch-check", err);
    run_check(options, tally, diagnostics);
    sink->finish();
    errors = err.str();
    return out.str();
  }

  fs::path root_;
};

TEST_F(CheckConcurrency, FourWorkersGiveTheRecordsOfOne) {
  std::string errors_one, errors_four;
  std::string one = check(1, errors_one);
  std::string four = check(4, errors_four);
  EXPECT_EQ(errors_one, "");
  EXPECT_EQ(errors_four, "");
  // 600 tensors (containers hold one each) under six watchpoints, every record kept.
  size_t lines = 0;
  for (char c : one) lines += c == '\n';
  EXPECT_EQ(lines, 600u * 6u);
  // The change conditions found previous values from iteration 1 on.
  EXPECT_NE(one.find("\"condition\": \"weight_change_too_large\", \"condition_id\": 18, "
                     "\"hit\": true"),
            std::string::npos);
  EXPECT_EQ(one, four);
}

}  // namespace
}  // namespace msdt::watch
