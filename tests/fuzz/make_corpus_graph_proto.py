#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_graph_proto: GraphProto and ModelProto messages of anf_ir.proto
(spec summary.md §6) encoded by hand, and broken variants.

    python3 tests/fuzz/make_corpus_graph_proto.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "graph_proto")


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def field_varint(n, v):
    return varint(n << 3) + varint(v)


def field_bytes(n, b):
    if isinstance(b, str):
        b = b.encode()
    return varint((n << 3) | 2) + varint(len(b)) + b


def tensor_type(elem, dims):
    shape = b"".join(field_bytes(1, field_varint(1, d & 0xFFFFFFFFFFFFFFFF)) for d in dims)
    return field_varint(1, 14) + field_bytes(2, field_varint(1, elem) + field_bytes(2, shape))


def node(name, op, inputs, out_type, attrs=b"", control=()):
    body = b"".join(field_bytes(1, field_bytes(1, i) + (field_varint(2, 1) if i in control else b""))
                    for i in inputs)
    return body + field_bytes(2, name) + field_bytes(3, op) + field_bytes(4, "Default") + attrs + \
        field_bytes(6, out_type)


def graph():
    g = field_bytes(2, "kernel_graph_0")
    g += field_bytes(3, field_bytes(1, "x") + field_bytes(2, tensor_type(11, [2, 3])))
    g += field_bytes(3, field_bytes(1, "w") + field_bytes(2, tensor_type(11, [3, -1])) +
                     field_bytes(3, field_varint(1, 14)))
    attr = field_bytes(5, field_bytes(1, "transpose_a") + field_bytes(2, field_varint(1, 1) + field_varint(2, 0)))
    tuple_attr = field_bytes(5, field_bytes(1, "pad") + field_bytes(
        2, field_varint(1, 31) + field_bytes(18, field_varint(1, 5) + field_varint(3, 1))))
    g += field_bytes(1, node("1", "MatMul", ["x", "w"], tensor_type(11, [2, 2]), attr + tuple_attr))
    g += field_bytes(1, node("2", "ReLU", ["1", "cst1", "1"], tensor_type(11, [2, 2]), control=("1",)))
    g += field_bytes(4, field_bytes(1, "2") + field_bytes(2, tensor_type(11, [2, 2])))
    g += field_bytes(5, field_bytes(1, "cst1") + field_bytes(2, field_varint(1, 5) + field_varint(3, 7)))
    return g


def main():
    os.makedirs(OUT, exist_ok=True)
    g = graph()
    seeds = {
        "graph.pb": g,
        "model.pb": field_varint(1, 1) + field_bytes(2, "mindspore") + field_bytes(4, g),
        "truncated.pb": g[:-5],
        "wrong_type.pb": field_varint(2, 7),
        "empty.pb": b"",
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
