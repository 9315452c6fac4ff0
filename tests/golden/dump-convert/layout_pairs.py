"""NumPy oracle for every (source, target) pair of dump-convert's -f table.

    layout_pairs.py WORKDIR

For each case: a host tensor (distinct values) is laid out in the device format by NumPy
reshapes/transposes written here (padding filled with a value that no host element has), put into a
DumpData container by mkfixture (output 0, with original_shape written in the tensor's origin
format), converted by `dump-convert -f TARGET` (with -s when the case gives one), and the .npy it
writes is compared with NumPy's own transpose of the host tensor to TARGET. Prints one line per
case; exits 1 if any differs. mkfixture and dump-convert are taken from PATH.
"""
import glob
import json
import os
import subprocess
import sys

import numpy as np

PAD = 99  # device padding: no host element is 99 (host values are 1..90)

HOST_ORDER = {"NCHW": (0, 1, 2, 3), "NHWC": (0, 2, 3, 1), "HWCN": (2, 3, 1, 0),
              "NCDHW": (0, 1, 2, 3, 4), "NDHWC": (0, 2, 3, 4, 1), "DHWCN": (2, 3, 4, 1, 0)}


def ceil(a, b):
    return -(-a // b)


def pad_axis(x, axis, size, value):
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, size - x.shape[axis])
    return np.pad(x, widths, constant_values=value)


def to_nc1hwc0(x, c0):  # x: NCHW
    n, c, h, w = x.shape
    c1 = ceil(c, c0)
    return pad_axis(x, 1, c1 * c0, PAD).reshape(n, c1, c0, h, w).transpose(0, 1, 3, 4, 2)


def to_fractal_z(x, c0, pad=PAD):  # x: NCHW -> (C1*H*W, No, 16, C0)
    n, c, h, w = x.shape
    c1, no = ceil(c, c0), ceil(n, 16)
    y = pad_axis(pad_axis(x, 0, no * 16, pad), 1, c1 * c0, pad)
    y = y.reshape(no * 16, c1, c0, h, w).transpose(1, 3, 4, 0, 2)  # C1, H, W, N, C0
    return y.reshape(c1 * h * w, no, 16, c0)


def to_c1hwncoc0(x, c0):  # x: NCHW -> (C1, H, W, N, C0, C0), channel on the diagonal
    n, c, h, w = x.shape
    c1 = ceil(c, c0)
    y = pad_axis(x, 1, c1 * c0, PAD).reshape(n, c1, c0, h, w).transpose(1, 3, 4, 0, 2)
    out = np.full((c1, h, w, n, c0, c0), PAD, dtype=x.dtype)
    i = np.arange(c0)
    out[..., i, i] = y
    return out


def to_ndc1hwc0(x, c0):  # x: NCDHW
    n, c, d, h, w = x.shape
    c1 = ceil(c, c0)
    return pad_axis(x, 1, c1 * c0, PAD).reshape(n, c1, c0, d, h, w).transpose(0, 3, 1, 4, 5, 2)


def to_fractal_z_3d(x, c0):  # x: NCDHW -> (D*C1*H*W, No, 16, C0)
    n, c, d, h, w = x.shape
    c1, no = ceil(c, c0), ceil(n, 16)
    y = pad_axis(pad_axis(x, 0, no * 16, PAD), 1, c1 * c0, PAD)
    y = y.reshape(no * 16, c1, c0, d, h, w).transpose(3, 1, 4, 5, 0, 2)  # D, C1, H, W, N, C0
    return y.reshape(d * c1 * h * w, no, 16, c0)


def to_fractal_nz(x, c0):  # x: (..., m, n) -> (..., C1, No, 16, C0)
    *batch, m, n = x.shape
    no, c1 = ceil(m, 16), ceil(n, c0)
    y = pad_axis(pad_axis(x, -2, no * 16, PAD), -1, c1 * c0, PAD)
    y = y.reshape(*batch, no * 16, c1, c0)
    y = np.moveaxis(y, -2, -3)  # ..., C1, rows, C0
    return y.reshape(*batch, c1, no, 16, c0)


DTYPES = {"float32": ("DT_FLOAT", 16), "float16": ("DT_FLOAT16", 16), "int8": ("DT_INT8", 32)}


def host_tensor(shape, dtype):
    return (np.arange(int(np.prod(shape))) % 90 + 1).reshape(shape).astype(dtype)


