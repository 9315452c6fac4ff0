// Feeds the input to the assign_stream reader (spec rdr.md §3.3): one or more JSON arrays one
// after another. Rejections are normal outcomes; what must never happen is a crash, a hang or an
// unbounded allocation (nesting is refused beyond a fixed depth before nlohmann builds anything).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rdr/recorders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto streams = msdt::rdr::parse_stream_assignment(text);
  if (streams) {
    // Touch what a writer reads.
    uint64_t touched = 0;
    for (const auto& array : streams->arrays)
      for (const auto& node : array)
        touched += node.index + node.logic_id + node.stream_id + node.event_id +
                   node.node_name.size() + node.node_info.size() + node.label_ids.size() +
                   node.active_streams.size();
    (void)touched;
  } else if (!streams.error().line) {
    __builtin_trap();  // every error names its line
  }
  return 0;
}
