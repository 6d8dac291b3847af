/* Mosaics of a volume's bands (wavetool_hooks.h: wt_volume_mosaic): each band
 * cut at one z or projected along z into channels x y x x float planes, laid
 * out in a grid of levels and keys, drawn by wt_mosaic_render_tiles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wavetool_hooks.h"

static size_t volume_of(const size_t s[3])
{
    return s[0] * s[1] * s[2];
}

static double sample(const wt_vcoeffs *k, const wt_vband *b, size_t i)
{
    return k->dtype == WT_INT32 ? (double)((const int32_t *)b->data)[i]
                                : (double)((const float *)b->data)[i];
}

/* Band @p b's planes at the slice of @p z (< 0: the projection) into @p out
 * (channels x y x x). */
static void band_planes(const wt_vcoeffs *k, const wt_vband *b, int approx, long z, float *out)
{
    const size_t zs = b->shape[0], plane = b->shape[1] * b->shape[2], n = volume_of(b->shape);
    const size_t at = z < 0 ? 0 : (size_t)z * zs / k->shape[0];
    for (int c = 0; c < k->channels; c++)
        for (size_t i = 0; i < plane; i++) {
            const size_t first = (size_t)c * n + i;
            double v = sample(k, b, first + (at < zs ? at : zs - 1) * plane);
            for (size_t j = 1; z < 0 && j < zs; j++) { /* the maximum along z */
                double u = sample(k, b, first + j * plane);
                v = approx ? fmax(v, u) : fmax(fabs(v), fabs(u));
            }
            out[(size_t)c * plane + i] = (float)(z < 0 && !approx ? fabs(v) : v);
        }
}

/* The grid cell of band @p i: the level's row from the coarsest, the key's
 * column (its 'a'/'d' letters as the bits of an index); the starlet's one row. */
static void cell_of(const wt_vcoeffs *k, int i, size_t *row, size_t *col)
{
    const wt_vband *b = &k->band[i];
    if (b->key[0] == 'c' || b->key[0] == 'w') {
        *row = 0;
        *col = (size_t)i;
        return;
    }
    size_t index = 0;
    for (const char *p = b->key; *p; p++)
        index = 2 * index + (*p == 'd');
    *row = (size_t)(k->levels - b->level);
    *col = index;
}

wt_status wt_volume_mosaic(const wt_vcoeffs *k, long z, wt_scale scale, int bit_depth,
                           wt_image *out)
{
    size_t heights[WT_VOLUME_MAX_BANDS] = {0}, widths[WT_VOLUME_MAX_BANDS] = {0};
    size_t total = 0;
    for (int i = 0; i < k->nbands; i++) {
        size_t row, col;
        cell_of(k, i, &row, &col);
        heights[row] = heights[row] > k->band[i].shape[1] ? heights[row] : k->band[i].shape[1];
        widths[col] = widths[col] > k->band[i].shape[2] ? widths[col] : k->band[i].shape[2];
        total += k->band[i].shape[1] * k->band[i].shape[2] * (size_t)k->channels;
    }
    size_t mh = 0, mw = 0, y0[WT_VOLUME_MAX_BANDS], x0[WT_VOLUME_MAX_BANDS];
    for (int r = 0; r < WT_VOLUME_MAX_BANDS; r++) {
        y0[r] = mh, x0[r] = mw;
        mh += heights[r], mw += widths[r];
    }
    float *planes = malloc((total ? total : 1) * sizeof *planes);
    wt_mosaic_tile *tiles = malloc((size_t)(k->nbands ? k->nbands : 1) * sizeof *tiles);
    wt_status st = planes && tiles ? WT_OK
                                   : wt_error_set(WT_ERR_NOMEM, "out of memory for a mosaic");
    float *at = planes;
    for (int i = 0; st == WT_OK && i < k->nbands; i++) {
        const wt_vband *b = &k->band[i];
        size_t row, col;
        cell_of(k, i, &row, &col);
        const int approx = strspn(b->key, "ac") == strlen(b->key);
        band_planes(k, b, approx, z, at);
        tiles[i] = (wt_mosaic_tile){at, b->shape[1], b->shape[2], y0[row], x0[col], approx};
        at += b->shape[1] * b->shape[2] * (size_t)k->channels;
    }
    if (st == WT_OK)
        st = wt_mosaic_render_tiles(tiles, (size_t)k->nbands, mh, mw, k->channels, scale,
                                    bit_depth, out);
    free(planes);
    free(tiles);
    return st;
}
