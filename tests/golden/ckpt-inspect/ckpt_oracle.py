"""NumPy oracle for ckpt-inspect's --export, --stats and --diff. The checkpoints are read by
tests/golden/mkfixture/ckpt_check.py (protobuf parsed by hand, elements by NumPy), nothing from
msdt, and every number is recomputed here in float64.

    ckpt_oracle.py export CKPT DIR     every numeric parameter's DIR/NAME.npy equals the
                                       checkpoint's elements (bfloat16 as float32, int4 as int8),
                                       a string's DIR/NAME.txt its text, others' .bin their bytes
    ckpt_oracle.py diff A B JSONL      each row of `ckpt-inspect --diff --json A B`: l2, cosine
                                       (msprobe's rule), max_abs and rel_l2 within 1e-12 relative
    ckpt_oracle.py stats CKPT JSONL    each row of `ckpt-inspect --stats --json CKPT`: count,
                                       min, max (non-NaN), mean, l2norm (finite elements)
                                       within 1e-12 relative
    ckpt_oracle.py safetensors CKPT ST each tensor of the safetensors file ST (its header and data
                                       read here by hand) holds the bytes, dtype and shape of the
                                       checkpoint's parameter of that name
Prints one "ok ..." line per check and exits 1 on the first mismatch.
"""
import fractions
import json
import math
import os
import sys
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mkfixture"))
import ckpt_check  # noqa: E402
import numpy as np  # noqa: E402


def params(path):
    """{name: (tensor_type, shape, ndarray or None, raw bytes)}; map components as NAME.keys …"""
    data = open(path, "rb").read()
    body, _ = ckpt_check.split_crc(data)
    out = {}
    for p in ckpt_check.merged(body):
        if p["tensor"] is None:
            for i, role in enumerate(("keys", "values", "status")):
                parts = [m[i] for m in p["maps"]]
                content = b"".join(t["content"] for t in parts)
                a, _ = ckpt_check.decode(parts[0]["type"], parts[0]["dims"], content)
                dims = list(parts[0]["dims"])
                dims[0] = sum(t["dims"][0] for t in parts)
                out[p["tag"] + "." + role] = (parts[0]["type"], dims, a.reshape(dims), content)
            continue
        t = p["tensor"]
        dims = t["dims"]
        shape = [] if dims in ([], [0]) else dims
        a = None
        if t["type"] not in ("str", "random_op"):
            a, _ = ckpt_check.decode(t["type"], dims, p["content"])
            if a is not None:
                a = a.reshape(shape)
        out[p["tag"]] = (t["type"], shape, a, p["content"])
    return out


def fail(message):
    print("MISMATCH " + message)
    sys.exit(1)


def close(x, y, what):
    if x is None or y is None:
        if x is not None or y is not None:
            fail("%s: %r against %r" % (what, x, y))
        return
    if not math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-300):
        fail("%s: %r against %r" % (what, x, y))


def export(path, folder):
    for name, (ttype, shape, a, raw) in params(path).items():
        base = os.path.join(folder, urllib.parse.quote(name, safe=""))
        if ttype == "str":
            text = open(base + ".txt", encoding="utf-8").read()
            if text != raw.decode("utf-32-le").rstrip("\0") + "\n":
                fail(name + ": text")
            print("ok %s: text" % name)
        elif a is None:
            if open(base + ".bin", "rb").read() != raw:
                fail(name + ": bytes")
            print("ok %s: %d bytes" % (name, len(raw)))
        else:
            got = np.load(base + ".npy")
            if got.shape != tuple(shape) or got.dtype != a.dtype or not np.array_equal(got, a):
                fail("%s: %s %s against %s %s" % (name, got.dtype, got.shape, a.dtype, a.shape))
            print("ok %s: %s %s" % (name, got.dtype, list(got.shape)))


