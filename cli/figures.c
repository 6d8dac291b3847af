/* Band statistics on the engine: reductions and medians run where the pyramid
 * is (wt_epyramid_reduce, wt_epyramid_median_abs); the entropy's histogram is
 * built on the host after a download (wt_epyramid_entropy). */
#include "figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double figures_default_qstep(int bit_depth)
{
    return ldexp(1.0, bit_depth) / 256.0;
}

/* Every band of every channel in storage order; returns their number. */
static size_t all_bands(const wt_pyramid *s, wt_band_ref *sel)
{
    size_t n = 0;
    for (int c = 0; c < s->channels; c++)
        sel[n++] = (wt_band_ref){s->levels, WT_BAND_A, c};
    for (int l = s->levels; l >= 1; l--)
        for (int b = WT_BAND_H; b <= WT_BAND_D; b++)
            for (int c = 0; c < s->channels; c++)
                sel[n++] = (wt_band_ref){l, (wt_band)b, c};
    return n;
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
    double energy[4] = {0};
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
        f->nbands = all_bands(shape, sel);
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
        n = all_bands(shape, sel);
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

void figures_band_name(const wt_band_ref *r, char *buf, size_t size)
{
    static const char letters[] = "AHVD";
    snprintf(buf, size, "c%c%d", letters[r->band], r->level);
}
