/* "Keep the largest" ranked by each coefficient's contribution to the
 * reconstruction: |c| times the L2 norm of its band's synthesis basis
 * function. For orthonormal wavelets every norm is 1 (the plain ranking);
 * for biorthogonal and JPEG 2000 wavelets (cdf97 = bior4.4 with gains) the
 * norms undo the gains, so the kept set no longer depends on them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_impl.h"
#include "wavetool.h"

/* Levels computed exactly; deeper ones follow the last ratio (the iterated
 * filters converge to the scaling function). */
#define NORM_EXACT_LEVELS 10

/* Synthesis filters and their true lengths (JPEG 2000 kinds: odd supports;
 * rec_lo has the high-pass support, rec_hi the low-pass one). */
static void rec_filters(const wt_wavelet *w, const double **lo, int *nlo, const double **hi,
                        int *nhi)
{
    *lo = w->rec_lo;
    *hi = w->rec_hi;
    *nlo = w->kind == WT_KIND_JPEG2000 ? w->support_hi : w->filter_len;
    *nhi = w->kind == WT_KIND_JPEG2000 ? w->support_lo : w->filter_len;
}

static double l2(const double *g, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += g[i] * g[i];
    return sqrt(s);
}

/* out[l - 1] = ||g_l|| for l = 1..levels (at most NORM_EXACT_LEVELS),
 * g_1 = rec_hi (or rec_lo), g_k = upsample2(g_{k-1}) * rec_lo: one pass
 * over the levels (each level from scratch made `--keep` on small images
 * spend most of its time here). Out of memory: NaN. */
static void norms_1d(const wt_wavelet *w, int levels, int high, double *out)
{
    const double *lo, *hi;
    int nlo, nhi;
    rec_filters(w, &lo, &nlo, &hi, &nhi);
    size_t cap = ((size_t)1 << (levels + 1)) * (size_t)(nlo + nhi) + 16;
    double *g = calloc(cap, sizeof *g), *t = calloc(cap, sizeof *t);
    if (!g || !t) {
        free(g);
        free(t);
        for (int l = 0; l < levels; l++)
            out[l] = NAN;
        return;
    }
    size_t n = (size_t)(high ? nhi : nlo);
    memcpy(g, high ? hi : lo, n * sizeof *g);
    out[0] = l2(g, n);
    for (int k = 2; k <= levels; k++) {
        size_t m = 2 * n - 1 + (size_t)nlo - 1;
        memset(t, 0, m * sizeof *t);
        for (size_t i = 0; i < n; i++)
            for (int j = 0; j < nlo; j++)
                t[2 * i + (size_t)j] += g[i] * lo[j];
        memcpy(g, t, m * sizeof *g);
        n = m;
        out[k - 1] = l2(g, n);
    }
    free(g);
    free(t);
}

/* The 1D norms of a wavelet up to the levels computed exactly; deeper
 * levels follow the last ratio. */
typedef struct norm_table {
    double lo[NORM_EXACT_LEVELS], hi[NORM_EXACT_LEVELS];
    int exact;
} norm_table;

static void norm_table_init(norm_table *t, const wt_wavelet *w, int levels)
{
    t->exact = levels < NORM_EXACT_LEVELS ? levels : NORM_EXACT_LEVELS;
    norms_1d(w, t->exact, 0, t->lo);
    norms_1d(w, t->exact, 1, t->hi);
}

static double norm_at(const double *norms, int exact, int level)
{
    if (level <= exact)
        return norms[level - 1];
    double cur = norms[exact - 1], prev = norms[exact - 2]; /* exact = NORM_EXACT_LEVELS */
    return cur * pow(cur / prev, level - exact);
}

static double band_norm(const norm_table *t, int level, wt_band band)
{
    double lo = norm_at(t->lo, t->exact, level), hi = norm_at(t->hi, t->exact, level);
    switch (band) {
    case WT_BAND_A: return lo * lo;
    case WT_BAND_H:
    case WT_BAND_V: return lo * hi;
    case WT_BAND_D: return hi * hi;
    }
    return NAN;
}

double wt_band_synthesis_norm(const wt_wavelet *w, int level, wt_band band)
{
    if (!w || level < 1)
        return NAN;
    norm_table t;
    norm_table_init(&t, w, level);
    return band_norm(&t, level, band);
}

/* Weight of each detail band of @p sel; 1 when every weight is 1 within
 * 1e-9. The norms of every level are computed once for all bands. */
static int band_weights(const wt_epyramid *p, const wt_band_ref *sel, size_t n, double *w)
{
    int all_one = 1, levels = 1;
    for (size_t i = 0; i < n; i++)
        levels = sel[i].level > levels ? sel[i].level : levels;
    norm_table t;
    norm_table_init(&t, wt_epyramid_params(p)->wavelet, levels);
    for (size_t i = 0; i < n; i++) {
        w[i] = band_norm(&t, sel[i].level, sel[i].band);
        all_one &= fabs(w[i] - 1.0) < 1e-9;
    }
    return all_one;
}

