/* SWT (pywt.swtn) and starlet volumes on the CUDA engine: the samples,
 * every band and the work arrays on the device at once, the levels driven
 * by src/transforms/transform_volume.c (wt_volume_undecimated_levels) with
 * this file's filter pass and elementwise sum (the starlet's layers and
 * its inverse). A filter pass along one axis of dense (C, z, y, x) arrays:
 *   dst[o] = sum_k f[k] src[border(o + start[k])]
 * with the border folded into start as src/engine/axis_filter.c folds it
 * (border_of, border_start, border_map), one thread an output sample,
 * neighbouring x together. Volumes that do not fit the device are not
 * streamed: they fail with WT_ERR_DEVICE_NOMEM (--device auto: the CPU
 * engine runs them). */
#include <stdio.h>
#include <string.h>

#include "cu_engine.h"
#include "cu_engine_impl.h"
#include "transform.h"

#define CU_UVTHREADS 256

/* One term of a pass: taps with the border folded in. */
typedef struct cu_uvterm {
    int ntaps;
    float f[WT_UTAPS];
    int start[WT_UTAPS]; /* the source of output o is border(o + start[k]) */
} cu_uvterm;

typedef struct cu_uvpass {
    int n, period, border; /* the filtered axis: length, the border's period */
    int nterms, summed;    /* summed: both terms into dst[0] */
    cu_uvterm term[2];
} cu_uvpass;

/* Source index of extension position @p i >= 0 (axis_filter.c's
 * border_map; nearest: positions from -n, clamped). */
WT_DEV int uv_border_map(const cu_uvpass &P, int i)
{
    if (P.border == WT_BORDER_PERIODIC)
        return i % P.n;
    if (P.border == WT_BORDER_MIRROR) {
        const int r = i % P.period;
        return r < P.n ? r : P.period - r;
    }
    return i < P.n ? 0 : (i - P.n >= P.n ? P.n - 1 : i - P.n);
}

WT_DEV float uv_term(const cu_uvpass &P, const cu_uvterm &T, const float *line, size_t inner,
                     int o)
{
    float acc = 0.0f;
    for (int k = 0; k < T.ntaps; k++)
        acc += T.f[k] * line[(size_t)uv_border_map(P, o + T.start[k]) * inner];
    return acc;
}

WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_UVTHREADS)
    uvfilter_kernel(const WT_GRID_CONST cu_uvpass P, const float *src0, const float *src1,
                    float *dst0, float *dst1, size_t outer, size_t inner)
{
    const size_t total = outer * (size_t)P.n * inner;
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
         t += (size_t)gridDim.x * blockDim.x) {
        const size_t q = t % inner, r = t / inner, ob = r / (size_t)P.n;
        const int o = (int)(r - ob * (size_t)P.n);
        const size_t line = ob * (size_t)P.n * inner + q;
        float a = uv_term(P, P.term[0], src0 + line, inner, o);
        if (P.nterms == 2) {
            const float b = uv_term(P, P.term[1], src1 + line, inner, o);
            if (P.summed)
                a += b;
            else
                dst1[t] = b;
        }
        dst0[t] = a;
    }
}

WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_UVTHREADS)
    uvcombine_kernel(float *dst, const float *a, const float *b, float sign, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = a[i] + sign * b[i];
}

/* The taps of @p f on an axis of @p P's border (axis_filter.c's taps_of:
 * zero taps left out, the offsets folded into [0, period), or clamped to
 * [-n, n] and moved by n for the nearest border). */
static void uvterm_of(const cu_uvpass &P, const wt_vtaps *f, cu_uvterm *T)
{
    T->ntaps = 0;
    for (int k = 0; k < f->ntaps; k++) {
        if (f->taps[k] == 0.0)
            continue;
        long long off = f->shift - (long long)k * (long long)f->step;
        if (P.border == WT_BORDER_NEAREST) {
            off = off < -P.n ? -P.n : (off > P.n ? P.n : off);
            off += P.n;
        } else {
            off %= P.period;
            off += off < 0 ? P.period : 0;
        }
        T->f[T->ntaps] = (float)(f->taps[k] * f->gain);
        T->start[T->ntaps] = (int)off;
        T->ntaps++;
    }
}

