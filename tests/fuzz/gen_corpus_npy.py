#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_npy into tests/fuzz/corpus/npy/ (no NumPy needed).

The seeds cover the header spellings of dump spec §9.3 and §5.2: versions 1-3, 16- and 64-byte
alignment, MindSpore's trailing commas, key orders, byte orders, <E2 and V2, fortran order, and a
few broken files. Run it from anywhere; it overwrites the seeds it owns.
"""
import math
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "npy")


def npy(text, data=b"", major=1, align=64):
    prefix = 10 if major == 1 else 12
    body = text
    while (prefix + len(body) + 1) % align:
        body += " "
    body += "\n"
    length = struct.pack("<H" if major == 1 else "<I", len(body))
    return b"\x93NUMPY" + bytes([major, 0]) + length + body.encode("latin-1") + data


def dict_text(descr, shape, fortran=False, mindspore=False):
    if mindspore:
        dims = "".join("%d," % d for d in shape)
    else:
        dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    return "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (descr, fortran, dims)


def floats(values, fmt="<f"):
    return b"".join(struct.pack(fmt, v) for v in values)


def main():
    os.makedirs(OUT, exist_ok=True)
    specials = [1.5, -2.0, 0.0, -0.0, float("nan"), float("inf"), -float("inf"), 3.0]
    seeds = {
        "f4_2x4_mindspore.npy": npy(dict_text("<f4", (2, 4), mindspore=True), floats(specials)),
        "f8_8_numpy.npy": npy(dict_text("<f8", (8,)), floats(specials, "<d")),
        "f2_scalar.npy": npy(dict_text("<f2", ()), b"\x00\x3c"),
        "e2_bfloat16.npy": npy(dict_text("<E2", (3,)), b"\x80\x3f\xc0\x7f\x80\xff"),
        "v2_bfloat16_hint.npy": npy(dict_text("|V2", (2,)), b"\x80\x3f\x00\xc0"),
        "b1_align16.npy": npy(dict_text("|b1", (5,)), b"\x01\x00\x01\x01\x00", align=16),
        "i1_v2.npy": npy(dict_text("|i1", (2, 2)), b"\x80\x7f\x00\xff", major=2),
        "u8_v3.npy": npy(dict_text("<u8", (2,)), struct.pack("<QQ", 2**64 - 1, 1), major=3),
        "i4_keys_reordered.npy": npy(
            "{\"shape\" : ( 3 , ) ,\"fortran_order\":False,'descr':'<i4'}",
            struct.pack("<iii", -1, 0, 2**31 - 1)),
        "c8_complex.npy": npy(dict_text("<c8", (1,)), floats([1.0, -1.0])),
        "f4_fortran.npy": npy(dict_text("<f4", (2, 2), fortran=True), floats([1, 2, 3, 4])),
        "f4_big_endian.npy": npy(dict_text(">f4", (2,)), floats([1, 2], ">f")),
        "u2_empty.npy": npy(dict_text("<u2", (0, 3))),
        "f4_trailing_bytes.npy": npy(dict_text("<f4", (1,)), floats([1.0]) + b"junk"),
        "f4_truncated_data.npy": npy(dict_text("<f4", (4,)), floats([1.0])),
        "f4_huge_shape.npy": npy(dict_text("<f4", (2**32, 2**32))),
        "bad_magic.npy": b"\x93NUMPX\x01\x00\x00\x00",
        "header_past_end.npy": b"\x93NUMPY\x01\x00\xff\xff{'descr'",
        "f4_block_boundary.npy": npy(
            dict_text("<f4", (2049,)),
            floats([math.sin(i) * 1e3 for i in range(2049)])),
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    print("wrote %d seeds to %s" % (len(seeds), OUT))


if __name__ == "__main__":
    main()
