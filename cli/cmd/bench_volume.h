/* bench --volume: an engine's volume transform timed (bench_volume.c). */
#ifndef WT_CLI_BENCH_VOLUME_H
#define WT_CLI_BENCH_VOLUME_H

#include "wavetool_hooks.h"

/* What one configuration took: the median and fastest of @p repeat runs
 * (after warm-ups), the bytes the levels read and write (a DWT: 8 a sample
 * of each level's input; SWT: 4 (1 + 2^axes) a voxel a level; starlet: the
 * 2-D counts) and a copy of half those bytes in the same run (a
 * memcpy on the CPU engine, a device-to-device copy on the GPU). */
typedef struct bench_volume_times {
    double ms, ms_min, bytes, copy_ms, copy_bytes;
} bench_volume_times;

/* The forward (or @p inverse) transform of a (z, y, x) = @p shape float32
 * volume of @p s (DWT, SWT or starlet) on engine @p e: the CPU engine on all
 * cores, host data; the CUDA engine on data already on the device (no host
 * transfers timed), or from host data (a DWT that does not fit the device,
 * streamed). */
wt_status bench_volume_time(wt_engine *e, const wt_volume_spec *s, const size_t shape[3],
                            int inverse, int repeat, bench_volume_times *t);

#endif
