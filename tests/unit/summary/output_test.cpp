// summary-cat's spellings: Python's float repr in the exported scalar.csv (spec summary.md
// §13.2), MindInsight's tag quoting for file names (§13.2), step ranges, and the one-cell
// rendering of each kind.
#include "summary/output.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace msdt::summary {
namespace {

TEST(Output, PythonFloatSpelling) {
  EXPECT_EQ(python_float(static_cast<double>(0.1f)), "0.10000000149011612");
  EXPECT_EQ(python_float(1.0), "1.0");
  EXPECT_EQ(python_float(1e-05), "1e-05");
  EXPECT_EQ(python_float(1e16), "1e+16");
  EXPECT_EQ(python_float(123456789012345.0), "123456789012345.0");
  EXPECT_EQ(python_float(1700000001.25), "1700000001.25");
  EXPECT_EQ(python_float(-0.0), "-0.0");
  EXPECT_EQ(python_float(NAN), "nan");
  EXPECT_EQ(python_float(-INFINITY), "-inf");
}

TEST(Output, TagsAreQuotedLikeMindInsight) {
  EXPECT_EQ(quote_tag("loss/auto"), "loss%2Fauto");
  EXPECT_EQ(quote_tag("conv1.weight/auto"), "conv1.weight%2Fauto");
  EXPECT_EQ(quote_tag("a b~c-d_e"), "a%20b~c-d_e");
  EXPECT_EQ(quote_tag("\xff"), "%FF");
  EXPECT_EQ(quote_tag(".."), "%2E%2E");
  EXPECT_EQ(quote_tag("."), "%2E");
  EXPECT_EQ(quote_tag("../../etc/passwd"), "..%2F..%2Fetc%2Fpasswd");
}

TEST(Output, StepRanges) {
  auto both = parse_step_range("3-7");
  ASSERT_TRUE(both);
  EXPECT_EQ(both->first, 3);
  EXPECT_EQ(both->second, 7);
  auto from = parse_step_range("10-");
  ASSERT_TRUE(from);
  EXPECT_EQ(from->first, 10);
  EXPECT_FALSE(from->second);
  auto upto = parse_step_range("-4");
  ASSERT_TRUE(upto);
  EXPECT_FALSE(upto->first);
  EXPECT_EQ(upto->second, 4);
  auto one = parse_step_range("5");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->first, 5);
  EXPECT_EQ(one->second, 5);
  EXPECT_FALSE(parse_step_range("-"));
  EXPECT_FALSE(parse_step_range("7-3"));
  EXPECT_FALSE(parse_step_range("a-b"));
  EXPECT_FALSE(parse_step_range("99999999999999999999"));

  Selection s;
  s.first_step = 3;
  s.last_step = 7;
  EXPECT_TRUE(s.matches_step(3));
  EXPECT_TRUE(s.matches_step(7));
  EXPECT_FALSE(s.matches_step(8));
  EXPECT_FALSE(s.matches_step(std::nullopt));
}

TEST(Output, ValuesInOneCell) {
  Value scalar;
  scalar.kind = ValueKind::Scalar;
  scalar.scalar = 0.25;
  EXPECT_EQ(render_value(scalar), "0.25");
  EXPECT_EQ(value_json(scalar), 0.25);

  Value image;
  image.kind = ValueKind::Image;
  static const unsigned char png[] = {0x89, 'P', 'N', 'G', 0, 0};
  image.image.encoded = Bytes(reinterpret_cast<const std::byte*>(png), sizeof png);
  image.image.width = 4;
  image.image.height = 3;
  EXPECT_EQ(render_value(image), "PNG 4x3, 6 B");

  Value tensor;
  tensor.kind = ValueKind::Tensor;
  tensor.tensor.edit().declared = DType::Int64;
  tensor.tensor.edit().dims = {2, 2};
  static const float values[] = {1, 2, 3, NAN};
  tensor.tensor.edit().data = Bytes(reinterpret_cast<const std::byte*>(values), sizeof values);
  EXPECT_EQ(render_value(tensor), "int64 (2, 2) min=1.0 max=3.0 mean=2.0 nan=1 inf=0");
  auto j = value_json(tensor);
  EXPECT_EQ(j["dtype"], "int64");
  EXPECT_EQ(j["stored"], "float32");
  EXPECT_EQ(j["nan"], 1);

  Value hist;
  hist.kind = ValueKind::Histogram;
  hist.histogram.edit().buckets = {{0, 1, 2}, {1, 1, 3}};
  hist.histogram.edit().min = 0.0;
  hist.histogram.edit().max = 2.0;
  EXPECT_EQ(render_value(hist), "[0.0, 2.0] n=5.0, 2 buckets");
}

}  // namespace
}  // namespace msdt::summary
