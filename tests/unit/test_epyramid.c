/* Unit tests of engine-resident pyramids on the CPU engine: every operation
 * against a plain host computation on a downloaded copy (transforms equal to
 * wt_forward/wt_inverse, maps and thresholds bit for bit, statistics within
 * rounding, medians and k-th values exactly as numpy's median of the float
 * values). */
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
#include "wavetool_hooks.h" /* wt_pyramid_bands */

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static uint64_t next_u64(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static double uniform(void) /* [0, 1) */
{
    return (double)(next_u64() >> 11) / 9007199254740992.0;
}

/* Planes with integer samples 0..255 (legall53 needs integers); @p flat:
 * large flat areas, so the details hold many zeros and ties. */
static float *sample_planes(size_t n, int flat)
{
    float *x = malloc(n * sizeof *x + 1);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = flat ? (float)(((i / 7) % 5) * 40 + (uniform() < 0.05 ? 1 : 0))
                    : (float)floor(uniform() * 256.0);
    return x;
}

typedef struct fixture {
    wt_engine *e;
    wt_params params;
    wt_epyramid *ep;
    wt_pyramid host; /* reference copy */
    float *planes;
    size_t h, w;
    int c;
} fixture;

static void fixture_open(fixture *f, const char *wavelet, size_t h, size_t w, int c, int levels,
                         int flat)
{
    memset(f, 0, sizeof *f);
    assert_int_equal(wt_engine_open(&f->e, "cpu"), WT_OK);
    f->params = (wt_params){wt_wavelet_find(wavelet), WT_MODE_SYMMETRIC, WT_METHOD_AUTO, levels};
    if (f->params.wavelet->kind == WT_KIND_JPEG2000)
        f->params.mode = WT_MODE_PERIODIZATION;
    assert_int_equal(wt_params_resolve(&f->params), WT_OK);
    f->h = h, f->w = w, f->c = c;
    f->planes = sample_planes(h * w * (size_t)c, flat);
    assert_int_equal(wt_epyramid_create(f->e, &f->params, h, w, c, &f->ep), WT_OK);
    assert_int_equal(wt_pyramid_alloc(&f->host, &f->params, h, w, c), WT_OK);
    assert_int_equal(wt_epyramid_forward(f->ep, f->planes), WT_OK);
    assert_int_equal(wt_forward(f->e, &f->params, f->planes, &f->host), WT_OK);
}

static void fixture_close(fixture *f)
{
    wt_epyramid_destroy(f->ep);
    wt_pyramid_free(&f->host);
    free(f->planes);
    wt_engine_close(f->e);
}

/* The engine's pyramid equals @p ref bit for bit. */
static void assert_pyramid_equal(const fixture *f, const wt_pyramid *ref)
{
    wt_pyramid got;
    assert_int_equal(wt_pyramid_alloc(&got, &f->params, f->h, f->w, f->c), WT_OK);
    assert_int_equal(wt_epyramid_download(f->ep, &got), WT_OK);
    assert_memory_equal(got.data, ref->data, ref->total * 4);
    wt_pyramid_free(&got);
}

static double coef(const wt_pyramid *p, size_t i)
{
    return p->dtype == WT_INT32 ? (double)((int32_t *)p->data)[i] : (double)((float *)p->data)[i];
}

static void set_coef(wt_pyramid *p, size_t i, double v)
{
    if (p->dtype == WT_INT32)
        ((int32_t *)p->data)[i] = (int32_t)lrint(v);
    else
        ((float *)p->data)[i] = (float)v;
}

static size_t band_len(const wt_pyramid *p, const wt_band_ref *r)
{
    size_t h, w;
    wt_pyramid_band_shape(p, r->level, r->band, &h, &w);
    return h * w;
}

static size_t band_at(const wt_pyramid *p, const wt_band_ref *r)
{
    return wt_pyramid_offset(p, r->level, r->band, r->channel);
}

/* A random subset of @p all (distinct bands, shuffled). */
static size_t random_subset(const wt_band_ref *all, size_t n, wt_band_ref *sel)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (uniform() < 0.5)
            sel[k++] = all[i];
    for (size_t i = k; i > 1; i--) {
        size_t j = next_u64() % i;
        wt_band_ref t = sel[i - 1];
        sel[i - 1] = sel[j];
        sel[j] = t;
    }
    return k;
}

