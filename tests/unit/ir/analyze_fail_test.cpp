// analyze_fail.ir (ir spec §13): the 2.2+ report (exception, C++ call stack, traceback frames with
// Windows and non-ASCII paths), the 1.8-2.1 banner and trailer, markers, graph instances, the
// "# Total subgraphs: 0" count and the tail, read into Module::failure, Node::marker and
// Graph::instance without warnings; damaged reports give warnings with their lines, never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/text_parser.h"
#include "support/mkfixture_runner.h"

namespace msdt::ir {
namespace {

namespace fs = std::filesystem;

std::string warnings_of(const Module& m) {
  std::string all;
  for (const Error& w : m.warnings) all += w.describe() + "\n";
  return all;
}

const Node* node_with_op(const Graph& g, std::string_view op) {
  for (const Node& n : g.nodes)
    if (n.op == op) return &n;
  return nullptr;
}

// The description in tests/mkfixture/examples/analyze_fail_2_3.json, written by mkfixture.
TEST(AnalyzeFail, ReadsTheReportAndTheGraphsOfTheExample) {
  std::string why, text, command;
  fs::path examples = msdt::testing::mkfixture_examples(why);
  fs::path mkfixture = msdt::testing::mkfixture_program(why);
  if (examples.empty() || mkfixture.empty()) GTEST_SKIP() << why;
  ASSERT_TRUE(msdt::testing::mkfixture_output(mkfixture, examples / "analyze_fail_2_3.json", "",
                                              text, command))
      << command;

  auto m = parse_ir_text(text);
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_TRUE(m->warnings.empty()) << warnings_of(*m);
  ASSERT_TRUE(m->failure);
  const Failure& f = *m->failure;
  EXPECT_EQ(f.line, 1u);
  EXPECT_EQ(f.exception,
            "For 'Conv2D', 'C_in' of input 'x' shape divide by parameter 'group' must be equal to "
            "'C_in' of input 'weight' shape: 3, but got 'C_in' of input 'x' shape: 224, and "
            "'group': 1.\n"
            "\n"
            "At:\n"
            "  /usr/lib/python3/dist-packages/mindspore/ops/primitive.py(647): __infer__\n"
            "  C:\\Users\\dev\\net\\train.py(57): construct");
  EXPECT_EQ(f.cxx_stack,
            (std::vector<std::string>{"mindspore/ops/infer/conv2d.cc:240 Conv2dInferShape",
                                      "mindspore/core/ops/conv2d.cc:391 InferShape"}));
  ASSERT_EQ(f.traceback.size(), 3u);
  EXPECT_EQ(f.traceback[0].index, 0u);
  EXPECT_EQ(f.traceback[0].file, "C:\\Users\\dev\\net\\train.py");
  EXPECT_EQ(f.traceback[0].line, 57u);
  EXPECT_EQ(f.traceback[0].where, "57~58, 8~34");
  EXPECT_EQ(f.traceback[0].code,
            (std::vector<std::string>{"        out = self.net(x)", "              ^~~~~~~~~~~"}));
  EXPECT_EQ(f.traceback[0].file_line, 23u);
  EXPECT_EQ(f.traceback[1].index, 1u);
  EXPECT_EQ(f.traceback[1].file, "/home/李雷/项目/lenet.py");
  EXPECT_EQ(f.traceback[1].line, 41u);
  EXPECT_EQ(f.traceback[1].where, "41, 12~25");
  EXPECT_EQ(f.traceback[1].code.size(), 2u);
  EXPECT_EQ(f.traceback[1].file_line, 26u);
  EXPECT_EQ(f.traceback[2].file, "/usr/lib/python3/dist-packages/mindspore/nn/layer/conv.py");
  EXPECT_EQ(f.traceback[2].line, 266u);
  EXPECT_EQ(f.traceback[2].where, "266");
  EXPECT_EQ(f.traceback[2].code,
            (std::vector<std::string>{"        output = self.conv2d(x, self.weight)"}));
  EXPECT_FALSE(f.graphs_in_stack);

  // "# Total subgraphs: 0", three graphs, two of them instances of one name.
  EXPECT_EQ(m->declared_graphs, 0u);
  EXPECT_EQ(m->entry, "1_construct_wrapper_21");
  ASSERT_EQ(m->graphs.size(), 3u);
  EXPECT_EQ(m->graphs[0].instance, "0x55d1c4a8e2f0");
  EXPECT_EQ(m->graphs[0].attrs,
            (std::vector<std::pair<std::string, std::string>>{{"training", "0"}}));
  EXPECT_EQ(m->graphs[1].name, "2_construct_22");
  EXPECT_EQ(m->graphs[2].name, "2_construct_22");
  EXPECT_EQ(m->graphs[1].instance, "0x55d1c4b01230");
  EXPECT_EQ(m->graphs[2].instance, "0x55d1c4b09e60");
  EXPECT_EQ(m->graphs[1].parent, "1_construct_wrapper_21");
  EXPECT_EQ(m->graphs[1].location,
            "/home/李雷/项目/lenet.py:40~42, 4~21/    def construct(self, x):/");

  // Markers: depth 0 on the call, depth 1 on the Conv2D whose inference failed; nothing else.
  ASSERT_EQ(m->graphs[0].nodes.size(), 2u);
  EXPECT_EQ(m->graphs[0].nodes[0].marker, 0u);
  EXPECT_EQ(m->graphs[0].nodes[0].op_kind, Node::OpKind::Call);
  EXPECT_EQ(m->graphs[0].nodes[0].callee, "2_construct_22");
  EXPECT_FALSE(m->graphs[0].nodes[1].marker);
  const Node* conv = node_with_op(m->graphs[1], "PrimFunc_Conv2D");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->marker, 1u);
  EXPECT_EQ(conv->number, 1u);
  EXPECT_EQ(conv->output_type, "<null>");
  EXPECT_EQ(conv->scope, "Default/conv1-Conv2d");
  EXPECT_FALSE(m->graphs[1].nodes[0].marker);
  for (const Node& n : m->graphs[2].nodes) EXPECT_FALSE(n.marker);
}

// The 2.2+ form written by hand: no C++ call stack, "KeyboardInterrupt", markers, the tail.
constexpr std::string_view kReport22 =
    R"(# ===============================================================================================
# The following shows the last analyze fail log message.
# ===============================================================================================

----------------------------------------------------
- Caught exception:
----------------------------------------------------
KeyboardInterrupt: <EMPTY MESSAGE>

----------------------------------------------------
- The Traceback of Net Construct Code:
----------------------------------------------------
# 0 In file D:\工作\网络.py:12~14, 4~9
    def construct(self, x):
# 1 In file t.py:3

# ===============================================================================================
# The following shows the IR when the function graphs evaluation fails to help locate the problem.
# You can search the last ------------------------> to the node which is evaluated failure.
# Refer to https://www.mindspore.cn/search?inputValue=analyze_fail.ir to get more instructions.
# ===============================================================================================

# IR entry: @1_construct_3
# Total subgraphs: 0

# Total params: 1
# Params:
%para1_x: <Tensor[Float32], (2)> : [2]

subgraph attr:
training: 0
subgraph instance: 1_construct_3 : 0x600001a2c000
# In file D:\工作\网络.py:12~14, 4~9/    def construct(self, x):/
subgraph @1_construct_3(%para1_x) {

#------------------------> 0
  %0(CNode_7) = Neg(%para1_x)
      : (<Tensor[Float32], (2)>) -> (<Tensor[Float32], (2)>)
  Return(%0)
      : (<Tensor[Float32], (2)>)
}
# Order:
#   1: @1_construct_3:CNode_7{[0]: ValueNode<Primitive> Neg, [1]: x}
# ===============================================================================================
# The rest function graphs are the following:
# ===============================================================================================
No more function graphs.

)";

