// The shared row sinks: one record of typed cells spelled by each format, table columns chosen and
// ordered apart from the JSON keys, and the one rule that picks the format.
#include "table/sink.h"

#include <gtest/gtest.h>

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
