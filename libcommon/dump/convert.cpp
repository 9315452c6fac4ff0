#include "dump/convert.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "dump/ascend_dump.h"
#include "dump/dump_file.h"
#include "dump/tree.h"
#include "io/mapped_file.h"
#include "io/output_file.h"
#include "io/text.h"
#include "tensor/layout.h"
#include "tensor/npy.h"

namespace msdt::dump {
namespace {

// ---- MD5 (RFC 1321), only for uuid3 names. ----

class Md5 {
 public:
  void update(const uint8_t* data, size_t size) {
    for (size_t i = 0; i < size; ++i) {
      block_[block_size_++] = data[i];
      if (block_size_ == 64) {
        transform(block_.data());
        block_size_ = 0;
      }
    }
    total_ += size;
  }

  std::array<uint8_t, 16> finish() {
    uint64_t bits = total_ * 8;
    const uint8_t pad = 0x80;
    update(&pad, 1);
    const uint8_t zero = 0;
    while (block_size_ != 56) update(&zero, 1);
    for (int i = 0; i < 8; ++i) {
      auto byte = static_cast<uint8_t>(bits >> (8 * i));
      update(&byte, 1);
    }
    std::array<uint8_t, 16> digest{};
    for (int i = 0; i < 4; ++i)
      for (int k = 0; k < 4; ++k) digest[4 * i + k] = static_cast<uint8_t>(state_[i] >> (8 * k));
    return digest;
  }

 private:
  static uint32_t rotate_left(uint32_t x, unsigned n) { return (x << n) | (x >> (32 - n)); }

  void transform(const uint8_t* block) {
    static constexpr uint32_t kSine[64] = {
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
        0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
        0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
        0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
        0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
        0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
        0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
        0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
        0xeb86d391};
    static constexpr unsigned kShift[64] = {
        7,  12, 17, 22, 7,  12, 17, 22, 7,  12, 17, 22, 7,  12, 17, 22, 5,  9,  14, 20, 5,  9,
        14, 20, 5,  9,  14, 20, 5,  9,  14, 20, 4,  11, 16, 23, 4,  11, 16, 23, 4,  11, 16, 23,
        4,  11, 16, 23, 6,  10, 15, 21, 6,  10, 15, 21, 6,  10, 15, 21, 6,  10, 15, 21};
    uint32_t words[16];
    for (int i = 0; i < 16; ++i)
      words[i] = static_cast<uint32_t>(block[4 * i]) |
                 static_cast<uint32_t>(block[4 * i + 1]) << 8 |
                 static_cast<uint32_t>(block[4 * i + 2]) << 16 |
                 static_cast<uint32_t>(block[4 * i + 3]) << 24;
    uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
    for (unsigned i = 0; i < 64; ++i) {
      uint32_t f;
      unsigned g;
      if (i < 16) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (i < 32) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) % 16;
      } else if (i < 48) {
        f = b ^ c ^ d;
        g = (3 * i + 5) % 16;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) % 16;
      }
      uint32_t next = d;
      d = c;
      c = b;
      b = b + rotate_left(a + f + kSine[i] + words[g], kShift[i]);
      a = next;
    }
    state_[0] += a;
    state_[1] += b;
    state_[2] += c;
    state_[3] += d;
  }

  std::array<uint32_t, 4> state_{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  std::array<uint8_t, 64> block_{};
  size_t block_size_ = 0;
  uint64_t total_ = 0;
};

std::string join_dims(std::span<const uint64_t> shape, std::string_view separator) {
  return fmt::format("{}", fmt::join(shape, separator));
}

Expected<uint64_t> parse_decimal(std::string_view text, std::string_view what) {
  auto value = parse_unsigned<uint64_t>(text);
  if (!value)
    return Error{fmt::format("{} must be a non-negative integer, found '{}'", what, text)};
  return *value;
}

}  // namespace

// ---- Options ----

Expected<std::vector<uint64_t>> parse_shape_argument(std::string_view text) {
  std::vector<uint64_t> shape;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    auto dim = parse_unsigned<uint64_t>(item);
    if (!dim || *dim == 0)
      return Error{fmt::format(
          "invalid shape '{}': expected positive integers separated by commas, such as 1,3,224,224",
          text)};
    shape.push_back(*dim);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return shape;
}

