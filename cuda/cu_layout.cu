/* The device pyramid (the CUDA engine's layout of wt_pyramid's bands),
 * the kernels' views of a level's bands in it, the scratch buffers between
 * levels, and the measured range of integer levels' inputs. Split from
 * cu_engine.cu; shared: cu_engine_impl.h. */
#include <stdlib.h>
#include <string.h>

#include "cu_engine.h"
#include "cu_engine_impl.h"

/* ---------------------------------------------------------------------- */
/* The device pyramid: wt_pyramid's bands in the same order, each a
 * (C, h, pitch) block with rows padded to a multiple of 32 elements, so that
 * every band row starts 128-byte aligned: the level kernels move whole
 * 16-byte blocks and whole 32-byte sectors. Measured on the H100 (db3, one
 * level of 8192², forward, % of copy): band rows 4096 apart 86%, 4100 apart
 * (16-byte aligned, every other row in the middle of a sector) 70%, 4092
 * apart 71%, 4104 apart (sector-aligned, across lines) 80%. Where every band
 * width is a multiple of 32 it is the host layout itself. */

static size_t row_pitch(size_t w)
{
    return (w + 31) & ~(size_t)31;
}

/* Elements between the rows of a band w wide (levels 0: the planes as they are). */
static size_t band_pitch(const wt_pyramid *plan, size_t w)
{
    return plan->levels ? row_pitch(w) : w;
}

/* Visits the bands in storage order: fn(level, band, h, w, offset in the
 * host layout, offset in the device layout), offsets of channel 0. */
template <typename Fn> static void for_each_band(const wt_pyramid *plan, Fn fn)
{
    const size_t C = (size_t)plan->channels;
    size_t host = 0, dev = 0;
    auto visit = [&](int l, wt_band b) {
        size_t h, w;
        wt_pyramid_band_shape(plan, l, b, &h, &w);
        fn(l, b, h, w, host, dev);
        host += C * h * w;
        dev += C * h * band_pitch(plan, w);
    };
    visit(plan->levels, WT_BAND_A);
    for (int l = plan->levels; l >= 1; l--) {
        visit(l, WT_BAND_H);
        visit(l, WT_BAND_V);
        visit(l, WT_BAND_D);
    }
}

size_t cu_pyramid_elems(const wt_pyramid *plan)
{
    size_t total = 0;
    for_each_band(plan, [&](int, wt_band, size_t h, size_t w, size_t, size_t dev) {
        total = dev + (size_t)plan->channels * h * band_pitch(plan, w);
    });
    return total;
}

int cu_pyramid_padded(const wt_pyramid *plan)
{
    return cu_pyramid_elems(plan) != plan->total;
}

/* Band b of level l in the device layout. */
void *band_at(void *pyr, const wt_pyramid *plan, int level, wt_band b)
{
    size_t at = 0;
    for_each_band(plan, [&](int l, wt_band bb, size_t, size_t, size_t, size_t dev) {
        if (l == level && bb == b)
            at = dev;
    });
    return (uint32_t *)pyr + at;
}

size_t cu_band_first(const wt_pyramid *plan, int level, wt_band b)
{
    size_t at = 0;
    for_each_band(plan, [&](int l, wt_band bb, size_t, size_t, size_t, size_t dev) {
        if (l == level && bb == b)
            at = dev;
    });
    return at;
}

size_t cu_band_pitch(const wt_pyramid *plan, size_t w)
{
    return band_pitch(plan, w);
}

wt_status cu_pyramid_copy(cu_engine *ce, const wt_pyramid *plan, void *dst, const void *src,
                          int to_device_layout, cudaMemcpyKind kind)
{
    if (!cu_pyramid_padded(plan)) {
        CU_CHECK(cudaMemcpyAsync(dst, src, plan->total * 4, kind, ce->stream));
        return WT_OK;
    }
    wt_status st = WT_OK;
    for_each_band(plan, [&](int, wt_band, size_t h, size_t w, size_t host, size_t dev) {
        const size_t pitch = band_pitch(plan, w), rows = h * (size_t)plan->channels;
        const size_t to = to_device_layout ? dev : host, from = to_device_layout ? host : dev;
        if (st != WT_OK || !rows || !w)
            return;
        cudaError_t err = cudaMemcpy2DAsync(
            (uint32_t *)dst + to, 4 * (to_device_layout ? pitch : w),
            (const uint32_t *)src + from, 4 * (to_device_layout ? w : pitch), 4 * w, rows, kind,
            ce->stream);
        if (err != cudaSuccess)
            st = cu_fail(ce, err, "cudaMemcpy2DAsync (pyramid bands)", 0);
    });
    return st;
}

