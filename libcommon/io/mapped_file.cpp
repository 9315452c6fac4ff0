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
#include <string_view>
#include <utility>
#include <vector>

#include "io/text.h"

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

// Buffers of files read whole, kept by each thread for its next file (at most two: a check may
// hold a tensor and its previous value at once).
struct BufferPool {
  std::vector<std::pair<std::byte*, uint64_t>> free;
  ~BufferPool() {
    for (auto& [buffer, capacity] : free) std::free(buffer);
  }
};
thread_local BufferPool t_pool;

std::pair<std::byte*, uint64_t> take_buffer(uint64_t size) {
  for (size_t i = 0; i < t_pool.free.size(); ++i) {
    if (t_pool.free[i].second >= size) {
      auto buffer = t_pool.free[i];
      t_pool.free.erase(t_pool.free.begin() + static_cast<std::ptrdiff_t>(i));
      return buffer;
    }
  }
  uint64_t capacity = std::max<uint64_t>(size, uint64_t{1} << 20);
  return {static_cast<std::byte*>(std::malloc(capacity)), capacity};
}

void give_buffer(std::byte* buffer, uint64_t capacity) {
  std::pair<std::byte*, uint64_t> returned{buffer, capacity};
  if (t_pool.free.size() < 2) {
    t_pool.free.push_back(returned);
    return;
  }
  // Keep the two largest.
  auto smallest =
      std::min_element(t_pool.free.begin(), t_pool.free.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; });
  if (smallest->second < capacity) std::swap(*smallest, returned);
  std::free(returned.first);
}

}  // namespace

Expected<MappedFile> MappedFile::map_descriptor(int fd, Reading reading) {
  MappedFile file;
  file.fd_ = fd;  // closed by `file` whatever happens below
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error{fmt::format("cannot stat: {}", std::strerror(errno))};
  if (!S_ISREG(st.st_mode))
    return Error{S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file"};
  file.size_ = static_cast<uint64_t>(st.st_size);
  if (file.size_ == 0) return file;
  if (reading == Reading::Whole && file.size_ <= kReadLimit) {
    auto [buffer, capacity] = take_buffer(file.size_);
    if (!buffer) return Error{"cannot read: out of memory"};
    uint64_t done = 0;
    while (done < file.size_) {
      ssize_t n = ::pread(fd, buffer + done, file.size_ - done, static_cast<off_t>(done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int error = n < 0 ? errno : 0;
        give_buffer(buffer, capacity);
        return Error{
            error ? fmt::format("cannot read: {}", std::strerror(error))
                  : fmt::format("cannot read: the file ended at byte {} of {}", done, file.size_)};
      }
      done += static_cast<uint64_t>(n);
    }
    file.owned_ = buffer;
    file.pooled_ = capacity;
    file.data_ = buffer;
    return file;
  }
  void* p = ::mmap(nullptr, file.size_, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return Error{fmt::format("cannot map: {}", std::strerror(errno))};
  // Tensor files are read front to back once; tell the kernel to read ahead aggressively. Small
  // files fit in the default read-ahead, where the call would only cost a system call per file.
  // A sparse reader wants no read-ahead at all: around each header it touches, the default (and
  // more so the sequential) read-ahead would read megabytes it never looks at.
  if (reading == Reading::Sparse)
    ::madvise(p, file.size_, MADV_RANDOM);
  else if (file.size_ >= (1u << 20))
    ::madvise(p, file.size_, MADV_SEQUENTIAL);
  file.data_ = static_cast<const std::byte*>(p);
  file.mapped_ = true;
  return file;
}

Expected<MappedFile> MappedFile::open(const std::filesystem::path& path, Reading reading) {
  // O_NONBLOCK: a FIFO put in place of a file must not hang the tool; for a regular file the
  // flag changes nothing.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error{fmt::format("cannot open: {}", std::strerror(errno))};
  return map_descriptor(fd, reading);
}

Expected<MappedFile> MappedFile::open(const OpenDirectory& directory, std::string_view relative,
                                      Reading reading) {
  MSDT_TRY(int fd, open_beneath(directory, relative, O_RDONLY | O_NONBLOCK));
  return map_descriptor(fd, reading);
}

Expected<uint64_t> MappedFile::stdin_limit() {
  const char* text = std::getenv("MSDT_STDIN_LIMIT");
  if (!text || !*text) return kStdinLimit;
  std::string_view value = text;
  unsigned shift = 0;
  switch (value.back()) {
    case 'K':
    case 'k':
      shift = 10;
      break;
    case 'M':
    case 'm':
      shift = 20;
      break;
    case 'G':
    case 'g':
      shift = 30;
      break;
    default:
      break;
  }
  if (shift) value.remove_suffix(1);
  std::optional<uint64_t> count = parse_unsigned<uint64_t>(value);
  if (!count || *count == 0 || *count > (UINT64_MAX >> shift))
    return Error{
        fmt::format("MSDT_STDIN_LIMIT='{}' is not a byte count (such as 4G, 512M or "
                    "1000000)",
                    text)};
  return *count << shift;
}

Status MappedFile::refuse_zero_start(Bytes start) {
  if (start.size() < kStdinStartBytes) return std::nullopt;
  for (std::byte b : start)
    if (b != std::byte{0}) return std::nullopt;
  return Error::at_offset(
      0, fmt::format("standard input starts with {} zero bytes, as no file of this kind does",
                     kStdinStartBytes));
}

Expected<MappedFile> MappedFile::read_stdin(std::optional<uint64_t> limit_given,
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
  // A pipe (or a terminal, a device): read into memory, up to the cap.
  uint64_t limit = 0;
  if (limit_given) {
    limit = *limit_given;
  } else {
    MSDT_TRY(limit, stdin_limit());
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
      return fail(Error{
          fmt::format("standard input is longer than {} bytes, the most \"-\" reads into memory "
                      "(MSDT_STDIN_LIMIT); give the file's path instead",
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
    pooled_ = std::exchange(other.pooled_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() { release(); }

void MappedFile::drop_pages(uint64_t offset, uint64_t length) const {
  if (!mapped_ || offset >= size_) return;
  static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  uint64_t begin = (offset + page - 1) / page * page;
  uint64_t end = std::min(offset + length, size_) / page * page;
  if (end > begin) ::madvise(const_cast<std::byte*>(data_) + begin, end - begin, MADV_DONTNEED);
}

void MappedFile::prefetch(uint64_t offset, uint64_t length) const {
  if (!mapped_ || offset >= size_ || length == 0) return;
  static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t begin = offset / page * page;
  const uint64_t end = std::min(offset + length, size_);
  void* start = const_cast<std::byte*>(data_) + begin;
  ::madvise(start, end - begin, MADV_WILLNEED);
}

void MappedFile::release() {
  if (mapped_) ::munmap(const_cast<std::byte*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
  if (pooled_ != 0)
    give_buffer(owned_, pooled_);
  else
    std::free(owned_);
  pooled_ = 0;
  data_ = nullptr;
  owned_ = nullptr;
  mapped_ = false;
  fd_ = -1;
  size_ = 0;
}

}  // namespace msdt
