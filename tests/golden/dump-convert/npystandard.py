"""NumPy oracle: is a dump-convert output the standard form of its .npy source?

    npystandard.py SOURCE OUTPUT

Checks that OUTPUT is a version 1.0 .npy with its elements 64-byte aligned, little-endian (or
single-byte) and C order, and that np.load gives the same dtype (in little-endian order) and the
same values as np.load(SOURCE). Prints "ok standard DTYPE (SHAPE)" or what differs; exits 1 on a
difference.
"""
import sys

import numpy as np


def main():
    source_path, output_path = sys.argv[1:3]
    source = np.load(source_path, allow_pickle=False)
    raw = open(output_path, 'rb').read()
    output = np.load(output_path, allow_pickle=False)
    problems = []
    if raw[6:8] != b'\x01\x00':
        problems.append(f"version {raw[6]}.{raw[7]}")
    data_offset = 10 + int.from_bytes(raw[8:10], 'little')
    if data_offset % 64:
        problems.append(f"elements at offset {data_offset}")
    if output.dtype.byteorder == '>':
        problems.append("big-endian")
    if output.ndim > 1 and not output.flags.c_contiguous:
        problems.append("not C order")
    if output.dtype != source.dtype.newbyteorder('<'):
        problems.append(f"dtype {output.dtype}, source {source.dtype}")
    if output.shape != source.shape or not np.array_equal(output, source, equal_nan=True):
        problems.append(f"values {output.ravel()[:8].tolist()}, source {source.ravel()[:8].tolist()}")
    if problems:
        print("FAIL " + output_path.rsplit('/', 1)[-1] + ": " + "; ".join(problems))
        return 1
    print(f"ok standard {output.dtype} {output.shape}")
    return 0


sys.exit(main())
