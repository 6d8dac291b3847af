/* libwavetool's hooks for wavetool's own program, benchmarks and tests, and
 * the small utilities they share with the library (one clock, one CPU count,
 * one median, one way to put a file name in front of a message).
 *
 * NOT part of the public API: these are declared here and not in wavetool.h,
 * so the shared library does not export them (its version script lists
 * wavetool.h's functions) and `meson install` does not install this header.
 * cli/, tests/ and bench/ link the static library, which holds them. They may
 * change with any release. cli/ and tests/ include wavetool.h and this header,
 * nothing else from src/ (tests/boundary_check.sh). */
#ifndef WAVETOOL_HOOKS_H
#define WAVETOOL_HOOKS_H

#include <stddef.h>
#include <stdint.h>

#include "config.h" /* WT_HAVE_CUDA: 0 or 1 */
#include "wavetool.h"

/* ---- utilities ----------------------------------------------------------- */

/* Seconds on a monotonic clock. */
double wt_seconds(void);

/* Number of processors this process may use: its affinity mask (taskset,
 * cpusets), else those online; at least 1, at most 256. */
int wt_cpu_count(void);

/* The environment's knobs (src/env.c lists them), each as getenv gave it at
 * the first call (NULL: unset); read once, the program reads them at start-up. */
typedef struct wt_env_knobs {
    const char *denoise_composed; /* WT_DENOISE_COMPOSED */
    const char *denoise_host_estimate; /* WT_DENOISE_HOST_ESTIMATE */
    const char *cuda_mem_limit;   /* WT_CUDA_MEM_LIMIT */
    const char *cuda_generic;     /* WT_CUDA_GENERIC */
    const char *cuda_fast_smem;   /* WT_CUDA_FAST_SMEM */
    const char *cuda_cache;       /* WT_CUDA_CACHE */
    const char *cuda_graphs;      /* WT_CUDA_GRAPHS */
    const char *cuda_small_grid;  /* WT_CUDA_SMALL_GRID */
    const char *cuda_pdl;         /* WT_CUDA_PDL */
    const char *cuda_policy;      /* WT_CUDA_POLICY */
    const char *cuda_bench_calls; /* WT_CUDA_BENCH_CALLS */
    const char *cuda_wide53;      /* WT_CUDA_WIDE53 */
    const char *cuda_volume;      /* WT_CUDA_VOLUME */
    const char *auto_device;      /* WT_AUTO_DEVICE */
    const char *gpu_lanes;        /* WT_GPU_LANES */
    const char *gpu_open_first;   /* WT_GPU_OPEN_FIRST */
    const char *open_delay_ms;    /* WT_OPEN_DELAY_MS */
    const char *pixel_rooms;      /* WT_PIXEL_ROOMS */
    const char *png_whole_max;    /* WT_PNG_WHOLE_MAX */
    const char *png_deflate;      /* WT_PNG_DEFLATE */
    const char *tmpdir;           /* TMPDIR */
    const char *cpu_scalar;       /* WT_CPU_SCALAR */
    const char *roundtrip_reread_bytes; /* WT_ROUNDTRIP_REREAD_BYTES */
    const char *rooms_behind;     /* WT_ROOMS_BEHIND */
} wt_env_knobs;
const wt_env_knobs *wt_env(void);
/* The PNG encoder's row filters 16 bytes at a time against the byte loop, on
 * rows of random bytes of every filter, 1-8 bytes a pixel and 0-200 bytes:
 * the number of rows that differ (0: all the same). */
int wt_png_filter_check(uint32_t seed);
/* wt_image_alloc without zeroing the pixels, for a writer that sets every
 * sample (a calloc of a block kept in the heap costs a pass over it). */
wt_status wt_image_alloc_unset(wt_image *img, uint32_t width, uint32_t height, int channels,
                               int bit_depth);
/* 1 under WT_CPU_SCALAR=1: the CPU engine's reference C, not its vector code. */
int wt_cpu_reference(void);
/* A knob's whole decimal count (@p v from wt_env()), else @p fallback (unset,
 * empty or not a number). */
size_t wt_env_count(const char *v, size_t fallback);
/* Tests: the same knobs, to change one for a call (tests/gpu/gpu_check*.c). */
wt_env_knobs *wt_env_override(void);

