// summary-cat's inputs read in order: files, run directories (their summary files in the order
// of their names' timestamps), `--runs` base directories, `-`; each event handed on with where it
// came from. With `follow`, the reading goes on as the files grow and new files appear, until
// `stop` is set (SIGINT).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "io/report.h"
#include "summary/reader.h"

namespace msdt::summary {

struct Source {
  std::string run;   // the run's name: the directory as given, a --runs subdirectory, or "."
  std::string file;  // the file as it is shown in messages and outputs
  FileKind kind = FileKind::Summary;
  Dialect dialect = Dialect::MindSpore;
};

struct ScanOptions {
  ReadOptions read;
  bool runs = false;    // each argument is a base directory whose subdirectories are runs
  bool strict = false;  // a truncated tail is an error, not a warning
  bool follow = false;
  std::chrono::milliseconds poll{200};
  const std::atomic<bool>* stop = nullptr;  // ends following
  // Called when following waits for the files to grow: what was printed must reach the reader
  // now, not when a buffer fills.
  std::function<void()> idle;
  // Called after each read of a file (every part merged), while its bytes are still mapped:
  // what kept views into them renders or copies them now.
  std::function<void()> read_done;
};

using EventSink = std::function<void(const Source&, const Event&)>;
// A consumer's part for one batch of a file's records (reader.h); the Source outlives the part.
using PartMaker = std::function<std::unique_ptr<EventPart>(const Source&)>;

// Reads every input; problems go to `diagnostics` (one line each, naming the file and offset).
// `sink` sees every event on the calling thread; `parts`, when given, makes the parts that see
// them on the reading threads. Either may be empty.
void scan(const std::vector<std::string>& inputs, const ScanOptions& options, const EventSink& sink,
          Diagnostics& diagnostics, const PartMaker& parts = {});

}  // namespace msdt::summary
