/* gpu_check: denoise's noise estimate on the GPU (harness and shared
 * declarations: gpu_check.c, gpu_check.h). */
#include "gpu_check.h"

/* ---------------------------------------------------------------------- */
/* The engine's noise estimate (scikit-image's, float64 in PyWavelets'
 * order) against the host's (wt_denoise_estimate: wt_noise_sigma_image of
 * each cycle-spin shift, what the CLI hands the CPU engine) bit for bit: random and
 * integer images of every sample type, odd, tiny and below-filter sizes,
 * several wavelets, cycle-spin shifts, constant images (NaN on both). The
 * rolled samples go through the engine's cycle spinning
 * (wt_denoise_engine_sigma); the unshifted ones through wt_denoise_image
 * too (the samples of the image path's forward). */

typedef struct noise_case {
    const char *wavelet;
    size_t h, w;
    int channels, depth; /* 8, 16 or WT_DEPTH_F32 */
    int fill;            /* noise_fill */
} noise_case;

enum noise_fill { FILL_RANDOM, FILL_SMOOTH, FILL_CONSTANT };

static double peak_of_depth(int depth)
{
    return depth == WT_DEPTH_F32 ? 1.0 : depth > 8 ? 65535.0 : 255.0;
}

/* Sample i of a @p c image: random over the range, a smooth ramp with a
 * little noise (many ties of |c|), or one value. */
static double noise_sample(const noise_case *c, size_t i)
{
    double peak = peak_of_depth(c->depth);
    uint32_t r = rng_next();
    switch (c->fill) {
    case FILL_RANDOM:
        return c->depth == WT_DEPTH_F32 ? (double)rng_sample() : (double)(r % (uint32_t)(peak + 1));
    case FILL_SMOOTH:
        return floor((double)(i % 97) * peak / 200.0) + (double)(r % 3);
    default: return c->depth == WT_DEPTH_F32 ? 0.25 : floor(peak / 3.0);
    }
}

static void noise_image(const noise_case *c, wt_image *img)
{
    size_t all = c->h * c->w * (size_t)c->channels;
    for (size_t i = 0; i < all; i++) {
        double v = noise_sample(c, i);
        if (c->depth == WT_DEPTH_F32)
            ((float *)img->pixels)[i] = (float)v;
        else if (c->depth > 8)
            ((uint16_t *)img->pixels)[i] = (uint16_t)v;
        else
            ((uint8_t *)img->pixels)[i] = (uint8_t)v;
    }
}