/* ---------------------------------------------------------------------- */

static void check_transforms(const char *wavelet, size_t h, size_t w, int c, int levels)
{
    fixture f;
    fixture_open(&f, wavelet, h, w, c, levels, 0);
    assert_pyramid_equal(&f, &f.host);
    const wt_pyramid *shape = wt_epyramid_shape(f.ep);
    assert_int_equal(shape->total, f.host.total);
    assert_null(shape->data);
    assert_int_equal(wt_epyramid_params(f.ep)->method, f.params.method);
    /* inverse: as wt_inverse, the pyramid unchanged */
    size_t n = h * w * (size_t)c;
    float *a = malloc(n * 4 + 4), *b = malloc(n * 4 + 4);
    assert_int_equal(wt_epyramid_inverse(f.ep, a), WT_OK);
    assert_int_equal(wt_inverse(f.e, &f.params, &f.host, b), WT_OK);
    assert_memory_equal(a, b, n * 4);
    assert_pyramid_equal(&f, &f.host);
    /* images: as wt_forward_image / wt_inverse_image */
    wt_image img, back, ref;
    assert_int_equal(wt_image_alloc(&img, (uint32_t)w, (uint32_t)h, c, 8), WT_OK);
    assert_int_equal(wt_image_alloc(&back, (uint32_t)w, (uint32_t)h, c, 8), WT_OK);
    assert_int_equal(wt_image_alloc(&ref, (uint32_t)w, (uint32_t)h, c, 8), WT_OK);
    for (size_t i = 0; i < wt_image_bytes(&img); i++)
        ((uint8_t *)img.pixels)[i] = (uint8_t)(next_u64() >> 56);
    assert_int_equal(wt_epyramid_forward_image(f.ep, &img), WT_OK);
    assert_int_equal(wt_forward_image(f.e, &f.params, &img, &f.host), WT_OK);
    assert_pyramid_equal(&f, &f.host);
    assert_int_equal(wt_epyramid_inverse_image(f.ep, &back), WT_OK);
    assert_int_equal(wt_inverse_image(f.e, &f.params, &f.host, &ref), WT_OK);
    assert_memory_equal(back.pixels, ref.pixels, wt_image_bytes(&ref));
    /* upload, download */
    for (size_t i = 0; i < f.host.total; i++)
        set_coef(&f.host, i, floor(uniform() * 100.0) - 50.0);
    assert_int_equal(wt_epyramid_upload(f.ep, &f.host), WT_OK);
    assert_pyramid_equal(&f, &f.host);
    wt_image_free(&img);
    wt_image_free(&back);
    wt_image_free(&ref);
    free(a);
    free(b);
    fixture_close(&f);
}

static void test_transforms(void **state)
{
    (void)state;
    check_transforms("db2", 37, 29, 3, 2);
    check_transforms("legall53", 31, 17, 1, 3);
    check_transforms("cdf97", 1, 1, 2, 0);
    check_transforms("haar", 64, 64, 4, 5);
}

/* ---------------------------------------------------------------------- */

static double apply_ref(wt_band_op op, double v, double t)
{
    switch (op) {
    case WT_OP_HARD: return fabs(v) < t ? 0.0 : v;
    case WT_OP_SOFT: return fabs(v) < t ? 0.0 : copysign(fabs(v) - t, v);
    case WT_OP_SCALE: return t * v;
    case WT_OP_ZERO: break;
    case WT_OP_QUANTIZE: { /* dead zone |v| < t, then midpoints of [q t, (q + 1) t) */
        double q = floor(fabs(v) / t);
        return q == 0.0 ? 0.0 : copysign((q + 0.5) * t, v);
    }
    }
    return 0.0;
}

