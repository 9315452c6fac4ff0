"""Independent reader for the MindIR models mkfixture writes (tests/mkfixture/README.md, "mindir";
spec mindir.md §3-§5). It parses the protobuf wire format by hand, with nothing from mkfixture or
libcommon, and decodes elements with NumPy.

    mindir_check.py FILE            the header, each graph's nodes, inputs, outputs and weights
                                    (storage, dtype, dims, values; external weights read from
                                    the data file named, relative to FILE's directory), the
                                    primitives
    mindir_check.py --data FILE     a 1.6+ data file: byte 0, the header's zeros, the size
    mindir_check.py --chunk FILE    a 1.2-1.5 GraphProto chunk: its parameters

Values: up to 12 elements are printed in full (floats with %g), more as count, sum, min and max.
"""
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ckpt_check  # noqa: E402

NAMES = ["UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING",
         "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
         "FLOAT64", "QINT4X2"]
NUMPY = {"FLOAT": "<f4", "UINT8": "u1", "INT8": "i1", "UINT16": "<u2", "INT16": "<i2",
         "INT32": "<i4", "INT64": "<i8", "BOOL": "?", "FLOAT16": "<f2", "DOUBLE": "<f8",
         "UINT32": "<u4", "UINT64": "<u8", "COMPLEX64": "<c8", "COMPLEX128": "<c16",
         "FLOAT64": "<f8"}


# The protobuf wire walk is ckpt_check.py's (the same directory): one hand-written reader.
varint = ckpt_check.varint
fields = ckpt_check.fields


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def text(b):
    return b.decode("utf-8", "replace")


def varints(data):
    out, pos = [], 0
    while pos < len(data):
        v, pos = varint(data, pos)
        out.append(v)
    return out


def show(a):
    flat = a.reshape(-1)
    if flat.dtype == np.bool_:
        return "[" + ", ".join("True" if x else "False" for x in flat) + "]"
    if flat.size <= 12:
        if flat.dtype.kind == "f":
            return "[" + ", ".join("%g" % x for x in flat) + "]"
        return "[" + ", ".join(str(x) for x in flat) + "]"
    f = flat.astype(np.float64)
    return "count=%d sum=%.6g min=%.6g max=%.6g" % (flat.size, f.sum(), f.min(), f.max())


def tensor_type(data):
    """A TensorProto's dims (field 1, one varint each) and data_type (field 2)."""
    dims, dt = [], 0
    for g, _, x in fields(data):
        if g == 1:
            dims.append(signed(x))
        if g == 2:
            dt = x
    return dims, dt


def attribute(data, legacy):
    """name, value text."""
    name, parts, items, atype = "", [], [], None
    for f, w, v in fields(data):
        if legacy:
            f = {1: 1, 2: 2, 3: 3, 4: 5, 5: 6, 7: 8, 8: 10, 20: 16}.get(f, 0)
        if f == 1:
            name = text(v)
        elif f == 2:
            parts.append("%g" % struct.unpack("<f", v)[0])
        elif f == 3:
            parts.append(str(signed(v)))
        elif f == 5:
            parts.append('"%s"' % text(v))
        elif f == 6:
            dims, dt = tensor_type(v)
            parts.append("Tensor(%s, %s)" % (dims, NAMES[dt]))
        elif f == 7:
            parts.append("@" + "".join(text(x) for g, _, x in fields(v) if g == 2))
        elif f == 8:
            items.append("%g" % struct.unpack("<f", v)[0])
        elif f == 10:
            items.append(str(signed(v)))
        elif f == 16:
            atype = v
        elif f == 17:
            items.append(attribute(v, legacy)[1])
    if atype == 9:
        return name, "true" if parts[0] == "1" else "false"
    if atype == 20 or items:
        return name, "(" + ", ".join(items) + ")"
    return name, parts[0] if parts else "None"


