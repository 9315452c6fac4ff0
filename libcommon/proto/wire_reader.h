// A zero-copy, bounds-checked protobuf wire-format reader. Schemas are handled by the callers;
// this only splits a message into fields, and every error carries the absolute byte offset.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "io/byte_reader.h"

namespace msdt::proto {

enum class WireType : uint8_t {
  Varint = 0,
  Fixed64 = 1,
  Len = 2,
  StartGroup = 3,
  EndGroup = 4,
  Fixed32 = 5
};

struct Field {
  uint32_t number = 0;
  WireType type = WireType::Varint;
  uint64_t value = 0;           // Varint, Fixed32, Fixed64
  Bytes bytes;                  // Len (and a skipped group's contents)
  uint64_t offset = 0;          // absolute offset of the tag
  uint64_t payload_offset = 0;  // absolute offset of `bytes`
};

class WireReader {
 public:
  explicit WireReader(Bytes message, uint64_t base_offset = 0) : in_(message, base_offset) {}

  // The next field, or nullopt at the end of the message. Groups are returned whole (their
  // contents in `bytes`) so that callers can skip them like any unknown field.
  Expected<std::optional<Field>> next();
  uint64_t offset() const { return in_.offset(); }

 private:
  ByteReader in_;
};

Expected<uint64_t> read_varint(ByteReader& in);

// Appends the values of a repeated integer field that may be packed (Len) or not (Varint).
Status append_varints(const Field& field, std::vector<uint64_t>& out);

// Checks the wire type before a caller interprets a field: "field 3: expected length-delimited,
// found varint".
Status expect_type(const Field& field, WireType type);

// expect_type with `what` (the message and field, "NodeProto.name") in front of its message.
Status expect_field(const Field& field, WireType type, std::string_view what);

// A length-delimited field's bytes as text (a view into the message).
inline std::string_view field_text(const Field& field) {
  return {reinterpret_cast<const char*>(field.bytes.data()), field.bytes.size()};
}

// Calls visit(field) -> Status for every field of a message in order; the first failure, of
// the reader or of visit, is returned.
template <class Visit>
Status each_field(Bytes message, uint64_t base, Visit&& visit) {
  WireReader reader(message, base);
  while (true) {
    MSDT_TRY(auto field, reader.next());
    if (!field) return std::nullopt;
    MSDT_CHECK(visit(*field));
  }
}

// Zigzag etc. are not needed by our schemas; int32 fields are varints that may be sign-extended to
// 10 bytes, so callers cast the uint64.

}  // namespace msdt::proto

// MSDT_CHECK around an each_field whose visitor uses MSDT_CHECK itself: a variable name per line,
// so the nested checks do not shadow each other.
#define MSDT_CHECK_FIELDS(expr)                                  \
  if (Status MSDT_TRY_CONCAT(fields_status_, __LINE__) = (expr)) \
  return std::move(*MSDT_TRY_CONCAT(fields_status_, __LINE__))
