// The DOT writer (spec ir.md §11.3): stable ids, clusters nested by parent, call edges into
// clusters, folded and shared constants, types on edges, monads hidden on request, placeholders
// for undefined nodes, scope collapsing, focus and radius, the --max-nodes refusal, quoting.
#include "ir/draw.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "io/regex.h"
#include "ir/text_parser.h"

namespace msdt::ir {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A style C graph: a weight loaded through the UMonad, Conv2D, a long constant used twice, a call
// to a child graph and a Return.
constexpr std::string_view kGraph = R"(# IR entry: @main_1
# Total subgraphs: 2

# Total params: 3
# Params:
%para1_x: <Tensor[Float32], (2, 3)> : [2, 3]
%para2_w: <Ref[Tensor[Float32]], (3, 3)> : [3, 3]  :  has_default
%para3_u: <UMonad> : []

subgraph attr:
subgraph @main_1() {
  %0(CNode_1) = Load(%para2_w, U)
      : (<Ref[Tensor[Float32]], (3, 3)>, <UMonad>) -> (<Tensor[Float32], (3, 3)>)
      # Fullname with scope: (Default/net/Load-op0)
  %1(CNode_2) = UpdateState(%para3_u, %0)
      : (<UMonad>, <Tensor[Float32], (3, 3)>) -> (<UMonad>)
      # Scope: (Default)
  %2(CNode_3) = MatMul(%para1_x, %0) primitive_attrs: {transpose_a: Bool(0)}
      : (<Tensor[Float32], (2, 3)>, <Tensor[Float32], (3, 3)>) -> (<Tensor[Float32], (2, 3)>)
      # Fullname with scope: (Default/net/dense-Dense/MatMul-op1)
      # In file net.py:12, 8~20/        y = self.dense(x)/
  %3(CNode_4) = Add(%2, Tensor(shape=[2, 3], dtype=Float32, value=[...]))
      : (<Tensor[Float32], (2, 3)>, <Tensor[Float32], (2, 3)>) -> (<Tensor[Float32], (2, 3)>)
      # Fullname with scope: (Default/net/dense-Dense/Add-op2)
  %4(CNode_5) = Sub(%3, Tensor(shape=[2, 3], dtype=Float32, value=[...]))
      : (<Tensor[Float32], (2, 3)>, <Tensor[Float32], (2, 3)>) -> (<Tensor[Float32], (2, 3)>)
      # Fullname with scope: (Default/net/head-Head/Sub-op3)
  %5(CNode_6) = call @child_2(%4)
      : (<Tensor[Float32], (2, 3)>) -> (<Tensor[Float32], (2, 3)>)
  %6(CNode_7) = Depend(%5, %1)
      : (<Tensor[Float32], (2, 3)>, <UMonad>) -> (<Tensor[Float32], (2, 3)>)
  Return(%6)
      : (<Tensor[Float32], (2, 3)>)
}

subgraph attr:
subgraph @child_2 parent: [subgraph @main_1](%para4_y) {
  %0(CNode_8) = ReLU(%para4_y)
      : (<Tensor[Float32], (2, 3)>) -> (<Tensor[Float32], (2, 3)>)
      # Fullname with scope: (Default/net/head-Head/ReLU-op4)
  %1(CNode_9) = Mul(%0, F32(0.5))
      : (<Tensor[Float32], (2, 3)>, <Float32, NoShape>) -> (<Tensor[Float32], (2, 3)>)
  Return(%1)
      : (<Tensor[Float32], (2, 3)>)
}
)";

Module parse(std::string_view text) {
  auto m = parse_ir_text(text);
  EXPECT_TRUE(m) << m.error().describe();
  return m ? std::move(*m) : Module{};
}

std::string draw(const Module& m, const DrawOptions& options = {}) {
  auto dot = draw_dot(m, options);
  EXPECT_TRUE(dot) << dot.error().describe();
  return dot ? *dot : "";
}

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Node statements are lines `  "id" [label=...`; edges `  "a" -> "b"`.
size_t node_count(const std::string& dot) {
  size_t n = 0, start = 0;
  while (start < dot.size()) {
    size_t end = dot.find('\n', start);
    std::string_view line(dot.data() + start,
                          (end == std::string::npos ? dot.size() : end) - start);
    n += line.find("\" [label=") != std::string_view::npos && line.find("\" -> \"") == line.npos;
    start = end == std::string::npos ? dot.size() : end + 1;
  }
  return n;
}
size_t edge_count(const std::string& dot) { return count(dot, "\" -> \""); }

