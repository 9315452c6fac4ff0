// Reading one summary or tfevents file: records framed and checked (record.h), then decoded as
// events (event.h), with every problem reported and the reading carried on where it can be
// (spec summary.md §12.4). Resumable: a followed file is read again from where it stopped once
// it has grown.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "io/error.h"
#include "summary/event.h"
#include "summary/files.h"
#include "summary/record.h"

namespace msdt::summary {

struct ReadOptions {
  RecordOptions record;
  DecodeOptions decode;
  // Threads checking and decoding records (-j); events reach the callbacks in file order on the
  // calling thread whatever the number. TensorFlow files are decoded on one thread: a tag's
  // plugin name carries from its first value to the later ones.
  unsigned jobs = 1;
  // The bytes of records read as one chunk (reader.cpp); 0: the reader's choice, 32 KiB when the
  // events go to the calling thread, 1 to 4 MiB when parts take them (by the number of threads). A
  // consumer whose parts hold output as large as their records asks for less (the chunks in flight
  // are held at once).
  uint64_t chunk_bytes = 0;
};

// A consumer's share of the reading threads' work: the events of one chunk of records are
// handed to event() on the thread that decoded them, in file order; merge() is then called on
// the calling thread, chunk after chunk in file order (where the share joins the whole: text
// written out, counts added up). Events given to event() live only for that call.
// A run of events that differ from an earlier one given to the same part only in wall time,
// step and scalar values (RepeatedShape): the same tags and kinds in the same order.
struct EventRun {
  uint64_t count = 1;
  std::optional<int64_t> first_step;  // the first event's step
  uint64_t steps_back = 0;            // events whose step is below the one before, in the run
};

class EventPart {
 public:
  virtual ~EventPart() = default;
  virtual void event(const Event& event) = 0;
  virtual void merge() = 0;
  // A part that only counts (summary-cat --tags) may take runs: after an event() of the shape,
  // the records of the same shape that follow are not decoded but counted, and reach run() as
  // the run's last event (decoded) and what the others had: their number and steps.
  virtual bool takes_runs() const { return false; }
  virtual void run(const Event& /*last*/, const EventRun& /*run*/) {}
  // For a part that takes runs: whether it counts events at `step` (a step range). Records of a
  // run's shape at other steps end the run and are passed over; only an event at a step counted
  // starts a run.
  virtual bool counts_step(int64_t /*step*/) const { return true; }
};

struct ReadCallbacks {
  // Each event, on the calling thread, in file order. Left empty when `part` does all the work:
  // the events then never leave the thread that decoded them.
  std::function<void(const Event&)> event;
  // When given, called for a part per chunk of records, on the reading thread that reads the
  // chunk (one call at a time).
  std::function<std::unique_ptr<EventPart>()> part;
  // A damaged record, skipped (the rest of the file is still read where the framing allows).
  std::function<void(const Error&)> error;
  // A partial record at the end: the file may still be growing.
  std::function<void(const Error&)> truncated;
  // Everything before `offset` is read and handed on: a mapped file may give those pages back.
  std::function<void(uint64_t offset)> done_before;
};

// The state of reading one file: where the next record starts, the dialect, TensorFlow's plugin
// names per tag. The records are read in chunks on `jobs` threads, each chunk framed, checked and
// decoded in one pass from where its first record looks like it starts (two records whose CRCs
// hold); that start is then checked against where the chunk before ended, and the chunk read
// again from there when they differ (records inside another's payload; damage).
class FileReader {
 public:
  explicit FileReader(FileKind kind) : kind_(kind) {}

  // Reads the records of `file` (the whole file as it is now) from where the last call stopped.
  // A partial record at the end stops the reading there (reported through `truncated` unless
  // `quiet_tail`): the next call, on the grown file, starts again at that record.
  void read(Bytes file, const ReadOptions& options, const ReadCallbacks& callbacks,
            bool quiet_tail = false);

  uint64_t offset() const { return offset_; }
  // Bytes of an incomplete record left at the end after the last read.
  uint64_t pending() const { return pending_; }
  std::optional<Dialect> dialect() const {
    return decoder_ ? std::optional(decoder_->dialect()) : std::nullopt;
  }
  uint64_t records() const { return records_; }

 private:
  FileKind kind_;
  std::optional<EventDecoder> decoder_;
  uint64_t offset_ = 0, pending_ = 0, records_ = 0;
};

}  // namespace msdt::summary
