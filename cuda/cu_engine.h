/* Inside of the CUDA engine, shared by cu_engine.cu (device, buffers, level
 * loop, the one error boundary) and cu_image.cu (image paths: staged
 * transfers, conversions, mosaics). */
#ifndef WT_CU_ENGINE_H
#define WT_CU_ENGINE_H

#include "cu_compat.h"
#include "cu_policy.h"
#include "cu_tuning.h"

#ifndef WT_HAVE_CUDA
#define WT_HAVE_CUDA 1 /* declares the CUDA engine's entry points */
#endif
#define WT_BAND_FN static inline WT_HD /* engine_impl.h's shared arithmetic, on the device too */
extern "C" {
#include "engine_impl.h"
}

/* |v| as an unsigned key whose order is that of |v| (float: the bits of |v|,
 * NaN above inf; int32: |v|, INT32_MIN as 2^31). */
WT_DEV uint32_t abs_key(float v)
{
    uint32_t bits;
#ifdef WT_CUDA_EMULATE
    memcpy(&bits, &v, 4);
#else
    bits = __float_as_uint(v);
#endif
    return wt_abs_key_f32(bits);
}

WT_DEV uint32_t abs_key(int32_t v)
{
    return wt_abs_key_i32(v);
}

/* double: the bits of |v| (the noise estimate's float64 values). */
WT_DEV uint64_t abs_key(double v)
{
    uint64_t bits;
    double m = fabs(v);
#ifdef WT_CUDA_EMULATE
    memcpy(&bits, &m, 8);
#else
    bits = (uint64_t)__double_as_longlong(m);
#endif
    return bits;
}

/* The non-negative double whose bits are @p key. */
WT_DEV double abs_key_double(uint64_t key)
{
#ifdef WT_CUDA_EMULATE
    double v;
    memcpy(&v, &key, 8);
    return v;
#else
    return __longlong_as_double((long long)key);
#endif
}

/* Persistent device buffers, grown on demand and kept between calls. */
enum {
    BUF_PLANES,   /* C x h x w float32 planes */
    BUF_PYRAMID,  /* coefficients in the device pyramid's layout */
    BUF_COMPACT,  /* image paths: the pyramid in the host layout, where that differs */
    BUF_TMP0,     /* approximations between levels */
    BUF_TMP1,
    BUF_COPY_SRC, /* benchmark copies */
    BUF_COPY_DST,
    BUF_SAMPLES,  /* interleaved 8/16-bit samples: image in, image or mosaic out */
    BUF_BANDS,    /* mosaic: per-band partial ranges and display maps */
    BUF_BOUND,    /* integer levels: per-block partial maxima of |value| */
    BUF_PACKET,   /* wavelet packets: the whole tree (cu_packet.cu) */
    BUF_PACKET_COST, /* its node costs and their per-block parts */
    BUF_SPLIT,    /* long filters' levels as two passes: the buffer between them */
    BUF_COUNT
};

/* Level programs kept per engine (cu_program.cu): one per distinct call of
 * the level loop (shape, params, direction, buffers) in use. */
#define CU_PROGRAMS 8

/* Pinned host staging (cu_image.cu): CU_WORKERS, CU_SLOTS, CU_CHUNK in
 * cu_tuning.h. */

/* Marks of an image call's phases on the compute stream: its start and the
 * ends of upload, transform and download (cu_image.cu's phase_clock). */
#define CU_MARKS 4

typedef struct cu_staging {
    int nslots;                               /* copy_threads x CU_SLOTS */
    void *slot[CU_WORKERS * CU_SLOTS];
    cudaEvent_t done[CU_WORKERS * CU_SLOTS];  /* copy stream: the slot's transfer finished */
    cudaEvent_t ready[CU_WORKERS * CU_SLOTS]; /* compute stream: the slot's chunk produced */
    cudaEvent_t copied;                       /* copy stream: a download's last chunk */
    cudaEvent_t mark[CU_MARKS];               /* compute stream, timed: the phases */
    int ready_ok;                             /* events created, slots allocated */
} cu_staging;

