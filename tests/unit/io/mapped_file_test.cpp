// Reading "-": the first bytes are checked before the rest is read, a pipe is kept in memory only
// up to a limit, and a redirected regular file is mapped. Standard input is replaced by a pipe
// (or a file) for each test and restored afterwards.
#include "io/mapped_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace msdt {
namespace {

class StdinTest : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = ::dup(STDIN_FILENO); }
  void TearDown() override {
    ::dup2(saved_, STDIN_FILENO);
    ::close(saved_);
    if (writer_.joinable()) writer_.join();
    if (!file_.empty()) std::filesystem::remove(file_);
  }

  // Standard input becomes a pipe fed with `chunk` repeated `times` times (or until the reader
  // closes its end); the writer counts what it managed to write.
  void pipe_in(std::string chunk, uint64_t times) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    ::dup2(fds[0], STDIN_FILENO);
    ::close(fds[0]);
    writer_ = std::thread([this, fd = fds[1], chunk = std::move(chunk), times] {
      for (uint64_t i = 0; i < times; ++i) {
        ssize_t n = ::write(fd, chunk.data(), chunk.size());
        if (n <= 0) break;
        written_ += static_cast<uint64_t>(n);
      }
      ::close(fd);
    });
  }

  // Closes our copy of the pipe's read end so that a blocked writer sees EPIPE and stops.
  void close_stdin() {
    int null_fd = ::open("/dev/null", O_RDONLY);
    ::dup2(null_fd, STDIN_FILENO);
    ::close(null_fd);
  }

  int saved_ = -1;
  std::thread writer_;
  std::atomic<uint64_t> written_{0};
  std::filesystem::path file_;
};

Status refuse_zeros(Bytes start) {
  for (std::byte b : start)
    if (b != std::byte{0}) return std::nullopt;
  return Error::at_offset(0, "zeros");
}

TEST_F(StdinTest, InputRuledOutByItsStartIsNotReadToTheEnd) {
  ::signal(SIGPIPE, SIG_IGN);
  pipe_in(std::string(1 << 16, '\0'), 1 << 20);  // 64 GiB if read to the end
  auto input = MappedFile::read_stdin(MappedFile::kStdinLimit, refuse_zeros);
  ASSERT_FALSE(input);
  EXPECT_EQ(input.error().describe(), "offset 0x0: zeros");
  close_stdin();
  writer_.join();
  EXPECT_LT(written_.load(), uint64_t{1} << 24);
}

TEST_F(StdinTest, CheckSeesTheFirstBytesOnly) {
  pipe_in("0123456789abcdefXYZ", 1);
  std::string seen;
  auto input = MappedFile::read_stdin(MappedFile::kStdinLimit, [&](Bytes start) -> Status {
    seen.assign(reinterpret_cast<const char*>(start.data()), start.size());
    return std::nullopt;
  });
  ASSERT_TRUE(input) << input.error().describe();
  EXPECT_EQ(seen, "0123456789abcdef");
  EXPECT_EQ(input->size(), 19u);
  EXPECT_EQ(input->fd(), -1);
}

TEST_F(StdinTest, PipeLongerThanTheLimitIsRefused) {
  ::signal(SIGPIPE, SIG_IGN);
  pipe_in(std::string(1000, 'x'), 1000);
  auto input = MappedFile::read_stdin(100'000);
  ASSERT_FALSE(input);
  EXPECT_EQ(input.error().describe(),
            "standard input is longer than 100000 bytes, the most \"-\" reads into memory "
            "(MSDT_STDIN_LIMIT); give the file's path instead");
  close_stdin();
}

// With no limit given, MSDT_STDIN_LIMIT sets it (K, M, G: binary multiples); a value that is not
// a byte count is an error naming the variable.
uint64_t limit_or_zero() {
  auto limit = MappedFile::stdin_limit();
  return limit ? *limit : 0;
}

TEST_F(StdinTest, LimitFromTheEnvironment) {
  ::signal(SIGPIPE, SIG_IGN);
  ::setenv("MSDT_STDIN_LIMIT", "1K", 1);
  EXPECT_EQ(limit_or_zero(), 1024u);
  pipe_in(std::string(1000, 'x'), 2);
  auto input = MappedFile::read_stdin();
  ASSERT_FALSE(input);
  EXPECT_EQ(input.error().describe(),
            "standard input is longer than 1024 bytes, the most \"-\" reads into memory "
            "(MSDT_STDIN_LIMIT); give the file's path instead");
  close_stdin();
  writer_.join();
  ::setenv("MSDT_STDIN_LIMIT", "2M", 1);
  EXPECT_EQ(limit_or_zero(), uint64_t{2} << 20);
  ::setenv("MSDT_STDIN_LIMIT", "3g", 1);
  EXPECT_EQ(limit_or_zero(), uint64_t{3} << 30);
  for (const char* bad : {"lots", "0", "-1", "1T", "99999999999999999999"}) {
    ::setenv("MSDT_STDIN_LIMIT", bad, 1);
    auto limit = MappedFile::stdin_limit();
    ASSERT_FALSE(limit) << bad;
    EXPECT_EQ(limit.error().message, std::string("MSDT_STDIN_LIMIT='") + bad +
                                         "' is not a byte count (such as 4G, 512M or 1000000)");
  }
  ::unsetenv("MSDT_STDIN_LIMIT");
  EXPECT_EQ(limit_or_zero(), MappedFile::kStdinLimit);
}

TEST(MappedFile, ZeroStartIsRefused) {
  const std::byte zeros[MappedFile::kStdinStartBytes] = {};
  auto refused = MappedFile::refuse_zero_start(Bytes(zeros, sizeof zeros));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->describe(),
            "offset 0x0: standard input starts with 16 zero bytes, as no file of this kind does");
  EXPECT_FALSE(MappedFile::refuse_zero_start(Bytes(zeros, 15)));  // a short input: the reader says
  std::byte one[MappedFile::kStdinStartBytes] = {};
  one[15] = std::byte{1};
  EXPECT_FALSE(MappedFile::refuse_zero_start(Bytes(one, sizeof one)));
}

