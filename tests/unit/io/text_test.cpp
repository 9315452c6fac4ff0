// The text helpers every name, CSV and message reader relies on.
#include "io/text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace msdt {
namespace {

TEST(ParseUnsigned, AcceptsOnlyWholeDecimals) {
  EXPECT_EQ(parse_unsigned<uint64_t>("0"), 0u);
  EXPECT_EQ(parse_unsigned<uint64_t>("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(parse_unsigned<uint32_t>("4294967295"), UINT32_MAX);
  EXPECT_FALSE(parse_unsigned<uint32_t>("4294967296"));
  EXPECT_FALSE(parse_unsigned<uint64_t>("18446744073709551616"));
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1a", "0x10", "1.0"})
    EXPECT_FALSE(parse_unsigned<uint64_t>(bad)) << bad;
}

TEST(IsDigits, RequiresDigitsAndOptionalLength) {
  EXPECT_TRUE(is_digits("0123"));
  EXPECT_FALSE(is_digits(""));
  EXPECT_FALSE(is_digits("12a"));
  EXPECT_TRUE(is_digits("20240501120000", 14));
  EXPECT_FALSE(is_digits("2024050112", 14));
}

TEST(TrimBlanks, RemovesSpacesAndTabsOnly) {
  EXPECT_EQ(trim_blanks(" \tMax Value\t "), "Max Value");
  EXPECT_EQ(trim_blanks("  "), "");
  EXPECT_EQ(trim_blanks("\nx\n"), "\nx\n");
}

TEST(Text, Utf8BoundaryNeverSplitsACharacter) {
  const std::string_view text = "a\xc3\xa9\xe4\xb8\xad";  // a é 中
  EXPECT_EQ(utf8_boundary(text, 0), 0u);
  EXPECT_EQ(utf8_boundary(text, 1), 1u);  // before é
  EXPECT_EQ(utf8_boundary(text, 2), 1u);  // inside é
  EXPECT_EQ(utf8_boundary(text, 3), 3u);  // before 中
  EXPECT_EQ(utf8_boundary(text, 4), 3u);
  EXPECT_EQ(utf8_boundary(text, 5), 3u);
  EXPECT_EQ(utf8_boundary(text, 6), 6u);   // the end
  EXPECT_EQ(utf8_boundary(text, 60), 6u);  // past the end
  EXPECT_EQ(utf8_boundary("\x80\x80", 1), 0u);  // stray continuation bytes
}

TEST(Utf8SequenceLength, ValidSequences) {
  EXPECT_EQ(utf8_sequence_length("a", 0), 1u);
  EXPECT_EQ(utf8_sequence_length("\xc3\xa9", 0), 2u);          // é
  EXPECT_EQ(utf8_sequence_length("x\xe4\xb8\xad", 1), 3u);     // 中, not at the start
  EXPECT_EQ(utf8_sequence_length("\xf0\x9f\x98\x80", 0), 4u);  // 😀
}

TEST(Utf8SequenceLength, InvalidSequencesAreZero) {
  EXPECT_EQ(utf8_sequence_length("\xff", 0), 0u);
  EXPECT_EQ(utf8_sequence_length("\x80", 0), 0u);              // continuation byte alone
  EXPECT_EQ(utf8_sequence_length("\xc0\xaf", 0), 0u);          // overlong '/'
  EXPECT_EQ(utf8_sequence_length("\xe0\x80\xaf", 0), 0u);      // overlong
  EXPECT_EQ(utf8_sequence_length("\xed\xa0\x80", 0), 0u);      // surrogate
  EXPECT_EQ(utf8_sequence_length("\xf4\x90\x80\x80", 0), 0u);  // above U+10FFFF
  EXPECT_EQ(utf8_sequence_length("\xe4\xb8", 0), 0u);          // cut short
}

TEST(QuoteForMessage, EscapesBytesAndCutsLongText) {
  EXPECT_EQ(quote_for_message("ab\\c\n\xff"), "'ab\\x5cc\\x0a\\xff'");
  EXPECT_EQ(quote_for_message("abcdef", 3), "'abc...'");
  EXPECT_EQ(quote_for_message(""), "''");
}

TEST(EscapeInvalidUtf8, KeepsValidTextAndSpellsOtherBytes) {
  EXPECT_EQ(escape_invalid_utf8("op\xc3\xa9-\xff\xfe"), "op\xc3\xa9-\\xff\\xfe");
  EXPECT_EQ(escape_invalid_utf8("\xe4\xb8"), "\\xe4\\xb8");
  EXPECT_EQ(escape_invalid_utf8("a\\b"), "a\\b");
}

TEST(NaturalOrder, NumbersByValueTheRestByByte) {
  std::vector<std::string> names = {
      "rank_10", "rank_2", "rank_1", "iteration_100",         "iteration_9", "a02", "a2", "a1b",
      "a1",      "b",      "",       "x18446744073709551616", "x99"};
  std::sort(names.begin(), names.end(), natural_less);
  EXPECT_EQ(names, (std::vector<std::string>{"", "a1", "a1b", "a02", "a2", "b", "iteration_9",
                                             "iteration_100", "rank_1", "rank_2", "rank_10", "x99",
                                             "x18446744073709551616"}));
  EXPECT_EQ(natural_compare("Add.op9.0", "Add.op10.0"), -1);
  EXPECT_EQ(natural_compare("x", "x"), 0);
  EXPECT_EQ(natural_compare("007", "7"), -1);  // equal values: byte order decides
  EXPECT_EQ(natural_compare("7", "007"), 1);
}

}  // namespace
}  // namespace msdt
