#!/usr/bin/python3
"""Per core: wavetool's CPU engine against pywt.wavedec2 on the same call
(4096x4096 float32, db3, 3 levels, periodization, forward), both pinned to one
core in one run, rounds interleaved so that both see the same load; the
engine's vectorised kernels and its reference C kernels (WT_CPU_SCALAR=1).
Times are processor time (time.process_time, clock()), which other processes
sharing the core do not inflate as they do the wall clock; wall-clock medians
follow for comparison. Prints the median of the rounds' medians and the ratios.

Usage: bench/cpu_per_core.py BUILD_DIR [SIZE] [WAVELET] [MODE] [ROUNDS]
"""
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import pywt

build = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
wavelet = sys.argv[3] if len(sys.argv) > 3 else "db3"
mode = sys.argv[4] if len(sys.argv) > 4 else "periodization"
rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 5
core = max(os.sched_getaffinity(0))
os.sched_setaffinity(0, {core})  # this process and the engine's, one thread
runs = 3
x = (np.arange(n * n) % 256).astype(np.float32).reshape(n, n)


def pywt_ms(clock):
    timer = time.process_time if clock == "cpu" else time.perf_counter
    times = []
    for _ in range(runs):
        t = timer()
        pywt.wavedec2(x, wavelet, mode=mode, level=3)
        times.append((timer() - t) * 1e3)
    return statistics.median(times)


def wavetool_ms(scalar, clock):
    env = dict(os.environ, WT_CPU_SCALAR="1" if scalar else "0")
    out = subprocess.run([f"{build}/bench/cpu_speed", wavelet, mode, "auto", "3", str(n), str(n),
                          str(runs), clock], capture_output=True, text=True, env=env, check=True)
    return float(out.stdout)


print(f"{n}x{n} float32 {wavelet} {mode} L3 forward, core {core}, median of {rounds} rounds "
      f"of {runs} runs:")
for clock in ("cpu", "wall"):
    results = {"pywt": [], "vectorised": [], "reference": []}
    for _ in range(rounds):
        results["pywt"].append(pywt_ms(clock))
        results["vectorised"].append(wavetool_ms(False, clock))
        results["reference"].append(wavetool_ms(True, clock))
    med = {k: statistics.median(v) for k, v in results.items()}
    print(f"  {clock} time: pywt.wavedec2 {med['pywt']:.1f} ms", end="")
    for k in ("vectorised", "reference"):
        print(f"; wavetool {k} kernels {med[k]:.1f} ms, {med['pywt'] / med[k]:.1f}x", end="")
    print()
