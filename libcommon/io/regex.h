// Regular expressions given by users (--op, --node-regex and node_regex in watch files, --tag,
// --focus, --around, --name), in RE2's syntax (https://github.com/google/re2/wiki/Syntax): matched
// in time linear in the text, without recursion and without backtracking, so no pattern can hang
// or crash a tool. RE2 has no backreferences (\1) and no lookaround ((?=…), (?!…), (?<=…),
// (?<!…)); such a pattern is refused with RE2's message.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "io/error.h"

namespace re2 {
class RE2;
}

namespace msdt {

// The memory one compiled pattern may use, its program and its DFA cache together (RE2's own
// default): a pattern whose program needs more is refused ("pattern too large - compile
// failed"); a search whose DFA would outgrow it goes on in RE2's NFA, slower but still linear.
inline constexpr int64_t kRegexMaxMem = int64_t{8} << 20;

// A compiled pattern. Copies share it; any number of threads may match with it at once.
class Regex {
 public:
  // Whether some part of `text` matches: searched, not anchored (^ and $ anchor at the ends of
  // the text; (?m) makes them match at line ends too).
  bool search(std::string_view text) const;
  const std::string& pattern() const;

 private:
  friend Expected<Regex> compile_user_regex(std::string_view pattern);
  std::shared_ptr<const re2::RE2> re_;
};

// The pattern is UTF-8 and matches characters; a text may hold any bytes, but one that is not
// part of valid UTF-8 is matched by no '.' and no class. The error is "invalid regular
// expression: " and RE2's message: "missing ): (", "invalid perl operator: (?=", "invalid escape
// sequence: \1".
Expected<Regex> compile_user_regex(std::string_view pattern);

}  // namespace msdt
