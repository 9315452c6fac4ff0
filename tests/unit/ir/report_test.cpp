// --stats counts, --json's model, --why's one-screen account of an analyze_fail file, and the
// recognition of graph files by content (load_graph).
#include "ir/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/load.h"
#include "ir/text_parser.h"
#include "table/format.h"

namespace msdt::ir {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::string_view kGraph = R"(# IR entry: @g_1
# Total params: 1
# Params:
%para1_x: <Tensor[Float32], (32, 3, 224, 224)> : [32, 3, 224, 224]

subgraph attr:
subgraph instance: g_1 : 0x1
subgraph @g_1() {
  %0(CNode_1) = call @g_2(%para1_x)
      : (<Tensor[Float32], (32, 3, 224, 224)>) -> (<Tensor[Float32], (32, 64, 112, 112)>)
      # In file net.py:20, 8~20/        return self.body(x)/
  Return(%0)
      : (<Tensor[Float32], (32, 64, 112, 112)>)
}

subgraph attr:
subgraph instance: g_2 : 0x2
subgraph @g_2(%para2_x) {
  %0(CNode_2) = Conv2D(%para2_x, Tensor(shape=[64, 1, 7, 7], dtype=Float32, value=[...]))
      : (<Tensor[Float32], (32, 3, 224, 224)>, <Tensor[Float32], (64, 1, 7, 7)>) -> (<Tensor[Float32], (32, 64, 112, 112)>)
      # Fullname with scope: (Default/body-Body/conv-Conv2d/Conv2D-op0)
      # In file C:\work\网络.py:41, 12~25/        x = self.conv(x)/
  %1(CNode_3) = ReLU(%0)
      : (<Tensor[Float32], (32, 64, 112, 112)>) -> (<Tensor[Float32], (32, 64, 112, 112)>)
      # Fullname with scope: (Default/body-Body/ReLU-op1)
  Return(%1)
      : (<Tensor[Float32], (32, 64, 112, 112)>)
}
)";

Module parse(std::string_view text) {
  auto m = parse_ir_text(text);
  EXPECT_TRUE(m) << m.error().describe();
  return m ? std::move(*m) : Module{};
}

TEST(Stats, CountsByOpGraphAndScope) {
  Counts c = count_nodes(parse(kGraph), 2);
  EXPECT_EQ(c.graphs, 2u);
  EXPECT_EQ(c.parameters, 1u);
  EXPECT_EQ(c.nodes, 5u);
  using P = std::pair<std::string, uint64_t>;
  EXPECT_EQ(c.ops, (std::vector<P>{{"Return", 2}, {"Conv2D", 1}, {"ReLU", 1}, {"call", 1}}));
  EXPECT_EQ(c.graph, (std::vector<P>{{"g_1", 2}, {"g_2", 3}}));
  EXPECT_EQ(c.scopes, (std::vector<P>{{"Default", 2}, {"Default/body-Body", 2}}));
  EXPECT_EQ(counts_text(c).substr(0, 45), "graphs      2\nparameters  1\nnodes       5\n\nop");
  auto j = counts_json(c);
  EXPECT_EQ(j["ops"][0]["name"], "Return");
  EXPECT_EQ(j["ops"][0]["nodes"], 2);
}

TEST(Json, TheModelWithTypesAndSources) {
  auto j = nlohmann::ordered_json::parse(module_json_text(parse(kGraph)));
  EXPECT_EQ(j["entry"], "g_1");
  EXPECT_EQ(j["params"][0]["shape"], nlohmann::ordered_json({32, 3, 224, 224}));
  const auto& conv = j["graphs"][1]["nodes"][0];
  EXPECT_EQ(conv["op"], "Conv2D");
  EXPECT_EQ(conv["dtype"], "Float32");
  EXPECT_EQ(conv["shape"], nlohmann::ordered_json({32, 64, 112, 112}));
  EXPECT_EQ(conv["inputs"][0]["kind"], "parameter");
  EXPECT_EQ(conv["inputs"][1]["kind"], "value");
  EXPECT_EQ(conv["scope"], "Default/body-Body/conv-Conv2d");
  EXPECT_EQ(j["graphs"][0]["nodes"][0]["callee"], "g_2");
  EXPECT_FALSE(j.contains("failure"));
}

