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
    return WT_OK;
}

static void plan_free(tap_plan *p)
{
    free(p->tap);
    free(p->at);
}

/* Axis 0: out[o][c] = sum over the plan of f[tap] * x[at][c], row by row
 * (the same order for every column, as PyWavelets' column by column). */
static void filter_columns(const tap_plan *p, const double *f, const double *x, size_t w,
                           double *out)
{
    for (size_t o = 0; o < p->nout; o++) {
        double *acc = out + o * w;
        for (size_t c = 0; c < w; c++)
            acc[c] = 0.0;
        for (size_t k = o * p->f; k < (o + 1) * p->f; k++) {
            double g = f[p->tap[k]];
            const double *row = x + p->at[k] * w;
            for (size_t c = 0; c < w; c++)
                acc[c] += g * row[c];
        }
    }
}

/* Axis 1 of @p h rows: the |c| of the outputs that are not exactly 0. */
static size_t filter_rows_nonzero(const tap_plan *p, const double *f, const double *x, size_t h,
                                  size_t w, double *nonzero)
{
    size_t m = 0;
    for (size_t r = 0; r < h; r++)
        for (size_t o = 0; o < p->nout; o++) {
            double s = 0.0;
            for (size_t k = o * p->f; k < (o + 1) * p->f; k++)
                s += f[p->tap[k]] * x[r * w + p->at[k]];
            if (s != 0.0)
                nonzero[m++] = fabs(s);
        }
    return m;
}

/* numpy's median (the mean of the two middle values for even n). */
static double numpy_median(double *v, size_t n)
{
    double upper = wt_select_kth(v, n, n / 2);
    if (n % 2)
        return upper;
    double lower = v[0];
    for (size_t i = 1; i < n / 2; i++)
        lower = v[i] > lower ? v[i] : lower;
    return (lower + upper) / 2.0;
}

wt_status wt_noise_sigma_plane(const double *x, size_t h, size_t w, const wt_wavelet *wavelet,
                               double *sigma)
{
    size_t f = (size_t)wavelet->filter_len;
    tap_plan py = {0}, px = {0};
    wt_status st = plan_make(&py, h, f);
    if (st == WT_OK)
        st = plan_make(&px, w, f);
    double *cols = st == WT_OK ? malloc(py.nout * w * sizeof *cols) : NULL;
    double *nonzero = st == WT_OK ? malloc((py.nout * px.nout + 1) * sizeof *nonzero) : NULL;
    if (st == WT_OK && (!cols || !nonzero))
        st = wt_error_set(WT_ERR_NOMEM, "out of memory for the noise estimate");
    if (st == WT_OK) {
        filter_columns(&py, wavelet->dec_hi, x, w, cols);
        size_t m = filter_rows_nonzero(&px, wavelet->dec_hi, cols, py.nout, w, nonzero);
        *sigma = m ? numpy_median(nonzero, m) / NORM_PPF_075 : NAN;
    }
    free(cols);
    free(nonzero);
    plan_free(&py);
    plan_free(&px);
    return st;
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
        *sigma = m ? numpy_median(nonzero, m) / NORM_PPF_075 : NAN;
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
    const wt_wavelet *wavelet;
    double *sigma;
    wt_status *status;
} image_job;

/* Row @p y of channel @p c times @p scale into @p v (width samples). */
static void channel_row(const wt_image *img, size_t y, int c, double scale, double *v)
{
    size_t w = img->width, ch = (size_t)img->channels, at = y * w * ch + (size_t)c;
    if (img->bit_depth == WT_DEPTH_F32)
        for (size_t i = 0; i < w; i++)
            v[i] = (double)((const float *)img->pixels)[at + i * ch] * scale;
    else if (img->bit_depth > 8)
        for (size_t i = 0; i < w; i++)
            v[i] = (double)((const uint16_t *)img->pixels)[at + i * ch] * scale;
    else
        for (size_t i = 0; i < w; i++)
            v[i] = (double)((const uint8_t *)img->pixels)[at + i * ch] * scale;
}

/* Channel @p c of the image rolled by (dy, dx), times scale, as float64;
 * @p row: width doubles of scratch. */
static void rolled_channel(const image_job *j, int c, double *x, double *row)
{
    size_t h = j->img->height, w = j->img->width, keep = w - j->dx;
    for (size_t y = 0; y < h; y++) {
        double *dst = x + ((y + j->dy) % h) * w;
        channel_row(j->img, y, c, j->scale, row);
        memcpy(dst + j->dx, row, keep * sizeof *row);
        memcpy(dst, row + keep, j->dx * sizeof *row);
    }
}

static void channel_range(void *ctx, size_t begin, size_t end)
{
    image_job *j = ctx;
    size_t h = j->img->height, w = j->img->width, n = h * w;
    for (size_t c = begin; c < end; c++) {
        double *x = malloc((n + w + 1) * sizeof *x);
        if (!x) {
            j->status[c] = wt_error_set(WT_ERR_NOMEM, "out of memory for the noise estimate");
            continue;
        }
        rolled_channel(j, (int)c, x, x + n);
        j->status[c] = wt_noise_sigma_plane(x, h, w, j->wavelet, &j->sigma[c]);
        free(x);
    }
}

wt_status wt_noise_sigma_image(const wt_image *img, size_t dy, size_t dx, double scale,
                               const wt_wavelet *wavelet, double *sigma)
{
    wt_status status[WT_MAX_CHANNELS];
    size_t channels = (size_t)img->channels;
    image_job j = {img, img->height ? dy % img->height : 0, img->width ? dx % img->width : 0,
                   scale, wavelet, sigma, status};
    wt_parallel_for((int)channels, channels, channel_range, &j);
    for (size_t c = 0; c < channels; c++)
        if (status[c] != WT_OK)
            return status[c];
    return WT_OK;
}
