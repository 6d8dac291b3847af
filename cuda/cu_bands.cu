/* Engine-resident pyramids on the CUDA engine: the pyramid stays in device
 * memory, in the device pyramid's layout (rows padded, cu_engine.cu), from
 * the forward transform through band operations to the inverse. Each band
 * operation is one launch over all selected bands (grid.y: the band, grid.x:
 * blocks of it); reductions merge per-block partials in a fixed order (the
 * same result every run); the k-th |c| is a radix selection on the bits of
 * |c| (four 8-bit histogram passes, on the device), so medians equal the CPU
 * engine's exactly. Only the results (statistics, selected values) come back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cu_engine.h"
extern "C" {
#include "noise_estimate.h" /* NORM_PPF_075 */
}

#ifdef WT_CUDA_EMULATE
#define CU_SHARED_ADD(p, v) (*(p) += (v)) /* one thread per block */
#else
#define CU_SHARED_ADD(p, v) atomicAdd((p), (v))
#endif

#define BAND_BLOCK 256       /* threads per block of the band kernels */
#define BAND_PER_BLOCK 8192  /* elements per block before the grid widens */
#define BAND_PARTS_MAX 128   /* blocks per band at most */

/* A selected band of one channel in the device layout. */
typedef struct cu_span {
    size_t first;     /* its element (0, 0) */
    uint64_t count;   /* rows x cols */
    uint32_t cols, pitch;
    double arg;       /* map: the operation's argument; reduce: the bound of at_most */
} cu_span;

/* 32-bit division where the band allows it (a 64-bit one is several times
 * the instructions, and every band kernel divides once per element). */
WT_DEV size_t span_at(const cu_span *s, uint64_t e)
{
    if (s->count <= UINT32_MAX) {
        uint32_t e32 = (uint32_t)e, row = e32 / s->cols;
        return s->first + (size_t)row * s->pitch + (size_t)(e32 - row * s->cols);
    }
    return s->first + (size_t)(e / s->cols) * s->pitch + (size_t)(e % s->cols);
}

/* A band operation's result: float rounded to nearest; int32 nearest, ties
 * to even, saturated (src/epyramid_host.c's to_int32). */
WT_DEV void store(float *at, double v)
{
    *at = (float)v;
}

WT_DEV void store(int32_t *at, double v)
{
#ifdef WT_CUDA_EMULATE
    *at = v >= 2147483647.0 ? INT32_MAX : v <= -2147483648.0 ? INT32_MIN : (int32_t)lrint(v);
#else
    *at = __double2int_rn(v);
#endif
}

/* ---------------------------------------------------------------------- */
/* Kernels */

/* @p arg: the operation's argument for every span; NaN: each span's own,
 * and a span whose own is NaN stays as it is (a channel without sigma). */
template <typename T>
WT_GLOBAL void WT_LAUNCH_BOUNDS(BAND_BLOCK)
    band_op_kernel(T *pyr, const cu_span *spans, int op, double arg)
{
    const cu_span s = spans[blockIdx.y];
    const double t = isnan(arg) ? s.arg : arg;
    if (isnan(t))
        return;
    uint64_t stride = (uint64_t)blockDim.x * gridDim.x;
    for (uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; e < s.count; e += stride) {
        T *at = pyr + span_at(&s, e);
        store(at, wt_band_op_apply((wt_band_op)op, (double)*at, t));
    }
}

/* Block (x, band) reduces its share into parts[band * gridDim.x + x].
 * Shared memory: blockDim.x wt_band_stats. */
template <typename T>
WT_GLOBAL void WT_LAUNCH_BOUNDS(BAND_BLOCK)
    band_reduce_kernel(const T *pyr, const cu_span *spans, wt_band_stats *parts)
{
    WT_DYN_SMEM(wt_band_stats, red);
    const cu_span s = spans[blockIdx.y];
    wt_band_stats r;
    wt_band_stats_init(&r);
    uint64_t stride = (uint64_t)blockDim.x * gridDim.x;
    for (uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; e < s.count; e += stride)
        wt_band_stats_add(&r, (double)pyr[span_at(&s, e)], s.arg);
    red[threadIdx.x] = r;
    WT_SYNC();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            wt_band_stats_merge(&red[threadIdx.x], &red[threadIdx.x + half]);
        WT_SYNC();
    }
    if (threadIdx.x == 0)
        parts[(size_t)blockIdx.y * gridDim.x + blockIdx.x] = red[0];
}

/* out[i]: the @p nparts partials of band i merged in order, STATS_AHEAD
 * loaded before they are merged (one after the other, a merge of 128
 * partials waited on 128 loads in turn). */
#define STATS_AHEAD 4
WT_GLOBAL void band_stats_kernel(wt_band_stats *out, const wt_band_stats *parts, int nparts,
                                 int n)
{
    for (int i = (int)(blockIdx.x * blockDim.x + threadIdx.x); i < n;
         i += (int)(blockDim.x * gridDim.x)) {
        wt_band_stats r, ahead[STATS_AHEAD];
        wt_band_stats_init(&r);
        const wt_band_stats *pi = parts + (size_t)i * nparts;
        for (int k = 0; k < nparts; k += STATS_AHEAD) { /* loads in flight, merges in order */
            for (int j = 0; j < STATS_AHEAD; j++)
                if (k + j < nparts)
                    ahead[j] = pi[k + j];
            for (int j = 0; j < STATS_AHEAD; j++)
                if (k + j < nparts)
                    wt_band_stats_merge(&r, &ahead[j]);
        }
        out[i] = r;
    }
}

/* Radix selection: per group, the key bits found so far and the rank left
 * (keys of 32 bits, or 64 for the noise estimate's doubles). */
typedef struct cu_select {
    uint64_t prefix, mask;
    uint64_t k;
    uint32_t item0, nitems; /* its items (span of the group) */
} cu_select;

/* Span @p span as part of group @p group. */
typedef struct cu_item {
    uint32_t span, group;
} cu_item;

/* hist[bin] += 1 unless bin is 256. The lanes of a warp that hit one bin add
 * once, their count: the high bytes of |c| of a band are nearly all alike,
 * and a warp's 32 atomics on one address run one after the other. */
WT_DEV void hist_add(uint32_t *hist, uint32_t bin)
{
#ifdef WT_CUDA_EMULATE
    if (bin < 256u)
        CU_SHARED_ADD(&hist[bin], 1u);
#else
    const unsigned same = __match_any_sync(__activemask(), bin);
    if (bin < 256u && (threadIdx.x & 31u) == (unsigned)(__ffs(same) - 1))
        atomicAdd(&hist[bin], (uint32_t)__popc(same));
#endif
}

/* Block (x, item): 256-bin histogram of byte @p shift of the keys that match
 * the group's prefix, into parts[(item * gridDim.x + x) * 256 ...]. */
template <typename T>
WT_GLOBAL void WT_LAUNCH_BOUNDS(BAND_BLOCK)
    band_hist_kernel(const T *pyr, const cu_span *spans, const cu_item *items,
                     const cu_select *sel, int shift, uint32_t *parts)
{
    WT_DYN_SMEM(uint32_t, hist);
    for (unsigned b = threadIdx.x; b < 256; b += blockDim.x)
        hist[b] = 0;
    WT_SYNC();
    const cu_item it = items[blockIdx.y];
    const cu_span s = spans[it.span];
    const uint64_t prefix = sel[it.group].prefix, mask = sel[it.group].mask;
    uint64_t stride = (uint64_t)blockDim.x * gridDim.x;
    for (uint64_t e = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; e < s.count;
         e += stride) {
        uint64_t key = abs_key(pyr[span_at(&s, e)]);
        hist_add(hist, (key & mask) == prefix ? (uint32_t)(key >> shift) & 255u : 256u);
    }
    WT_SYNC();
    uint32_t *out = parts + ((size_t)blockIdx.y * gridDim.x + blockIdx.x) * 256;
    for (unsigned b = threadIdx.x; b < 256; b += blockDim.x)
        out[b] = hist[b];
}

/* Block g: group g's histogram summed over its items and blocks, then the
 * bin holding its k-th key fixes byte @p shift. Shared: 256 uint64. */
WT_GLOBAL void band_pick_kernel(cu_select *sel, const uint32_t *parts, int nparts, int shift)
{
    WT_DYN_SMEM(unsigned long long, bins);
    cu_select *g = &sel[blockIdx.x];
    for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) {
        unsigned long long n = 0;
#pragma unroll 8
        for (size_t q = (size_t)g->item0 * nparts; q < (size_t)(g->item0 + g->nitems) * nparts;
             q++)
            n += parts[q * 256 + b];
        bins[b] = n;
    }
    WT_SYNC();
    if (threadIdx.x != 0)
        return;
    uint64_t k = g->k;
    uint32_t b = 0;
    while (b < 255 && k >= bins[b]) {
        k -= bins[b];
        b++;
    }
    g->k = k;
    g->prefix |= (uint64_t)b << shift;
    g->mask |= (uint64_t)255 << shift;
}