Module failed() {
  Module m = parse(kGraph);
  Failure f;
  f.exception =
      "For 'Conv2D', 'C_in' of input 'x' shape divide by parameter 'group' must be "
      "equal to 'C_in' of input 'weight' shape: 1, but got 'C_in' of input 'x' shape: 3"
      "\nAt:\n  net.py(41)";
  f.cxx_stack = {"mindspore/ops/infer/conv2d.cc:240 Conv2dInferShape"};
  f.traceback = {{0, "net.py", 20, "20, 8~20", {"return self.body(x)"}, 0},
                 {1, "C:\\work\\网络.py", 41, "41, 12~25", {"x = self.conv(x)", "    ^~~~"}, 0}};
  m.failure = f;
  m.graphs[0].nodes[0].marker = 0;
  m.graphs[1].nodes[0].marker = 1;
  return m;
}

TEST(Why, OneScreenWithExceptionTracebackFailingNodeAndStack) {
  auto text = why_text(failed());
  ASSERT_TRUE(text) << text.error().describe();
  EXPECT_EQ(*text,
            "Exception:\n"
            "  For 'Conv2D', 'C_in' of input 'x' shape divide by parameter 'group' must be equal "
            "to 'C_in' of input 'weight' shape: 1, but got 'C_in' of input 'x' shape: 3\n"
            "  At:\n"
            "    net.py(41)\n"
            "\n"
            "Traceback of the network's Python code (innermost last):\n"
            "  #0 net.py:20\n"
            "      return self.body(x)\n"
            "> #1 C:\\work\\网络.py:41   <- innermost\n"
            "      x = self.conv(x)\n"
            "          ^~~~\n"
            "\n"
            "Failing node (line 19, in @g_2 (instance 0x2)):\n"
            "  %0(CNode_2) = Conv2D(%para2_x, Tensor(shape=[64, 1, 7, 7], dtype=Float32, "
            "value=[...]))\n"
            "  operator: Conv2D\n"
            "  input 0: %para2_x  Float32[32,3,224,224]  <Tensor[Float32], (32, 3, 224, 224)>\n"
            "  input 1: Tensor(shape=[64, 1, 7, 7], dtype=Float32, value=[...])  "
            "Float32[64,1,7,7]  <Tensor[Float32], (64, 1, 7, 7)>\n"
            "  output: <Tensor[Float32], (32, 64, 112, 112)>\n"
            "  fullname: Default/body-Body/conv-Conv2d/Conv2D-op0\n"
            "  source: C:\\work\\网络.py:41, 12~25/        x = self.conv(x)/\n"
            "\n"
            "Evaluation stack (outermost first):\n"
            "  depth  graph                node          source                          frame\n"
            "  0      @g_1 (instance 0x1)  %0 call @g_2  net.py:20  return self.body(x)  #0\n"
            "  1      @g_2 (instance 0x2)  %0 Conv2D     网络.py:41  x = self.conv(x)      #1\n"
            "\n"
            "C++ call stack (for framework developers):\n"
            "  mindspore/ops/infer/conv2d.cc:240 Conv2dInferShape\n");
}

TEST(Why, JsonHasTheSameFacts) {
  auto j = why_json(failed());
  EXPECT_EQ(j["failing_node"]["op"], "Conv2D");
  EXPECT_EQ(j["failing_node"]["graph"], "g_2");
  EXPECT_EQ(j["failing_node"]["instance"], "0x2");
  EXPECT_EQ(j["traceback"][1]["innermost"], true);
  EXPECT_EQ(j["stack"][0]["frame"], 0);
  EXPECT_EQ(j["stack"][1]["depth"], 1);
  EXPECT_EQ(j["stack"][1]["frame"], 1);
  EXPECT_TRUE(nlohmann::ordered_json::parse(module_json_text(failed())).contains("failure"));
}

