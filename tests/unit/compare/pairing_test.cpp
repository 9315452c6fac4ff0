// Pairing the tensors of two dumps (compare spec §3.5): the rename file, the name spelling, and
// pairs made over small trees written into a temporary directory (npy headers, 1.2 .bin payloads
// and DumpData containers; pairing reads names and container headers only).
#include "compare/pairing.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "dump/dump_file.h"
#include "io/mapped_file.h"
#include "support/ascend_dump_writer.h"
#include "support/temp_tree.h"
#include "tensor/npy.h"

namespace msdt::compare {
namespace {

namespace fs = std::filesystem;

// --- rename file --------------------------------------------------------------------------------

TEST(RenameFile, PairsCommentsBlanksAndQuotes) {
  auto renames = parse_rename_file(
      "\xEF\xBB\xBF# my name, golden name\n"
      "Default_Add-op1,Default_Add-op7\r\n"
      "\n"
      "   # indented comment, with \"quotes\n"
      "  Conv2D-op3 ,\tDefault_network_Conv2D-op3  \n"
      "\"Mul,odd-op2\",Mul-op2");
  ASSERT_TRUE(renames) << renames.error().describe();
  ASSERT_EQ(renames->size(), 3u);
  EXPECT_EQ((*renames)[0].mine, "Default_Add-op1");
  EXPECT_EQ((*renames)[0].golden, "Default_Add-op7");
  EXPECT_EQ((*renames)[0].line, 2u);
  EXPECT_EQ((*renames)[1].mine, "Conv2D-op3");
  EXPECT_EQ((*renames)[1].golden, "Default_network_Conv2D-op3");
  EXPECT_EQ((*renames)[1].line, 5u);
  EXPECT_EQ((*renames)[2].mine, "Mul,odd-op2");
  EXPECT_EQ((*renames)[2].line, 6u);
  auto empty = parse_rename_file("");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(RenameFile, ErrorsNameTheLine) {
  auto describe = [](std::string_view text) {
    auto r = parse_rename_file(text);
    return r ? std::string("accepted") : r.error().describe();
  };
  EXPECT_EQ(describe("a,b\nc\n"), "line 2: expected 2 fields (my name, golden name), found 1");
  EXPECT_EQ(describe("# x\na,b,c\n"), "line 2: expected 2 fields (my name, golden name), found 3");
  EXPECT_EQ(describe("a b\n"), "line 1: expected 2 fields (my name, golden name), found 1");
  EXPECT_EQ(describe(" ,b\n"), "line 1: my name is empty");
  EXPECT_EQ(describe("a,\n"), "line 1: golden name is empty");
  EXPECT_EQ(describe("a,b\n\na,c\n"), "line 3: my name 'a' is already renamed on line 1");
  EXPECT_EQ(describe("a,b\nc,b\n"),
            "line 2: golden name 'b' is already the golden name of 'a' on line 1: two of my ops "
            "would share one key");
  EXPECT_EQ(describe("a,b\n\"c,d\n"),
            "line 2: unterminated quoted field: expected a closing '\"' before the end of the "
            "file");
}

TEST(KeySpelling, EveryEraSpellsOneNodeAlike) {
  const std::string v23 = "Default_network-WithLossCell__backbone-AlexNet_Conv2D-op12";
  EXPECT_EQ(key_spelling("Default--network-WithLossCell--_backbone-AlexNet--Conv2D-op12"), v23);
  EXPECT_EQ(key_spelling("Default/network-WithLossCell/_backbone-AlexNet/Conv2D-op12"), v23);
  EXPECT_EQ(key_spelling(v23), v23);
  EXPECT_EQ(key_spelling("moments.fc3 bias\\x"), "moments_fc3_bias_x");
  EXPECT_EQ(key_spelling("a-b"), "a-b");
}

// --- trees --------------------------------------------------------------------------------------

class PairDumps : public msdt::testing::TempTreeTest {
 protected:
  PairDumps() : TempTreeTest("msdt-pairing-") {}

  // A float32 npy of shape {2}.
  void npy(const std::string& relative) const {
    std::vector<uint64_t> shape{2};
    write(relative, make_npy_header(DType::Float32, shape) + std::string(8, '\0'));
  }

  // A 2.4+ name: {type}.{name}.{task}.{stream}.{ts}.{io}.{slot}.DefaultFormat.float32.npy
  void npy(const std::string& dir, const std::string& type, const std::string& name,
           const std::string& io, int slot, uint64_t ts, int task = 0) const {
    npy(fmt::format("{}/{}.{}.{}.0.{}.{}.{}.DefaultFormat.float32.npy", dir, type, name, task, ts,
                    io, slot));
  }

  // A 1.2 .bin of shape {2}: {kernel}_{io}_{i}_shape_2_Float32_DefaultFormat.bin
  void bin(const std::string& dir, const std::string& kernel, const std::string& io,
           int slot) const {
    write(fmt::format("{}/{}_{}_{}_shape_2_Float32_DefaultFormat.bin", dir, kernel, io, slot),
          std::string(8, '\0'));
  }

  // A DumpData container with `inputs` inputs and `outputs` outputs of shape {2}.
  void container(const std::string& relative, int inputs, int outputs) const {
    msdt::testing::AscendDumpSpec spec;
    spec.op_name = "Default/network-Net/Conv2D-op1";
    msdt::testing::AscendTensorSpec tensor;
    tensor.shape = {2};
    tensor.payload.assign(8, std::byte{0});
    for (int i = 0; i < inputs; ++i) spec.inputs.push_back(tensor);
    for (int i = 0; i < outputs; ++i) spec.outputs.push_back(tensor);
    std::vector<std::byte> bytes = msdt::testing::write_ascend_dump(spec);
    write(relative, std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }

  void execution_order(const std::string& relative, const std::vector<std::string>& names) const {
    std::string text = "NodeExecutionOrder-FullNameWithScope\n";
    for (const auto& n : names) text += n + "\n";
    write(relative, text);
  }

  // A 2.4 tree: rank_0/Net/0/{iteration} with Conv2D (input 0, output 0), Add and ReLU outputs.
  void standard_tree(const std::string& top, int iteration = 0) const {
    std::string dir = fmt::format("{}/rank_0/Net/0/{}", top, iteration);
    npy(dir, "Conv2D", "Default_network-Net_Conv2D-op1", "input", 0, 1);
    npy(dir, "Conv2D", "Default_network-Net_Conv2D-op1", "output", 0, 2);
    npy(dir, "Add", "Default_network-Net_Add-op2", "output", 0, 3);
    npy(dir, "ReLU", "Default_network-Net_ReLU-op3", "output", 0, 4);
  }
};

compare::Pairing pair(const std::string& mine, const std::string& golden,
                      const PairOptions& options = {}) {
  auto result = pair_dumps(mine, golden, options);
  EXPECT_TRUE(result) << result.error().describe();
  if (!result) return {};
  return std::move(*result);
}

// "name io slot #occurrence" of one side of every row, "-" for a missing side.
std::vector<std::string> rows(const compare::Pairing& p, Side side) {
  std::vector<std::string> out;
  for (const PairRow& row : p.rows) {
    const auto& ref = side == Side::Mine ? row.mine : row.golden;
    if (!ref) {
      out.push_back("-");
      continue;
    }
    out.push_back(fmt::format("{} {} {} #{}", ref->op_name, ref->io ? dump::io_name(*ref->io) : "?",
                              ref->slot ? std::to_string(*ref->slot) : "?", ref->occurrence));
  }
  return out;
}

std::vector<std::string> problems(const compare::Pairing& p) {
  std::vector<std::string> out;
  for (const Problem& problem : p.problems)
    out.push_back(fmt::format("{} {}: {}{}", side_name(problem.side),
                              fs::path(problem.file).filename().string(),
                              problem.warning ? "warning: " : "", problem.error.describe()));
  return out;
}

TEST_F(PairDumps, SameTreesPairEveryTensor) {
  standard_tree("a");
  standard_tree("b");
  auto p = pair(input("a"), input("b"));
  EXPECT_EQ(p.counts.pairs, 4u);
  EXPECT_EQ(p.counts.only_mine + p.counts.only_golden, 0u);
  EXPECT_EQ(p.mine.tensors, 4u);
  EXPECT_EQ(p.golden.tensors, 4u);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].key.describe(), "rank 0, net Net, graph 0, iteration 0");
  EXPECT_EQ(rows(p, Side::Mine), rows(p, Side::Golden));
  // No execution order: timestamp order.
  EXPECT_EQ(
      rows(p, Side::Mine),
      (std::vector<std::string>{
          "Default_network-Net_Conv2D-op1 input 0 #0", "Default_network-Net_Conv2D-op1 output 0 #0",
          "Default_network-Net_Add-op2 output 0 #0", "Default_network-Net_ReLU-op3 output 0 #0"}));
  for (const PairRow& row : p.rows) {
    ASSERT_TRUE(row.mine && row.golden);
    EXPECT_EQ(row.mine->source, TensorRef::Source::File);
    EXPECT_EQ(fs::path(p.mine.files[row.mine->file].path).filename(),
              fs::path(p.golden.files[row.golden->file].path).filename());
  }
  EXPECT_TRUE(p.problems.empty()) << ::testing::PrintToString(problems(p));
}

TEST_F(PairDumps, RenameFileAppliesToMySide) {
  standard_tree("a");
  std::string dir = "b/rank_0/Net/0/0";
  npy(dir, "Conv2D", "Default_network-Net_Conv2D-op1", "input", 0, 1);
  npy(dir, "Conv2D", "Default_network-Net_Conv2D-op1", "output", 0, 2);
  npy(dir, "Add", "Default_network-Net_Add-op9", "output", 0, 3);  // numbered differently
  npy(dir, "ReLU", "Default_network-Net_ReLU-op3", "output", 0, 4);

  auto unrenamed = pair(input("a"), input("b"));
  EXPECT_EQ(unrenamed.counts.pairs, 3u);
  EXPECT_EQ(unrenamed.counts.only_mine, 1u);
  EXPECT_EQ(unrenamed.counts.only_golden, 1u);

  PairOptions options;
  // My name as written by a 1.1/1.2 .bin (scope with "--") still finds my 2.4 name.
  auto renames = parse_rename_file("Default--network-Net--Add-op2,Default/network-Net/Add-op9\n");
  ASSERT_TRUE(renames);
  options.renames = *renames;
  auto p = pair(input("a"), input("b"), options);
  EXPECT_EQ(p.counts.pairs, 4u);
  EXPECT_EQ(p.counts.only_mine + p.counts.only_golden, 0u);
  ASSERT_EQ(p.rows.size(), 4u);
  ASSERT_TRUE(p.rows[2].mine && p.rows[2].golden);
  EXPECT_EQ(p.rows[2].mine->op_name, "Default_network-Net_Add-op2");
  EXPECT_EQ(p.rows[2].mine->key_name, "Default_network-Net_Add-op9");
  EXPECT_EQ(p.rows[2].golden->op_name, "Default_network-Net_Add-op9");
}

TEST_F(PairDumps, RepeatedOccurrencesAreNumberedInTimestampOrder) {
  // Files are named so that name order differs from timestamp order.
  npy("a/rank_0/Net/0/0", "Add", "Add-op1", "output", 0, 30);
  npy("a/rank_0/Net/0/0", "Add", "Add-op1", "output", 0, 10);
  npy("a/rank_0/Net/0/0", "Add", "Add-op1", "output", 0, 20);
  npy("b/rank_0/Net/0/0", "Add", "Add-op1", "output", 0, 200);
  npy("b/rank_0/Net/0/0", "Add", "Add-op1", "output", 0, 100);
  auto p = pair(input("a"), input("b"));
  EXPECT_EQ(p.counts.pairs, 2u);
  EXPECT_EQ(p.counts.only_mine, 1u);
  ASSERT_EQ(p.rows.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(p.rows[i].mine);
    EXPECT_EQ(p.rows[i].mine->occurrence, i);
    EXPECT_EQ(p.rows[i].mine->timestamp, 10u * (i + 1));
  }
  EXPECT_EQ(p.rows[0].golden->timestamp, 100u);
  EXPECT_EQ(p.rows[1].golden->timestamp, 200u);
  EXPECT_FALSE(p.rows[2].golden);
}

TEST_F(PairDumps, LastOnlyKeepsTheLastOccurrence) {
  npy("a/rank_0/Net/0/0", "Add", "Add-op1", "output", 0, 10);
  npy("a/rank_0/Net/0/0", "Add", "Add-op1", "output", 0, 30);
  npy("a/rank_0/Net/0/0", "Add", "Add-op1", "output", 0, 20);
  npy("b/rank_0/Net/0/0", "Add", "Add-op1", "output", 0, 100);
  npy("b/rank_0/Net/0/0", "Add", "Add-op1", "output", 0, 200);
  PairOptions options;
  options.last_only = true;
  auto p = pair(input("a"), input("b"), options);
  EXPECT_EQ(p.counts.pairs, 1u);
  EXPECT_EQ(p.counts.only_mine + p.counts.only_golden, 0u);
  EXPECT_EQ(p.counts.superseded_mine, 2u);
  EXPECT_EQ(p.counts.superseded_golden, 1u);
  ASSERT_EQ(p.rows.size(), 1u);
  EXPECT_EQ(p.rows[0].mine->timestamp, 30u);
  EXPECT_EQ(p.rows[0].mine->occurrence, 2u);
  EXPECT_EQ(p.rows[0].golden->timestamp, 200u);
  ASSERT_EQ(p.mine.superseded.size(), 2u);
  EXPECT_EQ(p.mine.superseded[0].timestamp, 10u);
  EXPECT_EQ(p.mine.tensors, 3u);
}

TEST_F(PairDumps, TaskIdIsPartOfTheKeyOnlyWhenAsked) {
  npy("a/rank_0/Net/0/0", "Add", "Add-op1", "output", 0, 10, /*task=*/3);
  npy("b/rank_0/Net/0/0", "Add", "Add-op1", "output", 0, 10, /*task=*/7);
  EXPECT_EQ(pair(input("a"), input("b")).counts.pairs, 1u);
  PairOptions options;
  options.key_task_id = true;
  auto p = pair(input("a"), input("b"), options);
  EXPECT_EQ(p.counts.pairs, 0u);
  EXPECT_EQ(p.counts.only_mine, 1u);
  EXPECT_EQ(p.counts.only_golden, 1u);
}

TEST_F(PairDumps, MissingAndExtraOpsAreListedOnBothSides) {
  std::string a = "a/rank_0/Net/0/0", b = "b/rank_0/Net/0/0";
  npy(a, "Add", "Add-op1", "output", 0, 1);
  npy(a, "Mul", "Mul-op2", "output", 0, 2);  // mine only
  npy(b, "Add", "Add-op1", "output", 0, 1);
  npy(b, "Sub", "Sub-op3", "output", 0, 2);  // golden only
  npy(b, "Sub", "Sub-op3", "input", 1, 1);   // golden only
  auto p = pair(input("a"), input("b"));
  EXPECT_EQ(p.counts.pairs, 1u);
  EXPECT_EQ(p.counts.only_mine, 1u);
  EXPECT_EQ(p.counts.only_golden, 2u);
  EXPECT_EQ(rows(p, Side::Mine),
            (std::vector<std::string>{"Add-op1 output 0 #0", "Mul-op2 output 0 #0", "-", "-"}));
  EXPECT_EQ(rows(p, Side::Golden),
            (std::vector<std::string>{"Add-op1 output 0 #0", "-", "Sub-op3 input 1 #0",
                                      "Sub-op3 output 0 #0"}));
}

TEST_F(PairDumps, DirectoriesOnOneSideAreReportedAndTheirTensorsKept) {
  standard_tree("a", 0);
  standard_tree("a", 1);
  standard_tree("b", 0);
  standard_tree("b", 2);
  npy("b/rank_1/Net/0/0", "Add", "Add-op1", "output", 0, 1);
  auto p = pair(input("a"), input("b"));
  ASSERT_EQ(p.groups.size(), 4u);
  // By iteration, then rank.
  EXPECT_EQ(p.groups[0].key.describe(), "rank 0, net Net, graph 0, iteration 0");
  EXPECT_EQ(p.groups[1].key.describe(), "rank 1, net Net, graph 0, iteration 0");
  EXPECT_EQ(p.groups[2].key.describe(), "rank 0, net Net, graph 0, iteration 1");
  EXPECT_EQ(p.groups[3].key.describe(), "rank 0, net Net, graph 0, iteration 2");
  EXPECT_TRUE(p.groups[1].mine.empty());
  EXPECT_TRUE(p.groups[2].golden.empty());
  EXPECT_TRUE(p.groups[3].mine.empty());
  EXPECT_EQ(p.counts.directories_only_mine, 1u);
  EXPECT_EQ(p.counts.directories_only_golden, 2u);
  EXPECT_EQ(p.counts.pairs, 4u);
  EXPECT_EQ(p.counts.only_mine, 4u);
  EXPECT_EQ(p.counts.only_golden, 5u);
  EXPECT_EQ(p.rows.size(), 13u);
}

TEST_F(PairDumps, IterationDirectoriesPairWhateverTheirPlace) {
  standard_tree("a", 3);
  standard_tree("b", 5);
  npy("b/rank_0/Net/0/6", "Add", "Add-op1", "output", 0, 1);
  auto p = pair(input("a/rank_0/Net/0/3"), input("b/rank_0/Net/0/5"));
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].key.describe(), "the input");
  EXPECT_EQ(p.counts.pairs, 4u);
  // A rank directory against a tree: only the levels below both inputs count (net, graph,
  // iteration), so rank 0 pairs with rank 0 of the tree; iteration 6 is golden only.
  auto q = pair(input("a/rank_0"), input("b"));
  EXPECT_EQ(q.counts.pairs, 0u);
  ASSERT_EQ(q.groups.size(), 3u);
  EXPECT_EQ(q.groups[0].key.describe(), "net Net, graph 0, iteration 3");
}

