// The floor under dump-convert on many small files (bench/small_files_bench.sh): the system calls
// alone, with no parsing, no planning and no conversion. Copies every regular file of SRC (one
// directory, not recursive) into DST (made if missing) with one strategy for creating outputs,
// in one thread, and prints the time it took. Whatever writes its outputs atomically this way
// takes at least this long on this machine; `plain` is what cp does (no atomicity), the others
// are the ways to make an output appear whole or not at all.
//
//   small_files_floor STRATEGY SRC DST
//
// STRATEGY:
//   plain      openat(name, O_CREAT|O_TRUNC) + write + close              (cp; not atomic)
//   rename     openat(temporary, O_CREAT|O_EXCL) + write + close + renameat
//   stat       fstatat(name) + the above (the check for a device or FIFO at the name)
//   tmpfile    openat(O_TMPFILE) + write + linkat(AT_EMPTY_PATH) + close
//   procfs     openat(O_TMPFILE) + write + linkat(/proc/self/fd/N, AT_SYMLINK_FOLLOW) + close
// Each reads its source with openat + read + close in SRC, opened once.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const char* what, const std::string& name) {
  std::fprintf(stderr, "small_files_floor: %s '%s': %s\n", what, name.c_str(),
               std::strerror(errno));
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: small_files_floor plain|rename|stat|tmpfile|procfs SRC DST\n");
    return 2;
  }
  const std::string strategy = argv[1];
  if (strategy != "plain" && strategy != "rename" && strategy != "stat" && strategy != "tmpfile" &&
      strategy != "procfs") {
    std::fprintf(stderr, "small_files_floor: unknown strategy '%s'\n", argv[1]);
    return 2;
  }
  std::vector<std::string> names;
  DIR* d = ::opendir(argv[2]);
  if (!d) die("cannot read", argv[2]);
  while (const dirent* e = ::readdir(d))
    if (e->d_type == DT_REG) names.emplace_back(e->d_name);
  ::closedir(d);
  ::mkdir(argv[3], 0777);
  const int src = ::open(argv[2], O_PATH | O_DIRECTORY | O_CLOEXEC);
  const int dst = ::open(argv[3], O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (src < 0 || dst < 0) die("cannot open", src < 0 ? argv[2] : argv[3]);
  std::vector<char> buffer(1 << 20);
  const auto start = std::chrono::steady_clock::now();
  unsigned long counter = 0;
  for (const std::string& name : names) {
    int in = ::openat(src, name.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) die("cannot open", name);
    const ssize_t n = ::read(in, buffer.data(), buffer.size());
    ::close(in);
    if (n < 0) die("cannot read", name);
    int out = -1;
    std::string temporary;
    if (strategy == "plain") {
      out = ::openat(dst, name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    } else if (strategy == "rename" || strategy == "stat") {
      struct stat st {};
      if (strategy == "stat") ::fstatat(dst, name.c_str(), &st, AT_SYMLINK_NOFOLLOW);
      temporary = ".tmp." + std::to_string(counter++);
      out = ::openat(dst, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    } else {
      out = ::openat(dst, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    }
    if (out < 0) die("cannot create", name);
    if (::write(out, buffer.data(), static_cast<size_t>(n)) != n) die("cannot write", name);
    if (strategy == "tmpfile") {
      if (::linkat(out, "", dst, name.c_str(), AT_EMPTY_PATH) != 0) die("cannot link", name);
    } else if (strategy == "procfs") {
      const std::string proc = "/proc/self/fd/" + std::to_string(out);
      if (::linkat(AT_FDCWD, proc.c_str(), dst, name.c_str(), AT_SYMLINK_FOLLOW) != 0)
        die("cannot link", name);
    }
    if (::close(out) != 0) die("cannot write", name);
    if (!temporary.empty() && ::renameat(dst, temporary.c_str(), dst, name.c_str()) != 0)
      die("cannot rename", name);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s %zu files %.3f s\n", strategy.c_str(), names.size(), seconds);
  return 0;
}
