/* --device auto: which engine finishes a job first, decided before either is
 * opened, from what the inputs' headers declare.
 *
 * Measured on the H200 machine (16 cores):
 * - opening a GPU costs about 0.35 s a process (CUDA's initialisation and the
 *   context): `wavetool --version -v` 0.33 s; a 512x512 decompose 0.38 s on
 *   the GPU against 0.01 s on the CPU engine;
 * - the GPU's transform is 0.004 ns a sample; the rest of its cost is moving
 *   samples between host and device, GPU_NS_PER_SAMPLE;
 * - the CPU engine's transform on one thread (taskset -c 0, 4096x4096
 *   float32, 3 levels, `bench --device cpu`) takes 6.7 to 27 ns a sample
 *   (db3 forward to cdf97), CPU_NS_BASE + CPU_NS_PER_TAP x taps; on 16
 *   threads 6 to 10 times faster: a thread beyond the first adds
 *   CPU_THREAD_GAIN of one;
 * - around the transform the CPU engine does on the host what the GPU
 *   engine does on the device (the samples' conversions, the mosaic's
 *   scaling), on the one thread of the file's worker: CPU_NS_HOST a sample.
 *   `bench/auto_device.sh` (decompose -w db3 -l 3 -O of photo-like JPEGs;
 *   decoding and encoding cost the same on either side and are left out):
 *   one 8192x8192 RGB file took 2.05 s on the CPU engine against 1.32 s on
 *   the GPU, one 4096x4096 0.71 s against 0.62 s, about 6 ns a sample on
 *   the CPU engine with one file; 200 files of 1024x1024 0.60 s against
 *   0.67 s and 200 of 4096x4096 8.6 s against 3.7 s, about 1 ns a sample
 *   with a file on each of the 16 cores (16 ns on one).
 *
 * Volumes (--volume): each file is one transform, its samples and bands
 * copied between pageable host memory and the device in one piece, and
 * the CPU engine's level is three passes to an image's two. Measured on the
 * H200 machine, `decompose --volume` of uint8 .npy volumes, -l 3: 256^3
 * 0.60 s on the GPU against 0.29 s on the CPU engine, 512^3 haar 2.57 s
 * against 2.17 s: the GPU's extra is its opening and about 1.4 ns a sample
 * of copies (VOLUME_GPU_NS_PER_SAMPLE), and the CPU engine's axis passes
 * cost about 1.25 times an image's per sample (bench --volume 128^3 against
 * a 1448^2 image of the same samples): VOLUME_CPU_NS_BASE and
 * VOLUME_CPU_NS_PER_TAP. The GPU then pays only past about 10^9 samples with
 * short filters (5 x 10^8 with db3's): a 1024^3 volume, which needs about
 * 20 GB of device memory. */
#include <stdio.h>

#include "wavetool_hooks.h"

#define GPU_OPEN_SECONDS 0.35
#define GPU_NS_PER_SAMPLE 0.5
#define CPU_NS_BASE 8.0
#define CPU_NS_PER_TAP 0.5
#define CPU_NS_HOST 5.0
#define CPU_THREAD_GAIN 0.55
#define VOLUME_GPU_NS_PER_SAMPLE 1.4
#define VOLUME_CPU_NS_BASE 15.0
#define VOLUME_CPU_NS_PER_TAP 0.625

double wt_auto_cpu_seconds(const wt_auto_job *job)
{
    int threads = job->threads > 0 ? job->threads : 1;
    int workers = job->workers > 1 ? job->workers : 1;
    workers = workers < threads ? workers : threads;
    /* each file's transform on threads / workers threads, its host work on one */
    double speedup = workers * (1.0 + CPU_THREAD_GAIN * (threads / workers - 1));
    double ns = job->volume
                    ? (VOLUME_CPU_NS_BASE + VOLUME_CPU_NS_PER_TAP * job->taps) / speedup
                    : (CPU_NS_BASE + CPU_NS_PER_TAP * job->taps) / speedup +
                          CPU_NS_HOST / workers;
    return (double)job->samples * job->passes * ns * 1e-9;
}

double wt_auto_gpu_seconds(const wt_auto_job *job)
{
    const double per_sample = job->volume ? VOLUME_GPU_NS_PER_SAMPLE : GPU_NS_PER_SAMPLE;
    return GPU_OPEN_SECONDS + (double)job->samples * job->passes * per_sample * 1e-9;
}

int wt_auto_prefers_gpu(const wt_auto_job *job, char *why, size_t size)
{
    double cpu = wt_auto_cpu_seconds(job), gpu = wt_auto_gpu_seconds(job);
    int prefer = gpu < cpu;
    if (why && size)
        snprintf(why, size, "%.3g M samples x %d pass%s: CPU engine ~%.2f s on %d thread%s "
                 "(%d file%s at a time), GPU ~%.2f s with its opening",
                 (double)job->samples / 1e6, job->passes, job->passes == 1 ? "" : "es", cpu,
                 job->threads, job->threads == 1 ? "" : "s", job->workers > 1 ? job->workers : 1,
                 job->workers > 1 ? "s" : "", gpu);
    return prefer;
}