/* Block (x, band) owns the contiguous elements [x * per, (x + 1) * per) of
 * its band, per = ceil(count / gridDim.x): the storage order of ties. */
WT_DEV void block_range(const cu_span *s, uint64_t *begin, uint64_t *end)
{
    uint64_t per = (s->count + gridDim.x - 1) / gridDim.x;
    *begin = per * blockIdx.x < s->count ? per * blockIdx.x : s->count;
    *end = *begin + per < s->count ? *begin + per : s->count;
}

/* ties[band * gridDim.x + x]: coefficients with |c| == cut in the block's range. */
template <typename T>
WT_GLOBAL void WT_LAUNCH_BOUNDS(BAND_BLOCK)
    band_ties_kernel(const T *pyr, const cu_span *spans, double cut, unsigned long long *ties)
{
    WT_DYN_SMEM(unsigned long long, tie_sum);
    const cu_span s = spans[blockIdx.y];
    uint64_t begin, end;
    block_range(&s, &begin, &end);
    unsigned long long n = 0;
    for (uint64_t e = begin + threadIdx.x; e < end; e += blockDim.x)
        n += fabs((double)pyr[span_at(&s, e)]) == cut;
    tie_sum[threadIdx.x] = n;
    WT_SYNC();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            tie_sum[threadIdx.x] += tie_sum[threadIdx.x + half];
        WT_SYNC();
    }
    if (threadIdx.x == 0)
        ties[(size_t)blockIdx.y * gridDim.x + blockIdx.x] = tie_sum[0];
}

/* In order over all blocks: how many of each block's ties survive. */
WT_GLOBAL void band_budget_kernel(unsigned long long *ties, size_t n, unsigned long long keep)
{
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        unsigned long long here = ties[i] < keep ? ties[i] : keep;
        keep -= here;
        ties[i] = here;
    }
}

/* Zero |c| < cut, and |c| == cut past the block's budget, in storage order
 * (a block-wide scan ranks the ties of each step). Shared: blockDim.x uint32. */
template <typename T>
WT_GLOBAL void WT_LAUNCH_BOUNDS(BAND_BLOCK)
    band_zero_kernel(T *pyr, const cu_span *spans, double cut, const unsigned long long *budget)
{
    WT_DYN_SMEM(uint32_t, scan);
    const cu_span s = spans[blockIdx.y];
    uint64_t begin, end;
    block_range(&s, &begin, &end);
    unsigned long long keep = budget[(size_t)blockIdx.y * gridDim.x + blockIdx.x], used = 0;
    for (uint64_t base = begin; base < end; base += blockDim.x) {
        uint64_t e = base + threadIdx.x;
        T *at = e < end ? pyr + span_at(&s, e) : NULL;
        double m = at ? fabs((double)*at) : INFINITY;
        uint32_t tie = m == cut;
        scan[threadIdx.x] = tie;
        WT_SYNC();
        for (unsigned off = 1; off < blockDim.x; off *= 2) {
            uint32_t add = threadIdx.x >= off ? scan[threadIdx.x - off] : 0;
            WT_SYNC();
            scan[threadIdx.x] += add;
            WT_SYNC();
        }
        uint32_t rank = scan[threadIdx.x] - tie, total = scan[blockDim.x - 1];
        WT_SYNC();
        if (at && (m < cut || (tie && used + rank >= keep)))
            store(at, 0.0);
        used += total;
    }
}

/* ---------------------------------------------------------------------- */
/* Launches */

static cu_engine *engine_of(const wt_epyramid *p)
{
    return (cu_engine *)p->engine->priv;
}

/* Blocks per band for bands of at most @p most elements. */
static unsigned parts_of(size_t most)
{
    size_t parts = ((most ? most : 1) + BAND_PER_BLOCK - 1) / BAND_PER_BLOCK;
    return (unsigned)(parts > BAND_PARTS_MAX ? BAND_PARTS_MAX : parts);
}

/* Blocks of BAND_BLOCK threads for a flat loop over @p n elements. */
static dim3 flat_grid(size_t n)
{
    size_t blocks = (n + BAND_BLOCK - 1) / BAND_BLOCK;
    return dim3((unsigned)(blocks < 1 ? 1 : (blocks > 4096 ? 4096 : blocks)));
}

/* Blocks per band: enough for the largest of @p n spans. */
static unsigned parts_for(const wt_band_span *s, size_t n)
{
    size_t most = 1;
    for (size_t i = 0; i < n; i++)
        most = s[i].rows * s[i].cols > most ? s[i].rows * s[i].cols : most;
    return parts_of(most);
}

/* Scratch on the device from BUF_BANDS, carved in 16-byte aligned pieces. */
typedef struct scratch {
    char *base;
    size_t used;
} scratch;

static size_t aligned(size_t bytes)
{
    return (bytes + 15) & ~(size_t)15;
}

static void *carve(scratch *s, size_t bytes)
{
    void *p = s->base + s->used;
    s->used += aligned(bytes);
    return p;
}

/* The spans in the device layout, with args, uploaded into scratch. */
static wt_status upload_spans(cu_engine *ce, const wt_epyramid *p, const wt_band_span *s,
                              const double *args, size_t n, scratch *sc, cu_span **d_spans)
{
    cu_span *h = (cu_span *)malloc((n ? n : 1) * sizeof *h);
    if (!h)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        size_t pitch = cu_band_pitch(&p->shape, s[i].cols);
        h[i].first = cu_band_first(&p->shape, s[i].level, s[i].band) +
                     (size_t)s[i].channel * s[i].rows * pitch;
        h[i].count = (uint64_t)s[i].rows * s[i].cols;
        h[i].cols = (uint32_t)s[i].cols;
        h[i].pitch = (uint32_t)pitch;
        h[i].arg = args ? args[i] : 0.0;
    }
    *d_spans = (cu_span *)carve(sc, n * sizeof *h);
    cudaError_t err = cudaMemcpyAsync(*d_spans, h, n * sizeof *h, cudaMemcpyHostToDevice,
                                      ce->stream);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(ce->stream); /* h is freed next */
    free(h);
    return cu_fail_check(err, "cudaMemcpyAsync (band spans)");
}

static wt_status get_scratch(cu_engine *ce, size_t bytes, scratch *sc)
{
    void *base;
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(cu_buf_get(ce, BUF_BANDS, bytes, &base));
    sc->base = (char *)base;
    sc->used = 0;
    return WT_OK;
}

/* After a failure nothing may still run on the pyramid. */
static wt_status settle(cu_engine *ce, wt_status st)
{
    if (st != WT_OK)
        cudaStreamSynchronize(ce->stream); /* already failing */
    return st;
}

static wt_status launched(cu_engine *ce)
{
    CU_CHECK(cudaGetLastError());
    (void)ce;
    return WT_OK;
}

/* band_op_kernel over @p grid (blocks per band, bands) of @p d_spans. */
static wt_status launch_op(cu_engine *ce, const wt_epyramid *p, const cu_span *d_spans,
                           dim3 grid, wt_band_op op, double arg)
{
    if (p->shape.dtype == WT_INT32)
        WT_LAUNCH(band_op_kernel<int32_t>, grid, dim3(BAND_BLOCK), 0, ce->stream,
                  (int32_t *)p->priv, d_spans, (int)op, arg);
    else
        WT_LAUNCH(band_op_kernel<float>, grid, dim3(BAND_BLOCK), 0, ce->stream,
                  (float *)p->priv, d_spans, (int)op, arg);
    return launched(ce);
}

static wt_status map_bands(wt_epyramid *p, wt_band_op op, const wt_band_span *s,
                           const double *args, size_t n)
{
    cu_engine *ce = engine_of(p);
    scratch sc;
    cu_span *d_spans;
    WT_TRY(get_scratch(ce, aligned(n * sizeof(cu_span)), &sc));
    WT_TRY(upload_spans(ce, p, s, args, n, &sc, &d_spans));
    WT_TRY(launch_op(ce, p, d_spans, dim3(parts_for(s, n), (unsigned)n), op, NAN));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    return WT_OK;
}

static wt_status cu_map(wt_epyramid *p, wt_band_op op, const wt_band_span *s,
                        const double *args, size_t n)
{
    return settle(engine_of(p), map_bands(p, op, s, args, n));
}

