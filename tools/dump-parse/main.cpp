// dump-parse: list, summarise or show the tensors of MindSpore dump trees.
#include <CLI/CLI.hpp>
#include <iostream>

#include "dump/inventory.h"
#include "dump/list.h"
#include "dump/select_options.h"
#include "dump/show.h"
#include "io/cli.h"
#include "io/report.h"
#include "io/stdout.h"

int main(int argc, char** argv) {
  msdt::use_line_stdout();
  CLI::App app{"list the tensors of MindSpore dump files and directories", "dump-parse"};
  app.set_version_flag("--version", "dump-parse (msdt) " MSDT_VERSION);

  std::vector<std::string> paths;
  msdt::dump::ListOptions list;
  std::string show_path;
  msdt::dump::ShowOptions show;
  bool summary = false, csv = false, json = false, no_header = false;

  app.add_option("paths", paths, "dump files or directories (recursive); - reads standard input");
  app.add_flag("--csv", csv, "CSV (RFC 4180) with a header line");
  app.add_flag("--json", json, "JSON Lines; with --show or --summary one JSON object");
  app.add_flag("--no-header", no_header, "no header line in text, TSV and CSV");
  app.add_flag("--stats", list.stats, "add count, min, max, mean, std, ... per tensor");
  msdt::dump::add_selection_options(app, list.selection);
  auto* show_option = app.add_option("--show", show_path, "everything about one file");
  app.add_option("--max-elements", show.max_elements, "values printed by --show (default 1000)")
      ->needs(show_option);
  auto* summary_flag =
      app.add_flag("--summary", summary, "counts per rank and iteration, and tree checks");
  summary_flag->excludes(show_option);
  app.get_option("--csv")->excludes("--json");

  msdt::Diagnostics diagnostics("dump-parse");
  auto checks = [&] {
    if (show_path.empty() && paths.empty()) throw CLI::RequiredError("paths (or --show FILE)");
    if (!show_path.empty() && !paths.empty()) throw CLI::ExcludesError("--show", "paths");
  };
  if (auto status = msdt::parse_command_line(app, argc, argv, diagnostics, checks)) return *status;

  if (!show_path.empty()) {
    show.json = json;
    msdt::dump::show_file(show_path, show, std::cout, diagnostics);
  } else if (summary) {
    msdt::dump::take_inventory(paths, {.json = json}, std::cout, diagnostics);
  } else {
    list.format = msdt::table::choose_format(csv, json);
    list.header = !no_header;
    if (auto error = msdt::dump::list_tensors(paths, list, std::cout, diagnostics)) {
      diagnostics.error(*error);
      return msdt::kExitUsage;
    }
  }
  return msdt::finish_stdout(diagnostics);
}
