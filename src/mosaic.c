/* Subband mosaics: every band of a pyramid in one picture, laid out like
 * pywt.coeffs_to_array, each band scaled for display on its own. */
#include <float.h>
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

/* How one band's values become display samples:
 * out = base + gain * (v - center), with |v| in place of v when @p absolute. */
typedef struct band_map {
    double base, center, gain;
    int absolute;
} band_map;

/* Range of finite values (min, max, max |v|) of n coefficients. float and
 * int32 convert to double exactly, so min and max in the source type are the
 * same numbers. */
static void range_f32(const float *v, size_t n, double *lo, double *hi, double *maxabs)
{
    float mn = INFINITY, mx = -INFINITY, ma = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float x = v[i];
        if (!(fabsf(x) <= FLT_MAX)) /* NaN or infinite */
            continue;
        mn = x < mn ? x : mn;
        mx = x > mx ? x : mx;
        ma = fabsf(x) > ma ? fabsf(x) : ma;
    }
    *lo = mn;
    *hi = mx;
    *maxabs = ma;
}

static void range_i32(const int32_t *v, size_t n, double *lo, double *hi, double *maxabs)
{
    double mn = INFINITY, mx = -INFINITY, ma = 0.0;
    for (size_t i = 0; i < n; i++) {
        double x = (double)v[i];
        mn = x < mn ? x : mn;
        mx = x > mx ? x : mx;
        ma = fabs(x) > ma ? fabs(x) : ma;
    }
    *lo = mn;
    *hi = mx;
    *maxabs = ma;
}

