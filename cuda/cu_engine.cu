/* The CUDA engine: device selection, persistent device buffers, the level
 * loop (all levels on the device, one fused kernel per level), host
 * transfers of the float paths, and the benchmark hook (image paths:
 * cu_image.cu). Every CUDA runtime call goes through CU_CHECK or cu_fail,
 * the one place that turns a cudaError_t into a wt_status with a message;
 * device allocations go through device_alloc (WT_CUDA_MEM_LIMIT). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_fast.cuh"
#include "cu_engine.h"

/* ---------------------------------------------------------------------- */
/* Errors: the one boundary */

/* "3.1 GB", "12.0 MB", "512 bytes" */
static void fmt_bytes(char *buf, size_t size, double bytes)
{
    static const char *const unit[] = {"bytes", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000.0 && u < 4) {
        bytes /= 1000.0;
        u++;
    }
    snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}

/* Device bytes this engine could still allocate: the device's free memory,
 * capped by WT_CUDA_MEM_LIMIT. */
static size_t device_free(const cu_engine *ce)
{
    size_t free_b = 0, total = 0;
    if (cudaMemGetInfo(&free_b, &total) != cudaSuccess)
        free_b = 0; /* only for the message */
    if (ce && ce->mem_limit) {
        size_t left = ce->mem_limit > ce->mem_held ? ce->mem_limit - ce->mem_held : 0;
        free_b = left < free_b ? left : free_b;
    }
    return free_b;
}

wt_status cu_fail(const cu_engine *ce, cudaError_t err, const char *what, size_t need)
{
    (void)cudaGetLastError(); /* an allocation failure must not show at the next launch check */
    if (err != cudaErrorMemoryAllocation)
        return wt_error_set(WT_ERR_DEVICE, "CUDA error in %s: %s", what, cudaGetErrorString(err));
    char need_s[32], free_s[32];
    fmt_bytes(need_s, sizeof need_s, (double)need);
    fmt_bytes(free_s, sizeof free_s, (double)device_free(ce));
    if (!need)
        return wt_error_set(WT_ERR_DEVICE_NOMEM, "GPU out of memory in %s (%s free)", what,
                            free_s);
    return wt_error_set(WT_ERR_DEVICE_NOMEM, "GPU out of memory: need %s, %s free%s", need_s,
                        free_s, ce && ce->mem_limit ? " (WT_CUDA_MEM_LIMIT)" : "");
}

wt_status cu_fail_check(cudaError_t err, const char *what)
{
    return err == cudaSuccess ? WT_OK : cu_fail(NULL, err, what, 0);
}

wt_status cu_fail_host(cudaError_t err, const char *what, size_t bytes)
{
    if (err != cudaErrorMemoryAllocation)
        return cu_fail(NULL, err, what, 0);
    (void)cudaGetLastError();
    char need_s[32];
    fmt_bytes(need_s, sizeof need_s, (double)bytes);
    return wt_error_set(WT_ERR_NOMEM, "out of page-locked host memory in %s (need %s)", what,
                        need_s);
}

/* cudaMalloc of @p bytes, refused over WT_CUDA_MEM_LIMIT like a full device. */
static wt_status device_alloc(cu_engine *ce, void **ptr, size_t bytes)
{
    cudaError_t err = cudaSuccess;
    if (ce->mem_limit && (ce->mem_held > ce->mem_limit || bytes > ce->mem_limit - ce->mem_held))
        err = cudaErrorMemoryAllocation;
    else
        err = cudaMalloc(ptr, bytes);
    if (err != cudaSuccess && ce->spare_pyr) { /* the kept pyramid first, then again */
        cudaGetLastError();
        cu_spare_release(ce);
        return device_alloc(ce, ptr, bytes);
    }
    if (err != cudaSuccess)
        return cu_fail(ce, err, "cudaMalloc", bytes);
    ce->mem_held += bytes;
    return WT_OK;
}

/* ---------------------------------------------------------------------- */
/* Engine state */

/* Padded by 64 bytes: the fast gathers read whole 16-byte blocks. */
wt_status cu_buf_get(cu_engine *ce, int which, size_t bytes, void **ptr)
{
    bytes += 64;
    if (ce->buf_bytes[which] < bytes) {
        if (ce->buf[which])
            CU_CHECK(cudaFree(ce->buf[which]));
        ce->mem_held -= ce->buf_bytes[which];
        ce->buf[which] = NULL;
        ce->buf_bytes[which] = 0;
        WT_TRY(device_alloc(ce, &ce->buf[which], bytes));
        ce->buf_bytes[which] = bytes;
    }
    *ptr = ce->buf[which];
    return WT_OK;
}

wt_status cu_device_alloc(cu_engine *ce, void **ptr, size_t bytes)
{
    return device_alloc(ce, ptr, bytes);
}

void cu_device_free(cu_engine *ce, void *ptr, size_t bytes)
{
    if (ptr && cudaFree(ptr) == cudaSuccess) /* freeing: nothing to report */
        ce->mem_held -= bytes;
}

void cu_spare_release(cu_engine *ce)
{
    if (ce->tables_at == ce->spare_pyr)
        ce->tables_at = NULL;
    cu_device_free(ce, ce->spare_pyr, ce->spare_bytes);
    ce->spare_pyr = NULL;
    ce->spare_bytes = 0;
}

/* ---------------------------------------------------------------------- */
/* Kernel launches */

static dim3 level_grid(const cu_level *lv, int channels)
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

typedef void (*level_kernel)(const cu_level);
/* pdl: the launch may start while the previous level's kernel runs (a fast
 * kernel after a fast kernel, see launch_level) */
typedef wt_status (*level_launcher)(cu_engine *ce, const cu_level *lv, int channels, int pdl);

/* The one launch of a level kernel, generic or fast, either direction: one
 * block per tile and channel. @p pdl (fast kernels only, which wait for
 * their inputs with WT_PDL_BEGIN): a programmatic dependent launch, whose
 * blocks may be scheduled while the previous kernel on the stream finishes
 * (Hopper and later; a plain launch on older GPUs). */
