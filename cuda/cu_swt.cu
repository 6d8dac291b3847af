/* The CUDA engine's undecimated transforms (SWT and starlet): all levels on
 * the device, both axes of a level fused in one kernel.
 *
 * The filtering is src/undecimated.c's: out[o] = sum_k f[k] * in[map(o +
 * start[k])] along each axis, map the border (periodic for the SWT; mirror,
 * periodic or nearest for the starlet). A block owns a tile of TY x 32
 * outputs. Phase 1 filters each source row the tile's column taps need
 * (TY + (F-1) min(step, TY) rows) along x once into shared memory (two
 * planes: low and high, or the two sums of the inverse; the starlet one),
 * reading the row
 * without border arithmetic where the tile's taps lie inside it; phase 2
 * filters along y from shared memory and writes every band of the tile. So
 * a level reads its input once from DRAM (the taps' re-reads hit L1/L2) and
 * writes its outputs once. That is ulevel_kernel; ucol_kernel (below) does the
 * axes the other way round, each column's samples in registers, for the
 * SWT inverse (CU_UYFIRST in cu_tuning.h; dev/notes/kernel-log.md has the figures).
 *
 * Filters longer than CU_UTAPS taps (dmey, db17+, ...) and planes of 2^29
 * samples or more per side run on the host implementation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cu_engine.h"
#include "transform.h"
#include "undecimated_geometry.h"

#define CU_UTAPS 32
/* CU_UTX, CU_UTY_MAX, CU_UTHREADS, CU_USMEM: cu_tuning.h */

enum { UMODE_SWT_FORWARD = 0, UMODE_SWT_INVERSE = 1, UMODE_STARLET = 2 };

/* One axis of one level: tap m reads source index map(o + off + (nt-1-m)*step)
 * for output o (off = the first tap's true offset, negative or past the end
 * before the border map). */
typedef struct cu_uaxis {
    int border; /* wt_border */
    int n, period, step; /* step: the level's, reduced to read the same samples */
    long long off;
} cu_uaxis;

/* A tile's source rows: slot u of shared memory holds source row
 * y0 + off + (u % g) + (u / g) * step, g = min(step, ty) (y's step); output row i and
 * column tap k read slot i + (nt-1-k) * g. So a tile filters each source row
 * it needs along x once (ty + (nt-1) g rows, against nt ty before). */
typedef struct cu_ulevel {
    int ntaps, ty, g, rows;
    float f0[CU_UTAPS], f1[CU_UTAPS];
    cu_uaxis x, y;
} cu_ulevel;

/* Source index of the true index @p t (src/undecimated.c's borders). */
WT_DEV int umap_true(const cu_uaxis &a, long long t)
{
    if (a.border == WT_BORDER_PERIODIC) {
        long long r = t % a.n;
        return (int)(r < 0 ? r + a.n : r);
    }
    if (a.border == WT_BORDER_MIRROR) {
        long long r = t % a.period;
        r = r < 0 ? r + a.period : r;
        return (int)(r < a.n ? r : a.period - r);
    }
    return t < 0 ? 0 : (t >= a.n ? a.n - 1 : (int)t); /* nearest */
}

/* Row @p row filtered along x at column @p x by f0 and f1; @p inside: every
 * tap of the block's columns lies in the row (no border map). */
template <int NT>
WT_DEV void row_taps(const cu_ulevel &L, const float *__restrict__ row, int x, bool inside,
                     float *lo, float *hi)
{
    float s0 = 0.0f, s1 = 0.0f;
    const int nt = NT > 0 ? NT : L.ntaps, step = L.x.step;
    if (inside) {
        const float *p = row + (long long)x + L.x.off + (long long)(nt - 1) * step;
#pragma unroll
        for (int m = 0; m < nt; m++) {
            float v = p[-(long long)m * step];
            s0 += L.f0[m] * v;
            s1 += L.f1[m] * v;
        }
    } else {
        for (int m = 0; m < nt; m++) {
            float v = row[umap_true(L.x, x + L.x.off + (long long)(nt - 1 - m) * step)];
            s0 += L.f0[m] * v;
            s1 += L.f1[m] * v;
        }
    }
    *lo = s0;
    *hi = s1;
}

/* The outputs at offset @p o of a level from its four sums (low/high along
 * y, then x: aa = low-low, ...): the SWT forward's 4 bands; the inverse aa +
 * dd; the starlet's c_j = aa and w_j = c_{j-1} - c_j. */
template <int MODE>
WT_DEV void ustore(size_t o, float aa, float da, float ad, float dd, const float *in0, float *out0,
                   float *out1, float *out2, float *out3)
{
    if (MODE == UMODE_SWT_FORWARD) {
        out0[o] = aa; /* cA */
        out1[o] = da; /* cH: high-pass along y */
        out2[o] = ad; /* cV */
        out3[o] = dd; /* cD */
    } else if (MODE == UMODE_SWT_INVERSE) {
        out0[o] = aa + dd;
    } else {
        out0[o] = aa;
        out1[o] = in0[o] - aa;
    }
}

