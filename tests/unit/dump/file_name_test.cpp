// File-name grammars of every dump layout (dump spec §3, §6, §10.1), with names from the spec, the
// MindSpore docs and the 1.2 GPU samples of §13.
#include "dump/file_name.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace msdt::dump {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(FileKindName, EveryKindHasAStableShortName) {
  EXPECT_EQ(file_kind_name(FileKind::Unknown), "unknown");
  EXPECT_EQ(file_kind_name(FileKind::LegacyBin), "legacy-bin");
  EXPECT_EQ(file_kind_name(FileKind::Npy), "npy");
  EXPECT_EQ(file_kind_name(FileKind::AscendBinary), "ascend");
  EXPECT_EQ(file_kind_name(FileKind::Overflow), "overflow");
  EXPECT_EQ(file_kind_name(FileKind::OverflowJson), "overflow-json");
  EXPECT_EQ(file_kind_name(FileKind::MsprobeRaw), "msprobe-raw");
  EXPECT_EQ(file_kind_name(FileKind::ConvertedNpy), "converted-npy");
  EXPECT_EQ(file_kind_name(FileKind::StatisticCsv), "statistic-csv");
  EXPECT_EQ(file_kind_name(FileKind::MappingCsv), "mapping-csv");
  EXPECT_EQ(file_kind_name(FileKind::ExecutionOrder), "execution-order");
  EXPECT_EQ(file_kind_name(FileKind::GlobalExecutionOrder), "global-execution-order");
  EXPECT_EQ(file_kind_name(FileKind::KernelArgsJson), "kernel-args");
  EXPECT_EQ(file_kind_name(FileKind::Metadata), "metadata");
  EXPECT_EQ(file_kind_name(FileKind::Graph), "graph");
  EXPECT_EQ(file_kind_name(FileKind::ConvertFailedList), "convert-failed-list");
  EXPECT_EQ(io_name(Io::Input), "input");
  EXPECT_EQ(io_name(Io::Output), "output");
}

// ---- Format A (§3.1) ----

TEST(LegacyBin, DottedParameterName) {
  auto n = parse_dump_file_name("moments.fc3.bias_output_0_shape_10_Float32_DefaultFormat.bin");
  ASSERT_EQ(n.kind, FileKind::LegacyBin) << n.problem;
  EXPECT_EQ(n.op_name, "moments.fc3.bias");
  EXPECT_EQ(n.op_type, "");
  EXPECT_EQ(n.io, Io::Output);
  EXPECT_EQ(n.slot, 0u);
  EXPECT_TRUE(n.has_shape);
  EXPECT_THAT(n.shape, ElementsAre(10u));
  EXPECT_EQ(n.dtype_label, "Float32");
  EXPECT_EQ(n.dtype, DType::Float32);
  EXPECT_EQ(n.device_format, "DefaultFormat");
  EXPECT_TRUE(n.device_format_known);
  EXPECT_FALSE(n.task_id);
  EXPECT_FALSE(n.timestamp);
  EXPECT_THAT(n.problem, IsEmpty());
}

TEST(LegacyBin, ScopedKernelWithUnderscoresAndSecondOutput) {
  auto n = parse_dump_file_name(
      "Default--network-WithLossCell--_backbone-AlexNet--ReLUV2-op300_output_1_shape_256_UInt32_"
      "DefaultFormat.bin");
  ASSERT_EQ(n.kind, FileKind::LegacyBin) << n.problem;
  EXPECT_EQ(n.op_name, "Default--network-WithLossCell--_backbone-AlexNet--ReLUV2-op300");
  EXPECT_EQ(n.io, Io::Output);
  EXPECT_EQ(n.slot, 1u);
  EXPECT_THAT(n.shape, ElementsAre(256u));
  EXPECT_EQ(n.dtype, DType::UInt32);
}

TEST(LegacyBin, GpuKNumberTypeSpellingAndNchw) {
  auto n = parse_dump_file_name(
      "Default--network-WithLossCell--_backbone-AlexNet--conv3-Conv2d--Conv2D-op308_output_0_shape_"
      "4_4_4_4_kNumberTypeFloat32_NCHW.bin");
  ASSERT_EQ(n.kind, FileKind::LegacyBin) << n.problem;
  EXPECT_EQ(n.op_name,
            "Default--network-WithLossCell--_backbone-AlexNet--conv3-Conv2d--Conv2D-op308");
  EXPECT_THAT(n.shape, ElementsAre(4u, 4u, 4u, 4u));
  EXPECT_EQ(n.dtype_label, "kNumberTypeFloat32");
  EXPECT_EQ(n.dtype, DType::Float32);
  EXPECT_EQ(n.device_format, "NCHW");
}

