// Feeds the input to the .ir text parser, the type-notation reader and the bracket helpers
// (spec ir.md §4, §7). Rejections are
// normal outcomes; what must never happen is a crash, a hang or an unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ir/text_parser.h"
#include "ir/type_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = msdt::ir::parse_ir_text(text);
  if (module) {
    // Touch what a writer reads.
    size_t inputs = 0;
    for (const auto& graph : module->graphs)
      for (const auto& node : graph.nodes) {
        inputs += node.inputs.size() + node.attrs.size();
        (void)msdt::ir::parse_type_spec(node.output_type).label();
        for (const auto& type : node.input_types) (void)msdt::ir::parse_type_spec(type).label();
      }
    for (const auto& param : module->params) (void)msdt::ir::parse_type_spec(param.type).label();
    (void)inputs;
  }
  (void)msdt::ir::split_top_level(text.substr(0, 4096));
  if (!text.empty()) (void)msdt::ir::matching_bracket(text, 0);
  return 0;
}
