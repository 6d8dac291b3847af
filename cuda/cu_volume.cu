/* The CUDA engine's volumes: the DWT of (C, z, y, x) float32 arrays by
 * convolution, every level and axis on the device (one upload, one
 * download), driven by src/transforms/transform_volume.c's level loop
 * (wt_volume_dwt_levels) with this file's axis pass (the engine's entry
 * points and volumes past the device's memory: cu_volume_stream.cu;
 * lifting passes: cu_volume_lift.cu).
 *
 * An axis pass sees the arrays as (outer, n, inner): the lines along the
 * axis, inner = the samples after it (1 for x). One thread computes one
 * output pair (lo[k], hi[k]) of one line, or one sample of the inverse;
 * consecutive threads take consecutive inner indices, so the z and y passes
 * read and write neighbouring x together, and the x pass neighbouring
 * pairs. The arithmetic is src/engine/dwt_line.c's convolution: filter
 * banks out[k] = sum_j f[j] ext(s0 + 2k - j), the JPEG 2000 kinds' centred
 * filters, the inverse from zero-padded (periodization: periodic) or
 * interleaved extended coefficients; extension as the 2-D kernels
 * (cu_extend.cuh). */
#include <stdio.h>
#include <string.h>

#include "cu_engine.h"
#include "cu_engine_impl.h"
#include "cu_extend.cuh"
#include "transform.h"
extern "C" {
#include "dwt_line.h"
}

#define CU_VTAPS 128
#define CU_VTHREADS 256

/* One axis of one level: lengths, extension, filters. */
typedef struct cu_vaxis {
    int n, nlo, nhi;
    int j2k;   /* JPEG 2000 kind: centred odd filters */
    int mode;  /* forward: the signal's extension; inverse: the level's mode */
    int start; /* filter banks: s0 (forward) or off (inverse) */
    int ntaps0, ntaps1;
    float f0[CU_VTAPS], f1[CU_VTAPS];
} cu_vaxis;

/* Sample @p i (any integer) of the extended line of @p n samples @p stride
 * apart. */
WT_DEV float ext_at(const float *line, size_t stride, int n, int mode, int i)
{
    if (i >= 0 && i < n)
        return line[(size_t)i * stride];
    ext_terms t = signal_terms(mode, n, i);
    float v = 0.0f;
#pragma unroll
    for (int a = 0; a < 3; a++)
        if (a < t.n)
            v += t.w[a] * line[(size_t)t.idx[a] * stride];
    return v;
}

/* Element t of a pass's outputs as (o, k, q): line o, position k along the
 * axis (of @p len), inner index q. */
template <typename I> struct vpos {
    I o, q;
    int k;
};

template <typename I> WT_DEV vpos<I> vpos_of(I t, I inner, I len)
{
    vpos<I> p;
    p.q = t % inner;
    I r = t / inner;
    p.o = r / len;
    p.k = (int)(r - p.o * len);
    return p;
}

template <typename I>
WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_VTHREADS)
    vforward_kernel(const WT_GRID_CONST cu_vaxis A, const float *__restrict__ sig,
                    float *__restrict__ lo, float *__restrict__ hi, I outer, I inner)
{
    const I nout = (I)(A.nlo > A.nhi ? A.nlo : A.nhi), total = outer * nout * inner;
    for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (I)gridDim.x * blockDim.x) {
        const vpos<I> p = vpos_of(t, inner, nout);
        const float *line = sig + (size_t)p.o * (size_t)A.n * inner + p.q;
        float a = 0.0f, d = 0.0f;
        if (!A.j2k) {
            const int p0 = A.start + 2 * p.k;
            const bool inside = p0 - (A.ntaps0 - 1) >= 0 && p0 < A.n;
            for (int j = 0; j < A.ntaps0; j++) {
                const float v = inside ? line[(size_t)(p0 - j) * inner]
                                       : ext_at(line, inner, A.n, A.mode, p0 - j);
                a += A.f0[j] * v;
                d += A.f1[j] * v;
            }
        } else {
            const int rl = A.ntaps0 / 2, rh = A.ntaps1 / 2;
            for (int u = -rl; u <= rl; u++)
                a += A.f0[u + rl] * ext_at(line, inner, A.n, A.mode, 2 * p.k + u);
            for (int u = -rh; u <= rh; u++)
                d += A.f1[u + rh] * ext_at(line, inner, A.n, A.mode, 2 * p.k + 1 + u);
        }
        if (p.k < A.nlo)
            lo[((size_t)p.o * A.nlo + p.k) * inner + p.q] = a;
        if (p.k < A.nhi)
            hi[((size_t)p.o * A.nhi + p.k) * inner + p.q] = d;
    }
}

/* Sample @p i of a JPEG 2000 inverse's interleaved coefficients (lo at even,
 * hi at odd positions), extended. */
WT_DEV float interleaved_at(const cu_vaxis &A, const float *lo, const float *hi, size_t stride,
                            int i)
{
    int sign;
    const int f = wt_fold_index(i, A.nlo + A.nhi, wt_interleaved_mode(A.mode), &sign);
    return (f & 1 ? hi : lo)[(size_t)(f >> 1) * stride];
}

