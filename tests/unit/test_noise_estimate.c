/* The host's noise estimate (src/analysis/noise_estimate.c, through
 * wt_denoise_estimate and wt_estimate_sigma) against a plain computation of
 * scikit-image's: np.roll of img_as_float's samples, pywt.dwtn's finest 'dd'
 * band column by column then row by row, each output summed in PyWavelets'
 * order (downsampling_convolution, mode symmetric), numpy's median of the
 * nonzero |c| by sorting. Bit for bit, over 8-bit, 16-bit and float images,
 * odd, tiny and thin sizes (below the filter's length too), many wavelets,
 * cycle-spin shifts and constant channels (NaN). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wavetool.h"

static uint64_t rng_state = 0x243f6a8885a308d3u;

static uint64_t next_u64(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

static double uniform(void) /* [0, 1) */
{
    return (double)(next_u64() >> 11) / 9007199254740992.0;
}

/* ---- the reference ------------------------------------------------------------ */

/* Half-sample symmetric extension of n samples. */
static size_t reflect(long e, size_t n)
{
    long p = 2 * (long)n, m = ((e % p) + p) % p;
    return (size_t)(m < (long)n ? m : p - 1 - m);
}

/* pywt's high-pass output o of x[0], x[stride], ... (n samples): taps past
 * the right end first, descending, then the others ascending. */
static double highpass_output(const double *x, size_t n, size_t stride, const double *f,
                              size_t nf, size_t o)
{
    size_t i = 2 * o + 1, first = i >= n ? i - n + 1 : 0;
    double s = 0.0;
    for (size_t t = first; t-- > 0;)
        s += f[t] * x[reflect((long)i - (long)t, n) * stride];
    for (size_t t = first; t < nf; t++)
        s += f[t] * x[reflect((long)i - (long)t, n) * stride];
    return s;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median(|nonzero dd|) / Phi^-1(0.75) of an h x w plane, NaN without any. */
static double reference_sigma(const double *x, size_t h, size_t w, const wt_wavelet *wavelet)
{
    size_t nf = (size_t)wavelet->filter_len, oh = (h + nf - 1) / 2, ow = (w + nf - 1) / 2;
    double *cols = malloc(oh * w * sizeof *cols), *v = malloc((oh * ow + 1) * sizeof *v);
    assert_non_null(cols);
    assert_non_null(v);
    for (size_t c = 0; c < w; c++)
        for (size_t o = 0; o < oh; o++)
            cols[o * w + c] = highpass_output(x + c, h, w, wavelet->dec_hi, nf, o);
    size_t n = 0;
    for (size_t r = 0; r < oh; r++)
        for (size_t o = 0; o < ow; o++) {
            double d = highpass_output(cols + r * w, w, 1, wavelet->dec_hi, nf, o);
            if (d != 0.0)
                v[n++] = fabs(d);
        }
    qsort(v, n, sizeof *v, compare_doubles);
    double sigma = !n ? NAN : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0) / 0.6744897501960817;
    free(cols);
    free(v);
    return sigma;
}

static double sample_of(const wt_image *img, size_t i)
{
    if (img->bit_depth == WT_DEPTH_F32)
        return ((const float *)img->pixels)[i];
    if (img->bit_depth > 8)
        return ((const uint16_t *)img->pixels)[i];
    return ((const uint8_t *)img->pixels)[i];
}

/* Channel c of @p img rolled by (dy, dx), each sample times @p scale. */
static double *rolled_channel(const wt_image *img, int c, size_t dy, size_t dx, double scale)
{
    size_t h = img->height, w = img->width, ch = (size_t)img->channels;
    double *x = malloc(h * w * sizeof *x);
    assert_non_null(x);
    for (size_t y = 0; y < h; y++)
        for (size_t i = 0; i < w; i++) {
            size_t sy = (y + h - dy % h) % h, sx = (i + w - dx % w) % w;
            x[y * w + i] = sample_of(img, (sy * w + sx) * ch + (size_t)c) * scale;
        }
    return x;
}

/* ---- the checks --------------------------------------------------------------- */

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b));
}

static double peak_of(const wt_image *img)
{
    return img->bit_depth == WT_DEPTH_F32 ? 1.0 : img->bit_depth > 8 ? 65535.0 : 255.0;
}

/* wt_denoise_estimate of @p img under @p wavelet and @p spin against the
 * reference of every shift and channel. */
