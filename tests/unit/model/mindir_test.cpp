#include "model/mindir.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "support/proto_writer.h"

namespace msdt::model {
namespace {

using msdt::testing::ProtoWriter;
using File = std::vector<std::byte>;

File floats(std::initializer_list<float> values) {
  File out(values.size() * 4);
  size_t i = 0;
  for (float v : values) std::memcpy(out.data() + 4 * i++, &v, 4);
  return out;
}

std::vector<float> as_floats(const TensorData& data) {
  std::vector<float> out(data.view().data.size() / 4);
  std::memcpy(out.data(), data.view().data.data(), out.size() * 4);
  return out;
}

// Where `needle` starts in `haystack` (the absolute offset a Segment must give).
uint64_t find(const File& haystack, const File& needle) {
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end());
  return static_cast<uint64_t>(it - haystack.begin());
}

ProtoWriter tensor(std::string_view name, uint64_t data_type, std::vector<uint64_t> dims) {
  ProtoWriter t;
  for (uint64_t d : dims) t.varint(1, d);
  t.varint(2, data_type).string(7, name);
  return t;
}

ProtoWriter attribute(std::string_view name, uint64_t type) {
  ProtoWriter a;
  a.string(1, name).varint(16, type);
  return a;
}

// A LeNet-like graph as the 2.x exporter writes it (spec §3.2): a primitive node, a sub-graph
// call, a Constant, a weight with raw_data.
File lenet(const File& weight_bytes) {
  ProtoWriter conv;
  conv.string(1, "x").string(1, "conv1.weight").string(2, "Conv2D-op1").string(3, "Conv2D-op1");
  conv.string(4, "REF::Conv2D:1").string(7, "Default/conv1-Conv2d/Conv2D-op1");
  conv.message(5, attribute("pad_mode", 8).string(5, "valid"));
  ProtoWriter call;
  call.string(1, "Conv2D-op1").string(1, "c1").string(2, "call-op2").string(3, "call-op2");
  call.string(4, "REF::sub_graph_2");
  ProtoWriter constant;
  constant.string(2, "c1").string(3, "c1").string(4, "Constant");
  constant.message(5, attribute("value", 7).varint(3, 3));
  ProtoWriter input;
  input.string(1, "x").message(2, tensor("", 1, {1, 1, 32, 32}));
  ProtoWriter output;
  output.string(1, "call-op2");
  ProtoWriter graph;
  graph.message(1, constant).message(1, conv).message(1, call).string(2, "main_graph_1");
  graph.message(3, tensor("conv1.weight", 1, {2, 2}).bytes(9, weight_bytes));
  graph.message(5, input).message(6, output);
  ProtoWriter sub;
  ProtoWriter relu;
  relu.string(1, "p").string(2, "ReLU-op3").string(3, "ReLU-op3").string(4, "REF::ReLU:2");
  sub.message(1, relu).string(2, "sub_graph_2");
  sub.message(5, ProtoWriter().string(1, "p")).message(6, ProtoWriter().string(1, "ReLU-op3"));
  ProtoWriter prim1, prim2;
  prim1.string(1, "Conv2D:1")
      .string(2, "Conv2D")
      .message(3, attribute("out_channel", 4).varint(3, 6));
  prim2.string(1, "ReLU:2").string(2, "ReLU");
  ProtoWriter model;
  model.string(1, "0.1.1").string(2, "MindSpore").string(5, "2.6.0").message(7, graph);
  model.message(8, sub).varint(10, 1).message(12, prim1).message(12, prim2).varint(13, 3);
  model.message(14, ProtoWriter().string(1, "author").string(2, "me"));
  return model.take();
}

TEST(MindIR, ReadsHeaderGraphsAndRawWeights) {
  const File weight = floats({1, 2, 3, 4});
  const File file = lenet(weight);
  const MindIR m = read_mindir(file);
  EXPECT_TRUE(m.problems.empty()) << m.problems.front().describe();
  EXPECT_EQ(m.generation, MindIRGeneration::MindIR);
  EXPECT_EQ(m.ir_version, "0.1.1");
  EXPECT_EQ(m.producer_name, "MindSpore");
  EXPECT_EQ(m.model_version, "2.6.0");
  EXPECT_EQ(m.little_endian, true);
  EXPECT_EQ(m.mind_ir_version, 3);
  ASSERT_EQ(m.user_info.size(), 1u);
  EXPECT_EQ(m.user_info[0].second, "me");
  ASSERT_EQ(m.graphs.size(), 2u);
  EXPECT_EQ(m.graphs[0].name, "main_graph_1");
  EXPECT_FALSE(m.graphs[0].is_function);
  EXPECT_EQ(m.graphs[0].nodes.size(), 3u);
  EXPECT_EQ(m.graphs[0].inputs.size(), 1u);
  EXPECT_EQ(m.graphs[0].inputs[0].dims, (std::vector<int64_t>{1, 1, 32, 32}));
  EXPECT_EQ(m.graphs[0].outputs.size(), 1u);
  EXPECT_TRUE(m.graphs[1].is_function);
  EXPECT_EQ(m.primitives.size(), 2u);
  EXPECT_EQ(m.primitives[0].attributes[0].text, "6");
  const MindIRNode& conv = m.graphs[0].nodes[1];
  EXPECT_EQ(conv.op_type, "REF::Conv2D:1");
  EXPECT_EQ(conv.domain, "Default/conv1-Conv2d/Conv2D-op1");
  EXPECT_EQ(conv.inputs, (std::vector<std::string>{"x", "conv1.weight"}));
  EXPECT_EQ(conv.attributes[0].text, "\"valid\"");
  EXPECT_EQ(m.graphs[0].nodes[0].attributes[0].text, "3");

  ASSERT_EQ(m.weights.size(), 1u);
  const MindIRWeight& w = m.weights[0];
  EXPECT_EQ(w.name, "conv1.weight");
  EXPECT_EQ(w.content.spelling, "FLOAT");
  EXPECT_EQ(w.content.dtype, DType::Float32);
  EXPECT_EQ(w.storage_word(), "raw_data");
  ASSERT_EQ(w.content.segments.size(), 1u);
  EXPECT_EQ(w.content.segments[0].offset, find(file, weight));
  EXPECT_EQ(w.content.expected_bytes, 16u);
  auto data = mindir_tensor_data(file, w);
  ASSERT_TRUE(data) << data.error().describe();
  EXPECT_FALSE(data->copied());
  EXPECT_EQ(as_floats(*data), (std::vector<float>{1, 2, 3, 4}));
}

TEST(MindIR, TruncatedFileKeepsWhatCameBefore) {
  File file = lenet(floats({1, 2, 3, 4}));
  file.resize(60);
  const MindIR m = read_mindir(file);
  ASSERT_EQ(m.problems.size(), 1u);
  EXPECT_EQ(m.problems[0].offset, 0x19u);  // the graph's tag, after the three header strings
  EXPECT_NE(m.problems[0].message.find("goes past the end of the file"), std::string::npos)
      << m.problems[0].message;
  EXPECT_EQ(m.model_version, "2.6.0");
  ASSERT_EQ(m.graphs.size(), 1u);
  EXPECT_FALSE(m.graphs[0].nodes.empty());
}

TEST(MindIR, TypedFieldsDecode) {
  const File values = floats({0.5f, -1.0f, 2.0f});
  ProtoWriter graph;
  graph.string(2, "g");
  graph.message(3, tensor("f", 1, {3}).bytes(3, values));
  graph.message(3, tensor("i", 7, {2}).varint(6, static_cast<uint64_t>(-5)).varint(6, 7));
  graph.message(3, tensor("h", 10, {1}).varint(4, 0x3C00));  // float16 1.0 in int32_data
  graph.message(3, tensor("bad", 6, {4}).varint(4, 1));
  ProtoWriter model;
  model.string(1, "0.1.0").string(2, "MindSpore").message(7, graph);
  const File file = model.take();
  const MindIR m = read_mindir(file);
  ASSERT_EQ(m.weights.size(), 4u);
  EXPECT_EQ(m.weights[0].storage_word(), "float_data");
  EXPECT_EQ(m.weights[0].values, 3u);
  EXPECT_EQ(m.weights[0].content.segments[0].offset, find(file, values));
  auto f = mindir_tensor_data(file, m.weights[0]);
  ASSERT_TRUE(f) << f.error().describe();
  EXPECT_TRUE(f->copied());
  EXPECT_EQ(as_floats(*f), (std::vector<float>{0.5f, -1.0f, 2.0f}));
  auto i = mindir_tensor_data(file, m.weights[1]);
  ASSERT_TRUE(i);
  int64_t ints[2];
  std::memcpy(ints, i->view().data.data(), 16);
  EXPECT_EQ(ints[0], -5);
  EXPECT_EQ(ints[1], 7);
  auto h = mindir_tensor_data(file, m.weights[2]);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->view().dtype, DType::Float16);
  EXPECT_EQ(static_cast<uint8_t>(h->view().data[1]), 0x3C);
  // 1 value for 4 elements: a problem and an error, never a short tensor.
  ASSERT_EQ(m.problems.size(), 1u);
  EXPECT_NE(m.problems[0].message.find("int32_data holds 1 values, dims [4] INT32 need 4"),
            std::string::npos)
      << m.problems[0].message;
  EXPECT_FALSE(mindir_tensor_data(file, m.weights[3]));
}

