// The comparison of two dumps (compare spec §12; run.h): run_compare over pairings that pair_dumps
// makes of small trees written into a temporary directory by the test (npy files, DumpData
// containers through support/ascend_dump_writer.h, statistic.csv text). Rows come in pairing order
// whatever the number of workers and the read-ahead window; unmatched rows are judged without
// reading; an unreadable file skips its row and is one diagnostics error; a device-format tensor
// is compared in its host layout and original shape; statistic.csv rows give statistics-only rows.
#include "compare/run.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/report.h"
#include "support/ascend_dump_writer.h"
#include "support/temp_tree.h"
#include "tensor/npy.h"

namespace msdt::compare {
namespace {

namespace fs = std::filesystem;

// Every row handed on, in order.
class Collect final : public CompareListener {
 public:
  void row(const ComparedRow& r) override { rows.push_back(r); }
  std::vector<ComparedRow> rows;
};

// IEEE half bits of a small integer (exact for 0 and 1..2048).
uint16_t half_of(unsigned n) {
  if (n == 0) return 0;
  unsigned e = 0;
  while ((2u << e) <= n) ++e;
  return static_cast<uint16_t>(((e + 15) << 10) | ((n - (1u << e)) << (10 - e)));
}

template <class T>
std::string bytes_of(const std::vector<T>& values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

constexpr const char* kStatisticHeader =
    "Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape,Max Value,"
    "Min Value,Avg Value,Count,Negative Zero Count,Positive Zero Count,NaN Count,Negative Inf "
    "Count,Positive Inf Count,Zero Count,L2Norm Value\n";

class RunCompare : public msdt::testing::TempTreeTest {
 protected:
  RunCompare() : TempTreeTest("msdt-run-") {}

  // {top}/rank_{rank}/Net/0/0/{type}.{name}.0.0.{ts}.{io}.{slot}.DefaultFormat.float32.npy
  std::string npy_path(const std::string& top, const std::string& type, const std::string& name,
                       const std::string& io, int slot, uint64_t ts, int rank = 0) const {
    return fmt::format("{}/rank_{}/Net/0/0/{}.{}.0.0.{}.{}.{}.DefaultFormat.float32.npy", top, rank,
                       type, name, ts, io, slot);
  }
  void npy(const std::string& relative, const std::vector<float>& values,
           std::vector<uint64_t> shape = {}) const {
    if (shape.empty()) shape = {values.size()};
    write(relative, make_npy_header(DType::Float32, shape) + bytes_of(values));
  }
};

Pairing pair(const std::string& mine, const std::string& golden, const PairOptions& options = {}) {
  auto result = pair_dumps(mine, golden, options);
  EXPECT_TRUE(result) << result.error().describe();
  if (!result) return {};
  return std::move(*result);
}

std::vector<ComparedRow> run(const Pairing& pairing, const CompareOptions& options,
                             Diagnostics& diagnostics, const std::vector<size_t>& wanted = {}) {
  Collect collect;
  run_compare(pairing, options, wanted, collect, diagnostics);
  return collect.rows;
}

std::vector<ComparedRow> run(const Pairing& pairing, const CompareOptions& options = {}) {
  std::ostringstream err;
  Diagnostics diagnostics("dump-compare", err);
  auto rows = run(pairing, options, diagnostics);
  EXPECT_EQ(err.str(), "");
  return rows;
}

// What a row says, for comparing runs: index, verdict, why and the metrics that decide.
std::string describe(const ComparedRow& r) {
  std::string out =
      fmt::format("{} {} '{}'", r.index, verdict_name(r.verdict.verdict), r.verdict.why);
  if (r.metrics) {
    const PairMetrics& m = *r.metrics;
    out += fmt::format(
        " cos {} mae {} compared {}",
        m.mp_cosine.value ? fmt::format("{:.17g}", *m.mp_cosine.value) : "-",
        m.mp_max_abs_err.value ? fmt::format("{:.17g}", *m.mp_max_abs_err.value) : "-", m.compared);
  }
  return out;
}

// --- order and parallelism ----------------------------------------------------------------------

TEST_F(RunCompare, RowsInPairingOrderWhateverTheJobsAndWindow) {
  // 16 ops with an input and an output each, an execution order that runs them in the reverse of
  // their timestamps, errors injected at a few outputs, and one unmatched tensor per side.
  std::vector<std::string> order{"NodeExecutionOrder-FullNameWithScope"};
  for (int k = 0; k < 16; ++k) {
    std::string name = fmt::format("Default_Op-op{}", k);
    order.insert(order.begin() + 1, fmt::format("Default/Op-op{}", k));
    std::vector<float> in{float(k), float(k + 1), float(k + 2), float(k + 3)};
    std::vector<float> out{float(2 * k), float(k), 1.0f, -float(k)};
    npy(npy_path("golden", "Op", name, "input", 0, 1000 + 2 * k), in);
    npy(npy_path("golden", "Op", name, "output", 0, 1001 + 2 * k), out);
    npy(npy_path("mine", "Op", name, "input", 0, 2000 + 2 * k), in);
    if (k % 5 == 3) out[1] += 2.5f * float(k);  // an error
    if (k % 7 == 2) out[2] += 0.01f;            // a warning
    npy(npy_path("mine", "Op", name, "output", 0, 2001 + 2 * k), out);
  }
  std::string order_text;
  for (const auto& line : order) order_text += line + "\n";
  write("golden/rank_0/execution_order/ms_execution_order_graph_0.csv", order_text);
  write("mine/rank_0/execution_order/ms_execution_order_graph_0.csv", order_text);
  npy(npy_path("mine", "Cast", "Default_Cast-op99", "output", 0, 9000), {1, 2});
  npy(npy_path("golden", "Gather", "Default_Gather-op98", "output", 0, 9000), {1, 2});

  Pairing pairing = pair(input("mine"), input("golden"));
  ASSERT_EQ(pairing.rows.size(), 34u);

  CompareOptions one;
  std::vector<ComparedRow> reference = run(pairing, one);
  ASSERT_EQ(reference.size(), pairing.rows.size());
  for (size_t i = 0; i < reference.size(); ++i) {
    EXPECT_EQ(reference[i].index, i);
    EXPECT_EQ(reference[i].pair, &pairing.rows[i]);
  }
  // Execution order first: op 15 ran first.
  ASSERT_TRUE(reference[0].pair->mine);
  EXPECT_EQ(reference[0].pair->mine->op_name, "Default_Op-op15");
  EXPECT_EQ(reference[0].pair->mine->io, dump::Io::Input);
  EXPECT_EQ(reference[1].pair->mine->io, dump::Io::Output);
  EXPECT_EQ(reference[32].verdict.verdict, Verdict::Unmatched);
  EXPECT_EQ(reference[33].verdict.verdict, Verdict::Unmatched);
  size_t errors = 0, warnings = 0;
  for (const auto& r : reference) {
    errors += r.verdict.verdict == Verdict::Error;
    warnings += r.verdict.verdict == Verdict::Warning;
  }
  EXPECT_EQ(errors, 3u);    // ops 3, 8, 13
  EXPECT_EQ(warnings, 2u);  // ops 2 and 9
  std::vector<std::string> want;
  for (const auto& r : reference) want.push_back(describe(r));

  for (auto [jobs, window] : {std::pair<unsigned, size_t>{4, 0}, {4, 1}, {3, 2}, {2, 64}}) {
    CompareOptions options;
    options.jobs = jobs;
    options.window = window;
    std::vector<std::string> got;
    for (const auto& r : run(pairing, options)) got.push_back(describe(r));
    EXPECT_EQ(got, want) << "jobs " << jobs << ", window " << window;
  }
}

TEST_F(RunCompare, WantedRowsOnlyInOrder) {
  for (int k = 0; k < 5; ++k) {
    std::string name = fmt::format("Add-op{}", k);
    npy(npy_path("mine", "Add", name, "output", 0, 10 + k), {float(k), 1});
    npy(npy_path("golden", "Add", name, "output", 0, 10 + k), {float(k), 1});
  }
  Pairing pairing = pair(input("mine"), input("golden"));
  ASSERT_EQ(pairing.rows.size(), 5u);
  std::ostringstream err;
  Diagnostics diagnostics("dump-compare", err);
  CompareOptions options;
  options.jobs = 3;
  auto rows = run(pairing, options, diagnostics, {1, 3, 4});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].index, 1u);
  EXPECT_EQ(rows[1].index, 3u);
  EXPECT_EQ(rows[2].index, 4u);
  EXPECT_EQ(rows[1].pair->mine->op_name, "Add-op3");
}

TEST_F(RunCompare, RowsInRanks) {
  for (int rank : {0, 1, 2}) {
    npy(npy_path("mine", "Add", "Add-op1", "output", 0, 10, rank), {1, 2});
    npy(npy_path("golden", "Add", "Add-op1", "output", 0, 10, rank), {1, 2});
  }
  Pairing pairing = pair(input("mine"), input("golden"));
  ASSERT_EQ(pairing.rows.size(), 3u);
  auto ids = dump::parse_id_list("0,2");
  ASSERT_TRUE(ids);
  std::vector<size_t> wanted = rows_in_ranks(pairing, *ids);
  ASSERT_EQ(wanted.size(), 2u);
  for (size_t i : wanted) {
    const auto& key = pairing.groups.at(pairing.rows[i].group).key;
    ASSERT_TRUE(key.rank);
    EXPECT_NE(*key.rank, 1u);
  }
  auto none = dump::parse_id_list("7");
  ASSERT_TRUE(none);
  EXPECT_TRUE(rows_in_ranks(pairing, *none).empty());
  // Two single files have no rank: their row is kept whatever the ranks.
  npy("a/Add.Add-op1.0.0.1.output.0.DefaultFormat.float32.npy", {1});
  npy("b/Add.Add-op1.0.0.1.output.0.DefaultFormat.float32.npy", {1});
  Pairing files = pair(input("a/Add.Add-op1.0.0.1.output.0.DefaultFormat.float32.npy"),
                       input("b/Add.Add-op1.0.0.1.output.0.DefaultFormat.float32.npy"));
  EXPECT_EQ(rows_in_ranks(files, *none).size(), 1u);
}

// --- unmatched and unreadable -------------------------------------------------------------------

TEST_F(RunCompare, UnmatchedRowsAreJudgedWithoutReading) {
  npy(npy_path("mine", "Add", "Add-op1", "output", 0, 10), {1, 2});
  npy(npy_path("golden", "Add", "Add-op1", "output", 0, 10), {1, 2});
  // Damaged bytes that are never read: an unmatched row does not open its file.
  write(npy_path("mine", "Cast", "Cast-op2", "output", 0, 11), "not an npy file");
  npy(npy_path("golden", "Mul", "Mul-op3", "output", 0, 12), {3});

  Pairing pairing = pair(input("mine"), input("golden"));
  auto rows = run(pairing);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].verdict.verdict, Verdict::Pass);

  const ComparedRow& mine_only = rows[1];
  EXPECT_EQ(mine_only.verdict.verdict, Verdict::Unmatched);
  EXPECT_EQ(mine_only.verdict.why, "only in my dump");
  EXPECT_FALSE(mine_only.metrics);
  EXPECT_FALSE(mine_only.problem);
  EXPECT_EQ(fs::path(mine_only.mine.file).filename(),
            fs::path(npy_path("mine", "Cast", "Cast-op2", "output", 0, 11)).filename());
  EXPECT_EQ(mine_only.mine.source, "tensor");
  EXPECT_TRUE(mine_only.golden.file.empty());

  const ComparedRow& golden_only = rows[2];
  EXPECT_EQ(golden_only.verdict.verdict, Verdict::Unmatched);
  EXPECT_EQ(golden_only.verdict.why, "only in the golden dump");
  EXPECT_FALSE(golden_only.metrics);
  EXPECT_TRUE(golden_only.mine.file.empty());
  EXPECT_NE(golden_only.golden.file.find("Mul.Mul-op3"), std::string::npos);
}

