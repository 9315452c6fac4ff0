#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>

#include "io/crlf.h"
#include "payloads.h"
#include "writers.h"

namespace msdt::fixture {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void system_error(const std::string& what, const fs::path& path) {
  throw DescriptionError(what + " '" + path.string() + "': " + std::strerror(errno));
}

// "%ff" escapes let a path hold bytes that JSON strings cannot (non-UTF-8 names).
std::string decode_path(const Node& node) {
  std::string text = node.string();
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size() || !std::isxdigit(static_cast<unsigned char>(text[i + 1])) ||
        !std::isxdigit(static_cast<unsigned char>(text[i + 2])))
      node.fail("expected two hexadecimal digits after '%'");
    out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
    i += 2;
  }
  return out;
}

fs::path relative_path(const Node& node) {
  std::string decoded = decode_path(node);
  fs::path path(decoded);
  if (decoded.empty() || path.is_absolute()) node.fail("expected a relative path");
  for (const auto& part : path)
    if (part == "..") node.fail("\"..\" is not allowed in a fixture path");
  return path;
}

void write_bytes(const fs::path& path, const std::vector<std::byte>& bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) system_error("cannot create", path);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      system_error("cannot write", path);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) system_error("cannot write", path);
}

std::vector<std::byte> text_bytes(std::string_view text) {
  std::vector<std::byte> out;
  for (char c : text) out.push_back(static_cast<std::byte>(c));
  return out;
}

// A Unix-domain socket bound to `path`; the socket node stays after the descriptor is closed.
// Bound by its name from inside its directory, since sun_path holds only 108 bytes.
void make_socket(const fs::path& path) {
  const std::string name = path.filename().string();
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (name.size() >= sizeof(address.sun_path)) {
    errno = ENAMETOOLONG;
    system_error("cannot create socket", path);
  }
  std::memcpy(address.sun_path, name.c_str(), name.size());
  int cwd = ::open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cwd < 0) system_error("cannot open the working directory for", path);
  fs::path parent = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  bool ok = fd >= 0 && ::chdir(parent.c_str()) == 0 &&
            ::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  int e = errno;
  if (fd >= 0) ::close(fd);
  bool back = ::fchdir(cwd) == 0;
  ::close(cwd);
  errno = e;
  if (!ok) system_error("cannot create socket", path);
  if (!back) system_error("cannot return to the working directory after creating", path);
}

const std::initializer_list<std::string_view> kContentKeys = {
    "npy",         "raw",  "ascend",      "overflow",    "text",           "lines",
    "json",        "hex",  "dir",         "symlink",     "fifo",           "socket",
    "count_lines", "ir",   "graph_proto", "summary",     "rdr_exec_order", "rdr_memory",
    "rdr_tasks",   "ckpt", "encrypted",   "safetensors", "mindir",         "ms_lite"};

struct Deferred {  // permissions and times are applied last, so that they stick
  fs::path path;
  std::optional<mode_t> mode;
  std::optional<int64_t> mtime;
};

