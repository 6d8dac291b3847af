/* The CUDA engine's level kernels on the host side: launches (generic,
 * fast, conversions, benchmark inputs), the choice of a fast kernel for a
 * level and its geometry, and each level's plan (operators, tiles). The one
 * translation unit that instantiates the level kernels (cu_kernels.cuh,
 * cu_fast.cuh). Split from cu_engine.cu; shared: cu_engine_impl.h. */
#include <string.h>

#include "cu_fast.cuh"
#include "cu_split.cuh"
#include "cu_engine.h"
#include "cu_engine_impl.h"

/* ---------------------------------------------------------------------- */
/* Kernel launches */

dim3 level_grid(const cu_level *lv, int channels)
{
    unsigned gx = (unsigned)((lv->ax[1].pairs + lv->tx - 1) / lv->tx);
    unsigned gy = (unsigned)((lv->ax[0].pairs + lv->ty - 1) / lv->ty);
    return dim3(gx, gy, (unsigned)channels);
}

static wt_status check_grid(dim3 g)
{
    if (g.y > 65535 || g.z > 65535)
        return wt_error_set(WT_ERR_LIMIT, "CUDA engine: too many rows or channels (%u x %u tiles)",
                            g.y, g.z);
    return WT_OK;
}

/* The one launch of a level kernel, generic or fast, either direction: one
 * block per tile and channel. @p pdl (fast kernels only, which wait for
 * their inputs with WT_PDL_BEGIN): a programmatic dependent launch, whose
 * blocks may be scheduled while the previous kernel on the stream finishes
 * (Hopper and later; a plain launch on older GPUs). */
static wt_status launch_grid(cu_engine *ce, level_kernel kern, const cu_level *lv, dim3 grid,
                             dim3 block, size_t smem, int pdl)
{
    WT_TRY(check_grid(grid));
#ifdef WT_CUDA_EMULATE
    (void)pdl; /* one kernel after the other */
#else
    if (pdl) {
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr[0].val.programmaticStreamSerializationAllowed = 1;
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = grid;
        cfg.blockDim = block;
        cfg.dynamicSmemBytes = smem;
        cfg.stream = ce->stream;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        CU_CHECK(cudaLaunchKernelEx(&cfg, kern, *lv));
        return WT_OK;
    }
#endif
    WT_LAUNCH(kern, grid, block, smem, ce->stream, *lv);
    CU_CHECK(cudaGetLastError());
    return WT_OK;
}

static wt_status launch_level(cu_engine *ce, level_kernel kern, const cu_level *lv, int channels,
                              dim3 block, size_t smem, int pdl)
{
    return launch_grid(ce, kern, lv, level_grid(lv, channels), block, smem, pdl);
}

/* Generic level kernels (cu_kernels.cuh): T in shared memory, TIO the
 * level's input (forward) or output (inverse) samples, Acc accumulation. */
template <bool INV, typename T, typename TIO, typename Acc> static level_kernel generic_kernel()
{
    if constexpr (INV)
        return dwt_inverse_kernel<T, TIO, Acc>;
    else
        return dwt_forward_kernel<T, TIO, Acc>;
}

template <bool INV, typename T, typename TIO, typename Acc>
static wt_status launch_generic(cu_engine *ce, const cu_level *lv, int channels, int)
{
    return launch_level(ce, generic_kernel<INV, T, TIO, Acc>(), lv, channels,
                        dim3(CU_BLOCK_X, CU_BLOCK_Y), cu_level_smem(lv, INV, sizeof(T)), 0);
}

template <typename TOut, typename TIn>
wt_status launch_convert(cu_engine *ce, void *dst, const void *src, size_t n)
{
    void (*kern)(TOut *, const TIn *, size_t) = convert_kernel<TOut, TIn>;
    WT_LAUNCH(kern, dim3(1024), dim3(256), 0, ce->stream, (TOut *)dst, (const TIn *)src, n);
    CU_CHECK(cudaGetLastError());
    return WT_OK;
}

/* The conversions of cu_forward_device / cu_inverse_device (levels 0). */
template wt_status launch_convert<int32_t, float>(cu_engine *, void *, const void *, size_t);
template wt_status launch_convert<float, float>(cu_engine *, void *, const void *, size_t);
template wt_status launch_convert<float, int32_t>(cu_engine *, void *, const void *, size_t);

wt_status fill_random(cu_engine *ce, float *d, size_t n, uint32_t seed)
{
    WT_LAUNCH(fill_random_kernel, dim3(1024), dim3(256), 0, ce->stream, d, n, seed);
    CU_CHECK(cudaGetLastError());
    return WT_OK;
}

/* Raise the dynamic shared memory limit of a level kernel. */
static wt_status allow_smem(level_kernel kern, size_t bytes)
{
    CU_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    return WT_OK;
}

