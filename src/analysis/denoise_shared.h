/* Pieces of scikit-image's shrinkage shared by the image denoiser
 * (denoise.c) and the volume denoiser (denoise_volume.c); internal. */
#ifndef WT_DENOISE_SHARED_H
#define WT_DENOISE_SHARED_H

#include <stddef.h>

#include "wavetool.h"

/* The engine's own estimate (where noise_estimate.c's does not apply, the
 * SWT's and volumes'): coefficients closer than this to 0 (a fraction of
 * the data's full scale) count as zero, "nonzero" taken in exact
 * arithmetic. Float rounding leaves residues where exact arithmetic gives 0
 * (haar on integer samples: (a - b) - (c - d) with a - b = c - d), and which
 * of them come out exactly 0 depends on the engine's and float64's order of
 * operations; real coefficients of integer samples are far larger. */
#define ZERO_FRACTION (1.0 / 1048576.0)

/* BayesShrink: var / sqrt(max(mean(d^2) - var, eps)), in sample units. */
double denoise_bayes_threshold(const wt_band_stats *s, double sigma, double peak);
/* The factor of level @p level's thresholds (wt_denoise_options.level_scale). */
double denoise_level_factor(const wt_denoise_options *o, int level);
/* Anscombe's 2 sqrt(x + 3/8) and Makitalo and Foi's unbiased inverse. */
double denoise_anscombe(double x);
double denoise_anscombe_inverse(double y);
/* numpy's median of the |c| >= @p zero of @p n values (NaN when none);
 * @p scratch holds n doubles. */
double denoise_median_abs_above(const float *c, size_t n, double zero, double *scratch);
/* pywt.threshold: soft or hard at @p t. */
void denoise_shrink_band(float *c, size_t n, double t, int soft);
double denoise_band_mean_sq(const float *c, size_t n);

#endif
