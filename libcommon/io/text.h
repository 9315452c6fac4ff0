// Small text helpers shared by every reader of names, CSV cells and messages: names in dumps are
// bytes, not necessarily UTF-8 or printable, and numbers in them are plain unsigned decimals.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace msdt {

// The whole of `text` as an unsigned decimal: no sign, no blanks; nullopt when empty, when any
// character is not a digit, or when the value does not fit in T.
template <class T>
std::optional<T> parse_unsigned(std::string_view text) {
  static_assert(std::is_unsigned_v<T>, "signs are not part of the grammars we read");
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// True for a non-empty run of ASCII digits, of exactly `exact_length` when that is not 0.
bool is_digits(std::string_view text, size_t exact_length = 0);

// ASCII case-insensitive comparison and search (names of conditions, scopes such as Gradients).
bool equals_ignoring_case(std::string_view a, std::string_view b);
bool contains_ignoring_case(std::string_view text, std::string_view part);

// Without leading and trailing spaces and tabs.
std::string_view trim_blanks(std::string_view text);

// Natural order, for every listing a person reads: runs of ASCII digits compare by their numeric
// value (rank_2 < rank_10, iteration 9 < 10; any length, no overflow), everything else byte by
// byte. Names equal in that order (leading zeros: "01" and "1") fall back to byte order, so the
// order is total and stable. natural_compare returns <0, 0 or >0.
int natural_compare(std::string_view a, std::string_view b);
inline bool natural_less(std::string_view a, std::string_view b) {
  return natural_compare(a, b) < 0;
}

// Length of the valid UTF-8 sequence starting at text[at], or 0 for a byte that does not start
// one (overlong forms, surrogates and values above U+10FFFF are invalid).
size_t utf8_sequence_length(std::string_view text, size_t at);

// The largest cut at or before `at` (at most text.size()) that does not fall inside a UTF-8
// sequence: where to shorten text without splitting a character.
size_t utf8_boundary(std::string_view text, size_t at);

// `text` in single quotes for an error message, at most `max_shown` bytes of it followed by "...";
// bytes outside printable ASCII, and the backslash, are spelled \xNN.
std::string quote_for_message(std::string_view text, size_t max_shown = 80);

// `text` with every byte that is not part of valid UTF-8 spelled \xNN, so that it can go into
// JSON (whose strings must be UTF-8) and still say which bytes the name held.
std::string escape_invalid_utf8(std::string_view text);
// The same into `out` (replaced, its memory reused: a decoder filling one string record after
// record allocates nothing).
void escape_invalid_utf8(std::string_view text, std::string& out);

// a == b for short texts (a summary's tags, compared once per value of a file) without a call
// into the C library.
inline bool same_text(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  size_t i = 0;
  for (; i + 8 <= a.size(); i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) return false;
  }
  for (; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

}  // namespace msdt