template <bool INV> static wt_status allow_smem_generic(size_t bytes)
{
    WT_TRY(allow_smem(generic_kernel<INV, float, float, float>(), bytes));
    WT_TRY(allow_smem(generic_kernel<INV, float, float, double>(), bytes));
    WT_TRY(allow_smem(generic_kernel<INV, int32_t, float, int32_t>(), bytes));
    return allow_smem(generic_kernel<INV, int32_t, int32_t, int32_t>(), bytes);
}

/* ---------------------------------------------------------------------- */
/* Fast kernels (cu_fast.cuh): chosen per level when the operator of both
 * axes matches one compiled in; the level's geometry is then adjusted. */

static size_t fast_smem(const cu_level *lv, int inverse)
{
    size_t win = (size_t)lv->wy * (size_t)lv->pitch;
    size_t mid = inverse ? (size_t)lv->wy * (CU_MID_PITCH((size_t)lv->tx) + 2)
                         : 2 * (size_t)lv->ty * (size_t)lv->pitch;
    return (win + mid) * 4;
}

/* Phase taps moved @p shift places in and padded with zero taps to L. */
static void pad_phase(float *f, double *g, int shift, int len, int L)
{
    float fs[CU_MAXF];
    double gs[CU_MAXF];
    for (int i = 0; i < L; i++) {
        int k = i - shift;
        fs[i] = k >= 0 && k < len ? f[k] : 0.0f;
        gs[i] = k >= 0 && k < len ? g[k] : 0.0;
    }
    memcpy(f, fs, (size_t)L * sizeof *f);
    memcpy(g, gs, (size_t)L * sizeof *g);
}

/* Two-phase filters whose taps span at most L window positions from the
 * first: normalised to L taps at offset 0, a phase that starts later or ends
 * sooner padded with zero taps. The sums are then the same (fma(0, x, s) is s
 * for finite x; an inf or NaN coefficient next to a phase's support would
 * reach that output as NaN). Periodization inverses of filters of 4k taps
 * have phases two positions apart (db2: 4 taps at 0 and 2, 6 in all),
 * JPEG 2000 analysis odd lengths (9/7). The entries of fast_kernels are 2
 * taps apart up to 24, then 4 up to 64, then 8: spans (lprev, L] take L. */
static bool conv_fits(cu_axis *a, int L, int lprev)
{
    if (a->nsteps || a->len0 < 1 || a->len1 < 1)
        return false;
    int lo = a->off0 < a->off1 ? a->off0 : a->off1;
    int hi = a->off0 + a->len0 > a->off1 + a->len1 ? a->off0 + a->len0 : a->off1 + a->len1;
    if (hi - lo > L || hi - lo <= lprev)
        return false;
    pad_phase(a->f0, a->g0, a->off0 - lo, a->len0, L);
    pad_phase(a->f1, a->g1, a->off1 - lo, a->len1, L);
    a->len0 = a->len1 = L;
    a->win_a += lo;
    a->off0 = a->off1 = 0;
    a->halo = L > 2 ? L - 2 : 0;
    return true;
}

/* The lifting structure S in the generic geometry of cu_plan.cu: moved to
 * the tight window of lift_op (same values at the same positions). */
template <class S, bool INV> static bool lift_fits(cu_axis *a)
{
    typedef lift_op<S, INV> op;
    if (a->nsteps != S::n || a->len0 != 1 || a->len1 != 1 || a->off0 != op::GEN_OFF0 ||
        a->off1 != op::GEN_OFF1 || a->halo != op::GEN_HALO)
        return false;
    for (int j = 0; j < S::n; j++) {
        int s = INV ? S::n - 1 - j : j;
        const cu_step *st = &a->steps[j];
        if (st->update != S::upd(s) || st->offset != S::off(s) || st->ntaps != S::nt(s))
            return false;
    }
    a->win_a += op::SHIFT;
    a->halo = op::HALO;
    a->off0 = op::OFF0;
    a->off1 = op::OFF1;
    return true;
}

template <class S> static bool lift_fits_both(cu_level *lv, int inverse)
{
    return inverse ? lift_fits<S, true>(&lv->ax[0]) && lift_fits<S, true>(&lv->ax[1])
                   : lift_fits<S, false>(&lv->ax[0]) && lift_fits<S, false>(&lv->ax[1]);
}

/* Entries of the fast kernel list: op<INV> the operator of each direction,
 * T the samples between levels (the first level reads and writes float),
 * fits() whether a level's axes (both, adjusted on success) are that operator,
 * TAIL whether its levels may be fused (dwt_tail_fast: float levels, short
 * filters and lifting). */
