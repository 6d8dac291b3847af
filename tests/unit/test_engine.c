/* Unit tests of the CPU reference engine: PyWavelets reference vectors,
 * perfect reconstruction, lifting == convolution, legall53 exactness, the
 * JPEG 2000 gains, and the small rules (lengths, levels, names). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "axis_filter.h"
#include "axis_view.h"
#include "dwt_line.h"
#include "wavetool_hooks.h"
#include "wavetool.h"
#include "wavetool_hooks.h" /* wt_auto_prefers_gpu */

#define TOL 1e-5

static const char *vectors_path;

/* ---------------------------------------------------------------------- */
/* helpers */

static wt_engine *cpu_engine(void)
{
    wt_engine *e = NULL;
    assert_int_equal(wt_engine_open(&e, "cpu"), WT_OK);
    return e;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static double uniform(void) /* xorshift64*, [-1, 1) */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    uint64_t r = rng_state * 2685821657736338717ull;
    return (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

/* Samples of the variant tests: floats within +-100; integers within
 * +-1000 but every fourth run of @p run samples, which spans int32
 * (legall53's saturated steps, and its switches to and from the 32-bit
 * ones). */
static void random_samples(void *x, size_t n, int integer, size_t run)
{
    for (size_t i = 0; i < n; i++)
        if (!integer)
            ((float *)x)[i] = (float)(uniform() * 100.0);
        else if (i / run % 4 == 3)
            ((int32_t *)x)[i] = (int32_t)floor(uniform() * 2147483648.0);
        else
            ((int32_t *)x)[i] = (int32_t)(uniform() * 1000.0);
}

static float *random_planes(size_t n, double scale, int integer)
{
    float *x = malloc(n * sizeof *x + 1);
    for (size_t i = 0; i < n; i++) {
        double v = uniform() * scale;
        x[i] = (float)(integer ? floor(fabs(v)) : v);
    }
    return x;
}

/* max |a - b| / max |b| */
static double rel_error(const float *a, const double *b, size_t n)
{
    double err = 0, scale = 1e-30;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - b[i]);
        err = d > err ? d : err;
        scale = fabs(b[i]) > scale ? fabs(b[i]) : scale;
    }
    return err / scale;
}

static double rel_error_f(const float *a, const float *b, size_t n)
{
    double err = 0, scale = 1e-30;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        err = d > err ? d : err;
        scale = fabs((double)b[i]) > scale ? fabs((double)b[i]) : scale;
    }
    return err / scale;
}

static wt_params params_of(const char *wavelet, wt_mode mode, wt_method method, int levels)
{
    wt_params p = {wt_wavelet_find(wavelet), mode, method, levels};
    assert_non_null(p.wavelet);
    assert_int_equal(wt_params_resolve(&p), WT_OK);
    return p;
}

/* ---------------------------------------------------------------------- */
/* PyWavelets reference vectors (tests/ref/vectors.txt) */

static int read_values(FILE *f, const char *tag, double **out, size_t *n)
{
    char word[16];
    if (fscanf(f, "%15s %zu", word, n) != 2 || strcmp(word, tag) != 0)
        return 0;
    *out = malloc(*n * sizeof **out + 1);
    for (size_t i = 0; i < *n; i++)
        if (fscanf(f, "%lf", &(*out)[i]) != 1)
            return 0;
    return 1;
}

static void check_reference_case(wt_engine *e, const char *name, const char *mode_name,
                                 int levels, int c, size_t h, size_t w, const double *in,
                                 const double *coef, size_t ncoef, const double *rec,
                                 wt_method method, int *cases)
{
    wt_params p = {wt_wavelet_find(name), WT_MODE_ZERO, method, levels};
    assert_non_null(p.wavelet);
    assert_int_equal(wt_mode_parse(mode_name, &p.mode), WT_OK);
    if (wt_params_resolve(&p) != WT_OK)
        return; /* e.g. no lifting scheme */
    size_t n = (size_t)c * h * w;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)in[i];
    wt_pyramid pyr;
    assert_int_equal(wt_pyramid_alloc(&pyr, &p, h, w, c), WT_OK);
    assert_int_equal(pyr.total, ncoef);
    assert_int_equal(wt_forward(e, &p, x, &pyr), WT_OK);
    double err = rel_error(pyr.data, coef, ncoef);
    if (err > TOL)
        fail_msg("%s %s %s L%d %dx%zux%zu: coefficients differ from pywt (%.3g)", name,
                 mode_name, wt_method_name(p.method), levels, c, h, w, err);
    assert_int_equal(wt_inverse(e, &p, &pyr, y), WT_OK);
    /* on the scale of the larger of samples and coefficients (float32 storage) */
    double scale = 1e-30, rerr = 0;
    for (size_t i = 0; i < ncoef; i++)
        scale = fabs(coef[i]) > scale ? fabs(coef[i]) : scale;
    for (size_t i = 0; i < n; i++) {
        scale = fabs(in[i]) > scale ? fabs(in[i]) : scale;
        rerr = fabs(y[i] - rec[i]) > rerr ? fabs(y[i] - rec[i]) : rerr;
    }
    if (rerr / scale > TOL)
        fail_msg("%s %s L%d: inverse differs from pywt.waverec2 (%.3g)", name, mode_name, levels,
                 rerr / scale);
    wt_pyramid_free(&pyr);
    free(x);
    free(y);
    (*cases)++;
}

static void test_reference_vectors(void **state)
{
    (void)state;
    FILE *f = fopen(vectors_path, "r");
    if (!f)
        fail_msg("cannot open %s", vectors_path);
    wt_engine *e = cpu_engine();
    int cases = 0;
    char name[32], mode[32];
    int levels, c;
    size_t h, w;
    while (fscanf(f, " case %31s %31s %d %d %zu %zu", name, mode, &levels, &c, &h, &w) == 6) {
        double *in = NULL, *coef = NULL, *rec = NULL;
        size_t nin, ncoef, nrec;
        assert_true(read_values(f, "in", &in, &nin));
        assert_true(read_values(f, "coef", &coef, &ncoef));
        assert_true(read_values(f, "rec", &rec, &nrec));
        for (int m = WT_METHOD_CONV; m <= WT_METHOD_LIFTING; m++)
            check_reference_case(e, name, mode, levels, c, h, w, in, coef, ncoef, rec,
                                 (wt_method)m, &cases);
        free(in);
        free(coef);
        free(rec);
    }
    fclose(f);
    wt_engine_close(e);
    print_message("%d reference cases\n", cases);
    assert_true(cases > 400);
}

/* ---------------------------------------------------------------------- */
/* Properties over every wavelet, mode and method */

static const size_t sizes[][2] = {{1, 1}, {1, 9}, {8, 1}, {7, 13}, {31, 16}, {64, 37}};

static void roundtrip_one(wt_engine *e, const wt_params *p, size_t h, size_t w, int c)
{
    size_t n = h * w * (size_t)c;
    float *x = random_planes(n, 1000.0, p->wavelet->integer), *y = malloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++)
        y[i] = NAN; /* canary: every sample must be written */
    wt_pyramid pyr;
    assert_int_equal(wt_pyramid_alloc(&pyr, p, h, w, c), WT_OK);
    assert_int_equal(wt_forward(e, p, x, &pyr), WT_OK);
    assert_int_equal(wt_inverse(e, p, &pyr, y), WT_OK);
    double err = rel_error_f(y, x, n);
    if (p->wavelet->integer ? err != 0.0 : err > TOL)
        fail_msg("%s %s %s L%d %zux%zu: inverse(forward(x)) != x (%.3g)", p->wavelet->name,
                 wt_mode_name(p->mode), wt_method_name(p->method), p->levels, h, w, err);
    wt_pyramid_free(&pyr);
    free(x);
    free(y);
}

