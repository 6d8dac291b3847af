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
                                       : signal_at(line, inner, A.n, A.mode, p0 - j);
                a += A.f0[j] * v;
                d += A.f1[j] * v;
            }
        } else {
            const int rl = A.ntaps0 / 2, rh = A.ntaps1 / 2;
            for (int u = -rl; u <= rl; u++)
                a += A.f0[u + rl] * signal_at(line, inner, A.n, A.mode, 2 * p.k + u);
            for (int u = -rh; u <= rh; u++)
                d += A.f1[u + rh] * signal_at(line, inner, A.n, A.mode, 2 * p.k + 1 + u);
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
    size_t outer, inner;
    cu_vaxis_extents(p->shape, p->axis, p->channels, &outer, &inner);
    const cu_vaxis A = vaxis_of(p->line, p->inverse);
    const size_t len = (size_t)(A.n > A.nlo + A.nhi ? A.n : A.nlo + A.nhi);
    if (outer * len * inner < ((size_t)1 << 32))
        return vlaunch<uint32_t>(ce, A, p, (uint32_t)outer, (uint32_t)inner);
    return vlaunch<uint64_t>(ce, A, p, (uint64_t)outer, (uint64_t)inner);
}

/* ---- a whole level along the three axes in one kernel, walking z ------------------
 *
 * A block owns a tile of the level's outputs across y and x (forward: pairs,
 * inverse: samples) and a run of them along z, and walks z one input plane
 * at a time: the plane's window (the tile and its y/x halo, extended at the
 * volume's borders) comes into shared memory while the plane before it is
 * filtered (asynchronous copies into two buffers), is filtered along x and
 * then y there, and joins a ring of the last S planes' results; the ring is
 * filtered along z into the outputs every second plane (forward) or every
 * plane (inverse). One read and one write of the volume a level (the y/x
 * halo mostly from L2), where the passes read and write it three times.
 *
 * Every axis is a window of S taps (S, the span, is the same along the
 * three axes of a level: it depends on the wavelet and mode only):
 *   forward  lo[k] = sum_{j<S} w0[j] ext(2k + org + j), hi[k] with w1
 *            (filter banks: org = start - (F - 1), w = the filter reversed;
 *            JPEG 2000: the centred filters, zero taps pad the shorter);
 *   inverse  sig[i] = sum_{j<S} w_q[j] J(i + org + j), q = (i + s) & 1, J
 *            the interleaved coefficients (lo at even, hi at odd
 *            positions): filter banks zero-padded or periodic, JPEG 2000
 *            the extended interleaved sequence.
 * Extension is linear along each axis, so extending a plane along z (a
 * combination of up to three planes) and filtering it afterwards gives the
 * passes' numbers (within float rounding: the sums run in another order). */

#define CU_STAPS 34 /* taps an axis of a level kernel holds (filters <= 32 taps) */
#define CU_SLANES 32 /* block: 32 x 8 threads, x fastest */
#define CU_SROWS 8
#define CU_STHREADS (CU_SLANES * CU_SROWS)
#define CU_SRUN 4 /* y: outputs a thread makes, each window value read once */

typedef struct cu_saxis {
    int n, nlo, nhi, mode, j2k;
    int org, span; /* output 0's window: from org, span long */
    int s;         /* inverse: sample i takes weights w[(i + s) & 1] */
    int tile;      /* outputs a block makes along the axis */
    int last;      /* the last window position any output needs */
    float w[2][CU_STAPS];
} cu_saxis;

typedef struct cu_slevel {
    cu_saxis ax[3];    /* z, y, x */
    int band_of[8];    /* (pz << 2 | py << 1 | px) -> key index */
    unsigned tiles[3]; /* blocks along each axis */
    int stages;        /* window buffers (2 to 4): planes in flight + 1 */
    int zreg;          /* inverse: the z filter in registers (szreg_fits) */
    int border_rows;   /* forward sweep: border windows a row pointer a row (sload_border) */
    int plain_x;       /* inverse sweep: windows inside along x copied plainly (sload_coefs) */
    const float *src;  /* forward: the signal */
    float *dst;        /* inverse: the signal */
    float *bands[8];   /* key order */
} cu_slevel;

/* Asynchronous copies global -> shared (sm_80 and later; the emulation and
 * older GPUs copy at once): issued, committed as a group, waited for. */
#if defined(WT_CUDA_EMULATE) || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800)
WT_DEV void sasync_copy(float *dst, const float *src)
{
    *dst = *src;
}
WT_DEV void sasync_commit(void) {}
WT_DEV void sasync_wait(int pending)
{
    (void)pending;
}
#else
WT_DEV void sasync_copy(float *dst, const float *src)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(src) : "memory");
}
WT_DEV void sasync_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
/* All groups done but the @p pending (0 to 3) committed last. */
WT_DEV void sasync_wait(int pending)
{
    if (pending >= 3)
        asm volatile("cp.async.wait_group 3;\n" ::: "memory");
    else if (pending == 2)
        asm volatile("cp.async.wait_group 2;\n" ::: "memory");
    else if (pending == 1)
        asm volatile("cp.async.wait_group 1;\n" ::: "memory");
    else
        asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}
#endif

/* Planes whose copies were issued after plane @p i's, at plane i of
 * @p planes with @p stages window buffers. */
WT_DEV int splanes_pending(int i, int planes, int stages)
{
    return stages - 1 < planes - 1 - i ? stages - 1 : planes - 1 - i;
}

/* Every i < @p n, on every thread of the block. */
#define FOR_BLOCK(i, n)                                                                            \
    for (int i = (int)(threadIdx.y * blockDim.x + threadIdx.x); i < (n);                           \
         i += (int)(blockDim.x * blockDim.y))

/* Every (row < @p rows, column < @p cols) of a tile, neighbouring columns
 * on neighbouring lanes: a row of more columns than a warp has lanes is cut
 * into warp-wide pieces, spread over the warps with the rows (a stage of
 * few rows and wide ones keeps every warp busy). */
#define FOR_TILE(row_, col_, rows, cols)                                                           \
    for (int piece_ = (int)threadIdx.y, pieces_ = ((cols) + (int)blockDim.x - 1) / (int)blockDim.x; \
         piece_ < (rows) * pieces_; piece_ += (int)blockDim.y)                                     \
        for (int row_ = piece_ / pieces_,                                                          \
                 col_ = piece_ % pieces_ * (int)blockDim.x + (int)threadIdx.x;                     \
             col_ < (cols); col_ = (cols))

/* The span of the kernel's instance: @p S, or (0) the level's. */
template <int S> WT_DEV int sspan(const cu_saxis &A)
{
    return S ? S : A.span;
}

/* The block's tile: channel and first output along each axis. */
WT_DEV void stile_of(const cu_slevel &L, size_t *c, int k0[3])
{
    size_t b = blockIdx.x;
    for (int a = 2; a >= 0; a--) {
        k0[a] = (int)(b % L.tiles[a]) * L.ax[a].tile;
        b /= L.tiles[a];
    }
    *c = b;
}

/* The extent along axis @p A of a band low (@p p 0) or high (1) along it. */
WT_DEV int sband_len(const cu_saxis &A, int p)
{
    return p ? A.nhi : A.nlo;
}

WT_DEV float *sband(const cu_slevel &L, int pz, int py, int px)
{
    return L.bands[L.band_of[pz << 2 | py << 1 | px]];
}

/* A window's tables along y and x (even: the windows after them are read
 * two values at a time). */
WT_HD static inline int stables(int wy, int ws)
{
    return (wy + ws + 1) & ~1;
}

/* ---- forward ---- */

/* The extended signal at window position (z, y, x) of channel @p c (0 past
 * what any output needs). */
