/* Device kernels of the image paths: 8/16-bit samples to float planes and
 * back (src/image.c's arithmetic), and subband mosaics (src/mosaic.c's
 * arithmetic, bit for bit). All loops are grid-stride loops over flat
 * indices, so the host emulation (one thread per block) runs them as is. */
#ifndef WT_CU_IMAGE_CUH
#define WT_CU_IMAGE_CUH

#include <math.h>
#include <stdint.h>

#include "cu_compat.h"
#include "cu_tuning.h"
#include "wavetool.h"

/* The mosaic's double arithmetic: wt_dsub, wt_dmul, wt_dadd (cu_compat.h). */

/* ---------------------------------------------------------------------- */
/* Samples and planes */

/* Pixels [p0, p1) of interleaved samples (npix pixels of C channels) into
 * C float planes, as wt_image_to_planes. */
template <typename S>
WT_GLOBAL void samples_to_planes_kernel(float *planes, const S *samples, size_t npix, int C,
                                        size_t p0, size_t p1)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t p = p0 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < p1; p += stride)
        for (int c = 0; c < C; c++)
            planes[(size_t)c * npix + p] = (float)samples[p * (size_t)C + (size_t)c];
}

/* Pixels [p0, p1) of C float planes rounded, clamped and interleaved into
 * samples, as wt_image_from_planes (float compares, lrintf: half to even). */
template <typename S>
WT_GLOBAL void planes_to_samples_kernel(S *samples, const float *planes, size_t npix, int C,
                                        float peak, size_t p0, size_t p1)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t p = p0 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < p1; p += stride)
        for (int c = 0; c < C; c++) {
            float v = planes[(size_t)c * npix + p];
            v = v != v ? 0.0f : v;
            v = v < 0.0f ? 0.0f : (v > peak ? peak : v);
            samples[p * (size_t)C + (size_t)c] = (S)rintf(v);
        }
}

/* ---------------------------------------------------------------------- */
/* Mosaics */

#define CU_MAX_BANDS (3 * WT_MAX_LEVELS + 1)

/* A band: its (C, h, w) block at element @p first of the pyramid, drawn
 * with its top-left corner at (y0, x0) of the mosaic. */
typedef struct cu_band {
    uint32_t y0, x0, h, w;
    size_t first;
} cu_band;

/* The bands in the order wt_mosaic_render draws them (cA, then per level
 * from the coarsest cH, cV, cD): where they overlap, the later one shows. */
typedef struct cu_mosaic {
    int nbands, channels;
    int absolute_details; /* scale: 1 |v| / max|v|, 0 mid-grey offset */
    double peak;          /* 255 or 65535 */
    size_t width;         /* of the mosaic */
    cu_band band[CU_MAX_BANDS];
} cu_mosaic;

/* Range of finite values of a band part: min, max, max |v|. */
typedef struct cu_range {
    double lo, hi, maxabs;
} cu_range;

/* out = base + gain * (v - center), |v| in place of v when absolute. */
typedef struct cu_band_map {
    double base, center, gain;
    int absolute;
} cu_band_map;

WT_DEV void range_add(cu_range *r, double v)
{
    if (!isfinite(v))
        return;
    r->lo = v < r->lo ? v : r->lo;
    r->hi = v > r->hi ? v : r->hi;
    r->maxabs = fabs(v) > r->maxabs ? fabs(v) : r->maxabs;
}

/* min, max and max of exact values: any order gives the same result (zeros
 * of either sign map to the same display value). */
WT_DEV void range_merge(cu_range *r, const cu_range *o)
{
    r->lo = o->lo < r->lo ? o->lo : r->lo;
    r->hi = o->hi > r->hi ? o->hi : r->hi;
    r->maxabs = o->maxabs > r->maxabs ? o->maxabs : r->maxabs;
}

/* Block (x, band) reduces its share of band @p band's C x h x w values into
 * parts[band * gridDim.x + x]. Shared memory: blockDim.x cu_ranges. */