TEST(LegacyBin, InputOfKernel) {
  auto n = parse_dump_file_name("Default--Add-op1_input_12_shape_2_3_Float16_NC1HWC0.bin");
  ASSERT_EQ(n.kind, FileKind::LegacyBin) << n.problem;
  EXPECT_EQ(n.op_name, "Default--Add-op1");
  EXPECT_EQ(n.io, Io::Input);
  EXPECT_EQ(n.slot, 12u);
  EXPECT_THAT(n.shape, ElementsAre(2u, 3u));
  EXPECT_EQ(n.dtype, DType::Float16);
  EXPECT_EQ(n.device_format, "NC1HWC0");
}

TEST(LegacyBin, FormatsContainingUnderscoresMatchLongestFirst) {
  for (std::string format : {"NC1HWC0_C04", "FRACTAL_Z_3D", "FRACTAL_Z_C04", "FRACTAL_NZ",
                             "FRACTAL_ZN_LSTM", "FRACTAL_ZN_RNN", "ND_RNN_BIAS", "FracZ", "ND"}) {
    auto n =
        parse_dump_file_name("Default--Conv2D-op5_output_0_shape_1_2_Float16_" + format + ".bin");
    ASSERT_EQ(n.kind, FileKind::LegacyBin) << format << ": " << n.problem;
    EXPECT_EQ(n.device_format, format);
    EXPECT_TRUE(n.device_format_known) << format;
    EXPECT_EQ(n.dtype, DType::Float16) << format;
    EXPECT_EQ(n.op_name, "Default--Conv2D-op5") << format;
  }
}

TEST(LegacyBin, ZeroDimTensorIsShapeZero) {
  auto n = parse_dump_file_name("cst1_output_0_shape_0_Int32_DefaultFormat.bin");
  ASSERT_EQ(n.kind, FileKind::LegacyBin) << n.problem;
  EXPECT_EQ(n.op_name, "cst1");
  EXPECT_TRUE(n.has_shape);
  EXPECT_THAT(n.shape, IsEmpty());
  EXPECT_EQ(n.dtype, DType::Int32);
}

TEST(LegacyBin, LastShapeMarkerWins) {
  auto n = parse_dump_file_name("my_shape_net--x_shape_y-op1_output_0_shape_7_Float32_ND.bin");
  ASSERT_EQ(n.kind, FileKind::LegacyBin) << n.problem;
  EXPECT_EQ(n.op_name, "my_shape_net--x_shape_y-op1");
  EXPECT_THAT(n.shape, ElementsAre(7u));
}

TEST(LegacyBin, UnknownFormatIsStillParsed) {
  auto n = parse_dump_file_name("Default--Add-op1_output_0_shape_3_Float32_WEIRDFMT.bin");
  ASSERT_EQ(n.kind, FileKind::LegacyBin) << n.problem;
  EXPECT_EQ(n.device_format, "WEIRDFMT");
  EXPECT_FALSE(n.device_format_known);
  EXPECT_EQ(n.op_name, "Default--Add-op1");
}

TEST(LegacyBin, UnknownDtypeKeepsLabel) {
  auto n = parse_dump_file_name("Default--Add-op1_output_0_shape_3_Quux_DefaultFormat.bin");
  ASSERT_EQ(n.kind, FileKind::LegacyBin) << n.problem;
  EXPECT_EQ(n.dtype_label, "Quux");
  EXPECT_FALSE(n.dtype);
}

