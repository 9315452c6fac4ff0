#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_checkpoint: MindSpore .ckpt files (checkpoint spec §3-§6)
encoded by hand (sliced parameters, strings, random_op, a map parameter, the CRC trailer) and
broken variants, plus the first bytes of the other kinds sniff tells apart (§2).

    python3 tests/fuzz/make_corpus_checkpoint.py
"""
import os
import struct
import zlib

from make_corpus_graph_proto import field_bytes as ld, field_varint

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "checkpoint")


def tensor(dims, dtype, content, packed=False):
    if packed:
        from make_corpus_graph_proto import varint
        d = ld(1, b"".join(varint(x & 0xFFFFFFFFFFFFFFFF) for x in dims))
    else:
        d = b"".join(field_varint(1, x & 0xFFFFFFFFFFFFFFFF) for x in dims)
    return d + ld(2, dtype) + ld(3, content)


def value(tag, t):
    return ld(1, ld(1, tag) + ld(2, t))


def map_value(tag, keys, values, status):
    return ld(1, ld(1, tag) + ld(3, ld(1, keys) + ld(1, values) + ld(1, status)))


def trailer(body):
    return body + b"crc_num" + zlib.crc32(body).to_bytes(10, "big")


def main():
    os.makedirs(OUT, exist_ok=True)
    f32 = struct.pack("<10f", *range(10))
    plain = value("fc.bias", tensor([10], "Float32", f32)) + \
        value("fc.weight", tensor([2, 3], "Float16", bytes(12), packed=True))
    sliced = b"".join(value("big", tensor([6], "Float32", bytes(range(i * 8, i * 8 + 8))))
                      for i in range(3))
    extras = value("epoch_num", tensor([], "Int64", struct.pack("<q", 3))) + \
        value("name", tensor([0], "str", "hé€".encode("utf-32-le"))) + \
        value("random_op", tensor([4], "random_op", bytes(7))) + \
        value("q", tensor([3], "Int4", b"\x12\x03")) + \
        value("u", tensor([2], "Uint8", b"\x01\x02")) + \
        value("c", tensor([1], "Complex64", bytes(8)))
    table = map_value("table", tensor([2], "int64", bytes(16)), tensor([2, 2], "float32", bytes(16)),
                      tensor([2], "bool", b"\x00\x01"))
    files = {
        "plain.ckpt": plain,
        "sliced.ckpt": sliced,
        "extras.ckpt": extras,
        "map.ckpt": table + table,
        "crc.ckpt": trailer(plain + extras),
        "crc_bad.ckpt": (plain + b"crc_num" + bytes(6) + b"\xde\xad\xbe\xef"),
        "truncated.ckpt": (plain + sliced)[:-5],
        "length_beyond.ckpt": plain + b"\x0a\xff\xff\x03\x0a\x01a",
        "negative_dim.ckpt": value("n", tensor([2, -1], "Float32", bytes(8))) + plain,
        "mismatch.ckpt": value("w", tensor([6], "Float32", bytes(8))) * 2,
        "bad_string.ckpt": value("s", tensor([0], "str", struct.pack("<3I", 0x61, 0xD800, 0x110000))),
        "model_type_v05.ckpt": plain + ld(2, "normal"),
        "encrypted_gcm.bin": b"\xd8\x5e\x3a\x7f" + bytes(16) + struct.pack("<II", 24 + 8, 16) +
        bytes(16) + struct.pack("<I", 8) + bytes(8),
        "mindir_head.bin": b"\x0a\x050.1.1\x12\x09MindSpore" + bytes(8),
        "graph_meta_head.bin": b"\x08\x01\x22\x02\x0a\x00",
        "ms_lite_head.bin": b"\x1c\x00\x00\x00MSL2" + bytes(24),
        "safetensors_head.bin": struct.pack("<Q", 2) + b"{}",
    }
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
