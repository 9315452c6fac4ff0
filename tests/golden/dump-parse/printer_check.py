"""NumPy oracle for the values `dump-parse --show` prints.

    printer_check.py WORKDIR

Each case is an array built here with NumPy; its exact bit patterns go into a mkfixture .npy
description, `dump-parse --show FILE --json --max-elements N` prints it, and the "values" text
must equal np.array2string(array, threshold=N) (NumPy's defaults otherwise: linewidth 75,
precision 8, edgeitems 3). Prints one line per case; exits 1 if any differs.
"""
import json
import os
import subprocess
import sys

import numpy as np

BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64, 1: np.uint8}


def description(a):
    if a.dtype == np.bool_:
        values = [bool(v) for v in a.ravel()]
    elif a.dtype.kind in "iu":
        values = [int(v) for v in a.ravel()]
    else:
        values = [hex(int(v)) for v in a.ravel().view(BITS[a.dtype.itemsize])]
    return {"kind": "file", "npy": {"dtype": a.dtype.name, "shape": list(a.shape), "values": values}}


rng = np.random.default_rng(5)
CASES = [
    ("float32 arange 2x3", np.arange(6, dtype=np.float32).reshape(2, 3) / 4, 1000),
    ("float32 specials", np.array([1, -2.5, np.nan, np.inf, -np.inf, 0.1, 1e20, -0.0, 1e-7],
                                  dtype=np.float32).reshape(3, 3), 1000),
    ("float32 random 4x5", rng.standard_normal((4, 5)).astype(np.float32), 1000),
    ("float32 wraps at 75", rng.standard_normal(40).astype(np.float32) * 100, 1000),
    ("float64 random wraps", rng.standard_normal(30) * 1e3, 1000),
    ("float64 exp format", np.array([1e-5, 1.5, 123456789.0, -2e-300]), 1000),
    ("float64 long fraction", np.array([1 / 3, 2 / 3, 0.1, 100.25]), 1000),
    ("float64 nan and inf only", np.array([np.nan, -np.inf, np.inf]), 1000),
    ("float64 ratio over 1000", np.array([0.5, 600.0, 2.0]), 1000),
    ("float16 values", np.array([1, 0.3333, -np.inf, 65504, 6e-5, 0.1], dtype=np.float16), 1000),
    ("float32 summarised 3-D", rng.standard_normal((8, 9, 10)).astype(np.float32), 100),
    ("float32 summarised rows", np.linspace(-1, 1, 2000, dtype=np.float32).reshape(20, 100), 1000),
    ("int32 3-D", np.arange(24, dtype=np.int32).reshape(2, 3, 4), 1000),
    ("int64 wraps", np.arange(-50, 50, dtype=np.int64) * 12345, 1000),
    ("int16 summarised", np.arange(-100, 412, dtype=np.int16).reshape(8, 8, 8), 10),
    ("uint8 summarised", np.arange(100, dtype=np.uint8).reshape(10, 10), 10),
    ("bool", np.array([True, False, True]), 1000),
    ("float64 5-D", rng.standard_normal((2, 1, 2, 1, 3)), 1000),
]


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    failed = 0
    for k, (label, a, threshold) in enumerate(CASES):
        fixture = os.path.join(work, f"case{k}.json")
        path = os.path.join(work, f"Op.case{k}.0.0.1700000000000001.output.0.DefaultFormat.npy")
        with open(fixture, "w") as f:
            json.dump(description(a), f)
        subprocess.run(["mkfixture", fixture, "-o", path], check=True)
        run = subprocess.run(["dump-parse", "--show", path, "--json", "--max-elements",
                              str(threshold)], capture_output=True, text=True)
        got = json.loads(run.stdout)["tensors"][0]["values"] if run.returncode == 0 else None
        want = np.array2string(a, threshold=threshold)
        if got != want:
            failed += 1
            print(f"FAIL {label}:\n{got}\nexpected\n{want}")
        else:
            print(f"ok {label} {a.dtype} {a.shape}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