/* glibc: keep freed buffers up to 256 MB in the heap and give memory back only
 * past 1 GB free at the top, so a batch (or a benchmark's runs) reuses its
 * large buffers instead of faulting in fresh mappings, and at most 4 heaps
 * (address space under ulimit -v on many cores); elsewhere nothing. */
void wt_keep_freed_buffers(void);

/* Split [0, count) into contiguous ranges, one per thread (up to @p threads,
 * 0 = cores), and run fn(ctx, begin, end) on each; returns when all are done. */
void wt_parallel_for(int threads, size_t count, void (*fn)(void *ctx, size_t begin, size_t end),
                     void *ctx);

/* The median of @p v[0..n) (the upper middle for even n; 0 for n = 0); sorts @p v. */
double wt_median(double *v, size_t n);

/* The k-th smallest of @p v[0..n) (k < n), by Hoare's selection; @p v is
 * reordered so that v[0..k) <= v[k] <= v(k..n). */
double wt_select_kth(double *v, size_t n, size_t k);

/* The samples (width x height x channels x pages) an input's header declares,
 * read without decoding it; its size in bytes where the format does not say
 * or the header cannot be read; 0 for standard input, anything but a regular
 * file (a FIFO is never opened) or an unreadable path. For choosing an engine
 * before any input is decoded. */
uint64_t wt_probe_samples(const char *path);

/* --device auto's choice, made before either engine is opened
 * (src/engine/auto_device.c has the model and its measurements). */
typedef struct wt_auto_job {
    uint64_t samples; /* every input's samples (wt_probe_samples) */
    int passes;       /* transforms over the data: 1 decompose, 2 roundtrip, 3 denoise */
    int taps;         /* the wavelet's filter length */
    int threads;      /* threads the CPU engine would use in all */
    int volume;       /* 1: --volume (each file one 3-D transform) */
    int workers;      /* files at a time, the threads shared among them (0: one) */
} wt_auto_job;
/* Predicted seconds of the job's transforms on each engine (the GPU's with its opening). */
double wt_auto_cpu_seconds(const wt_auto_job *job);
double wt_auto_gpu_seconds(const wt_auto_job *job);
/* 1 when the GPU is predicted to finish first; @p why (NULL: none) gets the numbers. */
int wt_auto_prefers_gpu(const wt_auto_job *job, char *why, size_t size);

/* Zeroth-order entropy, in bits per coefficient, of the dead-zone quantiser
 * indices sign(c) floor(|c| / @p step) of @p c[0..n) (0 for n = 0). */
wt_status wt_quantized_entropy(const float *c, size_t n, double step, double *bits);

/* Levenshtein distance of two short names (over 63 characters: 64), for
 * "did you mean" (wavelets, commands). */
size_t wt_edit_distance(const char *a, const char *b);

/* Put "@p prefix: " in front of the current error message (that of a function
 * that did not know the file, say); returns @p st. Does nothing for WT_OK or
 * a message that starts with "@p prefix: " already. */
wt_status wt_error_prefix(wt_status st, const char *prefix);

/* Every band of every channel of @p p in storage order (cA of each channel,
 * then from the deepest level H, V, D, each per channel) into @p sel (room for
 * channels * (3 * levels + 1)); returns how many. */
size_t wt_pyramid_bands(const wt_pyramid *p, wt_band_ref *sel);

/* The one JSON writer (src/json.h: wt_json_*): every JSON line the program
 * prints is built with it. */
#include "json.h"

/* ---- transform registry (src/transform.c) -------------------------------
 * Each transform kind is one module, src/transform_NAME.c, defining one
 * const wt_transform_class; src/transform.c lists them. Nothing else names a
 * kind: options, help, messages, .npz layouts, mosaics, statistics, denoise
 * and bench read the class. */

/* The parameters a kind takes (wt_transform_class.params); an option of a
 * parameter the kind lacks is a usage error built from the registry. */
