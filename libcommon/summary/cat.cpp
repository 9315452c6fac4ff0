#include "summary/cat.h"

#include <optional>
#include <ostream>

namespace msdt::summary {

int run_cat(const CatOptions& options, std::ostream& out, Diagnostics& diagnostics) {
  std::optional<ValueLister> values;
  std::optional<TagTable> tags;
  std::optional<Exporter> exporter;
  std::optional<Plotter> plotter;
  switch (options.view) {
    case View::Values:
    case View::Scalars:
      values.emplace(options.list, options.selection, options.view == View::Scalars, out);
      break;
    case View::Tags:
      tags.emplace(options.list, options.selection, out);
      break;
    case View::None:
      break;
  }
  if (!options.export_dir.empty())
    exporter.emplace(options.export_dir, options.selection, diagnostics, options.scan.runs);
  const PlotRequest& p = options.plot;
  if (!p.scalars.empty() || !p.histograms.empty() || !p.tensors.empty())
    plotter.emplace(p, options.selection, diagnostics);

  ScanOptions scan_options = options.scan;
  scan_options.idle = [&] { out.flush(); };
  if (tags) scan_options.read_done = [&] { tags->settle(); };
  // The listing is made (--tags counted) on the reading threads; the export and the plots take
  // the events on this thread.
  bool values_in_parts = static_cast<bool>(values);
  PartMaker parts;
  if (tags)
    parts = [&](const Source& source) { return tags->part(source); };
  else if (values_in_parts) {
    parts = [&](const Source& source) { return values->part(source); };
    // A listing's part holds its text until it is written: smaller chunks keep memory down.
    scan_options.read.chunk_bytes = uint64_t{256} << 10;
  }
  EventSink sink;
  if ((values && !values_in_parts) || exporter || plotter) {
    sink = [&](const Source& source, const Event& event) {
      if (values && !values_in_parts) values->event(source, event);
      if (exporter) exporter->event(source, event);
      if (plotter) plotter->event(source, event);
    };
  }
  scan(options.inputs, scan_options, sink, diagnostics, parts);
  if (values) values->finish();
  if (tags) tags->finish();
  if (exporter) exporter->finish();
  if (plotter) plotter->finish();
  return diagnostics.exit_code();
}

}  // namespace msdt::summary
