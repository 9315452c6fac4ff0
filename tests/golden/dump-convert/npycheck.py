"""NumPy oracle for the dump-convert golden tests.

    npycheck.py FILE DTYPE SHAPE EXPR
    npycheck.py --standard SOURCE OUTPUT

The first form loads FILE with np.load (so it must be a standard .npy), and checks its dtype, its
shape (comma-separated, '' for 0-d) and its values against EXPR, a NumPy expression evaluated with
`np` bound; it prints "ok DTYPE (SHAPE)".

The second checks that OUTPUT is the standard form of the .npy SOURCE: version 1.0, elements
64-byte aligned, little-endian (or single-byte), C order, and np.load gives the dtype of SOURCE
(in little-endian order) and its values; it prints "ok standard DTYPE (SHAPE)".

Either prints what differs instead, and exits 1 on a difference.
"""
import sys

import numpy as np


def check_values(path, dtype, shape_text, expr):
    array = np.load(path, allow_pickle=False)
    shape = tuple(int(d) for d in shape_text.split(',') if d)
    expected = np.asarray(eval(expr, {"np": np}))
    problems = []
    if array.dtype != np.dtype(dtype):
        problems.append(f"dtype {array.dtype}, expected {dtype}")
    if array.shape != shape:
        problems.append(f"shape {array.shape}, expected {shape}")
    elif not np.array_equal(array, expected.reshape(shape).astype(array.dtype), equal_nan=True):
        problems.append(f"values {array.ravel()[:8].tolist()}, expected {expected.ravel()[:8].tolist()}")
    return path, array, problems, "ok"


def check_standard(source_path, path):
    source = np.load(source_path, allow_pickle=False)
    raw = open(path, 'rb').read()
    array = np.load(path, allow_pickle=False)
    problems = []
    if raw[6:8] != b'\x01\x00':
        problems.append(f"version {raw[6]}.{raw[7]}")
    data_offset = 10 + int.from_bytes(raw[8:10], 'little')
    if data_offset % 64:
        problems.append(f"elements at offset {data_offset}")
    if array.dtype.byteorder == '>':
        problems.append("big-endian")
    if array.ndim > 1 and not array.flags.c_contiguous:
        problems.append("not C order")
    if array.dtype != source.dtype.newbyteorder('<'):
        problems.append(f"dtype {array.dtype}, source {source.dtype}")
    if array.shape != source.shape or not np.array_equal(array, source, equal_nan=True):
        problems.append(f"values {array.ravel()[:8].tolist()}, source {source.ravel()[:8].tolist()}")
    return path, array, problems, "ok standard"


def main():
    if sys.argv[1] == "--standard":
        path, array, problems, ok = check_standard(*sys.argv[2:4])
    else:
        path, array, problems, ok = check_values(*sys.argv[1:5])
    if problems:
        print("FAIL " + path.rsplit('/', 1)[-1] + ": " + "; ".join(problems))
        return 1
    print(f"{ok} {array.dtype} {array.shape}")
    return 0


sys.exit(main())