def device_of(source, x, c0):
    if source in HOST_ORDER:
        return x.transpose(HOST_ORDER[source])
    return {"NC1HWC0": to_nc1hwc0, "FRACTAL_Z": to_fractal_z, "C1HWNCoC0": to_c1hwncoc0,
            "NDC1HWC0": to_ndc1hwc0, "FRACTAL_Z_3D": to_fractal_z_3d,
            "FRACTAL_NZ": to_fractal_nz}[source](x, c0)


def expected_of(target, x):
    if target == "FRACTAL_Z":
        return to_fractal_z(x, 16, pad=0)
    if target in HOST_ORDER and x.ndim == len(HOST_ORDER[target]):
        return x.transpose(HOST_ORDER[target])
    return x  # ND: the channel-first host array (or the matrix for FRACTAL_NZ)


def run_case(work, k, case):
    source, target, host_shape = case["source"], case["target"], case["host"]
    dtype = case.get("dtype", "float32")
    data_type, c0 = DTYPES[dtype]
    x = host_tensor(host_shape, dtype)
    device = device_of(source, x, c0)
    origin = case.get("origin")  # the order original_shape is written in
    original = list(x.transpose(HOST_ORDER[origin]).shape) if origin else list(host_shape)
    tensor = {"data_type": data_type, "format": source, "shape": list(device.shape),
              "original_shape": original, "values": device.ravel().tolist()}
    if case.get("origin_field"):
        tensor["original_op_format"] = case["origin_field"]
    fixture = os.path.join(work, f"case{k}.json")
    src = os.path.join(work, f"Op.op{k}.2.7.1700000000000001")
    out = os.path.join(work, f"out{k}")
    with open(fixture, "w") as f:
        json.dump({"kind": "file", "ascend": {"op_name": f"Default/Op-op{k}", "outputs": [tensor]}},
                  f)
    subprocess.run(["mkfixture", fixture, "-o", src], check=True)
    cmd = ["dump-convert", "-d", src, "-out", out, "-f", target]
    if "s" in case:
        cmd += ["-s", ",".join(map(str, case["s"]))]
    run = subprocess.run(cmd, capture_output=True, text=True)
    label = f"{source} -> {target}"
    if origin:
        field = case.get("origin_field")
        label += f" (original_shape in {origin}, " + (f"origin field {field})" if field else "no origin field)")
    if "s" in case:
        label += f" -s {','.join(map(str, case['s']))}"
    files = glob.glob(os.path.join(out, "*.npy"))
    if run.returncode != 0 or len(files) != 1:
        return f"FAIL {label}: exit {run.returncode} {run.stderr.strip()} files {files}"
    got = np.load(files[0])
    want = expected_of(target, x)
    if got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
        return f"FAIL {label}: got {got.dtype} {got.shape}, expected {want.dtype} {want.shape}"
    return f"ok {label} {dtype} {tuple(got.shape)}"


