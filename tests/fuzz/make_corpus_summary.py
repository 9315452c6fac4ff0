#!/usr/bin/env python3
"""Writes the seed corpora of fuzz_summary_record (whole files: framed records, spec summary.md
§3) and fuzz_summary_event (single payloads: Event, LineageEvent and TensorFlow Event messages,
§5, §7, §15), with damaged variants.

    python3 tests/fuzz/make_corpus_summary.py
"""
import os
import struct

# The protobuf encoding is the graph corpus's (same folder).
from make_corpus_graph_proto import field_bytes as ld, varint

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDS = os.path.join(HERE, "corpus", "summary_record")
EVENTS = os.path.join(HERE, "corpus", "summary_event")


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def record(payload):
    length = struct.pack("<Q", len(payload))
    return length + struct.pack("<I", masked(length)) + payload + struct.pack("<I", masked(payload))


def key(field, wire):
    return varint((field << 3) | wire)


def f32(field, v):
    return key(field, 5) + struct.pack("<f", v)


def f64(field, v):
    return key(field, 1) + struct.pack("<d", v)


def event(wall, step=None, body=b""):
    out = f64(1, wall)
    if step is not None:
        out += key(2, 0) + varint(step)
    return out + body


def ms_events():
    version = event(1700000000.0, None, ld(3, b"MindSpore.Event:1"))
    scalars = event(1700000001.0, 1, ld(5, ld(1, ld(1, b"loss") + f32(3, 0.5)) +
                                         ld(1, ld(1, b"lr") + f32(3, 0.1))))
    tensor = (key(1, 0) + varint(2) + key(1, 0) + varint(3) + key(2, 0) + varint(11) +
              ld(3, struct.pack("<6f", 1, 2, 3, 4, 5, 6)))
    tensor_event = event(1700000002.0, 2, ld(5, ld(1, ld(1, b"w") + ld(8, tensor))))
    bucket = f64(1, 0.0) + f64(2, 0.5) + key(3, 0) + varint(3)
    hist = ld(1, bucket) + f64(5, 0.5) + f64(6, 0.0) + key(8, 0) + varint(3)
    hist_event = event(1700000003.0, 2, ld(5, ld(1, ld(1, b"h") + ld(9, hist))))
    image = key(1, 0) + varint(2) + key(2, 0) + varint(2) + key(3, 0) + varint(3) + ld(4, b"\x89PNG")
    image_event = event(1700000004.0, 2, ld(5, ld(1, ld(1, b"img") + ld(4, image))))
    point = ld(1, tensor) + ld(2, tensor) + ld(3, tensor)
    land = ld(1, point) + ld(2, key(1, 0) + varint(1) + ld(2, point)) + ld(3, ld(1, b"pca"))
    land_event = event(1700000005.0, 3, ld(5, ld(1, ld(1, b"ll") + ld(10, land))))
    node = ld(2, b"1") + ld(3, b"Conv2D") + ld(1, ld(1, b"x"))
    graph_event = event(1700000006.0, None, ld(4, ld(1, node) + ld(2, b"g")))
    explain_event = event(1700000007.0, 4, ld(6, key(1, 0) + varint(5) + ld(2, b"/img.jpg")))
    return [version, scalars, tensor_event, hist_event, image_event, land_event, graph_event,
            explain_event]


def tf_events():
    version = event(1700000000.0, None, ld(3, b"brain.Event:2"))
    simple = event(1700000001.0, 1, ld(5, ld(1, ld(1, b"loss") + f32(2, 0.5))))
    meta = ld(1, ld(1, b"scalars"))
    tensor = key(1, 0) + varint(1) + ld(4, struct.pack("<f", 2.5))
    tscalar = event(1700000002.0, 2, ld(5, ld(1, ld(1, b"acc") + ld(8, tensor) + ld(9, meta))))
    histo = (f64(1, 0.0) + f64(2, 2.0) + f64(3, 3.0) + ld(6, struct.pack("<2d", 1.0, 2.0)) +
             ld(7, struct.pack("<2d", 1.0, 2.0)))
    hist_event = event(1700000003.0, 3, ld(5, ld(1, ld(1, b"h") + ld(5, histo))))
    session = event(1700000004.0, 4, ld(7, key(1, 0) + varint(1)))
    return [version, simple, tscalar, hist_event, session]


def lineage_events():
    hyper = ld(1, b"Momentum") + f32(2, 0.01) + key(8, 0) + varint(32)
    train = event(1700000000.0, None, ld(6, ld(1, hyper) + ld(4, ld(3, b"/ckpt") + key(4, 0) + varint(9))))
    user = event(1700000001.0, None, ld(10, ld(4, ld(1, b"k") + ld(2, b"v")) +
                                     ld(2, ld(1, b"nested") + ld(2, ld(3, ld(1, b"n") + key(2, 0) + varint(1))))))
    return [train, user]


def write(directory, name, data):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def main():
    ms, tf, lineage = ms_events(), tf_events(), lineage_events()
    for i, payload in enumerate(ms):
        write(EVENTS, f"ms_{i}", payload)
    for i, payload in enumerate(tf):
        write(EVENTS, f"tf_{i}", payload)
    for i, payload in enumerate(lineage):
        write(EVENTS, f"lineage_{i}", payload)
    write(EVENTS, "garbage", b"\xff\xff\xff\x0f")

    ms_file = b"".join(record(p) for p in ms)
    write(RECORDS, "ms_all_kinds", ms_file)
    write(RECORDS, "tf_events", b"".join(record(p) for p in tf))
    write(RECORDS, "lineage", b"".join(record(p) for p in lineage))
    write(RECORDS, "truncated", ms_file[:-5])
    bad_data = bytearray(ms_file)
    bad_data[len(record(ms[0])) + 14] ^= 0xFF
    write(RECORDS, "bad_data_crc", bytes(bad_data))
    bad_length = bytearray(ms_file)
    bad_length[len(record(ms[0])) + 1] ^= 0x01
    write(RECORDS, "bad_length_crc", bytes(bad_length))
    write(RECORDS, "huge_length", struct.pack("<Q", 1 << 62) + b"\0" * 8)
    # Runs of one shape (steps crossing a varint width, going back), broken by other shapes; and
    # a whole file inside one record's payload (records whose CRCs hold where no record starts).
    def scalars(step, tags):
        return event(1700000000.0 + step, step,
                     ld(5, b"".join(ld(1, ld(1, t) + f32(3, step / 3)) for t in tags)))
    steps = list(range(120, 140)) + list(range(100, 110)) + list(range(110, 125))
    runs = [ms[0]] + [scalars(s, [b"loss", b"acc"] + ([b"lr"] if s % 7 == 0 else []))
                      for s in steps]
    write(RECORDS, "runs", b"".join(record(p) for p in runs))
    inner = b"".join(record(scalars(s, [b"inner"])) for s in range(1, 9))
    nested = [ms[0], scalars(1, [b"outer"]), event(1700000005.0, 2, ld(99, inner)),
              scalars(3, [b"outer"]), scalars(4, [b"outer"])]
    write(RECORDS, "nested", b"".join(record(p) for p in nested))


if __name__ == "__main__":
    main()
