/* The CUDA engine's undecimated transforms (SWT and starlet): all levels on
 * the device, both axes of a level fused in one kernel.
 *
 * The filtering is src/undecimated.c's: out[o] = sum_k f[k] * in[map(o +
 * start[k])] along each axis, map the border (periodic for the SWT; mirror,
 * periodic or nearest for the starlet). A block owns a tile of TY x 32
 * outputs. For each tap k of the column filter it needs TY consecutive
 * (modulo the border) source rows; phase 1 filters those rows along x into
 * shared memory (two planes: low and high, or the two sums of the inverse),
 * phase 2 filters along y from shared memory and writes every band of the
 * tile. So a level reads its input once from DRAM (the taps' re-reads hit
 * L1/L2) and writes its outputs once.
 *
 * Filters longer than CU_UTAPS taps (dmey, db17+, ...) and planes of 2^29
 * samples or more per side run on the host implementation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cu_engine.h"

#define CU_UTAPS 32
#define CU_UTX 32          /* tile width: one warp of consecutive columns */
#define CU_UTHREADS 256
#define CU_USMEM (48 << 10) /* shared memory of a block (no opt-in needed) */

enum { UMODE_SWT_FORWARD = 0, UMODE_SWT_INVERSE = 1, UMODE_STARLET = 2 };

typedef struct cu_uaxis {
    int border; /* wt_border */
    int n, period;
    int start[CU_UTAPS];
} cu_uaxis;

typedef struct cu_ulevel {
    int ntaps, ty;
    float f0[CU_UTAPS], f1[CU_UTAPS];
    cu_uaxis x, y;
} cu_ulevel;

/* Source index of extension index i (src/undecimated.c border_map). */
WT_DEV int umap(const cu_uaxis &a, int i)
{
    if (a.border == WT_BORDER_PERIODIC)
        return i % a.n;
    if (a.border == WT_BORDER_MIRROR) {
        int r = i % a.period;
        return r < a.n ? r : a.period - r;
    }
    return i < a.n ? 0 : (i - a.n >= a.n ? a.n - 1 : i - a.n); /* nearest */
}

/* Row @p r of @p src filtered along x at column @p x by f0 and f1. */
WT_DEV void row_taps(const cu_ulevel &L, const float *src, int r, int x, float *lo, float *hi)
{
    const float *row = src + (size_t)r * (size_t)L.x.n;
    float s0 = 0.0f, s1 = 0.0f;
    for (int m = 0; m < L.ntaps; m++) {
        float v = row[umap(L.x, x + L.x.start[m])];
        s0 += L.f0[m] * v;
        s1 += L.f1[m] * v;
    }
    *lo = s0;
    *hi = s1;
}

/* One level of one channel (blockIdx.z) for a tile of L.ty x CU_UTX outputs. */
template <int MODE>
WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_UTHREADS)
    ulevel_kernel(const WT_GRID_CONST cu_ulevel L, const float *in0, const float *in1,
                  const float *in2, const float *in3, float *out0, float *out1, float *out2,
                  float *out3, size_t plane)
{
    WT_DYN_SMEM(float, smem);
    const int ty = L.ty, nt = L.ntaps, h = L.y.n, w = L.x.n;
    float *s0 = smem, *s1 = smem + (size_t)nt * ty * CU_UTX;
    const int y0 = (int)blockIdx.y * ty, x0 = (int)blockIdx.x * CU_UTX;
    const size_t zc = (size_t)blockIdx.z * plane;
    const int tid = (int)(threadIdx.y * blockDim.x + threadIdx.x);
    const int nthreads = (int)(blockDim.x * blockDim.y);
    /* phase 1: the source rows of every column tap, filtered along x */
    for (int e = tid; e < nt * ty * CU_UTX; e += nthreads) {
        int j = e % CU_UTX, i = e / CU_UTX % ty, k = e / CU_UTX / ty;
        int y = y0 + i, x = x0 + j;
        float a = 0.0f, b = 0.0f;
        if (y < h && x < w) {
            int r = umap(L.y, y + L.y.start[k]);
            if (MODE == UMODE_SWT_INVERSE) { /* S0 = R(f0) A + R(f1) V, S1 = R(f0) H + R(f1) D */
                float al, ah, vl, vh, hl, hh, dl, dh;
                row_taps(L, in0 + zc, r, x, &al, &ah);
                row_taps(L, in2 + zc, r, x, &vl, &vh);
                row_taps(L, in1 + zc, r, x, &hl, &hh);
                row_taps(L, in3 + zc, r, x, &dl, &dh);
                a = al + vh;
                b = hl + dh;
            } else {
                row_taps(L, in0 + zc, r, x, &a, &b);
            }
        }
        s0[e] = a;
        s1[e] = b;
    }
    WT_SYNC();
    /* phase 2: along y from shared memory, every band of the tile */
    for (int e = tid; e < ty * CU_UTX; e += nthreads) {
        int j = e % CU_UTX, i = e / CU_UTX;
        int y = y0 + i, x = x0 + j;
        if (y >= h || x >= w)
            continue;
        float ll = 0.0f, lh = 0.0f, hl = 0.0f, hh = 0.0f;
        for (int k = 0; k < nt; k++) {
            float p = s0[(k * ty + i) * CU_UTX + j], q = s1[(k * ty + i) * CU_UTX + j];
            ll += L.f0[k] * p;
            lh += L.f1[k] * p;
            hl += L.f0[k] * q;
            hh += L.f1[k] * q;
        }
        size_t o = zc + (size_t)y * (size_t)w + (size_t)x;
        if (MODE == UMODE_SWT_FORWARD) {
            out0[o] = ll; /* cA */
            out1[o] = lh; /* cH: high-pass along y */
            out2[o] = hl; /* cV */
            out3[o] = hh; /* cD */
        } else if (MODE == UMODE_SWT_INVERSE) {
            out0[o] = ll + hh; /* C(f0) S0 + C(f1) S1 */
        } else {
            out0[o] = ll;         /* c_j */
            out1[o] = in0[o] - ll; /* w_j = c_{j-1} - c_j */
        }
    }
}

