// The line writer behind every tool's standard output. A SOCK_SEQPACKET socket keeps the
// boundaries of each write(2), so the test sees exactly what each call carried.
#include "io/stdout.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <ostream>
#include <string>
#include <vector>

namespace msdt {
namespace {

struct Packets {
  std::vector<std::string> writes;
  std::string all;
};

// Writes `pieces` through a LineWriter on one end of a packet socket, flushing after the pieces
// listed in `flush_after`, and returns what each write(2) carried.
Packets run(const std::vector<std::string>& pieces, size_t capacity) {
  int fds[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds), 0);
  int size = 1 << 22;
  ::setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
  ::setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  {
    LineWriter writer(fds[0], capacity);
    std::ostream out(&writer);
    for (const std::string& piece : pieces) out << piece;
    out.flush();
    EXPECT_EQ(writer.error(), 0);
  }
  ::close(fds[0]);
  Packets packets;
  std::vector<char> buffer(1 << 20);
  for (ssize_t n; (n = ::recv(fds[1], buffer.data(), buffer.size(), 0)) > 0;) {
    packets.writes.emplace_back(buffer.data(), static_cast<size_t>(n));
    packets.all += packets.writes.back();
  }
  ::close(fds[1]);
  return packets;
}

TEST(LineWriter, EachWriteIsWholeLinesUpToPipeBufOrOneLongLine) {
  std::vector<std::string> pieces;
  std::string expected;
  for (int i = 0; i < 400; ++i) {
    // Lines of 1 to ~700 bytes written in two pieces each, and every 50th longer than PIPE_BUF.
    size_t length = i % 50 == 49 ? PIPE_BUF + 123 : static_cast<size_t>(i * 37 % 700);
    std::string line(length, static_cast<char>('a' + i % 26));
    pieces.push_back(line.substr(0, length / 2));
    pieces.push_back(line.substr(length / 2) + "\n");
    expected += line + "\n";
  }
  for (size_t capacity : {size_t{64}, size_t{4096}, size_t{65536}}) {
    Packets p = run(pieces, capacity);
    EXPECT_EQ(p.all, expected) << capacity;
    for (const std::string& w : p.writes) {
      ASSERT_FALSE(w.empty());
      EXPECT_EQ(w.back(), '\n') << capacity;
      if (w.size() > PIPE_BUF) {
        EXPECT_EQ(w.find('\n'), w.size() - 1) << "a long line shares its write";
      }
    }
  }
}

// Into a regular file writes are not limited to PIPE_BUF (nothing interleaves inside a write
// there): the file still gets every byte, lines longer than the buffer included.
TEST(LineWriter, RegularFileGetsEveryLine) {
  char path[] = "/tmp/msdt_line_writer_XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  std::string expected;
  {
    LineWriter writer(fd, 8192);
    std::ostream out(&writer);
    for (int i = 0; i < 2000; ++i) {
      std::string line =
          std::string(static_cast<size_t>(i % 300), 'a' + static_cast<char>(i % 26)) + "\n";
      if (i == 1000) line = std::string(20000, 'L') + "\n";  // longer than the buffer
      out << line;
      expected += line;
    }
    out << "tail";
    expected += "tail";
    out.flush();
    EXPECT_EQ(writer.error(), 0);
  }
  std::string actual(expected.size() + 10, '\0');
  ssize_t n = ::pread(fd, actual.data(), actual.size(), 0);
  ::close(fd);
  ::unlink(path);
  ASSERT_EQ(n, static_cast<ssize_t>(expected.size()));
  actual.resize(static_cast<size_t>(n));
  EXPECT_EQ(actual, expected);
}

TEST(LineWriter, AnIncompleteLastLineGoesOutOnFlush) {
  Packets p = run({"one\ntwo\nthr", "ee"}, 4096);
  EXPECT_EQ(p.all, "one\ntwo\nthree");
}

TEST(LineWriter, AClosedReaderIsEpipeAndTheStreamFails) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  ::close(fds[1]);
  LineWriter writer(fds[0], 64);
  std::ostream out(&writer);
  // MSG_NOSIGNAL is not ours to pass, so SIGPIPE must be ignored here as the tools do.
  use_line_stdout();
  out << "line\n";
  out.flush();
  EXPECT_FALSE(out);
  EXPECT_EQ(writer.error(), EPIPE);
  ::close(fds[0]);
}

}  // namespace
}  // namespace msdt
