/* Fast level kernels for the hot operators: the same tiles, windows and
 * arithmetic as the generic kernels of cu_kernels.cuh (results are bit for
 * bit the same), with
 *  - gathers that move whole rows with 16-byte loads, several in flight per
 *    thread, folding only the rows (columns fold per element at borders);
 *  - both axes in registers: a thread takes a segment of CU_SEG output pairs
 *    of one line, loads its window span once, runs the filter or the lifting
 *    steps on registers (compile-time lengths and step tables), and writes
 *    its outputs; two barriers per block in all;
 *  - 16-byte stores of the forward bands.
 * Op is conv_op<L> (two-phase filters of L taps at offset 0) or
 * lift_op<Scheme, inverse> (a lifting step structure known at compile time). */
#ifndef WT_CU_FAST_CUH
#define WT_CU_FAST_CUH

#include "cu_kernels.cuh"


/* ---------------------------------------------------------------------- */
/* Operators on a register segment v[0, 2 * CU_SEG + HALO) */

template <int L> struct conv_op {
    static constexpr int HALO = L > 2 ? L - 2 : 0;
    static constexpr int SPAN = 2 * CU_SEG + HALO;
    template <typename T>
    WT_DEV static void run(const cu_axis &a, T *v, T *o0, T *o1)
    {
#pragma unroll
        for (int k = 0; k < CU_SEG; k++) {
            float acc0 = 0.0f, acc1 = 0.0f;
#pragma unroll
            for (int i = 0; i < L; i++) {
                acc0 = fmaf(a.f0[i], (float)v[2 * k + i], acc0);
                acc1 = fmaf(a.f1[i], (float)v[2 * k + i], acc1);
            }
            o0[k] = (T)acc0;
            o1[k] = (T)acc1;
        }
    }
};

/* Lifting step structures (update, offset, taps), as in the wavelet table. */
struct scheme_cdf97 {
    static constexpr int n = 4, shift_lo = 0, shift_hi = 0;
    WT_HD static constexpr int upd(int s) { return s & 1; }
    WT_HD static constexpr int off(int s) { return (s & 1) ? -1 : 0; }
    WT_HD static constexpr int nt(int) { return 2; }
};
struct scheme_legall53 {
    static constexpr int n = 2, shift_lo = 0, shift_hi = 0;
    WT_HD static constexpr int upd(int s) { return s & 1; }
    WT_HD static constexpr int off(int s) { return (s & 1) ? -1 : 0; }
    WT_HD static constexpr int nt(int) { return 2; }
};
struct scheme_db3 {
    static constexpr int n = 5, shift_lo = -2, shift_hi = 0;
    WT_HD static constexpr int upd(int s) { return s == 1 || s == 3; }
    WT_HD static constexpr int off(int s) { return s == 1 ? -1 : s == 4 ? -2 : 0; }
    WT_HD static constexpr int nt(int s) { return s == 1 ? 2 : (s == 2 || s == 4) ? 3 : 1; }
};

struct scheme_haar {
    static constexpr int n = 2, shift_lo = 0, shift_hi = 0;
    WT_HD static constexpr int upd(int s) { return s == 0; }
    WT_HD static constexpr int off(int) { return 0; }
    WT_HD static constexpr int nt(int) { return 1; }
};

template <class S> WT_HD constexpr int scheme_reach()
{
    int r = 1;
    for (int s = 0; s < S::n; s++) {
        int left = S::off(s) < 0 ? -S::off(s) : 0;
        int right = S::off(s) + S::nt(s) - 1 > 0 ? S::off(s) + S::nt(s) - 1 : 0;
        r += left > right ? left : right;
    }
    return r;
}

/* Pairs of the segment each step needs valid, worked backwards from the
 * outputs: a on [a0, S + a1), d on [d0, S + d1) (relative to the segment's
 * first output pair). The fast window holds exactly these. */
struct pair_range {
    int a0, a1, d0, d1;
};

template <class S, bool INV> WT_HD constexpr pair_range lift_need()
{
    pair_range r = {0, 0, 0, 0};
    if (!INV)
        r = {S::shift_lo, S::shift_lo, S::shift_hi, S::shift_hi};
    for (int j = 0; j < S::n; j++) {
        const int s = INV ? j : S::n - 1 - j; /* executed steps, last first */
        const int off = S::off(s), nt = S::nt(s);
        if (S::upd(s)) {
            r.d0 = r.d0 < r.a0 + off ? r.d0 : r.a0 + off;
            r.d1 = r.d1 > r.a1 + off + nt - 1 ? r.d1 : r.a1 + off + nt - 1;
        } else {
            r.a0 = r.a0 < r.d0 + off ? r.a0 : r.d0 + off;
            r.a1 = r.a1 > r.d1 + off + nt - 1 ? r.a1 : r.d1 + off + nt - 1;
        }
    }
    return r;
}

