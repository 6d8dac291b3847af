/* The CUDA engine's volumes: the DWT of (C, z, y, x) float32 arrays by
 * convolution, every level and axis on the device (one upload, one
 * download), driven by src/transforms/transform_volume.c's level loop
 * (wt_volume_dwt_levels) with this file's axis pass.
 *
 * An axis pass sees the arrays as (outer, n, inner): the lines along the
 * axis, inner = the samples after it (1 for x). One thread computes one
 * output pair (lo[k], hi[k]) of one line, or one sample of the inverse;
 * consecutive threads take consecutive inner indices, so the z and y passes
 * read and write neighbouring x together, and the x pass neighbouring
 * pairs. The arithmetic is src/engine/dwt_line.c's convolution: filter
 * banks out[k] = sum_j f[j] ext(s0 + 2k - j), the JPEG 2000 kinds' centred
 * filters, the inverse from zero-padded (periodization: periodic) or
 * interleaved extended coefficients; extension as the 2-D kernels
 * (cu_extend.cuh). */
#include <string.h>

#include "cu_engine.h"
#include "cu_extend.cuh"
#include "transform.h"
extern "C" {
#include "dwt_line.h"
}

#define CU_VTAPS 128
#define CU_VTHREADS 256

/* One axis of one level: lengths, extension, filters. */
typedef struct cu_vaxis {
    int n, nlo, nhi;
    int j2k;   /* JPEG 2000 kind: centred odd filters */
    int mode;  /* forward: the signal's extension; inverse: the level's mode */
    int start; /* filter banks: s0 (forward) or off (inverse) */
    int ntaps0, ntaps1;
    float f0[CU_VTAPS], f1[CU_VTAPS];
} cu_vaxis;

/* Sample @p i (any integer) of the extended line of @p n samples @p stride
 * apart. */
WT_DEV float ext_at(const float *line, size_t stride, int n, int mode, int i)
{
    if (i >= 0 && i < n)
        return line[(size_t)i * stride];
    ext_terms t = signal_terms(mode, n, i);
    float v = 0.0f;
#pragma unroll
    for (int a = 0; a < 3; a++)
        if (a < t.n)
            v += t.w[a] * line[(size_t)t.idx[a] * stride];
    return v;
}

/* Element t of a pass's outputs as (o, k, q): line o, position k along the
 * axis (of @p len), inner index q. */
template <typename I> struct vpos {
    I o, q;
    int k;
};

template <typename I> WT_DEV vpos<I> vpos_of(I t, I inner, I len)
{
    vpos<I> p;
    p.q = t % inner;
    I r = t / inner;
    p.o = r / len;
    p.k = (int)(r - p.o * len);
    return p;
}

template <typename I>
WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_VTHREADS)
    vforward_kernel(const WT_GRID_CONST cu_vaxis A, const float *__restrict__ sig,
                    float *__restrict__ lo, float *__restrict__ hi, I outer, I inner)
{
    const I nout = (I)(A.nlo > A.nhi ? A.nlo : A.nhi), total = outer * nout * inner;
    for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (I)gridDim.x * blockDim.x) {
        const vpos<I> p = vpos_of(t, inner, nout);
        const float *line = sig + (size_t)p.o * (size_t)A.n * inner + p.q;
        float a = 0.0f, d = 0.0f;
        if (!A.j2k) {
            const int p0 = A.start + 2 * p.k;
            const bool inside = p0 - (A.ntaps0 - 1) >= 0 && p0 < A.n;
            for (int j = 0; j < A.ntaps0; j++) {
                const float v = inside ? line[(size_t)(p0 - j) * inner]
                                       : ext_at(line, inner, A.n, A.mode, p0 - j);
                a += A.f0[j] * v;
                d += A.f1[j] * v;
            }
        } else {
            const int rl = A.ntaps0 / 2, rh = A.ntaps1 / 2;
            for (int u = -rl; u <= rl; u++)
                a += A.f0[u + rl] * ext_at(line, inner, A.n, A.mode, 2 * p.k + u);
            for (int u = -rh; u <= rh; u++)
                d += A.f1[u + rh] * ext_at(line, inner, A.n, A.mode, 2 * p.k + 1 + u);
        }
        if (p.k < A.nlo)
            lo[((size_t)p.o * A.nlo + p.k) * inner + p.q] = a;
        if (p.k < A.nhi)
            hi[((size_t)p.o * A.nhi + p.k) * inner + p.q] = d;
    }
}

/* Sample @p i of a JPEG 2000 inverse's interleaved coefficients (lo at even,
 * hi at odd positions), extended. */
WT_DEV float interleaved_at(const cu_vaxis &A, const float *lo, const float *hi, size_t stride,
                            int i)
{
    int sign;
    const int f = wt_fold_index(i, A.nlo + A.nhi, wt_interleaved_mode(A.mode), &sign);
    return (f & 1 ? hi : lo)[(size_t)(f >> 1) * stride];
}

