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

#include "wavetool_hooks.h" /* wt_parallel_for */

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

/* A line in parity order: sample 2j at even[j], 2j + 1 at odd[j] (the
 * interior outputs then read each tap's samples contiguously). */
typedef struct split_line {
    const double *even, *odd;
} split_line;

static split_line split_of(const double *x, size_t n)
{
    split_line s = {x, x + (n + 1) / 2};
    return s;
}

static double split_sample(const split_line *x, size_t i)
{
    return i & 1 ? x->odd[i / 2] : x->even[i / 2];
}

/* x (n samples) in parity order into @p out. */
static void split_copy(const double *x, size_t n, double *out)
{
    double *odd = out + (n + 1) / 2;
    for (size_t i = 0; i < n / 2; i++) {
        out[i] = x[2 * i];
        odd[i] = x[2 * i + 1];
    }
    if (n & 1)
        out[n / 2] = x[n - 1];
}

/* Where the rows of a plane come from: row y written to @p out (w doubles;
 * in parity order for the rows the filter along x reads, as they are for
 * a volume's first two axes). */
typedef struct row_source {
    void (*fill)(const void *ctx, size_t y, double *out);
    const void *ctx;
    size_t w;
} row_source;

/* The last @p slots rows of a source (an output row of the column filter
 * reads f neighbouring rows, the next one f - 2 of them again). With f
 * slots one output's rows never evict one another: its f positions, once
 * reflected, span fewer than f rows, or the plane has at most f rows. */
typedef struct row_cache {
    const row_source *src;
    size_t slots;
    size_t *made; /* the row each slot holds, or SIZE_MAX */
    double *rows; /* slots rows of w doubles */
} row_cache;

static wt_status cache_open(row_cache *c, const row_source *src, size_t slots)
{
    c->src = src;
    c->slots = slots;
    c->made = malloc(slots * sizeof *c->made);
    c->rows = malloc((slots * src->w + 1) * sizeof *c->rows);
    if (!c->made || !c->rows)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for the noise estimate");
    for (size_t k = 0; k < slots; k++)
        c->made[k] = SIZE_MAX;
    return WT_OK;
}

static void cache_close(row_cache *c)
{
    free(c->made);
    free(c->rows);
}

static const double *cache_row(row_cache *c, size_t y)
{
    size_t slot = y % c->slots;
    double *row = c->rows + slot * c->src->w;
    if (c->made[slot] != y) {
        c->src->fill(c->src->ctx, y, row);
        c->made[slot] = y;
    }
    return row;
}

/* out[c] = s + g[0] r[0][c] + ... + g[n-1] r[n-1][c], s = out[c] (0 for
 * the @p first taps), the products added one by one left to right (n <= 4
 * taps: one pass over the row for them). */
static void add_taps(double *restrict out, size_t w, const double *g,
                     const double *const *r, size_t n, int first)
{
    if (n == 4)
        for (size_t c = 0; c < w; c++)
            out[c] = (first ? 0.0 : out[c]) + g[0] * r[0][c] + g[1] * r[1][c] +
                     g[2] * r[2][c] + g[3] * r[3][c];
    else if (n == 2)
        for (size_t c = 0; c < w; c++)
            out[c] = (first ? 0.0 : out[c]) + g[0] * r[0][c] + g[1] * r[1][c];
    else
        for (size_t c = 0; c < w; c++)
            out[c] = (first ? 0.0 : out[c]) + g[0] * r[0][c];
}

/* Output row @p o of the axis-0 filter: out[c] = sum over the plan of
 * f[tap] * x[at][c] (the same order for every column, as PyWavelets' column
 * by column), up to four taps a pass over the row ((s + a) + b ...: the
 * same sums). */
static void column_output(const tap_plan *p, const double *f, size_t o, row_cache *rows,
                          size_t w, double *out)
{
    size_t begin = o * p->f, end = begin + p->f;
    for (size_t k = begin; k < end;) {
        size_t n = end - k >= 4 ? 4 : end - k >= 2 ? 2 : 1;
        double g[4];
        const double *r[4];
        for (size_t t = 0; t < n; t++) {
            g[t] = f[p->tap[k + t]];
            r[t] = cache_row(rows, p->at[k + t]);
        }
        add_taps(out, w, g, r, n, k == begin);
        k += n;
    }
}