/* One level of one channel (blockIdx.z) for a tile of L.ty x CU_UTX outputs;
 * NT > 0: the tap count known at compile time (loops unrolled). */
template <int MODE, int NT>
WT_GLOBAL void WT_LAUNCH_BOUNDS(MODE == UMODE_SWT_INVERSE ? CU_UTHREADS_INV : CU_UTHREADS)
    ulevel_kernel(const WT_GRID_CONST cu_ulevel L, const float *in0, const float *in1,
                  const float *in2, const float *in3, float *out0, float *out1, float *out2,
                  float *out3, size_t plane)
{
    WT_DYN_SMEM(float, smem);
    const int ty = L.ty, nt = NT > 0 ? NT : L.ntaps, h = L.y.n, w = L.x.n, rows = L.rows;
    const int g = L.g;
    /* the starlet's one plane (its row filter has no high-pass) */
    float *s0 = smem, *s1 = smem + (MODE == UMODE_STARLET ? 0 : (size_t)rows * CU_UTX);
    int *srow = (int *)(s1 + (size_t)rows * CU_UTX); /* source row of each slot */
    const int y0 = (int)blockIdx.y * ty, x0 = (int)blockIdx.x * CU_UTX;
    const size_t zc = (size_t)blockIdx.z * plane;
    const int tid = (int)(threadIdx.y * blockDim.x + threadIdx.x);
    const int nthreads = (int)(blockDim.x * blockDim.y);
    const long long xlo = x0 + L.x.off;
    const long long xhi = xlo + (CU_UTX - 1) + (long long)(nt - 1) * L.x.step;
    const bool inside = xlo >= 0 && xhi < w;
    for (int u = tid; u < rows; u += nthreads)
        srow[u] = umap_true(L.y, (long long)y0 + L.y.off + u % g + (long long)(u / g) * L.y.step);
    WT_SYNC();
    /* phase 1: every source row of the tile, filtered along x */
    for (int e = tid; e < rows * CU_UTX; e += nthreads) {
        int j = e % CU_UTX, u = e / CU_UTX, x = x0 + j;
        float a = 0.0f, b = 0.0f;
        if (x < w) {
            size_t r = (size_t)srow[u] * (size_t)w;
            if (MODE == UMODE_SWT_INVERSE) { /* S0 = R(f0) A + R(f1) V, S1 = R(f0) H + R(f1) D */
                float al, ah, vl, vh, hl, hh, dl, dh;
                row_taps<NT>(L, in0 + zc + r, x, inside, &al, &ah);
                row_taps<NT>(L, in2 + zc + r, x, inside, &vl, &vh);
                row_taps<NT>(L, in1 + zc + r, x, inside, &hl, &hh);
                row_taps<NT>(L, in3 + zc + r, x, inside, &dl, &dh);
                a = al + vh;
                b = hl + dh;
            } else {
                row_taps<NT>(L, in0 + zc + r, x, inside, &a, &b);
            }
        }
        s0[e] = a;
        if (MODE != UMODE_STARLET)
            s1[e] = b;
    }
    WT_SYNC();
    /* phase 2: along y from shared memory, every band of the tile */
    for (int e = tid; e < ty * CU_UTX; e += nthreads) {
        int j = e % CU_UTX, i = e / CU_UTX;
        int y = y0 + i, x = x0 + j;
        if (y >= h || x >= w)
            continue;
        float ll = 0.0f, lh = 0.0f, hl = 0.0f, hh = 0.0f;
#pragma unroll
        for (int k = 0; k < nt; k++) {
            int u = i + (nt - 1 - k) * g;
            float p = s0[u * CU_UTX + j], q = s1[u * CU_UTX + j];
            ll += L.f0[k] * p;
            lh += L.f1[k] * p;
            hl += L.f0[k] * q;
            hh += L.f1[k] * q;
        }
        /* inverse: C(f0) S0 + C(f1) S1 */
        ustore<MODE>(zc + (size_t)y * (size_t)w + (size_t)x, ll, lh, hl, hh, in0, out0, out1,
                     out2, out3);
    }
}