static unsigned uvblocks(const cu_engine *ce, size_t total)
{
    const size_t blocks = (total + CU_UVTHREADS - 1) / CU_UVTHREADS, cap = (size_t)ce->sms * 64;
    return (unsigned)(blocks < cap ? blocks : cap);
}

/* The runner's filter pass. */
static wt_status uvfilter(void *ctx, const wt_vfilter *p)
{
    cu_engine *ce = (cu_engine *)ctx;
    cu_uvpass P;
    memset(&P, 0, sizeof P);
    const size_t n = p->shape[p->axis];
    size_t outer, inner;
    cu_vaxis_extents(p->shape, p->axis, p->channels, &outer, &inner);
    P.n = (int)n;
    P.border = (int)p->border;
    P.period = p->border == WT_BORDER_MIRROR ? (n > 1 ? 2 * (int)n - 2 : 1) : (int)n;
    P.nterms = p->nterms;
    P.summed = p->nterms == 2 && p->dst[0] == p->dst[1];
    for (int t = 0; t < p->nterms; t++)
        uvterm_of(P, &p->f[t], &P.term[t]);
    const unsigned blocks = uvblocks(ce, outer * n * inner);
    if (blocks == 0)
        return WT_OK;
    WT_LAUNCH(uvfilter_kernel, dim3(blocks), dim3(CU_UVTHREADS), 0, ce->stream, P, p->src[0],
              p->nterms == 2 ? p->src[1] : p->src[0], p->dst[0],
              p->nterms == 2 ? p->dst[1] : p->dst[0], outer, inner);
    CU_CHECK_CE(ce, cudaGetLastError());
    return WT_OK;
}

static wt_status uvcombine(void *ctx, float *dst, const float *a, const float *b, float sign,
                           size_t n)
{
    cu_engine *ce = (cu_engine *)ctx;
    const unsigned blocks = uvblocks(ce, n);
    if (blocks == 0)
        return WT_OK;
    WT_LAUNCH(uvcombine_kernel, dim3(blocks), dim3(CU_UVTHREADS), 0, ce->stream, dst, a, b, sign,
              n);
    CU_CHECK_CE(ce, cudaGetLastError());
    return WT_OK;
}

static size_t volume_elems(const size_t shape[3], int channels)
{
    return shape[0] * shape[1] * shape[2] * (size_t)channels;
}

/* The bands of @p host and @p dev (the same plan) from one to the other. */
static wt_status uvbands_copy(cu_engine *ce, const wt_vcoeffs *host, const wt_vcoeffs *dev,
                              int to_device)
{
    for (int i = 0; i < host->nbands; i++) {
        const size_t bytes = volume_elems(host->band[i].shape, host->channels) * sizeof(float);
        void *dst = to_device ? dev->band[i].data : host->band[i].data;
        const void *src = to_device ? host->band[i].data : dev->band[i].data;
        CU_CHECK_CE(ce, cudaMemcpyAsync(dst, src, bytes,
                                        to_device ? cudaMemcpyHostToDevice
                                                  : cudaMemcpyDeviceToHost,
                                        ce->stream));
    }
    return WT_OK;
}

/* A transform's device memory: the samples, every band (@p dev: @p c with
 * its bands' data there) and the work area, one allocation. */
typedef struct uvdevice {
    float *mem, *work;
    size_t bytes;
    wt_vcoeffs dev;
} uvdevice;

