/* The CUDA engine's image paths: only 8/16-bit samples (or the coefficients
 * of an inverse) go up, only the result comes back.
 *
 * Transfers go in chunks through pinned staging slots. Host worker threads
 * (up to ce->copy_threads) each own a contiguous part of the transfer and
 * CU_SLOTS slots: a worker copies chunk k into a free slot while the DMA of
 * its earlier chunks runs, and the copy engine serves all workers from one
 * copy stream. Uploads: each chunk's H2D copy is followed on the compute
 * stream by the kernel that consumes it (deinterleave and convert), so the
 * copy of chunk k+1 overlaps the conversion of chunk k. Downloads: the
 * kernel that produces a chunk (rounding, mosaic) runs on the compute
 * stream, the copy stream waits for it, and the host copies the chunk out
 * of its slot while later chunks are rendered and copied. A host buffer that
 * is already page-locked (cudaHostRegister, cudaHostAlloc) is copied
 * directly, without staging, and without waiting on the host for any chunk.
 *
 * An image call waits once, at its end: the compute stream waits for a
 * download's copies, and events on it time the phases (phase_clock). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cu_engine.h"
#include "cu_image.cuh"

/* ---------------------------------------------------------------------- */
/* Pinned staging */

static size_t slot_count(const cu_engine *ce)
{
    return (size_t)ce->copy_threads * CU_SLOTS;
}

wt_status cu_staging_init(cu_engine *ce)
{
    cu_staging *s = &ce->stage;
    if (s->ready_ok)
        return WT_OK;
    s->nslots = (int)slot_count(ce);
    for (int k = 0; k < s->nslots; k++) {
        if (!s->slot[k]) {
            cudaError_t err = cudaHostAlloc(&s->slot[k], CU_CHUNK, cudaHostAllocDefault);
            if (err != cudaSuccess) {
                s->slot[k] = NULL;
                return cu_fail_host(err, "cudaHostAlloc (staging)", CU_CHUNK);
            }
        }
        if (!s->done[k])
            CU_CHECK(cudaEventCreateWithFlags(&s->done[k], cudaEventDisableTiming));
        if (!s->ready[k])
            CU_CHECK(cudaEventCreateWithFlags(&s->ready[k], cudaEventDisableTiming));
    }
    if (!s->copied)
        CU_CHECK(cudaEventCreateWithFlags(&s->copied, cudaEventDisableTiming));
    for (int k = 0; k < CU_MARKS; k++)
        if (!s->mark[k])
            CU_CHECK(cudaEventCreate(&s->mark[k]));
    s->ready_ok = 1;
    return WT_OK;
}

void cu_staging_free(cu_engine *ce)
{
    cu_staging *s = &ce->stage;
    for (int k = 0; k < CU_SLOTS * CU_WORKERS; k++) { /* closing: nothing to report */
        if (s->slot[k])
            cudaFreeHost(s->slot[k]);
        if (s->done[k])
            cudaEventDestroy(s->done[k]);
        if (s->ready[k])
            cudaEventDestroy(s->ready[k]);
    }
    if (s->copied)
        cudaEventDestroy(s->copied);
    for (int k = 0; k < CU_MARKS; k++)
        if (s->mark[k])
            cudaEventDestroy(s->mark[k]);
    memset(s, 0, sizeof *s);
}

static wt_status is_pinned(const void *p, int *pinned)
{
    cudaPointerAttributes a;
    CU_CHECK(cudaPointerGetAttributes(&a, p));
    *pinned = a.type == cudaMemoryTypeHost;
    return WT_OK;
}

/* ---------------------------------------------------------------------- */
/* Chunked transfers */

/* Enqueues on ce->stream the kernel that consumes (upload) or produces
 * (download) bytes [off, off + len) of the device side of a transfer. */
typedef wt_status (*chunk_fn)(cu_engine *ce, void *ctx, size_t off, size_t len);

typedef struct xfer {
    cu_engine *ce;
    int up;           /* 1: host to device */
    char *host, *dev; /* the two sides, n bytes each */
    size_t n, unit;   /* chunks and parts are whole units (pixels, coefficients) */
    int pinned;       /* host side page-locked: no staging */
    chunk_fn work;    /* may be NULL */
    void *ctx;
    int workers;
    wt_status st[CU_WORKERS];
    char msg[CU_WORKERS][256];
} xfer;

static size_t chunk_bytes(const xfer *x)
{
    return CU_CHUNK - CU_CHUNK % x->unit;
}

/* Worker @p t's bytes [a, b), up: stage, copy, then the consumer. */
static wt_status up_worker(const xfer *x, int t, size_t a, size_t b)
{
    cu_engine *ce = x->ce;
    cu_staging *s = &ce->stage;
    size_t len;
    for (size_t k = 0, off = a; off < b; k++, off += len) {
        len = b - off < chunk_bytes(x) ? b - off : chunk_bytes(x);
        int i = t * CU_SLOTS + (int)(k % CU_SLOTS);
        const void *from = x->host + off;
        if (!x->pinned) {
            if (k >= CU_SLOTS) /* the slot's previous chunk has left */
                CU_CHECK(cudaEventSynchronize(s->done[i]));
            memcpy(s->slot[i], from, len);
            from = s->slot[i];
        }
        CU_CHECK(cudaMemcpyAsync(x->dev + off, from, len, cudaMemcpyHostToDevice,
                                 ce->copy_stream));
        CU_CHECK(cudaEventRecord(s->done[i], ce->copy_stream));
        CU_CHECK(cudaStreamWaitEvent(ce->stream, s->done[i], 0));
        if (x->work)
            WT_TRY(x->work(ce, x->ctx, off, len));
    }
    return WT_OK;
}

