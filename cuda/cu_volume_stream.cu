/* The CUDA engine's volumes (the engine's vforward/vinverse): every DWT
 * level on the device at once where the volume fits (cu_volume.cu's
 * cu_vresident), else its first levels streamed through the device; the
 * SWT and the starlet: cu_volume_undec.cu.
 *
 * Streaming: the levels run wt_volume_dwt_levels on host arrays with this
 * file's axis pass, which moves the arrays through the device in slabs: a
 * range along an axis other than the pass's (the outermost such, so a
 * slab's rows are long), whole lines along the pass's axis, so each slab is
 * independent. A slab goes up through a page-locked buffer (packed on the
 * engine's copy threads), cu_vpass_run transforms it on the device, its
 * outputs come down through the same buffer; two slots take turns, so the
 * host's copies into and out of one slot overlap the device's work on the
 * other. The levels after the
 * streamed ones, on an approximation 1/2^axes of the size, run resident
 * once it fits. The decision uses the engine's memory query
 * (cu_device_free_bytes: the device's free memory, capped by
 * WT_CUDA_MEM_LIMIT).
 *
 * Memory of a streamed transform: device, the two slots (at most
 * 2 x CU_VSLAB and at most half of the free memory), then what the
 * resident levels need; host, beside the volume and its bands, the arrays
 * between the streamed levels' passes (wt_volume_dwt_work, as the CPU
 * engine's), the approximation the resident levels start from, legall53's
 * int32 copy of the samples, and 2 x CU_VSLAB page-locked. */
#include <stdlib.h>
#include <string.h>

#include "cu_engine.h"
#include "transform.h"
extern "C" {
#include "axis_view.h" /* wt_convert_samples */
#include "dwt_line.h"  /* wt_line */
}

static size_t volume_elems(const size_t shape[3], int channels)
{
    return shape[0] * shape[1] * shape[2] * (size_t)channels;
}

/* ---- slabs -------------------------------------------------------------------------- */

/* A dense (C, z, y, x) host array of a pass: sig, lo or hi. */
typedef struct vpiece {
    void *host;
    size_t shape[3];
} vpiece;

/* One of the two slots: a page-locked buffer and a device buffer of
 * slot_bytes, the slab they hold, and the event of its outputs' arrival. */
typedef struct vslot {
    char *pinned, *device;
    cudaEvent_t done;
    int busy; /* outputs waiting to be copied out of the pinned buffer */
    size_t first, count;
} vslot;

typedef struct vstream {
    cu_engine *ce;
    size_t slot_bytes;
    vslot slot[2];
} vstream;

/* The pass's arrays: sig, lo, hi. */
static void pieces_of(const wt_vpass *p, vpiece pc[3])
{
    void *const host[3] = {p->sig, p->lo, p->hi};
    const size_t along[3] = {p->shape[p->axis], p->line->nlo, p->line->nhi};
    for (int i = 0; i < 3; i++) {
        pc[i].host = host[i];
        memcpy(pc[i].shape, p->shape, sizeof pc[i].shape);
        pc[i].shape[p->axis] = along[i];
    }
}

/* Bytes of @p count planes of @p a across @p axis. */
static size_t slab_bytes(const vpiece *a, int channels, int axis, size_t count)
{
    return volume_elems(a->shape, channels) / a->shape[axis] * count * sizeof(float);
}

/* A strided copy: @p rows rows of @p row bytes, @p pitch apart in the host
 * array, one after another in the dense buffer. */
typedef struct vrows {
    char *host, *dense;
    size_t row, pitch;
    int to_dense;
} vrows;

/* Bytes [begin, end) of the dense side of @p ctx's rows. */
static void rows_copy(void *ctx, size_t begin, size_t end)
{
    const vrows *c = (const vrows *)ctx;
    while (begin < end) {
        const size_t r = begin / c->row, off = begin % c->row;
        const size_t len = c->row - off < end - begin ? c->row - off : end - begin;
        char *h = c->host + r * c->pitch + off, *d = c->dense + begin;
        memcpy(c->to_dense ? d : h, c->to_dense ? h : d, len);
        begin += len;
    }
}

/* Planes [first, first + count) of @p a across @p axis into the dense
 * @p dense (@p to_dense), or back, on @p threads host threads. */
