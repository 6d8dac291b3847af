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
 *             [--images-only] [--pyramids-only] [--undecimated-only] [--volumes-only]
 *             [-v]
 *
 * Undecimated transforms (SWT, starlet): check_undecimated(), odd, tiny and
 * large sizes, several wavelets, borders and pywt's options.
 * Wavelet packets: check_packets(), every node of full trees, rebuilt from
 * the full tree and the best basis (gpu_check_packet.c).
 *
 * Exit: 0 all passed, 1 a case failed (or a GPU the engine cannot use), 77 no
 * CUDA device (skip), 2 usage. */
#include <getopt.h>
#include <time.h>

#include "gpu_check.h"

/* ---------------------------------------------------------------------- */
/* Random numbers: xorshift64*, seeded per case so a case replays alone. */

static uint64_t rng_state;

void rng_seed(uint64_t seed)
{
    rng_state = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (!rng_state)
        rng_state = 1;
}

uint32_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

/* uniform in [-128, 128) */
float rng_sample(void)
{
    return (float)(rng_next() >> 8) * (1.0f / 65536.0f) - 128.0f;
}

int32_t rng_int(int32_t span)
{
    return (int32_t)(rng_next() % (uint32_t)(2 * span + 1)) - span;
}

/* uniform in [-span, span] for any span of int32 */
static int32_t rng_wide(int32_t span)
{
    return (int32_t)((int64_t)(rng_next() % (2 * (uint64_t)span + 1)) - span);
}

double tolerance(const check_case *c)
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

void fill_canary(void *data, size_t n)
{
    uint32_t *d = data;
    for (size_t i = 0; i < n; i++)
        d[i] = CANARY_BITS;
}

/* Is element i of the outputs wrong? */
int differs(const void *ref, const void *got, size_t i, int integer, double tol)
{
    if (integer)
        return ((const int32_t *)ref)[i] != ((const int32_t *)got)[i];
    double r = ((const float *)ref)[i], g = ((const float *)got)[i];
    return isnan(g) || fabs(g - r) > tol;
}

/* max|got - ref| / max|ref| (infinite when got has a NaN); integers: 0 or 1. */
double relative_error(const void *ref, const void *got, size_t n, int integer,
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
void print_map(const char *label, const void *ref, const void *got, size_t rows,
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
void report_pyramid(const wt_pyramid *ref, const wt_pyramid *got, double tol)
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

/* +-1 in a checkerboard over rows of w values */
static int checker_sign(size_t i, size_t w)
{
    return ((i / w + i % w) & 1) ? -1 : 1;
}

void random_planes(float *x, size_t n, int integer, const check_case *c)
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

uint64_t case_seed(uint64_t seed, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *s = name; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return seed ^ h;
}

/* Returns 0 pass, 1 fail. */
int run_case(const engines *en, const check_case *c, stats *st)
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

static void usage(FILE *f)
{
    fprintf(f, "usage: gpu_check [--seed N] [--quick] [--wavelet NAME] [--mode NAME] [--no-large] "
               "[--images-only] [--pyramids-only] [--undecimated-only] [--packets-only] "
               "[--volumes-only] [--noise-only] [-v]\n");
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
        {"packets-only", no_argument, NULL, 'k'},
        {"volumes-only", no_argument, NULL, 'V'},
        {"noise-only", no_argument, NULL, 'e'},
        {"verbose", no_argument, NULL, 'v'},     {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    stats st = {0};
    st.seed = (uint64_t)time(NULL);
    int quick = 0, large = 1, only_mode = -1, images_only = 0, pyramids_only = 0, opt;
    int undecimated_only = 0, packets_only = 0, volumes_only = 0, noise_only = 0;
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
        case 'k': packets_only = images_only = pyramids_only = 1; break;
        case 'V': volumes_only = 1; break;
        case 'e': noise_only = images_only = pyramids_only = 1; break;
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
    if (!images_only && !pyramids_only && !volumes_only) {
        check_all_small(&en, only, only_mode, quick, &st);
        check_int_ranges(&en, only, only_mode, &st);
        if (only_mode < 0)
            check_replays(&en, only, &st);
        if (only_mode < 0 && !only)
            check_policies(&en, quick, 0, &st);
    }
    double t1 = wt_seconds();
    if (large && !quick && !images_only && !pyramids_only && !volumes_only)
        check_large(&en, only, &st);
    double t2 = wt_seconds();
    if (only_mode < 0 && !pyramids_only && !volumes_only) {
        check_images(&en, only, quick, large, &st);
        if (!only)
            check_float_images(&en, &st);
        if (!only)
            check_oom(&st);
    }
    double t3 = wt_seconds();
    if (!only && only_mode < 0 && !images_only && !undecimated_only && !volumes_only)
        check_pyramids(&en, quick, large, &st);
    double t4 = wt_seconds();
    if (!only && only_mode < 0 && (!images_only || undecimated_only) && !packets_only &&
        !volumes_only)
        check_undecimated(&en, quick, large, &st);
    double t5 = wt_seconds();
    if (!only && only_mode < 0 && ((!images_only && !undecimated_only) || packets_only) &&
        !volumes_only)
        check_packets(&en, quick, &st);
    double t6 = wt_seconds();
    if ((!only && only_mode < 0 && !images_only && !undecimated_only && !packets_only) ||
        volumes_only) {
        check_volumes(&en, quick, &st);
        if (volumes_only) /* the full run has them in check_policies */
            check_policies(&en, quick, 1, &st);
    }
    double t7 = wt_seconds();
    if ((!only && only_mode < 0 && !images_only && !undecimated_only && !packets_only) ||
        volumes_only) {
        check_volumes_streamed(&en, quick, &st);
        check_volume_oom(&st);
    }
    double t8 = wt_seconds();
    if ((!only && only_mode < 0 && !images_only && !undecimated_only && !packets_only &&
         !volumes_only) ||
        noise_only)
        check_noise(&en, quick, &st);
    double t9 = wt_seconds();
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
    printf("gpu_check: wavelet packets: %ld cases, %ld failed (%.1f s); worst rel err %.3g (%s); "
           "device best bases differing at a near tie: %ld\n",
           st.p_cases, st.p_failed, t6 - t5, st.p_worst, st.p_worst_name[0] ? st.p_worst_name : "-",
           st.p_ties);
    printf("gpu_check: volumes (dwt): %ld cases, %ld failed (%.1f s); worst rel err %.3g (%s)\n",
           st.v_cases, st.v_failed, t7 - t6, st.v_worst, st.v_worst_name[0] ? st.v_worst_name : "-");
    printf("gpu_check: volumes (streamed): %ld cases, %ld failed (%.1f s); worst rel err %.3g "
           "(%s)\n",
           st.vs_cases, st.vs_failed, t8 - t7, st.vs_worst,
           st.vs_worst_name[0] ? st.vs_worst_name : "-");
    printf("gpu_check: denoise's noise estimate, bit for bit: %ld cases, %ld failed (%.1f s)\n",
           st.n_cases, st.n_failed, t9 - t8);
    wt_engine_close(en.gpu);
    wt_engine_close(en.cpu);
    return st.failed || st.img_failed || st.pyr_failed || st.u_failed || st.p_failed ||
                   st.v_failed || st.vs_failed || st.n_failed
               ? 1
               : 0;
}
