/* The CPU reference engine: separable 2D transforms, each level one
 * separable level of the axis core (axis_view.h) over the 1D line
 * transforms of dwt_line.c, PyWavelets' axis order (forward: y then x;
 * inverse: x then y), lines in batches of WT_BATCH over worker threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axis_view.h"
#include "dwt_line.h"
#include "engine_impl.h"

/* The plane a level comes from (forward) or goes to (inverse), its
 * approximation (the pyramid's cA at the last level, else the work area) and
 * the y-pass buffer tmp: (lo_h + hi_h) × w per channel. */
typedef struct level_arrays {
    void *plane, *a, *tmp;
    wt_dtype plane_dtype; /* the pyramid's, or float32: an integer level's float plane */
} level_arrays;

/* One level as a separable level of the axis core: forward along y (plane
 * into tmp's lo and hi rows), then along x (lo rows into A | V, hi rows into
 * H | D); inverse the same passes backwards. */
static wt_status transform_level(const wt_params *p, const wt_pyramid *pyr, int level, int inverse,
                                 const level_arrays *b, int threads)
{
    wt_line lines[2];
    wt_line_init(&lines[0], p, pyr->lo_h[level - 1]);
    wt_line_init(&lines[1], p, pyr->lo_w[level - 1]);
    wt_array_view plane = wt_view_image(b->plane, b->plane_dtype, pyr->channels,
                                        pyr->lo_h[level - 1], pyr->lo_w[level - 1]);
    const wt_array_view bands[4] = {wt_pyramid_band_view(pyr, level, WT_BAND_A, b->a),
                                    wt_pyramid_band_view(pyr, level, WT_BAND_V, NULL),
                                    wt_pyramid_band_view(pyr, level, WT_BAND_H, NULL),
                                    wt_pyramid_band_view(pyr, level, WT_BAND_D, NULL)};
    void *const tmp[2] = {b->tmp, NULL};
    return inverse ? wt_axis_level_inverse(lines, bands, &plane, tmp, threads)
                   : wt_axis_level_forward(lines, &plane, bands, tmp, threads);
}

static void *band_ptr(const wt_pyramid *p, int level, wt_band b)
{
    return (uint32_t *)p->data + wt_pyramid_offset(p, level, b, 0);
}

/* Work space per channel: approximations up to a_sz elements (two of them,
 * current and next level) and the y-pass buffer of tmp_sz elements. */
static void work_sizes(const wt_pyramid *p, size_t *a_sz, size_t *tmp_sz)
{
    /* integer transforms keep the input plane in the work area too, where
     * the first level does not read floats (reads_floats) */
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

static void swap_approximations(work_area *w)
{
    uint32_t *swap = w->cur;
    w->cur = w->nxt;
    w->nxt = swap;
}

/* Whether the first level of an integer transform of @p out reads the
 * caller's float samples itself (converting each as it loads it). */
static int reads_floats(const wt_params *p, const wt_pyramid *out)
{
    wt_line lines[2];
    wt_line_init(&lines[0], p, out->height);
    wt_line_init(&lines[1], p, out->width);
    return wt_axis_level_reads_floats(lines);
}

/* Levels 1..L of @p planes into @p out; each level's approximation goes to
 * the work area's nxt, the last one into the pyramid. */
static wt_status forward_levels(const wt_params *p, const float *planes, const wt_pyramid *out,
                                work_area *w, int threads)
{
    const void *src = planes; /* level 1 reads the caller's planes */
    wt_dtype src_dtype = WT_FLOAT32;
    if (out->dtype == WT_INT32 && !reads_floats(p, out)) {
        wt_convert_samples(w->cur, 1, planes, 0, out->height * out->width * (size_t)out->channels);
        src = w->cur;
        src_dtype = WT_INT32;
    }
    wt_status st = WT_OK;
    for (int l = 1; l <= out->levels && st == WT_OK; l++) {
        void *a = l == out->levels ? band_ptr(out, l, WT_BAND_A) : (void *)w->nxt;
        level_arrays b = {(void *)src, a, w->tmp, l == 1 ? src_dtype : out->dtype};
        st = transform_level(p, out, l, 0, &b, threads);
        src = w->nxt;
        swap_approximations(w);
    }
    return st;
}

/* Levels L..1 of @p in into @p planes; the last level straight into the
 * caller's planes (integer transforms convert each output sample there). */
static wt_status inverse_levels(const wt_params *p, const wt_pyramid *in, float *planes,
                                work_area *w, int threads)
{
    const void *a = band_ptr(in, in->levels, WT_BAND_A);
    wt_status st = WT_OK;
    for (int l = in->levels; l >= 1 && st == WT_OK; l--) {
        level_arrays b = {l == 1 ? (void *)planes : (void *)w->nxt, (void *)a, w->tmp,
                          l == 1 ? WT_FLOAT32 : in->dtype};
        st = transform_level(p, in, l, 1, &b, threads);
        a = w->nxt;
        swap_approximations(w);
    }
    return st;
}

/* @p planes into @p pyr, or (@p inverse) back, in the work area of @p cache. */
static wt_status transform_cached(const wt_params *p, const wt_pyramid *pyr, float *planes,
                                  int inverse, int threads, work_cache *cache)
{
    int integer = pyr->dtype == WT_INT32;
    size_t n = pyr->height * pyr->width * (size_t)pyr->channels;
    if (pyr->levels == 0) { /* the coefficients are the samples */
        if (inverse)
            wt_convert_samples(planes, 0, pyr->data, integer, n);
        else
            wt_convert_samples(pyr->data, integer, planes, 0, n);
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