/* Statistics of @p n spans of @p data into d_out (device), @p parts blocks per span. */
template <typename T>
static wt_status reduce_spans(cu_engine *ce, const T *data, const cu_span *d_spans, size_t n,
                              unsigned parts, wt_band_stats *d_parts, wt_band_stats *d_out)
{
    WT_LAUNCH(band_reduce_kernel<T>, dim3(parts, (unsigned)n), dim3(BAND_BLOCK),
              BAND_BLOCK * sizeof(wt_band_stats), ce->stream, data, d_spans, d_parts);
    WT_TRY(launched(ce));
    WT_LAUNCH(band_stats_kernel, dim3((unsigned)((n + 127) / 128)), dim3(128), 0, ce->stream,
              d_out, d_parts, (int)parts, (int)n);
    return launched(ce);
}

/* The same of spans of the pyramid. */
static wt_status launch_reduce(cu_engine *ce, const wt_epyramid *p, const cu_span *d_spans,
                               size_t n, unsigned parts, wt_band_stats *d_parts,
                               wt_band_stats *d_out)
{
    if (p->shape.dtype == WT_INT32)
        return reduce_spans(ce, (const int32_t *)p->priv, d_spans, n, parts, d_parts, d_out);
    return reduce_spans(ce, (const float *)p->priv, d_spans, n, parts, d_parts, d_out);
}

static wt_status reduce_bands(const wt_epyramid *p, const wt_band_span *s, const double *t,
                              size_t n, wt_band_stats *out)
{
    cu_engine *ce = engine_of(p);
    unsigned parts = parts_for(s, n);
    scratch sc;
    cu_span *d_spans;
    size_t stats = sizeof(wt_band_stats);
    WT_TRY(get_scratch(ce, aligned(n * sizeof(cu_span)) + aligned(n * parts * stats) +
                               aligned(n * stats),
                       &sc));
    WT_TRY(upload_spans(ce, p, s, t, n, &sc, &d_spans));
    wt_band_stats *d_parts = (wt_band_stats *)carve(&sc, n * parts * stats);
    wt_band_stats *d_out = (wt_band_stats *)carve(&sc, n * stats);
    WT_TRY(launch_reduce(ce, p, d_spans, n, parts, d_parts, d_out));
    CU_CHECK(cudaMemcpyAsync(out, d_out, n * stats, cudaMemcpyDeviceToHost, ce->stream));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    return WT_OK;
}

static wt_status cu_reduce(const wt_epyramid *p, const wt_band_span *s, const double *t,
                           size_t n, wt_band_stats *out)
{
    return settle(engine_of(p), reduce_bands(p, s, t, n, out));
}

/* The groups' selection states and items (one per span of each group). */
static wt_status select_plan(const wt_select_group *g, size_t ng, cu_select *state,
                             cu_item **items, size_t *nitems)
{
    size_t total = 0;
    for (size_t i = 0; i < ng; i++)
        total += g[i].count;
    *items = (cu_item *)malloc((total ? total : 1) * sizeof **items);
    if (!*items)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < ng; i++) {
        state[i] = (cu_select){0, 0, g[i].k, (uint32_t)k, (uint32_t)g[i].count};
        for (size_t j = 0; j < g[i].count; j++)
            (*items)[k++] = (cu_item){(uint32_t)(g[i].first + j), (uint32_t)i};
    }
    *nitems = total;
    return WT_OK;
}

/* The radix selection of the groups @p d_sel over spans of @p data: a
 * histogram and a pick per byte of the keys (abs_key), the highest first. */
template <typename T>
static wt_status select_spans(cu_engine *ce, const T *data, unsigned parts, size_t nitems,
                              size_t ng, const cu_span *d_spans, const cu_item *d_items,
                              cu_select *d_sel, uint32_t *d_parts)
{
    dim3 grid(parts, (unsigned)nitems);
    for (int shift = 8 * (int)sizeof(abs_key(T())) - 8; shift >= 0; shift -= 8) {
        WT_LAUNCH(band_hist_kernel<T>, grid, dim3(BAND_BLOCK), 256 * sizeof(uint32_t),
                  ce->stream, data, d_spans, d_items, d_sel, shift, d_parts);
        WT_TRY(launched(ce));
        WT_LAUNCH(band_pick_kernel, dim3((unsigned)ng), dim3(256),
                  256 * sizeof(unsigned long long), ce->stream, d_sel, d_parts, (int)parts,
                  shift);
        WT_TRY(launched(ce));
    }
    return WT_OK;
}

/* The same over spans of the pyramid. */
static wt_status radix_passes(cu_engine *ce, const wt_epyramid *p, unsigned parts,
                              size_t nitems, size_t ng, const cu_span *d_spans,
                              const cu_item *d_items, cu_select *d_sel, uint32_t *d_parts)
{
    if (p->shape.dtype == WT_INT32)
        return select_spans(ce, (const int32_t *)p->priv, parts, nitems, ng, d_spans, d_items,
                            d_sel, d_parts);
    return select_spans(ce, (const float *)p->priv, parts, nitems, ng, d_spans, d_items, d_sel,
                        d_parts);
}

static wt_status select_bands(const wt_epyramid *p, const wt_band_span *s,
                              const wt_select_group *g, size_t ng, cu_select *state,
                              cu_item *items, double *out)
{
    cu_engine *ce = engine_of(p);
    size_t nitems = 0, n = 0;
    for (size_t i = 0; i < ng; i++) {
        nitems += g[i].count;
        n = g[i].first + g[i].count > n ? g[i].first + g[i].count : n;
    }
    unsigned parts = parts_for(s, n);
    scratch sc;
    cu_span *d_spans;
    WT_TRY(get_scratch(ce, aligned(n * sizeof(cu_span)) + aligned(nitems * sizeof(cu_item)) +
                               aligned(ng * sizeof(cu_select)) +
                               aligned(nitems * parts * 256 * sizeof(uint32_t)),
                       &sc));
    WT_TRY(upload_spans(ce, p, s, NULL, n, &sc, &d_spans));
    cu_item *d_items = (cu_item *)carve(&sc, nitems * sizeof(cu_item));
    cu_select *d_sel = (cu_select *)carve(&sc, ng * sizeof(cu_select));
    uint32_t *d_parts = (uint32_t *)carve(&sc, nitems * parts * 256 * sizeof(uint32_t));
    CU_CHECK(cudaMemcpyAsync(d_items, items, nitems * sizeof *items, cudaMemcpyHostToDevice,
                             ce->stream));
    CU_CHECK(cudaMemcpyAsync(d_sel, state, ng * sizeof *state, cudaMemcpyHostToDevice,
                             ce->stream));
    WT_TRY(radix_passes(ce, p, parts, nitems, ng, d_spans, d_items, d_sel, d_parts));
    CU_CHECK(cudaMemcpyAsync(state, d_sel, ng * sizeof *state, cudaMemcpyDeviceToHost,
                             ce->stream));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    for (size_t i = 0; i < ng; i++)
        out[i] = wt_abs_key_value((uint32_t)state[i].prefix, p->shape.dtype == WT_INT32);
    return WT_OK;
}

static wt_status cu_select_abs(const wt_epyramid *p, const wt_band_span *s,
                               const wt_select_group *g, size_t ng, double *out)
{
    cu_select *state = (cu_select *)malloc(ng * sizeof *state);
    cu_item *items = NULL;
    size_t nitems;
    wt_status st = state ? select_plan(g, ng, state, &items, &nitems)
                         : wt_error_set(WT_ERR_NOMEM, "out of memory");
    if (st == WT_OK)
        st = settle(engine_of(p), select_bands(p, s, g, ng, state, items, out));
    free(items);
    free(state);
    return st;
}

template <typename T>
static wt_status zero_launches(cu_engine *ce, T *pyr, const cu_span *d_spans, dim3 grid,
                               double cut, uint64_t ties, unsigned long long *d_ties)
{
    WT_LAUNCH(band_ties_kernel<T>, grid, dim3(BAND_BLOCK), BAND_BLOCK * sizeof(unsigned long long),
              ce->stream, (const T *)pyr, d_spans, cut, d_ties);
    WT_TRY(launched(ce));
    WT_LAUNCH(band_budget_kernel, dim3(1), dim3(1), 0, ce->stream, d_ties,
              (size_t)grid.x * grid.y, (unsigned long long)ties);
    WT_TRY(launched(ce));
    WT_LAUNCH(band_zero_kernel<T>, grid, dim3(BAND_BLOCK), BAND_BLOCK * sizeof(uint32_t),
              ce->stream, pyr, d_spans, cut, (const unsigned long long *)d_ties);
    return launched(ce);
}

