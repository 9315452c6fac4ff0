// Spelling of values: shortest round-trip doubles, TSV/CSV/JSON escaping, the JSON writer and the
// text aligner.
#include "table/format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace msdt::table {
namespace {

TEST(FormatDouble, ShortestRoundTripAlwaysLooksLikeAFloat) {
  EXPECT_EQ(format_double(2.0), "2.0");
  EXPECT_EQ(format_double(-3.0), "-3.0");
  EXPECT_EQ(format_double(0.0), "0.0");
  EXPECT_EQ(format_double(-0.0), "-0.0");
  EXPECT_EQ(format_double(0.1), "0.1");
  EXPECT_EQ(format_double(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(format_double(123456789.0), "123456789.0");
  EXPECT_EQ(format_double(1e20), "1e+20");
  EXPECT_EQ(format_double(1.5e-7), "1.5e-07");
  EXPECT_EQ(format_double(static_cast<double>(0.1f)), "0.10000000149011612");
  EXPECT_EQ(format_double(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(format_double(-std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(format_double(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(format_double(-std::numeric_limits<double>::infinity()), "-inf");
  for (double v : {0.1, 1.0 / 3.0, 6.02214076e23, 5e-324, 1.7976931348623157e308})
    EXPECT_EQ(std::strtod(format_double(v).c_str(), nullptr), v);
}

TEST(FormatDouble, IsPythonsReprAndNumpysFloat32Str) {
  // Python's repr: positional for decimal exponents in [-4, 16), else an exponent.
  EXPECT_EQ(format_double(1e16), "1e+16");
  EXPECT_EQ(format_double(1e15), "1000000000000000.0");
  EXPECT_EQ(format_double(0.0001), "0.0001");
  EXPECT_EQ(format_double(1e-05), "1e-05");
  EXPECT_EQ(format_double(123456789012345.6), "123456789012345.6");
  // str(np.float32(x)): the shortest digits that read back as the same float32.
  auto f32 = [](double v) { return format_double(static_cast<float>(v), Digits::Float32); };
  EXPECT_EQ(f32(0.1), "0.1");
  EXPECT_EQ(f32(1.0 / 3.0), "0.33333334");
  EXPECT_EQ(f32(16777216.0), "16777216.0");
  EXPECT_EQ(f32(1e-5), "1e-05");
  EXPECT_EQ(f32(3e38), "3e+38");
  EXPECT_EQ(f32(-0.0), "-0.0");
  EXPECT_EQ(f32(1e16), "1e+16");
  EXPECT_EQ(f32(2.5e-45), "3e-45");  // the subnormal 2.8e-45
  EXPECT_EQ(f32(NAN), "nan");
  EXPECT_EQ(f32(-INFINITY), "-inf");
  for (float v : {0.1f, 1.0f / 3.0f, 6.02214076e23f, 1e-45f, 3.4028235e38f})
    EXPECT_EQ(std::strtof(format_double(v, Digits::Float32).c_str(), nullptr), v);
}

TEST(FormatDouble, JsonSpellsInfinityAsOverflowingNumbersAndNanAsNull) {
  EXPECT_EQ(json_double(2.5), "2.5");
  EXPECT_EQ(json_double(4.0), "4.0");
  EXPECT_EQ(json_double(std::nan("")), "null");
  EXPECT_EQ(json_double(INFINITY), "1e999");
  EXPECT_EQ(json_double(-INFINITY), "-1e999");
  // Valid JSON numbers that strtod (as Python's and JavaScript's readers) turns into ±infinity.
  // nlohmann::json refuses them (number overflow), so its users must parse with a callback.
  EXPECT_EQ(std::strtod(json_double(-INFINITY).c_str(), nullptr), -INFINITY);
  EXPECT_TRUE(nlohmann::json::accept("[" + json_double(NAN) + "]"));
}

TEST(Escaping, Tsv) {
  EXPECT_EQ(escape_tsv("plain name.with-dots"), "plain name.with-dots");
  EXPECT_EQ(escape_tsv("a\tb\nc\rd\\e"), "a\\tb\\nc\\rd\\\\e");
  EXPECT_EQ(escape_tsv(""), "");
  // Every other control byte, ESC above all, as \xNN; other bytes (invalid UTF-8 too) unchanged.
  EXPECT_EQ(escape_tsv("\x1b[31m\x01\x7f\xff\xc3\xa9"), "\\x1b[31m\\x01\\x7f\xff\xc3\xa9");
}

TEST(Escaping, Csv) {
  EXPECT_EQ(escape_csv("plain"), "plain");
  EXPECT_EQ(escape_csv("a,b"), "\"a,b\"");
  EXPECT_EQ(escape_csv("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(escape_csv("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(escape_csv("cr\r"), "\"cr\r\"");
  EXPECT_EQ(escape_csv(" spaced "), " spaced ");
}

TEST(Escaping, JsonString) {
  EXPECT_EQ(json_string("abc"), "\"abc\"");
  EXPECT_EQ(json_string("q\"b\\"), "\"q\\\"b\\\\\"");
  EXPECT_EQ(json_string("\t\n\r\x01\x7f"), "\"\\t\\n\\r\\u0001\\u007f\"");
  EXPECT_EQ(json_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  // Bytes that are not UTF-8 (stray, truncated, overlong, surrogate) are lone surrogates U+DCNN,
  // Python's surrogateescape, so the bytes can be recovered.
  EXPECT_EQ(json_string("a\xff"), "\"a\\udcff\"");
  EXPECT_EQ(json_string("\xc3"), "\"\\udcc3\"");
  EXPECT_EQ(json_string("\xc0\xaf"), "\"\\udcc0\\udcaf\"");
  EXPECT_EQ(json_string("\xed\xa0\x80"), "\"\\udced\\udca0\\udc80\"");
  // A literal "\xff" in a name stays distinguishable from the byte.
  EXPECT_EQ(json_string("\\xff"), "\"\\\\xff\"");
}

TEST(AlignColumns, PadsAllButTheLastColumn) {
  EXPECT_EQ(align_columns({{"rank", "op", "file"}, {"0", "Conv2D-op107", "a b"}, {"12", "x", "c"}}),
            "rank  op            file\n"
            "0     Conv2D-op107  a b\n"
            "12    x             c\n");
  EXPECT_EQ(align_columns({}), "");
  // Widths count characters, not bytes.
  EXPECT_EQ(align_columns({{"\xc3\xa9t\xc3\xa9", "x"}, {"abcd", "y"}}),
            "\xc3\xa9t\xc3\xa9   x\n"
            "abcd  y\n");
}

TEST(JsonText, NumbersStringsAndIndent) {
  nlohmann::ordered_json doc = {{"b", 2.0},
                                {"a", {1, 2}},
                                {"s", "x\xff"},
                                {"o", {{"k", nullptr}, {"t", true}}},
                                {"e", nlohmann::ordered_json::array()}};
  EXPECT_EQ(to_json_text(doc, -1),
            "{\"b\": 2.0, \"a\": [1, 2], \"s\": \"x\\udcff\", \"o\": {\"k\": null, \"t\": true}, "
            "\"e\": []}");
  EXPECT_EQ(to_json_text(doc, 2),
            "{\n  \"b\": 2.0,\n  \"a\": [1, 2],\n  \"s\": \"x\\udcff\",\n  \"o\": {\n    \"k\": "
            "null,\n    \"t\": true\n  },\n  \"e\": []\n}");
  EXPECT_EQ(to_indented_text(doc, 0),
            "b: 2.0\na: [1, 2]\ns: x\\xff\no:\n  k: -\n  t: true\ne: []\n");
  nlohmann::ordered_json list = {{{"x", 1}}, {{"x", -2}}};
  EXPECT_EQ(to_indented_text(list, 2), "  [0]:\n    x: 1\n  [1]:\n    x: -2\n");
}

}  // namespace
}  // namespace msdt::table