TEST(AnalyzeFail, ReadsAReportWithoutCxxStack) {
  auto m = parse_ir_text(kReport22);
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_TRUE(m->warnings.empty()) << warnings_of(*m);
  ASSERT_TRUE(m->failure);
  EXPECT_EQ(m->failure->line, 1u);
  EXPECT_EQ(m->failure->exception, "KeyboardInterrupt: <EMPTY MESSAGE>");
  EXPECT_TRUE(m->failure->cxx_stack.empty());
  ASSERT_EQ(m->failure->traceback.size(), 2u);
  EXPECT_EQ(m->failure->traceback[0].file, "D:\\工作\\网络.py");
  EXPECT_EQ(m->failure->traceback[0].line, 12u);
  EXPECT_EQ(m->failure->traceback[0].where, "12~14, 4~9");
  EXPECT_EQ(m->failure->traceback[0].code,
            (std::vector<std::string>{"    def construct(self, x):"}));
  EXPECT_EQ(m->failure->traceback[0].file_line, 13u);
  EXPECT_EQ(m->failure->traceback[1].file, "t.py");
  EXPECT_EQ(m->failure->traceback[1].line, 3u);
  EXPECT_TRUE(m->failure->traceback[1].code.empty());
  EXPECT_EQ(m->style, Style::C);
  ASSERT_EQ(m->graphs.size(), 1u);
  EXPECT_EQ(m->graphs[0].instance, "0x600001a2c000");
  ASSERT_EQ(m->graphs[0].nodes.size(), 2u);
  EXPECT_EQ(m->graphs[0].nodes[0].marker, 0u);
  EXPECT_EQ(m->graphs[0].nodes[0].line, 37u);
}

