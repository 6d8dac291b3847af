/* gpu_check: volumes (harness and shared declarations: gpu_check.c,
 * gpu_check.h). The DWT of (C, z, y, x) arrays (wt_volume_forward_on /
 * wt_volume_inverse_on), GPU against CPU on the same random volumes and
 * random bands (the inverse as an operator), by convolution and lifting
 * (legall53: integers, identical), along every subset of axes the cases
 * rotate through (all three in two orders: the level kernels (one a
 * level, walking z), whose tiles the sizes cut in several places, 40x72x140 with tiles inside
 * the volume; and under launch policies, check_volume_policy_cases); the
 * GPU's outputs pre-filled
 * with the canary. "volumes (streamed)": the same on an engine whose
 * memory WT_CUDA_MEM_LIMIT makes too small for the volumes, so that their
 * first levels stream through it in slabs (cu_volume_stream.cu); a volume
 * of which not even one plane fits fails with WT_ERR_DEVICE_NOMEM, one
 * line naming it (check_volume_oom). */
#include "gpu_check.h"

typedef struct vcase {
    const char *wavelet;
    wt_mode mode;
    wt_method method;
    size_t shape[3]; /* z, y, x */
    int channels, levels, naxes, axes[3];
    wt_transform transform; /* DWT (0) unless said */
    int start_level, norm, all_approx; /* SWT */
    wt_border border;                  /* starlet */
} vcase;

static void vcase_name(const vcase *c, int inverse, char *buf, size_t size)
{
    int n = c->transform == WT_TRANSFORM_DWT
                ? snprintf(buf, size, "volume %s %s %s", c->wavelet, wt_mode_name(c->mode),
                           wt_method_name(c->method))
                : snprintf(buf, size, "volume %s %s start=%d norm=%d approx=%d border=%s",
                           c->transform == WT_TRANSFORM_SWT ? "swt" : "starlet",
                           c->wavelet ? c->wavelet : "-", c->start_level, c->norm,
                           c->all_approx, wt_border_name(c->border));
    n += snprintf(buf + n, size - (size_t)n, " %s %zux%zux%zu C=%d L=%d axes=",
                  inverse ? "inverse" : "forward", c->shape[0], c->shape[1], c->shape[2],
                  c->channels, c->levels);
    for (int k = 0; k < c->naxes && n > 0 && (size_t)n < size; k++)
        n += snprintf(buf + n, size - (size_t)n, k ? ",%d" : "%d", c->axes[k]);
}

static wt_volume_spec spec_of(const vcase *c)
{
    wt_volume_spec s;
    memset(&s, 0, sizeof s);
    s.transform = c->transform;
    s.params.wavelet = c->wavelet ? wt_wavelet_find(c->wavelet) : NULL;
    s.params.mode = c->mode;
    s.params.method = c->method;
    s.params.levels = c->levels;
    s.uparams = (wt_uparams){c->transform, s.params.wavelet, c->levels, c->start_level, c->norm,
                             c->all_approx, c->border};
    s.naxes = c->naxes;
    memcpy(s.axes, c->axes, sizeof s.axes);
    return s;
}

static int is_integer(const vcase *c)
{
    return c->transform == WT_TRANSFORM_DWT && wt_wavelet_find(c->wavelet)->integer;
}

/* Random samples: floats, or (legall53) 16-bit integers. */
static void random_samples(float *x, size_t n, int integer)
{
    for (size_t i = 0; i < n; i++)
        x[i] = integer ? (float)rng_int(65535) : rng_sample();
}

/* Random coefficients of one band (c's dtype); their max |value|. */
static double random_band(void *data, size_t n, int integer)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double v = integer ? (double)(((int32_t *)data)[i] = rng_int(1000))
                                 : (double)(((float *)data)[i] = rng_sample());
        m = fmax(m, fabs(v));
    }
    return m;
}

/* The bands of @p c one after another into @p out (n elements in all). */
static void gather_bands(const wt_vcoeffs *c, float *out)
{
    for (int i = 0; i < c->nbands; i++) {
        const wt_vband *b = &c->band[i];
        const size_t n = b->shape[0] * b->shape[1] * b->shape[2] * (size_t)c->channels;
        memcpy(out, b->data, n * sizeof *out);
        out += n;
    }
}