WT_DEV float ssignal_at(const cu_slevel &L, size_t c, int z, int y, int x)
{
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
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

/* Where the extended signal at position @p i along @p A comes from: the
 * sample it copies (inside, or an extension by one sample of weight 1:
 * symmetric, reflect, constant, periodic, periodization), SCOPY_ZERO (0:
 * past what any output needs, or the zero mode) or SCOPY_EVAL (a
 * combination or a sign: ssignal_at). */
#define SCOPY_ZERO (-1)
#define SCOPY_EVAL (-2)
WT_DEV int scopy_of(const cu_saxis &A, int i)
{
    if (i > A.last)
        return SCOPY_ZERO;
    const ext_terms t = signal_terms(A.mode, A.n, i);
    if (t.n == 0)
        return SCOPY_ZERO;
    return t.n == 1 && t.w[0] == 1.0f ? t.idx[0] : SCOPY_EVAL;
}

/* A block's window of one plane: @p wy rows of @p wx values from (@p oy,
 * @p ox), @p ws apart in shared memory; @p rows and @p cols: scopy_of of
 * its rows and columns. */
typedef struct swindow {
    int oy, ox, wy, wx, ws;
    int inner; /* inside the volume across y and x: planes copied along z are plain copies */
    int in_x;  /* every column its own sample (forward) or coefficient (inverse): cols[x] = ox + x */
    const int *rows, *cols;
} swindow;

/* Places @p W (its wy, wx and ws set) at output tile @p k0: its origin,
 * whether it lies inside the volume across y and x, and its tables of
 * source rows and columns at @p tables (shared; the block synced after). */
WT_DEV void swindow_place(const cu_slevel &L, const int k0[3], int *tables, swindow &W)
{
    const cu_saxis &Y = L.ax[1], &X = L.ax[2];
    W.oy = 2 * k0[1] + Y.org;
    W.ox = 2 * k0[2] + X.org;
    W.in_x = W.ox >= 0 && W.ox + W.wx <= X.n;
    W.inner = W.oy >= 0 && W.oy + W.wy <= Y.n && W.in_x;
    int *rows = tables, *cols = rows + W.wy;
    W.rows = rows, W.cols = cols;
    FOR_BLOCK(k, W.wy)
        rows[k] = scopy_of(Y, W.oy + k);
    FOR_BLOCK(k, W.wx)
        cols[k] = scopy_of(X, W.ox + k);
    WT_SYNC();
}

/* One value of a window at the border: copied where every axis copies a
 * sample, 0 where one is zero, else evaluated. */
WT_DEV void sload_value(const cu_slevel &L, size_t c, int z, int zc, const swindow &W, int r,
                        int x, float *to)
{
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    const int yc = W.rows[r], xc = W.cols[x];
    if (zc == SCOPY_ZERO || yc == SCOPY_ZERO || xc == SCOPY_ZERO)
        *to = 0.0f;
    else if (zc >= 0 && yc >= 0 && xc >= 0)
        sasync_copy(to, L.src + ((c * Z.n + zc) * (size_t)Y.n + yc) * X.n + xc);
    else
        *to = ssignal_at(L, c, z, W.oy + r, W.ox + x);
}

/* The block of every level kernel (slaunch: CU_SLANES x CU_SROWS threads)
 * as constants on the GPU, so that loops over a tile of a size known at
 * compile time unroll and their addresses are a base and fixed offsets;
 * the emulation's block is one thread. */
#ifdef WT_CUDA_EMULATE
#define CU_SSTEP_X ((int)blockDim.x)
#define CU_SSTEP_Y ((int)blockDim.y)
#else
#define CU_SSTEP_X CU_SLANES
#define CU_SSTEP_Y CU_SROWS
#endif

/* The sweeps' block is CU_SLANES x CU_SROWS threads (slaunch): told to the
 * compiler, a loop from threadIdx.x over a row of n values in CU_SLANES
 * steps is ceil(n / CU_SLANES) unrolled copies, no loop test left. */
WT_DEV void sassume_block(void)
{
    WT_ASSUME(threadIdx.x < CU_SLANES && threadIdx.y < CU_SROWS);
}

/* Every (row < @p rows, column < @p cols) of a tile, a warp a row (the
 * lanes along it): no divisions, for stages whose rows are about as many
 * as the warps or more (the sweeps: CU_SSTEP_X, CU_SSTEP_Y steps). */
#define FOR_ROWS(row_, col_, rows, cols)                                                           \
    for (int row_ = (int)threadIdx.y; row_ < (rows); row_ += CU_SSTEP_Y)                          \
        for (int col_ = (int)threadIdx.x; col_ < (cols); col_ += CU_SSTEP_X)

/* The extended signal at window value (@p r, @p x) of plane @p z: a call,
 * for the rare values that are combinations (sload_border). */
WT_DEV_NOINLINE float ssignal_called(const cu_slevel &L, size_t c, int z, const swindow &W, int r,
                                     int x)
{
    return ssignal_at(L, c, z, W.oy + r, W.ox + x);
}

/* Plane @p z (its source plane @p zc: scopy_of) of the window of a block
 * at a y or x border (the sweep's, vol_sweep_rows): a row pointer a row
 * whose row and plane copy a sample, the window's own columns where it lies
 * inside along x (W.in_x), else the column table; values that are
 * combinations (rare: extensions other than copies) by a call. */
WT_DEV void sload_border(const cu_slevel &L, size_t c, int z, int zc, const swindow &W, float *win)
{
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
#pragma unroll 1 /* a row's three kinds of columns, not each row's */
    for (int r = (int)threadIdx.y; r < W.wy; r += CU_SSTEP_Y) {
        const int yc = W.rows[r];
        float *to = win + r * W.ws;
        if (zc < 0 || yc < 0) { /* a row of zeros or of combinations */
            const int zero = zc == SCOPY_ZERO || yc == SCOPY_ZERO;
            for (int x = (int)threadIdx.x; x < W.wx; x += CU_SSTEP_X)
                to[x] = zero || W.cols[x] == SCOPY_ZERO ? 0.0f : ssignal_called(L, c, z, W, r, x);
            continue;
        }
        const float *row = L.src + ((c * Z.n + zc) * (size_t)Y.n + yc) * X.n;
        if (W.in_x) {
            for (int x = (int)threadIdx.x; x < W.wx; x += CU_SSTEP_X)
                sasync_copy(to + x, row + W.ox + x);
            continue;
        }
        for (int x = (int)threadIdx.x; x < W.wx; x += CU_SSTEP_X) {
            const int xc = W.cols[x];
            if (xc >= 0)
                sasync_copy(to + x, row + xc);
            else
                to[x] = xc == SCOPY_ZERO ? 0.0f : ssignal_called(L, c, z, W, r, x);
        }
    }
}

/* Plane @p z of the extended signal's window into @p win (copies issued
 * and committed; sasync_wait and a barrier before it is read). @p ROWS:
 * FOR_ROWS (the sweep), else FOR_TILE. */
template <bool ROWS = false>
WT_DEV void sload_signal(const cu_slevel &L, size_t c, int z, const swindow &W, float *win)
{
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    const int zc = scopy_of(Z, z);
    if (W.inner && zc >= 0) {
        const float *plane = L.src + ((c * Z.n + zc) * (size_t)Y.n + W.oy) * X.n + W.ox;
        auto copy = [&](int r, int x) {
            sasync_copy(win + r * W.ws + x, plane + (size_t)r * X.n + x);
        };
        if constexpr (ROWS) {
            FOR_ROWS(r, x, W.wy, W.wx) copy(r, x);
        } else {
            FOR_TILE(r, x, W.wy, W.wx) copy(r, x);
        }
    } else if (ROWS && L.border_rows) {
        sload_border(L, c, z, zc, W, win);
    } else {
        auto value = [&](int r, int x) { sload_value(L, c, z, zc, W, r, x, win + r * W.ws + x); };
        if constexpr (ROWS) {
            FOR_ROWS(r, x, W.wy, W.wx) value(r, x);
        } else {
            FOR_TILE(r, x, W.wy, W.wx) value(r, x);
        }
    }
    sasync_commit();
}

/* x: every window row's @p tx pairs (lo, then hi: s1[2][wy][tx]); a pair's
 * window read two values at a time. @p ROWS: FOR_ROWS, else FOR_TILE. */
template <int S, bool ROWS = false>
WT_DEV void sforward_x(const cu_saxis &X, const float *win, const swindow &W, int tx, float *s1)
{
    const int span = sspan<S>(X);
    auto pair = [&](int r, int k) {
        const float *p = win + r * W.ws + 2 * k;
        float lo = 0.0f, hi = 0.0f;
        if (S) {
#pragma unroll
            for (int j = 0; j < S; j += 2) {
                const float2 v = *(const float2 *)(p + j);
                lo += X.w[0][j] * v.x;
                hi += X.w[1][j] * v.x;
                if (j + 1 < S) {
                    lo += X.w[0][j + 1] * v.y;
                    hi += X.w[1][j + 1] * v.y;
                }
            }
        } else {
            for (int j = 0; j < span; j++) {
                lo += X.w[0][j] * p[j];
                hi += X.w[1][j] * p[j];
            }
        }
        s1[r * tx + k] = lo;
        s1[(W.wy + r) * tx + k] = hi;
    };
    if constexpr (ROWS) {
        FOR_ROWS(r, k, W.wy, tx) pair(r, k);
    } else {
        FOR_TILE(r, k, W.wy, tx) pair(r, k);
    }
}

/* y: the pairs of every column of s1 into the plane's 2-D bands, (py, px)
 * at ring[(2 py + px) ty + u][k]; CU_SRUN pairs a thread. */
template <int S>
WT_DEV void sforward_y(const cu_saxis &Y, const float *s1, int wy, int ty, int tx, float *ring)
{
    const int span = sspan<S>(Y), runs = (ty + CU_SRUN - 1) / CU_SRUN;
    FOR_TILE(e, k, 2 * runs, tx) {
        const int px = e / runs, u0 = (e % runs) * CU_SRUN;
        const int nt = ty - u0 < CU_SRUN ? ty - u0 : CU_SRUN, end = 2 * (nt - 1) + span;
        const float *col = s1 + (px * wy + 2 * u0) * tx + k;
        float lo[CU_SRUN], hi[CU_SRUN];
#pragma unroll
        for (int r = 0; r < CU_SRUN; r++)
            lo[r] = hi[r] = 0.0f;
#pragma unroll
        for (int q = 0; q < 2 * (CU_SRUN - 1) + (S ? S : CU_STAPS); q++) {
            if (q >= end)
                break;
            const float v = col[q * tx];
#pragma unroll
            for (int r = 0; r < CU_SRUN; r++) {
                const int m = q - 2 * r;
                if (m >= 0 && m < span) {
                    lo[r] += Y.w[0][m] * v;
                    hi[r] += Y.w[1][m] * v;
                }
            }
        }
#pragma unroll
        for (int r = 0; r < CU_SRUN; r++)
            if (r < nt) {
                ring[(px * ty + u0 + r) * tx + k] = lo[r];
                ring[((2 + px) * ty + u0 + r) * tx + k] = hi[r];
            }
    }
}

/* z: pair @p kz of the tile from the ring's planes (the oldest in slot
 * @p slot0) into the 8 bands. */
template <int S>
WT_DEV void sforward_z(const cu_slevel &L, size_t c, const float *ring, int slot0, int kz,
                       int ky0, int kx0, int ty, int tx)
{
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    const int span = sspan<S>(Z), plane = 4 * ty * tx;
    FOR_TILE(row, k, 4 * ty, tx) {
        const int b = row / ty, py = b >> 1, px = b & 1, ky = ky0 + row % ty, kx = kx0 + k;
        const int ny = sband_len(Y, py), nx = sband_len(X, px);
        if (ky >= ny || kx >= nx)
            continue;
        const float *v = ring + row * tx + k;
        float lo = 0.0f, hi = 0.0f;
#pragma unroll
        for (int j = 0; j < (S ? S : CU_STAPS); j++) {
            if (j >= span)
                break;
            const int slot = slot0 + j < span ? slot0 + j : slot0 + j - span;
            lo += Z.w[0][j] * v[slot * plane];
            hi += Z.w[1][j] * v[slot * plane];
        }
        const size_t at = (size_t)ky * nx + kx;
        if (kz < Z.nlo)
            sband(L, 0, py, px)[(c * Z.nlo + kz) * (size_t)ny * nx + at] = lo;
        if (kz < Z.nhi)
            sband(L, 1, py, px)[(c * Z.nhi + kz) * (size_t)ny * nx + at] = hi;
    }
}

/* Shared memory (floats) of a forward block: the window's scopy_of tables
 * along y and x, @p stages windows, the x pass, the ring. */
WT_HD static inline size_t sforward_smem(int span, int ty, int tx, int stages, int *wy, int *ws)
{
    *wy = 2 * (ty - 1) + span;
    *ws = (2 * (tx - 1) + span + 1) & ~1; /* even: two values at a time */
    return stables(*wy, *ws) + (size_t)stages * *wy * *ws + (size_t)2 * *wy * tx +
           (size_t)span * 4 * ty * tx;
}

/* haar (S 2): three blocks an SM (84 registers; its shared memory holds
 * five), the others two */
template <int S>
WT_GLOBAL void WT_LAUNCH_BOUNDS_MIN(CU_STHREADS, S == 2 ? 3 : 2)
    vlevel_forward(const WT_GRID_CONST cu_slevel L)
{
    WT_DYN_SMEM(float, smem);
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    size_t c;
    int k0[3];
    stile_of(L, &c, k0);
    const int span = sspan<S>(Z), ty = Y.tile, tx = X.tile;
    swindow W;
    sforward_smem(span, ty, tx, L.stages, &W.wy, &W.ws);
    W.wx = 2 * (tx - 1) + span;
    swindow_place(L, k0, (int *)smem, W);
    const int wsize = W.wy * W.ws, stages = L.stages;
    float *win = smem + stables(W.wy, W.ws), *s1 = win + stages * wsize,
          *ring = s1 + 2 * W.wy * tx;
    const int nz = Z.nlo > Z.nhi ? Z.nlo : Z.nhi;
    const int kz1 = k0[0] + Z.tile < nz ? k0[0] + Z.tile : nz;
    const int z0 = 2 * k0[0] + Z.org, planes = 2 * (kz1 - 1 - k0[0]) + span;
    for (int j = 0; j < stages - 1 && j < planes; j++)
        sload_signal(L, c, z0 + j, W, win + j * wsize);
    for (int i = 0; i < planes; i++) {
        const int ahead = i + stages - 1; /* comes while this plane is filtered */
        if (ahead < planes)
            sload_signal(L, c, z0 + ahead, W, win + (ahead % stages) * wsize);
        sasync_wait(splanes_pending(i, planes, stages));
        WT_SYNC();
        sforward_x<S>(X, win + (i % stages) * wsize, W, tx, s1);
        WT_SYNC();
        sforward_y<S>(Y, s1, W.wy, ty, tx, ring + (size_t)(i % span) * 4 * ty * tx);
        WT_SYNC();
        const int first = i - (span - 1); /* the oldest plane of a pair's window */
        if (first >= 0 && (first & 1) == 0)
            sforward_z<S>(L, c, ring, first % span, k0[0] + first / 2, k0[1], k0[2], ty, tx);
    }
}

/* ---- forward sweep: the z filter in registers ----------------------------------------
 *
 * Filter banks of a span of 3 to CU_SWEEP_SPAN along the three axes: a
 * block (CU_SLANES x CU_SROWS threads) owns CU_SWEEP_TY x CU_SWEEP_TX
 * output pairs across y and x, one a thread, and a run along z. For each
 * input plane of the run's window it loads the plane's window (tile + y/x
 * halo, the border extended as vlevel_forward: sload_signal), filters x
 * (sforward_x) and then y for the thread's pair (4 values: the (py, px)
 * bands of the plane), and adds those into the z sums in registers of the
 * ceil(S / 2) outputs along z the plane feeds (lo and hi each): output kz
 * takes plane 2 kz + org + j as tap j, the ring's order. Each pair of
 * planes completes one output along z: its 8 bands are written, coalesced
 * along x. No ring of planes, two barriers a plane; the window planes
 * come L.stages - 1 ahead by cp.async (vol_sweep_stages). The span is
 * rounded up to an instance (4, 6, 8, 9, 10, 12: vsweep_instance), the
 * taps past the filter's zero. */

/* @p f(sconst<Q>()) for the @p q (0 <= q < N) as a compile-time constant Q:
 * register arrays indexed by it stay registers, weights indexed by it are
 * the FMAs' constant operands. */
template <int Q> struct sconst {
    static constexpr int value = Q;
};
template <int N, int Q = 0, typename F> WT_DEV void swith_index(int q, F f)
{
    if constexpr (Q + 1 < N)
        if (q != Q) {
            swith_index<N, Q + 1>(q, f);
            return;
        }
    f(sconst<Q>());
}

#define CU_SWEEP_TY CU_SROWS /* output pairs a block across y and x: one a thread */
#define CU_SWEEP_TX CU_SLANES
#define CU_SWEEP_SPAN 12   /* the longest span the sweep takes */
#define CU_SWEEP_SPAN3 6   /* the longest built for 3 blocks an SM too */

/* The pairs a thread owns: one on the GPU, every one of the block's in the
 * emulation (one thread plays them all). */
#ifdef WT_CUDA_EMULATE
#define CU_SWEEP_SLOTS CU_STHREADS
#else
#define CU_SWEEP_SLOTS 1
#endif

/* A thread's z sums: out[s][b][pz], the output along z that is s + 1 - P
 * pairs of planes older than the pair coming (slot 0 completes next), band
 * b = 2 py + px of the plane, low (pz 0) or high along z. */
template <int S> struct ssweep_acc {
    float out[(S + 1) / 2][4][2];
};

/* y: the 4 (py, px) values of output pair row @p u, column @p k of the x
 * pass's s1 (lo rows, then hi rows, @p wy each). */
template <int S>
WT_DEV void ssweep_y(const cu_saxis &Y, const float *s1, int wy, int tx, int u, int k,
                     float v[4])
{
    const float *lo = s1 + 2 * u * tx + k, *hi = lo + wy * tx;
    v[0] = v[1] = v[2] = v[3] = 0.0f;
#pragma unroll
    for (int j = 0; j < S; j++) {
        const float a = lo[j * tx], b = hi[j * tx];
        v[0] += Y.w[0][j] * a; /* (lo y, lo x) */
        v[1] += Y.w[0][j] * b; /* (lo y, hi x) */
        v[2] += Y.w[1][j] * a;
        v[3] += Y.w[1][j] * b;
    }
}

/* Plane @p e (0 even, 1 odd) of a pair of planes: its values @p v into the
 * sums; output slot s takes it as tap 2 (P - 1 - s) + e. */
template <int S>
WT_DEV void ssweep_add(const cu_saxis &Z, ssweep_acc<S> &A, const float v[4], int e)
{
    constexpr int P = (S + 1) / 2;
#pragma unroll
    for (int s = 0; s < P; s++) {
        const int j = 2 * (P - 1 - s) + e;
        if (j >= S)
            continue;
#pragma unroll
        for (int b = 0; b < 4; b++) {
            A.out[s][b][0] += Z.w[0][j] * v[b];
            A.out[s][b][1] += Z.w[1][j] * v[b];
        }
    }
}

/* The ring (vol_sweep_ring): plane @p Q of a cycle of 2 P planes (P pairs:
 * the cycle's pair R = Q / 2, plane e = Q & 1 of it) into the sums. Logical
 * slot s (ssweep_add's) is A.out[(s + R) % P], so an output keeps its slot
 * from its first plane to its last and nothing moves; its first plane (tap
 * 0: e 0, s P - 1) sets the slot the output before it left. */
template <int S, int Q>
WT_DEV void ssweep_add_ring(const cu_saxis &Z, ssweep_acc<S> &A, const float v[4])
{
    constexpr int P = (S + 1) / 2, R = Q / 2, e = Q & 1;
#pragma unroll
    for (int s = 0; s < P; s++) {
        const int j = 2 * (P - 1 - s) + e, slot = (s + R) % P;
        if (j >= S)
            continue;
#pragma unroll
        for (int b = 0; b < 4; b++) {
            const float lo = j ? A.out[slot][b][0] : 0.0f, hi = j ? A.out[slot][b][1] : 0.0f;
            A.out[slot][b][0] = lo + Z.w[0][j] * v[b];
            A.out[slot][b][1] = hi + Z.w[1][j] * v[b];
        }
    }
}

/* Output @p out (its 8 bands: out[b][pz]) written at z output @p kz, where a
 * band has it. */
WT_DEV void ssweep_write(const cu_slevel &L, size_t c, const float out[4][2], int kz, int ky,
                         int kx)
{
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
#pragma unroll
    for (int b = 0; b < 4; b++) {
        const int py = b >> 1, px = b & 1, ny = sband_len(Y, py), nx = sband_len(X, px);
        if (ky >= ny || kx >= nx)
            continue;
        const size_t at = (size_t)ky * nx + kx;
#pragma unroll
        for (int pz = 0; pz < 2; pz++)
            if (kz < sband_len(Z, pz))
                sband(L, pz, py, px)[(c * sband_len(Z, pz) + kz) * (size_t)ny * nx + at] =
                    out[b][pz];
    }
}

/* The completed output (slot 0) written at z output @p kz (where a band has
 * it), the sums moved a slot on. */
template <int S>
WT_DEV void ssweep_emit(const cu_slevel &L, size_t c, ssweep_acc<S> &A, int kz, int write, int ky,
                        int kx)
{
    constexpr int P = (S + 1) / 2;
    if (write)
        ssweep_write(L, c, A.out[0], kz, ky, kx);
#pragma unroll
    for (int s = 0; s + 1 < P; s++)
#pragma unroll
        for (int b = 0; b < 4; b++)
            A.out[s][b][0] = A.out[s + 1][b][0], A.out[s][b][1] = A.out[s + 1][b][1];
#pragma unroll
    for (int b = 0; b < 4; b++)
        A.out[P - 1][b][0] = A.out[P - 1][b][1] = 0.0f;
}

/* Shared memory (floats) of a sweep block: the window's tables, @p stages
 * window buffers, the x pass (@p halves of it: ssweep_run). */
WT_HD static inline size_t ssweep_smem(int span, int stages, int halves, int *wy, int *ws)
{
    *wy = 2 * (CU_SWEEP_TY - 1) + span;
    *ws = (2 * (CU_SWEEP_TX - 1) + span + 1) & ~1; /* even: two values at a time */
    return stables(*wy, *ws) + (size_t)stages * *wy * *ws +
           (size_t)halves * 2 * *wy * CU_SWEEP_TX;
}

/* The sweeps' schedule of @p planes window planes through @p stages (2 to
 * 4) window buffers, the next stages - 1 planes' copies in flight:
 * load(j, buf) issues and commits plane j's copies into buffer buf,
 * filter_x(j, buf, half) filters plane j's window along x into half
 * @p half of the x pass's array (s1), rest(i, half) runs plane i's later
 * stages from it (registers and global memory only).
 * @p ONE: one barrier a plane, s1 in two halves: plane i's rest and plane
 * i + 1's x run between the same two barriers (plane i + 1's x writes the
 * half plane i - 1's rest read, and its window buffer was waited for,
 * before that barrier; plane i + stages - 1 loads into plane i - 1's
 * buffer, whose x ran before the barrier before). Else two barriers a
 * plane (wait, x, barrier, rest), one s1. */
template <bool ONE, typename Load, typename FilterX, typename Rest>
WT_DEV void ssweep_run(int planes, int stages, Load load, FilterX filter_x, Rest rest)
{
    for (int j = 0; j < stages - 1 && j < planes; j++)
        load(j, j);
    if (ONE && planes > 0) {
        sasync_wait((stages - 2 < planes - 1 ? stages - 2 : planes - 1));
        WT_SYNC();
        filter_x(0, 0, 0);
    }
    int slot = 0; /* plane i's window buffer, i % stages (plane i + stages - 1: the one before) */
    for (int i = 0; i < planes; i++) {
        const int ahead = i + stages - 1, before = slot ? slot - 1 : stages - 1;
        const int next = slot + 1 < stages ? slot + 1 : 0;
        if (ahead < planes)
            load(ahead, before);
        if (ONE) {
            const int issued = ahead < planes ? ahead : planes - 1; /* the last plane committed */
            if (i + 1 < planes)
                sasync_wait(issued - (i + 1));
            WT_SYNC();
            rest(i, i & 1);
            if (i + 1 < planes)
                filter_x(i + 1, next, (i + 1) & 1);
        } else {
            sasync_wait(splanes_pending(i, planes, stages));
            WT_SYNC();
            filter_x(i, slot, 0);
            WT_SYNC();
            rest(i, 0);
        }
        slot = next;
    }
}

/* The pair slot @p k of this thread: its row and column in the tile. */
WT_DEV int ssweep_slot(int k, int *u, int *v)
{
    const int t =
        (int)(threadIdx.y * blockDim.x + threadIdx.x) + k * (int)(blockDim.x * blockDim.y);
    *u = t / CU_SWEEP_TX;
    *v = t % CU_SWEEP_TX;
    return t < CU_SWEEP_TY * CU_SWEEP_TX;
}

/* @p BLOCKS an SM: 2 (sm_90: 102-128 registers) or, for spans to
 * CU_SWEEP_SPAN3, 3 (vol_sweep_blocks; 80 registers: S 4 fits, S 6 spills
 * 68-120 bytes). @p ONE: one barrier a plane (ssweep_run); @p RING: the z
 * sums in a ring (ssweep_add_ring), else moved a slot a pair. */
template <int S, bool ONE, bool RING, int BLOCKS>
WT_GLOBAL void WT_LAUNCH_BOUNDS_MIN(CU_STHREADS, BLOCKS)
    vsweep_forward(const WT_GRID_CONST cu_slevel L)
{
    WT_DYN_SMEM(float, smem);
    sassume_block();
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    constexpr int P = (S + 1) / 2;
    size_t c;
    int k0[3];
    stile_of(L, &c, k0);
    const int tx = CU_SWEEP_TX;
    swindow W;
    const int stages = L.stages;
    ssweep_smem(S, stages, ONE ? 2 : 1, &W.wy, &W.ws);
    W.wx = 2 * (tx - 1) + S;
    swindow_place(L, k0, (int *)smem, W);
    const int wsize = W.wy * W.ws, half = 2 * W.wy * tx;
    float *win = smem + stables(W.wy, W.ws), *s1 = win + stages * wsize;
    const int nz = Z.nlo > Z.nhi ? Z.nlo : Z.nhi;
    const int kz1 = k0[0] + Z.tile < nz ? k0[0] + Z.tile : nz, run = kz1 - k0[0];
    const int z0 = 2 * k0[0] + Z.org, planes = 2 * (run - 1) + S;
    ssweep_acc<S> A[CU_SWEEP_SLOTS] = {};
    auto load = [&](int j, int buf) { sload_signal<true>(L, c, z0 + j, W, win + buf * wsize); };
    auto filter_x = [&](int j, int buf, int h) {
        (void)j;
        sforward_x<S, true>(X, win + buf * wsize, W, tx, s1 + h * half);
    };
    /* plane i is plane e of pair i / 2; a pair (or the last plane) completes
     * output i / 2 - (P - 1) of the run */
    auto rest = [&](int i, int h) {
        const int e = i & 1;
#pragma unroll
        for (int k = 0; k < CU_SWEEP_SLOTS; k++) {
            int u, v;
            if (!ssweep_slot(k, &u, &v))
                break;
            float b[4];
            ssweep_y<S>(Y, s1 + h * half, W.wy, tx, u, v, b);
            if constexpr (RING) /* the plane's place in the ring's turn a constant */
                swith_index<2 * P>(i % (2 * P), [&](auto q) {
                    ssweep_add_ring<S, decltype(q)::value>(Z, A[k], b);
                });
            else if (e) /* the taps' index a constant */
                ssweep_add<S>(Z, A[k], b, 1);
            else
                ssweep_add<S>(Z, A[k], b, 0);
        }
        if (!e && i + 1 < planes)
            return;
        const int o = i / 2 - (P - 1);
#pragma unroll
        for (int k = 0; k < CU_SWEEP_SLOTS; k++) {
            int u, v;
            if (!ssweep_slot(k, &u, &v))
                break;
            if constexpr (RING) { /* the completed output: logical slot 0 */
                if (o >= 0)
                    swith_index<P>(i / 2 % P, [&](auto r) {
                        ssweep_write(L, c, A[k].out[decltype(r)::value], k0[0] + o, k0[1] + u,
                                     k0[2] + v);
                    });
            } else {
                ssweep_emit<S>(L, c, A[k], k0[0] + o, o >= 0, k0[1] + u, k0[2] + v);
            }
        }
    };
    ssweep_run<ONE>(planes, stages, load, filter_x, rest);
}

/* ---- inverse ---- */

/* Interleaved position @p m along @p A as coefficient index * 2 + band
 * parity; -1 for a zero (past a zero-padded band, or past what any output
 * needs). */
WT_DEV int scoef_at(const cu_saxis &A, int m)
{
    if (m > A.last)
        return -1;
    int p, i;
    if (A.j2k) {
        int sign;
        const int f = wt_fold_index(m, A.nlo + A.nhi, wt_interleaved_mode(A.mode), &sign);
        p = f & 1;
        i = f >> 1;
    } else {
        p = m & 1;
        i = (m - p) / 2;
        if (A.mode == WT_MODE_PERIODIZATION)
            i = wt_floor_mod(i, sband_len(A, p));
        else if (i < 0 || i >= sband_len(A, p))
            return -1;
    }
    return 2 * i + p;
}

/* The inverse sweep's tile (vsweep_inverse) and its longest span. */
#define CU_ISWEEP_TY (CU_SRUN * CU_STHREADS / 64) /* 16 rows: a run a thread */
#define CU_ISWEEP_TX 64
#define CU_ISWEEP_SPAN 13 /* the longest span the inverse sweep takes (12 taps) */

/* A window row of @p wx columns from @p ox that lie inside the bands along
 * x (vol_sweep_plain: column x is coefficient (ox + x) / 2 of band (ox + x)
 * & 1, lo or hi) into @p to. Lane l copies columns l + CU_SLANES j, all of
 * one band, CU_SLANES / 2 coefficients apart: one band pointer a row and
 * fixed offsets (the GPU's block has CU_SLANES lanes; the emulation's one
 * thread plays them all). */
WT_DEV void sload_plain_row(const float *lo, const float *hi, int ox, int wx, float *to)
{
    for (int l = (int)threadIdx.x; l < CU_SLANES; l += CU_SSTEP_X) {
        const int m = ox + l;
        const float *from = (m & 1 ? hi : lo) + (m >> 1);
#pragma unroll
        for (int j = 0; j < (CU_ISWEEP_TX + CU_ISWEEP_SPAN + CU_SLANES - 1) / CU_SLANES; j++)
            if (l + j * CU_SLANES < wx)
                sasync_copy(to + l + j * CU_SLANES, from + j * (CU_SLANES / 2));
    }
}

/* Plane @p m of the interleaved coefficients' window into @p win (its
 * tables: scoef_at along y and x). @p ROWS: FOR_ROWS's steps (the sweep),
 * else the block's at run time. */
template <bool ROWS = false>
WT_DEV void sload_coefs(const cu_slevel &L, size_t c, int m, const swindow &W, float *win)
{
    const int step_y = ROWS ? CU_SSTEP_Y : (int)blockDim.y,
              step_x = ROWS ? CU_SSTEP_X : (int)blockDim.x;
    const int *rows = W.rows, *cols = W.cols;
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    const int zc = scoef_at(Z, m), pz = zc & 1, nz = sband_len(Z, pz);
    for (int r = (int)threadIdx.y; r < W.wy; r += step_y) {
        const int yc = rows[r], py = yc & 1, ny = sband_len(Y, py);
        const int live = zc >= 0 && yc >= 0;
        const size_t line = ((c * nz + (zc >> 1)) * (size_t)ny + (yc >> 1));
        const float *lo = live ? sband(L, pz, py, 0) + line * X.nlo : NULL,
                    *hi = live ? sband(L, pz, py, 1) + line * X.nhi : NULL;
        if (ROWS && live && L.plain_x && W.in_x) {
            sload_plain_row(lo, hi, W.ox, W.wx, win + r * W.ws);
            continue;
        }
        for (int x = (int)threadIdx.x; x < W.wx; x += step_x) {
            const int xc = cols[x];
            if (live && xc >= 0)
                sasync_copy(win + r * W.ws + x, (xc & 1 ? hi : lo) + (xc >> 1));
            else
                win[r * W.ws + x] = 0.0f;
        }
    }
    sasync_commit();
}

/* x: @p tx samples of every window row (s1[wy][tx]), two neighbours a
 * thread: their windows overlap, read two values at a time. @p q0: the
 * weights of the tile's even samples. @p ROWS: FOR_ROWS, else FOR_TILE. */
template <int S, bool ROWS = false>
WT_DEV void sinverse_x(const cu_saxis &X, const float *win, const swindow &W, int tx, int q0,
                       float *s1)
{
    const int span = sspan<S>(X);
    const float *wa = X.w[q0], *wb = X.w[q0 ^ 1];
    auto pair = [&](int r, int t) {
        const float *p = win + r * W.ws + 2 * t;
        float a = 0.0f, b = 0.0f;
        if (S) {
#pragma unroll
            for (int j = 0; j <= S; j += 2) {
                const float2 v = *(const float2 *)(p + j);
                if (j < S)
                    a += wa[j] * v.x;
                if (j > 0)
                    b += wb[j - 1] * v.x;
                if (j + 1 < S)
                    a += wa[j + 1] * v.y;
                if (j < S)
                    b += wb[j] * v.y;
            }
        } else {
            for (int j = 0; j < span; j++) {
                a += wa[j] * p[j];
                b += wb[j] * p[j + 1];
            }
        }
        float2 ab; /* one 64-bit store: no 2-way bank conflict */
        ab.x = a;
        ab.y = b;
        *(float2 *)(s1 + r * tx + 2 * t) = ab;
    };
    if constexpr (ROWS) {
        FOR_ROWS(r, t, W.wy, tx / 2) pair(r, t);
    } else {
        FOR_TILE(r, t, W.wy, tx / 2) pair(r, t);
    }
}

/* y: the @p nt (at most CU_SRUN) samples of column @p v of s1 from row
 * @p u0 into @p o; @p q0: the weights of the tile's first row. */
template <int S>
WT_DEV void sinverse_y_run(const cu_saxis &Y, const float *s1, int tx, int q0, int u0, int nt,
                           int v, float o[CU_SRUN])
{
    const int span = sspan<S>(Y), end = nt - 1 + span, q = q0 ^ (u0 & 1);
    const float *col = s1 + u0 * tx + v;
#pragma unroll
    for (int r = 0; r < CU_SRUN; r++)
        o[r] = 0.0f;
#pragma unroll
    for (int k = 0; k < CU_SRUN - 1 + (S ? S : CU_STAPS); k++) {
        if (k >= end)
            break;
        const float x = col[k * tx];
#pragma unroll
        for (int r = 0; r < CU_SRUN; r++) {
            const int j = k - r;
            if (j >= 0 && j < span)
                o[r] += Y.w[q ^ (r & 1)][j] * x;
        }
    }
}

/* Rows of s1's tile a run of the y stage starts at, and how many it makes. */
WT_DEV int sinverse_run_rows(int e, int ty, int *u0)
{
    *u0 = e * CU_SRUN;
    return ty - *u0 < CU_SRUN ? ty - *u0 : CU_SRUN;
}

/* y: the samples of every column of s1 into the ring's plane, CU_SRUN a
 * thread; @p q0: the weights of the tile's first row. */
template <int S>
WT_DEV void sinverse_y(const cu_saxis &Y, const float *s1, int ty, int tx, int q0, float *out)
{
    const int runs = (ty + CU_SRUN - 1) / CU_SRUN;
    FOR_TILE(e, v, runs, tx) {
        int u0;
        const int nt = sinverse_run_rows(e, ty, &u0);
        float o[CU_SRUN];
        sinverse_y_run<S>(Y, s1, tx, q0, u0, nt, v, o);
#pragma unroll
        for (int r = 0; r < CU_SRUN; r++)
            if (r < nt)
                out[(u0 + r) * tx + v] = o[r];
    }
}

/* z: sample @p iz of the tile from the ring's planes (the oldest in slot
 * @p slot0) into the signal. */
template <int S>
WT_DEV void sinverse_z(const cu_slevel &L, size_t c, const float *ring, int slot0, int iz,
                       int iy0, int ix0, int ty, int tx)
{
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    const int span = sspan<S>(Z), plane = ty * tx;
    const float *w = Z.w[(iz + Z.s) & 1];
    FOR_TILE(u, v, ty, tx) {
        const int iy = iy0 + u, ix = ix0 + v;
        if (iy >= Y.n || ix >= X.n)
            continue;
        const float *p = ring + u * tx + v;
        float acc = 0.0f;
#pragma unroll
        for (int j = 0; j < (S ? S : CU_STAPS); j++) {
            if (j >= span)
                break;
            const int slot = slot0 + j < span ? slot0 + j : slot0 + j - span;
            acc += w[j] * p[slot * plane];
        }
        L.dst[((c * Z.n + iz) * (size_t)Y.n + iy) * X.n + ix] = acc;
    }
}

/* The z filter in registers (no ring): a thread keeps the partial sums of
 * the S - 1 samples along z its column's CU_SRUN rows still take planes
 * for, acc[r][k] the sample that has taken k + 1 planes (the plane i it
 * adds next is that sample's tap k + 1). Plane i (its y run @p o)
 * completes sample i - (S - 1) (written when i >= S - 1) and starts
 * sample i; the taps are added in the ring's order (the same sums). */
template <int S> struct szacc {
    float acc[CU_SRUN][S > 1 ? S - 1 : 1];
};

/* The y runs a thread keeps sums for: one on the GPU (szreg_fits), every
 * one of the block's in the emulation (one thread plays them all). */
#ifdef WT_CUDA_EMULATE
#define CU_SZSLOTS CU_STHREADS
#else
#define CU_SZSLOTS 1
#endif

/* The weights' parity of plane @p i along z: sample i - k takes
 * w[qi ^ (k & 1)][k]. */
WT_DEV int sinverse_zparity(const cu_saxis &Z, int iz0, int i)
{
    return (iz0 + i + Z.s) & 1;
}

template <int S>
WT_DEV void sinverse_zreg(const cu_slevel &L, size_t c, szacc<S> &Q, const float o[CU_SRUN],
                          int i, int qi, int iz0, int iy0, int ix, int nt)
{
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    const float *w0 = Z.w[qi], *w1 = Z.w[qi ^ 1];
    const int done = i - (S - 1), iz = iz0 + done;
#pragma unroll
    for (int r = 0; r < CU_SRUN; r++) {
        const float out = Q.acc[r][S - 2] + ((S - 1) & 1 ? w1 : w0)[S - 1] * o[r];
#pragma unroll
        for (int k = S - 2; k >= 1; k--)
            Q.acc[r][k] = Q.acc[r][k - 1] + (k & 1 ? w1 : w0)[k] * o[r];
        Q.acc[r][0] = w0[0] * o[r];
        const int iy = iy0 + r;
        if (done >= 0 && r < nt && iy < Y.n && ix < X.n)
            L.dst[((c * Z.n + iz) * (size_t)Y.n + iy) * X.n + ix] = out;
    }
}

/* y and z of plane @p i: the thread's y runs (FOR_TILE's pieces, slot k
 * the k-th) from s1, each into its sums along z (@p Q[k]). */
template <int S>
WT_DEV void sinverse_yz(const cu_slevel &L, size_t c, const float *s1, int i, const int i0[3],
                        int qy, szacc<S> Q[CU_SZSLOTS])
{
    const int ty = L.ax[1].tile, tx = L.ax[2].tile;
    const int runs = (ty + CU_SRUN - 1) / CU_SRUN, pieces = (tx + (int)blockDim.x - 1) / (int)blockDim.x;
#pragma unroll
    for (int k = 0; k < CU_SZSLOTS; k++) {
        const int piece = (int)threadIdx.y + k * (int)blockDim.y;
        if (piece >= runs * pieces)
            break;
        const int v = piece % pieces * (int)blockDim.x + (int)threadIdx.x;
        if (v >= tx)
            continue;
        int u0;
        const int nt = sinverse_run_rows(piece / pieces, ty, &u0);
        float o[CU_SRUN];
        sinverse_y_run<S>(L.ax[1], s1, tx, qy, u0, nt, v, o);
        sinverse_zreg<S>(L, c, Q[k], o, i, sinverse_zparity(L.ax[0], i0[0], i), i0[0],
                         i0[1] + u0, i0[2] + v, nt);
    }
}

/* Places the inverse window @p W (its wy, wx and ws set) at output tile
 * @p i0: its origin, its tables of scoef_at along y and x at @p tables
 * (shared; the block synced after) and whether every column is its own
 * coefficient (in_x). */
WT_DEV void sinverse_place(const cu_slevel &L, const int i0[3], int *tables, swindow &W)
{
    const cu_saxis &Y = L.ax[1], &X = L.ax[2];
    W.oy = i0[1] + Y.org;
    W.ox = i0[2] + X.org;
    W.inner = 0;
    int *rows = tables, *cols = rows + W.wy, own = 1;
    W.rows = rows, W.cols = cols;
    FOR_BLOCK(k, W.wy)
        rows[k] = scoef_at(Y, W.oy + k);
    FOR_BLOCK(k, W.wx) {
        cols[k] = scoef_at(X, W.ox + k);
        own &= cols[k] == W.ox + k && cols[k] >= 0;
    }
    W.in_x = WT_SYNC_AND(own);
}

/* Shared memory (floats) of an inverse block: the window's coefficient
 * tables, @p stages windows, the x pass, the ring (@p ring 0: the z filter
 * in registers). */
WT_HD static inline size_t sinverse_smem(int span, int ty, int tx, int stages, int ring, int *wy,
                                         int *ws)
{
    *wy = ty - 1 + span;
    *ws = (tx - 1 + span + 2) & ~1; /* even, one past: two values at a time */
    return stables(*wy, *ws) + (size_t)stages * *wy * *ws + (size_t)*wy * tx +
           (ring ? (size_t)span * ty * tx : 0);
}

/* @p ZREG: the z filter in registers (sinverse_zreg; S > 1, and at most one
 * y run a thread: szreg_fits), else through the ring of S planes. */
template <int S, bool ZREG>
WT_GLOBAL void WT_LAUNCH_BOUNDS_MIN(CU_STHREADS, ZREG && S <= 9 ? 3 : 2)
    vlevel_inverse(const WT_GRID_CONST cu_slevel L)
{
    WT_DYN_SMEM(float, smem);
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    size_t c;
    int i0[3];
    stile_of(L, &c, i0);
    const int span = sspan<S>(Z), ty = Y.tile, tx = X.tile;
    swindow W;
    sinverse_smem(span, ty, tx, L.stages, !ZREG, &W.wy, &W.ws);
    W.wx = tx - 1 + span;
    sinverse_place(L, i0, (int *)smem, W);
    const int wsize = W.wy * W.ws, stages = L.stages;
    float *win = smem + stables(W.wy, W.ws), *s1 = win + stages * wsize, *ring = s1 + W.wy * tx;
    const int iz1 = i0[0] + Z.tile < Z.n ? i0[0] + Z.tile : Z.n;
    const int m0 = i0[0] + Z.org, planes = iz1 - i0[0] - 1 + span;
    const int qy = (i0[1] + Y.s) & 1, qx = (i0[2] + X.s) & 1;
    szacc<S> Q[CU_SZSLOTS] = {}; /* ZREG (samples before the run's are summed, never written) */
    for (int j = 0; j < stages - 1 && j < planes; j++)
        sload_coefs(L, c, m0 + j, W, win + j * wsize);
    for (int i = 0; i < planes; i++) {
        const int ahead = i + stages - 1;
        if (ahead < planes)
            sload_coefs(L, c, m0 + ahead, W, win + (ahead % stages) * wsize);
        sasync_wait(splanes_pending(i, planes, stages));
        WT_SYNC();
        sinverse_x<S>(X, win + (i % stages) * wsize, W, tx, qx, s1);
        WT_SYNC();
        if constexpr (ZREG) { /* s1 is read until the next plane's barrier */
            sinverse_yz<S>(L, c, s1, i, i0, qy, Q);
            continue;
        }
        sinverse_y<S>(Y, s1, ty, tx, qy, ring + (size_t)(i % span) * ty * tx);
        WT_SYNC();
        const int first = i - (span - 1);
        if (first >= 0)
            sinverse_z<S>(L, c, ring, first % span, i0[0] + first, i0[1], i0[2], ty, tx);
    }
}

/* ---- inverse sweep ----------------------------------------------------------------
 *
 * vlevel_inverse's z filter in registers on a tile fixed at compile time
 * (CU_ISWEEP_TY x CU_ISWEEP_TX samples: a thread one CU_SRUN-row run of
 * one column, every stride a constant), its loops a warp a row
 * (FOR_ROWS, no divisions), and ssweep_run's schedule (one barrier a
 * plane, CU_VOL_SWEEP_STAGES window buffers). Filter banks of 2 to 12 taps
 * and JPEG 2000 kinds by convolution along the three axes, any size: the
 * order x, y, z of vlevel_inverse (z last holds (S - 1) x CU_SRUN sums a
 * thread; z first would hold S band pages x 8 bands of every position of
 * the tile's y/x halo, and filter that halo along z too). */

/* @p f(q) with the parity @p q (0 or 1) a compile-time constant: the
 * weights w[q][j] it reads are then operands of the FMAs (constant bank,
 * fixed offsets), not loads at a computed offset. */
template <typename F> WT_DEV void swith_parity(int q, F f)
{
    swith_index<2>(q, f);
}

/* Shared memory (floats) of an inverse sweep block: the window's tables,
 * @p stages windows, @p halves of the x pass. */
WT_HD static inline size_t sisweep_smem(int span, int stages, int halves, int *wy, int *ws)
{
    *wy = CU_ISWEEP_TY - 1 + span;
    *ws = (CU_ISWEEP_TX - 1 + span + 2) & ~1; /* even, one past: two values at a time */
    return stables(*wy, *ws) + (size_t)stages * *wy * *ws + (size_t)halves * *wy * CU_ISWEEP_TX;
}

/* @p S: the level's span (odd, 3 to 13); three blocks an SM to 9, two
 * past. @p ONE: one barrier a plane (ssweep_run). */
template <int S, bool ONE>
WT_GLOBAL void WT_LAUNCH_BOUNDS_MIN(CU_STHREADS, S <= 9 ? 3 : 2)
    vsweep_inverse(const WT_GRID_CONST cu_slevel L)
{
    static_assert(CU_ISWEEP_TY * CU_ISWEEP_TX == CU_SRUN * CU_STHREADS, "a run a thread");
    WT_DYN_SMEM(float, smem);
    sassume_block();
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    constexpr int ty = CU_ISWEEP_TY, tx = CU_ISWEEP_TX;
    size_t c;
    int i0[3];
    stile_of(L, &c, i0);
    swindow W;
    const int stages = L.stages;
    sisweep_smem(S, stages, ONE ? 2 : 1, &W.wy, &W.ws);
    W.wx = tx - 1 + S;
    sinverse_place(L, i0, (int *)smem, W);
    const int wsize = W.wy * W.ws, half = W.wy * tx;
    float *win = smem + stables(W.wy, W.ws), *s1 = win + stages * wsize;
    const int iz1 = i0[0] + Z.tile < Z.n ? i0[0] + Z.tile : Z.n;
    const int m0 = i0[0] + Z.org, planes = iz1 - i0[0] - 1 + S;
    const int qy = (i0[1] + Y.s) & 1, qx = (i0[2] + X.s) & 1;
    szacc<S> Q[CU_SZSLOTS] = {}; /* samples before the run's are summed, never written */
    auto load = [&](int j, int buf) { sload_coefs<true>(L, c, m0 + j, W, win + buf * wsize); };
    auto filter_x = [&](int j, int buf, int h) {
        (void)j;
        swith_parity(qx, [&](auto q) {
            sinverse_x<S, true>(X, win + buf * wsize, W, tx, decltype(q)::value, s1 + h * half);
        });
    };
    /* the parities of y (the tile's, u0 even) and z (the plane's) constants */
    auto rest = [&](int i, int h) {
        swith_parity(qy, [&](auto q) {
            swith_parity(sinverse_zparity(Z, i0[0], i), [&](auto qz) {
#pragma unroll
                for (int k = 0; k < CU_SZSLOTS; k++) {
                    const int t = (int)(threadIdx.y * blockDim.x + threadIdx.x) +
                                  k * (int)(blockDim.x * blockDim.y);
                    const int v = t % tx, u0 = t / tx * CU_SRUN;
                    if (u0 >= ty)
                        break;
                    float o[CU_SRUN];
                    sinverse_y_run<S>(Y, s1 + h * half, tx, decltype(q)::value, u0, CU_SRUN, v,
                                      o);
                    sinverse_zreg<S>(L, c, Q[k], o, i, decltype(qz)::value, i0[0], i0[1] + u0,
                                     i0[2] + v, CU_SRUN);
                }
            });
        });
    };
    ssweep_run<ONE>(planes, stages, load, filter_x, rest);
}

/* ---- 2-tap filters along the three axes: one thread a 2x2x2 cube ---------------------
 *
 * Filter banks of 2 taps (haar, db1, bior1.1, rbio1.1) read samples
 * 2k and 2k + 1 along each axis for output k (forward start 1, inverse
 * offset 0 in every mode), so a level is elementwise: a thread reads the
 * cube (2kz.., 2ky.., 2kx..) and writes output k of each of the 8 bands,
 * or (inverse) reads coefficient m of the 8 bands and writes the cube at
 * 2m. No halo, no shared memory: the volume read once and written once,
 * 8-byte loads (forward) or stores (inverse) along x where the rows are
 * 8-byte aligned, the band side 4 bytes a thread, coalesced. Only the last
 * cube of an odd axis reaches past the volume: its sample 2k + 1 = n is the
 * mode's extension (ssignal_at, forward), its sample 2m + 1 = n is not
 * written (inverse). */

/* Weights of each axis (z, y, x): g[a][p][j] multiplies cube sample j for
 * band parity p (forward: f_p[1 - j], out[k] = sum_j f[j] x[2k + 1 - j];
 * inverse: f_p[j], x[2m + j] = sum_p f_p[j] band_p[m]). */
typedef struct cu_vpair {
    float g[3][2][2];
} cu_vpair;

/* Outputs (forward) or coefficients (inverse) of a 2-tap axis. */
WT_HD static inline int spair_count(const cu_saxis *A)
{
    return A->nlo > A->nhi ? A->nlo : A->nhi;
}

#define CU_PAIR_TX 32 /* a block's outputs along x and y (32 x 8 threads) */
#define CU_PAIR_TY 8

/* The block's tile of cubes (x, y) and its channel and z, one cube a thread
 * (the emulation runs a block on one thread: it walks the tile). */
#define FOR_PAIR_TILE(ky, kx)                                                                      \
    for (int ky = (int)(blockIdx.y * CU_PAIR_TY + threadIdx.y),                                    \
             ky##_end = (int)((blockIdx.y + 1) * CU_PAIR_TY);                                      \
         ky < ky##_end; ky += (int)blockDim.y)                                                     \
        for (int kx = (int)(blockIdx.x * CU_PAIR_TX + threadIdx.x),                                \
                 kx##_end = (int)((blockIdx.x + 1) * CU_PAIR_TX);                                  \
             kx < kx##_end; kx += (int)blockDim.x)

/* The 2-point butterflies of one axis on v[.][.][2] along x (then y, z by
 * the caller's indexing): lo, hi from samples 0 and 1. */
WT_DEV void spair_mix(const float g[2][2], float a, float b, float *lo, float *hi)
{
    *lo = g[0][0] * a + g[0][1] * b;
    *hi = g[1][0] * a + g[1][1] * b;
}

/* Mixes the cube @p v (v[z][y][x]) along x, then y, then z with @p P's
 * weights: v[pz][py][px] afterwards (forward: band parities from samples;
 * inverse: samples from band parities, same shape). */
WT_DEV void spair_cube(const cu_vpair &P, float v[2][2][2])
{
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            spair_mix(P.g[2], v[a][b][0], v[a][b][1], &v[a][b][0], &v[a][b][1]);
    for (int a = 0; a < 2; a++)
        for (int e = 0; e < 2; e++)
            spair_mix(P.g[1], v[a][0][e], v[a][1][e], &v[a][0][e], &v[a][1][e]);
    for (int b = 0; b < 2; b++)
        for (int e = 0; e < 2; e++)
            spair_mix(P.g[0], v[0][b][e], v[1][b][e], &v[0][b][e], &v[1][b][e]);
}

/* 8-byte accesses (the emulation checks their alignment). */
WT_DEV float2 spair_load(const float *p)
{
#ifdef WT_CUDA_EMULATE
    wt_emu_check_aligned(p, sizeof(float2));
#endif
    return *(const float2 *)p;
}
WT_DEV void spair_store(float *p, float a, float b)
{
#ifdef WT_CUDA_EMULATE
    wt_emu_check_aligned(p, sizeof(float2));
#endif
    float2 v;
    v.x = a, v.y = b;
    *(float2 *)p = v;
}

/* The channel and output z of a block of a pair kernel (grid z: c * nz + k). */
WT_DEV void spair_cz(int nz, size_t *c, int *kz)
{
    *c = blockIdx.z / (unsigned)nz;
    *kz = (int)(blockIdx.z % (unsigned)nz);
}

/* The cube at (@p z, @p y, @p x) where it reaches past an odd axis's end
 * (the extension there): one ssignal_at at a time (not unrolled: the
 * kernel's common path keeps few registers). */
WT_DEV void spair_edge(const cu_slevel &L, size_t c, int z, int y, int x, float v[2][2][2])
{
    float w[8];
#pragma unroll 1
    for (int i = 0; i < 8; i++)
        w[i] = ssignal_at(L, c, z + (i >> 2), y + (i >> 1 & 1), x + (i & 1));
    for (int i = 0; i < 8; i++)
        v[i >> 2][i >> 1 & 1][i & 1] = w[i];
}

/* @p VEC: rows of the signal start 8-byte aligned (x even, the array
 * aligned): a cube row is one float2. */
template <bool VEC>
WT_GLOBAL void WT_LAUNCH_BOUNDS_MIN(CU_STHREADS, 4) vpair_forward(const WT_GRID_CONST cu_slevel L,
                                                          const WT_GRID_CONST cu_vpair P)
{
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    const int ny = spair_count(&Y), nx = spair_count(&X);
    size_t c;
    int kz;
    spair_cz(spair_count(&Z), &c, &kz);
    FOR_PAIR_TILE(ky, kx) {
        if (ky >= ny || kx >= nx)
            continue;
        const int z = 2 * kz, y = 2 * ky, x = 2 * kx;
        float v[2][2][2];
        if (z + 1 < Z.n && y + 1 < Y.n && x + 1 < X.n) {
            const float *s = L.src + ((c * Z.n + z) * (size_t)Y.n + y) * X.n + x;
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 2; b++) {
                    const float *row = s + ((size_t)a * Y.n + b) * X.n;
                    if (VEC) {
                        const float2 r = spair_load(row);
                        v[a][b][0] = r.x, v[a][b][1] = r.y;
                    } else {
                        v[a][b][0] = row[0], v[a][b][1] = row[1];
                    }
                }
        } else {
            spair_edge(L, c, z, y, x, v);
        }
        spair_cube(P, v);
        for (int pz = 0; pz < 2; pz++)
            for (int py = 0; py < 2; py++)
                for (int px = 0; px < 2; px++) {
                    const int bz = sband_len(Z, pz), by = sband_len(Y, py), bx = sband_len(X, px);
                    if (kz < bz && ky < by && kx < bx)
                        sband(L, pz, py, px)[((c * bz + kz) * (size_t)by + ky) * bx + kx] =
                            v[pz][py][px];
                }
    }
}

/* @p VEC: rows of the signal start 8-byte aligned (x even, the array
 * aligned): a cube row is one float2 where both samples exist. */
template <bool VEC>
WT_GLOBAL void WT_LAUNCH_BOUNDS_MIN(CU_STHREADS, 4) vpair_inverse(const WT_GRID_CONST cu_slevel L,
                                                          const WT_GRID_CONST cu_vpair P)
{
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    const int ny = spair_count(&Y), nx = spair_count(&X);
    size_t c;
    int mz;
    spair_cz(spair_count(&Z), &c, &mz);
    FOR_PAIR_TILE(my, mx) {
        if (my >= ny || mx >= nx)
            continue;
        float v[2][2][2];
        for (int pz = 0; pz < 2; pz++)
            for (int py = 0; py < 2; py++)
                for (int px = 0; px < 2; px++) {
                    const int bz = sband_len(Z, pz), by = sband_len(Y, py), bx = sband_len(X, px);
                    v[pz][py][px] =
                        mz < bz && my < by && mx < bx
                            ? sband(L, pz, py, px)[((c * bz + mz) * (size_t)by + my) * bx + mx]
                            : 0.0f;
                }
        spair_cube(P, v);
        const int z = 2 * mz, y = 2 * my, x = 2 * mx;
        float *d = L.dst + ((c * Z.n + z) * (size_t)Y.n + y) * X.n + x;
        for (int a = 0; a < 2 && z + a < Z.n; a++)
            for (int b = 0; b < 2 && y + b < Y.n; b++) {
                float *row = d + ((size_t)a * Y.n + b) * X.n;
                if (VEC && x + 1 < X.n) {
                    spair_store(row, v[a][b][0], v[a][b][1]);
                } else {
                    row[0] = v[a][b][0];
                    if (x + 1 < X.n)
                        row[1] = v[a][b][1];
                }
            }
    }
}

/* ---- planning and launch ---- */

/* Forward taps of one axis over its window (vaxis_of's filters); 0 when
 * they are longer than a level kernel holds. */
static int saxis_forward(const cu_vaxis &V, cu_saxis *A)
{
    int b0, b1; /* where each filter's window starts */
    float g0[CU_VTAPS], g1[CU_VTAPS];
    if (V.j2k) {
        b0 = -(V.ntaps0 / 2), b1 = 1 - V.ntaps1 / 2;
        for (int m = 0; m < V.ntaps0; m++)
            g0[m] = V.f0[m];
        for (int m = 0; m < V.ntaps1; m++)
            g1[m] = V.f1[m];
    } else { /* out[k] = sum_j f[j] ext(start + 2k - j): m = F - 1 - j */
        b0 = b1 = V.start - (V.ntaps0 - 1);
        for (int m = 0; m < V.ntaps0; m++) {
            g0[m] = V.f0[V.ntaps0 - 1 - m];
            g1[m] = V.f1[V.ntaps0 - 1 - m];
        }
    }
    A->org = b0 < b1 ? b0 : b1;
    const int end = b0 + V.ntaps0 > b1 + V.ntaps1 ? b0 + V.ntaps0 : b1 + V.ntaps1;
    A->span = end - A->org;
    if (A->span > CU_STAPS)
        return 0;
    for (int j = 0; j < A->span; j++) {
        const int m0 = j + A->org - b0, m1 = j + A->org - b1;
        A->w[0][j] = m0 >= 0 && m0 < V.ntaps0 ? g0[m0] : 0.0f;
        A->w[1][j] = m1 >= 0 && m1 < V.ntaps1 ? g1[m1] : 0.0f;
    }
    const int nout = V.nlo > V.nhi ? V.nlo : V.nhi;
    A->last = 2 * (nout - 1) + end - 1;
    return 1;
}

/* Inverse taps of one axis over its window: sample i is
 * sum_d u_q[d] J(i + s - d) for d from dmin (the passes' sum), the window
 * that sum reversed. */
static int saxis_inverse(const cu_vaxis &V, cu_saxis *A)
{
    const int R = V.ntaps0 > V.ntaps1 ? V.ntaps0 / 2 : V.ntaps1 / 2;
    const int dmin = V.j2k ? -R : -1, dlen = V.j2k ? 2 * R + 1 : V.ntaps0 + 1;
    if (dlen > CU_STAPS)
        return 0;
    A->s = V.j2k ? 0 : V.start;
    A->span = dlen;
    A->org = A->s - (dmin + dlen - 1);
    for (int q = 0; q < 2; q++)
        for (int j = 0; j < dlen; j++) {
            const int d = dmin + dlen - 1 - j, same = ((d - q) & 1) == 0;
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
            A->w[q][j] = w;
        }
    if (V.j2k && V.n == 1 && V.mode != WT_MODE_PERIODIZATION) {
        /* a one-sample signal is its own low-pass band (the passes' case):
         * sample 0 is J(0) alone, d = 0 */
        memset(A->w, 0, sizeof A->w);
        A->w[0][R] = 1.0f;
    }
    A->last = V.n - 1 + A->org + dlen - 1;
    return 1;
}

static size_t ssmem_bytes(int inverse, int span, int ty, int tx, int stages, int ring)
{
    int wy, ws;
    return (inverse ? sinverse_smem(span, ty, tx, stages, ring, &wy, &ws)
                    : sforward_smem(span, ty, tx, stages, &wy, &ws)) *
           sizeof(float);
}

/* Outputs along an axis of @p A in one direction. */
static int soutputs(const cu_saxis *A, int inverse)
{
    return inverse ? A->n : (A->nlo > A->nhi ? A->nlo : A->nhi);
}

/* The y and x tiles of @p L: the policy's, ty halved (then tx, not below
 * 16) until the block's shared memory fits @p budget bytes; an axis
 * shorter than a tile takes a tile its length (the inverse's x even). 0
 * when none fits. */
static int stiles_choose(const cu_policy *pol, cu_slevel *L, int inverse, size_t budget,
                         size_t *smem)
{
    cu_saxis *Y = &L->ax[1], *X = &L->ax[2];
    const int ny = soutputs(Y, inverse), nx = soutputs(X, inverse);
    int ty = inverse ? pol->vol_ty_inv : pol->vol_ty, tx = inverse ? pol->vol_tx_inv : pol->vol_tx;
    for (;;) {
        Y->tile = ty < ny ? ty : ny;
        X->tile = tx < nx ? tx : nx + (inverse && (nx & 1));
        *smem = ssmem_bytes(inverse, L->ax[0].span, Y->tile, X->tile, L->stages, 1);
        if (*smem <= budget)
            return 1;
        if (ty > 1)
            ty /= 2;
        else if (tx > 16)
            tx /= 2;
        else
            return 0;
    }
}

/* Plane steps of the slowest multiprocessor when @p across tiles are cut
 * into runs of @p len of @p nz outputs along z: the blocks go in waves of
 * @p resident, a block of a run walks its planes and the filter's halo
 * (@p step planes an output: forward 2, inverse 1) after CU_SRUN_FILL
 * steps of start (the first plane's copy, waited for). */
#define CU_SRUN_FILL 2
static double sruns_cost(size_t across, int nz, int len, int span, int step, double resident)
{
    const size_t blocks = across * (size_t)((nz + len - 1) / len);
    const double waves = (double)(size_t)((double)blocks / resident + 0.999999);
    return waves * (double)(step * (len - 1) + span + CU_SRUN_FILL);
}

/* The z runs: the length of at least CU_SRUN_MIN outputs (or the axis) that
 * finishes first by sruns_cost on @p resident blocks at once, the longest
 * of equals (the least halo). */
#define CU_SRUN_MIN 4
static void sruns_choose(cu_slevel *L, int inverse, double resident, int channels)
{
    for (int a = 1; a < 3; a++)
        L->tiles[a] = (unsigned)((soutputs(&L->ax[a], inverse) + L->ax[a].tile - 1) /
                                 L->ax[a].tile);
    const size_t across = (size_t)L->tiles[1] * L->tiles[2] * (size_t)channels;
    const int nz = soutputs(&L->ax[0], inverse), step = inverse ? 1 : 2, span = L->ax[0].span;
    resident = resident < 1.0 ? 1.0 : resident;
    int best = nz;
    double best_cost = sruns_cost(across, nz, nz, span, step, resident);
    for (int runs = 2; (nz + runs - 1) / runs >= CU_SRUN_MIN; runs++) {
        const int len = (nz + runs - 1) / runs;
        const double cost = sruns_cost(across, nz, len, span, step, resident);
        if (cost < best_cost)
            best = len, best_cost = cost;
    }
    L->ax[0].tile = best;
    L->tiles[0] = (unsigned)((nz + best - 1) / best);
}

/* Whether an inverse level's z filter can run in registers: an instance
 * unrolled for its span (vlevel_inverse_span), and every y run of the tile
 * on a thread of its own (a warp-wide piece of a run's columns a warp). */
static int szreg_fits(const cu_slevel *L)
{
    const int span = L->ax[0].span, ty = L->ax[1].tile, tx = L->ax[2].tile;
    const int runs = (ty + CU_SRUN - 1) / CU_SRUN, pieces = (tx + CU_SLANES - 1) / CU_SLANES;
    return span >= 3 && span <= 13 && (span & 1) && runs * pieces <= CU_SROWS;
}

/* The arrays of @p l in @p L: the signal, and the bands by (pz, py, px)
 * (key bit 2 - j for axes[j]). */
static void slevel_arrays(const wt_vlevel *l, cu_slevel *L)
{
    for (int i = 0; i < 8; i++) {
        int key = 0;
        for (int j = 0; j < 3; j++)
            key |= (i >> (2 - l->axes[j]) & 1) << (2 - j);
        L->band_of[i] = key;
        L->bands[i] = (float *)l->bands[i];
    }
    L->src = (const float *)l->sig;
    L->dst = (float *)l->sig;
}

/* The plan of the 2-tap kernels (vpair_*) for @p l: every axis a filter
 * bank of 2 taps by convolution, the grid (CU_PAIR_TX x CU_PAIR_TY cubes a
 * block across x and y, a block a channel and z) within CUDA's; 0 else. */
static int vpair_plan(const cu_engine *ce, const wt_vlevel *l, cu_slevel *L, cu_vpair *P)
{
    if (!ce->pol.vol_pair)
        return 0;
    memset(L, 0, sizeof *L);
    memset(P, 0, sizeof *P);
    for (int a = 0; a < 3; a++) {
        const wt_line *line = &l->lines[a];
        if (line->method != WT_METHOD_CONV || line->wavelet->kind == WT_KIND_JPEG2000 ||
            line->wavelet->filter_len != 2 || line->n < 1)
            return 0;
        const cu_vaxis V = vaxis_of(line, l->inverse);
        cu_saxis *A = &L->ax[a];
        A->n = V.n, A->nlo = V.nlo, A->nhi = V.nhi, A->mode = V.mode;
        if (!l->inverse && !saxis_forward(V, A)) /* org 0, last: ssignal_at */
            return 0;
        for (int p = 0; p < 2; p++)
            for (int j = 0; j < 2; j++)
                P->g[a][p][j] = (p ? V.f1 : V.f0)[l->inverse ? j : 1 - j];
    }
    slevel_arrays(l, L);
    const size_t gy = ((size_t)spair_count(&L->ax[1]) + CU_PAIR_TY - 1) / CU_PAIR_TY;
    const size_t gz = (size_t)spair_count(&L->ax[0]) * (size_t)l->channels;
    const size_t gx = ((size_t)spair_count(&L->ax[2]) + CU_PAIR_TX - 1) / CU_PAIR_TX;
    return gz >= 1 && gz <= 65535 && gy <= 65535 && gx <= 0x7fffffffu;
}

/* Levels the 2-tap kernels ran (wt_cuda_volume_pair_levels: tests see
 * that they take what they should). */
static long vpair_levels;

extern "C" long wt_cuda_volume_pair_levels(void)
{
    return vpair_levels;
}

/* The 2-tap kernel of one direction (@p VEC: 8-byte rows) on @p grid. */
template <bool VEC>
static void vpair_go(cu_engine *ce, const cu_slevel &L, const cu_vpair &P, int inverse,
                     dim3 grid, dim3 block)
{
    if (inverse)
        WT_LAUNCH(vpair_inverse<VEC>, grid, block, 0, ce->stream, L, P);
    else
        WT_LAUNCH(vpair_forward<VEC>, grid, block, 0, ce->stream, L, P);
}

/* The 2-tap kernel of @p L's direction, 8-byte rows where x is even and
 * the signal 8-byte aligned. */
static wt_status vpair_launch(cu_engine *ce, const cu_slevel &L, const cu_vpair &P, int inverse,
                              int channels)
{
    const cu_saxis &Z = L.ax[0], &Y = L.ax[1], &X = L.ax[2];
    const float *sig = inverse ? L.dst : L.src;
    const bool vec = X.n % 2 == 0 && (uintptr_t)sig % sizeof(float2) == 0;
    const dim3 grid((unsigned)((spair_count(&X) + CU_PAIR_TX - 1) / CU_PAIR_TX),
                    (unsigned)((spair_count(&Y) + CU_PAIR_TY - 1) / CU_PAIR_TY),
                    (unsigned)(spair_count(&Z) * channels)),
        block(CU_PAIR_TX, CU_PAIR_TY);
    if (vec)
        vpair_go<true>(ce, L, P, inverse, grid, block);
    else
        vpair_go<false>(ce, L, P, inverse, grid, block);
    CU_CHECK_CE(ce, cudaGetLastError());
    vpair_levels++;
    return WT_OK;
}

/* The level kernel's plan of @p l into @p L (@p smem bytes of shared
 * memory a block); 0 when it does not apply (the passes run it). */
static int splan(const cu_engine *ce, const wt_vlevel *l, cu_slevel *L, size_t *smem)
{
    memset(L, 0, sizeof *L);
    for (int a = 0; a < 3; a++) {
        if (l->lines[a].n < 4 || l->lines[a].method != WT_METHOD_CONV)
            return 0;
        const cu_vaxis V = vaxis_of(&l->lines[a], l->inverse);
        cu_saxis *A = &L->ax[a];
        A->n = V.n, A->nlo = V.nlo, A->nhi = V.nhi, A->mode = V.mode, A->j2k = V.j2k;
        if (!(l->inverse ? saxis_inverse(V, A) : saxis_forward(V, A)) ||
            A->span != L->ax[0].span) /* the kernels take one span */
            return 0;
    }
    if (!l->inverse && L->ax[0].span > ce->pol.vol_fwd_span)
        return 0; /* the passes (CU_VOL_FWD_SPAN) */
    L->stages = ce->pol.vol_stages;
    const size_t budget = ce->smem_limit < ce->pol.vol_smem ? ce->smem_limit : ce->pol.vol_smem;
    if (!stiles_choose(&ce->pol, L, l->inverse, budget, smem))
        return 0;
    L->zreg = l->inverse && !ce->pol.vol_zring && szreg_fits(L);
    if (L->zreg) /* no ring */
        *smem = ssmem_bytes(1, L->ax[0].span, L->ax[1].tile, L->ax[2].tile, L->stages, 0);
    slevel_arrays(l, L);
    /* the most blocks: z runs of one output */
    const size_t blocks = (size_t)soutputs(&L->ax[0], l->inverse) *
                          soutputs(&L->ax[1], l->inverse) * soutputs(&L->ax[2], l->inverse) *
                          (size_t)l->channels;
    return blocks > 0 && blocks <= 0x7fffffffu;
}

/* The sweep's instance for a span of 3 to CU_SWEEP_SPAN: the span rounded
 * up to one of 4, 6, 8, 9, 10, 12 (the taps past it zero). */
static int vsweep_instance(int span)
{
    return span == 9 ? 9 : (span + 1) & ~1;
}

/* The sweeps' plan of @p l into @p L (vsweep_forward or vsweep_inverse,
 * @p smem bytes of shared memory): filter banks and JPEG 2000 kinds by
 * convolution along the three axes whose span is 3 to CU_SWEEP_SPAN
 * (forward) or 3 to CU_ISWEEP_SPAN (inverse: odd), any size; 0 else (the
 * level kernel). */
static int vsweep_plan(const cu_engine *ce, const wt_vlevel *l, cu_slevel *L, size_t *smem)
{
    const int inverse = l->inverse;
    if (!(inverse ? ce->pol.vol_sweep_inverse : ce->pol.vol_sweep))
        return 0;
    memset(L, 0, sizeof *L);
    for (int a = 0; a < 3; a++) {
        if (l->lines[a].n < 1 || l->lines[a].method != WT_METHOD_CONV)
            return 0;
        const cu_vaxis V = vaxis_of(&l->lines[a], inverse);
        cu_saxis *A = &L->ax[a];
        A->n = V.n, A->nlo = V.nlo, A->nhi = V.nhi, A->mode = V.mode, A->j2k = V.j2k;
        if (!(inverse ? saxis_inverse(V, A) : saxis_forward(V, A)) ||
            A->span != L->ax[0].span)
            return 0;
    }
    const int span = L->ax[0].span, halves = ce->pol.vol_sweep_barriers == 1 ? 2 : 1;
    if (span < 3 || span > (inverse ? CU_ISWEEP_SPAN : CU_SWEEP_SPAN) || (inverse && !(span & 1)))
        return 0;
    int wy, ws;
    L->stages = ce->pol.vol_sweep_stages;
    L->border_rows = ce->pol.vol_sweep_rows;
    L->plain_x = ce->pol.vol_sweep_plain;
    *smem = (inverse ? sisweep_smem(span, L->stages, halves, &wy, &ws)
                     : ssweep_smem(vsweep_instance(span), L->stages, halves, &wy, &ws)) *
            sizeof(float);
    if (*smem > ce->smem_limit)
        return 0;
    L->ax[1].tile = inverse ? CU_ISWEEP_TY : CU_SWEEP_TY;
    L->ax[2].tile = inverse ? CU_ISWEEP_TX : CU_SWEEP_TX;
    slevel_arrays(l, L);
    const size_t blocks = (size_t)soutputs(&L->ax[0], inverse) *
                          ((soutputs(&L->ax[1], inverse) + L->ax[1].tile - 1) / L->ax[1].tile) *
                          ((soutputs(&L->ax[2], inverse) + L->ax[2].tile - 1) / L->ax[2].tile) *
                          (size_t)l->channels;
    return blocks > 0 && blocks <= 0x7fffffffu;
}

/* Levels the sweeps ran, forward and inverse (wt_cuda_volume_sweep_levels:
 * tests see that they take what they should). */
static long vsweep_levels[2];

extern "C" long wt_cuda_volume_sweep_levels(int inverse)
{
    return vsweep_levels[inverse != 0];
}

/* A level's kernel: the 2-tap one (pair), a sweep (sweep) or the
 * level kernel (@p smem bytes of shared memory). */
typedef struct cu_vlevel_plan {
    int pair, sweep;
    cu_slevel L;
    cu_vpair P;
    size_t smem;
} cu_vlevel_plan;

/* Whether a level kernel runs @p l (WT_CUDA_VOLUME=passes: the axis
 * passes for every level, to compare). */
static int vlevel_plan(const cu_engine *ce, const wt_vlevel *l, cu_vlevel_plan *v)
{
    const char *how = wt_env()->cuda_volume;
    if (how && !strcmp(how, "passes"))
        return 0;
    v->smem = 0;
    v->pair = vpair_plan(ce, l, &v->L, &v->P);
    v->sweep = !v->pair && vsweep_plan(ce, l, &v->L, &v->smem);
    return v->pair || v->sweep || splan(ce, l, &v->L, &v->smem);
}

/* The level ops of wt_volume_dwt_levels: one kernel a level where it fits. */
static int vlevel_takes(void *ctx, const wt_vlevel *l)
{
    cu_vlevel_plan v;
    return vlevel_plan((const cu_engine *)ctx, l, &v);
}

/* One instance of a level kernel: its shared memory allowed, the
 * z runs cut for the blocks the GPU holds at once, launched. */
template <typename K>
static wt_status slaunch(cu_engine *ce, K kernel, cu_slevel &L, int inverse, int channels,
                         size_t smem)
{
    CU_CHECK_CE(ce, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)smem));
    int per_sm = 1;
    CU_CHECK_CE(ce, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, CU_STHREADS,
                                                                  smem));
    const double resident = (double)ce->sms * (per_sm > 0 ? per_sm : 1);
    sruns_choose(&L, inverse, resident * ce->pol.vol_waves, channels);
    const size_t blocks = (size_t)L.tiles[0] * L.tiles[1] * L.tiles[2] * (size_t)channels;
    WT_LAUNCH(kernel, dim3((unsigned)blocks), dim3(CU_SLANES, CU_SROWS), smem, ce->stream, L);
    CU_CHECK_CE(ce, cudaGetLastError());
    return WT_OK;
}

