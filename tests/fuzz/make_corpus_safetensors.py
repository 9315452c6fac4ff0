#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_safetensors: safetensors files (checkpoint spec §8) encoded by
hand as the safetensors library writes them (compact header padded with spaces to 8, tensors
tiling the data), with MindSpore's __metadata__ (format, remove_redundancy, the §8.2 crc_num, a
per-parameter Int4), every dtype name, and broken variants: header sizes past the end or the cap,
headers that are not UTF-8, not JSON or not an object, NUL padding, deep nesting, missing keys,
overlapping, reversed or out-of-range offsets, holes, size mismatches, repeated keys.

    python3 tests/fuzz/make_corpus_safetensors.py
"""
import json
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "safetensors")

BITS = {"BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8, "F8_E5M2": 8,
        "F8_E4M3": 8, "F8_E8M0": 8, "F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8, "I16": 16, "U16": 16,
        "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32, "C64": 64, "F64": 64, "I64": 64,
        "U64": 64}


def nbytes(dtype, shape):
    count = 1
    for d in shape:
        count *= d
    return count * BITS[dtype] // 8


def header_text(tensors, metadata=None, pad=b" "):
    """tensors: [(name, dtype, shape, data)] in data order; the header in that order."""
    head = {}
    if metadata is not None:
        head["__metadata__"] = metadata
    offset = 0
    for name, dtype, shape, data in tensors:
        head[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(head, separators=(",", ":"), ensure_ascii=False).encode()
    return text + pad * ((8 - len(text) % 8) % 8)


def file(text, data=b"", size=None):
    return struct.pack("<Q", len(text) if size is None else size) + text + data


def safetensors(tensors, metadata=None, **kw):
    return file(header_text(tensors, metadata, **kw), b"".join(t[3] for t in tensors))


def crc_num(tensors):
    crc = 0
    for name, _, _, data in sorted(tensors, key=lambda t: t[0].encode()):
        crc = zlib.crc32(name.encode(), crc)
        crc = zlib.crc32(data, crc)
    return str(crc)


def main():
    os.makedirs(OUT, exist_ok=True)
    f32 = struct.pack("<6f", *range(6))
    lenet = [("fc.weight", "F32", [2, 3], f32), ("fc.bias", "BF16", [3], bytes(6)),
             ("global_step", "I32", [1], struct.pack("<i", 10)), ("q", "I8", [2], b"\x12\x34")]
    every = [("t_" + d, d, [4], bytes(nbytes(d, [4]))) for d in BITS]
    meta = {"format": "ms", "remove_redundancy": "False", "q": "Int4", "crc_num": crc_num(lenet)}
    bad_offsets = header_text([("a", "U8", [4], bytes(4))]).replace(b"[0,4]", b"[2,6]")
    files = {
        "lenet.safetensors": safetensors(lenet),
        "ms_metadata.safetensors": safetensors(lenet, meta),
        "crc_bad.safetensors": safetensors(lenet, dict(meta, crc_num="12345")),
        "crc_not_decimal.safetensors": safetensors(lenet, {"crc_num": "0x10"}),
        "every_dtype.safetensors": safetensors(every),
        "unknown_dtype.safetensors": safetensors([("x", "Q4", [2], b"\x01")]),
        "empty.safetensors": safetensors([]),
        "metadata_only.safetensors": safetensors([], {"framework": "pt"}),
        "metadata_not_strings.safetensors": safetensors([], {"n": 3, "o": {"x": [1]}}),
        "scalar_and_zero.safetensors": safetensors([("s", "F64", [], bytes(8)),
                                                    ("z", "F16", [0, 4], b"")]),
        "escaped_names.safetensors": safetensors([('a"b\n\u00e9', "U8", [1], b"\x07")]),
        "header_past_end.safetensors": file(b"{}", size=100),
        "header_above_cap.safetensors": file(b"{}", size=100_000_001),
        "header_huge.safetensors": file(b"{}", size=2**64 - 1),
        "short.safetensors": b"\x02\x00\x00",
        "not_utf8.safetensors": file(b'{"a\xff":1}'),
        "not_json.safetensors": file(b'{"a":{"dtype":}'),
        "not_object.safetensors": file(b" [1]"),
        "nul_padding.safetensors": file(header_text(lenet, pad=b"\0") + b"\0",
                                        b"".join(t[3] for t in lenet)),
        "deep.safetensors": file(b'{"__metadata__":{"x":' + b"[" * 200 + b"]" * 200 + b"}}"),
        "missing_keys.safetensors": file(
            b'{"a":{"shape":[1],"data_offsets":[0,1]},"b":{"dtype":"U8","data_offsets":[0,1]},'
            b'"c":{"dtype":"U8","shape":[1]},"d":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]},'
            b'"e":[],"f":{"dtype":"U8","shape":[1],"data_offsets":[0,"1"]}}', b"\x00"),
        "hole_at_start.safetensors": file(bad_offsets, bytes(6)),
        "overlap.safetensors": file(
            b'{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},'
            b'"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]},'
            b'"c":{"dtype":"U8","shape":[4],"data_offsets":[9,5]}}', bytes(6)),
        "past_end.safetensors": file(
            b'{"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}}', bytes(3)),
        "offsets_2_64.safetensors": file(
            b'{"a":{"dtype":"U8","shape":[1],"data_offsets":'
            b'[18446744073709551615,18446744073709551615]}}'),
        "count_overflow.safetensors": file(
            b'{"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,0]}}'),
        "size_mismatch.safetensors": file(
            b'{"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,12]}}', bytes(12)),
        "trailing_bytes.safetensors": safetensors(lenet) + b"junk",
        "repeated_key.safetensors": file(
            b'{"a":{"dtype":"U8","shape":[9],"data_offsets":[0,9]},'
            b'"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}', bytes(2)),
        "f4_odd.safetensors": safetensors([("f", "F4", [3], bytes(2))]),
    }
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