template <int L, int LPREV = L - 2> struct fast_conv {
    template <bool INV> using op = conv_op<L, INV>;
    typedef float T;
    static constexpr bool TAIL = L <= CU_TAIL_TAPS;
    /* long filters may run as two passes (policy long_split) */
    static constexpr bool SPLIT = conv_op<L>::LONG;
    static bool wants_split(int split_taps) { return split_taps > 0 && L >= split_taps; }
    /* forwards of 8 and 10 taps spill at 48 registers (cu_tuning.h) */
    template <bool INV>
    static constexpr bool MORE = L <= CU_MORE_TAPS && (INV || L < 8 || L > 10);
    static bool wants_more(const cu_policy &q) { return L <= q.fast_blocks_taps; }
    static bool fits(const wt_params *p, cu_level *f, int)
    {
        return !p->wavelet->integer && p->method != WT_METHOD_LIFTING &&
               conv_fits(&f->ax[0], L, LPREV) && conv_fits(&f->ax[1], L, LPREV);
    }
};

template <class S> struct fast_lift {
    template <bool INV> using op = lift_op<S, INV>;
    typedef float T;
    static constexpr bool TAIL = true, SPLIT = false;
    template <bool INV> static constexpr bool MORE = true;
    static bool wants_more(const cu_policy &q) { return q.fast_blocks_lift; }
    static bool fits(const wt_params *p, cu_level *f, int inverse)
    {
        return !p->wavelet->integer && p->method == WT_METHOD_LIFTING &&
               lift_fits_both<S>(f, inverse);
    }
};

/* NARROW: the 32-bit steps, for levels whose inputs are known to lie within
 * WT_LIFT53_NARROW_MAX (cu_level.narrow); the 64-bit saturating steps
 * otherwise (issue 17: 78-82% -> 58-59% of copy on the H100 when every level
 * ran them). */
template <bool NARROW> struct fast_legall53 {
    template <bool INV> using op = lift_op<scheme_legall53, INV, NARROW>;
    typedef int32_t T;
    static constexpr bool TAIL = false; /* int32 levels after a float first one */
    static constexpr bool SPLIT = false;
    /* the 64-bit steps' forward spills at 48 registers (cu_tuning.h) */
    template <bool INV> static constexpr bool MORE = INV || NARROW;
    static bool wants_more(const cu_policy &q) { return q.fast_blocks_lift; }
    static bool fits(const wt_params *p, cu_level *f, int inverse)
    {
        return p->wavelet->integer && (f->narrow || !NARROW) &&
               lift_fits_both<scheme_legall53>(f, inverse);
    }
};

/* THE list of fast kernels: allow_smem_all raises the shared memory limit
 * of each, pick_fast takes the first that fits a level. A new fast kernel is
 * one entry here (and its operator in cu_fast.cuh). Each entry's kernels
 * are built for CU_FWD_BLOCKS blocks per SM and, in the directions where
 * MORE<INV>, also for CU_MORE_BLOCKS (taken where the policy's fast_blocks
 * asks for them and the entry's wants_more agrees: fast_blocks_taps,
 * fast_blocks_lift). */
template <class... E> struct fast_list {
};
typedef fast_list<fast_conv<2>, fast_conv<4>, fast_conv<6>, fast_conv<8>, fast_conv<10>,
                  fast_conv<12>, fast_conv<14>, fast_conv<16>, fast_conv<18>, fast_conv<20>,
                  fast_conv<22>, fast_conv<24>, fast_conv<28, 24>, fast_conv<32, 28>,
                  fast_conv<36, 32>, fast_conv<40, 36>, fast_conv<44, 40>, fast_conv<48, 44>,
                  fast_conv<52, 48>, fast_conv<56, 52>, fast_conv<60, 56>, fast_conv<64, 60>,
                  fast_conv<72, 64>, fast_conv<80, 72>, fast_conv<88, 80>, fast_conv<96, 88>,
                  fast_conv<104, 96>, fast_conv<112, 104>,
                  fast_lift<scheme_cdf97>, fast_lift<scheme_db3>, fast_lift<scheme_haar>,
                  fast_lift<scheme_dd137>,
                  fast_legall53<true>, fast_legall53<false>>
    fast_kernels;

/* Entry E's kernel of one direction, samples TIO in or out, built for B
 * blocks per SM. */
template <class E, bool INV, typename TIO, int B = CU_FWD_BLOCKS> static level_kernel fast_kernel()
{
    if constexpr (INV)
        return dwt_inverse_fast<typename E::template op<true>, typename E::T, TIO, B>;
    else
        return dwt_forward_fast<typename E::template op<false>, typename E::T, TIO, B>;
}

/* Entry E's kernel of fused levels, one direction. */
template <class E, bool INV> static tail_kernel tail_kernel_of()
{
    return dwt_tail_fast<typename E::template op<INV>, INV>;
}

