// Feeds the input to dump-compare's rename-file parser (compare spec §3.5 item 5): CSV lines of
// two names, comments and blank lines. Rejections are normal outcomes; what must never happen is
// a crash, a hang or an unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "compare/pairing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto renames = msdt::compare::parse_rename_file(text);
  if (renames) {
    // Touch what pairing reads: both names, spelled as keys.
    size_t touched = 0;
    for (const auto& rename : *renames)
      touched += msdt::compare::key_spelling(rename.mine).size() +
                 msdt::compare::key_spelling(rename.golden).size() + rename.line;
    (void)touched;
  } else {
    (void)renames.error().describe();
  }
  return 0;
}