template <class S, bool INV> struct lift_op {
    /* the generic geometry (cu_plan.cu), which lift_fits() recognises */
    static constexpr int R = scheme_reach<S>();
    static constexpr int SMIN = S::shift_lo < S::shift_hi ? S::shift_lo : S::shift_hi;
    static constexpr int SMAX = S::shift_lo > S::shift_hi ? S::shift_lo : S::shift_hi;
    static constexpr int GEN_HALO = INV ? 4 * R + 4 : 2 * (SMAX - SMIN + 2 * R);
    static constexpr int GEN_OFF0 = INV ? 2 * R + 2 : 2 * (S::shift_lo - SMIN + R);
    static constexpr int GEN_OFF1 = GEN_OFF0 + (INV ? 1 : 2 * (S::shift_hi - S::shift_lo) + 1);
    /* the tight window: pairs [P0, S + P1) around the outputs */
    static constexpr pair_range NEED = lift_need<S, INV>();
    static constexpr int P0 = NEED.a0 < NEED.d0 ? NEED.a0 : NEED.d0;
    static constexpr int P1 = NEED.a1 > NEED.d1 ? NEED.a1 : NEED.d1;
    static constexpr int HALO = 2 * (P1 - P0);
    static constexpr int SPAN = 2 * CU_SEG + HALO;
    static constexpr int OFF0 = INV ? -2 * P0 : 2 * (S::shift_lo - P0);
    static constexpr int OFF1 = INV ? -2 * P0 + 1 : 2 * (S::shift_hi - P0) + 1;
    /* window start of the tight window minus the generic one (positions) */
    static constexpr int SHIFT = INV ? 2 * (P0 + R + 1) : 2 * (P0 - SMIN + R);
    static constexpr int P = SPAN / 2; /* pairs in the segment */

    /* cu_plan.cu stores the steps in execution order (inverse: reversed,
     * taps negated); step j of a is step s of the scheme. */
    template <typename T>
    WT_DEV static void run(const cu_axis &a, T *v, T *o0, T *o1)
    {
#pragma unroll
        for (int j = 0; j < S::n; j++) {
            const int s = INV ? S::n - 1 - j : j;
            const cu_step &st = a.steps[j];
            const int off = S::off(s), nt = S::nt(s);
            const int dpar = S::upd(s) ? 0 : 1, spar = 1 - dpar;
            const int lo = off < 0 ? -off : 0;
            const int hi = P - (off + nt - 1 > 0 ? off + nt - 1 : 0);
#pragma unroll
            for (int q = lo; q < hi; q++) {
                if constexpr (std::is_integral<T>::value) { /* legall53: 2 taps */
                    static_assert(S::nt(0) == 2 && S::nt(1) == 2, "integer steps: the 5/3 only");
                    v[2 * q + dpar] = wt_lift53_step(v[2 * q + dpar], v[2 * (q + off) + spar],
                                                     v[2 * (q + off) + 2 + spar], st.ibias,
                                                     st.ishift, st.isign);
                } else {
                    float acc = 0.0f;
#pragma unroll
                    for (int i = 0; i < nt; i++)
                        acc = fmaf(st.taps[i], (float)v[2 * (q + off + i) + spar], acc);
                    v[2 * q + dpar] = (T)((float)v[2 * q + dpar] + acc);
                }
            }
        }
#pragma unroll
        for (int k = 0; k < CU_SEG; k++) {
            if constexpr (std::is_integral<T>::value) {
                o0[k] = v[2 * k + OFF0];
                o1[k] = v[2 * k + OFF1];
            } else {
                o0[k] = (T)fmaf(a.f0[0], (float)v[2 * k + OFF0], 0.0f);
                o1[k] = (T)fmaf(a.f1[0], (float)v[2 * k + OFF1], 0.0f);
            }
        }
    }
};

/* ---------------------------------------------------------------------- */
/* Helpers */

template <typename T> struct vec4;
template <> struct vec4<float> {
    typedef float4 type;
};
template <> struct vec4<int32_t> {
    typedef int4 type;
};
template <typename T> struct vec2;
template <> struct vec2<float> {
    typedef float2 type;
};
template <> struct vec2<int32_t> {
    typedef int2 type;
};

template <typename T> WT_DEV T lane(const typename vec4<T>::type &v, int k)
{
    return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}

WT_DEV int block_threads()
{
    return (int)(blockDim.x * blockDim.y);
}

WT_DEV int thread_rank()
{
    return (int)(threadIdx.y * blockDim.x + threadIdx.x);
}

/* Items (fast, slow) of [0, nfast) x [0, nslow) in the order consecutive
 * threads take them, a block's threads apart: two divisions at the start,
 * then additions (a runtime division costs about 20 instructions; for
 * loops of one or two items per thread for_flat's division is cheaper). */
struct flat_walk {
    int fast, slow, nfast, dq, dr;
    WT_DEV explicit flat_walk(int nf) : nfast(nf)
    {
        const int r = thread_rank(), nt = block_threads();
        slow = r / nf;
        fast = r - slow * nf;
        dq = nt / nf;
        dr = nt - dq * nf;
    }
    WT_DEV void next()
    {
        fast += dr;
        slow += dq;
        if (fast >= nfast) {
            fast -= nfast;
            slow++;
        }
    }
};

/* fn(fast, slow) over [0, nfast) x [0, nslow), consecutive threads on
 * consecutive items (all lanes busy even when nfast is small). */
template <typename Fn> WT_DEV void for_flat(int nfast, int nslow, Fn fn)
{
    const int n = nfast * nslow, nt = block_threads();
    for (int it = thread_rank(); it < n; it += nt) {
        const int s = it / nfast;
        fn(it - s * nfast, s);
    }
}

/* for_flat with nfast = 1 << lg: a shift and a mask per item instead of a
 * division (about 20 instructions) */
template <typename Fn> WT_DEV void for_flat_pow2(int lg, int nslow, Fn fn)
{
    const int n = nslow << lg, nt = block_threads(), mask = (1 << lg) - 1;
    for (int it = thread_rank(); it < n; it += nt)
        fn(it & mask, it >> lg);
}

/* log2 of a power of two */
WT_DEV int log2_pow2(int v)
{
#ifdef __CUDA_ARCH__
    return __ffs(v) - 1;
#else
    return __builtin_ctz((unsigned)v);
#endif
}

WT_DEV int misalign(const void *p, int bytes)
{
    return (int)((uintptr_t)p & (uintptr_t)(bytes - 1));
}

/* Vector accesses; the emulation stops on a misaligned one (x86 would not). */
template <typename V> WT_DEV V ld_vec(const void *p)
{
    WT_CHECK_ALIGNED(p, sizeof(V));
    return *(const V *)p;
}

template <typename V> WT_DEV void st_vec(void *p, V v)
{
    WT_CHECK_ALIGNED(p, sizeof(V));
    *(V *)p = v;
}


/* ---------------------------------------------------------------------- */
/* Forward gather. The columns of the window inside the signal: 16-byte
 * loads of the (folded) rows, several in flight per thread; when every row
 * has the same alignment the window row is stored lead elements in
 * (returned), so that 16-byte shared stores line up. The columns outside
 * (border tiles): element by element. The fast kernels run only modes
 * whose extension is one term per position (use_double() takes the
 * extrapolating ones to the generic kernels). */

