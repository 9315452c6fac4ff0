// The 1.x `.dat` graph text (ir spec §8) and analyze_fail.dat (§13.1): graph titles, fg_<id>
// references and parents, parameters numbered across the file, node lines with their operator,
// attributes, operands, types, scope, source and name, markers and the trailers; damaged files
// give errors or warnings with their lines, never a crash.
#include "ir/dat_parser.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/mkfixture_runner.h"

namespace msdt::ir {
namespace {

namespace fs = std::filesystem;

std::string warnings_of(const Module& m) {
  std::string all;
  for (const Error& w : m.warnings) all += w.describe() + "\n";
  return all;
}

// Written as the 1.x exporter does (AnfExporter: "        " and "        , " before parameters,
// "    ) {", 4-space node lines, debug lines ending in "#<node name>", "# order:").
constexpr std::string_view kDat = R"(# [No.1] 254_129_1_construct_wrapper.905
# In file /usr/mindspore/nn/wrap/cell_wrapper.py(360)/    def construct(self, *inputs):/
funcgraph fg_905(
        %para1 : Tensor(F32)[32, 1, 32, 32]    # inputs0
        , %para2 : Ref[Tensor(F32)][6, 1, 5, 5]    # conv1.weight
        , %para3    # u
    ) {
    %1 : Tensor(F32)[6, 1, 5, 5] = Primitive::Load{prim_type=1}(%para2, UMonad[U])    #(Ref[Tensor(F32)][6, 1, 5, 5], UMonad) #scope: Default
#equiv[CNode]843
    %2 : Tensor(F32)[32, 6, 28, 28] = PrimitivePy::Conv2D{prim_type=1}[kernel_size=(I64(5), I64(5)), pad_mode=same, group=I64(1)](%para1, %1)    #(Tensor(F32)[32, 1, 32, 32], Tensor(F32)[6, 1, 5, 5]) #scope: Default/conv1-Conv2d/Conv2D-op0
      # In file /home/用户/lenet.py(41)/        x = self.conv1(x)/#equivoutput
    %3 = FuncGraph::fg_906(%2, FuncGraph::fg_907)    #(Tensor(F32)[32, 6, 28, 28], Func)    # fg_906=head.906, fg_907=✓branch.907 #scope: Default
#[CNode]850
    %4 = %3(%para3)    #(Undefined) #scope: Default
#[CNode]851
    Primitive::Return{prim_type=1}(%4)    #(Undefined) #scope: Default
#[CNode]852
}
# order:
#   1: 254_129_1_construct_wrapper.905:equiv[CNode]843{[0]: ValueNode<Primitive> Load, [1]: conv1.weight, [2]: U}
#   2: 254_129_1_construct_wrapper.905:equivoutput{[0]: ValueNode<PrimitivePy> Conv2D, [1]: inputs0, [2]: equiv[CNode]843}


switch_input: 1
# [No.2] head.906

funcgraph fg_906[fg_905](
        %para4 : Tensor(F32)[32, 6, 28, 28]    # h
        , %para5    # f
    ) {
    %1 = Primitive::ReLU{prim_type=1}(%para4)    #(Tensor(F32)[32, 6, 28, 28]) #scope: Default/relu-ReLU
#[CNode]860
    Primitive::Return{prim_type=1}(%1)    #(Undefined) #scope: Default
#[CNode]861
}


# num of total function graphs: 2)";

TEST(DatParser, ReadsEveryPartOfAGraph) {
  ASSERT_TRUE(looks_like_dat_text(kDat));
  auto m = parse_dat_text(kDat);
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_TRUE(m->warnings.empty()) << warnings_of(*m);
  EXPECT_EQ(m->style, Style::Dat);
  EXPECT_EQ(style_name(m->style), ".dat (1.x)");
  EXPECT_EQ(m->entry, "254_129_1_construct_wrapper.905");
  EXPECT_EQ(m->declared_graphs, 2u);
  EXPECT_FALSE(m->failure);

  // Parameters, numbered across the file, named from their comments.
  ASSERT_EQ(m->params.size(), 5u);
  EXPECT_EQ(m->params[0].number, 1u);
  EXPECT_EQ(m->params[0].name, "inputs0");
  EXPECT_EQ(m->params[0].type, "Tensor(F32)[32, 1, 32, 32]");
  EXPECT_EQ(m->params[0].line, 4u);
  EXPECT_EQ(m->params[1].name, "conv1.weight");
  EXPECT_EQ(m->params[1].type, "Ref[Tensor(F32)][6, 1, 5, 5]");
  EXPECT_EQ(m->params[2].name, "u");
  EXPECT_EQ(m->params[2].type, "");
  EXPECT_EQ(m->params[3].number, 4u);
  EXPECT_EQ(m->params[3].name, "h");

  ASSERT_EQ(m->graphs.size(), 2u);
  const Graph& g = m->graphs[0];
  EXPECT_EQ(g.name, "254_129_1_construct_wrapper.905");
  EXPECT_EQ(g.parent, "");
  EXPECT_EQ(g.location,
            "/usr/mindspore/nn/wrap/cell_wrapper.py(360)/    def construct(self, *inputs):/");
  EXPECT_EQ(g.line, 3u);
  EXPECT_EQ(g.params,
            (std::vector<std::string>{"%para1_inputs0", "%para2_conv1.weight", "%para3_u"}));
  ASSERT_EQ(g.nodes.size(), 5u);

  const Node& load = g.nodes[0];
  EXPECT_EQ(load.number, 1u);
  EXPECT_EQ(load.op, "Load");
  EXPECT_EQ(load.op_kind, Node::OpKind::Primitive);
  EXPECT_EQ(load.name, "equiv[CNode]843");
  EXPECT_EQ(load.output_type, "Tensor(F32)[6, 1, 5, 5]");
  EXPECT_EQ(load.input_types, (std::vector<std::string>{"Ref[Tensor(F32)][6, 1, 5, 5]", "UMonad"}));
  EXPECT_EQ(load.scope, "Default");
  EXPECT_TRUE(load.attrs.empty());
  ASSERT_EQ(load.inputs.size(), 2u);
  EXPECT_EQ(load.inputs[0].kind, Input::Kind::Parameter);
  EXPECT_EQ(load.inputs[0].text, "%para2");
  EXPECT_EQ(load.inputs[0].target, "para2_conv1.weight");
  EXPECT_EQ(load.inputs[1].kind, Input::Kind::Value);
  EXPECT_EQ(load.inputs[1].text, "UMonad[U]");
  EXPECT_EQ(load.line, 8u);

  const Node& conv = g.nodes[1];
  EXPECT_EQ(conv.op, "Conv2D");
  EXPECT_EQ(conv.name, "equivoutput");
  EXPECT_EQ(conv.attrs,
            (std::vector<std::pair<std::string, std::string>>{
                {"primitive_attrs", "kernel_size=(I64(5), I64(5)), pad_mode=same, group=I64(1)"}}));
  EXPECT_EQ(conv.source,
            (std::vector<std::string>{"/home/用户/lenet.py(41)/        x = self.conv1(x)/"}));
  EXPECT_EQ(conv.scope, "Default/conv1-Conv2d/Conv2D-op0");
  ASSERT_EQ(conv.inputs.size(), 2u);
  EXPECT_EQ(conv.inputs[1].kind, Input::Kind::Node);
  EXPECT_EQ(conv.inputs[1].node, 1u);

  // A call through FuncGraph::fg_906, a graph operand, a call through a local closure.
  const Node& call = g.nodes[2];
  EXPECT_EQ(call.op_kind, Node::OpKind::Call);
  EXPECT_EQ(call.callee, "head.906");
  EXPECT_EQ(call.output_type, "");
  ASSERT_EQ(call.inputs.size(), 2u);
  EXPECT_EQ(call.inputs[1].kind, Input::Kind::Graph);
  EXPECT_EQ(call.inputs[1].graph, "✓branch.907");  // only named by the "# fg_907=" comment
  EXPECT_EQ(call.comments, (std::vector<std::string>{"# fg_906=head.906, fg_907=✓branch.907"}));
  const Node& local = g.nodes[3];
  EXPECT_EQ(local.op_kind, Node::OpKind::Local);
  EXPECT_EQ(local.op_node, 3u);
  EXPECT_EQ(local.inputs[0].target, "para3_u");

  const Node& ret = g.nodes[4];
  EXPECT_TRUE(ret.is_return);
  EXPECT_FALSE(ret.number);
  EXPECT_EQ(ret.op, "Return");
  EXPECT_EQ(ret.name, "[CNode]852");
  EXPECT_EQ(ret.inputs[0].node, 4u);

  const Graph& head = m->graphs[1];
  EXPECT_EQ(head.name, "head.906");
  EXPECT_EQ(head.parent, "254_129_1_construct_wrapper.905");
  EXPECT_EQ(head.location, "");
  EXPECT_EQ(head.params, (std::vector<std::string>{"%para4_h", "%para5_f"}));
  ASSERT_EQ(head.nodes.size(), 2u);
  EXPECT_EQ(head.nodes[0].scope, "Default/relu-ReLU");
  for (const Graph& each : m->graphs)
    for (const Node& n : each.nodes) EXPECT_FALSE(n.marker);
}

// 1.x analyze_fail.dat: titles with the context address, markers, the "#===" rule and trailer.
constexpr std::string_view kAnalyzeFail = R"(# [No.1] construct_wrapper.21 @ctx.addr=0x5601c3a0
# In file net.py(44)/    def construct(self, x):/
funcgraph fg_21(
        %para1 : Tensor(F32)[2]    # x
    ) {

#------------------------> 0
    %1 = FuncGraph::fg_22(%para1)    #(Tensor(F32)[2])    # fg_22=construct.22(@ctx.addr=0x5601c7f0) #scope: Default @ctx.addr=0x5601c7f0
      # In file net.py(45)/        return self.head(x)/
    Primitive::Return{prim_type=1}(%1)    #(Undefined) #scope: Default

}


# [No.2] construct.22 @ctx.addr=0x5601c7f0

funcgraph fg_22[fg_21](
        %para2 : Tensor(F32)[2]    # y
    ) {

#------------------------> 1
    %1 = Primitive::MatMul{prim_type=1}(%para2, %para1)    #(Tensor(F32)[2], Tensor(F32)[2]) #scope: Default/MatMul-op3

    Primitive::Return{prim_type=1}(%1)    #(Undefined) #scope: Default

}


#===============================================================================
# num of function graphs in stack: 2
)";

TEST(DatParser, ReadsAnalyzeFailDat) {
  auto m = parse_dat_text(kAnalyzeFail);
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_TRUE(m->warnings.empty()) << warnings_of(*m);
  ASSERT_TRUE(m->failure);
  EXPECT_EQ(m->failure->graphs_in_stack, 2u);
  EXPECT_EQ(m->failure->line, 29u);  // the "#===" rule
  EXPECT_EQ(m->failure->exception, "");
  ASSERT_EQ(m->graphs.size(), 2u);
  EXPECT_EQ(m->graphs[0].name, "construct_wrapper.21");
  EXPECT_EQ(m->graphs[0].instance, "0x5601c3a0");
  EXPECT_EQ(m->graphs[1].instance, "0x5601c7f0");
  EXPECT_EQ(m->graphs[1].parent, "construct_wrapper.21");
  EXPECT_EQ(m->graphs[0].nodes[0].marker, 0u);
  EXPECT_EQ(m->graphs[0].nodes[0].callee, "construct.22");
  EXPECT_EQ(m->graphs[0].nodes[0].scope, "Default");
  EXPECT_EQ(m->graphs[0].nodes[0].source,
            (std::vector<std::string>{"net.py(45)/        return self.head(x)/"}));
  EXPECT_FALSE(m->graphs[0].nodes[1].marker);
  EXPECT_EQ(m->graphs[1].nodes[0].marker, 1u);
  EXPECT_EQ(m->graphs[1].nodes[0].op, "MatMul");
  // %para1 of the enclosing graph, used by the nested one.
  EXPECT_EQ(m->graphs[1].nodes[0].inputs[1].target, "para1_x");
}

// Without the stack count, the graphs before the "#===" rule are the stack.
TEST(DatParser, TheRuleSplitsStackGraphsFromTheOthers) {
  std::string text(kAnalyzeFail);
  text.replace(
      text.find("# num of function graphs in stack: 2"), 36,
      "# [No.3] other.23\n\nfuncgraph fg_23(\n) {\n    Primitive::Return{prim_type=1}(I64(1))"
      "    #(I64) #scope: Default\n\n}\n\n\n# num of total function graphs: 3");
  auto m = parse_dat_text(text);
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_TRUE(m->warnings.empty()) << warnings_of(*m);
  ASSERT_TRUE(m->failure);
  EXPECT_EQ(m->failure->graphs_in_stack, 2u);
  EXPECT_EQ(m->declared_graphs, 3u);
  ASSERT_EQ(m->graphs.size(), 3u);
  EXPECT_TRUE(m->graphs[2].params.empty());
  EXPECT_TRUE(m->graphs[2].nodes[0].is_return);
}

std::string read_example(const std::string& example) {
  std::string why, text, command;
  fs::path examples = msdt::testing::mkfixture_examples(why);
  fs::path mkfixture = msdt::testing::mkfixture_program(why);
  if (examples.empty() || mkfixture.empty()) return {};
  EXPECT_TRUE(msdt::testing::mkfixture_output(mkfixture, examples / example, "", text, command))
      << command;
  return text;
}

TEST(DatParser, ReadsTheLenetExample) {
  std::string text = read_example("lenet_dat.json");
  if (text.empty()) GTEST_SKIP() << "run under ctest with mkfixture built";
  auto m = parse_dat_text(text);
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_TRUE(m->warnings.empty()) << warnings_of(*m);
  EXPECT_EQ(m->declared_graphs, 2u);
  ASSERT_EQ(m->graphs.size(), 2u);
  EXPECT_EQ(m->graphs[0].name, "254_129_1_construct_wrapper.905");
  EXPECT_EQ(m->graphs[1].parent, "254_129_1_construct_wrapper.905");
  ASSERT_EQ(m->graphs[0].nodes.size(), 8u);
  ASSERT_EQ(m->params.size(), 5u);
  EXPECT_EQ(m->params[3].name, "u");
  EXPECT_EQ(m->params[4].name, "h");
  const Node& conv = m->graphs[0].nodes[1];
  EXPECT_EQ(conv.op, "Conv2D");
  EXPECT_EQ(conv.name, "equivoutput");
  EXPECT_EQ(conv.output_type, "Tensor(F32)[32, 6, 28, 28]");
  EXPECT_EQ(conv.input_types,
            (std::vector<std::string>{"Tensor(F32)[32, 1, 32, 32]", "Tensor(F32)[6, 1, 5, 5]"}));
  EXPECT_EQ(conv.source,
            (std::vector<std::string>{"/home/user/lenet.py(41)/        x = self.conv1(x)/"}));
  EXPECT_EQ(conv.scope, "Default/conv1-Conv2d/Conv2D-op0");
  EXPECT_EQ(m->graphs[0].nodes[0].name, "equiv[CNode]843");
  EXPECT_EQ(m->graphs[0].nodes[6].callee, "1_head.906");
  EXPECT_EQ(m->graphs[0].nodes[5].attrs[0].second, "transpose_a=Bool(0), transpose_b=Bool(1)");
  EXPECT_TRUE(m->graphs[0].nodes[7].is_return);
  EXPECT_EQ(m->graphs[1].nodes[0].inputs[0].target, "para5_h");
}

TEST(DatParser, ReadsTheAnalyzeFailExample) {
  std::string text = read_example("analyze_fail_dat.json");
  if (text.empty()) GTEST_SKIP() << "run under ctest with mkfixture built";
  auto m = parse_dat_text(text);
  ASSERT_TRUE(m) << m.error().describe();
  EXPECT_TRUE(m->warnings.empty()) << warnings_of(*m);
  ASSERT_TRUE(m->failure);
  EXPECT_EQ(m->failure->graphs_in_stack, 2u);
  ASSERT_EQ(m->graphs.size(), 2u);
  EXPECT_EQ(m->graphs[0].instance, "0x5601c3a0");
  EXPECT_EQ(m->graphs[0].nodes[0].marker, 0u);
  EXPECT_EQ(m->graphs[1].nodes[1].marker, 1u);
  EXPECT_EQ(m->graphs[1].nodes[1].op, "MatMul");
  EXPECT_EQ(m->graphs[1].nodes[0].inputs[0].target, "para2_fc1.weight");
}

TEST(DatParser, ErrorsHaveTheirLineAndColumn) {
  struct Case {
    std::string_view replace, with, error;
  };
  const Case cases[] = {
      {"(%para2, UMonad[U])", "(%para2, (UMonad[U])",
       "line 8: column 64: unbalanced brackets in the operands (truncated line?)"},
      {"[kernel_size=(I64(5)", "[kernel_size=((I64(5)",
       "line 10: column 71: unbalanced brackets in the attributes (truncated line?)"},
      {"%3 = FuncGraph", "%1 = FuncGraph",
       "line 12: %1 is defined twice in graph "
       "@254_129_1_construct_wrapper.905"},
      {"funcgraph fg_906[fg_905](", "funcgraph fg_906[fg_905(",
       "line 27: column 17: unclosed '[' of the parent graph"},
      {"funcgraph fg_905(", "funcgraph 905(",
       "line 3: column 11: expected 'fg_<id>' after "
       "'funcgraph'"},
      {"    ) {\n    %1 = Primitive::ReLU", "    ]\n    %1 = Primitive::ReLU",
       "line 30: expected a parameter line '%paraN : <type>    # name' or ') {', found ']'"},
      {"%4 = %3(%para3)", "%4 %3(%para3)",
       "line 14: column 7: expected ' = ' after %4 (or brackets unbalanced in its type)"},
      {"Primitive::Return{prim_type=1}(%4)", "Primitive::Return{prim_type=1}",
       "line 16: column 35: expected '(' and the operands"},
  };
  for (const Case& c : cases) {
    std::string text(kDat);
    size_t at = text.find(c.replace);
    ASSERT_NE(at, std::string::npos) << c.replace;
    text.replace(at, c.replace.size(), c.with);
    auto m = parse_dat_text(text);
    ASSERT_FALSE(m) << c.replace;
    EXPECT_EQ(m.error().describe(), c.error) << c.replace;
  }
}

TEST(DatParser, TruncatedFilesAreErrorsOrModulesNeverCrashes) {
  const std::string full(kDat);
  for (size_t n = 0; n <= full.size(); ++n) {
    auto m = parse_dat_text(std::string_view(full).substr(0, n));
    if (!m) continue;
    for (const Graph& g : m->graphs) EXPECT_FALSE(g.name.empty()) << n;
  }
  auto m = parse_dat_text(full.substr(0, full.find("#[CNode]850")));
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().describe(),
            "line 3: graph @254_129_1_construct_wrapper.905 (fg_905) is not closed by '}' "
            "(truncated file?)");
}

