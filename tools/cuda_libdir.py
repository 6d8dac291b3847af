#!/usr/bin/env python3
"""Print the directory holding the CUDA runtime (libcudart.so) that NVCC links.

nvcc is often reached through a wrapper or a symlink (/usr/local/bin/nvcc
exec'ing /usr/local/cuda-13.0/bin/nvcc), so the toolkit is not always beside
the nvcc found on PATH. `nvcc --dryrun` names the -L directories it would
link with; the first that holds libcudart.so is the answer. Prints nothing
when there is none (the .pc then names -lcudart alone).
"""
import os
import shlex
import subprocess
import sys


def library_dirs(nvcc):
    out = subprocess.run([nvcc, '--dryrun', '-o', 'a.out', 'probe.cu'],
                         capture_output=True, text=True, check=False)
    for line in (out.stderr + out.stdout).splitlines():
        if line.startswith('#$ LIBRARIES='):
            for word in shlex.split(line[len('#$ LIBRARIES='):]):
                if word.startswith('-L'):
                    yield word[2:]


def main():
    for d in library_dirs(sys.argv[1]):
        if not d.rstrip('/').endswith('/stubs') and os.path.exists(os.path.join(d, 'libcudart.so')):
            print(os.path.realpath(d))
            return


main()