static void test_perfect_reconstruction(void **state)
{
    (void)state;
    wt_engine *e = cpu_engine();
    int cases = 0;
    for (size_t i = 0; i < wt_wavelet_count(); i++) {
        const wt_wavelet *wv = wt_wavelet_at(i);
        if (strcmp(wv->name, "dmey") == 0)
            continue; /* an FIR approximation: not perfect reconstruction */
        for (int m = 0; m < WT_MODE_COUNT; m++)
            for (int meth = WT_METHOD_CONV; meth <= WT_METHOD_LIFTING; meth++) {
                wt_params p = {wv, (wt_mode)m, (wt_method)meth, 0};
                if (wt_params_resolve(&p) != WT_OK)
                    continue;
                size_t s = (i + (size_t)m) % (sizeof sizes / sizeof *sizes);
                size_t h = sizes[s][0], w = sizes[s][1];
                p.levels = wt_max_level(h, w, wv) + 1;
                roundtrip_one(e, &p, h, w, 1 + (int)(i % 3));
                cases++;
            }
    }
    wt_engine_close(e);
    print_message("%d round trips\n", cases);
}

static void test_lifting_equals_conv(void **state)
{
    (void)state;
    wt_engine *e = cpu_engine();
    int cases = 0;
    for (size_t i = 0; i < wt_wavelet_count(); i++) {
        const wt_wavelet *wv = wt_wavelet_at(i);
        if (!wv->lifting || wv->integer)
            continue;
        for (int m = 0; m < WT_MODE_COUNT; m++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                size_t h = sizes[s][0], w = sizes[s][1];
                wt_params pc = {wv, (wt_mode)m, WT_METHOD_CONV, 2};
                wt_params pl = {wv, (wt_mode)m, WT_METHOD_LIFTING, 2};
                if (wt_params_resolve(&pc) != WT_OK || wt_params_resolve(&pl) != WT_OK)
                    continue;
                size_t n = h * w * 2;
                float *x = random_planes(n, 255.0, 0);
                wt_pyramid a, b;
                assert_int_equal(wt_pyramid_alloc(&a, &pc, h, w, 2), WT_OK);
                assert_int_equal(wt_pyramid_alloc(&b, &pl, h, w, 2), WT_OK);
                assert_int_equal(wt_forward(e, &pc, x, &a), WT_OK);
                assert_int_equal(wt_forward(e, &pl, x, &b), WT_OK);
                double err = rel_error_f(b.data, a.data, a.total);
                if (err > TOL)
                    fail_msg("%s %s %zux%zu: lifting != conv (%.3g)", wv->name,
                             wt_mode_name((wt_mode)m), h, w, err);
                wt_pyramid_free(&a);
                wt_pyramid_free(&b);
                free(x);
                cases++;
            }
    }
    wt_engine_close(e);
    print_message("%d lifting/conv comparisons\n", cases);
    assert_true(cases > 100);
}

static void test_legall53_exact(void **state)
{
    (void)state;
    wt_engine *e = cpu_engine();
    const wt_mode modes[] = {WT_MODE_SYMMETRIC, WT_MODE_PERIODIZATION};
    for (int m = 0; m < 2; m++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            wt_params p = params_of("legall53", modes[m], WT_METHOD_AUTO, 0);
            size_t h = sizes[s][0], w = sizes[s][1];
            size_t n = h * w;
            float *x = random_planes(n, 65535.0, 1), *y = malloc(n * sizeof *y);
            for (int levels = 0; levels <= wt_max_level(h, w, p.wavelet) + 1; levels++) {
                p.levels = levels;
                wt_pyramid pyr;
                assert_int_equal(wt_pyramid_alloc(&pyr, &p, h, w, 1), WT_OK);
                assert_int_equal(pyr.dtype, WT_INT32);
                assert_int_equal(wt_forward(e, &p, x, &pyr), WT_OK);
                assert_int_equal(wt_inverse(e, &p, &pyr, y), WT_OK);
                assert_memory_equal(x, y, n * sizeof *x);
                wt_pyramid_free(&pyr);
            }
            free(x);
            free(y);
        }
    wt_engine_close(e);
}

/* Float samples beyond int32 into a legall53 pyramid: converted as the GPU
 * converts them (toward zero, saturated, NaN 0), at 0 levels (the samples
 * are the coefficients) and at 1 (the first level's input). fuzz_cli found
 * the plain cast (undefined behaviour; x86 gave INT32_MIN for 4.1e9). */
static void test_legall53_float_saturation(void **state)
{
    (void)state;
    wt_engine *e = cpu_engine();
    float x[8] = {4.1e9f, -5e9f, 3e38f, 1.5f, NAN, -1e10f, -2.7f, 7.0f};
    const int32_t want[8] = {INT32_MAX, INT32_MIN, INT32_MAX, 1, 0, INT32_MIN, -2, 7};
    wt_params p = params_of("legall53", WT_MODE_SYMMETRIC, WT_METHOD_AUTO, 0);
    wt_pyramid pyr;
    assert_int_equal(wt_pyramid_alloc(&pyr, &p, 2, 4, 1), WT_OK);
    assert_int_equal(pyr.dtype, WT_INT32);
    assert_int_equal(wt_forward(e, &p, x, &pyr), WT_OK);
    assert_memory_equal(pyr.data, want, sizeof want);
    wt_pyramid_free(&pyr);
    /* one level: the same saturated samples, transformed */
    float y[8];
    for (int i = 0; i < 8; i++)
        y[i] = (float)want[i];
    wt_pyramid a, b;
    p.levels = 1;
    assert_int_equal(wt_pyramid_alloc(&a, &p, 2, 4, 1), WT_OK);
    assert_int_equal(wt_pyramid_alloc(&b, &p, 2, 4, 1), WT_OK);
    assert_int_equal(wt_forward(e, &p, x, &a), WT_OK);
    assert_int_equal(wt_forward(e, &p, y, &b), WT_OK);
    assert_memory_equal(a.data, b.data, a.total * 4);
    wt_pyramid_free(&a);
    wt_pyramid_free(&b);
    wt_engine_close(e);
}

/* JPEG 2000 5/3 by hand on a short signal: d = x_odd - floor((left + right) / 2),
 * s = x_even + floor((d_left + d_right + 2) / 4), whole-sample symmetric. */