typedef struct cu_engine {
    int device;
    cudaStream_t stream;      /* kernels */
    cudaStream_t copy_stream; /* host <-> device transfers of the image paths */
    size_t smem_limit;
    size_t smem_fast; /* fast kernels: the device's opt-in limit (long filters' windows) */
    size_t smem_fast_cap; /* WT_CUDA_FAST_SMEM: their tiles shrink past it (comparisons) */
    /* the fast kernels built for CU_MORE_BLOCKS (pol.fast_blocks): a block's
     * share of an SM's shared memory at that many blocks; tiles shrink past it */
    size_t smem_fast_more;
    int generic_only; /* WT_CUDA_GENERIC=1: no fast kernels (comparisons) */
    int wide53_only;  /* WT_CUDA_WIDE53=1: 64-bit 5/3 steps on every level (comparisons) */
    size_t mem_limit; /* WT_CUDA_MEM_LIMIT: device bytes buf[] may hold (0: no cap) */
    size_t mem_held;  /* device bytes held in buf[] */
    int copy_threads; /* host threads copying between pageable memory and staging */
    void *buf[BUF_COUNT];
    size_t buf_bytes[BUF_COUNT];
    cu_staging stage;
    /* cu_bands.cu: the storage of the last engine-resident pyramid freed,
     * kept for the next one (no cudaMalloc/cudaFree per denoise), the
     * layout it last held, and where the denoise tables were last put. */
    void *spare_pyr;
    size_t spare_bytes;
    wt_pyramid spare_layout;
    const void *tables_at;
    wt_pyramid tables_layout;
    /* cu_bands.cu: the planes the last resident forward read (the samples,
     * rolled for cycle spinning): the noise estimate's input. */
    const float *forward_planes;
    /* cu_engine.cu: the planned levels of the last CU_PROGRAMS distinct
     * calls of cu_forward_device / cu_inverse_device (key: params, shape,
     * direction, 5/3 widths, every buffer), replayed as a CUDA graph from
     * their second use; WT_CUDA_CACHE=0 plans every call, WT_CUDA_GRAPHS=0
     * launches each level (comparisons). */
    struct cu_program *programs[CU_PROGRAMS];
    unsigned long program_clock; /* calls so far: last use of a program (LRU) */
    int cache_off, graphs_off;
    /* small levels (cu_launch.cu): tiles shrunk to fill the SMs, and
     * programmatic dependent launches between the fast kernels of levels
     * whose grids fit at once; WT_CUDA_SMALL_GRID (blocks per SM; 0: tiles
     * as for large images) and WT_CUDA_PDL=0 (comparisons; 2: between the
     * fast kernels of every level, any grid) */
    int sms; /* the device's multiprocessors */
    cu_policy pol; /* launch parameters of this GPU (cu_policy.h, WT_CUDA_POLICY) */
    char pol_text[512]; /* pol described (benchmarks' rows) */
    double small_grid;
    int pdl_off, pdl_all;
    int coop; /* cooperative launches (fused levels, cu_program.cu) */
} cu_engine;

/* The one error boundary (cu_engine.cu): a failed CUDA call becomes a
 * wt_status and one message. A failed device allocation of @p need bytes
 * (cudaErrorMemoryAllocation, or over WT_CUDA_MEM_LIMIT) is
 * WT_ERR_DEVICE_NOMEM "GPU out of memory: need ..., ... free". */
wt_status cu_fail(const cu_engine *ce, cudaError_t err, const char *what, size_t need);
/* The same for a call whose result is at hand: WT_OK on cudaSuccess. */
wt_status cu_fail_check(cudaError_t err, const char *what);
/* A failed page-locked host allocation or registration of @p bytes:
 * WT_ERR_NOMEM (host memory), other errors as cu_fail. */
wt_status cu_fail_host(cudaError_t err, const char *what, size_t bytes);

/* A failed nvJPEG call (cu_jpeg.cu) on file @p name: its nvjpegStatus_t
 * @p status (an int here: this header does not need nvjpeg.h) as
 * "NAME: nvJPEG STATUS in WHAT"; WT_ERR_FORMAT for data it refuses (a bad
 * or unsupported JPEG, an incomplete bitstream), WT_ERR_DEVICE_NOMEM for an
 * allocation, else WT_ERR_DEVICE. */
wt_status cu_fail_nvjpeg(int status, const char *what, const char *name);
/* The device of @p engine when it is a CUDA engine, else -1. */
int cu_engine_device(const wt_engine *engine);