template <typename I>
WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_VTHREADS)
    vinverse_kernel(const WT_GRID_CONST cu_vaxis A, const float *__restrict__ lo,
                    const float *__restrict__ hi, float *__restrict__ sig, I outer, I inner)
{
    const I total = outer * (I)A.n * inner;
    for (I t = (I)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (I)gridDim.x * blockDim.x) {
        const vpos<I> p = vpos_of(t, inner, (I)A.n);
        const float *l = lo + (size_t)p.o * A.nlo * inner + p.q;
        const float *h = hi + (size_t)p.o * A.nhi * inner + p.q;
        const int i = p.k;
        float acc = 0.0f;
        if (A.j2k && A.n == 1 && A.mode != WT_MODE_PERIODIZATION) {
            acc = l[0]; /* JPEG 2000: a one-sample signal is its own low-pass band */
        } else if (!A.j2k) {
            const bool per = A.mode == WT_MODE_PERIODIZATION;
            for (int j = (i + A.start) & 1; j < A.ntaps0; j += 2) {
                int c = (i + A.start - j) / 2;
                if (per)
                    c = wt_floor_mod(c, A.nlo);
                else if (c < 0 || c >= A.nlo)
                    continue;
                acc += A.f0[j] * l[(size_t)c * inner] + A.f1[j] * h[(size_t)c * inner];
            }
        } else {
            const int rl = A.ntaps0 / 2, rh = A.ntaps1 / 2;
            for (int u = -rl; u <= rl; u++)
                if (((i - u) & 1) == 0)
                    acc += A.f0[u + rl] * interleaved_at(A, l, h, inner, i - u);
            for (int u = -rh; u <= rh; u++)
                if ((i - u) & 1)
                    acc += A.f1[u + rh] * interleaved_at(A, l, h, inner, i - u);
        }
        sig[((size_t)p.o * A.n + i) * inner + p.q] = acc;
    }
}

/* The axis of @p line in one direction (dwt_line.c's conv_* kernels). */
static cu_vaxis vaxis_of(const wt_line *line, int inverse)
{
    const wt_wavelet *w = line->wavelet;
    cu_vaxis A;
    memset(&A, 0, sizeof A);
    A.n = (int)line->n;
    A.nlo = (int)line->nlo;
    A.nhi = (int)line->nhi;
    A.j2k = w->kind == WT_KIND_JPEG2000;
    A.mode = inverse ? (int)line->mode : wt_signal_mode(w, line->mode);
    const double *f0 = inverse ? w->rec_lo : w->dec_lo, *f1 = inverse ? w->rec_hi : w->dec_hi;
    if (A.j2k) { /* synthesis: rec_lo has the high-pass support length */
        A.ntaps0 = inverse ? w->support_hi : w->support_lo;
        A.ntaps1 = inverse ? w->support_lo : w->support_hi;
    } else {
        A.ntaps0 = A.ntaps1 = w->filter_len;
        A.start = inverse ? wt_inverse_offset(w, line->mode) : wt_forward_start(w, line->mode);
    }
    for (int j = 0; j < A.ntaps0; j++)
        A.f0[j] = (float)f0[j];
    for (int j = 0; j < A.ntaps1; j++)
        A.f1[j] = (float)f1[j];
    return A;
}

/* Blocks of a grid-stride launch over @p total elements. */
static unsigned vblocks(const cu_engine *ce, size_t total)
{
    size_t blocks = (total + CU_VTHREADS - 1) / CU_VTHREADS, cap = (size_t)ce->sms * 64;
    return (unsigned)(blocks < cap ? blocks : cap);
}

template <typename I>
static wt_status vlaunch(cu_engine *ce, const cu_vaxis &A, const wt_vpass *p, I outer, I inner)
{
    const size_t len = p->inverse ? (size_t)A.n : (size_t)(A.nlo > A.nhi ? A.nlo : A.nhi);
    const unsigned blocks = vblocks(ce, (size_t)outer * len * (size_t)inner);
    if (blocks == 0) /* nothing to compute (an empty band's pass) */
        return WT_OK;
    if (p->inverse)
        WT_LAUNCH(vinverse_kernel<I>, dim3(blocks), dim3(CU_VTHREADS), 0, ce->stream, A,
                  (const float *)p->lo, (const float *)p->hi, (float *)p->sig, outer, inner);
    else
        WT_LAUNCH(vforward_kernel<I>, dim3(blocks), dim3(CU_VTHREADS), 0, ce->stream, A,
                  (const float *)p->sig, (float *)p->lo, (float *)p->hi, outer, inner);
    CU_CHECK_CE(ce, cudaGetLastError());
    return WT_OK;
}

/* The pass runner of wt_volume_dwt_levels: one level along one axis
 * (lifting: cu_volume_lift.cu). */
wt_status cu_vpass_run(void *ctx, const wt_vpass *p)
{
    cu_engine *ce = (cu_engine *)ctx;
    if (p->line->method == WT_METHOD_LIFTING)
        return cu_vlift_pass(ce, p);
    size_t outer = (size_t)p->channels, inner = 1;
    for (int k = 0; k < 3; k++)
        if (k < p->axis)
            outer *= p->shape[k];
        else if (k > p->axis)
            inner *= p->shape[k];
    const cu_vaxis A = vaxis_of(p->line, p->inverse);
    const size_t len = (size_t)(A.n > A.nlo + A.nhi ? A.n : A.nlo + A.nhi);
    if (outer * len * inner < ((size_t)1 << 32))
        return vlaunch<uint32_t>(ce, A, p, (uint32_t)outer, (uint32_t)inner);
    return vlaunch<uint64_t>(ce, A, p, (uint64_t)outer, (uint64_t)inner);
}