/* ---- v4: columns first (y-first) ----------------------------------------
 * The same level with the axes swapped: phase 1 filters each column slot the
 * tile's row taps need along y, a thread walking down a chain of up to
 * CU_USEG outputs of one column (rows i0, i0 + g, ...) with the column taps
 * in registers, so each source sample is loaded once per chain (F - 1 extra
 * per chain) instead of once per tap; phase 2 filters along x from shared
 * memory. Column slots fold like the row slots of ulevel_kernel: slot c holds
 * source column x0 + off + (c % gx) + (c / gx) * step, gx = min(step, tx). With
 * CU_UFIT the tile is as wide as leaves CU_UTXC column slots (tx = CU_UTXC -
 * (F - 1) step), so that phase 1's chains fill whole rounds of the block.
 * The SWT inverse filters its 4 planes along y into the 2 sums
 * T0 = C(f0) A + C(f1) H and T1 = C(f0) V + C(f1) D, then
 * out = R(f0) T0 + R(f1) T1. Tap counts known at compile time only. */
typedef struct cu_ucols {
    int ty, g, rows; /* tile height, row fold, row slots */
    int tx, gx, cols; /* tile width, column fold, column slots */
} cu_ucols;

/* Source index of slot @p u of an axis folded by @p g from the tile origin @p base. */
WT_DEV long long uslot_true(const cu_uaxis &a, long long base, int u, int g)
{
    return base + a.off + u % g + (long long)(u / g) * a.step;
}

/* Phase 1 of one chain: column @p xs (source index, mapped), rows i0, i0 + g,
 * ... (@p len of them; FULL: CU_USEG, the loop without exits so that the
 * compiler may issue the chain's loads together), each filtered along y into
 * shared memory. */
template <int MODE, int NT, bool FULL>
WT_DEV void ucol_chain(const cu_ulevel &L, const cu_ucols &C, const float *const in[4],
                       size_t xs, int y0, int i0, int len, bool rows_inside, const int *srow,
                       float *p0, float *p1)
{
    constexpr int NP = MODE == UMODE_SWT_INVERSE ? 4 : 1;
    const size_t w = (size_t)L.x.n;
    float win[NP][NT];
    /* source row of window position j of chain element 0 (j < NT + CU_USEG - 1) */
    const long long base = (long long)y0 + L.y.off + i0;
#define UROW(j) (rows_inside ? (size_t)(base + (long long)(j) * L.y.step) : (size_t)srow[i0 + (j) * C.g])
#pragma unroll
    for (int j = 0; j < NT - 1; j++)
#pragma unroll
        for (int q = 0; q < NP; q++)
            win[q][j + 1] = in[q][UROW(j) * w + xs];
#pragma unroll
    for (int k = 0; k < CU_USEG; k++) {
        if (!FULL && k >= len)
            break;
#pragma unroll
        for (int q = 0; q < NP; q++) {
#pragma unroll
            for (int j = 0; j < NT - 1; j++)
                win[q][j] = win[q][j + 1];
            win[q][NT - 1] = in[q][UROW(k + NT - 1) * w + xs];
        }
        float a = 0.0f, b = 0.0f;
        if (MODE == UMODE_SWT_INVERSE) { /* T0 = C(f0) A + C(f1) H, T1 = C(f0) V + C(f1) D */
            float al = 0.0f, hh = 0.0f, vl = 0.0f, dh = 0.0f;
#pragma unroll
            for (int m = 0; m < NT; m++) {
                al += L.f0[m] * win[0][NT - 1 - m];
                hh += L.f1[m] * win[1][NT - 1 - m];
                vl += L.f0[m] * win[2][NT - 1 - m];
                dh += L.f1[m] * win[3][NT - 1 - m];
            }
            a = al + hh;
            b = vl + dh;
        } else {
#pragma unroll
            for (int m = 0; m < NT; m++) {
                a += L.f0[m] * win[0][NT - 1 - m];
                if (MODE == UMODE_SWT_FORWARD)
                    b += L.f1[m] * win[0][NT - 1 - m];
            }
        }
        const int slot = (i0 + k * C.g) * C.cols;
        p0[slot] = a;
        if (MODE != UMODE_STARLET)
            p1[slot] = b;
    }
#undef UROW
}

/* Phase 2 for one output: the column slots @p r0, @p r1 (shared memory, the
 * output's first tap) filtered along x into the bands at offset @p o. */
template <int MODE, int NT>
WT_DEV void ucol_output(const cu_ulevel &L, int gx, const float *r0, const float *r1, size_t o,
                        const float *in0, float *out0, float *out1, float *out2, float *out3)
{
    float s00 = 0.0f, s01 = 0.0f, s10 = 0.0f, s11 = 0.0f;
#pragma unroll
    for (int m = 0; m < NT; m++) {
        const int u = (NT - 1 - m) * gx;
        const float p = r0[u];
        s00 += L.f0[m] * p;
        if (MODE != UMODE_STARLET) {
            const float q = r1[u];
            s01 += L.f1[m] * p;
            s10 += L.f0[m] * q;
            s11 += L.f1[m] * q;
        }
    }
    /* cA = R(f0) C(f0), cH = R(f0) C(f1), ...; inverse: R(f0) T0 + R(f1) T1 */
    ustore<MODE>(o, s00, s10, s01, s11, in0, out0, out1, out2, out3);
}