// The 1.8-2.1 middle form: a banner, subgraphs, the stack count; no exception in the file.
constexpr std::string_view kMiddle =
    R"(# 1.This file shows the parsed IR info when graph evaluating failed to help find the problem.
# 2.You can search the last `------------------------>` to the node which is inferred failed.
# 3.Refer to https://www.mindspore.cn/search?inputValue=analyze_fail.ir to get more instructions.
# ===============================================================================

subgraph attr:
subgraph instance: after_grad.42 : 000001DF192CD730
# In file C:\py\base.py:573/    def after_grad(*args):/
subgraph @after_grad.42(%para1_args0, %para2_args1) {
  %1([CNode]46) = MakeTuple(%para1_args0, %para2_args1)
      : (<Tensor[Float32], (4, 30, 126)>, <Tensor[Int32], (4)>) -> (<Tuple[Tensor[Float32],Tensor[Int32]], TupleShape((4, 30, 126), (4))>)
      #scope: (Default)

#------------------------> 1
  %2([CNode]47) = UnpackCall(%1)
  Return(%2)
}
# Order:
#   1: @after_grad.42:[CNode]47{[0]: UnpackCall, [1]: [CNode]46}
#===============================================================================
# num of function graphs in stack: 2
)";

TEST(AnalyzeFail, ReadsTheMiddleForm) {
  auto m = parse_ir_text(kMiddle);
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_TRUE(m->warnings.empty()) << warnings_of(*m);
  ASSERT_TRUE(m->failure);
  EXPECT_EQ(m->failure->line, 1u);
  EXPECT_EQ(m->failure->exception, "");
  EXPECT_TRUE(m->failure->traceback.empty());
  EXPECT_EQ(m->failure->graphs_in_stack, 2u);
  ASSERT_EQ(m->graphs.size(), 1u);
  EXPECT_EQ(m->graphs[0].name, "after_grad.42");
  EXPECT_EQ(m->graphs[0].instance, "000001DF192CD730");
  EXPECT_EQ(m->graphs[0].params, (std::vector<std::string>{"%para1_args0", "%para2_args1"}));
  ASSERT_EQ(m->graphs[0].nodes.size(), 3u);
  EXPECT_FALSE(m->graphs[0].nodes[0].marker);
  EXPECT_EQ(m->graphs[0].nodes[0].scope, "Default");
  EXPECT_EQ(m->graphs[0].nodes[1].marker, 1u);
  EXPECT_EQ(m->graphs[0].nodes[1].op, "UnpackCall");
  EXPECT_TRUE(m->graphs[0].nodes[2].is_return);
}

// 2.6 writes cycle markers into ordinary graphs (spec §3.1): the same field, no failure.
TEST(AnalyzeFail, CycleMarkersOfOrdinaryGraphs) {
  auto m = parse_ir_text(
      "# IR entry: @g_1\n# Total subgraphs: 1\n\nsubgraph @g_1() {\n"
      "  %0(CNode_1) = Add(%1, I64(1))\n#------------------------> 2\n"
      "  %1(CNode_2) = Mul(%0, I64(2))\n  Return(%1)\n}\n");
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_FALSE(m->failure);
  EXPECT_TRUE(m->warnings.empty()) << warnings_of(*m);
  ASSERT_EQ(m->graphs[0].nodes.size(), 3u);
  EXPECT_FALSE(m->graphs[0].nodes[0].marker);
  EXPECT_EQ(m->graphs[0].nodes[1].marker, 2u);
}

// The count mismatch is still said for ordinary files.
TEST(AnalyzeFail, TotalSubgraphsZeroWarnsOnlyOutsideAnalyzeFail) {
  auto m = parse_ir_text(
      "# IR entry: @g_1\n# Total subgraphs: 0\n\nsubgraph @g_1() {\n"
      "  Return(I64(1))\n}\n");
  ASSERT_TRUE(m) << m.error().describe();
  ASSERT_EQ(m->warnings.size(), 1u);
  EXPECT_EQ(m->warnings[0].message, "the header declares 0 subgraphs, the file has 1");
}