TEST_F(RunCompare, UnreadableFileSkipsItsRowAndIsOneError) {
  npy(npy_path("mine", "Add", "Add-op1", "output", 0, 10), {1, 2, 3, 4});
  npy(npy_path("golden", "Add", "Add-op1", "output", 0, 10), {1, 2, 3, 4});
  npy(npy_path("mine", "Mul", "Mul-op2", "output", 0, 11), {1, 2, 3, 4});
  // Golden's Mul-op2: the header says 4 elements, the file holds 2 (cut at offset 0x88).
  std::vector<uint64_t> four{4};
  write(npy_path("golden", "Mul", "Mul-op2", "output", 0, 11),
        make_npy_header(DType::Float32, four) + bytes_of(std::vector<float>{1, 2}));
  npy(npy_path("mine", "Sub", "Sub-op3", "output", 0, 12), {5, 6});
  npy(npy_path("golden", "Sub", "Sub-op3", "output", 0, 12), {5, 6});

  Pairing pairing = pair(input("mine"), input("golden"));
  std::ostringstream err;
  Diagnostics diagnostics("dump-compare", err);
  CompareOptions options;
  options.jobs = 2;
  auto rows = run(pairing, options, diagnostics);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].verdict.verdict, Verdict::Pass);
  EXPECT_EQ(rows[2].verdict.verdict, Verdict::Pass);

  const ComparedRow& bad = rows[1];
  EXPECT_EQ(bad.verdict.verdict, Verdict::Skipped);
  ASSERT_TRUE(bad.problem);
  EXPECT_EQ(bad.verdict.why, *bad.problem);
  EXPECT_EQ(bad.problem->rfind("golden side unreadable: offset 0x80: ", 0), 0u) << *bad.problem;
  EXPECT_FALSE(bad.metrics);
  // The readable side is still described.
  EXPECT_EQ(bad.mine.dtype, DType::Float32);
  EXPECT_EQ(bad.mine.shape, std::vector<uint64_t>{4});

  EXPECT_EQ(diagnostics.error_count(), 1u);
  const std::string golden_file = pairing.golden.files.at(bad.pair->golden->file).display;
  EXPECT_EQ(err.str(),
            fmt::format("dump-compare: error: '{}': offset 0x80: npy data is shorter than the "
                        "header says: expected 16 bytes, found 8\n",
                        golden_file));
}

