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

// A varint at p[used] of at most 9 bytes (63 bits: longer ones go the checked way) within
// p[0, n): its value, `used` moved past it; false when it is longer or runs off the end.
inline bool simple_varint(const uint8_t* p, size_t n, size_t& used, uint64_t& value) {
  uint64_t v = 0;
  for (size_t i = 0; i < 9 && used + i < n; ++i) {
    const uint8_t byte = p[used + i];
    v |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
    if ((byte & 0x80) == 0) {
      used += i + 1;
      value = v;
      return true;
    }
  }
  return false;
}

class WireReader {
 public:
  explicit WireReader(Bytes message, uint64_t base_offset = 0) : in_(message, base_offset) {}

  // The next field, or nullopt at the end of the message. Groups are returned whole (their
  // contents in `bytes`) so that callers can skip them like any unknown field.
  Expected<std::optional<Field>> next();
  // The next field when it has the common shape: a one-byte tag (fields 1-15) of a scalar or
  // length-delimited field, lying whole in the message, varints of at most 9 bytes. Returns
  // false, leaving the reader where it was, for anything else (the end, other shapes, damage):
  // next() then reads the field or says what is wrong. Inline, as the loop of every decoder
  // spends most of its time here.
  bool next_simple(Field& field) {
    const Bytes rest = in_.rest();
    const auto* p = reinterpret_cast<const uint8_t*>(rest.data());
    const size_t n = rest.size();
    if (n == 0 || p[0] >= 0x80 || p[0] < 8) return false;
    const uint8_t tag = p[0];
    size_t used = 1;
    uint64_t value = 0;
    Bytes bytes;
    uint64_t payload_offset = 0;
    switch (tag & 7) {
      case 0:
        if (!simple_varint(p, n, used, value)) return false;
        break;
      case 1:
        if (n < 9) return false;
        value = load_u64le(rest.data() + 1);
        used = 9;
        break;
      case 5:
        if (n < 5) return false;
        value = load_u32le(rest.data() + 1);
        used = 5;
        break;
      case 2: {
        uint64_t length = 0;
        if (!simple_varint(p, n, used, length) || length > n - used) return false;
        payload_offset = in_.offset() + used;
        bytes = rest.subspan(used, length);
        used += length;
        break;
      }
      default:
        return false;
    }
    field.number = tag >> 3;
    field.type = static_cast<WireType>(tag & 7);
    field.value = value;
    field.bytes = bytes;
    field.offset = in_.offset();
    field.payload_offset = payload_offset;
    in_.advance(used);
    return true;
  }
  uint64_t offset() const { return in_.offset(); }
  bool at_end() const { return in_.at_end(); }

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
// The failure of expect_field, out of line.
Error wrong_field_type(const Field& field, WireType type, std::string_view what);
inline Status expect_field(const Field& field, WireType type, std::string_view what) {
  if (field.type == type) [[likely]]
    return std::nullopt;
  return wrong_field_type(field, type, what);
}

// A length-delimited field's bytes as text (a view into the message).
inline std::string_view field_text(const Field& field) {
  return {reinterpret_cast<const char*>(field.bytes.data()), field.bytes.size()};
}

// Calls visit(field) -> Status for every field of a message in order; the first failure, of
// the reader or of visit, is returned.
template <class Visit>
Status each_field(Bytes message, uint64_t base, Visit&& visit) {
  WireReader reader(message, base);
  Field field;
  while (true) {
    if (!reader.next_simple(field)) {
      if (reader.at_end()) return std::nullopt;
      MSDT_TRY(auto other, reader.next());
      if (!other) return std::nullopt;
      field = *other;
    }
    MSDT_CHECK(visit(field));
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
