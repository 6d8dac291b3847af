"""Peak memory of the CPU engine on a 16-bit image (tools/measure_memory.sh at
a size CI runs in seconds): decompose to .npz and roundtrip --psnr of a
4096x4096 gray TIFF (32 MiB decoded), each one's peak RSS less that of
`wavetool --version`, in units of the decoded image. The transform in one
buffer takes about 3.1 and 3.7 here (the image is below 256 MB, in the heap,
where growing it may copy it; 2.5 and 3.5 from there up); the composed path
took 8 and 9. Fails above 4 and 5. The roundtrip again with the input read
again for the PSNR (WT_ROUNDTRIP_REREAD_BYTES=0, as for images of 64 MiB and
more): 2.9 here, 2.5 from 256 MB up; fails above 3.2 (holding the input
takes 3.5-3.7). Standard library only.

    peak_memory.py WAVETOOL MAKE_BIG_TIFF
"""
import os
import shutil
import sys
import tempfile

SIDE = 4096
LIMITS = {"decompose": 4.0, "roundtrip": 5.0, "roundtrip-reread": 3.2}


def peak_kib(argv, env=None):
    """(exit status, peak RSS in KiB) of a command run in a child of its own."""
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execve(argv[0], argv, dict(os.environ, **(env or {})))
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), usage.ru_maxrss


def main():
    wavetool, maker = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="wt-peak-")
    try:
        tif = os.path.join(work, "big.tif")
        rc, _ = peak_kib([maker, tif, str(SIDE), str(SIDE)])
        if rc != 0:
            print("make-big-tiff failed")
            return 1
        _, base = peak_kib([wavetool, "--version"])
        decoded_kib = SIDE * SIDE * 2 / 1024
        commands = {
            "decompose": [wavetool, "decompose", "--device", "cpu", "-q", tif,
                          os.path.join(work, "c.npz")],
            "roundtrip": [wavetool, "roundtrip", "--device", "cpu", "--psnr", tif],
            "roundtrip-reread": [wavetool, "roundtrip", "--device", "cpu", "--psnr", tif],
        }
        envs = {"roundtrip-reread": {"WT_ROUNDTRIP_REREAD_BYTES": "0"}}
        failed = 0
        for name, argv in commands.items():
            rc, kib = peak_kib(argv, envs.get(name))
            ratio = (kib - base) / decoded_kib
            ok = rc == 0 and ratio <= LIMITS[name]
            print(f"{'ok' if ok else 'FAIL'} {name}: exit {rc}, peak {kib // 1024} MiB, "
                  f"{ratio:.2f}x the decoded image above the program's own (limit {LIMITS[name]})")
            failed += not ok
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
