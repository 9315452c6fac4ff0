"""The cases of MindSpore's offline-debugger suite tests/st/debugger/test_watchpoints.py
(watchpoints spec §10), run with watch-check on the dump built by mindspore-test-watchpoints.test.

The expected verdicts and actual values are computed here from the dump's npy files with NumPy,
the way the MindSpore backend computes them (spec §2.1, §2.4, §2.7: elements widened to double,
running means in element order, epsilon 1e-9 in the denominator even when the user disables it,
§7), and compared exactly with watch-check's JSON Lines. One line per case; "DIFFERS" and exit 1
on any disagreement.

usage: upstream_watchpoints.py TREE
"""
import json
import os
import subprocess
import sys

import numpy as np

CONV = "Default/network-WithLossCell/_backbone-AlexNet/conv1-Conv2d/Conv2D-op369"
BIAS = "Default/network-WithLossCell/_backbone-AlexNet/fc3-Dense/Parameter[6]_11/fc2.bias"
failed = False


def run(tree, dump, watch, *options):
    out = subprocess.run(["watch-check", os.path.join(tree, dump), "-w", os.path.join(tree, watch),
                          "--json", *options], capture_output=True, text=True)
    if out.returncode not in (0, 1) or out.stderr:
        sys.exit(f"watch-check failed ({out.returncode}): {out.stderr}")
    return [json.loads(line) for line in out.stdout.splitlines()]


def widened(path):
    return np.load(path).astype(np.float64).ravel()


def running_mean(values):
    m = 0.0
    for n, x in enumerate(values, 1):
        m += (x - m) / n
    return m


def check(label, condition, expected):
    global failed
    if condition:
        print(f"{label}: {expected}")
    else:
        failed = True
        print(f"{label}: DIFFERS, expected {expected}")


def main(tree):
    sync = os.path.join(tree, "sync", "rank_0", "Test", "0")
    conv = widened(os.path.join(sync, "2", "Conv2D.Conv2D-op369.0.0.1.input.1.DefaultFormat.npy"))
    bias2 = widened(os.path.join(sync, "2", "Parameter.fc2.bias.0.0.2.output.0.DefaultFormat.npy"))
    bias3 = widened(os.path.join(sync, "3", "Parameter.fc2.bias.0.0.3.output.0.DefaultFormat.npy"))
    minimum = float(np.min(conv))

    # Legacy MIN_LT (6) with `param` on the Conv2D input slot 1 at iteration 2: a hit whose actual
    # value is the minimum widened to double.
    rows = run(tree, "sync", "legacy.json", "--iteration", "2")
    r = rows[0] if len(rows) == 1 else {}
    check(f"MIN_LT param -1 on {CONV} input 1, iteration 2",
          len(rows) == 1 and r["hit"] and r["error_code"] == 0 and r["condition_id"] == 6
          and r["watchpoint"] == 1 and r["io"] == "input" and r["slot"] == 1
          and r["rank"] == 0 and r["graph"] == 0 and r["params"][0]["hit"]
          and r["params"][0]["actual"] == minimum,
          f"hit, actual {minimum!r}")

    # The watchpoint removed: nothing is reported.
    rows = run(tree, "sync", "cannot-hit.json", "--iteration", "2")
    check("MIN_LT param -1.2 (cannot hit), iteration 2", rows == [], "no record")
    rows = run(tree, "sync", "cannot-hit.json", "--iteration", "2", "--all")
    check("  the same with --all", len(rows) == 1 and not rows[0]["hit"]
          and rows[0]["error_code"] == 0 and rows[0]["params"][0]["actual"] == minimum,
          f"no hit, actual {minimum!r}")

    # CHANGE_TOO_LARGE (18) on fc2.bias, abs_mean_update_ratio_gt 0.1, epsilon disabled: iteration 3
    # compares with 2 (the history file); upstream's ratio still adds 1e-9.
    ratio = running_mean(np.abs(bias3 - bias2)) / (running_mean(np.abs(bias2)) + 1e-9)
    rows = run(tree, "sync", "change.json")
    by_iteration = {r["iteration"]: r for r in rows}
    r = by_iteration.get(3, {})
    check(f"CHANGE_TOO_LARGE ratio > 0.1 on {BIAS}, iteration 3",
          bool(r) and r["hit"] and r["error_code"] == 0 and r["condition_id"] == 18
          and r["params"][0]["hit"] and r["params"][0]["actual"] == ratio
          and r["params"][1]["name"] == "epsilon" and r["params"][1]["disabled"],
          f"hit, actual {ratio!r} (> 0.1: {ratio > 0.1})")
    r = by_iteration.get(2, {})
    check("  iteration 2 (first in the history)",
          bool(r) and not r["hit"] and r["error_code"] == 4, "error 4")
    check("  records", sorted(by_iteration) == [2, 3] and len(rows) == 2, "iterations 2 and 3")

    # Operator overflow (2) on Default/Add-op0, output, iteration 0: the Opdebug file's task 2 and
    # stream 7 name Add.Default_Add-op0.2.7.*.
    rows = run(tree, "async", "overflow.json", "--iteration", "0")
    r = rows[0] if len(rows) == 1 else {}
    check("IS_OVERFLOW on Default/Add-op0 output, iteration 0",
          len(rows) == 1 and r["hit"] and r["error_code"] == 0 and r["condition_id"] == 2
          and r["node"].endswith("Add-op0") and r["io"] == "output" and r["slot"] == 0
          and r["params"] == [], "hit on output 0")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
