// The .ir text parser on the layouts of spec ir.md: the style A, B and C headers, the RDR order,
// parameter lines of every era, node head lines with calls, free variables, closures and
// attribute blocks, continuation lines, and malformed files. Inputs are the spec's own excerpts
// (§2, §10), written out here so each test states what it reads.
#include "ir/text_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace msdt::ir {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(Brackets, MatchingAndTopLevelSplit) {
  EXPECT_EQ(matching_bracket("(a, (b), [c])x", 0), 13u);
  EXPECT_EQ(matching_bracket("{k: \"}\", j: {1}}", 0), 16u) << "a brace inside a string";
  EXPECT_EQ(matching_bracket("(a, [b)", 0), std::string_view::npos);
  EXPECT_EQ(matching_bracket("(a", 0), std::string_view::npos);
  EXPECT_THAT(split_top_level("a, (b, c), <Tensor[Float32], (2, 3)>, \"x,y\""),
              ElementsAre("a", "(b, c)", "<Tensor[Float32], (2, 3)>", "\"x,y\""));
  EXPECT_THAT(split_top_level("%para1_x, U"), ElementsAre("%para1_x", "U"));
  EXPECT_TRUE(split_top_level("  ").empty());
  // "->" and "<=" are not type specs.
  EXPECT_THAT(split_top_level("(a) -> (b), c"), ElementsAre("(a) -> (b)", "c"));
}

// Style C (2.3+), the header of spec §2.3 with one subgraph.
constexpr std::string_view kStyleC = R"(# IR entry: @19_1___main___Net_construct_304
# Total subgraphs: 1

# Attrs:
has_shard: 0
training: 0

# Total params: 2
# Params:
%para1_x: <Tensor[Float32], ()> : []
%para2_y: <Tensor[Float32], ()> : []

Node counting information:
Total number of nodes: 5
Total number of cnodes: 3

subgraph attr:
training: 0
subgraph instance: 19_1___main___Net_construct_304 : 0x135400418
# In file t6.py:15~20, 4~16/    def construct(self, x, y):/
subgraph @19_1___main___Net_construct_304() {
  %0(CNode_5) = PrimFunc_Add(%para1_x, %para2_y) primitive_attrs: {input_names: [x, y], output_names: [output]} cnode_attrs: {checkpoint: Bool(1)}
      : (<Tensor[Float32], ()>, <Tensor[Float32], ()>) -> (<Tensor[Float32], ()>)
      # Fullname with scope: (Default/Add-op0)
      # In file t6.py:16, 15~20/        z = x + y/
  %1(CNode_6) = call @20_2_construct_305(%0, I64(3))
      : (<Tensor[Float32], ()>, <Int64, NoShape>) -> (<Tensor[Float32], ()>)
  %2(out) = TupleGetItem(%1, I64(0))
  Return(%2)
      : (<Tensor[Float32], ()>)
}
# Order:
#   1: @19_1___main___Net_construct_304:CNode_5{[0]: ValueNode<Primitive> Add, [1]: x, [2]: y}
)";

TEST(TextParser, StyleCHeaderParamsAndNodes) {
  auto m = parse_ir_text(kStyleC);
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_EQ(m->style, Style::C);
  EXPECT_EQ(m->entry, "19_1___main___Net_construct_304");
  EXPECT_EQ(m->declared_graphs, 1u);
  EXPECT_EQ(m->declared_nodes, 5u);
  EXPECT_EQ(m->declared_cnodes, 3u);
  EXPECT_THAT(m->attrs, ElementsAre(std::pair<std::string, std::string>{"has_shard", "0"},
                                    std::pair<std::string, std::string>{"training", "0"}));
  ASSERT_EQ(m->params.size(), 2u);
  EXPECT_EQ(m->params[0].id(), "para1_x");
  EXPECT_EQ(m->params[0].type, "<Tensor[Float32], ()>");
  EXPECT_EQ(m->params[0].symbolic, "[]");
  ASSERT_EQ(m->graphs.size(), 1u);
  const Graph& g = m->graphs[0];
  EXPECT_EQ(g.location, "t6.py:15~20, 4~16/    def construct(self, x, y):/");
  ASSERT_EQ(g.nodes.size(), 4u);
  const Node& add = g.nodes[0];
  EXPECT_EQ(add.number, 0u);
  EXPECT_EQ(add.name, "CNode_5");
  EXPECT_EQ(add.op, "PrimFunc_Add");
  ASSERT_EQ(add.inputs.size(), 2u);
  EXPECT_EQ(add.inputs[0].kind, Input::Kind::Parameter);
  EXPECT_EQ(add.inputs[0].target, "para1_x");
  ASSERT_EQ(add.attrs.size(), 2u);
  EXPECT_EQ(add.attrs[0].first, "primitive_attrs");
  EXPECT_EQ(add.attrs[0].second, "input_names: [x, y], output_names: [output]");
  EXPECT_EQ(add.attrs[1].first, "cnode_attrs");
  EXPECT_THAT(add.input_types, ElementsAre("<Tensor[Float32], ()>", "<Tensor[Float32], ()>"));
  EXPECT_EQ(add.output_type, "<Tensor[Float32], ()>");
  EXPECT_EQ(add.fullname, "Default/Add-op0");
  EXPECT_EQ(add.scope, "Default");
  EXPECT_THAT(add.source, ElementsAre("t6.py:16, 15~20/        z = x + y/"));
  const Node& call = g.nodes[1];
  EXPECT_EQ(call.op_kind, Node::OpKind::Call);
  EXPECT_EQ(call.callee, "20_2_construct_305");
  EXPECT_EQ(call.inputs[0].kind, Input::Kind::Node);
  EXPECT_EQ(call.inputs[0].node, 0u);
  EXPECT_EQ(call.inputs[1].kind, Input::Kind::Value);
  EXPECT_EQ(call.inputs[1].text, "I64(3)");
  EXPECT_EQ(g.nodes[2].name, "out");
  EXPECT_TRUE(g.nodes[3].is_return);
  EXPECT_FALSE(g.nodes[3].number);
  EXPECT_THAT(g.nodes[3].input_types, ElementsAre("<Tensor[Float32], ()>"));
  EXPECT_TRUE(m->warnings.empty()) << m->warnings[0].describe();
}

