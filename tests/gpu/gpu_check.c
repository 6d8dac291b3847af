/* GPU-vs-CPU gate, in the manner of dav1d's checkasm: every wavelet, mode
 * and method, forward and inverse, on seeded random data of many shapes,
 * through the "cuda" engine and the CPU reference engine; GPU outputs are
 * pre-filled with a canary (NaN) so unwritten elements show.
 *
 * Pass: max|gpu - cpu| / max|cpu| <= 1e-5 over the whole output (float32),
 * identical for legall53 (int32). On failure: the case, the seed and a map
 * of the differing positions of the worst band.
 *
 * Image paths (wt_forward_image, wt_mosaic_image, wt_inverse_image,
 * wt_roundtrip_image) on 8/16-bit images of 1-4 channels against the CPU
 * engine's composition of the same, see check_images(); and GPU out of
 * memory under WT_CUDA_MEM_LIMIT (check_oom()).
 *
 *   gpu_check [--seed N] [--quick] [--wavelet NAME] [--mode NAME] [--no-large]
 *             [--images-only] [--pyramids-only] [--undecimated-only] [-v]
 *
 * Undecimated transforms (SWT, starlet): check_undecimated(), odd, tiny and
 * large sizes, several wavelets, borders and pywt's options.
 *
 * Exit: 0 all passed, 1 a case failed (or a GPU the engine cannot use), 77 no
 * CUDA device (skip), 2 usage. */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wavetool.h"
#include "wavetool_hooks.h" /* WT_HAVE_CUDA, wt_seconds, wt_cuda_host_register */

#define TOLERANCE 1e-5
/* smooth and antireflect extrapolate: near the borders of small images and
 * with long filters coefficients grow 100-1000x and cancel. The CPU engine
 * (float internals) extends its float y-pass results along x, which
 * amplifies their rounding up to 60x: its own error there reaches 5e-5 of
 * max|cpu| (seen in emulation), while the GPU, which accumulates these modes
 * in double, stays within 5e-6 of a double-precision CPU build
 * (dev/notes/kernel-log.md). With the CPU engine back in double, 1e-5 would hold. */
#define TOLERANCE_EXTRAPOLATING 2e-4
#define CANARY_BITS 0x7fc00000u /* a quiet NaN as float, a huge value as int32 */

/* ---------------------------------------------------------------------- */
/* Random numbers: xorshift64*, seeded per case so a case replays alone. */

static uint64_t rng_state;

static void rng_seed(uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!rng_state)
        rng_state = 1;
}

static uint32_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

/* uniform in [-128, 128) */
static float rng_sample(void)
{
    return (float)(rng_next() >> 8) * (1.0f / 65536.0f) - 128.0f;
}

static int32_t rng_int(int32_t span)
{
    return (int32_t)(rng_next() % (uint32_t)(2 * span + 1)) - span;
}

/* uniform in [-span, span] for any span of int32 */
static int32_t rng_wide(int32_t span)
{
    return (int32_t)((int64_t)(rng_next() % (2 * (uint64_t)span + 1)) - span);
}

/* ---------------------------------------------------------------------- */
/* Cases and results */

typedef struct check_case {
    const wt_wavelet *wavelet;
    wt_mode mode;
    wt_method method;
    size_t h, w;
    int channels, levels, inverse;
    int32_t span; /* integer inputs within [-span, span], both reached (0: the usual 255 for
                     planes, 1000 for coefficients; INT32_MAX: INT32_MAX and INT32_MIN only) */
    int checker;  /* with span: +-span in a checkerboard (the largest 5/3 details) */
} check_case;

typedef struct stats {
    long cases, failed;
    long img_cases, img_failed;
    long mosaic_own_diff;  /* mosaic samples differing from wt_mosaic_render of the GPU pyramid */
    long mosaic_cpu_diff;  /* ... from the CPU engine's mosaic */
    int mosaic_cpu_lsb[2]; /* largest difference from the CPU mosaic: 8-bit, 16-bit */
    long round_diff;       /* inverse/roundtrip samples on a .5 boundary between the engines */
    long pyr_cases, pyr_failed; /* engine-resident pyramids */
    long u_cases, u_failed;     /* undecimated transforms (SWT, starlet) */
    double u_worst;
    char u_worst_name[200];
    double worst[2]; /* float cases: [0] folding modes, [1] smooth/antireflect */
    char worst_name[2][160];
    int verbose;
    uint64_t seed;
} stats;

static double tolerance(const check_case *c)
{
    return c->mode == WT_MODE_SMOOTH || c->mode == WT_MODE_ANTIREFLECT ? TOLERANCE_EXTRAPOLATING
                                                                       : TOLERANCE;
}

static void case_name(const check_case *c, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s %s %s %s %zux%zu C=%d L=%d", c->wavelet->name,
                     wt_mode_name(c->mode), wt_method_name(c->method),
                     c->inverse ? "inverse" : "forward", c->h, c->w, c->channels, c->levels);
    if (c->span && n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " span=%ld%s", (long)c->span,
                 c->checker ? " checkerboard" : "");
}

static void fill_canary(void *data, size_t n)
{
    uint32_t *d = data;
    for (size_t i = 0; i < n; i++)
        d[i] = CANARY_BITS;
}

/* Is element i of the outputs wrong? */
static int differs(const void *ref, const void *got, size_t i, int integer, double tol)
{
    if (integer)
        return ((const int32_t *)ref)[i] != ((const int32_t *)got)[i];
    double r = ((const float *)ref)[i], g = ((const float *)got)[i];
    return isnan(g) || fabs(g - r) > tol;
}

/* max|got - ref| / max|ref| (infinite when got has a NaN); integers: 0 or 1. */
static double relative_error(const void *ref, const void *got, size_t n, int integer,
                             double *max_ref)
{
    double worst = 0.0, big = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (integer) {
            int32_t r = ((const int32_t *)ref)[i], g = ((const int32_t *)got)[i];
            if (r != g)
                worst = 1.0;
            big = fmax(big, fabs((double)r));
            continue;
        }
        double r = ((const float *)ref)[i], g = ((const float *)got)[i];
        if (isnan(g))
            worst = INFINITY;
        else
            worst = fmax(worst, fabs(g - r));
        big = fmax(big, fabs(r));
    }
    *max_ref = big;
    if (integer)
        return worst;
    return big > 0.0 ? worst / big : worst;
}

/* A map of at most 16 x 64 cells of a rows x cols array: 'x' where a
 * sample of the cell differs, '.' elsewhere. */
static void print_map(const char *label, const void *ref, const void *got, size_t rows,
                      size_t cols, int integer, double tol)
{
    size_t mr = rows < 16 ? rows : 16, mc = cols < 64 ? cols : 64;
    fprintf(stderr, "  %s (%zux%zu), one cell = %zux%zu samples:\n", label, rows, cols,
            (rows + mr - 1) / mr, (cols + mc - 1) / mc);
    for (size_t r = 0; r < mr; r++) {
        char line[80];
        for (size_t c = 0; c < mc; c++) {
            int bad = 0;
            for (size_t y = r * rows / mr; y < (r + 1) * rows / mr && !bad; y++)
                for (size_t x = c * cols / mc; x < (c + 1) * cols / mc && !bad; x++)
                    bad = differs(ref, got, y * cols + x, integer, tol);
            line[c] = bad ? 'x' : '.';
        }
        line[mc] = '\0';
        fprintf(stderr, "    %s\n", line);
    }
}

static const char *band_names[4] = {"cA", "cH", "cV", "cD"};

/* The band of the pyramid with the most differing samples, as a map. */
static void report_pyramid(const wt_pyramid *ref, const wt_pyramid *got, double tol)
{
    int integer = ref->dtype == WT_INT32;
    size_t best = 0, best_h = 0, best_w = 0, best_off = 0;
    char best_label[64] = "";
    for (int l = ref->levels; l >= 1; l--)
        for (int b = l == ref->levels ? 0 : 1; b < 4; b++)
            for (int c = 0; c < ref->channels; c++) {
                size_t h, w, off = wt_pyramid_offset(ref, l, (wt_band)b, c), bad = 0;
                wt_pyramid_band_shape(ref, l, (wt_band)b, &h, &w);
                for (size_t i = 0; i < h * w; i++)
                    bad += (size_t)differs(ref->data, got->data, off + i, integer, tol);
                if (bad > best) {
                    best = bad;
                    best_h = h;
                    best_w = w;
                    best_off = off;
                    snprintf(best_label, sizeof best_label, "%s level %d channel %d, %zu bad",
                             band_names[b], l, c, bad);
                }
            }
    if (best == 0)
        return;
    const char *r = (const char *)ref->data + best_off * 4, *g = (const char *)got->data + best_off * 4;
    print_map(best_label, r, g, best_h, best_w, integer, tol);
}

/* ---------------------------------------------------------------------- */
/* Running one case */

typedef struct engines {
    wt_engine *cpu, *gpu;
} engines;

/* +-1 in a checkerboard over rows of w values */
static int checker_sign(size_t i, size_t w)
{
    return ((i / w + i % w) & 1) ? -1 : 1;
}

static void random_planes(float *x, size_t n, int integer, const check_case *c)
{
    int32_t span = c ? c->span : 0;
    for (size_t i = 0; i < n; i++)
        x[i] = !integer ? rng_sample()
               : !span  ? (float)rng_int(255)
                        : (float)(c->checker ? checker_sign(i, c->w) * span : rng_wide(span));
    if (integer && span && n >= 2) { /* the bound itself, both signs */
        x[0] = (float)span;
        x[n - 1] = -(float)span;
    }
}

/* int32 coefficients within [-span, span] (INT32_MAX: the extremes only;
 * checkerboard: by rows of the image's width). */
static void wide_coefficients(int32_t *v, size_t n, const check_case *c)
{
    for (size_t i = 0; i < n; i++)
        v[i] = c->span == INT32_MAX ? (i & 1 ? INT32_MIN : INT32_MAX)
               : c->checker         ? checker_sign(i, c->w) * c->span
                                    : rng_wide(c->span);
    if (n >= 2 && c->span != INT32_MAX) {
        v[0] = c->span;
        v[n - 1] = -c->span;
    }
}

/* Coefficients of an inverse case: random, every band (as checkasm feeds
 * each function random input). Pyramids of smooth/antireflect decompositions
 * hold extrapolated coefficients up to 1e6 that cancel in the reconstruction;
 * the CPU engine's float rounding alone then exceeds a relative 1e-5, so
 * they make no test of the GPU. */
static void random_pyramid(wt_pyramid *p, const check_case *c)
{
    if (p->dtype == WT_INT32 && c->span) {
        wide_coefficients(p->data, p->total, c);
        return;
    }
    for (size_t i = 0; i < p->total; i++)
        if (p->dtype == WT_INT32)
            ((int32_t *)p->data)[i] = rng_int(1000);
        else
            ((float *)p->data)[i] = rng_sample();
}

static uint64_t case_seed(uint64_t seed, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *s = name; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return seed ^ h;
}

#define MAX_FAILURES 50 /* a GPU error usually ends the context: stop early */

