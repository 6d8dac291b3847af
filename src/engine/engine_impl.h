/* Inside of the engine interface: each engine fills a table of operations. */
#ifndef WT_ENGINE_IMPL_H
#define WT_ENGINE_IMPL_H

#include <math.h>
#include <string.h> /* memcpy: wt_abs_key_value */

#include "wavetool.h"
#include "wavetool_hooks.h" /* wt_seconds, wt_parallel_for, WT_HAVE_CUDA (config.h), CUDA hooks */

/* ---------------------------------------------------------------------- */
/* Engine-resident pyramids (src/epyramid.c checks the arguments once and
 * dispatches; src/epyramid_host.c holds them in host memory for the CPU
 * engine, cuda/cu_bands.cu in device memory). */

/* One selected band of one channel, resolved: its shape and where channel
 * @p channel of it starts in the host layout (wt_pyramid_offset). */
typedef struct wt_band_span {
    int level;
    wt_band band;
    int channel;
    size_t rows, cols;
    size_t offset;
} wt_band_span;

struct wt_epyramid {
    wt_engine *engine;
    wt_params params; /* resolved */
    wt_pyramid shape; /* planned, data NULL */
    void *priv;       /* the engine's storage */
    struct wt_spin_planes *spin; /* cycle spinning composed on the host */
    void *spin_priv;             /* the engine's cycle spinning storage (its destroy frees it) */
};

/* A selection group of the k-th smallest |c|: the k-th (0-based) over the
 * spans [first, first + count) of the span list. */
typedef struct wt_select_group {
    size_t first, count;
    uint64_t k;
} wt_select_group;

/* Operations on an engine's pyramids. Called with checked arguments: spans
 * inside the pyramid, map and zero_below without repeated bands, every k
 * below its group's coefficient count. They add to e->times themselves only
 * where they say so; the dispatch times the others. */
struct wt_shrink_plan;

typedef struct wt_epyramid_ops {
    wt_status (*create)(wt_epyramid *p);  /* p->engine, params, shape set: storage */
    void (*destroy)(wt_epyramid *p);      /* frees the storage only */
    wt_status (*forward)(wt_epyramid *p, const float *planes);
    wt_status (*forward_image)(wt_epyramid *p, const wt_image *img);
    wt_status (*inverse)(wt_epyramid *p, float *planes);
    wt_status (*inverse_image)(wt_epyramid *p, wt_image *img);
    wt_status (*upload)(wt_epyramid *p, const wt_pyramid *host);
    wt_status (*download)(const wt_epyramid *p, wt_pyramid *host);
    wt_status (*map)(wt_epyramid *p, wt_band_op op, const wt_band_span *s, const double *args,
                     size_t n);
    /* out[i] for span i; t NULL: at_most counts |c| <= 0 */
    wt_status (*reduce)(const wt_epyramid *p, const wt_band_span *s, const double *t, size_t n,
                        wt_band_stats *out);
    /* out[g]: the k-th smallest |c| of group g */
    wt_status (*select)(const wt_epyramid *p, const wt_band_span *s,
                        const wt_select_group *groups, size_t ngroups, double *out);
    wt_status (*zero_below)(wt_epyramid *p, const wt_band_span *s, size_t n, double cut,
                            uint64_t ties);
    /* Cycle spinning on the engine (optional, all four or none; NULL: src/
     * epyramid.c composes them from forward/inverse and host planes). The
     * samples stay resident as float planes; spin_forward transforms them
     * rolled by (dy, dx) (np.roll); spin_inverse_add inverts, clips to
     * [lo, hi] (NaN kept), rolls back and adds into a double accumulator;
     * spin_result writes accumulator / count as samples (NaN 0, clipped,
     * nearest, ties to even). dy < height, dx < width. */
    wt_status (*spin_load)(wt_epyramid *p, const wt_image *img);
    wt_status (*spin_forward)(wt_epyramid *p, size_t dy, size_t dx);
    wt_status (*spin_inverse_add)(wt_epyramid *p, size_t dy, size_t dx, double lo, double hi);
    wt_status (*spin_result)(wt_epyramid *p, double count, wt_image *img);
    /* Denoising's shrinkage with no host round trip (optional; NULL: src/
     * denoise.c composes it from map, reduce and select): the noise
     * estimate, thresholds and shrinkage of wt_shrink_plan on the engine;
     * shrink_sigma waits for it and gives the sigma of the last shrink. */
    wt_status (*shrink)(wt_epyramid *p, const struct wt_shrink_plan *plan);
    wt_status (*shrink_sigma)(wt_epyramid *p, double *sigma);
    /* scikit-image's noise estimate on the engine (optional; NULL: the host
     * makes it, src/analysis/noise_estimate.c): the same float64 operations
     * in the same order, on the planes the last forward of @p p read (its
     * samples, rolled for cycle spinning), each sample times @p scale, then
     * median(|nonzero|) / Phi^-1(0.75) x @p peak per channel (NaN without
     * a nonzero), kept on the engine as the given sigma of the next shrink
     * whose plan has given_on_engine. Only for wt_noise_exact wavelets, and
     * before any other work on the engine after that forward. */
    wt_status (*noise_estimate)(wt_epyramid *p, double scale, double peak);
} wt_epyramid_ops;

