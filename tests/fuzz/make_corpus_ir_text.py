#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_ir_text: small .ir files in each header style of spec ir.md
(A, B, C, RDR order), the node forms of §3 and §10, and broken variants.

    python3 tests/fuzz/make_corpus_ir_text.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "ir_text")

STYLE_A = """#IR entry      : @construct.920
#attrs         :
training : 1
#Total params  : 1

%para1_x : <Tensor[Float32]x[const vector][2, 3]>

#Total subgraph : 1

subgraph attr:
subgraph @construct.920(%para1_x) {
  %0([CNode]1) = Load(%para1_x, U)
      : (<Ref[Tensor(F32)], (2, 3)>, <UMonad>) -> (<Tensor[Float32], (2, 3)>)
      : (Default/Load-op0)
  %1([CNode]2) = S-Prim-Partial(@\u2193construct.927, %0)
  Return(%1)
}
"""

STYLE_B = """# IR entry: @1_construct_wrapper.21
# Total subgraphs: 2

# Total params: 1
# Params:
%para1_x : <Tensor[Float32], (2)>  :  has_default

subgraph attr:
training : 0
subgraph instance: 1_construct_wrapper.21 : 0x55d0
# In file net.py:10/    def construct(self, x):/
subgraph @1_construct_wrapper.21(%para1_x) {
  %0([CNode]3) = Switch(%para1_x, @2_true.22, @3_false.23)
  %1([CNode]4) = %0[@FuncUnion(@2_true.22, @3_false.23)]()
      # Fullname with scope: (Default/Switch-op1)
  Return(%1)
}
# Order:
#   1: @1_construct_wrapper.21:[CNode]3{[0]: ValueNode<Primitive> Switch}
subgraph @2_true.22 parent: [subgraph @1_construct_wrapper.21]() {
  Return($(@1_construct_wrapper.21:para1_x))
}
"""

STYLE_C = """# IR entry: @19_1___main___Net_construct_304
# Total subgraphs: 1

# Attrs:
has_shard: 0

# Total params: 2
# Params:
%para1_x: <Tensor[Float32], ()> : []
%para2_y: <Tensor[Float32], ()> : []

Node counting information:
Total number of nodes: 5
Total number of cnodes: 2

subgraph attr:
training: 0
subgraph instance: 19_1___main___Net_construct_304 : 0x135400418
subgraph @19_1___main___Net_construct_304() {
  %0(CNode_5) = PrimFunc_Add(%para1_x, %para2_y) primitive_attrs: {input_names: [x, y]} cnode_attrs: {checkpoint: Bool(1)}
      : (<Tensor[Float32], ()>, <Tensor[Float32], ()>) -> (<Tensor[Float32], ()>)
      # Scope: (Default)
      # In file t6.py:16, 15~20/        z = x + y/
#------------------------> 0
  %1(CNode_6) = call @20_2_construct_305(%0, I64(3), "s,t", Tensor(shape=[2], dtype=Float32, value=[1 2]))
  Return(%1)
      : (<Tensor[Float32], ()>)
}
"""

RDR = """# Total params: 1
# Params:
%para1_x: <Tensor[Float32], (2)> : [2]

# IR entry: @kernel_graph_0
# Total subgraphs: 1
subgraph @kernel_graph_0(%para1_x) {
  %0(CNode_1) = ReLU(%para1_x) {in_strategy: ((1, 1))}
      : (<Tensor[Float32], (2)>) -> (<Tensor[Float32], (2)>)
      : (<Float32xDefaultFormat[const vector]{2}>) -> (<Float32xDefaultFormat[const vector]{2}>)
      : (TENSOR) -> (TENSOR)
  Return(%0)
}
"""

RULE = "# " + "=" * 95 + "\n"
DASHES = "-" * 52 + "\n"

# analyze_fail.ir, 2.2+ form (spec §13.3): the report, then two instances of one graph and markers.
ANALYZE_FAIL = (
    RULE + "# The following shows the last analyze fail log message.\n" + RULE + "\n"
    + DASHES + "- Caught exception:\n" + DASHES
    + "For 'Conv2D', 'C_in' of input 'x' shape must be 3, but got 224.\n\nAt:\n"
    "  C:\\Users\\dev\\train.py(57): construct\n\n"
    + DASHES + "- C++ Call Stack: (For framework developers)\n" + DASHES
    + "mindspore/ops/infer/conv2d.cc:240 Conv2dInferShape\n\n"
    + DASHES + "- The Traceback of Net Construct Code:\n" + DASHES
    + "# 0 In file C:\\Users\\dev\\train.py:57~58, 8~34\n"
    "        out = self.net(x)\n"
    "              ^~~~~~~~~~~\n"
    "# 1 In file /home/\u674e\u96f7/lenet.py:41, 12~25\n"
    "        x = self.conv1(x)\n\n"
    + RULE
    + "# The following shows the IR when the function graphs evaluation fails to help locate the problem.\n"
    + RULE + "\n"
    + STYLE_C.replace("# Total subgraphs: 1", "# Total subgraphs: 0")
    + "subgraph attr:\nsubgraph instance: 20_2_construct_305 : 0x1354a0000\n"
    "subgraph @20_2_construct_305() {\n#------------------------> 1\n  Return(I64(1))\n}\n"
    "subgraph instance: 20_2_construct_305 : 0x1354b0000\n"
    "subgraph @20_2_construct_305() {\n  Return(I64(2))\n}\n"
    + RULE + "# The rest function graphs are the following:\n" + RULE
    + "No more function graphs.\n"
)

# The 1.8-2.1 middle form (spec §13.2).
MIDDLE = """# 1.This file shows the parsed IR info when graph evaluating failed to help find the problem.
# 2.You can search the last `------------------------>` to the node which is inferred failed.
# ===============================================================================

subgraph attr:
subgraph instance: after_grad.42 : 000001DF192CD730
subgraph @after_grad.42(%para1_args0) {
  %1([CNode]46) = MakeTuple(%para1_args0)
#------------------------> 1
  %2([CNode]47) = UnpackCall(%1)
  Return(%2)
}
#===============================================================================
# num of function graphs in stack: 2
"""

SEEDS = {
    "style_a.ir": STYLE_A,
    "style_b.ir": STYLE_B,
    "style_c.ir": STYLE_C,
    "rdr.ir": RDR,
    "unclosed_subgraph.ir": STYLE_C[: STYLE_C.rindex("}")],
    "unbalanced.ir": STYLE_C.replace("(%para1_x, %para2_y)", "(%para1_x, (%para2_y)"),
    "duplicate_id.ir": STYLE_C.replace("%1(CNode_6)", "%0(CNode_6)"),
    "somas.ir": "somas_pre_processed_info\ntensor: 1 size: 512\n",
    "analyze_fail.ir": ANALYZE_FAIL,
    "analyze_fail_middle.ir": MIDDLE,
    "analyze_fail_report_only.ir": ANALYZE_FAIL[: ANALYZE_FAIL.index("# IR entry")],
    "analyze_fail_bad_marker.ir": ANALYZE_FAIL.replace("> 1\n", "> x\n").replace(
        "  Return(I64(1))\n}", "  Return(I64(1))\n#------------------------> 9\n}"),
    "analyze_fail_frame_first.ir": ANALYZE_FAIL.replace("# 0 In file", "stray\n# 0 In file"),
    "empty.ir": "",
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, text in SEEDS.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(text.encode("utf-8"))


if __name__ == "__main__":
    main()
