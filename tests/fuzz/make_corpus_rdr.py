#!/usr/bin/env python3
"""Writes the seed corpora of the Running Data Recorder fuzz targets (spec rdr.md §2, §3, §5):
graph_exec_order blocks, assign_stream arrays, KERNEL.mem_address_list kernels, task_info_graph
tasks and recorder file names with contents, each well-formed and broken.

    python3 tests/fuzz/make_corpus_rdr.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")

BANNER = "================== execution order =================="

EXEC_ORDER = f"""{BANNER}
execution_order size: 3
0:
\t@kernel_graph_1:CNode_5{{[0]: ValueNode<Primitive> Conv2D, [1]: x, [2]: conv1.weight}}
\t0
\t1
1:
\t@kernel_graph_1:CNode_6{{[0]: ValueNode<PrimitivePy> TupleGetItem, [1]: CNode_5, [2]: ValueNode<Int64Imm> 0}}
\t4294967295
\t1
2:
\t@kernel_graph_1:CNode_7{{[0]: ValueNode<Primitive> Return}}
\t2
\t1
{BANNER}
"""

EXEC_ORDER_1X = f"""{BANNER}
execution_order size: 2
0:
\tkernel_graph_0:[CNode]5{{[0]: ValueNode<Primitive> MatMul, [1]: [Parameter]1, [2]: ([CNode]3, [CNode]4)}}
\t0
\t0
1:
\tsomething else {{[0]: <unclosed
\t0
\t0
{BANNER}
"""

EXEC_SEEDS = {
    "two_blocks.txt": EXEC_ORDER + EXEC_ORDER_1X,
    "crlf.txt": EXEC_ORDER.replace("\n", "\r\n"),
    "empty_block.txt": f"\n{BANNER}\nexecution_order size: 0\n{BANNER}\n\n",
    "cut_short.txt": EXEC_ORDER[: EXEC_ORDER.index("\t2\n\t1\n")],
    "text_before.txt": "hello\n" + EXEC_ORDER,
    "index_skipped.txt": EXEC_ORDER.replace("1:\n", "7:\n"),
    "bad_label.txt": EXEC_ORDER.replace("\t4294967295\n", "\t4294967296\n"),
    "size_differs.txt": EXEC_ORDER.replace("size: 3", "size: 18446744073709551615"),
    "size_overflow.txt": EXEC_ORDER.replace("size: 3", "size: 99999999999999999999"),
    "no_tab.txt": EXEC_ORDER.replace("\t@kernel_graph_1:CNode_7", "@kernel_graph_1:CNode_7"),
    "nested_braces.txt": EXEC_ORDER.replace("conv1.weight", "{" * 200 + "<" * 200),
    "empty.txt": "",
}

STREAMS = """[
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
]"""

STREAMS_STRINGS = """[
  {
    "event_id": "4",
    "index": "0",
    "label_id": "",
    "logic_id": "2",
    "node_info": "x \\"quoted\\" ]",
    "node_name": "Default/Add-op3",
    "stream_id": "5",
    "future_key": {"nested": [1, 2]}
  }
]
"""

STREAM_SEEDS = {
    "one_array.json": STREAMS,
    "two_arrays.json": STREAMS + STREAMS_STRINGS,
    "empty_arrays.json": "[]\n[ ]\n",
    "negative.json": STREAMS.replace('"stream_id": 1', '"stream_id": -1'),
    "float.json": STREAMS.replace('"event_id": 3', '"event_id": 3.5'),
    "huge_number.json": STREAMS.replace('"event_id": 3', '"event_id": 1e999'),
    "missing_key.json": STREAMS.replace('"logic_id": 0,', ""),
    "bad_list.json": STREAMS.replace('"1,2"', '"1,,x"'),
    "syntax.json": STREAMS.replace('"event_id": 3,', '"event_id": 3'),
    "cut_short.json": STREAMS[: STREAMS.index('"index": 1')],
    "object.json": '{"index": 0}',
    "deep.json": "[" * 100 + "]" * 100,
    "unclosed_string.json": '[{"node_name": "abc',
    "crlf.json": STREAMS.replace("\n", "\r\n"),
}

MEMORY = """Default/network-WithLossCell/Conv2D-op1
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
&0x7f3a2c002000 #2048
"""

MEMORY_SEEDS = {
    "two_kernels.txt": MEMORY,
    "no_final_blank.txt": MEMORY.rstrip("\n"),
    "crlf.txt": MEMORY.replace("\n", "\r\n"),
    "out_of_order.txt": MEMORY.replace("kernel_workspaces 0\nkernel_outputs 1",
                                       "kernel_outputs 1\nkernel_workspaces 0"),
    "bad_buffer.txt": MEMORY.replace("&0x7f3a2c000400 #600", "&0x7f3a2c000400 600"),
    "address_overflow.txt": MEMORY.replace("&0 #0", "&0x10000000000000000 #0"),
    "size_overflow.txt": MEMORY.replace("#16", "#18446744073709551616"),
    "too_many.txt": MEMORY.replace("kernel_outputs 1", "kernel_outputs 0"),
    "count_overflow.txt": MEMORY.replace("kernel_inputs 3", "kernel_inputs 99999999999999999999"),
    "cut_short.txt": MEMORY[: MEMORY.rindex("\nkernel_outputs")],
    "buffer_first.txt": "&0x10 #4\n" + MEMORY,
    # The 1.2-1.4 GPU recorder's slots of kernels not launched: an empty op name.
    "gpu_empty_slots.txt": "\nkernel_inputs 0\nkernel_workspaces 0\nkernel_outputs 0\n\n" + MEMORY
    + "\n\nkernel_inputs 0\nkernel_workspaces 0\nkernel_outputs 0\n",
    "empty.txt": "",
}

TASKS = (
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
    "output address:(nil)(2048)\t\n"
    "\n"
)

TASK_SEEDS = {
    "three_tasks.ir": TASKS,
    "crlf.ir": TASKS.replace("\n", "\r\n"),
    "no_final_blank.ir": TASKS.rstrip("\n"),
    "index_skipped.ir": TASKS.replace("task_index:2", "task_index:5"),
    "fields_missing.ir": TASKS.replace("\ttask0_type:11\ttask0_dump_flag:1", ""),
    "bad_flag.ir": TASKS.replace("task0_dump_flag:1", "task0_dump_flag:yes"),
    "bad_address.ir": TASKS.replace("0x1080400(600)", "0x1080400 600"),
    "lists_out_of_order.ir": TASKS.replace(
        "output address:0x1081000(2048)\t\nworkspace address:0(0)\t\n",
        "workspace address:0(0)\t\noutput address:0x1081000(2048)\t\n"),
    "cut_after_name.ir": "op_name:Default/Conv2D-op1\n",
    "size_overflow.ir": TASKS.replace("(1024)", "(99999999999999999999)"),
    "empty.ir": "",
}

# A file name, a newline, then the file's text (fuzz_rdr_name.cpp).
NAME_SEEDS = {
    "exec_order": "SESSION.graph_exec_order.1.20240501120305.txt\n" + EXEC_ORDER,
    "graph_ir": "SESSION.graph_build.12.20240501120305_0042.ir\n# Total params: 2\n",
    "graph_1x": "PIPELINE.05_optimize.20240501120305_0003.ir\n#IR entry      : @g\n",
    "task_info": "SESSION.task_info_graph.0.20240501120305.ir\n" + TASKS,
    "memory": "KERNEL.mem_address_list.20240501120305.txt\n" + MEMORY,
    "streams": "DEVICE.assign_stream.0.20240501120305.json\n" + STREAMS,
    "somas": "OPTIMIZER.somas_initial_info.0.20240501120305.txt\nAll Parameters:\n",
    "pb": "SESSION.graph_build.0.20240501120305.pb\n\x0a\x03foo",
    "underscores": "PRE_ACT_graph_build_0_20210301120000.ir\nsubgraph @g() {\n}\n",
    "underscores_counter": "KERNEL_mem_address_list_20210301120000_0001.txt\n",
    "no_timestamp": "SESSION.graph_exec_order.1.txt\nfree text\n",
    "short_timestamp": "SESSION.graph_exec_order.1.2024050112030.txt\n",
    "lower_module": "session.graph.20240501120305.txt\n",
    "no_extension": "SESSION.graph_exec_order.20240501120305\n",
    "blank": "x.json\n \n\t\r\n",
}


def write(subdir, seeds):
    out = os.path.join(CORPUS, subdir)
    os.makedirs(out, exist_ok=True)
    for name, text in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(text.encode("utf-8"))


def main():
    write("rdr_exec_order", EXEC_SEEDS)
    write("rdr_stream_assignment", STREAM_SEEDS)
    write("rdr_memory_list", MEMORY_SEEDS)
    write("rdr_task_info", TASK_SEEDS)
    write("rdr_name", NAME_SEEDS)
    # Bytes that are not UTF-8 are kept as they are.
    with open(os.path.join(CORPUS, "rdr_memory_list", "invalid_utf8.txt"), "wb") as f:
        f.write(b"Default/Op\xff\xfe-op1\n" + MEMORY.encode("utf-8"))
    with open(os.path.join(CORPUS, "rdr_stream_assignment", "invalid_utf8.json"), "wb") as f:
        f.write(STREAMS.replace("Conv2D-op1", "Conv2D\xff-op1").encode("latin-1"))


if __name__ == "__main__":
    main()
