/* Subband mosaics: every band of a pyramid in one picture, laid out like
 * pywt.coeffs_to_array, each band scaled for display on its own. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wavetool.h"

void wt_mosaic_size(const wt_pyramid *pyr, size_t *height, size_t *width)
{
    /* coeffs_to_array: cA's shape plus the cD shape of every level */
    size_t h = pyr->lo_h[pyr->levels], w = pyr->lo_w[pyr->levels];
    for (int l = pyr->levels; l >= 1; l--) {
        h += pyr->hi_h[l];
        w += pyr->hi_w[l];
    }
    *height = h;
    *width = w;
}

static double coeff_at(const wt_pyramid *pyr, size_t index)
{
    if (pyr->dtype == WT_INT32)
        return (double)((const int32_t *)pyr->data)[index];
    return (double)((const float *)pyr->data)[index];
}

/* How one band's values become display samples:
 * out = base + gain * (v - center), with |v| in place of v when @p absolute. */
typedef struct band_map {
    double base, center, gain;
    int absolute;
} band_map;

/* Range over all channels of a band, so colours keep their relation. */
static void band_range(const wt_pyramid *pyr, int level, wt_band b, double *lo, double *hi,
                       double *maxabs)
{
    size_t h, w;
    wt_pyramid_band_shape(pyr, level, b, &h, &w);
    size_t first = wt_pyramid_offset(pyr, level, b, 0), n = h * w * (size_t)pyr->channels;
    double mn = INFINITY, mx = -INFINITY, ma = 0.0;
    for (size_t i = 0; i < n; i++) {
        double v = coeff_at(pyr, first + i);
        if (!isfinite(v))
            continue;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
        ma = fabs(v) > ma ? fabs(v) : ma;
    }
    *lo = mn;
    *hi = mx;
    *maxabs = ma;
}

static band_map plan_band(const wt_pyramid *pyr, int level, wt_band b, wt_scale scale,
                          double peak)
{
    double lo, hi, maxabs, mid = peak / 2.0;
    band_range(pyr, level, b, &lo, &hi, &maxabs);
    if (b == WT_BAND_A) /* min..max to full range; a flat band shows mid-grey */
        return hi > lo ? (band_map){0.0, lo, peak / (hi - lo), 0} : (band_map){mid, 0.0, 0.0, 0};
    if (scale == WT_SCALE_OFFSET) /* mid-grey + v / (2 max|v|) of full range */
        return (band_map){mid, 0.0, maxabs > 0.0 ? peak / (2.0 * maxabs) : 0.0, 0};
    return (band_map){0.0, 0.0, maxabs > 0.0 ? peak / maxabs : 0.0, 1}; /* |v| / max|v| */
}

static double map_value(const band_map *m, double v, double peak)
{
    double x = m->absolute ? fabs(v) : v;
    double s = m->gain == 0.0 ? m->base : m->base + m->gain * (x - m->center);
    if (isnan(s))
        return 0.0;
    return s < 0.0 ? 0.0 : (s > peak ? peak : s);
}

/* Copy one band into the mosaic with its top-left corner at (y0, x0). */
static void place_band(const wt_pyramid *pyr, int level, wt_band b, wt_scale scale,
                       wt_image *out, size_t y0, size_t x0)
{
    double peak = out->bit_depth > 8 ? 65535.0 : 255.0;
    band_map m = plan_band(pyr, level, b, scale, peak);
    size_t h, w, mw = out->width, c = (size_t)pyr->channels;
    wt_pyramid_band_shape(pyr, level, b, &h, &w);
    for (size_t ch = 0; ch < c; ch++) {
        size_t src = wt_pyramid_offset(pyr, level, b, (int)ch);
        for (size_t y = 0; y < h; y++)
            for (size_t x = 0; x < w; x++) {
                long s = lrint(map_value(&m, coeff_at(pyr, src + y * w + x), peak));
                size_t dst = ((y0 + y) * mw + x0 + x) * c + ch;
                if (out->bit_depth > 8)
                    ((uint16_t *)out->pixels)[dst] = (uint16_t)s;
                else
                    ((uint8_t *)out->pixels)[dst] = (uint8_t)s;
            }
    }
}

wt_status wt_mosaic_render(const wt_pyramid *pyr, wt_scale scale, int bit_depth, wt_image *out)
{
    memset(out, 0, sizeof *out);
    if (!pyr || !pyr->data || (bit_depth != 8 && bit_depth != 16) || pyr->channels < 1 ||
        pyr->channels > 4 || (unsigned)scale > WT_SCALE_OFFSET)
        return wt_error_set(WT_ERR_INVALID, "cannot render a mosaic of this pyramid "
                                            "(%d channels, %d-bit)",
                            pyr ? pyr->channels : 0, bit_depth);
    size_t mh, mw;
    wt_mosaic_size(pyr, &mh, &mw);
    if (mh > UINT32_MAX || mw > UINT32_MAX)
        return wt_error_set(WT_ERR_LIMIT, "mosaic of %zux%zu is too large", mh, mw);
    wt_status st = wt_image_alloc(out, (uint32_t)mw, (uint32_t)mh, pyr->channels, bit_depth);
    if (st != WT_OK)
        return st;
    /* the order of coeffs_to_array: cA, then per level from the coarsest cH, cV, cD;
     * (ah, aw) grows by each level's cD shape */
    size_t ah = pyr->lo_h[pyr->levels], aw = pyr->lo_w[pyr->levels];
    place_band(pyr, pyr->levels, WT_BAND_A, scale, out, 0, 0);
    for (int l = pyr->levels; l >= 1; l--) {
        place_band(pyr, l, WT_BAND_H, scale, out, ah, 0);
        place_band(pyr, l, WT_BAND_V, scale, out, 0, aw);
        place_band(pyr, l, WT_BAND_D, scale, out, ah, aw);
        ah += pyr->hi_h[l];
        aw += pyr->hi_w[l];
    }
    return WT_OK;
}
