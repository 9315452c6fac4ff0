#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_ir_dat: small 1.x .dat files (spec ir.md §8) and analyze_fail.dat
files (§13.1) with parents, graph references, attributes, markers and the trailers, and broken
variants.

    python3 tests/fuzz/make_corpus_ir_dat.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "ir_dat")

DAT = """# [No.1] 254_129_1_construct_wrapper.905
# In file /usr/mindspore/nn/wrap/cell_wrapper.py(360)/    def construct(self, *inputs):/
funcgraph fg_905(
        %para1 : Tensor(F32)[32, 1, 32, 32]    # inputs0
        , %para2 : Ref[Tensor(F32)][6, 1, 5, 5]    # conv1.weight
        , %para3    # u
    ) {
    %1 : Tensor(F32)[6, 1, 5, 5] = Primitive::Load{prim_type=1}(%para2, UMonad[U])    #(Ref[Tensor(F32)][6, 1, 5, 5], UMonad) #scope: Default
#equiv[CNode]843
    %2 : Tensor(F32)[32, 6, 28, 28] = PrimitivePy::Conv2D{prim_type=1}[kernel_size=(I64(5), I64(5)), pad_mode=same](%para1, %1)    #(Tensor(F32)[32, 1, 32, 32], Tensor(F32)[6, 1, 5, 5]) #scope: Default/conv1-Conv2d/Conv2D-op0
      # In file /home/\u7528\u6237/lenet.py(41)/        x = self.conv1(x)/#equivoutput
    %3 = FuncGraph::fg_906(%2, FuncGraph::fg_907)    #(Tensor(F32)[32, 6, 28, 28], Func)    # fg_906=head.906, fg_907=\u2713branch.907 #scope: Default
#[CNode]850
    %4 = %3(%para3)    #(Undefined) #scope: Default
    Primitive::Return{prim_type=1}(%4)    #(Undefined) #scope: Default
#[CNode]852
}
# order:
#   1: 254_129_1_construct_wrapper.905:equiv[CNode]843{[0]: ValueNode<Primitive> Load, [1]: conv1.weight, [2]: U}


switch_input: 1
# [No.2] head.906

funcgraph fg_906[fg_905](
        %para4 : Tensor(F32)[32, 6, 28, 28]    # h
    ) {
    %1 = Primitive::ReLU{prim_type=1}(%para4)    #(Tensor(F32)[32, 6, 28, 28]) #scope: Default/relu-ReLU
    Primitive::Return{prim_type=1}(%1)    #(Undefined) #scope: Default
}


# num of total function graphs: 2"""

ANALYZE_FAIL = """# [No.1] construct_wrapper.21 @ctx.addr=0x5601c3a0
# In file net.py(44)/    def construct(self, x):/
funcgraph fg_21(
        %para1 : Tensor(F32)[2]    # x
    ) {

#------------------------> 0
    %1 = FuncGraph::fg_22(%para1)    #(Tensor(F32)[2])    # fg_22=construct.22(@ctx.addr=0x5601c7f0) #scope: Default @ctx.addr=0x5601c7f0
      # In file net.py(45)/        return self.head(x)/
    Primitive::Return{prim_type=1}(%1)    #(Undefined) #scope: Default

}


# [No.2] construct.22 @ctx.addr=0x5601c7f0

funcgraph fg_22[fg_21](
        %para2 : Tensor(F32)[2]    # y
    ) {

#------------------------> 1
    %1 = Primitive::MatMul{prim_type=1}(%para2, %para1)    #(Tensor(F32)[2], Tensor(F32)[2]) #scope: Default/MatMul-op3

    Primitive::return{prim_type=1}(%1)    #(Undefined) #scope: Default

}


#===============================================================================
# num of function graphs in stack: 2
"""

SEEDS = {
    "lenet.dat": DAT,
    "analyze_fail.dat": ANALYZE_FAIL,
    "unclosed_graph.dat": DAT[: DAT.index("#[CNode]850")],
    "unbalanced_operands.dat": DAT.replace("(%para2, UMonad[U])", "(%para2, (UMonad[U])"),
    "unbalanced_attrs.dat": DAT.replace("[kernel_size=(I64(5)", "[kernel_size=((I64(5)"),
    "duplicate_id.dat": DAT.replace("%3 = FuncGraph", "%1 = FuncGraph"),
    "bad_marker.dat": ANALYZE_FAIL.replace("> 1\n", "> one\n").replace("> 0\n", "> 99999999999\n"),
    "bad_parent.dat": DAT.replace("fg_906[fg_905](", "fg_906[fg_905("),
    "crlf.dat": ANALYZE_FAIL.replace("\n", "\r\n"),
    "empty.dat": "",
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, text in SEEDS.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(text.encode("utf-8"))
    with open(os.path.join(OUT, "invalid_utf8.dat"), "wb") as f:
        f.write(b"# [No.1] g\xff\xfe.1\n" + ANALYZE_FAIL.encode("utf-8"))


if __name__ == "__main__":
    main()