TEST_F(PairDumps, LegacyBinTreeAgainstRankNpyTree) {
  // 1.2 sync: {net}/device_0/iteration_0/, scope written with "--"; no graph level.
  std::string a = "a/Net/device_0/iteration_0";
  bin(a, "Default--network-Net--Conv2D-op1", "input", 0);
  bin(a, "Default--network-Net--Conv2D-op1", "output", 0);
  bin(a, "Default--network-Net--Add-op2", "output", 0);
  bin(a, "Default--network-Net--Old-op4", "output", 0);
  standard_tree("b");
  auto p = pair(input("a"), input("b"));
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].key.describe(), "rank 0, net Net, iteration 0");
  EXPECT_EQ(p.counts.pairs, 3u);
  EXPECT_EQ(p.counts.only_mine, 1u);
  EXPECT_EQ(p.counts.only_golden, 1u);
  for (const PairRow& row : p.rows)
    if (row.mine && row.golden) {
      EXPECT_EQ(row.mine->key_name, row.golden->key_name);
    }
  // Exact names: nothing pairs.
  PairOptions exact;
  exact.exact_names = true;
  EXPECT_EQ(pair(input("a"), input("b"), exact).counts.pairs, 0u);
}

TEST_F(PairDumps, DumpDataContainerSlotsAgainstNpyFiles) {
  container("a/rank_0/Net/0/0/Conv2D.Default_network-Net_Conv2D-op1.2.7.1612000000000001", 2, 1);
  std::string b = "b/rank_0/Net/0/0";
  npy(b, "Conv2D", "Default_network-Net_Conv2D-op1", "input", 0, 1);
  npy(b, "Conv2D", "Default_network-Net_Conv2D-op1", "input", 1, 2);
  npy(b, "Conv2D", "Default_network-Net_Conv2D-op1", "output", 0, 3);
  npy(b, "Conv2D", "Default_network-Net_Conv2D-op1", "output", 1, 4);
  auto p = pair(input("a"), input("b"));
  EXPECT_EQ(p.mine.tensors, 3u);
  EXPECT_EQ(p.counts.pairs, 3u);
  EXPECT_EQ(p.counts.only_golden, 1u);
  EXPECT_EQ(rows(p, Side::Mine),
            (std::vector<std::string>{"Default_network-Net_Conv2D-op1 input 0 #0",
                                      "Default_network-Net_Conv2D-op1 input 1 #0",
                                      "Default_network-Net_Conv2D-op1 output 0 #0", "-"}));
  // Every slot of the container points into the one file; is_referenced picks it out again.
  const TensorRef& slot1 = *p.rows[1].mine;
  EXPECT_EQ(slot1.source, TensorRef::Source::ContainerSlot);
  EXPECT_EQ(slot1.task_id, 2u);
  EXPECT_EQ(slot1.stream_id, 7u);
  const dump::DumpFile& file = p.mine.files[slot1.file];
  auto mapped = MappedFile::open(file.path);
  ASSERT_TRUE(mapped);
  int hits = 0;
  auto status = dump::read_dump_file(file, mapped->bytes(), [&](const dump::DumpTensor& t) {
    if (is_referenced(slot1, t)) {
      ++hits;
      EXPECT_EQ(t.io, "input");
      EXPECT_EQ(t.slot, 1u);
    }
  });
  EXPECT_FALSE(status);
  EXPECT_EQ(hits, 1);
}

