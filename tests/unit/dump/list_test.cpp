// Pure logic of the dump-parse listing: id lists, dtype lists, filters, number and shape
// formatting, TSV/CSV/JSON escaping, the text aligner and the sinks.
#include "dump/list.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace msdt::dump {
namespace {

TEST(ParseIdList, NumbersAndInclusiveRanges) {
  auto list = parse_id_list("0,3,5-8");
  ASSERT_TRUE(list) << list.error().message;
  for (uint64_t id : {0, 3, 5, 6, 7, 8}) EXPECT_TRUE(list->contains(id)) << id;
  for (uint64_t id : {1, 2, 4, 9, 100}) EXPECT_FALSE(list->contains(id)) << id;
  ASSERT_EQ(list->ranges().size(), 3u);
  EXPECT_EQ(list->ranges()[2], (std::pair<uint64_t, uint64_t>{5, 8}));
}

TEST(ParseIdList, SpacesSingleRangeAndLargestValue) {
  auto list = parse_id_list(" 2 - 2 , 18446744073709551615");
  ASSERT_TRUE(list) << list.error().message;
  EXPECT_TRUE(list->contains(2));
  EXPECT_FALSE(list->contains(3));
  EXPECT_TRUE(list->contains(std::numeric_limits<uint64_t>::max()));
}

TEST(ParseIdList, Errors) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (auto [text, message] : std::initializer_list<Case>{
           {"", "empty item in list ''"},
           {"1,,2", "empty item in list '1,,2'"},
           {"1,", "empty item in list '1,'"},
           {"a", "'a': expected a non-negative integer or a range like 5-8"},
           {"+1", "'+1': expected a non-negative integer or a range like 5-8"},
           {"18446744073709551616",
            "'18446744073709551616': expected a non-negative integer or a range like 5-8"},
           {"5-3", "'5-3': range end 3 is before its start 5"},
           {"-3", "'-3': expected a range of two non-negative integers like 5-8"},
           {"3-", "'3-': expected a range of two non-negative integers like 5-8"},
           {"1-2-3", "'1-2-3': expected a range of two non-negative integers like 5-8"},
       }) {
    auto list = parse_id_list(text);
    ASSERT_FALSE(list) << text;
    EXPECT_EQ(list.error().message, message) << text;
  }
}

TEST(ParseDtypeList, AnySpellingBecomesOneDtype) {
  auto dtypes = parse_dtype_list("float32,BF16,kNumberTypeInt32,FLOAT16");
  ASSERT_TRUE(dtypes) << dtypes.error().message;
  EXPECT_EQ(*dtypes,
            (std::vector<DType>{DType::Float32, DType::BFloat16, DType::Int32, DType::Float16}));
  auto bad = parse_dtype_list("float32,floaty");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "'floaty': unknown dtype");
}

TensorRow sample_row() {
  TensorRow row;
  row.file = "d/rank_0/Net/0/3/Add.Default_Add-op1.0.0.1.output.0.DefaultFormat.npy";
  row.format = "npy";
  row.rank = 0;
  row.net = "Net";
  row.graph = 0;
  row.iteration = 3;
  row.op_type = "Add";
  row.op_name = "Default_Add-op1";
  row.task_id = 0;
  row.stream_id = 0;
  row.timestamp = 1;
  row.io = "output";
  row.slot = 0;
  row.device_format = "DefaultFormat";
  row.dtype = DType::Float32;
  row.shape = std::vector<uint64_t>{2, 3};
  row.bytes = 24;
  return row;
}

RowFilter filter_for(const ListOptions& options) {
  auto filter = RowFilter::create(options);
  EXPECT_TRUE(filter) << filter.error().message;
  return std::move(*filter);
}

TEST(RowFilter, EmptyOptionsAcceptEverything) {
  TensorRow bare;
  EXPECT_TRUE(filter_for({}).accepts(bare));
  EXPECT_TRUE(filter_for({}).accepts(sample_row()));
}

TEST(RowFilter, EachFilter) {
  TensorRow row = sample_row();
  ListOptions o;
  o.op = "Add-op[0-9]$";
  EXPECT_TRUE(filter_for(o).accepts(row));
  o.op = "^Add";  // searched in op_name, not op_type
  EXPECT_FALSE(filter_for(o).accepts(row));

  o = {};
  o.iterations = "0-2,4";
  EXPECT_FALSE(filter_for(o).accepts(row));
  o.iterations = "1,3";
  EXPECT_TRUE(filter_for(o).accepts(row));

  o = {};
  o.ranks = "1";
  EXPECT_FALSE(filter_for(o).accepts(row));
  o.ranks = "0";
  EXPECT_TRUE(filter_for(o).accepts(row));

  o = {};
  o.graphs = "1-5";
  EXPECT_FALSE(filter_for(o).accepts(row));
  o.graphs = "0";
  EXPECT_TRUE(filter_for(o).accepts(row));

  o = {};
  o.io = "input";
  EXPECT_FALSE(filter_for(o).accepts(row));
  o.io = "output";
  EXPECT_TRUE(filter_for(o).accepts(row));

  o = {};
  o.dtypes = "float16,BF16";
  EXPECT_FALSE(filter_for(o).accepts(row));
  o.dtypes = "FLOAT";  // CANN spelling of float32
  EXPECT_TRUE(filter_for(o).accepts(row));
}

