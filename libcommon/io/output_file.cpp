#include "io/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "io/text.h"

namespace msdt {
namespace {

std::string errno_text() { return std::strerror(errno); }

constexpr std::string_view kTemporaryPrefix = ".msdt-tmp.";

// ---- The registry of open temporaries, emptied by the handler of stopping signals. ----
//
// Only lock-free atomics and unlinkat(2) are touched by the handler, both async-signal-safe. A
// slot is armed (state 2) only once its directory and name are complete.
struct TemporarySlot {
  std::atomic<int> state{0};  // 0 free, 1 being filled or emptied, 2 armed
  int directory_fd = -1;
  std::array<char, 48> name{};
};
constexpr size_t kSlots = 4096;  // workers are at most 1024, each with one temporary at a time
std::array<TemporarySlot, kSlots> g_slots;
static_assert(std::atomic<int>::is_always_lock_free);

void remove_temporaries_and_reraise(int signal_number) {
  for (TemporarySlot& slot : g_slots)
    if (slot.state.load(std::memory_order_acquire) == 2)
      ::unlinkat(slot.directory_fd, slot.name.data(), 0);
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

void install_signal_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      if (::sigaction(signal_number, nullptr, &old) != 0) continue;
      // An ignored signal (nohup) stays ignored; a handler someone else installed stays theirs.
      if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
      struct sigaction action {};
      action.sa_handler = remove_temporaries_and_reraise;
      sigemptyset(&action.sa_mask);
      ::sigaction(signal_number, &action, nullptr);
    }
  });
}

// Returns the slot, or -1 when all are taken (the temporary is then only removed by the
// destructor, not on a signal).
int register_temporary(int directory_fd, std::string_view name) {
  if (name.size() >= std::tuple_size_v<decltype(TemporarySlot::name)>) return -1;
  static std::atomic<size_t> hint{0};
  size_t start = hint.fetch_add(1, std::memory_order_relaxed);
  for (size_t k = 0; k < kSlots; ++k) {
    TemporarySlot& slot = g_slots[(start + k) % kSlots];
    int expected = 0;
    if (!slot.state.compare_exchange_strong(expected, 1, std::memory_order_acquire)) continue;
    slot.directory_fd = directory_fd;
    std::memcpy(slot.name.data(), name.data(), name.size());
    slot.name[name.size()] = '\0';
    slot.state.store(2, std::memory_order_release);
    return static_cast<int>((start + k) % kSlots);
  }
  return -1;
}

void unregister_temporary(int slot) {
  if (slot < 0) return;
  g_slots[static_cast<size_t>(slot)].state.store(1, std::memory_order_release);
  g_slots[static_cast<size_t>(slot)].state.store(0, std::memory_order_release);
}

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

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool is_output_temporary(std::string_view name) {
  if (name.starts_with(kTemporaryPrefix)) return true;
  // ".NAME.tmpPID.N", written by msdt 0.1.
  if (!name.starts_with('.')) return false;
  size_t last_dot = name.rfind('.');
  size_t tmp = name.rfind(".tmp", last_dot == 0 ? 0 : last_dot - 1);
  if (last_dot == std::string_view::npos || tmp == std::string_view::npos || tmp == 0) return false;
  return all_digits(name.substr(last_dot + 1)) &&
         all_digits(name.substr(tmp + 4, last_dot - tmp - 4));
}

