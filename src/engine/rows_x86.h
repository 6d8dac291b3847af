/* The rows' gather and scatter of the x86 kernels (dwt_line.h): WT_BATCH
 * rows to a sample-major batch and back, as 8x8 blocks transposed in AVX
 * registers; the samples past the last whole block one by one. Included by
 * dwt_line_avx2.c and dwt_line_avx512.c (compiled with -mavx2 and up). */
#ifndef WT_ROWS_X86_H
#define WT_ROWS_X86_H

#include <immintrin.h>

#include "dwt_line.h"

/* r[j] = row j of an 8x8 block -> r[k] = column k. */
static inline void transpose8x8(__m256 r[8])
{
    __m256 t[8], s[8];
    for (int j = 0; j < 8; j += 2) {
        t[j] = _mm256_unpacklo_ps(r[j], r[j + 1]);
        t[j + 1] = _mm256_unpackhi_ps(r[j], r[j + 1]);
    }
    for (int j = 0; j < 8; j += 4) {
        s[j] = _mm256_shuffle_ps(t[j], t[j + 2], _MM_SHUFFLE(1, 0, 1, 0));
        s[j + 1] = _mm256_shuffle_ps(t[j], t[j + 2], _MM_SHUFFLE(3, 2, 3, 2));
        s[j + 2] = _mm256_shuffle_ps(t[j + 1], t[j + 3], _MM_SHUFFLE(1, 0, 1, 0));
        s[j + 3] = _mm256_shuffle_ps(t[j + 1], t[j + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int j = 0; j < 4; j++) {
        r[j] = _mm256_permute2f128_ps(s[j], s[j + 4], 0x20);
        r[j + 4] = _mm256_permute2f128_ps(s[j], s[j + 4], 0x31);
    }
}

static void gather_rows_x86(const uint32_t *rows, ptrdiff_t stride, size_t len, uint32_t *buf)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8)
        for (int h = 0; h < WT_BATCH; h += 8) {
            __m256 r[8];
            for (int j = 0; j < 8; j++)
                r[j] = _mm256_loadu_ps((const float *)(rows + (h + j) * stride + i));
            transpose8x8(r);
            for (int k = 0; k < 8; k++)
                _mm256_storeu_ps((float *)(buf + (i + k) * WT_BATCH + h), r[k]);
        }
    for (; i < len; i++)
        for (int b = 0; b < WT_BATCH; b++)
            buf[i * WT_BATCH + b] = rows[b * stride + (ptrdiff_t)i];
}

static void scatter_rows_x86(const uint32_t *buf, size_t len, uint32_t *rows, ptrdiff_t stride)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8)
        for (int h = 0; h < WT_BATCH; h += 8) {
            __m256 r[8];
            for (int k = 0; k < 8; k++)
                r[k] = _mm256_loadu_ps((const float *)(buf + (i + k) * WT_BATCH + h));
            transpose8x8(r);
            for (int j = 0; j < 8; j++)
                _mm256_storeu_ps((float *)(rows + (h + j) * stride + i), r[j]);
        }
    for (; i < len; i++)
        for (int b = 0; b < WT_BATCH; b++)
            rows[b * stride + (ptrdiff_t)i] = buf[i * WT_BATCH + b];
}

#endif
