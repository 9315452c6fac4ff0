// Classifies the input as a dump file name (dump spec §3). Names are bytes, so any input is a
// legal name; only crashes, hangs and sanitizer reports count.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dump/file_name.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view name(reinterpret_cast<const char*>(data), size);
  auto parsed = msdt::dump::parse_dump_file_name(name);
  (void)msdt::dump::file_kind_name(parsed.kind);
  if (parsed.io) (void)msdt::dump::io_name(*parsed.io);
  return 0;
}