/* One denoise shrinkage, as src/denoise.c's shrink_pyramid composes it:
 * when @p estimate and a channel's given sigma is NaN, the finest diagonal
 * band of each channel first has its |c| < @p zero set to 0 (zero > 0),
 * then sigma_c = median(|nonzero c|) / Phi^-1(0.75) (NaN without nonzero
 * values); the given sigma (not NaN) replaces it.
 * Each detail band (wt_epyramid_details order) gets t = rule(sigma of its
 * channel) x factor[level - 1]; bands whose t is NaN stay as they are. */
typedef struct wt_shrink_plan {
    int estimate;
    int given_on_engine;            /* given[] is the engine's noise_estimate's */
    double zero;
    double ppf75;                   /* Phi^-1(0.75): sigma = median / ppf75 */
    double given[4];
    wt_shrink_rule rule;
    int soft;
    double bayes_floor;             /* BayesShrink: eps x peak^2 */
    double visu;                    /* VisuShrink: sqrt(2 ln N) */
    double fixed;                   /* the fixed threshold */
    double factor[WT_MAX_LEVELS];   /* per level (1 = finest) */
} wt_shrink_plan;

/* Enqueues @p plan on the engine (wt_epyramid_ops.shrink); the sigma per
 * channel it used comes with wt_epyramid_shrink_sigma (which waits), so a
 * caller can take it after the inverse. WT_ERR_UNSUPPORTED when the engine
 * has no shrink op (the CPU engine: denoise.c composes the same steps). */
wt_status wt_epyramid_shrink(wt_epyramid *p, const wt_shrink_plan *plan);
wt_status wt_epyramid_shrink_sigma(wt_epyramid *p, double *sigma);

/* The longest filter an engine's noise estimate takes. */
#define WT_ENGINE_NOISE_TAPS 128

/* 1 when @p e makes the exact noise estimate itself for @p wavelet (a
 * wt_noise_exact one: noise_estimate and shrink ops, a filter of at most
 * WT_ENGINE_NOISE_TAPS); wt_epyramid_noise_estimate runs it. */
int wt_engine_estimates_noise(const wt_engine *e, const wt_wavelet *wavelet);
wt_status wt_epyramid_noise_estimate(wt_epyramid *p, double scale, double peak);

/* The host-memory implementation (the CPU engine's). */
extern const wt_epyramid_ops wt_host_epyramid_ops;

/* The arithmetic both engines share (cuda/cu_engine.h compiles it for the
 * device too, defining WT_BAND_FN first). */
#ifndef WT_BAND_FN
#define WT_BAND_FN static inline
#endif

/* |c| as an unsigned key whose order is the order of |c| (float: the bits of
 * |c|; int32: |c|): the radix selection of both engines. */
WT_BAND_FN uint32_t wt_abs_key_f32(uint32_t bits)
{
    return bits & 0x7fffffffu;
}
WT_BAND_FN uint32_t wt_abs_key_i32(int32_t v)
{
    return v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
}
/* The |c| that a key of wt_abs_key_f32 (bits) or, @p integer,
 * wt_abs_key_i32 stands for. */
WT_BAND_FN double wt_abs_key_value(uint32_t key, int integer)
{
    if (integer)
        return (double)key;
    float f;
    memcpy(&f, &key, 4);
    return (double)f;
}