/* Range over all channels of a band, so colours keep their relation. */
static void band_range(const wt_pyramid *pyr, int level, wt_band b, double *lo, double *hi,
                       double *maxabs)
{
    size_t h, w;
    wt_pyramid_band_shape(pyr, level, b, &h, &w);
    size_t first = wt_pyramid_offset(pyr, level, b, 0), n = h * w * (size_t)pyr->channels;
    if (pyr->dtype == WT_INT32)
        range_i32((const int32_t *)pyr->data + first, n, lo, hi, maxabs);
    else
        range_f32((const float *)pyr->data + first, n, lo, hi, maxabs);
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

/* One display sample, clamped to 0..peak; NaN shows as 0. A zero gain (flat
 * band) shows base whatever v is. */
static inline long map_value(const band_map *m, double v, double peak)
{
    if (m->gain == 0.0)
        return lrint(m->base < 0.0 ? 0.0 : (m->base > peak ? peak : m->base));
    double x = m->absolute ? fabs(v) : v;
    double s = m->base + m->gain * (x - m->center);
    s = s >= 0.0 ? s : 0.0; /* NaN fails the test: 0 */
    return lrint(s < peak ? s : peak);
}

/* One row of a band into every c-th sample of a mosaic row; a loop per
 * source and sample type, so the inner loop has no type tests. */
#define DEFINE_PLACE_ROW(NAME, SRC, DST)                                                       \
    static void NAME(const band_map *m, const SRC *src, size_t w, DST *dst, size_t c,          \
                     double peak)                                                              \
    {                                                                                          \
        if (m->gain == 0.0) {                                                                  \
            DST v = (DST)map_value(m, 0.0, peak);                                              \
            for (size_t x = 0; x < w; x++)                                                     \
                dst[x * c] = v;                                                                \
            return;                                                                            \
        }                                                                                      \
        double base = m->base, gain = m->gain, center = m->center;                             \
        if (m->absolute) {                                                                     \
            for (size_t x = 0; x < w; x++) {                                                   \
                double s = base + gain * (fabs((double)src[x]) - center);                      \
                s = s >= 0.0 ? s : 0.0;                                                        \
                dst[x * c] = (DST)lrint(s < peak ? s : peak);                                  \
            }                                                                                  \
        } else {                                                                               \
            for (size_t x = 0; x < w; x++) {                                                   \
                double s = base + gain * ((double)src[x] - center);                            \
                s = s >= 0.0 ? s : 0.0;                                                        \
                dst[x * c] = (DST)lrint(s < peak ? s : peak);                                  \
            }                                                                                  \
        }                                                                                      \
    }
DEFINE_PLACE_ROW(place_row_f32_u8, float, uint8_t)
DEFINE_PLACE_ROW(place_row_f32_u16, float, uint16_t)
DEFINE_PLACE_ROW(place_row_i32_u8, int32_t, uint8_t)
DEFINE_PLACE_ROW(place_row_i32_u16, int32_t, uint16_t)
#undef DEFINE_PLACE_ROW

/* Copy one band into the mosaic with its top-left corner at (y0, x0). */
static void place_band(const wt_pyramid *pyr, int level, wt_band b, wt_scale scale,
                       wt_image *out, size_t y0, size_t x0)
{
    int deep = out->bit_depth > 8, ints = pyr->dtype == WT_INT32;
    double peak = deep ? 65535.0 : 255.0;
    band_map m = plan_band(pyr, level, b, scale, peak);
    size_t h, w, mw = out->width, c = (size_t)pyr->channels;
    wt_pyramid_band_shape(pyr, level, b, &h, &w);
    for (size_t ch = 0; ch < c; ch++) {
        size_t src = wt_pyramid_offset(pyr, level, b, (int)ch);
        for (size_t y = 0; y < h; y++) {
            size_t s = src + y * w, d = ((y0 + y) * mw + x0) * c + ch;
            if (ints && deep)
                place_row_i32_u16(&m, (const int32_t *)pyr->data + s, w,
                                  (uint16_t *)out->pixels + d, c, peak);
            else if (ints)
                place_row_i32_u8(&m, (const int32_t *)pyr->data + s, w,
                                 (uint8_t *)out->pixels + d, c, peak);
            else if (deep)
                place_row_f32_u16(&m, (const float *)pyr->data + s, w,
                                  (uint16_t *)out->pixels + d, c, peak);
            else
                place_row_f32_u8(&m, (const float *)pyr->data + s, w,
                                 (uint8_t *)out->pixels + d, c, peak);
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

/* ---- undecimated band stacks ------------------------------------------------
 * A grid of full-size tiles. SWT: 4 tiles wide, one row per level from the
 * coarsest (top): cA, cH, cV, cD; the cA column holds cA_L on the top row and
 * cA_l on the others with all_approx, else black. Starlet: one row, c then
 * w_L ... w_1. Each tile scaled as the DWT mosaic scales its band. */

/* Grid cell (row, column) of band @p i of a stack; the grid's size in tiles. */
static void stack_cell(const wt_uparams *p, int i, size_t *row, size_t *col)
{
    int L = p->levels;
    if (p->transform == WT_TRANSFORM_STARLET) {
        *row = 0;
        *col = i == 0 ? 0 : (size_t)(L - i + 1);
    } else if (i == 0) {
        *row = *col = 0;
    } else if (i <= 3 * L) {
        *row = (size_t)(i - 1) / 3;
        *col = 1 + (size_t)(i - 1) % 3;
    } else { /* cA_l, l = i - 3L */
        *row = (size_t)(L - (i - 3 * L));
        *col = 0;
    }
}

static void stack_grid(const wt_uparams *p, size_t *rows, size_t *cols)
{
    *rows = p->transform == WT_TRANSFORM_STARLET ? 1 : (size_t)p->levels;
    *cols = p->transform == WT_TRANSFORM_STARLET ? (size_t)p->levels + 1 : 4;
}

void wt_umosaic_size(const wt_uparams *p, size_t height, size_t width, size_t *mh, size_t *mw)
{
    size_t rows, cols;
    stack_grid(p, &rows, &cols);
    *mh = rows * height;
    *mw = cols * width;
}

/* Approximations: SWT cA bands and the starlet's smooth plane. */
static int stack_is_approx(const wt_uparams *p, int i)
{
    return i == 0 || (p->transform == WT_TRANSFORM_SWT && i > 3 * p->levels);
}

static band_map plan_stack_band(const float *band, size_t n, int approx, wt_scale scale,
                                double peak)
{
    double lo, hi, maxabs, mid = peak / 2.0;
    range_f32(band, n, &lo, &hi, &maxabs);
    if (approx) /* as plan_band */
        return hi > lo ? (band_map){0.0, lo, peak / (hi - lo), 0} : (band_map){mid, 0.0, 0.0, 0};
    if (scale == WT_SCALE_OFFSET)
        return (band_map){mid, 0.0, maxabs > 0.0 ? peak / (2.0 * maxabs) : 0.0, 0};
    return (band_map){0.0, 0.0, maxabs > 0.0 ? peak / maxabs : 0.0, 1};
}

wt_status wt_umosaic_render(const wt_uparams *p, const float *bands, size_t height, size_t width,
                            int channels, wt_scale scale, int bit_depth, wt_image *out)
{
    memset(out, 0, sizeof *out);
    if (!bands || (bit_depth != 8 && bit_depth != 16) || channels < 1 || channels > 4 ||
        (unsigned)scale > WT_SCALE_OFFSET)
        return wt_error_set(WT_ERR_INVALID, "cannot render a mosaic of these bands");
    size_t mh, mw;
    wt_umosaic_size(p, height, width, &mh, &mw);
    if (mh > UINT32_MAX || mw > UINT32_MAX || mh / height != (p->transform == WT_TRANSFORM_STARLET ? 1 : (size_t)p->levels))
        return wt_error_set(WT_ERR_LIMIT, "mosaic of %zux%zu is too large", mh, mw);
    wt_status st = wt_image_alloc(out, (uint32_t)mw, (uint32_t)mh, channels, bit_depth);
    if (st != WT_OK)
        return st;
    const int deep = bit_depth > 8;
    const double peak = deep ? 65535.0 : 255.0;
    const size_t c = (size_t)channels, plane = height * width;
    for (int i = 0; i < wt_ustack_bands(p); i++) {
        const float *band = bands + (size_t)i * c * plane;
        band_map m = plan_stack_band(band, c * plane, stack_is_approx(p, i), scale, peak);
        size_t row, col;
        stack_cell(p, i, &row, &col);
        for (size_t ch = 0; ch < c; ch++)
            for (size_t y = 0; y < height; y++) {
                const float *src = band + ch * plane + y * width;
                size_t d = ((row * height + y) * mw + col * width) * c + ch;
                if (deep)
                    place_row_f32_u16(&m, src, width, (uint16_t *)out->pixels + d, c, peak);
                else
                    place_row_f32_u8(&m, src, width, (uint8_t *)out->pixels + d, c, peak);
            }
    }
    return WT_OK;
}