TEST_F(PairDumps, ExecutionOrderOfMySideOrdersTheRows) {
  standard_tree("a");
  standard_tree("b");
  // ReLU ran first, then Conv2D; Add is not listed and follows by timestamp.
  execution_order("a/rank_0/execution_order/ms_execution_order_graph_0.csv",
                  {"Default/network-Net/ReLU-op3", "Default/network-Net/Conv2D-op1"});
  auto p = pair(input("a"), input("b"));
  EXPECT_EQ(rows(p, Side::Mine),
            (std::vector<std::string>{"Default_network-Net_ReLU-op3 output 0 #0",
                                      "Default_network-Net_Conv2D-op1 input 0 #0",
                                      "Default_network-Net_Conv2D-op1 output 0 #0",
                                      "Default_network-Net_Add-op2 output 0 #0"}));
  ASSERT_TRUE(p.rows[0].mine->execution_index);
  EXPECT_EQ(*p.rows[0].mine->execution_index, 0u);
  ASSERT_EQ(p.mine.directories.size(), 1u);
  ASSERT_TRUE(p.mine.directories[0].execution_order);
  EXPECT_TRUE(p.mine.directories[0].execution_order->ends_with(
      "a/rank_0/execution_order/ms_execution_order_graph_0.csv"));
  // Found also when the input is the iteration directory below it.
  auto q = pair(input("a/rank_0/Net/0/0"), input("b/rank_0/Net/0/0"));
  EXPECT_EQ(rows(q, Side::Mine), rows(p, Side::Mine));
  // A malformed execution order is a problem, and the rows fall back to timestamp order.
  write("a/rank_0/execution_order/ms_execution_order_graph_0.csv", "not the header\n");
  auto r = pair(input("a"), input("b"));
  EXPECT_EQ(rows(r, Side::Mine)[0], "Default_network-Net_Conv2D-op1 input 0 #0");
  EXPECT_EQ(problems(r), (std::vector<std::string>{
                             "my ms_execution_order_graph_0.csv: line 1: expected the header "
                             "'NodeExecutionOrder-FullNameWithScope', found 'not the header'"}));
}

