/* scikit-image's noise estimate, bit for bit.
 *
 * _sigma_est_dwt keeps the coefficients of the finest diagonal band that are
 * not exactly 0 in float64, so which ones are left out depends on float64's
 * rounding in PyWavelets' order of operations: pywt.dwtn filters along axis
 * 0 (y), then axis 1 (x), each line through downsampling_convolution
 * (pywt/_extensions/c/convolution.template.c), where every output starts
 * at 0 and adds filter[t] * x[i - t]: for the right border (i - t >= N)
 * first the taps outside the signal in descending order, then the others in
 * ascending order; elsewhere all taps ascending. The engines compute in
 * float32 in their own order, so this estimate is computed here, on the
 * host, in that order. It relies on no contraction of a * b + c into a
 * fused multiply-add (ISO C mode: GCC's -ffp-contract=off), as PyWavelets'
 * x86-64 build has none. */
#include "noise_estimate.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wavetool_hooks.h" /* wt_parallel_for, wt_select_kth */

int wt_noise_exact(const wt_wavelet *wavelet, wt_mode mode)
{
    return wavelet && wavelet->kind != WT_KIND_JPEG2000 && mode == WT_MODE_SYMMETRIC;
}

/* The taps of each output of a step-2 convolution of N samples, in
 * PyWavelets' summation order, and the sample each one multiplies. */
typedef struct tap_plan {
    size_t nout, f;
    size_t *tap; /* nout * f */
    size_t *at;  /* nout * f */
    size_t inner_begin, inner_end; /* outputs whose taps are 0..f-1 ascending on
                                      samples i..i-f+1 of the signal (no border) */
} tap_plan;

/* Half-sample symmetric extension: x[-1] = x[0], x[N] = x[N - 1], period 2N. */
static size_t symmetric_index(long e, size_t n)
{
    long p = 2 * (long)n, m = ((e % p) + p) % p;
    return (size_t)(m < (long)n ? m : p - 1 - m);
}

static void plan_tap(tap_plan *p, size_t k, size_t t, size_t i, size_t n)
{
    p->tap[k] = t;
    p->at[k] = symmetric_index((long)i - (long)t, n);
}

/* Output o (input position i = 2o + 1): taps i - N .. 0 (past the right
 * end) descending, then the rest ascending. */
static void plan_output(tap_plan *p, size_t o, size_t n)
{
    size_t i = 2 * o + 1, k = o * p->f, first = i >= n ? i - n + 1 : 0;
    for (size_t t = first; t-- > 0;)
        plan_tap(p, k++, t, i, n);
    for (size_t t = first; t < p->f; t++)
        plan_tap(p, k++, t, i, n);
}

static wt_status plan_make(tap_plan *p, size_t n, size_t f)
{
    p->nout = (n + f - 1) / 2;
    p->f = f;
    p->tap = malloc(p->nout * f * sizeof *p->tap);
    p->at = malloc(p->nout * f * sizeof *p->at);
    if (!p->tap || !p->at)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for the noise estimate");
    for (size_t o = 0; o < p->nout; o++)
        plan_output(p, o, n);
    /* i = 2o + 1 with i - (f - 1) >= 0 and i < n */
    p->inner_begin = f > 2 ? (f - 1) / 2 : 0;
    p->inner_end = n / 2;
    if (p->inner_end > p->nout)
        p->inner_end = p->nout;
    if (p->inner_begin > p->inner_end)
        p->inner_begin = p->inner_end;
    return WT_OK;
}

static void plan_free(tap_plan *p)
{
    free(p->tap);
    free(p->at);
}

/* Where the rows of a plane come from: row y of @p ctx's plane. */
typedef struct row_source {
    const double *(*row)(const void *ctx, size_t y);
    const void *ctx;
} row_source;

/* Output row @p o of the axis-0 filter: out[c] = sum over the plan of
 * f[tap] * x[at][c] (the same order for every column, as PyWavelets' column
 * by column); rows of x from @p row. */
static void column_output(const tap_plan *p, const double *f, size_t o, const row_source *src,
                          size_t w, double *out)
{
    for (size_t c = 0; c < w; c++)
        out[c] = 0.0;
    for (size_t k = o * p->f; k < (o + 1) * p->f; k++) {
        double g = f[p->tap[k]];
        const double *row = src->row(src->ctx, p->at[k]);
        for (size_t c = 0; c < w; c++)
            out[c] += g * row[c];
    }
}

