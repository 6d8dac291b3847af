/* What one launch of a level kernel needs: for each axis the operator of one
 * level (window gather, lifting steps, two-phase polyphase filter), the tile
 * shape, and where the planes and bands live. Built on the host
 * (cu_plan.cu), passed to the kernel by value (parameter space is constant
 * memory, so filters and steps are read through the constant cache).
 *
 * Every 1D operator of dwt_line.c, forward or inverse, convolution or
 * lifting, is written in one shape: a tile of T output pairs u in [u0, u0+T)
 * reads a window of W = 2T + halo positions starting at 2*u0 + win_a, runs
 * the lifting steps in place on it (none for convolution), then
 *   out0[u] = sum_i f0[i] * win[2(u - u0) + off0 + i]   (lo, or even samples)
 *   out1[u] = sum_i f1[i] * win[2(u - u0) + off1 + i]   (hi, or odd samples).
 * Forward windows hold the extended signal; inverse windows hold
 * coefficient pairs (even position 2m: low-pass, odd 2m+1: high-pass). */
#ifndef WT_CU_PLAN_H
#define WT_CU_PLAN_H

#include "wavetool.h"

#define CU_MAXF 112    /* taps of one filter phase (dmey/coif17 inverse: F + 2) */
#define CU_MAXSTEPS 8

/* Extension of the coefficients of an inverse window. */
enum {
    CU_COEF_ZERO = 0,        /* filter banks: zero outside [0, n) */
    CU_COEF_PERIODIC = 1,    /* periodization: index modulo n */
    CU_COEF_J2K_REFLECT = 2, /* JPEG 2000: interleaved sequence, whole-sample symmetric */
    CU_COEF_J2K_PERIODIC = 3 /* JPEG 2000 periodization: interleaved sequence, periodic */
};

/* One lifting step on the window: the samples of parity (update ? 0 : 1)
 * get sum_i taps[i] * (other parity at pair q + offset + i) added.
 * Integer steps (legall53): dst += isign * ((sum of the sources + ibias) >> ishift). */
typedef struct cu_step {
    int update, offset, ntaps;
    int ibias, ishift, isign;
    float taps[8];
} cu_step;

typedef struct cu_axis {
    int inverse;
    int ext;        /* forward: wt_mode extending the signal; inverse: CU_COEF_* */
    int n, n1;      /* forward: n signal length; inverse: n low-pass, n1 high-pass count */
    int da, dd;     /* inverse: coefficient index of pair m is m + da (low), m + dd (high) */
    float sa, sd;   /* inverse: scales of the low / high coefficients */
    int win_a;      /* window of the tile at u0 starts at position 2 * u0 + win_a */
    int halo;       /* window length 2 * T + halo (even) */
    int count0, count1; /* outputs of phase 0 / 1 (lo / hi; even / odd samples) */
    int pairs;      /* tile index space: max(count0, count1) */
    int nsteps;
    cu_step steps[CU_MAXSTEPS];
    int len0, off0, len1, off1;
    float f0[CU_MAXF], f1[CU_MAXF];  /* taps for float accumulation */
    double g0[CU_MAXF], g1[CU_MAXF]; /* the same taps for double accumulation */
} cu_axis;

/* One launch: C planes, tiles of ty x tx pairs, windows of wy x wx.
 * Band b = 2 * (phase along y) + (phase along x): 0 A, 1 V, 2 H, 3 D.
 * Forward: src[0] is the input plane set, dst[b] the four bands.
 * Inverse: src[b] the four bands, dst[0] the output plane set. */
typedef struct cu_level {
    cu_axis ax[2]; /* 0: along y (columns), 1: along x (rows) */
    int ty, tx, wy, wx;
    int pitch; /* fast kernels: elements between window rows (multiple of 4, >= wx) */
    int half;  /* fast inverse: from a window row's low-pass half to its high-pass half */
    int dst_aligned; /* fast forward: every band row starts 16-byte aligned */
    int narrow;      /* integer levels: inputs within WT_LIFT53_NARROW_MAX (32-bit steps) */
    int prefetch;    /* fast kernels: blocks ahead whose window a block prefetches (0: none) */
    /* long filters as two single-axis passes (cu_split.cuh; NULL: fused):
     * the buffer between them, per channel split_plane elements, rows of
     * split_w, the high-pass half along x from column split_hi */
    void *split;
    size_t split_plane;
    int split_w, split_hi;
    const void *src[4];
    void *dst[4];
    size_t src_plane[4], dst_plane[4]; /* elements between channels */
    int src_w[4], dst_w[4];            /* elements between rows */
} cu_level;

/* Fused levels: up to CU_TAIL_LEVELS consecutive levels (launch order) of
 * @p channels planes in one cooperative launch (dwt_tail_fast), a grid-wide
 * barrier between them. Passed by value like cu_level (4 x 6.6 KB, within
 * the 32 764 bytes of a kernel's parameters). */
#define CU_TAIL_LEVELS 4
typedef struct cu_tail {
    cu_level lv[CU_TAIL_LEVELS];
    int nlevels, channels;
} cu_tail;

#ifdef __cplusplus
extern "C" {
#endif

/* The operator of one level along an axis of length n (the signal length:
 * forward input, inverse output). WT_ERR_UNSUPPORTED if a filter is longer
 * than CU_MAXF. */
wt_status cu_axis_init(cu_axis *ax, const wt_params *p, size_t n, int inverse);

/* Shared memory bytes of a level kernel with tiles of ty x tx pairs. */
size_t cu_level_smem(const cu_level *lv, int inverse, size_t elem_size);

/* wy, wx: the window of a tile of ty x tx pairs and the axes' halos. */
void cu_level_window(cu_level *lv);

/* Pick tile sizes (powers of two, at most 32) that fit @p smem_limit bytes;
 * fills ty, tx, wy, wx. WT_ERR_UNSUPPORTED if not even 1 x 1 fits. */
wt_status cu_level_tiles(cu_level *lv, int inverse, size_t elem_size, size_t smem_limit);

#ifdef __cplusplus
}
#endif
#endif
