// Paths below a directory that the user named: the one check of a relative path that a file, a
// dump or a model supplies (an output name, a MindIR's data file), and files and directories
// opened or made below an open directory without ever leaving it.
//
// The directory the user names (-out DST, --export DIR, the folder of a model file) is opened as
// given, symbolic links included: that is the user's choice. Everything below it is resolved
// beneath it: a symbolic link on the way is followed only while it stays inside (a link to a
// sibling directory is fine; one to /etc, or "../..", is refused with EXDEV), in one system call,
// openat2(2) with RESOLVE_BENEATH (Linux 5.6+). Where openat2 is missing (ENOSYS: an older kernel,
// or a sandbox that filters it) the fallback walks the path one component at a time with
// O_NOFOLLOW and refuses every symbolic link below the directory, even one that stays inside:
// stricter, never weaker.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "io/error.h"

namespace msdt {

// THE check of a relative path taken from data (an output name, a mirrored dump path, a MindIR
// data file name): not empty, no NUL byte, not absolute, and no empty, "." or ".." component nor
// one of 256 bytes or more. `what` names the path in the message ("output name", "data file"):
//   data file '../w.bin' has a '..' component: it could leave its directory
// The check is lexical; where the path is then opened, open_beneath also holds it to the
// directory after symbolic links are resolved.
Status check_relative_path(std::string_view relative, std::string_view what = "path");

// An open directory (O_PATH): files are opened and created in it by name (openat/renameat), so
// that reading or writing many small files does not resolve the whole path for each one, and
// paths below it never lead outside it (see the top of this file). Closed on destruction.
class OpenDirectory {
 public:
  // The directory the user named, symbolic links followed. It must exist.
  static Expected<OpenDirectory> open(const std::filesystem::path& path);
  OpenDirectory(OpenDirectory&& other) noexcept;
  OpenDirectory& operator=(OpenDirectory&& other) noexcept;
  OpenDirectory(const OpenDirectory&) = delete;
  OpenDirectory& operator=(const OpenDirectory&) = delete;
  ~OpenDirectory();

  // The directory `relative` below this one (check_relative_path first), made with its missing
  // parents (mode 0777 less the umask) when `create`, resolved without leaving this one.
  Expected<OpenDirectory> below(std::string_view relative, bool create = false) const;

  int fd() const { return fd_; }
  const std::filesystem::path& path() const { return path_; }
  // True when below() made this directory itself (mkdirat succeeded): every name in it was made
  // by this process since, so an output need not look for a device or FIFO at its name first.
  bool made() const { return made_; }

 private:
  OpenDirectory() = default;
  std::filesystem::path path_;
  int fd_ = -1;
  bool made_ = false;
};

// Opens `relative` below `directory` with open(2) `flags` (O_CLOEXEC is added) and `mode`,
// beneath it as above; the descriptor is the caller's. Errors name no path: the caller's message
// does. A symbolic link that leads outside gives
//   a symbolic link leads outside 'DIR'; refused
Expected<int> open_beneath(const OpenDirectory& directory, std::string_view relative, int flags,
                           mode_t mode = 0);

// Tests only: pretend openat2 is missing (true) so that the O_NOFOLLOW fallback runs, or not.
void use_openat2_fallback_for_testing(bool fallback);

// Joins `relative` (a path taken from a dump, a name, or a user's mirror layout) under `root`
// after check_relative_path(relative, "output name"). Lexical only: to open or create what it
// names, use OpenDirectory::below or open_beneath, which also refuse symbolic links leading out.
Expected<std::filesystem::path> join_under(const std::filesystem::path& root,
                                           std::string_view relative);

}  // namespace msdt