/* The inverse's instance for @p span (3, 7, 9; with the z filter in
 * registers also 5, 11, 13: every filter bank of 2 to 12 taps; else the
 * span read at run time). */
template <bool ZREG>
static wt_status slaunch_inverse(cu_engine *ce, cu_slevel &L, int channels, size_t smem)
{
    switch (L.ax[0].span) {
    case 3: return slaunch(ce, vlevel_inverse<3, ZREG>, L, 1, channels, smem);
    case 7: return slaunch(ce, vlevel_inverse<7, ZREG>, L, 1, channels, smem);
    case 9: return slaunch(ce, vlevel_inverse<9, ZREG>, L, 1, channels, smem);
    default: break;
    }
    if (!ZREG) /* the ring: the span read at run time */
        return slaunch(ce, vlevel_inverse<0, false>, L, 1, channels, smem);
    switch (L.ax[0].span) { /* filter banks of 4, 10 and 12 taps: z in registers */
    case 5: return slaunch(ce, vlevel_inverse<5, true>, L, 1, channels, smem);
    case 11: return slaunch(ce, vlevel_inverse<11, true>, L, 1, channels, smem);
    default: return slaunch(ce, vlevel_inverse<13, true>, L, 1, channels, smem);
    }
}

/* The instance for the level's span: taps unrolled for the common ones
 * (forward haar 2, db3 6, sym4 8, cdf97 9; inverse haar 3, db3 7, cdf97 and
 * sym4 9), else the span read at run time. */
