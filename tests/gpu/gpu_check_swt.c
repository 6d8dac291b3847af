/* gpu_check: undecimated transforms (harness and shared declarations:
 * gpu_check.c, gpu_check.h). */
#include "gpu_check.h"

/* ---------------------------------------------------------------------- */
/* Undecimated transforms (wt_uforward / wt_uinverse): SWT and starlet, GPU
 * against CPU on the same random planes and random band stacks (inverse as
 * an operator, as for the DWT), outputs pre-filled with the canary. */

static void ucase_name(const ucase *c, int inverse, char *buf, size_t size)
{
    snprintf(buf, size, "%s %s %s %zux%zu C=%d L=%d start=%d norm=%d all=%d border=%s",
             c->transform, c->wavelet, inverse ? "inverse" : "forward", c->h, c->w, c->channels,
             c->levels, c->start_level, c->norm, c->all_approx, wt_border_name(c->border));
}

/* max |v| over n floats */
static double max_abs_f32(const float *v, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs((double)v[i]));
    return m;
}

int run_ucase(const engines *en, const ucase *c, int inverse, stats *st)
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

void check_undecimated(const engines *en, int quick, int large, stats *st)
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
