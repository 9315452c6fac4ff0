#!/usr/bin/env python3
"""The NumPy reference for `watch-check` in bench/watch_bench.sh.

Evaluates the ten watchpoints of WATCHPOINTS below over a tree of MindSpore 2.4-style `.npy`
dumps (rank_R/Net/G/ITERATION/, the tree `mkfixture` generates with "steps" and "history"), the
way a user would write it: for each tensor np.load, then one NumPy call per statistic (NaN and
Inf counts, min, max, mean, sample standard deviation, abs mean, zero percentage, range
percentage), and for the two change conditions np.load of the same tensor in the previous
iteration (the entry before it in rank_R/execution_order/ms_global_execution_order_graph_G.csv).
The semantics are watch-check's (MindSpore's): strict comparisons except _ge, a NaN or Inf in a
tensor makes every statistic watchpoint on it a check error, a change watchpoint without a
previous tensor is a check error.

    numpy_watch.py TREE          prints one line per hit, then "hits N errors M"
    numpy_watch.py --watch-file  prints the same watchpoints as a watch-check watch file
"""
import json
import os
import re
import sys

import numpy as np

# The ten watchpoints: (id, condition, params, node regex or None). Two are change conditions
# on a subset of the nodes.
WATCHPOINTS = [
    (1, "tensor_overflow", {}, None),
    (2, "tensor_too_large", {"max_gt": 0.9999}, None),
    (3, "tensor_too_small", {"min_lt": -0.9999}, None),
    (4, "tensor_all_zero", {"zero_percentage_ge": 100}, None),
    (5, "tensor_range", {"range_start_inclusive": -0.5, "range_end_inclusive": 0.5,
                         "range_percentage_lt": 45}, None),
    (6, "tensor_range", {"max_min_gt": 1.9998}, None),
    (7, "MEAN_GT", {"param": 0.01}, None),
    (8, "SD_GT", {"param": 0.58}, None),
    (9, "weight_change_too_large", {"abs_mean_update_ratio_gt": 1.2}, "Conv2D|MatMul"),
    (10, "weight_not_changed", {"rtol": 1e-5}, "Add"),
]

# Format G names: {type}.{name}.{task}.{stream}.{timestamp}.{io}.{slot}.{format}.{dtype}.npy
NPY = re.compile(r"^([^.]+)\.(.+)\.(\d+)\.(\d+)\.(\d+)\.(input|output)\.(\d+)\.([^.]+)\.([^.]+)\.npy$")


def watch_file():
    out = []
    for wid, condition, params, regex in WATCHPOINTS:
        wp = {"id": wid, "condition": condition, "params": params}
        if regex:
            wp["node_regex"] = regex
        out.append(wp)
    return {"watchpoints": out}


def index(directory):
    """(node, io, slot) -> file name, for one iteration directory."""
    found = {}
    for name in os.listdir(directory):
        m = NPY.match(name)
        if m:
            found[(m.group(2), m.group(6), m.group(7))] = name
    return found


def history(tree, rank_dir, graph):
    path = os.path.join(tree, rank_dir, "execution_order",
                        f"ms_global_execution_order_graph_{graph}.csv")
    with open(path) as f:
        return [int(line.split(",")[0]) for line in f if line.strip()]


