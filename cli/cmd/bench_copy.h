/* bench: the host copy each CPU figure is compared with (bench_copy.c). */
#ifndef WT_CLI_BENCH_COPY_H
#define WT_CLI_BENCH_COPY_H

#include <stddef.h>

/* Median wall milliseconds of @p repeat copies (after a warm-up) of
 * @p bytes from @p src to @p dst, split over as many threads as the CPU
 * engine runs (the cores this process may use), so that the CPU engine on
 * all cores is compared with the memory bandwidth, not one core's copy;
 * @p t: room for @p repeat times. */
double bench_copy_ms(char *dst, const char *src, size_t bytes, int repeat, double *t);

#endif
