/* Image quality: MSE and PSNR per channel, and of the mean MSE as ffmpeg's psnr
 * filter reports its "average". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_impl.h"

/* inf only for an MSE of 0: a NaN MSE (NaN samples) gives a NaN PSNR, never
 * a perfect one */
static double psnr_of(double mse, double peak)
{
    return mse > 0.0 ? 10.0 * log10(peak * peak / mse) : mse == 0.0 ? INFINITY : NAN;
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
    if (a->channels < 1 || a->channels > WT_MAX_CHANNELS ||
        (a->bit_depth != 8 && a->bit_depth != 16 && a->bit_depth != WT_DEPTH_F32))
        return wt_error_set(WT_ERR_INVALID, "unsupported image layout (%d channels, %d-bit)",
                            a->channels, a->bit_depth);
    return WT_OK;
}

/* Squared differences of pixels [begin, end) per channel. A chunk is small
 * enough (CHUNK pixels) that its uint64 sums cannot overflow. */
#define CHUNK ((size_t)1 << 20)

typedef struct sse_job {
    const wt_image *a, *b;
    size_t pixels;
    uint64_t (*sums)[WT_MAX_CHANNELS]; /* per chunk */
} sse_job;

#define SSE_LOOP(T)                                                                              \
    do {                                                                                         \
        const T *pa = (const T *)j->a->pixels + first, *pb = (const T *)j->b->pixels + first;    \
        for (size_t i = 0; i < count; i += c)                                                    \
            for (size_t ch = 0; ch < c; ch++) {                                                  \
                int64_t d = (int64_t)pa[i + ch] - (int64_t)pb[i + ch];                           \
                sum[ch] += (uint64_t)(d * d);                                                    \
            }                                                                                    \
    } while (0)

static void sse_chunks(void *ctx, size_t begin, size_t end)
{
    const sse_job *j = ctx;
    size_t c = (size_t)j->a->channels;
    for (size_t k = begin; k < end; k++) {
        size_t p0 = k * CHUNK, p1 = p0 + CHUNK < j->pixels ? p0 + CHUNK : j->pixels;
        size_t first = p0 * c, count = (p1 - p0) * c;
        uint64_t *sum = j->sums[k];
        if (j->a->bit_depth > 8)
            SSE_LOOP(uint16_t);
        else
            SSE_LOOP(uint8_t);
    }
}

/* Float32 images: squared differences summed in long double, one thread. */
static void float_sse(const wt_image *a, const wt_image *b, long double *sse)
{
    size_t n = (size_t)a->width * a->height, c = (size_t)a->channels;
    const float *pa = a->pixels, *pb = b->pixels;
    for (size_t i = 0; i < n * c; i++) {
        double d = (double)pa[i] - (double)pb[i];
        sse[i % c] += (long double)(d * d);
    }
}

/* The peak of float32 images: the range (max - min) of @p a, 1 when flat. */
static double float_peak(const wt_image *a)
{
    size_t all = (size_t)a->width * a->height * (size_t)a->channels;
    const float *p = a->pixels;
    double lo = all ? p[0] : 0.0, hi = lo;
    for (size_t i = 1; i < all; i++) {
        lo = p[i] < lo ? p[i] : lo;
        hi = p[i] > hi ? p[i] : hi;
    }
    return hi > lo && isfinite(hi - lo) ? hi - lo : 1.0;
}

/* PSNR and MSE from the per-channel sums of squared differences. */
static void quality_from_sse(const long double *sse, size_t n, size_t c, double peak,
                             wt_quality *q)
{
    double sum = 0.0;
    q->channels = (int)c;
    for (size_t ch = 0; ch < c; ch++) {
        q->mse[ch] = n ? (double)(sse[ch] / (long double)n) : 0.0;
        q->psnr[ch] = psnr_of(q->mse[ch], peak);
        sum += q->mse[ch];
    }
    q->mse_mean = sum / (double)c;
    q->psnr_mean = psnr_of(q->mse_mean, peak);
}

wt_status wt_quality_compare(const wt_image *a, const wt_image *b, wt_quality *q)
{
    return wt_quality_compare_peak(a, b, 0.0, q);
}

wt_status wt_quality_compare_peak(const wt_image *a, const wt_image *b, double peak,
                                  wt_quality *q)
{
    memset(q, 0, sizeof *q);
    wt_status st = check_comparable(a, b);
    if (st != WT_OK)
        return st;
    size_t n = (size_t)a->width * a->height, c = (size_t)a->channels;
    if (a->bit_depth == WT_DEPTH_F32) {
        long double fsse[WT_MAX_CHANNELS] = {0};
        float_sse(a, b, fsse);
        quality_from_sse(fsse, n, c, peak > 0.0 ? peak : float_peak(a), q);
        return WT_OK;
    }
    size_t chunks = (n + CHUNK - 1) / CHUNK;
    sse_job job = {a, b, n, calloc(chunks ? chunks : 1, sizeof *job.sums)};
    if (!job.sums)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    wt_parallel_for(0, chunks, sse_chunks, &job);
    long double sse[WT_MAX_CHANNELS] = {0};
    for (size_t k = 0; k < chunks; k++)
        for (size_t ch = 0; ch < c; ch++)
            sse[ch] += (long double)job.sums[k][ch];
    free(job.sums);
    quality_from_sse(sse, n, c, peak > 0.0 ? peak : a->bit_depth > 8 ? 65535.0 : 255.0, q);
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

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double wt_median(double *v, size_t n)
{
    if (n == 0)
        return 0.0;
    qsort(v, n, sizeof *v, by_value);
    return v[n / 2];
}

double wt_select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}
