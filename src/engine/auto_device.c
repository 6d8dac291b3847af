/* --device auto: which engine finishes a job first, decided before either is
 * opened, from what the inputs' headers declare.
 *
 * Opening a GPU costs about 0.35 s a process (CUDA's initialisation and the
 * context: 0.33 s for `wavetool --version`, 0.37 s more than the CPU engine
 * for a 512x512 decompose, on an H200 machine with 16 cores); the GPU's
 * transform then costs little per sample (transfers through pinned buffers),
 * while the CPU engine's costs about CPU_NS_BASE + CPU_NS_PER_TAP x taps
 * nanoseconds per sample and pass on one thread, divided among its threads.
 * Decoding and encoding cost the same on either side and are left out. The
 * constants and the measurements that chose them: docs/performance.md
 * ("The auto engine"). */
#include <stdio.h>

#include "wavetool_hooks.h"

#define GPU_OPEN_SECONDS 0.35
#define GPU_NS_PER_SAMPLE 0.5
#define CPU_NS_BASE 8.0
#define CPU_NS_PER_TAP 2.0

double wt_auto_cpu_seconds(const wt_auto_job *job)
{
    int threads = job->threads > 0 ? job->threads : 1;
    double per_sample = (CPU_NS_BASE + CPU_NS_PER_TAP * job->taps) * 1e-9;
    return (double)job->samples * job->passes * per_sample / threads;
}

double wt_auto_gpu_seconds(const wt_auto_job *job)
{
    return GPU_OPEN_SECONDS + (double)job->samples * job->passes * GPU_NS_PER_SAMPLE * 1e-9;
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
