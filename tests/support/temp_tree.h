// A test fixture that owns a fresh directory per test (removed afterwards) and writes files into
// it: the trees that the pairing, comparison and detail tests build by hand.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

namespace msdt::testing {

class TempTreeTest : public ::testing::Test {
 protected:
  // `prefix` starts the directory's name, followed by the process id and the test's name.
  explicit TempTreeTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            (prefix_ + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  std::filesystem::path path(const std::string& relative) const { return root_ / relative; }
  std::string input(const std::string& relative) const { return path(relative).string(); }

  // Writes `bytes` to the file `relative`, creating its directories.
  void write(const std::string& relative, const std::string& bytes) const {
    std::filesystem::path p = path(relative);
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
  }

  std::filesystem::path root_;

 private:
  std::string prefix_;
};

}  // namespace msdt::testing
