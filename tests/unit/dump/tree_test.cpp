// Layout detection from directory names (dump spec §2) and the walk's order, grouping and
// mapping.csv resolution.
#include "dump/tree.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace msdt::dump {
namespace {

namespace fs = std::filesystem;

DumpLocation locate_path(std::initializer_list<std::string> dirs) {
  std::vector<std::string> names(dirs);
  return locate(names);
}

TEST(Locate, RankLayoutGivesRankNetGraphIteration) {
  auto where = locate_path({"data", "dump", "rank_3", "Net", "1", "42"});
  EXPECT_EQ(where.layout, "rank");
  EXPECT_EQ(where.rank, 3u);
  EXPECT_EQ(where.net, "Net");
  EXPECT_EQ(where.graph, 1u);
  EXPECT_EQ(where.iteration, 42u);
  EXPECT_FALSE(where.constants);
}

TEST(Locate, RankLayoutConstantsHaveNoIteration) {
  auto where = locate_path({"rank_0", "Net", "0", "constants"});
  EXPECT_EQ(where.layout, "rank");
  EXPECT_TRUE(where.constants);
  EXPECT_EQ(where.graph, 0u);
  EXPECT_FALSE(where.iteration.has_value());
}

TEST(Locate, InitDirectoryIsIterationUint32Max) {
  auto where = locate_path({"rank_0", "Net", "0", "init"});
  EXPECT_EQ(where.layout, "rank");
  EXPECT_EQ(where.iteration, 4294967295u);
  EXPECT_FALSE(where.constants);
}

TEST(Locate, RankSideDirectoriesGiveOnlyTheRank) {
  for (const char* side : {"execution_order", "graphs", ".dump_metadata"}) {
    auto where = locate_path({"x", "rank_2", side});
    EXPECT_EQ(where.layout, "rank") << side;
    EXPECT_EQ(where.rank, 2u) << side;
    EXPECT_TRUE(where.net.empty()) << side;
    EXPECT_FALSE(where.iteration.has_value()) << side;
  }
}

TEST(Locate, OfflineDebuggerDebugFiles) {
  auto where = locate_path({"rank_1", "debug_files", "7"});
  EXPECT_EQ(where.rank, 1u);
  EXPECT_EQ(where.iteration, 7u);
}

TEST(Locate, LegacySyncWithDevice) {
  auto where = locate_path({"gpu_dumps", "alexnet", "device_0", "iteration_2"});
  EXPECT_EQ(where.layout, "sync-1.1");
  EXPECT_EQ(where.rank, 0u);
  EXPECT_EQ(where.net, "alexnet");
  EXPECT_EQ(where.iteration, 2u);
  EXPECT_FALSE(where.graph.has_value());
}

TEST(Locate, LegacySyncOnCpuHasNoDeviceLevel) {
  auto where = locate_path({"dump", "Net", "iteration_5"});
  EXPECT_EQ(where.layout, "sync-1.1");
  EXPECT_FALSE(where.rank.has_value());
  EXPECT_EQ(where.net, "Net");
  EXPECT_EQ(where.iteration, 5u);
}

TEST(Locate, LegacyAsync) {
  auto where = locate_path({"dump", "device_1", "Net_graph_2", "2", "9"});
  EXPECT_EQ(where.layout, "async-1.1");
  EXPECT_EQ(where.rank, 1u);
  EXPECT_EQ(where.net, "Net");
  EXPECT_EQ(where.graph, 2u);
  EXPECT_EQ(where.iteration, 9u);
}

TEST(Locate, LegacyAsyncNeedsMatchingGraphSuffix) {
  auto where = locate_path({"dump", "device_1", "Net_graph_3", "2", "9"});
  EXPECT_NE(where.layout, "async-1.1");
}

TEST(Locate, AscendO2TimeDirectory) {
  auto where = locate_path({"dump", "1", "20240501120000", "4", "Model", "7", "3"});
  EXPECT_EQ(where.layout, "o2");
  EXPECT_EQ(where.rank, 4u);
  EXPECT_EQ(where.net, "Model");
  EXPECT_EQ(where.graph, 7u);
  EXPECT_EQ(where.iteration, 3u);
}

TEST(Locate, O2NeedsFourteenDigitTime) {
  auto where = locate_path({"2024050112", "4", "Model", "7", "3"});
  EXPECT_NE(where.layout, "o2");
}

TEST(Locate, Msprobe) {
  auto where = locate_path({"out", "rank_5", "1735011096", "step_12"});
  EXPECT_EQ(where.layout, "msprobe");
  EXPECT_EQ(where.rank, 5u);
  EXPECT_EQ(where.iteration, 12u);
}

TEST(Locate, UnknownLayoutIsEmpty) {
  auto where = locate_path({"home", "user", "tensors"});
  EXPECT_EQ(where.layout, "");
  EXPECT_FALSE(where.rank.has_value());
  EXPECT_FALSE(where.iteration.has_value());
}

TEST(Locate, HugeNumbersAreNotLayouts) {
  auto where = locate_path({"rank_99999999999999999999", "Net", "0", "0"});
  EXPECT_NE(where.layout, "rank");
}

// Every level a layout names has the depth of the directory that spells it (0: the directory
// holding the files), and a layout has the depths of its levels even where a name gave no value.
TEST(Locate, DepthsPointAtTheDirectoriesThatNameTheLevels) {
  const std::vector<std::vector<std::string>> paths{
      {"data", "rank_3", "Net", "1", "42"},
      {"rank_1", "debug_files", "7"},
      {"x", "rank_2", "execution_order"},
      {"gpu_dumps", "alexnet", "device_0", "iteration_2"},
      {"dump", "Net", "iteration_5"},
      {"alexnet", "device_6", "graphs"},
      {"dump", "device_1", "Net_graph_2", "2", "9"},
      {"dump", "1", "20240501120000", "4", "Model", "7", "3"},
      {"out", "rank_5", "1735011096", "step_12"},
  };
  for (const auto& dirs : paths) {
    const DumpLocation where = locate(dirs);
    const std::string shown = dirs.back();
    ASSERT_FALSE(where.layout.empty()) << shown;
    auto name_at = [&](std::optional<size_t> depth) {
      return depth && *depth < dirs.size() ? dirs[dirs.size() - 1 - *depth] : std::string("?");
    };
    auto names = [](const std::string& name, const std::string& value) {
      return name.find(value) != std::string::npos;
    };
    if (where.rank) {
      EXPECT_TRUE(names(name_at(where.depth.rank), std::to_string(*where.rank))) << shown;
    }
    if (where.graph) {
      EXPECT_TRUE(names(name_at(where.depth.graph), std::to_string(*where.graph))) << shown;
    }
    if (!where.net.empty()) {
      EXPECT_TRUE(names(name_at(where.depth.net), where.net)) << shown;
    }
    if (where.iteration) {
      EXPECT_TRUE(names(name_at(where.depth.iteration), std::to_string(*where.iteration))) << shown;
    }
    EXPECT_EQ(where.rank.has_value(), where.depth.rank.has_value()) << shown;
  }
  // Constants stand where the iteration's directory would.
  auto constants = locate_path({"rank_0", "Net", "0", "constants"});
  EXPECT_EQ(constants.depth.iteration, 0u);
  EXPECT_EQ(constants.depth.rank, 3u);
  // A layout without a level has no depth for it; an unknown layout has none.
  EXPECT_FALSE(locate_path({"dump", "Net", "iteration_5"}).depth.rank.has_value());
  EXPECT_FALSE(locate_path({"x", "rank_2", "graphs"}).depth.iteration.has_value());
  auto unknown = locate_path({"home", "user", "tensors"}).depth;
  EXPECT_FALSE(unknown.iteration || unknown.graph || unknown.net || unknown.rank);
}

class WalkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("msdt_tree_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& relative, const std::string& contents) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative, std::ios::binary) << contents;
  }
  // Walks root_; the files seen and the warnings, both relative to root_. Errors fail the test.
  std::pair<std::vector<std::string>, std::vector<std::string>> walk_root() const {
    std::vector<std::string> seen, warnings;
    const std::string root = root_.string();
    WalkCallbacks callbacks;
    callbacks.directory = [&](const DumpDirectory& dir) {
      for (const auto& file : dir.files) seen.push_back(file.display.substr(root.size()));
    };
    callbacks.error = [&](const std::string&, const Error& e) { ADD_FAILURE() << e.describe(); };
    callbacks.warning = [&](const std::string& path, const Error& e) {
      warnings.push_back(path.substr(root.size()) + ": " + e.describe());
    };
    std::vector<std::string> roots{root};
    walk_dump_tree(roots, callbacks);
    return {seen, warnings};
  }
  fs::path root_;
};