static void test_legall53_known_values(void **state)
{
    (void)state;
    wt_params p = params_of("legall53", WT_MODE_SYMMETRIC, WT_METHOD_AUTO, 1);
    wt_line line;
    wt_line_init(&line, &p, 5);
    int32_t in[5 * WT_BATCH], lo[3 * WT_BATCH], hi[2 * WT_BATCH];
    const int32_t x[5] = {10, 20, 31, 40, 50};
    for (int i = 0; i < 5; i++)
        for (int b = 0; b < WT_BATCH; b++)
            in[i * WT_BATCH + b] = x[i];
    int32_t *scratch = malloc(wt_line_scratch(&line));
    wt_line_forward_i32(&line, in, lo, hi, scratch);
    /* d0 = 20 - floor(41/2) = 0, d1 = 40 - floor(81/2) = 0;
       s0 = 10 + floor((0+0+2)/4) = 10, s1 = 31 + 0 = 31, s2 = 50 + 0 = 50 */
    assert_int_equal(hi[0], 0);
    assert_int_equal(hi[WT_BATCH], 0);
    assert_int_equal(lo[0], 10);
    assert_int_equal(lo[WT_BATCH], 31);
    assert_int_equal(lo[2 * WT_BATCH], 50);
    const int32_t z[5] = {0, 7, 0, 0, 3};
    for (int i = 0; i < 5; i++)
        for (int b = 0; b < WT_BATCH; b++)
            in[i * WT_BATCH + b] = z[i];
    wt_line_forward_i32(&line, in, lo, hi, scratch);
    /* d0 = 7 - 0 = 7, d1 = 0 - floor(3/2) = -1 ; s0 = 0 + floor((7+7+2)/4) = 4,
       s1 = 0 + floor((7-1+2)/4) = 2, s2 = 3 + floor((-1-1+2)/4) = 3 */
    assert_int_equal(hi[0], 7);
    assert_int_equal(hi[WT_BATCH], -1);
    assert_int_equal(lo[0], 4);
    assert_int_equal(lo[WT_BATCH], 2);
    assert_int_equal(lo[2 * WT_BATCH], 3);
    free(scratch);
}

/* cdf97 (JPEG 2000 normalisation) against bior4.4 (PyWavelets) in
 * periodization mode on even lengths: lo = bior_lo / sqrt(2) and
 * hi = -sqrt(2) * bior_hi, up to a circular shift. */
static void test_cdf97_vs_bior44(void **state)
{
    (void)state;
    for (size_t n = 8; n <= 64; n *= 2) {
        wt_params pc = params_of("cdf97", WT_MODE_PERIODIZATION, WT_METHOD_LIFTING, 1);
        wt_params pb = params_of("bior4.4", WT_MODE_PERIODIZATION, WT_METHOD_CONV, 1);
        wt_line lc, lb;
        wt_line_init(&lc, &pc, n);
        wt_line_init(&lb, &pb, n);
        float in[64 * WT_BATCH], clo[32 * WT_BATCH], chi[32 * WT_BATCH], blo[32 * WT_BATCH],
            bhi[32 * WT_BATCH];
        for (size_t i = 0; i < n * WT_BATCH; i++)
            in[i] = (float)(uniform() * 100.0);
        void *s1 = malloc(wt_line_scratch(&lc)), *s2 = malloc(wt_line_scratch(&lb));
        wt_line_forward(&lc, in, clo, chi, s1);
        wt_line_forward(&lb, in, blo, bhi, s2);
        size_t half = n / 2;
        int found_lo = 0, found_hi = 0;
        for (size_t shift = 0; shift < half; shift++) {
            double elo = 0, ehi = 0;
            for (size_t k = 0; k < half; k++) {
                size_t j = (k + shift) % half;
                elo = fmax(elo, fabs(clo[k * WT_BATCH] - blo[j * WT_BATCH] / sqrt(2.0)));
                ehi = fmax(ehi, fabs(chi[k * WT_BATCH] + sqrt(2.0) * bhi[j * WT_BATCH]));
            }
            found_lo |= elo < 1e-3;
            found_hi |= ehi < 1e-3;
        }
        assert_true(found_lo);
        assert_true(found_hi);
        free(s1);
        free(s2);
    }
}

/* The one-line transforms (dwt_line_1.c, passes over fewer than WT_BATCH
 * lines) give each lane of a batch exactly: every kind of wavelet, mode,
 * method and short length, both directions, float and legall53. */
static void check_one_line(const wt_params *p, size_t n)
{
    wt_line ln;
    wt_line_init(&ln, p, n);
    size_t m = n + ln.nlo + ln.nhi + 4;
    float *in = calloc(m * WT_BATCH, sizeof *in), *lo = in + n * WT_BATCH + WT_BATCH,
          *hi = lo + ln.nlo * WT_BATCH + WT_BATCH;
    float *one = calloc(m, sizeof *one), *olo = one + n + 1, *ohi = olo + ln.nlo + 1;
    float *back = calloc(n * WT_BATCH, sizeof *back);
    void *s = malloc(wt_line_scratch(&ln)), *s1 = malloc(wt_line_scratch_1(&ln));
    int integer = p->wavelet->integer;
    random_samples(in, n * WT_BATCH, integer, 5 * WT_BATCH);
    if (integer)
        wt_line_forward_i32(&ln, (int32_t *)in, (int32_t *)lo, (int32_t *)hi, s);
    else
        wt_line_forward(&ln, in, lo, hi, s);
    if (integer)
        wt_line_inverse_i32(&ln, (int32_t *)lo, (int32_t *)hi, (int32_t *)back, s);
    else
        wt_line_inverse(&ln, lo, hi, back, s);
    for (size_t b = 0; b < WT_BATCH; b++) {
        for (size_t i = 0; i < n; i++)
            one[i] = in[i * WT_BATCH + b];
        if (integer)
            wt_line_forward_i32_1(&ln, (int32_t *)one, (int32_t *)olo, (int32_t *)ohi, s1);
        else
            wt_line_forward_1(&ln, one, olo, ohi, s1);
        for (size_t k = 0; k < ln.nlo; k++)
            assert_memory_equal(&olo[k], &lo[k * WT_BATCH + b], sizeof *lo);
        for (size_t k = 0; k < ln.nhi; k++)
            assert_memory_equal(&ohi[k], &hi[k * WT_BATCH + b], sizeof *hi);
        if (integer)
            wt_line_inverse_i32_1(&ln, (int32_t *)olo, (int32_t *)ohi, (int32_t *)one, s1);
        else
            wt_line_inverse_1(&ln, olo, ohi, one, s1);
        for (size_t i = 0; i < n; i++)
            assert_memory_equal(&one[i], &back[i * WT_BATCH + b], sizeof *back);
    }
    free(back);
    free(in);
    free(one);
    free(s);
    free(s1);
}

static void test_one_line_equals_batch(void **state)
{
    (void)state;
    static const char *const names[] = {"haar", "db3", "sym5", "coif2", "bior2.2", "rbio3.1",
                                        "dmey", "cdf97", "legall53", "dd137"};
    static const size_t lengths[] = {1, 2, 3, 5, 8, 17, 64};
    for (size_t w = 0; w < sizeof names / sizeof names[0]; w++)
        for (int mode = 0; mode < WT_MODE_COUNT; mode++)
            for (int method = WT_METHOD_CONV; method <= WT_METHOD_LIFTING; method++) {
                wt_params p = {wt_wavelet_find(names[w]), (wt_mode)mode, (wt_method)method, 1};
                if (wt_params_resolve(&p) != WT_OK)
                    continue; /* no lifting, or a mode the wavelet does not take */
                for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
                    check_one_line(&p, lengths[i]);
            }
}

/* checkasm's check for the instruction-set kernels (dwt_line.h): on the same
 * random batch every variant this CPU runs gives the reference's results bit
 * for bit, for every wavelet, mode, method, both directions and lengths
 * around the vector widths and the filters' reaches. */
