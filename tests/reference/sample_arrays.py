"""Random arrays of each sample type, for the checks of the formats that hold
them (tiff_check.py, npy_check.py): generators(seed) -> rand, srand, frand.

rand(shape, dtype): unsigned integers over the type's whole range;
srand(shape, dtype, bits=None): signed integers over the type's range, or
within +-2^bits; frand(shape, dtype): floats, normal with sigma 1000."""
import numpy as np


def generators(seed):
    rng = np.random.default_rng(seed)

    def rand(shape, dtype):
        return rng.integers(0, np.iinfo(dtype).max + 1, shape, dtype=dtype)

    def srand(shape, dtype, bits=None):
        info = np.iinfo(dtype)
        lo, hi = (info.min, info.max) if bits is None else (-2**bits, 2**bits)
        return rng.integers(lo, hi, shape, dtype=dtype, endpoint=True)

    def frand(shape, dtype):
        return (rng.standard_normal(shape) * 1000.0).astype(dtype)

    return rand, srand, frand
