/* gpu_check: the DWT pyramid cases (small shapes, integer ranges, replays,
 * large) (harness and shared declarations: gpu_check.c, gpu_check.h). */
#include "gpu_check.h"

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

void check_all_small(const engines *en, const char *only, int only_mode, int quick,
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
void check_int_ranges(const engines *en, const char *only, int only_mode, stats *st)
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
void check_replays(const engines *en, const char *only, stats *st)
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
void check_large(const engines *en, const char *only, stats *st)
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