/* out = c_L + w_L + ... + w_1, each channel (the host's order). */
WT_GLOBAL void starlet_sum_kernel(const float *stack, int levels, size_t band, float *out)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < band; i += stride) {
        float s = stack[i];
        for (int j = levels; j >= 1; j--)
            s += stack[(size_t)j * band + i];
        out[i] = s;
    }
}

/* ---- host side ------------------------------------------------------------------ */

static cu_uaxis uaxis_of(wt_border border, size_t n)
{
    cu_uaxis a;
    memset(&a, 0, sizeof a);
    a.border = border;
    a.n = (int)n;
    a.period = border == WT_BORDER_MIRROR ? (n > 1 ? 2 * (int)n - 2 : 1) : (int)n;
    return a;
}

/* Extension index of offset @p off (src/undecimated.c border_start). */
static int ustart(const cu_uaxis &a, long long off)
{
    if (a.border == WT_BORDER_NEAREST) {
        long long n = a.n;
        off = off < -n ? -n : (off > n ? n : off);
        return (int)(off + n);
    }
    long long r = off % a.period;
    return (int)(r < 0 ? r + a.period : r);
}

/* Level @p j (1-based) of @p p: taps, gains, shifts and the tile height. */
static cu_ulevel ulevel_of(const wt_uparams *p, int j, int inverse, size_t h, size_t w)
{
    cu_ulevel L;
    memset(&L, 0, sizeof L);
    const long long step = 1ll << (j - 1);
    long long shift;
    L.x = uaxis_of(p->transform == WT_TRANSFORM_SWT ? WT_BORDER_PERIODIC : p->border, w);
    L.y = uaxis_of(p->transform == WT_TRANSFORM_SWT ? WT_BORDER_PERIODIC : p->border, h);
    if (p->transform == WT_TRANSFORM_STARLET) {
        static const double b3[5] = {1.0 / 16, 4.0 / 16, 6.0 / 16, 4.0 / 16, 1.0 / 16};
        L.ntaps = 5;
        for (int k = 0; k < 5; k++)
            L.f0[k] = (float)b3[k];
        shift = 2 * step;
    } else {
        const wt_wavelet *wl = p->wavelet;
        const long long F = wl->filter_len;
        const double a = p->norm ? 1.0 / sqrt(2.0) : 1.0, g = inverse ? 1.0 / (2.0 * a) : a;
        L.ntaps = (int)F;
        for (int k = 0; k < (int)F; k++) {
            L.f0[k] = (float)((inverse ? wl->rec_lo : wl->dec_lo)[k] * g);
            L.f1[k] = (float)((inverse ? wl->rec_hi : wl->dec_hi)[k] * g);
        }
        shift = inverse ? (F - 1) * step - F * step / 2 : F * step / 2;
    }
    for (int k = 0; k < L.ntaps; k++) {
        L.x.start[k] = ustart(L.x, shift - k * step);
        L.y.start[k] = ustart(L.y, shift - k * step);
    }
    int ty = CU_USMEM / (2 * L.ntaps * CU_UTX * (int)sizeof(float));
    L.ty = ty > 16 ? 16 : (ty < 1 ? 1 : ty);
    return L;
}