def tensor(data, legacy, directory):
    """One TensorProto as a line."""
    numbers = dict(name=8, float=4, int32=5, int64=7, double=10, uint64=11, external=13) if legacy \
        else dict(name=7, float=3, int32=4, int64=6, double=10, uint64=11, external=12)
    dims, dt, name, raw, typed, external, extra = [], 0, "", None, {}, None, []
    for f, w, v in fields(data):
        if f == 1:
            dims += varints(v) if w == 2 else [v]
        elif f == 2:
            dt = v
        elif f == numbers["name"]:
            name = text(v)
        elif f == 9:
            raw = v
        elif f == numbers["external"]:
            if legacy:
                kv = {g: text(x) for g, _, x in fields(v)}
                external = external or {}
                external[kv[1]] = kv[2]
            else:
                e = {g: x for g, _, x in fields(v)}
                external = {"location": text(e.get(1, b"")), "offset": e.get(2, 0),
                            "length": e.get(3, 0)}
        elif f in (numbers["float"], numbers["double"]):
            width = 4 if f == numbers["float"] else 8
            chunk = v if w == 2 else v
            typed.setdefault("float_data" if width == 4 else "double_data", b"")
            typed["float_data" if width == 4 else "double_data"] += chunk
        elif f in (numbers["int32"], numbers["int64"], numbers["uint64"]):
            key = {numbers["int32"]: "int32_data", numbers["int64"]: "int64_data",
                   numbers["uint64"]: "uint64_data"}[f]
            typed.setdefault(key, []).extend(varints(v) if w == 2 else [v])
        elif not legacy and f == 16:
            extra.append("compression_type=%d" % v)
        elif not legacy and f == 17:
            extra.append("quant=" + "".join(text(x) for g, _, x in fields(v) if g == 1))
    dtname = NAMES[dt] if dt < len(NAMES) else str(dt)
    shape = [signed(d) for d in dims]
    head = "%s %s dims=%s" % (name or "(no name)", dtname, shape)
    if extra:
        head += " " + " ".join(extra)
    np_type = NUMPY.get(dtname)
    if dtname == "BFLOAT16":
        to_values = lambda b: (np.frombuffer(b, "<u2").astype(np.uint32) << 16).view("<f4")
    elif np_type:
        to_values = lambda b: np.frombuffer(b, np_type)
    else:
        to_values = None
    if raw is not None:
        values = show(to_values(raw)) if to_values and "compression_type" not in head else "%d bytes" % len(raw)
        return "%s raw_data %d bytes %s" % (head, len(raw), values)
    if external is not None:
        location, offset, length = external["location"], int(external["offset"]), int(external["length"])
        path = os.path.join(directory, location)
        if not os.path.exists(path):
            return "%s external %s offset=%d length=%d (missing)" % (head, location, offset, length)
        with open(path, "rb") as stream:
            whole = stream.read()
        b = whole[offset:offset + length]
        return "%s external %s offset=%d length=%d byte0=%d %s" % (
            head, location, offset, length, whole[0], show(to_values(b)) if to_values else "")
    for key, v in typed.items():
        if key in ("float_data", "double_data"):
            a = np.frombuffer(v, "<f4" if key == "float_data" else "<f8")
            return "%s %s %d values %s" % (head, key, a.size, show(a))
        ints = [signed(x) for x in v] if key != "uint64_data" else v
        if dtname in ("FLOAT16", "BFLOAT16"):
            a = to_values(np.array(ints, "<u2").tobytes())
        else:
            a = np.array(ints, NUMPY.get(dtname, "<i8"))
        return "%s %s %d values %s" % (head, key, len(v), show(a))
    return "%s no data" % head


def value_info(data, legacy):
    name, parts = "", ""
    for f, w, v in fields(data):
        if f == 1:
            name = text(v)
        if f == 2 and not legacy:
            dims, dt = tensor_type(v)
            parts = " %s %s" % (NAMES[dt], dims)
        if f == 2 and legacy:
            for g, _, t in fields(v):
                dims, dt = [], 0
                for h, _, x in fields(t):
                    if h == 1:
                        dt = x
                    if h == 2:
                        dims = [dict((k, y) for k, _, y in fields(d)).get(1, -1)
                                for _, _, d in fields(x)]
                parts = " %s %s" % (NAMES[dt], dims)
    return name + parts


