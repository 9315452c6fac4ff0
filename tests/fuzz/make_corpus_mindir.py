#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_mindir: MindIR models (mindir spec §2-§5) encoded by hand, both
generations (mind_ir 1.1+ and the ONNX-based 0.7-1.0 one), with raw_data, typed repeated fields,
external_data, primitives and REF:: calls, the §4.10 hazards, a 1.2-1.5 graph chunk, and damaged
variants (cut short, lying lengths).

    python3 tests/fuzz/make_corpus_mindir.py
"""
import os
import struct

from make_corpus_graph_proto import field_bytes as ld, field_varint as fv

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "mindir")


def f32(*values):
    return struct.pack("<%df" % len(values), *values)


def tensor(name, data_type, dims, **data):
    out = b"".join(fv(1, d) for d in dims) + fv(2, data_type) + ld(7, name)
    if "raw" in data:
        out += ld(9, data["raw"])
    if "floats" in data:
        out += ld(3, f32(*data["floats"]))
    if "ints" in data:
        out += b"".join(fv(6, v & 0xFFFFFFFFFFFFFFFF) for v in data["ints"])
    if "external" in data:
        location, offset, length = data["external"]
        out += ld(12, ld(1, location) + fv(2, offset) + fv(3, length))
    return out


def attribute(name, type_, payload):
    return ld(1, name) + payload + fv(16, type_)


def node(name, op, inputs, attrs=b"", domain="Default/" ):
    return b"".join(ld(1, i) for i in inputs) + ld(2, name) + ld(3, name) + ld(4, op) + \
        attrs + ld(7, domain + name)


def model(graph, functions=(), primitives=(), extra=b"", version="0.1.1"):
    out = ld(1, version) + ld(2, "MindSpore") + ld(5, "2.6.0") + ld(7, graph)
    out += b"".join(ld(8, f) for f in functions) + fv(10, 1)
    out += b"".join(ld(12, p) for p in primitives) + fv(13, 3) + extra
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    constant = node("c1", "Constant", [], ld(5, attribute("value", 7, fv(3, 3))))
    conv = node("Conv2D-op1", "REF::Conv2D:1", ["x", "conv1.weight"],
                ld(5, attribute("pad_mode", 8, ld(5, "valid"))))
    call = node("call-op2", "REF::sub_2", ["Conv2D-op1", "c1"])
    graph = ld(1, constant) + ld(1, conv) + ld(1, call) + ld(2, "main_1") + \
        ld(3, tensor("conv1.weight", 1, [2, 2], raw=f32(1, 2, 3, 4))) + \
        ld(3, tensor("b", 1, [3], floats=[0.5, 1, 2])) + \
        ld(3, tensor("i", 7, [2], ints=[-1, 5])) + \
        ld(5, ld(1, "x") + ld(2, tensor("", 1, [1, 1, 4, 4]))) + ld(6, ld(1, "call-op2"))
    relu = node("ReLU-op3", "REF::ReLU:2", ["p"])
    sub = ld(1, relu) + ld(2, "sub_2") + ld(5, ld(1, "p")) + ld(6, ld(1, "ReLU-op3"))
    prims = [ld(1, "Conv2D:1") + ld(2, "Conv2D") + ld(3, attribute("out_channel", 4, fv(3, 6))),
             ld(1, "ReLU:2") + ld(2, "ReLU")]
    lenet = model(graph, [sub], prims, ld(14, ld(1, "k") + ld(2, "v")))
    external = model(ld(2, "g") + ld(3, tensor("w", 1, [2], external=("Net_variables/data_0", 64, 8))))
    hazards = model(ld(1, node("n", "REF::Foo:1", [], ld(5, ld(1, "a") + fv(18, 3) + fv(3, 1) + fv(16, 9)) +
                               ld(5, ld(1, "b") + ld(18, fv(1, 1)) + fv(16, 21) +
                                  ld(17, attribute("", 7, fv(3, 1)))))) +
                    ld(2, "g") + ld(3, tensor("q", 42, [2], raw=bytes(3))),
                    extra=ld(9, '{"a": 1}'))
    legacy = fv(1, 4) + ld(2, "MindSpore") + fv(5, 1) + ld(7, ld(
        1, ld(1, "x") + ld(1, "fc.bias") + ld(2, "1") + ld(3, "1") + ld(4, "BiasAdd")) +
        ld(2, "graph_0") + ld(5, fv(1, 2) + fv(2, 1) + ld(8, "fc.bias") + ld(9, f32(1, 2))) +
        ld(11, ld(1, "x")))
    # 0.7-1.1 Constants: a scalar, a type and a tensor in AttributeProto.tensors (ONNX field 10)
    # read through ref_attr_name (field 21).
    scalars = fv(1, 4) + ld(2, "MindSpore") + fv(5, 1) + ld(7, b"".join(
        ld(1, ld(2, "c%d" % i) + ld(4, "Constant") + ld(5, ld(1, "value") + ld(10, t) + ld(21, ref)))
        for i, (ref, t) in enumerate([("scalar:value0", fv(2, 7) + fv(7, 3)),
                                      ("type:value0", fv(2, 10)),
                                      ("tensor:value0", fv(1, 2) + fv(2, 1) + ld(9, f32(1, 2))),
                                      ("none", b"")])) + ld(2, "graph_0"))
    chunk = ld(3, tensor("w", 1, [1], raw=f32(3)))
    lying = bytearray(lenet)
    lying[30] = 0x7F
    files = {
        "lenet.mindir": lenet,
        "external.mindir": external,
        "hazards.mindir": hazards,
        "legacy.mindir": legacy,
        "legacy_scalars.mindir": scalars,
        "chunk_data_0": chunk,
        "cut.mindir": lenet[:len(lenet) // 2],
        "lying.mindir": bytes(lying),
        "empty.mindir": b"",
    }
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as out:
            out.write(data.encode() if isinstance(data, str) else data)


if __name__ == "__main__":
    main()