TEST_F(PairDumps, TwoSingleFilesPairWhateverTheirNames) {
  npy("a", "Add", "Add-op1", "output", 0, 1);
  npy("b", "Sub", "Default_Sub-op9", "output", 0, 2);
  auto p = pair(input("a/Add.Add-op1.0.0.1.output.0.DefaultFormat.float32.npy"),
                input("b/Sub.Default_Sub-op9.0.0.2.output.0.DefaultFormat.float32.npy"));
  EXPECT_EQ(p.counts.pairs, 1u);
  EXPECT_EQ(p.counts.only_mine + p.counts.only_golden, 0u);
  // A container against one npy: its slots pair by io and slot.
  container("c/Conv2D.Default_network-Net_Conv2D-op1.2.7.1612000000000001", 1, 1);
  auto q = pair(input("c/Conv2D.Default_network-Net_Conv2D-op1.2.7.1612000000000001"),
                input("b/Sub.Default_Sub-op9.0.0.2.output.0.DefaultFormat.float32.npy"));
  EXPECT_EQ(q.counts.pairs, 1u);
  EXPECT_EQ(q.counts.only_mine, 1u);
  ASSERT_TRUE(q.rows[1].mine && q.rows[1].golden);
  EXPECT_EQ(q.rows[1].mine->io, dump::Io::Output);
}

