/* Long filters as two single-axis passes (policy long_split): a level of a
 * conv_op of many taps runs as a pass along x and a pass along y through a
 * buffer of one plane set (cu_level.split), instead of the fused two-axis
 * tile of cu_fast.cuh. Twice the bytes, but no halo recomputed (the fused
 * forward's y-stage runs over 2 tx + halo columns: x1.4-1.8 FMAs for
 * coif17) and small windows, so several blocks an SM overlap one block's
 * gather with another's FMAs. Each thread computes CU_SEG output pairs of
 * one line from the window in shared memory (conv_op::stream: each loaded
 * value feeds up to 2 CU_SEG FMAs, taps as constant-bank operands).
 *
 * The buffer holds, per channel, rows of split_w elements: the low-pass
 * half along x at columns [0, count0), the high-pass half at
 * [split_hi, split_hi + count1) (split_hi a multiple of 4).
 * Forward: rows of the input -> buffer (x pass), buffer -> four bands (y
 * pass). Inverse: four bands -> buffer of output rows (y pass), buffer ->
 * output (x pass). The sums are those of the fused kernels per axis, the
 * axes in the other order (forward x then y, inverse y then x): equal to
 * the CPU engine within float rounding, not bit for bit. Float levels
 * only (conv_op filters). */
#ifndef WT_CU_SPLIT_CUH
#define WT_CU_SPLIT_CUH

#include <type_traits>

#include "cu_fast.cuh"

/* f(std::integral_constant<int, lead>()) for a lead of 0..3 known only at
 * run time: one compiled body per value, so that the loads' registers and
 * lanes are fixed at compile time (as load_half). */
template <typename F> WT_DEV void with_lead(int lead, F f)
{
    switch (lead) {
    case 0: f(std::integral_constant<int, 0>()); break;
    case 1: f(std::integral_constant<int, 1>()); break;
    case 2: f(std::integral_constant<int, 2>()); break;
    default: f(std::integral_constant<int, 3>()); break;
    }
}

/* Outputs of CU_SEG pairs interleaved (o0[k] at 2k, o1[k] at 2k + 1) to
 * @p dst: 16-byte stores when the whole run is inside and aligned, else
 * one by one up to @p count samples. */
WT_DEV void store_pairs(float *dst, const float *o0, const float *o1, int count)
{
    if (count >= 2 * CU_SEG && !misalign(dst, 16)) {
#pragma unroll
        for (int k = 0; k < CU_SEG; k += 2)
            st_vec<float4>(dst + 2 * k, float4{o0[k], o1[k], o0[k + 1], o1[k + 1]});
        return;
    }
#pragma unroll
    for (int k = 0; k < CU_SEG; k++) {
        if (2 * k < count)
            dst[2 * k] = o0[k];
        if (2 * k + 1 < count)
            dst[2 * k + 1] = o1[k];
    }
}

/* A pass's block: channel c and its tile's first row (x passes) or pair
 * (y passes) y0 and first pair (x passes) or buffer column (y passes) x0;
 * split_begin() at a pass's start also waits for the previous kernel's
 * writes (launched as a programmatic dependent launch, launch_level). */
struct split_block {
    int c, y0, x0;
};
WT_DEV split_block split_begin(const cu_level &L)
{
    WT_PDL_BEGIN();
    return split_block{(int)blockIdx.z, (int)blockIdx.y * L.ty, (int)blockIdx.x * L.tx};
}

/* Rows [r0, r0 + rows) of the buffer of channel c. */
WT_DEV float *split_rows_at(const cu_level &L, int c, int r0)
{
    return (float *)L.split + (size_t)c * L.split_plane + (size_t)r0 * L.split_w;
}

/* Shared memory of the x passes: the window (L.ty rows of L.pitch) and the
 * gather's tables behind it. */
WT_DEV float *split_tables(const cu_level &L, float *win)
{
    return win + L.ty * L.pitch;
}

/* ---------------------------------------------------------------------- */
/* Forward */

/* Along x: L.ty rows a block, L.tx pairs; the window's rows are the
 * input's rows (all inside), its columns folded as the level's. Items
 * (row, segment) with the rows fastest: the 16-byte row loads of a quarter
 * warp fall on 8 rows, an odd number of 16-byte units apart (pitch). */
