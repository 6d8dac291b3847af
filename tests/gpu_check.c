/* GPU-vs-CPU gate, in the manner of dav1d's checkasm: every wavelet, mode
 * and method, forward and inverse, on seeded random data of many shapes,
 * through the "cuda" engine and the CPU reference engine; GPU outputs are
 * pre-filled with a canary (NaN) so unwritten elements show.
 *
 * Pass: max|gpu - cpu| / max|cpu| <= 1e-5 over the whole output (float32),
 * identical for legall53 (int32). On failure: the case, the seed and a map
 * of the differing positions of the worst band.
 *
 *   gpu_check [--seed N] [--quick] [--wavelet NAME] [--mode NAME] [--no-large] [-v]
 *
 * Exit: 0 all passed, 1 a case failed, 77 no CUDA engine (skip), 2 usage. */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wavetool.h"

#define TOLERANCE 1e-5
/* smooth and antireflect extrapolate: near the borders of small images and
 * with long filters coefficients grow 100-1000x and cancel. The CPU engine
 * (float internals) extends its float y-pass results along x, which
 * amplifies their rounding up to 60x: its own error there reaches 5e-5 of
 * max|cpu| (seen in emulation), while the GPU, which accumulates these modes
 * in double, stays within 5e-6 of a double-precision CPU build
 * (cuda/NOTES.md). With the CPU engine back in double, 1e-5 would hold. */
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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---------------------------------------------------------------------- */
/* Cases and results */

typedef struct check_case {
    const wt_wavelet *wavelet;
    wt_mode mode;
    wt_method method;
    size_t h, w;
    int channels, levels, inverse;
} check_case;

typedef struct stats {
    long cases, failed;
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
    snprintf(buf, size, "%s %s %s %s %zux%zu C=%d L=%d", c->wavelet->name,
             wt_mode_name(c->mode), wt_method_name(c->method), c->inverse ? "inverse" : "forward",
             c->h, c->w, c->channels, c->levels);
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

static void random_planes(float *x, size_t n, int integer)
{
    for (size_t i = 0; i < n; i++)
        x[i] = integer ? (float)rng_int(255) : rng_sample();
}

/* Coefficients of an inverse case: random, every band (as checkasm feeds
 * each function random input). Pyramids of smooth/antireflect decompositions
 * hold extrapolated coefficients up to 1e6 that cancel in the reconstruction;
 * the CPU engine's float rounding alone then exceeds a relative 1e-5, so
 * they make no test of the GPU. */
static void random_pyramid(wt_pyramid *p)
{
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
        random_planes(x, n, integer);
        fill_canary(got.data, got.total);
        s = wt_forward(en->cpu, &p, x, &ref);
        if (s == WT_OK)
            s = wt_forward(en->gpu, &p, x, &got);
        out_ref = ref.data;
        out_got = got.data;
        out_n = ref.total;
    } else if (s == WT_OK) {
        random_pyramid(&ref);
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

/* Every combination on small shapes with levels 0, 1, max, max + 1. */
static void check_combination(const engines *en, const wt_wavelet *w, wt_mode mode,
                              wt_method method, int quick, stats *st)
{
    check_case c = {w, mode, method, 0, 0, 1, 0, 0};
    for (size_t s = 0; s < N_SMALL; s++) {
        if (quick && (s % 3) != 0)
            continue;
        c.h = small_shapes[s].h;
        c.w = small_shapes[s].w;
        c.channels = s == 0 ? 4 : 1 + (int)(s % 3); /* 1x1: one sample could cancel to ~0 */
        int maxl = wt_max_level(c.h, c.w, w);
        int levels[4] = {1, maxl, maxl + 1, s == 0 ? 0 : -1};
        for (int k = 0; k < 4; k++) {
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
        {"db3", WT_MODE_SYMMETRIC, WT_METHOD_CONV, 128, 128, 64, 3},
    };
    wt_engine_set_threads(en->cpu, 0);
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        if (only && strcmp(only, big[i].wavelet) != 0)
            continue;
        check_case c = {wt_wavelet_find(big[i].wavelet), big[i].mode, big[i].method, big[i].h,
                        big[i].w, big[i].channels, big[i].levels, 0};
        for (c.inverse = 0; c.inverse < 2; c.inverse++)
            run_case(en, &c, st);
    }
}

/* ---------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f, "usage: gpu_check [--seed N] [--quick] [--wavelet NAME] [--mode NAME] [--no-large] "
               "[-v]\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"seed", required_argument, NULL, 's'},  {"quick", no_argument, NULL, 'q'},
        {"wavelet", required_argument, NULL, 'w'}, {"mode", required_argument, NULL, 'm'},
        {"no-large", no_argument, NULL, 'n'},
        {"verbose", no_argument, NULL, 'v'},     {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    stats st = {0};
    st.seed = (uint64_t)time(NULL);
    int quick = 0, large = 1, only_mode = -1, opt;
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
    double t0 = now_s();
    check_all_small(&en, only, only_mode, quick, &st);
    double t1 = now_s();
    if (large && !quick)
        check_large(&en, only, &st);
    double t2 = now_s();
    if (st.failed >= MAX_FAILURES)
        printf("gpu_check: stopped after %d failures\n", MAX_FAILURES);
    printf("gpu_check: worst rel err %.3g (%s); smooth/antireflect %.3g (%s)\n", st.worst[0],
           st.worst_name[0][0] ? st.worst_name[0] : "-", st.worst[1],
           st.worst_name[1][0] ? st.worst_name[1] : "-");
    printf("gpu_check: %ld cases, %ld failed; small %.1f s, large %.1f s; seed %llu\n", st.cases,
           st.failed, t1 - t0, t2 - t1, (unsigned long long)st.seed);
    wt_engine_close(en.gpu);
    wt_engine_close(en.cpu);
    return st.failed ? 1 : 0;
}
