// io/output_file: outputs appear whole or not at all, whatever the name's length, and a stopping
// signal (SIGINT, SIGTERM, SIGHUP) removes the temporaries of the files being written.
#include "io/output_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace msdt {
namespace {

namespace fs = std::filesystem;

class OutputFileTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::temp_directory_path() / ("msdt-output-file-" + std::to_string(::getpid()) + "-" +
                                     testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(root_))
      out.push_back(entry.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  std::string read(const std::string& name) const {
    std::ifstream in(root_ / name, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path root_;
};

// A FIFO (like a device or a socket) is written in place: renaming a regular file over it would
// take the node away from whoever reads it.
TEST_F(OutputFileTest, FifoIsWrittenInPlace) {
  ASSERT_EQ(::mkfifo((root_ / "pipe").c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = read("pipe"); });
  EXPECT_FALSE(write_file_atomically(root_ / "pipe", "through the pipe"));
  reader.join();
  EXPECT_EQ(received, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(root_ / "pipe")));
  EXPECT_EQ(names(), std::vector<std::string>{"pipe"});  // no temporary left
}

// A link to /dev/null (the device -o /dev/null names when run as root) stays a link to the
// device, which stays a character device; nothing is created beside it.
TEST_F(OutputFileTest, LinkToDeviceIsWrittenThrough) {
  struct stat null_device {};
  if (::stat("/dev/null", &null_device) != 0 || !S_ISCHR(null_device.st_mode))
    GTEST_SKIP() << "/dev/null is not a character device on this machine";
  fs::create_symlink("/dev/null", root_ / "null");
  ASSERT_FALSE(write_file_atomically(root_ / "null", "discarded"));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(root_ / "null")));
  EXPECT_TRUE(fs::is_character_file(fs::status("/dev/null")));
  EXPECT_EQ(names(), std::vector<std::string>{"null"});
  EXPECT_FALSE(write_file_atomically(root_ / "null", "again"));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(root_ / "null")));
}

TEST_F(OutputFileTest, EveryLegalNameLength) {
  auto directory = OpenDirectory::open(root_);
  ASSERT_TRUE(directory) << directory.error().describe();
  for (size_t length : {1, 200, 243, 244, 250, 254, 255}) {
    std::string name(length, 'n');
    name[0] = static_cast<char>('a' + length % 26);
    auto file = AtomicFile::create(*directory, name);
    ASSERT_TRUE(file) << length << ": " << file.error().describe();
    ASSERT_FALSE(file->write(std::string_view("x")));
    ASSERT_FALSE(file->commit()) << length;
    EXPECT_EQ(read(name), "x");
  }
  EXPECT_EQ(names().size(), 7u);
}

TEST_F(OutputFileTest, UncommittedLeavesNothing) {
  auto directory = OpenDirectory::open(root_);
  ASSERT_TRUE(directory);
  {
    auto file = AtomicFile::create(*directory, "out.npy");
    ASSERT_TRUE(file);
    ASSERT_FALSE(file->write(std::string_view("half")));
    EXPECT_EQ(names().size(), 1u);  // the temporary
    EXPECT_TRUE(is_output_temporary(names()[0])) << names()[0];
  }
  EXPECT_TRUE(names().empty());
}

TEST_F(OutputFileTest, WritevWritesBothPieces) {
  auto directory = OpenDirectory::open(root_);
  ASSERT_TRUE(directory);
  auto file = AtomicFile::create(*directory, "two");
  ASSERT_TRUE(file);
  std::string a = "header", b(100000, 'p');
  ASSERT_FALSE(file->write(Bytes(reinterpret_cast<const std::byte*>(a.data()), a.size()),
                           Bytes(reinterpret_cast<const std::byte*>(b.data()), b.size())));
  ASSERT_FALSE(file->commit());
  EXPECT_EQ(read("two"), a + b);
}

TEST_F(OutputFileTest, StoppingSignalsRemoveTemporaries) {
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // Two files being written (as by two workers), then the signal arrives.
      auto directory = OpenDirectory::open(root_);
      if (!directory) ::_exit(10);
      auto first = AtomicFile::create(*directory, "first.npy");
      auto second = AtomicFile::create(*directory, "second.npy");
      if (!first || !second || first->write(std::string_view("a")) ||
          second->write(std::string_view("b")))
        ::_exit(11);
      ::raise(signal_number);
      ::_exit(12);  // not reached: the default action ends the process
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "signal " << signal_number << ", status " << status;
    EXPECT_EQ(WTERMSIG(status), signal_number);
    EXPECT_TRUE(names().empty()) << "signal " << signal_number << " left " << names()[0];
  }
}

TEST(OutputTemporaryName, Recognised) {
  EXPECT_TRUE(is_output_temporary(".msdt-tmp.123.4"));
  EXPECT_TRUE(is_output_temporary(".A.op.1.2.3.output.0.npy.tmp4242.17"));  // msdt 0.1
  EXPECT_FALSE(is_output_temporary("A.op.1.2.3.output.0.npy"));
  EXPECT_FALSE(is_output_temporary(".dump_metadata"));
  EXPECT_FALSE(is_output_temporary(".x.tmp12."));
  EXPECT_FALSE(is_output_temporary(".x.tmp.3"));
  EXPECT_FALSE(is_output_temporary(".tmp1.2"));
}

}  // namespace
}  // namespace msdt
