// dump-convert's -d list: commas split it, "\," keeps a comma inside a path, and a -d that names
// an existing path is taken whole; -t bin names without -f carry the flat element count.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "dump/convert.h"

namespace msdt::dump {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split(std::string_view text) {
  auto items = split_source_list(text);
  EXPECT_TRUE(items) << (items ? "" : items.error().describe());
  return items ? *items : std::vector<std::string>{};
}

TEST(ConvertSourceList, SplitsAtCommas) {
  EXPECT_EQ(split("a,b/c,d"), (std::vector<std::string>{"a", "b/c", "d"}));
  EXPECT_EQ(split("one"), (std::vector<std::string>{"one"}));
}

TEST(ConvertSourceList, EscapedCommaAndBackslash) {
  EXPECT_EQ(split(R"(exp\,lr=0.1/x,y)"), (std::vector<std::string>{"exp,lr=0.1/x", "y"}));
  EXPECT_EQ(split(R"(a\\,b)"), (std::vector<std::string>{R"(a\)", "b"}));
  // Any other backslash is part of the path.
  EXPECT_EQ(split(R"(a\b,c\)"), (std::vector<std::string>{R"(a\b)", R"(c\)"}));
}

TEST(ConvertSourceList, EmptyItemsAreRefused) {
  EXPECT_FALSE(split_source_list("a,,b"));
  EXPECT_FALSE(split_source_list(",a"));
  EXPECT_FALSE(split_source_list("a,"));
  EXPECT_FALSE(split_source_list(""));
}

TEST(ConvertSourceList, ExistingPathIsTakenWhole) {
  fs::path root =
      fs::temp_directory_path() / ("msdt-convert-options-" + std::to_string(::getpid()));
  fs::create_directories(root / "exp,lr=0.1");
  ConvertArguments args;
  args.dump_file = (root / "exp,lr=0.1").string();
  args.output = (root / "out").string();
  auto options = resolve_convert_arguments(args);
  ASSERT_TRUE(options) << options.error().describe();
  EXPECT_EQ(options->sources, std::vector<std::string>{args.dump_file});
  // A list whose whole text is no path is split.
  args.dump_file = (root / "exp,x").string();
  options = resolve_convert_arguments(args);
  ASSERT_TRUE(options);
  EXPECT_EQ(options->sources.size(), 2u);
  fs::remove_all(root);
}

TEST(ConvertNames, DeviceBinCarriesFlatElementCount) {
  // msaccucmp (dump spec §10.1): "…output.0.16.float16.NC1HWC0.bin" for a 1x1x1x1x16 tensor.
  EXPECT_EQ(device_bin_output_name("Relu.op.1.2.3", "output", 0, 16, "float16", "NC1HWC0"),
            "Relu.op.1.2.3.output.0.16.float16.NC1HWC0.bin");
}

}  // namespace
}  // namespace msdt::dump
