// The Running Data Recorder's files (spec rdr.md §2, §3, §5): file names in both forms, the graph
// execution order, the stream assignment, the kernel memory address list and the task debug
// information, each on well-formed input and on every error with its line, and the
// classification of a file by extension and content.
#include "rdr/recorders.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace msdt::rdr {
namespace {

// "line N: message" of a parse that must fail.
template <class T>
std::string error_of(const Expected<T>& result) {
  if (result) return "(no error)";
  return result.error().describe();
}

// ---- graph_exec_order ----

// Two blocks as GraphExecOrderRecorder appends them: a 2.x kernel graph, then a 1.x one.
constexpr std::string_view kExecOrder = R"(================== execution order ==================
execution_order size: 3
0:
	@kernel_graph_1:CNode_5{[0]: ValueNode<Primitive> Conv2D, [1]: x, [2]: conv1.weight}
	0
	1
1:
	@kernel_graph_1:CNode_6{[0]: ValueNode<PrimitivePy> TupleGetItem, [1]: CNode_5, [2]: ValueNode<Int64Imm> 0}
	4294967295
	1
2:
	@kernel_graph_1:CNode_7{[0]: ValueNode<Primitive> Return}
	2
	1
================== execution order ==================
================== execution order ==================
execution_order size: 2
0:
	kernel_graph_0:[CNode]5{[0]: ValueNode<Primitive> MatMul, [1]: [Parameter]1, [2]: ([CNode]3, [CNode]4)}
	0
	0
1:
	something else entirely
	0
	0
================== execution order ==================
)";

TEST(ExecOrder, ReadsEveryBlockAndNode) {
  auto order = parse_exec_order(kExecOrder);
  ASSERT_TRUE(order) << error_of(order);
  ASSERT_EQ(order->blocks.size(), 2u);

  const ExecBlock& first = order->blocks[0];
  EXPECT_EQ(first.line, 1u);
  EXPECT_EQ(first.declared, 3u);
  ASSERT_EQ(first.nodes.size(), 3u);
  const ExecNode& conv = first.nodes[0];
  EXPECT_EQ(conv.index, 0u);
  EXPECT_EQ(conv.line, 3u);
  EXPECT_EQ(conv.debug_string,
            "@kernel_graph_1:CNode_5{[0]: ValueNode<Primitive> Conv2D, [1]: x, [2]: conv1.weight}");
  EXPECT_EQ(conv.graph, "kernel_graph_1");
  EXPECT_EQ(conv.name, "CNode_5");
  EXPECT_EQ(conv.op, "Conv2D");
  EXPECT_EQ(conv.inputs, (std::vector<std::string>{"x", "conv1.weight"}));
  EXPECT_EQ(conv.stream_label, 0u);
  EXPECT_EQ(conv.graph_id, 1u);

  const ExecNode& item = first.nodes[1];
  EXPECT_EQ(item.line, 7u);
  EXPECT_EQ(item.op, "TupleGetItem");
  EXPECT_EQ(item.inputs, (std::vector<std::string>{"CNode_5", "ValueNode<Int64Imm> 0"}));
  EXPECT_EQ(item.stream_label, 4294967295u);

  const ExecNode& ret = first.nodes[2];
  EXPECT_EQ(ret.op, "Return");
  EXPECT_TRUE(ret.inputs.empty());
  EXPECT_EQ(ret.stream_label, 2u);

  const ExecBlock& second = order->blocks[1];
  EXPECT_EQ(second.line, 16u);
  EXPECT_EQ(second.declared, 2u);
  ASSERT_EQ(second.nodes.size(), 2u);
  const ExecNode& matmul = second.nodes[0];
  EXPECT_EQ(matmul.graph, "kernel_graph_0");
  EXPECT_EQ(matmul.name, "[CNode]5");
  EXPECT_EQ(matmul.op, "MatMul");
  EXPECT_EQ(matmul.inputs, (std::vector<std::string>{"[Parameter]1", "([CNode]3, [CNode]4)"}));
  EXPECT_EQ(matmul.graph_id, 0u);

  // Another shape is kept as written, nothing read from it.
  const ExecNode& other = second.nodes[1];
  EXPECT_EQ(other.index, 1u);
  EXPECT_EQ(other.debug_string, "something else entirely");
  EXPECT_EQ(other.graph, "");
  EXPECT_EQ(other.name, "");
  EXPECT_EQ(other.op, "");
  EXPECT_TRUE(other.inputs.empty());
}

TEST(ExecOrder, OperatorOfAnotherShapeIsKeptAsWritten) {
  auto order = parse_exec_order(R"(================== execution order ==================
execution_order size: 1
0:
	@kernel_graph_2:CNode_9{[0]: @kernel_graph_3, [1]: y}
	0
	2
================== execution order ==================
)");
  ASSERT_TRUE(order) << error_of(order);
  const ExecNode& node = order->blocks.at(0).nodes.at(0);
  EXPECT_EQ(node.graph, "kernel_graph_2");
  EXPECT_EQ(node.name, "CNode_9");
  EXPECT_EQ(node.op, "@kernel_graph_3");
  EXPECT_EQ(node.inputs, (std::vector<std::string>{"y"}));
}

