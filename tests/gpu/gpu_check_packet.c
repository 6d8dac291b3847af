/* gpu_check: wavelet packets (harness and shared declarations: gpu_check.c,
 * gpu_check.h). Every node of the full tree from the CUDA engine (the whole
 * tree resident, every node copied back) against the CPU engine's, and the
 * image rebuilt by each from the full tree's leaves and from the best
 * basis's (the same basis for both: chosen on the CPU tree). Then the best
 * basis of each cost chosen on the device (wt_packet_decompose, leaves only
 * copied back): its node costs against the host's sums of the same
 * coefficients, its basis against the one the host chooses on them and
 * against the CPU engine's, its leaves against the full tree's. */
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

/* ---- costs and bases chosen on the device ---------------------------------------- */

/* Costs of float sums in another order: a device cost may differ from the
 * host's sum of the same coefficients by this much of the sum of its terms'
 * magnitudes (the host's sequential sum alone may be off by n x 2^-53 of
 * it; the device's log and pow by an ulp or two a term). */
#define COST_SUM_TOL 1e-9
/* Two engines' coefficients agree only within the tolerance of the DWT
 * cases (gpu_check.h: |gpu - cpu| <= tol x max|c| of the node), so their
 * costs differ by up to the sum of each term's change over that error
 * (cost_sensitivity): a decision whose margin is within twice that is a
 * near tie that may go either way. Log energy's log c^2 has no bound at
 * c = 0 (an exact zero on one engine, 1e-7 on the other): a decision over
 * a node holding one is always such a tie. */

/* Written independently of src/: MATLAB's wentropy terms, and their
 * magnitude. */
static double cost_term(const wt_packet_cost *cost, double v)
{
    double s = v * v;
    switch (cost->kind) {
    case WT_COST_SHANNON: return s > 0.0 ? -s * log(s) : 0.0;
    case WT_COST_LOGENERGY: return s > 0.0 ? log(s) : 0.0;
    case WT_COST_THRESHOLD: return fabs(v) > cost->param;
    case WT_COST_NORM: return pow(fabs(v), cost->param);
    }
    return 0.0;
}

/* The most cost_term(v) changes when v moves by up to @p delta (to first
 * order; a threshold's step: 1 within delta of T). */
static double cost_sensitivity(const wt_packet_cost *cost, double v, double delta)
{
    double m = fabs(v);
    switch (cost->kind) {
    case WT_COST_SHANNON: return m > 0.0 ? fabs(2.0 * m * (log(m * m) + 1.0)) * delta : 0.0;
    case WT_COST_LOGENERGY: return m > 0.0 ? 2.0 * delta / m : INFINITY;
    case WT_COST_THRESHOLD: return fabs(m - cost->param) <= delta;
    case WT_COST_NORM: return cost->param * pow(m, cost->param - 1.0) * delta;
    }
    return 0.0;
}

/* The largest |c| of node (l, k). */
static double node_max(const wt_packet_tree *t, int l, size_t k)
{
    const float *c = wt_packet_node(t, l, k);
    double most = 0.0;
    for (size_t i = 0; i < wt_packet_node_size(t, l); i++)
        most = fabs(c[i]) > most ? fabs(c[i]) : most;
    return most;
}

/* Adds every node's value to its ancestors' (what a decision at a node
 * sums at most: itself and everything below). */
static void add_subtrees(int L, double *v)
{
    for (int l = L - 1; l >= 0; l--)
        for (size_t k = 0; k < ((size_t)1 << (2 * l)); k++)
            for (size_t ch = 4 * k; ch < 4 * k + 4; ch++)
                v[wt_packet_node_id(l, k)] += v[wt_packet_node_id(l + 1, ch)];
}

/* Per node: the host's cost, the sum of its terms' magnitudes (scale) and
 * of their sensitivity to an error of @p tol x the node's max|c| (sens);
 * scale and sens then summed over each subtree. */
static void host_costs(const wt_packet_tree *t, const wt_packet_cost *cost, double tol,
                       double *costs, double *scale, double *sens)
{
    const int L = t->params.levels;
    for (int l = 0; l <= L; l++)
        for (size_t k = 0; k < ((size_t)1 << (2 * l)); k++) {
            const float *c = wt_packet_node(t, l, k);
            const double delta = tol * node_max(t, l, k);
            double sum = 0.0, mag = 0.0, moves = 0.0;
            for (size_t i = 0; i < wt_packet_node_size(t, l); i++) {
                double v = cost_term(cost, c[i]);
                sum += v;
                mag += fabs(v);
                moves += cost_sensitivity(cost, c[i], delta);
            }
            costs[wt_packet_node_id(l, k)] = sum;
            scale[wt_packet_node_id(l, k)] = mag;
            sens[wt_packet_node_id(l, k)] = moves;
        }
    add_subtrees(L, scale);
    add_subtrees(L, sens);
}

