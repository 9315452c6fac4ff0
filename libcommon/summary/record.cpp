#include "summary/record.h"

#include "summary/crc32c.h"

namespace msdt::summary {

std::string_view record_problem_text(RecordProblem problem) {
  switch (problem) {
    case RecordProblem::None:
      return "no problem";
    case RecordProblem::Truncated:
      return "truncated record";
    case RecordProblem::BadLengthCrc:
      return "length CRC mismatch";
    case RecordProblem::BadDataCrc:
      return "data CRC mismatch";
    case RecordProblem::TooLarge:
      return "record length too large";
  }
  return "unknown problem";
}

Record read_record(Bytes file, uint64_t offset, const RecordOptions& options) {
  Record r = frame_record(file, offset, options);
  if (r.problem == RecordProblem::None && options.verify && !payload_crc_ok(file, r))
    r.problem = RecordProblem::BadDataCrc;
  return r;
}

bool payload_crc_ok(Bytes file, const Record& r) {
  return masked_crc32c(r.payload) == load_u32le(file.data() + r.offset + 12 + r.length);
}

Record frame_record(Bytes file, uint64_t offset, const RecordOptions& options) {
  Record r;
  r.offset = offset;
  uint64_t left = file.size() - offset;
  if (left < 12) {
    r.problem = RecordProblem::Truncated;
    return r;
  }
  const std::byte* p = file.data() + offset;
  r.length = load_u64le(p);
  if (options.verify && masked_crc32c(Bytes(p, 8)) != load_u32le(p + 8)) {
    r.problem = RecordProblem::BadLengthCrc;
    return r;
  }
  if (r.length > options.max_length) {
    r.problem = RecordProblem::TooLarge;
    return r;
  }
  if (left - 12 < r.length || left - 12 - r.length < 4) {
    r.problem = RecordProblem::Truncated;
    return r;
  }
  r.payload = Bytes(p + 12, r.length);
  r.next = offset + kRecordOverhead + r.length;
  return r;
}

bool header_holds(Bytes file, uint64_t at, const RecordOptions& options) {
  // The length's bound first: inside a payload it rules out nearly every position at the cost of
  // a load (the CRC takes a few times that).
  return at + 12 <= file.size() && load_u64le(file.data() + at) <= options.max_length &&
         masked_crc32c(file.subspan(at, 8)) == load_u32le(file.data() + at + 8);
}

uint64_t resync(Bytes file, uint64_t from, const RecordOptions& options) {
  if (!options.verify) return file.size();
  for (uint64_t at = from + 1; at + 12 <= file.size(); ++at) {
    if (!header_holds(file, at, options)) continue;
    const std::byte* p = file.data() + at;
    uint64_t length = load_u64le(p);
    uint64_t left = file.size() - at - 12;
    if (left < length || left - length < 4) return at;  // a truncated tail: let the reader say so
    if (masked_crc32c(Bytes(p + 12, length)) == load_u32le(p + 12 + length)) return at;
  }
  return file.size();
}

}  // namespace msdt::summary
