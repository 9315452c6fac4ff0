// How deep a JSON text nests, found in one pass without parsing it: to refuse a text nested
// 100 000 levels before a parser or a printer that recurses once per level (nlohmann's dump,
// which quotes a wrong value in a message) overflows the stack on it.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace msdt {

// The byte offset of the first '[' or '{' that opens a level deeper than `max_depth` (brackets
// inside strings do not count), or nothing. The text need not be valid JSON: closing brackets
// without an opening one are ignored.
std::optional<size_t> json_nesting_beyond(std::string_view text, size_t max_depth);

}  // namespace msdt
