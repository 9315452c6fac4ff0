// Event decoding in both dialects (spec summary.md §5, §7, §15): every value kind, the version
// record, TensorFlow's per-tag plugin metadata, both meanings of field 6, lineage as JSON,
// unknown fields skipped, malformed messages refused with an offset.
#include "summary/event.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstring>

#include "summary/files.h"
#include "support/proto_writer.h"

namespace msdt::summary {
namespace {

using msdt::testing::ProtoWriter;

uint64_t dbits(double v) { return std::bit_cast<uint64_t>(v); }
uint32_t fbits(float v) { return std::bit_cast<uint32_t>(v); }

Event decode(Dialect dialect, const ProtoWriter& w, bool explain_file = false) {
  EventDecoder decoder(dialect, explain_file);
  auto e = decoder.decode(w.data(), 100);
  EXPECT_TRUE(e) << e.error().describe();
  return e ? *e : Event{};
}

ProtoWriter event(int64_t step) {
  ProtoWriter e;
  e.fixed64(1, dbits(1700000000.5)).varint(2, static_cast<uint64_t>(step));
  return e;
}

TEST(Event, VersionRecordsGiveTheDialect) {
  ProtoWriter ms, tf, other;
  ms.fixed64(1, dbits(1.0)).string(3, "MindSpore.Event:1");
  tf.fixed64(1, dbits(1.0)).string(3, "brain.Event:2");
  other.fixed64(1, dbits(1.0)).string(3, "Mindspore.Event:1");  // MindInsight's spelling
  EXPECT_EQ(dialect_of_version_record(ms.data()), Dialect::MindSpore);
  EXPECT_EQ(dialect_of_version_record(tf.data()), Dialect::TensorFlow);
  EXPECT_EQ(dialect_of_version_record(other.data()), Dialect::MindSpore);
  EXPECT_EQ(dialect_of_version_record(event(3).data()), std::nullopt);
  Event e = decode(Dialect::MindSpore, ms);
  EXPECT_EQ(e.kind, EventKind::Version);
  EXPECT_EQ(e.version, "MindSpore.Event:1");
  EXPECT_FALSE(e.step);
}

TEST(Event, MindSporeValuesOfEveryKind) {
  ProtoWriter scalar, image, image_msg, hist, hist_msg, bucket, tensor, tensor_msg, land, point, x,
      y, z, path, meta, unknown, summary;
  scalar.string(1, "loss").fixed32(3, fbits(0.25f));
  image_msg.varint(1, 28).varint(2, 56).varint(3, 3).string(4, "\x89PNG....");
  image.string(1, "input").message(4, image_msg);
  bucket.fixed64(1, dbits(-1.0)).fixed64(2, dbits(0.5)).varint(3, 7);
  hist_msg.message(1, bucket)
      .varint(2, 1)
      .fixed64(5, dbits(-0.5))
      .fixed64(6, dbits(-1.0))
      .fixed64(7, dbits(-3.0))
      .varint(8, 8);
  hist.string(1, "w").message(9, hist_msg);
  // dims unpacked, data_type int64 (5), values as float_data (MindSpore's way).
  float values[] = {1, 2, 3, 4, 5, 6};
  tensor_msg.varint(1, 2).varint(1, 3).varint(2, 5).bytes(3, std::as_bytes(std::span(values)));
  tensor.string(1, "t").message(8, tensor_msg);
  float one[] = {0.5f};
  ProtoWriter t1;
  t1.varint(1, 1).varint(2, 11).bytes(3, std::as_bytes(std::span(one)));
  x = t1;
  y = t1;
  z = t1;
  point.message(1, x).message(2, y).message(3, z);
  meta.string(1, "pca").string(2, "step").varint(3, 10);
  path.varint(1, 1).varint(1, 2).message(2, point);
  ProtoWriter land_msg;
  land_msg.message(1, point).message(2, path).message(3, meta);
  land.string(1, "landscape").message(10, land_msg);
  unknown.string(1, "future").varint(99, 1);
  summary.message(1, scalar)
      .message(1, image)
      .message(1, hist)
      .message(1, tensor)
      .message(1, land)
      .message(1, unknown);
  ProtoWriter e = event(7);
  e.message(5, summary).varint(77, 5);  // an unknown event field is skipped
  Event ev = decode(Dialect::MindSpore, e);
  EXPECT_EQ(ev.kind, EventKind::Summary);
  EXPECT_EQ(ev.step, 7);
  EXPECT_EQ(ev.wall_time, 1700000000.5);
  ASSERT_EQ(ev.values.size(), 5u);  // "future" holds no kind we read: skipped
  EXPECT_EQ(ev.values[0].kind, ValueKind::Scalar);
  EXPECT_EQ(ev.values[0].scalar, 0.25);
  EXPECT_EQ(ev.values[1].kind, ValueKind::Image);
  EXPECT_EQ(ev.values[1].image.height, 28);
  EXPECT_EQ(ev.values[1].image.width, 56);
  EXPECT_EQ(ev.values[1].image.encoded.size(), 8u);
  const Histogram& h = *ev.values[2].histogram;
  EXPECT_EQ(ev.values[2].kind, ValueKind::Histogram);
  ASSERT_EQ(h.buckets.size(), 1u);
  EXPECT_EQ(h.buckets[0].left, -1.0);
  EXPECT_EQ(h.buckets[0].width, 0.5);
  EXPECT_EQ(h.buckets[0].count, 7.0);
  EXPECT_EQ(h.nan, 1u);
  EXPECT_EQ(h.max, -0.5);
  EXPECT_EQ(h.min, -1.0);
  EXPECT_EQ(h.sum, -3.0);
  EXPECT_EQ(h.total(), 8.0);
  const Tensor& t = *ev.values[3].tensor;
  EXPECT_EQ(ev.values[3].kind, ValueKind::Tensor);
  EXPECT_EQ(t.stored, DType::Float32);
  EXPECT_EQ(t.declared, DType::Int64);
  EXPECT_EQ(t.dims, (std::vector<uint64_t>{2, 3}));
  ASSERT_EQ(t.bytes().size(), 24u);
  float back[6];
  std::memcpy(back, t.bytes().data(), 24);
  EXPECT_EQ(back[5], 6.0f);
  ASSERT_TRUE(ev.values[4].landscape);
  EXPECT_EQ(ev.values[4].landscape->decomposition, "pca");
  EXPECT_EQ(ev.values[4].landscape->intervals, (std::vector<int32_t>{1, 2}));
  EXPECT_TRUE(ev.values[4].landscape->path_z);
}

// An event of the common shape (wall_time, step, then a summary of common scalars, in this order)
// is read straight off its bytes; any other arrangement goes through the general loop, also when
// the shape breaks after some values were read. Every arrangement gives the same Event, decoded
// fresh or into a reused one whose tags were others.
TEST(Event, EventsOfEveryShapeDecodeAlike) {
  auto scalar = [](std::string_view tag, float value) {
    ProtoWriter v;
    v.string(1, tag).fixed32(3, fbits(value));
    return v;
  };
  auto summary_of = [&](bool long_last) {
    ProtoWriter s;
    s.message(1, scalar("loss", 0.25f)).message(1, scalar("l\xffss", 0.5f));
    s.message(1, scalar(long_last ? std::string(200, 't') : std::string("lr"), 0.125f));
    return s;
  };
  struct Shape {
    const char* name;
    ProtoWriter event;
    int64_t step;
    std::string last_tag;
  };
  std::vector<Shape> shapes;
  auto add = [&](const char* name, ProtoWriter e, int64_t step, bool long_last) {
    shapes.push_back({name, std::move(e), step, long_last ? std::string(200, 't') : "lr"});
  };
  {
    ProtoWriter e = event(7);
    add("common", e.message(5, summary_of(false)), 7, false);
  }
  {
    ProtoWriter e;
    e.varint(2, 7).fixed64(1, dbits(1700000000.5)).message(5, summary_of(false));
    add("step first", e, 7, false);
  }
  {
    ProtoWriter e = event(-3);  // a ten-byte varint
    add("negative step", e.message(5, summary_of(false)), -3, false);
  }
  {
    ProtoWriter e = event(7);
    e.message(5, summary_of(false)).varint(99, 1);
    add("unknown field after", e, 7, false);
  }
  {
    ProtoWriter e = event(7);
    add("long tag last", e.message(5, summary_of(true)), 7, true);
  }
  EventDecoder decoder(Dialect::MindSpore);
  Event reused;
  for (const Shape& shape : shapes) {
    for (bool fresh : {true, false}) {
      Event ev;
      if (fresh) {
        ev = decode(Dialect::MindSpore, shape.event);
      } else {
        ASSERT_FALSE(decoder.decode_into(shape.event.data(), 100, {}, reused)) << shape.name;
        ev = reused;
      }
      SCOPED_TRACE(std::string(shape.name) + (fresh ? ", fresh" : ", reused"));
      EXPECT_EQ(ev.kind, EventKind::Summary);
      EXPECT_EQ(ev.step, shape.step);
      EXPECT_EQ(ev.wall_time, 1700000000.5);
      EXPECT_EQ(ev.offset, 100u);
      ASSERT_EQ(ev.values.size(), 3u);
      const std::pair<std::string, float> expected[] = {
          {"loss", 0.25f}, {"l\\xffss", 0.5f}, {shape.last_tag, 0.125f}};
      for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(ev.values[i].tag, expected[i].first) << i;
        EXPECT_EQ(ev.values[i].kind, ValueKind::Scalar) << i;
        EXPECT_EQ(ev.values[i].scalar, static_cast<double>(expected[i].second)) << i;
      }
    }
  }
  // A raw tag equal to what an earlier value's tag became once escaped is its own text: the
  // bytes l, 0xff, s, s (invalid UTF-8), then the ASCII text l\xffss at the same position, then
  // another tag.
  for (std::string_view tag : {std::string_view("l\xffss"), std::string_view("l\\xffss")}) {
    ProtoWriter raw_summary, raw = event(1);
    raw_summary.message(1, scalar(tag, 1.0f));
    raw.message(5, raw_summary);
    ASSERT_FALSE(decoder.decode_into(raw.data(), 0, {}, reused));
    ASSERT_EQ(reused.values.size(), 1u);
    EXPECT_EQ(reused.values[0].tag, "l\\xffss");
  }
  ProtoWriter other_summary, other = event(2);
  other_summary.message(1, scalar("acc", 2.0f));
  other.message(5, other_summary);
  ASSERT_FALSE(decoder.decode_into(other.data(), 0, {}, reused));
  ASSERT_EQ(reused.values.size(), 1u);
  EXPECT_EQ(reused.values[0].tag, "acc");
}

// A scalar of the common shape (tag, then scalar_value) is read straight off its bytes; every
// other arrangement goes through the general loop. Both give the same Value, and an event
// decoded into a reused Event (decode_into) equals a fresh one.
TEST(Event, ScalarsOfEveryShapeDecodeAlike) {
  std::string long_tag(200, 't');  // a two-byte length: not the common shape
  ProtoWriter common, reversed, long_one, bad_utf8, extra, summary;
  common.string(1, "loss").fixed32(3, fbits(0.25f));
  reversed.fixed32(3, fbits(0.5f)).string(1, "acc");
  long_one.string(1, long_tag).fixed32(3, fbits(1.5f));
  bad_utf8.string(1, "l\xffss").fixed32(3, fbits(2.0f));
  extra.string(1, "lr").fixed32(3, fbits(0.01f)).varint(99, 1);  // an unknown field after
  summary.message(1, common)
      .message(1, reversed)
      .message(1, long_one)
      .message(1, bad_utf8)
      .message(1, extra);
  ProtoWriter e = event(7);
  e.message(5, summary);
  Event ev = decode(Dialect::MindSpore, e);
  ASSERT_EQ(ev.values.size(), 5u);
  const std::pair<std::string, float> expected[] = {
      {"loss", 0.25f}, {"acc", 0.5f}, {long_tag, 1.5f}, {"l\\xffss", 2.0f}, {"lr", 0.01f}};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(ev.values[i].tag, expected[i].first) << i;
    EXPECT_EQ(ev.values[i].kind, ValueKind::Scalar) << i;
    EXPECT_EQ(ev.values[i].scalar, static_cast<double>(expected[i].second)) << i;
  }

