/* libwavetool's hooks for wavetool's own program, benchmarks and tests, and
 * the small utilities they share with the library (one clock, one CPU count,
 * one median, one way to put a file name in front of a message).
 *
 * NOT part of the public API: these are declared here and not in wavetool.h,
 * so the shared library does not export them (its version script lists
 * wavetool.h's functions) and `meson install` does not install this header.
 * cli/, tests/ and bench/ link the static library, which holds them. They may
 * change with any release. cli/ and tests/ include wavetool.h and this header,
 * nothing else from src/ (tests/boundary_check.sh). */
#ifndef WAVETOOL_HOOKS_H
#define WAVETOOL_HOOKS_H

#include <stddef.h>
#include <stdint.h>

#include "config.h" /* WT_HAVE_CUDA: 0 or 1 */
#include "wavetool.h"

/* ---- utilities ----------------------------------------------------------- */

/* Seconds on a monotonic clock. */
double wt_seconds(void);

/* Number of processors this process may use: its affinity mask (taskset,
 * cpusets), else those online; at least 1, at most 256. */
int wt_cpu_count(void);

/* glibc: keep freed buffers up to 256 MB in the heap and give memory back only
 * past 1 GB free at the top, so a batch (or a benchmark's runs) reuses its
 * large buffers instead of faulting in fresh mappings; elsewhere nothing. */
void wt_keep_freed_buffers(void);

/* Split [0, count) into contiguous ranges, one per thread (up to @p threads,
 * 0 = cores), and run fn(ctx, begin, end) on each; returns when all are done. */
void wt_parallel_for(int threads, size_t count, void (*fn)(void *ctx, size_t begin, size_t end),
                     void *ctx);

/* The median of @p v[0..n) (the upper middle for even n; 0 for n = 0); sorts @p v. */
double wt_median(double *v, size_t n);

/* The k-th smallest of @p v[0..n) (k < n), by Hoare's selection; @p v is
 * reordered so that v[0..k) <= v[k] <= v(k..n). */
double wt_select_kth(double *v, size_t n, size_t k);

/* Put "@p prefix: " in front of the current error message (that of a function
 * that did not know the file, say); returns @p st. Does nothing for WT_OK or
 * a message that starts with "@p prefix: " already. */
wt_status wt_error_prefix(wt_status st, const char *prefix);

/* Every band of every channel of @p p in storage order (cA of each channel,
 * then from the deepest level H, V, D, each per channel) into @p sel (room for
 * channels * (3 * levels + 1)); returns how many. */
size_t wt_pyramid_bands(const wt_pyramid *p, wt_band_ref *sel);

/* ---- test hooks ---------------------------------------------------------- */

/* Device-resident denoise timing (tests/denoise_speed --resident): @p img's
 * samples go to the engine once as float planes; each of @p runs then times
 * (host wall clock, waiting for the engine at the end) the forward of those
 * planes, the fused shrinkage (sigma, thresholds, shrink) and the inverse
 * into the engine's own planes; *ms: the median. Engines with a fused
 * shrinkage only (CUDA). */
wt_status wt_denoise_time_resident(wt_engine *engine, const wt_denoise_options *o,
                                   const wt_image *img, int runs, double *ms);

/* .npz (src/npz.c): members and offsets of at least @p bytes get ZIP64
 * records (default 0xFFFFFFFF, where the zip format needs them). Tests lower
 * it to exercise the ZIP64 path on small files; not thread-safe, set before
 * writing. */
void wt_npz_set_zip64_threshold(uint64_t bytes);

/* The largest |input| of a legall53 level that the CUDA engine transforms
 * with 32-bit lifting steps (src/dwt_geometry.h, WT_LIFT53_NARROW_MAX):
 * gpu_check's inputs at that limit. */
uint32_t wt_lift53_narrow_max(void);

/* ---- CUDA engine: benchmark and page-locking hooks ----------------------- */
#if WT_HAVE_CUDA
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
/* Times @p repeat device-resident runs (after a warm-up) of an undecimated
 * transform (forward, or @p inverse = 1) of @p channels planes, and a
 * device-to-device copy of half the bytes it reads and writes (*@p bytes;
 * the copy reads and writes each of its bytes). SWT level: 1 plane read, 4
 * written (inverse 4 + 1); starlet scale 1 + 2 (inverse L + 1 read, 1 written). */
wt_status wt_cuda_ubench(wt_engine *engine, const wt_uparams *params, size_t height,
                         size_t width, int channels, int inverse, int repeat,
                         wt_cuda_timing *timing, size_t *bytes);
/* Median seconds of @p repeat pinned host-to-device copies of @p up bytes and
 * device-to-host copies of @p down bytes on the engine's copy stream
 * (cudaEvents), for the floor of wavetool bench --host-path. */
wt_status wt_cuda_copy_rates(wt_engine *engine, size_t up, size_t down, int repeat,
                             double *up_s, double *down_s);
/* Page-lock (@p on = 1) or release (0) a host buffer with cudaHostRegister:
 * the CUDA engine's image paths then copy it directly, without staging. */
wt_status wt_cuda_host_register(wt_engine *engine, void *ptr, size_t bytes, int on);
#endif

#endif
