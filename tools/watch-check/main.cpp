// watch-check: the MindSpore debugger's watchpoints, offline, over dump directories.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <sstream>

#include "dump/select_options.h"
#include "io/cli.h"
#include "io/mapped_file.h"
#include "io/output_file.h"
#include "io/parallel.h"
#include "io/report.h"
#include "io/stdout.h"
#include "table/format.h"
#include "watch/check.h"
#include "watch/report.h"

namespace {

// Exit statuses (man page): 0 nothing to fail on, 1 a hit (or what --fail-on names),
// 2 usage or watch file, 3 an input unreadable or an output not written.
constexpr int kExitFail = 1;
constexpr int kExitInput = 3;

void list_conditions(std::ostream& out) {
  std::vector<std::vector<std::string>> rows{{"id", "abbr", "number", "backend", "parameters"}};
  for (const auto& c : msdt::watch::all_conditions()) {
    std::string params;
    for (const auto& p : c.params) {
      std::string item(p.name);
      if (p.default_value) item += "=" + msdt::table::format_double(*p.default_value);
      if (p.hidden) item += " (hidden)";
      params += (params.empty() ? "" : ", ") + item;
    }
    rows.push_back({std::string(c.id), c.abbr.empty() ? "-" : std::string(c.abbr),
                    std::to_string(static_cast<int>(c.backend)),
                    std::string(msdt::watch::backend_name(c.backend)),
                    params.empty() ? "-" : params});
  }
  out << msdt::table::align_columns(rows);
  // The other families' names, each with the condition it finds.
  std::vector<std::vector<std::string>> aliases{{"other name", "family", "number", "same as"}};
  for (const auto& a : msdt::watch::condition_aliases())
    aliases.push_back({std::string(a.name), std::string(a.family),
                       std::to_string(static_cast<int>(a.backend)),
                       std::string((*msdt::watch::find_condition(a.name))->id)});
  out << '\n' << msdt::table::align_columns(aliases);
}

}  // namespace

