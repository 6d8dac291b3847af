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

/* Line @p k of @p src into @p buf, one sample after the other; and back. */
static void line_in(lines src, size_t k, size_t len, uint32_t *buf)
{
    const uint32_t *s = (const uint32_t *)src.base + k * src.line_step;
    for (size_t i = 0; i < len; i++)
        buf[i] = s[i * src.sample_step];
}

static void line_out(lines dst, size_t k, size_t len, const uint32_t *buf)
{
    uint32_t *d = (uint32_t *)dst.base + k * dst.line_step;
    for (size_t i = 0; i < len; i++)
        d[i * dst.sample_step] = buf[i];
}

/* Line @p k of channel planes @p s, @p l, @p h through the one-line transforms. */
static void run_line(const pass *ps, size_t k, lines s, lines l, lines h, uint32_t *sig,
                     uint32_t *lo, uint32_t *hi, void *scratch)
{
    const wt_line *ln = ps->line;
    if (!ps->inverse) {
        line_in(s, k, ln->n, sig);
        if (ps->integer)
            wt_line_forward_i32_1(ln, (int32_t *)sig, (int32_t *)lo, (int32_t *)hi, scratch);
        else
            wt_line_forward_1(ln, (float *)sig, (float *)lo, (float *)hi, scratch);
        line_out(l, k, ln->nlo, lo);
        line_out(h, k, ln->nhi, hi);
    } else {
        line_in(l, k, ln->nlo, lo);
        line_in(h, k, ln->nhi, hi);
        if (ps->integer)
            wt_line_inverse_i32_1(ln, (int32_t *)lo, (int32_t *)hi, (int32_t *)sig, scratch);
        else
            wt_line_inverse_1(ln, (float *)lo, (float *)hi, (float *)sig, scratch);
        line_out(s, k, ln->n, sig);
    }
}

/* A pass over fewer than B lines (1xN and Nx1 images; one job a channel):
 * each line alone in buffers of one line, where a batch's would hold B
 * copies of it. */
static void run_lines(pass *ps, size_t begin, size_t end)
{
    const wt_line *ln = ps->line;
    size_t len = (ln->n + ln->nlo + ln->nhi + 4) & ~(size_t)1; /* keep 8-byte alignment */
    uint32_t *mem = malloc(len * 4 + wt_line_scratch_1(ln));
    if (!mem) {
        atomic_store(&ps->out_of_memory, 1);
        return;
    }
    uint32_t *sig = mem, *lo = sig + ln->n + 1, *hi = lo + ln->nlo + 1;
    for (size_t c = begin; c < end; c++)
        for (size_t k = 0; k < ps->nlines; k++)
            run_line(ps, k, plane(ps->sig, ps->sig_plane, (int)c),
                     plane(ps->lo, ps->lo_plane, (int)c), plane(ps->hi, ps->hi_plane, (int)c), sig,
                     lo, hi, mem + len);
    free(mem);
}