TEST(LegacyBin, Errors) {
  struct Case {
    const char* name;
    const char* problem;
  } cases[] = {
      {"weights.bin", "name ends in .bin but has no '_shape_' field of a 1.1/1.2 dump name"},
      {"Add_output_0_shape_x_Float32_DefaultFormat.bin",
       "name ends in .bin but shape dimension 'x' is not a 64-bit number"},
      {"Add_output_0_shape_99999999999999999999_Float32_DefaultFormat.bin",
       "name ends in .bin but shape dimension '99999999999999999999' is not a 64-bit number"},
      {"Add_middle_0_shape_3_Float32_DefaultFormat.bin",
       "name ends in .bin but field 'middle' before the tensor index is not input or output, or "
       "no kernel name precedes it"},
      {"output_0_shape_3_Float32_DefaultFormat.bin",
       "name ends in .bin but field 'output' before the tensor index is not input or output, or "
       "no kernel name precedes it"},
      {"Add_output_x_shape_3_Float32_DefaultFormat.bin",
       "name ends in .bin but field 'x' before '_shape_' is not a 32-bit tensor index"},
      {"Add_output_4294967296_shape_3_Float32_DefaultFormat.bin",
       "name ends in .bin but field '4294967296' before '_shape_' is not a 32-bit tensor index"},
      {"_shape_3_Float32_DefaultFormat.bin",
       "name ends in .bin but has no '_{input|output}_{index}' before '_shape_'"},
      {"Add_output_0_shape_3_Float32.bin",
       "name ends in .bin but does not end in _shape_{dims}_{dtype}_{format}"},
      {"Add_output_0_shape_3_.bin", "name ends in .bin but its format field is empty"},
  };
  for (const auto& c : cases) {
    auto n = parse_dump_file_name(c.name);
    EXPECT_EQ(n.kind, FileKind::Unknown) << c.name;
    EXPECT_EQ(n.problem, c.problem) << c.name;
  }
}

TEST(LegacyBin, EverySampleFileParses) {
  const char* shared = std::getenv("MSDT_SHARED_DIR");
  if (!shared) GTEST_SKIP() << "MSDT_SHARED_DIR is not set";
  std::filesystem::path root = std::filesystem::path(shared) / "samples/ms1.2-gpu-sync-bin";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << root << " is absent";
  int bins = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".bin") continue;
    auto n = parse_dump_file_name(entry.path().filename().string());
    ASSERT_EQ(n.kind, FileKind::LegacyBin) << entry.path() << ": " << n.problem;
    ASSERT_TRUE(n.dtype) << entry.path();
    EXPECT_TRUE(n.device_format_known) << entry.path();
    // The payload has no header: its size is the element count times the item size (§5.1).
    uint64_t count = 1;
    for (auto d : n.shape) count *= d;
    EXPECT_EQ(entry.file_size(), *dtype_bytes(*n.dtype, count)) << entry.path();
    ++bins;
  }
  EXPECT_EQ(bins, 14);
}

// ---- npy names (§3.2, §3.3, §3.5, §3.7) ----

TEST(Npy, ParameterWithDotsNoDtype) {
  auto n = parse_dump_file_name("Parameter.fc2.bias.0.0.2.output.0.DefaultFormat.npy");
  ASSERT_EQ(n.kind, FileKind::Npy) << n.problem;
  EXPECT_EQ(n.op_type, "Parameter");
  EXPECT_EQ(n.op_name, "fc2.bias");
  EXPECT_EQ(n.task_id, 0u);
  EXPECT_EQ(n.stream_id, 0u);
  EXPECT_EQ(n.timestamp, 2u);
  EXPECT_EQ(n.io, Io::Output);
  EXPECT_EQ(n.slot, 0u);
  EXPECT_EQ(n.device_format, "DefaultFormat");
  EXPECT_TRUE(n.device_format_known);
  EXPECT_EQ(n.dtype_label, "");
  EXPECT_FALSE(n.dtype);
  EXPECT_FALSE(n.has_shape);
}

TEST(Npy, MindSpore24WithDtypeSuffix) {
  auto n = parse_dump_file_name(
      "Add.Default_Add-op1.0.0.1716000000000000.output.0.DefaultFormat.float32.npy");
  ASSERT_EQ(n.kind, FileKind::Npy) << n.problem;
  EXPECT_EQ(n.op_type, "Add");
  EXPECT_EQ(n.op_name, "Default_Add-op1");
  EXPECT_EQ(n.timestamp, 1716000000000000u);
  EXPECT_EQ(n.device_format, "DefaultFormat");
  EXPECT_EQ(n.dtype_label, "float32");
  EXPECT_EQ(n.dtype, DType::Float32);
}