TEST(MindIR, ExternalData) {
  ProtoWriter ext;
  ext.string(1, "Net_variables/data_0").varint(2, 64).varint(3, 8);
  ProtoWriter up;
  up.string(1, "../secret").varint(2, 64).varint(3, 8);
  ProtoWriter graph;
  graph.string(2, "g");
  graph.message(3, tensor("w", 1, {2}).message(12, ext));
  graph.message(3, tensor("v", 1, {2}).message(12, up));
  ProtoWriter model;
  model.string(1, "0.1.1").string(2, "MindSpore").message(7, graph);
  const File file = model.take();
  const MindIR m = read_mindir(file);
  ASSERT_TRUE(m.problems.empty()) << m.problems.front().describe();
  ASSERT_EQ(m.weights.size(), 2u);
  const MindIRWeight& w = m.weights[0];
  EXPECT_EQ(w.storage_word(), "external");
  EXPECT_EQ(w.data_file, "Net_variables/data_0");
  EXPECT_EQ(w.content.segments[0].offset, 64u);
  EXPECT_EQ(m.data_files(), (std::vector<std::string>{"Net_variables/data_0", "../secret"}));

  File data(128);
  data[0] = std::byte{1};
  const File payload = floats({7, 8});
  std::memcpy(data.data() + 64, payload.data(), 8);
  std::map<std::string, File> files{{"Net_variables/data_0", data}};
  MindIRFileSource source = [&](std::string_view name) -> Expected<Bytes> {
    auto it = files.find(std::string(name));
    if (it == files.end()) return Error("no such file");
    return Bytes(it->second);
  };
  auto got = mindir_tensor_data(file, w, source);
  ASSERT_TRUE(got) << got.error().describe();
  EXPECT_EQ(as_floats(*got), (std::vector<float>{7, 8}));
  auto escaped = mindir_tensor_data(file, m.weights[1], source);
  ASSERT_FALSE(escaped);
  EXPECT_NE(escaped.error().message.find("'..'"), std::string::npos);
  files.clear();
  EXPECT_FALSE(mindir_tensor_data(file, w, source));  // missing: that weight's error only
  data[0] = std::byte{0};
  files["Net_variables/data_0"] = data;
  auto big = mindir_tensor_data(file, w, source);
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("big-endian"), std::string::npos);
}