static void slab_copy(const vpiece *a, int channels, int axis, size_t first, size_t count,
                      char *dense, int to_dense, int threads)
{
    size_t rows = (size_t)channels, inner = sizeof(float);
    for (int k = 0; k < 3; k++)
        if (k < axis)
            rows *= a->shape[k];
        else if (k > axis)
            inner *= a->shape[k];
    vrows c = {(char *)a->host + first * inner, dense, count * inner, a->shape[axis] * inner,
               to_dense};
    const size_t bytes = rows * c.row;
    if (bytes)
        wt_parallel_for(bytes < CU_CHUNK ? 1 : threads, bytes, rows_copy, &c);
}

/* The axis the pass's slabs cut and their thickness: the outermost axis
 * beside the pass's whose one plane (of all three arrays) fits a slot;
 * -1 when none does. */
static int slab_axis(const vstream *v, const wt_vpass *p, const vpiece pc[3], size_t *thick)
{
    for (int b = 0; b < 3; b++) {
        if (b == p->axis)
            continue;
        size_t plane = 0;
        for (int i = 0; i < 3; i++)
            plane += slab_bytes(&pc[i], p->channels, b, 1);
        if (plane <= v->slot_bytes) {
            const size_t t = v->slot_bytes / plane;
            *thick = t < p->shape[b] ? t : p->shape[b];
            return b;
        }
    }
    return -1;
}

/* The slab's outputs out of slot @p sl once they arrived (nothing when it
 * holds none). */
static wt_status slot_finish(vstream *v, vslot *sl, const wt_vpass *p, const vpiece pc[3],
                             int axis)
{
    if (!sl->busy)
        return WT_OK;
    sl->busy = 0;
    CU_CHECK_CE(v->ce, cudaEventSynchronize(sl->done));
    size_t at = 0;
    for (int i = 0; i < 3; i++) {
        const int output = p->inverse ? i == 0 : i > 0;
        if (output)
            slab_copy(&pc[i], p->channels, axis, sl->first, sl->count, sl->pinned + at, 0,
                      v->ce->copy_threads);
        at += slab_bytes(&pc[i], p->channels, axis, sl->count);
    }
    return WT_OK;
}

/* Slab [first, first + count) across @p axis: its inputs into slot @p sl
 * and up, the pass on the device, its outputs down (queued on the
 * engine's stream; slot_finish copies them out). */
static wt_status slot_start(vstream *v, vslot *sl, const wt_vpass *p, const vpiece pc[3],
                            int axis, size_t first, size_t count)
{
    cu_engine *ce = v->ce;
    size_t at[4] = {0};
    for (int i = 0; i < 3; i++) /* sig, lo, hi one after another in the slot */
        at[i + 1] = at[i] + slab_bytes(&pc[i], p->channels, axis, count);
    const int in0 = p->inverse ? 1 : 0, in1 = p->inverse ? 3 : 1; /* inputs [in0, in1) */
    const int out0 = p->inverse ? 0 : 1, out1 = p->inverse ? 1 : 3;
    for (int i = in0; i < in1; i++)
        slab_copy(&pc[i], p->channels, axis, first, count, sl->pinned + at[i], 1,
                  ce->copy_threads);
    CU_CHECK_CE(ce, cudaMemcpyAsync(sl->device + at[in0], sl->pinned + at[in0],
                                    at[in1] - at[in0], cudaMemcpyHostToDevice, ce->stream));
    wt_vpass q = *p;
    q.shape[axis] = count;
    q.sig = sl->device + at[0];
    q.lo = sl->device + at[1];
    q.hi = sl->device + at[2];
    WT_TRY(cu_vpass_run(ce, &q));
    CU_CHECK_CE(ce, cudaMemcpyAsync(sl->pinned + at[out0], sl->device + at[out0],
                                    at[out1] - at[out0], cudaMemcpyDeviceToHost, ce->stream));
    CU_CHECK_CE(ce, cudaEventRecord(sl->done, ce->stream));
    sl->busy = 1;
    sl->first = first;
    sl->count = count;
    return WT_OK;
}