enum {
    WT_TPARAM_WAVELET = 1u << 0,     /* -w */
    WT_TPARAM_MODE = 1u << 1,        /* -m */
    WT_TPARAM_METHOD = 1u << 2,      /* --method */
    WT_TPARAM_NORM = 1u << 3,        /* --norm */
    WT_TPARAM_START_LEVEL = 1u << 4, /* --start-level */
    WT_TPARAM_ALL_APPROX = 1u << 5,  /* --all-approx */
    WT_TPARAM_BORDER = 1u << 6,      /* --border */
    WT_TPARAM_LAYERS = 1u << 7,      /* --layers: one image per band */
    WT_TPARAM_QSTEP = 1u << 8,       /* --qstep */
    WT_TPARAM_DENOISE_EXTRAS = 1u << 9, /* denoise --ycbcr, --cycle-spin */
    WT_TPARAM_BASIS = 1u << 10,      /* --basis, --cost: a packet basis */
    WT_TPARAM_DENOISE_POISSON = 1u << 11, /* denoise --noise poisson */
    WT_TPARAM_DENOISE_KSIGMA = 1u << 12,  /* denoise --k: k-sigma thresholds (no --rule) */
};

/* What a command needs of a kind (cli_command.needs); a kind without the
 * hook is refused with wt_transform_refusal's message. */
enum {
    WT_THOOK_DENOISE = 1u << 0,
};

/* How a kind's coefficients are held: a decimated pyramid (wt_pyramid,
 * wt_forward/wt_epyramid_*), a stack of full-size bands (wt_uparams,
 * wt_uforward; nbands x C x h x w floats) or a packet tree (wt_packet_tree). */
typedef enum wt_tlayout {
    WT_LAYOUT_PYRAMID = 0,
    WT_LAYOUT_STACK = 1,
    WT_LAYOUT_PACKET = 2,
} wt_tlayout;

struct wt_transform_ops; /* the engine's side of a kind: src/transform.h */

typedef struct wt_transform_class {
    const char *name;       /* --transform NAME, .npz meta "transform" */
    const char *help;       /* its line in --help */
    wt_transform kind;      /* the public enum's value */
    unsigned params;        /* WT_TPARAM_* it takes */
    wt_tlayout layout;
    int filter_banks_only;  /* -w takes filter-bank wavelets only (no JPEG 2000 ones) */
    const char *no_border;  /* kinds without --border: why ("is periodic"), NULL: say nothing */
    const char *wavelet_name; /* kinds without -w: the fixed kernel's name (meta, bench) */
    int kernel_taps;        /* kinds without -w: the fixed kernel's taps */
    wt_mode meta_mode;      /* stacks: .npz meta "mode" */
    const char *orientations; /* report letter of WT_BAND_A..D ("AHVD") */
    /* Layout of a band stack (WT_LAYOUT_STACK; NULL for pyramids). Stack
     * order: wt_ustack_index's. */
    int (*nbands)(const wt_uparams *p);
    int (*band_index)(const wt_uparams *p, int level, wt_band band);
    /* band @p i as (level, band): reports; 0 when @p i is an approximation */
    int (*band_ref)(const wt_uparams *p, int i, wt_band_ref *ref);
    void (*member_name)(const wt_uparams *p, int i, char *out, size_t cap); /* .npz member */
    void (*mosaic_cell)(const wt_uparams *p, int i, size_t *row, size_t *col);
    void (*mosaic_grid)(const wt_uparams *p, size_t *rows, size_t *cols);
    int (*max_level)(size_t height, size_t width);
    /* Reports: a band's name (cA, cH2, w1 ...) and the transform's text. */
    void (*ref_name)(const wt_band_ref *r, char *buf, size_t size);
    void (*describe)(const wt_params *p, wt_border border, char *buf, size_t size);
    /* bench: bytes an engine reads and writes for one run over a plane of
     * @p plane samples (stacks) */
    double (*bench_bytes)(const wt_uparams *p, double plane, int inverse);
    /* Command hooks (NULL: the command refuses the kind). */
    wt_status (*denoise)(wt_engine *e, const wt_denoise_options *o, const wt_params *p,
                         const wt_image *in, wt_image *out, wt_denoise_info *info);
    const struct wt_transform_ops *ops;
} wt_transform_class;

/* The class of @p t (never NULL: an unknown value gives the first class). */
const wt_transform_class *wt_transform_class_of(wt_transform t);
/* The class named @p name, NULL (error set: "unknown transform 'x' (dwt, ...)")
 * if none. */
const wt_transform_class *wt_transform_find(const char *name);
/* The i-th class of the registry, NULL past the last. */
const wt_transform_class *wt_transform_at(int i);
/* The names of the classes that take all of @p params and have all of
 * @p hooks, joined by @p sep ("dwt, swt or starlet" with ", " and a last
 * " or "; @p last NULL: @p sep throughout), into @p buf. */
