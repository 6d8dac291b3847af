/* gpu_check: volumes (harness and shared declarations: gpu_check.c,
 * gpu_check.h). The DWT of (C, z, y, x) arrays (wt_volume_forward_on /
 * wt_volume_inverse_on), GPU against CPU on the same random volumes and
 * random bands (the inverse as an operator), along every subset of axes the
 * cases rotate through (all three in two orders: the streamed level
 * kernels, whose tiles the sizes cut in several places, 40x72x140 with
 * tiles inside the volume); the GPU's outputs
 * pre-filled with the canary. A volume past WT_CUDA_MEM_LIMIT fails with
 * WT_ERR_DEVICE_NOMEM, one line naming the need (check_volume_oom). */
#include "gpu_check.h"

typedef struct vcase {
    const char *wavelet;
    wt_mode mode;
    wt_method method;
    size_t shape[3]; /* z, y, x */
    int channels, levels, naxes, axes[3];
} vcase;

static void vcase_name(const vcase *c, int inverse, char *buf, size_t size)
{
    int n = snprintf(buf, size, "volume %s %s %s %s %zux%zux%zu C=%d L=%d axes=",
                     c->wavelet, wt_mode_name(c->mode), wt_method_name(c->method),
                     inverse ? "inverse" : "forward", c->shape[0], c->shape[1], c->shape[2],
                     c->channels, c->levels);
    for (int k = 0; k < c->naxes && n > 0 && (size_t)n < size; k++)
        n += snprintf(buf + n, size - (size_t)n, k ? ",%d" : "%d", c->axes[k]);
}

static wt_volume_spec spec_of(const vcase *c)
{
    wt_volume_spec s;
    memset(&s, 0, sizeof s);
    s.transform = WT_TRANSFORM_DWT;
    s.params.wavelet = wt_wavelet_find(c->wavelet);
    s.params.mode = c->mode;
    s.params.method = c->method;
    s.params.levels = c->levels;
    s.naxes = c->naxes;
    memcpy(s.axes, c->axes, sizeof s.axes);
    return s;
}

static void random_floats(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = rng_sample();
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
    if (st == WT_OK && !inverse) {
        random_floats(x, voxels);
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
            random_floats(b->data, m);
            *in_big = fmax(*in_big, max_abs(b->data, m));
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
    if (wt_params_resolve(&resolved) != WT_OK) /* a mode this wavelet does not take */
        return -1;
    if (!wt_volume_on_engine(en->gpu, &s)) {
        printf("FAIL %s: not run by the GPU engine\n", name);
        return 1;
    }
    rng_seed(case_seed(st->seed, name));
    size_t n = 0;
    float *ref = NULL, *got = NULL;
    double in_big = 0.0, big = 0.0;
    wt_status rs = run_engines(en, &s, c, inverse, &n, &ref, &got, &in_big);
    double err = rs == WT_OK ? relative_error(ref, got, n, 0, &big) : INFINITY;
    /* random bands' inverse cancels: scale by the larger of output and input */
    if (isfinite(err) && in_big > big) {
        err = (big > 0.0 ? err * big : err) / in_big;
        big = in_big;
    }
    const double tol = c->mode == WT_MODE_SMOOTH || c->mode == WT_MODE_ANTIREFLECT
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

void check_volumes(const engines *en, int quick, stats *st)
{
    /* 40x72x140: tiles of the streamed level kernels inside the volume */
    static const size_t shapes[][3] = {{17, 33, 40}, {1, 5, 7},     {3, 1, 9},    {9, 16, 2},
                                       {64, 64, 64}, {13, 21, 75}, {40, 72, 140}};
    static const struct {
        const char *name;
        wt_method method;
    } wavelets[] = {{"haar", WT_METHOD_CONV},  {"db3", WT_METHOD_CONV},
                    {"sym4", WT_METHOD_CONV},  {"bior2.2", WT_METHOD_CONV},
                    {"coif1", WT_METHOD_CONV}, {"cdf97", WT_METHOD_CONV}};
    static const struct {
        int n, axes[3];
    } axes[] = {{3, {0, 1, 2}}, {1, {0}}, {2, {1, 2}}, {2, {2, 0}}, {3, {2, 0, 1}}};
    const int nshapes = (int)(sizeof shapes / sizeof *shapes);
    const int nwavelets = (int)(sizeof wavelets / sizeof *wavelets);
    for (int si = 0; si < nshapes; si++)
        for (int wi = 0; wi < nwavelets; wi++)
            for (int m = 0; m < WT_MODE_COUNT; m++) {
                if (quick && (m + wi) % 3 != si % 3)
                    continue;
                const int a = (si * 7 + wi + m) % 5;
                vcase c = {wavelets[wi].name, (wt_mode)m, wavelets[wi].method,
                           {shapes[si][0], shapes[si][1], shapes[si][2]}, 1 + (si + m) % 2,
                           1 + (si + wi + m) % 3, axes[a].n, {0, 0, 0}};
                memcpy(c.axes, axes[a].axes, sizeof c.axes);
                for (int inv = 0; inv < 2; inv++) {
                    const int r = run_vcase(en, &c, inv, st);
                    st->v_cases += r >= 0;
                    st->v_failed += r > 0;
                }
            }
}

/* Volumes whose streamed level tiles and z runs a launch policy changes
 * (check_policies): the hot spans forward and inverse (haar, db3, cdf97)
 * and one of the generic instances (sym4), two channels. */
void check_volume_policy_cases(const engines *en, stats *st)
{
    static const vcase cases[] = {
        {"haar", WT_MODE_ZERO, WT_METHOD_CONV, {40, 72, 140}, 1, 2, 3, {0, 1, 2}},
        {"db3", WT_MODE_SYMMETRIC, WT_METHOD_CONV, {33, 70, 90}, 2, 2, 3, {2, 0, 1}},
        {"cdf97", WT_MODE_PERIODIZATION, WT_METHOD_CONV, {37, 41, 130}, 1, 2, 3, {0, 1, 2}},
        {"sym4", WT_MODE_REFLECT, WT_METHOD_CONV, {24, 50, 66}, 1, 1, 3, {0, 1, 2}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int inv = 0; inv < 2; inv++) {
            const int r = run_vcase(en, &cases[i], inv, st);
            st->v_cases += r >= 0;
            st->v_failed += r > 0;
        }
}

/* WT_CUDA_MEM_LIMIT=1M: a 64^3 volume (1 MiB of samples) fails with
 * WT_ERR_DEVICE_NOMEM, the message naming the volume and the need; the
 * engine still runs a small one. */
void check_volume_oom(stats *st)
{
    const vcase big = {"db3", WT_MODE_SYMMETRIC, WT_METHOD_CONV, {64, 64, 64}, 1, 2, 3,
                       {0, 1, 2}};
    const vcase small = {"db3", WT_MODE_SYMMETRIC, WT_METHOD_CONV, {4, 5, 6}, 1, 1, 3,
                         {0, 1, 2}};
    wt_env_knobs *knobs = wt_env_override();
    const char *was = knobs->cuda_mem_limit;
    knobs->cuda_mem_limit = "1M";
    engines en = {NULL, NULL};
    wt_status s = wt_engine_open(&en.gpu, "cuda");
    knobs->cuda_mem_limit = was;
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
        printf("gpu_check: volume oom: WT_CUDA_MEM_LIMIT=1M, 64x64x64: status %d: %s\n", (int)s,
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
    st->v_cases++;
    st->v_failed += fail;
    if (fail)
        printf("FAIL volume oom: %s\n", wt_error_message());
}