static wt_status zero_bands(wt_epyramid *p, const wt_band_span *s, size_t n, double cut,
                            uint64_t ties)
{
    cu_engine *ce = engine_of(p);
    unsigned parts = parts_for(s, n);
    scratch sc;
    cu_span *d_spans;
    WT_TRY(get_scratch(ce, aligned(n * sizeof(cu_span)) +
                               aligned(n * parts * sizeof(unsigned long long)),
                       &sc));
    WT_TRY(upload_spans(ce, p, s, NULL, n, &sc, &d_spans));
    unsigned long long *d_ties =
        (unsigned long long *)carve(&sc, n * parts * sizeof(unsigned long long));
    dim3 grid(parts, (unsigned)n);
    if (p->shape.dtype == WT_INT32)
        WT_TRY(zero_launches(ce, (int32_t *)p->priv, d_spans, grid, cut, ties, d_ties));
    else
        WT_TRY(zero_launches(ce, (float *)p->priv, d_spans, grid, cut, ties, d_ties));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    return WT_OK;
}

static wt_status cu_zero_below(wt_epyramid *p, const wt_band_span *s, size_t n, double cut,
                               uint64_t ties)
{
    return settle(engine_of(p), zero_bands(p, s, n, cut, ties));
}

/* ---------------------------------------------------------------------- */
/* Storage, transforms, transfers */

/* ---------------------------------------------------------------------- */
/* Storage: the coefficients, then the denoise tables (shrink_layout). The
 * storage of a destroyed pyramid is kept as the engine's spare and taken by
 * the next pyramid it fits: no cudaMalloc, cudaFree (which waits for the
 * device) or memset per denoise. */

/* The denoise tables after the coefficients: n detail spans then the finest
 * diagonal band of each channel, each detail span's channel and level, the
 * radix selection's items and states (two per channel: the median's two
 * middle ranks), then the sigma used and the sigma the noise estimate
 * gave, per channel. */
typedef struct shrink_layout {
    size_t n, channels;
    size_t spans, band, items, sel, used, given, end; /* byte offsets */
} shrink_layout;

static size_t coef_bytes(const wt_pyramid *shape)
{
    return aligned(cu_pyramid_elems(shape) * 4 + 64); /* the fast gathers read whole 16-byte blocks */
}

static shrink_layout shrink_layout_of(const wt_pyramid *shape)
{
    shrink_layout t;
    t.channels = (size_t)shape->channels;
    t.n = (size_t)3 * (size_t)shape->levels * t.channels;
    t.spans = coef_bytes(shape);
    t.band = t.spans + aligned((t.n + t.channels) * sizeof(cu_span));
    t.items = t.band + aligned(t.n * sizeof(uint32_t));
    t.sel = t.items + aligned(2 * t.channels * sizeof(cu_item));
    t.used = t.sel + aligned(2 * t.channels * sizeof(cu_select));
    t.given = t.used + aligned(4 * sizeof(double));
    t.end = t.given + aligned(4 * sizeof(double));
    return t;
}

static size_t storage_bytes(const wt_pyramid *shape)
{
    return shrink_layout_of(shape).end;
}

/* Whether two plans lay the device pyramid out alike (cu_band_first). */
static int same_layout(const wt_pyramid *a, const wt_pyramid *b)
{
    if (a->height != b->height || a->width != b->width || a->channels != b->channels ||
        a->levels != b->levels || a->dtype != b->dtype || a->total != b->total)
        return 0;
    for (int l = 0; l <= a->levels; l++)
        if (a->lo_h[l] != b->lo_h[l] || a->lo_w[l] != b->lo_w[l] || a->hi_h[l] != b->hi_h[l] ||
            a->hi_w[l] != b->hi_w[l])
            return 0;
    return 1;
}

/* The spare if it is large enough (*zeroed: it held this layout, so its
 * row padding is as a fresh one's after the memset), else a new one. */
static wt_status take_storage(cu_engine *ce, const wt_pyramid *shape, size_t bytes, void **ptr,
                              int *fresh)
{
    if (ce->spare_pyr && ce->spare_bytes == bytes) {
        *ptr = ce->spare_pyr;
        *fresh = !same_layout(&ce->spare_layout, shape);
        ce->spare_pyr = NULL;
        ce->spare_bytes = 0;
        return WT_OK;
    }
    if (ce->spare_pyr && ce->spare_bytes < bytes)
        cu_spare_release(ce);
    *fresh = 1;
    return cu_device_alloc(ce, ptr, bytes);
}

static wt_status cu_create(wt_epyramid *p)
{
    cu_engine *ce = engine_of(p);
    size_t bytes = storage_bytes(&p->shape);
    int fresh;
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(take_storage(ce, &p->shape, bytes, &p->priv, &fresh));
    if (!fresh)
        return WT_OK;
    if (ce->tables_at == p->priv)
        ce->tables_at = NULL; /* another layout's tables */
    cudaError_t err = cudaMemsetAsync(p->priv, 0, bytes, ce->stream); /* ordered before any use */
    if (err == cudaSuccess)
        return WT_OK;
    cu_device_free(ce, p->priv, bytes);
    p->priv = NULL;
    return cu_fail(ce, err, "cudaMemsetAsync (pyramid)", 0);
}

static void spin_free(wt_epyramid *p);

/* The storage becomes the spare (the larger of it and the old spare stays). */
static void cu_destroy(wt_epyramid *p)
{
    cu_engine *ce = engine_of(p);
    size_t bytes = storage_bytes(&p->shape);
    cudaSetDevice(ce->device);
    ce->forward_planes = NULL; /* the next pyramid's forward sets them */
    spin_free(p);
    if (p->priv && ce->spare_bytes <= bytes) {
        cu_spare_release(ce);
        ce->spare_pyr = p->priv;
        ce->spare_bytes = bytes;
        ce->spare_layout = p->shape;
    } else if (p->priv) {
        if (ce->tables_at == p->priv)
            ce->tables_at = NULL;
        cu_device_free(ce, p->priv, bytes);
    }
    p->priv = NULL;
}

/* ---------------------------------------------------------------------- */
/* Denoise shrinkage on the device (wt_shrink_plan; src/denoise.c's
 * shrink_composed in launches that never wait for the host): the residue
 * map and the median of the finest diagonal bands, sigma, the detail bands'
 * statistics, thresholds and the shrinkage. The same kernels and grids as
 * the composed map, reduce and select, so the same numbers; the thresholds'
 * double arithmetic without FMA contraction, as the host computes it. */

/* The plan as a kernel parameter. */
typedef struct cu_shrink_args {
    int estimate, rule, channels, integer;
    int given_on_engine; /* given: the noise estimate's, on the device */
    uint64_t d1_count;   /* coefficients of a finest diagonal band */
    double zero, ppf75, bayes_floor, visu, fixed;
    double given[4];
    double factor[WT_MAX_LEVELS];
} cu_shrink_args;

/* Thread c: the two middle ranks of channel c's nonzero |c| (one rank twice
 * when their number is odd; 0 when there are none). */
WT_GLOBAL void shrink_median_setup_kernel(const wt_band_stats *d1, cu_select *sel, int channels)
{
    for (int c = (int)(blockIdx.x * blockDim.x + threadIdx.x); c < channels;
         c += (int)(blockDim.x * gridDim.x)) {
        uint64_t skip = d1[c].zeros, m = d1[c].count - skip;
        uint64_t lo = m ? skip + (m - 1) / 2 : 0, hi = m ? skip + m / 2 : 0;
        sel[2 * c] = cu_select{0, 0, lo, (uint32_t)(2 * c), 1};
        sel[2 * c + 1] = cu_select{0, 0, hi, (uint32_t)(2 * c + 1), 1};
    }
}

/* The given sigma of channel @p c: the plan's or the noise estimate's. */
WT_DEV double shrink_given(const cu_shrink_args *a, const double *given, int c)
{
    return a->given_on_engine ? given[c] : a->given[c];
}

/* The finest diagonal spans of the engine's own estimate: the channels
 * without a given sigma (the others: no elements), and every channel's
 * residue cut when any has none (shrink_pyramid's composition). One thread. */
WT_GLOBAL void shrink_d1_kernel(cu_span *d1, const double *given, const cu_shrink_args a)
{
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    int any = 0;
    for (int c = 0; c < a.channels; c++)
        any |= isnan(shrink_given(&a, given, c));
    for (int c = 0; c < a.channels; c++) {
        d1[c].count = isnan(shrink_given(&a, given, c)) ? a.d1_count : 0;
        d1[c].arg = any && a.zero > 0.0 ? a.zero : NAN;
    }
}

