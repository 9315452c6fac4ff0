// Read-only memory-mapped input. Mapping instead of reading keeps memory flat however large the
// dump tree is: pages are brought in by the kernel and dropped under pressure.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>

#include "io/byte_reader.h"
#include "io/directory.h"

namespace msdt {

// How a caller will read a file: a few parts of it (headers, a listing), or every byte once
// (statistics, checks).
// Sparse: a few headers spread through a large file (a checkpoint's parameters), read without
// read-ahead so that a listing reads the pages it looks at and nothing around them; the parts
// read whole later are asked for with prefetch().
enum class Reading { Parts, Whole, Sparse };

class MappedFile {
 public:
  // Regular files only; an empty file maps to an empty span. "-" is not special here. Never
  // blocks on a FIFO: it is opened non-blocking and refused as not a regular file.
  // Reading::Whole reads a file of at most kReadLimit bytes into a buffer that the thread reuses
  // instead of mapping it: with several workers, mapping and unmapping thousands of files makes
  // the threads wait on each other (the process's mmap lock, and the TLB shootdowns of munmap),
  // which costs more than the copy. Larger files are mapped either way.
  static Expected<MappedFile> open(const std::filesystem::path& path,
                                   Reading reading = Reading::Parts);
  static constexpr uint64_t kReadLimit = uint64_t{8} << 20;  // 8 MiB
  // `relative` (a name taken from data, e.g. a MindIR's data file) below `directory`, never
  // outside it once symbolic links are resolved (open_beneath in io/directory.h).
  static Expected<MappedFile> open(const OpenDirectory& directory, std::string_view relative,
                                   Reading reading = Reading::Parts);

  // How much of standard input read_stdin keeps in memory at most, unless MSDT_STDIN_LIMIT says
  // otherwise (stdin_limit()). Every tool's "-" goes through read_stdin: one cap, one message.
  static constexpr uint64_t kStdinLimit = uint64_t{4} << 30;  // 4 GiB
  // The cap read_stdin applies when given none: $MSDT_STDIN_LIMIT when set (a byte count, with
  // an optional K, M or G suffix for KiB, MiB, GiB; documented in every tool's man page), else
  // kStdinLimit. A value that is not such a count is an error naming the variable.
  static Expected<uint64_t> stdin_limit();
  // How many leading bytes `check_start` of read_stdin sees.
  static constexpr size_t kStdinStartBytes = 16;
  // All of standard input (for "-"). A regular file redirected with "<" is mapped like open();
  // a pipe is read into memory, at most `limit` bytes (stdin_limit() when not given): more is an
  // error naming the cap. `check_start`, when given, sees the first kStdinStartBytes bytes (fewer
  // only when the input ends sooner) before anything more is read, so input ruled out by its
  // first bytes is refused without reading it to the end (`< /dev/zero` must not fill the
  // memory).
  static Expected<MappedFile> read_stdin(std::optional<uint64_t> limit = std::nullopt,
                                         const std::function<Status(Bytes)>& check_start = {});
  // A check_start for inputs that never begin with kStdinStartBytes zero bytes (models, graphs,
  // watch files): refuses `< /dev/zero` at once.
  static Status refuse_zero_start(Bytes start);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  Bytes bytes() const { return {data_, size_}; }
  uint64_t size() const { return size_; }
  // Gives back the memory of the pages wholly inside [offset, offset + length) once a one-pass
  // reader is done with them, so that reading a file larger than memory keeps the resident set
  // flat. Mapped files only (a no-op for contents read into memory); the bytes stay readable:
  // touched again, they are read from the file again.
  void drop_pages(uint64_t offset, uint64_t length) const;
  // For a range about to be read once whole in a file mapped with Reading::Sparse: starts reading
  // [offset, offset + length) from the disk in the background (MADV_WILLNEED), the read-ahead the
  // mapping does not do. A no-op for contents in memory. (Mapping the pages at once with
  // MADV_POPULATE_READ as well was measured: no faster than faulting them in.)
  void prefetch(uint64_t offset, uint64_t length) const;
  // The open descriptor, for in-kernel copies; -1 for stdin contents.
  int fd() const { return fd_; }

 private:
  MappedFile() = default;
  // Maps the file open on `fd`, which the result owns (closed on error too).
  static Expected<MappedFile> map_descriptor(int fd, Reading reading = Reading::Parts);
  void release();

  const std::byte* data_ = nullptr;
  uint64_t size_ = 0;
  int fd_ = -1;
  bool mapped_ = false;
  std::byte* owned_ = nullptr;  // stdin contents, or a file read whole
  uint64_t pooled_ = 0;         // capacity of owned_ when it belongs to the thread's pool
};

// For a one-pass reader of a mapped file: gives back the pages behind it (drop_pages) `step`
// bytes at a time, as it says how far it has read.
class PageDropper {
 public:
  PageDropper(const MappedFile& file, uint64_t step, uint64_t from = 0)
      : file_(file), step_(step), dropped_(from) {}
  // Everything before `offset` is read and will not be looked at again.
  void done_before(uint64_t offset) {
    if (offset < dropped_ + step_) return;
    file_.drop_pages(dropped_, offset - dropped_);
    dropped_ = offset;
  }

 private:
  const MappedFile& file_;
  uint64_t step_;
  uint64_t dropped_;
};

}  // namespace msdt
