/* A fast DEFLATE encoder for filtered PNG rows (src/formats/png_fastz.c). */
#ifndef WT_PNG_FASTZ_H
#define WT_PNG_FASTZ_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes wt_fastz_compress writes for @p n input bytes. */
size_t wt_fastz_bound(size_t n);

/* @p n bytes of @p in as one zlib stream into @p out (wt_fastz_bound(n)
 * bytes), with matches only where bytes repeat at distance @p sample (1 or
 * 2: the bytes per sample) or @p pixel (the bytes per pixel, 1-8). Returns
 * the stream's size; 0 when out of memory. */
size_t wt_fastz_compress(const uint8_t *in, size_t n, unsigned sample, unsigned pixel,
                         uint8_t *out);

#endif