/* The (folded) source row of window row iy, its weight (0: zero row). */
template <typename TIn>
WT_DEV const TIn *forward_row(const cu_axis &ay, const TIn *src, int stride, int pos,
                              float *weight)
{
    ext_terms t = signal_terms(ay.ext, ay.n, pos);
    *weight = t.n ? t.w[0] : 0.0f;
    return src + (size_t)(t.n ? t.idx[0] : 0) * stride;
}

/* 16-byte copy global -> shared that bypasses registers (cp.async); the
 * copies of a thread complete at cp_async_wait(). */
WT_DEV void cp_async16(void *smem_dst, const void *gmem_src)
{
#ifdef WT_CUDA_EMULATE
    WT_CHECK_ALIGNED(smem_dst, 16);
    WT_CHECK_ALIGNED(gmem_src, 16);
    memcpy(smem_dst, gmem_src, 16);
#elif __CUDA_ARCH__ < 800 /* Turing has no cp.async: through registers */
    *(float4 *)smem_dst = __ldg((const float4 *)gmem_src);
#else
    unsigned s = (unsigned)__cvta_generic_to_shared(smem_dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem_src));
#endif
}

WT_DEV void cp_async_wait()
{
#if !defined(WT_CUDA_EMULATE) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::);
#endif
}

/* Per window row (in @p scratch, the not yet used mid area): the folded
 * source row and its weight (0: a zero row). */
template <typename TIn> struct fwd_row {
    const TIn *ptr;
    float weight;
};

/* Window column of a border tile outside the signal: its (folded) source
 * column and weight (0: a zero column). */
struct fwd_col {
    int idx;
    float weight;
};

/* Window columns [0, x0) and [x1, wx) of a border tile, one element each,
 * after the inside columns (whose 16-byte blocks may overhang into them):
 * the same products as the generic gather (row weight x (column weight x
 * sample)). */
template <typename T, typename TIn>
WT_DEV void gather_forward_border(T *win, int pitch, int wy, int wx, int x0, int x1,
                                  const fwd_row<TIn> *rows, const fwd_col *cols)
{
    const int nb = x0 + (wx - x1); /* border columns per row */
    for_flat(nb, wy, [&](int k, int iy) {
        const int ix = k < x0 ? k : x1 + (k - x0);
        const fwd_row<TIn> r = rows[iy];
        const fwd_col col = cols[k];
        const TIn s = r.ptr[col.idx];
        if constexpr (std::is_integral<T>::value)
            win[iy * pitch + ix] = (T)s;
        else
            win[iy * pitch + ix] =
                r.weight * col.weight == 0.0f ? (T)0 : (T)(r.weight * (col.weight * (float)s));
    });
}

/* Every row aligned alike, samples of the window's type (the common case):
 * items (row, 16-byte block of the row's inside columns) one at a time,
 * consecutive threads on consecutive blocks, nothing held in registers.
 * Rows of weight 1 go by cp.async straight into shared memory; the others
 * (zero rows, antisymmetric signs) through registers. @p rl: the inside
 * columns' misalignment in every row; their block-aligned start lands
 * 16-byte aligned in the window. */
template <typename T>
WT_DEV void gather_forward_copy(T *wl, int pitch, int px0, int x0, int count, int rl, int wy,
                                const fwd_row<T> *rows)
{
    typedef typename vec4<T>::type V;
    const int nch = (rl + count + 3) >> 2;
    for (flat_walk it(nch); it.slow < wy; it.next()) {
        const int iy = it.slow, e = x0 + 4 * it.fast - rl; /* window column of lane 0 */
        const fwd_row<T> r = rows[iy];
        const T *g = r.ptr + px0 + e;
        T *dst = wl + iy * pitch + e;
        if (r.weight == 1.0f) {
            cp_async16(dst, g);
            continue;
        }
        V v = ld_vec<V>(g);
        if constexpr (!std::is_integral<T>::value) {
            const float wt = r.weight;
            v = wt == 0.0f ? V{0, 0, 0, 0} : V{wt * v.x, wt * v.y, wt * v.z, wt * v.w};
        }
        st_vec<V>(dst, v);
    }
}

/* The wy x wx window at (py0, px0). Items are (row, 16-byte block of the
 * row's inside columns), consecutive threads on consecutive blocks. All
 * rows aligned alike with samples of the window's type:
 * gather_forward_copy; otherwise CU_BATCH loads in flight per thread,
 * converted and scaled in registers. */