/* One level of one channel (blockIdx.z) for a tile of C.ty x C.tx outputs. */
template <int MODE, int NT>
WT_GLOBAL void WT_LAUNCH_BOUNDS_MIN(CU_UTHREADS, CU_UCOL_BLOCKS)
    ucol_kernel(const WT_GRID_CONST cu_ulevel L, const WT_GRID_CONST cu_ucols C,
                const float *__restrict__ in0, const float *__restrict__ in1,
                const float *__restrict__ in2, const float *__restrict__ in3, float *out0,
                float *out1, float *out2, float *out3, size_t plane)
{
    WT_DYN_SMEM(float, smem);
    const int ty = C.ty, h = L.y.n, w = L.x.n, cols = C.cols;
    const size_t pl = (size_t)ty * (size_t)cols;
    float *p0 = smem, *p1 = smem + (MODE == UMODE_STARLET ? 0 : pl);
    int *srow = (int *)(smem + (MODE == UMODE_STARLET ? 1 : 2) * pl);
    const int y0 = (int)blockIdx.y * ty, x0 = (int)blockIdx.x * C.tx;
    const size_t zc = (size_t)blockIdx.z * plane;
    const float *const in[4] = {in0 + zc, in1 ? in1 + zc : in1, in2 ? in2 + zc : in2,
                                in3 ? in3 + zc : in3};
    const int tid = (int)(threadIdx.y * blockDim.x + threadIdx.x);
    const int nthreads = (int)(blockDim.x * blockDim.y);
    const long long ylo = (long long)y0 + L.y.off;
    const bool rows_inside = ylo >= 0 && ylo + (ty - 1) + (long long)(NT - 1) * L.y.step < h;
    const long long xlo = (long long)x0 + L.x.off;
    const bool cols_inside = xlo >= 0 && xlo + (C.tx - 1) + (long long)(NT - 1) * L.x.step < w;
    if (!rows_inside)
        for (int u = tid; u < C.rows; u += nthreads)
            srow[u] = umap_true(L.y, uslot_true(L.y, y0, u, C.g));
    WT_SYNC();
    /* phase 1: chains of column slots along y; chain t starts at row
     * (t / g) * CU_USEG * g + t % g of the tile */
    const int chains = (ty + CU_USEG * C.g - 1) / (CU_USEG * C.g) * C.g;
    for (int e = tid; e < chains * cols; e += nthreads) {
        const int c = e % cols, t = e / cols;
        const int i0 = t / C.g * CU_USEG * C.g + t % C.g;
        if (i0 >= ty)
            continue;
        const int len = (ty - 1 - i0) / C.g + 1;
        const long long xt = uslot_true(L.x, x0, c, C.gx);
        const size_t xs = (size_t)(cols_inside ? xt : umap_true(L.x, xt));
        if (CU_UFULL && len >= CU_USEG)
            ucol_chain<MODE, NT, true>(L, C, in, xs, y0, i0, len, rows_inside, srow, p0 + c, p1 + c);
        else
            ucol_chain<MODE, NT, false>(L, C, in, xs, y0, i0, len, rows_inside, srow, p0 + c,
                                        p1 + c);
    }
    WT_SYNC();
    /* phase 2: along x from shared memory, every band of the tile; a warp per
     * row (no division by the tile width) */
    const int lanes = nthreads < 32 ? nthreads : 32;
    for (int e = tid; e < ty * lanes; e += nthreads) {
        const int i = e / lanes, y = y0 + i;
        if (y >= h)
            break;
        for (int j = e % lanes; j < C.tx && x0 + j < w; j += lanes)
            ucol_output<MODE, NT>(L, C.gx, p0 + (size_t)i * cols + j, p1 + (size_t)i * cols + j,
                                  zc + (size_t)y * (size_t)w + (size_t)(x0 + j), in0, out0, out1,
                                  out2, out3);
    }
}

/* out = c_L + w_L + ... + w_1, each channel (the host's order). */
WT_GLOBAL void starlet_sum_kernel(const float *stack, int levels, size_t band, float *out)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < band; i += stride) {
        float s = stack[i];
        for (int j = levels; j >= 1; j--)
            s += stack[(size_t)j * band + i];
        out[i] = s;
    }
}

/* ---- host side ------------------------------------------------------------------ */

static cu_uaxis uaxis_of(wt_border border, size_t n)
{
    cu_uaxis a;
    memset(&a, 0, sizeof a);
    a.border = border;
    a.n = (int)n;
    a.period = border == WT_BORDER_MIRROR ? (n > 1 ? 2 * (int)n - 2 : 1) : (int)n;
    return a;
}

/* The first tap's offset and the step of @p a, made small and read the same
 * samples: periodic borders repeat every period (a step of 0 mod the period
 * becomes the period); with the nearest border a step of n or more puts every
 * tap but the centre one past the same end as a step of n does. */
