#!/usr/bin/env python3
"""Stacks: multi-page TIFFs (tifffile) and 3-D .npy arrays processed page by page.

- decompose of a stack writes an .npz whose members have a leading page axis
  (N, C, h, w) equal to pywt.wavedec2 of each page (1e-5 relative), with
  "pages": N in its meta; reconstruct gives the stack back bit-exact as a
  multi-page TIFF and as an (N, H, W[, C]) .npy; so do roundtrip and SWT;
- every command treats each page as the image it is: denoise, sigma and stats
  of page k equal those of page k saved alone; reports keep a page column;
- .npy stacks in both layouts (--stack first|last, C and Fortran order);
- bad stacks (a page of another size, a truncated page, an IFD loop) and a
  stack into a one-image format: exit 1, one line naming the page, no output;
- memory: a stack of many pages takes about the memory of one page (peak RSS
  of roundtrip of N pages vs of 1 page).
Usage: stack_check.py WAVETOOL CORPUS_DIR.  Exit 77 without numpy, pywt, tifffile."""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import pywt
    import tifffile
except ImportError:
    print("numpy, pywt or tifffile missing: skipped")
    sys.exit(77)

WT, CORPUS = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(2016)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(*args, stdin_path=None):
    with open(stdin_path or os.devnull, "rb") as stdin:
        p = subprocess.run([WT, *map(str, args)], capture_output=True, text=True, stdin=stdin)
    return p.returncode, p.stdout, p.stderr


def rand(shape, dtype):
    return rng.integers(0, np.iinfo(dtype).max + 1, shape, dtype=dtype)


def planes(page):
    """(C, H, W) float64 of an (H, W) or (H, W, C) page."""
    return (page[None] if page.ndim == 2 else np.moveaxis(page, -1, 0)).astype(np.float64)


def coefficients_match(z, stack, wavelet, levels):
    """Max relative error of every page's members against pywt.wavedec2."""
    worst = 0.0
    for k, page in enumerate(stack):
        for c, plane in enumerate(planes(page)):
            ref = pywt.wavedec2(plane, wavelet, mode="symmetric", level=levels)
            scale = max(np.abs(ref[0]).max(), 1.0)
            worst = max(worst, np.abs(z["cA"][k, c] - ref[0]).max() / scale)
            for l in range(1, levels + 1):
                for name, band in zip("HVD", ref[-l]):
                    worst = max(worst, np.abs(z[f"c{name}{l}"][k, c] - band).max() / scale)
    return worst


def stacks():
    """name -> (pages array, how tifffile writes it)."""
    return {
        "gray8": (rand((5, 37, 29), np.uint8), {"photometric": "minisblack"}),
        "gray16": (rand((3, 16, 41), np.uint16), {"photometric": "minisblack",
                                                  "compression": "zlib"}),
        "rgb8": (rand((4, 20, 31, 3), np.uint8), {"photometric": "rgb"}),
        "rgb16": (rand((2, 23, 17, 3), np.uint16), {"photometric": "rgb", "tile": (16, 16)}),
    }


def tiff_stacks(d):
    for name, (pages, kw) in stacks().items():
        src = os.path.join(d, name + ".tif")
        tifffile.imwrite(src, pages, **kw)
        rc, _, err = run("decompose", "-w", "db2", "-l", 2, src, os.path.join(d, name + ".npz"))
        check(rc == 0, f"{name}: decompose of a {len(pages)}-page TIFF ({err.strip()})")
        z = np.load(os.path.join(d, name + ".npz"))
        meta = json.loads(bytes(z["meta"]).decode())
        check(z["cA"].shape[:2] == (len(pages), 1 if pages.ndim == 3 else 3) and
              meta["pages"] == len(pages), f"{name}: members (N, C, h, w), meta pages")
        err_rel = coefficients_match(z, pages, "db2", 2)
        check(err_rel <= 1e-5, f"{name}: every page = pywt.wavedec2 (max rel err {err_rel:.2e})")
        for ext in ("tif", "npy"):
            back = os.path.join(d, f"{name}_back.{ext}")
            rc, _, err = run("reconstruct", os.path.join(d, name + ".npz"), back)
            got = tifffile.imread(back) if ext == "tif" else np.load(back)
            check(rc == 0 and got.dtype == pages.dtype and np.array_equal(got, pages),
                  f"{name}: reconstruct to .{ext} gives the stack back ({err.strip()})")
        rc, out, err = run("roundtrip", "--format", "tsv", src, "-o", os.path.join(d, name + "_rt.tif"))
        rows = [r.split("\t") for r in out.splitlines()]
        check(rc == 0 and rows[0][-1] == "page" and [r[-1] for r in rows[1:]] ==
              [str(k) for k in range(len(pages))] and all(r[5] == "inf" for r in rows[1:]),
              f"{name}: roundtrip TSV, one row per page, page column, inf")
        check(np.array_equal(tifffile.imread(os.path.join(d, name + "_rt.tif")), pages),
              f"{name}: roundtrip -o .tif bit-exact")


