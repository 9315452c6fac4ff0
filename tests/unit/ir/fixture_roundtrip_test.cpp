// The writer of test inputs (mkfixture's `ir` key) and the parser agree: the LeNet-like examples
// in every layout mkfixture writes (styles A, B, C, the RDR order; the 1.3 and 1.4 type
// notations) parse back into the graphs, nodes and parameters the descriptions state.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/text_parser.h"
#include "ir/type_spec.h"
#include "support/mkfixture_runner.h"

namespace msdt::ir {
namespace {

namespace fs = std::filesystem;

class FixtureRoundTrip : public ::testing::TestWithParam<std::pair<const char*, const char*>> {
 protected:
  void SetUp() override {
    std::string why;
    examples_ = msdt::testing::mkfixture_examples(why);
    mkfixture_ = msdt::testing::mkfixture_program(why);
    if (examples_.empty() || mkfixture_.empty()) GTEST_SKIP() << why;
  }

  std::string write(const std::string& example, const std::string& defines) {
    std::string text, command;
    EXPECT_TRUE(
        msdt::testing::mkfixture_output(mkfixture_, examples_ / example, defines, text, command))
        << command;
    return text;
  }

  fs::path mkfixture_, examples_;
};

TEST_P(FixtureRoundTrip, ParsesBackIntoTheDescribedGraphs) {
  auto [example, defines] = GetParam();
  std::string text = write(example, defines);
  ASSERT_FALSE(text.empty());
  auto m = parse_ir_text(text);
  ASSERT_TRUE(m) << defines << ": " << m.error().describe();
  EXPECT_TRUE(m->warnings.empty()) << defines << ": " << m->warnings[0].describe();
  // lenet_ir_{a,c}.json: four graphs (15, 2, 2 and 1 node lines), four parameters.
  ASSERT_EQ(m->graphs.size(), 4u) << defines;
  EXPECT_EQ(m->graphs[0].nodes.size(), 15u);
  EXPECT_EQ(m->graphs[1].nodes.size(), 2u);
  EXPECT_EQ(m->graphs[2].nodes.size(), 2u);
  EXPECT_EQ(m->graphs[3].nodes.size(), 1u);
  ASSERT_EQ(m->params.size(), 4u);
  EXPECT_EQ(m->params[1].name, "conv1.weight");
  EXPECT_EQ(m->entry, m->graphs[0].name);
  EXPECT_TRUE(m->graphs[0].nodes.back().is_return);
  // Every type the file writes reads back as a tensor with a shape, or as a monad.
  TypeSpec weight = parse_type_spec(m->params[1].type);
  EXPECT_EQ(weight.dtype, "Float32") << m->params[1].type;
  ASSERT_TRUE(weight.shape) << m->params[1].type;
  EXPECT_EQ(*weight.shape, (std::vector<int64_t>{6, 1, 5, 5}));
  // The Conv2D node: operator, inputs and the output shape.
  const Node* conv = nullptr;
  for (const Node& n : m->graphs[0].nodes)
    if (n.op == "Conv2D" || n.op == "PrimFunc_Conv2D") conv = &n;
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->inputs.size(), 2u);
  TypeSpec out = parse_type_spec(conv->output_type);
  ASSERT_TRUE(out.shape) << conv->output_type;
  EXPECT_EQ(*out.shape, (std::vector<int64_t>{32, 6, 28, 28}));
  EXPECT_FALSE(conv->source.empty());
}

INSTANTIATE_TEST_SUITE_P(Layouts, FixtureRoundTrip,
                         ::testing::Values(std::pair{"lenet_ir_c.json", ""},
                                           std::pair{"lenet_ir_c.json", "-D STYLE=rdr"},
                                           std::pair{"lenet_ir_c.json",
                                                     "-D STYLE=B -D VERSION=2.1"},
                                           std::pair{"lenet_ir_a.json", ""},
                                           std::pair{"lenet_ir_a.json", "-D VERSION=1.3"},
                                           std::pair{"lenet_ir_a.json", "-D VERSION=1.4"},
                                           std::pair{"lenet_ir_a.json", "-D VERSION=1.6"}));

}  // namespace
}  // namespace msdt::ir
