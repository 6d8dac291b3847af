/* Wavelet packets (= pywt.WaveletPacket2D) and their bases: the tree's
 * shapes and storage, its forward and inverse as one single-level 2-D DWT
 * call of the engine per split node (so any engine runs them without
 * kernels of its own; an engine with packet_forward / packet_inverse keeps
 * the whole tree resident instead, cuda/cu_packet.cu), node costs (MATLAB's
 * wentropy) and the best basis (MATLAB's besttree). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_impl.h" /* the engines' packet_forward / packet_inverse, wt_packet_cost_term */
#include "transform.h"

static const char path_letters[] = "ahvd";

/* ---- paths and node numbers --------------------------------------------------------- */

size_t wt_packet_node_count(int levels)
{
    return (((size_t)1 << (2 * (levels + 1))) - 1) / 3;
}

size_t wt_packet_node_id(int level, size_t k)
{
    return wt_packet_node_count(level - 1) + k;
}

void wt_packet_path(int level, size_t k, char *out)
{
    for (int i = 0; i < level; i++)
        out[i] = path_letters[(k >> (2 * (level - 1 - i))) & 3];
    out[level] = '\0';
}

int wt_packet_path_parse(const char *path, int *level, size_t *k)
{
    size_t n = strlen(path);
    if (n > WT_MAX_LEVELS)
        return 0;
    *k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *hit = path[i] ? strchr(path_letters, path[i]) : NULL;
        if (!hit)
            return 0;
        *k = *k * 4 + (size_t)(hit - path_letters);
    }
    *level = (int)n;
    return 1;
}

/* ---- the tree ------------------------------------------------------------------------ */

wt_status wt_packet_plan(wt_packet_tree *t, const wt_params *params, size_t height,
                         size_t width, int channels)
{
    memset(t, 0, sizeof *t);
    t->params = *params;
    wt_status st = wt_params_resolve(&t->params);
    if (st != WT_OK)
        return st;
    const wt_wavelet *w = params->wavelet;
    if (w->kind != WT_KIND_FILTER_BANK)
        return wt_error_set(WT_ERR_INVALID,
                            "packet: %s is a JPEG 2000 wavelet; packets take filter-bank "
                            "wavelets (bior4.4 for cdf97, bior2.2 for legall53)",
                            w->name);
    int dwt_max = wt_max_level(height, width, w), L = params->levels;
    int max = dwt_max < WT_PACKET_MAX_LEVELS ? dwt_max : WT_PACKET_MAX_LEVELS;
    if (L < 1 || L > max)
        return wt_error_set(WT_ERR_INVALID,
                            "packet: %d levels of %s on %zux%zu; 1 to %d (pywt.dwt_max_level "
                            "%d, packet trees at most %d)",
                            L, w->name, width, height, max, dwt_max, WT_PACKET_MAX_LEVELS);
    if (height == 0 || width == 0 || channels < 1)
        return wt_error_set(WT_ERR_INVALID, "empty image");
    t->height = height;
    t->width = width;
    t->channels = channels;
    t->node_h[0] = height;
    t->node_w[0] = width;
    t->level_at[0] = 0;
    for (int l = 0; l <= L; l++) {
        if (l > 0) {
            t->node_h[l] = wt_coeff_len(t->node_h[l - 1], w, t->params.mode, 0);
            t->node_w[l] = wt_coeff_len(t->node_w[l - 1], w, t->params.mode, 0);
        }
        double level = (double)((size_t)1 << (2 * l)) * (double)wt_packet_node_size(t, l);
        if ((double)t->level_at[l] + level > (double)(SIZE_MAX / 8))
            return wt_error_set(WT_ERR_LIMIT, "packet tree of %zux%zu is too large", width,
                                height);
        t->level_at[l + 1] = t->level_at[l] + (size_t)level;
    }
    return WT_OK;
}

wt_status wt_packet_alloc(wt_packet_tree *t, const wt_params *params, size_t height,
                          size_t width, int channels)
{
    wt_status st = wt_packet_plan(t, params, height, width, channels);
    if (st != WT_OK)
        return st;
    size_t total = t->level_at[t->params.levels + 1];
    t->data = calloc(total, sizeof *t->data);
    return t->data ? WT_OK
                   : wt_error_set(WT_ERR_NOMEM, "out of memory for a packet tree (%zu MiB)",
                                  total * sizeof *t->data >> 20);
}

void wt_packet_free(wt_packet_tree *t)
{
    free(t->data);
    t->data = NULL;
}

size_t wt_packet_node_size(const wt_packet_tree *t, int level)
{
    return (size_t)t->channels * t->node_h[level] * t->node_w[level];
}

