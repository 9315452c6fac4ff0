#!/usr/bin/env python3
"""The reference for summary-cat --scalars --json in bench/summary_bench.sh: a pure-Python reader
of a MindSpore summary file with the spec's framing (spec summary.md §3: u64 length, u32 length
CRC, payload, u32 payload CRC) and a hand-written protobuf decoder of Event/Summary/Value (§5),
printing one JSON line per scalar like summary-cat. Like MindInsight (since 1.3) it does not
verify CRCs: a pure-Python CRC-32C would make it hundreds of times slower still.

    summary_reader.py FILE > OUT.jsonl
"""
import json
import struct
import sys


def varint(buf, pos):
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def fields(buf, start, end):
    pos = start
    while pos < end:
        key, pos = varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(buf, pos)
            yield number, wire, value, 0
        elif wire == 1:
            yield number, wire, buf[pos:pos + 8], 0
            pos += 8
        elif wire == 2:
            length, pos = varint(buf, pos)
            yield number, wire, pos, pos + length
            pos += length
        elif wire == 5:
            yield number, wire, buf[pos:pos + 4], 0
            pos += 4
        else:
            raise ValueError("unsupported wire type %d" % wire)


def main():
    path = sys.argv[1]
    with open(path, "rb") as f:
        data = f.read()
    out = sys.stdout
    pos, size = 0, len(data)
    while pos + 12 <= size:
        (length,) = struct.unpack_from("<Q", data, pos)
        start = pos + 12
        end = start + length
        if end + 4 > size:
            break
        wall, step, scalars = 0.0, None, []
        for number, wire, a, b in fields(data, start, end):
            if number == 1 and wire == 1:
                (wall,) = struct.unpack("<d", a)
            elif number == 2 and wire == 0:
                step = a
            elif number == 5 and wire == 2:
                for vn, vw, va, vb in fields(data, a, b):
                    if vn != 1 or vw != 2:
                        continue
                    tag, value = None, None
                    for n, w, x, y in fields(data, va, vb):
                        if n == 1 and w == 2:
                            tag = data[x:y].decode("utf-8", "surrogateescape")
                        elif n == 3 and w == 5:
                            (value,) = struct.unpack("<f", x)
                    if value is not None:
                        scalars.append((tag, value))
        for tag, value in scalars:
            out.write(json.dumps({"run": ".", "file": path, "step": step, "wall_time": wall,
                                  "tag": tag, "kind": "scalar", "value": value}) + "\n")
        pos = end + 4


if __name__ == "__main__":
    main()
