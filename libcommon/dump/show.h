// `dump-parse --show FILE`: everything known about one dump file. Sections, in order: the path and
// its place in the layout, the fields of its name, the container (npy header fields, or every
// DumpData field, plus the decoded Opdebug record for overflow files), then per tensor its dtype,
// shape, bytes, statistics and values in NumPy's layout. Text is indented "key: value" lines;
// --json prints the same content as one JSON object.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "io/report.h"

namespace msdt::dump {

struct ShowOptions {
  bool json = false;
  uint64_t max_elements = 1000;  // values printed per tensor; the rest become "..."
};

// `path` is a file or "-" (standard input). Problems go to `diagnostics`.
void show_file(const std::string& path, const ShowOptions& options, std::ostream& out,
               Diagnostics& diagnostics);

}  // namespace msdt::dump
