#!/usr/bin/python3
"""Metadata kept on images of the input (denoise, roundtrip -o) as Pillow and
tifffile read it back: Exif (orientation, make), the ICC profile and the
resolution of JPEG, PNG and TIFF inputs, written to JPEG, PNG (pHYs, iCCP,
eXIf) and TIFF (resolution, ICC); each page of a TIFF stack with its own;
stored in coefficient files by decompose (meta keys, members icc_profile and
exif) and put back by reconstruct; XMP (PNG iTXt, JPEG APP1, TIFF tag 700)
across formats and in coefficient files (member xmp); PNG text chunks PNG to
PNG; the description (TIFF ImageDescription, PNG tEXt Description, JPEG COM)
across formats; hostile text chunks left out; --strip writes none; mosaics
carry none; -v names what an output format cannot hold.

Usage: metadata_check.py WAVETOOL. Exit 77 without numpy, Pillow or tifffile.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

try:
    import numpy as np
    import tifffile
    from PIL import Image, ImageCms, PngImagePlugin
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
    tifffile.imwrite(path("in.tif"), np.asarray(img), photometric="rgb", metadata=None,
                     resolution=(300, 300), resolutionunit="INCH",
                     extratags=[(34675, 7, len(icc), icc, True)])
    return icc


# A gray stack whose pages have their own resolution (unit, x, y).
PAGE_RES = [(2, 100, 100), (2, 200, 150), (3, 50, 50)]


def stack_input():
    rng = np.random.default_rng(5)
    with tifffile.TiffWriter(path("stack.tif")) as t:
        for unit, x, y in PAGE_RES:
            page = np.clip(100 + rng.normal(0, 15, (24, 30)), 0, 255).astype(np.uint8)
            t.write(page, metadata=None, contiguous=False, resolution=(x, y),
                    resolutionunit=unit)


def page_res(page):
    """(unit, x, y) of a page's resolution tags, or None."""
    tags = page.tags
    if "XResolution" not in tags:
        return None
    x, y = (tags[t].value[0] / tags[t].value[1] for t in ("XResolution", "YResolution"))
    return (int(tags["ResolutionUnit"].value), round(x), round(y))


def stack_kept(out, strip):
    with tifffile.TiffFile(out) as t:
        got = [page_res(p) for p in t.pages]
    want = [None] * len(PAGE_RES) if strip else PAGE_RES
    check(got == want, f"stack -> {os.path.basename(out)}{' --strip' if strip else ''}: "
                       f"page resolutions {got}, expected {want}")


def kept(src, out, icc, what):  # TIFF inputs and outputs carry no Exif
    o = Image.open(out)
    exif = o.getexif()
    dpi = o.info.get("dpi") or (0, 0)
    check(abs(dpi[0] - 300) < 0.5 and abs(dpi[1] - 300) < 0.5, f"{what}: dpi {dpi}")
    check(o.info.get("icc_profile") == icc, f"{what}: ICC profile lost")
    if not out.endswith(".tif") and not src.endswith(".tif"):
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
stack_input()
for src in ("in.jpg", "in.png", "in.tif"):
    for ext in ("jpg", "png", "tif"):
        out = path("out." + ext)
        for cmd in (["denoise", path(src), out], ["roundtrip", path(src), "-o", out]):
            what = f"{cmd[0]} {src} -> .{ext}"
            if run(*cmd):
                kept(src, out, icc, what)
            if run(*cmd, "--strip"):
                stripped(out, what + " --strip")
for cmd in (["denoise", path("stack.tif"), path("stack_out.tif")],
            ["roundtrip", path("stack.tif"), "-o", path("stack_out.tif")]):
    for strip in (False, True):
        if run(*cmd, *(["--strip"] if strip else [])):
            stack_kept(path("stack_out.tif"), strip)