/* The same double, or NaN on both sides. */
static int same_sigma(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static int noise_fail(const char *name, const char *what)
{
    printf("FAIL noise estimate %s: %s\n", name, what);
    return 1;
}

/* Channels of the engine's sigma @p got against the host's @p want. */
static int compare_sigma(const char *name, const char *what, const double *want,
                         const double *got, int channels)
{
    for (int k = 0; k < channels; k++)
        if (!same_sigma(want[k], got[k])) {
            char msg[256];
            snprintf(msg, sizeof msg, "%s: channel %d host %.17g, engine %.17g", what, k,
                     want[k], got[k]);
            return noise_fail(name, msg);
        }
    return 0;
}

enum { MOST_SHIFT = 3 };

/* The host's estimates of @p img rolled by each (dy, dx) in 0..MOST_SHIFT,
 * in sample units: 4 per shift, dy-major (wt_denoise_estimate). */
static wt_status host_sigmas(const wt_denoise_options *o, const wt_image *img, double *sigma)
{
    wt_denoise_options spun = *o;
    spun.cycle_spin = MOST_SHIFT;
    return wt_denoise_estimate(&spun, img, 2, sigma);
}

/* wt_denoise_image's sigma on the GPU (its image path) against the host's. */
static int check_denoise_sigma(const engines *en, const wt_denoise_options *o,
                               const wt_image *img, const double *want, const char *name)
{
    wt_image out;
    wt_denoise_info info;
    if (wt_image_alloc(&out, img->width, img->height, img->channels, img->bit_depth) != WT_OK)
        return noise_fail(name, "out of memory");
    wt_status st = wt_denoise_image(en->gpu, o, img, &out, &info);
    wt_image_free(&out);
    if (st != WT_OK)
        return noise_fail(name, wt_error_message());
    double got[4];
    for (int k = 0; k < img->channels; k++) /* NaN: the engine's own float estimate ran */
        got[k] = isnan(want[k]) ? NAN : info.sigma[k];
    return compare_sigma(name, "denoise", want, got, img->channels);
}

static int run_noise_case(const engines *en, const noise_case *c, uint64_t seed)
{
    static const size_t shifts[][2] = {{0, 0}, {1, 2}, {MOST_SHIFT, 1}, {2, MOST_SHIFT}};
    double host[4 * (MOST_SHIFT + 1) * (MOST_SHIFT + 1)];
    char name[160];
    snprintf(name, sizeof name, "%s %zux%zu c%d %s %s", c->wavelet, c->h, c->w, c->channels,
             c->depth == WT_DEPTH_F32 ? "f32" : c->depth > 8 ? "u16" : "u8",
             c->fill == FILL_RANDOM ? "random" : c->fill == FILL_SMOOTH ? "smooth" : "constant");
    rng_seed(case_seed(seed, name));
    wt_denoise_options o;
    wt_denoise_defaults(&o);
    o.params.wavelet = wt_wavelet_find(c->wavelet);
    wt_image img;
    if (wt_image_alloc(&img, (uint32_t)c->w, (uint32_t)c->h, c->channels, c->depth) != WT_OK)
        return noise_fail(name, "out of memory");
    noise_image(c, &img);
    if (!wt_denoise_estimates_on_engine(en->gpu, &o, &img)) {
        wt_image_free(&img);
        return noise_fail(name, "the GPU engine makes no noise estimate");
    }
    int failed = host_sigmas(&o, &img, host) != WT_OK ? noise_fail(name, wt_error_message()) : 0;
    for (size_t s = 0; !failed && s < sizeof shifts / sizeof shifts[0]; s++) {
        double got[4], *want = host + 4 * (shifts[s][0] * (MOST_SHIFT + 1) + shifts[s][1]);
        char what[64];
        snprintf(what, sizeof what, "shift (%zu, %zu)", shifts[s][0], shifts[s][1]);
        wt_status st = wt_denoise_engine_sigma(en->gpu, &o, &img, shifts[s][0], shifts[s][1], got);
        failed = st != WT_OK ? noise_fail(name, wt_error_message())
                             : compare_sigma(name, what, want, got, c->channels);
        if (!failed && s == 0)
            failed = check_denoise_sigma(en, &o, &img, want, name);
    }
    wt_image_free(&img);
    return failed;
}

/* A denoise on a CUDA engine capped at @p cap bytes (WT_CUDA_MEM_LIMIT),
 * the estimate on the host when @p host (WT_DENOISE_HOST_ESTIMATE=1). */
static wt_status denoise_capped(const char *cap, int host, const wt_denoise_options *o,
                                const wt_image *img, wt_image *out, wt_denoise_info *info)
{
    wt_env_knobs *knobs = wt_env_override();
    const char *was_cap = knobs->cuda_mem_limit, *was_host = knobs->denoise_host_estimate;
    wt_engine *e = NULL;
    knobs->cuda_mem_limit = cap;
    wt_status st = wt_engine_open(&e, "cuda");
    knobs->cuda_mem_limit = was_cap;
    knobs->denoise_host_estimate = host ? "1" : NULL;
    if (st == WT_OK)
        st = wt_denoise_image(e, o, img, out, info);
    knobs->denoise_host_estimate = was_host;
    wt_engine_close(e);
    return st;
}

/* A GPU with too little memory for the estimate's work space: whatever
 * denoises with the host's estimate denoises with the engine's too (it falls
 * back to the host's), with the same sigma. */
static int check_noise_memory(void)
{
    static const char *caps[] = {"400K", "500K", "600K", "700K", "800K", "900K",
                                 "1M",   "1200K", "1400K", "1700K", "2M"};
    noise_case c = {"db2", 200, 160, 1, 8, FILL_RANDOM};
    wt_image img, out;
    wt_denoise_options o;
    wt_denoise_defaults(&o);
    o.params.wavelet = wt_wavelet_find(c.wavelet);
    if (wt_image_alloc(&img, (uint32_t)c.w, (uint32_t)c.h, 1, 8) != WT_OK ||
        wt_image_alloc(&out, (uint32_t)c.w, (uint32_t)c.h, 1, 8) != WT_OK)
        return noise_fail("memory", "out of memory");
    rng_seed(7);
    noise_image(&c, &img);
    int failed = 0;
    for (size_t i = 0; !failed && i < sizeof caps / sizeof caps[0]; i++) {
        wt_denoise_info a, b;
        wt_status host = denoise_capped(caps[i], 1, &o, &img, &out, &a);
        wt_status dev = denoise_capped(caps[i], 0, &o, &img, &out, &b);
        char name[64];
        snprintf(name, sizeof name, "WT_CUDA_MEM_LIMIT=%s", caps[i]);
        if (host == WT_OK && dev != WT_OK)
            failed = noise_fail(name, wt_error_message());
        else if (host == WT_OK)
            failed = compare_sigma(name, "denoise", a.sigma, b.sigma, 1);
    }
    wt_image_free(&img);
    wt_image_free(&out);
    return failed;
}

void check_noise(const engines *en, int quick, stats *st)
{
    static const char *wavelets[] = {"db1", "db2", "db4", "sym5", "coif2", "bior2.2",
                                     "rbio3.3", "db10", "dmey"};
    static const size_t sizes[][2] = {{1, 1},  {1, 9},   {9, 1},   {2, 2},   {3, 5},
                                      {5, 3},  {7, 11},  {16, 16}, {17, 13}, {40, 33},
                                      {64, 48}};
    static const int depths[] = {8, 16, WT_DEPTH_F32};
    size_t nw = sizeof wavelets / sizeof wavelets[0], ns = sizeof sizes / sizeof sizes[0];
    for (size_t wi = 0; wi < nw && st->n_failed < MAX_FAILURES; wi++)
        for (size_t si = 0; si < ns; si += quick ? 3 : 1)
            for (int di = 0; di < 3; di++)
                for (int fill = FILL_RANDOM; fill <= FILL_CONSTANT; fill++) {
                    if (fill == FILL_CONSTANT && si % 4 != 0)
                        continue;
                    noise_case c = {wavelets[wi], sizes[si][0], sizes[si][1],
                                    (si + (size_t)fill) % 2 ? 3 : 1, depths[di], fill};
                    st->n_cases++;
                    st->n_failed += run_noise_case(en, &c, st->seed);
                }
    st->n_cases++;
    st->n_failed += check_noise_memory();
}
