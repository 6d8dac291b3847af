/* The CPU reference engine: separable 2D transforms built from the 1D line
 * transforms of dwt_line.c, PyWavelets' axis order (forward: y then x;
 * inverse: x then y), lines in batches of WT_BATCH over worker threads. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwt_line.h"
#include "engine_impl.h"

#define B WT_BATCH

/* A 2D array of 4-byte elements seen as lines: element (line l, sample i) is
 * at base[l * line_step + i * sample_step]. */
typedef struct lines {
    void *base;
    size_t line_step, sample_step;
} lines;

static lines rows_of(void *base, size_t row_len)
{
    return (lines){base, row_len, 1};
}

static lines cols_of(void *base, size_t ncols)
{
    return (lines){base, 1, ncols};
}

/* buf[i * B + b] = line (l0 + b) sample i, lines past the last repeat it.
 * Sample-outer order: B sequential read streams, contiguous writes. */
static void gather(lines src, size_t l0, size_t nlines, size_t len, uint32_t *buf)
{
    const uint32_t *s = src.base;
    const uint32_t *row[B];
    for (size_t b = 0; b < B; b++)
        row[b] = s + (l0 + b < nlines ? l0 + b : nlines - 1) * src.line_step;
    if (src.line_step == 1 && l0 + B <= nlines) { /* columns: B adjacent samples */
        for (size_t i = 0; i < len; i++)
            memcpy(buf + i * B, row[0] + i * src.sample_step, B * sizeof *buf);
        return;
    }
    for (size_t i = 0; i < len; i++)
        for (size_t b = 0; b < B; b++)
            buf[i * B + b] = row[b][i * src.sample_step];
}

static void scatter(lines dst, size_t l0, size_t nlines, size_t len, const uint32_t *buf)
{
    uint32_t *d = dst.base;
    size_t nb = nlines - l0 < B ? nlines - l0 : B;
    if (dst.line_step == 1 && nb == B) {
        for (size_t i = 0; i < len; i++)
            memcpy(d + l0 + i * dst.sample_step, buf + i * B, B * sizeof *buf);
        return;
    }
    uint32_t *row[B];
    for (size_t b = 0; b < nb; b++)
        row[b] = d + (l0 + b) * dst.line_step;
    for (size_t b = nb; b < B; b++)
        row[b] = row[0];
    if (nb == B) {
        for (size_t i = 0; i < len; i++)
            for (size_t b = 0; b < B; b++)
                row[b][i * dst.sample_step] = buf[i * B + b];
        return;
    }
    for (size_t i = 0; i < len; i++)
        for (size_t b = 0; b < nb; b++)
            row[b][i * dst.sample_step] = buf[i * B + b];
}

/* One pass along one axis over all lines of all channels. */
typedef struct pass {
    const wt_line *line;
    int inverse, integer;
    size_t nlines;
    int channels;
    /* per channel c, arrays start at base + c * plane_elems */
    lines sig, lo, hi;
    size_t sig_plane, lo_plane, hi_plane;
    atomic_int out_of_memory; /* a worker could not get its line buffers */
} pass;

static lines plane(lines a, size_t elems, int c)
{
    a.base = (uint32_t *)a.base + (size_t)c * elems;
    return a;
}