TEST_F(PairDumps, MappedNamesDamagedAndUnknownFiles) {
  standard_tree("a");
  standard_tree("b");
  // An over-long name written as a number and resolved through mapping.csv (dump spec §3.8).
  npy("a/rank_0/Net/0/0/123456.npy");
  write("a/rank_0/Net/0/0/mapping.csv",
        "123456.npy,Mul.Default_network-Net_Mul-op5.0.0.5.output.0.DefaultFormat.float32.npy\n");
  npy("b/rank_0/Net/0/0", "Mul", "Default_network-Net_Mul-op5", "output", 0, 5);
  // A container cut short, and a stranger.
  write("a/rank_0/Net/0/0/Cast.Default_Cast-op8.2.7.1612000000000009", "\x05");
  write("a/rank_0/Net/0/0/notes.txt", "hello");
  auto p = pair(input("a"), input("b"));
  EXPECT_EQ(p.counts.pairs, 5u);
  EXPECT_EQ(p.counts.only_mine + p.counts.only_golden, 0u);
  auto found = problems(p);
  ASSERT_EQ(found.size(), 2u) << ::testing::PrintToString(found);
  EXPECT_TRUE(found[0].starts_with("my Cast.Default_Cast-op8.2.7.1612000000000009: ")) << found[0];
  EXPECT_EQ(found[0].find("warning"), std::string::npos);
  EXPECT_TRUE(found[1].starts_with("my notes.txt: warning: unknown file")) << found[1];
}

