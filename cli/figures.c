/* Band statistics on the engine: reductions and medians run where the pyramid
 * is (wt_epyramid_reduce, wt_epyramid_median_abs); the entropy's histogram is
 * built on the host after a download (wt_epyramid_entropy). */
#include "figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#include "report.h"         /* report_sample_range */
#include "wavetool_hooks.h" /* wt_select_kth, wt_pyramid_bands */

double figures_qstep_for(int bit_depth, double largest)
{
    int bits = 8;
    if (bit_depth == WT_DEPTH_F32)
        return 1.0;
    while (bit_depth == 16 && ldexp(1.0, bits) <= largest)
        bits++;
    return ldexp(1.0, bits) / 256.0;
}

double figures_default_qstep(const wt_image *img)
{
    double lo, hi;
    if (img->bit_depth == WT_DEPTH_F32)
        return 1.0;
    report_sample_range(img, &lo, &hi);
    return figures_qstep_for(img->bit_depth, hi);
}

static size_t band_count(const wt_pyramid *s)
{
    return (size_t)s->channels * (1 + 3 * (size_t)s->levels);
}

static void derive(band_figures *b, double channel_energy)
{
    double n = (double)b->s.count;
    b->mean = n > 0 ? b->s.sum / n : 0.0;
    double var = n > 0 ? b->s.sum_sq / n - b->mean * b->mean : 0.0;
    b->std = var > 0.0 ? sqrt(var) : 0.0;
    b->energy_share = channel_energy > 0.0 ? 100.0 * b->s.sum_sq / channel_energy : 0.0;
    b->zero_fraction = n > 0 ? (double)b->s.zeros / n : 0.0;
    b->near_zero_fraction = n > 0 ? (double)b->s.at_most / n : 0.0;
    b->mad_sigma /= FIGURES_MAD_SCALE;
}

static wt_status compute_bands(const wt_epyramid *ep, file_figures *f, const wt_band_ref *sel,
                               double *work)
{
    size_t n = f->nbands;
    wt_band_stats *stats = calloc(n, sizeof *stats);
    double *eps = work, *median = work + n, *entropy = work + 2 * n;
    if (!stats)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        eps[i] = f->eps;
    wt_status st = wt_epyramid_reduce(ep, sel, eps, n, stats);
    if (st == WT_OK)
        st = wt_epyramid_median_abs(ep, sel, n, 0, median);
    if (st == WT_OK)
        st = wt_epyramid_entropy(ep, sel, n, f->qstep, entropy);
    const wt_pyramid *shape = wt_epyramid_shape(ep);
    double energy[WT_MAX_CHANNELS] = {0};
    for (size_t i = 0; st == WT_OK && i < n; i++)
        energy[sel[i].channel] += stats[i].sum_sq;
    f->bpp = 0.0;
    for (size_t i = 0; st == WT_OK && i < n; i++) {
        band_figures *b = &f->bands[i];
        b->ref = sel[i];
        wt_pyramid_band_shape(shape, sel[i].level, sel[i].band, &b->rows, &b->cols);
        b->s = stats[i];
        b->mad_sigma = median[i];
        b->entropy = entropy[i];
        derive(b, energy[sel[i].channel]);
        f->bpp += (double)b->s.count * b->entropy;
    }
    f->bpp /= (double)f->layout.width * (double)f->layout.height;
    free(stats);
    return st;
}

wt_status figures_compute(const wt_epyramid *ep, file_figures *f)
{
    const wt_pyramid *shape = wt_epyramid_shape(ep);
    size_t n = band_count(shape);
    wt_band_ref *sel = malloc(n * sizeof *sel);
    double *work = malloc(3 * n * sizeof *work);
    f->bands = calloc(n, sizeof *f->bands);
    wt_status st = sel && work && f->bands ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    if (st == WT_OK) {
        f->nbands = wt_pyramid_bands(shape, sel);
        st = compute_bands(ep, f, sel, work);
    }
    free(sel);
    free(work);
    return st;
}

wt_status figures_bpp(const wt_epyramid *ep, double qstep, double pixels, double *bpp)
{
    const wt_pyramid *shape = wt_epyramid_shape(ep);
    size_t n = band_count(shape);
    wt_band_ref *sel = malloc(n * sizeof *sel);
    double *bits = malloc(n * sizeof *bits);
    wt_status st = sel && bits ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    if (st == WT_OK) {
        n = wt_pyramid_bands(shape, sel);
        st = wt_epyramid_entropy(ep, sel, n, qstep, bits);
    }
    double total = 0.0;
    for (size_t i = 0; st == WT_OK && i < n; i++) {
        size_t h, w;
        wt_pyramid_band_shape(shape, sel[i].level, sel[i].band, &h, &w);
        total += (double)(h * w) * bits[i];
    }
    *bpp = total / pixels;
    free(sel);
    free(bits);
    return st;
}