/* ---- a whole level along the three axes in one kernel ----------------------------
 *
 * The three passes of a level fused: a block reads a window of its input
 * into shared memory once, filters it along z, y and x there, and writes
 * its tile of the 8 outputs (one read and one write of the volume a level,
 * where the passes read and write it three times). Every axis alike:
 *   forward  lo[k] = sum_m g0[m] ext(2k + b0 + m), hi[k] with g1, b1
 *            (filter banks: b = start - (F - 1), g = the filter reversed;
 *            JPEG 2000: the centred filters, b0 = -rl, b1 = 1 - rh);
 *   inverse  sig[i] = sum_{d = dmin}^{dmax} w_q[d - dmin] J(i + s - d),
 *            q = (i + s) & 1, J the interleaved coefficients (lo at even,
 *            hi at odd positions): filter banks zero-padded or periodic,
 *            J(2c) = lo[c], J(2c + 1) = hi[c], w_q[d] = f0[d] (d = q mod 2)
 *            + f1[d + 1] (d != q mod 2), d in [-1, F - 1]; JPEG 2000 the
 *            extended interleaved sequence, s = 0, w_q[d] = f0[d + rl]
 *            (d = q mod 2) + f1[d + rh] (else), d in [-R, R].
 * Extension is linear along each axis, so extending the window along all
 * three axes first and filtering after gives the passes' numbers (within
 * float rounding: the sums run in another order). */

#define CU_FTAPS 34 /* weights an axis of a fused level holds (filters <= 32 taps) */
#define CU_FTHREADS 256
#define CU_FSMEM_BUDGET (112u << 10) /* two blocks a multiprocessor */
/* The largest tiles along z and y (ftiles_*): a thread keeps a column's
 * outputs in registers. */
#define CU_FTZ_FORWARD 4
#define CU_FTY_FORWARD 8
#define CU_FTZ_INVERSE 8
#define CU_FTY_INVERSE 16

typedef struct cu_faxis {
    int n, nlo, nhi, mode, j2k;
    int b0, b1, len0, len1; /* forward */
    int s, dmin, dlen;      /* inverse */
    int tile;               /* outputs a block makes: pairs (forward), samples (inverse) */
    int org, win;           /* the window: from tile start (2 k0 or i0) + org, win long */
    int span;               /* forward: the window of one pair */
    int last;               /* the last window position any output needs */
    float g[2][CU_FTAPS];
} cu_faxis;

typedef struct cu_flevel {
    cu_faxis ax[3];     /* z, y, x */
    int band_of[8];     /* (pz << 2 | py << 1 | px) -> key index */
    unsigned tiles[3];  /* blocks along each axis */
    const float *src;   /* forward: the signal; inverse: unused */
    float *dst;         /* inverse: the signal */
    float *bands[8];    /* key order */
} cu_flevel;

/* The extent along axis @p A of a band low (@p p 0) or high (1) along it. */
WT_DEV int fband_len(const cu_faxis &A, int p)
{
    return p ? A.nhi : A.nlo;
}

/* Forward: the extended signal at window position (z, y, x) of channel @p c
 * (0 past what any output needs). */
WT_DEV float fsignal_at(const cu_flevel &L, size_t c, int z, int y, int x)
{
    const cu_faxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    if (z > Z.last || y > Y.last || x > X.last)
        return 0.0f;
    const float *v = L.src + c * (size_t)Z.n * Y.n * X.n;
    if (z >= 0 && z < Z.n && y >= 0 && y < Y.n && x >= 0 && x < X.n)
        return v[((size_t)z * Y.n + y) * X.n + x];
    const ext_terms tz = signal_terms(Z.mode, Z.n, z), ty = signal_terms(Y.mode, Y.n, y),
                    tx = signal_terms(X.mode, X.n, x);
    float acc = 0.0f; /* unrolled: the terms stay in registers */
#pragma unroll
    for (int a = 0; a < 3; a++)
#pragma unroll
        for (int b = 0; b < 3; b++)
#pragma unroll
            for (int e = 0; e < 3; e++)
                if (a < tz.n && b < ty.n && e < tx.n)
                    acc += tz.w[a] * ty.w[b] * tx.w[e] *
                           v[((size_t)tz.idx[a] * Y.n + ty.idx[b]) * X.n + tx.idx[e]];
    return acc;
}

/* Inverse: interleaved position @p m along axis @p A as (band parity *p,
 * coefficient index); -1 for a zero (past a zero-padded band, or past what
 * any output needs). */
WT_DEV int fcoef_at(const cu_faxis &A, int m, int *p)
{
    if (m > A.last)
        return -1;
    if (A.j2k) {
        int sign;
        const int f = wt_fold_index(m, A.nlo + A.nhi, wt_interleaved_mode(A.mode), &sign);
        *p = f & 1;
        return f >> 1;
    }
    *p = m & 1;
    int c = (m - *p) / 2;
    if (A.mode == WT_MODE_PERIODIZATION)
        return wt_floor_mod(c, fband_len(A, *p));
    return c >= 0 && c < fband_len(A, *p) ? c : -1;
}