  // Decoding into an Event that held other values (a histogram, more of them) gives the same.
  EventDecoder decoder(Dialect::MindSpore);
  Event reused;
  ProtoWriter bucket, hist_msg, hist, big_summary;
  bucket.fixed64(1, dbits(0.0)).fixed64(2, dbits(1.0)).varint(3, 2);
  hist_msg.message(1, bucket);
  hist.string(1, "h").message(9, hist_msg);
  for (int i = 0; i < 8; ++i) big_summary.message(1, hist);
  ProtoWriter big = event(1);
  big.message(5, big_summary);
  ASSERT_FALSE(decoder.decode_into(big.data(), 0, {}, reused));
  ASSERT_EQ(reused.values.size(), 8u);
  ASSERT_FALSE(decoder.decode_into(e.data(), 100, {}, reused));
  ASSERT_EQ(reused.values.size(), 5u);
  EXPECT_EQ(reused.step, ev.step);
  EXPECT_EQ(reused.offset, ev.offset);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(reused.values[i].tag, ev.values[i].tag) << i;
    EXPECT_EQ(reused.values[i].scalar, ev.values[i].scalar) << i;
    EXPECT_FALSE(reused.values[i].histogram) << i;  // nothing left of the histograms
  }
}

// Buckets of MindSpore's shape (left, width, count) are read straight off their bytes; every
// other shape (fields reordered or missing, a negative count's ten-byte varint, an unknown field)
// gives the same Bucket by the general loop.
TEST(Event, HistogramBucketsOfEveryShapeDecodeAlike) {
  ProtoWriter common, reordered, no_width, negative, extra;
  common.fixed64(1, dbits(-1.0)).fixed64(2, dbits(0.5)).varint(3, 300);
  reordered.varint(3, 300).fixed64(2, dbits(0.5)).fixed64(1, dbits(-1.0));
  no_width.fixed64(1, dbits(-1.0)).varint(3, 300);
  negative.fixed64(1, dbits(-1.0)).fixed64(2, dbits(0.5)).varint(3, static_cast<uint64_t>(-2));
  extra.fixed64(1, dbits(-1.0)).fixed64(2, dbits(0.5)).varint(3, 300).varint(15, 1);
  ProtoWriter hist_msg;
  for (const ProtoWriter* b : {&common, &reordered, &no_width, &negative, &extra})
    hist_msg.message(1, *b);
  ProtoWriter hist, summary;
  hist.string(1, "h").message(9, hist_msg);
  summary.message(1, hist);
  ProtoWriter e = event(3);
  e.message(5, summary);
  Event ev = decode(Dialect::MindSpore, e);
  ASSERT_EQ(ev.values.size(), 1u);
  const auto& buckets = ev.values[0].histogram->buckets;
  ASSERT_EQ(buckets.size(), 5u);
  const double expected[5][3] = {
      {-1, 0.5, 300}, {-1, 0.5, 300}, {-1, 0, 300}, {-1, 0.5, -2}, {-1, 0.5, 300}};
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(buckets[i].left, expected[i][0]) << i;
    EXPECT_EQ(buckets[i].width, expected[i][1]) << i;
    EXPECT_EQ(buckets[i].count, expected[i][2]) << i;
  }
}