static void check_map(const char *wavelet, int levels)
{
    fixture f;
    fixture_open(&f, wavelet, 45, 38, 3, levels, 0);
    wt_band_ref all[3 * 3 * 32 + 3], sel[3 * 3 * 32 + 3];
    size_t nall = wt_pyramid_bands(&f.host, all);
    for (int round = 0; round < 12; round++) {
        wt_band_op op = (wt_band_op)(round % 5);
        size_t n = random_subset(all, nall, sel);
        double args[sizeof sel / sizeof *sel];
        for (size_t i = 0; i < n; i++)
            args[i] = op == WT_OP_SCALE ? uniform() * 3.0 - 1.5 : 0.5 + uniform() * 20.0;
        assert_int_equal(wt_epyramid_map(f.ep, op, sel, args, n), WT_OK);
        for (size_t i = 0; i < n; i++) {
            size_t at = band_at(&f.host, &sel[i]), len = band_len(&f.host, &sel[i]);
            for (size_t j = at; j < at + len; j++)
                set_coef(&f.host, j, apply_ref(op, coef(&f.host, j), args[i]));
        }
        assert_pyramid_equal(&f, &f.host);
    }
    fixture_close(&f);
}

static void test_map(void **state)
{
    (void)state;
    check_map("db3", 3);
    check_map("legall53", 2);
}

/* Soft and hard thresholds of awkward values (signed zeros, NaN,
 * infinities, subnormals, |c| next to a bound between two floats) and
 * awkward bounds (0, infinity, between two floats), bit for bit the reference's, on the
 * vectorised path (the default) and on the reference C (WT_CPU_SCALAR=1). */
static void test_map_special(void **state)
{
    (void)state;
    const float odd[] = {0.0f, -0.0f, NAN, -NAN, INFINITY, -INFINITY, 1e-40f, -1e-40f,
                         0.1f, -0.1f, 0x1.999998p-4f, 3.0f, -3.0f, 2.5f};
    const double bounds[] = {0.1, 3.0, 0.0, INFINITY, (double)0.1f, 2.5}; /* NaN: refused */
    wt_env_knobs *env = wt_env_override();
    const char *was = env->cpu_scalar;
    for (int scalar = 0; scalar <= 1; scalar++)
        for (size_t b = 0; b < sizeof bounds / sizeof *bounds; b++)
            for (int op = WT_OP_HARD; op <= WT_OP_SOFT; op++) {
                fixture f;
                fixture_open(&f, "db2", 23, 29, 1, 1, 0);
                for (size_t i = 0; i < f.host.total; i++)
                    set_coef(&f.host, i, odd[(i * 5 + b) % (sizeof odd / sizeof *odd)]);
                assert_int_equal(wt_epyramid_upload(f.ep, &f.host), WT_OK);
                wt_band_ref sel[4];
                size_t n = wt_pyramid_bands(&f.host, sel);
                double args[4] = {bounds[b], bounds[b], bounds[b], bounds[b]};
                env->cpu_scalar = scalar ? "1" : was;
                assert_int_equal(wt_epyramid_map(f.ep, (wt_band_op)op, sel, args, n), WT_OK);
                env->cpu_scalar = was;
                for (size_t i = 0; i < f.host.total; i++)
                    set_coef(&f.host, i, apply_ref((wt_band_op)op, coef(&f.host, i), bounds[b]));
                assert_pyramid_equal(&f, &f.host);
                fixture_close(&f);
            }
}

/* ---------------------------------------------------------------------- */

static void check_reduce(const char *wavelet, int flat, int threads)
{
    fixture f;
    fixture_open(&f, wavelet, 300, 257, 2, 3, flat);
    wt_engine_set_threads(f.e, threads);
    wt_band_ref sel[3 * 3 * 2 + 2];
    size_t n = wt_pyramid_bands(&f.host, sel);
    double t[sizeof sel / sizeof *sel];
    wt_band_stats got[sizeof sel / sizeof *sel];
    for (size_t i = 0; i < n; i++)
        t[i] = i % 3 == 0 ? 0.0 : uniform() * 10.0;
    assert_int_equal(wt_epyramid_reduce(f.ep, sel, t, n, got), WT_OK);
    for (size_t i = 0; i < n; i++) {
        size_t at = band_at(&f.host, &sel[i]), len = band_len(&f.host, &sel[i]);
        double sum = 0, sq = 0, mn = INFINITY, mx = -INFINITY, ma = 0;
        uint64_t zeros = 0, at_most = 0;
        for (size_t j = at; j < at + len; j++) {
            double v = coef(&f.host, j);
            sum += v, sq += v * v;
            mn = fmin(mn, v), mx = fmax(mx, v), ma = fmax(ma, fabs(v));
            zeros += v == 0.0;
            at_most += fabs(v) <= t[i];
        }
        assert_int_equal(got[i].count, len);
        assert_true(fabs(got[i].sum - sum) <= 1e-9 * (sq + 1.0));
        assert_true(fabs(got[i].sum_sq - sq) <= 1e-12 * (sq + 1.0));
        assert_true(got[i].min == mn && got[i].max == mx && got[i].max_abs == ma);
        assert_int_equal(got[i].zeros, zeros);
        assert_int_equal(got[i].at_most, at_most);
    }
    /* t NULL: |c| <= 0 */
    assert_int_equal(wt_epyramid_reduce(f.ep, sel, NULL, n, got), WT_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i].at_most, got[i].zeros);
    fixture_close(&f);
}

