// summary-cat's spellings: Python's float repr in the exported scalar.csv (spec summary.md
// §13.2), MindInsight's tag quoting for file names (§13.2), step ranges, and the one-cell
// rendering of each kind.
#include "summary/output.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

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

TEST(Output, TensorFlowOuterBucketsAreClippedToMinAndMax) {
  // TensorFlow's first and last buckets reach ±DBL_MAX; min and max bound what is drawn.
  constexpr double kMax = std::numeric_limits<double>::max();
  Histogram h;
  h.buckets = {{-kMax, kMax, 3}, {0, 1, 5}, {1, kMax, 2}};
  h.min = -2;
  h.max = 3;
  plot::HistogramStep clipped = histogram_step(7, h);
  EXPECT_EQ(clipped.step, 7);
  ASSERT_EQ(clipped.bins.size(), 3u);
  EXPECT_EQ(clipped.bins[0].lo, -2);
  EXPECT_EQ(clipped.bins[0].hi, 0);  // -DBL_MAX + DBL_MAX
  EXPECT_EQ(clipped.bins[0].count, 3);
  EXPECT_EQ(clipped.bins[1].lo, 0);
  EXPECT_EQ(clipped.bins[1].hi, 1);
  EXPECT_EQ(clipped.bins[2].lo, 1);
  EXPECT_EQ(clipped.bins[2].hi, 3);
  EXPECT_EQ(clipped.bins[2].count, 2);
  // Without min and max (or with non-finite ones) the edges are the buckets' own.
  h.min = std::nullopt;
  h.max = INFINITY;
  plot::HistogramStep open = histogram_step(0, h);
  ASSERT_EQ(open.bins.size(), 3u);
  EXPECT_EQ(open.bins[0].lo, -kMax);
  EXPECT_EQ(open.bins[2].hi, 1 + kMax);  // rounds to DBL_MAX
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

namespace msdt::summary {
namespace {

Event scalar_event(int64_t step, const std::string& tag, double value) {
  Event e;
  e.step = step;
  e.wall_time = 1700000000.0 + static_cast<double>(step);
  Value& v = e.values.emplace_back();
  v.tag = tag;
  v.scalar = value;
  return e;
}

// --tags counted in batches on reading threads and merged in order equals --tags counted event
// by event: counts, first and last step and value, and steps going back, also across batches.
TEST(TagTable, PartsMergedInOrderEqualTheWholeCount) {
  std::vector<Event> events;
  for (int64_t step : {1, 2, 3, 5, 4, 6, 2, 7})
    events.push_back(scalar_event(step, "loss", step * 0.5));
  events.push_back(scalar_event(8, "acc", 0.9));
  Source source{"run", "run/file", FileKind::Summary, Dialect::MindSpore};
  Selection selection;
  ListOptions options;
  options.format = table::Format::Json;  // the only format with out_of_order

  std::ostringstream whole_out;
  TagTable whole(options, selection, whole_out);
  for (const Event& e : events) whole.event(source, e);
  whole.finish();

  // Batches of 3: steps 1 2 3 | 5 4 6 | 2 7 + acc; the step goes back inside the second batch
  // (5 -> 4) and between the second and the third (6 -> 2).
  std::ostringstream parts_out;
  TagTable parted(options, selection, parts_out);
  for (size_t first = 0; first < events.size(); first += 3) {
    auto part = parted.part(source);
    for (size_t i = first; i < std::min(first + 3, events.size()); ++i) part->event(events[i]);
    part->merge();
  }
  parted.finish();

  EXPECT_EQ(parts_out.str(), whole_out.str());
  EXPECT_EQ(whole_out.str(),
            "{\"run\": \"run\", \"tag\": \"loss\", \"kind\": \"scalar\", \"steps\": 8, "
            "\"first_step\": 1, \"last_step\": 7, \"first_value\": 0.5, \"last_value\": 3.5, "
            "\"out_of_order\": 2}\n"
            "{\"run\": \"run\", \"tag\": \"acc\", \"kind\": \"scalar\", \"steps\": 1, "
            "\"first_step\": 8, \"last_step\": 8, \"first_value\": 0.9, \"last_value\": 0.9, "
            "\"out_of_order\": 0}\n");
}

}  // namespace
}  // namespace msdt::summary
