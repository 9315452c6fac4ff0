#include "summary/reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "io/parallel.h"

namespace msdt::summary {
namespace {

// The file is read in chunks: chunk i holds the records that start in [i C, (i + 1) C) of the
// part read by this call. Unless the caller chooses C (ReadOptions::chunk_bytes), it is
// kShippedChunkBytes when the decoded events travel to the calling thread (small enough that they
// are still in cache there) and kPartChunkBytes when parts consume them where they were decoded
// (large enough that the threads seldom wait on each other: a 256 KiB chunk costs --tags a tenth
// more CPU time in hand-overs and concurrent page faults).
// A worker frames its chunk (the record headers: a chain, each says where the next one is), says
// where the next chunk starts, then checks and decodes the records it framed while they are in
// its cache; the framing is the only part done in turn.
constexpr uint64_t kShippedChunkBytes = uint64_t{32} << 10;
constexpr uint64_t kPartChunkBytes = uint64_t{1} << 20;
// How far ahead of the record being framed the file's bytes are fetched into the cache.
constexpr uint64_t kPrefetchAhead = 4096;

// A framed record, or a damaged stretch to report at its place in the order (`error`: an index
// into the chunk's framing errors). Small: a chunk holds about a thousand.
struct Item {
  Record record;
  uint32_t error = UINT32_MAX;
};

// What a chunk gave the calling thread: only what it must see there, in order (the events when
// they are shipped, the problems); everything else went to the chunk's part.
struct Delivery {
  uint64_t next = 0;  // where the record after this one starts
  std::optional<Event> event;
  std::optional<Error> error;
};
struct ChunkResult {
  uint64_t counted = 0;  // records whose payload was intact (counted in records())
  std::vector<Delivery> deliveries;
  std::optional<uint64_t> end;  // where the next chunk's records start (unset: not read)
  std::optional<Record> tail;   // the truncated record that ends the file
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

// The records that start in [from, limit), framed in order; damaged lengths are resynchronised
// here. Returns where the framing stopped: the first record at or after `limit`, the end of the
// file, or (with `tail` set) the truncated record that ends it.
uint64_t frame_chunk(Bytes file, uint64_t from, uint64_t limit, const RecordOptions& options,
                     std::vector<Item>& items, std::vector<Error>& framing_errors,
                     std::optional<Record>& tail) {
  uint64_t at = from;
  while (at < file.size() && at < limit) {
    // Each header says where the next one is: a chain of loads that waits on memory at every
    // step unless the bytes ahead are already on their way (about one record's worth a step).
    if (at + kPrefetchAhead + 256 < file.size())
      for (uint64_t line = 0; line < 256; line += 64)
        __builtin_prefetch(file.data() + at + kPrefetchAhead + line);
    Record r = frame_record(file, at, options);
    if (r.problem == RecordProblem::Truncated) {
      tail = r;
      break;
    }
    if (r.problem == RecordProblem::BadLengthCrc || r.problem == RecordProblem::TooLarge) {
      uint64_t next = resync(file, at, options);
      framing_errors.push_back(Error::at_offset(at, skipped_text(r, next, file.size(), options)));
      r.next = next;
      items.push_back(Item{r, static_cast<uint32_t>(framing_errors.size() - 1)});
      at = next;
      continue;
    }
    at = r.next;
    items.push_back(Item{r});
  }
  return at;
}

// Where each chunk starts, said by the worker that framed the chunk before it, in chunk order.
class Frontier {
 public:
  explicit Frontier(uint64_t start) : start_(start) {}
  // Waits until chunk i's start is known: its offset, or nullopt when the file ended before it.
  std::optional<uint64_t> wait(size_t i) {
    std::unique_lock lock(mutex_);
    known_.wait(lock, [&] { return index_ == i; });
    return ended_ ? std::nullopt : std::optional(start_);
  }
  // Chunk i + 1 starts at `next` (or nothing more is read: `ended`).
  void say(size_t i, uint64_t next, bool ended) {
    {
      std::lock_guard lock(mutex_);
      index_ = i + 1;
      start_ = next;
      ended_ = ended_ || ended;
    }
    known_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable known_;
  size_t index_ = 0;
  uint64_t start_;
  bool ended_ = false;
};

}  // namespace

void FileReader::read(Bytes file, const ReadOptions& options, const ReadCallbacks& callbacks,
                      bool quiet_tail) {
  pending_ = 0;
  if (offset_ >= file.size()) return;

  // The first intact record fixes the dialect: a version record says it; otherwise the name
  // does. Found by framing from the start (the headers only) before the workers decode.
  if (!decoder_) {
    for (uint64_t at = offset_; at < file.size() && !decoder_;) {
      Record r = frame_record(file, at, options.record);
      if (r.problem == RecordProblem::Truncated) break;
      if (r.problem != RecordProblem::None) {
        at = resync(file, at, options.record);
        continue;
      }
      Dialect dialect = default_dialect(kind_);
      if (auto d = dialect_of_version_record(r.payload); d && kind_ != FileKind::Lineage)
        dialect = *d;
      decoder_.emplace(dialect, kind_ == FileKind::Explain);
    }
  }

  const bool ship = static_cast<bool>(callbacks.event);
  const uint64_t chunk_bytes = options.chunk_bytes ? options.chunk_bytes
                               : ship              ? kShippedChunkBytes
                                                   : kPartChunkBytes;
  const uint64_t first = offset_;
  const size_t chunks = static_cast<size_t>((file.size() - first + chunk_bytes - 1) / chunk_bytes);
  const unsigned jobs =
      decoder_ && decoder_->dialect() == Dialect::TensorFlow ? 1 : std::max(1u, options.jobs);
  // A chunk's part is made by the worker that reads it, one at a time.
  std::mutex parts_mutex;
  auto make_part = [&]() -> std::unique_ptr<EventPart> {
    if (!callbacks.part) return nullptr;
    std::lock_guard lock(parts_mutex);
    return callbacks.part();
  };
  Frontier frontier(first);

  // One framed item checked and decoded; `scratch`: the event decoded into when it stays on this
  // thread (its memory reused).
  auto decode = [&](const Item& item, const std::vector<Error>& framing_errors, EventPart* part,
                    Event& scratch, ChunkResult& result) {
    const Record& r = item.record;
    if (item.error != UINT32_MAX) {
      result.deliveries.push_back({r.next, std::nullopt, framing_errors[item.error]});
      return;
    }
    if (options.record.verify && !payload_crc_ok(file, r)) {
      result.deliveries.push_back(
          {r.next, std::nullopt,
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
      if (ship) result.deliveries.push_back({r.next, std::move(event), std::nullopt});
      return;
    }
    Error e = std::move(*status);
    // Without CRC checks, a payload that does not decode is checked now: damaged bytes are a
    // better explanation than a writer bug (RustBoard's lazy verification).
    if (!options.record.verify && !payload_crc_ok(file, r)) e.context("data CRC mismatch");
    result.deliveries.push_back(
        {r.next, std::nullopt, std::move(e).with_context("record skipped")});
  };

  struct Produced {
    ChunkResult result;
    std::unique_ptr<EventPart> part;
  };
  auto produce = [&](size_t i) {
    Produced out;
    ChunkResult& result = out.result;
    std::optional<uint64_t> from = frontier.wait(i);
    if (!from) {  // the file ended in an earlier chunk: so it did for the next one
      frontier.say(i, 0, true);
      return out;
    }
    std::vector<Item> items;
    std::vector<Error> framing_errors;
    try {
      result.end = frame_chunk(file, *from, first + (i + 1) * chunk_bytes, options.record, items,
                               framing_errors, result.tail);
    } catch (const std::exception& e) {  // out of memory: the rest of the file is not read
      frontier.say(i, file.size(), true);
      result.deliveries.push_back(
          {file.size(), std::nullopt,
           Error::at_offset(*from, fmt::format("reading stopped: {}", e.what()))});
      result.end = file.size();
      return out;
    }
    frontier.say(i, *result.end, result.tail.has_value() || *result.end >= file.size());
    if (items.empty()) return out;
    out.part = make_part();
    Event scratch;
    for (const Item& item : items) {
      try {
        decode(item, framing_errors, out.part.get(), scratch, result);
      } catch (const std::exception& e) {  // out of memory: the record is reported, not fatal
        result.deliveries.push_back(
            {item.record.next, std::nullopt,
             Error::at_offset(item.record.offset, fmt::format("record skipped: {}", e.what()))});
      }
    }
    return out;
  };
  std::optional<Record> tail;
  auto consume = [&](size_t, Produced produced) {
    ChunkResult& result = produced.result;
    records_ += result.counted;
    for (Delivery& d : result.deliveries) {
      if (d.error) {
        if (callbacks.error) callbacks.error(*d.error);
      } else if (d.event && callbacks.event) {
        callbacks.event(*d.event);
      }
      offset_ = d.next;
    }
    if (result.end) offset_ = *result.end;
    if (produced.part) produced.part->merge();
    if (result.tail) tail = result.tail;
    if (callbacks.done_before) callbacks.done_before(offset_);
  };
  ordered_parallel<Produced>(chunks, jobs, 2 * size_t{jobs}, produce, consume);

  if (tail) {
    offset_ = tail->offset;
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
  }
}

}  // namespace msdt::summary