/* used[c]: the given sigma, or median / Phi^-1(0.75) (NaN: no nonzero |c|). */
WT_GLOBAL void shrink_sigma_kernel(const wt_band_stats *d1, const cu_select *sel,
                                   const double *given, double *used, const cu_shrink_args a)
{
    for (int c = (int)(blockIdx.x * blockDim.x + threadIdx.x); c < a.channels;
         c += (int)(blockDim.x * gridDim.x)) {
        double est = NAN, g = shrink_given(&a, given, c);
        uint64_t m = a.estimate ? d1[c].count - d1[c].zeros : 0;
        if (m) {
            double v0 = wt_abs_key_value((uint32_t)sel[2 * c].prefix, a.integer);
            double v1 = wt_abs_key_value((uint32_t)sel[2 * c + 1].prefix, a.integer);
            est = (m % 2 ? v0 : (v0 + v1) / 2.0) / a.ppf75;
        }
        used[c] = isnan(g) ? est : g;
    }
}

/* spans[i].arg: detail band i's threshold (band[i]: channel | level << 8). */
WT_GLOBAL void shrink_threshold_kernel(cu_span *spans, const uint32_t *band,
                                       const wt_band_stats *stats, const double *used, int n,
                                       const cu_shrink_args a)
{
    for (int i = (int)(blockIdx.x * blockDim.x + threadIdx.x); i < n;
         i += (int)(blockDim.x * gridDim.x)) {
        double sigma = used[band[i] & 255u], t = a.fixed;
        if (a.rule == WT_RULE_BAYES) {
            double var = wt_dmul(sigma, sigma);
            double dvar = stats[i].count ? stats[i].sum_sq / (double)stats[i].count : 0.0;
            double excess = wt_dsub(dvar, var);
            t = var / sqrt(excess > a.bayes_floor ? excess : a.bayes_floor);
        } else if (a.rule == WT_RULE_VISU) {
            t = wt_dmul(sigma, a.visu);
        }
        spans[i].arg = wt_dmul(t, a.factor[(band[i] >> 8) - 1]);
    }
}

/* The span of channel @p c of band @p b of level @p l (argument 0). */
static cu_span span_of(const wt_pyramid *shape, int l, wt_band b, int c)
{
    size_t rows, cols;
    wt_pyramid_band_shape(shape, l, b, &rows, &cols);
    size_t pitch = cu_band_pitch(shape, cols);
    cu_span s;
    s.first = cu_band_first(shape, l, b) + (size_t)c * rows * pitch;
    s.count = (uint64_t)rows * cols;
    s.cols = (uint32_t)cols;
    s.pitch = (uint32_t)pitch;
    s.arg = 0.0;
    return s;
}

/* The tables of shrink_layout into the pyramid's storage, unless they are
 * there already (the spare storage of the same layout): one wait per layout. */
static wt_status shrink_tables(cu_engine *ce, const wt_epyramid *p, const shrink_layout *t)
{
    if (ce->tables_at == p->priv && same_layout(&ce->tables_layout, &p->shape))
        return WT_OK;
    size_t bytes = t->used - t->spans;
    char *h = (char *)calloc(1, bytes);
    if (!h)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    cu_span *sp = (cu_span *)h;
    uint32_t *band = (uint32_t *)(h + (t->band - t->spans));
    cu_item *items = (cu_item *)(h + (t->items - t->spans));
    size_t i = 0;
    for (int l = p->shape.levels; l >= 1; l--) /* wt_epyramid_details' order */
        for (int b = WT_BAND_H; b <= WT_BAND_D; b++)
            for (int c = 0; c < p->shape.channels; c++, i++) {
                sp[i] = span_of(&p->shape, l, (wt_band)b, c);
                band[i] = (uint32_t)c | (uint32_t)l << 8;
            }
    for (int c = 0; c < p->shape.channels; c++) {
        sp[t->n + (size_t)c] = span_of(&p->shape, 1, WT_BAND_D, c);
        items[2 * c] = cu_item{(uint32_t)c, (uint32_t)(2 * c)};
        items[2 * c + 1] = cu_item{(uint32_t)c, (uint32_t)(2 * c + 1)};
    }
    cudaError_t err = cudaMemcpyAsync((char *)p->priv + t->spans, h, bytes,
                                      cudaMemcpyHostToDevice, ce->stream);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(ce->stream); /* h is freed next */
    free(h);
    WT_TRY(cu_fail_check(err, "cudaMemcpyAsync (denoise tables)"));
    ce->tables_at = p->priv;
    ce->tables_layout = p->shape;
    return WT_OK;
}

static cu_shrink_args shrink_args_of(const wt_epyramid *p, const wt_shrink_plan *plan)
{
    cu_shrink_args a;
    memset(&a, 0, sizeof a);
    a.estimate = plan->estimate;
    a.given_on_engine = plan->given_on_engine;
    size_t rows, cols;
    wt_pyramid_band_shape(&p->shape, 1, WT_BAND_D, &rows, &cols);
    a.d1_count = (uint64_t)rows * cols;
    a.rule = (int)plan->rule;
    a.channels = p->shape.channels;
    a.integer = p->shape.dtype == WT_INT32;
    a.zero = plan->zero;
    a.ppf75 = plan->ppf75;
    a.bayes_floor = plan->bayes_floor;
    a.visu = plan->visu;
    a.fixed = plan->fixed;
    memcpy(a.given, plan->given, sizeof a.given);
    memcpy(a.factor, plan->factor, sizeof a.factor);
    return a;
}

/* Device scratch of one shrinkage (BUF_BANDS). */
typedef struct shrink_scratch {
    unsigned parts_d1, parts;      /* blocks per band: finest diagonal, all details */
    wt_band_stats *d1_parts, *d1;  /* per channel */
    uint32_t *hist;                /* radix histograms */
    wt_band_stats *parts_all, *stats;
} shrink_scratch;

static wt_status shrink_scratch_get(cu_engine *ce, const wt_epyramid *p, const shrink_layout *t,
                                    shrink_scratch *w)
{
    size_t rows, cols, C = t->channels, st = sizeof(wt_band_stats), most = 1;
    wt_pyramid_band_shape(&p->shape, 1, WT_BAND_D, &rows, &cols);
    w->parts_d1 = parts_of(rows * cols);
    for (int l = 1; l <= p->shape.levels; l++) /* parts_for of all detail bands */
        for (int b = WT_BAND_H; b <= WT_BAND_D; b++) {
            wt_pyramid_band_shape(&p->shape, l, (wt_band)b, &rows, &cols);
            most = rows * cols > most ? rows * cols : most;
        }
    w->parts = parts_of(most);
    size_t d1_parts = aligned(C * w->parts_d1 * st), d1b = aligned(C * st);
    size_t hist = aligned(2 * C * w->parts_d1 * 256 * sizeof(uint32_t));
    size_t all_parts = aligned(t->n * w->parts * st), stats = aligned(t->n * st);
    scratch sc = {NULL, 0};
    WT_TRY(get_scratch(ce, d1_parts + d1b + hist + all_parts + stats, &sc));
    w->d1_parts = (wt_band_stats *)carve(&sc, C * w->parts_d1 * st);
    w->d1 = (wt_band_stats *)carve(&sc, C * st);
    w->hist = (uint32_t *)carve(&sc, 2 * C * w->parts_d1 * 256 * sizeof(uint32_t));
    w->parts_all = (wt_band_stats *)carve(&sc, t->n * w->parts * st);
    w->stats = (wt_band_stats *)carve(&sc, t->n * st);
    return WT_OK;
}

/* The noise estimate: residues zeroed, the medians by radix selection, sigma. */
static wt_status shrink_estimate(cu_engine *ce, const wt_epyramid *p, const shrink_layout *t,
                                 const shrink_scratch *w, const cu_shrink_args *a)
{
    char *base = (char *)p->priv;
    cu_span *d1 = (cu_span *)(base + t->spans) + t->n;
    cu_select *sel = (cu_select *)(base + t->sel);
    const double *given = (const double *)(base + t->given);
    unsigned C = (unsigned)t->channels;
    if (a->estimate) {
        WT_LAUNCH(shrink_d1_kernel, dim3(1), dim3(1), 0, ce->stream, d1, given, *a);
        WT_TRY(launched(ce));
        WT_TRY(launch_op(ce, p, d1, dim3(w->parts_d1, C), WT_OP_HARD, NAN));
        WT_TRY(launch_reduce(ce, p, d1, C, w->parts_d1, w->d1_parts, w->d1));
        WT_LAUNCH(shrink_median_setup_kernel, dim3(1), dim3(32), 0, ce->stream, w->d1, sel,
                  (int)C);
        WT_TRY(launched(ce));
        WT_TRY(radix_passes(ce, p, w->parts_d1, 2 * C, 2 * C, d1,
                            (const cu_item *)(base + t->items), sel, w->hist));
    }
    WT_LAUNCH(shrink_sigma_kernel, dim3(1), dim3(32), 0, ce->stream, w->d1, sel, given,
              (double *)(base + t->used), *a);
    return launched(ce);
}