template <class E, bool INV, typename TIO, int B>
static wt_status launch_fast(cu_engine *ce, const cu_level *lv, int channels, int pdl)
{
#ifdef WT_CUDA_EMULATE
    wt_emu_fast_launches++;
#endif
    typedef typename E::template op<INV> Op;
    int threads = INV ? fast_inverse_threads<Op, B>() : fast_forward_threads<Op, B>();
    return launch_level(ce, fast_kernel<E, INV, TIO, B>(), lv, channels, dim3(32, threads / 32),
                        fast_smem(lv, INV), pdl);
}

/* ---------------------------------------------------------------------- */
/* Long filters as two single-axis passes (cu_split.cuh, policy long_split) */

static int pow2_tile(int pairs, int cap);

/* Shared memory of a pass: the window (wy rows of pitch) and the tables
 * behind it (the gathers' rows, 16 bytes, and columns, 8, at most; the
 * inverse y pass's row scales). */
static size_t split_smem(const cu_level *p)
{
    return (size_t)p->wy * (size_t)p->pitch * 4 + 20 * (size_t)p->wy + 8 * (size_t)p->wx;
}

/* Rows of pitch elements, a multiple of 4 with room for the gather's lead
 * (up to 3) and 16-byte chunks; odd in 16-byte units, so that the x
 * passes' row loads of a quarter warp (8 rows) hit distinct banks. */
static int split_pitch(int wx)
{
    const int pitch = (wx + 6 + 3) & ~3;
    return pitch & 4 ? pitch : pitch + 4;
}

/* Level *p made the pass along x (@p along_x: rows of the level's input or
 * output, policy split_rows x split_tx pairs) or along y (split_ty pairs x
 * split_cols buffer columns), tiles halved while its window does not fit
 * @p cap bytes; its grid. The forward y pass reads the buffer as its
 * signal: ax.n its width, every column inside. */
static dim3 split_pass(const cu_engine *ce, cu_level *p, int along_x, int inverse, int channels,
                       size_t cap)
{
    const cu_policy *q = &ce->pol;
    const cu_axis &ay = p->ax[0], &ax = p->ax[1];
    if (along_x) {
        const int nrows = inverse ? ay.count0 + ay.count1 : ay.n;
        p->ty = q->split_rows;
        p->tx = pow2_tile(ax.pairs, q->split_tx);
        for (;;) {
            p->wy = p->ty;
            p->wx = 2 * p->tx + ax.halo;
            p->pitch = split_pitch(p->wx);
            if (split_smem(p) <= cap || p->ty == 1)
                break;
            p->ty /= 2;
        }
        return dim3((unsigned)((ax.pairs + p->tx - 1) / p->tx),
                    (unsigned)((nrows + p->ty - 1) / p->ty), (unsigned)channels);
    }
    if (!inverse) {
        p->ax[1].n = p->split_w;
        p->src_w[0] = p->split_w;
    }
    p->ty = pow2_tile(ay.pairs, q->split_ty);
    p->tx = q->split_cols;
    for (;;) {
        p->wy = 2 * p->ty + ay.halo;
        p->wx = p->tx;
        p->pitch = split_pitch(p->wx);
        if (split_smem(p) <= cap || p->ty == CU_SEG)
            break;
        p->ty /= 2;
    }
    return dim3((unsigned)((p->split_w + p->tx - 1) / p->tx),
                (unsigned)((ay.pairs + p->ty - 1) / p->ty), (unsigned)channels);
}

/* One pass of a split level, on a copy of it. */
static wt_status launch_pass(cu_engine *ce, level_kernel kern, const cu_level *lv, int along_x,
                             int inverse, int channels, int pdl)
{
    cu_level p = *lv;
    const dim3 grid = split_pass(ce, &p, along_x, inverse, channels, ce->smem_fast_cap);
    if (split_smem(&p) > ce->smem_fast)
        return wt_error_set(WT_ERR_UNSUPPORTED, "CUDA engine: a long filter's pass needs %zu bytes "
                            "of shared memory", split_smem(&p));
    return launch_grid(ce, kern, &p, grid, dim3(32, CU_SPLIT_THREADS / 32), split_smem(&p), pdl);
}

/* A split level of entry E, direction INV: the pass along x then y
 * (forward) or y then x (inverse), the second launched plainly. */
template <class E, bool INV>
static wt_status launch_split(cu_engine *ce, const cu_level *lv, int channels, int pdl)
{
    typedef typename E::template op<INV> Op;
#ifdef WT_CUDA_EMULATE
    wt_emu_fast_launches += 2;
#endif
    if constexpr (INV) {
        WT_TRY(launch_pass(ce, split_inverse_y<Op>, lv, 0, 1, channels, pdl));
        return launch_pass(ce, split_inverse_x<Op>, lv, 1, 1, channels, 0);
    } else {
        WT_TRY(launch_pass(ce, split_forward_x<Op>, lv, 1, 0, channels, pdl));
        return launch_pass(ce, split_forward_y<Op>, lv, 0, 0, channels, 0);
    }
}