static int gpu_takes(const wt_uparams *p, size_t h, size_t w)
{
    int taps = p->transform == WT_TRANSFORM_STARLET ? 5 : p->wavelet->filter_len;
    return taps <= CU_UTAPS && h < (1u << 29) && w < (1u << 29);
}

template <int MODE>
static wt_status launch_level(cu_engine *ce, const cu_ulevel &L, int channels, const float *in[4],
                              float *out[4], size_t plane)
{
    size_t h = (size_t)L.y.n, w = (size_t)L.x.n;
    dim3 grid((unsigned)((w + CU_UTX - 1) / CU_UTX), (unsigned)((h + L.ty - 1) / L.ty),
              (unsigned)channels);
    if (grid.y > 65535)
        return wt_error_set(WT_ERR_LIMIT, "image too tall for the GPU undecimated transform");
    size_t smem = 2 * (size_t)L.ntaps * L.ty * CU_UTX * sizeof(float);
    WT_LAUNCH(ulevel_kernel<MODE>, grid, dim3(CU_UTX, CU_UTHREADS / CU_UTX), smem, ce->stream, L,
              in[0], in[1], in[2], in[3], out[0], out[1], out[2], out[3], plane);
    CU_CHECK(cudaGetLastError());
    return WT_OK;
}

/* Device pointer of band @p i (channel 0) of a stack. */
static float *band_ptr(float *stack, int i, int channels, size_t plane)
{
    return stack + (size_t)i * (size_t)channels * plane;
}

/* Forward transform, device to device: @p planes into @p stack; tmp: 2
 * channel-stacks of planes for the approximations between levels. */
static wt_status uforward_device(cu_engine *ce, const wt_uparams *p, size_t h, size_t w,
                                 int channels, const float *planes, float *stack, float *tmp)
{
    const size_t plane = h * w, cp = plane * (size_t)channels;
    const float *cur = planes;
    for (int l = 1; l <= p->levels; l++) {
        float *next;
        if (p->transform == WT_TRANSFORM_STARLET) {
            next = l == p->levels ? band_ptr(stack, 0, channels, plane) : tmp + (l % 2) * cp;
            cu_ulevel L = ulevel_of(p, l, 0, h, w);
            const float *in[4] = {cur, NULL, NULL, NULL};
            float *out[4] = {next, band_ptr(stack, l, channels, plane), NULL, NULL};
            WT_TRY(launch_level<UMODE_STARLET>(ce, L, channels, in, out, plane));
        } else {
            int ia = wt_ustack_index(p, l, WT_BAND_A);
            next = ia >= 0 ? band_ptr(stack, ia, channels, plane) : tmp + (l % 2) * cp;
            cu_ulevel L = ulevel_of(p, p->start_level + l, 0, h, w);
            const float *in[4] = {cur, NULL, NULL, NULL};
            float *out[4] = {next, band_ptr(stack, wt_ustack_index(p, l, WT_BAND_H), channels, plane),
                             band_ptr(stack, wt_ustack_index(p, l, WT_BAND_V), channels, plane),
                             band_ptr(stack, wt_ustack_index(p, l, WT_BAND_D), channels, plane)};
            WT_TRY(launch_level<UMODE_SWT_FORWARD>(ce, L, channels, in, out, plane));
        }
        cur = next;
    }
    return WT_OK;
}

static wt_status uinverse_device(cu_engine *ce, const wt_uparams *p, size_t h, size_t w,
                                 int channels, const float *stack, float *planes, float *tmp)
{
    const size_t plane = h * w, cp = plane * (size_t)channels;
    float *bands = (float *)stack; /* read only */
    if (p->transform == WT_TRANSFORM_STARLET) {
        WT_LAUNCH(starlet_sum_kernel, dim3(1024), dim3(256), 0, ce->stream, stack, p->levels, cp,
                  planes);
        CU_CHECK(cudaGetLastError());
        return WT_OK;
    }
    const float *a = band_ptr(bands, 0, channels, plane);
    for (int l = p->levels; l >= 1; l--) {
        float *dst = l == 1 ? planes : tmp + (l % 2) * cp;
        cu_ulevel L = ulevel_of(p, p->start_level + l, 1, h, w);
        const float *in[4] = {a, band_ptr(bands, wt_ustack_index(p, l, WT_BAND_H), channels, plane),
                              band_ptr(bands, wt_ustack_index(p, l, WT_BAND_V), channels, plane),
                              band_ptr(bands, wt_ustack_index(p, l, WT_BAND_D), channels, plane)};
        float *out[4] = {dst, NULL, NULL, NULL};
        WT_TRY(launch_level<UMODE_SWT_INVERSE>(ce, L, channels, in, out, plane));
        a = dst;
    }
    return WT_OK;
}