TEST(Npy, SyncDumpWithoutScopeAndInput) {
  auto n = parse_dump_file_name("Conv2D.Conv2D-op107.0.0.1623124369613540.input.1.NC1HWC0.npy");
  ASSERT_EQ(n.kind, FileKind::Npy) << n.problem;
  EXPECT_EQ(n.op_type, "Conv2D");
  EXPECT_EQ(n.op_name, "Conv2D-op107");
  EXPECT_EQ(n.io, Io::Input);
  EXPECT_EQ(n.slot, 1u);
  EXPECT_EQ(n.device_format, "NC1HWC0");
}

TEST(Npy, EmptyOpNameFromGetOpNameWithoutScope) {
  auto n = parse_dump_file_name("Add..0.0.1623124369613540.output.0.DefaultFormat.npy");
  ASSERT_EQ(n.kind, FileKind::Npy) << n.problem;
  EXPECT_EQ(n.op_type, "Add");
  EXPECT_EQ(n.op_name, "");
}

TEST(Npy, ConstantUnderConstants) {
  auto n = parse_dump_file_name(
      "Parameter.data-3.0.0.1716000000000000.output.0.DefaultFormat.int64.npy");
  ASSERT_EQ(n.kind, FileKind::Npy) << n.problem;
  EXPECT_EQ(n.op_name, "data-3");
  EXPECT_EQ(n.dtype, DType::Int64);
}

TEST(Npy, MsprobeUpperCaseFormatAndDtype) {
  auto n = parse_dump_file_name(
      "Cast.Default_network-WithLossCell_Cast-op0.9.10.1735011096426349.input.0.ND.FLOAT.npy");
  ASSERT_EQ(n.kind, FileKind::Npy) << n.problem;
  EXPECT_EQ(n.op_type, "Cast");
  EXPECT_EQ(n.op_name, "Default_network-WithLossCell_Cast-op0");
  EXPECT_EQ(n.task_id, 9u);
  EXPECT_EQ(n.stream_id, 10u);
  EXPECT_EQ(n.timestamp, 1735011096426349u);
  EXPECT_EQ(n.io, Io::Input);
  EXPECT_EQ(n.device_format, "ND");
  EXPECT_EQ(n.dtype_label, "FLOAT");
  EXPECT_EQ(n.dtype, DType::Float32);
}

TEST(Npy, AsyncNpyWithDeviceFormatAndUnknownTaskStream) {
  auto n = parse_dump_file_name(
      "MatMul.Default_MatMul-op3.65535.65535.1716000000000000.output.0.FRACTAL_NZ.float16.npy");
  ASSERT_EQ(n.kind, FileKind::Npy) << n.problem;
  EXPECT_EQ(n.task_id, 65535u);
  EXPECT_EQ(n.stream_id, 65535u);
  EXPECT_EQ(n.device_format, "FRACTAL_NZ");
  EXPECT_EQ(n.dtype, DType::Float16);
}

TEST(Npy, FormatWordIsNotTakenForADtype) {
  // With the dtype reading failing, the field before .npy is the format.
  auto n = parse_dump_file_name("Add.Add-op1.0.0.5.output.0.FracZ.npy");
  ASSERT_EQ(n.kind, FileKind::Npy) << n.problem;
  EXPECT_EQ(n.device_format, "FracZ");
  EXPECT_TRUE(n.device_format_known);
  EXPECT_EQ(n.dtype_label, "");
}

TEST(Npy, UnknownFormatStillParsed) {
  auto n = parse_dump_file_name("Add.Add-op1.0.0.5.output.0.SomeNewFormat.float32.npy");
  ASSERT_EQ(n.kind, FileKind::Npy) << n.problem;
  EXPECT_EQ(n.device_format, "SomeNewFormat");
  EXPECT_FALSE(n.device_format_known);
  EXPECT_EQ(n.dtype, DType::Float32);
}

TEST(Npy, DtypeWordNewerThanTheTableKeepsLabel) {
  auto n = parse_dump_file_name("Add.Add-op1.0.0.5.output.0.DefaultFormat.float3x9.npy");
  ASSERT_EQ(n.kind, FileKind::Npy) << n.problem;
  EXPECT_EQ(n.device_format, "DefaultFormat");
  EXPECT_EQ(n.dtype_label, "float3x9");
  EXPECT_FALSE(n.dtype);
}

