// Standard output for every tool. Two promises, both documented in the man pages:
// * whole lines: output is handed to write(2) in batches of whole lines, of at most PIPE_BUF bytes
//   (a longer line alone) into a pipe or socket, of up to the buffer's size into a file or device,
//   so two tools writing to one file or pipe (`xargs -P`) never interleave inside a line;
// * a failed write (a closed pipe, a full disk, /dev/full) ends in exit status 3 (kExitOutput):
//   SIGPIPE is ignored so a closed pipe is an EPIPE we can act on: the process ends at once,
//   quietly, with status 3 (the reader went away on purpose, as with `| head`, and the rest of a
//   long walk would be wasted); any other failure is one error line at the end.
#pragma once

#include <climits>
#include <streambuf>
#include <vector>

#include "io/report.h"

namespace msdt {

// A streambuf over a file descriptor that writes only whole lines, batched up to PIPE_BUF bytes
// per write(2) into a pipe or socket (the buffer's capacity into a file or device), a line longer
// than that in one call of its own; an incomplete last line goes out
// on flush. After a failed write it drops everything and reports failure on every flush; with
// `exit_on_closed_pipe`, EPIPE ends the process at once with kExitOutput (_exit: no destructors,
// which may be running on other threads, and nothing buffered is worth saving).
class LineWriter final : public std::streambuf {
 public:
  explicit LineWriter(int fd, size_t capacity = 65536, bool exit_on_closed_pipe = false);
  ~LineWriter() override;
  // errno of the first failed write, 0 while every write succeeded.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override;
  int sync() override;

 private:
  // Writes the buffered whole lines (and with `everything` the incomplete tail too).
  void drain(bool everything);
  void write_chunk(const char* data, size_t size);

  int fd_;
  bool exit_on_closed_pipe_;
  std::vector<char> buffer_;
  int error_ = 0;
  size_t batch_limit_ = PIPE_BUF;  // the most bytes one write(2) carries (but a longer line)
};

// Makes std::cout write through a LineWriter on descriptor 1 that exits on a closed pipe, and
// ignores SIGPIPE. Call first in main, before anything is printed.
void use_line_stdout();

// Flushes std::cout and gives the exit status: kExitOutput when standard output could not be
// written (saying so on stderr unless the pipe was closed), else diagnostics.exit_code().
int finish_stdout(Diagnostics& diagnostics);

}  // namespace msdt
