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

/* The sums of squared differences go by chunks of CHUNK pixels of the whole
 * image, small enough that a chunk's uint64 sums cannot overflow; the chunks'
 * sums are added in order in long double. Rows fed a band at a time
 * (wt_quality_rows_add) keep the whole image's chunks: the same sums, the
 * same numbers. */
#define CHUNK ((size_t)1 << 20)

/* Squared differences of @p count samples of @p a and @p b (interleaved,
 * @p c channels) added to @p sum per channel. */
#define SSE_LOOP(T)                                                                              \
    do {                                                                                         \
        const T *pa = (const T *)a + first, *pb = (const T *)b + first;                          \
        for (size_t i = 0; i < count; i += c)                                                    \
            for (size_t ch = 0; ch < c; ch++) {                                                  \
                int64_t d = (int64_t)pa[i + ch] - (int64_t)pb[i + ch];                           \
                sum[ch] += (uint64_t)(d * d);                                                    \
            }                                                                                    \
    } while (0)

static void sse_run(const void *a, const void *b, int bit_depth, size_t c, size_t first,
                    size_t count, uint64_t *sum)
{
    if (bit_depth > 8)
        SSE_LOOP(uint16_t);
    else
        SSE_LOOP(uint8_t);
}

/* Whole chunks of a band, one sum each, on the thread pool. */
typedef struct sse_job {
    const wt_image *a, *b;
    size_t first; /* the band's pixel where its first whole chunk starts */
    uint64_t (*sums)[WT_MAX_CHANNELS]; /* per chunk */
} sse_job;

static void sse_chunks(void *ctx, size_t begin, size_t end)
{
    const sse_job *j = ctx;
    size_t c = (size_t)j->a->channels;
    for (size_t k = begin; k < end; k++)
        sse_run(j->a->pixels, j->b->pixels, j->a->bit_depth, c, (j->first + k * CHUNK) * c,
                CHUNK * c, j->sums[k]);
}

/* The chunk being filled added to the sums, and cleared. */
static void close_chunk(wt_quality_rows *s)
{
    for (int ch = 0; ch < s->layout.channels; ch++) {
        s->sse[ch] += (long double)s->chunk[ch];
        s->chunk[ch] = 0;
    }
}

/* Pixels [from, from + n) of the band into the chunk being filled, closed
 * when it is full. */
static void add_to_chunk(wt_quality_rows *s, const wt_image *a, const wt_image *b, size_t from,
                         size_t n)
{
    size_t c = (size_t)a->channels;
    if (n == 0)
        return;
    sse_run(a->pixels, b->pixels, a->bit_depth, c, from * c, n * c, s->chunk);
    s->done += n;
    if (s->done % CHUNK == 0)
        close_chunk(s);
}

/* Integer samples: the band's pixels completing the chunk being filled,
 * its whole chunks in parallel, the rest into the next chunk. */
static wt_status add_integer_rows(wt_quality_rows *s, const wt_image *a, const wt_image *b)
{
    size_t n = (size_t)a->width * a->height;
    size_t head = (CHUNK - s->done % CHUNK) % CHUNK;
    head = head < n ? head : n;
    add_to_chunk(s, a, b, 0, head);
    size_t whole = (n - head) / CHUNK;
    if (whole) {
        sse_job job = {a, b, head, calloc(whole, sizeof *job.sums)};
        if (!job.sums)
            return wt_error_set(WT_ERR_NOMEM, "out of memory");
        wt_parallel_for(0, whole, sse_chunks, &job);
        for (size_t k = 0; k < whole; k++) {
            memcpy(s->chunk, job.sums[k], sizeof s->chunk);
            close_chunk(s);
        }
        s->done += whole * CHUNK;
        free(job.sums);
    }
    add_to_chunk(s, a, b, head + whole * CHUNK, n - head - whole * CHUNK);
    return WT_OK;
}

/* Float32 samples: squared differences summed in long double, one thread,
 * in storage order; the range of @p a followed in the same pass. */
static void add_float_rows(wt_quality_rows *s, const wt_image *a, const wt_image *b)
{
    size_t all = (size_t)a->width * a->height * (size_t)a->channels, c = (size_t)a->channels;
    const float *pa = a->pixels, *pb = b->pixels;
    if (s->done == 0 && all)
        s->lo = s->hi = pa[0];
    for (size_t i = 0; i < all; i++) {
        double d = (double)pa[i] - (double)pb[i];
        s->sse[i % c] += (long double)(d * d);
        s->lo = pa[i] < s->lo ? pa[i] : s->lo;
        s->hi = pa[i] > s->hi ? pa[i] : s->hi;
    }
    s->done += (size_t)a->width * a->height;
}

/* The peak of float32 images: the range (max - min) of the reference, 1 when
 * flat. */
static double float_peak(const wt_quality_rows *s)
{
    return s->hi > s->lo && isfinite(s->hi - s->lo) ? s->hi - s->lo : 1.0;
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

wt_status wt_quality_rows_start(wt_quality_rows *s, const wt_image *layout)
{
    memset(s, 0, sizeof *s);
    s->layout = *layout;
    s->layout.pixels = NULL;
    s->layout.meta = NULL;
    return check_comparable(&s->layout, &s->layout);
}

wt_status wt_quality_rows_add(wt_quality_rows *s, const wt_image *a, const wt_image *b)
{
    const wt_image *l = &s->layout;
    if (a->width != l->width || a->channels != l->channels || a->bit_depth != l->bit_depth ||
        !a->pixels || !b->pixels || a->height > l->height - s->done / l->width)
        return wt_error_set(WT_ERR_INVALID, "rows that are not the next of the image compared");
    wt_status st = check_comparable(a, b);
    if (st != WT_OK)
        return st;
    if (l->bit_depth == WT_DEPTH_F32) {
        add_float_rows(s, a, b);
        return WT_OK;
    }
    return add_integer_rows(s, a, b);
}

wt_status wt_quality_rows_finish(wt_quality_rows *s, double peak, wt_quality *q)
{
    const wt_image *l = &s->layout;
    size_t n = (size_t)l->width * l->height, c = (size_t)l->channels;
    memset(q, 0, sizeof *q);
    if (s->done != n)
        return wt_error_set(WT_ERR_INVALID, "%zu of the %zu pixels compared", s->done, n);
    if (l->bit_depth != WT_DEPTH_F32 && n % CHUNK)
        close_chunk(s); /* the last, short chunk */
    double fallback = l->bit_depth == WT_DEPTH_F32 ? float_peak(s)
                      : l->bit_depth > 8           ? 65535.0
                                                   : 255.0;
    quality_from_sse(s->sse, n, c, peak > 0.0 ? peak : fallback, q);
    return WT_OK;
}

wt_status wt_quality_compare(const wt_image *a, const wt_image *b, wt_quality *q)
{
    return wt_quality_compare_peak(a, b, 0.0, q);
}

wt_status wt_quality_compare_peak(const wt_image *a, const wt_image *b, double peak,
                                  wt_quality *q)
{
    wt_quality_rows s;
    memset(q, 0, sizeof *q);
    wt_status st = check_comparable(a, b);
    if (st == WT_OK)
        st = wt_quality_rows_start(&s, a);
    if (st == WT_OK)
        st = wt_quality_rows_add(&s, a, b);
    return st == WT_OK ? wt_quality_rows_finish(&s, peak, q) : st;
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
