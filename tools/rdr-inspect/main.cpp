// rdr-inspect: what MindSpore's Running Data Recorder saw when training failed.
#include <CLI/CLI.hpp>
#include <iostream>

#include "dump/select.h"
#include "io/cli.h"
#include "io/output_file.h"
#include "io/parallel.h"
#include "io/regex.h"
#include "io/report.h"
#include "io/stdout.h"
#include "rdr/inspect.h"

int main(int argc, char** argv) {
  msdt::use_line_stdout();
  CLI::App app{"tell what MindSpore's Running Data Recorder saw when training failed",
               "rdr-inspect"};
  app.set_version_flag("--version", "rdr-inspect (msdt) " MSDT_VERSION);

  std::vector<std::string> inputs;
  std::string ranks, time, around, output;
  bool exec_order = false, memory = false, streams = false, dot = false, json = false;
  std::optional<uint32_t> graph_id;
  uint32_t context = 5;
  std::optional<long long> jobs;

  app.add_option("inputs", inputs,
                 "RDR directories: the RDR path (holding rank_N/rdr/), a rank_N or rdr directory, "
                 "or a 1.2-1.3 flat directory")
      ->required();
  auto* exec_flag = app.add_flag("--exec-order", exec_order,
                                 "the execution order around the last kernel launched");
  auto* around_opt = app.add_option(
      "--around", around, "with --exec-order: centre on kernels matching this RE2 regex");
  auto* context_opt =
      app.add_option("--context", context, "with --exec-order: kernels shown each side (default 5)")
          ->transform(msdt::at_least<uint32_t>(0));
  auto* memory_flag = app.add_flag(
      "--memory", memory, "every buffer of the kernels launched, largest first, overlaps flagged");
  auto* streams_flag = app.add_flag("--streams", streams, "kernels and events per stream");
  auto* graph_opt = app.add_option("--graph", graph_id, "a text summary of the graph file of ID");
  auto* dot_flag = app.add_flag("--dot", dot, "with --graph: the graph as Graphviz DOT");
  app.add_option("--rank", ranks, "only these ranks: 0,3,5-8")->check(msdt::non_empty());
  app.add_option("--time", time,
                 "only the failure of this timestamp (YYYYMMDDHHMMSS, as in the file names) or "
                 "'last'");
  app.add_flag("--json", json, "one JSON document (keys in rdr-inspect(1))");
  app.add_option("-o,--output", output,
                 "write to this file (atomically) instead of standard output");
  app.add_option("-j,--jobs", jobs, "parallel readers (default: all cores)");
  around_opt->needs(exec_flag);
  context_opt->needs(exec_flag);
  dot_flag->needs(graph_opt);
  dot_flag->excludes(app.get_option("--json"));
  for (auto* a :
       {exec_flag, memory_flag, streams_flag, graph_opt->transform(msdt::at_least<uint32_t>(0))})
    for (auto* b : {exec_flag, memory_flag, streams_flag, graph_opt})
      if (a != b) a->excludes(b);

  msdt::Diagnostics diagnostics("rdr-inspect");
  auto checks = [&] {
    if (!time.empty() && time != "last" &&
        (time.size() != 14 || time.find_first_not_of("0123456789") != std::string::npos))
      throw CLI::ValidationError(
          "--time takes a 14-digit timestamp (YYYYMMDDHHMMSS) or 'last', not '" + time + "'");
  };
  if (auto status = msdt::parse_command_line(app, argc, argv, diagnostics, checks)) return *status;

  msdt::rdr::ReadOptions read;
  if (!ranks.empty()) {
    auto list = msdt::dump::parse_id_list(ranks);
    if (!list) {
      diagnostics.error(std::move(list.error()).with_context("--rank"));
      return msdt::kExitUsage;
    }
    read.ranks = std::move(*list);
  }
  if (!time.empty()) read.timestamp = time;
  read.jobs = msdt::resolve_jobs(jobs);

  std::optional<msdt::Regex> around_regex;
  if (!around.empty()) {
    auto compiled = msdt::compile_user_regex(around);
    if (!compiled) {
      diagnostics.error(std::move(compiled.error()).with_context("--around"));
      return msdt::kExitUsage;
    }
    around_regex = std::move(*compiled);
  }

  msdt::rdr::ViewOptions view;
  using msdt::rdr::View;
  view.view = dot          ? View::Dot
              : graph_id   ? View::Graph
              : exec_order ? View::ExecOrder
              : memory     ? View::Memory
              : streams    ? View::Streams
                           : View::Report;
  view.json = json;
  view.around = around_regex ? &*around_regex : nullptr;
  view.context = context;
  view.graph_id = graph_id;

  std::vector<msdt::rdr::Recording> recordings;
  for (const std::string& input : inputs) {
    auto recording = msdt::rdr::read_recording(input, read, diagnostics);
    if (recording)
      recordings.push_back(std::move(*recording));
    else
      diagnostics.error(input, recording.error());
  }
  if (!recordings.empty()) {
    auto text = msdt::rdr::render(recordings, view);
    if (!text) {
      diagnostics.error(text.error());
    } else if (output.empty() || output == "-") {
      std::cout << *text;
    } else if (msdt::Status failed = msdt::write_file_atomically(output, *text)) {
      diagnostics.output_error(output, *failed);
    }
  }
  return msdt::finish_stdout(diagnostics);
}