/* Returns 0 pass, 1 fail. */
static int run_case(const engines *en, const check_case *c, stats *st)
{
    if (st->failed >= MAX_FAILURES)
        return 1;
    wt_params p = {c->wavelet, c->mode, c->method, c->levels};
    wt_pyramid ref = {0}, got = {0};
    char name[160];
    case_name(c, name, sizeof name);
    rng_seed(case_seed(st->seed, name));
    st->cases++;
    size_t n = c->h * c->w * (size_t)c->channels;
    float *x = malloc(n * sizeof *x), *y_ref = malloc(n * sizeof *x), *y_got = malloc(n * sizeof *x);
    wt_status s = x && y_ref && y_got ? WT_OK : WT_ERR_NOMEM;
    if (s == WT_OK)
        s = wt_pyramid_alloc(&ref, &p, c->h, c->w, c->channels);
    if (s == WT_OK)
        s = wt_pyramid_alloc(&got, &p, c->h, c->w, c->channels);
    int integer = ref.dtype == WT_INT32;
    const void *out_ref = NULL, *out_got = NULL;
    size_t out_n = 0;
    if (s == WT_OK && !c->inverse) {
        random_planes(x, n, integer, c);
        fill_canary(got.data, got.total);
        s = wt_forward(en->cpu, &p, x, &ref);
        if (s == WT_OK)
            s = wt_forward(en->gpu, &p, x, &got);
        out_ref = ref.data;
        out_got = got.data;
        out_n = ref.total;
    } else if (s == WT_OK) {
        random_pyramid(&ref, c);
        fill_canary(y_got, n);
        s = wt_inverse(en->cpu, &p, &ref, y_ref);
        if (s == WT_OK)
            s = wt_inverse(en->gpu, &p, &ref, y_got);
        out_ref = y_ref;
        out_got = y_got;
        out_n = n;
        integer = 0; /* float planes; legall53's are exact integers, compared bit for bit */
    }
    int fail = 0;
    if (s != WT_OK) {
        fprintf(stderr, "FAIL %s: %s (seed %llu)\n", name, wt_error_message(),
                (unsigned long long)st->seed);
        fail = 1;
    } else {
        double max_ref, err = relative_error(out_ref, out_got, out_n, integer, &max_ref);
        int exact = c->wavelet->integer;
        if (exact && c->inverse)
            err = memcmp(out_ref, out_got, out_n * 4) ? 1.0 : 0.0;
        int k = tolerance(c) != TOLERANCE;
        if (!integer && !exact && err > st->worst[k]) {
            st->worst[k] = err;
            snprintf(st->worst_name[k], sizeof st->worst_name[k], "%s", name);
        }
        fail = exact ? err != 0.0 : !(err <= tolerance(c));
        if (st->verbose || fail)
            fprintf(stderr, "%s %s: %s %.3g (max|cpu| %.4g)\n", fail ? "FAIL" : "ok  ", name,
                    exact ? "mismatch" : "rel err", err, max_ref);
        if (fail) {
            double tol = exact ? 0.0 : tolerance(c) * (max_ref > 0 ? max_ref : 1.0);
            fprintf(stderr, "  replay: gpu_check --seed %llu --wavelet %s\n",
                    (unsigned long long)st->seed, c->wavelet->name);
            if (!c->inverse)
                report_pyramid(&ref, &got, tol);
            else
                print_map("output channel 0", out_ref, out_got, c->h, c->w, 0, tol);
        }
    }
    st->failed += fail;
    wt_pyramid_free(&ref);
    wt_pyramid_free(&got);
    free(x);
    free(y_ref);
    free(y_got);
    return fail;
}

/* ---------------------------------------------------------------------- */
/* The plan of cases */

typedef struct shape {
    size_t h, w;
} shape;

/* 1x1, rows, columns, odd, prime, non-square, a power of two. */
static const shape small_shapes[] = {
    {1, 1}, {1, 13}, {11, 1}, {2, 2}, {3, 5}, {7, 7}, {8, 12},
    {13, 17}, {23, 29}, {32, 32}, {37, 64}, {64, 37}, {5, 100},
};
#define N_SMALL (sizeof small_shapes / sizeof small_shapes[0])

static int mode_valid(const wt_wavelet *w, wt_mode mode, wt_method method, wt_method *resolved)
{
    wt_params p = {w, mode, method, 1};
    if (wt_params_resolve(&p) != WT_OK) {
        wt_error_clear();
        return 0;
    }
    *resolved = p.method;
    return 1;
}

/* Every combination on small shapes with levels 0, 1, max, max + 1 and
 * max + 3 (deeper than dwt_max_level: bands shorter than the filter, as
 * pywt.wavedec2 computes them). */
static void check_combination(const engines *en, const wt_wavelet *w, wt_mode mode,
                              wt_method method, int quick, stats *st)
{
    check_case c = {w, mode, method, 0, 0, 1, 0, 0, 0, 0};
    for (size_t s = 0; s < N_SMALL; s++) {
        if (quick && (s % 3) != 0)
            continue;
        c.h = small_shapes[s].h;
        c.w = small_shapes[s].w;
        c.channels = s == 0 ? 4 : 1 + (int)(s % 3); /* 1x1: one sample could cancel to ~0 */
        int maxl = wt_max_level(c.h, c.w, w);
        /* the extrapolating modes at max + 3 are left out: extending bands
         * shorter than the filter grows them until the CPU engine's float32
         * rounding differs by more than the tolerance (smooth: db20 1x1 L3,
         * emulated, 6e-4; antireflect: db33 2x2 L3 on the H100, seed
         * 1795555292, 5.2e-4 of max|cpu| = 5.4e5 from inputs in [-1, 1]) */
        int extrapolating = mode == WT_MODE_SMOOTH || mode == WT_MODE_ANTIREFLECT;
        int deeper = maxl + 3 <= WT_MAX_LEVELS && !extrapolating ? maxl + 3 : -1;
        int levels[5] = {1, maxl, maxl + 1, deeper, s == 0 ? 0 : -1};
        for (int k = 0; k < 5; k++) {
            if (levels[k] < 0 || (k > 0 && (levels[k] == 1 || levels[k] == levels[k - 1])))
                continue;
            if (k == 1 && levels[k] < 2)
                continue;
            c.levels = levels[k];
            for (c.inverse = 0; c.inverse < 2; c.inverse++)
                run_case(en, &c, st);
        }
    }
    /* a medium, odd, multi-channel case */
    c.h = quick ? 45 : 97;
    c.w = quick ? 62 : 130;
    c.channels = 2;
    int maxl = wt_max_level(c.h, c.w, w);
    c.levels = maxl < 1 ? 1 : (maxl > 4 ? 4 : maxl);
    for (c.inverse = 0; c.inverse < 2; c.inverse++)
        run_case(en, &c, st);
}

static void check_all_small(const engines *en, const char *only, int only_mode, int quick,
                            stats *st)
{
    static const char *const quick_set[] = {"haar", "db3", "bior4.4", "cdf97", "legall53",
                                            "dd137", "sym5", "coif1", "db20", "dmey", NULL};
    wt_engine_set_threads(en->cpu, 1);
    for (size_t i = 0; i < wt_wavelet_count(); i++) {
        const wt_wavelet *w = wt_wavelet_at(i);
        if (only && strcmp(only, w->name) != 0)
            continue;
        if (quick && !only) {
            int in = 0;
            for (int q = 0; quick_set[q]; q++)
                in |= strcmp(quick_set[q], w->name) == 0;
            if (!in)
                continue;
        }
        for (int m = 0; m < WT_MODE_COUNT; m++)
            for (int meth = WT_METHOD_CONV; meth <= WT_METHOD_LIFTING; meth++) {
                wt_method resolved;
                if (only_mode >= 0 && m != only_mode)
                    continue;
                if (mode_valid(w, (wt_mode)m, (wt_method)meth, &resolved))
                    check_combination(en, w, (wt_mode)m, resolved, quick, st);
            }
    }
}

/* legall53 on integers of every size: the GPU runs 32-bit 5/3 steps on
 * levels whose inputs lie within wt_lift53_narrow_max() (bounds measured or
 * known, src/dwt_geometry.h), 64-bit saturating steps elsewhere; the CPU
 * always the latter. Inputs at that limit (planes: the largest float within
 * it), random and in a checkerboard (forward: details of 4x the input), would
 * wrap in 32 bits if the limit were too high (checked: with a limit of
 * 2^30 - 1 all 16 of these cases fail); beyond it (2^30, the int32 extremes)
 * the steps saturate; small inputs keep every level narrow. Identical or
 * failed. */
#define AT_LIMIT (-1) /* span: wt_lift53_narrow_max() */
static void check_int_ranges(const engines *en, const char *only, int only_mode, stats *st)
{
    static const struct {
        int inverse;
        int32_t span;
        int checker, levels;
    } ranges[] = {
        {0, AT_LIMIT, 0, 2},  /* level 1 at the limit, level 2 beyond */
        {0, AT_LIMIT, 1, 1},
        {0, 1 << 30, 0, 2},   /* beyond from the start */
        {0, 1 << 20, 0, 4},   /* every level within (2^20 * 4^3) */
        {1, AT_LIMIT, 0, 2},  /* level 2 at the limit, level 1 beyond */
        {1, AT_LIMIT, 1, 1},
        {1, INT32_MAX, 0, 3}, /* INT32_MAX / INT32_MIN: saturating steps */
        {1, 1 << 20, 0, 2},   /* both levels within (7 * 2^20 + 11) */
    };
    const int32_t limit = (int32_t)wt_lift53_narrow_max();
    static const size_t shapes[][2] = {{256, 320}, {131, 67}};
    const wt_wavelet *w = wt_wavelet_find("legall53");
    if (only && strcmp(only, w->name) != 0)
        return;
    wt_engine_set_threads(en->cpu, 0);
    static const wt_mode modes[] = {WT_MODE_SYMMETRIC, WT_MODE_PERIODIZATION};
    for (int m = 0; m < 2; m++) {
        if (only_mode >= 0 && (int)modes[m] != only_mode)
            continue;
        for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
            for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
                check_case c = {w,
                                modes[m],
                                WT_METHOD_LIFTING,
                                shapes[k][0],
                                shapes[k][1],
                                1,
                                ranges[r].levels,
                                ranges[r].inverse,
                                ranges[r].span,
                                ranges[r].checker};
                if (c.span == AT_LIMIT) /* planes: the largest float within it */
                    c.span = c.inverse ? limit : (int32_t)((uint32_t)limit & ~0xffu);
                run_case(en, &c, st);
            }
    }
}

/* Two engine-resident pyramids of one shape on one engine (the same plan on
 * other buffers), written in turn: each forward must land in its own
 * pyramid and leave the other's coefficients as they were, each inverse
 * read its own (a replay with the other's pointers would show). Returns the
 * failures. */
static long check_replay_epyramids(const engines *en)
{
    wt_params p = {wt_wavelet_find("db3"), WT_MODE_SYMMETRIC, WT_METHOD_CONV, 3};
    const size_t h = 64, w = 64, n = h * w;
    wt_epyramid *gpu[2] = {NULL, NULL};
    wt_pyramid ref[2] = {{0}, {0}}, got = {0};
    float *x = malloc(n * sizeof *x), *y_ref = malloc(n * sizeof *x), *y = malloc(n * sizeof *x);
    wt_status s = x && y_ref && y ? WT_OK : WT_ERR_NOMEM;
    for (int k = 0; k < 2 && s == WT_OK; k++) {
        s = wt_epyramid_create(en->gpu, &p, h, w, 1, &gpu[k]);
        if (s == WT_OK)
            s = wt_pyramid_alloc(&ref[k], &p, h, w, 1);
    }
    if (s == WT_OK)
        s = wt_pyramid_alloc(&got, &p, h, w, 1);
    long failed = s != WT_OK;
    double max_ref, err;
    for (int round = 0; round < 6 && !failed; round++) {
        int k = round % 2;
        for (size_t i = 0; i < n; i++)
            x[i] = rng_sample();
        s = wt_forward(en->cpu, &p, x, &ref[k]);
        if (s == WT_OK)
            s = wt_epyramid_forward(gpu[k], x);
        for (int j = 0; j < 2 && s == WT_OK && round > 0; j++) { /* both as expected */
            s = wt_epyramid_download(gpu[j], &got);
            err = relative_error(ref[j].data, got.data, got.total, 0, &max_ref);
            failed += s == WT_OK && !(err <= TOLERANCE);
        }
        if (s == WT_OK)
            s = wt_inverse(en->cpu, &p, &ref[k], y_ref);
        if (s == WT_OK)
            s = wt_epyramid_inverse(gpu[k], y);
        if (s == WT_OK) {
            err = relative_error(y_ref, y, n, 0, &max_ref);
            failed += !(err <= TOLERANCE);
        }
        failed += s != WT_OK;
        if (failed)
            fprintf(stderr, "FAIL replayed plans: two epyramids, round %d: %s\n", round,
                    s != WT_OK ? wt_error_message() : "coefficients or planes differ");
    }
    for (int k = 0; k < 2; k++) {
        wt_epyramid_destroy(gpu[k]);
        wt_pyramid_free(&ref[k]);
    }
    wt_pyramid_free(&got);
    free(x);
    free(y_ref);
    free(y);
    return failed;
}

