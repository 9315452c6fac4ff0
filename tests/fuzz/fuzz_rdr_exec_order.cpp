// Feeds the input to the graph_exec_order reader (spec rdr.md §3.2). Rejections are normal
// outcomes; what must never happen is a crash, a hang or an allocation sized by a declared count.
// What the reader promises of an accepted file is checked too: a violation stops the fuzzer.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rdr/recorders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto order = msdt::rdr::parse_exec_order(text);
  if (order) {
    size_t touched = 0;
    for (const auto& block : order->blocks) {
      if (block.declared != block.nodes.size()) __builtin_trap();
      for (size_t i = 0; i < block.nodes.size(); ++i) {
        const auto& node = block.nodes[i];
        if (node.index != i || node.line <= block.line) __builtin_trap();
        touched += node.debug_string.size() + node.graph.size() + node.name.size() +
                   node.op.size() + node.inputs.size() + node.stream_label + node.graph_id;
      }
    }
    (void)touched;
  }
  return 0;
}