TEST_F(WalkTest, VisitsDirectoriesAndFilesInNameOrderWithLayout) {
  write("rank_1/Net/0/0/b.txt", "12");
  write("rank_0/Net/0/1/z", "");
  write("rank_0/Net/0/1/a", "abc");
  std::vector<std::string> seen;
  std::vector<std::string> errors;
  std::string root = root_.string();
  WalkCallbacks callbacks{
      [&](const DumpDirectory& dir) {
        for (const auto& file : dir.files)
          seen.push_back(file.display.substr(root.size()) +
                         " rank=" + std::to_string(dir.where.rank.value_or(99)) +
                         " iter=" + std::to_string(dir.where.iteration.value_or(99)) +
                         " size=" + std::to_string(file.size));
      },
      [&](const std::string& path, const Error& e) {
        errors.push_back(path + ": " + e.describe());
      },
      {}};
  std::vector<std::string> roots{root};
  walk_dump_tree(roots, callbacks);
  EXPECT_TRUE(errors.empty());
  std::vector<std::string> expected{"/rank_0/Net/0/1/a rank=0 iter=1 size=3",
                                    "/rank_0/Net/0/1/z rank=0 iter=1 size=0",
                                    "/rank_1/Net/0/0/b.txt rank=1 iter=0 size=2"};
  EXPECT_EQ(seen, expected);
}

