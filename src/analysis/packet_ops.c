/* Operations on the detail leaves of a packet basis (every leaf but the
 * approximation a..a, which is kept as the DWT keeps cA): thresholding,
 * keeping the largest (ranked by |c| x the leaf's synthesis norm, as the
 * DWT's --keep), and the dead-zone quantiser with its rate. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wavetool.h"
#include "wavetool_hooks.h"

/* The detail leaves of @p basis (malloc'ed levels and indices); how many. */
static size_t detail_leaves(const wt_packet_tree *t, const unsigned char *basis, int **level,
                            size_t **k)
{
    size_t n = wt_packet_leaves(t->params.levels, basis, NULL, NULL);
    *level = malloc((n ? n : 1) * sizeof **level);
    *k = malloc((n ? n : 1) * sizeof **k);
    if (!*level || !*k)
        return 0;
    wt_packet_leaves(t->params.levels, basis, *level, *k);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if ((*k)[i] != 0) {
            (*level)[m] = (*level)[i];
            (*k)[m++] = (*k)[i];
        }
    return m;
}

/* ||g|| of the 1-D synthesis function of a leaf along one axis: its last
 * split's filter, upsampled and convolved with each earlier split's filter
 * (@p high[i]: split i + 1 took the high-pass along this axis). */
static double axis_norm(const wt_wavelet *w, const int *high, int level)
{
    size_t F = (size_t)w->filter_len, cap = ((size_t)2 << level) * F;
    double *g = calloc(cap, sizeof *g), *t = calloc(cap, sizeof *t), s = 0.0;
    if (!g || !t) {
        free(g);
        free(t);
        return NAN;
    }
    size_t n = F;
    memcpy(g, high[level - 1] ? w->rec_hi : w->rec_lo, F * sizeof *g);
    for (int i = level - 2; i >= 0; i--) {
        const double *f = high[i] ? w->rec_hi : w->rec_lo;
        size_t m = 2 * n - 1 + F - 1;
        memset(t, 0, m * sizeof *t);
        for (size_t a = 0; a < n; a++)
            for (size_t b = 0; b < F; b++)
                t[2 * a + b] += g[a] * f[b];
        memcpy(g, t, m * sizeof *g);
        n = m;
    }
    for (size_t i = 0; i < n; i++)
        s += g[i] * g[i];
    free(g);
    free(t);
    return sqrt(s);
}

double wt_packet_synthesis_norm(const wt_wavelet *w, int level, size_t k)
{
    int high_y[WT_MAX_LEVELS], high_x[WT_MAX_LEVELS];
    for (int i = 0; i < level; i++) {
        unsigned b = (unsigned)(k >> (2 * (level - 1 - i))) & 3; /* a h v d */
        high_y[i] = b == 1 || b == 3;
        high_x[i] = b == 2 || b == 3;
    }
    return level ? axis_norm(w, high_y, level) * axis_norm(w, high_x, level) : 1.0;
}

/* Nonzero detail coefficients / all detail coefficients (1 without any). */
static double kept_fraction(const wt_packet_tree *t, const int *level, const size_t *k, size_t n)
{
    double nonzero = 0.0, all = 0.0;
    for (size_t i = 0; i < n; i++) {
        const float *c = wt_packet_node(t, level[i], k[i]);
        size_t m = wt_packet_node_size(t, level[i]);
        for (size_t j = 0; j < m; j++)
            nonzero += c[j] != 0.0f;
        all += (double)m;
    }
    return all > 0.0 ? nonzero / all : 1.0;
}

wt_status wt_packet_threshold(wt_packet_tree *t, const unsigned char *basis, double value,
                              int soft, double *kept)
{
    int *level;
    size_t *k, n = detail_leaves(t, basis, &level, &k);
    wt_status st = level && k ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == WT_OK && i < n; i++) {
        float *c = wt_packet_node(t, level[i], k[i]);
        for (size_t j = 0; j < wt_packet_node_size(t, level[i]); j++) {
            double v = c[j], m = fabs(v);
            c[j] = (float)(m < value ? 0.0 : (soft ? copysign(m - value, v) : v));
        }
    }
    if (st == WT_OK)
        *kept = kept_fraction(t, level, k, n);
    free(level);
    free(k);
    return st;
}

