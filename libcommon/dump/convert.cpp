// dump-convert's run: the sources under -d, one conversion per source on the worker pool, the
// output directories under DST, and the records of the run (mapping.csv, the failed list).
#include "dump/convert.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>

#include "dump/convert_internal.h"
#include "io/mapped_file.h"
#include "io/output_file.h"
#include "io/parallel.h"
#include "io/text.h"

namespace msdt::dump {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kFailedList = "convert_failed_file_list.txt";

// Small files (bench/compare_commands.sh, "small files"): sources up to this size are read whole
// with read(2) instead of being mapped (mmap + munmap + page faults cost more than the copy), their
// outputs are written from memory with one writev of header and elements (copy_file_range only
// pays off on large regions), files are opened inside directories opened once (openat instead of
// whole paths), and each output is renamed into place from a short temporary name (see
// io/output_file.h for why rename). Measured on tmpfs, 10 000 tensors of ~4 KiB: 0.39 s CPU before,
// 0.28 s after; cp -r 0.19 s.
constexpr uint64_t kReadWholeLimit = 256 * 1024;

struct SourceFile {
  DumpFile file;
  // The directory holding the file, opened once for all its files; null for standard input.
  std::shared_ptr<const OpenDirectory> directory;
  std::string relative_dir;  // under DST; empty for DST itself
  std::string conflict;      // another source whose outputs would have the same names
};

// The bytes of one source: read into memory when small, mapped otherwise.
struct SourceBytes {
  std::shared_ptr<const MappedFile> mapped;
  std::unique_ptr<std::byte[]> buffer;  // not zeroed first: read(2) fills it
  Bytes contents;
  int fd = -1;  // for in-kernel copies; -1 when the bytes are in memory only
};

std::string errno_text() { return std::strerror(errno); }

Expected<SourceBytes> open_source(const SourceFile& source_file) {
  const DumpFile& file = source_file.file;
  SourceBytes source;
  if (!file.standard_input && file.size <= kReadWholeLimit) {
    // In its directory, by its name on disk (stored_name: what the walk read from it).
    int fd = source_file.directory ? ::openat(source_file.directory->fd(), file.stored_name.c_str(),
                                              O_RDONLY | O_CLOEXEC)
                                   : ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error{fmt::format("cannot open: {}", errno_text())};
    // One byte more than the walk saw, to notice a file that grew since.
    const uint64_t capacity = file.size + 1;
    source.buffer = std::make_unique_for_overwrite<std::byte[]>(capacity);
    uint64_t have = 0;
    while (have < capacity) {
      ssize_t n = ::read(fd, source.buffer.get() + have, capacity - have);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        std::string why = errno_text();
        ::close(fd);
        return Error{fmt::format("cannot read: {}", why)};
      }
      if (n == 0) break;
      have += static_cast<uint64_t>(n);
      // A regular file reads short only at its end: no second call just to see 0.
      if (have <= file.size) break;
    }
    ::close(fd);
    if (have <= file.size) {
      source.contents = Bytes(source.buffer.get(), have);
      return source;
    }
    source.buffer.reset();  // it grew: map it instead
  }
  MSDT_TRY(source.mapped, open_dump_file(file));
  source.contents = source.mapped->bytes();
  source.fd = source.mapped->fd();
  return source;
}

class RunState {
 public:
  RunState(const ConvertOptions& run_options, Diagnostics& run_diagnostics)
      : options(run_options), diagnostics(run_diagnostics) {}

  const ConvertOptions& options;
  Diagnostics& diagnostics;
  ProgressBar* progress = nullptr;
  fs::path destination;
  std::optional<OpenDirectory> root;  // DST, opened once made
  bool to_stdout = false;
  bool usage_error = false;

  enum class Level { Error, OutputError, Warning };
  void report(Level level, std::string_view file, const Error& error) {
    std::lock_guard lock(report_mutex_);
    auto print = [&] {
      if (level == Level::Warning)
        diagnostics.warning(file, error);
      else if (level == Level::OutputError)
        diagnostics.output_error(file, error);
      else
        diagnostics.error(file, error);
    };
    if (progress)
      progress->print_line(print);
    else
      print();
  }