TEST(DatParser, DamageTheGraphSurvivesIsAWarning) {
  std::string text(kAnalyzeFail);
  text.replace(text.find("#------------------------> 1"), 28, "#------------------------> one");
  text.replace(
      text.find(
          "    Primitive::Return{prim_type=1}(%1)    #(Undefined) #scope: Default\n\n}\n\n\n#==="),
      0, "#------------------------> 2\n");
  text.replace(text.find("(%para2, %para1)"), 16, "(%para2, %para9, %7)");
  text.insert(0, "garbage line\n");
  text.replace(text.find("# num of function"), 0, "# num of total function graphs: 5\n");
  auto m = parse_dat_text(text);
  ASSERT_TRUE(m) << m.error().describe();
  // The marker that is no number is dropped; the next one marks the Return.
  EXPECT_EQ(warnings_of(*m),
            "line 1: skipped a line outside any graph: 'garbage line'\n"
            "line 22: a marker line whose depth is not a number: '#------------------------> one'\n"
            "line 23: %para9 is not a parameter of any graph\n"
            "line 23: %7 is not defined in graph @construct.22\n"
            "the file declares 5 function graphs, it has 2\n");
  ASSERT_EQ(m->graphs.size(), 2u);
  EXPECT_FALSE(m->graphs[1].nodes[0].marker);
  EXPECT_EQ(m->graphs[1].nodes[1].marker, 2u);
  EXPECT_TRUE(m->graphs[1].nodes[1].is_return);
}

