// dump-compare: two dumps compared op by op; where accuracy is lost.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <ctime>
#include <iostream>
#include <memory>
#include <sstream>

#include "compare/detail.h"
#include "compare/report.h"
#include "compare/run.h"
#include "dump/select.h"
#include "io/cli.h"
#include "io/output_file.h"
#include "io/parallel.h"
#include "io/report.h"
#include "io/stdout.h"
#include "table/sink.h"

namespace {

// Exit statuses (man page): 0 every row passes, 1 a row fails (error, or what --fail-on adds),
// 2 usage, 3 an input could not be read or an output not written (as watch-check).
constexpr int kExitFail = 1;
constexpr int kExitInput = 3;

}  // namespace

int main(int argc, char** argv) {
  namespace cmp = msdt::compare;
  msdt::use_line_stdout();
  CLI::App app{"compare two MindSpore dumps op by op and find where accuracy is lost",
               "dump-compare"};
  app.set_version_flag("--version", "dump-compare (msdt) " MSDT_VERSION);

  std::string mine, golden, rename_file, nan = "propagate", algorithms = "all", preset = "default",
                                         format = "own", output, only, ranks, detail,
                                         tensor = "output:0", png, plot;
  std::vector<std::string> thresholds, fail_on;
  bool key_task_id = false, last_only = false, exact_names = false, msaccucmp_cast = false,
       json = false, csv = false, no_header = false, summary = false, overflow_column = false;
  uint64_t max_elements = 0, max_line = 1000000, occurrence = 1;
  size_t top = 0;
  std::optional<long long> jobs;

  app.add_option("my_dump", mine, "the dump under test: a tree, a directory in it, a file or -")
      ->required();
  app.add_option("golden_dump", golden, "the golden dump, likewise")->required();
  app.add_option("--rename", rename_file, "CSV of 'my name,golden name' lines");
  app.add_flag("--key-task-id", key_task_id, "the task id is part of the key (msprobe)");
  app.add_flag("--last-only", last_only, "compare only the last occurrence of a key (msaccucmp)");
  app.add_flag(
      "--exact-names", exact_names,
      "compare op names as written (no folding of '--', '/', '\\', '.' and blanks to '_')");
  app.add_option("--nan", nan,
                 "NaN/Inf policy: propagate, same-positions (or mask-if-same-positions), mask (or "
                 "mask-all)")
      ->check(CLI::IsMember(
          {"propagate", "same-positions", "mask", "mask-if-same-positions", "mask-all"},
          CLI::ignore_case));
  app.add_flag("--msaccucmp", msaccucmp_cast, "cast to float32 first, as msaccucmp does");
  app.add_option("--alg,--algorithm", algorithms,
                 "msaccucmp metrics: all, or indices/names 0-9 (columns of --format msaccucmp)");
  app.add_option("--max-elements", max_elements, "compare the first N elements (0: all)")
      ->transform(msdt::at_least<uint64_t>(0));
  app.add_option("--preset", preset, "thresholds: default, msprobe or dtype")
      ->check(CLI::IsMember({"default", "msprobe", "dtype"}, CLI::ignore_case));
  app.add_option("--threshold", thresholds, "METRIC=WARN,ERROR or METRIC=off (repeatable)");
  app.add_option("--fail-on", fail_on,
                 "also fail (exit 1) on warning and/or unmatched rows; errors always fail");
  auto* json_flag = app.add_flag("--json", json, "JSON Lines after a header record");
  auto* csv_flag = app.add_flag("--csv", csv, "CSV (RFC 4180) with a header line");
  app.add_flag("--no-header", no_header, "no header line in text, TSV and CSV");
  app.add_option("--only", only,
                 "only rows with these verdicts: pass,warning,error,unmatched,skipped");
  auto* format_opt = app.add_option("--format", format, "own, msaccucmp or msprobe")
                         ->check(CLI::IsMember({"own", "msaccucmp", "msprobe"}));
  app.add_flag("--overflow-column", overflow_column,
               "with --format msaccucmp: the OverFlow column");
  app.add_option("-o,--output", output,
                 "write rows to this file (atomically); a directory for --format msaccucmp "
                 "(result_<time>.csv) and --detail");
  auto* summary_flag =
      app.add_flag("--summary", summary, "counts, worst rows, first divergence and the advisor");
  app.add_option("--top", top, "rows in --summary (10) or elements in --detail (20)")
      ->transform(msdt::in_range<size_t>(1, 10000));
  auto* detail_opt = app.add_option("--detail", detail, "every element of one tensor of this op");
  auto* tensor_opt =
      app.add_option("--tensor", tensor, "with --detail: input:N or output:N (default output:0)");
  auto* occurrence_opt = app.add_option("--occurrence", occurrence,
                                        "with --detail: which occurrence, from 1 (default 1)")
                             ->transform(msdt::at_least<uint64_t>(1));
  auto* max_line_opt =
      app.add_option("--max-line", max_line, "with --detail: lines per CSV file (1000000)")
          ->transform(msdt::at_least<uint64_t>(1));
  auto* png_opt = app.add_option("--png", png, "with --detail: a heatmap of |my - golden|");
  app.add_option("--plot", plot, "PNG of cosine and max relative error along execution order");
  app.add_option("--rank", ranks, "only these ranks: 0,3,5-8 (shards of one comparison)")
      ->check(msdt::non_empty());
  app.add_option("-j,--jobs", jobs, "parallel workers (default: all cores)");
  csv_flag->excludes(json_flag);
  for (auto* o : {tensor_opt, occurrence_opt, max_line_opt, png_opt}) o->needs(detail_opt);
  detail_opt->excludes(summary_flag)->excludes(format_opt);
  summary_flag->excludes(csv_flag);

  msdt::Diagnostics diagnostics("dump-compare");
  cmp::CompareOptions options;
  cmp::PairOptions pair_options;
  cmp::FailOn fail;
  std::set<cmp::Verdict> only_verdicts;
  cmp::DetailOptions detail_options;
  auto checks = [&] {
    if (format != "own" && (json || csv || no_header || !only.empty()))
      throw CLI::ValidationError("--format " + format +
                                 " writes the peer's CSV: --json, --csv, --no-header and --only "
                                 "apply to our own rows");
    if (overflow_column && format != "msaccucmp")
      throw CLI::ValidationError("--overflow-column is a column of --format msaccucmp");
    if (mine == "-" && golden == "-")
      throw CLI::ValidationError("standard input can be only one of the two dumps");
    options.metrics.nan = *cmp::parse_nan_policy(nan);
    options.metrics.cast_float32 = msaccucmp_cast;
    options.metrics.max_elements = max_elements;
    auto algs = cmp::Algorithms::parse(algorithms);
    if (!algs) throw CLI::ValidationError("--alg", algs.error().describe());
    options.metrics.algorithms = *algs;
    options.preset = *cmp::parse_preset(preset);
    for (const std::string& t : thresholds) {
      auto setting = cmp::parse_threshold(t);
      if (!setting) throw CLI::ValidationError("--threshold", setting.error().describe());
      options.thresholds.push_back(*setting);
    }
    for (const std::string& f : fail_on)
      if (msdt::Status bad = cmp::parse_fail_on(f, fail))
        throw CLI::ValidationError("--fail-on", bad->describe());
    if (!only.empty()) {
      auto verdicts = cmp::parse_verdict_list(only);
      if (!verdicts) throw CLI::ValidationError("--only", verdicts.error().describe());
      only_verdicts.insert(verdicts->begin(), verdicts->end());
    }
    if (!detail.empty()) {
      if (msdt::Status bad = cmp::parse_tensor_spec(tensor, detail_options))
        throw CLI::ValidationError("--tensor", bad->describe());
      detail_options.op = detail;
      detail_options.occurrence = occurrence - 1;
      detail_options.top = top ? top : 20;
      detail_options.max_line = max_line;
      detail_options.directory = output.empty() ? "." : output;
      if (!png.empty()) detail_options.png = png;
      detail_options.cast_float32 = msaccucmp_cast;
    }
  };
  if (auto status = msdt::parse_command_line(app, argc, argv, diagnostics, checks)) return *status;
  std::optional<msdt::dump::IdList> rank_list;
  if (!ranks.empty()) {
    auto parsed = msdt::dump::parse_id_list(ranks);
    if (!parsed) {
      diagnostics.error(std::move(parsed.error()).with_context("--rank"));
      return msdt::kExitUsage;
    }
    rank_list = std::move(*parsed);
  }
  if (!rename_file.empty()) {
    auto renames = cmp::read_rename_file(rename_file);
    if (!renames) {
      diagnostics.error(rename_file, renames.error());
      return msdt::kExitUsage;
    }
    pair_options.renames = std::move(*renames);
  }
  options.jobs = msdt::resolve_jobs(jobs);
  pair_options.key_task_id = key_task_id;
  pair_options.last_only = last_only;
  pair_options.exact_names = exact_names;
  pair_options.jobs = options.jobs;

  auto pairing = cmp::pair_dumps(mine, golden, pair_options);
  if (!pairing) {
    diagnostics.error(pairing.error());
    return kExitInput;
  }
  cmp::report_problems(*pairing, diagnostics);

  if (!detail.empty()) {
    auto row = cmp::find_detail_row(*pairing, detail_options);
    if (!row) {
      diagnostics.error(msdt::Error(row.error()).with_context("--detail"));
      return kExitInput;
    }
    std::vector<std::filesystem::path> written;
    if (auto failed = cmp::write_detail(*pairing, *row, detail_options, written)) {
      if (failed->output)
        diagnostics.output_error(failed->file, failed->error);
      else
        diagnostics.error(failed->file, failed->error);
    }
    for (const auto& path : written) std::cout << msdt::printable_path(path.string()) << '\n';
    int status = msdt::finish_stdout(diagnostics);
    return diagnostics.error_count() ? kExitInput : status;
  }

  std::vector<size_t> wanted;
  if (rank_list) {
    wanted = cmp::rows_in_ranks(*pairing, *rank_list);
    if (wanted.empty()) {
      diagnostics.error(msdt::Error(fmt::format("no tensor of rank {} in either dump", ranks)));
      return kExitInput;
    }
  }
  const uint64_t row_count = ranks.empty() ? pairing->rows.size() : wanted.size();
  const cmp::PairCounts counts = cmp::count_rows(*pairing, wanted);

  // Where rows go: standard output, or a file written whole at the end.
  const bool rows_to_file = !output.empty() && output != "-";
  std::ostringstream file_text;
  std::ostream& rows_out = rows_to_file ? static_cast<std::ostream&>(file_text) : std::cout;
  const bool rows_shown = rows_to_file || !summary;

  cmp::Listeners listeners;
  std::unique_ptr<msdt::table::Sink> sink;
  std::unique_ptr<cmp::RowTable> table;
  std::unique_ptr<cmp::MsaccucmpCsv> msaccucmp;
  std::unique_ptr<cmp::MsprobeCsv> msprobe;
  if (rows_shown) {
    if (format == "msaccucmp") {
      msaccucmp = std::make_unique<cmp::MsaccucmpCsv>(*pairing, rows_out,
                                                      options.metrics.algorithms, overflow_column);
      listeners.add(msaccucmp.get());
    } else if (format == "msprobe") {
      msprobe = std::make_unique<cmp::MsprobeCsv>(*pairing, rows_out);
      listeners.add(msprobe.get());
    } else {
      auto fmt_choice = rows_to_file ? msdt::table::choose_format(csv, json, false)
                                     : msdt::table::choose_format(csv, json);
      if (json) {
        cmp::RunDescription run{mine, golden, options, counts, row_count, fail_on};
        rows_out << cmp::json_header(run) << '\n';
      }
      const auto& schema =
          fmt_choice == msdt::table::Format::Text ? cmp::row_text_schema() : cmp::row_schema();
      sink = msdt::table::make_sink(fmt_choice, schema, !no_header, rows_out);
      table = std::make_unique<cmp::RowTable>(*pairing, *sink, only_verdicts);
      listeners.add(table.get());
    }
  }
  cmp::Summary tally(*pairing, counts, top ? top : 10);
  listeners.add(&tally);

  cmp::run_compare(*pairing, options, wanted, listeners, diagnostics);
  if (sink) sink->finish();

  if (rows_to_file) {
    std::filesystem::path target = output;
    std::error_code ec;
    if (format == "msaccucmp" && std::filesystem::is_directory(target, ec)) {
      std::time_t now = std::time(nullptr);
      std::tm local{};
      localtime_r(&now, &local);
      target /= cmp::msaccucmp_result_file_name(local);
    }
    if (msdt::Status failed = msdt::write_file_atomically(target, file_text.str()))
      diagnostics.output_error(target.string(), *failed);
  }
  if (summary) {
    if (json)
      tally.write_json(std::cout);
    else
      tally.write_text(std::cout);
  }
  if (!plot.empty()) {
    auto png_bytes = cmp::plot_divergence(tally, cmp::row_thresholds(options, std::nullopt, false));
    if (!png_bytes)
      diagnostics.output_error(plot, png_bytes.error());
    else if (msdt::Status failed = msdt::write_file_atomically(plot, *png_bytes))
      diagnostics.output_error(plot, *failed);
  }

  uint64_t failing = 0;
  for (size_t v = 0; v < cmp::kVerdictCount; ++v)
    if (cmp::fails_run(static_cast<cmp::Verdict>(v), fail)) failing += tally.verdicts()[v];
  const auto& verdicts = tally.verdicts();
  // Nothing compared is never a pass: said on standard error (the summary says it itself), and
  // the run fails (exit 1, or 3 when an input could not be read).
  const std::optional<std::string> nothing = tally.nothing_compared();
  if (nothing && !summary) {
    std::cout.flush();
    std::cerr << "dump-compare: error: nothing was compared: " << *nothing << '\n';
  }
  if (!json && !summary && failing > 0)
    std::cerr << fmt::format(
        "dump-compare: {} of {} rows fail: {} error, {} warning, {} unmatched\n", failing,
        row_count, verdicts[static_cast<size_t>(cmp::Verdict::Error)],
        verdicts[static_cast<size_t>(cmp::Verdict::Warning)],
        verdicts[static_cast<size_t>(cmp::Verdict::Unmatched)]);

  int status = msdt::finish_stdout(diagnostics);
  if (status == msdt::kExitOutput || diagnostics.error_count() > 0) return kExitInput;
  return failing > 0 || nothing ? kExitFail : msdt::kExitOk;
}
