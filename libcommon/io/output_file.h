// Output files that appear whole or not at all: data goes to a hidden temporary beside the target
// and is renamed over it on commit(); a file never committed is removed. A crash, a full disk or a
// bad tensor halfway through therefore never leaves a half-written output behind.
#pragma once

#include <filesystem>
#include <string_view>

#include "io/byte_reader.h"

namespace msdt {

class AtomicFile {
 public:
  // The parent directory must exist.
  static Expected<AtomicFile> create(const std::filesystem::path& target);

  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  ~AtomicFile();

  Status write(Bytes data);
  Status write(std::string_view text);
  // Copies `length` bytes starting at `offset` of another descriptor, in the kernel when it can
  // (copy_file_range), which is what lets conversion run at the speed of cp.
  Status copy_from(int fd, uint64_t offset, uint64_t length);
  Status commit();

  const std::filesystem::path& target() const { return target_; }

 private:
  AtomicFile() = default;

  std::filesystem::path target_;
  std::filesystem::path temporary_;
  int fd_ = -1;
  bool committed_ = false;
};

// Writes a whole small file atomically.
Status write_file_atomically(const std::filesystem::path& target, std::string_view contents);

// Joins `relative` (a path taken from a dump, a name, or a user's mirror layout) under `root`,
// refusing anything that could land outside it: absolute paths, "..", empty or "." components,
// NUL bytes, and components of 256 bytes or more.
Expected<std::filesystem::path> join_under(const std::filesystem::path& root,
                                           std::string_view relative);

}  // namespace msdt