/* Chunk k of worker t's part starting at @p a, down: produce, then copy. */
static wt_status down_issue(const xfer *x, int t, size_t a, size_t b, size_t k)
{
    cu_engine *ce = x->ce;
    cu_staging *s = &ce->stage;
    size_t off = a + k * chunk_bytes(x), len = b - off < chunk_bytes(x) ? b - off : chunk_bytes(x);
    int i = t * CU_SLOTS + (int)(k % CU_SLOTS);
    if (x->work)
        WT_TRY(x->work(ce, x->ctx, off, len));
    CU_CHECK(cudaEventRecord(s->ready[i], ce->stream));
    CU_CHECK(cudaStreamWaitEvent(ce->copy_stream, s->ready[i], 0));
    void *to = x->pinned ? (void *)(x->host + off) : s->slot[i];
    CU_CHECK(cudaMemcpyAsync(to, x->dev + off, len, cudaMemcpyDeviceToHost, ce->copy_stream));
    CU_CHECK(cudaEventRecord(s->done[i], ce->copy_stream));
    return WT_OK;
}

/* Worker @p t's bytes [a, b), down. Page-locked memory: every chunk
 * issued, none waited for here (the call's end waits). Else CU_SLOTS chunks
 * in flight; each is copied out of its slot when it arrives, and the slot
 * takes the next. */
static wt_status down_worker(const xfer *x, int t, size_t a, size_t b)
{
    cu_staging *s = &x->ce->stage;
    size_t nk = (b - a + chunk_bytes(x) - 1) / chunk_bytes(x);
    size_t in_flight = x->pinned ? nk : CU_SLOTS;
    for (size_t k = 0; k < nk && k < in_flight; k++)
        WT_TRY(down_issue(x, t, a, b, k));
    for (size_t k = 0; k < nk && !x->pinned; k++) {
        int i = t * CU_SLOTS + (int)(k % CU_SLOTS);
        CU_CHECK(cudaEventSynchronize(s->done[i]));
        size_t off = a + k * chunk_bytes(x);
        size_t len = b - off < chunk_bytes(x) ? b - off : chunk_bytes(x);
        memcpy(x->host + off, s->slot[i], len);
        if (k + CU_SLOTS < nk)
            WT_TRY(down_issue(x, t, a, b, k + CU_SLOTS));
    }
    return WT_OK;
}

/* wt_parallel_for body: workers [begin, end), each on its share of units.
 * Messages are thread-local: a failing worker keeps its own for the caller. */
static void xfer_range(void *ctx, size_t begin, size_t end)
{
    xfer *x = (xfer *)ctx;
    size_t units = x->n / x->unit;
    for (size_t t = begin; t < end; t++) {
        size_t a = units * t / (size_t)x->workers * x->unit;
        size_t b = units * (t + 1) / (size_t)x->workers * x->unit;
        wt_status st = cu_fail_check(cudaSetDevice(x->ce->device), "cudaSetDevice");
        if (st == WT_OK && a < b)
            st = x->up ? up_worker(x, (int)t, a, b) : down_worker(x, (int)t, a, b);
        x->st[t] = st;
        if (st != WT_OK)
            snprintf(x->msg[t], sizeof x->msg[t], "%s", wt_error_message());
    }
}

/* Moves x->n bytes; chunk work is enqueued on ce->stream in order per worker. */
static wt_status xfer_run(xfer *x)
{
    if (!x->n)
        return WT_OK;
    WT_TRY(cu_staging_init(x->ce));
    WT_TRY(is_pinned(x->host, &x->pinned));
    size_t chunks = (x->n + chunk_bytes(x) - 1) / chunk_bytes(x);
    size_t workers = x->pinned ? 1 : (size_t)x->ce->copy_threads;
    x->workers = (int)(chunks < workers ? chunks : workers);
    if (x->workers < 1)
        x->workers = 1;
    wt_parallel_for(x->workers, (size_t)x->workers, xfer_range, x);
    for (int t = 0; t < x->workers; t++)
        if (x->st[t] != WT_OK)
            return wt_error_set(x->st[t], "%s", x->msg[t]);
    if (x->up) /* (the compute stream waits for each chunk already) */
        return WT_OK;
    cu_staging *s = &x->ce->stage; /* the compute stream waits for every copy */
    CU_CHECK(cudaEventRecord(s->copied, x->ce->copy_stream));
    CU_CHECK(cudaStreamWaitEvent(x->ce->stream, s->copied, 0));
    return WT_OK;
}

/* @p n units of @p unit bytes between @p host and @p dev, chunk by chunk; @p work
 * consumes each uploaded chunk or produces each chunk before its download. */