static double max_abs(const float *v, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs((double)v[i]));
    return m;
}

/* Both engines' outputs of one direction of @p c into @p ref and @p got
 * (@p n elements: the bands forward, the volume inverse); @p in: its input,
 * *in_big: max |input|. */
static wt_status run_engines(const engines *en, const wt_volume_spec *s, const vcase *c,
                             int inverse, size_t *n, float **ref, float **got, double *in_big)
{
    const size_t voxels = c->shape[0] * c->shape[1] * c->shape[2] * (size_t)c->channels;
    wt_vcoeffs k, kg;
    wt_status st = wt_volume_plan(s, c->shape, c->channels, &k);
    if (st != WT_OK)
        return st;
    kg = k;
    const size_t coefs = wt_vcoeffs_elems(&k);
    *n = inverse ? voxels : coefs;
    float *x = malloc(voxels * sizeof *x + 4);
    *ref = malloc(*n * sizeof **ref + 4);
    *got = malloc(*n * sizeof **got + 4);
    st = x && *ref && *got ? wt_vcoeffs_alloc(&k) : WT_ERR_NOMEM;
    if (st == WT_OK)
        st = wt_vcoeffs_alloc(&kg);
    const int integer = k.dtype == WT_INT32;
    if (st == WT_OK && !inverse) {
        random_samples(x, voxels, integer);
        *in_big = max_abs(x, voxels);
        for (int i = 0; i < kg.nbands; i++) {
            const wt_vband *b = &kg.band[i];
            fill_canary(b->data, b->shape[0] * b->shape[1] * b->shape[2] * (size_t)c->channels);
        }
        st = wt_volume_forward_into_on(en->cpu, s, x, 1, &k);
        if (st == WT_OK)
            st = wt_volume_forward_into_on(en->gpu, s, x, 1, &kg);
        if (st == WT_OK) {
            gather_bands(&k, *ref);
            gather_bands(&kg, *got);
        }
    } else if (st == WT_OK) {
        *in_big = 0.0;
        for (int i = 0; i < k.nbands; i++) {
            const wt_vband *b = &k.band[i];
            const size_t m = b->shape[0] * b->shape[1] * b->shape[2] * (size_t)c->channels;
            *in_big = fmax(*in_big, random_band(b->data, m, integer));
        }
        fill_canary(*got, voxels);
        st = wt_volume_inverse_on(en->cpu, s, &k, *ref, 1);
        if (st == WT_OK)
            st = wt_volume_inverse_on(en->gpu, s, &k, *got, 1);
    }
    wt_vcoeffs_free(&k);
    wt_vcoeffs_free(&kg);
    free(x);
    return st;
}

/* One direction of one case; 0 pass, 1 fail, -1 not a case. */
static int run_vcase(const engines *en, const vcase *c, int inverse, stats *st)
{
    char name[200];
    vcase_name(c, inverse, name, sizeof name);
    const wt_volume_spec s = spec_of(c);
    wt_params resolved = s.params;
    if (c->transform == WT_TRANSFORM_DWT && wt_params_resolve(&resolved) != WT_OK)
        return -1; /* a mode this wavelet does not take */
    if (!wt_volume_on_engine(en->gpu, &s)) {
        printf("FAIL %s: not run by the GPU engine\n", name);
        return 1;
    }
    rng_seed(case_seed(st->seed, name));
    size_t n = 0;
    float *ref = NULL, *got = NULL;
    double in_big = 0.0, big = 0.0;
    wt_status rs = run_engines(en, &s, c, inverse, &n, &ref, &got, &in_big);
    /* legall53: identical (the forward's int32 bands, the inverse's integers) */
    const int integer = is_integer(c);
    double err = rs == WT_OK ? relative_error(ref, got, n, integer && !inverse, &big) : INFINITY;
    /* random bands' inverse cancels: scale by the larger of output and input */
    if (isfinite(err) && in_big > big) {
        err = (big > 0.0 ? err * big : err) / in_big;
        big = in_big;
    }
    const double tol = integer ? 0.0
                       : c->mode == WT_MODE_SMOOTH || c->mode == WT_MODE_ANTIREFLECT
                           ? TOLERANCE_EXTRAPOLATING
                           : TOLERANCE;
    const int fail = !(err <= tol);
    if (err > st->v_worst || !st->v_worst_name[0]) {
        st->v_worst = err;
        snprintf(st->v_worst_name, sizeof st->v_worst_name, "%s", name);
    }
    if (fail)
        printf("FAIL %s: rel err %.3g (%s%s); seed %llu\n", name, err, wt_status_name(rs),
               rs == WT_OK ? "" : wt_error_message(), (unsigned long long)st->seed);
    else if (st->verbose)
        printf("ok %s (%.3g)\n", name, err);
    free(ref);
    free(got);
    return fail;
}

