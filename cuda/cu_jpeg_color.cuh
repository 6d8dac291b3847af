/* libjpeg-turbo's chroma upsampling and YCbCr -> RGB on the GPU, for the
 * nvJPEG decoder (cu_jpeg.cu): nvJPEG's planes become libjpeg-turbo's pixels.
 * Free of nvJPEG, so the host emulation compiles it too. */
#ifndef WT_CU_JPEG_COLOR_CUH
#define WT_CU_JPEG_COLOR_CUH

#include <stddef.h>

#include "cu_compat.h"

/* nvJPEG's inverse DCT gives libjpeg-turbo's samples, but its RGB output
 * repeats chroma samples where libjpeg-turbo interpolates them ("fancy
 * upsampling", jdsample.c). Subsampled files are therefore decoded to planes
 * and turned into RGB here with libjpeg-turbo's arithmetic: h2v1, h1v2 and
 * h2v2 fancy upsampling (the nearest input row and column weighted 3, the
 * next 1; edges repeated; h2 chroma 2 samples wide or less repeated), then
 * jdcolor.c's fixed-point YCbCr -> RGB. */

/* The chroma sample of output pixel (x, y) from plane @p p (@p cw x @p ch,
 * rows @p pitch apart) subsampled by @p hs across and @p vs down (1 or 2). */
WT_DEV int fancy_chroma(const unsigned char *p, size_t pitch, int cw, int ch, int hs, int vs,
                        int x, int y)
{
#define CS(r, c) ((int)p[(size_t)(r) * pitch + (c)])
    if ((hs == 1 && vs == 1) || (hs == 2 && cw <= 2))
        return CS(y / vs, x / hs);
    if (vs == 1) { /* h2v1 */
        int c = x >> 1;
        if (!(x & 1))
            return c == 0 ? CS(y, 0) : (3 * CS(y, c) + CS(y, c - 1) + 1) >> 2;
        return c == cw - 1 ? CS(y, c) : (3 * CS(y, c) + CS(y, c + 1) + 2) >> 2;
    }
    int r = y >> 1; /* the nearest input row; rn the next nearest, above or below */
    int rn = (y & 1) ? (r + 1 < ch ? r + 1 : ch - 1) : (r > 0 ? r - 1 : 0);
    if (hs == 1) /* h1v2 */
        return (3 * CS(r, x) + CS(rn, x) + ((y & 1) ? 2 : 1)) >> 2;
    int c = x >> 1; /* h2v2: column sums of the two rows */
#define COLSUM(cc) (3 * CS(r, cc) + CS(rn, cc))
    if (!(x & 1))
        return c == 0 ? (COLSUM(0) * 4 + 8) >> 4 : (3 * COLSUM(c) + COLSUM(c - 1) + 8) >> 4;
    return c == cw - 1 ? (COLSUM(c) * 4 + 7) >> 4 : (3 * COLSUM(c) + COLSUM(c + 1) + 7) >> 4;
#undef COLSUM
#undef CS
}

WT_DEV unsigned char clamp_sample(int v)
{
    return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* jdcolor.c's ycc_rgb_convert: FIX(1.40200), FIX(1.77200), FIX(0.71414),
 * FIX(0.34414) in 16 fractional bits, rounded as its tables are. */
/* Row blockIdx.y of the RGB image (interleaved, @p width pixels a row). */
WT_GLOBAL void ycc_to_rgb_kernel(const unsigned char *luma, size_t luma_pitch,
                                 const unsigned char *cb, const unsigned char *cr,
                                 size_t chroma_pitch, int cw, int ch, int hs, int vs, int width,
                                 unsigned char *rgb)
{
    const int y = (int)blockIdx.y;
    const long half = 1L << 15;
    for (int x = (int)threadIdx.x; x < width; x += (int)blockDim.x) {
        const long b = fancy_chroma(cb, chroma_pitch, cw, ch, hs, vs, x, y) - 128;
        const long r = fancy_chroma(cr, chroma_pitch, cw, ch, hs, vs, x, y) - 128;
        const int luma_y = luma[(size_t)y * luma_pitch + x];
        unsigned char *out = rgb + ((size_t)y * width + x) * 3;
        out[0] = clamp_sample(luma_y + (int)((91881L * r + half) >> 16));
        out[1] = clamp_sample(luma_y + (int)((-22554L * b + half - 46802L * r) >> 16));
        out[2] = clamp_sample(luma_y + (int)((116130L * b + half) >> 16));
    }
}

#endif
