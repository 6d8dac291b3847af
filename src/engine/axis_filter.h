/* Filtering along any axis of a strided view (the axis core's undecimated
 * pass, axis_view.h): every output sample of a line is
 *   out[o] = sum_k f[k] * in[border(o + shift - k * step)]
 * summed over up to four terms (one filter of one input each); terms with the
 * same destination in a row add up. The SWT and the starlet (B3 à trous) are
 * loops of these over the axes (undecimated.c). */
#ifndef WT_AXIS_FILTER_H
#define WT_AXIS_FILTER_H

#include "axis_view.h"
#include "undecimated_geometry.h" /* WT_UTAPS */

/* How an axis of length n is extended: ext[i] = in[map(i)], i >= 0 (the
 * line itself at base and, periodic or mirrored, again every period). */
typedef struct wt_axis_border {
    wt_border border;
    size_t n, period, base;
} wt_axis_border;

/* The taps of one filter with the border folded in:
 * out[o] = sum_k f[k] * ext[o + start[k]]. */
typedef struct wt_axis_taps {
    int ntaps;
    float f[WT_UTAPS];
    size_t start[WT_UTAPS];
} wt_axis_taps;

typedef struct wt_filter_term {
    const float *src;
    float *dst;
    wt_axis_taps taps;
} wt_filter_term;

/* A pass along @p axis over arrays that all have the geometry (shape and
 * strides; its data is not used) of @p geometry. */
typedef struct wt_filter_pass {
    wt_array_view geometry;
    int axis;
    wt_axis_border border; /* of the filtered axis */
    int nterms;
    wt_filter_term term[4];
    const struct wt_line_kernels *kernels; /* their filter_taps (dwt_line.h) */
    _Atomic int failed; /* a line buffer could not be allocated */
} wt_filter_pass;

/* One filter of a level: its taps scaled by @p gain, @p step apart, shifted
 * by @p shift (undecimated_geometry.h). */
typedef struct wt_filter_spec {
    const double *taps;
    int ntaps;
    double gain;
    size_t step;
    long long shift;
} wt_filter_spec;

void wt_filter_pass_init(wt_filter_pass *p, const wt_array_view *geometry, int axis,
                         wt_border border);
/* dst (+)= the filter @p f of src (another array: passes read src while
 * they write dst). */
void wt_filter_pass_add(wt_filter_pass *p, const float *src, float *dst, const wt_filter_spec *f);
wt_status wt_filter_pass_run(wt_filter_pass *p, int threads);

/* One undecimated level over every axis of @p src, the last axis first (an
 * image: x then y), the inverse backwards. The bands and @p dst have src's
 * geometry (data apart); so do the arrays between the passes, put one after
 * another from tmp[m & 1] after the m-th pass: each tmp holds 2^(rank-1)
 * arrays of wt_view_span(src) elements (a rank-2 level uses only tmp[0]).
 *   split: band i is low- or high-pass (@p lo, @p hi) along axis k as bit
 *          (rank - 1 - k) of i says (dwtn's band order; an image: A, V, H, D);
 *          the inverse adds the synthesis filters' terms;
 *   smooth: @p f along every axis into @p dst (the starlet's scale). */
wt_status wt_axis_split_forward(const wt_array_view *src, const wt_array_view *bands,
                                const wt_filter_spec *lo, const wt_filter_spec *hi,
                                wt_border border, float *const tmp[2], int threads);
wt_status wt_axis_split_inverse(const wt_array_view *bands, const wt_array_view *dst,
                                const wt_filter_spec *lo, const wt_filter_spec *hi,
                                wt_border border, float *const tmp[2], int threads);
wt_status wt_axis_smooth(const wt_array_view *src, const wt_array_view *dst,
                         const wt_filter_spec *f, wt_border border, float *const tmp[2],
                         int threads);

#endif