template <typename I>
WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_VTHREADS)
    vinverse_kernel(const WT_GRID_CONST cu_vaxis A, const float *__restrict__ lo,
                    const float *__restrict__ hi, float *__restrict__ sig, I outer, I inner)
{
    const I total = outer * (I)A.n * inner;
    for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (I)gridDim.x * blockDim.x) {
        const vpos<I> p = vpos_of(t, inner, (I)A.n);
        const float *l = lo + (size_t)p.o * A.nlo * inner + p.q;
        const float *h = hi + (size_t)p.o * A.nhi * inner + p.q;
        const int i = p.k;
        float acc = 0.0f;
        if (A.j2k && A.n == 1 && A.mode != WT_MODE_PERIODIZATION) {
            acc = l[0]; /* JPEG 2000: a one-sample signal is its own low-pass band */
        } else if (!A.j2k) {
            const bool per = A.mode == WT_MODE_PERIODIZATION;
            for (int j = (i + A.start) & 1; j < A.ntaps0; j += 2) {
                int c = (i + A.start - j) / 2;
                if (per)
                    c = wt_floor_mod(c, A.nlo);
                else if (c < 0 || c >= A.nlo)
                    continue;
                acc += A.f0[j] * l[(size_t)c * inner] + A.f1[j] * h[(size_t)c * inner];
            }
        } else {
            const int rl = A.ntaps0 / 2, rh = A.ntaps1 / 2;
            for (int u = -rl; u <= rl; u++)
                if (((i - u) & 1) == 0)
                    acc += A.f0[u + rl] * interleaved_at(A, l, h, inner, i - u);
            for (int u = -rh; u <= rh; u++)
                if ((i - u) & 1)
                    acc += A.f1[u + rh] * interleaved_at(A, l, h, inner, i - u);
        }
        sig[((size_t)p.o * A.n + i) * inner + p.q] = acc;
    }
}

/* The axis of @p line in one direction (dwt_line.c's conv_* kernels). */
static cu_vaxis vaxis_of(const wt_line *line, int inverse)
{
    const wt_wavelet *w = line->wavelet;
    cu_vaxis A;
    memset(&A, 0, sizeof A);
    A.n = (int)line->n;
    A.nlo = (int)line->nlo;
    A.nhi = (int)line->nhi;
    A.j2k = w->kind == WT_KIND_JPEG2000;
    A.mode = inverse ? (int)line->mode : wt_signal_mode(w, line->mode);
    const double *f0 = inverse ? w->rec_lo : w->dec_lo, *f1 = inverse ? w->rec_hi : w->dec_hi;
    if (A.j2k) { /* synthesis: rec_lo has the high-pass support length */
        A.ntaps0 = inverse ? w->support_hi : w->support_lo;
        A.ntaps1 = inverse ? w->support_lo : w->support_hi;
    } else {
        A.ntaps0 = A.ntaps1 = w->filter_len;
        A.start = inverse ? wt_inverse_offset(w, line->mode) : wt_forward_start(w, line->mode);
    }
    for (int j = 0; j < A.ntaps0; j++)
        A.f0[j] = (float)f0[j];
    for (int j = 0; j < A.ntaps1; j++)
        A.f1[j] = (float)f1[j];
    return A;
}

/* Blocks of a grid-stride launch over @p total elements. */
static unsigned vblocks(const cu_engine *ce, size_t total)
{
    size_t blocks = (total + CU_VTHREADS - 1) / CU_VTHREADS, cap = (size_t)ce->sms * 64;
    return (unsigned)(blocks < cap ? blocks : cap);
}

template <typename I>
static wt_status vlaunch(cu_engine *ce, const cu_vaxis &A, const wt_vpass *p, I outer, I inner)
{
    const size_t len = p->inverse ? (size_t)A.n : (size_t)(A.nlo > A.nhi ? A.nlo : A.nhi);
    const unsigned blocks = vblocks(ce, (size_t)outer * len * (size_t)inner);
    if (blocks == 0) /* nothing to compute (an empty band's pass) */
        return WT_OK;
    if (p->inverse)
        WT_LAUNCH(vinverse_kernel<I>, dim3(blocks), dim3(CU_VTHREADS), 0, ce->stream, A,
                  (const float *)p->lo, (const float *)p->hi, (float *)p->sig, outer, inner);
    else
        WT_LAUNCH(vforward_kernel<I>, dim3(blocks), dim3(CU_VTHREADS), 0, ce->stream, A,
                  (const float *)p->sig, (float *)p->lo, (float *)p->hi, outer, inner);
    CU_CHECK_CE(ce, cudaGetLastError());
    return WT_OK;
}