static wt_status slaunch_span(cu_engine *ce, cu_slevel &L, int inverse, int channels, size_t smem)
{
    const int span = L.ax[0].span;
    if (inverse)
        return L.zreg ? slaunch_inverse<true>(ce, L, channels, smem)
                      : slaunch_inverse<false>(ce, L, channels, smem);
    switch (span) {
    case 2: return slaunch(ce, vlevel_forward<2>, L, inverse, channels, smem);
    case 6: return slaunch(ce, vlevel_forward<6>, L, inverse, channels, smem);
    case 8: return slaunch(ce, vlevel_forward<8>, L, inverse, channels, smem);
    case 9: return slaunch(ce, vlevel_forward<9>, L, inverse, channels, smem);
    default: return slaunch(ce, vlevel_forward<0>, L, inverse, channels, smem);
    }
}

/* The sweep's instance for the level's span (forward: vsweep_instance;
 * inverse: the span, odd). */
/* The forward sweep of span @p S at the blocks an SM of the policy
 * (vol_sweep_blocks: 3 where built for, else 2). */
template <int S, bool ONE, bool RING>
static wt_status vsweep_forward_go(cu_engine *ce, cu_slevel &L, int channels, size_t smem)
{
    if constexpr (S <= CU_SWEEP_SPAN3)
        if (ce->pol.vol_sweep_blocks == 3)
            return slaunch(ce, vsweep_forward<S, ONE, RING, 3>, L, 0, channels, smem);
    return slaunch(ce, vsweep_forward<S, ONE, RING, 2>, L, 0, channels, smem);
}

