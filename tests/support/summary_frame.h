// Summary and tfevents records built by hand in unit tests (spec summary.md §3): the bytes of a
// text, little-endian integers as text, and a payload framed as MindSpore's WriteRecord frames it.
// (mkfixture writes whole files from readable descriptions; these are for tests that corrupt
// single bytes of a record.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "io/byte_reader.h"
#include "summary/crc32c.h"

namespace msdt::testing {

inline Bytes bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

// `v` as `width` little-endian bytes.
inline std::string le_bytes(uint64_t v, int width) {
  std::string out(static_cast<size_t>(width), '\0');
  for (int i = 0; i < width; ++i) out[static_cast<size_t>(i)] = static_cast<char>(v >> (8 * i));
  return out;
}
inline std::string le64(uint64_t v) { return le_bytes(v, 8); }
inline std::string le32(uint32_t v) { return le_bytes(v, 4); }

// u64 length, its masked CRC-32C, the payload, the payload's masked CRC-32C.
inline std::string frame(std::string_view payload) {
  std::string length = le64(payload.size());
  return length + le32(summary::masked_crc32c(bytes_of(length))) + std::string(payload) +
         le32(summary::masked_crc32c(bytes_of(payload)));
}

}  // namespace msdt::testing