TEST(Npy, Errors) {
  struct Case {
    std::string name;
    const char* problem;
  } cases[] = {
      {"Add.Add-op1.0.0.5.x.0.DefaultFormat.npy",
       "name ends in .npy but field 'x' before the slot is not input or output"},
      {"Add.Add-op1.0.0.5.output.s.DefaultFormat.npy",
       "name ends in .npy but field 's' before the format is not a slot number"},
      {"Add.Add-op1.0.0.5.output.4294967296.DefaultFormat.npy",
       "name ends in .npy but slot '4294967296' does not fit in 32 bits"},
      {"Add.Add-op1.0.0.99999999999999999999.output.0.DefaultFormat.npy",
       "name ends in .npy but timestamp '99999999999999999999' does not fit in 64 bits"},
      {"Add.Add-op1.0.z.5.output.0.DefaultFormat.npy",
       "name ends in .npy but field 'z' where the stream id belongs is not a number"},
      {"Add.Add-op1.t.0.5.output.0.DefaultFormat.npy",
       "name ends in .npy but field 't' where the task id belongs is not a number"},
      {"Add.0.0.5.output.0.DefaultFormat.npy",
       "name ends in .npy but 7 dot-separated fields before the suffix, at least 8 needed "
       "({op_type}.{op_name}.{task}.{stream}.{timestamp}.{io}.{slot}.{format})"},
      {"Add.Add-op1.0.0.5.output.0..npy", "name ends in .npy but the format field is empty"},
      {"weights.npy",
       "name ends in .npy but 1 dot-separated fields before the suffix, at least 8 needed "
       "({op_type}.{op_name}.{task}.{stream}.{timestamp}.{io}.{slot}.{format})"},
      {"123456789.npy",
       "numeric .npy name: its real name is in the mapping.csv of the same directory"},
      {std::string("Add.Add-op1.0.0.5.\xff\x01.0.ND.npy"),
       "name ends in .npy but field '\\xff\\x01' before the slot is not input or output"},
  };
  for (const auto& c : cases) {
    auto n = parse_dump_file_name(c.name);
    EXPECT_EQ(n.kind, FileKind::Unknown) << c.name;
    EXPECT_EQ(n.problem, c.problem) << c.name;
  }
}

// ---- binary containers (§3.4, §3.9) ----

TEST(AscendBinary, FiveFieldName) {
  auto n = parse_dump_file_name(
      "Conv2D.Default_network-WithLossCell__backbone-AlexNet_conv3-Conv2d_Conv2D-op12.2.7."
      "161243956333802");
  ASSERT_EQ(n.kind, FileKind::AscendBinary) << n.problem;
  EXPECT_EQ(n.op_type, "Conv2D");
  EXPECT_EQ(n.op_name, "Default_network-WithLossCell__backbone-AlexNet_conv3-Conv2d_Conv2D-op12");
  EXPECT_EQ(n.task_id, 2u);
  EXPECT_EQ(n.stream_id, 7u);
  EXPECT_EQ(n.timestamp, 161243956333802u);
  EXPECT_FALSE(n.io);
  EXPECT_FALSE(n.slot);
}

TEST(AscendBinary, FourFieldNameOf11And12HasNoStream) {
  auto n = parse_dump_file_name("Add.Default_Add-op1.2.161243956333802");
  ASSERT_EQ(n.kind, FileKind::AscendBinary) << n.problem;
  EXPECT_EQ(n.op_type, "Add");
  EXPECT_EQ(n.op_name, "Default_Add-op1");
  EXPECT_EQ(n.task_id, 2u);
  EXPECT_FALSE(n.stream_id);
  EXPECT_EQ(n.timestamp, 161243956333802u);
}

TEST(AscendBinary, AclnnSwappedOrderKeepsFirstFieldAsOpType) {
  auto n = parse_dump_file_name("Default_Add-op1.Add.3.4.1716000000000000");
  ASSERT_EQ(n.kind, FileKind::AscendBinary) << n.problem;
  EXPECT_EQ(n.op_type, "Default_Add-op1");
  EXPECT_EQ(n.op_name, "Add");
}