TEST(ExecOrder, EmptyBlankAndCrlf) {
  auto empty = parse_exec_order("");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->blocks.empty());
  auto blanks = parse_exec_order("\n  \n\t\n");
  ASSERT_TRUE(blanks);
  EXPECT_TRUE(blanks->blocks.empty());

  std::string crlf(kExecOrder);
  for (size_t at = crlf.find('\n'); at != std::string::npos; at = crlf.find('\n', at + 2))
    crlf.insert(at, "\r");
  auto order = parse_exec_order(crlf);
  ASSERT_TRUE(order) << error_of(order);
  ASSERT_EQ(order->blocks.size(), 2u);
  EXPECT_EQ(order->blocks[0].nodes[0].op, "Conv2D");
  EXPECT_EQ(order->blocks[0].nodes[0].graph_id, 1u);
  EXPECT_EQ(order->blocks[1].nodes[1].debug_string, "something else entirely");

  // An empty block.
  auto none = parse_exec_order(R"(
================== execution order ==================
execution_order size: 0
================== execution order ==================

)");
  ASSERT_TRUE(none) << error_of(none);
  ASSERT_EQ(none->blocks.size(), 1u);
  EXPECT_EQ(none->blocks[0].line, 2u);
  EXPECT_TRUE(none->blocks[0].nodes.empty());
}

TEST(ExecOrder, TextBeforeTheBanner) {
  EXPECT_EQ(error_of(parse_exec_order("\nhello\n" + std::string(kExecOrder))),
            "line 2: expected the banner '================== execution order "
            "==================', found 'hello'");
}