  void list_failed(size_t index, std::string display) {
    std::lock_guard lock(mutex_);
    failed_.emplace_back(index, std::move(display));
  }

  void add_mapping_line(const std::string& relative_dir, size_t index, std::string line) {
    std::lock_guard lock(mutex_);
    mapping_lines_[relative_dir].emplace_back(index, std::move(line));
  }

  // The open output directory DST/relative, made on first use. Small tensors are many, and
  // resolving the whole path again for each one costs as much as writing it. DST is the user's;
  // the directories below it are made and opened beneath it (io/directory.h), so that a symbolic
  // link planted under DST that leads outside is refused, not written through. `first` is true
  // for the first caller that gets a directory's error, so that it is reported once.
  Expected<const OpenDirectory*> directory(const std::string& relative, bool& first) {
    std::lock_guard lock(mutex_);
    first = false;
    if (relative.empty()) return &*root;
    auto [it, fresh] = directories_.try_emplace(relative);
    if (fresh) {
      it->second = std::make_unique<Expected<OpenDirectory>>(root->below(relative, true));
      first = !*it->second;
    }
    if (!*it->second) return it->second->error();
    return &**it->second;
  }

  // Claims DST/relative/name for source `index`; returns the source that claimed it first.
  size_t claim(const std::string& relative, const std::string& name, size_t index) {
    std::lock_guard lock(mutex_);
    return claims_.try_emplace(relative + '/' + name, index).first->second;
  }

  // The sources of the run, for messages that name another source.
  const std::vector<SourceFile>* sources = nullptr;
  const std::string& display(size_t index) const { return (*sources)[index].file.display; }

  // mapping.csv per output directory, and the failed list; called once the workers are done.
  void write_records();

 private:
  std::mutex report_mutex_;
  std::mutex mutex_;  // guards the members below
  std::map<std::string, std::vector<std::pair<size_t, std::string>>> mapping_lines_;
  std::vector<std::pair<size_t, std::string>> failed_;
  std::unordered_map<std::string, std::unique_ptr<Expected<OpenDirectory>>> directories_;
  std::unordered_map<std::string, size_t> claims_;
};

// mapping.csv of one output directory: lines of earlier runs kept, new ones appended once.
Status write_mapping(const OpenDirectory& directory,
                     std::vector<std::pair<size_t, std::string>> lines) {
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string text;
  std::set<std::string, std::less<>> present;
  if (auto existing = MappedFile::open(directory, "mapping.csv")) {
    Bytes bytes = existing->bytes();
    text.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (!text.empty() && text.back() != '\n') text += '\n';
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      present.emplace(text.substr(start, end - start));
      start = end + 1;
    }
  }
  for (auto& [index, line] : lines) {
    if (!present.insert(line).second) continue;
    text += line;
    text += '\n';
  }
  return write_file_atomically(directory, "mapping.csv", text);
}

void RunState::write_records() {
  for (auto& [relative, lines] : mapping_lines_) {
    bool first = false;
    auto directory = this->directory(relative, first);
    if (!directory) continue;  // its outputs failed too, and said why
    if (Status status = write_mapping(**directory, std::move(lines)))
      report(Level::OutputError, ((*directory)->path() / "mapping.csv").string(), *status);
  }
  fs::path list = destination / kFailedList;
  if (failed_.empty()) {
    // A clean rerun leaves no stale list behind.
    if (::unlinkat(root->fd(), kFailedList.data(), 0) != 0 && errno != ENOENT)
      report(
          Level::OutputError, list.string(),
          Error{fmt::format("cannot remove the failed list of an earlier run: {}", errno_text())});
    return;
  }
  std::sort(failed_.begin(), failed_.end());
  failed_.erase(std::unique(failed_.begin(), failed_.end()), failed_.end());
  std::string text;
  for (const auto& [index, display] : failed_) text += display + '\n';
  if (Status status = write_file_atomically(*root, kFailedList, text))
    report(Level::OutputError, list.string(), *status);
}

