#include "io/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace msdt {
namespace {

std::string errno_text() { return std::strerror(errno); }

Status write_all(int fd, const std::byte* data, uint64_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{fmt::format("cannot write: {}", errno_text())};
    }
    data += n;
    size -= static_cast<uint64_t>(n);
  }
  return std::nullopt;
}

}  // namespace

Expected<AtomicFile> AtomicFile::create(const std::filesystem::path& target) {
  static std::atomic<unsigned> counter{0};
  static const pid_t pid = ::getpid();
  AtomicFile file;
  file.target_ = target;
  // Hidden, and unique per process and call, so parallel writers never collide.
  file.temporary_ = target.parent_path() / fmt::format(".{}.tmp{}.{}", target.filename().string(),
                                                       pid, counter.fetch_add(1));
  file.fd_ = ::open(file.temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (file.fd_ < 0) return Error{fmt::format("cannot create output: {}", errno_text())};
  return file;
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : target_(std::move(other.target_)),
      temporary_(std::move(other.temporary_)),
      fd_(std::exchange(other.fd_, -1)),
      committed_(std::exchange(other.committed_, true)) {}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temporary_.empty()) ::unlink(temporary_.c_str());
}

Status AtomicFile::write(Bytes data) { return write_all(fd_, data.data(), data.size()); }

Status AtomicFile::write(std::string_view text) {
  return write_all(fd_, reinterpret_cast<const std::byte*>(text.data()), text.size());
}

Status AtomicFile::copy_from(int fd, uint64_t offset, uint64_t length) {
  auto in_offset = static_cast<off_t>(offset);
  while (length > 0) {
    ssize_t n = ::copy_file_range(fd, &in_offset, fd_, nullptr, length, 0);
    if (n < 0 && (errno == EINTR)) continue;
    if (n <= 0) break;  // unsupported here (or a short source): fall back to read/write below
    length -= static_cast<uint64_t>(n);
  }
  std::byte buffer[1 << 16];
  while (length > 0) {
    ssize_t n = ::pread(fd, buffer, std::min<uint64_t>(sizeof buffer, length), in_offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{fmt::format("cannot read input: {}", errno_text())};
    if (n == 0) return Error{"input ended while copying"};
    MSDT_CHECK(write_all(fd_, buffer, static_cast<uint64_t>(n)));
    in_offset += n;
    length -= static_cast<uint64_t>(n);
  }
  return std::nullopt;
}

Status AtomicFile::commit() {
  if (::close(std::exchange(fd_, -1)) != 0)
    return Error{fmt::format("cannot write: {}", errno_text())};
  if (::rename(temporary_.c_str(), target_.c_str()) != 0)
    return Error{fmt::format("cannot rename output into place: {}", errno_text())};
  committed_ = true;
  return std::nullopt;
}

Status write_file_atomically(const std::filesystem::path& target, std::string_view contents) {
  MSDT_TRY(AtomicFile file, AtomicFile::create(target));
  MSDT_CHECK(file.write(contents));
  return file.commit();
}

Expected<std::filesystem::path> join_under(const std::filesystem::path& root,
                                           std::string_view relative) {
  if (relative.empty()) return Error{"empty output name"};
  if (relative.front() == '/') return Error{fmt::format("output name '{}' is absolute", relative)};
  if (relative.find('\0') != std::string_view::npos)
    return Error{"output name contains a NUL byte"};
  std::filesystem::path result = root;
  size_t start = 0;
  while (start <= relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string_view::npos) end = relative.size();
    std::string_view part = relative.substr(start, end - start);
    if (part.empty() || part == "." || part == "..")
      return Error{
          fmt::format("output name '{}' has a '{}' component that could leave the "
                      "output folder",
                      relative, part)};
    if (part.size() >= 256)
      return Error{fmt::format("output name component of {} bytes is too long", part.size())};
    result /= std::string(part);
    start = end + 1;
  }
  return result;
}

}  // namespace msdt