static void uaxis_place(cu_uaxis *a, long long off, long long step)
{
    if (a->border == WT_BORDER_NEAREST) {
        long long s = step < a->n ? step : a->n;
        a->off = off / step * s; /* off is a multiple of step */
        a->step = (int)s;
        return;
    }
    a->off = off % a->period;
    a->step = (int)(step % a->period ? step % a->period : a->period);
}

/* Rows of a tile of @p ty outputs (see cu_ulevel). */
static int urows(int ntaps, long long step, int ty)
{
    long long g = step < ty ? step : ty;
    return (int)(ty + (ntaps - 1) * g);
}

/* Shared memory of a tile of @p rows source rows: @p planes planes (the
 * starlet 1, the SWT 2) and the rows' indices. */
static size_t usmem_bytes(int rows, int planes)
{
    return (size_t)rows * (planes * CU_UTX * sizeof(float) + sizeof(int));
}

/* The tallest tile (at most @p ty_max rows, at least 1) whose planes of
 * filtered rows fit in @p usmem bytes; 0 when not even one row fits. */
static int utile_height(int ntaps, long long step, size_t h, int planes, int ty_max, size_t usmem)
{
    int ty = ty_max;
    while (ty > 1 && (size_t)ty / 2 >= h)
        ty /= 2;
    for (; ty >= 1; ty /= 2)
        if (usmem_bytes(urows(ntaps, step, ty), planes) <= usmem)
            return ty;
    return 0;
}

/* Level @p j (1-based) of @p p: taps, gains, offsets and the tile height
 * (the policy's uty, uty_starlet, usmem). */
static cu_ulevel ulevel_of(const cu_policy *q, const wt_uparams *p, int j, int inverse, size_t h,
                           size_t w)
{
    cu_ulevel L;
    memset(&L, 0, sizeof L);
    const long long step = wt_utap_step(j);
    long long shift;
    const int b3 = wt_ub3_kernel(p);
    L.x = uaxis_of(wt_uborder(p), w);
    L.y = uaxis_of(wt_uborder(p), h);
    if (b3) {
        double kernel[WT_STARLET_TAPS];
        wt_starlet_kernel(kernel);
        L.ntaps = WT_STARLET_TAPS;
        for (int k = 0; k < WT_STARLET_TAPS; k++)
            L.f0[k] = (float)kernel[k];
        shift = wt_starlet_shift(step);
    } else {
        const wt_wavelet *wl = p->wavelet;
        const long long F = wl->filter_len;
        const double g = wt_swt_gain(p->norm, inverse);
        L.ntaps = (int)F;
        for (int k = 0; k < (int)F; k++) {
            L.f0[k] = (float)((inverse ? wl->rec_lo : wl->dec_lo)[k] * g);
            L.f1[k] = (float)((inverse ? wl->rec_hi : wl->dec_hi)[k] * g);
        }
        shift = wt_swt_shift(F, step, inverse);
    }
    uaxis_place(&L.x, shift - (L.ntaps - 1) * step, step);
    uaxis_place(&L.y, shift - (L.ntaps - 1) * step, step);
    L.ty = utile_height(L.ntaps, L.y.step, h, b3 ? 1 : 2, b3 ? q->uty_starlet : q->uty, q->usmem);
    L.g = L.y.step < L.ty ? L.y.step : L.ty;
    L.rows = L.ty ? urows(L.ntaps, L.g, L.ty) : 0;
    return L;
}

static int gpu_takes(const wt_uparams *p, size_t h, size_t w)
{
    return wt_utaps(p) <= CU_UTAPS && h < (1u << 29) && w < (1u << 29);
}

/* Shared memory of a column-first tile: @p planes planes of column slots and
 * the row indices. */
static size_t ucols_smem(const cu_ucols &C, int planes)
{
    return (size_t)planes * C.ty * C.cols * sizeof(float) + (size_t)C.rows * sizeof(int);
}

/* The column-first kernel's tile for level @p L: q->utxc column slots, the
 * tallest (at most q->uty rows) whose planes of column slots and row indices
 * fit in q->usmem; ty 0 when none does. */
static cu_ucols ucols_of(const cu_policy *q, const cu_ulevel &L, int planes)
{
    cu_ucols C;
    memset(&C, 0, sizeof C);
    const int halo = L.ntaps - 1;
    const int slots = q->utxc;
    if (!CU_UFIT)
        C.tx = slots;
    else if ((long long)(halo + 1) * L.x.step <= slots)
        C.tx = slots - halo * (int)L.x.step; /* at least one step wide: gx = step */
    else
        C.tx = slots / L.ntaps; /* taps a tile or more apart: gx = tx */
    C.gx = L.x.step < C.tx ? L.x.step : C.tx;
    C.cols = C.tx + halo * C.gx;
    int ty = q->uty;
    while (ty > 1 && ty / 2 >= L.y.n)
        ty /= 2;
    for (; ty >= 1; ty /= 2) {
        C.ty = ty;
        C.g = L.y.step < ty ? L.y.step : ty;
        C.rows = urows(L.ntaps, L.y.step, ty);
        if (ucols_smem(C, planes) <= q->usmem)
            return C;
    }
    C.ty = 0;
    return C;
}

