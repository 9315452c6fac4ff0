#include "summary/crc32c.h"

#include <isa-l/crc.h>

#include <algorithm>
#include <climits>

namespace msdt::summary {
namespace {

#if defined(__x86_64__)
MSDT_CRC32C_TARGET uint32_t crc32c_instruction(Bytes data) {
  return crc32c_short(data.data(), data.size());
}
#endif

}  // namespace

bool crc32c_has_instruction() {
#if defined(__x86_64__)
  static const bool yes = __builtin_cpu_supports("sse4.2");
  return yes;
#else
  return false;
#endif
}

uint32_t crc32c(Bytes data) {
#if defined(__x86_64__)
  if (data.size() < kCrc32cShortInput && crc32c_has_instruction()) return crc32c_instruction(data);
#endif
  // ISA-L's crc32_iscsi neither inverts on entry nor on exit.
  uint32_t crc = 0xFFFFFFFFu;
  while (!data.empty()) {
    // crc32_iscsi takes an int length.
    size_t n = std::min<size_t>(data.size(), size_t{1} << 30);
    // ISA-L's prototype takes a non-const pointer but only reads.
    crc =
        crc32_iscsi(const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(data.data())),
                    static_cast<int>(n), crc);
    data = data.subspan(n);
  }
  return crc ^ 0xFFFFFFFFu;
}

}  // namespace msdt::summary