static void test_reduce(void **state)
{
    (void)state;
    check_reduce("db2", 0, 0);
    check_reduce("db2", 1, 1);
    check_reduce("legall53", 1, 3);
}

/* Float bands' statistics on awkward values (signed zeros, NaN, infinities,
 * subnormals, |c| next to a bound that lies between two floats): the counts
 * and extremes exact, and the vectorised path's result bit for bit the
 * reference C's (WT_CPU_SCALAR=1). */
static void test_reduce_special(void **state)
{
    (void)state;
    fixture f;
    fixture_open(&f, "db2", 61, 67, 1, 2, 0);
    const float odd[] = {0.0f, -0.0f, NAN, INFINITY, -INFINITY, 1e-40f, -1e-40f,
                         0.1f, -0.1f, 0x1.99999ap-4f, 0x1.999998p-4f, 3.0f, -3.0f};
    for (size_t i = 0; i < f.host.total; i++) {
        double v = i % 3 ? odd[(i * 7) % (sizeof odd / sizeof *odd)] : uniform() * 8.0 - 4.0;
        set_coef(&f.host, i, v);
    }
    assert_int_equal(wt_epyramid_upload(f.ep, &f.host), WT_OK);
    wt_band_ref sel[3 * 2 + 1];
    size_t n = wt_pyramid_bands(&f.host, sel);
    double t[sizeof sel / sizeof *sel];
    wt_band_stats fast[sizeof sel / sizeof *sel], ref[sizeof sel / sizeof *sel];
    for (size_t i = 0; i < n; i++) /* 0.1 lies between two floats; 3; 0; inf; NaN */
        t[i] = (const double[]){0.1, 3.0, 0.0, INFINITY, NAN, (double)0.1f}[i % 6];
    assert_int_equal(wt_epyramid_reduce(f.ep, sel, t, n, fast), WT_OK);
    wt_env_knobs *env = wt_env_override();
    const char *was = env->cpu_scalar;
    env->cpu_scalar = "1";
    assert_int_equal(wt_epyramid_reduce(f.ep, sel, t, n, ref), WT_OK);
    env->cpu_scalar = was;
    assert_memory_equal(fast, ref, n * sizeof *fast);
    for (size_t i = 0; i < n; i++) {
        size_t at = band_at(&f.host, &sel[i]), len = band_len(&f.host, &sel[i]);
        double mn = INFINITY, mx = -INFINITY, ma = 0;
        uint64_t zeros = 0, at_most = 0;
        for (size_t j = at; j < at + len; j++) {
            double v = coef(&f.host, j);
            mn = v < mn ? v : mn, mx = v > mx ? v : mx, ma = fabs(v) > ma ? fabs(v) : ma;
            zeros += v == 0.0;
            at_most += fabs(v) <= t[i];
        }
        assert_int_equal(ref[i].count, len);
        assert_true(isnan(ref[i].sum) && isnan(ref[i].sum_sq));
        assert_true(ref[i].min == mn && ref[i].max == mx && ref[i].max_abs == ma);
        assert_int_equal(ref[i].zeros, zeros);
        assert_int_equal(ref[i].at_most, at_most);
    }
    fixture_close(&f);
}

