// Feeds the input to the graph protobuf decoder (anf_ir.proto GraphProto and ModelProto, spec
// summary.md §6). Rejections are normal outcomes; a crash, a hang or unbounded recursion is not.
#include <cstddef>
#include <cstdint>

#include "ir/graph_proto.h"
#include "ir/type_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  msdt::Bytes bytes(reinterpret_cast<const std::byte*>(data), size);
  for (auto module : {msdt::ir::parse_model_proto(bytes), msdt::ir::parse_graph_proto(bytes)}) {
    if (!module) continue;
    for (const auto& graph : module->graphs)
      for (const auto& node : graph.nodes)
        (void)msdt::ir::parse_type_spec(node.output_type).label();
  }
  return 0;
}
