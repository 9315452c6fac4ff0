#include "summary/reader.h"

#include <fmt/format.h>

#include <exception>
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

// A framed record, or a damaged stretch to report at its place in the order.
struct Item {
  Record record;
  std::optional<Error> error;  // the framing's problem, the stretch up to record.next skipped
};

// What checking and decoding an item gave.
struct Outcome {
  uint64_t next = 0;
  bool counted = false;  // a record whose payload was intact (counted in records())
  std::optional<Event> event;
  std::optional<Error> error;
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

}  // namespace

void FileReader::read(Bytes file, const ReadOptions& options, const ReadCallbacks& callbacks,
                      bool quiet_tail) {
  pending_ = 0;
  while (offset_ < file.size()) {
    // Frame a window of records; damaged lengths are resynchronised here, in order.
    std::vector<Item> items;
    uint64_t at = offset_, framed = 0;
    std::optional<Record> tail;  // the truncated record that ends the file
    while (at < file.size() && framed < kWindowBytes) {
      Record r = frame_record(file, at, options.record);
      if (r.problem == RecordProblem::Truncated) {
        tail = r;
        break;
      }
      if (r.problem == RecordProblem::BadLengthCrc || r.problem == RecordProblem::TooLarge) {
        uint64_t next = resync(file, at, options.record);
        Error e = Error::at_offset(at, skipped_text(r, next, file.size(), options.record));
        r.next = next;
        items.push_back(Item{r, std::move(e)});
        at = next;
        continue;
      }
      framed += r.length + kRecordOverhead;
      at = r.next;
      items.push_back(Item{r, std::nullopt});
    }

    // The first record fixes the dialect: a version record says it; otherwise the name does.
    if (!decoder_) {
      for (const Item& item : items) {
        if (item.error) continue;
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

    // `scratch`: the event decoded into when it stays on this thread (its memory reused).
    auto decode = [&](const Item& item, EventPart* part, Event& scratch) {
      Outcome out;
      out.next = item.record.next;
      if (item.error) {
        out.error = *item.error;
        return out;
      }
      const Record& r = item.record;
      if (options.record.verify && !payload_crc_ok(file, r)) {
        out.error = Error::at_offset(
            r.offset,
            fmt::format("data CRC mismatch in a record of {} bytes: record skipped", r.length));
        return out;
      }
      out.counted = true;
      Event& event = ship ? out.event.emplace() : scratch;
      Status status = decoder_->decode_into(r.payload, r.payload_offset(), options.decode, event);
      if (!status) {
        if (part) part->event(event);
        return out;
      }
      out.event.reset();
      Error e = std::move(*status);
      // Without CRC checks, a payload that does not decode is checked now: damaged bytes are a
      // better explanation than a writer bug (RustBoard's lazy verification).
      if (!options.record.verify && !payload_crc_ok(file, r)) e.context("data CRC mismatch");
      out.error = std::move(e).with_context("record skipped");
      return out;
    };
    auto produce = [&](size_t b) {
      std::vector<Outcome> outcomes;
      outcomes.reserve(batches[b].second - batches[b].first);
      Event scratch;
      for (size_t i = batches[b].first; i < batches[b].second; ++i) {
        try {
          outcomes.push_back(decode(items[i], parts[b].get(), scratch));
        } catch (const std::exception& e) {  // out of memory: the record is reported, not fatal
          Outcome out;
          out.next = items[i].record.next;
          out.error =
              Error::at_offset(items[i].record.offset, fmt::format("record skipped: {}", e.what()));
          outcomes.push_back(std::move(out));
        }
      }
      return outcomes;
    };
    auto consume = [&](size_t b, std::vector<Outcome> outcomes) {
      for (Outcome& out : outcomes) {
        if (out.counted) ++records_;
        if (out.error) {
          if (callbacks.error) callbacks.error(*out.error);
        } else if (out.event && callbacks.event) {
          callbacks.event(*out.event);
        }
        offset_ = out.next;
      }
      if (parts[b]) {
        parts[b]->merge();
        parts[b].reset();
      }
      if (callbacks.done_before) callbacks.done_before(offset_);
    };
    unsigned jobs = decoder_ && decoder_->dialect() == Dialect::TensorFlow ? 1 : options.jobs;
    ordered_parallel<std::vector<Outcome>>(batches.size(), jobs, 2 * size_t{jobs}, produce,
                                           consume);
    offset_ = at;

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
  }
}

}  // namespace msdt::summary