TEST(AscendBinary, Errors) {
  auto n = parse_dump_file_name("Add.1");
  EXPECT_EQ(n.kind, FileKind::Unknown);
  EXPECT_EQ(n.problem,
            "name has no extension and ends in a number like a binary dump, but 2 dot-separated "
            "fields, at least 4 needed ({op_type}.{op_name}.{task}.{timestamp})");
  n = parse_dump_file_name("Add.Default_Add-op1.x.161243956333802");
  EXPECT_EQ(n.kind, FileKind::Unknown);
  EXPECT_EQ(n.problem,
            "name has no extension and ends in a number like a binary dump, but field 'x' where "
            "the task id belongs is not a number");
  n = parse_dump_file_name("Add.Default_Add-op1.1.2.99999999999999999999");
  EXPECT_EQ(n.kind, FileKind::Unknown);
  EXPECT_EQ(n.problem,
            "name has no extension and ends in a number like a binary dump, but timestamp "
            "'99999999999999999999' does not fit in 64 bits");
}

// ---- overflow (§3.4, §5.8) ----

TEST(Overflow, BinaryAndJson) {
  auto n = parse_dump_file_name("Opdebug.Node_OpDebug.11.3.1716000000000000");
  ASSERT_EQ(n.kind, FileKind::Overflow) << n.problem;
  EXPECT_EQ(n.op_type, "Opdebug");
  EXPECT_EQ(n.op_name, "Node_OpDebug");
  EXPECT_EQ(n.task_id, 11u);
  EXPECT_EQ(n.stream_id, 3u);
  EXPECT_EQ(n.timestamp, 1716000000000000u);

  n = parse_dump_file_name("Opdebug.Node_OpDebug.11.3.1716000000000000.output.0.json");
  ASSERT_EQ(n.kind, FileKind::OverflowJson) << n.problem;
  EXPECT_EQ(n.task_id, 11u);
  EXPECT_EQ(n.stream_id, 3u);
  EXPECT_EQ(n.io, Io::Output);
  EXPECT_EQ(n.slot, 0u);
}

TEST(Overflow, Errors) {
  auto n = parse_dump_file_name("Opdebug.Node_OpDebug.11.1716000000000000");
  EXPECT_EQ(n.kind, FileKind::Unknown);
  EXPECT_EQ(n.problem,
            "overflow name has 4 dot-separated fields, expected 5 "
            "(Opdebug.Node_OpDebug.{task}.{stream}.{timestamp})");
  n = parse_dump_file_name("Opdebug.Node_OpDebug.11.a.1716000000000000");
  EXPECT_EQ(n.problem, "overflow name: field 'a' where the stream id belongs is not a number");
  n = parse_dump_file_name("Opdebug.Node_OpDebug.11.3.17.input.0.json");
  EXPECT_EQ(n.kind, FileKind::Unknown);
  EXPECT_EQ(n.problem,
            "overflow json name is not Opdebug.Node_OpDebug.{task}.{stream}.{timestamp}.output."
            "{index}.json");
}

// ---- msprobe raw (§3.7) ----

TEST(MsprobeRaw, Bf16WithoutNpySuffix) {
  auto n = parse_dump_file_name(
      "Cast.Default_network-WithLossCell_Cast-op0.9.10.1735011096426349.input.0.ND.BF16");
  ASSERT_EQ(n.kind, FileKind::MsprobeRaw) << n.problem;
  EXPECT_EQ(n.op_type, "Cast");
  EXPECT_EQ(n.op_name, "Default_network-WithLossCell_Cast-op0");
  EXPECT_EQ(n.task_id, 9u);
  EXPECT_EQ(n.stream_id, 10u);
  EXPECT_EQ(n.io, Io::Input);
  EXPECT_EQ(n.slot, 0u);
  EXPECT_EQ(n.device_format, "ND");
  EXPECT_EQ(n.dtype_label, "BF16");
  EXPECT_EQ(n.dtype, DType::BFloat16);
}