// The streamed --json is exactly what table::to_json_text writes for the same document (objects
// and arrays of objects one member a line, arrays of scalars on one line, empty ones as {} / []).
TEST(Json, StreamedTextIsTheDocumentsIndentedText) {
  for (const Module& m : {parse(kGraph), failed()}) {
    std::string text = module_json_text(m);
    EXPECT_EQ(text, table::to_json_text(nlohmann::ordered_json::parse(text), 2) + "\n");
  }
}

// One node of many operands is written in pieces of about 1 MB as it goes: what is in flight is a
// piece and one input, not the node (issue 25: a node of 10^6 operands took 1.2 GB).
TEST(Json, ANodeOfManyOperandsIsWrittenInPieces) {
  std::string ir = "# IR entry: @g\nsubgraph @g(%para1_x) {\n  %0(CNode_1) = AddN(";
  constexpr size_t kOperands = 200000;
  for (size_t i = 0; i < kOperands; ++i) ir += i ? ", %para1_x" : "%para1_x";
  ir += ")\n  Return(%0)\n}\n";
  Module m = parse(ir);
  ASSERT_EQ(m.graphs.size(), 1u);
  ASSERT_EQ(m.graphs[0].nodes[0].inputs.size(), kOperands);
  std::vector<size_t> pieces;
  std::string whole;
  Status s = write_module_json(m, [&](std::string_view piece) -> Status {
    pieces.push_back(piece.size());
    whole += piece;
    return std::nullopt;
  });
  EXPECT_FALSE(s);
  EXPECT_GT(pieces.size(), 5u);
  for (size_t n : pieces) EXPECT_LT(n, (size_t{1} << 20) + 4096);
  auto doc = nlohmann::ordered_json::parse(whole);
  EXPECT_EQ(doc["graphs"][0]["nodes"][0]["inputs"].size(), kOperands);
  EXPECT_EQ(doc["graphs"][0]["nodes"][0]["inputs"][kOperands - 1]["target"], "para1_x");
}

// A writer that fails stops the writing and its error is returned.
TEST(Json, AWriteErrorIsReturned) {
  int calls = 0;
  Status s = write_module_json(parse(kGraph), [&](std::string_view) -> Status {
    ++calls;
    return Error("disk full");
  });
  ASSERT_TRUE(s);
  EXPECT_EQ(s->describe(), "disk full");
  EXPECT_EQ(calls, 1);
}

TEST(Why, RefusesAFileWithoutAFailure) {
  auto text = why_text(parse(kGraph));
  ASSERT_FALSE(text);
  EXPECT_THAT(text.error().describe(), HasSubstr("not an analyze_fail file"));
}

Loaded load(std::string_view text) {
  return load_graph(Bytes(reinterpret_cast<const std::byte*>(text.data()), text.size()));
}

TEST(Load, RecognisesGraphsByContentAndSaysWhatOthersLookLike) {
  Loaded graph = load(kGraph);
  ASSERT_TRUE(graph.module) << graph.module.error().describe();
  EXPECT_EQ(graph.module->graphs.size(), 2u);
  EXPECT_TRUE(graph.not_a_graph.empty());
  EXPECT_EQ(load("somas info\ntotal tensors: 3\n").not_a_graph,
            "looks like a memory-planner dump (somas)");
  EXPECT_EQ(load("digraph mindspore {\n}\n").not_a_graph,
            "looks like Graphviz DOT (perhaps MindSpore's own .dot)");
  EXPECT_EQ(load(std::string_view("\x93NUMPY\x01\x00", 8)).not_a_graph, "looks like a NumPy array");
  EXPECT_EQ(load("").not_a_graph, "looks like an empty file");
  EXPECT_THAT(load(std::string_view("\x7f"
                                    "ELF\x02\x01\x00\x00",
                                    8))
                  .not_a_graph,
              HasSubstr("binary data"));
  Loaded somas = load("somas info\n");
  ASSERT_FALSE(somas.module);
  EXPECT_THAT(somas.module.error().describe(), HasSubstr("not a graph file: looks like"));
}

}  // namespace
}  // namespace msdt::ir
