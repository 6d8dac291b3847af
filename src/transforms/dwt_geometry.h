/* The geometry of the 1D transforms, defined once for the CPU reference
 * (dwt_line.c), the CUDA plan (cuda/cu_plan.cu) and the CUDA kernels
 * (cuda/cu_kernels.cuh, cuda/cu_fast.cuh): how positions outside a signal
 * fold back into it, which extension each kind of wavelet uses, where a
 * transform starts, how far lifting steps reach and how the polyphase
 * components line up, and the integer 5/3 step. Header-only, usable from C,
 * C++ and CUDA device code (WT_HD is empty outside nvcc).
 *
 * Positions and lengths are int: signal lengths stay below 2^30 (the CUDA
 * engine refuses longer axes; images are far smaller). */
#ifndef WT_DWT_GEOMETRY_H
#define WT_DWT_GEOMETRY_H

#include <stdint.h>

#include "wavetool.h"

#ifndef WT_HD
#ifdef __CUDACC__
#define WT_HD __host__ __device__
#else
#define WT_HD
#endif
#endif

#define WT_GEOM static inline WT_HD
#ifdef __cplusplus
#define WT_GEOM_CONSTEXPR static inline constexpr WT_HD
#else
#define WT_GEOM_CONSTEXPR WT_GEOM
#endif

/* i modulo n in [0, n) for any sign of i (n > 0). */
WT_GEOM int wt_floor_mod(int i, int n)
{
    int r = i % n;
    return r < 0 ? r + n : r;
}

/* Index of the sample that extension position i (any integer) mirrors or
 * wraps to, for the modes defined by folding (symmetric, reflect, periodic,
 * antisymmetric, periodization, and zero/constant/smooth/antireflect by
 * clamping to the nearest edge); *sign is -1 where antisymmetric flips the
 * sample. n is the signal length (for periodization: the padded, even
 * length). */
WT_GEOM int wt_fold_index(int i, int n, int mode, int *sign)
{
    *sign = 1;
    if (i >= 0 && i < n)
        return i;
    switch (mode) {
    case WT_MODE_PERIODIC:
    case WT_MODE_PERIODIZATION:
        return wt_floor_mod(i, n);
    case WT_MODE_SYMMETRIC:
    case WT_MODE_ANTISYMMETRIC: {
        int period = 2 * n, r = wt_floor_mod(i, period);
        if (r >= n)
            r = period - 1 - r;
        /* each mirror flips the sign; i in [-n, 0) is one mirror away */
        int k = i < 0 ? (-i - 1) / n + 1 : (i - n) / n + 1;
        if (mode == WT_MODE_ANTISYMMETRIC && (k & 1))
            *sign = -1;
        return r;
    }
    case WT_MODE_REFLECT: {
        if (n == 1)
            return 0;
        int period = 2 * n - 2, r = wt_floor_mod(i, period);
        return r >= n ? period - r : r;
    }
    default: /* zero, constant, smooth, antireflect: nearest edge */
        return i < 0 ? 0 : n - 1;
    }
}

/* The mode that extends the signal of a forward transform: the JPEG 2000
 * kinds know only whole-sample symmetric extension (reflect) besides
 * periodization. */
WT_GEOM int wt_signal_mode(const wt_wavelet *w, int mode)
{
    if (w->kind == WT_KIND_JPEG2000 && mode != WT_MODE_PERIODIZATION)
        return WT_MODE_REFLECT;
    return mode;
}

/* The mode that extends the interleaved coefficient sequence y (y(2m) low,
 * y(2m+1) high) of a JPEG 2000 inverse (and of legall53's integer lifting):
 * periodic for periodization, whole-sample symmetric otherwise. */
WT_GEOM int wt_interleaved_mode(int mode)
{
    return mode == WT_MODE_PERIODIZATION ? WT_MODE_PERIODIC : WT_MODE_REFLECT;
}

/* Filter banks, forward: out[k] = sum_j f[j] ext(s0 + 2k - j) with this s0
 * (PyWavelets: 1; periodization: F/2 on the signal padded to even length). */
WT_GEOM int wt_forward_start(const wt_wavelet *w, int mode)
{
    return mode == WT_MODE_PERIODIZATION ? w->filter_len / 2 : 1;
}

/* Filter banks, inverse: x[o] = sum_j rec_lo[j] lo[(o + off - j) / 2] + ...
 * over the j where o + off - j is even, with this off. */
WT_GEOM int wt_inverse_offset(const wt_wavelet *w, int mode)
{
    return mode == WT_MODE_PERIODIZATION ? w->filter_len / 2 - 1 : w->filter_len - 2;
}

/* How far one lifting step of @p ntaps taps from @p offset reaches to either
 * side; constexpr in C++, so the fast kernels' compile-time schemes
 * (cuda/cu_fast.cuh) sum the same reach. */
