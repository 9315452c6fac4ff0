#include "summary/crc32c.h"

#include <isa-l/crc.h>

#include <algorithm>
#include <climits>

namespace msdt::summary {

uint32_t crc32c(Bytes data) {
  // crc32_iscsi takes an int length and neither inverts on entry nor on exit.
  uint32_t crc = 0xFFFFFFFFu;
  while (!data.empty()) {
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