static void check_denoise_estimate(const wt_image *img, const char *wavelet, int spin)
{
    wt_denoise_options o;
    wt_denoise_defaults(&o);
    o.params.wavelet = wt_wavelet_find(wavelet);
    assert_non_null(o.params.wavelet);
    o.cycle_spin = spin;
    size_t shifts = (size_t)spin + 1, count = wt_denoise_estimate_count(&o);
    double *got = malloc(count * sizeof *got), peak = peak_of(img);
    assert_non_null(got);
    assert_int_equal(wt_denoise_estimate(&o, img, 2, got), WT_OK);
    for (size_t dy = 0; dy < shifts; dy++)
        for (size_t dx = 0; dx < shifts; dx++)
            for (int c = 0; c < img->channels; c++) {
                double *x = rolled_channel(img, c, dy, dx, 1.0 / peak);
                double want = reference_sigma(x, img->height, img->width, o.params.wavelet) * peak;
                double have = got[4 * (dy * shifts + dx) + (size_t)c];
                if (!same_bits(have, want))
                    fail_msg("%s %ux%u depth %d shift (%zu, %zu) channel %d: %a, not %a", wavelet,
                             img->width, img->height, img->bit_depth, dy, dx, c, have, want);
                free(x);
            }
    free(got);
}

/* Samples with ties and smooth parts (integer images' coefficients repeat),
 * channel 1 of 3+ constant when @p flat. */
static void fill_image(wt_image *img, int flat)
{
    size_t w = img->width, ch = (size_t)img->channels, n = w * img->height * ch;
    double peak = peak_of(img);
    for (size_t i = 0; i < n; i++) {
        size_t x = i / ch % w, y = i / ch / w;
        double v = 0.4 + 0.25 * sin(0.3 * (double)x + 0.2 * (double)y) + 0.2 * uniform();
        if (flat && ch >= 3 && i % ch == 1)
            v = 0.5;
        if (img->bit_depth == WT_DEPTH_F32)
            ((float *)img->pixels)[i] = (float)v;
        else if (img->bit_depth > 8)
            ((uint16_t *)img->pixels)[i] = (uint16_t)(v * peak);
        else
            ((uint8_t *)img->pixels)[i] = (uint8_t)(v * peak);
    }
}

static void check_sizes(const char *const *wavelets, size_t nwavelets, int depth, int spin)
{
    static const uint32_t sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {3, 5}, {7, 4},
                                        {16, 16}, {33, 20}, {61, 47}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int channels = 1; channels <= 4; channels += 2) {
            wt_image img;
            assert_int_equal(wt_image_alloc(&img, sizes[s][0], sizes[s][1], channels, depth),
                             WT_OK);
            fill_image(&img, s % 2);
            for (size_t k = 0; k < nwavelets; k++)
                check_denoise_estimate(&img, wavelets[k], spin);
            wt_image_free(&img);
        }
}

static const char *const all_wavelets[] = {"db1",  "db2",    "db3",    "db4",   "db5",
                                           "db6",  "db7",    "db8",    "sym2",  "sym5",
                                           "sym8", "coif1",  "coif3",  "bior1.3", "bior2.2",
                                           "bior4.4", "rbio3.1", "haar", "db20"};

static void test_wavelets_8bit(void **state)
{
    (void)state;
    check_sizes(all_wavelets, sizeof all_wavelets / sizeof *all_wavelets, 8, 0);
}

static void test_wavelets_16bit_float(void **state)
{
    (void)state;
    check_sizes(all_wavelets, sizeof all_wavelets / sizeof *all_wavelets, 16, 0);
    check_sizes(all_wavelets, sizeof all_wavelets / sizeof *all_wavelets, WT_DEPTH_F32, 0);
}

static void test_cycle_spin(void **state)
{
    (void)state;
    static const char *const some[] = {"db1", "db2", "sym4", "coif2"};
    check_sizes(some, 4, 8, 3);
    check_sizes(some, 2, WT_DEPTH_F32, 2);
}

/* A photo-sized plane: many coefficients, the median's select over several
 * digits (8-bit: heavy ties; float: nearly all distinct). */
static void test_large(void **state)
{
    (void)state;
    int depths[] = {8, 16, WT_DEPTH_F32};
    for (int k = 0; k < 3; k++) {
        wt_image img;
        assert_int_equal(wt_image_alloc(&img, 301, 203, 3, depths[k]), WT_OK);
        fill_image(&img, 0);
        check_denoise_estimate(&img, "db1", 1);
        check_denoise_estimate(&img, "db4", 0);
        wt_image_free(&img);
    }
}

/* estimate_sigma: db2 on the samples as they are (no 1 / peak). */
static void test_estimate_sigma(void **state)
{
    (void)state;
    wt_image img;
    assert_int_equal(wt_image_alloc(&img, 45, 38, 3, 16), WT_OK);
    fill_image(&img, 1);
    double got[4];
    assert_int_equal(wt_estimate_sigma(NULL, &img, got), WT_OK);
    for (int c = 0; c < 3; c++) {
        double *x = rolled_channel(&img, c, 0, 0, 1.0);
        double want = reference_sigma(x, img.height, img.width, wt_wavelet_find("db2"));
        assert_true(same_bits(got[c], want));
        free(x);
    }
    assert_true(isnan(got[1])); /* the constant channel */
    wt_image_free(&img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wavelets_8bit), cmocka_unit_test(test_wavelets_16bit_float),
        cmocka_unit_test(test_cycle_spin),    cmocka_unit_test(test_large),
        cmocka_unit_test(test_estimate_sigma),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
