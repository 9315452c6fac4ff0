"""NumPy oracle for the float32 that dump-convert writes for the small float types.

    small_floats.py BASE

BASE.output.{0..5}.npy hold, in order, every code of hifloat8, float8_e8m0, float6_e2m3,
float6_e3m2, float4_e2m1 and float4_e1m2 (code k at index k). Each is compared with the values
computed here from the bit fields; prints one line per type and exits 1 on a difference.
"""
import sys

import numpy as np


def minifloat(codes, e, m, bias):
    """No infinities or NaN; exponent 0 is the denormal range."""
    sign = np.where((codes >> (e + m)) & 1, -1.0, 1.0)
    exponent = (codes >> m) & ((1 << e) - 1)
    mantissa = (codes & ((1 << m) - 1)).astype(np.float64)
    normal = (1 + mantissa / 2**m) * 2.0 ** (exponent - bias)
    denormal = mantissa / 2**m * 2.0 ** (1 - bias)
    return sign * np.where(exponent == 0, denormal, normal)


def hifloat8(codes):
    """The dot field is found by counting: 1x -> 2-bit dot with D = 2 + top bits, else the number
    of leading zeros of the 7 value bits picks D = 1 (001), 0 (0001) or the denormal range."""
    out = np.empty(codes.shape)
    for i, c in enumerate(codes.tolist()):
        s = -1.0 if c & 0x80 else 1.0
        v = c & 0x7F
        bits = format(v, "07b")
        if c == 0x80:
            out[i] = np.nan
            continue
        if v == 0x6F:
            out[i] = s * np.inf
            continue
        if bits.startswith("0000"):
            out[i] = 0.0 if v == 0 else s * 2.0 ** (int(bits[4:], 2) - 23)
            continue
        if bits[0] == "1" or bits[1] == "1":
            d = {"01": 2, "10": 3, "11": 4}[bits[:2]]
            rest = bits[2:]
        elif bits[2] == "1":
            d, rest = 1, bits[3:]
        else:
            d, rest = 0, bits[4:]
        exp_bits, man_bits = rest[:d], rest[d:]
        e = 0
        if d:
            magnitude = int("1" + exp_bits[1:], 2)
            e = -magnitude if exp_bits[0] == "1" else magnitude
        out[i] = s * (1 + int(man_bits, 2) / 2 ** len(man_bits)) * 2.0**e
    return out


def main():
    base = sys.argv[1]
    cases = [
        ("hifloat8", hifloat8(np.arange(256))),
        ("float8_e8m0", np.where(np.arange(256) == 255, np.nan, 2.0 ** (np.arange(256) - 127))),
        ("float6_e2m3", minifloat(np.arange(64), 2, 3, 1)),
        ("float6_e3m2", minifloat(np.arange(64), 3, 2, 3)),
        ("float4_e2m1", minifloat(np.arange(16), 2, 1, 1)),
        ("float4_e1m2", minifloat(np.arange(16), 1, 2, 1)),
    ]
    failed = 0
    for k, (name, want) in enumerate(cases):
        got = np.load(f"{base}.output.{k}.npy")
        want = want.astype(np.float32)
        if got.dtype != np.float32 or not np.array_equal(got, want, equal_nan=True):
            bad = np.flatnonzero(~((got == want) | (np.isnan(got) & np.isnan(want))))
            print(f"FAIL {name}: codes {bad[:8].tolist()} got {got[bad[:8]].tolist()} "
                  f"expected {want[bad[:8]].tolist()}")
            failed += 1
        else:
            print(f"ok {name} {got.dtype} {got.shape}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