Expected<std::vector<std::string>> split_source_list(std::string_view text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (item.empty()) return Error{fmt::format("empty path in the dump file list '{}'", text)};
    items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

Expected<ConvertOptions> resolve_convert_arguments(const ConvertArguments& args) {
  ConvertOptions options;
  if (args.dump_file.empty()) return Error{"-d/--dump_file is required"};
  if (args.output.empty()) return Error{"-out/--output is required"};
  MSDT_TRY(options.sources, split_source_list(args.dump_file));
  if (options.sources.size() > 1 &&
      std::find(options.sources.begin(), options.sources.end(), "-") != options.sources.end())
    return Error{"'-' (standard input) cannot be combined with other dump files"};
  options.output = args.output;

  static constexpr std::string_view kTargets[] = {"NCHW", "NHWC",  "ND",
                                                  "HWCN", "NCDHW", "FRACTAL_Z"};
  if (!args.format.empty()) {
    if (std::find(std::begin(kTargets), std::end(kTargets), args.format) == std::end(kTargets))
      return Error{fmt::format("unsupported target format '{}': expected one of {}", args.format,
                               fmt::join(kTargets, ", "))};
    options.target_format = args.format;
  }
  if (!args.shape.empty()) {
    if (args.format.empty()) return Error{"-s/--shape is only valid with -f/--format"};
    MSDT_TRY(options.target_shape, parse_shape_argument(args.shape));
  }
  if (args.output_tensor && args.input_tensor)
    return Error{"-o/--output_tensor and -i/--input_tensor are mutually exclusive"};
  if (args.output_tensor || args.input_tensor) {
    if (args.format.empty())
      return Error{"-o/--output_tensor and -i/--input_tensor are only valid with -f/--format"};
    bool output = args.output_tensor.has_value();
    const std::string& text = output ? *args.output_tensor : *args.input_tensor;
    MSDT_TRY(uint64_t index,
             parse_decimal(text, output ? "-o/--output_tensor" : "-i/--input_tensor"));
    if (index > UINT32_MAX) return Error{fmt::format("tensor index {} is too large", index)};
    options.only_tensor =
        std::pair<std::string, uint32_t>{output ? "output" : "input", static_cast<uint32_t>(index)};
  }
  if (args.type == "npy") {
    options.type = ConvertType::Npy;
  } else if (args.type == "bin") {
    options.type = ConvertType::Bin;
  } else if (args.type == "msnpy") {
    options.type = ConvertType::MsNpy;
  } else if (args.type == "pt") {
    return Error{"-t pt is not supported (it needs PyTorch): use npy, bin or msnpy"};
  } else {
    return Error{fmt::format("unknown output type '{}': expected npy, bin or msnpy", args.type)};
  }
  // -v 1 (whole-protobuf dumps) is deprecated in msaccucmp and treated as 2; our reader
  // recognises both layouts anyway (dump spec §5.3).
  if (args.version && *args.version != "1" && *args.version != "2")
    return Error{fmt::format("unknown dump version '{}': expected 1 or 2", *args.version)};
  if (args.bf16 == "float32") {
    options.bf16 = Bf16Mode::Float32;
  } else if (args.bf16 == "raw") {
    options.bf16 = Bf16Mode::Raw;
  } else {
    return Error{fmt::format("unknown --bf16 mode '{}': expected float32 or raw", args.bf16)};
  }
  if (args.jobs) {
    if (*args.jobs < 1 || *args.jobs > 1024)
      return Error{fmt::format("-j/--jobs must be between 1 and 1024, found {}", *args.jobs)};
    options.jobs = static_cast<unsigned>(*args.jobs);
  } else {
    options.jobs = std::max(1u, std::thread::hardware_concurrency());
  }
  if (options.output == "-" && options.sources.size() != 1)
    return Error{"'-out -' writes one tensor to standard output: give a single dump file"};
  options.skip_existing = args.skip_existing;
  options.progress = !args.no_progress;
  return options;
}

std::vector<std::string> rewrite_msaccucmp_argv(std::span<const char* const> argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  bool options_ended = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    std::string_view arg = argv[i] ? argv[i] : "";
    if (i == 0 || options_ended) {
      out.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      options_ended = true;
      out.emplace_back(arg);
    } else if (arg == "-out") {
      out.emplace_back("--output");
    } else if (arg.starts_with("-out=")) {
      out.push_back(fmt::format("--output={}", arg.substr(5)));
    } else {
      out.emplace_back(arg);
    }
  }
  return out;
}

// ---- Names ----

std::string npy_output_name(std::string_view basename, std::string_view io, uint32_t index) {
  return fmt::format("{}.{}.{}.npy", basename, io, index);
}

std::string formatted_npy_output_name(std::string_view basename, std::string_view io,
                                      uint32_t index, std::span<const uint64_t> shape) {
  return fmt::format("{}.{}.{}.{}.npy", basename, io, index, join_dims(shape, "x"));
}

std::string bin_output_name(std::string_view basename, std::string_view io, uint32_t index,
                            std::span<const uint64_t> shape, std::string_view dtype,
                            std::string_view format) {
  return fmt::format("{}.{}.{}.{}.{}.{}.bin", basename, io, index, join_dims(shape, "_"), dtype,
                     format);
}