static wt_status transfer(cu_engine *ce, int up, char *host, char *dev, size_t n, size_t unit,
                          chunk_fn work, void *ctx)
{
    xfer x;
    memset(&x, 0, sizeof x);
    x.ce = ce;
    x.up = up;
    x.host = host;
    x.dev = dev;
    x.n = n;
    x.unit = unit;
    x.work = work;
    x.ctx = ctx;
    return xfer_run(&x);
}

static wt_status upload(cu_engine *ce, void *dev, const void *host, size_t n, size_t unit,
                        chunk_fn consume, void *ctx)
{
    return transfer(ce, 1, (char *)host, (char *)dev, n, unit, consume, ctx);
}

static wt_status download(cu_engine *ce, void *host, const void *dev, size_t n, size_t unit,
                          chunk_fn produce, void *ctx)
{
    return transfer(ce, 0, (char *)host, (char *)dev, n, unit, produce, ctx);
}

/* ---------------------------------------------------------------------- */
/* Samples <-> planes, chunk by chunk */

static dim3 flat_grid(size_t n)
{
    size_t blocks = (n + CU_IMG_BLOCK - 1) / CU_IMG_BLOCK;
    return dim3((unsigned)(blocks < 1 ? 1 : (blocks > 4096 ? 4096 : blocks)));
}

typedef struct sample_job {
    float *planes; /* C x npix */
    void *samples; /* npix x C interleaved, bps bytes each */
    size_t npix;
    int channels, bps;
    float peak;
} sample_job;

static sample_job sample_job_of(const wt_image *img, float *planes, void *samples)
{
    sample_job j = {planes, samples, (size_t)img->width * img->height, img->channels,
                    img->bit_depth > 8 ? 2 : 1, img->bit_depth > 8 ? 65535.0f : 255.0f};
    return j;
}

static wt_status to_planes_chunk(cu_engine *ce, void *ctx, size_t off, size_t len)
{
    const sample_job *j = (const sample_job *)ctx;
    size_t unit = (size_t)j->channels * j->bps, p0 = off / unit, p1 = (off + len) / unit;
    if (j->bps == 2) {
        void (*k)(float *, const uint16_t *, size_t, int, size_t, size_t) =
            samples_to_planes_kernel<uint16_t>;
        WT_LAUNCH(k, flat_grid(p1 - p0), dim3(CU_IMG_BLOCK), 0, ce->stream, j->planes,
                  (const uint16_t *)j->samples, j->npix, j->channels, p0, p1);
    } else {
        void (*k)(float *, const uint8_t *, size_t, int, size_t, size_t) =
            samples_to_planes_kernel<uint8_t>;
        WT_LAUNCH(k, flat_grid(p1 - p0), dim3(CU_IMG_BLOCK), 0, ce->stream, j->planes,
                  (const uint8_t *)j->samples, j->npix, j->channels, p0, p1);
    }
    CU_CHECK(cudaGetLastError());
    return WT_OK;
}

static wt_status to_samples_chunk(cu_engine *ce, void *ctx, size_t off, size_t len)
{
    const sample_job *j = (const sample_job *)ctx;
    size_t unit = (size_t)j->channels * j->bps, p0 = off / unit, p1 = (off + len) / unit;
    if (j->bps == 2) {
        void (*k)(uint16_t *, const float *, size_t, int, float, size_t, size_t) =
            planes_to_samples_kernel<uint16_t>;
        WT_LAUNCH(k, flat_grid(p1 - p0), dim3(CU_IMG_BLOCK), 0, ce->stream,
                  (uint16_t *)j->samples, j->planes, j->npix, j->channels, j->peak, p0, p1);
    } else {
        void (*k)(uint8_t *, const float *, size_t, int, float, size_t, size_t) =
            planes_to_samples_kernel<uint8_t>;
        WT_LAUNCH(k, flat_grid(p1 - p0), dim3(CU_IMG_BLOCK), 0, ce->stream,
                  (uint8_t *)j->samples, j->planes, j->npix, j->channels, j->peak, p0, p1);
    }
    CU_CHECK(cudaGetLastError());
    return WT_OK;
}

/* The bound of an image's samples as planes (cu_forward_device): 8/16-bit
 * samples are unsigned integers up to 255 / 65535; others are measured. */
static uint64_t sample_bound(const wt_image *img)
{
    return img->bit_depth == 8 || img->bit_depth == 16 ? (1u << img->bit_depth) - 1
                                                       : CU_BOUND_MEASURE;
}

/* img's samples up into d_planes (d_samples: room for them). */
static wt_status upload_samples(cu_engine *ce, const wt_image *img, float *d_planes,
                                void *d_samples)
{
    sample_job j = sample_job_of(img, d_planes, d_samples);
    return upload(ce, d_samples, img->pixels, wt_image_bytes(img),
                  (size_t)j.channels * (size_t)j.bps, to_planes_chunk, &j);
}

/* d_planes rounded into img's samples (d_samples: room for them). */
static wt_status download_samples(cu_engine *ce, float *d_planes, void *d_samples, wt_image *img)
{
    sample_job j = sample_job_of(img, d_planes, d_samples);
    return download(ce, img->pixels, d_samples, wt_image_bytes(img),
                    (size_t)j.channels * (size_t)j.bps, to_samples_chunk, &j);
}

/* ---------------------------------------------------------------------- */
/* Mosaics */

