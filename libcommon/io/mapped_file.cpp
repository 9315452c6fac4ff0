#include "io/mapped_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace msdt {

Expected<MappedFile> MappedFile::open(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{fmt::format("cannot open: {}", std::strerror(errno))};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Error{fmt::format("cannot stat: {}", std::strerror(e))};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file"};
  }
  MappedFile file;
  file.fd_ = fd;
  file.size_ = static_cast<uint64_t>(st.st_size);
  if (file.size_ == 0) return file;
  void* p = ::mmap(nullptr, file.size_, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return Error{fmt::format("cannot map: {}", std::strerror(errno))};
  // Tensor files are read front to back once; tell the kernel to read ahead aggressively. Small
  // files fit in the default read-ahead, where the call would only cost a system call per file.
  if (file.size_ >= (1u << 20)) ::madvise(p, file.size_, MADV_SEQUENTIAL);
  file.data_ = static_cast<const std::byte*>(p);
  file.mapped_ = true;
  return file;
}

Expected<MappedFile> MappedFile::read_stdin() {
  MappedFile file;
  size_t capacity = 1 << 16;
  size_t size = 0;
  auto* buffer = static_cast<std::byte*>(std::malloc(capacity));
  if (!buffer) return Error{"out of memory reading standard input"};
  for (;;) {
    if (size == capacity) {
      capacity *= 2;
      auto* grown = static_cast<std::byte*>(std::realloc(buffer, capacity));
      if (!grown) {
        std::free(buffer);
        return Error{"out of memory reading standard input"};
      }
      buffer = grown;
    }
    ssize_t n = ::read(STDIN_FILENO, buffer + size, capacity - size);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      std::free(buffer);
      return Error{fmt::format("cannot read standard input: {}", std::strerror(e))};
    }
    if (n == 0) break;
    size += static_cast<size_t>(n);
  }
  file.owned_ = buffer;
  file.data_ = buffer;
  file.size_ = size;
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    fd_ = std::exchange(other.fd_, -1);
    mapped_ = std::exchange(other.mapped_, false);
    owned_ = std::exchange(other.owned_, nullptr);
  }
  return *this;
}

MappedFile::~MappedFile() { release(); }

void MappedFile::release() {
  if (mapped_) ::munmap(const_cast<std::byte*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
  std::free(owned_);
  data_ = nullptr;
  owned_ = nullptr;
  mapped_ = false;
  fd_ = -1;
  size_ = 0;
}

}  // namespace msdt