void write_entry(const Node& entry, const fs::path& target, std::vector<Deferred>& deferred) {
  const char* content_key = nullptr;
  for (auto key : kContentKeys) {
    if (entry.has(key)) {
      if (content_key != nullptr)
        entry.fail("give one content key, found \"" + std::string(content_key) + "\" and \"" +
                   std::string(key) + "\"");
      content_key = key.data();
    }
  }
  bool empty = entry.has("empty") && entry.at("empty").boolean();
  if (content_key == nullptr && !empty)
    entry.fail(
        "missing a content key (npy, raw, ascend, overflow, text, lines, json, hex, dir, symlink, "
        "fifo, socket, count_lines, ir, graph_proto, summary, rdr_exec_order, rdr_memory, "
        "rdr_tasks, ckpt, encrypted, safetensors, mindir, ms_lite, empty)");
  std::string key = content_key == nullptr ? "" : content_key;

  if (!target.parent_path().empty()) fs::create_directories(target.parent_path());
  if (key == "dir") {
    if (!entry.at("dir").boolean()) entry.at("dir").fail("expected true");
    fs::create_directories(target);
  } else if (key == "symlink") {
    std::error_code ec;
    fs::create_symlink(decode_path(entry.at("symlink")), target, ec);
    if (ec)
      throw DescriptionError("cannot create symlink '" + target.string() + "': " + ec.message());
    return;  // modifiers would follow the link
  } else if (key == "fifo") {
    if (!entry.at("fifo").boolean()) entry.at("fifo").fail("expected true");
    if (::mkfifo(target.c_str(), 0644) != 0) system_error("cannot create fifo", target);
  } else if (key == "socket") {
    if (!entry.at("socket").boolean()) entry.at("socket").fail("expected true");
    make_socket(target);
  } else if (key == "summary" && entry.at("summary").has("generate")) {
    // Benchmark files are streamed to disk, never held whole, so there are no bytes to cut.
    for (auto modifier : {"truncate_at", "append_hex", "empty", "crlf"})
      if (entry.has(modifier)) entry.at(modifier).fail("does not apply to a generated summary");
    write_generated_summary(entry.at("summary"), target);
  } else {
    std::vector<std::byte> bytes;
    if (key == "npy")
      bytes = build_npy(entry.at("npy"));
    else if (key == "raw")
      bytes = build_raw(entry.at("raw"));
    else if (key == "ascend")
      bytes = build_ascend(entry.at("ascend"));
    else if (key == "overflow")
      bytes = build_overflow_file(entry.at("overflow"));
    else if (key == "summary")
      bytes = build_summary(entry.at("summary"));
    else if (key == "rdr_exec_order")
      bytes = build_rdr_exec_order(entry.at(key));
    else if (key == "rdr_memory")
      bytes = build_rdr_memory(entry.at(key));
    else if (key == "rdr_tasks")
      bytes = build_rdr_tasks(entry.at(key));
    else if (key == "ckpt")
      bytes = build_ckpt(entry.at(key));
    else if (key == "encrypted")
      bytes = build_encrypted(entry.at(key));
    else if (key == "safetensors")
      bytes = build_safetensors(entry.at(key));
    else if (key == "mindir")
      bytes = build_mindir(entry.at(key));
    else if (key == "ms_lite")
      bytes = build_ms_lite(entry.at(key));
    else if (key == "ir" || key == "graph_proto") {
      const Node described = entry.at(key);
      json generated;  // "generate": the network the generator states, in place of the graphs
      if (described.has("generate")) generated = generate_ir(described);
      const Node ir = described.has("generate") ? Node(generated, described.path()) : described;
      bytes = key == "ir" ? build_ir(ir) : build_graph_proto(ir);
    } else if (key == "text")
      bytes = text_bytes(entry.at("text").string());
    else if (key == "lines") {
      for (const auto& line : entry.at("lines").elements()) {
        auto b = text_bytes(line.string() + "\n");
        bytes.insert(bytes.end(), b.begin(), b.end());
      }
    } else if (key == "json") {
      // The value as written (keys in description order), indented by 2, with a final newline:
      // watch files and other JSON side files stated in the same description as the dump.
      const Node value = entry.at("json");
      if (!value.is_object() && !value.is_array())
        value.fail("expected an object or an array, found " + brief(value.value()));
      bytes = text_bytes(value.value().dump(2) + "\n");
    } else if (key == "hex") {
      bytes = parse_hex(entry.at("hex"));
    } else if (key == "count_lines") {
      const Node& spec = entry.at("count_lines");
      spec.check_keys({"first", "count"});
      const uint64_t first = spec.has("first") ? spec.at("first").u64() : 0;
      const uint64_t count = spec.at("count").u64();
      for (uint64_t i = 0; i < count; ++i) {
        auto b = text_bytes(std::to_string(first + i) + "\n");
        bytes.insert(bytes.end(), b.begin(), b.end());
      }
    }
    if (empty) bytes.clear();
    if (auto t = entry.find("truncate_at")) {
      // Negative: drop that many bytes from the end (cut the last record short without knowing
      // the size of the file).
      const int64_t n = t->i64();
      const uint64_t cut = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
      if (cut > bytes.size())
        t->fail("the content is only " + std::to_string(bytes.size()) + " bytes");
      bytes.resize(n < 0 ? bytes.size() - cut : cut);
    }
    if (auto a = entry.find("append_hex")) {
      auto more = parse_hex(*a);
      bytes.insert(bytes.end(), more.begin(), more.end());
    }
    // A text-mode copy's damage to a binary file (git's autocrlf, FTP ASCII mode): LF -> CR LF.
    if (auto c = entry.find("crlf"); c && c->boolean()) bytes = apply_crlf(bytes);
    write_bytes(target, bytes);
  }
  Deferred d{target, std::nullopt, std::nullopt};
  if (auto m = entry.find("mode")) {
    std::string text = m->string();
    mode_t value = 0;
    for (char c : text) {
      if (c < '0' || c > '7') m->fail("expected an octal mode such as \"0644\"");
      value = static_cast<mode_t>(value * 8 + static_cast<mode_t>(c - '0'));
    }
    d.mode = value;
  }
  if (auto t = entry.find("mtime")) d.mtime = t->i64();
  if (d.mode || d.mtime) deferred.push_back(d);
}