def coeffs_stored(npz, src, icc, strip, what):
    """The input's metadata in a coefficient file as numpy reads it."""
    z = np.load(npz)
    meta = json.loads(bytes(z["meta"]).decode())
    if strip:
        check("resolution_unit" not in meta and "icc_profile" not in z and "exif" not in z,
              f"{what}: metadata stored: {sorted(z.files)} {meta}")
        return
    check(meta.get("resolution_unit") == "inch" and
          abs(meta.get("x_resolution", 0) - 300) < 0.5 and
          abs(meta.get("y_resolution", 0) - 300) < 0.5, f"{what}: resolution in meta {meta}")
    check("icc_profile" in z and z["icc_profile"].tobytes() == icc, f"{what}: ICC profile")
    if not src.endswith(".tif"):
        check("exif" in z and z["exif"].tobytes()[:4] in (b"II*\0", b"MM\0*"),
              f"{what}: Exif member")


for src in ("in.jpg", "in.tif"):
    for transform in ("dwt", "swt"):
        npz = path(f"c_{transform}.npz")
        for strip in (True, False):  # the file of the last one reconstructed
            flag = ["--strip"] if strip else []
            what = f"decompose --transform {transform} {src}{' --strip' if strip else ''}"
            if run("decompose", "--transform", transform, path(src), npz, *flag):
                coeffs_stored(npz, src, icc, strip, what)
        for ext in ("jpg", "png", "tif"):
            out = path("rec." + ext)
            what = f"reconstruct ({src}, {transform}) -> .{ext}"
            if run("reconstruct", npz, out):
                kept(src, out, icc, what)
            if run("reconstruct", npz, out, "--strip"):
                stripped(out, what + " --strip")


XMP = (b'<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
       b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>'
       b'<?xpacket end="w"?>')
DESCRIPTION = "A test scene"
TEXTS = {"Comment": "plain tEXt", "Software": "deflated zTXt", "Title": "iTXt \u00fcn\u00efcode"}


def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def with_chunks(png, chunks):
    """The PNG bytes @png with raw chunks inserted after IHDR."""
    return png[:33] + b"".join(png_chunk(k, b) for k, b in chunks) + png[33:]


def text_inputs():
    img = Image.fromarray(np.full((24, 30, 3), 90, np.uint8))
    info = PngImagePlugin.PngInfo()
    info.add_itxt("XML:com.adobe.xmp", XMP.decode(), zip=True)
    info.add_text("Description", DESCRIPTION)
    info.add_text("Comment", TEXTS["Comment"])
    info.add_text("Software", TEXTS["Software"], zip=True)
    info.add_itxt("Title", TEXTS["Title"], lang="en", zip=True)
    img.save(path("t.png"), pnginfo=info)
    img.save(path("t.jpg"), comment=DESCRIPTION)
    jpg = open(path("t.jpg"), "rb").read()
    app1 = b"http://ns.adobe.com/xap/1.0/\0" + XMP
    with open(path("t.jpg"), "wb") as f:
        f.write(jpg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpg[2:])
    tifffile.imwrite(path("t.tif"), np.asarray(img), photometric="rgb", metadata=None,
                     description=DESCRIPTION, extratags=[(700, 1, len(XMP), XMP, True)])
    hostile = [(b"zTXt", b"Bomb\0\0" + zlib.compress(b"a" * (8 << 20))),  # over 1 MiB
               (b"zTXt", b"Broken\0\0not zlib"),
               (b"iTXt", b"Cut\0\0\0en"),  # no translated keyword, no text
               (b"tEXt", b"\0no keyword"),
               (b"iTXt", b"XML:com.adobe.xmp\0\1\0\0\0" + zlib.compress(b"x" * (32 << 20))),
               (b"tEXt", b"Comment\0" + TEXTS["Comment"].encode())]
    with open(path("hostile.png"), "wb") as f:
        f.write(with_chunks(open(path("in.png"), "rb").read(), hostile))


def jpeg_xmp(data):
    """The XMP packet of a JPEG's APP1 markers, or None."""
    at = 2
    while at + 4 <= len(data) and data[at] == 0xFF and data[at + 1] not in (0xDA, 0xD9):
        n = struct.unpack(">H", data[at + 2:at + 4])[0]
        body = data[at + 4:at + 2 + n]
        if data[at + 1] == 0xE1 and body.startswith(b"http://ns.adobe.com/xap/1.0/\0"):
            return body[29:]
        at += 2 + n
    return None