TEST(MindIR, GraphChunks) {
  ProtoWriter graph;
  graph.string(2, "g");
  ProtoWriter model;
  model.string(1, "0.1.0").string(2, "MindSpore").message(7, graph);
  MindIR m = read_mindir(model.take());
  EXPECT_EQ(mindir_variables_dir("dir/Net_graph.mindir"), "Net_variables");
  EXPECT_EQ(mindir_variables_dir("Net.mindir"), "");
  const File payload = floats({3});
  ProtoWriter chunk;
  chunk.message(3, tensor("w", 1, {1}).bytes(9, payload));
  const File chunk_file = chunk.take();
  add_graph_chunk(m, chunk_file, "Net_variables/data_0");
  ASSERT_EQ(m.weights.size(), 1u);
  EXPECT_EQ(m.weights[0].storage_word(), "graph_chunk");
  EXPECT_EQ(m.graphs[0].weights.size(), 1u);
  auto got = mindir_tensor_data(
      {}, m.weights[0], [&](std::string_view) -> Expected<Bytes> { return Bytes(chunk_file); });
  ASSERT_TRUE(got) << got.error().describe();
  EXPECT_EQ(as_floats(*got), (std::vector<float>{3}));
}

TEST(MindIR, HazardsAndUnknownValues) {
  ProtoWriter v15;  // AttributeProto field 18: a varint in 1.5, a message from 2.0 (§4.10)
  v15.string(1, "a").varint(18, 3).varint(3, 1).varint(16, 9);
  ProtoWriter v20;
  v20.string(1, "b").message(18, ProtoWriter().varint(1, 1)).varint(16, 21);
  v20.message(17, attribute("", 7).varint(3, 1)).message(17, attribute("", 7).varint(3, 2));
  ProtoWriter node;
  node.string(3, "n").string(4, "REF::Foo:1").message(5, v15).message(5, v20);
  ProtoWriter graph;
  graph.message(1, node).string(2, "g").message(3, tensor("q", 42, {2}).bytes(9, File(3)));
  ProtoWriter model;
  model.string(1, "0.1.0").string(2, "MindSpore").message(7, graph);
  model.string(9, "{\"a\": 1}");  // the 1.5 JSON preprocessor
  const MindIR m = read_mindir(model.take());
  EXPECT_TRUE(m.problems.empty()) << m.problems.front().describe();
  EXPECT_EQ(m.graphs[0].nodes[0].attributes[0].text, "true");
  EXPECT_EQ(m.graphs[0].nodes[0].attributes[1].text, "[1, 2]");
  EXPECT_EQ(m.weights[0].content.spelling, "42");
  EXPECT_FALSE(m.weights[0].content.dtype);
  EXPECT_TRUE(m.has_preprocessor);
  EXPECT_TRUE(m.preprocessor_is_text);

  ProtoWriter pre;
  pre.message(1, ProtoWriter().string(4, "Decode").varint(6, 1));
  ProtoWriter with_message;
  with_message.string(1, "0.1.1").message(9, pre);
  const MindIR p = read_mindir(with_message.take());
  EXPECT_FALSE(p.preprocessor_is_text);
  EXPECT_EQ(p.preprocessor_ops, 1u);
}

