// Splits the input into protobuf fields and descends into every length-delimited field as if it
// were a nested message, the way the DumpData parser does with unknown schemas.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "proto/wire_reader.h"

namespace {

// Nested messages are tried a few levels deep; the input size bounds the work at each level.
constexpr int kMaxDepth = 8;

void walk(msdt::Bytes message, uint64_t base, int depth) {
  msdt::proto::WireReader reader(message, base);
  while (true) {
    auto next = reader.next();
    if (!next || !*next) return;
    const msdt::proto::Field& field = **next;
    std::vector<uint64_t> values;
    (void)msdt::proto::append_varints(field, values);
    (void)msdt::proto::expect_type(field, msdt::proto::WireType::Len);
    if (field.type == msdt::proto::WireType::Len && depth < kMaxDepth)
      walk(field.bytes, field.payload_offset, depth + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Use the fuzzer's buffer as is: copying into a larger one would hide over-reads from ASan.
  const msdt::Bytes in(reinterpret_cast<const std::byte*>(data), size);
  walk(in, 0, 0);
  msdt::ByteReader reader(in);
  (void)msdt::proto::read_varint(reader);
  return 0;  // rejecting the input is a normal outcome
}