/* One line along axis 1: the |c| of the outputs that are not exactly 0. */
static size_t line_nonzero(const tap_plan *p, const double *f, const double *x, double *nonzero)
{
    size_t m = 0, nf = p->f;
    for (size_t o = 0; o < p->nout; o++) {
        double s = 0.0;
        if (o >= p->inner_begin && o < p->inner_end) { /* the plan's order, read directly */
            const double *xi = x + 2 * o + 1;
            for (size_t t = 0; t < nf; t++)
                s += f[t] * xi[-(ptrdiff_t)t];
        } else {
            for (size_t k = o * nf; k < (o + 1) * nf; k++)
                s += f[p->tap[k]] * x[p->at[k]];
        }
        nonzero[m] = fabs(s); /* kept when not exactly 0; no branch */
        m += s != 0.0;
    }
    return m;
}

/* An array of rows of w doubles, one after another. */
typedef struct dense_plane {
    const double *x;
    size_t w;
} dense_plane;

static const double *plane_row(const void *ctx, size_t y)
{
    const dense_plane *plane = ctx;
    return plane->x + y * plane->w;
}

/* Axis 0 of a whole array of @p w columns into @p out (volumes). */
static void filter_columns(const tap_plan *p, const double *f, const double *x, size_t w,
                           double *out)
{
    dense_plane plane = {x, w};
    row_source src = {plane_row, &plane};
    for (size_t o = 0; o < p->nout; o++)
        column_output(p, f, o, &src, w, out + o * w);
}

/* Axis 1 of @p h rows: the |c| of the outputs that are not exactly 0. */
static size_t filter_rows_nonzero(const tap_plan *p, const double *f, const double *x, size_t h,
                                  size_t w, double *nonzero)
{
    size_t m = 0;
    for (size_t r = 0; r < h; r++)
        m += line_nonzero(p, f, x + r * w, nonzero + m);
    return m;
}

/* The IEEE bits of positive doubles order as the values do. */
static uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

enum { RADIX_BITS = 16, RADIX = 1 << RADIX_BITS };

/* The bucket of digit (bits >> @p shift) & (RADIX - 1) that holds the @p k-th
 * smallest of @p v (rank 0 first), @p k made the rank within it. */
static unsigned radix_bucket(const double *v, size_t n, int shift, size_t *k, size_t *count)
{
    memset(count, 0, RADIX * sizeof *count);
    for (size_t i = 0; i < n; i++)
        count[(bits_of(v[i]) >> shift) & (RADIX - 1)]++;
    unsigned b = 0;
    while (*k >= count[b])
        *k -= count[b++];
    return b;
}

/* The @p k-th smallest of the n positive values @p v (left as they are):
 * a most-significant-digit radix select, the candidates of each digit's
 * bucket copied to @p scratch (n values). */
static double kth_positive(const double *v, size_t n, size_t k, double *scratch, size_t *count)
{
    const double *cand = v;
    for (int shift = 64 - RADIX_BITS; shift >= 0; shift -= RADIX_BITS) {
        unsigned b = radix_bucket(cand, n, shift, &k, count);
        size_t m = 0;
        for (size_t i = 0; i < n; i++) { /* without branches: ties are common */
            double x = cand[i];
            scratch[m] = x;
            m += ((bits_of(x) >> shift) & (RADIX - 1)) == b;
        }
        cand = scratch;
        n = m;
    }
    return cand[0]; /* all candidates have the same bits */
}

/* numpy's median of @p n positive values (the mean of the two middle values
 * for even n), in linear time whatever the ties (the noise estimate's
 * values take few distinct values on integer images). */
static wt_status numpy_median(const double *v, size_t n, double *median)
{
    double *scratch = malloc(n * sizeof *scratch + 1);
    size_t *count = malloc(RADIX * sizeof *count);
    if (!scratch || !count) {
        free(scratch);
        free(count);
        return wt_error_set(WT_ERR_NOMEM, "out of memory for the noise estimate");
    }
    double upper = kth_positive(v, n, n / 2, scratch, count);
    *median = upper;
    if (n % 2 == 0) { /* the largest value of rank < n / 2 */
        size_t below = 0;
        double lower = 0.0;
        for (size_t i = 0; i < n; i++) {
            double x = v[i] < upper ? v[i] : 0.0;
            below += v[i] < upper;
            lower = x > lower ? x : lower;
        }
        *median = ((below < n / 2 ? upper : lower) + upper) / 2.0;
    }
    free(scratch);
    free(count);
    return WT_OK;
}