TEST(MindIR, RawSizeMismatchAndWrongWireType) {
  ProtoWriter graph;
  graph.string(2, "g").message(3, tensor("w", 1, {2, 3}).bytes(9, File(12)));
  graph.varint(2, 5);  // a name that is a varint
  ProtoWriter model;
  model.string(1, "0.1.0").message(7, graph);
  const File file = model.take();
  const MindIR m = read_mindir(file);
  ASSERT_EQ(m.problems.size(), 2u);
  EXPECT_EQ(m.problems[0].message,
            "graph 'g' parameter 0 'w': raw_data holds 12 bytes, dims [2, 3] FLOAT need 24");
  EXPECT_NE(m.problems[1].message.find("GraphProto.name"), std::string::npos);
  EXPECT_FALSE(mindir_tensor_data(file, m.weights[0]));
}

TEST(MindIR, LegacyOnnx) {
  // 0.7-1.0: onnx.ModelProto {1 ir_version 4, 2 "MindSpore", 5 model_version 1, 7 graph}.
  const File weight = floats({1, 2});
  ProtoWriter init;
  init.varint(1, 2).varint(2, 1).string(8, "fc.bias").bytes(9, weight);
  ProtoWriter node;
  node.string(1, "x").string(1, "fc.bias").string(2, "1").string(3, "1").string(4, "BiasAdd");
  node.message(5, ProtoWriter().string(1, "format").string(4, "NCHW").varint(20, 3));
  ProtoWriter input;
  input.string(1, "x").message(
      2, ProtoWriter().message(1, ProtoWriter().varint(1, 1).message(
                                      2, ProtoWriter().message(1, ProtoWriter().varint(1, 2)))));
  ProtoWriter graph;
  graph.message(1, node).string(2, "graph_0").message(5, init).message(11, input);
  graph.message(12, ProtoWriter().string(1, "1"));
  ProtoWriter model;
  model.varint(1, 4).string(2, "MindSpore").varint(5, 1).message(7, graph);
  const File file = model.take();
  const MindIR m = read_mindir(file);
  EXPECT_TRUE(m.problems.empty()) << m.problems.front().describe();
  EXPECT_EQ(m.generation, MindIRGeneration::LegacyOnnx);
  EXPECT_EQ(m.ir_version, "4");
  EXPECT_EQ(m.model_version, "1");
  ASSERT_EQ(m.graphs.size(), 1u);
  EXPECT_EQ(m.graphs[0].nodes[0].op_type, "BiasAdd");
  EXPECT_EQ(m.graphs[0].nodes[0].attributes[0].text, "\"NCHW\"");
  EXPECT_EQ(m.graphs[0].inputs[0].dims, (std::vector<int64_t>{2}));
  ASSERT_EQ(m.weights.size(), 1u);
  EXPECT_EQ(m.weights[0].name, "fc.bias");
  EXPECT_EQ(m.weights[0].content.segments[0].offset, find(file, weight));
  auto data = mindir_tensor_data(file, m.weights[0]);
  ASSERT_TRUE(data);
  EXPECT_EQ(as_floats(*data), (std::vector<float>{1, 2}));
}