/* What the GPU's volume kernels have run so far (wavetool_hooks.h). */
typedef struct kernel_counts {
    long pair_levels, sweep_levels[2], lift_rows, lift_cols; /* sweeps: forward, inverse */
} kernel_counts;

static kernel_counts kernel_counts_now(void)
{
#if WT_HAVE_CUDA
    const kernel_counts k = {wt_cuda_volume_pair_levels(),
                             {wt_cuda_volume_sweep_levels(0), wt_cuda_volume_sweep_levels(1)},
                             wt_cuda_volume_lift_tiles(1), wt_cuda_volume_lift_tiles(0)};
#else /* a build without the CUDA engine (gpu_check reports no GPU) */
    const kernel_counts k = {0, {0, 0}, 0, 0};
#endif
    return k;
}

/* The forward window of @p w along an axis (cu_volume.cu's saxis_forward):
 * a filter bank's length, a JPEG 2000 kind's two centred filters' union. */
static int forward_span(const wt_wavelet *w)
{
    if (w->kind != WT_KIND_JPEG2000)
        return w->filter_len;
    const int b0 = -(w->support_lo / 2), b1 = 1 - w->support_hi / 2;
    const int e0 = b0 + w->support_lo, e1 = b1 + w->support_hi;
    return (e0 > e1 ? e0 : e1) - (b0 < b1 ? b0 : b1);
}

static int has_axis(const vcase *c, int axis)
{
    for (int k = 0; k < c->naxes; k++)
        if (c->axes[k] == axis)
            return 1;
    return 0;
}

/* Whether the GPU's kernels for @p c ran since @p before: the 2-tap level
 * kernel every level of a 2-tap filter bank by convolution along the
 * three axes (none of others), the sweep of the direction every level of a
 * forward span of 3 to 12 by convolution along the three axes (none of
 * others, and none of the other direction's), the tiled lifting kernels the lifting
 * passes along x and across (level 1's), none of them for convolutions
 * (under the default policy; a policy or WT_CUDA_VOLUME in the
 * environment may turn them off). 1 (and a FAIL line) if not. */
static int kernels_missed(const vcase *c, int inverse, kernel_counts before)
{
    if (getenv("WT_CUDA_POLICY") || getenv("WT_CUDA_VOLUME"))
        return 0;
    const wt_wavelet *w = wt_wavelet_find(c->wavelet);
    const int lifting = c->method == WT_METHOD_LIFTING;
    const int pair = !lifting && w->kind != WT_KIND_JPEG2000 && w->filter_len == 2 &&
                     c->naxes == 3;
    const kernel_counts now = kernel_counts_now();
    const long pairs = now.pair_levels - before.pair_levels, want = pair ? c->levels : 0;
    const int span = forward_span(w);
    const long sweeps = now.sweep_levels[inverse] - before.sweep_levels[inverse],
               others = now.sweep_levels[!inverse] - before.sweep_levels[!inverse],
               want_sweeps = !lifting && c->naxes == 3 && span >= 3 && span <= 12 ? c->levels : 0;
    const int rows = now.lift_rows > before.lift_rows, cols = now.lift_cols > before.lift_cols;
    /* lines along x, or (a pass whose later axes are all 1 sample long)
     * contiguous as x lines are; at level 1 at least */
    const int across = (has_axis(c, 0) && c->shape[1] * c->shape[2] > 1) ||
                       (has_axis(c, 1) && c->shape[2] > 1);
    const int want_rows = lifting && has_axis(c, 2), want_cols = lifting && across;
    if (pairs == want && sweeps == want_sweeps && others == 0 && rows >= want_rows && cols >= want_cols && (!lifting || rows || cols) &&
        (lifting || !(rows || cols)))
        return 0;
    char name[200];
    vcase_name(c, inverse, name, sizeof name);
    printf("FAIL %s: the 2-tap level kernel ran %ld levels (not %ld), the sweep %ld (not %ld; "
           "the other direction's %ld), tiled lifting along x %d (not %d), across %d (not %d)\n",
           name, pairs, want, sweeps, want_sweeps, others, rows, want_rows, cols, want_cols);
    return 1;
}

