/* The CUDA engine: device selection, persistent device buffers, host
 * transfers of the float paths, and the benchmark hook (the level loop, all
 * levels on the device, one fused kernel per level: cu_launch.cu,
 * cu_layout.cu, cu_program.cu; image paths: cu_image.cu). Every CUDA
 * runtime call goes through CU_CHECK or cu_fail,
 * the one place that turns a cudaError_t (and cu_fail_nvjpeg an nvJPEG
 * status) into a wt_status with a message;
 * device allocations go through device_alloc (WT_CUDA_MEM_LIMIT). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_engine.h"
#include "cu_engine_impl.h"

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

/* Device bytes the engines of this process hold on each device: what
 * WT_CUDA_MEM_LIMIT caps, as a smaller device would (the lanes of a folder
 * are several engines on one device). */
enum { CU_MAX_DEVICES = 64 };
static size_t held_on_device[CU_MAX_DEVICES];

static size_t *held_of(const cu_engine *ce)
{
    return &held_on_device[(unsigned)ce->device % CU_MAX_DEVICES];
}

/* @p bytes more under WT_CUDA_MEM_LIMIT for @p ce's device, or 0. */
static int reserve_under_limit(const cu_engine *ce, size_t bytes)
{
    size_t *held = held_of(ce), now = __atomic_load_n(held, __ATOMIC_RELAXED);
    do {
        if (now > ce->mem_limit || bytes > ce->mem_limit - now)
            return 0;
    } while (!__atomic_compare_exchange_n(held, &now, now + bytes, 1, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    return 1;
}

/* @p bytes of @p ce given back (freed or never allocated). */
static void unhold(cu_engine *ce, size_t bytes)
{
    ce->mem_held -= bytes;
    if (ce->mem_limit)
        __atomic_sub_fetch(held_of(ce), bytes, __ATOMIC_RELAXED);
}

/* Device bytes this engine could still allocate: the device's free memory,
 * capped by WT_CUDA_MEM_LIMIT. */
static size_t device_free(const cu_engine *ce)
{
    size_t free_b = 0, total = 0;
    if (cudaMemGetInfo(&free_b, &total) != cudaSuccess)
        free_b = 0; /* only for the message */
    if (ce && ce->mem_limit) {
        size_t held = __atomic_load_n(held_of(ce), __ATOMIC_RELAXED);
        size_t left = ce->mem_limit > held ? ce->mem_limit - held : 0;
        free_b = left < free_b ? left : free_b;
    }
    return free_b;
}

size_t cu_device_free_bytes(const cu_engine *ce)
{
    return device_free(ce);
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

wt_status cu_fail_nvjpeg(int status, const char *what, const char *name)
{
    /* nvjpegStatus_t's values (nvjpeg.h), in order from NVJPEG_STATUS_SUCCESS */
    static const char *const text[] = {"success", "not initialized", "invalid parameter",
                                       "bad JPEG", "JPEG not supported", "allocator failure",
                                       "execution failed", "architecture mismatch",
                                       "internal error", "implementation not supported",
                                       "incomplete bitstream"};
    const int count = (int)(sizeof text / sizeof *text);
    (void)cudaGetLastError(); /* a failed launch inside nvJPEG must not show at ours */
    wt_status code = status == 3 || status == 4 || status == 10 ? WT_ERR_FORMAT
                     : status == 5                                ? WT_ERR_DEVICE_NOMEM
                                                                  : WT_ERR_DEVICE;
    if (status >= 0 && status < count)
        return wt_error_set(code, "%s: nvJPEG %s in %s", name, text[status], what);
    return wt_error_set(code, "%s: nvJPEG status %d in %s", name, status, what);
}

/* cudaMalloc of @p bytes, refused over WT_CUDA_MEM_LIMIT like a full device. */
static wt_status device_alloc(cu_engine *ce, void **ptr, size_t bytes)
{
    cudaError_t err = cudaSuccess;
    if (ce->mem_limit && !reserve_under_limit(ce, bytes))
        err = cudaErrorMemoryAllocation;
    else if ((err = cudaMalloc(ptr, bytes)) != cudaSuccess && ce->mem_limit)
        __atomic_sub_fetch(held_of(ce), bytes, __ATOMIC_RELAXED);
    if (err != cudaSuccess && ce->spare_pyr) { /* the kept pyramid first, then again */
        cudaGetLastError();
        cu_spare_release(ce);
        return device_alloc(ce, ptr, bytes);
    }
    if (err != cudaSuccess)
        return cu_fail(ce, err, "cudaMalloc", bytes);
    ce->mem_held += bytes; /* (the device's count: reserve_under_limit) */
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
        unhold(ce, ce->buf_bytes[which]);
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
        unhold(ce, bytes);
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
    unhold(ce, ce->mem_held); /* the device's count gets back all the engine held */
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
                                       .host_alloc = cu_host_alloc,
                                       .host_free = cu_host_free,
                                       .uforward = cu_uforward,
                                       .uinverse = cu_uinverse,
                                       .vforward = cu_vforward,
                                       .vinverse = cu_vinverse,
                                       .packet_forward = cu_packet_forward,
                                       .packet_inverse = cu_packet_inverse};

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
    WT_TRY(cu_policy_open(device, prop.major, prop.minor, wt_env()->cuda_policy, &ce->pol));
    cu_policy_describe(&ce->pol, ce->pol_text, sizeof ce->pol_text);
    ce->copy_threads = wt_cpu_count() < CU_WORKERS ? wt_cpu_count() : CU_WORKERS;
    ce->smem_limit = prop.sharedMemPerBlockOptin;
    const char *generic = wt_env()->cuda_generic, *wide53 = wt_env()->cuda_wide53;
    ce->generic_only = generic && *generic && *generic != '0';
    ce->wide53_only = wide53 && *wide53 && *wide53 != '0';
    ce->smem_fast = ce->smem_limit;
    ce->smem_fast_cap = fast_smem_cap(ce->smem_fast);
    ce->smem_fast_more = prop.sharedMemPerMultiprocessor / CU_MORE_BLOCKS -
                         prop.reservedSharedMemPerBlock;
    const char *cache = wt_env()->cuda_cache, *graphs = wt_env()->cuda_graphs;
    const char *grid = wt_env()->cuda_small_grid, *pdl = wt_env()->cuda_pdl;
    ce->cache_off = cache && !strcmp(cache, "0");
    ce->graphs_off = graphs && !strcmp(graphs, "0");
    ce->small_grid = grid && *grid ? atof(grid) : ce->pol.small_grid;
    ce->pdl_off = (pdl && !strcmp(pdl, "0")) || prop.major < 9;
    ce->pdl_all = pdl && !strcmp(pdl, "2");
    ce->sms = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    CU_CHECK(cudaDeviceGetAttribute(&ce->coop, cudaDevAttrCooperativeLaunch, device));
    if (ce->smem_limit > ce->pol.smem_cap)
        ce->smem_limit = ce->pol.smem_cap;
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
    void *d_pyr;
    int what;       /* 0 forward, 1 inverse */
    uint64_t bound; /* of the timed transform's input, measured before */
} bench_job;

static wt_status bench_once(const bench_job *j)
{
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

int cu_engine_device(const wt_engine *engine)
{
    return engine && engine->ops == &cuda_ops ? ((const cu_engine *)engine->priv)->device : -1;
}

typedef struct copy_job {
    cu_engine *ce;
    const void *src;
    void *dst;
    size_t bytes;
} copy_job;

static wt_status copy_run(const void *job)
{
    const copy_job *j = (const copy_job *)job;
    CU_CHECK(cudaMemcpyAsync(j->dst, j->src, j->bytes, cudaMemcpyDeviceToDevice, j->ce->stream));
    return WT_OK;
}

wt_status cu_time_device_copy(cu_engine *ce, const void *src, size_t bytes, int repeat,
                              wt_cuda_timing *timing)
{
    copy_job j = {ce, src, NULL, bytes};
    if (!src) {
        void *random;
        WT_TRY(cu_buf_get(ce, BUF_COPY_SRC, bytes, &random));
        WT_TRY(fill_random(ce, (float *)random, bytes / 4, 777u));
        j.src = random;
    }
    WT_TRY(cu_buf_get(ce, BUF_COPY_DST, bytes, &j.dst));
    double fastest;
    WT_TRY(cu_time_runs(ce, copy_run, &j, repeat, &timing->copy_ms, &fastest));
    timing->copy_bytes = bytes;
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
    bench_job j = {ce, &p, &plan, NULL, NULL, 0, CU_BOUND_MEASURE};
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
    timing->policy = ce->pol_text;
    WT_TRY(cu_time_runs(ce, bench_run, &j, repeat, &timing->ms, &timing->ms_min));
    if (copy_bytes)
        WT_TRY(cu_time_device_copy(ce, NULL, copy_bytes, repeat, timing));
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

extern "C" wt_status wt_cuda_packet_bench(wt_engine *engine, const wt_params *params,
                                          size_t height, size_t width, int channels, int inverse,
                                          int repeat, size_t copy_bytes, wt_cuda_timing *timing)
{
    if (!engine || engine->ops != &cuda_ops)
        return wt_error_set(WT_ERR_INVALID, "benchmark hook needs a CUDA engine");
    return cu_packet_bench((cu_engine *)engine->priv, params, height, width, channels, inverse,
                           repeat < 1 ? 1 : repeat, copy_bytes, timing);
}

extern "C" wt_status wt_cuda_vbench(wt_engine *engine, const wt_volume_spec *s,
                                    const size_t shape[3], int inverse, int repeat,
                                    size_t copy_bytes, wt_cuda_timing *timing)
{
    if (!engine || engine->ops != &cuda_ops)
        return wt_error_set(WT_ERR_INVALID, "benchmark hook needs a CUDA engine");
    return cu_vbench((cu_engine *)engine->priv, s, shape, inverse, repeat < 1 ? 1 : repeat,
                     copy_bytes, timing);
}