/* ---------------------------------------------------------------------- */

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* numpy.median of |c| of one band (of its nonzero ones): NaN when empty. */
static double median_ref(const wt_pyramid *p, const wt_band_ref *r, int nonzero_only)
{
    size_t at = band_at(p, r), len = band_len(p, r), m = 0;
    double *v = malloc(len * sizeof *v + 8);
    for (size_t j = at; j < at + len; j++)
        if (!nonzero_only || coef(p, j) != 0.0)
            v[m++] = fabs(coef(p, j));
    qsort(v, m, sizeof *v, by_double);
    double med = m == 0 ? NAN : m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2.0;
    free(v);
    return med;
}

static void check_medians(const char *wavelet, size_t h, size_t w, int flat)
{
    fixture f;
    fixture_open(&f, wavelet, h, w, 2, 2, flat);
    wt_band_ref sel[3 * 2 * 2 + 2];
    size_t n = wt_pyramid_bands(&f.host, sel);
    /* one band all zeros: NaN for the nonzero median, 0 for the median */
    wt_band_ref zeroed = {1, WT_BAND_D, 1};
    assert_int_equal(wt_epyramid_map(f.ep, WT_OP_ZERO, &zeroed, NULL, 1), WT_OK);
    assert_int_equal(wt_epyramid_download(f.ep, &f.host), WT_OK);
    double got[sizeof sel / sizeof *sel];
    for (int nz = 0; nz <= 1; nz++) {
        assert_int_equal(wt_epyramid_median_abs(f.ep, sel, n, nz, got), WT_OK);
        for (size_t i = 0; i < n; i++) {
            double ref = median_ref(&f.host, &sel[i], nz);
            if (isnan(ref))
                assert_true(isnan(got[i]));
            else
                assert_true(got[i] == ref);
        }
    }
    /* k-th over a union */
    size_t total = 0;
    for (size_t i = 1; i < n; i++)
        total += band_len(&f.host, &sel[i]);
    double *all = malloc(total * sizeof *all), kth;
    size_t m = 0;
    for (size_t i = 1; i < n; i++)
        for (size_t j = band_at(&f.host, &sel[i]); j < band_at(&f.host, &sel[i]) +
                                                           band_len(&f.host, &sel[i]);
             j++)
            all[m++] = fabs(coef(&f.host, j));
    qsort(all, m, sizeof *all, by_double);
    uint64_t ks[] = {0, 1, total / 3, total / 2, total - 2, total - 1};
    for (size_t q = 0; q < sizeof ks / sizeof *ks; q++) {
        assert_int_equal(wt_epyramid_kth_abs(f.ep, sel + 1, n - 1, ks[q], &kth), WT_OK);
        assert_true(kth == all[ks[q]]);
    }
    assert_int_equal(wt_epyramid_kth_abs(f.ep, sel + 1, n - 1, total, &kth), WT_ERR_INVALID);
    free(all);
    fixture_close(&f);
}

static void test_medians(void **state)
{
    (void)state;
    check_medians("db1", 64, 48, 0);  /* even counts */
    check_medians("db1", 66, 50, 1);  /* odd counts, many zeros and ties */
    check_medians("db3", 3, 5, 0);    /* tiny */
    check_medians("legall53", 41, 37, 1);
}

/* ---------------------------------------------------------------------- */

/* wt_epyramid_keep / _threshold equal wt_pyramid_keep / _threshold. */
static void check_thresholds(const char *wavelet, int flat, int levels)
{
    static const double fractions[] = {0.0, 0.01, 0.1, 0.5, 0.77, 1.0};
    for (size_t q = 0; q < 6 + 3; q++) {
        fixture f;
        fixture_open(&f, wavelet, 77, 61, 3, levels, flat);
        double kept_e = -1, kept_h = -2;
        if (q < 6) {
            assert_int_equal(wt_epyramid_keep(f.ep, fractions[q], &kept_e), WT_OK);
            assert_int_equal(wt_pyramid_keep(&f.host, fractions[q], &kept_h), WT_OK);
        } else {
            double t = q == 6 ? 0.0 : q == 7 ? 3.0 : 40.0;
            int soft = q != 7;
            assert_int_equal(wt_epyramid_threshold(f.ep, t, soft, &kept_e), WT_OK);
            assert_int_equal(wt_pyramid_threshold(&f.host, t, soft, &kept_h), WT_OK);
        }
        assert_true(kept_e == kept_h);
        assert_pyramid_equal(&f, &f.host);
        fixture_close(&f);
    }
}

