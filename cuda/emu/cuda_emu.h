/* Host emulation of the CUDA runtime subset the engine uses: device memory
 * is host memory, a kernel launch runs every block with one thread (blocks
 * in parallel with OpenMP). For checking arithmetic and indexing on a
 * machine without a GPU; races are the GPU sanitizer's job. */
#ifndef WT_CUDA_EMU_H
#define WT_CUDA_EMU_H

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <thread>
#include <math.h>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
static thread_local dim3 threadIdx(0, 0, 0), blockIdx(0, 0, 0), blockDim(1, 1, 1);
static dim3 gridDim;
inline long wt_emu_fast_launches; /* fast-kernel launches, for tests of the dispatch */

struct float4 {
    float x, y, z, w;
};
struct int4 {
    int x, y, z, w;
};
struct float2 {
    float x, y;
};
struct int2 {
    int x, y;
};
#include <cstdio>
#include <cstdint>
static inline void wt_emu_check_aligned(const void *p, size_t n)
{
    if ((uintptr_t)p % n) {
        fprintf(stderr, "emulation: misaligned %zu-byte access at %p\n", n, p);
        abort();
    }
}
static inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

typedef int cudaError_t;
typedef int cudaStream_t;
typedef double *cudaEvent_t;
enum {
    cudaSuccess = 0,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidPtx = 218,
    cudaErrorUnsupportedPtxVersion = 222,
    cudaErrorNoKernelImageForDevice = 209,
    cudaErrorInvalidDeviceFunction = 98,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaStreamNonBlocking = 1,
    cudaEventDisableTiming = 2,
    cudaHostAllocDefault = 0,
    cudaHostAllocPortable = 1,
    cudaHostRegisterDefault = 0,
};
enum cudaMemoryType {
    cudaMemoryTypeUnregistered = 0,
    cudaMemoryTypeHost = 1,
    cudaMemoryTypeDevice = 2,
};
struct cudaPointerAttributes {
    cudaMemoryType type;
    int device;
};
struct cudaDeviceProp {
    char name[256];
    size_t sharedMemPerBlockOptin;
    size_t sharedMemPerMultiprocessor;
    size_t reservedSharedMemPerBlock;
    int multiProcessorCount;
    int major, minor;
};

static inline const char *cudaGetErrorString(cudaError_t e)
{
    return e == 0 ? "no error" : "emulated error";
}
/* WT_EMU_OPEN_MS=N: a process's first device query takes N ms, as CUDA's
 * initialisation does on a GPU host (to see what overlaps the opening). */
static inline void emu_initialise_once(void)
{
    static int done;
    const char *ms = getenv("WT_EMU_OPEN_MS");
    if (!done && ms)
        std::this_thread::sleep_for(std::chrono::milliseconds(atoi(ms)));
    done = 1;
}
static inline cudaError_t cudaGetDeviceCount(int *n)
{
    emu_initialise_once();
    *n = getenv("WT_EMU_NO_DEVICE") ? 0 : 1;
    return *n ? cudaSuccess : cudaErrorNoDevice;
}
static inline cudaError_t cudaDriverGetVersion(int *v) { *v = 13000; return cudaSuccess; }
static inline cudaError_t cudaRuntimeGetVersion(int *v) { *v = 13000; return cudaSuccess; }
static inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
static inline cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
static inline cudaError_t cudaMalloc(void **p, size_t n)
{
    *p = malloc(n ? n : 1);
    if (*p)
        memset(*p, 0xA5, n); /* garbage, as fresh device memory */
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int)
{
    strcpy(p->name, "host emulation");
    p->sharedMemPerBlockOptin = 227 * 1024;
    p->sharedMemPerMultiprocessor = 228 * 1024; /* the H100's */
    p->reservedSharedMemPerBlock = 1024;
    p->multiProcessorCount = 1;
    p->major = 9;
    p->minor = 0;
    return cudaSuccess;
}
enum cudaDeviceAttr {
    cudaDevAttrMemoryClockRate = 36,
    cudaDevAttrGlobalMemoryBusWidth = 37,
    cudaDevAttrCooperativeLaunch = 95,
};
/* Attributes the host reads: cooperative launches are (wt_emu_launch_cooperative);
 * the rest 0, "not known" (the policy's default entry). */
