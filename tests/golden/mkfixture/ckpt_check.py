"""Independent reader for the checkpoints mkfixture writes (tests/mkfixture/README.md,
"Checkpoints"; spec checkpoint.md §3-§8). It parses the protobuf wire format by hand, with
nothing from mkfixture or libcommon, and decodes elements with NumPy.

    ckpt_check.py FILE                  list a .ckpt: CRC trailer, then each parameter (consecutive
                                        equal tags merged) with its type, dims and values
    ckpt_check.py --messages FILE       each concatenated Checkpoint message as written
    ckpt_check.py --summary FILE        counts and sizes only (generated checkpoints)
    ckpt_check.py --compare A B REL     two generated checkpoints: same names, types, dims and
                                        sizes; floating-point values within REL (relative)
    ckpt_check.py --encrypted FILE      walk the §7.2 block container
    ckpt_check.py --safetensors FILE    a safetensors file: header, tensors, __metadata__ crc_num

Values: up to 12 elements are printed in full (floats with %g), more as count, sum, min and max.
"""
import json
import struct
import sys
import zlib

import numpy as np

NUMERIC = {
    "Float16": "<f2", "Float32": "<f4", "Float64": "<f8",
    "Int8": "i1", "Int16": "<i2", "Int32": "<i4", "Int64": "<i8",
    "UInt8": "u1", "UInt16": "<u2", "UInt32": "<u4", "UInt64": "<u8",
    "Uint8": "u1", "Uint16": "<u2", "Uint32": "<u4", "Uint64": "<u8",
    "Bool": "?",
}
SAFETENSORS = {
    "F16": "<f2", "F32": "<f4", "F64": "<f8", "I8": "i1", "I16": "<i2", "I32": "<i4", "I64": "<i8",
    "U8": "u1", "U16": "<u2", "U32": "<u4", "U64": "<u8", "BOOL": "?",
}


def varint(data, pos):
    value = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("varint runs past the end")
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, pos


def fields(data):
    """(field, wire type, value) for each field; length-delimited values are bytes."""
    pos = 0
    while pos < len(data):
        key, pos = varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(data, pos)
        elif wire == 2:
            n, pos = varint(data, pos)
            if pos + n > len(data):
                raise ValueError("field %d: length %d runs past the end" % (field, n))
            value, pos = data[pos:pos + n], pos + n
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        else:
            raise ValueError("wire type %d" % wire)
        yield field, wire, value


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def tensor_proto(data):
    dims, packed, ttype, content = [], None, None, None
    for field, wire, value in fields(data):
        if field == 1 and wire == 0:
            dims.append(signed(value))
            packed = False if packed is None else packed
        elif field == 1 and wire == 2:
            pos = 0
            while pos < len(value):
                v, pos = varint(value, pos)
                dims.append(signed(v))
            packed = True
        elif field == 2:
            ttype = value.decode("utf-8")
        elif field == 3:
            content = value
        else:
            raise ValueError("TensorProto field %d" % field)
    return {"type": ttype, "dims": dims, "packed": bool(packed), "content": content}


def split_crc(data):
    if len(data) >= 17 and data[-17:-10] == b"crc_num":
        stored = int.from_bytes(data[-10:], "big")
        body = data[:-17]
        computed = zlib.crc32(body)
        if stored == computed:
            return body, "crc: ok (0x%08x)" % stored
        return body, "crc: mismatch (stored 0x%x, computed 0x%08x)" % (stored, computed)
    return data, "crc: absent"


def messages(body):
    """Each top-level field: ('value', dict) or ('model_type', str)."""
    out = []
    for field, wire, value in fields(body):
        if field == 1 and wire == 2:
            tag, tensor, maptensor = None, None, None
            for f, w, v in fields(value):
                if f == 1:
                    tag = v.decode("utf-8")
                elif f == 2:
                    tensor = tensor_proto(v)
                elif f == 3:
                    maptensor = [tensor_proto(t) for ff, ww, t in fields(v) if ff == 1]
                else:
                    raise ValueError("Value field %d" % f)
            out.append(("value", {"tag": tag, "tensor": tensor, "maptensor": maptensor}))
        elif field == 2 and wire == 2:
            out.append(("model_type", value.decode("utf-8")))
        else:
            raise ValueError("Checkpoint field %d" % field)
    return out


