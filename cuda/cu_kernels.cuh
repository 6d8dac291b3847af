/* The level kernels: one block transforms one tile of one plane through
 * shared memory, both axes fused (a level reads its input once and writes
 * each band once). Generic over wavelet, mode and method through the
 * cu_level parameters (cu_plan.h).
 *
 * Forward: gather the extended 2D window, y-axis (lifting steps in place,
 * then two-phase filter into mid), x-axis on mid, store four bands.
 * Inverse: gather the 2D window of coefficient pairs from the four bands,
 * x-axis first (into mid), then y-axis, store the plane; the CPU engine's
 * axis order. */
#ifndef WT_CU_KERNELS_CUH
#define WT_CU_KERNELS_CUH

#include <stdint.h>

#include <type_traits>

#include "cu_compat.h"
#include "cu_extend.cuh"
#include "cu_plan.h"
#include "dwt_geometry.h"

#include "cu_tuning.h"

/* Coefficient at window position pos of an inverse axis: band phase,
 * index (-1: zero) and scale. */
struct coef_term {
    int phase, idx;
    float scale;
};

WT_DEV coef_term coef_at(const cu_axis &a, int pos)
{
    coef_term c;
    int m = pos >> 1; /* arithmetic shift: floor */
    c.phase = pos & 1;
    c.scale = c.phase ? a.sd : a.sa;
    int count = c.phase ? a.n1 : a.n;
    switch (a.ext) {
    case CU_COEF_ZERO:
        c.idx = m + (c.phase ? a.dd : a.da);
        if (c.idx < 0 || c.idx >= count)
            c.idx = -1;
        break;
    case CU_COEF_PERIODIC:
        c.idx = wt_floor_mod(m + (c.phase ? a.dd : a.da), count);
        break;
    default: { /* JPEG 2000: the interleaved sequence y, extended */
        int sign, len = a.n + a.n1;
        int f = wt_fold_index(pos, len,
                              wt_interleaved_mode(a.ext == CU_COEF_J2K_PERIODIC
                                                      ? WT_MODE_PERIODIZATION
                                                      : WT_MODE_SYMMETRIC),
                              &sign);
        c.phase = f & 1;
        c.scale = c.phase ? a.sd : a.sa;
        c.idx = f >> 1;
        break;
    }
    }
    return c;
}

/* ---------------------------------------------------------------------- */
/* Block-wide loops */

/* fn(fast, slow) over [0, nfast) x [0, nslow); threadIdx.x runs along fast. */
template <typename Fn> WT_DEV void for_2d(int nfast, int nslow, Fn fn)
{
    for (int s = (int)threadIdx.y; s < nslow; s += (int)blockDim.y)
        for (int f = (int)threadIdx.x; f < nfast; f += (int)blockDim.x)
            fn(f, s);
}

template <typename T> WT_DEV T convert_to(float v)
{
    return (T)v; /* integers: truncation, as the CPU engine's (int32_t) cast */
}

/* ---------------------------------------------------------------------- */
/* Gathers */

template <typename T, typename TIn>
WT_DEV void gather_forward(const cu_level &L, T *win, int wx_pitch, int py0, int px0,
                           const TIn *src)
{
    const cu_axis &ay = L.ax[0], &ax = L.ax[1];
    const int wy = L.wy, wx = L.wx, h = ay.n, w = ax.n, stride = L.src_w[0];
    if (py0 >= 0 && px0 >= 0 && py0 + wy <= h && px0 + wx <= w) {
        for_2d(wx, wy, [&](int ix, int iy) {
            win[iy * wx_pitch + ix] = (T)src[(size_t)(py0 + iy) * stride + (px0 + ix)];
        });
        return;
    }
    for_2d(wx, wy, [&](int ix, int iy) {
        ext_terms ty = signal_terms(ay.ext, h, py0 + iy);
        ext_terms tx = signal_terms(ax.ext, w, px0 + ix);
        if constexpr (std::is_integral<T>::value) { /* legall53: folding modes only */
            win[iy * wx_pitch + ix] = (T)src[(size_t)ty.idx[0] * stride + tx.idx[0]];
            return;
        }
        float v = 0.0f;
#pragma unroll
        for (int a = 0; a < 3; a++) { /* unrolled: the terms stay in registers */
            if (a >= ty.n)
                break;
            const TIn *row = src + (size_t)ty.idx[a] * stride;
            float r = 0.0f;
#pragma unroll
            for (int b = 0; b < 3; b++) {
                if (b >= tx.n)
                    break;
                r += tx.w[b] * (float)row[tx.idx[b]];
            }
            v += ty.w[a] * r;
        }
        win[iy * wx_pitch + ix] = (T)v;
    });
}

