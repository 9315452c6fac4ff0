// io/directory: the one check of relative paths, and files and directories below an open
// directory that never lead outside it, with openat2 and with the O_NOFOLLOW fallback.
#include "io/directory.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/mapped_file.h"
#include "io/output_file.h"
#include "support/temp_tree.h"

namespace msdt {
namespace {

namespace fs = std::filesystem;

std::string message(const Status& status) { return status ? status->message : "ok"; }

TEST(CheckRelativePath, OneWordingForEveryRule) {
  EXPECT_EQ(message(check_relative_path("a/b.npy")), "ok");
  EXPECT_EQ(message(check_relative_path("..a/b..")), "ok");  // dots inside names are fine
  EXPECT_EQ(message(check_relative_path("", "data file")), "data file is empty");
  EXPECT_EQ(message(check_relative_path("/etc/passwd", "data file")),
            "data file '/etc/passwd' is absolute: it could leave its directory");
  EXPECT_EQ(message(check_relative_path("a/../../b", "output name")),
            "output name 'a/../../b' has a '..' component: it could leave its directory");
  EXPECT_EQ(message(check_relative_path("a//b")), "path 'a//b' has an empty or '.' component");
  EXPECT_EQ(message(check_relative_path("./b")), "path './b' has an empty or '.' component");
  EXPECT_EQ(message(check_relative_path("a/")), "path 'a/' has an empty or '.' component");
  EXPECT_EQ(message(check_relative_path(std::string_view("a\0b", 3))),
            "path 'a\\x00b' contains a NUL byte");
  EXPECT_EQ(message(check_relative_path(std::string(256, 'x'))).substr(0, 7), "path 'x");
  EXPECT_NE(message(check_relative_path(std::string(256, 'x'))).find("256 bytes (255 at most)"),
            std::string::npos);
  EXPECT_EQ(message(check_relative_path(std::string(255, 'x'))), "ok");
}

TEST(CheckRelativePath, JoinUnderUsesIt) {
  auto joined = join_under("out", "a/b");
  ASSERT_TRUE(joined);
  EXPECT_EQ(*joined, fs::path("out/a/b"));
  auto refused = join_under("out", "../b");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "output name '../b' has a '..' component: it could leave its directory");
}

// Each test runs twice: with openat2 (RESOLVE_BENEATH) and with the O_NOFOLLOW fallback.
class BeneathTest : public testing::TempTreeTest, public ::testing::WithParamInterface<bool> {
 protected:
  BeneathTest() : TempTreeTest("msdt-directory-") {}
  void SetUp() override {
    TempTreeTest::SetUp();
    use_openat2_fallback_for_testing(GetParam());
    fs::create_directories(path("out"));
    fs::create_directories(path("outside"));
    write("outside/secret", "not yours");
  }
  void TearDown() override {
    use_openat2_fallback_for_testing(false);
    TempTreeTest::TearDown();
  }
  bool fallback() const { return GetParam(); }
  std::string read(const std::string& relative) const {
    std::ifstream in(path(relative), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  OpenDirectory out() const {
    auto opened = OpenDirectory::open(path("out"));
    EXPECT_TRUE(opened) << opened.error().message;
    return std::move(*opened);
  }
};

TEST_P(BeneathTest, MakesMissingDirectories) {
  OpenDirectory root = out();
  auto made = root.below("a/b/c", true);
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_TRUE(fs::is_directory(path("out/a/b/c")));
  EXPECT_EQ(made->path(), path("out") / "a/b/c");
  ASSERT_FALSE(write_file_atomically(*made, "x.npy", "data"));
  EXPECT_EQ(read("out/a/b/c/x.npy"), "data");
  // Made again: already there.
  EXPECT_TRUE(root.below("a/b/c", true));
  // Not made when not asked to.
  auto missing = root.below("a/z");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "cannot open: No such file or directory");
  EXPECT_FALSE(fs::exists(path("out/a/z")));
}

TEST_P(BeneathTest, DirectoryLinkLeadingOutsideIsRefused) {
  fs::create_directory_symlink("../outside", path("out/leak"));
  OpenDirectory root = out();
  const std::string expected =
      fallback() ? "a symbolic link below '" + path("out").string() +
                       "'; refused (this system has no openat2, without which no link below the "
                       "directory is followed)"
                 : "a symbolic link leads outside '" + path("out").string() + "'; refused";
  for (const char* relative : {"leak", "leak/deeper"}) {
    auto refused = root.below(relative, true);
    ASSERT_FALSE(refused) << relative;
    EXPECT_EQ(refused.error().message, expected) << relative;
  }
  EXPECT_FALSE(fs::exists(path("outside/deeper")));
  auto file = open_beneath(root, "leak/secret", O_RDONLY);
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().message, expected);
}

TEST_P(BeneathTest, AbsoluteLinkIsRefusedToo) {
  fs::create_directory_symlink(path("outside"), path("out/abs"));
  OpenDirectory root = out();
  EXPECT_FALSE(root.below("abs", true));
  EXPECT_FALSE(MappedFile::open(root, "abs/secret"));
}

TEST_P(BeneathTest, LinkThatStaysInsideIsFollowedWithOpenat2Only) {
  fs::create_directories(path("out/real"));
  write("out/real/data_0", "weights");
  fs::create_directory_symlink("real", path("out/alias"));
  fs::create_symlink("real/data_0", path("out/file_alias"));
  OpenDirectory root = out();
  auto dir = root.below("alias", true);
  auto mapped = MappedFile::open(root, "file_alias");
  if (fallback()) {
    // Without openat2 no link below the directory is followed: stricter, never weaker.
    ASSERT_FALSE(dir);
    EXPECT_NE(dir.error().message.find("no openat2"), std::string::npos);
    EXPECT_FALSE(mapped);
  } else {
    ASSERT_TRUE(dir) << dir.error().message;
    ASSERT_TRUE(mapped) << mapped.error().message;
    EXPECT_EQ(mapped->size(), 7u);
  }
}

TEST_P(BeneathTest, FileLinkLeadingOutsideIsNotRead) {
  fs::create_symlink("../outside/secret", path("out/data_0"));
  OpenDirectory root = out();
  auto mapped = MappedFile::open(root, "data_0");
  ASSERT_FALSE(mapped);
  EXPECT_NE(mapped.error().message.find("refused"), std::string::npos);
}

TEST_P(BeneathTest, ReadsPlainFilesBelow) {
  write("out/v/data_0", "abc");
  OpenDirectory root = out();
  auto mapped = MappedFile::open(root, "v/data_0");
  ASSERT_TRUE(mapped) << mapped.error().message;
  EXPECT_EQ(mapped->size(), 3u);
  auto refused = MappedFile::open(root, "../outside/secret");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message,
            "path '../outside/secret' has a '..' component: it could leave its directory");
}