def npy_stacks(d):
    pages = rand((4, 19, 23), np.uint16)
    layouts = {
        "first": pages,
        "last": np.ascontiguousarray(np.moveaxis(pages, 0, -1)),
        "first-fortran": np.asfortranarray(pages),
        "last-bigendian": np.moveaxis(pages, 0, -1).astype(">u2"),
    }
    for name, array in layouts.items():
        src = os.path.join(d, f"{name}.npy")
        np.save(src, array)
        rc, out, err = run("roundtrip", "--stack", name.split("-")[0], "--format", "json", src,
                           "-o", os.path.join(d, f"{name}_rt.npy"))
        lines = [json.loads(l) for l in out.splitlines()]
        check(rc == 0 and [l["page"] for l in lines] == [0, 1, 2, 3] and
              all(l["psnr"] == "inf" for l in lines), f".npy {name}: JSON page per line ({err.strip()})")
        check(np.array_equal(np.load(os.path.join(d, f"{name}_rt.npy")), pages),
              f".npy {name}: pages read in the stated layout, written (N, H, W)")
    np.save(os.path.join(d, "wide.npy"), rand((3, 10, 70), np.uint8))
    rc, _, err = run("roundtrip", os.path.join(d, "wide.npy"))
    check(rc == 1 and "--stack first|last" in err,
          ".npy (N, H, W) with W > 64 without --stack: refused with the hint")


def sample_types(d):
    """Stacks of the other sample types: float32 and int16 pages keep their type."""
    f32 = (rng.random((3, 21, 18)) * 1000 - 500).astype(np.float32)
    i16 = rng.integers(-32768, 32768, (3, 21, 18)).astype(np.int16)
    for name, pages in (("float32", f32), ("int16", i16)):
        src = os.path.join(d, f"{name}.tif")
        tifffile.imwrite(src, pages, photometric="minisblack")
        rc, _, err = run("roundtrip", src, "-o", os.path.join(d, f"{name}_rt.tif"))
        got = tifffile.imread(os.path.join(d, f"{name}_rt.tif")) if rc == 0 else None
        close = got is not None and got.dtype == pages.dtype and np.allclose(
            got, pages, rtol=1e-6, atol=1e-6 * np.abs(pages).max())
        check(close, f"{name} TIFF stack: roundtrip keeps type and values ({err.strip()})")
        rc, _, err = run("decompose", "-w", "db2", "-l", 2, src, os.path.join(d, f"{name}.npz"))
        z = np.load(os.path.join(d, f"{name}.npz")) if rc == 0 else None
        err_rel = coefficients_match(z, pages, "db2", 2) if z is not None else 1.0
        check(err_rel <= 1e-5, f"{name} TIFF stack: every page = pywt.wavedec2 ({err_rel:.2e})")


