// summary-cat's outputs: the value listing, the tag table, scalar rows, the export folder and the
// plots. Each is an EventSink-shaped consumer fed by scan(); selection (--tag, --kind, --steps)
// happens once, in Selection.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "io/regex.h"
#include "io/report.h"
#include "plot/plot.h"
#include "summary/scan.h"
#include "table/sink.h"

namespace msdt::summary {

// --tag REGEX (searched in the tag), --kind KIND,…, --steps A-B.
struct Selection {
  std::optional<Regex> tag;
  std::set<ValueKind> kinds;  // empty: all
  std::optional<int64_t> first_step, last_step;

  bool matches(const Event& event, const Value& value) const;
  bool matches_step(const std::optional<int64_t>& step) const;
};

// "A-B", "A-", "-B" or "A"; an error message otherwise.
Expected<std::pair<std::optional<int64_t>, std::optional<int64_t>>> parse_step_range(
    std::string_view text);

// A value in one short cell: the scalar; "PNG 28x28, 1.2 KiB"; "[-1, 1] n=100, 10 buckets";
// "float32 (2, 3) min=… max=… mean=…"; the text.
std::string render_value(const Value& value);
// The same for JSON: a number for scalars, an object otherwise.
nlohmann::ordered_json value_json(const Value& value);

// Python's float repr (what MindInsight's parse_summary writes): "0.10000000149011612", "1.0",
// "1e-05", "inf", "nan".
std::string python_float(double value);

struct ListOptions {
  table::Format format = table::Format::Text;
  bool header = true;
  bool show_run = false;
};

// The default view, one line per value: step, wall_time, tag, kind, value. With
// `scalars_only` (--scalars), scalar rows under MindInsight's parse_summary header: tag, step,
// wall_time (unit: seconds), value. Run and file join in JSON, run with --runs.
class ValueLister {
 public:
  ValueLister(const ListOptions& options, const Selection& selection, bool scalars_only,
              std::ostream& out);
  void event(const Source& source, const Event& event);
  // The rows of one batch of events made on a reading thread (reader.h). The lister must outlive
  // it.
  std::unique_ptr<EventPart> part(const Source& source);
  void finish();

 private:
  class Part;
  void rows(table::Sink& sink, table::Record& row, const Source& source, const Event& e) const;
  ListOptions options_;
  const Selection& selection_;
  bool scalars_only_;
  table::Schema schema_;
  std::ostream& out_;
  std::unique_ptr<table::Sink> sink_;
  table::Record row_;
};

// --tags: per tag, its kind, the number of steps, first and last step and value, and how often
// the step went backwards (like `tensorboard --inspect`).
class TagTable {
 public:
  TagTable(const ListOptions& options, const Selection& selection, std::ostream& out);
  void event(const Source& source, const Event& event);
  // One batch's share of the table, counted on a reading thread (reader.h) and added to the
  // whole in order. The table must outlive it.
  std::unique_ptr<EventPart> part(const Source& source);
  // Renders the first and last values the parts kept unrendered: call it after each read of a
  // file, while its bytes are still there (ScanOptions::read_done).
  void settle();
  void finish();

 private:
  class Part;
  // A value as the table will show it: scalars kept as numbers and spelled once, at the end;
  // other kinds rendered once the file's read is done (settle), before their bytes go.
  struct Shown {
    double scalar = 0;
    std::string text;
    nlohmann::ordered_json json;
  };
  void set_shown(Shown& shown, const Value& value) const;
  struct Entry {
    std::string run, tag;
    ValueKind kind = ValueKind::Scalar;
    uint64_t steps = 0, out_of_order = 0;
    std::optional<int64_t> first_step, last_step;
    Shown first, last;
    // From the parts: the first and last values when they are not scalars, kept unrendered (their
    // views into the file valid until the read of the file is done) and rendered once each, by
    // settle(): a tensor of each step is never rendered (its statistics computed) unless it is
    // the tag's first or last.
    std::optional<Value> unshown_first, unshown_last;
  };
  using Key = std::tuple<std::string, std::string, ValueKind>;  // run, tag, kind
  // Looked up with views, so that a value already seen copies no string.
  struct KeyLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return view(a) < view(b);
    }
    template <class K>
    static std::tuple<std::string_view, std::string_view, ValueKind> view(const K& k) {
      return {std::get<0>(k), std::get<1>(k), std::get<2>(k)};
    }
  };
  // The entries of the tags seen, in first-seen order: the whole table, or a batch's share.
  struct Tally {
    std::vector<Entry> entries;
    std::map<Key, size_t, KeyLess> index;
    std::vector<size_t> by_position;  // the entry of the value at each position of the last event
    const Source* source = nullptr;   // the source of that event (the guesses are its run's)
    bool part = false;                // a part's share: see Entry::unshown_first
    Entry& entry(const std::string& run, const std::string& tag, ValueKind kind);
  };
  // An event, or the last of a run of events of its shape (reader.h).
  void add(Tally& tally, const Source& source, const Event& e, const EventRun& run) const;
  void merge(Tally&& part);

  ListOptions options_;
  const Selection& selection_;
  std::ostream& out_;
  Tally tally_;
};

// --export DIR: scalar.csv (parse_summary's: CRLF, Python floats), image/<tag>_<step>.png,
// histogram/<tag>.csv, tensor/<tag>_<step>.npy, graph.dot, graph.json, lineage.json; every file
// written atomically, nothing outside DIR. With several runs, one subfolder per run.
class Exporter {
 public:
  // `per_run`: one subfolder per run (--runs); otherwise every input exports into DIR itself.
  Exporter(std::filesystem::path dir, const Selection& selection, Diagnostics& diagnostics,
           bool per_run);
  ~Exporter();
  void event(const Source& source, const Event& event);
  // Writes the files gathered over the whole input (scalar.csv, histograms, graph, lineage).
  void finish();

 private:
  struct RunFiles;
  RunFiles& run_files(const std::string& run);
  std::filesystem::path dir_;
  const Selection& selection_;
  Diagnostics& diagnostics_;
  std::map<std::string, std::unique_ptr<RunFiles>> runs_;
  bool per_run_ = false;
};

// A histogram as --plot-histograms draws it: its buckets as bins clipped to its min and max when
// known (TensorFlow's outer buckets reach ±DBL_MAX).
plot::HistogramStep histogram_step(int64_t step, const Histogram& histogram);

// --plot, --plot-histograms, --plot-tensors: the selected values gathered, drawn at the end.
struct PlotRequest {
  std::filesystem::path scalars, histograms, tensors;  // empty: not drawn
  bool overlay = false;                                // every tag in one panel
  plot::HistogramStyle histogram_style = plot::HistogramStyle::Ridgeline;
  plot::Options options;
};

class Plotter {
 public:
  Plotter(PlotRequest request, const Selection& selection, Diagnostics& diagnostics);
  void event(const Source& source, const Event& event);
  void finish();

 private:
  PlotRequest request_;
  const Selection& selection_;
  Diagnostics& diagnostics_;
  std::vector<std::string> tag_order_;  // first-seen order of tags
  std::map<std::string, std::map<std::string, std::vector<plot::Point>>> scalars_;  // tag, run
  std::map<std::string, plot::HistogramSeries> histograms_;
  std::map<std::string, plot::Heatmap> tensors_;  // the last step of each rank-2 tensor tag
  std::vector<std::string> runs_;
};

}  // namespace msdt::summary