WT_DEV float fcoefs_at(const cu_flevel &L, size_t c, int z, int y, int x)
{
    int pz = 0, py = 0, px = 0;
    const int cz = fcoef_at(L.ax[0], z, &pz), cy = fcoef_at(L.ax[1], y, &py),
              cx = fcoef_at(L.ax[2], x, &px);
    if (cz < 0 || cy < 0 || cx < 0)
        return 0.0f;
    const int nz = fband_len(L.ax[0], pz), ny = fband_len(L.ax[1], py),
              nx = fband_len(L.ax[2], px);
    const float *b = L.bands[L.band_of[pz << 2 | py << 1 | px]];
    return b[((c * nz + cz) * (size_t)ny + cy) * nx + cx];
}

/* Every (row r < @p rows, x < @p width) of a window, a warp a row (32
 * neighbouring x together; the row's division once a warp). */
#define FOR_WINDOW_ROWS(r, x, rows, width)                                                         \
    for (int r = (int)(threadIdx.x / fwarp_lanes()); r < (rows);                                   \
         r += (int)(blockDim.x / fwarp_lanes()))                                                   \
        for (int x = (int)(threadIdx.x % fwarp_lanes()); x < (width); x += (int)fwarp_lanes())

/* Threads a window row takes: a warp (the emulation's one-thread blocks: 1). */
WT_DEV unsigned fwarp_lanes(void)
{
    return blockDim.x < 32 ? blockDim.x : 32;
}

/* The block's tile: channel and first output along each axis. */
WT_DEV void ftile_of(const cu_flevel &L, size_t *c, int k0[3])
{
    size_t b = blockIdx.x;
    for (int a = 2; a >= 0; a--) {
        k0[a] = (int)(b % L.tiles[a]) * L.ax[a].tile;
        b /= L.tiles[a];
    }
    *c = b;
}

/* Pairs t0 .. t0 + nt - 1 (nt <= R) of the tile along @p A from the window
 * @p w (values @p stride apart): each window value is read once and added
 * to the pairs it reaches (the taps of one window value are the same for
 * every thread of a warp: the weights' index does not depend on t0). */
template <int R>
WT_DEV void fpairs(const cu_faxis &A, const float *w, int stride, int t0, int nt, float *lo,
                   float *hi)
{
#pragma unroll
    for (int r = 0; r < R; r++)
        lo[r] = hi[r] = 0.0f;
    const int d0 = A.b0 - A.org, d1 = A.b1 - A.org, end = 2 * (nt - 1) + A.span;
    const float *p = w + 2 * t0 * stride;
    for (int q = 0; q < end; q++) {
        const float v = p[q * stride];
#pragma unroll
        for (int r = 0; r < R; r++) {
            const int m0 = q - 2 * r - d0, m1 = q - 2 * r - d1;
            if ((unsigned)m0 < (unsigned)A.len0)
                lo[r] += A.g[0][m0] * v;
            if ((unsigned)m1 < (unsigned)A.len1)
                hi[r] += A.g[1][m1] * v;
        }
    }
}

WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_FTHREADS) vfused_forward(const WT_GRID_CONST cu_flevel L)
{
    WT_DYN_SMEM(float, smem);
    const cu_faxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    size_t c;
    int k0[3];
    ftile_of(L, &c, k0);
    const int WZ = Z.win, WY = Y.win, WX = X.win, TZ = Z.tile, TY = Y.tile, TX = X.tile;
    const int oz = 2 * k0[0] + Z.org, oy = 2 * k0[1] + Y.org, ox = 2 * k0[2] + X.org;
    float *s0 = smem, *s1 = smem + WZ * WY * WX, *s2 = smem; /* s2 over s0 */
    float lo[8], hi[8];
    FOR_WINDOW_ROWS(r, x, WZ * WY, WX)
        s0[r * WX + x] = fsignal_at(L, c, oz + r / WY, oy + r % WY, ox + x);
    WT_SYNC();
    const int plane = WY * WX; /* z, a column (y, x) a thread: s1[pz][t][y][x] */
    for (int e = threadIdx.x; e < plane; e += blockDim.x) {
        fpairs<CU_FTZ_FORWARD>(Z, s0 + e, plane, 0, TZ, lo, hi);
#pragma unroll
        for (int t = 0; t < CU_FTZ_FORWARD; t++) /* registers: constant indices */
            if (t < TZ) {
                s1[t * plane + e] = lo[t];
                s1[(TZ + t) * plane + e] = hi[t];
            }
    }
    WT_SYNC();
    const int quarter = TZ * TY * WX; /* y, a column (pz, t, x) a thread: s2[pz][py][t][u][x] */
    for (int e = threadIdx.x; e < 2 * TZ * WX; e += blockDim.x) {
        const int x = e % WX, zt = e / WX, pz = zt / TZ, t = zt % TZ;
        fpairs<CU_FTY_FORWARD>(Y, s1 + zt * plane + x, WX, 0, TY, lo, hi);
        float *o = s2 + (size_t)(2 * pz) * quarter + t * TY * WX + x;
#pragma unroll
        for (int u = 0; u < CU_FTY_FORWARD; u++)
            if (u < TY) {
                o[u * WX] = lo[u];
                o[quarter + u * WX] = hi[u];
            }
    }
    WT_SYNC();
    const int groups = (TX + 3) / 4; /* x, 4 pairs of a row a thread: the bands */
    for (int e = threadIdx.x; e < 4 * TZ * TY * groups; e += blockDim.x) {
        const int g = e % groups, r = e / groups, u = r % TY, r2 = r / TY, t = r2 % TZ,
                  pp = r2 / TZ;
        const int pz = pp >> 1, py = pp & 1, t0 = 4 * g, nt = TX - t0 < 4 ? TX - t0 : 4;
        const int kz = k0[0] + t, ky = k0[1] + u, nz = fband_len(Z, pz), ny = fband_len(Y, py);
        if (kz >= nz || ky >= ny)
            continue;
        fpairs<4>(X, s2 + ((size_t)pp * TZ * TY + t * TY + u) * WX, 1, t0, nt, lo, hi);
        const size_t line = (c * nz + kz) * (size_t)ny + ky;
        float *blo = L.bands[L.band_of[pp << 1]] + line * X.nlo,
              *bhi = L.bands[L.band_of[pp << 1 | 1]] + line * X.nhi;
#pragma unroll
        for (int v = 0; v < 4; v++) {
            const int kx = k0[2] + t0 + v;
            if (v >= nt)
                break;
            if (kx < X.nlo)
                blo[kx] = lo[v];
            if (kx < X.nhi)
                bhi[kx] = hi[v];
        }
    }
}