TEST(RowFilter, AbsentFieldNeverMatchesAFilterOnIt) {
  TensorRow bare;
  for (auto set :
       {+[](ListOptions& o) { o.iterations = "0-100"; }, +[](ListOptions& o) { o.ranks = "0"; },
        +[](ListOptions& o) { o.graphs = "0"; }, +[](ListOptions& o) { o.io = "input"; },
        +[](ListOptions& o) { o.dtypes = "float32"; }}) {
    ListOptions o;
    set(o);
    EXPECT_FALSE(filter_for(o).accepts(bare));
  }
  ListOptions o;
  o.op = "^$";  // empty op_name matches an empty-matching regex
  EXPECT_TRUE(filter_for(o).accepts(bare));
}

TEST(RowFilter, LocationOnly) {
  ListOptions o;
  o.ranks = "1";
  o.iterations = "2-4";
  RowFilter f = filter_for(o);
  DumpLocation where;
  EXPECT_FALSE(f.accepts_location(where));
  where.rank = 1;
  where.iteration = 4;
  EXPECT_TRUE(f.accepts_location(where));
  where.iteration = 5;
  EXPECT_FALSE(f.accepts_location(where));
}

TEST(RowFilter, BadOptionValues) {
  struct Case {
    void (*set)(ListOptions&);
    const char* prefix;
  };
  for (auto [set, prefix] : std::initializer_list<Case>{
           {+[](ListOptions& o) { o.op = "(unclosed"; }, "--op: '(unclosed': invalid regular"},
           {+[](ListOptions& o) { o.iterations = "x"; }, "--iteration: 'x': expected"},
           {+[](ListOptions& o) { o.ranks = "3-1"; }, "--rank: '3-1': range end 1"},
           {+[](ListOptions& o) { o.graphs = ","; }, "--graph: empty item"},
           {+[](ListOptions& o) { o.io = "inputs"; }, "--io: 'inputs': expected input or output"},
           {+[](ListOptions& o) { o.dtypes = "f32"; }, "--dtype: 'f32': unknown dtype"},
       }) {
    ListOptions o;
    set(o);
    auto filter = RowFilter::create(o);
    ASSERT_FALSE(filter) << prefix;
    EXPECT_EQ(filter.error().message.rfind(prefix, 0), 0u) << filter.error().message;
  }
}

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

TEST(FormatDouble, JsonSpellsNonFiniteAsStrings) {
  EXPECT_EQ(json_double(2.5), "2.5");
  EXPECT_EQ(json_double(4.0), "4.0");
  EXPECT_EQ(json_double(std::nan("")), "\"nan\"");
  EXPECT_EQ(json_double(-INFINITY), "\"-inf\"");
}

TEST(FormatShape, DimsScalarAndEmpty) {
  EXPECT_EQ(format_shape(std::vector<uint64_t>{2, 3}), "2x3");
  EXPECT_EQ(format_shape(std::vector<uint64_t>{}), "scalar");
  EXPECT_EQ(format_shape(std::vector<uint64_t>{0}), "0");
  EXPECT_EQ(format_shape(std::vector<uint64_t>{4, 0, 1}), "4x0x1");
}