// RepeatedShape: an event of the common shape taken, another matches when only its wall time,
// step (of the same varint width) and floats differ; anything else in its bytes does not.
TEST(RepeatedShape, OnlyWallTimeStepAndFloatsMayDiffer) {
  auto scalars = [](double wall_time, uint64_t step,
                    std::vector<std::pair<std::string, float>> vs) {
    ProtoWriter summary;
    for (const auto& [tag, value] : vs) {
      ProtoWriter v;
      v.string(1, tag).fixed32(3, fbits(value));
      summary.message(1, v);
    }
    ProtoWriter e;
    e.fixed64(1, dbits(wall_time)).varint(2, step).message(5, summary);
    return e;
  };
  RepeatedShape shape;
  EXPECT_FALSE(shape.taken());
  int64_t step = -1;
  ProtoWriter first = scalars(1.5, 200, {{"loss", 0.5f}, {"acc", 0.25f}});
  EXPECT_FALSE(shape.matches(first.data(), step));  // nothing taken yet
  ASSERT_TRUE(shape.take(first.data()));
  ASSERT_TRUE(shape.taken());

  // Same tags, other wall time, step of the same width (200 and 16383: two bytes), other floats.
  ASSERT_TRUE(shape.matches(scalars(9.0, 16383, {{"loss", -3.0f}, {"acc", 1e30f}}).data(), step));
  EXPECT_EQ(step, 16383);
  ASSERT_TRUE(shape.matches(scalars(1.5, 128, {{"loss", 0.5f}, {"acc", 0.25f}}).data(), step));
  EXPECT_EQ(step, 128);
  // What does not match: another step width, another tag (same length or not), another order,
  // a value more or less.
  EXPECT_FALSE(shape.matches(scalars(1.5, 127, {{"loss", 0.5f}, {"acc", 0.25f}}).data(), step));
  EXPECT_FALSE(shape.matches(scalars(1.5, 16384, {{"loss", 0.5f}, {"acc", 0.25f}}).data(), step));
  EXPECT_FALSE(shape.matches(scalars(1.5, 200, {{"lost", 0.5f}, {"acc", 0.25f}}).data(), step));
  EXPECT_FALSE(shape.matches(scalars(1.5, 200, {{"acc", 0.5f}, {"loss", 0.25f}}).data(), step));
  EXPECT_FALSE(shape.matches(scalars(1.5, 200, {{"loss", 0.5f}}).data(), step));
  EXPECT_FALSE(
      shape.matches(scalars(1.5, 200, {{"loss", 0.5f}, {"acc", 0.25f}, {"lr", 1}}).data(), step));

  // An event of another shape is not taken, and the shape taken before stays.
  ProtoWriter other = scalars(1.5, 200, {{"loss", 0.5f}});
  other.varint(99, 1);  // an unknown field after the summary
  EXPECT_FALSE(shape.take(other.data()));
  ProtoWriter no_step;
  no_step.fixed64(1, dbits(1.0));
  EXPECT_FALSE(shape.take(no_step.data()));
  EXPECT_TRUE(shape.matches(scalars(2.0, 300, {{"loss", 1.0f}, {"acc", 2.0f}}).data(), step));
  EXPECT_EQ(step, 300);
  // The matching events decode as their bytes say.
  EventDecoder decoder(Dialect::MindSpore);
  auto e = decoder.decode(scalars(2.0, 300, {{"loss", 1.0f}, {"acc", 2.0f}}).data(), 0);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->step, 300);
  EXPECT_EQ(e->values.at(1).scalar, 2.0);
}

