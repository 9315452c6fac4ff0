#include "io/regex.h"

#include <re2/re2.h>

#include <algorithm>

#include "io/text.h"

namespace msdt {
namespace {

// RE2's message, "missing ): (ab", ends with the part of the pattern at fault, which may be the
// whole pattern: shown as RE2 writes it when it is short and printable, else quoted and cut.
std::string describe(const RE2& re) {
  const std::string& message = re.error();
  const std::string& arg = re.error_arg();
  if (arg.empty() || !std::string_view(message).ends_with(arg)) return message;
  bool printable = std::all_of(arg.begin(), arg.end(), [](char c) {
    auto b = static_cast<unsigned char>(c);
    return b >= 0x20 && b != 0x7f;
  });
  constexpr size_t kShown = 80;
  if (printable && arg.size() <= kShown) return message;
  return message.substr(0, message.size() - arg.size()) + quote_for_message(arg, kShown);
}

}  // namespace

bool Regex::search(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

const std::string& Regex::pattern() const { return re_->pattern(); }

Expected<Regex> compile_user_regex(std::string_view pattern) {
  RE2::Options options;
  options.set_log_errors(false);  // the error is returned, never printed by RE2
  options.set_max_mem(kRegexMaxMem);
  options.set_never_capture(true);  // only whether it matches: groups capture nothing
  auto re = std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) return Error("invalid regular expression: " + describe(*re));
  Regex regex;
  regex.re_ = std::move(re);
  return regex;
}

}  // namespace msdt