template <typename T, typename TIn>
WT_DEV int gather_forward_fast(const cu_level &L, T *win, int pitch, int py0, int px0, int wy,
                               int wx, const TIn *src, void *scratch)
{
    typedef typename vec4<TIn>::type V;
    typedef typename vec4<T>::type VT;
    const cu_axis &ay = L.ax[0], &ax = L.ax[1];
    const int w = ax.n, stride = L.src_w[0];
    /* window columns [x0, x1) lie inside the signal; the nb others are
     * folded through a table */
    const int x0 = px0 < 0 ? (-px0 < wx ? -px0 : wx) : 0;
    const int x1 = px0 + wx > w ? (w - px0 > x0 ? w - px0 : x0) : wx;
    const int nb = x0 + (wx - x1);
    fwd_row<TIn> *rows = (fwd_row<TIn> *)scratch;
    fwd_col *cols = (fwd_col *)(rows + wy);
    for (int i = thread_rank(); i < wy + nb; i += block_threads()) {
        if (i < wy) {
            float wgt;
            const TIn *row = forward_row(ay, src, stride, py0 + i, &wgt);
            rows[i] = fwd_row<TIn>{row, wgt};
            continue;
        }
        const int k = i - wy, ix = k < x0 ? k : x1 + (k - x0);
        const ext_terms t = signal_terms(ax.ext, w, px0 + ix);
        cols[k] = fwd_col{t.n ? t.idx[0] : 0, t.n ? t.w[0] : 0.0f};
    }
    WT_SYNC();
    /* all rows aligned alike: the window row is stored lead elements in */
    const bool uniform = !(stride & 3) && !misalign(src, 16);
    const int lead = uniform ? px0 & 3 : 0;
    T *const wl = win + lead;
    const int count = x1 - x0, nch = (3 + count + 3) >> 2;
    bool copied = false;
    if constexpr (std::is_same<T, TIn>::value) {
        if (uniform && count > 0)
            gather_forward_copy<T>(wl, pitch, px0, x0, count, (px0 + x0) & 3, wy, rows);
        copied = uniform;
    }
    for (flat_walk it(nch); !copied && count > 0 && it.slow < wy;) {
        V raw[CU_BATCH];
        float wgt[CU_BATCH];
        int first[CU_BATCH], iys[CU_BATCH]; /* inside column of lane 0; count: none */
#pragma unroll
        for (int b = 0; b < CU_BATCH; b++, it.next()) {
            first[b] = count;
            if (it.slow >= wy)
                continue;
            const int iy = it.slow, j = it.fast;
            const fwd_row<TIn> r = rows[iy];
            const TIn *row = r.ptr + px0 + x0;
            const int rl = misalign(row, 16) / (int)sizeof(TIn);
            iys[b] = iy;
            wgt[b] = r.weight;
            if (4 * j >= rl + count)
                continue;
            first[b] = 4 * j - rl;
            raw[b] = ld_vec<V>(row + first[b]);
        }
#pragma unroll
        for (int b = 0; b < CU_BATCH; b++) {
            if (first[b] >= count)
                continue;
            T val[4];
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const TIn s = lane<TIn>(raw[b], k);
                if constexpr (std::is_integral<T>::value)
                    val[k] = (T)s;
                else
                    val[k] = wgt[b] == 0.0f ? (T)0 : (T)(wgt[b] * (float)s);
            }
            T *dst = wl + iys[b] * pitch + x0 + first[b];
            if (uniform) { /* lead + x0 + first[b] is a multiple of 4 */
                st_vec<VT>(dst, VT{val[0], val[1], val[2], val[3]});
            } else {
#pragma unroll
                for (int k = 0; k < 4; k++)
                    if (first[b] + k >= 0 && first[b] + k < count)
                        dst[k] = val[k];
            }
        }
    }
    cp_async_wait();
    if (nb > 0) { /* after the inside: its 16-byte blocks overhang */
        WT_SYNC();
        gather_forward_border<T, TIn>(wl, pitch, wy, wx, x0, x1, rows, cols);
    }
    return lead;
}

/* ---------------------------------------------------------------------- */
/* Inverse gather. Window row iy holds the low-pass coefficients of its
 * pairs in one half, at win + iy * pitch + lead.lo + k, and the high-pass
 * ones in the other, at win + iy * pitch + L.half + lead.hi + k (k < wx / 2);
 * rows whose coefficients are zero are zero. The scale of the low- and
 * high-pass half of each row is stored beside the window (rscale[2 iy + px])
 * and applied by the x-stage, so that interior rows can be copied as they
 * are (cp.async). Returns the leads (0 unless copied with cp.async). */

struct inv_lead {
    int lo, hi;
};

WT_DEV bool coef_range_inside(const cu_axis &a, int m0, int pairs)
{
    if (a.ext == CU_COEF_J2K_REFLECT || a.ext == CU_COEF_J2K_PERIODIC)
        return 2 * m0 >= 0 && 2 * (m0 + pairs) <= a.n + a.n1;
    return m0 + a.da >= 0 && m0 + pairs + a.da <= a.n && m0 + a.dd >= 0 &&
           m0 + pairs + a.dd <= a.n1;
}

/* Border tiles: band phase, index and scale of every window row and
 * column first (in @p scratch), then one load per sample, scaled here (the
 * row scales are 1). */
template <typename T>
WT_DEV void gather_inverse_table(const cu_level &L, T *win, float *rscale, int py0, int px0,
                                 int c, void *scratch)
{
    const cu_axis &ay = L.ax[0], &ax = L.ax[1];
    const int wy = L.wy, wx = L.wx, pitch = L.pitch, half = L.half, nt = block_threads();
    int *idx = (int *)scratch; /* wy rows, then wx columns; -1: zero */
    int *phase = idx + wy + wx;
    float *scale = (float *)(phase + wy + wx);
    for (int i = thread_rank(); i < wy + wx; i += nt) {
        coef_term t = i < wy ? coef_at(ay, py0 + i) : coef_at(ax, px0 + i - wy);
        idx[i] = t.idx;
        phase[i] = t.phase;
        scale[i] = t.scale;
    }
    for (int i = thread_rank(); i < 2 * wy; i += nt)
        rscale[i] = 1.0f;
    WT_SYNC();
    for_2d(wx, wy, [&](int ix, int iy) {
        const int cy = idx[iy], cx = idx[wy + ix];
        T v = (T)0;
        if (cy >= 0 && cx >= 0) {
            const int b = 2 * phase[iy] + phase[wy + ix];
            v = ((const T *)L.src[b])[(size_t)c * L.src_plane[b] + (size_t)cy * L.src_w[b] + cx];
            if constexpr (!std::is_integral<T>::value)
                v = (T)((scale[iy] * scale[wy + ix]) * (float)v);
        }
        win[iy * pitch + (ix & 1) * half + (ix >> 1)] = v;
    });
}

/* Per window row (in @p scratch, the not yet used mid area): the low- and
 * high-pass band rows it reads (NULL: a zero row). */
struct inv_row {
    const void *ptr[2];
};

/* Every band plane of channel c starts 16-byte aligned and has rows of a
 * multiple of 4 elements: all band rows are aligned alike. */
template <typename T> WT_DEV bool bands_uniform(const cu_level &L, int c)
{
    for (int b = 0; b < 4; b++)
        if ((L.src_w[b] & 3) || misalign((const T *)L.src[b] + (size_t)c * L.src_plane[b], 16))
            return false;
    return true;
}