/* The shared memory limit of entry E's split kernels. */
template <class E> static wt_status allow_smem_split(size_t bytes)
{
    typedef typename E::template op<false> F;
    typedef typename E::template op<true> I;
    WT_TRY(allow_smem(split_forward_x<F>, bytes));
    WT_TRY(allow_smem(split_forward_y<F>, bytes));
    WT_TRY(allow_smem(split_inverse_y<I>, bytes));
    return allow_smem(split_inverse_x<I>, bytes);
}

/* Entry E's kernels of one direction built for B blocks per SM: first
 * level (float) and later levels (E::T, the same kernel when that is float). */
template <class E, bool INV, int B> static wt_status allow_smem_dir(size_t bytes)
{
    typedef typename E::T T;
    WT_TRY(allow_smem(fast_kernel<E, INV, float, B>(), bytes));
    if constexpr (!std::is_same<T, float>::value)
        WT_TRY(allow_smem(fast_kernel<E, INV, T, B>(), bytes));
    return WT_OK;
}

/* Each kernel of entry E: both directions for CU_FWD_BLOCKS (and for
 * CU_MORE_BLOCKS where E::MORE), its fused levels' kernels. */
template <class E> static wt_status allow_smem_entry(size_t bytes)
{
    WT_TRY((allow_smem_dir<E, false, CU_FWD_BLOCKS>(bytes)));
    WT_TRY((allow_smem_dir<E, true, CU_FWD_BLOCKS>(bytes)));
    if constexpr (E::template MORE<false>)
        WT_TRY((allow_smem_dir<E, false, CU_MORE_BLOCKS>(bytes)));
    if constexpr (E::template MORE<true>)
        WT_TRY((allow_smem_dir<E, true, CU_MORE_BLOCKS>(bytes)));
    if constexpr (E::SPLIT)
        WT_TRY(allow_smem_split<E>(bytes));
    if constexpr (E::TAIL) {
        CU_CHECK(cudaFuncSetAttribute(tail_kernel_of<E, false>(),
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
        CU_CHECK(cudaFuncSetAttribute(tail_kernel_of<E, true>(),
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    }
    return WT_OK;
}

template <class... E> static wt_status allow_smem_fast(fast_list<E...>, size_t bytes)
{
    wt_status st = WT_OK;
    ((st = st == WT_OK ? allow_smem_entry<E>(bytes) : st), ...);
    return st;
}

/* Raise the dynamic shared memory limit of every level kernel once. */
wt_status allow_smem_all(size_t bytes, size_t fast_bytes)
{
    WT_TRY(allow_smem_fast(fast_kernels(), fast_bytes));
    WT_TRY(allow_smem_generic<false>(bytes));
    return allow_smem_generic<true>(bytes);
}

/* Entry E's launcher of direction INV, first level or later: of its
 * kernels built for CU_MORE_BLOCKS when @p q (NULL: never) asks for them,
 * E::MORE<INV> and E::wants_more (then *more set), else CU_FWD_BLOCKS. */
template <class E, bool INV>
static level_launcher dir_launcher(int first_level, const cu_policy *q, bool *more)
{
    typedef typename E::T T;
    *more = false;
    if constexpr (E::template MORE<INV>) {
        if (q && E::wants_more(*q)) {
            *more = true;
            return first_level ? launch_fast<E, INV, float, CU_MORE_BLOCKS>
                               : launch_fast<E, INV, T, CU_MORE_BLOCKS>;
        }
    }
    return first_level ? launch_fast<E, INV, float, CU_FWD_BLOCKS>
                       : launch_fast<E, INV, T, CU_FWD_BLOCKS>;
}

/* Entry E's launcher when it fits the level (then *f adjusted), else NULL;
 * *is_long, *more (its CU_MORE_BLOCKS kernel taken, see dir_launcher) and
 * *tail (its kernel of fused levels, if any) set. */
template <class E>
static level_launcher try_fast(const wt_params *p, cu_level *f, int inverse, int first_level,
                               const cu_policy *more_q, int split_taps, bool *is_long,
                               bool *more, level_tail *tail)
{
    cu_level g = *f;
    if (!E::fits(p, &g, inverse))
        return NULL;
    *f = g;
    *is_long = E::template op<false>::LONG;
    if constexpr (E::SPLIT) {
        if (E::wants_split(split_taps))
            return inverse ? launch_split<E, true> : launch_split<E, false>;
    }
    if constexpr (E::TAIL) {
        tail->kern = inverse ? tail_kernel_of<E, true>() : tail_kernel_of<E, false>();
        tail->threads = inverse ? fast_inverse_threads<typename E::template op<true>>()
                                : fast_forward_threads<typename E::template op<false>>();
    }
    return inverse ? dir_launcher<E, true>(first_level, more_q, more)
                   : dir_launcher<E, false>(first_level, more_q, more);
}

template <class... E>
static level_launcher first_fit(fast_list<E...>, const wt_params *p, cu_level *f, int inverse,
                                int first_level, const cu_policy *more_q, int split_taps,
                                bool *is_long, bool *more, level_tail *tail)
{
    level_launcher launch = NULL;
    ((launch = launch ? launch
                      : try_fast<E>(p, f, inverse, first_level, more_q, split_taps, is_long,
                                    more, tail)),
     ...);
    return launch;
}

static int use_double(const wt_params *p);

/* Window, pitch and half of a fast level with tiles of f->ty x f->tx. */
static void fast_geometry(cu_level *f, int inverse)
{
    cu_level_window(f);
    if (inverse) {
        /* two halves of a row, each with room for the lead (up to 3) and the
         * x-stage's 16-byte loads of its last segment; rows an odd number of
         * 16-byte units apart: the loads of a quarter warp (4 segments of 2
         * rows) hit distinct banks */
        int span_pairs = CU_SEG + f->ax[1].halo / 2;
        f->half = f->tx - CU_SEG + 4 * ((span_pairs + 6) / 4);
        f->pitch = 2 * f->half + 4;
    } else {
        /* room for the gather's lead (up to 3) and 16-byte chunks; rows 4 to
         * 12 banks apart (mod 16): the 16-byte row loads of a quarter warp
         * (4 segments of 2 rows) hit each bank at most twice */
        f->pitch = (f->wx + 6 + 3) & ~3;
        while (f->pitch % 16 < 4 || f->pitch % 16 > 12)
            f->pitch += 4;
    }
}

/* Tiles whose window does not fit: ty halved first (the forward y-stage's
 * halo recompute, 1 + halo / (4 tx), depends on tx only), both kept powers
 * of two of at least CU_SEG. False when neither can shrink. */
static bool halve_tile(cu_level *f)
{
    if (f->ty > CU_SEG)
        f->ty /= 2;
    else if (f->tx > CU_SEG)
        f->tx /= 2;
    else
        return false;
    return true;
}

/* Shared memory a fast block may take before its tile shrinks: the
 * device's opt-in limit unless WT_CUDA_FAST_SMEM (bytes) says less. */
size_t fast_smem_cap(size_t smem_fast)
{
    const char *v = wt_env()->cuda_fast_smem;
    size_t most = v && *v ? (size_t)strtoul(v, NULL, 10) : smem_fast;
    return most < smem_fast ? most : smem_fast;
}

/* The smallest power of two >= pairs, at most cap, at least CU_SEG. */
static int pow2_tile(int pairs, int cap)
{
    int t = CU_SEG;
    while (t < pairs && t < cap)
        t *= 2;
    return t;
}

/* The policy's tiles for a fast level (short filters: ce->pol.tile_y x
 * tile_x, 32 x 32 by default as the plan's; long filters: long_ty x long_tx,
 * inverse long_tx_inv) where the level still has ce->small_grid blocks per
 * SM with them (short filters: all @p channels counted, as small_tiles
 * counts them, so the default policy keeps the plan's tiles; long filters:
 * one channel, as measured in v12-longfilt); smaller levels keep the tiles
 * small_tiles gave them. */
static void policy_tiles(const cu_engine *ce, cu_level *f, int inverse, bool is_long, int channels)
{
    const cu_policy *q = &ce->pol;
    const int cy = is_long ? q->long_ty : inverse ? q->tile_y_inv : q->tile_y;
    const int cx = is_long ? (inverse ? q->long_tx_inv : q->long_tx)
                           : inverse ? q->tile_x_inv : q->tile_x;
    const int ty = pow2_tile(f->ax[0].pairs, cy);
    const int tx = pow2_tile(f->ax[1].pairs, cx);
    const double blocks = (double)((f->ax[0].pairs + ty - 1) / ty) * ((f->ax[1].pairs + tx - 1) / tx) *
                          (is_long ? 1 : channels);
    if (blocks < (double)ce->sms * ce->small_grid)
        return;
    f->ty = ty;
    f->tx = tx;
}

static double level_tiles(const cu_level *lv, int channels);

/* Whether a level may take the fast kernels built for CU_MORE_BLOCKS: the
 * policy's fast_blocks asks for them and the level (its plan's tiles) has
 * more blocks than the SMs hold at CU_FWD_BLOCKS each; a grid under one
 * wave gains no residency from them (H200, 512² L3 db3 inverse 12.9 ->
 * 13.9 us with them, v17). */
static bool wants_more_blocks(const cu_engine *ce, const cu_level *lv, int channels)
{
    return ce->pol.fast_blocks > CU_FWD_BLOCKS &&
           level_tiles(lv, channels) > (double)ce->sms * CU_FWD_BLOCKS;
}

/* Blocks ahead of a fast block whose window it prefetches: the policy's
 * fast_prefetch resident grids (the blocks per SM the kernel is built for
 * x SMs), at least 1 when on. */
static int prefetch_blocks(const cu_engine *ce, bool more)
{
    const double resident = (double)ce->sms * (more ? CU_MORE_BLOCKS : CU_FWD_BLOCKS);
    const double d = ce->pol.fast_prefetch * resident + 0.5;
    return d < 1 ? ce->pol.fast_prefetch > 0 : (int)d; /* fast_prefetch <= 8: no overflow */
}

/* The fast kernel for this level (adjusting *lv), or NULL: generic kernel;
 * *tail its kernel of fused levels (kern NULL: none). */
static level_launcher pick_fast(const cu_engine *ce, const wt_params *p, cu_level *lv,
                                int inverse, int first_level, int channels, level_tail *tail)
{
    if (ce->generic_only || use_double(p) || lv->ty % CU_SEG || lv->tx % CU_SEG)
        return NULL;
    if ((lv->tx & (lv->tx - 1)) || (lv->ty & (lv->ty - 1))) /* the inverse's item walks */
        return NULL;
    cu_level f = *lv;
    bool is_long = false, more = false;
    level_tail t = {NULL, 0};
    level_launcher launch = first_fit(fast_kernels(), p, &f, inverse, first_level,
                                      wants_more_blocks(ce, lv, channels) ? &ce->pol : NULL,
                                      lv->split ? ce->pol.long_split : 0, &is_long, &more, &t);
    if (!launch)
        return NULL;
    policy_tiles(ce, &f, inverse, is_long, channels);
    fast_geometry(&f, inverse);
    /* the CU_MORE_BLOCKS kernels: tiles whose blocks fit that many an SM */
    const size_t cap = more && ce->smem_fast_more < ce->smem_fast_cap ? ce->smem_fast_more
                                                                       : ce->smem_fast_cap;
    while (fast_smem(&f, inverse) > cap && halve_tile(&f))
        fast_geometry(&f, inverse);
    if (fast_smem(&f, inverse) > ce->smem_fast)
        return NULL;
    f.prefetch = is_long ? 0 : prefetch_blocks(ce, more);
    f.dst_aligned = 1;
    for (int b = 0; b < 4 && !inverse; b++)
        if (((uintptr_t)f.dst[b] & 15) || (f.dst_w[b] & 3) || (f.dst_plane[b] & 3))
            f.dst_aligned = 0;
    *lv = f;
    *tail = t;
    return launch;
}

/* ---------------------------------------------------------------------- */
/* The level loop */

/* Float accumulation (FMA) stays within 1.3e-6 of the CPU engine in every
 * mode that folds the signal; the extrapolating modes grow coefficients to
 * 1e6 near the borders, where cancellation needs double (gpu_check: float
 * reached 1.8e-5 for db12 smooth, 2 levels). */
static int use_double(const wt_params *p)
{
    return p->mode == WT_MODE_SMOOTH || p->mode == WT_MODE_ANTIREFLECT;
}

/* Small levels: tiles halved (down to CU_SEG pairs a side, the fast
 * kernels' least) until the grid has ce->small_grid blocks per SM. Each block
 * is a chain of dependent steps (gather, two stages, stores) whose latency
 * a grid this small cannot hide: a 512x512 level 1 ran 64 blocks of 32x32
 * pairs on the H100's 132 SMs, its level 3 four (dev/notes/kernel-log.md v12-small). */
static void small_tiles(const cu_engine *ce, cu_level *lv, int channels)
{
    for (;;) {
        dim3 g = level_grid(lv, channels);
        if ((double)g.x * g.y * g.z >= (double)ce->sms * ce->small_grid ||
            (lv->ty <= CU_SEG && lv->tx <= CU_SEG))
            return;
        if (lv->ty >= lv->tx && lv->ty > CU_SEG)
            lv->ty /= 2;
        else
            lv->tx /= 2;
        cu_level_window(lv);
    }
}

wt_status plan_level(cu_engine *ce, cu_level *lv, const wt_params *p, size_t h, size_t w,
                     int inverse, int channels)
{
    memset(lv, 0, sizeof *lv);
    WT_TRY(cu_axis_init(&lv->ax[0], p, h, inverse));
    WT_TRY(cu_axis_init(&lv->ax[1], p, w, inverse));
    WT_TRY(cu_level_tiles(lv, inverse, 4, ce->smem_limit));
    small_tiles(ce, lv, channels);
    return WT_OK;
}

template <bool INV> static level_launcher pick_generic(const wt_params *p, int integer,
                                                      int first_level)
{
    if (integer)
        return first_level ? launch_generic<INV, int32_t, float, int32_t>
                           : launch_generic<INV, int32_t, int32_t, int32_t>;
    return use_double(p) ? launch_generic<INV, float, float, double>
                         : launch_generic<INV, float, float, float>;
}

/* One level, either direction: the fast kernel that fits (adjusting *lv),
 * else the generic one. */
level_launcher pick_launcher(const cu_engine *ce, const wt_params *p, cu_level *lv,
                             int inverse, int first_level, int integer, int channels, int *fast,
                             level_tail *tail)
{
    level_tail t = {NULL, 0};
    level_launcher launch = pick_fast(ce, p, lv, inverse, first_level, channels, &t);
    if (tail)
        *tail = t;
    *fast = launch != NULL;
    if (!launch)
        launch = inverse ? pick_generic<true>(p, integer, first_level)
                         : pick_generic<false>(p, integer, first_level);
    return launch;
}

/* ---------------------------------------------------------------------- */
/* Fused levels (cu_program.cu) */

/* Blocks of kernel @p k resident at once with @p smem bytes each (0: none,
 * or the device does not say). */
static double resident_blocks(const cu_engine *ce, const level_tail *k, size_t smem)
{
#ifdef WT_CUDA_EMULATE
    (void)ce, (void)k, (void)smem;
    return WT_EMU_COOP_BLOCKS;
#endif
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k->kern, k->threads, smem) !=
        cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return (double)per_sm * ce->sms;
}

static double level_tiles(const cu_level *lv, int channels)
{
    const dim3 g = level_grid(lv, channels);
    return (double)g.x * g.y * g.z;
}

int tail_covers(const cu_engine *ce, const level_tail *k, const cu_level *lv, int inverse,
                int channels)
{
    return level_tiles(lv, channels) <= resident_blocks(ce, k, fast_smem(lv, inverse));
}

void fused_size(const cu_engine *ce, cu_fused *f)
{
    size_t smem = 0;
    double tiles = 0;
    for (int i = 0; i < f->t.nlevels; i++) {
        const size_t s = fast_smem(&f->t.lv[i], f->inverse);
        const double n = level_tiles(&f->t.lv[i], f->t.channels);
        smem = s > smem ? s : smem;
        tiles = n > tiles ? n : tiles;
    }
    f->smem = smem;
    f->grid = tiles <= resident_blocks(ce, &f->kern, smem) ? (unsigned)tiles : 0;
}

wt_status fused_launch(cu_engine *ce, const cu_fused *f)
{
#ifdef WT_CUDA_EMULATE
    (void)ce;
    wt_emu_fast_launches += f->t.nlevels;
    wt_emu_launch_cooperative(dim3(f->grid), f->smem, [&] { f->kern.kern(f->t); });
#else
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(f->grid);
    cfg.blockDim = dim3(32, (unsigned)f->kern.threads / 32);
    cfg.dynamicSmemBytes = f->smem;
    cfg.stream = ce->stream;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    CU_CHECK(cudaLaunchKernelEx(&cfg, f->kern.kern, f->t));
#endif
    return WT_OK;
}

/* ---------------------------------------------------------------------- */
/* Whether the device runs this build's kernels */

#ifndef WT_CUDA_ARCHS
#define WT_CUDA_ARCHS "(unknown)"
#endif

/* A GPU this build holds no code for (neither its SASS nor PTX it can
 * compile): one message naming its compute capability and the build's list. */
wt_status check_code_for(int device, const cudaDeviceProp *prop)
{
    cudaFuncAttributes attr;
    cudaError_t err = cudaFuncGetAttributes(&attr, dwt_forward_kernel<float, float, float>);
    if (err == cudaSuccess)
        return WT_OK;
    cudaGetLastError();
    if (err != cudaErrorNoKernelImageForDevice && err != cudaErrorInvalidDeviceFunction &&
        err != cudaErrorUnsupportedPtxVersion && err != cudaErrorInvalidPtx)
        return cu_fail_check(err, "cudaFuncGetAttributes");
    return wt_error_set(WT_ERR_DEVICE,
                        "cuda:%d (%.120s) has compute capability %d.%d; this build holds GPU "
                        "code for %s only (%s; rebuild with -Dgpu_archs=%d%d or portable)",
                        device, prop->name, prop->major, prop->minor, WT_CUDA_ARCHS,
                        cudaGetErrorString(err), prop->major, prop->minor);
}
