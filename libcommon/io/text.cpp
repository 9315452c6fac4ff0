#include "io/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace msdt {

bool is_digits(std::string_view text, size_t exact_length) {
  if (text.empty() || (exact_length != 0 && text.size() != exact_length)) return false;
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

namespace {
char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return ascii_lower(x) == ascii_lower(y);
         });
}

bool contains_ignoring_case(std::string_view text, std::string_view part) {
  return std::search(text.begin(), text.end(), part.begin(), part.end(),
                     [](char x, char y) { return ascii_lower(x) == ascii_lower(y); }) != text.end();
}

std::string_view trim_blanks(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  size_t end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

int natural_compare(std::string_view a, std::string_view b) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      // Compare the runs without their leading zeros: the longer is larger, else digit by digit.
      size_t a_end = i, b_end = j;
      while (a_end < a.size() && digit(a[a_end])) ++a_end;
      while (b_end < b.size() && digit(b[b_end])) ++b_end;
      while (i + 1 < a_end && a[i] == '0') ++i;
      while (j + 1 < b_end && b[j] == '0') ++j;
      if (a_end - i != b_end - j) return a_end - i < b_end - j ? -1 : 1;
      if (int c = a.substr(i, a_end - i).compare(b.substr(j, b_end - j)); c != 0) return c;
      i = a_end;
      j = b_end;
      continue;
    }
    auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[j]);
    if (x != y) return x < y ? -1 : 1;
    ++i;
    ++j;
  }
  if (i < a.size()) return 1;
  if (j < b.size()) return -1;
  int c = a.compare(b);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

size_t utf8_boundary(std::string_view text, size_t at) {
  if (at >= text.size()) return text.size();
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

size_t utf8_sequence_length(std::string_view text, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[at + i]); };
  const uint8_t lead = byte(0);
  if (lead < 0x80) return 1;
  size_t length = 0;
  uint8_t low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (text.size() - at < length || byte(1) < low || byte(1) > high) return 0;
  for (size_t i = 2; i < length; ++i)
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  return length;
}

std::string quote_for_message(std::string_view text, size_t max_shown) {
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < max_shown; ++i) {
    auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f && byte != '\\')
      out.push_back(static_cast<char>(byte));
    else
      out += fmt::format("\\x{:02x}", byte);
  }
  if (text.size() > max_shown) out += "...";
  out += "'";
  return out;
}

std::string escape_invalid_utf8(std::string_view text) {
  std::string out;
  escape_invalid_utf8(text, out);
  return out;
}

namespace {

// Whether every byte is below 0x80, eight at a time.
bool is_ascii(std::string_view text) {
  size_t i = 0;
  uint64_t high = 0;
  for (; i + 8 <= text.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    high |= word;
  }
  for (; i < text.size(); ++i) high |= static_cast<uint8_t>(text[i]);
  return (high & 0x8080808080808080u) == 0;
}

}  // namespace

void escape_invalid_utf8(std::string_view text, std::string& out) {
  // Most texts are ASCII: copied whole.
  if (is_ascii(text)) {
    out.assign(text);
    return;
  }
  out.clear();
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (size_t n = utf8_sequence_length(text, i); n != 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out += fmt::format("\\x{:02x}", static_cast<uint8_t>(text[i]));
      ++i;
    }
  }
}

}  // namespace msdt
