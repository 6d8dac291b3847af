/* The n-D axis core of the CPU engine (PyWavelets' ArrayInfo + axis):
 * strided views of arrays of rank 1 to 3 plus channels, the lines of a view
 * along one axis, and the 1-D passes that run along any axis of a view:
 *
 *   wt_axis_dwt_forward / _inverse   one DWT level of the lines (axis_dwt.c)
 *   wt_filter_pass_*                 SWT and à trous filterings (axis_filter.c)
 *
 * A separable n-D transform is a loop over these, one axis after another: the
 * 2-D DWT (dwt_cpu.c), SWT and starlet (undecimated.c) are two axes; a volume
 * is the same code with a third. */
#ifndef WT_AXIS_VIEW_H
#define WT_AXIS_VIEW_H

#include <stddef.h>

#include "wavetool.h"

#define WT_VIEW_MAX_RANK 3

/* Element (c, i_0, ..., i_{rank-1}) is at
 * data + c * channel_stride + sum_k i_k * strides[k], in 4-byte elements. */
typedef struct wt_array_view {
    void *data;
    wt_dtype dtype; /* float32, or int32 (legall53) */
    int rank;       /* spatial axes: 1 a line, 2 an image (y, x), 3 a volume (z, y, x) */
    int channels;
    size_t shape[WT_VIEW_MAX_RANK];
    ptrdiff_t strides[WT_VIEW_MAX_RANK];
    ptrdiff_t channel_stride;
} wt_array_view;

/* A dense C-order view: channels of rank-@p rank arrays of @p shape. */
wt_array_view wt_view_dense(void *data, wt_dtype dtype, int channels, int rank,
                            const size_t *shape);
/* A dense view of @p channels planes of h x w. */
wt_array_view wt_view_image(void *data, wt_dtype dtype, int channels, size_t h, size_t w);

/* Band @p b of level @p level of @p p (its channels one after another) at
 * @p data: the pyramid's own storage where @p data is NULL. */
wt_array_view wt_pyramid_band_view(const wt_pyramid *p, int level, wt_band b, void *data);

/* @p n samples from @p src to @p dst, each float or (_int) int32: copied when
 * alike, int32 -> float exactly, float -> int32 toward zero and saturated as
 * the GPU converts (NaN 0). */
void wt_convert_samples(void *dst, int dst_int, const void *src, int src_int, size_t n);

/* Elements from a view's first element to one past its last (strides >= 0). */
size_t wt_view_span(const wt_array_view *v);

/* Lines of a view along one axis, walked in blocks of neighbouring lines: the
 * lines of a block differ only along @p inner, the other axis with the
 * smallest stride (the contiguous one of a dense view); the blocks run over
 * the channels and the remaining axes. Views of one pass share the walk when
 * their shapes agree off the axis. */
typedef struct wt_axis_walk {
    int axis, inner; /* inner: -1 for a rank-1 view (one line per block) */
    size_t len;      /* samples of a line: shape[axis] */
    size_t nlines;   /* lines of a block: shape[inner], or 1 */
    size_t nblocks;  /* channels x the remaining axes */
} wt_axis_walk;

wt_axis_walk wt_axis_walk_of(const wt_array_view *v, int axis);

/* The lines of one block of a view: element (line l, sample i) at
 * base[l * line_step + i * sample_step] (4-byte elements). */
typedef struct wt_lines {
    void *base;
    ptrdiff_t line_step, sample_step;
} wt_lines;

wt_lines wt_axis_block(const wt_array_view *v, const wt_axis_walk *walk, size_t block);
/* Element offset of block @p block's first line from v->data. */
ptrdiff_t wt_axis_block_offset(const wt_array_view *v, const wt_axis_walk *walk, size_t block);

/* ---- DWT along an axis (axis_dwt.c) ---------------------------------------- */

struct wt_line;

/* One level of the 1-D DWT of every line of @p sig along @p axis into @p lo
 * and @p hi (their shape along the axis: nlo, nhi; elsewhere sig's), or
 * (inverse) back; float32 or int32 as the views say (all three alike). */
wt_status wt_axis_dwt_forward(const struct wt_line *line, const wt_array_view *sig,
                              const wt_array_view *lo, const wt_array_view *hi, int axis,
                              int threads);
wt_status wt_axis_dwt_inverse(const struct wt_line *line, const wt_array_view *lo,
                              const wt_array_view *hi, const wt_array_view *sig, int axis,
                              int threads);

/* One separable level over every axis of @p src (PyWavelets' dwtn order:
 * axis 0 first; the inverse backwards) into its 2^rank bands: band i is
 * low- or high-pass along axis k as bit (rank - 1 - k) of i says (dwtn's key
 * with a = 0, d = 1; 2-D: A, V, H, D). @p lines: one per axis (n =
 * shape[k]). The arrays between the passes go to tmp[k & 1] after the pass
 * along axis k (a rank-2 level needs only tmp[0]), wt_axis_level_tmp(src,
 * lines, k) elements each. */
wt_status wt_axis_level_forward(const struct wt_line *lines, const wt_array_view *src,
                                const wt_array_view *bands, void *const tmp[2], int threads);
/* An integer level (int32 bands) of float32 samples: the inverse converts
 * its outputs into float32 @p dst (dense) as wt_convert_samples does; the
 * forward converts its float32 @p src as it reads it where
 * wt_axis_level_reads_floats says so (else WT_ERR_INVALID). */
wt_status wt_axis_level_inverse(const struct wt_line *lines, const wt_array_view *bands,
                                const wt_array_view *dst, void *const tmp[2], int threads);
size_t wt_axis_level_tmp(const wt_array_view *src, const struct wt_line *lines, int k);
/* Whether an integer 2-D level of @p lines (dense planes) reads float32
 * samples: its passes fuse (the instruction-set kernels take both). */
int wt_axis_level_reads_floats(const struct wt_line *lines);

#endif