// Style A (1.x) with the 1.6-era excerpts of spec §10: kernel parameter parts, free variables,
// Switch with graph constants, the <= 1.6 scope line.
constexpr std::string_view kStyleA = R"(#IR entry      : @construct.920
#attrs         :
check_set_strategy_valid_once_only : 1
#Total params  : 2

%para4_label : <Tensor[Int32], (32)>
%para9_inputs0 : <Tensor[Float32], (32, 1, 32, 32)>  :  <Float32xDefaultFormat[const vector][32, 1, 32, 32]>  :  IsWeight:false

#Total subgraph : 2

subgraph attr:
subgraph @construct.920(%para4_label, %para9_inputs0) {
  %0(equiv[CNode]843) = Load(%para8_conv1.weight, U)
      : (<Ref[Tensor(F32)], (6, 1, 5, 5)>, <UMonad>) -> (<Tensor[Float32], (6, 1, 5, 5)>)
      : (conv1.weight)
  %2([CNode]925) = S-Prim-Partial(@↓construct.927, %0)
  %6([CNode]926) = call @↓construct.927(%2, %0)
  %7([CNode]929) = Switch(%2, @✓construct.930, @✗construct.931)
  Return(%7)
}
subgraph @↓construct.927 parent: [subgraph @construct.920](%para10_a) {
  %0([CNode]928) = call @↓construct.927($(@construct.920:outputs), $(@construct.920:para4_label))
  Return(%0)
}
)";

TEST(TextParser, StyleAWithKernelParamsFreeVariablesAndUnicodeNames) {
  auto m = parse_ir_text(kStyleA);
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_EQ(m->style, Style::A);
  EXPECT_EQ(m->entry, "construct.920");
  EXPECT_EQ(m->declared_params, 2u);
  EXPECT_THAT(m->attrs, ElementsAre(std::pair<std::string, std::string>{
                            "check_set_strategy_valid_once_only", "1"}));
  ASSERT_EQ(m->params.size(), 2u);
  EXPECT_EQ(m->params[1].name, "inputs0");
  EXPECT_EQ(m->params[1].type, "<Tensor[Float32], (32, 1, 32, 32)>");
  EXPECT_EQ(m->params[1].kernel, "<Float32xDefaultFormat[const vector][32, 1, 32, 32]>");
  EXPECT_EQ(m->params[1].is_weight, false);
  ASSERT_EQ(m->graphs.size(), 2u);
  const Graph& g = m->graphs[0];
  EXPECT_THAT(g.params, ElementsAre("%para4_label", "%para9_inputs0"));
  const Node& load = g.nodes[0];
  EXPECT_EQ(load.name, "equiv[CNode]843");
  EXPECT_EQ(load.inputs[0].target, "para8_conv1.weight");
  EXPECT_EQ(load.inputs[1].text, "U");
  EXPECT_EQ(load.output_type, "<Tensor[Float32], (6, 1, 5, 5)>");
  EXPECT_EQ(load.fullname, "conv1.weight") << "the <= 1.6 scope line";
  const Node& partial = g.nodes[1];
  EXPECT_EQ(partial.op, "S-Prim-Partial");
  EXPECT_EQ(partial.inputs[0].kind, Input::Kind::Graph);
  EXPECT_EQ(partial.inputs[0].graph, "↓construct.927");
  EXPECT_EQ(g.nodes[2].callee, "↓construct.927");
  const Node& sw = g.nodes[3];
  EXPECT_EQ(sw.inputs[1].graph, "✓construct.930");
  EXPECT_EQ(sw.inputs[2].graph, "✗construct.931");
  const Graph& child = m->graphs[1];
  EXPECT_EQ(child.name, "↓construct.927");
  EXPECT_EQ(child.parent, "construct.920");
  const Input& free = child.nodes[0].inputs[1];
  EXPECT_EQ(free.kind, Input::Kind::FreeNode);
  EXPECT_EQ(free.graph, "construct.920");
  EXPECT_EQ(free.target, "para4_label");
}

