"""NumPy oracle for `dump-parse --stats --json`: recomputes every statistic of each listed tensor
from the file itself and compares (relative 1e-6; counts exactly). Prints one line per row,
"ok <file name>" or the mismatches, then a summary line; exits 1 on any mismatch.

Reads .npy with np.load and format-A .bin with np.fromfile (dtype and shape from the row), so it
checks the listing's dtype and shape as well as the statistics.
"""
import json
import math
import os
import sys

import numpy as np


def expected(values):
    v = values.astype(np.float64).ravel()
    finite = v[np.isfinite(v)]
    not_nan = v[~np.isnan(v)]
    e = {
        "count": int(v.size),
        "nan": int(np.isnan(v).sum()),
        "pos_inf": int(np.isposinf(v).sum()),
        "neg_inf": int(np.isneginf(v).sum()),
        "zero": int((v == 0).sum()),
        "negative": int((v < 0).sum()),
        "positive": int((v > 0).sum()),
        "min": float(not_nan.min()) if not_nan.size else None,
        "max": float(not_nan.max()) if not_nan.size else None,
        "mean": float(finite.mean()) if finite.size else None,
        "std": float(finite.std()) if finite.size else None,
        "abs_mean": float(np.abs(finite).mean()) if finite.size else None,
        "l2norm": float(np.sqrt((finite * finite).sum())) if finite.size else None,
    }
    return e


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) or isinstance(b, str):
        to = lambda x: float(x) if isinstance(x, str) else x
        a, b = to(a), to(b)
        return (math.isnan(a) and math.isnan(b)) or a == b
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b)) or abs(a - b) <= 1e-300


bad = 0
rows = 0
for line in sys.stdin:
    row = json.loads(line)
    rows += 1
    path = row["file"]
    if path.endswith(".npy"):
        values = np.load(path)
    else:
        values = np.fromfile(path, dtype=np.dtype(row["dtype"])).reshape(row["shape"])
    problems = []
    if str(values.dtype) != row["dtype"]:
        problems.append("dtype %s, numpy %s" % (row["dtype"], values.dtype))
    if list(values.shape) != row["shape"]:
        problems.append("shape %s, numpy %s" % (row["shape"], list(values.shape)))
    for key, want in expected(values).items():
        if not close(row[key], want):
            problems.append("%s %r, numpy %r" % (key, row[key], want))
    name = os.path.basename(path)
    if problems:
        bad += 1
        print("MISMATCH %s: %s" % (name, "; ".join(problems)))
    else:
        print("ok %s" % name)
print("%d rows, %d mismatches" % (rows, bad))
sys.exit(1 if bad else 0)