float *wt_packet_node(const wt_packet_tree *t, int level, size_t k)
{
    return t->data + t->level_at[level] + k * wt_packet_node_size(t, level);
}

/* ---- forward and inverse: one single-level DWT call per split node ------------------ */

/* The one-level pyramid of a node of @p level whose four bands are its
 * children: the pyramid's storage (cA, cH, cV, cD, each C planes) is the
 * children's, a h v d in index order. */
static wt_status split_pyramid(const wt_packet_tree *t, int level, wt_params *one,
                               wt_pyramid *pyr)
{
    *one = t->params;
    one->levels = 1;
    return wt_pyramid_plan(pyr, one, t->node_h[level], t->node_w[level], t->channels);
}

/* WT_ERR_INVALID for a level:N basis deeper than the tree's @p levels. */
static wt_status rule_check(const wt_packet_rule *rule, int levels)
{
    if (rule->kind == WT_BASIS_LEVEL && rule->level > levels)
        return wt_error_set(WT_ERR_INVALID, "basis level:%d is deeper than the %d levels",
                            rule->level, levels);
    return WT_OK;
}

/* Every node of the tree on the host, one engine call per split node. */
static wt_status forward_by_nodes(wt_engine *engine, wt_packet_tree *t, const float *planes)
{
    memcpy(t->data, planes, wt_packet_node_size(t, 0) * sizeof *planes);
    for (int l = 0; l < t->params.levels; l++) {
        wt_params one;
        wt_pyramid pyr;
        wt_status st = split_pyramid(t, l, &one, &pyr);
        for (size_t k = 0; st == WT_OK && k < (size_t)1 << (2 * l); k++) {
            pyr.data = wt_packet_node(t, l + 1, 4 * k);
            st = wt_forward(engine, &one, wt_packet_node(t, l, k), &pyr);
        }
        if (st != WT_OK)
            return st;
    }
    return WT_OK;
}

wt_status wt_packet_forward(wt_engine *engine, wt_packet_tree *t, const float *planes)
{
    if (!engine->ops->packet_forward)
        return forward_by_nodes(engine, t, planes);
    const wt_packet_rule full = {WT_BASIS_FULL, 0};
    unsigned char *basis = malloc(wt_packet_node_count(t->params.levels));
    wt_status st = basis ? engine->ops->packet_forward(engine, t, planes, &full, NULL, basis,
                                                       NULL, 1)
                         : wt_error_set(WT_ERR_NOMEM, "out of memory");
    free(basis);
    return st;
}

wt_status wt_packet_decompose(wt_engine *engine, wt_packet_tree *t, const float *planes,
                              const wt_packet_rule *rule, const wt_packet_cost *cost,
                              unsigned char *basis, double *costs, int all_nodes)
{
    wt_status st = rule_check(rule, t->params.levels);
    if (st != WT_OK)
        return st;
    if (engine->ops->packet_forward)
        return engine->ops->packet_forward(engine, t, planes, rule,
                                           rule->kind == WT_BASIS_BEST || costs ? cost : NULL,
                                           basis, costs, all_nodes);
    st = forward_by_nodes(engine, t, planes);
    return st == WT_OK ? wt_packet_choose(t, rule, cost, basis, costs) : st;
}

wt_status wt_packet_inverse(wt_engine *engine, wt_packet_tree *t, const unsigned char *basis,
                            float *planes)
{
    if (engine->ops->packet_inverse)
        return engine->ops->packet_inverse(engine, t, basis, planes);
    for (int l = t->params.levels - 1; l >= 0; l--) {
        wt_params one;
        wt_pyramid pyr;
        wt_status st = split_pyramid(t, l, &one, &pyr);
        for (size_t k = 0; st == WT_OK && k < (size_t)1 << (2 * l); k++) {
            if (basis[wt_packet_node_id(l, k)] != WT_PACKET_SPLIT)
                continue;
            pyr.data = wt_packet_node(t, l + 1, 4 * k);
            st = wt_inverse(engine, &one, &pyr, wt_packet_node(t, l, k));
        }
        if (st != WT_OK)
            return st;
    }
    memcpy(planes, t->data, wt_packet_node_size(t, 0) * sizeof *planes);
    return WT_OK;
}

/* ---- costs (MATLAB's wentropy) -------------------------------------------------------- */

double wt_packet_cost_of(const float *c, size_t n, const wt_packet_cost *cost)
{
    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += wt_packet_cost_term(cost->kind, cost->param, c[i]);
    return sum;
}

double wt_packet_node_cost(const wt_packet_tree *t, int level, size_t k,
                           const wt_packet_cost *cost)
{
    return wt_packet_cost_of(wt_packet_node(t, level, k), wt_packet_node_size(t, level), cost);
}

