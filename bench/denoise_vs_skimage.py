#!/usr/bin/python3
"""wavetool denoise against scikit-image's denoise_wavelet, side by side in one run.

A 1920x1080 RGB 8-bit image (data/astronaut.png resized, Gaussian noise of
sigma 20) is denoised with the defaults (BayesShrink, soft, db1, default levels):
  - scikit-image 0.19.3: denoise_wavelet(img, channel_axis=-1, rescale_sigma=True)
    on the array in memory (no file I/O), then img_as_ubyte;
  - wavetool's wt_denoise_image on the CPU engine, the image in memory
    (BUILD/bench/denoise_speed: no file I/O either);
  - wavetool denoise --device cpu IN.png OUT.png, the whole command (PNG decode,
    denoise, PNG encode at --png-level 1), for scale.
Each is run REPEAT times, interleaved; medians are reported, with the ratios.
Usage: bench/denoise_vs_skimage.py BUILD_DIR [REPEAT]
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
build = sys.argv[1]
wavetool = os.path.join(build, "cli", "wavetool")
speed = os.path.join(build, "bench", "denoise_speed")
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 5
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
clean = np.asarray(Image.open(os.path.join(root, "data", "astronaut.png")).resize((1920, 1080)))
rng = np.random.default_rng(1)
noisy = np.clip(np.rint(clean + 20 * rng.standard_normal(clean.shape)), 0, 255).astype(np.uint8)
tmp = tempfile.mkdtemp()
src, dst = os.path.join(tmp, "noisy.png"), os.path.join(tmp, "out.png")
Image.fromarray(noisy).save(src)


t_sk, c_sk, t_lib, c_lib, t_cmd = [], [], [], [], []
for _ in range(repeat):  # interleaved, so a busy machine slows both alike
    t0, c0 = time.perf_counter(), time.process_time()
    img_as_ubyte(denoise_wavelet(noisy, channel_axis=-1, rescale_sigma=True))
    t_sk.append(time.perf_counter() - t0)
    c_sk.append(time.process_time() - c0)
    wall, cpu = subprocess.run([speed, src, "3"], check=True, capture_output=True,
                               text=True).stdout.split()
    t_lib.append(float(wall) / 1000)
    c_lib.append(float(cpu) / 1000)
    t0 = time.perf_counter()
    subprocess.run([wavetool, "denoise", "--device", "cpu", src, dst], check=True)
    t_cmd.append(time.perf_counter() - t0)
t_sk, c_sk, t_lib, c_lib, t_cmd = (sorted(t)[len(t) // 2] for t in (t_sk, c_sk, t_lib, c_lib, t_cmd))
ref = img_as_ubyte(denoise_wavelet(noisy, channel_axis=-1, rescale_sigma=True)).astype(int)
got = np.asarray(Image.open(dst)).astype(int)
print(f"1920x1080 RGB 8-bit, defaults, median of {repeat}, {os.cpu_count()} cores")
print(f"load average before: {os.getloadavg()[0]:.1f}")
print(f"scikit-image {skimage.__version__} denoise_wavelet (in memory): {t_sk * 1000:.0f} ms "
      f"wall, {c_sk * 1000:.0f} ms CPU")
print(f"wavetool wt_denoise_image, CPU engine (in memory): {t_lib * 1000:.0f} ms wall "
      f"({t_sk / t_lib:.1f}x faster), {c_lib * 1000:.0f} ms CPU ({c_sk / c_lib:.1f}x less)")
print(f"wavetool denoise --device cpu (PNG in and out):   {t_cmd * 1000:.0f} ms "
      f"({t_sk / t_cmd:.1f}x)")
print(f"samples equal to scikit-image: {(ref == got).mean():.5%}, max {np.abs(ref - got).max()} LSB")