/* The bands in wt_mosaic_render's order and places. */
static void mosaic_layout(const wt_pyramid *plan, wt_scale scale, int bit_depth, size_t width,
                          cu_mosaic *g)
{
    memset(g, 0, sizeof *g);
    g->channels = plan->channels;
    g->absolute_details = scale != WT_SCALE_OFFSET;
    g->peak = bit_depth > 8 ? 65535.0 : 255.0;
    g->width = width;
    size_t ah = plan->lo_h[plan->levels], aw = plan->lo_w[plan->levels];
    int L = plan->levels;
    struct {
        int level;
        wt_band b;
        size_t y0, x0;
    } at[CU_MAX_BANDS];
    int n = 0;
    at[n++] = {L, WT_BAND_A, 0, 0};
    for (int l = L; l >= 1; l--) {
        at[n++] = {l, WT_BAND_H, ah, 0};
        at[n++] = {l, WT_BAND_V, 0, aw};
        at[n++] = {l, WT_BAND_D, ah, aw};
        ah += plan->hi_h[l];
        aw += plan->hi_w[l];
    }
    for (int k = 0; k < n; k++) {
        size_t h, w;
        wt_pyramid_band_shape(plan, at[k].level, at[k].b, &h, &w);
        g->band[k] = {(uint32_t)at[k].y0, (uint32_t)at[k].x0, (uint32_t)h, (uint32_t)w,
                      wt_pyramid_offset(plan, at[k].level, at[k].b, 0)};
    }
    g->nbands = n;
}

typedef struct mosaic_job {
    const cu_mosaic *g;
    const void *pyr;
    const cu_band_map *maps;
    void *out;
    int integer, bps;
} mosaic_job;

template <typename T, typename S>
static wt_status launch_mosaic(cu_engine *ce, const mosaic_job *j, size_t p0, size_t p1)
{
    void (*k)(S *, const T *, const cu_band_map *, const cu_mosaic, size_t, size_t) =
        mosaic_kernel<T, S>;
    WT_LAUNCH(k, flat_grid(p1 - p0), dim3(CU_IMG_BLOCK), 0, ce->stream, (S *)j->out,
              (const T *)j->pyr, j->maps, *j->g, p0, p1);
    CU_CHECK(cudaGetLastError());
    return WT_OK;
}

static wt_status mosaic_chunk(cu_engine *ce, void *ctx, size_t off, size_t len)
{
    const mosaic_job *j = (const mosaic_job *)ctx;
    size_t unit = (size_t)j->g->channels * j->bps, p0 = off / unit, p1 = (off + len) / unit;
    if (j->integer)
        return j->bps == 2 ? launch_mosaic<int32_t, uint16_t>(ce, j, p0, p1)
                           : launch_mosaic<int32_t, uint8_t>(ce, j, p0, p1);
    return j->bps == 2 ? launch_mosaic<float, uint16_t>(ce, j, p0, p1)
                       : launch_mosaic<float, uint8_t>(ce, j, p0, p1);
}

/* Blocks per band of the range reduction: enough for the largest band. */
static unsigned range_blocks(const cu_mosaic *g)
{
    size_t most = 1;
    for (int k = 0; k < g->nbands; k++) {
        size_t n = (size_t)g->band[k].h * g->band[k].w * (size_t)g->channels;
        most = n > most ? n : most;
    }
    size_t blocks = (most + 8 * CU_IMG_BLOCK - 1) / (8 * CU_IMG_BLOCK);
    return (unsigned)(blocks > 512 ? 512 : blocks);
}

template <typename T>
static wt_status launch_ranges(cu_engine *ce, const cu_mosaic *g, const void *pyr,
                               cu_range *parts, unsigned nparts)
{
    void (*k)(const T *, const cu_mosaic, cu_range *) = band_range_kernel<T>;
    WT_LAUNCH(k, dim3(nparts, (unsigned)g->nbands), dim3(CU_IMG_BLOCK),
              CU_IMG_BLOCK * sizeof(cu_range), ce->stream, (const T *)pyr, *g, parts);
    CU_CHECK(cudaGetLastError());
    return WT_OK;
}

/* Per-band ranges over all channels, then each band's display map. */
static wt_status band_maps(cu_engine *ce, const cu_mosaic *g, const void *pyr, int integer,
                           cu_band_map **maps)
{
    unsigned nparts = range_blocks(g);
    size_t nmaps = (size_t)g->nbands;
    void *buf;
    WT_TRY(cu_buf_get(ce, BUF_BANDS, nmaps * (nparts * sizeof(cu_range) + sizeof(cu_band_map)),
                      &buf));
    cu_range *parts = (cu_range *)((cu_band_map *)buf + nmaps);
    *maps = (cu_band_map *)buf;
    WT_TRY(integer ? launch_ranges<int32_t>(ce, g, pyr, parts, nparts)
                   : launch_ranges<float>(ce, g, pyr, parts, nparts));
    WT_LAUNCH(band_map_kernel, dim3(1), dim3(128), 0, ce->stream, *maps, parts, (int)nparts, *g);
    CU_CHECK(cudaGetLastError());
    return WT_OK;
}

/* ---------------------------------------------------------------------- */
/* The operations */