TEST(Escaping, Tsv) {
  EXPECT_EQ(escape_tsv("plain name.with-dots"), "plain name.with-dots");
  EXPECT_EQ(escape_tsv("a\tb\nc\rd\\e"), "a\\tb\\nc\\rd\\\\e");
  EXPECT_EQ(escape_tsv(""), "");
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
  // Bytes that are not UTF-8 (stray, truncated, overlong, surrogate) are spelled \xNN.
  EXPECT_EQ(json_string("a\xff"), "\"a\\\\xff\"");
  EXPECT_EQ(json_string("\xc3"), "\"\\\\xc3\"");
  EXPECT_EQ(json_string("\xc0\xaf"), "\"\\\\xc0\\\\xaf\"");
  EXPECT_EQ(json_string("\xed\xa0\x80"), "\"\\\\xed\\\\xa0\\\\x80\"");
  // Whatever the bytes, the result parses as JSON.
  for (std::string_view text : {"a\xff", "\xe2\x82", "\xf4\x90\x80\x80", "ok"})
    EXPECT_TRUE(nlohmann::json::accept(json_string(text))) << text;
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

TEST(Columns, TitlesAndCells) {
  EXPECT_EQ(
      column_titles(false),
      (std::vector<std::string>{"rank", "net", "graph", "iteration", "op_type", "op_name", "io",
                                "slot", "dtype", "shape", "device_format", "bytes", "file"}));
  auto with_stats = column_titles(true);
  ASSERT_EQ(with_stats.size(), 27u);
  EXPECT_EQ(with_stats[12], "stats_source");
  EXPECT_EQ(with_stats[25], "positive");
  EXPECT_EQ(with_stats.back(), "file");

  TensorRow bare;
  bare.file = "f";
  auto cells = row_cells(bare, false);
  ASSERT_EQ(cells.size(), 13u);
  for (size_t i = 0; i + 1 < cells.size(); ++i) EXPECT_FALSE(cells[i]) << i;
  EXPECT_EQ(cells.back(), "f");
}

TEST(JsonLine, AllKeysInOrderAbsentAsNull) {
  TensorRow bare;
  bare.file = "x";
  bare.format = "bin";
  EXPECT_EQ(json_line(bare, false),
            "{\"file\": \"x\", \"format\": \"bin\", \"rank\": null, \"net\": null, \"graph\": "
            "null, \"iteration\": null, \"op_type\": null, \"op_name\": null, \"task_id\": null, "
            "\"stream_id\": null, \"timestamp\": null, \"io\": null, \"slot\": null, "
            "\"device_format\": null, \"dtype\": null, \"shape\": null, \"bytes\": null}");
}

TEST(JsonLine, StatsKeysAndNumbers) {
  TensorRow row = sample_row();
  row.shape = std::vector<uint64_t>{};
  TensorStats stats;
  stats.count = 6;
  stats.min = -1.0;
  stats.max = std::numeric_limits<double>::infinity();
  stats.mean = 0.5;
  stats.pos_inf = 1;
  stats.negative = 1;
  stats.positive = 4;
  stats.zero = 1;
  row.stats = stats_from_tensor(stats);
  auto parsed = nlohmann::ordered_json::parse(json_line(row, true));
  EXPECT_EQ(parsed["shape"], nlohmann::ordered_json::array());
  EXPECT_EQ(parsed["stats_source"], "computed");
  EXPECT_EQ(parsed["count"], 6);
  EXPECT_EQ(parsed["min"], -1.0);
  EXPECT_EQ(parsed["max"], "inf");
  EXPECT_TRUE(parsed["std"].is_null());
  EXPECT_EQ(parsed["pos_inf"], 1);
  std::vector<std::string> keys;
  for (auto it = parsed.begin(); it != parsed.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(
      keys,
      (std::vector<std::string>{
          "file",    "format",   "rank",      "net",          "graph", "iteration", "op_type",
          "op_name", "task_id",  "stream_id", "timestamp",    "io",    "slot",      "device_format",
          "dtype",   "shape",    "bytes",     "stats_source", "count", "min",       "max",
          "mean",    "std",      "abs_mean",  "l2norm",       "nan",   "pos_inf",   "neg_inf",
          "zero",    "negative", "positive"}));
  EXPECT_NE(json_line(row, true).find("\"min\": -1.0, \"max\": \"inf\", \"mean\": 0.5"),
            std::string::npos);
}

TEST(StatsFromStatisticRow, MapsColumnsAndLeavesTheRestAbsent) {
  StatisticRow csv;
  csv.max = 2.5;
  csv.min = -1.0;
  csv.avg = 0.25;
  csv.l2norm = 3.0;
  csv.count = 4;
  csv.negative_zero_count = 1;
  csv.positive_zero_count = 2;
  csv.zero_count = 1;
  csv.nan_count = 0;
  RowStats s = stats_from_statistic_row(csv);
  EXPECT_EQ(s.source, "statistic.csv");
  EXPECT_EQ(s.max, 2.5);
  EXPECT_EQ(s.min, -1.0);
  EXPECT_EQ(s.mean, 0.25);
  EXPECT_EQ(s.l2norm, 3.0);
  EXPECT_EQ(s.count, 4u);
  EXPECT_EQ(s.negative, 1u);
  EXPECT_EQ(s.positive, 2u);
  EXPECT_EQ(s.zero, 1u);
  EXPECT_EQ(s.nan, 0u);
  EXPECT_FALSE(s.std);
  EXPECT_FALSE(s.abs_mean);
  EXPECT_FALSE(s.pos_inf);
  EXPECT_FALSE(s.neg_inf);
}

std::string sink_output(const ListOptions& options, const std::vector<TensorRow>& rows) {
  std::ostringstream out;
  auto sink = make_row_sink(options, out);
  for (const auto& row : rows) sink->row(row);
  sink->finish();
  return out.str();
}

TEST(Sinks, Tsv) {
  TensorRow row = sample_row();
  row.op_name = "odd\tname";
  ListOptions o;
  EXPECT_EQ(sink_output(o, {row}),
            "rank\tnet\tgraph\titeration\top_type\top_name\tio\tslot\tdtype\tshape\tdevice_format"
            "\tbytes\tfile\n"
            "0\tNet\t0\t3\tAdd\todd\\tname\toutput\t0\tfloat32\t2x3\tDefaultFormat\t24\t" +
                row.file + "\n");
  o.header = false;
  TensorRow bare;
  bare.file = "f";
  EXPECT_EQ(sink_output(o, {bare}), "-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\tf\n");
}

TEST(Sinks, Csv) {
  TensorRow row = sample_row();
  row.file = "a,b.npy";
  row.net.clear();
  ListOptions o;
  o.style = OutputStyle::Csv;
  EXPECT_EQ(sink_output(o, {row}),
            "rank,net,graph,iteration,op_type,op_name,io,slot,dtype,shape,device_format,bytes,"
            "file\n"
            "0,,0,3,Add,Default_Add-op1,output,0,float32,2x3,DefaultFormat,24,\"a,b.npy\"\n");
}

TEST(Sinks, TextAlignsAndHeaderOnlyWithRows) {
  ListOptions o;
  o.style = OutputStyle::Text;
  EXPECT_EQ(sink_output(o, {}), "");
  TensorRow row = sample_row();
  row.file = "f";
  TensorRow other;
  other.file = "g";
  other.op_name = "longer_op_name";
  EXPECT_EQ(sink_output(o, {row, other}),
            "rank  net  graph  iteration  op_type  op_name          io      slot  dtype    shape  "
            "device_format  bytes  file\n"
            "0     Net  0      3          Add      Default_Add-op1  output  0     float32  2x3    "
            "DefaultFormat  24     f\n"
            "-     -    -      -          -        longer_op_name   -       -     -        -      "
            "-              -      g\n");
}

TEST(Sinks, JsonLines) {
  ListOptions o;
  o.style = OutputStyle::Json;
  o.header = true;  // no header in JSON whatever the option says
  TensorRow row = sample_row();
  std::string out = sink_output(o, {row, row});
  EXPECT_EQ(out, json_line(row, false) + "\n" + json_line(row, false) + "\n");
}

TEST(JsonText, NumbersStringsAndIndent) {
  nlohmann::ordered_json doc = {{"b", 2.0},
                                {"a", {1, 2}},
                                {"s", "x\xff"},
                                {"o", {{"k", nullptr}, {"t", true}}},
                                {"e", nlohmann::ordered_json::array()}};
  EXPECT_EQ(to_json_text(doc, -1),
            "{\"b\": 2.0, \"a\": [1, 2], \"s\": \"x\\\\xff\", \"o\": {\"k\": null, \"t\": true}, "
            "\"e\": []}");
  EXPECT_EQ(to_json_text(doc, 2),
            "{\n  \"b\": 2.0,\n  \"a\": [1, 2],\n  \"s\": \"x\\\\xff\",\n  \"o\": {\n    \"k\": "
            "null,\n    \"t\": true\n  },\n  \"e\": []\n}");
  EXPECT_EQ(to_indented_text(doc, 0),
            "b: 2.0\na: [1, 2]\ns: x\\xff\no:\n  k: -\n  t: true\ne: []\n");
  nlohmann::ordered_json list = {{{"x", 1}}, {{"x", -2}}};
  EXPECT_EQ(to_indented_text(list, 2), "  [0]:\n    x: 1\n  [1]:\n    x: -2\n");
}

TEST(FileKinds, TensorAndSideFiles) {
  EXPECT_TRUE(kind_holds_tensors(FileKind::Npy));
  EXPECT_TRUE(kind_holds_tensors(FileKind::LegacyBin));
  EXPECT_TRUE(kind_holds_tensors(FileKind::Overflow));
  EXPECT_FALSE(kind_holds_tensors(FileKind::StatisticCsv));
  EXPECT_FALSE(kind_holds_tensors(FileKind::Unknown));
  EXPECT_TRUE(kind_is_side_file(FileKind::MappingCsv));
  EXPECT_TRUE(kind_is_side_file(FileKind::GlobalExecutionOrder));
  EXPECT_FALSE(kind_is_side_file(FileKind::StatisticCsv));
  EXPECT_FALSE(kind_is_side_file(FileKind::Unknown));
}

}  // namespace
}  // namespace msdt::dump
