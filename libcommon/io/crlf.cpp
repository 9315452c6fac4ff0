#include "io/crlf.h"

#include <fmt/format.h>

#include <cstring>

#include "io/text.h"

namespace msdt {
namespace {

const std::byte* find_lf(const std::byte* from, const std::byte* end) {
  return static_cast<const std::byte*>(std::memchr(from, '\n', static_cast<size_t>(end - from)));
}

bool is_shell_safe(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::strchr("@%+=:,./_-", c) != nullptr;
}

// `path` as one word of a POSIX shell command line: bare when it needs no quoting, in single
// quotes otherwise, and in bash's $'…' with \xNN for bytes that are not printable UTF-8 (the
// message stays one line and says which bytes the name holds). Standard input has no name.
std::string shell_word(std::string_view path) {
  if (path.empty() || path == "-" || path == "<stdin>") return "FILE";
  bool safe = true, printable = true;
  for (size_t i = 0; i < path.size();) {
    const auto c = static_cast<unsigned char>(path[i]);
    const size_t n = utf8_sequence_length(path, i);
    const bool c1 = n == 2 && c == 0xc2 && static_cast<unsigned char>(path[i + 1]) < 0xa0;
    if (n == 0 || c < 0x20 || c == 0x7f || c1) printable = false;
    if (!is_shell_safe(path[i])) safe = false;
    i += n == 0 ? 1 : n;
  }
  if (safe) return std::string(path);
  std::string out = printable ? "'" : "$'";
  for (char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if (printable)
      out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    else if (c < 0x20 || c >= 0x7f || ch == '\'' || ch == '\\')
      out += fmt::format("\\x{:02x}", c);
    else
      out += ch;
  }
  return out + "'";
}

std::string lf_phrase(uint64_t lf) {
  return lf == 1 ? std::string("its one LF byte has a CR before it")
                 : fmt::format("each of its {} LF bytes has a CR before it", lf);
}

constexpr std::string_view kDamaged = "damaged by a line-ending conversion";
constexpr std::string_view kHow = "(a text-mode copy: git's autocrlf or text=auto, FTP ASCII mode)";

std::string remedy(std::string_view path) {
  return fmt::format(
      "get a binary copy (git: mark the file -text in .gitattributes and check it out again; FTP: "
      "binary mode) or repair it with: perl -0777 -pe 's/\\r\\n/\\n/g' < {} > FIXED",
      shell_word(path));
}

}  // namespace

uint64_t crlf_damaged_lf_count(Bytes data) {
  const std::byte* begin = data.data();
  const std::byte* end = begin + data.size();
  uint64_t count = 0;
  for (const std::byte* p = begin; p < end; ++p) {
    p = find_lf(p, end);
    if (p == nullptr) break;
    if (p == begin || p[-1] != std::byte{'\r'}) return 0;
    ++count;
  }
  return count;
}

std::vector<std::byte> undo_crlf(Bytes data) {
  std::vector<std::byte> out;
  out.reserve(data.size());
  const std::byte* begin = data.data();
  const std::byte* end = begin + data.size();
  const std::byte* from = begin;
  for (const std::byte* p = begin; p < end; ++p) {
    p = find_lf(p, end);
    if (p == nullptr) break;
    if (p != begin && p[-1] == std::byte{'\r'}) {
      out.insert(out.end(), from, p - 1);  // the bytes up to the CR, then the LF alone
      from = p;
    }
  }
  out.insert(out.end(), from, end);
  return out;
}

std::vector<std::byte> apply_crlf(Bytes data) {
  std::vector<std::byte> out;
  out.reserve(data.size() + data.size() / 64);
  const std::byte* end = data.data() + data.size();
  const std::byte* from = data.data();
  for (const std::byte* p = from; p < end;) {
    p = find_lf(p, end);
    if (p == nullptr) break;
    out.insert(out.end(), from, p);
    out.push_back(std::byte{'\r'});
    from = p++;
  }
  out.insert(out.end(), from, end);
  return out;
}

bool explain_line_ending_damage(Error& error, Bytes data, std::string_view path,
                                const RepairedParse& parse, uint64_t retry_limit) {
  if (error.message.starts_with(kDamaged)) return true;  // said already, by an inner reader
  const uint64_t lf = crlf_damaged_lf_count(data);
  if (lf == 0) return false;
  if (data.size() > retry_limit) {
    error.message = fmt::format(
        "{}; likely damaged by a line-ending conversion: {} {}; at {} bytes it is too large to "
        "check by reading a repaired copy (at most {} bytes); {}",
        error.message, lf_phrase(lf), kHow, data.size(), retry_limit, remedy(path));
    return true;
  }
  std::optional<std::string> kind;
  try {
    const std::vector<std::byte> repaired = undo_crlf(data);
    kind = parse(repaired);
  } catch (const std::bad_alloc&) {  // no memory for the copy: the damage is not claimed
    return false;
  }
  if (!kind) return false;
  error = Error(fmt::format("{}: {} {}; with them undone it is a valid {}; {}", kDamaged,
                            lf_phrase(lf), kHow, *kind, remedy(path)));
  return true;
}

}  // namespace msdt