/* An image call's phases timed by events on the compute stream, which
 * waits for each phase's copies: each phase gets the device's time from the
 * end of the one before to its own end (the host's staging copies, which the
 * device waits for, included). The call waits on the host once, at
 * clock_stop. */
typedef struct phase_clock {
    cu_engine *ce;
    int marks;                  /* events recorded */
    double *part[CU_MARKS - 1]; /* phase k's seconds are added to *part[k] */
} phase_clock;

static wt_status clock_start(cu_engine *ce, phase_clock *c)
{
    c->ce = ce;
    c->marks = 0;
    WT_TRY(cu_staging_init(ce));
    CU_CHECK(cudaEventRecord(ce->stage.mark[0], ce->stream));
    c->marks = 1;
    return WT_OK;
}

/* The phase since the last mark ends here; its time goes to *@p part. */
static wt_status clock_mark(phase_clock *c, double *part)
{
    if (c->marks >= CU_MARKS)
        return wt_error_set(WT_ERR_INVALID, "more than %d phases in an image call",
                            CU_MARKS - 1);
    c->part[c->marks - 1] = part;
    CU_CHECK(cudaEventRecord(c->ce->stage.mark[c->marks], c->ce->stream));
    c->marks++;
    return WT_OK;
}

/* The call's one wait: everything it enqueued done; the phases' times added. */
static wt_status clock_stop(phase_clock *c)
{
    const cu_staging *s = &c->ce->stage;
    CU_CHECK(cudaEventSynchronize(s->mark[c->marks - 1]));
    for (int k = 1; k < c->marks; k++) {
        float ms = 0.0f;
        CU_CHECK(cudaEventElapsedTime(&ms, s->mark[k - 1], s->mark[k]));
        *c->part[k - 1] += ms / 1e3;
    }
    return WT_OK;
}

/* After a failure, nothing may still be copying from or into the caller's
 * memory or the slots. Already failing: the results do not matter. */
static wt_status finish(cu_engine *ce, wt_status st)
{
    if (st != WT_OK) {
        cudaStreamSynchronize(ce->copy_stream);
        cudaStreamSynchronize(ce->stream);
    }
    return st;
}

typedef struct dev_bufs {
    float *planes;
    void *pyr, *samples;
} dev_bufs;

/* The planes of @p plan and @p sample_bytes of samples. */
static wt_status get_plane_bufs(cu_engine *ce, const wt_pyramid *plan, size_t sample_bytes,
                                dev_bufs *d)
{
    size_t n0 = plan->height * plan->width * (size_t)plan->channels;
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(cu_buf_get(ce, BUF_PLANES, n0 * 4, (void **)&d->planes));
    return cu_buf_get(ce, BUF_SAMPLES, sample_bytes, &d->samples);
}

/* The planes and pyramid of @p plan and @p sample_bytes of samples. */
static wt_status get_bufs(cu_engine *ce, const wt_pyramid *plan, size_t sample_bytes,
                          dev_bufs *d)
{
    WT_TRY(get_plane_bufs(ce, plan, sample_bytes, d));
    return cu_buf_get(ce, BUF_PYRAMID, cu_pyramid_elems(plan) * 4, &d->pyr);
}

/* The pyramid in the host layout on the device (on ce->stream): the device
 * pyramid itself where the layouts agree, else a packed copy of it. */
static wt_status packed_pyramid(cu_engine *ce, const wt_pyramid *plan, void *d_pyr, void **out)
{
    if (!cu_pyramid_padded(plan)) {
        *out = d_pyr;
        return WT_OK;
    }
    WT_TRY(cu_buf_get(ce, BUF_COMPACT, plan->total * 4, out));
    return cu_pyramid_copy(ce, plan, *out, d_pyr, 0, cudaMemcpyDeviceToDevice);
}

/* Room for the pyramid in the host layout, to upload into before
 * unpack_pyramid. */
static wt_status upload_room(cu_engine *ce, const wt_pyramid *plan, void *d_pyr, void **room)
{
    if (!cu_pyramid_padded(plan)) {
        *room = d_pyr;
        return WT_OK;
    }
    return cu_buf_get(ce, BUF_COMPACT, plan->total * 4, room);
}

static wt_status unpack_pyramid(cu_engine *ce, const wt_pyramid *plan, const void *room,
                                void *d_pyr)
{
    if (room == d_pyr)
        return WT_OK;
    return cu_pyramid_copy(ce, plan, d_pyr, room, 1, cudaMemcpyDeviceToDevice);
}

static wt_status forward_image(cu_engine *ce, wt_engine_times *tm, const wt_params *p,
                               const wt_image *img, wt_pyramid *out)
{
    dev_bufs d;
    phase_clock c;
    WT_TRY(get_bufs(ce, out, wt_image_bytes(img), &d));
    WT_TRY(clock_start(ce, &c));
    WT_TRY(upload_samples(ce, img, d.planes, d.samples));
    WT_TRY(clock_mark(&c, &tm->upload));
    WT_TRY(cu_forward_device(ce, p, out, d.planes, d.pyr, sample_bound(img)));
    WT_TRY(clock_mark(&c, &tm->transform));
    void *packed;
    WT_TRY(packed_pyramid(ce, out, d.pyr, &packed));
    WT_TRY(download(ce, out->data, packed, out->total * 4, 4, NULL, NULL));
    WT_TRY(clock_mark(&c, &tm->download));
    return clock_stop(&c);
}