/* The four bands of level l (A from @p a_ptr) as kernel destinations or
 * sources, in the device layout. */
void set_bands(const wt_pyramid *plan, int l, void *pyr, void *a_ptr, const void **src,
               void **dst, size_t *plane, int *width)
{
    size_t lh = plan->lo_h[l], lw = plan->lo_w[l], hh = plan->hi_h[l], hw = plan->hi_w[l];
    void *ptr[4] = {a_ptr, band_at(pyr, plan, l, WT_BAND_V), band_at(pyr, plan, l, WT_BAND_H),
                    band_at(pyr, plan, l, WT_BAND_D)};
    size_t rows[4] = {lh, lh, hh, hh}, cols[4] = {lw, hw, lw, hw};
    for (int b = 0; b < 4; b++) {
        if (src)
            src[b] = ptr[b];
        if (dst)
            dst[b] = ptr[b];
        plane[b] = rows[b] * band_pitch(plan, cols[b]);
        width[b] = (int)band_pitch(plan, cols[b]);
    }
}

/* Elements between the rows of level l's approximation in a scratch
 * buffer (levels between the first and the last) or the device pyramid
 * (the last): padded as the device pyramid's rows, for the next level's
 * gather. */
static size_t tmp_pitch(const wt_pyramid *plan, int l)
{
    return row_pitch(plan->lo_w[l]);
}

/* Band A of level l (0: the input planes) as a kernel's rows and planes. */
void set_approx(const wt_pyramid *plan, int l, size_t *plane, int *width)
{
    size_t pitch = l > 0 ? tmp_pitch(plan, l) : plan->lo_w[0];
    *plane = plan->lo_h[l] * pitch;
    *width = (int)pitch;
}

wt_status tmp_buffers(cu_engine *ce, const wt_pyramid *plan, void *tmp[2])
{
    size_t most = 4;
    for (int l = 1; l < plan->levels; l++) {
        size_t a = plan->lo_h[l] * tmp_pitch(plan, l) * (size_t)plan->channels * 4;
        most = a > most ? a : most;
    }
    WT_TRY(cu_buf_get(ce, BUF_TMP0, most, &tmp[0]));
    return cu_buf_get(ce, BUF_TMP1, most, &tmp[1]);
}

/* The buffer between the two passes of a split level (cu_split.cuh): per
 * channel, the rows of the level's input (forward) or output (inverse),
 * each the low-pass half along x, then the high-pass half from the next
 * multiple of 4. */
static size_t split_hi_of(const wt_pyramid *plan, int l)
{
    return (plan->lo_w[l] + 3) & ~(size_t)3;
}

static size_t split_w_of(const wt_pyramid *plan, int l)
{
    return split_hi_of(plan, l) + ((plan->hi_w[l] + 3) & ~(size_t)3);
}

void set_split(const wt_pyramid *plan, int l, void *split, cu_level *lv)
{
    lv->split = split;
    lv->split_hi = (int)split_hi_of(plan, l);
    lv->split_w = (int)split_w_of(plan, l);
    lv->split_plane = plan->lo_h[l - 1] * (size_t)lv->split_w;
}

/* Whether a level of @p p may run split: the policy's long_split, a float
 * filter bank that long (the fast entries pad the span of both phases,
 * the inverse's up to the filter + 2 taps). */
static int split_wanted(const cu_engine *ce, const wt_params *p, const wt_pyramid *plan)
{
    return ce->pol.long_split > 0 && !ce->generic_only && plan->dtype != WT_INT32 &&
           p->method != WT_METHOD_LIFTING && !p->wavelet->integer &&
           p->wavelet->filter_len + 2 >= ce->pol.long_split;
}

wt_status split_buffer(cu_engine *ce, const wt_params *p, const wt_pyramid *plan, void **split)
{
    *split = NULL;
    if (!split_wanted(ce, p, plan))
        return WT_OK;
    size_t most = 4;
    for (int l = 1; l <= plan->levels; l++) {
        size_t a = plan->lo_h[l - 1] * split_w_of(plan, l) * (size_t)plan->channels * 4;
        most = a > most ? a : most;
    }
    return cu_buf_get(ce, BUF_SPLIT, most, split);
}

/* ---------------------------------------------------------------------- */
/* The range of integer levels' inputs: legall53 levels run 32-bit steps
 * where it is known to be small (dwt_geometry.h, WT_LIFT53_NARROW_MAX). */

#define BOUND_BLOCK 256 /* threads of abs_max_kernel */
#define BOUND_PARTS 64  /* blocks per rows at most */

