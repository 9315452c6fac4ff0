#include "io/directory.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "io/text.h"

namespace msdt {
namespace {

// Set once openat2 answered ENOSYS (or a test asked for the fallback).
std::atomic<bool> g_no_openat2{false};

// What a lookup that was refused because of a symbolic link returns (not an errno).
constexpr int kLinkLeaves = -100000;   // openat2: the link resolves outside the directory
constexpr int kLinkRefused = -100001;  // fallback: a link below the directory, any link

// Every component but the last opened with O_NOFOLLOW, the last with `flags | O_NOFOLLOW`: any
// symbolic link fails the walk. Returns the descriptor or a negative code.
int open_nofollow(int directory_fd, const std::string& relative, int flags, mode_t mode) {
  int current = directory_fd;
  size_t start = 0;
  for (;;) {
    const size_t slash = relative.find('/', start);
    const bool last = slash == std::string::npos;
    const std::string part = relative.substr(start, last ? std::string::npos : slash - start);
    const int part_flags = last ? flags | O_NOFOLLOW : O_PATH | O_DIRECTORY | O_NOFOLLOW;
    int next = ::openat(current, part.c_str(), part_flags | O_CLOEXEC, mode);
    int error = next < 0 ? errno : 0;
    if (next < 0 && (error == ELOOP || error == ENOTDIR || error == EEXIST)) {
      struct stat st {};
      if (::fstatat(current, part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        error = 0;  // a symbolic link: refused as such below
    }
    if (current != directory_fd) ::close(current);
    if (next < 0) return error == 0 ? kLinkRefused : -error;
    if (last) return next;
    current = next;
    start = slash + 1;
  }
}

int open_below(int directory_fd, const std::string& relative, int flags, mode_t mode) {
  if (!g_no_openat2.load(std::memory_order_relaxed)) {
    struct open_how how {};
    how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
    how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
    // No magic links either (/proc/self/fd/N inside a directory under /proc).
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    for (;;) {
      const long fd = ::syscall(SYS_openat2, directory_fd, relative.c_str(), &how, sizeof how);
      if (fd >= 0) return static_cast<int>(fd);
      // EAGAIN: a rename elsewhere raced the lookup, which the kernel does not retry itself.
      if (errno == EINTR || errno == EAGAIN) continue;
      if (errno == EXDEV) return kLinkLeaves;
      if (errno != ENOSYS) return -errno;
      g_no_openat2.store(true, std::memory_order_relaxed);
      break;
    }
  }
  return open_nofollow(directory_fd, relative, flags, mode);
}

Error open_error(int code, const std::filesystem::path& directory) {
  if (code == kLinkLeaves)
    return Error(fmt::format("a symbolic link leads outside '{}'; refused", directory.string()));
  if (code == kLinkRefused)
    return Error(
        fmt::format("a symbolic link below '{}'; refused (this system has no openat2, "
                    "without which no link below the directory is followed)",
                    directory.string()));
  return Error(fmt::format("cannot open: {}", std::strerror(-code)));
}

}  // namespace

Status check_relative_path(std::string_view relative, std::string_view what) {
  if (relative.empty()) return Error(fmt::format("{} is empty", what));
  // Quoted only for a message: the check runs once per output file.
  auto shown = [&] { return quote_for_message(relative); };
  if (relative.find('\0') != std::string_view::npos)
    return Error(fmt::format("{} {} contains a NUL byte", what, shown()));
  if (relative.front() == '/')
    return Error(fmt::format("{} {} is absolute: it could leave its directory", what, shown()));
  size_t start = 0;
  while (start <= relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string_view::npos) end = relative.size();
    const std::string_view part = relative.substr(start, end - start);
    if (part == "..")
      return Error(
          fmt::format("{} {} has a '..' component: it could leave its directory", what, shown()));
    if (part.empty() || part == ".")
      return Error(fmt::format("{} {} has an empty or '.' component", what, shown()));
    if (part.size() >= 256)
      return Error(fmt::format("{} {} has a component of {} bytes (255 at most)", what, shown(),
                               part.size()));
    start = end + 1;
  }
  return std::nullopt;
}

Expected<OpenDirectory> OpenDirectory::open(const std::filesystem::path& path) {
  OpenDirectory directory;
  directory.path_ = path;
  directory.fd_ = ::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (directory.fd_ < 0)
    return Error{fmt::format("cannot open the directory: {}", std::strerror(errno))};
  return directory;
}

OpenDirectory::OpenDirectory(OpenDirectory&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)), made_(other.made_) {}

OpenDirectory& OpenDirectory::operator=(OpenDirectory&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    made_ = other.made_;
  }
  return *this;
}

OpenDirectory::~OpenDirectory() {
  if (fd_ >= 0) ::close(fd_);
}

Expected<OpenDirectory> OpenDirectory::below(std::string_view relative, bool create) const {
  MSDT_CHECK(check_relative_path(relative));
  constexpr int kFlags = O_PATH | O_DIRECTORY;
  const std::string whole(relative);
  OpenDirectory result;
  result.path_ = path_ / whole;
  result.fd_ = open_below(fd_, whole, kFlags, 0);
  if (result.fd_ >= 0) return result;
  if (result.fd_ != -ENOENT || !create) {
    const int code = std::exchange(result.fd_, -1);
    return open_error(code, path_);
  }
  // Made one component at a time: each parent is opened beneath this directory, and mkdirat(2)
  // never follows the name it makes.
  int parent = fd_;
  size_t start = 0;
  for (;;) {
    const size_t slash = whole.find('/', start);
    const std::string prefix = whole.substr(0, slash);
    int here = open_below(fd_, prefix, kFlags, 0);
    bool made = false;
    if (here == -ENOENT) {
      const std::string name =
          whole.substr(start, slash == std::string::npos ? slash : slash - start);
      made = ::mkdirat(parent, name.c_str(), 0777) == 0;
      if (!made && errno != EEXIST) {
        const int error = errno;
        if (parent != fd_) ::close(parent);
        return Error(fmt::format("cannot create the directory '{}': {}", (path_ / prefix).string(),
                                 std::strerror(error)));
      }
      here = open_below(fd_, prefix, kFlags, 0);
    }
    if (parent != fd_) ::close(parent);
    if (here < 0) return open_error(here, path_);
    if (slash == std::string::npos) {
      result.fd_ = here;
      result.made_ = made;
      return result;
    }
    parent = here;
    start = slash + 1;
  }
}

Expected<int> open_beneath(const OpenDirectory& directory, std::string_view relative, int flags,
                           mode_t mode) {
  MSDT_CHECK(check_relative_path(relative));
  const int fd = open_below(directory.fd(), std::string(relative), flags, mode);
  if (fd < 0) return open_error(fd, directory.path());
  return fd;
}

void use_openat2_fallback_for_testing(bool fallback) {
  g_no_openat2.store(fallback, std::memory_order_relaxed);
}

Expected<std::filesystem::path> join_under(const std::filesystem::path& root,
                                           std::string_view relative) {
  MSDT_CHECK(check_relative_path(relative, "output name"));
  return root / std::string(relative);
}

}  // namespace msdt