TEST_F(RunCompare, BothSidesUnreadableNameBoth) {
  write(npy_path("mine", "Add", "Add-op1", "output", 0, 10), "\x93NUMPY garbage");
  write(npy_path("golden", "Add", "Add-op1", "output", 0, 10), "\x93NUMPY garbage");
  Pairing pairing = pair(input("mine"), input("golden"));
  std::ostringstream err;
  Diagnostics diagnostics("dump-compare", err);
  auto rows = run(pairing, {}, diagnostics);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].verdict.verdict, Verdict::Skipped);
  ASSERT_TRUE(rows[0].problem);
  EXPECT_EQ(rows[0].problem->rfind("my side unreadable: ", 0), 0u) << *rows[0].problem;
  EXPECT_NE(rows[0].problem->find("; golden side unreadable: "), std::string::npos);
  EXPECT_EQ(diagnostics.error_count(), 2u);
}

TEST_F(RunCompare, ReportProblemsNamesTheSide) {
  npy(npy_path("mine", "Add", "Add-op1", "output", 0, 10), {1});
  npy(npy_path("golden", "Add", "Add-op1", "output", 0, 10), {1});
  write("mine/rank_0/Net/0/0/Conv2D.Default_Conv2D-op1.2.7.1716000000000001", std::string(3, 'x'));
  write("golden/rank_0/Net/0/0/notes.txt", "not a dump");
  Pairing pairing = pair(input("mine"), input("golden"));
  ASSERT_EQ(pairing.problems.size(), 2u);
  std::ostringstream err;
  Diagnostics diagnostics("dump-compare", err);
  report_problems(pairing, diagnostics);
  EXPECT_EQ(diagnostics.error_count(), 1u);  // the damaged container; the unknown file warns
  std::string text = err.str();
  EXPECT_NE(text.find("dump-compare: error: '" + input("mine") +
                      "/rank_0/Net/0/0/Conv2D.Default_Conv2D-op1.2.7.1716000000000001': "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("my dump: "), std::string::npos) << text;
  EXPECT_NE(text.find("dump-compare: warning: '" + input("golden") +
                      "/rank_0/Net/0/0/notes.txt': golden dump: unknown file"),
            std::string::npos)
      << text;
}

// --- device formats -----------------------------------------------------------------------------

TEST_F(RunCompare, DumpDataNc1hwc0ComparedInHostShape) {
  // Golden: NCHW float16 [1, 3, 2, 2] holding 1..12. Mine: a DumpData container whose output 0
  // is NC1HWC0 [1, 1, 2, 2, 16] with original_shape [1, 3, 2, 2]: (n, c1, h, w, c0) holds NCHW
  // (n, c1 * 16 + c0, h, w), channels 3..15 zero.
  std::vector<uint16_t> nchw;
  for (unsigned v = 1; v <= 12; ++v) nchw.push_back(half_of(v));
  std::vector<uint64_t> host{1, 3, 2, 2};
  write(
      "golden/rank_0/Net/0/0/Conv2D.Default_Conv2D-op1.0.0.1717000000000002.output.0."
      "DefaultFormat.float16.npy",
      make_npy_header(DType::Float16, host) + bytes_of(nchw));
  std::vector<uint16_t> device(64, 0);
  for (unsigned c = 0; c < 3; ++c)
    for (unsigned h = 0; h < 2; ++h)
      for (unsigned w = 0; w < 2; ++w) device[(h * 2 + w) * 16 + c] = nchw[c * 4 + h * 2 + w];
  msdt::testing::AscendDumpSpec spec;
  spec.op_name = "Default/Conv2D-op1";
  spec.dump_time = 1716000000000001;
  msdt::testing::AscendTensorSpec out;
  out.data_type = 2;  // DT_FLOAT16
  out.format = 3;     // NC1HWC0
  out.shape = {1, 1, 2, 2, 16};
  out.original_shape = host;
  out.address = 0x12c1000;
  std::string payload = bytes_of(device);
  out.payload.resize(payload.size());
  std::memcpy(out.payload.data(), payload.data(), payload.size());
  spec.outputs.push_back(out);
  std::vector<std::byte> container = msdt::testing::write_ascend_dump(spec);
  write("mine/rank_0/Net/0/0/Conv2D.Default_Conv2D-op1.2.7.1716000000000001",
        std::string(reinterpret_cast<const char*>(container.data()), container.size()));

  Pairing pairing = pair(input("mine"), input("golden"));
  ASSERT_EQ(pairing.rows.size(), 1u);
  ASSERT_TRUE(pairing.rows[0].mine && pairing.rows[0].golden);
  EXPECT_EQ(pairing.rows[0].mine->source, TensorRef::Source::ContainerSlot);

  auto rows = run(pairing);
  ASSERT_EQ(rows.size(), 1u);
  const ComparedRow& r = rows[0];
  EXPECT_EQ(r.verdict.verdict, Verdict::Pass) << r.verdict.why;
  EXPECT_EQ(r.mine.format, "NC1HWC0");
  EXPECT_EQ(r.golden.format, "");
  EXPECT_EQ(r.mine.shape, host);
  EXPECT_EQ(r.golden.shape, host);
  EXPECT_EQ(r.mine.dtype, DType::Float16);
  EXPECT_EQ(r.mine.address, 0x12c1000u);
  EXPECT_FALSE(r.golden.address);
  ASSERT_TRUE(r.metrics);
  EXPECT_EQ(r.metrics->compared, 12u);
  EXPECT_EQ(r.metrics->my.count, 12u);
  EXPECT_TRUE(r.metrics->shapes_equal);
  ASSERT_TRUE(r.metrics->mp_max_abs_err.value);
  EXPECT_EQ(*r.metrics->mp_max_abs_err.value, 0.0);
  ASSERT_TRUE(r.metrics->mp_cosine.value);
  EXPECT_NEAR(*r.metrics->mp_cosine.value, 1.0, 1e-15);

  // load_tensor gives the same host view: element (0, 2, 1, 1) of NCHW is 12.
  auto loaded = load_tensor(pairing.mine, *pairing.rows[0].mine);
  ASSERT_TRUE(loaded) << loaded.error().describe();
  ASSERT_TRUE(loaded->view);
  EXPECT_EQ(loaded->view->shape, host);
  EXPECT_EQ(loaded->side.format, "NC1HWC0");
  ASSERT_EQ(loaded->view->data.size(), 24u);
  uint16_t last = 0;
  std::memcpy(&last, loaded->view->data.data() + 22, 2);
  EXPECT_EQ(last, half_of(12));
}

// --- statistics ---------------------------------------------------------------------------------

TEST_F(RunCompare, StatisticRowsAreStatisticsOnly) {
  write("mine/rank_0/Net/0/0/statistic.csv",
        std::string(kStatisticHeader) +
            "Conv2D,Default_Conv2D-op1,0,0,1716000000000002,output,0,32,float32,\"(2,4)\",7,-3,"
            "0.5,8,0,0,0,0,0,0,10,\n"
            "ReLU,Default_ReLU-op2,0,0,1716000000000003,output,0,32,float32,\"(2,4)\",16,0,2,8,"
            "0,4,0,0,0,4,20,\n");
  write("golden/rank_0/Net/0/0/statistic.csv",
        std::string(kStatisticHeader) +
            "Conv2D,Default_Conv2D-op1,0,0,1717000000000002,output,0,32,float32,\"(2,4)\",7,-3,"
            "0.5,8,0,0,0,0,0,0,10,\n"
            "ReLU,Default_ReLU-op2,0,0,1717000000000003,output,0,32,float32,\"(2,4)\",7,0,2,8,0,"
            "4,0,0,0,4,12,\n");
  // Iteration 1: my tensor against golden's row; statistics of the tensor [7, 0, 7, 0].
  write(
      "mine/rank_0/Net/0/1/MaxPool.Default_MaxPool-op3.0.0.1716000000000014.output.0."
      "DefaultFormat.float32.npy",
      make_npy_header(DType::Float32, std::vector<uint64_t>{2, 2}) +
          bytes_of(std::vector<float>{7, 0, 7, 0}));
  write("golden/rank_0/Net/0/1/statistic.csv",
        std::string(kStatisticHeader) +
            "MaxPool,Default_MaxPool-op3,0,0,1717000000000014,output,0,16,float32,\"(2,2)\",7,0,"
            "3.5,4,0,2,0,0,0,2,8,\n");

  Pairing pairing = pair(input("mine"), input("golden"));
  ASSERT_EQ(pairing.rows.size(), 3u);
  EXPECT_EQ(pairing.rows[0].mine->source, TensorRef::Source::StatisticRow);
  auto rows = run(pairing);
  ASSERT_EQ(rows.size(), 3u);

  for (const ComparedRow& r : rows) {
    ASSERT_TRUE(r.metrics);
    EXPECT_EQ(r.metrics->pair_reason, Reason::StatisticsOnly);
    EXPECT_FALSE(r.metrics->mp_cosine.value);
    EXPECT_EQ(r.metrics->mp_cosine.reason, Reason::StatisticsOnly);
    EXPECT_EQ(r.metrics->compared, 0u);
    EXPECT_EQ(r.golden.source, "statistic.csv");
  }
  EXPECT_EQ(rows[0].mine.source, "statistic.csv");
  EXPECT_EQ(rows[0].mine.shape, (std::vector<uint64_t>{2, 4}));
  EXPECT_EQ(rows[0].verdict.verdict, Verdict::Pass) << rows[0].verdict.why;
  ASSERT_TRUE(rows[0].metrics->mean_my.value);
  EXPECT_EQ(*rows[0].metrics->mean_my.value, 0.5);

  // ReLU-op2: max 16 against 7 differs by more than half its magnitude (msprobe's warning).
  const ComparedRow& relu = rows[1];
  EXPECT_EQ(relu.verdict.verdict, Verdict::Warning);
  EXPECT_EQ(relu.verdict.why, "a statistic differs by more than half its magnitude");
  ASSERT_TRUE(relu.metrics->statistics.max.diff.value);
  EXPECT_EQ(*relu.metrics->statistics.max.diff.value, 9.0);
  EXPECT_TRUE(relu.metrics->statistics.max.large);
  EXPECT_FALSE(relu.metrics->statistics.min.relative.value);  // golden min 0
  EXPECT_EQ(relu.metrics->statistics.min.relative.reason, Reason::ZeroGoldenStatistic);
  EXPECT_EQ(relu.metrics->my.zero, 4u);

  // MaxPool-op3: my side is a tensor, its statistics computed: l2norm sqrt(98) against 8.
  const ComparedRow& pool = rows[2];
  EXPECT_EQ(pool.mine.source, "tensor");
  EXPECT_EQ(pool.verdict.verdict, Verdict::Pass) << pool.verdict.why;
  ASSERT_TRUE(pool.metrics->statistics.l2norm.diff.value);
  EXPECT_NEAR(*pool.metrics->statistics.l2norm.diff.value, std::sqrt(98.0) - 8.0, 1e-12);
  EXPECT_EQ(pool.metrics->my.count, 4u);
  EXPECT_EQ(pool.metrics->my.zero, 2u);
}

// --- thresholds of a row ------------------------------------------------------------------------

TEST(RowThresholds, PresetByGoldenDtypeThenSettingsThenMagnitude) {
  CompareOptions options;
  Thresholds t = row_thresholds(options, DType::Float32, false);
  ASSERT_TRUE(t.bound(ThresholdMetric::Cosine));
  EXPECT_EQ(*t.bound(ThresholdMetric::Cosine), (Bound{0.99, 0.9}));
  EXPECT_FALSE(t.magnitude_warning);
  EXPECT_TRUE(row_thresholds(options, DType::Float32, true).magnitude_warning);
  // No golden dtype: the preset's float32 thresholds.
  EXPECT_EQ(row_thresholds(options, std::nullopt, false).bounds, t.bounds);

  options.preset = Preset::Dtype;
  Thresholds f16 = row_thresholds(options, DType::Float16, false);
  Thresholds f32 = row_thresholds(options, DType::Float32, false);
  ASSERT_TRUE(f16.bound(ThresholdMetric::MeanRelativeError));
  ASSERT_TRUE(f32.bound(ThresholdMetric::MeanRelativeError));
  EXPECT_EQ(*f16.bound(ThresholdMetric::MeanRelativeError),
            (Bound{std::ldexp(1.0, -10), std::ldexp(1.0, -8)}));
  EXPECT_EQ(*f32.bound(ThresholdMetric::MeanRelativeError),
            (Bound{std::ldexp(1.0, -20), std::ldexp(1.0, -11)}));

  // Settings apply in order over the preset, whatever the dtype.
  auto first = parse_threshold("MeanRelativeError=0.1,0.2");
  auto second = parse_threshold("MeanRelativeError=0.01,0.5");
  auto off = parse_threshold("Cosine=off");
  ASSERT_TRUE(first && second && off);
  options.thresholds = {*first, *second, *off};
  Thresholds set = row_thresholds(options, DType::Float16, false);
  EXPECT_EQ(*set.bound(ThresholdMetric::MeanRelativeError), (Bound{0.01, 0.5}));
  EXPECT_FALSE(set.bound(ThresholdMetric::Cosine));
}

}  // namespace
}  // namespace msdt::compare