typedef void (*ulevel_fn)(const cu_ulevel, const float *, const float *, const float *,
                          const float *, float *, float *, float *, float *, size_t);
typedef void (*ucol_fn)(const cu_ulevel, const cu_ucols, const float *, const float *,
                        const float *, const float *, float *, float *, float *, float *, size_t);

/* The column-first kernel of @p ntaps taps, NULL where it has none (tap
 * counts not unrolled, or the mode not chosen in CU_UYFIRST). */
template <int MODE>
static ucol_fn ucol_kernel_of(int ntaps)
{
    if (!(CU_UYFIRST & (1 << MODE)))
        return NULL;
    switch (ntaps) {
    case 2: return ucol_kernel<MODE, 2>;
    case 4: return ucol_kernel<MODE, 4>;
    case 5: return ucol_kernel<MODE, 5>;
    case 6: return ucol_kernel<MODE, 6>;
    case 8: return ucol_kernel<MODE, 8>;
    default: return NULL;
    }
}

template <int MODE>
static wt_status launch_level(cu_engine *ce, const cu_ulevel &L, int channels, const float *in[4],
                              float *out[4], size_t plane)
{
    size_t h = (size_t)L.y.n, w = (size_t)L.x.n;
    ucol_fn colk = ucol_kernel_of<MODE>(L.ntaps);
    cu_ucols C = colk ? ucols_of(&ce->pol, L, MODE == UMODE_STARLET ? 1 : 2) : cu_ucols{};
    if (colk && C.ty > 0) {
        dim3 grid((unsigned)((w + C.tx - 1) / C.tx), (unsigned)((h + C.ty - 1) / C.ty),
                  (unsigned)channels);
        if (grid.y > 65535)
            return wt_error_set(WT_ERR_LIMIT, "image too tall for the GPU undecimated transform");
        size_t smem = ucols_smem(C, MODE == UMODE_STARLET ? 1 : 2);
        WT_LAUNCH(colk, grid, dim3(32, CU_UTHREADS / 32), smem, ce->stream, L, C, in[0], in[1],
                  in[2], in[3], out[0], out[1], out[2], out[3], plane);
        CU_CHECK(cudaGetLastError());
        return WT_OK;
    }
    dim3 grid((unsigned)((w + CU_UTX - 1) / CU_UTX), (unsigned)((h + L.ty - 1) / L.ty),
              (unsigned)channels);
    if (grid.y > 65535)
        return wt_error_set(WT_ERR_LIMIT, "image too tall for the GPU undecimated transform");
    size_t smem = usmem_bytes(L.rows, MODE == UMODE_STARLET ? 1 : 2);
    dim3 block(CU_UTX, (MODE == UMODE_SWT_INVERSE ? CU_UTHREADS_INV : CU_UTHREADS) / CU_UTX);
    /* the hot tap counts unrolled: haar 2, db2 4, starlet 5, db3 6, db4 8 */
    ulevel_fn kernel = ulevel_kernel<MODE, 0>;
    switch (L.ntaps) {
    case 2: kernel = ulevel_kernel<MODE, 2>; break;
    case 4: kernel = ulevel_kernel<MODE, 4>; break;
    case 5: kernel = ulevel_kernel<MODE, 5>; break;
    case 6: kernel = ulevel_kernel<MODE, 6>; break;
    case 8: kernel = ulevel_kernel<MODE, 8>; break;
    default: break;
    }
    WT_LAUNCH(kernel, grid, block, smem, ce->stream, L, in[0], in[1], in[2], in[3], out[0], out[1],
              out[2], out[3], plane);
    CU_CHECK(cudaGetLastError());
    return WT_OK;
}

/* Device pointer of band @p i (channel 0) of a stack. */
static float *band_ptr(float *stack, int i, int channels, size_t plane)
{
    return stack + (size_t)i * (size_t)channels * plane;
}

/* Forward transform, device to device: @p planes into @p stack; tmp: 2
 * channel-stacks of planes for the approximations between levels. */