static void run_batches(void *ctx, size_t begin, size_t end)
{
    pass *ps = ctx;
    const wt_line *ln = ps->line;
    if (ps->nlines < B) {
        run_lines(ps, begin, end);
        return;
    }
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

/* The bands of one level and the plane they come from (forward) or go to
 * (inverse); tmp holds the y-pass result: (lo_h + hi_h) × w per channel. */
typedef struct level_bands {
    void *plane, *a, *h, *v, *d, *tmp;
} level_bands;

/* One level: forward along y (plane into tmp's lo and hi rows), then along x
 * (lo rows into A | V, hi rows into H | D); inverse the same passes backwards. */
static wt_status transform_level(const wt_params *p, const wt_pyramid *pyr, int level, int inverse,
                                 const level_bands *b, int threads)
{
    size_t ph = pyr->lo_h[level - 1], pw = pyr->lo_w[level - 1];
    size_t lh = pyr->lo_h[level], hh = pyr->hi_h[level];
    size_t lw = pyr->lo_w[level], hw = pyr->hi_w[level];
    int C = pyr->channels, integer = pyr->dtype == WT_INT32;
    wt_line ly, lx;
    wt_line_init(&ly, p, ph);
    wt_line_init(&lx, p, pw);
    uint32_t *tl = b->tmp, *th = tl + lh * pw * (size_t)C;
    pass col = {&ly, inverse, integer, pw, C, cols_of(b->plane, pw), cols_of(tl, pw),
                cols_of(th, pw), ph * pw, lh * pw, hh * pw, 0};
    pass row_l = {&lx, inverse, integer, lh, C, rows_of(tl, pw), rows_of(b->a, lw),
                  rows_of(b->v, hw), lh * pw, lh * lw, lh * hw, 0};
    pass row_h = {&lx, inverse, integer, hh, C, rows_of(th, pw), rows_of(b->h, lw),
                  rows_of(b->d, hw), hh * pw, hh * lw, hh * hw, 0};
    pass *order[3] = {&col, &row_l, &row_h};
    if (inverse) {
        order[0] = &row_l;
        order[1] = &row_h;
        order[2] = &col;
    }
    wt_status st = WT_OK;
    for (int i = 0; i < 3 && st == WT_OK; i++)
        st = run_pass(order[i], threads);
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

/* float -> int32 as the GPU converts (cvt.rzi.s32.f32): toward zero,
 * saturated to int32's range, NaN 0. A plain cast of a float sample beyond
 * int32 (a float32 image with legall53) is undefined behaviour (fuzz_cli,
 * UBSan: 4.08e9). */
static int32_t float_to_i32_sat(float x)
{
    if (x != x)
        return 0;
    if (x >= 2147483648.0f)
        return INT32_MAX;
    if (x <= -2147483648.0f)
        return INT32_MIN;
    return (int32_t)x;
}

/* @p n samples from @p src to @p dst, each of them float or (_int) int32. */
static void convert_samples(void *dst, int dst_int, const void *src, int src_int, size_t n)
{
    if (dst_int == src_int) {
        memcpy(dst, src, n * 4);
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (dst_int)
            ((int32_t *)dst)[i] = float_to_i32_sat(((const float *)src)[i]);
        else
            ((float *)dst)[i] = (float)((const int32_t *)src)[i];
}

static void swap_approximations(work_area *w)
{
    uint32_t *swap = w->cur;
    w->cur = w->nxt;
    w->nxt = swap;
}

/* Levels 1..L of @p planes into @p out; each level's approximation goes to
 * the work area's nxt, the last one into the pyramid. */
static wt_status forward_levels(const wt_params *p, const float *planes, const wt_pyramid *out,
                                work_area *w, int threads)
{
    const void *src = planes; /* level 1 reads the caller's planes */
    if (out->dtype == WT_INT32) {
        convert_samples(w->cur, 1, planes, 0, out->height * out->width * (size_t)out->channels);
        src = w->cur;
    }
    wt_status st = WT_OK;
    for (int l = 1; l <= out->levels && st == WT_OK; l++) {
        void *a = l == out->levels ? band_ptr(out, l, WT_BAND_A) : (void *)w->nxt;
        level_bands b = {(void *)src, a, band_ptr(out, l, WT_BAND_H), band_ptr(out, l, WT_BAND_V),
                         band_ptr(out, l, WT_BAND_D), w->tmp};
        st = transform_level(p, out, l, 0, &b, threads);
        src = w->nxt;
        swap_approximations(w);
    }
    return st;
}

/* Levels L..1 of @p in into @p planes; float transforms write the last level
 * straight into the caller's planes. */
static wt_status inverse_levels(const wt_params *p, const wt_pyramid *in, float *planes,
                                work_area *w, int threads)
{
    const void *a = band_ptr(in, in->levels, WT_BAND_A);
    for (int l = in->levels; l >= 1; l--) {
        int direct = l == 1 && in->dtype == WT_FLOAT32; /* last level: into the caller's planes */
        level_bands b = {direct ? (void *)planes : (void *)w->nxt, (void *)a,
                         band_ptr(in, l, WT_BAND_H), band_ptr(in, l, WT_BAND_V),
                         band_ptr(in, l, WT_BAND_D), w->tmp};
        wt_status st = transform_level(p, in, l, 1, &b, threads);
        if (direct || st != WT_OK)
            return st;
        a = w->nxt;
        swap_approximations(w);
    }
    convert_samples(planes, 0, w->cur, in->dtype == WT_INT32,
                    in->height * in->width * (size_t)in->channels);
    return WT_OK;
}

/* @p planes into @p pyr, or (@p inverse) back, in the work area of @p cache. */
static wt_status transform_cached(const wt_params *p, const wt_pyramid *pyr, float *planes,
                                  int inverse, int threads, work_cache *cache)
{
    int integer = pyr->dtype == WT_INT32;
    size_t n = pyr->height * pyr->width * (size_t)pyr->channels;
    if (pyr->levels == 0) { /* the coefficients are the samples */
        if (inverse)
            convert_samples(planes, 0, pyr->data, integer, n);
        else
            convert_samples(pyr->data, integer, planes, 0, n);
        return WT_OK;
    }
    work_area w;
    wt_status st = work_area_get(cache, pyr, &w);
    if (st != WT_OK)
        return st;
    return inverse ? inverse_levels(p, pyr, planes, &w, threads)
                   : forward_levels(p, planes, pyr, &w, threads);
}

/* ---------------------------------------------------------------------- */
/* The engine object */

static wt_status cpu_forward(wt_engine *e, const wt_params *p, const float *planes,
                             wt_pyramid *out)
{
    return transform_cached(p, out, (float *)planes /* read only */, 0, e->threads, e->priv);
}

static wt_status cpu_inverse(wt_engine *e, const wt_params *p, const wt_pyramid *in,
                             float *planes)
{
    return transform_cached(p, in, planes, 1, e->threads, e->priv);
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
    int threads = wt_cpu_count();
    snprintf(e->name, sizeof e->name, "cpu (%d thread%s)", threads, threads > 1 ? "s" : "");
    *engine = e;
    return WT_OK;
}