void wt_transform_names(unsigned params, unsigned hooks, const char *sep, const char *last,
                        char *buf, size_t size);
/* Denoise with @p c (wt_denoise_options.swt for the SWT). */
void wt_denoise_set_transform(wt_denoise_options *o, const wt_transform_class *c);
/* 1 when @p c has every hook of @p hooks. */
int wt_transform_has(const wt_transform_class *c, unsigned hooks);
/* NULL when @p c has the @p hooks @p command needs, else the message
 * "COMMAND does not support --transform NAME (it takes dwt or swt)" in @p buf. */
const char *wt_transform_refusal(const wt_transform_class *c, const char *command,
                                 unsigned hooks, char *buf, size_t size);

/* ---- packets (src/transforms/packet.c) ----------------------------------
 * The cost (MATLAB's wentropy, wt_packet_cost) of @p n coefficients: each
 * cost is a sum over them, so a node's wt_packet_node_cost is the sum of its
 * channels' (stats reports each leaf's per channel). */
double wt_packet_cost_of(const float *c, size_t n, const wt_packet_cost *cost);

/* ---- volumes (src/transforms/transform_volume.c) --------------------------
 * A (z, y, x) array with channels transformed along a chosen subset of its
 * axes on the CPU engine's axis core: the DWT as pywt.wavedecn/waverecn, the
 * SWT as pywt.swtn/iswtn (trim_approx, norm, start_level; periodic at any
 * size), the starlet (B3 à trous along each axis). Samples are planar
 * (C, z, y, x) float32. */

#define WT_VOLUME_MAX_BANDS (1 + WT_MAX_LEVELS * 8)

/* One band: pywt's key ('a'/'d' per transformed axis in the order of
 * wt_volume_spec.axes; the starlet's "w" and "c"), its level (1 the finest),
 * its (z, y, x) shape and its (C, z, y, x) samples (float32, int32 for
 * legall53). */
typedef struct wt_vband {
    char key[4];
    int level;
    size_t shape[3];
    void *data;
} wt_vband;

typedef struct wt_volume_spec {
    wt_transform transform;
    wt_params params;   /* the DWT's (levels also for the others) */
    wt_uparams uparams; /* the SWT's and starlet's */
    int naxes, axes[3]; /* axes transformed, in this order (pywt's axes=) */
} wt_volume_spec;

/* A volume's bands: the approximation (key all 'a', or "c") first, then the
 * levels from the coarsest, each in pywt's key order (with the SWT's
 * all_approx, each level's approximation first). */
typedef struct wt_vcoeffs {
    size_t shape[3];
    int channels, levels;
    wt_dtype dtype;
    int nbands;
    wt_vband band[WT_VOLUME_MAX_BANDS];
} wt_vcoeffs;

/* The bands' keys and shapes for a volume of @p shape (no allocation); the
 * spec checked (axes, levels, wavelet and mode). */
wt_status wt_volume_plan(const wt_volume_spec *s, const size_t shape[3], int channels,
                         wt_vcoeffs *c);
/* Allocate every band of a plan (zeroed). */
wt_status wt_vcoeffs_alloc(wt_vcoeffs *c);
void wt_vcoeffs_free(wt_vcoeffs *c);
/* Elements of all bands, all channels. */
size_t wt_vcoeffs_elems(const wt_vcoeffs *c);
/* The forward transform of @p planes ((C, z, y, x) of @p shape) into @p out
 * (planned and allocated here), and the inverse of @p in into @p planes. */
wt_status wt_volume_forward(const wt_volume_spec *s, const float *planes, const size_t shape[3],
                            int channels, int threads, wt_vcoeffs *out);
wt_status wt_volume_inverse(const wt_volume_spec *s, const wt_vcoeffs *in, float *planes,
                            int threads);
/* The forward transform into @p c, planned for @p s and allocated (its bands
 * reused: benchmarks). */
wt_status wt_volume_forward_into(const wt_volume_spec *s, const float *planes, int threads,
                                 wt_vcoeffs *c);
/* The same on engine @p e (NULL: the host): an engine with a volume op (the
 * CUDA engine) runs the DWT of float volumes by convolution itself, one
 * upload and one download; the rest runs on the host on @p threads. */
wt_status wt_volume_forward_on(wt_engine *e, const wt_volume_spec *s, const float *planes,
                               const size_t shape[3], int channels, int threads,
                               wt_vcoeffs *out);