// An output whose name is a symbolic link (to a file or a device outside) replaces the link: it
// is never written through. A name the user gave (Links::Follow) still reaches a device.
TEST_P(BeneathTest, OutputNameThatIsALinkIsReplaced) {
  fs::create_symlink("../outside/secret", path("out/w.npy"));
  fs::create_symlink("/dev/null", path("out/n.npy"));
  OpenDirectory root = out();
  ASSERT_FALSE(write_file_atomically(root, "w.npy", "new"));
  ASSERT_FALSE(write_file_atomically(root, "n.npy", "new"));
  EXPECT_EQ(read("outside/secret"), "not yours");
  EXPECT_FALSE(fs::is_symlink(path("out/w.npy")));
  EXPECT_FALSE(fs::is_symlink(path("out/n.npy")));
  EXPECT_EQ(read("out/w.npy"), "new");
  EXPECT_EQ(read("out/n.npy"), "new");
  fs::create_symlink("/dev/null", path("out/named"));
  ASSERT_FALSE(write_file_atomically(path("out/named"), "discarded"));
  EXPECT_TRUE(fs::is_symlink(path("out/named")));
}

TEST_P(BeneathTest, OutputNameIsOneComponent) {
  OpenDirectory root = out();
  auto file = AtomicFile::create(root, "a/b");
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().message, "output name 'a/b' is not a file name");
  EXPECT_FALSE(AtomicFile::create(root, ".."));
}

INSTANTIATE_TEST_SUITE_P(Openat2AndFallback, BeneathTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "Fallback" : "Openat2";
                         });

}  // namespace
}  // namespace msdt
