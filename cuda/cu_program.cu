/* The level loop of the CUDA engine: level programs (every level of a
 * call planned, cached per key, replayed as a CUDA graph) and its entry
 * points cu_forward_device / cu_inverse_device. Split from cu_engine.cu;
 * shared: cu_engine_impl.h. */
#include <stdlib.h>
#include <string.h>

#include "cu_engine.h"
#include "cu_engine_impl.h"

/* ---------------------------------------------------------------------- */
/* Level programs: every level of one call planned (operators, tiles,
 * kernel, buffers) and kept for the next call with the same key; from its
 * second use the levels are replayed as one CUDA graph (one launch for all
 * levels). Planning builds ~7 KB of kernel parameters per level and a
 * launch takes them each time: a 512x512 3-level pyramid was launch-bound
 * (25 us, dev/notes/kernel-log.md v12-small). The key holds everything the plan depends on,
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
    void *split; /* split_buffer's (NULL: none) */
} program_key;

struct cu_program {
    program_key key;
    int nlevels;              /* in launch order: forward 1..L, inverse L..1 */
    level_launcher launch[WT_MAX_LEVELS];
    int pdl[WT_MAX_LEVELS];   /* launch_level's pdl */
    cu_fused *fused[WT_MAX_LEVELS]; /* levels i.. fused into one launch (else NULL) */
    cu_level *lv;
    unsigned long last_use;   /* ce->program_clock */
    int no_graph;             /* capture failed: launch each level */
#ifndef WT_CUDA_EMULATE
    cudaGraphExec_t graph;
#endif
};

/* Zeroed first: keys are compared with memcmp. */
static void make_key(program_key *k, const wt_params *p, const wt_pyramid *plan, int inverse,
                     uint64_t narrow, const void *src, const void *dst, void *const tmp[2],
                     void *split)
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
    k->split = split;
}

static void program_free(cu_program *pr)
{
    if (!pr)
        return;
#ifndef WT_CUDA_EMULATE
    if (pr->graph)
        cudaGraphExecDestroy(pr->graph); /* releasing: nothing to report */
#endif
    for (int i = 0; i < pr->nlevels; i++)
        free(pr->fused[i]);
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
    set_split(plan, l, k->split, lv);
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
    set_split(plan, l, k->split, lv);
}

/* Whether every block of a level can be resident at once (assumed: the
 * policy's pdl_grid per SM, 2 by default): the levels after such a grid get a programmatic dependent launch.
 * Large grids gain nothing measurable from it (WT_CUDA_PDL=2 lifts this
 * limit: 8192x8192 and batches within 1%, dev/notes/kernel-log.md v12-small). */
static int one_wave(const cu_engine *ce, const cu_level *lv, int channels)
{
    dim3 g = level_grid(lv, channels);
    return (double)g.x * g.y * g.z <= ce->pol.pdl_grid * ce->sms;
}

/* ---------------------------------------------------------------------- */
/* Fused levels: the levels whose signal fits in L2 (the policy's
 * tail_bytes: a forward's last levels, an inverse's first) run in one
 * cooperative launch, up to CU_TAIL_LEVELS at a time (dwt_tail_fast): each
 * level of a small image cost a launch and a grid's tail though its work
 * is 1-2 us (dev/notes/kernel-log.md v12-small, v14). Off by default
 * (tail_bytes 0): on the H200 the cooperative launch and its grid barriers
 * cost more than the graph's launches with PDL (v15). */

/* Level @p i (launch order) of @p pr: its signal (forward input, inverse
 * output, every channel) within the policy's tail_bytes, a fast kernel
 * whose levels fuse, and tiles that its blocks resident at once cover. */
static int fusable(const cu_engine *ce, const wt_pyramid *plan, const cu_program *pr,
                   const level_tail *tails, int i)
{
    const int l = pr->key.inverse ? pr->nlevels - i : i + 1;
    const double bytes = (double)plan->lo_h[l - 1] * plan->lo_w[l - 1] * plan->channels * 4;
    return tails[i].kern && bytes <= (double)ce->pol.tail_bytes &&
           tail_covers(ce, &tails[i], &pr->lv[i], pr->key.inverse, pr->key.channels);
}

