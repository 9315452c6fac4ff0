// Parses the input as an Ascend binary dump and runs everything a tool does with one: the tensor
// views, the overflow decoder on every payload, and the JSON view.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>

#include "dump/ascend_dump.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Use the fuzzer's buffer as is: copying into a larger one would hide over-reads from ASan.
  const msdt::Bytes in(reinterpret_cast<const std::byte*>(data), size);
  (void)msdt::dump::looks_like_ascend_dump(in);
  (void)msdt::dump::could_start_ascend_dump(in.first(std::min<size_t>(size, 16)));
  // The overflow decoder also sees raw bytes, so both of its layouts get fuzzed directly.
  (void)msdt::dump::decode_overflow(in, 0);
  auto dump = msdt::dump::parse_ascend_dump(in);
  if (!dump) return 0;  // rejecting the input is a normal outcome
  for (const auto* group : {&dump->inputs, &dump->outputs, &dump->buffers, &dump->workspaces}) {
    for (const auto& tensor : *group) {
      (void)msdt::dump::ascend_tensor_view(tensor);
      (void)msdt::dump::decode_overflow(tensor.payload, tensor.payload_offset);
    }
  }
  (void)msdt::dump::ascend_dump_to_json(*dump).dump();
  return 0;
}