TEST(ExecOrder, BlockNotClosed) {
  // Cut short inside a node: the error names the last line.
  std::string_view text = kExecOrder.substr(0, kExecOrder.find("\t2\n\t1\n"));
  EXPECT_EQ(error_of(parse_exec_order(text)),
            "line 12: the block opened at line 1 has no closing banner (file cut short?)");
  EXPECT_EQ(error_of(parse_exec_order("================== execution order ==================\n")),
            "line 1: the block opened at line 1 has no closing banner (file cut short?)");
  EXPECT_EQ(error_of(parse_exec_order(R"(================== execution order ==================
execution_order size: 1
0:
	@g:CNode_1{[0]: ValueNode<Primitive> Add}
	0
	0)")),
            "line 6: the block opened at line 1 has no closing banner (file cut short?)");
}

TEST(ExecOrder, IndexOutOfOrder) {
  EXPECT_EQ(error_of(parse_exec_order(R"(================== execution order ==================
execution_order size: 2
0:
	@g:CNode_1{[0]: ValueNode<Primitive> Add}
	0
	0
2:
	@g:CNode_2{[0]: ValueNode<Primitive> Add}
	0
	0
================== execution order ==================
)")),
            "line 7: expected index 1, found '2:'");
  EXPECT_EQ(error_of(parse_exec_order(R"(================== execution order ==================
execution_order size: 1
zero:
)")),
            "line 3: expected '0:' or the closing banner, found 'zero:'");
}

TEST(ExecOrder, MissingOrBadLabelAndGraphId) {
  // The graph id line is missing: the next index line has no tab.
  EXPECT_EQ(error_of(parse_exec_order(R"(================== execution order ==================
execution_order size: 2
0:
	@g:CNode_1{[0]: ValueNode<Primitive> Add}
	0
1:
)")),
            "line 6: expected the tab-indented graph id of node 0, found '1:'");
  EXPECT_EQ(error_of(parse_exec_order(R"(================== execution order ==================
execution_order size: 1
0:
	@g:CNode_1{[0]: ValueNode<Primitive> Add}
	zero
	0
================== execution order ==================
)")),
            "line 5: the stream label of node 0 is not an unsigned 32-bit number: 'zero'");
  EXPECT_EQ(error_of(parse_exec_order(R"(================== execution order ==================
execution_order size: 1
0:
	@g:CNode_1{[0]: ValueNode<Primitive> Add}
	0
	4294967296
================== execution order ==================
)")),
            "line 6: the graph id of node 0 is not an unsigned 32-bit number: '4294967296'");
}

TEST(ExecOrder, LineWithoutItsTab) {
  EXPECT_EQ(error_of(parse_exec_order(R"(================== execution order ==================
execution_order size: 1
0:
@g:CNode_1{[0]: ValueNode<Primitive> Add}
	0
	0
================== execution order ==================
)")),
            "line 4: expected the tab-indented debug string of node 0, found "
            "'@g:CNode_1{[0]: ValueNode<Primitive> Add}'");
}

TEST(ExecOrder, DeclaredSizeDiffers) {
  EXPECT_EQ(error_of(parse_exec_order(R"(================== execution order ==================
execution_order size: 2
0:
	@g:CNode_1{[0]: ValueNode<Primitive> Add}
	0
	0
================== execution order ==================
)")),
            "line 2: execution_order size: 2 but the block lists 1 nodes");
  // An absurd size is compared, never allocated.
  EXPECT_EQ(error_of(parse_exec_order(R"(================== execution order ==================
execution_order size: 18446744073709551615
================== execution order ==================
)")),
            "line 2: execution_order size: 18446744073709551615 but the block lists 0 nodes");
  EXPECT_EQ(error_of(parse_exec_order(R"(================== execution order ==================
execution_order size: 18446744073709551616
)")),
            "line 2: the size in 'execution_order size: 18446744073709551616' does not fit in 64 "
            "bits");
  EXPECT_EQ(error_of(parse_exec_order(R"(================== execution order ==================
0:
)")),
            "line 2: expected 'execution_order size: <n>', found '0:'");
}

// ---- assign_stream ----

// Two arrays (the file is opened in append mode), as nlohmann's dump(2) writes them; the second
// with numbers as strings, an empty list and a key this reader does not know.
constexpr std::string_view kStreams = R"([
  {
    "event_id": 0,
    "index": 0,
    "logic_id": 0,
    "node_info": "@kernel_graph_0:CNode_5{[0]: ValueNode<Primitive> Conv2D}",
    "node_name": "Default/Conv2D-op1",
    "stream_id": 0
  },
  {
    "active_stream_id": "1,2",
    "event_id": 3,
    "index": 1,
    "label_id": "7",
    "logic_id": 1,
    "node_info": "@kernel_graph_0:CNode_6{[0]: ValueNode<Primitive> StreamActive}",
    "node_name": "Default/StreamActive-op2",
    "stream_id": 1
  }
][
  {
    "event_id": "4",
    "index": "0",
    "label_id": "",
    "logic_id": "2",
    "node_info": "x",
    "node_name": "Default/Add-op3",
    "stream_id": "5",
    "future_key": {"nested": [1, 2]}
  }
]
)";

TEST(StreamAssignment, ReadsEveryArray) {
  auto streams = parse_stream_assignment(kStreams);
  ASSERT_TRUE(streams) << error_of(streams);
  ASSERT_EQ(streams->arrays.size(), 2u);
  ASSERT_EQ(streams->arrays[0].size(), 2u);
  const StreamNode& conv = streams->arrays[0][0];
  EXPECT_EQ(conv.index, 0u);
  EXPECT_EQ(conv.node_name, "Default/Conv2D-op1");
  EXPECT_EQ(conv.node_info, "@kernel_graph_0:CNode_5{[0]: ValueNode<Primitive> Conv2D}");
  EXPECT_EQ(conv.logic_id, 0u);
  EXPECT_EQ(conv.stream_id, 0u);
  EXPECT_EQ(conv.event_id, 0u);
  EXPECT_TRUE(conv.label_ids.empty());
  EXPECT_TRUE(conv.active_streams.empty());
  const StreamNode& active = streams->arrays[0][1];
  EXPECT_EQ(active.index, 1u);
  EXPECT_EQ(active.stream_id, 1u);
  EXPECT_EQ(active.event_id, 3u);
  EXPECT_EQ(active.label_ids, (std::vector<uint32_t>{7}));
  EXPECT_EQ(active.active_streams, (std::vector<uint32_t>{1, 2}));

  ASSERT_EQ(streams->arrays[1].size(), 1u);
  const StreamNode& add = streams->arrays[1][0];
  EXPECT_EQ(add.node_name, "Default/Add-op3");
  EXPECT_EQ(add.logic_id, 2u);
  EXPECT_EQ(add.stream_id, 5u);
  EXPECT_EQ(add.event_id, 4u);
  EXPECT_TRUE(add.label_ids.empty());
}

TEST(StreamAssignment, EmptyFileAndEmptyArrays) {
  auto none = parse_stream_assignment(" \n");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->arrays.empty());
  auto empty = parse_stream_assignment("[]\n[ ]");
  ASSERT_TRUE(empty) << error_of(empty);
  ASSERT_EQ(empty->arrays.size(), 2u);
  EXPECT_TRUE(empty->arrays[0].empty());
}

TEST(StreamAssignment, ValueErrorsNameTheElementLine) {
  std::string bad(kStreams);
  bad.replace(bad.find("\"stream_id\": 1"), 14, "\"stream_id\": -1");
  EXPECT_EQ(error_of(parse_stream_assignment(bad)),
            "line 10: index 1: \"stream_id\" is not an unsigned number");

  bad = kStreams;
  bad.replace(bad.find("\"stream_id\": \"5\""), 16, "\"stream_id\": \"5a\"");
  EXPECT_EQ(error_of(parse_stream_assignment(bad)),
            "line 21: index 0: \"stream_id\" is not an unsigned number");

  bad = kStreams;
  bad.erase(bad.find("\"logic_id\": 0,"), 14);
  EXPECT_EQ(error_of(parse_stream_assignment(bad)), "line 2: index 0: \"logic_id\" is missing");

  bad = kStreams;
  bad.replace(bad.find("\"Default/Add-op3\""), 17, "3");
  EXPECT_EQ(error_of(parse_stream_assignment(bad)),
            "line 21: index 0: \"node_name\" is not a string");

  bad = kStreams;
  bad.replace(bad.find("\"1,2\""), 5, "\"1,x\"");
  EXPECT_EQ(error_of(parse_stream_assignment(bad)),
            "line 10: index 1: \"active_stream_id\" is not a list of unsigned 32-bit numbers such "
            "as \"1,2\"");

  EXPECT_EQ(error_of(parse_stream_assignment("[\n  1\n]")), "line 2: index 0: expected an object");
}

TEST(StreamAssignment, SyntaxErrorsNameTheirLine) {
  std::string bad(kStreams);
  bad.replace(bad.find("\"event_id\": 3,"), 14, "\"event_id\": 3");
  EXPECT_EQ(error_of(parse_stream_assignment(bad)),
            "line 13: not valid JSON: syntax error while parsing object - unexpected string "
            "literal; expected '}'");
  // Cut short.
  EXPECT_EQ(error_of(parse_stream_assignment(kStreams.substr(0, kStreams.find("\"index\": 1")))),
            "line 13: not valid JSON: syntax error while parsing object key - unexpected end of "
            "input; expected string literal");
  EXPECT_EQ(error_of(parse_stream_assignment("[]\n\n{\"index\": 0}\n")),
            "line 3: expected a JSON array, found '{\"index\": 0}'");
  EXPECT_EQ(error_of(parse_stream_assignment(std::string(100, '[') + std::string(100, ']'))),
            "line 1: JSON nested deeper than 64 levels");
}

// ---- KERNEL.mem_address_list ----

// Two kernels as MemAddressRecorder writes them: null buffers counted but not listed, the last
// blank line missing.
constexpr std::string_view kMemory = R"(Default/network-WithLossCell/Conv2D-op1
kernel_inputs 3
&0x7f3a2c000000 #1024
&0x7f3a2c000400 #600
kernel_workspaces 0
kernel_outputs 1
&0x7F3A2C001000 #2048

Default/network-WithLossCell/ReLU-op2
kernel_inputs 1
&0 #0
kernel_workspaces 1
&(nil) #16
kernel_outputs 2
&0x7f3a2c002000 #2048)";

TEST(MemoryList, ReadsEveryKernel) {
  auto memory = parse_memory_list(kMemory);
  ASSERT_TRUE(memory) << error_of(memory);
  ASSERT_EQ(memory->kernels.size(), 2u);
  const KernelMemory& conv = memory->kernels[0];
  EXPECT_EQ(conv.op, "Default/network-WithLossCell/Conv2D-op1");
  EXPECT_EQ(conv.line, 1u);
  EXPECT_EQ(conv.declared_inputs, 3u);
  ASSERT_EQ(conv.inputs.size(), 2u);
  EXPECT_EQ(conv.inputs[0].address, 0x7f3a2c000000u);
  EXPECT_EQ(conv.inputs[0].size, 1024u);
  EXPECT_EQ(conv.inputs[1].address, 0x7f3a2c000400u);
  EXPECT_EQ(conv.inputs[1].size, 600u);
  EXPECT_EQ(conv.declared_workspaces, 0u);
  EXPECT_TRUE(conv.workspaces.empty());
  EXPECT_EQ(conv.declared_outputs, 1u);
  ASSERT_EQ(conv.outputs.size(), 1u);
  EXPECT_EQ(conv.outputs[0].address, 0x7f3a2c001000u);

  const KernelMemory& relu = memory->kernels[1];
  EXPECT_EQ(relu.op, "Default/network-WithLossCell/ReLU-op2");
  EXPECT_EQ(relu.line, 9u);
  ASSERT_EQ(relu.inputs.size(), 1u);
  EXPECT_EQ(relu.inputs[0].address, 0u);
  EXPECT_EQ(relu.inputs[0].size, 0u);
  ASSERT_EQ(relu.workspaces.size(), 1u);
  EXPECT_EQ(relu.workspaces[0].address, 0u);
  EXPECT_EQ(relu.workspaces[0].size, 16u);
  EXPECT_EQ(relu.declared_outputs, 2u);
  ASSERT_EQ(relu.outputs.size(), 1u);
  EXPECT_EQ(relu.outputs[0].address, 0x7f3a2c002000u);
}

TEST(MemoryList, EmptyAndCrlf) {
  auto empty = parse_memory_list("\n\n");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->kernels.empty());
  auto crlf = parse_memory_list(
      "Add-op1\r\nkernel_inputs 1\r\n&0xff #4\r\nkernel_workspaces 0\r\n"
      "kernel_outputs 0\r\n\r\n");
  ASSERT_TRUE(crlf) << error_of(crlf);
  ASSERT_EQ(crlf->kernels.size(), 1u);
  EXPECT_EQ(crlf->kernels[0].op, "Add-op1");
  EXPECT_EQ(crlf->kernels[0].inputs.at(0).address, 0xffu);
  EXPECT_EQ(crlf->kernels[0].inputs.at(0).size, 4u);
}

// The 1.2-1.4 GPU recorder writes one slot per execution-order position; a kernel not launched
// yet leaves its slot with an empty op name (GPUMemAddressRecorder::Export).
TEST(MemoryList, EmptySlotsOfTheGpuRecorder) {
  auto slots = parse_memory_list(
      "Conv2D-op1\nkernel_inputs 1\n&0x10 #4\nkernel_workspaces 0\nkernel_outputs 0\n\n"
      "\nkernel_inputs 0\nkernel_workspaces 0\nkernel_outputs 0\n\n"
      "MatMul-op3\nkernel_inputs 0\nkernel_workspaces 0\nkernel_outputs 1\n&0x20 #8\n\n"
      "\nkernel_inputs 0\nkernel_workspaces 0\nkernel_outputs 0\n\n");
  ASSERT_TRUE(slots) << error_of(slots);
  ASSERT_EQ(slots->kernels.size(), 4u);
  EXPECT_EQ(slots->kernels[0].op, "Conv2D-op1");
  EXPECT_EQ(slots->kernels[1].op, "");
  EXPECT_EQ(slots->kernels[1].line, 7u);
  EXPECT_EQ(slots->kernels[2].op, "MatMul-op3");
  EXPECT_EQ(slots->kernels[2].outputs.at(0).size, 8u);
  EXPECT_EQ(slots->kernels[3].op, "");
  // A slot at the very start of the file.
  auto first = parse_memory_list("\nkernel_inputs 0\nkernel_workspaces 0\nkernel_outputs 0\n");
  ASSERT_TRUE(first) << error_of(first);
  ASSERT_EQ(first->kernels.size(), 1u);
  EXPECT_EQ(first->kernels[0].op, "");
}

TEST(MemoryList, SectionsMissingOrOutOfOrder) {
  EXPECT_EQ(error_of(parse_memory_list(R"(Add-op1
kernel_inputs 0
kernel_outputs 0
kernel_workspaces 0
)")),
            "line 3: expected 'kernel_workspaces <n>' in the kernel 'Add-op1', found "
            "'kernel_outputs 0'");
  EXPECT_EQ(error_of(parse_memory_list("Add-op1\nAdd-op2\n")),
            "line 2: expected 'kernel_inputs <n>' in the kernel 'Add-op1', found 'Add-op2'");
  EXPECT_EQ(error_of(parse_memory_list("kernel_inputs 1\n")),
            "line 1: expected an op name before 'kernel_inputs 1'");
  EXPECT_EQ(error_of(parse_memory_list("Add-op1\nkernel_inputs 1\n&0x1 #4\nkernel_workspaces 0\n"
                                       "kernel_outputs 1\n&0x2 #4\nkernel_outputs 0\n")),
            "line 7: expected an op name before 'kernel_outputs 0'");
  EXPECT_EQ(error_of(parse_memory_list("Add-op1\nkernel_inputs two\n")),
            "line 2: expected 'kernel_inputs <n>' in the kernel 'Add-op1', found "
            "'kernel_inputs two'");
}

TEST(MemoryList, MalformedBufferLines) {
  EXPECT_EQ(error_of(parse_memory_list("Add-op1\nkernel_inputs 1\n&0x10 4\n")),
            "line 3: expected '&<address> #<size>', found '&0x10 4'");
  EXPECT_EQ(error_of(parse_memory_list("Add-op1\nkernel_inputs 1\n&0xzz #4\n")),
            "line 3: the address '0xzz' is not '0x<hex>', '0' or '(nil)'");
  EXPECT_EQ(error_of(parse_memory_list("Add-op1\nkernel_inputs 1\n&0x10 #-4\n")),
            "line 3: the size '-4' is not an unsigned number");
}

TEST(MemoryList, NumbersBeyond64Bits) {
  EXPECT_EQ(error_of(parse_memory_list("Add-op1\nkernel_inputs 1\n&0x10000000000000000 #4\n")),
            "line 3: the address '0x10000000000000000' does not fit in 64 bits");
  // Leading zeros do not count; the largest address and the largest size each fit (a buffer
  // may end at 0xffffffffffffffff, not past it).
  auto zeros = parse_memory_list(
      "Add-op1\nkernel_inputs 2\n&0x0000ffffffffffffffff #0\n&0 #18446744073709551615\n"
      "kernel_workspaces 0\nkernel_outputs 0\n");
  ASSERT_TRUE(zeros) << error_of(zeros);
  EXPECT_EQ(zeros->kernels.at(0).inputs.at(0).address, UINT64_MAX);
  EXPECT_EQ(zeros->kernels.at(0).inputs.at(1).size, UINT64_MAX);
  // An end that would wrap past 2^64 (issue 25: 0xfffffffffffffffe below the address).
  EXPECT_EQ(error_of(parse_memory_list(
                "Add-op1\nkernel_inputs 1\n&0xffffffffffffffff #18446744073709551615\n")),
            "line 3: the buffer at 0xffffffffffffffff of 18446744073709551615 bytes would end past "
            "0xffffffffffffffff (address + size overflows 64 bits)");
  EXPECT_EQ(error_of(parse_memory_list("Add-op1\nkernel_inputs 1\n&0xfffffffffffffff0 #17\n")),
            "line 3: the buffer at 0xfffffffffffffff0 of 17 bytes would end past "
            "0xffffffffffffffff (address + size overflows 64 bits)");
  EXPECT_EQ(error_of(parse_memory_list("Add-op1\nkernel_inputs 1\n&0x10 #18446744073709551616\n")),
            "line 3: the size '18446744073709551616' does not fit in 64 bits");
  EXPECT_EQ(error_of(parse_memory_list("Add-op1\nkernel_inputs 18446744073709551616\n")),
            "line 2: the count in 'kernel_inputs 18446744073709551616' does not fit in 64 bits");
}

TEST(MemoryList, MoreBuffersThanDeclared) {
  EXPECT_EQ(error_of(parse_memory_list("Add-op1\nkernel_inputs 1\n&0x10 #4\n&0x20 #4\n")),
            "line 4: kernel_inputs declares 1 buffers, this is buffer 2");
}

TEST(MemoryList, FileEndsInsideAKernel) {
  EXPECT_EQ(error_of(parse_memory_list("Add-op1\nkernel_inputs 1\n&0x10 #4\n")),
            "line 3: the file ends inside the kernel 'Add-op1' (line 1), before its "
            "kernel_workspaces");
  EXPECT_EQ(error_of(parse_memory_list(
                std::string(kMemory.substr(0, kMemory.rfind("\nkernel_outputs"))))),
            "line 13: the file ends inside the kernel 'Default/network-WithLossCell/ReLU-op2' "
            "(line 9), before its kernel_outputs");
}

// ---- task_info_graph ----

// As TaskGenerator::SaveTaskDebugInfoToFile writes it: every address followed by a tab, a blank
// line after each task, address lines only when there are addresses (a NonTask op has none).
constexpr std::string_view kTasks =
    "op_name:Default/Conv2D-op1\n"
    "task_index:0\ttask_num:1\ttask0_stream_id:0\ttask0_type:0\ttask0_dump_flag:0\n"
    "input address:0x1080000(1024)\t0x1080400(600)\t\n"
    "output address:0x1081000(2048)\t\n"
    "workspace address:0(0)\t\n"
    "\n"
    "op_name:Default/Reshape-op2-NonTask\n"
    "task_index:1\ttask_num:0\ttask0_stream_id:0\ttask0_type:0\ttask0_dump_flag:0\n"
    "\n"
    "op_name:Default/ReLU-op3\n"
    "task_index:2\ttask_num:2\ttask0_stream_id:3\ttask0_type:11\ttask0_dump_flag:1\n"
    "output address:0x1082000(2048)\t\n"
    "\n";

TEST(TaskInfo, ReadsEveryTask) {
  auto tasks = parse_task_info(kTasks);
  ASSERT_TRUE(tasks) << error_of(tasks);
  ASSERT_EQ(tasks->tasks.size(), 3u);
  const TaskInfo& conv = tasks->tasks[0];
  EXPECT_EQ(conv.op_name, "Default/Conv2D-op1");
  EXPECT_EQ(conv.line, 1u);
  EXPECT_EQ(conv.task_index, 0u);
  EXPECT_EQ(conv.task_num, 1u);
  EXPECT_FALSE(conv.dump_flag);
  ASSERT_EQ(conv.inputs.size(), 2u);
  EXPECT_EQ(conv.inputs[0].address, 0x1080000u);
  EXPECT_EQ(conv.inputs[0].size, 1024u);
  EXPECT_EQ(conv.inputs[1].address, 0x1080400u);
  EXPECT_EQ(conv.inputs[1].size, 600u);
  ASSERT_EQ(conv.outputs.size(), 1u);
  EXPECT_EQ(conv.outputs[0].size, 2048u);
  ASSERT_EQ(conv.workspaces.size(), 1u);
  EXPECT_EQ(conv.workspaces[0].address, 0u);

  const TaskInfo& reshape = tasks->tasks[1];
  EXPECT_EQ(reshape.op_name, "Default/Reshape-op2-NonTask");
  EXPECT_EQ(reshape.line, 7u);
  EXPECT_EQ(reshape.task_num, 0u);
  EXPECT_TRUE(reshape.inputs.empty() && reshape.outputs.empty() && reshape.workspaces.empty());

  const TaskInfo& relu = tasks->tasks[2];
  EXPECT_EQ(relu.task_index, 2u);
  EXPECT_EQ(relu.task_num, 2u);
  EXPECT_EQ(relu.stream_id, 3u);
  EXPECT_EQ(relu.type, 11u);
  EXPECT_TRUE(relu.dump_flag);
  EXPECT_TRUE(relu.inputs.empty());
  ASSERT_EQ(relu.outputs.size(), 1u);
  EXPECT_EQ(relu.outputs[0].address, 0x1082000u);
}

TEST(TaskInfo, ToleratesTrailingBlanksCrlfAndNoFinalBlankLine) {
  auto tasks = parse_task_info(
      "op_name:Add-op1  \r\n"
      "task_index:0\ttask_num:1\ttask0_stream_id:0\ttask0_type:0\ttask0_dump_flag:1 \r\n"
      "input address:(nil)(4)\t0x10(8)");
  ASSERT_TRUE(tasks) << error_of(tasks);
  ASSERT_EQ(tasks->tasks.size(), 1u);
  EXPECT_EQ(tasks->tasks[0].op_name, "Add-op1");
  EXPECT_TRUE(tasks->tasks[0].dump_flag);
  ASSERT_EQ(tasks->tasks[0].inputs.size(), 2u);
  EXPECT_EQ(tasks->tasks[0].inputs[0].address, 0u);
  EXPECT_EQ(tasks->tasks[0].inputs[0].size, 4u);
  EXPECT_EQ(tasks->tasks[0].inputs[1].address, 0x10u);
  auto empty = parse_task_info("\n");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->tasks.empty());
}

TEST(TaskInfo, Errors) {
  EXPECT_EQ(error_of(parse_task_info("task_index:0\n")),
            "line 1: expected 'op_name:<name>', found 'task_index:0'");
  EXPECT_EQ(error_of(parse_task_info("op_name:Add-op1\n")),
            "line 1: the file ends after op_name 'Add-op1', before its task_index line");
  EXPECT_EQ(error_of(parse_task_info("op_name:Add-op1\ntask_index:0\ttask_num:1\n")),
            "line 2: expected 'task0_stream_id:' as field 3 of the line after op_name, found "
            "'task_index:0\\x09task_num:1'");
  EXPECT_EQ(error_of(parse_task_info("op_name:Add-op1\ntask_index:0\ttask_num:x\ttask0_stream_id:0"
                                     "\ttask0_type:0\ttask0_dump_flag:0\n")),
            "line 2: task_num 'x' is not an unsigned number");
  EXPECT_EQ(error_of(parse_task_info("op_name:Add-op1\ntask_index:0\ttask_num:1\ttask0_stream_id:0"
                                     "\ttask0_type:0\ttask0_dump_flag:2\n")),
            "line 2: task0_dump_flag '2' is not 0 or 1");
  EXPECT_EQ(error_of(parse_task_info("op_name:Add-op1\ntask_index:0\ttask_num:1\ttask0_stream_id:0"
                                     "\ttask0_type:0\ttask0_dump_flag:0\tmore:1\n")),
            "line 2: unexpected text after task0_dump_flag: 'more:1'");
  std::string skipped(kTasks);
  skipped.replace(skipped.find("task_index:2"), 12, "task_index:5");
  EXPECT_EQ(error_of(parse_task_info(skipped)), "line 11: task_index 5 where task 2 was expected");
}

TEST(TaskInfo, AddressLineErrors) {
  std::string head =
      "op_name:Add-op1\ntask_index:0\ttask_num:1\ttask0_stream_id:0\ttask0_type:0\t"
      "task0_dump_flag:0\n";
  EXPECT_EQ(error_of(parse_task_info(head + "input address:0x10 4\t\n")),
            "line 3: expected '<address>(<size>)', found '0x10 4'");
  EXPECT_EQ(error_of(parse_task_info(head + "input address:0x10(4)\tg(4)\t\n")),
            "line 3: the address 'g' is not '0x<hex>', '0' or '(nil)'");
  EXPECT_EQ(error_of(parse_task_info(head + "input address:0x10(99999999999999999999)\t\n")),
            "line 3: the size '99999999999999999999' does not fit in 64 bits");
  EXPECT_EQ(error_of(parse_task_info(head + "output address:0x10(4)\t\ninput address:0x10(4)\t\n")),
            "line 4: 'input address:' after 'output address:'");
  EXPECT_EQ(error_of(parse_task_info(head + "stream address:0x10(4)\t\n")),
            "line 3: expected 'input address:', 'output address:', 'workspace address:' or a blank "
            "line, found 'stream address:0x10(4)\\x09'");
}

// ---- file names ----

TEST(RecorderName, DottedForm) {
  auto order = parse_recorder_name("SESSION.graph_exec_order.1.20240501120305.txt");
  ASSERT_TRUE(order);
  EXPECT_EQ(order->module, "SESSION");
  EXPECT_EQ(order->name, "graph_exec_order.1");
  EXPECT_EQ(order->base, "graph_exec_order");
  EXPECT_EQ(order->graph_id, 1u);
  EXPECT_EQ(order->timestamp, "20240501120305");
  EXPECT_FALSE(order->ir_counter);
  EXPECT_EQ(order->extension, ".txt");
  EXPECT_FALSE(order->underscores);

  auto graph = parse_recorder_name("rank_0/rdr/SESSION.graph_build.12.20240501120305_0042.ir");
  ASSERT_TRUE(graph);
  EXPECT_EQ(graph->module, "SESSION");
  EXPECT_EQ(graph->name, "graph_build.12");
  EXPECT_EQ(graph->base, "graph_build");
  EXPECT_EQ(graph->graph_id, 12u);
  EXPECT_EQ(graph->ir_counter, 42u);
  EXPECT_EQ(graph->extension, ".ir");

  auto memory = parse_recorder_name("KERNEL.mem_address_list.20240501120305.txt");
  ASSERT_TRUE(memory);
  EXPECT_EQ(memory->module, "KERNEL");
  EXPECT_EQ(memory->name, "mem_address_list");
  EXPECT_EQ(memory->base, "mem_address_list");
  EXPECT_FALSE(memory->graph_id);

  auto stage = parse_recorder_name("PIPELINE.05_optimize.20240501120305_0003.ir");
  ASSERT_TRUE(stage);
  EXPECT_EQ(stage->module, "PIPELINE");
  EXPECT_EQ(stage->name, "05_optimize");
  EXPECT_FALSE(stage->graph_id);
  EXPECT_EQ(stage->ir_counter, 3u);

  auto runtime =
      parse_recorder_name("RUNTIME_FRAMEWORK.graph_build.kernel_graph.20240501120305.pb");
  ASSERT_TRUE(runtime);
  EXPECT_EQ(runtime->module, "RUNTIME_FRAMEWORK");
  EXPECT_EQ(runtime->name, "graph_build.kernel_graph");
  EXPECT_EQ(runtime->base, "graph_build.kernel_graph");
  EXPECT_EQ(runtime->extension, ".pb");
}

TEST(RecorderName, UnderscoreForm) {
  auto graph = parse_recorder_name("PRE_ACT_graph_build_0_20210301120000.ir");
  ASSERT_TRUE(graph);
  EXPECT_EQ(graph->module, "PRE_ACT");
  EXPECT_EQ(graph->name, "graph_build_0");
  EXPECT_EQ(graph->base, "graph_build");
  EXPECT_EQ(graph->graph_id, 0u);
  EXPECT_EQ(graph->timestamp, "20210301120000");
  EXPECT_FALSE(graph->ir_counter);
  EXPECT_EQ(graph->extension, ".ir");
  EXPECT_TRUE(graph->underscores);

  auto memory = parse_recorder_name("KERNEL_mem_address_list_20210301120000.txt");
  ASSERT_TRUE(memory);
  EXPECT_EQ(memory->module, "KERNEL");
  EXPECT_EQ(memory->name, "mem_address_list");
  EXPECT_EQ(memory->base, "mem_address_list");
  EXPECT_FALSE(memory->graph_id);
  EXPECT_TRUE(memory->underscores);

  // The session's names carry the graph id after a dot: "graph_exec_order.0".
  auto order = parse_recorder_name("SESSION_graph_exec_order.0_20210301120000.txt");
  ASSERT_TRUE(order);
  EXPECT_EQ(order->module, "SESSION");
  EXPECT_EQ(order->name, "graph_exec_order.0");
  EXPECT_EQ(order->base, "graph_exec_order");
  EXPECT_EQ(order->graph_id, 0u);
}

TEST(RecorderName, OtherNames) {
  for (std::string_view name :
       {"", "SESSION.graph_exec_order.1.txt", "SESSION.graph_exec_order.1.2024050112030.txt",
        "SESSION.graph_exec_order.1.202405011203051.txt", ".graph_exec_order.20240501120305.txt",
        "SESSION.20240501120305.txt", "SESSION.graph_exec_order.20240501120305",
        "SESSION.graph_exec_order.20240501120305.", "session.graph.20240501120305.txt",
        "SESSION.graph.20240501120305_x.ir", "graph_build_0_20210301120000.ir",
        "KERNEL__20210301120000.txt", "KERNEL_20210301120000.txt", "notes.txt"})
    EXPECT_FALSE(parse_recorder_name(name)) << name;
}

TEST(RecorderName, ReadableTime) {
  EXPECT_EQ(readable_time("20240501120305"), "2024-05-01 12:03:05");
  EXPECT_EQ(readable_time("2024050112030"), "2024050112030");
  EXPECT_EQ(readable_time("later"), "later");
}

// ---- classification ----

TEST(Classify, EveryRow) {
  std::string detail = "stale";
  EXPECT_EQ(classify(".ir", "\n#IR entry      : @1_construct_wrapper.21\n", &detail), Kind::Graph);
  EXPECT_EQ(detail, "1.x order");
  EXPECT_EQ(classify(".ir", "# IR entry: @g\n", &detail), Kind::Graph);
  EXPECT_EQ(detail, "1.x order");
  EXPECT_EQ(classify(".ir", "# Total params: 2\n", &detail), Kind::Graph);
  EXPECT_EQ(detail, "RDR 2.x order");
  EXPECT_EQ(classify(".ir", "op_name:Default/Conv2D-op1\ntask_index:0\n", &detail), Kind::TaskInfo);
  EXPECT_EQ(detail, "");
  EXPECT_EQ(classify(".ir", "# comment\nsubgraph @g() {\n}\n", &detail), Kind::Graph);
  EXPECT_EQ(detail, "IR text");
  EXPECT_EQ(classify(".ir", "hello\n", &detail), Kind::Text);
  EXPECT_EQ(classify(".pb", "\x0a\x03\x66\x6f\x6f", &detail), Kind::Graph);
  EXPECT_EQ(detail, "protobuf");
  EXPECT_EQ(classify(".dat", "# [No.1] g.1\n", &detail), Kind::Graph);
  EXPECT_EQ(detail, ".dat");
  EXPECT_EQ(classify(".txt", kExecOrder, &detail), Kind::ExecOrder);
  EXPECT_EQ(detail, "");
  EXPECT_EQ(classify(".txt", kMemory), Kind::MemoryList);
  EXPECT_EQ(classify(".txt", "All Parameters:\n"), Kind::Somas);
  EXPECT_EQ(classify(".txt", "index:\tsize:\tstart_addr:\n"), Kind::Somas);
  EXPECT_EQ(classify(".txt", "free text\n"), Kind::Text);
  EXPECT_EQ(classify(".json", "\n  [\n]"), Kind::StreamAssignment);
  EXPECT_EQ(classify(".json", "{}"), Kind::Text);
  EXPECT_EQ(classify(".txt", ""), Kind::Empty);
  EXPECT_EQ(classify(".ir", " \n\t\r\n"), Kind::Empty);
  EXPECT_EQ(classify(".pb", ""), Kind::Empty);
  EXPECT_EQ(classify(".log", "words"), Kind::Text);
  EXPECT_EQ(classify("", "words", &detail), Kind::Text);
  EXPECT_EQ(detail, "");
}

TEST(Classify, NamesAndKeys) {
  EXPECT_EQ(kind_name(Kind::Graph), "graph");
  EXPECT_EQ(kind_name(Kind::TaskInfo), "task info");
  EXPECT_EQ(kind_name(Kind::ExecOrder), "execution order");
  EXPECT_EQ(kind_name(Kind::MemoryList), "memory addresses");
  EXPECT_EQ(kind_name(Kind::StreamAssignment), "stream assignment");
  EXPECT_EQ(kind_name(Kind::Somas), "somas");
  EXPECT_EQ(kind_name(Kind::Text), "text");
  EXPECT_EQ(kind_name(Kind::Empty), "empty");
  EXPECT_EQ(kind_key(Kind::Graph), "graph");
  EXPECT_EQ(kind_key(Kind::TaskInfo), "task_info");
  EXPECT_EQ(kind_key(Kind::ExecOrder), "exec_order");
  EXPECT_EQ(kind_key(Kind::MemoryList), "memory");
  EXPECT_EQ(kind_key(Kind::StreamAssignment), "streams");
  EXPECT_EQ(kind_key(Kind::Somas), "somas");
  EXPECT_EQ(kind_key(Kind::Text), "text");
  EXPECT_EQ(kind_key(Kind::Empty), "empty");
}

}  // namespace
}  // namespace msdt::rdr