static void test_thresholds(void **state)
{
    (void)state;
    check_thresholds("db2", 0, 3);
    check_thresholds("db2", 1, 3);
    check_thresholds("legall53", 1, 2);
    check_thresholds("haar", 1, 0); /* no details */
}

static void test_zero_below_ties(void **state)
{
    (void)state;
    fixture f;
    fixture_open(&f, "legall53", 40, 40, 2, 2, 1);
    wt_band_ref sel[3 * 2 * 2];
    size_t n = wt_epyramid_details(f.ep, sel);
    assert_int_equal(n, 12);
    /* reversed order: ties counted in the order of the selection */
    for (size_t i = 0; i < n / 2; i++) {
        wt_band_ref t = sel[i];
        sel[i] = sel[n - 1 - i];
        sel[n - 1 - i] = t;
    }
    uint64_t ties = 5;
    assert_int_equal(wt_epyramid_zero_below(f.ep, sel, n, 1.0, ties), WT_OK);
    for (size_t i = 0; i < n; i++) {
        size_t at = band_at(&f.host, &sel[i]), len = band_len(&f.host, &sel[i]);
        for (size_t j = at; j < at + len; j++) {
            double m = fabs(coef(&f.host, j));
            if (m < 1.0 || (m == 1.0 && !ties))
                set_coef(&f.host, j, 0.0);
            else if (m == 1.0)
                ties--;
        }
    }
    assert_pyramid_equal(&f, &f.host);
    fixture_close(&f);
}

static void test_argument_errors(void **state)
{
    (void)state;
    fixture f;
    fixture_open(&f, "db2", 20, 24, 2, 2, 0);
    wt_band_ref bad[] = {{3, WT_BAND_H, 0}, {1, WT_BAND_A, 0}, {1, WT_BAND_H, 2},
                         {0, WT_BAND_V, 0}};
    double arg = 1.0, v;
    wt_band_stats s;
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(wt_epyramid_map(f.ep, WT_OP_SCALE, &bad[i], &arg, 1), WT_ERR_INVALID);
        assert_non_null(strstr(wt_error_message(), "not in this 2-level, 2-channel pyramid"));
        assert_int_equal(wt_epyramid_reduce(f.ep, &bad[i], NULL, 1, &s), WT_ERR_INVALID);
        assert_int_equal(wt_epyramid_median_abs(f.ep, &bad[i], 1, 0, &v), WT_ERR_INVALID);
    }
    wt_band_ref twice[] = {{1, WT_BAND_H, 0}, {2, WT_BAND_A, 1}, {1, WT_BAND_H, 0}};
    assert_int_equal(wt_epyramid_map(f.ep, WT_OP_ZERO, twice, NULL, 3), WT_ERR_INVALID);
    assert_non_null(strstr(wt_error_message(), "band 2 of the selection repeats band 0"));
    double neg = -1.0;
    assert_int_equal(wt_epyramid_map(f.ep, WT_OP_HARD, twice, &neg, 1), WT_ERR_INVALID);
    assert_int_equal(wt_epyramid_map(f.ep, (wt_band_op)9, twice, &arg, 1), WT_ERR_INVALID);
    double zero = 0.0;
    assert_int_equal(wt_epyramid_map(f.ep, WT_OP_QUANTIZE, twice, &zero, 1), WT_ERR_INVALID);
    assert_int_equal(wt_epyramid_entropy(f.ep, &bad[0], 1, 1.0, &v), WT_ERR_INVALID);
    assert_int_equal(wt_epyramid_entropy(f.ep, twice, 1, 0.0, &v), WT_ERR_INVALID);
    assert_int_equal(wt_epyramid_entropy(f.ep, twice, 2, 1.0, (double[2]){0}), WT_OK);
    assert_int_equal(wt_epyramid_keep(f.ep, 1.5, NULL), WT_ERR_INVALID);
    assert_int_equal(wt_epyramid_threshold(f.ep, NAN, 0, NULL), WT_ERR_INVALID);
    wt_image small;
    assert_int_equal(wt_image_alloc(&small, 23, 20, 2, 8), WT_OK);
    assert_int_equal(wt_epyramid_forward_image(f.ep, &small), WT_ERR_INVALID);
    assert_int_equal(wt_epyramid_inverse_image(f.ep, &small), WT_ERR_INVALID);
    wt_image_free(&small);
    wt_pyramid other;
    wt_params p3 = f.params;
    p3.levels = 1;
    assert_int_equal(wt_pyramid_alloc(&other, &p3, 20, 24, 2), WT_OK);
    assert_int_equal(wt_epyramid_upload(f.ep, &other), WT_ERR_INVALID);
    assert_int_equal(wt_epyramid_download(f.ep, &other), WT_ERR_INVALID);
    wt_pyramid_free(&other);
    wt_epyramid *none = NULL;
    assert_int_equal(wt_epyramid_create(f.e, &f.params, 0, 5, 1, &none), WT_ERR_INVALID);
    assert_null(none);
    fixture_close(&f);
}