static wt_status shrink_bands(wt_epyramid *p, const wt_shrink_plan *plan)
{
    cu_engine *ce = engine_of(p);
    shrink_layout t = shrink_layout_of(&p->shape);
    cu_shrink_args a = shrink_args_of(p, plan);
    shrink_scratch w;
    char *base = (char *)p->priv;
    cu_span *spans = (cu_span *)(base + t.spans);
    CU_CHECK(cudaSetDevice(ce->device));
    if (!t.n)
        return WT_OK;
    WT_TRY(shrink_tables(ce, p, &t));
    WT_TRY(shrink_scratch_get(ce, p, &t, &w));
    WT_TRY(shrink_estimate(ce, p, &t, &w, &a));
    if (a.rule == WT_RULE_BAYES)
        WT_TRY(launch_reduce(ce, p, spans, t.n, w.parts, w.parts_all, w.stats));
    WT_LAUNCH(shrink_threshold_kernel, dim3((unsigned)((t.n + 127) / 128)), dim3(128), 0,
              ce->stream, spans, (const uint32_t *)(base + t.band), w.stats,
              (const double *)(base + t.used), (int)t.n, a);
    WT_TRY(launched(ce));
    return launch_op(ce, p, spans, dim3(w.parts, (unsigned)t.n),
                     plan->soft ? WT_OP_SOFT : WT_OP_HARD, NAN);
}

static wt_status cu_shrink(wt_epyramid *p, const wt_shrink_plan *plan)
{
    return settle(engine_of(p), shrink_bands(p, plan));
}

static wt_status cu_shrink_sigma(wt_epyramid *p, double *sigma)
{
    cu_engine *ce = engine_of(p);
    shrink_layout t = shrink_layout_of(&p->shape);
    double used[4] = {NAN, NAN, NAN, NAN};
    CU_CHECK(cudaSetDevice(ce->device));
    CU_CHECK(cudaMemcpyAsync(used, (char *)p->priv + t.used, t.channels * sizeof(double),
                             cudaMemcpyDeviceToHost, ce->stream));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    memcpy(sigma, used, t.channels * sizeof(double));
    return WT_OK;
}

/* ---------------------------------------------------------------------- */
/* scikit-image's noise estimate on the device (src/analysis/noise_estimate.c
 * in the same float64 operations and order, so the same exact zeros and
 * the same bits): pywt.dwtn's finest diagonal band of the planes the last
 * forward read, times the sample scale (img_as_float), one channel at a
 * time (the column filter into a row of doubles per output row, then the
 * row filter into |c|), then the median of the nonzero |c| by the radix
 * selection on the doubles' bits, / Phi^-1(0.75) x peak into the given
 * sigma of the next shrink (shrink_layout.given). */

/* The filter of the noise estimate: the wavelet's dec_hi and the samples'
 * scale, as a kernel parameter. */
typedef struct cu_noise_filter {
    double taps[WT_ENGINE_NOISE_TAPS];
    int f;
    double scale;
} cu_noise_filter;

/* Half-sample symmetric extension: x[-1] = x[0], x[n] = x[n - 1], period 2n. */
WT_DEV size_t mirror_index(long long e, size_t n)
{
    long long p = 2 * (long long)n, m = ((e % p) + p) % p;
    return (size_t)(m < (long long)n ? m : p - 1 - m);
}

/* Tap @p k of output @p o's sum over @p n samples in PyWavelets' order:
 * the taps past the right end (i - n + 1 of them, i = 2o + 1) descending,
 * then the others ascending. */
WT_DEV int noise_tap(size_t o, size_t n, int k)
{
    size_t i = 2 * o + 1;
    int first = i >= n ? (int)(i - n + 1) : 0;
    return k < first ? first - 1 - k : k;
}

/* The sample tap @p t of output @p o multiplies (inside the signal: i - t). */
WT_DEV size_t noise_at(size_t o, size_t n, int f, int t)
{
    long long i = 2 * (long long)o + 1;
    return i >= f - 1 && i < (long long)n ? (size_t)(i - t) : mirror_index(i - t, n);
}

/* out[o][x] = sum over the taps of taps[t] * (plane[at][x] * scale), from 0. */
WT_GLOBAL void noise_columns_kernel(double *out, const float *plane, const cu_noise_filter g,
                                    size_t h, size_t w, size_t ny)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < ny * w; e += stride) {
        size_t o = e / w, x = e % w;
        double s = 0.0;
        for (int k = 0; k < g.f; k++) {
            int t = noise_tap(o, h, k);
            double v = wt_dmul((double)plane[noise_at(o, h, g.f, t) * w + x], g.scale);
            s = wt_dadd(s, wt_dmul(g.taps[t], v));
        }
        out[e] = s;
    }
}

/* mags[o][ox]: |c| of the row filter of row o of @p rows (0 where c is 0). */
WT_GLOBAL void noise_rows_kernel(double *mags, const double *rows, const cu_noise_filter g,
                                 size_t w, size_t ny, size_t nx)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < ny * nx; e += stride) {
        size_t o = e / nx, ox = e % nx;
        const double *row = rows + o * w;
        double s = 0.0;
        for (int k = 0; k < g.f; k++) {
            int t = noise_tap(ox, w, k);
            s = wt_dadd(s, wt_dmul(g.taps[t], row[noise_at(ox, w, g.f, t)]));
        }
        mags[e] = s != 0.0 ? fabs(s) : 0.0;
    }
}

/* spans[c]: channel c's ny x nx |c|, after the channels before it. */
WT_GLOBAL void noise_spans_kernel(cu_span *spans, int channels, size_t ny, size_t nx)
{
    for (int c = (int)(blockIdx.x * blockDim.x + threadIdx.x); c < channels;
         c += (int)(blockDim.x * gridDim.x))
        spans[c] = cu_span{(size_t)c * ny * nx, (uint64_t)ny * nx, (uint32_t)nx, (uint32_t)nx,
                           0.0};
}

/* given[c]: numpy's median of channel c's nonzero |c| (the mean of the two
 * middle ones for an even count) / Phi^-1(0.75) x peak; NaN without any. */
WT_GLOBAL void noise_sigma_kernel(const wt_band_stats *stats, const cu_select *sel,
                                  double *given, int channels, double ppf75, double peak)
{
    for (int c = (int)(blockIdx.x * blockDim.x + threadIdx.x); c < channels;
         c += (int)(blockDim.x * gridDim.x)) {
        uint64_t m = stats[c].count - stats[c].zeros;
        double v0 = abs_key_double(sel[2 * c].prefix), v1 = abs_key_double(sel[2 * c + 1].prefix);
        double median = m % 2 ? v0 : wt_ddiv(wt_dadd(v0, v1), 2.0);
        given[c] = m ? wt_dmul(wt_ddiv(median, ppf75), peak) : NAN;
    }
}

/* The noise estimate's output shape: pywt.dwtn's finest diagonal band,
 * (n + f - 1) / 2 along each axis. */
static void noise_shape(const wt_epyramid *p, size_t *ny, size_t *nx)
{
    size_t f = (size_t)p->params.wavelet->filter_len;
    *ny = (p->shape.height + f - 1) / 2;
    *nx = (p->shape.width + f - 1) / 2;
}

/* Device scratch of one noise estimate (BUF_BANDS). */
typedef struct noise_scratch {
    unsigned parts;        /* blocks per channel */
    size_t ny, nx;         /* the band's shape */
    cu_span *spans;        /* per channel: its |c| in mags */
    double *rows;          /* ny x w: the column filter of one channel */
    double *mags;          /* C x ny x nx: |c| */
    wt_band_stats *stats_parts, *stats;
    uint32_t *hist;        /* radix histograms */
} noise_scratch;