static wt_status inverse_image(cu_engine *ce, wt_engine_times *tm, const wt_params *p,
                               const wt_pyramid *in, wt_image *img)
{
    dev_bufs d;
    phase_clock c;
    WT_TRY(get_bufs(ce, in, wt_image_bytes(img), &d));
    WT_TRY(clock_start(ce, &c));
    void *room;
    WT_TRY(upload_room(ce, in, d.pyr, &room));
    WT_TRY(upload(ce, room, in->data, in->total * 4, 4, NULL, NULL));
    WT_TRY(unpack_pyramid(ce, in, room, d.pyr));
    WT_TRY(clock_mark(&c, &tm->upload));
    WT_TRY(cu_inverse_device(ce, p, in, d.pyr, d.planes, CU_BOUND_MEASURE));
    WT_TRY(clock_mark(&c, &tm->transform));
    WT_TRY(download_samples(ce, d.planes, d.samples, img));
    WT_TRY(clock_mark(&c, &tm->download));
    return clock_stop(&c);
}

static wt_status roundtrip_image(cu_engine *ce, wt_engine_times *tm, const wt_params *p,
                                 const wt_image *img, wt_image *back)
{
    wt_pyramid plan;
    dev_bufs d;
    phase_clock c;
    WT_TRY(wt_pyramid_plan(&plan, p, img->height, img->width, img->channels));
    WT_TRY(get_bufs(ce, &plan, wt_image_bytes(img), &d));
    WT_TRY(clock_start(ce, &c));
    WT_TRY(upload_samples(ce, img, d.planes, d.samples));
    WT_TRY(clock_mark(&c, &tm->upload));
    uint64_t bound = sample_bound(img);
    if (plan.dtype == WT_INT32 && bound == CU_BOUND_MEASURE)
        WT_TRY(cu_planes_bound(ce, &plan, d.planes, &bound));
    WT_TRY(cu_forward_device(ce, p, &plan, d.planes, d.pyr, bound));
    WT_TRY(cu_inverse_device(ce, p, &plan, d.pyr, d.planes, cu_forward_coef_bound(&plan, bound)));
    WT_TRY(clock_mark(&c, &tm->transform));
    WT_TRY(download_samples(ce, d.planes, d.samples, back));
    WT_TRY(clock_mark(&c, &tm->download));
    return clock_stop(&c);
}

/* Samples up and forward into an engine-resident pyramid. */
static wt_status forward_image_into(cu_engine *ce, wt_engine_times *tm, const wt_params *p,
                                    const wt_image *img, const wt_pyramid *plan, void *d_pyr)
{
    dev_bufs d;
    phase_clock c;
    WT_TRY(get_plane_bufs(ce, plan, wt_image_bytes(img), &d));
    WT_TRY(clock_start(ce, &c));
    WT_TRY(upload_samples(ce, img, d.planes, d.samples));
    WT_TRY(clock_mark(&c, &tm->upload));
    WT_TRY(cu_forward_device(ce, p, plan, d.planes, d_pyr, sample_bound(img)));
    WT_TRY(clock_mark(&c, &tm->transform));
    return clock_stop(&c);
}

/* Inverse of an engine-resident pyramid and samples down. */
static wt_status inverse_image_from(cu_engine *ce, wt_engine_times *tm, const wt_params *p,
                                    const wt_pyramid *plan, void *d_pyr, wt_image *img)
{
    dev_bufs d;
    phase_clock c;
    WT_TRY(get_plane_bufs(ce, plan, wt_image_bytes(img), &d));
    WT_TRY(clock_start(ce, &c));
    WT_TRY(cu_inverse_device(ce, p, plan, d_pyr, d.planes, CU_BOUND_MEASURE));
    WT_TRY(clock_mark(&c, &tm->transform));
    WT_TRY(download_samples(ce, d.planes, d.samples, img));
    WT_TRY(clock_mark(&c, &tm->download));
    return clock_stop(&c);
}

/* Download phase of a mosaic: ranges, maps, then chunks rendered and copied. */
static wt_status render_mosaic(cu_engine *ce, const wt_pyramid *plan, const dev_bufs *d,
                               wt_scale scale, wt_image *mosaic)
{
    cu_mosaic *g = (cu_mosaic *)malloc(sizeof *g);
    if (!g)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    mosaic_layout(plan, scale, mosaic->bit_depth, mosaic->width, g);
    void *pyr = NULL;
    wt_status st = packed_pyramid(ce, plan, d->pyr, &pyr);
    mosaic_job j = {g, pyr, NULL, d->samples, plan->dtype == WT_INT32,
                    mosaic->bit_depth > 8 ? 2 : 1};
    cu_band_map *maps = NULL;
    if (st == WT_OK)
        st = band_maps(ce, g, pyr, j.integer, &maps);
    j.maps = maps;
    if (st == WT_OK)
        st = download(ce, mosaic->pixels, d->samples, wt_image_bytes(mosaic),
                      (size_t)mosaic->channels * (size_t)j.bps, mosaic_chunk, &j);
    free(g);
    return st;
}