template <bool ONE, bool RING>
static wt_status vsweep_go(cu_engine *ce, cu_slevel &L, int inverse, int channels, size_t smem)
{
    if (inverse)
        switch (L.ax[0].span) {
        case 3: return slaunch(ce, vsweep_inverse<3, ONE>, L, 1, channels, smem);
        case 5: return slaunch(ce, vsweep_inverse<5, ONE>, L, 1, channels, smem);
        case 7: return slaunch(ce, vsweep_inverse<7, ONE>, L, 1, channels, smem);
        case 9: return slaunch(ce, vsweep_inverse<9, ONE>, L, 1, channels, smem);
        case 11: return slaunch(ce, vsweep_inverse<11, ONE>, L, 1, channels, smem);
        default: return slaunch(ce, vsweep_inverse<13, ONE>, L, 1, channels, smem);
        }
    switch (vsweep_instance(L.ax[0].span)) {
    case 4: return vsweep_forward_go<4, ONE, RING>(ce, L, channels, smem);
    case 6: return vsweep_forward_go<6, ONE, RING>(ce, L, channels, smem);
    case 8: return vsweep_forward_go<8, ONE, RING>(ce, L, channels, smem);
    case 9: return vsweep_forward_go<9, ONE, RING>(ce, L, channels, smem);
    case 10: return vsweep_forward_go<10, ONE, RING>(ce, L, channels, smem);
    default: return vsweep_forward_go<12, ONE, RING>(ce, L, channels, smem);
    }
}

