// One mkfixture description gives the same graph as .ir text (the `ir` key) and as graph protobuf
// (the `graph_proto` key, bare GraphProto or ModelProto): parse_ir_text and
// parse_graph_proto/parse_model_proto read back the same nodes, operators, operands and scopes of
// the entry graph of examples/lenet_ir_c.json, and of a generated network.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/graph_proto.h"
#include "ir/text_parser.h"
#include "ir/type_spec.h"
#include "support/mkfixture_runner.h"

namespace msdt::ir {
namespace {

namespace fs = std::filesystem;

using msdt::testing::read_bytes;

class GraphProtoFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    examples_ = msdt::testing::mkfixture_examples(why);
    mkfixture_ = msdt::testing::mkfixture_program(why);
    if (examples_.empty() || mkfixture_.empty()) GTEST_SKIP() << why;
    dir_ = fs::temp_directory_path() / ("msdt-graph-proto-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Runs mkfixture on a description text; the bytes it wrote.
  std::string build(const std::string& description, const std::string& name) {
    const fs::path in = dir_ / (name + ".json"), out = dir_ / name;
    std::ofstream(in, std::ios::binary) << description;
    std::string command;
    EXPECT_TRUE(msdt::testing::run_mkfixture(mkfixture_, in, out, "", command)) << command;
    return read_bytes(out);
  }

  fs::path mkfixture_, examples_, dir_;
};

// The example's `"ir": {` becomes `"graph_proto": {` (with "model": true for a ModelProto): the
// same description object, written by the other key.
std::string as_graph_proto(std::string description, bool model) {
  const size_t at = description.find("\"ir\": {");
  EXPECT_NE(at, std::string::npos);
  if (at == std::string::npos) return description;
  return description.replace(at, 7,
                             model ? "\"graph_proto\": { \"model\": true," : "\"graph_proto\": {");
}

Expected<Module> parse_bytes(const std::string& bytes, bool model) {
  Bytes in = std::as_bytes(std::span(bytes.data(), bytes.size()));
  return model ? parse_model_proto(in) : parse_graph_proto(in);
}

// Node count, operators, operands (nodes by number, parameters by id, constants by text) and
// scopes of the entry graph agree.
void expect_same_graph(const Module& text, const Module& proto) {
  ASSERT_FALSE(text.graphs.empty());
  ASSERT_EQ(proto.graphs.size(), 1u);
  const Graph& t = text.graphs[0];
  const Graph& p = proto.graphs[0];
  EXPECT_EQ(p.name, t.name);
  EXPECT_EQ(proto.entry, text.entry);
  ASSERT_EQ(p.nodes.size(), t.nodes.size());
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    const Node& a = t.nodes[i];
    const Node& b = p.nodes[i];
    SCOPED_TRACE("node " + std::to_string(i) + " " + a.op);
    EXPECT_EQ(b.is_return, a.is_return);
    if (!a.is_return) {
      EXPECT_EQ(b.op, a.op);
      EXPECT_EQ(b.scope, a.scope);
      EXPECT_EQ(b.fullname, a.fullname);
      // Tensor types keep their element type and shape; monads and tuple elements have no
      // place in TypeProto's data_type alone.
      if (parse_type_spec(a.output_type).kind == TypeSpec::Kind::Tensor) {
        EXPECT_EQ(parse_type_spec(b.output_type).label(), parse_type_spec(a.output_type).label());
      }
    }
    ASSERT_EQ(b.inputs.size(), a.inputs.size());
    for (size_t j = 0; j < a.inputs.size(); ++j) {
      const Input& x = a.inputs[j];
      const Input& y = b.inputs[j];
      SCOPED_TRACE("input " + std::to_string(j) + " " + x.text);
      if (x.kind == Input::Kind::Node) {
        ASSERT_EQ(y.kind, Input::Kind::Node);
        EXPECT_EQ(y.node, x.node);
      } else if (x.kind == Input::Kind::Parameter) {
        ASSERT_EQ(y.kind, Input::Kind::Parameter);
        EXPECT_EQ(y.target, x.target);
      } else {
        // Graphs and constants are constants in the protobuf, printed as the text writes them.
        EXPECT_EQ(y.kind, Input::Kind::Value);
        EXPECT_EQ(y.text, x.text);
      }
    }
  }
  EXPECT_TRUE(proto.warnings.empty()) << proto.warnings[0].describe();
}

TEST_F(GraphProtoFixture, LenetAsTextAndProtobufAgree) {
  const std::string description = read_bytes(examples_ / "lenet_ir_c.json");
  const std::string text = build(description, "lenet.ir");
  auto t = parse_ir_text(text);
  ASSERT_TRUE(t) << t.error().describe();
  ASSERT_EQ(t->graphs[0].nodes.size(), 15u);
  for (bool model : {false, true}) {
    SCOPED_TRACE(model ? "ModelProto" : "GraphProto");
    const std::string pb =
        build(as_graph_proto(description, model), model ? "lenet_model.pb" : "lenet_graph.pb");
    ASSERT_FALSE(pb.empty());
    auto p = parse_bytes(pb, model);
    ASSERT_TRUE(p) << p.error().describe();
    expect_same_graph(*t, *p);
    // A bare GraphProto reads as a model too (parse_model_proto tells them apart).
    auto q = parse_model_proto(std::as_bytes(std::span(pb.data(), pb.size())));
    ASSERT_TRUE(q) << q.error().describe();
    EXPECT_EQ(q->graphs[0].nodes.size(), 15u);
    // The entry graph's four parameters, with their types and defaults.
    ASSERT_EQ(p->params.size(), 4u);
    EXPECT_EQ(p->params[1].name, "conv1.weight");
    EXPECT_EQ(p->params[1].type, "<Tensor[Float32], (6, 1, 5, 5)>");
    EXPECT_TRUE(p->params[1].has_default);
    // Attribute values come back in MindSpore's print form.
    const Node& matmul = p->graphs[0].nodes[7];
    ASSERT_EQ(matmul.op, "MatMul");
    ASSERT_EQ(matmul.attrs.size(), 1u);
    EXPECT_EQ(matmul.attrs[0].second,
              "transpose_a: Bool(0), transpose_b: Bool(1), input_names: [\"x1\", \"x2\"], "
              "output_names: [\"output\"]")
        << "bare words in lists are kept as strings";
  }
}

TEST_F(GraphProtoFixture, GeneratedNetworkAsTextAndProtobufAgree) {
  const std::string generate =
      R"({ "style": "C", "generate": { "nodes": 3000, "seed": 7, "subgraphs": 2 } })";
  const std::string text = build(R"({ "kind": "file", "ir": )" + generate + "}", "gen.ir");
  auto t = parse_ir_text(text);
  ASSERT_TRUE(t) << t.error().describe();
  EXPECT_TRUE(t->warnings.empty()) << t->warnings[0].describe();
  ASSERT_EQ(t->graphs.size(), 3u);
  size_t nodes = 0;
  for (const Graph& g : t->graphs) nodes += g.nodes.size();
  EXPECT_EQ(nodes, 3000u);
  EXPECT_EQ(t->graphs[1].nodes.size(), 5u);
  bool calls = false;
  for (const Node& n : t->graphs[0].nodes) calls = calls || n.op_kind == Node::OpKind::Call;
  EXPECT_TRUE(calls);
  const std::string pb = build(R"({ "kind": "file", "graph_proto": )" + generate + "}", "gen.pb");
  auto p = parse_graph_proto(std::as_bytes(std::span(pb.data(), pb.size())));
  ASSERT_TRUE(p) << p.error().describe();
  expect_same_graph(*t, *p);
}

}  // namespace
}  // namespace msdt::ir