static int by_value_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : (x > y ? -1 : 0);
}

/* Integer pyramids (legall53) cannot be scaled in place: rank on the host. */
static wt_status keep_weighted_host(wt_epyramid *p, const wt_band_ref *sel, size_t n,
                                    const double *w, double fraction)
{
    const wt_pyramid *shape = wt_epyramid_shape(p);
    wt_pyramid host = *shape;
    host.data = malloc(shape->total * 4);
    host.owned = 1;
    if (!host.data)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    wt_status st = wt_epyramid_download(p, &host);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        size_t bh, bw;
        wt_pyramid_band_shape(shape, sel[i].level, sel[i].band, &bh, &bw);
        total += bh * bw;
    }
    double *v = malloc((total ? total : 1) * sizeof *v);
    if (st == WT_OK && !v)
        st = wt_error_set(WT_ERR_NOMEM, "out of memory");
    size_t k = (size_t)floor(fraction * (double)total + 0.5);
    for (size_t i = 0, at = 0; st == WT_OK && i < n; i++) {
        size_t bh, bw;
        wt_pyramid_band_shape(shape, sel[i].level, sel[i].band, &bh, &bw);
        const int32_t *c = (const int32_t *)host.data +
                           wt_pyramid_offset(shape, sel[i].level, sel[i].band, sel[i].channel);
        for (size_t j = 0; j < bh * bw; j++)
            v[at++] = fabs((double)c[j]) * w[i];
    }
    if (st == WT_OK && k < total) {
        double *sorted = malloc((total ? total : 1) * sizeof *sorted);
        if (!sorted) {
            st = wt_error_set(WT_ERR_NOMEM, "out of memory");
        } else {
            memcpy(sorted, v, total * sizeof *v);
            qsort(sorted, total, sizeof *sorted, by_value_desc);
            double cut = k ? sorted[k - 1] : INFINITY;
            size_t above = 0;
            for (size_t i = 0; i < total; i++)
                above += v[i] > cut;
            size_t ties = k - above;
            for (size_t i = 0, at = 0; i < n; i++) {
                size_t bh, bw;
                wt_pyramid_band_shape(shape, sel[i].level, sel[i].band, &bh, &bw);
                int32_t *c = (int32_t *)host.data +
                             wt_pyramid_offset(shape, sel[i].level, sel[i].band, sel[i].channel);
                for (size_t j = 0; j < bh * bw; j++, at++)
                    if (v[at] < cut || (v[at] == cut && (ties == 0 || (ties--, 0))))
                        c[j] = 0;
            }
            free(sorted);
            st = wt_epyramid_upload(p, &host);
        }
    }
    free(v);
    free(host.data);
    return st;
}

/* Float pyramids: scale each band by its weight, keep the largest, scale back. */
static wt_status keep_weighted_on_engine(wt_epyramid *p, const wt_band_ref *sel, size_t n,
                                         double *w, double fraction, double *kept)
{
    wt_status st = wt_epyramid_map(p, WT_OP_SCALE, sel, w, n);
    if (st == WT_OK)
        st = wt_epyramid_keep(p, fraction, kept);
    for (size_t i = 0; i < n; i++)
        w[i] = 1.0 / w[i];
    if (st == WT_OK)
        st = wt_epyramid_map(p, WT_OP_SCALE, sel, w, n);
    return st;
}

wt_status wt_epyramid_keep_weighted(wt_epyramid *p, double fraction, double *kept)
{
    if (isnan(fraction) || fraction < 0.0 || fraction > 1.0)
        return wt_error_set(WT_ERR_INVALID, "fraction to keep must be between 0 and 1");
    const wt_pyramid *shape = wt_epyramid_shape(p);
    size_t most = (size_t)3 * (size_t)shape->levels * (size_t)shape->channels;
    wt_band_ref *sel = malloc((most ? most : 1) * sizeof *sel);
    double *w = malloc((most ? most : 1) * sizeof *w);
    wt_status st = sel && w ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    size_t n = st == WT_OK ? wt_epyramid_details(p, sel) : 0;
    if (st == WT_OK && band_weights(p, sel, n, w))
        st = wt_epyramid_keep(p, fraction, kept);
    else if (st == WT_OK && shape->dtype == WT_FLOAT32)
        st = keep_weighted_on_engine(p, sel, n, w, fraction, kept);
    else if (st == WT_OK) {
        st = keep_weighted_host(p, sel, n, w, fraction);
        if (st == WT_OK && kept)
            st = wt_epyramid_fraction_nonzero(p, sel, n, kept);
    }
    free(sel);
    free(w);
    return st;
}