std::string msnpy_output_name(std::string_view basename, std::string_view op_name,
                              std::string_view io, uint32_t index, std::string_view format) {
  std::string base(basename);
  if (!op_name.empty() && std::count(basename.begin(), basename.end(), '.') == 4) {
    size_t first = basename.find('.');
    size_t second = basename.find('.', first + 1);
    size_t slash = op_name.rfind('/');
    std::string_view short_name =
        slash == std::string_view::npos ? op_name : op_name.substr(slash + 1);
    base = fmt::format("{}.{}{}", basename.substr(0, first), short_name, basename.substr(second));
  }
  return fmt::format("{}.{}.{}.{}.npy", base, io, index, format);
}

std::string buffer_output_name(std::string_view basename, uint32_t buffer_type, uint32_t index) {
  // msaccucmp's BUFFER_TYPE_MAP knows only L1 (OpBuffer.BufferType, dump spec §5.4).
  std::string type = buffer_type == 0 ? std::string("l1") : fmt::format("type{}", buffer_type);
  return fmt::format("{}.{}buffer.{}.bin", basename, type, index);
}

std::string workspace_output_name(std::string_view basename, uint32_t index) {
  return fmt::format("{}.space.{}.bin", basename, index);
}

std::string overflow_output_name(std::string_view basename, uint32_t index) {
  return fmt::format("{}.output.{}.json", basename, index);
}

std::string raw_tensor_output_name(std::string_view basename) {
  if (basename.ends_with(".bin") && basename.size() > 4)
    return fmt::format("{}.npy", basename.substr(0, basename.size() - 4));
  return fmt::format("{}.npy", basename);
}

std::string uuid3_dns_hex(std::string_view name) {
  // uuid.NAMESPACE_DNS, 6ba7b810-9dad-11d1-80b4-00c04fd430c8.
  static constexpr uint8_t kNamespaceDns[16] = {0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1,
                                                0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8};
  Md5 md5;
  md5.update(kNamespaceDns, sizeof kNamespaceDns);
  md5.update(reinterpret_cast<const uint8_t*>(name.data()), name.size());
  auto digest = md5.finish();
  digest[6] = static_cast<uint8_t>((digest[6] & 0x0f) | 0x30);  // version 3
  digest[8] = static_cast<uint8_t>((digest[8] & 0x3f) | 0x80);  // RFC 4122 variant
  std::string hex;
  for (uint8_t byte : digest) hex += fmt::format("{:02x}", byte);
  return hex;
}

OutputName shorten_long_name(std::string name, std::string_view suffix) {
  // msaccucmp ConstManager.LINUX_FILE_NAME_MAX_LEN = 255, compared with >=.
  if (name.size() < 255) return {std::move(name), std::nullopt};
  std::string short_name = uuid3_dns_hex(name) + std::string(suffix);
  std::string line = fmt::format("{},{}", short_name, name);
  return {std::move(short_name), std::move(line)};
}

// ---- The driver ----

namespace {

namespace fs = std::filesystem;

// Elements converted per step when a dtype must change (bf16 -> f32, int4 -> int8): at most a few
// MiB per worker whatever the tensor size.
constexpr uint64_t kConvertChunkElements = 256 * 1024;

Status write_all_fd(int fd, Bytes data) {
  const std::byte* p = data.data();
  uint64_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{fmt::format("cannot write to standard output: {}", std::strerror(errno))};
    }
    p += n;
    left -= static_cast<uint64_t>(n);
  }
  return std::nullopt;
}

Bytes as_bytes(std::string_view text) {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

// Where one output goes: a file committed atomically, or standard output.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual Status write(Bytes data) = 0;
  // `region` lies inside the source file's bytes, which may be copied in the kernel.
  virtual Status copy(Bytes region) = 0;
};

class FileSink final : public Sink {
 public:
  FileSink(AtomicFile& file, int source_fd, const std::byte* source_base)
      : file_(file), source_fd_(source_fd), source_base_(source_base) {}
  Status write(Bytes data) override { return note(file_.write(data)); }
  Status copy(Bytes region) override {
    if (source_fd_ < 0 || region.empty()) return write(region);
    return note(file_.copy_from(source_fd_, static_cast<uint64_t>(region.data() - source_base_),
                                region.size()));
  }
  // Whether a failure came from writing (exit 3) rather than from the input's elements.
  bool output_failed() const { return output_failed_; }

 private:
  Status note(Status status) {
    if (status) output_failed_ = true;
    return status;
  }

  AtomicFile& file_;
  int source_fd_;
  const std::byte* source_base_;
  bool output_failed_ = false;
};

class StdoutSink final : public Sink {
 public:
  Status write(Bytes data) override { return write_all_fd(STDOUT_FILENO, data); }
  Status copy(Bytes region) override { return write_all_fd(STDOUT_FILENO, region); }
};