template <class Op>
WT_GLOBAL void WT_LAUNCH_BOUNDS_MIN(CU_SPLIT_THREADS, CU_SPLIT_BLOCKS)
    split_forward_x(const WT_GRID_CONST cu_level L)
{
    WT_DYN_SMEM(unsigned char, smem);
    const cu_axis &ax = L.ax[1];
    const split_block b = split_begin(L);
    const int c = b.c, r0 = b.y0, ux0 = b.x0, rows = imin(L.ty, L.ax[0].n - r0);
    const int txe = imin(L.tx, round_seg(ax.pairs - ux0));
    float *win = (float *)smem;
    const float *src = (const float *)L.src[0] + (size_t)c * L.src_plane[0];
    const int lead = gather_forward_fast<float, float>(
        L, win, L.pitch, r0, 2 * ux0 + ax.win_a, rows, 2 * txe + ax.halo, src, split_tables(L, win));
    WT_SYNC();
    float *out = split_rows_at(L, c, r0);
    with_lead(lead, [&](auto at) {
        for_flat(rows, txe / CU_SEG, [&](int r, int seg) {
            float o0[CU_SEG], o1[CU_SEG];
            run_row_at<Op, decltype(at)::value>(ax, win + r * L.pitch + 2 * seg * CU_SEG, o0, o1);
            const int u = ux0 + seg * CU_SEG;
            float *d = out + (size_t)r * L.split_w + u;
            store_run(d, o0, ax.count0 - u);
            store_run(d + L.split_hi, o1, ax.count1 - u);
        });
    });
}

/* Along y: L.ty pairs by L.tx buffer columns a block; the window's rows
 * folded as the level's (ax.n is the buffer's width here: every column
 * inside). Items (column, segment), columns fastest: conflict-free column
 * loads and consecutive band addresses. */
template <class Op>
WT_GLOBAL void WT_LAUNCH_BOUNDS_MIN(CU_SPLIT_THREADS, CU_SPLIT_BLOCKS)
    split_forward_y(const WT_GRID_CONST cu_level L)
{
    WT_DYN_SMEM(unsigned char, smem);
    const cu_axis &ay = L.ax[0], &ax = L.ax[1];
    const split_block b = split_begin(L);
    const int c = b.c, uy0 = b.y0, x0 = b.x0, tye = imin(L.ty, round_seg(ay.pairs - uy0));
    const int cols = imin(L.tx, ax.n - x0);
    const int wy = 2 * tye + ay.halo, pitch = L.pitch;
    float *win = (float *)smem;
    const float *src = (const float *)L.split + (size_t)c * L.split_plane;
    const int lead = gather_forward_fast<float, float>(L, win, pitch, 2 * uy0 + ay.win_a, x0, wy,
                                                      cols, src, win + L.wy * pitch);
    WT_SYNC();
    for_flat(cols, tye / CU_SEG, [&](int ix, int seg) {
        const int x = x0 + ix, px = x >= L.split_hi, u = x - (px ? L.split_hi : 0);
        if (u >= (px ? ax.count1 : ax.count0))
            return; /* the gap between the halves */
        float o0[CU_SEG], o1[CU_SEG];
        run_column<Op>(ay, win + lead + 2 * seg * CU_SEG * pitch + ix, pitch, o0, o1);
        float *d0 = (float *)L.dst[px] + (size_t)c * L.dst_plane[px] + u;
        float *d1 = (float *)L.dst[2 + px] + (size_t)c * L.dst_plane[2 + px] + u;
#pragma unroll
        for (int k = 0; k < CU_SEG; k++) {
            const int uy = uy0 + seg * CU_SEG + k;
            if (uy < ay.count0)
                d0[(size_t)uy * L.dst_w[px]] = o0[k];
            if (uy < ay.count1)
                d1[(size_t)uy * L.dst_w[2 + px]] = o1[k];
        }
    });
}

/* ---------------------------------------------------------------------- */
/* Inverse */

/* The inverse y pass's window, rows @p rows (band rows of either half,
 * NULL: zero) scaled by @p rscale: items (row, 4 buffer columns: x0,
 * split_hi and split_w are multiples of 4, so none straddles the halves),
 * consecutive threads on consecutive items, 16-byte loads where @p vec
 * (every band row aligned alike) and the 4 are inside the band row. */