/* The engine keeps the planned levels of a call and replays them (a CUDA
 * graph from the second use): pairs of calls that differ in one thing the
 * plan depends on, alternated X Y X Y X Y in both directions with new data
 * each round, so that a replay of the other's plan (a key that missed
 * params, mode, method, levels, shape, channels, 5/3 widths or buffers)
 * would show. The 300x300 case grows the engine's buffers between rounds:
 * the 64x64 calls after it run on new pointers. */
static void check_replays(const engines *en, const char *only, stats *st)
{
    typedef struct {
        const char *wavelet;
        wt_mode mode;
        wt_method method;
        size_t h, w;
        int channels, levels;
        int32_t span;
    } rcase;
    static const struct {
        const char *what;
        rcase x, y;
    } pairs[] = {
        {"params", {"haar", WT_MODE_PERIODIZATION, WT_METHOD_CONV, 64, 64, 1, 3, 0},
         {"db3", WT_MODE_PERIODIZATION, WT_METHOD_CONV, 64, 64, 1, 3, 0}},
        {"mode", {"db3", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 64, 64, 1, 3, 0},
         {"db3", WT_MODE_PERIODIC, WT_METHOD_CONV, 64, 64, 1, 3, 0}},
        {"method", {"cdf97", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 64, 64, 1, 3, 0},
         {"cdf97", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 64, 64, 1, 3, 0}},
        {"levels", {"bior4.4", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 64, 64, 1, 3, 0},
         {"bior4.4", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 64, 64, 1, 2, 0}},
        {"shape", {"haar", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 64, 64, 1, 3, 0},
         {"haar", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 64, 48, 1, 3, 0}},
        {"channels", {"db3", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 64, 64, 1, 3, 0},
         {"db3", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 64, 64, 3, 3, 0}},
        {"5/3 widths", {"legall53", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 64, 64, 1, 3, 255},
         {"legall53", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 64, 64, 1, 3, 1 << 30}},
        {"buffers", {"haar", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 64, 64, 1, 3, 0},
         {"haar", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 300, 300, 2, 3, 0}},
    };
    const uint64_t seed = st->seed;
    const long failed = st->failed;
    int npairs = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        if (only && strcmp(only, pairs[i].x.wavelet) && strcmp(only, pairs[i].y.wavelet))
            continue; /* --wavelet: the pairs with it, both of each */
        npairs++;
        for (int round = 0; round < 6; round++) {
            const rcase *r = round % 2 ? &pairs[i].y : &pairs[i].x;
            check_case c = {wt_wavelet_find(r->wavelet), r->mode, r->method, r->h, r->w,
                            r->channels, r->levels, 0, r->span, 0};
            st->seed = seed + (uint64_t)round; /* other data each round */
            for (c.inverse = 0; c.inverse < 2; c.inverse++)
                if (run_case(en, &c, st))
                    fprintf(stderr, "  (replays: %s, round %d)\n", pairs[i].what, round);
        }
    }
    st->seed = seed;
    int epyramids = !only || !strcmp(only, "db3");
    if (epyramids) {
        st->cases++;
        st->failed += check_replay_epyramids(en) != 0;
    }
    printf("gpu_check: replayed plans: %d pairs alternated%s; %ld failed\n", npairs,
           epyramids ? ", two epyramids" : "", st->failed - failed);
}

/* Large images (>= 4096 x 4096) and a batch, for a handful of wavelets. */
static void check_large(const engines *en, const char *only, stats *st)
{
    static const struct {
        const char *wavelet;
        wt_mode mode;
        wt_method method;
        size_t h, w;
        int channels, levels;
    } big[] = {
        {"haar", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 4096, 4096, 1, 3},
        {"haar", WT_MODE_PERIODIZATION, WT_METHOD_LIFTING, 4096, 4096, 1, 3},
        {"db3", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 4099, 4097, 1, 3},
        {"db3", WT_MODE_PERIODIZATION, WT_METHOD_CONV, 4096, 4096, 1, 3},
        {"cdf97", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 4096, 4096, 1, 3},
        {"cdf97", WT_MODE_PERIODIZATION, WT_METHOD_CONV, 4097, 4096, 1, 3},
        {"bior4.4", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 4096, 4096, 1, 3},
        {"legall53", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 4096, 4096, 1, 3},
        {"legall53", WT_MODE_PERIODIZATION, WT_METHOD_LIFTING, 4095, 4101, 1, 5},
        {"db20", WT_MODE_REFLECT, WT_METHOD_CONV, 4096, 4096, 1, 3},
        /* smooth at 3 levels grows corners to 1e8 from float intermediates
         * (either engine's): compare one level */
        {"db20", WT_MODE_SMOOTH, WT_METHOD_CONV, 4096, 4096, 1, 1},
        {"coif17", WT_MODE_PERIODIZATION, WT_METHOD_CONV, 4096, 4096, 1, 2},
        {"dmey", WT_MODE_ANTIREFLECT, WT_METHOD_CONV, 4096, 4096, 1, 3},
        /* fast kernels of long filters (padded to 32 and 64 taps), odd sizes */
        {"db13", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 2049, 3001, 2, 3},
        {"dmey", WT_MODE_PERIODIZATION, WT_METHOD_CONV, 1001, 1500, 1, 2},
        {"db3", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 128, 128, 64, 3},
    };
    wt_engine_set_threads(en->cpu, 0);
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        if (only && strcmp(only, big[i].wavelet) != 0)
            continue;
        check_case c = {wt_wavelet_find(big[i].wavelet), big[i].mode, big[i].method, big[i].h,
                        big[i].w, big[i].channels, big[i].levels, 0, 0, 0};
        for (c.inverse = 0; c.inverse < 2; c.inverse++)
            run_case(en, &c, st);
    }
}

/* ---------------------------------------------------------------------- */
/* Image paths against the CPU engine's composition
 *
 * forward_image: within the float tolerance (legall53 identical).
 * mosaic_image: identical to wt_mosaic_render of the GPU's own pyramid (the
 *   device render must be bit-exact); against the CPU engine's mosaic, whose
 *   pyramid differs within the float tolerance, differences are counted and
 *   allowed up to 1 LSB plus what a band's display gain makes of that
 *   tolerance (mosaic_allowance); none for legall53.
 * inverse_image, roundtrip_image: identical to wt_image_from_planes of the
 *   GPU's own float planes (wt_inverse); against the CPU engine, samples may
 *   differ only where the two engines' float planes lie on either side of a
 *   .5 rounding boundary (counted; none for legall53). */

#define SAMPLE_CANARY 0xA5

typedef struct image_case {
    const wt_wavelet *wavelet;
    wt_mode mode;
    wt_method method;
    uint32_t h, w;
    int channels, depth, levels;
    wt_scale scale;
    int pinned; /* image and outputs page-locked (wt_cuda_host_register) */
} image_case;

static void image_case_name(const image_case *c, char *buf, size_t size)
{
    static const char *const scales[] = {"auto", "abs", "offset"};
    snprintf(buf, size, "image %s %s %s %ux%u C=%d %d-bit L=%d scale %s%s", c->wavelet->name,
             wt_mode_name(c->mode), wt_method_name(c->method), c->h, c->w, c->channels, c->depth,
             c->levels, scales[c->scale], c->pinned ? " pinned" : "");
}

static unsigned sample_at(const wt_image *img, size_t i)
{
    return img->bit_depth > 8 ? ((const uint16_t *)img->pixels)[i]
                              : ((const uint8_t *)img->pixels)[i];
}

static size_t image_samples(const wt_image *img)
{
    return (size_t)img->width * img->height * (size_t)img->channels;
}

static void random_image(wt_image *img)
{
    for (size_t i = 0; i < image_samples(img); i++) {
        uint32_t v = rng_next();
        if (img->bit_depth > 8)
            ((uint16_t *)img->pixels)[i] = (uint16_t)v;
        else
            ((uint8_t *)img->pixels)[i] = (uint8_t)v;
    }
}

/* Coefficients of a real decomposition moved off the integers, so that the
 * reconstruction needs rounding and clamping. */
static void perturb_pyramid(wt_pyramid *p)
{
    for (size_t i = 0; i < p->total; i++)
        if (p->dtype == WT_INT32)
            ((int32_t *)p->data)[i] += rng_int(3);
        else
            ((float *)p->data)[i] += rng_sample() / 32.0f;
}

/* Samples of @p got that differ from @p ref; the largest difference. */
static long count_diff(const wt_image *ref, const wt_image *got, int *max_diff)
{
    long n = 0;
    *max_diff = 0;
    for (size_t i = 0; i < image_samples(ref); i++) {
        int d = abs((int)sample_at(ref, i) - (int)sample_at(got, i));
        n += d != 0;
        *max_diff = d > *max_diff ? d : *max_diff;
    }
    return n;
}

/* Differences between the CPU's samples and the GPU's that are not 1 apart
 * with the float planes straddling the rounding boundary between them. */
static long unexplained_rounding(const wt_image *cpu, const wt_image *gpu, const float *cpu_planes,
                                 const float *gpu_planes, long *on_boundary)
{
    size_t n = (size_t)cpu->width * cpu->height;
    long bad = 0;
    for (size_t i = 0; i < image_samples(cpu); i++) {
        int a = (int)sample_at(cpu, i), b = (int)sample_at(gpu, i);
        if (a == b)
            continue;
        size_t plane = (i % (size_t)cpu->channels) * n + i / (size_t)cpu->channels;
        float x = cpu_planes[plane], y = gpu_planes[plane];
        float mid = 0.5f * (float)(a + b); /* the boundary between the two samples */
        int straddles = abs(a - b) == 1 && (x - mid) * (y - mid) <= 0.0f && fabsf(x - y) < 0.5f;
        bad += !straddles;
        *on_boundary += straddles;
    }
    return bad;
}

typedef struct image_bufs {
    wt_image img, cpu, gpu, own;
    wt_pyramid ref, got;
    float *planes_cpu, *planes_gpu;
} image_bufs;

static wt_status image_bufs_alloc(const image_case *c, const wt_params *p, image_bufs *b)
{
    size_t n = (size_t)c->h * c->w * (size_t)c->channels;
    memset(b, 0, sizeof *b);
    wt_status s = wt_image_alloc(&b->img, c->w, c->h, c->channels, c->depth);
    if (s == WT_OK)
        s = wt_image_alloc(&b->cpu, c->w, c->h, c->channels, c->depth);
    if (s == WT_OK)
        s = wt_image_alloc(&b->gpu, c->w, c->h, c->channels, c->depth);
    if (s == WT_OK)
        s = wt_image_alloc(&b->own, c->w, c->h, c->channels, c->depth);
    if (s == WT_OK)
        s = wt_pyramid_alloc(&b->ref, p, c->h, c->w, c->channels);
    if (s == WT_OK)
        s = wt_pyramid_alloc(&b->got, p, c->h, c->w, c->channels);
    b->planes_cpu = malloc((n ? n : 1) * sizeof(float));
    b->planes_gpu = malloc((n ? n : 1) * sizeof(float));
    if (s == WT_OK && (!b->planes_cpu || !b->planes_gpu))
        s = WT_ERR_NOMEM;
    return s;
}

static void image_bufs_free(image_bufs *b)
{
    wt_image_free(&b->img);
    wt_image_free(&b->cpu);
    wt_image_free(&b->gpu);
    wt_image_free(&b->own);
    wt_pyramid_free(&b->ref);
    wt_pyramid_free(&b->got);
    free(b->planes_cpu);
    free(b->planes_gpu);
}

#if WT_HAVE_CUDA
/* *p (owned, @p bytes) moved to whole pages of its own, so that page-locking
 * one buffer never covers a page of another. */
static wt_status page_align(void **p, size_t bytes)
{
    void *q = NULL;
    size_t size = (bytes + 4095) / 4096 * 4096;
    if (posix_memalign(&q, 4096, size ? size : 4096) != 0)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    memcpy(q, *p, bytes);
    free(*p);
    *p = q;
    return WT_OK;
}
#endif