/* median(|nonzero|) / Phi^-1(0.75), NaN when there are none. */
static wt_status sigma_of_nonzero(const double *nonzero, size_t m, double *sigma)
{
    *sigma = NAN;
    if (!m)
        return WT_OK;
    wt_status st = numpy_median(nonzero, m, sigma);
    *sigma /= NORM_PPF_075;
    return st;
}

/* The estimate of an h x w plane whose rows come from @p src: each output
 * row of the axis-0 filter made and at once filtered along axis 1 (the
 * same operations, in PyWavelets' order, as the whole band after the whole
 * first pass; one row of w doubles in between, not the array). */
static wt_status sigma_of_rows(const row_source *src, size_t h, size_t w,
                               const wt_wavelet *wavelet, double *sigma)
{
    size_t f = (size_t)wavelet->filter_len;
    tap_plan py = {0}, px = {0};
    wt_status st = plan_make(&py, h, f);
    if (st == WT_OK)
        st = plan_make(&px, w, f);
    double *line = st == WT_OK ? malloc((w + 1) * sizeof *line) : NULL;
    double *nonzero = st == WT_OK ? malloc((py.nout * px.nout + 1) * sizeof *nonzero) : NULL;
    if (st == WT_OK && (!line || !nonzero))
        st = wt_error_set(WT_ERR_NOMEM, "out of memory for the noise estimate");
    if (st == WT_OK) {
        size_t m = 0;
        for (size_t o = 0; o < py.nout; o++) {
            column_output(&py, wavelet->dec_hi, o, src, w, line);
            m += line_nonzero(&px, wavelet->dec_hi, line, nonzero + m);
        }
        st = sigma_of_nonzero(nonzero, m, sigma);
    }
    free(line);
    free(nonzero);
    plan_free(&py);
    plan_free(&px);
    return st;
}

wt_status wt_noise_sigma_plane(const double *x, size_t h, size_t w, const wt_wavelet *wavelet,
                               double *sigma)
{
    dense_plane plane = {x, w};
    row_source src = {plane_row, &plane};
    return sigma_of_rows(&src, h, w, wavelet, sigma);
}

wt_status wt_noise_sigma_volume(const double *x, const size_t shape[3],
                                const wt_wavelet *wavelet, double *sigma)
{
    const size_t f = (size_t)wavelet->filter_len, h = shape[1], w = shape[2];
    tap_plan pz = {0}, py = {0}, px = {0};
    wt_status st = plan_make(&pz, shape[0], f);
    if (st == WT_OK)
        st = plan_make(&py, h, f);
    if (st == WT_OK)
        st = plan_make(&px, w, f);
    /* dwtn's order: along z (each (y, x) a column), then y in each slab, then x */
    double *along_z = st == WT_OK ? malloc(pz.nout * h * w * sizeof *along_z + 8) : NULL;
    double *along_y = st == WT_OK ? malloc(pz.nout * py.nout * w * sizeof *along_y + 8) : NULL;
    double *nonzero = st == WT_OK ? malloc((pz.nout * py.nout * px.nout + 1) * sizeof *nonzero)
                                  : NULL;
    if (st == WT_OK && (!along_z || !along_y || !nonzero))
        st = wt_error_set(WT_ERR_NOMEM, "out of memory for the noise estimate");
    if (st == WT_OK) {
        filter_columns(&pz, wavelet->dec_hi, x, h * w, along_z);
        for (size_t z = 0; z < pz.nout; z++)
            filter_columns(&py, wavelet->dec_hi, along_z + z * h * w, w,
                           along_y + z * py.nout * w);
        size_t m = filter_rows_nonzero(&px, wavelet->dec_hi, along_y, pz.nout * py.nout, w,
                                       nonzero);
        st = sigma_of_nonzero(nonzero, m, sigma);
    }
    free(along_z);
    free(along_y);
    free(nonzero);
    plan_free(&pz);
    plan_free(&py);
    plan_free(&px);
    return st;
}