template <typename T>
WT_DEV void gather_inverse(const cu_level &L, T *win, int wx_pitch, int py0, int px0, int c)
{
    const cu_axis &ay = L.ax[0], &ax = L.ax[1];
    const int wx = L.wx;
    for_2d(wx, L.wy, [&](int ix, int iy) {
        coef_term cy = coef_at(ay, py0 + iy), cx = coef_at(ax, px0 + ix);
        T v = (T)0;
        if (cy.idx >= 0 && cx.idx >= 0) {
            int b = 2 * cy.phase + cx.phase;
            const T *band = (const T *)L.src[b] + (size_t)c * L.src_plane[b];
            v = band[(size_t)cy.idx * L.src_w[b] + cx.idx];
            if constexpr (!std::is_integral<T>::value)
                v = (T)((cy.scale * cx.scale) * (float)v);
        }
        win[iy * wx_pitch + ix] = v;
    });
}

/* ---------------------------------------------------------------------- */
/* One axis inside the tile */

/* Lifting steps over Q pairs of nlines lines; sample k of line l at
 * buf[l * ls + k * ss]. Ends with a barrier after each step. */
template <typename T>
WT_DEV void lift_steps(const cu_axis &a, T *buf, int Q, int ss, int nlines, int ls,
                       bool line_fast)
{
    for (int s = 0; s < a.nsteps; s++) {
        const cu_step &st = a.steps[s];
        const int dpar = st.update ? 0 : 1, spar = 1 - dpar;
        const int lo = st.offset < 0 ? -st.offset : 0;
        const int hi = Q - (st.offset + st.ntaps - 1 > 0 ? st.offset + st.ntaps - 1 : 0);
        const int count = hi - lo;
        auto step = [&](int line, int q) {
            T *base = buf + line * ls;
            const T *src = base + (2 * (q + st.offset) + spar) * ss;
            T *dst = base + (2 * q + dpar) * ss;
            if constexpr (std::is_integral<T>::value) { /* legall53: 2 taps */
                *dst = wt_lift53_step(*dst, src[0], src[2 * ss], st.ibias, st.ishift, st.isign);
            } else {
                float acc = 0.0f;
                for (int i = 0; i < st.ntaps; i++)
                    acc = fmaf(st.taps[i], (float)src[2 * i * ss], acc);
                *dst = (T)((float)*dst + acc);
            }
        };
        if (line_fast)
            for_2d(nlines, count, [&](int line, int k) { step(line, lo + k); });
        else
            for_2d(count, nlines, [&](int k, int line) { step(line, lo + k); });
        WT_SYNC();
    }
}

/* sum_i f[i] * p[i * stride] in the accumulation type Acc. */
template <typename T, typename Acc>
WT_DEV T conv_at(const T *p, int stride, const float *f, const double *g, int len)
{
    if constexpr (std::is_integral<T>::value) {
        return p[0]; /* integer wavelets: lifting only, unit scales */
    } else if constexpr (sizeof(Acc) == 8) {
        double acc = 0.0;
        for (int i = 0; i < len; i++)
            acc = fma(g[i], (double)p[i * stride], acc);
        return (T)acc;
    } else {
        float acc = 0.0f;
        for (int i = 0; i < len; i++)
            acc = fmaf(f[i], (float)p[i * stride], acc);
        return (T)acc;
    }
}

template <typename T, typename Acc>
WT_DEV T phase0(const cu_axis &a, const T *p, int stride)
{
    return conv_at<T, Acc>(p + a.off0 * stride, stride, a.f0, a.g0, a.len0);
}

template <typename T, typename Acc>
WT_DEV T phase1(const cu_axis &a, const T *p, int stride)
{
    return conv_at<T, Acc>(p + a.off1 * stride, stride, a.f1, a.g1, a.len1);
}

/* ---------------------------------------------------------------------- */
/* Kernels */