TEST(AnalyzeFail, BadMarkersAreWarningsWithTheirLines) {
  auto m = parse_ir_text(
      "# IR entry: @g_1\n# Total subgraphs: 1\n\nsubgraph @g_1() {\n"
      "#------------------------> x\n"            // line 5: not a number
      "#------------------------> 99999999999\n"  // line 6: too large
      "#------------------------> 1\n"            // line 7: followed by another marker
      "#------------------------> 2\n"            // line 8
      "  %0(CNode_1) = Neg(I64(1))\n"
      "#------------------------> 3\n"  // line 10: no node follows
      "}\n");
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_EQ(warnings_of(*m),
            "line 5: a marker line whose depth is not a number: '#------------------------> x'\n"
            "line 6: a marker line whose depth is not a number: '#------------------------> "
            "99999999999'\n"
            "line 7: the marker '#------------------------> 1' is followed by another marker, not "
            "by a node\n"
            "line 10: the marker '#------------------------> 3' is not followed by a node of "
            "subgraph @g_1\n");
  ASSERT_EQ(m->graphs[0].nodes.size(), 1u);
  EXPECT_EQ(m->graphs[0].nodes[0].marker, 2u);
}

TEST(AnalyzeFail, TruncatedReportsNeverCrash) {
  // Every prefix of the report: an error or a module, never a crash; a module of a prefix that
  // holds the banner has a failure.
  const std::string full(kReport22);
  for (size_t n = 0; n <= full.size(); n += 7) {
    auto m = parse_ir_text(std::string_view(full).substr(0, n));
    if (m && n > 200) {
      EXPECT_TRUE(m->failure) << n;
    } else if (!m && n > 1200) {
      EXPECT_TRUE(m.error().line) << n << ": " << m.error().describe();
    }
  }
  // The report alone (cut before the IR) is a failure without graphs.
  auto m = parse_ir_text(full.substr(0, full.find("# IR entry")));
  ASSERT_TRUE(m) << m.error().describe();
  ASSERT_TRUE(m->failure);
  EXPECT_TRUE(m->graphs.empty());
  EXPECT_EQ(m->failure->traceback.size(), 2u);
}

TEST(AnalyzeFail, TracebackTextBeforeAFrameIsAWarning) {
  std::string text(kReport22);
  text.replace(text.find("# 0 In file"), 0, "stray text\n");
  auto m = parse_ir_text(text);
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_EQ(warnings_of(*m),
            "line 13: a traceback line before any '# N In file' frame: 'stray text'\n");
}

TEST(AnalyzeFail, UnbalancedBracketsInAnInstanceAreAnErrorWithLineAndColumn) {
  std::string text(kReport22);
  text.replace(text.find("Neg(%para1_x)"), 13, "Neg((%para1_x)");
  auto m = parse_ir_text(text);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().describe(),
            "line 37: column 20: unbalanced brackets in the operands (truncated line?)");
}

TEST(AnalyzeFail, InvalidUtf8IsOneWarning) {
  std::string text(kReport22);
  text.replace(text.find("工作"), 6, "\xff\xfe");
  text.replace(text.find("KeyboardInterrupt"), 0, "\xc3(");
  auto m = parse_ir_text(text);
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_EQ(warnings_of(*m),
            "line 8: column 1: invalid UTF-8 (byte 0xc3); kept as written, later lines are not "
            "checked\n");
  ASSERT_TRUE(m->failure);
  EXPECT_EQ(m->failure->traceback[0].file, "D:\\\xff\xfe\\网络.py");
}

// Dashes and "- Title:" lines outside a report are still unknown lines.
TEST(AnalyzeFail, StrayDashesOutsideAReportWarn) {
  auto m = parse_ir_text(
      "# IR entry: @g_1\n# Total subgraphs: 1\n-----\nNo more function graphs.\n"
      "subgraph @g_1() {\n  Return(I64(1))\n}\n");
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_FALSE(m->failure);
  EXPECT_EQ(warnings_of(*m),
            "line 3: skipped a line outside any subgraph: '-----'\n"
            "line 4: skipped a line outside any subgraph: 'No more function graphs.'\n");
}

}  // namespace
}  // namespace msdt::ir
