#include "dump/tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <system_error>

#include "dump/ascend_dump.h"
#include "dump/side_files.h"
#include "io/output_file.h"
#include "io/report.h"
#include "io/text.h"
#include "tensor/npy.h"

namespace msdt::dump {
namespace {

namespace fs = std::filesystem;

// "rank_3" with prefix "rank_" gives 3.
template <class T>
std::optional<T> number_after(std::string_view text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return std::nullopt;
  return parse_unsigned<T>(text.substr(prefix.size()));
}

}  // namespace

DumpLocation locate(std::span<const std::string> directories) {
  // parent(k) is the k-th directory above the file: parent(0) holds it.
  auto parent = [&](size_t k) -> std::string_view {
    return k < directories.size() ? std::string_view(directories[directories.size() - 1 - k])
                                  : std::string_view();
  };
  DumpLocation where;

  // msprobe O2 (dump spec §2.6): rank_{r}/{timestamp}/step_{n}/
  if (auto step = number_after<uint64_t>(parent(0), "step_");
      step && is_digits(parent(1)) && number_after<uint32_t>(parent(2), "rank_")) {
    where.rank = number_after<uint32_t>(parent(2), "rank_");
    where.iteration = step;
    where.layout = "msprobe";
    where.depth = {.iteration = 0, .rank = 2};
    return where;
  }
  // 1.3+ (§2.3): rank_{r}/{net}/{graph}/{iteration, constants or init}/; the offline debugger's
  // rank_{r}/debug_files/{iteration}/ (§2.4); the 1.3–2.2 temporary rank_{r}/_/{graph}/0.
  if (auto rank = number_after<uint32_t>(parent(3), "rank_");
      rank && is_digits(parent(1)) &&
      (is_digits(parent(0)) || parent(0) == "constants" || parent(0) == "init")) {
    where.rank = rank;
    where.net = std::string(parent(2));
    where.graph = parse_unsigned<uint32_t>(parent(1));
    if (parent(0) == "constants")
      where.constants = true;
    else if (parent(0) == "init")
      where.iteration = kInitIteration;
    else
      where.iteration = parse_unsigned<uint64_t>(parent(0));
    where.layout = "rank";
    where.depth = {.iteration = 0, .graph = 1, .net = 2, .rank = 3};
    return where;
  }
  if (auto rank = number_after<uint32_t>(parent(2), "rank_");
      rank && parent(1) == "debug_files" && is_digits(parent(0))) {
    where.rank = rank;
    where.iteration = parse_unsigned<uint64_t>(parent(0));
    where.layout = "rank";
    where.depth = {.iteration = 0, .rank = 2};
    return where;
  }
  if (auto rank = number_after<uint32_t>(parent(1), "rank_");
      rank &&
      (parent(0) == "execution_order" || parent(0) == "graphs" || parent(0) == ".dump_metadata")) {
    where.rank = rank;
    where.layout = "rank";
    where.depth = {.rank = 1};
    return where;
  }
  // Ascend O2 (§2.5): [{step}/]{YYYYMMDDhhmmss}/{device}/{model}/{model_id}/{iteration}/
  if (is_digits(parent(0)) && is_digits(parent(1)) && !parent(2).empty() && is_digits(parent(3)) &&
      is_digits(parent(4), 14)) {
    where.rank = parse_unsigned<uint32_t>(parent(3));
    where.net = std::string(parent(2));
    where.graph = parse_unsigned<uint32_t>(parent(1));
    where.iteration = parse_unsigned<uint64_t>(parent(0));
    where.layout = "o2";
    where.depth = {.iteration = 0, .graph = 1, .net = 2, .rank = 3};
    return where;
  }
  // 1.1/1.2 async (§2.2): device_{id}/{net}_graph_{g}/{g}/{iteration}/
  if (auto device = number_after<uint32_t>(parent(3), "device_");
      device && is_digits(parent(0)) && is_digits(parent(1))) {
    std::string_view model = parent(2);
    std::string suffix = fmt::format("_graph_{}", parent(1));
    if (model.ends_with(suffix)) {
      where.rank = device;
      where.net = std::string(model.substr(0, model.size() - suffix.size()));
      where.graph = parse_unsigned<uint32_t>(parent(1));
      where.iteration = parse_unsigned<uint64_t>(parent(0));
      where.layout = "async-1.1";
      where.depth = {.iteration = 0, .graph = 1, .net = 2, .rank = 3};
      return where;
    }
  }
  // 1.1/1.2 sync (§2.1): {net}/device_{id}/iteration_{n}/, CPU {net}/iteration_{n}/
  if (auto iteration = number_after<uint64_t>(parent(0), "iteration_")) {
    where.iteration = iteration;
    where.layout = "sync-1.1";
    if (auto device = number_after<uint32_t>(parent(1), "device_")) {
      where.rank = device;
      where.net = std::string(parent(2));
      where.depth = {.iteration = 0, .net = 2, .rank = 1};
    } else {
      where.net = std::string(parent(1));
      where.depth = {.iteration = 0, .net = 1};
    }
    return where;
  }
  if (auto device = number_after<uint32_t>(parent(1), "device_");
      device && (parent(0) == "execution_order" || parent(0) == "graphs")) {
    where.rank = device;
    where.net = std::string(parent(2));
    where.layout = "sync-1.1";
    where.depth = {.iteration = 0, .net = 2, .rank = 1};
  }
  return where;
}

namespace {

std::vector<std::string> directory_names(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::path absolute = fs::absolute(dir, ec).lexically_normal();
  if (ec) absolute = dir.lexically_normal();
  for (const auto& part : absolute)
    if (part != "/" && !part.empty()) names.push_back(part.string());
  // lexically_normal keeps a trailing empty component for "dir/"; dropped above.
  return names;
}

std::string join_display(std::string_view base, std::string_view name) {
  if (base.empty() || base == ".") return std::string(name);
  if (base.back() == '/') return fmt::format("{}{}", base, name);
  return fmt::format("{}/{}", base, name);
}

// The original name of numerically mapped files (§3.8), keyed by the name on disk.
std::map<std::string, std::string, std::less<>> load_mapping(const fs::path& dir,
                                                             const std::string& display,
                                                             const WalkCallbacks& callbacks) {
  std::map<std::string, std::string, std::less<>> mapping;
  fs::path file = dir / "mapping.csv";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return mapping;
  std::string shown = join_display(display, "mapping.csv");
  auto mapped = MappedFile::open(file);
  if (!mapped) {
    callbacks.error(shown, mapped.error());
    return mapping;
  }
  Bytes bytes = mapped->bytes();
  auto rows = parse_mapping_csv(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  if (!rows) {
    callbacks.error(shown, rows.error());
    return mapping;
  }
  for (auto& [short_name, original] : *rows) {
    // Only the last component names the file; a mapping never moves it elsewhere.
    std::string_view base = original;
    if (auto slash = base.rfind('/'); slash != std::string_view::npos)
      base = base.substr(slash + 1);
    mapping.emplace(short_name, std::string(base));
    // §3.8 does not say whether the short name keeps its ".npy"; accept both spellings.
    if (short_name.find('.') == std::string::npos)
      mapping.emplace(short_name + ".npy", std::string(base));
  }
  return mapping;
}

DumpFile make_file(const fs::path& path, std::string display, std::string stored_name,
                   std::string_view original_name, uint64_t size) {
  DumpFile file;
  file.path = path;
  file.display = std::move(display);
  file.stored_name = std::move(stored_name);
  file.name = parse_dump_file_name(original_name);
  file.size = size;
  return file;
}

// Directories already walked from the current root, by device and inode: a symbolic link back
// up the tree, or a second link to the same directory, is walked once.
using VisitedDirectories = std::set<std::pair<dev_t, ino_t>>;

// What to warn about in one directory, by entry name: said in name order once the directory is
// read, whatever order the file system lists entries in.
using EntryWarnings = std::vector<std::pair<std::string, Error>>;

void warn(const WalkCallbacks& callbacks, const std::string& display, std::string what) {
  if (callbacks.warning) callbacks.warning(display, Error(std::move(what)));
}

std::string_view file_type_name(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISCHR(mode)) return "a character device";
  return "of an unknown type";
}

// Sorts one directory entry into `files` or `subdirectories` (following symbolic links), or says
// why it is skipped. Nothing is opened here: opening a FIFO would block. One fstatat(2) per entry
// (inside the open directory) gives both the type and the size: with many small files the walk's
// system calls count (bench/small_files_bench.sh).
void classify_entry(int directory_fd, const fs::path& dir, const std::string& name,
                    unsigned char d_type, std::vector<std::pair<std::string, uint64_t>>& files,
                    std::vector<std::string>& subdirectories, EntryWarnings& warnings) {
  struct stat st {};
  if (::fstatat(directory_fd, name.c_str(), &st, 0) != 0) {
    const int error = errno;
    struct stat link {};
    const bool is_link = d_type == DT_LNK ||
                         (d_type == DT_UNKNOWN &&
                          ::fstatat(directory_fd, name.c_str(), &link, AT_SYMLINK_NOFOLLOW) == 0 &&
                          S_ISLNK(link.st_mode));
    if (is_link && (error == ENOENT || error == ELOOP)) {
      std::error_code target_ec;
      fs::path target = fs::read_symlink(dir / name, target_ec);
      warnings.emplace_back(name, Error(target_ec ? std::string("dangling symbolic link; skipped")
                                                  : fmt::format("dangling symbolic link to '{}'; "
                                                                "skipped",
                                                                printable_path(target.string()))));
      return;
    }
    warnings.emplace_back(
        name, Error(fmt::format("cannot read the file type: {}; skipped", std::strerror(error))));
    return;
  }
  if (S_ISDIR(st.st_mode)) {
    subdirectories.push_back(name);
  } else if (S_ISREG(st.st_mode)) {
    files.emplace_back(name, static_cast<uint64_t>(st.st_size));
  } else {
    warnings.emplace_back(name, Error(fmt::format("not a regular file ({}); skipped, never opened",
                                                  file_type_name(st.st_mode))));
  }
}

void walk_directory(const fs::path& dir, const std::string& display, const WalkCallbacks& callbacks,
                    VisitedDirectories& visited) {
  DIR* stream = ::opendir(dir.c_str());
  if (!stream) {
    callbacks.error(display, Error(fmt::format("cannot read directory: {}", std::strerror(errno))));
    return;
  }
  struct CloseDir {
    void operator()(DIR* d) const { ::closedir(d); }
  };
  std::unique_ptr<DIR, CloseDir> closer(stream);
  const int directory_fd = ::dirfd(stream);
  struct stat st {};
  if (::fstat(directory_fd, &st) == 0 && !visited.emplace(st.st_dev, st.st_ino).second) {
    warn(callbacks, display,
         "directory already walked (a symbolic link loop, or a second link to it); skipped");
    return;
  }
  std::vector<std::pair<std::string, uint64_t>> files;
  std::vector<std::string> subdirectories;
  EntryWarnings warnings;
  for (;;) {
    errno = 0;
    const struct dirent* entry = ::readdir(stream);
    if (!entry) {
      if (errno != 0) {
        callbacks.error(display,
                        Error(fmt::format("cannot read directory: {}", std::strerror(errno))));
        return;
      }
      break;
    }
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (is_output_temporary(name)) continue;  // left by a dump-convert that was killed
    // Links are followed; `visited` stops a loop of directory links.
    classify_entry(directory_fd, dir, name, entry->d_type, files, subdirectories, warnings);
  }
  closer.reset();
  std::sort(files.begin(), files.end(),
            [](auto& a, auto& b) { return natural_less(a.first, b.first); });
  std::sort(subdirectories.begin(), subdirectories.end(), natural_less);

  std::sort(warnings.begin(), warnings.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [name, warning] : warnings)
    if (callbacks.warning) callbacks.warning(join_display(display, name), warning);

  if (!files.empty()) {
    DumpDirectory group;
    group.path = dir;
    group.display = display;
    std::vector<std::string> names = directory_names(dir);
    group.where = locate(names);
    auto mapping = load_mapping(dir, display, callbacks);
    for (auto& [name, size] : files) {
      auto original = mapping.find(name);
      std::string_view parse_as = original != mapping.end() ? original->second : name;
      group.files.push_back(
          make_file(dir / name, join_display(display, name), name, parse_as, size));
    }
    callbacks.directory(group);
  }
  for (const auto& name : subdirectories)
    walk_directory(dir / name, join_display(display, name), callbacks, visited);
}

// The first bytes of "-" decide: an npy magic, or what a DumpData container could start with.
Status check_standard_input_start(Bytes start) {
  static constexpr std::string_view kNpyMagic = "\x93NUMPY";
  const size_t n = std::min(start.size(), kNpyMagic.size());
  const bool npy = n > 0 && std::memcmp(start.data(), kNpyMagic.data(), n) == 0;
  if (npy || could_start_ascend_dump(start)) return std::nullopt;
  return Error::at_offset(0, "standard input is neither an npy file nor a DumpData container");
}

Expected<DumpFile> read_standard_input() {
  MSDT_TRY(MappedFile contents, MappedFile::read_stdin(std::nullopt, check_standard_input_start));
  DumpFile file;
  file.path = "-";
  file.display = "-";
  file.stored_name = "-";
  file.size = contents.size();
  if (looks_like_npy(contents.bytes()))
    file.name.kind = FileKind::Npy;
  else if (looks_like_ascend_dump(contents.bytes()))
    file.name.kind = FileKind::AscendBinary;
  else
    return Error::at_offset(0, "standard input is neither an npy file nor a DumpData container");
  file.standard_input = std::make_shared<const MappedFile>(std::move(contents));
  return file;
}

}  // namespace

Expected<std::shared_ptr<const MappedFile>> open_dump_file(const DumpFile& file, Reading reading) {
  if (file.standard_input) return file.standard_input;
  MSDT_TRY(MappedFile mapped, MappedFile::open(file.path, reading));
  return std::make_shared<const MappedFile>(std::move(mapped));
}

void walk_dump_tree(std::span<const std::string> roots, const WalkCallbacks& callbacks) {
  for (const std::string& root : roots) {
    if (root == "-") {
      auto input = read_standard_input();
      if (!input) {
        callbacks.error("-", input.error());
        continue;
      }
      DumpDirectory group;
      group.display = "-";
      group.files.push_back(std::move(*input));
      callbacks.directory(group);
      continue;
    }
    fs::path path(root);
    std::error_code ec;
    fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
      callbacks.error(root, Error(fmt::format("cannot open: {}",
                                              ec ? ec.message() : "No such file or directory")));
      continue;
    }
    if (fs::is_directory(status)) {
      VisitedDirectories visited;
      walk_directory(path, root, callbacks, visited);
      continue;
    }
    if (!fs::is_regular_file(status)) {
      callbacks.error(root, Error("not a regular file or directory"));
      continue;
    }
    fs::path parent = path.parent_path();
    if (parent.empty()) parent = ".";
    DumpDirectory group;
    group.path = parent;
    group.display = path.has_parent_path() ? path.parent_path().string() : ".";
    group.where = locate(directory_names(parent));
    std::string name = path.filename().string();
    auto mapping = load_mapping(parent, group.display, callbacks);
    auto original = mapping.find(name);
    std::string_view parse_as = original != mapping.end() ? original->second : name;
    std::error_code size_ec;
    uint64_t size = fs::file_size(path, size_ec);
    group.files.push_back(make_file(path, root, name, parse_as, size_ec ? 0 : size));
    callbacks.directory(group);
  }
}

}  // namespace msdt::dump
