#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_ms_lite: MindSpore Lite .ms models (mindir spec §9), FlatBuffers
built by hand back to front as the official builder does (vtables, aligned scalars), and broken
variants: cut short, a vector count past the end, a vtable offset outside the file, a field outside
its table, tables shared by many entries, MSL1 and no identifier; the 0.7 and 1.0 schemas (no
identifier, their own MetaGraph field numbers, Tensors without names); externalData entries with a
negative offset, no length and an end past 2^63.

    python3 tests/fuzz/make_corpus_ms_lite.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "ms_lite")


class Builder:
    """Back to front: `buf` holds the end of the file; a ref is a distance from the end."""

    def __init__(self):
        self.buf = bytearray()
        self.max_align = 1
        self.fields = []
        self.start = 0

    def pad(self, align, then=0):
        self.max_align = max(self.max_align, align)
        while (len(self.buf) + then) % align:
            self.buf[0:0] = b"\0"

    def prepend(self, data):
        self.buf[0:0] = data

    def string(self, text):
        data = text.encode()
        self.pad(4, len(data) + 1)
        self.prepend(struct.pack("<I", len(data)) + data + b"\0")
        return len(self.buf)

    def vector(self, fmt, values):
        size = struct.calcsize("<" + fmt)
        self.pad(max(4, size), size * len(values))
        elements = struct.pack("<%d%s" % (len(values), fmt), *values)
        self.prepend(struct.pack("<I", len(values)) + elements)
        return len(self.buf)

    def refs(self, refs):
        self.pad(4, 4 * len(refs))
        for r in reversed(refs):
            self.prepend(struct.pack("<I", len(self.buf) + 4 - r))
        self.prepend(struct.pack("<I", len(refs)))
        return len(self.buf)

    def table(self, fields):
        """fields: (id, fmt, value) with fmt a struct code, or (id, "ref", ref)."""
        self.start = len(self.buf)
        slots = []
        for fid, fmt, value in fields:
            if fmt == "ref":
                self.pad(4)
                self.prepend(struct.pack("<I", len(self.buf) + 4 - value))
            else:
                self.pad(struct.calcsize("<" + fmt))
                self.prepend(struct.pack("<" + fmt, value))
            slots.append((fid, len(self.buf)))
        self.pad(4)
        self.prepend(b"\0\0\0\0")
        table = len(self.buf)
        count = max((f for f, _ in slots), default=-1) + 1
        offsets = [0] * count
        for fid, at in slots:
            offsets[fid] = table - at
        self.prepend(struct.pack("<HH%dH" % count, 4 + 2 * count, table - self.start, *offsets))
        soffset = len(self.buf) - table
        pos = len(self.buf) - table
        self.buf[pos:pos + 4] = struct.pack("<i", soffset)
        return table

    def finish(self, root, identifier=b"MSL2"):
        self.pad(self.max_align, 4 + len(identifier))
        self.prepend(identifier)
        self.prepend(struct.pack("<I", len(self.buf) + 4 - root))
        return bytes(self.buf)


def tensor(b, name, dtype, dims, data=None, fmt=0, node_type=0, extra=()):
    n = b.string(name)
    d = b.vector("i", dims)
    fields = [(0, "i", node_type), (1, "i", dtype), (2, "ref", d), (3, "i", fmt)]
    if data is not None:
        fields.append((6, "ref", b.vector("B", list(data))))
    fields.append((9, "ref", n))
    fields.extend(extra)
    return b.table(fields)


def model(version="MindSpore Lite 2.2.0", identifier=b"MSL2", repeats=1, exotic=False):
    b = Builder()
    ts = [tensor(b, "x", 43, [-1, 3], node_type=1),
          tensor(b, "fc.weight", 43, [2, 3], bytes(range(24))),
          tensor(b, "fc.bias", 42, [2], bytes(4))]
    if exotic:
        q = b.table([(0, "d", 0.5), (1, "i", 3)])
        loc = b.string("model.ms.data")
        ext = b.table([(1, "ref", loc), (2, "q", 64), (3, "q", 24)])
        ts += [tensor(b, "q", 32, [4], bytes(4), extra=[(7, "ref", b.refs([q]))]),
               tensor(b, "bf", 45, [2], bytes(4), fmt=1),
               tensor(b, "i4", 47, [3], bytes(2)),
               tensor(b, "packed", 43, [8], bytes(5), extra=[(10, "B", 1), (11, "i", 4)]),
               tensor(b, "ext", 43, [6], extra=[(12, "ref", b.refs([ext]))]),
               tensor(b, "str", 12, [1], bytes(12))]
    all_tensors = b.refs([t for t in ts for _ in range(repeats)])
    nodes = []
    for i in range(2):
        name = b.string("op%d" % i)
        prim_value = b.table([])
        prim = b.table([(0, "B", 5), (1, "ref", prim_value)])
        nodes.append(b.table([(0, "ref", name), (2, "ref", prim),
                              (3, "ref", b.vector("I", [0, 1])), (4, "ref", b.vector("I", [2]))]))
    node_vec = b.refs(nodes)
    sub_name = b.string("main")
    sub = b.table([(0, "ref", sub_name), (1, "ref", b.vector("I", [0])),
                   (2, "ref", b.vector("I", [2]))])
    subs = b.refs([sub])
    name = b.string("net")
    ver = b.string(version)
    inputs = b.vector("I", [0])
    outputs = b.vector("I", [2])
    root = b.table([(0, "ref", name), (1, "ref", ver), (2, "i", 0), (3, "ref", inputs),
                    (4, "ref", outputs), (6, "ref", node_vec), (7, "ref", all_tensors),
                    (8, "ref", subs), (9, "B", 0)])
    return b.finish(root, identifier)


