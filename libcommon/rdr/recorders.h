// The files the Running Data Recorder writes when training fails (../shared/spec/rdr.md §3), read
// into plain structures: the recorder file name, the graph execution order, the Ascend stream
// assignment, the kernel memory address list and the Ascend task debug information. Graph files
// go through the ir-to-dot graph model (ir/load.h). Every parser takes the whole text and either
// returns the structure or one Error naming the line that is wrong; a file cut short is an error
// at its last line, never a partial result taken for the whole.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/error.h"

namespace msdt::rdr {

// `<MODULE>.<name>[.<suffix>].<YYYYMMDDHHMMSS>[_NNNN].<ext>` (spec §2, 1.5 on), split from the
// right because names hold dots themselves ("graph_build.1"); and the 1.2-1.3 form
// `<MODULE>_<name>_<YYYYMMDDHHMMSS>.<ext>` (module: the leading run of upper-case letters, digits
// and '_' before a '_' and a lower-case letter: "PRE_ACT_graph_build_0_20210301120000.ir").
struct RecorderName {
  std::string module;  // "SESSION", "KERNEL", "PRE_ACT"
  std::string name;    // "graph_exec_order.1": everything between module and timestamp
  std::string base;    // the name without a trailing numeric field: "graph_exec_order"
  std::optional<uint32_t> graph_id;    // that numeric field: 1
  std::string timestamp;               // 14 digits, local time of the recording
  std::optional<uint32_t> ir_counter;  // the _NNNN of graph .ir files
  std::string extension;               // ".ir", ".pb", ".txt", ".json", ".dat"
  bool underscores = false;            // the 1.2-1.3 form
};
// nullopt when the name does not follow the pattern.
std::optional<RecorderName> parse_recorder_name(std::string_view file_name);

// "20240501120305" -> "2024-05-01 12:03:05"; other text is returned as is.
std::string readable_time(std::string_view timestamp);

// One buffer of a kernel: a device address and a size in bytes.
struct Buffer {
  uint64_t address = 0;
  uint64_t size = 0;
};

// ---- graph_exec_order.<gid> (spec §3.2) ----

// One position of the execution order: `i:` and three tab-indented lines.
struct ExecNode {
  uint64_t index = 0;
  std::string debug_string;  // CNode::DebugString as written ("@kernel_graph_1:CNode_5{...}")
  // Read from the debug string: "[@]<graph>:<name>{[0]: ValueNode<Primitive> <op>, [1]: ...}";
  // empty when it has another shape.
  std::string graph, name, op;
  std::vector<std::string> inputs;  // operands after the operator, as written
  uint32_t stream_label = 0;        // the stream distinction label
  uint32_t graph_id = 0;
  uint64_t line = 0;  // the `i:` line
};

// One banner block (the file is appended to, so it may hold several).
struct ExecBlock {
  uint64_t line = 0;      // the opening banner
  uint64_t declared = 0;  // "execution_order size: N"
  std::vector<ExecNode> nodes;
};

struct ExecOrder {
  std::vector<ExecBlock> blocks;
};
Expected<ExecOrder> parse_exec_order(std::string_view text);
inline constexpr std::string_view kExecOrderBanner =
    "================== execution order ==================";

// ---- assign_stream.<gid> (spec §3.3, Ascend) ----

struct StreamNode {
  uint64_t index = 0;
  std::string node_name;  // fullname_with_scope
  uint64_t logic_id = 0, stream_id = 0, event_id = 0;
  std::string node_info;                 // the node's DebugString
  std::vector<uint32_t> label_ids;       // "label_id": "a,b"
  std::vector<uint32_t> active_streams;  // "active_stream_id": "a,b"
};
struct StreamAssignment {
  std::vector<std::vector<StreamNode>> arrays;  // one per JSON array (the file is appended to)
};
Expected<StreamAssignment> parse_stream_assignment(std::string_view text);

// ---- KERNEL.mem_address_list (spec §3.4) ----

struct KernelMemory {
  // The op's full name; empty for a slot of the 1.2-1.4 GPU recorder (one slot per
  // execution-order position) whose kernel was not launched.
  std::string op;
  // Buffers as listed; the declared counts include null tensors, which MindSpore does not list.
  std::vector<Buffer> inputs, workspaces, outputs;
  uint64_t declared_inputs = 0, declared_workspaces = 0, declared_outputs = 0;
  uint64_t line = 0;
};
struct MemoryList {
  // In launch order (the 1.2-1.4 GPU recorder: in execution order, a slot per kernel); the last
  // with an op name is the last kernel launched.
  std::vector<KernelMemory> kernels;
};
Expected<MemoryList> parse_memory_list(std::string_view text);

// ---- task_info_graph.<gid> (spec §3.6, Ascend 1.2-2.2) ----

struct TaskInfo {
  std::string op_name;
  uint64_t task_index = 0, task_num = 0, stream_id = 0, type = 0;
  bool dump_flag = false;
  std::vector<Buffer> inputs, outputs, workspaces;
  uint64_t line = 0;
};
struct TaskList {
  std::vector<TaskInfo> tasks;
};
Expected<TaskList> parse_task_info(std::string_view text);

// ---- what a recorder file holds, by extension and content (spec §5) ----

enum class Kind : uint8_t {
  Graph,             // .ir (either order), .pb, .dat
  TaskInfo,          // .ir starting "op_name:"
  ExecOrder,         // .txt with the execution-order banner
  MemoryList,        // .txt: an op name, then kernel_inputs
  StreamAssignment,  // .json starting '['
  Somas,             // .txt: "All Parameters:" / "index: size:" tables
  Text,              // any other string recorder
  Empty,             // nothing written
};
std::string_view kind_name(Kind kind);  // "graph", "task info", "execution order", ...
// The key of a kind in JSON: "graph", "task_info", "exec_order", ...
std::string_view kind_key(Kind kind);

// `detail` is set for graphs: "1.x order", "RDR 2.x order", "protobuf", ".dat", or "IR text" for
// an `.ir` graph recognised by ir::looks_like_graph_text further down than its first line; it is
// emptied for other kinds.
Kind classify(std::string_view extension, std::string_view text, std::string* detail = nullptr);

}  // namespace msdt::rdr
