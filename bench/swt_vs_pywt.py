#!/usr/bin/python3
"""CPU engine SWT vs pywt.swt2 + pywt.iswt2, side by side in one run.

usage: /usr/bin/python3 bench/swt_vs_pywt.py build/bench/swt-speed [SIZE] [WAVELET] [LEVELS]
(default 2048 db2 3). Prints the median of 3 runs of each, in milliseconds,
and the ratio; both on the same input size, float32 on wavetool's side,
float64 on pywt's (its natural type for float input; float32 input is no
faster in pywt 1.1.1).
"""
import os
import platform
import subprocess
import sys
import time

import numpy as np
import pywt


def median_ms(fn, runs=3):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return sorted(times)[len(times) // 2]


def main():
    exe = sys.argv[1]
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 2048
    wav = sys.argv[3] if len(sys.argv) > 3 else "db2"
    levels = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    x = np.random.default_rng(1).uniform(0, 255, (size, size)).astype(np.float32)
    state = {}
    fwd = median_ms(lambda: state.update(c=pywt.swt2(x, wav, level=levels, trim_approx=True)))
    inv = median_ms(lambda: pywt.iswt2(state["c"], wav))
    out = subprocess.run([exe, "swt", wav, str(levels), str(size), str(size), "5"],
                         capture_output=True, text=True, check=True).stdout.split()
    wf, wi = float(out[0]), float(out[1])
    print("machine: %s, %d cores; %s" % (platform.processor() or platform.machine(),
                                         os.cpu_count(), time.strftime("%Y-%m-%d")))
    print("SWT %s %d levels, %dx%d" % (wav, levels, size, size))
    print("%-22s %10s %10s %10s" % ("", "forward", "inverse", "total"))
    print("%-22s %10.1f %10.1f %10.1f ms" % ("pywt swt2 / iswt2", fwd, inv, fwd + inv))
    print("%-22s %10.1f %10.1f %10.1f ms" % ("wavetool (cpu engine)", wf, wi, wf + wi))
    print("speed-up: %.1fx" % ((fwd + inv) / (wf + wi)))


if __name__ == "__main__":
    main()