/* "NAME" or "NAME:NUMBER" with NUMBER >= @p min; 1 when @p text is one. */
static int named_number(const char *text, const char *name, double min, double *value)
{
    size_t n = strlen(name);
    if (strncmp(text, name, n) != 0 || text[n] != ':' || !text[n + 1])
        return 0;
    char *end = NULL;
    *value = strtod(text + n + 1, &end);
    return !*end && isfinite(*value) && *value >= min;
}

wt_status wt_packet_cost_parse(const char *text, wt_packet_cost *cost)
{
    *cost = (wt_packet_cost){WT_COST_SHANNON, 0.0};
    if (strcmp(text, "shannon") == 0)
        return WT_OK;
    cost->kind = WT_COST_LOGENERGY;
    if (strcmp(text, "logenergy") == 0)
        return WT_OK;
    cost->kind = WT_COST_THRESHOLD;
    if (named_number(text, "threshold", 0.0, &cost->param))
        return WT_OK;
    cost->kind = WT_COST_NORM;
    if (named_number(text, "norm", 1.0, &cost->param))
        return WT_OK;
    return wt_error_set(WT_ERR_INVALID,
                        "unknown cost '%s' (shannon, logenergy, threshold:T with T >= 0, "
                        "norm:P with P >= 1)",
                        text);
}

void wt_packet_cost_name(const wt_packet_cost *cost, char *buf, size_t size)
{
    static const char *const names[] = {"shannon", "logenergy", "threshold", "norm"};
    if (cost->kind == WT_COST_THRESHOLD || cost->kind == WT_COST_NORM)
        snprintf(buf, size, "%s:%g", names[cost->kind], cost->param);
    else
        snprintf(buf, size, "%s", names[cost->kind]);
}

/* ---- bases ----------------------------------------------------------------------------- */

wt_status wt_packet_rule_parse(const char *text, wt_packet_rule *rule)
{
    *rule = (wt_packet_rule){WT_BASIS_FULL, 0};
    if (strcmp(text, "full") == 0)
        return WT_OK;
    rule->kind = WT_BASIS_BEST;
    if (strcmp(text, "best") == 0)
        return WT_OK;
    rule->kind = WT_BASIS_LEVEL;
    char *end = NULL;
    long v = strncmp(text, "level:", 6) == 0 && text[6] >= '0' && text[6] <= '9'
                 ? strtol(text + 6, &end, 10)
                 : -1;
    if (v >= 0 && v <= WT_MAX_LEVELS && end && !*end) {
        rule->level = (int)v;
        return WT_OK;
    }
    return wt_error_set(WT_ERR_INVALID, "unknown basis '%s' (full, best or level:N)", text);
}

void wt_packet_rule_name(const wt_packet_rule *rule, char *buf, size_t size)
{
    if (rule->kind == WT_BASIS_LEVEL)
        snprintf(buf, size, "level:%d", rule->level);
    else
        snprintf(buf, size, "%s", rule->kind == WT_BASIS_BEST ? "best" : "full");
}

/* Leaves at level @p leaf, split above, nothing below. */
static void level_basis(int levels, int leaf, unsigned char *basis)
{
    for (int l = 0; l <= levels; l++)
        for (size_t k = 0; k < (size_t)1 << (2 * l); k++)
            basis[wt_packet_node_id(l, k)] = l < leaf    ? WT_PACKET_SPLIT
                                             : l == leaf ? WT_PACKET_LEAF
                                                         : WT_PACKET_OUT;
}

/* Marks node (l, k)'s subtree below it as outside the basis. */
static void prune_below(int levels, int l, size_t k, unsigned char *basis)
{
    for (int d = l + 1; d <= levels; d++) {
        size_t first = k << (2 * (d - l)), n = (size_t)1 << (2 * (d - l));
        memset(basis + wt_packet_node_id(d, first), WT_PACKET_OUT, n);
    }
}

/* MATLAB's besttree on every node's cost @p costs: bottom-up, a node whose
 * cost is at most its children's best sum becomes a leaf. */
static void best_basis(int levels, const double *costs, unsigned char *basis, double *best)
{
    level_basis(levels, levels, basis);
    for (size_t k = 0; k < (size_t)1 << (2 * levels); k++)
        best[wt_packet_node_id(levels, k)] = costs[wt_packet_node_id(levels, k)];
    for (int l = levels - 1; l >= 0; l--)
        for (size_t k = 0; k < (size_t)1 << (2 * l); k++) {
            size_t id = wt_packet_node_id(l, k), child = wt_packet_node_id(l + 1, 4 * k);
            double children = best[child] + best[child + 1] + best[child + 2] + best[child + 3];
            if (costs[id] <= children) {
                basis[id] = WT_PACKET_LEAF;
                best[id] = costs[id];
                prune_below(levels, l, k, basis);
            } else {
                best[id] = children;
            }
        }
}

