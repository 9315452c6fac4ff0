// dump-parse: list, summarise or show the tensors of MindSpore dump trees.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "dump/list.h"
#include "dump/show.h"
#include "dump/summary.h"
#include "io/parallel.h"
#include "io/report.h"

int main(int argc, char** argv) {
  CLI::App app{"list the tensors of MindSpore dump files and directories", "dump-parse"};
  app.set_version_flag("--version", "dump-parse (msdt) " MSDT_VERSION);

  std::vector<std::string> paths;
  msdt::dump::ListOptions list;
  std::string show_path;
  msdt::dump::ShowOptions show;
  bool summary = false, csv = false, json = false, no_header = false;
  std::optional<long long> jobs;

  app.add_option("paths", paths, "dump files or directories (recursive); - reads standard input");
  app.add_flag("--csv", csv, "CSV (RFC 4180) with a header line");
  app.add_flag("--json", json, "JSON Lines; with --show or --summary one JSON object");
  app.add_flag("--no-header", no_header, "no header line in text, TSV and CSV");
  app.add_flag("--stats", list.stats, "add count, min, max, mean, std, ... per tensor");
  app.add_option("-j,--jobs", jobs, "parallel workers for --stats (default: all cores)");
  app.add_option("--op", list.op, "keep op names matching this ECMAScript regex");
  app.add_option("--iteration", list.iterations, "keep these iterations, e.g. 0,3,5-8");
  app.add_option("--rank", list.ranks, "keep these ranks, e.g. 0-3");
  app.add_option("--graph", list.graphs, "keep these graph ids");
  app.add_option("--io", list.io, "keep inputs or outputs")
      ->check(CLI::IsMember({"input", "output"}));
  app.add_option("--dtype", list.dtypes, "keep these dtypes, any spelling, e.g. float32,BF16");
  auto* show_option = app.add_option("--show", show_path, "everything about one file");
  app.add_option("--max-elements", show.max_elements, "values printed by --show (default 1000)")
      ->needs(show_option);
  auto* summary_flag =
      app.add_flag("--summary", summary, "counts per rank and iteration, and tree checks");
  summary_flag->excludes(show_option);
  app.get_option("--csv")->excludes("--json");

  try {
    app.parse(argc, argv);
    if (show_path.empty() && paths.empty()) throw CLI::RequiredError("paths (or --show FILE)");
    if (!show_path.empty() && !paths.empty()) throw CLI::ExcludesError("--show", "paths");
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? msdt::kExitOk : msdt::kExitUsage;
  }

  msdt::Diagnostics diagnostics("dump-parse");
  if (!show_path.empty()) {
    show.json = json;
    msdt::dump::show_file(show_path, show, std::cout, diagnostics);
  } else if (summary) {
    msdt::dump::summarize_tree(paths, {.json = json}, std::cout, diagnostics);
  } else {
    list.style = json                    ? msdt::dump::OutputStyle::Json
                 : csv                   ? msdt::dump::OutputStyle::Csv
                 : isatty(STDOUT_FILENO) ? msdt::dump::OutputStyle::Text
                                         : msdt::dump::OutputStyle::Tsv;
    list.header = !no_header;
    list.jobs = msdt::resolve_jobs(jobs);
    if (auto error = msdt::dump::list_tensors(paths, list, std::cout, diagnostics)) {
      std::cerr << "dump-parse: error: " << error->describe() << "\n";
      return msdt::kExitUsage;
    }
  }
  std::cout.flush();
  if (!std::cout) diagnostics.output_error("", msdt::Error("cannot write standard output"));
  return diagnostics.exit_code();
}