/* The nonzero |c| of the band, and the histogram of their top digit (the
 * first pass of the median's radix select, made as they are computed). */
typedef struct band_values {
    double *v;
    size_t n;
    size_t *top_count; /* TOP_RADIX */
} band_values;

enum { TOP_SHIFT = 47, TOP_RADIX = 1 << 16, LOW_BITS = 11 };

/* The IEEE bits of positive doubles order as the values do. */
static uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* Interior outputs begin..end of a line: sum[o - begin] = f[0] x[2o + 1] +
 * f[1] x[2o] + ..., taps ascending from 0 as PyWavelets adds them, up to
 * four taps a pass over neighbouring outputs (vectorised across them: each
 * output's sum keeps its order). Tap 2u reads odd[o - u], tap 2u + 1
 * even[o - u]. */
static void inner_sums(const double *f, size_t nf, const split_line *x, size_t begin, size_t end,
                       double *sum)
{
    for (size_t t = 0; t < nf;) {
        size_t n = nf - t >= 4 ? 4 : nf - t >= 2 ? 2 : 1;
        const double *r[4];
        for (size_t u = 0; u < n; u++)
            r[u] = ((t + u) & 1 ? x->even : x->odd) + begin - (t + u) / 2;
        add_taps(sum, end - begin, f + t, r, n, t == 0);
        t += n;
    }
}

/* Output o of a line by its plan (the borders). */
static double planned_sum(const tap_plan *p, const double *f, const split_line *x, size_t o)
{
    double s = 0.0;
    for (size_t k = o * p->f; k < (o + 1) * p->f; k++)
        s += f[p->tap[k]] * split_sample(x, p->at[k]);
    return s;
}

/* One line along axis 1 (@p sum: nout doubles of scratch): the |c| of the
 * outputs that are not exactly 0 appended to @p band. */
static void line_nonzero(const tap_plan *p, const double *f, const split_line *x, double *sum,
                         band_values *band)
{
    for (size_t o = 0; o < p->inner_begin; o++)
        sum[o] = planned_sum(p, f, x, o);
    inner_sums(f, p->f, x, p->inner_begin, p->inner_end, sum + p->inner_begin);
    for (size_t o = p->inner_end; o < p->nout; o++)
        sum[o] = planned_sum(p, f, x, o);
    double *out = band->v + band->n;
    size_t m = 0, *count = band->top_count;
    for (size_t o = 0; o < p->nout; o++) { /* no branch: kept when not exactly 0 */
        double a = fabs(sum[o]);
        out[m] = a;
        m += a != 0.0;
        count[bits_of(a) >> TOP_SHIFT]++; /* zeros too: taken off bucket 0 at the end */
    }
    count[0] -= p->nout - m;
    band->n += m;
}

/* The bucket that holds the @p k-th smallest (rank 0 first) of values
 * counted in @p count, @p k made the rank within it. */
static unsigned bucket_of_rank(const size_t *count, size_t *k)
{
    unsigned b = 0;
    while (*k >= count[b])
        *k -= count[b++];
    return b;
}

/* A digit of a radix select: (bits >> shift) & mask. */
typedef struct radix_digit {
    int shift;
    uint64_t mask;
} radix_digit;

static uint64_t digit_of(double x, radix_digit d)
{
    return (bits_of(x) >> d.shift) & d.mask;
}

/* Keeps (in place, in order) the @p n values of @p v whose digit is @p b:
 * their count. No branches: integer images' coefficients have many ties. */
static size_t keep_bucket(double *v, size_t n, radix_digit d, uint64_t b)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        double x = v[i];
        v[m] = x;
        m += digit_of(x, d) == b;
    }
    return m;
}

/* The bits in which the @p n values differ. */
static uint64_t differing_bits(const double *v, size_t n)
{
    uint64_t all = ~(uint64_t)0, any = 0;
    for (size_t i = 0; i < n; i++) {
        all &= bits_of(v[i]);
        any |= bits_of(v[i]);
    }
    return all ^ any;
}