TEST(Draw, IdsComeFromGraphNamesNodeNumbersAndParameterNames) {
  std::string dot = draw(parse(kGraph));
  EXPECT_THAT(dot, HasSubstr("\"main_1:%2\" [label=\"MatMul\""));
  EXPECT_THAT(dot, HasSubstr("\"child_2:%0\" [label=\"ReLU\""));
  EXPECT_THAT(dot, HasSubstr("\"main_1:return\" [label=\"Return\""));
  EXPECT_THAT(dot, HasSubstr("\"para2_w\" [label=\"w\\nRef Float32[3,3]\", shape=cylinder"));
  EXPECT_THAT(dot, HasSubstr("\"para1_x\" [label=\"x\\nFloat32[2,3]\", shape=ellipse"));
  // 3 + 1 parameters, 8 + 3 nodes, one constant drawn once.
  EXPECT_EQ(node_count(dot), 4u + 11u + 1u);
  // Drawing twice gives the same text: nothing depends on addresses.
  EXPECT_EQ(dot, draw(parse(kGraph)));
}

TEST(Draw, ClustersNestByParentAndCallsEnterTheCalleeCluster) {
  std::string dot = draw(parse(kGraph));
  size_t outer = dot.find("subgraph \"cluster_main_1\" {");
  size_t inner = dot.find("subgraph \"cluster_child_2\" {");
  ASSERT_NE(outer, std::string::npos);
  ASSERT_NE(inner, std::string::npos);
  EXPECT_LT(outer, inner);
  // The child is inside the parent: the parent's closing brace comes after the child's.
  EXPECT_EQ(dot.substr(inner - 4, 4), "    ");
  EXPECT_THAT(dot, HasSubstr("\"main_1:%5\" -> \"child_2:return\" [lhead=\"cluster_child_2\", "
                             "color=\"#1f77b4\", penwidth=1.5, label=\"call\"]"));
}

TEST(Draw, TypesOnEdgesUnlessTurnedOff) {
  Module m = parse(kGraph);
  std::string dot = draw(m);
  EXPECT_THAT(dot, HasSubstr("\"main_1:%2\" -> \"main_1:%3\" [label=\"Float32[2,3]\"]"));
  DrawOptions options;
  options.types = false;
  std::string bare = draw(m, options);
  EXPECT_THAT(bare, HasSubstr("\"main_1:%2\" -> \"main_1:%3\";"));
  EXPECT_THAT(bare, HasSubstr("\"para1_x\" [label=\"x\", shape=ellipse"));
  EXPECT_EQ(edge_count(dot), edge_count(bare));
}

TEST(Draw, SmallConstantsFoldIntoTheirConsumerLongOnesAreDrawnOncePerGraph) {
  std::string dot = draw(parse(kGraph));
  EXPECT_THAT(dot, HasSubstr("\"child_2:%1\" [label=\"Mul\\nF32(0.5)\""));
  EXPECT_EQ(count(dot, "shape=note"), 1u);
  EXPECT_THAT(dot, HasSubstr("\"main_1:const1\" -> \"main_1:%3\""));
  EXPECT_THAT(dot, HasSubstr("\"main_1:const1\" -> \"main_1:%4\""));
  // The monad constant U folds like any small constant.
  EXPECT_THAT(dot, HasSubstr("\"main_1:%0\" [label=\"Load\\nU\""));
}

TEST(Draw, OperatorsAreColouredByOpTypeAcrossVersions) {
  EXPECT_EQ(op_colour("MatMul"), op_colour("PrimFunc_MatMul"));
  EXPECT_EQ(op_colour("MatMul"), op_colour("S-Prim-MatMul"));
  EXPECT_EQ(op_colour("MatMul"), op_colour("S_Prim_MatMul"));
  // The palette is fixed: these two never change, so drawings of every version agree.
  EXPECT_EQ(op_colour("Conv2D"), op_colour("Conv2D"));
  EXPECT_NE(op_colour("Conv2D"), op_colour("MatMul"));
  std::string dot = draw(parse(kGraph));
  EXPECT_THAT(dot, HasSubstr(std::string("[label=\"MatMul\", fillcolor=\"") +
                             std::string(op_colour("MatMul")) + "\""));
}

