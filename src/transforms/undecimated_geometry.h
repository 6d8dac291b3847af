/* The geometry of the undecimated transforms, defined once for the CPU
 * engine (undecimated.c) and the CUDA engine (cuda/cu_swt.cu): at level j
 * (1-based) both filter every axis as
 *   out[o] = sum_k f[k] * in[border(o + shift - k * step)],  step = 2^(j-1)
 * SWT: the wavelet's filters, periodic border, analysis shift F*step/2
 * (pywt's swt_ alignment), synthesis shift (F-1)*step - F*step/2, so that
 * 1/2 (g0 * h0 + g1 * h1) is the identity on every length; norm=True
 * scales the analysis by 1/sqrt(2). Starlet: the B3 spline [1 4 6 4 1]/16,
 * centred (shift 2*step). Header-only, C, C++ and CUDA (WT_HD as in
 * dwt_geometry.h). */
#ifndef WT_UNDECIMATED_GEOMETRY_H
#define WT_UNDECIMATED_GEOMETRY_H

#include <math.h>

#include "dwt_geometry.h" /* WT_HD, WT_GEOM */

/* Longest filter of an undecimated transform (coif17: 102 taps). */
#define WT_UTAPS 128

/* Taps of the starlet's B3-spline kernel. */
#define WT_STARLET_TAPS 5

WT_GEOM void wt_starlet_kernel(double taps[WT_STARLET_TAPS])
{
    const double b3[WT_STARLET_TAPS] = {1.0 / 16, 4.0 / 16, 6.0 / 16, 4.0 / 16, 1.0 / 16};
    for (int k = 0; k < WT_STARLET_TAPS; k++)
        taps[k] = b3[k];
}

/* Spacing of the taps at level @p j (1-based). */
WT_GEOM long long wt_utap_step(int j)
{
    return 1ll << (j - 1);
}

/* Shift of the starlet's kernel at spacing @p step. */
WT_GEOM long long wt_starlet_shift(long long step)
{
    return 2 * step;
}

/* Shift of an SWT filter of @p F taps at spacing @p step: analysis, or
 * (@p inverse) synthesis. */
WT_GEOM long long wt_swt_shift(long long F, long long step, int inverse)
{
    return inverse ? (F - 1) * step - F * step / 2 : F * step / 2;
}

/* Gain of the SWT's filters: analysis 1 (1/sqrt(2) with @p norm), synthesis
 * 1 / (2 * the analysis gain). */
WT_GEOM double wt_swt_gain(int norm, int inverse)
{
    const double a = norm ? 1.0 / sqrt(2.0) : 1.0;
    return inverse ? 1.0 / (2.0 * a) : a;
}

#endif