/* A sweep level (vol_sweep_barriers: one or two barriers a plane). */
static wt_status vsweep_launch(cu_engine *ce, cu_slevel &L, int inverse, int channels,
                               size_t smem)
{
    const int one = ce->pol.vol_sweep_barriers == 1, ring = ce->pol.vol_sweep_ring && !inverse;
    const wt_status st = one ? (ring ? vsweep_go<true, true>(ce, L, inverse, channels, smem)
                                     : vsweep_go<true, false>(ce, L, inverse, channels, smem))
                             : (ring ? vsweep_go<false, true>(ce, L, inverse, channels, smem)
                                     : vsweep_go<false, false>(ce, L, inverse, channels, smem));
    vsweep_levels[inverse != 0] += st == WT_OK;
    return st;
}

static wt_status vlevel_run(void *ctx, const wt_vlevel *l)
{
    cu_engine *ce = (cu_engine *)ctx;
    cu_vlevel_plan v;
    if (!vlevel_plan(ce, l, &v))
        return wt_error_set(WT_ERR_INVALID, "a volume level the level kernels do not take");
    if (v.pair)
        return vpair_launch(ce, v.L, v.P, l->inverse, l->channels);
    if (v.sweep)
        return vsweep_launch(ce, v.L, l->inverse, l->channels, v.smem);
    return slaunch_span(ce, v.L, l->inverse, l->channels, v.smem);
}

