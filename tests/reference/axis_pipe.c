/* Test driver of the n-D axis core (src/axis_view.h, src/axis_filter.h):
 * one separable level over every axis of an array of rank 1 to 3 with
 * channels, forward then inverse, for tests/axis_check.py (= pywt.dwtn /
 * idwtn, swtn / iswtn). A white-box test of internals with no public entry
 * (tests/boundary_check.sh lists it).
 *
 * Request: a text line "KIND WAVELET MODE METHOD LEVEL NORM CHANNELS RANK N0
 * N1 N2 LAYOUT" (KIND dwt or swt; LEVEL: the SWT's level, 1-based; unused
 * N = 1; LAYOUT planar (C, N0, N1, N2) or interleaved (N0, N1, N2, C): the
 * views' strides), then the C x N0 x N1 x N2 float32 samples, planar.
 * Answer: int32 status, then the 2^RANK bands (dwtn's key order, each
 * C x its shape, planar) and the inverse of those bands (C x N0 x N1 x N2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axis_filter.h"
#include "dwt_line.h"
#include "undecimated_geometry.h"
#include "wavetool.h"

#define MAX_BANDS (1 << WT_VIEW_MAX_RANK)

typedef struct request {
    char kind[8], wavelet[64], mode[32], method[16], layout[16];
    int level, norm, channels, rank;
    size_t shape[WT_VIEW_MAX_RANK];
} request;

static int read_request(FILE *in, request *r)
{
    size_t n[3];
    if (fscanf(in, "%7s %63s %31s %15s %d %d %d %d %zu %zu %zu %15s", r->kind, r->wavelet,
               r->mode, r->method, &r->level, &r->norm, &r->channels, &r->rank, &n[0], &n[1],
               &n[2], r->layout) != 12 ||
        r->rank < 1 || r->rank > WT_VIEW_MAX_RANK || r->channels < 1)
        return 0;
    fgetc(in); /* the newline */
    for (int k = 0; k < r->rank; k++)
        r->shape[k] = n[k];
    return 1;
}

static size_t elems(int channels, int rank, const size_t *shape)
{
    size_t n = (size_t)channels;
    for (int k = 0; k < rank; k++)
        n *= shape[k];
    return n;
}

/* A view of @p shape at @p data: planar, or channels innermost. */
static wt_array_view view_of(float *data, const request *r, const size_t *shape)
{
    wt_array_view v = wt_view_dense(data, WT_FLOAT32, r->channels, r->rank, shape);
    if (strcmp(r->layout, "interleaved") == 0) {
        ptrdiff_t stride = r->channels;
        for (int k = r->rank - 1; k >= 0; k--) {
            v.strides[k] = stride;
            stride *= (ptrdiff_t)shape[k];
        }
        v.channel_stride = 1;
    }
    return v;
}

/* Planar copy of @p v to @p out, or (@p into_view) back. */
static void copy_planar(const wt_array_view *v, float *planar, int into_view)
{
    size_t n = elems(v->channels, v->rank, v->shape), idx[WT_VIEW_MAX_RANK] = {0};
    for (size_t e = 0; e < n; e++) {
        size_t rest = e;
        for (int k = v->rank - 1; k >= 0; k--) {
            idx[k] = rest % v->shape[k];
            rest /= v->shape[k];
        }
        ptrdiff_t off = (ptrdiff_t)rest * v->channel_stride;
        for (int k = 0; k < v->rank; k++)
            off += (ptrdiff_t)idx[k] * v->strides[k];
        float *at = (float *)v->data + off;
        if (into_view)
            *at = planar[e];
        else
            planar[e] = *at;
    }
}

/* Shape of band @p i: low or high along axis k as bit (rank - 1 - k) says. */
static void band_shape(const request *r, const wt_line *lines, int i, size_t *shape)
{
    for (int k = 0; k < r->rank; k++) {
        int high = (i >> (r->rank - 1 - k)) & 1;
        shape[k] = lines ? (high ? lines[k].nhi : lines[k].nlo) : r->shape[k];
    }
}

static void swt_filters(const request *r, const wt_wavelet *w, int inverse, wt_filter_spec *lo,
                        wt_filter_spec *hi)
{
    const size_t step = (size_t)wt_utap_step(r->level);
    const long long shift = wt_swt_shift(w->filter_len, (long long)step, inverse);
    const double g = wt_swt_gain(r->norm, inverse);
    *lo = (wt_filter_spec){inverse ? w->rec_lo : w->dec_lo, w->filter_len, g, step, shift};
    *hi = (wt_filter_spec){inverse ? w->rec_hi : w->dec_hi, w->filter_len, g, step, shift};
}

