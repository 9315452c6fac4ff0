// Feeds the input to the 1.x `.dat` graph text reader (spec ir.md §8, §13.1). Rejections are
// normal outcomes; what must never happen is a crash, a hang or an unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ir/dat_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)msdt::ir::looks_like_dat_text(text);
  auto module = msdt::ir::parse_dat_text(text);
  if (module) {
    // Touch what a writer reads.
    size_t touched = module->params.size();
    for (const auto& graph : module->graphs)
      for (const auto& node : graph.nodes) {
        touched += node.inputs.size() + node.attrs.size() + node.input_types.size();
        touched += node.marker.value_or(0) + node.callee.size() + node.scope.size();
      }
    if (module->failure) touched += module->failure->graphs_in_stack.value_or(0);
    (void)touched;
  }
  return 0;
}
