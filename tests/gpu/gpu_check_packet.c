/* gpu_check: wavelet packets (harness and shared declarations: gpu_check.c,
 * gpu_check.h). Every node of the full tree from the CUDA engine against the
 * CPU engine's, and the image rebuilt by each from the full tree's leaves and
 * from the best basis's (the same basis for both: chosen on the CPU tree). */
#include "gpu_check.h"

typedef struct pcase {
    const char *wavelet;
    wt_mode mode;
    size_t h, w;
    int channels, levels;
} pcase;

/* 0 pass, 1 fail (beyond @p tol); @p what names the compared arrays. */
static int compare_arrays(const char *name, const char *what, const float *ref, const float *got,
                          size_t n, size_t rows, size_t cols, double tol, stats *st)
{
    double big = 0.0, err = relative_error(ref, got, n, 0, &big);
    if (err > st->p_worst) {
        st->p_worst = err;
        snprintf(st->p_worst_name, sizeof st->p_worst_name, "%s %s", name, what);
    }
    if (err <= tol)
        return 0;
    printf("FAIL %s %s: rel err %.3g; seed %llu\n", name, what, err,
           (unsigned long long)st->seed);
    print_map(what, ref, got, rows, cols, 0, tol * big);
    return 1;
}

/* Rebuild from @p basis on both engines (from copies of the trees: the
 * inverse overwrites split nodes) and compare the images. */
static int check_rebuild(const engines *en, const char *name, const char *what,
                         const wt_packet_tree *cpu, const wt_packet_tree *gpu,
                         const unsigned char *basis, double tol, stats *st)
{
    size_t plane = cpu->height * cpu->width * (size_t)cpu->channels;
    float *ref = malloc(plane * sizeof *ref), *got = malloc(plane * sizeof *got);
    wt_status s1 = WT_ERR_NOMEM, s2 = WT_ERR_NOMEM;
    if (ref && got) {
        fill_canary(got, plane);
        s1 = wt_packet_inverse(en->cpu, (wt_packet_tree *)cpu, basis, ref);
        s2 = wt_packet_inverse(en->gpu, (wt_packet_tree *)gpu, basis, got);
    }
    int fail = s1 != WT_OK || s2 != WT_OK;
    if (fail)
        printf("FAIL %s %s: cpu %s, gpu %s\n", name, what, wt_status_name(s1),
               wt_status_name(s2));
    else
        fail = compare_arrays(name, what, ref, got, plane, cpu->height, cpu->width, tol, st);
    free(ref);
    free(got);
    return fail;
}

