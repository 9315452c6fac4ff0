// dump-convert logic: output names for every mode (dump spec §10.1), over-long names (§3.8), the
// msaccucmp argv rewrite and option validation; plus a few end-to-end runs over files built with
// the container writer, for the behaviour that has no golden test yet.
#include "dump/convert.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/ascend_dump_writer.h"

namespace msdt::dump {
namespace {

namespace fs = std::filesystem;

TEST(ConvertNames, PlainNpy) {
  EXPECT_EQ(npy_output_name("Add.Default_Add-op1.2.7.1700000000000000", "input", 1),
            "Add.Default_Add-op1.2.7.1700000000000000.input.1.npy");
}

TEST(ConvertNames, FormattedNpyJoinsShapeWithX) {
  const uint64_t shape[] = {30, 1024, 17, 17};
  EXPECT_EQ(formatted_npy_output_name("Conv2D.op.1.2.3", "input", 0, shape),
            "Conv2D.op.1.2.3.input.0.30x1024x17x17.npy");
  // A 0-d result leaves the field empty, as msaccucmp's join over an empty shape does.
  EXPECT_EQ(formatted_npy_output_name("a", "output", 2, {}), "a.output.2..npy");
}

TEST(ConvertNames, BinJoinsShapeWithUnderscore) {
  const uint64_t shape[] = {1, 2, 3, 4, 16};
  EXPECT_EQ(bin_output_name("Conv2D.op.1.2.3", "output", 0, shape, "float16", "NC1HWC0"),
            "Conv2D.op.1.2.3.output.0.1_2_3_4_16.float16.NC1HWC0.bin");
}

TEST(ConvertNames, MsnpyReplacesOpNameWithLastScopeSegment) {
  EXPECT_EQ(msnpy_output_name("Conv2D.Default_network_Conv2D-op12.2.7.161243956333802",
                              "Default/network/Conv2D-op12", "output", 0, "NC1HWC0"),
            "Conv2D.Conv2D-op12.2.7.161243956333802.output.0.NC1HWC0.npy");
  // op_name without a scope: used whole.
  EXPECT_EQ(msnpy_output_name("A.b.1.2.3", "Relu-op1", "input", 1, "ND"),
            "A.Relu-op1.1.2.3.input.1.ND.npy");
}

TEST(ConvertNames, MsnpyKeepsBasenameUnlessFiveFieldsAndAnOpName) {
  // Four fields (1.1/1.2 names have no stream).
  EXPECT_EQ(msnpy_output_name("A.b.1.3", "x/y", "output", 0, "ND"), "A.b.1.3.output.0.ND.npy");
  // Six fields.
  EXPECT_EQ(msnpy_output_name("A.b.c.1.2.3", "x/y", "output", 0, "ND"),
            "A.b.c.1.2.3.output.0.ND.npy");
  // Empty op_name.
  EXPECT_EQ(msnpy_output_name("A.b.1.2.3", "", "output", 0, "ND"), "A.b.1.2.3.output.0.ND.npy");
  // A trailing '/' leaves an empty last segment, as Python's split does.
  EXPECT_EQ(msnpy_output_name("A.b.1.2.3", "x/", "output", 0, "ND"), "A..1.2.3.output.0.ND.npy");
}

TEST(ConvertNames, BuffersWorkspacesOverflow) {
  EXPECT_EQ(buffer_output_name("A.b.1.2.3", 0, 1), "A.b.1.2.3.l1buffer.1.bin");
  EXPECT_EQ(buffer_output_name("A.b.1.2.3", 7, 0), "A.b.1.2.3.type7buffer.0.bin");
  EXPECT_EQ(workspace_output_name("A.b.1.2.3", 2), "A.b.1.2.3.space.2.bin");
  EXPECT_EQ(overflow_output_name("Opdebug.Node_OpDebug.1.2.3", 0),
            "Opdebug.Node_OpDebug.1.2.3.output.0.json");
}

TEST(ConvertNames, RawTensors) {
  EXPECT_EQ(raw_tensor_output_name("fc3.bias_output_0_shape_10_Float32_DefaultFormat.bin"),
            "fc3.bias_output_0_shape_10_Float32_DefaultFormat.npy");
  EXPECT_EQ(raw_tensor_output_name("Cast.op.1.2.3.input.0.ND.BF16"),
            "Cast.op.1.2.3.input.0.ND.BF16.npy");
  EXPECT_EQ(raw_tensor_output_name(".bin"), ".bin.npy");
}

TEST(ConvertLongNames, Uuid3MatchesPython) {
  // Values from /usr/bin/python3: uuid.uuid3(uuid.NAMESPACE_DNS, name).hex
  EXPECT_EQ(uuid3_dns_hex("python.org"), "6fa459eaee8a3ca4894edb77e160355e");
  EXPECT_EQ(uuid3_dns_hex(""), "c87ee6744ddc3efea74edfe25da5d7b3");
  std::string long_name = std::string(250, 'A') + ".output.0.npy";
  EXPECT_EQ(uuid3_dns_hex(long_name), "d0180f5b7fbc32109348f6ebc521cddd");
}

TEST(ConvertLongNames, ThresholdIs255) {
  std::string short_name = std::string(250, 'a') + ".npy";  // 254
  OutputName kept = shorten_long_name(short_name, ".npy");
  EXPECT_EQ(kept.name, short_name);
  EXPECT_FALSE(kept.mapping_line);

  std::string long_name = std::string(250, 'A') + ".output.0.npy";  // 263
  OutputName hashed = shorten_long_name(long_name, ".npy");
  EXPECT_EQ(hashed.name, "d0180f5b7fbc32109348f6ebc521cddd.npy");
  ASSERT_TRUE(hashed.mapping_line);
  EXPECT_EQ(*hashed.mapping_line, "d0180f5b7fbc32109348f6ebc521cddd.npy," + long_name);

  std::string exactly = std::string(251, 'b') + ".bin";  // 255
  OutputName at_limit = shorten_long_name(exactly, ".bin");
  EXPECT_EQ(at_limit.name.size(), 36u);
  EXPECT_TRUE(at_limit.name.ends_with(".bin"));
}

std::vector<std::string> rewrite(std::vector<const char*> argv) {
  return rewrite_msaccucmp_argv(argv);
}

TEST(ConvertArgv, RewritesSingleDashOut) {
  EXPECT_EQ(rewrite({"dump-convert", "-d", "x", "-out", "y"}),
            (std::vector<std::string>{"dump-convert", "-d", "x", "--output", "y"}));
  EXPECT_EQ(rewrite({"dump-convert", "-out=y", "-d", "x"}),
            (std::vector<std::string>{"dump-convert", "--output=y", "-d", "x"}));
}

TEST(ConvertArgv, LeavesEverythingElse) {
  // argv[0], values equal to "-out" only after "--", other spellings.
  EXPECT_EQ(rewrite({"-out", "--output", "z", "-output", "--out", "-o", "1"}),
            (std::vector<std::string>{"-out", "--output", "z", "-output", "--out", "-o", "1"}));
  EXPECT_EQ(rewrite({"t", "--", "-out"}), (std::vector<std::string>{"t", "--", "-out"}));
  EXPECT_TRUE(rewrite({}).empty());
}

ConvertArguments minimal() {
  ConvertArguments args;
  args.dump_file = "in";
  args.output = "out";
  return args;
}

std::string usage_error(const ConvertArguments& args) {
  auto result = resolve_convert_arguments(args);
  if (result) return "<accepted>";
  return result.error().message;
}

TEST(ConvertOptionsTest, Defaults) {
  auto options = resolve_convert_arguments(minimal());
  ASSERT_TRUE(options) << options.error().message;
  EXPECT_EQ(options->sources, std::vector<std::string>{"in"});
  EXPECT_EQ(options->output, "out");
  EXPECT_EQ(options->type, ConvertType::Npy);
  EXPECT_TRUE(options->target_format.empty());
  EXPECT_TRUE(options->target_shape.empty());
  EXPECT_FALSE(options->only_tensor);
  EXPECT_EQ(options->bf16, Bf16Mode::Float32);
  EXPECT_GE(options->jobs, 1u);
  EXPECT_FALSE(options->skip_existing);
  EXPECT_TRUE(options->progress);
}

TEST(ConvertOptionsTest, AllValuesParsed) {
  ConvertArguments args = minimal();
  args.dump_file = "a,b/c,d";
  args.format = "NCHW";
  args.shape = "1,3,224,224";
  args.type = "msnpy";
  args.output_tensor = "2";
  args.version = "1";
  args.bf16 = "raw";
  args.jobs = 3;
  args.skip_existing = true;
  args.no_progress = true;
  auto options = resolve_convert_arguments(args);
  ASSERT_TRUE(options) << options.error().message;
  EXPECT_EQ(options->sources, (std::vector<std::string>{"a", "b/c", "d"}));
  EXPECT_EQ(options->target_format, "NCHW");
  EXPECT_EQ(options->target_shape, (std::vector<uint64_t>{1, 3, 224, 224}));
  EXPECT_EQ(options->type, ConvertType::MsNpy);
  ASSERT_TRUE(options->only_tensor);
  EXPECT_EQ(options->only_tensor->first, "output");
  EXPECT_EQ(options->only_tensor->second, 2u);
  EXPECT_EQ(options->bf16, Bf16Mode::Raw);
  EXPECT_EQ(options->jobs, 3u);
  EXPECT_TRUE(options->skip_existing);
  EXPECT_FALSE(options->progress);

  args.output_tensor.reset();
  args.input_tensor = "0";
  args.type = "bin";
  options = resolve_convert_arguments(args);
  ASSERT_TRUE(options);
  EXPECT_EQ(options->only_tensor->first, "input");
  EXPECT_EQ(options->only_tensor->second, 0u);
  EXPECT_EQ(options->type, ConvertType::Bin);
}

TEST(ConvertOptionsTest, ShapeOnlyWithFormat) {
  ConvertArguments args = minimal();
  args.shape = "1,2";
  EXPECT_EQ(usage_error(args), "-s/--shape is only valid with -f/--format");
}

TEST(ConvertOptionsTest, TensorIndexOnlyWithFormatAndExclusive) {
  ConvertArguments args = minimal();
  args.output_tensor = "0";
  EXPECT_EQ(usage_error(args),
            "-o/--output_tensor and -i/--input_tensor are only valid with -f/--format");
  args.format = "ND";
  args.input_tensor = "1";
  EXPECT_EQ(usage_error(args), "-o/--output_tensor and -i/--input_tensor are mutually exclusive");
  args.input_tensor.reset();
  args.output_tensor = "x1";
  EXPECT_EQ(usage_error(args), "-o/--output_tensor must be a non-negative integer, found 'x1'");
  args.output_tensor = "-1";
  EXPECT_EQ(usage_error(args), "-o/--output_tensor must be a non-negative integer, found '-1'");
  args.output_tensor = "4294967296";
  EXPECT_EQ(usage_error(args), "tensor index 4294967296 is too large");
}

TEST(ConvertOptionsTest, RejectsUnknownValues) {
  ConvertArguments args = minimal();
  args.format = "NC1HWC0";
  EXPECT_EQ(usage_error(args),
            "unsupported target format 'NC1HWC0': expected one of NCHW, NHWC, ND, HWCN, NCDHW, "
            "FRACTAL_Z");
  args = minimal();
  args.type = "pt";
  EXPECT_EQ(usage_error(args), "-t pt is not supported (it needs PyTorch): use npy, bin or msnpy");
  args.type = "txt";
  EXPECT_EQ(usage_error(args), "unknown output type 'txt': expected npy, bin or msnpy");
  args = minimal();
  args.version = "3";
  EXPECT_EQ(usage_error(args), "unknown dump version '3': expected 1 or 2");
  args = minimal();
  args.bf16 = "f16";
  EXPECT_EQ(usage_error(args), "unknown --bf16 mode 'f16': expected float32 or raw");
  args = minimal();
  args.jobs = 0;
  EXPECT_EQ(usage_error(args), "-j/--jobs must be between 1 and 1024, found 0");
  args.jobs = 1025;
  EXPECT_EQ(usage_error(args), "-j/--jobs must be between 1 and 1024, found 1025");
}

TEST(ConvertOptionsTest, RequiredAndSourceLists) {
  ConvertArguments args = minimal();
  args.dump_file.clear();
  EXPECT_EQ(usage_error(args), "-d/--dump_file is required");
  args = minimal();
  args.output.clear();
  EXPECT_EQ(usage_error(args), "-out/--output is required");
  args = minimal();
  args.dump_file = "a,,b";
  EXPECT_EQ(usage_error(args), "empty path in the dump file list 'a,,b'");
  args.dump_file = "a,";
  EXPECT_EQ(usage_error(args), "empty path in the dump file list 'a,'");
  args.dump_file = "a,-";
  EXPECT_EQ(usage_error(args), "'-' (standard input) cannot be combined with other dump files");
  args.dump_file = "a,b";
  args.output = "-";
  EXPECT_EQ(usage_error(args),
            "'-out -' writes one tensor to standard output: give a single dump file");
}

TEST(ConvertOptionsTest, ShapeArgument) {
  auto one = parse_shape_argument("7");
  ASSERT_TRUE(one);
  EXPECT_EQ(*one, std::vector<uint64_t>{7});
  for (const char* bad : {"", "1,,2", "1,2,", "0,1", "a", "1 ,2", "-1", "99999999999999999999"}) {
    auto result = parse_shape_argument(bad);
    ASSERT_FALSE(result) << bad;
    EXPECT_EQ(result.error().message,
              std::string("invalid shape '") + bad +
                  "': expected positive integers separated by commas, such as 1,3,224,224");
  }
}

// ---- End-to-end runs over temporary files ----

class ConvertRun : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            fmt::format("msdt-convert-test-{}-{}", ::getpid(),
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "in");
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const fs::path& path, const std::vector<std::byte>& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }

  std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  int run(ConvertArguments args) {
    args.no_progress = true;
    args.jobs = 2;
    auto options = resolve_convert_arguments(args);
    EXPECT_TRUE(options);
    if (!options) return -1;
    Diagnostics diagnostics("dump-convert", errors_);
    return run_convert(*options, diagnostics);
  }

  std::vector<std::string> outputs() {
    std::vector<std::string> names;
    for (const auto& entry : fs::recursive_directory_iterator(root_ / "out"))
      if (entry.is_regular_file())
        names.push_back(entry.path().lexically_relative(root_ / "out").generic_string());
    std::sort(names.begin(), names.end());
    return names;
  }

  static std::vector<std::byte> floats(std::initializer_list<float> values) {
    std::vector<std::byte> bytes(values.size() * 4);
    std::memcpy(bytes.data(), std::data(values), bytes.size());
    return bytes;
  }

  fs::path root_;
  std::ostringstream errors_;
};

TEST_F(ConvertRun, ContainerTensorsBuffersWorkspaces) {
  testing::AscendDumpSpec spec;
  spec.op_name = "Default/Add-op1";
  testing::AscendTensorSpec input;
  input.shape = {2};
  input.payload = floats({1.5f, -2.0f});
  spec.inputs = {input, input};
  testing::AscendTensorSpec output;
  output.shape = {1};
  output.payload = floats({-0.5f});
  spec.outputs = {output};
  testing::AscendTensorSpec buffer;
  buffer.payload = {std::byte{1}, std::byte{2}, std::byte{3}};
  spec.buffers = {buffer};
  spec.workspaces = {buffer};
  write(root_ / "in/sub/Add.Add-op1.2.7.1700000000000000", testing::write_ascend_dump(spec));

  ConvertArguments args;
  args.dump_file = (root_ / "in").string();
  args.output = (root_ / "out").string();
  EXPECT_EQ(run(args), 0) << errors_.str();
  EXPECT_EQ(errors_.str(), "");
  EXPECT_EQ(outputs(), (std::vector<std::string>{
                           "sub/Add.Add-op1.2.7.1700000000000000.input.0.npy",
                           "sub/Add.Add-op1.2.7.1700000000000000.input.1.npy",
                           "sub/Add.Add-op1.2.7.1700000000000000.l1buffer.0.bin",
                           "sub/Add.Add-op1.2.7.1700000000000000.output.0.npy",
                           "sub/Add.Add-op1.2.7.1700000000000000.space.0.bin",
                       }));
  std::string npy = read(root_ / "out/sub/Add.Add-op1.2.7.1700000000000000.output.0.npy");
  ASSERT_GT(npy.size(), 10u);
  EXPECT_EQ(npy.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t data_start = 10 + (static_cast<uint8_t>(npy[8]) | static_cast<uint8_t>(npy[9]) << 8);
  EXPECT_EQ(data_start % 64, 0u);
  ASSERT_EQ(npy.size(), data_start + 4);
  EXPECT_NE(npy.find("'descr': '<f4', 'fortran_order': False, 'shape': (1,)"), std::string::npos);
  float value = 0;
  std::memcpy(&value, npy.data() + data_start, 4);
  EXPECT_EQ(value, -0.5f);
  EXPECT_EQ(read(root_ / "out/sub/Add.Add-op1.2.7.1700000000000000.space.0.bin"), "\x01\x02\x03");
}

TEST_F(ConvertRun, FailedFilesListedOthersConverted) {
  testing::AscendDumpSpec spec;
  testing::AscendTensorSpec output;
  output.shape = {1};
  output.payload = floats({3.0f});
  spec.outputs = {output};
  auto good = testing::write_ascend_dump(spec);
  write(root_ / "in/A.good.1.2.3", good);
  auto truncated = good;
  truncated.resize(truncated.size() - 2);
  write(root_ / "in/A.bad.1.2.3", truncated);

  ConvertArguments args;
  args.dump_file = (root_ / "in").string();
  args.output = (root_ / "out").string();
  EXPECT_EQ(run(args), 1);
  EXPECT_EQ(outputs(), (std::vector<std::string>{"A.good.1.2.3.output.0.npy",
                                                 "convert_failed_file_list.txt"}));
  EXPECT_EQ(read(root_ / "out/convert_failed_file_list.txt"),
            (root_ / "in/A.bad.1.2.3").string() + "\n");
  std::string stderr_text = errors_.str();
  EXPECT_TRUE(stderr_text.starts_with("dump-convert: error: '" +
                                      (root_ / "in/A.bad.1.2.3").string() + "': "))
      << stderr_text;
  EXPECT_EQ(std::count(stderr_text.begin(), stderr_text.end(), '\n'), 1);
}

TEST_F(ConvertRun, LongNamesHashedWithMapping) {
  testing::AscendDumpSpec spec;
  testing::AscendTensorSpec output;
  output.shape = {1};
  output.payload = floats({3.0f});
  spec.outputs = {output};
  std::string name = "A." + std::string(240, 'n') + ".1.2.3";  // 248 bytes; outputs are longer
  write(root_ / "in" / name, testing::write_ascend_dump(spec));

  ConvertArguments args;
  args.dump_file = (root_ / "in").string();
  args.output = (root_ / "out").string();
  EXPECT_EQ(run(args), 0) << errors_.str();
  std::string old_name = name + ".output.0.npy";
  std::string new_name = uuid3_dns_hex(old_name) + ".npy";
  EXPECT_EQ(outputs(), (std::vector<std::string>{new_name, "mapping.csv"}));
  EXPECT_EQ(read(root_ / "out/mapping.csv"), new_name + "," + old_name + "\n");
  // A second run keeps one line per name.
  EXPECT_EQ(run(args), 0);
  EXPECT_EQ(read(root_ / "out/mapping.csv"), new_name + "," + old_name + "\n");
}

TEST_F(ConvertRun, OpNameCannotEscape) {
  // msnpy takes the last '/' segment of op_name into the output name; a NUL in it must not
  // reach the file system and nothing lands outside DST.
  testing::AscendDumpSpec spec;
  spec.op_name = std::string("x/..\0evil", 9);
  testing::AscendTensorSpec output;
  output.shape = {1};
  output.payload = floats({3.0f});
  spec.outputs = {output};
  write(root_ / "in/A.b.1.2.3", testing::write_ascend_dump(spec));
  ConvertArguments args;
  args.dump_file = (root_ / "in/A.b.1.2.3").string();
  args.output = (root_ / "out").string();
  args.type = "msnpy";
  EXPECT_EQ(run(args), 1);
  EXPECT_EQ(outputs(), (std::vector<std::string>{"convert_failed_file_list.txt"}));
  std::vector<std::string> everything;
  for (const auto& entry : fs::recursive_directory_iterator(root_))
    everything.push_back(entry.path().lexically_relative(root_).generic_string());
  std::sort(everything.begin(), everything.end());
  EXPECT_EQ(everything, (std::vector<std::string>{"in", "in/A.b.1.2.3", "out",
                                                  "out/convert_failed_file_list.txt"}));
}

TEST_F(ConvertRun, OutputIndexOutOfRange) {
  testing::AscendDumpSpec spec;
  testing::AscendTensorSpec output;
  output.format = 0;  // NCHW
  output.shape = {1, 1, 1, 1};
  output.payload = floats({3.0f});
  spec.outputs = {output};
  write(root_ / "in/A.b.1.2.3", testing::write_ascend_dump(spec));
  ConvertArguments args;
  args.dump_file = (root_ / "in/A.b.1.2.3").string();
  args.output = (root_ / "out").string();
  args.format = "NCHW";
  args.output_tensor = "1";
  EXPECT_EQ(run(args), 1);
  EXPECT_EQ(errors_.str(), "dump-convert: error: '" + args.dump_file +
                               "': output index 1 is out of range [0, 1)\n");
  args.output_tensor = "0";
  errors_.str("");
  EXPECT_EQ(run(args), 0) << errors_.str();
  EXPECT_TRUE(fs::exists(root_ / "out/A.b.1.2.3.output.0.1x1x1x1.npy"));
}

}  // namespace
}  // namespace msdt::dump