/* The coefficients k of a window half row that lie inside the band row
 * (k0 <= k < k1, of q), per half (0 low-pass, 1 high-pass). */
struct inv_inside {
    int k0_lo, k1_lo, k0_hi, k1_hi; /* fields, not arrays: a run-time index
                                       would put them in local memory */
};

/* [k0, k1): the k < q with 0 <= base + k < count. */
WT_DEV void inside_range(int base, int count, int q, int *k0, int *k1)
{
    *k0 = -base > 0 ? (-base < q ? -base : q) : 0;
    *k1 = count - base < q ? count - base : q;
    *k1 = *k1 > *k0 ? *k1 : *k0;
}

/* Whether every window position outside the signal reads a coefficient of
 * its own phase (low-pass at even positions): true for the filter banks and
 * JPEG 2000's whole-sample symmetric extension (position -i mirrors i);
 * JPEG 2000 periodization keeps it only on even lengths. */
WT_DEV bool border_keeps_phase(const cu_axis &a)
{
    return a.ext != CU_COEF_J2K_PERIODIC || !((a.n + a.n1) & 1);
}

/* Every band row aligned alike: a warp per window row, its lanes on the
 * 16-byte blocks of the row's low-pass half (lanes 0-15) and high-pass half
 * (16-31), copied with cp.async (the half row starts lead elements in);
 * zero rows stored as zeros. A lane's half, block and bounds are fixed, so
 * a row costs it a row-pointer load and one copy (the flat item walk spent
 * about 60 instructions per block). Blocks of fewer than 32 threads (the
 * host emulation runs one) walk the slots themselves. Only the blocks
 * holding inside coefficients; those overhang by up to 3 elements, which
 * gather_inverse_outside overwrites. */
template <typename T>
WT_DEV void gather_inverse_copy(T *win, int pitch, int half, int q, int wy, inv_lead lead,
                                inv_inside in, const inv_row *rows)
{
    typedef typename vec4<T>::type V;
    const int nch = (3 + q + 3) >> 2, nt = block_threads(), r = thread_rank();
    const bool warps = nt >= 32; /* blocks of whole warps; shifts, not divisions */
    const int lanes = warps ? 32 : nt, lane = warps ? r & 31 : r;
    const int warp = warps ? r >> 5 : 0, nwarps = warps ? nt >> 5 : 1;
    const int nslots = 32 * ((nch + 15) >> 4);
    for (int slot = lane; slot < nslots; slot += lanes) {
        const int px = (slot >> 4) & 1, jj = (slot & 15) + ((slot >> 5) << 4);
        const int rl = px ? lead.hi : lead.lo;
        const int k0 = px ? in.k0_hi : in.k0_lo, k1 = px ? in.k1_hi : in.k1_lo;
        if (jj >= nch || 4 * jj + 3 < rl + k0 || 4 * jj >= rl + k1)
            continue;
        const int off = 4 * jj - rl; /* from the row pointer */
        T *dst = win + px * half + 4 * jj + warp * pitch;
        const void *const *pp = &rows[warp].ptr[px];
        for (int iy = warp; iy < wy; iy += nwarps) {
            const T *p = (const T *)*pp;
            if (p)
                cp_async16(dst, p + off);
            else
                st_vec<V>(dst, V{0, 0, 0, 0});
            dst += nwarps * pitch;
            pp += 2 * nwarps;
        }
    }
}

/* Border tiles: the window coefficients outside the band row, one element
 * each: zero, the band row's coefficient at the index modulo its length
 * (periodization), or at the folded position of the interleaved sequence
 * (JPEG 2000; border_keeps_phase() says the fold keeps the parity). */
template <typename T>
WT_DEV void gather_inverse_outside(const cu_axis &ax, T *win, int pitch, int half, int q, int wy,
                                   int m0, inv_lead lead, inv_inside in, const inv_row *rows)
{
    const int n_lo = in.k0_lo + (q - in.k1_lo), n_hi = in.k0_hi + (q - in.k1_hi);
    for_flat(n_lo + n_hi, wy, [&](int e, int iy) {
        const int px = e >= n_lo, j = e - (px ? n_lo : 0);
        const int k0 = px ? in.k0_hi : in.k0_lo, k1 = px ? in.k1_hi : in.k1_lo;
        const int k = j < k0 ? j : k1 + (j - k0);
        const int base = m0 + (px ? ax.dd : ax.da), count = px ? ax.n1 : ax.n;
        const T *p = (const T *)rows[iy].ptr[px]; /* band row + base */
        T v = (T)0;
        if (p && ax.ext == CU_COEF_PERIODIC)
            v = p[wt_floor_mod(base + k, count) - base];
        else if (p && ax.ext != CU_COEF_ZERO)
            v = p[coef_at(ax, 2 * (m0 + k) + px).idx - base];
        win[iy * pitch + px * half + (px ? lead.hi : lead.lo) + k] = v;
    });
}

/* Interior tiles: items (row, half, 16-byte block of that band row),
 * consecutive threads on consecutive blocks. When every band row is aligned
 * alike gather_inverse_copy; otherwise CU_BATCH_INV loads in flight per
 * thread. */