TEST(MindIR, ScalarsInTensorsOfTheOldExporters) {
  // 0.7-1.1: a Constant's value as one tensor named by ref_attr_name "scalar:value0" (ONNX
  // AttributeProto: 10 tensors, 21 ref_attr_name; TensorProto: 5 int32_data, 7 int64_data).
  auto constant = [](std::string_view ref, const ProtoWriter& t) {
    ProtoWriter a;
    a.string(1, "value").message(10, t).string(21, ref);
    ProtoWriter n;
    n.string(2, "c").string(4, "Constant").message(5, a);
    return n;
  };
  ProtoWriter graph;
  graph.message(1, constant("scalar:value0",
                            ProtoWriter().varint(2, 7).varint(7, static_cast<uint64_t>(-3))));
  graph.message(1, constant("type:value0", ProtoWriter().varint(2, 10)));
  graph.message(1, constant("tensor:value0",
                            ProtoWriter().varint(1, 2).varint(2, 1).bytes(9, floats({1, 2}))));
  ProtoWriter model;
  model.varint(1, 4).string(2, "MindSpore").varint(5, 1).message(7, graph);
  const MindIR m = read_mindir(model.take());
  EXPECT_TRUE(m.problems.empty()) << m.problems.front().describe();
  ASSERT_EQ(m.graphs[0].nodes.size(), 3u);
  EXPECT_EQ(m.graphs[0].nodes[0].attributes[0].text, "-3");
  EXPECT_EQ(m.graphs[0].nodes[1].attributes[0].text, "FLOAT16");
  EXPECT_EQ(m.graphs[0].nodes[2].attributes[0].text,
            "Tensor(shape=[2], dtype=FLOAT, value=[1, 2])");
}

TEST(MindIR, GarbageNeverCrashes) {
  for (size_t n = 0; n < 300; ++n) {
    File junk(n);
    for (size_t i = 0; i < n; ++i) junk[i] = static_cast<std::byte>((i * 37 + n) % 256);
    const MindIR m = read_mindir(junk);
    for (const Error& e : m.problems) EXPECT_TRUE(e.offset);
  }
}

}  // namespace
}  // namespace msdt::model
