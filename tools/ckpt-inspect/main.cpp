// ckpt-inspect: list, describe, compare and export MindSpore checkpoints and models.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>

#include "io/cli.h"
#include "io/parallel.h"
#include "io/regex.h"
#include "io/report.h"
#include "io/stdout.h"
#include "io/text.h"
#include "weights/modes.h"

int main(int argc, char** argv) {
  msdt::use_line_stdout();
  CLI::App app{"list, compare and export MindSpore checkpoints and models without MindSpore",
               "ckpt-inspect"};
  app.set_version_flag("--version", "ckpt-inspect (msdt) " MSDT_VERSION);

  std::vector<std::string> files;
  bool csv = false, json = false, no_header = false, stats = false, info = false, diff = false,
       verify_crc = false;
  std::string name_regex, export_dir, safetensors_out, bf16 = "float32", top_text, tolerance_text;
  std::optional<uint64_t> top;
  double tolerance = 0;
  std::optional<long long> jobs;

  app.add_option("files", files,
                 "checkpoints or models (.ckpt, .safetensors, .mindir, .ms, "
                 "-graph.meta); - reads standard input");
  auto* csv_flag = app.add_flag("--csv", csv, "CSV (RFC 4180) with a header line");
  auto* json_flag = app.add_flag("--json", json, "JSON Lines (--info: one object per file)");
  auto* no_header_flag =
      app.add_flag("--no-header", no_header, "no header line in text, TSV and CSV");
  auto* stats_flag =
      app.add_flag("--stats", stats, "add count, min, max, mean, std, ... per tensor");
  auto* name_option =
      app.add_option("--name", name_regex, "only tensors whose name matches this RE2 regex");
  auto* crc_flag = app.add_flag("--verify-crc", verify_crc,
                                "check the crc_num of a .ckpt or safetensors file (reads it all)");
  auto* info_flag = app.add_flag("--info", info, "describe each file: kind, versions, counts, CRC");
  auto* diff_flag =
      app.add_flag("--diff", diff, "compare two checkpoints A B parameter by parameter");
  // Both are read as text and checked below, so that a negative, NaN or overflowing value is
  // refused with the range in the message (CLI11 would wrap or say only "could not convert").
  auto* top_option = app.add_option("--top", top_text, "--diff: only the N largest changes (by l2)")
                         ->type_name("N")
                         ->needs(diff_flag);
  auto* tolerance_option =
      app.add_option("--tolerance", tolerance_text,
                     "--diff: a parameter differs when max |a-b| exceeds this (default 0)")
          ->type_name("X")
          ->needs(diff_flag);
  auto* export_option = app.add_option("--export", export_dir, "write each tensor as DIR/NAME.npy");
  auto* bf16_option =
      app.add_option("--bf16", bf16, "--export: bfloat16 as float32 (default) or raw")
          ->check(CLI::IsMember({"float32", "raw"}))
          ->needs(export_option);
  auto* safetensors_option = app.add_option("--to-safetensors", safetensors_out,
                                            "write the tensors as one safetensors file");
  auto* jobs_option = app.add_option("-j,--jobs", jobs, "parallel workers (default: all cores)");
  csv_flag->excludes(json_flag);
  // One mode at a time; options that shape another mode's output are refused, not ignored.
  std::vector<CLI::Option*> modes = {info_flag, diff_flag, export_option, safetensors_option};
  for (size_t i = 0; i < modes.size(); ++i)
    for (size_t j = i + 1; j < modes.size(); ++j) modes[i]->excludes(modes[j]);
  for (CLI::Option* mode : {info_flag, export_option, safetensors_option})
    mode->excludes(csv_flag)->excludes(no_header_flag);
  for (CLI::Option* mode : {info_flag, diff_flag, export_option, safetensors_option})
    mode->excludes(stats_flag);
  for (CLI::Option* mode : {export_option, safetensors_option}) mode->excludes(json_flag);
  for (CLI::Option* mode : {diff_flag, export_option, safetensors_option}) mode->excludes(crc_flag);
  for (CLI::Option* mode : {info_flag, safetensors_option}) mode->excludes(jobs_option);
  info_flag->excludes(name_option);
  (void)top_option, (void)tolerance_option, (void)bf16_option;

  msdt::Diagnostics diagnostics("ckpt-inspect");
  std::optional<msdt::Regex> regex;
  auto checks = [&] {
    if (files.empty()) throw CLI::RequiredError("FILE");
    if (diff && files.size() != 2)
      throw CLI::ValidationError("--diff", fmt::format("takes two files, {} given", files.size()));
    // Standard input can be read once: "--diff - -" would compare it with itself.
    if (const auto n = std::count(files.begin(), files.end(), "-"); n > 1)
      throw CLI::ValidationError(
          "FILE", fmt::format("'-' (standard input) can be read once, it is given {} times", n));
    if (!top_text.empty()) {
      top = msdt::parse_unsigned<uint64_t>(top_text);
      if (!top)
        throw CLI::ValidationError("--top",
                                   fmt::format("expected a whole number from 0 to {}, found '{}'",
                                               std::numeric_limits<uint64_t>::max(), top_text));
    }
    if (!tolerance_text.empty()) {
      char* end = nullptr;
      tolerance = std::strtod(tolerance_text.c_str(), &end);
      if (end != tolerance_text.c_str() + tolerance_text.size() || !std::isfinite(tolerance) ||
          tolerance < 0 || std::isspace(static_cast<unsigned char>(tolerance_text.front())))
        throw CLI::ValidationError("--tolerance",
                                   fmt::format("expected a number from 0 to {}, found '{}'",
                                               std::numeric_limits<double>::max(), tolerance_text));
    }
    if ((!export_dir.empty() || !safetensors_out.empty()) && files.size() != 1)
      throw CLI::ValidationError(export_dir.empty() ? "--to-safetensors" : "--export",
                                 fmt::format("takes one file, {} given", files.size()));
    if (!name_regex.empty()) {
      auto compiled = msdt::compile_user_regex(name_regex);
      if (!compiled) throw CLI::ValidationError("--name", compiled.error().describe());
      regex = std::move(*compiled);
    }
  };
  if (auto status = msdt::parse_command_line(app, argc, argv, diagnostics, checks)) return *status;

  const msdt::weights::Selection selection{regex};
  const unsigned workers = msdt::resolve_jobs(jobs);
  if (info) {
    msdt::weights::describe_models(files, {.json = json, .verify_crc = verify_crc}, std::cout,
                                   diagnostics);
  } else if (diff) {
    const int status = msdt::weights::diff_models(files[0], files[1],
                                                  {.format = msdt::table::choose_format(csv, json),
                                                   .header = !no_header,
                                                   .selection = selection,
                                                   .top = top,
                                                   .tolerance = tolerance,
                                                   .jobs = workers},
                                                  std::cout, diagnostics);
    const int output = msdt::finish_stdout(diagnostics);
    return output == msdt::kExitOutput ? output : status;
  } else if (!export_dir.empty()) {
    msdt::weights::export_npy(
        files[0], export_dir,
        {.bf16 = bf16 == "raw" ? msdt::Bf16Mode::Raw : msdt::Bf16Mode::Float32,
         .selection = selection,
         .jobs = workers},
        diagnostics);
  } else if (!safetensors_out.empty()) {
    msdt::weights::export_safetensors(files[0], safetensors_out, selection, diagnostics);
  } else {
    msdt::weights::list_models(files,
                               {.format = msdt::table::choose_format(csv, json),
                                .header = !no_header,
                                .stats = stats,
                                .verify_crc = verify_crc,
                                .show_file = files.size() > 1,
                                .selection = selection,
                                .jobs = workers},
                               std::cout, diagnostics);
  }
  return msdt::finish_stdout(diagnostics);
}