def text_meta(out):
    """(XMP, description, other PNG texts) of an output file."""
    if out.endswith(".png"):
        t = dict(Image.open(out).text)
        xmp = t.pop("XML:com.adobe.xmp", None)
        return xmp.encode() if xmp else None, t.pop("Description", None), t
    if out.endswith(".jpg"):
        comment = Image.open(out).info.get("comment")
        return jpeg_xmp(open(out, "rb").read()), comment.decode() if comment else None, {}
    with tifffile.TiffFile(out) as t:
        tags = t.pages[0].tags
        xmp = tags.get(700)
        desc = tags.get("ImageDescription")
        return (bytes(xmp.value) if xmp else None, desc.value if desc else None, {})


text_inputs()
for src in ("t.png", "t.jpg", "t.tif"):
    for ext in ("png", "jpg", "tif"):
        out = path("tout." + ext)
        what = f"denoise {src} -> .{ext}"
        if run("denoise", path(src), out):
            xmp, desc, texts = text_meta(out)
            check(xmp == XMP, f"{what}: XMP {xmp!r}")
            check(desc == DESCRIPTION, f"{what}: description {desc!r}")
            if src.endswith(".png") and ext == "png":
                check(texts == TEXTS, f"{what}: texts {texts}")
        if run("denoise", path(src), out, "--strip"):
            got = text_meta(out)
            check(got == (None, None, {}), f"{what} --strip: left {got}")
tifffile.imwrite(path("shaped.tif"), np.full((24, 30), 7, np.uint8))  # {"shape": ...}
if run("denoise", path("shaped.tif"), path("shaped.png")):
    check(text_meta(path("shaped.png"))[1] is None, "tifffile's layout description kept")
if run("denoise", path("hostile.png"), path("hostile_out.png")):
    got = text_meta(path("hostile_out.png"))
    check(got == (None, None, {"Comment": TEXTS["Comment"]}), f"hostile PNG text: kept {got}")
for strip in (True, False):
    if run("decompose", path("t.jpg"), path("t.npz"), *(["--strip"] if strip else [])):
        z = np.load(path("t.npz"))
        stored = z["xmp"].tobytes() if "xmp" in z else None
        check(stored == (None if strip else XMP), f"decompose t.jpg: member xmp {stored!r}")
if run("reconstruct", path("t.npz"), path("t_rec.png")):
    check(text_meta(path("t_rec.png"))[0] == XMP, "reconstruct: XMP not restored")


def said(args, expected):
    """-v's line on metadata an output format cannot hold: the parts named, or none."""
    p = subprocess.run([WT, *args, "-v"], capture_output=True, text=True)
    lines = [l for l in p.stderr.splitlines() if "of the input: left out" in l]
    if expected:
        ok = len(lines) == 1 and expected in lines[0]
    else:
        ok = not lines
    check(p.returncode == 0 and ok, f"wavetool {' '.join(args)} -v: expected {expected!r}, said {lines}")


said(["roundtrip", path("in.jpg"), "-o", path("v.npy")],
     "NPY holds no resolution, ICC profile, Exif of the input")
said(["denoise", path("in.png"), path("v.tif")], "TIFF holds no Exif of the input")
said(["denoise", path("in.png"), path("v.tif"), "--strip"], None)
said(["denoise", path("in.tif"), path("v.png")], None)
said(["denoise", path("t.png"), path("v.jpg")], "JPEG holds no PNG text of the input")
said(["denoise", path("t.png"), path("v.npy")], "NPY holds no XMP, PNG text, description of the input")
said(["denoise", path("t.tif"), path("v.png")], None)
said(["reconstruct", path("c_swt.npz"), path("v.pgm")],  # of in.tif
     "Netpbm holds no resolution, ICC profile of the input")
if run("decompose", path("in.jpg"), path("mosaic.png")):
    stripped(path("mosaic.png"), "decompose mosaic")
print(f"metadata_check: {checks} checks, {failures} failed")
sys.exit(1 if failures else 0)