template <typename T, typename TIn, typename Acc>
WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_BLOCK_X * CU_BLOCK_Y)
    dwt_forward_kernel(const WT_GRID_CONST cu_level L)
{
    WT_DYN_SMEM(unsigned char, smem);
    const cu_axis &ay = L.ax[0], &ax = L.ax[1];
    const int ty = L.ty, tx = L.tx, wy = L.wy, wx = L.wx;
    T *win = (T *)smem, *mid = win + wy * wx; /* mid: 2 ty rows (lo, then hi) x wx */
    const int c = (int)blockIdx.z, uy0 = (int)blockIdx.y * ty, ux0 = (int)blockIdx.x * tx;
    const TIn *src = (const TIn *)L.src[0] + (size_t)c * L.src_plane[0];

    gather_forward<T, TIn>(L, win, wx, 2 * uy0 + ay.win_a, 2 * ux0 + ax.win_a, src);
    WT_SYNC();
    lift_steps<T>(ay, win, wy / 2, wx, wx, 1, true);
    for_2d(wx, ty, [&](int ix, int u) {
        const T *col = win + 2 * u * wx + ix;
        mid[u * wx + ix] = phase0<T, Acc>(ay, col, wx);
        mid[(ty + u) * wx + ix] = phase1<T, Acc>(ay, col, wx);
    });
    WT_SYNC();
    lift_steps<T>(ax, mid, wx / 2, 1, 2 * ty, wx, false);
    for_2d(tx, 2 * ty, [&](int u, int r) {
        const int py = r >= ty, uy = uy0 + r - (py ? ty : 0), ux = ux0 + u;
        if (uy >= (py ? ay.count1 : ay.count0))
            return;
        const T *row = mid + r * wx + 2 * u;
        if (ux < ax.count0) {
            const int b = 2 * py;
            ((T *)L.dst[b])[c * L.dst_plane[b] + (size_t)uy * L.dst_w[b] + ux] =
                phase0<T, Acc>(ax, row, 1);
        }
        if (ux < ax.count1) {
            const int b = 2 * py + 1;
            ((T *)L.dst[b])[c * L.dst_plane[b] + (size_t)uy * L.dst_w[b] + ux] =
                phase1<T, Acc>(ax, row, 1);
        }
    });
}

template <typename T, typename TOut, typename Acc>
WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_BLOCK_X * CU_BLOCK_Y)
    dwt_inverse_kernel(const WT_GRID_CONST cu_level L)
{
    WT_DYN_SMEM(unsigned char, smem);
    const cu_axis &ay = L.ax[0], &ax = L.ax[1];
    const int ty = L.ty, tx = L.tx, wy = L.wy, wx = L.wx, mw = 2 * tx;
    T *win = (T *)smem, *mid = win + wy * wx; /* mid: wy rows x 2 tx samples */
    const int c = (int)blockIdx.z, uy0 = (int)blockIdx.y * ty, ux0 = (int)blockIdx.x * tx;

    gather_inverse<T>(L, win, wx, 2 * uy0 + ay.win_a, 2 * ux0 + ax.win_a, c);
    WT_SYNC();
    lift_steps<T>(ax, win, wx / 2, 1, wy, wx, false);
    for_2d(tx, wy, [&](int u, int iy) {
        const T *row = win + iy * wx + 2 * u;
        mid[iy * mw + 2 * u] = phase0<T, Acc>(ax, row, 1);
        mid[iy * mw + 2 * u + 1] = phase1<T, Acc>(ax, row, 1);
    });
    WT_SYNC();
    lift_steps<T>(ay, mid, wy / 2, mw, mw, 1, true);
    const int ny = ay.count0 + ay.count1, nx = ax.count0 + ax.count1;
    TOut *out = (TOut *)L.dst[0] + (size_t)c * L.dst_plane[0];
    for_2d(mw, ty, [&](int v, int u) {
        const int oy = 2 * (uy0 + u), ox = 2 * ux0 + v;
        if (ox >= nx || oy >= ny)
            return;
        const T *col = mid + 2 * u * mw + v;
        out[(size_t)oy * L.dst_w[0] + ox] = (TOut)phase0<T, Acc>(ay, col, mw);
        if (oy + 1 < ny)
            out[(size_t)(oy + 1) * L.dst_w[0] + ox] = (TOut)phase1<T, Acc>(ay, col, mw);
    });
}

/* Element-wise conversion (levels = 0, integer input/output planes). */
template <typename TOut, typename TIn>
WT_GLOBAL void convert_kernel(TOut *dst, const TIn *src, size_t n)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dst[i] = (TOut)src[i];
}

/* Deterministic pseudo-random samples in [-128, 128) (benchmark inputs). */
WT_GLOBAL void fill_random_kernel(float *dst, size_t n, uint32_t seed)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        uint32_t x = (uint32_t)i * 2654435761u ^ seed;
        x ^= x >> 15;
        x *= 2246822519u;
        x ^= x >> 13;
        dst[i] = (float)(x & 0xFFFF) * (1.0f / 256.0f) - 128.0f;
    }
}

#endif