/* Page-lock (or release) the GPU engine's inputs and outputs of a case. */
static wt_status pin_bufs(const engines *en, image_bufs *b, int on)
{
#if WT_HAVE_CUDA
    wt_status s = WT_OK;
    if (on)
        s = page_align(&b->img.pixels, wt_image_bytes(&b->img));
    if (on && s == WT_OK)
        s = page_align(&b->gpu.pixels, wt_image_bytes(&b->gpu));
    if (on && s == WT_OK)
        s = page_align(&b->got.data, b->got.total * 4);
    if (s == WT_OK)
        s = wt_cuda_host_register(en->gpu, b->img.pixels, wt_image_bytes(&b->img), on);
    if (s == WT_OK)
        s = wt_cuda_host_register(en->gpu, b->gpu.pixels, wt_image_bytes(&b->gpu), on);
    if (s == WT_OK)
        s = wt_cuda_host_register(en->gpu, b->got.data, b->got.total * 4, on);
    return s;
#else
    (void)en, (void)b, (void)on;
    return WT_OK;
#endif
}

/* forward_image: GPU pyramid (canary-filled first) against the CPU's. */
static int check_forward_image(const engines *en, const image_case *c, const wt_params *p,
                               image_bufs *b, stats *st, const char *name)
{
    fill_canary(b->got.data, b->got.total);
    wt_status s = wt_forward_image(en->cpu, p, &b->img, &b->ref);
    if (s == WT_OK)
        s = wt_forward_image(en->gpu, p, &b->img, &b->got);
    if (s != WT_OK) {
        fprintf(stderr, "FAIL %s forward_image: %s\n", name, wt_error_message());
        return 1;
    }
    int integer = b->ref.dtype == WT_INT32;
    double max_ref, err = relative_error(b->ref.data, b->got.data, b->ref.total, integer, &max_ref);
    check_case cc = {c->wavelet, c->mode, c->method, c->h, c->w, c->channels, c->levels, 0, 0, 0};
    int fail = integer ? err != 0.0 : !(err <= tolerance(&cc));
    if (fail || st->verbose)
        fprintf(stderr, "%s %s forward_image: rel err %.3g (max|cpu| %.4g)\n",
                fail ? "FAIL" : "ok  ", name, err, max_ref);
    return fail;
}

/* Range of a band of @p p over all channels: the denominator of its display
 * gain (max - min for cA; max|v|, or 2 max|v| for offset scaling). */
static double band_span(const wt_pyramid *p, int level, wt_band band, wt_scale scale)
{
    size_t h, w, first = wt_pyramid_offset(p, level, band, 0);
    wt_pyramid_band_shape(p, level, band, &h, &w);
    double lo = INFINITY, hi = -INFINITY, maxabs = 0.0;
    for (size_t i = 0; i < h * w * (size_t)p->channels; i++) {
        double v = p->dtype == WT_INT32 ? ((const int32_t *)p->data)[first + i]
                                        : ((const float *)p->data)[first + i];
        lo = fmin(lo, v);
        hi = fmax(hi, v);
        maxabs = fmax(maxabs, fabs(v));
    }
    if (band == WT_BAND_A)
        return hi > lo ? hi - lo : 0.0;
    return scale == WT_SCALE_OFFSET ? 2.0 * maxabs : maxabs;
}

/* The allowance of one band (see mosaic_allowance) over its rectangle. */
static void band_allowance(const wt_pyramid *ref, int level, wt_band band, size_t y0, size_t x0,
                           wt_scale scale, double peak, double tol_abs, double *allow, size_t mw)
{
    size_t h, w;
    wt_pyramid_band_shape(ref, level, band, &h, &w);
    double span = band_span(ref, level, band, scale);
    double a = span > 0.0 ? 1.0 + peak * 3.0 * tol_abs / span : peak;
    a = tol_abs == 0.0 ? 0.0 : (a > peak ? peak : a);
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++)
            allow[(y0 + y) * mw + x0 + x] = a;
}

/* How far two mosaics of pyramids that agree within @p tol_abs may differ,
 * per mosaic pixel, in wt_mosaic_render's layout: 1 LSB of rounding plus
 * the band's display gain times 3 tol_abs (the value and both ends of the
 * range each off by tol_abs). A band whose span is not far above tol_abs
 * (a detail band of a one-row image is rounding noise around 0) may differ
 * by anything. tol_abs 0: identical. */
static void mosaic_allowance(const wt_pyramid *ref, wt_scale scale, double peak, double tol_abs,
                             double *allow, size_t mw)
{
    size_t ah = ref->lo_h[ref->levels], aw = ref->lo_w[ref->levels];
    band_allowance(ref, ref->levels, WT_BAND_A, 0, 0, scale, peak, tol_abs, allow, mw);
    for (int l = ref->levels; l >= 1; l--) {
        band_allowance(ref, l, WT_BAND_H, ah, 0, scale, peak, tol_abs, allow, mw);
        band_allowance(ref, l, WT_BAND_V, 0, aw, scale, peak, tol_abs, allow, mw);
        band_allowance(ref, l, WT_BAND_D, ah, aw, scale, peak, tol_abs, allow, mw);
        ah += ref->hi_h[l];
        aw += ref->hi_w[l];
    }
}

/* GPU mosaic against the CPU's within mosaic_allowance; returns the samples
 * beyond it, counts the differing ones and the largest difference where
 * the allowance is 1 LSB. */
static long mosaic_vs_cpu(const image_case *c, const wt_pyramid *ref, const wt_image *cpu,
                          const wt_image *gpu, long *differ, int *max_tight)
{
    size_t npix = (size_t)cpu->width * cpu->height;
    double *allow = malloc((npix ? npix : 1) * sizeof *allow), peak = c->depth > 8 ? 65535 : 255;
    check_case cc = {c->wavelet, c->mode, c->method, c->h, c->w, c->channels, c->levels, 0, 0, 0};
    double max_ref;
    relative_error(ref->data, ref->data, ref->total, ref->dtype == WT_INT32, &max_ref);
    *differ = 0;
    *max_tight = 0;
    if (!allow)
        return -1;
    for (size_t i = 0; i < npix; i++)
        allow[i] = 0.0; /* pixels of no band are 0 in both */
    mosaic_allowance(ref, c->scale, peak, c->wavelet->integer ? 0.0 : tolerance(&cc) * max_ref,
                     allow, cpu->width);
    long bad = 0;
    for (size_t i = 0; i < image_samples(cpu); i++) {
        int d = abs((int)sample_at(cpu, i) - (int)sample_at(gpu, i));
        double a = allow[i / (size_t)cpu->channels];
        *differ += d != 0;
        bad += d > a;
        if (a < 2.0 && d > *max_tight)
            *max_tight = d;
    }
    free(allow);
    return bad;
}

/* wt_mosaic_image into a mosaic kept from an earlier call: drawn into the same
 * pixels (filled with a canary first), equal to @p drawn. */
static int check_kept_mosaic(const engines *en, const image_case *c, const wt_params *p,
                             image_bufs *b, const wt_image *drawn, const char *name)
{
    wt_image kept;
    size_t bytes = wt_image_bytes(drawn);
    int fail = wt_image_alloc(&kept, drawn->width, drawn->height, drawn->channels,
                              drawn->bit_depth) != WT_OK;
    void *pixels = kept.pixels;
    if (!fail) {
        memset(kept.pixels, 0xA5, bytes);
        fail = wt_mosaic_image(en->gpu, p, &b->img, c->scale, c->depth, &kept) != WT_OK ||
               kept.pixels != pixels || memcmp(kept.pixels, drawn->pixels, bytes) != 0;
    }
    if (fail)
        fprintf(stderr, "FAIL %s mosaic_image into a kept mosaic: %s\n", name,
                kept.pixels != pixels ? "buffer replaced or call failed" : "pixels differ");
    wt_image_free(&kept);
    return fail;
}

/* mosaic_image: against the render of the GPU's pyramid (b->got, from
 * check_forward_image), and against the CPU engine's mosaic within the
 * allowance of the pyramids' tolerance. */
static int check_mosaic_image(const engines *en, const image_case *c, const wt_params *p,
                              image_bufs *b, stats *st, const char *name)
{
    wt_image cpu = {0}, gpu = {0}, own = {0};
    wt_status s = wt_mosaic_image(en->cpu, p, &b->img, c->scale, c->depth, &cpu);
    if (s == WT_OK)
        s = wt_mosaic_image(en->gpu, p, &b->img, c->scale, c->depth, &gpu);
    if (s == WT_OK)
        s = wt_mosaic_render(&b->got, c->scale, c->depth, &own);
    int fail = s != WT_OK;
    if (fail) {
        fprintf(stderr, "FAIL %s mosaic_image: %s\n", name, wt_error_message());
    } else if (gpu.width != cpu.width || gpu.height != cpu.height) {
        fprintf(stderr, "FAIL %s mosaic_image: %ux%u, cpu %ux%u\n", name, gpu.width, gpu.height,
                cpu.width, cpu.height);
        fail = 1;
    } else {
        int own_max, tight, k = c->depth > 8;
        long own_n = count_diff(&own, &gpu, &own_max), cpu_n;
        long bad = mosaic_vs_cpu(c, &b->ref, &cpu, &gpu, &cpu_n, &tight);
        st->mosaic_own_diff += own_n;
        st->mosaic_cpu_diff += cpu_n;
        st->mosaic_cpu_lsb[k] = tight > st->mosaic_cpu_lsb[k] ? tight : st->mosaic_cpu_lsb[k];
        fail = own_n != 0 || bad != 0;
        if (fail || st->verbose)
            fprintf(stderr, "%s %s mosaic_image: %ld samples differ from the render of the GPU "
                    "pyramid; %ld from the CPU mosaic (%ld beyond the pyramid tolerance; max "
                    "%d LSB in bands where it is under 1 LSB)\n", fail ? "FAIL" : "ok  ", name,
                    own_n, cpu_n, bad, tight);
    }
    if (!fail) /* drawn again into the kept mosaic (canary-filled): the same pixels */
        fail = check_kept_mosaic(en, c, p, b, &gpu, name);
    wt_image_free(&cpu);
    wt_image_free(&gpu);
    wt_image_free(&own);
    return fail;
}

/* b->cpu and b->gpu against each other and b->own (from b->planes_gpu). */
static int compare_reconstructions(const image_case *c, image_bufs *b, stats *st,
                                   const char *name, const char *what)
{
    int own_max, cpu_max;
    wt_image_from_planes(&b->own, b->planes_gpu);
    long own_n = count_diff(&b->own, &b->gpu, &own_max);
    long cpu_n = count_diff(&b->cpu, &b->gpu, &cpu_max), boundary = 0;
    long bad = unexplained_rounding(&b->cpu, &b->gpu, b->planes_cpu, b->planes_gpu, &boundary);
    st->round_diff += boundary;
    int fail = own_n != 0 || bad != 0 || (c->wavelet->integer && cpu_n != 0);
    if (fail || st->verbose)
        fprintf(stderr, "%s %s %s: %ld samples differ from the GPU's own planes rounded; %ld "
                "from the CPU (%ld on a .5 boundary, %ld not)\n", fail ? "FAIL" : "ok  ", name,
                what, own_n, cpu_n, boundary, bad);
    return fail;
}

/* inverse_image of the CPU pyramid (b->ref, moved off the integers). */
static int check_inverse_image(const engines *en, const wt_params *p, const image_case *c,
                               image_bufs *b, stats *st, const char *name)
{
    perturb_pyramid(&b->ref);
    memset(b->gpu.pixels, SAMPLE_CANARY, wt_image_bytes(&b->gpu));
    wt_status s = wt_inverse_image(en->cpu, p, &b->ref, &b->cpu);
    if (s == WT_OK)
        s = wt_inverse_image(en->gpu, p, &b->ref, &b->gpu);
    if (s == WT_OK)
        s = wt_inverse(en->cpu, p, &b->ref, b->planes_cpu);
    if (s == WT_OK)
        s = wt_inverse(en->gpu, p, &b->ref, b->planes_gpu);
    if (s != WT_OK) {
        fprintf(stderr, "FAIL %s inverse_image: %s\n", name, wt_error_message());
        return 1;
    }
    return compare_reconstructions(c, b, st, name, "inverse_image");
}