static wt_status uforward_device(cu_engine *ce, const wt_uparams *p, size_t h, size_t w,
                                 int channels, const float *planes, float *stack, float *tmp)
{
    const size_t plane = h * w, cp = plane * (size_t)channels;
    const float *cur = planes;
    for (int l = 1; l <= p->levels; l++) {
        float *next;
        if (wt_ub3_kernel(p)) {
            next = l == p->levels ? band_ptr(stack, 0, channels, plane) : tmp + (l % 2) * cp;
            cu_ulevel L = ulevel_of(&ce->pol, p, l, 0, h, w);
            const float *in[4] = {cur, NULL, NULL, NULL};
            float *out[4] = {next, band_ptr(stack, l, channels, plane), NULL, NULL};
            WT_TRY(launch_level<UMODE_STARLET>(ce, L, channels, in, out, plane));
        } else {
            int ia = wt_ustack_index(p, l, WT_BAND_A);
            next = ia >= 0 ? band_ptr(stack, ia, channels, plane) : tmp + (l % 2) * cp;
            cu_ulevel L = ulevel_of(&ce->pol, p, p->start_level + l, 0, h, w);
            const float *in[4] = {cur, NULL, NULL, NULL};
            float *out[4] = {next, band_ptr(stack, wt_ustack_index(p, l, WT_BAND_H), channels, plane),
                             band_ptr(stack, wt_ustack_index(p, l, WT_BAND_V), channels, plane),
                             band_ptr(stack, wt_ustack_index(p, l, WT_BAND_D), channels, plane)};
            WT_TRY(launch_level<UMODE_SWT_FORWARD>(ce, L, channels, in, out, plane));
        }
        cur = next;
    }
    return WT_OK;
}

static wt_status uinverse_device(cu_engine *ce, const wt_uparams *p, size_t h, size_t w,
                                 int channels, const float *stack, float *planes, float *tmp)
{
    const size_t plane = h * w, cp = plane * (size_t)channels;
    float *bands = (float *)stack; /* read only */
    if (wt_ub3_kernel(p)) {
        WT_LAUNCH(starlet_sum_kernel, dim3(1024), dim3(256), 0, ce->stream, stack, p->levels, cp,
                  planes);
        CU_CHECK(cudaGetLastError());
        return WT_OK;
    }
    const float *a = band_ptr(bands, 0, channels, plane);
    for (int l = p->levels; l >= 1; l--) {
        float *dst = l == 1 ? planes : tmp + (l % 2) * cp;
        cu_ulevel L = ulevel_of(&ce->pol, p, p->start_level + l, 1, h, w);
        const float *in[4] = {a, band_ptr(bands, wt_ustack_index(p, l, WT_BAND_H), channels, plane),
                              band_ptr(bands, wt_ustack_index(p, l, WT_BAND_V), channels, plane),
                              band_ptr(bands, wt_ustack_index(p, l, WT_BAND_D), channels, plane)};
        float *out[4] = {dst, NULL, NULL, NULL};
        WT_TRY(launch_level<UMODE_SWT_INVERSE>(ce, L, channels, in, out, plane));
        a = dst;
    }
    return WT_OK;
}

/* Device memory of one call: planes, the stack and two approximation
 * stacks, checked against the free memory before anything is allocated. */
typedef struct udevice {
    float *planes, *stack, *tmp;
    size_t bytes[3];
} udevice;

static void udevice_free(cu_engine *ce, udevice *d)
{
    cu_device_free(ce, d->planes, d->bytes[0]);
    cu_device_free(ce, d->stack, d->bytes[1]);
    cu_device_free(ce, d->tmp, d->bytes[2]);
    memset(d, 0, sizeof *d);
}

static wt_status udevice_alloc(cu_engine *ce, const wt_uparams *p, size_t h, size_t w,
                               int channels, udevice *d)
{
    const size_t cp = h * w * (size_t)channels * sizeof(float);
    const size_t nb = (size_t)wt_ustack_bands(p);
    memset(d, 0, sizeof *d);
    d->bytes[0] = cp;
    d->bytes[1] = cp * nb;
    d->bytes[2] = 2 * cp;
    size_t need = d->bytes[0] + d->bytes[1] + d->bytes[2], free_b = 0, total = 0;
    if (cudaMemGetInfo(&free_b, &total) == cudaSuccess && need > free_b)
        return cu_fail(ce, cudaErrorMemoryAllocation, "undecimated transform", need);
    wt_status st = cu_device_alloc(ce, (void **)&d->planes, d->bytes[0]);
    if (st == WT_OK)
        st = cu_device_alloc(ce, (void **)&d->stack, d->bytes[1]);
    if (st == WT_OK)
        st = cu_device_alloc(ce, (void **)&d->tmp, d->bytes[2]);
    if (st != WT_OK)
        udevice_free(ce, d);
    return st;
}

/* The transform of one direction in a call's device memory: planes ->
 * stack (forward) or stack -> planes (inverse). */
static wt_status urun_device(cu_engine *ce, const wt_uparams *p, size_t h, size_t w,
                             int channels, const udevice *d, int inverse)
{
    return inverse ? uinverse_device(ce, p, h, w, channels, d->stack, d->planes, d->tmp)
                   : uforward_device(ce, p, h, w, channels, d->planes, d->stack, d->tmp);
}

