/* Drawing on mosaics (internal, src/analysis/mosaic.c): shared by the
 * pyramid's and the packet tree's mosaics (packet_mosaic.c). */
#ifndef WT_MOSAIC_DRAW_H
#define WT_MOSAIC_DRAW_H

#include <stddef.h>

#include "wavetool.h"

/* Every channel of pixel (y, x) set to @p value (alpha, the last of 2 or 4: opaque). */
void wt_mosaic_fill_pixel(wt_image *out, size_t y, size_t x, double value);
/* White text (digits, c, A, H, V, D) on a black box at (y0, x0), if a band
 * of @p bh x @p bw has room for it. */
void wt_mosaic_draw_label(wt_image *out, const char *text, size_t y0, size_t x0, size_t bh,
                          size_t bw);

#endif