/* The pass runner of wt_volume_dwt_levels: one level along one axis. */
static wt_status vpass_run(void *ctx, const wt_vpass *p)
{
    cu_engine *ce = (cu_engine *)ctx;
    size_t outer = (size_t)p->channels, inner = 1;
    for (int k = 0; k < 3; k++)
        if (k < p->axis)
            outer *= p->shape[k];
        else if (k > p->axis)
            inner *= p->shape[k];
    const cu_vaxis A = vaxis_of(p->line, p->inverse);
    const size_t len = (size_t)(A.n > A.nlo + A.nhi ? A.n : A.nlo + A.nhi);
    if (outer * len * inner < ((size_t)1 << 32))
        return vlaunch<uint32_t>(ce, A, p, (uint32_t)outer, (uint32_t)inner);
    return vlaunch<uint64_t>(ce, A, p, (uint64_t)outer, (uint64_t)inner);
}

static size_t volume_elems(const size_t shape[3], int channels)
{
    return shape[0] * shape[1] * shape[2] * (size_t)channels;
}

/* A transform's device memory: the samples, every band (@p dev: @p c with
 * its bands' data there) and the work areas, one allocation. */
typedef struct vdevice {
    float *mem, *work;
    size_t bytes;
    wt_vcoeffs dev;
} vdevice;

static wt_status vdevice_alloc(cu_engine *ce, const wt_volume_spec *s, const wt_vcoeffs *c,
                               vdevice *d)
{
    const size_t n = volume_elems(c->shape, c->channels);
    d->bytes = (n + wt_vcoeffs_elems(c) + wt_volume_dwt_work(s, c)) * sizeof(float);
    WT_TRY(cu_device_alloc(ce, (void **)&d->mem, d->bytes));
    d->dev = *c;
    float *at = d->mem + n;
    for (int i = 0; i < c->nbands; i++) {
        d->dev.band[i].data = at;
        at += volume_elems(c->band[i].shape, c->channels);
    }
    d->work = at;
    return WT_OK;
}

/* The bands between host @p c and the device (@p kind's direction). */
static wt_status vbands_copy(cu_engine *ce, const vdevice *d, const wt_vcoeffs *c,
                             cudaMemcpyKind kind)
{
    for (int i = 0; i < c->nbands; i++) {
        const size_t bytes = volume_elems(c->band[i].shape, c->channels) * sizeof(float);
        void *dst = kind == cudaMemcpyHostToDevice ? d->dev.band[i].data : c->band[i].data;
        const void *src = kind == cudaMemcpyHostToDevice ? c->band[i].data : d->dev.band[i].data;
        CU_CHECK_CE(ce, cudaMemcpyAsync(dst, src, bytes, kind, ce->stream));
    }
    return WT_OK;
}

/* One transform: @p planes (forward) or @p c's bands (inverse) up, every
 * level on the device, the other down. */
static wt_status vrun(wt_engine *e, const wt_volume_spec *s, const wt_vcoeffs *c,
                      float *planes, int inverse)
{
    cu_engine *ce = (cu_engine *)e->priv;
    CU_CHECK(cudaSetDevice(ce->device));
    vdevice d;
    WT_TRY(vdevice_alloc(ce, s, c, &d));
    const size_t plane_bytes = volume_elems(c->shape, c->channels) * sizeof(float);
    const wt_vpass_runner r = {vpass_run, ce};
    wt_status st = inverse ? vbands_copy(ce, &d, c, cudaMemcpyHostToDevice)
                           : cu_fail_check(cudaMemcpyAsync(d.mem, planes, plane_bytes,
                                                           cudaMemcpyHostToDevice, ce->stream),
                                           "cudaMemcpyAsync");
    if (st == WT_OK)
        st = wt_volume_dwt_levels(s, &d.dev, d.mem, d.work, inverse, &r);
    if (st == WT_OK)
        st = inverse ? cu_fail_check(cudaMemcpyAsync(planes, d.mem, plane_bytes,
                                                     cudaMemcpyDeviceToHost, ce->stream),
                                     "cudaMemcpyAsync")
                     : vbands_copy(ce, &d, c, cudaMemcpyDeviceToHost);
    if (st == WT_OK)
        st = cu_fail_check(cudaStreamSynchronize(ce->stream), "cudaStreamSynchronize");
    cu_device_free(ce, d.mem, d.bytes);
    return st;
}

wt_status cu_vforward(wt_engine *e, const wt_volume_spec *s, const float *planes, wt_vcoeffs *c)
{
    return vrun(e, s, c, (float *)planes, 0);
}

wt_status cu_vinverse(wt_engine *e, const wt_volume_spec *s, const wt_vcoeffs *c, float *planes)
{
    return vrun(e, s, c, planes, 1);
}