static void check_kernels(const wt_line_kernels *k, const wt_params *p, size_t n)
{
    const wt_line_kernels *ref = wt_line_kernels_of(WT_ISA_REFERENCE);
    wt_line ln;
    wt_line_init(&ln, p, n);
    size_t len = (n + ln.nlo + ln.nhi) * WT_BATCH, bytes = len * sizeof(float);
    float *in = malloc(bytes), *want = malloc(bytes), *got = malloc(bytes);
    void *scratch = malloc(wt_line_scratch(&ln));
    int integer = p->wavelet->integer;
    random_samples(in, len, integer, 5 * WT_BATCH);
    const float *coeffs = in + n * WT_BATCH; /* lo then hi: random coefficients */
    const wt_line_kernels *pair[2] = {ref, k};
    float *out[2] = {want, got};
    for (int v = 0; v < 2; v++) {
        float *l = out[v] + n * WT_BATCH, *h = l + ln.nlo * WT_BATCH;
        if (integer) {
            pair[v]->forward_i32(&ln, (const int32_t *)in, (int32_t *)l, (int32_t *)h, scratch);
            pair[v]->inverse_i32(&ln, (const int32_t *)coeffs,
                                 (const int32_t *)coeffs + ln.nlo * WT_BATCH, (int32_t *)out[v],
                                 scratch);
        } else {
            pair[v]->forward(&ln, in, l, h, scratch);
            pair[v]->inverse(&ln, coeffs, coeffs + ln.nlo * WT_BATCH, out[v], scratch);
        }
    }
    if (memcmp(want, got, bytes) != 0)
        fail_msg("%s kernels differ from the reference: %s %s method %d n %zu", k->name,
                 p->wavelet->name, wt_mode_name(p->mode), (int)p->method, n);
    free(in);
    free(want);
    free(got);
    free(scratch);
}

static void check_row_copies(const wt_line_kernels *k)
{
    static const size_t lengths[] = {1, 7, 8, 9, 40};
    for (size_t t = 0; t < sizeof lengths / sizeof lengths[0]; t++) {
        size_t len = lengths[t], stride = len + 3, rows_len = stride * WT_BATCH;
        uint32_t *rows = malloc(rows_len * 4), *back = malloc(rows_len * 4);
        uint32_t *want = malloc(len * WT_BATCH * 4), *got = malloc(len * WT_BATCH * 4);
        for (size_t i = 0; i < rows_len; i++)
            rows[i] = back[i] = (uint32_t)i * 2654435761u;
        wt_line_kernels_of(WT_ISA_REFERENCE)->gather_rows(rows, (ptrdiff_t)stride, len, want);
        k->gather_rows(rows, (ptrdiff_t)stride, len, got);
        assert_memory_equal(want, got, len * WT_BATCH * 4);
        memset(back, 0, rows_len * 4);
        k->scatter_rows(got, len, back, (ptrdiff_t)stride);
        for (size_t b = 0; b < WT_BATCH; b++)
            assert_memory_equal(back + b * stride, rows + b * stride, len * 4);
        free(rows);
        free(back);
        free(want);
        free(got);
    }
}

/* The passes of the best kernels against the reference's (WT_CPU_SCALAR=1)
 * along both axes of an h x w plane (columns: dwt_cols.c where they fit;
 * widths around the vector steps), forward and inverse of random
 * coefficients, bit for bit. */
static void check_passes(const wt_params *p, size_t h, size_t w)
{
    for (int axis = 0; axis < 2; axis++) {
        wt_line ln;
        wt_line_init(&ln, p, axis ? w : h);
        size_t n_sig = h * w, n_lo = ln.nlo * (axis ? h : w), n_hi = ln.nhi * (axis ? h : w);
        size_t total = n_sig + n_lo + n_hi;
        float *in = malloc(total * 4), *out[2] = {malloc(total * 4), malloc(total * 4)};
        int integer = p->wavelet->integer;
        random_samples(in, total, integer, w);
        size_t sig_shape[2] = {h, w}, lo_shape[2] = {h, w}, hi_shape[2] = {h, w};
        lo_shape[axis] = ln.nlo;
        hi_shape[axis] = ln.nhi;
        wt_dtype dt = integer ? WT_INT32 : WT_FLOAT32;
        wt_env_knobs *env = wt_env_override();
        const char *saved = env->cpu_scalar;
        for (int v = 0; v < 2; v++) {
            env->cpu_scalar = v == 0 ? "1" : "0";
            float *sig = out[v], *lo = sig + n_sig, *hi = lo + n_lo;
            wt_array_view vs = wt_view_dense(sig, dt, 1, 2, sig_shape);
            wt_array_view vl = wt_view_dense(lo, dt, 1, 2, lo_shape);
            wt_array_view vh = wt_view_dense(hi, dt, 1, 2, hi_shape);
            wt_array_view is = wt_view_dense(in, dt, 1, 2, sig_shape);
            wt_array_view il = wt_view_dense(in + n_sig, dt, 1, 2, lo_shape);
            wt_array_view ih = wt_view_dense(in + n_sig + n_lo, dt, 1, 2, hi_shape);
            assert_int_equal(wt_axis_dwt_forward(&ln, &is, &vl, &vh, axis, 2), WT_OK);
            assert_int_equal(wt_axis_dwt_inverse(&ln, &il, &ih, &vs, axis, 2), WT_OK);
        }
        env->cpu_scalar = saved;
        if (memcmp(out[0], out[1], total * 4) != 0)
            fail_msg("%s passes differ from the reference: %s %s method %d %zux%zu axis %d",
                     wt_line_kernels_best()->name, p->wavelet->name, wt_mode_name(p->mode),
                     (int)p->method, h, w, axis);
        free(in);
        free(out[0]);
        free(out[1]);
    }
}

/* An integer level that reads float samples (the engine's first level):
 * the same bands as the level of the samples converted (wt_convert_samples:
 * toward zero, saturated, NaN 0) near the integer samples @p ints. */
/* The 4 bands of a 2-D level, @p C channels of type @p dt, one after another
 * from @p at (band_rows[b] x band_cols[b] each). */
static void band_views(void *at, wt_dtype dt, int C, const size_t *band_rows,
                       const size_t *band_cols, wt_array_view bands[4])
{
    for (int b = 0; b < 4; b++) {
        size_t bs[2] = {band_rows[b], band_cols[b]};
        bands[b] = wt_view_dense(at, dt, C, 2, bs);
        at = (char *)at + bs[0] * bs[1] * (size_t)C * 4;
    }
}

static void check_level_reads_floats(const wt_line *lines, const void *ints, size_t n, int C,
                                     const size_t *shape, const size_t *band_rows,
                                     const size_t *band_cols, void *const tmps[2])
{
    float *x = malloc(n * 4);
    int32_t *back = malloc(n * 4);
    static const float fractions[] = {0.0f, 0.5f, -0.75f, 0.999f};
    for (size_t i = 0; i < n; i++)
        x[i] = (float)((const int32_t *)ints)[i] + fractions[i % 4];
    x[1] = NAN, x[2] = 3e9f, x[3] = -3e9f; /* 0, INT32_MAX, INT32_MIN */
    wt_convert_samples(back, 1, x, 0, n);
    size_t total = 0;
    for (int b = 0; b < 4; b++)
        total += band_rows[b] * band_cols[b] * (size_t)C;
    int32_t *got[2] = {malloc(total * 4), malloc(total * 4)};
    for (int v = 0; v < 2; v++) { /* the converted samples, then the floats */
        wt_array_view bands[4];
        band_views(got[v], WT_INT32, C, band_rows, band_cols, bands);
        wt_array_view src = v ? wt_view_dense(x, WT_FLOAT32, C, 2, shape)
                              : wt_view_dense(back, WT_INT32, C, 2, shape);
        assert_int_equal(wt_axis_level_forward(lines, &src, bands, tmps, 2), WT_OK);
    }
    if (memcmp(got[0], got[1], total * 4) != 0)
        fail_msg("legall53 level of floats differs from that of their integers: %zux%zux%d",
                 shape[0], shape[1], C);
    free(x);
    free(back);
    free(got[0]);
    free(got[1]);
}