/* Device memory of one call: planes, the stack and two approximation
 * stacks, checked against the free memory before anything is allocated. */
typedef struct udevice {
    float *planes, *stack, *tmp;
    size_t bytes[3];
} udevice;

static void udevice_free(cu_engine *ce, udevice *d)
{
    cu_device_free(ce, d->planes, d->bytes[0]);
    cu_device_free(ce, d->stack, d->bytes[1]);
    cu_device_free(ce, d->tmp, d->bytes[2]);
    memset(d, 0, sizeof *d);
}

static wt_status udevice_alloc(cu_engine *ce, const wt_uparams *p, size_t h, size_t w,
                               int channels, udevice *d)
{
    const size_t cp = h * w * (size_t)channels * sizeof(float);
    const size_t nb = (size_t)wt_ustack_bands(p);
    memset(d, 0, sizeof *d);
    d->bytes[0] = cp;
    d->bytes[1] = cp * nb;
    d->bytes[2] = 2 * cp;
    size_t need = d->bytes[0] + d->bytes[1] + d->bytes[2], free_b = 0, total = 0;
    if (cudaMemGetInfo(&free_b, &total) == cudaSuccess && need > free_b)
        return cu_fail(ce, cudaErrorMemoryAllocation, "undecimated transform", need);
    wt_status st = cu_device_alloc(ce, (void **)&d->planes, d->bytes[0]);
    if (st == WT_OK)
        st = cu_device_alloc(ce, (void **)&d->stack, d->bytes[1]);
    if (st == WT_OK)
        st = cu_device_alloc(ce, (void **)&d->tmp, d->bytes[2]);
    if (st != WT_OK)
        udevice_free(ce, d);
    return st;
}

wt_status cu_uforward(wt_engine *e, const wt_uparams *p, const float *planes, size_t h, size_t w,
                      int channels, float *bands)
{
    if (!gpu_takes(p, h, w))
        return wt_host_uforward(0, p, planes, h, w, channels, bands);
    cu_engine *ce = (cu_engine *)e->priv;
    udevice d;
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(udevice_alloc(ce, p, h, w, channels, &d));
    wt_status st = cu_fail_check(cudaMemcpyAsync(d.planes, planes, d.bytes[0],
                                                 cudaMemcpyHostToDevice, ce->stream),
                                 "cudaMemcpyAsync");
    if (st == WT_OK)
        st = uforward_device(ce, p, h, w, channels, d.planes, d.stack, d.tmp);
    if (st == WT_OK)
        st = cu_fail_check(cudaMemcpyAsync(bands, d.stack, d.bytes[1], cudaMemcpyDeviceToHost,
                                           ce->stream),
                           "cudaMemcpyAsync");
    if (st == WT_OK)
        st = cu_fail_check(cudaStreamSynchronize(ce->stream), "cudaStreamSynchronize");
    udevice_free(ce, &d);
    return st;
}

wt_status cu_uinverse(wt_engine *e, const wt_uparams *p, const float *bands, size_t h, size_t w,
                      int channels, float *planes)
{
    if (!gpu_takes(p, h, w))
        return wt_host_uinverse(0, p, bands, h, w, channels, planes);
    cu_engine *ce = (cu_engine *)e->priv;
    udevice d;
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(udevice_alloc(ce, p, h, w, channels, &d));
    wt_status st = cu_fail_check(cudaMemcpyAsync(d.stack, bands, d.bytes[1],
                                                 cudaMemcpyHostToDevice, ce->stream),
                                 "cudaMemcpyAsync");
    if (st == WT_OK)
        st = uinverse_device(ce, p, h, w, channels, d.stack, d.planes, d.tmp);
    if (st == WT_OK)
        st = cu_fail_check(cudaMemcpyAsync(planes, d.planes, d.bytes[0], cudaMemcpyDeviceToHost,
                                           ce->stream),
                           "cudaMemcpyAsync");
    if (st == WT_OK)
        st = cu_fail_check(cudaStreamSynchronize(ce->stream), "cudaStreamSynchronize");
    udevice_free(ce, &d);
    return st;
}

