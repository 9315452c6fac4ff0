#include "summary/reader.h"

#include <fmt/format.h>

#include "summary/crc32c.h"

namespace msdt::summary {

void FileReader::read(Bytes file, const ReadOptions& options, const ReadCallbacks& callbacks,
                      bool quiet_tail) {
  pending_ = 0;
  while (offset_ < file.size()) {
    Record r = read_record(file, offset_, options.record);
    switch (r.problem) {
      case RecordProblem::None:
        break;
      case RecordProblem::Truncated:
        pending_ = file.size() - offset_;
        if (!quiet_tail && callbacks.truncated)
          callbacks.truncated(Error::at_offset(
              offset_, r.length ? fmt::format("truncated record: {} bytes of {} present (the file "
                                              "may still be growing)",
                                              pending_, r.length + kRecordOverhead)
                                : fmt::format("truncated record header: {} of 12 bytes present "
                                              "(the file may still be growing)",
                                              pending_)));
        return;
      case RecordProblem::BadDataCrc:
        if (callbacks.error)
          callbacks.error(Error::at_offset(
              offset_,
              fmt::format("data CRC mismatch in a record of {} bytes: record skipped", r.length)));
        offset_ = r.next;
        continue;
      case RecordProblem::BadLengthCrc:
      case RecordProblem::TooLarge: {
        uint64_t next = resync(file, offset_, options.record);
        if (callbacks.error) {
          std::string what = r.problem == RecordProblem::TooLarge
                                 ? fmt::format("record length {} is over the limit of {} bytes",
                                               r.length, options.record.max_length)
                                 : std::string("length CRC mismatch");
          callbacks.error(Error::at_offset(
              offset_, next < file.size()
                           ? fmt::format("{}: {} bytes skipped to the next good record at {:#x}",
                                         what, next - offset_, next)
                           : fmt::format("{}: no good record after it, the rest of the file ({} "
                                         "bytes) skipped",
                                         what, file.size() - offset_)));
        }
        offset_ = next;
        continue;
      }
    }
    ++records_;
    if (!decoder_) {
      // The first record fixes the dialect: a version record says it; otherwise the name does.
      Dialect dialect = default_dialect(kind_);
      if (auto d = dialect_of_version_record(r.payload); d && kind_ != FileKind::Lineage)
        dialect = *d;
      decoder_.emplace(dialect, kind_ == FileKind::Explain);
    }
    auto event = decoder_->decode(r.payload, r.payload_offset(), options.decode);
    if (!event) {
      if (callbacks.error) {
        Error e = std::move(event).error();
        // Without CRC checks, a payload that does not decode is checked now: damaged bytes
        // are a better explanation than a writer bug (RustBoard's lazy verification).
        if (!options.record.verify) {
          RecordOptions verify = options.record;
          verify.verify = true;
          if (read_record(file, offset_, verify).problem != RecordProblem::None)
            e.context("data CRC mismatch");
        }
        callbacks.error(std::move(e).with_context("record skipped"));
      }
    } else if (callbacks.event) {
      callbacks.event(*event);
    }
    offset_ = r.next;
  }
}

}  // namespace msdt::summary