TEST(Draw, MonadPlumbingIsDashedOrHidden) {
  Module m = parse(kGraph);
  std::string dot = draw(m);
  EXPECT_THAT(dot, HasSubstr("\"main_1:%1\" -> \"main_1:%6\" [style=dashed, color=\"#aaaaaa\"]"));
  DrawOptions options;
  options.monads = false;
  std::string hidden = draw(m, options);
  EXPECT_THAT(hidden, Not(HasSubstr("UpdateState")));
  EXPECT_THAT(hidden, Not(HasSubstr("\"para3_u\"")));
  EXPECT_THAT(hidden, Not(HasSubstr("Load\\nU")));
  EXPECT_THAT(hidden, HasSubstr("\"main_1:%5\" -> \"main_1:%6\""));
  EXPECT_EQ(node_count(hidden), node_count(dot) - 2);  // UpdateState and the UMonad parameter
}

TEST(Draw, UndefinedNodesBecomeDashedPlaceholders) {
  std::string text(kGraph);
  text.replace(text.find("Add(%2,"), 7, "Add(%9,");
  Module m = parse(text);
  ASSERT_FALSE(m.warnings.empty());
  std::string dot = draw(m);
  EXPECT_THAT(dot, HasSubstr("\"main_1:%9\" [label=\"%9\\n(not defined)\", shape=box, "
                             "style=\"dashed\""));
  EXPECT_THAT(dot, HasSubstr("\"main_1:%9\" -> \"main_1:%3\""));
}

TEST(Draw, DeepScopesCollapseIntoOneBoxPerScopeWithCounts) {
  DrawOptions options;
  options.scope_depth = 2;
  std::string dot = draw(parse(kGraph), options);
  // Default/net/dense-Dense holds MatMul and Add, Default/net/head-Head Sub (main_1) and ReLU
  // (child_2): one box per graph. Load is in Default/net itself, not deeper: it stays.
  EXPECT_THAT(dot, HasSubstr("\"main_1:scope:Default/net\" [label=\"Default/net\\n3 nodes\\n1 × "
                             "Add\\n1 × MatMul\\n1 × Sub\""));
  EXPECT_THAT(dot, HasSubstr("\"child_2:scope:Default/net\" [label=\"Default/net\\n1 node\\n1 × "
                             "ReLU\""));
  EXPECT_THAT(dot, Not(HasSubstr("[label=\"MatMul\"")));
  // Edges inside a box disappear; an edge into the box remains once.
  EXPECT_EQ(count(dot, "\"para1_x\" -> \"main_1:scope:Default/net\""), 1u);
}

TEST(Draw, FocusKeepsMatchesAndTheirNeighbourhood) {
  Module m = parse(kGraph);
  msdt::Regex focus = *msdt::compile_user_regex("MatMul");
  DrawOptions options;
  options.focus = &focus;
  options.radius = 1;
  std::string dot = draw(m, options);
  // MatMul, its inputs x and Load, its consumer Add.
  EXPECT_EQ(node_count(dot), 4u);
  EXPECT_THAT(dot, HasSubstr("\"main_1:%3\" [label=\"Add"));
  EXPECT_THAT(dot, Not(HasSubstr("cluster_child_2")));
  options.radius = 0;
  EXPECT_EQ(node_count(draw(m, options)), 1u);
}

TEST(Draw, RefusesMoreThanMaxNodesWithAdvice) {
  DrawOptions options;
  options.max_nodes = 10;
  auto dot = draw_dot(parse(kGraph), options);
  ASSERT_FALSE(dot);
  EXPECT_THAT(dot.error().describe(), HasSubstr("16 nodes to draw, over --max-nodes 10"));
  EXPECT_THAT(dot.error().describe(), HasSubstr("--scope-depth"));
  EXPECT_THAT(dot.error().describe(), HasSubstr("--focus"));
  options.max_nodes = 0;
  EXPECT_TRUE(draw_dot(parse(kGraph), options));
}

