#!/usr/bin/python3
"""Metadata kept on images of the input (denoise, roundtrip -o) as Pillow reads
it back: Exif (orientation, make), the ICC profile and the resolution of JPEG
and PNG inputs, written to JPEG, PNG (pHYs, iCCP, eXIf) and TIFF (resolution,
ICC); --strip writes none; mosaics carry none.

Usage: metadata_check.py WAVETOOL. Exit 77 without numpy or Pillow.
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from PIL import Image, ImageCms
except ImportError as e:
    print(f"metadata_check: {e}: skipping")
    sys.exit(77)

WT = sys.argv[1]
TMP = tempfile.mkdtemp(prefix="metadata_check.")
failures = checks = 0


def check(ok, what):
    global failures, checks
    checks += 1
    if not ok:
        failures += 1
        print("FAIL:", what)


def path(name):
    return os.path.join(TMP, name)


def inputs():
    rng = np.random.default_rng(4)
    img = Image.fromarray(np.clip(120 + rng.normal(0, 20, (40, 50, 3)), 0, 255).astype(np.uint8))
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: rotate 90
    exif[0x010F] = "TestMake"
    img.save(path("in.jpg"), quality=95, exif=exif.tobytes(), icc_profile=icc, dpi=(300, 300))
    img.save(path("in.png"), exif=exif.tobytes(), icc_profile=icc, dpi=(300, 300))
    return icc


def kept(out, icc, what):
    o = Image.open(out)
    exif = o.getexif()
    dpi = o.info.get("dpi") or (0, 0)
    check(abs(dpi[0] - 300) < 0.5 and abs(dpi[1] - 300) < 0.5, f"{what}: dpi {dpi}")
    check(o.info.get("icc_profile") == icc, f"{what}: ICC profile lost")
    if not out.endswith(".tif"):  # TIFF outputs carry no Exif
        check(exif.get(0x0112) == 6 and exif.get(0x010F) == "TestMake",
              f"{what}: Exif {dict(exif)}")


def stripped(out, what):
    o = Image.open(out)
    check(not o.info.get("icc_profile") and not o.getexif().get(0x0112) and
          o.info.get("dpi") in (None, (1, 1)), f"{what}: metadata left: {o.info}")


def run(*args):
    p = subprocess.run([WT, *args], capture_output=True, text=True)
    check(p.returncode == 0, f"wavetool {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p.returncode == 0


icc = inputs()
for src in ("in.jpg", "in.png"):
    for ext in ("jpg", "png", "tif"):
        out = path("out." + ext)
        for cmd in (["denoise", path(src), out], ["roundtrip", path(src), "-o", out]):
            what = f"{cmd[0]} {src} -> .{ext}"
            if run(*cmd):
                kept(out, icc, what)
            if run(*cmd, "--strip"):
                stripped(out, what + " --strip")
if run("decompose", path("in.jpg"), path("mosaic.png")):
    stripped(path("mosaic.png"), "decompose mosaic")
print(f"metadata_check: {checks} checks, {failures} failed")
sys.exit(1 if failures else 0)
