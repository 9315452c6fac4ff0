// The peers' CSV lines (compare spec §8.1, §8.2, §8.6): headers and whole rows compared as
// strings. Metrics come from compare_tensors on small tensors whose values are worked out by hand
// in the comments.
#include "compare/peer_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/tensor_builder.h"

namespace msdt::compare {
namespace {

using testing::OwnedTensor;
using testing::tensor_of;

OwnedTensor f32(const std::vector<float>& v, std::vector<uint64_t> shape = {}) {
  return tensor_of<float>(DType::Float32, v, std::move(shape));
}

PairMetrics run(const OwnedTensor& my, const OwnedTensor& golden, const MetricOptions& o = {}) {
  auto r = compare_tensors(my.view, golden.view, o);
  EXPECT_TRUE(r) << r.error().describe();
  return r ? *r : PairMetrics{};
}

MsaccucmpColumns npy_columns(Algorithms algorithms = Algorithms::all()) {
  MsaccucmpColumns c;
  c.algorithms = std::move(algorithms);
  c.my_address = c.golden_address = false;
  return c;
}

MsaccucmpRowInfo info(std::vector<uint64_t> shape) {
  MsaccucmpRowInfo row;
  row.index = 3;
  row.op_type = "Add";
  row.my_name = "Default/Add-op1";
  row.golden_name = "Default/Add-op1";
  row.my_dtype = row.golden_dtype = "float32";
  row.tensor_index = "Default/Add-op1:output:0";
  row.shape = std::move(shape);
  row.my_file = "my/Add.npy";
  row.golden_file = "golden/Add.npy";
  return row;
}

TEST(MsaccucmpHeader, AllAlgorithmsAndEveryOptionalColumn) {
  EXPECT_EQ(msaccucmp_header({}),
            "Index,OpType,NPUDump,DataType,Address,GroundTruth,DataType,Address,TensorIndex,Shape,"
            "CosineSimilarity,MaxAbsoluteError,AccumulatedRelativeError,RelativeEuclideanDistance,"
            "KullbackLeiblerDivergence,StandardDeviation,MeanAbsoluteError,RootMeanSquareError,"
            "MaxRelativeError,MeanRelativeError,CompareFailReason");
  MsaccucmpColumns c;
  c.op_sequence = true;
  c.overflow = true;
  c.golden_address = false;  // the golden side is .npy: its Address goes first (§8.1)
  c.algorithms = *Algorithms::parse("4,0");
  EXPECT_EQ(msaccucmp_header(c),
            "Index,OpSequence,OpType,NPUDump,DataType,Address,GroundTruth,DataType,TensorIndex,"
            "Shape,OverFlow,KullbackLeiblerDivergence,CosineSimilarity,CompareFailReason");
}

TEST(MsaccucmpRow, NormalPairWithAllMetrics) {
  // x = (1, 2, 3, 4), y = (1, 2, 3, 5): Σxy = 34, ‖x‖ = √30, ‖y‖ = √39, cos = 34/√1170 = 0.993999;
  // MaxAbs 1; r = (0, 0, 0, 0.2): Accumulated 0.2, Max 0.2, Mean 0.05; RED √(1/39) = 0.160128;
  // MAE 0.25, RMSE 0.5; means 2.5 and 2.75, population std √1.25 = 1.118 and √2.1875 = 1.479.
  auto m = run(f32({1, 2, 3, 4}, {2, 2}), f32({1, 2, 3, 5}, {2, 2}));
  MsaccucmpColumns c;
  c.algorithms = *Algorithms::parse("0,1,2,3,5,6,7,8,9");
  MsaccucmpRowInfo row = info({2, 2});
  row.my_address = "0x1000";
  EXPECT_EQ(msaccucmp_row(row, &m, c),
            "3,Add,Default/Add-op1,float32,0x1000,Default/Add-op1,float32,NaN,"
            "Default/Add-op1:output:0,\"[2,2]\",0.993999,1.000000,0.200000,0.160128,"
            "\"(2.500;1.118),(2.750;1.479)\",0.250000,0.500000,0.200000,0.050000,");
}

TEST(MsaccucmpRow, SubsetInUserOrderWithOverflowAndSequence) {
  auto m = run(f32({1, 2, 3, 4}), f32({1, 2, 3, 5}));
  MsaccucmpColumns c = npy_columns(*Algorithms::parse("MaxAbsoluteError 0"));
  c.op_sequence = true;
  c.overflow = true;
  MsaccucmpRowInfo row = info({4});
  row.op_sequence = 7;
  row.overflow = Overflow::No;
  EXPECT_EQ(msaccucmp_header(c),
            "Index,OpSequence,OpType,NPUDump,DataType,GroundTruth,DataType,TensorIndex,Shape,"
            "OverFlow,MaxAbsoluteError,CosineSimilarity,CompareFailReason");
  EXPECT_EQ(msaccucmp_row(row, &m, c),
            "3,7,Add,Default/Add-op1,float32,Default/Add-op1,float32,Default/Add-op1:output:0,[4],"
            "NO,1.000000,0.993999,");
}

TEST(MsaccucmpRow, UnmatchedOnEachSide) {
  MsaccucmpColumns c = npy_columns(*Algorithms::parse("0,5,1"));
  MsaccucmpRowInfo row = info({4});
  row.golden_name.clear();
  EXPECT_EQ(msaccucmp_row(row, nullptr, c),
            "3,Add,Default/Add-op1,float32,*,NaN,Default/Add-op1:output:0,[4],NaN,NaN,NaN,");
  row = info({4});
  row.my_name.clear();
  c.my_address = c.golden_address = true;
  EXPECT_EQ(
      msaccucmp_row(row, nullptr, c),
      "3,Add,*,NaN,NaN,Default/Add-op1,float32,NaN,Default/Add-op1:output:0,[4],NaN,NaN,NaN,");
}

TEST(MsaccucmpRow, BoolRunsOnlyCosineAndRelativeEuclideanDistance) {
  auto b = [](std::vector<uint8_t> v) { return tensor_of<uint8_t>(DType::Bool, v, {3}); };
  // x = (1, 0, 1), y = (1, 1, 1): cos = 2/√6 = 0.816497; RED = √(1/3) = 0.577350.
  auto m = run(b({1, 0, 1}), b({1, 1, 1}));
  MsaccucmpRowInfo row = info({3});
  row.my_dtype = row.golden_dtype = "bool";
  EXPECT_EQ(msaccucmp_row(row, &m, npy_columns(*Algorithms::parse("0,1,3,5"))),
            "3,Add,Default/Add-op1,bool,Default/Add-op1,bool,Default/Add-op1:output:0,[3],"
            "0.816497,NaN,0.577350,NaN,"
            "\"Algorithm MaxAbsoluteError does not support Boolean types.,"
            "Algorithm StandardDeviation does not support Boolean types.\"");
}

TEST(MsaccucmpRow, ScalarCosineIsOneWhateverTheValues) {
  auto m = run(f32({2}, {1, 1}), f32({-3}, {1, 1}));
  EXPECT_EQ(msaccucmp_row(info({1, 1}), &m, npy_columns(*Algorithms::parse("0,1"))),
            "3,Add,Default/Add-op1,float32,Default/Add-op1,float32,Default/Add-op1:output:0,"
            "\"[1,1]\",1.000000,5.000000,This tensor is scalar.");
}

TEST(MsaccucmpRow, BothAllZeroCosineIsTheString1Point0) {
  auto m = run(f32({0, 0}), f32({0, 0}));
  EXPECT_EQ(msaccucmp_row(info({2}), &m, npy_columns(*Algorithms::parse("0,3"))),
            "3,Add,Default/Add-op1,float32,Default/Add-op1,float32,Default/Add-op1:output:0,"
            "[2],1.0,0.000000,");
}

TEST(MsaccucmpRow, GoldenAllZeroNamesTheGoldenFile) {
  auto m = run(f32({1, 2}), f32({0, 0}));
  EXPECT_EQ(msaccucmp_row(info({2}), &m, npy_columns(*Algorithms::parse("0,3"))),
            "3,Add,Default/Add-op1,float32,Default/Add-op1,float32,Default/Add-op1:output:0,"
            "[2],NaN,0.000000,"
            "Cannot compare by Cosine Similarity. All the data is zero in golden/Add.npy.");
}

TEST(MsaccucmpRow, EmptyTensors) {
  // NumPy on empty arrays (§7): cosine "1.0", RelativeEuclideanDistance 0, the others NaN.
  auto m = run(f32({}, {0}), f32({}, {0}));
  EXPECT_EQ(msaccucmp_row(info({0}), &m, npy_columns(*Algorithms::parse("0,1,3"))),
            "3,Add,Default/Add-op1,float32,Default/Add-op1,float32,Default/Add-op1:output:0,"
            "[0],1.0,NaN,0.000000,empty");
}

TEST(MsaccucmpRow, SizeMismatchIsNaNEverywhereWithOneMessage) {
  auto m = run(f32({1, 2, 3}), f32({1, 2}));
  EXPECT_EQ(msaccucmp_row(info({3}), &m, npy_columns(*Algorithms::parse("0,5,1"))),
            "3,Add,Default/Add-op1,float32,Default/Add-op1,float32,Default/Add-op1:output:0,"
            "[3],NaN,NaN,NaN,"
            "The my output dump data size (3) in ''my/Add.npy'' does not match the ground "
            "truth dump data size (2) in ''golden/Add.npy''.");
}

TEST(MsaccucmpRow, NaNInTheDataPrintsPythonsNan) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto m = run(f32({1, nan}), f32({1, 2}));
  EXPECT_EQ(msaccucmp_row(info({2}), &m, npy_columns(*Algorithms::parse("0,1,5"))),
            "3,Add,Default/Add-op1,float32,Default/Add-op1,float32,Default/Add-op1:output:0,"
            "[2],nan,nan,\"(nan;nan),(1.500;0.500)\",");
}

TEST(MsaccucmpCells, StandardDeviationRoundsSmallValuesToZero) {
  EXPECT_EQ(msaccucmp_standard_deviation(-0.0004, 0.0009999, 0.001, -2.0005),
            "(0.000;0.000),(0.001;-2.001)");
  EXPECT_EQ(msaccucmp_standard_deviation(-0.0015, 12345.6789, 0, 1),
            "(-0.002;12345.679),(0.000;1.000)");
  EXPECT_EQ(msaccucmp_number(0.1234567), "0.123457");
  EXPECT_EQ(msaccucmp_number(-std::numeric_limits<double>::infinity()), "-inf");
}

TEST(MsaccucmpCells, ResultFileName) {
  std::tm t{};
  t.tm_year = 2024 - 1900;
  t.tm_mon = 0;
  t.tm_mday = 5;
  t.tm_hour = 7;
  t.tm_min = 8;
  t.tm_sec = 9;
  EXPECT_EQ(msaccucmp_result_file_name(t), "result_20240105070809.csv");
}

TEST(Overflow, Float16Only) {
  TensorStats s;
  s.max = 65504;
  s.min = -1;
  EXPECT_EQ(overflow_of(DType::Float16, s), Overflow::Yes);
  s.max = 65503;
  EXPECT_EQ(overflow_of(DType::Float16, s), Overflow::No);
  s.neg_inf = 1;
  EXPECT_EQ(overflow_of(DType::Float16, s), Overflow::Yes);
  EXPECT_EQ(overflow_of(DType::Float32, s), Overflow::NotChecked);
}

// --- msprobe ------------------------------------------------------------------------------------

MsprobeRowInfo probe_info(std::vector<uint64_t> shape) {
  MsprobeRowInfo row;
  row.npu_name = "npu/Add.Default_Add-op1.2.0.1.output.0.DefaultFormat.npy";
  row.bench_name = "bench/Add.Default_Add-op1.2.0.1.output.0.DefaultFormat.npy";
  row.npu_dtype = row.bench_dtype = "float32";
  row.npu_shape = shape;
  row.bench_shape = shape;
  return row;
}

TEST(MsprobeHeader, BothModes) {
  EXPECT_EQ(msprobe_graph_header(MsprobeMode::Npy),
            "NPU Name,Bench Name,NPU Dtype,Bench Dtype,NPU Tensor Shape,Bench Tensor Shape,"
            "NPU max,NPU min,NPU mean,NPU l2norm,Bench max,Bench min,Bench mean,Bench l2norm,"
            "Accuracy Reached or Not,Err_message,Cosine,EucDist,MaxAbsErr,MaxRelativeErr,"
            "One Thousandth Err Ratio,Five Thousandths Err Ratio");
  EXPECT_EQ(msprobe_graph_header(MsprobeMode::Statistics),
            "NPU Name,Bench Name,NPU Dtype,Bench Dtype,NPU Tensor Shape,Bench Tensor Shape,"
            "NPU max,NPU min,NPU mean,NPU l2norm,Bench max,Bench min,Bench mean,Bench l2norm,"
            "Accuracy Reached or Not,Err_message,Max diff,Min diff,Mean diff,L2norm diff,"
            "MaxRelativeErr,MinRelativeErr,MeanRelativeErr,NormRelativeErr,NPU CSV File,"
            "Bench CSV File");
}

TEST(MsprobeRow, NormalPair) {
  // x = (1, 2, 3, 4), y = (1, 2, 3, 5): cos 0.993999 (12 decimals: 0.993999088548), EucDist 1,
  // MaxAbsErr 1, RE = (0, 0, 0, 0.2): max 0.2, both ratios 3/4.
  auto m = run(f32({1, 2, 3, 4}, {2, 2}), f32({1, 2, 3, 5}, {2, 2}));
  EXPECT_EQ(msprobe_graph_row(probe_info({2, 2}), &m, "No", MsprobeMode::Npy),
            "npu/Add.Default_Add-op1.2.0.1.output.0.DefaultFormat.npy,"
            "bench/Add.Default_Add-op1.2.0.1.output.0.DefaultFormat.npy,float32,float32,"
            "\"[2, 2]\",\"[2, 2]\",4.0,1.0,2.5,5.477225575051661,5.0,1.0,2.75,6.244997998398398,"
            "No,,0.993999088548,1.0,1.0,0.2,0.75,0.75");
}

TEST(MsprobeRow, CosineAboveThresholdRoundsToSixDecimals) {
  EXPECT_EQ(msprobe_cosine(0.99995), "0.99995");
  EXPECT_EQ(msprobe_cosine(0.9999912345678), "0.999991");
  EXPECT_EQ(msprobe_cosine(0.9999999), "1.0");
  EXPECT_EQ(msprobe_cosine(0.98765432101234), "0.987654321012");
  EXPECT_EQ(msprobe_number(1.5e-13), "0.0");
  EXPECT_EQ(msprobe_number(1.2345e-5), "1.2345e-05");
  EXPECT_EQ(msprobe_number(123456.0), "123456.0");
  EXPECT_EQ(msprobe_number(1e17), "1e+17");
  EXPECT_EQ(msprobe_shape({5}), "[5,]");
  EXPECT_EQ(msprobe_shape({}), "[]");
}

TEST(MsprobeRow, UnmatchedOnEachSide) {
  MsprobeRowInfo row = probe_info({2});
  row.bench_name.clear();
  row.bench_dtype.clear();
  row.bench_shape.reset();
  auto m = run(f32({1, 2}), f32({1, 2}));
  EXPECT_EQ(msprobe_graph_row(row, &m, "None", MsprobeMode::Npy),
            "npu/Add.Default_Add-op1.2.0.1.output.0.DefaultFormat.npy,,float32,,\"[2,]\",,"
            "2.0,1.0,1.5,2.23606797749979,,,,,None,Dump file is not ndarray.,,,,,,");
  row = probe_info({2});
  row.npu_name.clear();
  row.npu_dtype.clear();
  row.npu_shape.reset();
  EXPECT_EQ(msprobe_graph_row(row, nullptr, "None", MsprobeMode::Npy),
            ",bench/Add.Default_Add-op1.2.0.1.output.0.DefaultFormat.npy,,float32,,\"[2,]\","
            ",,,,,,,,None,Dump file is not ndarray.,,,,,,");
}

TEST(MsprobeRow, ErrorRowValues) {
  MetricOptions same;
  same.nan = NanPolicy::SamePositions;
  same.require_same_shape = true;
  const float inf = std::numeric_limits<float>::infinity();
  // Shapes differ: every metric `shape unmatched`.
  auto shape = run(f32({1, 2}, {2}), f32({1, 2}, {1, 2}), same);
  MsprobeRowInfo row = probe_info({2});
  row.bench_shape = std::vector<uint64_t>{1, 2};
  EXPECT_EQ(msprobe_graph_row(row, &shape, "Unmatched", MsprobeMode::Npy),
            "npu/Add.Default_Add-op1.2.0.1.output.0.DefaultFormat.npy,"
            "bench/Add.Default_Add-op1.2.0.1.output.0.DefaultFormat.npy,float32,float32,\"[2,]\","
            "\"[1, 2]\",2.0,1.0,1.5,2.23606797749979,2.0,1.0,1.5,2.23606797749979,Unmatched,"
            "Shape of NPU and bench Tensor do not match. Skipped.,shape unmatched,shape unmatched,"
            "shape unmatched,shape unmatched,shape unmatched,shape unmatched");
  // Inf at different positions: `N/A`; the inf statistic is " inf".
  auto positions = run(f32({inf, 2}), f32({1, 2}), same);
  EXPECT_EQ(msprobe_graph_row(probe_info({2}), &positions, "No", MsprobeMode::Npy),
            "npu/Add.Default_Add-op1.2.0.1.output.0.DefaultFormat.npy,"
            "bench/Add.Default_Add-op1.2.0.1.output.0.DefaultFormat.npy,float32,float32,\"[2,]\","
            "\"[2,]\", inf,2.0,2.0,2.0,2.0,1.0,1.5,2.23606797749979,No,"
            "The position of inf or nan in NPU and bench Tensor do not match.,N/A,N/A,N/A,N/A,"
            "N/A,N/A");
  // Empty: `unsupported`.
  auto empty = run(f32({}, {0}), f32({}, {0}), same);
  EXPECT_EQ(
      msprobe_graph_row(probe_info({0}), &empty, "None", MsprobeMode::Npy),
      "npu/Add.Default_Add-op1.2.0.1.output.0.DefaultFormat.npy,"
      "bench/Add.Default_Add-op1.2.0.1.output.0.DefaultFormat.npy,float32,float32,\"[0,]\","
      "\"[0,]\",,,,,,,,,None,\"This is empty data, can not compare.\",unsupported,unsupported,"
      "unsupported,unsupported,unsupported,unsupported");
}

TEST(MsprobeRow, LengthOneCosineUnsupported) {
  auto m = run(f32({2}, {1}), f32({4}, {1}));
  EXPECT_EQ(msprobe_graph_row(probe_info({1}), &m, "No", MsprobeMode::Npy),
            "npu/Add.Default_Add-op1.2.0.1.output.0.DefaultFormat.npy,"
            "bench/Add.Default_Add-op1.2.0.1.output.0.DefaultFormat.npy,float32,float32,\"[1,]\","
            "\"[1,]\",2.0,2.0,2.0,2.0,4.0,4.0,4.0,4.0,No,This is a 1-d tensor of length 1.,"
            "unsupported,2.0,2.0,0.5,0.0,0.0");
}

TEST(MsprobeRow, StatisticsModeWithTrailingTabs) {
  const float inf = std::numeric_limits<float>::infinity();
  // my max inf, min 0 against golden max 4, min 0: Max diff inf, Min diff 0 with golden 0 (N/A).
  auto m = run(f32({inf, 0, 1}), f32({4, 0, 1}));
  MsprobeRowInfo row;
  row.npu_name = row.bench_name = "Default_Add-op1.2.output.0";
  row.npu_dtype = row.bench_dtype = "float32";
  row.npu_shape = row.bench_shape = std::vector<uint64_t>{3};
  row.npu_csv_file = "npu/statistic.csv";
  row.bench_csv_file = "bench/statistic.csv";
  EXPECT_EQ(
      msprobe_graph_row(row, &m, "No", MsprobeMode::Statistics),
      "Default_Add-op1.2.output.0,Default_Add-op1.2.output.0,float32,float32,\"[3,]\",\"[3,]\","
      "inf\t,0.0,0.5,1.0,4.0,0.0,1.6666666,4.1231055,No,,inf\t,0.0,-1.1666666,-3.1231055,"
      "inf%,N/A,70.0%,75.74644%,npu/statistic.csv,bench/statistic.csv");
}

}  // namespace
}  // namespace msdt::compare