def pages_as_images(d):
    """denoise, sigma, stats of page k = of page k alone."""
    pages = rand((3, 33, 40), np.uint8)
    tifffile.imwrite(os.path.join(d, "s.tif"), pages, photometric="minisblack")
    for k in range(3):
        np.save(os.path.join(d, f"p{k}.npy"), pages[k])
    rc, _, err = run("denoise", os.path.join(d, "s.tif"), os.path.join(d, "dn.tif"))
    stack_out = tifffile.imread(os.path.join(d, "dn.tif")) if rc == 0 else None
    same = rc == 0
    for k in range(3):
        run("denoise", os.path.join(d, f"p{k}.npy"), os.path.join(d, f"dn{k}.npy"))
        same = same and np.array_equal(stack_out[k], np.load(os.path.join(d, f"dn{k}.npy")))
    check(same, f"denoise: each page = the page denoised alone ({err.strip()})")
    for cmd in ("sigma", "stats"):
        rc, out, _ = run(cmd, "--format", "tsv", os.path.join(d, "s.tif"))
        rows = out.splitlines()
        ok = rc == 0 and rows[0].endswith("\tpage")
        for k in range(3):
            _, alone, _ = run(cmd, "--format", "tsv", os.path.join(d, f"p{k}.npy"))
            want = [r.split("\t")[1:-1] for r in alone.splitlines()[1:]]
            got = [r.split("\t")[1:-1] for r in rows[1:] if r.endswith(f"\t{k}")]
            ok = ok and want == got and len(got) > 0
        check(ok, f"{cmd}: the rows of page k = those of page k alone, page column")
    rc, out, _ = run("compare", os.path.join(d, "s.tif"), os.path.join(d, "dn.tif"))
    check(rc == 0 and len(out.splitlines()) == 3 and "s.tif[2] vs" in out,
          "compare: two stacks page by page")
    rc, out, _ = run("decompose", "--transform", "swt", "-l", 2, os.path.join(d, "s.tif"),
                     os.path.join(d, "swt.npz"))
    rc2, _, err = run("reconstruct", os.path.join(d, "swt.npz"), os.path.join(d, "swt.tif"))
    check(rc == 0 and rc2 == 0 and np.load(os.path.join(d, "swt.npz"))["cA"].shape == (3, 1, 33, 40)
          and np.array_equal(tifffile.imread(os.path.join(d, "swt.tif")), pages),
          f"--transform swt: (N, C, H, W) bands, reconstructed exactly ({err.strip()})")


def refusals(d):
    bad = os.path.join(CORPUS, "bad", "tiff")
    cases = {
        "stack_page3_other_size.tif": "page 3",
        "stack_page2_other_type.tif": "page 2",
        "stack_truncated_page4.tif": "page 4",
        "stack_ifd_loop_page3.tif": "page 4",
    }
    for name, page in cases.items():
        out = os.path.join(d, "refused.tif")
        rc, _, err = run("roundtrip", os.path.join(bad, name), "-o", out)
        check(rc == 1 and len(err.splitlines()) == 1 and name in err and page in err and
              not os.path.exists(out), f"{name}: one line naming {page}, no output ({err.strip()})")
    rc, _, err = run("decompose", os.path.join(d, "s.tif"), os.path.join(d, "m.png"))
    check(rc == 1 and "stack of 3 pages" in err and not os.path.exists(os.path.join(d, "m.png")),
          f"a stack into a .png: refused ({err.strip()})")
    rc, _, err = run("decompose", "--compress", os.path.join(d, "s.tif"), os.path.join(d, "c.npz"))
    check(rc == 1 and "--compress" in err, f"--compress of a stack: refused ({err.strip()})")


# A child's ru_maxrss starts from its parent's high-water mark at fork (Linux
# keeps it across exec): wavetool is started by a small Python without numpy.
RSS_HELPER = """import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)"""


def peak_rss_mib(*args):
    """Peak RSS (MiB) of wavetool ARGS."""
    out = subprocess.run([sys.executable, "-S", "-c", RSS_HELPER, WT, *map(str, args)],
                         capture_output=True, text=True).stdout.split()
    return int(out[0]), int(out[1]) / 1024.0