void apply_deferred(const std::vector<Deferred>& deferred) {
  // Deepest entries last written first, so a directory's own settings come after its contents'.
  for (auto it = deferred.rbegin(); it != deferred.rend(); ++it) {
    if (it->mtime) {
      struct timespec times[2];
      times[0].tv_sec = times[1].tv_sec = static_cast<time_t>(*it->mtime);
      times[0].tv_nsec = times[1].tv_nsec = 0;
      if (::utimensat(AT_FDCWD, it->path.c_str(), times, 0) != 0)
        system_error("cannot set time of", it->path);
    }
    if (it->mode && ::chmod(it->path.c_str(), *it->mode) != 0)
      system_error("cannot chmod", it->path);
  }
}

const std::initializer_list<std::string_view> kEntryKeys = {
    "path",        "npy",  "raw",         "ascend",      "overflow",       "text",
    "lines",       "json", "hex",         "dir",         "symlink",        "truncate_at",
    "append_hex",  "mode", "mtime",       "empty",       "fifo",           "socket",
    "count_lines", "ir",   "graph_proto", "summary",     "rdr_exec_order", "rdr_memory",
    "rdr_tasks",   "ckpt", "encrypted",   "safetensors", "mindir",         "ms_lite",
    "crlf"};

}  // namespace

void write_tree(const Node& description, const fs::path& out) {
  description.check_keys({"kind", "files"});
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw DescriptionError("cannot create directory '" + out.string() + "': " + ec.message());
  std::vector<Deferred> deferred;
  if (auto files = description.find("files")) {
    for (const auto& entry : files->elements()) {
      entry.check_keys(kEntryKeys);
      write_entry(entry, out / relative_path(entry.at("path")), deferred);
    }
  }
  apply_deferred(deferred);
}

void write_single_file(const Node& description, const fs::path& out) {
  std::vector<std::string_view> keys(kEntryKeys);
  keys.erase(keys.begin());  // no "path"
  for (const auto& [k, unused] : description.value().items()) {
    if (k != "kind" && std::find(keys.begin(), keys.end(), k) == keys.end())
      description.fail("unknown key \"" + k + "\"");
  }
  std::vector<Deferred> deferred;
  write_entry(description, out, deferred);
  apply_deferred(deferred);
}

}  // namespace msdt::fixture