/* roundtrip_image, and the same through the float paths of each engine. */
static int check_roundtrip_image(const engines *en, const wt_params *p, const image_case *c,
                                 image_bufs *b, stats *st, const char *name)
{
    memset(b->gpu.pixels, SAMPLE_CANARY, wt_image_bytes(&b->gpu));
    wt_status s = wt_roundtrip_image(en->cpu, p, &b->img, &b->cpu);
    if (s == WT_OK)
        s = wt_roundtrip_image(en->gpu, p, &b->img, &b->gpu);
    for (int k = 0; k < 2 && s == WT_OK; k++) {
        wt_engine *e = k ? en->gpu : en->cpu;
        wt_pyramid *pyr = k ? &b->got : &b->ref;
        float *planes = k ? b->planes_gpu : b->planes_cpu;
        s = wt_image_to_planes(&b->img, planes);
        if (s == WT_OK)
            s = wt_forward(e, p, planes, pyr);
        if (s == WT_OK)
            s = wt_inverse(e, p, pyr, planes);
    }
    if (s != WT_OK) {
        fprintf(stderr, "FAIL %s roundtrip_image: %s\n", name, wt_error_message());
        return 1;
    }
    return compare_reconstructions(c, b, st, name, "roundtrip_image");
}

static int run_image_case(const engines *en, const image_case *c, stats *st)
{
    char name[200];
    wt_params p = {c->wavelet, c->mode, c->method, c->levels};
    image_bufs b;
    image_case_name(c, name, sizeof name);
    rng_seed(case_seed(st->seed, name));
    st->img_cases++;
    wt_status s = image_bufs_alloc(c, &p, &b);
    if (s == WT_OK && c->pinned)
        s = pin_bufs(en, &b, 1);
    int fail = 0;
    if (s != WT_OK) {
        fprintf(stderr, "FAIL %s: %s\n", name, wt_error_message());
        fail = 1;
    } else {
        random_image(&b.img);
        fail |= check_forward_image(en, c, &p, &b, st, name);
        fail |= check_mosaic_image(en, c, &p, &b, st, name);
        fail |= check_roundtrip_image(en, &p, c, &b, st, name);
        fail |= check_inverse_image(en, &p, c, &b, st, name); /* last: perturbs b.ref */
        if (c->pinned)
            pin_bufs(en, &b, 0);
    }
    if (fail)
        fprintf(stderr, "  replay: gpu_check --seed %llu --images-only --wavelet %s\n",
                (unsigned long long)st->seed, c->wavelet->name);
    st->img_failed += fail;
    image_bufs_free(&b);
    return fail;
}

/* Wavelets, modes and methods of the image cases: short and long filters,
 * lifting, integer, the extrapolating modes. */
static const struct {
    const char *wavelet;
    wt_mode mode;
    wt_method method;
} image_configs[] = {
    {"haar", WT_MODE_SYMMETRIC, WT_METHOD_CONV},
    {"haar", WT_MODE_PERIODIZATION, WT_METHOD_LIFTING},
    {"db3", WT_MODE_SYMMETRIC, WT_METHOD_CONV},
    {"db3", WT_MODE_PERIODIZATION, WT_METHOD_LIFTING},
    {"bior4.4", WT_MODE_REFLECT, WT_METHOD_CONV},
    {"cdf97", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING},
    {"legall53", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING},
    {"legall53", WT_MODE_PERIODIZATION, WT_METHOD_LIFTING},
    {"db20", WT_MODE_ZERO, WT_METHOD_CONV},
    {"sym5", WT_MODE_SMOOTH, WT_METHOD_CONV},
    {"coif3", WT_MODE_ANTIREFLECT, WT_METHOD_CONV},
    {"dmey", WT_MODE_PERIODIC, WT_METHOD_CONV},
};

/* 1x1, a row, a column, odd, prime, non-square, medium. */
static const struct {
    uint32_t h, w;
} image_shapes[] = {
    {1, 1}, {1, 17}, {19, 1}, {7, 7}, {13, 17}, {31, 64}, {64, 31}, {37, 41}, {100, 5}, {97, 130},
};

static void check_images(const engines *en, const char *only, int quick, int large, stats *st)
{
    size_t nshapes = sizeof image_shapes / sizeof image_shapes[0];
    wt_engine_set_threads(en->cpu, 0);
    for (size_t i = 0; i < sizeof image_configs / sizeof image_configs[0]; i++) {
        const wt_wavelet *w = wt_wavelet_find(image_configs[i].wavelet);
        if (only && strcmp(only, w->name) != 0)
            continue;
        for (size_t s = 0; s < nshapes; s++) {
            if (quick && (s + i) % 3 != 0)
                continue;
            size_t k = i + s; /* vary channels, depth, levels and scale over the cases */
            image_case c = {w, image_configs[i].mode, image_configs[i].method,
                            image_shapes[s].h, image_shapes[s].w, 1 + (int)(k % 4),
                            k % 2 ? 16 : 8, 1, (wt_scale)(k % 3), 0};
            int maxl = wt_max_level(c.h, c.w, w);
            c.levels = s == 0 ? 0 : (k % 3 == 0 ? 1 : (maxl < 1 ? 1 : (maxl > 4 ? 4 : maxl)));
            c.pinned = WT_HAVE_CUDA && s == nshapes - 1 && i % 4 == 0;
            run_image_case(en, &c, st);
        }
    }
    if (!large || quick)
        return;
    static const image_case big[] = {
        {NULL, WT_MODE_SYMMETRIC, WT_METHOD_CONV, 4096, 4096, 1, 8, 3, WT_SCALE_AUTO, 0},
        {NULL, WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, 4099, 4097, 1, 8, 3, WT_SCALE_OFFSET, 0},
        {NULL, WT_MODE_PERIODIZATION, WT_METHOD_LIFTING, 2048, 3001, 3, 16, 4, WT_SCALE_ABS, 1},
    };
    static const char *const big_wavelets[] = {"haar", "cdf97", "legall53"};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        image_case c = big[i];
        c.wavelet = wt_wavelet_find(big_wavelets[i]);
        c.pinned = c.pinned && WT_HAVE_CUDA;
        if (!only || strcmp(only, c.wavelet->name) == 0)
            run_image_case(en, &c, st);
    }
}

/* Float32 samples and more than 4 channels (issue 16): the image paths take
 * host planes and the engine's float transforms; forward and roundtrip on the
 * GPU equal the CPU engine's within the float tolerance. */
static int float_image_case(const engines *en, const wt_wavelet *w, uint32_t h, uint32_t wd,
                            int channels, stats *st)
{
    char name[160];
    wt_params p = {w, WT_MODE_SYMMETRIC, WT_METHOD_CONV, 2};
    wt_image img = {0}, back_cpu = {0}, back_gpu = {0};
    wt_pyramid ref = {0}, got = {0};
    snprintf(name, sizeof name, "float32 image %s %ux%u C=%d", w->name, h, wd, channels);
    rng_seed(case_seed(st->seed, name));
    st->img_cases++;
    wt_status s = wt_image_alloc(&img, wd, h, channels, WT_DEPTH_F32);
    if (s == WT_OK)
        s = wt_image_alloc(&back_cpu, wd, h, channels, WT_DEPTH_F32);
    if (s == WT_OK)
        s = wt_image_alloc(&back_gpu, wd, h, channels, WT_DEPTH_F32);
    if (s == WT_OK)
        s = wt_pyramid_alloc(&ref, &p, h, wd, channels);
    if (s == WT_OK)
        s = wt_pyramid_alloc(&got, &p, h, wd, channels);
    for (size_t i = 0; s == WT_OK && i < image_samples(&img); i++)
        ((float *)img.pixels)[i] = 1000.0f * rng_sample();
    if (s == WT_OK)
        s = wt_forward_image(en->cpu, &p, &img, &ref);
    if (s == WT_OK)
        s = wt_forward_image(en->gpu, &p, &img, &got);
    if (s == WT_OK)
        s = wt_roundtrip_image(en->cpu, &p, &img, &back_cpu);
    if (s == WT_OK)
        s = wt_roundtrip_image(en->gpu, &p, &img, &back_gpu);
    double max_ref = 0, err_fwd = 1, err_back = 1;
    if (s == WT_OK) {
        err_fwd = relative_error(ref.data, got.data, ref.total, 0, &max_ref);
        err_back = relative_error(back_cpu.pixels, back_gpu.pixels, image_samples(&img), 0,
                                  &max_ref);
    }
    int fail = s != WT_OK || !(err_fwd <= TOLERANCE) || !(err_back <= TOLERANCE);
    if (fail || st->verbose)
        fprintf(stderr, "%s %s: forward rel err %.3g, roundtrip %.3g%s%s\n", fail ? "FAIL" : "ok  ",
                name, err_fwd, err_back, s != WT_OK ? ": " : "", s != WT_OK ? wt_error_message() : "");
    st->img_failed += fail;
    wt_image_free(&img);
    wt_image_free(&back_cpu);
    wt_image_free(&back_gpu);
    wt_pyramid_free(&ref);
    wt_pyramid_free(&got);
    return fail;
}

static void check_float_images(const engines *en, stats *st)
{
    static const char *const wavelets[] = {"haar", "db4", "bior4.4"};
    static const uint32_t sizes[][2] = {{1, 1}, {37, 53}, {256, 129}};
    static const int channels[] = {1, 3, 6};
    for (size_t i = 0; i < 3; i++)
        for (size_t k = 0; k < 3; k++)
            float_image_case(en, wt_wavelet_find(wavelets[i]), sizes[k][0], sizes[k][1],
                             channels[(i + k) % 3], st);
}

/* WT_CUDA_MEM_LIMIT=1M: a 512x512 RGB mosaic fails with WT_ERR_DEVICE_NOMEM
 * and a "GPU out of memory" message; the engine still serves a small image;
 * reopened without the cap, the large one works. */
static void check_oom(stats *st)
{
    wt_params p = {wt_wavelet_find("haar"), WT_MODE_SYMMETRIC, WT_METHOD_AUTO, 3};
    wt_image big = {0}, small = {0}, m = {0};
    wt_engine *e = NULL;
    int fail = 0;
    st->img_cases++;
    wt_env_knobs *knobs = wt_env_override(); /* WT_CUDA_MEM_LIMIT=1M for this engine */
    const char *was = knobs->cuda_mem_limit;
    knobs->cuda_mem_limit = "1M";
    wt_status s = wt_engine_open(&e, "cuda");
    knobs->cuda_mem_limit = was;
    if (s == WT_OK)
        s = wt_image_alloc(&big, 512, 512, 3, 8);
    if (s == WT_OK)
        s = wt_image_alloc(&small, 8, 5, 1, 8);
    if (s != WT_OK) {
        fprintf(stderr, "FAIL oom: setup: %s\n", wt_error_message());
        st->img_failed++;
        wt_image_free(&big);
        wt_image_free(&small);
        if (e)
            wt_engine_close(e);
        return;
    }
    s = wt_mosaic_image(e, &p, &big, WT_SCALE_AUTO, 8, &m);
    fail |= s != WT_ERR_DEVICE_NOMEM || !strstr(wt_error_message(), "GPU out of memory");
    printf("gpu_check: oom: WT_CUDA_MEM_LIMIT=1M, 512x512 RGB mosaic: status %d: %s\n", (int)s,
           wt_error_message());
    s = wt_mosaic_image(e, &p, &small, WT_SCALE_AUTO, 8, &m); /* fits under the cap */
    fail |= s != WT_OK;
    wt_image_free(&m);
    wt_engine_close(e);
    s = wt_engine_open(&e, "cuda");
    if (s == WT_OK) {
        s = wt_mosaic_image(e, &p, &big, WT_SCALE_AUTO, 8, &m);
        wt_engine_close(e);
    }
    fail |= s != WT_OK;
    if (fail)
        fprintf(stderr, "FAIL oom: %s\n", s != WT_OK ? wt_error_message() : "wrong status");
    st->img_failed += fail;
    wt_image_free(&m);
    wt_image_free(&big);
    wt_image_free(&small);
}

