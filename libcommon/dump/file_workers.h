// Reads the files of a dump directory on several workers (`-j`) and hands back, in file order on
// the calling thread, what a caller computed per tensor: the parallel core of dump-parse --stats,
// meant for watch-check and dump-compare as well. Built on msdt::ordered_parallel: each file is
// read only while its worker computes on it (its bytes are released before the next), and the
// results of at most 32 × jobs files wait ahead of the one being consumed. The window is wide
// because results are small and tensor sizes vary over decades: with 2 × jobs, one large file
// held up every worker behind it (measured: dump-parse --stats -j2 0.64 s → 0.44 s on 2 GB).
// Messages come out in the same order as with one worker.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "dump/dump_file.h"
#include "dump/tree.h"
#include "io/error.h"
#include "io/parallel.h"
#include "io/report.h"

namespace msdt::dump {

// Warnings and errors a worker found, replayed on the calling thread in order.
class DeferredDiagnostics {
 public:
  void warning(std::string file, Error error) {
    items_.push_back({true, std::move(file), std::move(error)});
  }
  void error(std::string file, Error error) {
    items_.push_back({false, std::move(file), std::move(error)});
  }
  void replay(Diagnostics& diagnostics) const;

 private:
  struct Item {
    bool warning;
    std::string file;
    Error error;
  };
  std::vector<Item> items_;
};

// What the caller computes for one tensor on a worker; nullopt drops the tensor. `stats_jobs` is
// the worker count the caller may give compute_stats (all of them when a single file is read,
// 1 otherwise).
template <class Row>
using TensorTask =
    std::function<std::optional<Row>(const DumpFile& file, const DumpTensor& tensor,
                                     unsigned stats_jobs, DeferredDiagnostics& diagnostics)>;

// Maps each file, reads its tensors with read_dump_file and calls `task` per tensor on up to
// `jobs` workers; then, on the calling thread and in the order of `files`, reports the file's
// problems to `diagnostics` (read_dump_file's warnings; a damaged file is an error, an unknown
// one a warning, as report_read_failure says) and calls consume(file, rows).
// `reading`: Reading::Whole when the task reads every element (statistics, checks).
template <class Row>
void read_files_in_order(std::span<const DumpFile* const> files, unsigned jobs,
                         const TensorTask<Row>& task,
                         const std::function<void(const DumpFile&, std::vector<Row>&&)>& consume,
                         Diagnostics& diagnostics, Reading reading = Reading::Parts);

// The part of a file's reading that does not depend on Row: maps it, reads every tensor through
// `visit`, and records what went wrong.
void read_one_file(const DumpFile& file, const std::function<void(const DumpTensor&)>& visit,
                   DeferredDiagnostics& diagnostics, Reading reading = Reading::Parts);

template <class Row>
void read_files_in_order(std::span<const DumpFile* const> files, unsigned jobs,
                         const TensorTask<Row>& task,
                         const std::function<void(const DumpFile&, std::vector<Row>&&)>& consume,
                         Diagnostics& diagnostics, Reading reading) {
  struct Result {
    std::vector<Row> rows;
    DeferredDiagnostics problems;
  };
  unsigned stats_jobs = files.size() == 1 ? jobs : 1;
  ordered_parallel<Result>(
      files.size(), jobs, 32 * size_t{jobs},
      [&](size_t i) {
        Result result;
        read_one_file(
            *files[i],
            [&](const DumpTensor& tensor) {
              if (auto row = task(*files[i], tensor, stats_jobs, result.problems))
                result.rows.push_back(std::move(*row));
            },
            result.problems, reading);
        return result;
      },
      [&](size_t i, Result&& result) {
        result.problems.replay(diagnostics);
        consume(*files[i], std::move(result.rows));
      });
}

}  // namespace msdt::dump