void figures_free(file_figures *f)
{
    free(f->file);
    free(f->bands);
    f->file = NULL;
    f->bands = NULL;
    f->nbands = 0;
}

void figures_band_name(wt_transform t, const wt_band_ref *r, char *buf, size_t size)
{
    wt_transform_class_of(t)->ref_name(r, buf, size);
}

void figures_name_of(const file_figures *f, const band_figures *b, char *buf, size_t size)
{
    if (figures_are_packets(f))
        snprintf(buf, size, "%s", b->path[0] ? b->path : "root");
    else if (b->key[0])
        snprintf(buf, size, "%s%d", b->key, b->ref.level);
    else
        figures_band_name(f->transform, &b->ref, buf, size);
}

char figures_orientation(wt_transform t, const wt_band_ref *r)
{
    return wt_transform_class_of(t)->orientations[r->band & 3];
}

/* ---- undecimated band stacks, on the host ----------------------------------- */

/* The bands of a stack in report order (the stack's, each band's channels
 * together), with their index in the stack. */
static size_t stack_bands(const wt_uparams *up, int channels, wt_band_ref *sel, int *index)
{
    const wt_transform_class *k = wt_transform_class_of(up->transform);
    size_t n = 0;
    for (int i = 0; i < k->nbands(up); i++)
        for (int c = 0; c < channels; c++) {
            k->band_ref(up, i, &sel[n]);
            sel[n].channel = c;
            index[n++] = i;
        }
    return n;
}

static wt_band_stats plane_stats(const float *v, size_t n, double eps)
{
    wt_band_stats s = {.count = n, .min = INFINITY, .max = -INFINITY};
    for (size_t i = 0; i < n; i++) {
        double c = v[i], a = fabs(c);
        s.sum += c;
        s.sum_sq += c * c;
        s.min = c < s.min ? c : s.min;
        s.max = c > s.max ? c : s.max;
        s.max_abs = a > s.max_abs ? a : s.max_abs;
        s.zeros += c == 0.0;
        s.at_most += a <= eps;
    }
    return s;
}

/* numpy's median of |v| (the mean of the two middle values for an even n). */
static double median_abs(const float *v, size_t n, double *work)
{
    for (size_t i = 0; i < n; i++)
        work[i] = fabsf(v[i]);
    double hi = wt_select_kth(work, n, n / 2);
    if (n % 2)
        return hi;
    double lo = work[0];
    for (size_t i = 1; i < n / 2; i++) /* the largest of the lower half */
        lo = work[i] > lo ? work[i] : lo;
    return (lo + hi) / 2.0;
}

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Entropy in bits of the dead-zone indices sign(c) floor(|c| / step). */
static double plane_entropy(const float *v, size_t n, double step, int64_t *q)
{
    for (size_t i = 0; i < n; i++) {
        double m = floor(fabs((double)v[i]) / step);
        m = m < 9e18 ? m : 9e18;
        q[i] = v[i] < 0 ? -(int64_t)m : (int64_t)m;
    }
    qsort(q, n, sizeof *q, compare_int64);
    double bits = 0.0;
    for (size_t i = 0, run; i < n; i += run) {
        for (run = 1; i + run < n && q[i + run] == q[i]; run++)
            ;
        double p = (double)run / (double)n;
        bits -= p * log2(p);
    }
    return bits;
}

wt_status figures_compute_stack(const wt_uparams *up, const float *stack, file_figures *f)
{
    const int C = f->layout.channels;
    const size_t h = f->layout.height, w = f->layout.width, plane = h * w;
    size_t n = (size_t)C * (size_t)wt_ustack_bands(up);
    wt_band_ref *sel = malloc(n * sizeof *sel);
    int *index = malloc(n * sizeof *index);
    double *work = malloc(plane * sizeof *work);
    int64_t *q = malloc(plane * sizeof *q);
    f->bands = calloc(n, sizeof *f->bands);
    wt_status st = sel && index && work && q && f->bands
                       ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    double energy[WT_MAX_CHANNELS] = {0};
    f->nbands = st == WT_OK ? stack_bands(up, C, sel, index) : 0;
    for (size_t i = 0; i < f->nbands; i++) {
        band_figures *b = &f->bands[i];
        const float *v = stack + ((size_t)index[i] * (size_t)C + (size_t)sel[i].channel) * plane;
        b->ref = sel[i];
        b->rows = h;
        b->cols = w;
        b->s = plane_stats(v, plane, f->eps);
        b->mad_sigma = median_abs(v, plane, work);
        b->entropy = plane_entropy(v, plane, f->qstep, q);
        energy[sel[i].channel] += b->s.sum_sq;
    }
    f->bpp = 0.0;
    for (size_t i = 0; i < f->nbands; i++) {
        derive(&f->bands[i], energy[sel[i].channel]);
        f->bpp += (double)f->bands[i].s.count * f->bands[i].entropy;
    }
    f->bpp /= (double)plane;
    free(sel);
    free(index);
    free(work);
    free(q);
    return st;
}