#define CU_CHECK_CE(ce, call)                                                                   \
    do {                                                                                        \
        cudaError_t cu_err_ = (call);                                                           \
        if (cu_err_ != cudaSuccess)                                                             \
            return cu_fail(ce, cu_err_, #call, 0);                                              \
    } while (0)
#define CU_CHECK(call) CU_CHECK_CE(NULL, call)

#define WT_TRY(expr)                                                                            \
    do {                                                                                        \
        wt_status wt_st_ = (expr);                                                              \
        if (wt_st_ != WT_OK)                                                                    \
            return wt_st_;                                                                      \
    } while (0)

/* Device memory of its own (engine-resident pyramids), counted against
 * WT_CUDA_MEM_LIMIT like buf[] (a kept spare pyramid is released first when
 * an allocation fails); and its release. */
wt_status cu_device_alloc(cu_engine *ce, void **ptr, size_t bytes);
void cu_device_free(cu_engine *ce, void *ptr, size_t bytes);
void cu_spare_release(cu_engine *ce);
/* A device buffer of at least @p bytes (kept and grown between calls). */
wt_status cu_buf_get(cu_engine *ce, int which, size_t bytes, void **ptr);
/* The device pyramid (cu_layout.cu): wt_pyramid's bands in its order, with
 * rows padded to a multiple of 32 elements. Its size in elements; whether it
 * differs from the host layout; a copy of every band from one layout to the
 * other on ce->stream (@p to_device_layout: from the host layout). */
size_t cu_pyramid_elems(const wt_pyramid *plan);
int cu_pyramid_padded(const wt_pyramid *plan);
wt_status cu_pyramid_copy(cu_engine *ce, const wt_pyramid *plan, void *dst, const void *src,
                          int to_device_layout, cudaMemcpyKind kind);
/* Element offset of band b of level l (channel 0) in the device pyramid,
 * and the elements between the rows of a band w wide; channel c of the band
 * starts c x rows x pitch further. */
size_t cu_band_first(const wt_pyramid *plan, int level, wt_band b);
size_t cu_band_pitch(const wt_pyramid *plan, size_t w);
/* All levels on the device, on ce->stream: planes -> device pyramid, and
 * back. @p bound (integer plans, legall53): every input value (the planes'
 * integers, or the pyramid's coefficients) lies within [-bound, bound];
 * levels known to stay within WT_LIFT53_NARROW_MAX run 32-bit steps.
 * CU_BOUND_MEASURE: not known, measured on the device first (a pass over
 * the input and a wait for 4 bytes per block). */
#define CU_BOUND_MEASURE UINT64_MAX
wt_status cu_forward_device(cu_engine *ce, const wt_params *p, const wt_pyramid *plan,
                            const float *d_planes, void *d_pyr, uint64_t bound);
wt_status cu_inverse_device(cu_engine *ce, const wt_params *p, const wt_pyramid *plan,
                            void *d_pyr, float *d_planes, uint64_t bound);
/* The bound of device planes (integers of a float plane: |v| <= bound;
 * UINT64_MAX when beyond int32 or NaN) and of a device pyramid's
 * coefficients; the bound of a forward's coefficients from its input's. */
wt_status cu_planes_bound(cu_engine *ce, const wt_pyramid *plan, const float *d_planes,
                          uint64_t *bound);
wt_status cu_pyramid_bound(cu_engine *ce, const wt_pyramid *plan, const void *d_pyr,
                           uint64_t *bound);
uint64_t cu_forward_coef_bound(const wt_pyramid *plan, uint64_t input_bound);

/* The image operations of the engine table (cu_image.cu). */
wt_status cu_forward_image(wt_engine *e, const wt_params *p, const wt_image *img,
                           wt_pyramid *out);
wt_status cu_inverse_image(wt_engine *e, const wt_params *p, const wt_pyramid *in,
                           wt_image *img);
/* Page-locked host memory for wt_pixel_room (wt_engine_host_alloc): portable,
 * so every GPU of the process copies it directly. */
void *cu_host_alloc(const wt_engine *e, size_t bytes);
void cu_host_free(const wt_engine *e, void *ptr);
wt_status cu_mosaic_image(wt_engine *e, const wt_params *p, const wt_image *img, wt_scale scale,
                          int bit_depth, wt_image *mosaic);
wt_status cu_roundtrip_image(wt_engine *e, const wt_params *p, const wt_image *img,
                             wt_image *back);
/* Engine-resident pyramids (cu_bands.cu): image samples up and forward into
 * @p d_pyr, inverse of @p d_pyr and samples down (cu_image.cu), adding to
 * e->times; the engine's wt_epyramid_ops. */
wt_status cu_forward_image_into(wt_engine *e, const wt_params *p, const wt_image *img,
                                const wt_pyramid *plan, void *d_pyr);
wt_status cu_inverse_image_from(wt_engine *e, const wt_params *p, const wt_pyramid *plan,
                                void *d_pyr, wt_image *img);
extern const wt_epyramid_ops cu_epyramid_ops;
/* Pinned staging and its events, created on first use; released at close. */
wt_status cu_staging_init(cu_engine *ce);
void cu_staging_free(cu_engine *ce);

/* Median and minimum of @p repeat timed runs of @p run(@p job) on the
 * engine's stream, after 3 warm-ups (the benchmarks of cu_engine.cu and
 * cu_swt.cu). */
wt_status cu_time_runs(cu_engine *ce, wt_status (*run)(const void *job), const void *job,
                       int repeat, double *median, double *fastest);
/* The device copy a benchmark compares with: @p bytes from @p src (NULL:
 * a buffer of random floats) to a scratch buffer, timed as cu_time_runs
 * times the transform, into timing->copy_ms and copy_bytes. */
wt_status cu_time_device_copy(cu_engine *ce, const void *src, size_t bytes, int repeat,
                              wt_cuda_timing *timing);

/* Undecimated transforms (cu_swt.cu): the engine's uforward/uinverse ops,
 * and device-resident timing for wt_cuda_ubench (@p bytes: what the timed
 * transform reads and writes). */
wt_status cu_uforward(wt_engine *e, const wt_uparams *p, const float *planes, size_t h, size_t w,
                      int channels, float *bands);
wt_status cu_uinverse(wt_engine *e, const wt_uparams *p, const float *bands, size_t h, size_t w,
                      int channels, float *planes);
wt_status cu_ubench(cu_engine *ce, const wt_uparams *p, size_t h, size_t w, int channels,
                    int inverse, int repeat, wt_cuda_timing *timing, size_t *bytes);

/* Wavelet packets, the whole tree resident (cu_packet.cu): the engine's
 * packet_forward/packet_inverse, and device-resident timing of every split
 * (forward) or rebuild (inverse) of the full tree for wt_cuda_packet_bench. */
wt_status cu_packet_forward(wt_engine *e, wt_packet_tree *t, const float *planes,
                            const wt_packet_rule *rule, const wt_packet_cost *cost,
                            unsigned char *basis, double *costs, int all_nodes);
wt_status cu_packet_inverse(wt_engine *e, const wt_packet_tree *t, const unsigned char *basis,
                            float *planes);
wt_status cu_packet_bench(cu_engine *ce, const wt_params *params, size_t height, size_t width,
                          int channels, int inverse, int repeat, size_t copy_bytes,
                          wt_cuda_timing *timing);

/* Volumes: the engine's vforward/vinverse ops (cu_volume_stream.cu: the
 * whole DWT on the device where it fits, else its first levels streamed
 * through it in slabs; SWT and starlet: cu_vundecimated). */
wt_status cu_vforward(wt_engine *e, const wt_volume_spec *s, const float *planes, wt_vcoeffs *c);
wt_status cu_vinverse(wt_engine *e, const wt_volume_spec *s, const wt_vcoeffs *c, float *planes);
/* cu_volume.cu: one DWT level along one axis of device arrays (the
 * wt_vpass_runner's run, @p ctx the engine); the device bytes of every
 * level of @p c on the device at once; and that transform, @p samples
 * (host, c's dtype) into c's bands (host) or back. */
struct wt_vpass; /* transform.h */
wt_status cu_vpass_run(void *ctx, const struct wt_vpass *p);
/* A (C, z, y, x) array of @p shape seen along @p axis as (outer, n, inner):
 * *outer the channels times the axes before it, *inner the samples after it. */
static inline void cu_vaxis_extents(const size_t shape[3], int axis, int channels, size_t *outer,
                                    size_t *inner)
{
    *outer = (size_t)channels, *inner = 1;
    for (int k = 0; k < 3; k++)
        if (k < axis)
            *outer *= shape[k];
        else if (k > axis)
            *inner *= shape[k];
}
size_t cu_vresident_bytes(cu_engine *ce, const wt_volume_spec *s, const wt_vcoeffs *c);
wt_status cu_vresident(cu_engine *ce, const wt_volume_spec *s, const wt_vcoeffs *c,
                       void *samples, int inverse);
/* cu_volume_undec.cu: a volume's SWT or starlet on the device, @p planes
 * (host) into @p c's bands (host) or back. */
wt_status cu_vundecimated(cu_engine *ce, const wt_volume_spec *s, const wt_vcoeffs *c,
                          float *planes, int inverse);
/* cu_vbench's SWT and starlet: every level of @p c (planned, no data) on
 * device-resident data, against a device copy of @p copy_bytes. */
wt_status cu_uvbench(cu_engine *ce, const wt_volume_spec *s, const wt_vcoeffs *c, int inverse,
                     int repeat, size_t copy_bytes, wt_cuda_timing *timing);
/* cu_volume_lift.cu: a lifting pass (float schemes, legall53's int32). */
wt_status cu_vlift_pass(cu_engine *ce, const struct wt_vpass *p);
/* Device bytes the engine could still allocate (the device's free memory,
 * capped by WT_CUDA_MEM_LIMIT). */
size_t cu_device_free_bytes(const cu_engine *ce);
/* wt_cuda_vbench's timing on the engine. */
wt_status cu_vbench(cu_engine *ce, const wt_volume_spec *s, const size_t shape[3], int inverse,
                    int repeat, size_t copy_bytes, wt_cuda_timing *timing);

#endif
