#include "proto/wire_reader.h"

#include <fmt/format.h>

#include <string_view>

namespace msdt::proto {
namespace {

// Deeper nesting than any of our schemas uses; the limit keeps a hostile run of start-group tags
// from costing unbounded memory.
constexpr size_t kMaxGroupDepth = 64;

std::string_view wire_type_name(WireType type) {
  switch (type) {
    case WireType::Varint:
      return "varint";
    case WireType::Fixed64:
      return "fixed64";
    case WireType::Len:
      return "length-delimited";
    case WireType::StartGroup:
      return "start-group";
    case WireType::EndGroup:
      return "end-group";
    case WireType::Fixed32:
      return "fixed32";
  }
  return "unknown";
}

struct Tag {
  uint32_t number;
  WireType type;
};

Expected<Tag> read_tag(ByteReader& in) {
  const uint64_t at = in.offset();
  MSDT_TRY(uint64_t tag, read_varint(in));
  const uint64_t number = tag >> 3;
  const auto wire = static_cast<unsigned>(tag & 7);
  if (wire == 6 || wire == 7)
    return Error::at_offset(at, fmt::format("field {}: invalid wire type {}", number, wire));
  // 2^29 - 1 is the largest field number protobuf allows.
  if (number == 0 || number > 0x1FFFFFFF)
    return Error::at_offset(at, fmt::format("invalid field number {} (tag {:#x})", number, tag));
  return Tag{static_cast<uint32_t>(number), static_cast<WireType>(wire)};
}

Expected<uint64_t> read_scalar(ByteReader& in, WireType type) {
  if (type == WireType::Varint) return read_varint(in);
  if (type == WireType::Fixed64) return in.u64le();
  MSDT_TRY(uint32_t value, in.u32le());
  return uint64_t{value};
}

// Skips one value of a non-group wire type.
Status skip_value(ByteReader& in, const Tag& tag) {
  switch (tag.type) {
    case WireType::Varint: {
      auto v = read_varint(in);
      if (!v) return std::move(v).error();
      return std::nullopt;
    }
    case WireType::Fixed64:
      return in.skip(8);
    case WireType::Fixed32:
      return in.skip(4);
    case WireType::Len: {
      const uint64_t at = in.offset();
      MSDT_TRY(uint64_t length, read_varint(in));
      if (length > in.remaining())
        return Error::at_offset(
            at, fmt::format("field {}: length {} exceeds the {} bytes left in the message",
                            tag.number, length, in.remaining()));
      return in.skip(length);
    }
    case WireType::StartGroup:
    case WireType::EndGroup:
      break;
  }
  return std::nullopt;
}

}  // namespace

Expected<uint64_t> read_varint(ByteReader& in) {
  // Most varints (tags, lengths of small messages) are complete within the bytes left: read them
  // straight from memory, and leave every error case to the checked loop below.
  Bytes rest = in.rest();
  uint64_t fast = 0;
  for (size_t i = 0; i < rest.size() && i < 9; ++i) {
    auto byte = static_cast<uint8_t>(rest[i]);
    fast |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
    if ((byte & 0x80) == 0) {
      (void)in.skip(i + 1);
      return fast;
    }
  }
  const uint64_t start = in.offset();
  uint64_t value = 0;
  for (unsigned i = 0; i < 10; ++i) {
    if (in.at_end())
      return Error::at_offset(start, fmt::format("truncated varint: input ends after {} bytes", i));
    const uint8_t byte = *in.u8();
    if (i == 9 && (byte & 0x80) != 0) return Error::at_offset(start, "varint longer than 10 bytes");
    // The tenth byte holds only bit 63; anything more would not fit in 64 bits.
    if (i == 9 && byte > 1)
      return Error::at_offset(start,
                              fmt::format("varint overflows 64 bits (tenth byte {:#04x})", byte));
    value |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
    if ((byte & 0x80) == 0) return value;
  }
  return value;  // not reached: the tenth byte always returns above
}

Expected<std::optional<Field>> WireReader::next() {
  if (in_.at_end()) return std::optional<Field>{};
  Field field;
  field.offset = in_.offset();
  MSDT_TRY(Tag tag, read_tag(in_));
  field.number = tag.number;
  field.type = tag.type;
  switch (tag.type) {
    case WireType::Varint:
    case WireType::Fixed64:
    case WireType::Fixed32: {
      auto value = read_scalar(in_, tag.type);
      if (!value) return std::move(value).error().with_context(fmt::format("field {}", tag.number));
      field.value = *value;
      break;
    }
    case WireType::Len: {
      const uint64_t length_at = in_.offset();
      MSDT_TRY(uint64_t length, read_varint(in_));
      if (length > in_.remaining())
        return Error::at_offset(
            length_at, fmt::format("field {}: length {} exceeds the {} bytes left in the message",
                                   tag.number, length, in_.remaining()));
      field.payload_offset = in_.offset();
      field.bytes = *in_.take(length);
      break;
    }
    case WireType::StartGroup: {
      // Groups are deprecated and none of our schemas uses them, but a valid message may still
      // carry one as an unknown field; it ends at the end-group tag with the same number.
      field.payload_offset = in_.offset();
      const Bytes rest = in_.rest();
      std::vector<uint32_t> open{tag.number};
      uint64_t content_end = 0;
      while (!open.empty()) {
        const uint64_t at = in_.offset();
        if (in_.at_end())
          return Error::at_offset(at, fmt::format("field {}: group opened at offset {:#x} is not "
                                                  "closed before the end of the message",
                                                  open.back(), field.offset));
        MSDT_TRY(Tag inner, read_tag(in_));
        if (inner.type == WireType::EndGroup) {
          if (inner.number != open.back())
            return Error::at_offset(at, fmt::format("end-group for field {} inside the group of "
                                                    "field {}",
                                                    inner.number, open.back()));
          open.pop_back();
          content_end = at;
        } else if (inner.type == WireType::StartGroup) {
          if (open.size() >= kMaxGroupDepth)
            return Error::at_offset(
                at, fmt::format("groups nested deeper than {} levels", kMaxGroupDepth));
          open.push_back(inner.number);
        } else {
          MSDT_CHECK(skip_value(in_, inner));
        }
      }
      field.bytes = rest.first(content_end - field.payload_offset);
      break;
    }
    case WireType::EndGroup:
      return Error::at_offset(
          field.offset,
          fmt::format("field {}: end-group without a matching start-group", tag.number));
  }
  return std::optional<Field>{std::move(field)};
}

Status append_varints(const Field& field, std::vector<uint64_t>& out) {
  if (field.type == WireType::Varint) {
    out.push_back(field.value);
    return std::nullopt;
  }
  if (field.type != WireType::Len)
    return Error::at_offset(field.offset,
                            fmt::format("field {}: expected varint or packed varints, found {}",
                                        field.number, wire_type_name(field.type)));
  ByteReader packed(field.bytes, field.payload_offset);
  while (!packed.at_end()) {
    auto value = read_varint(packed);
    if (!value) return std::move(value).error().with_context(fmt::format("field {}", field.number));
    out.push_back(*value);
  }
  return std::nullopt;
}

Status expect_type(const Field& field, WireType type) {
  if (field.type == type) return std::nullopt;
  return Error::at_offset(field.offset,
                          fmt::format("field {}: expected {}, found {}", field.number,
                                      wire_type_name(type), wire_type_name(field.type)));
}

Error wrong_field_type(const Field& field, WireType type, std::string_view what) {
  return std::move(*expect_type(field, type)).with_context(what);
}

}  // namespace msdt::proto