def graph(data, legacy, directory, kind):
    numbers = dict(weight=5, input=11, output=12) if legacy else dict(weight=3, input=5, output=6)
    name, lines = "", []
    for f, w, v in fields(data):
        if f == 2:
            name = text(v)
        elif f == 1:
            n = {"in": [], "out": [], "attrs": [], "name": "", "op": "", "domain": ""}
            for g, _, x in fields(v):
                if g == 1:
                    n["in"].append(text(x))
                elif g == 2:
                    n["out"].append(text(x))
                elif g == 3:
                    n["name"] = text(x)
                elif g == 4:
                    n["op"] = text(x)
                elif g == 5:
                    n["attrs"].append("%s=%s" % attribute(x, legacy))
                elif g == 7:
                    n["domain"] = text(x)
            line = "  node %s %s(%s) -> %s" % (n["name"], n["op"], ", ".join(n["in"]),
                                              ", ".join(n["out"]))
            if n["attrs"]:
                line += " {" + ", ".join(n["attrs"]) + "}"
            if n["domain"]:
                line += " scope " + n["domain"]
            lines.append(line)
        elif f == numbers["weight"]:
            lines.append("  weight " + tensor(v, legacy, directory))
        elif f == numbers["input"]:
            lines.append("  input " + value_info(v, legacy))
        elif f == numbers["output"]:
            lines.append("  output " + value_info(v, legacy))
    print("%s %s" % (kind, name))
    for line in lines:
        print(line)


def model(path):
    with open(path, "rb") as stream:
        data = stream.read()
    directory = os.path.dirname(path)
    legacy = data[:1] == b"\x08"
    print("generation", "legacy-onnx" if legacy else "mind_ir")
    header = {1: "ir_version", 2: "producer_name", 3: "producer_version", 4: "domain",
              5: "model_version", 6: "doc_string", 10: "little_endian", 13: "mind_ir_version"}
    for f, w, v in fields(data):
        if f in header and not (legacy and f > 7):
            print("%s %s" % (header[f], v if w == 0 else text(v)))
        elif f == 7:
            graph(v, legacy, directory, "graph")
        elif f == 8 and not legacy:
            graph(v, legacy, directory, "function")
        elif f == 9 and not legacy:
            try:
                ops = [x for g, _, x in fields(v)]
                print("preprocessor message, %d ops" % len(ops))
            except ValueError:
                print("preprocessor text %s" % text(v))
        elif f == 11 and not legacy:
            print("parallel %d layouts" % len(list(fields(v))))
        elif f == 12 and not legacy:
            p = {g: x for g, _, x in fields(v) if g in (1, 2)}
            attrs = ["%s=%s" % attribute(x, False) for g, _, x in fields(v) if g == 3]
            print("primitive %s %s%s" % (text(p[1]), text(p[2]),
                                         " {" + ", ".join(attrs) + "}" if attrs else ""))
        elif f == 14 and not legacy:
            kv = {g: text(x) for g, _, x in fields(v)}
            print("user_info %s=%s" % (kv.get(1, ""), kv.get(2, "")))
        elif f == 8 and legacy:
            kv = {g: x for g, _, x in fields(v)}
            print("opset %s" % kv.get(2))


def data_file(path):
    with open(path, "rb") as stream:
        data = stream.read()
    print("byte0 %d header_zeros %s size %d" % (data[0], data[1:64] == bytes(63), len(data)))


def chunk(path):
    with open(path, "rb") as stream:
        data = stream.read()
    for f, w, v in fields(data):
        if f == 3:
            print("parameter " + tensor(v, False, os.path.dirname(path)))


def main(argv):
    try:
        if argv[1] == "--data":
            data_file(argv[2])
        elif argv[1] == "--chunk":
            chunk(argv[2])
        else:
            model(argv[1])
    except ValueError as e:
        print("error: %s" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
