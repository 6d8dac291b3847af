/* Filtering along any axis of a strided view (the axis core's undecimated
 * pass, axis_view.h): every output sample of a line is
 *   out[o] = sum_k f[k] * in[border(o + shift - k * step)]
 * summed over up to four terms (one filter of one input each); terms with the
 * same destination in a row add up. The SWT and the starlet (B3 à trous) are
 * loops of these over the axes (undecimated.c). */
#ifndef WT_AXIS_FILTER_H
#define WT_AXIS_FILTER_H

#include "axis_view.h"

/* Longest filter (coif17: 102 taps). */
#define WT_UTAPS 128

/* How an axis of length n is extended: ext[i] = in[map(i)] for i < ext_len. */
typedef struct wt_axis_border {
    wt_border border;
    size_t n, period, base, ext_len;
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
    _Atomic int failed; /* a line buffer could not be allocated */
} wt_filter_pass;

void wt_filter_pass_init(wt_filter_pass *p, const wt_array_view *geometry, int axis,
                         wt_border border);
/* dst (+)= taps (scaled by @p gain) at spacing @p step with @p shift of src. */
void wt_filter_pass_add(wt_filter_pass *p, const float *src, float *dst, const double *taps,
                        int ntaps, double gain, size_t step, long long shift);
wt_status wt_filter_pass_run(wt_filter_pass *p, int threads);

#endif
