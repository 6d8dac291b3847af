/* Subband mosaics: every band of a pyramid in one picture, laid out like
 * pywt.coeffs_to_array, each band scaled for display on its own. */
#include <float.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mosaic_draw.h"
#include "wavetool.h"
#include "transform.h"
#include "wavetool_hooks.h" /* wt_select_kth */

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
    size_t i = 0;
#if defined(__SSE2__)
    if (!wt_cpu_reference()) { /* four lanes, then the lanes' extremes */
        const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
        const __m128 big = _mm_set1_ps(FLT_MAX), inf = _mm_set1_ps(INFINITY);
        const __m128 minus_inf = _mm_set1_ps(-INFINITY);
        __m128 mn4 = inf, mx4 = minus_inf, ma4 = _mm_setzero_ps();
        for (; i + 4 <= n; i += 4) {
            __m128 x = _mm_loadu_ps(v + i), ax = _mm_and_ps(x, abs_mask);
            __m128 finite = _mm_cmple_ps(ax, big); /* false for NaN and infinities */
            mn4 = _mm_min_ps(_mm_or_ps(_mm_and_ps(finite, x), _mm_andnot_ps(finite, inf)), mn4);
            mx4 = _mm_max_ps(_mm_or_ps(_mm_and_ps(finite, x), _mm_andnot_ps(finite, minus_inf)), mx4);
            ma4 = _mm_max_ps(_mm_and_ps(finite, ax), ma4);
        }
        float l[4], h[4], a[4];
        _mm_storeu_ps(l, mn4);
        _mm_storeu_ps(h, mx4);
        _mm_storeu_ps(a, ma4);
        for (int k = 0; k < 4; k++) {
            mn = l[k] < mn ? l[k] : mn;
            mx = h[k] > mx ? h[k] : mx;
            ma = a[k] > ma ? a[k] : ma;
        }
    }
