#!/usr/bin/python3
"""The metrics of compare spec §4-§6 computed with NumPy, as the oracle of metrics_test.cpp.

Usage: metrics_oracle.py CASES.json > RESULTS.json

CASES.json is a list of {name, my, golden, my_dtype, golden_dtype, nan, cast}: raw little-endian
files and their NumPy dtypes, the NaN/Inf policy (propagate, same-positions, mask) and whether
both sides are cast to float32 first (msaccucmp, §4 item 4). The result is a list of {name,
masked, metrics: {key: value or null}}; a metric is null when it is not a number.

The formulas are written the way the peers write them (np.linalg.norm, np.where, x/‖x‖ · y/‖y‖),
in float64 after the optional float32 cast, independently of the C++ kernel.
"""
import json
import sys

import numpy as np

EPS = np.finfo(float).eps
EPS32 = float(np.finfo(np.float32).eps)


def load(path, dtype, cast):
    values = np.fromfile(path, dtype=np.dtype(dtype).newbyteorder("<"))
    if cast:
        values = values.astype(np.float32)
    return values.astype(np.float64)


def number(value):
    value = float(value)
    return None if np.isnan(value) else value


def msaccucmp(x, y):
    """§5.1 on flat float64 arrays (no scalar, bool or empty case reaches here)."""
    out = {}
    nx, ny = np.linalg.norm(x), np.linalg.norm(y)
    if len(x) == 1:
        out["cosine"] = None
    elif nx <= EPS and ny < EPS:
        out["cosine"] = 1.0
    elif nx ** 0.5 <= EPS or ny ** 0.5 <= EPS:
        out["cosine"] = None
    else:
        c = np.sum((x / nx) * (y / ny))
        out["cosine"] = None if np.isnan(c) else float(min(max(c, -1.0), 1.0))
    d = x - y
    out["max_absolute_error"] = number(np.max(np.abs(d)))
    r = np.where(np.abs(y) > EPS, np.abs(x / y - 1), 0)
    out["accumulated_relative_error"] = number(r.sum())
    sq = (y ** 2).sum()
    out["relative_euclidean_distance"] = 0.0 if sq ** 0.5 <= EPS else number(((d ** 2).sum() / sq) ** 0.5)

    def normalised(v):
        lo, hi = v.min(), v.max()
        v = (v - lo) / (hi - lo) if hi != lo else v
        return np.maximum(v, EPS32)

    p, q = normalised(x), normalised(y)
    p, q = p / p.sum(), q / q.sum()
    kl = np.sum(p * np.log(p / q))
    out["kl_divergence"] = 0.0 if abs(kl) < EPS else number(kl)
    out["mean_my"], out["std_my"] = number(np.mean(x)), number(np.std(x))
    out["mean_golden"], out["std_golden"] = number(np.mean(y)), number(np.std(y))
    out["mean_absolute_error"] = number(np.mean(np.abs(d)))
    out["root_mean_square_error"] = number(np.sqrt(np.mean(d ** 2)))
    out["max_relative_error"] = number(r.max())
    out["mean_relative_error"] = number(r.mean())
    return out


def msprobe(x, y, eps):
    """§6.3-§6.4 on flat float64 arrays of more than one element."""
    out = {}
    num = x.dot(y)
    a, b = np.linalg.norm(x), np.linalg.norm(y)
    if len(x) == 1:
        out["mp_cosine"] = None
    elif a <= EPS and b <= EPS:
        out["mp_cosine"] = 1.0
    elif a <= EPS or b <= EPS:
        out["mp_cosine"] = None
    else:
        c = num / (a * b)
        out["mp_cosine"] = None if np.isnan(c) else float(min(max(c, -1.0), 1.0))
    out["euc_dist"] = number(np.linalg.norm(x - y, ord=2))
    out["mp_max_abs_err"] = number(np.max(np.abs(x - y)))
    n, b_ = x.copy(), y.copy()
    zero = b_ == 0
    b_[zero] += eps
    n[zero] += eps
    re = np.abs((n - b_) / b_)
    out["mp_max_relative_err"] = number(np.max(re))
    out["one_thousandth_ratio"] = float(np.sum(re < 0.001) / re.size)
    out["five_thousandths_ratio"] = float(np.sum(re < 0.005) / re.size)
    return out


KEYS = [
    "cosine", "max_absolute_error", "accumulated_relative_error", "relative_euclidean_distance",
    "kl_divergence", "mean_my", "std_my", "mean_golden", "std_golden", "mean_absolute_error",
    "root_mean_square_error", "max_relative_error", "mean_relative_error", "mp_cosine", "euc_dist",
    "mp_max_abs_err", "mp_max_relative_err", "one_thousandth_ratio", "five_thousandths_ratio",
]


def run(case):
    x = load(case["my"], case["my_dtype"], case["cast"])
    y = load(case["golden"], case["golden_dtype"], case["cast"])
    eps_type = np.float32 if case["cast"] else np.result_type(
        np.dtype(case["my_dtype"]), np.dtype(case["golden_dtype"]), np.float32)
    eps = float(np.finfo(eps_type).eps)
    masked = 0
    policy = case["nan"]
    if policy == "same-positions":
        if not (np.array_equal(np.isnan(x), np.isnan(y)) and np.array_equal(np.isinf(x), np.isinf(y))):
            return {"name": case["name"], "masked": 0, "metrics": {k: None for k in KEYS}}
        x[~np.isfinite(x)] = 0
        y[~np.isfinite(y)] = 0
    elif policy == "mask":
        keep = np.isfinite(x) & np.isfinite(y)
        masked = int(np.sum(~keep))
        x, y = x[keep], y[keep]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        metrics = msaccucmp(x, y)
        metrics.update(msprobe(x, y, eps))
    return {"name": case["name"], "masked": masked, "metrics": metrics}


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    json.dump([run(case) for case in cases], sys.stdout, allow_nan=False)


if __name__ == "__main__":
    main()