// One source: planned, then each output written as soon as it is planned (or, for `-out -`,
// kept until the whole source is planned).
class SourceConversion {
 public:
  SourceConversion(RunState& state, const SourceFile& source, size_t index)
      : state_(state), source_(source), index_(index) {}

  void run() {
    const DumpFile& file = source_.file;
    if (!source_.conflict.empty()) {
      fail(Error{fmt::format(
          "not converted: its outputs would have the same names as those of '{}' in the same "
          "output directory; convert them into separate -out directories",
          source_.conflict)});
    } else if (auto opened = open_source(source_); !opened) {
      fail(std::move(opened).error());
    } else {
      bytes_ = std::move(*opened);
      basename_ = file.stored_name == "-" ? std::string("stdin") : file.stored_name;
      PlanCallbacks callbacks;
      callbacks.emit = [this](PlannedOutput&& out) { emit(std::move(out)); };
      callbacks.fail = [this](Error error) { fail(std::move(error)); };
      callbacks.warning = [this](Error error) {
        state_.report(RunState::Level::Warning, source_.file.display, error);
      };
      if (Status status = plan_outputs(state_.options, file, basename_, bytes_.contents, callbacks))
        fail(std::move(*status));
      if (state_.to_stdout) write_to_stdout();
    }
    if (failed_) state_.list_failed(index_, file.display);
  }

 private:
  void emit(PlannedOutput&& out) {
    if (state_.to_stdout) {
      planned_.push_back(std::move(out));
      return;
    }
    write_to_file(out);
  }

  void write_to_file(const PlannedOutput& out) {
    const std::string& name = out.name.name;
    // Names come from the source's name and (for -t msnpy) the container's op_name: never a
    // path, so nothing inside a dump can name a directory.
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
        name.find('\0') != std::string::npos)
      return fail(Error{fmt::format("output name {} is not a file name", quote_for_message(name))});
    size_t owner = state_.claim(source_.relative_dir, name, index_);
    if (owner != index_)
      return fail(Error{fmt::format("not written: output {} is written from '{}' too",
                                    quote_for_message(name), state_.display(owner))});
    if (out.name.mapping_line)
      state_.add_mapping_line(source_.relative_dir, index_, *out.name.mapping_line);
    bool first = false;
    auto directory = state_.directory(source_.relative_dir, first);
    if (!directory) {
      if (first)
        return output_failed(state_.destination / source_.relative_dir,
                             std::move(directory).error());
      failed_ = true;  // its directory's error was reported with the first of its files
      return;
    }
    if (state_.options.skip_existing && up_to_date(**directory, name)) return;
    auto target = [&] { return (*directory)->path() / name; };
    auto file = AtomicFile::create(**directory, name);
    if (!file) return output_failed(target(), std::move(file).error());
    FileSink sink(*file, bytes_.fd, bytes_.contents.data());
    if (Status status = write_output(out, state_.options.bf16, bytes_.contents, sink)) {
      // Conversion errors are the input's fault; write failures are the output's.
      if (sink.output_failed()) return output_failed(target(), std::move(*status));
      return fail(std::move(*status).with_context(name));
    }
    if (Status status = file->commit()) return output_failed(target(), std::move(*status));
  }

  void write_to_stdout() {
    if (failed_) return;
    if (planned_.size() != 1) {
      if (planned_.empty()) return fail(Error{"the file holds no tensor to write"});
      state_.usage_error = true;
      state_.report(RunState::Level::Error, source_.file.display,
                    Error{fmt::format("'-out -' writes one tensor but this file gives {} outputs; "
                                      "pick one with -f FORMAT and -o/-i INDEX",
                                      planned_.size())});
      return;
    }
    StdoutSink sink;
    if (Status status = write_output(planned_.front(), state_.options.bf16, bytes_.contents, sink))
      state_.report(RunState::Level::OutputError, source_.file.display, *status);
  }

  // --skip-existing: the output is at least as new as its source.
  bool up_to_date(const OpenDirectory& directory, const std::string& name) const {
    if (source_.file.standard_input) return false;  // standard input has no date to compare
    struct stat source {
    }, target{};
    if (::stat(source_.file.path.c_str(), &source) != 0) return false;
    if (::fstatat(directory.fd(), name.c_str(), &target, 0) != 0) return false;
    if (target.st_mtim.tv_sec != source.st_mtim.tv_sec)
      return target.st_mtim.tv_sec > source.st_mtim.tv_sec;
    return target.st_mtim.tv_nsec >= source.st_mtim.tv_nsec;
  }

  void fail(Error error) {
    failed_ = true;
    state_.report(RunState::Level::Error, source_.file.display, error);
  }

  // The output could not be written: exit 3, and the source is listed as not converted.
  void output_failed(const fs::path& target, Error error) {
    failed_ = true;
    state_.report(RunState::Level::OutputError, target.string(), error);
  }

  RunState& state_;
  const SourceFile& source_;
  size_t index_;
  SourceBytes bytes_;
  std::string basename_;
  bool failed_ = false;
  std::vector<PlannedOutput> planned_;
};

