#!/usr/bin/env python3
"""The NumPy reference for `ckpt-inspect --diff` in bench/ckpt_bench.sh.

Reads two MindSpore `.ckpt` files without MindSpore: the protobuf wire format is walked by hand
(checkpoint spec §3-§6: concatenated `Checkpoint` messages, each one `Value` with its `tag` and a
`TensorProto` of dims, tensor_type and tensor_content; consecutive Values with the same tag are
the slices of one parameter; a 17-byte `crc_num` trailer is stripped), the file is mapped, and
each parameter's elements are a `numpy.frombuffer` view of the mapping (the slices joined with
`b"".join` when there are several). Parameters are paired by name, and per pair the metrics
`ckpt-inspect --diff` computes are computed as a user writes them, in float64:

    l2        np.linalg.norm(a - b)
    cosine    np.dot(a, b) / (‖a‖ ‖b‖); 1 when both norms are 0, none when exactly one is
              (msprobe's checkpoint-compare rule)
    max_abs   np.abs(a - b).max()
    rel_l2    ‖a − b‖ / ‖a‖ (none when ‖a‖ is 0)

and the status: same, changed (max_abs > 0), only_a, only_b, shape, dtype.
One process, one parameter pair at a time: the fair reference of "a NumPy script".

    numpy_ckpt_diff.py A B

prints one tab-separated line per parameter (name, status, l2, cosine, max_abs, rel_l2; an absent
metric is empty), A's names in file order then the names only in B, and at the end
"parameters N differ M".
"""
import mmap
import sys

import numpy as np

DTYPES = {
    "Float16": "<f2", "Float32": "<f4", "Float64": "<f8",
    "Int8": "i1", "Int16": "<i2", "Int32": "<i4", "Int64": "<i8",
    "UInt8": "u1", "UInt16": "<u2", "UInt32": "<u4", "UInt64": "<u8",
    "Uint8": "u1", "Uint16": "<u2", "Uint32": "<u4", "Uint64": "<u8",
    "Bool": "?", "BFloat16": "<u2",
}


def varint(buf, pos):
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def skip(buf, pos, wire):
    if wire == 0:
        return varint(buf, pos)[1]
    if wire == 1:
        return pos + 8
    if wire == 2:
        length, pos = varint(buf, pos)
        return pos + length
    if wire == 5:
        return pos + 4
    raise ValueError(f"offset {pos}: wire type {wire}")


def tensor_proto(buf, pos, end):
    """dims, tensor_type, (offset, length) of tensor_content."""
    dims, spelling, content = [], "", (pos, 0)
    while pos < end:
        key, pos = varint(buf, pos)
        field, wire = key >> 3, key & 7
        if field == 1 and wire == 0:
            value, pos = varint(buf, pos)
            dims.append(value)
        elif field == 1 and wire == 2:  # packed dims
            length, pos = varint(buf, pos)
            stop = pos + length
            while pos < stop:
                value, pos = varint(buf, pos)
                dims.append(value)
        elif field == 2 and wire == 2:
            length, pos = varint(buf, pos)
            spelling = bytes(buf[pos:pos + length]).decode()
            pos += length
        elif field == 3 and wire == 2:
            length, pos = varint(buf, pos)
            content = (pos, length)
            pos += length
        else:
            pos = skip(buf, pos, wire)
    return dims, spelling, content


def parameters(buf):
    """{name: [spelling, dims, [(offset, length), ...]]} in file order, slices merged."""
    end = len(buf)
    if end >= 17 and buf[end - 17:end - 10] == b"crc_num":
        end -= 17
    params, last, pos = {}, None, 0
    while pos < end:
        key, pos = varint(buf, pos)
        if key != 0x0A:  # not Checkpoint.value: v0.5's model_type or another unknown field
            pos = skip(buf, pos, key & 7)
            continue
        length, pos = varint(buf, pos)
        stop, name, tensor = pos + length, None, None
        while pos < stop:
            key, pos = varint(buf, pos)
            field, wire = key >> 3, key & 7
            if wire != 2:
                pos = skip(buf, pos, wire)
                continue
            size, pos = varint(buf, pos)
            if field == 1:
                name = bytes(buf[pos:pos + size]).decode()
            elif field == 2:
                tensor = tensor_proto(buf, pos, pos + size)
            pos += size  # field 3, a map parameter: not compared here
        if name is None or tensor is None:
            last = None
            continue
        if name == last:
            params[name][2].append(tensor[2])
        else:
            params[name] = [tensor[1], tensor[0], [tensor[2]]]
            last = name
    return params


def values(buf, param):
    spelling, dims, segments = param
    dtype = np.dtype(DTYPES[spelling])
    if len(segments) == 1:
        offset, length = segments[0]
        a = np.frombuffer(buf, dtype, length // dtype.itemsize, offset)
    else:
        a = np.frombuffer(b"".join(buf[o:o + n] for o, n in segments), dtype)
    if spelling == "BFloat16":
        a = (a.astype(np.uint32) << 16).view(np.float32)
    return a.astype(np.float64)


def shape(dims):
    return [] if dims == [0] else dims


def fmt(v):
    return "" if v is None else f"{v:.10g}"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: numpy_ckpt_diff.py A B")
    files = [open(path, "rb") for path in sys.argv[1:]]
    bufs = [memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)) for f in files]
    pa, pb = parameters(bufs[0]), parameters(bufs[1])
    out = sys.stdout
    differ = 0
    np.seterr(all="ignore")
    names = list(pa) + [n for n in pb if n not in pa]
    for name in names:
        if name not in pb or name not in pa:
            differ += 1
            out.write(f"{name}\t{'only_a' if name in pa else 'only_b'}\t\t\t\t\n")
            continue
        if pa[name][0] != pb[name][0] or pa[name][0] not in DTYPES:
            status = "dtype" if pa[name][0] != pb[name][0] else "skipped"
            differ += status == "dtype"
            out.write(f"{name}\t{status}\t\t\t\t\n")
            continue
        if shape(pa[name][1]) != shape(pb[name][1]):
            differ += 1
            out.write(f"{name}\tshape\t\t\t\t\n")
            continue
        a, b = values(bufs[0], pa[name]), values(bufs[1], pb[name])
        d = a - b
        l2 = float(np.linalg.norm(d))
        norm_a, norm_b = float(np.linalg.norm(a)), float(np.linalg.norm(b))
        if norm_a == 0 and norm_b == 0:
            cosine = 1.0
        elif norm_a == 0 or norm_b == 0:
            cosine = None
        else:
            cosine = float(np.dot(a, b)) / (norm_a * norm_b)
        max_abs = float(np.abs(d).max()) if d.size else 0.0
        rel_l2 = l2 / norm_a if norm_a > 0 else None
        status = "changed" if max_abs > 0 else "same"
        differ += status == "changed"
        out.write(f"{name}\t{status}\t{fmt(l2)}\t{fmt(cosine)}\t{fmt(max_abs)}\t{fmt(rel_l2)}\n")
    out.write(f"parameters {len(names)} differ {differ}\n")


if __name__ == "__main__":
    main()
