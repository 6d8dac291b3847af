/* Shapes and storage of multi-level decompositions. */
#include <stdlib.h>
#include <string.h>

#include "engine_impl.h" /* wt_band_ref_valid */

/* a * b, or 0 with *overflow set */
static size_t mul_checked(size_t a, size_t b, int *overflow)
{
    if (a && b > SIZE_MAX / a) {
        *overflow = 1;
        return 0;
    }
    return a * b;
}

wt_status wt_pyramid_plan(wt_pyramid *p, const wt_params *params, size_t height,
                          size_t width, int channels)
{
    memset(p, 0, sizeof *p);
    if (height == 0 || width == 0 || channels < 1)
        return wt_error_set(WT_ERR_INVALID, "empty image (%zux%zu, %d channels)", height, width,
                            channels);
    if (params->levels < 0 || params->levels > WT_MAX_LEVELS)
        return wt_error_set(WT_ERR_INVALID, "levels must be between 0 and %d", WT_MAX_LEVELS);
    const wt_wavelet *w = params->wavelet;
    p->rank = 2;
    p->depth = 1;
    p->height = height;
    p->width = width;
    p->channels = channels;
    p->levels = params->levels;
    p->dtype = w->integer ? WT_INT32 : WT_FLOAT32;
    p->lo_h[0] = height;
    p->lo_w[0] = width;
    int overflow = 0;
    size_t per_channel = 0;
    for (int l = 1; l <= p->levels; l++) {
        p->lo_h[l] = wt_coeff_len(p->lo_h[l - 1], w, params->mode, 0);
        p->lo_w[l] = wt_coeff_len(p->lo_w[l - 1], w, params->mode, 0);
        p->hi_h[l] = wt_coeff_len(p->lo_h[l - 1], w, params->mode, 1);
        p->hi_w[l] = wt_coeff_len(p->lo_w[l - 1], w, params->mode, 1);
        per_channel += mul_checked(p->hi_h[l], p->lo_w[l], &overflow);
        per_channel += mul_checked(p->lo_h[l], p->hi_w[l], &overflow);
        per_channel += mul_checked(p->hi_h[l], p->hi_w[l], &overflow);
    }
    per_channel += mul_checked(p->lo_h[p->levels], p->lo_w[p->levels], &overflow);
    p->total = mul_checked(per_channel, (size_t)channels, &overflow);
    if (overflow || p->total > SIZE_MAX / 8)
        return wt_error_set(WT_ERR_LIMIT, "decomposition of %zux%zu is too large", height, width);
    return WT_OK;
}

wt_status wt_pyramid_alloc(wt_pyramid *p, const wt_params *params, size_t height,
                           size_t width, int channels)
{
    wt_status st = wt_pyramid_plan(p, params, height, width, channels);
    if (st != WT_OK)
        return st;
    p->data = calloc(p->total ? p->total : 1, 4);
    if (!p->data)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for %zu coefficients", p->total);
    p->owned = 1;
    return WT_OK;
}

void wt_pyramid_free(wt_pyramid *p)
{
    if (p->owned)
        free(p->data);
    p->data = NULL;
    p->owned = 0;
}

void wt_pyramid_band_shape(const wt_pyramid *p, int level, wt_band b, size_t *h, size_t *w)
{
    int high_y = b == WT_BAND_H || b == WT_BAND_D;
    int high_x = b == WT_BAND_V || b == WT_BAND_D;
    *h = high_y ? p->hi_h[level] : p->lo_h[level];
    *w = high_x ? p->hi_w[level] : p->lo_w[level];
}

static size_t band_elems(const wt_pyramid *p, int level, wt_band b)
{
    size_t h, w;
    wt_pyramid_band_shape(p, level, b, &h, &w);
    return h * w * (size_t)p->channels;
}

int wt_band_ref_valid(const wt_pyramid *s, const wt_band_ref *r)
{
    if (r->channel < 0 || r->channel >= s->channels || (unsigned)r->band > WT_BAND_D)
        return 0;
    if (r->band == WT_BAND_A)
        return r->level == s->levels;
    return r->level >= 1 && r->level <= s->levels;
}

size_t wt_pyramid_offset(const wt_pyramid *p, int level, wt_band b, int c)
{
    size_t off = 0;
    size_t h, w;
    wt_pyramid_band_shape(p, level, b, &h, &w);
    size_t in_band = (size_t)c * h * w;
    if (b == WT_BAND_A)
        return in_band; /* cA of the coarsest level comes first */
    off += band_elems(p, p->levels, WT_BAND_A);
    for (int l = p->levels; l > level; l--)
        off += band_elems(p, l, WT_BAND_H) + band_elems(p, l, WT_BAND_V) +
               band_elems(p, l, WT_BAND_D);
    if (b >= WT_BAND_V)
        off += band_elems(p, level, WT_BAND_H);
    if (b == WT_BAND_D)
        off += band_elems(p, level, WT_BAND_V);
    return off + in_band;
}

size_t wt_pyramid_bands(const wt_pyramid *p, wt_band_ref *sel)
{
    size_t n = 0;
    for (int c = 0; c < p->channels; c++)
        sel[n++] = (wt_band_ref){p->levels, WT_BAND_A, c};
    for (int l = p->levels; l >= 1; l--)
        for (int b = WT_BAND_H; b <= WT_BAND_D; b++)
            for (int c = 0; c < p->channels; c++)
                sel[n++] = (wt_band_ref){l, (wt_band)b, c};
    return n;
}