TEST(Draw, QuotesEscapesAndInvalidUtf8) {
  EXPECT_EQ(dot_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(dot_quote("x\ny"), "\"x\\ny\"");
  EXPECT_EQ(dot_quote("网络"), "\"网络\"");
  EXPECT_EQ(dot_quote(std::string_view("a\xff", 2)), "\"a\\\\xff\"");
}

TEST(Draw, AnalyzeFailMarksTheFailingNodeAndFocusesOnTheStack) {
  Module m = parse(kGraph);
  m.failure = Failure{};
  m.graphs[0].nodes[5].marker = 0;  // the call
  m.graphs[1].nodes[1].marker = 1;  // Mul: the last marker, where inference failed
  auto at = failing_node(m);
  ASSERT_TRUE(at);
  EXPECT_EQ(at->first, 1u);
  EXPECT_EQ(at->second, 1u);
  DrawOptions options;
  options.radius = 0;
  std::string dot = draw(m, options);
  EXPECT_EQ(node_count(dot), 2u);
  EXPECT_THAT(dot, HasSubstr("\"child_2:%1\" [label=\"Mul\\nF32(0.5)\", fillcolor=\"#ff6b6b\""));
  EXPECT_THAT(dot, HasSubstr("xlabel=\"failed here (stack 1)\""));
  EXPECT_THAT(dot, HasSubstr("xlabel=\"stack 0\""));
  options.whole = true;
  EXPECT_EQ(node_count(draw(m, options)), 16u);
}

}  // namespace
}  // namespace msdt::ir

namespace msdt::ir {
namespace {

// A chain of `nodes` Adds with long scopes: a few megabytes of DOT.
std::string long_chain(int nodes) {
  std::string text = "# IR entry: @chain_1\n\nsubgraph @chain_1(%para1_x) {\n";
  text += "  %1(CNode_1) = Add(%para1_x, %para1_x)\n";
  for (int k = 2; k <= nodes; ++k)
    text += fmt::format(
        "  %{0}(CNode_{0}) = Add(%{1}, %{1})\n"
        "      : (<Tensor[Float32], (32, 64)>, <Tensor[Float32], (32, 64)>) -> "
        "(<Tensor[Float32], (32, 64)>)\n"
        "      # Fullname with scope: (Default/encoder/layers.{0}/attention/Add-op{0})\n",
        k, k - 1);
  text += fmt::format("  Return(%{})\n}}\n", nodes);
  return text;
}

TEST(DrawStream, PiecesMakeTheSameTextAsTheWholeDrawing) {
  Module m = parse(long_chain(20000));
  DrawOptions options;
  options.max_nodes = 0;
  std::string whole = draw(m, options);
  ASSERT_GT(whole.size(), size_t{3} << 20);
  std::string joined;
  size_t pieces = 0;
  Status done = draw_dot(m, options, nullptr, [&](std::string_view piece) -> Status {
    ++pieces;
    EXPECT_LE(piece.size(), size_t{2} << 20);  // about a megabyte each, never the whole
    joined += piece;
    return std::nullopt;
  });
  EXPECT_FALSE(done) << done->describe();
  EXPECT_GE(pieces, whole.size() >> 20);
  EXPECT_EQ(joined, whole);
}

TEST(DrawStream, AFailedWriteStopsTheDrawingAndIsReturned) {
  Module m = parse(long_chain(20000));
  DrawOptions options;
  options.max_nodes = 0;
  size_t calls = 0;
  Status done = draw_dot(m, options, nullptr, [&](std::string_view) -> Status {
    ++calls;
    return Error("No space left on device");
  });
  ASSERT_TRUE(done);
  EXPECT_EQ(done->describe(), "No space left on device");
  EXPECT_EQ(calls, 1u);
}

TEST(DrawStream, ARefusedDrawingWritesNothing) {
  Module m = parse(long_chain(100));
  DrawOptions options;
  options.max_nodes = 10;
  size_t calls = 0;
  Status done = draw_dot(m, options, nullptr, [&](std::string_view) -> Status {
    ++calls;
    return std::nullopt;
  });
  ASSERT_TRUE(done);
  EXPECT_THAT(done->describe(), HasSubstr("over --max-nodes 10"));
  EXPECT_EQ(calls, 0u);
}

}  // namespace
}  // namespace msdt::ir
