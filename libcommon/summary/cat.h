// summary-cat as a library call: the inputs scanned once, every event handed to the output the
// options chose (listing, --tags, --scalars, --export, plots; export and plots can go with a
// listing in the same pass).
#pragma once

#include <atomic>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "io/report.h"
#include "summary/output.h"
#include "summary/scan.h"

namespace msdt::summary {

enum class View : uint8_t { Values, Tags, Scalars, None };

struct CatOptions {
  std::vector<std::string> inputs;
  ScanOptions scan;
  Selection selection;
  View view = View::Values;
  ListOptions list;
  std::filesystem::path export_dir;  // empty: no export
  PlotRequest plot;
};

// Runs the whole command; returns the exit status (diagnostics decide it).
int run_cat(const CatOptions& options, std::ostream& out, Diagnostics& diagnostics);

}  // namespace msdt::summary
