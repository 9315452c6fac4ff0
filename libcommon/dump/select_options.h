// The selector options (dump/select.h) on a CLI11 app, spelled and described the same way in
// every tool. Header-only: only tools, which link CLI11, include it.
#pragma once

#include <CLI/CLI.hpp>

#include "dump/select.h"
#include "io/cli.h"

namespace msdt::dump {

// --iteration, --rank and --graph: where in a tree (watch-check takes only these).
inline void add_location_options(CLI::App& app, Selection& selection) {
  app.add_option("--iteration", selection.iterations, "keep these iterations, e.g. 0,3,5-8")
      ->check(non_empty());
  app.add_option("--rank", selection.ranks, "keep these ranks, e.g. 0-3")->check(non_empty());
  app.add_option("--graph", selection.graphs, "keep these graph ids")->check(non_empty());
}

inline void add_selection_options(CLI::App& app, Selection& selection) {
  app.add_option("--op", selection.op, "keep op names matching this RE2 regex");
  add_location_options(app, selection);
  app.add_option("--io", selection.io, "keep inputs or outputs")
      ->check(CLI::IsMember({"input", "output"}));
  app.add_option("--dtype", selection.dtypes, "keep these dtypes, any spelling, e.g. float32,BF16");
}

}  // namespace msdt::dump