def bounded_memory(d):
    """Peak RSS of 200 pages of 512x512 16-bit (100 MiB of samples) ~ that of one page."""
    if "ASAN_OPTIONS" in os.environ or os.environ.get("WT_NO_ULIMIT"):
        print("skip peak RSS: a sanitizer build (its quarantine keeps freed pages)")
        return
    n = 200
    page = rand((512, 512), np.uint16)
    many = np.repeat(page[None], n, axis=0)
    tifffile.imwrite(os.path.join(d, "one.tif"), page, photometric="minisblack")
    tifffile.imwrite(os.path.join(d, "many.tif"), many, photometric="minisblack")
    np.save(os.path.join(d, "many.npy"), many)
    results = {}
    for name, extra in (("one.tif", []), ("many.tif", []), ("many.npy", ["--stack", "first"])):
        results[name] = peak_rss_mib("roundtrip", "-j", 1, *extra, os.path.join(d, name), "-o",
                                     os.path.join(d, "rt_" + name))
    one = results["one.tif"][1]
    for name in ("many.tif", "many.npy"):
        rc, rss = results[name]
        check(rc == 0 and rss < one + 32, f"roundtrip of {n} pages ({name}): peak RSS {rss:.0f} MiB, "
              f"one page {one:.0f} MiB (all pages: {many.nbytes >> 20} MiB)")
    # coefficients (200 MiB of float32 for all pages) written and read page by page
    for stem in ("one", "many"):
        results[stem + ".npz"] = peak_rss_mib("decompose", "-j", 1, os.path.join(d, stem + ".tif"),
                                              os.path.join(d, stem + ".npz"))
        results[stem + ".back"] = peak_rss_mib("reconstruct", "-j", 1, os.path.join(d, stem + ".npz"),
                                               os.path.join(d, stem + "_back.tif"))
    for what, key in (("decompose to .npz", ".npz"), ("reconstruct from .npz", ".back")):
        (rc1, rss1), (rc, rss) = results["one" + key], results["many" + key]
        check(rc1 == 0 and rc == 0 and rss < rss1 + 32,
              f"{what} of {n} pages: peak RSS {rss:.0f} MiB, one page {rss1:.0f} MiB")


def hostile_stack_npz(d):
    """A stack's .npz damaged in its last page: the CRC catches it, no output."""
    pages = rand((4, 16, 16), np.uint8)
    tifffile.imwrite(os.path.join(d, "h.tif"), pages, photometric="minisblack")
    run("decompose", "-l", 1, os.path.join(d, "h.tif"), os.path.join(d, "h.npz"))
    data = bytearray(open(os.path.join(d, "h.npz"), "rb").read())
    at = data.index(b"cA.npy") + len("cA.npy") + 128 + 3 * 8 * 8 * 4  # into page 3 of cA
    data[at + 5] ^= 0x40
    open(os.path.join(d, "h_bad.npz"), "wb").write(bytes(data))
    out = os.path.join(d, "h_bad.tif")
    rc, _, err = run("reconstruct", os.path.join(d, "h_bad.npz"), out)
    check(rc == 1 and "CRC" in err and "page 3" in err and not os.path.exists(out),
          f"a stack's .npz damaged in page 3: refused, no output ({err.strip()})")
    rc, _, err = run("reconstruct", "-", out, stdin_path=os.path.join(d, "h.npz"))
    check(rc == 1 and "from a file" in err, f"a stack's .npz from a pipe: refused ({err.strip()})")


def layers_per_page(d):
    """decompose --layers of a stack: one layer set per page (STEM_pK_BAND.png and
    STEM_pK_layers.txt, or float32 .tif layers with --depth f32); each sidecar
    reconstructs its page exactly."""
    pages = rand((3, 20, 27), np.uint8)
    src = os.path.join(d, "lay.tif")
    tifffile.imwrite(src, pages, photometric="minisblack")
    for opts, ext in (([], ".png"), (["--depth", "f32"], ".tif")):
        out = os.path.join(d, "layers" + ext)
        rc, _, err = run("decompose", "--transform", "starlet", "-l", 2, "--layers", *opts, src, out)
        check(rc == 0, f"--layers {opts} of a 3-page stack: exit {rc} ({err.strip()})")
        for k in range(3):
            side = os.path.join(d, f"layers_p{k}_layers.txt")
            band = os.path.join(d, f"layers_p{k}_w1{ext}")
            check(os.path.exists(side) and os.path.exists(band), f"--layers {opts}: page {k}'s set")
            back = os.path.join(d, f"back{k}.npy")
            rc, _, err = run("reconstruct", side, back)
            ok = rc == 0 and np.allclose(np.load(back), pages[k], atol=0.5 if opts else 0)
            check(ok, f"--layers {opts}: page {k} reconstructs from its sidecar ({err.strip()})")


with tempfile.TemporaryDirectory() as d:
    layers_per_page(d)
    tiff_stacks(d)
    npy_stacks(d)
    sample_types(d)
    pages_as_images(d)
    refusals(d)
    hostile_stack_npz(d)
    bounded_memory(d)
if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
print("all passed")