WT_DEV void gather_split_inverse_y(const cu_level &L, float *win, int wy, int x0, int cols,
                                   const inv_row *rows, const float *rscale, bool vec)
{
    const cu_axis &ax = L.ax[1];
    for (flat_walk it(cols >> 2); it.slow < wy; it.next()) {
        const int iy = it.slow, ix = 4 * it.fast, x = x0 + ix, px = x >= L.split_hi;
        const int u = x - (px ? L.split_hi : 0), n = (px ? ax.n1 : ax.n) - u;
        const float *p = (const float *)rows[iy].ptr[px];
        const float s = rscale[iy];
        float4 v = float4{0.0f, 0.0f, 0.0f, 0.0f};
        if (p && vec && n >= 4) {
            v = ld_vec<float4>(p + u);
            v = float4{s * v.x, s * v.y, s * v.z, s * v.w};
        } else if (p) {
            v.x = n > 0 ? s * p[u] : 0.0f;
            v.y = n > 1 ? s * p[u + 1] : 0.0f;
            v.z = n > 2 ? s * p[u + 2] : 0.0f;
            v.w = n > 3 ? s * p[u + 3] : 0.0f;
        }
        st_vec<float4>(win + iy * L.pitch + ix, v);
    }
}

/* Along y: L.ty pairs by L.tx buffer columns a block. Window row iy holds
 * the coefficients of position 2 uy0 + win_a + iy along y (coef_at: band
 * row and phase), column ix those of buffer column x0 + ix (the low- or
 * high-pass half along x); outputs: rows 2 u and 2 u + 1 of the buffer. */
template <class Op>
WT_GLOBAL void WT_LAUNCH_BOUNDS_MIN(CU_SPLIT_THREADS, CU_SPLIT_BLOCKS)
    split_inverse_y(const WT_GRID_CONST cu_level L)
{
    WT_DYN_SMEM(unsigned char, smem);
    const cu_axis &ay = L.ax[0];
    const split_block b = split_begin(L);
    const int c = b.c, uy0 = b.y0, x0 = b.x0, tye = imin(L.ty, round_seg(ay.pairs - uy0));
    const int cols = imin(L.tx, L.split_w - x0);
    const int wy = 2 * tye + ay.halo, pitch = L.pitch, py0 = 2 * uy0 + ay.win_a;
    float *win = (float *)smem;
    inv_row *rows = (inv_row *)(win + L.wy * pitch);
    float *rscale = (float *)(rows + L.wy);
    for (int iy = thread_rank(); iy < wy; iy += block_threads()) {
        const coef_term cy = coef_at(ay, py0 + iy);
        for (int px = 0; px < 2; px++) {
            const int b = 2 * cy.phase + px;
            rows[iy].ptr[px] = cy.idx < 0 ? NULL
                                          : (const float *)L.src[b] + (size_t)c * L.src_plane[b] +
                                                (size_t)cy.idx * L.src_w[b];
        }
        rscale[iy] = cy.scale;
    }
    WT_SYNC();
    gather_split_inverse_y(L, win, wy, x0, cols, rows, rscale, bands_uniform<float>(L, c));
    WT_SYNC();
    const int ny = ay.count0 + ay.count1;
    float *out = split_rows_at(L, c, 0) + x0;
    for_flat(cols, tye / CU_SEG, [&](int ix, int seg) {
        float o0[CU_SEG], o1[CU_SEG];
        run_column<Op>(ay, win + 2 * seg * CU_SEG * pitch + ix, pitch, o0, o1);
        const int oy0 = 2 * (uy0 + seg * CU_SEG);
#pragma unroll
        for (int k = 0; k < CU_SEG; k++) {
            if (oy0 + 2 * k < ny)
                out[(size_t)(oy0 + 2 * k) * L.split_w + ix] = o0[k];
            if (oy0 + 2 * k + 1 < ny)
                out[(size_t)(oy0 + 2 * k + 1) * L.split_w + ix] = o1[k];
        }
    });
}

/* The inverse x pass's window of a tile whose pairs' coefficients all lie
 * inside the buffer row (@p m0 the first pair, @p q pairs; the window
 * starts at an even position): items (row, 4 pairs), consecutive threads
 * on consecutive items, each 4 low- and 4 high-pass coefficients
 * interleaved into two 16-byte shared stores. */