/* One transform on the GPU: @p src (host; the planes forward, the stack
 * inverse) up, the transform, @p dst down, in the call's own device memory. */
static wt_status urun(wt_engine *e, const wt_uparams *p, size_t h, size_t w, int channels,
                      int inverse, const float *src, float *dst)
{
    cu_engine *ce = (cu_engine *)e->priv;
    udevice d;
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(udevice_alloc(ce, p, h, w, channels, &d));
    float *d_src = inverse ? d.stack : d.planes, *d_dst = inverse ? d.planes : d.stack;
    const size_t src_bytes = d.bytes[inverse ? 1 : 0], dst_bytes = d.bytes[inverse ? 0 : 1];
    wt_status st = cu_fail_check(cudaMemcpyAsync(d_src, src, src_bytes, cudaMemcpyHostToDevice,
                                                 ce->stream),
                                 "cudaMemcpyAsync");
    if (st == WT_OK)
        st = urun_device(ce, p, h, w, channels, &d, inverse);
    if (st == WT_OK)
        st = cu_fail_check(cudaMemcpyAsync(dst, d_dst, dst_bytes, cudaMemcpyDeviceToHost,
                                           ce->stream),
                           "cudaMemcpyAsync");
    if (st == WT_OK)
        st = cu_fail_check(cudaStreamSynchronize(ce->stream), "cudaStreamSynchronize");
    udevice_free(ce, &d);
    return st;
}

wt_status cu_uforward(wt_engine *e, const wt_uparams *p, const float *planes, size_t h, size_t w,
                      int channels, float *bands)
{
    if (!gpu_takes(p, h, w))
        return wt_host_uforward(0, p, planes, h, w, channels, bands);
    return urun(e, p, h, w, channels, 0, planes, bands);
}

wt_status cu_uinverse(wt_engine *e, const wt_uparams *p, const float *bands, size_t h, size_t w,
                      int channels, float *planes)
{
    if (!gpu_takes(p, h, w))
        return wt_host_uinverse(0, p, bands, h, w, channels, planes);
    return urun(e, p, h, w, channels, 1, bands, planes);
}

/* Bytes a device-resident run reads and writes: SWT level 1 + 4 planes
 * forward, 4 + 1 inverse; starlet scale 1 + 2 planes forward, the inverse
 * L + 1 + 1. */
static size_t ubytes(const wt_uparams *p, size_t cp, int inverse)
{
    return (size_t)wt_uclass(p)->bench_bytes(p, (double)cp, inverse);
}

/* One timed run of cu_ubench: 0 forward, 1 inverse. */
typedef struct ubench_job {
    cu_engine *ce;
    const wt_uparams *p;
    size_t h, w;
    int channels, what;
    const udevice *d;
} ubench_job;

static wt_status ubench_run(const void *job)
{
    const ubench_job *j = (const ubench_job *)job;
    return urun_device(j->ce, j->p, j->h, j->w, j->channels, j->d, j->what);
}

wt_status cu_ubench(cu_engine *ce, const wt_uparams *p, size_t h, size_t w, int channels,
                    int inverse, int repeat, wt_cuda_timing *timing, size_t *bytes)
{
    WT_TRY(wt_uparams_check(p, h, w));
    if (!gpu_takes(p, h, w))
        return wt_error_set(WT_ERR_UNSUPPORTED, "the GPU undecimated transform takes filters of "
                                                "at most %d taps",
                            CU_UTAPS);
    udevice d;
    const size_t cp = h * w * (size_t)channels;
    *bytes = ubytes(p, cp, inverse);
    size_t copy_bytes = *bytes / 2; /* a copy reads and writes each byte */
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(udevice_alloc(ce, p, h, w, channels, &d));
    wt_status st = cu_fail_check(cudaMemsetAsync(d.planes, 0, d.bytes[0], ce->stream), "memset");
    if (st == WT_OK)
        st = urun_device(ce, p, h, w, channels, &d, 0);
    memset(timing, 0, sizeof *timing);
    ubench_job job = {ce, p, h, w, channels, inverse, &d};
    if (st == WT_OK)
        st = cu_time_runs(ce, ubench_run, &job, repeat, &timing->ms, &timing->ms_min);
    copy_bytes = copy_bytes < d.bytes[1] ? copy_bytes : d.bytes[1];
    if (st == WT_OK) /* from the stack, which holds what the transform wrote */
        st = cu_time_device_copy(ce, d.stack, copy_bytes, repeat, timing);
    timing->policy = ce->pol_text;
    if (st == WT_OK)
        st = cu_fail_check(cudaStreamSynchronize(ce->stream), "cudaStreamSynchronize");
    udevice_free(ce, &d);
    return st;
}