struct PlannedOutput {
  enum class Kind { CopyWhole, Npy, Raw, Text };
  OutputName name;
  Kind kind = Kind::Raw;
  TensorView view{DType::UInt8, {}, {}};          // Npy: elements; Raw: the bytes
  std::shared_ptr<std::vector<std::byte>> owned;  // a transform result `view` points into
  std::string text;
};

std::string format_string(uint32_t output_format) {
  std::string_view name = ascend_format_name(output_format);
  return name.empty() ? fmt::format("{}", output_format & 0xFF) : std::string(name);
}

class ProgressBar {
 public:
  ProgressBar(bool enabled, uint64_t total_files, uint64_t total_bytes)
      : enabled_(enabled), total_files_(total_files), total_bytes_(total_bytes) {
    if (enabled_) thread_ = std::thread([this] { loop(); });
  }
  ~ProgressBar() { finish(); }

  void file_done(uint64_t bytes) {
    files_.fetch_add(1, std::memory_order_relaxed);
    bytes_.fetch_add(bytes, std::memory_order_relaxed);
  }

  // Runs `print` (which writes whole lines to stderr) with the bar cleared first.
  template <class F>
  void print_line(F&& print) {
    std::lock_guard lock(draw_mutex_);
    if (enabled_ && drawn_) {
      std::cerr << "\r\033[K";
      drawn_ = false;
    }
    print();
  }

  void finish() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard lock(stop_mutex_);
      stop_ = true;
    }
    stop_cv_.notify_all();
    thread_.join();
    std::lock_guard lock(draw_mutex_);
    if (drawn_) std::cerr << "\r\033[K" << std::flush;
    drawn_ = false;
  }

 private:
  static std::string human(uint64_t bytes) {
    static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    size_t unit = 0;
    while (value >= 1024 && unit + 1 < std::size(kUnits)) {
      value /= 1024;
      ++unit;
    }
    return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, kUnits[unit]);
  }

  void draw() {
    uint64_t files = files_.load(std::memory_order_relaxed);
    uint64_t bytes = bytes_.load(std::memory_order_relaxed);
    constexpr uint64_t kWidth = 30;
    uint64_t filled = total_files_ ? files * kWidth / total_files_ : kWidth;
    std::string bar(filled, '#');
    bar.resize(kWidth, ' ');
    std::lock_guard lock(draw_mutex_);
    std::cerr << fmt::format("\r\033[Kdump-convert: [{}] {}/{} files, {} / {}", bar, files,
                             total_files_, human(bytes), human(total_bytes_))
              << std::flush;
    drawn_ = true;
  }

  void loop() {
    std::unique_lock lock(stop_mutex_);
    // At most 10 redraws a second: a bar must not cost more than the work it reports.
    while (!stop_cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; })) {
      lock.unlock();
      draw();
      lock.lock();
    }
  }

  bool enabled_;
  uint64_t total_files_, total_bytes_;
  std::atomic<uint64_t> files_{0}, bytes_{0};
  std::mutex draw_mutex_;
  bool drawn_ = false;
  std::mutex stop_mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread thread_;
};

struct SourceFile {
  DumpFile file;
  std::string relative_dir;  // under DST; empty for DST itself
};

struct RunState {
  RunState(const ConvertOptions& run_options, Diagnostics& run_diagnostics)
      : options(run_options), diagnostics(run_diagnostics) {}

  const ConvertOptions& options;
  Diagnostics& diagnostics;
  ProgressBar* progress = nullptr;
  fs::path destination;
  bool to_stdout = false;
  bool usage_error = false;

  std::mutex mutex;  // guards the members below
  std::map<std::string, std::vector<std::pair<size_t, std::string>>> mapping_lines;
  std::vector<std::pair<size_t, std::string>> failed;
  // Directories already made under DST: small tensors are many, and asking the file system
  // again for each one costs as much as writing it.
  std::set<fs::path> created_directories;

  Status ensure_directory(const fs::path& directory) {
    {
      std::lock_guard lock(mutex);
      if (created_directories.count(directory)) return std::nullopt;
    }
    std::error_code ec;
    fs::create_directories(directory, ec);
    if (ec && !fs::is_directory(directory))
      return Error{fmt::format("cannot create directory: {}", ec.message())};
    std::lock_guard lock(mutex);
    created_directories.insert(directory);
    return std::nullopt;
  }

  enum class Level { Error, OutputError, Warning };
  void report(std::string_view file, const Error& error, bool output_problem = false) {
    report_at(output_problem ? Level::OutputError : Level::Error, file, error);
  }
  void report_at(Level level, std::string_view file, const Error& error) {
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
};

bool is_container(const DumpFile& file, Bytes contents) {
  if (contents.size() >= 6 && std::memcmp(contents.data(), "\x93NUMPY", 6) == 0) return false;
  switch (file.name.kind) {
    case FileKind::AscendBinary:
    case FileKind::Overflow:
      return true;
    case FileKind::Unknown:
      return looks_like_ascend_dump(contents);
    default:
      return false;
  }
}

class FileConverter {
 public:
  FileConverter(RunState& state, const SourceFile& source, size_t index)
      : state_(state), options_(state.options), source_(source), index_(index) {}