bool contains(const fs::path& outer, const fs::path& inner) {
  auto [o, i] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return o == outer.end();
}

// -out and the -d paths must not overlap so that outputs could be read as inputs or written over
// them (a .npy given as -d inside DST would be rewritten in place). DST inside a -d directory is
// allowed: the walk skips it.
Status check_destination(const ConvertOptions& options, const fs::path& destination) {
  std::error_code ec;
  fs::path out = fs::weakly_canonical(destination, ec);
  if (ec) return std::nullopt;
  for (const std::string& root : options.sources) {
    if (root == "-" || !fs::exists(root, ec)) continue;
    fs::path in = fs::weakly_canonical(root, ec);
    if (ec) continue;
    if (in == out)
      return Error{fmt::format(
          "-out '{}' is the -d directory itself: outputs would be mixed with the dump; choose "
          "another output directory",
          destination.string())};
    if (contains(out, in))
      return Error{fmt::format(
          "-d '{}' is inside -out '{}': outputs could overwrite the dump; choose an output "
          "directory outside it",
          root, destination.string())};
  }
  return std::nullopt;
}

// Every file under the sources, with the directory it mirrors to under DST.
std::vector<SourceFile> collect_sources(RunState& state) {
  std::vector<SourceFile> sources;
  std::error_code ec;
  fs::path destination = state.to_stdout ? fs::path() : fs::weakly_canonical(state.destination, ec);
  for (const std::string& root : state.options.sources) {
    bool directory = root != "-" && fs::is_directory(root, ec);
    WalkCallbacks callbacks;
    callbacks.directory = [&](DumpDirectory& dir) {
      std::string relative;
      if (directory) {
        std::error_code canonical_ec;
        fs::path here = fs::weakly_canonical(dir.path, canonical_ec);
        // A DST inside the tree would otherwise convert the previous run's outputs again.
        if (!destination.empty() && !canonical_ec && contains(destination, here)) return;
        relative = dir.path.lexically_relative(root).generic_string();
        if (relative == ".") relative.clear();
      }
      std::shared_ptr<const OpenDirectory> opened;
      if (auto here_fd = OpenDirectory::open(dir.path))
        opened = std::make_shared<const OpenDirectory>(std::move(*here_fd));
      // The walk puts a directory's files in one group (a file given by itself is in a group of
      // its own, whose path may be "." for a bare name): they are inside it when the first is.
      const bool inside = opened && !dir.files.empty() && !dir.files.front().standard_input &&
                          dir.files.front().path.parent_path() == dir.path;
      sources.reserve(sources.size() + dir.files.size());
      for (DumpFile& file : dir.files) {
        if (file.name.kind == FileKind::ConvertFailedList || file.name.kind == FileKind::MappingCsv)
          continue;
        sources.push_back(SourceFile{std::move(file), inside ? opened : nullptr, relative, {}});
      }
    };
    callbacks.error = [&](const std::string& display, const Error& error) {
      state.report(RunState::Level::Error, display, error);
      state.list_failed(SIZE_MAX, display);
    };
    callbacks.warning = [&](const std::string& display, const Error& error) {
      state.report(RunState::Level::Warning, display, error);
    };
    std::string one[] = {root};
    walk_dump_tree(one, callbacks);
  }
  // Two sources that land in the same output directory under one name would overwrite each
  // other's outputs: -d a/X,b/X, the same file name in several iterations of a 1.2 tree, a 1.2
  // X.bin beside X.npy. The first is converted, the others refused before anything is written.
  // (Any other clash, rarer, is caught when the output is claimed.)
  std::unordered_map<std::string, size_t> first;
  for (size_t i = 0; i < sources.size(); ++i) {
    const DumpFile& file = sources[i].file;
    bool one_npy = file.name.kind == FileKind::LegacyBin || file.name.kind == FileKind::MsprobeRaw;
    std::string key = sources[i].relative_dir + '/' +
                      (one_npy ? raw_tensor_output_name(file.stored_name) : file.stored_name);
    auto [it, inserted] = first.try_emplace(key, i);
    if (!inserted) sources[i].conflict = sources[it->second].file.display;
  }
  return sources;
}

