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
#include "summary/crc32c.h"

namespace msdt::summary {
namespace {

// The file is read in chunks: chunk i holds the records that start in [i C, (i + 1) C) of the
// part read by this call. Unless the caller chooses C (ReadOptions::chunk_bytes), it is
// kShippedChunkBytes when the decoded events travel to the calling thread (small enough that they
// are still in cache there) and kPartChunkBytes when parts consume them where they were decoded
// (large enough that the threads seldom wait on each other: on 1 GB, --tags takes 0.110 s with
// 1 MiB chunks and 0.097 s with 4 MiB ones on 2 cores, the difference in hand-overs between
// threads), but no more than kPartBytesInFlight over the 2 x jobs chunks read at once: their
// pages are mapped until the chunks are merged, and a machine of many cores would hold hundreds
// of megabytes.
// A worker frames, checks and decodes its chunk's records in one pass, from where the first one
// looks like it starts (produce() below); what must be done in turn is only checking that start
// against where the chunk before ended.
constexpr uint64_t kShippedChunkBytes = uint64_t{32} << 10;
constexpr uint64_t kPartChunkBytes = uint64_t{4} << 20;
constexpr uint64_t kMinPartChunkBytes = uint64_t{1} << 20;
constexpr uint64_t kPartBytesInFlight = uint64_t{32} << 20;
// How far past its beginning a chunk looks for where its first record starts (find_chain)
// before it waits for the chunk before to say.
constexpr uint64_t kChainSearch = uint64_t{64} << 10;
// How far ahead of the record being read the file's bytes are fetched into the cache.
constexpr uint64_t kPrefetchAhead = 4096;

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

// Where a record that starts in [from, limit) looks like it starts: its length CRC and
// payload CRC hold, and so does the length CRC of the record after it (when the file holds one).
// The CRCs are checked whether or not the reading verifies them: this only guesses where a chunk
// starts (the guess is checked against the chunk before). nullopt when nothing in the range looks
// so, or when that would take checking more than twice the range's size of payloads (a record
// longer than that starts the chunk: it waits, having nothing to read in parallel anyway).
std::optional<uint64_t> find_chain(Bytes file, uint64_t from, uint64_t limit,
                                   const RecordOptions& options) {
  // The payload bytes checked are bounded (a damaged or hostile file can make every position look
  // like a header of a long record): past the budget, the chunk waits for the one before.
  uint64_t budget = 2 * (limit - from);
  for (uint64_t at = from; at < limit; ++at) {
    if (!header_holds(file, at, options)) continue;
    const uint64_t length = load_u64le(file.data() + at);
    if (file.size() - at - 12 < length || file.size() - at - 12 - length < 4) continue;
    if (length > budget) return std::nullopt;
    budget -= length;
    const uint64_t next = at + kRecordOverhead + length;
    if (masked_crc32c(file.subspan(at + 12, length)) == load_u32le(file.data() + next - 4) &&
        (next == file.size() || header_holds(file, next, options)))
      return at;
  }
  return std::nullopt;
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

  const unsigned jobs =
      decoder_ && decoder_->dialect() == Dialect::TensorFlow ? 1 : std::max(1u, options.jobs);
  const size_t window = 2 * size_t{jobs};  // chunks read ahead of the one being merged
  const bool ship = static_cast<bool>(callbacks.event);
  const uint64_t chunk_bytes =
      options.chunk_bytes ? options.chunk_bytes
      : ship              ? kShippedChunkBytes
             : std::clamp(kPartBytesInFlight / window, kMinPartChunkBytes, kPartChunkBytes);
  const uint64_t first = offset_;
  const size_t chunks = static_cast<size_t>((file.size() - first + chunk_bytes - 1) / chunk_bytes);
  // Chunks are read from where their records look like they start only when threads share the
  // work (one thread reads them in order anyway) and once the dialect is known: no intact record
  // before a truncated one means nothing is decoded, and records read from a wrong start must
  // leave no trace (TensorFlow's plugin names, kept per tag, would: its files take one thread).
  const bool speculate = jobs > 1 && decoder_.has_value();
  // A chunk's part is made by the worker that reads it, one at a time.
  std::mutex parts_mutex;
  auto make_part = [&]() -> std::unique_ptr<EventPart> {
    if (!callbacks.part) return nullptr;
    std::lock_guard lock(parts_mutex);
    return callbacks.part();
  };
  Frontier frontier(first);

  // A chunk's records read: framed, checked and decoded in one pass while they are in this
  // thread's cache, handed to the chunk's part; what the calling thread must see goes into the
  // result. Reads the records that start in [from, limit); returns where the framing stopped.
  auto read_chunk = [&](uint64_t from, uint64_t limit, EventPart* part, ChunkResult& result) {
    Event scratch;  // decoded into when the event stays on this thread (its memory reused)
    // For a part that takes runs: the shape of the last event of the common shape it was given,
    // and the run of intact records of that shape since (counted, not decoded; the last one is
    // decoded when the run ends).
    const bool runs = part && !ship && part->takes_runs() &&
                      decoder_->dialect() == Dialect::MindSpore && options.decode.values;
    RepeatedShape shape;
    bool shape_counted = false;  // the event whose shape was taken is one the part counts
    EventRun run{0, std::nullopt, 0};
    Record run_last;
    int64_t last_step = 0;
    auto end_run = [&] {
      if (!run.count) return;
      // Of the shape taken, so it decodes.
      if (!decoder_->decode_into(run_last.payload, run_last.payload_offset(), options.decode,
                                 scratch))
        part->run(scratch, run);
      run = {0, std::nullopt, 0};
    };
    // One framed record (`crc_ok`: its payload's CRC is known to hold): true when its event was
    // decoded and handed on.
    auto decode = [&](const Record& r, bool crc_ok) {
      if (options.record.verify && !crc_ok && !payload_crc_ok(file, r)) {
        result.deliveries.push_back(
            {r.next, std::nullopt,
             Error::at_offset(r.offset, fmt::format("data CRC mismatch in a record of {} bytes: "
                                                    "record skipped",
                                                    r.length))});
        return false;
      }
      ++result.counted;
      Event& event = scratch;  // when shipped, moved out, and a fresh one is filled next time
      Status status = decoder_->decode_into(r.payload, r.payload_offset(), options.decode, event);
      if (!status) {
        if (part) part->event(event);
        if (ship) result.deliveries.push_back({r.next, std::move(event), std::nullopt});
        return true;
      }
      Error e = std::move(*status);
      // Without CRC checks, a payload that does not decode is checked now: damaged bytes are a
      // better explanation than a writer bug (RustBoard's lazy verification).
      if (!options.record.verify && !payload_crc_ok(file, r)) e.context("data CRC mismatch");
      result.deliveries.push_back(
          {r.next, std::nullopt, std::move(e).with_context("record skipped")});
      return false;
    };
    uint64_t at = from;
    uint64_t fetched = at;  // the bytes before it have been asked into the cache
    while (at < file.size() && at < limit) {
      // The hardware's prefetcher stops at page boundaries; the bytes a page ahead are asked for.
      for (; fetched < at + kPrefetchAhead && fetched < file.size(); fetched += 64)
        __builtin_prefetch(file.data() + fetched);
      Record r = frame_record(file, at, options.record);
      if (r.problem == RecordProblem::Truncated) {
        result.tail = r;
        break;
      }
      try {
        if (r.problem == RecordProblem::BadLengthCrc || r.problem == RecordProblem::TooLarge) {
          end_run();
          uint64_t next = resync(file, at, options.record);
          result.deliveries.push_back(
              {next, std::nullopt,
               Error::at_offset(at, skipped_text(r, next, file.size(), options.record))});
          at = next;
          continue;
        }
        at = r.next;
        int64_t step = 0;
        bool crc_ok = false;
        if (runs && shape.taken() &&
            (!options.record.verify || (crc_ok = payload_crc_ok(file, r))) &&
            shape.matches(r.payload, step)) {
          if (!part->counts_step(step)) {  // passed over: the part would ignore it
            ++result.counted;
            end_run();
            continue;
          }
          // Only after an event of the shape the part counted: it saw its tags' first values.
          if (shape_counted) {
            ++result.counted;
            if (!run.count++)
              run.first_step = step;
            else if (step < last_step)
              ++run.steps_back;
            last_step = step;
            run_last = r;
            continue;
          }
        }
        end_run();
        if (decode(r, crc_ok) && runs && shape.take(r.payload))
          shape_counted = scratch.step && part->counts_step(*scratch.step);
      } catch (const std::exception& e) {  // out of memory: the record is reported, not fatal
        result.deliveries.push_back(
            {r.next ? r.next : at, std::nullopt,
             Error::at_offset(r.offset, fmt::format("record skipped: {}", e.what()))});
      }
    }
    end_run();
    return at;
  };

  struct Produced {
    ChunkResult result;
    std::unique_ptr<EventPart> part;
  };
  // Chunk i, read from where its first record starts. That is known for certain only once the
  // chunk before is read (its last record says where the next starts), so the chunk is read from
  // where it looks like a record starts (find_chain: two records whose CRCs hold) at once, and
  // its start is checked when the chunk before has said it: another start (a record copied into
  // another's payload; damage), and the chunk is read again from there. Where nothing looks
  // like a record start near the chunk's beginning (a large record spans it; no CRCs), the chunk
  // waits for the one before.
  auto produce = [&](size_t i) {
    Produced out;
    const uint64_t begin = first + i * chunk_bytes, limit = begin + chunk_bytes;
    std::optional<uint64_t> guess =
        i == 0      ? std::optional(begin)
        : speculate ? find_chain(file, begin, std::min(limit, begin + kChainSearch), options.record)
                    : std::nullopt;
    std::optional<uint64_t> from = guess ? guess : frontier.wait(i);
    for (bool checked = !guess || i == 0;;) {
      if (!from) {  // the file ended in an earlier chunk: so it did for this one
        frontier.say(i, 0, true);
        return Produced{};
      }
      out = Produced{};
      out.part = make_part();
      uint64_t end = 0;
      try {
        end = read_chunk(*from, limit, out.part.get(), out.result);
      } catch (const std::exception& e) {  // out of memory: the rest of the file is not read
        if (!checked) frontier.wait(i);
        frontier.say(i, file.size(), true);
        out.result.deliveries.push_back(
            {file.size(), std::nullopt,
             Error::at_offset(*from, fmt::format("reading stopped: {}", e.what()))});
        out.result.end = file.size();
        return out;
      }
      if (!checked) {
        checked = true;
        std::optional<uint64_t> known = frontier.wait(i);
        if (known != from) {
          from = known;
          continue;
        }
      }
      out.result.end = end;
      frontier.say(i, end, out.result.tail.has_value() || end >= file.size());
      return out;
    }
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
  ordered_parallel<Produced>(chunks, jobs, window, produce, consume);

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
