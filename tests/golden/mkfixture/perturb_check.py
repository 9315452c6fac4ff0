"""Independent oracle for mkfixture's element fills with "perturb" (tests/mkfixture/README.md,
"Element values").

    perturb_check.py FILE.npy random SEED LOW HIGH [PSEED RELATIVE ABSOLUTE]
    perturb_check.py FILE.npy arange [PSEED RELATIVE ABSOLUTE]
    perturb_check.py --tree GOLDEN MINE RELATIVE

The first two forms recompute the elements from the README's definition with a splitmix64
written here (not mkfixture's): the random fill low + (high - low) * unit(), then
v * (1 + relative * u) + absolute * u with u = 2 * unit() - 1 from the perturbation's own stream,
in float64, stored as the file's dtype (float16 through float32, as mkfixture rounds), and
compare the file's elements bit for bit. Prints one line: the file name, dtype, shape, whether
it is equal, and the largest |mine/reference - 1| against the unperturbed fill.

--tree compares two generated trees: the same files with the same sizes; every floating-point
.npy differs from its golden copy by at most RELATIVE (relative, plus float rounding) and in
most elements; every integer .npy is equal.
"""
import os
import sys

import numpy as np

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def unit(self):
        return (self.next() >> 11) * 2.0**-53


def store(values, dtype):
    """float64 values as mkfixture writes them: through float32 for the narrower floats."""
    a = np.array(values, dtype=np.float64)
    if dtype == np.float64:
        return a
    a = a.astype(np.float32)
    return a if dtype == np.float32 else a.astype(dtype)


def check_file(path, args):
    actual = np.load(path)
    n = actual.size
    kind = args[0]
    if kind == "random":
        seed, low, high = int(args[1]), float(args[2]), float(args[3])
        rng = SplitMix64(seed)
        base = [low + (high - low) * rng.unit() for _ in range(n)]
        rest = args[4:]
    else:
        base = [float(i) for i in range(n)]
        rest = args[1:]
    values = base
    if rest:
        pseed, relative, absolute = int(rest[0]), float(rest[1]), float(rest[2])
        noise = SplitMix64(pseed)
        values = []
        for v in base:
            u = 2 * noise.unit() - 1
            values.append(v * (1 + relative * u) + absolute * u)
    expected = store(values, actual.dtype.type).reshape(actual.shape)
    equal = actual.tobytes() == expected.tobytes()
    reference = store(base, actual.dtype.type).astype(np.float64).ravel()
    got = actual.astype(np.float64).ravel()
    nonzero = reference != 0
    change = np.abs(got[nonzero] / reference[nonzero] - 1).max() if nonzero.any() else 0.0
    print(f"{os.path.basename(path)}: {actual.dtype} {actual.shape} "
          f"{'equal' if equal else 'DIFFERENT'}; max |file/unperturbed - 1| = {change:.3g}")


def check_tree(golden, mine, relative):
    def listing(root):
        out = {}
        for d, _, files in os.walk(root):
            for f in files:
                p = os.path.join(d, f)
                out[os.path.relpath(p, root)] = os.path.getsize(p)
        return out

    g, m = listing(golden), listing(mine)
    print(f"files: {len(g)} golden, {len(m)} mine, same names and sizes: {g == m}")
    floats = ints = bad = 0
    for name in sorted(g):
        if not name.endswith(".npy"):
            continue
        a, b = np.load(os.path.join(golden, name)), np.load(os.path.join(mine, name))
        if a.dtype != b.dtype or a.shape != b.shape:
            bad += 1
            continue
        if a.dtype.kind == "f":
            floats += 1
            x, y = b.astype(np.float64), a.astype(np.float64)
            eps = np.finfo(a.dtype).eps
            within = np.all(np.abs(x - y) <= (relative + eps) * np.abs(y))
            changed = np.mean(x != y)
            if not within or changed < (0.5 if a.dtype == np.float16 else 0.9):
                bad += 1
        else:
            ints += 1
            bad += not np.array_equal(a, b)
    print(f"npy: {floats} floating-point perturbed within {relative}, {ints} integer equal, "
          f"{bad} not as expected")


if __name__ == "__main__":
    if sys.argv[1] == "--tree":
        check_tree(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    else:
        check_file(sys.argv[1], sys.argv[2:])
