// ir-to-dot: MindSpore graph files (.ir, .dat, graph protobuf, analyze_fail) as Graphviz DOT.
#include <CLI/CLI.hpp>
#include <filesystem>

#include "io/cli.h"
#include "io/parallel.h"
#include "io/regex.h"
#include "io/report.h"
#include "io/stdout.h"
#include "ir/convert.h"

int main(int argc, char** argv) {
  msdt::use_line_stdout();
  CLI::App app{"draw MindSpore graph files (.ir, .dat, graph protobuf) as Graphviz DOT",
               "ir-to-dot"};
  app.set_version_flag("--version", "ir-to-dot (msdt) " MSDT_VERSION);

  std::vector<std::string> inputs;
  std::string output, focus, rankdir = "TB";
  bool no_types = false, no_monads = false, json = false, stats = false, why = false, diff = false,
       whole = false;
  std::optional<uint32_t> scope_depth;
  uint32_t radius = 2;
  uint64_t max_nodes = 20000;
  std::optional<long long> jobs;

  app.add_option("inputs", inputs,
                 "graph files or directories (recognised by content); - reads standard input")
      ->required();
  app.add_option("-o,--output", output,
                 "output file (one input; default standard output) or directory (directories, "
                 "several inputs)");
  app.add_flag("--no-types", no_types, "do not label edges with dtype and shape");
  app.add_flag("--no-monads", no_monads,
               "hide side-effect plumbing: U/IO monads, UpdateState, Depend's second input");
  app.add_option("--scope-depth", scope_depth,
                 "collapse nodes under scopes deeper than N into one box per scope")
      ->transform(msdt::at_least<uint32_t>(0));
  auto* focus_opt = app.add_option(
      "--focus", focus, "keep nodes matching this RE2 regex and --radius hops around them");
  app.add_option("--radius", radius, "hops kept around --focus nodes (default 2)")
      ->transform(msdt::at_least<uint32_t>(0));
  app.add_option("--max-nodes", max_nodes,
                 "refuse to draw more nodes than this (default 20000; 0: no limit)")
      ->transform(msdt::at_least<uint64_t>(0));
  app.add_option("--rankdir", rankdir, "layout direction: TB, LR, BT or RL (default TB)")
      ->check(CLI::IsMember({"TB", "LR", "BT", "RL"}));
  app.add_flag("--whole", whole,
               "analyze_fail files: draw every graph, not only the failure's neighbourhood");
  app.add_flag("--json", json, "the graph model (or --stats, --why) as JSON");
  auto* stats_flag = app.add_flag("--stats", stats, "node counts by op type, graph and scope");
  auto* why_flag = app.add_flag("--why", why, "explain an analyze_fail file in one screen");
  auto* diff_flag = app.add_flag("--diff", diff, "A B: draw B with what changed since A");
  app.add_option("-j,--jobs", jobs, "parallel workers for directories (default: all cores)");
  why_flag->excludes(stats_flag)->excludes(diff_flag);
  focus_opt->excludes(why_flag);

  msdt::Diagnostics diagnostics("ir-to-dot");
  auto checks = [&] {
    if (diff && inputs.size() != 2)
      throw CLI::ValidationError("--diff takes exactly two graph files: A B");
    if (why && inputs.size() != 1) throw CLI::ValidationError("--why takes one analyze_fail file");
    if (diff && json && !stats)
      throw CLI::ValidationError("--diff draws DOT; --json goes with --diff --stats");
    bool to_directory = inputs.size() > 1;
    for (const std::string& input : inputs) {
      std::error_code ec;
      if (input != "-" && std::filesystem::is_directory(input, ec)) to_directory = true;
    }
    if (!diff && to_directory && (output.empty() || output == "-"))
      throw CLI::ValidationError("directories and several inputs need -o DIR for their outputs");
  };
  if (auto status = msdt::parse_command_line(app, argc, argv, diagnostics, checks)) return *status;

  std::optional<msdt::Regex> focus_regex;
  if (!focus.empty()) {
    auto compiled = msdt::compile_user_regex(focus);
    if (!compiled) {
      diagnostics.error(std::move(compiled.error()).with_context("--focus"));
      return msdt::kExitUsage;
    }
    focus_regex = std::move(*compiled);
  }

  msdt::ir::ConvertOptions options;
  options.draw.types = !no_types;
  options.draw.monads = !no_monads;
  options.draw.scope_depth = scope_depth;
  options.draw.focus = focus_regex ? &*focus_regex : nullptr;
  options.draw.radius = radius;
  options.draw.max_nodes = max_nodes;
  options.draw.rankdir = rankdir;
  options.draw.whole = whole;
  options.stats_scope_depth = scope_depth.value_or(3);
  options.jobs = msdt::resolve_jobs(jobs);
  options.destination = output;
  options.free_model = false;  // the tool exits right after
  using msdt::ir::Output;
  options.output = why     ? (json ? Output::WhyJson : Output::Why)
                   : stats ? (json ? Output::StatsJson : Output::Stats)
                   : json  ? Output::Json
                           : Output::Dot;

  int status = diff ? msdt::ir::diff_inputs(inputs[0], inputs[1], options, diagnostics)
                    : msdt::ir::convert_inputs(inputs, options, diagnostics);
  int written = msdt::finish_stdout(diagnostics);
  if (written == msdt::kExitOutput) return msdt::kExitOutput;
  return status;
}
