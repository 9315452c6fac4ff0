// Read-only memory-mapped input. Mapping instead of reading keeps memory flat however large the
// dump tree is: pages are brought in by the kernel and dropped under pressure.
#pragma once

#include <filesystem>

#include "io/byte_reader.h"

namespace msdt {

class MappedFile {
 public:
  // Regular files only; an empty file maps to an empty span. "-" is not special here.
  static Expected<MappedFile> open(const std::filesystem::path& path);
  // Reads all of standard input into memory (for "-").
  static Expected<MappedFile> read_stdin();

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  Bytes bytes() const { return {data_, size_}; }
  uint64_t size() const { return size_; }
  // The open descriptor, for in-kernel copies; -1 for stdin contents.
  int fd() const { return fd_; }

 private:
  MappedFile() = default;
  void release();

  const std::byte* data_ = nullptr;
  uint64_t size_ = 0;
  int fd_ = -1;
  bool mapped_ = false;
  std::byte* owned_ = nullptr;  // stdin contents
};

}  // namespace msdt
