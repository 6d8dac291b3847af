/* The extension of a signal at any position as a combination of up to
 * three of its samples, every mode of dwt_geometry.h: the level kernels'
 * gathers (cu_kernels.cuh) and the volumes' axis passes (cu_volume.cu,
 * cu_volume_lift.cu). */
#ifndef WT_CU_EXTEND_CUH
#define WT_CU_EXTEND_CUH

#include "cu_compat.h"
#include "dwt_geometry.h"

/* The extended signal at position i as a combination of up to three samples. */
struct ext_terms {
    int n;
    int idx[3];
    float w[3];
};

WT_DEV ext_terms one_term(int idx, float w)
{
    ext_terms t;
    t.n = 1;
    t.idx[0] = idx;
    t.w[0] = w;
    t.idx[1] = t.idx[2] = 0;
    t.w[1] = t.w[2] = 0.0f;
    return t;
}

WT_DEV ext_terms three_terms(int i0, float w0, int i1, float w1, int i2, float w2)
{
    ext_terms t;
    t.n = 3;
    t.idx[0] = i0;
    t.idx[1] = i1;
    t.idx[2] = i2;
    t.w[0] = w0;
    t.w[1] = w1;
    t.w[2] = w2;
    return t;
}

/* Antireflect in closed form: blocks of n-1 samples point-mirrored outward;
 * d = x[n-1] - x[0] is the rise carried by each pair of blocks. */
WT_DEV ext_terms antireflect_terms(int n, int i)
{
    int left = i < 0, k = left ? -i : i - (n - 1);
    int q = (k - 1) / (n - 1), m = k - q * (n - 1);
    float fq = (float)q;
    if (left)
        return (q & 1) == 0 ? three_terms(0, 2.0f + fq, m, -1.0f, n - 1, -fq)
                            : three_terms(n - 1 - m, 1.0f, n - 1, -(fq + 1.0f), 0, fq + 1.0f);
    return (q & 1) == 0 ? three_terms(n - 1, 2.0f + fq, n - 1 - m, -1.0f, 0, -fq)
                        : three_terms(m, 1.0f, n - 1, fq + 1.0f, 0, -(fq + 1.0f));
}

WT_DEV ext_terms signal_terms(int mode, int n, int i)
{
    if (i >= 0 && i < n)
        return one_term(i, 1.0f);
    int edge = i < 0 ? 0 : n - 1;
    switch (mode) {
    case WT_MODE_ZERO: {
        ext_terms t = one_term(0, 0.0f);
        t.n = 0;
        return t;
    }
    case WT_MODE_CONSTANT:
        return one_term(edge, 1.0f);
    case WT_MODE_SMOOTH: {
        if (n < 2)
            return one_term(edge, 1.0f);
        float k = (float)(i < 0 ? -i : i - (n - 1));
        ext_terms t = three_terms(edge, 1.0f + k, i < 0 ? 1 : n - 2, -k, 0, 0.0f);
        t.n = 2;
        return t;
    }
    case WT_MODE_ANTIREFLECT:
        return n < 2 ? one_term(edge, 1.0f) : antireflect_terms(n, i);
    case WT_MODE_PERIODIZATION: { /* odd n: padded with its last sample */
        int r = wt_floor_mod(i, n + (n & 1));
        return one_term(r == n ? n - 1 : r, 1.0f);
    }
    default: {
        int sign;
        int r = wt_fold_index(i, n, mode, &sign);
        return one_term(r, (float)sign);
    }
    }
}

/* Sample @p i (any integer) of the extended line of @p n samples @p stride
 * apart. */
WT_DEV float signal_at(const float *line, size_t stride, int n, int mode, int i)
{
    if (i >= 0 && i < n)
        return line[(size_t)i * stride];
    const ext_terms t = signal_terms(mode, n, i);
    float v = 0.0f;
#pragma unroll
    for (int a = 0; a < 3; a++)
        if (a < t.n)
            v += t.w[a] * line[(size_t)t.idx[a] * stride];
    return v;
}

#endif
