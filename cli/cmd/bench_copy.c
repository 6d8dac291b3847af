/* bench: the host copy and the host benchmarks' samples (see bench_copy.h). */
#include "bench_copy.h"

#include "wavetool_hooks.h"

#include <stdint.h>
#include <string.h>

typedef struct copy_job {
    char *dst;
    const char *src;
} copy_job;

static void copy_range(void *ctx, size_t begin, size_t end)
{
    const copy_job *j = ctx;
    memcpy(j->dst + begin, j->src + begin, end - begin);
}

double bench_copy_ms(char *dst, const char *src, size_t bytes, int repeat, double *t)
{
    copy_job j = {dst, src};
    for (int k = -1; k < repeat; k++) {
        double t0 = wt_seconds();
        wt_parallel_for(0, bytes, copy_range, &j);
        if (k >= 0)
            t[k] = (wt_seconds() - t0) * 1e3;
    }
    return wt_median(t, (size_t)repeat);
}

void bench_fill_samples(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)((uint32_t)(i * 2654435761u) >> 24);
}