TEST_F(WalkTest, MappingCsvGivesTheOriginalNameToParse) {
  write("rank_0/Net/0/0/1234567.npy", "x");
  write("rank_0/Net/0/0/mapping.csv",
        "1234567.npy,Add.Default_Add-op1.0.0.1716000000000000.output.0.DefaultFormat.npy\n");
  std::vector<DumpFile> files;
  WalkCallbacks callbacks{
      [&](const DumpDirectory& dir) {
        files.insert(files.end(), dir.files.begin(), dir.files.end());
      },
      [&](const std::string&, const Error& e) { ADD_FAILURE() << e.describe(); },
      {}};
  std::vector<std::string> roots{root_.string()};
  walk_dump_tree(roots, callbacks);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].stored_name, "1234567.npy");
  EXPECT_EQ(files[0].name.kind, FileKind::Npy);
  EXPECT_EQ(files[0].name.op_type, "Add");
  EXPECT_EQ(files[0].name.op_name, "Default_Add-op1");
  EXPECT_EQ(files[1].name.kind, FileKind::MappingCsv);
}

TEST_F(WalkTest, MappingCsvShortNameWithoutExtensionStillResolves) {
  write("rank_0/Net/0/0/98765.npy", "x");
  write("rank_0/Net/0/0/mapping.csv",
        "98765,Mul.Default_Mul-op3.0.0.1716000000000000.input.1.DefaultFormat.npy\n");
  std::vector<DumpFile> files;
  WalkCallbacks callbacks{
      [&](const DumpDirectory& dir) {
        files.insert(files.end(), dir.files.begin(), dir.files.end());
      },
      [&](const std::string&, const Error& e) { ADD_FAILURE() << e.describe(); },
      {}};
  std::vector<std::string> roots{root_.string()};
  walk_dump_tree(roots, callbacks);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].name.kind, FileKind::Npy);
  EXPECT_EQ(files[0].name.op_type, "Mul");
  EXPECT_EQ(files[0].name.slot, 1u);
}

