// A minimal protobuf wire-format encoder for building test inputs (fixtures and unit tests).
// It writes exactly what it is told, so a test can also build malformed messages on purpose.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace msdt::testing {

class ProtoWriter {
 public:
  ProtoWriter& varint_raw(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<std::byte>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<std::byte>(v));
    return *this;
  }
  ProtoWriter& tag(uint32_t field, uint32_t wire_type) {
    return varint_raw((static_cast<uint64_t>(field) << 3) | wire_type);
  }
  ProtoWriter& varint(uint32_t field, uint64_t v) { return tag(field, 0).varint_raw(v); }
  ProtoWriter& fixed64(uint32_t field, uint64_t v) {
    tag(field, 1);
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<std::byte>(v >> (8 * i)));
    return *this;
  }
  ProtoWriter& fixed32(uint32_t field, uint32_t v) {
    tag(field, 5);
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<std::byte>(v >> (8 * i)));
    return *this;
  }
  ProtoWriter& bytes(uint32_t field, std::span<const std::byte> b) {
    tag(field, 2).varint_raw(b.size());
    out_.insert(out_.end(), b.begin(), b.end());
    return *this;
  }
  ProtoWriter& string(uint32_t field, std::string_view s) {
    return bytes(field, std::as_bytes(std::span(s.data(), s.size())));
  }
  ProtoWriter& message(uint32_t field, const ProtoWriter& inner) { return bytes(field, inner.out_); }
  ProtoWriter& packed_varints(uint32_t field, std::span<const uint64_t> values) {
    ProtoWriter inner;
    for (uint64_t v : values) inner.varint_raw(v);
    return bytes(field, inner.out_);
  }

  const std::vector<std::byte>& data() const { return out_; }
  std::vector<std::byte> take() { return std::move(out_); }

 private:
  std::vector<std::byte> out_;
};

}  // namespace msdt::testing