TEST_F(PairDumps, StatisticCsvAgainstTensors) {
  // Statistics only on my side (spec §12.1): one tensor per row, paired with the npy files.
  write("a/rank_0/Net/0/0/statistic.csv",
        "Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape,Max Value,"
        "Min Value,L2Norm Value\n"
        "Add,Default_network-Net_Add-op2,0,0,3,output,0,8,float32,\"(2,)\",1,0,1,\n"
        "Add,Default_network-Net_Add-op2,0,0,9,output,0,8,float32,\"(2,)\",1,0,1,\n"
        "ReLU,Default_network-Net_ReLU-op3,0,0,4,output,0,8,float32,\"(2,)\",1,0,1,\n");
  standard_tree("b");
  auto p = pair(input("a"), input("b"));
  EXPECT_EQ(p.mine.tensors, 3u);
  EXPECT_EQ(p.counts.pairs, 2u);
  EXPECT_EQ(p.counts.only_mine, 1u);  // the second Add: occurrence 1
  EXPECT_EQ(p.counts.only_golden, 2u);
  for (const PairRow& row : p.rows) {
    if (!row.mine) continue;
    EXPECT_EQ(row.mine->source, TensorRef::Source::StatisticRow);
    ASSERT_TRUE(row.mine->statistic_line);
  }
  // Beside tensor files statistic.csv repeats them and is not paired.
  write("b/rank_0/Net/0/0/statistic.csv", "Op Type,Op Name\n");
  EXPECT_EQ(pair(input("b"), input("b")).mine.tensors, 4u);
}