wt_status wt_volume_inverse_on(wt_engine *e, const wt_volume_spec *s, const wt_vcoeffs *in,
                               float *planes, int threads);
wt_status wt_volume_forward_into_on(wt_engine *e, const wt_volume_spec *s, const float *planes,
                                    int threads, wt_vcoeffs *c);
/* The volumes an engine with a volume op (the CUDA engine) runs itself:
 * the DWT (convolution or lifting, legall53's integers too), the SWT and
 * the starlet, at least one level. */
int wt_volume_engine_takes(const wt_volume_spec *s, int levels);
/* 1 when engine @p e runs volumes of @p s itself (else the host does). */
int wt_volume_on_engine(const wt_engine *e, const wt_volume_spec *s);
/* The deepest level: pywt.dwtn_max_level over the axes (DWT), else
 * floor(log2) of the shortest axis transformed. */
int wt_volume_max_level(const wt_volume_spec *s, const size_t shape[3]);
/* "0,1,2" into @p axes (distinct, 0..2); WT_ERR_INVALID with a message. */
wt_status wt_volume_parse_axes(const char *text, int axes[3], int *naxes);

/* A volume's samples (src/formats/volume_io.c): the pages of a stack (a
 * multi-page TIFF, a 3-D .npy (z, y, x): --stack first unless last is asked)
 * as (C, z, y, x) float32 planes, with the type they came in. */
typedef struct wt_volume {
    size_t shape[3]; /* z (pages), y, x */
    int channels, bit_depth;
    wt_color color;
    wt_sample_type stored;
    float *planes;
} wt_volume;
/* Bytes a volume transform takes per voxel and channel, at most: the
 * samples, the bands and the arrays between two passes. */
unsigned wt_volume_bytes_per_sample(const wt_volume_spec *s);
/* Read @p path whole; refused (WT_ERR_LIMIT, one line naming the file and
 * the need) before the volume is allocated when its voxels exceed
 * opt->max_pixels or per_sample(ctx, its shape) bytes a voxel and channel
 * exceed opt->max_memory. */
typedef unsigned (*wt_volume_need_fn)(void *ctx, const size_t shape[3]);
wt_status wt_volume_load(const char *path, const wt_load_options *opt, wt_volume_need_fn need,
                         void *ctx, wt_volume *v);
/* Write @p v as a stack (multi-page TIFF, (N, H, W[, C]) .npy) of its z
 * pages at its bit_depth and stored type, samples rounded and clamped. */
wt_status wt_volume_save(const char *path, wt_file_format format, const wt_volume *v);
void wt_volume_free(wt_volume *v);
/* A volume's coefficient file (src/formats/npz_volume.c): a member per band
 * named KEY + LEVEL ("aad1"), (C, z, y, x), and the meta (depth, axes);
 * loading plans the bands from the meta (spec filled), then reads them. */
wt_status wt_npz_save_volume(const char *path, const wt_vcoeffs *c, const wt_npz_meta *meta);
wt_status wt_npz_load_volume(const char *path, const wt_load_options *opt, wt_volume_spec *s,
                             wt_vcoeffs *c, wt_npz_meta *meta);
/* 1 when @p path is a regular file holding a volume's coefficients. */
int wt_npz_is_volume(const char *path);

/* Denoising a volume (src/analysis/denoise_volume.c): scikit-image 0.19.3's
 * denoise_wavelet of the 3-D array (each channel apart, as channel_axis
 * does): pywt.wavedecn (or, with o->swt, swtn with trim_approx) along
 * @p axes (NULL: all three), sigma from the finest all-'d' band, BayesShrink,
 * VisuShrink (N: the channel's voxels) or a fixed threshold, soft or hard,
 * Poisson noise through Anscombe; levels 0: max(max level - 3, 1). Samples
 * in sample units, in place; integer volumes clipped to [0, peak]. YCbCr
 * and cycle spinning are refused. @p info may be NULL. */
wt_status wt_denoise_volume(const wt_denoise_options *o, const int *axes, int naxes,
                            wt_volume *v, int threads, wt_denoise_info *info);
/* estimate_sigma of each channel of the 3-D array (one-level db2 dwtn,
 * median(|nonzero ddd|) / 0.6745) in sample units. */
wt_status wt_estimate_sigma_volume(const wt_volume *v, int threads, double *sigma);

