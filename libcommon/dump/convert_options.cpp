// dump-convert's command line: msaccucmp's options checked and parsed (dump spec §10.1).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "dump/convert.h"
#include "io/parallel.h"
#include "io/text.h"

namespace msdt::dump {
namespace {

Expected<uint64_t> parse_decimal(std::string_view text, std::string_view what) {
  auto value = parse_unsigned<uint64_t>(text);
  if (!value)
    return Error{fmt::format("{} must be a non-negative integer, found '{}'", what, text)};
  return *value;
}

}  // namespace

Expected<std::vector<uint64_t>> parse_shape_argument(std::string_view text) {
  std::vector<uint64_t> shape;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view item = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    auto dim = parse_unsigned<uint64_t>(item);
    if (!dim || *dim == 0)
      return Error{fmt::format(
          "invalid shape '{}': expected positive integers separated by commas, such as 1,3,224,224",
          text)};
    shape.push_back(*dim);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return shape;
}

Expected<std::vector<std::string>> split_source_list(std::string_view text) {
  std::vector<std::string> items(1);
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == ',' || text[i + 1] == '\\')) {
      items.back() += text[++i];
    } else if (c == ',') {
      if (items.back().empty())
        return Error{fmt::format("empty path in the dump file list '{}'", text)};
      items.emplace_back();
    } else {
      items.back() += c;
    }
  }
  if (items.back().empty())
    return Error{fmt::format("empty path in the dump file list '{}'", text)};
  return items;
}

Expected<ConvertOptions> resolve_convert_arguments(const ConvertArguments& args) {
  ConvertOptions options;
  if (args.dump_file.empty()) return Error{"-d/--dump_file is required"};
  if (args.output.empty()) return Error{"-out/--output is required"};
  // A path that exists is taken whole, commas and all ("exp,lr=0.1"); otherwise -d is a list.
  std::error_code exists_ec;
  if (args.dump_file != "-" && std::filesystem::exists(args.dump_file, exists_ec)) {
    options.sources = {args.dump_file};
  } else {
    MSDT_TRY(options.sources, split_source_list(args.dump_file));
  }
  if (options.sources.size() > 1 &&
      std::find(options.sources.begin(), options.sources.end(), "-") != options.sources.end())
    return Error{"'-' (standard input) cannot be combined with other dump files"};
  options.output = args.output;

  static constexpr std::string_view kTargets[] = {"NCHW", "NHWC",  "ND",
                                                  "HWCN", "NCDHW", "FRACTAL_Z"};
  if (!args.format.empty()) {
    if (std::find(std::begin(kTargets), std::end(kTargets), args.format) == std::end(kTargets))
      return Error{fmt::format("unsupported target format '{}': expected one of {}", args.format,
                               fmt::join(kTargets, ", "))};
    options.target_format = args.format;
  }
  if (!args.shape.empty()) {
    if (args.format.empty()) return Error{"-s/--shape is only valid with -f/--format"};
    MSDT_TRY(options.target_shape, parse_shape_argument(args.shape));
  }
  if (args.output_tensor && args.input_tensor)
    return Error{"-o/--output_tensor and -i/--input_tensor are mutually exclusive"};
  if (args.output_tensor || args.input_tensor) {
    if (args.format.empty())
      return Error{"-o/--output_tensor and -i/--input_tensor are only valid with -f/--format"};
    bool output = args.output_tensor.has_value();
    const std::string& text = output ? *args.output_tensor : *args.input_tensor;
    MSDT_TRY(uint64_t index,
             parse_decimal(text, output ? "-o/--output_tensor" : "-i/--input_tensor"));
    if (index > UINT32_MAX) return Error{fmt::format("tensor index {} is too large", index)};
    options.only_tensor =
        std::pair<std::string, uint32_t>{output ? "output" : "input", static_cast<uint32_t>(index)};
  }
  if (args.type == "npy") {
    options.type = ConvertType::Npy;
  } else if (args.type == "bin") {
    options.type = ConvertType::Bin;
  } else if (args.type == "msnpy") {
    options.type = ConvertType::MsNpy;
  } else if (args.type == "pt") {
    return Error{"-t pt is not supported (it needs PyTorch): use npy, bin or msnpy"};
  } else {
    return Error{fmt::format("unknown output type '{}': expected npy, bin or msnpy", args.type)};
  }
  // -v 1 (whole-protobuf dumps) is deprecated in msaccucmp and treated as 2; our reader
  // recognises both layouts anyway (dump spec §5.3).
  if (args.version && *args.version != "1" && *args.version != "2")
    return Error{fmt::format("unknown dump version '{}': expected 1 or 2", *args.version)};
  if (args.bf16 == "float32") {
    options.bf16 = Bf16Mode::Float32;
  } else if (args.bf16 == "raw") {
    options.bf16 = Bf16Mode::Raw;
  } else {
    return Error{fmt::format("unknown --bf16 mode '{}': expected float32 or raw", args.bf16)};
  }
  if (args.jobs) {
    if (*args.jobs < 1 || *args.jobs > 1024)
      return Error{fmt::format("-j/--jobs must be between 1 and 1024, found {}", *args.jobs)};
  }
  options.jobs = resolve_jobs(args.jobs);
  if (options.output == "-" && options.sources.size() != 1)
    return Error{"'-out -' writes one tensor to standard output: give a single dump file"};
  options.skip_existing = args.skip_existing;
  options.progress = !args.no_progress;
  return options;
}

std::vector<std::string> rewrite_msaccucmp_argv(std::span<const char* const> argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  bool options_ended = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    std::string_view arg = argv[i] ? argv[i] : "";
    if (i == 0 || options_ended) {
      out.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      options_ended = true;
      out.emplace_back(arg);
    } else if (arg == "-out") {
      out.emplace_back("--output");
    } else if (arg.starts_with("-out=")) {
      out.push_back(fmt::format("--output={}", arg.substr(5)));
    } else {
      out.emplace_back(arg);
    }
  }
  return out;
}

}  // namespace msdt::dump