/* MATLAB's besttree, written independently: best[] the subtree's best cost,
 * margin[] the decision's cost - children's best (<= 0: a leaf). */
static void best_tree(int L, const double *costs, unsigned char *basis, double *best,
                      double *margin)
{
    for (int l = L; l >= 0; l--)
        for (size_t k = 0; k < ((size_t)1 << (2 * l)); k++) {
            size_t id = wt_packet_node_id(l, k), ch = l < L ? wt_packet_node_id(l + 1, 4 * k) : 0;
            double below = l < L ? best[ch] + best[ch + 1] + best[ch + 2] + best[ch + 3] : 0.0;
            margin[id] = l < L ? costs[id] - below : -1.0;
            best[id] = margin[id] <= 0.0 ? costs[id] : below;
        }
    for (int l = 0; l <= L; l++) /* top down: under a leaf, out */
        for (size_t k = 0; k < ((size_t)1 << (2 * l)); k++) {
            size_t id = wt_packet_node_id(l, k);
            int above = l ? basis[wt_packet_node_id(l - 1, k >> 2)] : WT_PACKET_SPLIT;
            basis[id] = above != WT_PACKET_SPLIT ? WT_PACKET_OUT
                        : margin[id] <= 0.0      ? WT_PACKET_LEAF
                                                 : WT_PACKET_SPLIT;
        }
}

/* 0 when @p got equals @p want, or the first node (top down) where they
 * differ is a near tie of @p want's decisions (|margin| <= COST_SUM_TOL x
 * scale + 2 x sens; counted in *ties); else 1, the node's path in @p where. */
static int same_basis(int L, const unsigned char *want, const unsigned char *got,
                      const double *margin, const double *scale, const double *sens, long *ties,
                      char *where)
{
    for (int l = 0; l <= L; l++)
        for (size_t k = 0; k < ((size_t)1 << (2 * l)); k++) {
            size_t id = wt_packet_node_id(l, k);
            if (want[id] == got[id])
                continue;
            wt_packet_path(l, k, where);
            if (fabs(margin[id]) > COST_SUM_TOL * scale[id] + 2.0 * sens[id])
                return 1;
            ++*ties;
            return 0;
        }
    return 0;
}

typedef struct cost_check {
    const wt_packet_tree *cpu;  /* the CPU engine's full tree */
    const wt_packet_tree *full; /* the CUDA engine's full tree (every node copied back) */
    const float *x;
    double tol; /* of the coefficients */
} cost_check;

/* The best basis of @p cost chosen on the device (leaves only copied back)
 * against the host's choice on the same coefficients and on the CPU
 * engine's; 0 pass. */
