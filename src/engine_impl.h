/* Inside of the engine interface: each engine fills a table of operations. */
#ifndef WT_ENGINE_IMPL_H
#define WT_ENGINE_IMPL_H

#include "wavetool.h"

typedef struct wt_engine_ops {
    wt_status (*forward)(wt_engine *e, const wt_params *p, const float *planes, wt_pyramid *out);
    wt_status (*inverse)(wt_engine *e, const wt_params *p, const wt_pyramid *in, float *planes);
    void (*close)(wt_engine *e);
} wt_engine_ops;

struct wt_engine {
    const wt_engine_ops *ops;
    char name[160];
    int is_cpu;
    int threads; /* CPU worker threads, 0 = cores */
    void *priv;
};

/* The CPU reference engine (always present). */
wt_status wt_cpu_engine_open(wt_engine **engine);

#ifdef WT_HAVE_CUDA
/* The CUDA engine on device @p device (-1: the first that works). */
wt_status wt_cuda_engine_open(wt_engine **engine, int device);

/* Timing of the CUDA engine on device-resident data (wavetool bench). */
typedef struct wt_cuda_timing {
    double ms, ms_min;        /* transform, all levels: median and fastest run */
    double copy_ms;           /* device-to-device copy of copy_bytes: median */
    size_t copy_bytes;        /* bytes copied (the copy reads and writes each) */
} wt_cuda_timing;
/* Times @p repeat runs (after a warm-up) of the forward (@p inverse = 0) or
 * inverse transform of @p channels planes of height x width already on the
 * device, with cudaEvents, and in the same call a cudaMemcpy device-to-device
 * of @p copy_bytes. WT_ERR_INVALID if @p engine is not a CUDA engine. */
wt_status wt_cuda_bench(wt_engine *engine, const wt_params *params, size_t height, size_t width,
                        int channels, int inverse, int repeat, size_t copy_bytes,
                        wt_cuda_timing *timing);
#endif

/* Split [0, count) into contiguous ranges, one per thread (up to @p threads,
 * 0 = cores), and run fn(ctx, begin, end) on each; returns when all are done. */
void wt_parallel_for(int threads, size_t count, void (*fn)(void *ctx, size_t begin, size_t end),
                     void *ctx);
/* Number of online processors (at least 1). */
int wt_cpu_count(void);

#endif
