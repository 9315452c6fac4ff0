// Pure logic of the dump-parse listing: its rows as records (fields, table columns, cells) through
// the shared sinks, and the file roles the walk relies on.
#include "dump/list.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dump/file_roles.h"

namespace msdt::dump {
namespace {

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
  row.dtype_label = "bfloat16";  // 2.4+: bfloat16 stored as float32
  row.shape = std::vector<uint64_t>{2, 3};
  row.bytes = 24;
  return row;
}

std::vector<std::string> column_titles(bool stats) { return row_schema(stats).column_titles(); }

std::string json_line(const TensorRow& row, bool stats) {
  return table::json_object(row_schema(stats), row_record(row, stats));
}

TEST(FormatShape, DimsScalarAndEmpty) {
  EXPECT_EQ(format_shape(std::vector<uint64_t>{2, 3}), "2x3");
  EXPECT_EQ(format_shape(std::vector<uint64_t>{}), "scalar");
  EXPECT_EQ(format_shape(std::vector<uint64_t>{0}), "0");
  EXPECT_EQ(format_shape(std::vector<uint64_t>{4, 0, 1}), "4x0x1");
}

TEST(Columns, TitlesAndCells) {
  EXPECT_EQ(column_titles(false),
            (std::vector<std::string>{"rank", "net", "graph", "iteration", "op_type", "op_name",
                                      "io", "slot", "dtype", "dtype_label", "shape",
                                      "device_format", "bytes", "file"}));
  auto with_stats = column_titles(true);
  ASSERT_EQ(with_stats.size(), 28u);
  EXPECT_EQ(with_stats[13], "stats_source");
  EXPECT_EQ(with_stats[26], "positive");
  EXPECT_EQ(with_stats.back(), "file");

  TensorRow bare;
  bare.file = "f";
  table::Schema schema = row_schema(false);
  table::Record cells = row_record(bare, false);
  ASSERT_EQ(cells.size(), schema.fields().size());
  ASSERT_EQ(schema.columns().size(), 14u);
  for (size_t i = 0; i + 1 < schema.columns().size(); ++i)
    EXPECT_TRUE(std::holds_alternative<std::monostate>(cells[schema.columns()[i]])) << i;
  EXPECT_EQ(std::get<std::string>(cells[schema.columns().back()]), "f");
}

TEST(JsonLine, AllKeysInOrderAbsentAsNull) {
  TensorRow bare;
  bare.file = "x";
  bare.format = "bin";
  EXPECT_EQ(json_line(bare, false),
            "{\"file\": \"x\", \"format\": \"bin\", \"rank\": null, \"net\": null, \"graph\": "
            "null, \"iteration\": null, \"op_type\": null, \"op_name\": null, \"task_id\": null, "
            "\"stream_id\": null, \"timestamp\": null, \"io\": null, \"slot\": null, "
            "\"device_format\": null, \"dtype\": null, \"dtype_label\": null, \"shape\": null, "
            "\"bytes\": null}");
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
  std::string line = json_line(row, true);
  // nlohmann::json refuses 1e999 (it overflows a double); Python and jq read it as infinity.
  size_t inf = line.find("1e999");
  ASSERT_NE(inf, std::string::npos);
  auto parsed = nlohmann::ordered_json::parse(line.replace(inf, 5, "1e308"));
  EXPECT_EQ(parsed["shape"], nlohmann::ordered_json::array());
  EXPECT_EQ(parsed["stats_source"], "computed");
  EXPECT_EQ(parsed["count"], 6);
  EXPECT_EQ(parsed["min"], -1.0);
  EXPECT_EQ(parsed["max"], 1e308);
  EXPECT_TRUE(parsed["std"].is_null());
  EXPECT_EQ(parsed["pos_inf"], 1);
  std::vector<std::string> keys;
  for (auto it = parsed.begin(); it != parsed.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys,
            (std::vector<std::string>{
                "file",         "format",        "rank",    "net",         "graph",     "iteration",
                "op_type",      "op_name",       "task_id", "stream_id",   "timestamp", "io",
                "slot",         "device_format", "dtype",   "dtype_label", "shape",     "bytes",
                "stats_source", "count",         "min",     "max",         "mean",      "std",
                "abs_mean",     "l2norm",        "nan",     "pos_inf",     "neg_inf",   "zero",
                "negative",     "positive"}));
  EXPECT_NE(json_line(row, true).find("\"min\": -1.0, \"max\": 1e999, \"mean\": 0.5"),
            std::string::npos);
}

TEST(JsonLine, IntegerExtremesPrintExactly) {
  TensorRow row = sample_row();
  TensorStats stats;
  stats.count = 2;
  stats.min = -9.223372036854775808e18;
  stats.max = 9.223372036854775808e18;  // int64 max rounded to double is 2^63, outside int64
  stats.exact_min = ExactInteger{std::numeric_limits<int64_t>::min()};
  stats.exact_max = ExactInteger{std::numeric_limits<int64_t>::max()};
  row.stats = stats_from_tensor(stats);
  std::string line = json_line(row, true);
  EXPECT_NE(line.find("\"min\": -9223372036854775808, \"max\": 9223372036854775807,"),
            std::string::npos)
      << line;
  stats.exact_min = ExactInteger{uint64_t{9007199254740993}};  // 2^53 + 1
  stats.exact_max = ExactInteger{std::numeric_limits<uint64_t>::max()};
  row.stats = stats_from_tensor(stats);
  std::ostringstream out;
  table::Schema schema = row_schema(true);
  auto sink = table::make_sink(table::Format::Tsv, schema, false, out);
  sink->row(row_record(row, true));
  EXPECT_NE(out.str().find("\t9007199254740993\t18446744073709551615\t"), std::string::npos)
      << out.str();
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
  table::Schema schema = row_schema(options.stats);
  auto sink = table::make_sink(options.format, schema, options.header, out);
  for (const auto& row : rows) sink->row(row_record(row, options.stats));
  sink->finish();
  return out.str();
}

TEST(Sinks, Tsv) {
  TensorRow row = sample_row();
  row.op_name = "odd\tname";
  ListOptions o;
  EXPECT_EQ(
      sink_output(o, {row}),
      "rank\tnet\tgraph\titeration\top_type\top_name\tio\tslot\tdtype\tdtype_label\tshape"
      "\tdevice_format\tbytes\tfile\n"
      "0\tNet\t0\t3\tAdd\todd\\tname\toutput\t0\tfloat32\tbfloat16\t2x3\tDefaultFormat\t24\t" +
          row.file + "\n");
  o.header = false;
  TensorRow bare;
  bare.file = "f";
  EXPECT_EQ(sink_output(o, {bare}), "\t\t\t\t\t\t\t\t\t\t\t\t\tf\n");
}

TEST(Sinks, Csv) {
  TensorRow row = sample_row();
  row.file = "a,b.npy";
  row.net.clear();
  ListOptions o;
  o.format = table::Format::Csv;
  EXPECT_EQ(
      sink_output(o, {row}),
      "rank,net,graph,iteration,op_type,op_name,io,slot,dtype,dtype_label,shape,device_format,"
      "bytes,file\n"
      "0,,0,3,Add,Default_Add-op1,output,0,float32,bfloat16,2x3,DefaultFormat,24,"
      "\"a,b.npy\"\n");
}

TEST(Sinks, TextAlignsAndHeaderOnlyWithRows) {
  ListOptions o;
  o.format = table::Format::Text;
  EXPECT_EQ(sink_output(o, {}), "");
  TensorRow row = sample_row();
  row.file = "f";
  TensorRow other;
  other.file = "g";
  other.op_name = "longer_op_name";
  EXPECT_EQ(sink_output(o, {row, other}),
            "rank  net  graph  iteration  op_type  op_name          io      slot  dtype    "
            "dtype_label  shape  device_format  bytes  file\n"
            "0     Net  0      3          Add      Default_Add-op1  output  0     float32  "
            "bfloat16     2x3    DefaultFormat  24     f\n"
            "-     -    -      -          -        longer_op_name   -       -     -        "
            "-            -      -              -      g\n");
}

TEST(Sinks, JsonLines) {
  ListOptions o;
  o.format = table::Format::Json;
  o.header = true;  // no header in JSON whatever the option says
  TensorRow row = sample_row();
  std::string out = sink_output(o, {row, row});
  EXPECT_EQ(out, json_line(row, false) + "\n" + json_line(row, false) + "\n");
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