/* One band operation on one value, in double (as wt_pyramid_threshold). */
WT_BAND_FN double wt_band_op_apply(wt_band_op op, double v, double t)
{
    double m = fabs(v);
    switch (op) {
    case WT_OP_HARD: return m < t ? 0.0 : v;
    case WT_OP_SOFT: return m < t ? 0.0 : copysign(m - t, v);
    case WT_OP_SCALE: return t * v;
    case WT_OP_ZERO: break;
    case WT_OP_QUANTIZE: {
        double q = floor(m / t);
        return q == 0.0 ? 0.0 : copysign((q + 0.5) * t, v);
    }
    }
    return 0.0;
}

/* One coefficient's term of a packet cost (MATLAB's wentropy; a node's
 * cost is their sum, in double): shannon -c^2 log c^2 (0 at 0), log energy
 * log c^2 (0 at 0), threshold [|c| > T], norm |c|^P. */
WT_BAND_FN double wt_packet_cost_term(wt_packet_cost_kind kind, double param, double v)
{
    double s = v * v;
    switch (kind) {
    case WT_COST_SHANNON: return s > 0.0 ? -(s * log(s)) : 0.0;
    case WT_COST_LOGENERGY: return s > 0.0 ? log(s) : 0.0;
    case WT_COST_THRESHOLD: return fabs(v) > param ? 1.0 : 0.0;
    case WT_COST_NORM: return pow(fabs(v), param);
    }
    return 0.0;
}

WT_BAND_FN void wt_band_stats_init(wt_band_stats *s)
{
    s->count = s->zeros = s->at_most = 0;
    s->sum = s->sum_sq = s->max_abs = 0.0;
    s->min = INFINITY;
    s->max = -INFINITY;
}

/* Value @p v into @p s; @p t: the bound of at_most. */
WT_BAND_FN void wt_band_stats_add(wt_band_stats *s, double v, double t)
{
    double m = fabs(v);
    s->count++;
    s->sum += v;
    s->sum_sq += v * v;
    s->min = v < s->min ? v : s->min;
    s->max = v > s->max ? v : s->max;
    s->max_abs = m > s->max_abs ? m : s->max_abs;
    s->zeros += v == 0.0;
    s->at_most += m <= t;
}

WT_BAND_FN void wt_band_stats_merge(wt_band_stats *s, const wt_band_stats *o)
{
    s->count += o->count;
    s->sum += o->sum;
    s->sum_sq += o->sum_sq;
    s->min = o->min < s->min ? o->min : s->min;
    s->max = o->max > s->max ? o->max : s->max;
    s->max_abs = o->max_abs > s->max_abs ? o->max_abs : s->max_abs;
    s->zeros += o->zeros;
    s->at_most += o->at_most;
}

typedef struct wt_engine_ops {
    wt_status (*forward)(wt_engine *e, const wt_params *p, const float *planes, wt_pyramid *out);
    wt_status (*inverse)(wt_engine *e, const wt_params *p, const wt_pyramid *in, float *planes);
    void (*close)(wt_engine *e);
    /* Optional image paths (NULL: src/engine_image.c composes them from the
     * float operations above and the host conversions). Called with resolved
     * params and checked shapes; they add to e->times themselves. */
    wt_status (*forward_image)(wt_engine *e, const wt_params *p, const wt_image *img,
                               wt_pyramid *out);
    wt_status (*inverse_image)(wt_engine *e, const wt_params *p, const wt_pyramid *in,
                               wt_image *img);
    wt_status (*mosaic_image)(wt_engine *e, const wt_params *p, const wt_image *img,
                              wt_scale scale, int bit_depth, wt_image *mosaic);
    wt_status (*roundtrip_image)(wt_engine *e, const wt_params *p, const wt_image *img,
                                 wt_image *back);
    const wt_epyramid_ops *pyr; /* engine-resident pyramids */
    /* Host memory the engine copies fastest (optional, both or none; NULL:
     * malloc and free): wt_engine_host_alloc, wt_engine_host_free. */
    void *(*host_alloc)(const wt_engine *e, size_t bytes);
    void (*host_free)(const wt_engine *e, void *ptr);
    /* Undecimated transforms (SWT, starlet) of host planes into host band
     * stacks; called with checked params. NULL: the host implementation
     * below runs them. */
    wt_status (*uforward)(wt_engine *e, const wt_uparams *p, const float *planes, size_t h,
                          size_t w, int channels, float *bands);
    wt_status (*uinverse)(wt_engine *e, const wt_uparams *p, const float *bands, size_t h,
                          size_t w, int channels, float *planes);
    /* Volumes (optional; NULL: the host implementation): the transform of
     * (C, z, y, x) planes into @p c (planned and allocated), and back;
     * called only for what wt_volume_engine_takes (transform.h). */
    wt_status (*vforward)(wt_engine *e, const wt_volume_spec *s, const float *planes,
                          wt_vcoeffs *c);
    wt_status (*vinverse)(wt_engine *e, const wt_volume_spec *s, const wt_vcoeffs *c,
                          float *planes);
    /* Wavelet packets with the whole tree resident on the engine (optional,
     * both or none; NULL: src/transforms/packet.c splits each node with one
     * forward/inverse call and sums the costs on the host). Called with a
     * planned and allocated tree and a checked rule. packet_forward: the
     * tree of @p planes, every node's cost when @p cost (into @p costs when
     * not NULL) reduced there, the basis of @p rule chosen by
     * wt_packet_basis_of, and only the basis's leaves (every node when
     * @p all_nodes) copied into t->data. packet_inverse: the leaves of
     * @p basis up, every split node rebuilt there, the image into @p planes
     * (t->data left as it is). */
    wt_status (*packet_forward)(wt_engine *e, wt_packet_tree *t, const float *planes,
                                const wt_packet_rule *rule, const wt_packet_cost *cost,
                                unsigned char *basis, double *costs, int all_nodes);
    wt_status (*packet_inverse)(wt_engine *e, const wt_packet_tree *t, const unsigned char *basis,
                                float *planes);
} wt_engine_ops;