static wt_status mosaic_image(cu_engine *ce, wt_engine_times *tm, const wt_params *p,
                              const wt_image *img, wt_scale scale, wt_image *mosaic)
{
    wt_pyramid plan;
    dev_bufs d;
    phase_clock c;
    WT_TRY(wt_pyramid_plan(&plan, p, img->height, img->width, img->channels));
    size_t in = wt_image_bytes(img), out = wt_image_bytes(mosaic);
    WT_TRY(get_bufs(ce, &plan, in > out ? in : out, &d));
    WT_TRY(clock_start(ce, &c));
    WT_TRY(upload_samples(ce, img, d.planes, d.samples));
    WT_TRY(clock_mark(&c, &tm->upload));
    WT_TRY(cu_forward_device(ce, p, &plan, d.planes, d.pyr, sample_bound(img)));
    WT_TRY(clock_mark(&c, &tm->transform));
    WT_TRY(render_mosaic(ce, &plan, &d, scale, mosaic));
    WT_TRY(clock_mark(&c, &tm->download));
    return clock_stop(&c);
}

/* Pixels for an image the download fills completely (freed by
 * wt_image_free): large ones aligned to 2 MB and advised for transparent
 * huge pages, so that first touching them (the download's host copies, into
 * memory fresh from the kernel) faults once per 2 MB instead of per 4 KB. */
static void *alloc_output(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    void *p = NULL;
    if (bytes < huge)
        return malloc(bytes ? bytes : 1);
    if (posix_memalign(&p, huge, (bytes + huge - 1) / huge * huge) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE); /* advice only: without THP, 4 KB pages */
#endif
    return p;
}

/* The mosaic image of @p img's transform, sized as wt_mosaic_render's. */
static wt_status alloc_mosaic(const wt_params *p, const wt_image *img, wt_scale scale,
                              int bit_depth, wt_image *mosaic)
{
    wt_pyramid plan;
    size_t mh, mw;
    if ((unsigned)scale > WT_SCALE_OFFSET)
        return wt_error_set(WT_ERR_INVALID, "cannot render a mosaic of this pyramid "
                                            "(%d channels, %d-bit)",
                            img->channels, bit_depth);
    WT_TRY(wt_pyramid_plan(&plan, p, img->height, img->width, img->channels));
    wt_mosaic_size(&plan, &mh, &mw);
    if (mh > UINT32_MAX || mw > UINT32_MAX)
        return wt_error_set(WT_ERR_LIMIT, "mosaic of %zux%zu is too large", mh, mw);
    if (mosaic->pixels && mosaic->width == mw && mosaic->height == mh &&
        mosaic->channels == img->channels && mosaic->bit_depth == bit_depth) {
        mosaic->color = (wt_color)img->channels;
        return WT_OK; /* the caller's buffer, drawn into */
    }
    wt_image_free(mosaic);
    mosaic->width = (uint32_t)mw;
    mosaic->height = (uint32_t)mh;
    mosaic->channels = img->channels;
    mosaic->bit_depth = bit_depth;
    mosaic->color = (wt_color)img->channels;
    size_t bytes = wt_image_bytes(mosaic);
    if (!bytes && mw && mh)
        return wt_error_set(WT_ERR_LIMIT, "mosaic of %zux%zu is too large", mh, mw);
    mosaic->pixels = alloc_output(bytes);
    if (!mosaic->pixels)
        return wt_error_set(WT_ERR_NOMEM, "out of memory for a %zux%zu mosaic", mw, mh);
    return WT_OK;
}

/* ---------------------------------------------------------------------- */
/* Engine table entries */

wt_status cu_forward_image(wt_engine *e, const wt_params *p, const wt_image *img,
                           wt_pyramid *out)
{
    cu_engine *ce = (cu_engine *)e->priv;
    return finish(ce, forward_image(ce, &e->times, p, img, out));
}

wt_status cu_inverse_image(wt_engine *e, const wt_params *p, const wt_pyramid *in,
                           wt_image *img)
{
    cu_engine *ce = (cu_engine *)e->priv;
    return finish(ce, inverse_image(ce, &e->times, p, in, img));
}

wt_status cu_roundtrip_image(wt_engine *e, const wt_params *p, const wt_image *img,
                             wt_image *back)
{
    cu_engine *ce = (cu_engine *)e->priv;
    return finish(ce, roundtrip_image(ce, &e->times, p, img, back));
}

wt_status cu_forward_image_into(wt_engine *e, const wt_params *p, const wt_image *img,
                                const wt_pyramid *plan, void *d_pyr)
{
    cu_engine *ce = (cu_engine *)e->priv;
    e->times.calls++;
    return finish(ce, forward_image_into(ce, &e->times, p, img, plan, d_pyr));
}

wt_status cu_inverse_image_from(wt_engine *e, const wt_params *p, const wt_pyramid *plan,
                                void *d_pyr, wt_image *img)
{
    cu_engine *ce = (cu_engine *)e->priv;
    e->times.calls++;
    return finish(ce, inverse_image_from(ce, &e->times, p, plan, d_pyr, img));
}

