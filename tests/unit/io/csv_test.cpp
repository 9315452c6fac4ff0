// RFC 4180 reading with line numbers (io/csv.h).
#include "io/csv.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace msdt {
namespace {

using ::testing::ElementsAre;
using Rows = std::vector<std::vector<std::string>>;

struct ReadResult {
  Rows rows;
  std::vector<uint64_t> lines;
  std::optional<Error> error;
};

ReadResult read_all(std::string_view text) {
  ReadResult result;
  CsvReader reader(text);
  for (int guard = 0; guard < 1000; ++guard) {
    auto row = reader.next_row();
    if (!row) {
      result.error = row.error();
      return result;
    }
    if (!*row) return result;
    result.rows.push_back(**row);
    result.lines.push_back(reader.line());
  }
  ADD_FAILURE() << "reader did not stop";
  return result;
}

TEST(Csv, EmptyInputHasNoRows) {
  auto r = read_all("");
  EXPECT_FALSE(r.error);
  EXPECT_TRUE(r.rows.empty());
  r = read_all("\n\r\n");
  EXPECT_FALSE(r.error);
  EXPECT_TRUE(r.rows.empty());
}

TEST(Csv, PlainRowsWithLfAndCrlf) {
  auto r = read_all("a,b,c\r\n1,2,3\n4,5,6");
  ASSERT_FALSE(r.error);
  EXPECT_EQ(r.rows, (Rows{{"a", "b", "c"}, {"1", "2", "3"}, {"4", "5", "6"}}));
  EXPECT_THAT(r.lines, ElementsAre(1u, 2u, 3u));
}

TEST(Csv, TrailingCommaGivesEmptyLastField) {
  auto r = read_all("a,b,\nc,\n");
  ASSERT_FALSE(r.error);
  EXPECT_EQ(r.rows, (Rows{{"a", "b", ""}, {"c", ""}}));
  r = read_all("x,");
  ASSERT_FALSE(r.error);
  EXPECT_EQ(r.rows, (Rows{{"x", ""}}));
  r = read_all("\"x\",");
  ASSERT_FALSE(r.error);
  EXPECT_EQ(r.rows, (Rows{{"x", ""}}));
}

TEST(Csv, BlankLineInTheMiddleIsOneEmptyField) {
  auto r = read_all("a\n\nb\n\n\n");
  ASSERT_FALSE(r.error);
  EXPECT_EQ(r.rows, (Rows{{"a"}, {""}, {"b"}}));
  EXPECT_THAT(r.lines, ElementsAre(1u, 2u, 3u));
}

TEST(Csv, QuotedFieldsWithCommasNewlinesAndDoubledQuotes) {
  auto r = read_all("\"(2,3)\",\"say \"\"hi\"\"\",\"two\nlines\"\r\nnext,\"\"\n");
  ASSERT_FALSE(r.error);
  EXPECT_EQ(r.rows, (Rows{{"(2,3)", "say \"hi\"", "two\nlines"}, {"next", ""}}));
  // A row starts at its first line; the quoted newline moves the next row to line 3.
  EXPECT_THAT(r.lines, ElementsAre(1u, 3u));
}

TEST(Csv, QuotedCrlfIsKept) {
  auto r = read_all("\"a\r\nb\",c\r\nd");
  ASSERT_FALSE(r.error);
  EXPECT_EQ(r.rows, (Rows{{"a\r\nb", "c"}, {"d"}}));
  EXPECT_THAT(r.lines, ElementsAre(1u, 3u));
}

TEST(Csv, StrayQuoteAndLoneCrInUnquotedFieldAreData) {
  auto r = read_all("ab\"c,d\re\n");
  ASSERT_FALSE(r.error);
  EXPECT_EQ(r.rows, (Rows{{"ab\"c", "d\re"}}));
}

TEST(Csv, UnterminatedQuoteReportsTheLineWhereItStarted) {
  auto r = read_all("a,b\nc,\"open\nstill\nopen");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.rows, (Rows{{"a", "b"}}));
  EXPECT_EQ(r.error->line, 2u);
  EXPECT_EQ(
      r.error->describe(),
      "line 2: unterminated quoted field: expected a closing '\"' before the end of the file");
}

TEST(Csv, TextAfterClosingQuoteIsAnError) {
  auto r = read_all("x\n\"a\"b,c\n");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->describe(),
            "line 2: expected ',' or the end of the line after a quoted field, found 'b'");
  r = read_all("\"a\"\r");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->describe(),
            "line 1: expected ',' or the end of the line after a quoted field, found byte 0x0d");
  r = read_all("\"a\"\xff");
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->describe(),
            "line 1: expected ',' or the end of the line after a quoted field, found byte 0xff");
}

TEST(Csv, NulBytesAreData) {
  std::string text("a\0b,c\n", 6);
  auto r = read_all(text);
  ASSERT_FALSE(r.error);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0][0], std::string("a\0b", 3));
}

TEST(Csv, AfterTheEndStaysAtTheEnd) {
  CsvReader reader("a\n");
  ASSERT_TRUE(reader.next_row().has_value());
  for (int i = 0; i < 2; ++i) {
    auto row = reader.next_row();
    ASSERT_TRUE(row.has_value());
    EXPECT_FALSE(*row);
  }
  EXPECT_EQ(reader.line(), 1u);
}

}  // namespace
}  // namespace msdt