/* Mosaics of volumes (src/analysis/mosaic.c, mosaic_volume.c). A tile: the
 * float planes (channels x h x w) drawn with its top-left corner at (y0, x0),
 * scaled as a mosaic scales an approximation or a detail band. */
typedef struct wt_mosaic_tile {
    const float *planes;
    size_t h, w, y0, x0;
    int approx;
} wt_mosaic_tile;
wt_status wt_mosaic_render_tiles(const wt_mosaic_tile *tiles, size_t n, size_t mh, size_t mw,
                                 int channels, wt_scale scale, int bit_depth, wt_image *out);
/* A volume's bands as a grid: a row per level from the coarsest (top), a
 * column per key in pywt's order (the approximation first; the starlet: one
 * row, c then w_L .. w_1); each band shown at the slice of z that @p z of
 * the volume falls in (z * band depth / depth), or (@p z < 0) as its maximum
 * intensity projection along z (details: max |c|). */
wt_status wt_volume_mosaic(const wt_vcoeffs *k, long z, wt_scale scale, int bit_depth,
                           wt_image *out);

/* ---- the GPU JPEG codec (nvJPEG: cuda/cu_jpeg.cu; src/formats/jpeg_gpu.h) --
 * Process-wide: once started, every JPEG decoded (WT_GPU_JPEG_DECODE) and/or
 * encoded (WT_GPU_JPEG_ENCODE) by the image functions goes through nvJPEG on
 * the GPU of a CUDA engine. libjpeg-turbo reads every header (CMYK and
 * 12-bit stay refused) and does what nvJPEG is not given (progressive,
 * arithmetic-coded or RGB-coded files, subsamplings other than 4:2:0, 4:2:2
 * and 4:4:0, files not ending in EOI, lenient loads) or fails on;
 * wt_gpu_jpeg_note says why. Decoded pixels land in the
 * host image. */
enum { WT_GPU_JPEG_DECODE = 1u << 0, WT_GPU_JPEG_ENCODE = 1u << 1 };
/* 1 when this build has nvJPEG (WT_HAVE_NVJPEG). */
int wt_gpu_jpeg_built(void);
/* Start the codec for @p what on @p engine's GPU (a CUDA engine);
 * WT_ERR_UNSUPPORTED without nvJPEG or for another engine. @p backend (NULL:
 * not wanted) gets the decoder's backend: "hardware" (the JPEG engine of
 * A100, H100, H200...) or "GPU hybrid". Call before the threads that decode. */
wt_status wt_gpu_jpeg_start(wt_engine *engine, unsigned what, char *backend, size_t size);
/* Stop it (its GPU memory freed): libjpeg-turbo again. After the threads. */
void wt_gpu_jpeg_stop(void);
/* Why libjpeg-turbo did this thread's last JPEG while the codec ran ("" when
 * the GPU did it, or nothing was tried): "NAME: PROGRESSIVE JPEG ..." */
const char *wt_gpu_jpeg_note(void);

/* ---- test hooks ---------------------------------------------------------- */

/* Device-resident denoise timing (bench/denoise_speed --resident): @p img's
 * samples go to the engine once as float planes; each of @p runs then times
 * (host wall clock, waiting for the engine at the end) the forward of those
 * planes, the fused shrinkage (sigma, thresholds, shrink) and the inverse
 * into the engine's own planes; *ms: the median. Engines with a fused
 * shrinkage only (CUDA). */
wt_status wt_denoise_time_resident(wt_engine *engine, const wt_denoise_options *o,
                                   const wt_image *img, int runs, double *ms);

/* The engine's noise estimate of @p img rolled by (dy, dx) (its cycle
 * spinning: the samples loaded, the shift's forward, the estimate), per
 * channel in sample units, NaN where no coefficient is nonzero: what
 * wt_denoise_image on @p engine takes for that shift where
 * wt_denoise_estimates_on_engine (else WT_ERR_UNSUPPORTED). gpu_check
 * compares it with the host's wt_noise_sigma_image bit for bit. */
wt_status wt_denoise_engine_sigma(wt_engine *engine, const wt_denoise_options *o,
                                  const wt_image *img, size_t dy, size_t dx, double *sigma);

/* .npz (src/npz.c): members and offsets of at least @p bytes get ZIP64
 * records (default 0xFFFFFFFF, where the zip format needs them). Tests lower
 * it to exercise the ZIP64 path on small files; not thread-safe, set before
 * writing. */