static void run_batches(void *ctx, size_t begin, size_t end)
{
    pass *ps = ctx;
    const wt_line *ln = ps->line;
    size_t sig_len = ln->n * B, lo_len = ln->nlo * B, hi_len = ln->nhi * B;
    size_t batch_len = (sig_len + lo_len + hi_len + 4 * B) & ~(size_t)1; /* keep 8-byte alignment */
    uint32_t *mem = malloc(batch_len * 4 + wt_line_scratch(ln));
    if (!mem) {
        atomic_store(&ps->out_of_memory, 1);
        return;
    }
    uint32_t *sig = mem, *lo = sig + sig_len + B, *hi = lo + lo_len + B;
    void *scratch = mem + batch_len;
    size_t batches = (ps->nlines + B - 1) / B;
    for (size_t job = begin; job < end; job++) {
        int c = (int)(job / batches);
        size_t l0 = (job % batches) * B;
        lines s = plane(ps->sig, ps->sig_plane, c), l = plane(ps->lo, ps->lo_plane, c),
              h = plane(ps->hi, ps->hi_plane, c);
        if (!ps->inverse) {
            gather(s, l0, ps->nlines, ln->n, sig);
            if (ps->integer)
                wt_line_forward_i32(ln, (int32_t *)sig, (int32_t *)lo, (int32_t *)hi,
                                    (int32_t *)scratch);
            else
                wt_line_forward(ln, (float *)sig, (float *)lo, (float *)hi, scratch);
            scatter(l, l0, ps->nlines, ln->nlo, lo);
            scatter(h, l0, ps->nlines, ln->nhi, hi);
        } else {
            gather(l, l0, ps->nlines, ln->nlo, lo);
            gather(h, l0, ps->nlines, ln->nhi, hi);
            if (ps->integer)
                wt_line_inverse_i32(ln, (int32_t *)lo, (int32_t *)hi, (int32_t *)sig,
                                    (int32_t *)scratch);
            else
                wt_line_inverse(ln, (float *)lo, (float *)hi, (float *)sig, scratch);
            scatter(s, l0, ps->nlines, ln->n, sig);
        }
    }
    free(mem);
}

static wt_status run_pass(pass *ps, int threads)
{
    if (ps->nlines == 0 || ps->line->n == 0)
        return WT_OK;
    size_t batches = (ps->nlines + B - 1) / B;
    atomic_init(&ps->out_of_memory, 0);
    wt_parallel_for(threads, batches * (size_t)ps->channels, run_batches, ps);
    return atomic_load(&ps->out_of_memory)
               ? wt_error_set(WT_ERR_NOMEM, "out of memory for the transform's line buffers")
               : WT_OK;
}

/* Forward of one level: in (h × w per channel) -> A, H, V, D. tmp holds the
 * y-pass result: (lo_h + hi_h) × w per channel. */
static wt_status forward_level(const wt_params *p, const wt_pyramid *pyr, int level, const void *in,
                          void *a, void *h, void *v, void *d, void *tmp, int threads)
{
    size_t ih = pyr->lo_h[level - 1], iw = pyr->lo_w[level - 1];
    size_t lh = pyr->lo_h[level], hh = pyr->hi_h[level];
    size_t lw = pyr->lo_w[level], hw = pyr->hi_w[level];
    int C = pyr->channels, integer = pyr->dtype == WT_INT32;
    wt_line ly, lx;
    wt_line_init(&ly, p, ih);
    wt_line_init(&lx, p, iw);
    uint32_t *tl = tmp, *th = tl + lh * iw * (size_t)C;
    pass col = {&ly, 0, integer, iw, C, cols_of((void *)in, iw), cols_of(tl, iw),
                cols_of(th, iw), ih * iw, lh * iw, hh * iw, 0};
    wt_status st = run_pass(&col, threads);
    pass row_l = {&lx, 0, integer, lh, C, rows_of(tl, iw), rows_of(a, lw), rows_of(v, hw),
                  lh * iw, lh * lw, lh * hw, 0};
    if (st == WT_OK)
        st = run_pass(&row_l, threads);
    pass row_h = {&lx, 0, integer, hh, C, rows_of(th, iw), rows_of(h, lw), rows_of(d, hw),
                  hh * iw, hh * lw, hh * hw, 0};
    if (st == WT_OK)
        st = run_pass(&row_h, threads);
    return st;
}