template <typename T>
WT_GLOBAL void band_range_kernel(const T *pyr, const WT_GRID_CONST cu_mosaic g, cu_range *parts)
{
    WT_DYN_SMEM(cu_range, red);
    const cu_band *b = &g.band[blockIdx.y];
    size_t n = (size_t)b->h * b->w * (size_t)g.channels;
    cu_range r = {INFINITY, -INFINITY, 0.0};
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        range_add(&r, (double)pyr[b->first + i]);
    red[threadIdx.x] = r;
    WT_SYNC();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s)
            range_merge(&red[threadIdx.x], &red[threadIdx.x + s]);
        WT_SYNC();
    }
    if (threadIdx.x == 0)
        parts[(size_t)blockIdx.y * gridDim.x + blockIdx.x] = red[0];
}

/* The display map of each band from its @p nparts partial ranges, as
 * plan_band of src/mosaic.c. */
WT_GLOBAL void band_map_kernel(cu_band_map *maps, const cu_range *parts, int nparts,
                               const WT_GRID_CONST cu_mosaic g)
{
    int stride = (int)(blockDim.x * gridDim.x);
    for (int k = (int)(blockIdx.x * blockDim.x + threadIdx.x); k < g.nbands; k += stride) {
        cu_range r = {INFINITY, -INFINITY, 0.0};
        for (int i = 0; i < nparts; i++)
            range_merge(&r, &parts[(size_t)k * nparts + i]);
        double peak = g.peak, mid = peak / 2.0;
        cu_band_map m = {0.0, 0.0, 0.0, 0};
        if (k == 0) /* cA: min..max to full range; a flat band shows mid-grey */
            m = r.hi > r.lo ? cu_band_map{0.0, r.lo, peak / wt_dsub(r.hi, r.lo), 0}
                            : cu_band_map{mid, 0.0, 0.0, 0};
        else if (!g.absolute_details)
            m = cu_band_map{mid, 0.0, r.maxabs > 0.0 ? peak / (2.0 * r.maxabs) : 0.0, 0};
        else
            m = cu_band_map{0.0, 0.0, r.maxabs > 0.0 ? peak / r.maxabs : 0.0, 1};
        maps[k] = m;
    }
}

WT_DEV double map_value(const cu_band_map *m, double v, double peak)
{
    double x = m->absolute ? fabs(v) : v;
    double s = m->gain == 0.0 ? m->base : wt_dadd(m->base, wt_dmul(m->gain, wt_dsub(x, m->center)));
    if (s != s)
        return 0.0;
    return s < 0.0 ? 0.0 : (s > peak ? peak : s);
}

/* The last band drawn over mosaic position (y, x), or -1 (left zero). */
WT_DEV int band_at_pixel(const cu_mosaic *g, size_t y, size_t x)
{
    for (int k = g->nbands - 1; k >= 0; k--) {
        const cu_band *b = &g->band[k];
        if (y - b->y0 < b->h && x - b->x0 < b->w && y >= b->y0 && x >= b->x0)
            return k;
    }
    return -1;
}

/* Mosaic pixels [p0, p1) (row-major, C interleaved samples each). */
template <typename T, typename S>
WT_GLOBAL void mosaic_kernel(S *out, const T *pyr, const cu_band_map *maps,
                             const WT_GRID_CONST cu_mosaic g, size_t p0, size_t p1)
{
    size_t stride = (size_t)blockDim.x * gridDim.x, C = (size_t)g.channels;
    for (size_t p = p0 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < p1; p += stride) {
        size_t y = p / g.width, x = p - y * g.width;
        int k = band_at_pixel(&g, y, x);
        if (k < 0) {
            for (size_t c = 0; c < C; c++)
                out[p * C + c] = 0;
            continue;
        }
        const cu_band *b = &g.band[k];
        cu_band_map m = maps[k];
        size_t plane = (size_t)b->h * b->w, at = b->first + (y - b->y0) * b->w + (x - b->x0);
        for (size_t c = 0; c < C; c++)
            out[p * C + c] = (S)rint(map_value(&m, (double)pyr[at + c * plane], g.peak));
    }
}

#endif
