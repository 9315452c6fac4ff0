// dump-convert: msaccucmp-compatible conversion of MindSpore / Ascend dumps to .npy.
#include <CLI/CLI.hpp>
#include <iostream>

#include "dump/convert.h"
#include "io/cli.h"
#include "io/report.h"
#include "io/stdout.h"

int main(int argc, char** argv) {
  msdt::use_line_stdout();
  CLI::App app{"convert MindSpore and Ascend tensor dumps to .npy (msaccucmp convert compatible)",
               "dump-convert"};
  app.set_version_flag("--version", "dump-convert (msdt) " MSDT_VERSION);
  msdt::dump::ConvertArguments args;
  app.add_option("-d,--dump_file", args.dump_file,
                 "a dump file, a comma-separated list (\\, for a comma in a path) or a directory; "
                 "'-' reads standard input")
      ->required();
  app.add_option("--output", args.output,
                 "output directory (-out is accepted too); '-' writes one tensor to stdout")
      ->required();
  app.add_option("-f,--format", args.format,
                 "target format: NCHW, NHWC, ND, HWCN, NCDHW, FRACTAL_Z");
  app.add_option("-s,--shape", args.shape, "host shape, always N,C,H,W (only with -f)");
  app.add_option("-t,--type", args.type, "output type: npy (default), bin or msnpy");
  app.add_option("-o,--output_tensor", args.output_tensor, "convert only this output (with -f)");
  app.add_option("-i,--input_tensor", args.input_tensor, "convert only this input (with -f)");
  app.add_option("-v", args.version, "dump version, 1 or 2 (msaccucmp compatibility)");
  app.add_option("--bf16", args.bf16, "bfloat16 output: float32 (default) or raw");
  app.add_option("-j,--jobs", args.jobs, "parallel workers (default: all cores)");
  app.add_flag("--skip-existing", args.skip_existing, "leave outputs newer than their source");
  app.add_flag("--no-progress", args.no_progress, "never show the progress bar");

  std::vector<std::string> rewritten = msdt::dump::rewrite_msaccucmp_argv(
      {const_cast<const char* const*>(argv), static_cast<size_t>(argc)});
  std::vector<const char*> pointers;
  for (const auto& arg : rewritten) pointers.push_back(arg.c_str());
  msdt::Diagnostics diagnostics("dump-convert");
  if (auto status = msdt::parse_command_line(app, static_cast<int>(pointers.size()),
                                             pointers.data(), diagnostics))
    return *status;
  auto options = msdt::dump::resolve_convert_arguments(args);
  if (!options) {
    diagnostics.error(options.error());
    return msdt::kExitUsage;
  }
  int status = msdt::dump::run_convert(*options, diagnostics);
  int output = msdt::finish_stdout(diagnostics);
  return output == msdt::kExitOutput ? output : status;
}
