// Message digests, through nettle (a well-kept library rather than a hand-written MD5): the one
// hashing piece of msdt. dump-convert names over-long outputs by uuid3 (MD5); dump-compare's MD5
// mode compares tensors by digest.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "io/byte_reader.h"

namespace msdt {

using Md5Digest = std::array<uint8_t, 16>;

// MD5 over several pieces, fed one after another (as for uuid3: namespace, then name).
class Md5 {
 public:
  Md5();
  Md5& update(Bytes data);
  Md5& update(std::string_view text);
  // The digest; the object starts over afterwards.
  Md5Digest finish();

 private:
  alignas(8) std::array<std::byte, 128> state_;  // nettle's struct md5_ctx (checked in hash.cpp)
};

// Lower-case hex of `bytes`, two digits a byte.
std::string hex_digits(std::span<const uint8_t> bytes);

// MD5 of `data` as 32 lower-case hex digits (`md5sum`'s form).
std::string md5_hex(Bytes data);

// Python's uuid.uuid3(namespace, name).hex: MD5 of namespace bytes + name, with the version (3)
// and RFC 4122 variant bits set.
std::string uuid3_hex(const std::array<uint8_t, 16>& namespace_id, std::string_view name);

// uuid.NAMESPACE_DNS, 6ba7b810-9dad-11d1-80b4-00c04fd430c8.
inline constexpr std::array<uint8_t, 16> kUuidNamespaceDns = {
    0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8};

}  // namespace msdt
