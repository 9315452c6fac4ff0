// The pieces of dump-convert, shared between its files (not part of the library's interface):
//
//   convert_options.cpp  the command line: -d list, -s, -t, -f checks
//   convert_names.cpp    output names (dump spec §10.1) and the uuid3 fallback for long ones
//   convert_plan.cpp     what one source becomes: a list of PlannedOutput, per source kind
//   npy_output.cpp       writing one PlannedOutput (npy_output.h, public: ckpt-inspect uses it)
//   convert_progress.cpp the progress bar on a terminal
//   convert.cpp          the run: sources, the worker pool, output directories, failed list
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "dump/convert.h"
#include "dump/npy_output.h"
#include "dump/tree.h"
#include "io/output_file.h"
#include "tensor/dtype.h"

namespace msdt::dump {

// What planning reports back. Planning goes on after a failed tensor, so that the others of the
// same source are still written.
struct PlanCallbacks {
  std::function<void(PlannedOutput&&)> emit;
  std::function<void(Error)> fail;     // the source is bad (listed as failed)
  std::function<void(Error)> warning;  // written anyway, with a note
};

// Plans every output of one source, whose whole contents are `contents`. `basename` is the
// name outputs start with ("stdin" for standard input). Returns a failure that stops the source.
Status plan_outputs(const ConvertOptions& options, const DumpFile& file, std::string_view basename,
                    Bytes contents, const PlanCallbacks& callbacks);

// A progress bar on stderr, redrawn at most 10 times a second by its own thread.
class ProgressBar {
 public:
  ProgressBar(bool enabled, uint64_t total_files, uint64_t total_bytes);
  ~ProgressBar();
  void file_done(uint64_t bytes);
  // Runs `print` (which writes whole lines to stderr) with the bar cleared first.
  void print_line(const std::function<void()>& print);
  void finish();

 private:
  void draw();
  void loop();

  bool enabled_;
  uint64_t total_files_, total_bytes_;
  std::atomic<uint64_t> files_{0}, bytes_{0};
  std::mutex draw_mutex_;
  bool drawn_ = false;
  std::mutex stop_mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace msdt::dump
