#include "io/hash.h"

#include <nettle/md5.h>

#include <cstring>

namespace msdt {
namespace {

md5_ctx* context(std::array<std::byte, 128>& state) { return reinterpret_cast<md5_ctx*>(&state); }

static_assert(sizeof(md5_ctx) <= 128 && alignof(md5_ctx) <= 8,
              "Md5::state_ must hold nettle's md5_ctx");

}  // namespace

Md5::Md5() { md5_init(context(state_)); }

Md5& Md5::update(Bytes data) {
  md5_update(context(state_), data.size(), reinterpret_cast<const uint8_t*>(data.data()));
  return *this;
}

Md5& Md5::update(std::string_view text) {
  md5_update(context(state_), text.size(), reinterpret_cast<const uint8_t*>(text.data()));
  return *this;
}

Md5Digest Md5::finish() {
  Md5Digest digest{};
  md5_digest(context(state_), digest.size(), digest.data());  // also restarts the context
  return digest;
}

std::string hex_digits(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * bytes.size());
  for (uint8_t byte : bytes) {
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 0x0f];
  }
  return hex;
}

std::string md5_hex(Bytes data) { return hex_digits(Md5().update(data).finish()); }

std::string uuid3_hex(const std::array<uint8_t, 16>& namespace_id, std::string_view name) {
  Md5Digest digest = Md5()
                         .update(Bytes(reinterpret_cast<const std::byte*>(namespace_id.data()),
                                       namespace_id.size()))
                         .update(name)
                         .finish();
  digest[6] = static_cast<uint8_t>((digest[6] & 0x0f) | 0x30);  // version 3
  digest[8] = static_cast<uint8_t>((digest[8] & 0x3f) | 0x80);  // RFC 4122 variant
  return hex_digits(digest);
}

}  // namespace msdt