static wt_status noise_scratch_get(cu_engine *ce, const wt_epyramid *p, noise_scratch *w)
{
    size_t C = (size_t)p->shape.channels, wd = p->shape.width, st = sizeof(wt_band_stats);
    noise_shape(p, &w->ny, &w->nx);
    size_t n = w->ny * w->nx;
    w->parts = parts_of(n);
    size_t hist = 2 * C * w->parts * 256 * sizeof(uint32_t);
    scratch sc = {NULL, 0};
    WT_TRY(get_scratch(ce, aligned(C * sizeof(cu_span)) + aligned(w->ny * wd * 8) +
                               aligned(C * n * 8) + aligned(C * w->parts * st) +
                               aligned(C * st) + aligned(hist),
                       &sc));
    w->spans = (cu_span *)carve(&sc, C * sizeof(cu_span));
    w->rows = (double *)carve(&sc, w->ny * wd * 8);
    w->mags = (double *)carve(&sc, C * n * 8);
    w->stats_parts = (wt_band_stats *)carve(&sc, C * w->parts * st);
    w->stats = (wt_band_stats *)carve(&sc, C * st);
    w->hist = (uint32_t *)carve(&sc, hist);
    return WT_OK;
}

/* Each channel's |c| of the finest diagonal band into w->mags, and their spans. */
static wt_status noise_bands(cu_engine *ce, const wt_epyramid *p, const noise_scratch *w,
                             double scale)
{
    size_t h = p->shape.height, wd = p->shape.width, n = w->ny * w->nx;
    cu_noise_filter g;
    memset(&g, 0, sizeof g);
    g.f = p->params.wavelet->filter_len;
    g.scale = scale;
    memcpy(g.taps, p->params.wavelet->dec_hi, (size_t)g.f * sizeof(double));
    for (int c = 0; c < p->shape.channels; c++) {
        WT_LAUNCH(noise_columns_kernel, flat_grid(w->ny * wd), dim3(BAND_BLOCK), 0, ce->stream,
                  w->rows, ce->forward_planes + (size_t)c * h * wd, g, h, wd, w->ny);
        WT_TRY(launched(ce));
        WT_LAUNCH(noise_rows_kernel, flat_grid(n), dim3(BAND_BLOCK), 0, ce->stream,
                  w->mags + (size_t)c * n, (const double *)w->rows, g, wd, w->ny, w->nx);
        WT_TRY(launched(ce));
    }
    WT_LAUNCH(noise_spans_kernel, dim3(1), dim3(32), 0, ce->stream, w->spans, p->shape.channels,
              w->ny, w->nx);
    return launched(ce);
}

static wt_status noise_estimate(wt_epyramid *p, double scale, double peak)
{
    cu_engine *ce = engine_of(p);
    shrink_layout t = shrink_layout_of(&p->shape);
    char *base = (char *)p->priv;
    cu_select *sel = (cu_select *)(base + t.sel);
    unsigned C = (unsigned)t.channels;
    noise_scratch w;
    CU_CHECK(cudaSetDevice(ce->device));
    if (!ce->forward_planes)
        return wt_error_set(WT_ERR_INVALID, "noise estimate before a forward transform");
    if (p->params.wavelet->filter_len > WT_ENGINE_NOISE_TAPS)
        return wt_error_set(WT_ERR_UNSUPPORTED, "noise estimate: filters of %d taps at most",
                            WT_ENGINE_NOISE_TAPS);
    WT_TRY(shrink_tables(ce, p, &t)); /* the selection's items */
    WT_TRY(noise_scratch_get(ce, p, &w));
    WT_TRY(noise_bands(ce, p, &w, scale));
    WT_TRY(reduce_spans(ce, (const double *)w.mags, w.spans, C, w.parts, w.stats_parts, w.stats));
    WT_LAUNCH(shrink_median_setup_kernel, dim3(1), dim3(32), 0, ce->stream, w.stats, sel, (int)C);
    WT_TRY(launched(ce));
    WT_TRY(select_spans(ce, (const double *)w.mags, w.parts, 2 * C, 2 * C, w.spans,
                        (const cu_item *)(base + t.items), sel, w.hist));
    WT_LAUNCH(noise_sigma_kernel, dim3(1), dim3(32), 0, ce->stream, w.stats, sel,
              (double *)(base + t.given), (int)C, NORM_PPF_075, peak);
    return launched(ce); /* no wait: the shrink that reads it follows on the stream */
}

static wt_status cu_noise_estimate(wt_epyramid *p, double scale, double peak)
{
    return settle(engine_of(p), noise_estimate(p, scale, peak));
}

static size_t plane_elems(const wt_pyramid *s)
{
    return s->height * s->width * (size_t)s->channels;
}

static wt_status forward_planes(wt_epyramid *p, const float *planes)
{
    cu_engine *ce = engine_of(p);
    void *d_planes;
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(cu_buf_get(ce, BUF_PLANES, plane_elems(&p->shape) * 4, &d_planes));
    CU_CHECK(cudaMemcpyAsync(d_planes, planes, plane_elems(&p->shape) * 4,
                             cudaMemcpyHostToDevice, ce->stream));
    WT_TRY(cu_forward_device(ce, &p->params, &p->shape, (const float *)d_planes, p->priv,
                             CU_BOUND_MEASURE));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    return WT_OK;
}

static wt_status inverse_planes(wt_epyramid *p, float *planes)
{
    cu_engine *ce = engine_of(p);
    void *d_planes;
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(cu_buf_get(ce, BUF_PLANES, plane_elems(&p->shape) * 4, &d_planes));
    WT_TRY(cu_inverse_device(ce, &p->params, &p->shape, p->priv, (float *)d_planes,
                             CU_BOUND_MEASURE));
    if (!planes) /* wt_denoise_time_resident: the planes stay on the device */
        return WT_OK;
    CU_CHECK(cudaMemcpyAsync(planes, d_planes, plane_elems(&p->shape) * 4,
                             cudaMemcpyDeviceToHost, ce->stream));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    return WT_OK;
}

/* Adds the call to the engine's transform time (as wt_forward / wt_inverse). */
static wt_status timed_transform(wt_epyramid *p, double t0, wt_status st)
{
    p->engine->times.transform += wt_seconds() - t0;
    p->engine->times.calls++;
    return settle(engine_of(p), st);
}

/* The planes a resident forward read, for the noise estimate. */
static wt_status planes_read(wt_epyramid *p, const void *planes, wt_status st)
{
    engine_of(p)->forward_planes = st == WT_OK ? (const float *)planes : NULL;
    return st;
}

static wt_status cu_forward(wt_epyramid *p, const float *planes)
{
    double t0 = wt_seconds();
    wt_status st = timed_transform(p, t0, forward_planes(p, planes));
    return planes_read(p, engine_of(p)->buf[BUF_PLANES], st);
}

static wt_status cu_inverse(wt_epyramid *p, float *planes)
{
    double t0 = wt_seconds();
    return timed_transform(p, t0, inverse_planes(p, planes));
}

static wt_status cu_forward_img(wt_epyramid *p, const wt_image *img)
{
    wt_status st = cu_forward_image_into(p->engine, &p->params, img, &p->shape, p->priv);
    return planes_read(p, engine_of(p)->buf[BUF_PLANES], st);
}

static wt_status cu_inverse_img(wt_epyramid *p, wt_image *img)
{
    return cu_inverse_image_from(p->engine, &p->params, &p->shape, p->priv, img);
}

static wt_status copy_pyramid(const wt_epyramid *p, void *dst, const void *src, int up)
{
    cu_engine *ce = engine_of(p);
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(cu_pyramid_copy(ce, &p->shape, dst, src, up,
                           up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    return WT_OK;
}

static wt_status cu_upload(wt_epyramid *p, const wt_pyramid *host)
{
    return settle(engine_of(p), copy_pyramid(p, p->priv, host->data, 1));
}

static wt_status cu_download(const wt_epyramid *p, wt_pyramid *host)
{
    return settle(engine_of(p), copy_pyramid(p, host->data, p->priv, 0));
}

/* ---------------------------------------------------------------------- */
/* Cycle spinning: the samples stay on the device as float planes; each
 * shift rolls them into BUF_PLANES, and the inverse of BUF_PLANES is clipped,
 * rolled back and added into a double accumulator (the numbers of
 * src/epyramid.c's host composition). */

typedef struct cu_spin {
    float *source;  /* C x h x w */
    double *accum;  /* C x h x w */
    void *samples;  /* interleaved samples, up once and down once */
    size_t bytes;   /* of the three together */
} cu_spin;

template <typename T>
WT_GLOBAL void spin_load_kernel(float *source, const T *samples, size_t npix, int channels)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < npix; i += stride)
        for (int c = 0; c < channels; c++)
            source[(size_t)c * npix + i] = (float)samples[i * (size_t)channels + (size_t)c];
}

