/* The mosaic of a packet basis: each leaf in its place in the tree's
 * quadrants (a top-left, v top-right, h bottom-left, d bottom-right, as the
 * DWT's mosaic), scaled as the DWT's mosaic scales its bands (the leaf a..a
 * as an approximation), leaf borders (--grid) and paths (--labels). A level's
 * cell is twice the next level's, or its nodes' shape where that is larger
 * (the extension modes grow the nodes), so every leaf fits its cell. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mosaic_draw.h"
#include "wavetool.h"

/* Cell shapes of levels 0..deepest (the deepest leaf's level). */
static void cell_shapes(const wt_packet_tree *t, int deepest, size_t *ch, size_t *cw)
{
    ch[deepest] = t->node_h[deepest];
    cw[deepest] = t->node_w[deepest];
    for (int l = deepest - 1; l >= 0; l--) {
        ch[l] = 2 * ch[l + 1] > t->node_h[l] ? 2 * ch[l + 1] : t->node_h[l];
        cw[l] = 2 * cw[l + 1] > t->node_w[l] ? 2 * cw[l + 1] : t->node_w[l];
    }
}

/* Top-left corner of node (l, k) from its path's letters. */
static void cell_corner(int l, size_t k, const size_t *ch, const size_t *cw, size_t *y,
                        size_t *x)
{
    *y = *x = 0;
    for (int i = 1; i <= l; i++) {
        unsigned b = (unsigned)(k >> (2 * (l - i))) & 3; /* a h v d */
        *y += b == 1 || b == 3 ? ch[i] : 0;
        *x += b == 2 || b == 3 ? cw[i] : 0;
    }
}

/* One channel of a leaf: out = base + gain * (v or |v|). */
static void place_leaf_channel(const float *v, size_t h, size_t w, int approx, wt_scale scale,
                               wt_image *out, int ch, size_t y0, size_t x0)
{
    double lo = INFINITY, hi = -INFINITY, maxabs = 0.0, peak = out->bit_depth > 8 ? 65535.0 : 255.0;
    for (size_t i = 0; i < h * w; i++)
        if (isfinite(v[i])) {
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
            maxabs = fabs(v[i]) > maxabs ? fabs(v[i]) : maxabs;
        }
    double base = 0.0, center = 0.0, gain = 0.0;
    int absolute = 0;
    if (approx && hi > lo) {
        center = lo;
        gain = peak / (hi - lo);
    } else if (approx || scale == WT_SCALE_OFFSET) {
        base = peak / 2.0;
        gain = !approx && maxabs > 0.0 ? peak / (2.0 * maxabs) : 0.0;
    } else {
        gain = maxabs > 0.0 ? peak / maxabs : 0.0;
        absolute = 1;
    }
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++) {
            double c = v[y * w + x], s = base + gain * ((absolute ? fabs(c) : c) - center);
            s = s >= 0.0 ? (s < peak ? s : peak) : 0.0; /* NaN: 0 */
            size_t i = ((y0 + y) * out->width + x0 + x) * (size_t)out->channels + (size_t)ch;
            if (out->bit_depth > 8)
                ((uint16_t *)out->pixels)[i] = (uint16_t)lrint(s);
            else
                ((uint8_t *)out->pixels)[i] = (uint8_t)lrint(s);
        }
}

/* Lines over the top row and left column of a leaf's cell (none at the border). */
static void draw_cell_border(wt_image *out, size_t y0, size_t x0, size_t ch, size_t cw)
{
    double peak = out->bit_depth > 8 ? 65535.0 : 255.0;
    for (size_t x = x0; y0 > 0 && x < x0 + cw; x++)
        wt_mosaic_fill_pixel(out, y0, x, peak);
    for (size_t y = y0; x0 > 0 && y < y0 + ch; y++)
        wt_mosaic_fill_pixel(out, y, x0, peak);
}

static void place_leaf(const wt_packet_tree *t, int l, size_t k, const wt_mosaic_style *style,
                       const size_t *ch, const size_t *cw, wt_image *out)
{
    size_t y0, x0, h = t->node_h[l], w = t->node_w[l];
    cell_corner(l, k, ch, cw, &y0, &x0);
    const float *node = wt_packet_node(t, l, k);
    for (int c = 0; c < t->channels; c++)
        place_leaf_channel(node + (size_t)c * h * w, h, w, k == 0, style->scale, out, c, y0, x0);
    if (style->grid)
        draw_cell_border(out, y0, x0, ch[l], cw[l]);
    if (style->labels && l > 0) {
        char name[WT_MAX_LEVELS + 1];
        wt_packet_path(l, k, name);
        for (char *p = name; *p; p++)
            *p = (char)toupper((unsigned char)*p);
        wt_mosaic_draw_label(out, name, y0 + (style->grid && y0 ? 1 : 0),
                             x0 + (style->grid && x0 ? 1 : 0), h, w);
    }
}

wt_status wt_packet_mosaic(const wt_packet_tree *t, const unsigned char *basis,
                           const wt_mosaic_style *style, int bit_depth, wt_image *out)
{
    memset(out, 0, sizeof *out);
    if (style->range != WT_RANGE_BAND || style->transfer != WT_TRANSFER_LINEAR ||
        style->colormap != WT_COLORMAP_GRAY || style->clip != 100.0)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "packet mosaics take --scale auto|abs|offset, --grid and --labels");
    if ((bit_depth != 8 && bit_depth != 16) || t->channels < 1 || t->channels > 4)
        return wt_error_set(WT_ERR_INVALID, "cannot render a mosaic of %d channels, %d-bit",
                            t->channels, bit_depth);
    int L = t->params.levels, deepest = 0;
    for (int l = 0; l <= L; l++)
        for (size_t k = 0; k < (size_t)1 << (2 * l); k++)
            deepest = basis[wt_packet_node_id(l, k)] == WT_PACKET_LEAF ? l : deepest;
    size_t ch[WT_MAX_LEVELS + 1], cw[WT_MAX_LEVELS + 1];
    cell_shapes(t, deepest, ch, cw);
    if (ch[0] > UINT32_MAX || cw[0] > UINT32_MAX)
        return wt_error_set(WT_ERR_LIMIT, "mosaic of %zux%zu is too large", cw[0], ch[0]);
    wt_status st = wt_image_alloc(out, (uint32_t)cw[0], (uint32_t)ch[0], t->channels, bit_depth);
    for (int l = 0; st == WT_OK && l <= deepest; l++)
        for (size_t k = 0; k < (size_t)1 << (2 * l); k++)
            if (basis[wt_packet_node_id(l, k)] == WT_PACKET_LEAF)
                place_leaf(t, l, k, style, ch, cw, out);
    return st;
}
