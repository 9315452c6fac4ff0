// Regular expressions given by users (--op, --node-regex, node_regex in watch files), compiled
// once and checked first for what would make std::regex crash or hang: libstdc++ compiles by
// recursion (deep nesting overflows the stack) and backtracks exponentially on a quantifier
// applied to a quantifier, which ECMAScript forbids but libstdc++ accepts ("a**").
#pragma once

#include <regex>
#include <string_view>

#include "io/error.h"

namespace msdt {

inline constexpr size_t kRegexMaxLength = 1024;
inline constexpr int kRegexMaxNesting = 32;
inline constexpr unsigned long kRegexMaxRepeat = 1000;

// ECMAScript syntax; the error says what is wrong ("invalid regular expression: a quantifier
// follows a quantifier at character 3", "...: groups nested deeper than 32", a std::regex message).
Expected<std::regex> compile_user_regex(std::string_view pattern);

}  // namespace msdt
