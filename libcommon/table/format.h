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
// * TSV escapes `\` `\t` `\n` `\r` as `\\` `\t` `\n` `\r` and every other control byte (0x00-0x1F,
//   0x7F: ESC above all) as `\xNN`, which `printf '%b'` turns back into the bytes; other bytes,
//   invalid UTF-8 included, pass unchanged so a path still reaches xargs as it is on disk;
// * CSV quotes as RFC 4180 does (a field holding `,` `"` CR or LF is quoted, `"` doubled) but ends
//   lines with LF, as Unix tools expect;
// * the aligned text for terminals spells its cells as messages spell paths (printable_path:
//   control characters C0, DEL and C1 and bytes that are not valid UTF-8 as `\xNN`, a backslash as
//   `\\`), so a name never sends escape sequences to the terminal;
// * JSON strings are UTF-8; a byte NN that is not valid UTF-8 is the lone surrogate `\udcNN`
//   (Python's surrogateescape), so `os.fsencode(json.loads(line)["file"])` gives back the bytes.
//   Python and jq read such strings; strict parsers (nlohmann::json) refuse lone surrogates.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace msdt::table {

// The shortest form as above, which is also Python's repr of a float (positional for decimal
// exponents in [-4, 16), else "1e-05" / "1e+16"): what summary-cat's export and the peers' CSVs
// (msprobe) print. Digits::Float32 prints the shortest digits that read back as the same float32
// (numpy's str of an np.float32: 0.1f is "0.1", not "0.10000000149011612"); `value` must then be
// a float32 value.
enum class Digits : unsigned char { Float64, Float32 };
std::string format_double(double value, Digits digits = Digits::Float64);  // "2.0", "1e+20", "nan"
std::string escape_tsv(std::string_view field);
std::string escape_csv(std::string_view field);
// A JSON string literal with quotes; see the header comment for non-UTF-8 bytes.
std::string json_string(std::string_view text);
// The same spellings appended to `out`: what the sinks use row by row, without a string per cell.
void append_double(std::string& out, double value, Digits digits = Digits::Float64);
void append_tsv(std::string& out, std::string_view field);
void append_csv(std::string& out, std::string_view field);
void append_json_string(std::string& out, std::string_view text);
void append_json_double(std::string& out, double value);
// A double as a JSON value: the number, 1e999 / -1e999 for ±infinity, null for NaN.
std::string json_double(double value);
// A JSON document with our number and string spelling (json_double, json_string); indent < 0
// writes one line, otherwise nested values are indented by that many spaces per level (arrays of
// scalars stay on one line).
std::string to_json_text(const nlohmann::json& value, int indent);
std::string to_json_text(const nlohmann::ordered_json& value, int indent);
// The same appended to `out` as the value of nesting level `depth` (0: the document): for a writer
// that streams the levels above it and spells only the small values as JSON trees.
void append_json_text(std::string& out, const nlohmann::ordered_json& value, int indent, int depth);
// JSON rendered as indented "key: value" lines for text views (null prints as `-`).
std::string to_indented_text(const nlohmann::json& value, int indent);
std::string to_indented_text(const nlohmann::ordered_json& value, int indent);
// Characters of UTF-8 text (continuation bytes do not count).
size_t display_width(std::string_view text);
// Pads every column but the last to its widest cell (counted in UTF-8 characters), two spaces
// apart; each row ends with a newline. With `widths`, each column is at least as wide as it says,
// and it is left holding the widths used: rows aligned block after block keep their columns
// where the blocks before put them (they only widen).
std::string align_columns(const std::vector<std::vector<std::string>>& rows,
                          std::vector<size_t>* widths = nullptr);

}  // namespace msdt::table
