// The record framing of summary, lineage, explain and tfevents files (spec summary.md §3, §12):
// u64 length, u32 masked CRC-32C of the 8 length bytes, the payload, u32 masked CRC-32C of the
// payload, all little-endian, 16 bytes of framing per record.
//
// Pure functions over a file's bytes (mapped): reading can stop at any offset and resume there
// once the file has grown, which is how a live file is followed.
#pragma once

#include <cstdint>
#include <string_view>

#include "io/byte_reader.h"

namespace msdt::summary {

inline constexpr uint64_t kRecordOverhead = 16;
// MindSpore's writer refuses records over INT_MAX bytes (spec §3.3).
inline constexpr uint64_t kDefaultMaxRecord = (uint64_t{1} << 31) - 1;

struct RecordOptions {
  bool verify = true;                       // check both CRCs (--no-crc clears)
  uint64_t max_length = kDefaultMaxRecord;  // longer declared lengths are refused (--max-record)
};

enum class RecordProblem : uint8_t {
  None,
  Truncated,     // the file ends inside the record: a growing file, or a cut one
  BadLengthCrc,  // the length field is damaged: the framing cannot be trusted from here
  BadDataCrc,    // the payload is damaged; the next record starts where the length says
  TooLarge,      // the length is beyond max_length
};

std::string_view record_problem_text(RecordProblem problem);

struct Record {
  uint64_t offset = 0;  // where the record starts
  uint64_t length = 0;  // the payload length the record declares (0 when Truncated in the header)
  Bytes payload;        // None and BadDataCrc: the payload
  RecordProblem problem = RecordProblem::None;
  uint64_t next = 0;  // where the following record starts (None, BadDataCrc)

  uint64_t payload_offset() const { return offset + 12; }
};

// The record at `offset` (< file.size()).
Record read_record(Bytes file, uint64_t offset, const RecordOptions& options);

// read_record in two halves, for readers that frame records on one thread and check payloads on
// others: the framing (length CRC and bounds; never BadDataCrc), then the payload's CRC.
Record frame_record(Bytes file, uint64_t offset, const RecordOptions& options);
bool payload_crc_ok(Bytes file, const Record& record);

// Whether a record header could start at `at`: the 12 bytes are in the file, the length is within
// max_length and its CRC holds (checked whatever options.verify says).
bool header_holds(Bytes file, uint64_t at, const RecordOptions& options);

// After a damaged length: the first offset after `from` where a record with a right length CRC
// (and, when it lies wholly in the file, a right payload CRC) starts; file.size() when there is
// none. With verification off only the length bound is checked, so there is no resync: `from`
// + 1 is never returned then, the rest of the file is given up (file.size()).
uint64_t resync(Bytes file, uint64_t from, const RecordOptions& options);

}  // namespace msdt::summary
