"""Checks tests/mkfixture/examples/compare_{golden,mine,ascend_mine}.json as built trees, with
NumPy alone (not dump-compare): what each example's header comment says was injected.

    compare_examples_check.py GOLDEN MINE             pairs, metrics, first divergence
    compare_examples_check.py --ascend GOLDEN CONVERTED   dump-convert -f NCHW output vs golden

Pairing is by (op name, io, slot) in rank_0/Net/0/0 (one occurrence each here); rows are printed
in golden's execution order (rank_0/execution_order/ms_execution_order_graph_0.csv, '/' spelled
'_' as in 2.3+ file names), then my unmatched tensors. Per row: cosine and max abs error in
float64 and the verdict of the default thresholds (compare spec §9.1: cosine warning 0.99, error
0.9; max abs error warning 0.001, error 1; both warnings an error). The first divergence is the
first row that is not a pass while every input row of its op passes.
"""
import glob
import os
import sys

import numpy as np

DIR = "rank_0/Net/0/0"


def index(root):
    out = {}
    for path in glob.glob(os.path.join(root, DIR, "*.npy")):
        p = os.path.basename(path).split(".")
        out[(p[1], p[5], int(p[6]))] = path
    return out


def verdict(cos, mae):
    if cos < 0.9 or mae > 1 or (cos < 0.99 and mae > 0.001):
        return "error"
    if cos < 0.99 or mae > 0.001:
        return "warning"
    return "pass"


def pairs(golden, mine):
    g, m = index(golden), index(mine)
    with open(os.path.join(golden, "rank_0/execution_order/ms_execution_order_graph_0.csv")) as f:
        order = [line.strip().replace("/", "_") for line in f][1:]
    rows = []
    for number, op in enumerate(order, 1):
        for key in sorted((k for k in g if k[0] == op), key=lambda k: (k[1] != "input", k[2])):
            short = f"{number:2d} {op.rsplit('_', 1)[-1]} {key[1]} {key[2]}"
            if key not in m:
                rows.append((number, key, short, None))
                print(f"{short}: golden only")
                continue
            a = np.load(m[key]).astype(np.float64).ravel()
            b = np.load(g[key]).astype(np.float64).ravel()
            cos = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
            mae = float(np.abs(a - b).max())
            v = verdict(cos, mae)
            rows.append((number, key, short, v))
            print(f"{short}: cosine {cos:.6f} max abs error {mae:.2e} {v}")
    for key in sorted(k for k in m if k not in g):
        print(f"   {key[0].rsplit('_', 1)[-1]} {key[1]} {key[2]}: mine only")
    inputs_pass = {}
    for number, key, short, v in rows:
        if key[1] == "input":
            inputs_pass[number] = inputs_pass.get(number, True) and v in ("pass", None)
    for number, key, short, v in rows:
        if v not in ("pass", None) and inputs_pass.get(number, True) and key[1] == "output":
            print(f"first divergence: {short.strip()}")
            break


def ascend(golden, converted):
    g = index(golden)
    for path in sorted(glob.glob(os.path.join(converted, "*.npy"))):
        p = os.path.basename(path).split(".")
        key = (p[1], p[5], int(p[6]))
        a, b = np.load(path), np.load(g[key])
        same = a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
        print(f"{p[0]} {p[1].rsplit('_', 1)[-1]} {p[5]} {p[6]} {a.shape}: "
              f"{'equal to golden' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    if sys.argv[1] == "--ascend":
        ascend(sys.argv[2], sys.argv[3])
    else:
        pairs(sys.argv[1], sys.argv[2])