  void run() {
    const DumpFile& file = source_.file;
    // Standard input was read by the walk (it cannot be read twice); files are mapped here.
    auto opened = open_dump_file(file);
    if (!opened) {
      fail(std::move(opened).error());
      return;
    }
    std::shared_ptr<const MappedFile> mapped = std::move(*opened);
    contents_ = mapped->bytes();
    source_fd_ = mapped->fd();
    if (source_fd_ >= 0) {
      struct stat st {};
      if (::fstat(source_fd_, &st) == 0) source_mtime_ = st.st_mtim;
    }
    basename_ = file.stored_name == "-" ? std::string("stdin") : file.stored_name;

    bool container = is_container(file, contents_);
    if (!container && file.name.kind == FileKind::Unknown &&
        !(contents_.size() >= 6 && std::memcmp(contents_.data(), "\x93NUMPY", 6) == 0)) {
      // Not a dump file (a README, a note): skipped with a warning, like dump-parse does, rather
      // than failing a whole tree for a stray file.
      std::string why = file.name.problem.empty() ? std::string("unknown file")
                                                  : "unknown file: " + file.name.problem;
      state_.report_at(RunState::Level::Warning, file.display,
                       Error{fmt::format("{}; not converted", why)});
      return;
    }
    Status status = container ? plan_container() : plan_other();
    if (status) fail(std::move(*status));
    if (state_.to_stdout) write_to_stdout();
    if (failed_) {
      std::lock_guard lock(state_.mutex);
      state_.failed.emplace_back(index_, file.display);
    }
  }

 private:
  // ---- planning ----

  Status plan_container() {
    MSDT_TRY(AscendDump dump, parse_ascend_dump(contents_));
    bool overflow = source_.file.name.kind == FileKind::Overflow ||
                    basename_.starts_with("Opdebug.Node_OpDebug.");
    if (overflow) {
      // Only output[k] holds overflow information (dump spec §5.8).
      for (const AscendTensor& tensor : dump.outputs) {
        auto decoded = decode_overflow(tensor.payload, tensor.payload_offset);
        if (!decoded) {
          fail(std::move(decoded).error().with_context(fmt::format("output {}", tensor.index)));
          continue;
        }
        PlannedOutput out;
        out.kind = PlannedOutput::Kind::Text;
        out.name = shorten_long_name(overflow_output_name(basename_, tensor.index), ".json");
        out.text = decoded->dump(4);
        emit(std::move(out));
      }
      return std::nullopt;
    }
    if (!options_.target_format.empty()) {
      for (auto [io, group] : {std::pair{std::string_view("input"), &dump.inputs},
                               std::pair{std::string_view("output"), &dump.outputs}}) {
        if (options_.only_tensor) {
          if (options_.only_tensor->first != io) continue;
          uint32_t wanted = options_.only_tensor->second;
          if (wanted >= group->size())
            return Error{
                fmt::format("{} index {} is out of range [0, {})", io, wanted, group->size())};
          plan_formatted(dump, (*group)[wanted], io);
          continue;
        }
        for (const AscendTensor& tensor : *group) plan_formatted(dump, tensor, io);
      }
      return std::nullopt;  // msaccucmp writes no buffers or workspaces with -f
    }
    for (const AscendTensor& tensor : dump.inputs) plan_device(dump, tensor, "input");
    for (const AscendTensor& tensor : dump.outputs) plan_device(dump, tensor, "output");
    for (const AscendTensor& buffer : dump.buffers) {
      PlannedOutput out;
      out.name = shorten_long_name(buffer_output_name(basename_, buffer.buffer_type, buffer.index),
                                   ".bin");
      out.view.data = buffer.payload;
      emit(std::move(out));
    }
    for (const AscendTensor& space : dump.workspaces) {
      PlannedOutput out;
      out.name = shorten_long_name(workspace_output_name(basename_, space.index), ".bin");
      out.view.data = space.payload;
      emit(std::move(out));
    }
    return std::nullopt;
  }

  // The device layout as stored (dump spec §10.1, no -f).
  void plan_device(const AscendDump& dump, const AscendTensor& tensor, std::string_view io) {
    std::string where = fmt::format("{} {}", io, tensor.index);
    auto view = ascend_tensor_view(tensor);
    // ascend_tensor_view names the tensor ("output 0: …") itself.
    if (!view) return fail(std::move(view).error());
    PlannedOutput out;
    out.view = std::move(*view);
    if (options_.type == ConvertType::Bin) {
      out.kind = PlannedOutput::Kind::Raw;
      out.name = shorten_long_name(
          bin_output_name(basename_, io, tensor.index, out.view.shape, dtype_name(out.view.dtype),
                          format_string(tensor.format)),
          ".bin");
    } else {
      if (Status bad = check_npy_storable(out.view.dtype))
        return fail(std::move(*bad).with_context(where));
      out.kind = PlannedOutput::Kind::Npy;
      out.name =
          shorten_long_name(options_.type == ConvertType::MsNpy
                                ? msnpy_output_name(basename_, dump.op_name, io, tensor.index,
                                                    format_string(tensor.format))
                                : npy_output_name(basename_, io, tensor.index),
                            ".npy");
    }
    emit(std::move(out));
  }

