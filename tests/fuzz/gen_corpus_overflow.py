#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_overflow into tests/fuzz/corpus/overflow/.

Seeds (dump spec §5.8): npy-mode JSON records as MindSpore writes them, with missing blocks, wrong
types and broken JSON; binary payloads of the old 2048-byte layout and of the 0x5A5A5A5A layout
for each acc_type, version 0 and 1, and truncated ones. Run it from anywhere; it overwrites the
seeds it owns and keeps other files (crash reproducers).
"""
import json
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "overflow")

BLOCK = {"model_id": 1, "stream_id": 7, "task_id": 3, "task_type": 0,
         "pc_start": "0x12c0", "para_base": "0x0", "status": 0}


def record(**blocks):
    return json.dumps(blocks).encode()


def old_layout(words=None):
    payload = bytearray(2048)
    for i, w in (words or {}).items():
        struct.pack_into("<Q", payload, 8 * i, w)
    return bytes(payload)


def new_layout(acc_type, version=0, words=11, valid=1, data_len=None):
    data = b"".join(struct.pack("<Q", i + 1) for i in range(words))
    head = struct.pack("<IIIIII", 0x5A5A5A5A, version, valid, acc_type, 0,
                       len(data) if data_len is None else data_len)
    return head + data


SEEDS = {
    "json-full": record(**{"DHA Atomic Add": BLOCK, "L2 Atomic Add": BLOCK, "AI Core": BLOCK}),
    "json-ai-core-only": record(**{"AI Core": BLOCK}),
    "json-block-not-object": record(**{"AI Core": [1, 2]}),
    "json-no-block": record(other=1),
    "json-array": b"[1, 2, 3]",
    "json-truncated": b'{"AI Core": {"model_id": 1',
    "json-control-bytes": b'{"AI Core": {}}\x1b[31m\n',
    "json-invalid-utf8": b'{"AI Core": {"name": "\xff\xfe"}}',
    "json-deep": b"[" * 200 + b"]" * 200,
    "old-zeros": old_layout(),
    "old-fields": old_layout({0: 1, 1: 7, 2: 3, 4: 0x12c0, 128: 5}),
    "old-short": old_layout()[:1000],
    "new-aic": new_layout(0),
    "new-aiv-v1": new_layout(1, version=1, words=14),
    "new-aicpu": new_layout(2, words=8),
    "new-sdma": new_layout(3, words=10),
    "new-unknown-type": new_layout(9, words=3),
    "new-invalid": new_layout(0, valid=0, data_len=7),
    "new-truncated": new_layout(0)[:40],
    "magic-only": struct.pack("<I", 0x5A5A5A5A),
}

os.makedirs(OUT, exist_ok=True)
for name, data in SEEDS.items():
    with open(os.path.join(OUT, "seed-" + name), "wb") as f:
        f.write(data)