wt_status cu_mosaic_image(wt_engine *e, const wt_params *p, const wt_image *img, wt_scale scale,
                          int bit_depth, wt_image *mosaic)
{
    cu_engine *ce = (cu_engine *)e->priv;
    wt_status st = alloc_mosaic(p, img, scale, bit_depth, mosaic);
    if (st == WT_OK)
        st = finish(ce, mosaic_image(ce, &e->times, p, img, scale, mosaic));
    if (st != WT_OK)
        wt_image_free(mosaic);
    return st;
}

/* ---------------------------------------------------------------------- */
/* Page-locked memory of the callers (file workers' pixel rooms) */

void *cu_host_alloc(const wt_engine *e, size_t bytes)
{
    void *p = NULL;
    wt_status st = cu_fail_check(cudaSetDevice(((const cu_engine *)e->priv)->device),
                                 "cudaSetDevice");
    cudaError_t err = st == WT_OK ? cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable)
                                  : cudaSuccess;
    if (st == WT_OK && err != cudaSuccess)
        cu_fail_host(err, "cudaHostAlloc", bytes);
    return st == WT_OK && err == cudaSuccess ? p : NULL;
}

void cu_host_free(const wt_engine *e, void *ptr)
{
    (void)e;
    cudaFreeHost(ptr); /* releasing: nothing to report */
}

/* ---------------------------------------------------------------------- */
/* Hooks for wavetool bench --host-path */

extern "C" wt_status wt_cuda_host_register(wt_engine *e, void *ptr, size_t bytes, int on)
{
    if (!e || e->ops->mosaic_image != cu_mosaic_image)
        return wt_error_set(WT_ERR_INVALID, "page-locking needs a CUDA engine");
    CU_CHECK(cudaSetDevice(((cu_engine *)e->priv)->device));
    cudaError_t err = on ? cudaHostRegister(ptr, bytes, cudaHostRegisterDefault)
                         : cudaHostUnregister(ptr);
    return err == cudaSuccess ? WT_OK : cu_fail_host(err, "cudaHostRegister", bytes);
}

/* Median seconds of @p repeat copies of @p bytes, one direction. */
static wt_status time_copies(cu_engine *ce, void *dst, const void *src, size_t bytes, int up,
                             int repeat, double *seconds)
{
    cudaEvent_t ev[2] = {};
    double *t = (double *)calloc((size_t)repeat, sizeof *t);
    if (!t)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    wt_status st = cu_fail_check(cudaEventCreate(&ev[0]), "cudaEventCreate");
    if (st == WT_OK)
        st = cu_fail_check(cudaEventCreate(&ev[1]), "cudaEventCreate");
    for (int r = -1; r < repeat && st == WT_OK; r++) {
        float ms = 0;
        cudaError_t err = cudaEventRecord(ev[0], ce->copy_stream);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync(dst, src, bytes,
                                  up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                                  ce->copy_stream);
        if (err == cudaSuccess)
            err = cudaEventRecord(ev[1], ce->copy_stream);
        if (err == cudaSuccess)
            err = cudaEventSynchronize(ev[1]);
        if (err == cudaSuccess)
            err = cudaEventElapsedTime(&ms, ev[0], ev[1]);
        st = cu_fail_check(err, "copy timing");
        if (r >= 0)
            t[r] = ms / 1e3;
    }
    for (int i = 1; i < repeat; i++) /* insertion sort: a handful of values */
        for (int k = i; k > 0 && t[k] < t[k - 1]; k--) {
            double x = t[k];
            t[k] = t[k - 1];
            t[k - 1] = x;
        }
    *seconds = t[repeat / 2];
    free(t);
    cudaEventDestroy(ev[0]); /* created or NULL: nothing to report */
    cudaEventDestroy(ev[1]);
    return st;
}

extern "C" wt_status wt_cuda_copy_rates(wt_engine *e, size_t up, size_t down, int repeat,
                                        double *up_s, double *down_s)
{
    if (!e || e->ops->mosaic_image != cu_mosaic_image)
        return wt_error_set(WT_ERR_INVALID, "copy rates need a CUDA engine");
    cu_engine *ce = (cu_engine *)e->priv;
    void *h_up = NULL, *h_down = NULL, *d_up, *d_down;
    repeat = repeat < 1 ? 1 : repeat;
    CU_CHECK(cudaSetDevice(ce->device));
    WT_TRY(cu_buf_get(ce, BUF_COPY_SRC, up, &d_up));
    WT_TRY(cu_buf_get(ce, BUF_COPY_DST, down, &d_down));
    cudaError_t err = cudaHostAlloc(&h_up, up ? up : 1, cudaHostAllocDefault);
    if (err == cudaSuccess)
        err = cudaHostAlloc(&h_down, down ? down : 1, cudaHostAllocDefault);
    wt_status st = err == cudaSuccess ? WT_OK : cu_fail_host(err, "cudaHostAlloc", up + down);
    if (st == WT_OK) {
        memset(h_up, 0x5a, up);
        memset(h_down, 0x5a, down);
        st = time_copies(ce, d_up, h_up, up, 1, repeat, up_s);
    }
    if (st == WT_OK)
        st = time_copies(ce, h_down, d_down, down, 0, repeat, down_s);
    if (h_up)
        cudaFreeHost(h_up); /* releasing: nothing to report */
    if (h_down)
        cudaFreeHost(h_down);
    return st;
}
