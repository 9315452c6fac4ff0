// statistic.csv, mapping.csv and the execution-order files (dump spec §6.1, §6.2, §3.8).
#include "dump/side_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

namespace msdt::dump {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr std::string_view kHeader22 =
    "Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape,Max Value,Min "
    "Value,Avg Value,Count,Negative Zero Count,Positive Zero Count,NaN Count,Negative Inf "
    "Count,Positive Inf Count,Zero Count\n";

TEST(StatisticCsv, Version22FixedHeader) {
  std::string text(kHeader22);
  text +=
      "Conv2D,Conv2D-op1,0,0,1650000000000000,input,0,24,float32,\"(2,3)\",5,-1.5,0.25,6,1,2,0,"
      "0,1,3,\r\n";
  auto csv = parse_statistic_csv(text);
  ASSERT_TRUE(csv) << csv.error().describe();
  ASSERT_EQ(csv->header.size(), 20u);
  EXPECT_EQ(csv->header[16], "NaN Count");
  ASSERT_EQ(csv->rows.size(), 1u);
  const auto& r = csv->rows[0];
  EXPECT_EQ(r.line, 2u);
  EXPECT_EQ(r.op_type, "Conv2D");
  EXPECT_EQ(r.op_name, "Conv2D-op1");
  EXPECT_EQ(r.task_id, 0u);
  EXPECT_EQ(r.stream_id, 0u);
  EXPECT_EQ(r.timestamp, 1650000000000000u);
  EXPECT_EQ(r.io, Io::Input);
  EXPECT_EQ(r.slot, 0u);
  EXPECT_EQ(r.data_size, 24u);
  EXPECT_EQ(r.data_type, "float32");
  EXPECT_EQ(r.dtype, DType::Float32);
  EXPECT_THAT(r.shape, ElementsAre(2u, 3u));
  EXPECT_EQ(r.max, 5.0);
  EXPECT_EQ(r.min, -1.5);
  EXPECT_EQ(r.avg, 0.25);
  EXPECT_FALSE(r.l2norm);
  EXPECT_EQ(r.count, 6u);
  EXPECT_EQ(r.negative_zero_count, 1u);
  EXPECT_EQ(r.positive_zero_count, 2u);
  EXPECT_EQ(r.nan_count, 0u);
  EXPECT_EQ(r.negative_inf_count, 0u);
  EXPECT_EQ(r.positive_inf_count, 1u);
  EXPECT_EQ(r.zero_count, 3u);
  EXPECT_THAT(r.md5, IsEmpty());
}

TEST(StatisticCsv, Version23DefaultHeaderWithSpecRow) {
  auto csv = parse_statistic_csv(
      "Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape,Max Value,Min "
      "Value,L2Norm Value\n"
      "Mul,Default_Mul-op3,0,0,1716000000000000,output,0,16,float32,\"(4,)\",2.5,-1,2.7386127,\n"
      "Add,Default_Add-op1,0,2,1716000000000001,output,0,4,bfloat16,\"()\",1e3,-inf,nan,\n");
  ASSERT_TRUE(csv) << csv.error().describe();
  ASSERT_EQ(csv->rows.size(), 2u);
  const auto& r = csv->rows[0];
  EXPECT_EQ(r.io, Io::Output);
  EXPECT_THAT(r.shape, ElementsAre(4u));
  EXPECT_EQ(r.max, 2.5);
  EXPECT_EQ(r.min, -1.0);
  EXPECT_DOUBLE_EQ(*r.l2norm, 2.7386127);
  EXPECT_FALSE(r.avg);
  EXPECT_FALSE(r.count);
  const auto& s = csv->rows[1];
  EXPECT_EQ(s.line, 3u);
  EXPECT_EQ(s.stream_id, 2u);
  EXPECT_EQ(s.dtype, DType::BFloat16);
  EXPECT_THAT(s.shape, IsEmpty());
  EXPECT_EQ(s.max, 1000.0);
  EXPECT_TRUE(std::isinf(*s.min) && *s.min < 0);
  EXPECT_TRUE(std::isnan(*s.l2norm));
}

// Magnitudes beyond double read as the nearest double, as strtod and NumPy read them: an underflow
// is a signed zero (it was read as inf), an overflow is inf, a subnormal stays itself.
TEST(StatisticCsv, OutOfRangeValuesReadAsTheNearestDouble) {
  auto csv = parse_statistic_csv(
      "Op Type,Op Name,Max Value,Min Value,Avg Value,L2Norm Value\n"
      "Add,a,1e-400,-1e-400,4e-320,1e400,\n"
      "Add,b,-1e400,0.00000000000000000001e-310,123456789e-330,1000e306,\n");
  ASSERT_TRUE(csv) << csv.error().describe();
  ASSERT_EQ(csv->rows.size(), 2u);
  const auto& r = csv->rows[0];
  EXPECT_EQ(*r.max, 0.0);
  EXPECT_FALSE(std::signbit(*r.max));
  EXPECT_EQ(*r.min, 0.0);
  EXPECT_TRUE(std::signbit(*r.min));
  EXPECT_EQ(*r.avg, std::strtod("4e-320", nullptr));
  EXPECT_TRUE(std::isinf(*r.l2norm) && *r.l2norm > 0);
  const auto& s = csv->rows[1];
  EXPECT_TRUE(std::isinf(*s.max) && *s.max < 0);
  EXPECT_EQ(*s.min, 0.0);
  EXPECT_EQ(*s.avg, std::strtod("123456789e-330", nullptr));
  EXPECT_TRUE(std::isinf(*s.l2norm));
}

TEST(StatisticCsv, NanCountSpellingsMd5Sha1AndUnknownColumns) {
  auto csv = parse_statistic_csv(
      "Op Type,Op Name,Nan Count,MD5,SHA1,Future Column\n"
      "Add,a,7,d41d8cd98f00b204e9800998ecf8427e,da39a3ee5e6b4b0d3255bfef95601890afd80709,xyz,\n");
  ASSERT_TRUE(csv) << csv.error().describe();
  EXPECT_THAT(csv->header,
              ElementsAre("Op Type", "Op Name", "Nan Count", "MD5", "SHA1", "Future Column"));
  ASSERT_EQ(csv->rows.size(), 1u);
  EXPECT_EQ(csv->rows[0].nan_count, 7u);
  EXPECT_EQ(csv->rows[0].md5, "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(csv->rows[0].sha1, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
}

TEST(StatisticCsv, NullAndEmptyCellsAreAbsent) {
  auto csv = parse_statistic_csv(
      "Op Type,Op Name,Data Size,Data Type,Shape,Max Value,Min Value,Avg Value,Count,MD5\n"
      "Add,a,0,float16,\"(0,)\",null,null,null,,null,\n");
  ASSERT_TRUE(csv) << csv.error().describe();
  const auto& r = csv->rows[0];
  EXPECT_EQ(r.data_size, 0u);
  EXPECT_THAT(r.shape, ElementsAre(0u));
  EXPECT_FALSE(r.max);
  EXPECT_FALSE(r.min);
  EXPECT_FALSE(r.avg);
  EXPECT_FALSE(r.count);
  EXPECT_THAT(r.md5, IsEmpty());
}

TEST(StatisticCsv, RowsWithoutTrailingCommaAndBlankLinesAreAccepted) {
  auto csv = parse_statistic_csv("Op Type,Op Name,Slot\nA,a,1\n\nB,b,2\n");
  ASSERT_TRUE(csv) << csv.error().describe();
  ASSERT_EQ(csv->rows.size(), 2u);
  EXPECT_EQ(csv->rows[1].line, 4u);
  EXPECT_EQ(csv->rows[1].slot, 2u);
}

TEST(StatisticCsv, HeaderOnlyHasNoRows) {
  auto csv = parse_statistic_csv("Op Type,Op Name\n");
  ASSERT_TRUE(csv) << csv.error().describe();
  EXPECT_TRUE(csv->rows.empty());
}

std::string error_of(std::string_view text) {
  auto csv = parse_statistic_csv(text);
  if (csv) return "(no error)";
  return csv.error().describe();
}

TEST(StatisticCsv, Errors) {
  constexpr std::string_view kHead = "Op Type,Op Name,Slot,Max Value,Shape,IO,Task ID\n";
  auto with_row = [&](std::string_view row) {
    return std::string(kHead) + "A,a,0,1,\"(1)\",input,0,\n" + "A,a,0,1,\"(1)\",input,0,\n" +
           "A,a,0,1,\"(1)\",input,0,\n" + std::string(row);
  };
  EXPECT_EQ(error_of(with_row("A,a,0,abc,\"(1)\",input,0,\n")),
            "line 5: column 'Max Value': expected a number, found 'abc'");
  EXPECT_EQ(error_of(with_row("A,a,-1,1,\"(1)\",input,0,\n")),
            "line 5: column 'Slot': expected an unsigned 32-bit integer, found '-1'");
  EXPECT_EQ(error_of(with_row("A,a,4294967296,1,\"(1)\",input,0,\n")),
            "line 5: column 'Slot': expected an unsigned 32-bit integer, found '4294967296'");
  EXPECT_EQ(error_of(with_row("A,a,0,1,\"(1)\",input,18446744073709551616,\n")),
            "line 5: column 'Task ID': expected an unsigned 64-bit integer, found "
            "'18446744073709551616'");
  EXPECT_EQ(error_of(with_row("A,a,0,1,\"[1]\",input,0,\n")),
            "line 5: column 'Shape': expected a shape such as (2,3) or (), found '[1]'");
  EXPECT_EQ(error_of(with_row("A,a,0,1,\"(1,,2)\",input,0,\n")),
            "line 5: column 'Shape': expected a shape such as (2,3) or (), found '(1,,2)'");
  EXPECT_EQ(error_of(with_row("A,a,0,1,\"(1)\",inout,0,\n")),
            "line 5: column 'IO': expected input or output, found 'inout'");
  EXPECT_EQ(error_of(with_row("A,a,0,1,\"(1)\",input,0,extra,\n")),
            "line 5: row has 9 fields but the header has 7 columns");
  EXPECT_EQ(error_of(with_row("A,a,0,1,\"(1)\",input\n")),
            "line 5: row has 6 fields but the header has 7 columns");
  EXPECT_EQ(
      error_of(with_row("A,a,0,1,\"(1)\",input,\"0\n")),
      "line 5: unterminated quoted field: expected a closing '\"' before the end of the file");
  EXPECT_EQ(error_of(""), "line 1: expected a statistic.csv header row, found an empty file");
  EXPECT_EQ(error_of("name,value\nx,1\n"),
            "line 1: expected a statistic.csv header with an 'Op Type' column, found 'name'");
  EXPECT_EQ(error_of("Op Type,Max Value\nA,1.5x,\n"),
            "line 2: column 'Max Value': expected a number, found '1.5x'");
}

TEST(MappingCsv, PairsWithAndWithoutTrailingComma) {
  auto pairs = parse_mapping_csv(
      "1234567890.npy,Add.Default_Add-op1.0.0.1.output.0.DefaultFormat.npy\r\n"
      "987.npy,\"Mul.a,b.0.0.1.input.0.ND.npy\",\n");
  ASSERT_TRUE(pairs) << pairs.error().describe();
  ASSERT_EQ(pairs->size(), 2u);
  EXPECT_EQ((*pairs)[0].first, "1234567890.npy");
  EXPECT_EQ((*pairs)[0].second, "Add.Default_Add-op1.0.0.1.output.0.DefaultFormat.npy");
  EXPECT_EQ((*pairs)[1].second, "Mul.a,b.0.0.1.input.0.ND.npy");
  auto empty = parse_mapping_csv("");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(MappingCsv, Errors) {
  auto bad = parse_mapping_csv("a,b\nonlyone\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().describe(),
            "line 2: expected 2 fields '{mapped name},{original name}', found 1");
  bad = parse_mapping_csv("a,b,c\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().describe(),
            "line 1: expected 2 fields '{mapped name},{original name}', found 3");
  bad = parse_mapping_csv("a,\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().describe(),
            "line 1: expected a mapped name and an original name, found an empty field");
}

TEST(ExecutionOrder, HeaderThenNamesUnescaped) {
  auto names = parse_execution_order(
      "NodeExecutionOrder-FullNameWithScope\r\n"
      "Default/network-WithLossCell/_backbone-AlexNet/conv3-Conv2d/Conv2D-op107\r\n"
      "Default/a,b \"q\"\n"
      "\n"
      "Default/Add-op1");
  ASSERT_TRUE(names) << names.error().describe();
  EXPECT_THAT(*names, ElementsAre("Default/network-WithLossCell/_backbone-AlexNet/conv3-Conv2d/"
                                  "Conv2D-op107",
                                  "Default/a,b \"q\"", "Default/Add-op1"));
}

TEST(ExecutionOrder, MissingHeader) {
  auto names = parse_execution_order("Default/Add-op1\n");
  ASSERT_FALSE(names);
  EXPECT_EQ(names.error().describe(),
            "line 1: expected the header 'NodeExecutionOrder-FullNameWithScope', found "
            "'Default/Add-op1'");
  names = parse_execution_order("");
  ASSERT_FALSE(names);
  EXPECT_EQ(names.error().describe(),
            "line 1: expected the header 'NodeExecutionOrder-FullNameWithScope', found an empty "
            "file");
  auto header_only = parse_execution_order("NodeExecutionOrder-FullNameWithScope\n");
  ASSERT_TRUE(header_only);
  EXPECT_TRUE(header_only->empty());
}

TEST(GlobalExecutionOrder, LeadingIntegers) {
  auto iterations = parse_global_execution_order("0\n1\r\n\n  2\n3,extra\n18446744073709551615");
  ASSERT_TRUE(iterations) << iterations.error().describe();
  EXPECT_THAT(*iterations, ElementsAre(0u, 1u, 2u, 3u, 18446744073709551615u));
  auto empty = parse_global_execution_order("");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(GlobalExecutionOrder, Errors) {
  auto bad = parse_global_execution_order("0\n1\nabc\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().describe(), "line 3: expected an iteration number, found 'abc'");
  bad = parse_global_execution_order("-1\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().describe(), "line 1: expected an iteration number, found '-1'");
  bad = parse_global_execution_order("0\n18446744073709551616\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().describe(),
            "line 2: iteration number '18446744073709551616' does not fit in 64 bits");
}

}  // namespace
}  // namespace msdt::dump