TEST_F(WalkTest, MissingRootIsReportedAndOthersStillWalk) {
  write("a/file", "1");
  std::vector<std::string> errors;
  size_t files = 0;
  WalkCallbacks callbacks{[&](const DumpDirectory& dir) { files += dir.files.size(); },
                          [&](const std::string& path, const Error& e) {
                            errors.push_back(path + ": " + e.describe());
                          },
                          {}};
  std::vector<std::string> roots{(root_ / "missing").string(), (root_ / "a").string()};
  walk_dump_tree(roots, callbacks);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], (root_ / "missing").string() + ": cannot open: No such file or directory");
  EXPECT_EQ(files, 1u);
}

TEST_F(WalkTest, AFileRootIsLocatedByItsDirectories) {
  write("dump/Net/device_0/iteration_4/x_output_0_shape_2_Float32_DefaultFormat.bin", "12345678");
  std::vector<DumpDirectory> dirs;
  WalkCallbacks callbacks{
      [&](const DumpDirectory& dir) { dirs.push_back(dir); },
      [&](const std::string&, const Error& e) { ADD_FAILURE() << e.describe(); },
      {}};
  std::string file =
      (root_ / "dump/Net/device_0/iteration_4/x_output_0_shape_2_Float32_DefaultFormat.bin")
          .string();
  std::vector<std::string> roots{file};
  walk_dump_tree(roots, callbacks);
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_EQ(dirs[0].where.layout, "sync-1.1");
  EXPECT_EQ(dirs[0].where.iteration, 4u);
  ASSERT_EQ(dirs[0].files.size(), 1u);
  EXPECT_EQ(dirs[0].files[0].display, file);
  EXPECT_EQ(dirs[0].files[0].name.kind, FileKind::LegacyBin);
  EXPECT_EQ(dirs[0].files[0].size, 8u);
}

// A symbolic link to a directory is walked like the directory; a link back up the tree is walked
// no further, with a warning, so a loop cannot trap the walk.
TEST_F(WalkTest, DirectorySymlinksAreFollowedOnceWithLoopWarning) {
  write("real/f", "1");
  write("other/g", "2");
  fs::create_directory_symlink(root_ / "other", root_ / "real" / "link");
  fs::create_directory_symlink(root_, root_ / "real" / "loop");
  const auto [seen, warnings] = walk_root();
  // "other" is walked first by name; "real/link" reaches it a second time.
  EXPECT_EQ(seen, (std::vector<std::string>{"/other/g", "/real/f"}));
  EXPECT_EQ(warnings,
            (std::vector<std::string>{
                "/real/link: directory already walked (a symbolic link loop, or a second link to "
                "it); skipped",
                "/real/loop: directory already walked (a symbolic link loop, or a second link to "
                "it); skipped"}));
}

// FIFOs, sockets and dangling links are reported, never opened (a FIFO would block the walk).
TEST_F(WalkTest, SpecialFilesAndDanglingLinksAreWarnedAboutAndSkipped) {
  write("d/a.npy", "x");
  ASSERT_EQ(::mkfifo((root_ / "d" / "pipe").c_str(), 0644), 0);
  fs::create_symlink(root_ / "d" / "missing", root_ / "d" / "gone");
  const auto [seen, warnings] = walk_root();
  EXPECT_EQ(seen, (std::vector<std::string>{"/d/a.npy"}));
  EXPECT_EQ(warnings,
            (std::vector<std::string>{
                "/d/gone: dangling symbolic link to '" + root_.string() + "/d/missing'; skipped",
                "/d/pipe: not a regular file (a FIFO); skipped, never opened"}));
}

}  // namespace
}  // namespace msdt::dump
