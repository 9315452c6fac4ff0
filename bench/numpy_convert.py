#!/usr/bin/python3
"""The NumPy reference for bench/compare_commands.sh: the work dump-convert does, per file, in
plain NumPy, the way a user script would do it.

    numpy_convert.py SRC_DIR DST_DIR

Mirrors SRC_DIR under DST_DIR and, for each file:
  * MindSpore 1.1/1.2 .bin ({kernel}_{io}_{i}_shape_{dims}_{DType}_{Format}.bin):
    np.fromfile + reshape + np.save as {name without .bin}.npy;
  * .npy: np.load + np.save under the same name;
  * Ascend DumpData container (8-byte header length, protobuf, payloads; dump spec 5.3, 5.4):
    every input and output with np.frombuffer + reshape + np.save as {name}.{io}.{idx}.npy;
  * anything else: skipped.
Runs with /usr/bin/python3 (Debian's python3-numpy); no other module.
"""

import os
import re
import sys

import numpy as np

LEGACY_BIN = re.compile(r"_(input|output)_(\d+)_shape_([\d_]+)_([A-Za-z0-9]+)_([A-Za-z0-9_]+)\.bin$")
LEGACY_DTYPES = {
    "Bool": np.bool_, "Int8": np.int8, "Int16": np.int16, "Int32": np.int32, "Int64": np.int64,
    "UInt8": np.uint8, "UInt16": np.uint16, "UInt32": np.uint32, "UInt64": np.uint64,
    "Float16": np.float16, "Float32": np.float32, "Float64": np.float64,
}
# DumpData OutputDataType numbers (dump spec 5.5) for the types plain NumPy holds.
ASCEND_DTYPES = {
    1: np.float32, 2: np.float16, 3: np.int8, 4: np.uint8, 5: np.int16, 6: np.uint16,
    7: np.int32, 8: np.int64, 9: np.uint32, 10: np.uint64, 11: np.bool_, 12: np.float64,
    16: np.complex64, 17: np.complex128,
}


def varint(buf, pos):
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def fields(buf):
    """(field number, wire type, value) of one protobuf message; value is bytes for wire type 2."""
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            length, pos = varint(buf, pos)
            value, pos = buf[pos:pos + length], pos + length
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError("unsupported wire type %d" % wire)
        yield number, wire, value


def shape_dims(buf):
    dims = []
    for number, wire, value in fields(buf):
        if number != 1:
            continue
        if wire == 0:
            dims.append(value)
        else:  # packed
            pos = 0
            while pos < len(value):
                dim, pos = varint(value, pos)
                dims.append(dim)
    return dims


def tensor_info(buf, size_field):
    dtype, dims, size = 0, [], 0
    for number, _, value in fields(buf):
        if number == 1:
            dtype = value
        elif number == 3:
            dims = shape_dims(value)
        elif number == size_field:
            size = value
    return dtype, dims, size


def convert_ascend(src, dst_base, data):
    header_len = int.from_bytes(data[:8], "little")
    header = data[8:8 + header_len]
    inputs, outputs, others = [], [], 0
    for number, _, value in fields(header):
        if number == 4:
            inputs.append(tensor_info(value, 5))
        elif number == 3:
            outputs.append(tensor_info(value, 6))
    offset = 8 + header_len
    for io, tensors in (("input", inputs), ("output", outputs)):
        for idx, (dtype, dims, size) in enumerate(tensors):
            np_dtype = ASCEND_DTYPES.get(dtype)
            if np_dtype is not None:
                count = int(np.prod(dims)) if dims else size // np.dtype(np_dtype).itemsize
                array = np.frombuffer(data, np_dtype, count, offset).reshape(dims or (count,))
                np.save("%s.%s.%d.npy" % (dst_base, io, idx), array)
            else:
                others += 1
            offset += size
    return others


def looks_like_container(data, size):
    return size > 8 and int.from_bytes(data[:8], "little") < size - 8 and data[8:9] == b"\x0a"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: numpy_convert.py SRC_DIR DST_DIR")
    src_root, dst_root = sys.argv[1], sys.argv[2]
    converted = skipped = 0
    for directory, _, names in os.walk(src_root):
        out_dir = os.path.join(dst_root, os.path.relpath(directory, src_root))
        os.makedirs(out_dir, exist_ok=True)
        for name in sorted(names):
            src = os.path.join(directory, name)
            dst = os.path.join(out_dir, name)
            legacy = LEGACY_BIN.search(name)
            if legacy and legacy.group(4).replace("kNumberType", "") in LEGACY_DTYPES:
                dtype = LEGACY_DTYPES[legacy.group(4).replace("kNumberType", "")]
                dims = [int(d) for d in legacy.group(3).split("_")]
                shape = () if dims == [0] else dims
                np.save(dst[:-len(".bin")] + ".npy", np.fromfile(src, dtype).reshape(shape))
                converted += 1
            elif name.endswith(".npy"):
                np.save(dst, np.load(src))
                converted += 1
            else:
                with open(src, "rb") as f:
                    data = f.read()
                if looks_like_container(data, len(data)):
                    convert_ascend(src, dst, data)
                    converted += 1
                else:
                    skipped += 1
    print("numpy_convert: %d files converted, %d skipped" % (converted, skipped), file=sys.stderr)


if __name__ == "__main__":
    main()