TEST(Event, TensorDataThatDisagreesWithTheDimsIsRefused) {
  float values[] = {1, 2, 3};
  ProtoWriter tensor_msg, value, summary;
  tensor_msg.varint(1, 2).varint(1, 3).varint(2, 11).bytes(3, std::as_bytes(std::span(values)));
  value.string(1, "t").message(8, tensor_msg);
  summary.message(1, value);
  ProtoWriter e = event(1);
  e.message(5, summary);
  EventDecoder decoder(Dialect::MindSpore);
  auto ev = decoder.decode(e.data(), 1000);
  ASSERT_FALSE(ev);
  EXPECT_NE(ev.error().message.find("dims give 6 elements"), std::string::npos)
      << ev.error().describe();
  ASSERT_TRUE(ev.error().offset);
  EXPECT_GT(*ev.error().offset, 1000u);

  // A shape whose product overflows is refused, not allocated.
  ProtoWriter absurd, value2, summary2;
  absurd.varint(1, uint64_t{1} << 40).varint(1, uint64_t{1} << 40).varint(2, 11);
  value2.string(1, "t").message(8, absurd);
  summary2.message(1, value2);
  ProtoWriter e2 = event(1);
  e2.message(5, summary2);
  EXPECT_FALSE(decoder.decode(e2.data(), 0));
}