static inline cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int)
{
    *v = a == cudaDevAttrCooperativeLaunch;
    return cudaSuccess;
}
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, int) { *s = 1; return 0; }
static inline cudaError_t cudaStreamDestroy(cudaStream_t) { return 0; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return 0; }
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, int, cudaStream_t)
{
    memmove(d, s, n);
    return 0;
}
typedef int cudaMemcpyKind;
static inline cudaError_t cudaMemcpy2DAsync(void *d, size_t dpitch, const void *s, size_t spitch,
                                            size_t width, size_t height, int, cudaStream_t)
{
    for (size_t r = 0; r < height; r++)
        memmove((char *)d + r * dpitch, (const char *)s + r * spitch, width);
    return 0;
}
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, int)
{
    memmove(d, s, n);
    return 0;
}
static inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t)
{
    memset(d, v, n);
    return 0;
}
static inline cudaError_t cudaGetLastError(void) { return 0; }
static inline cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total)
{
    *free_b = *total = (size_t)80 << 30;
    return 0;
}
/* Registered host ranges (cudaHostRegister, cudaHostAlloc), so that pointer
 * attributes tell pinned from pageable; guarded, file workers allocate. */
static inline std::vector<std::pair<const char *, size_t>> &wt_emu_registered()
{
    static std::vector<std::pair<const char *, size_t>> r;
    return r;
}
static inline std::mutex &wt_emu_registered_lock()
{
    static std::mutex m;
    return m;
}
static inline cudaError_t cudaHostRegister(void *p, size_t n, int)
{
    std::lock_guard<std::mutex> hold(wt_emu_registered_lock());
    wt_emu_registered().push_back({(const char *)p, n});
    return 0;
}
static inline cudaError_t cudaHostUnregister(void *p)
{
    std::lock_guard<std::mutex> hold(wt_emu_registered_lock());
    auto &r = wt_emu_registered();
    for (size_t i = 0; i < r.size(); i++)
        if (r[i].first == p) {
            r.erase(r.begin() + (long)i);
            return 0;
        }
    return 1;
}
static inline cudaError_t cudaHostAlloc(void **p, size_t n, int)
{
    *p = malloc(n ? n : 1);
    if (*p)
        cudaHostRegister(*p, n ? n : 1, 0);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaFreeHost(void *p)
{
    cudaHostUnregister(p);
    free(p);
    return 0;
}
static inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *a, const void *p)
{
    std::lock_guard<std::mutex> hold(wt_emu_registered_lock());
    a->type = cudaMemoryTypeUnregistered;
    a->device = 0;
    for (auto &r : wt_emu_registered())
        if ((const char *)p >= r.first && (const char *)p < r.first + r.second)
            a->type = cudaMemoryTypeHost;
    return 0;
}
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned) { return 0; }
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, int) { *e = new double(0); return 0; }
static inline cudaError_t cudaFuncSetAttribute(const void *, int, int) { return 0; }
template <typename F> static inline cudaError_t cudaFuncSetAttribute(F, int, int) { return 0; }
struct cudaFuncAttributes {
    int binaryVersion, ptxVersion;
};
template <typename F>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, F, int, size_t)
{
    *n = 2;
    return 0;
}
template <typename F> static inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, F)
{
    a->binaryVersion = a->ptxVersion = 90;
    return 0;
}
static inline cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = new double(0); return 0; }
static inline cudaError_t cudaEventDestroy(cudaEvent_t e) { delete e; return 0; }
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t)
{
    *e = std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
    return 0;
}
static inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return 0; }
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = (float)(*b - *a);
    return 0;
}

