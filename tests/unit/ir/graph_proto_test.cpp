// The graph protobuf (anf_ir.proto, spec summary.md §6) into the graph model: nodes, inputs from
// parameters, nodes and constants, control edges, attribute values as MindSpore prints them,
// types in the text notation, the ModelProto wrapper, and malformed messages with their offsets.
#include "ir/graph_proto.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/type_spec.h"
#include "support/proto_writer.h"

namespace msdt::ir {
namespace {

using msdt::testing::ProtoWriter;
using ::testing::HasSubstr;

// TypeProto of a tensor: data_type DT_TENSOR, tensor_type {elem_type, shape {dim {size}}...}.
ProtoWriter tensor_type(uint64_t elem, std::initializer_list<int64_t> dims) {
  ProtoWriter shape;
  for (int64_t d : dims) shape.message(1, ProtoWriter().varint(1, static_cast<uint64_t>(d)));
  ProtoWriter tensor;
  tensor.varint(1, elem).message(2, shape);
  return ProtoWriter().varint(1, 14).message(2, tensor);
}

ProtoWriter input(std::string_view name, bool control = false) {
  ProtoWriter in;
  in.string(1, name);
  if (control) in.varint(2, 1);
  return in;
}

ProtoWriter attribute(std::string_view name, const ProtoWriter& value) {
  return ProtoWriter().string(1, name).message(2, value);
}

std::vector<std::byte> lenet_graph() {
  ProtoWriter g;
  g.string(2, "kernel_graph_0");
  g.message(3, ProtoWriter().string(1, "x").message(2, tensor_type(11, {32, 1, 32, 32})));
  g.message(3, ProtoWriter()
                   .string(1, "conv1.weight")
                   .message(2, tensor_type(11, {6, 1, 5, 5}))
                   .message(3, ProtoWriter().varint(1, 14)));
  ProtoWriter conv;
  conv.message(1, input("x")).message(1, input("conv1.weight")).string(2, "1").string(3, "Conv2D");
  conv.string(4, "Default/conv1-Conv2d");
  conv.message(5, attribute("out_channel", ProtoWriter().varint(1, 5).varint(3, 6)));
  ProtoWriter kernel;  // (5, 5): values 18 holding two int64 values
  kernel.varint(1, 31)
      .message(18, ProtoWriter().varint(1, 5).varint(3, 5))
      .message(18, ProtoWriter().varint(1, 5).varint(3, 5));
  conv.message(5, attribute("kernel_size", kernel));
  conv.message(5, attribute("format", ProtoWriter().varint(1, 13).string(7, "NCHW")));
  conv.message(6, tensor_type(11, {32, 6, 28, 28}));
  conv.string(8, "Default/conv1-Conv2d/Conv2D-op1");
  g.message(1, conv);
  ProtoWriter relu;
  relu.message(1, input("1")).message(1, input("cst3")).message(1, input("1", true));
  relu.string(2, "2")
      .string(3, "ReLU")
      .string(4, "Default")
      .message(6, tensor_type(11, {32, 6, 28, 28}));
  g.message(1, relu);
  g.message(4, ProtoWriter().string(1, "2").message(2, tensor_type(11, {32, 6, 28, 28})));
  g.message(5, ProtoWriter().string(1, "cst3").message(2, ProtoWriter().varint(1, 5).varint(3, 3)));
  return g.take();
}

TEST(GraphProto, NodesInputsAttributesAndTypes) {
  auto bytes = lenet_graph();
  auto m = parse_graph_proto(bytes);
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_EQ(m->style, Style::Protobuf);
  EXPECT_EQ(m->entry, "kernel_graph_0");
  ASSERT_EQ(m->params.size(), 2u);
  EXPECT_EQ(m->params[1].name, "conv1.weight");
  EXPECT_TRUE(m->params[1].has_default);
  EXPECT_EQ(m->params[0].type, "<Tensor[Float32], (32, 1, 32, 32)>");
  ASSERT_EQ(m->graphs.size(), 1u);
  const Graph& g = m->graphs[0];
  ASSERT_EQ(g.nodes.size(), 3u) << "two nodes and the Return made from the outputs";
  const Node& conv = g.nodes[0];
  EXPECT_EQ(conv.op, "Conv2D");
  EXPECT_EQ(conv.name, "1");
  EXPECT_EQ(conv.number, 0u);
  EXPECT_EQ(conv.inputs[0].kind, Input::Kind::Parameter);
  EXPECT_EQ(conv.inputs[1].target, "para2_conv1.weight");
  ASSERT_EQ(conv.attrs.size(), 1u);
  EXPECT_EQ(conv.attrs[0].first, "primitive_attrs");
  EXPECT_EQ(conv.attrs[0].second,
            "out_channel: I64(6), kernel_size: (I64(5), I64(5)), format: \"NCHW\"");
  EXPECT_EQ(conv.scope, "Default/conv1-Conv2d");
  EXPECT_EQ(conv.fullname, "Default/conv1-Conv2d/Conv2D-op1");
  EXPECT_EQ(parse_type_spec(conv.output_type).label(), "Float32[32,6,28,28]");
  const Node& relu = g.nodes[1];
  ASSERT_EQ(relu.inputs.size(), 3u);
  EXPECT_EQ(relu.inputs[0].kind, Input::Kind::Node);
  EXPECT_EQ(relu.inputs[0].node, 0u);
  EXPECT_FALSE(relu.inputs[0].control);
  EXPECT_EQ(relu.inputs[1].kind, Input::Kind::Value);
  EXPECT_EQ(relu.inputs[1].text, "I64(3)") << "the constant's value, not its key";
  EXPECT_TRUE(relu.inputs[2].control);
  const Node& ret = g.nodes[2];
  EXPECT_TRUE(ret.is_return);
  EXPECT_EQ(ret.inputs[0].node, 1u);
  EXPECT_TRUE(m->warnings.empty());
}

TEST(GraphProto, ModelProtoWrapsTheGraph) {
  auto graph = lenet_graph();
  ProtoWriter model;
  model.varint(1, 1).string(2, "mindspore").bytes(4, graph);
  auto m = parse_model_proto(model.data());
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_EQ(m->graphs[0].nodes.size(), 3u);
  // A bare GraphProto is read by the same call.
  auto bare = parse_model_proto(graph);
  ASSERT_TRUE(bare) << bare.error().describe();
  EXPECT_EQ(bare->entry, "kernel_graph_0");
  auto empty_model = parse_model_proto(ProtoWriter().varint(1, 1).data());
  ASSERT_FALSE(empty_model);
  EXPECT_THAT(empty_model.error().message, HasSubstr("without a graph"));
}

TEST(GraphProto, MalformedMessagesNameTheOffset) {
  auto bytes = lenet_graph();
  bytes.resize(bytes.size() - 3);  // truncated inside the last field
  auto m = parse_graph_proto(bytes);
  ASSERT_FALSE(m);
  EXPECT_TRUE(m.error().offset) << m.error().describe();

  // A name field that is a varint: the wire type is checked.
  auto wrong = parse_graph_proto(ProtoWriter().varint(2, 7).data());
  ASSERT_FALSE(wrong);
  EXPECT_THAT(wrong.error().describe(), HasSubstr("GraphProto.name"));

  // An input naming nothing is a warning; the node stays.
  ProtoWriter g;
  g.message(1, ProtoWriter().message(1, input("ghost")).string(2, "1").string(3, "Neg"));
  auto dangling = parse_graph_proto(g.data());
  ASSERT_TRUE(dangling) << dangling.error().describe();
  ASSERT_EQ(dangling->warnings.size(), 1u);
  EXPECT_THAT(dangling->warnings[0].message, HasSubstr("'ghost'"));

  // Values nested beyond the bound are refused, not recursed into without end.
  ProtoWriter value;
  value.varint(3, 1);
  for (int i = 0; i < 100; ++i) value = ProtoWriter().varint(1, 31).message(18, value);
  ProtoWriter deep;
  deep.message(5, ProtoWriter().string(1, "c").message(2, value));
  auto nested = parse_graph_proto(deep.data());
  ASSERT_FALSE(nested);
  EXPECT_THAT(nested.error().message, HasSubstr("nested too deep"));
}

}  // namespace
}  // namespace msdt::ir