#endif
    for (; i < n; i++) {
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

/* @p display_max: the detail maximum M of a style (NULL: the band's max |v|). */
static band_map plan_band(const wt_pyramid *pyr, int level, wt_band b, wt_scale scale,
                          double peak, const double *display_max)
{
    double lo, hi, maxabs, mid = peak / 2.0;
    band_range(pyr, level, b, &lo, &hi, &maxabs);
    if (display_max)
        maxabs = *display_max;
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
DEFINE_PLACE_ROW(place_row_ref_f32_u8, float, uint8_t)
DEFINE_PLACE_ROW(place_row_ref_f32_u16, float, uint16_t)
DEFINE_PLACE_ROW(place_row_i32_u8, int32_t, uint8_t)
DEFINE_PLACE_ROW(place_row_i32_u16, int32_t, uint16_t)

#if defined(__SSE2__)
/* Display samples a block of place_row_f32 maps at once. */
#define PLACE_BLOCK 256

/* The display values of @p n floats (n <= PLACE_BLOCK, a nonzero gain) into
 * @p q: the reference loop's double arithmetic two values a register
 * (maxpd gives 0 for NaN and for -0, which rounds to the same 0; cvtpd2dq
 * rounds to nearest even, as lrint). */
static void map_block_sse2(const band_map *m, const float *src, size_t n, double peak,
                           int32_t *q)
{
    const __m128d base = _mm_set1_pd(m->base), gain = _mm_set1_pd(m->gain);
    const __m128d center = _mm_set1_pd(m->center), top = _mm_set1_pd(peak);
    const __m128d zero = _mm_setzero_pd(), sign = _mm_set1_pd(m->absolute ? -0.0 : 0.0);
    size_t x = 0;
    for (; x + 4 <= n; x += 4) {
        __m128 v = _mm_loadu_ps(src + x);
        __m128d half[2] = {_mm_cvtps_pd(v), _mm_cvtps_pd(_mm_movehl_ps(v, v))};
        __m128i r[2];
        for (int h = 0; h < 2; h++) {
            __m128d d = _mm_andnot_pd(sign, half[h]); /* |v| where absolute */
            d = _mm_add_pd(base, _mm_mul_pd(gain, _mm_sub_pd(d, center)));
            r[h] = _mm_cvtpd_epi32(_mm_min_pd(_mm_max_pd(d, zero), top));
        }
        _mm_storeu_si128((__m128i *)(void *)(q + x), _mm_unpacklo_epi64(r[0], r[1]));
    }
    for (; x < n; x++)
        q[x] = (int32_t)map_value(m, src[x], peak);
}

/* place_row_ref of float rows, a block at a time through map_block_sse2. */
#define DEFINE_PLACE_ROW_F32(NAME, REF, DST)                                                   \
    static void NAME(const band_map *m, const float *src, size_t w, DST *dst, size_t c,        \
                     double peak)                                                              \
    {                                                                                          \
        if (m->gain == 0.0 || wt_cpu_reference()) {                                            \
            REF(m, src, w, dst, c, peak);                                                      \
            return;                                                                            \
        }                                                                                      \
        int32_t q[PLACE_BLOCK];                                                                \
        for (size_t b = 0; b < w; b += PLACE_BLOCK) {                                          \
            size_t n = w - b < PLACE_BLOCK ? w - b : PLACE_BLOCK;                              \
            map_block_sse2(m, src + b, n, peak, q);                                            \
            for (size_t x = 0; x < n; x++)                                                     \
                dst[(b + x) * c] = (DST)q[x];                                                  \
        }                                                                                      \
    }
DEFINE_PLACE_ROW_F32(place_row_f32_u8, place_row_ref_f32_u8, uint8_t)
DEFINE_PLACE_ROW_F32(place_row_f32_u16, place_row_ref_f32_u16, uint16_t)
#undef DEFINE_PLACE_ROW_F32
#else
#define place_row_f32_u8 place_row_ref_f32_u8
#define place_row_f32_u16 place_row_ref_f32_u16
#endif
#undef DEFINE_PLACE_ROW

/* Copy one band into the mosaic with its top-left corner at (y0, x0). */
static void place_band(const wt_pyramid *pyr, int level, wt_band b, wt_scale scale,
                       const double *display_max, wt_image *out, size_t y0, size_t x0)
{
    int deep = out->bit_depth > 8, ints = pyr->dtype == WT_INT32;
    double peak = deep ? 65535.0 : 255.0;
    band_map m = plan_band(pyr, level, b, scale, peak, display_max);
    size_t h, w, mw = out->width, c = (size_t)pyr->channels;
    wt_pyramid_band_shape(pyr, level, b, &h, &w);
    /* row by row, every channel of a row in turn: the row's cache lines of
     * the mosaic are written while they are in the cache */
    for (size_t y = 0; y < h; y++) {
        for (size_t ch = 0; ch < c; ch++) {
            size_t src = wt_pyramid_offset(pyr, level, b, (int)ch);
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

/* Whether the bands cover the mosaic (coeffs_to_array leaves zeros where
 * a level's details are smaller than the approximation beside them): at
 * each level the detail bands are as tall and wide as everything coarser. */
static int bands_cover_mosaic(const wt_pyramid *pyr)
{
    size_t ah = pyr->lo_h[pyr->levels], aw = pyr->lo_w[pyr->levels];
    for (int l = pyr->levels; l >= 1; l--) {
        if (pyr->hi_h[l] != ah || pyr->hi_w[l] != aw)
            return 0;
        ah += pyr->hi_h[l];
        aw += pyr->hi_w[l];
    }
    return 1;
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
    wt_status st = bands_cover_mosaic(pyr)
                       ? wt_image_alloc_unset(out, (uint32_t)mw, (uint32_t)mh, pyr->channels,
                                              bit_depth)
                       : wt_image_alloc(out, (uint32_t)mw, (uint32_t)mh, pyr->channels, bit_depth);
    if (st != WT_OK)
        return st;
    /* the order of coeffs_to_array: cA, then per level from the coarsest cH, cV, cD;
     * (ah, aw) grows by each level's cD shape */
    size_t ah = pyr->lo_h[pyr->levels], aw = pyr->lo_w[pyr->levels];
    place_band(pyr, pyr->levels, WT_BAND_A, scale, NULL, out, 0, 0);
    for (int l = pyr->levels; l >= 1; l--) {
        place_band(pyr, l, WT_BAND_H, scale, NULL, out, ah, 0);
        place_band(pyr, l, WT_BAND_V, scale, NULL, out, 0, aw);
        place_band(pyr, l, WT_BAND_D, scale, NULL, out, ah, aw);
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

/* The stack's grid in tiles (its module's layout). */
static void stack_grid(const wt_uparams *p, size_t *rows, size_t *cols)
{
    wt_uclass(p)->mosaic_grid(p, rows, cols);
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
    wt_band_ref r;
    return !wt_uclass(p)->band_ref(p, i, &r);
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
    size_t mh, mw, rows, cols;
    wt_umosaic_size(p, height, width, &mh, &mw);
    stack_grid(p, &rows, &cols);
    if (mh > UINT32_MAX || mw > UINT32_MAX || mh / height != rows)
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
        wt_uclass(p)->mosaic_cell(p, i, &row, &col);
        for (size_t y = 0; y < height; y++) /* as place_band: a row's channels in turn */
            for (size_t ch = 0; ch < c; ch++) {
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
/* ---- tiles: float planes at given places (volumes) ----------------------------- */

wt_status wt_mosaic_render_tiles(const wt_mosaic_tile *tiles, size_t n, size_t mh, size_t mw,
                                 int channels, wt_scale scale, int bit_depth, wt_image *out)
{
    memset(out, 0, sizeof *out);
    if ((bit_depth != 8 && bit_depth != 16) || channels < 1 || channels > 4 ||
        (unsigned)scale > WT_SCALE_OFFSET)
        return wt_error_set(WT_ERR_UNSUPPORTED, "mosaics show 1 to 4 channels, not %d",
                            channels);
    if (mh > UINT32_MAX || mw > UINT32_MAX)
        return wt_error_set(WT_ERR_LIMIT, "mosaic of %zux%zu is too large", mh, mw);
    wt_status st = wt_image_alloc(out, (uint32_t)mw, (uint32_t)mh, channels, bit_depth);
    if (st != WT_OK)
        return st;
    const int deep = bit_depth > 8;
    const double peak = deep ? 65535.0 : 255.0;
    const size_t c = (size_t)channels;
    for (size_t i = 0; i < n; i++) {
        const wt_mosaic_tile *t = &tiles[i];
        const size_t plane = t->h * t->w;
        band_map m = plan_stack_band(t->planes, c * plane, t->approx, scale, peak);
        for (size_t y = 0; y < t->h; y++) /* as place_band: a row's channels in turn */
            for (size_t ch = 0; ch < c; ch++) {
                const float *src = t->planes + ch * plane + y * t->w;
                size_t d = ((t->y0 + y) * mw + t->x0) * c + ch;
                if (deep)
                    place_row_f32_u16(&m, src, t->w, (uint16_t *)out->pixels + d, c, peak);
                else
                    place_row_f32_u8(&m, src, t->w, (uint8_t *)out->pixels + d, c, peak);
            }
    }
    return WT_OK;
}

/* ---- styles (src/mosaic.c) ------------------------------------------------
 * Ranges shared by bands, percentile clips, transfer curves, a diverging
 * colour map, grid lines and band labels. Linear gray styles go through the
 * row loops above with the style's display maximum, so the plain style gives
 * wt_mosaic_render's bytes; the others map each sample on its own. */

wt_mosaic_style wt_mosaic_style_plain(wt_scale scale)
{
    return (wt_mosaic_style){scale, WT_RANGE_BAND, WT_TRANSFER_LINEAR, WT_COLORMAP_GRAY, 100.0,
                             0, 0};
}

int wt_mosaic_style_is_plain(const wt_mosaic_style *s)
{
    return s->range == WT_RANGE_BAND && s->transfer == WT_TRANSFER_LINEAR &&
           s->colormap == WT_COLORMAP_GRAY && s->clip >= 100.0 && !s->grid && !s->labels;
}

static double coefficient_at(const wt_pyramid *pyr, size_t i)
{
    return pyr->dtype == WT_INT32 ? (double)((const int32_t *)pyr->data)[i]
                                  : (double)((const float *)pyr->data)[i];
}

/* numpy.percentile(v, p) (linear interpolation) of n values; v reordered. */
static double percentile(double *v, size_t n, double p)
{
    if (n == 0)
        return 0.0;
    double pos = p / 100.0 * (double)(n - 1);
    size_t k = (size_t)floor(pos);
    double a = wt_select_kth(v, n, k), frac = pos - (double)k;
    if (frac == 0.0 || k + 1 >= n)
        return a;
    double b = v[k + 1]; /* the smallest of the upper part */
    for (size_t i = k + 2; i < n; i++)
        b = v[i] < b ? v[i] : b;
    return a + frac * (b - a);
}

/* Append the finite |c| of a band (all channels) to v. */
static size_t gather_abs(const wt_pyramid *pyr, int level, wt_band b, double *v, size_t n)
{
    size_t h, w;
    wt_pyramid_band_shape(pyr, level, b, &h, &w);
    size_t first = wt_pyramid_offset(pyr, level, b, 0), count = h * w * (size_t)pyr->channels;
    for (size_t i = 0; i < count; i++) {
        double m = fabs(coefficient_at(pyr, first + i));
        if (m <= DBL_MAX)
            v[n++] = m;
    }
    return n;
}

static double max_of(const double *v, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

/* Display maximum of every detail band: [level][band - 1]. */
typedef struct display_ranges {
    double m[WT_MAX_LEVELS + 1][3];
} display_ranges;

/* M of the detail bands of levels [l0, l1] and orientations [b0, b1]. */
static double group_max(const wt_pyramid *pyr, int l0, int l1, int b0, int b1, double clip,
                        double *work)
{
    size_t n = 0;
    for (int l = l0; l <= l1; l++)
        for (int b = b0; b <= b1; b++)
            n = gather_abs(pyr, l, (wt_band)b, work, n);
    return clip >= 100.0 ? max_of(work, n) : percentile(work, n, clip);
}

static wt_status plan_ranges(const wt_pyramid *pyr, const wt_mosaic_style *st, display_ranges *r)
{
    size_t details = pyr->total - pyr->lo_h[pyr->levels] * pyr->lo_w[pyr->levels] *
                                      (size_t)pyr->channels;
    double *work = malloc((details ? details : 1) * sizeof *work);
    if (!work)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for the mosaic's ranges");
    double all = st->range == WT_RANGE_GLOBAL && pyr->levels > 0
                     ? group_max(pyr, 1, pyr->levels, WT_BAND_H, WT_BAND_D, st->clip, work)
                     : 0.0;
    for (int l = 1; l <= pyr->levels; l++) {
        double level = st->range == WT_RANGE_LEVEL
                           ? group_max(pyr, l, l, WT_BAND_H, WT_BAND_D, st->clip, work)
                           : all;
        for (int b = WT_BAND_H; b <= WT_BAND_D; b++)
            r->m[l][b - 1] = st->range == WT_RANGE_BAND
                                 ? group_max(pyr, l, l, b, b, st->clip, work)
                                 : level;
    }
    free(work);
    return WT_OK;
}

/* Band (l, b) of @p mean: the mean over the channels of @p pyr. */
static void mean_band(const wt_pyramid *pyr, wt_pyramid *mean, int l, wt_band b)
{
    size_t h, w;
    wt_pyramid_band_shape(pyr, l, b, &h, &w);
    float *to = (float *)mean->data + wt_pyramid_offset(mean, l, b, 0);
    size_t from[4];
    for (int c = 0; c < pyr->channels; c++)
        from[c] = wt_pyramid_offset(pyr, l, b, c);
    for (size_t i = 0; i < h * w; i++) {
        double sum = 0.0;
        for (int c = 0; c < pyr->channels; c++)
            sum += coefficient_at(pyr, from[c] + i);
        to[i] = (float)(sum / pyr->channels);
    }
}

/* One channel: the mean of the channels (diverging maps show one signed value). */
static wt_status mean_pyramid(const wt_pyramid *pyr, wt_pyramid *mean)
{
    *mean = *pyr;
    mean->channels = 1;
    mean->dtype = WT_FLOAT32;
    mean->total = pyr->total / (size_t)pyr->channels;
    mean->data = malloc((mean->total ? mean->total : 1) * sizeof(float));
    mean->owned = 1;
    if (!mean->data)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for the mosaic");
    mean_band(pyr, mean, pyr->levels, WT_BAND_A);
    for (int l = pyr->levels; l >= 1; l--)
        for (int b = WT_BAND_H; b <= WT_BAND_D; b++)
            mean_band(pyr, mean, l, (wt_band)b);
    return WT_OK;
}

static double transfer(wt_transfer t, double u)
{
    switch (t) {
    case WT_TRANSFER_SQRT: return sqrt(u);
    case WT_TRANSFER_LOG: return log1p(255.0 * u) / log(256.0);
    case WT_TRANSFER_LINEAR: break;
    }
    return u;
}

static void put_sample(wt_image *out, size_t y, size_t x, int ch, double s, double peak)
{
    s = s >= 0.0 ? s : 0.0; /* NaN: 0 */
    long v = lrint(s < peak ? s : peak);
    size_t i = (y * out->width + x) * (size_t)out->channels + (size_t)ch;
    if (out->bit_depth > 8)
        ((uint16_t *)out->pixels)[i] = (uint16_t)v;
    else
        ((uint8_t *)out->pixels)[i] = (uint8_t)v;
}

/* A detail value as a signed display value t in [-1, 1] (NaN: 0). */
static double signed_display(const wt_mosaic_style *st, double v, double m)
{
    double u = m > 0.0 ? fabs(v) / m : 0.0;
    u = u < 1.0 ? u : 1.0;
    u = u == u ? u : 0.0;
    return copysign(transfer(st->transfer, u), v);
}

static void put_pixel(const wt_mosaic_style *st, wt_image *out, size_t y, size_t x, int ch,
                      int detail, double v, const band_map *a, double m, double peak)
{
    if (!detail) { /* cA: min..max, gray in every output channel of a diverging map */
        double g = (double)map_value(a, v, peak);
        for (int k = 0; k < (st->colormap == WT_COLORMAP_DIVERGING ? 3 : 1); k++)
            put_sample(out, y, x, st->colormap == WT_COLORMAP_DIVERGING ? k : ch, g, peak);
        return;
    }
    double t = signed_display(st, v, m);
    if (st->colormap == WT_COLORMAP_DIVERGING) { /* blue - white - red */
        double fade = peak * (1.0 - fabs(t));
        put_sample(out, y, x, 0, t < 0.0 ? fade : peak, peak);
        put_sample(out, y, x, 1, fade, peak);
        put_sample(out, y, x, 2, t > 0.0 ? fade : peak, peak);
    } else if (st->scale == WT_SCALE_OFFSET) {
        put_sample(out, y, x, ch, peak / 2.0 + t * peak / 2.0, peak);
    } else {
        put_sample(out, y, x, ch, fabs(t) * peak, peak);
    }
}

/* A band drawn sample by sample (transfer curves, colour maps). */
static void place_band_mapped(const wt_pyramid *pyr, int level, wt_band b,
                              const wt_mosaic_style *st, double m, wt_image *out, size_t y0,
                              size_t x0)
{
    double peak = out->bit_depth > 8 ? 65535.0 : 255.0;
    band_map a = plan_band(pyr, level, b, st->scale, peak, NULL);
    size_t h, w;
    wt_pyramid_band_shape(pyr, level, b, &h, &w);
    for (int ch = 0; ch < pyr->channels; ch++) {
        size_t src = wt_pyramid_offset(pyr, level, b, ch);
        for (size_t y = 0; y < h; y++)
            for (size_t x = 0; x < w; x++)
                put_pixel(st, out, y0 + y, x0 + x, ch, b != WT_BAND_A,
                          coefficient_at(pyr, src + y * w + x), &a, m, peak);
    }
}

/* ---- grid and labels ------------------------------------------------------ */

void wt_mosaic_fill_pixel(wt_image *out, size_t y, size_t x, double value)
{
    double peak = out->bit_depth > 8 ? 65535.0 : 255.0;
    for (int c = 0; c < out->channels; c++) /* alpha (last of 2 or 4) opaque */
        put_sample(out, y, x, c, (out->channels % 2 == 0 && c == out->channels - 1) ? peak : value,
                   peak);
}

/* Lines over the first row and column of each level's detail bands. */
static void draw_grid(const wt_pyramid *pyr, wt_image *out, double value)
{
    size_t ah = pyr->lo_h[pyr->levels], aw = pyr->lo_w[pyr->levels];
    for (int l = pyr->levels; l >= 1; l--) {
        size_t bh = ah + pyr->hi_h[l], bw = aw + pyr->hi_w[l];
        for (size_t x = 0; x < bw && ah < out->height; x++)
            wt_mosaic_fill_pixel(out, ah, x, value);
        for (size_t y = 0; y < bh && aw < out->width; y++)
            wt_mosaic_fill_pixel(out, y, aw, value);
        ah = bh;
        aw = bw;
    }
}

/* 5x7 glyphs, rows top to bottom, bit 4 the leftmost column. */
static const uint8_t *glyph(char c)
{
    static const uint8_t digits[10][7] = {
        {14, 17, 19, 21, 25, 17, 14}, {4, 12, 4, 4, 4, 4, 14},   {14, 17, 1, 2, 4, 8, 31},
        {31, 2, 4, 2, 1, 17, 14},     {2, 6, 10, 18, 31, 2, 2},  {31, 16, 30, 1, 1, 17, 14},
        {6, 8, 16, 30, 17, 17, 14},   {31, 1, 2, 4, 8, 8, 8},    {14, 17, 17, 14, 17, 17, 14},
        {14, 17, 17, 15, 1, 2, 12}};
    static const uint8_t c_[7] = {0, 0, 14, 16, 16, 17, 14}, A[7] = {14, 17, 17, 31, 17, 17, 17},
                         H[7] = {17, 17, 17, 31, 17, 17, 17}, V[7] = {17, 17, 17, 17, 17, 10, 4},
                         D[7] = {28, 18, 17, 17, 17, 18, 28};
    switch (c) {
    case 'c': return c_;
    case 'A': return A;
    case 'H': return H;
    case 'V': return V;
    case 'D': return D;
    default: return c >= '0' && c <= '9' ? digits[c - '0'] : NULL;
    }
}

void wt_mosaic_draw_label(wt_image *out, const char *text, size_t y0, size_t x0, size_t bh,
                          size_t bw)
{
    double peak = out->bit_depth > 8 ? 65535.0 : 255.0;
    size_t len = strlen(text), box_w = 6 * len + 1, box_h = 9;
    if (box_w > bw || box_h > bh)
        return;
    for (size_t y = 0; y < box_h; y++)
        for (size_t x = 0; x < box_w; x++)
            wt_mosaic_fill_pixel(out, y0 + y, x0 + x, 0.0);
    for (size_t i = 0; i < len; i++) {
        const uint8_t *g = glyph(text[i]);
        for (size_t y = 0; g && y < 7; y++)
            for (size_t x = 0; x < 5; x++)
                if (g[y] & (16 >> x))
                    wt_mosaic_fill_pixel(out, y0 + 1 + y, x0 + 1 + 6 * i + x, peak);
    }
}

static void draw_labels(const wt_pyramid *pyr, wt_image *out)
{
    static const char letters[] = "AHVD";
    char name[16];
    size_t ah = pyr->lo_h[pyr->levels], aw = pyr->lo_w[pyr->levels];
    snprintf(name, sizeof name, "cA%d", pyr->levels);
    wt_mosaic_draw_label(out, name, 0, 0, ah, aw);
    for (int l = pyr->levels; l >= 1; l--) {
        for (int b = WT_BAND_H; b <= WT_BAND_D; b++) {
            size_t h, w;
            wt_pyramid_band_shape(pyr, l, (wt_band)b, &h, &w);
            snprintf(name, sizeof name, "c%c%d", letters[b], l);
            wt_mosaic_draw_label(out, name, b == WT_BAND_V ? 0 : ah, b == WT_BAND_H ? 0 : aw, h, w);
        }
        ah += pyr->hi_h[l];
        aw += pyr->hi_w[l];
    }
}

/* ---- render ---------------------------------------------------------------- */

static void place_styled(const wt_pyramid *pyr, int level, wt_band b, const wt_mosaic_style *st,
                         const display_ranges *r, wt_image *out, size_t y0, size_t x0)
{
    const double *m = b == WT_BAND_A ? NULL : &r->m[level][b - 1];
    if (st->transfer == WT_TRANSFER_LINEAR && st->colormap == WT_COLORMAP_GRAY)
        place_band(pyr, level, b, st->scale, m, out, y0, x0);
    else
        place_band_mapped(pyr, level, b, st, m ? *m : 0.0, out, y0, x0);
}

static wt_status check_style(const wt_pyramid *pyr, const wt_mosaic_style *st, int bit_depth)
{
    if (!st || !pyr || !pyr->data || (bit_depth != 8 && bit_depth != 16) || pyr->channels < 1 ||
        pyr->channels > 4 || (unsigned)st->scale > WT_SCALE_OFFSET ||
        (unsigned)st->range > WT_RANGE_GLOBAL || (unsigned)st->transfer > WT_TRANSFER_LOG ||
        (unsigned)st->colormap > WT_COLORMAP_DIVERGING || !(st->clip > 0.0 && st->clip <= 100.0))
        return wt_error_set(WT_ERR_INVALID, "cannot render a mosaic of this pyramid in this "
                                            "style (%d channels, %d-bit)",
                            pyr ? pyr->channels : 0, bit_depth);
    return WT_OK;
}

static wt_status render_styled(const wt_pyramid *pyr, const wt_mosaic_style *st, int bit_depth,
                               wt_image *out)
{
    size_t mh, mw;
    display_ranges r;
    wt_mosaic_size(pyr, &mh, &mw);
    if (mh > UINT32_MAX || mw > UINT32_MAX)
        return wt_error_set(WT_ERR_LIMIT, "mosaic of %zux%zu is too large", mh, mw);
    int channels = st->colormap == WT_COLORMAP_DIVERGING ? 3 : pyr->channels;
    wt_status s = plan_ranges(pyr, st, &r);
    if (s == WT_OK)
        s = wt_image_alloc(out, (uint32_t)mw, (uint32_t)mh, channels, bit_depth);
    if (s != WT_OK)
        return s;
    size_t ah = pyr->lo_h[pyr->levels], aw = pyr->lo_w[pyr->levels];
    place_styled(pyr, pyr->levels, WT_BAND_A, st, &r, out, 0, 0);
    for (int l = pyr->levels; l >= 1; l--) {
        place_styled(pyr, l, WT_BAND_H, st, &r, out, ah, 0);
        place_styled(pyr, l, WT_BAND_V, st, &r, out, 0, aw);
        place_styled(pyr, l, WT_BAND_D, st, &r, out, ah, aw);
        ah += pyr->hi_h[l];
        aw += pyr->hi_w[l];
    }
    double peak = bit_depth > 8 ? 65535.0 : 255.0;
    if (st->grid)
        draw_grid(pyr, out, st->colormap == WT_COLORMAP_DIVERGING ? 0.0 : peak);
    if (st->labels)
        draw_labels(pyr, out);
    return WT_OK;
}

wt_status wt_mosaic_render_style(const wt_pyramid *pyr, const wt_mosaic_style *style,
                                 int bit_depth, wt_image *out)
{
    memset(out, 0, sizeof *out);
    wt_status st = check_style(pyr, style, bit_depth);
    if (st != WT_OK)
        return st;
    if (style->colormap != WT_COLORMAP_DIVERGING || pyr->channels == 1)
        return render_styled(pyr, style, bit_depth, out);
    wt_pyramid mean;
    st = mean_pyramid(pyr, &mean);
    if (st == WT_OK)
        st = render_styled(&mean, style, bit_depth, out);
    wt_pyramid_free(&mean);
    return st;
}