/* Bytes a device-resident run reads and writes: SWT level 1 + 4 planes
 * forward, 4 + 1 inverse; starlet scale 1 + 2 planes forward, the inverse
 * L + 1 + 1. */
static size_t ubytes(const wt_uparams *p, size_t cp, int inverse)
{
    size_t L = (size_t)p->levels;
    if (p->transform == WT_TRANSFORM_STARLET)
        return cp * 4 * (inverse ? L + 2 : 3 * L);
    return cp * 4 * 5 * L;
}

static int by_ms(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median and fastest of @p repeat runs of @p what (0 forward, 1 inverse, 2 copy). */
static wt_status utime(cu_engine *ce, const wt_uparams *p, size_t h, size_t w, int channels,
                       udevice *d, int what, size_t copy_bytes, float *copy_dst, int repeat,
                       double *median, double *fastest)
{
    cudaEvent_t ev[2];
    CU_CHECK(cudaEventCreate(&ev[0]));
    CU_CHECK(cudaEventCreate(&ev[1]));
    float *ms = (float *)malloc((size_t)repeat * sizeof *ms);
    wt_status st = ms ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    for (int r = -3; r < repeat && st == WT_OK; r++) {
        st = cu_fail_check(cudaEventRecord(ev[0], ce->stream), "cudaEventRecord");
        if (st == WT_OK && what == 2)
            st = cu_fail_check(cudaMemcpyAsync(copy_dst, d->stack, copy_bytes,
                                               cudaMemcpyDeviceToDevice, ce->stream),
                               "cudaMemcpyAsync");
        else if (st == WT_OK && what == 1)
            st = uinverse_device(ce, p, h, w, channels, d->stack, d->planes, d->tmp);
        else if (st == WT_OK)
            st = uforward_device(ce, p, h, w, channels, d->planes, d->stack, d->tmp);
        if (st == WT_OK)
            st = cu_fail_check(cudaEventRecord(ev[1], ce->stream), "cudaEventRecord");
        if (st == WT_OK)
            st = cu_fail_check(cudaEventSynchronize(ev[1]), "cudaEventSynchronize");
        if (st == WT_OK && r >= 0)
            st = cu_fail_check(cudaEventElapsedTime(&ms[r], ev[0], ev[1]),
                               "cudaEventElapsedTime");
    }
    if (st == WT_OK) {
        qsort(ms, (size_t)repeat, sizeof *ms, by_ms);
        *median = ms[repeat / 2];
        *fastest = ms[0];
    }
    free(ms);
    cudaEventDestroy(ev[0]);
    cudaEventDestroy(ev[1]);
    return st;
}

wt_status cu_ubench(cu_engine *ce, const wt_uparams *p, size_t h, size_t w, int channels,
                    int inverse, int repeat, wt_cuda_timing *timing, size_t *bytes)
{
    WT_TRY(wt_uparams_check(p, h, w));
    if (!gpu_takes(p, h, w))
        return wt_error_set(WT_ERR_UNSUPPORTED, "the GPU undecimated transform takes filters of "
                                                "at most %d taps",
                            CU_UTAPS);
    udevice d;
    float *copy_dst = NULL;
    const size_t cp = h * w * (size_t)channels;
    *bytes = ubytes(p, cp, inverse);
    size_t copy_bytes = *bytes / 2; /* a copy reads and writes each byte */
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(udevice_alloc(ce, p, h, w, channels, &d));
    wt_status st = cu_fail_check(cudaMemsetAsync(d.planes, 0, d.bytes[0], ce->stream), "memset");
    if (st == WT_OK)
        st = uforward_device(ce, p, h, w, channels, d.planes, d.stack, d.tmp);
    memset(timing, 0, sizeof *timing);
    if (st == WT_OK)
        st = utime(ce, p, h, w, channels, &d, inverse, 0, NULL, repeat, &timing->ms,
                   &timing->ms_min);
    copy_bytes = copy_bytes < d.bytes[1] ? copy_bytes : d.bytes[1];
    if (st == WT_OK)
        st = cu_device_alloc(ce, (void **)&copy_dst, copy_bytes);
    double fastest;
    if (st == WT_OK)
        st = utime(ce, p, h, w, channels, &d, 2, copy_bytes, copy_dst, repeat, &timing->copy_ms,
                   &fastest);
    timing->copy_bytes = copy_bytes;
    if (st == WT_OK)
        st = cu_fail_check(cudaStreamSynchronize(ce->stream), "cudaStreamSynchronize");
    cu_device_free(ce, copy_dst, copy_bytes);
    udevice_free(ce, &d);
    return st;
}
