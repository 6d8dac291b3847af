#!/usr/bin/python3
"""Side-by-side speed of wavetool's CPU engine and pywt.wavedec2 (same call:
4096x4096 float32, db3, 3 levels, symmetric, forward), median of runs.

Usage: bench/cpu_vs_pywt.py BUILD_DIR [SIZE] [WAVELET]
"""
import subprocess
import sys
import time

import numpy as np
import pywt

build = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
wavelet = sys.argv[3] if len(sys.argv) > 3 else "db3"
runs = 5
x = (np.arange(n * n) % 256).astype(np.float32).reshape(n, n)
times = []
for _ in range(runs):
    t = time.perf_counter()
    pywt.wavedec2(x, wavelet, mode="symmetric", level=3)
    times.append((time.perf_counter() - t) * 1e3)
py_ms = sorted(times)[runs // 2]
for method in ("conv", "lifting"):
    out = subprocess.run([f"{build}/bench/cpu_speed", wavelet, "symmetric", method, "3", str(n),
                          str(n), str(runs)], capture_output=True, text=True)
    if out.returncode != 0:
        print(f"{method}: {out.stderr.strip()}")
        continue
    wt_ms = float(out.stdout)
    print(f"{n}x{n} {wavelet} L3 symmetric forward: pywt {py_ms:.1f} ms, wavetool cpu {method} "
          f"{wt_ms:.1f} ms: {py_ms / wt_ms:.1f}x faster")