  // -f: device layout to host layout, sliced to original_shape or -s (dump spec §8).
  void plan_formatted(const AscendDump& dump, const AscendTensor& tensor, std::string_view io) {
    std::string where = fmt::format("{} {}", io, tensor.index);
    auto device = ascend_tensor_view(tensor);
    if (!device) return fail(std::move(device).error());
    std::string from = format_string(tensor.format);
    // A format that claims 4 dimensions over a shape that has not is ND (msaccucmp
    // `_get_format_and_shape`).
    if ((from == "HWCN" || from == "NCHW" || from == "NHWC") && device->shape.size() != 4)
      from = "ND";
    const std::string& to = options_.target_format;
    std::vector<uint64_t> target = options_.target_shape;
    std::string target_axes = "NCHW";  // -s is N,C,H,W; original_shape is in the origin format
    if (target.empty() && tensor.has_original_shape) {
      target = tensor.original_shape;
      target_axes = tensor.original_op ? format_string(tensor.original_op->format) : "";
    }

    PlannedOutput out;
    if (from == to) {
      out.view = *device;
      if (!target.empty()) {
        auto wanted = element_count(target);
        auto have = element_count(device->shape);
        if (wanted && have && *wanted == *have) out.view.shape = target;
      }
    } else {
      if (!can_transform(from, to))
        return fail(
            Error{fmt::format("cannot convert format {} to {}", from, to)}.with_context(where));
      uint32_t groups = tensor.sub_format > 0 ? static_cast<uint32_t>(tensor.sub_format) : 1;
      auto result = transform_layout(*device, from, to, target, groups, target_axes);
      if (!result) return fail(std::move(result).error().with_context(where));
      out.owned = std::make_shared<std::vector<std::byte>>(std::move(result->data));
      out.view = TensorView{device->dtype, std::move(result->shape), Bytes(*out.owned)};
    }
    if (options_.type == ConvertType::Bin) {
      out.kind = PlannedOutput::Kind::Raw;
      out.name = shorten_long_name(bin_output_name(basename_, io, tensor.index, out.view.shape,
                                                   dtype_name(out.view.dtype), to),
                                   ".bin");
    } else {
      if (Status bad = check_npy_storable(out.view.dtype))
        return fail(std::move(*bad).with_context(where));
      out.kind = PlannedOutput::Kind::Npy;
      out.name = shorten_long_name(
          options_.type == ConvertType::MsNpy
              ? msnpy_output_name(basename_, dump.op_name, io, tensor.index, to)
              : formatted_npy_output_name(basename_, io, tensor.index, out.view.shape),
          ".npy");
    }
    emit(std::move(out));
  }

  // npy, format A .bin and msprobe raw files, read through read_dump_file.
  Status plan_other() {
    return read_dump_file(source_.file, contents_, [&](const DumpTensor& tensor) {
      if (tensor.format == "npy" && tensor.npy) {
        plan_npy(*tensor.npy, tensor.view);
      } else if (tensor.format == "bin" || tensor.format == "msprobe-raw") {
        if (!tensor.view)
          return fail(Error{fmt::format("elements of dtype {} cannot be read",
                                        tensor.dtype ? dtype_name(*tensor.dtype) : "unknown")});
        if (Status bad = check_npy_storable(tensor.view->dtype)) return fail(std::move(*bad));
        PlannedOutput out;
        out.kind = PlannedOutput::Kind::Npy;
        out.view = *tensor.view;
        out.name = shorten_long_name(raw_tensor_output_name(basename_), ".npy");
        emit(std::move(out));
      }
      // Statistic rows and side files are not tensors: nothing to write.
    });
  }

  void plan_npy(const NpyHeader& header, const std::optional<TensorView>& view) {
    PlannedOutput out;
    // A name that exists on disk is short enough already; only stdin needs a suffix.
    out.name.name = basename_.ends_with(".npy") ? basename_ : basename_ + ".npy";
    if (stored_as_is(header.dtype, options_.bf16)) {
      // NumPy loads it as it is (fortran order and big-endian included): a byte copy keeps the
      // mirror complete at the speed of cp.
      out.kind = PlannedOutput::Kind::CopyWhole;
      return emit(std::move(out));
    }
    // '<E2' or 'V2' bfloat16 (dump spec §9.3): rewritten as a standard npy.
    if (!view)
      return fail(Error{fmt::format("cannot rewrite a {} npy in {} order", dtype_name(header.dtype),
                                    header.fortran_order ? "fortran" : "big-endian")});
    if (Status bad = check_npy_storable(header.dtype)) return fail(std::move(*bad));
    out.kind = PlannedOutput::Kind::Npy;
    out.view = *view;
    emit(std::move(out));
  }