TEST_F(PairDumps, MissingInputIsAnErrorNamingTheSide) {
  standard_tree("a");
  auto p = pair_dumps(input("a"), input("nothing"), {});
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().describe(),
            "golden dump '" + input("nothing") + "': cannot open: No such file or directory");
  auto q = pair_dumps(input("nothing"), input("a"), {});
  ASSERT_FALSE(q);
  EXPECT_EQ(q.error().describe(),
            "my dump '" + input("nothing") + "': cannot open: No such file or directory");
}

TEST_F(PairDumps, EmptySideIsAnErrorAndEveryTensorIsUnmatched) {
  standard_tree("a");
  fs::create_directories(path("b"));
  auto p = pair(input("a"), input("b"));
  EXPECT_EQ(p.counts.only_mine, 4u);
  EXPECT_EQ(p.counts.directories_only_mine, 1u);
  EXPECT_EQ(problems(p), (std::vector<std::string>{"golden b: no tensors found in this dump"}));
}

TEST_F(PairDumps, JobsDoNotChangeTheResult) {
  for (int i = 0; i < 12; ++i)
    container(fmt::format("a/rank_0/Net/0/0/Conv2D.Default_network-Net_Conv2D-op{}.2.7.{}", i,
                          1612000000000000 + i),
              1, 2);
  standard_tree("b");
  PairOptions one, four;
  four.jobs = 4;
  auto p = pair(input("a"), input("b"), one);
  auto q = pair(input("a"), input("b"), four);
  EXPECT_EQ(rows(p, Side::Mine), rows(q, Side::Mine));
  EXPECT_EQ(rows(p, Side::Golden), rows(q, Side::Golden));
  EXPECT_EQ(p.mine.tensors, 36u);
  EXPECT_EQ(p.counts.pairs, 2u);  // Conv2D-op1 input 0 and output 0
}

}  // namespace
}  // namespace msdt::compare
