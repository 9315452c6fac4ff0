// What a file in a dump tree is for, as every walk over a tree needs to know it: does it hold
// tensors, is it a side file (mapping, execution order, graphs) with nothing to list, and is a file
// that failed to read damaged or just a stranger in the tree.
#pragma once

#include <string>

#include "dump/file_name.h"
#include "dump/tree.h"
#include "io/byte_reader.h"
#include "io/error.h"
#include "io/report.h"

namespace msdt::dump {

// True for name kinds that hold tensors (so a statistic.csv beside them is a duplicate).
bool kind_holds_tensors(FileKind kind);
// True for side files read_dump_file would visit nothing for; listing skips them unread.
bool kind_is_side_file(FileKind kind);

// What to say when read_dump_file fails: a name no grammar knows with content that is neither
// npy nor DumpData is a warning "unknown file: <why>" (returns false); anything else is damage,
// reported as an error (returns true).
bool report_read_failure(const DumpFile& file, Bytes contents, const Error& error,
                         Diagnostics& diagnostics);
// True when report_read_failure would call the file unknown; `why` gets the reason.
bool is_unknown_file(const DumpFile& file, Bytes contents, const Error& error, std::string& why);

}  // namespace msdt::dump