/* wt_denoise_image with o->estimates from wt_denoise_estimate gives the
 * same samples and sigma as without (the estimate made on the engine's time). */
static void check_estimates_reused(const wt_denoise_options *o, const wt_image *img)
{
    wt_engine *e = NULL;
    assert_int_equal(wt_engine_open(&e, "cpu"), WT_OK);
    wt_image a, b;
    assert_int_equal(wt_image_alloc(&a, img->width, img->height, img->channels, 8), WT_OK);
    assert_int_equal(wt_image_alloc(&b, img->width, img->height, img->channels, 8), WT_OK);
    wt_denoise_info ia, ib;
    assert_int_equal(wt_denoise_image(e, o, img, &a, &ia), WT_OK);
    size_t n = wt_denoise_estimate_count(o);
    double *est = malloc(n * sizeof *est);
    assert_non_null(est);
    assert_int_equal(wt_denoise_estimate(o, img, 2, est), WT_OK);
    wt_denoise_options with = *o;
    with.estimates = est;
    assert_int_equal(wt_denoise_image(e, &with, img, &b, &ib), WT_OK);
    assert_memory_equal(a.pixels, b.pixels, (size_t)img->width * img->height * img->channels);
    for (int c = 0; c < img->channels; c++) {
        assert_true(ia.sigma[c] == ib.sigma[c]);
        if (!o->swt && !isnan(o->sigma))
            assert_true(est[c] == o->sigma);
        else if (!o->swt)
            assert_true(est[c] > 0.0 && est[c] == ia.sigma[c]);
        else
            assert_true(isnan(est[c])); /* the SWT estimates on its own */
    }
    free(est);
    wt_image_free(&a);
    wt_image_free(&b);
    wt_engine_close(e);
}

static void test_denoise_estimates(void **state)
{
    (void)state;
    wt_image img;
    assert_int_equal(wt_image_alloc(&img, 45, 38, 3, 8), WT_OK);
    for (size_t i = 0; i < 45 * 38 * 3; i++)
        ((uint8_t *)img.pixels)[i] = (uint8_t)(100 + 40 * sin((double)i / 37) + 30 * uniform());
    wt_denoise_options o;
    wt_denoise_defaults(&o);
    check_estimates_reused(&o, &img);
    o.params.wavelet = wt_wavelet_find("db2");
    o.cycle_spin = 2;
    assert_int_equal(wt_denoise_estimate_count(&o), 4 * 9);
    check_estimates_reused(&o, &img);
    o.cycle_spin = 0;
    o.sigma = 9.5;
    check_estimates_reused(&o, &img);
    o.sigma = NAN;
    o.swt = 1;
    check_estimates_reused(&o, &img);
    wt_image_free(&img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transforms),      cmocka_unit_test(test_map),
        cmocka_unit_test(test_map_special),     cmocka_unit_test(test_reduce),          cmocka_unit_test(test_reduce_special),          cmocka_unit_test(test_medians),
        cmocka_unit_test(test_thresholds),      cmocka_unit_test(test_zero_below_ties),
        cmocka_unit_test(test_argument_errors), cmocka_unit_test(test_denoise_estimates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
