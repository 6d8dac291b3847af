/* --device auto: which engine finishes a job first, decided before either is
 * opened, from what the inputs' headers declare.
 *
 * Measured on the H200 machine (16 cores), 4096x4096 float32, 3 levels,
 * `wavetool bench --device cpu|cuda -w haar,db3,sym8,cdf97 -m symmetric`:
 * - opening a GPU costs about 0.35 s a process (CUDA's initialisation and the
 *   context): `wavetool --version -v` 0.33 s; a 512x512 decompose 0.38 s on
 *   the GPU against 0.01 s on the CPU engine;
 * - the CPU engine on one thread (taskset -c 0) takes 13.4 / 13.6 ns a sample
 *   (haar forward / inverse), 6.7 / 13.1 (db3), 10.9 / 17.8 (sym8), 26.8 /
 *   26.3 (cdf97 lifting): CPU_NS_BASE + CPU_NS_PER_TAP x taps follows them
 *   within a factor of 1.6; on 16 threads 6.2 to 10 times faster, so a thread
 *   beyond the first adds CPU_THREAD_GAIN of one;
 * - the GPU's transform is 0.004 ns a sample; the rest of its cost is moving
 *   samples between host and device, GPU_NS_PER_SAMPLE.
 * Decoding and encoding cost the same on either side and are left out.
 *
 * Volumes (--volume): each file is one transform, its samples and bands
 * copied between pageable host memory and the device in one piece, and
 * the CPU engine's level is three passes to an image's two. Measured on the
 * H200 machine, `decompose --volume` of uint8 .npy volumes, -l 3: 256^3
 * 0.60 s on the GPU against 0.29 s on the CPU engine, 512^3 haar 2.57 s
 * against 2.17 s: the GPU's extra is its opening and about 1.4 ns a sample
 * of copies (VOLUME_GPU_NS_PER_SAMPLE), and the CPU engine's axis passes
 * cost about VOLUME_CPU_FACTOR times an image's per sample (bench --volume
 * 128^3 against a 1448^2 image of the same samples). The GPU then pays only
 * past about 10^9 samples with short filters (5 x 10^8 with db3's): a
 * 1024^3 volume, which needs about 20 GB of device memory. */
#include <stdio.h>

#include "wavetool_hooks.h"

#define GPU_OPEN_SECONDS 0.35
#define GPU_NS_PER_SAMPLE 0.5
#define CPU_NS_BASE 12.0
#define CPU_NS_PER_TAP 0.5
#define CPU_THREAD_GAIN 0.55
#define VOLUME_GPU_NS_PER_SAMPLE 1.4
#define VOLUME_CPU_FACTOR 1.25

double wt_auto_cpu_seconds(const wt_auto_job *job)
{
    int threads = job->threads > 0 ? job->threads : 1;
    double speedup = 1.0 + CPU_THREAD_GAIN * (threads - 1);
    double per_sample = (CPU_NS_BASE + CPU_NS_PER_TAP * job->taps) * 1e-9;
    if (job->volume)
        per_sample *= VOLUME_CPU_FACTOR;
    return (double)job->samples * job->passes * per_sample / speedup;
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
        snprintf(why, size, "%.3g M samples x %d pass%s: CPU engine ~%.2f s on %d thread%s, "
                 "GPU ~%.2f s with its opening",
                 (double)job->samples / 1e6, job->passes, job->passes == 1 ? "" : "es", cpu,
                 job->threads, job->threads == 1 ? "" : "s", gpu);
    return prefer;
}
