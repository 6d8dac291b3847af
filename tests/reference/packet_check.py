#!/usr/bin/python3
"""wavetool --transform packet against its references.

Nodes: every node of every level of `decompose --transform packet` (one run
per level, --basis level:N) equals pywt.WaveletPacket2D(x, wavelet, mode,
maxlevel)[path].data within 1e-5 of the node's largest magnitude, on odd
and even sizes, over a sample of the wavelet x mode grid (every mode, every
family). Best basis: the tree `--basis best --cost C` writes equals MATLAB's
besttree rule written here (bottom-up, a node is a leaf when its cost is at
most its children's best sum) on wentropy costs computed here from pywt's
float64 nodes; cases with a decision within float32 rounding of a tie are
skipped. Reconstruction: 8- and 16-bit images back exactly from the full
tree, the best basis, and a hand-picked set of leaves written by numpy;
leaves that overlap or leave a gap are refused with one line.

usage: packet_check.py WAVETOOL   (exit 77 without numpy, pywt or PIL)
"""
import itertools
import os
import subprocess
import sys
import tempfile

from check_common import modules_or_skip, runner

np, pywt, Image = modules_or_skip("numpy", "pywt", "PIL.Image")

WAVELETS = ["haar", "db2", "db3", "db4", "db7", "sym2", "sym5", "coif1", "coif2", "bior1.3",
            "bior2.2", "bior3.5", "bior4.4", "rbio2.4", "dmey"]
MODES = ["zero", "constant", "symmetric", "reflect", "periodic", "smooth", "antisymmetric",
         "antireflect", "periodization"]
SIZES = [(37, 51), (64, 48), (45, 45), (33, 70)]
TOL = 1e-5
rng = np.random.default_rng(28)
run = runner(sys.argv[1])
failures = []
counts = {"nodes": 0, "trees": 0, "skipped ties": 0, "reconstructions": 0, "refusals": 0}


def paths(level):
    """Every path of a level in index order (a h v d, the first letter slowest)."""
    return ["".join(p) for p in itertools.product("ahvd", repeat=level)]


def leaves_of(npz_path):
    z = np.load(npz_path)
    return z, bytes(z["tree"]).decode().split()


def check_nodes(tmp, wavelet, mode, shape):
    x = rng.normal(100.0, 40.0, shape).astype(np.float32)
    src = os.path.join(tmp, "x.npy")
    np.save(src, x)
    levels = min(pywt.dwt_max_level(min(shape), wavelet), 3)
    if levels < 1:
        return
    wp = pywt.WaveletPacket2D(x.astype(np.float64), wavelet, mode, levels)
    for n in range(1, levels + 1):
        out = os.path.join(tmp, "p.npz")
        r = run("decompose", "--transform", "packet", "-w", wavelet, "-m", mode, "-l",
                str(levels), "--basis", f"level:{n}", src, out)
        if r.returncode:
            failures.append(f"{wavelet} {mode} {shape} level {n}: {r.stderr.strip()}")
            return
        z, tree = leaves_of(out)
        if tree != paths(n):
            failures.append(f"{wavelet} {mode} {shape}: tree of level {n} is {tree[:5]}...")
        for p in tree:
            ref = wp[p].data
            got = z[p][0]
            counts["nodes"] += 1
            if got.shape != ref.shape:
                failures.append(f"{wavelet} {mode} {shape} {p}: shape {got.shape} vs {ref.shape}")
                continue
            err = np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-30)
            if not err <= TOL:
                failures.append(f"{wavelet} {mode} {shape} {p}: relative error {err:.3g}")


# ---- MATLAB's wentropy and besttree, written independently -------------------

def wentropy(c, cost):
    c = np.asarray(c, np.float64).ravel()
    s = c * c
    if cost == "shannon":
        nz = s[s > 0]
        return -np.sum(nz * np.log(nz))
    if cost == "logenergy":
        return np.sum(np.log(s[s > 0]))
    name, value = cost.split(":")
    if name == "threshold":
        return float(np.sum(np.abs(c) > float(value)))
    return np.sum(np.abs(c) ** float(value))


def besttree(wp, levels, cost):
    """Leaves of the best tree and the smallest margin of its decisions."""
    ent = {p: wentropy(wp[p].data if p else wp.data, cost)
           for l in range(levels + 1) for p in paths(l)}
    best, leaves, margin = {}, {}, np.inf
    for p in paths(levels):
        best[p], leaves[p] = ent[p], [p]
    for l in range(levels - 1, -1, -1):
        for p in paths(l):
            kids = [p + b for b in "ahvd"]
            total = sum(best[k] for k in kids)
            scale = max(abs(ent[p]), abs(total), 1e-300)
            margin = min(margin, abs(ent[p] - total) / scale)
            if ent[p] <= total:
                best[p], leaves[p] = ent[p], [p]
            else:
                best[p], leaves[p] = total, sum((leaves[k] for k in kids), [])
    return leaves[""], margin


