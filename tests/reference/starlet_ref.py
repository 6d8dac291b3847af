"""The starlet reference the Python checks share (tests/swt_check.py,
tests/stats_check.py): B3-spline a trous with scipy.ndimage.convolve1d.
Import it after numpy and scipy are known to be there (the checks skip
without them)."""
import numpy as np
import scipy.ndimage as ndi

SCIPY_MODE = {"mirror": "mirror", "periodic": "wrap", "nearest": "nearest"}


def starlet_planes(x, levels, border="mirror", axes=(-1, -2)):
    """[c_L, w1, .., wL] of x, in float64, at wavetool's --border, the kernel
    along each of @p axes (an image's x and y; a volume's any)."""
    mode = SCIPY_MODE[border]
    c = x.astype(np.float64)
    ws = []
    for j in range(1, levels + 1):
        step = 1 << (j - 1)
        k = np.zeros(4 * step + 1)
        k[::step] = np.array([1, 4, 6, 4, 1]) / 16
        s = c
        for axis in axes:
            s = ndi.convolve1d(s, k, axis=axis, mode=mode)
        ws.append(c - s)
        c = s
    return [c] + ws