/* Every wavelet, mode and (rotating) axes, levels and channels of the
 * volumes of @p shapes on @p en, both directions; @p quick: a third;
 * @p resident: every level on the device (kernels_missed checks which
 * kernels ran; streamed levels run passes). */
static void sweep(const engines *en, const size_t (*shapes)[3], int nshapes, int quick,
                  int resident, stats *st)
{
    static const struct {
        const char *name;
        wt_method method;
    } wavelets[] = {{"haar", WT_METHOD_CONV},        {"db3", WT_METHOD_CONV},
                    {"sym4", WT_METHOD_CONV},        {"bior2.2", WT_METHOD_CONV},
                    {"coif1", WT_METHOD_CONV},       {"cdf97", WT_METHOD_CONV},
                    {"cdf97", WT_METHOD_LIFTING},    {"dd137", WT_METHOD_LIFTING},
                    {"legall53", WT_METHOD_LIFTING}, {"haar", WT_METHOD_LIFTING},
                    {"db3", WT_METHOD_LIFTING},      {"bior1.1", WT_METHOD_CONV},
                    {"coif2", WT_METHOD_CONV}};
    static const struct {
        int n, axes[3];
    } axes[] = {{3, {0, 1, 2}}, {1, {0}}, {2, {1, 2}}, {2, {2, 0}}, {3, {2, 0, 1}}};
    const int nwavelets = (int)(sizeof wavelets / sizeof *wavelets);
    for (int si = 0; si < nshapes; si++)
        for (int wi = 0; wi < nwavelets; wi++)
            for (int m = 0; m < WT_MODE_COUNT; m++) {
                if (quick && (m + wi) % 3 != si % 3)
                    continue;
                if (!resident && wt_wavelet_find(wavelets[wi].name)->filter_len > 8)
                    continue; /* streamed: the small device holds no slab of its halo */
                const int a = (si * 7 + wi + m) % 5;
                vcase c = {wavelets[wi].name, (wt_mode)m, wavelets[wi].method,
                           {shapes[si][0], shapes[si][1], shapes[si][2]}, 1 + (si + m) % 2,
                           1 + (si + wi + m) % 3, axes[a].n, {0, 0, 0},
                           WT_TRANSFORM_DWT, 0, 0, 0, WT_BORDER_MIRROR};
                memcpy(c.axes, axes[a].axes, sizeof c.axes);
                for (int inv = 0; inv < 2; inv++) {
                    const kernel_counts before = kernel_counts_now();
                    int r = run_vcase(en, &c, inv, st);
                    if (r == 0 && resident)
                        r = kernels_missed(&c, inv, before);
                    st->v_cases += r >= 0;
                    st->v_failed += r > 0;
                }
            }
}

/* The SWT (wavelets, start level, norm, all approximations) and the
 * starlet (every border) of odd volumes, along rotating axes. */