/* A 2-D forward level (wt_axis_level_forward: the column and row passes
 * fused in bands of rows where both fit) and the inverse level of its bands
 * (fused: coefficient rows made on demand into a worker's ring, carried
 * from job to job and from channel to channel) of the best kernels against
 * the reference's, bit for bit; @p C channels. */
static void check_level(const wt_params *p, size_t h, size_t w, int C)
{
    wt_line lines[2];
    wt_line_init(&lines[0], p, h);
    wt_line_init(&lines[1], p, w);
    size_t band_rows[4] = {lines[0].nlo, lines[0].nlo, lines[0].nhi, lines[0].nhi};
    size_t band_cols[4] = {lines[1].nlo, lines[1].nhi, lines[1].nlo, lines[1].nhi};
    size_t total = 0, n = h * w * (size_t)C;
    for (int b = 0; b < 4; b++)
        total += band_rows[b] * band_cols[b] * (size_t)C;
    int integer = p->wavelet->integer;
    wt_dtype dt = integer ? WT_INT32 : WT_FLOAT32;
    float *in = malloc(n * 4), *out[2] = {malloc(total * 4), malloc(total * 4)};
    random_samples(in, n, integer, w * (size_t)C);
    size_t shape[2] = {h, w};
    wt_array_view src = wt_view_dense(in, dt, C, 2, shape);
    void *tmp = malloc(wt_axis_level_tmp(&src, lines, 0) * 4);
    void *const tmps[2] = {tmp, NULL};
    wt_env_knobs *env = wt_env_override();
    const char *saved = env->cpu_scalar;
    for (int v = 0; v < 2; v++) {
        env->cpu_scalar = v == 0 ? "1" : "0";
        wt_array_view bands[4];
        band_views(out[v], dt, C, band_rows, band_cols, bands);
        assert_int_equal(wt_axis_level_forward(lines, &src, bands, tmps, 2), WT_OK);
    }
    if (memcmp(out[0], out[1], total * 4) != 0)
        fail_msg("%s level differs from the reference: %s %s method %d %zux%zux%d",
                 wt_line_kernels_best()->name, p->wavelet->name, wt_mode_name(p->mode),
                 (int)p->method, h, w, C);
    env->cpu_scalar = saved;
    if (integer && wt_axis_level_reads_floats(lines))
        check_level_reads_floats(lines, in, n, C, shape, band_rows, band_cols, tmps);
    /* the inverse level of those bands */
    float *back[2] = {malloc(n * 4), malloc(n * 4)};
    for (int v = 0; v < 2; v++) {
        env->cpu_scalar = v == 0 ? "1" : "0";
        wt_array_view bands[4];
        band_views(out[0], dt, C, band_rows, band_cols, bands);
        wt_array_view dst = wt_view_dense(back[v], dt, C, 2, shape);
        assert_int_equal(wt_axis_level_inverse(lines, bands, &dst, tmps, 2), WT_OK);
    }
    if (memcmp(back[0], back[1], n * 4) != 0)
        fail_msg("%s inverse level differs from the reference: %s %s method %d %zux%zux%d",
                 wt_line_kernels_best()->name, p->wavelet->name, wt_mode_name(p->mode),
                 (int)p->method, h, w, C);
    /* integers into float planes (the engine's last level): the samples
     * converted, by both kernels */
    for (int v = 0; integer && v < 2; v++) {
        env->cpu_scalar = v == 0 ? "1" : "0";
        wt_array_view bands[4];
        band_views(out[0], dt, C, band_rows, band_cols, bands);
        wt_array_view dst = wt_view_dense(back[1], WT_FLOAT32, C, 2, shape);
        assert_int_equal(wt_axis_level_inverse(lines, bands, &dst, tmps, 2), WT_OK);
        for (size_t i = 0; i < n; i++)
            if (back[1][i] != (float)((int32_t *)back[0])[i])
                fail_msg("%s legall53 inverse into floats differs at %zu: %s %zux%zux%d",
                         v ? wt_line_kernels_best()->name : "reference", i,
                         wt_mode_name(p->mode), h, w, C);
    }
    env->cpu_scalar = saved;
    free(in);
    free(tmp);
    free(out[0]);
    free(out[1]);
    free(back[0]);
    free(back[1]);
}

static void test_kernels_equal_reference(void **state)
{
    (void)state;
    static const size_t lengths[] = {1, 2, 3, 7, 16, 33, 100};
    for (int isa = WT_ISA_REFERENCE + 1; isa < WT_ISA_COUNT; isa++) {
        const wt_line_kernels *k = wt_line_kernels_of((wt_cpu_isa)isa);
        if (!k)
            continue; /* not built, or not on this CPU */
        check_row_copies(k);
        for (size_t w = 0; w < wt_wavelet_count(); w++)
            for (int mode = 0; mode < WT_MODE_COUNT; mode++)
                for (int method = WT_METHOD_CONV; method <= WT_METHOD_LIFTING; method++) {
                    wt_params p = {wt_wavelet_at(w), (wt_mode)mode, (wt_method)method, 1};
                    if (wt_params_resolve(&p) != WT_OK)
                        continue;
                    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
                        check_kernels(k, &p, lengths[i]);
                    /* the plane kernels take lines of at least twice the filter
                     * (lifting: past its margin; the shortest they take, odd
                     * and even, and the pipeline's jobs of 32 rows) */
                    size_t F = (size_t)p.wavelet->filter_len, M = 2 * F;
                    if (p.wavelet->lifting && p.method == WT_METHOD_LIFTING) {
                        wt_line ln;
                        wt_line_init(&ln, &p, 0);
                        M = wt_lift_margin(&ln) + 2;
                        check_passes(&p, M + 1, 45);
                        check_passes(&p, M + 70, 37);
                        /* rows of several blocks of the row sweep (dwt_lift.c's
                         * SWEEP_BLOCK positions), odd and even */
                        check_passes(&p, M + 1, 777);
                        check_level(&p, M + 3, 518, 1);
                    }
                    check_passes(&p, M, 45);
                    check_passes(&p, M + 3, 13);
                    check_passes(&p, M + 1, 70);
                    check_level(&p, M + 17, M + 5, 1);
                    /* several jobs of 32 rows a worker, over three channels */
                    check_level(&p, M + 71, M + 2, 3);
                }
    }
}

/* The undecimated passes (axis_filter.c) of the best kernels' filter_taps
 * against the reference's (WT_CPU_SCALAR=1), bit for bit: both axes of a
 * plane (rows where they lie, columns across), every border, 1-9 taps,
 * two terms adding into one destination. */
static void check_filter_pass(wt_border border, int ntaps, int axis)
{
    enum { H = 37, W = 45 };
    size_t shape[2] = {H, W};
    float *src = malloc(2 * H * W * sizeof *src), *out[2] = {malloc(H * W * 4), malloc(H * W * 4)};
    for (size_t i = 0; i < 2 * H * W; i++)
        src[i] = (float)(uniform() * 100.0);
    double taps[9];
    for (int k = 0; k < ntaps; k++)
        taps[k] = uniform();
    wt_filter_spec f = {taps, ntaps, 0.7, 2, -3};
    wt_array_view geometry = wt_view_dense(src, WT_FLOAT32, 1, 2, shape);
    wt_env_knobs *env = wt_env_override();
    const char *saved = env->cpu_scalar;
    for (int v = 0; v < 2; v++) {
        env->cpu_scalar = v == 0 ? "1" : "0";
        wt_filter_pass pass;
        wt_filter_pass_init(&pass, &geometry, axis, border);
        wt_filter_pass_add(&pass, src, out[v], &f);
        wt_filter_pass_add(&pass, src + H * W, out[v], &f);
        assert_int_equal(wt_filter_pass_run(&pass, 2), WT_OK);
    }
    env->cpu_scalar = saved;
    if (memcmp(out[0], out[1], H * W * 4) != 0)
        fail_msg("%s filter pass differs from the reference: border %d, %d taps, axis %d",
                 wt_line_kernels_best()->name, (int)border, ntaps, axis);
    free(src);
    free(out[0]);
    free(out[1]);
}