TEST(MsprobeRaw, Int4AndNewerDtypeWord) {
  auto n = parse_dump_file_name("MatMul.op.1.2.3.output.1.FRACTAL_NZ.INT4");
  ASSERT_EQ(n.kind, FileKind::MsprobeRaw) << n.problem;
  EXPECT_EQ(n.dtype, DType::Int4);
  EXPECT_EQ(n.device_format, "FRACTAL_NZ");
  n = parse_dump_file_name("MatMul.op.1.2.3.output.1.ND.NEWTYPE8");
  ASSERT_EQ(n.kind, FileKind::MsprobeRaw) << n.problem;
  EXPECT_EQ(n.dtype_label, "NEWTYPE8");
  EXPECT_FALSE(n.dtype);
}

TEST(MsprobeRaw, Errors) {
  auto n = parse_dump_file_name("MatMul.op.1.2.3.sideways.1.ND.BF16");
  EXPECT_EQ(n.kind, FileKind::Unknown);
  EXPECT_EQ(n.problem,
            "name ends in the dtype word 'BF16' like a msprobe raw file, but field 'sideways' "
            "before the slot is not input or output");
}

// ---- msaccucmp output (§10.1) ----

TEST(ConvertedNpy, PlainAndWithTargetShape) {
  auto n = parse_dump_file_name(
      "Conv2D.Default_conv1-Conv2d_Conv2D-op1.2.7.1608983934774491.input.0.npy");
  ASSERT_EQ(n.kind, FileKind::ConvertedNpy) << n.problem;
  EXPECT_EQ(n.op_type, "Conv2D");
  EXPECT_EQ(n.op_name, "Default_conv1-Conv2d_Conv2D-op1");
  EXPECT_EQ(n.task_id, 2u);
  EXPECT_EQ(n.stream_id, 7u);
  EXPECT_EQ(n.timestamp, 1608983934774491u);
  EXPECT_EQ(n.io, Io::Input);
  EXPECT_EQ(n.slot, 0u);
  EXPECT_FALSE(n.has_shape);
  EXPECT_EQ(n.device_format, "");

  n = parse_dump_file_name(
      "Conv2D.Default_conv1-Conv2d_Conv2D-op1.2.7.1608983934774491.input.0.30x1024x17x17.npy");
  ASSERT_EQ(n.kind, FileKind::ConvertedNpy) << n.problem;
  EXPECT_EQ(n.io, Io::Input);
  EXPECT_EQ(n.slot, 0u);
  EXPECT_TRUE(n.has_shape);
  EXPECT_THAT(n.shape, ElementsAre(30u, 1024u, 17u, 17u));

  n = parse_dump_file_name("Add.Default_Add-op1.2.7.1608983934774491.output.1.30.npy");
  ASSERT_EQ(n.kind, FileKind::ConvertedNpy) << n.problem;
  EXPECT_EQ(n.slot, 1u);
  EXPECT_THAT(n.shape, ElementsAre(30u));
}

TEST(ConvertedNpy, FromFourFieldSource) {
  auto n = parse_dump_file_name("Add.Default_Add-op1.2.161243956333802.output.0.npy");
  ASSERT_EQ(n.kind, FileKind::ConvertedNpy) << n.problem;
  EXPECT_EQ(n.op_name, "Default_Add-op1");
  EXPECT_EQ(n.task_id, 2u);
  EXPECT_FALSE(n.stream_id);
  EXPECT_EQ(n.timestamp, 161243956333802u);
}

TEST(ConvertedNpy, MsnpyNameIsAMindSporeStyleNpy) {
  auto n = parse_dump_file_name("Conv2D.Conv2D-op1.2.7.1608983934774491.output.0.NCHW.npy");
  ASSERT_EQ(n.kind, FileKind::Npy) << n.problem;
  EXPECT_EQ(n.device_format, "NCHW");
}

TEST(ConvertedNpy, Errors) {
  auto n = parse_dump_file_name("Add.x.1.2.3.sideways.0.npy");
  EXPECT_EQ(n.kind, FileKind::Unknown);
  EXPECT_EQ(n.problem,
            "name ends in .npy with a number before it, but it is not a msaccucmp output "
            "{src}.{input|output}.{index}[.{AxBxC}].npy: field 'sideways' is not input or output");
  n = parse_dump_file_name("Add.x.y.z.output.0.npy");
  EXPECT_EQ(n.kind, FileKind::Unknown);
  EXPECT_EQ(n.problem,
            "name looks like a msaccucmp output but its source name is not a dump name: field 'y' "
            "where the task id belongs is not a number");
}