/* Inverse samples i .. i + nt - 1 (nt <= R) of the tile from @p i0 along
 * @p A from the window @p w (values @p stride apart), each window value
 * read once; the terms of a sample in the order of the passes' sum. */
template <int R>
WT_DEV void fsamples(const cu_faxis &A, const float *w, int stride, int i0, int i, int nt,
                     float *out)
{
#pragma unroll
    for (int r = 0; r < R; r++)
        out[r] = 0.0f;
    const float *p = w + (i - i0) * stride;
    for (int q = nt - 1 + A.dlen - 1; q >= 0; q--) {
        const float v = p[q * stride];
#pragma unroll
        for (int r = 0; r < R; r++) {
            const int k = r + A.dlen - 1 - q;
            if ((unsigned)k < (unsigned)A.dlen)
                out[r] += A.g[(i + r + A.s) & 1][k] * v;
        }
    }
}

WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_FTHREADS) vfused_inverse(const WT_GRID_CONST cu_flevel L)
{
    WT_DYN_SMEM(float, smem);
    const cu_faxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    size_t c;
    int i0[3];
    ftile_of(L, &c, i0);
    const int WZ = Z.win, WY = Y.win, WX = X.win, TZ = Z.tile, TY = Y.tile, TX = X.tile;
    const int oz = i0[0] + Z.org, oy = i0[1] + Y.org, ox = i0[2] + X.org;
    float *s0 = smem, *s1 = smem + WZ * WY * WX, *s2 = smem; /* s2 over s0 */
    float out[16];
    FOR_WINDOW_ROWS(r, x, WZ * WY, WX)
        s0[r * WX + x] = fcoefs_at(L, c, oz + r / WY, oy + r % WY, ox + x);
    WT_SYNC();
    const int groups = (TX + 7) / 8; /* x, 8 samples of a row a thread: s1[z][y][v] */
    for (int e = threadIdx.x; e < WZ * WY * groups; e += blockDim.x) {
        const int g = e % groups, zy = e / groups, v0 = 8 * g, nt = TX - v0 < 8 ? TX - v0 : 8;
        fsamples<8>(X, s0 + zy * WX, 1, i0[2], i0[2] + v0, nt, out);
#pragma unroll
        for (int v = 0; v < 8; v++)
            if (v < nt)
                s1[zy * TX + v0 + v] = out[v];
    }
    WT_SYNC();
    for (int e = threadIdx.x; e < WZ * TX; e += blockDim.x) { /* y, a column (z, v): s2[z][u][v] */
        const int v = e % TX, z = e / TX;
        fsamples<CU_FTY_INVERSE>(Y, s1 + z * WY * TX + v, TX, i0[1], i0[1], TY, out);
#pragma unroll
        for (int u = 0; u < CU_FTY_INVERSE; u++)
            if (u < TY)
                s2[(z * TY + u) * TX + v] = out[u];
    }
    WT_SYNC();
    for (int e = threadIdx.x; e < TY * TX; e += blockDim.x) { /* z, a column (u, v): the signal */
        const int v = e % TX, u = e / TX, iy = i0[1] + u, ix = i0[2] + v;
        if (iy >= Y.n || ix >= X.n)
            continue;
        fsamples<CU_FTZ_INVERSE>(Z, s2 + u * TX + v, TY * TX, i0[0], i0[0], TZ, out);
        float *o = L.dst + ((c * Z.n + i0[0]) * (size_t)Y.n + iy) * X.n + ix;
#pragma unroll
        for (int t = 0; t < CU_FTZ_INVERSE; t++)
            if (t < TZ && i0[0] + t < Z.n)
                o[(size_t)t * Y.n * X.n] = out[t];
    }
}