WT_GEOM_CONSTEXPR int wt_lifting_step_reach(int offset, int ntaps)
{
    const int left = offset < 0 ? -offset : 0;
    const int right = offset + ntaps - 1 > 0 ? offset + ntaps - 1 : 0;
    return left > right ? left : right;
}

/* Total reach of the lifting steps: how far invalid margins can spread. */
WT_GEOM int wt_lifting_reach(const wt_lifting *L)
{
    int r = 1;
    for (int s = 0; s < L->nsteps; s++)
        r += wt_lifting_step_reach(L->steps[s].offset, L->steps[s].ntaps);
    return r;
}

/* Polyphase alignment of the forward lifting transform: a[m] = x[2m + e]
 * and lo[k] = scale_lo * a[k + t + shift_lo] (likewise d, hi); filter
 * banks in periodization start at s0 = F/2 instead of 1. */
WT_GEOM void wt_lifting_alignment(const wt_wavelet *w, int mode, int *e, int *t)
{
    *e = 0;
    *t = 0;
    if (w->kind == WT_KIND_FILTER_BANK && mode == WT_MODE_PERIODIZATION) {
        int s0 = wt_forward_start(w, mode);
        if (s0 & 1) {
            *t = (s0 - 1) / 2;
        } else {
            *t = s0 / 2;
            *e = -1;
        }
    }
}

/* One step of the integer LeGall 5/3 lifting (JPEG 2000 reversible) on one
 * sample: dst + sign * floor((s0 + s1 + bias) / 2^shift), with
 *   predict: d[m] -= floor((a[m] + a[m+1]) / 2)        (bias 0, shift 1)
 *   update:  a[m] += floor((d[m-1] + d[m] + 2) / 4)    (bias 2, shift 2)
 * and the opposite sign to undo a step. Computed in 64 bits and saturated
 * to the int32 range, so that coefficients anywhere in int32 (a hostile
 * .npz) give one defined result on every engine; for coefficients of
 * images it is the plain 5/3 step (no sum comes near the limits). */
WT_GEOM int32_t wt_lift53_step(int32_t dst, int32_t s0, int32_t s1, int bias, int shift,
                               int sign)
{
    int64_t q = ((int64_t)s0 + (int64_t)s1 + bias) >> shift; /* arithmetic shift: floor */
    int64_t v = (int64_t)dst + (sign < 0 ? -q : q);
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* The same step in 32-bit arithmetic (about half the instructions of the
 * 64-bit one on a GPU): equal to wt_lift53_step whenever the sum and the
 * result fit in int32, which holds on every level whose inputs lie within
 * +-WT_LIFT53_NARROW_MAX (below). */
WT_GEOM int32_t wt_lift53_step32(int32_t dst, int32_t s0, int32_t s1, int bias, int shift,
                                 int sign)
{
    return dst + sign * ((s0 + s1 + bias) >> shift);
}

/* Bounds of a 2D level of the 5/3 (both axes); |floor(x / 2^k)| <= |x| / 2^k
 * + 1. With every input of an axis (extension copies included) within
 * [-B, B]:
 *   forward: predict sums a + a' within 2B, d - floor(sum / 2) within 2B;
 *            update sums d + d' + 2 in [-4B + 2, 4B + 2], a + floor(sum / 4)
 *            within 2B (floor(+-B + 1/2) = +-B): the outputs lie within 2B;
 *   inverse: undo-update sums within 2B + 2, a - floor(sum / 4) within
 *            3B/2 + 2; undo-predict sums within 3B + 4, d + floor(sum / 2)
 *            within 5B/2 + 3: the outputs lie within 5B/2 + 3.
 * The second axis of a level then sums within 8B + 2 (forward) or
 * 3(5B/2 + 3) + 4 = 15B/2 + 13 (inverse), both <= INT32_MAX for
 * B <= 2^28 - 1, and the level's outputs (all four bands, the next level's
 * input) lie within 4B (forward) and 5(5B/2 + 3)/2 + 3 <= 7B + 11 (inverse).
 * So a level whose inputs lie within WT_LIFT53_NARROW_MAX may use
 * wt_lift53_step32: nothing saturates or wraps. 8-bit images stay within it
 * for 11 forward levels (255 * 4^10 < 2^28), 16-bit ones for 7
 * (65535 * 4^6 < 2^28). */
#define WT_LIFT53_NARROW_MAX ((1u << 28) - 1)

/* Bound of a forward level's outputs from the bound of its inputs
 * (saturating: UINT64_MAX stays unknown). */
WT_GEOM uint64_t wt_lift53_forward_bound(uint64_t b)
{
    return b > (UINT64_MAX >> 2) ? UINT64_MAX : 4 * b;
}

/* The same for an inverse level. */
WT_GEOM uint64_t wt_lift53_inverse_bound(uint64_t b)
{
    return b > (UINT64_MAX - 11) / 7 ? UINT64_MAX : 7 * b + 11;
}

#endif