static void sweep_undecimated(const engines *en, int quick, stats *st)
{
    static const size_t shapes[][3] = {{17, 33, 40}, {9, 8, 13}, {8, 12, 10}, {11, 9, 16}};
    static const char *const wavelets[] = {"haar", "db2", "sym4", "bior2.2", "coif1"};
    static const wt_border borders[] = {WT_BORDER_MIRROR, WT_BORDER_PERIODIC,
                                        WT_BORDER_NEAREST};
    static const struct {
        int n, axes[3];
    } axes[] = {{3, {0, 1, 2}}, {1, {0}}, {2, {1, 2}}, {2, {2, 0}}, {3, {2, 0, 1}}};
    const int nshapes = (int)(sizeof shapes / sizeof *shapes);
    for (int si = 0; si < nshapes; si++)
        for (int k = 0; k < 8; k++) {
            if (quick && k % 3 != si % 3)
                continue;
            const int a = (si * 3 + k) % 5, starlet = k >= 5;
            vcase c = {starlet ? NULL : wavelets[k % 5], WT_MODE_PERIODIC, WT_METHOD_CONV,
                       {shapes[si][0], shapes[si][1], shapes[si][2]}, 1 + (si + k) % 2,
                       1 + (si + k) % 2, axes[a].n, {0, 0, 0},
                       starlet ? WT_TRANSFORM_STARLET : WT_TRANSFORM_SWT, (si + k) % 2,
                       k % 2, (k / 2) % 2, borders[(si + k) % 3]};
            memcpy(c.axes, axes[a].axes, sizeof c.axes);
            for (int inv = 0; inv < 2; inv++) {
                const int r = run_vcase(en, &c, inv, st);
                st->v_cases += r >= 0;
                st->v_failed += r > 0;
            }
        }
}

void check_volumes(const engines *en, int quick, stats *st)
{
    /* 40x72x140: tiles of the level kernels inside the volume */
    /* 5x7x9 and 2x3x1: odd, 1- and 2-sample axes (the 2-tap kernel's last cubes) */
    static const size_t shapes[][3] = {{17, 33, 40}, {1, 5, 7},    {3, 1, 9},
                                       {9, 16, 2},   {64, 64, 64}, {13, 21, 75},
                                       {40, 72, 140}, {5, 7, 9},   {2, 3, 1}};
    sweep(en, shapes, (int)(sizeof shapes / sizeof *shapes), quick, 1, st);
    sweep_undecimated(en, quick, st);
}

/* Volumes whose level kernels' tiles and z runs a launch policy changes
 * (check_policies): the hot spans forward and inverse (haar, db3, cdf97)
 * and one of the generic instances (sym4), two channels; lifting (cdf97,
 * legall53: the tiled passes or, vol_lift_tile=0 or a small smem_cap, the
 * per-line ones). */
void check_volume_policy_cases(const engines *en, stats *st)
{
    static const vcase cases[] = {
        {"haar", WT_MODE_ZERO, WT_METHOD_CONV, {40, 72, 140}, 1, 2, 3, {0, 1, 2},
         WT_TRANSFORM_DWT, 0, 0, 0, WT_BORDER_MIRROR},
        {"db3", WT_MODE_SYMMETRIC, WT_METHOD_CONV, {33, 70, 90}, 2, 2, 3, {2, 0, 1},
         WT_TRANSFORM_DWT, 0, 0, 0, WT_BORDER_MIRROR},
        {"cdf97", WT_MODE_PERIODIZATION, WT_METHOD_CONV, {37, 41, 130}, 1, 2, 3, {0, 1, 2},
         WT_TRANSFORM_DWT, 0, 0, 0, WT_BORDER_MIRROR},
        {"sym4", WT_MODE_REFLECT, WT_METHOD_CONV, {24, 50, 66}, 1, 1, 3, {0, 1, 2},
         WT_TRANSFORM_DWT, 0, 0, 0, WT_BORDER_MIRROR},
        {"cdf97", WT_MODE_SYMMETRIC, WT_METHOD_LIFTING, {21, 34, 45}, 1, 2, 3, {0, 1, 2},
         WT_TRANSFORM_DWT, 0, 0, 0, WT_BORDER_MIRROR},
        {"legall53", WT_MODE_PERIODIZATION, WT_METHOD_LIFTING, {19, 30, 41}, 2, 2, 3, {2, 0, 1},
         WT_TRANSFORM_DWT, 0, 0, 0, WT_BORDER_MIRROR},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int inv = 0; inv < 2; inv++) {
            const int r = run_vcase(en, &cases[i], inv, st);
            st->v_cases += r >= 0;
            st->v_failed += r > 0;
        }
}