static int run_pcase(const engines *en, const pcase *c, stats *st)
{
    char name[160];
    snprintf(name, sizeof name, "packet %s %s %zux%zu C=%d L=%d", c->wavelet,
             wt_mode_name(c->mode), c->h, c->w, c->channels, c->levels);
    wt_params p = {wt_wavelet_find(c->wavelet), c->mode, WT_METHOD_CONV, c->levels};
    /* as the DWT cases: smooth and antireflect extrapolate (gpu_check.h) */
    const check_case as_dwt = {.mode = c->mode};
    double tol = tolerance(&as_dwt);
    wt_packet_tree cpu = {0}, gpu = {0};
    size_t plane = c->h * c->w * (size_t)c->channels;
    float *x = malloc(plane * sizeof *x);
    if (!x || wt_packet_alloc(&cpu, &p, c->h, c->w, c->channels) != WT_OK ||
        wt_packet_alloc(&gpu, &p, c->h, c->w, c->channels) != WT_OK) {
        printf("FAIL %s: cannot plan or allocate (%s)\n", name, wt_error_message());
        free(x);
        wt_packet_free(&cpu);
        wt_packet_free(&gpu);
        return 1;
    }
    rng_seed(case_seed(st->seed, name));
    random_planes(x, plane, 0, NULL);
    wt_status s1 = wt_packet_forward(en->cpu, &cpu, x);
    wt_status s2 = wt_packet_forward(en->gpu, &gpu, x);
    int fail = s1 != WT_OK || s2 != WT_OK;
    if (fail)
        printf("FAIL %s forward: cpu %s, gpu %s\n", name, wt_status_name(s1),
               wt_status_name(s2));
    for (int l = 1; !fail && l <= c->levels; l++)
        for (size_t k = 0; !fail && k < ((size_t)1 << (2 * l)); k++) {
            char path[WT_MAX_LEVELS + 1], what[40];
            wt_packet_path(l, k, path);
            snprintf(what, sizeof what, "node %s", path);
            fail = compare_arrays(name, what, wt_packet_node(&cpu, l, k),
                                  wt_packet_node(&gpu, l, k), wt_packet_node_size(&cpu, l),
                                  cpu.node_h[l], cpu.node_w[l], tol, st);
        }
    size_t nodes = wt_packet_node_count(c->levels);
    unsigned char *full = malloc(nodes), *best = malloc(nodes);
    const wt_packet_rule full_rule = {WT_BASIS_FULL, 0}, best_rule = {WT_BASIS_BEST, 0};
    const wt_packet_cost cost = {WT_COST_SHANNON, 0};
    if (!fail && full && best && wt_packet_choose(&cpu, &full_rule, &cost, full, NULL) == WT_OK &&
        wt_packet_choose(&cpu, &best_rule, &cost, best, NULL) == WT_OK) {
        fail = check_rebuild(en, name, "rebuilt from the best basis", &cpu, &gpu, best, tol, st) ||
               check_rebuild(en, name, "rebuilt from the full tree", &cpu, &gpu, full, tol, st);
    } else if (!fail) {
        printf("FAIL %s: no basis (%s)\n", name, wt_error_message());
        fail = 1;
    }
    if (!fail && st->verbose)
        printf("ok %s\n", name);
    free(full);
    free(best);
    free(x);
    wt_packet_free(&cpu);
    wt_packet_free(&gpu);
    return fail;
}

/* The deepest tree of at most @p levels that pywt.dwt_max_level allows on
 * an h x w image (0: none). */
static int deepest_levels(const char *wavelet, size_t h, size_t w, int levels)
{
    wt_packet_tree t;
    for (; levels > 0; levels--) {
        wt_params p = {wt_wavelet_find(wavelet), WT_MODE_SYMMETRIC, WT_METHOD_CONV, levels};
        if (wt_packet_plan(&t, &p, h, w, 1) == WT_OK)
            return levels;
    }
    return 0;
}

void check_packets(const engines *en, int quick, stats *st)
{
    static const char *const wavelets[] = {"haar", "db2", "db3", "sym4", "coif1", "bior2.2",
                                           "rbio3.1", "db8"};
    static const struct {
        size_t h, w;
    } shapes[] = {{37, 51}, {64, 64}, {17, 70}, {128, 96}};
    for (size_t wi = 0; wi < sizeof wavelets / sizeof *wavelets; wi++)
        for (int m = 0; m < WT_MODE_COUNT; m++)
            for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
                if ((quick && (wi + (size_t)m + s) % 4) || (wi + (size_t)m + s) % 2)
                    continue;
                pcase c = {wavelets[wi], (wt_mode)m, shapes[s].h, shapes[s].w,
                           1 + (int)((wi + s) % 3),
                           deepest_levels(wavelets[wi], shapes[s].h, shapes[s].w,
                                          1 + (int)((wi + (size_t)m) % 3))};
                if (!c.levels)
                    continue; /* the filter is longer than the image */
                st->p_cases++;
                st->p_failed += run_pcase(en, &c, st);
            }
    /* a large tree: many blocks per node on the first levels */
    pcase big = {"db3", WT_MODE_SYMMETRIC, 1500, 2047, 3, 3};
    if (!quick) {
        st->p_cases++;
        st->p_failed += run_pcase(en, &big, st);
    }
}
