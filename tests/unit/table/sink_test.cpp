// The shared row sinks: one record of typed cells spelled by each format, table columns chosen and
// ordered apart from the JSON keys, and the one rule that picks the format.
#include "table/sink.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <sstream>

namespace msdt::table {
namespace {

// JSON order: name, n, big, ratio, ok, dims, note; table columns: n, dims, ratio, note, name.
const Schema& schema() {
  static const Schema s({"name", "n", "big", "ratio", "ok", "dims", "note"},
                        {"n", "dims", "ratio", "note", "name"});
  return s;
}

Record record() {
  return {std::string("a b"),
          int64_t{-3},
          std::numeric_limits<uint64_t>::max(),
          0.5,
          true,
          Composite{"2x3", nlohmann::ordered_json::array({2, 3})},
          Cell{}};
}

std::string output(Format format, const std::vector<Record>& records, bool header = true) {
  std::ostringstream out;
  auto sink = make_sink(format, schema(), header, out);
  for (const Record& r : records) sink->row(r);
  sink->finish();
  return out.str();
}

TEST(Schema, ColumnsDefaultToEveryField) {
  Schema s({"a", "b"});
  EXPECT_EQ(s.column_titles(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(schema().column_titles(),
            (std::vector<std::string>{"n", "dims", "ratio", "note", "name"}));
  EXPECT_THROW(Schema({"a"}, {"b"}), std::invalid_argument);
}

TEST(Sinks, EachFormatSpellsEachCellType) {
  EXPECT_EQ(output(Format::Tsv, {record()}),
            "n\tdims\tratio\tnote\tname\n"
            "-3\t2x3\t0.5\t\ta b\n");  // absent: empty in TSV and CSV, - in text
  EXPECT_EQ(output(Format::Csv, {record()}, false), "-3,2x3,0.5,,a b\n");
  EXPECT_EQ(output(Format::Text, {record()}),
            "n   dims  ratio  note  name\n"
            "-3  2x3   0.5    -     a b\n");
  EXPECT_EQ(output(Format::Json, {record()}),
            "{\"name\": \"a b\", \"n\": -3, \"big\": 18446744073709551615, \"ratio\": 0.5, "
            "\"ok\": true, \"dims\": [2, 3], \"note\": null}\n");
}

TEST(Sinks, TextEscapesControlCharacters) {
  Record r = record();
  r[0] = std::string("a\x1b[2Jb\xc2\x9b\\\xff");  // ESC, C1 CSI, backslash, invalid byte
  EXPECT_EQ(output(Format::Text, {r}, false), "-3  2x3  0.5  -  a\\x1b[2Jb\\xc2\\x9b\\\\\\xff\n");
}

// A long listing is aligned in blocks written as they fill (it appears as it goes, in bounded
// memory); a column widened by a block stays wide in the blocks after it.
TEST(Sinks, TextIsAlignedInBlocksThatOnlyWiden) {
  std::ostringstream out;
  auto sink = make_sink(Format::Text, schema(), true, out);
  Record narrow = record(), wide = record();
  wide[1] = int64_t{-123456789};
  for (int i = 0; i < 2500; ++i) sink->row(i == 2200 ? wide : narrow);
  const std::string early = out.str();  // the first block, before the listing is finished
  for (int i = 0; i < 2500; ++i) sink->row(narrow);
  sink->finish();
  std::istringstream text(out.str());
  std::vector<std::string> lines;
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5001u);
  EXPECT_EQ(early.substr(0, early.find('\n')), "n   dims  ratio  note  name");
  EXPECT_EQ(std::count(early.begin(), early.end(), '\n'), 2000);  // the header and 1999 rows
  EXPECT_EQ(lines[1], "-3  2x3   0.5    -     a b");
  EXPECT_EQ(lines[2001], "-3          2x3   0.5    -     a b");  // the second block: wider
  EXPECT_EQ(lines[2201], "-123456789  2x3   0.5    -     a b");
  EXPECT_EQ(lines[5000], "-3          2x3   0.5    -     a b");  // and after it
}

TEST(Sinks, TextPrintsNothingWithoutRows) {
  EXPECT_EQ(output(Format::Text, {}), "");
  EXPECT_EQ(output(Format::Tsv, {}), "n\tdims\tratio\tnote\tname\n");
  EXPECT_EQ(output(Format::Json, {}), "");
}

TEST(ChooseFormat, JsonThenCsvThenTerminal) {
  EXPECT_EQ(choose_format(true, true, true), Format::Json);
  EXPECT_EQ(choose_format(true, false, true), Format::Csv);
  EXPECT_EQ(choose_format(false, false, true), Format::Text);
  EXPECT_EQ(choose_format(false, false, false), Format::Tsv);
}

}  // namespace
}  // namespace msdt::table
