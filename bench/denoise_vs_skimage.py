#!/usr/bin/python3
"""wavetool denoise against scikit-image's denoise_wavelet, side by side in one run.

A 1920x1080 RGB 8-bit image (data/astronaut.png resized, Gaussian noise of
sigma 20) is denoised with the defaults (BayesShrink, soft, db1, default levels):
  - scikit-image 0.19.3: denoise_wavelet(img, channel_axis=-1, rescale_sigma=True)
    on the array in memory (no file I/O), then img_as_ubyte;
  - wavetool denoise --device cpu IN.png OUT.png, the whole command (PNG decode,
    denoise, PNG encode at --png-level 1).
Each is run REPEAT times; the median is reported, with the ratio.
Usage: bench/denoise_vs_skimage.py WAVETOOL [REPEAT]
"""
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import skimage
from PIL import Image
from skimage import img_as_ubyte
from skimage.restoration import denoise_wavelet

warnings.simplefilter("ignore")
wavetool = sys.argv[1]
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 5
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
clean = np.asarray(Image.open(os.path.join(root, "data", "astronaut.png")).resize((1920, 1080)))
rng = np.random.default_rng(1)
noisy = np.clip(np.rint(clean + 20 * rng.standard_normal(clean.shape)), 0, 255).astype(np.uint8)
tmp = tempfile.mkdtemp()
src, dst = os.path.join(tmp, "noisy.png"), os.path.join(tmp, "out.png")
Image.fromarray(noisy).save(src)


def median_time(fn):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


t_sk = median_time(lambda: img_as_ubyte(denoise_wavelet(noisy, channel_axis=-1, rescale_sigma=True)))
t_wt = median_time(lambda: subprocess.run([wavetool, "denoise", "--device", "cpu", src, dst], check=True))
ref = img_as_ubyte(denoise_wavelet(noisy, channel_axis=-1, rescale_sigma=True)).astype(int)
got = np.asarray(Image.open(dst)).astype(int)
print(f"1920x1080 RGB 8-bit, defaults, median of {repeat}, {os.cpu_count()} cores")
print(f"scikit-image {skimage.__version__} denoise_wavelet (in memory): {t_sk * 1000:.0f} ms")
print(f"wavetool denoise --device cpu (PNG in and out):   {t_wt * 1000:.0f} ms")
print(f"speed-up: {t_sk / t_wt:.1f}x; samples equal: {(ref == got).mean():.5%}, "
      f"max {np.abs(ref - got).max()} LSB")