/* Forward into @p bands then inverse into @p back, both as views. */
static wt_status transform(const request *r, const wt_params *p, const wt_line *lines,
                           const wt_array_view *src, const wt_array_view *bands,
                           const wt_array_view *back, float *const tmp[2])
{
    if (lines) {
        void *const areas[2] = {tmp[0], tmp[1]};
        wt_status st = wt_axis_level_forward(lines, src, bands, areas, 1);
        return st == WT_OK ? wt_axis_level_inverse(lines, bands, back, areas, 1) : st;
    }
    wt_filter_spec lo, hi;
    swt_filters(r, p->wavelet, 0, &lo, &hi);
    wt_status st = wt_axis_split_forward(src, bands, &lo, &hi, WT_BORDER_PERIODIC, tmp, 2);
    swt_filters(r, p->wavelet, 1, &lo, &hi);
    return st == WT_OK ? wt_axis_split_inverse(bands, back, &lo, &hi, WT_BORDER_PERIODIC, tmp, 2)
                       : st;
}

static wt_status params_of(const request *r, wt_params *p)
{
    *p = (wt_params){wt_wavelet_find(r->wavelet), WT_MODE_ZERO, WT_METHOD_AUTO, 1};
    wt_status st = p->wavelet ? WT_OK : wt_error_set(WT_ERR_INVALID, "unknown wavelet");
    if (st == WT_OK)
        st = wt_mode_parse(r->mode, &p->mode);
    if (st == WT_OK)
        st = wt_method_parse(r->method, &p->method);
    return st == WT_OK ? wt_params_resolve(p) : st;
}

static void answer(const request *r, float *x)
{
    wt_params p;
    wt_status st = params_of(r, &p);
    int dwt = strcmp(r->kind, "dwt") == 0, nb = 1 << r->rank;
    wt_line lines[WT_VIEW_MAX_RANK];
    for (int k = 0; st == WT_OK && k < r->rank; k++)
        wt_line_init(&lines[k], &p, r->shape[k]);
    size_t n = elems(r->channels, r->rank, r->shape), total = 0, shapes[MAX_BANDS][3];
    for (int i = 0; i < nb; i++) {
        band_shape(r, st == WT_OK && dwt ? lines : NULL, i, shapes[i]);
        total += elems(r->channels, r->rank, shapes[i]);
    }
    /* input, bands, inverse, two tmp areas of 2^(rank-1) arrays (enough for both kinds) */
    size_t tmp_len = (size_t)nb / 2 * (dwt ? total : n) + 1;
    float *mem = calloc(2 * n + 2 * total + 2 * tmp_len, sizeof *mem);
    float *src = mem, *back = src + n, *band = back + n, *planar = band + total;
    float *const tmp[2] = {planar + total, planar + total + tmp_len};
    wt_array_view vsrc = view_of(src, r, r->shape), vback = view_of(back, r, r->shape);
    wt_array_view vb[MAX_BANDS];
    for (int i = 0, at = 0; i < nb; at += (int)elems(r->channels, r->rank, shapes[i]), i++)
        vb[i] = view_of(band + at, r, shapes[i]);
    copy_planar(&vsrc, x, 1);
    if (st == WT_OK)
        st = transform(r, &p, dwt ? lines : NULL, &vsrc, vb, &vback, tmp);
    int32_t code = st;
    fwrite(&code, sizeof code, 1, stdout);
    if (st == WT_OK) {
        for (int i = 0, at = 0; i < nb; at += (int)elems(r->channels, r->rank, shapes[i]), i++)
            copy_planar(&vb[i], planar + at, 0);
        fwrite(planar, sizeof *planar, total, stdout);
        copy_planar(&vback, planar, 0);
        fwrite(planar, sizeof *planar, n, stdout);
    } else {
        fprintf(stderr, "axis_pipe: %s\n", wt_error_message());
    }
    fflush(stdout);
    free(mem);
}

int main(void)
{
    request r;
    while (read_request(stdin, &r)) {
        size_t n = elems(r.channels, r.rank, r.shape);
        float *x = malloc(n * sizeof *x + 4);
        if (!x || fread(x, sizeof *x, n, stdin) != n)
            return 1;
        answer(&r, x);
        free(x);
    }
    return 0;
}
