/* A minimal fork-join helper for the CPU engine. */
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "engine_impl.h"

/* The processors this process may run on: its affinity mask where there is
 * one (taskset, the cpusets of batch schedulers such as Slurm, docker's
 * --cpuset-cpus), so that a job bound to 4 of a node's 64 cores does not
 * start 64 threads per pass; else the processors online. */
int wt_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef __linux__
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
        long mine = CPU_COUNT(&allowed);
        if (mine >= 1 && (n < 1 || mine < n))
            n = mine;
    }
#endif
    return n < 1 ? 1 : (n > 256 ? 256 : (int)n);
}

typedef struct range_job {
    void (*fn)(void *ctx, size_t begin, size_t end);
    void *ctx;
    size_t begin, end;
} range_job;

static void *run_range(void *arg)
{
    range_job *job = arg;
    job->fn(job->ctx, job->begin, job->end);
    return NULL;
}

void wt_parallel_for(int threads, size_t count, void (*fn)(void *ctx, size_t begin, size_t end),
                     void *ctx)
{
    if (threads <= 0)
        threads = wt_cpu_count();
    if ((size_t)threads > count)
        threads = (int)count;
    if (threads <= 1) {
        if (count)
            fn(ctx, 0, count);
        return;
    }
    range_job jobs[256];
    pthread_t tids[256];
    int started[256] = {0};
    if (threads > 256)
        threads = 256;
    for (int t = 0; t < threads; t++) {
        jobs[t] = (range_job){fn, ctx, count * (size_t)t / (size_t)threads,
                              count * (size_t)(t + 1) / (size_t)threads};
        /* the first range runs on this thread; a failed start runs inline */
        if (t > 0 && pthread_create(&tids[t], NULL, run_range, &jobs[t]) == 0)
            started[t] = 1;
    }
    run_range(&jobs[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tids[t], NULL);
        else
            run_range(&jobs[t]);
    }
}

/* A batch allocates the same large buffers (image, planes, pyramid, mosaic)
 * file after file. glibc would map each one fresh and unmap it on free, so
 * every file paid a page fault per 4 KB of them (20-25% of a 2-core CPU
 * batch of 2 MPixel photos): keep buffers up to 256 MB in the heap and give
 * memory back only past 1 GB free at the top. What stays mapped between
 * files is reused: 60 photos at -j 2, 4.36 s -> 3.81 s (median of 3), peak
 * RSS 180 -> 226 MB; the workers still bound it. */
void wt_keep_freed_buffers(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    /* A few heaps, not one per thread: each reserves 64 MB of address space,
     * so 16 workers took 1 GB of it (ulimit -v) for a few MB of buffers. */
    mallopt(M_ARENA_MAX, 4);
#endif
}
