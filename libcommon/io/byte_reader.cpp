#include "io/byte_reader.h"

#include <fmt/format.h>

#include <cstring>

namespace msdt {

Expected<Bytes> ByteReader::take(uint64_t n) {
  if (n > remaining())  // pos_ <= size() always holds, so this cannot wrap
    return Error::at_offset(offset(), fmt::format("need {} bytes, only {} left", n, remaining()));
  pos_ += n;
  return in_.subspan(pos_ - n, n);
}

Expected<ByteReader> ByteReader::sub_reader(uint64_t n) {
  uint64_t start = offset();
  MSDT_TRY(Bytes bytes, take(n));
  return ByteReader(bytes, start);
}

Status ByteReader::skip(uint64_t n) {
  auto taken = take(n);
  if (!taken) return std::move(taken).error();
  return std::nullopt;
}

Expected<uint8_t> ByteReader::u8() {
  MSDT_TRY(Bytes b, take(1));
  return static_cast<uint8_t>(b[0]);
}

Expected<uint16_t> ByteReader::u16le() {
  MSDT_TRY(Bytes b, take(2));
  return load_u16le(b.data());
}

Expected<uint32_t> ByteReader::u32le() {
  MSDT_TRY(Bytes b, take(4));
  return load_u32le(b.data());
}

Expected<uint64_t> ByteReader::u64le() {
  MSDT_TRY(Bytes b, take(8));
  return load_u64le(b.data());
}

std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

}  // namespace msdt