  Status check_npy_storable(DType dtype) const {
    if (npy_storage_dtype(dtype, options_.bf16)) return std::nullopt;
    return Error{fmt::format("dtype {} has no .npy representation", dtype_name(dtype))};
  }

  // ---- writing ----

  void emit(PlannedOutput&& out) {
    if (state_.to_stdout) {
      planned_.push_back(std::move(out));
      return;
    }
    write_to_file(out);
  }

  Status write_body(const PlannedOutput& out, Sink& sink) const {
    switch (out.kind) {
      case PlannedOutput::Kind::CopyWhole:
        return sink.copy(contents_);
      case PlannedOutput::Kind::Text:
        return sink.write(as_bytes(out.text));
      case PlannedOutput::Kind::Raw:
        return out.owned ? sink.write(out.view.data) : sink.copy(out.view.data);
      case PlannedOutput::Kind::Npy:
        break;
    }
    const TensorView& view = out.view;
    std::optional<DType> storage = npy_storage_dtype(view.dtype, options_.bf16);
    if (!storage)
      return Error{fmt::format("dtype {} has no .npy representation", dtype_name(view.dtype))};
    std::string header = make_npy_header(*storage, view.shape);
    MSDT_CHECK(sink.write(as_bytes(header)));
    if (stored_as_is(view.dtype, options_.bf16))
      return out.owned ? sink.write(view.data) : sink.copy(view.data);
    MSDT_TRY(uint64_t count, element_count(view.shape));
    std::vector<std::byte> chunk;
    for (uint64_t first = 0; first < count; first += kConvertChunkElements) {
      chunk.clear();
      MSDT_CHECK(convert_elements(view, first, std::min(kConvertChunkElements, count - first),
                                  options_.bf16, chunk));
      MSDT_CHECK(sink.write(chunk));
    }
    return std::nullopt;
  }

  void write_to_file(const PlannedOutput& out) {
    std::string relative = source_.relative_dir.empty()
                               ? out.name.name
                               : fmt::format("{}/{}", source_.relative_dir, out.name.name);
    // Every output path is built under DST by join_under: nothing from inside a dump (op_name,
    // mapping.csv) can name a directory.
    auto target = join_under(state_.destination, relative);
    if (!target) return fail(std::move(target).error());
    if (out.name.mapping_line) {
      std::lock_guard lock(state_.mutex);
      state_.mapping_lines[source_.relative_dir].emplace_back(index_, *out.name.mapping_line);
    }
    if (options_.skip_existing && up_to_date(*target)) return;
    if (Status status = state_.ensure_directory(target->parent_path()))
      return output_failed(*target, std::move(*status));
    auto file = AtomicFile::create(*target);
    if (!file) return output_failed(*target, std::move(file).error());
    FileSink sink(*file, source_fd_, contents_.data());
    if (Status status = write_body(out, sink)) {
      // Conversion errors are the input's fault; write failures are the output's.
      if (sink.output_failed()) return output_failed(*target, std::move(*status));
      return fail(std::move(*status).with_context(out.name.name));
    }
    if (Status status = file->commit()) return output_failed(*target, std::move(*status));
  }

  void write_to_stdout() {
    if (failed_) return;
    if (planned_.size() != 1) {
      if (planned_.empty()) return fail(Error{"the file holds no tensor to write"});
      state_.usage_error = true;
      state_.report(source_.file.display,
                    Error{fmt::format("'-out -' writes one tensor but this file gives {} outputs; "
                                      "pick one with -f FORMAT and -o/-i INDEX",
                                      planned_.size())});
      return;
    }
    StdoutSink sink;
    if (Status status = write_body(planned_.front(), sink))
      state_.report(source_.file.display, *status, true);
  }

  bool up_to_date(const fs::path& target) const {
    if (source_fd_ < 0) return false;  // standard input has no date to compare
    struct stat st {};
    if (::stat(target.c_str(), &st) != 0) return false;
    if (st.st_mtim.tv_sec != source_mtime_.tv_sec) return st.st_mtim.tv_sec > source_mtime_.tv_sec;
    return st.st_mtim.tv_nsec >= source_mtime_.tv_nsec;
  }

  void fail(Error error) {
    failed_ = true;
    state_.report(source_.file.display, error);
  }

  void output_failed(const fs::path& target, Error error) {
    state_.report(target.string(), error, true);
  }