/* The runner's pass: host arrays through the device, slab by slab. */
static wt_status vstream_pass(void *ctx, const wt_vpass *p)
{
    vstream *v = (vstream *)ctx;
    vpiece pc[3];
    pieces_of(p, pc);
    size_t thick = 0;
    const int axis = slab_axis(v, p, pc, &thick);
    if (axis < 0)
        return wt_error_set(WT_ERR_DEVICE_NOMEM,
                            "a volume of %zux%zux%zu, %d channel%s, does not fit the GPU even "
                            "one plane at a time (%zu bytes a slab)",
                            p->shape[2], p->shape[1], p->shape[0], p->channels,
                            p->channels == 1 ? "" : "s", v->slot_bytes);
    const size_t n = p->shape[axis];
    wt_status st = WT_OK;
    int k = 0;
    for (size_t first = 0; first < n && st == WT_OK; first += thick, k++) {
        vslot *sl = &v->slot[k & 1];
        st = slot_finish(v, sl, p, pc, axis);
        if (st == WT_OK)
            st = slot_start(v, sl, p, pc, axis, first, thick < n - first ? thick : n - first);
    }
    for (int i = 0; i < 2; i++) { /* the older slab first */
        const wt_status fin = slot_finish(v, &v->slot[(k + i) & 1], p, pc, axis);
        st = st == WT_OK ? fin : st;
    }
    return st;
}

static void vstream_close(vstream *v)
{
    for (int i = 0; i < 2; i++) {
        vslot *sl = &v->slot[i];
        cu_device_free(v->ce, sl->device, v->slot_bytes);
        if (sl->pinned)
            cudaFreeHost(sl->pinned);
        if (sl->done)
            cudaEventDestroy(sl->done);
    }
    memset(v, 0, sizeof *v);
}

/* The two slots: together at most half of the device memory free now. */
static wt_status vstream_open(cu_engine *ce, vstream *v)
{
    memset(v, 0, sizeof *v);
    v->ce = ce;
    const size_t quarter = cu_device_free_bytes(ce) / 4 & ~(size_t)15;
    v->slot_bytes = quarter < CU_VSLAB ? quarter : CU_VSLAB;
    wt_status st = WT_OK;
    for (int i = 0; i < 2 && st == WT_OK; i++) {
        vslot *sl = &v->slot[i];
        st = cu_device_alloc(ce, (void **)&sl->device, v->slot_bytes);
        const cudaError_t pinned =
            st == WT_OK ? cudaHostAlloc((void **)&sl->pinned, v->slot_bytes, cudaHostAllocDefault)
                        : cudaSuccess;
        if (pinned != cudaSuccess)
            st = cu_fail_host(pinned, "cudaHostAlloc", v->slot_bytes);
        if (st == WT_OK)
            st = cu_fail_check(cudaEventCreateWithFlags(&sl->done, cudaEventDisableTiming),
                               "cudaEventCreateWithFlags");
    }
    if (st != WT_OK)
        vstream_close(v);
    return st;
}

/* ---- streamed levels, then resident ones ------------------------------------------ */

/* @p c cut after level @p l0: @p head, its levels 1..l0 of the volume
 * (band 0: the approximation of level l0, without data), and @p tail, the
 * levels after as a transform of that approximation. */
static wt_status split_levels(const wt_volume_spec *s, const wt_vcoeffs *c, int l0,
                              wt_vcoeffs *head, wt_vcoeffs *tail)
{
    wt_volume_spec hs = *s;
    hs.params.levels = l0;
    WT_TRY(wt_volume_plan(&hs, c->shape, c->channels, head)); /* its bands' shapes */
    const int per = (1 << s->naxes) - 1, later = (c->levels - l0) * per;
    for (int i = 1; i < head->nbands; i++)
        head->band[i] = c->band[1 + later + i - 1];
    *tail = *c;
    tail->levels = c->levels - l0;
    tail->nbands = 1 + later;
    memcpy(tail->shape, head->band[0].shape, sizeof tail->shape);
    return WT_OK;
}

/* Whether @p s's levels lift (their passes take a scratch). */
static int lifts(const wt_volume_spec *s)
{
    wt_params p = s->params;
    return wt_params_resolve(&p) == WT_OK && p.method == WT_METHOD_LIFTING;
}