static void test_filter_taps_equal_reference(void **state)
{
    (void)state;
    const wt_border borders[] = {WT_BORDER_MIRROR, WT_BORDER_PERIODIC, WT_BORDER_NEAREST};
    for (int b = 0; b < 3; b++)
        for (int ntaps = 1; ntaps <= 9; ntaps++)
            for (int axis = 0; axis < 2; axis++)
                check_filter_pass(borders[b], ntaps, axis);
}

/* ---------------------------------------------------------------------- */
/* Rules */

static void test_coeff_lengths(void **state)
{
    (void)state;
    const wt_wavelet *db3 = wt_wavelet_find("db3"), *cdf = wt_wavelet_find("cdf97");
    assert_int_equal(db3->filter_len, 6);
    assert_int_equal(wt_coeff_len(1, db3, WT_MODE_SYMMETRIC, 0), 3);
    assert_int_equal(wt_coeff_len(100, db3, WT_MODE_ZERO, 1), 52);
    assert_int_equal(wt_coeff_len(101, db3, WT_MODE_PERIODIZATION, 0), 51);
    assert_int_equal(wt_coeff_len(7, cdf, WT_MODE_SYMMETRIC, 0), 4);
    assert_int_equal(wt_coeff_len(7, cdf, WT_MODE_SYMMETRIC, 1), 3);
    /* pywt.dwt_max_level(1000, 6) == 7, (1000, 2) == 9, (4, 6) == 0 */
    assert_int_equal(wt_max_level(1000, 1000, db3), 7);
    assert_int_equal(wt_max_level(1000, 2000, wt_wavelet_find("haar")), 9);
    assert_int_equal(wt_max_level(4, 4, db3), 0);
    assert_int_equal(wt_max_level(1, 1, cdf), 0);
    assert_int_equal(wt_max_level(9, 1024, cdf), 4);
}

/* A planned pyramid says its rank and depth: an image is rank 2, depth 1. */
static void test_pyramid_rank(void **state)
{
    (void)state;
    wt_params p = {wt_wavelet_find("db2"), WT_MODE_SYMMETRIC, WT_METHOD_CONV, 2};
    wt_pyramid pyr;
    memset(&pyr, 0xff, sizeof pyr);
    assert_int_equal(wt_pyramid_plan(&pyr, &p, 9, 13, 3), WT_OK);
    assert_int_equal(pyr.rank, 2);
    assert_int_equal(pyr.depth, 1);
}

static void test_fold_index(void **state)
{
    (void)state;
    int sign;
    /* symmetric: x[-1] = x[0], x[n] = x[n-1] */
    assert_int_equal(wt_fold_index(-1, 4, WT_MODE_SYMMETRIC, &sign), 0);
    assert_int_equal(wt_fold_index(-5, 4, WT_MODE_SYMMETRIC, &sign), 3);
    assert_int_equal(wt_fold_index(4, 4, WT_MODE_SYMMETRIC, &sign), 3);
    /* reflect: x[-1] = x[1], x[n] = x[n-2] */
    assert_int_equal(wt_fold_index(-1, 4, WT_MODE_REFLECT, &sign), 1);
    assert_int_equal(wt_fold_index(4, 4, WT_MODE_REFLECT, &sign), 2);
    assert_int_equal(wt_fold_index(-3, 1, WT_MODE_REFLECT, &sign), 0);
    assert_int_equal(wt_fold_index(-1, 4, WT_MODE_PERIODIC, &sign), 3);
    /* antisymmetric flips the sign once per mirror */
    assert_int_equal(wt_fold_index(-1, 3, WT_MODE_ANTISYMMETRIC, &sign), 0);
    assert_int_equal(sign, -1);
    assert_int_equal(wt_fold_index(-4, 3, WT_MODE_ANTISYMMETRIC, &sign), 2);
    assert_int_equal(sign, 1);
}

static void test_names_and_errors(void **state)
{
    (void)state;
    assert_int_equal(wt_wavelet_count(), 109);
    assert_null(wt_wavelet_find("db39"));
    assert_non_null(wt_wavelet_find("bior6.8"));
    assert_string_equal(wt_wavelet_suggest("db33x"), "db33");
    wt_mode m;
    assert_int_equal(wt_mode_parse("periodisation", &m), WT_ERR_INVALID);
    assert_non_null(strstr(wt_error_message(), "periodisation"));
    wt_params p = {wt_wavelet_find("db7"), WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 1};
    assert_int_equal(wt_params_resolve(&p), WT_ERR_INVALID);
    assert_non_null(strstr(wt_error_message(), "no lifting"));
    wt_params q = {wt_wavelet_find("cdf97"), WT_MODE_ZERO, WT_METHOD_AUTO, 1};
    assert_int_equal(wt_params_resolve(&q), WT_ERR_INVALID);
    wt_params r = {wt_wavelet_find("legall53"), WT_MODE_SYMMETRIC, WT_METHOD_CONV, 1};
    assert_int_equal(wt_params_resolve(&r), WT_ERR_INVALID);
    wt_params s = {wt_wavelet_find("haar"), WT_MODE_SYMMETRIC, WT_METHOD_AUTO, 1};
    assert_int_equal(wt_params_resolve(&s), WT_OK);
    assert_int_equal(s.method, WT_METHOD_CONV);
    wt_engine *e;
    assert_int_equal(wt_engine_open(&e, "gpu7"), WT_ERR_INVALID);
}

/* A pyramid planned for other params is refused, not overrun. */
static void test_mismatched_pyramid(void **state)
{
    (void)state;
    wt_engine *e = cpu_engine();
    wt_params a = params_of("haar", WT_MODE_SYMMETRIC, WT_METHOD_AUTO, 1);
    wt_params b = params_of("db4", WT_MODE_SYMMETRIC, WT_METHOD_AUTO, 1);
    wt_pyramid pyr;
    assert_int_equal(wt_pyramid_alloc(&pyr, &a, 16, 16, 1), WT_OK);
    float x[256] = {0};
    assert_int_equal(wt_forward(e, &b, x, &pyr), WT_ERR_INVALID);
    wt_pyramid_free(&pyr);
    wt_engine_close(e);
}

/* The image paths of the CPU engine equal the float path they compose, and a
 * mosaic kept between calls is drawn into (same pixels pointer) when the
 * layout matches, replaced when it does not. */
static void fill_image(wt_image *img, unsigned seed)
{
    uint8_t *px = img->pixels;
    size_t n = wt_image_bytes(img);
    for (size_t i = 0; i < n; i++)
        px[i] = (uint8_t)(((i + seed) * 2654435761u) >> 24);
}