def decode(ttype, dims, content):
    """An ndarray for a numeric tensor_type (a NumPy name in map tensors), else None."""
    count = 1 if dims == [0] else int(np.prod(dims, dtype=np.int64))  # dims [0]: a scalar (§4.3)
    if ttype == "BFloat16":
        raw = np.frombuffer(content, "<u2")
        return (raw.astype(np.uint32) << 16).view(np.float32), count * 2
    if ttype == "Int4":
        raw = np.frombuffer(content, "u1")
        nibbles = np.stack([raw & 0xF, raw >> 4], axis=1).reshape(-1)[:count].astype(np.int8)
        return np.where(nibbles > 7, nibbles - 16, nibbles), (count + 1) // 2
    code = NUMERIC.get(ttype)
    if code is None:
        try:
            code = np.dtype(ttype).str
        except TypeError:
            return None, None
    a = np.frombuffer(content, code)
    return a, count * a.itemsize


def show(a):
    if a.dtype == np.bool_:
        items = [str(bool(x)) for x in a]
    elif a.dtype.kind == "f":
        items = ["%g" % x for x in a]
    else:
        items = [str(int(x)) for x in a]
    if len(a) <= 12:
        return "[" + ", ".join(items) + "]"
    f = a.astype(np.float64)
    return "%d elements, sum %.6g, min %g, max %g" % (len(a), f.sum(), f.min(), f.max())


def describe(ttype, dims, content):
    if any(d < 0 for d in dims):
        return "negative dims, content " + content[:32].hex(" ")
    if ttype == "str":
        return repr(content.decode("utf-32-le"))
    a, expected = decode(ttype, dims, content)
    if a is None:
        return "opaque " + content[:32].hex(" ") + (" …" if len(content) > 32 else "")
    size = "" if expected == len(content) else " SIZE MISMATCH (expected %d bytes)" % expected
    return show(a) + size


def merged(body):
    """Parameters, consecutive equal tags joined (§4.2)."""
    params = []
    for kind, m in messages(body):
        if kind != "value":
            continue
        if m["tensor"] is not None and params and params[-1]["tag"] == m["tag"] \
                and params[-1]["tensor"] is not None:
            last = params[-1]
            t = m["tensor"]
            if (t["type"], t["dims"]) != (last["tensor"]["type"], last["tensor"]["dims"]):
                last["note"] = " SLICES DISAGREE"
            last["slices"].append(len(t["content"]))
            last["content"] += t["content"]
            continue
        params.append({"tag": m["tag"], "tensor": m["tensor"], "maptensor": m["maptensor"],
                       "slices": [len(m["tensor"]["content"])] if m["tensor"] else [],
                       "content": m["tensor"]["content"] if m["tensor"] else b"",
                       "maps": [m["maptensor"]] if m["maptensor"] else [], "note": ""})
        if m["maptensor"] and len(params) > 1 and params[-2]["tag"] == m["tag"] \
                and params[-2]["maps"]:
            params[-2]["maps"].append(m["maptensor"])
            params.pop()
    return params


def list_ckpt(path):
    data = open(path, "rb").read()
    body, crc = split_crc(data)
    print(crc)
    for p in merged(body):
        if p["tensor"] is None:
            print("%s: map, %d slice(s)" % (p["tag"], len(p["maps"])))
            for i, slice_ in enumerate(p["maps"]):
                for role, t in zip(("keys", "values", "status"), slice_):
                    print("  [%d] %s: %s dims=%s -> %s" % (i, role, t["type"], t["dims"],
                                                          describe(t["type"], t["dims"], t["content"])))
            continue
        t = p["tensor"]
        slices = "" if len(p["slices"]) == 1 else " slices=%s" % p["slices"]
        print("%s: %s dims=%s%s%s bytes=%d -> %s%s" % (
            p["tag"], t["type"], t["dims"], " packed" if t["packed"] else "", slices,
            len(p["content"]), describe(t["type"], t["dims"], p["content"]), p["note"]))