static wt_status launch_level(cu_engine *ce, level_kernel kern, const cu_level *lv, int channels,
                              dim3 block, size_t smem, int pdl)
{
    dim3 grid = level_grid(lv, channels);
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
static wt_status launch_convert(cu_engine *ce, void *dst, const void *src, size_t n)
{
    void (*kern)(TOut *, const TIn *, size_t) = convert_kernel<TOut, TIn>;
    WT_LAUNCH(kern, dim3(1024), dim3(256), 0, ce->stream, (TOut *)dst, (const TIn *)src, n);
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
 * fits() whether a level's axes (both, adjusted on success) are that operator. */
template <int L, int LPREV = L - 2> struct fast_conv {
    template <bool INV> using op = conv_op<L, INV>;
    typedef float T;
    static bool fits(const wt_params *p, cu_level *f, int)
    {
        return !p->wavelet->integer && p->method != WT_METHOD_LIFTING &&
               conv_fits(&f->ax[0], L, LPREV) && conv_fits(&f->ax[1], L, LPREV);
    }
};

template <class S> struct fast_lift {
    template <bool INV> using op = lift_op<S, INV>;
    typedef float T;
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
    static bool fits(const wt_params *p, cu_level *f, int inverse)
    {
        return p->wavelet->integer && (f->narrow || !NARROW) &&
               lift_fits_both<scheme_legall53>(f, inverse);
    }
};

/* THE list of fast kernels: allow_smem_all raises the shared memory limit
 * of each, pick_fast takes the first that fits a level. A new fast kernel is
 * one entry here (and its operator in cu_fast.cuh). */
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

template <class E, bool INV, typename TIO> static level_kernel fast_kernel()
{
    if constexpr (INV)
        return dwt_inverse_fast<typename E::template op<true>, typename E::T, TIO>;
    else
        return dwt_forward_fast<typename E::template op<false>, typename E::T, TIO>;
}

template <class E, bool INV, typename TIO>
static wt_status launch_fast(cu_engine *ce, const cu_level *lv, int channels, int pdl)
{
#ifdef WT_CUDA_EMULATE
    wt_emu_fast_launches++;
#endif
    typedef typename E::template op<INV> Op;
    int threads = INV ? fast_inverse_threads<Op>() : fast_forward_threads<Op>();
    return launch_level(ce, fast_kernel<E, INV, TIO>(), lv, channels, dim3(32, threads / 32),
                        fast_smem(lv, INV), pdl);
}

/* Each kernel of entry E: both directions, first level (float) and later
 * levels (E::T, the same kernel when that is float). */
template <class E> static wt_status allow_smem_entry(size_t bytes)
{
    typedef typename E::T T;
    WT_TRY(allow_smem(fast_kernel<E, false, float>(), bytes));
    WT_TRY(allow_smem(fast_kernel<E, true, float>(), bytes));
    if constexpr (!std::is_same<T, float>::value) {
        WT_TRY(allow_smem(fast_kernel<E, false, T>(), bytes));
        WT_TRY(allow_smem(fast_kernel<E, true, T>(), bytes));
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
static wt_status allow_smem_all(size_t bytes, size_t fast_bytes)
{
    WT_TRY(allow_smem_fast(fast_kernels(), fast_bytes));
    WT_TRY(allow_smem_generic<false>(bytes));
    return allow_smem_generic<true>(bytes);
}

/* Entry E's launcher when it fits the level (then *f adjusted), else NULL. */
template <class E>
static level_launcher try_fast(const wt_params *p, cu_level *f, int inverse, int first_level,
                               bool *is_long)
{
    cu_level g = *f;
    if (!E::fits(p, &g, inverse))
        return NULL;
    *f = g;
    *is_long = E::template op<false>::LONG;
    typedef typename E::T T;
    if (inverse)
        return first_level ? launch_fast<E, true, float> : launch_fast<E, true, T>;
    return first_level ? launch_fast<E, false, float> : launch_fast<E, false, T>;
}

template <class... E>
static level_launcher first_fit(fast_list<E...>, const wt_params *p, cu_level *f, int inverse,
                                int first_level, bool *is_long)
{
    level_launcher launch = NULL;
    ((launch = launch ? launch : try_fast<E>(p, f, inverse, first_level, is_long)), ...);
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
static size_t fast_smem_cap(size_t smem_fast)
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

/* Long filters' tiles (32 x CU_LONG_TX, inverse 32 x CU_LONG_TX_INV) where
 * the level still has ce->small_grid blocks per SM with them (one channel
 * counted); smaller levels keep the tiles small_tiles gave them. */
static void long_tiles(const cu_engine *ce, cu_level *f, int inverse)
{
    const int ty = pow2_tile(f->ax[0].pairs, 32);
    const int tx = pow2_tile(f->ax[1].pairs, inverse ? CU_LONG_TX_INV : CU_LONG_TX);
    const double blocks = (double)((f->ax[0].pairs + ty - 1) / ty) * ((f->ax[1].pairs + tx - 1) / tx);
    if (blocks < (double)ce->sms * ce->small_grid)
        return;
    f->ty = ty;
    f->tx = tx;
}

/* The fast kernel for this level (adjusting *lv), or NULL: generic kernel. */
static level_launcher pick_fast(const cu_engine *ce, const wt_params *p, cu_level *lv,
                                int inverse, int first_level)
{
    if (ce->generic_only || use_double(p) || lv->ty % CU_SEG || lv->tx % CU_SEG)
        return NULL;
    if ((lv->tx & (lv->tx - 1)) || (lv->ty & (lv->ty - 1))) /* the inverse's item walks */
        return NULL;
    cu_level f = *lv;
    bool is_long = false;
    level_launcher launch = first_fit(fast_kernels(), p, &f, inverse, first_level, &is_long);
    if (!launch)
        return NULL;
    if (is_long)
        long_tiles(ce, &f, inverse);
    fast_geometry(&f, inverse);
    while (fast_smem(&f, inverse) > ce->smem_fast_cap && halve_tile(&f))
        fast_geometry(&f, inverse);
    if (fast_smem(&f, inverse) > ce->smem_fast)
        return NULL;
    f.dst_aligned = 1;
    for (int b = 0; b < 4 && !inverse; b++)
        if (((uintptr_t)f.dst[b] & 15) || (f.dst_w[b] & 3) || (f.dst_plane[b] & 3))
            f.dst_aligned = 0;
    *lv = f;
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

/* ---------------------------------------------------------------------- */
/* The device pyramid: wt_pyramid's bands in the same order, each a
 * (C, h, pitch) block with rows padded to a multiple of 32 elements, so that
 * every band row starts 128-byte aligned: the level kernels move whole
 * 16-byte blocks and whole 32-byte sectors. Measured on the H100 (db3, one
 * level of 8192², forward, % of copy): band rows 4096 apart 86%, 4100 apart
 * (16-byte aligned, every other row in the middle of a sector) 70%, 4092
 * apart 71%, 4104 apart (sector-aligned, across lines) 80%. Where every band
 * width is a multiple of 32 it is the host layout itself. */

static size_t row_pitch(size_t w)
{
    return (w + 31) & ~(size_t)31;
}

/* Elements between the rows of a band w wide (levels 0: the planes as they are). */
static size_t band_pitch(const wt_pyramid *plan, size_t w)
{
    return plan->levels ? row_pitch(w) : w;
}

/* Visits the bands in storage order: fn(level, band, h, w, offset in the
 * host layout, offset in the device layout), offsets of channel 0. */
template <typename Fn> static void for_each_band(const wt_pyramid *plan, Fn fn)
{
    const size_t C = (size_t)plan->channels;
    size_t host = 0, dev = 0;
    auto visit = [&](int l, wt_band b) {
        size_t h, w;
        wt_pyramid_band_shape(plan, l, b, &h, &w);
        fn(l, b, h, w, host, dev);
        host += C * h * w;
        dev += C * h * band_pitch(plan, w);
    };
    visit(plan->levels, WT_BAND_A);
    for (int l = plan->levels; l >= 1; l--) {
        visit(l, WT_BAND_H);
        visit(l, WT_BAND_V);
        visit(l, WT_BAND_D);
    }
}

size_t cu_pyramid_elems(const wt_pyramid *plan)
{
    size_t total = 0;
    for_each_band(plan, [&](int, wt_band, size_t h, size_t w, size_t, size_t dev) {
        total = dev + (size_t)plan->channels * h * band_pitch(plan, w);
    });
    return total;
}

int cu_pyramid_padded(const wt_pyramid *plan)
{
    return cu_pyramid_elems(plan) != plan->total;
}

/* Band b of level l in the device layout. */
static void *band_at(void *pyr, const wt_pyramid *plan, int level, wt_band b)
{
    size_t at = 0;
    for_each_band(plan, [&](int l, wt_band bb, size_t, size_t, size_t, size_t dev) {
        if (l == level && bb == b)
            at = dev;
    });
    return (uint32_t *)pyr + at;
}

size_t cu_band_first(const wt_pyramid *plan, int level, wt_band b)
{
    size_t at = 0;
    for_each_band(plan, [&](int l, wt_band bb, size_t, size_t, size_t, size_t dev) {
        if (l == level && bb == b)
            at = dev;
    });
    return at;
}

size_t cu_band_pitch(const wt_pyramid *plan, size_t w)
{
    return band_pitch(plan, w);
}

wt_status cu_pyramid_copy(cu_engine *ce, const wt_pyramid *plan, void *dst, const void *src,
                          int to_device_layout, cudaMemcpyKind kind)
{
    if (!cu_pyramid_padded(plan)) {
        CU_CHECK(cudaMemcpyAsync(dst, src, plan->total * 4, kind, ce->stream));
        return WT_OK;
    }
    wt_status st = WT_OK;
    for_each_band(plan, [&](int, wt_band, size_t h, size_t w, size_t host, size_t dev) {
        const size_t pitch = band_pitch(plan, w), rows = h * (size_t)plan->channels;
        const size_t to = to_device_layout ? dev : host, from = to_device_layout ? host : dev;
        if (st != WT_OK || !rows || !w)
            return;
        cudaError_t err = cudaMemcpy2DAsync(
            (uint32_t *)dst + to, 4 * (to_device_layout ? pitch : w),
            (const uint32_t *)src + from, 4 * (to_device_layout ? w : pitch), 4 * w, rows, kind,
            ce->stream);
        if (err != cudaSuccess)
            st = cu_fail(ce, err, "cudaMemcpy2DAsync (pyramid bands)", 0);
    });
    return st;
}

/* Small levels: tiles halved (down to CU_SEG pairs a side, the fast
 * kernels' least) until the grid has ce->small_grid blocks per SM. Each block
 * is a chain of dependent steps (gather, two stages, stores) whose latency
 * a grid this small cannot hide: a 512x512 level 1 ran 64 blocks of 32x32
 * pairs on the H100's 132 SMs, its level 3 four (NOTES.md v12-small). */
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

static wt_status plan_level(cu_engine *ce, cu_level *lv, const wt_params *p, size_t h, size_t w,
                            int inverse, int channels)
{
    memset(lv, 0, sizeof *lv);
    WT_TRY(cu_axis_init(&lv->ax[0], p, h, inverse));
    WT_TRY(cu_axis_init(&lv->ax[1], p, w, inverse));
    WT_TRY(cu_level_tiles(lv, inverse, 4, ce->smem_limit));
    small_tiles(ce, lv, channels);
    return WT_OK;
}

/* The four bands of level l (A from @p a_ptr) as kernel destinations or
 * sources, in the device layout. */
static void set_bands(const wt_pyramid *plan, int l, void *pyr, void *a_ptr, const void **src,
                      void **dst, size_t *plane, int *width)
{
    size_t lh = plan->lo_h[l], lw = plan->lo_w[l], hh = plan->hi_h[l], hw = plan->hi_w[l];
    void *ptr[4] = {a_ptr, band_at(pyr, plan, l, WT_BAND_V), band_at(pyr, plan, l, WT_BAND_H),
                    band_at(pyr, plan, l, WT_BAND_D)};
    size_t rows[4] = {lh, lh, hh, hh}, cols[4] = {lw, hw, lw, hw};
    for (int b = 0; b < 4; b++) {
        if (src)
            src[b] = ptr[b];
        if (dst)
            dst[b] = ptr[b];
        plane[b] = rows[b] * band_pitch(plan, cols[b]);
        width[b] = (int)band_pitch(plan, cols[b]);
    }
}

/* Elements between the rows of level l's approximation in a scratch
 * buffer (levels between the first and the last) or the device pyramid
 * (the last): padded as the device pyramid's rows, for the next level's
 * gather. */
static size_t tmp_pitch(const wt_pyramid *plan, int l)
{
    return row_pitch(plan->lo_w[l]);
}

/* Band A of level l (0: the input planes) as a kernel's rows and planes. */
static void set_approx(const wt_pyramid *plan, int l, size_t *plane, int *width)
{
    size_t pitch = l > 0 ? tmp_pitch(plan, l) : plan->lo_w[0];
    *plane = plan->lo_h[l] * pitch;
    *width = (int)pitch;
}

static wt_status tmp_buffers(cu_engine *ce, const wt_pyramid *plan, void *tmp[2])
{
    size_t most = 4;
    for (int l = 1; l < plan->levels; l++) {
        size_t a = plan->lo_h[l] * tmp_pitch(plan, l) * (size_t)plan->channels * 4;
        most = a > most ? a : most;
    }
    WT_TRY(cu_buf_get(ce, BUF_TMP0, most, &tmp[0]));
    return cu_buf_get(ce, BUF_TMP1, most, &tmp[1]);
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
static level_launcher pick_launcher(const cu_engine *ce, const wt_params *p, cu_level *lv,
                                    int inverse, int first_level, int integer, int *fast)
{
    level_launcher launch = pick_fast(ce, p, lv, inverse, first_level);
    *fast = launch != NULL;
    if (!launch)
        launch = inverse ? pick_generic<true>(p, integer, first_level)
                         : pick_generic<false>(p, integer, first_level);
    return launch;
}

/* ---------------------------------------------------------------------- */
/* The range of integer levels' inputs: legall53 levels run 32-bit steps
 * where it is known to be small (dwt_geometry.h, WT_LIFT53_NARROW_MAX). */

#define BOUND_BLOCK 256 /* threads of abs_max_kernel */
#define BOUND_PARTS 64  /* blocks per rows at most */

/* Block x: the largest abs_key of rows x, x + gridDim.x, ... (of nrows rows
 * of w values, pitch apart) into parts[x]. Shared: blockDim.x keys. */
template <typename T>
WT_GLOBAL void WT_LAUNCH_BOUNDS(BOUND_BLOCK)
    abs_max_kernel(const T *src, size_t nrows, size_t w, size_t pitch, uint32_t *parts)
{
    WT_DYN_SMEM(uint32_t, red);
    uint32_t m = 0;
    for (size_t r = blockIdx.x; r < nrows; r += gridDim.x)
        for (size_t c = threadIdx.x; c < w; c += blockDim.x) {
            const uint32_t k = abs_key(src[r * pitch + c]);
            m = k > m ? k : m;
        }
    red[threadIdx.x] = m;
    WT_SYNC();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s && red[threadIdx.x + s] > red[threadIdx.x])
            red[threadIdx.x] = red[threadIdx.x + s];
        WT_SYNC();
    }
    if (threadIdx.x == 0)
        parts[blockIdx.x] = red[0];
}

/* Row blocks (first element, rows, width, pitch) whose values are measured. */
typedef struct row_block {
    const void *first;
    size_t nrows, w, pitch;
} row_block;

/* The largest abs_key over @p n row blocks of T: a launch per block of rows
 * into its own parts, one copy back, one wait. */
template <typename T>
static wt_status largest_key(cu_engine *ce, const row_block *rb, int n, uint32_t *key)
{
    uint32_t *parts;
    WT_TRY(cu_buf_get(ce, BUF_BOUND, (size_t)n * BOUND_PARTS * 4, (void **)&parts));
    CU_CHECK(cudaMemsetAsync(parts, 0, (size_t)n * BOUND_PARTS * 4, ce->stream));
    for (int i = 0; i < n; i++) {
        if (!rb[i].nrows || !rb[i].w)
            continue;
        unsigned grid = rb[i].nrows < BOUND_PARTS ? (unsigned)rb[i].nrows : BOUND_PARTS;
        WT_LAUNCH(abs_max_kernel<T>, dim3(grid), dim3(BOUND_BLOCK), BOUND_BLOCK * 4, ce->stream,
                  (const T *)rb[i].first, rb[i].nrows, rb[i].w, rb[i].pitch,
                  parts + (size_t)i * BOUND_PARTS);
        CU_CHECK(cudaGetLastError());
    }
    uint32_t *host = (uint32_t *)malloc((size_t)n * BOUND_PARTS * 4);
    if (!host)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    cudaError_t err = cudaMemcpyAsync(host, parts, (size_t)n * BOUND_PARTS * 4,
                                      cudaMemcpyDeviceToHost, ce->stream);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(ce->stream);
    *key = 0;
    for (size_t i = 0; err == cudaSuccess && i < (size_t)n * BOUND_PARTS; i++)
        *key = host[i] > *key ? host[i] : *key;
    free(host);
    return err == cudaSuccess ? WT_OK : cu_fail(ce, err, "measuring the coefficients' range", 0);
}

wt_status cu_planes_bound(cu_engine *ce, const wt_pyramid *plan, const float *d_planes,
                          uint64_t *bound)
{
    row_block rb = {d_planes, plan->height * (size_t)plan->channels, plan->width, plan->width};
    uint32_t key;
    WT_TRY(largest_key<float>(ce, &rb, 1, &key));
    float most;
    memcpy(&most, &key, 4);
    /* (int32_t)x truncates: |(int32_t)x| <= |x| below 2^31; NaN keys exceed inf's */
    *bound = key < 0x4f000000u ? (uint64_t)most : UINT64_MAX; /* 0x4f000000: 2^31 */
    return WT_OK;
}

wt_status cu_pyramid_bound(cu_engine *ce, const wt_pyramid *plan, const void *d_pyr,
                           uint64_t *bound)
{
    row_block *rb = (row_block *)calloc((size_t)(3 * plan->levels + 1), sizeof *rb);
    if (!rb)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    int n = 0;
    for_each_band(plan, [&](int, wt_band, size_t h, size_t w, size_t, size_t dev) {
        rb[n++] = row_block{(const int32_t *)d_pyr + dev, h * (size_t)plan->channels, w,
                            band_pitch(plan, w)};
    });
    uint32_t key = 0;
    wt_status st = largest_key<int32_t>(ce, rb, n, &key);
    free(rb);
    *bound = key;
    return st;
}

uint64_t cu_forward_coef_bound(const wt_pyramid *plan, uint64_t input_bound)
{
    uint64_t b = input_bound;
    for (int l = 1; l <= plan->levels; l++)
        b = wt_lift53_forward_bound(b);
    return b;
}

/* ---------------------------------------------------------------------- */
/* Level programs: every level of one call planned (operators, tiles,
 * kernel, buffers) and kept for the next call with the same key; from its
 * second use the levels are replayed as one CUDA graph (one launch for all
 * levels). Planning builds ~7 KB of kernel parameters per level and a
 * launch takes them each time: a 512x512 3-level pyramid was launch-bound
 * (25 us, NOTES.md v12-small). The key holds everything the plan depends on,
 * the buffers included (a graph bakes in pointers): a call on other
 * buffers, shape, params, direction or 5/3 widths is another program. */

typedef struct program_key {
    const wt_wavelet *wavelet;
    int mode, method, inverse;
    int channels, levels, dtype;
    size_t height, width;
    size_t lo_h[WT_MAX_LEVELS + 1], lo_w[WT_MAX_LEVELS + 1];
    size_t hi_h[WT_MAX_LEVELS + 1], hi_w[WT_MAX_LEVELS + 1];
    uint64_t narrow; /* bit l - 1: level l runs the 32-bit 5/3 steps */
    const void *src, *dst, *tmp[2];
} program_key;

struct cu_program {
    program_key key;
    int nlevels;              /* in launch order: forward 1..L, inverse L..1 */
    level_launcher launch[WT_MAX_LEVELS];
    int pdl[WT_MAX_LEVELS];   /* launch_level's pdl */
    cu_level *lv;
    unsigned long last_use;   /* ce->program_clock */
    int no_graph;             /* capture failed: launch each level */
#ifndef WT_CUDA_EMULATE
    cudaGraphExec_t graph;
#endif
};

/* Zeroed first: keys are compared with memcmp. */
static void make_key(program_key *k, const wt_params *p, const wt_pyramid *plan, int inverse,
                     uint64_t narrow, const void *src, const void *dst, void *const tmp[2])
{
    memset(k, 0, sizeof *k);
    k->wavelet = p->wavelet;
    k->mode = (int)p->mode;
    k->method = (int)p->method;
    k->inverse = inverse;
    k->channels = plan->channels;
    k->levels = plan->levels;
    k->dtype = (int)plan->dtype;
    k->height = plan->height;
    k->width = plan->width;
    memcpy(k->lo_h, plan->lo_h, sizeof k->lo_h);
    memcpy(k->lo_w, plan->lo_w, sizeof k->lo_w);
    memcpy(k->hi_h, plan->hi_h, sizeof k->hi_h);
    memcpy(k->hi_w, plan->hi_w, sizeof k->hi_w);
    k->narrow = narrow;
    k->src = src;
    k->dst = dst;
    k->tmp[0] = tmp[0];
    k->tmp[1] = tmp[1];
}

static void program_free(cu_program *pr)
{
    if (!pr)
        return;
#ifndef WT_CUDA_EMULATE
    if (pr->graph)
        cudaGraphExecDestroy(pr->graph); /* releasing: nothing to report */
#endif
    free(pr->lv);
    free(pr);
}

/* Level l of a forward: input band A of level l - 1, the four bands of l. */
static void forward_level_io(cu_level *lv, const wt_pyramid *plan, const program_key *k, int l)
{
    int L = plan->levels;
    lv->src[0] = l == 1 ? k->src : k->tmp[(l - 1) & 1];
    set_approx(plan, l - 1, &lv->src_plane[0], &lv->src_w[0]);
    void *pyr = (void *)k->dst, *a = l == L ? band_at(pyr, plan, L, WT_BAND_A) : (void *)k->tmp[l & 1];
    set_bands(plan, l, pyr, a, NULL, lv->dst, lv->dst_plane, lv->dst_w);
    set_approx(plan, l, &lv->dst_plane[0], &lv->dst_w[0]);
}

/* Level l of an inverse: the four bands of l, output band A of level l - 1. */
static void inverse_level_io(cu_level *lv, const wt_pyramid *plan, const program_key *k, int l)
{
    int L = plan->levels;
    void *pyr = (void *)k->src, *a = l == L ? band_at(pyr, plan, L, WT_BAND_A) : (void *)k->tmp[l & 1];
    set_bands(plan, l, pyr, a, lv->src, NULL, lv->src_plane, lv->src_w);
    set_approx(plan, l, &lv->src_plane[0], &lv->src_w[0]);
    lv->dst[0] = l == 1 ? (void *)k->dst : (void *)k->tmp[(l - 1) & 1];
    set_approx(plan, l - 1, &lv->dst_plane[0], &lv->dst_w[0]);
}

/* Whether every block of a level can be resident at once (assumed: two per
 * SM): the levels after such a grid get a programmatic dependent launch.
 * Large grids gain nothing measurable from it (WT_CUDA_PDL=2 lifts this
 * limit: 8192x8192 and batches within 1%, NOTES.md v12-small). */
static int one_wave(const cu_engine *ce, const cu_level *lv, int channels)
{
    dim3 g = level_grid(lv, channels);
    return (double)g.x * g.y * g.z <= 2.0 * ce->sms;
}

/* A new program for @p k: every level planned, nothing launched. */
static wt_status plan_program(cu_engine *ce, const wt_params *p, const wt_pyramid *plan,
                              const program_key *k, cu_program **out)
{
    const int L = plan->levels, inverse = k->inverse, integer = k->dtype == WT_INT32;
    cu_program *pr = (cu_program *)calloc(1, sizeof *pr);
    cu_level *lv = (cu_level *)calloc((size_t)L, sizeof *lv);
    if (!pr || !lv) {
        free(pr);
        free(lv);
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    }
    pr->key = *k;
    pr->lv = lv;
    pr->nlevels = L;
    int fast[WT_MAX_LEVELS];
    for (int i = 0; i < L; i++) {
        int l = inverse ? L - i : i + 1;
        wt_status st = plan_level(ce, &lv[i], p, plan->lo_h[l - 1], plan->lo_w[l - 1], inverse,
                                  k->channels);
        if (st != WT_OK) {
            program_free(pr);
            return st;
        }
        lv[i].narrow = (int)((k->narrow >> (l - 1)) & 1);
        if (inverse)
            inverse_level_io(&lv[i], plan, k, l);
        else
            forward_level_io(&lv[i], plan, k, l);
        pr->launch[i] = pick_launcher(ce, p, &lv[i], inverse, l == 1, integer, &fast[i]);
        pr->pdl[i] = i > 0 && fast[i] && fast[i - 1] && !ce->pdl_off &&
                     (ce->pdl_all || one_wave(ce, &lv[i - 1], k->channels));
    }
    *out = pr;
    return WT_OK;
}

static wt_status launch_levels(cu_engine *ce, const cu_program *pr)
{
    for (int i = 0; i < pr->nlevels; i++)
        WT_TRY(pr->launch[i](ce, &pr->lv[i], pr->key.channels, pr->pdl[i]));
    return WT_OK;
}

static cu_program *find_program(cu_engine *ce, const program_key *k)
{
    for (int i = 0; i < CU_PROGRAMS; i++)
        if (ce->programs[i] && !memcmp(&ce->programs[i]->key, k, sizeof *k))
            return ce->programs[i];
    return NULL;
}

/* Keeps @p pr in a free slot or that of the least recently used program
 * (waiting for the stream first when that one has a graph, which may still
 * run). */
static wt_status keep_program(cu_engine *ce, cu_program *pr)
{
    int slot = 0;
    for (int i = 0; i < CU_PROGRAMS; i++) {
        if (!ce->programs[i]) {
            slot = i;
            break;
        }
        if (ce->programs[i]->last_use < ce->programs[slot]->last_use)
            slot = i;
    }
    cu_program *old = ce->programs[slot];
#ifndef WT_CUDA_EMULATE
    if (old && old->graph) {
        cudaError_t err = cudaStreamSynchronize(ce->stream);
        if (err != cudaSuccess) {
            program_free(pr);
            return cu_fail(ce, err, "cudaStreamSynchronize (level programs)", 0);
        }
    }
#endif
    program_free(old);
    pr->last_use = ++ce->program_clock;
    ce->programs[slot] = pr;
    return WT_OK;
}

static void programs_release(cu_engine *ce)
{
    for (int i = 0; i < CU_PROGRAMS; i++) {
        program_free(ce->programs[i]);
        ce->programs[i] = NULL;
    }
}

#ifndef WT_CUDA_EMULATE
/* The levels of @p pr captured into an executable graph on ce->stream; on
 * any failure (the stream captured by the caller, a driver without graphs)
 * the program keeps launching each level. */
static void capture_program(cu_engine *ce, cu_program *pr)
{
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(ce->stream, &cs) != cudaSuccess || cs != cudaStreamCaptureStatusNone) {
        cudaGetLastError();
        return; /* inside a capture of the caller's: its launches join that graph */
    }
    cudaGraph_t g = NULL;
    cudaError_t err = cudaStreamBeginCapture(ce->stream, cudaStreamCaptureModeThreadLocal);
    if (err == cudaSuccess) {
        wt_status st = launch_levels(ce, pr);
        err = cudaStreamEndCapture(ce->stream, &g);
        if (st != WT_OK && err == cudaSuccess)
            err = cudaErrorStreamCaptureInvalidated;
    }
    if (err == cudaSuccess)
        err = cudaGraphInstantiate(&pr->graph, g, 0);
    if (g)
        cudaGraphDestroy(g);
    if (err == cudaSuccess)
        err = cudaGraphUpload(pr->graph, ce->stream);
    if (err != cudaSuccess) {
        cudaGetLastError();
        wt_error_clear();
        if (pr->graph)
            cudaGraphExecDestroy(pr->graph);
        pr->graph = NULL;
        pr->no_graph = 1;
    }
}
#endif

/* Runs the levels of key @p k on ce->stream: the kept program (its graph
 * from the second use), else a new one, planned, launched and kept. */
static wt_status run_program(cu_engine *ce, const wt_params *p, const wt_pyramid *plan,
                             const program_key *k)
{
    cu_program *pr = ce->cache_off ? NULL : find_program(ce, k);
    if (!pr) {
        WT_TRY(plan_program(ce, p, plan, k, &pr));
        wt_status st = launch_levels(ce, pr);
        if (st != WT_OK || ce->cache_off) {
            program_free(pr);
            return st;
        }
        return keep_program(ce, pr);
    }
    pr->last_use = ++ce->program_clock;
#ifndef WT_CUDA_EMULATE
    if (!pr->graph && !pr->no_graph && !ce->graphs_off)
        capture_program(ce, pr);
    if (pr->graph) {
        CU_CHECK(cudaGraphLaunch(pr->graph, ce->stream));
        return WT_OK;
    }
#endif
    return launch_levels(ce, pr);
}

/* ---------------------------------------------------------------------- */
/* The level loop's entry points */

/* Bit l - 1 set: level l's input lies within WT_LIFT53_NARROW_MAX (forward:
 * from the planes' bound on; inverse: from the coefficients' bound, levels
 * L down to 1). */
static uint64_t narrow_levels(const wt_pyramid *plan, uint64_t bound, int inverse)
{
    uint64_t mask = 0, in = bound;
    if (plan->dtype != WT_INT32)
        return 0;
    for (int i = 0; i < plan->levels; i++) {
        int l = inverse ? plan->levels - i : i + 1;
        if (in <= WT_LIFT53_NARROW_MAX)
            mask |= (uint64_t)1 << (l - 1);
        if (inverse) {
            in = wt_lift53_inverse_bound(in);
            in = in > bound ? in : bound;
        } else {
            in = wt_lift53_forward_bound(in);
        }
    }
    return mask;
}

/* d_planes (C x h x w float32) -> d_pyr (the device pyramid). */
wt_status cu_forward_device(cu_engine *ce, const wt_params *p, const wt_pyramid *plan,
                            const float *d_planes, void *d_pyr, uint64_t bound)
{
    int integer = plan->dtype == WT_INT32;
    size_t n0 = plan->height * plan->width * (size_t)plan->channels;
    if (plan->levels == 0)
        return integer ? launch_convert<int32_t, float>(ce, d_pyr, d_planes, n0)
                       : launch_convert<float, float>(ce, d_pyr, d_planes, n0);
    if (ce->wide53_only)
        bound = UINT64_MAX; /* unknown: no level narrow */
    else if (integer && bound == CU_BOUND_MEASURE)
        WT_TRY(cu_planes_bound(ce, plan, d_planes, &bound));
    void *tmp[2];
    WT_TRY(tmp_buffers(ce, plan, tmp));
    program_key k;
    make_key(&k, p, plan, 0, narrow_levels(plan, bound, 0), d_planes, d_pyr, tmp);
    return run_program(ce, p, plan, &k);
}

/* d_pyr -> d_planes (C x h x w float32). */
wt_status cu_inverse_device(cu_engine *ce, const wt_params *p, const wt_pyramid *plan,
                            void *d_pyr, float *d_planes, uint64_t bound)
{
    int integer = plan->dtype == WT_INT32;
    size_t n0 = plan->height * plan->width * (size_t)plan->channels;
    if (plan->levels == 0)
        return integer ? launch_convert<float, int32_t>(ce, d_planes, d_pyr, n0)
                       : launch_convert<float, float>(ce, d_planes, d_pyr, n0);
    if (ce->wide53_only)
        bound = UINT64_MAX; /* unknown: no level narrow */
    else if (integer && bound == CU_BOUND_MEASURE)
        WT_TRY(cu_pyramid_bound(ce, plan, d_pyr, &bound));
    void *tmp[2];
    WT_TRY(tmp_buffers(ce, plan, tmp));
    program_key k;
    make_key(&k, p, plan, 1, narrow_levels(plan, bound, 1), d_pyr, d_planes, tmp);
    return run_program(ce, p, plan, &k);
}

/* ---------------------------------------------------------------------- */
/* Engine operations */

static wt_status device_buffers(cu_engine *ce, const wt_pyramid *plan, float **d_planes,
                                void **d_pyr)
{
    size_t n0 = plan->height * plan->width * (size_t)plan->channels;
    WT_TRY(cu_buf_get(ce, BUF_PLANES, n0 * 4, (void **)d_planes));
    return cu_buf_get(ce, BUF_PYRAMID, cu_pyramid_elems(plan) * 4, d_pyr);
}

static wt_status cuda_forward(wt_engine *e, const wt_params *p, const float *planes,
                              wt_pyramid *out)
{
    cu_engine *ce = (cu_engine *)e->priv;
    float *d_planes = NULL;
    void *d_pyr = NULL;
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(device_buffers(ce, out, &d_planes, &d_pyr));
    size_t n0 = out->height * out->width * (size_t)out->channels;
    CU_CHECK(cudaMemcpyAsync(d_planes, planes, n0 * 4, cudaMemcpyHostToDevice, ce->stream));
    WT_TRY(cu_forward_device(ce, p, out, d_planes, d_pyr, CU_BOUND_MEASURE));
    WT_TRY(cu_pyramid_copy(ce, out, out->data, d_pyr, 0, cudaMemcpyDeviceToHost));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    return WT_OK;
}

static wt_status cuda_inverse(wt_engine *e, const wt_params *p, const wt_pyramid *in,
                              float *planes)
{
    cu_engine *ce = (cu_engine *)e->priv;
    float *d_planes = NULL;
    void *d_pyr = NULL;
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(device_buffers(ce, in, &d_planes, &d_pyr));
    size_t n0 = in->height * in->width * (size_t)in->channels;
    WT_TRY(cu_pyramid_copy(ce, in, d_pyr, in->data, 1, cudaMemcpyHostToDevice));
    WT_TRY(cu_inverse_device(ce, p, in, d_pyr, d_planes, CU_BOUND_MEASURE));
    CU_CHECK(cudaMemcpyAsync(planes, d_planes, n0 * 4, cudaMemcpyDeviceToHost, ce->stream));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    return WT_OK;
}

static void free_engine(cu_engine *ce)
{
    if (!ce)
        return;
    if (ce->stream)
        cudaStreamSynchronize(ce->stream); /* closing: a graph may still run */
    programs_release(ce);
    for (int b = 0; b < BUF_COUNT; b++)
        if (ce->buf[b])
            cudaFree(ce->buf[b]); /* closing: nothing to report */
    cu_spare_release(ce);
    cu_staging_free(ce);
    if (ce->copy_stream)
        cudaStreamDestroy(ce->copy_stream);
    if (ce->stream)
        cudaStreamDestroy(ce->stream);
    free(ce);
}

static void cuda_close(wt_engine *e)
{
    cu_engine *ce = (cu_engine *)e->priv;
    cudaSetDevice(ce->device);
    free_engine(ce);
    free(e);
}

static const wt_engine_ops cuda_ops = {.forward = cuda_forward,
                                       .inverse = cuda_inverse,
                                       .close = cuda_close,
                                       .forward_image = cu_forward_image,
                                       .inverse_image = cu_inverse_image,
                                       .mosaic_image = cu_mosaic_image,
                                       .roundtrip_image = cu_roundtrip_image,
                                       .pyr = &cu_epyramid_ops,
                                       .uforward = cu_uforward,
                                       .uinverse = cu_uinverse};

/* WT_CUDA_MEM_LIMIT: bytes, with an optional K, M or G suffix (powers of
 * 1024); unset or empty: no cap. */
static wt_status parse_mem_limit(size_t *limit)
{
    const char *v = wt_env()->cuda_mem_limit;
    *limit = 0;
    if (!v || !*v)
        return WT_OK;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    int shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (end == v || *end || *v == '-' || n > (~0ull >> shift))
        return wt_error_set(WT_ERR_INVALID,
                            "WT_CUDA_MEM_LIMIT: '%s' is not a byte count (like 512M or 2G)", v);
    *limit = (size_t)(n << shift);
    return WT_OK;
}

#ifndef WT_CUDA_ARCHS
#define WT_CUDA_ARCHS "(unknown)"
#endif

/* A GPU this build holds no code for (neither its SASS nor PTX it can
 * compile): one message naming its compute capability and the build's list. */
static wt_status check_code_for(int device, const cudaDeviceProp *prop)
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

static wt_status open_device(cu_engine *ce, int device, char *name, size_t name_size)
{
    cudaDeviceProp prop;
    ce->device = device;
    CU_CHECK(cudaSetDevice(device));
    CU_CHECK(cudaGetDeviceProperties(&prop, device));
    WT_TRY(check_code_for(device, &prop));
    CU_CHECK(cudaStreamCreateWithFlags(&ce->stream, cudaStreamNonBlocking));
    CU_CHECK(cudaStreamCreateWithFlags(&ce->copy_stream, cudaStreamNonBlocking));
    WT_TRY(parse_mem_limit(&ce->mem_limit));
    ce->copy_threads = wt_cpu_count() < CU_WORKERS ? wt_cpu_count() : CU_WORKERS;
    ce->smem_limit = prop.sharedMemPerBlockOptin;
    const char *generic = wt_env()->cuda_generic, *wide53 = wt_env()->cuda_wide53;
    ce->generic_only = generic && *generic && *generic != '0';
    ce->wide53_only = wide53 && *wide53 && *wide53 != '0';
    ce->smem_fast = ce->smem_limit;
    ce->smem_fast_cap = fast_smem_cap(ce->smem_fast);
    const char *cache = wt_env()->cuda_cache, *graphs = wt_env()->cuda_graphs;
    const char *grid = wt_env()->cuda_small_grid, *pdl = wt_env()->cuda_pdl;
    ce->cache_off = cache && !strcmp(cache, "0");
    ce->graphs_off = graphs && !strcmp(graphs, "0");
    ce->small_grid = grid && *grid ? atof(grid) : CU_SMALL_GRID;
    ce->pdl_off = (pdl && !strcmp(pdl, "0")) || prop.major < 9;
    ce->pdl_all = pdl && !strcmp(pdl, "2");
    ce->sms = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    if (ce->smem_limit > CU_SMEM_CAP)
        ce->smem_limit = CU_SMEM_CAP;
    WT_TRY(allow_smem_all(ce->smem_limit, ce->smem_fast));
    snprintf(name, name_size, "cuda:%d (%.120s)", device, prop.name);
    return WT_OK;
}

/* Why cudaGetDeviceCount found no device, in the user's terms: no driver at
 * all (libcuda cannot be loaded), a driver older than this build's runtime,
 * or a driver without GPUs. */
static wt_status no_device(cudaError_t err)
{
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver); /* 0 when no driver is installed */
    cudaRuntimeGetVersion(&runtime);
    void *libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (libcuda)
        dlclose(libcuda);
    if (!libcuda || (err == cudaErrorInsufficientDriver && driver == 0))
        return wt_error_set(WT_ERR_DEVICE,
                            "no NVIDIA driver for the CUDA engine (libcuda.so.1 %s)",
                            libcuda ? "loads but reports no version" : "not found");
    if (err == cudaErrorInsufficientDriver)
        return wt_error_set(WT_ERR_DEVICE,
                            "NVIDIA driver too old: it supports CUDA %d.%d, this wavetool was "
                            "built with CUDA %d.%d (update the driver)",
                            driver / 1000, driver % 1000 / 10, runtime / 1000,
                            runtime % 1000 / 10);
    if (err == cudaErrorNoDevice || err == cudaSuccess)
        return wt_error_set(WT_ERR_DEVICE, "no NVIDIA GPU found (driver for CUDA %d.%d loaded)",
                            driver / 1000, driver % 1000 / 10);
    return wt_error_set(WT_ERR_DEVICE, "no usable CUDA device (%s)", cudaGetErrorString(err));
}

extern "C" int wt_cuda_device_count(void)
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

extern "C" wt_status wt_cuda_engine_open(wt_engine **engine, int device)
{
    *engine = NULL;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0)
        return no_device(err);
    if (device >= count)
        return wt_error_set(WT_ERR_DEVICE, "CUDA device %d does not exist (%d found)", device,
                            count);
    wt_engine *e = (wt_engine *)calloc(1, sizeof *e);
    if (!e)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    wt_status st = WT_ERR_DEVICE;
    for (int d = device < 0 ? 0 : device; d < (device < 0 ? count : device + 1); d++) {
        cu_engine *ce = (cu_engine *)calloc(1, sizeof *ce);
        if (!ce) {
            st = wt_error_set(WT_ERR_NOMEM, "out of memory");
            break;
        }
        st = open_device(ce, d, e->name, sizeof e->name);
        if (st == WT_OK) {
            e->ops = &cuda_ops;
            e->priv = ce;
            *engine = e;
            return WT_OK;
        }
        free_engine(ce);
    }
    free(e);
    return st;
}

/* ---------------------------------------------------------------------- */
/* Benchmark hook */

static int by_value(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

typedef struct bench_job {
    cu_engine *ce;
    const wt_params *p;
    const wt_pyramid *plan;
    float *d_planes = NULL;
    void *d_pyr, *copy_src, *copy_dst;
    size_t copy_bytes;
    int what;       /* 0 forward, 1 inverse, 2 copy */
    uint64_t bound; /* of the timed transform's input, measured before */
} bench_job;

static wt_status bench_once(const bench_job *j)
{
    if (j->what == 2) {
        CU_CHECK(cudaMemcpyAsync(j->copy_dst, j->copy_src, j->copy_bytes,
                                 cudaMemcpyDeviceToDevice, j->ce->stream));
        return WT_OK;
    }
    return j->what ? cu_inverse_device(j->ce, j->p, j->plan, j->d_pyr, j->d_planes, j->bound)
                   : cu_forward_device(j->ce, j->p, j->plan, j->d_planes, j->d_pyr, j->bound);
}

/* Median and minimum of @p repeat runs of @p run (after 3 warm-ups), each
 * timed between two events on the engine's stream. WT_CUDA_BENCH_CALLS=N:
 * N calls back to back between the events, the time divided by N (the GPU's
 * time per call when the host queues calls faster than they run; without
 * it, a call's time includes its submission, the GPU idle meanwhile). */
wt_status cu_time_runs(cu_engine *ce, wt_status (*run)(const void *job), const void *job,
                       int repeat, double *median, double *fastest)
{
    cudaEvent_t ev[2];
    CU_CHECK(cudaEventCreate(&ev[0]));
    CU_CHECK(cudaEventCreate(&ev[1]));
    float *ms = (float *)malloc((size_t)repeat * sizeof *ms);
    wt_status st = ms ? WT_OK : wt_error_set(WT_ERR_NOMEM, "out of memory");
    const char *chain = wt_env()->cuda_bench_calls;
    const int calls = chain && atoi(chain) > 1 ? atoi(chain) : 1;
    for (int r = -3; r < repeat && st == WT_OK; r++) {
        cudaError_t err = cudaEventRecord(ev[0], ce->stream);
        for (int k = 0; k < calls && err == cudaSuccess && st == WT_OK; k++)
            st = run(job);
        if (err == cudaSuccess && st == WT_OK)
            err = cudaEventRecord(ev[1], ce->stream);
        if (err == cudaSuccess && st == WT_OK)
            err = cudaEventSynchronize(ev[1]);
        if (err == cudaSuccess && st == WT_OK && r >= 0)
            err = cudaEventElapsedTime(&ms[r], ev[0], ev[1]);
        if (err == cudaSuccess && st == WT_OK && r >= 0)
            ms[r] /= (float)calls;
        if (err != cudaSuccess && st == WT_OK)
            st = cu_fail(ce, err, "benchmark timing", 0);
    }
    if (st == WT_OK) {
        qsort(ms, (size_t)repeat, sizeof *ms, by_value);
        *median = ms[repeat / 2];
        *fastest = ms[0];
    }
    free(ms);
    cudaEventDestroy(ev[0]);
    cudaEventDestroy(ev[1]);
    return st;
}

static wt_status bench_run(const void *job)
{
    return bench_once((const bench_job *)job);
}

static wt_status fill_random(cu_engine *ce, float *d, size_t n, uint32_t seed)
{
    WT_LAUNCH(fill_random_kernel, dim3(1024), dim3(256), 0, ce->stream, d, n, seed);
    CU_CHECK(cudaGetLastError());
    return WT_OK;
}

extern "C" wt_status wt_cuda_bench(wt_engine *engine, const wt_params *params, size_t height,
                                   size_t width, int channels, int inverse, int repeat,
                                   size_t copy_bytes, wt_cuda_timing *timing)
{
    if (!engine || engine->ops != &cuda_ops)
        return wt_error_set(WT_ERR_INVALID, "benchmark hook needs a CUDA engine");
    if (repeat < 1)
        repeat = 1;
    cu_engine *ce = (cu_engine *)engine->priv;
    wt_params p = *params;
    wt_pyramid plan;
    WT_TRY(wt_params_resolve(&p));
    WT_TRY(wt_pyramid_plan(&plan, &p, height, width, channels));
    CU_CHECK(cudaSetDevice(ce->device));
    bench_job j = {ce, &p, &plan, NULL, NULL, NULL, NULL, copy_bytes, 0, CU_BOUND_MEASURE};
    WT_TRY(device_buffers(ce, &plan, &j.d_planes, &j.d_pyr));
    WT_TRY(fill_random(ce, j.d_planes, height * width * (size_t)channels, 12345u));
    /* real coefficients; the timed runs know their input's range, as the
     * image paths know it from the sample depth (integer plans) */
    WT_TRY(cu_forward_device(ce, &p, &plan, j.d_planes, j.d_pyr, CU_BOUND_MEASURE));
    if (plan.dtype == WT_INT32)
        WT_TRY(inverse ? cu_pyramid_bound(ce, &plan, j.d_pyr, &j.bound)
                       : cu_planes_bound(ce, &plan, j.d_planes, &j.bound));
    j.what = inverse ? 1 : 0;
    memset(timing, 0, sizeof *timing);
    WT_TRY(cu_time_runs(ce, bench_run, &j, repeat, &timing->ms, &timing->ms_min));
    if (copy_bytes) {
        WT_TRY(cu_buf_get(ce, BUF_COPY_SRC, copy_bytes, &j.copy_src));
        WT_TRY(cu_buf_get(ce, BUF_COPY_DST, copy_bytes, &j.copy_dst));
        WT_TRY(fill_random(ce, (float *)j.copy_src, copy_bytes / 4, 777u));
        j.what = 2;
        double fastest;
        WT_TRY(cu_time_runs(ce, bench_run, &j, repeat, &timing->copy_ms, &fastest));
        timing->copy_bytes = copy_bytes;
    }
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    return WT_OK;
}

extern "C" wt_status wt_cuda_ubench(wt_engine *engine, const wt_uparams *params, size_t height,
                                    size_t width, int channels, int inverse, int repeat,
                                    wt_cuda_timing *timing, size_t *bytes)
{
    if (!engine || engine->ops != &cuda_ops)
        return wt_error_set(WT_ERR_INVALID, "benchmark hook needs a CUDA engine");
    return cu_ubench((cu_engine *)engine->priv, params, height, width, channels, inverse,
                     repeat < 1 ? 1 : repeat, timing, bytes);
}