static inline std::vector<unsigned char> &wt_emu_smem_buf()
{
    static thread_local std::vector<unsigned char> buf;
    return buf;
}
static inline void *wt_emu_smem() { return wt_emu_smem_buf().data(); }

/* Launches from several host threads (the transfer workers) take turns:
 * gridDim is one variable per translation unit. */
static inline std::mutex &wt_emu_launch_lock()
{
    static std::mutex m;
    return m;
}

template <typename F> static void wt_emu_launch(dim3 grid, size_t smem, F body)
{
    std::lock_guard<std::mutex> hold(wt_emu_launch_lock());
    gridDim = grid;
    long nblocks = (long)grid.x * grid.y * grid.z;
    if (nblocks == 0) { /* CUDA refuses an empty grid (invalid argument) */
        fprintf(stderr, "cuda emulation: a launch of an empty grid\n");
        abort();
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (long b = 0; b < nblocks; b++) {
        std::vector<unsigned char> &buf = wt_emu_smem_buf();
        buf.assign(smem + 16, 0xFF); /* NaN / -1: reads of unwritten shared memory show */
        blockIdx = dim3((unsigned)(b % grid.x), (unsigned)(b / grid.x % grid.y),
                        (unsigned)(b / grid.x / grid.y));
        threadIdx = dim3(0, 0, 0);
        blockDim = dim3(1, 1, 1);
        body();
    }
}

/* Cooperative launches: every block a thread of its own, all running at
 * once as on a GPU whose grid is resident, so that a grid-wide barrier
 * (WT_GRID_SYNC) can wait for the others; a block that reads what another
 * wrote before the barrier would race (and may fail the comparison) as on
 * the GPU. */
struct wt_emu_grid_barrier {
    std::mutex m;
    std::condition_variable cv;
    long blocks = 0, waiting = 0, generation = 0;
};
inline wt_emu_grid_barrier *wt_emu_grid_bar; /* the cooperative launch running */
#define WT_EMU_COOP_BLOCKS 64                    /* the most blocks of one */

static inline void wt_emu_grid_sync()
{
    wt_emu_grid_barrier *g = wt_emu_grid_bar;
    if (!g) {
        fprintf(stderr, "cuda emulation: a grid barrier outside a cooperative launch\n");
        abort();
    }
    std::unique_lock<std::mutex> hold(g->m);
    const long gen = g->generation;
    if (++g->waiting == g->blocks) {
        g->waiting = 0;
        g->generation++;
        g->cv.notify_all();
        return;
    }
    g->cv.wait(hold, [&] { return g->generation != gen; });
}

template <typename F> static void wt_emu_launch_cooperative(dim3 grid, size_t smem, F body)
{
    std::lock_guard<std::mutex> hold(wt_emu_launch_lock());
    gridDim = grid;
    long nblocks = (long)grid.x * grid.y * grid.z;
    if (nblocks == 0 || nblocks > WT_EMU_COOP_BLOCKS) { /* CUDA: invalid argument / too many */
        fprintf(stderr, "cuda emulation: a cooperative launch of %ld blocks\n", nblocks);
        abort();
    }
    wt_emu_grid_barrier bar;
    bar.blocks = nblocks;
    wt_emu_grid_bar = &bar;
    std::vector<std::thread> blocks;
    for (long b = 0; b < nblocks; b++)
        blocks.emplace_back([&, b] {
            std::vector<unsigned char> &buf = wt_emu_smem_buf();
            buf.assign(smem + 16, 0xFF);
            blockIdx = dim3((unsigned)(b % grid.x), (unsigned)(b / grid.x % grid.y),
                            (unsigned)(b / grid.x / grid.y));
            threadIdx = dim3(0, 0, 0);
            blockDim = dim3(1, 1, 1);
            body();
        });
    for (auto &t : blocks)
        t.join();
    wt_emu_grid_bar = nullptr;
}

#endif