static void test_image_paths(void **state)
{
    (void)state;
    wt_engine *e;
    assert_int_equal(wt_engine_open(&e, "cpu"), WT_OK);
    wt_params p = {wt_wavelet_find("db3"), WT_MODE_SYMMETRIC, WT_METHOD_CONV, 2};
    wt_image img, other, back, m = {0}, fresh = {0};
    assert_int_equal(wt_image_alloc(&img, 37, 29, 3, 8), WT_OK);
    assert_int_equal(wt_image_alloc(&other, 20, 19, 3, 8), WT_OK);
    fill_image(&img, 1);
    fill_image(&other, 2);
    assert_int_equal(wt_mosaic_image(e, &p, &img, WT_SCALE_AUTO, 8, &m), WT_OK);
    void *first = m.pixels;
    assert_int_equal(wt_mosaic_image(e, &p, &other, WT_SCALE_AUTO, 8, &fresh), WT_OK);
    assert_int_equal(wt_mosaic_image(e, &p, &img, WT_SCALE_AUTO, 8, &m), WT_OK);
    assert_ptr_equal(m.pixels, first); /* kept */
    /* the reference: planes, wt_forward, wt_mosaic_render */
    wt_pyramid pyr;
    wt_image ref;
    float *planes = malloc(37 * 29 * 3 * sizeof *planes);
    assert_non_null(planes);
    assert_int_equal(wt_image_to_planes(&img, planes), WT_OK);
    assert_int_equal(wt_pyramid_alloc(&pyr, &p, 29, 37, 3), WT_OK);
    assert_int_equal(wt_forward(e, &p, planes, &pyr), WT_OK);
    assert_int_equal(wt_mosaic_render(&pyr, WT_SCALE_AUTO, 8, &ref), WT_OK);
    assert_int_equal(m.width, ref.width);
    assert_int_equal(m.height, ref.height);
    assert_memory_equal(m.pixels, ref.pixels, wt_image_bytes(&ref));
    /* another layout: replaced, and equal to a fresh mosaic of that image */
    assert_int_equal(wt_mosaic_image(e, &p, &other, WT_SCALE_AUTO, 8, &m), WT_OK);
    assert_int_equal(m.width, fresh.width);
    assert_memory_equal(m.pixels, fresh.pixels, wt_image_bytes(&fresh));
    /* a failure frees the kept pixels */
    assert_int_equal(wt_mosaic_image(e, &p, &img, WT_SCALE_AUTO, 12, &m), WT_ERR_INVALID);
    assert_null(m.pixels);
    /* round trip of 8-bit samples is exact; the times add up */
    assert_int_equal(wt_image_alloc(&back, 37, 29, 3, 8), WT_OK);
    assert_int_equal(wt_roundtrip_image(e, &p, &img, &back), WT_OK);
    assert_memory_equal(back.pixels, img.pixels, wt_image_bytes(&img));
    wt_engine_times t;
    wt_engine_get_times(e, &t);
    assert_true(t.calls >= 4 && t.transform > 0.0);
    free(planes);
    wt_pyramid_free(&pyr);
    wt_image_free(&ref);
    wt_image_free(&fresh);
    wt_image_free(&back);
    wt_image_free(&other);
    wt_image_free(&img);
    wt_engine_close(e);
}

/* --device auto's model: a volume pays the GPU's copies from pageable
 * memory and the CPU engine's third pass, so 4 x 10^8 db3 samples go to the
 * GPU as images and stay on the CPU as a volume; 2 x 10^9 go to the GPU. */
static void test_auto_device_volumes(void **state)
{
    (void)state;
    wt_auto_job image = {400000000u, 1, 6, 16, 0, 1}, volume = image, big = image;
    volume.volume = 1;
    big.volume = 1;
    big.samples = 2000000000u;
    assert_true(wt_auto_prefers_gpu(&image, NULL, 0));
    assert_false(wt_auto_prefers_gpu(&volume, NULL, 0));
    assert_true(wt_auto_prefers_gpu(&big, NULL, 0));
    assert_true(wt_auto_gpu_seconds(&volume) > wt_auto_gpu_seconds(&image));
}

/* --device auto's model against what bench/auto_device.sh measured on 16
 * cores (src/engine/auto_device.c): one large file goes to the GPU (the CPU
 * engine's host work runs on one thread), the same samples in many files
 * that keep every core busy stay on the CPU, cycle spinning's passes pay
 * for the GPU's opening, a single photo does not. */
static void test_auto_device_files(void **state)
{
    (void)state;
    const uint64_t rgb8192 = 8192ull * 8192 * 3, rgb1024 = 1024ull * 1024 * 3;
    const uint64_t photo = 1920ull * 1080 * 3;
    wt_auto_job one_big = {rgb8192, 1, 6, 16, 0, 1};
    wt_auto_job many_small = {200 * rgb1024, 1, 6, 16, 0, 16};
    wt_auto_job many_large = {200 * 4096ull * 4096 * 3, 1, 6, 16, 0, 16};
    wt_auto_job small = {512ull * 512 * 3, 1, 6, 16, 0, 1};
    wt_auto_job denoise = {photo, 3, 2, 16, 0, 1}, spin = denoise;
    spin.passes = 3 * 16; /* --cycle-spin 3 */
    assert_true(wt_auto_prefers_gpu(&one_big, NULL, 0));
    assert_false(wt_auto_prefers_gpu(&many_small, NULL, 0));
    assert_true(wt_auto_prefers_gpu(&many_large, NULL, 0));
    assert_false(wt_auto_prefers_gpu(&small, NULL, 0));
    assert_false(wt_auto_prefers_gpu(&denoise, NULL, 0));
    assert_true(wt_auto_prefers_gpu(&spin, NULL, 0));
    wt_auto_job one_file = many_small;
    one_file.workers = 1; /* the same samples as one file: the host work on one thread */
    assert_true(wt_auto_cpu_seconds(&one_file) > 3 * wt_auto_cpu_seconds(&many_small));
}

/* Float planes to 8- and 16-bit samples: clipped to [0, peak], NaN 0,
 * rounded half to even (lrintf), every channel count, against a plain loop;
 * the vectorised conversion and the reference C (WT_CPU_SCALAR=1). */
/* wt_quality_rows fed bands of rows (1 row, odd heights, across the sums'
 * chunks of 2^20 pixels) gives wt_quality_compare_peak's numbers bit for bit:
 * 16-bit gray, 8-bit RGB, float32 with two channels, with and without a peak. */
