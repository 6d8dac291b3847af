/* The batch kernels of the CPU engine (dwt_line.h): the reference table and
 * the choice among it and the instruction-set variants, made at run time
 * from what the CPU reports, so one build runs everywhere. */
#include <string.h>

#include "config.h"
#include "dwt_line.h"
#include "wavetool_hooks.h"

static void gather_rows(const uint32_t *rows, ptrdiff_t stride, size_t len, uint32_t *buf)
{
    for (size_t i = 0; i < len; i++)
        for (int b = 0; b < WT_BATCH; b++)
            buf[i * WT_BATCH + b] = rows[b * stride + (ptrdiff_t)i];
}

static void scatter_rows(const uint32_t *buf, size_t len, uint32_t *rows, ptrdiff_t stride)
{
    for (size_t i = 0; i < len; i++)
        for (int b = 0; b < WT_BATCH; b++)
            rows[b * stride + (ptrdiff_t)i] = buf[i * WT_BATCH + b];
}

/* The reference of the undecimated passes' sums (dwt_line.h): a sweep over
 * out per group of four taps, then per tap left over. */
static void filter_taps(float *restrict out, const float *const *src, const float *c, int n,
                        size_t len, int accumulate)
{
    int k = 0;
    for (; k + 4 <= n; k += 4, accumulate = 1) {
        const float *restrict s0 = src[k], *restrict s1 = src[k + 1];
        const float *restrict s2 = src[k + 2], *restrict s3 = src[k + 3];
        const float c0 = c[k], c1 = c[k + 1], c2 = c[k + 2], c3 = c[k + 3];
        if (accumulate)
            for (size_t x = 0; x < len; x++)
                out[x] += c0 * s0[x] + c1 * s1[x] + c2 * s2[x] + c3 * s3[x];
        else
            for (size_t x = 0; x < len; x++)
                out[x] = c0 * s0[x] + c1 * s1[x] + c2 * s2[x] + c3 * s3[x];
    }
    for (; k < n; k++, accumulate = 1) {
        const float *restrict s0 = src[k];
        const float c0 = c[k];
        if (accumulate)
            for (size_t x = 0; x < len; x++)
                out[x] += c0 * s0[x];
        else
            for (size_t x = 0; x < len; x++)
                out[x] = c0 * s0[x];
    }
    if (n == 0 && !accumulate)
        memset(out, 0, len * sizeof *out);
}

static const wt_line_kernels reference = {"reference",         wt_line_forward,
                                          wt_line_inverse,     wt_line_forward_i32,
                                          wt_line_inverse_i32, gather_rows,
                                          scatter_rows,        NULL,
                                          NULL,                NULL,
                                          NULL,                filter_taps};

const wt_line_kernels *wt_line_kernels_of(wt_cpu_isa isa)
{
#if WT_HAVE_X86_KERNELS
    __builtin_cpu_init();
    if (isa == WT_ISA_AVX2 && __builtin_cpu_supports("avx2"))
        return &wt_line_kernels_avx2;
    if (isa == WT_ISA_AVX512 && __builtin_cpu_supports("avx512f"))
        return &wt_line_kernels_avx512;
#endif
    return isa == WT_ISA_REFERENCE ? &reference : NULL;
}

const wt_line_kernels *wt_line_kernels_best(void)
{
    if (wt_cpu_reference())
        return &reference;
    for (int isa = WT_ISA_COUNT - 1; isa > WT_ISA_REFERENCE; isa--) {
        const wt_line_kernels *k = wt_line_kernels_of((wt_cpu_isa)isa);
        if (k)
            return k;
    }
    return &reference;
}