def list_messages(path):
    data = open(path, "rb").read()
    body, crc = split_crc(data)
    print(crc)
    for kind, m in messages(body):
        if kind == "model_type":
            print("  model_type %r" % m)
        elif m["tensor"] is not None:
            t = m["tensor"]
            print("value %r tensor %s dims=%s%s content=%d bytes" % (
                m["tag"], t["type"], t["dims"], " packed" if t["packed"] else "", len(t["content"])))
        else:
            print("value %r maptensor of %d tensors" % (m["tag"], len(m["maptensor"])))


def summary(path):
    data = open(path, "rb").read()
    body, crc = split_crc(data)
    params = merged(body)
    sizes = [len(p["content"]) for p in params]
    bad = sum(1 for p in params if decode(p["tensor"]["type"], p["tensor"]["dims"],
                                         p["content"])[1] != len(p["content"]))
    print(crc)
    print("parameters: %d, messages: %d, sliced: %d, tensor bytes: %d, file bytes: %d" % (
        len(params), sum(len(p["slices"]) for p in params),
        sum(1 for p in params if len(p["slices"]) > 1), sum(sizes), len(data)))
    print("smallest %d, largest %d bytes; size mismatches: %d; types: %s" % (
        min(sizes), max(sizes), bad, sorted({p["tensor"]["type"] for p in params})))
    print("first: %s %s, last: %s %s" % (params[0]["tag"], params[0]["tensor"]["dims"],
                                        params[-1]["tag"], params[-1]["tensor"]["dims"]))


def compare(path_a, path_b, relative):
    a = merged(split_crc(open(path_a, "rb").read())[0])
    b = merged(split_crc(open(path_b, "rb").read())[0])
    same = [(p["tag"], p["tensor"]["type"], p["tensor"]["dims"], len(p["content"])) for p in a] == \
           [(p["tag"], p["tensor"]["type"], p["tensor"]["dims"], len(p["content"])) for p in b]
    print("parameters: %d and %d, same names, types, dims and sizes: %s" % (len(a), len(b), same))
    within = differ = 0
    worst = 0.0
    for p, q in zip(a, b):
        x = decode(p["tensor"]["type"], p["tensor"]["dims"], p["content"])[0].astype(np.float64)
        y = decode(q["tensor"]["type"], q["tensor"]["dims"], q["content"])[0].astype(np.float64)
        nz = x != 0
        r = np.abs(y[nz] / x[nz] - 1)
        worst = max(worst, float(r.max()) if r.size else 0.0)
        within += bool(np.all(r <= relative * (1 + 1e-3) + 1e-6))
        differ += bool(np.mean(x != y) > 0.5)
    print("within %g: %d of %d; most elements differ: %d; max |b/a - 1| <= %g: %s" % (
        relative, within, len(a), differ, relative, worst <= relative * (1 + 1e-3) + 1e-6))


MAGICS = {0x7F3A5ED8: "AES-GCM", 0x7F3A5ED9: "AES-CBC", 0x7F3A5EDA: "SM4-CBC"}