/* The basis @p rule chooses on the node costs @p costs of a tree of
 * @p levels levels (wt_packet_node_id order; read only by the best basis),
 * as wt_packet_choose (src/transforms/packet.c): the one rule of both
 * engines. */
wt_status wt_packet_basis_of(int levels, const wt_packet_rule *rule, const double *costs,
                             unsigned char *basis);

/* The host implementation of the undecimated transforms (src/undecimated.c),
 * on @p threads threads (0 = cores). */
wt_status wt_host_uforward(int threads, const wt_uparams *p, const float *planes, size_t h,
                           size_t w, int channels, float *bands);
wt_status wt_host_uinverse(int threads, const wt_uparams *p, const float *bands, size_t h,
                           size_t w, int channels, float *planes);


struct wt_engine {
    const wt_engine_ops *ops;
    char name[160];
    int is_cpu;
    int threads; /* CPU worker threads, 0 = cores */
    wt_engine_times times;
    void *priv;
};

/* Resolve params and check that @p pyr was planned for them and for an image
 * of @p img's size (img may be NULL). */
wt_status wt_check_transform(wt_params *p, const wt_pyramid *pyr, const wt_image *img);

/* WT_ERR_UNSUPPORTED when @p img's samples would not be exact in the int32
 * lifting of legall53 (32-bit integer samples), or WT_ERR_LIMIT when a
 * float32-held image's samples are not finite or so large that the
 * transform of resolved @p p (both directions) could overflow float32; the
 * values are read only when @p input (an output image: its type alone). */
wt_status wt_check_samples_fit(const wt_params *p, const wt_image *img, int input);

/* 1 when @p r names a band of @p s: cA only at the coarsest level (0 levels:
 * the image), details at levels 1..levels, a channel of s (src/pyramid.c). */
int wt_band_ref_valid(const wt_pyramid *s, const wt_band_ref *r);

/* The fraction of the @p n selected bands' coefficients that are nonzero (1
 * when there are none), into *kept (src/epyramid.c). */
wt_status wt_epyramid_fraction_nonzero(const wt_epyramid *p, const wt_band_ref *sel, size_t n,
                                       double *kept);

/* The CPU reference engine (always present). */
wt_status wt_cpu_engine_open(wt_engine **engine);

/* The CPU engine's DWT in place (dwt_inplace.c): @p pyr's storage (planned
 * float32, pyr->total elements) holds the C x h x w planes at its start and
 * gets their pyramid, or (@p inverse) holds the pyramid and gets the planes;
 * the same numbers as the engine's forward and inverse, with work space of
 * a quarter of the planes besides. @p p resolved (wt_params_resolve). */
wt_status wt_cpu_transform_in_place(wt_engine *e, const wt_params *p, wt_pyramid *pyr,
                                    int inverse);

#if WT_HAVE_CUDA
/* The CUDA engine on device @p device (-1: the first that works). */
wt_status wt_cuda_engine_open(wt_engine **engine, int device);

/* CUDA devices visible to this process (0 when none or the driver fails). */
int wt_cuda_device_count(void);
#endif

#endif