template <typename T>
WT_DEV inv_lead gather_inverse_fast(const cu_level &L, T *win, float *rscale, int py0, int px0,
                                    int c, void *scratch)
{
    typedef typename vec4<T>::type V;
    const cu_axis &ay = L.ax[0], &ax = L.ax[1];
    const int m0 = px0 >> 1, q = L.wx >> 1, wy = L.wy, pitch = L.pitch, half = L.half;
    const bool inside = coef_range_inside(ax, m0, q), copy = bands_uniform<T>(L, c);
    if ((px0 & 1) || (!inside && !(copy && border_keeps_phase(ax)))) {
        gather_inverse_table<T>(L, win, rscale, py0, px0, c, scratch);
        return inv_lead{0, 0};
    }
    inv_row *rows = (inv_row *)scratch;
    const int nt = block_threads();
    for (int iy = thread_rank(); iy < wy; iy += nt) {
        coef_term cy = coef_at(ay, py0 + iy);
        for (int px = 0; px < 2; px++) {
            const int band = 2 * cy.phase + px, col0 = m0 + (px ? ax.dd : ax.da);
            rows[iy].ptr[px] = cy.idx < 0 ? NULL
                                          : (const T *)L.src[band] + (size_t)c * L.src_plane[band] +
                                                (size_t)cy.idx * L.src_w[band] + (ptrdiff_t)col0;
            rscale[2 * iy + px] = cy.idx < 0 ? 0.0f : cy.scale * (px ? ax.sd : ax.sa);
        }
    }
    WT_SYNC();
    const inv_lead lead = copy ? inv_lead{(m0 + ax.da) & 3, (m0 + ax.dd) & 3} : inv_lead{0, 0};
    const int nch = (3 + q + 3) >> 2;
    if (copy) {
        inv_inside in;
        inside_range(m0 + ax.da, ax.n, q, &in.k0_lo, &in.k1_lo);
        inside_range(m0 + ax.dd, ax.n1, q, &in.k0_hi, &in.k1_hi);
        gather_inverse_copy<T>(win, pitch, half, q, wy, lead, in, rows);
        if (!inside) { /* after the inside: its 16-byte blocks overhang */
            cp_async_wait();
            WT_SYNC();
            gather_inverse_outside<T>(ax, win, pitch, half, q, wy, m0, lead, in, rows);
        }
    }
    for (flat_walk it(2 * nch); !copy && it.slow < wy;) {
        V raw[CU_BATCH_INV];
        int first[CU_BATCH_INV], slot[CU_BATCH_INV]; /* pair of lane 0; q: none */
#pragma unroll
        for (int b = 0; b < CU_BATCH_INV; b++, it.next()) {
            first[b] = q;
            if (it.slow >= wy)
                continue;
            const int iy = it.slow, px = it.fast >= nch, jj = it.fast - (px ? nch : 0);
            T *dst = win + iy * pitch + px * half;
            const T *p = (const T *)rows[iy].ptr[px];
            if (!p) { /* a zero row */
                if (4 * jj < q)
                    st_vec<V>(dst + 4 * jj, V{0, 0, 0, 0});
                continue;
            }
            const int ml = misalign(p, 16) / (int)sizeof(T);
            if (jj >= (ml + q + 3) >> 2)
                continue;
            first[b] = 4 * jj - ml;
            slot[b] = iy * pitch + px * half;
            raw[b] = ld_vec<V>(p + first[b]);
        }
#pragma unroll
        for (int b = 0; b < CU_BATCH_INV; b++) {
            if (first[b] >= q)
                continue;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const int pair = first[b] + k;
                if (pair >= 0 && pair < q)
                    win[slot[b] + pair] = lane<T>(raw[b], k);
            }
        }
    }
    cp_async_wait();
    return lead;
}

/* v[2 j + odd] = row[LEAD + j], j < N, from 16-byte loads of the aligned
 * row (its room reaches the last block). */
template <int N, int LEAD, typename T> WT_DEV void load_half_at(T *v, int odd, const T *row)
{
    typedef typename vec4<T>::type V;
#pragma unroll
    for (int i = 0; i < (N + LEAD + 3) / 4; i++) {
        const V x = ld_vec<V>(row + 4 * i);
        const T t[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int j = 4 * i + k - LEAD;
            if (j >= 0 && j < N)
                v[2 * j + odd] = t[k];
        }
    }
}

/* v[2 j + odd] = s * row[lead + j], j < N (lead < 4: one compiled case per
 * value, so that the registers are picked at compile time). */
template <int N, typename T> WT_DEV void load_half(T *v, int odd, const T *row, int lead, float s)
{
    switch (lead) {
    case 0: load_half_at<N, 0>(v, odd, row); break;
    case 1: load_half_at<N, 1>(v, odd, row); break;
    case 2: load_half_at<N, 2>(v, odd, row); break;
    default: load_half_at<N, 3>(v, odd, row); break;
    }
    if constexpr (!std::is_integral<T>::value) {
        if (s != 1.0f) { /* x 1 is exact: skipped */
#pragma unroll
            for (int j = 0; j < N; j++)
                v[2 * j + odd] = (T)(s * (float)v[2 * j + odd]);
        }
    }
}

/* ---------------------------------------------------------------------- */
/* Register segments */

/* v[j] = line[j * stride], j < SPAN; stride 1 uses 16-byte loads (the
 * caller guarantees alignment and room for SPAN rounded up to 4). */
template <int SPAN, typename T> WT_DEV void load_span(T *v, const T *line, int stride)
{
    if (stride == 1) {
        typedef typename vec4<T>::type V;
#pragma unroll
        for (int j = 0; j < SPAN; j += 4) {
            V t = ld_vec<V>(line + j);
            v[j] = t.x;
            if (j + 1 < SPAN)
                v[j + 1] = t.y;
            if (j + 2 < SPAN)
                v[j + 2] = t.z;
            if (j + 3 < SPAN)
                v[j + 3] = t.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < SPAN; j++)
            v[j] = line[j * stride];
    }
}

/* CU_SEG outputs to dst[k]: 16- or 8-byte stores when the whole run is
 * inside and aligned, else one by one up to @p count. */
template <typename T> WT_DEV void store_run(T *dst, const T *o, int count)
{
    if (count >= CU_SEG && !misalign(dst, 16)) {
        typedef typename vec4<T>::type V;
#pragma unroll
        for (int k = 0; k < CU_SEG; k += 4)
            st_vec<V>(dst + k, V{o[k], o[k + 1], o[k + 2], o[k + 3]});
        return;
    }
    if (count >= CU_SEG && !misalign(dst, 8)) {
        typedef typename vec2<T>::type V;
#pragma unroll
        for (int k = 0; k < CU_SEG; k += 2)
            st_vec<V>(dst + k, V{o[k], o[k + 1]});
        return;
    }
#pragma unroll
    for (int k = 0; k < CU_SEG; k++)
        if (k < count)
            dst[k] = o[k];
}