/* ---------------------------------------------------------------------- */
/* Engine-resident pyramids: every band operation on the GPU against the CPU
 * engine on the same coefficients (maps, selections, medians, keep and
 * thresholds bit for bit; statistics' counts and extremes exact, sums within
 * double rounding); the device transforms equal the GPU's own paths. */

typedef struct pyr_case {
    const char *wavelet;
    size_t h, w;
    int channels, levels;
} pyr_case;

/* Random coefficients with many zeros and ties (medians, --keep). */
static void tied_pyramid(wt_pyramid *p)
{
    for (size_t i = 0; i < p->total; i++) {
        uint32_t kind = rng_next() % 4;
        if (p->dtype == WT_INT32)
            ((int32_t *)p->data)[i] = kind == 0 ? 0 : kind == 1 ? rng_int(3) : rng_int(1000);
        else
            ((float *)p->data)[i] = kind == 0   ? 0.0f
                                    : kind == 1 ? (float)rng_int(8) * 0.25f
                                                : rng_sample();
    }
}

static size_t some_bands(const wt_band_ref *all, size_t n, wt_band_ref *sel)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (rng_next() % 2)
            sel[k++] = all[i];
    for (size_t i = k; i > 1; i--) {
        size_t j = rng_next() % i;
        wt_band_ref t = sel[i - 1];
        sel[i - 1] = sel[j];
        sel[j] = t;
    }
    return k ? k : (sel[0] = all[n - 1], 1);
}

typedef struct pyr_pair {
    wt_epyramid *gpu, *cpu;
    wt_pyramid host, got_gpu, got_cpu;
    char name[160];
    int failed;
} pyr_pair;

static void pyr_fail(pyr_pair *pp, const char *what)
{
    if (!pp->failed)
        printf("FAIL epyramid %s: %s\n", pp->name, what);
    pp->failed = 1;
}

static void pyr_expect(pyr_pair *pp, wt_status st, const char *what)
{
    if (st != WT_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s: %s", what, wt_error_message());
        pyr_fail(pp, msg);
    }
}

/* Both engines hold the same coefficients (downloaded and compared). */
static void pyr_compare(pyr_pair *pp, const char *what)
{
    pyr_expect(pp, wt_epyramid_download(pp->gpu, &pp->got_gpu), "download");
    pyr_expect(pp, wt_epyramid_download(pp->cpu, &pp->got_cpu), "download");
    if (!pp->failed && memcmp(pp->got_gpu.data, pp->got_cpu.data, pp->host.total * 4) != 0) {
        report_pyramid(&pp->got_cpu, &pp->got_gpu, 0.0);
        pyr_fail(pp, what);
    }
}

static void pyr_reset(pyr_pair *pp)
{
    pyr_expect(pp, wt_epyramid_upload(pp->gpu, &pp->host), "upload");
    pyr_expect(pp, wt_epyramid_upload(pp->cpu, &pp->host), "upload");
}

static void pyr_check_maps(pyr_pair *pp, const wt_band_ref *all, size_t nall)
{
    wt_band_ref *sel = malloc(nall * sizeof *sel);
    double *args = malloc(nall * sizeof *args);
    for (int round = 0; round < 8 && !pp->failed; round++) {
        wt_band_op op = (wt_band_op)(rng_next() % 5); /* WT_OP_QUANTIZE too */
        size_t n = some_bands(all, nall, sel);
        for (size_t i = 0; i < n; i++)
            args[i] = op == WT_OP_SCALE ? rng_sample() / 37.0 : 0.25 + fabs(rng_sample()) / 4.0;
        pyr_expect(pp, wt_epyramid_map(pp->gpu, op, sel, args, n), "map");
        pyr_expect(pp, wt_epyramid_map(pp->cpu, op, sel, args, n), "map");
        pyr_compare(pp, "map");
    }
    free(sel);
    free(args);
}

static int same_stats(const wt_band_stats *a, const wt_band_stats *b)
{
    double tol = 1e-9 * (a->sum_sq + 1.0);
    return a->count == b->count && a->zeros == b->zeros && a->at_most == b->at_most &&
           a->min == b->min && a->max == b->max && a->max_abs == b->max_abs &&
           fabs(a->sum - b->sum) <= tol && fabs(a->sum_sq - b->sum_sq) <= tol;
}