static wt_status inverse_level(const wt_params *p, const wt_pyramid *pyr, int level, const void *a,
                          const void *h, const void *v, const void *d, void *out, void *tmp,
                          int threads)
{
    size_t oh = pyr->lo_h[level - 1], ow = pyr->lo_w[level - 1];
    size_t lh = pyr->lo_h[level], hh = pyr->hi_h[level];
    size_t lw = pyr->lo_w[level], hw = pyr->hi_w[level];
    int C = pyr->channels, integer = pyr->dtype == WT_INT32;
    wt_line ly, lx;
    wt_line_init(&ly, p, oh);
    wt_line_init(&lx, p, ow);
    uint32_t *tl = tmp, *th = tl + lh * ow * (size_t)C;
    pass row_l = {&lx, 1, integer, lh, C, rows_of(tl, ow), rows_of((void *)a, lw),
                  rows_of((void *)v, hw), lh * ow, lh * lw, lh * hw, 0};
    wt_status st = run_pass(&row_l, threads);
    pass row_h = {&lx, 1, integer, hh, C, rows_of(th, ow), rows_of((void *)h, lw),
                  rows_of((void *)d, hw), hh * ow, hh * lw, hh * hw, 0};
    if (st == WT_OK)
        st = run_pass(&row_h, threads);
    pass col = {&ly, 1, integer, ow, C, cols_of(out, ow), cols_of(tl, ow), cols_of(th, ow),
                oh * ow, lh * ow, hh * ow, 0};
    if (st == WT_OK)
        st = run_pass(&col, threads);
    return st;
}

static void *band_ptr(const wt_pyramid *p, int level, wt_band b)
{
    return (uint32_t *)p->data + wt_pyramid_offset(p, level, b, 0);
}

/* Work space per channel: approximations up to a_sz elements (two of them,
 * current and next level) and the y-pass buffer of tmp_sz elements. */
static void work_sizes(const wt_pyramid *p, size_t *a_sz, size_t *tmp_sz)
{
    /* integer transforms keep the input / output plane in the work area too */
    *a_sz = p->dtype == WT_INT32 ? p->height * p->width : 0;
    *tmp_sz = 0;
    for (int l = 1; l <= p->levels; l++) {
        size_t t = (p->lo_h[l] + p->hi_h[l]) * p->lo_w[l - 1];
        size_t a = p->lo_h[l] * p->lo_w[l];
        *tmp_sz = t > *tmp_sz ? t : *tmp_sz;
        *a_sz = a > *a_sz ? a : *a_sz;
    }
}

/* A work area that grows and is kept between calls (first-touch page faults
 * of a fresh 100 MB buffer cost as much as the transform). */
typedef struct work_cache {
    void *mem;
    size_t bytes;
} work_cache;

static void *work_get(work_cache *cache, size_t bytes)
{
    if (cache->bytes >= bytes)
        return cache->mem;
    free(cache->mem);
    cache->mem = malloc(bytes);
    cache->bytes = cache->mem ? bytes : 0;
    return cache->mem;
}

/* The work area of a transform of @p pyr, from @p cache: the current and
 * next approximation (cur, nxt) and the y-pass buffer (tmp). */
typedef struct work_area {
    uint32_t *cur, *nxt, *tmp;
} work_area;

static wt_status work_area_get(work_cache *cache, const wt_pyramid *pyr, work_area *w)
{
    size_t C = (size_t)pyr->channels, a_sz, tmp_sz;
    work_sizes(pyr, &a_sz, &tmp_sz);
    uint32_t *work = work_get(cache, (2 * a_sz + tmp_sz + 1) * C * 4);
    if (!work)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for the transform's work space");
    w->cur = work;
    w->nxt = work + a_sz * C;
    w->tmp = w->nxt + a_sz * C;
    return WT_OK;
}

