#include "io/regex.h"

#include <fmt/format.h>

#include <cctype>

namespace msdt {
namespace {

// Checks the pattern's shape without compiling it: length, group nesting, {m,n} counts, and no
// quantifier right after another (a "?" after one is the lazy form and allowed).
Status check_shape(std::string_view p) {
  if (p.size() > kRegexMaxLength)
    return Error(fmt::format("longer than {} characters", kRegexMaxLength));
  int depth = 0;
  bool quantified = false;  // the previous token was a quantifier
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\') {  // an escape is one atom
      ++i;
      quantified = false;
      continue;
    }
    if (in_class) {
      if (c == ']') in_class = false;
      continue;
    }
    bool quantifier = c == '*' || c == '+' || c == '{' || (c == '?' && !quantified);
    if (c == '?' && quantified) {  // lazy
      quantified = false;
      continue;
    }
    if (quantifier && quantified)
      return Error(fmt::format("a quantifier follows a quantifier at character {}", i + 1));
    switch (c) {
      case '[':
        in_class = true;
        break;
      case '(':
        if (++depth > kRegexMaxNesting)
          return Error(fmt::format("groups nested deeper than {}", kRegexMaxNesting));
        break;
      case ')':
        depth = std::max(0, depth - 1);
        break;
      case '{': {
        // {m}, {m,}, {m,n}: every count at most kRegexMaxRepeat.
        size_t j = i + 1;
        while (j < p.size() && p[j] != '}') {
          if (std::isdigit(static_cast<unsigned char>(p[j]))) {
            size_t k = j;
            while (k < p.size() && std::isdigit(static_cast<unsigned char>(p[k]))) ++k;
            if (k - j > 4 || std::stoul(std::string(p.substr(j, k - j))) > kRegexMaxRepeat)
              return Error(
                  fmt::format("a repeat count above {} at character {}", kRegexMaxRepeat, j + 1));
            j = k;
          } else {
            ++j;
          }
        }
        i = j;
        break;
      }
      default:
        break;
    }
    quantified = quantifier;
  }
  return std::nullopt;
}

}  // namespace

Expected<std::regex> compile_user_regex(std::string_view pattern) {
  if (auto problem = check_shape(pattern))
    return Error(fmt::format("invalid regular expression: {}", problem->message));
  try {
    return std::regex(pattern.begin(), pattern.end(),
                      std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    return Error(fmt::format("invalid regular expression: {}", e.what()));
  }
}

}  // namespace msdt
