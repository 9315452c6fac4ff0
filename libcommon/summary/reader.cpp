#include "summary/reader.h"

#include <fmt/format.h>

#include <climits>
#include <cstdint>
#include <exception>
#include <future>
#include <memory>
#include <vector>

#include "io/parallel.h"

namespace msdt::summary {
namespace {

// Records are framed this many payload bytes ahead of the decoding (the framing reads only the
// 12-byte headers), and handed to the workers in batches: of about kShippedBatchBytes when the
// decoded events travel to the calling thread (small enough that they are still in cache there),
// of kPartBatchBytes when parts consume them where they were decoded (large enough that the
// threads seldom wait on each other).
constexpr uint64_t kWindowBytes = uint64_t{8} << 20;
constexpr uint64_t kShippedBatchBytes = uint64_t{32} << 10;
constexpr uint64_t kPartBatchBytes = uint64_t{256} << 10;
// How far ahead of the record being framed the file's bytes are fetched into the cache.
constexpr uint64_t kPrefetchAhead = 4096;

// A framed record, or a damaged stretch to report at its place in the order (`error`: an index
// into the window's framing errors). Small: a window holds tens of thousands.
struct Item {
  Record record;
  uint32_t error = UINT32_MAX;
};

// What a batch gave the calling thread: only what it must see there, in order (the events when
// they are shipped, the problems); everything else went to the batch's part.
struct Delivery {
  size_t item = 0;
  std::optional<Event> event;
  std::optional<Error> error;
};
struct BatchResult {
  uint64_t counted = 0;  // records whose payload was intact (counted in records())
  std::vector<Delivery> deliveries;
};

std::string skipped_text(const Record& r, uint64_t next, uint64_t size,
                         const RecordOptions& options) {
  std::string what = r.problem == RecordProblem::TooLarge
                         ? fmt::format("record length {} is over the limit of {} bytes", r.length,
                                       options.max_length)
                         : std::string("length CRC mismatch");
  return next < size ? fmt::format("{}: {} bytes skipped to the next good record at {:#x}", what,
                                   next - r.offset, next)
                     : fmt::format(
                           "{}: no good record after it, the rest of the file ({} bytes) "
                           "skipped",
                           what, size - r.offset);
}

// The records of a window, framed in order from `from`; damaged lengths are resynchronised here.
struct Window {
  std::vector<Item> items;
  std::vector<Error> framing_errors;
  uint64_t end = 0;            // where the next window starts
  std::optional<Record> tail;  // the truncated record that ends the file
};

Window frame_window(Bytes file, uint64_t from, const RecordOptions& options) {
  Window w;
  uint64_t at = from, framed = 0;
  while (at < file.size() && framed < kWindowBytes) {
    // Each header says where the next one is: a chain of loads that waits on memory at every
    // step unless the bytes ahead are already on their way.
    // Each header says where the next one is: a chain of loads that waits on memory at every
    // step unless the bytes ahead are already on their way (about one record's worth a step).
    if (at + kPrefetchAhead + 256 < file.size())
      for (uint64_t line = 0; line < 256; line += 64)
        __builtin_prefetch(file.data() + at + kPrefetchAhead + line);
    // Each header says where the next one is: a chain of loads that waits on memory at every
    // step unless the bytes ahead are already on their way (about one record's worth a step).
    if (at + kPrefetchAhead + 256 < file.size())
      for (uint64_t line = 0; line < 256; line += 64)
        __builtin_prefetch(file.data() + at + kPrefetchAhead + line);
    // Each header says where the next one is: a chain of loads that waits on memory at every
    // step unless the bytes ahead are already on their way (about one record's worth a step).
    if (at + kPrefetchAhead + 256 < file.size())
      for (uint64_t line = 0; line < 256; line += 64)
        __builtin_prefetch(file.data() + at + kPrefetchAhead + line);
    Record r = frame_record(file, at, options);
    if (r.problem == RecordProblem::Truncated) {
      w.tail = r;
      break;
    }
    if (r.problem == RecordProblem::BadLengthCrc || r.problem == RecordProblem::TooLarge) {
      uint64_t next = resync(file, at, options);
      w.framing_errors.push_back(Error::at_offset(at, skipped_text(r, next, file.size(), options)));
      r.next = next;
      w.items.push_back(Item{r, static_cast<uint32_t>(w.framing_errors.size() - 1)});
      at = next;
      continue;
    }
    framed += r.length + kRecordOverhead;
    at = r.next;
    w.items.push_back(Item{r});
  }
  w.end = at;
  return w;
}

}  // namespace

void FileReader::read(Bytes file, const ReadOptions& options, const ReadCallbacks& callbacks,
                      bool quiet_tail) {
  pending_ = 0;
  if (offset_ >= file.size()) return;
  Window next = frame_window(file, offset_, options.record);
  while (true) {
    Window window = std::move(next);
    // The next window is framed on another thread while this one is decoded (with one job, in
    // turn, on this thread).
    const bool more = !window.tail && window.end < file.size();
    std::future<Window> ahead;
    if (more && options.jobs > 1)
      ahead = std::async(std::launch::async, [&, from = window.end] {
        return frame_window(file, from, options.record);
      });
    std::vector<Item>& items = window.items;
    std::vector<Error>& framing_errors = window.framing_errors;
    const uint64_t at = window.end;
    std::optional<Record>& tail = window.tail;

    // The first record fixes the dialect: a version record says it; otherwise the name does.
    if (!decoder_) {
      for (const Item& item : items) {
        if (item.error != UINT32_MAX) continue;
        Dialect dialect = default_dialect(kind_);
        if (auto d = dialect_of_version_record(item.record.payload);
            d && kind_ != FileKind::Lineage)
          dialect = *d;
        decoder_.emplace(dialect, kind_ == FileKind::Explain);
        break;
      }
    }

    const bool ship = static_cast<bool>(callbacks.event);
    const uint64_t batch_bytes = ship ? kShippedBatchBytes : kPartBatchBytes;
    std::vector<std::pair<size_t, size_t>> batches;  // [first, last) items
    for (size_t i = 0; i < items.size();) {
      size_t first = i;
      uint64_t bytes = 0;
      while (i < items.size() && (i == first || bytes < batch_bytes))
        bytes += items[i++].record.length + kRecordOverhead;
      batches.emplace_back(first, i);
    }

    // Parts are made here, on the calling thread, before the workers start.
    std::vector<std::unique_ptr<EventPart>> parts(batches.size());
    if (callbacks.part)
      for (auto& part : parts) part = callbacks.part();

    // One item checked and decoded into `result`; `scratch`: the event decoded into when it
    // stays on this thread (its memory reused).
    auto decode = [&](size_t index, EventPart* part, Event& scratch, BatchResult& result) {
      const Item& item = items[index];
      if (item.error != UINT32_MAX) {
        result.deliveries.push_back({index, std::nullopt, framing_errors[item.error]});
        return;
      }
      const Record& r = item.record;
      if (options.record.verify && !payload_crc_ok(file, r)) {
        result.deliveries.push_back(
            {index, std::nullopt,
             Error::at_offset(r.offset, fmt::format("data CRC mismatch in a record of {} bytes: "
                                                    "record skipped",
                                                    r.length))});
        return;
      }
      ++result.counted;
      Event& event = scratch;  // when shipped, moved out, and a fresh one is filled next time
      Status status = decoder_->decode_into(r.payload, r.payload_offset(), options.decode, event);
      if (!status) {
        if (part) part->event(event);
        if (ship) result.deliveries.push_back({index, std::move(event), std::nullopt});
        return;
      }
      Error e = std::move(*status);
      // Without CRC checks, a payload that does not decode is checked now: damaged bytes are a
      // better explanation than a writer bug (RustBoard's lazy verification).
      if (!options.record.verify && !payload_crc_ok(file, r)) e.context("data CRC mismatch");
      result.deliveries.push_back(
          {index, std::nullopt, std::move(e).with_context("record skipped")});
    };
    auto produce = [&](size_t b) {
      BatchResult result;
      Event scratch;
      for (size_t i = batches[b].first; i < batches[b].second; ++i) {
        try {
          decode(i, parts[b].get(), scratch, result);
        } catch (const std::exception& e) {  // out of memory: the record is reported, not fatal
          result.deliveries.push_back(
              {i, std::nullopt,
               Error::at_offset(items[i].record.offset,
                                fmt::format("record skipped: {}", e.what()))});
        }
      }
      return result;
    };
    auto consume = [&](size_t b, BatchResult result) {
      records_ += result.counted;
      for (Delivery& d : result.deliveries) {
        if (d.error) {
          if (callbacks.error) callbacks.error(*d.error);
        } else if (d.event && callbacks.event) {
          callbacks.event(*d.event);
        }
        offset_ = items[d.item].record.next;
      }
      offset_ = items[batches[b].second - 1].record.next;
      if (parts[b]) {
        parts[b]->merge();
        parts[b].reset();
      }
      if (callbacks.done_before) callbacks.done_before(offset_);
    };
    unsigned jobs = decoder_ && decoder_->dialect() == Dialect::TensorFlow ? 1 : options.jobs;
    ordered_parallel<BatchResult>(batches.size(), jobs, 2 * size_t{jobs}, produce, consume);
    offset_ = at;
    if (more) next = ahead.valid() ? ahead.get() : frame_window(file, at, options.record);

    if (tail) {
      pending_ = file.size() - offset_;
      if (!quiet_tail && callbacks.truncated)
        callbacks.truncated(Error::at_offset(
            offset_, tail->length
                         ? fmt::format("truncated record: {} bytes of {} present (the file may "
                                       "still be growing)",
                                       pending_, tail->length + kRecordOverhead)
                         : fmt::format("truncated record header: {} of 12 bytes present (the "
                                       "file may still be growing)",
                                       pending_)));
      return;
    }
    if (!more) return;
  }
}

}  // namespace msdt::summary