void wt_npz_set_zip64_threshold(uint64_t bytes);

/* The largest |input| of a legall53 level that the CUDA engine transforms
 * with 32-bit lifting steps (src/dwt_geometry.h, WT_LIFT53_NARROW_MAX):
 * gpu_check's inputs at that limit. */
uint32_t wt_lift53_narrow_max(void);

/* ---- CUDA engine: benchmark and page-locking hooks ----------------------- */
#if WT_HAVE_CUDA
/* Timing of the CUDA engine on device-resident data (wavetool bench). */
typedef struct wt_cuda_timing {
    double ms, ms_min;        /* transform, all levels: median and fastest run */
    double copy_ms;           /* device-to-device copy of copy_bytes: median */
    size_t copy_bytes;        /* bytes copied (the copy reads and writes each) */
    const char *policy;       /* launch policy, "entry: key=value,..." (the engine's) */
} wt_cuda_timing;
/* Times @p repeat runs (after a warm-up) of the forward (@p inverse = 0) or
 * inverse transform of @p channels planes of height x width already on the
 * device, with cudaEvents, and in the same call a cudaMemcpy device-to-device
 * of @p copy_bytes. WT_ERR_INVALID if @p engine is not a CUDA engine. */
wt_status wt_cuda_bench(wt_engine *engine, const wt_params *params, size_t height, size_t width,
                        int channels, int inverse, int repeat, size_t copy_bytes,
                        wt_cuda_timing *timing);
/* Times @p repeat device-resident runs (after a warm-up) of an undecimated
 * transform (forward, or @p inverse = 1) of @p channels planes, and a
 * device-to-device copy of half the bytes it reads and writes (*@p bytes;
 * the copy reads and writes each of its bytes). SWT level: 1 plane read, 4
 * written (inverse 4 + 1); starlet scale 1 + 2 (inverse L + 1 read, 1 written). */
wt_status wt_cuda_ubench(wt_engine *engine, const wt_uparams *params, size_t height,
                         size_t width, int channels, int inverse, int repeat,
                         wt_cuda_timing *timing, size_t *bytes);
/* Times @p repeat device-resident runs (after a warm-up) of every split of a
 * full packet tree of @p params.levels levels (forward), or every rebuild
 * (@p inverse = 1), and a device-to-device copy of @p copy_bytes. */
wt_status wt_cuda_packet_bench(wt_engine *engine, const wt_params *params, size_t height,
                               size_t width, int channels, int inverse, int repeat,
                               size_t copy_bytes, wt_cuda_timing *timing);
/* Times @p repeat device-resident runs (after a warm-up) of the volume DWT
 * of @p s (forward, or @p inverse = 1) of a (z, y, x) = @p shape float32
 * volume, all levels, and a device-to-device copy of @p copy_bytes (at most
 * the bytes the transform holds on the device). WT_ERR_UNSUPPORTED for what
 * the GPU does not run (wt_volume_engine_takes). */
wt_status wt_cuda_vbench(wt_engine *engine, const wt_volume_spec *s, const size_t shape[3],
                         int inverse, int repeat, size_t copy_bytes, wt_cuda_timing *timing);
/* Volume levels the CUDA engine has run by its 2-tap kernel so far (tests
 * check it takes the levels it should). */
long wt_cuda_volume_pair_levels(void);
/* Volume levels the CUDA engine has run by its sweep kernels (filter banks
 * of 3 to 12 taps), forward (@p inverse 0) or inverse, so far. */
long wt_cuda_volume_sweep_levels(int inverse);
/* Lifting passes of volumes the CUDA engine has run by its tiled kernels so
 * far, along x (@p rows 1) or along z and y (0). */
long wt_cuda_volume_lift_tiles(int rows);
/* Median seconds of @p repeat pinned host-to-device copies of @p up bytes and
 * device-to-host copies of @p down bytes on the engine's copy stream
 * (cudaEvents), for the floor of wavetool bench --host-path. */
wt_status wt_cuda_copy_rates(wt_engine *engine, size_t up, size_t down, int repeat,
                             double *up_s, double *down_s);
/* Page-lock (@p on = 1) or release (0) a host buffer with cudaHostRegister:
 * the CUDA engine's image paths then copy it directly, without staging. */
wt_status wt_cuda_host_register(wt_engine *engine, void *ptr, size_t bytes, int on);
#endif

#endif
