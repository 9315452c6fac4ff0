"""Sorts watch-check JSON Lines (stdin) into the tool's documented record order
(libcommon/watch/check.h): iteration, rank, graph, order, io, slot, watchpoint id. Lines are
written back exactly as read, so sorted shards can be compared byte for byte with one run.
"""
import json
import sys


def key(line):
    r = json.loads(line)
    return (r["iteration"], r["rank"], r["graph"], r["order"], r["io"] or "",
            r["slot"] if r["slot"] is not None else 1 << 32, r["watchpoint"])


sys.stdout.writelines(sorted(sys.stdin.readlines(), key=key))
