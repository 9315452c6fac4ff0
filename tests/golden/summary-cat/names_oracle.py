"""Oracle for the file names of the exporters (io/safe_name.h), computed here independently.

    names_oracle.py DIR SUFFIX HEX...

For each name, given as the hex of its raw bytes (pieces joined by "+", a piece "HEX*N"
repeated N times: "61*300+78" is 300 "a" and an "x"), the expected file name is Python's
urllib.parse.quote(name, safe="") (MindInsight's tag quoting; "." and ".." have their dots
quoted too) followed by SUFFIX; when that passes 255 bytes, the quoted name is cut (never inside
a %XX) so that it, "%~", the 32 hex digits of the MD5 of the raw name and SUFFIX make 255 bytes.
Prints, for each name, "ok NAME" and what NumPy loads from an .npy (the text of a short .txt,
the size of another file), or "missing NAME"; long names are shown shortened, with their length.
Then the number of files in DIR that no name accounts for.
"""
import hashlib
import os
import sys
import urllib.parse

import numpy as np


def expected_name(raw, suffix):
    quoted = urllib.parse.quote(raw, safe="")
    if quoted in (".", ".."):
        quoted = "%2E" * len(quoted)
    if len(quoted) + len(suffix) <= 255:
        return quoted + suffix
    keep = 255 - 34 - len(suffix)
    if quoted[keep - 1] == "%":
        keep -= 1
    elif quoted[keep - 2] == "%":
        keep -= 2
    return quoted[:keep] + "%~" + hashlib.md5(raw).hexdigest() + suffix


def raw_bytes(spec):
    out = b""
    for piece in spec.split("+"):
        hex_part, _, count = piece.partition("*")
        out += bytes.fromhex(hex_part) * (int(count) if count else 1)
    return out


def shown(name):
    if len(name) <= 60:
        return name
    return f"{name[:8]}...{name[-50:]} ({len(name)} bytes)"


def main():
    directory, suffix = sys.argv[1], sys.argv[2]
    names = set()
    for hex_name in sys.argv[3:]:
        name = expected_name(raw_bytes(hex_name), suffix)
        names.add(name)
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            print("missing", shown(name))
            continue
        if name.endswith(".npy"):
            a = np.load(path)
            what = f"{a.dtype} {list(a.shape)} {a.ravel().tolist()}"
        elif name.endswith(".txt") and os.path.getsize(path) < 80:
            what = repr(open(path, encoding="utf-8").read())
        else:
            what = f"{os.path.getsize(path)} bytes"
        print("ok", shown(name), what)
    print(len(set(os.listdir(directory)) - names), "other files")


main()