static int same_value(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static void pyr_check_stats(pyr_pair *pp, const wt_band_ref *all, size_t n)
{
    wt_band_stats *sg = malloc(n * sizeof *sg), *sc = malloc(n * sizeof *sc);
    double *t = malloc(n * sizeof *t), *mg = malloc(n * sizeof *mg), *mc = malloc(n * sizeof *mc);
    for (size_t i = 0; i < n; i++)
        t[i] = i % 4 == 0 ? 0.0 : fabs(rng_sample()) / 8.0;
    pyr_expect(pp, wt_epyramid_reduce(pp->gpu, all, t, n, sg), "reduce");
    pyr_expect(pp, wt_epyramid_reduce(pp->cpu, all, t, n, sc), "reduce");
    for (size_t i = 0; i < n && !pp->failed; i++)
        if (!same_stats(&sg[i], &sc[i]))
            pyr_fail(pp, "reduce");
    for (int nz = 0; nz <= 1 && !pp->failed; nz++) {
        pyr_expect(pp, wt_epyramid_median_abs(pp->gpu, all, n, nz, mg), "median");
        pyr_expect(pp, wt_epyramid_median_abs(pp->cpu, all, n, nz, mc), "median");
        for (size_t i = 0; i < n && !pp->failed; i++)
            if (!same_value(mg[i], mc[i]))
                pyr_fail(pp, nz ? "median of nonzero |c|" : "median |c|");
    }
    wt_band_ref *sel = malloc(n * sizeof *sel);
    for (int round = 0; round < 4 && !pp->failed; round++) {
        size_t k = some_bands(all, n, sel), total = 0;
        for (size_t i = 0; i < k; i++) {
            size_t bh, bw;
            wt_pyramid_band_shape(&pp->host, sel[i].level, sel[i].band, &bh, &bw);
            total += bh * bw;
        }
        uint64_t which = round == 0 ? 0 : round == 1 ? total - 1 : rng_next() % total;
        double g = -1, c = -2;
        pyr_expect(pp, wt_epyramid_kth_abs(pp->gpu, sel, k, which, &g), "kth");
        pyr_expect(pp, wt_epyramid_kth_abs(pp->cpu, sel, k, which, &c), "kth");
        if (!pp->failed && g != c)
            pyr_fail(pp, "k-th |c|");
    }
    free(sel);
    free(sg);
    free(sc);
    free(t);
    free(mg);
    free(mc);
}

static void pyr_check_thresholds(pyr_pair *pp)
{
    static const double fractions[] = {0.0, 0.1, 0.5, 0.9, 1.0};
    for (int q = 0; q < 8 && !pp->failed; q++) {
        double kg = -1, kc = -2;
        pyr_reset(pp);
        if (q < 5) {
            pyr_expect(pp, wt_epyramid_keep(pp->gpu, fractions[q], &kg), "keep");
            pyr_expect(pp, wt_epyramid_keep(pp->cpu, fractions[q], &kc), "keep");
        } else {
            double t = q == 5 ? 0.0 : 1.0;
            pyr_expect(pp, wt_epyramid_threshold(pp->gpu, t, q == 7, &kg), "threshold");
            pyr_expect(pp, wt_epyramid_threshold(pp->cpu, t, q == 7, &kc), "threshold");
        }
        if (!pp->failed && kg != kc)
            pyr_fail(pp, "kept fraction");
        pyr_compare(pp, q < 5 ? "keep" : "threshold");
    }
}

/* The device transforms equal the GPU engine's own image paths, the
 * pyramid survives the inverse, and roundtrip --keep equals the host path. */
static void pyr_check_transforms(const engines *en, pyr_pair *pp, const wt_params *p,
                                 const pyr_case *c)
{
    wt_image img, a, b;
    wt_pyramid ref;
    if (wt_image_alloc(&img, (uint32_t)c->w, (uint32_t)c->h, c->channels, 8) != WT_OK ||
        wt_image_alloc(&a, (uint32_t)c->w, (uint32_t)c->h, c->channels, 8) != WT_OK ||
        wt_image_alloc(&b, (uint32_t)c->w, (uint32_t)c->h, c->channels, 8) != WT_OK ||
        wt_pyramid_alloc(&ref, p, c->h, c->w, c->channels) != WT_OK) {
        pyr_fail(pp, "out of memory");
        return;
    }
    for (size_t i = 0; i < wt_image_bytes(&img); i++)
        ((uint8_t *)img.pixels)[i] = (uint8_t)(rng_next() >> 24);
    pyr_expect(pp, wt_epyramid_forward_image(pp->gpu, &img), "forward_image");
    pyr_expect(pp, wt_forward_image(en->gpu, p, &img, &ref), "wt_forward_image");
    pyr_expect(pp, wt_epyramid_download(pp->gpu, &pp->got_gpu), "download");
    if (!pp->failed && memcmp(ref.data, pp->got_gpu.data, ref.total * 4) != 0)
        pyr_fail(pp, "forward_image differs from wt_forward_image");
    pyr_expect(pp, wt_epyramid_inverse_image(pp->gpu, &a), "inverse_image");
    pyr_expect(pp, wt_inverse_image(en->gpu, p, &ref, &b), "wt_inverse_image");
    if (!pp->failed && memcmp(a.pixels, b.pixels, wt_image_bytes(&a)) != 0)
        pyr_fail(pp, "inverse_image differs from wt_inverse_image");
    pyr_expect(pp, wt_epyramid_download(pp->gpu, &pp->got_gpu), "download");
    if (!pp->failed && memcmp(ref.data, pp->got_gpu.data, ref.total * 4) != 0)
        pyr_fail(pp, "the inverse changed the pyramid");
    /* roundtrip --keep 0.1: forward, keep, inverse on the device == via the host */
    double kg = -1, kh = -2;
    pyr_expect(pp, wt_epyramid_keep(pp->gpu, 0.1, &kg), "keep");
    pyr_expect(pp, wt_epyramid_inverse_image(pp->gpu, &a), "inverse_image");
    pyr_expect(pp, wt_pyramid_keep(&ref, 0.1, &kh), "wt_pyramid_keep");
    pyr_expect(pp, wt_inverse_image(en->gpu, p, &ref, &b), "wt_inverse_image");
    if (!pp->failed && (kg != kh || memcmp(a.pixels, b.pixels, wt_image_bytes(&a)) != 0))
        pyr_fail(pp, "roundtrip --keep differs from the host path");
    wt_image_free(&img);
    wt_image_free(&a);
    wt_image_free(&b);
    wt_pyramid_free(&ref);
}

/* --keep ranked by synthesis norm: bit-exact between the engines (both
 * scale, keep and scale back with the same arithmetic). */
static void pyr_check_keep_weighted(pyr_pair *pp)
{
    double kg = -1, kc = -2;
    pyr_reset(pp);
    pyr_expect(pp, wt_epyramid_keep_weighted(pp->gpu, 0.1, &kg), "keep_weighted");
    pyr_expect(pp, wt_epyramid_keep_weighted(pp->cpu, 0.1, &kc), "keep_weighted");
    if (!pp->failed && kg != kc)
        pyr_fail(pp, "keep_weighted: kept fraction");
    pyr_compare(pp, "keep_weighted");
}

/* The GPU's fused shrinkage (one engine op, no host round trip) against the
 * same denoise composed from map, reduce and select (WT_DENOISE_COMPOSED=1):
 * the same kernels and double arithmetic, so identical samples and sigma. */
static void pyr_check_fused(const engines *en, pyr_pair *pp, const wt_denoise_options *o,
                            const wt_image *img, const wt_image *fused, wt_image *composed)
{
    wt_denoise_info fi, ci;
    pyr_expect(pp, wt_denoise_image(en->gpu, o, img, (wt_image *)fused, &fi), "denoise (fused)");
    wt_env_knobs *knobs = wt_env_override(); /* WT_DENOISE_COMPOSED=1 for this call */
    const char *was = knobs->denoise_composed;
    knobs->denoise_composed = "1";
    pyr_expect(pp, wt_denoise_image(en->gpu, o, img, composed, &ci), "denoise (composed)");
    knobs->denoise_composed = was;
    if (!pp->failed && memcmp(fused->pixels, composed->pixels, wt_image_bytes(img)) != 0)
        pyr_fail(pp, "denoise: the fused GPU shrinkage differs from the composed one");
    for (int k = 0; !pp->failed && k < img->channels; k++)
        if (memcmp(&fi.sigma[k], &ci.sigma[k], sizeof(double)) != 0 &&
            !(isnan(fi.sigma[k]) && isnan(ci.sigma[k])))
            pyr_fail(pp, "denoise: the fused GPU sigma differs from the composed one");
}

/* wavetool denoise on both engines (BayesShrink soft, VisuShrink hard, cycle
 * spin 1, a given sigma, a fixed threshold with level scales): samples within
 * 1 LSB, >= 99.9% equal (the transforms agree to float32 rounding, so sigma's
 * last bits may differ). haar/db1 (and legall53, whose denoise would be db1)
 * are checked with db2: haar reconstructs integer samples to exact .5 ties,
 * where float rounding decides either way. */
static void pyr_check_denoise(const engines *en, pyr_pair *pp, const pyr_case *c)
{
    wt_image img, a, b;
    if (wt_image_alloc(&img, (uint32_t)c->w, (uint32_t)c->h, c->channels, 8) != WT_OK ||
        wt_image_alloc(&a, (uint32_t)c->w, (uint32_t)c->h, c->channels, 8) != WT_OK ||
        wt_image_alloc(&b, (uint32_t)c->w, (uint32_t)c->h, c->channels, 8) != WT_OK) {
        pyr_fail(pp, "out of memory");
        return;
    }
    size_t bytes = wt_image_bytes(&img);
    for (size_t i = 0; i < bytes; i++) /* a ramp plus noise */
        ((uint8_t *)img.pixels)[i] = (uint8_t)(64 + (i * 97 / (bytes + 1)) + (rng_next() % 32));
    for (int q = 0; q < 5 && !pp->failed; q++) {
        wt_denoise_options o;
        wt_denoise_defaults(&o);
        int halves = !strcmp(c->wavelet, "legall53") || !strcmp(c->wavelet, "haar") ||
                     !strcmp(c->wavelet, "db1");
        o.params.wavelet = wt_wavelet_find(halves ? "db2" : c->wavelet);
        o.rule = q == 1 ? WT_RULE_VISU : q == 4 ? WT_RULE_FIXED : WT_RULE_BAYES;
        o.soft = q != 1;
        o.cycle_spin = q == 2;
        o.sigma = q == 3 ? 9.5 : NAN;
        o.threshold = 7.0;
        o.nlevel_scale = q == 4 ? 2 : 0;
        o.level_scale[0] = 1.5;
        o.level_scale[1] = 0.5;
        pyr_check_fused(en, pp, &o, &img, &a, &b);
        pyr_expect(pp, wt_denoise_image(en->cpu, &o, &img, &b, NULL), "denoise (cpu)");
        size_t differ = 0;
        for (size_t i = 0; !pp->failed && i < bytes; i++) {
            int d = abs((int)((uint8_t *)a.pixels)[i] - (int)((uint8_t *)b.pixels)[i]);
            differ += d != 0;
            if (d > 1)
                pyr_fail(pp, "denoise: GPU and CPU more than 1 LSB apart");
        }
        if (!pp->failed && (double)differ > 0.001 * (double)bytes + 1.0) {
            char msg[160];
            snprintf(msg, sizeof msg, "denoise %d: %zu of %zu samples differ between GPU and CPU",
                     q, differ, bytes);
            pyr_fail(pp, msg);
        }
    }
    wt_image_free(&img);
    wt_image_free(&a);
    wt_image_free(&b);
}

/* Cycle spinning ops: spin_forward(dy, dx) equals the forward of the planes
 * rolled on the host (the same device transform: bit-exact), and spin
 * results without shrinkage (forward, inverse, add over three shifts, mean)
 * give the image back on both engines, within 1 LSB of each other. */
static void pyr_spin_run(pyr_pair *pp, wt_epyramid *ep, const wt_image *img, wt_image *out,
                         const char *what)
{
    static const size_t shifts[3][2] = {{0, 0}, {1, 2}, {5, 3}};
    pyr_expect(pp, wt_epyramid_spin_load(ep, img), what);
    for (int s = 0; s < 3 && !pp->failed; s++) {
        pyr_expect(pp, wt_epyramid_spin_forward(ep, shifts[s][0], shifts[s][1]), what);
        pyr_expect(pp, wt_epyramid_spin_inverse_add(ep, shifts[s][0], shifts[s][1], 0.0, 255.0),
                   what);
    }
    pyr_expect(pp, wt_epyramid_spin_result(ep, 3.0, out), what);
}

static void pyr_check_spin(pyr_pair *pp, const pyr_case *c)
{
    wt_image img, a, b;
    size_t n = c->h * c->w, all = n * (size_t)c->channels;
    float *rolled = malloc((all ? all : 1) * sizeof *rolled);
    if (!rolled || wt_image_alloc(&img, (uint32_t)c->w, (uint32_t)c->h, c->channels, 8) != WT_OK ||
        wt_image_alloc(&a, (uint32_t)c->w, (uint32_t)c->h, c->channels, 8) != WT_OK ||
        wt_image_alloc(&b, (uint32_t)c->w, (uint32_t)c->h, c->channels, 8) != WT_OK) {
        pyr_fail(pp, "out of memory");
        free(rolled);
        return;
    }
    for (size_t i = 0; i < wt_image_bytes(&img); i++)
        ((uint8_t *)img.pixels)[i] = (uint8_t)(rng_next() >> 24);
    for (size_t k = 0; k < (size_t)c->channels; k++) /* np.roll by (1, 2) */
        for (size_t y = 0; y < c->h; y++)
            for (size_t x = 0; x < c->w; x++)
                rolled[k * n + (y + 1) % c->h * c->w + (x + 2) % c->w] =
                    ((uint8_t *)img.pixels)[(y * c->w + x) * (size_t)c->channels + k];
    pyr_expect(pp, wt_epyramid_spin_load(pp->gpu, &img), "spin_load");
    pyr_expect(pp, wt_epyramid_spin_forward(pp->gpu, 1, 2), "spin_forward");
    pyr_expect(pp, wt_epyramid_download(pp->gpu, &pp->got_gpu), "download");
    pyr_expect(pp, wt_epyramid_forward(pp->gpu, rolled), "forward");
    pyr_expect(pp, wt_epyramid_download(pp->gpu, &pp->got_cpu), "download");
    if (!pp->failed && memcmp(pp->got_gpu.data, pp->got_cpu.data, pp->got_gpu.total * 4) != 0)
        pyr_fail(pp, "spin_forward differs from the forward of the rolled planes");
    pyr_spin_run(pp, pp->gpu, &img, &a, "spin (gpu)");
    pyr_spin_run(pp, pp->cpu, &img, &b, "spin (cpu)");
    for (size_t i = 0; !pp->failed && i < wt_image_bytes(&img); i++) {
        int x = ((uint8_t *)img.pixels)[i], g = ((uint8_t *)a.pixels)[i],
            h = ((uint8_t *)b.pixels)[i];
        if (abs(g - h) > 1 || abs(g - x) > 1)
            pyr_fail(pp, "spin without shrinkage: GPU, CPU and the image more than 1 LSB apart");
    }
    free(rolled);
    wt_image_free(&img);
    wt_image_free(&a);
    wt_image_free(&b);
}

static int run_pyr_case(const engines *en, const pyr_case *c, uint64_t seed)
{
    pyr_pair pp;
    memset(&pp, 0, sizeof pp);
    snprintf(pp.name, sizeof pp.name, "%s %zux%zu C=%d L=%d", c->wavelet, c->h, c->w,
             c->channels, c->levels);
    rng_seed(case_seed(seed, pp.name));
    wt_params p = {wt_wavelet_find(c->wavelet), WT_MODE_SYMMETRIC, WT_METHOD_AUTO, c->levels};
    if (p.wavelet->kind == WT_KIND_JPEG2000)
        p.mode = WT_MODE_PERIODIZATION;
    pyr_expect(&pp, wt_params_resolve(&p), "params");
    pyr_expect(&pp, wt_epyramid_create(en->gpu, &p, c->h, c->w, c->channels, &pp.gpu), "create");
    pyr_expect(&pp, wt_epyramid_create(en->cpu, &p, c->h, c->w, c->channels, &pp.cpu), "create");
    if (!pp.failed && (wt_pyramid_alloc(&pp.host, &p, c->h, c->w, c->channels) != WT_OK ||
                       wt_pyramid_alloc(&pp.got_gpu, &p, c->h, c->w, c->channels) != WT_OK ||
                       wt_pyramid_alloc(&pp.got_cpu, &p, c->h, c->w, c->channels) != WT_OK))
        pyr_fail(&pp, "out of memory");
    size_t most = (size_t)(3 * c->levels + 1) * (size_t)c->channels;
    wt_band_ref *all = malloc(most * sizeof *all);
    if (!pp.failed) {
        size_t n = wt_pyramid_bands(&pp.host, all);
        tied_pyramid(&pp.host);
        pyr_reset(&pp);
        pyr_compare(&pp, "upload/download");
        pyr_check_maps(&pp, all, n);
        pyr_check_stats(&pp, all, n);
        pyr_check_thresholds(&pp);
        pyr_check_transforms(en, &pp, &p, c);
        pyr_check_keep_weighted(&pp);
        pyr_check_denoise(en, &pp, c);
        pyr_check_spin(&pp, c);
    }
    free(all);
    wt_epyramid_destroy(pp.gpu);
    wt_epyramid_destroy(pp.cpu);
    wt_pyramid_free(&pp.host);
    wt_pyramid_free(&pp.got_gpu);
    wt_pyramid_free(&pp.got_cpu);
    return pp.failed;
}

static void check_pyramids(const engines *en, int quick, int large, stats *st)
{
    static const pyr_case cases[] = {
        {"db2", 1, 1, 1, 0},       {"haar", 3, 5, 1, 1},       {"db2", 37, 29, 3, 2},
        {"legall53", 37, 29, 3, 2}, {"db1", 64, 48, 2, 3},      {"legall53", 1, 7, 1, 1},
        {"cdf97", 257, 300, 1, 4},  {"legall53", 300, 257, 4, 5}, {"db3", 2, 2, 2, 1},
    };
    static const pyr_case big[] = {{"db2", 1080, 1920, 3, 5}, {"legall53", 2160, 3840, 1, 8}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (quick && i % 2)
            continue;
        st->pyr_cases++;
        st->pyr_failed += run_pyr_case(en, &cases[i], st->seed);
    }
    for (size_t i = 0; large && !quick && i < sizeof big / sizeof *big; i++) {
        st->pyr_cases++;
        st->pyr_failed += run_pyr_case(en, &big[i], st->seed);
    }
}

/* ---------------------------------------------------------------------- */
/* Undecimated transforms (wt_uforward / wt_uinverse): SWT and starlet, GPU
 * against CPU on the same random planes and random band stacks (inverse as
 * an operator, as for the DWT), outputs pre-filled with the canary. */

typedef struct ucase {
    const char *transform, *wavelet;
    size_t h, w;
    int channels, levels, start_level, norm, all_approx;
    wt_border border;
} ucase;

static void ucase_name(const ucase *c, int inverse, char *buf, size_t size)
{
    snprintf(buf, size, "%s %s %s %zux%zu C=%d L=%d start=%d norm=%d all=%d border=%s",
             c->transform, c->wavelet, inverse ? "inverse" : "forward", c->h, c->w, c->channels,
             c->levels, c->start_level, c->norm, c->all_approx, wt_border_name(c->border));
}

/* One direction of one case; 0 pass, 1 fail. */
/* max |v| over n floats */
static double max_abs_f32(const float *v, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs((double)v[i]));
    return m;
}