/* Zeroes all but the round(@p fraction x N) largest |c| x weight of the
 * detail leaves (ties: the first in leaf order stay). */
static wt_status keep_largest(wt_packet_tree *t, const int *level, const size_t *k, size_t n,
                              const double *weight, double fraction)
{
    size_t all = 0;
    for (size_t i = 0; i < n; i++)
        all += wt_packet_node_size(t, level[i]);
    size_t keep = (size_t)llround(fraction * (double)all);
    if (keep >= all)
        return WT_OK;
    double *r = malloc((all ? all : 1) * sizeof *r);
    if (!r)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    for (size_t i = 0, at = 0; i < n; i++) {
        const float *c = wt_packet_node(t, level[i], k[i]);
        for (size_t j = 0; j < wt_packet_node_size(t, level[i]); j++)
            r[at++] = fabs((double)c[j]) * weight[i];
    }
    double cut = keep ? wt_select_kth(r, all, all - keep) : INFINITY;
    size_t above = 0;
    for (size_t i = 0; i < n; i++) {
        const float *c = wt_packet_node(t, level[i], k[i]);
        for (size_t j = 0; j < wt_packet_node_size(t, level[i]); j++)
            above += fabs((double)c[j]) * weight[i] > cut;
    }
    size_t ties = keep - above;
    for (size_t i = 0; i < n; i++) {
        float *c = wt_packet_node(t, level[i], k[i]);
        for (size_t j = 0; j < wt_packet_node_size(t, level[i]); j++) {
            double v = fabs((double)c[j]) * weight[i];
            if (v < cut || (v == cut && ties == 0))
                c[j] = 0.0f;
            else if (v == cut)
                ties--;
        }
    }
    free(r);
    return WT_OK;
}

wt_status wt_packet_keep(wt_packet_tree *t, const unsigned char *basis, double fraction,
                         int weighted, double *kept)
{
    int *level;
    size_t *k, n = detail_leaves(t, basis, &level, &k);
    double *weight = malloc((n ? n : 1) * sizeof *weight);
    wt_status st = level && k && weight ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == WT_OK && i < n; i++)
        weight[i] = weighted ? wt_packet_synthesis_norm(t->params.wavelet, level[i], k[i]) : 1.0;
    if (st == WT_OK)
        st = keep_largest(t, level, k, n, weight, fraction);
    if (st == WT_OK)
        *kept = kept_fraction(t, level, k, n);
    free(level);
    free(k);
    free(weight);
    return st;
}

/* Bits of every leaf (every channel) at step @p step, per image pixel. */
static wt_status basis_bpp(const wt_packet_tree *t, const unsigned char *basis, double step,
                           double *bpp)
{
    double bits = 0.0;
    wt_status st = WT_OK;
    for (int l = 0; st == WT_OK && l <= t->params.levels; l++) {
        size_t plane = t->node_h[l] * t->node_w[l];
        for (size_t k = 0; st == WT_OK && k < (size_t)1 << (2 * l); k++)
            for (int c = 0; st == WT_OK && c < t->channels &&
                            basis[wt_packet_node_id(l, k)] == WT_PACKET_LEAF;
                 c++) {
                double b = 0.0;
                st = wt_quantized_entropy(wt_packet_node(t, l, k) + (size_t)c * plane, plane,
                                          step, &b);
                bits += b * (double)plane;
            }
    }
    *bpp = bits / ((double)t->height * (double)t->width);
    return st;
}

wt_status wt_packet_quantize(wt_packet_tree *t, const unsigned char *basis, double step,
                             double *bpp)
{
    int *level;
    size_t *k, n = detail_leaves(t, basis, &level, &k);
    wt_status st = level && k ? basis_bpp(t, basis, step, bpp)
                              : wt_error_set(WT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == WT_OK && i < n; i++) {
        float *c = wt_packet_node(t, level[i], k[i]);
        for (size_t j = 0; j < wt_packet_node_size(t, level[i]); j++) {
            double q = floor(fabs((double)c[j]) / step);
            c[j] = q == 0.0 ? 0.0f : (float)copysign((q + 0.5) * step, (double)c[j]);
        }
    }
    free(level);
    free(k);
    return st;
}