static wt_status forward_cached(const wt_params *p, const float *planes, wt_pyramid *out,
                                int threads, work_cache *cache)
{
    size_t C = (size_t)out->channels, n0 = out->height * out->width;
    if (out->levels == 0) {
        for (size_t i = 0; i < n0 * C; i++)
            if (out->dtype == WT_INT32)
                ((int32_t *)out->data)[i] = (int32_t)planes[i];
            else
                ((float *)out->data)[i] = planes[i];
        return WT_OK;
    }
    work_area w;
    wt_status st = work_area_get(cache, out, &w);
    if (st != WT_OK)
        return st;
    uint32_t *cur = w.cur, *nxt = w.nxt, *tmp = w.tmp;
    const void *src = planes; /* level 1 reads the caller's planes */
    if (out->dtype == WT_INT32) {
        for (size_t i = 0; i < n0 * C; i++)
            ((int32_t *)cur)[i] = (int32_t)planes[i];
        src = cur;
    }
    for (int l = 1; l <= out->levels && st == WT_OK; l++) {
        void *a = l == out->levels ? band_ptr(out, l, WT_BAND_A) : (void *)nxt;
        st = forward_level(p, out, l, src, a, band_ptr(out, l, WT_BAND_H),
                           band_ptr(out, l, WT_BAND_V), band_ptr(out, l, WT_BAND_D), tmp, threads);
        src = nxt;
        uint32_t *swap = cur;
        cur = nxt;
        nxt = swap;
    }
    return st;
}

static wt_status inverse_cached(const wt_params *p, const wt_pyramid *in, float *planes,
                                int threads, work_cache *cache)
{
    size_t C = (size_t)in->channels, n0 = in->height * in->width;
    if (in->levels == 0) {
        for (size_t i = 0; i < n0 * C; i++)
            planes[i] = in->dtype == WT_INT32 ? (float)((int32_t *)in->data)[i]
                                              : ((float *)in->data)[i];
        return WT_OK;
    }
    work_area w;
    wt_status st = work_area_get(cache, in, &w);
    if (st != WT_OK)
        return st;
    uint32_t *cur = w.cur, *nxt = w.nxt, *tmp = w.tmp;
    const void *a = band_ptr(in, in->levels, WT_BAND_A);
    for (int l = in->levels; l >= 1; l--) {
        int direct = l == 1 && in->dtype == WT_FLOAT32; /* last level: into the caller's planes */
        void *dst = direct ? (void *)planes : (void *)nxt;
        st = inverse_level(p, in, l, a, band_ptr(in, l, WT_BAND_H), band_ptr(in, l, WT_BAND_V),
                           band_ptr(in, l, WT_BAND_D), dst, tmp, threads);
        if (direct || st != WT_OK)
            return st;
        a = nxt;
        uint32_t *swap = cur;
        cur = nxt;
        nxt = swap;
    }
    if (in->dtype == WT_INT32)
        for (size_t i = 0; i < n0 * C; i++)
            planes[i] = (float)((int32_t *)cur)[i];
    else
        memcpy(planes, cur, n0 * C * 4);
    return WT_OK;
}

/* ---------------------------------------------------------------------- */
/* The engine object */

static wt_status cpu_forward(wt_engine *e, const wt_params *p, const float *planes,
                             wt_pyramid *out)
{
    return forward_cached(p, planes, out, e->threads, e->priv);
}

static wt_status cpu_inverse(wt_engine *e, const wt_params *p, const wt_pyramid *in,
                             float *planes)
{
    return inverse_cached(p, in, planes, e->threads, e->priv);
}

static void cpu_close(wt_engine *e)
{
    work_cache *cache = e->priv;
    free(cache->mem);
    free(cache);
    free(e);
}

static const wt_engine_ops cpu_ops = {.forward = cpu_forward,
                                      .inverse = cpu_inverse,
                                      .close = cpu_close,
                                      .pyr = &wt_host_epyramid_ops};

wt_status wt_cpu_engine_open(wt_engine **engine)
{
    wt_engine *e = calloc(1, sizeof *e);
    work_cache *cache = calloc(1, sizeof *cache);
    if (!e || !cache) {
        free(e);
        free(cache);
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    }
    e->priv = cache;
    e->ops = &cpu_ops;
    e->is_cpu = 1;
    snprintf(e->name, sizeof e->name, "cpu (%d threads)", wt_cpu_count());
    *engine = e;
    return WT_OK;
}