def legacy_model(schema):
    """A 0.7 or 1.0 model: no identifier; Tensor fields 0-7 only (no name)."""
    b = Builder()
    ts = []
    for dtype, dims, data, fmt in [(43, [1, 3], None, 0), (43, [2, 3], bytes(range(24)), 0),
                                   (42, [2], bytes(4), 100), (45, [1], bytes(4), 0)]:
        d = b.vector("i", dims)
        fields = [(0, "i", 0 if data else 1), (1, "i", dtype), (2, "ref", d), (3, "i", fmt)]
        if data is not None:
            fields.append((6, "ref", b.vector("B", list(data))))
        ts.append(b.table(fields))
    all_tensors = b.refs(ts)
    name = b.string("op0")
    node = b.table([(0, "ref", name), (3, "ref", b.vector("I", [0, 1])),
                    (4, "ref", b.vector("I", [2]))])
    node_vec = b.refs([node])
    inputs = b.vector("I", [0])
    outputs = b.vector("I", [2])
    if schema == "1.0":
        ver = b.string("MindSpore Lite 1.0.0")
        root = b.table([(1, "ref", ver), (3, "ref", inputs), (4, "ref", outputs),
                        (6, "ref", node_vec), (7, "ref", all_tensors)])
    else:
        root = b.table([(1, "i", 2), (2, "ref", inputs), (3, "ref", outputs),
                        (5, "ref", node_vec), (6, "ref", all_tensors)])
    return b.finish(root, b"")


def external_model(offset, length):
    b = Builder()
    loc = b.string("model.ms.data")
    fields = [(1, "ref", loc), (2, "q", offset)]
    if length is not None:
        fields.append((3, "q", length))
    ext = b.table(fields)
    t = tensor(b, "ext", 43, [6], extra=[(12, "ref", b.refs([ext]))])
    all_tensors = b.refs([t])
    ver = b.string("MindSpore Lite 2.2.0")
    root = b.table([(1, "ref", ver), (7, "ref", all_tensors)])
    return b.finish(root)


def patch_u32(data, at, value):
    data = bytearray(data)
    data[at:at + 4] = struct.pack("<I", value)
    return bytes(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    plain = model()
    weight = plain.find(bytes(range(24)))
    root = struct.unpack_from("<I", plain, 0)[0]
    files = {
        "plain.ms": plain,
        "exotic.ms": model(exotic=True),
        "exotic_no_version.ms": model(version="", exotic=True),
        "exotic_1_5.ms": model(version="MindSpore Lite 1.5.0", exotic=True),
        "shared.ms": model(repeats=200),
        "msl1.ms": model(identifier=b"MSL1"),
        "no_identifier.ms": model(identifier=b""),
        "truncated.ms": plain[:len(plain) // 2],
        "data_count_huge.ms": patch_u32(plain, weight - 4, 0xFFFFFFF0),
        "root_past_end.ms": patch_u32(plain, 0, 0x7FFFFFFF),
        "root_vtable_outside.ms": patch_u32(plain, root, 0x80000000),
        "root_vtable_forward.ms": patch_u32(plain, root, 0xFFFFFFF0),
        "short.ms": plain[:6],
        "legacy_1_0.ms": legacy_model("1.0"),
        "legacy_0_7.ms": legacy_model("0.7"),
        "legacy_1_0_truncated.ms": legacy_model("1.0")[:120],
        "external_negative_offset.ms": external_model(-8, 24),
        "external_no_length.ms": external_model(0, None),
        "external_past_2_63.ms": external_model(2**62, 2**62 + 8),
    }
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
