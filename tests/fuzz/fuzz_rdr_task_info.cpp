// Feeds the input to the task_info_graph reader (spec rdr.md §3.6, Ascend 1.2-2.2). Rejections are
// normal outcomes; what must never happen is a crash, a hang or an unbounded allocation. Tasks are
// numbered in order: a violation stops the fuzzer.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rdr/recorders.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto tasks = msdt::rdr::parse_task_info(text);
  if (tasks) {
    uint64_t touched = 0;
    for (size_t i = 0; i < tasks->tasks.size(); ++i) {
      const auto& task = tasks->tasks[i];
      if (task.task_index != i) __builtin_trap();
      touched += task.op_name.size() + task.task_num + task.stream_id + task.type + task.dump_flag;
      for (const auto* list : {&task.inputs, &task.outputs, &task.workspaces})
        for (const auto& buffer : *list) touched += buffer.address ^ buffer.size;
    }
    (void)touched;
  } else if (!tasks.error().line) {
    __builtin_trap();  // every error names its line
  }
  return 0;
}
