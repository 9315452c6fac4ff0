"""Independent reader for the MindSpore Lite .ms models mkfixture writes (tests/mkfixture/README.md,
"ms_lite"; spec mindir.md §9). It walks the FlatBuffers layout by hand (§9.2), with nothing from
mkfixture or libcommon, checks what a FlatBuffers verifier checks (every object inside the file,
tables 4-aligned, vtables 2-aligned and inside the file, each scalar aligned to its size, vectors
aligned to 4 and to their element size, strings NUL-terminated, fields inside their table) and
prints every field it finds, "-" for an absent one.

    ms_lite_check.py FILE

Element values: TypeIds 30-44 (stable in every release, §9.4) are decoded with NumPy, up to 12
elements in full; any other TypeId's data is printed as hex bytes.
"""
import struct
import sys

import numpy as np

STABLE = {30: "?", 32: "i1", 33: "<i2", 34: "<i4", 35: "<i8", 37: "u1", 38: "<u2", 39: "<u4",
          40: "<u8", 42: "<f2", 43: "<f4", 44: "<f8"}


class Bad(Exception):
    pass


class Flat:
    def __init__(self, data):
        self.data = data

    def need(self, at, n, what):
        if at < 0 or at + n > len(self.data):
            raise Bad("%s at %#x (%d bytes) is outside the file (%d bytes)"
                      % (what, at, n, len(self.data)))

    def aligned(self, at, n, what):
        if at % n:
            raise Bad("%s at %#x is not %d-aligned" % (what, at, n))

    def u32(self, at):
        self.need(at, 4, "uoffset")
        return struct.unpack_from("<I", self.data, at)[0]

    def table(self, at, what):
        self.need(at, 4, what)
        self.aligned(at, 4, what)
        vt = at - struct.unpack_from("<i", self.data, at)[0]
        self.need(vt, 4, what + " vtable")
        self.aligned(vt, 2, what + " vtable")
        vsize, tsize = struct.unpack_from("<HH", self.data, vt)
        self.need(vt, vsize, what + " vtable")
        self.need(at, tsize, what)
        slots = struct.unpack_from("<%dH" % ((vsize - 4) // 2), self.data, vt + 4)
        return Table(self, at, tsize, slots, what)

    def follow(self, at):
        self.aligned(at, 4, "uoffset")
        return at + self.u32(at)

    def string(self, at, what):
        self.aligned(at, 4, what)
        n = self.u32(at)
        self.need(at + 4, n + 1, what)
        if self.data[at + 4 + n] != 0:
            raise Bad("%s at %#x is not NUL-terminated" % (what, at))
        return self.data[at + 4:at + 4 + n].decode()

    def vector(self, at, size, what):
        self.aligned(at, 4, what)
        n = self.u32(at)
        self.aligned(at + 4, size, what + " elements")
        self.need(at + 4, n * size, what)
        return at + 4, n


class Table:
    def __init__(self, flat, at, size, slots, what):
        self.flat, self.at, self.size, self.slots, self.what = flat, at, size, slots, what

    def slot(self, fid, size):
        if fid >= len(self.slots) or self.slots[fid] == 0:
            return None
        off = self.slots[fid]
        if off + size > self.size:
            raise Bad("%s field %d is outside its table" % (self.what, fid))
        at = self.at + off
        self.flat.aligned(at, size, "%s field %d" % (self.what, fid))
        return at

    def scalar(self, fid, fmt):
        at = self.slot(fid, struct.calcsize("<" + fmt))
        return "-" if at is None else struct.unpack_from("<" + fmt, self.flat.data, at)[0]

    def string(self, fid):
        at = self.slot(fid, 4)
        return "-" if at is None else repr(self.flat.string(self.flat.follow(at), self.what))

    def vector(self, fid, fmt):
        at = self.slot(fid, 4)
        if at is None:
            return None
        size = struct.calcsize("<" + fmt)
        start, n = self.flat.vector(self.flat.follow(at), size, self.what)
        return list(struct.unpack_from("<%d%s" % (n, fmt), self.flat.data, start))

    def tables(self, fid, what):
        at = self.slot(fid, 4)
        if at is None:
            return None
        start, n = self.flat.vector(self.flat.follow(at), 4, self.what)
        return [self.flat.table(self.flat.follow(start + 4 * i), "%s[%d]" % (what, i))
                for i in range(n)]

    def data(self, fid):
        at = self.slot(fid, 4)
        if at is None:
            return None
        start, n = self.flat.vector(self.flat.follow(at), 1, self.what)
        return self.flat.data[start:start + n]

    def present(self):
        return [i for i, off in enumerate(self.slots) if off]


def show(v):
    return "-" if v is None else "[" + ", ".join(str(x) for x in v) + "]"


def values(data, type_id):
    if type_id not in STABLE or len(data) % np.dtype(STABLE[type_id]).itemsize:
        return "hex " + (data.hex(" ") if data else "(empty)")
    a = np.frombuffer(data, dtype=np.dtype(STABLE[type_id]))
    if a.size <= 12:
        shown = ("%g" % x if a.dtype.kind == "f" else str(x) for x in a.tolist())
        return "[" + ", ".join(shown) + "]"
    return "%d elements sum=%g min=%g max=%g" % (a.size, a.sum(), a.min(), a.max())


def check_fields(t, known, out):
    extra = [i for i in t.present() if i not in known]
    if extra:
        out.append("  %s: unexpected field ids %s" % (t.what, extra))


def main():
    data = open(sys.argv[1], "rb").read()
    flat = Flat(data)
    ident = data[4:8]
    ident = ident.decode() if ident in (b"MSL1", b"MSL2") else "none"
    root_at = flat.u32(0)
    out = ["identifier %s, root table at %#x, %d bytes" % (ident, root_at, len(data))]
    g = flat.table(root_at, "MetaGraph")
    check_fields(g, range(11), out)
    out.append("MetaGraph name=%s version=%s fmkType=%s mempoolSize=%s obfuscate=%s"
               % (g.string(0), g.string(1), g.scalar(2, "i"), g.scalar(5, "I"), g.scalar(9, "B")))
    out.append("inputIndex=%s outputIndex=%s" % (show(g.vector(3, "I")), show(g.vector(4, "I"))))
    for i, n in enumerate(g.tables(6, "nodes") or []):
        check_fields(n, range(7), out)
        prim = "-"
        at = n.slot(2, 4)
        if at is not None:
            p = flat.table(flat.follow(at), "nodes[%d].primitive" % i)
            value = p.slot(1, 4)
            prim = "%s%s" % (p.scalar(0, "B"), "" if value is None else " (value table at %#x)"
                             % flat.table(flat.follow(value), "primitive value").at)
        out.append("node %d name=%s primitive=%s inputIndex=%s outputIndex=%s quantType=%s "
                   "deviceType=%s" % (i, n.string(0), prim, show(n.vector(3, "I")),
                                      show(n.vector(4, "I")), n.scalar(5, "i"), n.scalar(6, "i")))
    for i, t in enumerate(g.tables(7, "allTensors") or []):
        check_fields(t, range(13), out)
        type_id = t.scalar(1, "i")
        d = t.data(6)
        shown = "-" if d is None else "%d bytes %s" % (len(d), values(d, type_id))
        out.append("tensor %d name=%s nodeType=%s dataType=%s dims=%s format=%s data=%s"
                   % (i, t.string(9), t.scalar(0, "i"), type_id, show(t.vector(2, "i")),
                      t.scalar(3, "i"), shown))
        extras = [("refCount", t.scalar(4, "i")), ("offset", t.scalar(5, "i")),
                  ("enableHuffmanCode", t.scalar(10, "B")),
                  ("weightQuantCompressType", t.scalar(11, "i"))]
        extras = ["%s=%s" % (k, v) for k, v in extras if v != "-"]
        if extras:
            out.append("  " + " ".join(extras))
        for q in t.tables(7, "quantParams") or []:
            check_fields(q, range(12), out)
            out.append("  quantParam scale=%s zeroPoint=%s min=%s max=%s narrowRange=%s numBits=%s "
                       "inited=%s" % (q.scalar(0, "d"), q.scalar(1, "i"), q.scalar(2, "d"),
                                      q.scalar(3, "d"), q.scalar(4, "B"), q.scalar(5, "i"),
                                      q.scalar(6, "B")))
        for e in t.tables(12, "externalData") or []:
            check_fields(e, range(4), out)
            out.append("  externalData checkSum=%s location=%s offset=%s length=%s"
                       % (e.string(0), e.string(1), e.scalar(2, "q"), e.scalar(3, "q")))
    for i, s in enumerate(g.tables(8, "subGraph") or []):
        check_fields(s, range(5), out)
        out.append("subGraph %d name=%s inputIndices=%s outputIndices=%s nodeIndices=%s "
                   "tensorIndices=%s" % (i, s.string(0), show(s.vector(1, "I")),
                                         show(s.vector(2, "I")), show(s.vector(3, "I")),
                                         show(s.vector(4, "I"))))
    print("\n".join(out))


if __name__ == "__main__":
    try:
        main()
    except Bad as e:
        print("ms_lite_check: %s" % e)
        sys.exit(1)