/* Forward geometry of one axis (vaxis_of's filters, as windows); 0 when
 * its filters are longer than a fused level holds. */
static int faxis_forward(const cu_vaxis &V, cu_faxis *F)
{
    if (V.ntaps0 > CU_FTAPS || V.ntaps1 > CU_FTAPS)
        return 0;
    if (V.j2k) {
        F->b0 = -(V.ntaps0 / 2), F->b1 = 1 - V.ntaps1 / 2;
        for (int m = 0; m < V.ntaps0; m++)
            F->g[0][m] = V.f0[m];
        for (int m = 0; m < V.ntaps1; m++)
            F->g[1][m] = V.f1[m];
    } else { /* out[k] = sum_j f[j] ext(start + 2k - j): m = F - 1 - j */
        F->b0 = F->b1 = V.start - (V.ntaps0 - 1);
        for (int m = 0; m < V.ntaps0; m++) {
            F->g[0][m] = V.f0[V.ntaps0 - 1 - m];
            F->g[1][m] = V.f1[V.ntaps0 - 1 - m];
        }
    }
    F->len0 = V.ntaps0, F->len1 = V.ntaps1;
    F->org = F->b0 < F->b1 ? F->b0 : F->b1;
    const int end = F->b0 + F->len0 > F->b1 + F->len1 ? F->b0 + F->len0 : F->b1 + F->len1;
    const int nout = V.nlo > V.nhi ? V.nlo : V.nhi;
    F->last = 2 * (nout - 1) + end - 1;
    F->span = end - F->org;
    F->win = 2 * (F->tile - 1) + F->span;
    return 1;
}

/* Inverse geometry of one axis: the weights w_q of the header's comment. */
static int faxis_inverse(const cu_vaxis &V, cu_faxis *F)
{
    const int R = V.ntaps0 > V.ntaps1 ? V.ntaps0 / 2 : V.ntaps1 / 2;
    F->dmin = V.j2k ? -R : -1;
    F->dlen = V.j2k ? 2 * R + 1 : V.ntaps0 + 1;
    if (F->dlen > CU_FTAPS)
        return 0;
    F->s = V.j2k ? 0 : V.start;
    for (int q = 0; q < 2; q++)
        for (int k = 0; k < F->dlen; k++) {
            const int d = F->dmin + k, same = ((d - q) & 1) == 0;
            float w = 0.0f;
            if (V.j2k) {
                const int rl = V.ntaps0 / 2, rh = V.ntaps1 / 2;
                if (same && d >= -rl && d <= rl)
                    w = V.f0[d + rl];
                else if (!same && d >= -rh && d <= rh)
                    w = V.f1[d + rh];
            } else if (same && d >= 0) {
                w = V.f0[d];
            } else if (!same && d + 1 < V.ntaps0) {
                w = V.f1[d + 1];
            }
            F->g[q][k] = w;
        }
    const int dmax = F->dmin + F->dlen - 1;
    F->org = F->s - dmax;
    F->last = V.n - 1 + F->s - F->dmin;
    F->win = F->tile + F->dlen - 1;
    return 1;
}

/* Tiles tried, largest first: output pairs (forward) or samples (inverse)
 * along z, y, x. */
static const int ftiles_forward[][3] = {{4, 8, 32}, {2, 8, 32}, {2, 4, 32}, {1, 4, 32},
                                        {1, 2, 16}, {1, 1, 16}};
static const int ftiles_inverse[][3] = {{8, 16, 32}, {4, 16, 32}, {4, 8, 32}, {2, 8, 32},
                                        {2, 4, 16}, {2, 2, 16}};

static size_t fsmem_bytes(const cu_flevel *L, int inverse)
{
    const cu_faxis *A = L->ax;
    const size_t window = (size_t)A[0].win * A[1].win * A[2].win;
    const size_t second = inverse ? (size_t)A[0].win * A[1].win * A[2].tile
                                  : (size_t)2 * A[0].tile * A[1].win * A[2].win;
    return (window + second) * sizeof(float);
}

/* The fused level of @p l planned into @p L with a tile that fits @p budget
 * bytes of shared memory; 0 when it does not apply (the passes run it). */
static int fplan(const wt_vlevel *l, size_t budget, cu_flevel *L, size_t *smem)
{
    memset(L, 0, sizeof *L);
    const int (*tiles)[3] = l->inverse ? ftiles_inverse : ftiles_forward;
    const int ntiles = 6;
    cu_vaxis V[3];
    for (int a = 0; a < 3; a++) {
        if (l->lines[a].n < 4 || l->lines[a].method != WT_METHOD_CONV)
            return 0;
        V[a] = vaxis_of(&l->lines[a], l->inverse);
    }
    for (int t = 0; t < ntiles; t++) {
        for (int a = 0; a < 3; a++) {
            cu_faxis *F = &L->ax[a];
            const int len = l->inverse ? V[a].n : (V[a].nlo > V[a].nhi ? V[a].nlo : V[a].nhi);
            F->n = V[a].n, F->nlo = V[a].nlo, F->nhi = V[a].nhi;
            F->mode = V[a].mode, F->j2k = V[a].j2k;
            F->tile = tiles[t][a] < len ? tiles[t][a] : len;
            if (!(l->inverse ? faxis_inverse(V[a], F) : faxis_forward(V[a], F)))
                return 0;
            L->tiles[a] = (unsigned)((len + F->tile - 1) / F->tile);
        }
        *smem = fsmem_bytes(L, l->inverse);
        if (*smem <= budget)
            break;
        if (t == ntiles - 1)
            return 0;
    }
    /* band (pz, py, px): key bit 2 - j for axes[j] */
    for (int i = 0; i < 8; i++) {
        int key = 0;
        for (int j = 0; j < 3; j++)
            key |= (i >> (2 - l->axes[j]) & 1) << (2 - j);
        L->band_of[i] = key;
    }
    for (int i = 0; i < 8; i++)
        L->bands[i] = (float *)l->bands[i];
    L->src = (const float *)l->sig;
    L->dst = (float *)l->sig;
    return 1;
}

