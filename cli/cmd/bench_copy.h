/* bench: the host copy each CPU figure is compared with, and the samples the
 * host benchmarks transform (bench_copy.c). */
#ifndef WT_CLI_BENCH_COPY_H
#define WT_CLI_BENCH_COPY_H

#include <stddef.h>

/* Median wall milliseconds of @p repeat copies (after a warm-up) of
 * @p bytes from @p src to @p dst, split over as many threads as the CPU
 * engine runs (the cores this process may use), so that the CPU engine on
 * all cores is compared with the memory bandwidth, not one core's copy;
 * @p t: room for @p repeat times. */
double bench_copy_ms(char *dst, const char *src, size_t bytes, int repeat, double *t);

/* The samples every host benchmark transforms: 0..255, scattered (an 8-bit
 * image's range, which every wavelet takes, legall53 in its 32-bit steps). */
void bench_fill_samples(float *x, size_t n);

#endif