def encrypted(path):
    data = open(path, "rb").read()
    pos = 0
    i32 = lambda at: struct.unpack_from("<i", data, at)[0]
    while pos < len(data):
        magic = struct.unpack_from("<I", data, pos)[0]
        mode = MAGICS.get(magic, "unknown magic 0x%08x" % magic)
        # §7.3: a GCM block of 1.7+ has a 16-byte tag, so iv_len (16) sits at +24, not +8.
        tagged = magic == 0x7F3A5ED8 and pos + 28 <= len(data) and i32(pos + 24) == 16
        head = pos + (20 if tagged else 4)
        block_len, iv_len = i32(head), i32(head + 4)
        cipher_len = i32(head + 24)
        end = head + 4 + block_len
        if magic == 0x7F3A5ED8 and not tagged:
            mode = "magic D8 (any mode)"
        print("block at %d: %s, %s layout, block_len %d, iv_len %d, cipher_len %d, ends at %d%s" % (
            pos, mode, "new" if tagged or magic != 0x7F3A5ED8 else "old", block_len, iv_len,
            cipher_len, end,
            "" if block_len == 4 + 16 + 4 + cipher_len else " (block_len != 24 + cipher_len)"))
        if end <= pos:
            break
        pos = end
    print("file %d bytes; blocks end at the end of the file: %s" % (len(data), pos == len(data)))


def safetensors(path):
    data = open(path, "rb").read()
    n = struct.unpack_from("<Q", data, 0)[0]
    text = data[8:8 + n]
    header = json.loads(text, object_pairs_hook=lambda pairs: pairs)
    print("header %d bytes, a multiple of 8: %s, trailing spaces %d" % (
        n, n % 8 == 0, len(text) - len(text.rstrip(b" "))))
    start = 8 + n
    tensors = []
    metadata = {}
    for name, info in header:
        if name == "__metadata__":
            print("__metadata__: %s" % json.dumps(dict(info), separators=(",", ":")))
            metadata = dict(info)
            continue
        info = dict(info)
        b, e = info["data_offsets"]
        tensors.append((name, info["dtype"], info["shape"], b, e))
    for name, dtype, shape, b, e in tensors:
        raw = data[start + b:start + e]
        if dtype == "BF16":
            a = (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view(np.float32)
        elif dtype in SAFETENSORS:
            a = np.frombuffer(raw, SAFETENSORS[dtype])
        else:
            a = None
        count = int(np.prod(shape, dtype=np.int64))
        ok = a is not None and len(a) == count
        print("%s: %s %s offsets [%d, %d] -> %s%s" % (
            name, dtype, shape, b, e, show(a) if a is not None else "opaque " + raw.hex(" "),
            "" if ok or a is None else " SIZE MISMATCH"))
    order = sorted(tensors, key=lambda t: t[3])
    print("data order: %s; data ends at the end of the file: %s" % (
        ", ".join(t[0] for t in order), start + (order[-1][4] if order else 0) == len(data)))
    if "crc_num" in metadata:
        crc = 0
        for name, dtype, shape, b, e in sorted(tensors):
            crc = zlib.crc32(name.encode("utf-8"), crc)
            crc = zlib.crc32(data[start + b:start + e], crc)
        stored = int(metadata["crc_num"])
        print("crc_num %s (computed %d)" % ("ok" if stored == crc else "mismatch", crc))
    try:
        import safetensors.numpy  # the real library, when installed: it must agree, silently
    except ImportError:
        return
    loaded = safetensors.numpy.load_file(path)
    for name, dtype, shape, b, e in tensors:
        if dtype in SAFETENSORS and loaded[name].tobytes() != data[start + b:start + e]:
            print("safetensors library disagrees on %s" % name)


def main(argv):
    sys.stdout.reconfigure(encoding="utf-8")
    try:
        run(argv)
    except ValueError as e:
        print("error: %s" % e)


def run(argv):
    if argv[1] == "--messages":
        list_messages(argv[2])
    elif argv[1] == "--summary":
        summary(argv[2])
    elif argv[1] == "--compare":
        compare(argv[2], argv[3], float(argv[4]))
    elif argv[1] == "--encrypted":
        encrypted(argv[2])
    elif argv[1] == "--safetensors":
        safetensors(argv[2])
    else:
        list_ckpt(argv[1])


if __name__ == "__main__":
    main(sys.argv)