/* The fused level of @p l on @p ce: planned into @p L (@p smem bytes of
 * shared memory a block); 0 when the passes run it. */
static int vlevel_plan(const cu_engine *ce, const wt_vlevel *l, cu_flevel *L, size_t *smem)
{
    /* measured slower than the passes on an H200 (512³ L3: haar 15% / 7% of
     * copy against 16% / 11%, db3 5% / 3% against 9% / 7%): only on request */
    const char *fused = wt_env()->cuda_volume_fused;
    if (!fused || !*fused || *fused == '0')
        return 0;
    const size_t budget = ce->smem_limit < CU_FSMEM_BUDGET ? ce->smem_limit : CU_FSMEM_BUDGET;
    if (!fplan(l, budget, L, smem))
        return 0;
    const size_t blocks = (size_t)L->tiles[0] * L->tiles[1] * L->tiles[2] * (size_t)l->channels;
    return blocks > 0 && blocks <= 0x7fffffffu;
}

/* The level ops of wt_volume_dwt_levels: fused where it fits. */
static int vlevel_takes(void *ctx, const wt_vlevel *l)
{
    cu_flevel L;
    size_t smem;
    return vlevel_plan((const cu_engine *)ctx, l, &L, &smem);
}

static wt_status vlevel_run(void *ctx, const wt_vlevel *l)
{
    cu_engine *ce = (cu_engine *)ctx;
    cu_flevel L;
    size_t smem = 0;
    if (!vlevel_plan(ce, l, &L, &smem))
        return wt_error_set(WT_ERR_INVALID, "a volume level the fused kernels do not take");
    const size_t blocks = (size_t)L.tiles[0] * L.tiles[1] * L.tiles[2] * (size_t)l->channels;
    if (l->inverse) {
        CU_CHECK_CE(ce, cudaFuncSetAttribute(vfused_inverse,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)smem));
        WT_LAUNCH(vfused_inverse, dim3((unsigned)blocks), dim3(CU_FTHREADS), smem, ce->stream,
                  L);
    } else {
        CU_CHECK_CE(ce, cudaFuncSetAttribute(vfused_forward,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)smem));
        WT_LAUNCH(vfused_forward, dim3((unsigned)blocks), dim3(CU_FTHREADS), smem, ce->stream,
                  L);
    }
    CU_CHECK_CE(ce, cudaGetLastError());
    return WT_OK;
}

/* The engine's runner of wt_volume_dwt_levels: fused levels, else passes. */
static wt_vpass_runner vrunner(cu_engine *ce)
{
    const wt_vpass_runner r = {cu_vpass_run, ce, vlevel_takes, vlevel_run};
    return r;
}

static size_t volume_elems(const size_t shape[3], int channels)
{
    return shape[0] * shape[1] * shape[2] * (size_t)channels;
}

/* A transform's device memory: the samples, every band (@p dev: @p c with
 * its bands' data there) and the work areas, one allocation. */
typedef struct vdevice {
    float *mem, *work;
    size_t bytes;
    wt_vcoeffs dev;
} vdevice;

size_t cu_vresident_bytes(cu_engine *ce, const wt_volume_spec *s, const wt_vcoeffs *c)
{
    const wt_vpass_runner r = vrunner(ce);
    const size_t n = volume_elems(c->shape, c->channels);
    return (n + wt_vcoeffs_elems(c) + wt_volume_dwt_work(s, c, &r)) * sizeof(float);
}

static wt_status vdevice_alloc(cu_engine *ce, const wt_volume_spec *s, const wt_vcoeffs *c,
                               vdevice *d)
{
    const size_t n = volume_elems(c->shape, c->channels);
    d->bytes = cu_vresident_bytes(ce, s, c);
    const wt_status st = cu_device_alloc(ce, (void **)&d->mem, d->bytes);
    if (st != WT_OK) { /* say which volume (--device auto moves it to the CPU engine) */
        char why[256];
        snprintf(why, sizeof why, "%s", wt_error_message());
        return wt_error_set(st, "a volume of %zux%zux%zu, %d channel%s, does not fit the GPU: %s",
                            c->shape[2], c->shape[1], c->shape[0], c->channels,
                            c->channels == 1 ? "" : "s", why);
    }
    d->dev = *c;
    float *at = d->mem + n;
    for (int i = 0; i < c->nbands; i++) {
        d->dev.band[i].data = at;
        at += volume_elems(c->band[i].shape, c->channels);
    }
    d->work = at;
    return WT_OK;
}

