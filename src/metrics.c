/* Image quality: MSE and PSNR per channel, and of the mean MSE as ffmpeg's psnr
 * filter reports its "average". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wavetool.h"

static double psnr_of(double mse, double peak)
{
    return mse > 0.0 ? 10.0 * log10(peak * peak / mse) : INFINITY;
}

static wt_status check_comparable(const wt_image *a, const wt_image *b)
{
    if (a->width != b->width || a->height != b->height)
        return wt_error_set(WT_ERR_INVALID, "images differ in size (%ux%u vs %ux%u)", a->width,
                            a->height, b->width, b->height);
    if (a->channels != b->channels)
        return wt_error_set(WT_ERR_INVALID, "images differ in channels (%d vs %d)", a->channels,
                            b->channels);
    if (a->bit_depth != b->bit_depth)
        return wt_error_set(WT_ERR_INVALID, "images differ in bit depth (%d vs %d)",
                            a->bit_depth, b->bit_depth);
    if (a->channels < 1 || a->channels > 4 || (a->bit_depth != 8 && a->bit_depth != 16))
        return wt_error_set(WT_ERR_INVALID, "unsupported image layout (%d channels, %d-bit)",
                            a->channels, a->bit_depth);
    return WT_OK;
}

static unsigned sample_at(const wt_image *img, size_t index)
{
    if (img->bit_depth > 8)
        return ((const uint16_t *)img->pixels)[index];
    return ((const uint8_t *)img->pixels)[index];
}

wt_status wt_quality_compare(const wt_image *a, const wt_image *b, wt_quality *q)
{
    memset(q, 0, sizeof *q);
    wt_status st = check_comparable(a, b);
    if (st != WT_OK)
        return st;
    size_t n = (size_t)a->width * a->height, c = (size_t)a->channels;
    /* integer sums of squared differences are exact (< 2^32 per sample) */
    uint64_t sse[4] = {0, 0, 0, 0};
    long double big[4] = {0, 0, 0, 0}; /* spill-over for huge 16-bit images */
    for (size_t i = 0; i < n; i++)
        for (size_t ch = 0; ch < c; ch++) {
            int64_t d = (int64_t)sample_at(a, i * c + ch) - (int64_t)sample_at(b, i * c + ch);
            uint64_t sq = (uint64_t)(d * d);
            if (sse[ch] > UINT64_MAX - sq) {
                big[ch] += (long double)sse[ch];
                sse[ch] = 0;
            }
            sse[ch] += sq;
        }
    double peak = a->bit_depth > 8 ? 65535.0 : 255.0, sum = 0.0;
    q->channels = a->channels;
    for (size_t ch = 0; ch < c; ch++) {
        q->mse[ch] = n ? (double)((big[ch] + (long double)sse[ch]) / (long double)n) : 0.0;
        q->psnr[ch] = psnr_of(q->mse[ch], peak);
        sum += q->mse[ch];
    }
    q->mse_mean = sum / (double)c;
    q->psnr_mean = psnr_of(q->mse_mean, peak);
    return WT_OK;
}

/* ---- thresholding of detail coefficients -------------------------------- */

/* Detail coefficients follow cA in storage: [first, total). */
static size_t first_detail(const wt_pyramid *pyr)
{
    return pyr->levels ? wt_pyramid_offset(pyr, pyr->levels, WT_BAND_H, 0) : pyr->total;
}

static double detail_at(const wt_pyramid *pyr, size_t i)
{
    if (pyr->dtype == WT_INT32)
        return (double)((const int32_t *)pyr->data)[i];
    return (double)((const float *)pyr->data)[i];
}

static void detail_set(wt_pyramid *pyr, size_t i, double v)
{
    if (pyr->dtype == WT_INT32)
        ((int32_t *)pyr->data)[i] = (int32_t)lrint(v);
    else
        ((float *)pyr->data)[i] = (float)v;
}

static double fraction_nonzero(const wt_pyramid *pyr)
{
    size_t first = first_detail(pyr), nonzero = 0;
    for (size_t i = first; i < pyr->total; i++)
        nonzero += detail_at(pyr, i) != 0.0;
    return pyr->total > first ? (double)nonzero / (double)(pyr->total - first) : 1.0;
}

static wt_status check_thresholdable(const wt_pyramid *pyr, double value)
{
    if (!pyr || !pyr->data || isnan(value) || value < 0.0)
        return wt_error_set(WT_ERR_INVALID, "invalid threshold");
    return WT_OK;
}

wt_status wt_pyramid_threshold(wt_pyramid *pyr, double value, int soft, double *kept)
{
    wt_status st = check_thresholdable(pyr, value);
    if (st != WT_OK)
        return st;
    for (size_t i = first_detail(pyr); i < pyr->total; i++) {
        double v = detail_at(pyr, i), m = fabs(v);
        if (m < value)
            detail_set(pyr, i, 0.0);
        else if (soft)
            detail_set(pyr, i, copysign(m - value, v));
    }
    if (kept)
        *kept = fraction_nonzero(pyr);
    return WT_OK;
}

static void swap_values(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* The k-th largest (0-based) of v[0..n), by quickselect with a three-way
 * partition (many equal values are common: flat images); v is reordered. */
static double kth_largest(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n; /* the answer lies in v[lo..hi) */
    for (;;) {
        double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
        double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        /* [lo, gt) > pivot, [gt, i) == pivot, [lt, hi) < pivot */
        size_t gt = lo, i = lo, lt = hi;
        while (i < lt) {
            if (v[i] > pivot)
                swap_values(&v[i++], &v[gt++]);
            else if (v[i] < pivot)
                swap_values(&v[i], &v[--lt]);
            else
                i++;
        }
        if (k < gt)
            hi = gt;
        else if (k < lt)
            return pivot;
        else
            lo = lt;
    }
}

wt_status wt_pyramid_keep(wt_pyramid *pyr, double fraction, double *kept)
{
    wt_status st = check_thresholdable(pyr, fraction);
    if (st == WT_OK && fraction > 1.0)
        st = wt_error_set(WT_ERR_INVALID, "fraction to keep must be between 0 and 1");
    if (st != WT_OK)
        return st;
    size_t first = first_detail(pyr), n = pyr->total - first;
    size_t k = (size_t)floor(fraction * (double)n + 0.5);
    if (k < n) {
        double *mag = malloc(n * sizeof *mag);
        if (!mag)
            return wt_error_set(WT_ERR_NOMEM, "out of memory for %zu coefficients", n);
        for (size_t i = 0; i < n; i++)
            mag[i] = fabs(detail_at(pyr, first + i));
        double cut = k ? kth_largest(mag, n, k - 1) : INFINITY;
        size_t above = 0;
        for (size_t i = 0; i < n; i++)
            above += fabs(detail_at(pyr, first + i)) > cut;
        size_t ties = k - above; /* how many equal to the cut survive */
        for (size_t i = first; i < pyr->total; i++) {
            double m = fabs(detail_at(pyr, i));
            if (m > cut)
                continue;
            if (m == cut && ties) {
                ties--;
                continue;
            }
            detail_set(pyr, i, 0.0);
        }
        free(mag);
    }
    if (kept)
        *kept = fraction_nonzero(pyr);
    return WT_OK;
}
