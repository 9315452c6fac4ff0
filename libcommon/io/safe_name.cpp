#include "io/safe_name.h"

#include <algorithm>

#include "io/hash.h"

namespace msdt {
namespace {

bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-' || c == '~';
}

}  // namespace

std::string safe_file_name(std::string_view raw, std::string_view suffix) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(raw.size() + suffix.size());
  for (unsigned char c : raw) {
    if (unreserved(c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  // "." and ".." would name directories (and "" nothing): their dots are quoted too.
  if (out == "." || out == "..") {
    out.clear();
    for (size_t i = 0; i < raw.size(); ++i) out += "%2E";
  }
  if (out.size() + suffix.size() <= kMaxFileNameBytes) return out + std::string(suffix);
  // "%~" + 32 hex digits of the raw name's MD5.
  std::string digest = "%~" + md5_hex({reinterpret_cast<const std::byte*>(raw.data()), raw.size()});
  size_t keep = kMaxFileNameBytes - std::min(kMaxFileNameBytes, digest.size() + suffix.size());
  // Not inside a %XX: a '%' in the last two bytes kept starts a triple that would be cut.
  if (keep >= 1 && out[keep - 1] == '%')
    keep -= 1;
  else if (keep >= 2 && out[keep - 2] == '%')
    keep -= 2;
  out.resize(keep);
  return out + digest + std::string(suffix);
}

}  // namespace msdt