def check_tensor(a, node, prev_loader, results):
    """Appends (watchpoint id, hit, error) for every watchpoint that hit or errored."""
    n = a.size
    nan = int(np.isnan(a).sum())
    inf = int(np.isinf(a).sum())
    error = (1 if nan else 0) | (2 if inf else 0)
    stats = None
    if not error:
        stats = {
            "max": float(np.max(a)),
            "min": float(np.min(a)),
            "mean": float(np.mean(a, dtype=np.float64)),
            "sd": float(np.std(a, dtype=np.float64, ddof=1)) if n > 1 else 0.0,
            "abs_mean": float(np.abs(a).mean(dtype=np.float64)),
            "zero_pct": 100.0 * int((a == 0).sum()) / n,
        }
    for wid, condition, params, regex in WATCHPOINTS:
        if regex and not re.search(regex, node):
            continue
        if condition == "tensor_overflow":
            if nan + inf > 0:
                results.append((wid, True, 0))
            continue
        if condition in ("weight_change_too_large", "weight_not_changed"):
            prev = prev_loader()
            code = error | (0 if prev is not None else 4)
            if code:
                results.append((wid, False, code))
                continue
            cur = a.astype(np.float64)
            prev = prev.astype(np.float64)
            diff = np.abs(cur - prev)
            if condition == "weight_change_too_large":
                ratio = diff.mean() / (np.abs(prev).mean() + 1e-9)
                hit = ratio > params["abs_mean_update_ratio_gt"]
            else:
                hit = bool(np.all(diff <= 1e-8 + params["rtol"] * np.abs(prev)))
            if hit:
                results.append((wid, True, 0))
            continue
        if error:
            results.append((wid, False, error))
            continue
        if condition == "tensor_too_large":
            hit = stats["max"] > params["max_gt"]
        elif condition == "tensor_too_small":
            hit = stats["min"] < params["min_lt"]
        elif condition == "tensor_all_zero":
            hit = stats["zero_pct"] >= params["zero_percentage_ge"]
        elif condition == "tensor_range" and "max_min_gt" in params:
            hit = stats["max"] - stats["min"] > params["max_min_gt"]
        elif condition == "tensor_range":
            inside = int(((a >= params["range_start_inclusive"]) &
                          (a <= params["range_end_inclusive"])).sum())
            hit = 100.0 * inside / n < params["range_percentage_lt"]
        elif condition == "MEAN_GT":
            hit = stats["mean"] > params["param"]
        elif condition == "SD_GT":
            hit = stats["sd"] > params["param"]
        else:
            raise SystemExit(f"numpy_watch.py: no rule for {condition}")
        if hit:
            results.append((wid, True, 0))


def main():
    if sys.argv[1:] == ["--watch-file"]:
        print(json.dumps(watch_file(), indent=1))
        return
    if len(sys.argv) != 2:
        sys.exit("usage: numpy_watch.py TREE | numpy_watch.py --watch-file")
    tree = sys.argv[1]
    hits = errors = 0
    lines = []
    for rank_dir in sorted(d for d in os.listdir(tree) if d.startswith("rank_")):
        for net in sorted(os.listdir(os.path.join(tree, rank_dir))):
            if net in ("execution_order", ".dump_metadata"):
                continue
            for graph in sorted(os.listdir(os.path.join(tree, rank_dir, net)), key=int):
                graph_dir = os.path.join(tree, rank_dir, net, graph)
                order = history(tree, rank_dir, graph)
                iterations = sorted(int(i) for i in os.listdir(graph_dir) if i.isdigit())
                for iteration in iterations:
                    directory = os.path.join(graph_dir, str(iteration))
                    pos = order.index(iteration) if iteration in order else -1
                    prev_dir = os.path.join(graph_dir, str(order[pos - 1])) if pos > 0 else None
                    prev_index = index(prev_dir) if prev_dir and os.path.isdir(prev_dir) else {}
                    for key, name in sorted(index(directory).items()):
                        a = np.load(os.path.join(directory, name))

                        def load_prev(key=key):
                            prev_name = prev_index.get(key)
                            if prev_name is None:
                                return None
                            prev = np.load(os.path.join(prev_dir, prev_name))
                            return prev if prev.size == a.size else None

                        results = []
                        check_tensor(a, key[0], load_prev, results)
                        for wid, hit, error in results:
                            if hit:
                                hits += 1
                                lines.append(f"{rank_dir}\t{iteration}\t{key[0]}\t{key[1]}:{key[2]}\t{wid}")
                            else:
                                errors += 1
    print("\n".join(lines))
    print(f"hits {hits} errors {errors}")


if __name__ == "__main__":
    main()