/* The four output tiles of a forward block, staged in shared memory
 * (stage[(b * ty + row) * sp + u]), to band rows at any alignment: band by
 * band, items (row, 16-byte block of the destination), consecutive threads
 * on consecutive blocks; whole blocks with one 16-byte store, the partial
 * ones at the ends of a row element by element. */
template <typename T>
WT_DEV void store_staged(const cu_level &L, const T *stage, int sp, int c, int uy0, int ux0)
{
    typedef typename vec4<T>::type V;
    const cu_axis &ay = L.ax[0], &ax = L.ax[1];
    const int ty = L.ty, nblk = (L.tx + 3 + 3) >> 2;
    for (int b = 0; b < 4; b++) {
        const int cx = ((b & 1) ? ax.count1 : ax.count0) - ux0, count = cx < L.tx ? cx : L.tx;
        const int rows = ((b >> 1) ? ay.count1 : ay.count0) - uy0;
        if (count <= 0 || rows <= 0)
            continue;
        T *base = (T *)L.dst[b] + c * L.dst_plane[b] + ux0;
        const size_t w = (size_t)L.dst_w[b];
        const T *sb = stage + b * ty * sp;
        for (flat_walk it(nblk); it.slow < ty && it.slow < rows; it.next()) {
            T *d = base + (size_t)(uy0 + it.slow) * w;
            const int ml = misalign(d, 16) / (int)sizeof(T), e0 = 4 * it.fast - ml;
            if (e0 >= count)
                continue;
            const T *s = sb + it.slow * sp;
            if (e0 >= 0 && e0 + 4 <= count) {
                st_vec<V>(d + e0, V{s[e0], s[e0 + 1], s[e0 + 2], s[e0 + 3]});
                continue;
            }
#pragma unroll
            for (int k = 0; k < 4; k++)
                if (e0 + k >= 0 && e0 + k < count)
                    d[e0 + k] = s[e0 + k];
        }
    }
}

/* ---------------------------------------------------------------------- */
/* Kernels. Shared memory (cu_fast_smem): the window, rows of L.pitch
 * elements (a multiple of 4; forward >= wx + 6; inverse: two halves, the
 * high-pass one L.half elements in), then mid: forward 2 ty rows of L.pitch,
 * inverse wy rows of CU_MID_PITCH(tx) and the 2 wy row scales. */

/* CU_FWD_BLOCKS, CU_MID_PITCH, CU_INV_WIDE: cu_tuning.h */

/* Threads per block of Op's forward kernel: one segment item per thread in
 * the y-stage, which runs over the wx = 64 + halo window columns of a
 * 32 x 32 tile, 4 segments each; with 256 threads the 8-32 segments of the
 * halo columns made a second round that the whole block waited for. Still
 * 4 blocks per SM, so at most 56 registers: only for register segments of
 * up to 24 values (db3 lifting and 12-tap filters would spill). Measured on
 * the H100 (8192², 3 levels): legall53 forward 72% -> 78% of copy, cdf97
 * 76% -> 79%, db3 conv 81% -> 82%; 3 blocks of 288 threads lost 4-6 points.
 * The inverses take the same size (their x-stage runs over wy = 64 + halo
 * window rows, 4 segments each): once their gather went a warp per row,
 * cdf97 inverse 77.4% -> 78.8%, bior4.4 per. 73.5% -> 74.8% (CU_INV_WIDE=0
 * keeps 256 threads, for A/B runs). */
template <class Op> constexpr int fast_forward_threads()
{
    return Op::HALO == 0 || Op::SPAN > 24 ? CU_BLOCK_X * CU_BLOCK_Y
                                          : ((64 + Op::HALO) * (32 / CU_SEG) + 31) / 32 * 32;
}
template <class Op> constexpr int fast_inverse_threads()
{
    return CU_INV_WIDE ? fast_forward_threads<Op>() : CU_BLOCK_X * CU_BLOCK_Y;
}

/* n rounded up to whole segments */
WT_DEV int round_seg(int n)
{
    return (n + CU_SEG - 1) / CU_SEG * CU_SEG;
}

WT_DEV int imin(int a, int b)
{
    return a < b ? a : b;
}