static double double_of(uint64_t bits)
{
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* The largest of the @p n values whose digit is @p lo into @p lo_max, the
 * smallest whose digit is @p hi into @p hi_min (compared as bits: integer
 * selects, no branches). */
static void bucket_ends(const double *v, size_t n, radix_digit d, uint64_t lo, uint64_t hi,
                        double *lo_max, double *hi_min)
{
    uint64_t high = 0, low = ~(uint64_t)0;
    for (size_t i = 0; i < n; i++) {
        uint64_t bits = bits_of(v[i]), digit = (bits >> d.shift) & d.mask;
        uint64_t a = digit == lo ? bits : 0, b = digit == hi ? bits : ~(uint64_t)0;
        high = a > high ? a : high;
        low = b < low ? b : low;
    }
    *lo_max = double_of(high);
    *hi_min = double_of(low);
}

/* The @p k-th smallest (rank 0 first) of the @p n positive values @p v,
 * and in @p before the one of rank k - 1 (when k > 0): a most significant
 * digit first radix select, @p count holding the histogram of the top digit
 * (TOP_RADIX buckets, bits 62..47) on entry, each later digit the LOW_BITS
 * highest bits in which the candidates still differ. Where the two ranks
 * fall in different buckets, rank k - 1 is the largest of its bucket and
 * rank k the smallest of its own: one pass ends it. @p v is reordered. */
static double kth_and_before(double *v, size_t n, size_t k, size_t *count, double *before)
{
    radix_digit d = {TOP_SHIFT, TOP_RADIX - 1};
    for (;;) {
        size_t r = k;
        uint64_t hi = bucket_of_rank(count, &r), lo = hi;
        if (r == 0 && k > 0) {
            while (!count[--lo])
                ;
            double kth;
            bucket_ends(v, n, d, lo, hi, before, &kth);
            return kth;
        }
        n = keep_bucket(v, n, d, hi);
        k = r;
        uint64_t differ = differing_bits(v, n);
        if (!differ) { /* all alike: ranks k - 1 and k are ties */
            *before = v[0];
            return v[0];
        }
        int top = 63 - __builtin_clzll(differ);
        d.shift = top + 1 > LOW_BITS ? top + 1 - LOW_BITS : 0;
        d.mask = ((uint64_t)1 << LOW_BITS) - 1;
        memset(count, 0, ((size_t)d.mask + 1) * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[digit_of(v[i], d)]++;
    }
}

/* median(|nonzero|) / Phi^-1(0.75) of the band, NaN when there are none:
 * numpy's median (the mean of the two middle values for even n), in linear
 * time whatever the ties. */
static double sigma_of_band(band_values *band)
{
    size_t n = band->n;
    if (!n)
        return NAN;
    double lower, upper = kth_and_before(band->v, n, n / 2, band->top_count, &lower);
    double median = n % 2 ? upper : (lower + upper) / 2.0;
    return median / NORM_PPF_075;
}

static wt_status band_open(band_values *band, size_t n)
{
    band->v = malloc((n + 1) * sizeof *band->v);
    band->n = 0;
    band->top_count = calloc(TOP_RADIX, sizeof *band->top_count);
    if (!band->v || !band->top_count)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for the noise estimate");
    return WT_OK;
}

static void band_close(band_values *band)
{
    free(band->v);
    free(band->top_count);
}

/* The estimate of an h x w plane whose rows come from @p src: each output
 * row of the axis-0 filter made and at once filtered along axis 1 (the
 * same operations, in PyWavelets' order, as the whole band after the whole
 * first pass; one row of w doubles in between, not the array). */
static wt_status sigma_of_rows(const row_source *src, size_t h, const wt_wavelet *wavelet,
                               double *sigma)
{
    size_t f = (size_t)wavelet->filter_len, w = src->w;
    tap_plan py = {0}, px = {0};
    row_cache rows = {0};
    band_values band = {0};
    double *line = NULL, *sum = NULL;
    wt_status st = plan_make(&py, h, f);
    if (st == WT_OK)
        st = plan_make(&px, w, f);
    if (st == WT_OK)
        st = cache_open(&rows, src, f);
    if (st == WT_OK)
        st = band_open(&band, py.nout * px.nout);
    if (st == WT_OK) {
        line = malloc((w + 1) * sizeof *line);
        sum = malloc((px.nout + 1) * sizeof *sum);
        if (!line || !sum)
            st = wt_error_set(WT_ERR_NOMEM, "out of memory for the noise estimate");
    }
    if (st == WT_OK) {
        split_line x = split_of(line, w);
        for (size_t o = 0; o < py.nout; o++) {
            column_output(&py, wavelet->dec_hi, o, &rows, w, line);
            line_nonzero(&px, wavelet->dec_hi, &x, sum, &band);
        }
        *sigma = sigma_of_band(&band);
    }
    free(line);
    free(sum);
    band_close(&band);
    cache_close(&rows);
    plan_free(&py);
    plan_free(&px);
    return st;
}

/* An array of rows of w doubles, one after another. */
typedef struct dense_plane {
    const double *x;
    size_t w;
} dense_plane;

static void plane_row_split(const void *ctx, size_t y, double *out)
{
    const dense_plane *plane = ctx;
    split_copy(plane->x + y * plane->w, plane->w, out);
}

static void plane_row(const void *ctx, size_t y, double *out)
{
    const dense_plane *plane = ctx;
    memcpy(out, plane->x + y * plane->w, plane->w * sizeof *out);
}

wt_status wt_noise_sigma_plane(const double *x, size_t h, size_t w, const wt_wavelet *wavelet,
                               double *sigma)
{
    dense_plane plane = {x, w};
    row_source src = {plane_row_split, &plane, w};
    return sigma_of_rows(&src, h, wavelet, sigma);
}

/* Axis 0 of a whole array of @p w columns into @p out (volumes). */
static wt_status filter_columns(const tap_plan *p, const double *f, const double *x, size_t w,
                                double *out)
{
    dense_plane plane = {x, w};
    row_source src = {plane_row, &plane, w};
    row_cache rows;
    wt_status st = cache_open(&rows, &src, p->f);
    for (size_t o = 0; st == WT_OK && o < p->nout; o++)
        column_output(p, f, o, &rows, w, out + o * w);
    cache_close(&rows);
    return st;
}

/* Axis 1 of @p h rows of @p w: the |c| of the outputs that are not exactly 0
 * into @p band. */
static wt_status filter_rows_nonzero(const tap_plan *p, const double *f, const double *x,
                                     size_t h, size_t w, band_values *band)
{
    double *line = malloc((w + 1) * sizeof *line), *sum = malloc((p->nout + 1) * sizeof *sum);
    wt_status st = line && sum ? WT_OK
                               : wt_error_set(WT_ERR_NOMEM, "out of memory for the noise estimate");
    split_line s = split_of(line, w);
    for (size_t r = 0; st == WT_OK && r < h; r++) {
        split_copy(x + r * w, w, line);
        line_nonzero(p, f, &s, sum, band);
    }
    free(line);
    free(sum);
    return st;
}

wt_status wt_noise_sigma_volume(const double *x, const size_t shape[3],
                                const wt_wavelet *wavelet, double *sigma)
{
    const size_t f = (size_t)wavelet->filter_len, h = shape[1], w = shape[2];
    tap_plan pz = {0}, py = {0}, px = {0};
    band_values band = {0};
    wt_status st = plan_make(&pz, shape[0], f);
    if (st == WT_OK)
        st = plan_make(&py, h, f);
    if (st == WT_OK)
        st = plan_make(&px, w, f);
    if (st == WT_OK)
        st = band_open(&band, pz.nout * py.nout * px.nout);
    /* dwtn's order: along z (each (y, x) a column), then y in each slab, then x */
    double *along_z = st == WT_OK ? malloc(pz.nout * h * w * sizeof *along_z + 8) : NULL;
    double *along_y = st == WT_OK ? malloc(pz.nout * py.nout * w * sizeof *along_y + 8) : NULL;
    if (st == WT_OK && (!along_z || !along_y))
        st = wt_error_set(WT_ERR_NOMEM, "out of memory for the noise estimate");
    if (st == WT_OK)
        st = filter_columns(&pz, wavelet->dec_hi, x, h * w, along_z);
    for (size_t z = 0; st == WT_OK && z < pz.nout; z++)
        st = filter_columns(&py, wavelet->dec_hi, along_z + z * h * w, w,
                            along_y + z * py.nout * w);
    if (st == WT_OK)
        st = filter_rows_nonzero(&px, wavelet->dec_hi, along_y, pz.nout * py.nout, w, &band);
    if (st == WT_OK)
        *sigma = sigma_of_band(&band);
    free(along_z);
    free(along_y);
    band_close(&band);
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

/* v[i] = table[bytes[i * stride]], i < n: four loads before their stores
 * (one at a time, the stores held the next lookups back: 4 cycles a sample
 * on the 2-core EPYC VM, half that grouped). */
static void looked_up(const double *table, const uint8_t *bytes, size_t stride, size_t n,
                      double *v)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const uint8_t *b = bytes + i * stride;
        double v0 = table[b[0]], v1 = table[b[stride]], v2 = table[b[2 * stride]],
               v3 = table[b[3 * stride]];
        v[i] = v0;
        v[i + 1] = v1;
        v[i + 2] = v2;
        v[i + 3] = v3;
    }
    for (; i < n; i++)
        v[i] = table[bytes[i * stride]];
}

/* @p n samples of channel @p c from column @p col of row @p y on, every
 * @p step columns, times scale, into @p v. */
static void channel_samples(const image_job *j, size_t y, int c, size_t col, size_t step,
                            size_t n, double *v)
{
    const wt_image *img = j->img;
    size_t ch = (size_t)img->channels, at = (y * img->width + col) * ch + (size_t)c;
    size_t stride = step * ch;
    double scale = j->scale;
    if (img->bit_depth == WT_DEPTH_F32)
        for (size_t i = 0; i < n; i++)
            v[i] = (double)((const float *)img->pixels)[at + i * stride] * scale;
    else if (img->bit_depth > 8)
        for (size_t i = 0; i < n; i++)
            v[i] = (double)((const uint16_t *)img->pixels)[at + i * stride] * scale;
    else /* the same products, looked up */
        looked_up(j->byte_value, (const uint8_t *)img->pixels + at, stride, n, v);
}

/* Channel c of the image rolled by (dy, dx), times scale. */
typedef struct rolled_channel {
    const image_job *job;
    int c;
} rolled_channel;

/* Row y of the rolled channel in parity order: the image's row y - dy (mod
 * h), its column i - dx (mod w) at position i (np.roll(x, (dy, dx), (0, 1))
 * of img_as_float's samples), read in place in two runs per parity. */
static void rolled_row(const void *ctx, size_t y, double *out)
{
    const rolled_channel *r = ctx;
    const image_job *j = r->job;
    size_t h = j->img->height, w = j->img->width, dx = j->dx, sy = (y + h - j->dy) % h;
    for (size_t parity = 0; parity < 2; parity++) {
        size_t count = (w + 1 - parity) / 2;                     /* positions parity + 2k */
        size_t wrapped = dx > parity ? (dx - parity + 1) / 2 : 0; /* those < dx */
        double *v = out + parity * ((w + 1) / 2);
        if (wrapped > count)
            wrapped = count;
        channel_samples(j, sy, r->c, parity + w - dx, 2, wrapped, v);
        if (wrapped < count)
            channel_samples(j, sy, r->c, parity + 2 * wrapped - dx, 2, count - wrapped,
                            v + wrapped);
    }
}

static void channel_range(void *ctx, size_t begin, size_t end)
{
    image_job *j = ctx;
    for (size_t c = begin; c < end; c++) {
        rolled_channel channel = {j, (int)c};
        row_source src = {rolled_row, &channel, j->img->width};
        j->status[c] = sigma_of_rows(&src, j->img->height, j->wavelet, &j->sigma[c]);
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