/* Element (c, y, x) of C x h x w planes moved by (dy, dx), circularly. */
WT_DEV size_t rolled_at(size_t i, size_t h, size_t w, size_t dy, size_t dx)
{
    size_t n = h * w, c = i / n, y = i % n / w, x = i % w;
    return c * n + (y + dy) % h * w + (x + dx) % w;
}

WT_GLOBAL void spin_roll_kernel(float *work, const float *source, size_t all, size_t h, size_t w,
                                size_t dy, size_t dx)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < all; i += stride)
        work[rolled_at(i, h, w, dy, dx)] = source[i];
}

WT_GLOBAL void spin_add_kernel(double *accum, const float *work, size_t all, size_t h, size_t w,
                               size_t dy, size_t dx, double lo, double hi)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < all; i += stride) {
        double v = work[rolled_at(i, h, w, dy, dx)];
        accum[i] += v < lo ? lo : (v > hi ? hi : v);
    }
}

WT_DEV double round_even(double v)
{
#ifdef WT_CUDA_EMULATE
    return (double)lrint(v);
#else
    return rint(v);
#endif
}

template <typename T>
WT_GLOBAL void spin_result_kernel(T *samples, const double *accum, size_t npix, int channels,
                                  double count, double peak)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < npix; i += stride)
        for (int c = 0; c < channels; c++) {
            double v = accum[(size_t)c * npix + i] / count;
            v = isnan(v) ? 0.0 : (v < 0.0 ? 0.0 : (v > peak ? peak : v));
            samples[i * (size_t)channels + (size_t)c] = (T)round_even(v);
        }
}

static size_t spin_bytes(const wt_pyramid *s, size_t sample_bytes, size_t *accum_at,
                         size_t *samples_at)
{
    size_t all = s->height * s->width * (size_t)s->channels;
    *accum_at = (all * 4 + 255) / 256 * 256;
    *samples_at = *accum_at + (all * 8 + 255) / 256 * 256;
    return *samples_at + sample_bytes;
}

static void spin_free(wt_epyramid *p)
{
    cu_spin *sp = (cu_spin *)p->spin_priv;
    if (!sp)
        return;
    cu_device_free(engine_of(p), sp->source, sp->bytes);
    free(sp);
    p->spin_priv = NULL;
}

static wt_status spin_alloc(wt_epyramid *p, size_t sample_bytes)
{
    cu_engine *ce = engine_of(p);
    size_t accum_at, samples_at, bytes = spin_bytes(&p->shape, sample_bytes, &accum_at, &samples_at);
    cu_spin *sp = (cu_spin *)calloc(1, sizeof *sp);
    if (!sp)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    void *base = NULL;
    wt_status st = cu_device_alloc(ce, &base, bytes);
    if (st != WT_OK) {
        free(sp);
        return st;
    }
    sp->source = (float *)base;
    sp->accum = (double *)((char *)base + accum_at);
    sp->samples = (char *)base + samples_at;
    sp->bytes = bytes;
    p->spin_priv = sp;
    return WT_OK;
}

static wt_status spin_load(wt_epyramid *p, const wt_image *img)
{
    cu_engine *ce = engine_of(p);
    size_t npix = (size_t)img->width * img->height, all = npix * (size_t)img->channels;
    CU_CHECK(cudaSetDevice(ce->device));
    spin_free(p);
    WT_TRY(spin_alloc(p, wt_image_bytes(img)));
    cu_spin *sp = (cu_spin *)p->spin_priv;
    CU_CHECK(cudaMemcpyAsync(sp->samples, img->pixels, wt_image_bytes(img), cudaMemcpyHostToDevice,
                             ce->stream));
    CU_CHECK(cudaMemsetAsync(sp->accum, 0, all * 8, ce->stream));
    if (img->bit_depth > 8)
        WT_LAUNCH(spin_load_kernel<uint16_t>, flat_grid(npix), dim3(BAND_BLOCK), 0, ce->stream,
                  sp->source, (const uint16_t *)sp->samples, npix, img->channels);
    else
        WT_LAUNCH(spin_load_kernel<uint8_t>, flat_grid(npix), dim3(BAND_BLOCK), 0, ce->stream,
                  sp->source, (const uint8_t *)sp->samples, npix, img->channels);
    WT_TRY(launched(ce));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    return WT_OK;
}

static wt_status spin_forward(wt_epyramid *p, size_t dy, size_t dx)
{
    cu_engine *ce = engine_of(p);
    cu_spin *sp = (cu_spin *)p->spin_priv;
    size_t all = plane_elems(&p->shape);
    void *work = sp->source; /* shift (0, 0): the samples' planes themselves */
    CU_CHECK(cudaSetDevice(ce->device));
    if (dy || dx) {
        WT_TRY(cu_buf_get(ce, BUF_PLANES, all * 4, &work));
        WT_LAUNCH(spin_roll_kernel, flat_grid(all), dim3(BAND_BLOCK), 0, ce->stream,
                  (float *)work, sp->source, all, p->shape.height, p->shape.width, dy, dx);
        WT_TRY(launched(ce));
    }
    /* no wait: the shrinkage and inverse that follow are ordered on the stream */
    return planes_read(p, work, cu_forward_device(ce, &p->params, &p->shape,
                                                  (const float *)work, p->priv,
                                                  CU_BOUND_MEASURE));
}

static wt_status spin_inverse_add(wt_epyramid *p, size_t dy, size_t dx, double lo, double hi)
{
    cu_engine *ce = engine_of(p);
    cu_spin *sp = (cu_spin *)p->spin_priv;
    size_t all = plane_elems(&p->shape);
    void *work;
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(cu_buf_get(ce, BUF_PLANES, all * 4, &work));
    WT_TRY(cu_inverse_device(ce, &p->params, &p->shape, p->priv, (float *)work,
                             CU_BOUND_MEASURE));
    WT_LAUNCH(spin_add_kernel, flat_grid(all), dim3(BAND_BLOCK), 0, ce->stream, sp->accum,
              (const float *)work, all, p->shape.height, p->shape.width, dy, dx, lo, hi);
    return launched(ce); /* spin_result waits */
}

static wt_status spin_result(wt_epyramid *p, double count, wt_image *img)
{
    cu_engine *ce = engine_of(p);
    cu_spin *sp = (cu_spin *)p->spin_priv;
    size_t npix = (size_t)img->width * img->height;
    double peak = img->bit_depth > 8 ? 65535.0 : 255.0;
    CU_CHECK(cudaSetDevice(ce->device));
    if (img->bit_depth > 8)
        WT_LAUNCH(spin_result_kernel<uint16_t>, flat_grid(npix), dim3(BAND_BLOCK), 0, ce->stream,
                  (uint16_t *)sp->samples, sp->accum, npix, img->channels, count, peak);
    else
        WT_LAUNCH(spin_result_kernel<uint8_t>, flat_grid(npix), dim3(BAND_BLOCK), 0, ce->stream,
                  (uint8_t *)sp->samples, sp->accum, npix, img->channels, count, peak);
    WT_TRY(launched(ce));
    CU_CHECK(cudaMemcpyAsync(img->pixels, sp->samples, wt_image_bytes(img), cudaMemcpyDeviceToHost,
                             ce->stream));
    CU_CHECK(cudaStreamSynchronize(ce->stream));
    return WT_OK;
}

static wt_status cu_spin_load(wt_epyramid *p, const wt_image *img)
{
    return settle(engine_of(p), spin_load(p, img));
}

static wt_status cu_spin_forward(wt_epyramid *p, size_t dy, size_t dx)
{
    double t0 = wt_seconds();
    return timed_transform(p, t0, spin_forward(p, dy, dx));
}

static wt_status cu_spin_inverse_add(wt_epyramid *p, size_t dy, size_t dx, double lo, double hi)
{
    double t0 = wt_seconds();
    return timed_transform(p, t0, spin_inverse_add(p, dy, dx, lo, hi));
}

static wt_status cu_spin_result(wt_epyramid *p, double count, wt_image *img)
{
    return settle(engine_of(p), spin_result(p, count, img));
}

const wt_epyramid_ops cu_epyramid_ops = {
    cu_create,     cu_destroy,  cu_forward,   cu_forward_img, cu_inverse,    cu_inverse_img,
    cu_upload,     cu_download, cu_map,       cu_reduce,      cu_select_abs, cu_zero_below,
    cu_spin_load,  cu_spin_forward, cu_spin_inverse_add, cu_spin_result,
    cu_shrink,     cu_shrink_sigma, cu_noise_estimate,
};
