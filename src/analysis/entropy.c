/* Zeroth-order entropy of dead-zone quantiser indices, band by band: the rate
 * estimate of `wavetool stats` and `roundtrip --qstep`. No engine operation
 * counts distinct values, so the pyramid is downloaded once and the histogram
 * is built here: a counting array when the indices span a small range, else a
 * sorted copy. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "engine_impl.h" /* wt_band_ref_valid */

/* Largest index magnitude kept exact; |c| / step beyond it (absurd steps)
 * counts as this index. */
#define INDEX_LIMIT 4.0e18

static int64_t quantizer_index(double c, double step)
{
    double q = floor(fabs(c) / step);
    if (!(q == q)) /* NaN: counted with the zeros */
        return 0;
    q = q < INDEX_LIMIT ? q : INDEX_LIMIT;
    return c < 0.0 ? -(int64_t)q : (int64_t)q;
}

/* -sum p log2 p of counts c_i summing to n, as log2 n - sum c log2 c / n. */
static double entropy_add(double acc, uint64_t count)
{
    return count ? acc + (double)count * log2((double)count) : acc;
}

static double entropy_of_counts_array(const uint32_t *counts, size_t range, size_t n)
{
    double acc = 0.0;
    for (size_t i = 0; i < range; i++)
        acc = entropy_add(acc, counts[i]);
    return log2((double)n) - acc / (double)n;
}

static int compare_index(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static double entropy_of_sorted(const int64_t *q, size_t n)
{
    double acc = 0.0;
    size_t run = 1;
    for (size_t i = 1; i <= n; i++) {
        if (i < n && q[i] == q[i - 1]) {
            run++;
            continue;
        }
        acc = entropy_add(acc, run);
        run = 1;
    }
    return log2((double)n) - acc / (double)n;
}

/* Entropy of the indices q[0..n) (n >= 1); q is reordered. */
static wt_status entropy_of_indices(int64_t *q, size_t n, double *bits)
{
    int64_t lo = q[0], hi = q[0];
    for (size_t i = 1; i < n; i++) {
        lo = q[i] < lo ? q[i] : lo;
        hi = q[i] > hi ? q[i] : hi;
    }
    uint64_t range = (uint64_t)hi - (uint64_t)lo + 1;
    if (range > 0 && range <= 2 * (uint64_t)n + 65536) {
        uint32_t *counts = calloc((size_t)range, sizeof *counts);
        if (!counts)
            return wt_error_set(WT_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < n; i++)
            counts[q[i] - lo]++;
        *bits = entropy_of_counts_array(counts, (size_t)range, n);
        free(counts);
        return WT_OK;
    }
    qsort(q, n, sizeof *q, compare_index);
    *bits = entropy_of_sorted(q, n);
    return WT_OK;
}

wt_status wt_quantized_entropy(const float *c, size_t n, double step, double *bits)
{
    *bits = 0.0;
    if (n == 0)
        return WT_OK;
    int64_t *q = malloc(n * sizeof *q);
    if (!q)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        q[i] = quantizer_index(c[i], step);
    wt_status st = entropy_of_indices(q, n, bits);
    free(q);
    return st;
}

/* Coefficients of the largest selected band (one channel). */
static size_t largest_band(const wt_pyramid *s, const wt_band_ref *sel, size_t n)
{
    size_t most = 1;
    for (size_t i = 0; i < n; i++) {
        size_t h, w;
        wt_pyramid_band_shape(s, sel[i].level, sel[i].band, &h, &w);
        most = h * w > most ? h * w : most;
    }
    return most;
}

static double coefficient(const wt_pyramid *host, size_t i)
{
    return host->dtype == WT_INT32 ? (double)((const int32_t *)host->data)[i]
                                   : (double)((const float *)host->data)[i];
}

static wt_status band_entropy(const wt_pyramid *host, const wt_band_ref *r, double step,
                              int64_t *q, double *bits)
{
    size_t h, w;
    wt_pyramid_band_shape(host, r->level, r->band, &h, &w);
    size_t first = wt_pyramid_offset(host, r->level, r->band, r->channel), n = h * w;
    if (n == 0) {
        *bits = 0.0;
        return WT_OK;
    }
    for (size_t i = 0; i < n; i++)
        q[i] = quantizer_index(coefficient(host, first + i), step);
    return entropy_of_indices(q, n, bits);
}

wt_status wt_epyramid_entropy(const wt_epyramid *p, const wt_band_ref *sel, size_t n,
                              double step, double *bits)
{
    if (!p || (n && (!sel || !bits)) || !(step > 0.0) || !isfinite(step))
        return wt_error_set(WT_ERR_INVALID, "entropy needs a pyramid, bands and a step > 0");
    const wt_pyramid *shape = wt_epyramid_shape(p);
    for (size_t i = 0; i < n; i++)
        if (!wt_band_ref_valid(shape, &sel[i]))
            return wt_error_set(WT_ERR_INVALID, "band %zu is not in the pyramid", i);
    wt_pyramid host = {0};
    wt_status st = wt_pyramid_alloc(&host, wt_epyramid_params(p), shape->height, shape->width,
                                    shape->channels);
    if (st == WT_OK)
        st = wt_epyramid_download(p, &host);
    int64_t *q = st == WT_OK ? malloc(largest_band(shape, sel, n) * sizeof *q) : NULL;
    if (st == WT_OK && !q)
        st = wt_error_set(WT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == WT_OK && i < n; i++)
        st = band_entropy(&host, &sel[i], step, q, &bits[i]);
    free(q);
    wt_pyramid_free(&host);
    return st;
}