/* The engine's runner of wt_volume_dwt_levels: level kernels, else passes. */
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

/* One timed run of cu_vbench: every level, one direction. */
typedef struct vbench_job {
    cu_engine *ce;
    const wt_volume_spec *s;
    const vdevice *d;
    int inverse;
} vbench_job;

static wt_status vbench_run(const void *job)
{
    const vbench_job *j = (const vbench_job *)job;
    return vlevels_device(j->ce, j->s, j->d, j->inverse);
}

wt_status cu_vbench(cu_engine *ce, const wt_volume_spec *s, const size_t shape[3], int inverse,
                    int repeat, size_t copy_bytes, wt_cuda_timing *timing)
{
    wt_vcoeffs c;
    WT_TRY(wt_volume_plan(s, shape, 1, &c));
    if (!wt_volume_engine_takes(s, c.levels))
        return wt_error_set(WT_ERR_UNSUPPORTED, "device-resident timing of a volume's "
                                                "transform with at least one level only");
    CU_CHECK(cudaSetDevice(ce->device));
    if (s->transform != WT_TRANSFORM_DWT)
        return cu_uvbench(ce, s, &c, inverse, repeat, copy_bytes, timing);
    vdevice d;
    WT_TRY(vdevice_alloc(ce, s, &c, &d));
    memset(timing, 0, sizeof *timing);
    const vbench_job job = {ce, s, &d, inverse};
    wt_status st = fill_random(ce, d.mem, volume_elems(shape, 1), 12345u);
    if (st == WT_OK) /* real bands for the inverse */
        st = vlevels_device(ce, s, &d, 0);
    if (st == WT_OK)
        st = cu_time_runs(ce, vbench_run, &job, repeat, &timing->ms, &timing->ms_min);
    if (st == WT_OK) /* the copy reads the samples and what follows them (bands, work areas) */
        st = cu_time_device_copy(ce, d.mem, copy_bytes < d.bytes ? copy_bytes : d.bytes, repeat,
                                 timing);
    if (st == WT_OK)
        st = cu_fail_check(cudaStreamSynchronize(ce->stream), "cudaStreamSynchronize");
    cu_device_free(ce, d.mem, d.bytes);
    return st;
}
