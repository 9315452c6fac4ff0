// dump-parse: list, summarise or show the tensors of MindSpore dump trees.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

#include "dump/inventory.h"
#include "dump/list.h"
#include "dump/select_options.h"
#include "dump/show.h"
#include "io/cli.h"
#include "io/parallel.h"
#include "io/report.h"
#include "io/stdout.h"

int main(int argc, char** argv) {
  msdt::use_line_stdout();
  CLI::App app{"list the tensors of MindSpore dump files and directories", "dump-parse"};
  app.set_version_flag("--version", "dump-parse (msdt) " MSDT_VERSION);

  std::vector<std::string> paths;
  msdt::dump::ListOptions list;
  msdt::dump::ShowOptions show;
  bool show_file = false, summary = false, csv = false, json = false, no_header = false;
  std::optional<long long> jobs;

  app.add_option("paths", paths, "dump files or directories (recursive); - reads standard input");
  auto* csv_flag = app.add_flag("--csv", csv, "CSV (RFC 4180) with a header line");
  app.add_flag("--json", json, "JSON Lines; with --show or --summary one JSON object");
  auto* no_header_flag =
      app.add_flag("--no-header", no_header, "no header line in text, TSV and CSV");
  auto* stats_flag =
      app.add_flag("--stats", list.stats, "add count, min, max, mean, std, ... per tensor");
  auto* jobs_option =
      app.add_option("-j,--jobs", jobs, "parallel workers for --stats (default: all cores)");
  msdt::dump::add_selection_options(app, list.selection);
  auto* show_flag = app.add_flag("--show", show_file, "everything about one file (the PATH)");
  app.add_option("--max-elements", show.max_elements, "values printed by --show (default 1000)")
      ->transform(msdt::at_least<uint64_t>(0))
      ->needs(show_flag);
  auto* summary_flag =
      app.add_flag("--summary", summary, "counts per rank and iteration, and tree checks");
  csv_flag->excludes("--json");
  // --show and --summary print one document each: options that shape the listing have no place
  // there, and ignoring them silently would mislead.
  for (auto* mode : {show_flag, summary_flag}) {
    mode->excludes(csv_flag)->excludes(no_header_flag)->excludes(stats_flag)->excludes(jobs_option);
    for (const char* selector : {"--op", "--iteration", "--rank", "--graph", "--io", "--dtype"})
      mode->excludes(selector);
  }
  summary_flag->excludes(show_flag);

  msdt::Diagnostics diagnostics("dump-parse");
  auto checks = [&] {
    if (paths.empty()) throw CLI::RequiredError("PATH");
    if (!show_file) return;
    if (paths.size() != 1)
      throw CLI::ValidationError("--show", fmt::format("takes one file, {} given", paths.size()));
    std::error_code ec;
    if (std::filesystem::is_directory(paths[0], ec))
      throw CLI::ValidationError("--show", fmt::format("'{}' is a directory; --show takes one file",
                                                       msdt::printable_path(paths[0])));
  };
  if (auto status = msdt::parse_command_line(app, argc, argv, diagnostics, checks)) return *status;

  if (show_file) {
    show.json = json;
    msdt::dump::show_file(paths[0], show, std::cout, diagnostics);
  } else if (summary) {
    msdt::dump::take_inventory(paths, {.json = json}, std::cout, diagnostics);
  } else {
    list.format = msdt::table::choose_format(csv, json);
    list.header = !no_header;
    list.jobs = msdt::resolve_jobs(jobs);
    if (auto error = msdt::dump::list_tensors(paths, list, std::cout, diagnostics)) {
      diagnostics.error(*error);
      return msdt::kExitUsage;
    }
  }
  return msdt::finish_stdout(diagnostics);
}