/* Levels [i, i + n) of @p pr fused, unless the largest one's tiles cannot
 * all be resident with the largest one's shared memory (then they launch
 * one by one). */
static wt_status fuse(const cu_engine *ce, cu_program *pr, const level_tail *tail, int i, int n)
{
    cu_fused *f = (cu_fused *)calloc(1, sizeof *f);
    if (!f)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    memcpy(f->t.lv, &pr->lv[i], (size_t)n * sizeof *pr->lv);
    for (int j = 0; j < n; j++)
        f->t.lv[j].prefetch = 0; /* one tile a block of a grid resident at once */
    f->t.nlevels = n;
    f->t.channels = pr->key.channels;
    f->kern = *tail;
    f->inverse = pr->key.inverse;
    fused_size(ce, f);
    if (f->grid == 0) {
        free(f);
        return WT_OK;
    }
    pr->fused[i] = f;
    for (int j = i; j <= i + n && j < pr->nlevels; j++)
        pr->pdl[j] = 0; /* a cooperative launch, and the level after it, launched plainly */
    return WT_OK;
}

/* Every run of fusable levels of one kernel cut into launches of at most
 * CU_TAIL_LEVELS from its small end (a forward's last level, an inverse's
 * first), so that a level left alone is the largest. */
static wt_status plan_fused(const cu_engine *ce, const wt_pyramid *plan, cu_program *pr,
                            const level_tail *tails)
{
    if (!ce->coop || ce->pol.tail_bytes == 0)
        return WT_OK;
    for (int a = 0; a < pr->nlevels;) {
        int b = a;
        while (b < pr->nlevels && fusable(ce, plan, pr, tails, b) && tails[b].kern == tails[a].kern)
            b++;
        if (b == a) {
            a++;
            continue;
        }
        for (int left = b - a; left >= 2;) {
            const int n = left < CU_TAIL_LEVELS ? left : CU_TAIL_LEVELS;
            const int at = pr->key.inverse ? b - left : a + left - n;
            WT_TRY(fuse(ce, pr, &tails[at], at, n));
            left -= n;
        }
        a = b;
    }
    return WT_OK;
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
    level_tail tails[WT_MAX_LEVELS];
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
        pr->launch[i] = pick_launcher(ce, p, &lv[i], inverse, l == 1, integer, k->channels,
                                      &fast[i], &tails[i]);
        pr->pdl[i] = i > 0 && fast[i] && fast[i - 1] && !ce->pdl_off &&
                     (ce->pdl_all || one_wave(ce, &lv[i - 1], k->channels));
    }
    wt_status st = plan_fused(ce, plan, pr, tails);
    if (st != WT_OK) {
        program_free(pr);
        return st;
    }
    *out = pr;
    return WT_OK;
}

static wt_status launch_levels(cu_engine *ce, const cu_program *pr)
{
    for (int i = 0; i < pr->nlevels;) {
        if (pr->fused[i]) {
            WT_TRY(fused_launch(ce, pr->fused[i]));
            i += pr->fused[i]->t.nlevels;
            continue;
        }
        WT_TRY(pr->launch[i](ce, &pr->lv[i], pr->key.channels, pr->pdl[i]));
        i++;
    }
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

void programs_release(cu_engine *ce)
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
    void *tmp[2], *split;
    WT_TRY(tmp_buffers(ce, plan, tmp));
    WT_TRY(split_buffer(ce, p, plan, &split));
    program_key k;
    make_key(&k, p, plan, 0, narrow_levels(plan, bound, 0), d_planes, d_pyr, tmp, split);
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
    void *tmp[2], *split;
    WT_TRY(tmp_buffers(ce, plan, tmp));
    WT_TRY(split_buffer(ce, p, plan, &split));
    program_key k;
    make_key(&k, p, plan, 1, narrow_levels(plan, bound, 1), d_pyr, d_planes, tmp, split);
    return run_program(ce, p, plan, &k);
}