// The order in which the workers take the sources: round-robin over the output directories, so
// that workers running at the same time write into different directories. Creating and renaming
// files takes the directory's lock; workers in one directory mostly wait for each other (measured
// on tmpfs: -j2 no faster than -j1 in source order).
std::vector<size_t> interleave_directories(const std::vector<SourceFile>& sources) {
  std::vector<std::pair<size_t, size_t>> runs;  // [first, end) of each directory's sources
  for (size_t i = 0; i < sources.size(); ++i) {
    if (runs.empty() || sources[i].relative_dir != sources[runs.back().first].relative_dir)
      runs.emplace_back(i, i);
    runs.back().second = i + 1;
  }
  std::vector<size_t> order;
  order.reserve(sources.size());
  for (size_t step = 0; order.size() < sources.size(); ++step)
    for (auto [first, end] : runs)
      if (first + step < end) order.push_back(first + step);
  return order;
}

}  // namespace

int run_convert(const ConvertOptions& options, Diagnostics& diagnostics) {
  RunState state(options, diagnostics);
  state.to_stdout = options.output == "-";
  if (!state.to_stdout) {
    state.destination = options.output;
    if (Status overlap = check_destination(options, state.destination)) {
      diagnostics.error(*overlap);
      return kExitUsage;
    }
    std::error_code ec;
    fs::create_directories(state.destination, ec);
    if (!fs::is_directory(state.destination)) {
      std::string why = ec ? ec.message() : std::string("it exists and is not a directory");
      diagnostics.output_error(options.output,
                               Error{fmt::format("cannot create the output directory: {}", why)});
      return kExitOutput;
    }
    auto root = OpenDirectory::open(state.destination);
    if (!root) {
      diagnostics.output_error(options.output, root.error());
      return kExitOutput;
    }
    state.root.emplace(std::move(*root));
  } else if (options.sources.size() != 1 ||
             (options.sources.front() != "-" && fs::is_directory(options.sources.front()))) {
    diagnostics.error(Error{"'-out -' writes one tensor to standard output: give a single file"});
    return kExitUsage;
  }

  std::vector<SourceFile> sources = collect_sources(state);
  state.sources = &sources;
  uint64_t total_bytes = 0;
  for (const SourceFile& source : sources) total_bytes += source.file.size;
  bool show_progress = options.progress && !state.to_stdout && ::isatty(STDERR_FILENO) == 1;
  ProgressBar progress(show_progress, sources.size(), total_bytes);
  if (show_progress) state.progress = &progress;

  std::vector<size_t> order = interleave_directories(sources);
  parallel_for(sources.size(), options.jobs, [&](size_t k) {
    size_t i = order[k];
    SourceConversion(state, sources[i], i).run();
    progress.file_done(sources[i].file.size);
  });
  progress.finish();
  state.progress = nullptr;

  if (!state.to_stdout) state.write_records();
  if (state.usage_error) return kExitUsage;
  return diagnostics.exit_code();
}

}  // namespace msdt::dump