static int run_ucase(const engines *en, const ucase *c, int inverse, stats *st)
{
    char name[200];
    ucase_name(c, inverse, name, sizeof name);
    wt_uparams p = {WT_TRANSFORM_SWT, wt_wavelet_find(c->wavelet), c->levels, c->start_level,
                    c->norm, c->all_approx, c->border};
    wt_transform_parse(c->transform, &p.transform);
    const size_t plane = c->h * c->w * (size_t)c->channels;
    const size_t stack = plane * (size_t)wt_ustack_bands(&p);
    const size_t nin = inverse ? stack : plane, nout = inverse ? plane : stack;
    float *in = malloc(nin * sizeof *in), *ref = malloc(nout * sizeof *ref),
          *got = malloc(nout * sizeof *got);
    rng_seed(case_seed(st->seed, name));
    wt_status s1 = WT_ERR_NOMEM, s2 = WT_ERR_NOMEM;
    if (in && ref && got) {
        random_planes(in, nin, 0, NULL);
        fill_canary(got, nout);
        s1 = inverse ? wt_uinverse(en->cpu, &p, in, c->h, c->w, c->channels, ref)
                     : wt_uforward(en->cpu, &p, in, c->h, c->w, c->channels, ref);
        s2 = inverse ? wt_uinverse(en->gpu, &p, in, c->h, c->w, c->channels, got)
                     : wt_uforward(en->gpu, &p, in, c->h, c->w, c->channels, got);
    }
    double big = 0.0, err = s1 == WT_OK && s2 == WT_OK
                                ? relative_error(ref, got, nout, 0, &big)
                                : INFINITY;
    /* An inverse of random bands (not a transform's output) sums terms that
     * cancel: on tiny images its output can be far smaller than its inputs,
     * and float rounding is relative to those. Scale by the larger of the two
     * (1x1, L=5: 3e-5 of the output, 1e-7 of the inputs). */
    double in_big = inverse ? max_abs_f32(in, nin) : 0.0;
    if (isfinite(err) && in_big > big) {
        err = (big > 0.0 ? err * big : err) / in_big;
        big = in_big;
    }
    int fail = !(err <= TOLERANCE);
    if (err > st->u_worst || (err == 0.0 && !st->u_worst_name[0])) {
        st->u_worst = err;
        snprintf(st->u_worst_name, sizeof st->u_worst_name, "%s", name);
    }
    if (fail) {
        printf("FAIL %s: rel err %.3g (cpu %s, gpu %s); seed %llu\n", name, err,
               wt_status_name(s1), wt_status_name(s2), (unsigned long long)st->seed);
        if (s1 == WT_OK && s2 == WT_OK)
            print_map("first band/plane", ref, got, c->h, c->w, 0, TOLERANCE * big);
    } else if (st->verbose) {
        printf("ok %s (%.3g)\n", name, err);
    }
    free(in);
    free(ref);
    free(got);
    return fail;
}

static void check_undecimated(const engines *en, int quick, int large, stats *st)
{
    static const struct {
        size_t h, w;
    } shapes[] = {{1, 1}, {1, 7}, {5, 3}, {13, 17}, {37, 29}, {64, 64}, {127, 255}, {2, 300}};
    static const char *const swt_wavelets[] = {"haar", "db2", "db3", "sym4", "coif2", "bior4.4",
                                               "rbio2.2", "db16", "dmey"};
    static const int levels[] = {1, 3, 5};
    const size_t nshapes = sizeof shapes / sizeof *shapes;
    for (size_t s = 0; s < nshapes; s++)
        for (int li = 0; li < 3; li++) {
            for (size_t wi = 0; wi < sizeof swt_wavelets / sizeof *swt_wavelets; wi++) {
                if (quick && (wi % 3 != s % 3))
                    continue;
                ucase c = {"swt", swt_wavelets[wi], shapes[s].h, shapes[s].w, 1 + (int)(s % 3),
                           levels[li], 0, 0, 0, WT_BORDER_PERIODIC};
                for (int inv = 0; inv < 2; inv++) {
                    st->u_cases++;
                    st->u_failed += run_ucase(en, &c, inv, st);
                }
            }
            for (int b = 0; b < 3; b++) {
                ucase c = {"starlet", "haar", shapes[s].h, shapes[s].w, 1 + (int)((s + 1) % 4),
                           levels[li] + 1, 0, 0, 0, (wt_border)b};
                for (int inv = 0; inv < 2; inv++) {
                    st->u_cases++;
                    st->u_failed += run_ucase(en, &c, inv, st);
                }
            }
        }
    /* pywt's options: norm, start_level, all_approx */
    static const ucase extra[] = {
        {"swt", "db2", 64, 48, 1, 3, 0, 1, 0, WT_BORDER_PERIODIC},
        {"swt", "sym3", 24, 40, 3, 2, 1, 0, 0, WT_BORDER_PERIODIC},
        {"swt", "db3", 33, 21, 2, 3, 0, 0, 1, WT_BORDER_PERIODIC},
        {"swt", "bior2.2", 16, 16, 4, 4, 2, 1, 1, WT_BORDER_PERIODIC},
    };
    for (size_t i = 0; i < sizeof extra / sizeof *extra; i++)
        for (int inv = 0; inv < 2; inv++) {
            st->u_cases++;
            st->u_failed += run_ucase(en, &extra[i], inv, st);
        }
    /* large: several blocks in both directions, levels whose taps span tiles */
    static const ucase big[] = {
        {"swt", "db3", 1023, 2047, 3, 3, 0, 0, 0, WT_BORDER_PERIODIC},
        {"swt", "sym8", 2048, 1536, 1, 5, 0, 1, 0, WT_BORDER_PERIODIC},
        {"starlet", "haar", 1537, 1025, 3, 6, 0, 0, 0, WT_BORDER_MIRROR},
        {"starlet", "haar", 2048, 2048, 1, 5, 0, 0, 0, WT_BORDER_NEAREST},
    };
    for (size_t i = 0; large && !quick && i < sizeof big / sizeof *big; i++)
        for (int inv = 0; inv < 2; inv++) {
            st->u_cases++;
            st->u_failed += run_ucase(en, &big[i], inv, st);
        }
}

/* ---------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f, "usage: gpu_check [--seed N] [--quick] [--wavelet NAME] [--mode NAME] [--no-large] "
               "[--images-only] [--pyramids-only] [--undecimated-only] [-v]\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"seed", required_argument, NULL, 's'},  {"quick", no_argument, NULL, 'q'},
        {"wavelet", required_argument, NULL, 'w'}, {"mode", required_argument, NULL, 'm'},
        {"no-large", no_argument, NULL, 'n'},
        {"images-only", no_argument, NULL, 'i'},
        {"pyramids-only", no_argument, NULL, 'p'},
        {"undecimated-only", no_argument, NULL, 'u'},
        {"verbose", no_argument, NULL, 'v'},     {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    stats st = {0};
    st.seed = (uint64_t)time(NULL);
    int quick = 0, large = 1, only_mode = -1, images_only = 0, pyramids_only = 0, opt;
    int undecimated_only = 0;
    wt_mode mode;
    const char *only = NULL;
    while ((opt = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
        char *end;
        switch (opt) {
        case 's':
            st.seed = strtoull(optarg, &end, 10);
            if (*end || !*optarg) {
                fprintf(stderr, "gpu_check: invalid seed '%s'\n", optarg);
                return 2;
            }
            break;
        case 'q': quick = 1; break;
        case 'w': only = optarg; break;
        case 'n': large = 0; break;
        case 'i': images_only = 1; break;
        case 'p': pyramids_only = 1; break;
        case 'u': undecimated_only = images_only = pyramids_only = 1; break;
        case 'm':
            if (wt_mode_parse(optarg, &mode) != WT_OK) {
                fprintf(stderr, "gpu_check: %s\n", wt_error_message());
                return 2;
            }
            only_mode = (int)mode;
            break;
        case 'v': st.verbose = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (only && !wt_wavelet_find(only)) {
        fprintf(stderr, "gpu_check: unknown wavelet '%s'\n", only);
        return 2;
    }
    engines en;
    if (wt_engine_open(&en.gpu, "cuda") != WT_OK) {
        if (wt_gpu_count() > 0) { /* a GPU this build cannot use (no code for it) */
            printf("gpu_check: FAIL, %d GPU(s) but no CUDA engine: %s\n", wt_gpu_count(),
                   wt_error_message());
            return 1;
        }
        printf("gpu_check: SKIP, no CUDA engine: %s\n", wt_error_message());
        return 77;
    }
    if (wt_engine_open(&en.cpu, "cpu") != WT_OK) {
        fprintf(stderr, "gpu_check: %s\n", wt_error_message());
        return 1;
    }
    printf("gpu_check: %s vs %s, seed %llu%s; pass: max|gpu-cpu|/max|cpu| <= %g "
           "(smooth, antireflect: %g), legall53 identical\n",
           wt_engine_name(en.gpu), wt_engine_name(en.cpu), (unsigned long long)st.seed,
           quick ? " (quick)" : "", TOLERANCE, TOLERANCE_EXTRAPOLATING);
    fflush(stdout);
    double t0 = wt_seconds();
    if (!images_only && !pyramids_only) {
        check_all_small(&en, only, only_mode, quick, &st);
        check_int_ranges(&en, only, only_mode, &st);
        if (only_mode < 0)
            check_replays(&en, only, &st);
    }
    double t1 = wt_seconds();
    if (large && !quick && !images_only && !pyramids_only)
        check_large(&en, only, &st);
    double t2 = wt_seconds();
    if (only_mode < 0 && !pyramids_only) {
        check_images(&en, only, quick, large, &st);
        if (!only)
            check_float_images(&en, &st);
        if (!only)
            check_oom(&st);
    }
    double t3 = wt_seconds();
    if (!only && only_mode < 0 && !images_only && !undecimated_only)
        check_pyramids(&en, quick, large, &st);
    double t4 = wt_seconds();
    if (!only && only_mode < 0 && (!images_only || undecimated_only))
        check_undecimated(&en, quick, large, &st);
    double t5 = wt_seconds();
    if (st.failed >= MAX_FAILURES)
        printf("gpu_check: stopped after %d failures\n", MAX_FAILURES);
    printf("gpu_check: worst rel err %.3g (%s); smooth/antireflect %.3g (%s)\n", st.worst[0],
           st.worst_name[0][0] ? st.worst_name[0] : "-", st.worst[1],
           st.worst_name[1][0] ? st.worst_name[1] : "-");
    printf("gpu_check: %ld cases, %ld failed; small %.1f s, large %.1f s; seed %llu\n", st.cases,
           st.failed, t1 - t0, t2 - t1, (unsigned long long)st.seed);
    printf("gpu_check: image paths: %ld cases, %ld failed (%.1f s); mosaic samples differing "
           "from the render of the GPU pyramid: %ld; from the CPU mosaic: %ld (max %d LSB 8-bit, "
           "%d LSB 16-bit where the pyramid tolerance is under 1 LSB); inverse/roundtrip samples on a .5 boundary: %ld\n",
           st.img_cases, st.img_failed, t3 - t2, st.mosaic_own_diff, st.mosaic_cpu_diff,
           st.mosaic_cpu_lsb[0], st.mosaic_cpu_lsb[1], st.round_diff);
    printf("gpu_check: engine-resident pyramids: %ld cases, %ld failed (%.1f s)\n", st.pyr_cases,
           st.pyr_failed, t4 - t3);
    printf("gpu_check: undecimated (swt, starlet): %ld cases, %ld failed (%.1f s); worst rel "
           "err %.3g (%s)\n",
           st.u_cases, st.u_failed, t5 - t4, st.u_worst,
           st.u_worst_name[0] ? st.u_worst_name : "-");
    wt_engine_close(en.gpu);
    wt_engine_close(en.cpu);
    return st.failed || st.img_failed || st.pyr_failed || st.u_failed ? 1 : 0;
}