Expected<AtomicFile> AtomicFile::create(const OpenDirectory& directory, std::string_view name,
                                        Links links) {
  if (name.find('/') != std::string_view::npos)
    return Error{fmt::format("output name {} is not a file name", quote_for_message(name))};
  MSDT_CHECK(check_relative_path(name, "output name"));
  install_signal_cleanup();
  static std::atomic<uint64_t> counter{0};
  static const pid_t pid = ::getpid();
  AtomicFile file;
  file.directory_fd_ = directory.fd();
  file.name_ = name;
  // A target that exists and is neither a regular file nor a directory (a device such as
  // /dev/null or /dev/stdout's terminal, a FIFO, a socket), also through a symbolic link, is
  // written in place: renaming over it would replace the device node with a regular file (as
  // root, /dev/null itself), and such outputs are streams with nothing half-written to hide.
  // Through a symbolic link only at a name the user gave.
  // Not looked for in a directory this process made (below()): nobody else put a node there, and
  // with many small outputs the failing lookup is a system call per file.
  struct stat target {};
  const int stat_flags = links == Links::Follow ? 0 : AT_SYMLINK_NOFOLLOW;
  if (!directory.made() &&
      ::fstatat(file.directory_fd_, file.name_.c_str(), &target, stat_flags) == 0 &&
      !S_ISLNK(target.st_mode) && !S_ISREG(target.st_mode) && !S_ISDIR(target.st_mode)) {
    file.fd_ = ::openat(file.directory_fd_, file.name_.c_str(),
                        O_WRONLY | O_CLOEXEC | (links == Links::Follow ? 0 : O_NOFOLLOW));
    if (file.fd_ < 0) return Error{fmt::format("cannot open output: {}", errno_text())};
    return file;
  }
  // Short whatever the target's length, and unique per process and call, so parallel writers
  // (and several processes writing into one DST) never collide.
  file.temporary_ = fmt::format("{}{}.{}", kTemporaryPrefix, pid, counter.fetch_add(1));
  // Registered before it exists, so that no signal can come between creation and registration.
  file.slot_ = register_temporary(file.directory_fd_, file.temporary_);
  file.fd_ = ::openat(file.directory_fd_, file.temporary_.c_str(),
                      O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (file.fd_ < 0) {
    std::string why = errno_text();
    unregister_temporary(std::exchange(file.slot_, -1));
    file.temporary_.clear();
    return Error{fmt::format("cannot create output: {}", why)};
  }
  return file;
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : directory_fd_(other.directory_fd_),
      name_(std::move(other.name_)),
      temporary_(std::exchange(other.temporary_, std::string())),
      fd_(std::exchange(other.fd_, -1)),
      slot_(std::exchange(other.slot_, -1)) {}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  if (!temporary_.empty()) ::unlinkat(directory_fd_, temporary_.c_str(), 0);
  temporary_.clear();
  unregister_temporary(std::exchange(slot_, -1));
}

Status AtomicFile::write(Bytes data) { return write_all(fd_, data.data(), data.size()); }

Status AtomicFile::write(std::string_view text) {
  return write_all(fd_, reinterpret_cast<const std::byte*>(text.data()), text.size());
}

Status AtomicFile::write(Bytes first, Bytes second) {
  iovec pieces[2] = {{const_cast<std::byte*>(first.data()), first.size()},
                     {const_cast<std::byte*>(second.data()), second.size()}};
  ssize_t n;
  do {
    n = ::writev(fd_, pieces, 2);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return Error{fmt::format("cannot write: {}", errno_text())};
  // A short write (a full disk, a signal) continues piece by piece.
  auto done = static_cast<uint64_t>(n);
  if (done < first.size()) {
    MSDT_CHECK(write(first.subspan(done)));
    done = first.size();
  }
  return write(second.subspan(done - first.size()));
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
  if (temporary_.empty()) return std::nullopt;  // written in place (create())
  if (::renameat(directory_fd_, temporary_.c_str(), directory_fd_, name_.c_str()) != 0)
    return Error{fmt::format("cannot rename output into place: {}", errno_text())};
  temporary_.clear();
  unregister_temporary(std::exchange(slot_, -1));
  return std::nullopt;
}

Status write_file_atomically(const std::filesystem::path& target, std::string_view contents) {
  std::filesystem::path parent = target.parent_path();
  MSDT_TRY(OpenDirectory directory, OpenDirectory::open(parent.empty() ? "." : parent));
  MSDT_TRY(AtomicFile file,
           AtomicFile::create(directory, target.filename().string(), Links::Follow));
  MSDT_CHECK(file.write(contents));
  return file.commit();
}

Status write_file_atomically(const OpenDirectory& directory, std::string_view name,
                             std::string_view contents) {
  MSDT_TRY(AtomicFile file, AtomicFile::create(directory, name));
  MSDT_CHECK(file.write(contents));
  return file.commit();
}

}  // namespace msdt