  RunState& state_;
  const ConvertOptions& options_;
  const SourceFile& source_;
  size_t index_;
  Bytes contents_;
  int source_fd_ = -1;
  struct timespec source_mtime_ {};
  std::string basename_;
  bool failed_ = false;
  std::vector<PlannedOutput> planned_;
};

// Collects every file under the sources, with the directory it mirrors to under DST.
std::vector<SourceFile> collect_sources(RunState& state) {
  std::vector<SourceFile> sources;
  std::error_code ec;
  fs::path destination = state.to_stdout ? fs::path() : fs::weakly_canonical(state.destination, ec);
  for (const std::string& root : state.options.sources) {
    bool directory = root != "-" && fs::is_directory(root, ec);
    WalkCallbacks callbacks;
    callbacks.directory = [&](const DumpDirectory& dir) {
      std::string relative;
      if (directory) {
        std::error_code canonical_ec;
        fs::path here = fs::weakly_canonical(dir.path, canonical_ec);
        // A DST inside the tree would otherwise convert the previous run's outputs again.
        if (!destination.empty() && !canonical_ec) {
          auto [d, h] =
              std::mismatch(destination.begin(), destination.end(), here.begin(), here.end());
          if (d == destination.end()) return;
        }
        relative = dir.path.lexically_relative(root).generic_string();
        if (relative == ".") relative.clear();
      }
      for (const DumpFile& file : dir.files) {
        if (file.name.kind == FileKind::ConvertFailedList || file.name.kind == FileKind::MappingCsv)
          continue;
        sources.push_back(SourceFile{file, relative});
      }
    };
    callbacks.error = [&](const std::string& display, const Error& error) {
      state.report(display, error);
      std::lock_guard lock(state.mutex);
      state.failed.emplace_back(SIZE_MAX, display);
    };
    callbacks.warning = [&](const std::string& display, const Error& error) {
      state.report_at(RunState::Level::Warning, display, error);
    };
    std::string one[] = {root};
    walk_dump_tree(one, callbacks);
  }
  return sources;
}

// mapping.csv of one output directory: lines of earlier runs kept, new ones appended once.
Status write_mapping(const fs::path& directory, std::vector<std::pair<size_t, std::string>> lines) {
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  fs::path path = directory / "mapping.csv";
  std::string text;
  std::set<std::string, std::less<>> present;
  if (auto existing = MappedFile::open(path)) {
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
  return write_file_atomically(path, text);
}

}  // namespace

int run_convert(const ConvertOptions& options, Diagnostics& diagnostics) {
  RunState state(options, diagnostics);
  state.to_stdout = options.output == "-";
  if (!state.to_stdout) {
    state.destination = options.output;
    std::error_code ec;
    fs::create_directories(state.destination, ec);
    if (!fs::is_directory(state.destination, ec)) {
      diagnostics.output_error(options.output, Error{"cannot create the output directory"});
      return kExitOutput;
    }
  } else if (options.sources.size() != 1 ||
             (options.sources.front() != "-" && fs::is_directory(options.sources.front()))) {
    diagnostics.error(Error{"'-out -' writes one tensor to standard output: give a single file"});
    return kExitUsage;
  }

  std::vector<SourceFile> sources = collect_sources(state);
  uint64_t total_bytes = 0;
  for (const SourceFile& source : sources) total_bytes += source.file.size;
  bool show_progress = options.progress && !state.to_stdout && ::isatty(STDERR_FILENO) == 1;
  ProgressBar progress(show_progress, sources.size(), total_bytes);
  if (show_progress) state.progress = &progress;

  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next.fetch_add(1); i < sources.size(); i = next.fetch_add(1)) {
      FileConverter(state, sources[i], i).run();
      progress.file_done(sources[i].file.size);
    }
  };
  unsigned workers =
      static_cast<unsigned>(std::min<size_t>(std::max(1u, options.jobs), sources.size()));
  if (workers <= 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    for (unsigned i = 0; i < workers; ++i) threads.emplace_back(worker);
    for (auto& thread : threads) thread.join();
  }
  progress.finish();
  state.progress = nullptr;

  if (!state.to_stdout) {
    for (auto& [relative, lines] : state.mapping_lines) {
      auto directory = relative.empty() ? Expected<fs::path>(state.destination)
                                        : join_under(state.destination, relative);
      if (!directory) continue;
      if (Status status = write_mapping(*directory, std::move(lines)))
        state.report((*directory / "mapping.csv").string(), *status, true);
    }
    if (!state.failed.empty()) {
      std::sort(state.failed.begin(), state.failed.end());
      std::string text;
      for (const auto& [index, display] : state.failed) text += display + '\n';
      fs::path list = state.destination / "convert_failed_file_list.txt";
      if (Status status = write_file_atomically(list, text))
        state.report(list.string(), *status, true);
    }
  }
  if (state.usage_error) return kExitUsage;
  return diagnostics.exit_code();
}

}  // namespace msdt::dump