WT_DEV void gather_split_inverse_x_inside(const cu_level &L, float *win, const float *in,
                                          int rows, int m0, int q)
{
    const cu_axis &ax = L.ax[1];
    const int lo = m0 + ax.da, hi = L.split_hi + m0 + ax.dd;
    for (flat_walk it((q + 3) >> 2); it.slow < rows; it.next()) {
        const float *row = in + (size_t)it.slow * L.split_w;
        const int k = 4 * it.fast;
        float v[8];
#pragma unroll
        for (int e = 0; e < 4; e++) {
            v[2 * e] = k + e < q ? ax.sa * row[lo + k + e] : 0.0f;
            v[2 * e + 1] = k + e < q ? ax.sd * row[hi + k + e] : 0.0f;
        }
        float *w = win + it.slow * L.pitch + 2 * k;
        st_vec<float4>(w, float4{v[0], v[1], v[2], v[3]});
        st_vec<float4>(w + 4, float4{v[4], v[5], v[6], v[7]});
    }
}

/* The same for any tile (border tiles, an odd first position): each window
 * column's buffer column and scale from coef_at, in a table first, then
 * one load a sample. */
WT_DEV void gather_split_inverse_x_table(const cu_level &L, float *win, const float *in,
                                         int rows, int px0, int wx)
{
    int *col = (int *)split_tables(L, win);
    float *cscale = (float *)(col + L.wx);
    for (int ix = thread_rank(); ix < wx; ix += block_threads()) {
        const coef_term t = coef_at(L.ax[1], px0 + ix);
        col[ix] = t.idx < 0 ? -1 : t.idx + (t.phase ? L.split_hi : 0);
        cscale[ix] = t.scale;
    }
    WT_SYNC();
    for (flat_walk it(wx); it.slow < rows; it.next()) {
        const int k = col[it.fast];
        win[it.slow * L.pitch + it.fast] =
            k < 0 ? 0.0f : cscale[it.fast] * in[(size_t)it.slow * L.split_w + k];
    }
}

/* Along x: L.ty buffer rows by L.tx pairs a block. Window column ix holds
 * the coefficient of position 2 ux0 + win_a + ix along x (coef_at: its
 * buffer column), in position order (16-byte aligned rows); outputs: the
 * samples 2 u and 2 u + 1 of the output row. */
template <class Op>
WT_GLOBAL void WT_LAUNCH_BOUNDS_MIN(CU_SPLIT_THREADS, CU_SPLIT_BLOCKS)
    split_inverse_x(const WT_GRID_CONST cu_level L)
{
    WT_DYN_SMEM(unsigned char, smem);
    const cu_axis &ay = L.ax[0], &ax = L.ax[1];
    const split_block b = split_begin(L);
    const int c = b.c, r0 = b.y0, ux0 = b.x0, rows = imin(L.ty, ay.count0 + ay.count1 - r0);
    const int txe = imin(L.tx, round_seg(ax.pairs - ux0)), wx = 2 * txe + ax.halo;
    const int pitch = L.pitch, px0 = 2 * ux0 + ax.win_a;
    float *win = (float *)smem;
    const float *in = split_rows_at(L, c, r0);
    if (!(px0 & 1) && coef_range_inside(ax, px0 >> 1, wx >> 1))
        gather_split_inverse_x_inside(L, win, in, rows, px0 >> 1, wx >> 1);
    else
        gather_split_inverse_x_table(L, win, in, rows, px0, wx);
    WT_SYNC();
    const int nx = ax.count0 + ax.count1;
    float *out = (float *)L.dst[0] + (size_t)c * L.dst_plane[0] + (size_t)r0 * L.dst_w[0];
    for_flat(rows, txe / CU_SEG, [&](int r, int seg) {
        float o0[CU_SEG], o1[CU_SEG];
        run_row_at<Op, 0>(ax, win + r * pitch + 2 * seg * CU_SEG, o0, o1);
        const int ox = 2 * (ux0 + seg * CU_SEG);
        store_pairs(out + (size_t)r * L.dst_w[0] + ox, o0, o1, nx - ox);
    });
}

#endif