TEST(Event, TensorFlowScalarsTensorsHistogramsAndPluginsRememberedPerTag) {
  ProtoWriter simple, meta, plugin, tscalar_msg, shape, tscalar, tscalar2_msg, tscalar2, histo,
      histo_msg, text_msg, text, summary;
  simple.string(1, "loss").fixed32(2, fbits(1.5f));
  plugin.string(1, "scalars");
  meta.message(1, plugin);
  float v = 2.5f;
  tscalar_msg.varint(1, 1).bytes(4, std::as_bytes(std::span(&v, 1)));
  tscalar.string(1, "acc").message(8, tscalar_msg).message(9, meta);
  // The next value of the same tag carries no metadata.
  tscalar2_msg.varint(1, 1).fixed32(5, fbits(3.5f));
  tscalar2.string(1, "acc").message(8, tscalar2_msg);
  double limits[] = {0.0, 1.0, 2.0}, counts[] = {1, 2, 3};
  histo_msg.fixed64(1, dbits(-0.5))
      .fixed64(2, dbits(2.0))
      .fixed64(3, dbits(6))
      .bytes(6, std::as_bytes(std::span(limits)))
      .bytes(7, std::as_bytes(std::span(counts)));
  histo.string(1, "h").message(5, histo_msg);
  ProtoWriter dim, text_shape, text_meta, text_plugin;
  dim.varint(1, 1);
  text_shape.message(2, dim);
  text_plugin.string(1, "text");
  text_meta.message(1, text_plugin);
  text_msg.varint(1, 7).message(2, text_shape).string(8, "hello");
  text.string(1, "note").message(8, text_msg).message(9, text_meta);
  summary.message(1, simple).message(1, tscalar).message(1, histo).message(1, text);
  ProtoWriter e = event(3);
  e.message(5, summary);
  EventDecoder decoder(Dialect::TensorFlow);
  auto ev = decoder.decode(e.data(), 0);
  ASSERT_TRUE(ev) << ev.error().describe();
  ASSERT_EQ(ev->values.size(), 4u);
  EXPECT_EQ(ev->values[0].kind, ValueKind::Scalar);
  EXPECT_EQ(ev->values[0].scalar, 1.5);
  EXPECT_EQ(ev->values[1].kind, ValueKind::Scalar);
  EXPECT_EQ(ev->values[1].scalar, 2.5);
  EXPECT_EQ(ev->values[2].kind, ValueKind::Histogram);
  ASSERT_EQ(ev->values[2].histogram->buckets.size(), 3u);
  EXPECT_EQ(ev->values[2].histogram->buckets[0].left, -0.5);
  EXPECT_EQ(ev->values[2].histogram->buckets[2].left, 1.0);
  EXPECT_EQ(ev->values[2].histogram->buckets[2].count, 3.0);
  EXPECT_EQ(ev->values[3].kind, ValueKind::Text);
  EXPECT_EQ(ev->values[3].tensor->strings, (std::vector<std::string>{"hello"}));

  ProtoWriter summary2, e2 = event(4);
  summary2.message(1, tscalar2);
  e2.message(5, summary2);
  auto ev2 = decoder.decode(e2.data(), 0);
  ASSERT_TRUE(ev2) << ev2.error().describe();
  EXPECT_EQ(ev2->values[0].plugin, "scalars");
  EXPECT_EQ(ev2->values[0].kind, ValueKind::Scalar);
  EXPECT_EQ(ev2->values[0].scalar, 3.5);

  // Field 3 in TensorFlow is obsolete_old_style_histogram (bytes), never MindSpore's scalar.
  ProtoWriter old, summary3, e3 = event(5);
  old.string(1, "old").string(3, "xx");
  summary3.message(1, old);
  e3.message(5, summary3);
  auto ev3 = decoder.decode(e3.data(), 0);
  ASSERT_TRUE(ev3);
  EXPECT_TRUE(ev3->values.empty());
}

