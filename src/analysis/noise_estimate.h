/* scikit-image's noise estimate, bit for bit: the finest diagonal band of
 * pywt.dwtn in float64, in PyWavelets' order of operations, and
 * median(|nonzero|) / Phi^-1(0.75) (src/analysis/noise_estimate.c). */
#ifndef WT_NOISE_ESTIMATE_H
#define WT_NOISE_ESTIMATE_H
#include "wavetool.h"

/* scipy.stats.norm.ppf(0.75) */
#define NORM_PPF_075 0.6744897501960817

/* 1 when the estimate below reproduces PyWavelets for @p wavelet and @p mode
 * (PyWavelets' own wavelets, mode symmetric). */
int wt_noise_exact(const wt_wavelet *wavelet, wt_mode mode);

/* _sigma_est_dwt(pywt.dwtn(x, wavelet)['dd']) of one h x w float64 plane:
 * NaN when the band has no nonzero coefficient. */
wt_status wt_noise_sigma_plane(const double *x, size_t h, size_t w, const wt_wavelet *wavelet,
                               double *sigma);

/* _sigma_est_dwt(pywt.dwtn(x, wavelet)['ddd']) of a d x h x w float64
 * volume (@p shape: z, y, x). */
wt_status wt_noise_sigma_volume(const double *x, const size_t shape[3],
                                const wt_wavelet *wavelet, double *sigma);

/* The same of each channel of @p img rolled by (dy, dx) (np.roll on both
 * axes) with its samples multiplied by @p scale (img_as_float: 1 / peak;
 * estimate_sigma: 1), one thread per channel. */
wt_status wt_noise_sigma_image(const wt_image *img, size_t dy, size_t dx, double scale,
                               const wt_wavelet *wavelet, double *sigma);

#endif