def check_best(tmp, wavelet, mode, cost, x, levels):
    src = os.path.join(tmp, "t.npy")
    np.save(src, x)
    out = os.path.join(tmp, "b.npz")
    r = run("decompose", "--transform", "packet", "-w", wavelet, "-m", mode, "-l", str(levels),
            "--basis", "best", "--cost", cost, src, out)
    if r.returncode:
        failures.append(f"best {wavelet} {cost}: {r.stderr.strip()}")
        return
    want, margin = besttree(pywt.WaveletPacket2D(x.astype(np.float64), wavelet, mode, levels),
                            levels, cost)
    if margin < 1e-5 and cost.split(":")[0] not in ("threshold",):
        counts["skipped ties"] += 1
        return
    _, got = leaves_of(out)
    got = ["" if p == "root" else p for p in got]
    counts["trees"] += 1
    if got != want:
        failures.append(f"best {wavelet} {mode} {cost}: {got} vs MATLAB's rule {want}")


def textured(shape):
    """Stripes and checks of several frequencies with noise: trees of many shapes."""
    y, x = np.mgrid[:shape[0], :shape[1]]
    img = (60 * np.sin(x * rng.uniform(0.2, 2.5)) * np.cos(y * rng.uniform(0.1, 2.5))
           + 40 * ((x // 3 + y // 5) % 2) + rng.normal(0, rng.uniform(1, 20), shape) + 128)
    return img.astype(np.float32)


# ---- reconstruction ----------------------------------------------------------

def exact_back(tmp, label, npz, original):
    back = os.path.join(tmp, "back.png")
    r = run("reconstruct", npz, back)
    counts["reconstructions"] += 1
    if r.returncode:
        failures.append(f"{label}: {r.stderr.strip()}")
    elif not np.array_equal(np.asarray(Image.open(back)), original):
        failures.append(f"{label}: not the original")


def hand_picked(tmp, png, wavelet, mode, leaves, original):
    """A .npz numpy writes: pywt's nodes of @p leaves, a tree, wavetool's meta."""
    ref = os.path.join(tmp, "ref.npz")
    r = run("decompose", "--transform", "packet", "-w", wavelet, "-m", mode, "-l", "3", png, ref)
    assert r.returncode == 0, r.stderr
    meta = np.load(ref)["meta"]
    wp = pywt.WaveletPacket2D(original.astype(np.float64), wavelet, mode, 3)
    members = {p: wp[p].data[None].astype(np.float32) for p in leaves}
    tree = np.frombuffer("".join(p + "\n" for p in leaves).encode(), np.uint8)
    out = os.path.join(tmp, "hand.npz")
    np.savez(out, tree=tree, meta=meta, **members)
    return out


def check_reconstruction(tmp):
    for bits, dtype in ((8, np.uint8), (16, np.uint16)):
        top = (1 << bits) - 1
        original = np.clip(textured((53, 67)) * top / 255, 0, top).astype(dtype)
        png = os.path.join(tmp, f"in{bits}.png")
        Image.fromarray(original).save(png)
        for wavelet, mode in (("db3", "symmetric"), ("bior2.2", "periodization"),
                              ("sym3", "smooth")):
            for basis in ("full", "best", "level:1"):
                npz = os.path.join(tmp, "c.npz")
                r = run("decompose", "--transform", "packet", "-w", wavelet, "-m", mode, "-l",
                        "3", "--basis", basis, "--cost", "logenergy", png, npz)
                assert r.returncode == 0, r.stderr
                exact_back(tmp, f"{bits}-bit {wavelet} {mode} {basis}", npz, original)
            picked = ["aaa", "aah", "aav", "aad", "ah", "av", "ad", "h", "va", "vh", "vv", "vd",
                      "ddd", "dda", "ddh", "ddv", "da", "dh", "dv"]
            npz = hand_picked(tmp, png, wavelet, mode, picked, original)
            exact_back(tmp, f"{bits}-bit {wavelet} {mode} hand-picked", npz, original)
    bad_trees(tmp, png, original)


def bad_trees(tmp, png, original):
    """Overlapping leaves and a gap: one line naming the file, no output."""
    for leaves, why in ((["a", "aa", "ah", "av", "ad", "h", "v", "d"], "overlaps"),
                        (["a", "h", "v"], "do not cover")):
        npz = hand_picked(tmp, png, "db2", "symmetric", leaves, original)
        out = os.path.join(tmp, "never.png")
        r = run("reconstruct", npz, out)
        counts["refusals"] += 1
        lines = r.stderr.strip().splitlines()
        if r.returncode == 0 or os.path.exists(out) or len(lines) != 1 or npz not in lines[0] \
                or why not in lines[0]:
            failures.append(f"leaves {leaves}: rc {r.returncode}, stderr {r.stderr!r}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        # every mode with every wavelet once, and every size, in 45 of the 135 pairs
        for i, mode in enumerate(MODES):
            for j in range(5):
                wavelet = WAVELETS[(3 * i + j * 7) % len(WAVELETS)]
                check_nodes(tmp, wavelet, mode, SIZES[(i + j) % len(SIZES)])
        for cost in ("shannon", "logenergy", "threshold:20", "norm:1", "norm:1.5"):
            for wavelet, mode in (("db2", "symmetric"), ("haar", "periodization"),
                                  ("sym3", "periodic")):
                for _ in range(3):
                    x = textured((64, 64)) / (255.0 if cost == "shannon" else 1.0)
                    check_best(tmp, wavelet, mode, cost, x.astype(np.float32), 3)
        check_reconstruction(tmp)
    print(", ".join(f"{v} {k}" for k, v in counts.items()))
    for f in failures[:40]:
        print("FAIL", f)
    if counts["trees"] < 30 or counts["nodes"] < 1000:
        failures.append("too few cases compared")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
