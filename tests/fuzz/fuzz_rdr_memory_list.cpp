// Feeds the input to the KERNEL.mem_address_list reader (spec rdr.md §3.4). Rejections are normal
// outcomes; what must never happen is a crash, a hang or an allocation sized by a declared count.
// A kernel never lists more buffers than it declares: a violation stops the fuzzer. (An empty op
// name is the 1.2-1.4 GPU recorder's slot of a kernel not launched.)
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rdr/recorders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto memory = msdt::rdr::parse_memory_list(text);
  if (memory) {
    uint64_t touched = 0;
    for (const auto& kernel : memory->kernels) {
      if (kernel.inputs.size() > kernel.declared_inputs ||
          kernel.workspaces.size() > kernel.declared_workspaces ||
          kernel.outputs.size() > kernel.declared_outputs)
        __builtin_trap();
      for (const auto* list : {&kernel.inputs, &kernel.workspaces, &kernel.outputs})
        for (const auto& buffer : *list) touched += buffer.address ^ buffer.size;
    }
    (void)touched;
  } else if (!memory.error().line) {
    __builtin_trap();  // every error names its line
  }
  return 0;
}