TEST(DatParser, InvalidUtf8AndManyUnknownLinesAreCappedWarnings) {
  std::string text = "\xff\xfe junk\n";
  for (int i = 0; i < 500; ++i) text += "junk " + std::to_string(i) + "\n";
  text += kDat;
  auto m = parse_dat_text(text);
  ASSERT_TRUE(m) << m.error().describe();
  ASSERT_EQ(m->warnings.size(), 100u);
  EXPECT_EQ(m->warnings[0].describe(),
            "line 1: column 1: invalid UTF-8 (byte 0xff); kept as written, later lines are not "
            "checked");
  EXPECT_EQ(m->warnings[1].describe(),
            "line 1: skipped a line outside any graph: '\\xff\\xfe junk'");
  EXPECT_EQ(m->graphs.size(), 2u);
}

TEST(DatParser, RejectsWhatIsNotDat) {
  EXPECT_FALSE(looks_like_dat_text("# IR entry: @g\nsubgraph @g() {\n}\n"));
  auto m = parse_dat_text("# IR entry: @g\n");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().describe(),
            "not a .dat graph file: no '# [No.' title and no 'funcgraph fg_' line");
  auto empty = parse_dat_text("# [No.1] g.1\n");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().describe(), "not a .dat graph file: no 'funcgraph fg_<id>(' line");
}

}  // namespace
}  // namespace msdt::ir