static void quality_rows_case(uint32_t w, uint32_t h, int channels, int depth, double peak)
{
    static const uint32_t heights[] = {1, 7, 333, 2, 150};
    wt_image a, b;
    assert_int_equal(wt_image_alloc(&a, w, h, channels, depth), WT_OK);
    assert_int_equal(wt_image_alloc(&b, w, h, channels, depth), WT_OK);
    size_t n = (size_t)w * h * (size_t)channels;
    for (size_t i = 0; i < n; i++) {
        double u = uniform(), v = uniform();
        if (depth == WT_DEPTH_F32) {
            ((float *)a.pixels)[i] = (float)(1000.0 * u);
            ((float *)b.pixels)[i] = (float)(1000.0 * u + 0.01 * v);
        } else if (depth == 16) {
            ((uint16_t *)a.pixels)[i] = (uint16_t)(32768.0 + 32767.0 * u);
            ((uint16_t *)b.pixels)[i] = (uint16_t)(32768.0 + 32767.0 * v);
        } else {
            ((uint8_t *)a.pixels)[i] = (uint8_t)(128.0 + 127.0 * u);
            ((uint8_t *)b.pixels)[i] = (uint8_t)(128.0 + 127.0 * v);
        }
    }
    wt_quality whole, rows;
    assert_int_equal(wt_quality_compare_peak(&a, &b, peak, &whole), WT_OK);
    wt_quality_rows s;
    assert_int_equal(wt_quality_rows_start(&s, &a), WT_OK);
    size_t row_bytes = wt_image_bytes(&a) / h;
    for (uint32_t y = 0, k = 0; y < h; k++) {
        uint32_t take = heights[k % 5] < h - y ? heights[k % 5] : h - y;
        wt_image ra = a, rb = b;
        ra.height = rb.height = take;
        ra.pixels = (unsigned char *)a.pixels + y * row_bytes;
        rb.pixels = (unsigned char *)b.pixels + y * row_bytes;
        assert_int_equal(wt_quality_rows_add(&s, &ra, &rb), WT_OK);
        y += take;
    }
    /* one row more than the image has is refused */
    wt_image extra = a;
    extra.height = 1;
    assert_int_equal(wt_quality_rows_add(&s, &extra, &extra), WT_ERR_INVALID);
    assert_int_equal(wt_quality_rows_finish(&s, peak, &rows), WT_OK);
    assert_true(whole.mse_mean > 0.0);
    assert_memory_equal(&whole, &rows, sizeof whole);
    /* rows missing: an error, not numbers */
    assert_int_equal(wt_quality_rows_start(&s, &a), WT_OK);
    assert_int_equal(wt_quality_rows_finish(&s, peak, &rows), WT_ERR_INVALID);
    wt_image_free(&a);
    wt_image_free(&b);
}

static void test_quality_rows(void **state)
{
    (void)state;
    quality_rows_case(1537, 1001, 1, 16, 0.0);
    quality_rows_case(613, 1201, 3, 8, 0.0);
    quality_rows_case(613, 1201, 3, 8, 1000.0);
    quality_rows_case(301, 257, 2, WT_DEPTH_F32, 0.0);
    quality_rows_case(301, 257, 2, WT_DEPTH_F32, 3.0);
}

static void test_image_from_planes_rounding(void **state)
{
    (void)state;
    const float special[] = {0.5f,  1.5f,  2.5f,     254.5f,    255.5f,      65534.5f, 65535.5f,
                             -0.0f, -0.5f, -3.0f,    NAN,       -NAN,        INFINITY, -INFINITY,
                             1e30f, 0.49999997f, 127.50001f, 3e-39f, 8388609.0f, 65535.0f};
    size_t ns = sizeof special / sizeof *special;
    wt_env_knobs *env = wt_env_override();
    const char *was = env->cpu_scalar;
    for (int depth = 8; depth <= 32; depth = depth == 8 ? 16 : depth + 16)
        for (int c = 1; c <= 5; c++) {
            int depth_of_image = depth == 32 ? 8 : depth; /* 32: 8-bit, reference C */
            env->cpu_scalar = depth == 32 ? "1" : was;
            uint32_t w = 61, h = 3;
            size_t n = (size_t)w * h;
            float *planes = malloc(n * (size_t)c * sizeof *planes);
            assert_non_null(planes);
            for (size_t i = 0; i < n * (size_t)c; i++)
                planes[i] = i < ns ? special[i] : (float)(i % 1000) * 70.25f - 3000.0f;
            wt_image img;
            assert_int_equal(wt_image_alloc(&img, w, h, c, depth_of_image), WT_OK);
            wt_image_from_planes(&img, planes);
            env->cpu_scalar = was;
            float peak = depth_of_image > 8 ? 65535.0f : 255.0f;
            for (int ch = 0; ch < c; ch++)
                for (size_t i = 0; i < n; i++) {
                    float v = planes[(size_t)ch * n + i];
                    long want = isnan(v) ? 0 : lrintf(v < 0.0f ? 0.0f : (v > peak ? peak : v));
                    size_t at = i * (size_t)c + (size_t)ch;
                    long got = depth_of_image > 8 ? ((uint16_t *)img.pixels)[at]
                                                  : ((uint8_t *)img.pixels)[at];
                    if (got != want)
                        fail_msg("depth %d, %d channels, plane value %.9g: %ld, want %ld", depth, c,
                                 (double)v, got, want);
                }
            wt_image_free(&img);
            free(planes);
        }
}

/* Mosaics of float pyramids holding awkward values (NaN, infinities, signed
 * zeros, subnormals, a constant band) and of random ones: the vectorised
 * row loops give the reference C's bytes (WT_CPU_SCALAR=1), every scale,
 * 8 and 16 bits, 1 to 4 channels, odd sizes. */
static void test_mosaic_vector_rows(void **state)
{
    (void)state;
    const float odd[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, -7.5f, 3e38f, 0.5f, 2.5f};
    wt_env_knobs *env = wt_env_override();
    const char *was = env->cpu_scalar;
    uint64_t seed = 7;
    for (int c = 1; c <= 4; c++)
        for (int kind = 0; kind < 3; kind++) {
            wt_params p = {wt_wavelet_find("db2"), WT_MODE_SYMMETRIC, WT_METHOD_CONV, 2};
            assert_int_equal(wt_params_resolve(&p), WT_OK);
            wt_pyramid pyr;
            assert_int_equal(wt_pyramid_alloc(&pyr, &p, 37 + (size_t)c, 41, c), WT_OK);
            float *d = pyr.data;
            for (size_t i = 0; i < pyr.total; i++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                float r = (float)((double)(seed >> 11) / 9007199254740992.0 * 400.0 - 200.0);
                d[i] = kind == 0 ? r : kind == 1 ? (i % 4 ? r : odd[(i / 4) % 10]) : 1.25f;
            }
            for (int scale = WT_SCALE_AUTO; scale <= WT_SCALE_OFFSET; scale++)
                for (int depth = 8; depth <= 16; depth += 8) {
                    wt_image fast, ref;
                    env->cpu_scalar = was;
                    assert_int_equal(wt_mosaic_render(&pyr, (wt_scale)scale, depth, &fast), WT_OK);
                    env->cpu_scalar = "1";
                    assert_int_equal(wt_mosaic_render(&pyr, (wt_scale)scale, depth, &ref), WT_OK);
                    env->cpu_scalar = was;
                    assert_memory_equal(fast.pixels, ref.pixels, wt_image_bytes(&ref));
                    wt_image_free(&fast);
                    wt_image_free(&ref);
                }
            wt_pyramid_free(&pyr);
        }
}

int main(int argc, char **argv)
{
    vectors_path = argc > 1 ? argv[1] : "tests/ref/vectors.txt";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_vectors),
        cmocka_unit_test(test_image_from_planes_rounding),
        cmocka_unit_test(test_quality_rows),
        cmocka_unit_test(test_mosaic_vector_rows),
        cmocka_unit_test(test_perfect_reconstruction),
        cmocka_unit_test(test_lifting_equals_conv),
        cmocka_unit_test(test_legall53_exact),
        cmocka_unit_test(test_legall53_known_values),
        cmocka_unit_test(test_legall53_float_saturation),
        cmocka_unit_test(test_cdf97_vs_bior44),
        cmocka_unit_test(test_one_line_equals_batch),
        cmocka_unit_test(test_kernels_equal_reference),
        cmocka_unit_test(test_filter_taps_equal_reference),
        cmocka_unit_test(test_coeff_lengths),
        cmocka_unit_test(test_pyramid_rank),
        cmocka_unit_test(test_fold_index),
        cmocka_unit_test(test_names_and_errors),
        cmocka_unit_test(test_mismatched_pyramid),
        cmocka_unit_test(test_image_paths),
        cmocka_unit_test(test_auto_device_volumes),
        cmocka_unit_test(test_auto_device_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