/* Block x: the largest abs_key of rows x, x + gridDim.x, ... (of nrows rows
 * of w values, pitch apart) into parts[x]. Shared: blockDim.x keys. */
template <typename T>
WT_GLOBAL void WT_LAUNCH_BOUNDS(BOUND_BLOCK)
    abs_max_kernel(const T *src, size_t nrows, size_t w, size_t pitch, uint32_t *parts)
{
    WT_DYN_SMEM(uint32_t, red);
    uint32_t m = 0;
    for (size_t r = blockIdx.x; r < nrows; r += gridDim.x)
        for (size_t c = threadIdx.x; c < w; c += blockDim.x) {
            const uint32_t k = abs_key(src[r * pitch + c]);
            m = k > m ? k : m;
        }
    red[threadIdx.x] = m;
    WT_SYNC();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s && red[threadIdx.x + s] > red[threadIdx.x])
            red[threadIdx.x] = red[threadIdx.x + s];
        WT_SYNC();
    }
    if (threadIdx.x == 0)
        parts[blockIdx.x] = red[0];
}

/* Row blocks (first element, rows, width, pitch) whose values are measured. */
typedef struct row_block {
    const void *first;
    size_t nrows, w, pitch;
} row_block;

/* The largest abs_key over @p n row blocks of T: a launch per block of rows
 * into its own parts, one copy back, one wait. */
template <typename T>
static wt_status largest_key(cu_engine *ce, const row_block *rb, int n, uint32_t *key)
{
    uint32_t *parts;
    WT_TRY(cu_buf_get(ce, BUF_BOUND, (size_t)n * BOUND_PARTS * 4, (void **)&parts));
    CU_CHECK(cudaMemsetAsync(parts, 0, (size_t)n * BOUND_PARTS * 4, ce->stream));
    for (int i = 0; i < n; i++) {
        if (!rb[i].nrows || !rb[i].w)
            continue;
        unsigned grid = rb[i].nrows < BOUND_PARTS ? (unsigned)rb[i].nrows : BOUND_PARTS;
        WT_LAUNCH(abs_max_kernel<T>, dim3(grid), dim3(BOUND_BLOCK), BOUND_BLOCK * 4, ce->stream,
                  (const T *)rb[i].first, rb[i].nrows, rb[i].w, rb[i].pitch,
                  parts + (size_t)i * BOUND_PARTS);
        CU_CHECK(cudaGetLastError());
    }
    uint32_t *host = (uint32_t *)malloc((size_t)n * BOUND_PARTS * 4);
    if (!host)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    cudaError_t err = cudaMemcpyAsync(host, parts, (size_t)n * BOUND_PARTS * 4,
                                      cudaMemcpyDeviceToHost, ce->stream);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(ce->stream);
    *key = 0;
    for (size_t i = 0; err == cudaSuccess && i < (size_t)n * BOUND_PARTS; i++)
        *key = host[i] > *key ? host[i] : *key;
    free(host);
    return err == cudaSuccess ? WT_OK : cu_fail(ce, err, "measuring the coefficients' range", 0);
}

wt_status cu_planes_bound(cu_engine *ce, const wt_pyramid *plan, const float *d_planes,
                          uint64_t *bound)
{
    row_block rb = {d_planes, plan->height * (size_t)plan->channels, plan->width, plan->width};
    uint32_t key = 0;
    WT_TRY(largest_key<float>(ce, &rb, 1, &key));
    float most;
    memcpy(&most, &key, 4);
    /* (int32_t)x truncates: |(int32_t)x| <= |x| below 2^31; NaN keys exceed inf's */
    *bound = key < 0x4f000000u ? (uint64_t)most : UINT64_MAX; /* 0x4f000000: 2^31 */
    return WT_OK;
}

wt_status cu_pyramid_bound(cu_engine *ce, const wt_pyramid *plan, const void *d_pyr,
                           uint64_t *bound)
{
    row_block *rb = (row_block *)calloc((size_t)(3 * plan->levels + 1), sizeof *rb);
    if (!rb)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    int n = 0;
    for_each_band(plan, [&](int, wt_band, size_t h, size_t w, size_t, size_t dev) {
        rb[n++] = row_block{(const int32_t *)d_pyr + dev, h * (size_t)plan->channels, w,
                            band_pitch(plan, w)};
    });
    uint32_t key = 0;
    wt_status st = largest_key<int32_t>(ce, rb, n, &key);
    free(rb);
    *bound = key;
    return st;
}

uint64_t cu_forward_coef_bound(const wt_pyramid *plan, uint64_t input_bound)
{
    uint64_t b = input_bound;
    for (int l = 1; l <= plan->levels; l++)
        b = wt_lift53_forward_bound(b);
    return b;
}
