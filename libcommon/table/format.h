// Spelling values for people and for programs: shortest round-trip numbers, TSV/CSV/JSON
// escaping, our JSON writer and the aligned text table. Used by every sink in table/sink.h and by
// the one-document views (`dump-parse --show`, `--summary`).
//
// Conventions (each tool's man page repeats the ones its output shows):
// * a double prints in the shortest form that reads back to the same double, always with a `.`
//   or an exponent (`2.0`, `0.1`, `1e+20`) so that a float never looks like a count; non-finite
//   values are `nan`, `inf`, `-inf`; in JSON ±infinity is the number `1e999` / `-1e999` (read as
//   ±inf by Python and JavaScript, as ±max double by jq, so `.min < 0` holds for -inf) and NaN is
//   `null`;
// * TSV escapes `\` `\t` `\n` `\r` as `\\` `\t` `\n` `\r`; CSV quotes as RFC 4180 does (a field
//   holding `,` `"` CR or LF is quoted, `"` doubled) but ends lines with LF, as Unix tools expect;
// * JSON strings are UTF-8; bytes that are not valid UTF-8 appear as `\xNN` (the same spelling as
//   in error messages), with a literal backslash doubled.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace msdt::table {

std::string format_double(double value);  // "2.0", "0.1", "1e+20", "nan", "-inf"
std::string escape_tsv(std::string_view field);
std::string escape_csv(std::string_view field);
// A JSON string literal with quotes; see the header comment for non-UTF-8 bytes.
std::string json_string(std::string_view text);
// A double as a JSON value: the number, 1e999 / -1e999 for ±infinity, null for NaN.
std::string json_double(double value);
// A JSON document with our number and string spelling (json_double, json_string); indent < 0
// writes one line, otherwise nested values are indented by that many spaces per level (arrays of
// scalars stay on one line).
std::string to_json_text(const nlohmann::json& value, int indent);
std::string to_json_text(const nlohmann::ordered_json& value, int indent);
// JSON rendered as indented "key: value" lines for text views (null prints as `-`).
std::string to_indented_text(const nlohmann::json& value, int indent);
std::string to_indented_text(const nlohmann::ordered_json& value, int indent);
// Characters of UTF-8 text (continuation bytes do not count).
size_t display_width(std::string_view text);
// Pads every column but the last to its widest cell (counted in UTF-8 characters), two spaces
// apart; each row ends with a newline.
std::string align_columns(const std::vector<std::vector<std::string>>& rows);

}  // namespace msdt::table
