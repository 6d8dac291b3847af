/* gpu_check: engine-resident pyramids (harness and shared declarations:
 * gpu_check.c, gpu_check.h). */
#include "gpu_check.h"

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

void check_pyramids(const engines *en, int quick, int large, stats *st)
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
