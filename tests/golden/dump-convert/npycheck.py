"""NumPy oracle for the dump-convert golden tests.

    npycheck.py FILE DTYPE SHAPE EXPR

Loads FILE with np.load (so it must be a standard .npy), and checks its dtype, its shape (comma-
separated, '' for 0-d) and its values against EXPR, a NumPy expression evaluated with `np` bound.
Prints one line "ok DTYPE (SHAPE)" or what differs, and exits 1 on a difference.
"""
import sys

import numpy as np


def main():
    path, dtype, shape_text, expr = sys.argv[1:5]
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
    if problems:
        print("FAIL " + path.rsplit('/', 1)[-1] + ": " + "; ".join(problems))
        return 1
    print(f"ok {array.dtype} {array.shape}")
    return 0


sys.exit(main())