TEST(Event, FieldSixIsExplainOrOldTrainLineage) {
  ProtoWriter hyper, train, e = event(1);
  hyper.string(1, "Momentum").fixed32(2, fbits(0.01f)).varint(8, 32);
  train.message(1, hyper);
  e.message(6, train);
  Event old = decode(Dialect::MindSpore, e);
  EXPECT_EQ(old.kind, EventKind::Lineage);
  EXPECT_EQ(old.detail["train_lineage"]["hyper_parameters"]["optimizer"], "Momentum");
  EXPECT_EQ(old.detail["train_lineage"]["hyper_parameters"]["batch_size"], 32);

  ProtoWriter explain, e2 = event(2);
  explain.varint(1, 5).string(2, "/data/img5.jpg").varint(3, 1).string(8, "run");
  e2.message(6, explain);
  Event ex = decode(Dialect::MindSpore, e2, true);
  EXPECT_EQ(ex.kind, EventKind::Explain);
  EXPECT_EQ(ex.detail["explain"]["sample_id"], 5);
  EXPECT_EQ(ex.detail["explain"]["image_path"], "/data/img5.jpg");
  EXPECT_EQ(ex.detail["explain"]["ground_truth_label"], nlohmann::ordered_json::array({1}));

  // The first Explain form: field 1 a string (image_id); skipped, not fatal.
  ProtoWriter first, e3 = event(3);
  first.string(1, "img-1").bytes(2, {});
  e3.message(6, first);
  Event f = decode(Dialect::MindSpore, e3, true);
  EXPECT_EQ(f.kind, EventKind::Explain);
  EXPECT_FALSE(f.detail["explain"].contains("sample_id"));
}