/* ---- images: one thread per channel ------------------------------------------ */

typedef struct image_job {
    const wt_image *img;
    size_t dy, dx;
    double scale;
    double byte_value[256]; /* 8-bit and narrower samples: k * scale */
    const wt_wavelet *wavelet;
    double *sigma;
    wt_status *status;
} image_job;

/* Row @p y of channel @p c times @p scale into @p v (width samples). */
static void channel_row(const image_job *j, size_t y, int c, double *v)
{
    const wt_image *img = j->img;
    size_t w = img->width, ch = (size_t)img->channels, at = y * w * ch + (size_t)c;
    double scale = j->scale;
    if (img->bit_depth == WT_DEPTH_F32)
        for (size_t i = 0; i < w; i++)
            v[i] = (double)((const float *)img->pixels)[at + i * ch] * scale;
    else if (img->bit_depth > 8)
        for (size_t i = 0; i < w; i++)
            v[i] = (double)((const uint16_t *)img->pixels)[at + i * ch] * scale;
    else /* the same products, looked up */
        for (size_t i = 0; i < w; i++)
            v[i] = j->byte_value[((const uint8_t *)img->pixels)[at + i * ch]];
}

/* The rows of channel c of the image rolled by (dy, dx), times scale, the
 * last @p slots made kept (an output row of the column filter reads f
 * neighbouring rows, the next one f - 2 of them again). */
typedef struct rolled_rows {
    const image_job *job;
    int c;
    size_t slots;
    size_t *made; /* slots: the row each slot holds, or SIZE_MAX */
    double *rows; /* slots + 1 rows of width doubles (the last: scratch) */
} rolled_rows;

/* Row y of the rolled channel: the image's row y - dy (mod h) turned right by
 * dx, as float64 (np.roll(x, (dy, dx), (0, 1)) of img_as_float's samples). */
static const double *rolled_row(const void *ctx, size_t y)
{
    const rolled_rows *r = ctx;
    const image_job *j = r->job;
    size_t h = j->img->height, w = j->img->width, keep = w - j->dx, slot = y % r->slots;
    double *out = r->rows + slot * w, *row = r->rows + r->slots * w;
    if (r->made[slot] == y)
        return out;
    r->made[slot] = y;
    channel_row(j, (y + h - j->dy) % h, r->c, j->dx ? row : out);
    if (j->dx) {
        memcpy(out + j->dx, row, keep * sizeof *out);
        memcpy(out, row + keep, j->dx * sizeof *out);
    }
    return out;
}

static void channel_range(void *ctx, size_t begin, size_t end)
{
    image_job *j = ctx;
    size_t h = j->img->height, w = j->img->width, slots = (size_t)j->wavelet->filter_len;
    for (size_t c = begin; c < end; c++) {
        rolled_rows rows = {j, (int)c, slots, malloc(slots * sizeof *rows.made),
                            malloc(((slots + 1) * w + 1) * sizeof *rows.rows)};
        row_source src = {rolled_row, &rows};
        for (size_t k = 0; rows.made && k < slots; k++)
            rows.made[k] = SIZE_MAX;
        j->status[c] = rows.made && rows.rows
                           ? sigma_of_rows(&src, h, w, j->wavelet, &j->sigma[c])
                           : wt_error_set(WT_ERR_NOMEM, "out of memory for the noise estimate");
        free(rows.made);
        free(rows.rows);
    }
}

wt_status wt_noise_sigma_image(const wt_image *img, size_t dy, size_t dx, double scale,
                               const wt_wavelet *wavelet, double *sigma)
{
    wt_status status[WT_MAX_CHANNELS];
    size_t channels = (size_t)img->channels;
    image_job j = {img, img->height ? dy % img->height : 0, img->width ? dx % img->width : 0,
                   scale, {0}, wavelet, sigma, status};
    for (int k = 0; k < 256; k++)
        j.byte_value[k] = (double)k * scale;
    wt_parallel_for((int)channels, channels, channel_range, &j);
    for (size_t c = 0; c < channels; c++)
        if (status[c] != WT_OK)
            return status[c];
    return WT_OK;
}
