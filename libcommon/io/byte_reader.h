// A bounds-checked cursor over untrusted bytes that knows its absolute offset, so that every
// error says where it happened. All integers in our formats are little-endian (dump spec §0).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

#include "io/error.h"

namespace msdt {

using Bytes = std::span<const std::byte>;

class ByteReader {
 public:
  // `base` is the absolute offset of in[0] in the file, used only in error messages.
  explicit ByteReader(Bytes in, uint64_t base = 0) : in_(in), base_(base) {}

  uint64_t offset() const { return base_ + pos_; }
  uint64_t position() const { return pos_; }
  uint64_t remaining() const { return in_.size() - pos_; }
  bool at_end() const { return pos_ == in_.size(); }
  Bytes rest() const { return in_.subspan(pos_); }

  Expected<Bytes> take(uint64_t n);
  // A reader over the next n bytes, keeping absolute offsets.
  Expected<ByteReader> sub_reader(uint64_t n);
  Status skip(uint64_t n);
  // Moves on by n bytes that the caller has checked are there (n <= remaining()).
  void advance(uint64_t n) { pos_ += n; }
  Expected<uint8_t> u8();
  Expected<uint16_t> u16le();
  Expected<uint32_t> u32le();
  Expected<uint64_t> u64le();

 private:
  Bytes in_;
  uint64_t base_;
  uint64_t pos_ = 0;
};

// Checked arithmetic for sizes read from files; nullopt on overflow.
std::optional<uint64_t> checked_add(uint64_t a, uint64_t b);
std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b);

// Little-endian loads from raw memory without aliasing problems: one unaligned load (a byte
// loop is not always recognised as one and costs a dependent chain of shifts). Inline: the
// record framing and the protobuf field reader call them once per field of a file.
template <class T>
inline T load_le(const std::byte* p) {
  static_assert(std::is_unsigned_v<T> && (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8));
  T v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) {
    if constexpr (sizeof(T) == 2) v = __builtin_bswap16(v);
    if constexpr (sizeof(T) == 4) v = __builtin_bswap32(v);
    if constexpr (sizeof(T) == 8) v = __builtin_bswap64(v);
  }
  return v;
}
inline uint16_t load_u16le(const std::byte* p) { return load_le<uint16_t>(p); }
inline uint32_t load_u32le(const std::byte* p) { return load_le<uint32_t>(p); }
inline uint64_t load_u64le(const std::byte* p) { return load_le<uint64_t>(p); }

}  // namespace msdt
