// --diff: nodes paired by fullname with scope, then by structure; added, removed and changed
// nodes marked on B; op-count changes for --diff --stats.
#include "ir/diff.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/text_parser.h"

namespace msdt::ir {
namespace {

using ::testing::HasSubstr;

// Two passes of one graph: the second fuses MatMul + Add into a Dense (removing both), changes
// ReLU's output type, keeps Cast (paired by structure: it has no fullname) and adds a Print.
constexpr std::string_view kBefore = R"(# IR entry: @g_1
# Total params: 1
# Params:
%para1_x: <Tensor[Float32], (2, 3)> : [2, 3]

subgraph @g_1() {
  %0(CNode_1) = MatMul(%para1_x, %para1_x)
      : (<Tensor[Float32], (2, 3)>, <Tensor[Float32], (2, 3)>) -> (<Tensor[Float32], (2, 3)>)
      # Fullname with scope: (Default/MatMul-op0)
  %1(CNode_2) = Add(%0, F32(1))
      : (<Tensor[Float32], (2, 3)>, <Float32, NoShape>) -> (<Tensor[Float32], (2, 3)>)
      # Fullname with scope: (Default/Add-op1)
  %2(CNode_3) = ReLU(%1)
      : (<Tensor[Float32], (2, 3)>) -> (<Tensor[Float32], (2, 3)>)
      # Fullname with scope: (Default/ReLU-op2)
  %3(CNode_4) = Cast(%2, F16)
      : (<Tensor[Float32], (2, 3)>, <TypeType, NoShape>) -> (<Tensor[Float16], (2, 3)>)
  Return(%3)
      : (<Tensor[Float16], (2, 3)>)
}
)";

constexpr std::string_view kAfter = R"(# IR entry: @g_1
# Total params: 1
# Params:
%para1_x: <Tensor[Float32], (2, 3)> : [2, 3]

subgraph @g_1() {
  %0(CNode_9) = Dense(%para1_x, %para1_x, F32(1))
      : (<Tensor[Float32], (2, 3)>, <Tensor[Float32], (2, 3)>, <Float32, NoShape>) -> (<Tensor[Float32], (2, 3)>)
      # Fullname with scope: (Default/Dense-op7)
  %1(CNode_3) = ReLU(%0)
      : (<Tensor[Float32], (2, 3)>) -> (<Tensor[Float16], (2, 3)>)
      # Fullname with scope: (Default/ReLU-op2)
  %2(CNode_4) = Cast(%1, F16)
      : (<Tensor[Float16], (2, 3)>, <TypeType, NoShape>) -> (<Tensor[Float16], (2, 3)>)
  %3(CNode_5) = Print(%2)
      : (<Tensor[Float16], (2, 3)>) -> (<Tensor[Float16], (2, 3)>)
  Return(%3)
      : (<Tensor[Float16], (2, 3)>)
}
)";

Module parse(std::string_view text) {
  auto m = parse_ir_text(text);
  EXPECT_TRUE(m) << m.error().describe();
  return m ? std::move(*m) : Module{};
}

TEST(Diff, PairsByFullnameThenStructureAndMarksB) {
  Module a = parse(kBefore), b = parse(kAfter);
  DiffResult d = diff_modules(a, b);
  using S = DiffMarks::Status;
  ASSERT_EQ(d.marks.status.size(), 1u);
  // Dense added, ReLU changed, Cast the same, Print added, Return changed (its input is Print).
  EXPECT_EQ(d.marks.status[0],
            (std::vector<S>{S::Added, S::Changed, S::Same, S::Added, S::Changed}));
  EXPECT_EQ(d.marks.why_changed[0][1], "inputs, type Float32[2,3] -> Float16[2,3]");
  // Cast's input is ReLU, paired: only the type its input carries differs, not what it is.
  EXPECT_EQ(d.marks.why_changed[0][2], "");
  EXPECT_EQ(d.marks.why_changed[0][4], "inputs");
  EXPECT_EQ(d.added, 2u);
  EXPECT_EQ(d.removed, 2u);
  EXPECT_EQ(d.changed, 2u);
  EXPECT_EQ(d.same, 1u);
  ASSERT_EQ(d.marks.removed.size(), 2u);
  EXPECT_EQ(d.marks.removed[0].node->op, "MatMul");
  EXPECT_EQ(d.marks.removed[1].node->op, "Add");
}

TEST(Diff, OpCountChanges) {
  DiffResult d = diff_modules(parse(kBefore), parse(kAfter));
  using T = std::tuple<std::string, uint64_t, uint64_t>;
  EXPECT_EQ(d.op_changes,
            (std::vector<T>{{"Add", 1, 0}, {"Dense", 0, 1}, {"MatMul", 1, 0}, {"Print", 0, 1}}));
  std::string text = diff_stats_text(d);
  EXPECT_THAT(text, HasSubstr("added    2\n"));
  EXPECT_THAT(text, HasSubstr("Dense   0       1      +1\n"));
}

TEST(Diff, AGraphAgainstItselfIsUnchanged) {
  Module a = parse(kBefore), b = parse(kBefore);
  DiffResult d = diff_modules(a, b);
  EXPECT_EQ(d.same, 5u);
  EXPECT_EQ(d.added + d.removed + d.changed, 0u);
  EXPECT_TRUE(d.op_changes.empty());
}

TEST(Diff, DrawingMarksAddedGreenChangedOrangeRemovedDashedRed) {
  Module a = parse(kBefore), b = parse(kAfter);
  DiffResult d = diff_modules(a, b);
  auto dot = draw_dot(b, DrawOptions{}, &d.marks);
  ASSERT_TRUE(dot) << dot.error().describe();
  EXPECT_THAT(*dot, HasSubstr("\"g_1:%0\" [label=\"Dense\\nF32(1)\""));
  EXPECT_THAT(*dot, HasSubstr("color=\"#2ca02c\", penwidth=3, tooltip=\"added: %0(CNode_9)"));
  EXPECT_THAT(*dot, HasSubstr("color=\"#ff7f0e\", penwidth=3, tooltip=\"changed (inputs, type "
                              "Float32[2,3] -> Float16[2,3]): %1(CNode_3)"));
  EXPECT_THAT(*dot, HasSubstr("\"removed:g_1:%0\" [label=\"MatMul\""));
  EXPECT_THAT(*dot, HasSubstr("\"removed:g_1:%1\" [label=\"Add\""));
  EXPECT_THAT(*dot, HasSubstr("style=\"dashed,filled\", color=\"#d62728\""));
}

}  // namespace
}  // namespace msdt::ir
