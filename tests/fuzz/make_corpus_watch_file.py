#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_watch_file.

Seeds are small watch files (WATCH.json, README and man page of watch-check), valid and invalid,
one form or rule per seed, so libFuzzer starts from every branch of parse_watch_file and
resolve_params. Run from anywhere:
    python3 tests/fuzz/make_corpus_watch_file.py
It rewrites tests/fuzz/corpus/watch_file/ (files it did not write, such as crash reproducers added
later, are kept).
"""
import hashlib
import pathlib

HERE = pathlib.Path(__file__).resolve().parent

SEEDS = [
    # valid: every condition form, ids, node selection, filters
    b'{"watchpoints": [{"id": 1, "condition": "MIN_LT", "params": {"param": 0.0},\n'
    b'  "nodes": ["Default/network-WithLossCell/_backbone-AlexNet/conv1-Conv2d/Conv2D-op369"],\n'
    b'  "io": "input", "slots": [1], "ranks": [0], "graphs": [0]}]}\n',
    b'{"watchpoints": [{"condition": "tensor_too_large", "params": {"abs_mean_gt": 0.5, "max_gt": null}},\n'
    b'  {"condition": "TS", "params": {"min_lt": -1e3, "mean_lt": 1}}, {"condition": 13}]}\n',
    b'{"watchpoints": [{"condition": "TR", "params": {"range_start_inclusive": -1, "range_end_inclusive": 0,\n'
    b'  "range_percentage_gt": 99.9}, "op_types": ["ReLU", "ReLUV2"]},\n'
    b'  {"condition": "activation_range", "params": {"max_min_lt": 10}}]}\n',
    b'{"watchpoints": [{"condition": "WNC", "params": {"rtol": 1e-3, "atol": 1e-6, "equal_nan": false}},\n'
    b'  {"condition": "WCL", "params": {"epsilon": 0.5}}, {"condition": "weight_change_too_small"}]}\n',
    b'{"watchpoints": [{"condition": "tz", "node_regex": "^Default/.*(Conv2D|MatMul)-op[0-9]+$", "io": "output"},\n'
    b'  {"id": 7, "name": "init", "condition": "WI", "params": {"max_gt": 1, "min_lt": -1}}]}\n',
    b'{"watchpoints": [{"condition": "OO"}, {"condition": "HAS_NAN"}, {"condition": "1"},\n'
    b'  {"condition": "SD_GT", "params": {"param": 2}}, {"condition": "21", "params": {"max_min_gt": 0}}]}\n',
    # invalid: one rule each
    b'{"watchpoints": [{"condition": "TO"}, {"condition": "TO"},\n'
    b'  {"condition": "tensor_too_small", "params": {"abs_mean_gt": 1}}]}\n',
    b'{"watchpoints": [{"condition": "TZ", "params": {"zero_percentage_ge": 100.5}}]}\n',
    b'{"watchpoints": [{"condition": "TL", "params": {"abs_mean_gt": -1}}]}\n',
    b'{"watchpoints": [{"condition": "TL", "params": {"max_gt": "10"}}]}\n',
    b'{"watchpoints": [{"id": 1, "condition": "TO"}, {"id": 1, "condition": "TO"}]}\n',
    b'{"watchpoints": [{"condition": "TO", "nodes": ["a"], "node_regex": "a"}]}\n',
    b'{"watchpoints": [{"condition": "TO", "node_regex": "(unclosed"}]}\n',
    b'{"watchpoints": [{"condition": "TR", "params": {"range_percentage_lt": 10}}]}\n',
    b'{"watchpoints": [{"condition": "TR", "params": {"range_start_inclusive": 2,\n'
    b'  "range_end_inclusive": 1, "range_percentage_lt": 10}}]}\n',
    b'{"watchpoints": [{"condition": "TL"}]}\n',
    b'{"watchpoints": [{"condition": "bogus", "nodez": []}], "extra": 1}\n',
    b'{"watchpoints": [\n  {"condition": "TL",}\n]}\n',
    b'{"watchpoints": [{"condition": "T\xffL"}]}\n',
    b'{"watchpoints": []}\n',
    # a number literal beyond double range (nlohmann::json throws out_of_range 406)
    b'{"watchpoints": [{"condition": "TL", "params": {"max_gt": 1e999}}]}\n',
    b'{"watchpoints": [{"condition": "TO", "slots": [0, -1], "io": "in", "id": 4294967296}]}\n',
    # not a watch file: a condition name and a --param argument
    b'{"watchpoints": [{"condition": "TO", "node_regex": "l*********d"}]}\n',
    b'{"watchpoints": [{"condition": "TO", "node_regex": "' + b'(' * 100 + b')' * 100 + b'"}]}\n',
    b'{"watchpoints": [{"condition": "TO", "node_regex": "a{77777111111111111111}"}]}\n',
    b'tensor_too_large',
    b'abs_mean_update_ratio_gt=0.1',
]


def main():
    out = HERE / "corpus" / "watch_file"
    out.mkdir(parents=True, exist_ok=True)
    for seed in SEEDS:
        (out / ("seed-" + hashlib.sha1(seed).hexdigest())).write_bytes(seed)


if __name__ == "__main__":
    main()
