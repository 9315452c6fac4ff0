// Single-tensor detail mode (compare spec §8.3, §12.5; detail.h): --tensor parsing, finding the
// row an op names (and the errors that list what the op has), and the files write_detail makes:
// CSVs split at max_line, the summary's ranges and top-N lists (non-finite errors ranked last),
// '-' error cells for bool tensors, the heatmap. Trees are written into a temporary directory.
#include "compare/detail.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/temp_tree.h"
#include "tensor/npy.h"

namespace msdt::compare {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

template <class T>
std::string bytes_of(const std::vector<T>& values) {
  std::string out(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// --- --tensor -----------------------------------------------------------------------------------

TEST(ParseTensorSpec, InputOrOutputAndASlot) {
  DetailOptions o;
  ASSERT_FALSE(parse_tensor_spec("input:3", o));
  EXPECT_EQ(o.io, dump::Io::Input);
  EXPECT_EQ(o.slot, 3u);
  ASSERT_FALSE(parse_tensor_spec("output:0", o));
  EXPECT_EQ(o.io, dump::Io::Output);
  EXPECT_EQ(o.slot, 0u);
  for (const char* bad : {"out:0", "input:", "input", "input:x", "input:1x", "input:-1", ":0",
                          "Output:0", "output:99999999999"}) {
    Status s = parse_tensor_spec(bad, o);
    ASSERT_TRUE(s) << bad;
    EXPECT_EQ(s->describe(), fmt::format("expected input:N or output:N, not '{}'", bad));
  }
}

// --- trees --------------------------------------------------------------------------------------

class Detail : public msdt::testing::TempTreeTest {
 protected:
  Detail() : TempTreeTest("msdt-detail-") {}

  // {side}/rank_0/Net/0/0/{type}.{name}.0.0.{ts}.{io}.{slot}.DefaultFormat.{dtype}.npy
  template <class T>
  void npy(const std::string& side, const std::string& name, const std::string& io, int slot,
           uint64_t ts, DType dtype, const std::vector<T>& values,
           std::vector<uint64_t> shape = {}) const {
    if (shape.empty()) shape = {values.size()};
    write(fmt::format("{}/rank_0/Net/0/0/Op.{}.0.0.{}.{}.{}.DefaultFormat.{}.npy", side, name, ts,
                      io, slot, dtype_name(dtype)),
          make_npy_header(dtype, shape) + bytes_of(values));
  }
  void f32(const std::string& side, const std::string& name, const std::string& io, int slot,
           uint64_t ts, const std::vector<float>& values, std::vector<uint64_t> shape = {}) const {
    npy(side, name, io, slot, ts, DType::Float32, values, std::move(shape));
  }

  Pairing pair() const {
    auto result = pair_dumps(input("mine"), input("golden"), {});
    EXPECT_TRUE(result) << result.error().describe();
    return result ? std::move(*result) : Pairing{};
  }

  DetailOptions options(const std::string& op) const {
    DetailOptions o;
    o.op = op;
    o.directory = root_ / "out";
    return o;
  }

  // write_detail on the row `o` names; the written files by name.
  std::vector<std::string> detail(const Pairing& p, const DetailOptions& o) const {
    auto row = find_detail_row(p, o);
    EXPECT_TRUE(row) << row.error().describe();
    if (!row) return {};
    std::vector<fs::path> written;
    auto failed = write_detail(p, *row, o, written);
    EXPECT_FALSE(failed) << failed->file << ": " << failed->error.describe();
    std::vector<std::string> names;
    for (const auto& w : written) names.push_back(w.filename().string());
    return names;
  }
};

// --- find_detail_row ----------------------------------------------------------------------------

TEST_F(Detail, FindsTheRowTheOpNames) {
  for (const char* side : {"mine", "golden"}) {
    f32(side, "Default_Add-op1", "input", 0, 1, {1, 2});
    f32(side, "Default_Add-op1", "output", 0, 2, {3, 4});
    f32(side, "Default_Mul-op2", "output", 0, 3, {5, 6});
    f32(side, "Default_Mul-op2", "output", 0, 4, {7, 8});  // a second occurrence
  }
  f32("mine", "Default_Add-op1", "output", 1, 5, {9});  // my side only
  Pairing p = pair();

  auto expect_row = [&](const DetailOptions& o, const std::string& op, dump::Io io,
                        uint64_t occurrence) {
    auto row = find_detail_row(p, o);
    ASSERT_TRUE(row) << row.error().describe();
    const PairRow& r = p.rows.at(*row);
    ASSERT_TRUE(r.mine && r.golden);
    EXPECT_EQ(r.mine->op_name, op);
    EXPECT_EQ(r.mine->io, io);
    EXPECT_EQ(r.mine->occurrence, occurrence);
  };
  // As dumped, or with '/' (key spelling); output 0 by default.
  expect_row(options("Default_Add-op1"), "Default_Add-op1", dump::Io::Output, 0);
  expect_row(options("Default/Add-op1"), "Default_Add-op1", dump::Io::Output, 0);
  DetailOptions in = options("Default/Add-op1");
  in.io = dump::Io::Input;
  expect_row(in, "Default_Add-op1", dump::Io::Input, 0);
  DetailOptions second = options("Default_Mul-op2");
  second.occurrence = 1;
  expect_row(second, "Default_Mul-op2", dump::Io::Output, 1);

  auto error = [&](const DetailOptions& o) {
    auto row = find_detail_row(p, o);
    return row ? std::string("found row ") + std::to_string(*row) : row.error().describe();
  };
  EXPECT_EQ(error(options("Nope-op9")), "no op named 'Nope-op9' in either dump");
  DetailOptions input5 = options("Default_Add-op1");
  input5.io = dump::Io::Input;
  input5.slot = 5;
  EXPECT_EQ(error(input5),
            "op 'Default_Add-op1' has no input 5; it has input 0, output 0, output 1");
  DetailOptions third = options("Default_Mul-op2");
  third.occurrence = 2;
  EXPECT_EQ(error(third), "op 'Default_Mul-op2' has no output 0 #3; it has output 0, output 0 #2");
  DetailOptions one_side = options("Default_Add-op1");
  one_side.slot = 1;
  // ("only in the my dump" today, "only in my dump" elsewhere: either reads as my side.)
  EXPECT_THAT(error(one_side), HasSubstr("output 1 of op 'Default_Add-op1' is only in "));
  EXPECT_THAT(error(one_side), HasSubstr("my dump: nothing to compare"));
}

// --- write_detail -------------------------------------------------------------------------------

TEST_F(Detail, CsvSplitAtMaxLine) {
  std::vector<float> golden, mine;
  for (int i = 0; i < 12; ++i) {
    golden.push_back(float(i + 1));
    mine.push_back(float(i + 1) + (i == 7 ? 0.5f : 0.0f));
  }
  f32("mine", "Default_Conv2D-op1", "output", 0, 1, mine, {1, 2, 2, 3});
  f32("golden", "Default_Conv2D-op1", "output", 0, 1, golden, {1, 2, 2, 3});
  Pairing p = pair();

  DetailOptions o = options("Default/Conv2D-op1");
  o.max_line = 5;
  EXPECT_EQ(detail(p, o),
            (std::vector<std::string>{
                "Default_Conv2D-op1_output_0_0.csv", "Default_Conv2D-op1_output_0_1.csv",
                "Default_Conv2D-op1_output_0_2.csv", "Default_Conv2D-op1_output_0_summary.txt"}));
  const std::string header = "Index,N,C,H,W,NPUDump,GroundTruth,AbsoluteError,RelativeError";
  std::vector<size_t> sizes;
  uint64_t next = 0;
  for (int n = 0; n < 3; ++n) {
    auto lines = lines_of(read(o.directory / fmt::format("Default_Conv2D-op1_output_0_{}.csv", n)));
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines[0], header);
    sizes.push_back(lines.size() - 1);
    for (size_t l = 1; l < lines.size(); ++l)
      EXPECT_EQ(lines[l].substr(0, lines[l].find(',')), std::to_string(next++));
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{5, 5, 2}));
  // Element 7 is (0, 1, 0, 1): 8.5 against 8, values '%.6f' and a tab.
  auto second = lines_of(read(o.directory / "Default_Conv2D-op1_output_0_1.csv"));
  EXPECT_EQ(second[3], "7,0,1,0,1,8.500000\t,8.000000\t,0.500000\t,0.062500\t");

  // A count that divides evenly makes no empty file; one file when it all fits.
  fs::remove_all(o.directory);
  o.max_line = 4;
  EXPECT_EQ(detail(p, o).size(), 4u);
  fs::remove_all(o.directory);
  o.max_line = 12;
  EXPECT_EQ(detail(p, o), (std::vector<std::string>{"Default_Conv2D-op1_output_0_0.csv",
                                                    "Default_Conv2D-op1_output_0_summary.txt"}));
  EXPECT_EQ(lines_of(read(o.directory / "Default_Conv2D-op1_output_0_0.csv")).size(), 13u);
}

TEST_F(Detail, SummaryTopNByErrorNonFiniteLast) {
  // abs = [0, 0.5, 1, 0, 5, NaN], rel = [0, 0.2, 0.5, 0, Inf (golden 0), NaN].
  f32("mine", "Sub-op1", "output", 0, 1, {1, 2, 3, 4, 5, kNan});
  f32("golden", "Sub-op1", "output", 0, 1, {1, 2.5, 2, 4, 0, 5});
  Pairing p = pair();

  DetailOptions o = options("Sub-op1");
  o.top = 3;
  detail(p, o);
  auto summary = lines_of(read(o.directory / "Sub-op1_output_0_summary.txt"));
  ASSERT_GE(summary.size(), 13u);
  EXPECT_THAT(summary[0], HasSubstr("NPUDump: "));
  EXPECT_THAT(summary[1], HasSubstr("GroundTruth: "));
  EXPECT_EQ(summary[2], "Tensor: Sub-op1 output 0, shape 6, 6 elements");
  EXPECT_EQ(summary[3], "AbsoluteError: min 0.000000, max 5.000000");
  EXPECT_EQ(summary[4], "RelativeError: min 0.000000, max 0.500000");
  // The first column of each ranked line is the element index.
  auto indices = [&](size_t first, size_t count) {
    std::vector<std::string> out;
    for (size_t i = first; i < first + count; ++i)
      out.push_back(summary[i].substr(0, summary[i].find(' ')));
    return out;
  };
  EXPECT_EQ(summary[5], "Top 3 by AbsoluteError:");
  EXPECT_EQ(indices(7, 3), (std::vector<std::string>{"4", "2", "1"}));
  EXPECT_EQ(summary[10], "Top 3 by RelativeError:");
  EXPECT_EQ(indices(12, 3), (std::vector<std::string>{"2", "1", "0"}));  // ties by index

  // More places than elements: every element, the non-finite errors last, in index order.
  fs::remove_all(o.directory);
  o.top = 10;
  detail(p, o);
  summary = lines_of(read(o.directory / "Sub-op1_output_0_summary.txt"));
  EXPECT_EQ(summary[5], "Top 6 by AbsoluteError:");
  EXPECT_EQ(indices(7, 6), (std::vector<std::string>{"4", "2", "1", "0", "3", "5"}));
  EXPECT_EQ(summary[13], "Top 6 by RelativeError:");
  EXPECT_EQ(indices(15, 6), (std::vector<std::string>{"2", "1", "0", "3", "4", "5"}));
  // Non-finite errors are '-' in the summary and the CSV.
  EXPECT_THAT(summary[15 + 4], ::testing::EndsWith("-"));
  auto csv = lines_of(read(o.directory / "Sub-op1_output_0_0.csv"));
  ASSERT_EQ(csv.size(), 7u);
  EXPECT_EQ(csv[5], "4,4,5.000000\t,0.000000\t,5.000000\t,-");
  EXPECT_EQ(csv[6], "5,5,nan\t,5.000000\t,-,-");
}

TEST_F(Detail, BoolTensorsHaveNoErrors) {
  npy<uint8_t>("mine", "Equal-op1", "output", 0, 1, DType::Bool, {1, 0, 1});
  npy<uint8_t>("golden", "Equal-op1", "output", 0, 1, DType::Bool, {1, 1, 1});
  Pairing p = pair();
  DetailOptions o = options("Equal-op1");
  detail(p, o);
  auto csv = lines_of(read(o.directory / "Equal-op1_output_0_0.csv"));
  EXPECT_EQ(csv, (std::vector<std::string>{
                     "Index,D0,NPUDump,GroundTruth,AbsoluteError,RelativeError",
                     "0,0,1.000000\t,1.000000\t,-,-", "1,1,0.000000\t,1.000000\t,-,-",
                     "2,2,1.000000\t,1.000000\t,-,-"}));
  auto summary = lines_of(read(o.directory / "Equal-op1_output_0_summary.txt"));
  ASSERT_EQ(summary.size(), 7u);
  EXPECT_EQ(summary[3], "AbsoluteError: - (bool)");
  EXPECT_EQ(summary[4], "RelativeError: - (bool)");
  EXPECT_EQ(summary[5], "Top 0 by AbsoluteError:");
  EXPECT_EQ(summary[6], "Top 0 by RelativeError:");
}

TEST_F(Detail, OccurrenceCastAndHeatmap) {
  f32("mine", "Add-op1", "output", 0, 1, {1, 2});
  f32("golden", "Add-op1", "output", 0, 1, {1, 2});
  npy<double>("mine", "Add-op1", "output", 0, 2, DType::Float64, {1.00000001, 2, 3, 4}, {2, 2});
  npy<double>("golden", "Add-op1", "output", 0, 2, DType::Float64, {1, 2, 3, 4}, {2, 2});
  Pairing p = pair();
  DetailOptions o = options("Add-op1");
  o.occurrence = 1;
  o.png = root_ / "out" / "heat.png";
  EXPECT_EQ(detail(p, o), (std::vector<std::string>{"Add-op1_output_0_2_0.csv",
                                                    "Add-op1_output_0_2_summary.txt", "heat.png"}));
  auto csv = lines_of(read(o.directory / "Add-op1_output_0_2_0.csv"));
  ASSERT_EQ(csv.size(), 5u);
  EXPECT_EQ(csv[0], "Index,D0,D1,NPUDump,GroundTruth,AbsoluteError,RelativeError");
  EXPECT_EQ(csv[1], "0,0,0,1.000000\t,1.000000\t,0.000000\t,0.000000\t");
  std::string png = read(*o.png);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(png.size(), 100u);

  // The element difference is 1e-8: in the summary's 6 decimals it shows only in the ranking of
  // the double values; msaccucmp's float32 cast makes it exactly 0.
  auto summary = lines_of(read(o.directory / "Add-op1_output_0_2_summary.txt"));
  fs::remove_all(o.directory);
  o.png.reset();
  o.cast_float32 = true;
  o.top = 1;
  detail(p, o);
  auto cast = lines_of(read(o.directory / "Add-op1_output_0_2_summary.txt"));
  EXPECT_EQ(summary[3], "AbsoluteError: min 0.000000, max 0.000000");
  EXPECT_EQ(summary[7].substr(0, 2), "0 ");  // element 0 ranks first by its 1e-8
  EXPECT_EQ(cast[7].substr(0, 2), "0 ");     // all 0: index order
}

TEST_F(Detail, WriteDetailErrors) {
  f32("mine", "Concat-op1", "output", 0, 1, {1, 2, 3});
  f32("golden", "Concat-op1", "output", 0, 1, {1, 2, 3, 4});
  Pairing p = pair();
  DetailOptions o = options("Concat-op1");
  auto row = find_detail_row(p, o);
  ASSERT_TRUE(row);
  std::vector<fs::path> written;
  auto failed = write_detail(p, *row, o, written);
  ASSERT_TRUE(failed);
  EXPECT_FALSE(failed->output);  // an input problem, named by my file
  EXPECT_NE(failed->file.find("Concat-op1"), std::string::npos);
  EXPECT_EQ(failed->error.describe(),
            "my tensor has 3 elements and the golden one 4: the sizes differ");
  EXPECT_TRUE(written.empty());
}

}  // namespace
}  // namespace msdt::compare