TEST_F(StdinTest, PipeOfExactlyTheLimitIsRead) {
  pipe_in(std::string(1000, 'y'), 100);
  auto input = MappedFile::read_stdin(100'000);
  ASSERT_TRUE(input) << input.error().describe();
  EXPECT_EQ(input->size(), 100'000u);
}

TEST_F(StdinTest, EmptyInputGoesToTheCheck) {
  pipe_in("", 0);
  bool called = false;
  auto input = MappedFile::read_stdin(MappedFile::kStdinLimit, [&](Bytes start) -> Status {
    called = true;
    EXPECT_TRUE(start.empty());
    return std::nullopt;
  });
  ASSERT_TRUE(input);
  EXPECT_TRUE(called);
  EXPECT_EQ(input->size(), 0u);
}

TEST_F(StdinTest, RedirectedRegularFileIsMappedWithoutALimit) {
  file_ = std::filesystem::temp_directory_path() /
          ("msdt_mapped_file_test_" + std::to_string(::getpid()));
  std::ofstream(file_, std::ios::binary) << std::string(5000, 'z');
  int fd = ::open(file_.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ::dup2(fd, STDIN_FILENO);
  ::close(fd);
  auto input = MappedFile::read_stdin(100);
  ASSERT_TRUE(input) << input.error().describe();
  EXPECT_EQ(input->size(), 5000u);
  EXPECT_GE(input->fd(), 0);
  EXPECT_EQ(static_cast<char>(input->bytes()[4999]), 'z');
}

// A FIFO put where a file was expected must not block open().
TEST(MappedFile, FifoIsRefusedWithoutBlocking) {
  auto path = std::filesystem::temp_directory_path() /
              ("msdt_mapped_file_fifo_" + std::to_string(::getpid()));
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  auto file = MappedFile::open(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().describe(), "not a regular file");
}

// A one-pass reader gives back the pages it is done with: the resident set shrinks,
// and the bytes still read back as they are in the file. A buffer read into memory is left as is.
TEST(MappedFile, DroppedPagesLeaveTheMemoryAndReadBackFromTheFile) {
  auto path = std::filesystem::temp_directory_path() /
              ("msdt_mapped_file_drop_" + std::to_string(::getpid()));
  std::string bytes(16u << 20, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 13 + (i >> 12));
  std::ofstream(path, std::ios::binary) << bytes;
  auto file = MappedFile::open(path);
  std::filesystem::remove(path);  // the mapping keeps the file's data
  ASSERT_TRUE(file) << file.error().describe();
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  // The process's resident file pages, in kB (mincore would tell the page cache's, not ours).
  auto resident_kb = [] {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("RssFile:", 0) == 0) return std::stoll(line.substr(8));
    return -1LL;
  };
  long long before = resident_kb();
  volatile unsigned sum = 0;
  for (size_t i = 0; i < bytes.size(); i += page)
    sum = sum + static_cast<unsigned>(file->bytes()[i]);
  long long touched = resident_kb();
  EXPECT_GE(touched - before, 15 * 1024) << "the whole file is resident once read";
  // An unaligned range: the pages wholly inside it go.
  file->drop_pages(100, bytes.size() - 200);
  EXPECT_LE(resident_kb() - before, 1024) << "the pages read were given back";
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(file->bytes().data()), bytes.size()), bytes);
  file->drop_pages(bytes.size(), 10);  // beyond the end: nothing
}

// Reading::Whole reads small files into buffers the thread reuses: every file still reads back
// exactly, whatever the order of sizes (a buffer reused for a smaller file, two held at once,
// a third that makes the pool give one back), and files above the limit are mapped as before.
TEST(MappedFile, WholeReadingGivesTheBytesOfEveryFile) {
  auto dir = std::filesystem::temp_directory_path() /
             ("msdt_mapped_file_whole_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, size_t size, char seed) {
    std::string bytes(size, '\0');
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(seed + static_cast<char>(i * 7));
    std::ofstream(dir / name, std::ios::binary) << bytes;
    return bytes;
  };
  auto as_string = [](const MappedFile& f) {
    return std::string(reinterpret_cast<const char*>(f.bytes().data()), f.bytes().size());
  };
  const std::string big = write("big", (3u << 20) + 5, 'a');
  const std::string small = write("small", 100, 'b');
  const std::string empty = write("empty", 0, 'c');
  const std::string large = write("large", MappedFile::kReadLimit + 1, 'd');
  for (int round = 0; round < 3; ++round) {
    for (const auto& [name, expected] : {std::pair{"big", &big}, std::pair{"small", &small},
                                         std::pair{"empty", &empty}, std::pair{"large", &large}}) {
      auto file = MappedFile::open(dir / name, Reading::Whole);
      ASSERT_TRUE(file) << name << ": " << file.error().describe();
      EXPECT_EQ(as_string(*file), *expected) << name;
    }
    // Three alive at once: the pool hands out two buffers and allocates a third.
    auto a = MappedFile::open(dir / "big", Reading::Whole);
    auto b = MappedFile::open(dir / "small", Reading::Whole);
    auto c = MappedFile::open(dir / "big", Reading::Whole);
    ASSERT_TRUE(a && b && c);
    EXPECT_EQ(as_string(*a), big);
    EXPECT_EQ(as_string(*b), small);
    EXPECT_EQ(as_string(*c), big);
    MappedFile moved = std::move(*a);
    EXPECT_EQ(as_string(moved), big);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace msdt