static wt_status uvdevice_alloc(cu_engine *ce, const wt_volume_spec *s, const wt_vcoeffs *c,
                                int inverse, uvdevice *d)
{
    const size_t n = volume_elems(c->shape, c->channels);
    const size_t work = s->transform == WT_TRANSFORM_STARLET && inverse
                            ? 0
                            : wt_volume_undecimated_work(s, c);
    d->bytes = (n + wt_vcoeffs_elems(c) + work) * sizeof(float);
    const wt_status st = cu_device_alloc(ce, (void **)&d->mem, d->bytes);
    if (st != WT_OK) { /* say which volume (--device auto moves it to the CPU engine) */
        char why[256];
        snprintf(why, sizeof why, "%s", wt_error_message());
        return wt_error_set(st, "a volume of %zux%zux%zu, %d channel%s, does not fit the GPU "
                                "(the SWT and the starlet are not streamed): %s",
                            c->shape[2], c->shape[1], c->shape[0], c->channels,
                            c->channels == 1 ? "" : "s", why);
    }
    d->dev = *c;
    float *at = d->mem + n;
    for (int i = 0; i < c->nbands; i++) {
        d->dev.band[i].data = at;
        at += volume_elems(c->band[i].shape, c->channels);
    }
    d->work = at;
    return WT_OK;
}

/* Every level on the device, queued on ce->stream. */
static wt_status uvlevels_device(cu_engine *ce, const wt_volume_spec *s, const uvdevice *d,
                                 int inverse)
{
    const wt_vfilter_runner r = {uvfilter, uvcombine, ce};
    return wt_volume_undecimated_levels(s, &d->dev, d->mem, d->work, inverse, &r);
}

wt_status cu_vundecimated(cu_engine *ce, const wt_volume_spec *s, const wt_vcoeffs *c,
                          float *planes, int inverse)
{
    const size_t n = volume_elems(c->shape, c->channels);
    uvdevice d;
    WT_TRY(uvdevice_alloc(ce, s, c, inverse, &d));
    wt_status st = inverse ? uvbands_copy(ce, c, &d.dev, 1)
                           : cu_fail_check(cudaMemcpyAsync(d.mem, planes, n * sizeof(float),
                                                           cudaMemcpyHostToDevice, ce->stream),
                                           "cudaMemcpyAsync");
    if (st == WT_OK)
        st = uvlevels_device(ce, s, &d, inverse);
    if (st == WT_OK)
        st = inverse ? cu_fail_check(cudaMemcpyAsync(planes, d.mem, n * sizeof(float),
                                                     cudaMemcpyDeviceToHost, ce->stream),
                                     "cudaMemcpyAsync")
                     : uvbands_copy(ce, c, &d.dev, 0);
    if (st == WT_OK)
        st = cu_fail_check(cudaStreamSynchronize(ce->stream), "cudaStreamSynchronize");
    cu_device_free(ce, d.mem, d.bytes);
    return st;
}

/* ---- bench --volume: device-resident timing -------------------------------------- */

typedef struct uvbench_job {
    cu_engine *ce;
    const wt_volume_spec *s;
    const uvdevice *d;
    int inverse;
} uvbench_job;

static wt_status uvbench_run(const void *job)
{
    const uvbench_job *j = (const uvbench_job *)job;
    return uvlevels_device(j->ce, j->s, j->d, j->inverse);
}

wt_status cu_uvbench(cu_engine *ce, const wt_volume_spec *s, const wt_vcoeffs *c, int inverse,
                     int repeat, size_t copy_bytes, wt_cuda_timing *timing)
{
    uvdevice d;
    WT_TRY(uvdevice_alloc(ce, s, c, 0, &d)); /* the forward's work area: the larger */
    memset(timing, 0, sizeof *timing);
    const uvbench_job job = {ce, s, &d, inverse};
    wt_status st = fill_random(ce, d.mem, volume_elems(c->shape, c->channels), 12345u);
    if (st == WT_OK) /* real bands for the inverse */
        st = uvlevels_device(ce, s, &d, 0);
    if (st == WT_OK)
        st = cu_time_runs(ce, uvbench_run, &job, repeat, &timing->ms, &timing->ms_min);
    if (st == WT_OK) /* the copy reads the samples and what follows them (bands, work) */
        st = cu_time_device_copy(ce, d.mem, copy_bytes < d.bytes ? copy_bytes : d.bytes, repeat,
                                 timing);
    if (st == WT_OK)
        st = cu_fail_check(cudaStreamSynchronize(ce->stream), "cudaStreamSynchronize");
    cu_device_free(ce, d.mem, d.bytes);
    return st;
}
