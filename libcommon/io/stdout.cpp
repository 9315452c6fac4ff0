#include "io/stdout.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <iostream>

namespace msdt {

LineWriter::LineWriter(int fd, size_t capacity, bool exit_on_closed_pipe)
    : fd_(fd), exit_on_closed_pipe_(exit_on_closed_pipe), buffer_(capacity) {
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  // A pipe or a socket keeps a write whole only up to PIPE_BUF bytes. Writes to a regular file or
  // a device are not interleaved with other processes' writes whatever their size (Linux
  // serialises them on the file), so those get whole lines in batches of the buffer's size.
  struct stat st {};
  if (::fstat(fd, &st) == 0 && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
    batch_limit_ = capacity;
}

LineWriter::~LineWriter() { drain(true); }

void LineWriter::write_chunk(const char* data, size_t size) {
  while (size > 0 && error_ == 0) {
    ssize_t n = ::write(fd_, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE && exit_on_closed_pipe_) ::_exit(kExitOutput);
      error_ = errno;
      return;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void LineWriter::drain(bool everything) {
  const char* p = pbase();
  const char* end = pptr();
  while (p < end && error_ == 0) {
    size_t left = static_cast<size_t>(end - p);
    size_t window = left < batch_limit_ ? left : batch_limit_;
    const void* last = ::memrchr(p, '\n', window);
    const char* chunk_end = nullptr;
    if (last != nullptr) {
      chunk_end = static_cast<const char*>(last) + 1;  // whole lines up to the limit
    } else if (const void* first = std::memchr(p, '\n', left)) {
      chunk_end = static_cast<const char*>(first) + 1;  // one line longer than the limit
    } else if (everything) {
      chunk_end = end;  // the incomplete last line, on flush
    } else {
      break;
    }
    write_chunk(p, static_cast<size_t>(chunk_end - p));
    p = chunk_end;
  }
  if (error_ != 0) p = end;  // nobody will read it: drop, and keep failing
  size_t kept = static_cast<size_t>(end - p);
  std::memmove(buffer_.data(), p, kept);
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  pbump(static_cast<int>(kept));
}

LineWriter::int_type LineWriter::overflow(int_type ch) {
  drain(false);
  if (pptr() == epptr()) {
    // One line fills the whole buffer: grow it, so the line still goes out in one write.
    size_t used = static_cast<size_t>(pptr() - pbase());
    buffer_.resize(buffer_.size() * 2);
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    pbump(static_cast<int>(used));
  }
  if (!traits_type::eq_int_type(ch, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
  }
  return error_ == 0 ? traits_type::not_eof(ch) : traits_type::eof();
}

int LineWriter::sync() {
  drain(true);
  return error_ == 0 ? 0 : -1;
}

namespace {

// Never destroyed: the standard streams are flushed at exit after every static object is gone.
LineWriter& stdout_writer() {
  static LineWriter* writer = new LineWriter(STDOUT_FILENO, 65536, true);
  return *writer;
}

}  // namespace

void use_line_stdout() {
  std::signal(SIGPIPE, SIG_IGN);
  std::cout.rdbuf(&stdout_writer());
}

int finish_stdout(Diagnostics& diagnostics) {
  std::cout.flush();
  int error = std::cout.rdbuf() == &stdout_writer() ? stdout_writer().error() : 0;
  if (error == 0 && !std::cout) error = EIO;
  if (error == EPIPE) return kExitOutput;
  if (error != 0)
    diagnostics.output_error(
        "", Error(fmt::format("cannot write standard output: {}", std::strerror(error))));
  return diagnostics.exit_code();
}

}  // namespace msdt