// ---- side files (§2, §6) ----

TEST(SideFiles, ByName) {
  EXPECT_EQ(parse_dump_file_name("statistic.csv").kind, FileKind::StatisticCsv);
  EXPECT_EQ(parse_dump_file_name("mapping.csv").kind, FileKind::MappingCsv);
  EXPECT_EQ(parse_dump_file_name("convert_failed_file_list.txt").kind, FileKind::ConvertFailedList);
  EXPECT_EQ(parse_dump_file_name("data_dump.json").kind, FileKind::Metadata);
  EXPECT_EQ(parse_dump_file_name("hccl.json").kind, FileKind::Metadata);
  EXPECT_EQ(parse_dump_file_name("config.json").kind, FileKind::Metadata);
  EXPECT_EQ(parse_dump_file_name("acl_dump_3.json").kind, FileKind::Metadata);

  auto n = parse_dump_file_name("ms_execution_order_graph_12.csv");
  EXPECT_EQ(n.kind, FileKind::ExecutionOrder);
  EXPECT_EQ(n.graph_id, 12u);
  n = parse_dump_file_name("ms_global_execution_order_graph_0.csv");
  EXPECT_EQ(n.kind, FileKind::GlobalExecutionOrder);
  EXPECT_EQ(n.graph_id, 0u);
  n = parse_dump_file_name("ms_output_trace_code_graph_4.pb");
  EXPECT_EQ(n.kind, FileKind::Graph);
  EXPECT_EQ(n.graph_id, 4u);
  n = parse_dump_file_name("ms_output_trace_code_graph_5.ir");
  EXPECT_EQ(n.kind, FileKind::Graph);
  EXPECT_EQ(n.graph_id, 5u);

  n = parse_dump_file_name("ms_execution_order_graph_99999999999.csv");
  EXPECT_EQ(n.kind, FileKind::Unknown);
  EXPECT_EQ(n.problem,
            "name starts like ms_execution_order_graph_{graph_id}.csv but graph id '99999999999' "
            "is not a 32-bit number");
  n = parse_dump_file_name("ms_output_trace_code_graph_.ir");
  EXPECT_EQ(n.kind, FileKind::Unknown);
  EXPECT_THAT(n.problem, HasSubstr("graph id '' is not a 32-bit number"));
}

TEST(SideFiles, KernelArgsJson) {
  auto n = parse_dump_file_name("MatMul.Default_MatMul-op2.json");
  ASSERT_EQ(n.kind, FileKind::KernelArgsJson) << n.problem;
  EXPECT_EQ(n.op_type, "MatMul");
  EXPECT_EQ(n.op_name, "Default_MatMul-op2");
  n = parse_dump_file_name("settings.json");
  EXPECT_EQ(n.kind, FileKind::Unknown);
  EXPECT_EQ(n.problem,
            "name ends in .json but is not {op_type}.{op_name}.json or a known metadata file");
}

TEST(Unknown, OtherNames) {
  for (std::string name : {"README", "notes.txt", "a.b.c", "", "acl_dump_x.json"}) {
    auto n = parse_dump_file_name(name);
    EXPECT_EQ(n.kind, FileKind::Unknown) << name;
    EXPECT_FALSE(n.problem.empty()) << name;
  }
  EXPECT_EQ(parse_dump_file_name("").problem, "empty file name");
  EXPECT_EQ(parse_dump_file_name("notes.txt").problem,
            "name matches no dump file grammar: not .npy, .bin or a known side file, and it does "
            "not end in a number (binary dump) or a dtype word (msprobe raw)");
}

TEST(Unknown, NonUtf8BytesAreJustBytes) {
  std::string name = "Add.\xc3\x28\xff.0.0.5.output.0.DefaultFormat.npy";
  auto n = parse_dump_file_name(name);
  ASSERT_EQ(n.kind, FileKind::Npy) << n.problem;
  EXPECT_EQ(n.op_name, "\xc3\x28\xff");
  std::string nul_name("Add.x\0y.1.2.3", 13);
  n = parse_dump_file_name(nul_name);
  ASSERT_EQ(n.kind, FileKind::AscendBinary) << n.problem;
  EXPECT_EQ(n.op_name, std::string("x\0y", 3));
}

}  // namespace
}  // namespace msdt::dump
