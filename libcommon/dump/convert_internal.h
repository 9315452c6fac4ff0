// The pieces of dump-convert, shared between its files (not part of the library's interface):
//
//   convert_options.cpp  the command line: -d list, -s, -t, -f checks
//   convert_names.cpp    output names (dump spec §10.1) and the uuid3 fallback for long ones
//   convert_plan.cpp     what one source becomes: a list of PlannedOutput, per source kind
//   convert_write.cpp    writing one PlannedOutput: .npy header + elements, raw bytes, text
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
#include "dump/tree.h"
#include "io/output_file.h"
#include "tensor/dtype.h"

namespace msdt::dump {

// One output of a source, decided before anything is written.
struct PlannedOutput {
  enum class Kind {
    CopyWhole,  // the source's bytes as they are (a standard .npy)
    Npy,        // `view` as a standard .npy (elements converted to their npy dtype)
    Raw,        // `view.data` as it is (-t bin, buffers, workspaces)
    Text        // `text` (overflow JSON)
  };
  OutputName name;
  Kind kind = Kind::Raw;
  TensorView view{DType::UInt8, {}, {}};          // Npy: elements; Raw: the bytes
  std::shared_ptr<std::vector<std::byte>> owned;  // bytes `view` points into, when not the source's
  std::string text;
};

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

// Where the bytes of one output go.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual Status write(Bytes data) = 0;
  // Two pieces at once (an npy header and a small payload).
  virtual Status write(Bytes first, Bytes second) = 0;
  // `region` lies inside the source file's bytes, which may be copied in the kernel.
  virtual Status copy(Bytes region) = 0;
};

// Writes the body of `out` (`source` is the whole source file, for CopyWhole).
Status write_output(const PlannedOutput& out, Bf16Mode bf16, Bytes source, Sink& sink);

// An AtomicFile; `source_fd` (or -1) is the open source whose bytes start at `source_base`.
class FileSink final : public Sink {
 public:
  FileSink(AtomicFile& file, int source_fd, const std::byte* source_base)
      : file_(file), source_fd_(source_fd), source_base_(source_base) {}
  Status write(Bytes data) override { return note(file_.write(data)); }
  Status write(Bytes first, Bytes second) override { return note(file_.write(first, second)); }
  Status copy(Bytes region) override;
  // Whether a failure came from writing (exit 3) rather than from the input's elements.
  bool output_failed() const { return output_failed_; }

 private:
  Status note(Status status) {
    if (status) output_failed_ = true;
    return status;
  }

  AtomicFile& file_;
  int source_fd_;
  const std::byte* source_base_;
  bool output_failed_ = false;
};

// Standard output (`-out -`).
class StdoutSink final : public Sink {
 public:
  Status write(Bytes data) override;
  Status write(Bytes first, Bytes second) override;
  Status copy(Bytes region) override { return write(region); }
};

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
