/* Inside of the engine interface: each engine fills a table of operations. */
#ifndef WT_ENGINE_IMPL_H
#define WT_ENGINE_IMPL_H

#include "wavetool.h"

typedef struct wt_engine_ops {
    wt_status (*forward)(wt_engine *e, const wt_params *p, const float *planes, wt_pyramid *out);
    wt_status (*inverse)(wt_engine *e, const wt_params *p, const wt_pyramid *in, float *planes);
    void (*close)(wt_engine *e);
    /* Optional image paths (NULL: src/engine_image.c composes them from the
     * float operations above and the host conversions). Called with resolved
     * params and checked shapes; they add to e->times themselves. */
    wt_status (*forward_image)(wt_engine *e, const wt_params *p, const wt_image *img,
                               wt_pyramid *out);
    wt_status (*inverse_image)(wt_engine *e, const wt_params *p, const wt_pyramid *in,
                               wt_image *img);
    wt_status (*mosaic_image)(wt_engine *e, const wt_params *p, const wt_image *img,
                              wt_scale scale, int bit_depth, wt_image *mosaic);
    wt_status (*roundtrip_image)(wt_engine *e, const wt_params *p, const wt_image *img,
                                 wt_image *back);
} wt_engine_ops;

struct wt_engine {
    const wt_engine_ops *ops;
    char name[160];
    int is_cpu;
    int threads; /* CPU worker threads, 0 = cores */
    wt_engine_times times;
    void *priv;
};

/* Seconds on a monotonic clock, for wt_engine_times. */
double wt_seconds(void);
/* Resolve params and check that @p pyr was planned for them and for an image
 * of @p img's size (img may be NULL). */
wt_status wt_check_transform(wt_params *p, const wt_pyramid *pyr, const wt_image *img);

/* The CPU reference engine (always present). */
wt_status wt_cpu_engine_open(wt_engine **engine);

#ifdef WT_HAVE_CUDA
/* The CUDA engine on device @p device (-1: the first that works). */
wt_status wt_cuda_engine_open(wt_engine **engine, int device);

/* CUDA devices visible to this process (0 when none or the driver fails). */
int wt_cuda_device_count(void);

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
/* Median seconds of @p repeat pinned host-to-device copies of @p up bytes and
 * device-to-host copies of @p down bytes on the engine's copy stream
 * (cudaEvents), for the floor of wavetool bench --host-path. */
wt_status wt_cuda_copy_rates(wt_engine *engine, size_t up, size_t down, int repeat,
                             double *up_s, double *down_s);
/* Page-lock (@p on = 1) or release (0) a host buffer with cudaHostRegister:
 * the CUDA engine's image paths then copy it directly, without staging. */
wt_status wt_cuda_host_register(wt_engine *engine, void *ptr, size_t bytes, int on);
#endif

/* Split [0, count) into contiguous ranges, one per thread (up to @p threads,
 * 0 = cores), and run fn(ctx, begin, end) on each; returns when all are done. */
void wt_parallel_for(int threads, size_t count, void (*fn)(void *ctx, size_t begin, size_t end),
                     void *ctx);
/* Number of online processors (at least 1). */
int wt_cpu_count(void);

#endif