int main(int argc, char** argv) {
  msdt::use_line_stdout();
  CLI::App app{"check MindSpore debugger watchpoints offline over dump directories", "watch-check"};
  app.set_version_flag("--version", "watch-check (msdt) " MSDT_VERSION);

  std::vector<std::string> roots, params, nodes;
  std::string watch_file, condition, node_regex, io = "any", junit, fail_on = "hit";
  msdt::dump::Selection selection;
  bool recommended = false, json = false, csv = false, no_header = false, all = false,
       summary = false, list = false;
  uint64_t max_hits = 0;
  double fp16_limit = 65500;
  std::optional<long long> jobs;

  app.add_option("dumps", roots, "dump directories or files; - reads one file from standard input");
  auto* watch_opt =
      app.add_option("-w,--watch", watch_file, "watch file (JSON); - for standard input");
  auto* condition_opt = app.add_option("--condition", condition,
                                       "one condition: id, abbreviation, backend name or number");
  auto* param_opt = app.add_option("--param", params, "NAME=VALUE for --condition (repeatable)");
  auto* node_opt = app.add_option("--node", nodes, "watch this node (repeatable); default all");
  auto* regex_opt =
      app.add_option("--node-regex", node_regex, "watch nodes matching this RE2 regex");
  auto* io_opt = app.add_option("--io", io, "watch inputs, outputs or any (default any)")
                     ->check(CLI::IsMember({"input", "output", "any"}));
  auto* recommended_flag =
      app.add_flag("--recommended", recommended, "MindInsight's recommended watchpoints");
  msdt::dump::add_location_options(app, selection);
  auto* json_flag = app.add_flag("--json", json, "JSON Lines; with --summary one JSON document");
  auto* csv_flag = app.add_flag("--csv", csv, "CSV (RFC 4180) with a header line");
  app.add_flag("--no-header", no_header, "no header line in text, TSV and CSV");
  app.add_flag("--all", all, "also the records that neither hit nor errored");
  app.add_option("--junit", junit, "write a JUnit XML report to this file");
  app.add_option("--max-hits", max_hits, "stop after this many hits (0: no limit)")
      ->transform(msdt::at_least<uint64_t>(0));
  auto* summary_flag = app.add_flag("--summary", summary,
                                    "counts per iteration and tensors beyond the float16 range");
  app.add_option("--fp16-limit", fp16_limit, "|min| or |max| above this is out of range (65500)")
      ->transform(msdt::in_range(0.0, std::numeric_limits<double>::max()));
  app.add_option("--fail-on", fail_on, "what makes the exit status 1: hit, error, any, never")
      ->check(CLI::IsMember({"hit", "error", "any", "never"}));
  app.add_option("-j,--jobs", jobs, "parallel workers (default: all cores)");
  app.add_flag("--list-conditions", list, "list every condition with its parameters and exit");
  csv_flag->excludes(json_flag);
  watch_opt->excludes(condition_opt)->excludes(recommended_flag);
  condition_opt->excludes(recommended_flag);
  for (auto* opt : {param_opt, node_opt, regex_opt, io_opt}) opt->needs(condition_opt);
  node_opt->excludes(regex_opt);
  summary_flag->excludes(csv_flag);

  msdt::Diagnostics diagnostics("watch-check");
  auto checks = [&] {
    if (list) return;
    if (roots.empty()) throw CLI::RequiredError("DUMP_DIR");
    if (watch_file.empty() && condition.empty() && !recommended && !summary)
      throw CLI::ValidationError("give watchpoints: -w WATCH.json, --condition C or --recommended");
  };
  if (auto status = msdt::parse_command_line(app, argc, argv, diagnostics, checks)) return *status;
  if (list) {
    list_conditions(std::cout);
    return msdt::finish_stdout(diagnostics);
  }

  msdt::watch::CheckOptions options;
  options.roots = roots;
  options.jobs = msdt::resolve_jobs(jobs);
  options.all_records = all;
  for (auto [text, name, target] :
       {std::tuple{&selection.iterations, "--iteration", &options.iterations},
        std::tuple{&selection.ranks, "--rank", &options.ranks},
        std::tuple{&selection.graphs, "--graph", &options.graphs}}) {
    if (text->empty() || *text == "all") continue;
    // "init" names the directory of tensors dumped before the first step (iteration 2^32 - 1).
    std::string spelled = *text;
    for (size_t at; (at = spelled.find("init")) != std::string::npos;)
      spelled.replace(at, 4, std::to_string(msdt::dump::kInitIteration));
    auto ids = msdt::dump::parse_id_list(spelled);
    if (!ids) {
      diagnostics.error(std::move(ids.error()).with_context(name));
      return msdt::kExitUsage;
    }
    *target = std::move(*ids);
  }

  if (!watch_file.empty()) {
    auto mapped = watch_file == "-" ? msdt::MappedFile::read_stdin(
                                          std::nullopt, msdt::MappedFile::refuse_zero_start)
                                    : msdt::MappedFile::open(watch_file);
    if (!mapped) {
      diagnostics.error(watch_file, mapped.error());
      return msdt::kExitUsage;
    }
    msdt::Bytes b = mapped->bytes();
    auto parsed = msdt::watch::parse_watch_file(
        std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
    if (!parsed) {
      diagnostics.error(watch_file == "-" ? "<stdin>" : watch_file, parsed.error());
      return msdt::kExitUsage;
    }
    options.watchpoints = std::move(*parsed);
  } else if (!condition.empty()) {
    auto wp = msdt::watch::command_line_watchpoint(condition, params, nodes, node_regex, io);
    if (!wp) {
      diagnostics.error(wp.error());
      return msdt::kExitUsage;
    }
    options.watchpoints.push_back(std::move(*wp));
  } else if (recommended) {
    options.watchpoints = msdt::watch::recommended_watchpoints();
  }
  options.every_tensor = summary && options.watchpoints.empty();

  std::unique_ptr<msdt::table::Sink> sink;
  if (!summary)
    sink = msdt::table::make_sink(msdt::table::choose_format(csv, json),
                                  msdt::watch::record_schema(), !no_header, std::cout);
  msdt::watch::Tally tally(sink.get(), max_hits, !junit.empty(), summary, fp16_limit);
  msdt::watch::run_check(options, tally, diagnostics);
  if (sink) sink->finish();
  if (summary) tally.write_summary(std::cout, json);

  if (!junit.empty()) {
    std::ostringstream xml;
    tally.write_junit(xml);
    if (auto error = msdt::write_file_atomically(junit, xml.str()))
      diagnostics.output_error(junit, *error);
  }
  // A one-line verdict on standard error for people; quiet when there is nothing to say.
  if (!json && !summary && (tally.hits() > 0 || tally.errors() > 0))
    std::cerr << fmt::format("watch-check: {} hit(s), {} check error(s){}\n", tally.hits(),
                             tally.errors(), tally.stopped() ? " (stopped at --max-hits)" : "");

  int status = msdt::finish_stdout(diagnostics);
  if (status == msdt::kExitOutput) return msdt::kExitOutput;
  if (diagnostics.error_count() > 0) return kExitInput;
  bool fail = (fail_on == "hit" && tally.hits() > 0) ||
              (fail_on == "error" && tally.errors() > 0) ||
              (fail_on == "any" && tally.hits() + tally.errors() > 0);
  return fail ? kExitFail : msdt::kExitOk;
}
