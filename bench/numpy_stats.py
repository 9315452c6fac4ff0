#!/usr/bin/env python3
"""The NumPy reference for `dump-parse --stats` in bench/compare_commands.sh.

Walks a tree of format A `.bin` dumps (float32 raw, the tree compare_commands.sh generates for
this contender), loads each file with np.fromfile and computes the statistics dump-parse prints,
one NumPy call per statistic as a user would write them (means and std accumulated in float64, as
dump-parse does), and prints one tab-separated line per tensor.

    numpy_stats.py TREE
"""
import os
import sys

import numpy as np

from numpy_convert import LEGACY_BIN, LEGACY_DTYPES


def stats(a):
    finite = a[np.isfinite(a)]
    return [
        a.size,
        np.min(a),
        np.max(a),
        np.mean(finite, dtype=np.float64),
        np.std(finite, dtype=np.float64),
        np.abs(finite).mean(dtype=np.float64),
        np.linalg.norm(finite.astype(np.float64)),
        np.isnan(a).sum(),
        np.isposinf(a).sum(),
        np.isneginf(a).sum(),
        (a == 0).sum(),
        (a < 0).sum(),
        (a > 0).sum(),
    ]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: numpy_stats.py TREE")
    out = []
    for directory, subdirs, names in os.walk(sys.argv[1]):
        subdirs.sort()
        for name in sorted(names):
            legacy = LEGACY_BIN.search(name)
            if not legacy or legacy.group(4) not in LEGACY_DTYPES:
                continue
            a = np.fromfile(os.path.join(directory, name), LEGACY_DTYPES[legacy.group(4)])
            out.append("\t".join([name] + [str(v) for v in stats(a)]))
    print("\n".join(out))


if __name__ == "__main__":
    main()