static int check_device_choice(const engines *en, const char *name, const cost_check *cc,
                               const wt_packet_cost *cost, stats *st)
{
    const int L = cc->cpu->params.levels;
    const size_t n = wt_packet_node_count(L);
    const wt_packet_rule best_rule = {WT_BASIS_BEST, 0};
    char cname[40], where[WT_MAX_LEVELS + 1] = "";
    wt_packet_cost_name(cost, cname, sizeof cname);
    wt_packet_tree got = {0};
    double *buf = calloc(10 * n, sizeof *buf);
    unsigned char *bases = malloc(3 * n);
    if (!buf || !bases || wt_packet_alloc(&got, &cc->cpu->params, cc->cpu->height,
                                          cc->cpu->width, cc->cpu->channels) != WT_OK) {
        printf("FAIL %s %s: out of memory\n", name, cname);
        free(buf);
        free(bases);
        return 1;
    }
    double *dev = buf, *ref = buf + n, *scale = buf + 2 * n, *best = buf + 3 * n;
    double *margin = buf + 4 * n, *cref = buf + 5 * n, *cscale = buf + 6 * n;
    double *cmargin = buf + 7 * n, *csens = buf + 8 * n, *sens = buf + 9 * n;
    unsigned char *gbasis = bases, *rbasis = bases + n, *cbasis = bases + 2 * n;
    fill_canary(got.data, got.level_at[L + 1]);
    wt_status s = wt_packet_decompose(en->gpu, &got, cc->x, &best_rule, cost, gbasis, dev, 0);
    int fail = s != WT_OK;
    if (fail)
        printf("FAIL %s %s: device choice %s: %s\n", name, cname, wt_status_name(s),
               wt_error_message());
    host_costs(cc->full, cost, 0.0, ref, scale, sens);
    for (size_t id = 0; !fail && id < n; id++)
        if (!(fabs(dev[id] - ref[id]) <= COST_SUM_TOL * scale[id])) {
            printf("FAIL %s %s: node %zu cost %.17g on the device, %.17g on the host\n", name,
                   cname, id, dev[id], ref[id]);
            fail = 1;
        }
    best_tree(L, ref, rbasis, best, margin);
    long ties = 0;
    memset(sens, 0, n * sizeof *sens); /* the same coefficients: sums alone differ */
    if (!fail && same_basis(L, rbasis, gbasis, margin, scale, sens, &ties, where)) {
        printf("FAIL %s %s: device basis differs from the host's at '%s'\n", name, cname, where);
        fail = 1;
    }
    host_costs(cc->cpu, cost, cc->tol, cref, cscale, csens);
    best_tree(L, cref, cbasis, best, cmargin);
    if (!fail && same_basis(L, cbasis, gbasis, cmargin, cscale, csens, &st->p_ties, where)) {
        printf("FAIL %s %s: device basis differs from the CPU engine's at '%s'\n", name, cname,
               where);
        fail = 1;
    }
    st->p_ties += ties;
    for (int l = 0; !fail && l <= L; l++) /* leaves as the full tree's; nothing else written */
        for (size_t k = 0; !fail && k < ((size_t)1 << (2 * l)); k++) {
            size_t bytes = wt_packet_node_size(&got, l) * sizeof(float);
            int leaf = gbasis[wt_packet_node_id(l, k)] == WT_PACKET_LEAF;
            float *canary = leaf ? NULL : malloc(bytes);
            if (canary)
                fill_canary(canary, bytes / sizeof(float));
            const void *want = leaf ? (const void *)wt_packet_node(cc->full, l, k) : canary;
            if (want && memcmp(wt_packet_node(&got, l, k), want, bytes)) {
                wt_packet_path(l, k, where);
                printf("FAIL %s %s: node '%s' %s\n", name, cname, where,
                       leaf ? "differs from the full tree's" : "written, not a leaf");
                fail = 1;
            }
            free(canary);
        }
    wt_packet_free(&got);
    free(buf);
    free(bases);
    return fail;
}

/* Every cost's device choice; a zero image's too (every cost exactly 0: the
 * tie keeps the root a leaf on both engines). */
static int check_device_choices(const engines *en, const char *name, const cost_check *cc,
                                stats *st)
{
    static const wt_packet_cost costs[] = {{WT_COST_SHANNON, 0.0},
                                           {WT_COST_LOGENERGY, 0.0},
                                           {WT_COST_THRESHOLD, 0.5},
                                           {WT_COST_NORM, 1.5}};
    int fail = 0;
    for (size_t i = 0; !fail && i < sizeof costs / sizeof *costs; i++)
        fail = check_device_choice(en, name, cc, &costs[i], st);
    const int L = cc->cpu->params.levels;
    size_t plane = wt_packet_node_size(cc->cpu, 0), n = wt_packet_node_count(L);
    float *zero = calloc(plane, sizeof *zero);
    unsigned char *basis = malloc(n);
    wt_packet_tree t = {0};
    const wt_packet_rule best_rule = {WT_BASIS_BEST, 0};
    if (!fail && zero && basis &&
        wt_packet_alloc(&t, &cc->cpu->params, cc->cpu->height, cc->cpu->width,
                        cc->cpu->channels) == WT_OK &&
        wt_packet_decompose(en->gpu, &t, zero, &best_rule, &costs[0], basis, NULL, 0) == WT_OK) {
        for (size_t id = 0; id < n; id++)
            fail |= basis[id] != (id == 0 ? WT_PACKET_LEAF : WT_PACKET_OUT);
        if (fail)
            printf("FAIL %s: the zero image's best basis is not the root\n", name);
    } else if (!fail) {
        printf("FAIL %s: zero image: %s\n", name, wt_error_message());
        fail = 1;
    }
    wt_packet_free(&t);
    free(zero);
    free(basis);
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
        const cost_check cc = {&cpu, &gpu, x, tol};
        fail = check_device_choices(en, name, &cc, st) ||
               check_rebuild(en, name, "rebuilt from the best basis", &cpu, &gpu, best, tol, st) ||
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