/* A GPU engine whose device memory WT_CUDA_MEM_LIMIT caps at @p limit. */
static wt_status open_small_gpu(const char *limit, wt_engine **gpu)
{
    wt_env_knobs *knobs = wt_env_override();
    const char *was = knobs->cuda_mem_limit;
    knobs->cuda_mem_limit = limit;
    const wt_status s = wt_engine_open(gpu, "cuda");
    knobs->cuda_mem_limit = was;
    return s;
}

/* WT_CUDA_MEM_LIMIT=64K: volumes of 90 KB to 330 KB, whose levels need
 * about 20 bytes a voxel on the device, stream their first levels (the
 * z pass in y-slabs, the others in z-slabs, a few planes each) and run
 * the later ones resident. Counted apart: st->vs_*. */
void check_volumes_streamed(const engines *en, int quick, stats *st)
{
    static const size_t shapes[][3] = {{17, 33, 40}, {13, 21, 75}, {31, 9, 23}};
    stats sub;
    memset(&sub, 0, sizeof sub);
    sub.seed = st->seed;
    sub.verbose = st->verbose;
    engines small = {en->cpu, NULL};
    if (open_small_gpu("64K", &small.gpu) != WT_OK) {
        printf("FAIL volumes (streamed): %s\n", wt_error_message());
        st->vs_cases = st->vs_failed = 1;
        return;
    }
    sweep(&small, shapes, (int)(sizeof shapes / sizeof *shapes), quick, 0, &sub);
    wt_engine_close(small.gpu);
    st->vs_cases = sub.v_cases;
    st->vs_failed = sub.v_failed;
    st->vs_worst = sub.v_worst;
    memcpy(st->vs_worst_name, sub.v_worst_name, sizeof st->vs_worst_name);
}

/* WT_CUDA_MEM_LIMIT=16K: not one plane of a 64^3 volume fits, so it fails
 * with WT_ERR_DEVICE_NOMEM, the message naming the volume; the engine
 * still runs a small one. */
void check_volume_oom(stats *st)
{
    const vcase big = {"db3",     WT_MODE_SYMMETRIC, WT_METHOD_CONV, {64, 64, 64}, 1, 2, 3,
                       {0, 1, 2}, WT_TRANSFORM_DWT,  0, 0, 0, WT_BORDER_MIRROR};
    const vcase small = {"db3",     WT_MODE_SYMMETRIC, WT_METHOD_CONV, {4, 5, 6}, 1, 1, 3,
                         {0, 1, 2}, WT_TRANSFORM_DWT,  0, 0, 0, WT_BORDER_MIRROR};
    engines en = {NULL, NULL};
    wt_status s = open_small_gpu("16K", &en.gpu);
    if (s == WT_OK)
        s = wt_engine_open(&en.cpu, "cpu");
    int fail = s != WT_OK;
    if (s == WT_OK) {
        const wt_volume_spec sb = spec_of(&big), ss = spec_of(&small);
        size_t n;
        float *ref = NULL, *got = NULL;
        double in_big;
        s = run_engines(&en, &sb, &big, 0, &n, &ref, &got, &in_big);
        fail |= s != WT_ERR_DEVICE_NOMEM || !strstr(wt_error_message(), "64x64x64") ||
                !strstr(wt_error_message(), "does not fit the GPU");
        printf("gpu_check: volume oom: WT_CUDA_MEM_LIMIT=16K, 64x64x64: status %d: %s\n", (int)s,
               wt_error_message());
        free(ref);
        free(got);
        ref = got = NULL;
        fail |= run_engines(&en, &ss, &small, 0, &n, &ref, &got, &in_big) != WT_OK;
        free(ref);
        free(got);
    }
    if (en.gpu)
        wt_engine_close(en.gpu);
    if (en.cpu)
        wt_engine_close(en.cpu);
    st->vs_cases++;
    st->vs_failed += fail;
    if (fail)
        printf("FAIL volume oom: %s\n", wt_error_message());
}
