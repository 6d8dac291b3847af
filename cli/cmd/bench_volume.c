/* bench --volume: the CPU engine's axis core (wall clock of
 * wt_volume_forward / wt_volume_inverse, against a memcpy of the same bytes)
 * or the CUDA engine's volume DWT on device-resident data (cudaEvents,
 * against a device-to-device copy; wt_cuda_vbench), the DWT, SWT or
 * starlet; a DWT that does not fit the GPU (streamed through it in slabs) is
 * timed as the CPU engine's is, from host memory. See bench_volume.h. */
#include "bench_volume.h"

#include "bench_copy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The SWT's and the starlet's bytes: each level reads its input and writes
 * its bands (SWT: 1 + 2^axes volumes a level, either direction; starlet: the
 * 2-D counts, 3 a scale, its inverse L + 2). */
static double undecimated_bytes(const wt_volume_spec *s, const size_t shape[3], int inverse)
{
    const double voxels = (double)shape[0] * (double)shape[1] * (double)shape[2];
    if (s->transform == WT_TRANSFORM_SWT)
        return 4.0 * voxels * (double)(1 + (1 << s->naxes)) * s->uparams.levels;
    return wt_transform_class_of(s->transform)->bench_bytes(&s->uparams, voxels, inverse);
}

/* The DWT's: 8 bytes per sample of each level's input (the approximation
 * before it). */
static double level_bytes(const wt_volume_spec *s, const size_t shape[3], int inverse)
{
    if (s->transform != WT_TRANSFORM_DWT)
        return undecimated_bytes(s, shape, inverse);
    double bytes = 0.0;
    size_t a[3] = {shape[0], shape[1], shape[2]};
    for (int l = 1; l <= s->params.levels; l++) {
        bytes += 8.0 * (double)a[0] * (double)a[1] * (double)a[2];
        wt_volume_spec upto = *s;
        upto.params.levels = l;
        wt_vcoeffs plan;
        if (wt_volume_plan(&upto, shape, 1, &plan) != WT_OK)
            return 0.0;
        memcpy(a, plan.band[0].shape, sizeof a);
    }
    return bytes;
}

static double median(double *t, int n)
{
    return wt_median(t, (size_t)n);
}

static void time_copy(size_t bytes, int repeat, double *t, bench_volume_times *r)
{
    char *a = malloc(bytes + 1), *b = malloc(bytes + 1);
    if (!a || !b) {
        free(a);
        free(b);
        return;
    }
    memset(a, 1, bytes + 1);
    memset(b, 0, bytes + 1); /* its pages faulted in before the timing */
    r->copy_ms = bench_copy_ms(b, a, bytes, repeat, t);
    r->copy_bytes = (double)bytes;
    free(a);
    free(b);
}

/* Wall clock of the transform from and to host memory on @p e (NULL: the
 * CPU engine's axis core). */
static wt_status time_host(wt_engine *e, const wt_volume_spec *s, const size_t shape[3],
                           int inverse, int repeat, bench_volume_times *r)
{
    const size_t n = shape[0] * shape[1] * shape[2];
    const int threads = wt_cpu_count();
    float *x = malloc(n * sizeof *x + 4);
    double *t = malloc((size_t)repeat * sizeof *t);
    wt_vcoeffs k = {0};
    wt_status st = x && t ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    if (st == WT_OK)
        bench_fill_samples(x, n);
    if (st == WT_OK)
        st = wt_volume_forward_on(e, s, x, shape, 1, threads, &k);
    for (int j = -1; st == WT_OK && j < repeat; j++) {
        double t0 = wt_seconds();
        st = inverse ? wt_volume_inverse_on(e, s, &k, x, threads)
                     : wt_volume_forward_into_on(e, s, x, threads, &k);
        if (j >= 0)
            t[j] = (wt_seconds() - t0) * 1e3;
    }
    if (st == WT_OK) {
        r->ms = median(t, repeat);
        r->ms_min = t[0];
        for (int j = 1; j < repeat; j++)
            r->ms_min = t[j] < r->ms_min ? t[j] : r->ms_min;
        time_copy((size_t)(r->bytes / 2), repeat, t, r);
    }
    wt_vcoeffs_free(&k);
    free(x);
    free(t);
    return st;
}

#if WT_HAVE_CUDA
static wt_status time_cuda(wt_engine *e, const wt_volume_spec *s, const size_t shape[3],
                           int inverse, int repeat, bench_volume_times *r)
{
    wt_cuda_timing t;
    wt_status st = wt_cuda_vbench(e, s, shape, inverse, repeat, (size_t)(r->bytes / 2), &t);
    if (st == WT_ERR_DEVICE_NOMEM || st == WT_ERR_UNSUPPORTED) {
        fprintf(stderr, "wavetool: bench: %zux%zux%zu: %s; timed from host memory instead "
                        "(a DWT that does not fit streamed), against a memcpy\n",
                shape[2], shape[1], shape[0], wt_error_message());
        return time_host(e, s, shape, inverse, repeat, r);
    }
    if (st == WT_OK) {
        r->ms = t.ms, r->ms_min = t.ms_min;
        r->copy_ms = t.copy_ms, r->copy_bytes = (double)t.copy_bytes;
    }
    return st;
}
#endif

wt_status bench_volume_time(wt_engine *e, const wt_volume_spec *s, const size_t shape[3],
                            int inverse, int repeat, bench_volume_times *r)
{
    memset(r, 0, sizeof *r);
    r->bytes = level_bytes(s, shape, inverse);
    if (wt_engine_is_cpu(e))
        return time_host(NULL, s, shape, inverse, repeat, r);
#if WT_HAVE_CUDA
    return time_cuda(e, s, shape, inverse, repeat, r);
#else
    return wt_error_set(WT_ERR_UNSUPPORTED, "no GPU benchmark in this build");
#endif
}