// 2.x RDR dumps write the parameters before the IR entry (spec §2.4).
TEST(TextParser, RdrOrder) {
  auto m = parse_ir_text(R"(# Total params: 1
# Params:
%para1_x: <Tensor[Float32], (2)> : [2]

# IR entry: @kernel_graph_0
# Total subgraphs: 1
subgraph @kernel_graph_0(%para1_x) {
  %0(CNode_1) = ReLU(%para1_x)
  Return(%0)
}
)");
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_EQ(m->style, Style::Rdr);
  EXPECT_EQ(m->entry, "kernel_graph_0");
  EXPECT_EQ(m->params.size(), 1u);
  EXPECT_EQ(m->graphs[0].nodes[0].op, "ReLU");
}

TEST(TextParser, CallsThroughLocalNodesAndFreeNodes) {
  auto m = parse_ir_text(R"(# IR entry: @g_1
subgraph @g_1(%para1_x) {
  %0(CNode_2) = Switch(%para1_x, @a_3, @b_4)
  %1(CNode_3) = %0[@FuncUnion(@a_3, @b_4)]()
  %2(CNode_4) = $(@outer_0:CNode_9)(%1)
  Return(%2)
}
)");
  ASSERT_TRUE(m) << m.error().describe();
  const Graph& g = m->graphs[0];
  EXPECT_EQ(g.nodes[1].op, "%0[@FuncUnion(@a_3, @b_4)]");
  EXPECT_EQ(g.nodes[1].op_kind, Node::OpKind::Local);
  EXPECT_EQ(g.nodes[1].op_node, 0u);
  EXPECT_TRUE(g.nodes[1].inputs.empty());
  EXPECT_EQ(g.nodes[2].op, "$(@outer_0:CNode_9)");
  EXPECT_EQ(g.nodes[2].op_kind, Node::OpKind::FreeNode);
}

TEST(TextParser, AttributeBlocksWithNestedBracketsAndStrings) {
  auto m = parse_ir_text(R"(# IR entry: @g_1
subgraph @g_1() {
  %0(CNode_1) = Conv2D(%para1_x, %para2_w) {instance name: conv2d} primitive_attrs: {pad_list: (0, 0, 0, 0), format: "NC}HW", group: I64(1)} {in_strategy: ((1, 1, 1, 1), (1, 1, 1, 1))}
  Return(%0)
}
)");
  ASSERT_TRUE(m) << m.error().describe();
  const Node& n = m->graphs[0].nodes[0];
  ASSERT_EQ(n.attrs.size(), 3u);
  EXPECT_EQ(n.attrs[0].first, "");
  EXPECT_EQ(n.attrs[0].second, "instance name: conv2d");
  EXPECT_EQ(n.attrs[1].second, "pad_list: (0, 0, 0, 0), format: \"NC}HW\", group: I64(1)");
  EXPECT_EQ(n.attrs[2].second, "in_strategy: ((1, 1, 1, 1), (1, 1, 1, 1))");
}

TEST(TextParser, MalformedFilesNameTheLine) {
  auto unbalanced = parse_ir_text(
      "# IR entry: @g_1\nsubgraph @g_1() {\n  %0(CNode_1) = Add(%para1_x, (1, 2)\n}\n");
  ASSERT_FALSE(unbalanced);
  EXPECT_EQ(unbalanced.error().line, 3u);
  EXPECT_THAT(unbalanced.error().message, HasSubstr("unbalanced"));

  auto truncated = parse_ir_text(
      "# IR entry: @g_1\nsubgraph @g_1() {\n  %0(CNode_1) = Add(%para1_x, %para2_y)\n");
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().line, 2u);
  EXPECT_THAT(truncated.error().message, HasSubstr("not closed"));

  auto twice =
      parse_ir_text("# IR entry: @g_1\nsubgraph @g_1() {\n  %0(a) = A()\n  %0(b) = B()\n}\n");
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().line, 4u);
  EXPECT_THAT(twice.error().message, HasSubstr("defined twice"));

  // An undefined %k is a warning: the rest of the graph stands.
  auto dangling =
      parse_ir_text("# IR entry: @g_1\nsubgraph @g_1() {\n  %0(a) = A(%7)\n  Return(%0)\n}\n");
  ASSERT_TRUE(dangling) << dangling.error().describe();
  ASSERT_EQ(dangling->warnings.size(), 1u);
  EXPECT_EQ(dangling->warnings[0].line, 3u);
  EXPECT_THAT(dangling->warnings[0].message, HasSubstr("%7 is not defined"));
}

TEST(TextParser, NotAGraphFile) {
  std::string why;
  EXPECT_FALSE(looks_like_graph_text("somas_pre_processed_info\ntensor: 1 size: 512\n", why));
  EXPECT_EQ(why, "looks like a memory-planner dump (somas)");
  auto m = parse_ir_text("stream 0: task 1, task 2\n");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().message, "not a graph file: looks like a task or stream dump");
}

}  // namespace
}  // namespace msdt::ir