/* Levels to stream before the rest fits the device (0: all of them fit). */
static wt_status streamed_levels(cu_engine *ce, const wt_volume_spec *s, const wt_vcoeffs *c,
                                 int *l0)
{
    const size_t free_b = cu_device_free_bytes(ce);
    const int lifting = lifts(s);
    for (*l0 = 0; *l0 < c->levels; ++*l0) {
        wt_vcoeffs head, tail;
        WT_TRY(split_levels(s, c, *l0, &head, &tail));
        size_t need = cu_vresident_bytes(ce, s, &tail);
        need += lifting ? need / 8 : 0; /* the lifting passes' scratch */
        if (need <= free_b)
            return WT_OK;
    }
    return WT_OK;
}

/* Levels of @p c on host arrays (@p work of wt_volume_dwt_work elements)
 * by the streaming pass. */
static wt_status stream_levels(cu_engine *ce, const wt_volume_spec *s, const wt_vcoeffs *c,
                               void *samples, void *work, int inverse)
{
    vstream v;
    WT_TRY(vstream_open(ce, &v));
    const wt_vpass_runner r = {vstream_pass, &v, NULL, NULL};
    const wt_status st = wt_volume_dwt_levels(s, c, samples, work, inverse, &r);
    vstream_close(&v);
    return st;
}

/* The first @p l0 levels streamed, the rest resident (forward: in this
 * order; inverse: the other). */
static wt_status vstreamed(cu_engine *ce, const wt_volume_spec *s, const wt_vcoeffs *c, int l0,
                           void *samples, int inverse)
{
    wt_vcoeffs head, tail;
    WT_TRY(split_levels(s, c, l0, &head, &tail));
    const size_t approx = tail.levels ? volume_elems(head.band[0].shape, c->channels) : 0,
                 work = wt_volume_dwt_work(s, &head, NULL);
    uint32_t *mem = (uint32_t *)malloc((approx + work + 1) * sizeof *mem);
    if (!mem)
        return wt_error_set(WT_ERR_NOMEM, "out of memory (%zu MiB for the volume's passes)",
                            (approx + work) * sizeof *mem >> 20);
    head.band[0].data = tail.levels ? (void *)(mem + work) : c->band[0].data;
    wt_status st = WT_OK;
    if (inverse && tail.levels)
        st = cu_vresident(ce, s, &tail, head.band[0].data, 1);
    if (st == WT_OK)
        st = stream_levels(ce, s, &head, samples, mem, inverse);
    if (st == WT_OK && !inverse && tail.levels)
        st = cu_vresident(ce, s, &tail, head.band[0].data, 0);
    free(mem);
    return st;
}

/* One transform: @p planes into @p c's bands, or back (@p inverse). */
static wt_status vrun(wt_engine *e, const wt_volume_spec *s, const wt_vcoeffs *c, float *planes,
                      int inverse)
{
    cu_engine *ce = (cu_engine *)e->priv;
    CU_CHECK(cudaSetDevice(ce->device));
    if (s->transform != WT_TRANSFORM_DWT)
        return cu_vundecimated(ce, s, c, planes, inverse);
    const size_t n = volume_elems(c->shape, c->channels);
    const int integer = c->dtype == WT_INT32;
    int32_t *ints = integer ? (int32_t *)malloc(n * sizeof *ints + 4) : NULL;
    if (integer && !ints)
        return wt_error_set(WT_ERR_NOMEM, "out of memory (%zu MiB for the volume's samples)",
                            n * sizeof *ints >> 20);
    if (integer && !inverse)
        wt_convert_samples(ints, 1, planes, 0, n);
    void *samples = integer ? (void *)ints : (void *)planes;
    int l0 = 0;
    wt_status st = streamed_levels(ce, s, c, &l0);
    if (st == WT_OK)
        st = l0 ? vstreamed(ce, s, c, l0, samples, inverse)
                : cu_vresident(ce, s, c, samples, inverse);
    if (st == WT_OK && integer && inverse)
        wt_convert_samples(planes, 0, ints, 1, n);
    free(ints);
    return st;
}

wt_status cu_vforward(wt_engine *e, const wt_volume_spec *s, const float *planes, wt_vcoeffs *c)
{
    return vrun(e, s, c, (float *)planes, 0);
}

wt_status cu_vinverse(wt_engine *e, const wt_volume_spec *s, const wt_vcoeffs *c, float *planes)
{
    return vrun(e, s, c, planes, 1);
}