CASES = [
    # msaccucmp's pairs (dump spec §8)
    {"source": "NC1HWC0", "target": "NCHW", "host": (2, 20, 3, 2)},
    {"source": "NC1HWC0", "target": "NHWC", "host": (2, 20, 3, 2)},
    {"source": "NC1HWC0", "target": "HWCN", "host": (2, 20, 3, 2)},
    {"source": "NC1HWC0", "target": "NHWC", "host": (1, 3, 2, 2), "dtype": "float16"},
    {"source": "NC1HWC0", "target": "HWCN", "host": (2, 40, 2, 3), "dtype": "int8"},
    {"source": "FRACTAL_Z", "target": "NCHW", "host": (20, 21, 3, 2)},
    {"source": "FRACTAL_Z", "target": "HWCN", "host": (20, 21, 3, 2)},
    {"source": "HWCN", "target": "NCHW", "host": (4, 3, 2, 5), "origin": "HWCN"},
    {"source": "HWCN", "target": "NHWC", "host": (4, 3, 2, 5), "origin": "HWCN"},
    {"source": "HWCN", "target": "FRACTAL_Z", "host": (17, 3, 2, 2), "origin": "HWCN"},
    {"source": "NCHW", "target": "NHWC", "host": (2, 3, 4, 5)},
    {"source": "NCHW", "target": "FRACTAL_Z", "host": (17, 18, 2, 1)},
    {"source": "NHWC", "target": "NCHW", "host": (2, 3, 4, 5), "origin": "NHWC"},
    {"source": "NHWC", "target": "HWCN", "host": (2, 3, 4, 5), "origin": "NHWC"},
    {"source": "NHWC", "target": "FRACTAL_Z", "host": (5, 3, 2, 2), "origin": "NHWC",
     "dtype": "float16"},
    {"source": "FRACTAL_NZ", "target": "ND", "host": (3, 20), "dtype": "float16"},
    {"source": "FRACTAL_NZ", "target": "NCHW", "host": (2, 2, 17, 20)},
    {"source": "FRACTAL_NZ", "target": "NHWC", "host": (2, 17, 20)},
    {"source": "NDC1HWC0", "target": "NCDHW", "host": (2, 20, 3, 2, 2)},
    {"source": "NDC1HWC0", "target": "ND", "host": (2, 20, 3, 2, 2)},
    # pairs msaccucmp lacks
    {"source": "NC1HWC0", "target": "ND", "host": (2, 20, 3, 2)},
    {"source": "NC1HWC0", "target": "FRACTAL_Z", "host": (2, 20, 3, 2)},
    {"source": "FRACTAL_Z", "target": "NHWC", "host": (20, 21, 3, 2)},
    {"source": "NCHW", "target": "HWCN", "host": (2, 3, 4, 5)},
    {"source": "HWCN", "target": "NHWC", "host": (4, 3, 2, 5), "origin": "HWCN"},
    {"source": "C1HWNCoC0", "target": "NCHW", "host": (3, 20, 2, 2)},
    {"source": "C1HWNCoC0", "target": "NHWC", "host": (3, 20, 2, 2)},
    {"source": "C1HWNCoC0", "target": "HWCN", "host": (3, 20, 2, 2), "dtype": "float16"},
    {"source": "FRACTAL_Z_3D", "target": "NCDHW", "host": (17, 20, 2, 3, 2)},
    {"source": "FRACTAL_Z_3D", "target": "ND", "host": (17, 20, 2, 3, 2)},
    # original_shape in an origin format other than NCHW, named by OriginalOp.format
    {"source": "NC1HWC0", "target": "NCHW", "host": (2, 20, 3, 2), "origin": "NHWC",
     "origin_field": "NHWC"},
    {"source": "FRACTAL_Z", "target": "NCHW", "host": (20, 21, 3, 2), "origin": "HWCN",
     "origin_field": "HWCN"},
    {"source": "FRACTAL_Z", "target": "HWCN", "host": (20, 21, 3, 2), "origin": "HWCN",
     "origin_field": "HWCN"},
    {"source": "NHWC", "target": "NCHW", "host": (2, 3, 4, 5), "origin": "NHWC",
     "origin_field": "NHWC"},
    # an OriginalOp whose format field is absent reads as NCHW: a host tensor's original_shape
    # equal to its stored shape is still taken in the tensor's own order
    {"source": "HWCN", "target": "NCHW", "host": (4, 3, 2, 5), "origin": "HWCN",
     "origin_field": "NCHW"},
    # -s is N,C,H,W whatever the target
    {"source": "NC1HWC0", "target": "NHWC", "host": (1, 3, 2, 2), "s": (1, 3, 2, 2)},
    {"source": "NC1HWC0", "target": "HWCN", "host": (1, 3, 2, 2), "s": (1, 3, 2, 2)},
    {"source": "FRACTAL_Z", "target": "HWCN", "host": (5, 3, 3, 3), "s": (5, 3, 3, 3)},
    {"source": "NHWC", "target": "NCHW", "host": (2, 3, 4, 5), "origin": "NHWC",
     "s": (2, 3, 4, 5)},
    # a host layout kept as it is: -s (N,C,H,W) is read in its own order, not stamped on
    {"source": "NHWC", "target": "NHWC", "host": (2, 3, 4, 5), "origin": "NHWC",
     "s": (2, 3, 4, 5)},
    {"source": "HWCN", "target": "HWCN", "host": (2, 3, 4, 5), "origin": "HWCN",
     "s": (2, 3, 4, 5)},
]


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    failed = 0
    for k, case in enumerate(CASES):
        line = run_case(work, k, case)
        failed += line.startswith("FAIL")
        print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