/* ---- volumes, on the host ------------------------------------------------------ */

static void volume_band(const wt_vcoeffs *k, int i, int c, const file_figures *f, double *work,
                        int64_t *q, band_figures *b)
{
    const wt_vband *v = &k->band[i];
    const size_t n = v->shape[0] * v->shape[1] * v->shape[2];
    const float *data = (const float *)v->data + (size_t)c * n;
    b->ref = (wt_band_ref){v->level, i ? WT_BAND_D : WT_BAND_A, c};
    snprintf(b->key, sizeof b->key, "%s", v->key);
    b->depth = v->shape[0];
    b->rows = v->shape[1];
    b->cols = v->shape[2];
    b->s = plane_stats(data, n, f->eps);
    b->mad_sigma = median_abs(data, n, work);
    b->entropy = plane_entropy(data, n, f->qstep, q);
}

wt_status figures_compute_volume(const wt_vcoeffs *k, file_figures *f)
{
    const int C = k->channels;
    size_t largest = 1;
    for (int i = 0; i < k->nbands; i++) {
        size_t n = k->band[i].shape[0] * k->band[i].shape[1] * k->band[i].shape[2];
        largest = n > largest ? n : largest;
    }
    double *work = malloc(largest * sizeof *work);
    int64_t *q = malloc(largest * sizeof *q);
    f->bands = calloc((size_t)k->nbands * (size_t)C, sizeof *f->bands);
    f->nbands = 0;
    wt_status st = work && q && f->bands ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    double energy[WT_MAX_CHANNELS] = {0};
    for (int i = 0; st == WT_OK && i < k->nbands; i++)
        for (int c = 0; c < C; c++) {
            band_figures *b = &f->bands[f->nbands++];
            volume_band(k, i, c, f, work, q, b);
            energy[c] += b->s.sum_sq;
        }
    f->bpp = 0.0;
    for (size_t i = 0; i < f->nbands; i++) {
        derive(&f->bands[i], energy[f->bands[i].ref.channel]);
        f->bpp += (double)f->bands[i].s.count * f->bands[i].entropy;
    }
    f->bpp /= (double)k->shape[0] * (double)k->shape[1] * (double)k->shape[2];
    free(work);
    free(q);
    return st;
}

/* ---- packet leaves, on the host ----------------------------------------------------- */

int figures_are_packets(const file_figures *f)
{
    return wt_transform_class_of(f->transform)->layout == WT_LAYOUT_PACKET;
}

/* Channel @p c of the leaf k of @p level. */
static void packet_band(const wt_packet_tree *t, int level, size_t k, int c,
                        const file_figures *f, double *work, int64_t *q, band_figures *b)
{
    const size_t n = t->node_h[level] * t->node_w[level];
    const float *data = wt_packet_node(t, level, k) + (size_t)c * n;
    wt_packet_path(level, k, b->path);
    b->ref = (wt_band_ref){level, level ? (wt_band)(k & 3) : WT_BAND_A, c};
    b->rows = t->node_h[level];
    b->cols = t->node_w[level];
    b->s = plane_stats(data, n, f->eps);
    b->mad_sigma = median_abs(data, n, work);
    b->entropy = plane_entropy(data, n, f->qstep, q);
    b->cost = wt_packet_cost_of(data, n, &f->cost);
}

wt_status figures_compute_packets(const wt_packet_tree *t, const unsigned char *basis,
                                  file_figures *f)
{
    const int L = t->params.levels, C = t->channels;
    const size_t leaves = wt_packet_leaves(L, basis, NULL, NULL);
    const size_t largest = t->node_h[0] * t->node_w[0];
    int *level = malloc(leaves * sizeof *level);
    size_t *index = malloc(leaves * sizeof *index);
    double *work = malloc(largest * sizeof *work);
    int64_t *q = malloc(largest * sizeof *q);
    f->bands = calloc(leaves * (size_t)C, sizeof *f->bands);
    f->nbands = 0;
    wt_status st = level && index && work && q && f->bands
                       ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    double energy[WT_MAX_CHANNELS] = {0};
    if (st == WT_OK)
        wt_packet_leaves(L, basis, level, index);
    for (size_t i = 0; st == WT_OK && i < leaves; i++)
        for (int c = 0; c < C; c++) {
            band_figures *b = &f->bands[f->nbands++];
            packet_band(t, level[i], index[i], c, f, work, q, b);
            energy[c] += b->s.sum_sq;
        }
    f->bpp = 0.0;
    for (size_t i = 0; i < f->nbands; i++) {
        derive(&f->bands[i], energy[f->bands[i].ref.channel]);
        f->bpp += (double)f->bands[i].s.count * f->bands[i].entropy;
    }
    f->bpp /= (double)t->height * (double)t->width;
    free(level);
    free(index);
    free(work);
    free(q);
    return st;
}
