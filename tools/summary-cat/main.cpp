// summary-cat: MindSpore summary files (and TensorBoard tfevents files) as text, CSV, JSON Lines,
// an export folder and PNG plots, also while training still writes them.
#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <iostream>
#include <optional>

#include "io/cli.h"
#include "io/parallel.h"
#include "io/regex.h"
#include "io/report.h"
#include "io/stdout.h"
#include "summary/cat.h"

namespace {
std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) { interrupted = true; }
}  // namespace

int main(int argc, char** argv) {
  msdt::use_line_stdout();
  CLI::App app{"read MindSpore summary files and TensorBoard tfevents files", "summary-cat"};
  app.set_version_flag("--version", "summary-cat (msdt) " MSDT_VERSION);

  msdt::summary::CatOptions options;
  bool tags = false, scalars = false, csv = false, json = false, no_header = false, no_crc = false,
       heat = false;
  std::string tag, steps, kinds;
  std::string export_dir, plot, plot_histograms, plot_tensors;
  uint64_t max_record = msdt::summary::kDefaultMaxRecord;
  std::optional<long long> jobs;

  app.add_option("inputs", options.inputs,
                 "summary or tfevents files, run directories (their summary files in timestamp "
                 "order), or - for standard input")
      ->required();
  auto* tags_flag =
      app.add_flag("--tags", tags, "each tag: kind, steps, first and last step and value");
  auto* scalars_flag =
      app.add_flag("--scalars", scalars, "scalar rows: tag,step,wall_time (unit: seconds),value");
  tags_flag->excludes(scalars_flag);
  app.add_option("--tag", tag, "only tags matching this RE2 regex (searched)");
  app.add_option("--kind", kinds,
                 "only these kinds, comma-separated: scalar, image, histogram, tensor, "
                 "landscape, text, audio, lineage, explain");
  app.add_option("--steps", steps, "only steps A-B (A-, -B, or one step)");
  app.add_flag("--runs", options.scan.runs,
               "each directory argument holds runs: its subdirectories (a run column is added)");
  app.add_flag("--csv", csv, "CSV instead of aligned text or TSV");
  app.add_flag("--json", json, "JSON Lines");
  app.add_flag("--no-header", no_header, "no title line in text, TSV and CSV");
  app.add_option("--export", export_dir,
                 "write scalar.csv, image/, histogram/, tensor/, graph.dot, graph.json, "
                 "lineage.json into this directory");
  app.add_option("--plot", plot, "draw the selected scalars as line charts into this PNG file");
  app.add_flag("--overlay", options.plot.overlay, "--plot: every tag in one panel");
  app.add_option("--smooth", options.plot.options.smooth,
                 "--plot: exponential smoothing weight in [0, 1) (TensorBoard's)")
      ->transform(msdt::in_range(0.0, 0.999));
  app.add_flag("--log", options.plot.options.log_y, "--plot: logarithmic value axis");
  app.add_option("--plot-histograms", plot_histograms,
                 "draw the selected histograms over steps into this PNG file");
  app.add_flag("--heat", heat, "--plot-histograms: a heat strip instead of ridgelines");
  app.add_option("--plot-tensors", plot_tensors,
                 "draw the last step of each selected rank-2 tensor as a heatmap (PNG)");
  app.add_option("--width", options.plot.options.panel_width, "plot panel width in pixels")
      ->transform(msdt::in_range<decltype(options.plot.options.panel_width)>(200, 4000));
  app.add_option("--height", options.plot.options.panel_height, "plot panel height in pixels")
      ->transform(msdt::in_range<decltype(options.plot.options.panel_height)>(150, 4000));
  app.add_flag("--follow,-f", options.scan.follow,
               "keep reading as the files grow and new files appear, until interrupted");
  app.add_flag("--no-crc", no_crc, "do not verify record CRCs (checked only when decoding fails)");
  app.add_flag("--strict", options.scan.strict, "a truncated record at the end is an error");
  app.add_option("-j,--jobs", jobs,
                 "threads checking and decoding records (default: all cores); output order is "
                 "the file's");
  app.add_option("--max-record", max_record,
                 "refuse records longer than this many bytes (default 2147483647)")
      ->transform(msdt::at_least<uint64_t>(1));

  msdt::Diagnostics diagnostics("summary-cat");
  if (auto status = msdt::parse_command_line(app, argc, argv, diagnostics)) return *status;

  auto usage = [&](const std::string& what) {
    diagnostics.error(msdt::Error(what));
    return msdt::kExitUsage;
  };
  if (!tag.empty()) {
    auto compiled = msdt::compile_user_regex(tag);
    if (!compiled) return usage("--tag: " + compiled.error().describe());
    options.selection.tag = std::move(*compiled);
  }
  for (size_t at = 0; !kinds.empty() && at <= kinds.size();) {
    size_t comma = std::min(kinds.find(',', at), kinds.size());
    auto kind = msdt::summary::parse_value_kind(kinds.substr(at, comma - at));
    if (!kind) return usage("--kind: unknown kind '" + kinds.substr(at, comma - at) + "'");
    options.selection.kinds.insert(*kind);
    at = comma + 1;
  }
  if (!steps.empty()) {
    auto range = msdt::summary::parse_step_range(steps);
    if (!range) return usage("--steps: " + range.error().describe());
    options.selection.first_step = range->first;
    options.selection.last_step = range->second;
  }

  options.scan.read.record.verify = !no_crc;
  options.scan.read.record.max_length = max_record;
  options.scan.read.jobs = msdt::resolve_jobs(jobs);
  options.view =
      tags      ? msdt::summary::View::Tags
      : scalars ? msdt::summary::View::Scalars
      : (!export_dir.empty() || !plot.empty() || !plot_histograms.empty() || !plot_tensors.empty())
          ? msdt::summary::View::None
          : msdt::summary::View::Values;
  options.list.format = msdt::table::choose_format(csv, json);
  // Aligned text waits for the last row: a followed file streams TSV instead.
  if (options.scan.follow && options.list.format == msdt::table::Format::Text)
    options.list.format = msdt::table::Format::Tsv;
  options.list.header = !no_header;
  options.list.show_run = options.scan.runs;
  options.export_dir = export_dir;
  options.plot.scalars = plot;
  options.plot.histograms = plot_histograms;
  options.plot.tensors = plot_tensors;
  options.plot.histogram_style =
      heat ? msdt::plot::HistogramStyle::Heat : msdt::plot::HistogramStyle::Ridgeline;

  options.scan.stop = &interrupted;
  if (options.scan.follow) std::signal(SIGINT, on_interrupt);

  int status = msdt::summary::run_cat(options, std::cout, diagnostics);
  int written = msdt::finish_stdout(diagnostics);
  if (written == msdt::kExitOutput) return msdt::kExitOutput;
  return status;
}