def diff(path_a, path_b, jsonl):
    a, b = params(path_a), params(path_b)
    for line in open(jsonl):
        row = json.loads(line)
        name = row["name"]
        if row["status"] in ("only_a", "only_b", "dtype", "shape"):
            expect = "only_a" if name not in b else "only_b" if name not in a else row["status"]
            if row["status"] != expect:
                fail(name + ": status")
            print("ok %s: %s" % (name, row["status"]))
            continue
        x, y = a[name][2], b[name][2]
        if x is None:
            print("ok %s: not numeric, %s" % (name, row["status"]))
            continue
        x = x.astype(np.float64).ravel()
        y = y.astype(np.float64).ravel()
        d = x - y
        l2 = float(np.sqrt(np.sum(d * d)))
        na, nb = float(np.linalg.norm(x)), float(np.linalg.norm(y))
        cos = 1.0 if na == 0 and nb == 0 else None if na == 0 or nb == 0 else float(
            np.dot(x, y) / (na * nb))
        if l2 == 0 and na != 0:
            cos = 1.0
        close(row["l2"], l2, name + " l2")
        close(row["cosine"], cos, name + " cosine")
        close(row["max_abs"], float(np.max(np.abs(d))) if d.size else None, name + " max_abs")
        close(row["rel_l2"], l2 / na if na else (0.0 if l2 == 0 else None), name + " rel_l2")
        status = "same" if d.size == 0 or np.max(np.abs(d)) == 0 else "changed"
        if row["status"] != status:
            fail(name + ": status " + row["status"])
        print("ok %s: %s" % (name, status))


def stats(path, jsonl):
    p = params(path)
    for line in open(jsonl):
        row = json.loads(line)
        a = p[row["name"]][2]
        if a is None:
            if row["count"] is not None:
                fail(row["name"] + ": statistics of a non-numeric entry")
            continue
        f = a.astype(np.float64).ravel()
        real = f[~np.isnan(f)]  # min and max over non-NaN elements, the sums over finite ones
        finite = f[np.isfinite(f)]
        close(row["count"], f.size, row["name"] + " count")
        close(row["min"], float(real.min()), row["name"] + " min")
        close(row["max"], float(real.max()), row["name"] + " max")
        mean = float(finite.mean()) if finite.size else None
        if a.dtype.kind in "iub":  # integer sums are exact in msdt: Python integers here
            mean = float(fractions.Fraction(sum(int(v) for v in a.ravel()), a.size))
        close(row["mean"], mean, row["name"] + " mean")
        # Scaled, so that 1e300 squared does not overflow (msdt's sums do not).
        scale = float(np.max(np.abs(finite))) if finite.size else 0.0
        norm = scale * float(np.linalg.norm(finite / scale)) if scale else 0.0
        close(row["l2norm"], norm, row["name"] + " l2norm")
        print("ok %s" % row["name"])


ST_NAMES = {"Float16": "F16", "BFloat16": "BF16", "Float32": "F32", "Float64": "F64", "Int8": "I8",
            "Int16": "I16", "Int32": "I32", "Int64": "I64", "UInt8": "U8", "Uint8": "U8",
            "UInt16": "U16", "Uint16": "U16", "UInt32": "U32", "Uint32": "U32", "UInt64": "U64",
            "Uint64": "U64", "Bool": "BOOL", "int64": "I64", "int32": "I32", "float32": "F32"}


def safetensors(path, st_path):
    p = params(path)
    data = open(st_path, "rb").read()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    if header.pop("__metadata__", None) != {"format": "ms"}:
        fail("__metadata__")
    end = 0
    for name, info in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"]):
        ttype, shape, _, raw = p[name]
        b, e = info["data_offsets"]
        if b != end:
            fail(name + ": data not contiguous")
        end = e
        if info["dtype"] != ST_NAMES[ttype] or info["shape"] != shape:
            fail("%s: %s %s against %s %s" % (name, info["dtype"], info["shape"], ttype, shape))
        if data[8 + n + b:8 + n + e] != raw:
            fail(name + ": bytes")
        print("ok %s: %s %s" % (name, info["dtype"], shape))
    if 8 + n + end != len(data):
        fail("data does not end at the end of the file")


if __name__ == "__main__":
    {"export": export, "diff": diff, "stats": stats, "safetensors": safetensors}[sys.argv[1]](*sys.argv[2:])
