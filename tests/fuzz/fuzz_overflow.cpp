// Overflow records (dump spec §5.8): the input as an npy-mode JSON record, and as a binary payload
// of either layout, the way dump-parse --show and dump-convert read them. Rejections are normal.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "dump/ascend_dump.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto record = msdt::dump::parse_overflow_json(text)) (void)record->dump();
  const msdt::Bytes in(reinterpret_cast<const std::byte*>(data), size);
  if (auto decoded = msdt::dump::decode_overflow(in, 0)) (void)decoded->dump();
  return 0;
}