template <class Op, typename T, typename TIn>
WT_GLOBAL void WT_LAUNCH_BOUNDS_MIN(fast_forward_threads<Op>(), CU_FWD_BLOCKS)
    dwt_forward_fast(const WT_GRID_CONST cu_level L)
{
    WT_DYN_SMEM(unsigned char, smem);
    const cu_axis &ay = L.ax[0], &ax = L.ax[1];
    const int ty = L.ty, tx = L.tx, pitch = L.pitch;
    T *win = (T *)smem, *mid = win + L.wy * pitch; /* mid: 2 ty rows x pitch */
    const int c = (int)blockIdx.z, uy0 = (int)blockIdx.y * ty, ux0 = (int)blockIdx.x * tx;
    const TIn *src = (const TIn *)L.src[0] + (size_t)c * L.src_plane[0];
    /* tiles at the far edges: only the pairs there are, in whole segments
     * (4098-wide bands leave 2 of 32), and the window they need */
    const int tye = imin(ty, round_seg(ay.pairs - uy0)), txe = imin(tx, round_seg(ax.pairs - ux0));
    const int wy = 2 * tye + ay.halo, wx = 2 * txe + ax.halo;
    /* x-stage rows: low-pass [0, tye) then high-pass [ty, ty + tye) of mid */
    auto mid_row = [&](int r) { return r < tye ? r : ty + (r - tye); };

    const int lead = gather_forward_fast<T, TIn>(L, win, pitch, 2 * uy0 + ay.win_a,
                                                 2 * ux0 + ax.win_a, wy, wx, src, mid);
    WT_SYNC();
    const T *wv = win + lead;
    for_flat(wx, tye / CU_SEG, [&](int ix, int seg) {
        T v[Op::SPAN], o0[CU_SEG], o1[CU_SEG];
        load_span<Op::SPAN>(v, wv + 2 * seg * CU_SEG * pitch + ix, pitch);
        Op::run(ay, v, o0, o1);
#pragma unroll
        for (int k = 0; k < CU_SEG; k++) {
            mid[(seg * CU_SEG + k) * pitch + ix] = o0[k];
            mid[(ty + seg * CU_SEG + k) * pitch + ix] = o1[k];
        }
    });
    WT_SYNC();
    if (L.dst_aligned) { /* 16-byte stores straight from the registers */
        for_flat(txe / CU_SEG, 2 * tye, [&](int seg, int rr) {
            const int r = mid_row(rr), py = r >= ty, uy = uy0 + r - (py ? ty : 0), ux = ux0 + seg * CU_SEG;
            if (uy >= (py ? ay.count1 : ay.count0))
                return;
            T v[(Op::SPAN + 3) & ~3], o0[CU_SEG], o1[CU_SEG];
            load_span<(Op::SPAN + 3) & ~3>(v, mid + r * pitch + 2 * seg * CU_SEG, 1);
            Op::run(ax, v, o0, o1);
            const int b0 = 2 * py, b1 = 2 * py + 1;
            T *d0 = (T *)L.dst[b0] + c * L.dst_plane[b0] + (size_t)uy * L.dst_w[b0] + ux;
            T *d1 = (T *)L.dst[b1] + c * L.dst_plane[b1] + (size_t)uy * L.dst_w[b1] + ux;
            store_run(d0, o0, ax.count0 - ux);
            store_run(d1, o1, ax.count1 - ux);
        });
        return;
    }
    /* band rows at any alignment: the four output tiles go through the (now
     * free) window area, then out with consecutive lanes on consecutive
     * addresses */
    const int sp = tx + 1; /* staging row pitch */
    T *stage = win;        /* [band][ty rows][sp] */
    for_flat(txe / CU_SEG, 2 * tye, [&](int seg, int rr) {
        const int r = mid_row(rr), py = r >= ty, row = r - (py ? ty : 0);
        T v[(Op::SPAN + 3) & ~3], o0[CU_SEG], o1[CU_SEG];
        load_span<(Op::SPAN + 3) & ~3>(v, mid + r * pitch + 2 * seg * CU_SEG, 1);
        Op::run(ax, v, o0, o1);
        T *s0 = stage + ((2 * py) * ty + row) * sp + seg * CU_SEG;
        T *s1 = stage + ((2 * py + 1) * ty + row) * sp + seg * CU_SEG;
#pragma unroll
        for (int k = 0; k < CU_SEG; k++) {
            s0[k] = o0[k];
            s1[k] = o1[k];
        }
    });
    WT_SYNC();
    store_staged(L, stage, sp, c, uy0, ux0);
}

template <class Op, typename T, typename TOut>
WT_GLOBAL void WT_LAUNCH_BOUNDS_MIN(fast_inverse_threads<Op>(), CU_FWD_BLOCKS)
    dwt_inverse_fast(const WT_GRID_CONST cu_level L)
{
    typedef typename vec4<T>::type V;
    WT_DYN_SMEM(unsigned char, smem);
    const cu_axis &ay = L.ax[0], &ax = L.ax[1];
    const int ty = L.ty, tx = L.tx, wy = L.wy, pitch = L.pitch, mp = CU_MID_PITCH(tx);
    T *win = (T *)smem, *mid = win + wy * pitch; /* mid: wy rows x 2 tx samples */
    float *rscale = (float *)(mid + wy * mp);    /* 2 wy row scales */
    const int c = (int)blockIdx.z, uy0 = (int)blockIdx.y * ty, ux0 = (int)blockIdx.x * tx;

    const inv_lead lead = gather_inverse_fast<T>(L, win, rscale, 2 * uy0 + ay.win_a,
                                                 2 * ux0 + ax.win_a, c, mid);
    WT_SYNC();
    /* tx: a power of two (cu_level_tiles) */
    for_flat_pow2(log2_pow2(tx / CU_SEG), wy, [&](int seg, int iy) {
        T v[Op::SPAN], o0[CU_SEG], o1[CU_SEG];
        const T *row = win + iy * pitch + seg * CU_SEG;
        load_half<Op::SPAN / 2>(v, 0, row, lead.lo, rscale[2 * iy]);
        load_half<Op::SPAN / 2>(v, 1, row + L.half, lead.hi, rscale[2 * iy + 1]);
        Op::run(ax, v, o0, o1);
        T *m = mid + iy * mp + 2 * seg * CU_SEG;
#pragma unroll
        for (int k = 0; k < CU_SEG; k += 2)
            st_vec<V>(m + 2 * k, V{o0[k], o1[k], o0[k + 1], o1[k + 1]});
    });
    WT_SYNC();
    const int ny = ay.count0 + ay.count1, nx = ax.count0 + ax.count1;
    TOut *out = (TOut *)L.dst[0] + (size_t)c * L.dst_plane[0];
    for_flat_pow2(log2_pow2(2 * tx), ty / CU_SEG, [&](int col, int seg) {
        const int ox = 2 * ux0 + col, oy0 = 2 * (uy0 + seg * CU_SEG);
        if (ox >= nx || oy0 >= ny)
            return;
        T v[Op::SPAN], o0[CU_SEG], o1[CU_SEG];
        load_span<Op::SPAN>(v, mid + 2 * seg * CU_SEG * mp + col, mp);
        Op::run(ay, v, o0, o1);
        const size_t w = (size_t)L.dst_w[0];
        TOut *o = out + (size_t)oy0 * w + ox;
        if (oy0 + 2 * CU_SEG <= ny) { /* the whole segment inside */
#pragma unroll
            for (int k = 0; k < CU_SEG; k++, o += 2 * w) {
                o[0] = (TOut)o0[k];
                o[w] = (TOut)o1[k];
            }
            return;
        }
#pragma unroll
        for (int k = 0; k < CU_SEG; k++, o += 2 * w) {
            const int oy = oy0 + 2 * k;
            if (oy < ny)
                o[0] = (TOut)o0[k];
            if (oy + 1 < ny)
                o[w] = (TOut)o1[k];
        }
    });
}

#endif
