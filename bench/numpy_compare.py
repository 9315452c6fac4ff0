#!/usr/bin/env python3
"""The NumPy reference for `dump-compare` in bench/compare_bench.sh.

Walks two dump trees of `.npy` files, pairs the files by their path relative to each tree (the
same names on both sides, as the trees `mkfixture` generates with and without "perturb"), and
computes per pair, in float64, the metrics dump-compare computes (compare spec §5.1, §12.3,
§12.4), the way a user writes them: np.load of both files, astype(np.float64), then one NumPy
expression per metric:

    cosine similarity           x·y / (‖x‖ ‖y‖)                    (nan when a norm is 0)
    max, mean absolute error    max |x − y|, mean |x − y|
    RMSE                        √(mean (x − y)²)
    relative errors             rᵢ = |xᵢ − yᵢ| / |yᵢ|, 0 where |yᵢ| ≤ ε (float64 epsilon):
                                max r, mean r (over all elements), accumulated Σ r
    relative Euclidean distance √(Σ(x − y)² / Σy²), 0 when √Σy² ≤ ε
    per side                    mean, population std (ddof 0), NaN, +Inf and −Inf counts
    KL divergence               each side min-max normalised (unless constant), clamped at
                                ε₃₂, divided by its sum: Σ p ln(p/q); 0 when |KL| < ε
    msprobe (§6.3-6.4)          EucDist √Σ(x − y)²; RE = |(x − y)/y| after x and y are both
                                shifted by ε₃₂ where y == 0: max RE, #(RE < 0.001)/n,
                                #(RE < 0.005)/n
    statistics (§6.5)           max, min, mean and L2 norm of my side minus golden's

x is my side, y the golden side. One process, one pair at a time: the fair reference of "a NumPy
script". NaN and Inf propagate (dump-compare's default policy).

    numpy_compare.py MINE GOLDEN

prints one tab-separated line per pair (the relative path, then the metrics above in that
order), a line "only in mine|golden PATH" for a file without partner, and at the end
"pairs N unmatched M".
"""
import os
import sys

import numpy as np

EPS = np.finfo(np.float64).eps
EPS32 = float(np.finfo(np.float32).eps)


def npy_files(root):
    out = set()
    for directory, _, files in os.walk(root):
        for name in files:
            if name.endswith(".npy"):
                out.add(os.path.relpath(os.path.join(directory, name), root))
    return out


def side(v):
    return (v.mean(), v.std(), int(np.isnan(v).sum()), int(np.isposinf(v).sum()),
            int(np.isneginf(v).sum()))


def kl_side(v):
    low, high = v.min(), v.max()
    w = (v - low) / (high - low) if high != low else v.copy()
    w = np.maximum(w, EPS32)
    return w / w.sum()


def compare(x, y):
    norm_x, norm_y = np.linalg.norm(x), np.linalg.norm(y)
    cosine = np.dot(x, y) / (norm_x * norm_y) if norm_x > 0 and norm_y > 0 else np.nan
    diff = x - y
    abs_diff = np.abs(diff)
    abs_y = np.abs(y)
    relative = np.zeros_like(abs_diff)
    np.divide(abs_diff, abs_y, out=relative, where=abs_y > EPS)
    sum_sq_diff = np.dot(diff, diff)
    sum_sq_y = np.dot(y, y)
    red = np.sqrt(sum_sq_diff / sum_sq_y) if np.sqrt(sum_sq_y) > EPS else 0.0
    p, q = kl_side(x), kl_side(y)
    kl = float(np.sum(p * np.log(p / q)))
    if abs(kl) < EPS:
        kl = 0.0
    zero = y == 0
    shifted_x, shifted_y = np.where(zero, x + EPS32, x), np.where(zero, y + EPS32, y)
    re = np.abs((shifted_x - shifted_y) / shifted_y)
    statistics = (x.max() - y.max(), x.min() - y.min(), x.mean() - y.mean(),
                  norm_x - norm_y)
    return ((cosine, abs_diff.max(), abs_diff.mean(), np.sqrt(sum_sq_diff / diff.size),
             relative.max(), relative.mean(), relative.sum(), red) + side(x) + side(y) +
            (kl, np.sqrt(sum_sq_diff), re.max(), np.count_nonzero(re < 0.001) / re.size,
             np.count_nonzero(re < 0.005) / re.size) + statistics)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: numpy_compare.py MINE GOLDEN")
    mine, golden = sys.argv[1], sys.argv[2]
    mine_files, golden_files = npy_files(mine), npy_files(golden)
    out = sys.stdout
    pairs = unmatched = 0
    np.seterr(all="ignore")
    for name in sorted(mine_files | golden_files):
        if name not in golden_files or name not in mine_files:
            unmatched += 1
            out.write(f"only in {'mine' if name in mine_files else 'golden'}\t{name}\n")
            continue
        x = np.load(os.path.join(mine, name)).astype(np.float64).ravel()
        y = np.load(os.path.join(golden, name)).astype(np.float64).ravel()
        pairs += 1
        if x.size != y.size:
            out.write(f"{name}\tsize mismatch {x.size} {y.size}\n")
            continue
        if x.size == 0:
            out.write(f"{name}\tempty\n")
            continue
        out.write(name + "\t" + "\t".join(f"{v:.10g}" for v in compare(x, y)) + "\n")
    out.write(f"pairs {pairs} unmatched {unmatched}\n")


if __name__ == "__main__":
    main()