wt_status wt_packet_basis_of(int levels, const wt_packet_rule *rule, const double *costs,
                             unsigned char *basis)
{
    if (rule->kind != WT_BASIS_BEST) {
        level_basis(levels, rule->kind == WT_BASIS_LEVEL ? rule->level : levels, basis);
        return WT_OK;
    }
    double *best = malloc(wt_packet_node_count(levels) * sizeof *best);
    if (!best)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for %zu packet costs",
                            wt_packet_node_count(levels));
    best_basis(levels, costs, basis, best);
    free(best);
    return WT_OK;
}

wt_status wt_packet_choose(const wt_packet_tree *t, const wt_packet_rule *rule,
                           const wt_packet_cost *cost, unsigned char *basis, double *costs)
{
    const int L = t->params.levels;
    const size_t n = wt_packet_node_count(L);
    wt_status st = rule_check(rule, L);
    if (st != WT_OK)
        return st;
    double *all = costs ? costs : (rule->kind == WT_BASIS_BEST ? malloc(n * sizeof *all) : NULL);
    if (rule->kind == WT_BASIS_BEST && !all)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for %zu packet costs", n);
    for (int l = 0; all && l <= L; l++)
        for (size_t k = 0; k < (size_t)1 << (2 * l); k++)
            all[wt_packet_node_id(l, k)] = wt_packet_node_cost(t, l, k, cost);
    st = wt_packet_basis_of(L, rule, all, basis);
    if (all != costs)
        free(all);
    return st;
}

/* Marks the ancestors of leaf (l, k) as split; 0 when one is a leaf already. */
static int mark_ancestors(int l, size_t k, unsigned char *basis)
{
    for (int a = l - 1; a >= 0; a--) {
        unsigned char *m = &basis[wt_packet_node_id(a, k >> (2 * (l - a)))];
        if (*m == WT_PACKET_LEAF)
            return 0;
        *m = WT_PACKET_SPLIT;
    }
    return 1;
}

/* 1 when every split node's four children are leaves or split. */
static int complete(int levels, const unsigned char *basis, char *missing)
{
    for (int l = 0; l < levels; l++)
        for (size_t k = 0; k < (size_t)1 << (2 * l); k++) {
            if (basis[wt_packet_node_id(l, k)] != WT_PACKET_SPLIT)
                continue;
            for (size_t c = 4 * k; c < 4 * k + 4; c++)
                if (basis[wt_packet_node_id(l + 1, c)] == WT_PACKET_OUT) {
                    wt_packet_path(l + 1, c, missing);
                    return 0;
                }
        }
    return 1;
}

wt_status wt_packet_basis_from_paths(int levels, const char *const *paths, size_t n,
                                     unsigned char *basis)
{
    memset(basis, WT_PACKET_OUT, wt_packet_node_count(levels));
    for (size_t i = 0; i < n; i++) {
        int l;
        size_t k;
        if (!wt_packet_path_parse(paths[i], &l, &k) || l > levels)
            return wt_error_set(WT_ERR_INVALID, "'%s' is not a node of a %d-level packet tree",
                                paths[i], levels);
        unsigned char *m = &basis[wt_packet_node_id(l, k)];
        if (*m != WT_PACKET_OUT || !mark_ancestors(l, k, basis))
            return wt_error_set(WT_ERR_INVALID, "leaf '%s' overlaps another leaf", paths[i]);
        *m = WT_PACKET_LEAF;
    }
    char missing[WT_MAX_LEVELS + 1] = "";
    if (n == 0 || !complete(levels, basis, missing))
        return wt_error_set(WT_ERR_INVALID, "the leaves do not cover the image (no '%s')",
                            missing);
    return WT_OK;
}

/* Depth first from (l, k), a h v d order. */
static size_t leaves_below(int levels, const unsigned char *basis, int l, size_t k, int *level,
                           size_t *index, size_t n)
{
    unsigned char m = basis[wt_packet_node_id(l, k)];
    if (m == WT_PACKET_LEAF) {
        if (level && index) {
            level[n] = l;
            index[n] = k;
        }
        return n + 1;
    }
    for (size_t c = 4 * k; m == WT_PACKET_SPLIT && l < levels && c < 4 * k + 4; c++)
        n = leaves_below(levels, basis, l + 1, c, level, index, n);
    return n;
}

size_t wt_packet_leaves(int levels, const unsigned char *basis, int *level, size_t *k)
{
    return leaves_below(levels, basis, 0, 0, level, k, 0);
}