/* The bands between host @p c and the device (@p kind's direction). */
static wt_status vbands_copy(cu_engine *ce, const vdevice *d, const wt_vcoeffs *c,
                             cudaMemcpyKind kind)
{
    for (int i = 0; i < c->nbands; i++) {
        const size_t bytes = volume_elems(c->band[i].shape, c->channels) * sizeof(float);
        void *dst = kind == cudaMemcpyHostToDevice ? d->dev.band[i].data : c->band[i].data;
        const void *src = kind == cudaMemcpyHostToDevice ? c->band[i].data : d->dev.band[i].data;
        CU_CHECK_CE(ce, cudaMemcpyAsync(dst, src, bytes, kind, ce->stream));
    }
    return WT_OK;
}

/* Every level on the device, queued on ce->stream: @p d's samples into its
 * bands, or (@p inverse) back. */
static wt_status vlevels_device(cu_engine *ce, const wt_volume_spec *s, const vdevice *d,
                                int inverse)
{
    const wt_vpass_runner r = vrunner(ce);
    return wt_volume_dwt_levels(s, &d->dev, d->mem, d->work, inverse, &r);
}

wt_status cu_vresident(cu_engine *ce, const wt_volume_spec *s, const wt_vcoeffs *c,
                       void *samples, int inverse)
{
    vdevice d;
    WT_TRY(vdevice_alloc(ce, s, c, &d));
    const size_t sample_bytes = volume_elems(c->shape, c->channels) * sizeof(float);
    wt_status st = inverse ? vbands_copy(ce, &d, c, cudaMemcpyHostToDevice)
                           : cu_fail_check(cudaMemcpyAsync(d.mem, samples, sample_bytes,
                                                           cudaMemcpyHostToDevice, ce->stream),
                                           "cudaMemcpyAsync");
    if (st == WT_OK)
        st = vlevels_device(ce, s, &d, inverse);
    if (st == WT_OK)
        st = inverse ? cu_fail_check(cudaMemcpyAsync(samples, d.mem, sample_bytes,
                                                     cudaMemcpyDeviceToHost, ce->stream),
                                     "cudaMemcpyAsync")
                     : vbands_copy(ce, &d, c, cudaMemcpyDeviceToHost);
    if (st == WT_OK)
        st = cu_fail_check(cudaStreamSynchronize(ce->stream), "cudaStreamSynchronize");
    cu_device_free(ce, d.mem, d.bytes);
    return st;
}

/* ---- bench --volume: device-resident timing -------------------------------------- */

/* One timed run of cu_vbench: 0 forward, 1 inverse, 2 the device copy. */
typedef struct vbench_job {
    cu_engine *ce;
    const wt_volume_spec *s;
    const vdevice *d;
    int what;
    void *copy_dst;
    size_t copy_bytes;
} vbench_job;

static wt_status vbench_run(const void *job)
{
    const vbench_job *j = (const vbench_job *)job;
    if (j->what == 2)
        return cu_fail_check(cudaMemcpyAsync(j->copy_dst, j->d->mem, j->copy_bytes,
                                             cudaMemcpyDeviceToDevice, j->ce->stream),
                             "cudaMemcpyAsync");
    return vlevels_device(j->ce, j->s, j->d, j->what);
}

wt_status cu_vbench(cu_engine *ce, const wt_volume_spec *s, const size_t shape[3], int inverse,
                    int repeat, size_t copy_bytes, wt_cuda_timing *timing)
{
    wt_vcoeffs c;
    WT_TRY(wt_volume_plan(s, shape, 1, &c));
    if (s->transform != WT_TRANSFORM_DWT || !wt_volume_engine_takes(s, c.levels))
        return wt_error_set(WT_ERR_UNSUPPORTED, "device-resident timing of a volume's DWT "
                                                "with at least one level only");
    CU_CHECK(cudaSetDevice(ce->device));
    vdevice d;
    WT_TRY(vdevice_alloc(ce, s, &c, &d));
    memset(timing, 0, sizeof *timing);
    /* the copy reads the samples and what follows them (bands, work areas) */
    copy_bytes = copy_bytes < d.bytes ? copy_bytes : d.bytes;
    vbench_job job = {ce, s, &d, inverse, NULL, copy_bytes};
    wt_status st = fill_random(ce, d.mem, volume_elems(shape, 1), 12345u);
    if (st == WT_OK) /* real bands for the inverse */
        st = vlevels_device(ce, s, &d, 0);
    if (st == WT_OK)
        st = cu_time_runs(ce, vbench_run, &job, repeat, &timing->ms, &timing->ms_min);
    if (st == WT_OK)
        st = cu_device_alloc(ce, &job.copy_dst, copy_bytes);
    job.what = 2;
    double fastest;
    if (st == WT_OK)
        st = cu_time_runs(ce, vbench_run, &job, repeat, &timing->copy_ms, &fastest);
    timing->copy_bytes = copy_bytes;
    if (st == WT_OK)
        st = cu_fail_check(cudaStreamSynchronize(ce->stream), "cudaStreamSynchronize");
    cu_device_free(ce, job.copy_dst, copy_bytes);
    cu_device_free(ce, d.mem, d.bytes);
    return st;
}
