#include "io/mapped_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace msdt {

namespace {

// read(2) until `size` bytes or the end of input; the count read, or the errno.
Expected<size_t> read_fully(int fd, std::byte* into, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, into + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{fmt::format("cannot read standard input: {}", std::strerror(errno))};
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

}  // namespace

Expected<MappedFile> MappedFile::map_descriptor(int fd) {
  MappedFile file;
  file.fd_ = fd;  // closed by `file` whatever happens below
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error{fmt::format("cannot stat: {}", std::strerror(errno))};
  if (!S_ISREG(st.st_mode))
    return Error{S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file"};
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

Expected<MappedFile> MappedFile::open(const std::filesystem::path& path) {
  // O_NONBLOCK: a FIFO put in place of a file must not hang the tool; for a regular file the
  // flag changes nothing.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error{fmt::format("cannot open: {}", std::strerror(errno))};
  return map_descriptor(fd);
}

Expected<MappedFile> MappedFile::read_stdin(uint64_t limit,
                                            const std::function<Status(Bytes)>& check_start) {
  struct stat st {};
  // A redirected regular file is mapped: no copy, no limit, and it is read only where looked at.
  if (::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) &&
      ::lseek(STDIN_FILENO, 0, SEEK_CUR) == 0) {
    int fd = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
    if (fd >= 0) {
      if (auto mapped = map_descriptor(fd)) {
        if (check_start) {
          Bytes all = mapped->bytes();
          MSDT_CHECK(check_start(all.first(std::min<uint64_t>(all.size(), kStdinStartBytes))));
        }
        return mapped;
      }
    }
  }
  MappedFile file;
  size_t capacity = 1 << 16;
  auto* buffer = static_cast<std::byte*>(std::malloc(capacity));
  if (!buffer) return Error{"out of memory reading standard input"};
  auto fail = [&](Error error) -> Expected<MappedFile> {
    std::free(buffer);
    return error;
  };
  auto head = read_fully(STDIN_FILENO, buffer, kStdinStartBytes);
  if (!head) return fail(std::move(head).error());
  size_t size = *head;
  if (check_start) {
    if (auto status = check_start(Bytes(buffer, size))) return fail(std::move(*status));
  }
  bool at_end = size < kStdinStartBytes;
  while (!at_end) {
    if (size >= limit) {
      // One more byte tells an input of exactly `limit` bytes from a longer one.
      std::byte probe{};
      auto more = read_fully(STDIN_FILENO, &probe, 1);
      if (!more) return fail(std::move(more).error());
      if (*more == 0) break;
      return fail(Error{fmt::format(
          "standard input is longer than {} bytes, the most \"-\" reads into memory; give the "
          "file's path instead",
          limit)});
    }
    if (size == capacity) {
      capacity = static_cast<size_t>(std::min<uint64_t>(uint64_t{capacity} * 2, limit));
      auto* grown = static_cast<std::byte*>(std::realloc(buffer, capacity));
      if (!grown) return fail(Error{"out of memory reading standard input"});
      buffer = grown;
    }
    const size_t room = static_cast<size_t>(std::min<uint64_t>(capacity, limit)) - size;
    ssize_t n = ::read(STDIN_FILENO, buffer + size, room);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(Error{fmt::format("cannot read standard input: {}", std::strerror(errno))});
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