TEST(Event, LineageEventsAsJson) {
  ProtoWriter entry_a, entry_b, user, e;
  entry_a.string(1, "epoch_note").string(2, "warm");
  entry_b.string(1, "k").varint(2, 3);
  user.message(4, entry_a).message(3, entry_b);
  ProtoWriter eval;
  eval.string(2, "{\"acc\": 0.9}");
  e.fixed64(1, dbits(5.0)).message(10, user).message(7, eval);
  Event ev = decode(Dialect::Lineage, e);
  EXPECT_EQ(ev.kind, EventKind::Lineage);
  EXPECT_EQ(ev.detail["user_defined_info"]["map_str"]["epoch_note"], "warm");
  EXPECT_EQ(ev.detail["user_defined_info"]["map_int32"]["k"], 3);
  EXPECT_EQ(ev.detail["evaluation_lineage"]["metric"], "{\"acc\": 0.9}");
}

TEST(Event, GarbageIsRefusedWithAnOffset) {
  std::vector<std::byte> garbage = {std::byte{0xFF}, std::byte{0xFF}, std::byte{0xFF}};
  EventDecoder decoder(Dialect::MindSpore);
  auto ev = decoder.decode(garbage, 40);
  ASSERT_FALSE(ev);
  ASSERT_TRUE(ev.error().offset);
  EXPECT_GE(*ev.error().offset, 40u);
  // wall_time of the wrong wire type.
  ProtoWriter w;
  w.varint(1, 3);
  EXPECT_FALSE(decoder.decode(w.data(), 0));
}

TEST(Files, NamesAreClassified) {
  EXPECT_EQ(classify_summary_name("events.out.events.summary.1676516343.0.my.host_MS").kind,
            FileKind::Summary);
  EXPECT_EQ(classify_summary_name("events.out.events.summary.1676516343.0.my.host_MS").timestamp,
            1676516343u);
  EXPECT_EQ(classify_summary_name("events.out.events.summary.1596869898.hostname_lineage").kind,
            FileKind::Lineage);
  EXPECT_EQ(classify_summary_name("x.summary.12.h_explain").kind, FileKind::Explain);
  EXPECT_EQ(classify_summary_name("events.out.tfevents.1700000000.host.1.0").kind,
            FileKind::TfEvents);
  EXPECT_EQ(classify_summary_name("events.out.tfevents.1700000000.host.1.0").timestamp,
            1700000000u);
  EXPECT_EQ(classify_summary_name("events.out.tfevents.1.profile-empty").kind, FileKind::Other);
  EXPECT_EQ(classify_summary_name("summary.txt").kind, FileKind::Other);
  EXPECT_EQ(classify_summary_name("notes.md").kind, FileKind::Other);
  EXPECT_EQ(default_dialect(FileKind::Lineage), Dialect::Lineage);
  EXPECT_EQ(default_dialect(FileKind::TfEvents), Dialect::TensorFlow);
}

}  // namespace
}  // namespace msdt::summary
